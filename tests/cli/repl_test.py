#!/usr/bin/env python3
"""The interactive session, driven through a pseudo-terminal.

  repl_test.py ALEA [editline]

Starts `alea` with no argument on a pty (so that it sees a terminal), types
lines and reads what it prints: rolls in colour, the empty line that rolls
again, :seed, :dist, :compare, :help, errors with their caret, an unknown
command, :quit, and the history file. With `editline`, line editing (the
arrow keys) is tested too. NO_COLOR turns the colours off. Exit status 0
when every check passes.
"""
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import termios
import time

ANSI = re.compile(r'\x1b\[[0-9;]*m')
failures = []


def check(name, ok, detail=''):
    if not ok:
        failures.append(name)
        print(f'FAIL: {name}')
        if detail:
            print('  | ' + detail.replace('\n', '\n  | '))


class Session:
    def __init__(self, alea, env, args=()):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([alea] + list(args), stdin=slave, stdout=slave, stderr=slave, env=env,
                                     close_fds=True)
        os.close(slave)
        self.seen = ''

    def read_until(self, pattern, timeout=10):
        """Output up to and including the first match of pattern."""
        end = time.time() + timeout
        while True:
            m = re.search(pattern, self.seen)
            if m:
                out, self.seen = self.seen[:m.end()], self.seen[m.end():]
                return out
            left = end - time.time()
            if left <= 0:
                raise TimeoutError(f'no {pattern!r} in {self.seen!r}')
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    data = b''
                if not data:
                    raise EOFError(f'alea ended; output so far {self.seen!r}')
                self.seen += data.decode('utf-8', 'replace')

    def send(self, text):
        os.write(self.master, text.encode())

    def wait_editing(self, timeout=10):
        """Waits until the line editor has the terminal in raw mode: a key
        typed before that is taken by the terminal's own line discipline
        (where Ctrl-D is not the editor's end of input)."""
        end = time.time() + timeout
        while termios.tcgetattr(self.master)[3] & termios.ICANON:
            if time.time() > end:
                raise TimeoutError('the line editor never took the terminal')
            time.sleep(0.01)

    def line(self, text):
        """Types a line; returns what the terminal shows before the next
        prompt (the echo of the line typed included)."""
        self.send(text + '\r')
        return self.read_until(r'alea> ')[: -len('alea> ')]

    def close(self):
        """Reads what is left until alea closes the terminal, then waits."""
        end = time.time() + 10
        while time.time() < end:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    if not os.read(self.master, 65536):
                        break
                except OSError:
                    break
            elif self.proc.poll() is not None:
                break
        self.proc.wait(timeout=10)
        os.close(self.master)
        return self.proc.returncode


def plain(text):
    return ANSI.sub('', text).replace('\r', '')


def lines(text):
    """The lines shown, without colours: the echo of what was typed among
    them, wherever the terminal put it."""
    return [l.rstrip() for l in plain(text).split('\n')]


DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'docs', 'cli.md')


def session_blocks(path):
    """The sessions shown in the docs: each ```text block whose first line is
    the banner or a prompt, as its lines."""
    blocks, block = [], None
    for line in open(path, encoding='utf-8').read().split('\n'):
        if block is None and line == '```text':
            block = []
        elif block is not None and line.startswith('```'):
            if block and (block[0].startswith('alea>') or
                          re.match(r'alea \S+: type an expression', block[0])):
                blocks.append(block)
            block = None
        elif block is not None:
            block.append(line.rstrip())
    return blocks


def shown_pattern(shown):
    """A regex for the lines shown: '...' alone stands for any lines, within
    a line for any text."""
    parts = []
    for line in shown:
        if line.strip() == '...':
            parts.append(r'(?:[^\n]*\n)*?')
        else:
            parts.append('.*'.join(map(re.escape, line.split('...'))) + r'\n')
    return ''.join(parts)


