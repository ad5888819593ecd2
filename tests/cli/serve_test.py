#!/usr/bin/env python3
"""serve_test.py ALEA -- alea serve through real HTTP on 127.0.0.1.

Starts 'alea serve --port 0' (a few times, with different limits), reads the
URL it prints, and talks to it with http.client and, for what a well-behaved
client never sends, raw sockets: good requests checked against the CLI's own
output, malformed JSON, every field of the wrong kind, bodies and answers at
their limits and one byte past, the deadline and the work limit, connections
past the cap, wrong methods and paths, broken HTTP; then SIGTERM and SIGINT
stop it with status 0. ALEA may be a wrapper that runs alea under valgrind
(scripts/memcheck): the waits allow for it. Prints 'N passed, M failed'.
"""
import http.client
import json
import os
import re
import select
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

from helpers import check, finish, runner

ALEA = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
SLOW = 20  # seconds a step may take under valgrind
cli = runner(ALEA, timeout=SLOW * 3)


class Server:
    """alea serve --port 0 ARGS, with its port read from its first line."""

    def __init__(self, *args):
        self.p = subprocess.Popen([ALEA, 'serve', '--port', '0', *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.p.stdout], [], [], SLOW * 3)
        line = self.p.stdout.readline() if ready else ''
        if not line.startswith('listening on http://127.0.0.1:'):
            self.p.kill()
            sys.exit(f'alea serve {args} did not start: {line!r} {self.p.stderr.read()}')
        self.port = int(line.rsplit(':', 1)[1].strip('/\n'))

    def request(self, method, path, body=None, headers=None, source='127.0.0.1'):
        """(status, headers, parsed JSON body or raw bytes), from the
        loopback address source."""
        c = http.client.HTTPConnection('127.0.0.1', self.port, timeout=SLOW * 3,
                                       source_address=(source, 0))
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        if headers is None:
            headers = {'Content-Type': 'application/json'} if body is not None else {}
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        c.close()
        try:
            data = json.loads(data)
        except ValueError:
            pass
        return r.status, dict(r.getheaders()), data

    def post(self, path, body, source='127.0.0.1'):
        return self.request('POST', path, body, source=source)

    def raw(self, data, end=False):
        """Sends bytes on a fresh connection (end: then ends the sending
        side); what comes back before it closes."""
        s = socket.create_connection(('127.0.0.1', self.port))
        s.settimeout(SLOW)
        got = b''
        try:
            s.sendall(data)
            if end:
                s.shutdown(socket.SHUT_WR)
        except OSError:  # closed before the end: what it answered is there to read
            pass
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except (OSError, socket.timeout):  # reset, or closed before the end
            pass
        s.close()
        return got

    def stop(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)
        try:
            _, err = self.p.communicate(timeout=SLOW * 3)
        except subprocess.TimeoutExpired:
            self.p.kill()
            _, err = self.p.communicate()
        return self.p.returncode, err


def error_of(status, data, want_status, name):
    ok = (status == want_status and isinstance(data, dict) and set(data) == {'error'}
          and set(data['error']) == {'message', 'start', 'end', 'status', 'caret', 'hint'})
    check(f'{name}: {want_status} with an error object', ok, f'{status} {data}')
    return data['error'] if ok else {'message': '', 'start': -1, 'end': -1}


# ---- the server with the defaults --------------------------------------------
# but the deadline, which counts from a request's arrival: under valgrind the
# first exact request (the fractions' start) takes more than a second
s = Server('--timeout', str(SLOW * 1000))

st, h, data = s.request('GET', '/health')
check('GET /health', st == 200 and data.get('status') == 'ok' and
      h.get('Content-Type') == 'application/json', f'{st} {data}')
st, _, _ = s.request('HEAD', '/health')
check('HEAD /health', st == 200, st)

# /roll answers what 'alea roll --json' prints, seeded the same.
for body, argv in [({'expr': '4d6kh3', 'seed': 42}, ['--seed', '42', '4d6kh3']),
                   ({'expr': '1d20+5', 'n': 3, 'seed': 7}, ['-n', '3', '--seed', '7', '1d20+5']),
                   ({'expr': '3d6>3', 'seed': 1, 'dialect': 'roll20'},
                    ['--seed', '1', '--dialect', 'roll20', '3d6>3']),
                   ({'expr': '2 x 1d6', 'seed': '18446744073709551615'},
                    ['--seed', '18446744073709551615', '2 x 1d6']),
                   ({'expr': 'let a = d20, b = a + 2 in if(a >= 10, b, 0) + sum(2, d4)',
                     'seed': 1},
                    ['--seed', '1', 'let a = d20, b = a + 2 in if(a >= 10, b, 0) + sum(2, d4)'])]:
    st, _, data = s.post('/roll', body)
    rc, out, _ = cli('roll', '--json', *argv)
    want = [json.loads(line) for line in out.splitlines()]
    seed = body['seed'] if isinstance(body['seed'], int) else int(body['seed'])
    check(f'/roll {body}: as roll --json', st == 200 and data == {'rolls': want, 'seed': seed},
          f'{st} {data}\nwant {want}')

