// exact.test.mjs -- exact fractions in the WebAssembly module (GMP, MPFR):
// the language corpus (tests/lang/*.test and the game systems of
// docs/systems/*.md, gathered by fuzz/corpus.awk) through the module with
// exact: true and through `alea dist --exact --json` (ALEA, default
// ../build/alea), the same bytes: every fraction and every decimal the JSON
// prints, or the same error; compare and table with exact: true as `alea
// compare --exact --json` and `alea table --exact --json`; and the hostile
// corpus (scripts/hostile) in exact mode through the package, each ending
// with a result or an AleaError, never a crash or a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAlea } from '../wasm.mjs';
import { load, AleaError } from '../index.mjs';
import { hostileCases } from '../../web/test/hostile.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const ALEA = process.env.ALEA ? join(process.cwd(), process.env.ALEA) : join(root, 'build', 'alea');
const cli = (args) => spawnSync(ALEA, args, { encoding: 'utf8', maxBuffer: 1 << 28 });

function corpus() {
  const dir = mkdtempSync(join(tmpdir(), 'alea-exact-corpus-'));
  const files = ['tests/lang', 'docs/systems']
    .flatMap((d) => readdirSync(join(root, d)).filter((f) => /\.(test|md)$/.test(f))
      .map((f) => join(root, d, f)));
  execFileSync('awk', ['-v', `dir=${dir}`, '-f', join(root, 'fuzz', 'corpus.awk'), ...files]);
  return readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), 'utf8'));
}

// The module's answers as it wrote them: web/alea.js parses each, and the
// bytes are what this test compares (a probability below the double range,
// "4.90909346530e-391", parses to 0).
const module = await loadAlea(readFileSync(join(here, '..', 'alea.wasm')), { deadline: 60000 });
function raw(call) {
  const parse = JSON.parse;
  let text = null;
  JSON.parse = (s, r) => { text = s; return parse(s, r); };
  try {
    return [call(), text];
  } finally {
    JSON.parse = parse;
  }
}

// The module's answer for src against the CLI's run of args: the same JSON
// text (a hint first in the module's answer is the CLI's stderr line), or
// the same first line of the error. 'ok' or 'error'.
function same(src, got, text, r) {
  if (got.error) {
    assert.equal(r.status, 1, `${src}: the module failed (${got.error.message}), the CLI did not`);
    const first = r.stderr.split('\n').find((l) => !l.startsWith('alea: hint: '));
    assert.equal(first, `alea: ${got.error.line}`, src);
    return 'error';
  }
  assert.equal(r.status, 0, `${src}: the CLI failed: ${r.stderr}`);
  const json = text.replace(/^\{"hint": "(?:[^"\\]|\\.)*", /, '{');
  assert.equal(json, r.stdout.replace(/\n$/, ''), `${src}: the JSON differs`);
  return 'ok';
}

