#!/bin/sh
# run.sh ALEA -- end-to-end tests of the alea command line: exit codes,
# every option, error messages with their caret, and a few golden outputs.
# POSIX sh; prints "N passed, M failed" and exits non-zero on any failure.

ALEA=${1:?usage: run.sh PATH_TO_ALEA}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/alea-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0
nl='
'

# run ARGS...: runs alea with nothing on stdin; stdout, stderr and the exit
# status land in $out, $err and $rc.
run() {
    run_from /dev/null "$@"
}

# run_from FILE ARGS...: as run, with FILE on stdin.
run_from() {
    input=$1
    shift
    "$ALEA" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}

bad() {
    fail=$((fail + 1))
    printf 'FAIL: %s\n' "$1"
    if [ -n "$2" ]; then printf '%s\n' "$2" | sed 's/^/  | /'; fi
}

# expect NAME RC STDOUT STDERR ARGS...: runs alea with ARGS and checks the
# exit status and the whole of stdout and stderr ("*" skips a check; the
# trailing newline is not compared).
expect() {
    name=$1 want_rc=$2 want_out=$3 want_err=$4
    shift 4
    run "$@"
    ok=1
    if [ "$rc" != "$want_rc" ]; then
        bad "$name: exit status $rc, expected $want_rc" "$err"
        return
    fi
    if [ "$want_out" != "*" ] && [ "$out" != "$want_out" ]; then
        bad "$name: stdout" "expected:$nl$want_out${nl}got:$nl$out"
        return
    fi
    if [ "$want_err" != "*" ] && [ "$err" != "$want_err" ]; then
        bad "$name: stderr" "expected:$nl$want_err${nl}got:$nl$err"
        return
    fi
    pass=$((pass + 1))
}

# check NAME CONDITION-STATUS [DETAIL]: records the result of a test the
# caller has already evaluated ($? of a [ ] or grep).
check() {
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else bad "$1" "$3"; fi
}

# has TEXT PATTERN: whether TEXT contains a line matching the grep -E PATTERN.
has() {
    printf '%s\n' "$1" | grep -Eq -- "$2"
}

usage_hint="Try 'alea --help' for more information."

# ---- help and version -------------------------------------------------------

run --help
check "--help exits 0" "$rc" "$err"
for word in 'Usage:' 'alea roll' 'alea dist' 'alea compare' '--seed' \
    '--json' '--csv' '--at-least' '--at-most' '--max-dice N +10000 ' \
    '--max-source BYTES +4096 ' '--max-depth N +64 ' '--max-nodes N +1000 ' \
    '--max-support N +100000 ' '--max-work N +30000000 ' \
    '--max-memory BYTES +16M ' '--max-breakdown BYTES +4M ' '--max-output BYTES +8M ' '--tail P +1e-12 ' \
    '--timeout MS +none ' '--time-limit S +60 ' 'alea help syntax'; do
    has "$out" "$word"
    check "--help mentions $word" $?
done
help_text=$out
expect "-h" 0 "$help_text" "" -h
expect "help" 0 "$help_text" "" help
for c in roll dist compare serve fairness; do
    run help $c
    check "help $c" $rc "$err"
    has "$out" "^Usage: alea $c "
    check "help $c: usage line" $? "$out"
    has "$out" "--max-dice N"
    check "help $c: limits" $? "$out"
    cmd_help=$out
    wide=$(printf '%s\n' "$out" | awk 'length > 79')
    [ -z "$wide" ]
    check "help $c: fits 80 columns" $? "$wide"
    # The limits' defaults end in one column, however long the option.
    ends=$(printf '%s\n' "$out" | sed -n '/^Limits/,/^  BYTES/p' | grep '^  --' |
        awk '{ match($0, /^  [^ ]+ [^ ]+ +[^ ]+  /); print RLENGTH }' | sort -u)
    [ "$(printf '%s\n' "$ends" | wc -l)" -eq 1 ] && [ "$ends" -gt 0 ]
    check "help $c: the limits' defaults line up" $? "$ends"
    expect "$c --help" 0 "$cmd_help" "" $c --help
    expect "$c -h after an expression" 0 "$cmd_help" "" $c 1d6 -h
done
expect "help with an unknown command" 2 "" \
    "alea: help: unknown command 'bogus' (the commands: roll, dist, compare, serve, table, fairness, policy; or syntax)$nl$usage_hint" \
    help bogus

# ---- help syntax: one screen, and every example in it runs ------------------

run help syntax
check "help syntax exits 0" "$rc" "$err"
syntax=$out
lines=$(printf '%s\n' "$syntax" | wc -l)
[ "$lines" -le 24 ]
check "help syntax fits 24 lines" $? "$lines lines"
wide=$(printf '%s\n' "$syntax" | awk 'length > 79')
[ -z "$wide" ]
check "help syntax fits 80 columns" $? "$wide"
# The examples: columns 3 to 32 of the indented lines, split at two spaces.
examples=$(printf '%s\n' "$syntax" | grep '^  [^ ]' | cut -c3-32 |
    awk -F '  +' '{ for (i = 1; i <= NF; i++) if ($i != "") print $i }')
count=$(printf '%s\n' "$examples" | wc -l)
[ "$count" -ge 30 ]
check "help syntax has its examples ($count)" $? "$examples"
for m in 'd20 +1d' '2d10 +3B -1B' 'd0 +1B' '2d6 +1 DICE' 'event(d12 + d14 + d18 + d20)' \
    'tier(d8, +2)' 'dd(6, 14, always)' '6 x 4d6kh3' '4d6kh3' '3d6!' '3d6r1' '10d10>=8'; do
    printf '%s\n' "$examples" | grep -qxF -- "$m"
    check "help syntax shows $m" $? "$examples"
done
printf '%s\n' "$examples" > "$tmp/examples"
while IFS= read -r x; do
    "$ALEA" dist -- "$x" >/dev/null 2>"$tmp/xerr"
    check "help syntax: dist accepts '$x'" $? "$(cat "$tmp/xerr")"
    "$ALEA" roll --seed 1 -- "$x" >/dev/null 2>"$tmp/xerr"
    check "help syntax: roll accepts '$x'" $? "$(cat "$tmp/xerr")"
done < "$tmp/examples"
# The man page's LANGUAGE section shows the same examples.
if command -v groff >/dev/null 2>&1; then
    man_lang=$(groff -man -Tutf8 -P-c -P-b -P-u "$(dirname "$0")/../../docs/alea.1" 2>/dev/null |
        sed -n '/^LANGUAGE/,/^OPTIONS/p')
    while IFS= read -r x; do
        printf '%s\n' "$man_lang" | grep -qF -- "$x"
        check "docs/alea.1 LANGUAGE shows '$x'" $? "$man_lang"
    done < "$tmp/examples"
fi

# ---- the negligible tails: hidden from the text tables, --all shows them -----

ev='event(d12 + d14 + d18 + d20)'
run dist "$ev"
check "dist $ev" "$rc" "$err"
rows=$(printf '%s\n' "$out" | wc -l)
[ "$rows" -lt 100 ]
check "dist $ev: under 100 lines, not 740" $? "$rows lines"
has "$out" '^\.\.\. 642 rows below 0\.005% hidden \(values 97 to 738, total 0\.038%\); --all shows every row$'
check "dist $ev: how many rows and how much hidden" $? "$out"
has "$out" '^mean 35\.88   sd 12\.13   min 3   max 738 or more   median 35$'
check "dist $ev: the summary is of every row" $? "$out"
run dist --all "$ev"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 740 ] && ! has "$out" hidden
check "dist --all $ev: every row" $? "$(printf '%s\n' "$out" | head -3)"
run dist --csv "$ev"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 736 ]
check "dist --csv $ev: whole (735 values and the header)" $?
run dist --json "$ev"
[ "$(printf '%s\n' "$out" | grep -o '\], \[' | wc -l)" -eq 734 ]
check "dist --json $ev: whole (735 values)" $?
# both ends; a row at exactly 0.005% shows, one below it is hidden
run dist 10d6
[ "$(printf '%s\n' "$out" | sed -n 3p)" = "... 6 rows below 0.005% hidden (values 10 to 15, total 0.005%)" ] &&
    [ "$(printf '%s\n' "$out" | sed -n 4p | awk '{print $1}')" = 16 ] &&
    has "$out" '^\.\.\. 6 rows below 0\.005% hidden \(values 55 to 60, total 0\.005%\); --all shows every row$'
check "dist 10d6: six rows hidden at each end" $? "$out"
run dist 'd20000 + d2'
[ "$(printf '%s\n' "$out" | grep -c hidden)" -eq 2 ] &&
    has "$out" '^\.\.\. 1 row below 0\.005% hidden \(value 2, total 0\.0025%\)$' &&
    has "$out" '^    3    0\.01 ' &&
    has "$out" '^20001    0\.01 ' &&
    has "$out" '^\.\.\. 1 row below 0\.005% hidden \(value 20002, total 0\.0025%\); --all'
check "dist: a row at exactly 0.005% shows (1/20000), below it hidden (1/40000)" $? \
    "$(printf '%s\n' "$out" | head -5)"
run dist d30000
[ "$(printf '%s\n' "$out" | wc -l)" -eq 30003 ] && ! has "$out" hidden
check "dist: when no row reaches 0.005%, every row shows" $?
run compare 2d20kh1 10d6
has "$out" '^     1     0\.25$' &&
    has "$out" '^\.\.\. 6 rows below 0\.005% hidden \(values 55 to 60, at most 0\.005% of a column\); --all shows every row$'
check "compare: a tail no column shows is hidden" $? "$out"
run compare --all 2d20kh1 10d6
! has "$out" hidden && has "$out" '^    60 '
check "compare --all: every row" $? "$out"
run compare --csv 2d20kh1 10d6
has "$out" '^60,,'
check "compare --csv: whole" $? "$out"

# ---- compare --json, and named columns --------------------------------------

# compare --exact: fractions in CSV (each kind, outside a column's range too)
# and in JSON, as dist --exact writes them
expect "compare --exact --csv" 0 "value,1d4,1d2+1
1,1/4,
2,1/4,1/2
3,1/4,1/2
4,1/4," "" compare --exact --csv 1d4 1d2+1
expect "compare --exact --csv --at-least" 0 "value,1d4,1d2+1
1,1,1
2,3/4,1
3,1/2,1/2
4,1/4,0" "" compare --exact --csv --at-least 1d4 1d2+1
expect "compare --exact --csv --at-most" 0 "value,1d4,1d2+1
1,1/4,0
2,1/2,1/2
3,3/4,1
4,1,1" "" compare --exact --csv --at-most 1d4 1d2+1
expect "compare --exact --json" 0 \
    '{"columns": [{"name": "a", "expression": "1d2", "outcomes": [[1, "1/2"], [2, "1/2"]], "mean": "3/2", "variance": "1/4", "sd": 0.5, "min": 1, "max": 2, "truncated": "0", "exact": true}], "versus": []}' \
    "" compare --exact --json a=1d2
