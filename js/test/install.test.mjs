// install.test.mjs -- the package as a user gets it: packed by `npm pack`,
// installed offline into a fresh directory (the tarball, and the folder
// js/ itself), then used from ESM and CommonJS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
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
  p7: 1 / 6, // the nearest double to 6/36
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
