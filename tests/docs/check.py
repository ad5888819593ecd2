#!/usr/bin/env python3
"""Checks the examples in the docs against the real tool.

Runs every '$ alea ...' line of the ```console blocks in the given markdown
files, with the built alea first on PATH, and compares its output (stdout
and stderr) with the lines shown under it: a line '...' stands for any number
of lines, and '...' within a line for any text (README.md elides long
tables). The README's 'build/alea' is the alea under test. Prints
'N passed, N failed'.

  check.py [--fix] BIN_DIR FILE.md...

--fix rewrites the shown output with what the tool printed: for after a
deliberate change, to be read in the diff before committing.
"""
import os
import re
import subprocess
import sys

args = sys.argv[1:]
fix = bool(args) and args[0] == '--fix'
if fix:
    args = args[1:]
if len(args) < 2:
    sys.exit(__doc__)
bin_dir, paths = os.path.abspath(args[0]), args[1:]
env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ['PATH'], NO_COLOR='1')
passed = failed = 0


def line_matches(got, shown):
    """A shown line matches itself; '...' inside it stands for any text."""
    if '...' not in shown:
        return got == shown
    return re.fullmatch('.*'.join(map(re.escape, shown.split('...'))), got) is not None


def matches(got, shown):
    """Whole outputs: a shown line that is only '...' (indented or not)
    stands for any number of lines, as the docs elide long tables."""
    if not shown:
        return not got
    if shown[0].strip() == '...':
        return any(matches(got[k:], shown[1:]) for k in range(len(got) + 1))
    return bool(got) and line_matches(got[0], shown[0]) and matches(got[1:], shown[1:])


for path in paths:
    lines = open(path, encoding='utf-8').read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        out.append(lines[i])
        if not lines[i].startswith('```console'):
            i += 1
            continue
        i += 1
        while i < len(lines) and not lines[i].startswith('```'):
            line = lines[i]
            if not line.startswith('$ '):
                out.append(line)
                i += 1
                continue
            cmd, ln = line[2:], i + 1
            out.append(line)
            i += 1
            shown = []
            while i < len(lines) and not lines[i].startswith('```') and not lines[i].startswith('$ '):
                shown.append(lines[i])
                i += 1
            # README.md runs the tool as build/alea: the alea under test instead
            run_cmd = re.sub(r'(^|[\s|;&(])build/alea\b', r'\1alea', cmd)
            r = subprocess.run(['bash', '-c', run_cmd + ' 2>&1'], capture_output=True, text=True,
                               env=env, cwd=os.path.dirname(os.path.abspath(path)))
            got = r.stdout.rstrip('\n').split('\n') if r.stdout else []
            if matches([x.rstrip() for x in got], [x.rstrip() for x in shown]):
                passed += 1
                out.extend(shown)
            else:
                failed += 1
                print(f'--- {path}:{ln}: {cmd}')
                print('shown:\n' + '\n'.join(shown) + '\ngot:\n' + '\n'.join(got))
                out.extend(got if fix else shown)
    if fix:
        open(path, 'w', encoding='utf-8').write('\n'.join(out))
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed and not fix else 0)
