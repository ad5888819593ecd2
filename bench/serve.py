#!/usr/bin/env python3
"""serve.py ALEA [--requests N] [--clients C] -- a bounded load test of alea serve.

Starts 'ALEA serve --port 0', then for each case sends N requests (default
2000) from C clients at once (default 8), each client on one keep-alive
connection (http.client), and prints a markdown table: requests per second,
and the median and 99th percentile latency of one request as a client sees
it. Every answer must be 200, or the run fails. The clients are Python
threads on the same machine: on a small machine they take a share of the
cores, so the numbers are a floor for the server.
"""
import argparse
import http.client
import json
import select
import subprocess
import sys
import threading
import time

ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
ap.add_argument('alea')
ap.add_argument('--requests', type=int, default=2000)
ap.add_argument('--clients', type=int, default=8)
args = ap.parse_args()
if not (1 <= args.requests <= 1000000 and 1 <= args.clients <= 256):
    sys.exit('serve.py: --requests from 1 to 1000000, --clients from 1 to 256')

CASES = [
    ('/roll', {'expr': '4d6kh3'}),
    ('/roll', {'expr': '1d20+5', 'n': 10}),
    ('/dist', {'expr': '3d6'}),
    ('/dist', {'expr': '4d6kh3'}),
    ('/dist', {'expr': '100d6kh50'}),
]

server = subprocess.Popen([args.alea, 'serve', '--port', '0'], stdout=subprocess.PIPE, text=True)
ready, _, _ = select.select([server.stdout], [], [], 30)
line = server.stdout.readline() if ready else ''
if not line.startswith('listening on http://'):
    server.kill()
    sys.exit(f'serve.py: alea serve did not start: {line!r}')
host, port = line.split('//')[1].strip('/\n').rsplit(':', 1)


def run(path, body):
    data = json.dumps(body)
    share = [args.requests // args.clients + (k < args.requests % args.clients)
             for k in range(args.clients)]
    latencies, errors = [], []
    lock = threading.Lock()

    def client(count):
        c = http.client.HTTPConnection(host, int(port), timeout=30)
        mine = []
        for _ in range(count):
            t = time.perf_counter()
            c.request('POST', path, body=data, headers={'Content-Type': 'application/json'})
            r = c.getresponse()
            r.read()
            mine.append(time.perf_counter() - t)
            if r.status != 200:
                errors.append(r.status)
        c.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in share]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if errors:
        sys.exit(f'serve.py: {path} {body}: {len(errors)} answers not 200 ({errors[0]})')
    latencies.sort()
    p50 = latencies[len(latencies) // 2]
    p99 = latencies[min(len(latencies) - 1, (len(latencies) * 99) // 100)]
    return len(latencies) / wall, p50 * 1000, p99 * 1000


print(f'{args.requests} requests per case, {args.clients} clients at once, keep-alive\n')
print('| request | requests/s | median ms | p99 ms |')
print('|---|--:|--:|--:|')
try:
    for path, body in CASES:
        rps, p50, p99 = run(path, body)
        print(f'| `POST {path} {json.dumps(body)}` | {rps:.0f} | {p50:.2f} | {p99:.2f} |')
finally:
    server.terminate()
    server.wait(timeout=30)