# let's names: "bound", each name's term and the value rolled once for it;
# if and sum among the groups, with the branch taken and the count.
st, _, data = s.post('/roll', {'expr': 'let a = d20, b = a + 2 in if(a >= 10, b, 0) + sum(2, d4)',
                               'seed': 1})
r = data['rolls'][0] if st == 200 else {}
a = r.get('dice', [{}])[0].get('value')
check('/roll let: bound', r.get('bound') == [{'name': 'a', 'term': 'd20', 'value': a},
                                            {'name': 'b', 'term': 'a + 2', 'value': a + 2}], r)
check('/roll if, sum: branch and count',
      [g.get('branch') for g in r.get('groups', [])] == ['then' if a >= 10 else 'else', None] and
      [g.get('count') for g in r.get('groups', [])] == [None, 2], r)
st, _, data = s.post('/roll', {'expr': '2d6', 'seed': 1})
check('/roll without let: no bound', st == 200 and 'bound' not in data['rolls'][0], data)

# Without a seed, the one drawn is given and rolls the same again.
st, _, first = s.post('/roll', {'expr': '10d100', 'n': 2})
st2, _, again = s.post('/roll', {'expr': '10d100', 'n': 2, 'seed': first.get('seed')})
check('/roll: the seed drawn rolls the same again', st == st2 == 200 and first == again,
      f'{first}\n{again}')

# /dist answers what 'alea dist --json' prints.
for body, argv in [({'expr': '3d6'}, ['3d6']),
                   ({'expr': '3d6', 'exact': True}, ['--exact', '3d6']),
                   ({'expr': '3d6', 'exact': False}, ['3d6']),
                   ({'expr': 'dd(6, 14, always)'}, ['dd(6, 14, always)']),
                   ({'expr': 'd%', 'dialect': 'd20'}, ['--dialect', 'd20', 'd%']),
                   ({'expr': 'if((d20) >= 11, 2d6, 0)', 'exact': True},
                    ['--exact', 'if((d20) >= 11, 2d6, 0)']),
                   ({'expr': 'let a = d20 in a + a'}, ['let a = d20 in a + a'])]:
    st, _, data = s.post('/dist', body)
    rc, out, _ = cli('dist', '--json', *argv)
    check(f'/dist {body}: as dist --json', st == 200 and data == json.loads(out),
          f'{st} {str(data)[:300]}')

# A text another tool reads otherwise: the hint first, as the CLI gives it.
_, _, err = cli('roll', '--seed', '1', '1d%')
for path in ['/roll', '/dist']:
    st, _, data = s.post(path, {'expr': '1d%', 'seed': 1} if path == '/roll' else {'expr': '1d%'})
    check(f'{path} 1d%: the hint', st == 200 and 'alea: hint: ' + data.get('hint', '') ==
          err.splitlines()[0] and "Avrae's d20" in data['hint'] and
          list(data)[0] == 'hint', f'{st} {str(data)[:300]}\n{err}')
st, _, data = s.post('/roll', {'expr': '4d6kh3'})
check('/roll 4d6kh3: no hint', st == 200 and 'hint' not in data, str(data)[:300])

# An expression's error: 422, the library's message and its span in expr.
for expr, start, end in [('2d+3', 2, 3), ('1d6 + ', 6, 6)]:
    st, _, data = s.post('/roll', {'expr': expr})
    e = error_of(st, data, 422, f'/roll {expr!r}')
    _, _, err = cli('roll', expr)
    check(f'/roll {expr!r}: the CLI\'s message', 'alea: ' + e['message'] == err.splitlines()[0],
          f'{e}\n{err}')
    _, _, data = s.post('/dist', {'expr': expr})
    check(f'/dist {expr!r}: the same error', data.get('error') == e, data)
# The error for a program: its status, the caret line, the hint.
st, _, data = s.post('/roll', {'expr': '99999d6'})
e = error_of(st, data, 422, '/roll past the dice limit')
check('a limit error: its status, caret and hint', e['status'] == 'ALEA_ERR_LIMIT' and
      e['caret'] == '  99999d6\n  ^^^^^^^\n' and 'limits are this server' in e['hint'], e)
st, _, data = s.post('/roll', {'expr': '1d6 +'})
e = error_of(st, data, 422, '/roll 1d6 +')
check('a syntax error: its status and caret', e['status'] == 'ALEA_ERR_SYNTAX' and
      e['caret'] == '  1d6 +\n       ^\n', e)
st, _, data = s.post('/roll', {'expr': '1d6', 'n': 0})
check('a server error: its status', error_of(st, data, 400, 'n 0')['status'] ==
      'SERVE_BAD_REQUEST', data)
