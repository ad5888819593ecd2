"""The Python module against the command line and the library's promises.

Run with the library named: ALEA_LIBRARY=build/libalea.so.0 ALEA_CLI=build/alea
python3 -m unittest discover -s python/tests
"""
import ctypes
import importlib.util
import json
import os
import re
import subprocess
import sys
import unittest
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
import alea  # noqa: E402

CLI = os.environ.get('ALEA_CLI', os.path.join(HERE, '..', '..', 'build', 'alea'))


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


class RollTest(unittest.TestCase):
    def test_seeded_rolls_are_the_cli_s(self):
        r = alea.roll('4d6kh3', seed=7)
        self.assertEqual(r.text, '4d6kh3 [5, 2 dropped, 6, 6] = 17')
        self.assertEqual(r.total, 17)
        self.assertEqual(len(r.dice[0]['dice']), 4)
        rolls = alea.roll('2d6 -1 DICE', seed=7, n=3)
        want = cli('roll', '--seed', '7', '-n', '3', '2d6 -1 DICE').stdout.splitlines()
        self.assertEqual([x.text for x in rolls], want)

    def test_luck_is_the_cli_s(self):
        # d20 rolled 17: 17/20 roll at most it, 4/20 at least it
        r = alea.roll('d20', seed=8, luck=True)
        self.assertEqual(r.total, 17)
        self.assertEqual(r.luck, alea.Luck(17 / 20, 4 / 20))
        want = json.loads(cli('roll', '--luck', '--json', '--seed', '8', 'd20').stdout)
        self.assertEqual(r.detail['luck'], want['luck'])
        # a repeat: each roll its own, as the CLI's list
        r = alea.roll('3 x 2d6', seed=8, luck=True)
        want = json.loads(cli('roll', '--luck', '--json', '--seed', '8', '3 x 2d6').stdout)
        self.assertEqual([vars(x) for x in r.luck], want['luck'])
        self.assertEqual(len(r.luck), 3)
        # the edges: a 1 on d6 is at least what every roll is
        r = alea.roll('d6', seed=9, luck=True)
        self.assertEqual((r.total, r.luck.at_least), (1, 1))
        self.assertIsNone(alea.roll('d6', seed=9).luck)
        # a refused distribution: the roll, no luck, and why
        ctx = alea.Context(limits={'support': 15})
        ctx.seed(3)
        r = ctx.roll('3d6', luck=True)
        self.assertEqual(r.text, '3d6 [5, 4, 2] = 11')
        self.assertIsNone(r.luck)
        self.assertIn('support limit is 15', r.luck_refused)
        ctx = alea.Context(limits={'support': 16})
        ctx.seed(3)
        self.assertEqual(ctx.roll('3d6', luck=True).luck, alea.Luck(135 / 216, 108 / 216))

    def test_unseeded_rolls_differ(self):
        self.assertNotEqual(alea.roll('1d1000000000').total, alea.roll('1d1000000000').total)


class FairnessTest(unittest.TestCase):
    def test_as_the_cli_judges(self):
        log = [('d20', 1 + i % 19) for i in range(1500)] + [('3d6', 10)]
        text = ''.join(f'{e} {t}\n' for e, t in log)
        want = json.loads(subprocess.run([CLI, 'fairness', '--json', '--seed', '5'], input=text,
                                         capture_output=True, text=True).stdout)
        f = alea.fairness(log, seed=5)
        self.assertEqual((f.rolls, f.seed, f.verdict, f.direction, f.p, f.alpha, f.text),
                         (want['rolls'], want['seed'], want['verdict'], want['direction'],
                          want['p'], want['alpha'], want['text']))
        self.assertEqual(f.verdict, 'not fair')
        self.assertEqual(f.direction, 'low')
        self.assertFalse(f.fair)
        self.assertEqual(len(f.tests), len(want['tests']))
        for t, w in zip(f.tests, want['tests']):
            self.assertEqual({k: v for k, v in vars(t).items() if v is not None},
                             {k: v for k, v in w.items() if v is not None})

    def test_rolls_of_the_roller_are_fair(self):
        rolls = alea.roll('4d6kh3', n=2000, seed=11) + alea.roll('2 x d20', n=500, seed=12)
        f = alea.fairness(rolls, seed=3)
        self.assertEqual(f.rolls, 3000)  # each roll of a repeat counts
        self.assertEqual(f.verdict, 'fair')
        self.assertTrue(f.fair)
        self.assertEqual([t.expression for t in f.tests], [None, None, '4d6kh3', '2 x d20'])
        self.assertEqual(f.tests[3].df, 19)

    def test_chi_square_by_hand(self):
        # d6, 60 rolls: 20 ones and 8 of each other face; (100 + 5 * 4) / 10 = 12
        log = [('d6', 1)] * 20 + [('d6', v) for v in range(2, 7) for _ in range(8)]
        chi = alea.fairness(log, seed=1).tests[2]
        self.assertEqual((chi.name, chi.expression, chi.df, chi.outcomes, chi.pooled),
                         ('chi-square', 'd6', 5, 6, ''))
        self.assertAlmostEqual(chi.statistic, 12, places=12)
        self.assertAlmostEqual(chi.p, 0.0347877805, places=9)  # GSL: gsl_cdf_chisq_Q(12, 5)

    def test_errors(self):
        with self.assertRaises(alea.AleaError) as e:
            alea.fairness([('d20', 3), ('d20', 21)])
        self.assertEqual(e.exception.message, "roll 1: 'd20' cannot total 21 (its totals run "
                                              'from 1 to 20)')
        self.assertEqual(e.exception.status, 'ALEA_ERR_DOMAIN')
        with self.assertRaises(alea.AleaError) as e:
            alea.fairness([('2d', 3)])
        self.assertEqual(e.exception.status, 'ALEA_ERR_SYNTAX')
        self.assertEqual(e.exception.caret(), '2d\n  ^')
        with self.assertRaises(TypeError):
            alea.fairness(['d20 3'])
        with self.assertRaises(TypeError):
            alea.fairness([('d20', 2.5)])
        self.assertEqual(alea.fairness([], seed=1).verdict, 'too few')
        with alea.Context(limits={'work': 100}) as ctx:
            with self.assertRaises(alea.AleaError) as e:
                ctx.fairness([('10d10', 50)])
            self.assertEqual(e.exception.status, 'ALEA_ERR_LIMIT')


class DistTest(unittest.TestCase):
    def test_the_cli_s_distribution(self):
        d = alea.dist('2d6 +1 DICE')
        import json
        want = json.loads(cli('dist', '--json', '2d6 +1 DICE').stdout)
        self.assertEqual(list(d.outcomes.items()), [tuple(o) for o in want['outcomes']])
        self.assertEqual((d.mean, d.sd, d.min, d.max), (want['mean'], want['sd'], want['min'],
                                                         want['max']))
        self.assertAlmostEqual(alea.dist('2d6').p(7), 1 / 6, places=15)
        self.assertAlmostEqual(alea.dist('1d20').at_least(15), 0.3, places=15)
        self.assertAlmostEqual(alea.dist('1d20').at_most(5), 0.25, places=15)

    def test_svg_is_the_cli_s(self):
        import xml.etree.ElementTree as ET
        self.assertEqual(alea.svg('3d6'), cli('dist', '3d6', '--svg', '-').stdout)
        got = alea.svg('2d6', ('best', '4d6kh3'))
        self.assertEqual(got, cli('compare', '2d6', 'best=4d6kh3', '--svg', '-').stdout)
        ns = '{http://www.w3.org/2000/svg}'
        root = ET.fromstring(alea.svg(('a<&">', 'd4'), 'd6').encode())
        self.assertEqual(root.find(ns + 'title').text, 'a<&"> and d6')
        ys = [float(e.get('data-y')) for e in root.iter() if e.get('data-y')]
        self.assertEqual(ys, [0.25] * 4 + [1 / 6] * 6)
        with self.assertRaises(ValueError):
            alea.svg(*[f'd{k}' for k in range(2, 19)])
        n = len(alea.svg('3d6').encode())
        with alea.Context(limits={'output': n}) as ctx:
            self.assertEqual(len(ctx.svg('3d6').encode()), n)
            ctx.limit('output', n - 1)
            with self.assertRaises(alea.AleaError) as e:
                ctx.svg('3d6')
            self.assertIn(f'the SVG passes {n - 1} bytes', e.exception.message)

    def test_labels_and_flags(self):
        self.assertEqual(alea.dist('dd(6, 14)').labels[3], 'critical success')
        self.assertIn('critical failure', alea.dist('event(3d4 + 3d6 + d18)').flags)


