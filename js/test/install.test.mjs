// install.test.mjs -- the package as a user gets it: packed by `npm pack`,
// installed offline into a fresh directory (the tarball, and the folder
// js/ itself), then used from ESM and CommonJS; and loaded over HTTP as a
// browser loads it, its .wasm fetched beside the module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:http';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
const tmp = mkdtempSync(join(tmpdir(), 'alea-npm-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

// npm with no registry to reach (a closed port on the loopback) and an
// empty cache of its own: whatever it would need from outside fails.
const npmEnv = {
  ...process.env,
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_cache: join(tmp, 'npm-cache'),
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
const npm = (args, cwd) => execFileSync('npm', args, { cwd, env: npmEnv, encoding: 'utf8' });

// A fresh project that installs `what` and uses it; returns what it printed.
function use(name, what) {
  const dir = join(tmp, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  npm(['install', '--no-package-lock', what], dir);
  writeFileSync(join(dir, 'app.mjs'), `
    import { load, dist, AleaError } from 'alea-dice';
    const alea = await load();
    const d = await dist('2d6');
    let error;
    try { alea.roll('2d+3'); } catch (e) { error = [e instanceof AleaError, e.status, e.start]; }
    console.log(JSON.stringify({ version: alea.version, roll: alea.roll('4d6kh3', { seed: 7 }).text,
      p7: d.p(7), error }));
  `);
  writeFileSync(join(dir, 'app.cjs'), `
    const alea = require('alea-dice');
    alea.roll('4d6kh3', { seed: 7 }).then((r) => console.log(r.markdown));
  `);
  const run = (file) => execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
  return { esm: JSON.parse(run('app.mjs')), cjs: run('app.cjs').trim() };
}

const want = {
  version,
  roll: '4d6kh3 [5, 2 dropped, 6, 6] = 17',
  p7: 0.16666666666666669,
  error: [true, 'ALEA_ERR_SYNTAX', 2],
};

test('npm pack, then the tarball installed offline into a fresh directory', () => {
  const tarball = npm(['pack', '--silent', '--pack-destination', tmp], pkg).trim().split('\n').at(-1);
  assert.equal(tarball, `alea-dice-${version}.tgz`);
  const files = execFileSync('tar', ['tzf', join(tmp, tarball)], { encoding: 'utf8' })
    .trim().split('\n').sort();
  assert.deepEqual(files, ['package/README.md', 'package/alea.wasm', 'package/index.cjs',
    'package/index.d.cts', 'package/index.d.ts', 'package/index.mjs', 'package/package.json',
    'package/wasm.mjs']);
  const got = use('from-tarball', join(tmp, tarball));
  assert.deepEqual(got.esm, want);
  assert.equal(got.cjs, '4d6kh3 [5, ~~2~~, **6**, **6**] = `17`');
});

test('npm install ./js: the folder itself, offline', () => {
  const got = use('from-folder', pkg);
  assert.deepEqual(got.esm, want);
  assert.equal(got.cjs, '4d6kh3 [5, ~~2~~, **6**, **6**] = `17`');
});

// node imports http: modules only with --experimental-network-imports (18
// to 21); a browser always does
const networkImports = process.allowedNodeEnvironmentFlags.has('--experimental-network-imports');

test('from a web server, as a browser loads it: the .wasm fetched beside the module', {
  skip: !networkImports && `node ${process.version} cannot import modules over HTTP`,
}, async () => {
  const types = { '.mjs': 'text/javascript', '.wasm': 'application/wasm' };
  const served = [];
  const server = createServer((req, res) => {
    const file = new URL(req.url, 'http://x').pathname.slice(1);
    served.push(file);
    if (!/^[a-z]+\.(mjs|wasm)$/.test(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[extname(file)] }).end(readFileSync(join(pkg, file)));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    const url = `http://127.0.0.1:${server.address().port}/index.mjs`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--experimental-network-imports',
      '--no-warnings', '--input-type=module', '-e', `
      const { load } = await import(${JSON.stringify(url)});
      const alea = await load();
      console.log(alea.roll('4d6kh3', { seed: 7 }).text);
    `], { encoding: 'utf8', timeout: 30000 });
    assert.equal(stdout.trim(), want.roll);
    assert.ok(served.includes('alea.wasm') && served.includes('wasm.mjs'), served.join(' '));
  } finally {
    server.close();
  }
});
