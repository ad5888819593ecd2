/*
 * options.c -- the command line's options: which command takes which, the
 * parser that reads argv into an options struct, and their values' forms.
 */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* isatty */

int limit_is_bytes(alea_limit l)
{
    return l == ALEA_LIMIT_SOURCE || l == ALEA_LIMIT_MEMORY || l == ALEA_LIMIT_BREAKDOWN;
}

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

/* Option flags: which command accepts which option. */
enum {
    ACCEPT_N = 1 << 0,
    ACCEPT_SEED = 1 << 1,
    ACCEPT_JSON = 1 << 2,
    ACCEPT_CSV = 1 << 3,
    ACCEPT_CUMUL = 1 << 4,
    ACCEPT_BOONS = 1 << 5,
    ACCEPT_SAMPLE = 1 << 6
};

static const int command_accepts[CMD__COUNT] = {
    ACCEPT_N | ACCEPT_SEED | ACCEPT_JSON,
    ACCEPT_SEED | ACCEPT_JSON | ACCEPT_CSV | ACCEPT_CUMUL | ACCEPT_BOONS | ACCEPT_SAMPLE,
    ACCEPT_CSV | ACCEPT_CUMUL | ACCEPT_BOONS,
};

/* "10:1,14:2,16:6": difficulties ascending, each with its count. */
static int parse_boon_table(const char *s, options *o)
{
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
    return 1;
}

