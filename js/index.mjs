// alea-dice -- alea's C library on WebAssembly, for node and browsers.
//
//   import { load, roll, dist } from 'alea-dice';
//   const alea = await load({ deadline: 100, limits: { source: 200 } });
//   alea.roll('4d6kh3', { seed: 7 }).text    // '4d6kh3 [5, 2 dropped, 6, 6] = 17'
//   alea.dist('2d6').atLeast(10)             // 0.1666...
//   alea.compare('d20', ['adv', '2d20kh1']).versus[0].p_less  // 0.64125
//   alea.fairness([['d20', 17], ['d20', 3]], { seed: 1 }).verdict  // 'too few'
//   alea.table('d20 + m >= dc', ['m=0..10', 'dc=10..20']).cell('mean', 5, 10)  // 0.8
//   alea.policy('dd(3, 14, best)').rows[0].choice  // 'double down'
//   (await roll('1d20 + 5')).markdown        // one shared instance, loaded on first use
//
// Every call is bounded: a deadline (ms), the expression's length, the rolls
// in one call and the bytes of one answer, each named in LIMITS; the
// library's own limits (dice, support, work, memory, depth, nodes,
// breakdown, output, cells: LIBRARY_LIMITS) hold as well, and may be lowered the same way. A
// bad expression or a limit reached throws an AleaError with the library's
// status and the byte span of the problem; bad options throw TypeError or
// RangeError. wasm.mjs (the page's loader, web/alea.js) does the WASI glue.
import { loadAlea, DEADLINE_MS, ANSWER_BYTES, FAIRNESS_ROLLS } from './wasm.mjs';

// The limits this package enforces around the module, with their maximum
// (the module's or the library's) and default. A context may lower them.
//   deadline     ms one call may take (the module polls it while computing;
//                a hostile expression takes at most this long)
//   source       bytes of expression (the library's default source limit)
//   rolls        rolls in one call (web/wasm.c's ROLLS_MAX)
//   answerBytes  bytes of one call's answer, JSON (web/wasm.c's ANSWER_MAX)
//   fairnessRolls  rolls judged in one fairness() call, each roll of a
//                repeat counted (web/wasm.c's FAIRNESS_MAX: a long
//                campaign's log, with room to spare)
export const LIMITS = Object.freeze({
  deadline: Object.freeze({ default: DEADLINE_MS, max: 60000, what: 'milliseconds one call may take' }),
  source: Object.freeze({ default: 4096, max: 4096, what: 'bytes of expression text' }),
  rolls: Object.freeze({ default: 1000, max: 1000, what: 'rolls in one call' }),
  answerBytes: Object.freeze({ default: ANSWER_BYTES, max: ANSWER_BYTES, what: 'bytes of one answer' }),
  fairnessRolls: Object.freeze({ default: FAIRNESS_ROLLS, max: FAIRNESS_ROLLS,
    what: 'rolls judged in one fairness call' }),
});

// The library's own limits, set in the module's context (alea_ctx_limit):
// their defaults and maxima are the library's (include/alea.h); the source
// limit is the package's (above), checked before the module sees the text.
export const LIBRARY_LIMITS = Object.freeze(['depth', 'nodes', 'dice', 'support', 'work',
  'memory', 'breakdown', 'output', 'cells']);

const SEED_MAX = (1n << 64n) - 1n;

// An error excerpt longer than this many characters is a window of WINDOW
// around the problem (the command line's rule, and the Python module's).
const EXCERPT_MAX = 76, WINDOW = 70, WINDOW_BEFORE = 20;

// Bytes of code point c in UTF-8 (a lone surrogate: U+FFFD's three, as
// it reaches the module).
const bytesOf = (c) => (c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);

// The UTF-16 index in s of byte offset `at` of its UTF-8 form.
function indexOfByte(s, at) {
  let off = 0, i = 0;
  while (i < s.length && off < at) {
    const c = s.codePointAt(i);
    off += bytesOf(c);
    i += c > 0xffff ? 2 : 1;
  }
  return i;
}

// Code points in s.
function codePointCount(s) {
  let n = s.length;
  for (let i = 0; i + 1 < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// Bytes of s in UTF-8 (a lone surrogate as U+FFFD's three), a slice at a
// time into one small buffer: a stranger's text may be megabytes.
const encoder = new TextEncoder();
const SLICE = 65536;
const sliceBytes = new Uint8Array(3 * (SLICE + 1));
function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length;) {
    let j = Math.min(i + SLICE, s.length);
    const c = s.charCodeAt(j - 1);
    if (j < s.length && c >= 0xd800 && c <= 0xdbff) j++; // a pair stays whole
    n += encoder.encodeInto(s.slice(i, j), sliceBytes).written;
    i = j;
  }
  return n;
}

const column = (c) => (c === 9 || c === 10 || c === 11 || c === 12 || c === 13 ? ' '
  : c < 0x20 || c === 0x7f || (c >= 0xd800 && c <= 0xdfff) ? '?' : String.fromCodePoint(c));

/** A bad expression or a limit reached: the library's status
 * ('ALEA_ERR_SYNTAX', 'ALEA_ERR_LIMIT', ...), the byte span [start, end) of
 * the expression's UTF-8 it concerns, the same span as string indices
 * (index, endIndex), and line: the whole error as the command line prints
 * it after 'alea: '. */
