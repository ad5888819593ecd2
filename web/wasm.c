/*
 * wasm.c -- the WebAssembly entry points of the web page (web/): the only
 * web-specific C. Arguments in, JSON out: each call returns a pointer to a
 * NUL-terminated JSON document in this module's memory, valid until the
 * next call. The library itself is unchanged (built from src/ as is).
 *
 * JavaScript side: web/alea.js.
 */
#include <alea.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT(name) __attribute__((export_name(name)))

/* The module's one answer buffer and one context: a web page is one
 * thread, and each call finishes before the next. */
static char *answer;
static size_t answer_cap;
static alea_ctx *ctx;

static int reserve(size_t n)
{
    if (n <= answer_cap)
        return 1;
    size_t cap = answer_cap ? answer_cap : 4096;
    while (cap < n)
        cap *= 2;
    char *p = realloc(answer, cap);
    if (!p)
        return 0;
    answer = p;
    answer_cap = cap;
    return 1;
}

static const char nomem[] =
    "{\"error\": {\"status\": \"ALEA_ERR_NOMEM\", \"text\": \"out of memory\", "
    "\"message\": \"out of memory\", \"start\": 0, \"end\": 0}}";

/* Appends printf-style text at *len; 0 when out of memory. */
static int put(size_t *len, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int put(size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(answer ? answer + *len : NULL, answer ? answer_cap - *len : 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 0;
    if (*len + (size_t)n + 1 > answer_cap) {
        if (!reserve(*len + (size_t)n + 1))
            return 0;
        va_start(ap, fmt);
        vsnprintf(answer + *len, answer_cap - *len, fmt, ap);
        va_end(ap);
    }
    *len += (size_t)n;
    return 1;
}

/* A JSON string of s (the messages are ASCII; quotes and controls escaped). */
static int put_string(size_t *len, const char *s)
{
    if (!put(len, "\""))
        return 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        int ok = c == '"' || c == '\\' ? put(len, "\\%c", c)
                 : c < 0x20            ? put(len, "\\u%04x", c)
                                       : put(len, "%c", c);
        if (!ok)
            return 0;
    }
    return put(len, "\"");
}

static const char *error_answer(void)
{
    size_t a = 0, b = 0, len = 0;
    alea_status st = alea_ctx_error_span(ctx, &a, &b);
    if (put(&len, "{\"error\": {\"status\": \"%s\", \"text\": \"%s\", \"message\": ",
            alea_status_name(st), alea_status_text(st)) &&
        put_string(&len, alea_ctx_error(ctx)) &&
        put(&len, ", \"start\": %zu, \"end\": %zu}}", a, b))
        return answer;
    return nomem;
}

static int ready(void)
{
    if (!ctx)
        ctx = alea_ctx_new(NULL, NULL);
    return ctx != NULL;
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

/*
 * The exact distribution of the len bytes at src: the library's JSON
 * (alea_dist_format), or {"error": {status, text, message, start, end}}.
 */
EXPORT("alea_web_dist") const char *web_dist(const char *src, size_t len)
{
    if (!ready())
        return nomem;
    alea_expr *e = NULL;
    alea_dist *d = NULL;
    if (alea_expr_compile(ctx, src, len, &e) != ALEA_OK)
        return error_answer();
    if (alea_expr_dist(ctx, e, &d) != ALEA_OK) {
        alea_expr_free(e);
        return error_answer();
    }
    const char *out = nomem;
    size_t n = alea_dist_format(d, ALEA_FORMAT_JSON, NULL, 0);
    if (reserve(n + 1)) {
        alea_dist_format(d, ALEA_FORMAT_JSON, answer, answer_cap);
        out = answer;
    }
    alea_dist_free(d);
    alea_expr_free(e);
    return out;
}

/*
 * Rolls the expression n times: with seeded set, first seeds the generator
 * with seed_hi * 2^32 + seed_lo, as `alea roll --seed`; else the generator
 * goes on where it was (seeded from the page's entropy at first). {"rolls": [{"text": "4d6kh3 [...] = 17", "total": 17,
 * "detail": <the library's JSON>}, ...]}, or an error as web_dist's.
 */
EXPORT("alea_web_roll")
const char *web_roll(const char *src, size_t len, int n, int seeded, uint32_t seed_hi,
                     uint32_t seed_lo)
{
    if (!ready())
        return nomem;
    alea_expr *e = NULL;
    if (alea_expr_compile(ctx, src, len, &e) != ALEA_OK)
        return error_answer();
    if (seeded) /* else the generator goes on (seeded by the OS at first) */
        alea_ctx_seed(ctx, (uint64_t)seed_hi << 32 | seed_lo);
    alea_roll *r = alea_roll_new(ctx);
    if (!r) {
        alea_expr_free(e);
        return error_answer();
    }
    /* The answer grows as it goes: its address is taken at the end. */
    size_t pos = 0;
    const char *fail = put(&pos, "{\"rolls\": [") ? NULL : nomem;
    for (int i = 0; i < n && !fail; i++) {
        if (alea_expr_roll(ctx, e, r) != ALEA_OK) {
            fail = error_answer();
            break;
        }
        size_t tl = alea_roll_format(r, ALEA_FORMAT_TEXT, NULL, 0);
        size_t jl = alea_roll_format(r, ALEA_FORMAT_JSON, NULL, 0);
        char *text = malloc(tl + 1), *json = malloc(jl + 1);
        if (text && json) {
            alea_roll_format(r, ALEA_FORMAT_TEXT, text, tl + 1);
            alea_roll_format(r, ALEA_FORMAT_JSON, json, jl + 1);
        }
        if (!text || !json || !put(&pos, i ? ", {\"text\": " : "{\"text\": ") ||
            !put_string(&pos, text) ||
            !put(&pos, ", \"total\": %lld, \"detail\": %s}", (long long)alea_roll_total(r),
                 json))
            fail = nomem;
        free(text);
        free(json);
    }
    if (!fail && !put(&pos, "]}"))
        fail = nomem;
    const char *out = fail ? fail : answer;
    alea_roll_free(r);
    alea_expr_free(e);
    return out;
}
