/*
 * wasm.c -- the WebAssembly entry points of the web page (web/): the only
 * web-specific C. Arguments in, JSON out: each call returns a pointer to a
 * NUL-terminated JSON document in this module's memory, valid until the
 * next call. The library itself is unchanged (built from src/ as is), with
 * its exact fractions linked in: src/fractions/ on mini-gmp (mini.h).
 *
 * A request (alea_web_begin) is one or more calls that share a deadline and
 * a budget of answer bytes: a link to the page is a stranger's text, and
 * the page must stay in charge of its time and memory whatever it asks.
 *
 * JavaScript side: web/alea.js.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <alea.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT(name) __attribute__((export_name(name)))

/*
 * ANSWER_MAX  16 MiB: the most answer bytes one request may have, all its
 *             calls together (a request may ask for less: the page asks
 *             for 4 MiB). The largest distribution the library allows
 *             (100000 outcomes) is 1.6 to 5 MB of JSON; 1000 rolls of a
 *             hundred dice about 0.3 MB of breakdowns. A page that parses
 *             and shows more than this stops being usable anyway.
 * ROLLS_MAX   1000 rolls in one call: what the page's "times" field allows.
 * SAMPLE_MAX  10000 rolls counted in one call (alea_web_sample): the page's
 *             estimate by sampling asks for chunks of 1000, each a request
 *             of its own under the deadline; 1000 rolls of 1000d6*1000d6
 *             (2000 dice each) took 13 to 81 ms in node on the 2-core machine.
 * STREAM_MAX  64: the highest stream of a seed a sample call rolls (each
 *             costs a jump of the generator, about 1000 steps), as the
 *             command line's --threads (cli/cli.h THREADS_MAX); the page
 *             uses streams 0 to 9.
 *
 * With the library's memory limit (16 MiB) these size the module's linear
 * memory, whose maximum scripts/web sets (--max-memory): 16 MiB for the
 * context, the answer (16 MiB, 24 while it doubles), one roll's text before
 * it is escaped (at most 16 MiB), the stack and the allocator's slack.
 */
#define ANSWER_MAX ((size_t)16 << 20)
#define ROLLS_MAX 1000
#define SAMPLE_MAX 10000
#define STREAM_MAX 64

/* The module's one answer buffer and one context: a web page is one
 * thread (a worker), and each call finishes before the next. */
static char *answer;
static size_t answer_cap;
static alea_ctx *ctx;

/* The current request: when it must stop (ms of the monotonic clock), the
 * deadline it was given (for the message) and its answer bytes left. No
 * deadline until alea_web_begin is called. */
static double deadline_at = INFINITY;
static double deadline_ms = INFINITY;
static size_t budget = ANSWER_MAX;
static size_t budget_max = ANSWER_MAX; /* as given, for the message */
/* What reserve() may grow the answer to in this call; past it, too_long. */
static size_t answer_limit = ANSWER_MAX;
static int too_long;

static double now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The interrupt hook: the library polls it every few thousand steps. */
static int past_deadline(void *ud)
{
    (void)ud;
    return now_ms() >= deadline_at;
}

static int reserve(size_t n)
{
    if (n > answer_limit) {
        too_long = 1;
        return 0;
    }
    if (n <= answer_cap)
        return 1;
    size_t cap = answer_cap ? answer_cap : 4096;
    while (cap < n)
        cap *= 2;
    if (cap > answer_limit)
        cap = answer_limit;
    char *p = realloc(answer, cap);
    if (!p)
        return 0;
    answer = p;
    answer_cap = cap;
    return 1;
}

static const char nomem[] =
    "{\"error\": {\"status\": \"ALEA_ERR_NOMEM\", \"text\": \"out of memory\", "
    "\"message\": \"out of memory\", \"line\": \"out of memory\", \"start\": 0, "
    "\"end\": 0}}";

