// app.js -- alea's calculator page: expressions in, exact distributions
// (chart and table) or rolls with their breakdown out, all computed by the
// C library compiled to WebAssembly (alea.wasm), in a worker (worker.js), so
// that the page stays responsive however long a computation takes.
//
// The view lives in the URL's fragment (#e=...&v=dist&m=exact&n=1&s=7), so
// a link reproduces it. A link is a stranger's text: what it can ask for is
// bounded. Each update of the page is one request to the worker, stopped
// after DEADLINE_MS (alea.js; a link may lower it with d=<ms>, never raise
// it); at most MAX_EXPRS expressions and MAX_ROLLS rolls of each; answers of
// at most ANSWER_BYTES in all (web/wasm.c), in a module of at most 128 MiB
// (scripts/web); a table of at most TABLE_ROWS rows. The Cancel button, or
// any newer update, ends the worker and starts another.

import { DEADLINE_MS } from './alea.js';

const MAX_ROLLS = 1000; // "times": web/wasm.c refuses more in one call
const MAX_EXPRS = 10; // lines computed at once: a chart of more is unreadable,
// and 10 x 1000 rolls are as many as a page lists quickly
// 4 MiB of answers: two distributions of the library's largest (100000
// outcomes, 1.6 MB of JSON each) or 10 x 1000 rolls of a few hundred dice;
// the chart of more keeps the page's own thread busy for seconds.
const ANSWER_BYTES = 4 << 20;
const TABLE_ROWS = 1000; // the likeliest values; the CSV has them all
const GRACE_MS = 1000; // past its deadline a request is ended from outside
const BUSY_AFTER_MS = 150; // the "Computing..." line shows after this, not at once

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
];

const $ = (id) => document.getElementById(id);
const state = { exprs: ['4d6kh3'], view: 'dist', mode: 'exact', n: 1, seed: '',
  deadline: DEADLINE_MS, dialect: 'alea' };
const DIALECTS = ['alea', 'roll20', 'foundry', 'rpgdr', 'd20']; // index.html's choices
let calc = null;
let plot = null;
let lastDists = []; // [{src, dist}] of the distribution view, for the CSV
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

  run(calls, deadline, dialect) {
    this.cancel();
    if (this.dead) {
      this.worker.terminate();
      this.spawn();
    }
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending = { id, deadline, resolve, timer: 0 };
      this.worker.postMessage({ id, deadline, bytes: ANSWER_BYTES, dialect, calls });
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
  if (['dist', 'roll'].includes(h.get('v'))) state.view = h.get('v');
  if (['exact', 'atleast', 'atmost'].includes(h.get('m'))) state.mode = h.get('m');
  const n = parseInt(h.get('n'), 10);
  if (n >= 1 && n <= MAX_ROLLS) state.n = n;
  if (/^[0-9]{1,20}$/.test(h.get('s') || '')) state.seed = h.get('s');
  if (DIALECTS.includes(h.get('dl'))) state.dialect = h.get('dl');
  // a shorter deadline (ms), for tests; never a longer one
  const d = parseInt(h.get('d'), 10);
  if (d >= 1 && d <= DEADLINE_MS) state.deadline = d;
}

