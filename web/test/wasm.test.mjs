// wasm.test.mjs -- the WebAssembly module (web/dist/alea.wasm) against the
// command line (ALEA, default ../build/alea) on the language corpus: every
// expression of tests/lang/*.test, of the docs' `$ alea` commands and of the
// roller/exact agreement test (fuzz/corpus.awk gathers them). The same
// library must give the same bytes: dist JSON, seeded rolls, and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAlea, FAIRNESS_ROLLS } from '../alea.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const ALEA = process.env.ALEA ? join(process.cwd(), process.env.ALEA) : join(root, 'build', 'alea');

function corpus() {
  const dir = mkdtempSync(join(tmpdir(), 'alea-corpus-'));
  const files = ['tests/lang', 'docs', 'docs/systems']
    .flatMap((d) => readdirSync(join(root, d)).filter((f) => /\.(test|md)$/.test(f))
      .map((f) => join(root, d, f)));
  files.push(join(root, 'tests', 'agree_test.c'));
  execFileSync('awk', ['-v', `dir=${dir}`, '-f', join(root, 'fuzz', 'corpus.awk'), ...files]);
  return readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), 'utf8'));
}

const cli = (args) => spawnSync(ALEA, args, { encoding: 'utf8' });

// Equal, numbers within 1e-12 of each other (relative): the two builds
// share the library's code but not their C library's pow() and exp(), whose
// last bits may differ.
function near(a, b, path) {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isInteger(a) && Number.isInteger(b) && Math.abs(a) > 1) {
      assert.equal(a, b, path);
      return;
    }
    assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b)) || a === b,
      `${path}: ${a} and ${b}`);
    return;
  }
  if (Array.isArray(a)) {
    assert.ok(Array.isArray(b) && a.length === b.length, `${path}: lengths`);
    a.forEach((x, i) => near(x, b[i], `${path}[${i}]`));
    return;
  }
  if (a && typeof a === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), path);
    for (const k of Object.keys(a)) near(a[k], b[k], `${path}.${k}`);
    return;
  }
  assert.equal(a, b, path);
}

// The CLI's first stderr line for a failed expression: the same line
// (alea_ctx_error_line) after "alea: ".
const cliMessage = (error) => `alea: ${error.line}`;

const alea = await loadAlea(readFileSync(join(here, '..', 'dist', 'alea.wasm')));
const exprs = corpus();

test('the corpus is the language', () => {
  assert.ok(exprs.length > 300, `only ${exprs.length} expressions`);
});

// The hint the CLI writes on stderr ("alea: hint: ..."), or undefined.
const cliHint = (stderr) => {
  const line = stderr.split('\n').find((l) => l.startsWith('alea: hint: '));
  return line === undefined ? undefined : line.slice('alea: hint: '.length);
};

test('dist: the same JSON as `alea dist --json`, or the same error', () => {
  let ok = 0, failed = 0, hints = 0;
  for (const src of exprs) {
    const got = alea.dist(src);
    const r = cli(['dist', '--json', '--', src]);
    if (got.error) {
      assert.equal(r.status, 1, `${src}: the module failed (${got.error.message}), the CLI did not`);
      // the first line that is not a hint (another tool may read it otherwise)
      const first = r.stderr.split('\n').find((l) => !l.startsWith('alea: hint: '));
      assert.equal(first, cliMessage(got.error), src);
      failed++;
    } else {
      assert.equal(r.status, 0, `${src}: the CLI failed: ${r.stderr}`);
      const { hint, ...dist } = got;
      // the module has the fractions too (mini-gmp): a result that came
      // near the double range is computed again in them, as the CLI's
      near(dist, JSON.parse(r.stdout), src);
      assert.equal(hint, cliHint(r.stderr), src);
      hints += hint !== undefined;
      ok++;
    }
  }
  assert.ok(ok > 200 && failed > 30, `${ok} distributions, ${failed} errors`);
  assert.ok(hints > 5, `${hints} hints`);
});

