#!/usr/bin/env python3
"""table_test.py ALEA -- alea table: every cell is what alea dist prints for
the expression at the cell's values (in doubles, and in fractions with
--exact), the formats, the errors, and the limits of cells and work at N
and N + 1. Prints 'N passed, N failed'."""
import json
import sys
from fractions import Fraction

from helpers import check, finish, runner

ALEA = sys.argv[1]
run = runner(ALEA)


def num(x):
    return Fraction(x) if isinstance(x, str) else x


def stat_of(d, stat):
    """The statistic from alea dist --json, as table computes it."""
    outs = [(v, num(p)) for v, p in d['outcomes']]
    if stat == 'mean':
        return num(d['mean'])
    if stat.startswith('p>='):
        n = int(stat[3:])
        return sum((p for v, p in outs if v >= n), start=0 * outs[0][1])
    if stat.startswith('p<='):
        n = int(stat[3:])
        return sum((p for v, p in outs if v <= n), start=0 * outs[0][1])
    if stat.startswith('p='):
        n = int(stat[2:])
        return sum((p for v, p in outs if v == n), start=0 * outs[0][1])
    return d['flags'][stat]


def same(a, b, exact):
    if exact:
        return num(a) == num(b)
    return abs(a - b) <= 1e-12 * max(1, abs(b))


def cells_match(expr, sweeps, stats, text_at, exact):
    """Runs the table as JSON and each cell as dist --json."""
    extra = ['--exact'] if exact else []
    args = [expr, *sweeps] + [a for s in stats for a in ('--stat', s)] + ['--json'] + extra
    rc, out, err = run('table', *args)
    if rc != 0:
        check(f'table {args}', False, err)
        return
    t = json.loads(out)
    vals = t['values']
    bad = []
    for si, s in enumerate(t['stats']):
        for r, a in enumerate(vals[0]):
            for c, b in enumerate(vals[1] if len(vals) > 1 else [None]):
                got = s['cells'][r][c] if len(vals) > 1 else s['cells'][r]
                rc, dout, derr = run('dist', '--json', *extra, text_at(a, b))
                want = stat_of(json.loads(dout), stats[si])
                if not same(got, want, exact and stats[si] != 'critical failure'):
                    bad.append((stats[si], a, b, got, want))
    check(f'table {expr} {sweeps} {stats} exact={exact}: cells are dist', not bad, bad[:3])


# fractions where the build has them (GMP)
HAVE_EXACT = run('dist', '--exact', 'd2')[0] == 0

for exact in (False, True) if HAVE_EXACT else (False,):
    cells_match('d20 + m >= dc', ['m=0..10', 'dc=10..20'], ['mean'],
                lambda m, dc: f'let m = {m}, dc = {dc} in d20 + m >= dc', exact)
    cells_match('dd(m, d, best)', ['m=0..18', 'd=10..22'], ['p>=2'],
                lambda m, d: f'dd({m}, {d}, best)', exact)
    # in fractions the whole ladder passes the one work budget of the table
    cells_match('event(tier(d4, +n))', ['n=0..10' if exact else 'n=0..22'],
                ['mean', 'critical failure'],
                lambda n, _: f'event(tier(d4, +{n}))', exact)
    cells_match('2d6 +n DICE', ['n=-3..3'], ['p>=7'],
                lambda n, _: f'2d6 {"+" if n >= 0 else "-"}{abs(n)} DICE', exact)
    cells_match('3d6 - n', ['n=-2,0,5'], ['p<=9', 'p=10'],
                lambda n, _: f'let n = {n} in 3d6 - n', exact)

# ranges with a step, and lists of ranges
check('steps', run('table', 'd6 + n', 'n=0..10..5,-1', '--csv')[1] ==
      'n,mean\n0,3.5\n5,8.5\n10,13.5\n-1,2.5\n')
check('a step to the end of int64', run('table', 'd6 * 0 + n', 'n=9223372036854775800..'
                                        '9223372036854775807..4', '--stat', 'median', '--csv')[1] ==
      'n,median\n9223372036854775800,9223372036854775800\n'
      '9223372036854775804,9223372036854775804\n')

# the text table, percentages where a probability (a mean of 0 and 1 too)
check('text', run('table', 'd20 + m >= dc', 'm=0..1', 'dc=10,15')[1] ==
      'mean of d20 + m >= dc\n'
      'm \\ dc      10      15\n'
      '     0  55.00%  30.00%\n'
      '     1  60.00%  35.00%\n')
