/*
 * main.c -- the alea command line: roll expressions, print their exact
 * distributions, compare several side by side.
 *
 * It uses only the public API (<alea.h>) and the C library. Results go to
 * stdout, usage errors and failures to stderr. Exit status: 0 success,
 * 1 a bad expression or any library error (limits included), 2 bad usage.
 */
#define _POSIX_C_SOURCE 200809L /* SIGPIPE, isatty, read */

#include <alea.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>   /* clock_gettime */
#include <unistd.h> /* isatty, read */

#ifdef ALEA_HAVE_EDITLINE
#include <editline/readline.h> /* the interactive session's line editing */
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Width of the longest '#' bar in the dist table. */
#define BAR_WIDTH 40
/* Error excerpts longer than this many characters are shown as a window of
 * WINDOW characters around the error, so a 100 kB expression does not flood
 * the terminal. */
#define EXCERPT_MAX 76
#define WINDOW 70
#define WINDOW_BEFORE 20
/* Widest expression header in the compare table. */
#define HEADER_MAX 24

typedef enum command { CMD_ROLL, CMD_DIST, CMD_COMPARE, CMD__COUNT } command;

static const char *const command_names[CMD__COUNT] = {"roll", "dist", "compare"};

typedef enum cumul_mode { SHOW_EXACT, SHOW_AT_LEAST, SHOW_AT_MOST } cumul_mode;

#define BOON_ROWS 64 /* rows of a --boons table */
/* --timeout's largest value: a day, in milliseconds. */
#define TIMEOUT_MAX_MS 86400000
/* --sample: at most 10^12 rolls; --threads: at most 64. */
#define SAMPLE_MAX 1000000000000
#define THREADS_MAX 64

/*
 * --timeout: a deadline that the library polls through its interrupt hook
 * (every few thousand steps). Armed afresh for each expression: all its
 * rolls, or its distribution; on standard input, each line.
 */
typedef struct timer {
    int64_t ms; /* 0: no deadline */
    struct timespec at;
    /* --time-limit: the whole command's (each line's, on standard input and
     * in the session), so that a script's wrong count (roll -n 10^12) stops
     * with a message instead of running for hours. */
    int64_t cmd_s; /* 0: none */
    struct timespec cmd_at;
} timer;

/* --time-limit's default and largest values, in seconds. */
#define TIME_LIMIT_DEFAULT 60
#define TIME_LIMIT_MAX 604800

typedef struct options {
    int64_t limit[ALEA_LIMIT__COUNT];
    int limit_set[ALEA_LIMIT__COUNT];
    double tail;
    int tail_set;
    const char *tail_text;
    int64_t n;
    uint64_t seed;
    int seed_set;
    int json, csv;
    cumul_mode cumul;
    int help;
    const char **exprs; /* borrowed from argv */
    size_t nexprs;
    int from_stdin; /* no EXPR: one per line of standard input */
    int repl;       /* no EXPR and a terminal: the interactive session */
    int color;      /* breakdowns in colour: stdout a terminal, NO_COLOR unset */
    /* Boons of the Double Down roll: the game's tables, given as data. */
    int boons_set;
    int64_t boon_diff[BOON_ROWS], boon_count[BOON_ROWS];
    alea_boon_table boons;
    int64_t drive;
    int support;
    timer *timer; /* owned by run() */
    /* dist --sample: a Monte Carlo estimate from this many rolls */
    int64_t sample, threads;
    int threads_set;
} options;

/* ---- output helpers ------------------------------------------------------ */

/* A probability in the fewest digits that read back exactly (as the
 * library's JSON does): 0.1, not 0.10000000000000001. */
static void put_exact(double v)
{
    char tmp[32];
    alea_format_double(v, tmp, sizeof tmp);
    fputs(tmp, stdout);
}

static void usage_hint(command cmd, int has_cmd)
{
    if (has_cmd)
        fprintf(stderr, "Try 'alea %s --help' for more information.\n",
                command_names[cmd]);
    else
        fputs("Try 'alea --help' for more information.\n", stderr);
}

/* "alea: <message>" and the pointer to --help; returns EXIT_USAGE. */
static int usage_error(command cmd, int has_cmd, const char *fmt, ...)
    PRINTF_LIKE(3, 4);