test('svg: the same picture as `alea dist --svg` and `alea compare --svg`; errors', () => {
  assert.equal(alea.svg([{ label: '', src: '3d6' }]).svg, cli(['dist', '3d6', '--svg', '-']).stdout);
  assert.equal(alea.svg([{ label: '', src: '2d6' }, { label: 'best', src: '4d6kh3' }]).svg,
    cli(['compare', '2d6', 'best=4d6kh3', '--svg', '-']).stdout);
  const escaped = alea.svg([{ label: 'a<&">', src: 'd6' }, { label: '', src: 'd8' }]).svg;
  assert.ok(escaped.includes('data-label="a&lt;&amp;&quot;&gt;"') && !escaped.includes('a<&'));
  const bad = alea.svg([{ label: '', src: '3d6' }, { label: '', src: '2d+3' }]);
  assert.equal(bad.error.line, cli(['dist', '2d+3']).stderr.split('\n')[0].replace(/^alea: /, ''));
  assert.equal(alea.svg([]).error.status, 'ALEA_ERR_LIMIT');
  assert.equal(alea.svg(Array(17).fill({ label: '', src: 'd6' })).error.status, 'ALEA_ERR_LIMIT');
});

test('roll: the same breakdowns as `alea roll --seed 7 -n 3`', () => {
  for (const src of exprs) {
    const got = alea.roll(src, { n: 3, seed: '7' });
    const r = cli(['roll', '--seed', '7', '-n', '3', '--', src]);
    if (got.error) {
      assert.equal(r.status, 1, src);
      assert.ok(r.stderr.includes(cliMessage(got.error)), `${src}: ${r.stderr}`);
      continue;
    }
    assert.equal(r.status, 0, `${src}: ${r.stderr}`);
    // a repeat's text has a line per roll
    assert.deepEqual(got.rolls.flatMap((x) => x.text.split('\n')), r.stdout.trimEnd().split('\n'),
      src);
    for (const x of got.rolls) assert.equal(x.detail.total, x.total, src);
    assert.equal(got.hint, cliHint(r.stderr), src);
  }
});

test('roll: Markdown for a chat, as `alea roll --format markdown`', () => {
  for (const src of exprs.slice(0, 120)) {
    const got = alea.roll(src, { n: 2, seed: '3' });
    if (got.error) continue;
    const r = cli(['roll', '--format', 'markdown', '--seed', '3', '-n', '2', '--', src]);
    assert.deepEqual(got.rolls.flatMap((x) => x.markdown.split('\n')),
      r.stdout.trimEnd().split('\n'), src);
  }
  const struck = alea.roll('4d6kh3', { seed: '1' }).rolls[0].markdown;
  assert.match(struck, /~~\d~~/);
  assert.match(struck, /= `\d+`$/);
});

test('seeds up to 2^64 - 1 reach the generator whole', () => {
  for (const seed of ['0', '1', '4294967296', '18446744073709551615']) {
    const got = alea.roll('4d6kh3 + 1d1000000', { n: 2, seed }).rolls.map((x) => x.text);
    const r = cli(['roll', '--seed', seed, '-n', '2', '4d6kh3 + 1d1000000']);
    assert.deepEqual(got, r.stdout.trimEnd().split('\n'), seed);
  }
});

test('without a seed, rolls go on from the page\'s entropy', () => {
  const a = alea.roll('1d1000000000', { n: 1 }).rolls[0].total;
  const b = alea.roll('1d1000000000', { n: 1 }).rolls[0].total;
  assert.notEqual(a, b);
});

// ---- the bounds of a request: a link to the page is a stranger's text ----------

// Faces near -2^63, 190 of them: each of best()'s 9999 repetitions prints
// the whole list (the breakdown grows as repetitions x source).
const FACES = Array.from({ length: 190 }, (_, i) => String(-9223372036854775000n + BigInt(i)));
const AMPLIFY = `best(9999, 0d{${FACES.join(',')}})`;
// Values 2^49 apart: keys that collided in the library's hash table.
const FLOOD = '1d15000*562949953421312 + 1d480*562949953421312';

