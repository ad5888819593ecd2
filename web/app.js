// app.js -- alea's calculator page: expressions in, exact distributions
// (chart and table) or rolls with their breakdown out, all computed by the
// C library compiled to WebAssembly (alea.wasm), in a worker (worker.js), so
// that the page stays responsive however long a computation takes.
//
// The view lives in the URL's fragment (#e=...&v=dist&m=exact&n=1&s=7, and
// x=0.SEED for an estimate of line 0; v=table&t=m=0..10&t=dc=10..20&st=mean
// for a table), so a link reproduces it. A link is a
// stranger's text: what it can ask for is bounded. Each update of the page
// is one request to the worker, stopped after DEADLINE_MS (alea.js; a link
// may lower it with d=<ms>, never raise it); at most MAX_EXPRS expressions
// and MAX_ROLLS rolls of each; answers of at most ANSWER_BYTES in all
// (web/wasm.c), in a module of at most 128 MiB (scripts/web); a table of at
// most TABLE_ROWS rows. The Cancel button, or any newer update, ends the
// worker and starts another.

import { DEADLINE_MS, SAMPLE_ROLLS } from './alea.js';
import { num, pct, g2, luckPct, shownRows, columns, chance, median, mergeSamples, binWidth, binRows, binChances,
  VERSUS_KEYS, versusTexts, policyValue, fixedC, fractionColumn, fraction } from './numbers.js';
import { STAT_CHOICES, STATS_MAX, statText, statChoice, sweepText, sweepFields, tableOfLink, cellText,
  shade, placesOf } from './sweeps.js';
import { setupFairness, recordRolls } from './fairness.js';

const MAX_ROLLS = 1000; // "times": web/wasm.c refuses more in one call
const MAX_EXPRS = 10; // lines computed at once: a chart of more is unreadable,
// and 10 x 1000 rolls are as many as a page lists quickly
// 8 MiB of answers: two distributions of the library's largest (100000
// outcomes, 3.2 MB of JSON each with the library's cumulative columns) or
// 10 x 1000 rolls of a few hundred dice; the chart of more keeps the page's
// own thread busy for seconds.
const ANSWER_BYTES = 8 << 20;
const TABLE_ROWS = 1000; // the likeliest values; the CSV has them all
const GRACE_MS = 1000; // past its deadline a request is ended from outside
const BUSY_AFTER_MS = 150; // the "Computing..." line shows after this, not at once
// "Estimate by sampling", for a distribution past the library's limits:
// ESTIMATE_ROLLS rolls (web/wasm.c's SAMPLE_MAX) in chunks of
// ESTIMATE_CHUNK, each chunk a request of its own under the deadline; a
// chunk stopped by it ends the estimate with the rolls counted before.
// Chunk k rolls stream k of the estimate's seed: ESTIMATE_ROLLS /
// ESTIMATE_CHUNK streams, within alea.js's STREAM_MAX.
const ESTIMATE_ROLLS = SAMPLE_ROLLS;
const ESTIMATE_CHUNK = 1000;

const EXAMPLES = [
  { label: 'Ability score: 4d6, drop the lowest', exprs: ['4d6kh3'] },
  { label: 'Bonus and penalty d20', exprs: ['d20', 'd20 +1d', 'd20 -1d'] },
  { label: '+/- DICE on 2d6', exprs: ['2d6', '2d6 +1 DICE', '2d6 -1 DICE'] },
  { label: 'Boons and banes, and the null die', exprs: ['2d10 +3B -1B', 'd0 +1B'] },
  { label: 'Exploding critical pool', exprs: ['event(d12 + d14 + d18 + d20)'] },
  { label: 'Dice tier ladder', exprs: ['tier(d8, +2)', 'tier(d8, -1)'] },
  { label: 'Double Down policies',
    exprs: ['dd(6, 14)', 'dd(6, 14, always)', 'dd(6, 14, onfail)', 'dd(6, 14, best)'] },
  { label: 'Success pool: 10d10, 8+ succeeds, 1 fails', exprs: ['10d10>=8f1'] },
  { label: 'Advantage against +5', exprs: ['2d20kh1', '1d20+5'] },
  // docs/language.md, "Names: let": the attack rolls decide the damage
  { label: 'Two attacks, Sneak Attack on the first hit',
    exprs: ['let a = d20, b = d20 in (a >= 8) * (d4 + 4 + (a = 20) * d4 + 3d6 + (a = 20) * 3d6)'
      + ' + (b >= 8) * (d4 + 4 + (b = 20) * d4) + (a < 8 and b >= 8) * (3d6 + (b = 20) * 3d6)'] },
  { label: 'At least one critical (18+) in 8 attacks', exprs: ['sum(8, (d20) >= 18) >= 1'] },
  { label: 'Damage only on a hit', exprs: ['if(d20 + 5 >= 15, d8 + 3, 0)', 'if(d20 + 8 >= 15, d8 + 3, 0)'] },
];

const $ = (id) => document.getElementById(id);
// estimates: [{index, seed, rolls}] of the distribution view's lines shown
// as estimates (estimate()), for the link
const state = { exprs: ['4d6kh3'], view: 'dist', mode: 'exact', n: 1, seed: '',
  deadline: DEADLINE_MS, dialect: 'alea', tails: false, allRows: false, drawn: '', estimates: [],
  fractions: false };
const DIALECTS = ['alea', 'roll20', 'foundry', 'rpgdr', 'd20']; // index.html's choices
// the table view's sweeps ("m=0..10") and statistics ("p>=7"), as the library reads them
const sweep = { sweeps: ['m=0..10'], stats: ['mean'] };
let calc = null;
let plot = null;
let lastDists = []; // [{src, dist}] of the distribution view, for the CSV
let lastResults = null; // {exprs, results} of the distribution view, for an estimate
let shown = null; // {view, exprs} of what the page shows
let updates = 0; // the number of the latest update; older ones are dropped

// ---- the worker --------------------------------------------------------------------

// One worker at a time, one request at a time. run() resolves with the
// worker's {results, memory}, or {cancelled}, {timedOut} (the worker did not
// answer within the deadline and GRACE_MS: it was ended) or {failed}.
class Calculator {
  constructor(module) {
    this.module = module; // compiled once: a new worker only instantiates it
    this.pending = null;
    this.next = 1;
    this.spawn();
  }

  spawn() {
    const w = new Worker('worker.js', { type: 'module' });
    this.worker = w;
    this.dead = false;
    this.ready = new Promise((ok, fail) => {
      w.onmessage = (ev) => {
        const m = ev.data;
        if (m.ready) ok(m.version);
        else if (m.id === undefined) fail(new Error(m.failed));
        else this.answer(m);
      };
      w.onerror = (ev) => {
        ev.preventDefault();
        fail(new Error(ev.message));
        if (this.worker !== w) return;
        this.dead = true; // the next run starts another
        this.finish({ failed: ev.message || 'the worker did not start' });
      };
    });
    this.ready.catch(() => {});
    w.postMessage({ module: this.module });
  }

  get busy() { return this.pending !== null; }

  run(calls, deadline, dialect, exact = false) {
    this.cancel();
    if (this.dead) {
      this.worker.terminate();
      this.spawn();
    }
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending = { id, deadline, resolve, timer: 0 };
      this.worker.postMessage({ id, deadline, bytes: ANSWER_BYTES, dialect, exact, calls });
    });
  }

  answer(m) {
    const p = this.pending;
    if (!p || m.id !== p.id) return;
    if (m.started) {
      // The module stops itself at the deadline; this is for what it
      // cannot see (a long write of an answer, say).
      p.timer = setTimeout(() => this.restart({ timedOut: true }), p.deadline + GRACE_MS);
    } else if (m.failed) {
      this.restart({ failed: m.failed });
    } else {
      this.finish(m);
    }
  }

  finish(out) {
    const p = this.pending;
    if (!p) return;
    clearTimeout(p.timer);
    this.pending = null;
    p.resolve(out);
  }

  // Ends the worker, and its request with out; a fresh worker takes over.
  restart(out) {
    this.worker.terminate();
    this.finish(out);
    this.spawn();
  }

  cancel() {
    if (this.pending) this.restart({ cancelled: true });
  }
}

// ---- the URL ------------------------------------------------------------------

function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has('e')) state.exprs = h.get('e').split('\n');
  if (['dist', 'roll', 'table'].includes(h.get('v'))) state.view = h.get('v');
  if (state.view === 'table') Object.assign(sweep, tableOfLink(h));
  if (['exact', 'atleast', 'atmost'].includes(h.get('m'))) state.mode = h.get('m');
  // "Show every row" pressed: rows=all
  state.allRows = h.get('rows') === 'all';
  const n = parseInt(h.get('n'), 10);
  if (n >= 1 && n <= MAX_ROLLS) state.n = n;
  if (/^[0-9]{1,20}$/.test(h.get('s') || '')) state.seed = h.get('s');
  if (DIALECTS.includes(h.get('dl'))) state.dialect = h.get('dl');
  // Fractions on: f=1
  state.fractions = h.get('f') === '1';
  // a shorter deadline (ms), for tests; never a longer one
  const d = parseInt(h.get('d'), 10);
  if (d >= 1 && d <= DEADLINE_MS) state.deadline = d;
  // estimates: x=LINE.SEED, or x=LINE.SEED.ROLLS for fewer rolls than
  // ESTIMATE_ROLLS (a whole number of chunks), a line at most once
  state.estimates = [];
  for (const x of h.getAll('x')) {
    const m = /^([0-9]{1,2})\.([0-9]{1,20})(?:\.([0-9]{1,5}))?$/.exec(x);
    if (!m) continue;
    const index = Number(m[1]), seed = BigInt(m[2]), rolls = m[3] ? Number(m[3]) : ESTIMATE_ROLLS;
    if (index < MAX_EXPRS && seed < 2n ** 64n && rolls >= ESTIMATE_CHUNK && rolls <= ESTIMATE_ROLLS &&
        rolls % ESTIMATE_CHUNK === 0 && !state.estimates.some((e) => e.index === index))
      state.estimates.push({ index, seed: String(seed), rolls });
  }
}

