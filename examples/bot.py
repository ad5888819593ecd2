#!/usr/bin/env python3
"""A Discord-style dice bot's handler, without the network: a function from
a message's text to the reply's text, for a chat full of strangers.

    !roll 4d6kh3          -> @player rolled 4d6kh3 [6, 5, 3, ~~1~~] = `14`
    !roll 2d6+3 fire dmg  -> @player rolled 2d6 [4, 1] + 3 = `8` # fire dmg
    !roll 1d20+5 adv      -> advantage: (1d20 +1d [17, ~~4~~]) + 5 = `22`
    !roll 4d6kh3 x6       -> "to roll it 6 times, write 6 x 4d6kh3"
    !roll 1d20 [str] + 4  -> labels and comments (# ..., // ...) as typed
    !dist 2d6 +1 DICE     -> the chances of each total, in a code block
    !roll 999999d6        -> a polite refusal that says which limit

What it shows a bot needs: limits tighter than the library's defaults (a chat
message needs no more), a deadline per request, errors turned into replies
with a caret under the problem, and never an exception that would take the
bot down. Whatever a stranger sends (a number past 64 bits, a lone surrogate
that a JSON "\\ud800" decodes to, control bytes) is an alea.AleaError,
answered as any bad expression. Run it to try messages on the terminal
(venv/bin/python examples/bot.py, with the package pip installed in venv).
"""
import os
import sys

try:
    import alea  # the package pip installed, with its library (python/README.md)
except ImportError:  # else the repository's python/, with ALEA_LIBRARY or an installed alea
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python'))
    import alea

# A context per bot (not thread-safe: one per thread or worker). Limits for a
# chat: short expressions, few dice, small tables, 50 ms at most.
CTX = alea.Context(limits={'source': 200, 'dice': 1000, 'support': 2000, 'work': 5_000_000},
                   timeout=0.05)
MAX_REPLY = 1900  # a chat message's size, with room for the code block


def table(d):
    rows = [f'{v:>6} {p * 100:6.2f}%  {"#" * round(p * 40 / max(d.outcomes.values()))}'
            for v, p in d.outcomes.items()]
    text = '\n'.join(rows) + f'\nmean {d.mean:.2f}  sd {d.sd:.2f}'
    if len(text) > MAX_REPLY:
        text = f'{len(d.outcomes)} outcomes, from {d.min} to {d.max}: mean {d.mean:.2f}, ' \
               f'sd {d.sd:.2f} (too many to list here)'
    return text


def answer(command, expr, user):
    if command == '!roll':
        r = CTX.roll(expr)
        out = f'@{user} rolled {r.markdown}'  # chat Markdown, its markup escaped
        return out if len(out) <= MAX_REPLY else f'@{user} rolled `{r.total}`'
    return f'```\n{expr}\n{table(CTX.dist(expr))}\n```'


def reply(message, user='player'):
    """The bot's answer to one message, or None when it is not for the bot."""
    text = message.strip()
    if not text.startswith(('!roll', '!dist', '!help')):
        return None
    command, _, expr = text.partition(' ')
    expr = expr.strip()
    if command not in ('!roll', '!dist', '!help'):
        return None
    if command == '!help' or not expr:
        return ('`!roll EXPR` rolls dice (4d6kh3, d20 +1d, 2d6 -1 DICE...), '
                '`!dist EXPR` gives the odds of each total.')
    # Words after the roll are the library's to read, as every host reads
    # them: advantage words, a repeat refused with its spelling, a
    # description (docs/language.md, "Words after a roll").
    try:
        return answer(command, expr, user)
    except alea.AleaError as e:
        return f'@{user} I could not do that: {e.message}\n```\n{e.caret()}\n```'
    except MemoryError:
        return f'@{user} I am out of memory, try something smaller.'


if __name__ == '__main__':
    # A byte that is not UTF-8 reaches reply() as a lone surrogate, which
    # alea refuses at its position, instead of stopping the loop here.
    sys.stdin.reconfigure(errors='surrogateescape')
    for line in sys.stdin:
        said = reply(line)
        if said:
            print(said)
