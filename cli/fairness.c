/*
 * fairness.c -- alea fairness: a log of rolls, a line each ("EXPR TOTAL",
 * or a line of alea's own roll --json), judged against the exact
 * distributions of their expressions (alea_fairness_*); a JSON line is read
 * with jansson. The reading of a line and the result's JSON are shared with
 * alea serve's POST /fairness.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

/* A whole decimal int64 in s[0..n), an optional sign first. */
static int whole_number(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i == n)
        return 0;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

/* ---- a line of roll --json --------------------------------------------------- */

/* Values one line's JSON may hold, counted before it is parsed as its
 * brackets, braces, commas and colons outside strings, plus one. Parsed,
 * a value takes 40 to 230 bytes (an empty object the most): at the limit
 * alea fairness peaked at 16 to 33 MB, where a 4 MiB line of "{}," took
 * 322 MB. The line of a roll of 10,000 dice (the default dice limit) holds
 * 87,000 (10000d6) to 97,000 (10000d6kh5000). */
#define FAIRNESS_JSON_VALUES 262144

static size_t json_values(const char *s, size_t n)
{
    size_t count = 1;
    int in_string = 0;
    for (size_t i = 0; i < n; i++) {
        if (in_string) {
            if (s[i] == '\\')
                i++;
            else if (s[i] == '"')
                in_string = 0;
        } else if (s[i] == '"') {
            in_string = 1;
        } else if (s[i] == '{' || s[i] == '[' || s[i] == ',' || s[i] == ':') {
            count++;
        }
    }
    return count;
}

/* Where the value of the first key `key` in s[i..n) starts, for a caret:
 * alea's roll --json writes "expression", "total" and "repeat" before its
 * breakdown. i (the object) when there is none. */
static size_t value_at(const char *s, size_t i, size_t n, const char *key)
{
    size_t kl = strlen(key);
    for (size_t k = i; k + kl + 2 <= n; k++) {
        if (s[k] != '"' || memcmp(s + k + 1, key, kl) || s[k + 1 + kl] != '"')
            continue;
        size_t v = k + kl + 2;
        while (v < n && is_blank(s[v]))
            v++;
        if (v < n && s[v] == ':') {
            v++;
            while (v < n && is_blank(s[v]))
                v++;
            return v;
        }
    }
    return i;
}

/* ---- a line ------------------------------------------------------------------ */