function writeHash() {
  const h = new URLSearchParams();
  h.set('e', state.exprs.join('\n'));
  h.set('v', state.view);
  if (state.dialect !== 'alea') h.set('dl', state.dialect);
  if (state.fractions) h.set('f', '1');
  if (state.view === 'dist') {
    h.set('m', state.mode);
    if (state.allRows) h.set('rows', 'all');
    // each estimate shown, with its seed: the link estimates again with the same rolls
    for (const { index, seed, rolls } of state.estimates)
      h.append('x', rolls === ESTIMATE_ROLLS ? `${index}.${seed}` : `${index}.${seed}.${rolls}`);
  }
  if (state.view === 'table') {
    for (const t of sweep.sweeps) h.append('t', t);
    for (const t of sweep.stats) h.append('st', t);
  }
  if (state.view === 'roll') {
    h.set('n', String(state.n));
    // the seed drawn for an unseeded roll too: the link reproduces it
    if (state.seed || state.drawn) h.set('s', state.seed || state.drawn);
  }
  // the same link again (the same lines shown again) is not written: a
  // history entry's change is a round trip to the browser, a few ms
  const hash = '#' + h.toString();
  if (hash !== location.hash) history.replaceState(null, '', hash);
}

// ---- errors, with a caret under the problem, as the command line prints them ---

function caretLine(src, start, end) {
  // one column per character (the expression is shown as typed)
  const chars = Array.from(src);
  const bytes = new TextEncoder();
  let col = 0, from = -1, to = -1, pos = 0;
  for (const ch of chars) {
    if (pos === start) from = col;
    if (pos === end) to = col;
    pos += bytes.encode(ch).length;
    col++;
  }
  if (from < 0) from = col;
  if (to < 0) to = col;
  return ' '.repeat(from) + '^'.repeat(Math.max(1, to - from));
}

const seconds = (ms) => `${+(ms / 1000).toFixed(3)} s`;

// The error of a request that the page had to end from outside.
function stoppedError(ms) {
  const message = `stopped after ${seconds(ms)}: this expression takes too long to compute here`;
  return { status: 'ALEA_ERR_INTERRUPTED', text: 'interrupted', message, line: message,
    start: 0, end: 0 };
}

// What to try instead, for the errors of the page's own bounds.
function hint(error, view) {
  const tip = viewHint(error, view);
  // exact fractions take more work than decimals: the library's limits and
  // the deadline refuse sooner
  if (state.fractions && view !== 'roll' &&
      (error.status === 'ALEA_ERR_INTERRUPTED' || estimable(error)))
    return `In fractions this takes more work than in decimals: turn off Fractions to see it in decimals. ${tip}`.trim();
  return tip;
}

function viewHint(error, view) {
  if (view === 'table') return tableHint(error);
  if (error.status === 'ALEA_ERR_INTERRUPTED')
    return view === 'roll' ? 'Roll fewer times, or simplify the expression.'
      : 'Simplify the expression, or Roll it to sample results instead.';
  if (error.status === 'ALEA_ERR_LIMIT' && error.message.includes('for this page'))
    return view === 'roll' ? 'Roll fewer times, or fewer dice or repetitions.'
      : 'Compare fewer expressions at once.';
  return '';
}

// A distribution refused by the library's work, support or memory limit:
// sampling may still estimate it.
const estimable = (error) => error.status === 'ALEA_ERR_LIMIT' &&
  /\((work|support|memory) limit is /.test(error.message);

// errors: [{src, error, index}]; src null for an error about no one
// expression; index: the expression's line, for "Estimate by sampling".
function showErrors(errors, view) {
  const box = $('errors');
  box.replaceChildren();
  for (const { src, error, index } of errors) {
    const div = document.createElement('div');
    div.className = 'error';
    const msg = document.createElement('p');
    msg.className = 'message';
    msg.textContent = error.line; // the library's line: never guessed here
    div.append(msg);
    if (src !== null) {
      const pre = document.createElement('pre');
      pre.className = 'caret';
      pre.textContent = `${src}\n${caretLine(src, error.start, error.end)}`;
      div.append(pre);
    }
    const tip = hint(error, view);
    if (tip) {
      const p = document.createElement('p');
      p.className = 'hint';
      p.textContent = tip;
      div.append(p);
    }
    if (view === 'dist' && index !== undefined && estimable(error)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'secondary estimate';
      b.dataset.index = String(index);
      b.textContent = 'Estimate by sampling';
      b.setAttribute('aria-label', `Estimate by sampling: ${src}`);
      const p = document.createElement('p');
      p.className = 'hint';
      p.append(b, ` rolls it ${ESTIMATE_ROLLS} times and counts the totals (an estimate, not exact).`);
      div.append(p);
    }
    box.append(div);
    const pre = div.querySelector('pre.caret');
    if (pre) caretIntoView(pre);
  }
}

// A line wider than its box (a long let on a phone) scrolls in it: the
// caret is brought into view, as the command line shows a window around it.
function caretIntoView(pre) {
  const [line, caret] = pre.textContent.split('\n');
  const cols = Math.max(Array.from(line).length, caret.length);
  if (pre.scrollWidth <= pre.clientWidth || cols === 0) return;
  const col = pre.scrollWidth / cols; // a monospace font: every column as wide
  pre.scrollLeft = Math.max(0, (caret.indexOf('^') + 0.5) * col - pre.clientWidth / 2);
}

// ---- the distribution view -------------------------------------------------------

const CHART_HEIGHT = 320;
const AXIS_FONT = '12px sans-serif'; // the outcomes' names on the value axis
const Y_AXIS = 80; // about the room the chance axis takes on the chart's left

// A name in lines of at most room pixels (AXIS_FONT), broken at spaces;
// a word longer than that is a line of its own.
let measurer = null;
function wrapName(name, room) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = AXIS_FONT;
  const fits = (t) => measurer.measureText(t).width <= room;
  if (fits(name)) return name;
  const lines = [];
  for (const word of name.split(' ')) {
    const joined = lines.length ? `${lines.at(-1)} ${word}` : null;
    if (joined !== null && fits(joined)) lines[lines.length - 1] = joined;
    else lines.push(word);
  }
  return lines.join('\n');
}
const ZOOM_TAIL = 0.00005; // each tail the zoomed chart leaves out: 99.99% in view
const COLOURS = ['#0b57d0', '#b3261e', '#137333', '#8430ce', '#c45100', '#007b83'];
// Integer steps only: a value between two outcomes means nothing.
const INCRS = [];
for (let e = 1; e <= 1e18; e *= 10) INCRS.push(e, 2 * e, 5 * e);

// The rows the table shows of rows [lo, hi) (cols: each row's chance, a
// column per expression): all, or the TABLE_ROWS likeliest (in any
// column), in order: a table of 100000 rows takes the page seconds to lay
// out, and no one reads it.
function likeliest(lo, hi, cols) {
  const rows = Array.from({ length: hi - lo }, (_, i) => lo + i);
  if (rows.length <= TABLE_ROWS) return rows;
  const weight = rows.map((i) => Math.max(0, ...cols.map((col) => col[i] ?? 0)));
  return rows.sort((a, b) => weight[b] - weight[a] || a - b).slice(0, TABLE_ROWS).sort((a, b) => a - b);
}

// ---- fractions (Fractions on: the library's exact answers beside the decimals) ----

// A fraction of more characters is cut in its cell ("123456…/160693…"), the
// whole of it a click or a key away (a details element); the cell's
// data-frac, the link's title and the CSV keep the whole. A chance of 200d20
// has hundreds of digits.
const FRAC_SHOWN = 24;
const escHtml = (t) => String(t).replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
function fracHtml(f) {
  if (f.length <= FRAC_SHOWN) return escHtml(f);
  const [n, d] = f.split('/');
  const cut = (x) => (x.length > 8 ? `${x.slice(0, 6)}…` : x);
  const digits = d ? `${n.length} digits over ${d.length}` : `${n.length} digits`;
  return `<details class="frac"><summary title="${digits}: show all">${cut(n)}${d ? `/${cut(d)}` : ''}` +
    `<span class="visually-hidden"> (${digits})</span></summary><span class="frac-all">${escHtml(f)}</span></details>`;
}
// A cell's HTML for fraction f (undefined: a blank cell).
const fracTd = (f) => (f === undefined ? '<td class="frac"></td>'
  : `<td class="frac" data-frac="${escHtml(f)}">${fracHtml(f)}</td>`);
// The same as an element, for the tables made node by node.
function fracCell(f, tag = 'td') {
  const c = document.createElement(tag);
  c.className = 'frac';
  if (f === undefined) return c;
  c.dataset.frac = f;
  c.innerHTML = fracHtml(f);
  return c;
}
// A fraction under a cell's number, in the same cell.
function addFraction(cell, f) {
  if (typeof f !== 'string') return;
  const span = fracCell(f, 'span');
  span.classList.add('frac-under');
  cell.append(span);
}

// The summary above the chart: a column per expression, a row per number,
// then each mechanic's notes (the chance of a critical failure, say).
function renderSummary(items, cols) {
  const rows = [['mean', (d) => d.mean.toFixed(2)], ['sd', (d) => d.sd.toFixed(2)],
    ['min', (d) => String(d.min)], ['max', (d) => String(d.max)],
    ['median', (d) => String(median(d))]];
  const flags = [...new Set(items.flatMap(({ dist }) => Object.keys(dist.flags || {})))];
  for (const f of flags)
    rows.push([`${f} %`, (d) => (d.flags && f in d.flags ? pct(d.flags[f]) : '')]);
  if (items.some(({ dist }) => dist.truncated > 0))
    rows.push(['truncated', (d) => (d.truncated > 0 ? d.truncated.toExponential(1) : '0')]);
  // Fractions on: the mean and the variance exactly, where the answer has them
  const exactRows = items.some(({ dist }) => dist.fractions)
    ? [['mean, exact', (d) => d.fractions?.mean], ['variance, exact', (d) => d.fractions?.variance]] : [];
  const table = $('summary');
  table.replaceChildren();
  const caption = table.createCaption();
  caption.className = 'visually-hidden';
  caption.textContent = 'Summary of the distribution';
  const head = table.createTHead().insertRow();
  const cell = (row, text, tag = 'td', scope = '') => {
    const c = document.createElement(tag);
    if (scope) c.scope = scope;
    c.textContent = text;
    row.append(c);
  };
  cell(head, '', 'td');
  for (const { src } of items) cell(head, src, 'th', 'col');
  const body = table.createTBody();
  for (const [name, f] of rows) {
    const row = body.insertRow();
    cell(row, name, 'th', 'row');
    items.forEach(({ dist }, k) => cell(row, f(dist, k)));
  }
  for (const [name, f] of exactRows) {
    const row = body.insertRow();
    row.className = 'exact';
    cell(row, name, 'th', 'row');
    items.forEach(({ dist }) => row.append(fracCell(f(dist))));
  }
  const notes = items.filter(({ dist }) => dist.incomplete)
    .map(({ src, dist }) => `${src}: ${dist.incomplete}`);
  $('dist-notes').hidden = notes.length === 0;
  $('dist-notes').textContent = notes.join(' ');
}

