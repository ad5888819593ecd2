/*
 * common.c -- the checking allocator and the oracles the fuzz targets share.
 * See fuzz.h.
 */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\n==FUZZ CHECK FAILED== %s:%d: %s\n  ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ---- the checking allocator --------------------------------------------- */

/* Header before each block: its size, and a mark that catches a foreign or
 * already freed pointer. 16 bytes keep the block 16-byte aligned. */
typedef struct hdr {
    size_t size;
    size_t mark;
} hdr;

#define LIVE_MARK ((size_t)0xA1EA0A11Cu)

void *fz_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    fz_heap *h = ud;
    hdr *b = NULL;
    if (ptr) {
        b = (hdr *)ptr - 1;
        FZ_CHECK(b->mark == LIVE_MARK, "allocator: pointer %p was not allocated here", ptr);
        FZ_CHECK(b->size == osize, "allocator: osize %zu for a block of %zu bytes", osize,
                 b->size);
    }
    if (nsize == 0) {
        if (b) {
            b->mark = 0;
            h->live_blocks--;
            h->live_bytes -= b->size;
            free(b);
        }
        return NULL;
    }
    h->count++;
    if (h->fail_at && h->count == h->fail_at)
        return NULL;
    if (nsize > SIZE_MAX - sizeof(hdr))
        return NULL;
    hdr *nb = realloc(b, sizeof(hdr) + nsize);
    if (!nb)
        return NULL;
    if (!b)
        h->live_blocks++;
    else
        h->live_bytes -= nb->size;
    nb->size = nsize;
    nb->mark = LIVE_MARK;
    h->live_bytes += nsize;
    return nb + 1;
}

alea_ctx *fz_ctx_new(fz_heap *h)
{
    memset(h, 0, sizeof *h);
    alea_ctx *ctx = alea_ctx_new(fz_alloc, h);
    FZ_CHECK(ctx != NULL, "alea_ctx_new failed without an allocation failure");
    alea_ctx_seed(ctx, 1);
    h->ctx_bytes = alea_ctx_memory(ctx, NULL);
    return ctx;
}

void fz_check_memory(alea_ctx *ctx, const fz_heap *h)
{
    fz_check_memory_with(ctx, h, 0);
}

void fz_check_memory_with(alea_ctx *ctx, const fz_heap *h, int fractions)
{
    size_t peak = 0, used = alea_ctx_memory(ctx, &peak);
    /* A distribution in fractions counts the digits GMP holds beside
     * what the hook holds; they are given back when it is freed. */
    FZ_CHECK(fractions ? used >= h->live_bytes : used == h->live_bytes,
             "the context counts %zu bytes, its hook holds %zu", used, h->live_bytes);
    int64_t limit = alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, -1);
    FZ_CHECK((uint64_t)peak <= (uint64_t)limit, "peak %zu bytes over the memory limit %lld",
             peak, (long long)limit);
}

void fz_ctx_free(alea_ctx *ctx, fz_heap *h)
{
    size_t used = alea_ctx_memory(ctx, NULL);
    fz_check_memory(ctx, h);
    FZ_CHECK(used == h->ctx_bytes, "%zu bytes still counted after every object was freed "
             "(%zu right after alea_ctx_new)", used, h->ctx_bytes);
    alea_ctx_free(ctx);
    FZ_CHECK(h->live_blocks == 0 && h->live_bytes == 0,
             "leak through the allocator hook: %zu blocks, %zu bytes still live "
             "(the context counted %zu bytes in use before it was freed)",
             h->live_blocks, h->live_bytes, used);
}

uint64_t fz_hash(const uint8_t *data, size_t size)
{
    uint64_t x = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size; i++)
        x = (x ^ data[i]) * 0x100000001b3u;
    return x;
}

/* ---- errors ------------------------------------------------------------- */

void fz_check_error(const alea_ctx *ctx, alea_status st, size_t len)
{
    size_t s = 99, e = 99;
    FZ_CHECK(st > ALEA_OK && st < ALEA_STATUS__COUNT, "unknown status %d", (int)st);
    FZ_CHECK(st != ALEA_ERR_ARGUMENT, "ALEA_ERR_ARGUMENT from a correct call: %s",
             alea_ctx_error(ctx));
    alea_status last = alea_ctx_error_span(ctx, &s, &e);
    FZ_CHECK(last == st, "returned %s but the context holds %s", alea_status_name(st),
             alea_status_name(last));
    const char *msg = alea_ctx_error(ctx);
    FZ_CHECK(msg && msg[0] != '\0', "%s with an empty message", alea_status_name(st));
    FZ_CHECK(s <= e && e <= len, "%s: span [%zu, %zu) outside the %zu-byte source: %s",
             alea_status_name(st), s, e, len, msg);
}