class ExactTest(unittest.TestCase):
    def setUp(self):
        try:
            self.ctx = alea.Context(exact=True)
        except ValueError as e:  # a library built without GMP says so
            self.assertIn('without GMP', str(e))
            self.skipTest('the library was built without exact fractions')

    def tearDown(self):
        self.ctx.close()

    def test_fractions(self):
        d = self.ctx.dist('3d6')
        self.assertTrue(d.exact)
        self.assertEqual(d.p(10), Fraction(1, 8))
        self.assertEqual(d.p(3), Fraction(1, 216))
        self.assertEqual(d.at_least(11), Fraction(1, 2))
        self.assertEqual(d.mean, Fraction(21, 2))
        self.assertEqual(d.variance, Fraction(35, 4))
        self.assertEqual(sum(d.outcomes.values()), 1)
        # keep highest: 4d6 drop the lowest, P(18) = 21/1296
        self.assertEqual(self.ctx.dist('4d6kh3').p(18), Fraction(21, 1296))
        self.assertEqual(alea.dist('dd(6, 14)', exact=True).mean, Fraction(33, 20))

    def test_explosions_add_up_with_the_tail(self):
        d = self.ctx.dist('1d6!')
        self.assertIsInstance(d.truncated, Fraction)
        self.assertGreater(d.truncated, 0)
        self.assertEqual(sum(d.outcomes.values()) + d.truncated, 1)

    def test_refusals_are_named(self):
        with self.assertRaises(alea.AleaError) as cm:
            self.ctx.dist('1000d20')
        self.assertIn('exact fractions', str(cm.exception))
        with self.assertRaises(TypeError):
            alea.Context(exact='yes')

    def test_doubles_stay_floats(self):
        d = alea.dist('3d6')
        self.assertFalse(d.exact)
        self.assertIsInstance(d.p(10), float)


class MarkdownTest(unittest.TestCase):
    def test_markdown_is_the_command_line_s(self):
        r = alea.roll('4d6kh3 + 2d6 * 2', seed=3)
        want = cli('roll', '--format', 'markdown', '--seed', '3', '4d6kh3 + 2d6 * 2').stdout
        self.assertEqual(r.markdown, want.strip())
        self.assertIn('~~', r.markdown)
        self.assertIn('\\*', r.markdown)  # the product's star, escaped
        self.assertTrue(r.markdown.endswith(f'`{r.total}`'))


class DialectTest(unittest.TestCase):
    def test_each_dialect_reads_as_its_tool(self):
        self.assertEqual(alea.DIALECTS, ('alea', 'roll20', 'foundry', 'rpgdr', 'd20'))
        # Roll20: '>3' is 3 or more; alea: 4 or more
        self.assertAlmostEqual(alea.dist('3d6>3', dialect='roll20').mean, 2.0)
        self.assertAlmostEqual(alea.dist('3d6>3').mean, 1.5)
        # d20: '/' truncates towards zero, as the CLI's d20 dialect
        r = alea.roll('-7/2', dialect='d20')
        self.assertEqual((r.total, r.text), (-3, 'trunc(-7 / 2) = -3'))
        want = cli('roll', '--dialect', 'foundry', '--seed', '4', '1d10r1').stdout.strip()
        with alea.Context(dialect='Foundry', seed=4) as ctx:
            self.assertEqual(ctx.roll('1d10r1').text, want)
        with self.assertRaises(ValueError):
            alea.Context(dialect='anydice')
        with self.assertRaises(TypeError):
            alea.dist('1d6', dialect=1)

    def test_hints(self):
        self.assertIn('--dialect roll20', alea.dist('3d6>3').hint)
        self.assertIsNone(alea.dist('3d6>3', dialect='roll20').hint)
        self.assertIn('(3d6) >= 5', alea.roll('3d6 >= 5').hint)
        self.assertIsNone(alea.roll('4d6kh3').hint)
        # a repeat written as Foundry's explosion, and words after a roll
        self.assertIn('did you mean 6 x 4d6kh3', alea.roll('4d6kh3x6').hint)
        self.assertTrue(alea.roll('1d20 adv', dialect='d20').text.startswith('2d20kh1 ['))
        self.assertTrue(alea.roll('1d20 adv').text.startswith('1d20 +1d ['))
        # the same line as the command line's
        err = cli('dist', '3d6>3').stderr.strip()
        self.assertEqual(err, 'alea: hint: ' + alea.dist('3d6>3').hint)


class ErrorTest(unittest.TestCase):
    def test_a_syntax_error_has_its_position(self):
        with self.assertRaises(alea.AleaError) as c:
            alea.roll('2d+3')
        e = c.exception
        self.assertEqual(e.status, 'ALEA_ERR_SYNTAX')
        self.assertEqual((e.start, e.end), (2, 3))
        self.assertIn("expected the number of sides after 'd'", e.message)
        self.assertEqual(e.caret(), '2d+3\n  ^')
        lines = cli('roll', '2d+3').stderr.splitlines()
        self.assertEqual([l[2:] for l in lines[1:]], e.caret().split('\n'))
        # the whole line, as the command line prints it
        self.assertEqual('alea: ' + e.line, lines[0])
        self.assertTrue(e.line.startswith('syntax error: '))

    def test_error_lines_match_the_command_line(self):
        for src in ('9223372036854775807 + 1d6', '1d6 / (1d2 - 1)', '1d6s7', '10001d6'):
            with self.assertRaises(alea.AleaError) as c:
                alea.dist(src)
            # the first line that is not a hint (another tool reads '/' otherwise)
            first = [l for l in cli('dist', src).stderr.splitlines()
                     if not l.startswith('alea: hint: ')][0]
            self.assertEqual('alea: ' + c.exception.line, first, src)
        # not text at all, so no command line can be given it
        with self.assertRaises(alea.AleaError) as c:
            alea.dist('\ud800')
        self.assertTrue(c.exception.line.startswith('syntax error: unexpected U+D800 '))

    def test_limits_and_timeout(self):
        with alea.Context(limits={'dice': 3}) as ctx:
            self.assertEqual(ctx.limit('dice'), 3)
            ctx.roll('3d6')
            with self.assertRaises(alea.AleaError) as c:
                ctx.roll('4d6')
            self.assertEqual(c.exception.status, 'ALEA_ERR_LIMIT')
            self.assertIn('dice limit is 3', c.exception.message)
        with alea.Context(limits={'work': 10**12, 'support': 10**6}, timeout=0.02) as ctx:
            with self.assertRaises(alea.AleaError) as c:
                ctx.dist('200d1000')
            self.assertEqual(c.exception.status, 'ALEA_ERR_INTERRUPTED')
            self.assertIn('timed out', c.exception.message)
        with self.assertRaises(ValueError):
            alea.Context(limits={'bogus': 1})
        self.assertEqual(alea.LIMITS[:3], ['source', 'depth', 'nodes'])

    def test_version(self):
        self.assertEqual(alea.version(), cli('--version').stdout.split()[1])