/* Records an error of the line at [start, end) of it. */
static int line_error(fairness_line_error *e, size_t start, size_t end, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
static int line_error(fairness_line_error *e, size_t start, size_t end, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->start = start;
    e->end = end;
    return 0;
}

/* Adds n rolls of one expression, all or none; a library error is placed
 * at the expression's offset. */
static int add_rolls(alea_ctx *ctx, alea_fairness *f, const char *expr, size_t len,
                     size_t offset, const int64_t *totals, size_t n, fairness_line_error *e)
{
    alea_status st = alea_fairness_add_rolls(f, expr, len, totals, n);
    if (st == ALEA_OK)
        return 1;
    size_t start = 0, end = 0;
    alea_ctx_error_span(ctx, &start, &end);
    e->status = st;
    char msg[ALEA_ERROR_LINE_MAX];
    alea_ctx_error_line(ctx, msg, sizeof msg);
    return line_error(e, offset + start, offset + end, "%s", msg);
}

/* Refuses a line whose JSON jansson refused: its message (the end of the
 * line named as such: each line is a document of its own), the caret under
 * the token it names (jansson's position is the token's end). */
static int json_refused(fairness_line_error *e, const char *line, size_t i, size_t len,
                        const json_error_t *je)
{
    size_t at = je->position < 0 || (size_t)je->position > len - i ? len
                                                                   : i + (size_t)je->position;
    size_t start = at;
    const char *near = strstr(je->text, " near '");
    if (near) {
        size_t tl = strlen(near + 7);
        tl -= tl && near[7 + tl - 1] == '\'';
        if (tl <= at - i && !memcmp(line + at - tl, near + 7, tl))
            start = at - tl;
    }
    size_t end = start < len ? start + 1 : start;
    static const char eof[] = " near end of file";
    size_t tn = strlen(je->text);
    if (!strncmp(je->text, "end of file expected", 20))
        return line_error(e, start, end, "the line goes on after its object");
    /* where jansson says so, a ',' would do as well */
    if (!strncmp(je->text, "'}' expected", 12) || !strncmp(je->text, "']' expected", 12))
        return line_error(e, start, end, "',' or '%c' was expected", je->text[1]);
    if (tn >= sizeof eof - 1 && !strcmp(je->text + tn - (sizeof eof - 1), eof))
        return line_error(e, start, end, "%.*s at the end of the line",
                          (int)(tn - (sizeof eof - 1)), je->text);
    return line_error(e, start, end, "%s", je->text);
}

/* The total of a roll object o, a whole int64; 0 when it is another value. */
static int whole_total(const json_t *o, int64_t *out)
{
    const json_t *t = json_object_get(o, "total");
    if (!json_is_integer(t))
        return 0;
    *out = (int64_t)json_integer_value(t);
    return 1;
}

/* A line of roll --json (from line[i], a '{'): its "expression" and
 * "total", or each roll's "total" of its "repeat", read with jansson. */
static int json_line(alea_ctx *ctx, alea_fairness *f, const char *line, size_t i, size_t len,
                     fairness_line_error *e)
{
    if (json_values(line + i, len - i) > FAIRNESS_JSON_VALUES)
        return line_error(e, i, i + 1, "the line's JSON holds more than %d values (the most a "
                          "line may hold)", FAIRNESS_JSON_VALUES);
    json_error_t je;
    json_t *o = json_loadb(line + i, len - i, JSON_ALLOW_NUL, &je);
    if (!o)
        return json_refused(e, line, i, len, &je);
    const json_t *x = json_object_get(o, "expression"), *rep = json_object_get(o, "repeat");
    size_t n = json_array_size(rep), x_at = value_at(line, i, len, "expression");
    int64_t total = 0, *totals = NULL;
    int ok = 0;
    if (!x)
        line_error(e, i, i + 1, "the object has no \"expression\"");
    else if (!json_is_string(x))
        line_error(e, x_at, x_at + 1, "\"expression\" must be a string");
    else if (json_object_get(o, "total") && !whole_total(o, &total))
        line_error(e, value_at(line, i, len, "total"), value_at(line, i, len, "total") + 1,
                   "\"total\" must be a whole number");
    else if (!rep && !json_object_get(o, "total"))
        line_error(e, i, i + 1, "the object has no \"total\"");
    else if (rep && !json_is_array(rep))
        line_error(e, value_at(line, i, len, "repeat"), value_at(line, i, len, "repeat") + 1,
                   "\"repeat\" must be a list of rolls");
    else if (rep && n && !(totals = malloc(n * sizeof *totals)))
        line_error(e, i, i + 1, "out of memory");
    else
        ok = 1;
    for (size_t k = 0; ok && k < n; k++) { /* a repeat's rolls, all or none */
        const json_t *r = json_array_get(rep, k);
        size_t at = value_at(line, i, len, "repeat");
        if (!json_is_object(r))
            ok = line_error(e, at, at + 1, "each roll of \"repeat\" must be an object");
        else if (!json_object_get(r, "total"))
            ok = line_error(e, at, at + 1, "a roll of \"repeat\" has no \"total\"");
        else if (!whole_total(r, &totals[k]))
            ok = line_error(e, at, at + 1, "\"total\" must be a whole number");
    }
    if (ok)
        ok = add_rolls(ctx, f, json_string_value(x), json_string_length(x), x_at + 1,
                       rep ? totals : &total, rep ? n : 1, e);
    free(totals);
    json_decref(o);
    return ok;
}

int fairness_line(alea_ctx *ctx, alea_fairness *f, const char *line, size_t len,
                  fairness_line_error *e)
{
    memset(e, 0, sizeof *e);
    size_t i = 0;
    while (i < len && is_blank(line[i]))
        i++;
    while (len > i && is_blank(line[len - 1]))
        len--;
    if (i == len || line[i] == '#')
        return 1;
    if (line[i] == '{')
        return json_line(ctx, f, line, i, len, e);
    size_t t = len;
    while (t > i && !is_blank(line[t - 1]))
        t--;
    if (t == i)
        return line_error(e, i, len, "a line is an expression and its total: no total after "
                                     "'%.*s'", (int)(len - i > 40 ? 40 : len - i), line + i);
    int64_t total;
    if (!whole_number(line + t, len - t, &total))
        return line_error(e, t, len, "the total '%.*s' is not a whole number",
                          (int)(len - t > 40 ? 40 : len - t), line + t);
    size_t x = t;
    while (x > i && is_blank(line[x - 1]))
        x--;
    return add_rolls(ctx, f, line + i, x - i, i, &total, 1, e);
}

/* ---- the result --------------------------------------------------------------- */

static void json_text(FILE *out, const char *s)
{
    size_t n = strlen(s);
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        size_t u = unit_len((const unsigned char *)s, n, i);
        unsigned char c = (unsigned char)s[i];
        if (u == 1 && c >= 0x80)
            fputc('?', out);
        else if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fwrite(s + i, 1, u, out);
        i += u;
    }
    fputc('"', out);
}