/* Appends printf-style text at *len; 0 when out of memory or budget. */
static int put(size_t *len, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int put(size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(answer ? answer + *len : NULL, answer ? answer_cap - *len : 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 0;
    size_t had = answer_cap; /* what the text above was written into */
    /* the budget applies to every piece, not only to those that grow the
     * buffer (a 77-byte roll once passed a 63-byte budget) */
    if (!reserve(*len + (size_t)n + 1))
        return 0;
    if (*len + (size_t)n + 1 > had) {
        va_start(ap, fmt);
        vsnprintf(answer + *len, answer_cap - *len, fmt, ap);
        va_end(ap);
    }
    *len += (size_t)n;
    return 1;
}

/* Appends the k bytes at s. */
static int put_bytes(size_t *len, const char *s, size_t k)
{
    if (!reserve(*len + k + 1))
        return 0;
    memcpy(answer + *len, s, k);
    *len += k;
    answer[*len] = '\0';
    return 1;
}

/* A JSON string of s (the messages are ASCII; quotes and controls escaped),
 * copied a run of plain bytes at a time: a breakdown can be megabytes. */
static int put_string(size_t *len, const char *s)
{
    if (!put_bytes(len, "\"", 1))
        return 0;
    while (*s) {
        size_t run = 0;
        while (s[run] && s[run] != '"' && s[run] != '\\' && (unsigned char)s[run] >= 0x20)
            run++;
        if (run && !put_bytes(len, s, run))
            return 0;
        s += run;
        if (!*s)
            break;
        unsigned char c = (unsigned char)*s++;
        if (!(c == '"' || c == '\\' ? put(len, "\\%c", c) : put(len, "\\u%04x", c)))
            return 0;
    }
    return put_bytes(len, "\"", 1);
}

/* An error answer; error answers are small and always fit. line: what to
 * show a person (alea_ctx_error_line), NULL: the message, which says it. */
static const char *error_of(const char *status, const char *text, const char *message,
                            const char *line, size_t a, size_t b)
{
    size_t len = 0;
    answer_limit = ANSWER_MAX;
    if (put(&len, "{\"error\": {\"status\": \"%s\", \"text\": \"%s\", \"message\": ", status,
            text) &&
        put_string(&len, message) && put(&len, ", \"line\": ") &&
        put_string(&len, line ? line : message) &&
        put(&len, ", \"start\": %zu, \"end\": %zu}}", a, b))
        return answer;
    return nomem;
}

/* A limit of this module's own, refused (the span: the whole expression);
 * fmt and its arguments make the message. */
static const char *limit_error(size_t len, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const char *limit_error(size_t len, const char *fmt, ...)
{
    char msg[256]; /* compare's, the longest, are under 200 */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return error_of(alea_status_name(ALEA_ERR_LIMIT), alea_status_text(ALEA_ERR_LIMIT), msg, NULL, 0,
                    len);
}

/* The deadline passed: the message says so plainly (the library's own is
 * "interrupted by the host"). */
static const char *stopped(size_t a, size_t b)
{
    char msg[128];
    snprintf(msg, sizeof msg, "stopped after %g s: this expression takes too long to compute here",
             deadline_ms / 1e3);
    return error_of(alea_status_name(ALEA_ERR_INTERRUPTED), alea_status_text(ALEA_ERR_INTERRUPTED),
                    msg, NULL, a, b);
}

static const char *error_answer(void)
{
    size_t a = 0, b = 0;
    alea_status st = alea_ctx_error_span(ctx, &a, &b);
    if (st == ALEA_ERR_INTERRUPTED)
        return stopped(a, b);
    char line[ALEA_ERROR_LINE_MAX];
    alea_ctx_error_line(ctx, line, sizeof line);
    return error_of(alea_status_name(st), alea_status_text(st), alea_ctx_error(ctx), line, a, b);
}

/* The request's answer budget ran out (the span: the whole expression). */
static const char *too_long_answer(const char *what, size_t len)
{
    char msg[160];
    if (budget_max % ((size_t)1 << 20) == 0)
        snprintf(msg, sizeof msg, "%s too long for this page (limit is %zu MiB in all)", what,
                 budget_max >> 20);
    else
        snprintf(msg, sizeof msg, "%s too long for this page (limit is %zu bytes in all)", what,
                 budget_max);
    return error_of(alea_status_name(ALEA_ERR_LIMIT), alea_status_text(ALEA_ERR_LIMIT), msg, NULL, 0,
                    len);
}

/* The request's dialect (alea_dialect), applied by ready(). */
static int dialect;

/* The module's context, made on first use. */
static alea_ctx *context(void)
{
    if (!ctx) {
        ctx = alea_ctx_new(NULL, NULL);
        if (ctx)
            alea_ctx_set_interrupt(ctx, past_deadline, NULL);
    }
    return ctx;
}

/* Before each call: the context, and this call's share of the budget;
 * exact: the call's distributions in fractions (alea_ctx_set_exact), as
 * the command line's --exact; else in doubles. */
static int ready_exact(int exact)
{
    if (context()) {
        alea_ctx_set_dialect(ctx, (alea_dialect)dialect);
        /* the fractions are linked in (mini-gmp): switching them on cannot fail */
        alea_ctx_set_exact(ctx, exact != 0);
    }
    answer_limit = budget;
    too_long = 0;
    return ctx != NULL;
}

static int ready(void)
{
    return ready_exact(0);
}

/* A successful answer of len bytes: charged to the request. */
static const char *charged(size_t len)
{
    budget -= len < budget ? len : budget;
    return answer;
}

/*
 * Starts a request: its calls stop with ALEA_ERR_INTERRUPTED ("stopped
 * after 2 s: ...") once ms milliseconds have passed (INFINITY: never; 0 or
 * less: at the first poll), and share bytes of answers (at most, and if
 * not above 0, ANSWER_MAX); expressions are read in dialect d (an
 * alea_dialect; another number: alea's own).
 */
EXPORT("alea_web_begin") void web_begin(double ms, double bytes, int d)
{
    dialect = d >= 0 && d < ALEA_DIALECT__COUNT ? d : ALEA_DIALECT_ALEA;
    deadline_ms = ms;
    deadline_at = now_ms() + ms;
    budget = bytes > 0 && bytes < (double)ANSWER_MAX ? (size_t)bytes : ANSWER_MAX;
    budget_max = budget;
}

/*
 * A limit of the library (alea_ctx_limit: limit l, in alea_limit's order)
 * for every later call: value below 0 only asks, above the limit's maximum
 * is lowered to it. Returns the previous value; -1 for an unknown limit or
 * without memory for the context.
 */
EXPORT("alea_web_limit") double web_limit(int l, double value)
{
    if (l < 0 || l >= ALEA_LIMIT__COUNT || !context())
        return -1;
    int64_t max = alea_limit_max((alea_limit)l);
    int64_t v = value < 0 ? -1 : value >= (double)max ? max : (int64_t)value;
    return (double)alea_ctx_limit(ctx, (alea_limit)l, v);
}

/* The name ("dice") and the maximum of limit l; NULL / -1 past the last. */
EXPORT("alea_web_limit_name") const char *web_limit_name(int l)
{
    return alea_limit_name((alea_limit)l);
}

EXPORT("alea_web_limit_max") double web_limit_max(int l)
{
    return (double)alea_limit_max((alea_limit)l);
}

/* Memory for the page to write an expression into. */
EXPORT("alea_web_alloc") char *web_alloc(size_t n)
{
    return malloc(n ? n : 1);
}

EXPORT("alea_web_free") void web_free(char *p)
{
    free(p);
}

EXPORT("alea_web_version") const char *web_version(void)
{
    return alea_version();
}

/* The name of dialect d ("roll20"), or NULL past the last. */
EXPORT("alea_web_dialect_name") const char *web_dialect_name(int d)
{
    return alea_dialect_name((alea_dialect)d);
}

/*
 * A hint about the expression (alea_expr_hint: a spelling another tool
 * reads otherwise) as the answer's first field, "{\"hint\": \"...\", ":
 * nothing without one. 0 when out of memory or budget.
 */
static int put_hint(size_t *pos, const alea_expr *e)
{
    const char *h = alea_expr_hint(e);
    return !h || (put(pos, "{\"hint\": ") && put_string(pos, h) && put(pos, ", "));
}

/*
 * The library's statistics of d that its JSON leaves to the host, as the
 * answer's last fields: ', "median": m, "at_least": [...], "at_most":
 * [...]' (alea_dist_median; alea_dist_cumulate, a number per outcome), so
 * that the page shows the library's numbers and never sums its own. 0 when
 * out of memory or budget.
 */
static int put_stats(size_t *pos, const alea_dist *d)
{
    size_t n = alea_dist_count(d);
    double *least = malloc((n ? 2 * n : 1) * sizeof *least), *most = least + n;
    if (!least)
        return 0;
    alea_dist_cumulate(d, least, most);
    int ok = put(pos, ", \"median\": %lld", (long long)alea_dist_median(d));
    for (int c = 0; c < 2 && ok; c++) {
        const double *col = c ? most : least;
        ok = put(pos, c ? "], \"at_most\": [" : ", \"at_least\": [");
        char num[32];
        for (size_t i = 0; i < n && ok; i++) {
            size_t k = alea_format_double(col[i], num, sizeof num);
            ok = (!i || put_bytes(pos, ", ", 2)) && put_bytes(pos, num, k);
        }
    }
    free(least);
    return ok && put_bytes(pos, "]", 1);
}

/*
 * The answer: d as the library's JSON (alea_dist_format) after the pos
 * bytes already written (a hint, '{"hint": "...", ', or nothing), with
 * stats set its median and cumulative columns last (put_stats); what names
 * it in the error past the budget ("the distribution is"), len the
 * expression's bytes (its span).
 */
static const char *dist_answer(const alea_dist *d, size_t pos, int stats, const char *what,
                               size_t len)
{
    size_t n = alea_dist_format(d, ALEA_FORMAT_JSON, NULL, 0);
    if (n == 0) /* past the output limit: the library's refusal */
        return error_answer();
    if (!reserve(pos + n + 1))
        return too_long ? too_long_answer(what, len) : nomem;
    /* after a hint, the library's object from its "{" on, over the hint's "," */
    char *at = answer + pos - (pos ? 1 : 0);
    char keep = pos ? at[0] : 0;
    alea_dist_format(d, ALEA_FORMAT_JSON, at, answer_cap - (size_t)(at - answer));
    if (pos)
        at[0] = keep;
    size_t end = pos + n - (pos ? 1 : 0);
    if (!stats)
        return charged(end);
    end--; /* the statistics go before the library's closing "}" */
    if (put_stats(&end, d) && put_bytes(&end, "}", 1))
        return charged(end);
    return too_long ? too_long_answer(what, len) : nomem;
}

/*
 * The exact distribution of the len bytes at src: the library's JSON
 * (alea_dist_format), with the expression's hint first when it has one,
 * and with flags' DIST_STATS its median and cumulative columns last
 * (put_stats); with DIST_EXACT in fractions, as `alea dist --exact --json`
 * (each outcome's probability, "mean", "variance" and "truncated" as
 * fraction strings, "1/216", and "exact": true; the statistics stay
 * doubles, the nearest to the fractions); or {"error": {status, text,
 * message, start, end}}.
 */
#define DIST_STATS 1
#define DIST_EXACT 2
EXPORT("alea_web_dist") const char *web_dist(const char *src, size_t len, int flags)
{
    int stats = flags & DIST_STATS;
    if (!ready_exact(flags & DIST_EXACT))
        return nomem;
    alea_expr *e = NULL;
    alea_dist *d = NULL;
    if (alea_expr_compile(ctx, src, len, &e) != ALEA_OK)
        return error_answer();
    if (alea_expr_dist(ctx, e, &d) != ALEA_OK) {
        alea_expr_free(e);
        return error_answer();
    }
    size_t pos = 0;
    const char *out = !put_hint(&pos, e) ? too_long ? too_long_answer("the distribution is", len) : nomem
                                         : dist_answer(d, pos, stats, "the distribution is", len);
    alea_dist_free(d);
    alea_expr_free(e);
    return out;
}

/* ---- compare: several distributions and the distances between them ---- */

/* The error answer just made (error_answer's, in answer) naming column j
 * of a comparison: ', "column": j' in its object. */
static const char *column_error(const char *err, int j)
{
    if (err != answer)
        return err; /* out of memory: the static answer */
    size_t len = strlen(answer) - 2; /* before its closing "}}" */
    return put(&len, ", \"column\": %d}}", j) ? answer : nomem;
}

/* Column d of a comparison at *pos: the library's JSON with e's hint first
 * and the median and cumulative columns last, as web_dist's with stats.
 * 1 on success, 0 out of memory or budget, -1 past the output limit. */
static int put_column(size_t *pos, const alea_expr *e, const alea_dist *d)
{
    size_t n = alea_dist_format(d, ALEA_FORMAT_JSON, NULL, 0);
    if (n == 0)
        return -1;
    char *json = malloc(n + 1);
    if (!json)
        return 0;
    alea_dist_format(d, ALEA_FORMAT_JSON, json, n + 1);
    size_t before = *pos;
    int ok = put_hint(pos, e);
    size_t skip = *pos > before; /* after a hint, the library's "{" is written */
    /* its closing "}" after the statistics */
    ok = ok && put_bytes(pos, json + skip, n - 1 - skip) && put_stats(pos, d) &&
         put_bytes(pos, "}", 1);
    free(json);
    return ok;
}

/* The six numbers of alea_dist_versus, as `alea compare --json`'s
 * "versus"; with fractions (alea_dist_versus_fractions' six, separated by
 * spaces; NULL: none) as strings, "1/6", as `alea compare --exact --json`. */
static int put_versus(size_t *pos, int a, int b, const alea_versus *v, const char *fractions)
{
    const char *const keys[6] = {"p_greater", "p_equal", "p_less", "tv", "ks", "emd"};
    const double x[6] = {v->p_greater, v->p_equal, v->p_less, v->tv, v->ks, v->emd};
    int ok = put(pos, "{\"a\": %d, \"b\": %d", a, b);
    for (int i = 0; i < 6 && ok; i++) {
        if (fractions) {
            size_t k = strcspn(fractions, " ");
            ok = put(pos, ", \"%s\": \"%.*s\"", keys[i], (int)k, fractions);
            fractions += k + (fractions[k] == ' ');
            continue;
        }
        char num[32];
        alea_format_double(x[i], num, sizeof num);
        ok = put(pos, ", \"%s\": %s", keys[i], num);
    }
    return ok && put_bytes(pos, "}", 1);
}

/* The six fractions of a against b (both exact) as a new string, within the
 * work limit; NULL with the library's error in ctx (or out of memory: then
 * *st ALEA_ERR_NOMEM). */
static char *versus_fractions(const alea_dist *a, const alea_dist *b, alea_status *st)
{
    size_t n = 0;
    char *s = NULL;
    if ((*st = alea_dist_versus_fractions(ctx, a, b, NULL, 0, &n)) != ALEA_OK)
        return NULL;
    if (!(s = malloc(n + 1))) {
        *st = ALEA_ERR_NOMEM;
        return NULL;
    }
    if ((*st = alea_dist_versus_fractions(ctx, a, b, s, n + 1, &n)) != ALEA_OK) {
        free(s);
        return NULL;
    }
    return s;
}

/*
 * The distributions of n expressions side by side and the distances
 * between them, as `alea compare --json` (with --pairs when pairs is set):
 * the expressions are the n pieces of src, lens[i] bytes each.
 * {"columns": [<each as web_dist's with stats>], "versus": [{"a": 0, "b":
 * 1, "p_greater": ..., "p_equal", "p_less", "tv", "ks", "emd"}, ...]}: each
 * column against the first, or every pair (a < b); with flags' bit 2
 * (COMPARE_VERSUS_ONLY) the "versus" alone, {"versus": [...]} (the page
 * has the columns already). All within one set of
 * limits, as the command line's: the columns and the distances share one
 * work budget (each is given what the ones before left), and the columns'
 * outcomes together stay within the support limit. An error as web_dist's,
 * with "column": the index of the expression it concerns (its span in that
 * expression); a limit of the whole comparison has column 0 and a span of
 * 0 to 0. With COMPARE_EXACT every column in fractions (as web_dist's with
 * DIST_EXACT) and the distances as fraction strings, as `alea compare
 * --exact --json`.
 */
#define COMPARE_PAIRS 1       /* every pair, not each against the first */
#define COMPARE_VERSUS_ONLY 2 /* no "columns" in the answer */
#define COMPARE_EXACT 4       /* in fractions */
EXPORT("alea_web_compare")
const char *web_compare(const char *src, const uint32_t *lens, int n, int flags)
{
    int pairs = flags & COMPARE_PAIRS, columns = !(flags & COMPARE_VERSUS_ONLY);
    if (!ready_exact(flags & COMPARE_EXACT))
        return nomem;
    if (n < 1)
        return limit_error(0, "compare needs at least one expression");
    alea_expr **e = calloc((size_t)n, sizeof *e);
    alea_dist **d = calloc((size_t)n, sizeof *d);
    const char *fail = e && d ? NULL : nomem;
    int64_t work = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1), spent = 0;
    int64_t support = alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, -1), total = 0;
    size_t at = 0, pos = 0;
    for (int j = 0; j < n && !fail; at += lens[j], j++) {
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent > 0 ? work - spent : 0);
        alea_status st = alea_expr_compile(ctx, src + at, lens[j], &e[j]);
        spent += alea_ctx_work(ctx);
        if (st == ALEA_OK) {
            alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent > 0 ? work - spent : 0);
            st = alea_expr_dist(ctx, e[j], &d[j]);
            spent += alea_ctx_work(ctx);
        }
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work);
        if (st == ALEA_ERR_LIMIT && j > 0 && strstr(alea_ctx_error(ctx), "work limit"))
            fail = limit_error(0, "compare: the columns need more work in all than the work "
                                  "limit (%lld) allows; compare fewer expressions, or raise the "
                                  "'work' limit", (long long)work);
        else if (st != ALEA_OK)
            fail = column_error(error_answer(), j);
        else if ((total += (int64_t)alea_dist_count(d[j])) > support)
            fail = limit_error(0, "compare: the columns have more than %lld outcomes in all "
                                  "(support limit, for the whole table); compare fewer "
                                  "expressions, or raise the 'support' limit", (long long)support);
    }
    int ok = !fail && put(&pos, columns ? "{\"columns\": [" : "{");
    for (int j = 0; j < n && ok && columns; j++) {
        int c = (!j || put_bytes(&pos, ", ", 2)) ? put_column(&pos, e[j], d[j]) : 0;
        if (c < 0)
            fail = column_error(error_answer(), j);
        ok = c > 0;
    }
    ok = ok && put(&pos, columns ? "], \"versus\": [" : "\"versus\": [");
    for (int a = 0, k = 0; a < n && ok; a++)
        for (int b = a + 1; b < n && ok && (pairs || a == 0); b++) {
            alea_versus v;
            alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent > 0 ? work - spent : 0);
            alea_status st = alea_dist_versus(ctx, d[a], d[b], &v);
            spent += alea_ctx_work(ctx);
            char *fr = NULL;
            if (st == ALEA_OK && alea_dist_is_exact(d[a]) && alea_dist_is_exact(d[b])) {
                alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent > 0 ? work - spent : 0);
                fr = versus_fractions(d[a], d[b], &st);
                spent += alea_ctx_work(ctx);
            }
            alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work);
            if (st == ALEA_ERR_NOMEM && !fr)
                fail = nomem;
            else if (st == ALEA_ERR_LIMIT)
                fail = limit_error(0, "compare: the columns and the distances between them need "
                                      "more work in all than the work limit (%lld) allows; "
                                      "compare fewer expressions, or raise the 'work' limit",
                                   (long long)work);
            else if (st != ALEA_OK)
                fail = error_answer();
            ok = !fail && (!k++ || put_bytes(&pos, ", ", 2)) && put_versus(&pos, a, b, &v, fr);
            free(fr);
        }
    ok = ok && put(&pos, "]}");
    if (!fail && !ok)
        fail = too_long ? too_long_answer("the comparison is", 0) : nomem;
    for (int j = 0; e && d && j < n; j++) {
        alea_dist_free(d[j]);
        alea_expr_free(e[j]);
    }
    free(d);
    free(e);
    return fail ? fail : charged(pos);
}

