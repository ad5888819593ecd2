// sweeps.js -- the page's table view (app.js) without the page: its
// statistics as the library spells them ("p>=7", "p90") and as the page's
// controls choose them, the link's sweeps and statistics, the heat map's
// shades and a cell's text. Kept apart so that node tests it directly
// (web/test/numbers.test.mjs).
import { num, pct } from './numbers.js';

// What the page's statistic menus offer: the value, what it shows, and
// whether it takes a number N (the library's text is the value then N).
// The named probabilities are those a mechanic reports (alea_dist_flag_name).
export const STAT_CHOICES = [
  { value: 'mean', label: 'mean' },
  { value: 'sd', label: 'standard deviation' },
  { value: 'median', label: 'median' },
  { value: 'p>=', label: 'P(at least N)', n: true },
  { value: 'p<=', label: 'P(at most N)', n: true },
  { value: 'p=', label: 'P(exactly N)', n: true },
  { value: 'p', label: 'percentile N', n: true },
  { value: 'critical failure', label: 'critical failure (event())' },
];
// The page's limits on a link's table: the library's own (ALEA_TABLE_SWEEPS_MAX,
// and the statistics the page has menus for), and the bytes of a text.
export const SWEEPS_MAX = 2;
export const STATS_MAX = 3;
export const TEXT_MAX = 200;

// The library's text of a statistic chosen in a menu ('p>=' and 7: 'p>=7');
// '' for none; a choice that takes N and has none gives its text without
// one, which the library refuses with the caret after it.
export function statText(value, n) {
  if (!value) return '';
  const choice = STAT_CHOICES.find((c) => c.value === value);
  return choice && choice.n ? `${value}${String(n ?? '').trim()}` : value;
}

// The menu's choice of a statistic's text: {value, n}; a text no choice
// makes (a named probability the menus lack, a typo in a link) is its own
// value, so that the library names what is wrong with it.
export function statChoice(text) {
  const m = /^p(>=|<=|=)?(-?[0-9]+)$/.exec(text);
  if (m) return { value: `p${m[1] ?? ''}`, n: m[2] };
  return { value: text, n: '' };
}

// "NAME=VALUES" of a sweep's two fields; '' when both are empty.
export function sweepText(name, values) {
  name = name.trim();
  values = values.trim();
  return name || values ? `${name}=${values}` : '';
}

// {name, values} of a sweep's text, at its first '='.
export function sweepFields(text) {
  const at = text.indexOf('=');
  return at < 0 ? { name: text, values: '' } : { name: text.slice(0, at), values: text.slice(at + 1) };
}

// The link's table (URLSearchParams h): t=NAME=VALUES for each sweep and
// st=STAT for each statistic, in order; at most SWEEPS_MAX and STATS_MAX of
// them, each at most TEXT_MAX characters (a stranger's link).
export function tableOfLink(h) {
  const keep = (xs, max) => xs.filter((x) => x.length <= TEXT_MAX).slice(0, max);
  return { sweeps: keep(h.getAll('t'), SWEEPS_MAX), stats: keep(h.getAll('st'), STATS_MAX) };
}

// A cell as the page shows it: a probability in percent (as `alea table`
// prints one), an outcome whole, another number with two decimals.
export function cellText(x, kind) {
  const v = num(x);
  if (kind === 'prob') return `${pct(v)}%`;
  if (kind === 'outcome') return String(v);
  return Number.isFinite(v) ? v.toFixed(2) : String(v);
}

// The heat map's shade of a cell at t in [0, 1] of its table's range: from
// near white to a mid blue, each light enough for the page's dark text
// (contrast at least 7:1).
export function shade(t) {
  const x = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  return `hsl(212 85% ${(97 - 34 * x).toFixed(1)}%)`;
}

// Each cell's place in [0, 1] between the smallest and largest of cells
// (rows of numbers): 0 everywhere when they are all the same.
export function placesOf(cells) {
  const all = cells.flat().map(num).filter(Number.isFinite);
  const lo = Math.min(...all), hi = Math.max(...all);
  return cells.map((row) => row.map((x) => (hi > lo ? (num(x) - lo) / (hi - lo) : 0)));
}
