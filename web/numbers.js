// numbers.js -- the page's arithmetic on the library's distributions (its
// JSON: {outcomes: [[value, p], ...], min, max, ...}), kept apart from the
// page so that node tests it directly (web/test/numbers.test.mjs).

// A probability of the library's JSON: a number, or a string for one below
// the double range ("4.9e-391"), which counts as 0 in sums.
export const num = (p) => (typeof p === 'string' ? Number(p) : p);

// A probability as a percentage, as `alea dist` prints it: two decimals,
// or, below 0.005%, two significant digits ("3.1e-05"): never 0.00 for what
// can happen; a string (below the double range) from its own digits
// ("4.9e-389").
export function pct(p) {
  if (typeof p === 'string') {
    const m = /^([0-9]+(?:\.[0-9]*)?)e([-+]?[0-9]+)$/i.exec(p.trim());
    if (!m) return p;
    return sci(Number(m[1]), Number(m[2]) + 2);
  }
  const x = p * 100;
  if (x >= 0.005 || x <= 0) return x.toFixed(2);
  const e = Math.floor(Math.log10(x));
  return sci(x / 10 ** e, e);
}

// m x 10^e with one decimal and a two-digit exponent, m normalized first.
function sci(m, e) {
  if (m === 0) return (0).toFixed(2);
  while (m >= 10) { m /= 10; e++; }
  while (m < 1) { m *= 10; e--; }
  let t = m.toFixed(1);
  if (t === '10.0') { t = '1.0'; e++; } // 9.96 rounded up
  return `${t}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

// The three views of one distribution, value by value: the library's
// cumulative columns (web/wasm.c gives them with each distribution and
// each estimate: exact counts summed, 1 at the far end); never summed here.
export function columns(dist) {
  return { exact: dist.outcomes.map(([, p]) => num(p)), atleast: dist.at_least, atmost: dist.at_most };
}

// The chance (mode's) of value v for a distribution whose values are at
// (value -> index): outside its range, "at least" is 1 below it and 0 above,
// "at most" the reverse, as `alea compare --at-least` prints; "exactly" a
// value it cannot take is undefined (a blank cell).
// The least and the greatest value a distribution lists (its min and max are
// the expression's bounds, which an estimate's rolls or a cut tail may not
// reach).
const first = (d) => d.outcomes[0][0];
const last = (d) => d.outcomes.at(-1)[0];

export function chance({ dist, c, at }, v, mode) {
  const i = at.get(v);
  if (i !== undefined) return mode === 'exact' ? dist.outcomes[i][1] : c[mode][i];
  if (mode === 'exact') return undefined;
  if (v < first(dist)) return mode === 'atleast' ? 1 : 0;
  if (v > last(dist)) return mode === 'atleast' ? 0 : 1;
  // a gap inside the range: the cumulative chance of the value below it
  const values = dist.outcomes;
  let lo = 0, hi = values.length; // the first value > v
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid][0] <= v) lo = mid + 1; else hi = mid;
  }
  return mode === 'atmost' ? c.atmost[lo - 1] : c.atleast[lo];
}

// The library's median (alea_dist_median: the smallest value whose chance
// of at most it reaches one half), which web/wasm.c gives with each
// distribution and estimate.
export const median = (dist) => dist.median;

// The counts of several samples of one expression (each the library's JSON
// of counted rolls: "samples": n, each chance a count over n) added up:
// {values (sorted), counts, rolls}. The page sends them to the library
// (alea.js estimate) for the estimate and its statistics.
export function mergeSamples(parts) {
  const counts = new Map();
  let rolls = 0;
  for (const d of parts) {
    rolls += d.samples;
    for (const [v, p] of d.outcomes) counts.set(v, (counts.get(v) || 0) + Math.round(num(p) * d.samples));
  }
  const values = [...counts.keys()].sort((a, b) => a - b);
  return { values, counts: values.map((v) => counts.get(v)), rolls };
}

// ---- histograms of estimates ---------------------------------------------------

// Bin widths: 1, 2, 5, 10, 20, 50, ... values (whole numbers: an outcome
// is one; a round width makes round edges).
const NICE = [1, 2, 5];
const niceWidths = function* () {
  for (let e = 1; ; e *= 10) for (const m of NICE) yield m * e;
};
const niceAtLeast = (x) => {
  for (const w of niceWidths()) if (w >= x) return w;
};
// the nice width nearest to x, on a log scale
const niceNearest = (x) => {
  let below = 1;
  for (const w of niceWidths()) {
    if (w >= x) return w === 1 || Math.log(w / x) <= Math.log(x / below) ? w : below;
    below = w;
  }
};

// The smallest value whose chance of at most it reaches q.
const quantile = (dist, c, q) => {
  const i = c.atmost.findIndex((s) => s >= q);
  return dist.outcomes[i < 0 ? dist.outcomes.length - 1 : i][0];
};

// The rolls an estimate counted (mergeSamples' "estimate", the library's
// "samples").
const rollsOf = (d) => d.estimate ?? d.samples;

// The width of the bins of a chart showing values (the sorted values in
// view, of every expression) and the estimates among its distributions,
// at most maxBins bars wide: 1 (a bar per value) while the values are few
// (no more than sqrt(rolls), nor maxBins); else Freedman and Diaconis's
// width for the rolls counted, 2 IQR / rolls^(1/3) (the widest of the
// estimates'), rounded to the nearest of 1, 2, 5 x 10^k, and widened to
// fit the values into maxBins bars. An estimate whose quartiles coincide
// takes its range over sqrt(rolls) instead.
export function binWidth(values, estimates, maxBins) {
  if (estimates.length === 0 || values.length === 0) return 1;
  const rolls = Math.min(...estimates.map(rollsOf));
  if (values.length <= Math.min(maxBins, Math.floor(Math.sqrt(rolls)))) return 1;
  let h = 1;
  for (const d of estimates) {
    const c = columns(d);
    const iqr = quantile(d, c, 0.75) - quantile(d, c, 0.25);
    h = Math.max(h, iqr > 0 ? 2 * iqr / Math.cbrt(rollsOf(d))
      : (last(d) - first(d) + 1) / Math.sqrt(rollsOf(d)));
  }
  const span = values.at(-1) - values[0] + 1;
  return Math.max(niceNearest(h), niceAtLeast(span / maxBins));
}

// The bins (their numbers: bin k holds k w to k w + w - 1) of a table or
// CSV in bins of w: each bin that holds a value of some expression
// (values: sorted), and every bin in the range of an estimate (its empty
// bins are counted zeros).
export function binRows(values, w, estimates) {
  const rows = new Set(values.map((v) => Math.floor(v / w)));
  for (const d of estimates)
    for (let k = Math.floor(first(d) / w); k <= Math.floor(last(d) / w); k++) rows.add(k);
  return [...rows].sort((a, b) => a - b);
}

// The chance (mode's) of each bin of w values of bins (sorted numbers, as
// binRows') for a distribution as chance() takes it: "exactly" the chance
// of a value in the bin (undefined for a bin outside its range, as a value
// it cannot take), "at least" the chance of the bin's first value or more,
// "at most" of its last value or less.
export function binChances(col, bins, w, mode) {
  if (mode !== 'exact')
    return bins.map((k) => chance(col, mode === 'atleast' ? k * w : k * w + w - 1, mode));
  const slot = new Map(bins.map((k, i) => [k, i]));
  const sums = new Array(bins.length).fill(0);
  col.dist.outcomes.forEach(([v], i) => {
    const s = slot.get(Math.floor(v / w));
    if (s !== undefined) sums[s] += col.c.exact[i];
  });
  const min = first(col.dist), max = last(col.dist);
  return bins.map((k, i) => (k * w + w - 1 < min || k * w > max ? undefined : sums[i]));
}

// The negligible tails of a table, as `alea dist` and `alea compare` hide
// them (cli/table.c, TAIL_SHOWN): the runs of rows at either end whose
// chance of exactly them is below 0.005% in every column (weights: a
// column each), unless that is every row. {lo, hi}: rows [lo, hi) are
// shown; ends: each hidden run, {from, to, rows, mass: the most one column
// hides}.
export const TAIL_SHOWN = 0.00005;
export function shownRows(weights, n) {
  const w = (i) => Math.max(0, ...weights.map((col) => num(col[i] ?? 0)));
  let lo = 0, hi = n;
  while (lo < n && w(lo) < TAIL_SHOWN) lo++;
  if (lo === n) return { lo: 0, hi: n, ends: [] };
  while (hi > lo && w(hi - 1) < TAIL_SHOWN) hi--;
  const run = (a, b) => ({ from: a, to: b - 1, rows: b - a,
    mass: Math.max(0, ...weights.map((col) => col.slice(a, b).reduce((s, p) => s + num(p ?? 0), 0))) });
  return { lo, hi, ends: [run(0, lo), run(hi, n)].filter((r) => r.rows > 0) };
}

// A number as C's %.2g prints it ("0.032", "1e-05").
export function g2(x) {
  if (x === 0) return '0';
  const e = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(2)))));
  if (e < -4 || e >= 2) {
    const [m, ex] = x.toExponential(1).split('e');
    const k = Number(ex);
    return `${m.replace(/\.0$/, '')}e${k < 0 ? '-' : '+'}${String(Math.abs(k)).padStart(2, '0')}`;
  }
  return String(Number(x.toPrecision(2)));
}

// A roll's luck, P(<= total) or P(>= total), as `alea roll --luck` prints
// it: three significant digits (C's %.3g), "100%" and "0%" only when it is
// exactly that.
export function luckPct(p) {
  const x = p * 100;
  if (p > 0 && p < 1 && x >= 99.95) return '>99.9%';
  if (p > 0 && x < 0.001) return '<0.001%';
  // %.3g: no exponent between 0.001 and 100, no trailing zeros
  return `${x.toPrecision(3).replace(/(\.[0-9]*?)0+$/, '$1').replace(/\.$/, '')}%`;
}

// The distances between two lines (`alea compare --json`'s "versus": {a,
// b, p_greater, p_equal, p_less, tv, ks, emd}) as `alea compare` prints
// them under its table (cli/versus.c): the three chances in percent with two
// decimals, TV and KS with three, EMD with two.
export const VERSUS_KEYS = ['p_greater', 'p_equal', 'p_less', 'tv', 'ks', 'emd'];
export function versusTexts(v) {
  const x = VERSUS_KEYS.map((k) => num(v[k]));
  return [...x.slice(0, 3).map((p) => `${fixedC(100 * p, 2)}%`), fixedC(x[3], 3), fixedC(x[4], 3),
    fixedC(x[5], 2)];
}

// A value of a policy's goal (`alea policy --json`'s "value", "optimum",
// a row's "value" and "plain") as `alea policy` prints it (cli/policy.c):
// a chance in percent with two decimals, a mean with two.
export const policyValue = (v, isProb) => (isProb ? `${fixedC(100 * num(v), 2)}%` : fixedC(num(v), 2));

// x with d decimals (d < 20) as C's printf("%.*f") writes it: the double's
// exact value rounded to nearest, a tie to even (64.125: "64.12"), where
// toFixed rounds a tie up ("64.13"). A tie has d + 1 decimals exactly, so
// 60 of them show it (the next digits of a double near it are within 60).
export function fixedC(x, d) {
  const up = x.toFixed(d);
  if (!Number.isFinite(x)) return up;
  const exact = Math.abs(x).toFixed(60);
  const at = exact.indexOf('.') + 1 + d;
  if (!/^50*$/.test(exact.slice(at))) return up;
  const down = exact.slice(0, d ? at : at - 1);
  if (Number(down.at(-1)) % 2 === 1) return up; // the odd one goes up to even
  return `${x < 0 && Number(down) !== 0 ? '-' : ''}${down}`;
}

// ---- fractions: the page's Fractions (the library's exact answers) ----------

const gcd = (a, b) => {
  while (b) [a, b] = [b, a % b];
  return a;
};

// n/d in lowest terms as the library writes a fraction: "1/8", "7", "0".
function fracText(n, d) {
  if (n === 0n) return '0';
  const g = gcd(n, d);
  return d / g === 1n ? String(n / g) : `${n / g}/${d / g}`;
}

// A distribution's exact outcomes ([[value, "1/216"], ...], as `alea dist
// --exact --json` has them, sorted by value) for fraction(): the sums for
// "at least" and "at most" are made once, when first asked.
export function fractionColumn(outcomes) {
  return { outcomes, at: new Map(outcomes.map(([v], i) => [v, i])), sums: null };
}

// The numerators over one common denominator L of the outcomes before each
// index: sums[i] for the outcomes 0 .. i-1 (BigInt, exact).
function prefixSums(fr) {
  if (fr.sums) return fr.sums;
  const parts = fr.outcomes.map(([, f]) => {
    const [a, b = '1'] = f.split('/');
    return [BigInt(a), BigInt(b)];
  });
  let L = 1n;
  for (const [, b] of parts) if (L % b) L = (L / gcd(L, b)) * b;
  const sums = [0n];
  let s = 0n;
  for (const [a, b] of parts) {
    s += a * (L / b);
    sums.push(s);
  }
  fr.sums = { L, sums };
  return fr.sums;
}

// The exact chance (mode's) of value v, as chance() gives the double: the
// library's own fraction for "exactly" (undefined for a value it cannot
// take), the sum of its fractions at or above v ("at least") or at or
// below it ("at most") in lowest terms.
export function fraction(fr, v, mode) {
  const o = fr.outcomes, n = o.length;
  const i = fr.at.get(v);
  if (mode === 'exact') return i === undefined ? undefined : o[i][1];
  let lo = 0, hi = n; // the first value > v
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (o[mid][0] <= v) lo = mid + 1; else hi = mid;
  }
  const { L, sums } = prefixSums(fr);
  if (mode === 'atmost') return fracText(sums[lo], L);
  const from = i === undefined ? lo : i; // the first value >= v
  return fracText(sums[n] - sums[from], L);
}
