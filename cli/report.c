/*
 * report.c -- every message the command line writes to stderr: usage
 * errors with their pointer to --help, the library's errors with the
 * expression and a caret under the span (as jq does), out of memory, and
 * the time limit.
 */
#include "cli.h"

#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Error excerpts longer than this many characters are shown as a window of
 * WINDOW characters around the error, so a 100 kB expression does not flood
 * the terminal. */
#define EXCERPT_MAX 76
#define WINDOW 70
#define WINDOW_BEFORE 20

static void usage_hint(command cmd, int has_cmd)
{
    if (has_cmd)
        fprintf(stderr, "Try 'alea %s --help' for more information.\n",
                command_names[cmd]);
    else
        fputs("Try 'alea --help' for more information.\n", stderr);
}

int usage_error(command cmd, int has_cmd, const char *fmt, ...)
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

int out_of_memory(void)
{
    fputs("alea: out of memory\n", stderr);
    return EXIT_FAIL;
}

/* ---- error excerpt with a caret ------------------------------------------ */

/*
 * The expression is shown one character per column: printable ASCII as is,
 * whitespace as a space, other control bytes and invalid UTF-8 as '?', and a
 * valid UTF-8 sequence as itself (one column; wide characters are rare in
 * dice). unit_len gives the bytes of the character at src[i].
 */
size_t unit_len(const unsigned char *s, size_t len, size_t i)
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

static void put_unit(FILE *f, const unsigned char *s, size_t i, size_t n)
{
    unsigned c = s[i];
    if (n > 1)
        fwrite(s + i, 1, n, f);
    else if (c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
        fputc(' ', f);
    else if (c < 0x20 || c >= 0x7F)
        fputc('?', f);
    else
        fputc((int)c, f);
}

void put_excerpt_to(FILE *f, const char *src, size_t len, size_t start, size_t end)
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

    fputs("  ", f);
    if (ws > 0)
        fputs("...", f);
    size_t u = 0;
    for (i = 0; i < len && u < we; u++) {
        size_t n = unit_len(s, len, i);
        if (u >= ws)
            put_unit(f, s, i, n);
        i += n;
    }
    if (we < units)
        fputs("...", f);
    fputc('\n', f);

    size_t col = (ws > 0 ? 5u : 2u) + (cs - ws); /* indent, "..." */
    size_t last = ce;
    if (we < units && last > we) /* the span goes on past the window */
        last = we;
    if (last <= cs)
        last = cs + 1;
    for (size_t k = 0; k < col; k++)
        fputc(' ', f);
    for (size_t k = cs; k < last; k++)
        fputc('^', f);
    fputc('\n', f);
}

void put_excerpt(const char *src, size_t len, size_t start, size_t end)
{
    put_excerpt_to(stderr, src, len, start, end);
}

/* ---- the library's errors ------------------------------------------------ */

int report_time_limit(const timer *t)
{
    fprintf(stderr,
            "alea: stopped after %" PRId64 " s: the command's time limit (--time-limit "
            "SECONDS sets it; 0 removes it)\n", t->cmd_s);
    return EXIT_FAIL;
}

/* The timer of the command under way, for the message of an interrupted
 * evaluation (set by run(); the process runs one command). */
static const timer *command_timer;

void report_use_timer(const timer *t)
{
    command_timer = t;
}

/*
 * Prints the context's last error: "alea: <message>", then (when it concerns
 * a place in the len bytes of src) the expression and a caret line under the
 * span, as jq does. src may be NULL when no expression is involved.
 */
int report_len(const alea_ctx *ctx, const char *src, size_t len)
{
    size_t start = 0, end = 0;
    alea_status st = alea_ctx_error_span(ctx, &start, &end);
    char line[ALEA_ERROR_LINE_MAX];

    if (st == ALEA_ERR_INTERRUPTED) {
        /* The CLI's only interrupt hook is the timer's: --timeout's deadline
         * or the command's time limit. */
        if (command_timer && command_expired(command_timer))
            return report_time_limit(command_timer);
        fprintf(stderr, "alea: timed out: the expression ran past --timeout and was "
                        "stopped\n");
        return EXIT_FAIL;
    }
    alea_ctx_error_line(ctx, line, sizeof line);
    fprintf(stderr, "alea: %s\n", line);

    /* A span of [0, 0) means "no position", except in an empty source or
     * for a syntax error at its very start. */
    if (src && (end > start || start > 0 || len == 0 || st == ALEA_ERR_SYNTAX))
        put_excerpt(src, len, start, end);
    return EXIT_FAIL;
}

int report(const alea_ctx *ctx, const char *src)
{
    return report_len(ctx, src, src ? strlen(src) : 0);
}