test('each dialect reads as its tool, as `alea --dialect`', () => {
  assert.deepEqual(alea.dialects, ['alea', 'roll20', 'foundry', 'rpgdr', 'd20']);
  for (const [dialect, src] of [['roll20', '3d6>3'], ['d20', '(1d6-7)/2'], ['foundry', '1d10r1'],
    ['rpgdr', '3d10k1d1'], ['alea', '3d6>3']]) {
    const { hint, ...got } = alea.request(undefined, undefined, dialect).dist(src);
    const r = spawnSync(ALEA, ['dist', '--json', '--dialect', dialect, src], { encoding: 'utf8' });
    assert.deepEqual(got, JSON.parse(r.stdout), `${dialect}: ${src}`);
    assert.equal(hint, cliHint(r.stderr), `${dialect}: ${src}`);
  }
  // a request without one is alea's own, whatever came before
  assert.equal(alea.dist('3d6>3').mean, 1.5);
});

test('roll with luck: each roll\'s "luck" as `alea roll --luck --json --seed 7 -n 3`', () => {
  let placed = 0, refused = 0;
  for (const src of exprs) {
    const got = alea.roll(src, { n: 3, seed: '7', detail: false, luck: true });
    if (got.error) continue; // the errors are the test above's
    const r = spawnSync(ALEA, ['roll', '--luck', '--json', '--seed', '7', '-n', '3', '--', src],
      { encoding: 'utf8', maxBuffer: 64 << 20 }); // 10000d6's breakdowns
    assert.equal(r.status, 0, `${src}: ${r.stderr}`);
    const want = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    // the same rolls as without luck: the distribution draws nothing
    assert.deepEqual(got.rolls.map((x) => x.total), want.map((x) => x.total), src);
    if (got.luck_refused) {
      // the CLI's hint: "no luck for 'SRC': its distribution was refused: LINE"
      assert.ok(r.stderr.includes('its distribution was refused: '), `${src}: ${r.stderr}`);
      assert.ok(got.rolls.every((x) => x.luck === undefined), src);
      refused++;
      continue;
    }
    // digit for digit: the same doubles
    assert.deepEqual(got.rolls.map((x) => x.luck), want.map((x) => x.luck), src);
    placed++;
  }
  assert.ok(placed > 200 && refused > 0, `${placed} placed, ${refused} refused`);
});

test('compare: the JSON of `alea compare --json` (the columns with their statistics)', () => {
  for (const pairs of [false, true]) {
    const srcs = ['4d6kh3', '3d6', 'dd(5, 14)', '2d20kh1 + 2'];
    const got = alea.compare(srcs, { pairs });
    const want = JSON.parse(cli(['compare', '--json', ...(pairs ? ['--pairs'] : []), '--', ...srcs]).stdout);
    assert.deepEqual(got.versus, want.versus);
    // the distances alone (the page has its lines' distributions already)
    assert.deepEqual(alea.compare(srcs, { pairs, columns: false }), { versus: want.versus });
    got.columns.forEach((c, j) => {
      const { hint, median, at_least: least, at_most: most, ...rest } = c;
      assert.deepEqual({ name: null, ...rest }, want.columns[j]);
      assert.deepEqual({ median, at_least: least, at_most: most },
        (({ median: m, at_least: l, at_most: x }) => ({ median: m, at_least: l, at_most: x }))(
          alea.dist(srcs[j], { stats: true })));
      void hint;
    });
  }
  // an error names its column and its span there
  const bad = alea.compare(['d6', 'd6 +', 'd8']);
  assert.deepEqual([bad.error.column, bad.error.start, bad.error.status], [1, 4, 'ALEA_ERR_SYNTAX']);
  // past the answer budget: the comparison's own message
  assert.equal(alea.request(2000, 100).compare(['d6', 'd8']).error?.message,
    'the comparison is too long for this page (limit is 100 bytes in all)');
  // the distances alone are small
  assert.equal(alea.request(2000, 300).compare(['d6', 'd8']).error?.message,
    'the comparison is too long for this page (limit is 300 bytes in all)');
  assert.equal(alea.request(2000, 300).compare(['d6', 'd8'], { columns: false }).versus.length, 1);
  assert.equal(alea.compare(['d6', 'd6 +'], { columns: false }).error.column, 1);
});

