/*
 * serve_api.c -- what alea serve answers: a request's body read into its
 * fields, each path's answer (POST /roll, /dist, /compare, /table, /policy; GET /health,
 * /openapi.json in serve_openapi.c), and the errors as JSON answers. No
 * sockets and no threads here: a worker calls answer() with a request's
 * body, and gets its status and JSON (serve.h). POST /fairness reads its
 * log as alea fairness does (fairness.c).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "cli.h"

#ifdef ALEA_HAVE_HTTP /* alea-serve's alone (cli.h, cmd_serve, says why) */

#include "serve.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ------------------------------------------------------------- */

/* The machine status of an error that is not the library's, by its HTTP
 * status (the library's are its own: ALEA_ERR_SYNTAX, ALEA_ERR_LIMIT...). */
static const struct {
    unsigned http;
    const char *status;
} http_statuses[] = {
    {MHD_HTTP_BAD_REQUEST, "SERVE_BAD_REQUEST"},
    {MHD_HTTP_FORBIDDEN, "SERVE_FORBIDDEN"},
    {MHD_HTTP_NOT_FOUND, "SERVE_NOT_FOUND"},
    {MHD_HTTP_METHOD_NOT_ALLOWED, "SERVE_METHOD"},
    {MHD_HTTP_REQUEST_TIMEOUT, "SERVE_REQUEST_TIMEOUT"},
    {MHD_HTTP_CONTENT_TOO_LARGE, "SERVE_TOO_LARGE"},
    {MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "SERVE_MEDIA_TYPE"},
    {MHD_HTTP_UNPROCESSABLE_CONTENT, "ALEA_ERR_LIMIT"}, /* --max-response */
    {MHD_HTTP_TOO_MANY_REQUESTS, "SERVE_TOO_MANY"},
    {MHD_HTTP_SERVICE_UNAVAILABLE, "SERVE_BUSY"},
};

/* An error answer: {"error": {"message": ..., "start": S, "end": E,
 * "status": NAME, "caret": the expression and a caret line under [S, E)
 * or null, "hint": a sentence or null}}. The texts are made valid UTF-8
 * first (a byte that starts no character becomes '?'), as JSON requires. */
static void fail_full(reply *out, unsigned http, const char *status, const char *msg,
                      size_t start, size_t end, const char *caret, const char *hint)
{
    char clean[ALEA_ERROR_LINE_MAX + 256];
    size_t n = strlen(msg), k = 0;
    const unsigned char *s = (const unsigned char *)msg;
    for (size_t i = 0; i < n && k + 4 < sizeof clean;) {
        size_t u = unit_len(s, n, i);
        if (u == 1 && s[i] >= 0x80) {
            clean[k++] = '?';
        } else {
            memcpy(clean + k, s + i, u);
            k += u;
        }
        i += u;
    }
    clean[k] = '\0';
    if (!status)
        for (size_t i = 0; i < sizeof http_statuses / sizeof http_statuses[0]; i++)
            if (http_statuses[i].http == http)
                status = http_statuses[i].status;
    out->status = http;
    out->p = NULL;
    json_t *j = json_pack("{s:{s:s,s:I,s:I,s:s,s:s?,s:s?}}", "error", "message", clean, "start",
                          (json_int_t)start, "end", (json_int_t)end, "status",
                          status ? status : "SERVE_ERROR", "caret", caret, "hint", hint);
    char *text = j ? json_dumps(j, 0) : NULL;
    json_decref(j);
    if (!text)
        return;
    out->len = strlen(text);
    out->p = realloc(text, out->len + 2);
    if (!out->p) {
        free(text);
        return;
    }
    memcpy(out->p + out->len, "\n", 2);
    out->len++;
}

void fail(reply *out, unsigned http, const char *msg, size_t start, size_t end)
{
    fail_full(out, http, NULL, msg, start, end, NULL, NULL);
}

void fail_deadline(reply *out, const options *o)
{
    char line[128], hint[128];
    snprintf(line, sizeof line, "timed out: the request ran past its deadline (--timeout %"
             PRId64 " ms) and was stopped", o->timer->ms);
    snprintf(hint, sizeof hint, "this server gives a request %" PRId64 " ms; ask for less work, "
             "or try again when it is less busy", o->timer->ms);
    fail_full(out, MHD_HTTP_SERVICE_UNAVAILABLE, alea_status_name(ALEA_ERR_INTERRUPTED), line, 0,
              0, NULL, hint);
}

/* The context's error as an answer: 503 for the deadline and the server's
 * memory, 422 for what the expression (f's, compiled as e or not) asked:
 * its status, the caret under its span, and the expression's hint or the
 * limit's. */
