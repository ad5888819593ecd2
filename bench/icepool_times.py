#!/usr/bin/env python3
"""Times icepool on the exact anchors of bench/README.md, for the icepool
column beside alea's (scripts/bench exact).

Usage: PYTHONPATH=/path/to/icepool/src python3 bench/icepool_times.py

Each case runs in a fresh interpreter (icepool caches what it computed), and
the time is icepool's computation of the whole distribution in fractions,
not the interpreter's start nor the import: the best of 3 runs. Exit status
77 when icepool is not importable (nothing was timed).
"""
import subprocess
import sys

CASES = [
    ("100d6kh50", "icepool.d6.highest(100, 50)"),
    ("200d20", "200 @ icepool.d20"),
    ("40d20kh10", "icepool.d20.highest(40, 10)"),
    # exploding: at the depth whose cut mass is alea's truncated fraction
    # (tests/icepool/check.py finds it: a d10 chain cut after 12 extra rolls
    # leaves 10^-13 of a die, the first below alea's tail bound 10^-12)
    ("5d10!kh3", "icepool.d10.explode(depth=12).highest(5, 3)"),
    ("10d10!kh5", "icepool.d10.explode(depth=12).highest(10, 5)"),
    ("20d6!kh10", "icepool.d6.explode(depth=15).highest(20, 10)"),
    ("6d12!kl2", "icepool.d12.explode(depth=11).lowest(6, 2)"),
]

PROGRAM = """
import time, icepool
t = time.perf_counter()
d = {expr}
d.probabilities()
print((time.perf_counter() - t) * 1e3)
"""


def main():
    try:
        import icepool
    except ImportError:
        print("bench/icepool_times.py: icepool is not importable (set PYTHONPATH): skipped",
              file=sys.stderr)
        return 77
    print(f"| expression | icepool {icepool.__version__} (CPython "
          f"{sys.version_info.major}.{sys.version_info.minor}), ms, best of 3 |")
    print("|---|--:|")
    for src, expr in CASES:
        best = min(float(subprocess.run([sys.executable, "-c", PROGRAM.format(expr=expr)],
                                        check=True, capture_output=True, text=True).stdout)
                   for _ in range(3))
        print(f"| `{src}` | {best:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
