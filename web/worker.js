// worker.js -- the page's calculator, off its main thread: the page (app.js)
// sends the compiled alea.wasm once, then one request at a time, and this
// worker answers it; the page stays responsive meanwhile, and stops a
// request it no longer wants by ending this worker (a new one starts in a
// few milliseconds: the module is compiled already).
//
//   -> {module}                                 the compiled WebAssembly.Module
//   <- {ready: true, version} | {failed: message}
//   -> {id, deadline, bytes, dialect, exact, calls: [{op: 'dist', src} | {op: 'roll', src, n, seed, detail, luck}
//                                             | {op: 'sample', src, n, seed, stream}
//                                             | {op: 'estimate', src, values, counts}
//                                             | {op: 'table', src, sweeps, stats, svg}
//                                             | {op: 'svg', lines: [src, ...]}
//                                             | {op: 'compare', lines: [src, ...]}
//                                             | {op: 'fairness', rolls: [[src, total], ...], seed}
//                                             | {op: 'policy', src}]}
//   <- {id, started: true}                      when it begins
//   <- {id, results: [answer per call], memory} | {id, failed: message}
//
// The calls of a request share its deadline (ms) and its budget of answer
// bytes (alea.js, web/wasm.c); memory is the module's linear memory, in
// bytes; a distribution, and an estimate from the counts of several
// samples, come with the library's median and cumulative columns
// (web/wasm.c). A line "name: expr" that does not compile as it stands is named
// (alea.js splitName): its answer carries "name", its error's span is
// moved to count from the line's start. A table comes with the library's
// CSV of it (alea.js's table with csv), for the page's download; asked with
// svg (a statistic's index), with the library's picture in its place.
// Several lines compared come as {columns: [an answer per line, as dist's],
// versus: [{a, b, p_greater, ...}] or null, versus_error}: each line as
// dist's, then the distances of the library's comparison (alea.js's compare,
// `alea compare --json`'s "versus"), each line against the first; where it
// refuses (a line's error, the lines' shared limits, the deadline),
// versus_error says why there are no distances. A policy is `alea policy
// --json`'s object for the line ("name: expr" named as a line), or the
// library's error (ALEA_ERR_INVALID for an expression with no choice).
//
// With exact (the page's Fractions), the exact answers in fractions too
// (alea.js's {exact: true}, as the command line's --exact --json): a
// distribution, each line compared, comes as above with "fractions":
// {outcomes: [[value, "1/216"], ...], mean, variance} (strings); a
// comparison with "versus_exact" (the distances as fraction strings); a
// table with "exact" (the cells as fraction strings, stats[k].cells); a
// policy with "exact" (its values as fraction strings). The fractions are
// asked first: where exact mode refuses (its work limit, say), that refusal
// is the answer, an error as any other.
import { loadAlea } from './alea.js';

let loading = null;

self.onmessage = async (ev) => {
  const m = ev.data;
  if (m.module) {
    loading = loadAlea(m.module);
    loading.then((alea) => self.postMessage({ ready: true, version: alea.version }),
      (e) => self.postMessage({ failed: String(e) }));
    return;
  }
  let alea;
  try {
    alea = await loading;
  } catch {
    return; // reported above
  }
  self.postMessage({ id: m.id, started: true });
  try {
    const req = alea.request(m.deadline, m.bytes, m.dialect);
    // A line as the dist and roll views show it: "name: expr" named, with
    // its own error. A roll's JSON detail (its dice's marks) only when the
    // page asks: it marks the dice of a few rolls, and lists many as plain
    // text.
    const line = (c) => {
      const named = req.named(c.src);
      if (named && named.error) return named;
      const src = named ? named.src : c.src;
      let fractions = null;
      if (m.exact && c.op === 'dist') {
        const f = req.dist(src, { exact: true });
        if (f.error) {
          if (named) { f.name = named.name; f.error.start += named.at; f.error.end += named.at; }
          return f;
        }
        fractions = { outcomes: f.outcomes, mean: f.mean, variance: f.variance };
      }
      const out = c.op === 'roll'
        ? req.roll(src, { n: c.n, seed: c.seed, detail: c.detail === true, luck: c.luck === true })
        : c.op === 'sample' ? req.sample(src, { n: c.n, seed: c.seed, stream: c.stream ?? 0 })
          : c.op === 'estimate' ? req.estimate(src, c.values, c.counts)
            : req.dist(src, { stats: true });
      if (fractions && !out.error) out.fractions = fractions;
      if (named) {
        out.name = named.name;
        if (out.error) { out.error.start += named.at; out.error.end += named.at; }
      }
      return out;
    };
    // Lines compared: each line first, as dist's (each within the limits
    // alone, as one line is), then the library's distances between them,
    // within its limits for the whole comparison, when every line has its
    // exact distribution.
    const compare = (lines) => {
      const columns = lines.map((src) => line({ op: 'dist', src }));
      const failed = columns.find((c) => c.error);
      if (failed) return { columns, versus: null, versus_error: failed.error };
      const srcs = lines.map((src, j) => (columns[j].name ? req.named(src).src : src));
      const out = req.compare(srcs, { columns: false });
      const exact = m.exact && !out.error ? req.compare(srcs, { columns: false, exact: true }) : null;
      return { columns, versus: out.error ? null : out.versus, versus_error: out.error,
        versus_exact: exact && !exact.error ? exact.versus : null };
    };
    const results = m.calls.map((c) => {
      if (c.op === 'compare') return compare(c.lines);
      if (c.op === 'table') {
        if (c.svg !== undefined) return req.table(c.src, c.sweeps, c.stats, { svg: c.svg });
        const exact = m.exact ? req.table(c.src, c.sweeps, c.stats, { exact: true }) : null;
        if (exact && exact.error) return exact;
        const out = req.table(c.src, c.sweeps, c.stats, { csv: true });
        if (exact && !out.error) out.exact = exact;
        return out;
      }
      // the chart of several lines, each "name: expr" named as line's
      if (c.op === 'svg') {
        return req.svg(c.lines.map((line) => {
          const named = req.named(line);
          return named && !named.error ? { label: named.name, src: named.src } : { label: '', src: line };
        }));
      }
      if (c.op === 'policy') {
        const named = req.named(c.src);
        const src = named && !named.error ? named.src : c.src;
        const out = req.policy(src);
        if (m.exact && !out.error) {
          const exact = req.policy(src, { exact: true });
          if (exact.error) return exact;
          out.exact = exact;
        }
        return out;
      }
      // a log of rolls judged (fairness.js): as `alea fairness --json`
      if (c.op === 'fairness') return req.fairness(c.rolls, { seed: c.seed });
      return line(c);
    });
    self.postMessage({ id: m.id, results, memory: alea.memoryBytes() });
  } catch (e) {
    // a trap (the stack, say): this worker's module is not to be trusted
    // again; the page starts another
    self.postMessage({ id: m.id, failed: String(e) });
  }
};