// The range of values holding all but ZOOM_TAIL of each side of every
// distribution: the chart's first view.
function zoomRange(cols) {
  let lo = Infinity, hi = -Infinity;
  for (const { dist, c } of cols) {
    const vs = dist.outcomes;
    let i = 0, j = vs.length - 1;
    while (i < j && c.atmost[i] < ZOOM_TAIL) i++;
    while (j > i && c.atleast[j] < ZOOM_TAIL) j--;
    lo = Math.min(lo, vs[i][0]);
    hi = Math.max(hi, vs[j][0]);
  }
  return [lo, hi];
}

// How the distribution view shows its values (the sorted values of every
// expression): the values in view (the 99.99% of zoomRange, or all:
// state.tails), and the width of its bars: 1, a bar per value, or w values
// a bar for a view with an estimate whose values are many (binWidth: a
// chart of 10000 rolls spread over millions of values is a smear of single
// hits), at most a bar per BIN_PX of the chart's width.
const BIN_PX = 6;
const AXIS_PX = 70; // the chart's width beside its bars: the chance axis
function layoutOf(items, cols, values, labels, width) {
  const categorical = labels !== null && items.every(({ dist }) => dist.labels);
  const [zlo, zhi] = zoomRange(cols);
  const zoomable = !categorical && (zlo > values[0] || zhi < values.at(-1));
  const shownValues = zoomable && !state.tails ? values.filter((v) => v >= zlo && v <= zhi) : values;
  const estimates = items.filter(({ dist }) => dist.estimate).map(({ dist }) => dist);
  const w = categorical ? 1 : binWidth(shownValues, estimates,
    Math.max(10, Math.floor((width - AXIS_PX) / BIN_PX)));
  return { categorical, zlo, zhi, zoomable, shownValues, w, estimates };
}

// The indices of the values of a series (null: none) whose neighbours are none.
function isolated(ys) {
  const out = [];
  ys.forEach((y, i) => {
    if (y != null && ys[i - 1] == null && ys[i + 1] == null) out.push(i);
  });
  return out.length ? out : null;
}

// The chance each bar, point or row shows, by mode; in bins, that of a
// value in the bin, of its first value or more, of its last value or less.
const TITLES = { exact: 'chance of exactly', atleast: 'chance of at least',
  atmost: 'chance of at most' };
const BIN_TITLES = { exact: 'chance of a value in the bin', atleast: 'chance of at least its first value',
  atmost: 'chance of at most its last value' };

function drawChart(items, cols, values, labels, layout, width) {
  const chart = $('chart');
  const { categorical, zlo, zhi, zoomable, shownValues, w } = layout;
  const binned = w > 1;
  const tails = $('tails');
  tails.hidden = !zoomable;
  tails.setAttribute('aria-pressed', String(state.tails));
  $('zoom-note').textContent = tails.hidden ? '' : state.tails
    ? `all values, ${values[0]} to ${values.at(-1)}`
    : `values ${zlo} to ${zhi}, where 99.99% of the chance is`;
  const n = items.length;
  const bars = n === 1 || categorical;
  $('bin-note').textContent = binned ? `each ${bars ? 'bar' : 'point'} a bin of ${w} values` : '';
  let xs, ys, lo, hi;
  if (binned) {
    // the bins of w values that the values in view fall in, each a bar at
    // its middle; empty ones too (an estimate's zero counts)
    const first = Math.floor(shownValues[0] / w), last = Math.floor(shownValues.at(-1) / w);
    const bins = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    xs = bins.map((k) => k * w + (w - 1) / 2);
    ys = cols.map((col) => binChances(col, bins, w, state.mode)
      .map((p) => (p === undefined ? null : num(p) * 100)));
    [lo, hi] = [first * w, last * w + w - 1];
  } else if (categorical && n > 1) {
    // grouped bars: each expression's bar beside the others', around its value
    const bw = 0.8 / n;
    xs = shownValues.flatMap((v) => items.map((_, k) => v + (k - (n - 1) / 2) * bw));
    ys = cols.map((col, k) => shownValues.flatMap((v) => items.map((_, j) => {
      if (j !== k) return null;
      const p = chance(col, v, state.mode);
      return p === undefined ? null : num(p) * 100;
    })));
    [lo, hi] = [shownValues[0], shownValues.at(-1)];
  } else {
    xs = shownValues;
    ys = cols.map((col) => shownValues.map((v) => {
      const p = chance(col, v, state.mode);
      return p === undefined ? null : num(p) * 100;
    }));
    [lo, hi] = [shownValues[0], shownValues.at(-1)];
  }
  const series = [{
    label: binned ? 'values' : 'value',
    value: (u, v) => {
      if (v == null) return '--';
      if (binned) {
        const a = Math.round(v - (w - 1) / 2);
        return `${a} to ${a + w - 1}`;
      }
      return categorical ? labels.get(Math.round(v)) ?? String(Math.round(v)) : String(v);
    },
  }, ...items.map((item, k) => ({
    label: seriesLabel(item, w),
    stroke: COLOURS[k % COLOURS.length],
    fill: bars ? COLOURS[k % COLOURS.length] + 'b3' : undefined,
    width: bars ? 1 : 2,
    // a point alone between gaps (a bin of 3d6 beside an estimate's) is
    // drawn as a point: a line needs two
    points: { show: !bars && xs.length < 60, filter: bars ? null : (u, i) => isolated(ys[i - 1]) },
    paths: bars ? uPlot.paths.bars({ size: [categorical ? 0.9 : 0.8, 60] }) : undefined,
    spanGaps: false,
    value: (u, v) => (v == null ? '--' : pct(v / 100)),
  }))];
  const title = (binned ? BIN_TITLES : TITLES)[state.mode];
  // the ticks drawn are kept on the chart's box too, for the tests to read
  const ticks = (f) => (u, splits) => {
    const t = splits.map(f);
    chart.dataset.xticks = t.join('|');
    return t;
  };
  // names broken into lines where they would not fit their bar's room (a
  // phone: "critical success" ran off the chart's right edge); only the
  // names on the axis, a categorical chart's: measuring the text of
  // hundreds of numbers took a few ms of each click
  const room = (width - Y_AXIS) / shownValues.length - 6;
  const names = categorical
    ? new Map(shownValues.map((v) => [v, wrapName(labels?.get(v) ?? String(v), room)])) : new Map();
  const nameLines = Math.max(1, ...[...names.values()].map((t) => t.split('\n').length));
  const xAxis = categorical
    ? { label: 'outcome', splits: () => shownValues, values: ticks((v) => names.get(v) ?? String(v)),
      font: AXIS_FONT, size: 50 + 14 * (nameLines - 1) }
    // ticks far enough apart for their digits (11500000 takes about 60 px)
    : { label: binned ? `value (bins of ${w})` : 'value', incrs: INCRS, values: ticks(String),
      space: Math.max(50, 8 * Math.max(String(lo).length, String(hi).length) + 16) };
  const of = items.map((item) => seriesLabel(item, w)).join(', ');
  chart.setAttribute('aria-label', binned
    ? `Chart of the ${title}, in bins of ${w} values, of ${of}`
    : `Chart of the ${title.replace('chance of ', 'chance of getting ')} each value of ${of}`);
  plot = new uPlot({
    width, height: CHART_HEIGHT, series,
    // half a value of room each side, so that the end bars show whole,
    // and the chances from 0, so that the heights compare
    scales: {
      x: { time: false, range: () => [lo - 0.5, hi + 0.5] },
      y: { range: (u, ylo, yhi) => [0, yhi > 0 ? yhi * 1.05 : 1] },
    },
    axes: [xAxis, { label: `${title}, %` }],
    legend: { show: true },
    hooks: { draw: [() => chart.dispatchEvent(new Event('drawn'))] },
  }, [xs, ...ys], chart);
}

// The rows of the table and the CSV: a value each, or in bins of w values
// a bin each (binRows: every bin that holds a value, and each bin across
// an estimate's range): {keys, bins, at(j, i): the mode's chance of row i
// in column j, weights(): the chances of exactly each row, a column each}.
function rowsOf(cols, values, layout) {
  const { w, estimates } = layout;
  if (w === 1) {
    return { keys: values, bins: false, at: (j, i) => chance(cols[j], values[i], state.mode),
      weights: () => cols.map(({ c, at }) => values.map((v) => (at.has(v) ? c.exact[at.get(v)] : 0))) };
  }
  const keys = binRows(values, w, estimates);
  const chances = cols.map((col) => binChances(col, keys, w, state.mode));
  return { keys, bins: true, at: (j, i) => chances[j][i],
    weights: () => cols.map((col) => binChances(col, keys, w, 'exact')) };
}

// The distribution table's rows are built as they come into view: a screen
// of them at first (firstRows), then more each time the space below them
// (#rows-spacer, as tall as the rows still to come, so that the scroll bar
// tells the table's length) comes within half a screen of the window;
// "Show all N rows" (#rows-rest, above the table, where reaching it by
// keyboard builds no rows) builds the others at once. Laying out the rows
// was most of a click's time (339 rows of 5 cells: about 25 ms,
// bench/README.md); the rows are built in order, each after the one
// before, so every row built is reachable by keyboard and screen reader,
// and the table says how many rows it has in all (aria-rowcount). The CSV
// has every row, whatever is built.
const ROW_REM = 1.9; // about a row's height, for the spacer
let tableRows = null; // {table, order: the rows' indices, rowHtml(i), shown, partial}

// Rows enough to fill a screen below the table's top, whatever its place.
const firstRows = () => Math.ceil(innerHeight / (ROW_REM * 16)) + 10;

// Builds the rows of the table up to row upTo (of its order), then says
// what is left.
function showRows(upTo) {
  const t = tableRows;
  if (!t) return;
  const total = t.order.length;
  const end = Math.min(total, upTo);
  if (end > t.shown) {
    const html = [];
    for (let k = t.shown; k < end; k++) html.push(t.rowHtml(t.order[k]));
    t.table.tBodies[0].insertAdjacentHTML('beforeend', html.join(''));
    t.shown = end;
  }
  const rest = total - t.shown;
  // the line above the table stays once shown, its button gone at the end:
  // the rows below do not move
  t.partial ||= rest > 0;
  const more = $('rows-more');
  more.hidden = !t.partial;
  if (t.partial && !rest) more.style.minHeight = `${more.getBoundingClientRect().height}px`; // a shorter line
  $('rows-rest').style.visibility = rest ? '' : 'hidden';
  $('rows-spacer').style.height = rest ? `${rest * ROW_REM}rem` : '';
  if (rest) {
    $('rows-count').textContent = `${t.shown} of ${total} rows shown; the others follow as you scroll.`;
    $('rows-rest').textContent = `Show all ${total} rows`;
    t.table.setAttribute('aria-rowcount', String(total + 1)); // the heading row too
  } else {
    $('rows-count').textContent = `All ${total} rows shown.`;
    t.table.removeAttribute('aria-rowcount');
  }
  // observed again: called back at once if the spacer is still in reach
  const spacer = $('rows-spacer');
  rowsInView.unobserve(spacer);
  if (rest) rowsInView.observe(spacer);
}

