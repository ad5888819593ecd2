/*
 * options.c -- the option table and the parser that reads argv through it.
 *
 * An option is one row of option_table: its name, the kind of its value,
 * the commands that take it, what it sets, the message for a bad value
 * and its help. The parser below and the help (help.c) never name an
 * option; tests/cli/run.sh checks that each one the help lists is in the
 * bash completion and the man page.
 */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include "options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* isatty */
#include <arpa/inet.h> /* inet_pton, for --bind */
#include <netinet/in.h>

/* ---- values -------------------------------------------------------------- */

/* Parses a decimal integer in [lo, hi] (a k/M/G suffix when bytes is set);
 * the whole string must be used. */
static int parse_int(const char *s, int bytes, int64_t lo, int64_t hi,
                     int64_t *out)
{
    if (!((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9')))
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return 0;
    if (bytes && *end) {
        long long mul = 0;
        switch (*end) {
        case 'k': case 'K': mul = 1024LL; break;
        case 'm': case 'M': mul = 1024LL * 1024; break;
        case 'g': case 'G': mul = 1024LL * 1024 * 1024; break;
        default: return 0;
        }
        end++;
        if (v > LLONG_MAX / mul || v < LLONG_MIN / mul)
            return 0;
        v *= mul;
    }
    if (*end || v < lo || v > hi)
        return 0;
    *out = (int64_t)v;
    return 1;
}

int parse_u64(const char *s, uint64_t *out)
{
    if (!(s[0] >= '0' && s[0] <= '9'))
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE || *end)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

int limit_is_bytes(alea_limit l)
{
    return l == ALEA_LIMIT_SOURCE || l == ALEA_LIMIT_MEMORY || l == ALEA_LIMIT_BREAKDOWN ||
           l == ALEA_LIMIT_OUTPUT;
}

/* ---- setters: the options that are more than a field --------------------- */

static int set_seed(options *o, const option_value *v)
{
    if (!parse_u64(v->text, &o->seed))
        return 0;
    o->seed_set = 1;
    return 1;
}

static int set_cumul(options *o, cumul_mode m)
{
    if (o->cumul != SHOW_EXACT && o->cumul != m)
        return 0; /* --at-least and --at-most exclude each other */
    o->cumul = m;
    return 1;
}

static int set_at_least(options *o, const option_value *v)
{
    (void)v;
    return set_cumul(o, SHOW_AT_LEAST);
}

static int set_at_most(options *o, const option_value *v)
{
    (void)v;
    return set_cumul(o, SHOW_AT_MOST);
}

static int set_tail(options *o, const option_value *v)
{
    char *end;
    errno = 0;
    double t = strtod(v->text, &end);
    if (!*v->text || *end || errno == ERANGE || !(t > 0))
        return 0;
    o->tail = t;
    o->tail_text = v->text;
    o->tail_set = 1;
    return 1;
}

static int set_dialect(options *o, const option_value *v)
{
    int d = alea_dialect_find(v->text);
    if (d < 0)
        return 0;
    o->dialect = d;
    return 1;
}

static int set_format(options *o, const option_value *v)
{
    static const char *const names[] = {"text", "ansi", "json", "markdown"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(v->text, names[i])) {
            o->color = i == 1;
            o->json = i == 2;
            o->markdown = i == 3;
            return 1;
        }
    return 0;
}

/* table --stat: each is kept as written (sweep.c reads it). */
static int set_stat(options *o, const option_value *v)
{
    if (o->nstats == STATS_MAX || !*v->text)
        return 0;
    o->stats[o->nstats++] = v->text;
    return 1;
}

static int set_timeout(options *o, const option_value *v)
{
    o->timer->ms = v->number;
    return 1;
}

static int set_time_limit(options *o, const option_value *v)
{
    o->timer->cmd_s = v->number;
    return 1;
}

static int set_limit(options *o, const option_value *v)
{
    o->limit[v->limit] = v->number;
    o->limit_set[v->limit] = 1;
    return 1;
}

/* --boons "10:1,14:2,16:6": difficulties ascending, each with its count. */
static int set_boons(options *o, const option_value *v)
{
    const char *s = v->text;
    size_t n = 0;
    while (*s) {
        char *end;
        if (n == BOON_ROWS)
            return 0;
        errno = 0;
        long long d = strtoll(s, &end, 10);
        if (end == s || *end != ':' || errno)
            return 0;
        s = end + 1;
        long long c = strtoll(s, &end, 10);
        if (end == s || (*end && *end != ',') || errno || c < 0)
            return 0;
        if (n > 0 && d <= o->boon_diff[n - 1])
            return 0;
        o->boon_diff[n] = d;
        o->boon_count[n] = c;
        n++;
        s = *end ? end + 1 : end;
    }
    if (n == 0)
        return 0;
    o->boons.difficulty = o->boon_diff;
    o->boons.count = o->boon_count;
    o->boons.n = n;
    o->boons_set = 1;
    return 1;
}

/* --multipliers "-2,-1,1,2": the multiplier of each outcome. */
static int set_multipliers(options *o, const option_value *v)
{
    const char *s = v->text;
    for (int t = 0; t < 4; t++) {
        char *end;
        errno = 0;
        double m = strtod(s, &end);
        /* finite, and small enough that a count times it stays a count */
        if (end == s || errno || !isfinite(m) || fabs(m) > 1e6 || (t < 3 && *end != ',') ||
            (t == 3 && *end))
            return 0;
        o->boons.multiplier[t] = m;
        s = end + 1;
    }
    return 1;
}

/* --bind: an address, checked here so that a typo is a usage error. */
static int set_bind(options *o, const option_value *v)
{
    unsigned char addr[sizeof(struct in6_addr)];
    if (inet_pton(AF_INET, v->text, addr) != 1 && inet_pton(AF_INET6, v->text, addr) != 1)
        return 0;
    o->bind = v->text;
    return 1;
}

/* --svg FILE: where the chart goes ("-": standard output, in place of the
 * text). */
static int set_svg(options *o, const option_value *v)
{
    if (!v->text[0])
        return 0;
    o->svg = v->text;
    return 1;
}

/* ---- the table ----------------------------------------------------------- */

#define AT(field) offsetof(options, field)

/*
 * Every option. The order is the order of the help: each part of a
 * command's help lists the rows that command takes, top to bottom.
 */
const option_spec option_table[] = {
    {.name = "-n", .arg = "N", .kind = ARG_INT, .lo = 1, .hi = INT64_MAX, .commands = ROLL,
     .at = AT(n), .bad = "a positive integer",
     .part = PART_MAIN, .help = "roll each expression N times [1]"},
    {.name = "--max-rolls", .arg = "N", .kind = ARG_INT, .lo = 1, .hi = SERVE_FAIRNESS_ROLLS_MAX,
     .commands = ROLL, .at = AT(max_rolls),
     .bad = "a number from 1 to " STR(SERVE_FAIRNESS_ROLLS_MAX),
     .part = PART_MAIN, .help = "the session (alea alone, at a terminal): the rolls it\n"
                                "keeps for :fairness; later ones are counted, not\n"
                                "judged [" STR(SESSION_ROLLS) "]"},
    {.name = "--luck", .commands = ROLL, .at = AT(luck),
     .part = PART_MAIN, .help = "after each roll its luck: P(<= total) and P(>= total)\n"
                                "in its exact distribution, computed once per\n"
                                "expression (\"luck\": {\"at_most\", \"at_least\"} in\n"
                                "--json; a list of them for a repeat)"},
    {.name = "--at-least", .commands = DIST | COMPARE, .set = set_at_least,
     .bad = "--at-least and --at-most exclude each other",
     .part = PART_MAIN, .help = "chart P(X >= value) instead of P(X = value)",
     .differs = {CMD_COMPARE, PART_MAIN, "show P(X >= value) in every cell"}},
    {.name = "--at-most", .commands = DIST | COMPARE, .set = set_at_most,
     .bad = "--at-least and --at-most exclude each other",
     .part = PART_MAIN, .help = "chart P(X <= value)",
     .differs = {CMD_COMPARE, PART_MAIN, "show P(X <= value)"}},
    {.name = "--exact", .commands = POLICY, .at = AT(exact),
     .part = PART_MAIN, .help = "the goal's values as fractions in lowest terms\n"
                                "(strings \"num/den\" in --json and --csv)"},
    {.name = "--exact", .commands = DIST | COMPARE | TABLE, .at = AT(exact),
     .part = PART_MAIN, .help = "exact fractions: each probability as a fraction in\n"
                                "lowest terms beside its percentage (strings \"num/den\"\n"
                                "in --json and --csv), the mean and variance too",
     .differs = {CMD_TABLE, PART_MAIN, "cells as fractions in lowest terms (means and\n"
                                       "probabilities; strings \"num/den\" in --json)"}},
    {.name = "--stat", .arg = "STAT", .kind = ARG_TEXT, .commands = TABLE, .set = set_stat,
     .bad = "a statistic (mean, sd, median, p>=N, p<=N, p=N, pN or a named probability; "
            "at most " STR(STATS_MAX) ")",
     .part = PART_MAIN, .help = "mean (the default), sd, median, p>=N, p<=N, p=N, pN\n"
                                "(a percentile), or a probability the expression names\n"
                                "('critical failure'); each --stat a table of its own,\n"
                                "or a column with one name [at most " STR(STATS_MAX) "]"},
    {.name = "--cells", .arg = "N", .kind = ARG_INT, .lo = 1, .hi = TABLE_CELLS_MAX,
     .commands = TABLE, .at = AT(cells), .bad = "a number of cells from 1 to " STR(TABLE_CELLS_MAX),
     .part = PART_MAIN, .help = "compute at most N cells [" STR(TABLE_CELLS) "]; all of them\n"
                                "share one work limit"},
    {.name = "--all", .commands = DIST | COMPARE, .at = AT(all),
     .part = PART_MAIN, .help = "every row: the table hides the runs of values at\n"
                                "either end below 0.005% (it says how many, and\n"
                                "their total); JSON and CSV are always whole"},
    {.name = "--pairs", .commands = COMPARE, .at = AT(pairs),
     .part = PART_MAIN, .help = "the distances between every pair of expressions, not\n"
                                "only each against the first"},
    {.name = "--sample", .arg = "N", .kind = ARG_INT, .lo = 1, .hi = SAMPLE_MAX,
     .commands = DIST, .at = AT(sample),
     .bad = "a number of rolls from 1 to " STR(SAMPLE_MAX),
     .part = PART_SAMPLING, .help = "roll N times (at most 10^12) and count: each probability\n"
                                    "with its 95% interval, marked as an estimate"},
    {.name = "--threads", .arg = "T", .kind = ARG_INT, .lo = 1, .hi = THREADS_MAX,
     .commands = DIST | SERVE, .at = AT(threads), .bad = "a number from 1 to " STR(THREADS_MAX),
     .part = PART_SAMPLING,
     .help = "roll on T threads [every core, at most " STR(THREADS_MAX) "]",
     .differs = {CMD_SERVE, PART_MAIN, "threads that answer requests [every core, at most\n"
                                       "--max-connections]"}},
    {.name = "--seed", .arg = "S", .kind = ARG_TEXT, .commands = ROLL | DIST,
     .set = set_seed, .bad = "an integer from 0 to 18446744073709551615",
     .part = PART_MAIN, .help = "seed the generator with S (0 to 18446744073709551615)\n"
                                "so the rolls are reproducible; default: from the OS",
     .differs = {CMD_DIST, PART_SAMPLING, "the streams' seed [from the OS, shown]: the same "
                                          "seed\nand threads give the same estimate"}},
    {.name = "--seed", .arg = "S", .kind = ARG_TEXT, .commands = FAIRNESS, .set = set_seed,
     .bad = "an integer from 0 to 18446744073709551615",
     .part = PART_MAIN, .help = "seed the draws that place each roll within its total's\n"
                                "probability [from the OS, shown]: the same seed gives\n"
                                "the same p-values"},
    {.name = "--dialect", .arg = "NAME", .kind = ARG_TEXT, .commands = ANY | SERVE,
     .set = set_dialect, .bad = "one of alea, roll20, foundry, rpgdr, d20",
     .part = PART_MAIN, .help = "read the expressions as another tool does: roll20,\n"
                                "foundry, rpgdr (rpg-dice-roller), d20 (Avrae) [alea]"},
    {.name = "--format", .arg = "F", .kind = ARG_TEXT, .commands = ROLL | TABLE, .set = set_format,
     .bad = "one of text, ansi, json, markdown",
     .part = PART_MAIN, .help = "text, ansi (colours, the default on a terminal), json\n"
                                "(as --json), or markdown: for a chat, dropped dice\n"
                                "~~struck~~, criticals **bold**, the total `in code`",
     .differs = {CMD_TABLE, PART_MAIN, "text, or markdown: pipe tables for a document"}},
    {.name = "--json", .commands = ROLL | DIST, .at = AT(json),
     .part = PART_MAIN, .help = "one JSON object per roll and line",
     .differs = {CMD_DIST, PART_MAIN, "the distribution as one JSON object"}},
    {.name = "--json", .commands = COMPARE, .at = AT(json),
     .part = PART_MAIN, .help = "{\"columns\": [...], \"versus\": [...]}: each distribution\n"
                                "as dist --json prints it, with \"name\" first (null if\n"
                                "unnamed); each pair's {\"a\", \"b\" (indexes of columns),\n"
                                "\"p_greater\", \"p_equal\", \"p_less\", \"tv\", \"ks\", \"emd\"}"},
    {.name = "--json", .commands = TABLE, .at = AT(json),
     .part = PART_MAIN, .help = "{\"expression\", \"names\", \"values\", \"stats\": [{\"stat\",\n"
                                "\"cells\"}]}: cells a row per value of the first name"},
    {.name = "--json", .commands = FAIRNESS, .at = AT(json),
     .part = PART_MAIN, .help = "{\"rolls\", \"refused\", \"seed\", \"verdict\", \"direction\",\n"
                                "\"p\", \"alpha\", \"text\", \"tests\": [{\"name\", \"expression\",\n"
                                "\"rolls\", \"statistic\", \"p\", \"p_adjusted\", ...}]}"},
    {.name = "--json", .commands = POLICY, .at = AT(json),
     .part = PART_MAIN, .help = "{\"expression\", \"goal\", \"probability\", \"value\",\n"
                                "\"rows\": [{\"seen\", \"choice\", \"chance\", \"value\",\n"
                                "\"plain\"}]}"},
    {.name = "--csv", .commands = POLICY, .at = AT(csv),
     .part = PART_MAIN, .help = "seen,choice,chance,value,plain rows"},
    {.name = "--csv", .commands = TABLE, .at = AT(csv),
     .part = PART_MAIN, .help = "NAME,STAT,... rows with one name; with two,\n"
                                "stat,NAME,NAME2=V,... rows"},
    {.name = "--csv", .commands = DIST | COMPARE, .at = AT(csv),
     .part = PART_MAIN, .help = "value,probability,at_least,at_most rows",
     .differs = {CMD_COMPARE, PART_MAIN, "value,<expression>,... rows of probabilities"}},
    {.name = "--svg", .arg = "FILE", .kind = ARG_TEXT, .commands = DIST | COMPARE,
     .set = set_svg, .bad = "a file name ('-' for standard output)",
     .part = PART_MAIN, .help = "also write the chart as an SVG picture to FILE ('-':\n"
                                "standard output, in place of the text): bars, titled\n"
                                "and with every number as text for a screen reader",
     .differs = {CMD_COMPARE, PART_MAIN, "also write the chart as an SVG picture to FILE\n"
                                         "('-': standard output): a line per expression,\n"
                                         "each its own dash and marker"}},
    {.name = "--svg", .arg = "FILE", .kind = ARG_TEXT, .commands = TABLE, .set = set_svg,
     .bad = "a file name ('-' for standard output)",
     .part = PART_MAIN, .help = "also write the table as an SVG picture to FILE ('-':\n"
                                "standard output): a heat map for two names (one\n"
                                "--stat), a line per --stat for one"},
    {.name = "--boons", .arg = "D:N,...", .kind = ARG_TEXT, .commands = DIST | COMPARE,
     .set = set_boons, .bad = "a table such as 10:1,14:2,16:6 (difficulties ascending, at "
                              "most " STR(BOON_ROWS) ")",
     .part = PART_BOONS, .help = "boons or banes earned at each difficulty, as in\n"
                                 "10:1,14:2,16:6 (the last row <= the roll's applies)"},
    {.name = "--multipliers", .arg = "A,B,C,D", .kind = ARG_TEXT, .commands = DIST | COMPARE,
     .set = set_multipliers,
     .bad = "four finite numbers (each at most 1000000 in size) such as -2,-1,1,2 (critical "
            "failure, failure, success, critical success)",
     .part = PART_BOONS, .help = "per outcome (critical failure, failure, success,\n"
                                 "critical success); negative means banes\n"
                                 "(default 0,0,1,1)"},
    {.name = "--drive", .arg = "N", .kind = ARG_INT, .lo = 0, .hi = 1000,
     .commands = DIST | COMPARE, .at = AT(drive), .bad = "a whole number from 0 to 1000",
     .part = PART_BOONS, .help = "drive spent: N boons on a success or better"},
    {.name = "--support", .commands = DIST | COMPARE, .at = AT(support),
     .part = PART_BOONS, .help = "a support roll: half boons"},
    {.name = "--max-", .kind = ARG_LIMIT, .lo = 0, .hi = INT64_MAX, .commands = ANY | SERVE,
     .set = set_limit, .bad = "a non-negative integer",
     .part = PART_LIMITS /* the name, default and text of each limit: the library's */},
    {.name = "--tail", .arg = "P", .kind = ARG_TEXT, .commands = ANY | SERVE, .set = set_tail,
     .bad = "a probability", .shown_default = ALEA_TAIL_DEFAULT,
     .part = PART_LIMITS, .help = "probability left in an explosion tail when dist stops "
                                  "following it"},
    {.name = "--timeout", .arg = "MS", .kind = ARG_INT, .lo = 0, .hi = TIMEOUT_MAX_MS,
     .commands = ANY, .set = set_timeout,
     .bad = "a number of milliseconds from 0 (none) to " STR(TIMEOUT_MAX_MS),
     .part = PART_LIMITS, .help = "milliseconds one expression may take (all its rolls, or "
                                  "its distribution; each line of standard input)"},
    {.name = "--time-limit", .arg = "S", .kind = ARG_INT, .lo = 0, .hi = TIME_LIMIT_MAX,
     .commands = ANY, .set = set_time_limit, .shown_default = TIME_LIMIT_DEFAULT,
     .bad = "a number of seconds from 0 (none) to " STR(TIME_LIMIT_MAX),
     .part = PART_LIMITS, .help = "seconds the whole command may take (each line of "
                                  "standard input or of the session); 0: no limit"},
    /* ---- serve: where it listens, and what one request may take ---- */
    {.name = "--port", .arg = "N", .kind = ARG_INT, .lo = 0, .hi = SERVE_PORT_MAX,
     .commands = SERVE, .at = AT(port), .bad = "a port from 0 to " STR(SERVE_PORT_MAX),
     .part = PART_MAIN, .help = "listen on port N; 0 picks a free one [" STR(SERVE_PORT) "]"},
    {.name = "--bind", .arg = "ADDR", .kind = ARG_TEXT, .commands = SERVE, .set = set_bind,
     .bad = "an IPv4 or IPv6 address such as 127.0.0.1 or ::1",
     .part = PART_MAIN, .help = "listen on this address; 0.0.0.0 or :: for every\n"
                                "interface [" SERVE_BIND ", this machine only]"},
    {.name = "--max-connections", .arg = "N", .kind = ARG_INT, .lo = 1,
     .hi = SERVE_CONNECTIONS_MAX, .commands = SERVE, .at = AT(max_connections),
     .bad = "a number from 1 to " STR(SERVE_CONNECTIONS_MAX),
     .part = PART_MAIN, .help = "connections served at once; more wait to be accepted\n"
                                "[" STR(SERVE_CONNECTIONS) "]"},
    {.name = "--max-request", .arg = "BYTES", .kind = ARG_INT, .lo = 0, .hi = SERVE_REQUEST_MAX,
     .commands = SERVE, .at = AT(max_request),
     .bad = "a number of bytes from 0 to " STR(SERVE_REQUEST_MAX),
     .part = PART_MAIN, .help = "largest request body; a larger one is refused with\n"
                                "413 [" STR(SERVE_REQUEST) "]"},
    {.name = "--max-rolls", .arg = "N", .kind = ARG_INT, .lo = 1, .hi = SERVE_FAIRNESS_ROLLS_MAX,
     .commands = SERVE, .at = AT(max_rolls),
     .bad = "a number from 1 to " STR(SERVE_FAIRNESS_ROLLS_MAX),
     .part = PART_MAIN, .help = "rolls one POST /fairness may judge; more are refused\n"
                                "with 422 [" STR(SERVE_FAIRNESS_ROLLS) "]"},
    {.name = "--max-response", .arg = "BYTES", .kind = ARG_INT, .lo = 1,
     .hi = SERVE_RESPONSE_MAX, .commands = SERVE, .at = AT(max_response),
     .bad = "a number of bytes from 1 to " STR(SERVE_RESPONSE_MAX),
     .part = PART_MAIN, .help = "largest response; a larger one is refused with 422\n"
                                "[" STR(SERVE_RESPONSE) "]"},
    {.name = "--max-client-connections", .arg = "N", .kind = ARG_INT, .lo = 1,
     .hi = SERVE_CONNECTIONS_MAX, .commands = SERVE, .at = AT(max_client_connections),
     .bad = "a number from 1 to " STR(SERVE_CONNECTIONS_MAX),
     .part = PART_MAIN, .help = "connections one client address may hold; one more\n"
                                "is closed as it is accepted [" STR(SERVE_CLIENT_CONNECTIONS) "]"},
    {.name = "--max-queue", .arg = "N", .kind = ARG_INT, .lo = 1, .hi = SERVE_QUEUE_MAX,
     .commands = SERVE, .at = AT(max_queue), .bad = "a number from 1 to " STR(SERVE_QUEUE_MAX),
     .part = PART_MAIN, .help = "requests waiting or evaluated at once; past it, 503\n"
                                "[" STR(SERVE_QUEUE) "]"},
    {.name = "--max-client-queue", .arg = "N", .kind = ARG_INT, .lo = 1, .hi = SERVE_QUEUE_MAX,
     .commands = SERVE, .at = AT(max_client_queue),
     .bad = "a number from 1 to " STR(SERVE_QUEUE_MAX),
     .part = PART_MAIN, .help = "requests of one client address waiting or evaluated\n"
                                "at once; past it, 429 [" STR(SERVE_CLIENT_QUEUE) "]"},
    {.name = "--max-pending", .arg = "BYTES", .kind = ARG_INT, .lo = 0, .hi = SERVE_PENDING_MAX,
     .commands = SERVE, .at = AT(max_pending),
     .bad = "a number of bytes from 0 to " STR(SERVE_PENDING_MAX),
     .part = PART_MAIN, .help = "bytes of all answers held until their clients read\n"
                                "them; an answer past it is refused with 503\n"
                                "[" STR(SERVE_PENDING) "]"},
    {.name = "--request-timeout", .arg = "S", .kind = ARG_INT, .lo = 1, .hi = SERVE_IDLE_MAX,
     .commands = SERVE, .at = AT(request_timeout),
     .bad = "a number of seconds from 1 to " STR(SERVE_IDLE_MAX),
     .part = PART_MAIN, .help = "seconds a request may take to arrive, headers and\n"
                                "body; past it, 408 [" STR(SERVE_REQUEST_TIMEOUT) "]"},
    {.name = "--write-timeout", .arg = "S", .kind = ARG_INT, .lo = 1, .hi = SERVE_IDLE_MAX,
     .commands = SERVE, .at = AT(write_timeout),
     .bad = "a number of seconds from 1 to " STR(SERVE_IDLE_MAX),
     .part = PART_MAIN, .help = "seconds an answer may take to be read; past it, the\n"
                                "connection is closed [" STR(SERVE_WRITE_TIMEOUT) "]"},
    {.name = "--log-limit", .arg = "N", .kind = ARG_INT, .lo = 0, .hi = SERVE_LOG_LIMIT_MAX,
     .commands = SERVE, .at = AT(log_limit),
     .bad = "a number from 0 to " STR(SERVE_LOG_LIMIT_MAX),
     .part = PART_MAIN, .help = "HTTP messages (malformed requests) written per minute;\n"
                                "the rest are counted [" STR(SERVE_LOG_LIMIT) "]"},
    {.name = "--idle-timeout", .arg = "S", .kind = ARG_INT, .lo = 1, .hi = SERVE_IDLE_MAX,
     .commands = SERVE, .at = AT(idle_timeout),
     .bad = "a number of seconds from 1 to " STR(SERVE_IDLE_MAX),
     .part = PART_MAIN, .help = "close a connection silent for S seconds [" STR(SERVE_IDLE) "]"},
    {.name = "--timeout", .arg = "MS", .kind = ARG_INT, .lo = 0, .hi = TIMEOUT_MAX_MS,
     .commands = SERVE, .set = set_timeout, .shown_default = SERVE_TIMEOUT,
     .bad = "a number of milliseconds from 0 (none) to " STR(TIMEOUT_MAX_MS),
     .part = PART_LIMITS, .help = "milliseconds one request may take to compile and "
                                  "evaluate its expression (answered with 503 past it)"},
    {.name = "--help", .alias = "-h", .commands = ANY | SERVE, .at = AT(help),
     .part = PART_NONE},
};

const size_t option_count = sizeof option_table / sizeof option_table[0];

/* ---- the parser ---------------------------------------------------------- */

/* Whether arg is meant as an option rather than an expression: "--word",
 * "--", "-h", "-n", "-nDIGITS" or a lone "-x". Expressions may start with
 * '-' ("-1d6", "-d6", "-max(1,2)"); "--" ends the options. */
static int looks_like_option(const char *a)
{
    if (a[0] != '-')
        return 0;
    if (a[1] == '-')
        return a[2] == '\0' || (a[2] >= 'a' && a[2] <= 'z') ||
               (a[2] >= 'A' && a[2] <= 'Z');
    int letter = (a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z');
    if (!letter)
        return 0;
    if (a[2] == '\0')
        return 1;
    if (a[1] == 'n' && a[2] >= '0' && a[2] <= '9')
        return 1;
    return 0;
}

/* The row that cmd takes under this name, and for ARG_LIMIT which limit;
 * NULL when there is none. */
static const option_spec *find_option(command cmd, const char *name, alea_limit *limit)
{
    for (size_t i = 0; i < option_count; i++) {
        const option_spec *s = &option_table[i];
        if (!(s->commands & (1u << cmd)))
            continue;
        if (s->kind == ARG_LIMIT) {
            size_t plen = strlen(s->name);
            if (strncmp(name, s->name, plen) != 0)
                continue;
            for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
                if (!strcmp(name + plen, alea_limit_name((alea_limit)l))) {
                    *limit = (alea_limit)l;
                    return s;
                }
        } else if (!strcmp(name, s->name) || (s->alias && !strcmp(name, s->alias))) {
            return s;
        }
    }
    return NULL;
}

/* The nearest option to a mistyped name that cmd takes ("--exat": "--exact"),
 * or else the command that takes name as it is ("roll --exact": dist); the
 * clause for the message, or "" when there is none. */
static const char *unknown_option_hint(command cmd, const char *name, char *out, size_t size)
{
    suggestion sg;
    suggest_start(&sg, name);
    for (size_t i = 0; i < option_count; i++) {
        const option_spec *s = &option_table[i];
        if (!(s->commands & (1u << cmd)))
            continue;
        if (s->kind != ARG_LIMIT) {
            suggest_offer(&sg, s->name);
            continue;
        }
        for (int l = 0; l < ALEA_LIMIT__COUNT; l++) {
            char full[48];
            snprintf(full, sizeof full, "%s%s", s->name, alea_limit_name((alea_limit)l));
            suggest_offer(&sg, full);
        }
    }
    alea_limit limit;
    if (suggest_result(&sg)) {
        snprintf(out, size, "; did you mean '%s'?", suggest_result(&sg));
        return out;
    }
    for (int c = 0; c < CMD__COUNT; c++)
        if (c != (int)cmd && find_option((command)c, name, &limit)) {
            snprintf(out, size, " (alea %s takes it)", command_names[c]);
            return out;
        }
    return "";
}

/* Reads the value of option s (given as name) and does its action. */
static int take_option(command cmd, int has_cmd, const option_spec *s, const char *name,
                       option_value *v, options *o)
{
    int bytes = s->kind == ARG_LIMIT && limit_is_bytes(v->limit);
    if ((s->kind == ARG_INT || s->kind == ARG_LIMIT) &&
        !parse_int(v->text, bytes, s->lo, s->hi, &v->number))
        return usage_error(cmd, has_cmd, "%s: '%s' is not %s%s", name, v->text, s->bad,
                           bytes ? " (k, M, G allowed)" : "");
    if (s->set) {
        if (s->set(o, v))
            return EXIT_OK;
        if (s->kind == ARG_NONE)
            return usage_error(cmd, has_cmd, "%s", s->bad);
        return usage_error(cmd, has_cmd, "%s: '%s' is not %s", name, v->text, s->bad);
    }
    if (s->kind == ARG_NONE)
        *(int *)(void *)((char *)o + s->at) = 1;
    else
        *(int64_t *)(void *)((char *)o + s->at) = v->number;
    return EXIT_OK;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* "alea 6 x 4d6kh3": a repeat the shell split into three words is one
 * expression again, "6 x 4d6kh3" (written into o->joined). 0 when out of
 * memory. */
static int join_repeats(options *o)
{
    size_t need = 1;
    for (size_t i = 0; i < o->nexprs; i++)
        need += strlen(o->exprs[i]) + 2;
    size_t at = 0, k = 0;
    for (size_t i = 0; i < o->nexprs; i++) {
        const char *x = i + 2 < o->nexprs ? o->exprs[i + 1] : "";
        if (!all_digits(o->exprs[i]) || (strcmp(x, "x") != 0 && strcmp(x, "X") != 0)) {
            o->exprs[k++] = o->exprs[i];
            continue;
        }
        if (!o->joined && !(o->joined = malloc(need)))
            return 0;
        char *s = o->joined + at;
        at += (size_t)sprintf(s, "%s x %s", o->exprs[i], o->exprs[i + 2]) + 1;
        o->exprs[k++] = s;
        i += 2;
    }
    o->nexprs = k;
    return 1;
}

int parse_args(command cmd, int has_cmd, int argc, char **argv, options *o)
{
    int done = 0;
    const char *cname = command_names[cmd];

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (done || !looks_like_option(a)) {
            o->exprs[o->nexprs++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            done = 1;
            continue;
        }

        /* Split "--name=value"; "-nVALUE" is -n with an attached value. */
        char name[32];
        const char *value = NULL;
        size_t nlen;
        if (a[1] == '-') {
            const char *eq = strchr(a, '=');
            nlen = eq ? (size_t)(eq - a) : strlen(a);
            if (eq)
                value = eq + 1;
        } else {
            nlen = 2;
            if (a[2])
                value = a + 2;
        }
        if (nlen >= sizeof name)
            return usage_error(cmd, has_cmd, "unknown option '%s'", a);
        memcpy(name, a, nlen);
        name[nlen] = '\0';

        option_value v = {NULL, 0, ALEA_LIMIT_SOURCE};
        const option_spec *s = find_option(cmd, name, &v.limit);
        if (!s && strpbrk(a + 1, "0123456789<>+*/(){}!%[")) /* "-1d6", "--dF<=-1" */
            return usage_error(cmd, has_cmd,
                               "unknown option '%s': an expression that starts with '-' goes "
                               "after --, as in: alea %s -- '%s'",
                               name, has_cmd ? cname : "roll", a);
        if (!s) {
            char hint[96];
            const char *h = unknown_option_hint(cmd, name, hint, sizeof hint);
            if (has_cmd)
                return usage_error(cmd, has_cmd, "%s: unknown option '%s'%s",
                                   cname, name, h);
            return usage_error(cmd, has_cmd, "unknown option '%s'%s", name, h);
        }
        if (s->kind == ARG_NONE) {
            if (value)
                return usage_error(cmd, has_cmd, "option '%s' takes no value",
                                   name);
        } else if (!value) {
            if (i + 1 >= argc)
                return usage_error(cmd, has_cmd, "option '%s' needs a value",
                                   name);
            value = argv[++i];
        }
        v.text = value;
        int rc = take_option(cmd, has_cmd, s, name, &v, o);
        if (rc != EXIT_OK)
            return rc;
        if (o->help)
            return EXIT_OK; /* the rest is not read */
    }

    if (!join_repeats(o))
        return out_of_memory();
    if (cmd == CMD_FAIRNESS) /* a file, or standard input */
        return o->nexprs > 1 ? usage_error(cmd, has_cmd, "fairness reads one file (or '-', "
                                           "standard input)")
                             : EXIT_OK;
    if (cmd == CMD_SERVE) /* its work comes in requests */
        return o->nexprs ? usage_error(cmd, has_cmd, "serve takes no expression: send them "
                                       "in requests (alea help serve)")
                         : EXIT_OK;
    if (o->json && o->csv)
        return usage_error(cmd, has_cmd, "--json and --csv exclude each other");
    if (o->svg && cmd == CMD_TABLE && o->nexprs == 3 && o->nstats > 1)
        return usage_error(cmd, has_cmd, "--svg draws one heat map: give one --stat with two "
                                         "names");
    if (o->svg && cmd == CMD_COMPARE && o->nexprs > SVG_LINES_MAX)
        return usage_error(cmd, has_cmd, "--svg draws at most " STR(SVG_LINES_MAX)
                                         " lines: compare fewer expressions");
    if (cmd == CMD_DIST && o->sample && o->exact)
        return usage_error(cmd, has_cmd, "--exact and --sample exclude each other: an "
                                         "estimate has no exact fractions");
    if (cmd == CMD_DIST && !o->sample && (o->seed_set || o->threads))
        return usage_error(cmd, has_cmd, "%s needs --sample: an exact distribution has no "
                                         "randomness", o->seed_set ? "--seed" : "--threads");
    if (cmd == CMD_ROLL && o->max_rolls && (o->nexprs || has_cmd || !isatty(STDIN_FILENO)))
        return usage_error(cmd, has_cmd, "--max-rolls bounds what a session keeps (alea "
                                         "alone, at a terminal)");
    if (o->nexprs == 0) {
        /* roll and dist read a piped standard input; compare's table needs
         * all its expressions at once, so it takes arguments only. */
        if (!has_cmd && isatty(STDIN_FILENO)) {
            o->repl = 1; /* "alea" alone, at a terminal */
        } else {
            if (cmd == CMD_COMPARE || cmd == CMD_POLICY || isatty(STDIN_FILENO))
                return usage_error(cmd, has_cmd, "missing expression");
            if (o->svg)
                return usage_error(cmd, has_cmd, "--svg draws the chart of one expression: "
                                                 "give it as an argument");
            o->from_stdin = 1;
        }
    }
    /* "alea --max-work 10 dist 3d6": a command after options. */
    for (size_t i = 0; !has_cmd && i < o->nexprs; i++)
        for (int c = 0; c < CMD__COUNT; c++)
            if (!strcmp(o->exprs[i], command_names[c]))
                return usage_error(cmd, has_cmd,
                                   "'%s' is a command: put it first "
                                   "(alea %s [OPTION]... EXPR)",
                                   command_names[c], command_names[c]);
    return EXIT_OK;
}

int leading_options(command cmd, int argc, char **argv, int *open)
{
    int i = 0;
    *open = 0;
    while (i < argc && looks_like_option(argv[i])) {
        const char *a = argv[i++];
        if (!strcmp(a, "--"))
            break;
        char name[32];
        size_t nlen = a[1] == '-' ? strcspn(a, "=") : 2;
        if (nlen >= sizeof name)
            continue; /* unknown: parse_args says so */
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        alea_limit l;
        const option_spec *s = find_option(cmd, name, &l);
        if (s && s->kind != ARG_NONE && !a[nlen] && (a[1] == '-' || !a[2])) {
            if (i == argc)
                *open = 1; /* its value is missing */
            else
                i++; /* its value, the next word */
        }
    }
    return i;
}

int apply_limits(alea_ctx *ctx, const options *o)
{
    for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
        if (o->limit_set[l])
            alea_ctx_limit(ctx, (alea_limit)l, o->limit[l]);
    alea_ctx_set_dialect(ctx, (alea_dialect)o->dialect);
    if (o->exact && alea_ctx_set_exact(ctx, 1) != ALEA_OK)
        return 0;
    return !o->tail_set || alea_ctx_set_tail(ctx, o->tail) == ALEA_OK;
}