function writeHash() {
  const h = new URLSearchParams();
  h.set('e', state.exprs.join('\n'));
  h.set('v', state.view);
  if (state.dialect !== 'alea') h.set('dl', state.dialect);
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

const seconds = (ms) => `${+(ms / 1000).toFixed(3)} s`;

// The error of a request that the page had to end from outside.
function stoppedError(ms) {
  const message = `stopped after ${seconds(ms)}: this expression takes too long to compute here`;
  return { status: 'ALEA_ERR_INTERRUPTED', text: 'interrupted', message, line: message,
    start: 0, end: 0 };
}

// What to try instead, for the errors of the page's own bounds.
function hint(error, view) {
  if (error.status === 'ALEA_ERR_INTERRUPTED')
    return view === 'roll' ? 'Roll fewer times, or simplify the expression.'
      : 'Simplify the expression, or Roll it to sample results instead.';
  if (error.status === 'ALEA_ERR_LIMIT' && error.message.includes('for this page'))
    return view === 'roll' ? 'Roll fewer times, or fewer dice or repetitions.'
      : 'Compare fewer expressions at once.';
  return '';
}

// errors: [{src, error}]; src null for an error about no one expression.
function showErrors(errors, view) {
  const box = $('errors');
  box.replaceChildren();
  for (const { src, error } of errors) {
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

// The values the table shows: all, or the TABLE_ROWS likeliest (in any
// column), in order: a table of 100000 rows takes the page seconds to lay
// out, and no one reads it.
function tableValues(values, cols) {
  if (values.length <= TABLE_ROWS) return values;
  const weight = values.map((v) => Math.max(...cols.map(({ c, at }) =>
    (at.has(v) ? c.exact[at.get(v)] : 0))));
  return values.map((v, i) => i).sort((a, b) => weight[b] - weight[a] || a - b)
    .slice(0, TABLE_ROWS).sort((a, b) => a - b).map((i) => values[i]);
}

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
  // read before the table changes, which would make this lay it out
  const width = Math.max(280, $('chart').clientWidth || 600);

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
  // rows built apart and added at once: body.insertRow() recounts the rows
  // each time (100000 outcomes took a minute)
  const rows = document.createDocumentFragment();
  for (const v of tableValues(values, cols)) {
    const row = document.createElement('tr');
    rows.append(row);
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
  body.append(rows);
  const note = $('table-note');
  note.hidden = values.length <= TABLE_ROWS;
  note.textContent = `The table shows the ${TABLE_ROWS} likeliest of ${values.length} values; ` +
    'the chart and the CSV have them all.';
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

function showDist(exprs, results) {
  const items = [], errors = [];
  exprs.forEach((src, i) => {
    const dist = results[i];
    if (dist.error) errors.push({ src, error: dist.error });
    else items.push({ src, dist });
  });
  lastDists = items;
  if (items.length) renderDist(items);
  else $('dist-view').hidden = true;
  return { items, errors };
}

// ---- the roll view ---------------------------------------------------------------

// How a total compares with the exact distribution: the share of rolls at
// most / at least it (a binary search: a list of many rolls of a wide
// distribution must not cost rolls x outcomes).
function luck(dist) {
  const values = dist.outcomes.map(([v]) => v);
  const { atmost, atleast } = columns(dist);
  // the index of the first value >= t (values.length if none)
  const first = (t) => {
    let lo = 0, hi = values.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[mid] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
  return (total) => {
    const i = first(total);
    const below = values[i] === total ? atmost[i] : (i > 0 ? atmost[i - 1] : 0);
    const above = i < values.length ? atleast[i] : 0;
    return `this total or less: ${pct(below)}%, this or more: ${pct(above)}%`;
  };
}

// results: the rolls of each expression, then the distribution of each (for
// the luck line; an expression past the exact engine's limits has none).
// The rolls a line each: a repeat ("6 x 4d6kh3") is a line per roll, with
// its own total (its distribution is one roll's, so each has its luck).
function lines(rolls) {
  return rolls.flatMap((r) => {
    if (!r.totals) return [r];
    const text = r.text.split('\n'), md = r.markdown.split('\n');
    return r.totals.map((total, i) => ({ text: text[i], markdown: md[i], total }));
  });
}

function showRoll(exprs, results) {
  const list = $('rolls');
  list.replaceChildren();
  const errors = [];
  exprs.forEach((src, k) => {
    const out = results[k], dist = results[exprs.length + k];
    if (out.error) {
      errors.push({ src, error: out.error });
      return;
    }
    const lucky = dist.error ? null : luck(dist);
    for (const r of lines(out.rolls)) {
      const li = document.createElement('li');
      const text = document.createElement('span');
      text.className = 'breakdown';
      text.textContent = r.text;
      const copy = document.createElement('button');
      copy.type = 'button';
      copy.className = 'secondary copy-md';
      copy.textContent = 'Copy for chat';
      copy.dataset.markdown = r.markdown;
      copy.setAttribute('aria-label', `Copy for chat: ${r.text}`);
      li.append(text, ' ', copy);
      if (lucky) {
        const l = document.createElement('div');
        l.className = 'luck';
        l.textContent = lucky(r.total);
        li.append(l);
      }
      list.append(li);
    }
  });
  $('roll-view').hidden = list.children.length === 0;
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

// Computes the view of state.exprs and shows it; a newer update, or Cancel,
// ends this one.
async function update(view) {
  state.view = view;
  const my = ++updates;
  const exprs = state.exprs.slice(0, MAX_EXPRS);
  const dists = exprs.map((src) => ({ op: 'dist', src }));
  // Seeded once, before the first expression, as `alea roll --seed S e1 e2`.
  const calls = view === 'dist' ? dists : [...exprs.map((src, k) => ({ op: 'roll', src,
    n: state.n, seed: k === 0 ? state.seed : '' })), ...dists];
  setBusy(true);
  const out = await calc.run(calls, state.deadline, state.dialect);
  if (my !== updates) return;
  setBusy(false);
  if (out.cancelled) {
    $('notice').textContent = shown ? 'Cancelled: what is shown below is from before.'
      : 'Cancelled.';
  } else {
    let errors;
    $('dist-view').hidden = view !== 'dist';
    $('roll-view').hidden = view !== 'roll';
    if (out.results) {
      ({ errors } = view === 'dist' ? showDist(exprs, out.results) : showRoll(exprs, out.results));
      document.body.dataset.wasmMemory = String(out.memory);
    } else {
      const message = `the calculator stopped (${out.failed}); it has been restarted`;
      const error = out.timedOut ? stoppedError(state.deadline) : { status: 'ALEA_ERR_INTERNAL',
        text: 'internal error', message, line: `internal error: ${message}`, start: 0, end: 0 };
      errors = [{ src: null, error }];
      $('dist-view').hidden = $('roll-view').hidden = true;
      if (view === 'roll') $('rolls').replaceChildren();
    }
    if (state.exprs.length > MAX_EXPRS) {
      const message = `only the first ${MAX_EXPRS} expressions are computed (limit is ${MAX_EXPRS} at once)`;
      errors.push({ src: null, error: { status: 'ALEA_ERR_LIMIT', text: 'limit exceeded',
        message, line: message, start: 0, end: 0 } });
    }
    showErrors(errors, view);
    showHints(exprs, out.results);
    shown = { view, exprs: state.exprs.slice() };
  }
  writeHash();
  document.body.dataset.ready = '1';
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
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); readForm(); update('dist'); }
  });
  for (const r of document.querySelectorAll('input[name=mode]'))
    r.addEventListener('change', () => changeMode(r.value));
  $('cancel').addEventListener('click', () => calc.cancel());
  $('csv').addEventListener('click', downloadCsv);
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
  window.addEventListener('resize', () => { if (plot) plot.setSize({ width: $('chart').clientWidth, height: 320 }); });

  if ('serviceWorker' in navigator && location.protocol !== 'file:')
    navigator.serviceWorker.register('sw.js').catch(() => {});

  // the link's view, computed in the worker: the page is usable meanwhile
  update(state.view === 'roll' ? 'roll' : 'dist');
}

main();