expect "compare --exact --json: the distances as fractions" 0 \
    '{"columns": [{"name": null, "expression": "d2", "outcomes": [[1, "1/2"], [2, "1/2"]], "mean": "3/2", "variance": "1/4", "sd": 0.5, "min": 1, "max": 2, "truncated": "0", "exact": true}, {"name": null, "expression": "d3", "outcomes": [[1, "1/3"], [2, "1/3"], [3, "1/3"]], "mean": "2", "variance": "2/3", "sd": 0.816496580927726, "min": 1, "max": 3, "truncated": "0", "exact": true}], "versus": [{"a": 0, "b": 1, "p_greater": "1/6", "p_equal": "1/3", "p_less": "1/2", "tv": "1/3", "ks": "1/3", "emd": "1/2"}]}' \
    "" compare --exact --json d2 d3

expect "compare --json: each column as dist --json, with its name" 0 \
    '{"columns": [{"name": "a", "expression": "1d2", "outcomes": [[1, 0.5], [2, 0.5]], "mean": 1.5, "sd": 0.5, "min": 1, "max": 2, "truncated": 0}, {"name": null, "expression": "1d2", "outcomes": [[1, 0.5], [2, 0.5]], "mean": 1.5, "sd": 0.5, "min": 1, "max": 2, "truncated": 0}], "versus": [{"a": 0, "b": 1, "p_greater": 0.25, "p_equal": 0.5, "p_less": 0.25, "tv": 0, "ks": 0, "emd": 0}]}' \
    "" compare --json a=1d2 1d2
run compare --json --pairs d20 2d20kh1 d20+5
printf '%s\n' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)["versus"]
assert [(p["a"], p["b"]) for p in v] == [(0, 1), (0, 2), (1, 2)], v
# d20 against d20+5 (worked by hand in tests/versus_test.c): 105, 15 and
# 280 of the 400 pairs; TV and KS 5/20; EMD 5
p = v[1]
assert (p["p_greater"], p["p_equal"], p["p_less"]) == (105 / 400, 15 / 400, 280 / 400), p
assert (p["tv"], p["ks"], p["emd"]) == (0.25, 0.25, 5), p
for p in v:
    assert abs(p["p_greater"] + p["p_equal"] + p["p_less"] - 1) < 1e-15, p
'
check "compare --json --pairs: every pair, d20 against d20+5 as worked by hand" $? "$out"
if command -v python3 >/dev/null 2>&1; then
    run compare --json adv=2d20kh1 "$ev" 3d6
    printf '%s\n' "$out" | python3 -c '
import json, subprocess, sys
cols = json.load(sys.stdin)["columns"]
alea = sys.argv[1]
assert [c["name"] for c in cols] == ["adv", None, None], cols
for c in cols:
    one = json.loads(subprocess.run([alea, "dist", "--json", c["expression"]],
                                    capture_output=True, text=True).stdout)
    name = c.pop("name")
    assert c == one, (name, c["expression"])
' "$ALEA"
    check "compare --json: the columns are dist --json's, whole (tails too)" $? "$out"
fi
run compare adv=2d20kh1 dis=2d20kl1 plain=d20
has "$out" '^ value +adv +dis +plain$' && has "$out" '^     1 +0\.25 +9\.75 +5\.00$'
check "compare: named columns" $? "$out"
run compare --csv adv=2d20kh1 d20
has "$out" '^value,adv,d20$'
check "compare --csv: named columns" $? "$out"
# an argument that is an expression as it stands keeps it: comparisons with
# '=' and '==', a capped explosion
run compare --csv 'd20=20' 'd4x2=4' '1d6==6'
has "$out" '^value,d20=20,d4x2=4,1d6==6$'
check "compare: expressions with '=' are never names" $? "$out"
# a name of COLUMN_NAME_MAX (24) characters, and one of 25: not a name
n24=abcdefghijklmnopqrstuvwx
run compare --csv "$n24=d6" d4
has "$out" "^value,$n24,d4\$"
check "compare: a name of 24 characters" $? "$out$err"
expect "compare: a name of 25 characters is refused" 2 "" \
    "alea: compare: the column name '${n24}...' is longer than 24 characters${nl}Try 'alea compare --help' for more information." \
    compare "${n24}y=d6" d4
expect "compare: the named expression's error points into it" 1 "" \
    "alea: syntax error: expected a number, a die or '(' at byte 5, found the end of the expression$nl  3d6 +$nl       ^" \
    compare 'x=3d6 +' 3d6
run compare 'with advantage=2d20kh1' 1d20
[ "$rc" = 0 ] && has "$out" "^ value  with advantage +1d20$"
check "compare: a name of several words" $? "$out$err"
run compare with advantage=2d20kh1 plain=1d20
[ "$rc" = 0 ] && has "$out" "^ value  with advantage +plain$"
check "compare: a name of several words, unquoted" $? "$out$err"
run compare 'a  b=3d6' 3d6
[ "$rc" = 1 ] && has "$err" "unknown name 'a'"
check "compare: the words of a name are one space apart" $? "$err"
run compare '1x=3d6' 3d6
[ "$rc" = 1 ]
check "compare: a name starts with a letter or _" $? "$err"
run roll 'a=3d6'
[ "$rc" = 1 ]
check "roll: no names" $? "$err"
run roll 'with advantage=2d20kh1'
[ "$rc" = 1 ] && has "$err" "^alea: hint: 'with advantage=' names a column of alea compare; here write the expression alone: 2d20kh1$"
check "roll: a name says where names go" $? "$err"
run compare crit=event\(d6+d8\) 2d6
has "$out" '^critical failure 2\.08% in crit$'
check "compare: the notes name the column" $? "$out"

# ---- limit errors say what would let the expression through -----------------

work_err="alea: too much work to compute at byte 0: it needs at least 118 units (work limit is 100)$nl  3d6*3d6$nl  ^^^"
# the hint's number is the cost model's: the refusal never computes the
# expression again (it needs 571 units in all, which only computing would find)
expect "dist past the work limit: the hint names the cost model's lower bound" 1 "" \
    "$work_err${nl}alea: hint: it needs at least 118 units of work: raise --max-work (100 now, at most 1000000000000), or estimate with --sample 10000" \
    dist --max-work 100 '3d6*3d6'
run dist --max-work 571 '3d6*3d6'
check "dist: 571 units let it through" "$rc" "$err"
run dist --max-work 570 '3d6*3d6'
has "$err" '^alea: hint: it needs at least [0-9]* units of work' && [ "$rc" = 1 ]
check "dist: one unit less (570) does not" $? "$err"
expect "dist --exact past the work limit: the hint" 1 "" \
    "alea: too much work to compute at byte 0: it needs at least 172 units (work limit is 100)$nl  3d6*3d6$nl  ^^^${nl}alea: hint: it needs at least 172 units of work: raise --max-work (100 now, at most 1000000000000), drop --exact (fractions need more work and memory), or estimate with --sample 10000" \
    dist --exact --max-work 100 '3d6*3d6'
# a critical pool whose split weights fall below the double range (C(300, a)
# / 20^a): they count as 0, where the code read the weight of an empty pmf
# and crashed (only with the limits raised: the defaults refuse it first)
run dist --max-work 20000000 --max-support 100000000 --max-memory 4G 'event(300d20)'
has "$err" '^alea: too much work to compute' && [ "$rc" = 1 ]
check "event(300d20) with the limits raised: a limit error, not a crash" $? "$rc $err"
# sum(N, EXPR): the least work of its sums (and the outcomes of the largest)
# is checked before the first is computed, so a rolled count of a thousand
# values is refused at once, and in fractions too (whose count differs)
for x in '' --exact; do
    if [ -n "$x" ] && ! "$ALEA" dist --exact 1 >/dev/null 2>&1; then
        continue # a build without fractions
    fi
    run dist $x 'sum(d1000, 3d6)'
    has "$err" '^alea: too much work to compute at byte 0: it needs at least [0-9]+ units' &&
        [ "$rc" = 1 ]
    check "dist $x sum(d1000, 3d6): refused before the sums" $? "$rc $err"
done
# each of sum's rolls is charged to the breakdown before any is rolled
run roll --max-dice 100000 'sum(30000, 0)'
has "$err" '^alea: the breakdown would pass 4194304 bytes' && [ "$rc" = 1 ]
check "roll sum(30000, 0) with the dice raised: the breakdown limit" $? "$rc $err"
run dist --max-dice 100000 --sample 10 'sum(30000, 0)'
has "$out" '^mean 0\.00 ' && [ "$rc" = 0 ]
check "sum(30000, 0) sampled: no breakdown, no breakdown limit" $? "$rc $out $err"
# a limit hit inside a step's loop: no number, and no second computation
# (before, 16 more times the limit: 1.4 s and 33 MB for 1d700*1d700)
expect "dist --exact 1d500*1d500: the hint without computing again" 1 "" \
    "alea: too much work to compute at byte 0 (work limit is 30000000)$nl  1d500*1d500$nl  ^^^^^^^^^^^${nl}alea: hint: raise --max-work (30000000 now, at most 1000000000000), drop --exact (fractions need more work and memory), or estimate with --sample 10000" \
    dist --exact '1d500*1d500'
printf '3d6*3d6\n3d6*3d6\n' >"$tmp/in"
run_from "$tmp/in" dist --max-work 100
[ "$(printf '%s\n' "$err" | grep -c '^alea: hint: it needs at least 118 units of work')" = 2 ] && [ "$rc" = 1 ]
check "dist on standard input: each line's hint from the cost model" $? "$err"
# ---- the output limit: a distribution's text, in every format -------------
# 3d6's CSV is 886 bytes, its JSON 516 (and a newline); at N it prints, at
# N - 1 it is refused with the library's message
run dist --csv --max-output 886 3d6
[ "$rc" = 0 ] && [ "$(printf '%s\n' "$out" | wc -c)" = 886 ]
check "dist --csv at the output limit (886 bytes) prints" $? "$err"
expect "dist --csv one byte past the output limit" 1 "" \
    "alea: too much output: the distribution's CSV passes 885 bytes (output limit is 885)$nl  3d6$nl  ^^^${nl}alea: hint: raise --max-output (885 now, at most 1073741824)" \
    dist --csv --max-output 885 3d6
run dist --json --max-output 516 3d6
check "dist --json at the output limit (516 bytes) prints" "$rc" "$err"
run dist --json --max-output 515 3d6
has "$err" "^alea: too much output: the distribution's JSON passes 515 bytes \(output limit is 515\)\$" && [ "$rc" = 1 ] && [ -z "$out" ]
check "dist --json one byte past the output limit: refused, nothing printed" $? "$err"
# the 6-byte input that printed 12.5 MB
run dist --exact --csv 500d10
has "$err" "^alea: too much output: the distribution's CSV passes 8388608 bytes \(output limit is 8388608\)\$" && [ "$rc" = 1 ] && [ -z "$out" ]
check "dist --exact --csv 500d10: refused by the default output limit" $? "$err"
run dist --exact --max-output 100k 500d10
has "$err" "^alea: too much output: the distribution's table passes 102400 bytes \(output limit is 102400\)\$" && [ "$rc" = 1 ] && [ -z "$out" ]
check "dist's table: refused past the output limit" $? "$err"
run dist --exact --max-output 1M 500d10
check "dist's table: printed under the output limit" "$rc" "$err"
run compare --json --max-output 1000 3d6 3d6
has "$err" "^alea: too much output: the comparison's JSON passes 1000 bytes" && [ "$rc" = 1 ] && [ -z "$out" ]
check "compare --json: the output limit bounds the whole document" $? "$err"
# policy's table is bound as its CSV and JSON are: 455 bytes for dd(3, 14)
run policy --max-output 455 'dd(3, 14)'
[ "$rc" = 0 ] && [ "$(printf '%s\n' "$out" | wc -c)" = 455 ]
check "policy's table at the output limit (455 bytes) prints" $? "$err"
expect "policy's table one byte past the output limit" 1 "" \
    "alea: too much output: the policy's table passes 454 bytes (output limit is 454)$nl  dd(3, 14)$nl  ^^^^^^^^^${nl}alea: hint: raise --max-output (454 now, at most 1073741824)" \
    policy --max-output 454 'dd(3, 14)'
