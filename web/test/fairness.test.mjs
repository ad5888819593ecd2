// fairness.test.mjs -- the page's Fairness panel (web/fairness.js) in
// Chromium, as page.test.mjs drives the page: a pasted log judged as `alea
// fairness --json --seed S` judges it (the same verdict and p-values), a
// biased log found not fair, an error shown at its line with a caret, the
// page's own rolls judged, and axe finding nothing at desktop and phone
// sizes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { join, dirname, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { axe } from './axe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const ALEA = process.env.ALEA ? join(process.cwd(), process.env.ALEA)
  : join(here, '..', '..', 'build', 'alea');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.md': 'text/markdown; charset=utf-8' };

let server, base, browser;
const consoleErrors = [];

before(async () => {
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = join(dist, path === '/' ? 'index.html' : path);
    const ok = file.startsWith(dist) && existsSync(file);
    res.writeHead(ok ? 200 : 404, ok ? { 'content-type': TYPES[extname(file)] || 'application/octet-stream' } : {});
    res.end(ok ? readFileSync(file) : undefined);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
});

after(async () => {
  await browser?.close();
  server?.close();
  assert.deepEqual(consoleErrors, [], 'the page logged errors');
});

const sizes = { desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true } };

async function open(size = 'desktop') {
  const ctx = await browser.newContext(sizes[size]);
  const page = await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(base);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && !document.body.dataset.busy);
  return page;
}