class ArgumentTest(unittest.TestCase):
    """Every argument of the wrong type is a TypeError, every one out of its
    range a ValueError, each naming the argument and what it accepts; no
    number reaches the library wrapped to fit a C type."""

    def raises(self, kind, fn, *words):
        with self.assertRaises(Exception) as c:
            fn()
        self.assertIs(type(c.exception), kind, repr(c.exception))
        for w in words:
            self.assertIn(w, str(c.exception))
        return c.exception

    def test_an_expression_that_is_not_text(self):
        # A lone surrogate (json.loads makes one of "\\ud800") cannot be
        # encoded as UTF-8: a syntax error at its byte, as any character
        # the library does not understand.
        e = self.raises(alea.AleaError, lambda: alea.roll('1d6 \ud800'),
                        'unexpected U+D800 at byte 4', 'lone surrogate')
        self.assertEqual((e.status, e.start, e.end), ('ALEA_ERR_SYNTAX', 4, 7))
        self.assertEqual(e.caret(), '1d6 ?\n    ^')
        e = self.raises(alea.AleaError, lambda: alea.dist('é + \udfff'),
                        'unexpected U+DFFF at byte 5')
        self.assertEqual(e.caret(), 'é + ?\n    ^')
        self.raises(TypeError, lambda: alea.roll(b'1d6'), 'must be a str, not bytes')
        self.raises(TypeError, lambda: alea.dist(None), 'must be a str, not NoneType')
        self.raises(TypeError, lambda: alea.roll(6), 'must be a str, not int')

    def test_a_huge_expression_is_refused_before_it_is_copied(self):
        e = self.raises(alea.AleaError, lambda: alea.roll('1' * 5000),
                        'expression too long: 5000 bytes (source limit is 4096)')
        self.assertEqual((e.status, e.start, e.end), ('ALEA_ERR_LIMIT', 4096, 5000))
        self.raises(alea.AleaError, lambda: alea.roll('é' * 4097),
                    'expression too long: 8194 bytes (source limit is 4096)')
        # at the limit in characters, past it in bytes: the library's check
        self.raises(alea.AleaError, lambda: alea.roll('é' * 4096),
                    'expression too long: 8192 bytes (source limit is 4096)')
        # the excerpt is the command line's, a window around the problem
        src = '1d6+' * 40 + 'x' + '+1' * 40
        e = self.raises(alea.AleaError, lambda: alea.roll(src), "found 'x'")
        lines = cli('roll', src).stderr.splitlines()
        self.assertEqual(e.caret().split('\n'), [l[2:] for l in lines[1:]])
        self.assertEqual(len(e.caret().split('\n')[0]), 76)
        # and it is found without walking a huge text (was seconds for this)
        e = self.raises(alea.AleaError, lambda: alea.roll('é' * 10**7), '20000000 bytes')
        self.assertEqual(e.caret(), '...' + 'é' * 70 + '...\n' + ' ' * 23 + '^' * 50)

    def test_limits(self):
        top = alea.LIMIT_MAX['dice']
        self.assertEqual(top, 100000000)
        # above the maximum: lowered to it, as the C library and the command
        # line do; never wrapped (2**70 was a dice limit of 0)
        for big in [top + 1, 2**63, 2**64, 2**70, 10**400]:
            with alea.Context(limits={'dice': big}) as ctx:
                self.assertEqual(ctx.limit('dice'), top)
                ctx.roll('1000d6')
                self.assertEqual(ctx.limit('dice', big), top)
        with alea.Context(limits={'dice': 0}) as ctx:
            self.assertEqual(ctx.limit('dice'), 0)
            self.raises(alea.AleaError, lambda: ctx.roll('1d6'), 'dice limit is 0')
        want = "limit 'dice' must be an integer of 0 or more (above its maximum, 100000000"
        self.raises(ValueError, lambda: alea.Context(limits={'dice': -1}), want, 'not -1')
        self.raises(ValueError, lambda: alea.Context(limits={'dice': -2**70}), want,
                    'not -1180591620717411303424')
        self.raises(ValueError, lambda: alea.Context(limits={'dice': -10**5000}), want,
                    'a negative integer of 16610 bits')
        self.raises(TypeError, lambda: alea.Context(limits={'dice': 1e6}), want,
                    'not float (write 1000000, not 1000000.0)')
        self.raises(TypeError, lambda: alea.Context(limits={'dice': 2.5}), want, 'not float')
        self.raises(TypeError, lambda: alea.Context(limits={'dice': True}), want, 'not bool')
        self.raises(TypeError, lambda: alea.Context(limits={'dice': '10'}), want, 'not str')
        self.raises(TypeError, lambda: alea.Context(limits={'dice': None}), want, 'not NoneType')
        names = ', '.join(alea.LIMITS)
        self.raises(ValueError, lambda: alea.Context(limits={'bogus': 1}),
                    "unknown limit 'bogus'", names)
        self.raises(TypeError, lambda: alea.Context(limits={3: 1}), 'not int', names)
        self.raises(TypeError, lambda: alea.Context(limits=[('dice', 1)]),
                    'limits must be a mapping', 'not list')
        with alea.Context() as ctx:
            self.raises(ValueError, lambda: ctx.limit('dice', -1), want)
            self.raises(ValueError, lambda: ctx.limit('nope'), "unknown limit 'nope'")
            self.assertEqual(ctx.limit('dice'), 10000)  # untouched by the refusals

    def test_every_limit_of_the_library_by_name(self):
        # The names come from alea_limit_name: a limit added to the library
        # (such as 'breakdown') is taken by name with no change here.
        for i, name in enumerate(alea.LIMITS):
            self.assertEqual(alea._limit_name(i).decode(), name)
            with alea.Context(limits={name: 5}) as ctx:
                self.assertEqual(ctx.limit(name), 5)
        self.assertIsNone(alea._limit_name(len(alea.LIMITS)))

    def test_the_output_limit(self):
        # the library's refusal, as the command line's: 3d6's JSON is 516
        # bytes, a distribution's text passes at N and is refused at N - 1
        with alea.Context(limits={'output': 516}) as ctx:
            self.assertEqual(ctx.dist('3d6').mean, 10.5)
            ctx.limit('output', 515)
            want = "too much output: the distribution's JSON passes 515 bytes (output limit is 515)"
            try:
                ctx.dist('3d6')
                self.fail('no error past the output limit')
            except alea.AleaError as e:
                self.assertEqual((e.status, e.message, e.start, e.end),
                                 ('ALEA_ERR_LIMIT', want, 0, 3))
            self.assertIn('alea: ' + want, cli('dist', '--json', '--max-output', '515', '3d6').stderr)
        with alea.Context(exact=True) as ctx:  # 500d10's fractions: 4 MB of JSON
            ctx.limit('output', 1000000)
            self.raises(alea.AleaError, lambda: ctx.dist('500d10'),
                        "the distribution's JSON passes 1000000 bytes")

    def test_seeds(self):
        for good in [0, 2**64 - 1]:
            self.assertEqual(alea.Context(seed=good).roll('1d1000000').total,
                             alea.Context(seed=good).roll('1d1000000').total)
        # 2**64 - 1 is not -1 wrapped, nor 2**64 + 7 a 7
        self.assertEqual(alea.roll('4d6kh3', seed=7).text, '4d6kh3 [5, 2 dropped, 6, 6] = 17')
        want = 'seed must be an integer from 0 to 18446744073709551615 (2**64 - 1)'
        for bad in [-1, 2**64, 2**64 + 7, -2**63]:
            self.raises(ValueError, lambda: alea.roll('1d6', seed=bad), want)
            self.raises(ValueError, lambda: alea.Context(seed=bad), want)
        self.raises(TypeError, lambda: alea.roll('1d6', seed=7.0), want,
                    'not float (write 7, not 7.0)')
        self.raises(TypeError, lambda: alea.roll('1d6', seed='7'), want, 'not str')
        self.raises(TypeError, lambda: alea.Context().seed(True), want, 'not bool')

    def test_n(self):
        self.assertEqual(len(alea.roll('1d6', n=1)), 1)
        want = 'n must be an integer from 1 to 9223372036854775807 (2**63 - 1)'
        for bad in [0, -1, 2**63, 2**70]:
            self.raises(ValueError, lambda: alea.roll('1d6', n=bad), want)
        self.raises(TypeError, lambda: alea.roll('1d6', n=3.0), want, 'not float')
        self.raises(TypeError, lambda: alea.roll('1d6', n=True), want, 'not bool')
        self.raises(TypeError, lambda: alea.roll('1d6', n='3'), want, 'not str')
        # the n breakdowns, held at once in a list, count against the memory
        # limit: n = 2**62 is refused in a moment, not after filling memory
        with alea.Context(limits={'memory': 100000}, seed=1) as ctx:
            e = self.raises(alea.AleaError, lambda: ctx.roll('100d6', n=2**62),
                            'more than the memory limit (100000 bytes)')
            self.assertEqual(e.status, 'ALEA_ERR_LIMIT')
            self.assertEqual(len(ctx.roll('100d6', n=10)), 10)

    def test_tail_and_timeout(self):
        with alea.Context(tail=1e-300) as ctx:
            ctx.dist('1d6!')
        alea.Context(tail=1e-3).close()
        tail = 'tail must be a number from 1e-300 to 1e-3'
        for bad in [float('nan'), float('inf'), -1e-6, 0, 1, 1e-301, 2e-3, 10**400]:
            self.raises(ValueError, lambda: alea.Context(tail=bad), tail)
        self.raises(TypeError, lambda: alea.Context(tail='1e-6'), tail, 'not str')
        self.raises(TypeError, lambda: alea.Context(tail=True), tail, 'not bool')
        timeout = 'timeout must be a finite number of seconds above 0 (None: no deadline)'
        for bad in [float('nan'), float('inf'), float('-inf'), -1, 0, 10**400]:
            self.raises(ValueError, lambda: alea.Context(timeout=bad), timeout)
        self.raises(ValueError, lambda: alea.Context(timeout=float('nan')), 'not nan')
        self.raises(TypeError, lambda: alea.Context(timeout='1'), timeout, 'not str')
        self.raises(TypeError, lambda: alea.Context(timeout=True), timeout, 'not bool')
        with alea.Context(timeout=1) as ctx:  # an int is a number of seconds
            ctx.roll('1d6')

    def test_distribution_values(self):
        d = alea.dist('1d6')
        # min and max are the expression's: 1d6! has no greatest value
        self.assertEqual(d.open, ())
        x = alea.dist('1d6!')
        self.assertEqual((x.min, x.open), (1, ('max',)))
        self.assertEqual(d.p(3.0), d.p(3))
        self.assertEqual(d.at_least(float('inf')), 0)
        self.assertAlmostEqual(d.at_most(float('inf')), 1, places=15)
        for f in [d.p, d.at_least, d.at_most]:
            self.raises(TypeError, lambda: f('3'), 'must be a number, not str')
            self.raises(TypeError, lambda: f(None), 'must be a number, not NoneType')
            self.raises(ValueError, lambda: f(float('nan')), 'not nan')

    def test_a_closed_context(self):
        ctx = alea.Context()
        ctx.close()
        for f in [lambda: ctx.roll('1d6'), lambda: ctx.dist('1d6'), lambda: ctx.seed(1),
                  lambda: ctx.limit('dice')]:
            self.raises(ValueError, f, 'the context is closed')
        ctx.close()  # twice: nothing


