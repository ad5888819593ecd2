#!/bin/sh
# run.sh BUILD_DIR SOURCE_DIR -- installs the build into a temporary prefix
# and builds a small program against it: through pkg-config (shared and
# static) and through find_package(alea) (static and shared); then builds it
# with alea's sources added by add_subdirectory. Each must run
# and print the same line; the installed tree must hold the man page and the
# bash completion too.
set -eu
build=$1
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libalea.so.0' -exec dirname {} \; | head -n 1)
[ -n "$libdir" ] || { echo "FAIL: no libalea.so.0 installed" >&2; exit 1; }
for f in include/alea.h include/alea_games.h bin/alea share/man/man1/alea.1 share/bash-completion/completions/alea; do
    [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
# The version is written once, in alea.h; the man page must agree with it.
version=$(sed -n 's/^#define ALEA_VERSION_STRING "\(.*\)"$/\1/p' "$src/include/alea.h")
want="alea $version ($version): 3d6 [5, 2, 6] = 13, mean 10.5"
grep -q "\"alea $version\"" "$src/docs/alea.1" ||
    { echo "FAIL: docs/alea.1 does not name version $version" >&2; exit 1; }

# The exact module and the HTTP server, where the build has them: the
# installed alea finds the module through its run path, from any prefix.
if [ -e "$build/alea-exact.so" ]; then
    [ -e "$libdir/alea/alea-exact.so" ] || { echo "FAIL: alea-exact.so not installed" >&2; exit 1; }
    got=$(env -u LD_LIBRARY_PATH "$prefix/bin/alea" dist --exact 2d6 | sed -n 's/^ *7 .* \(1\/6\) .*/\1/p')
    [ "$got" = "1/6" ] || { echo "FAIL: the installed alea in exact mode" >&2; exit 1; }
fi
if [ -e "$build/alea-serve" ]; then
    [ -e "$prefix/bin/alea-serve" ] || { echo "FAIL: alea-serve not installed" >&2; exit 1; }
fi

# pkg-config; its run path finds libalea.so in the prefix without LD_LIBRARY_PATH
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
cc -std=c11 -o "$tmp/hello_pc" "$src/tests/install/hello.c" $(pkg-config --cflags --libs alea)
got=$(env -u LD_LIBRARY_PATH "$tmp/hello_pc")
[ "$got" = "$want" ] || { echo "FAIL: pkg-config build printed: $got" >&2; exit 1; }
# alea_games.h beside alea.h, its functions exported by libalea.so
printf '%s\n' '#include <alea_games.h>' 'int main(void) {' \
    '    alea_boon_table t = {0, 0, 0, {0, 0, 1, 1}};' '    int64_t b, n;' \
    '    return alea_boons_for_outcome(&t, 10, 2, 1, 0, &b, &n) != ALEA_OK || b != 1;' '}' \
    >"$tmp/games.c"
# shellcheck disable=SC2046
cc -std=c11 -o "$tmp/games_pc" "$tmp/games.c" $(pkg-config --cflags --libs alea)
env -u LD_LIBRARY_PATH "$tmp/games_pc" || { echo "FAIL: a program using alea_games.h" >&2; exit 1; }
# shellcheck disable=SC2046
cc -std=c11 -o "$tmp/hello_pc_static" "$src/tests/install/hello.c" \
    $(pkg-config --cflags alea) "$libdir/libalea.a" $(pkg-config --static --libs-only-l alea | sed 's/-lalea//')
got=$("$tmp/hello_pc_static")
[ "$got" = "$want" ] || { echo "FAIL: static build printed: $got" >&2; exit 1; }

# find_package
cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
for exe in hello_static hello_shared; do
    got=$(LD_LIBRARY_PATH=$libdir "$tmp/consumer/$exe")
    [ "$got" = "$want" ] || { echo "FAIL: find_package $exe printed: $got" >&2; exit 1; }
done
# add_subdirectory: alea's sources inside another project, without its tests
cmake -S "$src/tests/install/subdir" -B "$tmp/subdir" -DALEA_SOURCE="$src" >/dev/null
cmake --build "$tmp/subdir" --target hello >/dev/null
got=$("$tmp/subdir/hello")
[ "$got" = "$want" ] || { echo "FAIL: add_subdirectory build printed: $got" >&2; exit 1; }
if cmake --build "$tmp/subdir" --target help | grep -q lex_test; then
    echo "FAIL: alea's tests are built inside another project" >&2
    exit 1
fi

# the library and the command line alone: no test dependency is looked for
cmake -S "$src" -B "$tmp/alone" -DALEA_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >"$tmp/alone.log"
if grep -qi "cmocka\|gsl" "$tmp/alone.log" "$tmp/alone/CMakeCache.txt"; then
    echo "FAIL: a build without tests looks for cmocka or GSL" >&2
    exit 1
fi
cmake --build "$tmp/alone" --target alea_cli -j2 >/dev/null
[ "$("$tmp/alone/alea" --version)" = "alea $version" ] ||
    { echo "FAIL: the build without tests" >&2; exit 1; }

# the one-command build of docs/internals.md
(cd "$src" && cc -std=c11 -O2 -Iinclude -o "$tmp/alea-onecc" src/*.c src/mech/*.c cli/*.c \
    -ljansson -lm -lpthread) || { echo "FAIL: the one-command build of docs/internals.md" >&2; exit 1; }
[ "$("$tmp/alea-onecc" --seed 1 4d6kh3)" = "4d6kh3 [5, 4, 4, 3 dropped] = 13" ] ||
    { echo "FAIL: the one-command build rolls otherwise" >&2; exit 1; }

# the man page reads without a warning
if command -v groff >/dev/null 2>&1; then
    warnings=$(groff -man -Tutf8 -ww -z "$prefix/share/man/man1/alea.1" 2>&1)
    [ -z "$warnings" ] || { echo "FAIL: the man page: $warnings" >&2; exit 1; }
fi

# the shared library exports the API and nothing else
if command -v nm >/dev/null 2>&1; then
    extra=$(nm -D --defined-only "$libdir/libalea.so.0" | awk '{print $3}' | grep -v '^alea_' || true)
    [ -z "$extra" ] || { echo "FAIL: libalea.so exports: $extra" >&2; exit 1; }
fi
echo "installed; built against with pkg-config, find_package and add_subdirectory: ok"