# format: the roll's line, its comment included, in text or Markdown.
for fmt, flag in [('text', []), ('markdown', ['--format', 'markdown'])]:
    st, _, data = s.post('/roll', {'expr': '2d6 # fire damage', 'seed': 3, 'n': 2,
                                   'format': fmt})
    _, out, _ = cli('roll', '--seed', '3', '-n', '2', *flag, '2d6 # fire damage')
    want = [{'expression': '2d6 # fire damage', 'total': int(line.split('=')[1].split()[0]
                                                              .strip('`*')), 'text': line}
            for line in out.splitlines()]
    check(f'/roll format {fmt}: the lines of roll, comment and all',
          st == 200 and data == {'rolls': want, 'seed': 3}, f'{data}\nwant {want}')
# luck: each roll's place in its distribution, as roll --luck gives it.
for body, argv in [({'expr': '3 x 2d6', 'seed': 8, 'n': 2, 'luck': True},
                    ['--json', '--seed', '8', '-n', '2', '3 x 2d6']),
                   ({'expr': 'd20', 'seed': 8, 'luck': True}, ['--json', '--seed', '8', 'd20']),
                   ({'expr': 'd20', 'seed': 8, 'luck': True, 'format': 'text'},
                    ['--seed', '8', 'd20'])]:
    st, _, data = s.post('/roll', body)
    _, out, _ = cli('roll', '--luck', *argv)
    want = ([json.loads(line) for line in out.splitlines()] if '--json' in argv else
            [{'expression': 'd20', 'total': 17, 'text': out.rstrip('\n')}])
    check(f'/roll {body}: as roll --luck', st == 200 and data == {'rolls': want, 'seed': 8},
          f'{data}\nwant {want}')
check('/roll luck: d20 rolled 17 is 17/20 at most, 4/20 at least',
      data['rolls'][0]['text'].endswith('(luck: P(<= 17) 85%, P(>= 17) 20%)'), data)
st, _, data = s.post('/roll', {'expr': '200d1000', 'seed': 1, 'luck': True})
check('/roll luck refused: the roll all the same, and why',
      st == 200 and 'support limit' in data.get('luck_refused', '') and
      'luck' not in data['rolls'][0], data)
st, _, data = s.post('/roll', {'expr': '1d6', 'luck': 1})
check('/roll luck 1: 400', "field 'luck' must be true or false" in
      error_of(st, data, 400, 'luck 1')['message'], data)
st, _, data = s.post('/roll', {'expr': '1d6', 'format': 'html'})
check('/roll format html: 400', 'one of json, text, markdown' in
      error_of(st, data, 400, 'format html')['message'], data)
st, _, data = s.post('/dist', {'expr': '1d{1,1000000000} * 1d{1,1000000000} * 1d1000000'})
e = error_of(st, data, 422, '/dist past the work or support limit')
check('a limit names itself', 'limit' in e['message'], e)

# The body: malformed JSON is a 400 with its byte position in the body.
for body, at in [('{"expr": "3d6",}', 15), ('{"expr": "3d6"', 14), ('', 0),
                 ('{"expr": "3d6"} x', 16), ('\xff', 0)]:
    st, _, data = s.post('/roll', body.encode('latin-1'))
    e = error_of(st, data, 400, f'body {body!r}')
    check(f'body {body!r}: malformed JSON at byte {at}',
          e['message'].startswith('malformed JSON: ') and e['start'] == at, e)
for body, words in [([1], 'a JSON object'), ({'n': 2}, "missing field 'expr'"),
                    ({'expr': 3}, "field 'expr' must be a string"),
                    ({'expr': '1d6', 'n': 0}, "field 'n' must be a positive integer"),
                    ({'expr': '1d6', 'n': '3'}, "field 'n' must be"),
                    ({'expr': '1d6', 'seed': -1}, "field 'seed' must be"),
                    ({'expr': '1d6', 'seed': '12x'}, "field 'seed' must be"),
                    ({'expr': '1d6', 'dialect': 'bogus'}, "field 'dialect' must be one of"),
                    ({'expr': '1d6', 'exact': True}, "unknown field 'exact' (/roll takes"),
                    ({'expr': '1d6', 'colour': 1}, "unknown field 'colour'"),
                    ({'expr': '1d6', 'x' * 100: 1}, 'unknown field of 100 bytes')]:
    st, _, data = s.post('/roll', body)
    e = error_of(st, data, 400, f'/roll {str(body)[:60]}')
    check(f'/roll {str(body)[:60]}: {words}', words in e['message'], e)
st, _, data = s.post('/dist', {'expr': '3d6', 'exact': 'yes'})
check('/dist exact "yes"', "field 'exact' must be true or false" in
      error_of(st, data, 400, '/dist exact')['message'], data)
st, _, data = s.post('/roll', '{"expr": "1d6", "expr": "1d8"}')
check('a field twice', 'duplicate' in error_of(st, data, 400, 'duplicate')['message'], data)

# Paths and methods.
for method, path, want, allow in [('GET', '/roll', 405, 'POST'), ('PUT', '/dist', 405, 'POST'),
                                  ('POST', '/health', 405, 'GET, HEAD'),
                                  ('GET', '/', 404, None), ('POST', '/roll/', 404, None),
                                  ('DELETE', '/nope', 404, None)]:
    st, h, data = s.request(method, path, '{}' if method != 'GET' else None)
    error_of(st, data, want, f'{method} {path}')
    check(f'{method} {path}: Allow', h.get('Allow') == allow, h)

