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
import { mkdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { axe } from './axe.mjs';
import { serveDir, launchChromium } from './serve.mjs';
import { hostileCases } from './hostile.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const shots = join(here, 'screenshots');
const ALEA = process.env.ALEA ? join(process.cwd(), process.env.ALEA)
  : join(here, '..', '..', 'build', 'alea');

let server, base, browser, context;
const consoleErrors = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  ({ server, base } = await serveDir(dist));
  browser = await launchChromium();
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
  await settled(page);
  return page;
}

const cliJson = (expr) => {
  const r = spawnSync(ALEA, ['dist', '--json', '--', expr], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

// Every row of the distribution table, as a visitor reaches them: the
// page builds a screen of rows, the others as they scroll into view, or at
// once on "Show all N rows" (pressed here when the table has more).
async function allRows(page) {
  if (await page.isVisible('#rows-rest')) await page.click('#rows-rest');
  assert.equal(await page.isVisible('#rows-rest'), false);
}

// The probabilities the page's table holds (data-p), by column then value.
async function tableColumns(page) {
  await allRows(page);
  return page.$$eval('#dist-table tbody tr', (rows) => rows.map((tr) => ({
    value: Number(tr.cells[0].textContent),
    cells: [...tr.cells].slice(1).map((c) => (c.dataset.p === undefined ? null : Number(c.dataset.p))),
    shown: [...tr.cells].slice(1).map((c) => c.textContent),
  })));
}

// The summary above the chart: {row name: [a cell per expression]}.
async function summary(page) {
  return Object.fromEntries(await page.$$eval('#summary tbody tr', (rows) => rows.map((tr) =>
    [tr.cells[0].textContent, [...tr.cells].slice(1).map((c) => c.textContent)])));
}

const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b), 1e-300);

// Waits for the page's update (computed in its worker) to be shown.
async function settled(page) {
  // the table is built after the chart shows (data-drawing until then)
  await page.waitForFunction(() => document.body.dataset.ready === '1' && !document.body.dataset.busy
    && !document.body.dataset.drawing);
}

// Rolls the expressions (one a line) n times from the seed ('' for none).
async function rollIn(page, text, n, seed) {
  await page.fill('#exprs', text);
  await page.fill('#roll-n', String(n));
  await page.fill('#roll-seed', seed);
  await page.click('#show-roll');
  await settled(page);
}

const link = (params) => '#' + new URLSearchParams(params).toString();

// The lines of the CSV the page downloads (its trailing newline dropped).
async function csvLines(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
  return readFileSync(await download.path(), 'utf8').trimEnd().split('\n');
}

async function submit(page, text) {
  await page.fill('#exprs', text);
  await page.click('#show-dist');
  await settled(page);
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
  // the summary, above the chart, is the command line's
  const text = spawnSync(ALEA, ['dist', '4d6kh3'], { encoding: 'utf8' }).stdout;
  const [, mean, sd, min, max, median] = text.match(
    /mean (\S+)\s+sd (\S+)\s+min (\S+)\s+max (\S+)\s+median (\S+)/);
  assert.deepEqual(await summary(page), { mean: [mean], sd: [sd], min: [min], max: [max],
    median: [median] });
  assert.ok(await page.$eval('#summary', (t) => t.compareDocumentPosition(
    document.getElementById('chart')) & Node.DOCUMENT_POSITION_FOLLOWING), 'the summary is not above');
  await page.screenshot({ path: join(shots, 'dist-one.png'), fullPage: true });
  await page.close();
});

// Every die size 1 to 100 and sums of them, ten to a view: the summary's
// median and the CSV's chance of at least each value are the command
// line's (the page once summed its own: 1d20's median showed 11, its CSV's
// at least 1 was 1.0000000000000002).
test('every die size 1..100 and their sums: the median and at least are the CLI\'s', async () => {
  const cases = Array.from({ length: 100 }, (_, k) => k + 1)
    .flatMap((n) => [`1d${n}`, `2d${n}`, `1d${n}+1d${101 - n}`, `1d${n}+5`]);
  const page = await open(link({ e: '1d20\n1d20+5\n1d12', v: 'dist', m: 'atleast' }));
  assert.deepEqual((await summary(page)).median, ['10', '15', '6']);
  for (let k = 0; k < cases.length; k += 10) {
    const batch = cases.slice(k, k + 10);
    await submit(page, batch.join('\n'));
    const medians = batch.map((src) => spawnSync(ALEA, ['dist', '--', src], { encoding: 'utf8' })
      .stdout.match(/median (-?\d+)/)[1]);
    assert.deepEqual((await summary(page)).median, medians, batch.join(' '));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
    const csv = new Map(readFileSync(await download.path(), 'utf8').trimEnd().split('\n').slice(1)
      .map((l) => l.split(',')).map(([v, ...cells]) => [Number(v), cells]));
    batch.forEach((src, j) => {
      const rows = spawnSync(ALEA, ['dist', '--csv', '--', src], { encoding: 'utf8' }).stdout
        .trimEnd().split('\n').slice(1).map((l) => l.split(','));
      for (const [v, , least] of rows)
        assert.equal(Number(csv.get(Number(v))[j]), Number(least), `${src}: at least ${v}`);
    });
  }
  await page.close();
});

test('several expressions side by side, exactly, at least and at most', async () => {
  const page = await open();
  const exprs = ['d20', 'd20 +1d', 'd20 -1d'];
  await submit(page, exprs.join('\n'));
  const wants = exprs.map(cliJson);
  for (const mode of ['exact', 'atleast', 'atmost']) {
    await page.check(`input[name=mode][value=${mode}]`);
    await settled(page);
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

// The page's distances between the lines: {label: [texts], values: [numbers]} a row.
async function versusRows(page) {
  return page.$$eval('#versus-table tbody tr', (rows) => rows.map((tr) => ({
    label: tr.cells[0].textContent,
    texts: [...tr.cells].slice(1).map((c) => c.textContent),
    values: [...tr.cells].slice(1).map((c) => Number(c.dataset.value)),
  })));
}

test('compared lines: the distances under the chart are `alea compare`\'s, each against the first', async () => {
  const keys = ['p_greater', 'p_equal', 'p_less', 'tv', 'ks', 'emd'];
  for (const [size, ctx] of await sizes()) {
    const page = await open('', ctx);
    await submit(page, 'd20\nadvantage: 2d20kh1\nd20+5');
    const want = JSON.parse(spawnSync(ALEA, ['compare', '--json', 'd20', 'advantage=2d20kh1', 'd20+5'],
      { encoding: 'utf8' }).stdout).versus;
    const text = spawnSync(ALEA, ['compare', 'd20', 'advantage=2d20kh1', 'd20+5'], { encoding: 'utf8' })
      .stdout.trimEnd().split('\n');
    const printed = text.slice(text.findIndex((l) => /^A vs B/.test(l)) + 1);
    const rows = await versusRows(page);
    assert.deepEqual(rows.map((r) => r.label), ['d20 vs advantage', 'd20 vs d20+5'], size);
    rows.forEach((r, i) => {
      assert.deepEqual([want[i].a, want[i].b], [0, i + 1]);
      keys.forEach((k, j) => assert.ok(close(r.values[j], want[i][k]), `${size} ${r.label} ${k}`));
      // the texts as the command line prints them, percentages for the chances
      assert.deepEqual(r.texts, printed[i].slice(r.label.length).trim().split(/\s+/), size);
    });
    assert.deepEqual(await page.$$eval('#versus-table thead th', (h) => h.map((c) => c.textContent)),
      ['A vs B', 'A > B', 'A = B', 'A < B', 'TV', 'KS', 'EMD']);
    assert.match(await page.textContent('#versus-table caption'), /^Distances between the lines, each against the first/);
    assert.match(await page.textContent('#versus p'), /^Each line against the first/);
    // under the chart, above the distribution's table
    assert.ok(await page.$eval('#versus', (v) => v.compareDocumentPosition(document.getElementById('chart'))
      & Node.DOCUMENT_POSITION_PRECEDING));
    assert.ok(await page.$eval('#versus', (v) => v.compareDocumentPosition(document.getElementById('dist-table'))
      & Node.DOCUMENT_POSITION_FOLLOWING));
    assert.equal(await overflows(page), false, size);
    await axe(page, `${size}, the distances between lines`);
    await page.screenshot({ path: join(shots, `versus-${size}.png`), fullPage: true });
    // one line: no distances; a line in error: the others are shown, and a note says why none
    await submit(page, '3d6');
    assert.equal(await page.isHidden('#versus'), true);
    assert.equal(await page.isHidden('#versus-note'), true);
    await submit(page, '3d6\n3d6 +');
    assert.equal(await page.isHidden('#versus'), true);
    assert.match(await page.textContent('#versus-note'), /need the exact distribution of each/);
    assert.equal((await tableColumns(page)).length, 16, 'the line computed is shown');
    await axe(page, `${size}, a line in error among compared lines`);
    // the link brings the distances back
    await submit(page, 'd2\nd3\nd4');
    const again = await open(new URL(page.url()).hash, ctx);
    assert.deepEqual((await versusRows(again)).map((r) => r.texts),
      [['16.67%', '33.33%', '50.00%', '0.333', '0.333', '0.50'],
        ['12.50%', '25.00%', '62.50%', '0.500', '0.500', '1.00']]);
    await again.close();
    await ctx.close();
  }
});

// The policy table under the chart: its head, and a row a situation.
async function policyRows(page) {
  return page.$$eval('#policy-table tbody tr', (rows) => rows.map((tr) => ({
    seen: tr.cells[0].textContent,
    choice: tr.querySelector('td.choice')?.textContent ?? null,
    span: tr.querySelector('td.choice')?.rowSpan ?? 0,
    texts: [...tr.querySelectorAll('td:not(.choice)')].map((c) => c.textContent),
    values: [...tr.querySelectorAll('td:not(.choice)')].map((c) => Number(c.dataset.value)),
  })));
}

test('a line with a choice: the player\'s choices under the chart are `alea policy`\'s', async () => {
  const cli = (...args) => spawnSync(ALEA, ['policy', ...args], { encoding: 'utf8' }).stdout;
  for (const [size, ctx] of await sizes()) {
    const page = await open('', ctx);
    for (const src of ['dd(3, 14, best)', 'dd(6, 14, always)']) {
      await submit(page, src);
      const want = JSON.parse(cli('--json', src));
      // the text as the command line prints it: a line a situation, the
      // choice named once for the rows in a row that share it
      const printed = cli(src).trimEnd().split('\n');
      const lines = printed.slice(printed.findIndex((l) => /^seen/.test(l)) + 1);
      const rows = await policyRows(page);
      assert.equal(await page.isVisible('#policy'), true, `${size} ${src}`);
      assert.deepEqual(rows.map((r) => r.seen), want.rows.map((r) => r.seen), size);
      let named = null;
      rows.forEach((r, i) => {
        const w = want.rows[i];
        if (r.choice !== null) {
          named = r.choice;
          // the cell spans the run of rows that share its choice
          let k = i;
          while (k < want.rows.length && want.rows[k].choice === w.choice) k++;
          assert.equal(r.span, k - i, `${size} ${src} ${w.seen}`);
        }
        assert.equal(named, w.choice, `${size} ${src} ${w.seen}`);
        assert.equal(r.choice !== null, lines[i].slice(w.seen.length).trim().startsWith(w.choice + ' '));
        assert.deepEqual(r.values, [w.chance, w.value, w.plain], `${size} ${src} ${w.seen}`);
        assert.deepEqual(r.texts, lines[i].trim().split(/\s+/).slice(-3), `${size} ${src} ${w.seen}`);
      });
      assert.deepEqual(await page.$$eval('#policy-table thead th', (h) => h.map((c) => c.textContent)),
        ['Seen', 'Choice', 'How often', want.probability ? 'Chance' : 'Mean', 'As it stands']);
      assert.match(await page.textContent('#policy-table caption'), new RegExp(`^The choice in each situation, for ${
        want.goal.replace(/[().]/g, '\\$&')}`));
      // the values as the command line prints them above its table
      const [v, best] = printed[1].match(/[^ ]+(?=;|$)/g);
      assert.equal(await page.textContent('#policy-goal'), `For ${want.goal}: ` + (want.value === want.optimum
        ? `${v} with the best choices.` : `${v} with these choices, ${best} with the best.`));
      // under the chart, above the distribution's table
      assert.ok(await page.$eval('#policy', (v) => v.compareDocumentPosition(document.getElementById('chart'))
        & Node.DOCUMENT_POSITION_PRECEDING));
      assert.ok(await page.$eval('#policy', (v) => v.compareDocumentPosition(document.getElementById('dist-table'))
        & Node.DOCUMENT_POSITION_FOLLOWING));
      assert.equal(await overflows(page), false, `${size} ${src}`);
      await axe(page, `${size}, the player's choices of ${src}`);
    }
    await page.screenshot({ path: join(shots, `policy-${size}.png`), fullPage: true });
    // the table's box stays within the screen and scrolls itself (a long
    // policy scrolls in its box, never the page)
    assert.deepEqual(await page.$eval('#policy .table-wrap', (w) => [getComputedStyle(w).overflowX,
      getComputedStyle(w).overflowY, w.getBoundingClientRect().right <= window.visualViewport.width]),
    ['auto', 'auto', true], size);
    // no choice: nothing; several lines: the distances, no choices; the link brings it back
    for (const text of ['3d6', '2d20kh1 + 5', 'dd(3, 14, best)\nd20']) {
      await submit(page, text);
      assert.equal(await page.isHidden('#policy'), true, `${size} ${text}`);
      assert.equal(await page.isHidden('#policy-note'), true, `${size} ${text}`);
    }
    await submit(page, 'chance: dd(3, 14, best)');
    assert.equal((await policyRows(page)).length, 4, `${size}: a named line`);
    const again = await open(new URL(page.url()).hash, ctx);
    assert.equal((await policyRows(again)).length, 4, `${size}: the link`);
    await again.close();
    await ctx.close();
  }
});

test('a seeded roll shows the CLI\'s breakdowns, and how lucky each was', async () => {
  const page = await open();
  await page.fill('#exprs', '4d6kh3\n2d6 -1 DICE\nevent(3d4 + 3d6 + d18)');
  await page.fill('#roll-n', '3');
  await page.fill('#roll-seed', '7');
  await page.click('#show-roll');
  await settled(page);
  const shown = await page.$$eval('#rolls .breakdown', (s) => s.map((x) => x.textContent));
  const r = spawnSync(ALEA, ['roll', '--seed', '7', '-n', '3', '4d6kh3', '2d6 -1 DICE',
    'event(3d4 + 3d6 + d18)'], { encoding: 'utf8' });
  assert.deepEqual(shown, r.stdout.trimEnd().split('\n'));
  // the luck is the library's, as `alea roll --luck` prints it and
  // `alea roll --luck --json` gives it, digit for digit
  const exprs = ['4d6kh3', '2d6 -1 DICE', 'event(3d4 + 3d6 + d18)'];
  await sameLuck(page, exprs, 3, '7');
  await page.screenshot({ path: join(shots, 'roll.png'), fullPage: true });
  // the link holds the seed: the same rolls again
  const again = await open(new URL(page.url()).hash);
  assert.deepEqual(await again.$$eval('#rolls .breakdown', (s) => s.map((x) => x.textContent)),
    shown);
  await again.close();
  await page.close();
});

// The page's luck lines are `alea roll --luck`'s (its text after each
// breakdown), and their numbers (data-at-most, data-at-least) its JSON's.
async function sameLuck(page, exprs, n, seed) {
  const luck = await page.$$eval('#rolls .luck', (s) => s.map((x) => ({ text: x.textContent,
    most: x.dataset.atMost, least: x.dataset.atLeast })));
  const cli = (json) => spawnSync(ALEA, ['roll', '--luck', ...(json ? ['--json'] : []), '--seed', seed,
    '-n', String(n), ...exprs], { encoding: 'utf8' }).stdout.trimEnd().split('\n');
  const text = cli(false).map((l) => /\(luck: (.*)\)$/.exec(l)[1]);
  const json = cli(true).flatMap((l) => [JSON.parse(l).luck].flat());
  assert.equal(luck.length, text.length);
  assert.deepEqual(luck.map((l) => l.text), text.map((t) => `luck: ${t}`));
  assert.deepEqual(luck.map((l) => [Number(l.most), Number(l.least)]),
    json.map((l) => [l.at_most, l.at_least]));
  return luck;
}

test('the luck of a seeded roll is the library\'s: a repeat, the far tails, a refusal', async () => {
  for (const [size, ctx] of [['desktop', context], ['phone', await phoneContext()]]) {
    const page = await open('', ctx);
    // a repeat: a luck a roll; a 0 of (3d100) >= 300 is at most
    // ">99.9%" and at least "100%"; an explosion's long tail
    const exprs = ['3 x 3d6', '(3d100) >= 300', 'd20 + 5', '10d10!'];
    await rollIn(page, exprs.join('\n'), 7, '11');
    const luck = await sameLuck(page, exprs, 7, '11');
    assert.equal(luck.length, 7 * 3 + 7 * 3);
    assert.equal(luck[21].text, 'luck: P(<= 0) >99.9%, P(>= 0) 100%');
    await axe(page, `${size}, the rolls' luck`);
    // past the exact engine's limits: the rolls, and why there is no luck
    await rollIn(page, '200d1000', 2, '5');
    assert.equal(await page.$$eval('#rolls li', (l) => l.length), 2);
    assert.deepEqual(await page.$$eval('#rolls .luck', (s) => s.map((x) => x.textContent)),
      ['no luck: its distribution was refused: too many outcomes to compute at byte 0 (support limit is 100000)']);
    await page.close();
    if (ctx !== context) await ctx.close();
  }
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
    // the error and its caret lines (a hint about other tools' readings aside)
    const lines = r.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('alea: hint: '));
    assert.equal(errors[i].message, lines[0].replace(/^alea: /, ''));
    assert.deepEqual(errors[i].caret.split('\n'), lines.slice(1).map((l) => l.slice(2)));
  }
  // the good line is still computed
  assert.equal((await tableColumns(page)).length, 20);
  await page.screenshot({ path: join(shots, 'error.png'), fullPage: true });
  await page.close();
});

test('the notation selector: Roll20 reads 3d6>3 as 3 or more, and the link keeps it', async () => {
  const page = await open(link({ e: '3d6>3', v: 'dist', dl: 'roll20' }));
  assert.equal(await page.inputValue('#dialect'), 'roll20');
  assert.deepEqual((await summary(page)).mean, ['2.00']);
  await page.selectOption('#dialect', 'alea');
  await page.click('#show-dist');
  await settled(page);
  assert.deepEqual((await summary(page)).mean, ['1.50']);
  assert.doesNotMatch(page.url(), /dl=/);
  await page.close();
});

test('a spelling another tool reads otherwise gets a note; a roll copies as Markdown', async () => {
  const page = await open();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.fill('#exprs', '3d6>3\n4d6kh3');
  await page.fill('#roll-seed', '1');
  await page.click('#show-roll');
  await settled(page);
  const notes = await page.$$eval('#hints li', (l) => l.map((x) => x.textContent));
  const r = spawnSync(ALEA, ['roll', '--seed', '1', '3d6>3'], { encoding: 'utf8' });
  assert.deepEqual(notes, [`Note on 3d6>3: ${r.stderr.trim().replace(/^alea: hint: /, '')}`]);
  await page.click('#rolls li:nth-child(2) button.copy-md');
  await page.waitForFunction(() => document.getElementById('notice').textContent !== '');
  assert.equal(await page.textContent('#notice'), 'Copied for chat.');
  const md = spawnSync(ALEA, ['roll', '--format', 'markdown', '--seed', '1', '3d6>3', '4d6kh3'],
    { encoding: 'utf8' }).stdout.trimEnd().split('\n')[1];
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), md);
  // a clean expression has no note
  await page.fill('#exprs', '4d6kh3');
  await page.click('#show-dist');
  await settled(page);
  assert.equal(await page.$$eval('#hints li', (l) => l.length), 0);
  await page.close();
});