/* ---- table: an expression swept over values of its names ---- */

/* n pieces of the bytes at src (lens[i] each) as NUL-terminated strings in
 * one allocation (*strs, freed by the caller); NULL out of memory, and
 * *nul set to the index of a piece with a NUL byte in it (-1: none): the
 * library reads C strings, so such a piece would be cut short unseen. */
static char **pieces(const char *src, const uint32_t *lens, int n, int *nul)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += lens[i] + 1;
    char **strs = malloc((size_t)(n ? n : 1) * sizeof *strs + total + 1);
    if (!strs)
        return NULL;
    char *at = (char *)(strs + (n ? n : 1));
    *nul = -1;
    for (int i = 0; i < n; src += lens[i], i++) {
        if (*nul < 0 && memchr(src, 0, lens[i]))
            *nul = i;
        memcpy(at, src, lens[i]);
        at[lens[i]] = '\0';
        strs[i] = at;
        at += lens[i] + 1;
    }
    return strs;
}

/* The error answer just made (in answer) naming the text its span is in:
 * ', "part": "sweep", "index": k' in its object (part "expression",
 * "sweep" or "stat"). */
static const char *part_error(const char *err, const char *part, size_t k)
{
    if (err != answer)
        return err; /* out of memory: the static answer */
    size_t len = strlen(answer) - 2; /* before its closing "}}" */
    return put(&len, ", \"part\": \"%s\", \"index\": %zu}}", part, k) ? answer : nomem;
}