run policy --csv --max-output 100 'dd(3, 14)'
has "$err" "^alea: too much output: the policy's CSV passes 100 bytes" && [ "$rc" = 1 ] && [ -z "$out" ]
check "policy --csv: refused past the output limit" $? "$err"
printf '3d6\n1d4\n' >"$tmp/in"
run_from "$tmp/in" dist --csv --max-output 100
[ "$rc" = 1 ] && [ "$out" = "$(printf 'value,probability,at_least,at_most\n1,0.25,1,0.25\n2,0.25,0.75,0.5\n3,0.25,0.5,0.75\n4,0.25,0.25,1')" ]
check "dist on standard input: a line past the output limit is refused, the next prints" $? "$out$nl$err"

# another limit on the way
run dist --max-support 200 '20d20*3'
has "$err" '^alea: hint: raise --max-support' && [ "$rc" = 1 ]
check "dist past the support limit: its own hint" $? "$err"
# the ways it names let it through
run dist --max-work 1000 '3d6*3d6'
check "dist: the raised work limit lets it through" "$rc" "$err"
run dist --max-work 1000 --sample 1000 --seed 1 '3d6*3d6'
check "dist: the estimate lets it through" "$rc" "$err"
expect "dist past the support limit: the hint" 1 "" \
    "alea: too many outcomes to compute at byte 0 (support limit is 15)$nl  3d6$nl  ^^^${nl}alea: hint: raise --max-support (15 now, at most 100000000), or estimate with --sample 10000" \
    dist --max-support 15 3d6
run dist --max-support 16 3d6
check "dist: the support limit at N (16 outcomes of 3d6) lets it through" "$rc" "$err"
# ---- roll --luck: each roll's place in its exact distribution --------------
expect "roll --luck: d20 rolled 17 is P(<= 17) 17/20, P(>= 17) 4/20" 0 \
    "d20 [17] = 17  (luck: P(<= 17) 85%, P(>= 17) 20%)" "" roll --luck --seed 8 d20
expect "roll --luck --json: \"luck\" per roll" 0 \
    '{"expression": "d20", "total": 17, "text": "d20 [17] = 17", "dice": [{"term": "d20", "start": 0, "end": 3, "value": 17, "sides": 20, "min": 1, "max": 20, "dice": [{"value": 17, "rolls": [{"face": 17}]}]}], "luck": {"at_most": 0.85, "at_least": 0.2}}' \
    "" roll --luck --json --seed 8 d20
expect "roll --luck: a repeat's lines, each its own luck; -n rolls each" 0 \
    "d20 [17] = 17  (luck: P(<= 17) 85%, P(>= 17) 20%)${nl}d20 [13] = 13  (luck: P(<= 13) 65%, P(>= 13) 40%)${nl}d20 [12] = 12  (luck: P(<= 12) 60%, P(>= 12) 45%)${nl}d20 [19] = 19  (luck: P(<= 19) 95%, P(>= 19) 10%)" \
    "" roll --luck -n 2 --seed 8 '2 x d20'
run roll --luck --json --seed 8 '2 x d20'
has "$out" '"luck": \[{"at_most": 0.85, "at_least": 0.2}, {"at_most": 0.65, "at_least": 0.4}\]}$'
check "roll --luck --json: a repeat's \"luck\" is a list, a roll each" $? "$out"
expect "roll --luck: the edges of the support (every roll is at least 1, at most 6)" 0 \
    "d6 [1] = 1  (luck: P(<= 1) 16.7%, P(>= 1) 100%)" "" roll --luck --seed 9 d6
expect "roll --luck: the top edge" 0 \
    "d6 [6] = 6  (luck: P(<= 6) 100%, P(>= 6) 16.7%)" "" roll --luck --seed 10 d6
expect "roll --luck: a refused distribution, the roll still printed with a hint" 0 \
    "3d6 [5, 4, 2] = 11" \
    "alea: hint: no luck for '3d6': its distribution was refused: too many outcomes to compute at byte 0 (support limit is 15)" \
    roll --luck --max-support 15 --seed 3 3d6
expect "roll --luck: the support limit at N (16 outcomes of 3d6) lets it through" 0 \
    "3d6 [5, 4, 2] = 11  (luck: P(<= 11) 62.5%, P(>= 11) 50%)" "" \
    roll --luck --max-support 16 --seed 3 3d6
expect "roll past the dice limit: the hint, no estimate" 1 "" \
    "alea: too many dice at byte 0 (dice limit is 10)$nl  20d6$nl  ^^^^${nl}alea: hint: raise --max-dice (10 now, at most 100000000)" \
    roll --max-dice 10 20d6
run roll --max-nodes 3 '1+2+3+4'
has "$err" "^alea: hint: raise --max-nodes \(3 now, at most 100000\)\$" && [ "$rc" = 1 ]
check "a limit of the source: its option, no estimate" $? "$err"
run compare --max-support 15 2d6 3d6
has "$err" "^alea: hint: raise --max-support \(15 now, at most 100000000\)\$"
check "compare past the support limit: the hint, no estimate" $? "$err"
run dist --max-work 1000000000000 --max-work 1000000000000 --max-support 100000000 --max-support 100000000 --max-support 100000000 --max-support 100000000 --max-support 100000000 --max-support 100000000 --max-support 100000000 --max-support 15 3d6
has "$err" "hint: raise --max-support"
check "the hint names the limit's last value" $? "$err"
run dist --max-support 100000000 --max-work 10 '3d6*3d6'
has "$err" "at most 1000000000000" && ! has "$err" "support"
check "the hint names the limit that stopped it" $? "$err"
run dist 'd('
! has "$err" "hint" && [ "$rc" = 1 ]
check "a syntax error has no limit hint" $? "$err"

# ---- did you mean ----------------------------------------------------------

expect "a mistyped command" 2 "" \
    "alea: 'rol' is neither a command nor an expression; did you mean 'alea roll'?$nl$usage_hint" \
    rol 4d6
expect "a mistyped command: two letters swapped" 2 "" \
    "alea: 'dsit' is neither a command nor an expression; did you mean 'alea dist'?$nl$usage_hint" \
    dsit 3d6
expect "a mistyped help topic" 2 "" \
    "alea: help: unknown command 'compar'; did you mean 'alea help compare'?$nl$usage_hint" \
    help compar
expect "a mistyped help syntax" 2 "" \
    "alea: help: unknown command 'sintax'; did you mean 'alea help syntax'?$nl$usage_hint" \
    help sintax
# A word near a command that is an expression is rolled, not corrected:
# "dd" is one edit from no command, "d6" neither; "d20" rolls.
run --seed 1 d20
check "a first word that is an expression rolls" "$rc" "$err"
run rolll
has "$err" "did you mean 'alea roll'" && [ "$rc" = 2 ]
check "a command with a letter too many" $? "$err"
run xyzzy
! has "$err" "did you mean" && [ "$rc" = 1 ]
check "no suggestion far from every command" $? "$err"
expect "a mistyped option" 2 "" \
    "alea: dist: unknown option '--exat'; did you mean '--exact'?${nl}Try 'alea dist --help' for more information." \
    dist --exat 2d6
expect "a mistyped option before an expression" 2 "" \
    "alea: unknown option '--seeed'; did you mean '--seed'?$nl$usage_hint" \
    --seeed 3 4d6
expect "a mistyped limit" 2 "" \
    "alea: roll: unknown option '--max-wrok'; did you mean '--max-work'?${nl}Try 'alea roll --help' for more information." \
    roll --max-wrok 3 d6
expect "an option of another command" 2 "" \
    "alea: roll: unknown option '--exact' (alea dist takes it)${nl}Try 'alea roll --help' for more information." \
    roll --exact 3d6
version=$(sed -n 's/^#define ALEA_VERSION_STRING "\(.*\)"$/\1/p' \
    "$(dirname "$0")/../../include/alea.h")
expect "--version: the one in alea.h" 0 "alea $version" "" --version

# ---- usage errors: exit 2, a message, a pointer to --help, nothing on stdout -

expect "no arguments" 2 "" "alea: missing expression$nl$usage_hint"
expect "unknown option" 2 "" \
    "alea: unknown option '--bogus'$nl$usage_hint" --bogus 1d6
expect "unknown option of a command" 2 "" \
    "alea: roll: unknown option '-x'$nl""Try 'alea roll --help' for more information." \
    roll -x 1d6
expect "roll: no expression" 2 "" \
    "alea: missing expression$nl""Try 'alea roll --help' for more information." roll
expect "dist: no expression" 2 "" "*" dist --json
expect "compare: no expression" 2 "" "*" compare --csv
expect "-n 0" 2 "" "*" roll -n 0 1d6
expect "-n abc" 2 "" \
    "alea: -n: 'abc' is not a positive integer$nl""Try 'alea roll --help' for more information." \
    roll -n abc 1d6
expect "-n -3" 2 "" "*" roll -n -3 1d6
expect "-n without a value" 2 "" \
    "alea: option '-n' needs a value$nl""Try 'alea roll --help' for more information." \
    roll 1d6 -n
expect "--seed -1" 2 "" "*" roll --seed -1 1d6
expect "--seed 2^64" 2 "" "*" roll --seed 18446744073709551616 1d6
expect "--seed 12x" 2 "" "*" roll --seed 12x 1d6
expect "--json with a value" 2 "" "*" roll --json=yes 1d6
expect "-n is roll's" 2 "" "*" dist -n 3 1d6
expect "--csv is not roll's" 2 "" "*" roll --csv 1d6
expect "--seed is not compare's" 2 "" "*" compare --seed 1 1d6 1d8
expect "compare --json and --csv" 2 "" "*" compare --json --csv 1d6 1d8
expect "dist takes one expression" 2 "" \
    "alea: dist takes one expression (quote it if it has spaces; 'alea compare' takes several)$nl""Try 'alea dist --help' for more information." \
    dist 1d20 2d6

# ---- unquoted arguments: the game systems' spellings have spaces ------------

expect "d20 +1d unquoted" 0 "d20 +1d [15, 11 dropped] = 15" "" roll --seed 1 d20 +1d
expect "1d20 + 5 unquoted" 0 "1d20 [15] + 5 = 20" "" --seed 1 1d20 + 5
expect "1d20 +5: a sign continues the argument before" 0 "1d20 [15] + 5 = 20" "" --seed 1 1d20 +5
expect "quoted expressions stay several" 0 "d20 +1d [15, 11 dropped] = 15${nl}2d6 [4, 3] = 7" "" \
    roll --seed 1 "d20 +1d" 2d6