export class AleaError extends Error {
  constructor(message, { status, start = 0, end = 0, expression = '', line = message, endIndex }) {
    super(message);
    this.name = 'AleaError';
    this.status = status;
    this.start = start;
    this.end = end;
    this.expression = expression;
    this.line = line;
    this.index = indexOfByte(expression, start);
    this.endIndex = endIndex ?? Math.max(indexOfByte(expression, end), this.index);
  }

  /** The expression and a caret line under the problem, as the command line
   * prints them: a column per character, control characters and lone
   * surrogates as '?', and an expression longer than 76 characters as a
   * window of 70 around the problem. */
  caret() {
    const s = this.expression;
    // Code points before the span's start, and before its end; past the
    // window the end is not needed, so a huge text is not walked.
    let cs = 0, ce = 0, off = 0;
    for (let i = 0; i < s.length;) {
      if (off >= this.start && (off >= this.end || ce - cs > WINDOW)) break;
      const c = s.codePointAt(i);
      cs += off < this.start;
      ce += off < this.end;
      off += bytesOf(c);
      i += c > 0xffff ? 2 : 1;
    }
    ce = Math.max(ce, cs + 1);
    const units = codePointCount(s);
    let ws = 0, we = units;
    if (units > EXCERPT_MAX) {
      ws = Math.max(cs - WINDOW_BEFORE, 0);
      we = Math.min(ws + WINDOW, units);
      if (we - ws < WINDOW) ws = units - WINDOW;
    }
    let text = ws > 0 ? '...' : '';
    for (let i = 0, k = 0; i < s.length && k < we; k++) {
      const c = s.codePointAt(i);
      if (k >= ws) text += column(c);
      i += c > 0xffff ? 2 : 1;
    }
    if (we < units) text += '...';
    const col = (ws > 0 ? 3 : 0) + cs - ws;
    const last = we < units ? Math.min(ce, we) : ce;
    return `${text}\n${' '.repeat(col)}${'^'.repeat(Math.max(last - cs, 1))}`;
  }
}

/** One roll: its total, the breakdown (text; markdown for a chat: dropped
 * dice struck through, criticals bold, the total in code), each roll's total
 * of a repeat ('6 x 4d6kh3'), every die (detail: the library's JSON), and
 * what the expression likely meant when another tool reads it otherwise.
 * Rolled with luck: true, luck is the total's place in the exact
 * distribution, { at_most, at_least } (an array, one per roll, for a
 * repeat), as `alea roll --luck --json` gives it; null when not asked, or
 * when a limit refused the distribution (luckRefused then says why).
 * expression: the text rolled (fairness() judges a Roll by it). */
export class Roll {
  constructor(r, hint, luck = null, luckRefused = null, expression = null) {
    this.expression = expression;
    this.total = r.total;
    this.totals = r.totals ?? [r.total];
    this.text = r.text;
    this.markdown = r.markdown;
    this.detail = r.detail ?? null;
    this.hint = hint ?? null;
    this.luck = luck;
    this.luckRefused = luckRefused;
  }

  /** Each labelled term's [label, value], in the order written:
   * '(2d6 + 3) [fire] + 1d4 [cold]' -> [['fire', 12], ['cold', 3]]. */
  get labels() {
    return (this.detail?.labels ?? []).map((x) => [x.label, x.value]);
  }

  /** Each name a let gave, in the order bound, as { name, term, value }:
   * 'let a = d20, b = a + 2 in b' -> [{ name: 'a', term: 'd20', value: 14 },
   * { name: 'b', term: 'a + 2', value: 16 }]. */
  get bound() {
    return (this.detail?.bound ?? []).map(({ name, term, value }) => ({ name, term, value }));
  }

  /** The expression's description ('4d6 # fire damage'), or null. */
  get comment() {
    return this.detail?.comment ?? null;
  }

  toString() { return this.text; }
}

/** An exact distribution: outcomes as [value, probability] pairs in
 * ascending order, mean, sd, min, max, the mass cut from explosion tails
 * (truncated), names of values (labels: dd()'s outcomes), named
 * probabilities (flags: an event() pool's 'critical failure'). In exact
 * fractions (dist(expr, {exact: true}): exact is true) each probability,
 * mean, variance and truncated is a string 'num/den' in lowest terms
 * ('1/216'; a whole number without '/1'), as `alea dist --exact --json`
 * writes them; sd, atLeast, atMost and the median stay numbers, the
 * nearest doubles. */
export class Dist {
  constructor({ median, at_least: atLeast, at_most: atMost, ...d }) {
    this.expression = d.expression;
    this.outcomes = d.outcomes;
    this.mean = d.mean;
    this.sd = d.sd;
    this.min = d.min;
    this.max = d.max;
    this.truncated = d.truncated;
    this.exact = d.exact === true;
    // exact: the variance as a fraction (in doubles, sd alone)
    this.variance = d.variance ?? null;
    this.labels = new Map(d.labels ?? []);
    this.flags = d.flags ?? {};
    this.rolls = d.rolls ?? 1;
    this.incomplete = d.incomplete ?? null;
    // which of min and max are only the listed ends, which the expression
    // can pass: [] or some of 'min', 'max' (alea_dist_open)
    this.open = d.open ?? [];
    this.hint = d.hint ?? null;
    this.json = d;
    // the library's median and cumulative columns (web/wasm.c): never
    // summed here
    this.#median = median;
    this.#atLeast = atLeast;
    this.#atMost = atMost;
  }