# Broken HTTP is answered or closed; the server goes on.
for junk in [b'GARBAGE\r\n\r\n', b'GET /health HTTP/1.1\r\nHost: x\r\nX: ' + b'a' * 100000 +
             b'\r\n\r\n', b'POST /roll HTTP/1.1\r\nContent-Length: -5\r\n\r\n']:
    got = s.raw(junk, end=True)
    check(f'broken HTTP {junk[:20]!r}: no success', not got.startswith(b'HTTP/1.1 2'), got[:80])
st, _, _ = s.request('GET', '/health')
check('healthy after broken HTTP', st == 200, st)

# Many clients at once, four from each of ten addresses (each may have
# --max-client-queue 4 requests at once): every answer right.
answers = []


def client(k):
    st, _, data = s.post('/roll', {'expr': '4d6kh3', 'seed': k}, source=f'127.0.0.{10 + k % 10}')
    answers.append(st == 200 and data['seed'] == k)


threads = [threading.Thread(target=client, args=(k,)) for k in range(40)]
for t in threads:
    t.start()
for t in threads:
    t.join()
check('40 clients at once', len(answers) == 40 and all(answers), answers)

# The curl examples of docs/cli.md's "Serving over HTTP" and of docs/serve.md,
# against this server: the body shown, where '...' stands for any text.
def doc(name):
    return open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'docs',
                             name), encoding='utf-8').read()


docs = doc('cli.md')
docs = docs[docs.index('### Serving over HTTP'):]
examples = re.findall(r'^\$ (curl .*)\n((?:(?!\$ |```).*\n)*)', docs, re.M)
check('docs/cli.md has curl examples', len(examples) >= 6, len(examples))
served = re.findall(r'^\$ (curl .*)\n((?:(?!\$ |```).*\n)*)', doc('serve.md'), re.M)
check('docs/serve.md has curl examples', len(served) >= 1, len(served))
examples += served
for cmd, shown in examples:
    words = shlex.split(cmd)
    body = words[words.index('-d') + 1] if '-d' in words else None
    path = '/' + words[-1].split('/', 3)[3]
    c = http.client.HTTPConnection('127.0.0.1', s.port, timeout=SLOW * 3)
    c.request('POST' if body is not None else 'GET', path, body=body,
              headers=dict(h.split(': ', 1) for h in words[words.index('-H') + 1:][:1])
              if '-H' in words else {})
    got = c.getresponse().read().decode().rstrip('\n')
    c.close()
    pattern = '.*'.join(map(re.escape, shown.rstrip('\n').split('...')))
    check(f'docs: {cmd}', re.fullmatch(pattern, got, re.S) is not None,
          f'shown:\n{shown}got:\n{got}')

# /compare: as compare --json, within one budget.
st, _, data = s.post('/compare', {'exprs': ['2d20kh1', '1d20+3']})
rc, out, _ = cli('compare', '--json', '2d20kh1', '1d20+3')
check('/compare: as compare --json', st == 200 and data == json.loads(out), f'{st} {data}')
st, _, data = s.post('/compare', {'exprs': ['d2', 'd3'], 'exact': True})
check('/compare: the distances of each column against the first, in fractions',
      st == 200 and data['versus'] == [{'a': 0, 'b': 1, 'p_greater': '1/6', 'p_equal': '1/3',
                                         'p_less': '1/2', 'tv': '1/3', 'ks': '1/3',
                                         'emd': '1/2'}], f'{st} {data}')
st, _, data = s.post('/compare', {'exprs': ['1d60000', '1d50000']})
check('/compare: the columns share the support limit', 'support limit' in
      error_of(st, data, 422, '/compare past support')['message'], data)
st, _, data = s.post('/compare', {'exprs': ['1d4', '1d+']})
check('/compare: the caret shows the bad expression', error_of(st, data, 422, '/compare 1d+')
      ['caret'] == '  1d+\n    ^\n', data)
for body in [{'exprs': []}, {'exprs': '1d6'}, {'expr': '1d6'}]:
    st, _, data = s.post('/compare', body)
    error_of(st, data, 400, f'/compare {body}')

# /table: as table --json, the library's table; errors with the caret under
# the text they are about; the cells limit at N and N + 1 (--max-cells).
st, _, data = s.post('/table', {'expr': 'd20 + m >= dc', 'sweeps': ['m=0..2', 'dc=10,15'],
                                'stats': ['mean', 'p>=1']})
rc, out, _ = cli('table', '--json', 'd20 + m >= dc', 'm=0..2', 'dc=10,15', '--stat', 'mean',
                 '--stat', 'p>=1')
check('/table: as table --json', st == 200 and data == json.loads(out), f'{st} {data}')
st, _, data = s.post('/table', {'expression': 'dd(m, 10, best)', 'sweeps': ['m=0..1'],
                                'stats': ['p>=2']})
rc, out, _ = cli('table', '--json', 'dd(m, 10, best)', 'm=0..1', '--stat', 'p>=2')
check('/table: "expression", and the values written into dd()', st == 200 and
      data == json.loads(out), f'{st} {data}')