test('a request past its deadline stops with a plain message', () => {
  const got = alea.request(0).dist('8d1000');
  assert.equal(got.error?.status, 'ALEA_ERR_INTERRUPTED');
  assert.equal(got.error.message, 'stopped after 0 s: this expression takes too long to compute here');
  assert.equal(alea.request(0).roll('8d1000', { n: 3 }).error?.status, 'ALEA_ERR_INTERRUPTED');
  // and the next request has its own deadline
  assert.equal(alea.dist('8d1000').outcomes.length, 7993);
});

test('the hash-flooding link ends by the deadline', () => {
  assert.equal(alea.deadline, 2000);
  const t = performance.now();
  const got = alea.dist(FLOOD);
  const ms = performance.now() - t;
  // stopped at 2 s by a library whose hash table these keys flood (45 s
  // without a deadline); refused at once since the hash was fixed
  assert.ok(got.error?.message === 'stopped after 2 s: this expression takes too long to compute here' ||
    /^too much work to compute at byte 0(: it needs at least \d+ units)? \(work limit is 30000000\)$/.test(got.error?.message),
    got.error?.message);
  // the bound is loose for a busy machine
  assert.ok(ms < 15000, `${ms} ms`);
});

// The answer budget's tests give their requests a minute: they are about
// bytes, and a busy machine must not turn them into the deadline's.
const SLOW_OK = 60000;

test('the amplifying link is refused before its breakdowns are written', () => {
  for (const detail of [true, false]) {
    const got = alea.request(SLOW_OK).roll(AMPLIFY, { n: 1000, detail });
    assert.equal(got.error?.status, 'ALEA_ERR_LIMIT');
    assert.equal(got.error.message,
      'the rolls\' breakdowns are too long for this page (limit is 16 MiB in all)');
  }
  assert.ok(alea.memoryBytes() <= 64 << 20, `${alea.memoryBytes()} bytes`);
});

test('rolls: 1000 in one call, not 1001', () => {
  assert.equal(alea.roll('1d6', { n: 1000 }).rolls.length, 1000);
  assert.equal(alea.roll('1d6', { n: 1001 }).error?.message, 'too many rolls (limit is 1000)');
});

// Every die size and sums of them: the module's median and cumulative
// columns (what the page shows) are the command line's, number for number.
// The page once summed its own and showed 11 for 1d20's median.
const statsCases = () => Array.from({ length: 100 }, (_, k) => k + 1)
  .flatMap((n) => [`1d${n}`, `2d${n}`, `1d${n}+1d${101 - n}`, `1d${n}+5`]);

test('every die size 1..100 and their sums: the median and the columns are the command line\'s', () => {
  for (const src of statsCases()) {
    const got = alea.dist(src, { stats: true });
    const median = Number(cli(['dist', '--', src]).stdout.match(/median (-?\d+)/)[1]);
    assert.equal(got.median, median, `${src}: median`);
    const rows = cli(['dist', '--csv', '--', src]).stdout.trimEnd().split('\n').slice(1)
      .map((l) => l.split(',').map(Number));
    assert.equal(got.at_least.length, rows.length, src);
    rows.forEach(([v, , least, most], i) => {
      assert.equal(got.outcomes[i][0], v, src);
      assert.equal(got.at_least[i], least, `${src}: at least ${v}`);
      assert.equal(got.at_most[i], most, `${src}: at most ${v}`);
    });
    assert.equal(got.at_least[0], 1, src);
    assert.equal(got.at_most.at(-1), 1, src);
  }
  assert.equal(alea.dist('1d20', { stats: true }).median, 10);
  assert.equal(alea.dist('1d20+5', { stats: true }).median, 15);
  assert.equal(alea.dist('1d12', { stats: true }).median, 6);
  // without stats, the library's JSON as it is (the command line's)
  assert.equal(alea.dist('1d20').median, undefined);
});

