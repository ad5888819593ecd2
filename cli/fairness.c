/*
 * fairness.c -- alea fairness: a log of rolls, a line each ("EXPR TOTAL",
 * or a line of alea's own roll --json), judged against the exact
 * distributions of their expressions (alea_fairness_*). The reading of a
 * line and the result's JSON are shared with alea serve's POST /fairness.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* A JSON scanner for alea's own roll lines: it checks the whole line's
 * syntax and keeps "expression", "total" and each "repeat" roll's
 * "total" of the top object. Nesting is bounded (a roll's breakdown is a
 * few levels deep). */
#define JSON_DEPTH 32

typedef struct jscan {
    const char *s;
    size_t n, i;
    int depth;
    const char *why; /* what went wrong at i */
    char *expr;      /* the expression, decoded (malloc'd) */
    size_t expr_len, expr_at;
    int has_total;
    int64_t total;
    int64_t *repeat; /* the repeat's totals (malloc'd) */
    size_t nrepeat, crepeat;
    int has_repeat;
} jscan;

static void ws(jscan *j)
{
    while (j->i < j->n && is_blank(j->s[j->i]))
        j->i++;
}

static int bad(jscan *j, const char *why)
{
    if (!j->why)
        j->why = why;
    return 0;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* A string at j->i; decoded into out (room for its raw length) when out. */
static int jstring(jscan *j, char *out, size_t *len)
{
    size_t k = 0;
    if (j->i >= j->n || j->s[j->i] != '"')
        return bad(j, "a string was expected");
    j->i++;
    while (j->i < j->n && j->s[j->i] != '"') {
        unsigned char c = (unsigned char)j->s[j->i];
        if (c < 0x20)
            return bad(j, "a control character in a string");
        if (c != '\\') {
            if (out)
                out[k++] = (char)c;
            j->i++;
            continue;
        }
        if (j->i + 1 >= j->n)
            return bad(j, "the string does not end");
        char e = j->s[j->i + 1];
        const char *map = strchr("\"\"\\\\//b\bf\fn\nr\rt\t", e);
        if (e && map && (map - "\"\"\\\\//b\bf\fn\nr\rt\t") % 2 == 0) {
            if (out)
                out[k++] = map[1];
            j->i += 2;
        } else if (e == 'u') {
            unsigned u;
            if (j->i + 6 > j->n || !hex4(j->s + j->i + 2, &u))
                return bad(j, "a \\u escape needs four hexadecimal digits");
            j->i += 6;
            if (out) { /* as UTF-8; a lone surrogate as '?' (an expression has none) */
                if (u < 0x80) {
                    out[k++] = (char)u;
                } else if (u < 0x800) {
                    out[k++] = (char)(0xC0 | (u >> 6));
                    out[k++] = (char)(0x80 | (u & 0x3F));
                } else if (u >= 0xD800 && u < 0xE000) {
                    out[k++] = '?';
                } else {
                    out[k++] = (char)(0xE0 | (u >> 12));
                    out[k++] = (char)(0x80 | ((u >> 6) & 0x3F));
                    out[k++] = (char)(0x80 | (u & 0x3F));
                }
            }
        } else {
            return bad(j, "an unknown escape in a string");
        }
    }
    if (j->i >= j->n)
        return bad(j, "the string does not end");
    j->i++;
    if (len)
        *len = k;
    return 1;
}

/* A number at j->i; its value when it is a whole int64. */
static int jnumber(jscan *j, int *whole, int64_t *v)
{
    size_t start = j->i;
    if (j->i < j->n && j->s[j->i] == '-')
        j->i++;
    size_t digits = j->i;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
        j->i++;
    if (j->i == digits)
        return bad(j, "a value was expected");
    *whole = 1;
    if (j->i < j->n && j->s[j->i] == '.') {
        *whole = 0;
        j->i++;
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
            j->i++;
    }
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        *whole = 0;
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
            j->i++;
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
            j->i++;
    }
    if (*whole && !whole_number(j->s + start, j->i - start, v))
        *whole = 0;
    return 1;
}

typedef enum { AT_OTHER, AT_TOP, AT_REPEAT } jplace;

static int jvalue(jscan *j, jplace place);

/* An array at j->i, each element read as jvalue does in place elem (a
 * repeat's rolls: objects each). */
static int jarray(jscan *j, jplace elem)
{
    j->i++; /* '[' */
    ws(j);
    if (j->i < j->n && j->s[j->i] == ']') {
        j->i++;
        return 1;
    }
    for (;;) {
        ws(j);
        if (elem == AT_REPEAT && (j->i >= j->n || j->s[j->i] != '{'))
            return bad(j, "each roll of \"repeat\" must be an object");
        if (!jvalue(j, elem))
            return 0;
        ws(j);
        if (j->i < j->n && j->s[j->i] == ',') {
            j->i++;
            continue;
        }
        if (j->i < j->n && j->s[j->i] == ']') {
            j->i++;
            return 1;
        }
        return bad(j, "',' or ']' was expected");
    }
}

/* An object; in the top one, its keys are read (AT_TOP), in a repeat's
 * rolls their "total" (AT_REPEAT). */