st, _, data = s.post('/table', {'expr': 'd20 + n', 'sweeps': ['n=1..x']})
e = error_of(st, data, 422, '/table n=1..x')
check('/table: a bad sweep, its position and caret', e['status'] == 'ALEA_ERR_SYNTAX' and
      e['start'] == 2 and e['end'] == 6 and e['caret'] == '  n=1..x\n    ^^^^\n' and
      "bad range '1..x'" in e['message'], e)
st, _, data = s.post('/table', {'expr': 'd20 + n', 'sweeps': ['n=1'], 'stats': ['p>=x']})
check('/table: a bad stat', "a whole number after 'p>='" in
      error_of(st, data, 422, '/table p>=x')['message'], data)
for body in [{'expr': 'd20 + n'}, {'expr': 'd20 + n', 'sweeps': []},
             {'expr': 'd20 + n', 'sweeps': ['n=1'], 'stats': 'mean'}]:
    st, _, data = s.post('/table', body)
    error_of(st, data, 400, f'/table {body}')
cells = Server('--max-cells', '12')
st, _, data = cells.post('/table', {'expr': 'd4 + n + m', 'sweeps': ['n=1..3', 'm=1..4']})
check('/table: --max-cells 12, 12 cells', st == 200 and len(data['stats'][0]['cells']) == 3,
      f'{st} {data}')
st, _, data = cells.post('/table', {'expr': 'd4 + n + m', 'sweeps': ['n=1..3', 'm=0..4']})
check('/table: --max-cells 12, 15 refused', '3 x 5 = 15 cells, more than the cells limit (12)'
      in error_of(st, data, 422, '/table 15 cells')['message'], data)
cells.stop()
# /fairness: as fairness --json, from a list of rolls or the log's text.
log = ''.join(f'd20 {1 + i % 19}\n' for i in range(1500)) + '# the table\n3d6 10\n'
with open(os.path.join(os.environ.get('TMPDIR', '/tmp'), f'alea-fair-{os.getpid()}.log'),
          'w') as fl:
    fl.write(log)
rc, out, _ = cli('fairness', '--json', '--seed', '5', fl.name)
os.unlink(fl.name)
st, _, data = s.post('/fairness', {'text': log, 'seed': 5})
check('/fairness text: as fairness --json', st == 200 and data == json.loads(out) and
      data['verdict'] == 'not fair' and data['direction'] == 'low', f'{st} {data}')
rolls = [{'expression': 'd20', 'total': 1 + i % 19} for i in range(1500)] + \
    [{'expression': '3d6', 'total': 10}]
st, _, data2 = s.post('/fairness', {'rolls': rolls, 'seed': 5})
check('/fairness rolls: the same as the text', st == 200 and data2 == data, f'{st} {data2}')
st, _, data = s.post('/fairness', {'text': 'd20 3\nd20 21\n'})
e = error_of(st, data, 422, '/fairness d20 21')
check('/fairness: a refused line, its span in the text', e['message'] ==
      "line 2, byte 1: undefined result: 'd20' cannot total 21 (its totals run from 1 to 20)"
      and (e['start'], e['end']) == (6, 9) and e['caret'] == '  d20 21\n  ^^^\n', e)
st, _, data = s.post('/fairness', {'rolls': [{'expression': 'd6', 'total': 3},
                                             {'expression': '2d', 'total': 3}]})
e = error_of(st, data, 422, '/fairness 2d')
check('/fairness: a refused roll, by its index', e['message'].startswith('roll 1: ')
      and e['status'] == 'ALEA_ERR_SYNTAX', e)
for body in [{}, {'rolls': [], 'text': ''}, {'rolls': [{'expression': 'd6'}]},
             {'rolls': [{'expression': 'd6', 'total': 1.5}]}, {'text': 3},
             {'rolls': [{'expression': 'd6', 'total': 1, 'x': 1}]}]:
    st, _, data = s.post('/fairness', body)
    error_of(st, data, 400, f'/fairness {body}')
# /policy: as policy --json, the library's policy; an expression without a
# choice is the library's error with its caret; the answer within the
# response limit at N and N + 1.
for body, argv in [({'expr': 'dd(3, 14, best)'}, ['dd(3, 14, best)']),
                   ({'expression': 'dd(3, 14, onfail)', 'exact': True},
                    ['--exact', 'dd(3, 14, onfail)']),
                   ({'expr': 'dd(6, 14, always)', 'dialect': 'roll20'},
                    ['--dialect', 'roll20', 'dd(6, 14, always)'])]:
    st, _, data = s.post('/policy', body)
    rc, out, _ = cli('policy', '--json', *argv)
    check(f'/policy {body}: as policy --json', st == 200 and rc == 0 and
          data == json.loads(out), f'{st} {str(data)[:300]}')
st, _, data = s.post('/policy', {'expr': '3d6 + 1'})
e = error_of(st, data, 422, '/policy 3d6 + 1')
check('/policy: no choice, the caret under the expression', e['status'] == 'ALEA_ERR_INVALID'
      and 'no choice for the player in this expression' in e['message'] and
      (e['start'], e['end']) == (0, 7) and e['caret'] == '  3d6 + 1\n  ^^^^^^^\n', e)