static void fail_ctx(reply *out, const options *o, const alea_ctx *ctx, const request_fields *f,
                     const alea_expr *e)
{
    size_t start, end;
    alea_status st = alea_ctx_error_span(ctx, &start, &end);
    char line[ALEA_ERROR_LINE_MAX + 64];
    if (st == ALEA_ERR_INTERRUPTED) {
        fail_deadline(out, o);
        return;
    }
    alea_ctx_error_line(ctx, line, sizeof line);
    char *caret = NULL;
    size_t caret_len = 0;
    FILE *m = f && f->expr ? open_memstream(&caret, &caret_len) : NULL;
    if (m) {
        put_excerpt_to(m, f->expr, f->expr_len, start, end);
        fclose(m);
    }
    const char *hint = e ? alea_expr_hint(e) : NULL;
    if (!hint && st == ALEA_ERR_LIMIT)
        hint = "the limits are this server's (its --max-* options): ask for fewer dice, "
               "outcomes or less work";
    fail_full(out, st == ALEA_ERR_NOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE
                                        : MHD_HTTP_UNPROCESSABLE_CONTENT,
              alea_status_name(st), line, start, end, caret, hint);
    free(caret);
}

static void fail_response_limit(reply *out, const options *o)
{
    char line[160];
    snprintf(line, sizeof line, "the answer is longer than the response limit (--max-response "
             "%" PRId64 " bytes)", o->max_response);
    fail(out, MHD_HTTP_UNPROCESSABLE_CONTENT, line, 0, 0);
}

/* ---- the answers ----------------------------------------------------------- */

/* A context for one request: the server's limits, the request's dialect
 * and mode, and its deadline (tm, a copy of the one armed when the request
 * arrived); and its expression compiled in it (*e). NULL when refused (out
 * filled). */
static alea_ctx *request_ctx_bare(const options *o, const request_fields *f,
                                  const timer *deadline, timer *tm, reply *out);

