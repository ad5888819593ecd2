// policy.test.mjs -- alea-dice's policy() (index.mjs): the decisions of
// `alea policy --json` (and in fractions, --exact), an expression without a
// choice refused with its span, and the answer and output limits at N and
// N + 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { load, policy, AleaError, Policy } from '../index.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ALEA = process.env.ALEA ?? join(here, '..', '..', 'build', 'alea');
const alea = await load();
const cli = (...args) => execFileSync(ALEA, ['policy', '--json', ...args], { encoding: 'utf8' });

for (const src of ['dd(3, 14, best)', 'dd(0, 10, onfail)', 'dd(6, 14, always)']) {
  test(`policy: ${src} is \`alea policy --json\`'s`, () => {
    const p = alea.policy(src);
    const want = JSON.parse(cli(src));
    assert.ok(p instanceof Policy);
    assert.deepEqual(p.json, want);
    assert.deepEqual([p.expression, p.goal, p.isProb, p.value, p.optimum],
      [want.expression, want.goal, want.probability, want.value, want.optimum]);
    assert.deepEqual(p.rows.map((r) => ({ ...r })), want.rows);
    assert.ok(p.rows.length > 1);
    assert.ok(Math.abs(p.rows.reduce((k, r) => k + r.chance, 0) - 1) < 1e-12);
    assert.ok(p.value <= p.optimum);
  });
}

test('policy: a fixed rule beside the best, the dialect, the shared instance', async () => {
  const fixed = alea.policy('dd(6, 14, always)'), best = alea.policy('dd(6, 14, best)');
  assert.equal(fixed.optimum, best.value);
  assert.ok(fixed.value < fixed.optimum);
  assert.deepEqual((await policy('dd(6, 14, always)', { dialect: 'roll20' })).json,
    JSON.parse(cli('--dialect', 'roll20', 'dd(6, 14, always)')));
});

// Throws an AleaError of status and span.
function refused(fn, { status, start, end, message }) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof AleaError, `not an AleaError: ${e}`);
    assert.equal(e.status, status, e.message);
    if (start !== undefined) assert.deepEqual([e.start, e.end], [start, end], e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

test('policy: no choice, a bad expression, exact, bad options', () => {
  refused(() => alea.policy('3d6 + 1'), { status: 'ALEA_ERR_INVALID', start: 0, end: 7,
    message: /^no choice for the player in this expression/ });
  refused(() => alea.policy('dd(3, 14, best'), { status: 'ALEA_ERR_SYNTAX' });
  // in fractions, as `alea policy --exact --json`
  const exact = alea.policy('dd(3, 14, best)', { exact: true });
  assert.deepEqual([exact.value, exact.optimum, exact.rows[1].value], ['8/5', '8/5', '11/10']);
  assert.throws(() => alea.policy(7), TypeError);
  assert.throws(() => alea.policy('dd(3, 14, best)', 'roll20'), TypeError);
  assert.throws(() => alea.policy('dd(3, 14, best)', { dialect: 'anydice' }), RangeError);
});

test('policy: the answer and output limits at N and N + 1, the source limit', async () => {
  const n = cli('dd(3, 14, best)').length - 1; // its JSON, without the newline
  // the answer's bytes and its NUL
  assert.equal((await load({ limits: { answerBytes: n + 1 } })).policy('dd(3, 14, best)').rows.length, 4);
  const answer = await load({ limits: { answerBytes: n } });
  refused(() => answer.policy('dd(3, 14, best)'), { status: 'ALEA_ERR_LIMIT',
    message: new RegExp(`^the policy is too long \\(limit is ${n} bytes in all\\)$`) });
  const out = await load({ limits: { output: n } });
  assert.equal(out.policy('dd(3, 14, best)').rows.length, 4);
  out.limit('output', n - 1);
  refused(() => out.policy('dd(3, 14, best)'), { status: 'ALEA_ERR_LIMIT',
    message: new RegExp(`^too much output: the policy's JSON passes ${n - 1} bytes`) });
  const tight = await load({ limits: { source: 14 } });
  refused(() => tight.policy('dd(3, 14, best)'), { status: 'ALEA_ERR_LIMIT', start: 14, end: 15 });
});