class LabelTest(unittest.TestCase):
    def test_labels_and_comment(self):
        ctx = alea.Context()
        ctx.seed(1)
        r = ctx.roll('(2d6 + 3) [fire] + 1d4 [cold] # breath')
        self.assertEqual(r.labels, [('fire', r.total - r.labels[1][1]), ('cold', r.labels[1][1])])
        self.assertEqual(r.comment, 'breath')
        plain = ctx.roll('2d6')
        self.assertEqual((plain.labels, plain.comment), ([], None))
        ctx.close()


class GroupTest(unittest.TestCase):
    def test_groups_give_each_member(self):
        ctx = alea.Context()
        ctx.seed(1)
        r = ctx.roll('{4d6 + 3, 2d8}kh1 + {1d4, 1d6}>=4')
        (keep, count) = r.groups
        self.assertEqual([m['expression'] for m in keep], ['4d6 + 3', '2d8'])
        self.assertEqual([m['dropped'] for m in keep].count(True), 1)
        kept = [m['value'] for m in keep if not m['dropped']][0]
        self.assertEqual(kept, max(m['value'] for m in keep))
        self.assertEqual([m['success'] for m in count], [m['value'] >= 4 for m in count])
        self.assertEqual(r.total, kept + sum(m['success'] for m in count))
        self.assertEqual(ctx.roll('{4d6 + 3d8}k4').groups, [])
        ctx.close()