test('the calls of a request share 16 MiB of answers', () => {
  // 1d100000's JSON is about 1.6 MB: ten fit, not eleven
  const req = alea.request(SLOW_OK);
  const got = Array.from({ length: 11 }, () => req.dist('1d100000'));
  assert.ok(got.slice(0, 10).every((d) => d.outcomes?.length === 100000));
  assert.equal(got[10].error?.message,
    'the distribution is too long for this page (limit is 16 MiB in all)');
  assert.equal(alea.request(SLOW_OK).dist('1d100000').outcomes.length, 100000);
  assert.equal(alea.request(SLOW_OK).roll('10000d6', { n: 1000, detail: false }).error?.status, 'ALEA_ERR_LIMIT');
  // a request may ask for less (the page: 4 MiB), never more
  const small = alea.request(SLOW_OK, 4 << 20);
  assert.ok(small.dist('1d100000').outcomes && small.dist('1d100000').outcomes);
  assert.equal(small.dist('1d100000').error?.message,
    'the distribution is too long for this page (limit is 4 MiB in all)');
  const odd = alea.request(SLOW_OK, 1000);
  assert.equal(odd.roll('1d6', { n: 1000 }).error?.message,
    'the rolls\' breakdowns are too long for this page (limit is 1000 bytes in all)');
  const big = alea.request(SLOW_OK, 64 << 20);
  assert.equal(Array.from({ length: 11 }, () => big.dist('1d100000')).at(-1).error?.message,
    'the distribution is too long for this page (limit is 16 MiB in all)');
});

test('the module\'s memory stops at 128 MiB', async () => {
  const stub = () => 52;
  const { instance } = await WebAssembly.instantiate(
    readFileSync(join(here, '..', 'dist', 'alea.wasm')),
    { wasi_snapshot_preview1: { random_get: stub, clock_time_get: stub, fd_write: stub,
      fd_seek: stub, fd_close: stub } });
  const memory = instance.exports.memory;
  memory.grow((128 << 20) / 65536 - memory.buffer.byteLength / 65536);
  assert.throws(() => memory.grow(1), RangeError);
});

test('sample: the same estimate as `alea dist --sample N --seed 7 --json`', () => {
  for (const expr of ['3d6', '4d6kh3', 'dd(6, 14)', '10d10>=8f1']) {
    const got = alea.sample(expr, { n: 500, seed: '7' });
    const r = cli(['dist', '--json', '--sample', '500', '--seed', '7', '--threads', '1', '--', expr]);
    const want = JSON.parse(r.stdout);
    delete want.seed;
    delete want.threads;
    near(got, want, expr);
  }
});

test('sample: stream k of a seed is thread k of `alea dist --sample --seed S --threads T`', () => {
  // the page's estimate: chunk k on stream k, the counts added up
  for (const [expr, seed] of [['3d6*4d6', '8789616384988581'], ['1000d6*1000d6', '7'], ['4d6kh3', '0']]) {
    const counts = new Map();
    for (let k = 0; k < 10; k++) {
      const d = alea.sample(expr, { n: 200, seed, stream: k });
      assert.equal(d.samples, 200);
      for (const [v, p] of d.outcomes) counts.set(v, (counts.get(v) || 0) + Math.round(p * 200));
    }
    const r = cli(['dist', '--json', '--sample', '2000', '--seed', seed, '--threads', '10', '--', expr]);
    const want = JSON.parse(r.stdout);
    assert.deepEqual([...counts].sort((a, b) => a[0] - b[0]),
      want.outcomes.map(([v, p]) => [v, Math.round(p * 2000)]), expr);
  }
  // stream 0 is the seed's own sequence; two streams differ
  assert.deepEqual(alea.sample('3d6', { n: 100, seed: '7', stream: 0 }), alea.sample('3d6', { n: 100, seed: '7' }));
  assert.notDeepEqual(alea.sample('3d6', { n: 100, seed: '7', stream: 1 }).outcomes,
    alea.sample('3d6', { n: 100, seed: '7' }).outcomes);
  // at most stream 64 (each a jump of the generator), as --threads
  assert.equal(alea.sample('3d6', { n: 10, seed: '7', stream: 64 }).samples, 10);
  assert.equal(alea.sample('3d6', { n: 10, seed: '7', stream: 65 }).error?.message,
    'stream 65 of the seed (limit is 64)');
  assert.equal(alea.sample('3d6', { n: 10, seed: '7', stream: -1 }).error?.message,
    'stream 4294967295 of the seed (limit is 64)');
});

