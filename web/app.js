// app.js -- alea's calculator page: expressions in, exact distributions
// (chart and table) or rolls with their breakdown out, all computed by the
// C library compiled to WebAssembly (alea.wasm, loaded by alea.js).
//
// The view lives in the URL's fragment (#e=...&v=dist&m=exact&n=1&s=7), so
// a link reproduces it.

import { loadAlea } from './alea.js';

const EXAMPLES = [
  { label: 'Ability score: 4d6, drop the lowest', exprs: ['4d6kh3'] },
  { label: 'Bonus and penalty d20 (seed 000)', exprs: ['d20', 'd20 +1d', 'd20 -1d'] },
  { label: '+/- DICE on 2d6 (seed 004)', exprs: ['2d6', '2d6 +1 DICE', '2d6 -1 DICE'] },
  { label: 'Boons and banes (seed 003)', exprs: ['2d10 +3B -1B', 'd0 +1B'] },
  { label: 'Exploding critical pool (seed 001)', exprs: ['event(d12 + d14 + d18 + d20)'] },
  { label: 'Dice tier ladder (seed 001)', exprs: ['tier(d8, +2)', 'tier(d8, -1)'] },
  { label: 'Double Down policies (seed 002)',
    exprs: ['dd(6, 14)', 'dd(6, 14, always)', 'dd(6, 14, onfail)', 'dd(6, 14, best)'] },
  { label: 'Success pool: 10d10, 8+ succeeds, 1 fails', exprs: ['10d10>=8f1'] },
  { label: 'Advantage against +5', exprs: ['2d20kh1', '1d20+5'] },
];

const $ = (id) => document.getElementById(id);
const state = { exprs: ['4d6kh3'], view: 'dist', mode: 'exact', n: 1, seed: '' };
let alea = null;
let plot = null;
let lastDists = []; // [{src, dist}] of the distribution view, for the CSV

// ---- the URL ------------------------------------------------------------------

function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has('e')) state.exprs = h.get('e').split('\n');
  if (['dist', 'roll'].includes(h.get('v'))) state.view = h.get('v');
  if (['exact', 'atleast', 'atmost'].includes(h.get('m'))) state.mode = h.get('m');
  const n = parseInt(h.get('n'), 10);
  if (n >= 1 && n <= 1000) state.n = n;
  if (/^[0-9]{1,20}$/.test(h.get('s') || '')) state.seed = h.get('s');
}