void fz_check_ok(const alea_ctx *ctx)
{
    size_t s = 99, e = 99;
    alea_status last = alea_ctx_error_span(ctx, &s, &e);
    FZ_CHECK(last == ALEA_OK && s == 0 && e == 0 && alea_ctx_error(ctx)[0] == '\0',
             "success leaves status %s, span [%zu, %zu), message '%s'",
             alea_status_name(last), s, e, alea_ctx_error(ctx));
}

/* ---- the snprintf contract ---------------------------------------------- */

size_t fz_fmt_expr(const void *obj, int arg, char *buf, size_t cap)
{
    (void)arg;
    return alea_expr_format(obj, buf, cap);
}

size_t fz_fmt_roll(const void *obj, int arg, char *buf, size_t cap)
{
    return alea_roll_format(obj, (alea_format)arg, buf, cap);
}

size_t fz_fmt_dist(const void *obj, int arg, char *buf, size_t cap)
{
    return alea_dist_format(obj, (alea_format)arg, buf, cap);
}

size_t fz_fmt_policy(const void *obj, int arg, char *buf, size_t cap)
{
    return alea_policy_format(obj, (alea_format)arg, buf, cap);
}

/* The largest text formatted twice more (a cut, and again): 256 KiB. */
#define FZ_FORMAT_TWICE ((size_t)1 << 18)

char *fz_format(fz_format_fn fn, const void *obj, int arg, size_t *len, uint64_t h)
{
    /* cap 0 with a NULL buffer: the length only, nothing written. */
    size_t n = fn(obj, arg, NULL, 0);
    FZ_CHECK(n < ((size_t)1 << 30), "formatter claims %zu bytes", n);
    /* Exactly n + 1 bytes on the heap: ASan sees one byte too many. */
    char *full = malloc(n + 1);
    FZ_CHECK(full != NULL, "malloc");
    size_t n2 = fn(obj, arg, full, n + 1);
    FZ_CHECK(n2 == n, "length %zu with cap 0 but %zu with cap %zu", n, n2, n + 1);
    FZ_CHECK(full[n] == '\0', "not NUL-terminated at its length %zu", n);
    FZ_CHECK(strlen(full) == n, "strlen %zu but the formatter returned %zu: a NUL inside",
             strlen(full), n);
    /* A cut: a prefix of cap - 1 bytes and a NUL, nothing past cap; and
     * a second call (below). Only for texts of at most FZ_FORMAT_TWICE
     * bytes: a distribution of 100,000 outcomes writes megabytes, and
     * formatting them four times under the sanitizers would pass the
     * fuzzer's time limit on a busy machine; small texts take the same
     * paths. */
    int twice = n <= FZ_FORMAT_TWICE;
    if (n > 0 && twice) {
        size_t cap = 1 + (size_t)(h % n); /* 1..n: always too small */
        char *cut = malloc(cap);
        FZ_CHECK(cut != NULL, "malloc");
        size_t n3 = fn(obj, arg, cut, cap);
        FZ_CHECK(n3 == n, "length %zu with cap %zu but %zu when it fits", n3, cap, n);
        FZ_CHECK(cut[cap - 1] == '\0' && memcmp(cut, full, cap - 1) == 0,
                 "cut at cap %zu is not a NUL-terminated prefix of the full text", cap);
        free(cut);
    }
    /* And a second call gives the same text (formatters are pure). */
    if (twice) {
        char *again = malloc(n + 1);
        FZ_CHECK(again != NULL, "malloc");
        fn(obj, arg, again, n + 1);
        FZ_CHECK(memcmp(again, full, n + 1) == 0, "two calls format differently");
        free(again);
    }
    *len = n;
    return full;
}

/* ---- a JSON validator ----------------------------------------------------- */

typedef struct jp {
    const unsigned char *s;
    size_t n, i;
    int depth;
} jp;

static void ws(jp *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
                           p->s[p->i] == '\r'))
        p->i++;
}

static int lit(jp *p, const char *w)
{
    size_t k = strlen(w);
    if (p->n - p->i < k || memcmp(p->s + p->i, w, k) != 0)
        return 0;
    p->i += k;
    return 1;
}

static int digits(jp *p)
{
    size_t i0 = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
        p->i++;
    return p->i > i0;
}

static int number(jp *p)
{
    if (p->i < p->n && p->s[p->i] == '-')
        p->i++;
    if (p->i < p->n && p->s[p->i] == '0')
        p->i++;
    else if (!digits(p))
        return 0;
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (!digits(p))
            return 0;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
            p->i++;
        if (!digits(p))
            return 0;
    }
    return 1;
}

static int hex4(jp *p, unsigned *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++, p->i++) {
        if (p->i >= p->n)
            return 0;
        unsigned c = p->s[p->i];
        unsigned d = c >= '0' && c <= '9'   ? c - '0'
                     : c >= 'a' && c <= 'f' ? c - 'a' + 10
                     : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                            : 16;
        if (d == 16)
            return 0;
        *v = *v * 16 + d;
    }
    return 1;
}