/*
 * The expression (len bytes at src) swept over values of its names, a
 * statistic of its distribution in each cell: `alea table --json`'s
 * object (alea_table_format), with two fields of the page's first:
 * "kinds", a word per statistic ("prob" for a probability, shown in
 * percent; "outcome" for median and pN; else "number"), with flags'
 * TABLE_CSV "csv", the library's CSV of the same table (`alea table
 * --csv`), and
 * with svg at 0 or more "svg", the library's picture of it
 * (alea_table_svg: with two names the heat map of statistic svg, as
 * `alea table --stat STAT --svg` draws it; with one name the lines of
 * every statistic, whatever svg is); svg below 0: none. The
 * sweeps ("m=0..10") are nsweeps pieces of sweep_src (sweep_lens[i] bytes
 * each), the statistics ("p>=2") nstats pieces of stat_src. An error as
 * web_dist's, with "part": the text its span is in ("expression", "sweep"
 * or "stat") and "index": which sweep or statistic. Bounded by the
 * library's cells and work limits (shared by the cells), the output limit
 * (each format), the request's deadline and answer budget. With
 * TABLE_EXACT each cell in fractions, as `alea table --exact --json` (a
 * probability or mean cell a fraction string, "1/6"; sd the nearest
 * double).
 */
#define TABLE_CSV 1
#define TABLE_EXACT 2
EXPORT("alea_web_table")
const char *web_table(const char *src, size_t len, const char *sweep_src, const uint32_t *sweep_lens,
                      int nsweeps, const char *stat_src, const uint32_t *stat_lens, int nstats,
                      int flags, int svg)
{
    int csv = flags & TABLE_CSV;
    if (!ready_exact(flags & TABLE_EXACT))
        return nomem;
    if (nsweeps < 0 || nstats < 0)
        return limit_error(len, "a table takes at least 0 sweeps and statistics");
    int bad_sweep = -1, bad_stat = -1;
    char **sweeps = pieces(sweep_src, sweep_lens, nsweeps, &bad_sweep);
    char **stats = pieces(stat_src, stat_lens, nstats, &bad_stat);
    alea_table *t = NULL;
    const char *fail = sweeps && stats ? NULL : nomem;
    if (!fail && (bad_sweep >= 0 || bad_stat >= 0)) {
        int s = bad_sweep >= 0;
        size_t k = (size_t)(s ? bad_sweep : bad_stat);
        const char *text = s ? sweeps[k] : stats[k];
        size_t at = strlen(text);
        fail = part_error(error_of(alea_status_name(ALEA_ERR_SYNTAX), alea_status_text(ALEA_ERR_SYNTAX),
                                   "unexpected NUL byte", NULL, at, at + 1),
                          s ? "sweep" : "stat", k);
    }
    if (!fail) {
        alea_status st = alea_table_new(ctx, src, len, (const char *const *)sweeps, (size_t)nsweeps,
                                        (const char *const *)stats, (size_t)nstats, &t);
        if (st != ALEA_OK) {
            size_t k = 0;
            alea_table_part part = alea_table_error_part(ctx, &k);
            fail = part_error(error_answer(),
                              part == ALEA_TABLE_SWEEP  ? "sweep"
                              : part == ALEA_TABLE_STAT ? "stat"
                                                        : "expression",
                              k);
        }
    }
    free(sweeps);
    free(stats);
    if (fail)
        return fail;
    size_t pos = 0;
    int ok = put(&pos, "{\"kinds\": [");
    for (size_t i = 0; i < alea_table_stat_count(t) && ok; i++)
        ok = put(&pos, "%s\"%s\"", i ? ", " : "",
                 alea_table_stat_is_prob(t, i)      ? "prob"
                 : alea_table_stat_is_outcome(t, i) ? "outcome"
                                                    : "number");
    ok = ok && put(&pos, "], ");
    /* the SVG and the CSV as string fields first, then the JSON object's
     * fields: f 2, 1, 0 */
    for (int f = 2; f >= 0 && ok && !fail; f--) {
        if ((f == 2 && svg < 0) || (f == 1 && !csv))
            continue;
        alea_format format = f == 1 ? ALEA_FORMAT_CSV : ALEA_FORMAT_JSON;
        size_t n = f == 2 ? alea_table_svg(t, (size_t)svg, NULL, 0)
                          : alea_table_format(t, format, NULL, 0);
        char *text = n ? malloc(n + 1) : NULL;
        if (!n)
            fail = error_answer(); /* past the output limit (or no such statistic) */
        else if (!text)
            fail = nomem;
        else {
            if (f == 2)
                alea_table_svg(t, (size_t)svg, text, n + 1);
            else
                alea_table_format(t, format, text, n + 1);
            /* the JSON's fields after its "{", the others as "svg": "..." */
            ok = f ? put(&pos, f == 2 ? "\"svg\": " : "\"csv\": ") && put_string(&pos, text) &&
                         put(&pos, ", ")
                   : put_bytes(&pos, text + 1, n - 1);
        }
        free(text);
    }
    alea_table_free(t);
    if (!fail && !ok)
        fail = too_long ? too_long_answer("the table is", len) : nomem;
    return fail ? fail : charged(pos);
}