test('a shared link restores the view', async () => {
  const page = await open();
  await submit(page, 'dd(6, 14)\ndd(6, 14, best)');
  await page.check('input[name=mode][value=atleast]');
  await settled(page);
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
  await page.click('#example-buttons button:has-text("Double Down policies")');
  await settled(page);
  const head = await page.$$eval('#dist-table thead th', (t) => t.map((x) => x.textContent));
  assert.deepEqual(head, ['value', 'outcome', 'dd(6, 14)', 'dd(6, 14, always)', 'dd(6, 14, onfail)',
    'dd(6, 14, best)']);
  await page.click('#example-buttons button:has-text("Exploding critical pool")');
  await settled(page);
  const notes = await summary(page);
  // the mechanic's note, as `alea dist` prints it: critical failure 0.10%
  const cli = spawnSync(ALEA, ['dist', 'event(d12 + d14 + d18 + d20)'], { encoding: 'utf8' }).stdout;
  assert.deepEqual(notes['critical failure %'], [cli.match(/critical failure ([\d.]+)%/)[1]]);
  assert.deepEqual(notes.truncated, ['3.9e-14']);
  await page.click('#example-buttons button:has-text("Dice tier ladder")');
  await settled(page);
  assert.equal((await tableColumns(page)).length > 0, true);
  await page.screenshot({ path: join(shots, 'examples.png'), fullPage: true });
  await page.close();
});

const ROGUE = 'let a = d20, b = d20 in (a >= 8) * (d4 + 4 + (a = 20) * d4 + 3d6 + (a = 20) * 3d6)'
  + ' + (b >= 8) * (d4 + 4 + (b = 20) * d4) + (a < 8 and b >= 8) * (3d6 + (b = 20) * 3d6)';

test('let, if, sum: the examples are the CLI\'s distributions', async () => {
  const page = await open();
  for (const [label, exprs] of [['Two attacks, Sneak Attack on the first hit', [ROGUE]],
    ['At least one critical (18+) in 8 attacks', ['sum(8, (d20) >= 18) >= 1']],
    ['Damage only on a hit', ['if(d20 + 5 >= 15, d8 + 3, 0)', 'if(d20 + 8 >= 15, d8 + 3, 0)']]]) {
    await page.click(`#example-buttons button:has-text("${label}")`);
    await settled(page);
    assert.equal(await page.inputValue('#exprs'), exprs.join('\n'));
    // every row, the negligible tails too (the toggle stays on)
    if (await page.isVisible('#all-rows') && await page.getAttribute('#all-rows', 'aria-pressed') === 'false')
      await page.click('#all-rows');
    const rows = await tableColumns(page);
    exprs.forEach((expr, i) => {
      const want = cliJson(expr).outcomes;
      const got = rows.filter((r) => r.cells[i] !== null && r.cells[i] > 0);
      assert.deepEqual(got.map((r) => r.value), want.map(([v]) => v), `${label}: ${expr}`);
      got.forEach((r, k) => assert.ok(close(r.cells[i], want[k][1]), `${expr} at ${r.value}`));
    });
  }
  // nothing dealt when both attacks miss: (7/20)^2
  await page.click('#example-buttons button:has-text("Two attacks")');
  await settled(page);
  assert.ok(close((await tableColumns(page))[0].cells[0], 49 / 400));
  await page.close();
});

test('an unknown name inside a let: the CLI\'s error, its scope, the caret under the name', async () => {
  for (const ctx of [context, await phoneContext()]) {
    const page = await open('', ctx);
    const expr = `${ROGUE} + c`;
    await submit(page, `let a = d20 in a + b\n${expr}`);
    const errors = await page.$$eval('#errors .error', (d) => d.map((e) => ({
      message: e.querySelector('.message').textContent,
      caret: e.querySelector('pre').textContent,
    })));
    assert.equal(errors.length, 2);
    for (const [i, src] of [[0, 'let a = d20 in a + b'], [1, expr]]) {
      const r = spawnSync(ALEA, ['dist', '--', src], { encoding: 'utf8' });
      const lines = r.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('alea: hint: '));
      assert.equal(errors[i].message, lines[0].replace(/^alea: /, ''));
      assert.match(errors[i].message, /^syntax error: unknown name '[bc]' at byte \d+ \(in scope: /);
      const [line, caret] = errors[i].caret.split('\n');
      assert.equal(line, src);
      assert.equal(caret, ' '.repeat(src.length - 1) + '^');
    }
    if (ctx !== context) {
      // on a phone the long expression scrolls in its box, the page does not,
      // and the caret under the far name is in view
      assert.equal(await overflows(page), false);
      const [left, right, at] = await page.$$eval('#errors pre.caret', (ps) => {
        const p = ps[1], caret = p.textContent.split('\n')[1];
        const col = p.scrollWidth / caret.length;
        return [p.scrollLeft, p.scrollLeft + p.clientWidth, caret.indexOf('^') * col];
      });
      assert.ok(left > 0 && at >= left && at < right, `${left} ${right} ${at}`);
      await page.screenshot({ path: join(shots, 'phone-let-error.png'), fullPage: true });
      await ctx.close();
    } else {
      await page.close();
    }
  }
});

test('let, if, sum rolled: the CLI\'s breakdowns; a sum\'s dice marked as its own', async () => {
  const page = await open();
  const exprs = ['sum(3, d20) + 3d20', 'let a = d20 in if(a >= 11, a + d6, sum(2, d4))', ROGUE];
  // seed 6: 20s among the sum's rolls and among 3d20's
  await rollIn(page, exprs.join('\n'), 4, '6');
  const shown = await page.$$eval('#rolls .breakdown', (s) => s.map((x) => x.textContent));
  const r = spawnSync(ALEA, ['roll', '--seed', '6', '-n', '4', ...exprs], { encoding: 'utf8' });
  assert.deepEqual(shown, r.stdout.trimEnd().split('\n'));
  const want = JSON.parse('[' + spawnSync(ALEA, ['roll', '--json', '--seed', '6', '-n', '4',
    ...exprs], { encoding: 'utf8' }).stdout.trim().split('\n').join(',') + ']');
  const marks = await page.$$eval('#rolls li', (ls) => ls.map((li) =>
    [...li.querySelectorAll('.die')].map((d) => d.classList.contains('critical'))));
  let crits = 0;
  for (let i = 0; i < 4; i++) {
    // sum(3, d20) + 3d20: six d20s, in the order rolled, each marked by its own roll
    const dice = want[i].dice.flatMap((t) => t.dice);
    assert.equal(dice.length, 6);
    assert.deepEqual(marks[i], dice.map((d) => d.rolls.some((x) => x.critical)), shown[i]);
    crits += marks[i].filter(Boolean).length;
  }
  assert.ok(crits >= 3, `${crits} criticals marked`);
  assert.ok(want.slice(8).every((w) => w.bound.length === 2), 'the rogue binds a and b');
  // on a phone, the long breakdowns wrap: nothing wider than the screen
  const phone = await phoneContext();
  const small = await open(new URL(page.url()).hash, phone);
  assert.deepEqual(await small.$$eval('#rolls .breakdown', (s) => s.map((x) => x.textContent)),
    shown);
  assert.equal(await overflows(small), false);
  await small.screenshot({ path: join(shots, 'phone-let-roll.png'), fullPage: true });
  await phone.close();
  await page.close();
});

