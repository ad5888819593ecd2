// browser.test.mjs -- the package as a browser loads it: its files served
// from 127.0.0.1, index.mjs imported by a page in headless Chromium (and by
// node over HTTP), alea.wasm fetched beside it. Chromium is driven by
// playwright-core, the page's test tool (web/package.json, installed by
// scripts/web build); Chromium itself by scripts/js test when missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// A page that uses the package as a web app would, and shows what it got.
const PAGE = `<!doctype html><meta charset="utf-8"><title>alea-dice</title>
<script type="module">
import { load, AleaError } from './index.mjs';
const out = {};
try {
  const alea = await load();
  out.version = alea.version;
  out.roll = alea.roll('4d6kh3', { seed: 7 }).text;
  out.p7 = alea.dist('2d6').p(7);
  try { alea.roll('1d20 + str'); } catch (e) { out.error = [e instanceof AleaError, e.caret()]; }
  const now = await load({ limits: { deadline: 0 } });
  try { now.dist('8d1000'); } catch (e) { out.deadline = e.message; }
  out.unseeded = alea.roll('1d1000000000').total !== alea.roll('1d1000000000').total;
} catch (e) {
  out.failed = String(e);
}
window.result = out;
</script>`;

const TYPES = { mjs: 'text/javascript', wasm: 'application/wasm' };
const served = [];
let server, base;

before(async () => {
  server = createServer((req, res) => {
    const file = new URL(req.url, 'http://x').pathname.slice(1);
    served.push(file);
    if (file === 'favicon.ico') {
      res.writeHead(204).end();
    } else if (file === '') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    } else if (/^(index|wasm)\.mjs$|^alea\.wasm$/.test(file)) {
      res.writeHead(200, { 'content-type': TYPES[file.split('.').pop()] })
        .end(readFileSync(join(pkg, file)));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}/`;
});

after(() => server.close());

test('in headless Chromium: a page imports the package; the .wasm comes beside it', async () => {
  const { chromium } = createRequire(join(pkg, '..', 'web', 'package.json'))('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    served.length = 0;
    await page.goto(base);
    await page.waitForFunction(() => window.result, null, { timeout: 30000 });
    const got = await page.evaluate(() => window.result);
    assert.deepEqual(got, {
      version: JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version,
      roll: '4d6kh3 [5, 2 dropped, 6, 6] = 17',
      p7: 1 / 6, // the nearest double to 6/36
      error: [true, '1d20 + str\n       ^^^'],
      deadline: 'timed out after 0 ms (the deadline)',
      unseeded: true,
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(served.sort(), ['', 'alea.wasm', 'favicon.ico', 'index.mjs', 'wasm.mjs']);
  } finally {
    await browser.close();
  }
});

// node imports http: modules only with --experimental-network-imports (18
// to 21)
const networkImports = process.allowedNodeEnvironmentFlags.has('--experimental-network-imports');

test('node, importing over HTTP: the .wasm fetched, not read from disk', {
  skip: !networkImports && `node ${process.version} cannot import modules over HTTP`,
}, async () => {
  served.length = 0;
  const { stdout } = await promisify(execFile)(process.execPath, ['--experimental-network-imports',
    '--no-warnings', '--input-type=module', '-e', `
    const { load } = await import(${JSON.stringify(`${base}index.mjs`)});
    console.log((await load()).roll('4d6kh3', { seed: 7 }).text);
  `], { encoding: 'utf8', timeout: 30000 });
  assert.equal(stdout.trim(), '4d6kh3 [5, 2 dropped, 6, 6] = 17');
  assert.deepEqual(served.sort(), ['alea.wasm', 'index.mjs', 'wasm.mjs']);
});
