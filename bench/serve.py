#!/usr/bin/env python3
"""serve.py ALEA [--requests N] [--clients C] [--attacks] -- a bounded load test of alea serve.

Starts 'ALEA serve --port 0', then for each case sends N requests (default
2000) from C clients at once (default 8), each client on one keep-alive
connection (http.client), and prints a markdown table: requests per second,
and the median and 99th percentile latency of one request as a client sees
it. Every answer must be 200, or the run fails. The clients are Python
threads on the same machine: on a small machine they take a share of the
cores, so the numbers are a floor for the server.

--attacks instead runs the attacks of issue 26 against a server with the
default options, each for a few seconds and on a fresh server: slow headers
(32 connections sending a byte every 2 s), unread answers (32 answers of
7 MB never read), 8 clients looping expensive requests, a request past its
deadline, and 20,000 mixed requests; for each, the cheap requests' median,
p99 and worst latency during the attack (a /health and a 1d20 roll every
100 ms from another address), and the server's peak RSS. Clients are told
apart by source address (127.0.0.0/8, all loopback).
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
ap.add_argument('--attacks', action='store_true')
args = ap.parse_args()
if not (1 <= args.requests <= 1000000 and 1 <= args.clients <= 100):
    sys.exit('serve.py: --requests from 1 to 1000000, --clients from 1 to 100')

CASES = [
    ('/roll', {'expr': '4d6kh3'}),
    ('/roll', {'expr': '1d20+5', 'n': 10}),
    ('/dist', {'expr': '3d6'}),
    ('/dist', {'expr': '4d6kh3'}),
    ('/dist', {'expr': '100d6kh50'}),
]



def start(*extra):
    p = subprocess.Popen([args.alea, 'serve', '--port', '0', *extra], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    ready, _, _ = select.select([p.stdout], [], [], 30)
    line = p.stdout.readline() if ready else ''
    if not line.startswith('listening on http://'):
        p.kill()
        sys.exit(f'serve.py: alea serve did not start: {line!r}')
    h, pt = line.split('//')[1].strip('/\n').rsplit(':', 1)
    return p, h, pt


if args.attacks:
    import attacks  # bench/attacks.py
    attacks.run(start)
    sys.exit(0)
server, host, port = start()


def run(path, body):
    data = json.dumps(body)
    share = [args.requests // args.clients + (k < args.requests % args.clients)
             for k in range(args.clients)]
    latencies, errors = [], []
    lock = threading.Lock()

    def client(k, count):
        # each client from an address of its own, as a bot's users are:
        # one address may have 4 requests under way (--max-client-queue)
        c = http.client.HTTPConnection(host, int(port), timeout=30,
                                       source_address=(f'127.0.0.{100 + k}', 0))
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

    threads = [threading.Thread(target=client, args=(k, n)) for k, n in enumerate(share)]
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
