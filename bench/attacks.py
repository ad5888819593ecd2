"""attacks.py -- the attacks of issue 26 on alea serve, measured (bench/serve.py --attacks).

Each attack runs for a bounded time against a fresh server started with
the default options; meanwhile a prober at 127.0.0.1 sends a /health and a
1d20 roll every 100 ms (each with a 30 s timeout) and keeps their latencies.
The attackers use other loopback addresses. Prints a markdown table.
"""
import http.client
import json
import socket
import threading
import time

PROBE_EVERY = 0.1


def peak_rss_mb(pid):
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float('nan')


def request(port, method, path, body=None, source='127.0.0.1', timeout=30):
    c = http.client.HTTPConnection('127.0.0.1', int(port), timeout=timeout,
                                   source_address=(source, 0))
    try:
        c.request(method, path, body=json.dumps(body) if body is not None else None,
                  headers={'Content-Type': 'application/json'} if body is not None else {})
        r = c.getresponse()
        r.read()
        return r.status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        c.close()


class Prober(threading.Thread):
    """Cheap requests every PROBE_EVERY seconds until stopped."""

    def __init__(self, port):
        super().__init__()
        self.port, self.lat, self.bad, self.done = port, [], 0, False

    def run(self):
        while not self.done:
            for method, path, body in [('GET', '/health', None),
                                       ('POST', '/roll', {'expr': '1d20'})]:
                t = time.perf_counter()
                st = request(self.port, method, path, body)
                self.lat.append(time.perf_counter() - t)
                self.bad += st != 200
            time.sleep(PROBE_EVERY)

    def stop(self):
        self.done = True
        self.join()
        lat = sorted(self.lat) or [float('nan')]
        return (lat[len(lat) // 2] * 1000, lat[min(len(lat) - 1, len(lat) * 99 // 100)] * 1000,
                lat[-1] * 1000, len(lat), self.bad)


def slow_headers(port, seconds):
    socks = []
    for _ in range(32):
        try:
            s = socket.create_connection(('127.0.0.1', int(port)), timeout=5,
                                         source_address=('127.0.0.2', 0))
            socks.append(s)
        except OSError:
            pass
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for s in socks:
            try:
                s.sendall(b'G')
            except OSError:
                pass
        time.sleep(2)
    for s in socks:
        s.close()
    return ''


def unread_answers(port, seconds):
    big = json.dumps({'expr': '100d6', 'n': 1600}).encode()
    req = (b'POST /roll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
           b'Content-Length: %d\r\n\r\n' % len(big) + big)
    socks = []
    for k in range(32):
        try:
            s = socket.create_connection(('127.0.0.1', int(port)), timeout=5,
                                         source_address=(f'127.0.0.{20 + k // 8}', 0))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(req)
            socks.append(s)
        except OSError:
            pass
    time.sleep(seconds)
    for s in socks:
        s.close()
    return ''


def expensive_loops(port, seconds):
    end = time.monotonic() + seconds
    count = [0]

    def loop(k):
        while time.monotonic() < end:
            if request(port, 'POST', '/dist', {'expr': '1d500 * 1d500'},
                       source=f'127.0.0.{30 + k}') == 200:
                count[0] += 1

    ts = [threading.Thread(target=loop, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return f'{count[0] / seconds:.1f} expensive answers/s'


def deadline(port, seconds):
    t = time.perf_counter()
    st = request(port, 'POST', '/dist', {'expr': '200d100kh100', 'exact': True})
    took = (time.perf_counter() - t) * 1000
    time.sleep(seconds)
    return f'{st} after {took:.0f} ms (deadline 1000 ms)'


def mixed(port, seconds):
    mix = [('POST', '/roll', {'expr': '4d6kh3'}), ('POST', '/dist', {'expr': '3d6'}),
           ('POST', '/roll', {'expr': '2d+3'}), ('GET', '/health', None),
           ('GET', '/nope', None), ('POST', '/dist', {'expr': '1d100001'})]
    count = [0]

    def client(k):
        c = http.client.HTTPConnection('127.0.0.1', int(port), timeout=30,
                                       source_address=(f'127.0.0.{50 + k}', 0))
        for i in range(2500):
            method, path, body = mix[(i + k) % len(mix)]
            try:
                c.request(method, path, body=json.dumps(body) if body else None,
                          headers={'Content-Type': 'application/json'} if body else {})
                c.getresponse().read()
                count[0] += 1
            except (OSError, http.client.HTTPException):
                c.close()

    t = time.perf_counter()
    ts = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    return f'{count[0]} answered, {count[0] / (time.perf_counter() - t):.0f} requests/s'


ATTACKS = [
    ('slow headers: 32 connections, a byte every 2 s, 10 s', slow_headers, 10, []),
    ('unread answers: 32 of 7 MB, held 6 s', unread_answers, 6, []),
    ('8 clients looping `1d500 * 1d500`, 8 s', expensive_loops, 8, []),
    ('`200d100kh100` exact past a 1000 ms deadline', deadline, 1,
     ['--max-work', '1000000000000', '--max-memory', '64M']),
    ('20,000 mixed requests from 8 clients', mixed, 0, []),
]


def run(start):
    print('| attack | what it got | cheap requests: median ms | p99 ms | worst ms | '
          'probes (failed) | peak RSS MB |')
    print('|---|---|--:|--:|--:|--:|--:|')
    for name, attack, seconds, extra in ATTACKS:
        server, _, port = start(*extra)
        base = peak_rss_mb(server.pid)
        prober = Prober(port)
        prober.start()
        got = attack(port, seconds)
        p50, p99, worst, n, bad = prober.stop()
        rss = peak_rss_mb(server.pid)
        server.terminate()
        try:
            server.wait(timeout=60)
        except Exception:
            server.kill()
        print(f'| {name} | {got} | {p50:.1f} | {p99:.1f} | {worst:.0f} | {n} ({bad}) | '
              f'{rss:.1f} (from {base:.1f}) |', flush=True)