test('estimate: the counts of 10 streams, merged, give the statistics of `alea dist --sample`', () => {
  // the page's estimate: chunk k on stream k, the counts added up, the
  // library's estimate of them with its median and cumulative columns
  for (const [expr, seed] of [['3d6*4d6', '11'], ['1000d6*1000d6', '7'], ['dd(6, 14)', '3']]) {
    const counts = new Map();
    for (let k = 0; k < 10; k++) {
      const d = alea.sample(expr, { n: 200, seed, stream: k });
      for (const [v, p] of d.outcomes) counts.set(v, (counts.get(v) || 0) + Math.round(p * 200));
    }
    const values = [...counts.keys()].sort((a, b) => a - b);
    const got = alea.estimate(expr, values, values.map((v) => counts.get(v)));
    const args = ['--sample', '2000', '--seed', seed, '--threads', '10', '--', expr];
    const want = JSON.parse(cli(['dist', '--json', ...args]).stdout);
    for (const key of ['outcomes', 'mean', 'sd', 'min', 'max', 'samples', 'labels'])
      near(got[key], want[key], `${expr} ${key}`);
    assert.equal(got.median, Number(cli(['dist', ...args]).stdout.match(/median (-?\d+)/)[1]), expr);
    const [head, ...rows] = cli(['dist', '--csv', ...args]).stdout.trimEnd().split('\n').map((r) => r.split(','));
    for (const key of ['at_least', 'at_most'])
      near(got[key], rows.map((r) => Number(r[head.indexOf(key)])), `${expr} ${key}`);
    assert.equal(got.at_most.at(-1), 1);
  }
  // a count of 0 adds nothing; bad counts and too many values are refused
  assert.deepEqual(alea.estimate('1d6', [1, 2, 9], [3, 1, 0]).outcomes, [[1, 0.75], [2, 0.25]]);
  assert.equal(alea.estimate('1d6', [1], [0.5]).error?.message, 'count 0 of the estimate is not a whole number from 0 to 2^53');
  assert.equal(alea.estimate('1d6', [1.5], [1]).error?.message, 'value 0 of the estimate is not a 64-bit integer');
  assert.equal(alea.estimate('1d6', [1, 2 ** 63], [1, 1]).error?.message, 'value 1 of the estimate is not a 64-bit integer');
  assert.deepEqual(alea.estimate('1d6', [-(2 ** 63), 2 ** 62], [1, 1]).outcomes.map(([v]) => v), [-(2 ** 63), 2 ** 62]);
  assert.equal(alea.estimate('1d6', [1], [-1]).error?.status, 'ALEA_ERR_ARGUMENT');
  assert.equal(alea.estimate('1d6', [1], [2 ** 54]).error?.status, 'ALEA_ERR_ARGUMENT');
  assert.equal(alea.estimate('1d6', [], []).error?.message, 'estimate of 0 values (limit is 1 to 100000)');
  const many = Array.from({ length: 100001 }, (_, i) => i);
  assert.equal(alea.estimate('1d6', many, many.map(() => 1)).error?.message,
    'estimate of 100001 values (limit is 1 to 100000)');
  assert.equal(alea.estimate('1d6', many.slice(1), many.slice(1).map(() => 1)).samples, 100000);
  assert.equal(alea.estimate('1d6', [1], [0]).error?.status, 'ALEA_ERR_ARGUMENT'); // no rolls
});