static int usage_error(command cmd, int has_cmd, const char *fmt, ...)
{
    va_list ap;
    fputs("alea: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    usage_hint(cmd, has_cmd);
    return EXIT_USAGE;
}

static int out_of_memory(void)
{
    fputs("alea: out of memory\n", stderr);
    return EXIT_FAIL;
}

/* A growing byte buffer for the library's snprintf-style formatters. */
typedef struct buffer {
    char *p;
    size_t cap;
} buffer;

static int buffer_reserve(buffer *b, size_t need)
{
    if (need <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = realloc(b->p, cap);
    if (!p)
        return 0;
    b->p = p;
    b->cap = cap;
    return 1;
}

/* Formats a distribution as the library's JSON into b; returns its length,
 * or SIZE_MAX when out of memory. */
static size_t format_dist_json(const alea_dist *d, buffer *b)
{
    /* Room for a typical outcome ("[123, 0.0123456789012345], ") up front,
     * so that a large distribution is formatted once, not twice. */
    size_t n = alea_dist_count(d);
    size_t guess = n < SIZE_MAX / 64 ? 32 * n + 1024 : SIZE_MAX;
    if (b->cap < guess && !buffer_reserve(b, guess))
        return SIZE_MAX;
    size_t len = alea_dist_format(d, ALEA_FORMAT_JSON, b->p, b->cap);
    if (len >= b->cap) {
        if (!buffer_reserve(b, len + 1))
            return SIZE_MAX;
        len = alea_dist_format(d, ALEA_FORMAT_JSON, b->p, b->cap);
    }
    return len;
}

/* Percent with two decimals, never "-0.00". */
static double pct(double p)
{
    double v = p * 100.0;
    return fabs(v) < 0.005 ? 0.0 : v;
}

static double round2(double v)
{
    return fabs(v) < 0.005 ? 0.0 : v;
}

static int int_width(int64_t v)
{
    char tmp[24];
    return snprintf(tmp, sizeof tmp, "%" PRId64, v);
}

/* ---- error excerpt with a caret ----------------------------------------- */

/*
 * The expression is shown one character per column: printable ASCII as is,
 * whitespace as a space, other control bytes and invalid UTF-8 as '?', and a
 * valid UTF-8 sequence as itself (one column; wide characters are rare in
 * dice). unit_len gives the bytes of the character at src[i].
 */
static size_t unit_len(const unsigned char *s, size_t len, size_t i)
{
    unsigned c = s[i];
    size_t n;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 1;
    if (i + n > len)
        return 1;
    for (size_t k = 1; k < n; k++)
        if ((s[i + k] & 0xC0) != 0x80)
            return 1;
    return n;
}

static void put_unit(const unsigned char *s, size_t i, size_t n)
{
    unsigned c = s[i];
    if (n > 1)
        fwrite(s + i, 1, n, stderr);
    else if (c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
        fputc(' ', stderr);
    else if (c < 0x20 || c >= 0x7F)
        fputc('?', stderr);
    else
        fputc((int)c, stderr);
}

static void put_excerpt(const char *src, size_t len, size_t start, size_t end)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t units = 0, cs = 0, ce = 0, i;

    if (start > len)
        start = len;
    if (end > len)
        end = len;
    /* Character index of the span's first byte, and one past its last. */
    for (i = 0; i < len; i += unit_len(s, len, i)) {
        if (i < start)
            cs++;
        if (i < end)
            ce++;
        units++;
    }
    if (start == len)
        cs = units;
    if (ce <= cs)
        ce = cs + 1; /* at least one caret */

    size_t ws = 0, we = units;
    if (units > EXCERPT_MAX) {
        ws = cs > WINDOW_BEFORE ? cs - WINDOW_BEFORE : 0;
        we = ws + WINDOW < units ? ws + WINDOW : units;
        if (we - ws < WINDOW)
            ws = units - WINDOW;
    }

    fputs("  ", stderr);
    if (ws > 0)
        fputs("...", stderr);
    size_t u = 0;
    for (i = 0; i < len && u < we; u++) {
        size_t n = unit_len(s, len, i);
        if (u >= ws)
            put_unit(s, i, n);
        i += n;
    }
    if (we < units)
        fputs("...", stderr);
    fputc('\n', stderr);

    size_t col = (ws > 0 ? 5u : 2u) + (cs - ws); /* indent, "..." */
    size_t last = ce;
    if (we < units && last > we) /* the span goes on past the window */
        last = we;
    if (last <= cs)
        last = cs + 1;
    for (size_t k = 0; k < col; k++)
        fputc(' ', stderr);
    for (size_t k = cs; k < last; k++)
        fputc('^', stderr);
    fputc('\n', stderr);
}

/* ---- --timeout ------------------------------------------------------------- */

static int passed(const struct timespec *at)
{
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return 0;
    return now.tv_sec > at->tv_sec || (now.tv_sec == at->tv_sec && now.tv_nsec >= at->tv_nsec);
}

/* Whether the command's time limit has passed. */
static int command_expired(const timer *t)
{
    return t->cmd_s > 0 && passed(&t->cmd_at);
}

/* The library's interrupt hook: the expression's deadline or the
 * command's. Reads only: the sampling threads share it. */
static int timer_expired(void *ud)
{
    const timer *t = ud;
    return (t->ms > 0 && passed(&t->at)) || command_expired(t);
}

static void deadline_in(struct timespec *at, int64_t ms)
{
    if (clock_gettime(CLOCK_MONOTONIC, at) != 0) {
        at->tv_sec = 0; /* no clock: never passes */
        at->tv_nsec = 0;
        return;
    }
    at->tv_sec += (time_t)(ms / 1000);
    at->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (at->tv_nsec >= 1000000000L) {
        at->tv_sec++;
        at->tv_nsec -= 1000000000L;
    }
}

/* Starts the time of one expression (nothing without --timeout). */
static void timer_arm(timer *t)
{
    if (t && t->ms > 0)
        deadline_in(&t->at, t->ms);
}

/* Starts the time of a whole command (or one line of input). */
static void command_arm(timer *t)
{
    if (t && t->cmd_s > 0)
        deadline_in(&t->cmd_at, t->cmd_s * 1000);
}

/* The message when the command's time limit stops it. */
static int report_time_limit(const timer *t)
{
    fprintf(stderr,
            "alea: stopped after %" PRId64 " s: the command's time limit (--time-limit "
            "SECONDS sets it; 0 removes it)\n", t->cmd_s);
    return EXIT_FAIL;
}

/* The timer of the command under way, for the message of an interrupted
 * evaluation (set by run(); the process runs one command). */
static const timer *command_timer;

/*
 * Prints the context's last error: "alea: <message>", then (when it concerns
 * a place in the len bytes of src) the expression and a caret line under the
 * span, as jq does. src may be NULL when no expression is involved.
 */
static int report_len(const alea_ctx *ctx, const char *src, size_t len)
{
    size_t start = 0, end = 0;
    alea_status st = alea_ctx_error_span(ctx, &start, &end);
    const char *msg = alea_ctx_error(ctx);
    const char *what = alea_status_text(st);

    if (st == ALEA_ERR_INTERRUPTED) {
        /* The CLI's only interrupt hook is the timer's: --timeout's deadline
         * or the command's time limit. */
        if (command_timer && command_expired(command_timer))
            return report_time_limit(command_timer);
        fprintf(stderr, "alea: timed out: the expression ran past --timeout and was "
                        "stopped\n");
        return EXIT_FAIL;
    }
    if (!msg || !*msg)
        fprintf(stderr, "alea: %s\n", what);
    else if (st == ALEA_ERR_LIMIT || st == ALEA_ERR_NOMEM ||
             st == ALEA_ERR_INTERRUPTED || strstr(msg, what) != NULL)
        fprintf(stderr, "alea: %s\n", msg); /* the message says it already */
    else
        fprintf(stderr, "alea: %s: %s\n", what, msg);

    /* A span of [0, 0) means "no position", except in an empty source or
     * for a syntax error at its very start. */
    if (src && (end > start || start > 0 || len == 0 || st == ALEA_ERR_SYNTAX))
        put_excerpt(src, len, start, end);
    return EXIT_FAIL;
}

static int report(const alea_ctx *ctx, const char *src)
{
    return report_len(ctx, src, src ? strlen(src) : 0);
}

/* ---- help ------------------------------------------------------------------- */

static int limit_is_bytes(alea_limit l)
{
    return l == ALEA_LIMIT_SOURCE || l == ALEA_LIMIT_MEMORY || l == ALEA_LIMIT_BREAKDOWN;
}

/* Writes text word-wrapped to end before column 80, continuation lines
 * indented to column indent (the first line starts there already). */
static void put_wrapped(FILE *f, size_t indent, const char *text)
{
    size_t col = indent;
    while (*text) {
        size_t w = strcspn(text, " ");
        if (col > indent && col + 1 + w > 79) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(text, 1, w, f);
        col += w;
        text += w;
        text += strspn(text, " ");
    }
    fputc('\n', f);
}

static void print_limits(FILE *f)
{
    fprintf(f, "Limits (any command):\n  %-18s %9s  %s\n", "option", "default",
            "what it counts");
    for (int i = 0; i < ALEA_LIMIT__COUNT; i++) {
        alea_limit l = (alea_limit)i;
        char opt[48], def[32];
        int64_t d = alea_limit_default(l);
        snprintf(opt, sizeof opt, "--max-%s %s", alea_limit_name(l),
                 limit_is_bytes(l) ? "BYTES" : "N");
        if (limit_is_bytes(l) && d >= 1048576 && d % 1048576 == 0)
            snprintf(def, sizeof def, "%" PRId64 "M", d / 1048576);
        else
            snprintf(def, sizeof def, "%" PRId64, d);
        fprintf(f, "  %-18s %9s  ", opt, def);
        put_wrapped(f, 32, alea_limit_what(l));
    }
    fprintf(f, "  %-18s %9g  ", "--tail P", ALEA_TAIL_DEFAULT);
    put_wrapped(f, 32, "probability left in an explosion tail when dist stops "
                       "following it");
    fprintf(f, "  %-18s %9s  ", "--timeout MS", "none");
    put_wrapped(f, 32, "milliseconds one expression may take (all its rolls, or its "
                       "distribution; each line of standard input)");
    fprintf(f, "  %-18s %9d  ", "--time-limit S", TIME_LIMIT_DEFAULT);
    put_wrapped(f, 32, "seconds the whole command may take (each line of standard "
                       "input or of the session); 0: no limit");
    fputs("  BYTES takes a k, M or G suffix; a value above a limit's maximum is\n"
          "  lowered to it.\n", f);
}

static void help_main(FILE *f)
{
    fprintf(f, "alea %s -- roll tabletop dice, or compute their exact odds\n\n",
            alea_version());
    fputs("Usage:\n"
          "  alea                          at a terminal: an interactive session\n"
          "  alea EXPR...                  roll each expression (as 'alea roll')\n"
          "  alea roll [-n N] [--seed S] [--json] [EXPR...]\n"
          "  alea dist [--at-least | --at-most] [--json | --csv] [--sample N] [EXPR]\n"
          "  alea compare [--at-least | --at-most] [--csv] EXPR EXPR...\n"
          "  alea help [COMMAND]           this text, or a command's (also COMMAND --help)\n"
          "  alea --version\n"
          "\n"
          "Commands:\n"
          "  roll      roll and show every die: 4d6kh3 [6, 5, 3, 1 dropped] = 14\n"
          "  dist      the exact distribution of an expression, as a table\n"
          "  compare   several distributions side by side\n"
          "\n"
          "In the session each line is rolled (an empty line rolls it again); :dist,\n"
          ":compare, :seed and :help do the rest. Breakdowns are in colour on a\n"
          "terminal, unless NO_COLOR is set.\n"
          "\n"
          "Without EXPR, roll and dist read standard input when it is not a terminal:\n"
          "one expression per line, each answered in turn (blank lines are skipped).\n"
          "A bad line is reported on stderr and the others go on; the exit status is\n"
          "1 if any line failed. A line longer than the source limit gets its error.\n"
          "\n",
          f);
    print_limits(f);
    fputs("\n"
          "Examples:\n"
          "  alea 4d6kh3                      roll 4d6, keep the highest 3\n"
          "  alea roll -n 6 --seed 7 4d6kh3   six rolls, the same every time\n"
          "  alea '1d20 + 5' 2d6+3            attack, then damage\n"
          "  alea dist 3d6                    the odds of every total\n"
          "  alea dist --at-least '1d20+7'    the odds to reach each number\n"
          "  alea compare 2d20kh1 1d20 2d20kl1\n"
          "\n"
          "Quote an expression with spaces or shell characters ('3d6!', '1d20 + 5').\n"
          "The dice language: docs/language.md\n",
          f);
}


/* The boons options, shared by dist and compare. */
static const char boon_help[] =
    "Boons and banes of a Double Down roll (dd()), from your game's tables:\n"
    "  --boons D:N,...      boons or banes earned at each difficulty, as in\n"
    "                       10:1,14:2,16:6 (the last row <= the roll's applies)\n"
    "  --multipliers A,B,C,D  per tier (critical failure, failure, success,\n"
    "                       critical success); negative means banes\n"
    "                       (default 0,0,1,1)\n"
    "  --drive N            drive spent: N boons on a success or better\n"
    "  --support            a support roll: half boons\n"
    "\n";

static void help_command(command cmd, FILE *f)
{
    switch (cmd) {
    case CMD_ROLL:
        fputs("Usage: alea roll [-n N] [--seed S] [--json] [EXPR...]\n"
              "       alea EXPR...\n"
              "\n"
              "Rolls each expression N times, in order, one line per roll with\n"
              "every die: 4d6kh3 [6, 5, 3, 1 dropped] = 14\n"
              "\n"
              "With no EXPR and standard input not a terminal, rolls each line of\n"
              "standard input in turn (blank lines are skipped). A bad line is\n"
              "reported on stderr and the others still roll; exit status 1 if any\n"
              "line failed.\n"
              "\n"
              "  -n N        roll each expression N times [1]\n"
              "  --seed S    seed the generator with S (0 to 18446744073709551615)\n"
              "              so the rolls are reproducible; default: from the OS\n"
              "  --json      one JSON object per roll and line\n"
              "\n",
              f);
        break;
    case CMD_DIST:
        fputs("Usage: alea dist [--at-least | --at-most] [--json | --csv] [--sample N] [EXPR]\n"
              "\n"
              "Prints the exact probability of every value of EXPR, with the odds\n"
              "of at least and at most that value, a bar chart, and the mean,\n"
              "standard deviation, min, max and median.\n"
              "\n"
              "With no EXPR and standard input not a terminal, does so for each\n"
              "line of standard input in turn: one JSON object per line with\n"
              "--json, else a blank line between tables. A bad line is reported\n"
              "on stderr and the others go on; exit status 1 if any line failed.\n"
              "\n"
              "  --at-least  chart P(X >= value) instead of P(X = value)\n"
              "  --at-most   chart P(X <= value)\n"
              "  --json      the distribution as one JSON object\n"
              "  --csv       value,probability,at_least,at_most rows\n"
              "\n"
              "Past the exact engine's limits, estimate instead:\n"
              "  --sample N  roll N times (at most 10^12) and count: each probability\n"
              "              with its 95% interval, marked as an estimate\n"
              "  --threads T roll on T threads [every core, at most 64]\n"
              "  --seed S    the streams' seed [from the OS, shown]: the same seed\n"
              "              and threads give the same estimate\n"
              "\n",
              f);
        fputs(boon_help, f);
        break;
    case CMD_COMPARE:
    default:
        fputs("Usage: alea compare [--at-least | --at-most] [--csv] EXPR EXPR...\n"
              "\n"
              "Prints the distributions of several expressions side by side: one\n"
              "column each, a row per value (blank where a value is impossible),\n"
              "then their mean, sd, min, max and median.\n"
              "\n"
              "  --at-least  show P(X >= value) in every cell\n"
              "  --at-most   show P(X <= value)\n"
              "  --csv       value,<expression>,... rows of probabilities\n"
              "\n",
              f);
        fputs(boon_help, f);
        break;
    }
    print_limits(f);
}

/* ---- argument parsing ------------------------------------------------------- */

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

static int parse_u64(const char *s, uint64_t *out)
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
static int parse_args(command cmd, int has_cmd, int argc, char **argv,
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

/* ---- roll -------------------------------------------------------------------- */

static int compile_all(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    for (size_t i = 0; i < o->nexprs; i++) {
        const char *src = o->exprs[i];
        if (alea_expr_compile(ctx, src, strlen(src), &ex[i]) != ALEA_OK)
            return report(ctx, src);
    }
    return EXIT_OK;
}

/*
 * Rolls e (compiled from src) o->n times, a line per roll; roll and b are
 * reused from call to call. Stops at the first error (reported after the
 * rolls so far) or when stdout fails (main reports that).
 */
static int roll_one(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
                    alea_roll *roll, buffer *b)
{
    alea_format fmt = o->json ? ALEA_FORMAT_JSON : o->color ? ALEA_FORMAT_ANSI : ALEA_FORMAT_TEXT;
    timer_arm(o->timer);
    for (int64_t k = 0; k < o->n; k++) {
        if (k % 1024 == 1023 && command_expired(o->timer)) {
            fflush(stdout);
            return report_time_limit(o->timer);
        }
        if (alea_expr_roll(ctx, e, roll) != ALEA_OK) {
            fflush(stdout); /* the rolls so far, then the error */
            return report(ctx, src);
        }
        size_t len = alea_roll_format(roll, fmt, b->p, b->cap);
        if (len + 2 > b->cap) { /* room for '\n' and the NUL */
            if (!buffer_reserve(b, len + 2))
                return out_of_memory();
            len = alea_roll_format(roll, fmt, b->p, b->cap);
        }
        b->p[len] = '\n';
        if (fwrite(b->p, 1, len + 1, stdout) != len + 1)
            break; /* a closed pipe: stop rolling; main reports */
    }
    return EXIT_OK;
}

static int cmd_roll(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    buffer b = {NULL, 0};
    int rc = EXIT_OK;
    alea_roll *roll = alea_roll_new(ctx);
    if (!roll || !buffer_reserve(&b, 256)) {
        alea_roll_free(roll);
        free(b.p);
        return out_of_memory();
    }
    for (size_t i = 0; i < o->nexprs && rc == EXIT_OK && !ferror(stdout); i++)
        rc = roll_one(ctx, o, ex[i], o->exprs[i], roll, &b);
    alea_roll_free(roll);
    free(b.p);
    return rc;
}

/* ---- distributions -------------------------------------------------------------- */

/* Cumulative sums of a distribution: most[i] = P(X <= v_i), least[i] =
 * P(X >= v_i), each summed from its small end. Returns 0 if out of memory. */
static int cumulate(const alea_dist *d, double **least, double **most)
{
    size_t n = alea_dist_count(d);
    *least = malloc((n ? n : 1) * sizeof **least);
    *most = malloc((n ? n : 1) * sizeof **most);
    if (!*least || !*most) {
        free(*least);
        free(*most);
        *least = *most = NULL;
        return 0;
    }
    double s = 0;
    for (size_t i = 0; i < n; i++)
        (*most)[i] = s += alea_dist_prob(d, i);
    s = 0;
    for (size_t i = n; i-- > 0;)
        (*least)[i] = s += alea_dist_prob(d, i);
    return 1;
}

static void put_bar(double v, double vmax)
{
    long len = vmax > 0 ? lround(v / vmax * BAR_WIDTH) : 0;
    if (len == 0 && pct(v) > 0) /* visible in the numbers: visible in the bar */
        len = 1;
    if (len <= 0)
        return;
    static const char hashes[] = "  ########################################";
    _Static_assert(sizeof hashes - 3 >= BAR_WIDTH, "a bar fits in hashes");
    fwrite(hashes, 1, 2 + (size_t)(len < BAR_WIDTH ? len : BAR_WIDTH), stdout);
}

static void put_summary(const alea_dist *d)
{
    printf("mean %.2f   sd %.2f   min %" PRId64 "   max %" PRId64
           "   median %" PRId64 "\n",
           round2(alea_dist_mean(d)), round2(alea_dist_sd(d)), alea_dist_min(d),
           alea_dist_max(d), alea_dist_median(d));
    for (size_t i = 0; i < alea_dist_flag_count(d); i++)
        printf("%s %.2f%%\n", alea_dist_flag_name(d, i), pct(alea_dist_flag_prob(d, i)));
    double cut = alea_dist_truncated(d);
    if (cut > 0)
        printf("truncated %.2g (probability cut off by the explosion bound)\n",
               cut);
}

/* Width of the label column (0 when the distribution names no value). */
static int label_width(const alea_dist *d)
{
    int w = 0;
    for (size_t i = 0; i < alea_dist_count(d); i++) {
        const char *l = alea_dist_label(d, alea_dist_value(d, i));
        if (l && (int)strlen(l) > w)
            w = (int)strlen(l);
    }
    return w;
}

static void dist_table(const alea_dist *d, const char *src, cumul_mode mode,
                       const double *least, const double *most)
{
    size_t n = alea_dist_count(d);
    int vw = 5; /* "value" */
    if (n > 0) {
        int w1 = int_width(alea_dist_min(d)), w2 = int_width(alea_dist_max(d));
        vw = w1 > vw ? w1 : vw;
        vw = w2 > vw ? w2 : vw;
    }

    /* The charted column comes first after the value. */
    double vmax = 0;
    for (size_t i = 0; i < n; i++) {
        double v = mode == SHOW_AT_LEAST ? least[i]
                   : mode == SHOW_AT_MOST ? most[i] : alea_dist_prob(d, i);
        if (v > vmax)
            vmax = v;
    }

    int lw = label_width(d);
    printf("%s\n", src);
    printf("%*s", vw, "value");
    if (lw)
        printf("  %-*s", lw, "outcome");
    vw = 0; /* the value header is out */
    int est = alea_dist_samples(d) > 0; /* an estimate: each % with its interval */
    if (est)
        printf("%*s%8s%17s%11s%11s\n", vw, "", "%", "95% interval", "at least", "at most");
    else if (mode == SHOW_EXACT)
        printf("%*s%8s%11s%11s\n", vw, "", "%", "at least", "at most");
    else if (mode == SHOW_AT_LEAST)
        printf("%*s%11s%8s%11s\n", vw, "", "at least", "%", "at most");
    else
        printf("%*s%11s%8s%11s\n", vw, "", "at most", "%", "at least");
    vw = 5;
    if (n > 0) {
        int w1 = int_width(alea_dist_min(d)), w2 = int_width(alea_dist_max(d));
        vw = w1 > vw ? w1 : vw;
        vw = w2 > vw ? w2 : vw;
    }

    for (size_t i = 0; i < n; i++) {
        double p = alea_dist_prob(d, i), shown;
        printf("%*" PRId64, vw, alea_dist_value(d, i));
        if (lw) {
            const char *l = alea_dist_label(d, alea_dist_value(d, i));
            printf("  %-*s", lw, l ? l : "");
        }
        if (est) {
            double lo, hi;
            alea_dist_interval(d, i, &lo, &hi);
            printf("%8.2f  %6.2f - %6.2f%11.2f%11.2f", pct(p), pct(lo), pct(hi), pct(least[i]),
                   pct(most[i]));
            shown = mode == SHOW_AT_LEAST ? least[i] : mode == SHOW_AT_MOST ? most[i] : p;
        } else if (mode == SHOW_EXACT) {
            printf("%8.2f%11.2f%11.2f", pct(p), pct(least[i]), pct(most[i]));
            shown = p;
        } else if (mode == SHOW_AT_LEAST) {
            printf("%11.2f%8.2f%11.2f", pct(least[i]), pct(p), pct(most[i]));
            shown = least[i];
        } else {
            printf("%11.2f%8.2f%11.2f", pct(most[i]), pct(p), pct(least[i]));
            shown = most[i];
        }
        put_bar(shown, vmax);
        putchar('\n');
    }
    put_summary(d);
}

static void dist_csv(const alea_dist *d, const double *least,
                     const double *most)
{
    size_t n = alea_dist_count(d);
    int est = alea_dist_samples(d) > 0;
    fputs(est ? "value,probability,at_least,at_most,low95,high95\n"
              : "value,probability,at_least,at_most\n", stdout);
    for (size_t i = 0; i < n; i++) {
        printf("%" PRId64 ",", alea_dist_value(d, i));
        put_exact(alea_dist_prob(d, i));
        putchar(',');
        put_exact(least[i]);
        putchar(',');
        put_exact(most[i]);
        if (est) {
            double lo, hi;
            alea_dist_interval(d, i, &lo, &hi);
            putchar(',');
            put_exact(lo);
            putchar(',');
            put_exact(hi);
        }
        putchar('\n');
    }
}

/* ---- dist --sample: a Monte Carlo estimate on every core ------------------------ */

/* The limits and tail bound of o; 0 when the tail bound is out of range. */
static int apply_limits(alea_ctx *ctx, const options *o)
{
    for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
        if (o->limit_set[l])
            alea_ctx_limit(ctx, (alea_limit)l, o->limit[l]);
    return !o->tail_set || alea_ctx_set_tail(ctx, o->tail) == ALEA_OK;
}

/* One thread's share: its own context (stream `index` of the seed),
 * expression and tally. */
typedef struct sampler {
    const options *o;
    const char *src;
    size_t len;
    uint64_t seed, n;
    uint32_t index;
    int64_t memory; /* the thread's share of the memory limit */
    alea_ctx *ctx;
    alea_expr *e;
    alea_tally *tally;
    alea_status st;
} sampler;

static void *sampler_run(void *arg)
{
    sampler *w = arg;
    w->ctx = alea_ctx_new(NULL, NULL);
    if (!w->ctx) {
        w->st = ALEA_ERR_NOMEM;
        return NULL;
    }
    apply_limits(w->ctx, w->o); /* checked on the main context already */
    /* The memory limit is the command's: each thread has its share. */
    alea_ctx_limit(w->ctx, ALEA_LIMIT_MEMORY, w->memory);
    if (w->o->timer->ms > 0 || w->o->timer->cmd_s > 0)
        alea_ctx_set_interrupt(w->ctx, timer_expired, w->o->timer); /* read only */
    alea_ctx_seed_stream(w->ctx, w->seed, w->index);
    if ((w->st = alea_expr_compile(w->ctx, w->src, w->len, &w->e)) != ALEA_OK)
        return NULL;
    w->tally = alea_tally_new(w->ctx);
    w->st = w->tally ? alea_tally_sample(w->ctx, w->e, w->tally, w->n) : ALEA_ERR_NOMEM;
    return NULL;
}

/* Cores to use: --threads, else those online (at most THREADS_MAX). */
static uint32_t thread_count(const options *o)
{
    if (o->threads_set)
        return (uint32_t)o->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > THREADS_MAX ? THREADS_MAX : (uint32_t)n;
}

/* A seed from the main context's generator (seeded by the OS), shown so
 * that the estimate can be made again. */
static uint64_t fresh_seed(alea_ctx *ctx)
{
    static const char src[] = "d{0..9223372036854775807}";
    alea_expr *e;
    int64_t v = 0;
    if (alea_expr_compile(ctx, src, sizeof src - 1, &e) == ALEA_OK) {
        alea_expr_sample(ctx, e, &v);
        alea_expr_free(e);
    }
    return (uint64_t)v;
}

/*
 * The distribution of e (compiled from src) estimated from o->sample rolls
 * on *threads threads, streams of *seed (--seed, or a fresh one). On error
 * it is reported (with the context that failed) and the result is not 0.
 */
static int estimate(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
                    size_t len, uint64_t *seed, uint32_t *threads, alea_dist **out)
{
    uint32_t nt = thread_count(o);
    if ((uint64_t)nt > (uint64_t)o->sample)
        nt = (uint32_t)o->sample;
    *threads = nt;
    *seed = o->seed_set ? o->seed : fresh_seed(ctx);
    sampler *w = calloc(nt, sizeof *w);
    pthread_t *tid = calloc(nt, sizeof *tid);
    unsigned char *started = calloc(nt, 1);
    if (!w || !tid || !started) {
        free(w);
        free(tid);
        free(started);
        return out_of_memory();
    }
    /* One memory budget for the command: the threads and the merged tally
     * (in ctx) share it equally. */
    int64_t memory = alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, -1);
    int64_t share = memory / (int64_t)(nt + 1);
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, (int64_t)alea_ctx_memory(ctx, NULL) + share);
    for (uint32_t i = 0; i < nt; i++) {
        w[i] = (sampler){o, src, len, *seed, (uint64_t)o->sample / nt, i, share, NULL, NULL,
                         NULL, ALEA_OK};
        if (i < (uint64_t)o->sample % nt)
            w[i].n++;
        /* The first share runs here; a thread that cannot start runs here too. */
        started[i] = i > 0 && pthread_create(&tid[i], NULL, sampler_run, &w[i]) == 0;
    }
    for (uint32_t i = 0; i < nt; i++)
        if (!started[i])
            sampler_run(&w[i]);
    for (uint32_t i = 0; i < nt; i++)
        if (started[i])
            pthread_join(tid[i], NULL);

    int rc = EXIT_OK;
    alea_tally *all = NULL;
    for (uint32_t i = 0; i < nt && rc == EXIT_OK; i++) {
        if (w[i].st == ALEA_ERR_LIMIT && nt > 1 && strstr(alea_ctx_error(w[i].ctx), "memory")) {
            fprintf(stderr, "alea: the %u sampling threads share the memory limit (%" PRId64
                            " bytes), %" PRId64 " bytes each, and one ran out; use fewer "
                            "--threads, or raise --max-memory\n", nt, memory, share);
            rc = EXIT_FAIL;
        } else if (w[i].st != ALEA_OK) {
            rc = w[i].ctx ? report_len(w[i].ctx, src, len) : out_of_memory();
        }
    }
    if (rc == EXIT_OK) {
        all = alea_tally_new(ctx);
        if (!all)
            rc = report_len(ctx, src, len);
        for (uint32_t i = 0; i < nt && rc == EXIT_OK; i++)
            if (alea_tally_merge(ctx, all, w[i].tally) != ALEA_OK)
                rc = report_len(ctx, src, len);
        if (rc == EXIT_OK && alea_tally_dist(ctx, all, e, out) != ALEA_OK)
            rc = report_len(ctx, src, len);
    }
    alea_tally_free(all);
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, memory);
    for (uint32_t i = 0; i < nt; i++) {
        alea_tally_free(w[i].tally);
        alea_expr_free(w[i].e);
        alea_ctx_free(w[i].ctx);
    }
    free(w);
    free(tid);
    free(started);
    return rc;
}

