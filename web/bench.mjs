// bench.mjs -- how long the page (web/dist) takes from a click on "Show the
// distribution" to its chart and table on screen, in headless Chromium
// (playwright-core, as web/test/page.test.mjs drives it), for the cases of
// bench/README.md's "The page". Prints a Markdown table of the median and
// the range of RUNS runs each (after one run to warm up); a benchmark, not
// a test: it asserts nothing about time, which a busy machine changes.
//
//   node bench.mjs [RUNS]     (scripts/web bench builds web/dist first)
//
// Click to shown: the click, the worker's computation, and the page's
// rendering, until the page says it is settled (body's data-ready set, no
// data-busy, no data-drawing); painted: the next frame after that, the
// summary, the chart and the table's rows built (a screen of them: the
// others are built as they scroll into view) laid out and on screen.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { serveDir, launchChromium } from './test/serve.mjs';

const dist = join(dirname(fileURLToPath(import.meta.url)), 'dist');
const RUNS = Number(process.argv[2] || 9);

const CASES = [
  ['`100d6kh50`', '100d6kh50'],
  ['`event(d12 + d14 + d18 + d20)`', 'event(d12 + d14 + d18 + d20)'],
  ['4-line compare: `100d6`, `100d6kh50`, `100d6kl50`, `100d6kh90`',
    '100d6\n100d6kh50\n100d6kl50\n100d6kh90'],
];

const { server, base } = await serveDir(dist);
const browser = await launchChromium();

// One click on "Show the distribution", timed in the page: [click to
// shown (the page settled: its worker's answer, the summary, the chart and
// the table's rows built), click to painted (the next frame after that,
// the rows built laid out), the table's rows, the rows built (the others
// are built as they come into view: app.js showRows)].
async function once(page) {
  return page.evaluate(() => new Promise((ok) => {
    const body = document.body;
    const settled = () => body.dataset.ready === '1' && !body.dataset.busy && !body.dataset.drawing;
    delete body.dataset.ready; // set again when this update is shown
    const t0 = performance.now();
    const watch = new MutationObserver(() => {
      if (!settled()) return;
      watch.disconnect();
      const shown = performance.now() - t0;
      requestAnimationFrame(() => setTimeout(() => {
        const table = document.getElementById('dist-table');
        table.getBoundingClientRect(); // laid out, if the frame left any of it
        ok([shown, performance.now() - t0, Number(table.dataset.rows), table.tBodies[0].rows.length]);
      }, 0));
    });
    watch.observe(body, { attributes: true, attributeFilter: ['data-ready', 'data-busy', 'data-drawing'] });
    document.getElementById('show-dist').click();
  }));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ms = (x) => x.toFixed(0);

const rows = [];
for (const [name, text] of CASES) {
  for (const allRows of [false, true]) {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    page.on('pageerror', (e) => { throw e; });
    await page.goto(base);
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    await page.fill('#exprs', text);
    await once(page);
    // every row: "Show every row" pressed once, then each click shows them all
    if (allRows && await page.isVisible('#all-rows')) await page.click('#all-rows');
    const times = [];
    for (let r = 0; r <= RUNS; r++) {
      const t = await once(page);
      if (r > 0) times.push(t); // the first: a warm-up
    }
    const [n, built] = [times[0][2], times[0][3]];
    const col = (k) => times.map((t) => t[k]);
    const range = (xs) => `${ms(median(xs))} (${ms(Math.min(...xs))} to ${ms(Math.max(...xs))})`;
    rows.push(`| ${name} | ${allRows ? 'every row' : 'the tails hidden'} | ${n} | ${built} | ${ms(median(col(0)))} | ` +
      `${range(col(1))} |`);
    await page.close();
  }
}
await browser.close();
server.close();

const load = loadavg()[0].toFixed(1);
console.log(`Median of ${RUNS} runs each, ms, headless Chromium, a 1100 x 900 window ` +
  `(load average ${load} when it ended):\n`);
console.log('| case | table | rows | rows built | click to shown | click to painted (range) |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