static int jobject(jscan *j, jplace place)
{
    int got_total = 0;
    j->i++; /* '{' */
    ws(j);
    if (j->i < j->n && j->s[j->i] == '}') {
        j->i++;
        return place == AT_REPEAT ? bad(j, "a roll of \"repeat\" has no \"total\"") : 1;
    }
    for (;;) {
        ws(j);
        size_t key_at = j->i, klen = 0;
        char key[16];
        size_t raw = 0;
        {
            jscan probe = *j;
            if (!jstring(&probe, NULL, NULL))
                return bad(j, "a key (a string) was expected");
            raw = probe.i - key_at;
        }
        if (raw <= sizeof key) {
            jstring(j, key, &klen);
        } else {
            jstring(j, NULL, NULL);
            klen = 0;
        }
        key[klen < sizeof key ? klen : sizeof key - 1] = '\0';
        ws(j);
        if (j->i >= j->n || j->s[j->i] != ':')
            return bad(j, "':' was expected after a key");
        j->i++;
        ws(j);
        size_t at = j->i;
        if (place == AT_TOP && !strcmp(key, "expression")) {
            if (j->i >= j->n || j->s[j->i] != '"')
                return bad(j, "\"expression\" must be a string");
            free(j->expr);
            j->expr = malloc(j->n - at + 1);
            if (!j->expr)
                return bad(j, "out of memory");
            j->expr_at = at + 1;
            if (!jstring(j, j->expr, &j->expr_len))
                return bad(j, "\"expression\" must be a string");
        } else if (place != AT_OTHER && !strcmp(key, "total")) {
            int whole = 0;
            int64_t v = 0;
            if (!jnumber(j, &whole, &v) || !whole) {
                j->i = at;
                j->why = NULL;
                return bad(j, "\"total\" must be a whole number");
            }
            if (place == AT_TOP) {
                j->has_total = 1;
                j->total = v;
            } else {
                if (j->nrepeat == j->crepeat) {
                    size_t c = j->crepeat ? 2 * j->crepeat : 16;
                    int64_t *r = realloc(j->repeat, c * sizeof *r);
                    if (!r)
                        return bad(j, "out of memory");
                    j->repeat = r;
                    j->crepeat = c;
                }
                j->repeat[j->nrepeat++] = v;
                got_total = 1;
            }
        } else if (place == AT_TOP && !strcmp(key, "repeat")) {
            if (j->i >= j->n || j->s[j->i] != '[')
                return bad(j, "\"repeat\" must be a list of rolls");
            j->has_repeat = 1;
            if (++j->depth > JSON_DEPTH)
                return bad(j, "nested too deeply");
            if (!jarray(j, AT_REPEAT))
                return 0;
            j->depth--;
        } else if (!jvalue(j, AT_OTHER)) {
            return 0;
        }
        ws(j);
        if (j->i < j->n && j->s[j->i] == ',') {
            j->i++;
            continue;
        }
        if (j->i < j->n && j->s[j->i] == '}') {
            j->i++;
            if (place == AT_REPEAT && !got_total)
                return bad(j, "a roll of \"repeat\" has no \"total\"");
            return 1;
        }
        return bad(j, "',' or '}' was expected");
    }
}

static int jvalue(jscan *j, jplace place)
{
    ws(j);
    if (j->i >= j->n)
        return bad(j, "a value was expected");
    char c = j->s[j->i];
    if (c == '{' || c == '[') {
        if (++j->depth > JSON_DEPTH)
            return bad(j, "nested too deeply");
        int ok = c == '{' ? jobject(j, place) : jarray(j, AT_OTHER);
        j->depth--;
        return ok;
    }
    if (c == '"')
        return jstring(j, NULL, NULL);
    static const char *const words[] = {"true", "false", "null"};
    for (size_t k = 0; k < 3; k++) {
        size_t wl = strlen(words[k]);
        if (j->n - j->i >= wl && !memcmp(j->s + j->i, words[k], wl)) {
            j->i += wl;
            return 1;
        }
    }
    int whole;
    int64_t v;
    return jnumber(j, &whole, &v);
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
    if (line[i] == '{') {
        jscan j;
        memset(&j, 0, sizeof j);
        j.s = line;
        j.n = len;
        j.i = i;
        int ok = jvalue(&j, AT_TOP);
        ws(&j);
        if (ok && j.i < j.n)
            ok = bad(&j, "the line goes on after its object");
        if (ok && !j.expr)
            ok = line_error(e, i, i + 1, "the object has no \"expression\"");
        else if (ok && !j.has_total && !j.has_repeat)
            ok = line_error(e, i, i + 1, "the object has no \"total\"");
        else if (!ok)
            line_error(e, j.i, j.i < len ? j.i + 1 : j.i, "%s", j.why ? j.why : "bad JSON");
        if (ok) /* a repeat's rolls all or none */
            ok = add_rolls(ctx, f, j.expr, j.expr_len, j.expr_at,
                           j.has_repeat ? j.repeat : &j.total, j.has_repeat ? j.nrepeat : 1, e);
        free(j.expr);
        free(j.repeat);
        return ok;
    }
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