// The spacer in reach (the window and half a screen below it): the rows
// that fill it down to there, 20 at least.
function rowsReached(entries) {
  const e = entries.at(-1);
  const t = tableRows;
  if (!e.isIntersecting || !t || !t.shown) return;
  const rowH = t.table.tBodies[0].rows[t.shown - 1].getBoundingClientRect().height || ROW_REM * 16;
  const bottom = e.rootBounds ? e.rootBounds.bottom : innerHeight * 1.5;
  showRows(t.shown + Math.max(20, Math.ceil((bottom - e.boundingClientRect.top) / rowH)));
}

// the spacer within half a screen below the window calls rowsReached
const rowsInView = new IntersectionObserver(rowsReached, { rootMargin: '0px 0px 50% 0px' });

// The table emptied for another: no rows to come.
function clearTable(table) {
  table.replaceChildren();
  delete table.dataset.rows;
  table.removeAttribute('aria-rowcount');
  tableRows = null;
  $('rows-more').hidden = true;
  $('rows-more').style.minHeight = '';
  $('rows-spacer').style.height = '';
  rowsInView.unobserve($('rows-spacer'));
}

// The table of the distribution view: a row per value, or per bin of a
// binned view (its first and last values), at most TABLE_ROWS of them
// (the likeliest), a column per expression, in the mode's chances.
function fillTable(table, items, cols, values, labels, layout) {
  const { w } = layout;
  const { keys, bins, at, weights } = rowsOf(cols, values, layout);
  const caption = table.createCaption();
  caption.className = 'visually-hidden';
  caption.textContent = bins
    ? `The ${BIN_TITLES[state.mode]}, for bins of ${w} values (from and to), in %`
    : `The ${TITLES[state.mode]} each value, in %`;
  const thead = table.createTHead().insertRow();
  const th = (text, scope = 'col') => {
    const cell = document.createElement('th');
    cell.scope = scope;
    cell.textContent = text;
    thead.append(cell);
  };
  if (bins) { th('from'); th('to'); } else th('value');
  if (labels) th('outcome');
  // Fractions on: each line's exact chance beside its percentage (not of
  // bins: only an estimate's view is binned, and an estimate has none)
  const exact = fractionsShown(cols, bins);
  for (const [j, item] of items.entries()) {
    th(seriesLabel(item, w));
    if (exact && cols[j].fr) {
      th('exact');
      thead.lastChild.title = `${seriesLabel(item, w)}, exactly`;
    }
  }
  table.createTBody();
  const esc = escHtml;
  // the negligible tails hidden as `alea dist` hides them, unless asked
  const ws = weights();
  const tails = shownRows(ws, keys.length);
  const { lo, hi } = state.allRows ? { lo: 0, hi: keys.length } : tails;
  // A row's HTML (the values and chances are numbers: nothing to escape; a
  // chance below the double range is the library's digits, a string,
  // escaped as a label); the rows are built as they come into view
  // (showRows), as strings parsed at once: a node per cell made from
  // script costs more than the browser's own parser.
  const rowHtml = (i) => {
    const k = keys[i];
    let row = bins ? `<tr><td>${k * w}</td><td>${k * w + w - 1}</td>` : `<tr><td>${k}</td>`;
    if (labels) row += `<td>${esc(labels.get(k) || '')}</td>`;
    for (let j = 0; j < cols.length; j++) {
      const p = at(j, i);
      if (p === undefined) row += '<td></td>';
      else if (typeof p === 'string') row += `<td data-p="${esc(p)}">${esc(pct(p))}</td>`;
      else row += `<td data-p="${p}">${pct(p)}</td>`;
      if (exact && cols[j].fr) row += fracTd(fraction(cols[j].fr, bins ? undefined : keys[i], state.mode));
    }
    return row + '</tr>';
  };
  tableRows = { table, order: likeliest(lo, hi, ws), rowHtml, shown: 0, partial: false };
  table.dataset.rows = String(tableRows.order.length);
  showRows(firstRows());
  const first = (i) => (bins ? keys[i] * w : keys[i]), last = (i) => (bins ? keys[i] * w + w - 1 : keys[i]);
  const lines = state.allRows ? [] : tails.ends.map(({ from, to, rows, mass }) =>
    `... ${rows} row${rows === 1 ? '' : 's'} below 0.005% hidden (value${rows === 1 ? '' : 's'} ${first(from)}` +
    `${rows > 1 ? ` to ${last(to)}` : ''}, ${cols.length > 1 ? 'at most' : 'total'} ${g2(mass * 100)}%` +
    `${cols.length > 1 ? ' of a column' : ''})`);
  if (hi - lo > TABLE_ROWS) {
    lines.push(`The table shows the ${TABLE_ROWS} likeliest of ${hi - lo} ` +
      `${bins ? 'bins' : 'values'}; the chart and the CSV have them all.`);
  }
  const note = $('table-note');
  note.hidden = !lines.length;
  note.textContent = lines.join('\n');
  const all = $('all-rows');
  all.hidden = !tails.ends.length;
  all.setAttribute('aria-pressed', String(!!state.allRows));
}

// Whether the distribution table and its CSV have the fractions.
const fractionsShown = (cols, bins) => state.fractions && !bins && cols.some((c) => c.fr);

let tables = 0; // the number of the latest table; an older one is not built
let lastView = null; // what renderDist showed last, for the CSV

function renderDist(items) {
  lastDists = items;
  const values = [...new Set(items.flatMap(({ dist }) => dist.outcomes.map(([v]) => v)))]
    .sort((a, b) => a - b);
  const cols = items.map(({ dist }) => {
    const c = columns(dist);
    const at = new Map(dist.outcomes.map(([v], i) => [v, i]));
    return { dist, c, at, fr: dist.fractions ? fractionColumn(dist.fractions.outcomes) : null };
  });
  // the outcomes' names (a mechanic's tiers), of every expression that has them
  const named = items.filter(({ dist }) => dist.labels);
  const labels = named.length ? new Map(named.flatMap(({ dist }) => dist.labels)) : null;

  // The old table goes first, so that measuring the chart's box does not
  // lay it out; the new one is built once the chart is drawn and painted:
  // the chart shows in a frame, the table (most of the work) follows.
  const table = $('dist-table');
  clearTable(table);
  renderSummary(items, cols);
  if (plot) { plot.destroy(); plot = null; } // its canvas must not hold the width
  $('dist-view').hidden = false; // measured while shown, never while hidden
  const width = Math.max(200, $('chart').clientWidth || 280);
  const layout = layoutOf(items, cols, values, labels, width);
  lastView = { items, cols, values, labels, layout };
  drawChart(items, cols, values, labels, layout, width);
  const my = ++tables;
  document.body.dataset.drawing = '1';
  requestAnimationFrame(() => setTimeout(() => {
    if (my !== tables) return;
    fillTable(table, items, cols, values, labels, layout);
    delete document.body.dataset.drawing;
  }, 0));
  announce(items.map(({ src, dist }) => `${src}: mean ${dist.mean.toFixed(2)}, ` +
    `from ${dist.min} to ${dist.max}`).join('; '));
}

// The series of a line: its name ("advantage: 2d20kh1") or the line, an
// estimate's number of rolls, and the width of the chart's bins (w > 1).
function seriesLabel({ name, dist }, w = 1) {
  const notes = [];
  if (dist.estimate) notes.push(`estimate from ${dist.estimate} rolls`);
  if (w > 1) notes.push(`bins of ${w}`);
  return notes.length ? `${name} (${notes.join(', ')})` : name;
}

function showDist(exprs, results) {
  const items = [], errors = [];
  lastResults = { exprs, results };
  exprs.forEach((src, i) => {
    const dist = results[i];
    if (dist.error) errors.push({ src, error: dist.error, index: i });
    else {
      const name = dist.name ?? src;
      items.push({ name, src: seriesLabel({ name, dist }), dist });
    }
  });
  lastDists = items;
  if (items.length) renderDist(items);
  else $('dist-view').hidden = true;
  return { items, errors };
}

// The distances between the lines of a comparison (the worker's compare:
// {versus, versus_error}; null for one line), under the chart: each line
// against the first as `alea compare` prints them under its table, a row
// a pair ("A vs B"), the library's numbers in each cell's data-value.
// Without them (a line the library refused, or the lines' shared limits),
// a note says why.
const VERSUS_HEADS = [['A > B'], ['A = B'], ['A < B'], ['TV', 'total variation distance'],
  ['KS', 'Kolmogorov-Smirnov distance'], ['EMD', 'earth mover\'s distance']];
function showVersus(answer, exprs, results) {
  const box = $('versus'), note = $('versus-note'), table = $('versus-table');
  table.replaceChildren();
  box.hidden = !(answer && answer.versus && answer.versus.length);
  note.hidden = !(answer && !answer.versus);
  if (answer && !answer.versus) {
    note.textContent = results.some((r) => r.error)
      ? 'The distances between the lines need the exact distribution of each.'
      : `The distances between the lines were not computed: ${answer.versus_error.message}.`;
  }
  if (box.hidden) return;
  const caption = table.createCaption();
  caption.className = 'visually-hidden'; // the paragraph above says it
  caption.textContent = 'Distances between the lines, each against the first';
  const head = table.createTHead().insertRow();
  const th = (row, text, scope) => {
    const c = document.createElement('th');
    c.scope = scope;
    c.textContent = text;
    row.append(c);
    return c;
  };
  th(head, 'A vs B', 'col');
  for (const [text, long] of VERSUS_HEADS) {
    const c = th(head, '', 'col');
    if (!long) { c.textContent = text; continue; }
    const abbr = document.createElement('abbr');
    abbr.title = long;
    abbr.textContent = text;
    c.append(abbr);
  }
  const body = table.createTBody();
  const nameOf = (k) => results[k].name ?? exprs[k];
  // Fractions on: each pair's distances exactly, in a row under its own
  const exact = state.fractions && answer.versus_exact;
  answer.versus.forEach((v, n) => {
    const row = body.insertRow();
    th(row, `${nameOf(v.a)} vs ${nameOf(v.b)}`, 'row');
    versusTexts(v).forEach((text, i) => {
      const c = row.insertCell();
      c.textContent = text;
      c.dataset.value = String(v[VERSUS_KEYS[i]]);
    });
    const x = exact && answer.versus_exact[n];
    if (!x) return;
    const fr = body.insertRow();
    fr.className = 'exact';
    th(fr, `${nameOf(v.a)} vs ${nameOf(v.b)}, exact`, 'row');
    for (const key of VERSUS_KEYS) fr.append(fracCell(x[key]));
  });
}