/* "-2,-1,1,2": the multiplier of each tier. */
static int parse_multipliers(const char *s, options *o)
{
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

/*
 * Parses argv[0..argc) (the words after the command) into o. exprs must
 * have room for argc pointers. Returns EXIT_OK or EXIT_USAGE (reported).
 */
int parse_args(command cmd, int has_cmd, int argc, char **argv,
               options *o)
{
    int accepts = command_accepts[cmd];
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

        /* Which option, and does it take a value? */
        enum { O_HELP, O_N, O_SEED, O_JSON, O_CSV, O_LEAST, O_MOST, O_TAIL, O_TIMEOUT,
               O_TIME_LIMIT, O_SAMPLE, O_THREADS,
               O_LIMIT, O_BOONS, O_MULT, O_DRIVE, O_SUPPORT, O_UNKNOWN } which = O_UNKNOWN;
        int limit = -1;
        if (!strcmp(name, "-h") || !strcmp(name, "--help"))
            which = O_HELP;
        else if ((accepts & ACCEPT_N) && !strcmp(name, "-n"))
            which = O_N;
        else if ((accepts & ACCEPT_SEED) && !strcmp(name, "--seed"))
            which = O_SEED;
        else if ((accepts & ACCEPT_JSON) && !strcmp(name, "--json"))
            which = O_JSON;
        else if ((accepts & ACCEPT_CSV) && !strcmp(name, "--csv"))
            which = O_CSV;
        else if ((accepts & ACCEPT_CUMUL) && !strcmp(name, "--at-least"))
            which = O_LEAST;
        else if ((accepts & ACCEPT_CUMUL) && !strcmp(name, "--at-most"))
            which = O_MOST;
        else if (!strcmp(name, "--tail"))
            which = O_TAIL;
        else if (!strcmp(name, "--timeout"))
            which = O_TIMEOUT;
        else if (!strcmp(name, "--time-limit"))
            which = O_TIME_LIMIT;
        else if ((accepts & ACCEPT_SAMPLE) && !strcmp(name, "--sample"))
            which = O_SAMPLE;
        else if ((accepts & ACCEPT_SAMPLE) && !strcmp(name, "--threads"))
            which = O_THREADS;
        else if ((accepts & ACCEPT_BOONS) && !strcmp(name, "--boons"))
            which = O_BOONS;
        else if ((accepts & ACCEPT_BOONS) && !strcmp(name, "--multipliers"))
            which = O_MULT;
        else if ((accepts & ACCEPT_BOONS) && !strcmp(name, "--drive"))
            which = O_DRIVE;
        else if ((accepts & ACCEPT_BOONS) && !strcmp(name, "--support"))
            which = O_SUPPORT;
        else if (!strncmp(name, "--max-", 6)) {
            for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
                if (!strcmp(name + 6, alea_limit_name((alea_limit)l)))
                    limit = l;
            if (limit >= 0)
                which = O_LIMIT;
        }
        if (which == O_UNKNOWN) {
            if (has_cmd)
                return usage_error(cmd, has_cmd, "%s: unknown option '%s'",
                                   cname, name);
            return usage_error(cmd, has_cmd, "unknown option '%s'", name);
        }

        int wants_value = which == O_N || which == O_SEED || which == O_TAIL ||
                          which == O_TIMEOUT || which == O_TIME_LIMIT || which == O_SAMPLE ||
                          which == O_THREADS ||
                          which == O_LIMIT || which == O_BOONS || which == O_MULT ||
                          which == O_DRIVE;
        if (!wants_value) {
            if (value)
                return usage_error(cmd, has_cmd, "option '%s' takes no value",
                                   name);
        } else if (!value) {
            if (i + 1 >= argc)
                return usage_error(cmd, has_cmd, "option '%s' needs a value",
                                   name);
            value = argv[++i];
        }

        switch (which) {
        case O_HELP:
            o->help = 1;
            return EXIT_OK;
        case O_BOONS:
            if (!parse_boon_table(value, o))
                return usage_error(cmd, has_cmd,
                                   "--boons: '%s' is not a table such as 10:1,14:2,16:6 "
                                   "(difficulties ascending, at most %d)", value, BOON_ROWS);
            o->boons_set = 1;
            break;
        case O_MULT:
            if (!parse_multipliers(value, o))
                return usage_error(cmd, has_cmd,
                                   "--multipliers: '%s' is not four finite numbers (each at most 1000000 "
                                   "in size) such as "
                                   "-2,-1,1,2 (critical failure, failure, success, "
                                   "critical success)", value);
            break;
        case O_DRIVE:
            if (!parse_int(value, 0, 0, 1000, &o->drive))
                return usage_error(cmd, has_cmd, "--drive: '%s' is not a whole number "
                                   "from 0 to 1000", value);
            break;
        case O_SUPPORT:
            o->support = 1;
            break;
        case O_N:
            if (!parse_int(value, 0, 1, INT64_MAX, &o->n))
                return usage_error(cmd, has_cmd,
                                   "-n: '%s' is not a positive integer", value);
            break;
        case O_SEED:
            if (!parse_u64(value, &o->seed))
                return usage_error(cmd, has_cmd,
                                   "--seed: '%s' is not an integer from 0 to "
                                   "18446744073709551615", value);
            o->seed_set = 1;
            break;
        case O_JSON:
            o->json = 1;
            break;
        case O_CSV:
            o->csv = 1;
            break;
        case O_LEAST:
        case O_MOST: {
            cumul_mode m = which == O_LEAST ? SHOW_AT_LEAST : SHOW_AT_MOST;
            if (o->cumul != SHOW_EXACT && o->cumul != m)
                return usage_error(cmd, has_cmd,
                                   "--at-least and --at-most exclude each other");
            o->cumul = m;
            break;
        }
        case O_TAIL: {
            char *end;
            errno = 0;
            double t = strtod(value, &end);
            if (!*value || *end || errno == ERANGE || !(t > 0))
                return usage_error(cmd, has_cmd,
                                   "--tail: '%s' is not a probability", value);
            o->tail = t;
            o->tail_text = value;
            o->tail_set = 1;
            break;
        }
        case O_SAMPLE:
            if (!parse_int(value, 0, 1, SAMPLE_MAX, &o->sample))
                return usage_error(cmd, has_cmd,
                                   "--sample: '%s' is not a number of rolls from 1 to %lld",
                                   value, (long long)SAMPLE_MAX);
            break;
        case O_THREADS:
            if (!parse_int(value, 0, 1, THREADS_MAX, &o->threads))
                return usage_error(cmd, has_cmd,
                                   "--threads: '%s' is not a number from 1 to %d", value,
                                   THREADS_MAX);
            o->threads_set = 1;
            break;
        case O_TIMEOUT:
            if (!parse_int(value, 0, 0, TIMEOUT_MAX_MS, &o->timer->ms))
                return usage_error(cmd, has_cmd,
                                   "--timeout: '%s' is not a number of milliseconds from 0 "
                                   "(none) to %d", value, TIMEOUT_MAX_MS);
            break;
        case O_TIME_LIMIT:
            if (!parse_int(value, 0, 0, TIME_LIMIT_MAX, &o->timer->cmd_s))
                return usage_error(cmd, has_cmd,
                                   "--time-limit: '%s' is not a number of seconds from 0 "
                                   "(none) to %d", value, TIME_LIMIT_MAX);
            break;
        case O_LIMIT: {
            alea_limit l = (alea_limit)limit;
            if (!parse_int(value, limit_is_bytes(l), 0, INT64_MAX, &o->limit[l]))
                return usage_error(cmd, has_cmd,
                                   "%s: '%s' is not a non-negative integer%s",
                                   name, value,
                                   limit_is_bytes(l) ? " (k, M, G allowed)" : "");
            o->limit_set[l] = 1;
            break;
        }
        case O_UNKNOWN:
        default:
            break;
        }
    }

    if (o->json && o->csv)
        return usage_error(cmd, has_cmd, "--json and --csv exclude each other");
    if (cmd == CMD_DIST && !o->sample && (o->seed_set || o->threads_set))
        return usage_error(cmd, has_cmd, "%s needs --sample: an exact distribution has no "
                                         "randomness", o->seed_set ? "--seed" : "--threads");
    if (o->nexprs == 0) {
        /* roll and dist read a piped standard input; compare's table needs
         * all its expressions at once, so it takes arguments only. */
        if (!has_cmd && isatty(STDIN_FILENO)) {
            o->repl = 1; /* "alea" alone, at a terminal */
        } else {
            if (cmd == CMD_COMPARE || isatty(STDIN_FILENO))
                return usage_error(cmd, has_cmd, "missing expression");
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
    if (cmd == CMD_DIST && o->nexprs > 1)
        return usage_error(cmd, has_cmd,
                           "dist takes one expression (quote it if it has "
                           "spaces; 'alea compare' takes several)");
    return EXIT_OK;
}

int apply_limits(alea_ctx *ctx, const options *o)
{
    for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
        if (o->limit_set[l])
            alea_ctx_limit(ctx, (alea_limit)l, o->limit[l]);
    return !o->tail_set || alea_ctx_set_tail(ctx, o->tail) == ALEA_OK;
}