static void json_number(FILE *out, const char *key, double v)
{
    char num[32];
    alea_format_double(v, num, sizeof num);
    fprintf(out, "\"%s\": %s", key, num);
}

static const char *verdict_name(alea_fairness_verdict v)
{
    return v == ALEA_FAIRNESS_FAIR ? "fair" : v == ALEA_FAIRNESS_UNFAIR ? "not fair" : "too few";
}

void fairness_json(FILE *out, const alea_fairness_result *r, uint64_t seed, int64_t refused)
{
    fprintf(out, "{\"rolls\": %" PRId64 ", \"refused\": %" PRId64 ", \"seed\": %" PRIu64
                 ", \"verdict\": \"%s\", \"direction\": %s, ",
            r->rolls, refused, seed, verdict_name(r->verdict),
            r->direction < 0 ? "\"low\"" : r->direction > 0 ? "\"high\"" : "null");
    json_number(out, "p", r->p);
    fputs(", ", out);
    json_number(out, "alpha", ALEA_FAIRNESS_ALPHA);
    fputs(", \"text\": ", out);
    json_text(out, r->text);
    fputs(", \"tests\": [", out);
    for (size_t i = 0; i < r->ntests; i++) {
        const alea_fairness_test *t = &r->tests[i];
        fprintf(out, "%s{\"name\": \"%s\", \"expression\": ", i ? ", " : "", t->name);
        if (t->expression)
            json_text(out, t->expression);
        else
            fputs("null", out);
        fprintf(out, ", \"rolls\": %" PRId64 ", ", t->rolls);
        json_number(out, "statistic", t->statistic);
        fputs(", ", out);
        json_number(out, "p", t->p);
        fputs(", ", out);
        json_number(out, "p_adjusted", t->p_adjusted);
        if (!strcmp(t->name, "mean"))
            fprintf(out, ", \"direction\": %s",
                    t->direction < 0 ? "\"low\"" : t->direction > 0 ? "\"high\"" : "null");
        if (t->expression) {
            fprintf(out, ", \"df\": %d, \"outcomes\": %zu, \"pooled\": ", t->df, t->outcomes);
            json_text(out, t->pooled);
        }
        fputc('}', out);
    }
    fputs("]}\n", out);
}

void fairness_text(FILE *out, const alea_fairness_result *r, uint64_t seed, int64_t refused)
{
    fprintf(out, "%" PRId64 " roll%s", r->rolls, r->rolls == 1 ? "" : "s");
    if (refused)
        fprintf(out, " (%" PRId64 " line%s refused)", refused, refused == 1 ? "" : "s");
    fprintf(out, ", placed with seed %" PRIu64 "\n", seed);
    for (size_t i = 0; i < r->ntests; i++) {
        const alea_fairness_test *t = &r->tests[i];
        char what[96];
        if (!strcmp(t->name, "mean"))
            snprintf(what, sizeof what, "mean: z = %.2f (%s)", t->statistic,
                     t->direction < 0 ? "low" : t->direction > 0 ? "high" : "even");
        else if (!strcmp(t->name, "ks"))
            snprintf(what, sizeof what, "spread (Kolmogorov-Smirnov): D = %.4f", t->statistic);
        else
            snprintf(what, sizeof what, "chi-square of %.40s: %.2f, df %d", t->expression,
                     t->statistic, t->df);
        fprintf(out, "  %-48s %8" PRId64 " rolls  p = %-9.3g adjusted %.3g", what, t->rolls,
                t->p, t->p_adjusted);
        if (t->expression && t->pooled[0])
            fprintf(out, "  (pooled %s)", t->pooled);
        fputc('\n', out);
    }
    fprintf(out, "verdict: %s\n", r->text);
}