expect "unquoted expressions are parted where each forms one" 0 \
    "d20 +1d [15, 11 dropped] = 15${nl}2d6 [4, 3] = 7 # fire" "" roll --seed 1 d20 +1d 2d6 fire
expect "words after a roll, unquoted" 0 "1d20 +1d [15, 11 dropped] = 15 # stealth" "alea: hint: 'adv' reads as advantage; Roll20 reads words after a roll as its description, and rolls one d20" \
    --seed 1 1d20 adv stealth
expect "dist joins its arguments" 0 "*" "" dist 1d20 + 5
has "$out" "^mean 15.50 "
check "dist joins its arguments: the sum's mean" $? "$out"
expect "a repeat written after the roll, unquoted" 1 "" \
    "alea: syntax error: '6 times' after the expression (byte 7) does not repeat it: to roll it 6 times, write 6 x 4d6kh3$nl  4d6kh3 6 times$nl         ^^^^^^^${nl}alea: hint: the arguments do not each form an expression, so they were read as one; quote each expression to roll several, as in alea roll \"d20 +1d\" \"2d6\"" \
    4d6kh3 6 times
expect "a quoted argument is never joined" 1 "" \
    "alea: syntax error: expected a number, a die or '(' at byte 5, found the end of the expression$nl  1d6 +$nl       ^" \
    roll '1d6 +' 2
expect "--json and --csv" 2 "" "*" dist --json --csv 1d6
expect "--at-least and --at-most" 2 "" "*" dist --at-least --at-most 1d6
expect "--tail out of range" 2 "" \
    "alea: --tail: 0.5 is outside the accepted range [1e-300, 1e-3]$nl""Try 'alea dist --help' for more information." \
    dist --tail 0.5 1d6
expect "--tail not a number" 2 "" "*" dist --tail x 1d6
expect "--max-dice not a number" 2 "" \
    "alea: --max-dice: 'many' is not a non-negative integer$nl$usage_hint" \
    --max-dice many 1d6
expect "--max-dice negative" 2 "" "*" roll --max-dice=-1 1d6
expect "--max-memory bad suffix" 2 "" "*" dist --max-memory 64X 1d6
expect "--max-bogus" 2 "" "*" dist --max-bogus 3 1d6
expect "a command after options" 2 "" \
    "alea: 'dist' is a command: put it first (alea dist [OPTION]... EXPR)$nl$usage_hint" \
    --max-work 10 dist 3d6

# ---- expression errors: exit 1, the library's message, a caret --------------

# experr NAME MESSAGE-LINE EXCERPT CARET [HINT] ARGS...
experr() {
    name=$1 msg=$2 line=$3 caret=$4
    shift 4
    case $1 in "alea: hint: "*) caret="$caret$nl$1"; shift ;; esac # a limit's hint
    expect "$name" 1 "" "$msg$nl$line$nl$caret" "$@"
}

experr "empty expression" \
    "alea: syntax error: empty expression: write dice such as 1d20 or 4d6kh3" \
    "  " \
    "  ^" roll ''
experr "a lone d" \
    "alea: syntax error: expected the number of sides after 'd' (as in d6, d%, dF, d{1,2,3} or d(1d6)) at byte 1, found the end of the expression" \
    "  d" \
    "   ^" d
experr "2d+3" \
    "alea: syntax error: expected the number of sides after 'd' (as in d6, d%, dF, d{1,2,3} or d(1d6)) at byte 2, found '+'" \
    "  2d+3" \
    "    ^" dist 2d+3
experr "1d1! explodes forever" \
    "alea: invalid expression: explosion would never end: every roll of this die shows its maximum 1 (byte 3)" \
    "  1d1!" \
    "     ^" roll 1d1!
experr "3d6r<=6 rerolls forever" \
    "alea: invalid expression: reroll condition <=6 matches every face of the die, so no roll could be kept (byte 3)" \
    "  3d6r<=6" \
    "     ^" dist '3d6r<=6'
# (other tools divide as real numbers: a hint says so first)
div_hint="alea: hint: alea reads this as 1d6 / 0; Roll20, Foundry VTT and rpg-dice-roller read it as 1d6 / 0, with '/' a division of real numbers (--dialect roll20, foundry, rpgdr); Avrae's d20 reads it as trunc(1d6 / 0) (--dialect d20)"
experr "1d6/0 in roll" \
    "$div_hint${nl}alea: undefined result: division by zero at byte 4" \
    "  1d6/0" \
    "      ^" roll 1d6/0
experr "1d6/0 in dist" \
    "$div_hint${nl}alea: undefined result: division by zero is possible at byte 4: the divisor can be 0" \
    "  1d6/0" \
    "      ^" dist 1d6/0
experr "999999999d6 in roll" \
    "alea: too many dice at byte 0 (dice limit is 10000)" \
    "  999999999d6" \
    "  ^^^^^^^^^^^" \
    "alea: hint: raise --max-dice (10000 now, at most 100000000)" roll 999999999d6
experr "999999999d6 in dist" \
    "alea: too many outcomes to compute at byte 0 (support limit is 100000)" \
    "  999999999d6" \
    "  ^^^^^^^^^^^" \
    "alea: hint: raise --max-support (100000 now, at most 100000000), or estimate with --sample 10000" \
    dist 999999999d6
experr "a die past the most the support limit allows" \
    "alea: too many outcomes to compute at byte 0 (support limit is 100000)" \
    "  1d99999999999" \
    "  ^^^^^^^^^^^^^" \
    "alea: hint: it needs 99999999999 outcomes, more than --max-support allows (at most 100000000), or estimate with --sample 10000" \
    dist 1d99999999999
experr "a die past the support limit" \
    "alea: too many outcomes to compute at byte 0 (support limit is 1000)" \
    "  1d5000" \
    "  ^^^^^^" \
    "alea: hint: it needs 5000 outcomes: raise --max-support to that (1000 now, at most 100000000), or estimate with --sample 10000" \
    dist --max-support 1000 1d5000
experr "tab and control bytes line up" \
    "alea: syntax error: unexpected byte 0x01 at byte 3 (only ASCII dice notation is understood)" \
    "  1 +?2d+3" \
    "     ^" roll "$(printf '1\t+\0012d+3')"
experr "UTF-8 is shown as one column" \
    "alea: syntax error: unexpected byte 0xC3 at byte 4 (only ASCII dice notation is understood)" \
    "  $(printf '1d6 \303\251 2')" \
    "      ^" roll "$(printf '1d6 \303\251 2')"

# 60,000 nested parentheses: the source limit first (the caret marks what
# lies past the limit), then with the source limit raised, the depth limit
# near the start.
open=$(printf '%60000s' '' | tr ' ' '(')
close=$(printf '%60000s' '' | tr ' ' ')')
deep="${open}1${close}"
experr "60000 parentheses: source limit" \
    "alea: expression too long: 120001 bytes (source limit is 4096)" \
    "  ...((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((..." \
    "                         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^" \
    "alea: hint: raise --max-source (4096 now, at most 1048576)" roll "$deep"
experr "60000 parentheses: depth limit" \
    "alea: expression nested too deeply at byte 64 (depth limit is 64)" \
    "  ...((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((..." \
    "                         ^" \
    "alea: hint: raise --max-depth (64 now, at most 512)" dist --max-source 1M "$deep"

# ---- roll --------------------------------------------------------------------

run 1d20
check "a bare expression rolls" $rc "$err"
has "$out" '^1d20 \[([1-9]|1[0-9]|20)\] = ([1-9]|1[0-9]|20)$'
check "1d20 breakdown" $? "$out"

expect "golden: 4d6kh3 with --seed 7" 0 "4d6kh3 [5, 2 dropped, 6, 6] = 17" "" \
    roll --seed 7 4d6kh3
expect "golden: 1d20+5 with --seed 7" 0 "1d20 [15] + 5 = 20" "" \
    --seed 7 1d20+5

expect "repeat in three words: alea 3 x 1d6" 0 "1d6 [5] = 5
1d6 [2] = 2
1d6 [6] = 6" "" --seed 7 3 x 1d6
run roll --seed 7 2 X 1d6 1d20
check "a repeat as three words, then an expression: three lines" \
    "$([ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ]; echo $?)" "$out"

run roll --seed 7 -n 3 3d6 1d20
a=$out
check "--seed 7 -n 3: exit 0" $rc "$err"
check "--seed 7 -n 3: six lines" "$([ "$(printf '%s\n' "$a" | wc -l)" -eq 6 ]; echo $?)" "$a"
has "$(printf '%s\n' "$a" | sed -n 3p)" '^3d6 ' && has "$(printf '%s\n' "$a" | sed -n 4p)" '^1d20 '
check "several expressions roll in order" $? "$a"
run roll -n 3 3d6 1d20 --seed=7
check "--seed is reproducible" "$([ "$out" = "$a" ]; echo $?)" "$a$nl--$nl$out"
run roll --seed 8 -n 3 3d6 1d20
check "different seeds differ" "$([ "$out" != "$a" ]; echo $?)" "$out"
run roll -n3 --seed 7 3d6 1d20
check "-nN attached" "$([ "$out" = "$a" ]; echo $?)" "$out"

run roll --json --seed 7 -n 4 4d6kh3
check "--json: exit 0" $rc "$err"
check "--json: one line per roll" "$([ "$(printf '%s\n' "$out" | wc -l)" -eq 4 ]; echo $?)" "$out"
check "--json: each line an object" \
    "$(printf '%s\n' "$out" | grep -vc '^{.*}$' | grep -qx 0; echo $?)" "$out"
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$out" | python3 -c '
import json, sys
for line in sys.stdin:
    json.loads(line)' 2>"$tmp/py_err"
    check "--json: every line parses" $? "$out$nl$(cat "$tmp/py_err")"
else
    echo "skip: python3 not found, --json lines not parsed"
fi

expect "-- ends the options" 0 "*" "" roll --seed 1 -- -1d6
has "$out" '^-1d6 '
check "a negative expression after --" $? "$out"
run roll --seed 1 -d6
check "-d6 is an expression, not an option" $rc "$err"

# A closed pipe ends the rolling quietly.
status=$( { "$ALEA" roll -n 100000 1d6 2>"$tmp/pipe_err"; echo $? >"$tmp/pipe_rc"; } | head -n 1 >/dev/null; cat "$tmp/pipe_rc")
check "roll | head -1: exit 0" "$status"
check "roll | head -1: nothing on stderr" "$([ ! -s "$tmp/pipe_err" ]; echo $?)" "$(cat "$tmp/pipe_err")"
if [ -w /dev/full ]; then
    "$ALEA" roll 1d6 >/dev/full 2>"$tmp/full_err"
    check "a write error exits 1" "$([ $? -eq 1 ]; echo $?)"
    has "$(cat "$tmp/full_err")" '^alea: write error: '
    check "a write error is reported" $? "$(cat "$tmp/full_err")"
fi

# ---- expressions on standard input -------------------------------------------