// The player's best choice in each situation of one line's choice point
// (the worker's policy: `alea policy --json`'s object), under the chart: a
// row a situation, as `alea policy` prints them (what is seen, the choice,
// how often, the goal's value with the choice and as it stands), the
// situations in a row that share a choice under one cell that names it;
// the library's numbers in each cell's data-value. An expression with no
// choice (ALEA_ERR_INVALID) shows nothing; another refusal (the deadline,
// a limit), a note that says why.
const POLICY_HEADS = ['Seen', 'Choice', 'How often', '', 'As it stands'];
function showPolicy(answer) {
  const box = $('policy'), note = $('policy-note'), table = $('policy-table');
  table.replaceChildren();
  const none = !answer || answer.error?.status === 'ALEA_ERR_INVALID';
  box.hidden = none || !!answer.error;
  note.hidden = none || !answer.error;
  if (!note.hidden) note.textContent = `The player's choices were not computed: ${answer.error.message}.`;
  if (box.hidden) return;
  const p = answer, value = (v) => policyValue(v, p.probability);
  const best = value(p.optimum);
  $('policy-goal').textContent = `For ${p.goal}: ` + (num(p.value) === num(p.optimum)
    ? `${best} with the best choices.` : `${value(p.value)} with these choices, ${best} with the best.`);
  const caption = table.createCaption();
  caption.className = 'visually-hidden'; // the heading and the paragraph above say it
  caption.textContent = `The choice in each situation, for ${p.goal}`;
  const head = table.createTHead().insertRow();
  POLICY_HEADS.forEach((text, i) => {
    const c = document.createElement('th');
    c.scope = 'col';
    c.textContent = text || (p.probability ? 'Chance' : 'Mean');
    head.append(c);
  });
  const body = table.createTBody();
  let run = null; // the cell naming the choice of the rows above
  for (const r of p.rows) {
    const row = body.insertRow();
    const seen = document.createElement('th');
    seen.scope = 'row';
    seen.textContent = r.seen;
    row.append(seen);
    if (run && run.textContent === r.choice) {
      run.rowSpan++;
    } else {
      run = row.insertCell();
      run.className = 'choice';
      run.textContent = r.choice;
    }
    const cells = [[`${fixedC(100 * r.chance, 2)}%`, r.chance], [value(r.value), r.value],
      [value(r.plain), r.plain]];
    const x = state.fractions && p.exact ? p.exact.rows[body.rows.length - 1] : null;
    cells.forEach(([text, v], i) => {
      const c = row.insertCell();
      c.textContent = text;
      c.dataset.value = String(v);
      // Fractions on: the values exactly, under them
      if (x) addFraction(c, [x.chance, x.value, x.plain][i]);
    });
  }
  if (state.fractions && p.exact) {
    $('policy-goal').append(` Exactly: ${p.exact.optimum} with the best choices` +
      (p.exact.value === p.exact.optimum ? '.' : `, ${p.exact.value} with these.`));
  }
}

// ---- the roll view ---------------------------------------------------------------

// A roll's luck, its place in the exact distribution as the library gives
// it (alea_dist_luck, web/wasm.c's roll with luck), in the words of `alea
// roll --luck`; the numbers themselves in the element's data, as `alea roll
// --luck --json` has them.
function luckLine(total, { at_most: most, at_least: least }) {
  const l = document.createElement('div');
  l.className = 'luck';
  l.textContent = `luck: P(<= ${total}) ${luckPct(most)}, P(>= ${total}) ${luckPct(least)}`;
  l.dataset.atMost = String(most);
  l.dataset.atLeast = String(least);
  return l;
}

// results: the rolls of each expression, each with its luck (an expression
// past the exact engine's limits has none: "luck_refused" says why).
// The rolls a line each: a repeat ("6 x 4d6kh3") is a line per roll, with
// its own total (its distribution is one roll's, so each has its luck).
function lines(rolls) {
  return rolls.flatMap((r) => {
    if (!r.totals) return [r];
    const text = r.text.split('\n'), md = r.markdown.split('\n');
    return r.totals.map((total, i) => ({ text: text[i], markdown: md[i], total, luck: r.luck?.[i] }));
  });
}

// The dice of a breakdown, marked: each bracketed group of the text
// ("[5, 2 dropped, 6, 6]") is matched, in order, with the next dice term of
// the roll's JSON detail that has as many dice (a sum's rolls, with the
// terms rolled inside its span); its items get that term's
// marks (dropped dimmed, criticals and 1s marked, as the command line's
// colours). A group that matches no term (a label: "[fire]") stays text,
// and without detail only the words say what was dropped. The text is
// kept exactly: only wrapped, each die in a span that does not wrap.
function breakdown(text, detail) {
  const span = document.createElement('span');
  span.className = 'breakdown';
  const terms = detail && Array.isArray(detail.dice) ? detail.dice : [];
  const sums = sumGroups(detail);
  let t = 0, s = 0, last = 0;
  for (const m of text.matchAll(/\[([^\[\]]*)\]/g)) {
    span.append(text.slice(last, m.index));
    last = m.index + m[0].length;
    const items = m[1].split(', ');
    if (!items.every((x) => /^-?[0-9]/.test(x))) { span.append(m[0]); continue; }
    let dice = null;
    if (afterSum(text, m.index)) {
      // each item is one roll of EXPR: its terms are marked only when
      // each roll is one die ("sum(3, d6) [4, 2, 4]"), not a total
      const g = sums[s++], inside = [];
      while (g && t < terms.length && terms[t].start >= g.start && terms[t].start < g.end)
        inside.push(terms[t++]);
      if (inside.length === items.length && inside.every((x) => x.dice?.length === 1))
        dice = inside.map((x) => x.dice[0]);
    } else {
      for (let k = t; k < terms.length; k++) {
        if (Array.isArray(terms[k].dice) && terms[k].dice.length === items.length) {
          dice = terms[k].dice;
          t = k + 1;
          break;
        }
      }
    }
    span.append('[');
    items.forEach((item, i) => {
      if (i) span.append(', ');
      const d = document.createElement('span');
      d.className = 'die';
      d.textContent = item;
      const die = dice ? dice[i] : null;
      if (die ? die.dropped || die.cancelled || die.discarded : /dropped|cancelled|discarded/.test(item))
        d.classList.add('dropped');
      const rolls = die && Array.isArray(die.rolls) ? die.rolls : [];
      if (rolls.some((r) => r.critical)) { d.classList.add('critical'); d.title = 'critical'; }
      else if (rolls.some((r) => r.fumble)) { d.classList.add('fumble'); d.title = 'a 1'; }
      span.append(d);
    });
    span.append(']');
  }
  span.append(text.slice(last));
  return span;
}

// The sum(N, EXPR) groups of a roll's detail that the breakdown shows (a
// sum inside another shows only in the outer one's totals), in order.
function sumGroups(detail) {
  const all = detail && Array.isArray(detail.groups) ? detail.groups : [];
  const sums = all.filter((g) => g.count !== undefined);
  return sums.filter((g) => !sums.some((o) => o.start <= g.start && g.end <= o.end
    && (o.start < g.start || g.end < o.end)));
}

// Whether the bracket at `at` lists the rolls of a sum: it follows
// "sum(...) ", the call's parentheses balanced.
function afterSum(text, at) {
  let k = at - 2, depth = 0;
  if (text.slice(k, at) !== ') ') return false;
  for (; k >= 0; k--) {
    if (text[k] === ')') depth++;
    else if (text[k] === '(' && --depth === 0) break;
  }
  return k >= 3 && text.slice(k - 3, k) === 'sum' && !/[A-Za-z0-9_]/.test(text[k - 4] ?? ' ');
}

// Marks the dice of this many rolls (their JSON detail is asked for); more
// are listed as plain text: a long list is read for its totals.
const DETAIL_ROLLS = 20;

// A seed for an unseeded roll, drawn here so that the link can carry it:
// 53 bits, as every JSON reader keeps exactly.
function drawSeed() {
  const w = crypto.getRandomValues(new Uint32Array(2));
  return String(BigInt(w[0] & 0x1fffff) * 4294967296n + BigInt(w[1]));
}

function showRoll(exprs, results) {
  const list = $('rolls');
  list.replaceChildren();
  const errors = [];
  const said = [];
  exprs.forEach((src, k) => {
    const out = results[k];
    if (out.error) {
      errors.push({ src, error: out.error });
      return;
    }
    recordRolls(src, out, state.dialect); // for the Fairness panel's "this page's rolls"
    lines(out.rolls).forEach((r, i) => {
      const li = document.createElement('li');
      const total = document.createElement('span');
      total.className = 'total';
      total.textContent = String(r.total);
      total.setAttribute('aria-hidden', 'true'); // the breakdown ends with it
      const copy = document.createElement('button');
      copy.type = 'button';
      copy.className = 'secondary copy-md';
      copy.textContent = 'Copy for chat';
      copy.dataset.markdown = r.markdown;
      copy.setAttribute('aria-label', `Copy for chat: ${r.text}`);
      if (out.name) {
        const name = document.createElement('span');
        name.className = 'name';
        name.textContent = `${out.name}:`;
        li.append(name, ' ');
      }
      li.append(total, ' ', breakdown(r.text, r.detail), ' ', copy);
      if (r.luck) li.append(luckLine(r.total, r.luck));
      else if (out.luck_refused && i === 0) {
        const l = document.createElement('div');
        l.className = 'luck';
        l.textContent = `no luck: its distribution was refused: ${out.luck_refused}`;
        li.append(l);
      }
      list.append(li);
      if (said.length < 3) said.push(`${out.name ?? src}: ${r.total}`);
    });
  });
  $('roll-view').hidden = list.children.length === 0;
  $('seed-note').textContent = state.seed ? '' : `Drawn at random (seed ${state.drawn}); ` +
    'Copy link gives a link that rolls these again.';
  announce(said.length ? `Rolled ${said.join('; ')}${list.children.length > said.length ? '; ...' : ''}` : '');
  return { errors };
}

// Copies a roll's Markdown (its button's data) for a chat, and says so.
async function copyMarkdown(button) {
  let said = 'Copied for chat.';
  try {
    await navigator.clipboard.writeText(button.dataset.markdown);
  } catch {
    said = 'Could not copy: select the roll and copy it.';
  }
  $('notice').textContent = said;
}

// A spelling another tool reads otherwise, for each expression that has
// one: the library's hint, under the expression.
function showHints(exprs, results) {
  const list = $('hints');
  list.replaceChildren();
  exprs.forEach((src, k) => {
    const hint = results && results[k] && results[k].hint;
    if (!hint) return;
    const li = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = src;
    li.append('Note on ', code, `: ${hint}`);
    list.append(li);
  });
}