/* ---- policy: the player's best choice ---- */

/*
 * The player's decisions at the first choice point of the expression (len
 * bytes at src): `alea policy --json`'s object (alea_policy_format), in
 * doubles, or with flags' POLICY_EXACT in fractions (`alea policy --exact
 * --json`: the values as fraction strings). An expression without a choice
 * is the library's error (ALEA_ERR_INVALID, its span), as any other: the
 * page asks after each distribution and shows nothing then. Bounded by the
 * library's work and output limits, the request's deadline and its answer
 * budget.
 */
#define POLICY_EXACT 2 /* as DIST_EXACT */
EXPORT("alea_web_policy") const char *web_policy(const char *src, size_t len, int flags)
{
    if (!ready_exact(flags & POLICY_EXACT))
        return nomem;
    alea_expr *e = NULL;
    alea_policy *p = NULL;
    if (alea_expr_compile(ctx, src, len, &e) != ALEA_OK)
        return error_answer();
    const char *out;
    size_t n = 0;
    if (alea_policy_new(ctx, e, &p) != ALEA_OK ||
        (n = alea_policy_format(p, ALEA_FORMAT_JSON, NULL, 0)) == 0)
        out = error_answer(); /* past the output limit: the library's refusal */
    else if (!reserve(n + 1))
        out = too_long ? too_long_answer("the policy is", len) : nomem;
    else {
        alea_policy_format(p, ALEA_FORMAT_JSON, answer, answer_cap);
        out = charged(n);
    }
    alea_policy_free(p);
    alea_expr_free(e);
    return out;
}

/*
 * The distribution a roll's luck is placed in (alea_dist_luck), computed in
 * at most half the time the request has left: the rolls keep the rest, so
 * that a refused distribution never fails them. NULL when refused: the
 * answer so far (at *pos, after its "{" or hint) gets "luck_refused": the
 * reason, as `alea serve`'s /roll; 0 when out of memory or budget.
 */
static int luck_dist(const alea_expr *e, size_t *pos, alea_dist **out)
{
    double until = deadline_at, now = now_ms();
    if (until > now && until < INFINITY)
        deadline_at = now + (until - now) / 2;
    alea_status st = alea_expr_dist(ctx, e, out);
    deadline_at = until;
    if (st == ALEA_OK)
        return 1;
    *out = NULL;
    return put(pos, *pos ? "\"luck_refused\": " : "{\"luck_refused\": ") &&
           put_string(pos, st == ALEA_ERR_INTERRUPTED
                               ? "its distribution takes too long to compute here"
                               : alea_ctx_error(ctx)) &&
           put(pos, ", ");
}

/* ', "luck": {"at_most": x, "at_least": y}' of roll r in d (a list of
 * them, one per roll, for a repeat), as `alea roll --luck --json`. */
static int put_luck(size_t *pos, const alea_roll *r, const alea_dist *d)
{
    size_t nr = alea_roll_count(r);
    int ok = put(pos, nr > 1 ? ", \"luck\": [" : ", \"luck\": ");
    for (size_t k = 0; ok && k < nr; k++) {
        double most, least;
        char m[32], l[32];
        alea_dist_luck(d, nr > 1 ? alea_roll_total_at(r, k) : alea_roll_total(r), &most, &least);
        alea_format_double(most, m, sizeof m);
        alea_format_double(least, l, sizeof l);
        ok = put(pos, "%s{\"at_most\": %s, \"at_least\": %s}", k ? ", " : "", m, l);
    }
    return ok && (nr < 2 || put(pos, "]"));
}