# A lone CR ends a line as LF and CRLF do (it was one long line); a NUL or a
# byte that is not UTF-8 reaches the library, which refuses it (never dropped)
printf '1d6\r2d6\r\n3d6\n\r4d6\r' >"$tmp/in"
run_from "$tmp/in" roll --seed 1
[ "$rc" = 0 ] && [ "$out" = "$(printf '1d6 [5] = 5\n2d6 [4, 4] = 8\n3d6 [3, 5, 1] = 9\n4d6 [1, 3, 6, 4] = 14')" ]
check "stdin: lines ended by a lone CR, CRLF and LF" $? "$out$nl$err"
printf '1d6\0+2\n1d6\377+2\n' >"$tmp/in"
run_from "$tmp/in" roll --seed 1
[ "$rc" = 1 ] && [ -z "$out" ] && has "$err" '^alea: syntax error: unexpected byte 0x00 at byte 3' &&
    has "$err" '^alea: syntax error: unexpected byte 0xFF at byte 3'
check "stdin: a NUL and a byte that is not UTF-8 are errors, not dropped" $? "$out$nl$err"

# Good and bad lines mixed: blank lines skipped, CRLF stripped, the last line
# without a newline still read; each bad line reported, the others rolled.
printf '4d6kh3\n\n2d+3\n  \t\r\n1d20+5\r\n1d6/0\n3d6' >"$tmp/in"
run_from "$tmp/in" roll --seed 7
check "stdin roll: exit 1 when a line fails" "$([ "$rc" -eq 1 ]; echo $?)" "$rc$nl$err"
run roll --seed 7 4d6kh3 1d20+5
args_out=$out
run_from "$tmp/in" roll --seed 7
check "stdin roll: the good lines roll as arguments would" \
    "$([ "$(printf '%s\n' "$out" | sed -n '1,2p')" = "$args_out" ]; echo $?)" \
    "$out$nl--$nl$args_out"
check "stdin roll: three good lines, three rolls" \
    "$([ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ]; echo $?)" "$out"
has "$(printf '%s\n' "$out" | sed -n 3p)" '^3d6 \[[1-6], [1-6], [1-6]\] = [0-9]+$'
check "stdin roll: a last line without a newline" $? "$out"
check "stdin roll: both errors, each with its caret" \
    "$([ "$err" = "alea: syntax error: expected the number of sides after 'd' (as in d6, d%, dF, d{1,2,3} or d(1d6)) at byte 2, found '+'
  2d+3
    ^
$div_hint
alea: undefined result: division by zero at byte 4
  1d6/0
      ^" ]; echo $?)" "$err"

printf '1d6\n2d6\n' >"$tmp/in"
run_from "$tmp/in" roll -n 2 --seed 1
check "stdin roll -n 2: exit 0" "$rc" "$err"
check "stdin roll -n 2: four rolls" "$([ "$(printf '%s\n' "$out" | wc -l)" -eq 4 ]; echo $?)" "$out"
run_from "$tmp/in" --seed 1
check "stdin: a bare alea rolls its input" "$rc" "$err"
has "$out" '^2d6 \['
check "stdin: a bare alea rolls each line" $? "$out"
run_from "$tmp/in" roll --json --seed 1
check "stdin roll --json: exit 0" "$rc" "$err"
check "stdin roll --json: one object per line" \
    "$(printf '%s\n' "$out" | grep -vc '^{.*}$' | grep -qx 0; echo $?)" "$out"

# dist --json: one whole JSON object per good line, never a partial one.
printf '1d4\n2d+3\n3d6\n999999999d6\nd{}\n4d6kh3\n' >"$tmp/in"
run_from "$tmp/in" dist --json
check "stdin dist --json: exit 1 when a line fails" "$([ "$rc" -eq 1 ]; echo $?)" "$rc"
check "stdin dist --json: one line per good expression" \
    "$([ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ]; echo $?)" "$out"
check "stdin dist --json: three errors" \
    "$([ "$(printf '%s\n' "$err" | grep -v '^alea: hint: ' | grep -c '^alea: ')" -eq 3 ]; echo $?)" "$err"
has "$err" '^alea: too many outcomes to compute at byte 0 \(support limit is 100000\)$'
check "stdin dist --json: the limit error" $? "$err"
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$out" | python3 -c '
import json, sys
exprs = [json.loads(line)["expression"] for line in sys.stdin]
assert exprs == ["1d4", "3d6", "4d6kh3"], exprs' 2>"$tmp/py_err"
    check "stdin dist --json: every line parses, in order" $? "$out$nl$(cat "$tmp/py_err")"
fi
printf '1d2\n1d3\n' >"$tmp/in"
run_from "$tmp/in" dist
check "stdin dist: exit 0" "$rc" "$err"
check "stdin dist: two tables, a blank line between" \
    "$([ "$(printf '%s\n' "$out" | grep -c '^$')" -eq 1 ] &&
       [ "$(printf '%s\n' "$out" | grep -c '^mean ')" -eq 2 ]; echo $?)" "$out"

# Lines longer than the source limit: the limit error, memory bounded by the
# limit (the line is not kept), and the next line still answered.
{
    printf '1'; printf '%2047s' '' | sed 's/ /+1/g'; printf ' \n'            # 4096 bytes
    printf '1'; printf '%2047s' '' | sed 's/ /+1/g'; printf '  \r\n'         # 4097 bytes
    printf '%1000000s\n' '' | tr ' ' '('                                   # 1 MB
    printf '1d1\n'
} >"$tmp/in"
run_from "$tmp/in" roll --max-nodes 100000
check "stdin: over-long lines fail, exit 1" "$([ "$rc" -eq 1 ]; echo $?)" "$rc"
check "stdin: a line at the source limit rolls, and the line after the long ones" \
    "$([ "$(printf '%s\n' "$out" | sed -n '1p;$p' | sed 's/.* = //' | tr '\n' ' ')" = "2048 1 " ]; echo $?)" \
    "$(printf '%s\n' "$out" | cut -c1-60)"
has "$err" '^alea: expression too long: 4097 bytes \(source limit is 4096\)$'
check "stdin: 4097 bytes is too long" $? "$(printf '%s\n' "$err" | cut -c1-80)"
has "$err" '^alea: expression too long: 1000000 bytes \(source limit is 4096\)$'
check "stdin: a 1 MB line gets the limit error" $? "$(printf '%s\n' "$err" | cut -c1-80)"
run_from "$tmp/in" roll --max-nodes 100000 --max-source 1M --max-memory 64M
has "$err" '^alea: expression nested too deeply at byte 64 \(depth limit is 64\)$'
check "stdin: --max-source makes room for longer lines" $? "$(printf '%s\n' "$err" | cut -c1-80)"

printf '1d6\0+1\n1d1\n' >"$tmp/in"
run_from "$tmp/in" roll
check "stdin: a NUL byte is a syntax error, the next line rolls" \
    "$([ "$rc" -eq 1 ] && [ "$out" = "1d1 [1] = 1" ]; echo $?)" "$out$nl$err"
has "$err" '^alea: syntax error: unexpected byte 0x00 at byte 3'
check "stdin: the NUL byte's message" $? "$err"

printf '\n  \n\r\n' >"$tmp/in"
run_from "$tmp/in" roll
check "stdin: only blank lines is a missing expression" \
    "$([ "$rc" -eq 2 ] && [ "$err" = "alea: missing expression$nl""Try 'alea roll --help' for more information." ]; echo $?)" "$err"
run_from /dev/null dist --json
check "stdin: empty input is a missing expression" "$([ "$rc" -eq 2 ]; echo $?)" "$err"
printf '1d6\n' >"$tmp/in"
run_from "$tmp/in" compare
check "stdin: compare takes arguments only" "$([ "$rc" -eq 2 ]; echo $?)" "$err"
has "$err" "^alea: missing expression"
check "stdin: compare's message" $? "$err"

# A program can keep alea running and write it one line at a time: each
# answer comes before the next line is written.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$ALEA" <<'PY' 2>"$tmp/py_err"
import select, subprocess, sys
p = subprocess.Popen([sys.argv[1], 'dist', '--json'], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
for expr in (b'1d4', b'2d+3', b'1d2'):
    p.stdin.write(expr + b'\n')
    p.stdin.flush()
    pipe = p.stderr if expr == b'2d+3' else p.stdout
    ready, _, _ = select.select([pipe], [], [], 10)
    assert ready, 'no answer to %r within 10 s' % expr
    line = pipe.readline()
    assert line.startswith(b'alea: ' if pipe is p.stderr else b'{"expression"'), line
p.stdin.close()
assert p.wait(10) == 1
PY
    check "stdin: each line is answered before the next one is written" $? "$(cat "$tmp/py_err")"
fi

# A reader that goes away ends the run quietly.
status=$( { printf '%2000s' '' | tr ' ' '\n' | sed 's/^/1d6/' |
    "$ALEA" roll 2>"$tmp/pipe_err"; echo $? >"$tmp/pipe_rc"; } | head -n 1 >/dev/null
    cat "$tmp/pipe_rc")
check "stdin roll | head -1: exit 0" "$status"
check "stdin roll | head -1: nothing on stderr" "$([ ! -s "$tmp/pipe_err" ]; echo $?)" "$(cat "$tmp/pipe_err")"

# ---- limits, each through its option -----------------------------------------

expect "--max-dice 3 stops 4d6" 1 "" "*" roll --max-dice 3 4d6
expect "--max-dice 4 allows 4d6" 0 "*" "" roll --max-dice 4 4d6
expect "--max-source 3 stops 1d20" 1 "" "*" --max-source 3 1d20
expect "--max-depth 2" 1 "" "*" roll --max-depth 2 '(((1)))'
expect "--max-depth 3" 0 "*" "" roll --max-depth 3 '(((1)))'
expect "--max-nodes 2" 1 "" "*" dist --max-nodes 2 '1+2+3'
expect "--max-support 5" 1 "" "*" dist --max-support 5 1d6
expect "--max-support 6" 0 "*" "" dist --max-support 6 1d6
expect "--max-work 10" 1 "" "*" dist --max-work 10 20d20
expect "--max-memory 1k" 1 "" "*" compare --max-memory 1k 20d20 1d6
has "$err" 'memory limit'
check "--max-memory: the message names the limit" $? "$err"
run dist --tail 1e-3 1d6!
check "--tail: exit 0" $rc "$err"
has "$out" '^truncated [0-9.e-]+ \(probability cut off by the explosion bound\)$'
check "--tail: the truncated line" $? "$out"

# --timeout: a deadline for each expression. 200d1000 with the work and support limits
# raised takes seconds; the test checks the status and the message, never a
# duration (it runs under valgrind too).
slow="--max-work 1000000000000 --max-support 1000000 200d1000"
# shellcheck disable=SC2086
expect "--timeout stops a long dist" 1 "" \
    "alea: timed out: the expression ran past --timeout and was stopped" \
    dist --timeout 20 $slow
expect "--timeout with compare" 1 "" "*" compare --timeout 20 --max-work 1000000000000 --max-support 1000000 \
    1d6 200d1000
expect "--timeout leaves a quick one alone" 0 "*" "" dist --timeout 60000 3d6
expect "--timeout 0 is none" 0 "*" "" roll --timeout 0 3d6
expect "--timeout at its maximum" 0 "*" "" roll --timeout 86400000 3d6
expect "--timeout past its maximum" 2 "" "alea: --timeout: '86400001' is not a number \
of milliseconds from 0 (none) to 86400000
Try 'alea roll --help' for more information." roll --timeout 86400001 3d6
expect "--timeout not a number" 2 "" "*" dist --timeout soon 3d6
printf '1d4\n200d1000\n1d2\n' >"$tmp/in"
run_from "$tmp/in" dist --json --timeout 20 --max-work 1000000000000 --max-support 1000000
check "--timeout on stdin: the timed-out line fails, the others answer" \
    "$([ "$rc" -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ] &&
       [ "$err" = "alea: timed out: the expression ran past --timeout and was stopped" ]
       echo $?)" "$out$nl$err"

