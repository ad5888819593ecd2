// types.test.mjs -- index.d.ts and index.d.cts against the TypeScript
// compiler (test/types/: typescript from its package-lock.json, installed by
// scripts/js test): what a user writes compiles, from ESM and CommonJS, and
// each misuse in misuse.ts is an error on its line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'types');
const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
const run = (args) => spawnSync(process.execPath, [tsc, ...args], { cwd: dir, encoding: 'utf8' });

test('the compiler is there (scripts/js test installs it)', () => {
  assert.ok(existsSync(tsc), `${tsc} is missing: run scripts/js test, or npm ci in js/test/types`);
});

test('use.ts (ESM) and use.cts (CommonJS) compile under strict', () => {
  const r = run(['-p', '.']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('each misuse is a type error on its line', () => {
  const r = run(['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--target', 'es2022', 'misuse.ts']);
  assert.notEqual(r.status, 0);
  const lines = [...r.stdout.matchAll(/^misuse\.ts\((\d+),\d+\): error/gm)].map((m) => Number(m[1]));
  assert.deepEqual(lines, [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23], r.stdout);
});
