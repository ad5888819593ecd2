#!/usr/bin/env python3
"""svg_test.py ALEA -- --svg FILE of dist, compare and table: each picture
parses as XML, is an image labelled by its title and desc, carries the
numbers that dist --json and table --json print (data-y, and the desc's
rounded text), escapes the expression, leaves the negligible tails out;
the output limit at N and N + 1, '-' for standard output, and the errors.
Prints 'N passed, N failed'."""
import json
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

from helpers import check, finish, runner

ALEA = sys.argv[1]
NS = '{http://www.w3.org/2000/svg}'
tmp = tempfile.mkdtemp()
run = runner(ALEA)


def picture(cmd, *args):
    """Runs alea CMD ARGS --svg FILE; returns (rc, stdout, stderr, root or None)."""
    path = os.path.join(tmp, 'chart.svg')
    if os.path.exists(path):
        os.remove(path)
    rc, out, err = run(cmd, *args, '--svg', path)
    root = None
    if rc == 0:
        root = ET.parse(path).getroot()  # raises when not well-formed
    return rc, out, err, root


def labelled(name, root):
    """An image named by its title and described by its desc."""
    title, desc = root.find(NS + 'title'), root.find(NS + 'desc')
    check(f'{name}: role img', root.get('role') == 'img', root.attrib)
    check(f'{name}: labelled', root.get('aria-labelledby') == 'alea-title alea-desc'
          and title is not None and title.get('id') == 'alea-title'
          and desc is not None and desc.get('id') == 'alea-desc', root.attrib)
    return title.text if title is not None else '', desc.text if desc is not None else ''


def points(root):
    """[(label, [(value, y)])] of each series, from the data-* attributes."""
    out = []
    for g in root.iter(NS + 'g'):
        if g.get('class') != 'series':
            continue
        pts = [(int(e.get('data-value')), float(e.get('data-y')))
               for e in g if e.get('data-value') is not None]
        out.append((g.get('data-label'), pts))
    return out


def shown(outcomes):
    """The outcomes dist's table shows: without the runs below 0.005% at either end."""
    a, b = 0, len(outcomes)
    while a < b and outcomes[a][1] < 0.00005:
        a += 1
    if a == b:
        return outcomes
    while b > a and outcomes[b - 1][1] < 0.00005:
        b -= 1
    return outcomes[a:b]


# ---- dist: bars, the numbers of dist --json ----
for expr in ['3d6', '4d6kh3', '10d10!', '2d20kh1 - 5', 'dd(3, 14, best)']:
    rc, out, err, root = picture('dist', expr)
    check(f'dist {expr}: ok', rc == 0 and root is not None, err)
    if root is None:
        continue
    check(f'dist {expr}: the text too', out.startswith(expr), out[:80])
    title, desc = labelled(f'dist {expr}', root)
    check(f'dist {expr}: title', title == f'Distribution of {expr}', title)
    want = shown(json.loads(run('dist', '--json', expr)[1])['outcomes'])
    got = points(root)
    check(f'dist {expr}: one series', len(got) == 1 and got[0][0] == expr, got[:1])
    check(f'dist {expr}: every number', got and got[0][1] == [(v, p) for v, p in want],
          (got[0][1][:3] if got else None, want[:3]))
    # the desc says each drawn number in 4 significant digits
    said = re.findall(r'(-?\d+) ([0-9.e+-]+)%', desc)
    if expr.startswith('dd'):
        said = re.findall(r'(?:critical )?(?:success|failure) ([0-9.e+-]+)%', desc)
        said = [(v, s) for (v, _), s in zip(want, said)]
    check(f'dist {expr}: desc numbers', len(said) == len(want) and all(
        abs(float(s) - p * 100) <= 0.0005 * p * 100 + 1e-12 for (_, p), (_, s) in zip(want, said)),
        (said[:3], want[:3]))
    hidden = len(json.loads(run('dist', '--json', expr)[1])['outcomes']) - len(want)
    check(f'dist {expr}: hidden tails said', (hidden == 0) == ('not drawn' not in desc), desc[-80:])

# 10d10!: 1,000s of outcomes, about a hundred bars
rc, out, err, root = picture('dist', '10d10!')
check('10d10!: tails hidden', root is not None and len(points(root)[0][1]) < 150)

# an estimate says so in its title
rc, out, err, root = picture('dist', '3d6', '--sample', '1000', '--seed', '1')
check('estimate: titled', root is not None and
      labelled('estimate', root)[0] == 'Distribution of 3d6 (estimate from 1000 rolls)', err)