test('the table downloads as CSV', async () => {
  const page = await open();
  await submit(page, '2d6\n1d12');
  const text = await csvLines(page);
  assert.equal(text[0], 'value,"2d6","1d12"');
  const want = cliJson('2d6');
  const seven = text.find((l) => l.startsWith('7,')).split(',');
  assert.ok(close(Number(seven[1]), want.outcomes.find(([v]) => v === 7)[1]));
  await page.close();
});

test('the chart downloads as SVG: the library\'s picture, parsed, with the CLI\'s numbers', async () => {
  const page = await open();
  await submit(page, '2d6\nbest: 4d6kh3');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#svg')]);
  assert.equal(download.suggestedFilename(), 'alea-compare.svg');
  const text = readFileSync(await download.path(), 'utf8');
  const got = await page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    if (doc.querySelector('parsererror')) return null;
    const svg = doc.documentElement;
    return { role: svg.getAttribute('role'), title: svg.querySelector('title').textContent,
      desc: svg.querySelector('desc').textContent,
      series: [...svg.querySelectorAll('g.series')].map((g) => [g.getAttribute('data-label'),
        [...g.querySelectorAll('[data-value]')].map((e) => [Number(e.getAttribute('data-value')),
          Number(e.getAttribute('data-y'))])]) };
  }, text);
  assert.ok(got, 'the SVG parses');
  assert.equal(got.role, 'img');
  assert.equal(got.title, '2d6 and best');
  assert.match(got.desc, /^Line chart .* 2d6: 2 2\.778%, 3 5\.556%/);
  assert.deepEqual(got.series.map(([l]) => l), ['2d6', 'best']);
  for (const [k, src] of ['2d6', '4d6kh3'].entries()) {
    const want = cliJson(src).outcomes;
    assert.equal(got.series[k][1].length, want.length, src);
    got.series[k][1].forEach(([v, p], i) => {
      assert.equal(v, want[i][0]);
      assert.ok(close(p, want[i][1]), `${src} ${v}`);
    });
  }
  // one line: bars, and its own name
  await submit(page, '3d6');
  const [one] = await Promise.all([page.waitForEvent('download'), page.click('#svg')]);
  assert.equal(one.suggestedFilename(), 'alea-chart.svg');
  assert.match(readFileSync(await one.path(), 'utf8'), /<title id="alea-title">Distribution of 3d6<\/title>/);
  await page.close();
});

test('it works offline once loaded', async () => {
  const page = await open();
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  // the worker's script comes from the cache too
  assert.ok(await page.evaluate(async () => !!(await caches.match('worker.js'))));
  await context.setOffline(true);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await submit(page, '3d6');
  assert.equal((await tableColumns(page)).length, 16);
  await context.setOffline(false);
  await page.close();
});

// Wider than the screen? The visual viewport is the screen: a phone's
// innerWidth grows with content wider than it.
const overflows = (page) => page.evaluate(() =>
  document.documentElement.scrollWidth > window.visualViewport.width + 1);
const phoneContext = () => browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });

// The chart's canvas, against the screen: [left, right, visual viewport's width].
const chartBox = (page) => page.evaluate(() => {
  const r = document.querySelector('#chart canvas').getBoundingClientRect();
  return [r.left, r.right, window.visualViewport.width];
});

test('a phone-sized screen: one column, nothing wider than the screen', async () => {
  const phone = await phoneContext();
  const page = await open('#e=2d20kh1%0A1d20%2B5&v=dist&m=exact', phone);
  assert.equal(await overflows(page), false);
  await page.screenshot({ path: join(shots, 'phone.png'), fullPage: true });
  // keyboard: Ctrl+Enter in the box computes
  await page.fill('#exprs', '3d6');
  await page.focus('#exprs');
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => document.querySelectorAll('#dist-table tbody tr').length === 16);
  await phone.close();
});

test('on a phone the chart fits the screen: first view, after the roll view, turned', async () => {
  const phone = await phoneContext();
  for (const hash of ['', '#e=4d6kh3&v=roll']) {
    const page = await open(hash, phone);
    if (hash) {
      await page.click('#show-dist');
      await settled(page);
    }
    const [left, right, screen] = await chartBox(page);
    assert.ok(left >= 0 && right <= screen, `chart from ${left} to ${right} on ${screen} px`);
    assert.equal(await overflows(page), false);
    // every value of 4d6kh3 has its tick: up to 18
    const ticks = (await page.$eval('#chart', (c) => c.dataset.xticks)).split('|').map(Number);
    assert.ok(ticks.at(-1) >= 15, ticks.join());
    await page.screenshot({ path: join(shots, `phone-chart${hash ? '-after-roll' : ''}.png`) });
    if (hash) {
      // turned sideways and back: the chart follows the screen
      await page.setViewportSize({ width: 844, height: 390 });
      await page.waitForFunction(() => document.querySelector('#chart canvas')
        .getBoundingClientRect().width > 600);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForFunction(() => document.querySelector('#chart canvas')
        .getBoundingClientRect().right <= window.visualViewport.width);
      assert.equal(await overflows(page), false);
    }
    await page.close();
  }
  await phone.close();
});

test('on a phone the result (or its error) starts on the first screen', async () => {
  const phone = await phoneContext();
  const page = await open('', phone);
  const top = (sel) => page.$eval(sel, (e) => {
    const r = e.getBoundingClientRect();
    return [r.top, window.visualViewport.height];
  });
  const onScreen = async (sel, what) => {
    const [t, h] = await top(sel);
    assert.ok(t >= -1 && t < h - 100, `${what}: ${sel} starts at ${t} of ${h}`);
  };
  await onScreen('#dist-view', 'first view');
  await page.click('#show-dist');
  await settled(page);
  await onScreen('#dist-view', 'Distribution');
  await page.click('#show-roll');
  await settled(page);
  await onScreen('#roll-view', 'Roll');
  await page.click('#example-buttons button:has-text("Double Down policies")');
  await settled(page);
  await onScreen('#dist-view', 'an example');
  await page.screenshot({ path: join(shots, 'phone-example.png') });
  await page.fill('#exprs', '2d+3');
  await page.click('#show-dist');
  await settled(page);
  await onScreen('#errors', 'an error');
  await page.close();
  await phone.close();
  // at a desktop's size, an example's result is brought up too, and the
  // expression box stays on the screen, after each computation
  const desk = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const wide = await open('', desk);
  const both = async (what) => {
    const [t, h] = await wide.$eval('#dist-view', (e) => [e.getBoundingClientRect().top, visualViewport.height]);
    assert.ok(t >= -1 && t <= h - 200, `desktop, ${what}: #dist-view starts at ${t} of ${h}`);
    const [bt, bb] = await wide.$eval('#exprs', (e) => [e.getBoundingClientRect().top, e.getBoundingClientRect().bottom]);
    assert.ok(bt >= 0 && bb <= h, `desktop, ${what}: the expression box at ${bt} to ${bb} of ${h}`);
  };
  await wide.click('#example-buttons button:has-text("Double Down policies")');
  await settled(wide);
  await both('an example');
  await wide.screenshot({ path: join(shots, 'desktop-example.png') });
  for (const expr of ['3d6', '4d6kh3', '10d10!']) {
    await wide.fill('#exprs', expr);
    await wide.press('#exprs', 'Control+Enter');
    await settled(wide);
    await both(expr);
  }
  await wide.click('#show-roll');
  await settled(wide);
  const [bt] = await wide.$eval('#exprs', (e) => [e.getBoundingClientRect().top]);
  assert.ok(bt >= 0, `desktop, a roll: the expression box at ${bt}`);
  await desk.close();
});

test('at least and at most: 100 and 0 outside an expression\'s range', async () => {
  const page = await open('#e=2d20kh1%0A1d20%2B5&v=dist&m=atleast');
  for (const [mode, flag] of [['atleast', '--at-least'], ['atmost', '--at-most']]) {
    await page.check(`input[name=mode][value=${mode}]`);
    await settled(page);
    const cli = spawnSync(ALEA, ['compare', flag, '2d20kh1', '1d20+5'], { encoding: 'utf8' })
      .stdout.split('\n').filter((l) => /^\s+\d+\s/.test(l)).map((l) => l.trim().split(/\s+/));
    const rows = await tableColumns(page);
    assert.deepEqual(rows.map((r) => [String(r.value), ...r.shown]), cli);
    assert.ok(rows.every((r) => r.cells.every((p) => p !== null)), 'a blank cell');
  }
  await page.close();
});

test('Double Down side by side: named outcomes, grouped bars, integer ticks', async () => {
  const page = await open();
  await page.click('#example-buttons button:has-text("Double Down policies")');
  await settled(page);
  const names = await page.$$eval('#dist-table tbody tr', (rows) => rows.map((r) => r.cells[1].textContent));
  assert.deepEqual(names, ['critical failure', 'failure', 'success', 'critical success']);
  assert.equal(await page.$eval('#chart', (c) => c.dataset.xticks),
    'critical failure|failure|success|critical success');
  await page.screenshot({ path: join(shots, 'dd-compare.png') });
  // a small numeric distribution: whole values only on its axis
  for (const expr of ['1d2', '1d4', 'd20 +1d\nd20']) {
    await submit(page, expr);
    const ticks = (await page.$eval('#chart', (c) => c.dataset.xticks)).split('|');
    assert.ok(ticks.length >= 2 && ticks.every((t) => /^-?\d+$/.test(t)), `${expr}: ${ticks}`);
  }
  await page.close();
});

test('Double Down\'s CSV names each outcome in an outcome column, as its table does', async () => {
  const page = await open();
  await submit(page, 'dd(6, 14)\ndd(6, 14, best)');
  const text = await csvLines(page);
  assert.equal(text[0], 'value,outcome,"dd(6, 14)","dd(6, 14, best)"');
  const want = cliJson('dd(6, 14)');
  assert.deepEqual(text.slice(1).map((l) => l.split(',').slice(0, 2)),
    [['0', '"critical failure"'], ['1', '"failure"'], ['2', '"success"'], ['3', '"critical success"']]);
  text.slice(1).forEach((l, i) => assert.ok(close(Number(l.split(',')[2]), want.outcomes[i][1]), l));
  // a distribution without names keeps its columns
  await submit(page, '2d6');
  assert.equal((await csvLines(page))[0], 'value,"2d6"');
  await page.close();
});

test('the outcomes\' names fit the chart: broken into lines on a phone, whole on a desktop', async () => {
  // the chart's right edge: nothing drawn in its last 3 pixels (a name cut
  // there was "critical suc")
  const edgeInk = (page) => page.$eval('#chart canvas', (c) => {
    const d = c.getContext('2d').getImageData(c.width - 3, 0, 3, c.height).data;
    let ink = 0;
    for (let i = 3; i < d.length; i += 4) ink += d[i] > 0;
    return ink;
  });
  for (const [size, ctx, want] of [
    ['desktop', context, 'critical failure|failure|success|critical success'],
    ['phone', await phoneContext(), 'critical\nfailure|failure|success|critical\nsuccess']]) {
    const page = await open(link({ e: 'dd(6, 14)', v: 'dist' }), ctx);
    assert.equal(await page.$eval('#chart', (c) => c.dataset.xticks), want, size);
    assert.equal(await edgeInk(page), 0, `${size}: drawn at the chart's right edge`);
    await page.screenshot({ path: join(shots, `dd-names-${size}.png`) });
    await page.close();
    if (ctx !== context) await ctx.close();
  }
});

test('example buttons are named by their mechanic', async () => {
  const page = await open();
  const labels = await page.$$eval('#example-buttons button', (b) => b.map((x) => x.textContent));
  assert.ok(labels.length >= 5);
  for (const name of ['Bonus and penalty d20', 'Exploding critical pool', 'Double Down policies',
    'Boons and banes', '+/- DICE'])
    assert.ok(labels.some((l) => l.includes(name)), `no example for ${name}`);
  assert.ok(labels.every((l) => !/seed/i.test(l)), labels.join());
  await page.close();
});

test('rare chances in two significant digits; the chart zoomed to 99.99%, the tails a click away', async () => {
  const expr = 'event(d12 + d14 + d18 + d20)';
  const page = await open(link({ e: expr, v: 'dist', m: 'exact' }));
  await page.click('#all-rows'); // the table's negligible tails too
  const rows = await tableColumns(page);
  const rare = rows.filter((r) => r.cells[0] > 0 && r.cells[0] < 5e-5);
  assert.ok(rare.length > 500);
  assert.ok(rare.every((r) => /^\d\.\de-\d\d$/.test(r.shown[0])), rare[0].shown[0]);
  const want = cliJson(expr);
  const note = await page.textContent('#zoom-note');
  const [, lo, hi] = note.match(/^values (-?\d+) to (-?\d+), where 99.99% of the chance is$/).map(Number);
  const inside = want.outcomes.filter(([v]) => v >= lo && v <= hi).reduce((a, [, p]) => a + p, 0);
  assert.ok(inside >= 0.9999 && hi < want.max, `${lo} to ${hi}: ${inside}`);
  const last = async () => Number((await page.$eval('#chart', (c) => c.dataset.xticks)).split('|').at(-1));
  assert.ok(await last() <= hi);
  await page.click('#tails');
  assert.equal(await page.getAttribute('#tails', 'aria-pressed'), 'true');
  assert.equal(await page.textContent('#zoom-note'), `all values, ${want.min} to ${want.max}`);
  assert.ok(await last() > hi);
  await page.screenshot({ path: join(shots, 'tails.png') });
  await page.close();
});