/* Prints the distribution of e (compiled from src) in the format o asks for;
 * b is reused from call to call. JSON is formatted whole before it is
 * written: never a partial document. */
static int dist_one(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
                    buffer *b)
{
    alea_dist *d;
    uint64_t seed = 0;
    uint32_t threads = 0;
    timer_arm(o->timer);
    if (o->sample) {
        int erc = estimate(ctx, o, e, src, strlen(src), &seed, &threads, &d);
        if (erc != EXIT_OK)
            return erc;
    } else if (alea_expr_dist(ctx, e, &d) != ALEA_OK) {
        return report(ctx, src);
    }
    double boons = 0, banes = 0;
    if (o->boons_set &&
        alea_dist_boons(ctx, d, &o->boons, o->drive, o->support, &boons, &banes) != ALEA_OK) {
        alea_dist_free(d);
        return report(ctx, src);
    }

    int rc = EXIT_OK;
    if (o->json) {
        size_t len = format_dist_json(d, b);
        char extra[96] = "";
        if (o->sample) /* how to make the estimate again, before the last '}' */
            snprintf(extra, sizeof extra, ", \"seed\": %" PRIu64 ", \"threads\": %u}", seed,
                     threads);
        size_t xl = strlen(extra);
        if (len == SIZE_MAX || !buffer_reserve(b, len + xl + 2)) {
            rc = out_of_memory();
        } else {
            if (xl) {
                memcpy(b->p + len - 1, extra, xl);
                len += xl - 1;
            }
            b->p[len] = '\n';
            fwrite(b->p, 1, len + 1, stdout);
        }
    } else {
        double *least, *most;
        if (!cumulate(d, &least, &most)) {
            rc = out_of_memory();
        } else {
            if (o->csv) {
                dist_csv(d, least, most);
            } else {
                if (o->sample)
                    printf("estimate from %" PRIu64 " rolls on %u thread%s, seed %" PRIu64
                           " (--seed %" PRIu64 " --threads %u to repeat it)\n",
                           alea_dist_samples(d), threads, threads == 1 ? "" : "s", seed, seed,
                           threads);
                dist_table(d, src, o->cumul, least, most);
            }
            if (o->boons_set && !o->csv)
                printf("expected boons %.2f   expected banes %.2f\n", boons, banes);
            free(least);
            free(most);
        }
    }
    alea_dist_free(d);
    return rc;
}

