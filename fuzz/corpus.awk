# corpus.awk -- the seed corpus: every expression that the tests and the docs
# already hold, one file each in the directory `dir` (scripts/fuzz corpus).
#
#   tests/lang/*.test   the expression of each block (canon, roll, json, dist,
#                       p, mean, error, disterror; see tests/lang_runner.c),
#                       and the expected canonical form after a canon line
#   docs/**/*.md        the expression arguments of each "$ alea ..." command
#   README.md           likewise, for "$ build/alea ..."
# (the roller-vs-exact test takes its corpus from the golden files too)
#
# Files are named after their source (lang-explode-012, docs-cli-003); an
# expression seen before is not written again.

function emit(kind, s,    f) {
    if (s in seen)
        return
    seen[s] = 1
    f = sprintf("%s/%s-%03d", dir, kind, ++count[kind])
    printf "%s", s > f
    close(f)
}

function base(path,    b) {
    b = path
    sub(/.*\//, "", b)
    sub(/\.[^.]*$/, "", b)
    return b
}

# Splits a shell command line into words[1..n] as sh would for the plain
# quoting the docs use: '...', "..." (with \" \\ \$ \`), backslash, blanks;
# an unquoted | ; & < or > ends the command.
function shell_words(line,    n, i, c, w, inword, q) {
    n = 0; w = ""; inword = 0; q = ""
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q == "'") {
            if (c == "'") q = ""; else w = w c
        } else if (q == "\"") {
            if (c == "\"") q = ""
            else if (c == "\\" && index("\"\\$`", substr(line, i + 1, 1))) { w = w substr(line, i + 1, 1); i++ }
            else w = w c
        } else if (c == "'" || c == "\"") {
            q = c; inword = 1
        } else if (c == "\\") {
            w = w substr(line, i + 1, 1); i++; inword = 1
        } else if (index("|;&<>", c)) {
            break        # a pipe or a redirection: the command ends here
        } else if (c == " " || c == "\t") {
            if (inword) { words[++n] = w; w = ""; inword = 0 }
        } else {
            w = w c; inword = 1
        }
    }
    if (inword) words[++n] = w
    return n
}

# The expressions of "$ alea [COMMAND] [OPTIONS] EXPR...".
function alea_command(line, kind,    n, i, w) {
    n = shell_words(line)
    if (n < 2 || words[1] != "$" || (words[2] != "alea" && words[2] != "build/alea"))
        return
    i = 3
    if (words[i] == "roll" || words[i] == "dist" || words[i] == "compare")
        i++
    else if (words[i] == "help")
        return
    for (; i <= n; i++) {
        w = words[i]
        if (w == "-n" || w == "--seed" || w == "--tail" || w == "--boons" ||
            w == "--multipliers" || w == "--drive" || w == "--sample" ||
            w == "--threads" || w == "--timeout" || w == "--time-limit" || w ~ /^--max-/)
            i++          # an option and its value
        else if (w ~ /^--?[a-z][-a-z]*$/ && w != "-proficient")
            continue     # a flag: --json, --at-least, --support, --version
        else
            emit(kind, w)
    }
}

FNR == 1 {
    block_start = 1
    want_canon = 0
    in_corpus = 0
}

FILENAME ~ /\.test$/ {
    kind = "lang-" base(FILENAME)
    if ($0 == "") { block_start = 1; want_canon = 0; next }
    if ($0 ~ /^#/) next
    if (want_canon) { emit(kind, $0); want_canon = 0; next }
    if (!block_start) next
    block_start = 0
    line = $0
    if (match(line, /^(canon|dist|error|disterror) /) || line == "error" || line == "error ") {
        e = substr(line, index(line, " ") + 1)
        if (line == "error") e = ""
        emit(kind, e)
        want_canon = line ~ /^canon /
    } else if (match(line, /^(roll|json) [0-9]+ /)) {
        emit(kind, substr(line, RLENGTH + 1))
    } else if (match(line, /^(p|mean) [^ ]+/)) {
        split(line, f, " ")
        emit(kind, f[2])
    }
    next
}

FILENAME ~ /\.md$/ {
    if ($0 ~ /^\$ (build\/)?alea /)
        alea_command($0, "docs-" base(FILENAME))
    next
}

