/* alloc_test.c -- allocation failure sweeps through the public API: for each
 * expression of a corpus that covers every construct, compile, roll and
 * dist run with the 1st, 2nd, 3rd... allocation failing until the call
 * succeeds. Each failure must return ALEA_ERR_NOMEM with the constant
 * message, write no output, leave the context holding what it held before,
 * and the context must still work afterwards; at the end the allocator
 * holds no block (Lua's ltests.c, SQLite's *fault.test). */
#include "support.h"

static const char *const corpus[] = {
    "4d6kh3",
    "1d20 + 5",
    "3d6! + 2d10!!>=8 + 1d6!p",
    "10d10>=8f1 + 4dF + d%",
    "(1d4)d6kl2 + d{1,1,2,3,5,8} * 2",
    "best(3, 2d6 + 3) - worst(2, 1d8) /~ 2 + 7 /^ 3",
    "min(1d6, 1d8) + max(2d4, 1d10) + abs(1d6 - 1d6) + ((3d6) >= 10)",
    "2d6r1 + 3d6ro<2 + 3d6!ra<3kh2 + 1d6 <> 3",
    "d20 +1d [bless] - 1",
    "d20 -2d",
    "2d10 +3B -1B + d0 +1B",
    "2d6 -1 DICE + 2d6 +1 INJURY DICE",
    "event(3d4 + 3d6 + d18) + event(2d2, largest)",
    "tier(d8, +2) + downgrade(d12 + d14 + d18 + d20, 2)",
    "dd(6, 14) + dd(3, 12, always) + dd(stars(3, 2, 1), 14, best)",
    "3d{1,1000,1000000}kh2 + 1d6 * 1000",
    "let a = d20, b = 2d6 in (a >= 10 and not a = 20) * b + (a = 20 or b = 12) * 2 * b",
    "reroll(3d6, 2, >= 12, 1) + reroll(d4 + 2d6, 1, mean)",
    "event(d2 + d3 + d4, >= 9) + event(2d2 + d3, mean)",
};

#define NCORPUS (sizeof corpus / sizeof corpus[0])

/* Runs step() with allocation n failing, for n = 1, 2, ... until it
 * succeeds; returns how many allocations that took. The step must undo
 * what it made when it fails, and return its status. */
typedef alea_status (*step_fn)(alea_ctx *ctx, const char *src, void *arg);

static long sweep(alea_ctx *ctx, heap *h, const char *what, const char *src, step_fn step,
                  void *arg)
{
    size_t base = alea_ctx_memory(ctx, NULL);
    long live = h->live;
    for (long n = 1; n < 1000000; n++) {
        heap_fail_at(h, n);
        alea_status st = step(ctx, src, arg);
        heap_fail_at(h, 0);
        if (st == ALEA_OK)
            return n;
        if (st != ALEA_ERR_NOMEM)
            fail_msg("%s '%s', allocation %ld failing: %s (%s)", what, src, n,
                     alea_status_name(st), alea_ctx_error(ctx));
        if (strcmp(alea_ctx_error(ctx), "out of memory") != 0)
            fail_msg("%s '%s': message '%s'", what, src, alea_ctx_error(ctx));
        if (alea_ctx_memory(ctx, NULL) != base || h->live != live)
            fail_msg("%s '%s', allocation %ld failing: %zu bytes and %ld blocks left, "
                     "want %zu and %ld",
                     what, src, n, alea_ctx_memory(ctx, NULL), h->live, base, live);
    }
    fail_msg("%s '%s' never succeeded", what, src);
    return 0;
}

static alea_status step_compile(alea_ctx *ctx, const char *src, void *arg)
{
    (void)arg;
    alea_expr *const unset = (alea_expr *)&arg;
    alea_expr *e = unset;
    alea_status st = alea_expr_compile(ctx, src, strlen(src), &e);
    if (st != ALEA_OK && e != unset)
        fail_msg("compile '%s' wrote its output on failure", src);
    alea_expr_free(st == ALEA_OK ? e : NULL);
    return st;
}

/* A new roll object and one seeded roll: a fresh object grows its buffers
 * during the roll, so both are swept. */
