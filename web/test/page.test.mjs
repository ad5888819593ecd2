// page.test.mjs -- the page (web/dist) in a real browser: Debian's Chromium,
// headless, driven by playwright-core, served from 127.0.0.1. The numbers
// the page shows must be those of `alea dist --json`, a seeded roll the
// breakdown of `alea roll --seed`, a bad expression its error with a caret
// as the command line prints it; a shared link restores the view; the page
// works offline and on a phone-sized screen; and it logs no console error.
// Screenshots of each view go to web/test/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { join, dirname, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const shots = join(here, 'screenshots');
const ALEA = process.env.ALEA ? join(process.cwd(), process.env.ALEA)
  : join(here, '..', '..', 'build', 'alea');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm' };

let server, base, browser, context;
const consoleErrors = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = join(dist, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dist) || !existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    // playwright gives the browser a new, empty profile of its own
  });
  context = await browser.newContext({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
});

after(async () => {
  await browser?.close();
  server?.close();
  assert.deepEqual(consoleErrors, [], 'the page logged errors');
});

async function open(hash = '', ctx = context) {
  const page = await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(base + hash);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

const cliJson = (expr) => {
  const r = spawnSync(ALEA, ['dist', '--json', '--', expr], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

// The probabilities the page's table holds (data-p), by column then value.
async function tableColumns(page) {
  return page.$$eval('#dist-table tbody tr:not(.summary)', (rows) => rows.map((tr) => ({
    value: Number(tr.cells[0].textContent),
    cells: [...tr.cells].slice(1).map((c) => (c.dataset.p === undefined ? null : Number(c.dataset.p))),
    shown: [...tr.cells].slice(1).map((c) => c.textContent),
  })));
}

const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b), 1e-300);

async function submit(page, text) {
  await page.fill('#exprs', text);
  await page.click('#show-dist');
}

test('the distribution of 4d6kh3 is the CLI\'s, and its chart is drawn', async () => {
  const page = await open();
  const rows = await tableColumns(page);
  const want = cliJson('4d6kh3');
  assert.equal(rows.length, want.outcomes.length);
  rows.forEach((r, i) => {
    assert.equal(r.value, want.outcomes[i][0]);
    assert.ok(close(r.cells[0], want.outcomes[i][1]), `${r.value}: ${r.cells[0]}`);
    assert.equal(r.shown[0], (want.outcomes[i][1] * 100).toFixed(2));
  });
  assert.ok(await page.$('#chart canvas'), 'no chart');
  const mean = await page.$eval('#dist-table tr.summary td', (td) => td.textContent);
  assert.equal(mean, want.mean.toFixed(2));
  await page.screenshot({ path: join(shots, 'dist-one.png'), fullPage: true });
  await page.close();
});

test('several expressions side by side, exactly, at least and at most', async () => {
  const page = await open();
  const exprs = ['d20', 'd20 +1d', 'd20 -1d'];
  await submit(page, exprs.join('\n'));
  const wants = exprs.map(cliJson);
  for (const mode of ['exact', 'atleast', 'atmost']) {
    await page.check(`input[name=mode][value=${mode}]`);
    const rows = await tableColumns(page);
    wants.forEach((w, k) => {
      const ps = w.outcomes.map(([, p]) => p);
      const col = mode === 'exact' ? ps
        : mode === 'atmost' ? ps.map((_, i) => ps.slice(0, i + 1).reduce((a, b) => a + b))
          : ps.map((_, i) => ps.slice(i).reduce((a, b) => a + b));
      w.outcomes.forEach(([v], i) => {
        const row = rows.find((r) => r.value === v);
        assert.ok(row && close(row.cells[k], col[i]), `${exprs[k]} ${mode} ${v}`);
      });
    });
    await page.screenshot({ path: join(shots, `dist-compare-${mode}.png`), fullPage: true });
  }
  assert.match(page.url(), /m=atmost/);
  await page.close();
});

test('a seeded roll shows the CLI\'s breakdowns, and how lucky each was', async () => {
  const page = await open();
  await page.fill('#exprs', '4d6kh3\n2d6 -1 DICE\nevent(3d4 + 3d6 + d18)');
  await page.fill('#roll-n', '3');
  await page.fill('#roll-seed', '7');
  await page.click('#show-roll');
  const shown = await page.$$eval('#rolls .breakdown', (s) => s.map((x) => x.textContent));
  const r = spawnSync(ALEA, ['roll', '--seed', '7', '-n', '3', '4d6kh3', '2d6 -1 DICE',
    'event(3d4 + 3d6 + d18)'], { encoding: 'utf8' });
  assert.deepEqual(shown, r.stdout.trimEnd().split('\n'));
  const luck = await page.$$eval('#rolls .luck', (s) => s.map((x) => x.textContent));
  assert.equal(luck.length, 9);
  assert.match(luck[0], /^this total or less: \d+\.\d\d%, this or more: \d+\.\d\d%$/);
  await page.screenshot({ path: join(shots, 'roll.png'), fullPage: true });
  // the link holds the seed: the same rolls again
  const again = await open(new URL(page.url()).hash);
  assert.deepEqual(await again.$$eval('#rolls .breakdown', (s) => s.map((x) => x.textContent)),
    shown);
  await again.close();
  await page.close();
});

test('a bad expression shows the CLI\'s error and a caret under it', async () => {
  const page = await open();
  await submit(page, '2d+3\n1d20 + 5\n1d6/(1d2-1)');
  const errors = await page.$$eval('#errors .error', (d) => d.map((e) => ({
    message: e.querySelector('.message').textContent,
    caret: e.querySelector('pre').textContent,
  })));
  assert.equal(errors.length, 2);
  for (const [i, expr] of [[0, '2d+3'], [1, '1d6/(1d2-1)']]) {
    const r = spawnSync(ALEA, ['dist', '--', expr], { encoding: 'utf8' });
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(errors[i].message, lines[0].replace(/^alea: /, ''));
    assert.deepEqual(errors[i].caret.split('\n'), lines.slice(1).map((l) => l.slice(2)));
  }
  // the good line is still computed
  assert.equal((await tableColumns(page)).length, 20);
  await page.screenshot({ path: join(shots, 'error.png'), fullPage: true });
  await page.close();
});

test('a shared link restores the view', async () => {
  const page = await open();
  await submit(page, 'dd(6, 14)\ndd(6, 14, best)');
  await page.check('input[name=mode][value=atleast]');
  const before = await tableColumns(page);
  const again = await open(new URL(page.url()).hash);
  assert.equal(await again.inputValue('#exprs'), 'dd(6, 14)\ndd(6, 14, best)');
  assert.equal(await again.isChecked('input[name=mode][value=atleast]'), true);
  assert.deepEqual(await tableColumns(again), before);
  await again.close();
  await page.close();
});

test('examples load with one click; dd() tiers are named', async () => {
  const page = await open();
  await page.click('text=Double Down policies (seed 002)');
  const head = await page.$$eval('#dist-table thead th', (t) => t.map((x) => x.textContent));
  assert.deepEqual(head, ['value', 'dd(6, 14)', 'dd(6, 14, always)', 'dd(6, 14, onfail)',
    'dd(6, 14, best)']);
  await page.click('text=Exploding critical pool (seed 001)');
  const rows = await page.$$eval('#dist-table tr.summary th', (t) => t.map((x) => x.textContent));
  assert.ok(rows.includes('critical failure %') && rows.includes('truncated'), rows.join());
  await page.click('text=Dice tier ladder (seed 001)');
  assert.equal((await tableColumns(page)).length > 0, true);
  await page.screenshot({ path: join(shots, 'examples.png'), fullPage: true });
  await page.close();
});

test('the table downloads as CSV', async () => {
  const page = await open();
  await submit(page, '2d6\n1d12');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
  const text = readFileSync(await download.path(), 'utf8').trimEnd().split('\n');
  assert.equal(text[0], 'value,"2d6","1d12"');
  const want = cliJson('2d6');
  const seven = text.find((l) => l.startsWith('7,')).split(',');
  assert.ok(close(Number(seven[1]), want.outcomes.find(([v]) => v === 7)[1]));
  await page.close();
});

test('it works offline once loaded', async () => {
  const page = await open();
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await context.setOffline(true);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await submit(page, '3d6');
  assert.equal((await tableColumns(page)).length, 16);
  await context.setOffline(false);
  await page.close();
});

test('a phone-sized screen: one column, nothing wider than the screen', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await open('#e=2d20kh1%0A1d20%2B5&v=dist&m=exact', phone);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > innerWidth + 1);
  assert.equal(wide, false);
  await page.screenshot({ path: join(shots, 'phone.png'), fullPage: true });
  // keyboard: Ctrl+Enter in the box computes
  await page.fill('#exprs', '3d6');
  await page.focus('#exprs');
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => document.querySelectorAll('#dist-table tbody tr').length > 16);
  await phone.close();
});