check('csv', run('table', 'd6 + n', 'n=1..2', '--stat', 'mean', '--stat', 'p>=6',
                 '--csv', *(['--exact'] if HAVE_EXACT else []))[1] ==
      ('n,mean,p>=6\n1,9/2,1/3\n2,11/2,1/2\n' if HAVE_EXACT else
       'n,mean,p>=6\n1,4.5,0.3333333333333333\n2,5.5,0.5\n'))
check('markdown', run('table', 'd6 + n', 'n=1..2', '--format', 'markdown')[1] ==
      '| n | mean |\n|---|---:|\n| 1 | 4.50 |\n| 2 | 5.50 |\n')
check('percentile, median, sd', run('table', '3d6 + n', 'n=0,1', '--stat', 'p90', '--stat',
                                     'median', '--stat', 'sd', '--csv')[1] ==
      'n,p90,median,sd\n0,14,10,2.958039891549808\n1,15,11,2.958039891549808\n')

# errors: each names the problem; usage errors exit 2, evaluation errors 1
for args, want_rc, want in [
    (['d20 + n', 'n=5..3'], 2, "the range '5..3' in 'n=5..3' ends before it starts"),
    (['d20 + n', 'n=1..x'], 2, "bad range '1..x'"),
    (['d20 + n', 'n=1..5..0'], 2, "bad range '1..5..0'"),
    (['d20 + n', 'n='], 2, "bad value ''"),
    (['d20 + n', '=1..3'], 2, "is not NAME=A..B"),
    (['d20 + n', 'n=1', 'm=1', 'k=1'], 2, 'at most two names'),
    (['d20 + n'], 2, 'at least one NAME=A..B'),
    (['d20 + n', 'n=1..2', 'n=3'], 2, "'n' is swept twice"),
    (['d20 + b', 'n=1..2'], 1, "unknown name 'b' at byte 6 (in scope: n)"),
    (['d20 + n', 'n=1..2', 'm=1'], 2, "'m' is swept but the expression never uses it"),
    (['dd(m, 10)', 'm=1', 'x=1'], 2, "'x' is swept but the expression never uses it"),
    (['d20 + n', 'n=1', '--stat', 'p>=x'], 2, "--stat 'p>=x': a whole number"),
    (['d20 + n', 'n=1', '--stat', 'p101'], 2, 'a percentile from p0 to p100'),
    (['d20 + n', 'n=1', '--stat', 'crit'], 2, 'nor a named probability the expression '
                                              'reports (it reports none)'),
    (['event(tier(d4, +n))', 'n=1', '--stat', 'crit'], 2, "reports ('critical failure')"),
    (['d20 / n', 'n=0..1'], 1, 'at n=0: '),
    (['d20 + ' + 'a' * 25, 'a' * 25 + '=1'], 2, 'is longer than 24 characters'),
    (['d20 + n', 'n=9223372036854775807'], 1, 'integer overflow'),
    (['dd(n, 10)', 'n=-9223372036854775808'], 1, 'number too large at byte 5'),
    (['d20 + n', 'n=0..99999999999999999999'], 2, "bad range '0..99999999999999999999'"),
    (['d20 + n', 'n=0..9223372036854775807'], 2, "more than 10000 values"),
]:
    rc, out, err = run('table', *args)
    check(f'error {args}', rc == want_rc and want in err and not out, f'{rc} {err!r}')

# cells: at the limit and one past it, by default and with --cells
rc, _, _ = run('table', 'd4 + n + m', 'n=1..100', 'm=1..100')
check('10000 cells by default', rc == 0)
rc, _, err = run('table', 'd4 + n + m', 'n=1..100', 'm=0..100')
check('10100 cells refused', rc == 2 and 'more than the cells limit (10000)' in err, err)
rc, _, _ = run('table', 'd4 + n + m', 'n=1..3', 'm=1..4', '--cells', '12')
check('--cells 12: 12 cells', rc == 0)
rc, _, err = run('table', 'd4 + n + m', 'n=1..3', 'm=0..4', '--cells', '12')
check('--cells 12: 15 refused', rc == 2 and '3 x 5 = 15 cells' in err, err)


# work: the cells share one budget; the least that passes, and one less
def passes(expr, sweeps, work):
    return run('table', expr, *sweeps, '--max-work', str(work))[0] == 0


def least(ok, hi=1 << 24):
    lo = 0
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


one = least(lambda w: run('dist', 'let n = 1 in 10d6 + n', '--max-work', str(w))[0] == 0)
table = least(lambda w: passes('10d6 + n', ['n=1..4'], w))
rc, _, err = run('table', '10d6 + n', 'n=1..4', '--max-work', str(table - 1))
# the cells share one budget; 10d6 reads no name: computed once for the four
check('work budget shared by the cells', one < table < 2 * one and rc == 1 and
      'the cells share one work budget' in err, f'one cell {one}, table {table}: {err}')

finish()