/* ---- the command ------------------------------------------------------------- */

/* Bytes of a line, its newline left out; a longer one is refused (and
 * skipped): a roll --json line of a 10,000-dice breakdown is about 1 MB. */
#define FAIRNESS_LINE_MAX (4u << 20)
/* Refused lines reported one by one; past this, only counted. */
#define FAIRNESS_REPORTS 20

static void report_line(size_t lineno, const char *line, size_t len,
                        const fairness_line_error *e, size_t *reported)
{
    if ((*reported)++ >= FAIRNESS_REPORTS)
        return;
    fprintf(stderr, "alea: line %zu, byte %zu: %s\n", lineno, e->start + 1, e->msg);
    put_excerpt(line, len, e->start, e->end > e->start ? e->end : e->start + 1);
}

int cmd_fairness(alea_ctx *ctx, const options *o)
{
    const char *path = o->nexprs ? o->exprs[0] : "-";
    FILE *in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!in) {
        fprintf(stderr, "alea: fairness: cannot open '%s': %s\n", path, strerror(errno));
        return EXIT_FAIL;
    }
    uint64_t seed = o->seed_set ? o->seed : alea_ctx_random(ctx);
    alea_fairness *f = alea_fairness_new(ctx, seed);
    buffer b = {NULL, 0};
    int rc = EXIT_OK;
    if (!f || !buffer_reserve(&b, 4096)) {
        rc = out_of_memory();
        goto done;
    }
    size_t lineno = 0, reported = 0;
    int eof = 0;
    while (!eof) {
        size_t len = 0;
        int too_long = 0, c;
        while ((c = getc(in)) != EOF && c != '\n') {
            if (len >= FAIRNESS_LINE_MAX) {
                too_long = 1;
                continue;
            }
            if (len + 2 > b.cap && !buffer_reserve(&b, len + 2)) {
                rc = out_of_memory();
                goto done;
            }
            b.p[len++] = (char)c;
        }
        eof = c == EOF;
        if (eof && len == 0 && !too_long)
            break;
        b.p[len] = '\0';
        lineno++;
        fairness_line_error e;
        if (too_long) {
            memset(&e, 0, sizeof e);
            snprintf(e.msg, sizeof e.msg, "the line is longer than %u bytes (the most a line "
                     "may have)", FAIRNESS_LINE_MAX);
            e.start = 0;
            e.end = 1;
            report_line(lineno, b.p, len, &e, &reported);
            rc = EXIT_FAIL;
            continue;
        }
        timer_arm(o->timer); /* --timeout: each line's expression */
        if (!fairness_line(ctx, f, b.p, len, &e)) {
            if (e.status == ALEA_ERR_NOMEM ||
                (e.status == ALEA_ERR_INTERRUPTED && command_expired(o->timer))) {
                rc = report_len(ctx, NULL, 0);
                goto done;
            }
            if (e.status == ALEA_ERR_INTERRUPTED)
                snprintf(e.msg, sizeof e.msg, "timed out: the expression ran past --timeout and "
                         "was stopped");
            report_line(lineno, b.p, len, &e, &reported);
            rc = EXIT_FAIL;
        }
    }
    if (ferror(in)) {
        fprintf(stderr, "alea: fairness: cannot read '%s': %s\n", path, strerror(errno));
        rc = EXIT_FAIL;
        goto done;
    }
    if (reported > FAIRNESS_REPORTS)
        fprintf(stderr, "alea: ... and %zu more refused lines\n", reported - FAIRNESS_REPORTS);
    alea_fairness_result r;
    timer_arm(o->timer); /* the tests' own: not what the last line left of its --timeout */
    if (alea_fairness_judge(f, &r) != ALEA_OK) {
        rc = report_len(ctx, NULL, 0);
        goto done;
    }
    if (o->json)
        fairness_json(stdout, &r, seed, (int64_t)reported);
    else
        fairness_text(stdout, &r, seed, (int64_t)reported);
    /* a refused line is an error (1); else not fair is 3 */
    if (rc == EXIT_OK && r.verdict == ALEA_FAIRNESS_UNFAIR)
        rc = EXIT_UNFAIR;
done:
    alea_fairness_free(f);
    free(b.p);
    if (in != stdin)
        fclose(in);
    return rc;
}
