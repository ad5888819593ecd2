/*
 * support.h -- what the tests share, so that no test file carries its own
 * copy: the allocator hook with fault injection, a double comparison for
 * cmocka, compiling and computing with a failure message, a roll's text in
 * a malloc'd string, an odometer for brute-force enumeration, distributions
 * built by hand, an interrupt hook that stops at once, and the reader of
 * the golden files (tests/lang/NAME.test, format in tests/lang_runner.c).
 *
 * Header-only: every function is static inline, so a test that uses few of
 * them compiles without warnings. The pmf helpers need the internal header:
 * include "pmf.h" before this file to have them.
 */
#ifndef ALEA_TEST_SUPPORT_H
#define ALEA_TEST_SUPPORT_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <alea.h>

/* ---- the allocator hook ---------------------------------------------------- */

/* Counts the blocks it holds (live) and the requests for new memory
 * (count), and fails request number fail_at (0: never). One per context:
 * threads each have their own. */
typedef struct heap {
    long live, count, fail_at;
} heap;

static inline void *heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    heap *h = ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr)
            h->live--;
        free(ptr);
        return NULL;
    }
    if (h->fail_at && ++h->count == h->fail_at)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p && !ptr)
        h->live++;
    return p;
}

/*
 * The fixture most unit tests use: a context ctx on the counting heap fa,
 * made before each test and freed after it (cmocka's setup and teardown).
 * TEST_CONTEXT(NULL, NULL) gives one on the C library's allocator instead.
 */
#define TEST_CONTEXT(hook, ud)                                                             \
    static heap fa;                                                                      \
    static alea_ctx *ctx;                                                                \
    static int setup(void **state)                                                       \
    {                                                                                    \
        (void)state;                                                                     \
        (void)&fa; /* used by the heap hook only */                                     \
        memset(&fa, 0, sizeof fa);                                                       \
        ctx = alea_ctx_new(hook, ud);                                                    \
        return ctx ? 0 : -1;                                                             \
    }                                                                                    \
    static int teardown(void **state)                                                    \
    {                                                                                    \
        (void)state;                                                                     \
        alea_ctx_free(ctx);                                                              \
        return 0;                                                                        \
    }
#define TEST_HEAP_CONTEXT TEST_CONTEXT(heap_alloc, &fa)

/* Arms the hook to fail its n-th request from now (0: never). */
static inline void heap_fail_at(heap *h, long n)
{
    h->count = 0;
    h->fail_at = n;
}

/* ---- assertions ------------------------------------------------------------ */

/* |a - b| <= eps, with the values in the failure message (cmocka 1.1 has
 * no assert_double_equal; a later one's is replaced, so that every build
 * checks the same thing). */
#undef assert_double_equal
#define assert_double_equal(a, b, eps) near_((a), (b), (eps), #a, __FILE__, __LINE__)
static inline void near_(double a, double b, double eps, const char *what, const char *file,
                         int line)
{
    if (!(fabs(a - b) <= eps))
        fail_msg("%s:%d: %s = %.17g, want %.17g (+-%g)", file, line, what, a, b, eps);
}

/* ---- compiling, computing, formatting -------------------------------------- */

/* The number systems a check runs in: doubles (0), and exact fractions (1)
 * in a build with GMP.  for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) */
#ifdef ALEA_HAVE_GMP
#define NUMBER_SYSTEMS 2
#else
#define NUMBER_SYSTEMS 1
#endif

/* src compiled, or the test fails with the context's message. */
static inline alea_expr *compile(alea_ctx *ctx, const char *src)
{
    alea_expr *e = NULL;
    if (alea_expr_compile(ctx, src, strlen(src), &e) != ALEA_OK)
        fail_msg("'%s' does not compile: %s", src, alea_ctx_error(ctx));
    return e;
}

/* The distribution of src, or the test fails with the context's message. */
static inline alea_dist *dist_of(alea_ctx *ctx, const char *src)
{
    alea_expr *e = compile(ctx, src);
    alea_dist *d = NULL;
    if (alea_expr_dist(ctx, e, &d) != ALEA_OK)
        fail_msg("dist '%s': %s", src, alea_ctx_error(ctx));
    alea_expr_free(e);
    return d;
}

/* What every computed distribution satisfies: ascending values, positive
 * probabilities, and the mass plus the truncated tail make 1. */
static inline void dist_check(const alea_dist *d)
{
    double mass = 0;
    for (size_t i = 0; i < alea_dist_count(d); i++) {
        assert_true(alea_dist_prob(d, i) > 0);
        if (i)
            assert_true(alea_dist_value(d, i - 1) < alea_dist_value(d, i));
        mass += alea_dist_prob(d, i);
    }
    assert_double_equal(mass + alea_dist_truncated(d), 1, 1e-12);
}

/* The roll formatted in a new string, to free. */
static inline char *roll_text(const alea_roll *r, alea_format f)
{
    size_t n = alea_roll_format(r, f, NULL, 0);
    char *s = malloc(n + 1);
    assert_non_null(s);
    alea_roll_format(r, f, s, n + 1);
    return s;
}