st, _, data = s.post('/policy', {'expr': 'dd(3, 14, best'})
check('/policy: a syntax error', error_of(st, data, 422, '/policy dd(')['status'] ==
      'ALEA_ERR_SYNTAX', data)
for body in [{}, {'expr': 'dd(3, 14, best)', 'n': 2}, {'expr': 'dd(3, 14, best)', 'exact': 1},
             {'expr': ['dd(3, 14, best)']}]:
    st, _, data = s.post('/policy', body)
    error_of(st, data, 400, f'/policy {body}')
_, out, _ = cli('policy', '--json', 'dd(3, 14, best)')
for cap, want in [(len(out), 200), (len(out) - 1, 422)]:  # its JSON and a newline
    capped = Server('--max-response', str(cap))
    st, _, data = capped.post('/policy', {'expr': 'dd(3, 14, best)'})
    check(f'/policy: --max-response {cap}, an answer of {len(out)} bytes: {want}',
          st == want and (want == 200 or 'response limit' in data['error']['message']),
          f'{st} {data}')
    capped.stop()

# /openapi.json describes every route, and the answers match its schemas.
st, _, api = s.request('GET', '/openapi.json')
check('/openapi.json', st == 200 and api.get('openapi', '').startswith('3.') and
      set(api['paths']) == {'/roll', '/dist', '/compare', '/table', '/fairness', '/policy',
                            '/health', '/openapi.json'}, st)
schemas = api['components']['schemas'] if st == 200 else {}


def valid(v, sch, where='$'):
    """The first place where v breaks the schema sch (the keywords the
    document uses), or None."""
    if '$ref' in sch:
        return valid(v, schemas[sch['$ref'].rsplit('/', 1)[1]], where)
    if 'oneOf' in sch:
        ok = [s for s in sch['oneOf'] if valid(v, s, where) is None]
        return None if len(ok) == 1 else f'{where}: {len(ok)} of oneOf match'
    if v is None:
        return None if sch.get('nullable') else f'{where}: null'
    kinds = {'object': dict, 'array': list, 'string': str, 'boolean': bool,
             'integer': int, 'number': (int, float)}
    t = sch.get('type')
    if t and (not isinstance(v, kinds[t]) or (t in ('integer', 'number') and
                                               isinstance(v, bool))):
        return f'{where}: not {t}: {str(v)[:40]}'
    if 'enum' in sch and v not in sch['enum']:
        return f'{where}: {v} not in {sch["enum"]}'
    if 'pattern' in sch and not re.search(sch['pattern'], v):
        return f'{where}: {v} does not match {sch["pattern"]}'
    if 'minimum' in sch and v < sch['minimum']:
        return f'{where}: {v} below {sch["minimum"]}'
    if t == 'array':
        if len(v) < sch.get('minItems', 0) or len(v) > sch.get('maxItems', len(v)):
            return f'{where}: {len(v)} items'
        for i, x in enumerate(v):
            bad = valid(x, sch.get('items', {}), f'{where}[{i}]')
            if bad:
                return bad
    if t == 'object':
        for k in sch.get('required', []):
            if k not in v:
                return f'{where}: no {k}'
        for k, x in v.items():
            if k in sch.get('properties', {}):
                bad = valid(x, sch['properties'][k], f'{where}.{k}')
                if bad:
                    return bad
            elif sch.get('additionalProperties') is False:
                return f'{where}: {k} is not in the schema'
    return None


for method, path, body, want, schema in [
        ('POST', '/roll', {'expr': '4d6kh3 # str', 'n': 2}, 200, 'Rolls'),
        ('POST', '/roll', {'expr': 'dd(6, 14, always)', 'format': 'markdown'}, 200, 'Rolls'),
        ('POST', '/dist', {'expr': '3d6'}, 200, 'Dist'),
        ('POST', '/roll', {'expr': '1d20 adv'}, 200, 'Rolls'),
        ('POST', '/roll', {'expr': 'let a = d20 in if(a >= 11 and not (a = 20), a, 0) + sum(3, d4)'},
         200, 'Rolls'),
        ('POST', '/dist', {'expr': 'if((d20) >= 11, 2d6, 0)'}, 200, 'Dist'),
        ('POST', '/dist', {'expr': '3d6', 'exact': True}, 200, 'Dist'),
        ('POST', '/compare', {'exprs': ['1d6', '2d6']}, 200, 'Compare'),
        ('POST', '/table', {'expr': 'd6 + n', 'sweeps': ['n=1..2', 'm=0'], 'stats': ['p50']},
         422, 'Error'),
        ('POST', '/table', {'expr': 'd6 + n * m', 'sweeps': ['n=1..2', 'm=0..1'],
                            'stats': ['p50', 'mean']}, 200, 'Table'),
        ('POST', '/fairness', {'rolls': [{'expression': 'd6', 'total': 1 + i % 6}
                                         for i in range(60)], 'seed': 1}, 200, 'Fairness'),
        ('POST', '/fairness', {'text': 'd6 1\nd6 2\n'}, 200, 'Fairness'),
        ('POST', '/policy', {'expr': 'dd(3, 14, best)'}, 200, 'Policy'),
        ('POST', '/policy', {'expression': 'dd(6, 14, always)', 'exact': True}, 200, 'Policy'),
        ('POST', '/policy', {'expr': '3d6'}, 422, 'Error'),
        ('GET', '/health', None, 200, 'Health'),
        ('POST', '/roll', {'expr': '2d+3'}, 422, 'Error'),
        ('POST', '/roll', {'expr': 1}, 400, 'Error'),
        ('GET', '/roll', None, 405, 'Error'),
        ('GET', '/nope', None, 404, 'Error')]:
    st, _, data = s.request(method, path, body)
    req = api['paths'].get(path, {}).get(method.lower(), {})
    bad = valid(body, req['requestBody']['content']['application/json']['schema']) \
        if body and want == 200 else None
    check(f'{method} {path} {body}: its request is in the document', bad is None, bad)
    check(f'{method} {path} {body}: {want}, as the document says', st == want and
          valid(data, {'$ref': '#/components/schemas/' + schema}) is None,
          f'{st} {valid(data, {"$ref": "#/components/schemas/" + schema})}')

