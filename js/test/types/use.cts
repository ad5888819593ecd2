// What a TypeScript user writes (CommonJS): every function a promise.
import alea = require('alea-dice');

async function main(): Promise<number> {
  const a = await alea.load();
  const r: alea.Roll = await alea.roll('4d6kh3', { seed: 7 });
  const d: alea.Dist = await alea.dist('2d6');
  const c: alea.Comparison = await alea.compare('d6', ['b', 'd8'], { pairs: true });
  const f: alea.Fairness = await alea.fairness([['d6', 3], r]);
  const t: alea.Table = await alea.table('d6 + n', ['n=1..2'], { stats: ['mean'] });
  const p: alea.Policy = await alea.policy('dd(3, 14, best)');
  return a.roll('1d6').total + r.total + d.mean + c.versus[0].tv + (t.cell('mean', 1) ?? 0) + f.p
    + p.rows[0].value;
}
main();
