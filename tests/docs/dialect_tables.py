#!/usr/bin/env python3
"""Checks docs/dialects.md's tables of spellings against the tool.

Every dialect the tool has (the list its --dialect error gives) other than
alea's own must have a table in docs/dialects.md whose second column is
headed with the tool's name and the dialect in backticks ("Roll20
(`roll20`)"). Each row of such a table starts with spellings in backticks;
its last column says what alea's own dialect does with every one of them,
and is checked by running it:

  hint   it is read, with a hint that names the dialect (--dialect NAME)
  error  it is refused
  same   it is read, with no hint naming the dialect, and rolls the same
         as in the dialect (the same breakdown from the same seed)
  refused there
         it is read, with no hint naming the dialect, which refuses it (a
         meaning alea does not have yet: no reading to name)

Prints 'N passed, N failed'; --fix writes the column as the tool behaves.

  dialect_tables.py [--fix] ALEA DIALECTS.md
"""
import re
import subprocess
import sys

args = sys.argv[1:]
fix = bool(args) and args[0] == '--fix'
if fix:
    args = args[1:]
if len(args) != 2:
    sys.exit(__doc__)
alea, path = args
passed = failed = 0


def run(*argv):
    r = subprocess.run([alea, *argv], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


# a hint may name the tool rather than its dialect ("Roll20 reads words after
# a roll as its description"), where the dialect reads the text as alea does
TOOLS = {'roll20': 'Roll20', 'foundry': 'Foundry VTT', 'rpgdr': 'rpg-dice-roller',
         'd20': "Avrae's d20"}


def says(spelling, name):
    """What alea's own dialect does with spelling, for dialect name."""
    rc, out, err = run('roll', '--seed', '1', '--', spelling)
    hints = [l for l in err.splitlines() if l.startswith('alea: hint: ')]
    named = any(re.search(r'--dialect [^)]*\b%s\b' % re.escape(name), h) or
                TOOLS.get(name, '\0') in h for h in hints)
    if rc != 0 and not out:
        return 'error'
    if named:
        return 'hint'
    rc2, out2, _ = run('roll', '--dialect', name, '--seed', '1', '--', spelling)
    if rc == 0 and rc2 != 0 and not out2:
        return 'refused there'
    return 'same' if rc == rc2 == 0 and out == out2 else 'differs, with no hint'


_, _, err = run('roll', '--dialect', '?', '1')
m = re.search(r'one of ([a-z0-9, ]+)', err)
names = [n for n in m.group(1).split(', ') if n != 'alea'] if m else []
if not names:
    sys.exit(f'no list of dialects in: {err}')

lines = open(path, encoding='utf-8').read().split('\n')
seen = set()
name = None
for i, line in enumerate(lines):
    cells = [c.strip() for c in line.strip().strip('|').split('|')] if line.startswith('|') else []
    if len(cells) >= 4 and cells[0] == 'spelling':
        h = re.search(r'\(`([a-z0-9]+)`\)', cells[1])
        name = h.group(1) if h else None
        if name not in names:
            print(f'{path}:{i + 1}: table for an unknown dialect: {line}')
            failed += 1
            name = None
        seen.add(name)
        continue
    if not cells:
        name = None
        continue
    if name is None or set(cells[0]) <= set('- '):
        continue
    spellings = re.findall(r'`([^`]+)`', cells[0])
    got = sorted({says(s, name) for s in spellings})
    if fix and len(got) == 1:
        cells[-1] = got[0]
        lines[i] = '| ' + ' | '.join(cells) + ' |'
    elif got == [cells[-1]]:
        passed += 1
    else:
        print(f'{path}:{i + 1}: {", ".join(spellings)}: alea\'s dialect gives '
              f'{" and ".join(got)}, the table says {cells[-1]!r}')
        failed += 1
for n in names:
    if n not in seen:
        print(f'{path}: no table of spellings for the dialect {n}')
        failed += 1
if fix:
    open(path, 'w', encoding='utf-8').write('\n'.join(lines))
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