static alea_ctx *request_ctx(const options *o, const request_fields *f, const timer *deadline,
                             timer *tm, alea_expr **e, reply *out)
{
    alea_ctx *ctx = request_ctx_bare(o, f, deadline, tm, out);
    if (ctx && alea_expr_compile(ctx, f->expr, f->expr_len, e) != ALEA_OK) {
        fail_ctx(out, o, ctx, f, NULL);
        alea_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

/* request_ctx without the expression (/table compiles its own). */
static alea_ctx *request_ctx_bare(const options *o, const request_fields *f,
                                  const timer *deadline, timer *tm, reply *out)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    if (!ctx) {
        out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        out->p = NULL;
        return NULL;
    }
    apply_limits(ctx, o); /* run() checked them before serving */
    if (f->dialect >= 0)
        alea_ctx_set_dialect(ctx, (alea_dialect)f->dialect);
    if (f->exact && alea_ctx_set_exact(ctx, 1) != ALEA_OK) {
        fail_ctx(out, o, ctx, NULL, NULL);
        alea_ctx_free(ctx);
        return NULL;
    }
    *tm = *deadline;
    if (tm->ms > 0)
        alea_ctx_set_interrupt(ctx, timer_expired, tm);
    return ctx;
}

/* Room for len more bytes after the at of b (and a NUL), within the
 * response limit: 1, or 0 past the limit (out filled), or -1 out of memory. */
static int room(buffer *b, size_t at, size_t len, const options *o, reply *out)
{
    if (at + len > (size_t)o->max_response) {
        fail_response_limit(out, o);
        return 0;
    }
    if (!buffer_reserve(b, at + len + 1)) {
        out->p = NULL; /* answered as out of memory */
        return 0;
    }
    return 1;
}

static int put(buffer *b, size_t *at, const char *s, size_t len, const options *o, reply *out)
{
    if (!room(b, *at, len, o, out))
        return 0;
    memcpy(b->p + *at, s, len);
    *at += len;
    return 1;
}

/* A roll as {"expression": ..., "total": T, "text": ...}, its text (with
 * its comment) in f's format, for a bot to post as it is. */
static int put_text(buffer *b, size_t *at, const request_fields *f, const alea_roll *roll,
                    const alea_dist *luck, const options *o, reply *out)
{
    size_t len = alea_roll_format(roll, f->format, NULL, 0);
    char *text = malloc(len + 1);
    buffer lb = {NULL, 0};
    json_t *j = NULL;
    if (text) {
        alea_roll_format(roll, f->format, text, len + 1);
        const char *t = text;
        if (luck && roll_luck(roll, luck, 0, text, len, &lb, &len))
            t = lb.p; /* each line's luck after it, as roll --luck */
        else if (luck)
            t = NULL;
        j = t ? json_pack("{s:s%,s:I,s:s%}", "expression", f->expr, f->expr_len, "total",
                          (json_int_t)alea_roll_total(roll), "text", t, len)
              : NULL;
    }
    free(lb.p);
    char *d = j ? json_dumps(j, 0) : NULL;
    int ok = d ? put(b, at, d, strlen(d), o, out) : 0;
    if (!d)
        out->p = NULL; /* answered as out of memory */
    free(d);
    json_decref(j);
    free(text);
    return ok;
}

/* The answer's first field, "\"hint\": \"...\", ", for e's hint
 * (alea_expr_hint: another tool reads the text otherwise), "" when it has
 * none; malloc'd, NULL when out of memory. */
static char *hint_field(const alea_expr *e)
{
    const char *h = alea_expr_hint(e);
    json_t *j = h ? json_string(h) : NULL;
    char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    size_t n = q ? strlen(q) : 0;
    char *r = (h && !q) ? NULL : malloc(n + 12);
    if (r && q)
        snprintf(r, n + 12, "\"hint\": %s, ", q);
    else if (r)
        r[0] = '\0';
    free(q);
    return r;
}

/* POST /roll: {"hint": H, "rolls": [roll, ...], "seed": S}, each roll as
 * roll --json, S the seed that rolls them again (drawn when the request
 * gives none), H only when the expression has a hint. With "luck": true,
 * the distribution is computed once, first, and each roll has its "luck"
 * (roll --luck); when it is refused the rolls come all the same, after
 * "luck_refused": the reason. */
static void answer_roll(const options *o, const request_fields *f, const timer *deadline,
                        reply *out)
{
    timer tm;
    alea_expr *e;
    alea_ctx *ctx = request_ctx(o, f, deadline, &tm, &e, out);
    if (!ctx)
        return;
    buffer b = {NULL, 0}, lb = {NULL, 0};
    alea_dist *luck = NULL;
    size_t at = 0;
    /* a seed drawn has 53 bits: every JSON reader reads it back exactly */
    uint64_t seed = f->seed_set ? f->seed : alea_ctx_random(ctx) >> 11;
    alea_ctx_seed(ctx, seed);
    alea_roll *roll = alea_roll_new(ctx);
    if (!roll) {
        fail_ctx(out, o, ctx, f, e);
        goto done;
    }
    char *hint = hint_field(e);
    int ok = hint && put(&b, &at, "{", 1, o, out) && put(&b, &at, hint, strlen(hint), o, out);
    if (!hint)
        out->p = NULL; /* answered as out of memory */
    free(hint);
    if (ok && f->luck && alea_expr_dist(ctx, e, &luck) != ALEA_OK) {
        luck = NULL;
        char why[ALEA_ERROR_LINE_MAX];
        alea_ctx_error_line(ctx, why, sizeof why);
        json_t *j = json_string(why);
        char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
        ok = q && put(&b, &at, "\"luck_refused\": ", 16, o, out) &&
             put(&b, &at, q, strlen(q), o, out) && put(&b, &at, ", ", 2, o, out);
        if (!q)
            out->p = NULL;
        free(q);
        json_decref(j);
    }
    if (!ok || !put(&b, &at, "\"rolls\": [", 10, o, out))
        goto done;
    for (int64_t k = 0; k < f->n; k++) {
        /* the library polls the deadline every few thousand steps: a
         * roll of a few dice takes fewer */
        if (k % 64 == 63 && timer_expired(&tm)) {
            fail_deadline(out, o);
            goto done;
        }
        if (alea_expr_roll(ctx, e, roll) != ALEA_OK) {
            fail_ctx(out, o, ctx, f, e);
            goto done;
        }
        if (k && !put(&b, &at, ", ", 2, o, out))
            goto done;
        if (f->format != ALEA_FORMAT_JSON) {
            if (!put_text(&b, &at, f, roll, luck, o, out))
                goto done;
            continue;
        }
        size_t len = alea_roll_format(roll, ALEA_FORMAT_JSON, NULL, 0);
        if (!room(&b, at, len, o, out))
            goto done;
        alea_roll_format(roll, ALEA_FORMAT_JSON, b.p + at, len + 1);
        if (luck) { /* the object again, with its "luck" */
            if (!roll_luck(roll, luck, 1, b.p + at, len, &lb, &len)) {
                out->p = NULL;
                goto done;
            }
            if (!room(&b, at, len, o, out))
                goto done;
            memcpy(b.p + at, lb.p, len);
        }
        at += len;
    }
    char tail[48];
    int tl = snprintf(tail, sizeof tail, "], \"seed\": %" PRIu64 "}\n", seed);
    if (!put(&b, &at, tail, (size_t)tl, o, out))
        goto done;
    out->status = MHD_HTTP_OK;
    out->p = b.p;
    out->len = at;
    b.p = NULL;
done:
    free(b.p);
    free(lb.p);
    alea_dist_free(luck);
    alea_roll_free(roll);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* The JSON of d, as dist --json prints it, with hint (a field, or "")
 * first, within the response limit: malloc'd with room for a newline, its
 * length in *len; NULL with out filled (past the output limit, the
 * library's error about f's expression e, compiled in ctx). */
static char *dist_json(const alea_dist *d, const char *hint, const options *o,
                       const alea_ctx *ctx, const request_fields *f, const alea_expr *e,
                       size_t *len, reply *out)
{
    /* Each outcome takes 8 bytes at least ("[1, 1], "): refused before
     * anything is formatted when they cannot fit. */
    size_t limit = (size_t)o->max_response, hl = strlen(hint);
    if (alea_dist_count(d) > limit / 8 || hl + 8 > limit) {
        fail_response_limit(out, o);
        return NULL;
    }
    size_t cap = 32 * alea_dist_count(d) + 1024 + hl;
    cap = cap < limit + 1 ? cap : limit + 1;
    for (;;) {
        char *p = malloc(cap);
        size_t fl = p ? alea_dist_format(d, ALEA_FORMAT_JSON, p + hl, cap - hl) : 0;
        size_t n = hl + fl;
        if (p && hl) { /* "{" + hint + the rest of the object */
            memcpy(p + 1, hint, hl);
            p[0] = '{';
        }
        if (!p) {
            out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
            out->p = NULL;
        } else if (fl == 0) { /* past the output limit: the library's error */
            free(p);
            fail_ctx(out, o, ctx, f, e);
        } else if (n >= limit) { /* the newline after it too */
            free(p);
            fail_response_limit(out, o);
        } else if (n + 1 >= cap) {
            free(p);
            cap = n + 2;
            continue;
        } else {
            *len = n;
            return p;
        }
        return NULL;
    }
}

/* A route of one expression: the request's context and expression, its
 * answer, then both freed. */
static void answer_expr(const options *o, const request_fields *f, const timer *deadline,
                        reply *out, expr_answer *fill)
{
    timer tm;
    alea_expr *e;
    alea_ctx *ctx = request_ctx(o, f, deadline, &tm, &e, out);
    if (!ctx)
        return;
    fill(o, f, ctx, e, out);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* POST /dist: the distribution as dist --json, with the expression's
 * hint first as /roll gives it. */
static void dist_answer(const options *o, const request_fields *f, alea_ctx *ctx,
                        const alea_expr *e, reply *out)
{
    alea_dist *d = NULL;
    char *hint = NULL, *p;
    size_t len;
    if (alea_expr_dist(ctx, e, &d) != ALEA_OK) {
        fail_ctx(out, o, ctx, f, e);
    } else if (!(hint = hint_field(e))) {
        out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        out->p = NULL;
    } else if ((p = dist_json(d, hint, o, ctx, f, e, &len, out)) != NULL) {
        p[len++] = '\n';
        out->status = MHD_HTTP_OK;
        out->p = p;
        out->len = len;
    }
    free(hint);
    alea_dist_free(d);
}

/* POST /compare: {"columns": [each expression's distribution as /dist
 * answers it, with "name": null first]}, as compare --json prints it. The
 * columns share one work budget and their outcomes together stay within
 * the support limit, as on the command line; the number of expressions is
 * bounded by the body's limit, and their time by the deadline; an error's
 * caret shows the expression it is about. */
static void answer_compare(const options *o, const request_fields *f, const timer *deadline,
                           reply *out)
{
    size_t n = json_array_size(f->exprs);
    request_fields g = *f;
    g.expr = json_string_value(json_array_get(f->exprs, 0));
    g.expr_len = json_string_length(json_array_get(f->exprs, 0));
    timer tm;
    alea_expr *e = NULL;
    alea_ctx *ctx = request_ctx(o, &g, deadline, &tm, &e, out);
    if (!ctx)
        return;
    int64_t work = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1), spent = 0;
    int64_t support = alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, -1), outcomes = 0;
    buffer b = {NULL, 0};
    size_t at = 0, nrows = 0;
    alea_dist *d = NULL;
    /* each column's distribution, kept for the distances between them */
    alea_dist **kept = calloc(n ? n : 1, sizeof *kept);
    versus_row *rows = NULL;
    if (!kept) {
        out->p = NULL; /* answered as out of memory */
        goto done;
    }
    if (!put(&b, &at, "{\"columns\": [", 13, o, out))
        goto done;
    for (size_t j = 0; j < n; j++) {
        if (j) {
            alea_expr_free(e);
            e = NULL;
            g.expr = json_string_value(json_array_get(f->exprs, j));
            g.expr_len = json_string_length(json_array_get(f->exprs, j));
            if (alea_expr_compile(ctx, g.expr, g.expr_len, &e) != ALEA_OK) {
                fail_ctx(out, o, ctx, &g, NULL);
                goto done;
            }
        }
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent);
        alea_status st = alea_expr_dist(ctx, e, &d);
        spent += alea_ctx_work(ctx);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work);
        if (st != ALEA_OK) {
            fail_ctx(out, o, ctx, &g, e);
            goto done;
        }
        outcomes += (int64_t)alea_dist_count(d);
        if (outcomes > support) {
            char msg[160];
            snprintf(msg, sizeof msg, "the columns have more than %" PRId64 " outcomes in all "
                     "(the support limit)", support);
            fail_full(out, MHD_HTTP_UNPROCESSABLE_CONTENT, alea_status_name(ALEA_ERR_LIMIT),
                      msg, 0, 0, NULL, "compare fewer or smaller expressions");
            goto done;
        }
        size_t len;
        char *p = dist_json(d, "", o, ctx, &g, e, &len, out);
        int ok = p && put(&b, &at, j ? ", {\"name\": null, " : "{\"name\": null, ",
                          j ? 17 : 15, o, out) && put(&b, &at, p + 1, len - 1, o, out);
        free(p);
        kept[j] = d;
        d = NULL;
        if (!ok)
            goto done;
    }
    /* "versus": each column against the first, within the work left */
    alea_status vst = versus_compute(ctx, (const alea_dist *const *)kept, n, 0, work - spent,
                                     &rows, &nrows);
    if (vst != ALEA_OK) {
        if (vst == ALEA_ERR_NOMEM)
            out->p = NULL; /* answered as out of memory */
        else
            fail_ctx(out, o, ctx, &g, NULL);
        goto done;
    }
    size_t vlen = versus_json(rows, nrows, NULL, 0);
    char *vs = malloc(vlen + 1);
    if (!vs)
        out->p = NULL; /* answered as out of memory */
    int ok = vs && put(&b, &at, "], ", 3, o, out);
    if (ok) {
        versus_json(rows, nrows, vs, vlen + 1);
        ok = put(&b, &at, vs, vlen, o, out) && put(&b, &at, "}\n", 2, o, out);
    }
    free(vs);
    if (!ok)
        goto done;
    out->status = MHD_HTTP_OK;
    out->p = b.p;
    out->len = at;
    b.p = NULL;
