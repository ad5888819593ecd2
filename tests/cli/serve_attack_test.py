#!/usr/bin/env python3
"""serve_attack_test.py ALEA -- alea serve under hostile traffic, on loopback.

The attacks of issue 26, each bounded in count and time and stopping by
itself: slow headers, unread answers, expensive loops from 8 clients, a
request past its deadline, smuggling, wrong content types, malformed
requests that would grow the log, and 20,000 mixed requests. Clients are
told apart by their source address: the attackers and the others use
different addresses of 127.0.0.0/8, all on this machine.

It asserts mechanisms and bounds that hold with a wide margin on a busy
2-core machine (a status, a connection closed, a peak RSS, an answer within
seconds where main took tens); the latencies themselves are measured by
bench/serve.py --attacks. Prints 'N passed, M failed'.
"""
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

from helpers import check, finish

ALEA = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)


class Server:
    """alea serve --port 0 ARGS; its port from its first line."""

    def __init__(self, *args):
        self.p = subprocess.Popen([ALEA, 'serve', '--port', '0', *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.p.stdout], [], [], 30)
        line = self.p.stdout.readline() if ready else ''
        if not line.startswith('listening on http://127.0.0.1:'):
            self.p.kill()
            sys.exit(f'alea serve {args} did not start: {line!r}')
        self.port = int(line.rsplit(':', 1)[1].strip('/\n'))

    def connect(self, source='127.0.0.1'):
        s = socket.create_connection(('127.0.0.1', self.port), timeout=30,
                                     source_address=(source, 0))
        return s

    def request(self, method, path, body=None, source='127.0.0.1', headers=None, timeout=30):
        """(status, headers, JSON body or bytes, seconds taken)."""
        t0 = time.monotonic()
        c = http.client.HTTPConnection('127.0.0.1', self.port, timeout=timeout,
                                       source_address=(source, 0))
        if isinstance(body, dict):
            body = json.dumps(body)
        if headers is None:
            headers = {'Content-Type': 'application/json'} if body is not None else {}
        try:
            c.request(method, path, body=body, headers=headers)
            r = c.getresponse()
            data = r.read()
            status, h = r.status, dict(r.getheaders())
        except (OSError, http.client.HTTPException) as e:
            status, h, data = None, {}, str(e).encode()
        c.close()
        try:
            data = json.loads(data)
        except ValueError:
            pass
        return status, h, data, time.monotonic() - t0

    def raw(self, data, source='127.0.0.1', wait=10):
        """Sends bytes, ends the sending side, reads until closed."""
        s = self.connect(source)
        s.settimeout(wait)
        got = b''
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except OSError:
            pass
        s.close()
        return got

    def peak_rss_mb(self):
        with open(f'/proc/{self.p.pid}/status') as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024
        return 0

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            _, err = self.p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            _, err = self.p.communicate()
        return self.p.returncode, err


def closed_at_once(s, wait=2.0):
    """Whether the server closed s (EOF or reset) within wait seconds."""
    s.settimeout(wait)
    try:
        return s.recv(100) == b''
    except ConnectionResetError:
        return True
    except (socket.timeout, OSError):
        return False


def roll_1d20(srv, source='127.0.0.1'):
    st, _, data, took = srv.request('POST', '/roll', {'expr': '1d20'}, source=source)
    return st == 200 and 1 <= data['rolls'][0]['total'] <= 20, took


# ---- 1. slow headers: a cap per address, a bound on a request's arrival --------
srv = Server('--max-client-connections', '8', '--request-timeout', '3')
# --max-client-connections at N and N + 1: eight held from one address, the
# ninth closed as it is accepted, one from another address served.
held = [srv.connect('127.0.0.2') for _ in range(8)]
for s in held:
    s.sendall(b'P')
time.sleep(0.3)
ninth = srv.connect('127.0.0.2')
check('a ninth connection from one address is closed at once', closed_at_once(ninth))
ninth.close()
check('the eight are still open', not any(closed_at_once(s, 0.05) for s in held))
ok, took = roll_1d20(srv)
check('another address is answered while one holds its eight', ok and took < 5, took)
# 32 connections sending a byte every 0.5 s from one address: main held
# /health behind them for as long as they went on (28.8 s).
slow = []
for s in held:
    s.close()
time.sleep(0.2)
for _ in range(32):
    try:
        s = srv.connect('127.0.0.3')
        s.sendall(b'P')
        slow.append(s)
    except OSError:
        pass
