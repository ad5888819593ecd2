// numbers.test.mjs -- the page's arithmetic (numbers.js) against the
// command line: a percentage as `alea dist` prints it, the cumulative
// chances of `alea compare --at-least/--at-most` (100 and 0 outside an
// expression's range, the value below inside a gap); the median and the
// columns are the library's as given, and mergeSamples only adds counts up;
// the bins of an estimate's histogram; the exact fractions of Fractions
// summed as `alea compare --exact --csv --at-least/--at-most` sums them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pct, g2, luckPct, shownRows, TAIL_SHOWN, columns, chance, median, mergeSamples, binWidth, binRows, binChances,
  versusTexts, fixedC, policyValue, fractionColumn, fraction } from '../numbers.js';

const here = dirname(fileURLToPath(import.meta.url));
const ALEA = process.env.ALEA ? join(process.cwd(), process.env.ALEA)
  : join(here, '..', '..', 'build', 'alea');
const run = (...args) => {
  const r = spawnSync(ALEA, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};
// The command line's distribution with its cumulative columns (the CSV's
// last two) and median, as web/wasm.c gives them to the page.
const distOf = (expr) => {
  const d = JSON.parse(run('dist', '--json', '--', expr));
  const rows = run('dist', '--csv', '--', expr).trimEnd().split('\n').slice(1).map((r) => r.split(','));
  d.at_least = rows.map((r) => Number(r.at(-2)));
  d.at_most = rows.map((r) => Number(r.at(-1)));
  d.median = Number(run('dist', '--', expr).match(/median (-?\d+)/)[1]);
  return d;
};
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
  const d = columns({ outcomes: [[1, '1e-400'], [2, 0.5], [3, 0.5]], at_least: [1, 1, 0.5],
    at_most: [1e-400, 0.5, 1] });
  assert.deepEqual(d.exact, [0, 0.5, 0.5]); // the string counts as 0
  assert.deepEqual(d.atmost, [1e-400, 0.5, 1]); // the library's, as given
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

test('mergeSamples only adds the counts of samples up; no statistic', () => {
  const a = { samples: 4, outcomes: [[1, 0.25], [2, 0.75]] };
  const b = { samples: 6, outcomes: [[2, 0.5], [5, 0.5]] };
  // counts: 1 x1, 2 x(3+3), 5 x3 of 10
  assert.deepEqual(mergeSamples([a, b]), { values: [1, 2, 5], counts: [1, 6, 3], rolls: 10 });
});

test('the median and the columns are the library\'s, never summed here', () => {
  const d = { outcomes: [[1, 0.5], [2, 0.5]], median: 1, at_least: [1, 0.5], at_most: [0.5, 1] };
  assert.equal(median(d), 1);
  assert.equal(median({ outcomes: d.outcomes }), undefined);
  assert.equal(columns({ outcomes: d.outcomes }).atmost, undefined);
});

// An estimate of `rolls` rolls with these counts by value.
const counted = (counts, rolls = [...counts.values()].reduce((a, b) => a + b, 0)) => {
  const values = [...counts.keys()].sort((a, b) => a - b);
  // the fixture's columns (web/wasm.c gives the library's to the page)
  let s = 0;
  const at_most = values.map((v) => (s += counts.get(v)) / rolls);
  s = 0;
  const at_least = values.slice().reverse().map((v) => (s += counts.get(v)) / rolls).reverse();
  return { outcomes: values.map((v) => [v, counts.get(v) / rolls]), min: values[0],
    max: values.at(-1), estimate: rolls, at_least, at_most };
};
const uniform = (lo, hi, each) => counted(new Map(Array.from({ length: hi - lo + 1 }, (_, i) => [lo + i, each])));
const valuesOf = (d) => d.outcomes.map(([v]) => v);

test('binWidth: a bar per value while the values are few, else Freedman-Diaconis, capped by the chart', () => {
  // 100 values of 10000 rolls: sqrt(10000) = 100 of them keep a bar each
  const u100 = uniform(1, 100, 100);
  assert.equal(binWidth(valuesOf(u100), [u100], 150), 1);
  // ...unless the chart holds fewer bars: then Freedman-Diaconis, quartiles
  // 25 and 75, 2 * 50 / 10000^(1/3) = 4.64, nearest 5
  assert.equal(binWidth(valuesOf(u100), [u100], 99), 5);
  // 101 values of 10100 rolls: quartiles 26 and 76, IQR 50: 2 * 50 / 10100^(1/3) = 4.62 -> 5
  const u101 = uniform(1, 101, 100);
  assert.equal(binWidth(valuesOf(u101), [u101], 150), 5);
  // at most 10 bars: 101 values need bins of 10.1, rounded up to 20
  assert.equal(binWidth(valuesOf(u101), [u101], 10), 20);
  // no estimate, nothing to bin
  assert.equal(binWidth(valuesOf(u101), [], 10), 1);
  // few values far apart stay a bar each: 6 values from 0 to 5000
  const sparse = counted(new Map([0, 1000, 2000, 3000, 4000, 5000].map((v) => [v, 1000])));
  assert.equal(binWidth(valuesOf(sparse), [sparse], 150), 1);
  // quartiles that coincide (90% of the rolls on 0): the range over sqrt(rolls),
  // 201 / 100 = 2.01 -> 2
  const spike = new Map([[0, 9000]]);
  for (let v = 1; v <= 200; v++) spike.set(v, 5);
  const s = counted(spike);
  assert.equal(binWidth(valuesOf(s), [s], 150), 2);
  // the widest of two estimates' widths; the values in view are all of both
  const wide = uniform(1000, 1100, 100);
  assert.equal(binWidth([...valuesOf(u101), ...valuesOf(wide)], [u101, wide], 300), 5);
});

test('binRows: the bins that hold a value, and every bin across an estimate', () => {
  // 3 and 4 in bin 0 (0 to 4), 17 in bin 3, -1 in bin -1 (-5 to -1); the
  // estimate from 20 to 31: bins 4, 5, 6 (30 to 34)
  // (its listed rolls' range: its min and max are the expression's bounds)
  assert.deepEqual(binRows([-1, 3, 4, 17], 5, [{ min: 0, max: 100, outcomes: [[20, 0.5], [31, 0.5]] }]),
    [-1, 0, 3, 4, 5, 6]);
  assert.deepEqual(binRows([1, 2, 3], 1, []), [1, 2, 3]);
});

test('binChances: a value in the bin, at least its first value, at most its last', () => {
  const d = { outcomes: [[1, 0.1], [2, 0.2], [3, 0.3], [7, 0.4]], min: 1, max: 7,
    at_least: [1, 0.9, 0.7, 0.4], at_most: [0.1, 0.3, 0.6, 1] };
  const c = col(d);
  const bins = [0, 1, 2, 3, 4]; // 0-1, 2-3, 4-5, 6-7, 8-9
  const near = (got, want) => got.forEach((p, i) => (want[i] === undefined ? assert.equal(p, undefined)
    : assert.ok(Math.abs(p - want[i]) < 1e-15, `bin ${i}: ${p} for ${want[i]}`)));
  // an empty bin inside the range is 0; one outside it, no value (a blank cell)
  near(binChances(c, bins, 2, 'exact'), [0.1, 0.5, 0, 0.4, undefined]);
  near(binChances(c, bins, 2, 'atleast'), [1, 0.9, 0.4, 0.4, 0]);
  near(binChances(c, bins, 2, 'atmost'), [0.1, 0.6, 0.6, 1, 1]);
  // bins of 1 are the values, as chance() gives them
  const three = col(distOf('3d6'));
  const all = Array.from({ length: 18 }, (_, i) => i + 1);
  for (const mode of ['exact', 'atleast', 'atmost'])
    assert.deepEqual(binChances(three, all, 1, mode), all.map((v) => chance(three, v, mode)), mode);
  // bins of 5 of 3d6: the CLI's chances, added up
  const five = binChances(three, [0, 1, 2, 3], 5, 'exact');
  const sum = (lo, hi) => distOf('3d6').outcomes.filter(([v]) => v >= lo && v <= hi).reduce((a, [, p]) => a + p, 0);
  near(five, [sum(0, 4), sum(5, 9), sum(10, 14), sum(15, 19)]);
});

test('the negligible tails: the runs below 0.005% at each end, in every column', () => {
  const t = TAIL_SHOWN;
  assert.deepEqual(shownRows([[t / 2, t, 0.5, t / 2, t / 4]], 5),
    { lo: 1, hi: 3, ends: [{ from: 0, to: 0, rows: 1, mass: t / 2 }, { from: 3, to: 4, rows: 2, mass: t * 3 / 4 }] });
  // a row stays when one column reaches it; the mass is the most one column hides
  assert.deepEqual(shownRows([[t / 2, 0.5, t / 4], [t, 0.5, t / 8]], 3),
    { lo: 0, hi: 2, ends: [{ from: 2, to: 2, rows: 1, mass: t / 4 }] });
  // every row below: all shown, as the command line shows them
  assert.deepEqual(shownRows([[t / 2, t / 2]], 2), { lo: 0, hi: 2, ends: [] });
  // C's %.2g
  for (const [x, want] of [[0.032, '0.032'], [1e-5, '1e-05'], [0.011, '0.011'], [123, '1.2e+02'], [9.99e-5, '0.0001']])
    assert.equal(g2(x), want);
});

test('luckPct: a roll\'s luck as `alea roll --luck` prints it (C\'s %.3g)', () => {
  // the ends: 100% and 0% only when exact
  assert.equal(luckPct(1), '100%');
  assert.equal(luckPct(0), '0%');
  assert.equal(luckPct(0.9995), '>99.9%');
  assert.equal(luckPct(0.99949), '99.9%');
  assert.equal(luckPct(1e-5), '0.001%');
  assert.equal(luckPct(9.99e-6), '<0.001%');
  // between them, printf's %.3g digit for digit
  const xs = [0.5, 0.838, 0.8379629629629629, 0.25925925925925924, 0.004629629629629629, 0.05,
    0.123456, 0.0001234, 0.99, 0.9814814814814815, 1 / 3, 0.0125, 0.00015, 0.375];
  for (const x of xs) {
    const r = spawnSync('printf', ['%.3g%%', String(x * 100)], { encoding: 'utf8' });
    assert.equal(luckPct(x), r.stdout, String(x));
  }
});

// ---- the table view's helpers (sweeps.js) ----
import { statText, statChoice, sweepText, sweepFields, tableOfLink, cellText, shade, placesOf,
  STATS_MAX, SWEEPS_MAX, TEXT_MAX } from '../sweeps.js';

test('a statistic between the menus and the library\'s text, both ways', () => {
  assert.equal(statText('p>=', ' 7 '), 'p>=7');
  assert.equal(statText('p', '90'), 'p90');
  assert.equal(statText('p=', ''), 'p='); // the library refuses it, with its caret
  assert.equal(statText('mean', '3'), 'mean');
  assert.equal(statText('', '3'), '');
  assert.deepEqual(statChoice('p>=-2'), { value: 'p>=', n: '-2' });
  assert.deepEqual(statChoice('p<=7'), { value: 'p<=', n: '7' });
  assert.deepEqual(statChoice('p=0'), { value: 'p=', n: '0' });
  assert.deepEqual(statChoice('p90'), { value: 'p', n: '90' });
  assert.deepEqual(statChoice('critical failure'), { value: 'critical failure', n: '' });
  assert.deepEqual(statChoice('p>=x'), { value: 'p>=x', n: '' });
});

test('a sweep\'s fields and text; a link\'s sweeps and statistics, bounded', () => {
  assert.equal(sweepText(' m ', ' 0..10 '), 'm=0..10');
  assert.equal(sweepText('', ''), '');
  assert.equal(sweepText('m', ''), 'm=');
  assert.deepEqual(sweepFields('dc=10,12=3'), { name: 'dc', values: '10,12=3' });
  assert.deepEqual(sweepFields('dc'), { name: 'dc', values: '' });
  const h = new URLSearchParams();
  for (const t of ['a=1', 'b=2', 'c=3', `d=${'1,'.repeat(TEXT_MAX)}`]) h.append('t', t);
  for (let k = 0; k < 5; k++) h.append('st', `p>=${k}`);
  h.append('st', 'x'.repeat(TEXT_MAX + 1));
  const { sweeps, stats } = tableOfLink(h);
  assert.deepEqual(sweeps, ['a=1', 'b=2'].slice(0, SWEEPS_MAX));
  assert.deepEqual(stats, ['p>=0', 'p>=1', 'p>=2'].slice(0, STATS_MAX));
  assert.deepEqual(tableOfLink(new URLSearchParams('st=' + 'x'.repeat(TEXT_MAX))).stats, ['x'.repeat(TEXT_MAX)]);
});

test('a table\'s cells as shown, and the heat map\'s shades', () => {
  assert.equal(cellText(0.55, 'prob'), '55.00%');
  assert.equal(cellText(1e-7, 'prob'), '1.0e-05%');
  assert.equal(cellText(3.3333333, 'number'), '3.33');
  assert.equal(cellText(12, 'outcome'), '12');
  assert.equal(shade(0), 'hsl(212 85% 97.0%)');
  assert.equal(shade(1), 'hsl(212 85% 63.0%)');
  assert.equal(shade(2), shade(1));
  assert.equal(shade(NaN), shade(0));
  assert.deepEqual(placesOf([[1, 2], [3, 5]]), [[0, 0.25], [0.5, 1]]);
  assert.deepEqual(placesOf([[4, 4]]), [[0, 0]]);
});

test('the distances between two lines read as `alea compare` prints them', () => {
  // d20 against 2d20kh1: A < B 64.125%, a tie C's printf rounds to even
  const pairs = [['1d20+5', '2d20kh1+2'], ['d2', 'd3'], ['d20', 'd20+5'], ['3d6', '3d6'], ['d20', '2d20kh1'],
    ['d8', 'd4']];
  for (const [a, b] of pairs) {
    const [v] = JSON.parse(run('compare', '--json', a, b)).versus;
    // the line under the table's header "A vs B  A > B ... EMD"
    const text = run('compare', a, b).trimEnd().split('\n');
    const line = text[text.findIndex((l) => /^A vs B/.test(l)) + 1];
    assert.deepEqual(versusTexts(v), line.slice(`${a} vs ${b}`.length).trim().split(/\s+/), `${a} vs ${b}`);
  }
});

test('policyValue: a policy\'s values as `alea policy` prints them', () => {
  // the situations' lines under the header "seen  choice  how often  mean  as it stands"
  for (const src of ['dd(3, 14, best)', 'dd(6, 14, always)', 'dd(0, 10, onfail)']) {
    const p = JSON.parse(run('policy', '--json', src));
    const text = run('policy', src).trimEnd().split('\n');
    const lines = text.slice(text.findIndex((l) => /^seen/.test(l)) + 1);
    p.rows.forEach((r, i) => assert.deepEqual([policyValue(r.value, p.probability),
      policyValue(r.plain, p.probability)], lines[i].trim().split(/\s+/).slice(-2), `${src} ${r.seen}`));
  }
  assert.deepEqual([policyValue(20 / 27, true), policyValue(0.000125, true), policyValue(8.2405, false)],
    ['74.07%', '0.01%', '8.24']);
});

test('fixedC rounds as C\'s printf: a tie to even, else to nearest', () => {
  const cases = [[64.125, 2, '64.12'], [0.125, 2, '0.12'], [0.375, 2, '0.38'], [2.5, 0, '2'], [3.5, 0, '4'],
    [0.0625, 3, '0.062'], [1.005, 2, '1.00'], [3.325, 2, '3.33'], [0.3333333333333333, 3, '0.333'],
    [-0.125, 2, '-0.12'], [-0.001, 2, '-0.00'], [0, 3, '0.000'], [100, 2, '100.00'], [0.5, 0, '0']];
  // the same doubles through C's printf (Python's % is the C library's rounding)
  const c = spawnSync('python3', ['-c', 'import sys\nfor a in sys.argv[1:]:\n x, d = a.split(",")\n '
    + 'print("%.*f" % (int(d), float(x)))', ...cases.map(([x, d]) => `${x},${d}`)], { encoding: 'utf8' })
    .stdout.trimEnd().split('\n');
  cases.forEach(([x, d, want], i) => {
    assert.equal(fixedC(x, d), want, `${x} to ${d}`);
    assert.equal(c[i], want, `C's printf of ${x}`);
  });
});

test('fraction(): exactly, at least and at most in fractions as `alea compare --exact --csv` sums them', () => {
  const exprs = ['3d6', '2d6kh1', '4d6kh3', '3d{0, 2, 5}', '40d20'];
  const cols = exprs.map((e) => fractionColumn(JSON.parse(run('dist', '--exact', '--json', e)).outcomes));
  for (const [mode, flag] of [['exact', []], ['atleast', ['--at-least']], ['atmost', ['--at-most']]]) {
    const csv = run('compare', '--exact', '--csv', ...flag, ...exprs).trimEnd().split('\n').slice(1);
    for (const line of csv) {
      const [v, ...want] = line.split(',');
      cols.forEach((fr, j) => assert.equal(fraction(fr, Number(v), mode) ?? '', want[j],
        `${exprs[j]} ${mode} ${v}`));
    }
  }
  // outside the range and in a gap
  const fr = fractionColumn([[0, '1/8'], [2, '3/8'], [5, '1/2']]);
  assert.deepEqual([-1, 1, 3, 6].map((v) => fraction(fr, v, 'atleast')), ['1', '7/8', '1/2', '0']);
  assert.deepEqual([-1, 1, 3, 6].map((v) => fraction(fr, v, 'atmost')), ['0', '1/8', '1/2', '1']);
  assert.equal(fraction(fr, 1, 'exact'), undefined);
});