test('rolls: a large total, dropped dice dimmed, criticals marked, no break inside a die', async () => {
  const page = await open();
  await rollIn(page, '4d6kh3\n3d6!', 5, '7');
  const want = JSON.parse('[' + spawnSync(ALEA, ['roll', '--json', '--seed', '7', '-n', '5',
    '4d6kh3', '3d6!'], { encoding: 'utf8' }).stdout.trim().split('\n').join(',') + ']');
  const shown = await page.$$eval('#rolls li', (ls) => ls.map((li) => ({
    total: li.querySelector('.total').textContent,
    dice: [...li.querySelectorAll('.die')].map((d) => [d.textContent, d.className]),
    nowrap: [...li.querySelectorAll('.die')].every((d) => getComputedStyle(d).whiteSpace === 'nowrap'),
    size: parseFloat(getComputedStyle(li.querySelector('.total')).fontSize),
  })));
  assert.equal(shown.length, want.length);
  let dropped = 0, crits = 0;
  shown.forEach((s, i) => {
    assert.equal(s.total, String(want[i].total));
    assert.ok(s.nowrap && s.size >= 24, JSON.stringify(s));
    const dice = want[i].dice[0].dice;
    assert.equal(s.dice.length, dice.length);
    dice.forEach((d, k) => {
      const cls = s.dice[k][1];
      assert.equal(cls.includes('dropped'), !!d.dropped, `${s.dice[k]}`);
      assert.equal(cls.includes('critical'), d.rolls.some((r) => r.critical), `${s.dice[k]}`);
      assert.equal(cls.includes('fumble'), d.rolls.some((r) => r.fumble), `${s.dice[k]}`);
      dropped += !!d.dropped;
      crits += d.rolls.some((r) => r.critical);
    });
  });
  assert.ok(dropped >= 5 && crits > 0, `${dropped} dropped, ${crits} criticals`);
  await page.screenshot({ path: join(shots, 'roll-marked.png') });
  await page.close();
});

test('dice are marked in at most 20 rolls (DETAIL_ROLLS): at 20, not at 21', async () => {
  const page = await open();
  for (const [n, marked] of [[20, true], [21, false]]) {
    await rollIn(page, '4d6kh3', n, '3');
    const count = (sel) => page.$$eval(sel, (d) => d.length);
    assert.equal(await count('#rolls li'), n);
    assert.equal(await count('#rolls .die.critical') > 0, marked, `${n} rolls`);
    // past it the words still say which dice were dropped
    assert.equal(await count('#rolls .die.dropped'), n);
  }
  await page.close();
});

test('an unseeded roll records its seed: the link rolls it again', async () => {
  const page = await open();
  await rollIn(page, '4d6kh3\n1d20 + 5', 3, '');
  const seed = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('s');
  assert.match(seed, /^\d+$/);
  assert.ok(Number(seed) <= Number.MAX_SAFE_INTEGER);
  assert.match(await page.textContent('#seed-note'), new RegExp(`\\(seed ${seed}\\)`));
  const shown = await page.$$eval('#rolls .breakdown', (s) => s.map((x) => x.textContent));
  const r = spawnSync(ALEA, ['roll', '--seed', seed, '-n', '3', '4d6kh3', '1d20 + 5'], { encoding: 'utf8' });
  assert.deepEqual(shown, r.stdout.trimEnd().split('\n'));
  const again = await open(new URL(page.url()).hash);
  assert.deepEqual(await again.$$eval('#rolls .breakdown', (s) => s.map((x) => x.textContent)), shown);
  await again.close();
  // the next roll draws another
  await page.click('#show-roll');
  await settled(page);
  assert.notEqual(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('s'), seed);
  await page.close();
});

