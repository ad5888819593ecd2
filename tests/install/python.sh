#!/bin/sh
# python.sh SOURCE_DIR LIBRARY -- installs the Python module with pip, offline
# (no index, no build isolation: the package's own build backend uses the
# standard library only), into a temporary folder, and rolls from it as a
# user would.
set -eu
src=$(cd "$1" && pwd)
lib=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "SKIPPED: python3 has no pip" >&2
    exit 77
fi
cp -r "$src/python" "$tmp/src" # pip builds in place: keep the sources clean
mkdir "$tmp/include" # the version, read from alea.h beside python/
cp "$src/include/alea.h" "$tmp/include/"
python3 -m pip install --quiet --no-index --no-build-isolation --no-deps \
    --target "$tmp/site" "$tmp/src" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log" >&2; exit 1; }
got=$(cd "$tmp" && ALEA_LIBRARY=$lib PYTHONPATH="$tmp/site" python3 -c '
import alea
print(alea.roll("4d6kh3", seed=7).text, abs(alea.dist("2d6").p(7) - 1 / 6) < 1e-15, alea.__file__.startswith("'"$tmp/site"'"))')
want="4d6kh3 [5, 2 dropped, 6, 6] = 17 True True"
[ "$got" = "$want" ] || { echo "FAIL: the installed module printed: $got" >&2; exit 1; }
echo "pip installed the module offline, and it rolls: ok"
