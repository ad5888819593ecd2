// What a TypeScript user writes (ES module): it must compile without error.
import {
  load, roll, dist, compare, fairness, AleaError, LIMITS, COMPARE_CELLS_MAX, type Roll, type Dist, type Dialect, type Luck,
  type Comparison, type Versus, table, type Table, type StatKind, type Fairness, type FairnessTest, type FairnessRoll,
  policy, type Policy, type PolicyRow, type Fraction,
} from 'alea-dice';

const alea = await load({ limits: { deadline: 50, source: 200 } });
const one: Roll = alea.roll('4d6kh3', { seed: 7n });
const many: Roll[] = alea.roll('1d20', { n: 3, seed: '7', dialect: 'roll20' });
const text: string = one.markdown + many[0].text + (one.hint ?? '') + (one.comment ?? '');
const labels: [string, number][] = one.labels;
const bound: { name: string; term: string; value: number }[] = one.bound;
const branch: 'then' | 'else' | undefined = one.detail?.groups?.[0]?.branch;
const count: number | undefined = one.detail?.groups?.[0]?.count;
console.log(bound, branch, count, one.detail?.bound?.[0]?.term);
const lucky = alea.roll('d20', { seed: 8, luck: true }).luck;
const place: Luck | Luck[] | null = lucky;
const atMost: number = lucky && !Array.isArray(lucky) ? lucky.at_most + lucky.at_least : 0;
console.log(place, atMost, one.luckRefused ?? '');
const d: Dist = alea.dist('2d6', { dialect: 'foundry' as Dialect });
const p: number = d.p(7) + d.atLeast(10) + d.atMost(3) + d.median + LIMITS.rolls.max;
const label: string | undefined = d.labels.get(0);
const old: number = alea.limit('deadline', 100);
alea.seed(1);
try {
  alea.roll('2d+3');
} catch (e) {
  if (e instanceof AleaError) console.log(e.status, e.start, e.index, e.caret(), text, p, label, old, labels);
}
const shared: Roll = await roll('1d6');
const sharedMany: Roll[] = await roll('1d6', { n: 2 });
console.log((await dist('1d4')).mean, shared.total, sharedMany.length);
const c: Comparison = alea.compare('d20', ['advantage', '2d20kh1'], { pairs: true, maxCells: COMPARE_CELLS_MAX });
const v: Versus = c.versus[0];
const cells: (number | null)[] = c.table()[0][1];
const least: number = c.table('at_least')[0][1][0] + v.p_greater + v.emd + c.outcomes[0];
console.log(c.get('advantage')?.mean, cells, least, (await compare('d4', 'd6')).names, alea.compare('d6').versus);
const log: FairnessRoll[] = [['d20', 17], { expression: '3d6', total: 11n }, one];
const judged: Fairness = alea.fairness(log, { seed: 1, dialect: 'alea' });
const test0: FairnessTest | undefined = judged.tests[0];
const verdict: 'fair' | 'not fair' | 'too few' = judged.verdict;
const seedBack: bigint = judged.seed;
console.log(test0?.p_adjusted, test0?.df ?? 0, verdict, seedBack, judged.fair, LIMITS.fairnessRolls.max,
  (await fairness(many)).direction, alea.limit('fairnessRolls'));
const t: Table = alea.table('d20 + m >= dc', ['m=0..10', 'dc=10..20'], { stats: ['mean', 'p>=1'] });
const byObject: Table = await table('d6 + n', { n: '0..3' }, { stats: 'mean', dialect: 'alea' });
const kinds: StatKind[] = t.kinds;
const cell: number | undefined = t.cell('mean', 5, 10) ?? byObject.cell(0, 1);
const rows: number[] = t.rows;
const cols: (number | null)[] = byObject.cols;
const csv: string = t.csv;
alea.table('d6 + n', { n: [1, 2, 3] });
alea.limit('cells', 100);
try {
  alea.table('d6 + n', ['n=x']);
} catch (e) {
  if (e instanceof AleaError) console.log(e.part, e.partIndex);
}
console.log(kinds, cell, rows, cols, csv, t.asObjects()[0].mean, t.json.stats[0].stat);
const pol: Policy = alea.policy('dd(3, 14, best)', { dialect: 'alea' });
const pShared: Policy = await policy('dd(6, 14, always)');
const row: PolicyRow = pol.rows[0];
const chance: number = row.chance + row.value + row.plain + pol.value + pShared.optimum;
const words: string = row.seen + row.choice + pol.goal + (pol.isProb ? pol.json.rows[0].seen : '');
console.log(chance, words);

// exact fractions: 'num/den' strings where the command line's --exact writes them
const q: Dist<Fraction> = alea.dist('3d6', { exact: true });
const frac: Fraction = q.p(10) + q.mean + q.truncated + (q.variance ?? '') + q.outcomes[0][1];
const qc: Comparison<Fraction> = alea.compare('d2', 'd3', { exact: true });
const vs: Versus<Fraction> = qc.versus[0];
const qt: Table<number | Fraction> = alea.table('d6 + n', ['n=1..2'], { exact: true });
const qp: Policy<number | Fraction> = await policy('dd(3, 14, best)', { exact: true });
const sd: number = q.sd + q.atLeast(10) + q.median;
console.log(frac, vs.p_less + qc.dists[0].mean, qt.cell('mean', 1), qp.value, sd, q.exact);