static int cmd_dist(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    buffer b = {NULL, 0};
    int rc = dist_one(ctx, o, ex[0], o->exprs[0], &b);
    free(b.p);
    return rc;
}

/* ---- compare ---------------------------------------------------------------------- */

/* One column of the comparison: a distribution and a cursor over it. */
typedef struct column {
    alea_dist *d;
    double *least, *most;
    size_t n, at;
    int width;
    char head[HEADER_MAX * 4 + 1]; /* room for UTF-8 */
} column;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/*
 * The cell of column c for value v: sets *p and returns 1, or returns 0 when
 * blank (an impossible value, exact mode). Advances c->at monotonically, so
 * values must be asked in ascending order.
 */
static int cell(column *c, int64_t v, cumul_mode mode, double *p)
{
    while (c->at < c->n && alea_dist_value(c->d, c->at) < v)
        c->at++;
    int hit = c->at < c->n && alea_dist_value(c->d, c->at) == v;
    switch (mode) {
    case SHOW_AT_LEAST:
        *p = c->at < c->n ? c->least[c->at] : 0.0;
        return 1;
    case SHOW_AT_MOST:
        *p = hit ? c->most[c->at] : c->at > 0 ? c->most[c->at - 1] : 0.0;
        return 1;
    case SHOW_EXACT:
    default:
        if (!hit)
            return 0;
        *p = alea_dist_prob(c->d, c->at);
        return 1;
    }
}