class LetIfSumTest(unittest.TestCase):
    """Issue 28's words: let, and, or, not, if, sum."""

    def test_bound_names_their_rolls(self):
        r = alea.roll('let a = d20, b = a + 2 in if(a >= 10, b, 0)', seed=3)
        (a, b) = r.bound
        self.assertEqual((a.name, a.term, b.name, b.term), ('a', 'd20', 'b', 'a + 2'))
        self.assertEqual(b.value, a.value + 2)
        self.assertEqual(r.total, b.value if a.value >= 10 else 0)
        self.assertEqual(r.dice[0].value, a.value)  # the one d20, rolled once
        self.assertEqual(len(r.dice), 1)
        self.assertEqual(alea.roll('2d6', seed=3).bound, [])

    def test_if_and_sum_are_groups(self):
        for seed in range(1, 30):
            r = alea.roll('if(d20 >= 11, 2d6, 0) + sum(3, (d6) >= 5)', seed=seed)
            (branch, count) = r.groups
            (cond, taken) = branch
            self.assertEqual(cond.expression, 'd20 >= 11')
            self.assertEqual(branch.branch, 'then' if cond.value else 'else')
            self.assertEqual(taken.expression, '2d6' if cond.value else '0')
            self.assertEqual(branch.value, taken.value)
            self.assertEqual((branch.count, count.branch, count.count), (None, None, 3))
            self.assertEqual(len(count), 3)
            self.assertEqual(count.value, sum(m.value for m in count))
            self.assertEqual(r.total, branch.value + count.value)
        # the old groups have neither
        (keep,) = alea.roll('{4d6 + 3, 2d8}kh1', seed=1).groups
        self.assertEqual((keep.branch, keep.count), (None, None))
        self.assertEqual(keep, [keep[0], keep[1]])  # still a list of members

    def test_exact_fractions(self):
        self.assertEqual(alea.dist('let x = 3d6 in x - x', exact=True).outcomes,
                         {0: Fraction(1)})
        self.assertEqual(alea.dist('3d6 - 3d6', exact=True).p(0), Fraction(4332, 6 ** 6))
        self.assertEqual(alea.dist('d20 >= 10 and d6 >= 4', exact=True).p(1), Fraction(11, 40))
        self.assertEqual(alea.dist('not (d20 >= 10) or d6 >= 4', exact=True).p(1),
                         Fraction(29, 40))
        self.assertEqual(alea.dist('if(d20 >= 11, 2d6, 0)', exact=True).mean, Fraction(7, 2))
        crit = alea.dist('sum(8, d20 >= 18) >= 1', exact=True)
        self.assertEqual(crit.p(1), 1 - Fraction(17, 20) ** 8)
        self.assertEqual(alea.dist('sum(4, d6)', exact=True).outcomes,
                         alea.dist('4d6', exact=True).outcomes)

    def test_compare_a_name_used_twice(self):
        c = alea.compare('let a = d20 in a + a', '2d20', exact=True)
        twice = c['let a = d20 in a + a']
        self.assertEqual(twice.p(3), 0)  # a + a is even
        self.assertEqual(twice.p(40), Fraction(1, 20))
        self.assertEqual(c['2d20'].p(40), Fraction(1, 400))
        self.assertEqual(twice.mean, c['2d20'].mean)

    def test_the_cli_s_rolls(self):
        expr = 'let a = d20, b = a + 2 in if(a >= 10 and not (b > 20), b, 0) + sum(2, d4)'
        for seed in (1, 2, 3):
            want = cli('roll', '--seed', str(seed), expr).stdout.strip()
            self.assertEqual(alea.roll(expr, seed=seed).text, want)

    def test_an_unknown_name_is_an_error_at_its_place(self):
        with self.assertRaises(alea.AleaError) as e:
            alea.roll('let a = d20 in a + b')
        self.assertIn('b', str(e.exception))
        self.assertEqual(e.exception.start, 19)


class RepeatTest(unittest.TestCase):
    def test_repeat_lists_every_total(self):
        ctx = alea.Context()
        ctx.seed(1)
        r = ctx.roll('6 x 4d6kh3')
        self.assertEqual(len(r.totals), 6)
        self.assertEqual(sum(r.totals), r.total)
        lines = r.text.split('\n')
        self.assertEqual([int(x.rsplit(' = ', 1)[1]) for x in lines], r.totals)
        plain = ctx.roll('2d6')
        self.assertEqual(plain.totals, [plain.total])
        d = ctx.dist('6 x 1d4')
        self.assertEqual((d.rolls, d.outcomes), (6, ctx.dist('1d4').outcomes))
        self.assertEqual(ctx.dist('1d4').rolls, 1)
        # the distribution is one roll's
        self.assertEqual(ctx.dist('6 x 2d6').max, 12)
        ctx.close()