def docs_sessions(alea, env, editline):
    """Types each session of docs/cli.md into a session of its own and
    compares what it prints with what the docs show."""
    blocks = session_blocks(DOCS)
    check('the docs show sessions', len(blocks) >= 2, f'{len(blocks)} in {DOCS}')
    for n, block in enumerate(blocks, 1):
        s = Session(alea, dict(env, NO_COLOR='1'))
        banner = lines(s.read_until(r'alea> '))
        if not block[0].startswith('alea>'):
            check(f'docs session {n}: the banner', banner[0] == block[0], banner[0])
            block = block[1:]
        steps = []  # (typed, lines shown after it)
        for line in block:
            if line.startswith('alea>'):
                steps.append((line[len('alea> '):], []))
            elif steps:
                steps[-1][1].append(line)
        ended = False
        for typed, shown in steps:
            if typed in (':quit', 'quit', 'exit'):
                if editline:
                    s.wait_editing()
                s.send(typed + '\r')
                ended = True
                break
            if editline:
                s.wait_editing()
            got = lines(s.line(typed))
            while got and got[0] == typed.rstrip():  # its echo (twice when typed early)
                got.pop(0)
            while got and not got[-1]:
                got.pop()
            text = ''.join(l + '\n' for l in got)
            check(f'docs session {n}: {typed!r} prints what the docs show',
                  re.fullmatch(shown_pattern(shown), text) is not None,
                  'shown:\n' + '\n'.join(shown) + '\nprinted:\n' + text)
        if not ended:
            s.send(':quit\r')
        rc = s.close()
        check(f'docs session {n} ends with status 0', rc == 0, f'status {rc}')


def fairness_checks(alea, env):
    """:fairness judges the session's rolls as alea fairness judges the same
    log, leaves the session's generator alone; luck; a session's --seed."""
    def run(args, stdin=None):
        return subprocess.run([alea] + args, input=stdin, capture_output=True,
                              text=True).stdout
    s = Session(alea, dict(env, NO_COLOR='1'))
    s.read_until(r'alea> ')
    out = plain(s.line(':fairness'))
    check(':fairness before any roll', 'no rolls yet: :fairness judges the rolls of this '
          'session' in out, out)
    s.line(':seed 11')
    s.line(':roll -n 25 d20')
    s.line('3 x 2d6')  # each roll of a repeat is one roll of the log
    s.line('')
    # the log the session made: 25 rolls of d20, then the repeat rolled twice
    rolls = run(['roll', '--json', '--seed', '11', '-n', '25', 'd20', '3 x 2d6']).splitlines()
    log = '\n'.join(rolls[:27]) + '\n'
    want = run(['fairness', '--seed', '7'], log)
    out = plain(s.line(':fairness --seed 7'))
    check(':fairness prints what alea fairness prints for the same log',
          want.startswith('31 rolls, placed with seed 7\n') and want in out, want + '\n' + out)
    want = run(['fairness', '--json', '--seed', '7'], log)
    out = plain(s.line(':fairness --json --seed 7'))
    check(':fairness --json', want.startswith('{"rolls": 31,') and want in out, out)
    out = plain(s.line(':fairness'))
    check(':fairness without --seed: a seed of its own',
          re.search(r'31 rolls, placed with seed \d+\n', out) is not None, out)
    # the session's generator untouched: the roll after it is the one without it
    after = [l for l in lines(s.line('4d6')) if l.startswith('4d6 [')]
    for typed in (':seed 11', ':roll -n 25 d20', '3 x 2d6', ''):
        s.line(typed)
    without = [l for l in lines(s.line('4d6')) if l.startswith('4d6 [')]
    check('the rolls after :fairness are those without it', len(after) == 1 and
          after == without, f'{after} {without}')
    out = plain(s.line(':fairness --seed 7 rolls.txt'))
    check(':fairness takes no file', ":fairness judges this session's rolls and takes no "
          "file ('rolls.txt')" in out, out)
    out = plain(s.line(':roll --max-support 3 d20'))
    out = plain(s.line(':fairness --max-support 3'))
    check(':fairness: an expression past the limits is named, the others judged',
          "the rolls of 'd20' are not judged: " in out and 'support limit is 3' in out and
          'refused' in out, out)
    out = plain(s.line(':roll --luck 2 x d20'))
    check(':roll --luck: each roll of a repeat',
          len(re.findall(r'd20 \[\d+\] = \d+  \(luck: P\(<= \d+\) [\d.]+%, P\(>= \d+\) '
                         r'[\d.]+%\)', out)) == 2, out)
    s.send(':quit\r')
    s.close()
    # alea --luck --seed 3: luck after every roll; the seed once, not at each :roll
    s = Session(alea, dict(env, NO_COLOR='1'), ['--luck', '--seed', '3'])
    s.read_until(r'alea> ')
    want = run(['roll', '--luck', '--seed', '3', '-n', '2', 'd20']).splitlines()
    first, second = plain(s.line(':roll d20')), plain(s.line(':roll d20'))
    check('alea --luck --seed 3: luck after each roll, the stream seeded once',
          want[0] in lines(first) and want[1] in lines(second), '\n'.join(want) + '\n' +
          first + second)
    out = plain(s.line(':dist 1d4'))
    check("the session's --seed is no option of :dist", 'needs --sample' not in out and
          'mean 2.50' in out, out)
    s.send(':quit\r')
    s.close()
    # --max-rolls: the rolls kept, at N and N + 1
    s = Session(alea, dict(env, NO_COLOR='1'), ['--max-rolls', '3'])
    s.read_until(r'alea> ')
    s.line(':roll -n 3 d6')
    out = plain(s.line(':fairness --seed 1'))
    check('alea --max-rolls 3: three rolls kept', '3 rolls, placed with seed 1' in out and
          'not kept' not in out, out)
    s.line('d6')
    out = plain(s.line(':fairness --seed 1'))
    check('alea --max-rolls 3: the fourth counted, not kept',
          '1 later roll was not kept (this session keeps 3 rolls' in out and
          '3 rolls, placed with seed 1' in out, out)
    out = plain(s.line(':roll d6'))
    check('--max-rolls is no option of a line', 'bounds what a session keeps' not in out, out)
    s.send(':quit\r')
    s.close()
    # the expressions kept, at N (256) and N + 1; --timeout, each roll's
    s = Session(alea, dict(env, NO_COLOR='1'))
    s.read_until(r'alea> ')
    big = '--max-work 1000000000000 --max-support 1000000'
    s.line(':roll d20')
    s.line(f':roll {big} 300d1000')
    out = plain(s.line(f':fairness --seed 1 --timeout 5 {big}'))
    check(':fairness --timeout: the expression past it named once, the verdict on the others',
          out.count('timed out') == 1 and "the rolls of '300d1000' are not judged" in out and
          '1 roll (1 line refused), placed with seed 1' in out and 'verdict: ' in out, out)
    s.send(':quit\r')
    s.close()
    s = Session(alea, dict(env, NO_COLOR='1'))
    s.read_until(r'alea> ')
    for k in range(256):
        s.line(f'd6+{k}')
    out = plain(s.line(':fairness --seed 7'))
    check(':fairness: 256 expressions kept', 'not kept' not in out and
          '256 rolls, placed with seed 7' in out, out)
    s.line('d6+256')
    out = plain(s.line(':fairness --seed 7'))
    check(':fairness: the 257th expression is counted, not kept',
          ':fairness: 1 later roll was not kept (this session keeps 1048576 rolls, its '
          '--max-rolls, of at most 256 expressions)' in out and '256 rolls, placed' in out, out)
    s.send(':quit\r')
    s.close()


