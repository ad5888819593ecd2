// fairness.js -- the page's Fairness panel: a log of rolls pasted (a line
// each, `EXPR TOTAL` or a line of `alea roll --json`, as `alea fairness`
// reads them), or the rolls this page made this session, judged against
// the exact distributions of their expressions by the library
// (alea_fairness_*, web/wasm.c's alea_web_fairness, in the worker): the
// verdict in plain words, each test with its p-value, and an error at its
// line with a caret under the problem.
//
// app.js keeps the worker; it hands this module a way to run calls on it
// (setupFairness) and tells it each roll it shows (recordRolls).

const $ = (id) => document.getElementById(id);

// The rolls the roll view showed this session: [{src, totals, dialect}],
// a repeat's totals together (placed all or none). At most PAGE_ROLLS, the
// module's limit on one judgement (alea.js FAIRNESS_ROLLS); older ones go.
export const PAGE_ROLLS = 100000;
const pageRolls = [];
let pageCount = 0;

let host = null; // setupFairness's {run, deadline, dialect, caretLine}

// A line "name: expr" the worker rolled as expr: the roll view's answer
// carries the name (worker.js), and the expression is what follows it.
function expressionOf(line, name) {
  if (!name) return line;
  const at = line.indexOf(':');
  return at < 0 ? line : line.slice(at + 1).trim();
}

// The roll view's answer for the line src, in dialect: each roll recorded.
export function recordRolls(src, out, dialect) {
  if (!out || out.error || !Array.isArray(out.rolls)) return;
  const expr = expressionOf(src, out.name);
  for (const r of out.rolls) {
    const totals = Array.isArray(r.totals) ? r.totals : [r.total];
    pageRolls.push({ src: expr, totals, dialect });
    pageCount += totals.length;
    while (pageCount > PAGE_ROLLS) pageCount -= pageRolls.shift().totals.length;
  }
  const b = $('fair-page');
  if (b) b.textContent = `Judge this page's rolls (${pageCount})`;
}

// A whole number, as the command line reads a total: an optional sign and
// digits; a bigint past 2^53 (the module takes 64 bits), null if not one.
function wholeNumber(s) {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const n = BigInt(s);
  if (n < -(1n << 63n) || n > (1n << 63n) - 1n) return null;
  return Number.isSafeInteger(Number(n)) ? Number(n) : n;
}

// The log's lines as rolls: {rolls: [[expr, totals]], lines: [{line,
// number, at}]} (at: where the expression starts in its line, -1 for a
// JSON line), or {error: {number, line, start, end, message}} for the first
// line it cannot read.
export function parseLog(text) {
  const rolls = [], lines = [];
  const all = text.split('\n');
  for (let k = 0; k < all.length; k++) {
    const line = all[k].replace(/\r$/, '');
    const number = k + 1;
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const lead = line.length - line.trimStart().length;
    const bad = (start, end, message) => ({ error: { number, line, start, end, message } });
    if (trimmed.startsWith('{')) {
      let o;
      try {
        o = JSON.parse(trimmed);
      } catch (e) {
        return bad(lead, line.length, `not a line of roll --json: ${e.message}`);
      }
      if (o === null || typeof o !== 'object' || typeof o.expression !== 'string') {
        return bad(lead, lead + 1, 'the object has no "expression" string');
      }
      const totals = Array.isArray(o.repeat) ? o.repeat.map((r) => r?.total) : [o.total];
      if (!totals.length || !totals.every((t) => Number.isSafeInteger(t))) {
        return bad(lead, lead + 1, 'the object has no "total" (a whole number)');
      }
      rolls.push([o.expression, totals]);
      lines.push({ line, number, at: -1 });
      continue;
    }
    const m = /^(.*\S)\s+(\S+)$/.exec(trimmed);
    if (!m) {
      return bad(lead, line.length, `a line is an expression and its total: no total after '${
        trimmed.slice(0, 40)}'`);
    }
    const total = wholeNumber(m[2]);
    const tstart = lead + trimmed.length - m[2].length;
    if (total === null) {
      return bad(tstart, lead + trimmed.length, `the total '${m[2].slice(0, 40)}' is not a whole number`);
    }
    rolls.push([m[1], [total]]);
    lines.push({ line, number, at: lead });
  }
  return { rolls, lines };
}

// Bytes of UTF-8 before string index i of s (a span in the module's bytes).
const bytesBefore = (s, i) => new TextEncoder().encode(s.slice(0, i)).length;

// An error shown under the panel: the message, and the line with a caret
// under [start, end) (bytes of the line) when there is a line.
function showError(message, line, start, end) {
  const box = $('fair-errors');
  const div = document.createElement('div');
  div.className = 'error';
  const p = document.createElement('p');
  p.className = 'message';
  p.textContent = message;
  div.append(p);
  if (line !== null) {
    const pre = document.createElement('pre');
    pre.className = 'caret';
    pre.textContent = `${line}\n${host.caretLine(line, start, end)}`;
    div.append(pre);
  }
  box.replaceChildren(div);
}

const VERDICTS = { fair: 'Fair', 'not fair': 'Not fair', 'too few': 'Too few rolls to say' };
const TEST_NAMES = { mean: 'mean: low or high?', ks: 'spread (Kolmogorov-Smirnov)' };
const num = (x, digits = 3) => (x === 0 ? '0' : x < 0.001 ? x.toExponential(1) : String(+x.toPrecision(digits)));

