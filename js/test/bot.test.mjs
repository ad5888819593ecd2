// bot.test.mjs -- examples/bot.mjs, the chat bot's handler: the replies of
// examples/bot.py's tests (python/tests/test_alea.py, BotTest), and a reply
// for whatever a stranger types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const path = join(here, '..', '..', 'examples', 'bot.mjs');
const bot = await import(path);

test('replies', async () => {
  assert.equal(await bot.reply('hello there'), null);
  bot.alea.seed(7);
  assert.equal(await bot.reply('!roll 4d6kh3', 'ann'), '@ann rolled 4d6kh3 [5, ~~2~~, **6**, **6**] = `17`');
  const odds = await bot.reply('!dist 2d6');
  assert.ok(odds.startsWith('```\n2d6\n     2   2.78%  #######\n'), odds);
  assert.ok(odds.includes(`\n     7  16.67%  ${'#'.repeat(40)}\n`), odds);
  assert.ok(odds.endsWith('\n    12   2.78%  #######\nmean 7.00  sd 2.42\n```'), odds);
  const no = await bot.reply('!roll 99999d6', 'bob');
  assert.ok(no.startsWith('@bob I could not do that: too many dice'), no);
  assert.ok(no.includes('dice limit is 1000)'), no); // lowered as bot.py lowers it
  assert.ok((await bot.reply('!roll 2d+3')).includes('```\n2d+3\n  ^\n```'));
  assert.ok((await bot.reply('!dist 1d1000')).includes('too many to list'));
  assert.ok((await bot.reply('!help')).includes('!roll EXPR'));
  assert.equal(await bot.reply('!rolling 4d6'), null);
  // one roll a message: a repeat is one roll
  assert.equal((await bot.reply('!roll 3 x 1d1')).split('\n').length, 3);
});

test('what chat users type', async () => {
  bot.alea.seed(1);
  assert.equal(await bot.reply('!roll 2d6+3 fire damage', 'ann'), '@ann rolled 2d6 [5, 4] + 3 = `12` # fire damage');
  assert.equal(await bot.reply('!roll 1d20 [str] + 4 // to hit', 'ann'),
    '@ann rolled 1d20 [str: 12] + 4 = `16` # to hit');
  assert.ok((await bot.reply('!dist 2d6 fire damage')).includes('fire damage\n'));
  // words that name a mechanic: the library's reading, not a comment
  assert.equal(await bot.reply('!roll 1d20+5 adv to hit', 'ann'),
    '@ann rolled (1d20 +1d [~~8~~, 14]) + 5 = `19` # to hit');
  const refused = await bot.reply('!roll 4d6kh3 x6', 'ann');
  assert.ok(refused.includes('to roll it 6 times, write 6 x 4d6kh3'), refused);
  assert.ok(refused.includes('```\n4d6kh3 x6\n       ^^\n```'), refused);
  // a misspelt word inside the roll is still an error, with its caret
  const bad = await bot.reply('!roll 1d20 + str', 'ann');
  assert.ok(bad.includes("unknown name 'str'"), bad);
  assert.ok(bad.includes('```\n1d20 + str\n       ^^^\n```'), bad);
  for (const junk of [`!roll ${'('.repeat(5000)}`, '!roll \0\xff', '!dist 1d6!'.repeat(50), '!roll d{}',
    '!dist 9223372036854775807 + 1']) {
    assert.equal(typeof await bot.reply(junk), 'string', junk.slice(0, 20));
  }
});

test('hostile messages get error replies', async () => {
  const big = String(2n ** 70n);
  const cases = {
    '!roll 1d6 \ud800': 'unexpected U+D800 at byte 4', // JSON.parse of "\ud800"
    '!dist \udfff': 'unexpected U+DFFF at byte 0',
    '!roll 1d6 # \ud83c': 'unexpected U+D83C at byte 6', // a pair, unjoined
    [`!roll ${big}d6`]: 'number too large',
    [`!roll 1d${big}`]: 'number too large',
    [`!dist 2d6 * ${big}`]: 'number too large',
    [`!roll ${'('.repeat(5000)}`]: 'expression too long: 5000 bytes (source limit is 200)',
    [`!roll ${'\ud800'.repeat(5000)}`]: 'expression too long: 15000 bytes',
    '!roll 1d6 \0\x1b[2J': 'unexpected byte 0x00',
    // hash flooding (45 s unbounded): the lowered support limit ends it
    '!dist 1d6 + 1d15000*562949953421312 + 1d480*562949953421312': 'support limit is 2000',
  };
  for (const [message, why] of Object.entries(cases)) {
    const t = performance.now();
    const answer = await bot.reply(message, 'eve');
    assert.ok(performance.now() - t < 5000, `${why}: ${performance.now() - t} ms`); // loose: a busy machine
    assert.ok(answer.startsWith('@eve I could not do that: '), answer);
    assert.ok(answer.includes(why), `${why}: ${answer}`);
    // a reply the chat can send: short, the caret in a block
    assert.ok(answer.length < 2000);
    assert.match(answer, /\n```\n.*\n *\^+\n```$/);
  }
  assert.ok((await bot.reply('!roll 1d6 \ud800')).includes('```\n1d6 ?\n    ^\n```'));
  // the deadline answers too: no time left at all
  const was = bot.alea.limit('deadline', 0);
  try {
    const late = await bot.reply('!dist 2d1000', 'eve');
    assert.ok(late.startsWith('@eve I could not do that: timed out after 0 ms'), late);
  } finally {
    bot.alea.limit('deadline', was);
  }
});

test('the terminal loop takes any bytes', () => {
  const out = spawnSync(process.execPath, [path],
    { input: Buffer.from('!roll 1d6 \xff\n!roll 1d1\n', 'latin1'), encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const lines = out.stdout.trim().split('\n');
  assert.equal(lines[0], '@player I could not do that: the message is not UTF-8 text');
  assert.equal(lines.at(-1), '@player rolled 1d1 [1] = `1`');
});