# docs/serve.md's bot, run against this server with the input shown: it
# writes what the page shows.
page = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'docs',
                         'serve.md'), encoding='utf-8').read()
bot = re.search(r'^```python\n(.*?)^```$', page, re.S | re.M).group(1)
lines = re.search(r'these lines on its input:\n\n```text\n(.*?)```', page, re.S).group(1)
shown = re.search(r'it writes:\n\n````text\n(.*?)````', page, re.S).group(1)
r = subprocess.run([sys.executable, '-c', bot], input=lines, capture_output=True, text=True,
                   timeout=SLOW * 3, env=dict(os.environ, ALEA_URL=f'http://127.0.0.1:{s.port}'))
check("docs/serve.md: the bot's replies", r.stdout == shown, f'{r.stdout}{r.stderr}')

rc, err = s.stop(signal.SIGINT)
check('SIGINT stops it with status 0', rc == 0 and 'stopped by SIGINT' in err, f'{rc} {err}')

# ---- the caps: body, answer, connections, dice ------------------------------------
_, one_d6, _ = cli('dist', '--json', '1d6')
answer_max = len(one_d6)  # the answer to {"expr": "1d6"}: its JSON and a newline
small = Server('--max-request', '100', '--max-response', str(answer_max), '--max-connections',
               '2', '--threads', '2', '--idle-timeout', '30')


def padded(size):
    body = '{"expr": "1d6"}'
    return body[:-1] + ' ' * (size - len(body)) + '}'


st, _, data = small.post('/dist', padded(100))
check('a body at --max-request: answered', st == 200 and len(padded(100)) == 100, st)
st, _, data = small.post('/dist', padded(101))
e = error_of(st, data, 413, 'a body one byte past --max-request')
check('413 names the limit', '--max-request 100' in e['message'], e)
got = small.raw(b'POST /roll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
                b'Content-Length: 1000000000000\r\n\r\n')
check('a declared terabyte: 413 before any of it', got.startswith(b'HTTP/1.1 413'), got[:80])


def chunked(size):
    body = padded(size).encode()
    return (b'POST /dist HTTP/1.1\r\nHost: x\r\nConnection: close\r\n'
            b'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
            b'%x\r\n' % len(body) + body + b'\r\n0\r\n\r\n')


got = small.raw(chunked(100))
check('chunked at the limit: answered', got.startswith(b'HTTP/1.1 200'), got[:80])
got = small.raw(chunked(101))
check('chunked one byte past: 413', got.startswith(b'HTTP/1.1 413'), got[:80])
for size in [1000, 1000000]:  # drained, then past DRAIN_TIMES the limit: written at once
    got = small.raw(chunked(size))
    check(f'chunked body of {size} bytes: 413', got.startswith(b'HTTP/1.1 413') and
          b'--max-request 100' in got, got[:80])

st, _, data = small.post('/dist', {'expr': '1d6'})
check('an answer at --max-response', st == 200 and len(json.dumps(data)) + 1 == answer_max, st)
st, _, data = small.post('/dist', {'expr': '1d6 '})  # the expression's text is one byte longer
e = error_of(st, data, 422, 'an answer one byte past --max-response')
check('422 names the limit', f'--max-response {answer_max}' in e['message'], e)
st, _, data = small.post('/roll', {'expr': '1d6', 'n': 1000000})
error_of(st, data, 422, 'many rolls past --max-response')