/* Header text: the expression, cut to HEADER_MAX characters with "...". */
static void make_head(column *c, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t len = strlen(src), units = 0, i;
    for (i = 0; i < len; i += unit_len(s, len, i))
        units++;
    size_t keep = units <= HEADER_MAX ? units : HEADER_MAX - 3, u = 0, o = 0;
    for (i = 0; i < len && u < keep; u++) {
        size_t n = unit_len(s, len, i);
        unsigned ch = s[i];
        if (n > 1) {
            memcpy(c->head + o, s + i, n);
            o += n;
        } else {
            c->head[o++] = ch < 0x20 || ch == 0x7F || ch >= 0x80 ? '?' : (char)ch;
        }
        i += n;
    }
    if (keep < units) {
        memcpy(c->head + o, "...", 3);
        o += 3;
    }
    c->head[o] = '\0';
    c->width = (int)(keep < units ? HEADER_MAX : units);
}

static void put_csv_field(const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' &&
        (s[0] == '\0' || s[strlen(s) - 1] != ' ')) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

/* Prints a stat row: label, then one formatted value per column. */
static void put_stat_row(const char *label, int lw, column *cols, size_t ncols,
                         int which)
{
    printf("%*s", lw, label);
    for (size_t j = 0; j < ncols; j++) {
        const alea_dist *d = cols[j].d;
        char tmp[64];
        switch (which) {
        case 0: snprintf(tmp, sizeof tmp, "%.2f", round2(alea_dist_mean(d))); break;
        case 1: snprintf(tmp, sizeof tmp, "%.2f", round2(alea_dist_sd(d))); break;
        case 2: snprintf(tmp, sizeof tmp, "%" PRId64, alea_dist_min(d)); break;
        case 3: snprintf(tmp, sizeof tmp, "%" PRId64, alea_dist_max(d)); break;
        default: snprintf(tmp, sizeof tmp, "%" PRId64, alea_dist_median(d)); break;
        }
        printf("  %*s", cols[j].width, tmp);
    }
    putchar('\n');
}

