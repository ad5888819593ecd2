#!/usr/bin/env bash
# completion_test.sh -- the bash completion (scripts/completion.bash) offers
# the commands, each command's options, and nothing after an option that
# takes a value.
set -u
source "$(dirname "$0")/../../scripts/completion.bash"
fail=0
complete_words() { # complete_words WORD...: COMPREPLY for the last word
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _alea
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
expect() {
    local want=$1
    shift
    local got
    got=$(complete_words "$@")
    if [ "$got" != "$want" ]; then
        echo "FAIL: $*: got '$got', want '$want'"
        fail=1
    fi
}
expect "compare " alea c
expect "roll " alea r
expect "dist " alea help d
expect "serve syntax " alea help s
expect "--seed " alea roll --se
expect "--sample --seed --support --svg " alea dist --s
expect "--tail --threads --time-limit --timeout " alea dist --t
expect " " alea dist --sample ""
expect "--at-least --at-most " alea compare --at
expect "serve " alea s
expect "--max-request --max-response " alea serve --max-re
expect "--idle-timeout " alea serve --i
expect " " alea serve --port ""
[ $fail = 0 ] && echo "bash completion: ok"
exit $fail