  #median;
  #atLeast;
  #atMost;

  /** The index of the first outcome whose value is at least x. */
  #first(x) {
    const o = this.outcomes;
    let lo = 0, hi = o.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (o[mid][0] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** P(X = value), by bisection of the ascending outcomes ('0' for a
   * value it cannot take in exact fractions). */
  p(value) {
    const x = point(value), o = this.outcomes, i = this.#first(x);
    return i < o.length && o[i][0] === x ? o[i][1] : this.exact ? '0' : 0;
  }

  /** P(X >= value): the library's column (alea_dist_cumulate). */
  atLeast(value) {
    const i = this.#first(point(value));
    return i < this.outcomes.length ? this.#atLeast[i] : 0;
  }

  /** P(X <= value): the library's column. */
  atMost(value) {
    const x = point(value), i = this.#first(x);
    const last = i < this.outcomes.length && this.outcomes[i][0] === x ? i : i - 1;
    return last >= 0 ? this.#atMost[last] : 0;
  }

  /** The library's median (alea_dist_median): the smallest value v with
   * P(X <= v) >= 1/2 of the listed mass. */
  get median() {
    return this.#median;
  }
}

function point(value) {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(`alea: a value of the distribution must be a number, not ${
      Number.isNaN(value) ? 'NaN' : typeof value}`);
  }
  return value;
}