// ---- updates: one request to the worker each ------------------------------------

let busyTimer = 0;

function setBusy(on) {
  clearTimeout(busyTimer);
  $('busy-what').textContent = ''; // an estimate's progress, set after this
  if (on) {
    document.body.dataset.busy = '1';
    $('notice').textContent = '';
    $('busy-limit').textContent = seconds(state.deadline);
    busyTimer = setTimeout(() => {
      $('busy').hidden = false;
      document.body.dataset.slow = '1'; // dims what is shown: it is about to change
    }, BUSY_AFTER_MS);
  } else {
    delete document.body.dataset.busy;
    delete document.body.dataset.slow;
    $('busy').hidden = true;
  }
}

// Says what a result is to a screen reader (the visible result has more).
function announce(text) {
  $('announce').textContent = text;
}

// Brings the result (or its errors) into view after a visitor's request
// when it would start above the screen or in its lower half: on a phone,
// after an example (last on the page), it would start a screen away. Where
// the screen is tall enough (a desktop), the expression box stays on it:
// the page scrolls only as far as its top, when REVEAL_ROOM pixels of the
// result show below it, so that the next expression is typed in place.
const REVEAL_ROOM = 200;
function reveal(view) {
  const box = $('errors').children.length ? $('errors')
    : $(view === 'dist' ? 'dist-view' : view === 'table' ? 'table-view' : 'roll-view');
  if (box.hidden) return;
  const top = box.getBoundingClientRect().top;
  const height = window.visualViewport ? visualViewport.height : innerHeight;
  if (top >= 0 && top <= height / 2) return;
  const exprs = $('exprs').getBoundingClientRect().top - 8;
  if (top > exprs && top - exprs <= height - REVEAL_ROOM) window.scrollBy(0, exprs);
  else box.scrollIntoView({ block: 'start' });
}

// Computes the view of state.exprs and shows it; a newer update, or Cancel,
// ends this one. asked: a visitor's request (the result is brought into
// view), not the link's first view.
async function update(view, asked = true) {
  if (view === 'table') return updateTable(asked);
  state.view = view;
  if (asked) state.estimates = []; // a link's are made again below
  const my = ++updates;
  const exprs = state.exprs.slice(0, MAX_EXPRS);
  // several lines: each as one line's, then the distances between them (worker.js)
  const compare = view === 'dist' && exprs.length > 1;
  const dists = compare ? [{ op: 'compare', lines: exprs }] : exprs.map((src) => ({ op: 'dist', src }));
  // one line's choices, after its distribution (shown under it when it has them)
  if (view === 'dist' && exprs.length === 1) dists.push({ op: 'policy', src: exprs[0] });
  // Seeded once, before the first expression, as `alea roll --seed S e1 e2`;
  // unseeded, with a seed drawn here, so that the link can repeat it.
  if (view === 'roll') state.drawn = state.seed ? '' : drawSeed();
  const detail = state.n * exprs.length <= DETAIL_ROLLS;
  // each roll with its luck, the library's (the distribution stays in the module)
  const calls = view === 'dist' ? dists : exprs.map((src, k) => ({ op: 'roll', src,
    n: state.n, seed: k === 0 ? state.seed || state.drawn : '', detail, luck: true }));
  setBusy(true);
  const out = await calc.run(calls, state.deadline, state.dialect, state.fractions && view === 'dist');
  if (my !== updates) return;
  setBusy(false);
  if (out.cancelled) {
    $('notice').textContent = shown ? 'Cancelled: what is shown below is from before.'
      : 'Cancelled.';
  } else {
    let errors;
    $('dist-view').hidden = view !== 'dist';
    $('roll-view').hidden = view !== 'roll';
    $('table-view').hidden = true;
    showTableFields(false);
    const results = out.results && compare ? out.results[0].columns : out.results?.slice(0, exprs.length);
    if (results) {
      ({ errors } = view === 'dist' ? showDist(exprs, results) : showRoll(exprs, results));
      if (view === 'dist') showVersus(compare ? out.results[0] : null, exprs, results);
      showPolicy(view === 'dist' && results[0] && !results[0].error ? out.results[exprs.length] : null);
      document.body.dataset.wasmMemory = String(out.memory);
    } else {
      const message = `the calculator stopped (${out.failed}); it has been restarted`;
      const error = out.timedOut ? stoppedError(state.deadline) : { status: 'ALEA_ERR_INTERNAL',
        text: 'internal error', message, line: `internal error: ${message}`, start: 0, end: 0 };
      errors = [{ src: null, error }];
      $('dist-view').hidden = $('roll-view').hidden = true;
      if (view === 'roll') $('rolls').replaceChildren();
      showPolicy(null);
    }
    if (state.exprs.length > MAX_EXPRS) {
      const message = `only the first ${MAX_EXPRS} expressions are computed (limit is ${MAX_EXPRS} at once)`;
      errors.push({ src: null, error: { status: 'ALEA_ERR_LIMIT', text: 'limit exceeded',
        message, line: message, start: 0, end: 0 } });
    }
    showErrors(errors, view);
    showHints(exprs, results);
    if (errors.length && !results) announce('');
    shown = { view, exprs: state.exprs.slice() };
    if (asked) reveal(view);
    if (view === 'dist' && results && state.estimates.length && !(await estimateAgain())) return;
  }
  writeHash();
  document.body.dataset.ready = '1';
}

// ---- estimate by sampling ------------------------------------------------------------

// Rolls line index of the distribution view `rolls` times (ESTIMATE_ROLLS
// unless a link says fewer), a chunk a request, and shows the estimate in
// place of its error (labelled with its number of rolls, with a note that
// it is not exact). Chunk k rolls stream k of the seed (drawn here unless a
// link gives it): the chunks are the threads of `alea dist --sample rolls
// --seed S --threads chunks`, and the link records the seed and the rolls
// counted (state.estimates), so that it estimates again with the same
// rolls. Resolves true when it counted every roll, 'stopped' when a chunk
// was stopped (the deadline, Cancel), false when a newer update took over.
async function estimate(index, seed = drawSeed(), rolls = ESTIMATE_ROLLS) {
  if (!lastResults) return false;
  const { exprs, results } = lastResults;
  const src = exprs[index];
  const my = ++updates;
  const parts = [];
  let stop = null;
  setBusy(true);
  for (let done = 0, stream = 0; done < rolls; done += ESTIMATE_CHUNK, stream++) {
    $('busy-what').textContent = `Estimating: ${done} of ${rolls} rolls`;
    const n = Math.min(ESTIMATE_CHUNK, rolls - done);
    const out = await calc.run([{ op: 'sample', src, n, seed, stream }], state.deadline, state.dialect);
    if (my !== updates) return false;
    const r = out.results ? out.results[0] : null;
    if (!r || r.error) {
      stop = r ? r.error : out.timedOut ? stoppedError(state.deadline) : out.cancelled
        ? { status: 'ALEA_ERR_INTERRUPTED', text: 'interrupted', message: 'cancelled',
          line: 'cancelled', start: 0, end: 0 } : null;
      break;
    }
    parts.push(r);
  }
  // the chunks' counts added up; the library makes the estimate of them,
  // with its statistics (a request of its own: small, and quick)
  let d = null;
  if (parts.length) {
    const { values, counts } = mergeSamples(parts);
    const out = await calc.run([{ op: 'estimate', src, values, counts }], state.deadline, state.dialect);
    if (my !== updates) return false;
    const r = out.results ? out.results[0] : null;
    if (r && !r.error) {
      d = r;
      d.estimate = d.samples;
    } else {
      stop = r ? r.error : out.timedOut ? stoppedError(state.deadline)
        : { status: 'ALEA_ERR_INTERNAL', text: 'internal error', message: String(out.failed ?? 'cancelled'),
          line: String(out.failed ?? 'cancelled'), start: 0, end: 0 };
    }
  }
  setBusy(false);
  const next = results.slice();
  state.estimates = state.estimates.filter((e) => e.index !== index);
  if (d) {
    // the standard error of a chance p counted in n rolls: sqrt(p(1-p)/n)
    d.incomplete = 'not exact: a chance near p is off by about sqrt(p(1-p)/rolls), ' +
      `${pct(Math.sqrt(0.25 / d.estimate))} points at 50%` +
      (stop ? `; stopped after ${d.estimate} rolls (${stop.message})` : '') +
      `; the same rolls as alea dist --sample ${d.estimate} --seed ${seed} --threads ${parts.length}` +
      (state.dialect === 'alea' ? '' : ` --dialect ${state.dialect}`);
    next[index] = d;
    state.estimates.push({ index, seed, rolls: d.estimate });
  } else if (stop) {
    next[index] = { error: stop };
  }
  $('dist-view').hidden = false;
  const { errors } = showDist(exprs, next);
  showErrors(errors, 'dist');
  writeHash();
  return stop ? 'stopped' : true;
}

// The estimates a link records, made again in turn (update's, after the
// link's distributions): each of a line the library refused for a limit
// that sampling may get past; the others are forgotten. One stopped (by
// Cancel, or a chunk past the deadline) ends them: at most MAX_EXPRS x
// ESTIMATE_ROLLS / ESTIMATE_CHUNK chunks, each under the deadline. Resolves
// false when a newer update took over.
async function estimateAgain() {
  const todo = state.estimates;
  state.estimates = [];
  for (const { index, seed, rolls } of todo) {
    const r = lastResults.results[index];
    if (!r || !r.error || !estimable(r.error)) continue;
    const done = await estimate(index, seed, rolls);
    if (done !== true) return done !== false;
  }
  return true;
}

// ---- CSV ---------------------------------------------------------------------------

