// alea.js -- loads alea.wasm (the C library and web/wasm.c) and wraps its
// entry points. Works in the browser (the page runs it in a worker:
// worker.js) and in node:
//
//   const alea = await loadAlea(bytes);       // an ArrayBuffer, Uint8Array
//                                             // or compiled WebAssembly.Module
//   alea.dist('4d6kh3')        -> the library's JSON, parsed, or {error: {...}}
//   alea.dist('4d6kh3', {stats: true}) -> with the library's median and
//                              cumulative columns: median, at_least, at_most
//   alea.dist('3d6', {exact: true}) -> in exact fractions, as `alea dist
//                              --exact --json`: "exact": true, and each
//                              probability also as a fraction string ("1/216");
//                              compare, table and policy take {exact} too
//   alea.roll('4d6kh3', {n: 3, seed: '7'})   -> {rolls: [{text, total, detail}]}
//   alea.roll('3d6', {seed: '7', luck: true}) -> each roll with its "luck",
//                              {at_most, at_least} in the exact distribution
//                              (alea_dist_luck), as `alea roll --luck --json`;
//                              "luck_refused": why, when a limit refused it
//   alea.compare(['d20', '2d20kh1'], {pairs: false}) -> {columns: [each as
//                              dist's with stats], versus: [{a, b, p_greater,
//                              p_equal, p_less, tv, ks, emd}]}, as `alea
//                              compare --json`; an error has "column"
//   alea.table('d20 + m >= dc', ['m=0..10', 'dc=10..20'], ['mean'], {csv: true})
//                              -> `alea table --json`'s object with "kinds"
//                              (a word per stat: prob, outcome, number) and
//                              "csv" (`alea table --csv`) first; {svg: k}:
//                              "svg" too, `alea table --svg`'s picture (the
//                              heat map of stat k with two names); an error
//                              has "part" (expression, sweep, stat), "index"
//   alea.policy('dd(3, 14, best)') -> `alea policy --json`'s object: {expression,
//                              goal, probability, value, optimum, rows: [{seen,
//                              choice, chance, value, plain}]}; an expression
//                              with no choice: ALEA_ERR_INVALID
//   alea.request(ms, bytes, 'roll20').dist('3d6>3')   -> in Roll20's notation
//   alea.sample('1000d6*1000d6', {n: 1000, seed: '7', stream: 2}) -> an
//                              estimate: the library's JSON of the totals
//                              counted, "samples": n; the rolls of stream 2 of
//                              seed 7 (0 to STREAM_MAX; 0 by default), as
//                              thread 2 of `alea dist --sample --seed 7` rolls
//   alea.estimate('1000d6*1000d6', [v, ...], [count, ...]) -> the library's
//                              estimate from those counts (several sample
//                              calls' added up), with stats as dist's
//   alea.named('adv: 2d20kh1') -> {name: 'adv', src: ' 2d20kh1', at: 4}
//   alea.fairness([['d20', 17], ['6 x 4d6kh3', [12, 9, 15, 11, 14, 10]]], {seed: '7'})
//                              -> whether the rolls are what fair dice give,
//                              as `alea fairness --json --seed 7`: {rolls,
//                              refused, seed, verdict, direction, p, alpha,
//                              text, tests}; a refused roll: an error whose
//                              message starts "roll i: ", with "roll": i
//
// Each call is a request of its own: it stops after the deadline
// (DEADLINE_MS unless loadAlea's options say otherwise) with the error
// ALEA_ERR_INTERRUPTED, "stopped after 2 s: ...", and its answer is at most
// ANSWER_BYTES (web/wasm.c's ceiling), else ALEA_ERR_LIMIT. alea.request(ms,
// bytes) groups several calls under one deadline and one answer budget: the
// page makes each of its updates one request.
//
// The module imports five WASI functions from its C library; the page gives
// it entropy (crypto.getRandomValues) and clocks, and nothing else: the
// library never prints.

const ENOSYS = 52;