done:
    free(b.p);
    alea_dist_free(d);
    for (size_t j = 0; kept && j < n; j++)
        alea_dist_free(kept[j]);
    free(kept);
    versus_free(rows, nrows);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* The strings of a JSON array (in the body's root), or NULL out of memory. */
static const char **strings_of(json_t *a, size_t *n)
{
    *n = json_array_size(a);
    const char **v = calloc(*n ? *n : 1, sizeof *v);
    for (size_t i = 0; v && i < *n; i++)
        v[i] = json_string_value(json_array_get(a, i));
    return v;
}

/* An object's JSON as the library writes it (alea_*_format's contract). */
typedef size_t (*json_writer)(const void *obj, char *buf, size_t cap);

static size_t table_json(const void *t, char *buf, size_t cap)
{
    return alea_table_format(t, ALEA_FORMAT_JSON, buf, cap);
}

static size_t policy_json(const void *p, char *buf, size_t cap)
{
    return alea_policy_format(p, ALEA_FORMAT_JSON, buf, cap);
}

/* The answer: obj's JSON by write and a newline, within the response
 * limit; past the library's output limit, its error (in ctx, about f's
 * expression, compiled as e or not). */
static void answer_json(reply *out, const options *o, const alea_ctx *ctx,
                        const request_fields *f, const alea_expr *e, json_writer write,
                        const void *obj)
{
    size_t len = write(obj, NULL, 0);
    out->p = NULL; /* answered as out of memory, unless filled */
    if (len == 0) {
        fail_ctx(out, o, ctx, f, e); /* the output limit */
    } else if (len + 1 > (size_t)o->max_response) {
        fail_response_limit(out, o);
    } else if ((out->p = malloc(len + 2)) != NULL) {
        write(obj, out->p, len + 1);
        memcpy(out->p + len, "\n", 2);
        out->status = MHD_HTTP_OK;
        out->len = len + 1;
    }
}

/* POST /table: the library's table (alea_table_format's JSON, as table
 * --json prints it) of f's expression over its sweeps and statistics; the
 * cells within the server's cells limit (--max-cells) and one work budget.
 * An error's caret shows the text it is about: the expression, a sweep or
 * a statistic. */
static void answer_table(const options *o, const request_fields *f, const timer *deadline,
                         reply *out)
{
    timer tm;
    alea_ctx *ctx = request_ctx_bare(o, f, deadline, &tm, out);
    if (!ctx)
        return;
    size_t nsw, nst;
    const char **sw = strings_of(f->sweeps, &nsw), **st = strings_of(f->stats, &nst);
    alea_table *t = NULL;
    out->p = NULL; /* answered as out of memory, unless filled */
    if (!sw || !st)
        goto done;
    if (alea_table_new(ctx, f->expr, f->expr_len, sw, nsw, st, nst, &t) != ALEA_OK) {
        size_t k = 0;
        alea_table_part part = alea_table_error_part(ctx, &k);
        request_fields g = *f;
        if (part != ALEA_TABLE_EXPRESSION) { /* the caret under that text */
            g.expr = part == ALEA_TABLE_SWEEP ? sw[k] : st[k];
            g.expr_len = strlen(g.expr);
        }
        fail_ctx(out, o, ctx, &g, NULL);
        goto done;
    }
    answer_json(out, o, ctx, f, NULL, table_json, t);
done:
    free(sw);
    free(st);
    alea_table_free(t);
    alea_ctx_free(ctx);
}

/* POST /policy: the player's decisions at the expression's choice point
 * (alea_policy_format's JSON, as policy --json prints it), within the
 * server's work budget and response limit. An expression without a choice
 * is a 422 with the caret under it, as any error of the library. */
static void policy_answer(const options *o, const request_fields *f, alea_ctx *ctx,
                          const alea_expr *e, reply *out)
{
    alea_policy *p = NULL;
    if (alea_policy_new(ctx, e, &p) != ALEA_OK)
        fail_ctx(out, o, ctx, f, e);
    else
        answer_json(out, o, ctx, f, e, policy_json, p);
    alea_policy_free(p);
}

/*
 * POST /fairness: {"rolls": [{"expression", "total"}, ...]} or {"text": a
 * log as alea fairness reads it}, with "seed"; the answer is fairness
 * --json's object. The expressions share the request's work limit, as
 * /compare's columns do; a refused roll (its index, or its line of the
 * text) fails the request.
 */
static void answer_fairness(const options *o, const request_fields *f, const timer *deadline,
                            reply *out)
{
    char msg[ALEA_ERROR_LINE_MAX + 128];
    if (!f->rolls == !f->text) {
        fail(out, MHD_HTTP_BAD_REQUEST, "a /fairness body has either 'rolls' (as [{\"expression\": "
             "\"d20\", \"total\": 17}]) or 'text' (lines 'EXPR TOTAL')", 0, 0);
        return;
    }
    request_fields g = *f;
    g.expr = "0"; /* the context alone: each roll's expression is compiled as it comes */
    g.expr_len = 1;
    timer tm;
    alea_expr *e = NULL;
    alea_ctx *ctx = request_ctx(o, &g, deadline, &tm, &e, out);
    if (!ctx)
        return;
    alea_expr_free(e);
    uint64_t seed = f->seed_set ? f->seed : alea_ctx_random(ctx);
    alea_fairness *fa = alea_fairness_new(ctx, seed);
    int64_t work = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1), spent = 0;
    char *p = NULL;
    size_t plen = 0;
    FILE *m = NULL;
    if (!fa) {
        out->p = NULL; /* answered as out of memory */
        goto done;
    }
    size_t n = f->rolls ? json_array_size(f->rolls) : 0, at = 0, lineno = 0;
    for (size_t i = 0; f->rolls ? i < n : at < f->text_len; i++) {
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent);
        fairness_line_error err;
        const char *src;
        size_t len;
        int ok;
        if (f->rolls) {
            json_t *r = json_array_get(f->rolls, i);
            src = json_string_value(json_object_get(r, "expression"));
            len = json_string_length(json_object_get(r, "expression"));
            alea_status st = alea_fairness_add(fa, src, len, json_integer_value(json_object_get(r, "total")));
            ok = st == ALEA_OK;
            if (!ok) {
                size_t s0 = 0, s1 = 0;
                alea_ctx_error_span(ctx, &s0, &s1);
                err.status = st;
                err.start = s0;
                err.end = s1;
                alea_ctx_error_line(ctx, err.msg, sizeof err.msg);
            }
        } else {
            src = f->text + at;
            len = strcspn(src, "\n");
            if (at + len > f->text_len)
                len = f->text_len - at;
            at += len + 1;
            lineno++;
            ok = fairness_line(ctx, fa, src, len, &err);
        }
        spent += alea_ctx_work(ctx);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work);
        if (ok && alea_fairness_rolls(fa) > o->max_rolls) {
            snprintf(msg, sizeof msg, "too many rolls: more than %" PRId64 " (this server "
                     "judges at most %" PRId64 " a request, its --max-rolls)", o->max_rolls,
                     o->max_rolls);
            fail_full(out, MHD_HTTP_UNPROCESSABLE_CONTENT, alea_status_name(ALEA_ERR_LIMIT),
                      msg, 0, 0, NULL, "send the log in several requests");
            goto done;
        }
        if (!ok) {
            if (err.status == ALEA_ERR_INTERRUPTED) {
                fail_deadline(out, o);
                goto done;
            }
            if (err.status == ALEA_ERR_NOMEM) {
                out->p = NULL;
                goto done;
            }
            if (f->rolls)
                snprintf(msg, sizeof msg, "roll %zu: %s", i, err.msg);
            else
                snprintf(msg, sizeof msg, "line %zu, byte %zu: %s", lineno, err.start + 1, err.msg);
            char *caret = NULL;
            size_t caret_len = 0;
            FILE *cm = open_memstream(&caret, &caret_len);
            if (cm) {
                put_excerpt_to(cm, src, len, err.start, err.end > err.start ? err.end : err.start + 1);
                fclose(cm);
            }
            size_t base = f->rolls ? 0 : (size_t)(src - f->text); /* spans of the text */
            fail_full(out, MHD_HTTP_UNPROCESSABLE_CONTENT,
                      alea_status_name(err.status == ALEA_OK ? ALEA_ERR_SYNTAX : err.status), msg,
                      base + err.start, base + err.end, caret, NULL);
            free(caret);
            goto done;
        }
    }
    alea_fairness_result r;
    if (alea_fairness_judge(fa, &r) != ALEA_OK) {
        fail_ctx(out, o, ctx, NULL, NULL);
        goto done;
    }
    m = open_memstream(&p, &plen);
    if (!m) {
        out->p = NULL;
        goto done;
    }
    fairness_json(m, &r, seed, 0);
    fclose(m);
    if (!p || plen > (size_t)o->max_response) {
        if (p)
            fail_response_limit(out, o);
        else
            out->p = NULL;
        goto done;
    }
    out->status = MHD_HTTP_OK;
    out->p = p;
    out->len = plen;
    p = NULL;