// Pastes log, judges it with seed, and waits for the verdict or an error.
async function judge(page, log, seed = '') {
  // as a paste: playwright's fill types a long log slowly (25 s for 1900 lines)
  await page.$eval('#fair-log', (el, text) => {
    el.value = text;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, log);
  await page.fill('#fair-seed', seed);
  await page.click('#fair-judge');
  await page.waitForFunction(() => !document.getElementById('fair-result').hidden
    || document.querySelector('#fair-errors .error'));
}

// What the panel shows: the verdict's word, its text, each test's p-values.
const shown = (page) => page.evaluate(() => ({
  verdict: document.getElementById('fair-verdict').dataset.verdict,
  text: document.getElementById('fair-verdict').textContent,
  tests: [...document.querySelectorAll('#fair-tests tbody tr')].map((tr) =>
    [Number(tr.dataset.p), Number(tr.dataset.pAdjusted)]),
}));

const cli = (log, seed) => {
  const r = spawnSync(ALEA, ['fairness', '--json', '--seed', seed], { input: log, encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 3, r.stderr);
  return JSON.parse(r.stdout);
};

test('a pasted log: the verdict and p-values of `alea fairness --json --seed`', async () => {
  // roll --json lines and EXPR TOTAL lines, as the command line reads them
  const json = spawnSync(ALEA, ['roll', '--json', '-n', '150', '--seed', '7', 'd20'], { encoding: 'utf8' }).stdout;
  const repeat = spawnSync(ALEA, ['roll', '--json', '-n', '20', '--seed', '8', '3 x 4d6kh3'], { encoding: 'utf8' }).stdout;
  const text = spawnSync(ALEA, ['roll', '-n', '200', '--seed', '9', '3d6'], { encoding: 'utf8' }).stdout
    .trimEnd().split('\n').map((l) => `3d6 ${/= (-?\d+)$/.exec(l)[1]}`).join('\n');
  const log = `# a session's log\n${json}${repeat}\n${text}\n`;
  const page = await open();
  for (const seed of ['5', '18446744073709551615']) {
    await judge(page, log, seed);
    const want = cli(log, seed);
    const got = await shown(page);
    assert.equal(got.verdict, want.verdict);
    assert.equal(got.text, `Fair: ${want.text}.`);
    assert.deepEqual(got.tests, want.tests.map((t) => [t.p, t.p_adjusted]));
    assert.match(await page.textContent('#fair-note'), new RegExp(`^${want.rolls} rolls from the log, placed with seed ${seed};`));
  }
  await page.close();
});

test('a d20 that never shows 20: not fair, lower than fair dice give', async () => {
  const log = Array.from({ length: 1900 }, (_, i) => `d20 ${1 + (i % 19)}`).join('\n');
  const page = await open();
  await judge(page, log, '1');
  const got = await shown(page);
  const want = cli(log, '1');
  assert.equal(got.verdict, 'not fair');
  assert.equal(got.text, `Not fair: ${want.text}.`);
  assert.match(got.text, /lower than fair dice give/);
  assert.deepEqual(got.tests, want.tests.map((t) => [t.p, t.p_adjusted]));
  await page.close();
});

test('an error is shown at its line, with a caret under the problem', async () => {
  const page = await open();
  const error = async () => page.evaluate(() => [document.querySelector('#fair-errors .message').textContent,
    document.querySelector('#fair-errors pre.caret').textContent]);
  // the library's refusal, its span moved to its place in the line
  await judge(page, 'd20 3\n\n  d20 21\nd20 4\n');
  assert.deepEqual(await error(), ["line 3: undefined result: 'd20' cannot total 21 (its totals run from 1 to 20)",
    '  d20 21\n  ^^^']);
  assert.equal(await page.isHidden('#fair-result'), true);
  await judge(page, 'd20 3\n2d6 + 7\n');
  // as `alea fairness` says it: "line 2, byte 6: syntax error: ... at byte 5 ..."
  assert.deepEqual(await error(), ["line 2: syntax error: expected a number, a die or '(' at byte 5, found the end of the expression",
    '2d6 + 7\n     ^']);
  // a line the page cannot read
  await judge(page, 'd20 3\nd20 x\n');
  assert.deepEqual(await error(), ["line 2: the total 'x' is not a whole number", 'd20 x\n    ^']);
  await judge(page, 'd20 3\n{"expression": "d20"}\n');
  assert.deepEqual(await error(), ['line 2: the object has no "total" (a whole number)',
    '{"expression": "d20"}\n^']);
  await judge(page, 'd20 3\n', '18446744073709551616');
  assert.equal(await page.textContent('#fair-errors .message'),
    "the seed '18446744073709551616' is not a whole number from 0 to 2^64 - 1");
  await judge(page, '# nothing\n');
  assert.match(await page.textContent('#fair-errors .message'), /^no rolls to judge/);
  // the next judgement clears it
  await judge(page, 'd20 3\n');
  assert.equal(await page.$('#fair-errors .error'), null);
  assert.equal((await shown(page)).verdict, 'too few');
  await page.close();
});

test('the page\'s own rolls this session are judged', async () => {
  const page = await open();
  await page.fill('#exprs', 'd20\nsix: 6 x d6');
  await page.fill('#roll-n', '40');
  await page.fill('#roll-seed', '7');
  await page.click('#show-roll');
  await page.waitForFunction(() => document.querySelectorAll('#rolls li').length >= 40);
  await page.waitForFunction(() => /\(280\)$/.test(document.getElementById('fair-page').textContent));
  await page.fill('#fair-seed', '3');
  await page.click('#fair-page');
  await page.waitForFunction(() => !document.getElementById('fair-result').hidden);
  assert.match(await page.textContent('#fair-note'), /^280 rolls rolled on this page, placed with seed 3;/);
  // the same rolls as a log: the same judgement
  const log = spawnSync(ALEA, ['roll', '--json', '-n', '40', '--seed', '7', 'd20', '6 x d6'], { encoding: 'utf8' }).stdout;
  const want = cli(log, '3');
  assert.deepEqual((await shown(page)).tests, want.tests.map((t) => [t.p, t.p_adjusted]));
  await page.close();
});

test('accessible: axe finds nothing in the panel at desktop and phone sizes', async () => {
  for (const size of ['desktop', 'phone']) {
    const page = await open(size);
    await judge(page, Array.from({ length: 200 }, (_, i) => `d20 ${1 + (i % 19)}`).join('\n'), '1');
    await axe(page, `${size}, a verdict`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
    assert.equal(wide, false, `${size}: wider than the screen`);
    await judge(page, 'd20 3\nd20 21\n');
    await axe(page, `${size}, an error`);
    await page.close();
  }
});
