"""The Python module against the command line and the library's promises.

Run with the library named: ALEA_LIBRARY=build/libalea.so.0 ALEA_CLI=build/alea
python3 -m unittest discover -s python/tests
"""
import importlib.util
import os
import subprocess
import sys
import unittest

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

    def test_unseeded_rolls_differ(self):
        self.assertNotEqual(alea.roll('1d1000000000').total, alea.roll('1d1000000000').total)


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

    def test_labels_and_flags(self):
        self.assertEqual(alea.dist('dd(6, 14)').labels[3], 'critical success')
        self.assertIn('critical failure', alea.dist('event(3d4 + 3d6 + d18)').flags)


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
        self.assertEqual(b.reply('!roll 4d6kh3', 'ann'), '@ann rolled 4d6kh3 [5, 2 dropped, 6, 6] = 17')
        self.assertIn('mean 7.00', b.reply('!dist 2d6'))
        no = b.reply('!roll 99999d6', 'bob')
        self.assertTrue(no.startswith('@bob I could not do that: too many dice'), no)
        self.assertIn('dice limit is 1000', no)
        bad = b.reply('!roll 2d+3')
        self.assertIn('```\n2d+3\n  ^\n```', bad)
        self.assertIn('too many to list', b.reply('!dist 1d1000'))
        self.assertIn('!roll EXPR', b.reply('!help'))
        # whatever a stranger types, a reply and never an exception
        for junk in ['!roll ' + '(' * 5000, '!roll \x00\xff', '!dist 1d6!' * 50, '!roll d{}',
                     '!dist 9223372036854775807 + 1']:
            self.assertIsInstance(b.reply(junk), str)


if __name__ == '__main__':
    unittest.main()