static int stat_width(const alea_dist *d)
{
    char tmp[64];
    int w = snprintf(tmp, sizeof tmp, "%.2f", round2(alea_dist_mean(d)));
    int k = snprintf(tmp, sizeof tmp, "%.2f", round2(alea_dist_sd(d)));
    w = k > w ? k : w;
    k = int_width(alea_dist_min(d));
    w = k > w ? k : w;
    k = int_width(alea_dist_max(d));
    return k > w ? k : w;
}

static void compare_print(alea_ctx *ctx, column *cols, size_t ncols, const int64_t *vals,
                          size_t nvals, const options *o)
{
    static const char *const titles[] = {
        "% chance of each value", "% chance of at least each value",
        "% chance of at most each value"};

    if (o->csv) {
        fputs("value", stdout);
        for (size_t j = 0; j < ncols; j++) {
            putchar(',');
            put_csv_field(o->exprs[j]);
        }
        putchar('\n');
        for (size_t r = 0; r < nvals; r++) {
            printf("%" PRId64, vals[r]);
            for (size_t j = 0; j < ncols; j++) {
                double p;
                putchar(',');
                if (cell(&cols[j], vals[r], o->cumul, &p))
                    put_exact(p);
            }
            putchar('\n');
        }
        return;
    }

    int lw = 6; /* "median" */
    if (nvals > 0) {
        int w1 = int_width(vals[0]), w2 = int_width(vals[nvals - 1]);
        lw = w1 > lw ? w1 : lw;
        lw = w2 > lw ? w2 : lw;
    }
    for (size_t j = 0; j < ncols; j++) {
        int w = stat_width(cols[j].d);
        if (w > cols[j].width)
            cols[j].width = w;
        if (cols[j].width < 6) /* "100.00" */
            cols[j].width = 6;
    }

    int labw = 0; /* dd() compared with dd() only: name the tiers */
    for (size_t j = 0; j < ncols; j++) {
        int w = label_width(cols[j].d);
        if (w == 0) {
            labw = 0;
            break;
        }
        labw = w > labw ? w : labw;
    }
    puts(titles[o->cumul]);
    printf("%*s", lw, "value");
    if (labw)
        printf("  %-*s", labw, "outcome");
    for (size_t j = 0; j < ncols; j++) {
        /* %*s counts bytes; pad by characters so UTF-8 headers line up. */
        size_t units = 0, len = strlen(cols[j].head);
        const unsigned char *s = (const unsigned char *)cols[j].head;
        for (size_t i = 0; i < len; i += unit_len(s, len, i))
            units++;
        fputs("  ", stdout);
        for (size_t k = units; k < (size_t)cols[j].width; k++)
            putchar(' ');
        fputs(cols[j].head, stdout);
    }
    putchar('\n');
    for (size_t r = 0; r < nvals; r++) {
        printf("%*" PRId64, lw, vals[r]);
        if (labw) {
            const char *l = NULL;
            for (size_t j = 0; j < ncols && !l; j++)
                l = alea_dist_label(cols[j].d, vals[r]);
            printf("  %-*s", labw, l ? l : "");
        }
        int blanks = 0; /* trailing blank cells are not padded */
        for (size_t j = 0; j < ncols; j++) {
            double p;
            if (cell(&cols[j], vals[r], o->cumul, &p)) {
                for (; blanks > 0; blanks--)
                    printf("  %*s", cols[j - (size_t)blanks].width, "");
                printf("  %*.2f", cols[j].width, pct(p));
            } else {
                blanks++;
            }
        }
        putchar('\n');
    }
    static const char *const stats[] = {"mean", "sd", "min", "max", "median"};
    if (labw)
        lw += 2 + labw; /* the statistics' names span the label column too */
    for (int k = 0; k < 5; k++)
        put_stat_row(stats[k], lw, cols, ncols, k);
    if (o->boons_set) { /* expected boons and banes per column (dd() only) */
        static const char *const names[] = {"boons", "banes"};
        for (int k = 0; k < 2; k++) {
            printf("%*s", lw, names[k]);
            for (size_t j = 0; j < ncols; j++) {
                double b, n;
                if (alea_dist_boons(ctx, cols[j].d, &o->boons, o->drive, o->support, &b,
                                    &n) == ALEA_OK)
                    printf("  %*.2f", cols[j].width, k ? n : b);
                else
                    printf("  %*s", cols[j].width, "");
            }
            putchar('\n');
        }
    }
    for (size_t j = 0; j < ncols; j++)
        for (size_t i = 0; i < alea_dist_flag_count(cols[j].d); i++)
            printf("%s %.2f%% in %s\n", alea_dist_flag_name(cols[j].d, i),
                   pct(alea_dist_flag_prob(cols[j].d, i)), o->exprs[j]);
    for (size_t j = 0; j < ncols; j++) {
        double cut = alea_dist_truncated(cols[j].d);
        if (cut > 0)
            printf("truncated %.2g in %s (probability cut off by the explosion "
                   "bound)\n", cut, o->exprs[j]);
    }
}

static int cmd_compare(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    size_t ncols = o->nexprs, nvals = 0, total = 0;
    int rc = EXIT_OK;
    int64_t *vals = NULL;
    column *cols = calloc(ncols, sizeof *cols);
    if (!cols)
        return out_of_memory();

    /* The limits bound the whole table: the columns share one work budget
     * (each is given what the others left), and their outcomes together
     * stay within the support limit, which bounds the table's memory and
     * rows. The memory limit already covers them: every column is held in
     * ctx until the table is printed. */
    int64_t work = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1), spent = 0;
    int64_t support = alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, -1);
    for (size_t j = 0; j < ncols; j++) {
        timer_arm(o->timer);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent);
        alea_status st = alea_expr_dist(ctx, ex[j], &cols[j].d);
        spent += alea_ctx_work(ctx);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work);
        if (st != ALEA_OK) {
            cols[j].d = NULL;
            if (st == ALEA_ERR_LIMIT && j > 0 && strstr(alea_ctx_error(ctx), "work limit")) {
                fprintf(stderr, "alea: compare: the columns need more work in all than the "
                                "work limit (%" PRId64 ") allows; compare fewer expressions, "
                                "or raise --max-work\n", work);
                rc = EXIT_FAIL;
            } else {
                rc = report(ctx, o->exprs[j]);
            }
            goto done;
        }
        cols[j].n = alea_dist_count(cols[j].d);
        total += cols[j].n;
        if ((int64_t)total > support) {
            fprintf(stderr, "alea: compare: the columns have more than %" PRId64 " outcomes in "
                            "all (support limit, for the whole table); compare fewer "
                            "expressions, or raise --max-support\n", support);
            rc = EXIT_FAIL;
            goto done;
        }
        if (!cumulate(cols[j].d, &cols[j].least, &cols[j].most)) {
            rc = out_of_memory();
            goto done;
        }
        make_head(&cols[j], o->exprs[j]);
    }

    /* Rows: the union of every column's values. */
    vals = malloc((total ? total : 1) * sizeof *vals);
    if (!vals) {
        rc = out_of_memory();
        goto done;
    }
    for (size_t j = 0; j < ncols; j++)
        for (size_t i = 0; i < cols[j].n; i++)
            vals[nvals++] = alea_dist_value(cols[j].d, i);
    qsort(vals, nvals, sizeof *vals, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nvals; i++)
        if (u == 0 || vals[i] != vals[u - 1])
            vals[u++] = vals[i];
    nvals = u;

    compare_print(ctx, cols, ncols, vals, nvals, o);

done:
    for (size_t j = 0; j < ncols; j++) {
        alea_dist_free(cols[j].d);
        free(cols[j].least);
        free(cols[j].most);
    }
    free(cols);
    free(vals);
    return rc;
}