# --time-limit: the whole command's bound (60 s by default), so that a wrong
# count stops with a message; each line of standard input is a command.
limit_msg="alea: stopped after 1 s: the command's time limit (--time-limit SECONDS sets it; 0 removes it)"
expect "--time-limit stops roll -n 10^12" 1 "*" "$limit_msg" \
    roll -n 1000000000001 --time-limit 1 1d6
expect "--time-limit stops dist --sample 10^12" 1 "" "$limit_msg" \
    dist --sample 1000000000000 --time-limit 1 1d6
expect "--time-limit stops a long distribution" 1 "" "$limit_msg" \
    dist --time-limit 1 --max-work 1000000000000 --max-support 100000000 1000d100000
# ... and stops it soon after its second, however the work is cut: a keep
# over many dice in fractions ran 14 s past a limit of 1 s (a product of
# polynomials charged in one lump, the hook polled once). Generous: 3 s, times
# ALEA_TIME_SCALE where every run is slower (scripts/memcheck sets 20).
big="--max-work 1000000000000 --max-support 100000000 --max-memory 4G"
within=$((3000 * ${ALEA_TIME_SCALE:-1}))
for args in "--exact 300d100kh150" "--exact 300d{0,100}!kh120" "1000d100"; do
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    run dist --time-limit 1 $big $args
    ms=$((($(date +%s%N) - t0) / 1000000))
    check "--time-limit 1 stops dist $args within $within ms (took $ms ms)" \
        "$([ "$rc" -eq 1 ] && [ "$ms" -lt "$within" ]; echo $?)" "$err"
done
expect "--time-limit 0 is none" 0 "*" "" roll --time-limit 0 3d6
expect "--time-limit at its maximum" 0 "*" "" roll --time-limit 604800 3d6
expect "--time-limit past its maximum" 2 "" "alea: --time-limit: '604801' is not a number \
of seconds from 0 (none) to 604800
Try 'alea roll --help' for more information." roll --time-limit 604801 3d6
printf '1d4\n1d2\n' >"$tmp/in"
run_from "$tmp/in" roll --time-limit 1
check "--time-limit on stdin: each line has its own" "$([ "$rc" -eq 0 ] &&
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ]; echo $?)" "$out$nl$err"

# compare: the limits bound the whole table. Support: the columns' outcomes
# together, at N and N + 1; work: the columns share one budget.
expect "compare: outcomes in all at the support limit" 0 "*" "" \
    compare --max-support 20 1d10 1d10
expect "compare: one outcome past the support limit" 1 "" "alea: compare: the columns \
have more than 20 outcomes in all (support limit, for the whole table); compare fewer \
expressions, or raise --max-support" compare --max-support 20 1d10 1d11
expect "compare: each column fits the work limit, not both" 1 "" "alea: compare: the \
columns need more work in all than the work limit (150000) allows; compare fewer \
expressions, or raise --max-work" compare --max-work 150000 --max-support 1000000 1d100000 1d100000
# (the distances between the columns are charged too: 12 units an outcome
# of both in whole counts)
expect "compare: the distances need more work than the columns left" 1 "" "alea: compare: \
the columns and the distances between them need more work in all than the work limit \
(2000000) allows; compare fewer expressions, or raise --max-work" \
    compare --max-work 2000000 --max-support 1000000 1d100000 1d100000
expect "compare: both fit a larger work limit" 0 "*" "" \
    compare --max-work 3000000 --max-support 1000000 1d100000 1d100000

# dist --sample: the threads share the memory limit (the command's, not each
# thread's): 64 threads of 1/65 of 16 MiB cannot each hold 100000 values.
expect "--sample: threads share the memory limit" 1 "" "alea: the 64 sampling threads \
share the memory limit (16777216 bytes), 258111 bytes each, and one ran out; use fewer \
--threads, or raise --max-memory" dist --sample 2000000 --threads 64 --seed 1 '1d100000*7'
expect "--sample: fewer threads fit" 0 "*" "" \
    dist --sample 200000 --threads 2 --seed 1 '1d100000*7'
# the merged tally holds every value the threads found: it takes each
# thread's share as that thread's tally is merged (20000 distinct values
# need more than a third of 2 MiB, less than two thirds)
expect "--sample: the merged tally takes the threads' shares" 0 "*" "" \
    dist --max-memory 2m --sample 20000 --threads 2 --seed 1 '100d100 * 100d100'

# ---- dist --sample: Monte Carlo estimates -------------------------------------

run dist --sample 20000 --seed 5 --threads 2 --json 4d6kh3
check "--sample: exit 0" "$rc" "$err"
first=$out
run dist --sample 20000 --seed 5 --threads 2 --json 4d6kh3
check "--sample: the same seed and threads, the same estimate" \
    "$([ "$out" = "$first" ]; echo $?)" "$first$nl$out"
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$first" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
assert r["samples"] == 20000 and r["seed"] == 5 and r["threads"] == 2, r
assert len(r["intervals"]) == len(r["outcomes"]) == 16, r
assert abs(sum(p for v, p in r["outcomes"]) - 1) < 1e-12
assert all(lo <= p <= hi for (v, p), (lo, hi) in zip(r["outcomes"], r["intervals"]))
assert abs(r["mean"] - 12.2446) < 0.1, r["mean"]' 2>"$tmp/py_err"
    check "--sample --json: samples, seed, threads and an interval per outcome" $? \
        "$(cat "$tmp/py_err")"
fi
run dist --sample 20000 --seed 5 --threads 1 --json 4d6kh3
check "--sample: another thread count, another stream" \
    "$([ "$out" != "$first" ]; echo $?)" "$out"
run dist --sample 1000 --seed 9 --threads 3 2d6
check "--sample table: exit 0" "$rc" "$err"
has "$out" '^estimate from 1000 rolls on 3 threads, seed 9 \(--seed 9 --threads 3 to repeat it\)$'
check "--sample table: says it is an estimate and how to repeat it" $? "$out"
has "$out" '^value +% +95% interval +at least +at most$'
check "--sample table: an interval column" $? "$out"
run dist --sample 1000 --seed 9 --csv 2d6
has "$out" '^value,probability,at_least,at_most,low95,high95$'
check "--sample --csv: interval columns" $? "$out"
run dist --sample 100 1d6
has "$out" '^estimate from 100 rolls on [0-9]+ threads?, seed [0-9]+ '
check "--sample without --seed: the seed drawn is shown" $? "$out"
expect "--seed without --sample" 2 "" "alea: --seed needs --sample: an exact distribution \
has no randomness
Try 'alea dist --help' for more information." dist --seed 1 1d6
expect "--sample 0" 2 "" "*" dist --sample 0 1d6
expect "--sample past its maximum" 2 "" "*" dist --sample 1000000000001 1d6
expect "--threads 65" 2 "" "*" dist --sample 10 --threads 65 1d6
expect "--threads 64" 0 "*" "" dist --sample 64 --threads 64 --seed 1 --json 1d6
expect "--sample 1" 0 "*" "" dist --sample 1 --seed 1 --json 1d6
expect "--sample below the threads: a thread per roll" 0 "*" "" dist --sample 3 --threads 8 1d6
expect "--sample: a failing roll is reported" 1 "" "*" dist --sample 100 --seed 1 '1d6/(1d2-1)'
run dist --sample 100 --seed 1 --max-support 3 1d6
check "--sample: more values than the support limit" \
    "$([ "$rc" -eq 1 ] && printf '%s\n' "$err" | grep -q 'support limit is 3'; echo $?)" "$err"
# Past the exact engine's budget, the estimate still comes.
run dist --sample 2000 --seed 3 --json 1000d1000
check "--sample: 1000d1000, past the exact limits" "$rc" "$err"
run dist --sample 100000000 --seed 3 --timeout 50 4d6
check "--sample --timeout: stopped" \
    "$([ "$rc" -eq 1 ] && printf '%s\n' "$err" | grep -q 'timed out'; echo $?)" "$err"

# ---- dist --------------------------------------------------------------------

expect "dist 1d6 table" 0 "1d6
value       %   at least    at most
    1   16.67     100.00      16.67  ########################################
    2   16.67      83.33      33.33  ########################################
    3   16.67      66.67      50.00  ########################################
    4   16.67      50.00      66.67  ########################################
    5   16.67      33.33      83.33  ########################################
    6   16.67      16.67     100.00  ########################################
mean 3.50   sd 1.71   min 1   max 6   median 3" "" dist 1d6

expect "dist --at-least 1d4" 0 "1d4
value   at least       %    at most
    1     100.00   25.00      25.00  ########################################
    2      75.00   25.00      50.00  ##############################
    3      50.00   25.00      75.00  ####################
    4      25.00   25.00     100.00  ##########
mean 2.50   sd 1.12   min 1   max 4   median 2" "" dist --at-least 1d4

expect "dist --at-most 1d4" 0 "1d4
value    at most       %   at least
    1      25.00   25.00     100.00  ##########
    2      50.00   25.00      75.00  ####################
    3      75.00   25.00      50.00  ##############################
    4     100.00   25.00      25.00  ########################################
mean 2.50   sd 1.12   min 1   max 4   median 2" "" dist --at-most 1d4

expect "dist --csv 1d4" 0 "value,probability,at_least,at_most
1,0.25,1,0.25
2,0.25,0.75,0.5
3,0.25,0.5,0.75
4,0.25,0.25,1" "" dist --csv 1d4

run dist --json 3d6
check "dist --json: exit 0" $rc "$err"
check "dist --json: one line" "$([ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]; echo $?)" "$out"
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["expression"] == "3d6", d["expression"]
assert len(d["outcomes"]) == 16, len(d["outcomes"])
assert d["outcomes"][0][0] == 3 and d["outcomes"][-1][0] == 18
assert abs(sum(p for _, p in d["outcomes"]) - 1) < 1e-12' 2>"$tmp/py_err"
    check "dist --json 3d6: parses, 16 outcomes" $? "$out$nl$(cat "$tmp/py_err")"
else
    echo "skip: python3 not found, dist --json not parsed"
fi

# Values so unlikely that they round to 0.00 are still listed (--all).
run dist --all 10d6
check "dist 10d6: exit 0" $rc "$err"
has "$out" '^   10 1\.7e-06 +100\.00 +1\.7e-06$'
check "dist 10d6: a chance below 0.005% in two digits (1/6^10), without a bar" $? "$out"
check "dist 10d6: 51 values" "$([ "$(printf '%s\n' "$out" | sed 1d | grep -c '^ *[0-9]')" -eq 51 ]; echo $?)" "$out"
out=$("$ALEA" dist --all 300d20 2>&1); rc=$?
check "dist 300d20: exit 0" $rc "$out"
has "$out" '^  300 4\.9e-389 +100\.00 +4\.9e-389$'
check "dist 300d20: all 1s is listed below the double range (20^-300)" $? "$out"
has "$out" 'min 300   max 6000'
check "dist 300d20: the true min and max" $? "$out"