done:
    free(p);
    alea_fairness_free(fa);
    alea_ctx_free(ctx);
}

/* GET /health. */
static void answer_health(const options *o, const request_fields *f, const timer *deadline,
                          reply *out)
{
    (void)o;
    (void)f;
    (void)deadline;
    json_t *j = json_pack("{s:s,s:s}", "status", "ok", "version", alea_version());
    out->status = MHD_HTTP_OK;
    out->p = j ? json_dumps(j, 0) : NULL;
    out->len = out->p ? strlen(out->p) : 0;
    json_decref(j);
}

static const route routes[] = {
    {"/roll", "POST", "POST", "expr, n, seed, dialect, format, luck", answer_roll, NULL},
    {"/dist", "POST", "POST", "expr, exact, dialect", NULL, dist_answer},
    {"/compare", "POST", "POST", "exprs, exact, dialect", answer_compare, NULL},
    {"/table", "POST", "POST", "expr, expression, sweeps, stats, exact, dialect", answer_table,
     NULL},
    {"/fairness", "POST", "POST", "rolls, text, seed, dialect", answer_fairness, NULL},
    {"/policy", "POST", "POST", "expr, expression, exact, dialect", NULL, policy_answer},
    {"/health", "GET", "GET, HEAD", NULL, answer_health, NULL},
    {"/openapi.json", "GET", "GET, HEAD", NULL, answer_openapi, NULL},
};

