// table.test.mjs -- alea-dice's table() (index.mjs): the numbers of `alea
// table --json` and `--csv` for the examples of docs/tables.md, errors in
// the expression, a sweep or a statistic with their span in that text,
// and the library's cells limit at N and N + 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { load, table, AleaError, Table, LIBRARY_LIMITS } from '../index.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ALEA = process.env.ALEA ?? join(here, '..', '..', 'build', 'alea');
const alea = await load();
const cli = (...args) => execFileSync(ALEA, ['table', ...args], { encoding: 'utf8' });

// docs/tables.md's examples: [expression, sweeps, stats]
const EXAMPLES = [
  ['d20 + m >= dc', ['m=0..10', 'dc=10..20'], ['mean']],
  ['dd(m, d, best)', ['m=0..18', 'd=10..22'], ['p>=2']],
  ['event(tier(d4, +n))', ['n=0..22'], ['mean', 'critical failure']],
  ['2d6 +n DICE', ['n=-3..3'], ['p>=7']],
];
const statArgs = (stats) => stats.flatMap((s) => ['--stat', s]);

for (const [src, sweeps, stats] of EXAMPLES) {
  test(`table: ${src} ${sweeps.join(' ')} is \`alea table --json\`'s and --csv's`, () => {
    const t = alea.table(src, sweeps, { stats });
    assert.ok(t instanceof Table);
    assert.deepEqual(t.json, JSON.parse(cli(src, ...sweeps, ...statArgs(stats), '--json')));
    assert.equal(t.csv, cli(src, ...sweeps, ...statArgs(stats), '--csv'));
    assert.deepEqual(t.names, sweeps.map((s) => s.split('=')[0]));
    assert.deepEqual(t.stats, stats);
    // every cell by its values, as the JSON has it
    for (const [k, s] of t.json.stats.entries())
      t.rows.forEach((r, i) => t.cols.forEach((c, j) => {
        const want = sweeps.length > 1 ? s.cells[i][j] : s.cells[i];
        assert.equal(t.cell(s.stat, r, c), want);
        assert.equal(t.cell(k, r, c), want);
      }));
    assert.equal(t.asObjects().length, t.rows.length * t.cols.length);
  });
}

test('table: the kinds of statistics, the object form of sweeps, cell and asObjects', () => {
  const t = alea.table('d20 + m >= dc', { m: '0..2', dc: [10, 15] }, { stats: ['mean', 'sd', 'median', 'p>=1', 'p90'] });
  assert.deepEqual(t.kinds, ['prob', 'number', 'outcome', 'prob', 'outcome']);
  assert.deepEqual(t.values, [[0, 1, 2], [10, 15]]);
  assert.equal(t.cell('mean', 1, 15), 0.35);
  assert.equal(t.cell('mean', 3, 15), undefined);
  assert.equal(t.cell('nope', 1, 15), undefined);
  assert.deepEqual(t.asObjects()[1], { m: 0, dc: 15, mean: 0.3, sd: t.cell('sd', 0, 15), median: 0, 'p>=1': 0.3, p90: 1 });
  const one = alea.table('d6 + n', { n: 5 });
  assert.deepEqual(one.cols, [null]);
  assert.equal(one.cell('mean', 5), 8.5);
  assert.deepEqual(one.stats, ['mean']);
  assert.equal(alea.table('d6 + n', ['n=1'], { stats: 'p=7' }).cell(0, 1), 1 / 6);
});

test('table: the shared instance', async () => {
  assert.equal((await table('d20 + m >= dc', ['m=5', 'dc=10'])).cell('mean', 5, 10), 0.8);
});