// The time a request may take: long enough for anything the library's
// default limits allow (their worst cases take about 60 ms natively, a few
// times that in WebAssembly on a slow phone), short enough that a hostile
// link is stopped before a visitor wonders what happened.
export const DEADLINE_MS = 2000;
// web/wasm.c's ANSWER_MAX: a request may ask for less, not more.
export const ANSWER_BYTES = 16 << 20;
// web/wasm.c's SAMPLE_MAX: the most rolls one sample call counts.
export const SAMPLE_ROLLS = 10000;
// web/wasm.c's STREAM_MAX: the highest stream of a seed a sample call rolls.
export const STREAM_MAX = 64;
// web/wasm.c's FAIRNESS_MAX: the most rolls one fairness call judges.
export const FAIRNESS_ROLLS = 100000;
// A named line's name, as `alea compare name=expr` reads one (cli/cli.h
// COLUMN_NAME_MAX): words of letters, digits, _ and -, from a letter or _,
// one space apart ("plus five"), at most NAME_MAX characters, then ':' here.
export const NAME_MAX = 24;
const NAME = /^([A-Za-z_][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+)*):/;

// "name: expr" split, when compiles(line) is false (a line that compiles
// as it stands is never read as a name): {name, src, at} (at: the byte
// where src starts, for an error's span), {error} for a name longer than
// NAME_MAX, null for a line with no name.
export function splitName(line, compiles) {
  const m = NAME.exec(line);
  if (!m || compiles(line)) return null;
  if (m[1].length > NAME_MAX) {
    const message = `the name '${m[1].slice(0, NAME_MAX)}...' is longer than ${NAME_MAX} characters`;
    return { error: { status: 'ALEA_ERR_SYNTAX', text: 'syntax error', message, line: message,
      start: 0, end: m[1].length } };
  }
  return { name: m[1], src: line.slice(m[0].length), at: m[0].length };
}