class BotTest(unittest.TestCase):
    def setUp(self):
        path = os.path.join(HERE, '..', '..', 'examples', 'bot.py')
        spec = importlib.util.spec_from_file_location('bot', path)
        self.bot = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.bot)

    def test_replies(self):
        b = self.bot
        self.assertIsNone(b.reply('hello there'))
        b.CTX.seed(7)
        self.assertEqual(b.reply('!roll 4d6kh3', 'ann'), '@ann rolled 4d6kh3 [5, ~~2~~, **6**, **6**] = `17`')
        self.assertIn('mean 7.00', b.reply('!dist 2d6'))
        no = b.reply('!roll 99999d6', 'bob')
        self.assertTrue(no.startswith('@bob I could not do that: too many dice'), no)
        self.assertIn('dice limit is 1000', no)
        bad = b.reply('!roll 2d+3')
        self.assertIn('```\n2d+3\n  ^\n```', bad)
        self.assertIn('too many to list', b.reply('!dist 1d1000'))
        self.assertIn('!roll EXPR', b.reply('!help'))
        self.assertIsNone(b.reply('!rolling 4d6'))

    def test_what_chat_users_type(self):
        # comments, labels and words after the roll, as typed in a chat
        b = self.bot
        b.CTX.seed(1)
        self.assertEqual(b.reply('!roll 2d6+3 fire damage', 'ann'),
                         '@ann rolled 2d6 [5, 4] + 3 = `12` # fire damage')
        self.assertEqual(b.reply('!roll 1d20 [str] + 4 // to hit', 'ann'),
                         '@ann rolled 1d20 [str: 12] + 4 = `16` # to hit')
        self.assertIn('fire damage\n', b.reply('!dist 2d6 fire damage'))
        # words that name a mechanic: the library's reading, not a comment
        self.assertEqual(b.reply('!roll 1d20+5 adv to hit', 'ann'),
                         '@ann rolled (1d20 +1d [~~8~~, 14]) + 5 = `19` # to hit')
        refused = b.reply('!roll 4d6kh3 x6', 'ann')
        self.assertIn('to roll it 6 times, write 6 x 4d6kh3', refused)
        self.assertIn('```\n4d6kh3 x6\n       ^^\n```', refused)
        # a misspelt word inside the roll is still an error, with its caret
        bad = b.reply('!roll 1d20 + str', 'ann')
        self.assertIn("unknown name 'str'", bad)
        self.assertIn('```\n1d20 + str\n       ^^^\n```', bad)
        # whatever a stranger types, a reply and never an exception
        for junk in ['!roll ' + '(' * 5000, '!roll \x00\xff', '!dist 1d6!' * 50, '!roll d{}',
                     '!dist 9223372036854775807 + 1']:
            self.assertIsInstance(b.reply(junk), str)

    def test_hostile_messages_get_error_replies(self):
        b = self.bot
        big = str(2**70)
        cases = {
            '!roll 1d6 \ud800': 'unexpected U+D800 at byte 4',  # json.loads of "\ud800"
            '!dist \udfff': 'unexpected U+DFFF at byte 0',
            '!roll 1d6 # \ud83c\udfb2': 'unexpected U+D83C at byte 6',  # a pair, unjoined
            f'!roll {big}d6': 'number too large',
            f'!roll 1d{big}': 'number too large',
            f'!dist 2d6 * {big}': 'number too large',
            '!roll ' + '(' * 5000: 'expression too long: 5000 bytes (source limit is 200)',
            '!roll ' + '\ud800' * 5000: 'expression too long: 15000 bytes',
            '!roll 1d6 \x00\x1b[2J': 'unexpected byte 0x00',
        }
        for message, why in cases.items():
            answer = b.reply(message, 'eve')
            self.assertTrue(answer.startswith('@eve I could not do that: '), answer)
            self.assertIn(why, answer)
            # a reply the chat can send: UTF-8, short, the caret in a block
            answer.encode('utf-8')
            self.assertLess(len(answer), 2000)
            self.assertRegex(answer, r'\n```\n.*\n *\^+\n```$')
        self.assertIn('```\n1d6 ?\n    ^\n```', b.reply('!roll 1d6 \ud800'))

    def test_the_terminal_loop_takes_any_bytes(self):
        # A byte that is not UTF-8 on standard input is answered, and the
        # lines after it too, even where the locale decodes it strictly.
        path = os.path.join(HERE, '..', '..', 'examples', 'bot.py')
        env = {**os.environ, 'PYTHONIOENCODING': 'utf-8:strict', 'PYTHONUTF8': '0'}
        out = subprocess.run([sys.executable, path], input=b'!roll 1d6 \xff\n!roll 1d1\n',
                             capture_output=True, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.decode().splitlines()
        self.assertIn('unexpected U+DCFF at byte 4', lines[0])
        self.assertEqual(lines[-1], '@player rolled 1d1 [1] = `1`')


class DocstringTest(unittest.TestCase):
    def test_the_module_s_examples(self):
        import doctest
        self.assertEqual(doctest.testmod(alea).failed, 0)


class TypedRollTest(unittest.TestCase):
    """Terms, dice and faces are typed objects named as the JSON's keys."""

    def check_like_json(self, obj, data):
        # every key of the JSON reads the same from the object, nested
        for key, value in data.items():
            got = obj[key]
            if isinstance(value, list) and value and isinstance(value[0], dict):
                self.assertEqual(len(got), len(value))
                for o, d in zip(got, value):
                    self.check_like_json(o, d)
            else:
                self.assertEqual(got, value, key)

    def test_every_key_of_the_cli_s_json(self):
        import json
        for seed, expr in [(1, '4d6kh3 + 2'), (4, '2d6!p'), (6, '3d10!10>=8'),
                           (1, 'best(2, 1d20)'), (1, 'dd(6, 14, always)'),
                           (3, 'event(3d4 + 3d6 + d18)'), (2, '4d6r1 + 1d(1d20)')]:
            want = json.loads(cli('roll', '--json', '--seed', str(seed), expr).stdout)
            r = alea.roll(expr, seed=seed)
            self.assertEqual(len(r.dice), len(want['dice']))
            for term, data in zip(r.dice, want['dice']):
                self.assertIsInstance(term, alea.Term)
                self.check_like_json(term, data)
                for die in term.dice:
                    self.assertIsInstance(die, alea.Die)
                    self.assertTrue(all(isinstance(f, alea.Face) for f in die.rolls))
            self.assertEqual(r.expression, expr)

    def test_fields_and_flags(self):
        r = alea.roll('2d6!p', seed=4)
        term = r.dice[0]
        self.assertEqual((term.term, term.sides, term.min, term.max, term.value),
                         ('2d6!p', 6, 1, 6, 10))
        chain = term.dice[1]
        self.assertEqual(chain.value, 8)
        self.assertEqual(chain.rolls, (alea.Face(6, exploded=True, critical=True),
                                       alea.Face(3, penetrated=True)))
        self.assertFalse(chain.dropped)  # a flag the JSON leaves out is False
        self.assertIsNone(term.label)
        self.assertEqual(repr(chain.rolls[1]), 'Face(face=3, penetrated=True)')
        dropped = alea.roll('4d6kh3', seed=7).dice[0].dice[1]
        self.assertEqual((dropped.value, dropped.dropped), (2, True))
        self.assertEqual(alea.roll('dd(6, 14)', seed=1).dice[0].label, 'success')

    def test_read_as_the_dicts_were(self):
        r = alea.roll('4d6kh3', seed=7)
        self.assertEqual(r.dice[0]['dice'][1]['value'], 2)
        self.assertTrue(r.dice[0]['dice'][1].get('dropped'))
        self.assertEqual(r.dice[0].get('nothing', 'default'), 'default')
        with self.assertRaises(KeyError):
            r.dice[0]['nothing']
        self.assertEqual(r.detail['dice'][0]['term'], '4d6kh3')

    def test_a_key_the_library_adds_later_is_kept(self):
        t = alea.Term._from_json({'term': '1d6', 'start': 0, 'end': 3, 'value': 4,
                                  'sides': 6, 'glow': 'green'})
        self.assertEqual((t['glow'], t.extra), ('green', {'glow': 'green'}))
        self.assertEqual(t.sides, 6)

    def test_frozen(self):
        import dataclasses
        r = alea.roll('1d6', seed=1)
        with self.assertRaises(dataclasses.FrozenInstanceError):
            r.dice[0].value = 7
        with self.assertRaises(dataclasses.FrozenInstanceError):
            r.total = 7

    def test_groups_are_members(self):
        (group,) = alea.roll('{4d6 + 3, 2d8}kh1', seed=1).groups
        self.assertEqual([type(m) for m in group], [alea.Member] * 2)
        self.assertEqual([m.expression for m in group], ['4d6 + 3', '2d8'])
        self.assertEqual([m.dropped for m in group], [False, True])


class MedianTest(unittest.TestCase):
    def cli_median(self, expr):
        import re
        return int(re.search(r'median (-?\d+)', cli('dist', expr).stdout).group(1))

    def test_the_cli_s_median(self):
        for expr in ['3d6', '1d4', '1d6', '4d6kh3', '2d20kh1', 'dd(6, 14)', '1d6!',
                     '1d2 - 1d2', '(2d6) >= 7']:
            self.assertEqual(alea.dist(expr).median, self.cli_median(expr), expr)

    def test_closed_forms(self):
        # the smallest v with P(X <= v) >= 1/2: exactly 1/2 at 2 on 1d4
        self.assertEqual(alea.dist('1d4').median, 2)
        self.assertEqual(alea.dist('1d5').median, 3)
        self.assertEqual(alea.dist('3d6').median, 10)
        self.assertEqual(alea.dist('1d20 - 20').median, -10)

    def test_from_json(self):
        import json
        for expr in ['1d6', '3d6', '2d20kh1', '1d6!']:
            d = alea.Dist(json.loads(cli('dist', '--json', expr).stdout))
            self.assertEqual(d.median, self.cli_median(expr), expr)

    def test_exact(self):
        try:
            d = alea.dist('1d6', exact=True)
        except ValueError:
            self.skipTest('a library without exact fractions')
        self.assertEqual(d.median, 3)
        self.assertEqual(d._median(), 3)


class ColumnsTest(unittest.TestCase):
    """at_least and at_most are the library's columns, number for number
    with `alea dist --csv`: exactly 1 at their far end (4d6kh3's at least 3
    once summed to 1.0000000000000002)."""

    def test_every_die_size_against_the_cli(self):
        for n in range(1, 101):
            for expr in (f'1d{n}', f'2d{n}', f'1d{n}+1d{101 - n}'):
                d = alea.dist(expr)
                rows = [line.split(',') for line in
                        cli('dist', '--csv', expr).stdout.split()[1:]]
                for v, _, least, most in rows:
                    self.assertEqual(d.at_least(int(v)), float(least), (expr, v))
                    self.assertEqual(d.at_most(int(v)), float(most), (expr, v))
                self.assertEqual(d.median, int(re.search(
                    r'median (-?\d+)', cli('dist', expr).stdout).group(1)), expr)

    def test_ends_and_gaps(self):
        d = alea.dist('4d6kh3')
        self.assertEqual((d.at_least(3), d.at_most(18), d.at_least(-5), d.at_most(99)),
                         (1.0, 1.0, 1.0, 1.0))
        self.assertEqual((d.at_least(19), d.at_most(2), d.at_most(2.5)), (0.0, 0.0, 0.0))
        gap = alea.dist('2 * 1d6')
        self.assertEqual(gap.at_least(3), gap.at_least(4))
        self.assertEqual(gap.at_most(5), gap.at_most(4))
        self.assertEqual(alea.dist('1d20').median, 10)


class CompareTest(unittest.TestCase):
    def lines(self, *args):
        return [x.rstrip() for x in cli('compare', *args).stdout.rstrip('\n').split('\n')]

    def test_the_cli_s_table(self):
        exprs = ['1d20+5', '2d20kh1+2', '3d6']
        c = alea.compare(*exprs)
        self.assertEqual(str(c).split('\n'), self.lines(*exprs))
        self.assertEqual(c.format('at_least').split('\n'), self.lines('--at-least', *exprs))
        self.assertEqual(c.format('at_most').split('\n'), self.lines('--at-most', *exprs))

    def test_versus(self):
        # each column against the first, or every pair, as compare --json
        # gives them; d2 against d3 worked by hand in tests/versus_test.c
        exprs = ['1d20+5', '2d20kh1+2', '3d6']
        for pairs, args in ((False, exprs), (True, ['--pairs', *exprs])):
            c = alea.compare(*exprs, pairs=pairs)
            want = json.loads(cli('compare', '--json', *args).stdout)['versus']
            self.assertEqual(list(c.versus), want)
            self.assertEqual(c.format().split('\n'), self.lines(*args))
        c = alea.compare('d2', 'd3', exact=True)
        self.assertEqual(c.versus, ({'a': 0, 'b': 1, 'p_greater': Fraction(1, 6),
                                     'p_equal': Fraction(1, 3), 'p_less': Fraction(1, 2),
                                     'tv': Fraction(1, 3), 'ks': Fraction(1, 3),
                                     'emd': Fraction(1, 2)},))
        self.assertEqual(str(c).split('\n'), self.lines('--exact', 'd2', 'd3'))
        self.assertEqual(alea.compare('d6').versus, ())

    def test_names_and_order(self):
        c = alea.compare('1d20+5', ('advantage', '2d20kh1+2'))
        self.assertEqual(c.names, ('1d20+5', 'advantage'))
        self.assertEqual(list(c), ['1d20+5', 'advantage'])
        self.assertEqual(len(c), 2)
        self.assertEqual(c['advantage'].expression, '2d20kh1+2')
        self.assertEqual(c['advantage'].median, 17)
        self.assertEqual(str(c).split('\n')[1].split(), ['value', '1d20+5', 'advantage'])
        c = alea.compare(*{'flat': '1d20', 'adv': '2d20kh1'}.items())
        self.assertEqual(c.names, ('flat', 'adv'))

    def test_table(self):
        c = alea.compare('1d4', '1d6+2')
        self.assertEqual(c.outcomes, [1, 2, 3, 4, 5, 6, 7, 8])
        rows = dict(c.table())
        self.assertEqual(rows[1], [0.25, None])  # impossible: None, not 0
        self.assertEqual(rows[3], [0.25, 1 / 6])
        least = dict(c.table('at_least'))
        most = dict(c.table('at_most'))
        for v in c.outcomes:
            for i, d in enumerate(c.values()):
                self.assertAlmostEqual(least[v][i], d.at_least(v), places=15)
                self.assertAlmostEqual(most[v][i], d.at_most(v), places=15)
        self.assertEqual((least[8][0], most[1][1]), (0, 0))
        self.assertAlmostEqual(least[1][1], 1, places=15)
        self.assertAlmostEqual(most[8][0], 1, places=15)

    def test_exact(self):
        try:
            c = alea.compare('1d4', '2d2', exact=True)
        except ValueError:
            self.skipTest('a library without exact fractions')
        self.assertEqual(dict(c.table())[2], [Fraction(1, 4), Fraction(1, 4)])
        self.assertEqual(dict(c.table('at_least'))[2], [Fraction(3, 4), Fraction(1)])

    def test_outcome_names(self):
        out = str(alea.compare('dd(6, 14)', 'dd(2, 14)'))
        self.assertIn('critical success', out)
        self.assertIn('critical failure', out)

    def test_the_support_limit_covers_the_whole_table(self):
        # 1d6 and 1d4: 10 outcomes in all, each within 9
        ok = alea.Context(limits={'support': 10}).compare('1d6', '1d4')
        self.assertEqual(len(ok.outcomes), 6)
        with self.assertRaises(alea.AleaError) as e:
            alea.Context(limits={'support': 9}).compare('1d6', '1d4')
        self.assertEqual(e.exception.status, 'ALEA_ERR_LIMIT')
        self.assertIn('more than 9 outcomes in all (support limit, for the whole table)',
                      str(e.exception))

    def test_the_work_limit_is_one_budget(self):
        ctx = alea.Context()
        works = []
        for expr in ['20d6', '30d8']:
            ctx.dist(expr)
            works.append(alea._ctx_work(ctx._ctx))
        # and the distances between them (alea_dist_versus), in the same budget
        kept = []
        ctx._dist('20d6', kept)
        ctx._dist('30d8', kept)
        try:
            v = alea._Versus()
            self.assertEqual(alea._dist_versus(ctx._ctx, kept[0], kept[1], ctypes.byref(v)), 0)
            works.append(alea._ctx_work(ctx._ctx))
        finally:
            for d in kept:
                alea._dist_free(d)
        total = sum(works)
        self.assertLess(max(works), total - 1)  # each alone fits below the total
        alea.Context(limits={'work': total}).compare('20d6', '30d8')
        ctx = alea.Context(limits={'work': total - 1})
        with self.assertRaises(alea.AleaError) as e:
            ctx.compare('20d6', '30d8')
        self.assertEqual(e.exception.status, 'ALEA_ERR_LIMIT')
        self.assertIn(f'more work in all than the work limit ({total - 1})', str(e.exception))
        self.assertEqual(ctx.limit('work'), total - 1)  # the limit is given back
        ctx.dist('30d8')

    def test_the_table_s_cells_are_bounded(self):
        # 1d6 and 1d4: 6 values x 2 columns
        self.assertEqual(len(alea.compare('1d6', '1d4', max_cells=12).table()), 6)
        with self.assertRaises(alea.AleaError) as e:
            alea.compare('1d6', '1d4', max_cells=11)
        self.assertEqual(e.exception.status, 'ALEA_ERR_LIMIT')
        self.assertIn('12 cells (6 values x 2 columns), more than max_cells (11)',
                      str(e.exception))
        # the default, at N and N + 1: constants, a value and a column each
        self.assertEqual(alea.COMPARE_CELLS_MAX, 1000 * 1000)
        self.assertEqual(len(alea.compare(*map(str, range(1000))).outcomes), 1000)
        with self.assertRaisesRegex(alea.AleaError, r'1002001 cells \(1001 values x 1001 '
                                    r'columns\), more than max_cells \(1000000\)'):
            alea.compare(*map(str, range(1001)))
        with self.assertRaisesRegex(ValueError, 'max_cells must be an integer of 1 or more'):
            alea.compare('1d6', max_cells=0)
        with self.assertRaisesRegex(TypeError, 'max_cells must be an integer'):
            alea.compare('1d6', max_cells=1.5)

    def test_the_timeout_is_one_deadline_for_the_whole_comparison(self):
        import time

        class Slow(alea.Context):
            def _dist(self, expression, *kept):
                time.sleep(0.06)  # each column alone is well within 0.1 s
                return super()._dist(expression, *kept)
        with Slow(timeout=0.1) as ctx:
            ctx.dist('40d100')
            ctx.dist('40d100')
            with self.assertRaises(alea.AleaError) as e:
                ctx.compare('1d6', '40d100')
        self.assertEqual(e.exception.status, 'ALEA_ERR_INTERRUPTED')
        self.assertEqual(e.exception.expression, '40d100')

    def test_a_bad_expression_names_itself(self):
        with self.assertRaises(alea.AleaError) as e:
            alea.compare('1d6', '2d')
        self.assertEqual((e.exception.expression, e.exception.status),
                         ('2d', 'ALEA_ERR_SYNTAX'))

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, 'at least one expression'):
            alea.compare()
        with self.assertRaisesRegex(ValueError, "two columns are named '1d6'"):
            alea.compare('1d6', ('1d6', '2d6'))
        with self.assertRaisesRegex(ValueError, 'empty'):
            alea.compare(('', '1d6'))
        with self.assertRaisesRegex(TypeError, 'not bytes'):
            alea.compare(b'1d6')
        with self.assertRaisesRegex(TypeError, 'not tuple'):
            alea.compare(('a', 'b', 'c'))
        with self.assertRaisesRegex(ValueError, 'kind must be one of p, at_least, at_most'):
            alea.compare('1d6').table('odds')