// Throws an AleaError of status, part and span in expression text.
function refused(fn, { status, part, partIndex = 0, expression, start, end, message }) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof AleaError, `not an AleaError: ${e}`);
    assert.equal(e.status, status, e.message);
    assert.equal(e.part, part, e.message);
    assert.equal(e.partIndex, partIndex);
    assert.equal(e.expression, expression);
    if (start !== undefined) assert.deepEqual([e.start, e.end], [start, end], e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

test('table: an error is in the text it concerns, with its span there', () => {
  refused(() => alea.table('d20 + m >= dc', ['m=0..10', 'dc=10..x']), { status: 'ALEA_ERR_SYNTAX',
    part: 'sweep', partIndex: 1, expression: 'dc=10..x', start: 3, end: 8, message: /bad range '10..x'/ });
  refused(() => alea.table('d20 + m', ['m=0..1'], { stats: ['mean', 'p>='] }), { status: 'ALEA_ERR_SYNTAX',
    part: 'stat', partIndex: 1, expression: 'p>=', start: 3, end: 3 });
  refused(() => alea.table('d20 + m +', ['m=0..1']), { status: 'ALEA_ERR_SYNTAX', part: 'expression',
    expression: 'd20 + m +', start: 9, end: 9 });
  refused(() => alea.table('d20 + m', ['m=0..1', 'dc=10']), { status: 'ALEA_ERR_ARGUMENT',
    part: 'sweep', partIndex: 1, expression: 'dc=10', message: /never uses it/ });
  refused(() => alea.table('d20 + m', { m: '1', q: '2' }), { status: 'ALEA_ERR_ARGUMENT',
    part: 'sweep', partIndex: 1, expression: 'q=2' });
  refused(() => alea.table('d20 + m', ['m=0..1'], { stats: ['critical failure'] }), {
    status: 'ALEA_ERR_ARGUMENT', part: 'stat', expression: 'critical failure' });
  // a cell's own error names the cell
  refused(() => alea.table('d20 / m', ['m=-1..1']), { status: 'ALEA_ERR_DOMAIN', part: 'expression',
    expression: 'd20 / m', message: /^at m=0/ });
  const e = (() => { try { alea.table('d20 + m', ['m=0..x']); } catch (x) { return x; } })();
  assert.equal(e.caret(), 'm=0..x\n  ^^^^');
  // a NUL would cut the text short: named, not read
  refused(() => alea.table('d20 + m', ['m=0\u0000..1']), { status: 'ALEA_ERR_SYNTAX', part: 'sweep',
    expression: 'm=0\u0000..1', start: 3, end: 4 });
  // in fractions, as `alea table --exact --json`: an error there is the expression's as well
  assert.equal(alea.table('d20 + m', ['m=1'], { exact: true }).cell('mean', 1), '23/2');
  refused(() => alea.table('d20 + ', ['m=1'], { exact: true }),
    { status: 'ALEA_ERR_SYNTAX', part: 'expression', expression: 'd20 + ' });
});

test('table: bad arguments are TypeErrors', () => {
  assert.throws(() => alea.table('d6 + n'), TypeError);
  assert.throws(() => alea.table('d6 + n', []), TypeError);
  assert.throws(() => alea.table('d6 + n', [5]), TypeError);
  assert.throws(() => alea.table('d6 + n', { n: null }), TypeError);
  assert.throws(() => alea.table('d6 + n', { n: [1.5] }), TypeError);
  assert.throws(() => alea.table('d6 + n', ['n=1'], { stats: 5 }), TypeError);
  assert.throws(() => alea.table('d6 + n', ['n=1'], []), TypeError);
});

test('table: the cells limit at N and N + 1, and the source limit on each text', async () => {
  assert.ok(LIBRARY_LIMITS.includes('cells'));
  const small = await load({ limits: { cells: 12 } });
  assert.equal(small.limit('cells'), 12);
  assert.equal(small.table('d20 + m >= dc', ['m=0..2', 'dc=10..13']).rows.length, 3);
  refused(() => small.table('d20 + m >= dc', ['m=0..2', 'dc=10..14']), { status: 'ALEA_ERR_LIMIT',
    part: 'sweep', partIndex: 1, expression: 'dc=10..14',
    message: /^3 x 5 = 15 cells, more than the cells limit \(12\)$/ });
  assert.equal(small.table('d6 + n', ['n=1..12']).rows.length, 12);
  refused(() => small.table('d6 + n', ['n=1..13']), { status: 'ALEA_ERR_LIMIT', part: 'sweep',
    expression: 'n=1..13' });
  assert.throws(() => small.limit('cells', -1), RangeError);
  const tight = await load({ limits: { source: 8 } });
  assert.equal(tight.table('d6 + n', ['n=1..100']).rows.length, 100);
  refused(() => tight.table('d6 + n', ['n=1..1000']), { status: 'ALEA_ERR_LIMIT', part: 'sweep',
    expression: 'n=1..1000', start: 8, end: 9 });
  refused(() => tight.table('d6 + n', ['n=1'], { stats: ['p>=100000'] }), { status: 'ALEA_ERR_LIMIT',
    part: 'stat', expression: 'p>=100000', start: 8, end: 9 });
});

test('table: the deadline stops a long table', async () => {
  const quick = await load({ limits: { deadline: 1 } });
  refused(() => quick.table('sum(m, 10d10)', ['m=1..60']), { status: 'ALEA_ERR_INTERRUPTED',
    part: 'expression', expression: 'sum(m, 10d10)', message: /^timed out after 1 ms/ });
});