t_start = time.monotonic()
worst = 0
cut = []
for k in range(8):  # 4 s of the attack, the --request-timeout of 3 s within it
    time.sleep(0.5)
    for s in slow:
        if s in cut:
            continue
        try:
            s.sendall(b'O')
        except OSError:
            cut.append(s)
    st, _, _, took = srv.request('GET', '/health')
    ok, took2 = roll_1d20(srv)
    worst = max(worst, took, took2)
    check(f'/health and 1d20 answered during slow headers ({k})', st == 200 and ok, st)
check('answers during slow headers within seconds (main: 28.8 s)', worst < 3, worst)
answers = []
for s in slow:
    try:
        s.settimeout(3)
        answers.append(s.recv(200))
    except OSError as e:
        answers.append(str(e).encode())
    s.close()
n408 = sum(a.startswith(b'HTTP/1.1 408') for a in answers)
check('slow requests past --request-timeout 3 get 408, the rest were closed at once',
      n408 <= 8 and n408 >= 1 and time.monotonic() - t_start < 15, (n408, answers[:3]))
# --request-timeout at N and N + 1 (seconds): headers over 1.5 s arrive, over 4.5 s do not
fast = Server('--request-timeout', '3')
for spread, want in [(1.5, b'HTTP/1.1 200'), (4.5, b'HTTP/1.1 408')]:
    s = fast.connect()
    req = b'GET /health HTTP/1.1\r\nHost: x\r\n\r\n'
    got = b''
    try:
        for i, byte in enumerate(req):
            s.sendall(bytes([byte]))
            time.sleep(spread / len(req))
    except OSError:
        pass  # cut: what it answered is there to read
    try:
        s.settimeout(5)
        got = s.recv(200)
    except OSError:
        pass
    s.close()
    check(f'headers sent over {spread} s with --request-timeout 3: {want[9:].decode()}',
          got.startswith(want), got[:60])
fast.stop()
srv.stop()

# ---- 2. unread answers: --max-pending and --write-timeout ---------------------
big = json.dumps({'expr': '100d6', 'n': 1600}).encode()
post_big = (b'POST /roll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
            b'Content-Length: %d\r\n\r\n' % len(big) + big)
srv = Server('--write-timeout', '3')
unread = []
for k in range(32):  # 4 addresses, 8 connections each: never read
    s = srv.connect(f'127.0.0.{20 + k // 8}')
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(post_big)
    unread.append(s)
time.sleep(3)
rss = srv.peak_rss_mb()
check('32 unread answers of 7 MB: the server stays under 64 MB (main: 253.5 MB)', rss < 64, rss)
st, _, _, _ = srv.request('GET', '/health')
check('healthy while answers go unread', st == 200, st)
time.sleep(2)  # --write-timeout 3 has closed them
for s in unread:
    s.close()
time.sleep(0.5)
st, _, data, _ = srv.request('POST', '/roll', {'expr': '100d6', 'n': 1600})
check('their memory is free after --write-timeout: a big answer again', st == 200, st)
srv.stop()
# --write-timeout 2: an answer read at once arrives whole; one left unread
# for 3 s is cut.
srv = Server('--write-timeout', '2')


def read_big(pause):
    s = srv.connect()
    if pause:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(post_big)
    time.sleep(pause)
    s.settimeout(10)
    got, want = b'', None
    try:
        while want is None or len(got) < want:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            got += chunk
            head, sep, _ = got.partition(b'\r\n\r\n')
            if sep and want is None:
                length = [x for x in head.split(b'\r\n') if x.lower().startswith(
                    b'content-length:')]
                want = len(head) + 4 + int(length[0].split(b':')[1]) if length else None
    except OSError:
        pass
    s.close()
    return got


whole = read_big(0)
check('--write-timeout 2: an answer read at once arrives whole', whole.startswith(
    b'HTTP/1.1 200') and whole.rstrip().endswith(b'}'), whole[-40:])
cut = read_big(3)
check('--write-timeout 2: an answer left unread for 3 s is cut', len(cut) < len(whole),
      (len(cut), len(whole)))
srv.stop()
# --max-pending at N and N + 1: an answer of N bytes is sent, of N + 1 refused
probe = Server()
_, _, d1, _ = probe.request('POST', '/dist', {'expr': '1d6'})
probe.stop()
size = len(json.dumps(d1)) + 1
for limit, want in [(size, 200), (size - 1, 503)]:
    srv = Server('--max-pending', str(limit))
    st, h, data, _ = srv.request('POST', '/dist', {'expr': '1d6'})
    check(f'an answer of {size} bytes with --max-pending {limit}: {want}', st == want and
          (want == 200 or '--max-pending' in data['error']['message']), (st, data))
    srv.stop()

# ---- 3. expensive loops from 8 clients: a share per address --------------------
srv = Server('--threads', '2')
statuses = []
cheap_done = threading.Event()