/*
 * Rolls the expression n times (at most ROLLS_MAX): with seeded set, first
 * seeds the generator with seed_hi * 2^32 + seed_lo, as `alea roll --seed`;
 * else the generator goes on where it was (seeded from the page's entropy at
 * first). {"hint": "...", "rolls": [{"text": "4d6kh3 [...] = 17",
 * "markdown": "4d6kh3 [...] = `17`", "total": 17, "detail": <the library's
 * JSON>}, ...]} ("hint" only when the expression has one, "detail" only when
 * detail is set), or an error as web_dist's. With luck set, the exact
 * distribution is computed first (luck_dist) and each roll has its "luck"
 * (put_luck), or the answer "luck_refused" before "rolls".
 */
EXPORT("alea_web_roll")
const char *web_roll(const char *src, size_t len, int n, int seeded, uint32_t seed_hi,
                     uint32_t seed_lo, int detail, int luck)
{
    if (!ready())
        return nomem;
    if (n > ROLLS_MAX)
        return limit_error(len, "too many rolls (limit is %d)", ROLLS_MAX);
    alea_expr *e = NULL;
    if (alea_expr_compile(ctx, src, len, &e) != ALEA_OK)
        return error_answer();
    /* The answer grows as it goes: its address is taken at the end. */
    size_t pos = 0;
    alea_dist *d = NULL;
    const char *fail = put_hint(&pos, e) && (!luck || luck_dist(e, &pos, &d)) ? NULL : nomem;
    if (seeded) /* else the generator goes on (seeded by the OS at first) */
        alea_ctx_seed(ctx, (uint64_t)seed_hi << 32 | seed_lo);
    alea_roll *r = fail ? NULL : alea_roll_new(ctx);
    if (!r) {
        alea_dist_free(d);
        alea_expr_free(e);
        return fail ? (too_long ? too_long_answer("the rolls' breakdowns are", len) : nomem)
                    : error_answer();
    }
    if (!put(&pos, pos ? "\"rolls\": [" : "{\"rolls\": ["))
        fail = nomem;
    for (int i = 0; i < n && !fail; i++) {
        /* The library polls the deadline while it rolls; the breakdowns
         * are written here, so the time they take is checked here too. */
        if (i && past_deadline(NULL)) {
            fail = stopped(0, len);
            break;
        }
        if (alea_expr_roll(ctx, e, r) != ALEA_OK) {
            fail = error_answer();
            break;
        }
        /* Sized first: a roll's breakdown can be far larger than the roll. */
        size_t tl = alea_roll_format(r, ALEA_FORMAT_TEXT, NULL, 0);
        size_t ml = alea_roll_format(r, ALEA_FORMAT_MARKDOWN, NULL, 0);
        size_t jl = detail ? alea_roll_format(r, ALEA_FORMAT_JSON, NULL, 0) : 0;
        if (tl >= answer_limit - pos || ml >= answer_limit - pos - tl ||
            jl >= answer_limit - pos - tl - ml) {
            fail = too_long_answer("the rolls' breakdowns are", len);
            break;
        }
        char *text = malloc(tl + ml + 2), *md = text ? text + tl + 1 : NULL;
        if (text) {
            alea_roll_format(r, ALEA_FORMAT_TEXT, text, tl + 1);
            alea_roll_format(r, ALEA_FORMAT_MARKDOWN, md, ml + 1);
        }
        int ok = text && put(&pos, i ? ", {\"text\": " : "{\"text\": ") &&
                 put_string(&pos, text) && put(&pos, ", \"markdown\": ") &&
                 put_string(&pos, md) &&
                 put(&pos, ", \"total\": %lld", (long long)alea_roll_total(r));
        /* a repeat ("6 x 4d6kh3"): each roll's total, a line of the text each */
        size_t nr = alea_roll_count(r);
        for (size_t k = 0; ok && nr > 1 && k < nr; k++)
            ok = put(&pos, k ? ", %lld" : ", \"totals\": [%lld", (long long)alea_roll_total_at(r, k)) &&
                 (k + 1 < nr || put(&pos, "]"));
        free(text);
        if (ok && detail) {
            ok = put(&pos, ", \"detail\": ") && reserve(pos + jl + 1);
            if (ok) {
                alea_roll_format(r, ALEA_FORMAT_JSON, answer + pos, answer_cap - pos);
                pos += jl;
            }
        }
        if (ok && d)
            ok = put_luck(&pos, r, d);
        if (!ok || !put(&pos, "}"))
            fail = too_long ? too_long_answer("the rolls' breakdowns are", len) : nomem;
    }
    if (!fail && !put(&pos, "]}"))
        fail = too_long ? too_long_answer("the rolls' breakdowns are", len) : nomem;
    const char *out = fail ? fail : charged(pos);
    alea_roll_free(r);
    alea_dist_free(d);
    alea_expr_free(e);
    return out;
}

/*
 * Whether the len bytes at src compile as an expression (in the request's
 * dialect): 1 or 0. The page reads "name: expr" as a named line only when
 * the whole line does not compile, as `alea compare name=expr` does.
 */
EXPORT("alea_web_compiles") int web_compiles(const char *src, size_t len)
{
    if (!ready())
        return 0;
    alea_expr *e = NULL;
    if (alea_expr_compile(ctx, src, len, &e) != ALEA_OK)
        return 0;
    alea_expr_free(e);
    return 1;
}

/*
 * Rolls the expression n times (1 to SAMPLE_MAX) without breakdowns and
 * counts the totals (alea_tally_sample): the estimated distribution as the
 * library's JSON (alea_dist_format, with "samples": n); or an error as
 * web_dist's. When seeded is set, the rolls are those of stream `stream` of
 * the seed (alea_ctx_seed_stream; stream 0 is alea_ctx_seed's): the page's
 * estimate rolls chunk k on stream k, so that its chunks together are the
 * rolls of `alea dist --sample N --seed S --threads K` (thread k rolls
 * stream k), and a link repeats them.
 */
EXPORT("alea_web_sample")
const char *web_sample(const char *src, size_t len, int n, int seeded, uint32_t seed_hi,
                       uint32_t seed_lo, uint32_t stream)
{
    if (!ready())
        return nomem;
    if (n < 1 || n > SAMPLE_MAX)
        return limit_error(len, "sample of %d rolls (limit is 1 to %d)", n, SAMPLE_MAX);
    if (stream > STREAM_MAX)
        return limit_error(len, "stream %u of the seed (limit is %d)", (unsigned)stream, STREAM_MAX);
    alea_expr *e = NULL;
    if (alea_expr_compile(ctx, src, len, &e) != ALEA_OK)
        return error_answer();
    if (seeded)
        alea_ctx_seed_stream(ctx, (uint64_t)seed_hi << 32 | seed_lo, stream);
    const char *out = nomem;
    alea_tally *t = alea_tally_new(ctx);
    alea_dist *d = NULL;
    if (!t || alea_tally_sample(ctx, e, t, (uint64_t)n) != ALEA_OK ||
        alea_tally_dist(ctx, t, e, &d) != ALEA_OK) {
        out = error_answer();
    } else {
        out = dist_answer(d, 0, 0, "the sample is", len);
    }
    alea_dist_free(d);
    alea_tally_free(t);
    alea_expr_free(e);
    return out;
}