// The judgement: its verdict in words, and a row per test.
function showResult(f, what, seed) {
  const verdict = $('fair-verdict');
  verdict.replaceChildren();
  verdict.dataset.verdict = f.verdict;
  const strong = document.createElement('strong');
  strong.textContent = `${VERDICTS[f.verdict] ?? f.verdict}: `;
  verdict.append(strong, f.text, '.');
  $('fair-note').textContent = `${f.rolls} roll${f.rolls === 1 ? '' : 's'} ${what}, placed with seed ${
    seed}; a p-value below ${f.alpha} (adjusted for the tests run) says not fair.`;
  const table = $('fair-tests');
  table.replaceChildren();
  if (f.tests.length) {
    const cap = table.createCaption();
    cap.textContent = 'The tests run, with their p-values';
    const head = table.createTHead().insertRow();
    for (const h of ['test', 'statistic', 'rolls', 'p', 'adjusted p']) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = h;
      head.append(th);
    }
    const body = table.createTBody();
    for (const t of f.tests) {
      const row = body.insertRow();
      row.dataset.p = String(t.p); // the library's numbers, for the tests
      row.dataset.pAdjusted = String(t.p_adjusted);
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = t.name === 'chi-square'
        ? `chi-square of ${t.expression} (df ${t.df}${t.pooled ? `, pooled ${t.pooled}` : ''})`
        : t.name === 'mean' ? `${TEST_NAMES.mean} ${t.direction ?? 'even'}` : TEST_NAMES[t.name] ?? t.name;
      row.append(th);
      for (const v of [num(t.statistic, 4), String(t.rolls), num(t.p), num(t.p_adjusted)]) {
        row.insertCell().textContent = v;
      }
    }
  }
  $('fair-result').hidden = false;
}

// Judges rolls ([[expr, totals]]) in dialect; lines (parseLog's) place an
// error at its line of the log, else at its roll of the page.
async function judge(rolls, dialect, lines, what) {
  $('fair-errors').replaceChildren();
  $('fair-result').hidden = true;
  if (!rolls.length) {
    showError(lines ? 'no rolls to judge: paste lines such as "d20 17"' :
      'no rolls yet: roll something above first', null, 0, 0);
    return;
  }
  // a seed drawn here when none is given: the answer's JSON number would
  // lose the low bits of a 64-bit one, and the note says it exactly
  const given = $('fair-seed').value.trim();
  if (given && !(/^[0-9]{1,20}$/.test(given) && BigInt(given) < 1n << 64n)) {
    showError(`the seed '${given.slice(0, 40)}' is not a whole number from 0 to 2^64 - 1`, null, 0, 0);
    return;
  }
  const seed = given || drawSeed();
  $('fair-status').textContent = 'Judging...';
  const out = await host.run([{ op: 'fairness', rolls, seed }], host.deadline(), dialect);
  $('fair-status').textContent = '';
  const f = out.results?.[0];
  if (!f) {
    showError(out.cancelled ? 'cancelled' : out.timedOut ? 'stopped: the judgement took too long'
      : `the calculator stopped (${out.failed}); it has been restarted`, null, 0, 0);
    return;
  }
  if (f.error) {
    const e = f.error;
    const i = e.roll;
    if (lines && i !== undefined && lines[i]) {
      const { line, number, at } = lines[i];
      // the span is in the roll's expression: moved to its place in the line
      // (a JSON line: the whole line)
      const base = at >= 0 ? bytesBefore(line, at) : 0;
      const end = at >= 0 ? base + e.end : bytesBefore(line, line.length);
      showError(`line ${number}: ${e.line.replace(/^roll [0-9]+: /, '')}`, line, base + e.start,
        Math.max(end, base + e.start + 1));
    } else if (i !== undefined) {
      showError(`this page's roll ${i + 1}: ${e.line.replace(/^roll [0-9]+: /, '')}`, rolls[i][0],
        e.start, e.end);
    } else {
      showError(e.line, null, 0, 0);
    }
    return;
  }
  showResult(f, what, seed);
}

function drawSeed() {
  const w = crypto.getRandomValues(new Uint32Array(2));
  return String(BigInt(w[0]) << 32n | BigInt(w[1]));
}

// The panel's buttons. h: {run(calls, deadline, dialect) -> the worker's
// answer, deadline() ms, dialect() the notation chosen, caretLine(src,
// start, end)}.
export function setupFairness(h) {
  host = h;
  $('fair-judge').addEventListener('click', () => {
    const parsed = parseLog($('fair-log').value);
    if (parsed.error) {
      const { number, line, start, end, message } = parsed.error;
      $('fair-result').hidden = true;
      showError(`line ${number}: ${message}`, line, bytesBefore(line, start), bytesBefore(line, end));
      return;
    }
    judge(parsed.rolls, host.dialect(), parsed.lines, 'from the log');
  });
  $('fair-page').addEventListener('click', () => {
    // the rolls of the notation chosen now: another tool's expressions read
    // otherwise in it
    const dialect = host.dialect();
    const rolls = pageRolls.filter((r) => r.dialect === dialect).map((r) => [r.src, r.totals]);
    judge(rolls, dialect, null, 'rolled on this page');
  });
}