/* ---- expressions from standard input ------------------------------------------ */

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Standard input, read with read(2) in blocks: read returns what has
 * arrived, so a line is answered as soon as it comes, even from a program
 * that waits for the answer before it writes the next one (stdio's fread
 * would wait for a whole block).
 */
typedef struct input {
    size_t pos, end;
    int eof, err; /* end of input; errno of a read error */
    char buf[1 << 16];
} input;

static int input_fill(input *in)
{
    for (;;) {
        ssize_t n = read(STDIN_FILENO, in->buf, sizeof in->buf);
        if (n > 0) {
            in->pos = 0;
            in->end = (size_t)n;
            return 1;
        }
        if (n == 0) {
            in->eof = 1;
            return 0;
        }
        if (errno != EINTR) {
            in->err = errno;
            return 0;
        }
    }
}

/*
 * Reads one line: its first bytes, at most keep, into line (which has room
 * for keep + 1: it is NUL-terminated), their count in *kept, and the line's
 * whole length in *full, both without the line end ("\n" or "\r\n").
 * *blank tells whether the line is only whitespace. Returns 0 at the end of
 * the input. Bytes past keep are read and dropped, so a line of any length
 * costs keep bytes.
 */
static int read_line(input *in, char *line, size_t keep, size_t *kept, size_t *full,
                     int *blank)
{
    size_t n = 0, total = 0;
    int any = 0, last = EOF;
    *blank = 1;
    for (;;) {
        if (in->pos == in->end && (in->eof || in->err || !input_fill(in)))
            break;
        any = 1;
        const char *p = in->buf + in->pos;
        size_t avail = in->end - in->pos;
        const char *nl = memchr(p, '\n', avail);
        size_t take = nl ? (size_t)(nl - p) : avail;
        size_t copy = take < keep - n ? take : keep - n;
        memcpy(line + n, p, copy);
        n += copy;
        for (size_t i = 0; i < take && *blank; i++)
            if (!is_blank((unsigned char)p[i]))
                *blank = 0;
        if (take)
            last = (unsigned char)p[take - 1];
        total += take;
        in->pos += take + (nl != NULL);
        if (nl)
            break;
    }
    if (!any)
        return 0;
    if (last == '\r') { /* CRLF */
        total--;
        if (n > total)
            n = total;
    }
    line[n] = '\0';
    *kept = n;
    *full = total;
    return 1;
}

/* A line longer than the source limit, of which kept bytes were read: the
 * library's message, with the caret under the first byte past the limit. */
static int report_too_long(const char *line, size_t kept, size_t full, int64_t limit)
{
    fprintf(stderr, "alea: expression too long: %zu bytes (source limit is %" PRId64 ")\n",
            full, limit);
    put_excerpt(line, kept, (size_t)limit, kept);
    return EXIT_FAIL;
}

/*
 * roll and dist with no EXPR and standard input not a terminal: each line
 * is an expression, evaluated as an argument would be (blank lines are
 * skipped). A bad line is reported on stderr and does not stop the others;
 * the result is EXIT_FAIL if any line failed. Each line's output is written
 * whole and flushed before the next line is read, so a program can keep
 * alea running and write one expression at a time. A line is read into at
 * most source limit + 1 bytes: a longer one gets the limit error.
 */
static int cmd_lines(alea_ctx *ctx, const options *o, command cmd, int has_cmd)
{
    int64_t limit = alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, -1);
    size_t keep = (size_t)limit + 1, kept, full;
    char *line = malloc(keep + 1);
    input *in = calloc(1, sizeof *in);
    alea_roll *roll = cmd == CMD_ROLL ? alea_roll_new(ctx) : NULL;
    buffer b = {NULL, 0};
    int rc = EXIT_OK, lines = 0, printed = 0, blank;

    if (!line || !in || (cmd == CMD_ROLL && !roll)) {
        free(line);
        free(in);
        alea_roll_free(roll);
        return out_of_memory();
    }
    while (read_line(in, line, keep, &kept, &full, &blank)) {
        if (blank)
            continue;
        lines++;
        command_arm(o->timer); /* each line is a command of its own */
        alea_expr *e = NULL;
        int r;
        if (full > (size_t)limit) {
            r = report_too_long(line, kept, full, limit);
        } else if (alea_expr_compile(ctx, line, kept, &e) != ALEA_OK) {
            r = report_len(ctx, line, kept);
        } else if (cmd == CMD_ROLL) {
            r = roll_one(ctx, o, e, line, roll, &b);
        } else {
            if (printed && !o->json)
                putchar('\n'); /* a blank line between tables */
            r = dist_one(ctx, o, e, line, &b);
            printed |= r == EXIT_OK;
        }
        alea_expr_free(e);
        if (r != EXIT_OK)
            rc = EXIT_FAIL;
        if (fflush(stdout) != 0 || ferror(stdout))
            break; /* a closed pipe: main reports */
    }
    if (in->err) {
        fprintf(stderr, "alea: error reading standard input: %s\n", strerror(in->err));
        rc = EXIT_FAIL;
    } else if (lines == 0 && !ferror(stdout)) {
        rc = usage_error(cmd, has_cmd, "missing expression");
    }
    alea_roll_free(roll);
    free(b.p);
    free(in);
    free(line);
    return rc;
}

/* ---- the interactive session --------------------------------------------------- */

static const char repl_help[] =
    "Type an expression to roll it; an empty line rolls the last one again.\n"
    "  :roll EXPR           roll (the same as typing EXPR)\n"
    "  :dist EXPR           its exact distribution\n"
    "  :compare E1 ; E2 ... distributions side by side (expressions split by ';')\n"
    "  :seed S              seed the generator (the rolls after it repeat)\n"
    "  :help                this text\n"
    "  :quit                leave (or Ctrl-D)\n"
    "The dice language: docs/language.md, or 'man alea'.\n";

/* One line from the user, without its line end; NULL at the end of input.
 * The caller frees it. */
static char *repl_read(const char *prompt)
{
#ifdef ALEA_HAVE_EDITLINE
    return readline(prompt);
#else
    fputs(prompt, stdout);
    fflush(stdout);
    size_t cap = 256, n = 0;
    char *line = malloc(cap);
    int c;
    while (line && (c = getchar()) != EOF && c != '\n') {
        if (n + 1 == cap) {
            char *p = cap < 1048576 ? realloc(line, cap *= 2) : NULL;
            if (!p) {
                free(line);
                return NULL;
            }
            line = p;
        }
        line[n++] = (char)c;
    }
    if (!line || (c == EOF && n == 0)) {
        free(line);
        return NULL;
    }
    line[n] = '\0';
    return line;
#endif
}