/* 2^53: the largest whole number a double holds exactly, and a tally's
 * most rolls (alea_tally_add). 2^63: a value of the estimate is below it
 * and at least its negative (int64_t; past 2^53 a double is a whole number
 * with its low bits lost, as the page's JSON read the samples' values). */
#define WHOLE_MAX 9007199254740992.0
#define INT64_SPAN 9223372036854775808.0

/*
 * The estimate of the len bytes at src from counted rolls: pairs holds n
 * pairs (value, count) of doubles, whole numbers (values 64-bit integers,
 * counts 0 to 2^53), the counts of the page's sample calls added up
 * (its workers' chunks). The library builds the tally (alea_tally_add) and
 * answers as web_sample does, with its median and cumulative columns
 * (put_stats), as web_dist with stats: the page never sums its own. n is
 * at most the context's SUPPORT limit (distinct values of one estimate);
 * ALEA_ERR_ARGUMENT for a value or a count that is not such a whole number.
 */
EXPORT("alea_web_estimate")
const char *web_estimate(const char *src, size_t len, const double *pairs, size_t n)
{
    if (!ready())
        return nomem;
    int64_t most = alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, -1);
    if (n < 1 || (int64_t)n > most)
        return limit_error(len, "estimate of %zu values (limit is 1 to %lld)", n, (long long)most);
    for (size_t i = 0; i < n; i++) {
        double v = pairs[2 * i], k = pairs[2 * i + 1];
        int value_ok = v >= -INT64_SPAN && v < INT64_SPAN && v == floor(v);
        if (!value_ok || !(k >= 0 && k <= WHOLE_MAX && k == floor(k))) {
            char msg[96];
            snprintf(msg, sizeof msg, value_ok ? "count %zu of the estimate is not a whole number "
                                                 "from 0 to 2^53"
                                               : "value %zu of the estimate is not a 64-bit integer",
                     i);
            return error_of(alea_status_name(ALEA_ERR_ARGUMENT),
                            alea_status_text(ALEA_ERR_ARGUMENT), msg, NULL, 0, len);
        }
    }
    alea_expr *e = NULL;
    if (alea_expr_compile(ctx, src, len, &e) != ALEA_OK)
        return error_answer();
    const char *out = nomem;
    alea_tally *t = alea_tally_new(ctx);
    alea_dist *d = NULL;
    alea_status st = t ? ALEA_OK : ALEA_ERR_NOMEM;
    for (size_t i = 0; i < n && st == ALEA_OK; i++)
        st = alea_tally_add(ctx, t, (int64_t)pairs[2 * i], (uint64_t)pairs[2 * i + 1]);
    if (st != ALEA_OK || alea_tally_dist(ctx, t, e, &d) != ALEA_OK) {
        out = error_answer();
    } else {
        out = dist_answer(d, 0, 1, "the estimate is", len);
    }
    alea_dist_free(d);
    alea_tally_free(t);
    alea_expr_free(e);
    return out;
}

/*
 * The chart of the page's distribution view as an SVG picture, the same
 * as `alea dist --svg` (one expression: bars) or `alea compare --svg` (a
 * line each): {"svg": "<?xml ..."}, or an error as web_dist's (its span
 * within the expression that failed). items holds n
 * pairs (1 to SVG_MAX), each a label then an expression, each of those a
 * 4-byte little-endian length and its bytes (an empty label: the
 * expression names itself); len bytes in all.
 */
#define SVG_MAX 16 /* the library's most lines in one chart */

static uint32_t read_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The next length-prefixed piece of items[*at, len): its bytes and length,
 * or 0 when the items end before it does. */
static int next_piece(const char *items, size_t len, size_t *at, const char **s, size_t *n)
{
    if (len - *at < 4)
        return 0;
    uint32_t k = read_u32((const unsigned char *)items + *at);
    *at += 4;
    if (k > len - *at)
        return 0;
    *s = items + *at;
    *n = k;
    *at += k;
    return 1;
}

EXPORT("alea_web_svg") const char *web_svg(const char *items, size_t len, int n)
{
    if (!ready())
        return nomem;
    if (n < 1 || n > SVG_MAX)
        return limit_error(0, "chart of %d expressions (limit is 1 to %d)", n, SVG_MAX);
    alea_dist *d[SVG_MAX] = {NULL};
    char *labels[SVG_MAX] = {NULL};
    const char *out = NULL;
    size_t at = 0;
    for (int k = 0; k < n && !out; k++) {
        const char *label, *src;
        size_t ln, sn;
        alea_expr *e = NULL;
        if (!next_piece(items, len, &at, &label, &ln) || !next_piece(items, len, &at, &src, &sn)) {
            out = error_of(alea_status_name(ALEA_ERR_ARGUMENT),
                           alea_status_text(ALEA_ERR_ARGUMENT), "the chart's items are cut short",
                           NULL, 0, 0);
        } else if (ln && !(labels[k] = malloc(ln + 1))) {
            out = nomem;
        } else if (alea_expr_compile(ctx, src, sn, &e) != ALEA_OK ||
                   alea_expr_dist(ctx, e, &d[k]) != ALEA_OK) {
            out = error_answer();
        } else if (ln) {
            memcpy(labels[k], label, ln);
            labels[k][ln] = '\0';
        }
        alea_expr_free(e);
    }
    if (!out) {
        size_t need = alea_svg_dists((const alea_dist *const *)d, (const char *const *)labels,
                                     (size_t)n, NULL, 0);
        char *svg = need ? malloc(need + 1) : NULL;
        size_t pos = 0;
        if (need == 0) {
            out = error_answer(); /* past the output limit */
        } else if (!svg) {
            out = nomem;
        } else {
            alea_svg_dists((const alea_dist *const *)d, (const char *const *)labels, (size_t)n,
                           svg, need + 1);
            out = put(&pos, "{\"svg\": ") && put_string(&pos, svg) && put_bytes(&pos, "}", 1)
                      ? charged(pos)
                  : too_long ? too_long_answer("the chart is", 0)
                             : nomem;
        }
        free(svg);
    }
    for (int k = 0; k < n; k++) {
        alea_dist_free(d[k]);
        free(labels[k]);
    }
    return out;
}

/* ---- fairness: a log of rolls judged against fair dice ---- */

/*
 * FAIRNESS_MAX  100000 rolls judged in one call: a session's log pasted
 *               into the page (a long campaign's bot, a few thousand
 *               lines) with room to spare; each roll costs a hash and a
 *               binary search (alea_fairness_add), and its 18 or so bytes
 *               of request, so a full call is about 2 MB of request.
 */
#define FAIRNESS_MAX 100000

static const char *fairness_verdict(alea_fairness_verdict v)
{
    return v == ALEA_FAIRNESS_FAIR ? "fair" : v == ALEA_FAIRNESS_UNFAIR ? "not fair" : "too few";
}

static const char *fairness_direction(int d)
{
    return d < 0 ? "\"low\"" : d > 0 ? "\"high\"" : "null";
}

