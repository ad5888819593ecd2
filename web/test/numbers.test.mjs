// numbers.test.mjs -- the page's arithmetic (numbers.js) against the
// command line: a percentage as `alea dist` prints it, the cumulative
// chances of `alea compare --at-least/--at-most` (100 and 0 outside an
// expression's range, the value below inside a gap), the median.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pct, columns, chance, median, mergeSamples } from '../numbers.js';

const here = dirname(fileURLToPath(import.meta.url));
const ALEA = process.env.ALEA ? join(process.cwd(), process.env.ALEA)
  : join(here, '..', '..', 'build', 'alea');
const run = (...args) => {
  const r = spawnSync(ALEA, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};
const distOf = (expr) => JSON.parse(run('dist', '--json', '--', expr));
const col = (dist) => ({ dist, c: columns(dist), at: new Map(dist.outcomes.map(([v], i) => [v, i])) });

test('a percentage reads as the command line prints it, rare ones in two digits', () => {
  // the tail of a critical pool: 3.1e-05 and down to about 1e-55 %
  const expr = 'event(d12 + d14 + d18 + d20)';
  const printed = new Map(run('dist', '--all', '--', expr).split('\n')
    .map((l) => l.trim().split(/\s+/)).filter((f) => /^-?\d+$/.test(f[0]) && f.length >= 4)
    .map((f) => [Number(f[0]), f.slice(1, 4)]));
  const d = col(distOf(expr));
  let rare = 0;
  d.dist.outcomes.forEach(([v, p], i) => {
    assert.equal(pct(p), printed.get(v)[0], `exactly ${v}`);
    assert.equal(pct(d.c.atleast[i]), printed.get(v)[1], `at least ${v}`);
    if (p * 100 < 0.005) rare++;
  });
  assert.ok(rare > 500, `${rare} rare values`);
  assert.equal(pct(0), '0.00');
  assert.equal(pct(0.5), '50.00');
  assert.equal(pct(9.96e-7), '1.0e-04'); // 9.96e-05 % rounds up
});

test('a chance below the double range, given as a string, keeps its digits', () => {
  // `alea dist 300d20` prints 4.9e-389 for all 1s (1/20^300)
  assert.equal(pct('4.90909346530e-391'), '4.9e-389');
  assert.equal(pct('9.96e-400'), '1.0e-397');
  assert.equal(pct('1e-400'), '1.0e-398');
  const d = columns({ outcomes: [[1, '1e-400'], [2, 0.5], [3, 0.5]] });
  assert.deepEqual(d.atmost, [0, 0.5, 1]); // the string counts as 0 in sums
});

test('at least and at most are 100 and 0 outside a range, as compare prints them', () => {
  for (const exprs of [['2d20kh1', '1d20+5'], ['2d6*2', '1d12'], ['dd(6, 14)', '3d6']]) {
    const cols = exprs.map((e) => col(distOf(e)));
    for (const [flag, mode] of [['--at-least', 'atleast'], ['--at-most', 'atmost']]) {
      const rows = run('compare', flag, '--csv', ...exprs).trimEnd().split('\n').slice(1);
      assert.ok(rows.length > 5);
      for (const row of rows) {
        const [v, ...ps] = row.split(',').map(Number);
        cols.forEach((c, k) => {
          const p = chance(c, v, mode);
          assert.ok(Math.abs(p - ps[k]) < 1e-12, `${exprs[k]} ${mode} ${v}: ${p} against ${ps[k]}`);
        });
      }
    }
    // exactly: blank where a value cannot happen
    assert.equal(chance(cols[0], cols[0].dist.max + 1, 'exact'), undefined);
  }
});

test('the median is the command line\'s', () => {
  for (const expr of ['4d6kh3', '2d20kh1', '3d6', '1d2', 'dd(6, 14, best)', '10d10>=8f1', '1d6-1d6']) {
    const d = distOf(expr);
    const want = Number(run('dist', '--', expr).match(/median (-?\d+)/)[1]);
    assert.equal(median(d, columns(d)), want, expr);
  }
});

test('mergeSamples adds the counts of samples into one estimate', () => {
  const a = { samples: 4, outcomes: [[1, 0.25], [2, 0.75]] };
  const b = { samples: 6, outcomes: [[2, 0.5], [5, 0.5]] };
  const d = mergeSamples([a, b]);
  // counts: 1 x1, 2 x(3+3), 5 x3 of 10
  assert.deepEqual(d.outcomes, [[1, 0.1], [2, 0.6], [5, 0.3]]);
  assert.equal(d.samples, 10);
  assert.equal(d.min, 1);
  assert.equal(d.max, 5);
  assert.ok(Math.abs(d.mean - 2.8) < 1e-12);
  assert.ok(Math.abs(d.sd - Math.sqrt((1.8 ** 2 + 6 * 0.8 ** 2 + 3 * 2.2 ** 2) / 10)) < 1e-12);
});