function optionsOf(options, call) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`alea: ${call}'s options must be an object (${call === 'roll'
      ? '{seed, n, dialect, detail, luck}' : call === 'table' ? '{stats, dialect, exact}'
        : '{dialect, exact}'}), not ${
      options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  return options;
}

function limitValue(name, value) {
  const l = LIMITS[name];
  if (!l) {
    throw new RangeError(`alea: unknown limit '${name}' (the limits are ${
      [...Object.keys(LIMITS), ...LIBRARY_LIMITS].join(', ')})`);
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > l.max) {
    throw new RangeError(`alea: limit '${name}' must be an integer from 0 to ${l.max} (${l.what}), `
      + `not ${typeof value === 'number' ? value : typeof value}`);
  }
  return value;
}

function seedValue(seed) {
  if (seed === undefined || seed === null) return null;
  let s;
  if (typeof seed === 'bigint') s = seed;
  else if (typeof seed === 'number' && Number.isSafeInteger(seed)) s = BigInt(seed);
  else if (typeof seed === 'string' && /^[0-9]{1,20}$/.test(seed)) s = BigInt(seed);
  else {
    throw new RangeError('alea: seed must be an integer from 0 to 2^64 - 1 (a number up to '
      + `2^53, a bigint or a decimal string), not ${typeof seed === 'string' ? `'${seed.slice(0, 40)}'` : String(seed)}`);
  }
  if (s < 0n || s > SEED_MAX) throw new RangeError(`alea: seed must be from 0 to 2^64 - 1, not ${s}`);
  return s.toString();
}

/** The most cells (values x columns) of a comparison's table by default
 * (Python's COMPARE_CELLS_MAX): the rows stay within memory when the
 * columns' values hardly overlap. */
export const COMPARE_CELLS_MAX = 1000000;

const TABLE_KINDS = ['p', 'at_least', 'at_most'];

/** compare()'s arguments as [name, expression, named] triples: a string is
 * named by itself, a [name, expression] pair by its name; names are
 * unique. */
function columnsOf(args) {
  if (!args.length) throw new TypeError('alea: compare needs at least one expression');
  const out = args.map((x) => {
    if (typeof x === 'string') return [x, x, false];
    if (Array.isArray(x) && x.length === 2 && x.every((y) => typeof y === 'string')) {
      if (!x[0]) throw new RangeError(`alea: the name of '${x[1].slice(0, 40)}' is empty`);
      return [x[0], x[1], true];
    }
    throw new TypeError('alea: compare takes expressions (strings) or [name, expression] pairs '
      + `of strings, not ${x === null ? 'null' : Array.isArray(x) ? 'that array' : typeof x}`);
  });
  const seen = new Set();
  for (const [name] of out) {
    if (seen.has(name)) {
      throw new RangeError(`alea: two columns are named '${name.slice(0, 40)}'; name them apart `
        + 'with [name, expression] pairs');
    }
    seen.add(name);
  }
  return out;
}

/** Several distributions side by side (compare()): names and dists in the
 * order given, outcomes every value some column can take (ascending), and
 * versus the distances between columns, as `alea compare --json` gives
 * them: {a, b, p_greater, p_equal, p_less, tv, ks, emd} (a and b the
 * columns' indexes; A and B rolled independently; total variation,
 * Kolmogorov-Smirnov and earth mover's distances), each column against the
 * first, or every pair with pairs: true. */
export class Comparison {
  #named;

  constructor(names, dists, versus, named) {
    this.names = names;
    this.dists = dists;
    this.versus = versus;
    this.#named = named;
    const values = new Set();
    for (const d of dists) for (const [v] of d.outcomes) values.add(v);
    this.outcomes = [...values].sort((x, y) => x - y);
  }

  /** The Dist of the column named name (undefined for no such column). */
  get(name) {
    const i = this.names.indexOf(name);
    return i < 0 ? undefined : this.dists[i];
  }

  /** The rows [value, [one number per column]] for every value of
   * outcomes. kind 'p': P(X = value), null where the column cannot take
   * it; 'at_least', 'at_most': P(X >= value), P(X <= value), the library's
   * cumulative columns, every cell filled. */
  table(kind = 'p') {
    if (!TABLE_KINDS.includes(kind)) {
      throw new RangeError(`alea: kind must be one of ${TABLE_KINDS.join(', ')}, not '${String(kind)}'`);
    }
    // each column's P(X = v) from a map of its own, a lookup a cell
    const maps = kind === 'p' ? this.dists.map((d) => new Map(d.outcomes)) : null;
    const cell = (d, j, v) => (maps ? maps[j].get(v) ?? null
      : kind === 'at_least' ? d.atLeast(v) : d.atMost(v));
    return this.outcomes.map((v) => [v, this.dists.map((d, j) => cell(d, j, v))]);
  }

  /** The comparison as `alea compare --json` writes it: {columns: [{name
   * (null for an expression named by itself), expression, outcomes, ...}],
   * versus}. */
  get json() {
    return {
      columns: this.dists.map((d, j) => {
        const { hint, ...rest } = d.json; // the command line says a hint on stderr
        void hint;
        return { name: this.#named[j] ? this.names[j] : null, ...rest };
      }),
      versus: this.versus,
    };
  }
}

/** One test of fairness() (docs/fairness.md), as `alea fairness --json`
 * gives it: name 'mean' (are the rolls low or high? direction 'low' or
 * 'high'), 'ks' (their spread) or 'chi-square' (one expression's counts
 * against its distribution: df, its outcomes, the cells pooled into
 * neighbours, '3..4, 17..18'); statistic, its p-value p and p_adjusted
 * (Holm's, over the tests run), and the rolls it used. A field a test
 * does not have is null. */
export class FairnessTest {
  constructor(t) {
    this.name = t.name;
    this.expression = t.expression ?? null;
    this.statistic = t.statistic;
    this.p = t.p;
    this.p_adjusted = t.p_adjusted;
    this.rolls = t.rolls;
    this.direction = t.direction ?? null;
    this.df = t.df ?? null;
    this.outcomes = t.outcomes ?? null;
    this.pooled = t.pooled ?? null;
  }
}

/** Whether rolls are what fair dice give (fairness()), with the fields of
 * `alea fairness --json`: verdict 'fair', 'not fair' (a Holm-adjusted
 * p-value below alpha, 0.01) or 'too few' (under 10 rolls), text the
 * verdict for a person ('these rolls are lower than fair dice give: p =
 * 0.003'), direction 'low' or 'high' when the mean test decided it (else
 * null), p the least adjusted p-value, tests (FairnessTest), rolls placed,
 * refused (0: a refused roll throws) and seed, a bigint, that placed them. */
export class Fairness {
  constructor(f, seed) {
    this.rolls = f.rolls;
    this.refused = f.refused;
    this.seed = seed;
    this.verdict = f.verdict;
    this.direction = f.direction;
    this.p = f.p;
    this.alpha = f.alpha;
    this.text = f.text;
    this.tests = f.tests.map((t) => new FairnessTest(t));
  }

  /** False when the verdict is 'not fair'. */
  get fair() { return this.verdict !== 'not fair'; }

  toString() { return this.text; }
}

// A total of a roll to judge: a safe integer or a bigint, within int64.
const I64_MIN = -(1n << 63n), I64_MAX = (1n << 63n) - 1n;
function totalOf(t, i) {
  if ((typeof t === 'number' && Number.isSafeInteger(t))
    || (typeof t === 'bigint' && t >= I64_MIN && t <= I64_MAX)) return t;
  throw new RangeError(`alea: fairness: roll ${i}: the total must be a whole number (a safe `
    + `integer or a 64-bit bigint), not ${typeof t === 'string' ? `'${t.slice(0, 40)}'` : String(t)}`);
}

/** fairness()'s rolls as [expression, totals] pairs: an [expression,
 * total] pair, an {expression, total} object, or a Roll (each roll of a
 * repeat). */
function fairnessRolls(rolls) {
  if (rolls === null || typeof rolls !== 'object' || typeof rolls[Symbol.iterator] !== 'function') {
    throw new TypeError('alea: fairness takes an array (or iterable) of rolls, not '
      + `${rolls === null ? 'null' : typeof rolls}`);
  }
  return [...rolls].map((r, i) => {
    if (r instanceof Roll) {
      if (typeof r.expression !== 'string') {
        throw new TypeError(`alea: fairness: roll ${i} is a Roll that does not know its expression`);
      }
      return [r.expression, r.totals.map((t) => totalOf(t, i))];
    }
    if (Array.isArray(r) && r.length === 2) return [r[0], [totalOf(r[1], i)]];
    if (r !== null && typeof r === 'object' && !Array.isArray(r) && 'expression' in r) {
      return [r.expression, [totalOf(r.total, i)]];
    }
    throw new TypeError(`alea: fairness: roll ${i} must be an [expression, total] pair, an `
      + `{expression, total} object or a Roll, not ${r === null ? 'null' : Array.isArray(r)
        ? 'that array' : typeof r}`);
  });
}

// 64 bits of the system's entropy: the seed of a judgement not given one,
// chosen here so that the Fairness says it exactly.
function randomSeed() {
  const w = crypto.getRandomValues(new Uint32Array(2));
  return (BigInt(w[0]) << 32n | BigInt(w[1])).toString();
}

/** sweeps of table(): an array of 'NAME=VALUES' strings, or an object
 * {NAME: VALUES} (in its keys' order), VALUES a string ('0..10',
 * '0,2,5', '0..20..5'), a whole number or an array of them; as strings
 * 'NAME=VALUES'. */
function sweepsOf(sweeps) {
  const list = Array.isArray(sweeps) ? sweeps
    : sweeps !== null && typeof sweeps === 'object'
      ? Object.entries(sweeps).map(([name, v]) => {
        const ok = (x) => typeof x === 'number' && Number.isSafeInteger(x);
        if (typeof v === 'string' || ok(v)) return `${name}=${v}`;
        if (Array.isArray(v) && v.length && v.every(ok)) return `${name}=${v.join(',')}`;
        throw new TypeError(`alea: the values of '${name.slice(0, 40)}' must be a string ('0..10'), `
          + `a whole number or an array of them, not ${v === null ? 'null' : Array.isArray(v)
            ? 'that array' : typeof v}`);
      })
      : null;
  if (!list || !list.length) {
    throw new TypeError('alea: table needs sweeps: an array such as [\'m=0..10\', \'dc=10..20\'] '
      + 'or an object such as {m: \'0..10\'}');
  }
  for (const x of list) {
    if (typeof x !== 'string') throw new TypeError(`alea: a sweep must be a string, not ${x === null ? 'null' : typeof x}`);
  }
  return list;
}

/** A statistic's cells, a row each: one number with one name, a list of
 * the columns with two. */
const rowsOfCells = (cells, two) => cells.map((r) => (two ? r : [r]));

/** An expression swept over values of its names (table()), as `alea table
 * --json` gives it: names the names swept (one or two), values each
 * name's values, rows the first's (a row each) and cols the second's (a
 * column each; [null] with one name), stats the statistics as written,
 * kinds what each is ('prob': a probability; 'outcome': an outcome, for
 * median and pN; 'number': mean or sd), json `alea table --json`'s object
 * and csv `alea table --csv`'s text (the library's). */
export class Table {
  #cells;

  constructor({ kinds, csv, ...data }) {
    this.expression = data.expression;
    this.names = data.names;
    this.values = data.values;
    this.rows = data.values[0];
    this.cols = data.values.length > 1 ? data.values[1] : [null];
    this.stats = data.stats.map((s) => s.stat);
    this.kinds = kinds;
    this.json = data;
    this.csv = csv;
    const two = data.values.length > 1;
    this.#cells = data.stats.map((s) => rowsOfCells(s.cells, two));
  }

  /** The cell of stat (as written, 'mean', or its index) at the row's
   * value and the column's (null or none with one name); undefined for a
   * value not swept. */
  cell(stat, row, col = null) {
    const k = typeof stat === 'number' ? stat : this.stats.indexOf(stat);
    const r = this.rows.indexOf(row), c = this.cols.indexOf(col);
    return k < 0 || r < 0 || c < 0 ? undefined : this.#cells[k]?.[r][c];
  }

  /** An object per cell, row by row: the names' values and each stat's
   * number ({m: 0, dc: 10, mean: 0.55}). */
  asObjects() {
    return this.rows.flatMap((a, r) => this.cols.map((b, c) => {
      const o = Object.fromEntries(this.names.map((n, i) => [n, i ? b : a]));
      this.stats.forEach((s, k) => { o[s] = this.#cells[k][r][c]; });
      return o;
    }));
  }
}

/** The player's decisions at an expression's first choice point
 * (policy()), as `alea policy --json` gives them: goal as a person reads
 * it ('the chance of >= 20', 'the expected tier ...'), isProb whether its
 * values are chances, value the expression's with its choices (the best
 * ones, or the fixed rule it names: 'dd(6, 14, always)'), optimum with the
 * best ones, rows a {seen, choice, chance, value, plain} per situation
 * (plain: the goal's value without choosing; situations that share a
 * choice come one after another where the mechanic can order them so),
 * json the library's object. With exact: true the values are fractions
 * where `alea policy --exact --json` writes them so: value, optimum and
 * each row's value as 'num/den' strings ('11/10'). */
export class Policy {
  constructor(data) {
    this.expression = data.expression;
    this.goal = data.goal;
    this.isProb = data.probability;
    this.value = data.value;
    this.optimum = data.optimum;
    this.rows = data.rows.map(({ seen, choice, chance, value, plain }) =>
      Object.freeze({ seen, choice, chance, value, plain }));
    this.json = data;
  }
}

/** An instance of the module: its own memory (at most 128 MiB), generator
 * and limits. Calls are synchronous; one instance serves one thread. */
export class Alea {
  #m;
  #limits;
  #broken = null;

  constructor(module, limits) {
    this.#m = module;
    this.#limits = limits;
    /** The library's version, as include/alea.h's ALEA_VERSION_STRING. */
    this.version = module.version;
    /** The notations an expression may be read in ('alea', 'roll20', ...). */
    this.dialects = Object.freeze([...module.dialects]);
  }

  /** A limit's value; with value (an integer from 0 to its maximum), sets
   * it and returns the previous one. */
  limit(name, value) {
    if (LIBRARY_LIMITS.includes(name)) {
      const max = this.#m.limitMax(name);
      if (value === undefined) return this.#m.limit(name);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
        throw new RangeError(`alea: limit '${name}' must be an integer from 0 to ${max} (the `
          + `library's ${name} limit), not ${typeof value === 'number' ? value : typeof value}`);
      }
      return this.#m.limit(name, value);
    }
    const old = this.#limits[name];
    if (value !== undefined) this.#limits[name] = limitValue(name, value);
    else limitValue(name, old);
    return old;
  }

  /** Seeds the generator (0 to 2^64 - 1): the unseeded rolls after it are
   * those of `alea roll --seed SEED`. */
  seed(seed) {
    const s = seedValue(seed);
    if (s === null) throw new RangeError('alea: seed() needs a seed');
    // a seeded roll of a constant: it seeds, and draws nothing
    this.#call('0', 'alea', (req) => req.roll('0', { n: 1, seed: s, detail: false }));
  }

  /** Rolls expr once (a Roll), or n times (an array). With seed, the rolls
   * are those of `alea roll --seed SEED`; else the generator goes on from
   * the system's entropy. detail: false leaves out every die's JSON.
   * luck: true places each total in the expression's exact distribution,
   * computed once first by the module within the limits and half the
   * deadline (Roll.luck, the library's alea_dist_luck); a refused
   * distribution never fails the rolls (Roll.luckRefused says why). */
  roll(expr, options = {}) {
    const { seed, n, dialect = 'alea', detail = true, luck = false } = optionsOf(options, 'roll');
    const count = n ?? 1;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
      throw new RangeError(`alea: n must be a whole number of rolls from 1, not ${String(count)}`);
    }
    const s = seedValue(seed);
    const src = this.#source(expr);
    if (count > this.#limits.rolls) {
      throw new AleaError(`too many rolls (limit is ${this.#limits.rolls})`,
        { status: 'ALEA_ERR_LIMIT', start: 0, end: utf8Length(src), expression: src });
    }
    // the module places each total (alea_dist_luck), the distribution
    // computed once first in at most half the deadline (web/wasm.c)
    const a = this.#call(src, dialect, (req) => req.roll(src,
      { n: count, seed: s, detail: !!detail, luck: !!luck }));
    const rolls = a.rolls.map((r) => new Roll(r, a.hint, r.luck ?? null, a.luck_refused ?? null, src));
    return n === undefined ? rolls[0] : rolls;
  }

  /** The exact distribution of expr (a Dist), in doubles; with exact: true
   * in exact fractions, as `alea dist --exact --json` (mini-gmp in the
   * module): each probability, the mean, variance and truncated mass a
   * fraction string in lowest terms ('1/216', '21/2'), the same digits as
   * the command line's; sd, atLeast, atMost and the median stay numbers
   * (the nearest doubles to the fractions). Fractions cost more work and
   * memory: the same limits bound them. */
  dist(expr, options = {}) {
    const { dialect = 'alea', exact = false } = optionsOf(options, 'dist');
    const src = this.#source(expr);
    return new Dist(this.#call(src, dialect, (req) => req.dist(src, { stats: true, exact: !!exact })));
  }

  /** The distributions of several expressions side by side and the
   * distances between them (a Comparison), as `alea compare --json`: each
   * expression a string, named by itself, or a [name, expression] pair;
   * options last: {dialect, exact, pairs, maxCells}. One call of the
   * module: the columns and the distances share the deadline and one work
   * budget, and their outcomes together stay within the support limit;
   * the table has at most maxCells cells (values x columns, default
   * COMPARE_CELLS_MAX). versus: each column against the first, or every
   * pair with pairs: true (`alea compare --pairs`). With exact: true every
   * column in fractions (as dist's) and the distances as fraction strings
   * ('1/6'), as `alea compare --exact --json`. */
  compare(...args) {
    const last = args.at(-1);
    const options = last !== null && typeof last === 'object' && !Array.isArray(last)
      ? args.pop() : {};
    const { dialect = 'alea', exact = false, pairs = false, maxCells = COMPARE_CELLS_MAX } = options;
    const columns = columnsOf(args);
    if (typeof maxCells !== 'number' || !Number.isInteger(maxCells) || maxCells < 1) {
      throw new RangeError(`alea: maxCells must be a whole number from 1, not ${String(maxCells)}`);
    }
    const srcs = columns.map(([, src]) => this.#source(src));
    const first = srcs[0];
    let failed = 0;
    const a = this.#call(first, dialect, (req) => {
      const out = req.compare(srcs, { pairs: !!pairs, exact: !!exact });
      failed = out.error?.column ?? 0;
      return out;
    }, () => srcs[failed]);
    const c = new Comparison(columns.map(([name]) => name), a.columns.map((d) => new Dist(d)),
      a.versus, columns.map(([, , named]) => named));
    const cells = c.outcomes.length * c.names.length;
    if (cells > maxCells) {
      throw new AleaError(`compare: the table would have ${cells} cells (${c.outcomes.length} `
        + `values x ${c.names.length} columns), more than maxCells (${maxCells}); compare fewer `
        + 'expressions, or raise maxCells', { status: 'ALEA_ERR_LIMIT', expression: srcs.at(-1) });
    }
    return c;
  }

  /** Whether the rolls are what fair dice give (a Fairness), as `alea
   * fairness --json --seed SEED` judges the same log (docs/fairness.md).
   * rolls: [expression, total] pairs, {expression, total} objects or Roll
   * objects from roll() (each roll of a repeat counts), at most the
   * fairnessRolls limit in all. options: {seed (0 to 2^64 - 1; none: one
   * from the system's entropy, said in the result), dialect}. One call of
   * the module: each distinct expression is compiled and its exact
   * distribution computed once, all within the deadline and one work
   * budget. A roll the library refuses (a bad expression, a total it
   * cannot give: ['d20', 21]) throws an AleaError whose message starts
   * 'roll N: ' (N its index in rolls) and whose span is in its expression. */
  fairness(rolls, options = {}) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw new TypeError('alea: fairness\'s options must be an object ({seed, dialect})');
    }
    const { seed, dialect = 'alea' } = options;
    const s = seedValue(seed) ?? randomSeed();
    const list = fairnessRolls(rolls);
    list.forEach(([src], i) => {
      if (typeof src !== 'string') {
        throw new TypeError(`alea: fairness: roll ${i}: the expression must be a string, not ${
          src === null ? 'null' : typeof src}`);
      }
      try {
        this.#source(src);
      } catch (e) {
        if (e instanceof AleaError) {
          e.message = `roll ${i}: ${e.message}`;
          e.line = `roll ${i}: ${e.line}`;
        }
        throw e;
      }
    });
    const count = list.reduce((n, [, t]) => n + t.length, 0);
    const limit = this.#limits.fairnessRolls;
    if (count > limit) {
      throw new AleaError(`too many rolls to judge: ${count} (limit is ${limit})`,
        { status: 'ALEA_ERR_LIMIT' });
    }
    let failed = 0;
    const a = this.#call('', dialect, (req) => {
      const out = req.fairness(list, { seed: s });
      failed = out.error?.roll ?? 0;
      return out;
    }, () => list[failed]?.[0] ?? '');
    return new Fairness(a, BigInt(s));
  }

  /** The expression swept over values of its names, a statistic of its
   * distribution in each cell (a Table), as `alea table --json`. sweeps:
   * ['m=0..10', 'dc=10..20'] or {m: '0..10', dc: '10..20'} (the first the
   * rows, a second the columns); options: {stats, dialect, exact}, stats a
   * statistic or a list of them: 'mean' (the default), 'sd', 'median',
   * 'p>=N', 'p<=N', 'p=N', 'pN' (a percentile) or a named probability the
   * expression reports ('critical failure'). One call of the module: the
   * cells are at most the library's 'cells' limit and share its work
   * limit and the deadline. An error in a sweep or a statistic is an
   * AleaError whose expression is that text (part: 'sweep' or 'stat',
   * partIndex: which); the expression's, part 'expression'. With exact:
   * true the cells in fractions, as `alea table --exact --json` (a
   * probability or mean a fraction string, '1/6'; sd the nearest double). */
  table(expr, sweeps, options = {}) {
    const { stats = [], dialect = 'alea', exact = false } = optionsOf(options, 'table');
    const src = this.#source(expr);
    const sw = sweepsOf(sweeps);
    const st = typeof stats === 'string' ? [stats] : stats;
    if (!Array.isArray(st) || st.some((x) => typeof x !== 'string')) {
      throw new TypeError('alea: stats must be a statistic (a string, \'mean\') or an array of them');
    }
    const limit = this.#limits.source;
    for (const [what, list] of [['sweep', sw], ['stat', st]]) {
      for (const [k, text] of list.entries()) {
        const size = utf8Length(text);
        if (size > limit) {
          const e = new AleaError(`${what} too long: ${size} bytes (source limit is ${limit})`,
            { status: 'ALEA_ERR_LIMIT', start: limit, end: size, expression: text, endIndex: text.length });
          throw Object.assign(e, { part: what, partIndex: k });
        }
      }
    }
    let part = 'expression', index = 0;
    try {
      return new Table(this.#call(src, dialect, (req) => {
        const out = req.table(src, sw, st, { csv: true, exact: !!exact });
        if (out.error) ({ part = 'expression', index = 0 } = out.error);
        return out;
      }, () => (part === 'sweep' ? sw[index] : part === 'stat' ? st[index] : src)));
    } catch (e) {
      if (e instanceof AleaError) Object.assign(e, { part, partIndex: index });
      throw e;
    }
  }

  /** The player's best choice in every situation of the expression's
   * first choice point (a Policy), as `alea policy --json`; options:
   * {dialect, exact} (exact: true: the values as fraction strings, as
   * `alea policy --exact --json`). One call
   * of the module, within the library's work limit and the deadline. An
   * expression with no choice for the player ('3d6') throws an AleaError
   * with status 'ALEA_ERR_INVALID' and its span. */
  policy(expr, options = {}) {
    const { dialect = 'alea', exact = false } = optionsOf(options, 'policy');
    const src = this.#source(expr);
    return new Policy(this.#call(src, dialect, (req) => req.policy(src, { exact: !!exact })));
  }

  #source(expr) {
    if (typeof expr !== 'string') {
      throw new TypeError(`alea: the expression must be a string, not ${
        expr === null ? 'null' : typeof expr}`);
    }
    const limit = this.#limits.source;
    const size = utf8Length(expr);
    if (size > limit) {
      throw new AleaError(`expression too long: ${size} bytes (source limit is ${limit})`,
        { status: 'ALEA_ERR_LIMIT', start: limit, end: size, expression: expr, endIndex: expr.length });
    }
    // A lone surrogate (JSON's "\ud800" makes one) is not text: named here,
    // where the module would see only the U+FFFD that replaces it.
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(expr);
    if (lone) {
      const at = utf8Length(expr.slice(0, lone.index));
      const msg = `unexpected U+${expr.charCodeAt(lone.index).toString(16).toUpperCase()} at byte ${
        at} (a lone surrogate, which is not text; only ASCII dice notation is understood)`;
      throw new AleaError(msg, { status: 'ALEA_ERR_SYNTAX', start: at, end: at + 3, expression: expr,
        line: `syntax error: ${msg}` });
    }
    return expr;
  }

  /** True once the module trapped: every call throws, load another. */
  get closed() { return this.#broken !== null; }

  // expressionOf: the expression an error concerns, once fn has run (a
  // comparison's column)
  #call(src, dialect, fn, expressionOf = () => src) {
    if (!this.dialects.includes(dialect)) {
      throw new RangeError(`alea: unknown dialect '${String(dialect)}' (the dialects are ${
        this.dialects.join(', ')})`);
    }
    if (this.#broken) throw new Error(`alea: this instance stopped after ${this.#broken}; load another`);
    const { deadline, answerBytes } = this.#limits;
    let a;
    try {
      a = fn(this.#m.request(deadline, answerBytes, dialect));
    } catch (e) {
      // a trap: the module's state is not to be trusted again
      this.#broken = String(e);
      throw new Error(`alea: the WebAssembly module failed (${e}); this instance is closed, load another`);
    }
    if (!a.error) return a;
    const { status, message, line, start, end } = a.error;
    src = expressionOf();
    if (status === 'ALEA_ERR_INTERRUPTED') {
      const msg = `timed out after ${deadline} ms (the deadline)`;
      throw new AleaError(msg, { status, start, end, expression: src, line: msg });
    }
    // web/wasm.c words its answer limit for the page
    const fix = (t) => t.replace('too long for this page', 'too long');
    throw new AleaError(fix(message), { status, start, end, expression: src, line: fix(line) });
  }
}

const wasmUrl = new URL('./alea.wasm', import.meta.url);

async function wasmBytes() {
  if (wasmUrl.protocol === 'file:') {
    const fs = 'node:fs/promises'; // not for bundlers: in a browser the URL is http(s)
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fs);
    return readFile(wasmUrl);
  }
  const res = await fetch(wasmUrl);
  if (!res.ok) throw new Error(`alea: could not load ${wasmUrl}: HTTP ${res.status}`);
  return res.arrayBuffer();
}