def main():
    alea = sys.argv[1]
    editline = len(sys.argv) > 2 and sys.argv[2] == 'editline'
    home = tempfile.mkdtemp()
    env = dict(os.environ, HOME=home, TERM='xterm')
    env.pop('NO_COLOR', None)

    s = Session(alea, env)
    banner = s.read_until(r'alea> ')
    check('banner', 'type an expression to roll it' in banner, banner)

    out = s.line(':seed 7')
    check(':seed', 'seeded with 7' in lines(out), out)
    out = s.line('4d6kh3')
    check('a roll, as alea roll --seed 7 prints it',
          '4d6kh3 [5, 2 dropped, 6, 6] = 17' in lines(out), repr(out))
    check('the dropped die is dim, the sixes green, the total bold',
          '\x1b[2m2 dropped\x1b[22m' in out and '\x1b[32m6\x1b[39m' in out
          and '= \x1b[1m17\x1b[22m' in out, repr(out))
    out = s.line('')
    check('an empty line rolls the last expression again',
          '4d6kh3 [6, 6, 1 dropped, 1] = 13' in lines(out), repr(out))
    out = plain(s.line(':dist 3d6'))
    check(':dist', 'mean 10.50   sd 2.96   min 3   max 18   median 10' in out, out)
    out = plain(s.line(':compare 2d20kh1 ; 1d20+5'))
    check(':compare', re.search(r'value +2d20kh1 +1d20\+5', out) is not None, out)
    out = plain(s.line(':table d20 + m >= 15 m=0..2 --stat mean --stat p>=1'))
    want = subprocess.run([alea, 'table', 'd20 + m >= 15', 'm=0..2', '--stat', 'mean', '--stat',
                           'p>=1'], capture_output=True, text=True).stdout
    check(':table, as alea table', want and all(x in out for x in want.splitlines()), out)
    out = plain(s.line(':table --csv 2d6 +n DICE n=-1..1'))
    want = subprocess.run([alea, 'table', '--csv', '2d6 +n DICE', 'n=-1..1'],
                          capture_output=True, text=True).stdout
    check(':table with the values written in, --csv first', want.startswith('n,mean\n-1,') and
          want in out, out)
    out = plain(s.line(':table d6 + n'))
    check(':table without NAME=A..B', ':table needs an expression and NAME=A..B' in out, out)
    out = plain(s.line(':table d20 + n n=1..x'))
    check(':table: a bad sweep', "bad range '1..x' in 'n=1..x'" in out, out)
    out = plain(s.line('2d+3'))
    check('an error with its caret', "syntax error: expected the number of sides after 'd'"
          in out and '  2d+3\n    ^' in out, out)
    # :dist alone: the last expression (2d+3 failed: 3d6 is still the last)
    out = plain(s.line(':dist'))
    check(':dist alone takes the last expression',
          '3d6\n' in out and 'mean 10.50   sd 2.96   min 3   max 18   median 10' in out, out)
    # options as on the command line, for that line only
    out = plain(s.line(':dist --at-least 2d6'))
    check(':dist --at-least', re.search(r'value +at least +% +at most', out) is not None
          and re.search(r'\n +12 +2\.78 +2\.78 +100\.00', out) is not None, out)
    out = plain(s.line(':dist --exact 2d6'))
    check(':dist --exact', 'exact mean 7   variance 35/6' in out and '1/36' in out, out)
    out = plain(s.line(':dist'))
    check('the options last one line; :dist reuses the last expression (2d6)',
          'fraction' not in out and re.search(r'value +% +at least +at most', out) is not None
          and 'mean 7.00' in out, out)
    out = plain(s.line(':dist --json 1d4'))
    check(':dist --json', '{"expression": "1d4", "outcomes": [[1, 0.25]' in out, out)
    out = plain(s.line(':roll -n 3 --seed 7 4d6kh3'))
    check(':roll -n 3 --seed 7', re.search(r'4d6kh3 \[5, 2 dropped, 6, 6\] = 17\n'
                                          r'4d6kh3 \[6, 6, 1 dropped, 1\] = 13\n'
                                          r'4d6kh3 \[.*\] = \d+', out) is not None, out)
    out = plain(s.line(':roll --max-dice 3 4d6'))
    check(':roll --max-dice: the limit for that line',
          'too many dice at byte 0 (dice limit is 3)' in out, out)
    out = plain(s.line('4d6'))
    check('the limit is back after the line', re.search(r'4d6 \[.*\] = \d+', out) is not None,
          out)
    out = plain(s.line(':compare --at-most 1d4 ; 1d6'))
    check(':compare --at-most', '% chance of at most each value' in out
          and re.search(r'\n +4 +100\.00 +66\.67', out) is not None, out)
    out = plain(s.line(':compare adv=2d20kh1 ; plain=d20'))
    check(':compare with named columns', re.search(r'value +adv +plain', out) is not None, out)
    out = plain(s.line(':dist --exat 2d6'))
    check(':dist with a mistyped option',
          "unknown option '--exat'; did you mean '--exact'?" in out, out)
    out = plain(s.line(':dist --sample'))
    check(':dist with an option missing its value (never the last expression)',
          "option '--sample' needs a value" in out and 'is not a number' not in out, out)
    out = plain(s.line(':dist --help'))
    check(':dist --help', 'Usage: alea dist' in out, out)
    out = plain(s.line(':dist ' + '--at-least ' * 70 + '3d6'))
    check('at most 64 words of options', ':dist takes at most 64 words of options' in out, out)
    out = plain(s.line(':compare --at-least'))
    check(':compare without expressions',
          ':compare needs expressions, as in :compare 2d20kh1 ; 1d20+5' in out, out)
    out = plain(s.line(':bogus'))
    check('an unknown command', "unknown command ':bogus'" in out, out)
    # a command without its ':', and several expressions without ';'
    out = plain(s.line('dist 3d6'))
    check('dist without its colon: a hint',
          "alea: hint: the session's commands start with ':', as in :dist 3d6" in out, out)
    out = plain(s.line('help'))
    check('help without its colon: a hint', "as in :help (:help lists them)" in out, out)
    out = plain(s.line(':compare 2d6 1d12'))
    check(':compare without ;: a hint',
          "alea: hint: :compare parts its expressions at ';', as in :compare 2d6 ; 1d12" in out,
          out)
    # let, if, sum typed at the prompt: expressions, never session commands
    out = plain(s.line(':seed 3'))
    out = plain(s.line('let a = d20, b = a + 2 in if(a >= 10 and b < 20, b, 0)'))
    check('let at the prompt: rolled, the names shown once',
          re.search(r'let a = d20 \[(\d+)\] in let b = a \+ 2 = \d+ in if\(.*\) = \d+', out)
          is not None and 'command' not in out, out)
    out = plain(s.line(''))
    check('an empty line rolls the let again', 'let a = d20 [' in out, out)
    out = plain(s.line(':dist let a = d6 in a*a'))
    check(':dist of a let: squares only', re.search(r'\n +36 +16\.67 ', out) is not None and
          re.search(r'\n +7 ', out) is None and 'mean 15.17' in out, out)
    out = plain(s.line(':compare let a = d20 in a + a ; 2d20'))
    check(':compare of a let', re.search(r'value +let a = d20 in a \+ a +2d20', out) is not None
          and re.search(r'\n +40 +5\.00 +0\.25', out) is not None, out)
    out = plain(s.line('sum(3, d6) + if(d20 >= 11, 1, 0)'))
    check('sum and if at the prompt', re.search(r'sum\(3, d6\) \[\d, \d, \d\] \+ if\(', out)
          is not None, out)
    out = plain(s.line('let a = d20 in a + b'))
    check('an unknown name in a let: the scope and the caret, no session hint',
          "unknown name 'b' at byte 19 (in scope: a)" in out and
          '  let a = d20 in a + b\n                     ^' in out and 'hint' not in out, out)
    out = plain(s.line(':help'))
    check(':help', ':compare [OPTION]... E1 ; E2' in out and ':seed S' in out
          and 'quit, exit' in out and ':fairness [--json] [--seed S]' in out
          and ':roll --luck 3d6' in out, out)
    out = plain(s.line(':seed x'))
    check('a bad seed', ':seed takes a number' in out, out)
    # one rule with standard input: a NUL or a byte that is not UTF-8 is the
    # library's syntax error at its byte, never dropped (the line editor
    # dropped both: 1d6\0+2 rolled as 1d6+2); UTF-8 text is kept
    for typed, byte in ((b'1d6\x00+2', '0x00'), (b'1d6\xff+2', '0xFF')):
        if editline:
            s.wait_editing()
        os.write(s.master, typed + b'\r')
        out = plain(s.read_until(r'alea> '))
        check(f'a line with byte {byte}: the library refuses it, as on standard input',
              f'syntax error: unexpected byte {byte} at byte 3' in out and
              '  1d6?+2\n     ^' in out and '= ' not in out, repr(out))
    if editline:
        s.wait_editing()
    out = plain(s.line(':seed 7'))
    out = plain(s.line('4d6kh3 # caf\u00e9'))
    check('a comment in UTF-8 is kept', '4d6kh3 [5, 2 dropped, 6, 6] = 17 # caf\u00e9' in out,
          repr(out))
    if editline:
        # "4d6h3", two steps left, "k": the line is 4d6kh3
        s.send(':seed 7\r')
        s.read_until(r'alea> ')
        s.wait_editing()
        s.send('4d6h3\x1b[D\x1b[Dk\r')
        out = s.read_until(r'alea> ')
        check('line editing with the arrow keys',
              '4d6kh3 [5, 2 dropped, 6, 6] = 17' in lines(out), repr(out))
    s.send(':quit\r')
    rc = s.close()
    check(':quit ends with status 0', rc == 0, f'status {rc}')
    fairness_checks(alea, env)
    docs_sessions(alea, env, editline)
    # quit and exit, bare; a fresh session's :dist has no last expression
    for word in ('quit', 'exit'):
        s = Session(alea, env)
        s.read_until(r'alea> ')
        if word == 'quit':
            out = plain(s.line(':dist'))
            check(':dist with no last expression',
                  ':dist needs an expression, as in :dist 4d6kh3' in out, out)
        if editline:
            s.wait_editing()
        s.send(word + '\r')
        rc = s.close()
        check(f'{word} ends with status 0', rc == 0, f'status {rc}')
    if editline:
        hist = os.path.join(home, '.alea_history')
        # libedit's format: a header line, then one line each, spaces as \040
        text = open(hist).read().replace('\\040', ' ') if os.path.exists(hist) else ''
        check('the history is kept in ~/.alea_history', ':dist 3d6' in text and '4d6kh3' in text,
              text)

    # NO_COLOR: plain text; and Ctrl-D leaves too
    s = Session(alea, dict(env, NO_COLOR='1'))
    s.read_until(r'alea> ')
    out = s.line('4d6kh3')
    check('NO_COLOR: no escapes', '\x1b[' not in out and
          any(re.fullmatch(r'4d6kh3 \[.*\] = \d+', l) for l in lines(out)), repr(out))
    if editline:
        s.wait_editing()
    s.send('\x04')
    rc = s.close()
    check('Ctrl-D ends with status 0', rc == 0, f'status {rc}')

    print(f'{"FAILED" if failures else "passed"}: {len(failures)} of the checks failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
