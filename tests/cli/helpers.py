"""Helpers shared by the command line's Python tests (svg_test.py,
table_test.py, serve_test.py, serve_attack_test.py): checks counted and
reported, and alea run with its output. Imported by name: each test runs
with tests/cli/ first on its path."""
import subprocess
import sys

passed = failed = 0


def check(name, ok, detail=''):
    """Counts a check; a failed one is printed with its detail."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f'FAIL: {name}' + (f'\n  | {detail}' if detail else ''))


def runner(alea, timeout=None):
    """run(*args, stdin=None): alea with args, its standard input the text
    stdin (none without it), as (exit status, stdout, stderr)."""
    def run(*args, stdin=None):
        p = subprocess.run([alea, *args], capture_output=True, text=True, input=stdin,
                           stdin=None if stdin is not None else subprocess.DEVNULL,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    return run


def finish():
    """Prints 'N passed, M failed' and exits, with status 1 if any failed."""
    print(f'{passed} passed, {failed} failed')
    sys.exit(1 if failed else 0)