test('sample: 10000 rolls in one call, not 10001, nor 0', () => {
  assert.equal(alea.sample('1d6', { n: 10000 }).samples, 10000);
  assert.equal(alea.sample('1d6', { n: 10001 }).error?.message, 'sample of 10001 rolls (limit is 1 to 10000)');
  assert.equal(alea.sample('1d6', { n: 0 }).error?.message, 'sample of 0 rolls (limit is 1 to 10000)');
});

test('sample: a distribution past the work limit is estimated near its mean', () => {
  assert.equal(alea.dist('1000d6*1000d6').error?.status, 'ALEA_ERR_LIMIT');
  const d = alea.sample('1000d6*1000d6', { n: 2000, seed: '1' });
  assert.equal(d.samples, 2000);
  // sd of one roll about 2.7e5: the mean of 2000 within 1% (about 20 sd)
  assert.ok(Math.abs(d.mean - 3500 ** 2) < 0.01 * 3500 ** 2, `mean ${d.mean}`);
});

test('a named line: as `alea compare name=expr`, with ":"', () => {
  assert.deepEqual(alea.named('advantage: 2d20kh1'), { name: 'advantage', src: ' 2d20kh1', at: 10 });
  assert.deepEqual(alea.named('_a-1:d6'), { name: '_a-1', src: 'd6', at: 5 });
  // a name of several words, one space apart, as the CLI's column names
  assert.deepEqual(alea.named('plus five: 1d20+5'), { name: 'plus five', src: ' 1d20+5', at: 10 });
  assert.equal(cli(['compare', 'plus five=1d20+5', 'd20']).status, 0);
  // a line that compiles as it stands is never a name; no name, no split
  for (const line of ['d20=20', '2d20kh1', '1a: d6', 'a  b: d6', 'a b : d6', ': d6']) {
    assert.equal(alea.named(line), null, line);
  }
  // at most 24 characters, as the CLI's column names
  const n24 = 'a'.repeat(24), n25 = 'a'.repeat(25);
  assert.equal(alea.named(`${n24}: d6`).name, n24);
  assert.equal(alea.named(`${n25}: d6`).error?.message,
    `the name '${n24}...' is longer than 24 characters`);
  const r = cli(['compare', `${n25}=d6`]);
  assert.match(r.stderr, /is longer than 24 characters/);
  assert.equal(cli(['compare', `${n24}=d6`]).status, 0);
});

// A log of rolls judged: the module's answer is `alea fairness --json
// --seed S`'s object on the same log.
test('fairness: the same judgement as alea fairness --json --seed', async () => {
  // a deadline a loaded machine meets for the limit's 100000 rolls
  const alea = await loadAlea(readFileSync(join(root, 'web', 'dist', 'alea.wasm')), { deadline: 30000 });
  const rolls = alea.roll('d20', { n: 300, seed: '7', detail: false }).rolls.map((r) => ['d20', r.total])
    .concat(alea.roll('3d6', { n: 200, seed: '8', detail: false }).rolls.map((r) => ['3d6', r.total]));
  const log = rolls.map(([e, t]) => `${e} ${t}`).join('\n') + '\n';
  for (const seed of ['1', '18446744073709551615']) {
    const want = spawnSync(ALEA, ['fairness', '--json', '--seed', seed], { input: log, encoding: 'utf8' });
    const got = alea.fairness(rolls, { seed });
    assert.deepEqual(got, JSON.parse(want.stdout), `seed ${seed}`);
  }
  // a d20 that never shows 20: lower than fair dice give
  const biased = Array.from({ length: 1900 }, (_, i) => ['d20', 1 + (i % 19)]);
  const b = alea.fairness(biased, { seed: '1' });
  assert.equal(b.verdict, 'not fair');
  assert.equal(b.direction, 'low');
  // a repeat's rolls, all placed
  assert.equal(alea.fairness([['3 x 1d6', [1, 2, 3]]], { seed: '1' }).rolls, 3);
  // a refused roll: named by its index, the span within its expression
  const e = alea.fairness([['d20', 3], ['d20', 21]], { seed: '1' }).error;
  assert.equal(e.status, 'ALEA_ERR_DOMAIN');
  assert.equal(e.roll, 1);
  assert.match(e.message, /^roll 1: 'd20' cannot total 21 \(its totals run from 1 to 20\)$/);
  const s = alea.fairness([['d20', 3], ['2d6 +', 4]]).error;
  assert.equal(s.status, 'ALEA_ERR_SYNTAX');
  assert.equal(s.roll, 1);
  // the limit: FAIRNESS_ROLLS rolls, not one more (one roll, or a repeat's)
  const many = Array.from({ length: FAIRNESS_ROLLS }, () => ['d6', 3]);
  assert.equal(alea.fairness(many, { seed: '1' }).rolls, FAIRNESS_ROLLS);
  many.push(['d6', 3]);
  assert.match(alea.fairness(many, { seed: '1' }).error.message, /too many rolls to judge: 100001 \(limit is 100000\)/);
  const repeat = [['d6', 3], ['2 x d6', [1, 2]]];
  many.length = FAIRNESS_ROLLS - 3; // and the three rolls of repeat
  assert.equal(alea.fairness(many.concat(repeat), { seed: '1' }).rolls, FAIRNESS_ROLLS);
  many.push(['d6', 3]);
  assert.match(alea.fairness(many.concat(repeat), { seed: '1' }).error.message, /limit is 100000/);
});