# ---- the expression's text escaped: <, & and " ----
expr = '(d6 < 3) + 1d4 [a&b "<c>"]'
rc, out, err, root = picture('dist', expr)
check('escaped: parses', root is not None, err)
if root is not None:
    title, desc = labelled('escaped', root)
    check('escaped: title reads back', title == f'Distribution of {expr}', title)
    check('escaped: legend label', points(root)[0][0] == expr)

# ---- compare: a line per expression, named columns ----
rc, out, err, root = picture('compare', '3d6', 'best=4d6kh3', '2d10')
check('compare: ok', root is not None, err)
if root is not None:
    title, desc = labelled('compare', root)
    got = points(root)
    check('compare: labels', [g[0] for g in got] == ['3d6', 'best', '2d10'], got)
    check('compare: title', title == '3d6, best and 2d10', title)
    check('compare: lines', len(list(root.iter(NS + 'polyline'))) == 3)
    for (label, pts), e in zip(got, ['3d6', '4d6kh3', '2d10']):
        want = shown(json.loads(run('dist', '--json', e)[1])['outcomes'])
        check(f'compare {e}: numbers', pts == [(v, p) for v, p in want])
    # black-and-white: each line its own dash
    dashes = [p.get('stroke-dasharray') for p in root.iter(NS + 'polyline')]
    check('compare: dashes differ', len(set(dashes)) == 3, dashes)

# ---- table: a heat map with two names, lines with one ----
rc, out, err, root = picture('table', 'd20 + m >= dc', 'm=0..3', 'dc=10..12')
check('table heat map: ok', root is not None, err)
if root is not None:
    title, desc = labelled('table heat map', root)
    tj = json.loads(run('table', '--json', 'd20 + m >= dc', 'm=0..3', 'dc=10..12')[1])
    cells = {(int(r.get('data-row')), int(r.get('data-col'))): float(r.get('data-y'))
             for r in root.iter(NS + 'rect') if r.get('data-row') is not None}
    want = {(m, dc): tj['stats'][0]['cells'][i][j]
            for i, m in enumerate(tj['values'][0]) for j, dc in enumerate(tj['values'][1])}
    check('table heat map: cells', cells == want, (cells, want))
    check('table heat map: desc', 'm 0: dc 10 55%, dc 11 50%, dc 12 45%.' in desc, desc)
    texts = [t.text for t in root.iter(NS + 'text')]
    check('table heat map: numbers printed', '55.0' in texts and '65.0' in texts, texts)
rc, out, err, root = picture('table', 'd6 + n', 'n=0..4', '--stat', 'mean', '--stat', 'p>=6')
check('table lines: ok', root is not None, err)
if root is not None:
    got = points(root)
    check('table lines: a line per stat', [g[0] for g in got] == ['mean', 'p>=6'], got)
    check('table lines: means', got[0][1] == [(n, 3.5 + n) for n in range(5)], got[0])

rc, out, err = run('table', 'd20 + m >= dc', 'm=0..3', 'dc=10..12', '--stat', 'mean',
                   '--stat', 'sd', '--svg', os.path.join(tmp, 'x.svg'))
check('table: one heat map', rc == 2 and 'give one --stat' in err, err)

# ---- '-': the picture on standard output, in place of the text ----
rc, out, err = run('dist', '3d6', '--svg', '-')
check('dist --svg -', rc == 0 and out.startswith('<?xml') and ET.fromstring(out) is not None)
rc, out, err = run('table', 'd6 + n', 'n=0..2', '--svg', '-')
check('table --svg -', rc == 0 and out.startswith('<?xml'), out[:40])

# ---- the output limit at N and N + 1 ----
n = len(run('dist', '3d6', '--svg', '-')[1].encode())
rc, out, err = run('dist', '3d6', '--svg', '-', '--max-output', str(n))
check('limit N: written', rc == 0 and len(out.encode()) == n, err)
rc, out, err = run('dist', '3d6', '--svg', '-', '--max-output', str(n - 1))
check('limit N - 1: refused', rc != 0 and out == '' and
      f'too much output: the SVG passes {n - 1} bytes (output limit is {n - 1})' in err, err)

# ---- errors ----
rc, out, err = run('dist', '3d6', '--svg', os.path.join(tmp, 'no', 'such', 'dir.svg'))
check('unwritable file', rc == 1 and "--svg: cannot write" in err, err)
rc, out, err = run('dist', '--svg', os.path.join(tmp, 'x.svg'), stdin='3d6\n')
check('stdin refused', rc == 2 and 'give it as an argument' in err, err)
rc, out, err = run('roll', '3d6', '--svg', 'x.svg')
check('roll takes no --svg', rc == 2, err)

finish()