/** Loads an instance. options.limits: {deadline, source, rolls,
 * answerBytes} (LIMITS); options.wasm: the module's bytes or a compiled
 * WebAssembly.Module, where the package's alea.wasm cannot be read. */
export async function load({ limits = {}, wasm } = {}) {
  if (limits === null || typeof limits !== 'object') {
    throw new TypeError(`alea: limits must be an object (${Object.keys(LIMITS).join(', ')})`);
  }
  const values = Object.fromEntries(Object.entries(LIMITS).map(([k, l]) => [k, l.default]));
  for (const [k, v] of Object.entries(limits)) {
    if (!LIBRARY_LIMITS.includes(k)) values[k] = limitValue(k, v);
  }
  const alea = new Alea(await loadAlea(wasm ?? await compiled()), values);
  for (const [k, v] of Object.entries(limits)) {
    if (LIBRARY_LIMITS.includes(k)) alea.limit(k, v);
  }
  return alea;
}

// The package's module, read and compiled once: each further load() is an
// instance of it (memory of its own), not another download.
let module = null;
function compiled() {
  module ??= wasmBytes().then((b) => WebAssembly.compile(b)).catch((e) => {
    module = null;
    throw e;
  });
  return module;
}

let shared = null;

// The shared instance; loaded again after a failed load or a trap.
async function instance() {
  shared ??= load().catch((e) => {
    shared = null;
    throw e;
  });
  const a = await shared;
  if (a.closed) shared = null;
  return a;
}

/** Rolls with a shared instance and the default limits (Alea.roll). */
export async function roll(expr, options) {
  return (await instance()).roll(expr, options);
}

/** The distribution with a shared instance and the default limits (Alea.dist). */
export async function dist(expr, options) {
  return (await instance()).dist(expr, options);
}

/** A comparison with a shared instance and the default limits (Alea.compare). */
export async function compare(...args) {
  return (await instance()).compare(...args);
}

/** A judgement of rolls with a shared instance and the default limits (Alea.fairness). */
export async function fairness(rolls, options) {
  return (await instance()).fairness(rolls, options);
}

/** A table with a shared instance and the default limits (Alea.table). */
export async function table(expr, sweeps, options) {
  return (await instance()).table(expr, sweeps, options);
}

/** A policy with a shared instance and the default limits (Alea.policy). */
export async function policy(expr, options) {
  return (await instance()).policy(expr, options);
}