def expensive(source):
    while not cheap_done.is_set():
        st, _, _, _ = srv.request('POST', '/dist', {'expr': '1d500 * 1d500'}, source=source)
        statuses.append(st)


loops = [threading.Thread(target=expensive, args=(f'127.0.0.{30 + k}',)) for k in range(8)]
for t in loops:
    t.start()
# The loops' first requests are each client's first: a client counts as
# expensive once it has used a worker for a while. Then 12 cheap rolls, one
# after another, while the loops go on (a count, not a window of time: a
# busy machine takes longer, it does not fail); the median is the check,
# against the 1.88 s of a server without a share per client.
time.sleep(1.5)
cheap = []
give_up = time.monotonic() + 60
while len(cheap) < 12 and time.monotonic() < give_up:
    ok, took = roll_1d20(srv)
    cheap.append(took if ok else 99)
cheap_done.set()
for t in loops:
    t.join()
cheap.sort()
check('a cheap roll is answered among 8 expensive loops (main: median 1.88 s)',
      len(cheap) == 12 and cheap[len(cheap) // 2] < 1, (len(cheap), cheap[len(cheap) // 2]))
# each answered: computed, or at its deadline where the build is slow (the
# sanitizers' build runs them to it)
check('the expensive loops were answered too',
      sum(st in (200, 503) for st in statuses) >= 8, statuses[:10])
srv.stop()
# --max-client-queue and --max-queue at N and N + 1: requests that run to
# their deadline (800 ms), one thread.
slow_body = {'expr': '200d1000'}
raised = ['--threads', '1', '--timeout', '800', '--max-work', '1000000000000', '--max-support',
          '1000000']
for n_queue, per_client, sources, want in [
        (8, 2, ['127.0.0.40'] * 2, [503, 503]),
        (8, 2, ['127.0.0.40'] * 3, [503, 503, 429]),
        (2, 8, ['127.0.0.41', '127.0.0.42'], [503, 503]),
        (2, 8, ['127.0.0.41', '127.0.0.42', '127.0.0.43'], [503, 503, 503])]:
    srv = Server('--max-queue', str(n_queue), '--max-client-queue', str(per_client), *raised)
    got = [None] * len(sources)

    def send(i):
        if i:
            time.sleep(0.2 * i)  # in this order
        st, _, data, _ = srv.request('POST', '/dist', slow_body, source=sources[i])
        got[i] = (st, data['error']['message'] if isinstance(data, dict) else data)

    ts = [threading.Thread(target=send, args=(i,)) for i in range(len(sources))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    statuses = [g[0] for g in got]
    last = got[-1][1]
    name = (f'--max-queue {n_queue} --max-client-queue {per_client}: {len(sources)} '
            f'requests from {len(set(sources))} addresses')
    if len(sources) == 3:
        flag = '--max-client-queue 2' if per_client == 2 else '--max-queue 2'
        check(name + ': the last refused, naming the limit', statuses == want and flag in last,
              got)
    else:
        check(name + ': all admitted, stopped at their deadline', statuses == want and
              all('--timeout 800' in g[1] for g in got), got)
    srv.stop()

# ---- 4. the deadline: answered at it, and the evaluation stopped there ----
srv = Server('--timeout', '1000', '--max-work', '1000000000000', '--max-memory', '64M',
             '--threads', '1')
# (300d100kh150 was the case until the keep in fractions learned to count its
# digits first: under 64M it is now refused at once)
st, _, data, took = srv.request('POST', '/dist', {'expr': '200d100kh100', 'exact': True})
check('a 1000 ms deadline: 503 within 1.5 s (main: 8 s)',
      st == 503 and took < 1.5 and '--timeout 1000' in data['error']['message'], (st, took))
# the evaluation polls the deadline as it goes, so the one thread is free
# again at once: the roll behind it is answered (main: a 503, 8 s later)
ok, took = roll_1d20(srv)
check('a roll behind it: answered, the worker freed at the deadline', ok and took < 2.5, took)
srv.stop()

# ---- 5. HTTP details --------------------------------------------------------------
srv = Server()
body = b'{"expr": "1d6"}'


def post(headers, data=body):
    return srv.raw(b'POST /roll HTTP/1.1\r\nHost: x\r\n' + headers + b'\r\n' + data)


for name, headers, want in [
        ('two different Content-Length', b'Content-Type: application/json\r\n'
         b'Content-Length: 15\r\nContent-Length: 5\r\n', b'400'),
        ('Content-Length and chunked', b'Content-Type: application/json\r\n'
         b'Content-Length: 15\r\nTransfer-Encoding: chunked\r\n', b'400'),
        ('the same Content-Length twice', b'Content-Type: application/json\r\n'
         b'Content-Length: 15\r\nContent-Length: 15\r\n', b'200'),
        ('text/plain', b'Content-Type: text/plain\r\nContent-Length: 15\r\n', b'415'),
        ('a form', b'Content-Type: application/x-www-form-urlencoded\r\n'
         b'Content-Length: 15\r\n', b'415'),
        ('no Content-Type', b'Content-Length: 15\r\n', b'415'),
        ('application/json; charset=utf-8', b'Content-Type: Application/JSON; charset=utf-8'
         b'\r\nContent-Length: 15\r\n', b'200'),
        ('a web page (Origin)', b'Content-Type: application/json\r\nOrigin: http://evil.test\r\n'
         b'Content-Length: 15\r\n', b'403')]:
    got = post(headers)
    check(f'{name}: {want.decode()}', got.startswith(b'HTTP/1.1 ' + want) and
          b'Access-Control-Allow' not in got, got[:120])
got = srv.raw(b'OPTIONS /roll HTTP/1.1\r\nHost: x\r\nOrigin: http://evil.test\r\n'
              b'Access-Control-Request-Method: POST\r\n\r\n')
check('a preflight is refused, without CORS headers', not got.startswith(b'HTTP/1.1 2') and
      b'Access-Control-Allow' not in got, got[:120])
mb = b'{"expr": "1d6"' + b' ' * 1000000 + b'}'
got = srv.raw(b'POST /roll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
              b'Transfer-Encoding: chunked\r\n\r\n' + b'%x\r\n' % len(mb) + mb + b'\r\n0\r\n\r\n')
check('a 1 MB chunked body: 413 (main: closed unanswered)', got.startswith(b'HTTP/1.1 413') and
      b'--max-request 65536' in got, got[:80])
srv.stop()
# --log-limit at N and N + 1: a malformed request makes two lines of
# libmicrohttpd; the rest are counted.
for limit in [2, 3]:
    srv = Server('--log-limit', str(limit))
    for _ in range(5):
        srv.raw(b'POST /roll HTTP/1.1\r\nContent-Length: -5\r\n\r\n')
    rc, err = srv.stop()
    lines = [x for x in err.splitlines() if x.startswith('alea: serve: ') and
             'left out' not in x and 'stopped by' not in x]
    check(f'--log-limit {limit}: {limit} lines, the other {10 - limit} counted',
          len(lines) == limit and f'{10 - limit} messages of the HTTP server were left out' in err,
          err)

# ---- 6. 20,000 mixed requests --------------------------------------------------------
srv = Server()
mix = [('POST', '/roll', {'expr': '4d6kh3'}, 200), ('POST', '/dist', {'expr': '3d6'}, 200),
       ('POST', '/roll', {'expr': '2d+3'}, 422), ('POST', '/roll', '{"expr": ', 400),
       ('GET', '/health', None, 200), ('GET', '/nope', None, 404),
       ('POST', '/dist', {'expr': '1d100001'}, 422), ('GET', '/roll', None, 405)]
wrong = []
count = [0]
deadline = time.monotonic() + 90


def mixed(k):
    c = http.client.HTTPConnection('127.0.0.1', srv.port, timeout=30,
                                   source_address=(f'127.0.0.{50 + k}', 0))
    for i in range(2500):
        if time.monotonic() > deadline:
            break
        method, path, body, want = mix[(i + k) % len(mix)]
        if isinstance(body, dict):
            body = json.dumps(body)
        try:
            c.request(method, path, body=body, headers={'Content-Type': 'application/json'}
                      if body is not None else {})
            r = c.getresponse()
            r.read()
            if r.status != want:
                wrong.append((path, body, r.status))
            if r.getheader('Connection', '').lower() == 'close':
                c.close()
        except (OSError, http.client.HTTPException) as e:
            wrong.append((path, body, str(e)))
            c.close()
        count[0] += 1
    c.close()


t0 = time.monotonic()
ts = [threading.Thread(target=mixed, args=(k,)) for k in range(8)]
for t in ts:
    t.start()
for t in ts:
    t.join()
took = time.monotonic() - t0
check('20,000 mixed requests from 8 clients, each with its status', count[0] == 20000 and
      not wrong, (count[0], wrong[:5]))
print(f'20,000 mixed requests: {count[0] / took:.0f} requests/s, peak RSS '
      f'{srv.peak_rss_mb():.1f} MB')
st, _, _, _ = srv.request('GET', '/health')
check('healthy after them', st == 200, st)
rc, err = srv.stop()
check('stopped with status 0', rc == 0, err)

finish()