/* One UTF-8 sequence at p->i (strict: no overlongs, surrogates or > U+10FFFF). */
static int utf8(jp *p)
{
    unsigned c = p->s[p->i], need, cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        min = 0x80;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        min = 0x800;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        min = 0x10000;
        cp = c & 0x07;
    } else {
        return 0;
    }
    p->i++;
    for (unsigned k = 0; k < need; k++, p->i++) {
        if (p->i >= p->n || (p->s[p->i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p->s[p->i] & 0x3Fu);
    }
    return cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
}

static int string(jp *p)
{
    if (p->i >= p->n || p->s[p->i] != '"')
        return 0;
    p->i++;
    while (p->i < p->n) {
        unsigned c = p->s[p->i];
        if (c == '"') {
            p->i++;
            return 1;
        }
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            p->i++;
            if (p->i >= p->n)
                return 0;
            c = p->s[p->i++];
            if (c == 'u') {
                unsigned v;
                if (!hex4(p, &v))
                    return 0;
                if (v >= 0xDC00 && v <= 0xDFFF)
                    return 0; /* a lone low surrogate */
                if (v >= 0xD800 && v <= 0xDBFF) {
                    if (!lit(p, "\\u") || !hex4(p, &v) || v < 0xDC00 || v > 0xDFFF)
                        return 0;
                }
            } else if (!strchr("\"\\/bfnrt", (int)c) || c == 0) {
                return 0;
            }
        } else if (c < 0x80) {
            p->i++;
        } else if (!utf8(p)) {
            return 0;
        }
    }
    return 0;
}

static int value(jp *p);

static int container(jp *p, char open, char close, int keyed)
{
    if (++p->depth > 1000)
        return 0;
    p->i++; /* open */
    (void)open;
    ws(p);
    if (p->i < p->n && p->s[p->i] == (unsigned char)close) {
        p->i++;
        p->depth--;
        return 1;
    }
    for (;;) {
        ws(p);
        if (keyed) {
            if (!string(p))
                return 0;
            ws(p);
            if (p->i >= p->n || p->s[p->i] != ':')
                return 0;
            p->i++;
            ws(p);
        }
        if (!value(p))
            return 0;
        ws(p);
        if (p->i >= p->n)
            return 0;
        if (p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->s[p->i] == (unsigned char)close) {
            p->i++;
            p->depth--;
            return 1;
        }
        return 0;
    }
}

static int value(jp *p)
{
    ws(p);
    if (p->i >= p->n)
        return 0;
    switch (p->s[p->i]) {
    case '{': return container(p, '{', '}', 1);
    case '[': return container(p, '[', ']', 0);
    case '"': return string(p);
    case 't': return lit(p, "true");
    case 'f': return lit(p, "false");
    case 'n': return lit(p, "null");
    default: return number(p);
    }
}

int fz_json_valid(const char *s, size_t n)
{
    jp p = {(const unsigned char *)s, n, 0, 0};
    if (!value(&p))
        return 0;
    ws(&p);
    return p.i == n;
}

/* ---- the canonical form compiles to itself ------------------------------- */

alea_expr *fz_roundtrip(alea_ctx *ctx2, const alea_expr *e, char **canon)
{
    /* The printer may add parentheses and spaces the source did not have;
     * the parser's limits are not what this checks. */
    alea_ctx_limit(ctx2, ALEA_LIMIT_SOURCE, alea_limit_max(ALEA_LIMIT_SOURCE));
    alea_ctx_limit(ctx2, ALEA_LIMIT_DEPTH, alea_limit_max(ALEA_LIMIT_DEPTH));
    alea_ctx_limit(ctx2, ALEA_LIMIT_NODES, alea_limit_max(ALEA_LIMIT_NODES));
    size_t n, n2;
    char *text = fz_format(fz_fmt_expr, e, 0, &n, 0x9e3779b97f4a7c15u);
    alea_expr *e2 = (alea_expr *)1;
    alea_status st = alea_expr_compile(ctx2, text, n, &e2);
    FZ_CHECK(st == ALEA_OK, "the canonical form '%s' does not compile: %s: %s", text,
             alea_status_name(st), alea_ctx_error(ctx2));
    fz_check_ok(ctx2);
    char *text2 = fz_format(fz_fmt_expr, e2, 0, &n2, 0x2545f4914f6cdd1du);
    FZ_CHECK(n == n2 && memcmp(text, text2, n) == 0,
             "the canonical form is not stable:\n  once:  %s\n  twice: %s", text, text2);
    free(text2);
    *canon = text;
    return e2;
}

alea_expr *fz_compile(alea_ctx *ctx, fz_heap *h, const uint8_t *data, size_t size)
{
    alea_expr *e = NULL;
    alea_status st = alea_expr_compile(ctx, (const char *)data, size, &e);
    if (st == ALEA_OK)
        return e;
    fz_check_error(ctx, st, size);
    fz_ctx_free(ctx, h);
    return NULL;
}