test('table: `alea table --json` and --csv, with the kinds of statistics first', () => {
  const args = ['event(tier(d4, +n))', 'n=0..5', '--stat', 'mean', '--stat', 'critical failure',
    '--stat', 'median'];
  const { kinds, csv, ...rest } = alea.table(args[0], [args[1]], ['mean', 'critical failure', 'median'],
    { csv: true });
  assert.deepEqual(rest, JSON.parse(cli(['table', ...args, '--json']).stdout));
  assert.equal(csv, cli(['table', ...args, '--csv']).stdout);
  assert.deepEqual(kinds, ['number', 'prob', 'outcome']);
  assert.equal(alea.table('d20 + m >= dc', ['m=0', 'dc=10'], []).csv, undefined);
  // an error names the text its span is in
  const bad = alea.table('d20 + m >= dc', ['m=0..2', 'dc=1..x'], []);
  assert.deepEqual([bad.error.part, bad.error.index, bad.error.start, bad.error.end],
    ['sweep', 1, 3, 7]);
  assert.equal(alea.table('d20 + m', ['m=0'], ['mean', 'p>']).error.part, 'stat');
  assert.equal(alea.table('d20 + m +', ['m=0'], []).error.part, 'expression');
  // the picture: `alea table --svg -`'s, the heat map of the statistic asked
  // for with two names (as the command line draws it of its one --stat)
  const hit = ['d20 + m >= dc', 'm=0..3', 'dc=10..12'];
  const two = alea.table(hit[0], hit.slice(1), ['mean', 'p=1'], { svg: 1 });
  assert.equal(two.svg, cli(['table', ...hit, '--stat', 'p=1', '--svg', '-']).stdout);
  assert.equal(two.csv, undefined);
  assert.equal(alea.table(hit[0], hit.slice(1), [], { svg: true }).svg,
    cli(['table', ...hit, '--svg', '-']).stdout);
  assert.equal(alea.table(args[0], [args[1]], ['mean', 'critical failure', 'median'], { svg: 2 }).svg,
    cli(['table', ...args, '--svg', '-']).stdout);
  assert.equal(alea.table(...hit.slice(0, 1), hit.slice(1), [], { svg: false }).svg, undefined);
  assert.match(alea.table(hit[0], hit.slice(1), ['mean'], { svg: 1 }).error.message,
    /^no statistic 1: the table has 1$/);
  // the answer budget and the deadline of the request
  assert.equal(alea.request(2000, 100).table('d20 + m', ['m=0..20'], []).error?.message,
    'the table is too long for this page (limit is 100 bytes in all)');
  const slow = alea.request(0).table('sum(m, 10d10)', ['m=1..60'], []);
  assert.deepEqual([slow.error?.status, slow.error?.part], ['ALEA_ERR_INTERRUPTED', 'expression']);
});