/* ~/.alea_history, or NULL without a HOME. */
static char *history_path(void)
{
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    size_t n = strlen(home) + sizeof "/.alea_history";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/.alea_history", home);
    return p;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Compiles src and rolls it once, or prints its distribution. */
static int repl_eval(alea_ctx *ctx, options *o, const char *src, int dist, alea_roll *roll,
                     buffer *b)
{
    alea_expr *e;
    if (alea_expr_compile(ctx, src, strlen(src), &e) != ALEA_OK)
        return report(ctx, src);
    int rc = dist ? dist_one(ctx, o, e, src, b) : roll_one(ctx, o, e, src, roll, b);
    alea_expr_free(e);
    return rc;
}

/* :compare E1 ; E2 ... */
static int repl_compare(alea_ctx *ctx, options *o, char *list)
{
    const char *parts[64];
    size_t n = 0;
    for (char *p = list, *semi; p && n < 64; p = semi) {
        semi = strchr(p, ';');
        if (semi)
            *semi++ = '\0';
        char *t = trim(p);
        if (*t)
            parts[n++] = t;
    }
    if (n < 1) {
        fputs("alea: :compare needs expressions, as in :compare 2d20kh1 ; 1d20+5\n", stderr);
        return EXIT_FAIL;
    }
    alea_expr *ex[64] = {NULL};
    options c = *o;
    c.exprs = parts;
    c.nexprs = n;
    int rc = compile_all(ctx, &c, ex);
    if (rc == EXIT_OK)
        rc = cmd_compare(ctx, &c, ex);
    for (size_t i = 0; i < n; i++)
        alea_expr_free(ex[i]);
    return rc;
}

/*
 * "alea" at a terminal: read a line, roll it or run its command, print,
 * again, until :quit or the end of input. Errors are reported and the
 * session goes on. With editline, lines can be edited and the history is
 * kept in ~/.alea_history.
 */
static int cmd_repl(alea_ctx *ctx, options *o)
{
    alea_roll *roll = alea_roll_new(ctx);
    buffer b = {NULL, 0};
    char *last = NULL, *hist = history_path();
    if (!roll)
        return out_of_memory();
#ifdef ALEA_HAVE_EDITLINE
    using_history();
    stifle_history(1000);
    if (hist)
        read_history(hist);
#endif
    printf("alea %s: type an expression to roll it, :help for more, Ctrl-D to leave.\n",
           alea_version());
    o->n = 1;
    for (;;) {
        fflush(stdout);
        char *line = repl_read("alea> ");
        if (!line) {
            putchar('\n');
            break;
        }
        char *cmd = trim(line);
        command_arm(o->timer); /* each line is a command of its own */
#ifdef ALEA_HAVE_EDITLINE
        if (*cmd)
            add_history(cmd);
#endif
        int quit = 0;
        if (!*cmd) {
            if (last)
                repl_eval(ctx, o, last, 0, roll, &b);
        } else if (*cmd != ':') {
            repl_eval(ctx, o, cmd, 0, roll, &b);
            free(last);
            last = strdup(cmd);
        } else {
            char *arg = cmd + 1 + strcspn(cmd + 1, " \t");
            size_t wl = (size_t)(arg - cmd - 1);
            arg = trim(arg);
#define IS(w) (wl == sizeof w - 1 && !strncmp(cmd + 1, w, wl))
            if (IS("quit") || IS("q") || IS("exit")) {
                quit = 1;
            } else if (IS("help") || IS("h") || IS("?")) {
                fputs(repl_help, stdout);
            } else if ((IS("roll") || IS("r") || IS("dist") || IS("d")) && *arg) {
                repl_eval(ctx, o, arg, IS("dist") || IS("d"), roll, &b);
                free(last);
                last = strdup(arg);
            } else if (IS("compare") || IS("c")) {
                repl_compare(ctx, o, arg);
            } else if ((IS("seed") || IS("s")) && *arg) {
                uint64_t seed;
                if (parse_u64(arg, &seed)) {
                    alea_ctx_seed(ctx, seed);
                    printf("seeded with %" PRIu64 "\n", seed);
                } else {
                    fprintf(stderr, "alea: :seed takes a number from 0 to "
                                    "18446744073709551615, not '%s'\n", arg);
                }
            } else if (IS("roll") || IS("r") || IS("dist") || IS("d") || IS("seed") ||
                       IS("s")) {
                fprintf(stderr, "alea: %.*s needs %s, as in %.*s %s\n", (int)wl + 1, cmd,
                        IS("seed") || IS("s") ? "a number" : "an expression", (int)wl + 1, cmd,
                        IS("seed") || IS("s") ? "7" : "4d6kh3");
            } else {
                fprintf(stderr, "alea: unknown command '%s' (:help lists them)\n", cmd);
            }
#undef IS
        }
        free(line);
        fflush(stderr);
        if (quit)
            break;
    }
#ifdef ALEA_HAVE_EDITLINE
    if (hist)
        write_history(hist);
#endif
    free(hist);
    free(last);
    free(b.p);
    alea_roll_free(roll);
    return EXIT_OK;
}

/* ---- main ------------------------------------------------------------------------- */

static int apply_options(alea_ctx *ctx, const options *o, command cmd,
                         int has_cmd)
{
    if (!apply_limits(ctx, o))
        return usage_error(cmd, has_cmd,
                           "--tail: %s is outside the accepted range "
                           "[1e-300, 1e-3]", o->tail_text);
    return EXIT_OK;
}

static int run(command cmd, int has_cmd, int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    /* --multipliers default: success and critical success earn the table */
    o.boons.multiplier[2] = o.boons.multiplier[3] = 1;
    o.n = 1;
    o.cumul = SHOW_EXACT;
    const char *no_color = getenv("NO_COLOR");
    o.color = isatty(STDOUT_FILENO) && !(no_color && *no_color);
    timer tm = {0, {0, 0}, TIME_LIMIT_DEFAULT, {0, 0}};
    o.timer = &tm;
    command_timer = &tm;
    o.exprs = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *o.exprs);
    if (!o.exprs)
        return out_of_memory();

    int rc = parse_args(cmd, has_cmd, argc, argv, &o);
    if (rc == EXIT_OK && o.help) {
        help_command(cmd, stdout);
        free(o.exprs);
        return EXIT_OK;
    }
    if (rc != EXIT_OK) {
        free(o.exprs);
        return rc;
    }

    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr **ex = calloc(o.nexprs ? o.nexprs : 1, sizeof *ex);
    if (!ctx || !ex) {
        rc = out_of_memory();
        goto done;
    }
    rc = apply_options(ctx, &o, cmd, has_cmd);
    if (tm.ms > 0 || tm.cmd_s > 0)
        alea_ctx_set_interrupt(ctx, timer_expired, &tm);
    command_arm(&tm);
    if (o.seed_set)
        alea_ctx_seed(ctx, o.seed);
    if (rc == EXIT_OK && o.repl) {
        rc = cmd_repl(ctx, &o);
        goto done;
    }
    if (rc == EXIT_OK && o.from_stdin) {
        rc = cmd_lines(ctx, &o, cmd, has_cmd);
        goto done;
    }
    if (rc == EXIT_OK)
        rc = compile_all(ctx, &o, ex);
    if (rc == EXIT_OK) {
        switch (cmd) {
        case CMD_ROLL: rc = cmd_roll(ctx, &o, ex); break;
        case CMD_DIST: rc = cmd_dist(ctx, &o, ex); break;
        case CMD_COMPARE:
        default: rc = cmd_compare(ctx, &o, ex); break;
        }
    }

done:
    if (ex)
        for (size_t i = 0; i < o.nexprs; i++)
            alea_expr_free(ex[i]);
    free(ex);
    alea_ctx_free(ctx);
    free(o.exprs);
    return rc;
}

static int find_command(const char *s, command *out)
{
    for (int c = 0; c < CMD__COUNT; c++)
        if (!strcmp(s, command_names[c])) {
            *out = (command)c;
            return 1;
        }
    return 0;
}

/* Flushes stdout and reports a write error; a reader that went away (EPIPE,
 * as in "alea roll -n 1000 1d6 | head -1") is not an error. */
static int finish_output(int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (errno == EPIPE)
        return rc;
    fprintf(stderr, "alea: write error: %s\n", strerror(errno));
    return EXIT_FAIL;
}

int main(int argc, char **argv)
{
    static char outbuf[1 << 16];
    command cmd = CMD_ROLL;
    int rc;

#ifdef SIGPIPE
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is seen as EPIPE instead */
#endif
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

    if (argc < 2) {
        rc = run(CMD_ROLL, 0, 0, argv + 1); /* expressions on stdin, if piped */
    } else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        help_main(stdout);
        rc = EXIT_OK;
    } else if (!strcmp(argv[1], "--version")) {
        printf("alea %s\n", alea_version());
        rc = EXIT_OK;
    } else if (!strcmp(argv[1], "help")) {
        if (argc == 2) {
            help_main(stdout);
            rc = EXIT_OK;
        } else if (argc == 3 && find_command(argv[2], &cmd)) {
            help_command(cmd, stdout);
            rc = EXIT_OK;
        } else if (argc == 3) {
            rc = usage_error(CMD_ROLL, 0, "help: unknown command '%s'", argv[2]);
        } else {
            rc = usage_error(CMD_ROLL, 0, "help takes at most one command");
        }
    } else if (find_command(argv[1], &cmd)) {
        rc = run(cmd, 1, argc - 2, argv + 2);
    } else {
        rc = run(CMD_ROLL, 0, argc - 1, argv + 1); /* a bare expression */
    }
    return finish_output(rc);
}