/* ', "key": x' (or without the comma first), x as the library formats it. */
static int put_number(size_t *pos, const char *key, double x)
{
    char num[32];
    alea_format_double(x, num, sizeof num);
    return put(pos, ", \"%s\": %s", key, num);
}

/* The result as `alea fairness --json` prints it (cli/fairness.c
 * fairness_json), without its newline. */
static int put_fairness(size_t *pos, const alea_fairness_result *r, uint64_t seed)
{
    int ok = put(pos, "{\"rolls\": %lld, \"refused\": 0, \"seed\": %llu, \"verdict\": \"%s\", "
                      "\"direction\": %s",
                 (long long)r->rolls, (unsigned long long)seed, fairness_verdict(r->verdict),
                 fairness_direction(r->direction)) &&
             put_number(pos, "p", r->p) && put_number(pos, "alpha", ALEA_FAIRNESS_ALPHA) &&
             put(pos, ", \"text\": ") && put_string(pos, r->text) && put(pos, ", \"tests\": [");
    for (size_t i = 0; ok && i < r->ntests; i++) {
        const alea_fairness_test *t = &r->tests[i];
        ok = put(pos, "%s{\"name\": \"%s\", \"expression\": ", i ? ", " : "", t->name) &&
             (t->expression ? put_string(pos, t->expression) : put(pos, "null")) &&
             put(pos, ", \"rolls\": %lld", (long long)t->rolls) &&
             put_number(pos, "statistic", t->statistic) && put_number(pos, "p", t->p) &&
             put_number(pos, "p_adjusted", t->p_adjusted) &&
             (strcmp(t->name, "mean") ||
              put(pos, ", \"direction\": %s", fairness_direction(t->direction))) &&
             (!t->expression ||
              (put(pos, ", \"df\": %d, \"outcomes\": %zu, \"pooled\": ", t->df, t->outcomes) &&
               put_string(pos, t->pooled))) &&
             put_bytes(pos, "}", 1);
    }
    return ok && put_bytes(pos, "]}", 2);
}

/* The library's error of roll i (error_answer's, its message and line
 * after "roll i: "), with ', "roll": i' in its object: the span is within
 * that roll's expression. */
static const char *roll_error(size_t i)
{
    size_t a = 0, b = 0;
    alea_status st = alea_ctx_error_span(ctx, &a, &b);
    if (st == ALEA_ERR_INTERRUPTED)
        return stopped(a, b);
    if (st == ALEA_ERR_NOMEM)
        return nomem;
    char msg[ALEA_ERROR_LINE_MAX + 32], line[ALEA_ERROR_LINE_MAX + 32], text[ALEA_ERROR_LINE_MAX];
    snprintf(msg, sizeof msg, "roll %zu: %s", i, alea_ctx_error(ctx));
    alea_ctx_error_line(ctx, text, sizeof text);
    snprintf(line, sizeof line, "roll %zu: %s", i, text);
    const char *err = error_of(alea_status_name(st), alea_status_text(st), msg, line, a, b);
    if (err != answer)
        return err;
    size_t len = strlen(answer) - 2; /* before its closing "}}" */
    return put(&len, ", \"roll\": %zu}}", i) ? answer : nomem;
}

/*
 * Whether a log of rolls is what fair dice give, as `alea fairness --json`
 * (alea_fairness_*): the same object, {"rolls", "refused" (0), "seed",
 * "verdict", "direction", "p", "alpha", "text", "tests": [...]}. items
 * holds n rolls, len bytes in all, each a 4-byte little-endian length and
 * the expression's bytes, then a 4-byte count k (1; a repeat's rolls, "6 x
 * 4d6kh3": k, placed all or none, alea_fairness_add_rolls) and k totals,
 * each 8 bytes, a little-endian two's complement int64. With seeded set
 * the draws that place each roll are seeded with seed_hi * 2^32 + seed_lo,
 * as `alea fairness --seed`; else with a number from the generator (the
 * answer's "seed" says which). The rolls' expressions share the work
 * limit, as /fairness's do; at most FAIRNESS_MAX rolls in all. A refused
 * roll fails the call: an error as web_dist's, its message after "roll i:
 * " (i from 0, the roll's index in items) and "roll": i, its span within
 * that roll's expression.
 */
EXPORT("alea_web_fairness")
const char *web_fairness(const char *items, size_t len, size_t n, int seeded, uint32_t seed_hi,
                         uint32_t seed_lo)
{
    if (!ready())
        return nomem;
    if (n > FAIRNESS_MAX)
        return limit_error(0, "too many rolls to judge: %zu (limit is %d)", n, FAIRNESS_MAX);
    uint64_t seed = seeded ? (uint64_t)seed_hi << 32 | seed_lo : alea_ctx_random(ctx);
    alea_fairness *f = alea_fairness_new(ctx, seed);
    if (!f)
        return nomem;
    int64_t work = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1), spent = 0;
    int64_t *totals = NULL;
    size_t cap = 0, at = 0, placed = 0;
    const char *fail = NULL;
    static const char cut[] = "the rolls are cut short";
    for (size_t i = 0; i < n && !fail; i++) {
        const char *src;
        size_t sn;
        uint32_t k = 0;
        if (!next_piece(items, len, &at, &src, &sn) || len - at < 4 ||
            (k = read_u32((const unsigned char *)items + at), (len - at - 4) / 8 < k)) {
            fail = error_of(alea_status_name(ALEA_ERR_ARGUMENT),
                            alea_status_text(ALEA_ERR_ARGUMENT), cut, NULL, 0, 0);
            break;
        }
        at += 4;
        if ((placed += k) > FAIRNESS_MAX) {
            fail = limit_error(0, "too many rolls to judge: more than %d (limit is %d)",
                               FAIRNESS_MAX, FAIRNESS_MAX);
            break;
        }
        if (k > cap) {
            int64_t *p = realloc(totals, k * sizeof *p);
            if (!p) {
                fail = nomem;
                break;
            }
            totals = p;
            cap = k;
        }
        for (uint32_t j = 0; j < k; j++, at += 8) {
            const unsigned char *b = (const unsigned char *)items + at;
            totals[j] = (int64_t)((uint64_t)read_u32(b) | (uint64_t)read_u32(b + 4) << 32);
        }
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent > 0 ? work - spent : 0);
        alea_status st = alea_fairness_add_rolls(f, src, sn, totals, k);
        spent += alea_ctx_work(ctx);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work);
        if (st != ALEA_OK)
            fail = roll_error(i);
        else if (i % 1024 == 1023 && past_deadline(NULL)) /* the clock: a call to the page */
            fail = stopped(0, 0);
    }
    free(totals);
    alea_fairness_result r;
    size_t pos = 0;
    if (!fail && alea_fairness_judge(f, &r) != ALEA_OK)
        fail = error_answer();
    if (!fail && !put_fairness(&pos, &r, seed))
        fail = too_long ? too_long_answer("the judgement is", 0) : nomem;
    alea_fairness_free(f);
    return fail ? fail : charged(pos);
}