void report_hint(const alea_expr *e)
{
    const char *h = alea_expr_hint(e);
    if (h)
        fprintf(stderr, "alea: hint: %s\n", h);
}

/* ---- what would let an expression through -------------------------------- */

/* The limit a limit error names ("(work limit is 30000000)", "node limit",
 * "memory limit exceeded"); 0 when the message names none. */
static int named_limit(const char *msg, alea_limit *out)
{
    for (int k = 0; k < ALEA_LIMIT__COUNT; k++) {
        const char *name = alea_limit_name((alea_limit)k);
        size_t n = strlen(name);
        char pat[40];
        if (n > 0 && name[n - 1] == 's') /* "nodes": "node limit" */
            n--;
        snprintf(pat, sizeof pat, "%.*s limit", (int)n, name);
        if (strstr(msg, pat)) {
            *out = (alea_limit)k;
            return 1;
        }
    }
    return 0;
}

/* The limit that the context's limit error names; 0 when none. */
static int error_limit(const alea_ctx *ctx, alea_limit *l)
{
    size_t start, end;
    return alea_ctx_error_span(ctx, &start, &end) == ALEA_ERR_LIMIT &&
           named_limit(alea_ctx_error(ctx), l);
}

/* The hint for limit l. For the work limit, need is what the cost model
 * says the evaluation needs at least (the library's estimate of a step it
 * refused before starting it), or 0 when it stopped in a step's loop. The
 * hint never computes the expression again: a refusal costs no more than
 * the limit it enforces. */
static void limit_hint(alea_ctx *ctx, unsigned ways, alea_limit l, double need)
{
    int64_t now = alea_ctx_limit(ctx, l, -1), max = alea_limit_max(l);
    double outcomes = l == ALEA_LIMIT_SUPPORT ? alea_ctx_support_needed(ctx) : 0;
    if (outcomes > (double)max)
        fprintf(stderr, "alea: hint: it needs %.0f outcomes, more than --max-support allows "
                        "(at most %" PRId64 ")",
                outcomes, max);
    else if (outcomes > 0)
        fprintf(stderr, "alea: hint: it needs %.0f outcomes: raise --max-support to that "
                        "(%" PRId64 " now, at most %" PRId64 ")",
                outcomes, now, max);
    else if (need > (double)max)
        fprintf(stderr, "alea: hint: it needs more work than --max-work allows (at most %" PRId64
                        ")",
                max);
    else if (need > 0)
        fprintf(stderr, "alea: hint: it needs at least %.0f units of work: raise --max-work "
                        "(%" PRId64 " now, at most %" PRId64 ")",
                ceil(need), now, max); /* as the library's message rounds it */
    else if (now < max)
        fprintf(stderr, "alea: hint: raise --max-%s (%" PRId64 " now, at most %" PRId64 ")",
                alea_limit_name(l), now, max);
    else
        fprintf(stderr, "alea: hint: --max-%s is at its maximum (%" PRId64 ")",
                alea_limit_name(l), max);
    /* an estimate rolls instead: past the work, outcomes and memory of the
     * exact engine, not past the dice or the expression's size */
    int evaluation = l == ALEA_LIMIT_WORK || l == ALEA_LIMIT_SUPPORT || l == ALEA_LIMIT_MEMORY;
    if ((ways & HINT_EXACT) && (l == ALEA_LIMIT_WORK || l == ALEA_LIMIT_MEMORY))
        fputs(", drop --exact (fractions need more work and memory)", stderr);
    if ((ways & HINT_SAMPLE) && evaluation)
        fputs(", or estimate with --sample 10000", stderr);
    fputc('\n', stderr);
}

void report_limit_hint(alea_ctx *ctx, unsigned ways)
{
    alea_limit l;
    /* a step refused before it started says what the evaluation needed up
     * to it (later steps may need more) */
    if (error_limit(ctx, &l))
        limit_hint(ctx, ways, l, l == ALEA_LIMIT_WORK ? alea_ctx_work_needed(ctx) : 0);
}

int report_limit(alea_ctx *ctx, const char *src, unsigned ways)
{
    int rc = report(ctx, src);
    report_limit_hint(ctx, ways);
    return rc;
}

int report_output_limit(alea_ctx *ctx, const char *src, const char *what)
{
    int64_t limit = alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, -1);
    size_t len = strlen(src);
    fprintf(stderr,
            "alea: too much output: the %s passes %" PRId64
            " bytes (output limit is %" PRId64 ")\n",
            what, limit, limit);
    put_excerpt(src, len, 0, len);
    limit_hint(ctx, 0, ALEA_LIMIT_OUTPUT, 0);
    return EXIT_FAIL;
}
