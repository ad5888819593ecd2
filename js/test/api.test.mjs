// api.test.mjs -- alea-dice's API (index.mjs) on the module built by
// scripts/js build: results, errors as exceptions with their position, each
// limit at N and N + 1, the deadline, and what strangers type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, roll, dist, compare, AleaError, Roll, Dist, Comparison, LIMITS, LIBRARY_LIMITS, COMPARE_CELLS_MAX }
  from '../index.mjs';
import { execFileSync } from 'node:child_process';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const alea = await load();
// an instance with a deadline of 1 ms
const slow = await load({ limits: { deadline: 1 } });
// The command line the package is held against: scripts/js test builds it.
const ALEA = process.env.ALEA ?? join(root, 'build', 'alea');

// Throws an AleaError of this status whose message matches.
function refused(fn, status, message) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof AleaError, `not an AleaError: ${e}`);
    assert.equal(e.status, status, e.message);
    if (message instanceof RegExp) assert.match(e.message, message);
    else if (message !== undefined) assert.equal(e.message, message);
    return true;
  });
}

test('the version is the library\'s, in the module and in package.json', () => {
  const h = readFileSync(join(root, 'include', 'alea.h'), 'utf8');
  const want = /#define ALEA_VERSION_STRING "([^"]+)"/.exec(h)[1];
  assert.equal(alea.version, want);
  assert.equal(JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')).version, want);
});

test('roll: the breakdown of `alea roll --seed`, in text and Markdown', () => {
  const r = alea.roll('4d6kh3', { seed: 7 });
  assert.ok(r instanceof Roll);
  assert.equal(r.text, '4d6kh3 [5, 2 dropped, 6, 6] = 17');
  assert.equal(r.markdown, '4d6kh3 [5, ~~2~~, **6**, **6**] = `17`');
  assert.equal(r.total, 17);
  assert.equal(r.detail.dice[0].dice.length, 4);
  assert.equal(String(r), r.text);
  // seeds: a number, a bigint and a string are the same seed
  for (const seed of [7n, '7']) assert.equal(alea.roll('4d6kh3', { seed }).text, r.text);
  // n: an array, the generator going on
  const three = alea.roll('1d20+5', { seed: 7, n: 3, detail: false });
  assert.deepEqual(three.map((x) => x.text), ['1d20 [15] + 5 = 20', '1d20 [6] + 5 = 11',
    '1d20 [17] + 5 = 22']);
  assert.equal(three[0].detail, null);
  // a repeat: each total
  assert.deepEqual(alea.roll('3 x 1d6', { seed: 1 }).totals.length, 3);
  // the largest seed reaches the generator whole (as the CLI's test of the page)
  const big = alea.roll('1d1000000', { seed: '18446744073709551615' }).total;
  assert.equal(alea.roll('1d1000000', { seed: (1n << 64n) - 1n }).total, big);
  assert.notEqual(alea.roll('1d1000000', { seed: '18446744073709551614' }).total, big);
  // seed(): the rolls after it are the seeded ones
  alea.seed(7);
  assert.deepEqual(alea.roll('1d20+5', { n: 3 }).map((x) => x.total), three.map((x) => x.total));
  assert.throws(() => alea.seed(), RangeError);
  // labels and the comment, as written
  const labelled = alea.roll('(2d6 + 3) [fire] + 1d4 [cold] # a fireball', { seed: 1 });
  assert.deepEqual(labelled.labels.map(([l]) => l), ['fire', 'cold']);
  assert.equal(labelled.labels.reduce((t, [, v]) => t + v, 0), labelled.total);
  assert.equal(labelled.comment, 'a fireball');
  assert.deepEqual([r.labels, r.comment], [[], null]);
  // without a seed, from the system's entropy
  assert.notEqual(alea.roll('1d1000000000').total, alea.roll('1d1000000000').total);
});

test('roll luck: each total\'s place in its distribution, as `alea roll --luck --json`', () => {
  // d20 rolled 17: 17/20 roll at most it, 4/20 at least it
  const r = alea.roll('d20', { seed: 8, luck: true });
  assert.equal(r.total, 17);
  assert.deepEqual(r.luck, { at_most: 17 / 20, at_least: 4 / 20 });
  assert.equal(r.luckRefused, null);
  // a repeat: one per roll
  const rep = alea.roll('2 x d20', { seed: 8, luck: true });
  assert.deepEqual(rep.luck, [{ at_most: 0.85, at_least: 0.2 }, { at_most: 0.65, at_least: 0.4 }]);
  // the low edge: every roll is at least 1
  assert.deepEqual(alea.roll('d6', { seed: 9, luck: true }).luck, { at_most: 1 / 6, at_least: 1 });
  assert.equal(alea.roll('d6', { seed: 9 }).luck, null);
  // a refused distribution: the roll all the same, and why
  const big = alea.roll('200d1000', { seed: 1, luck: true });
  assert.equal(big.luck, null);
  assert.match(big.luckRefused, /support limit/);
  assert.ok(big.total >= 200);
});

test('roll luck is the module\'s: as `alea roll --luck --json`, digit for digit', () => {
  const cli = (args) => execFileSync(ALEA, ['roll', '--luck', '--json', ...args], { encoding: 'utf8' })
    .trim().split('\n').map((l) => JSON.parse(l).luck);
  for (const [expr, seed] of [['3d6', 7], ['4d6kh3 + 2d10!', 3], ['dd(5, 14)', 11]]) {
    assert.deepEqual(alea.roll(expr, { seed, n: 4, luck: true, detail: false }).map((r) => r.luck),
      cli(['-n', '4', '--seed', String(seed), expr]), expr);
  }
  assert.deepEqual(alea.roll('3 x 3d6', { seed: 7, luck: true }).luck, cli(['--seed', '7', '3 x 3d6'])[0]);
  // a distribution past the deadline's half: the rolls all the same
  const r = slow.roll('300d300 + 1d1000', { seed: 2, luck: true, detail: false });
  assert.equal(r.luck, null);
  assert.match(r.luckRefused, /takes too long to compute here/);
});

const close = (x, y) => Math.abs(x - y) < 1e-15;

test('compare: the distances between mechanics, by hand on small cases', () => {
  const c = alea.compare('d2', 'd3');
  assert.ok(c instanceof Comparison);
  assert.deepEqual(c.names, ['d2', 'd3']);
  assert.ok(c.dists.every((d) => d instanceof Dist));
  assert.deepEqual(c.outcomes, [1, 2, 3]);
  assert.equal(c.versus.length, 1);
  // d2 against d3: A > B 1/6 (2 over 1), A = B 2/6, A < B 1/2; TV 1/3
  // (|1/2 - 1/3| twice, and 1/3), KS 1/3 (at 1: 1/2 - 1/3... at 2: 1 - 2/3),
  // EMD 1/6 + 1/3 = 1/2
  const v = c.versus[0];
  assert.deepEqual([v.a, v.b], [0, 1]);
  const want = { p_greater: 1 / 6, p_equal: 1 / 3, p_less: 1 / 2, tv: 1 / 3, ks: 1 / 3, emd: 1 / 2 };
  for (const [k, x] of Object.entries(want)) assert.ok(close(v[k], x), `${k}: ${v[k]}`);
  // d20 against d20 + 5: the earth moves 5; identical columns are 0 apart
  const shift = alea.compare('d20', 'd20 + 5', ['same', 'd20']).versus;
  assert.equal(shift[0].emd, 5);
  assert.ok(close(shift[0].tv, 0.25) && close(shift[0].ks, 0.25));
  assert.deepEqual([shift[1].tv, shift[1].ks, shift[1].emd, shift[1].p_greater], [0, 0, 0, shift[1].p_less]);
  // sums of a row: 1
  for (const x of shift) assert.ok(close(x.p_greater + x.p_equal + x.p_less, 1));
});

test('compare: as `alea compare --json`, each against the first or every pair', () => {
  const cli = (args) => JSON.parse(execFileSync(ALEA, ['compare', '--json', ...args], { encoding: 'utf8' }));
  const cols = ['4d6kh3', 'best=4d6dl1r1', 'dd(5, 14)', '3d6'];
  assert.deepEqual(alea.compare('4d6kh3', ['best', '4d6dl1r1'], 'dd(5, 14)', '3d6').json, cli(cols));
  assert.deepEqual(alea.compare('4d6kh3', ['best', '4d6dl1r1'], 'dd(5, 14)', '3d6', { pairs: true }).json,
    cli(['--pairs', ...cols]));
  // in Roll20's notation too
  assert.deepEqual(alea.compare('3d6>3', 'd4', { dialect: 'roll20' }).versus,
    cli(['--dialect', 'roll20', '3d6>3', 'd4']).versus);
  // one column: no distances
  assert.deepEqual(alea.compare('d6').versus, []);
});

test('compare: the table, by name, and the shared instance', async () => {
  const c = alea.compare('d4', ['plus two', 'd4 + 2']);
  assert.deepEqual(c.table(), [[1, [0.25, null]], [2, [0.25, null]], [3, [0.25, 0.25]],
    [4, [0.25, 0.25]], [5, [null, 0.25]], [6, [null, 0.25]]]);
  assert.deepEqual(c.table('at_least').map(([, ps]) => ps),
    [[1, 1], [0.75, 1], [0.5, 1], [0.25, 0.75], [0, 0.5], [0, 0.25]]);
  assert.deepEqual(c.table('at_most').at(-1), [6, [1, 1]]);
  assert.equal(c.get('plus two').mean, 4.5);
  assert.equal(c.get('d4 + 2'), undefined);
  assert.throws(() => c.table('odds'), RangeError);
  assert.deepEqual((await compare('d2', 'd3', 'd4', { pairs: true })).versus.map(({ a, b }) => [a, b]),
    [[0, 1], [0, 2], [1, 2]]);
});

test('compare: errors name their column; limits of the whole comparison', () => {
  assert.throws(() => alea.compare('d20', 'd20 +'), (e) => e instanceof AleaError
    && e.status === 'ALEA_ERR_SYNTAX' && e.expression === 'd20 +' && e.caret() === 'd20 +\n     ^');
  assert.throws(() => alea.compare(), TypeError);
  assert.throws(() => alea.compare('d6', 'd6'), /two columns are named 'd6'/);
  assert.throws(() => alea.compare(['', 'd6']), RangeError);
  assert.throws(() => alea.compare('d6', 7), TypeError);
  // in fractions: the distances as fraction strings (js/test/exact.test.mjs has more)
  assert.deepEqual(alea.compare('d2', 'd3', { exact: true }).versus[0],
    { a: 0, b: 1, p_greater: '1/6', p_equal: '1/3', p_less: '1/2', tv: '1/3', ks: '1/3', emd: '1/2' });
  // cells: 20 values x 2 columns, at N and N + 1
  assert.equal(alea.compare('d20', ['b', 'd20'], { maxCells: 40 }).outcomes.length, 20);
  refused(() => alea.compare('d20', ['b', 'd20'], { maxCells: 39 }), 'ALEA_ERR_LIMIT',
    /the table would have 40 cells \(20 values x 2 columns\), more than maxCells \(39\)/);
  assert.equal(COMPARE_CELLS_MAX, 1000000);
  // the support limit holds for the columns together: 2 x 10 outcomes, and 1 more
  const old = alea.limit('support', 20);
  try {
    assert.equal(alea.compare('d10', 'd10 + 5').dists.length, 2);
    refused(() => alea.compare('d10', 'd10 + 5', '1'), 'ALEA_ERR_LIMIT',
      /the columns have more than 20 outcomes in all/);
  } finally {
    alea.limit('support', old);
  }
  // the work limit is one budget: each column fits alone, not all of them
  const one = alea.limit('work');
  alea.limit('work', 100000);
  try {
    alea.compare('100d6');
    refused(() => alea.compare('100d6', '100d6 + 1'), 'ALEA_ERR_LIMIT',
      /compare: the columns need more work in all than the work limit \(100000\)/);
    // the columns fit, the distance between them (12 units an outcome) not
    alea.limit('work', 200000);
    refused(() => alea.compare('1d40000', '1d40000 + 7'), 'ALEA_ERR_LIMIT',
      /compare: the columns and the distances between them need more work in all than the work limit \(200000\)/);
  } finally {
    alea.limit('work', one);
  }
});

test('dist: the exact distribution', () => {
  const d = alea.dist('2d6');
  assert.ok(d instanceof Dist);
  assert.equal(d.outcomes.length, 11);
  assert.ok(Math.abs(d.p(7) - 1 / 6) < 1e-15);
  assert.ok(Math.abs(d.atLeast(10) - 6 / 36) < 1e-15);
  assert.ok(Math.abs(d.atMost(3) - 3 / 36) < 1e-15);
  assert.equal(d.p(13), 0);
  assert.equal(d.mean, 7);
  assert.equal(d.median, 7);
  // every value of a large distribution, found; the median as `alea dist` prints it
  const wide = alea.dist('1d100000 - 50000');
  assert.ok([-49999, -1, 0, 1, 50000].every((v) => wide.p(v) === 1e-5));
  assert.deepEqual([wide.p(-50000), wide.p(50001), wide.p(0.5)], [0, 0, 0]);
  assert.equal(wide.median, 0);
  assert.deepEqual([alea.dist('1d6').median, alea.dist('4d6kh3').median, alea.dist('1d2').median],
    [3, 12, 1]);
  // the library's median and columns, not sums of doubles here: 1d20's
  // median is 10, 4d6kh3's chance of at least 3 exactly 1
  assert.deepEqual([alea.dist('1d20').median, alea.dist('1d20+5').median, alea.dist('1d12').median],
    [10, 15, 6]);
  const kh = alea.dist('4d6kh3');
  assert.deepEqual([kh.atLeast(3), kh.atLeast(-5), kh.atMost(18), kh.atMost(2.5), kh.atLeast(19)],
    [1, 1, 1, 0, 0]);
  assert.equal(kh.atMost(3.5), kh.p(3));
  assert.ok(!('at_least' in kh.json) && !('median' in kh.json)); // the library's JSON as it is
  assert.deepEqual([d.min, d.max], [2, 12]);
  // min and max are the expression's: 1d6! has no greatest value
  assert.deepEqual([d.open, alea.dist('1d6!').open, alea.dist('1d6!').min], [[], ['max'], 1]);
  assert.throws(() => d.p('7'), TypeError);
  const dd = alea.dist('dd(6, 14)');
  assert.equal(dd.labels.get(0), 'critical failure');
  assert.equal(dd.p(2), 0.55);
  const ev = alea.dist('event(d12 + d14 + d18 + d20)');
  assert.ok(ev.flags['critical failure'] > 0 && ev.truncated > 0);
  // exact fractions (mini-gmp in the module), as `alea dist --exact --json`
  const q = alea.dist('3d6', { exact: true });
  assert.deepEqual([q.exact, q.p(3), q.p(2), q.mean, q.variance, q.truncated], [true, '1/216', '0', '21/2', '35/4', '0']);
  assert.equal(alea.dist('3d6').exact, false);
});

test('let, if, sum, and, or, not: the names bound, the branch taken, the count', () => {
  const expr = 'let a = d20, b = a + 2 in if(a >= 10, b, 0) + sum(2, d4)';
  // the breakdowns of `alea roll --seed`
  assert.deepEqual([1, 2].map((seed) => alea.roll(expr, { seed }).text), [
    'let a = d20 [15] in let b = a + 2 = 17 in if(a >= 10 = 1, b, ...) + sum(2, d4) [3, 3] = 23',
    'let a = d20 [3] in let b = a + 2 = 5 in if(a >= 10 = 0, ..., 0) + sum(2, d4) [3, 1] = 4']);
  const r = alea.roll(expr, { seed: 1 });
  assert.deepEqual(r.bound, [{ name: 'a', term: 'd20', value: 15 },
    { name: 'b', term: 'a + 2', value: 17 }]);
  const [branch, count] = r.detail.groups;
  assert.deepEqual([branch.branch, branch.value, branch.count], ['then', 17, undefined]);
  assert.deepEqual([count.count, count.value, count.members.length, count.branch],
    [2, 6, 2, undefined]);
  assert.equal(alea.roll(expr, { seed: 2 }).detail.groups[0].branch, 'else');
  assert.deepEqual([alea.roll('2d6').bound, alea.roll(expr, { detail: false }).bound], [[], []]);
  // a name is one roll: a - a is always 0, a + a always even
  assert.deepEqual(alea.dist('let x = 3d6 in x - x').outcomes, [[0, 1]]);
  const twice = alea.dist('let a = d20 in a + a');
  assert.deepEqual([twice.p(3), twice.p(40), alea.dist('2d20').p(40)], [0, 0.05, 0.0025]);
  assert.ok(Math.abs(alea.dist('d20 >= 10 and d6 >= 4').p(1) - 11 / 40) < 1e-15);
  assert.ok(Math.abs(alea.dist('not (d20 >= 10) or d6 >= 4').p(1) - 29 / 40) < 1e-15);
  assert.equal(alea.dist('if(d20 >= 11, 2d6, 0)').mean, 3.5);
  assert.ok(Math.abs(alea.dist('sum(8, d20 >= 18) >= 1').p(1) - (1 - 0.85 ** 8)) < 1e-12);
  // a name out of scope: the error names it, with the names in scope, at its place
  try {
    alea.roll('let a = d20 in a + b');
    assert.fail('no error');
  } catch (e) {
    assert.equal(e.status, 'ALEA_ERR_SYNTAX');
    assert.match(e.line, /unknown name 'b'.*\(in scope: a\)/);
    assert.equal(e.caret(), 'let a = d20 in a + b\n                   ^');
  }
});

test('dialects: another tool\'s notation, as it means it', () => {
  assert.deepEqual(alea.dialects, ['alea', 'roll20', 'foundry', 'rpgdr', 'd20']);
  assert.equal(alea.dist('3d6>3').mean, 1.5); // 4 or more
  assert.equal(alea.dist('3d6>3', { dialect: 'roll20' }).mean, 2); // 3 or more
  assert.equal(alea.roll('3d6>3', { dialect: 'roll20', seed: 1 }).text, '3d6>=3 [5*, 4*, 4*] = 3');
  assert.match(alea.dist('3d6>3').hint, /Roll20 reads it as 3 or more/);
  // a repeat written as Foundry's explosion, and words after a roll
  assert.match(alea.roll('4d6kh3x6').hint, /did you mean 6 x 4d6kh3/);
  assert.ok(alea.roll('1d20 adv', { dialect: 'd20' }).text.startsWith('2d20kh1 ['));
  assert.throws(() => alea.dist('3d6', { dialect: 'anydice' }),
    { name: 'RangeError', message: /unknown dialect 'anydice' \(the dialects are alea, roll20/ });
});

test('errors are AleaErrors with the span, as string indices too, and a caret', () => {
  try {
    alea.roll('2d+3');
    assert.fail('no error');
  } catch (e) {
    assert.ok(e instanceof AleaError && e instanceof Error);
    assert.equal(e.name, 'AleaError');
    assert.equal(e.status, 'ALEA_ERR_SYNTAX');
    assert.deepEqual([e.start, e.end, e.index, e.endIndex], [2, 3, 2, 3]);
    assert.match(e.line, /^syntax error: expected the number of sides after 'd'/);
    assert.equal(e.caret(), '2d+3\n  ^');
  }
  // bytes and indices differ past a character of several bytes
  try {
    alea.roll('1d6 # é\n+ str');
  } catch (e) {
    assert.equal(e.expression.slice(e.index, e.endIndex), 'str');
    assert.equal(e.end - e.start, 3);
    assert.equal(e.start, e.index + 1);
  }
  refused(() => alea.roll('1d20 + str'), 'ALEA_ERR_SYNTAX', /unknown name 'str'/);
  refused(() => alea.dist('1d6 / (1d2 - 1)'), 'ALEA_ERR_DOMAIN');
  // a long expression: a window around the problem
  const long = `${'1 + '.repeat(40)}x${' + 1'.repeat(40)}`;
  try {
    alea.dist(long);
  } catch (e) {
    const [line, caret] = e.caret().split('\n');
    assert.ok(line.startsWith('...') && line.endsWith('...') && line.length === 76, line);
    assert.equal(line[caret.indexOf('^')], 'x');
  }
});

test('limit source: 4096 bytes by default, lowered at load and at run time', async () => {
  assert.equal(alea.dist(`1${' '.repeat(4095)}`).mean, 1);
  refused(() => alea.dist(`1${' '.repeat(4096)}`), 'ALEA_ERR_LIMIT',
    'expression too long: 4097 bytes (source limit is 4096)');
  const small = await load({ limits: { source: 10 } });
  assert.equal(small.roll('1d6 + 1d20').total > 0, true); // 10 bytes
  refused(() => small.roll('1d6 + 1d20 '), 'ALEA_ERR_LIMIT', /11 bytes \(source limit is 10\)/);
  // bytes, not characters: 'é' is two
  refused(() => small.roll('1d6 # éééé'), 'ALEA_ERR_LIMIT', /14 bytes/);
  assert.equal(small.limit('source', 11), 10);
  assert.equal(small.roll('1d6 + 1d20 ').total > 0, true);
  assert.equal(small.limit('source'), 11);
  // a stranger's megabytes: refused at once, without a copy in the module
  const t = performance.now();
  refused(() => alea.roll('('.repeat(50 << 20)), 'ALEA_ERR_LIMIT', /52428800 bytes/);
  refused(() => alea.roll('é\ud800\u{1F3B2}'.repeat(1 << 20)), 'ALEA_ERR_LIMIT', /9437184 bytes/);
  assert.ok(performance.now() - t < 5000, `${performance.now() - t} ms`);
});

test('limit rolls: 1000 in one call, not 1001; lowered', async () => {
  assert.equal(alea.roll('1d6', { n: 1000, detail: false }).length, 1000);
  refused(() => alea.roll('1d6', { n: 1001 }), 'ALEA_ERR_LIMIT', 'too many rolls (limit is 1000)');
  const few = await load({ limits: { rolls: 5 } });
  assert.equal(few.roll('1d6', { n: 5 }).length, 5);
  refused(() => few.roll('1d6', { n: 6 }), 'ALEA_ERR_LIMIT', 'too many rolls (limit is 5)');
});

test('limit answerBytes: an answer and its closing byte', async () => {
  // 2d6's answer is 848 bytes: `alea dist --json 2d6` less its newline
  // (394), and the library's median and cumulative columns
  const at = await load({ limits: { answerBytes: 849 } });
  assert.equal(at.dist('2d6').outcomes.length, 11);
  at.limit('answerBytes', 848);
  refused(() => at.dist('2d6'), 'ALEA_ERR_LIMIT',
    'the distribution is too long (limit is 848 bytes in all)');
  // a roll's answer too, however small: its text alone is past 20 bytes
  // (the budget was once checked only when the module's buffer grew)
  const tiny = await load({ limits: { answerBytes: 20 } });
  refused(() => tiny.roll('1d6 + 1d6 + 1d6', { seed: 1 }), 'ALEA_ERR_LIMIT', /too long/);
  let need = 20; // the smallest budget the roll fits, found from below
  while (need < 4096) {
    tiny.limit('answerBytes', ++need);
    try { tiny.roll('1d6 + 1d6 + 1d6', { seed: 1 }); break; } catch (e) { assert.equal(e.status, 'ALEA_ERR_LIMIT'); }
  }
  const text = tiny.roll('1d6 + 1d6 + 1d6', { seed: 1 }).text;
  assert.ok(need > text.length + 2 && need < 4096, `${need} for ${text}`);
  // the default, the module's ceiling: 1d100000 is about 1.6 MB (a minute
  // to reach it: about bytes, not the deadline, on a busy machine)
  const big = await load({ limits: { deadline: 60000 } });
  assert.equal(big.dist('1d100000').outcomes.length, 100000);
  refused(() => big.roll('10000d6', { n: 1000, detail: false }), 'ALEA_ERR_LIMIT',
    /breakdowns are too long \(limit is 16 MiB in all\)/);
});

test('limit deadline: each call stops at it with ALEA_ERR_INTERRUPTED', async () => {
  const now = await load({ limits: { deadline: 0 } });
  refused(() => now.dist('8d1000'), 'ALEA_ERR_INTERRUPTED', 'timed out after 0 ms (the deadline)');
  refused(() => now.roll('8d1000', { n: 3 }), 'ALEA_ERR_INTERRUPTED');
  assert.equal(now.limit('deadline', 2000), 0);
  assert.equal(now.dist('8d1000').outcomes.length, 7993);
  // a hostile expression (keys that once flooded the hash table) ends by
  // 50 ms, or is refused for its work: either way, soon
  const fast = await load({ limits: { deadline: 50 } });
  const t = performance.now();
  assert.throws(() => fast.dist('1d15000*562949953421312 + 1d480*562949953421312'),
    (e) => ['ALEA_ERR_INTERRUPTED', 'ALEA_ERR_LIMIT'].includes(e.status));
  assert.ok(performance.now() - t < 5000, `${performance.now() - t} ms`); // loose: a busy machine
});

test('limits: named, bounded, each at its maximum and one past it', async () => {
  for (const [name, l] of Object.entries(LIMITS)) {
    assert.equal(alea.limit(name), l.default);
    const a = await load({ limits: { [name]: l.max } });
    assert.equal(a.limit(name), l.max);
    await assert.rejects(load({ limits: { [name]: l.max + 1 } }),
      { name: 'RangeError', message: new RegExp(`limit '${name}' must be an integer from 0 to ${l.max}`) });
    for (const bad of [-1, 1.5, NaN, '10', null]) {
      assert.throws(() => a.limit(name, bad), RangeError, String(bad));
    }
  }
  await assert.rejects(load({ limits: { dicee: 10 } }), /unknown limit 'dicee' \(the limits are deadline.*, dice, /);
  await assert.rejects(load({ limits: 5 }), TypeError);
});

test('the library\'s limits: the module\'s context, at N and N + 1, at load and at run time', async () => {
  // the defaults and maxima of include/alea.h, read back from the module
  const h = readFileSync(join(root, 'include', 'alea.h'), 'utf8');
  for (const name of LIBRARY_LIMITS) {
    const m = new RegExp(`X\\(${name.toUpperCase()}, (\\d+), (\\d+),`).exec(h);
    assert.ok(m, name);
    assert.equal(alea.limit(name), Number(m[1]), name);
    const a = await load();
    assert.equal(a.limit(name, Number(m[2])), Number(m[1]));
    assert.equal(a.limit(name), Number(m[2]));
    assert.throws(() => a.limit(name, Number(m[2]) + 1), { name: 'RangeError' });
    assert.throws(() => a.limit(name, -1), { name: 'RangeError' });
  }
  const few = await load({ limits: { dice: 10 } });
  assert.match(few.roll('10d6', { seed: 1 }).text, /^10d6 \[/);
  refused(() => few.roll('11d6'), 'ALEA_ERR_LIMIT', /dice limit is 10/);
  assert.equal(few.limit('dice', 11), 10);
  assert.match(few.roll('11d6', { seed: 1 }).text, /^11d6 \[/);
  const small = await load({ limits: { support: 16 } });
  assert.equal(small.dist('3d6').outcomes.length, 16);
  refused(() => small.dist('3d6 + 1d2'), 'ALEA_ERR_LIMIT', /support limit is 16/);
  // a distribution's text: 3d6's JSON is 516 bytes, refused at 515 as the
  // command line and the Python module refuse it
  const out = await load({ limits: { output: 516 } });
  assert.equal(out.dist('3d6').outcomes.length, 16);
  assert.equal(out.limit('output', 515), 516);
  refused(() => out.dist('3d6'), 'ALEA_ERR_LIMIT',
    /^too much output: the distribution's JSON passes 515 bytes \(output limit is 515\)$/);
  // the other instances keep theirs
  assert.equal(alea.limit('dice'), 10000);
});

test('options: bad seeds, counts and types are named errors', () => {
  for (const seed of [-1, 1.5, 2 ** 53 + 2, '-1', '18446744073709551616', 'abc', '', 2n ** 64n, {}]) {
    assert.throws(() => alea.roll('1d6', { seed }), RangeError, String(seed));
  }
  for (const n of [0, -1, 1.5, '3', NaN]) {
    assert.throws(() => alea.roll('1d6', { n }), { name: 'RangeError', message: /n must be/ });
  }
  for (const options of [null, 5, 'n=3', ['n']]) {
    assert.throws(() => alea.roll('1d6', options), { name: 'TypeError', message: /roll's options must be an object/ });
    assert.throws(() => alea.dist('1d6', options), { name: 'TypeError', message: /dist's options must be an object/ });
  }
  for (const expr of [42, null, undefined, new Uint8Array(3), ['1d6']]) {
    assert.throws(() => alea.dist(expr), { name: 'TypeError', message: /the expression must be a string/ });
  }
});

test('hostile input: errors at their place, never a crash', () => {
  const big = String(2n ** 70n);
  const cases = [
    ['1d6 \ud800', 'ALEA_ERR_SYNTAX', 'unexpected U+D800 at byte 4'],
    ['\udfff', 'ALEA_ERR_SYNTAX', 'unexpected U+DFFF at byte 0'],
    ['1d6 # \ud83c', 'ALEA_ERR_SYNTAX', 'unexpected U+D83C at byte 6'],
    [`${big}d6`, 'ALEA_ERR_SYNTAX', 'number too large'],
    [`1d${big}`, 'ALEA_ERR_SYNTAX', 'number too large'],
    ['1d6 \0\x1b[2J', 'ALEA_ERR_SYNTAX', 'unexpected byte 0x00'],
    ['('.repeat(4000), 'ALEA_ERR_LIMIT', 'depth'],
    ['99999d6', 'ALEA_ERR_LIMIT', 'too many '],
    ['9223372036854775807 + 1', 'ALEA_ERR_OVERFLOW', ''],
  ];
  for (const [src, status, words] of cases) {
    for (const call of [() => alea.roll(src), () => alea.dist(src)]) {
      assert.throws(call, (e) => {
        assert.ok(e instanceof AleaError, `${JSON.stringify(src.slice(0, 20))}: ${e}`);
        assert.equal(e.status, status, `${JSON.stringify(src.slice(0, 20))}: ${e.message}`);
        assert.ok(e.message.includes(words), e.message);
        assert.ok(e.start <= e.end && e.index <= e.endIndex && e.endIndex <= src.length);
        assert.match(e.caret(), /\n *\^+$/);
        return true;
      });
    }
  }
  refused(() => alea.dist(`1d6!${'+1d6!'.repeat(600)}`), 'ALEA_ERR_LIMIT', /work limit/);
  // the amplifying roll: refused before its breakdowns are written
  const faces = Array.from({ length: 190 }, (_, i) => String(-9223372036854775000n + BigInt(i)));
  refused(() => alea.roll(`best(9999, 0d{${faces.join(',')}})`, { n: 1000 }), 'ALEA_ERR_LIMIT');
  // and the instance still answers
  assert.equal(alea.roll('1d1').text, '1d1 [1] = 1');
});

test('the shared instance: roll() and dist() with the defaults', async () => {
  assert.equal((await roll('4d6kh3', { seed: 7 })).total, 17);
  assert.equal((await roll('1d6', { n: 2 })).length, 2);
  assert.equal((await dist('1d4')).outcomes.length, 4);
  await assert.rejects(dist('2d+3'), AleaError);
});

test('CommonJS: require() gives load, roll and dist', async () => {
  const cjs = createRequire(import.meta.url)('../index.cjs');
  assert.equal((await cjs.roll('4d6kh3', { seed: 7 })).text, '4d6kh3 [5, 2 dropped, 6, 6] = 17');
  assert.equal((await cjs.load()).dist('1d2').mean, 1.5);
  await assert.rejects(cjs.dist('2d+3'), { name: 'AleaError', status: 'ALEA_ERR_SYNTAX' });
});