const route *route_find(const char *path)
{
    const route *r = NULL;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (!strcmp(path, routes[i].path))
            r = &routes[i];
    return r;
}

/* ---- the request's body ---------------------------------------------------- */

/* Whether field name is one that route r takes ("expr, n, seed"). */
static int takes(const route *r, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = r->fields; (s = strstr(s, name)) != NULL; s += n)
        if ((s == r->fields || s[-1] == ' ') && (s[n] == ',' || s[n] == '\0'))
            return 1;
    return 0;
}

/* Reads the fields of the body's JSON object; 0 with out filled when one
 * is missing, unknown or of the wrong kind. The strings stay in root. */
static int read_fields(const route *r, json_t *root, request_fields *f, reply *out)
{
    char msg[256];
    const char *key;
    json_t *v;
    memset(f, 0, sizeof *f);
    f->n = 1;
    f->dialect = -1;
    f->format = ALEA_FORMAT_JSON;
    if (!json_is_object(root)) {
        fail(out, MHD_HTTP_BAD_REQUEST, "the body must be a JSON object, as {\"expr\": "
             "\"4d6kh3\"}", 0, 0);
        return 0;
    }
    json_object_foreach(root, key, v) {
        const char *bad = NULL;
        if (!takes(r, key)) {
            if (strlen(key) <= 40)
                snprintf(msg, sizeof msg, "unknown field '%s' (%s takes %s)", key, r->path,
                         r->fields);
            else
                snprintf(msg, sizeof msg, "unknown field of %zu bytes (%s takes %s)",
                         strlen(key), r->path, r->fields);
            fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
            return 0;
        }
        if (!strcmp(key, "expr") || !strcmp(key, "expression")) {
            if (json_is_string(v)) {
                f->expr = json_string_value(v);
                f->expr_len = json_string_length(v);
            } else {
                bad = "a string";
            }
        } else if (!strcmp(key, "n")) {
            if (json_is_integer(v) && json_integer_value(v) >= 1)
                f->n = (int64_t)json_integer_value(v);
            else
                bad = "a positive integer";
        } else if (!strcmp(key, "seed")) {
            f->seed_set = 1;
            if (json_is_integer(v) && json_integer_value(v) >= 0)
                f->seed = (uint64_t)json_integer_value(v);
            else if (!json_is_string(v) || !parse_u64(json_string_value(v), &f->seed))
                bad = "an integer from 0 to 18446744073709551615 (as a string above 2^63)";
        } else if (!strcmp(key, "dialect")) {
            if (!json_is_string(v) || (f->dialect = alea_dialect_find(json_string_value(v))) < 0)
                bad = "one of alea, roll20, foundry, rpgdr, d20";
        } else if (!strcmp(key, "exprs")) {
            size_t i, k = json_array_size(v);
            for (i = 0; i < k && json_is_string(json_array_get(v, i)); i++)
                ;
            if (json_is_array(v) && k && i == k)
                f->exprs = v;
            else
                bad = "a non-empty array of strings";
        } else if (!strcmp(key, "sweeps") || !strcmp(key, "stats")) {
            size_t i, k = json_array_size(v);
            for (i = 0; i < k && json_is_string(json_array_get(v, i)); i++)
                ;
            if (json_is_array(v) && (k || key[1] == 't') && i == k)
                *(key[1] == 'w' ? &f->sweeps : &f->stats) = v;
            else
                bad = key[1] == 'w' ? "a non-empty array of strings, as [\"m=0..10\"]"
                                    : "an array of strings, as [\"mean\", \"p>=2\"]";
        } else if (!strcmp(key, "format")) {
            const char *v_s = json_is_string(v) ? json_string_value(v) : "";
            if (!strcmp(v_s, "json"))
                f->format = ALEA_FORMAT_JSON;
            else if (!strcmp(v_s, "text"))
                f->format = ALEA_FORMAT_TEXT;
            else if (!strcmp(v_s, "markdown"))
                f->format = ALEA_FORMAT_MARKDOWN;
            else
                bad = "one of json, text, markdown";
        } else if (!strcmp(key, "exact")) {
            if (json_is_boolean(v))
                f->exact = json_is_true(v);
            else
                bad = "true or false";
        } else if (!strcmp(key, "rolls")) {
            size_t i, k = json_array_size(v);
            for (i = 0; i < k; i++) {
                json_t *roll = json_array_get(v, i);
                if (!json_is_object(roll) || json_object_size(roll) != 2 ||
                    !json_is_string(json_object_get(roll, "expression")) ||
                    !json_is_integer(json_object_get(roll, "total")))
                    break;
            }
            if (json_is_array(v) && i == k)
                f->rolls = v;
            else
                bad = "an array of {\"expression\": a string, \"total\": an integer}";
        } else if (!strcmp(key, "text")) {
            if (json_is_string(v)) {
                f->text = json_string_value(v);
                f->text_len = json_string_length(v);
            } else {
                bad = "a string";
            }
        } else if (!strcmp(key, "luck")) {
            if (json_is_boolean(v))
                f->luck = json_is_true(v);
            else
                bad = "true or false";
        }
        if (bad) {
            snprintf(msg, sizeof msg, "field '%s' must be %s", key, bad);
            fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
            return 0;
        }
    }
    if (takes(r, "exprs") && !f->exprs) {
        snprintf(msg, sizeof msg, "missing field 'exprs' (the expressions, as {\"exprs\": "
                 "[\"2d20kh1\", \"1d20\"]})");
        fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
        return 0;
    }
    if (takes(r, "sweeps") && !f->sweeps) {
        snprintf(msg, sizeof msg, "missing field 'sweeps' (the names swept, as {\"expr\": "
                 "\"d20 + m >= 15\", \"sweeps\": [\"m=0..10\"]})");
        fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
        return 0;
    }
    if (!f->expr && !takes(r, "exprs") && !takes(r, "rolls")) {
        snprintf(msg, sizeof msg, "missing field 'expr' (the expression, as {\"expr\": "
                 "\"4d6kh3\"})");
        fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
        return 0;
    }
    return 1;
}

/* The answer to a whole request on route r, within its deadline. */
void answer(const options *o, const route *r, const char *body, size_t len,
                   const timer *deadline, reply *out)
{
    request_fields f;
    if (!r->fields) {
        r->answer(o, NULL, deadline, out);
        return;
    }
    json_error_t err;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        char msg[JSON_ERROR_TEXT_LENGTH + 32];
        snprintf(msg, sizeof msg, "malformed JSON: %s", err.text);
        /* jansson's position is past the byte it stopped at */
        size_t at = err.position > 0 ? (size_t)err.position : 0;
        at = at < len ? at : len;
        if (json_error_code(&err) == json_error_premature_end_of_input)
            fail(out, MHD_HTTP_BAD_REQUEST, msg, len, len);
        else
            fail(out, MHD_HTTP_BAD_REQUEST, msg, at ? at - 1 : 0, at ? at : 1);
        return;
    }
    if (read_fields(r, root, &f, out)) {
        if (r->on_expr)
            answer_expr(o, &f, deadline, out, r->on_expr);
        else
            r->answer(o, &f, deadline, out);
    }
    json_decref(root);
}

#endif