test('the syntax cheat sheet opens from the keyboard, and each of its examples computes', async () => {
  const page = await open();
  await page.focus('#cheatsheet summary');
  await page.keyboard.press('Enter');
  assert.equal(await page.$eval('#cheatsheet', (d) => d.open), true);
  const codes = await page.$$eval('#cheatsheet td code', (c) => c.map((x) => x.textContent));
  assert.ok(codes.length >= 20);
  for (const expr of codes) {
    const r = spawnSync(ALEA, ['roll', '--seed', '1', '--', expr], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${expr}: ${r.stderr}`);
  }
  await page.screenshot({ path: join(shots, 'cheatsheet.png') });
  await page.close();
});

test('the docs are a link away: the language guide, and dd(), event(), tier() in the cheat sheet', async () => {
  const page = await open();
  const links = await page.$$eval('a', (as) => as.map((a) => [a.textContent.trim(), a.getAttribute('href')]));
  assert.ok(links.length >= 4, JSON.stringify(links));
  const rowLink = (code) => page.$eval(`#cheatsheet tr:has(code:text-is("${code}")) a`, (a) => a.getAttribute('href'));
  assert.equal(await rowLink('event(d12 + d14 + d18 + d20)'), 'docs/systems/critical-pools.md');
  assert.equal(await rowLink('tier(d8, +2)'), 'docs/systems/critical-pools.md');
  assert.equal(await rowLink('dd(6, 14, always)'), 'docs/systems/double-down.md');
  assert.equal(await page.getAttribute('#exprs-help a', 'href'), 'docs/language.md');
  // every one of them is shipped with the page, and it is the repository's text
  for (const [, href] of links) {
    const res = await page.request.get(base + href);
    assert.equal(res.status(), 200, href);
    assert.equal(await res.text(), readFileSync(join(here, '..', '..', href), 'utf8'), href);
  }
  // the help under the box says which keys compute, and they do
  assert.match(await page.textContent('#exprs-help'), /Ctrl\+Enter computes them/);
  await page.fill('#exprs', '3d6');
  await page.press('#exprs', 'Control+Enter');
  await settled(page);
  assert.equal((await summary(page)).mean[0], '10.50');
  await page.close();
});

test('accessible: axe finds nothing at desktop and phone sizes; results are announced', async () => {
  for (const [size, ctx] of [['desktop', await browser.newContext({ viewport: { width: 1280, height: 800 } })],
    ['phone', await phoneContext()]]) {
    const page = await open('#e=2d20kh1%0A1d20%2B5&v=dist', ctx);
    await page.click('#cheatsheet summary');
    await axe(page, `${size}, distributions`);
    assert.match(await page.textContent('#announce'), /^2d20kh1: mean 13\.82, from 1 to 20; 1d20\+5: mean 15\.50/);
    await submit(page, 'dd(6, 14)\ndd(6, 14, best)');
    await axe(page, `${size}, named outcomes`);
    await page.fill('#roll-seed', '7');
    await page.click('#show-roll');
    await settled(page);
    await axe(page, `${size}, rolls`);
    assert.match(await page.textContent('#announce'), /^Rolled dd\(6, 14\): \d/);
    await submit(page, '2d+3');
    await axe(page, `${size}, an error`);
    await page.screenshot({ path: join(shots, `a11y-${size}.png`), fullPage: true });
    await ctx.close();
  }
});

// ---- the table view ----

// docs/tables.md's examples: [expression, sweeps, stats]
const TABLES = [
  ['d20 + m >= dc', ['m=0..10', 'dc=10..20'], ['mean']],
  ['dd(m, d, best)', ['m=0..18', 'd=10..22'], ['p>=2']],
  ['event(tier(d4, +n))', ['n=0..22'], ['mean', 'critical failure']],
  ['2d6 +n DICE', ['n=-3..3'], ['p>=7']],
];
const tableLink = (src, sweeps, stats) => '#' + new URLSearchParams([['e', src], ['v', 'table'],
  ...sweeps.map((t) => ['t', t]), ...stats.map((t) => ['st', t])]).toString();
const cliTable = (src, sweeps, stats, ...format) => {
  const r = spawnSync(ALEA, ['table', src, ...sweeps, ...stats.flatMap((t) => ['--stat', t]), ...format],
    { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};

// The page's table view as the library's JSON has it: {names, values,
// stats: [{stat, cells}]} from the headings and each cell's data-value, and
// the cells' text.
async function shownTable(page) {
  return page.evaluate(() => {
    const grids = [...document.querySelectorAll('#table-grids table')];
    const nums = (tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value));
    const texts = grids.map((t) => [...t.querySelectorAll('tbody td')].map((td) => td.textContent));
    if (grids.length === 1 && grids[0].classList.contains('line')) {
      const t = grids[0];
      const heads = [...t.querySelectorAll('thead th')].map((th) => th.textContent);
      const rows = [...t.querySelectorAll('tbody tr')];
      return { names: [heads[0]], values: [rows.map((tr) => Number(tr.querySelector('th').textContent))],
        stats: heads.slice(1).map((h, k) => ({ stat: h.replace(/, %$/, ''), cells: rows.map((tr) => nums(tr)[k]) })),
        texts };
    }
    const first = grids[0];
    const corner = first.querySelector('thead th').textContent.split(' \\ ');
    const after = (s) => Number(s.slice(s.indexOf('=') + 1));
    return {
      names: corner,
      values: [[...first.querySelectorAll('tbody th')].map((th) => after(th.textContent)),
        [...first.querySelectorAll('thead th')].slice(1).map((th) => after(th.textContent))],
      stats: grids.map((t) => ({ stat: t.dataset.stat, cells: [...t.querySelectorAll('tbody tr')].map(nums) })),
      texts,
    };
  });
}

test('table view: the docs\' four examples are `alea table --json`\'s numbers, chances in %', async () => {
  const page = await open();
  for (const [src, sweeps, stats] of TABLES) {
    await page.goto('about:blank');
    await page.goto(base + tableLink(src, sweeps, stats));
    await settled(page);
    const want = JSON.parse(cliTable(src, sweeps, stats, '--json'));
    const { texts, ...got } = await shownTable(page);
    assert.deepEqual(got, { names: want.names, values: want.values, stats: want.stats }, src);
    assert.equal(await page.isHidden('#table-view'), false);
    // one name: a line a statistic; two: no chart, a heat map a statistic
    assert.equal(await page.$$eval('#table-chart canvas', (c) => c.length) > 0, sweeps.length === 1, src);
    if (src === 'd20 + m >= dc') {
      assert.equal(texts[0][0], '55.00%');
      assert.equal(texts[0][5 * 11], '80.00%'); // m=5, dc=10
    }
    if (src.startsWith('event')) assert.deepEqual(texts[0].slice(0, 2), ['3.33', '25.00%']);
    await page.screenshot({ path: join(shots, `table-${sweeps.length}-${src.replace(/[^a-z0-9]+/gi, '_')}.png`),
      fullPage: true });
  }
  await page.close();
});

// The table view's fields: the expression, [name, values] of each sweep,
// [choice, N] of each statistic.
async function fillTable(page, src, sweeps, stats) {
  await page.fill('#exprs', src);
  for (const [k, [name, values]] of sweeps.entries()) {
    await page.fill(`#sweep${k + 1}-name`, name);
    await page.fill(`#sweep${k + 1}-values`, values);
  }
  for (const [k, [choice, n]] of stats.entries()) {
    await page.selectOption(`#stat${k + 1}`, choice);
    if (n !== undefined) await page.fill(`#stat${k + 1}-n`, n);
  }
}

test('table view: the fields compute a table, the link brings it back, the CSV is `alea table --csv`', async () => {
  const page = await open();
  // the fields show with the table view: Table shows them (and computes)
  assert.equal(await page.isVisible('#sweep1-name'), false);
  await page.click('#show-table');
  await settled(page);
  assert.equal(await page.getAttribute('#show-table', 'aria-expanded'), 'true');
  await fillTable(page, 'dd(m, d, best)', [['m', '0..18'], ['d', '10..22']], [['p>=', '2'], ['median']]);
  assert.deepEqual([await page.isVisible('#stat1-n'), await page.isVisible('#stat2-n')], [true, false]);
  await page.click('#show-table');
  await settled(page);
  const stats = ['p>=2', 'median'];
  const sweeps = ['m=0..18', 'd=10..22'];
  const h = new URLSearchParams(new URL(page.url()).hash.slice(1));
  assert.deepEqual([h.get('v'), h.getAll('t'), h.getAll('st'), h.get('e')],
    ['table', sweeps, stats, 'dd(m, d, best)']);
  const first = await shownTable(page);
  assert.deepEqual(first.stats, JSON.parse(cliTable('dd(m, d, best)', sweeps, stats, '--json')).stats);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#table-csv')]);
  assert.equal(readFileSync(await download.path(), 'utf8'), cliTable('dd(m, d, best)', sweeps, stats, '--csv'));
  // the link: the same table, and the fields as they were
  const again = await open(new URL(page.url()).hash);
  assert.deepEqual(await shownTable(again), first);
  assert.deepEqual(await again.evaluate(() => ['sweep1-name', 'sweep1-values', 'sweep2-name', 'sweep2-values',
    'stat1', 'stat1-n', 'stat2', 'stat3'].map((id) => document.getElementById(id).value)),
  ['m', '0..18', 'd', '10..22', 'p>=', '2', 'median', '']);
  // one name: the CSV has a column a statistic
  await fillTable(again, 'event(tier(d4, +n))', [['n', '0..22'], ['', '']], [['mean'], ['critical failure']]);
  await again.focus('#sweep1-values');
  await again.keyboard.press('Enter'); // Enter in a field computes the table
  await settled(again);
  const [csv1] = await Promise.all([again.waitForEvent('download'), again.click('#table-csv')]);
  assert.equal(readFileSync(await csv1.path(), 'utf8'),
    cliTable('event(tier(d4, +n))', ['n=0..22'], ['mean', 'critical failure'], '--csv'));
  await page.close();
  await again.close();
});

// The SVG a table's button downloads: its text, name, and what it draws.
async function tableSvg(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const text = readFileSync(await download.path(), 'utf8');
  const parsed = await page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    if (doc.querySelector('parsererror')) return null;
    return { role: doc.documentElement.getAttribute('role'), title: doc.querySelector('title').textContent };
  }, text);
  return { text, name: download.suggestedFilename(), parsed };
}

test('table view: Download SVG is `alea table --svg`: a picture a heat map, or the chart of one name', async () => {
  const sweeps = ['m=0..6', 'd=10..14'], stats = ['p>=2', 'mean'];
  const page = await open(tableLink('dd(m, d, best)', sweeps, stats));
  // two names: a button under each heat map, none for the whole
  assert.equal(await page.isHidden('#table-svg'), true);
  assert.equal(await page.$$eval('#table-grids button.table-svg', (b) => b.length), 2);
  assert.deepEqual(await page.$$eval('#table-grids button.table-svg', (bs) => bs.map((b) => b.getAttribute('aria-label'))),
    ['Download SVG of the heat map of the p>=2 of dd(m, d, best)',
      'Download SVG of the heat map of the mean of dd(m, d, best)']);
  for (const [k, stat] of stats.entries()) {
    const got = await tableSvg(page, `#table-grids button.table-svg[data-stat="${k}"]`);
    assert.ok(got.parsed, 'the SVG parses');
    assert.deepEqual(got.parsed, { role: 'img', title: `${stat} of dd(m, d, best)` });
    assert.equal(got.name, `alea-table-m-d-${k + 1}.svg`);
    // as the command line draws the heat map of its one --stat
    assert.equal(got.text, cliTable('dd(m, d, best)', sweeps, [stat], '--svg', '-'), stat);
  }
  // one name: one button, the chart of every statistic
  await page.goto('about:blank');
  await page.goto(base + tableLink('event(tier(d4, +n))', ['n=0..8'], ['mean', 'critical failure']));
  await settled(page);
  assert.equal(await page.isVisible('#table-svg'), true);
  assert.equal(await page.$$eval('#table-grids button', (b) => b.length), 0);
  const one = await tableSvg(page, '#table-svg');
  assert.deepEqual(one.parsed, { role: 'img', title: 'event(tier(d4, +n))' });
  assert.equal(one.name, 'alea-table-n.svg');
  assert.equal(one.text, cliTable('event(tier(d4, +n))', ['n=0..8'], ['mean', 'critical failure'], '--svg', '-'));
  await page.close();
});

test('table view: an error shows its caret under the expression, the sweep or the statistic', async () => {
  const cases = [
    [['d20 + m >= dc', ['m=0..10', 'dc=10..x'], ['mean']], 'dc=10..x', /^syntax error: bad range '10..x'/],
    [['d20 + m', ['m=0..3'], ['p>=']], 'p>=', /^syntax error: stat 'p>=': a whole number after 'p>='/],
    [['d20 + m', ['m=0..3', 'dc=1'], ['mean']], 'dc=1', /never uses it/],
    [['d20 + m +', ['m=0..3'], ['mean']], 'd20 + m +', /^syntax error: expected a number/],
  ];
  const page = await open();
  for (const [[src, sweeps, stats], text, message] of cases) {
    await page.goto('about:blank');
    await page.goto(base + tableLink(src, sweeps, stats));
    await settled(page);
    const shown = await page.$$eval('#errors .error', (d) => d.map((e) => ({
      message: e.querySelector('.message').textContent, caret: e.querySelector('pre')?.textContent })));
    assert.equal(shown.length, 1, JSON.stringify(shown));
    assert.match(shown[0].message, message);
    const [line, caret] = shown[0].caret.split('\n');
    assert.equal(line, text);
    assert.match(caret, /^ *\^+$/);
    assert.equal(await page.isHidden('#table-view'), true);
  }
  // the caret is where the command line puts it, in the expression
  const r = spawnSync(ALEA, ['table', 'd20 + m +', 'm=0..3'], { encoding: 'utf8' });
  assert.equal(r.stderr.split('\n')[2].slice(2), '         ^');
  assert.equal((await page.textContent('#errors pre')).split('\n')[1], '         ^');
  await page.screenshot({ path: join(shots, 'table-error.png'), fullPage: true });
  await page.close();
});

test('table view: accessible at desktop and phone sizes; the heat map scrolls inside its box', async () => {
  for (const [size, ctx] of [['desktop', await browser.newContext({ viewport: { width: 1280, height: 800 } })],
    ['phone', await phoneContext()]]) {
    const page = await open(tableLink('dd(m, d, best)', ['m=0..18', 'd=10..22'], ['p>=2', 'mean']), ctx);
    await axe(page, `${size}, a heat map`);
    assert.match(await page.textContent('#announce'), /^Table of p>=2, mean of dd\(m, d, best\): 19 rows by 13 columns/);
    assert.equal(await overflows(page), false);
    if (size === 'phone') {
      // wider than the screen: it scrolls in its box, the page does not
      assert.equal(await page.$eval('.heat-wrap', (w) => w.scrollWidth > w.clientWidth), true);
    }
    await page.screenshot({ path: join(shots, `table-${size}.png`), fullPage: true });
    await page.goto('about:blank');
    await page.goto(base + tableLink('event(tier(d4, +n))', ['n=0..22'], ['mean', 'critical failure']));
    await settled(page);
    await axe(page, `${size}, a line a statistic`);
    assert.equal(await overflows(page), false);
    await page.goto('about:blank');
    await page.goto(base + tableLink('d20 + m', ['m=0..x'], ['mean']));
    await settled(page);
    await axe(page, `${size}, a table's error`);
    await ctx.close();
  }
});

test('the keyboard alone: an example, the chart\'s tails, a roll', async () => {
  const page = await open();
  // Tab from the box reaches every control; an example runs on Enter
  await page.focus('#exprs');
  const seen = [];
  for (let k = 0; k < 40 && !seen.includes('Exploding critical pool'); k++) {
    await page.keyboard.press('Tab');
    seen.push(await page.evaluate(() => document.activeElement.textContent.trim() || document.activeElement.id));
  }
  for (const want of ['Distribution', 'Roll', 'Copy link', 'Exploding critical pool'])
    assert.ok(seen.includes(want), `${want} not reached: ${seen.join(' / ')}`);
  await page.keyboard.press('Enter');
  await settled(page);
  assert.equal(await page.inputValue('#exprs'), 'event(d12 + d14 + d18 + d20)');
  await page.focus('#tails');
  await page.keyboard.press('Space');
  assert.equal(await page.getAttribute('#tails', 'aria-pressed'), 'true');
  await page.focus('#show-roll');
  await page.keyboard.press('Enter');
  await settled(page);
  assert.equal(await page.$$eval('#rolls li', (l) => l.length), 1);
  await page.close();
});

test('speed: from Distribution on 100d6kh50 to its chart drawn', async (t) => {
  const page = await open();
  await page.fill('#exprs', '100d6kh50');
  const chart = [], table = [];
  for (let k = 0; k < 7; k++) {
    const [drawn, filled] = await page.evaluate(() => new Promise((ok) => {
      const start = performance.now();
      let drawn = 0;
      document.getElementById('chart').addEventListener('drawn', () => {
        drawn = performance.now() - start;
      }, { once: true });
      const wait = () => (drawn && !document.body.dataset.busy && !document.body.dataset.drawing
        ? ok([drawn, performance.now() - start]) : setTimeout(wait, 1));
      document.getElementById('show-dist').click();
      wait();
    }));
    chart.push(drawn);
    table.push(filled);
  }
  // 251 values: those the table shows, and the negligible tails it counts
  const hiddenRows = [...(await page.textContent('#table-note')).matchAll(/(\d+) rows? below/g)]
    .reduce((a, m) => a + Number(m[1]), 0);
  assert.ok(hiddenRows > 0);
  assert.equal((await tableColumns(page)).length + hiddenRows, 251);
  const med = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1].toFixed(1);
  // reported, not asserted: a loaded machine is slower
  t.diagnostic(`100d6kh50, Distribution to chart drawn: median ${med(chart)} ms ` +
    `(${chart.map((x) => x.toFixed(1)).join(', ')}); to the table built: median ${med(table)} ms`);
  await page.close();
});

// The rows a visitor has before scrolling, and the table's own count.
const builtRows = (page) => page.$eval('#dist-table', (t) =>
  ({ built: t.tBodies[0].rows.length, total: Number(t.dataset.rows), rowcount: t.getAttribute('aria-rowcount') }));

test('the table builds its rows as they scroll into view: scrolled to its end, or all at once, every row the CLI\'s', async () => {
  const expr = '200d6';
  const want = cliJson(expr).outcomes.filter(([, p]) => p >= 0.00005); // the rows alea dist shows
  assert.ok(want.length > 150, String(want.length));
  for (const [size, ctx] of [['desktop', context], ['phone', await phoneContext()]]) {
    const page = await open('', ctx);
    await submit(page, expr);
    // a screen of rows at first, the count of all of them said
    const first = await builtRows(page);
    assert.equal(first.total, want.length, size);
    assert.ok(first.built >= 30 && first.built < first.total, `${size}: ${first.built} rows built`);
    assert.equal(first.rowcount, String(want.length + 1), size); // the heading row too
    assert.equal(await page.textContent('#rows-count'),
      `${first.built} of ${want.length} rows shown; the others follow as you scroll.`);
    assert.equal(await page.textContent('#rows-rest'), `Show all ${want.length} rows`);
    await axe(page, `${size}, a table of rows still to come`);
    // scrolled down as a visitor scrolls (the wheel), to the end of the table
    // (the rows come a few screens at a time, not all at the first turn,
    // and the table stays in its place: the line above it stays too)
    const tableTop = () => page.$eval('#dist-table', (x) => x.getBoundingClientRect().top + scrollY);
    const top = await tableTop();
    const steps = [first.built];
    for (let k = 0; k < 50 && await page.isVisible('#rows-rest'); k++) {
      await page.mouse.move(100, 100);
      await page.mouse.wheel(0, 1500);
      await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 20))));
      steps.push((await builtRows(page)).built);
    }
    assert.equal(await page.isVisible('#rows-rest'), false, `${size}: the rows did not all come`);
    assert.equal(await page.textContent('#rows-count'), `All ${want.length} rows shown.`);
    assert.ok(Math.abs(await tableTop() - top) < 1, `${size}: the table moved from ${top} to ${await tableTop()}`);
    assert.ok(new Set(steps.filter((n) => n > first.built && n < want.length)).size >= 1, steps.join());
    const after = await builtRows(page);
    assert.deepEqual([after.built, after.rowcount], [want.length, null], size);
    const scrolled = await page.$$eval('#dist-table tbody tr', (rows) => rows.map((tr) =>
      [Number(tr.cells[0].textContent), Number(tr.cells[1].dataset.p)]));
    // the rows in order, the last ones those at the end of the CLI's table
    assert.deepEqual(scrolled.map(([v]) => v), want.map(([v]) => v), size);
    scrolled.forEach(([v, p], i) => assert.ok(close(p, want[i][1]), `${size}: ${v}: ${p} against ${want[i][1]}`));
    // the end of the table on screen: its last row, the CLI's last shown
    assert.equal(scrolled.at(-1)[0], want.at(-1)[0]);
    const lastRow = await page.$eval('#dist-table tbody tr:last-child', (tr) => tr.getBoundingClientRect());
    assert.ok(lastRow.bottom > 0 && lastRow.top < await page.evaluate(() => innerHeight), `${size}: ${lastRow.top}`);

    // without scrolling: "Show all N rows", by keyboard, builds the others,
    // and leaves the focus on the table, where the keys scroll it
    await submit(page, expr);
    assert.ok((await builtRows(page)).built < want.length);
    await page.focus('#rows-rest');
    await page.keyboard.press('Enter');
    assert.equal((await builtRows(page)).built, want.length);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'dist-wrap');
    assert.equal(await page.isVisible('#rows-rest'), false);
    const shown = await page.$$eval('#dist-table tbody tr', (rows) => rows.map((tr) =>
      [Number(tr.cells[0].textContent), Number(tr.cells[1].dataset.p)]));
    assert.deepEqual(shown, scrolled, size);
    // the CSV is the same whatever was built: every value, the tails too
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
    const csv = readFileSync(await download.path(), 'utf8').trim().split('\n');
    assert.equal(csv.length, 1 + cliJson(expr).outcomes.length, size);
    // a table of a screen or less: no note, no button, no count
    await submit(page, '3d6');
    assert.deepEqual(await builtRows(page), { built: 16, total: 16, rowcount: null });
    assert.equal(await page.isVisible('#rows-more'), false);
    await page.close();
    if (ctx !== context) await ctx.close();
  }
});

