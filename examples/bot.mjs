#!/usr/bin/env node
// A Discord-style dice bot's handler in JavaScript, without the network: a
// function from a message's text to the reply's text, for a chat full of
// strangers (examples/bot.py does the same in Python).
//
//   !roll 4d6kh3          -> @player rolled 4d6kh3 [6, 5, 3, ~~1~~] = `14`
//   !roll 2d6+3 fire dmg  -> @player rolled 2d6 [4, 1] + 3 = `8` # fire dmg
//   !roll 1d20+5 adv      -> advantage: (1d20 +1d [17, ~~4~~]) + 5 = `22`
//   !roll 4d6kh3 x6       -> "to roll it 6 times, write 6 x 4d6kh3"
//   !roll 1d20 [str] + 4  -> labels and comments (# ..., // ...) as typed
//   !dist 2d6 +1 DICE     -> the chances of each total, in a code block
//   !roll 999999d6        -> a polite refusal that says which limit
//
// What it shows a bot needs: limits tighter than the defaults (a chat
// message needs no more), a deadline per call, errors turned into replies
// with a caret under the problem, and never an exception that would take
// the bot down: whatever a stranger sends (a number past 64 bits, a lone
// surrogate that JSON's "\ud800" decodes to, control bytes) is an AleaError,
// answered as any bad expression. Run it to try messages on the terminal.
//
// In a bot: import { reply } from './bot.mjs'; then, for each message,
// const text = await reply(message.content, message.author.username).
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { load, AleaError } from '../js/index.mjs'; // 'alea-dice' once installed

// An instance per bot (one thread). Limits for a chat: short expressions,
// one roll a message, 50 ms at most, and the library's own lowered as
// examples/bot.py lowers them (1000 dice, 2000 outcomes, less work).
const LIMITS = { source: 200, rolls: 1, deadline: 50, dice: 1000, support: 2000, work: 5_000_000 };
export let alea = await load({ limits: LIMITS });
const MAX_REPLY = 1900; // a chat message's size, with room for the code block

function table(d) {
  const top = Math.max(...d.outcomes.map(([, p]) => p));
  const rows = d.outcomes.map(([v, p]) => `${String(v).padStart(6)} ${(p * 100).toFixed(2).padStart(6)}%  ${
    '#'.repeat(Math.round((p * 40) / top))}`);
  const text = `${rows.join('\n')}\nmean ${d.mean.toFixed(2)}  sd ${d.sd.toFixed(2)}`;
  if (text.length <= MAX_REPLY) return text;
  return `${d.outcomes.length} outcomes, from ${d.min} to ${d.max}: mean ${d.mean.toFixed(2)}, `
    + `sd ${d.sd.toFixed(2)} (too many to list here)`;
}

function answer(command, expr, user) {
  if (command === '!roll') {
    const r = alea.roll(expr);
    const out = `@${user} rolled ${r.markdown}`; // chat Markdown, its markup escaped
    return out.length <= MAX_REPLY ? out : `@${user} rolled \`${r.total}\``;
  }
  return `\`\`\`\n${expr}\n${table(alea.dist(expr))}\n\`\`\``;
}

const HELP = '`!roll EXPR` rolls dice (4d6kh3, d20 +1d, 2d6 -1 DICE...), '
  + '`!dist EXPR` gives the odds of each total.';

/** The bot's answer to one message, or null when it is not for the bot. */
export async function reply(message, user = 'player') {
  const text = String(message).trim();
  if (!/^!(roll|dist|help)/.test(text)) return null;
  const space = text.search(/\s/);
  const command = space < 0 ? text : text.slice(0, space);
  const expr = space < 0 ? '' : text.slice(space).trim();
  if (!['!roll', '!dist', '!help'].includes(command)) return null;
  if (command === '!help' || !expr) return HELP;
  if (alea.closed) alea = await load({ limits: LIMITS }); // after a trap: a fresh module
  // Words after the roll are the library's to read, as every host reads
  // them: advantage words, a repeat refused with its spelling, a
  // description (docs/language.md, "Words after a roll").
  try {
    return answer(command, expr, user);
  } catch (e) {
    if (e instanceof AleaError) {
      return `@${user} I could not do that: ${e.message}\n\`\`\`\n${e.caret()}\n\`\`\``;
    }
    return `@${user} something went wrong on my side, try something smaller.`;
  }
}

// The terminal: a message a line. A line that is not UTF-8 is answered too.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdin.setEncoding('latin1'); // bytes as they came, decoded below
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    let said;
    try {
      said = await reply(utf8.decode(Buffer.from(line, 'latin1')));
    } catch {
      said = '@player I could not do that: the message is not UTF-8 text';
    }
    if (said) console.log(said);
  }
}
