#!/usr/bin/env python3
"""Compiles and runs the C examples of docs/api.md.

  api_examples.py [--fix] CC INCLUDE_DIR LIBRARY docs/api.md [LIBS...]

Each ```c block of the page is a whole program; the ```output block after it
is what it must print. Prints 'N passed, N failed'; exit status 1 on any
failure. --fix writes what the programs print into the page instead (for a
deliberate change; read the diff).
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    fix = sys.argv[1] == '--fix'
    cc, include, library, page = sys.argv[1 + fix:5 + fix]
    libs = sys.argv[5 + fix:]  # what the static library needs (GMP, MPFR)
    text = open(page).read()
    fixed = text
    blocks = re.findall(r'```c\n(.*?)```\n\n```output\n(.*?)```', text, re.S)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (src, want) in enumerate(blocks, 1):
            c = os.path.join(tmp, f'example{i}.c')
            exe = os.path.join(tmp, f'example{i}')
            with open(c, 'w') as f:
                f.write(src)
            build = subprocess.run([cc, '-std=c11', '-Wall', '-Wextra', '-Werror', '-I', include,
                                    c, library, *libs, '-lm', '-lpthread', '-o', exe],
                                   capture_output=True, text=True)
            if build.returncode != 0:
                failed += 1
                print(f'--- example {i} does not build:\n{build.stderr}')
                continue
            run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
            if fix and run.returncode == 0:
                fixed = fixed.replace(f'{src}```\n\n```output\n{want}```',
                                      f'{src}```\n\n```output\n{run.stdout}```')
                passed += 1
            elif run.returncode != 0 or run.stdout != want:
                failed += 1
                print(f'--- example {i} (status {run.returncode}):\nwant:\n{want}got:\n'
                      f'{run.stdout}{run.stderr}')
            else:
                passed += 1
    if fix:
        with open(page, 'w') as f:
            f.write(fixed)
    if not blocks:
        print('no examples found')
        failed += 1
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