// ---- a link is a stranger's text: the page stays in charge --------------------------

// Values 2^49 apart: keys that collided in the library's hash table (36 s
// of a visitor's tab before the page had a deadline).
const FLOOD = '1d15000*562949953421312 + 1d480*562949953421312';
// 190 faces near -2^63: each of best()'s 9999 repetitions prints them all
// (2.1 GB of breakdowns for 1000 rolls before the page bounded its answers).
const AMPLIFY = `best(9999, 0d{${Array.from({ length: 190 },
  (_, i) => String(-9223372036854775000n + BigInt(i))).join(',')}})`;
const STOPPED = /^stopped after ([\d.]+) s: this expression takes too long to compute here$/;

// Opens a link without waiting for its view: it may be busy for a while.
async function openBusy(hash, ctx = context) {
  const page = await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(base + hash);
  return page;
}

// While the page's request runs, the main thread must answer: types into
// the seed box and reads it back, and times a task from the test's side
// (a request on the main thread held it for seconds). Returns the probes'
// round trips (ms), one per probe made while the page was still busy.
async function probeWhileBusy(page, probes = 50) {
  const trips = [];
  await page.fill('#roll-seed', '');
  for (let k = 0; k < probes; k++) {
    const t = Date.now();
    const busy = await page.evaluate(() => new Promise((ok) =>
      setTimeout(() => ok(document.body.dataset.busy === '1'), 0)));
    const trip = Date.now() - t;
    if (!busy) break;
    trips.push(trip);
    const digit = String(k % 10);
    await page.locator('#roll-seed').pressSequentially(digit);
    assert.ok((await page.inputValue('#roll-seed')).endsWith(digit));
  }
  // A loose bound: a loaded machine may lag, but nowhere near a blocked page.
  for (const trip of trips) assert.ok(trip < 1000, `the page answered in ${trip} ms`);
  return trips;
}

const errorsShown = (page) => page.$$eval('#errors .error', (d) => d.map((e) => ({
  message: e.querySelector('.message').textContent,
  hint: e.querySelector('.hint')?.textContent ?? '',
})));

test('the hash-flooding link: the page stays responsive, and it ends by 2 s', async (t) => {
  const start = Date.now();
  const page = await openBusy(link({ e: FLOOD, v: 'dist', m: 'exact' }));
  const trips = await probeWhileBusy(page);
  await page.waitForSelector('body[data-ready="1"]');
  const ms = Date.now() - start;
  t.diagnostic(`shown after ${ms} ms; ${trips.length} probes while busy, ` +
    `the slowest ${Math.max(0, ...trips)} ms`);
  const errors = await errorsShown(page);
  assert.equal(errors.length, 1);
  const stopped = errors[0].message.match(STOPPED);
  if (stopped) {
    // a library whose hash table these keys flood: the deadline ends it
    assert.equal(stopped[1], '2');
    assert.equal(errors[0].hint, 'Simplify the expression, or Roll it to sample results instead.');
    assert.ok(trips.length > 0, 'stopped, yet never seen busy');
  } else {
    // the library since its hash was fixed: over the work limit, at once
    assert.match(errors[0].message, /^too much work to compute at byte 0(: it needs at least \d+ units)? \(work limit is 30000000\)$/);
  }
  await page.close();
});

test('past its deadline, a request shows why and what to try (d= lowers it)', async () => {
  // 8d1000 takes some 50 ms even on a fast machine: far past 1 ms
  const page = await open(link({ e: '8d1000\n2d6', v: 'dist', d: '1' }));
  const errors = await errorsShown(page);
  assert.deepEqual(errors, [{
    message: 'stopped after 0.001 s: this expression takes too long to compute here',
    hint: 'Simplify the expression, or Roll it to sample results instead.',
  }]);
  // the caret is under the expression; the cheap one is still shown
  assert.match(await page.$eval('#errors pre', (p) => p.textContent), /^8d1000\n\^+$/);
  assert.equal((await tableColumns(page)).length, 11);
  await page.screenshot({ path: join(shots, 'stopped.png'), fullPage: true });
  assert.doesNotMatch(page.url(), /d=/);
  await page.close();

  // a million dice to roll cannot take 1 ms; on a phone-sized screen
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const roll = await open(link({ e: '1000d1000', v: 'roll', n: '1000', d: '1' }), phone);
  assert.deepEqual(await errorsShown(roll), [{
    message: 'stopped after 0.001 s: this expression takes too long to compute here',
    hint: 'Roll fewer times, or simplify the expression.',
  }]);
  assert.equal(await overflows(roll), false);
  await roll.screenshot({ path: join(shots, 'stopped-phone.png'), fullPage: true });
  await phone.close();
});

test('the amplifying link: refused, and memory stays bounded', async (t) => {
  const page = await openBusy(link({ e: AMPLIFY, v: 'roll', n: '1000' }));
  const trips = await probeWhileBusy(page);
  await page.waitForSelector('body[data-ready="1"]');
  const errors = await errorsShown(page);
  assert.equal(errors.length, 1);
  // the page's own bound, or the library's breakdown limit once it has one
  assert.match(errors[0].message, /breakdown/);
  assert.equal(await page.$$eval('#rolls li', (l) => l.length), 0);
  const wasm = Number(await page.evaluate(() => document.body.dataset.wasmMemory));
  const heap = await page.evaluate(() => performance.memory.usedJSHeapSize);
  t.diagnostic(`module memory ${wasm} bytes, page heap ${heap} bytes; ` +
    `${trips.length} probes while busy, the slowest ${Math.max(0, ...trips)} ms`);
  assert.ok(wasm > 0 && wasm <= 64 << 20, `module memory ${wasm}`);
  assert.ok(heap < 64 << 20, `page heap ${heap}`);
  await page.screenshot({ path: join(shots, 'too-long.png'), fullPage: true });
  await page.close();
});

