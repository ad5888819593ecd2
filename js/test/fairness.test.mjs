// fairness.test.mjs -- fairness(): a log of rolls judged as `alea fairness
// --json --seed S` judges it (the same numbers, digit for digit), a biased
// stream caught, a refused roll named by its index, and the limit on the
// rolls of one call at N and N + 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, fairness, AleaError, Fairness, FairnessTest, LIMITS } from '../index.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The command line the package is held against: scripts/js test builds it.
const ALEA = process.env.ALEA ?? join(root, 'build', 'alea');
const alea = await load();

// `alea fairness --json --seed seed` on log (its text), and its seed
// exactly; its exit status is 3 for rolls that are not fair.
function cli(log, seed) {
  const r = spawnSync(ALEA, ['fairness', '--json', '--seed', String(seed)], { input: log, encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 3, r.stderr);
  const out = r.stdout;
  return { json: JSON.parse(out), seed: BigInt(/"seed": (\d+)/.exec(out)[1]) };
}

// A Fairness as the command line's object: each field it has, a test's
// missing fields null.
function asJson(f) {
  const { seed, tests, ...rest } = f;
  void seed;
  return { ...rest, tests: tests.map((t) => ({ ...t })) };
}
function want(json) {
  const { seed, tests, ...rest } = json;
  void seed;
  const none = { direction: null, df: null, outcomes: null, pooled: null };
  return { ...rest, tests: tests.map((t) => ({ ...none, ...t })) };
}

test('fairness: the judgement of `alea fairness --json --seed S`, digit for digit', () => {
  const rolls = [...alea.roll('d20', { n: 400, seed: 7, detail: false }),
    ...alea.roll('3d6', { n: 300, seed: 8, detail: false }),
    ...alea.roll('4 x 4d6kh3', { n: 50, seed: 9, detail: false })];
  // the log as the command line reads it: a line a roll, a repeat's totals each
  const log = rolls.flatMap((r) => r.totals.map((t) => `${r.expression} ${t}`)).join('\n');
  for (const seed of [1, '18446744073709551615', 123456789012345678901n % (1n << 64n)]) {
    const f = alea.fairness(rolls, { seed });
    const c = cli(log, seed);
    assert.ok(f instanceof Fairness);
    assert.ok(f.tests.every((t) => t instanceof FairnessTest));
    assert.equal(f.seed, c.seed);
    assert.deepEqual(asJson(f), want(c.json), String(seed));
    assert.equal(f.rolls, 400 + 300 + 200);
    assert.equal(f.verdict, 'fair');
    assert.equal(f.fair, true);
    assert.equal(String(f), 'consistent with fair dice');
  }
  // pairs, objects and Rolls are the same log
  const pairs = rolls.slice(0, 400).map((r) => ['d20', r.total]);
  const objects = pairs.map(([expression, total]) => ({ expression, total }));
  const a = alea.fairness(pairs, { seed: 5 });
  assert.deepEqual(alea.fairness(objects, { seed: 5 }), a);
  assert.deepEqual(alea.fairness(rolls.slice(0, 400), { seed: 5 }), a);
  assert.deepEqual(alea.fairness(pairs, { seed: '5' }), a);
  // without a seed: one from the system's entropy, said exactly
  const b = alea.fairness(pairs);
  assert.equal(typeof b.seed, 'bigint');
  assert.deepEqual(alea.fairness(pairs, { seed: b.seed }), b);
});

test('fairness: a d20 that never shows 20 is not fair, and low', async () => {
  const biased = Array.from({ length: 1900 }, (_, i) => ['d20', 1 + (i % 19)]);
  const f = await fairness(biased, { seed: 1 });
  assert.equal(f.verdict, 'not fair');
  assert.equal(f.direction, 'low');
  assert.equal(f.fair, false);
  assert.match(f.text, /^these rolls are lower than fair dice give: p = /);
  assert.equal(f.tests[0].name, 'mean');
  assert.equal(f.tests[0].direction, 'low');
  assert.ok(f.tests[0].p_adjusted < f.alpha);
  assert.deepEqual(asJson(f), want(cli(biased.map((r) => r.join(' ')).join('\n'), 1).json));
  // too few rolls to say: no test ran
  const few = alea.fairness([['d20', 20], ['d20', 20]], { seed: 1 });
  assert.equal(few.verdict, 'too few');
  assert.deepEqual(few.tests, []);
  // another dialect's expressions
  assert.equal(alea.fairness([['1d20cs>19', 3]], { seed: 1, dialect: 'roll20' }).rolls, 1);
});

test('fairness: a refused roll throws, named by its index, its span in its expression', () => {
  assert.throws(() => alea.fairness([['d20', 3], ['d20', 3], ['d20', 21]], { seed: 1 }), (e) => {
    assert.ok(e instanceof AleaError);
    assert.equal(e.status, 'ALEA_ERR_DOMAIN');
    assert.equal(e.message, "roll 2: 'd20' cannot total 21 (its totals run from 1 to 20)");
    assert.equal(e.expression, 'd20');
    return true;
  });
  assert.throws(() => alea.fairness([['d20', 3], ['2d6 +', 4]]), (e) => {
    assert.equal(e.status, 'ALEA_ERR_SYNTAX');
    assert.match(e.message, /^roll 1: /);
    assert.equal(e.expression, '2d6 +');
    assert.equal(e.caret(), '2d6 +\n     ^');
    return true;
  });
  // a repeat's rolls all or none: one total it cannot give refuses the Roll
  assert.throws(() => alea.fairness([{ expression: 'd6', total: 7 }]), /^AleaError: roll 0: 'd6' cannot total 7/);
  // what is not a roll
  for (const bad of [[['d20']], [['d20', 1.5]], [['d20', '3']], [[20, 3]], [null], [{ total: 3 }], 'd20 3', null]) {
    assert.throws(() => alea.fairness(bad), (e) => e instanceof TypeError || e instanceof RangeError,
      JSON.stringify(bad));
  }
  assert.throws(() => alea.fairness([['d20', 3]], { seed: -1 }), RangeError);
  assert.throws(() => alea.fairness([['d20', 3]], { dialect: 'anydice' }), RangeError);
  assert.throws(() => alea.fairness([['d20', 3]], 7), TypeError);
  // the source limit, per roll
  assert.throws(() => alea.fairness([['d20', 3], ['1'.repeat(5000), 1]]), /^AleaError: roll 1: expression too long/);
});

test('fairness: the fairnessRolls limit, each roll of a repeat counted, at N and N + 1', async () => {
  assert.equal(LIMITS.fairnessRolls.default, 100000);
  const few = await load({ limits: { fairnessRolls: 5 } });
  assert.equal(few.fairness([['d6', 1], ['d6', 2], ['3 x d6', 3], ['d6', 4]]).rolls, 4);
  const three = few.roll('3 x d6', { seed: 1 });
  assert.equal(few.fairness([['d6', 1], ['d6', 2], three]).rolls, 5);
  assert.throws(() => few.fairness([['d6', 1], ['d6', 2], ['d6', 2], three]),
    (e) => e instanceof AleaError && e.status === 'ALEA_ERR_LIMIT'
      && e.message === 'too many rolls to judge: 6 (limit is 5)');
  // the module's own ceiling: a loaded machine is given time for it
  const big = await load({ limits: { deadline: 30000 } });
  const many = Array.from({ length: LIMITS.fairnessRolls.max }, (_, i) => ['d6', 1 + (i % 6)]);
  assert.equal(big.fairness(many, { seed: 1 }).rolls, LIMITS.fairnessRolls.max);
  many.push(['d6', 1]);
  assert.throws(() => big.fairness(many, { seed: 1 }), /too many rolls to judge: 100001 \(limit is 100000\)/);
  // the deadline: a call past it stops
  const slow = await load({ limits: { deadline: 0 } });
  assert.throws(() => slow.fairness(many.slice(0, 5000), { seed: 1 }),
    (e) => e.status === 'ALEA_ERR_INTERRUPTED' && e.message === 'timed out after 0 ms (the deadline)');
});