test('dist, exact: the corpus digit for digit as `alea dist --exact --json`', () => {
  const exprs = corpus();
  assert.ok(exprs.length >= 100, `only ${exprs.length} expressions`);
  // the constructs the corpus must hold
  for (const re of [/k[hl]\d/, /!/, /[<>]=?/, /\bdd\(/, /\bevent\(/]) {
    assert.ok(exprs.some((e) => re.test(e)), `no expression matches ${re}`);
  }
  const n = { ok: 0, error: 0 };
  for (const src of exprs) {
    const [got, text] = raw(() => module.dist(src, { exact: true }));
    n[same(src, got, text, cli(['dist', '--exact', '--json', '--', src]))]++;
  }
  assert.ok(n.ok >= 100, `${n.ok} distributions, ${n.error} errors`);
});

test('dist, exact: long fractions, keeps over explosions, probabilities below the double range', () => {
  const exprs = ['200d20', '300d20', '1000d6', '5d10!kh3', '6d12!kl2', '4d6kh3 >= 14',
    '100d6kh50', 'event(d12 + d14 + d18 + d20)', 'dd(6, 14)', '2d20kh1 - d20', '1d6 * 4000000000',
    'd{-9223372036854775807, 9223372036854775807}'];
  for (const src of exprs) {
    const [got, text] = raw(() => module.dist(src, { exact: true }));
    same(src, got, text, cli(['dist', '--exact', '--json', '--', src]));
  }
  // in doubles, a result near the double range is computed again in
  // fractions (GMP and MPFR in both): the same
  // decimal digits, to the last
  for (const src of ['300d20', '1000d6', '(500d6) >= 501', '400d10']) {
    const [got, text] = raw(() => module.dist(src));
    assert.match(text, /e-3\d\d/, src);
    same(src, got, text, cli(['dist', '--json', '--', src]));
  }
});

test('compare and table, exact: as `alea compare --exact --json` and `alea table --exact --json`', () => {
  const cols = [['d2', 'd3', 'd4'], ['4d6kh3', '3d6', '2d6+6'], ['5d10!kh3', 'd20 + 5']];
  for (const srcs of cols) {
    const lens = srcs.map((s) => s);
    const [got, text] = raw(() => module.compare(lens, { pairs: true, exact: true }));
    assert.ok(!got.error, JSON.stringify(got.error));
    const want = JSON.parse(cli(['compare', '--exact', '--json', '--pairs', '--', ...srcs]).stdout);
    const have = JSON.parse(text);
    assert.deepEqual(have.versus, want.versus, srcs.join(' '));
    assert.equal(typeof have.versus[0].p_less, 'string');
    // each column is dist's JSON (with the statistics and without a name)
    have.columns.forEach((c, j) => {
      const { median, at_least: al, at_most: am, hint, ...d } = c;
      const { name, ...w } = want.columns[j];
      assert.ok(name === null && median !== undefined && al.length === am.length);
      assert.deepEqual(d, w, srcs[j]);
    });
  }
  const tables = [['d20 + m >= dc', ['m=0..3', 'dc=10..12'], ['mean']],
    ['2d6 +n DICE', ['n=-2..2'], ['p>=7', 'mean', 'sd']],
    ['event(tier(d4, +n))', ['n=0..1'], ['mean', 'critical failure']]];
  for (const [src, sweeps, stats] of tables) {
    const got = module.table(src, sweeps, stats, { csv: true, exact: true });
    assert.ok(!got.error, JSON.stringify(got.error));
    const args = ['table', '--exact', ...stats.flatMap((s) => ['--stat', s]), '--', src, ...sweeps];
    const { kinds, csv, ...json } = got;
    assert.deepEqual(json, JSON.parse(cli([...args.slice(0, 1), '--json', ...args.slice(1)]).stdout), src);
    assert.equal(csv, cli([...args.slice(0, 1), '--csv', ...args.slice(1)]).stdout, src);
    assert.equal(kinds.length, stats.length);
  }
});

test('the package: exact: true on dist, compare, table and policy', async () => {
  const alea = await load();
  const d = alea.dist('2d6', { exact: true });
  assert.deepEqual([d.exact, d.p(7), d.mean, d.variance, d.atLeast(7), d.median], [true, '1/6', '7', '35/6', 7 / 12, 7]);
  const c = alea.compare('d20', ['adv', '2d20kh1'], { exact: true });
  assert.deepEqual([c.get('adv').mean, c.versus[0].p_less, c.versus[0].emd], ['553/40', '513/800', '133/40']);
  assert.deepEqual(c.table('p').find(([v]) => v === 20), [20, ['1/20', '39/400']]);
  const t = alea.table('d20 + m >= 15', ['m=0..2'], { stats: ['p>=1', 'sd'], exact: true });
  assert.deepEqual([t.cell('p>=1', 2), typeof t.cell('sd', 2)], ['2/5', 'number']);
  assert.equal(alea.policy('dd(3, 14, always)', { exact: true }).value, '3/2');
  // the limits bound the fractions, as the command line's: 200d20 needs
  // more than 100000 units of work
  const small = await load({ limits: { work: 100000 } });
  assert.throws(() => small.dist('200d20', { exact: true }),
    (e) => e instanceof AleaError && e.status === 'ALEA_ERR_LIMIT' && /work limit is 100000/.test(e.message));
  assert.equal(cli(['dist', '--exact', '--max-work', '100000', '200d20']).status, 1);
});

test('the hostile corpus in exact mode: a result or an AleaError, within the deadline', async () => {
  const cases = hostileCases().map(([src]) => src);
  assert.ok(cases.length > 30, `${cases.length} cases`);
  const alea = await load();
  const deadline = alea.limit('deadline');
  let results = 0, errors = 0;
  for (const src of cases) {
    const t = performance.now();
    try {
      alea.dist(src, { exact: true });
      results++;
    } catch (e) {
      assert.ok(e instanceof AleaError, `${src.slice(0, 80)}: ${e}`);
      assert.ok(e.message.length > 0 && e.start <= e.end, src.slice(0, 80));
      errors++;
    }
    // the deadline, and the slack of one poll of the interrupt hook
    assert.ok(performance.now() - t < deadline + 1000, `${src.slice(0, 80)}: past the deadline`);
    assert.ok(!alea.closed, `${src.slice(0, 80)}: the module trapped`);
  }
  assert.ok(results > 0 && errors > 0, `${results} results, ${errors} errors`);
});