/* An interrupt hook that says stop at once; counts its calls in *(int *)ud
 * when ud is not NULL. */
static inline int interrupt_now(void *ud)
{
    if (ud)
        (*(int *)ud)++;
    return 1;
}

/* ---- the light run under valgrind ------------------------------------------ */

/* ALEA_TEST_LIGHT set and not "0" (scripts/memcheck): a test whose own
 * reference computation is long (an enumeration, a walk) does less of it,
 * every path of the library still taken once, for valgrind looks for
 * memory errors, not for power; the other builds run the full test. */
static inline int test_light(void)
{
    const char *env = getenv("ALEA_TEST_LIGHT");
    return env && *env && strcmp(env, "0") != 0;
}

/* ---- brute-force enumeration ----------------------------------------------- */

/* The next combination of digit[0..n), digit i counting 0..radix[i] - 1,
 * digit 0 fastest; 0 when all have wrapped back to 0 (the end). Start from
 * all zeros:  do { ... } while (odometer_next(d, radix, n));  */
static inline int odometer_next(int *digit, const int *radix, int n)
{
    int i = 0;
    while (i < n && ++digit[i] == radix[i])
        digit[i++] = 0;
    return i < n;
}

/* The same with one radix for every digit. */
static inline int odometer_next_base(int *digit, int n, int base)
{
    int i = 0;
    while (i < n && ++digit[i] == base)
        digit[i++] = 0;
    return i < n;
}

static inline int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static inline int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---- distributions built by hand (needs "pmf.h") -------------------------- */

#ifdef ALEA_PMF_H
/* A pmf from values (ascending) and probabilities, taken as given: a
 * deficient die (mass below 1) stays deficient. */
static inline alea__pmf pmf_given(alea_ctx *ctx, size_t n, const int64_t *v, const double *p)
{
    alea__pmf d;
    assert_int_equal(alea__pmf_alloc(ctx, n, &d), ALEA_OK);
    for (size_t i = 0; i < n; i++) {
        d.v[i] = v[i];
        d.p[i] = p[i];
    }
    return d;
}

/* A pmf from values (ascending) and weights, normalised to mass 1. */
static inline alea__pmf pmf_weighted(alea_ctx *ctx, size_t n, const int64_t *v,
                                     const double *w)
{
    alea__pmf d;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += w[i];
    assert_int_equal(alea__pmf_alloc(ctx, n, &d), ALEA_OK);
    for (size_t i = 0; i < n; i++) {
        d.v[i] = v[i];
        d.p[i] = w[i] / s;
    }
    return d;
}

/* A fair die lo..hi. */
static inline alea__pmf pmf_uniform(alea_ctx *ctx, int64_t lo, int64_t hi)
{
    alea__pmf d;
    size_t n = (size_t)(hi - lo + 1);
    assert_int_equal(alea__pmf_alloc(ctx, n, &d), ALEA_OK);
    for (size_t i = 0; i < n; i++) {
        d.v[i] = lo + (int64_t)i;
        d.p[i] = 1.0 / (double)n;
    }
    return d;
}

/* P(v) in d, 0 when v is not an outcome. */
static inline double pmf_p(const alea__pmf *d, int64_t v)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->v[i] == v)
            return d->p[i];
    return 0;
}
#endif

/* ---- golden files ---------------------------------------------------------- */

/* One block of a golden file: lines[0] is the command, lines[1..n) what it
 * expects; line is the command's line number in file. */
typedef struct golden_block {
    const char *file;
    int line;
    char **lines;
    int n;
} golden_block;

typedef void (*golden_fn)(const golden_block *b, void *ud);

#define GOLDEN_MAX_LINES 256 /* lines kept per block; more are ignored */
#define GOLDEN_LINE 70000    /* bytes per line, the newline included */

/* Calls fn for each block of the file at path: blocks are separated by
 * blank lines, and a line starting with '#' is a comment. Returns -1 when
 * the file cannot be read, else 0. */
static inline int golden_read(const char *path, golden_fn fn, void *ud)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    static char buf[GOLDEN_LINE];
    char *lines[GOLDEN_MAX_LINES];
    int n = 0, lineno = 0, line0 = 0, ok = 0;
    for (;;) {
        char *got = fgets(buf, sizeof buf, f);
        if (got) {
            lineno++;
            buf[strcspn(buf, "\n")] = '\0';
            if (buf[0] == '#')
                continue;
        }
        if (!got || buf[0] == '\0') {
            if (n > 0) {
                golden_block b = {path, line0, lines, n};
                fn(&b, ud);
            }
            for (int i = 0; i < n; i++)
                free(lines[i]);
            n = 0;
            if (!got)
                break;
            continue;
        }
        if (n == 0)
            line0 = lineno;
        if (n < GOLDEN_MAX_LINES) {
            size_t len = strlen(buf) + 1;
            lines[n] = malloc(len);
            if (!lines[n]) {
                ok = -1;
                break;
            }
            memcpy(lines[n++], buf, len);
        }
    }
    for (int i = 0; i < n; i++) /* left by a failed malloc */
        free(lines[i]);
    fclose(f);
    return ok;
}

#endif
