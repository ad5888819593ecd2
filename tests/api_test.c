/* api_test.c -- what the public API gives front ends so that they do not
 * recompute it: both cumulative columns of a distribution at once, a random
 * seed drawn from a context, the work an evaluation was charged, and one
 * probability formatted as the JSON formats it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <alea.h>

static alea_dist *dist_of(alea_ctx *ctx, const char *src)
{
    alea_expr *e = NULL;
    alea_dist *d = NULL;
    assert_int_equal(alea_expr_compile(ctx, src, strlen(src), &e), ALEA_OK);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    alea_expr_free(e);
    return d;
}

/* alea_dist_cumulate gives, row by row, exactly what alea_dist_at_least and
 * alea_dist_at_most give for the row's value (the same sums, in the same
 * order), for a plain die, a sum and an exploding die. */
static void test_cumulate(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    static const char *const src[] = {"1d6", "3d6", "1d6!", "4d6kh3 - 10"};
    for (size_t k = 0; k < sizeof src / sizeof src[0]; k++) {
        alea_dist *d = dist_of(ctx, src[k]);
        size_t n = alea_dist_count(d);
        double *least = malloc(n * sizeof *least), *most = malloc(n * sizeof *most);
        assert_non_null(least);
        assert_non_null(most);
        alea_dist_cumulate(d, least, most);
        for (size_t i = 0; i < n; i++) {
            int64_t v = alea_dist_value(d, i);
            assert_true(least[i] == alea_dist_at_least(d, v));
            assert_true(most[i] == alea_dist_at_most(d, v));
        }
        assert_true(most[n - 1] < 1 + 1e-12 && least[0] < 1 + 1e-12 && most[n - 1] > 0.999);
        free(least);
        free(most);
        alea_dist_free(d);
    }
    alea_dist_cumulate(NULL, NULL, NULL); /* nothing to do */
    alea_ctx_free(ctx);
}

/* alea_ctx_random: the same seed draws the same bits, the next draw others,
 * and drawing moves the generator as a roll would see it. */
static void test_random(void **state)
{
    (void)state;
    alea_ctx *a = alea_ctx_new(NULL, NULL), *b = alea_ctx_new(NULL, NULL);
    alea_ctx_seed(a, 7);
    alea_ctx_seed(b, 7);
    uint64_t x = alea_ctx_random(a);
    assert_true(x == alea_ctx_random(b));
    assert_true(alea_ctx_random(a) != x);
    assert_true(alea_ctx_random(NULL) == 0);
    alea_ctx_free(a);
    alea_ctx_free(b);
}

/* alea_ctx_work: what the last evaluation was charged, against the limit. */
static void test_work(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_dist *d = dist_of(ctx, "100d6kh50");
    int64_t w = alea_ctx_work(ctx);
    assert_true(w > 1000 && w <= alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1));
    alea_dist_free(d);
    /* the same limit just under it refuses it */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, w - 1);
    alea_expr *e = NULL;
    assert_int_equal(alea_expr_compile(ctx, "100d6kh50", 9, &e), ALEA_OK);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, w);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    alea_dist_free(d);
    alea_expr_free(e);
    assert_true(alea_ctx_work(NULL) == 0);
    alea_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cumulate),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