class TableTest(unittest.TestCase):
    """alea.table: the library's table, the one `alea table --json` prints."""

    def test_as_the_cli(self):
        for expr, sweeps, stats in [
                ('d20 + m >= dc', ['m=0..3', 'dc=10,15'], ['mean']),
                ('dd(m, d, best)', ['m=0..2', 'd=10..11'], ['p>=2', 'median']),
                ('event(tier(d4, +n))', ['n=0..3'], ['mean', 'critical failure']),
                ('2d6 +n DICE', ['n=-3..3'], ['p>=7', 'sd', 'p90'])]:
            t = alea.table(expr, *sweeps, stats=stats)
            want = json.loads(cli('table', '--json', expr, *sweeps,
                                  *[a for s in stats for a in ('--stat', s)]).stdout)
            self.assertEqual(t.data, want)
            self.assertEqual(t.names, want['names'])
            self.assertEqual(t.stats, stats)

    def test_cells(self):
        t = alea.table('d20 + m >= dc', 'm=0..2', 'dc=10,15')
        self.assertEqual((t.rows, t.cols), ([0, 1, 2], [10, 15]))
        self.assertEqual(t.cell('mean', 1, 15), 0.35)
        self.assertEqual(t.cell(0, 0, 10), 0.55)
        self.assertEqual(len(t.as_dicts()), 6)
        self.assertEqual(t.as_dicts()[5], {'m': 2, 'dc': 15, 'mean': 0.4})
        one = alea.table('d6 + n', 'n=1..2', stats=['mean', 'p>=6', 'median'])
        self.assertEqual(one.cols, [None])
        self.assertEqual(one.cell('median', 2), 5)
        self.assertEqual(one.as_dicts()[0], {'n': 1, 'mean': 4.5, 'p>=6': 1 / 3, 'median': 4})
        with alea.Context(limits={'cells': 3}) as ctx:
            self.assertEqual(ctx.table('d4 + n', 'n=1..3').rows, [1, 2, 3])
            with self.assertRaises(alea.AleaError) as e:
                ctx.table('d4 + n', 'n=1..4')
            self.assertEqual(e.exception.status, 'ALEA_ERR_LIMIT')
            self.assertIn('more than 3 values (cells limit is 3)', e.exception.message)

    @unittest.skipUnless(cli('dist', '--exact', 'd2').returncode == 0, 'no fractions')
    def test_exact(self):
        t = alea.table('d6 + n', 'n=1..2', stats=['mean', 'p>=6'], exact=True)
        self.assertTrue(t.exact)
        self.assertEqual(t.cell('mean', 1), Fraction(9, 2))
        self.assertEqual(t.cell('p>=6', 2), Fraction(1, 2))

    def test_errors(self):
        with self.assertRaises(alea.AleaError) as e:
            alea.table('d20 + n', 'n=1..x')
        self.assertEqual((e.exception.status, e.exception.start, e.exception.end),
                         ('ALEA_ERR_SYNTAX', 2, 6))
        self.assertEqual(e.exception.caret(), 'n=1..x\n  ^^^^')
        with self.assertRaises(alea.AleaError) as e:
            alea.table('d20 + n', 'n=1', stats=['crit'])
        self.assertEqual(e.exception.expression, 'crit')
        with self.assertRaises(alea.AleaError) as e:
            alea.table('d20 + b', 'n=1')
        self.assertEqual(e.exception.caret(), 'd20 + b\n      ^')
        with self.assertRaises(TypeError):
            alea.table('d20 + n', 'n=1', stats='mean')
        with self.assertRaises(TypeError):
            alea.table('d20 + n', 5)