static alea_status step_roll(alea_ctx *ctx, const char *src, void *arg)
{
    (void)src;
    const alea_expr *e = arg;
    alea_roll *r = alea_roll_new(ctx);
    if (!r) /* its status is in the context */
        return alea_ctx_error_span(ctx, NULL, NULL);
    alea_ctx_seed(ctx, 7);
    alea_status st = alea_expr_roll(ctx, e, r);
    if (st != ALEA_OK && alea_roll_format(r, ALEA_FORMAT_TEXT, NULL, 0) != 0)
        fail_msg("a failed roll of '%s' holds a result", src);
    alea_roll_free(r);
    return st;
}

static alea_status step_dist(alea_ctx *ctx, const char *src, void *arg)
{
    const alea_expr *e = arg;
    alea_dist *const unset = (alea_dist *)&arg;
    alea_dist *d = unset;
    alea_status st = alea_expr_dist(ctx, e, &d);
    if (st != ALEA_OK && d != unset)
        fail_msg("dist '%s' wrote its output on failure", src);
    if (st == ALEA_OK)
        alea_dist_free(d);
    return st;
}

static void test_sweeps(void **state)
{
    (void)state;
    heap h = {0, 0, 0};
    alea_ctx *ctx = alea_ctx_new(heap_alloc, &h);
    assert_non_null(ctx);
    long total = 0;
    for (size_t i = 0; i < NCORPUS; i++) {
        const char *src = corpus[i];
        total += sweep(ctx, &h, "compile", src, step_compile, NULL);
        alea_expr *e = NULL;
        assert_int_equal(alea_expr_compile(ctx, src, strlen(src), &e), ALEA_OK);
        total += sweep(ctx, &h, "roll", src, step_roll, e);
        total += sweep(ctx, &h, "dist", src, step_dist, e);
        /* The context still works: the same roll as in a fresh one. */
        alea_roll *r = alea_roll_new(ctx);
        assert_non_null(r);
        alea_ctx_seed(ctx, 7);
        assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
        alea_roll_free(r);
        alea_expr_free(e);
    }
    print_message("%ld allocations failed in turn\n", total);
    /* Every step allocates: the sweeps failed hundreds of allocations. */
    assert_true(total > 3 * (long)NCORPUS);
    alea_ctx_free(ctx);
    assert_int_equal(h.live, 0);
}

/* Keeps in fractions (the kept sum in integers over one denominator,
 * frac_keep.c), its arrays each failing in turn; exploding dice cut at a
 * short tail so that the sweep stays short. */
static void test_exact_keep_sweeps(void **state)
{
    (void)state;
    heap h = {0, 0, 0};
    alea_ctx *ctx = alea_ctx_new(heap_alloc, &h);
    assert_non_null(ctx);
    if (alea_ctx_set_exact(ctx, 1) != ALEA_OK) { /* a build without GMP */
        alea_ctx_free(ctx);
        skip();
    }
    assert_int_equal(alea_ctx_set_tail(ctx, 1e-3), ALEA_OK);
    static const char *const srcs[] = {"4d6kh3", "3d6!kh2", "5d4!kl2", "4d{-3,0,0,7}kh2"};
    long total = 0;
    for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
        alea_expr *e = NULL;
        assert_int_equal(alea_expr_compile(ctx, srcs[i], strlen(srcs[i]), &e), ALEA_OK);
        total += sweep(ctx, &h, "exact dist", srcs[i], step_dist, e);
        alea_expr_free(e);
    }
    assert_true(total > 20);
    alea_ctx_free(ctx);
    assert_int_equal(h.live, 0);
}

/* alea_ctx_new itself: a failed allocation gives NULL and leaks nothing. */
static void test_ctx_new(void **state)
{
    (void)state;
    heap h = {0, 0, 0};
    for (long n = 1;; n++) {
        heap_fail_at(&h, n);
        alea_ctx *ctx = alea_ctx_new(heap_alloc, &h);
        heap_fail_at(&h, 0);
        if (ctx) {
            alea_ctx_free(ctx);
            break;
        }
        assert_int_equal(h.live, 0);
    }
    assert_int_equal(h.live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweeps),
        cmocka_unit_test(test_exact_keep_sweeps),
        cmocka_unit_test(test_ctx_new),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