export async function loadAlea(bytes, { deadline = DEADLINE_MS, answerBytes = ANSWER_BYTES } = {}) {
  let memory = null;
  const view = () => new DataView(memory.buffer);
  const wasi = {
    random_get(ptr, len) {
      crypto.getRandomValues(new Uint8Array(memory.buffer, ptr, len));
      return 0;
    },
    // CLOCK_REALTIME (0): the wall clock; the others, CLOCK_MONOTONIC (1)
    // first, which the deadline reads: performance.now(), which never goes
    // back.
    clock_time_get(id, precision, out) {
      const ms = id === 0 ? performance.timeOrigin + performance.now() : performance.now();
      view().setBigUint64(out, BigInt(Math.round(ms * 1e6)), true);
      return 0;
    },
    fd_write() { return ENOSYS; },
    fd_seek() { return ENOSYS; },
    fd_close() { return ENOSYS; },
  };
  const imports = { wasi_snapshot_preview1: wasi };
  const instance = bytes instanceof WebAssembly.Module
    ? await WebAssembly.instantiate(bytes, imports)
    : (await WebAssembly.instantiate(bytes, imports)).instance;
  const x = instance.exports;
  memory = x.memory;
  x._initialize();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  // The NUL-terminated string at ptr.
  const cstring = (ptr) => {
    const bytes = new Uint8Array(memory.buffer, ptr);
    return decoder.decode(bytes.subarray(0, bytes.indexOf(0)));
  };
  // Calls fn(ptr, len, ...rest) with the expression's UTF-8 bytes in the
  // module's memory; returns fn's answer, or NOMEM when there is no room.
  const NOMEM = { error: { status: 'ALEA_ERR_NOMEM', text: 'out of memory',
    message: 'out of memory', line: 'out of memory', start: 0, end: 0 } };
  const withBytes = (src, fn, ...rest) => {
    const bytes = encoder.encode(src);
    const ptr = x.alea_web_alloc(bytes.length);
    if (!ptr) return NOMEM;
    new Uint8Array(memory.buffer, ptr, bytes.length).set(bytes);
    try {
      return fn(ptr, bytes.length, ...rest);
    } finally {
      x.alea_web_free(ptr);
    }
  };
  // The same, for an entry point that answers JSON: the answer, parsed.
  const withSource = (src, fn, ...rest) => {
    const out = withBytes(src, fn, ...rest);
    return out === NOMEM ? out : JSON.parse(cstring(out));
  };

  // Calls fn(ptr, lens, n) with the strings' UTF-8 bytes one after another
  // at ptr and each one's length at lens (n of them); fn's answer, or NOMEM.
  const withPieces = (strs, fn) => {
    const parts = strs.map((s) => encoder.encode(s));
    const lens = x.alea_web_alloc(4 * parts.length);
    if (!lens) return NOMEM;
    try {
      new Uint32Array(memory.buffer, lens, parts.length).set(parts.map((b) => b.length));
      const all = new Uint8Array(parts.reduce((k, b) => k + b.length, 0));
      parts.reduce((at, b) => { all.set(b, at); return at + b.length; }, 0);
      const ptr = x.alea_web_alloc(all.length);
      if (!ptr) return NOMEM;
      try {
        new Uint8Array(memory.buffer, ptr, all.length).set(all);
        return fn(ptr, lens, parts.length);
      } finally {
        x.alea_web_free(ptr);
      }
    } finally {
      x.alea_web_free(lens);
    }
  };

  // A seed ('7', a decimal string, or none) as [seeded, high word, low word].
  const seedWords = (seed) => {
    if (seed === null || seed === '') return [0, 0, 0];
    const s = BigInt.asUintN(64, BigInt(seed));
    return [1, Number(s >> 32n), Number(s & 0xffffffffn)];
  };
  const calls = {
    dist: (src, { stats = false, exact = false } = {}) =>
      withSource(src, x.alea_web_dist, (stats ? 1 : 0) | (exact ? 2 : 0)),
    roll(src, { n = 1, seed = null, detail = true, luck = false } = {}) {
      const [seeded, hi, lo] = seedWords(seed);
      return withSource(src, x.alea_web_roll, n, seeded ? 1 : 0, hi, lo, detail ? 1 : 0, luck ? 1 : 0);
    },
    // The expressions' distributions side by side and the distances between
    // them (each against the first; every pair with pairs; without columns,
    // the distances alone: {versus}; with exact, in fractions, the
    // distances as fraction strings): their bytes one after another, and
    // each one's length.
    compare(srcs, { pairs = false, columns = true, exact = false } = {}) {
      const flags = (pairs ? 1 : 0) | (columns ? 0 : 2) | (exact ? 4 : 0);
      return withPieces(srcs, (ptr, lens, n) =>
        JSON.parse(cstring(x.alea_web_compare(ptr, lens, n, flags))));
    },
    // An expression swept over values of its names (sweeps: ['m=0..10',
    // 'dc=10..20']), a statistic a table (stats: ['mean', 'p>=2']); with
    // csv, the library's CSV of it too; with svg (true, or a statistic's
    // index), its picture ("svg": `alea table --svg`'s, the heat map of
    // that statistic with two names, of statistic 0 for true); with exact,
    // the cells in fractions (`alea table --exact`).
    table(src, sweeps, stats, { csv = false, svg = false, exact = false } = {}) {
      const k = svg === true ? 0 : Number.isInteger(svg) && svg >= 0 ? svg : -1;
      return withPieces(sweeps, (sp, sl, ns) => withPieces(stats, (tp, tl, nt) =>
        withSource(src, x.alea_web_table, sp, sl, ns, tp, tl, nt, (csv ? 1 : 0) | (exact ? 2 : 0), k)));
    },
    // The player's best choice in every situation of the expression's
    // first choice point, as `alea policy --json`; an expression without
    // a choice: the library's error, ALEA_ERR_INVALID; with exact, the
    // values as fractions (`alea policy --exact --json`).
    policy: (src, { exact = false } = {}) => withSource(src, x.alea_web_policy, exact ? 2 : 0),
    sample(src, { n = 1000, seed = null, stream = 0 } = {}) {
      const [seeded, hi, lo] = seedWords(seed);
      return withSource(src, x.alea_web_sample, n, seeded, hi, lo, stream);
    },
    // The library's estimate from counted rolls (values[i] rolled counts[i]
    // times: the sample calls' counts added up), with its median and
    // cumulative columns, as dist's with stats.
    estimate(src, values, counts) {
      const n = values.length;
      const ptr = x.alea_web_alloc(16 * n);
      if (!ptr) return NOMEM;
      try {
        const pairs = new Float64Array(memory.buffer, ptr, 2 * n);
        for (let i = 0; i < n; i++) { pairs[2 * i] = values[i]; pairs[2 * i + 1] = counts[i]; }
        return withSource(src, x.alea_web_estimate, ptr, n);
      } finally {
        x.alea_web_free(ptr);
      }
    },
    // The chart of `alea dist --svg` (one item: bars) or `alea compare
    // --svg` (a line each), from the library: {svg: text} or {error}. items:
    // [{label, src}] (label '' for the expression's own text), each sent as
    // a 4-byte little-endian length and its UTF-8 bytes (web/wasm.c).
    svg(items) {
      const parts = items.flatMap(({ label, src }) => [encoder.encode(label || ''), encoder.encode(src)]);
      const size = parts.reduce((n, b) => n + 4 + b.length, 0);
      const ptr = x.alea_web_alloc(size);
      if (!ptr) return NOMEM;
      try {
        const view = new DataView(memory.buffer, ptr, size);
        let at = 0;
        for (const b of parts) {
          view.setUint32(at, b.length, true);
          new Uint8Array(memory.buffer, ptr + at + 4, b.length).set(b);
          at += 4 + b.length;
        }
        return JSON.parse(cstring(x.alea_web_svg(ptr, size, items.length)));
      } finally {
        x.alea_web_free(ptr);
      }
    },
    // Whether a log of rolls is what fair dice give (`alea fairness
    // --json`): rolls [[expression, total or [totals of a repeat]], ...],
    // each sent as a 4-byte little-endian length, the expression's UTF-8
    // bytes, a 4-byte count and the totals as 8-byte little-endian
    // integers (web/wasm.c); seed as roll's (none: the module draws one).
    fairness(rolls, { seed = null } = {}) {
      // each distinct expression encoded once: a log repeats a few dozen
      const texts = new Map();
      const parts = rolls.map(([src, t]) => {
        let b = texts.get(src);
        if (!b) texts.set(src, b = encoder.encode(src));
        return [b, Array.isArray(t) ? t : [t]];
      });
      const size = parts.reduce((n, [b, t]) => n + 8 + b.length + 8 * t.length, 0);
      const ptr = x.alea_web_alloc(size);
      if (!ptr) return NOMEM;
      try {
        const view = new DataView(memory.buffer, ptr, size);
        const bytes = new Uint8Array(memory.buffer, ptr, size);
        let at = 0;
        for (const [b, totals] of parts) {
          view.setUint32(at, b.length, true);
          bytes.set(b, at + 4);
          at += 4 + b.length;
          view.setUint32(at, totals.length, true);
          at += 4;
          for (const t of totals) {
            if (typeof t === 'bigint') {
              view.setBigInt64(at, t, true);
            } else { // a safe integer: its two 32-bit words
              const hi = Math.floor(t / 4294967296);
              view.setUint32(at, t - hi * 4294967296, true);
              view.setInt32(at + 4, hi, true);
            }
            at += 8;
          }
        }
        const [seeded, hi, lo] = seedWords(seed);
        return JSON.parse(cstring(x.alea_web_fairness(ptr, size, rolls.length, seeded, hi, lo)));
      } finally {
        x.alea_web_free(ptr);
      }
    },
    compiles: (src) => withBytes(src, x.alea_web_compiles) === 1,
    named: (line) => splitName(line, calls.compiles),
  };
  // The dialects' names, in the library's order ('alea', 'roll20', ...).
  const dialects = [];
  for (let d = 0; x.alea_web_dialect_name(d); d++) dialects.push(cstring(x.alea_web_dialect_name(d)));
  // Starts a request; its calls share the deadline (ms from now) and the
  // answer budget (bytes), until the next request starts, and read their
  // expressions in the dialect named (alea's own by default).
  const request = (ms = deadline, bytes = answerBytes, dialect = 'alea') => {
    x.alea_web_begin(ms, bytes, Math.max(0, dialects.indexOf(dialect)));
    return calls;
  };

  // The library's limits by name ('dice', 'work', ...), in alea_limit's order.
  const limitNames = [];
  for (let l = 0; x.alea_web_limit_name(l); l++) limitNames.push(cstring(x.alea_web_limit_name(l)));

  return {
    version: cstring(x.alea_web_version()),
    dialects,
    // A library limit for every later call: returns the previous value
    // (value below 0, or none: only asks); -1 for an unknown name.
    limitNames,
    limitMax: (name) => { const l = limitNames.indexOf(name); return l < 0 ? -1 : x.alea_web_limit_max(l); },
    limit: (name, value = -1) => {
      const l = limitNames.indexOf(name);
      return l < 0 ? -1 : x.alea_web_limit(l, value);
    },
    deadline,
    request,
    dist: (src, options) => request().dist(src, options),
    roll: (src, options) => request().roll(src, options),
    compare: (srcs, options) => request().compare(srcs, options),
    table: (src, sweeps, stats, options) => request().table(src, sweeps, stats, options),
    policy: (src, options) => request().policy(src, options),
    sample: (src, options) => request().sample(src, options),
    estimate: (src, values, counts) => request().estimate(src, values, counts),
    svg: (items) => request().svg(items),
    fairness: (rolls, options) => request().fairness(rolls, options),
    named: (line) => request().named(line),
    // Bytes of the module's linear memory (it only grows, up to 128 MiB).
    memoryBytes: () => memory.buffer.byteLength,
  };
}