class PolicyTest(unittest.TestCase):
    """alea.policy: the library's policy, the one `alea policy --json` prints."""

    def test_as_the_cli(self):
        for expr in ['dd(3, 14, best)', 'dd(0, 10, onfail)', 'dd(6, 14, always)']:
            p = alea.policy(expr)
            want = json.loads(cli('policy', '--json', expr).stdout)
            self.assertEqual(p.data, want)
            self.assertEqual((p.expression, p.goal, p.is_prob, p.value, p.optimum),
                             (want['expression'], want['goal'], want['probability'],
                              want['value'], want['optimum']))
            self.assertEqual([(r.seen, r.choice, r.chance, r.value, r.plain) for r in p.rows],
                             [(r['seen'], r['choice'], r['chance'], r['value'], r['plain'])
                              for r in want['rows']])
            self.assertFalse(p.exact)
        self.assertGreater(len(p.rows), 1)
        self.assertAlmostEqual(sum(r.chance for r in p.rows), 1)

    def test_a_fixed_policy_beside_the_best(self):
        fixed, best = alea.policy('dd(6, 14, always)'), alea.policy('dd(6, 14, best)')
        self.assertEqual(fixed.optimum, best.value)
        self.assertLessEqual(fixed.value, fixed.optimum)
        self.assertEqual(best.value, best.optimum)

    @unittest.skipUnless(cli('dist', '--exact', 'd2').returncode == 0, 'no fractions')
    def test_exact(self):
        p = alea.policy('dd(3, 14, onfail)', exact=True)
        want = json.loads(cli('policy', '--json', '--exact', 'dd(3, 14, onfail)').stdout)
        self.assertTrue(p.exact)
        self.assertIsInstance(p.value, Fraction)
        self.assertIsInstance(p.optimum, Fraction)
        self.assertEqual(p.value, Fraction(want['value']))
        self.assertEqual([r.value for r in p.rows], [Fraction(r['value']) for r in want['rows']])
        self.assertTrue(all(isinstance(r.plain, float) for r in p.rows))
        self.assertAlmostEqual(float(p.value), alea.policy('dd(3, 14, onfail)').value)

    def test_no_choice(self):
        for expr, span in [('3d6 + 1', (0, 7)), ('1d20', (0, 4))]:
            with self.assertRaises(alea.AleaError) as e:
                alea.policy(expr)
            self.assertEqual(e.exception.status, 'ALEA_ERR_INVALID')
            self.assertIn('no choice for the player in this expression', e.exception.message)
            self.assertEqual((e.exception.start, e.exception.end), span)
        with self.assertRaises(alea.AleaError) as e:
            alea.policy('dd(3, ')
        self.assertEqual(e.exception.status, 'ALEA_ERR_SYNTAX')
        with self.assertRaises(TypeError):
            alea.policy(b'dd(3, 14, best)')

    def test_in_a_context(self):
        with alea.Context(dialect='alea') as ctx:
            self.assertEqual(ctx.policy('dd(3, 14, best)').data,
                             alea.policy('dd(3, 14, best)').data)
        with alea.Context(limits={'output': 64}) as ctx:
            with self.assertRaises(alea.AleaError) as e:
                ctx.policy('dd(3, 14, best)')
            self.assertEqual(e.exception.status, 'ALEA_ERR_LIMIT')


if __name__ == '__main__':
    unittest.main()