# --max-connections 2: two silent connections hold both; a third request waits
# in the listen queue until one of them ends, then it is answered.
idle = [socket.create_connection(('127.0.0.1', small.port)) for _ in range(2)]
time.sleep(1)
third = socket.create_connection(('127.0.0.1', small.port))
third.sendall(b'GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
third.settimeout(1)
try:
    early = third.recv(100)
except socket.timeout:
    early = None
check('a third connection past --max-connections 2 waits', early is None, early)
idle[0].close()
third.settimeout(SLOW)
try:
    late = third.recv(100)
except socket.timeout:
    late = b''
check('and is answered when one ends', late.startswith(b'HTTP/1.1 200'), late)
third.close()
idle[1].close()
rc, err = small.stop()
check('SIGTERM stops it with status 0', rc == 0 and 'stopped by SIGTERM' in err, f'{rc} {err}')

# ---- the deadline --------------------------------------------------------------------
slow = Server('--timeout', '50', '--max-work', '1000000000000', '--max-support', '1000000',
              '--max-response', '1073741824', '--idle-timeout', '1', '--max-dice', '10')
dice = Server('--max-dice', '10', '--timeout', str(SLOW * 1000))
st, _, _ = dice.post('/roll', {'expr': '10d6'})
check('--max-dice 10: 10d6', st == 200, st)
st, _, data = dice.post('/roll', {'expr': '11d6'})
check('--max-dice 10: 11d6', 'dice limit is 10' in error_of(st, data, 422, '11d6')['message'],
      data)
dice.stop()
few = Server('--max-rolls', '3', '--timeout', str(SLOW * 1000))
st, _, data = few.post('/fairness', {'text': 'd6 1\nd6 2\n{"expression": "d6", "total": 3}\n'})
check('--max-rolls 3: 3 rolls', st == 200 and data['rolls'] == 3, f'{st} {data}')
st, _, data = few.post('/fairness', {'rolls': [{'expression': 'd6', 'total': 1}] * 4})
check('--max-rolls 3: 4 rolls', 'at most 3 a request' in
      error_of(st, data, 422, '--max-rolls 3: 4')['message'], data)
few.stop()
t0 = time.monotonic()
st, _, data = slow.post('/dist', {'expr': '200d1000'})
e = error_of(st, data, 503, 'a distribution past the deadline')
check('503 names the deadline', '--timeout 50 ms' in e['message'], e)
st, _, data = slow.post('/roll', {'expr': '1d6', 'n': 1000000000})
error_of(st, data, 503, 'a billion rolls past the deadline')
check('both stopped soon', time.monotonic() - t0 < SLOW, time.monotonic() - t0)
quiet = socket.create_connection(('127.0.0.1', slow.port))
quiet.settimeout(SLOW)
t0 = time.monotonic()
try:
    closed = quiet.recv(10) == b''
except (socket.timeout, ConnectionResetError):
    closed = False
check('a silent connection is closed after --idle-timeout 1',
      closed and 0.5 < time.monotonic() - t0 < SLOW, time.monotonic() - t0)
quiet.close()
t0 = time.monotonic()
got = slow.raw(b'\x00' * 1000)
check('bytes that are no HTTP are closed after --idle-timeout 1',
      got == b'' and time.monotonic() - t0 < SLOW, time.monotonic() - t0)
rc, err = slow.stop()
check('stopped', rc == 0, err)

# ---- the output limit: the library's refusal, as the command line's ---------------
# 3d6's JSON is 516 bytes: at --max-output 516 it is answered, at 515 refused
for limit in (516, 515):
    out_srv = Server('--max-output', str(limit))
    st, _, data = out_srv.post('/dist', {'expr': '3d6'})
    rc, out, err = cli('dist', '--json', '--max-output', str(limit), '3d6')
    if limit == 516:
        check('/dist at --max-output 516: answered', st == 200 and data == json.loads(out),
              f'{st} {data}')
    else:
        e = error_of(st, data, 422, '/dist past --max-output')
        want = "too much output: the distribution's JSON passes 515 bytes (output limit is 515)"
        check('/dist past --max-output: the library\'s message, as dist --json says it',
              e['message'] == want and e['start'] == 0 and e['end'] == 3 and
              rc == 1 and f'alea: {want}' in err, f'{e}\n{err}')
    out_srv.stop()

# ---- usage -----------------------------------------------------------------------
rc, _, err = cli('serve', '3d6')
check('serve takes no expression', rc == 2 and 'serve takes no expression' in err, err)
rc, _, err = cli('serve', '--bind', 'localhost')
check('--bind takes an address', rc == 2 and "'localhost' is not an IPv4 or IPv6" in err, err)
rc, _, err = cli('serve', '--tail', '0.5')
check('serve --tail out of range', rc == 2 and '--tail: 0.5 is outside' in err, err)
for opt, bad in [('--port', '65536'), ('--max-connections', '0'), ('--max-request', '4194305'),
                 ('--max-response', '0'), ('--idle-timeout', '0'), ('--threads', '65')]:
    rc, _, err = cli('serve', opt, bad)
    check(f'serve {opt} {bad}: a usage error', rc == 2 and f"{opt}: '{bad}' is not" in err, err)
taken = Server()
rc, _, err = cli('serve', '--port', str(taken.port))
check('a port in use: status 1, said', rc == 1 and 'cannot listen' in err, err)
taken.stop()

finish()
