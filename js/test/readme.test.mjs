// readme.test.mjs -- the examples of js/README.md: each line of a ```js
// block written `EXPR // => VALUE` is run (the block's lines before it
// first, with the package's alea loaded as `alea`) and EXPR must equal
// VALUE (a JavaScript literal), deeply and exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pkg from '../index.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1])
  .filter((b) => b.includes('// =>'));
const alea = await pkg.load();

test('the README has checked examples', () => {
  assert.ok(blocks.length >= 1);
});

blocks.forEach((block, k) => {
  test(`README block ${k + 1}: each \`// =>\` line is what it says`, async () => {
    // each checked line becomes a check of its expression; the other lines run as written
    const body = block.split('\n').map((line) => {
      const m = /^(.*?)\s*\/\/ => (.*)$/.exec(line);
      return m ? `check(${JSON.stringify(m[1])}, () => (${m[1]}), () => (${m[2]}));` : line;
    }).join('\n');
    let checked = 0;
    const check = (src, got, want) => {
      assert.deepEqual(got(), want(), src);
      checked++;
    };
    const AsyncFunction = (async () => {}).constructor;
    await new AsyncFunction('alea', 'check', ...Object.keys(pkg), body)(alea, check, ...Object.values(pkg));
    assert.equal(checked, (block.match(/\/\/ => /g) ?? []).length);
  });
});