test('the table hides the negligible tails as alea dist does; Show every row shows them', async () => {
  const hidden = (args) => spawnSync(ALEA, args, { encoding: 'utf8' }).stdout.split('\n')
    .filter((l) => l.startsWith('... ')).map((l) => l.replace(/; --all shows every row$/, ''));
  for (const [size, ctx] of [['desktop', context], ['phone', await phoneContext()]]) {
    const page = await open('', ctx);
    await submit(page, '10d10!');
    const want = hidden(['dist', '--', '10d10!']);
    assert.equal(want.length, 2, want.join('\n')); // both ends, as the command line has them
    assert.deepEqual((await page.textContent('#table-note')).split('\n'), want);
    let rows = await tableColumns(page);
    assert.deepEqual([rows[0].value, rows.at(-1).value, rows.length], [24, 123, 100]);
    assert.equal(await page.getAttribute('#all-rows', 'aria-pressed'), 'false');
    await page.click('#all-rows');
    rows = await tableColumns(page);
    assert.deepEqual([rows[0].value, rows.length], [10, 1000]); // the likeliest 1000 of 1281
    assert.equal(await page.textContent('#table-note'),
      'The table shows the 1000 likeliest of 1281 values; the chart and the CSV have them all.');
    assert.equal(await page.getAttribute('#all-rows', 'aria-pressed'), 'true');
    // the link holds it: the same rows again
    assert.match(page.url(), /[#&]rows=all(&|$)/);
    const again = await open(new URL(page.url()).hash, ctx);
    assert.equal(await again.getAttribute('#all-rows', 'aria-pressed'), 'true');
    assert.deepEqual(await tableColumns(again), rows);
    await again.close();
    await page.click('#all-rows');
    assert.doesNotMatch(page.url(), /rows=/);
    // a comparison: a row is hidden only when every column is below, as compare hides it
    await submit(page, '10d10!\n3d6');
    assert.deepEqual((await page.textContent('#table-note')).split('\n'),
      hidden(['compare', '--', '10d10!', '3d6']));
    // nothing negligible: no note, no button
    await submit(page, '3d6');
    assert.equal(await page.isVisible('#table-note'), false);
    assert.equal(await page.isVisible('#all-rows'), false);
    await axe(page, `${size}, the table's tails`);
    await page.close();
    if (ctx !== context) await ctx.close();
  }
});

test('a link to 100000 outcomes: the table holds the likeliest 1000, the CSV all', async () => {
  const page = await open(link({ e: '1d99998 + 1d3', v: 'dist', m: 'exact' }));
  const rows = await tableColumns(page);
  assert.equal(rows.length, 1000);
  // the likeliest: not the ends (2, 3, 100000, 100001), which are rarer
  assert.ok(rows.every((r) => r.value >= 4 && r.value <= 99999), `${rows[0].value}`);
  assert.equal(await page.textContent('#table-note'),
    'The table shows the 1000 likeliest of 100000 values; the chart and the CSV have them all.');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
  assert.equal(readFileSync(await download.path(), 'utf8').trimEnd().split('\n').length, 100001);
  // two of them fit the page's 8 MiB of answers, not three
  await submit(page, '1d100000\n1d100000 + 1\n1d100000 + 2');
  assert.deepEqual((await errorsShown(page)).map((e) => e.message), [
    'the distribution is too long for this page (limit is 8 MiB in all)']);
  assert.equal((await errorsShown(page))[0].hint, 'Compare fewer expressions at once.');
  await page.close();
});

// A worker that never finishes (served instead of worker.js) stands for any
// computation the module could not stop: the page must stay usable, Cancel
// must end it, a new request must replace it, and past the deadline the
// page must end it itself.
const HANG = `self.onmessage = (ev) => {
  if (ev.data.module) { self.postMessage({ ready: true, version: 'hanging' }); return; }
  self.postMessage({ id: ev.data.id, started: true });
  for (;;) {}
};`;

test('Cancel, and a newer request, end a request that never finishes', async () => {
  // no service worker: page.route must see the worker's script
  const ctx = await browser.newContext({ serviceWorkers: 'block' });
  const hang = (route) => route.fulfill({ contentType: 'text/javascript', body: HANG });
  await ctx.route('**/worker.js', hang);
  const page = await openBusy('#e=3d6', ctx);
  await page.waitForSelector('#cancel', { state: 'visible' });
  await page.screenshot({ path: join(shots, 'busy.png'), fullPage: true });
  // busy all along: every probe is made while the worker computes
  assert.equal((await probeWhileBusy(page, 5)).length, 5);
  await page.click('#cancel');
  await page.waitForSelector('#busy', { state: 'hidden' });
  assert.equal(await page.textContent('#notice'), 'Cancelled.');
  assert.equal(await page.evaluate(() => document.body.dataset.busy), undefined);
  await page.screenshot({ path: join(shots, 'cancelled.png'), fullPage: true });

  // the fresh worker hangs too; a newer request (with the real worker) replaces it
  await page.fill('#exprs', '2d6');
  await page.click('#show-dist');
  await page.waitForSelector('#cancel', { state: 'visible' });
  await ctx.unroute('**/worker.js', hang);
  await submit(page, '3d6');
  assert.equal((await tableColumns(page)).length, 16);
  assert.equal(await page.textContent('#notice'), '');
  await ctx.close();
});

test('a request the worker does not end in time is ended by the page', async () => {
  const ctx = await browser.newContext({ serviceWorkers: 'block',
    viewport: { width: 390, height: 844 }, isMobile: true });
  await ctx.route('**/worker.js', (route) =>
    route.fulfill({ contentType: 'text/javascript', body: HANG }));
  // 500 ms, and a second of grace
  const page = await openBusy('#e=3d6&v=dist&d=500', ctx);
  await page.waitForSelector('#cancel', { state: 'visible' });
  assert.equal((await page.innerText('#busy')).replace(/\s+/g, ' ').trim(),
    'Computing… it stops after 0.5 s. Cancel');
  await page.screenshot({ path: join(shots, 'busy-phone.png'), fullPage: true });
  await page.waitForSelector('body[data-ready="1"]');
  assert.deepEqual(await errorsShown(page), [{
    message: 'stopped after 0.5 s: this expression takes too long to compute here',
    hint: 'Simplify the expression, or Roll it to sample results instead.',
  }]);
  await ctx.close();
});

// The headers of the summary and of the table, and the chart's legend.
const headers = (page) => page.evaluate(() => ({
  summary: [...document.querySelectorAll('#summary thead th')].map((c) => c.textContent),
  table: [...document.querySelectorAll('#dist-table thead th')].map((c) => c.textContent),
  legend: [...document.querySelectorAll('#chart .u-legend .u-series .u-label')].map((c) => c.textContent),
}));
const sizes = async () => [['desktop', await browser.newContext({ viewport: { width: 1280, height: 800 } })],
  ['phone', await phoneContext()]];

test('named lines ("advantage: 2d20kh1") name their series, as compare name=expr', async () => {
  for (const [size, ctx] of await sizes()) {
    const page = await open('', ctx);
    // d20=20 compiles as it stands: never a name
    await submit(page, 'advantage: 2d20kh1\nplain:d20\nd20=20');
    assert.deepEqual(await headers(page), { summary: ['advantage', 'plain', 'd20=20'],
      table: ['value', 'advantage', 'plain', 'd20=20'], legend: ['value', 'advantage', 'plain', 'd20=20'] },
    size);
    const rows = await tableColumns(page);
    const want = cliJson('2d20kh1');
    const p = new Map(want.outcomes);
    assert.equal(rows.filter((r) => r.cells[0] !== null).length, want.outcomes.length);
    for (const r of rows) if (r.cells[0] !== null) assert.ok(close(r.cells[0], p.get(r.value)), `${size} ${r.value}`);
    assert.match(await page.textContent('#announce'), /^advantage: mean 13\.82/);
    assert.equal(await overflows(page), false, size);
    await axe(page, `${size}, named lines`);
    await page.screenshot({ path: join(shots, `named-${size}.png`), fullPage: true });
    // a roll says the name; a 24-character name is one, 25 an error
    await page.fill('#roll-seed', '7');
    await page.click('#show-roll');
    await settled(page);
    assert.equal(await page.textContent('#rolls li .name'), 'advantage:');
    const n24 = 'a'.repeat(24), n25 = 'a'.repeat(25);
    await submit(page, `${n24}: d6\n${n25}: d6`);
    assert.deepEqual((await headers(page)).summary, [n24], size);
    assert.equal(await page.textContent('#errors .message'),
      `the name '${n24}...' is longer than 24 characters`);
    // an error after a name has its caret under the line as typed
    await submit(page, 'adv: 2d+3');
    const caret = spawnSync(ALEA, ['dist', '2d+3'], { encoding: 'utf8' }).stderr.split('\n')[2].slice(2);
    assert.equal(await page.textContent('#errors .caret'), `adv: 2d+3\n${' '.repeat(5)}${caret}`);
    await ctx.close();
  }
});

// The rows of a binned table: [from, to, then each column's data-p, null
// for a blank cell].
const binnedRows = async (page) => {
  await allRows(page);
  return page.$$eval('#dist-table tbody tr', (rows) => rows.map((tr) =>
    [...tr.cells].map((c, i) => (i < 2 ? Number(c.textContent)
      : c.dataset.p === undefined ? null : Number(c.dataset.p)))));
};
// The estimates a page's link records (x=LINE.SEED[.ROLLS]).
const estimatesOf = (page) => new URLSearchParams(new URL(page.url()).hash.slice(1)).getAll('x');
// The CLI's estimate from the same rolls: 10000 on 10 streams of the seed.
const cliSample = (expr, seed, rolls = 10000, threads = 10) => {
  const r = spawnSync(ALEA, ['dist', '--json', '--sample', String(rolls), '--seed', seed, '--threads',
    String(threads), '--', expr], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
// The CLI's median and cumulative columns (its CSV's at_least and at_most,
// by value) of the same estimate: the page shows the library's.
const cliSampleStats = (expr, seed, rolls = 10000, threads = 10) => {
  const args = ['--sample', String(rolls), '--seed', seed, '--threads', String(threads), '--', expr];
  const text = spawnSync(ALEA, ['dist', ...args], { encoding: 'utf8' }).stdout;
  const [head, ...rows] = spawnSync(ALEA, ['dist', '--csv', ...args], { encoding: 'utf8' }).stdout
    .trimEnd().split('\n').map((r) => r.split(','));
  const col = (name) => rows.map((r) => [Number(r[0]), Number(r[head.indexOf(name)])]);
  return { median: text.match(/median (-?\d+)/)[1], at_least: col('at_least'), at_most: col('at_most') };
};
const NOT_EXACT = 'not exact: a chance near p is off by about sqrt(p(1-p)/rolls), 0.50 points at 50%';
// The page's summary of an estimate: the rolls' own numbers, as the CLI's.
const summaryOf = (d) => ({ mean: [d.mean.toFixed(2)], sd: [d.sd.toFixed(2)], min: [String(d.min)],
  max: [String(d.max)] });
const waitEstimated = (page, errors) => page.waitForFunction((n) =>
  document.querySelectorAll('#errors .error').length === n &&
  document.body.dataset.ready === '1' && !document.body.dataset.busy && !document.body.dataset.drawing, errors);

test('a limit error offers an estimate by sampling: 10000 rolls, binned, the CLI\'s own rolls', async () => {
  for (const [size, ctx] of await sizes()) {
    const page = await open('', ctx);
    await submit(page, '1000d6*1000d6\nbig: 1000d6*1000d6\n3d6');
    assert.match(await page.textContent('#errors .message'), /work limit is/);
    const buttons = await page.$$('#errors button.estimate');
    assert.equal(buttons.length, 2, size);
    await axe(page, `${size}, a limit error and its estimate button`);
    // not offered for an error no sample can mend
    await submit(page, '2d+3');
    assert.equal(await page.$('#errors button.estimate'), null);
    await submit(page, '1000d6*1000d6\nbig: 1000d6*1000d6\n3d6');
    await page.click('#errors button.estimate >> nth=1');
    await waitEstimated(page, 1);
    // the link records the estimate of line 1 and its seed; the CLI rolls the same
    const [x] = estimatesOf(page);
    assert.match(x, /^1\.\d+$/, size);
    const seed = x.slice(2);
    const want = cliSample('1000d6*1000d6', seed);
    const h = await headers(page);
    const w = Number(/bins of (\d+)\)$/.exec(h.legend[1])?.[1]);
    assert.deepEqual(h, {
      summary: ['big (estimate from 10000 rolls)', '3d6'],
      legend: ['values', `big (estimate from 10000 rolls, bins of ${w})`, `3d6 (bins of ${w})`],
      table: ['from', 'to', `big (estimate from 10000 rolls, bins of ${w})`, `3d6 (bins of ${w})`],
    }, size);
    // two series: lines through the bins' middles, a point where a line cannot be
    assert.equal(await page.textContent('#bin-note'), `each point a bin of ${w} values`);
    assert.equal(await page.textContent('#dist-notes'), `big (estimate from 10000 rolls): ${NOT_EXACT}; ` +
      `the same rolls as alea dist --sample 10000 --seed ${seed} --threads 10`);
    // the summary is of the rolls themselves, not of the bins
    const got = await summary(page);
    for (const k of ['mean', 'sd', 'min', 'max']) assert.equal(got[k][0], summaryOf(want)[k][0], `${size} ${k}`);
    assert.equal(got.mean[1], '10.50');
    const stats = cliSampleStats('1000d6*1000d6', seed);
    assert.equal(got.median[0], stats.median, `${size} median`);
    // a bar per 6 px of the chart at most: the bins of 0 (3d6) to the largest roll
    // (the rolls' own range: min and max are the expression's bounds)
    const lo = want.outcomes[0][0], hi = want.outcomes.at(-1)[0];
    const bars = Math.floor(hi / w) + 1;
    const width = await page.$eval('#chart', (c) => c.clientWidth);
    assert.ok(bars <= (width - 70) / 6 && bars > (width - 70) / 6 / 10, `${size}: ${bars} bars in ${width} px`);
    // each bin's chance: the CLI's counts in it; bins across the estimate's
    // range, empty ones 0; 3d6 all in bin 0, blank elsewhere
    const counts = new Map();
    for (const [v, p] of want.outcomes) counts.set(Math.floor(v / w), (counts.get(Math.floor(v / w)) || 0) + p);
    const rows = await binnedRows(page);
    assert.deepEqual(rows.map(([from]) => from / w), [0, ...Array.from({ length: bars - Math.floor(lo / w) },
      (_, i) => Math.floor(lo / w) + i)], size);
    for (const [from, to, big, three] of rows) {
      assert.equal(to, from + w - 1);
      if (from === 0) { assert.ok(close(three, 1) || Math.abs(three - 1) < 1e-12); assert.equal(big, null); continue; }
      assert.equal(three, null);
      assert.ok(Math.abs(big - (counts.get(from / w) || 0)) < 1e-12, `${size} bin ${from}: ${big}`);
    }
    assert.equal(await overflows(page), false, size);
    await axe(page, `${size}, an estimate`);
    await page.screenshot({ path: join(shots, `estimate-${size}.png`), fullPage: true });

    // the link estimates again, with the same rolls: the same numbers
    const again = await open(new URL(page.url()).hash, ctx);
    await waitEstimated(again, 1);
    assert.deepEqual(await summary(again), got, size);
    assert.deepEqual(await binnedRows(again), rows, size);
    assert.equal(again.url(), page.url());
    await again.close();

    if (size === 'desktop') {
      // at least / at most: of the bin's first value / last value, as the
      // CLI's at_least / at_most of them; the CSV holds the bins too
      await page.check('input[name=mode][value=atleast]');
      await page.waitForFunction(() => !document.body.dataset.drawing);
      assert.deepEqual(estimatesOf(page), [x], 'the mode keeps the estimate in the link');
      const atleast = await binnedRows(page);
      const share = (f) => want.outcomes.filter(([v]) => f(v)).reduce((a, [, p]) => a + p, 0);
      for (const [from, , big, three] of atleast) {
        assert.ok(Math.abs(big - share((v) => v >= from)) < 1e-9, `at least ${from}: ${big}`);
        // the library's column, not a sum of the page's: the CLI's at_least
        // of the first value in the bin or above it, to the last bit
        assert.equal(big, stats.at_least.find(([v]) => v >= from)?.[1] ?? 0, `at least ${from}`);
        assert.equal(three, from === 0 ? 1 : 0);
      }
      assert.equal(await page.textContent('#dist-table caption'),
        `The chance of at least its first value, for bins of ${w} values (from and to), in %`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
      assert.equal(download.suggestedFilename(), `alea-atleast-bins-of-${w}.csv`);
      const csv = readFileSync(await download.path(), 'utf8').trimEnd().split('\n');
      assert.equal(csv[0], `from,to,"big (estimate from 10000 rolls, bins of ${w})","3d6 (bins of ${w})"`);
      assert.deepEqual(csv.slice(1).map((l) => l.split(',').map(Number)), atleast);
      await page.check('input[name=mode][value=atmost]');
      await page.waitForFunction(() => !document.body.dataset.drawing);
      for (const [, to, big] of await binnedRows(page)) {
        assert.ok(Math.abs(big - share((v) => v <= to)) < 1e-9, `at most ${to}: ${big}`);
        assert.equal(big, stats.at_most.findLast(([v]) => v <= to)?.[1] ?? 0, `at most ${to}`);
      }
      // a new Distribution starts afresh: the error and its button again
      await submit(page, '1000d6*1000d6\nbig: 1000d6*1000d6\n3d6');
      assert.equal((await page.$$('#errors button.estimate')).length, 2);
      assert.deepEqual(estimatesOf(page), []);
    }
    await ctx.close();
  }
});

test('a wide estimate alone is a histogram at desktop and phone sizes', async () => {
  for (const [size, ctx] of await sizes()) {
    for (const expr of ['100d100*100d100', '1000d6*1000d6']) {
      const page = await open(link({ e: expr, v: 'dist', x: '0.7' }), ctx);
      await waitEstimated(page, 0);
      const want = cliSample(expr, '7');
      const h = await headers(page);
      const w = Number(/bins of (\d+)\)$/.exec(h.legend[1])?.[1]);
      assert.deepEqual(h.legend, ['values', `${expr} (estimate from 10000 rolls, bins of ${w})`]);
      assert.equal(await page.textContent('#bin-note'), `each bar a bin of ${w} values`);
      // Freedman-Diaconis (about 33000 and 260000 here), to 1, 2, 5 x 10^k,
      // at most a bar per 6 px, and at least 10 bars
      // the rolls' own range (min and max are the expression's bounds)
      const lo = want.outcomes[0][0], hi = want.outcomes.at(-1)[0];
      const bars = Math.floor(hi / w) - Math.floor(lo / w) + 1;
      const width = await page.$eval('#chart', (c) => c.clientWidth);
      assert.ok(bars <= (width - 70) / 6 && bars >= 10, `${size} ${expr}: ${bars} bars of ${w} in ${width} px`);
      assert.match(String(w), /^[125]0*$/);
      const rows = await binnedRows(page);
      assert.equal(rows.length, bars);
      let total = 0;
      for (const [from, to, p] of rows) {
        const inBin = want.outcomes.filter(([v]) => v >= from && v <= to).reduce((a, [, q]) => a + q, 0);
        assert.ok(Math.abs(p - inBin) < 1e-12, `${size} ${expr} ${from}: ${p} for ${inBin}`);
        total += p;
      }
      assert.ok(Math.abs(total - 1) < 1e-9);
      console.log(`${size} (${width} px): ${expr} in ${bars} bins of ${w}`);
      assert.equal(await overflows(page), false, size);
      await axe(page, `${size}, a binned estimate`);
      await page.screenshot({ path: join(shots, `estimate-bins-${expr.replace(/[^0-9a-z]+/gi, '-')}-${size}.png`), fullPage: true });
      await page.close();
    }
    await ctx.close();
  }
});

test('a narrow estimate keeps a bar per value; a link may ask for fewer rolls', async () => {
  // 1000d6*1000d6/100000: about 25 values, fewer than sqrt(10000)
  const expr = '1000d6*1000d6/100000';
  const page = await open(link({ e: expr, v: 'dist', x: '0.7.3000' }));
  await waitEstimated(page, 0);
  const want = cliSample(expr, '7', 3000, 3);
  assert.deepEqual(await headers(page), { summary: [`${expr} (estimate from 3000 rolls)`],
    legend: ['value', `${expr} (estimate from 3000 rolls)`], table: ['value', `${expr} (estimate from 3000 rolls)`] });
  assert.equal(await page.textContent('#bin-note'), '');
  assert.match(await page.textContent('#dist-notes'), /the same rolls as alea dist --sample 3000 --seed 7 --threads 3$/);
  const rows = await tableColumns(page);
  assert.deepEqual(rows.map((r) => [r.value, r.cells[0]]), want.outcomes);
  assert.deepEqual(estimatesOf(page), ['0.7.3000']);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
  assert.equal(readFileSync(await download.path(), 'utf8').split('\n')[0], `value,"${expr} (estimate from 3000 rolls)"`);
  await page.screenshot({ path: join(shots, 'estimate-narrow.png'), fullPage: true });
  // what a link cannot ask: rolls that are not whole chunks, more than
  // 10000, a line that is not refused, one twice (the first is kept)
  for (const [xs, kept] of [[['0.7.2500'], []], [['0.7.11000'], []], [['0.7', '0.8'], ['0.7']],
    [['1.7'], []], [['0.99999999999999999999'], []], [['0.x'], []]]) {
    const h = new URLSearchParams({ e: `${expr}\n3d6`, v: 'dist' });
    for (const x of xs) h.append('x', x);
    const p = await open('#' + h.toString());
    await waitEstimated(p, kept.length ? 0 : 1);
    assert.deepEqual(estimatesOf(p), kept, xs.join(' '));
    await p.close();
  }
  await page.close();
});

test('an estimate is bounded by the deadline: a chunk it stops ends the estimate', async () => {
  // refused by the support limit at once (under 15 ms in node), while 1000
  // rolls of its 9000 dice take 70 ms or more: d= lowers the deadline to 30
  // (after a first distribution: the module's first call is the slowest)
  const page = await open(link({ e: '3d6', v: 'dist', d: '30' }));
  await submit(page, 'd1000000*d1000000*9000d6');
  assert.match(await page.textContent('#errors .message'), /support limit is/);
  await page.click('#errors button.estimate');
  await page.waitForFunction(() => /stopped after 0\.03 s/.test(document.getElementById('errors').textContent)
    && !document.body.dataset.busy);
  assert.equal(await page.$('#errors button.estimate'), null);
  assert.equal(await page.isHidden('#dist-view'), true);
  assert.deepEqual(estimatesOf(page), [], 'no rolls counted, nothing to link');
  await page.close();
});

test('a link\'s estimates are made in turn; Cancel ends them all', async () => {
  // two lines of 9000 dice: 1000 rolls take 70 ms or more
  const slow = 'd1000000*d1000000*9000d6';
  const h = new URLSearchParams({ e: `${slow}\n${slow}+1`, v: 'dist' });
  h.append('x', '0.7');
  h.append('x', '1.7');
  // Cancel, pressed as soon as the first estimate has counted a chunk (from
  // inside the page: a click from here may come after both are done)
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.addInitScript(() => addEventListener('DOMContentLoaded', () => {
    const what = document.getElementById('busy-what');
    new MutationObserver((_, seen) => {
      if (!/^Estimating: [1-9]\d* of 10000 rolls$/.test(what.textContent)) return;
      seen.disconnect();
      document.getElementById('cancel').click();
    }).observe(what, { childList: true, characterData: true, subtree: true });
  }));
  await page.goto(base + '#' + h.toString());
  await page.waitForFunction(() => document.body.dataset.ready === '1' && !document.body.dataset.busy &&
    !document.body.dataset.drawing);
  // the first is shown as far as it went, the second keeps its error and button
  assert.match(await page.textContent('#dist-notes'), /; stopped after \d+ rolls \(cancelled\); the same rolls as alea dist --sample \d+ --seed 7 --threads \d+$/);
  assert.equal((await page.$$('#errors button.estimate')).length, 1);
  const [x] = estimatesOf(page);
  assert.match(x, /^0\.7\.\d+000$/);
  assert.equal(estimatesOf(page).length, 1);
  await page.close();
});

test('an estimate shows its progress; a newer request ends it and its progress line', async () => {
  const page = await open(link({ e: 'd1000000*d1000000*9000d6', v: 'dist' }));
  await page.click('#errors button.estimate');
  await page.waitForFunction(() => /^Estimating: \d+ of 10000 rolls$/.test(
    document.getElementById('busy-what').textContent));
  await submit(page, '3d6');
  assert.equal(await page.textContent('#busy-what'), '');
  assert.deepEqual((await headers(page)).summary, ['3d6']);
  await page.close();
});

// ---- Fractions: the exact answers beside the decimals ----

const cliExact = (args) => {
  const r = spawnSync(ALEA, [...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

// The distribution table's fractions: {value: [the whole fraction of each exact column]}.
async function fractionRows(page) {
  await allRows(page);
  return new Map(await page.$$eval('#dist-table tbody tr', (rows) => rows.map((tr) =>
    [Number(tr.cells[0].textContent), [...tr.querySelectorAll('td.frac')].map((c) => c.dataset.frac ?? '')])));
}

test('Fractions: 3d6 and 200d20 in fractions digit for digit as `alea dist --exact --json`; the link keeps it', async () => {
  const page = await open(link({ e: '3d6', v: 'dist' }));
  assert.equal(await page.isChecked('#fractions'), false);
  assert.equal(await page.$('#dist-table td.frac'), null, 'fractions shown while off');
  // the keyboard reaches the toggle: a space turns it on
  await page.focus('#fractions');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('#dist-table td.frac'));
  await settled(page);
  assert.match(page.url(), /[#&]f=1(&|$)/);
  const heads = await page.$$eval('#dist-table thead th', (t) => t.map((th) => th.textContent));
  assert.deepEqual(heads, ['value', '3d6', 'exact']);
  let rows = await fractionRows(page);
  assert.deepEqual(rows.get(3), ['1/216']);
  assert.deepEqual(rows.get(10), ['1/8']);
  const want = cliExact(['dist', '--exact', '--json', '3d6']);
  assert.deepEqual([...rows].map(([v, [f]]) => [v, f]), want.outcomes);
  const sum = await summary(page);
  assert.deepEqual(sum['mean, exact'], ['21/2']);
  assert.deepEqual(sum['variance, exact'], ['35/4']);
  // the chance of at least, exactly: the fractions summed
  await page.check('input[name=mode][value=atleast]');
  await page.waitForFunction(() => document.querySelector('#dist-table tbody tr td.frac'));
  rows = await fractionRows(page);
  assert.deepEqual(rows.get(3), ['1']);
  assert.deepEqual(rows.get(18), ['1/216']);
  assert.deepEqual(rows.get(11), ['1/2']);
  await page.check('input[name=mode][value=exact]');
  await settled(page);

  // the link reopens with fractions on; off again, the link drops f
  const again = await open(new URL(page.url()).hash);
  assert.equal(await again.isChecked('#fractions'), true);
  assert.deepEqual((await fractionRows(again)).get(10), ['1/8']);
  await again.uncheck('#fractions');
  await settled(again);
  await again.waitForFunction(() => !document.querySelector('#dist-table td.frac'));
  assert.doesNotMatch(again.url(), /[#&]f=1/);
  await again.close();

  // a long fraction: 200d20's chance of 2100, hundreds of digits, cut in its
  // cell and whole a click away; two lines compared, each with its own
  await submit(page, '200d20\n3d6');
  const long = cliExact(['dist', '--exact', '--json', '200d20']);
  const want2100 = long.outcomes.find(([v]) => v === 2100)[1];
  assert.ok(want2100.length > 300, want2100);
  rows = await fractionRows(page);
  for (const [v, f] of long.outcomes) if (rows.has(v)) assert.equal(rows.get(v)[0], f, `200d20 at ${v}`);
  assert.equal(rows.get(2100)[0], want2100);
  assert.deepEqual(rows.get(10), ['', '1/8']);
  const cell = page.locator('#dist-table tbody tr', { hasText: /^2100/ }).locator('td.frac').first();
  const cut = await cell.locator('summary').textContent();
  assert.ok(cut.length < 60 && cut.includes('…'), cut);
  assert.equal(await cell.locator('.frac-all').isVisible(), false);
  await cell.locator('summary').click();
  assert.equal(await cell.locator('.frac-all').textContent(), want2100);
  assert.equal((await summary(page))['mean, exact'][0], long.mean);

  // the CSV: each line's fractions whole, in a column after its own
  const csv = await csvLines(page);
  assert.equal(csv[0], 'value,"200d20","200d20 exact","3d6","3d6 exact"');
  const line = csv.find((l) => l.startsWith('2100,')).split(',');
  assert.equal(line[2], want2100);
  assert.equal(csv.find((l) => l.startsWith('10,')).split(',')[4], '1/8');
  await page.close();
});

test('Fractions: the distances, the table view\'s cells and a policy are the CLI\'s --exact ones', async () => {
  const page = await open(link({ e: 'd20\n2d20kh1', v: 'dist', f: '1' }));
  const want = cliExact(['compare', '--exact', '--json', 'd20', '2d20kh1']).versus[0];
  const exact = await page.$$eval('#versus-table tbody tr.exact td', (c) => c.map((td) => td.dataset.frac));
  assert.deepEqual(exact, ['p_greater', 'p_equal', 'p_less', 'tv', 'ks', 'emd'].map((k) => want[k]));
  // a policy's values
  await submit(page, 'dd(3, 14, best)');
  const pol = cliExact(['policy', '--exact', '--json', 'dd(3, 14, best)']);
  const shown = await page.$$eval('#policy-table tbody tr', (rows) => rows.map((tr) =>
    [...tr.querySelectorAll('.frac')].map((s) => s.dataset.frac)));
  shown.forEach((fr, i) => assert.ok(fr.includes(pol.rows[i].value), `${fr} ${pol.rows[i].value}`));
  assert.match(await page.textContent('#policy-goal'), new RegExp(`Exactly: ${pol.optimum}`));
  // the table view: each cell's fraction under its number
  await page.close();
  const tpage = await open(tableLink('d20 + m >= dc', ['m=0..3', 'dc=10..12'], ['mean']) + '&f=1');
  const t = JSON.parse(cliTable('d20 + m >= dc', ['m=0..3', 'dc=10..12'], ['mean'], '--exact', '--json'));
  const cells = await tpage.$$eval('#table-grids table tbody tr', (rows) => rows.map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.querySelector('.frac')?.dataset.frac)));
  assert.deepEqual(cells, t.stats[0].cells);
  assert.match(tpage.url(), /[#&]f=1(&|$)/);
  // off: the cells' numbers alone
  await tpage.uncheck('#fractions');
  await tpage.waitForFunction(() => !document.querySelector('#table-grids .frac'));
  await tpage.close();
});

test('Fractions: a refusal in exact mode shows as an error with its hint', async () => {
  const page = await open(link({ e: '30d10!kh15', v: 'dist', f: '1' }));
  const errors = await errorsShown(page);
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /work limit is/);
  assert.match(await page.textContent('#errors .hint'), /turn off Fractions/);
  await page.close();
});

test('Fractions: scripts/hostile\'s inputs in fractions, in the worker: each a result or an error', async (t) => {
  // the cases scripts/hostile runs with --exact, typed as a user would
  // (one line, within the page's 4096 bytes)
  const cases = hostileCases().filter(([src, exact]) => exact && !/[\n\r]/.test(src) && src.length <= 4096);
  assert.ok(cases.length >= 5, `${cases.length} cases`);
  const page = await open(link({ e: '3d6', v: 'dist', f: '1' }));
  let results = 0, errors = 0;
  for (const [src] of cases) {
    const start = Date.now();
    await submit(page, src);
    const shown = await errorsShown(page);
    if (shown.length) {
      assert.ok(shown[0].message.length > 0, src);
      errors++;
    } else {
      assert.ok(Number(await page.getAttribute('#dist-table', 'data-rows')) > 0, `${src}: no rows`);
      results++;
    }
    // the request's deadline is 2 s; the rest is slack for a busy machine:
    // this catches a hang, not a slow answer
    assert.ok(Date.now() - start < 15000, `${src}: no answer within 15 s`);
  }
  t.diagnostic(`${cases.length} cases: ${results} results, ${errors} errors`);
  assert.ok(errors > 0, 'none refused');
  // the page still answers, in fractions
  await submit(page, '3d6');
  assert.deepEqual(await errorsShown(page), []);
  assert.equal(await page.getAttribute('#dist-table td.frac', 'data-frac'), '1/216');
  await page.close();
});

test('Fractions: a phone has no page wider than its screen; axe finds nothing', async () => {
  for (const [size, ctx] of [['desktop', await browser.newContext({ viewport: { width: 1280, height: 800 } })],
    ['phone', await phoneContext()]]) {
    const page = await open(link({ e: '200d20\n3d6', v: 'dist', f: '1' }), ctx);
    assert.equal(await page.isChecked('#fractions'), true);
    // the first screen of rows (the others are built as they scroll into view, the same)
    assert.equal(await overflows(page), false, `${size}: wider than the screen`);
    await page.locator('#dist-table details.frac summary').first().click();
    assert.equal(await overflows(page), false, `${size}: wider than the screen, a fraction opened`);
    await axe(page, `${size}, fractions`);
    await page.screenshot({ path: join(shots, `fractions-${size}.png`) });
    await submit(page, 'd20\n2d20kh1');
    await axe(page, `${size}, fractions compared`);
    await submit(page, 'dd(3, 14, best)');
    await axe(page, `${size}, fractions of a policy`);
    await ctx.close();
  }
});