# ---- compare -----------------------------------------------------------------

expect "compare 1d4 1d6+1" 0 "% chance of each value
 value     1d4   1d6+1
     1   25.00
     2   25.00   16.67
     3   25.00   16.67
     4   25.00   16.67
     5           16.67
     6           16.67
     7           16.67
  mean    2.50    4.50
    sd    1.12    1.71
   min       1       2
   max       4       7
median       2       4

A vs B          A > B    A = B    A < B     TV     KS   EMD
1d4 vs 1d6+1   12.50%   12.50%   75.00%  0.500  0.500  2.00" "" compare 1d4 1d6+1

expect "compare --at-least" 0 "% chance of at least each value
 value     1d2     2d2
     1  100.00  100.00
     2   50.00  100.00
     3    0.00   75.00
     4    0.00   25.00
  mean    1.50    3.00
    sd    0.50    0.71
   min       1       2
   max       2       4
median       1       3

A vs B        A > B    A = B    A < B     TV     KS   EMD
1d2 vs 2d2    0.00%   12.50%   87.50%  0.750  0.750  1.50" "" compare --at-least 1d2 2d2

# compare's distances, worked by hand. 1d4 against 1d6+1: of the 24 pairs,
# 3 have A > B ((3,2), (4,2), (4,3)), 3 A = B (2, 3, 4), 18 A < B; the
# chances of each value differ by 1/4 at 1, 1/12 at 2 to 4, 1/6 at 5 to 7:
# TV = (1/4 + 3/12 + 3/6)/2 = 1/2; P(A <= v) - P(B <= v) = 1/4, 1/3, 5/12,
# 1/2, 1/3, 1/6: KS = 1/2, EMD = 2 (the means' difference: A never passes
# B). 1d2 against 2d2 (above): A > B never, A = B at 2 (1/2 times 1/4);
# the chances of 1 to 4 differ by 1/2, 1/4, 1/2, 1/4: TV = 3/4; P(A <= v) -
# P(B <= v) = 1/2, 3/4, 1/4, 0: KS = 3/4, EMD = 3/2.
run compare --pairs --exact d2 d3 d4
[ "$rc" = 0 ] && [ "$(printf '%s\n' "$out" | sed -n '/^median/,$p' | tail -n +2)" = "
A vs B      A > B    A = B    A < B     TV     KS   EMD
d2 vs d3   16.67%   33.33%   50.00%  0.333  0.333  0.50
        exact  A > B 1/6  A = B 1/3  A < B 1/2  TV 1/3  KS 1/3  EMD 1/2
d2 vs d4   12.50%   25.00%   62.50%  0.500  0.500  1.00
        exact  A > B 1/8  A = B 1/4  A < B 5/8  TV 1/2  KS 1/2  EMD 1
d3 vs d4   25.00%   25.00%   50.00%  0.250  0.250  0.50
        exact  A > B 1/4  A = B 1/4  A < B 1/2  TV 1/4  KS 1/4  EMD 1/2" ]
check "compare --pairs --exact: every pair, with its fractions" $? "$out"
run compare d2 d3 d4
[ "$rc" = 0 ] && has "$out" '^d2 vs d3 ' && has "$out" '^d2 vs d4 ' && ! has "$out" '^d3 vs d4'
check "compare: each expression against the first, without --pairs" $? "$out"
run compare 'plain d20 plus five=d20+5' 'advantage on a d20 roll=2d20kh1'
[ "$rc" = 0 ] && [ "$(printf '%s\n' "$out" | tail -n 3)" = "    A > B    A = B    A < B     TV     KS   EMD
plain d20 plus five vs advantage on a d20 roll
   55.50%    4.69%   39.81%  0.312  0.250  1.68" ] &&
    [ -z "$(printf '%s\n' "$out" | awk 'length > 80')" ]
check "compare: a pair whose names pass 80 columns on a line of its own" $? "$out"
run compare --csv d2 d3
! has "$out" 'vs'
check "compare --csv: the rows alone" $? "$out"

expect "compare --csv" 0 "value,1d2,\"max(1d2, 2)\"
1,0.5,
2,0.5,1" "" compare --csv 1d2 'max(1d2, 2)'

expect "compare --csv --at-most" 0 "value,1d2,2d2
1,0.5,0
2,1,0.25
3,1,0.75
4,1,1" "" compare --csv --at-most 1d2 2d2

expect "compare: a bad second expression" 1 "" "*" compare 1d6 2d+3

# ---- the Double Down roll's boons ----------------------------------------------

# dd(6, 14): 0.55 * (2 + 1) + 0.10 * (4 + 1) = 2.15 boons; 0.25 * 2 + 0.10 * 4 = 0.9 banes
run dist --boons 10:1,14:2,16:6 --multipliers -2,-1,1,2 --drive 1 'dd(6, 14)'
check "dist --boons: exit 0" $rc "$err"
has "$out" '^expected boons 2\.15   expected banes 0\.90$'
check "dist --boons: expected boons and banes" $? "$out"
run compare --boons 14:2 --multipliers -2,-1,1,2 --drive 1 'dd(6, 14)' 'dd(6, 14, always)'
has "$out" '^ *boons +2\.15 +2\.75$'
check "compare --boons: a boons row per policy" $? "$out"
has "$out" '^ *banes +0\.90 +1\.11$'
check "compare --boons: a banes row" $? "$out"
expect "--boons on something else than dd()" 1 "" \
    "alea: invalid argument: boons are computed for a dd() roll: the expression must be a dd() call" \
    dist --boons 14:2 3d6
expect "--boons: a bad table" 2 "" "*" dist --boons 14:x 'dd(6, 14)'
expect "--boons: difficulties must ascend" 2 "" "*" dist --boons 14:2,10:1 'dd(6, 14)'
expect "--multipliers: four numbers" 2 "" "*" dist --boons 14:2 --multipliers 1,2 'dd(6, 14)'

# ---- dialects -----------------------------------------------------------------

expect "--dialect: a bad name" 2 "" "*" roll --dialect anydice 1d6
has "$err" "one of alea, roll20, foundry, rpgdr, d20"
check "--dialect: a bad name lists the dialects" $? "$err"
expect "--dialect roll20: >3 is at least 3" 0 "3d6>=3 [5*, 4*, 4*] = 3" "" \
    roll --dialect roll20 --seed 1 '3d6>3'
expect "--dialect: the hint names it" 0 "3d6>3 [5*, 4*, 4*] = 3" \
    "alea: hint: '>3' on dice counts 4 or more; Roll20 reads it as 3 or more (--dialect roll20); Avrae's d20 reads it as (3d6) > 3 (--dialect d20)" \
    roll --seed 1 '3d6>3'
run dist --dialect d20 --csv 'd%'
has "$out" '^90,0\.1,0\.1,'
check "dist --dialect d20: d% is a tens die" $? "$out"
printf '3d6>3\n' > "$tmp/r20"
run_from "$tmp/r20" roll --dialect roll20 --seed 1
[ "$rc" -eq 0 ] && [ "$out" = "3d6>=3 [5*, 4*, 4*] = 3" ]
check "--dialect on standard input" $? "$rc$nl$out$nl$err"

# ---- let, if, sum and truth values through roll, dist, compare --------------

# a name is one roll: a + a is twice one d20 (even, 5% each), not 2d20
run compare --csv 'let a = d20 in a + a' 2d20
has "$out" '^value,let a = d20 in a \+ a,2d20$' && has "$out" '^2,0\.05,0\.0025$' &&
    has "$out" '^3,,0\.005$' && has "$out" '^40,0\.05,0\.0025$' &&
    [ "$(printf '%s\n' "$out" | grep -c '^[0-9]*,0\.05,')" -eq 20 ]
check "compare: let a = d20 in a + a against 2d20" $? "$out"
run compare 'let a = d20 in a + a' 2d20
has "$out" '^  mean +21\.00 +21\.00$' && has "$out" '^    sd +11\.53 +8\.15$'
check "compare: the same mean, a wider spread" $? "$out"
run dist 'let x = 3d6 in x - x'
has "$out" '^    0  100\.00 ' && has "$out" '^mean 0\.00   sd 0\.00   min 0   max 0'
check "dist: let x = 3d6 in x - x is always 0" $? "$out"
run dist --exact 'sum(8, (d20) >= 18) >= 1'
has "$out" '^    1   72\.75 .* 18624242559/25600000000 '
check "dist --exact: a critical in 8 attacks, 1 - (17/20)^8" $? "$out"
run dist --exact 'if((d20) >= 11 and not ((d20) = 1), 2d6, 0)'
has "$out" '^exact mean 133/40 '
check "dist --exact: if with and, not" $? "$out"
# each roll of -n rolls the name anew; the breakdown shows it once
run roll --seed 5 -n 3 'let a = d6 in a * 10 + a'
[ "$(printf '%s\n' "$out" | grep -Ec '^let a = d6 \[([1-6])\] in a \* 10 \+ a = \1\1$')" -eq 3 ]
check "roll -n: let's breakdown, a rolled once per roll" $? "$out"
run roll --json --seed 3 'let a = d20, b = a + 2 in if(a >= 10, b, 0) + sum(2, d4)'
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$out" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
a = r["dice"][0]["value"]
assert r["bound"] == [{"name": "a", "term": "d20", "value": a},
                      {"name": "b", "term": "a + 2", "value": a + 2}], r["bound"]
(i, s) = r["groups"]
assert i["branch"] == ("then" if a >= 10 else "else") and "count" not in i, i
assert s["count"] == 2 and len(s["members"]) == 2 and "branch" not in s, s
assert r["total"] == i["value"] + s["value"]' 2>"$tmp/py_err"
    check "roll --json: bound, an if's branch, a sum's count" $? "$out$nl$(cat "$tmp/py_err")"
    run roll --json --seed 3 '2d6'
    printf '%s\n' "$out" | python3 -c '
import json, sys
assert "bound" not in json.loads(sys.stdin.read())' 2>"$tmp/py_err"
    check "roll --json: no bound without let" $? "$out"
fi
expect "roll: an unknown name in a let, the names in scope and the caret" 1 "" \
    "alea: syntax error: unknown name 'b' at byte 19 (in scope: a)
  let a = d20 in a + b
                     ^" roll 'let a = d20 in a + b'

# ---- fairness: a log of rolls judged against fair dice -------------------------

# d6 rolled 60 times, 20 ones and 8 of each other face: the chi-square is
# (10^2 + 5 * 2^2) / 10 = 12 on 5 degrees of freedom, p = 0.0348.
awk 'BEGIN { for (i = 0; i < 20; i++) print "d6 1"; for (v = 2; v <= 6; v++) for (i = 0; i < 8; i++) print "d6", v }' >"$tmp/d6.log"
run_from "$tmp/d6.log" fairness --seed 1
has "$out" '^  chi-square of d6: 12\.00, df 5 +60 rolls  p = 0\.0348 ' && has "$out" '^60 rolls, placed with seed 1$'
check "fairness: the chi-square of d6 worked by hand" $? "$out$nl$err"
# A d20 that never shows 20: lower than fair dice, exit status 3.
awk 'BEGIN { for (i = 0; i < 3000; i++) print "d20", 1 + i % 19 }' >"$tmp/d20.log"
run_from "$tmp/d20.log" fairness --seed 1
has "$out" '^verdict: these rolls are lower than fair dice give: p = ' && [ "$rc" = 3 ]
check "fairness: a d20 without 20s is low (exit 3)" $? "$rc $out$nl$err"
# alea's own rolls, as roll --json prints them (a repeat's each roll), are fair.
"$ALEA" roll --json -n 2000 --seed 3 d20 >"$tmp/roll.log"
"$ALEA" roll --json -n 100 --seed 4 '4 x 3d6' >>"$tmp/roll.log"
run_from "$tmp/roll.log" fairness --seed 2
has "$out" '^2400 rolls, placed with seed 2$' && has "$out" '^verdict: consistent with fair dice$' && [ "$rc" = 0 ]
check "fairness: alea's own roll --json lines are fair" $? "$rc $out$nl$err"
expect "fairness FILE: the same as standard input" 0 "$out" "" fairness --seed 2 "$tmp/roll.log"
want=$out
run_from "$tmp/roll.log" fairness --seed 2 -
[ "$rc" = 0 ] && [ "$out" = "$want" ]
check "fairness -: standard input" $? "$rc $out"
run_from "$tmp/roll.log" fairness --json --seed 2
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$out" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
assert r["rolls"] == 2400 and r["refused"] == 0 and r["seed"] == 2, r
assert r["verdict"] == "fair" and r["direction"] is None and r["alpha"] == 0.01, r
assert [t["name"] for t in r["tests"]] == ["mean", "ks", "chi-square", "chi-square"], r
assert r["tests"][3]["expression"] == "4 x 3d6" and r["tests"][3]["rolls"] == 400, r
assert r["tests"][0]["direction"] in ("low", "high") and "df" not in r["tests"][0], r
assert r["p"] == min(t["p_adjusted"] for t in r["tests"]), r'
    check "fairness --json: the fields" $? "$out"
fi
# Bad lines: each reported with its line and byte, the others judged; exit 1.
printf '# a log\nd20 17\n\nd20 21\nd20 x\nd20+ 3\n{"expression": "d6", "total": 9}\n{"expression": "d6"\nd20\n4d6kh3   12  \n' >"$tmp/bad.log"
run_from "$tmp/bad.log" fairness --seed 2
want_err="alea: line 4, byte 1: undefined result: 'd20' cannot total 21 (its totals run from 1 to 20)
  d20 21
  ^^^
alea: line 5, byte 5: the total 'x' is not a whole number
  d20 x
      ^
alea: line 6, byte 5: syntax error: expected a number, a die or '(' at byte 4, found the end of the expression
  d20+ 3
      ^
alea: line 7, byte 17: undefined result: 'd6' cannot total 9 (its totals run from 1 to 6)
  {\"expression\": \"d6\", \"total\": 9}
                  ^^
alea: line 8, byte 20: ',' or '}' was expected
  {\"expression\": \"d6\"
                     ^
alea: line 9, byte 1: a line is an expression and its total: no total after 'd20'
  d20
  ^^^"
[ "$rc" = 1 ] && [ "$err" = "$want_err" ] && has "$out" '^2 rolls \(6 lines refused\), placed with seed 2$' &&
    has "$out" '^verdict: too few rolls to judge \(2; the tests need 10\)$'
check "fairness: bad lines named by line and byte, the rest judged" $? "$rc$nl$out$nl$err"
# The longest line, 4 MiB, at N and N+1 bytes.
spaces() { head -c "$1" /dev/zero | tr '\0' ' '; }
{ spaces 4194300; printf 'd6 3\n '; spaces 4194300; printf 'd6 3\n'; } >"$tmp/long.log"
run_from "$tmp/long.log" fairness --seed 2
[ "$rc" = 1 ] && has "$out" '^1 roll \(1 line refused\)' &&
    [ "$(printf '%s\n' "$err" | head -1)" = "alea: line 2, byte 1: the line is longer than 4194304 bytes (the most a line may have)" ]
check "fairness: a line of 4 MiB is read, one byte more refused" $? "$rc $out$nl$(printf '%s\n' "$err" | head -1)"
# A line's JSON: at most 262144 values (its brackets, braces, commas and
# colons, and one), at N and N+1: k zeros in a list make k + 7.
json_zeros() { awk -v k="$1" 'BEGIN { printf "{\"expression\": \"d6\", \"total\": 3, \"x\": [0"
    for (i = 1; i < k; i++) printf ",0"; print "]}" }'; }
json_zeros 262137 >"$tmp/values.log"
run_from "$tmp/values.log" fairness --seed 2
[ "$rc" = 0 ] && has "$out" '^1 roll, placed with seed 2$' && [ -z "$err" ]
check "fairness: a JSON line of 262144 values is read" $? "$rc $out$nl$err"
json_zeros 262138 >"$tmp/values.log"
run_from "$tmp/values.log" fairness --seed 2
[ "$rc" = 1 ] && has "$out" '^0 rolls \(1 line refused\)' &&
    [ "$(printf '%s\n' "$err" | head -1)" = "alea: line 1, byte 1: the line's JSON holds more than 262144 values (the most a line may hold)" ]
check "fairness: one value more is refused before it is parsed" $? "$rc $out$nl$(printf '%s\n' "$err" | head -1)"
printf 'd20 3\n300d1000 150000\nd20 5\n' >"$tmp/slow.log"
run_from "$tmp/slow.log" fairness --timeout 5 --max-work 1000000000000 --max-support 1000000 --seed 1
[ "$rc" = 1 ] && has "$out" '^2 rolls \(1 line refused\)' &&
    has "$err" '^alea: line 2, byte 1: timed out: the expression ran past --timeout and was stopped$'
check "fairness --timeout: a line past it is refused, the others judged" $? "$rc $out$nl$err"
# the last line past it: the verdict still comes (the tests once ran in what
# that line had left of its --timeout, and were stopped)
printf 'd20 3\n300d1000 150000\n' >"$tmp/slow.log"
run_from "$tmp/slow.log" fairness --timeout 5 --max-work 1000000000000 --max-support 1000000 --seed 1
[ "$rc" = 1 ] && has "$out" '^1 roll \(1 line refused\)' && has "$out" '^verdict: ' &&
    [ "$(printf '%s\n' "$err" | grep -c 'timed out')" = 1 ]
check "fairness --timeout: the last line past it, the verdict on the others" $? "$rc $out$nl$err"
expect "roll --max-rolls: the session's alone" 2 "" "alea: --max-rolls bounds what a session keeps (alea alone, at a terminal)
Try 'alea roll --help' for more information." roll --max-rolls 5 d6
expect "fairness: one file at most" 2 "" "alea: fairness reads one file (or '-', standard input)
Try 'alea fairness --help' for more information." fairness a b
run fairness "$tmp/none.log"
[ "$rc" = 1 ] && has "$err" "^alea: fairness: cannot open '.*none.log': "
check "fairness: a file that cannot be opened" $? "$rc $err"

# ---- every option is completed and in the man page ---------------------------

# The help lists each option where it is taken (cli/help.c prints it from
# the option table in cli/options.c), so an option added to the table
# fails here until scripts/completion.bash offers it and docs/alea.1 names it.
src=$(cd "$(dirname "$0")/../.." && pwd)
if command -v bash >/dev/null 2>&1; then
    all=""
    for c in roll dist compare serve table fairness ""; do
        run $c --help
        where=${c:-alea}
        taken=$( (printf '%s\n' "$out" | sed -n 's/^  \(--*[a-z][-a-z]*\).*/\1/p'
                  echo --help; [ -n "$c" ] || echo --version) | sort -u)
        valued=$(printf '%s\n' "$out" | sed -n 's/^  \(--*[a-z][-a-z]*\) [A-Z].*/\1/p')
        offered=$(bash -c '. "$1"; COMP_WORDS=(alea $2 -); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                           _alea; printf "%s\n" "${COMPREPLY[@]}"' \
                       sh "$src/scripts/completion.bash" "$c" | sort -u)
        [ "$taken" = "$offered" ]
        check "completion: the options of $where" $? \
            "$(printf 'taken:\n%s\noffered:\n%s' "$taken" "$offered")"
        # After an option that takes a value there is nothing to complete,
        # but the names of --dialect.
        valued=$(printf '%s\n' $valued | grep -v '^--dialect$' | grep -v '^--format$')
        completed=$(bash -c '. "$1"; c=$2; shift 2
                             for w in "$@"; do
                                 COMP_WORDS=(alea $c "$w" ""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                                 COMPREPLY=(); _alea
                                 [ ${#COMPREPLY[@]} -eq 0 ] || echo "$w"
                             done' sh "$src/scripts/completion.bash" "$c" $valued)
        [ -z "$completed" ]
        check "completion: nothing after the values of $where" $? "$completed"
        if [ -n "$c" ]; then
            names=$(bash -c '. "$1"; COMP_WORDS=(alea $2 --dialect ""); COMP_CWORD=3; _alea
                             printf "%s " "${COMPREPLY[@]}"' sh "$src/scripts/completion.bash" "$c")
            [ "$names" = "alea roll20 foundry rpgdr d20 " ]
            check "completion: the dialects after $c --dialect" $? "$names"
        fi
        all="$all $taken"
    done
    for o in $(printf '%s\n' $all | sort -u); do
        esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
        grep -Eq "(^|[^a-z\\\\])$esc([^a-z\\\\]|\$)" "$src/docs/alea.1"
        check "docs/alea.1 names $o" $?
    done
fi

# ---- scripts/build shows its progress on stderr -------------------------------

# In a copy of the script with stand-ins for scripts/deps and cmake, which
# say what they were asked: each step is announced, CMake's output (its
# progress) goes to stderr, and stdout stays empty.
mkdir -p "$tmp/b/scripts" "$tmp/bin"
cp "$src/scripts/build" "$tmp/b/scripts/build"
printf '#!/bin/sh\necho deps-ran >&2\n' >"$tmp/b/scripts/deps"
printf '#!/bin/sh\necho "[ 50%%] cmake $*"\n' >"$tmp/bin/cmake"
chmod +x "$tmp/b/scripts/build" "$tmp/b/scripts/deps" "$tmp/bin/cmake"
PATH="$tmp/bin:$PATH" sh "$tmp/b/scripts/build" >"$tmp/b/out" 2>"$tmp/b/err"
brc=$?
berr=$(cat "$tmp/b/err")
want="scripts/build: 1/3 checking the build dependencies (scripts/deps --build; installs what is missing)
deps-ran
scripts/build: 2/3 configuring (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DALEA_TESTS=OFF -DALEA_BENCH=OFF)
[ 50%] cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DALEA_TESTS=OFF -DALEA_BENCH=OFF
scripts/build: 3/3 building (cmake --build build -j2)
[ 50%] cmake --build build -j2
scripts/build: built build/alea"
[ "$brc" = 0 ] && [ ! -s "$tmp/b/out" ] && [ "$berr" = "$want" ]
check "scripts/build: each step and CMake's progress on stderr, nothing on stdout" $? \
    "status $brc; stdout: $(cat "$tmp/b/out"); stderr:$nl$berr"

printf '%d passed, %d failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