function writeHash() {
  const h = new URLSearchParams();
  h.set('e', state.exprs.join('\n'));
  h.set('v', state.view);
  if (state.view === 'dist') h.set('m', state.mode);
  if (state.view === 'roll') {
    h.set('n', String(state.n));
    if (state.seed) h.set('s', state.seed);
  }
  history.replaceState(null, '', '#' + h.toString());
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

function showErrors(errors) {
  const box = $('errors');
  box.replaceChildren();
  for (const { src, error } of errors) {
    const div = document.createElement('div');
    div.className = 'error';
    const msg = document.createElement('p');
    msg.className = 'message';
    const what = error.message.includes(error.text) || error.status === 'ALEA_ERR_LIMIT'
      ? error.message : `${error.text}: ${error.message}`;
    msg.textContent = what;
    const pre = document.createElement('pre');
    pre.className = 'caret';
    pre.textContent = `${src}\n${caretLine(src, error.start, error.end)}`;
    div.append(msg, pre);
    box.append(div);
  }
}

// ---- numbers -------------------------------------------------------------------

const pct = (p) => (Math.abs(p * 100) < 0.005 ? 0 : p * 100).toFixed(2);

// The three views of one distribution, value by value.
function columns(dist) {
  const n = dist.outcomes.length;
  const exact = dist.outcomes.map(([, p]) => p);
  const atmost = new Array(n), atleast = new Array(n);
  let s = 0;
  for (let i = 0; i < n; i++) { s += exact[i]; atmost[i] = s; }
  s = 0;
  for (let i = n - 1; i >= 0; i--) { s += exact[i]; atleast[i] = s; }
  return { exact, atleast, atmost };
}

// ---- the distribution view -------------------------------------------------------

function renderDist(items) {
  lastDists = items;
  const values = [...new Set(items.flatMap(({ dist }) => dist.outcomes.map(([v]) => v)))]
    .sort((a, b) => a - b);
  const cols = items.map(({ dist }) => {
    const c = columns(dist);
    const at = new Map(dist.outcomes.map(([v], i) => [v, i]));
    return { dist, c, at };
  });
  const labels = items.length === 1 && items[0].dist.labels
    ? new Map(items[0].dist.labels) : null;

  // table
  const table = $('dist-table');
  table.replaceChildren();
  const thead = table.createTHead().insertRow();
  const th = (text, scope = 'col') => {
    const cell = document.createElement('th');
    cell.scope = scope;
    cell.textContent = text;
    thead.append(cell);
  };
  th('value');
  if (labels) th('outcome');
  for (const { src } of items) th(src);
  const body = table.createTBody();
  for (const v of values) {
    const row = body.insertRow();
    row.insertCell().textContent = String(v);
    if (labels) row.insertCell().textContent = labels.get(v) || '';
    cols.forEach(({ c, at }) => {
      const cell = row.insertCell();
      const i = at.get(v);
      if (i !== undefined) {
        const p = c[state.mode][i];
        cell.textContent = pct(p);
        cell.dataset.p = String(p);
      }
    });
  }
  const summary = [['mean', (d) => d.mean.toFixed(2)], ['sd', (d) => d.sd.toFixed(2)],
    ['min', (d) => String(d.min)], ['max', (d) => String(d.max)]];
  if (items.some(({ dist }) => dist.truncated > 0))
    summary.push(['truncated', (d) => d.truncated.toExponential(1)]);
  if (items.some(({ dist }) => dist.flags && 'critical failure' in dist.flags))
    summary.push(['critical failure %',
      (d) => (d.flags && 'critical failure' in d.flags ? pct(d.flags['critical failure']) : '')]);
  for (const [name, f] of summary) {
    const row = body.insertRow();
    row.className = 'summary';
    const head = document.createElement('th');
    head.scope = 'row';
    head.textContent = name;
    row.append(head);
    if (labels) row.insertCell();
    for (const { dist } of items) row.insertCell().textContent = f(dist);
  }

  // chart: bars for one expression, lines for several
  const data = [values, ...cols.map(({ c, at }) =>
    values.map((v) => (at.has(v) ? c[state.mode][at.get(v)] * 100 : null)))];
  const colours = ['#0b57d0', '#b3261e', '#137333', '#8430ce', '#e37400', '#007b83'];
  const series = [{ label: 'value' }, ...items.map(({ src }, k) => ({
    label: src,
    stroke: colours[k % colours.length],
    fill: items.length === 1 ? colours[0] + '99' : undefined,
    width: 2,
    points: { show: items.length > 1 && values.length < 60 },
    paths: items.length === 1 ? uPlot.paths.bars({ size: [0.8, 40] }) : undefined,
    spanGaps: false,
  }))];
  const chart = $('chart');
  if (plot) plot.destroy();
  const width = Math.max(280, chart.clientWidth || 600);
  const title = { exact: 'chance of exactly', atleast: 'chance of at least',
    atmost: 'chance of at most' }[state.mode];
  plot = new uPlot({
    width, height: 320, series,
    // half a value of room each side, so that the end bars show whole
    // and the chances from 0, so that the heights compare
    scales: {
      x: { time: false, range: (u, lo, hi) => [lo - 0.5, hi + 0.5] },
      y: { range: (u, lo, hi) => [0, hi > 0 ? hi * 1.05 : 1] },
    },
    axes: [{ label: 'value' }, { label: `${title}, %` }],
    legend: { show: true },
  }, data, chart);
  $('dist-view').hidden = false;
}

function showDist() {
  state.view = 'dist';
  $('roll-view').hidden = true;
  const items = [], errors = [];
  for (const src of state.exprs) {
    const dist = alea.dist(src);
    if (dist.error) errors.push({ src, error: dist.error });
    else items.push({ src, dist });
  }
  showErrors(errors);
  if (items.length) renderDist(items);
  else $('dist-view').hidden = true;
  writeHash();
}

// ---- the roll view ---------------------------------------------------------------

function luck(dist, total) {
  // the share of rolls at most / at least this total, from the exact distribution
  let below = 0, above = 0;
  for (const [v, p] of dist.outcomes) {
    if (v <= total) below += p;
    if (v >= total) above += p;
  }
  return `this total or less: ${pct(below)}%, this or more: ${pct(above)}%`;
}

function showRoll() {
  state.view = 'roll';
  $('dist-view').hidden = true;
  const list = $('rolls');
  list.replaceChildren();
  const errors = [];
  let first = true;
  for (const src of state.exprs) {
    // Seeded once, before the first expression, as `alea roll --seed S e1 e2`.
    const out = alea.roll(src, { n: state.n, seed: first ? state.seed : '' });
    first = false;
    if (out.error) {
      errors.push({ src, error: out.error });
      continue;
    }
    const dist = alea.dist(src);
    for (const r of out.rolls) {
      const li = document.createElement('li');
      const text = document.createElement('span');
      text.className = 'breakdown';
      text.textContent = r.text;
      li.append(text);
      if (!dist.error) {
        const l = document.createElement('div');
        l.className = 'luck';
        l.textContent = luck(dist, r.total);
        li.append(l);
      }
      list.append(li);
    }
  }
  showErrors(errors);
  $('roll-view').hidden = false;
  writeHash();
}

// ---- CSV ---------------------------------------------------------------------------

function downloadCsv() {
  const values = [...new Set(lastDists.flatMap(({ dist }) => dist.outcomes.map(([v]) => v)))]
    .sort((a, b) => a - b);
  const quote = (s) => `"${s.replaceAll('"', '""')}"`;
  const lines = [['value', ...lastDists.map(({ src }) => quote(src))].join(',')];
  const cols = lastDists.map(({ dist }) => {
    const c = columns(dist);
    return new Map(dist.outcomes.map(([v], i) => [v, c[state.mode][i]]));
  });
  for (const v of values)
    lines.push([v, ...cols.map((m) => (m.has(v) ? String(m.get(v)) : ''))].join(','));
  const blob = new Blob([lines.join('\n') + '\n'], { type: 'text/csv' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `alea-${state.mode}.csv`;
  a.click();
  URL.revokeObjectURL(a.href);
}

// ---- wiring ------------------------------------------------------------------------

function readForm() {
  state.exprs = $('exprs').value.split('\n').map((s) => s.trim()).filter((s) => s);
  if (state.exprs.length === 0) state.exprs = [''];
  const n = parseInt($('roll-n').value, 10);
  state.n = n >= 1 && n <= 1000 ? n : 1;
  state.seed = /^[0-9]{1,20}$/.test($('roll-seed').value) ? $('roll-seed').value : '';
}

function fillForm() {
  $('exprs').value = state.exprs.join('\n');
  $('exprs').rows = Math.max(3, state.exprs.length + 1);
  $('roll-n').value = String(state.n);
  $('roll-seed').value = state.seed;
  for (const r of document.querySelectorAll('input[name=mode]')) r.checked = r.value === state.mode;
}

async function main() {
  readHash();
  fillForm();
  const bytes = await (await fetch('alea.wasm')).arrayBuffer();
  alea = await loadAlea(bytes);
  $('version').textContent = `(version ${alea.version})`;

  for (const ex of EXAMPLES) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = ex.label;
    b.addEventListener('click', () => {
      state.exprs = ex.exprs.slice();
      fillForm();
      showDist();
    });
    $('example-buttons').append(b);
  }
  $('form').addEventListener('submit', (ev) => { ev.preventDefault(); readForm(); showDist(); });
  $('show-roll').addEventListener('click', () => { readForm(); showRoll(); });
  $('exprs').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); readForm(); showDist(); }
  });
  for (const r of document.querySelectorAll('input[name=mode]'))
    r.addEventListener('change', () => { state.mode = r.value; showDist(); });
  $('csv').addEventListener('click', downloadCsv);
  $('share').addEventListener('click', async () => {
    writeHash();
    try {
      await navigator.clipboard.writeText(location.href);
      $('share-status').textContent = 'Link copied.';
    } catch {
      $('share-status').textContent = 'The link is in the address bar.';
    }
  });
  window.addEventListener('resize', () => { if (plot) plot.setSize({ width: $('chart').clientWidth, height: 320 }); });

  if (state.view === 'roll') showRoll(); else showDist();
  document.body.dataset.ready = '1';

  if ('serviceWorker' in navigator && location.protocol !== 'file:')
    navigator.serviceWorker.register('sw.js').catch(() => {});
}

main();