// The view's rows (rowsOf): a value each, or a bin each ("from", "to") in
// a binned view, every one of them, in the mode's chances; named outcomes
// (the tiers of dd()) in an outcome column, as the table has them.
function downloadCsv() {
  if (!lastView) return;
  const { items, cols, values, labels, layout } = lastView;
  const { keys, bins, at } = rowsOf(cols, values, layout);
  const w = layout.w;
  const quote = (s) => `"${s.replaceAll('"', '""')}"`;
  const named = labels && !bins;
  // Fractions on: each line's exact chance in a column after its own, whole
  const exact = fractionsShown(cols, bins);
  const frac = (j) => exact && cols[j].fr;
  const lines = [[...(bins ? ['from', 'to'] : ['value']), ...(named ? ['outcome'] : []),
    ...items.flatMap((item, j) => [quote(seriesLabel(item, w)),
      ...(frac(j) ? [quote(`${seriesLabel(item, w)} exact`)] : [])])].join(',')];
  keys.forEach((k, i) => lines.push([...(bins ? [k * w, k * w + w - 1] : [k]),
    ...(named ? [quote(labels.get(k) || '')] : []),
    ...cols.flatMap((col, j) => [String(at(j, i) ?? ''),
      ...(frac(j) ? [fraction(col.fr, k, state.mode) ?? ''] : [])])].join(',')));
  const blob = new Blob([lines.join('\n') + '\n'], { type: 'text/csv' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = bins ? `alea-${state.mode}-bins-of-${w}.csv` : `alea-${state.mode}.csv`;
  a.click();
  URL.revokeObjectURL(a.href);
}

// ---- the table view -----------------------------------------------------------------

// The first line of the expressions for every value of one or two names:
// the library's table (alea_table_new, web/wasm.c's alea_web_table), with
// two names a heat map per statistic (a real table, its cells shaded, the
// numbers in them), with one a line a statistic (uPlot) and the numbers
// below; the library's CSV and pictures to download (`alea table --csv`,
// `--svg`: one of the chart with one name, one of each heat map with two);
// the link keeps the sweeps and statistics (t=, st=).

let tablePlot = null;
let lastTable = null; // the answer shown, for the CSV
let lastTableAsk = null; // {src, sweeps, stats, dialect} of it, for its pictures

// What to try instead, for the table's errors of the page's own bounds.
function tableHint(error) {
  if (error.status === 'ALEA_ERR_INTERRUPTED') return 'Sweep fewer values, or simplify the expression.';
  if (error.status === 'ALEA_ERR_LIMIT' && /for this page|cells limit|work limit/.test(error.message))
    return 'Sweep fewer values.';
  return '';
}

// The statistic menus, STATS_MAX of them (the first never empty), each
// with a number field that shows beside a choice that takes one.
function fillStatMenus() {
  for (let k = 1; k <= STATS_MAX; k++) {
    const row = document.createElement('span');
    row.className = 'inline stat-row';
    const label = (text, id) => {
      const l = document.createElement('label');
      l.htmlFor = id;
      l.textContent = text;
      return l;
    };
    const sel = document.createElement('select');
    sel.id = `stat${k}`;
    sel.className = 'stat';
    if (k > 1) sel.append(new Option('none', ''));
    for (const c of STAT_CHOICES) sel.append(new Option(c.label, c.value));
    sel.addEventListener('change', () => showStatN(sel));
    const n = document.createElement('input');
    Object.assign(n, { id: `stat${k}-n`, className: 'stat-n', type: 'text', inputMode: 'numeric', size: 4 });
    row.append(label(`statistic ${k}`, sel.id), sel, label('N', n.id), n);
    $('stat-rows').append(row);
  }
}

function showStatN(sel) {
  const choice = STAT_CHOICES.find((c) => c.value === sel.value);
  const on = !!(choice && choice.n);
  $(`${sel.id}-n`).hidden = !on;
  document.querySelector(`label[for=${sel.id}-n]`).hidden = !on;
}

// The fields from sweep (a link's, or the last table's).
function fillTableForm() {
  [1, 2].forEach((k) => {
    const { name, values } = sweepFields(sweep.sweeps[k - 1] ?? '');
    $(`sweep${k}-name`).value = name;
    $(`sweep${k}-values`).value = values;
  });
  for (let k = 1; k <= STATS_MAX; k++) {
    const sel = $(`stat${k}`);
    const text = sweep.stats[k - 1] ?? (k === 1 ? 'mean' : '');
    const { value, n } = statChoice(text);
    // a text no menu item makes (a link's) is an item of its own
    if (![...sel.options].some((o) => o.value === value)) sel.append(new Option(value, value));
    sel.value = value;
    $(`stat${k}-n`).value = n;
    showStatN(sel);
  }
}

// sweep from the fields: the sweeps filled in, the statistics chosen.
function readTableForm() {
  sweep.sweeps = [1, 2].map((k) => sweepText($(`sweep${k}-name`).value, $(`sweep${k}-values`).value))
    .filter((t) => t);
  sweep.stats = [];
  for (let k = 1; k <= STATS_MAX; k++) {
    const t = statText($(`stat${k}`).value, $(`stat${k}-n`).value);
    if (t) sweep.stats.push(t);
  }
}

// Computes the table of state.exprs[0] and shows it, one request; as
// update's for the other views.
async function updateTable(asked) {
  state.view = 'table';
  state.estimates = [];
  const my = ++updates;
  const src = state.exprs[0];
  const sweeps = sweep.sweeps.slice(), stats = sweep.stats.slice();
  setBusy(true);
  const out = await calc.run([{ op: 'table', src, sweeps, stats }], state.deadline, state.dialect,
    state.fractions);
  if (my !== updates) return;
  setBusy(false);
  if (out.cancelled) {
    $('notice').textContent = shown ? 'Cancelled: what is shown below is from before.' : 'Cancelled.';
  } else {
    $('dist-view').hidden = $('roll-view').hidden = true;
    const r = out.results ? out.results[0] : null;
    const errors = [];
    if (r && !r.error) {
      lastTableAsk = { src, sweeps, stats, dialect: state.dialect };
      renderTable(r);
      document.body.dataset.wasmMemory = String(out.memory);
    } else {
      $('table-view').hidden = true;
      if (r) {
        const { part, index } = r.error;
        // the caret under the text the error is in: the expression, a sweep or a statistic
        const text = part === 'sweep' ? sweeps[index] : part === 'stat' ? stats[index] : src;
        errors.push({ src: text ?? src, error: r.error });
      } else {
        const message = `the calculator stopped (${out.failed}); it has been restarted`;
        errors.push({ src: null, error: out.timedOut ? stoppedError(state.deadline)
          : { status: 'ALEA_ERR_INTERNAL', text: 'internal error', message,
            line: `internal error: ${message}`, start: 0, end: 0 } });
      }
      announce('');
    }
    if (state.exprs.length > 1) {
      const message = 'a table is of the first line only';
      errors.push({ src: null, error: { status: 'ALEA_ERR_ARGUMENT', text: 'note', message,
        line: message, start: 0, end: 0 } });
    }
    showErrors(errors, 'table');
    showHints([src], out.results);
    shown = { view: 'table', exprs: state.exprs.slice() };
    if (asked) reveal('table');
  }
  writeHash();
  document.body.dataset.ready = '1';
}

// "mean of d20 + m >= dc"
const statTitle = (t, k) => `${t.stats[k].stat} of ${t.expression}`;

function renderTable(t) {
  lastTable = t;
  $('table-view').hidden = false;
  const grids = $('table-grids');
  grids.replaceChildren();
  if (tablePlot) { tablePlot.destroy(); tablePlot = null; }
  $('table-chart').replaceChildren();
  const two = t.names.length > 1;
  const cells = t.values[0].length * (two ? t.values[1].length : 1);
  $('table-what').textContent = `${t.expression}: ${t.values[0].length} values of ${t.names[0]}` +
    (two ? ` by ${t.values[1].length} of ${t.names[1]} (${cells} cells)` : '') +
    '; probabilities in %.';
  $('table-svg').hidden = two; // a button under each heat map instead
  if (two) {
    t.stats.forEach((_, k) => grids.append(heatMap(t, k), heatMapButtons(t, k)));
  } else {
    grids.append(lineTable(t));
    drawTableChart(t);
  }
  announce(`Table of ${t.stats.map((s) => s.stat).join(', ')} of ${t.expression}: ` +
    `${t.values[0].length} rows` + (two ? ` by ${t.values[1].length} columns` : ''));
}

// A cell of the page's tables: the number shown, the library's in data-value.
function numberCell(x, kind) {
  const td = document.createElement('td');
  td.textContent = cellText(x, kind);
  td.dataset.value = String(x);
  return td;
}

function headCell(text, scope) {
  const th = document.createElement('th');
  th.scope = scope;
  th.textContent = text;
  return th;
}

// Statistic k of a two-name table: a row per value of the first name, a
// column per value of the second, each cell shaded by its place between
// the table's least and greatest.
function heatMap(t, k) {
  const wrap = document.createElement('div');
  wrap.className = 'table-wrap heat-wrap';
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', `heat map of the ${statTitle(t, k)}`);
  const table = document.createElement('table');
  table.className = 'heat';
  table.dataset.stat = t.stats[k].stat;
  const kind = t.kinds[k];
  const cap = document.createElement('caption');
  cap.textContent = `${statTitle(t, k)}${kind === 'prob' ? ', in %' : ''}: a row per ${t.names[0]}, ` +
    `a column per ${t.names[1]}; darker is more`;
  const head = document.createElement('tr');
  head.append(headCell(`${t.names[0]} \\ ${t.names[1]}`, 'col'),
    ...t.values[1].map((v) => headCell(`${t.names[1]}=${v}`, 'col')));
  const thead = document.createElement('thead');
  thead.append(head);
  const body = document.createElement('tbody');
  const rows = t.stats[k].cells;
  const places = placesOf(rows);
  const exact = state.fractions && t.exact; // Fractions on: each cell's, under its number
  rows.forEach((row, i) => {
    const tr = document.createElement('tr');
    tr.append(headCell(`${t.names[0]}=${t.values[0][i]}`, 'row'));
    row.forEach((x, j) => {
      const td = numberCell(x, kind);
      td.style.background = shade(places[i][j]);
      if (exact) addFraction(td, exact.stats[k].cells[i][j]);
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(cap, thead, body);
  wrap.append(table);
  return wrap;
}

// The download of heat map k's picture, under it.
function heatMapButtons(t, k) {
  const div = document.createElement('div');
  div.className = 'buttons';
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'table-svg';
  b.dataset.stat = String(k);
  b.textContent = 'Download SVG';
  b.setAttribute('aria-label', `Download SVG of the heat map of the ${statTitle(t, k)}`);
  b.addEventListener('click', () => downloadTableSvg(k));
  div.append(b);
  return div;
}

// A one-name table: a row per value, a column per statistic.
function lineTable(t) {
  const wrap = document.createElement('div');
  wrap.className = 'table-wrap heat-wrap';
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', `table of the ${t.stats.map((s) => s.stat).join(', ')} of ${t.expression}`);
  const table = document.createElement('table');
  table.className = 'heat line';
  const cap = document.createElement('caption');
  cap.textContent = `${t.stats.map((s) => s.stat).join(', ')} of ${t.expression}, by ${t.names[0]}`;
  const head = document.createElement('tr');
  head.append(headCell(t.names[0], 'col'),
    ...t.stats.map((s, k) => headCell(t.kinds[k] === 'prob' ? `${s.stat}, %` : s.stat, 'col')));
  const thead = document.createElement('thead');
  thead.append(head);
  const body = document.createElement('tbody');
  t.values[0].forEach((v, i) => {
    const tr = document.createElement('tr');
    tr.append(headCell(String(v), 'row'), ...t.stats.map((s, k) => {
      const td = numberCell(s.cells[i], t.kinds[k]);
      if (state.fractions && t.exact) addFraction(td, t.exact.stats[k].cells[i]); // Fractions on
      return td;
    }));
    body.append(tr);
  });
  table.append(cap, thead, body);
  wrap.append(table);
  return wrap;
}

// A line a statistic against the one name's values: probabilities in %
// on one axis, the other statistics on another when both are shown.
function drawTableChart(t) {
  const chart = $('table-chart');
  const width = Math.max(200, chart.clientWidth || 280);
  const probs = t.kinds.map((k) => k === 'prob');
  const mixed = probs.some((p) => p) && probs.some((p) => !p);
  const xs = t.values[0];
  const ys = t.stats.map((s, k) => s.cells.map((x) => (probs[k] ? num(x) * 100 : num(x))));
  const series = [{ label: t.names[0] }, ...t.stats.map((s, k) => ({
    label: probs[k] ? `${s.stat}, %` : s.stat,
    stroke: COLOURS[k % COLOURS.length],
    width: 2,
    scale: probs[k] ? '%' : 'y',
    points: { show: xs.length < 60 },
    value: (u, v) => (v == null ? '--' : cellText(probs[k] ? v / 100 : v, t.kinds[k])),
  }))];
  const axes = [{ label: t.names[0], incrs: INCRS, values: (u, splits) => splits.map(String) }];
  if (probs.some((p) => !p)) axes.push({ scale: 'y', label: t.stats.filter((_, k) => !probs[k]).map((s) => s.stat).join(', ') });
  if (probs.some((p) => p)) axes.push({ scale: '%', label: '%', side: mixed ? 1 : 3, grid: { show: !mixed } });
  chart.setAttribute('aria-label', `Chart of the ${t.stats.map((s) => s.stat).join(', ')} of ` +
    `${t.expression} for each value of ${t.names[0]}`);
  tablePlot = new uPlot({
    width, height: CHART_HEIGHT, series, axes,
    scales: { x: { time: false }, '%': { range: (u, lo, hi) => [Math.min(0, lo), Math.max(hi, 1)] } },
    legend: { show: true },
  }, [xs, ...ys], chart);
}

// The library's CSV of the table shown (`alea table --csv`).
function downloadTableCsv() {
  if (!lastTable) return;
  const blob = new Blob([lastTable.csv], { type: 'text/csv' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `alea-table-${lastTable.names.join('-')}.csv`;
  a.click();
  URL.revokeObjectURL(a.href);
}

// The library's picture of the table shown (`alea table --svg`): with two
// names the heat map of statistic k (as `alea table --stat STAT --svg`
// draws it), with one the chart of every statistic. Made on request: the
// table is computed again, in the worker, as it was shown.
async function downloadTableSvg(k = 0) {
  if (!lastTable || !lastTableAsk || calc.busy) return;
  const { src, sweeps, stats, dialect } = lastTableAsk;
  const names = lastTable.names.join('-');
  const out = await calc.run([{ op: 'table', src, sweeps, stats, svg: k }], state.deadline, dialect);
  saveSvg(out, lastTable.names.length > 1 ? `alea-table-${names}-${k + 1}.svg` : `alea-table-${names}.svg`);
}

// The table's fields show with the table view only: the other views keep
// the room above their results.
function showTableFields(on) {
  $('table-fields').hidden = !on;
  $('show-table').setAttribute('aria-expanded', String(on));
}

function computeTable() {
  showTableFields(true);
  readForm();
  readTableForm();
  update('table');
}

function wireTable() {
  fillStatMenus();
  fillTableForm();
  showTableFields(state.view === 'table');
  $('show-table').addEventListener('click', computeTable);
  // Enter in a table field computes the table, not the distribution
  $('table-fields').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && ev.target.tagName === 'INPUT') { ev.preventDefault(); computeTable(); }
  });
  $('table-csv').addEventListener('click', downloadTableCsv);
  $('table-svg').addEventListener('click', () => downloadTableSvg(0));
  new ResizeObserver(() => {
    const width = $('table-chart').clientWidth;
    if (tablePlot && width > 0 && width !== tablePlot.width) tablePlot.setSize({ width, height: CHART_HEIGHT });
  }).observe($('table-chart'));
}

// ---- SVG ---------------------------------------------------------------------------

// The chart as an SVG picture for a document, made by the library as
// `alea dist --svg` and `alea compare --svg` make it (bars for one line, a
// line each for more; readable in grey print and by a screen reader), of
// the lines shown exactly (an estimate has no exact chart).
async function downloadSvg() {
  if (!lastResults || calc.busy) return;
  const { exprs, results } = lastResults;
  const lines = exprs.filter((_, i) => results[i] && !results[i].error && !results[i].estimate);
  if (!lines.length) return;
  const out = await calc.run([{ op: 'svg', lines }], state.deadline, state.dialect);
  saveSvg(out, lines.length === 1 ? 'alea-chart.svg' : 'alea-compare.svg');
}

// The picture of an SVG request's answer ({svg}) saved as filename, or the
// notice of why it could not be made.
function saveSvg(out, filename) {
  const answer = out.results && out.results[0];
  if (!answer || answer.error) {
    const why = answer ? answer.error.message : out.cancelled ? 'cancelled' : 'the calculator stopped';
    $('notice').textContent = `The SVG could not be made: ${why}.`;
    return;
  }
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([answer.svg], { type: 'image/svg+xml' }));
  a.download = filename;
  a.click();
  URL.revokeObjectURL(a.href);
}

// ---- wiring ------------------------------------------------------------------------

function readForm() {
  state.exprs = $('exprs').value.split('\n').map((s) => s.trim()).filter((s) => s);
  if (state.exprs.length === 0) state.exprs = [''];
  const n = parseInt($('roll-n').value, 10);
  state.n = n >= 1 && n <= MAX_ROLLS ? n : 1;
  state.seed = /^[0-9]{1,20}$/.test($('roll-seed').value) ? $('roll-seed').value : '';
  state.dialect = DIALECTS.includes($('dialect').value) ? $('dialect').value : 'alea';
}

function fillForm() {
  $('exprs').value = state.exprs.join('\n');
  $('exprs').rows = Math.max(3, Math.min(state.exprs.length + 1, 12));
  $('roll-n').value = String(state.n);
  $('roll-seed').value = state.seed;
  $('dialect').value = state.dialect;
  $('fractions').checked = state.fractions;
  for (const r of document.querySelectorAll('input[name=mode]')) r.checked = r.value === state.mode;
}

// A new mode redraws what is shown, or waits for the distributions coming.
function changeMode(mode) {
  state.mode = mode;
  if (calc.busy && state.view === 'dist') return;
  const same = shown && shown.view === 'dist' && shown.exprs.join('\n') === state.exprs.join('\n');
  if (same && !calc.busy) {
    if (lastDists.length) renderDist(lastDists);
    writeHash();
  } else {
    update('dist');
  }
}

async function main() {
  readHash();
  fillForm();
  $('roll-n').max = String(MAX_ROLLS);
  const bytes = await (await fetch('alea.wasm')).arrayBuffer();
  calc = new Calculator(await WebAssembly.compile(bytes));
  calc.ready.then((version) => { $('version').textContent = `(version ${version})`; }, () => {});

  for (const ex of EXAMPLES) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = ex.label;
    b.addEventListener('click', () => {
      state.exprs = ex.exprs.slice();
      fillForm();
      update('dist');
    });
    $('example-buttons').append(b);
  }
  $('form').addEventListener('submit', (ev) => { ev.preventDefault(); readForm(); update('dist'); });
  $('show-roll').addEventListener('click', () => { readForm(); update('roll'); });
  $('exprs').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      // the view shown is computed again: a table stays a table
      if (state.view === 'table') computeTable();
      else { readForm(); update('dist'); }
    }
  });
  for (const r of document.querySelectorAll('input[name=mode]'))
    r.addEventListener('change', () => changeMode(r.value));
  $('cancel').addEventListener('click', () => calc.cancel());
  // Fractions: what is shown computed again with them (a roll has none)
  $('fractions').addEventListener('change', () => {
    state.fractions = $('fractions').checked;
    writeHash();
    if (!shown || shown.view === 'roll') return;
    if (shown.view === 'table') updateTable(false);
    else update('dist', false);
  });
  $('csv').addEventListener('click', downloadCsv);
  $('svg').addEventListener('click', downloadSvg);
  $('errors').addEventListener('click', (ev) => {
    const b = ev.target.closest('button.estimate');
    if (b && !calc.busy) estimate(Number(b.dataset.index)).then((done) => { if (done) reveal('dist'); });
  });
  $('rolls').addEventListener('click', (ev) => {
    const b = ev.target.closest('button.copy-md');
    if (b) copyMarkdown(b);
  });
  $('share').addEventListener('click', async () => {
    writeHash();
    try {
      await navigator.clipboard.writeText(location.href);
      $('share-status').textContent = 'Link copied.';
    } catch {
      $('share-status').textContent = 'The link is in the address bar.';
    }
  });
  // the chart follows its box: a turned phone, a view shown again
  new ResizeObserver(() => {
    const width = $('chart').clientWidth;
    if (plot && width > 0 && width !== plot.width) plot.setSize({ width, height: CHART_HEIGHT });
  }).observe($('chart'));
  $('tails').addEventListener('click', () => {
    state.tails = !state.tails;
    if (lastDists.length) renderDist(lastDists);
  });
  // the table's rows not built yet, all at once
  $('rows-rest').addEventListener('click', () => {
    if (!tableRows) return;
    showRows(tableRows.order.length);
    $('dist-wrap').focus(); // the button is gone: the table, scrollable by keys, in its place
  });
  // every row of the table, the negligible tails too (`alea dist --all`)
  $('all-rows').addEventListener('click', () => {
    state.allRows = !state.allRows;
    writeHash();
    if (!lastView) return;
    const { items, cols, values, labels, layout } = lastView;
    const table = $('dist-table');
    clearTable(table);
    fillTable(table, items, cols, values, labels, layout);
  });

  // the Fairness panel (fairness.js): its requests go to the same worker
  setupFairness({ run: (calls, deadline, dialect) => calc.run(calls, deadline, dialect),
    deadline: () => state.deadline, dialect: () => state.dialect, caretLine });

  if ('serviceWorker' in navigator && location.protocol !== 'file:')
    navigator.serviceWorker.register('sw.js').catch(() => {});

  wireTable();
  // the link's view, computed in the worker: the page is usable meanwhile
  update(state.view, false);
}

main();
