#!/bin/sh
# python.sh SOURCE_DIR -- installs the Python package with pip, offline (no
# index, no build isolation: the package's own build backend uses the
# standard library only, and builds the C library with CMake), into fresh
# virtual environments, once from python/ as the README says and once from
# a source distribution (which must carry the C sources), and uses each as a
# user would: no ALEA_LIBRARY, no LD_LIBRARY_PATH, no installed alea, from
# another directory. Then without the exact-fractions module: exact mode
# is refused with a message, doubles still work.
set -eu
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! python3 -m venv "$tmp/probe" >/dev/null 2>&1; then
    echo "SKIPPED: python3 cannot make a venv with pip (Debian: python3-venv)" >&2
    exit 77
fi
rm -rf "$tmp/probe"

# A fresh venv with the package from SOURCE (a folder or an sdist); prints
# the venv's python.
install() {
    python3 -m venv "$tmp/$1"
    "$tmp/$1/bin/python" -m pip install --quiet --no-index --no-build-isolation --no-deps \
        "$2" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log" >&2; exit 1; }
}

# Runs Python code in the venv as a user would: a bare environment, from an
# empty directory.
use() {
    mkdir -p "$tmp/cwd"
    (cd "$tmp/cwd" && env -i PATH=/usr/bin:/bin HOME="$tmp" "$tmp/$1/bin/python" -c "$2")
}

check() {
    venv=$1
    got=$(use "$venv" '
import os, alea
from fractions import Fraction
pkg = os.path.dirname(alea.__file__)
print(alea.roll("4d6kh3", seed=7).text, abs(alea.dist("2d6").p(7) - 1 / 6) < 1e-15,
      alea.__file__.startswith("'"$tmp/$venv"'/"), alea._lib._name == os.path.join(pkg, "libalea.so.0"),
      alea.roll("4d6kh3", seed=7).dice[0].dice[1].dropped,
      alea.compare("1d20+5", ("adv", "2d20kh1+2"))["adv"].median,
      alea.dist("3d6", exact=True).p(10) == Fraction(1, 8) if "'"$exact"'" else "-")')
    want="4d6kh3 [5, 2 dropped, 6, 6] = 17 True True True True 17 ${exact:--}"
    [ "$got" = "$want" ] || { echo "FAIL ($venv): the installed package printed: $got" >&2; exit 1; }
}

listing() { (cd "$src/python" && find . -name __pycache__ -prune -o -print | sort); }
listing >"$tmp/before"
install dir "$src/python"
listing >"$tmp/after"
diff "$tmp/before" "$tmp/after" >&2 || { echo "FAIL: pip left files in python/ (above)" >&2; exit 1; }
module=$(find "$tmp/dir" -name alea-exact.so)
exact=${module:+True}
check dir
# the chat-bot example, with the installed package
got=$(cd "$tmp/cwd" && echo '!roll 1d1' |
    env -i PATH=/usr/bin:/bin HOME="$tmp" "$tmp/dir/bin/python" "$src/examples/bot.py")
[ "$got" = '@player rolled 1d1 [1] = `1`' ] ||
    { echo "FAIL: examples/bot.py with the installed package printed: $got" >&2; exit 1; }
if [ -z "$exact" ]; then
    echo "SKIPPED: the package was built without GMP (no exact fractions): libgmp-dev libmpfr-dev" >&2
    exit 77
fi
echo "pip installed python/ offline into a fresh venv; it rolls and computes in fractions: ok"

mkdir "$tmp/sdist"
(cd "$src/python" && python3 -c 'import sys; sys.path.insert(0, "_build"); import backend
print(backend.build_sdist(sys.argv[1]))' "$tmp/sdist") >"$tmp/sdist.name"
tar -tzf "$tmp/sdist/$(cat "$tmp/sdist.name")" | grep -q '/c/src/api.c$' ||
    { echo "FAIL: the source distribution lacks the C sources" >&2; exit 1; }
install sdist "$tmp/sdist/$(cat "$tmp/sdist.name")"
check sdist
echo "pip installed the source distribution offline into a fresh venv: ok"

# Without the module (a machine without GMP's library): doubles only. (The
# library's last resort is the module of an alea installed under /usr/local.)
if [ -e /usr/local/lib/alea/alea-exact.so ]; then
    echo "SKIPPED: an installed alea's module is there; not testing without one" >&2
    exit 0
fi
rm "$module"
got=$(use dir '
import alea
print(alea.dist("2d6").p(7) > 0.16)
try:
    alea.dist("3d6", exact=True)
except ValueError as e:
    print(e)')
want="True
alea: exact fractions need the module alea-exact.so, which could not be loaded: "
case $got in
"$want"*) ;;
*) echo "FAIL: without the module the package printed: $got" >&2; exit 1 ;;
esac
echo "without the exact module: doubles work, exact mode is refused with a message: ok"
