/*
 * agree_test.c -- the roller agrees with the exact engine.
 *
 * For every expression of the corpus, 100,000 seeded rolls are binned and a
 * chi-square goodness-of-fit test is run against the exact distribution
 * (bins with an expected count below 5 are merged with their neighbours; a
 * rolled value the exact engine says is impossible fails at once). The
 * rolls are seeded, so the test never flakes: a pass stays a pass until the
 * roller or the engine changes. A wrong distribution fails it with a
 * p-value near 0; the threshold is 1e-4.
 */
#include <gsl/gsl_cdf.h>

#include "support.h"

#define ROLLS 100000
#define P_MIN 1e-4

static const char *const corpus[] = {
    /* plain dice and arithmetic */
    "1d20", "3d6", "2d6 + 3", "1d6 - 1d6", "4dF", "d%", "d{1,1,2,3}", "d{-1..1} * 5",
    "1d4 * 1d4", "1d20 / 3", "1d20 /^ 3", "1d20 /~ 3", "-2d4 + 10", "(1d4)d6",
    "(1d3 - 1)d10", "1d100 + 1d1000",
    /* keep and drop */
    "4d6kh3", "2d20kh1", "2d20kl1", "4d6dl1dh1", "5d10kh3", "3d4kh2kl1", "(1d4)d6kl2",
    "10d6kh5", "6d8dh2", "4d{1,2,2,9}kh2",
    /* explode and reroll */
    "3d6!", "1d6!!", "1d6!p", "2d10!>=9", "1d6!<2", "4d6!kh3", "1d6r1", "1d6ro1",
    "2d8r<3", "1d10ro<=2!", "3d6!!kl2",
    /* success counting */
    "10d10>=8", "10d10>=8f1", "5d10!10>=8", "6d6=6", "4d6<3f6", "8d6!!6>=10",
    /* comparisons and functions */
    "(1d20 + 5) >= 15", "1d6 + 1 > 1d6", "(2d6) = 7", "max(1d6, 1d8)", "min(2d6, 1d12)",
    "abs(1d6 - 1d6)", "best(2, 2d6 + 3)", "worst(3, 1d20)", "best(3, 1d6!)",
    /* the seed mechanics */
    "d20 +1d", "d20 -2d", "2d6 + 3 +1d", "d20 + 5 -1d", "d20 +expert", "2d10 +2B",
    "2d10 +3B -1B", "2d10 +7B -2B", "d0 +1B", "d0 -1B + 1d4", "2d6 +1 DICE", "2d6 -2 DICE",
    "2d6 +1 INJURY DICE", "tier(d8, +2)", "downgrade(d12 + d14 + d18 + d20, 2)",
    "event(d4)", "event(2d2)", "event(d6 + d8)", "event(3d4 + 3d6 + d18)",
    "event(d12 + d14 + d18 + d20)", "event(3d4 + 3d6 + d18, largest)", "event(5d12)",
    "dd(6, 14)", "dd(6, 14, always)", "dd(6, 14, onfail)", "dd(6, 14, best)",
    "dd(0, 22, best)", "dd(stars(5, 3, 5, 5), 10, always)",
    "d20ra1 +1d", "d20ra1 -1d", "d20ra1", "4d6ra<3kh3", "3d6ra<=2", "2d6ra1kl1",
};

typedef struct bin {
    double expected;
    long observed;
} bin;

static void check_one(alea_ctx *ctx, const char *src, uint64_t seed)
{
    alea_expr *e = compile(ctx, src);
    alea_dist *d = NULL;
    if (alea_expr_dist(ctx, e, &d) != ALEA_OK)
        fail_msg("'%s' dist: %s", src, alea_ctx_error(ctx));
    size_t n = alea_dist_count(d);
    long *obs = calloc(n + 1, sizeof *obs); /* obs[n]: beyond the computed tail */
    assert_non_null(obs);
    alea_ctx_seed(ctx, seed);
    for (long i = 0; i < ROLLS; i++) {
        int64_t t;
        if (alea_expr_sample(ctx, e, &t) != ALEA_OK)
            fail_msg("'%s' roll: %s", src, alea_ctx_error(ctx));
        /* binary search for t among the outcomes */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (alea_dist_value(d, mid) < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && alea_dist_value(d, lo) == t)
            obs[lo]++;
        else if (alea_dist_truncated(d) > 0)
            obs[n]++;
        else
            fail_msg("'%s' rolled %lld, which the exact engine calls impossible", src,
                     (long long)t);
    }
    /* Merge adjacent outcomes until each bin expects at least 5. */
    bin *bins = calloc(n + 1, sizeof *bins);
    assert_non_null(bins);
    size_t nb = 0;
    bin cur = {0, 0};
    for (size_t i = 0; i <= n; i++) {
        cur.expected += ROLLS * (i < n ? alea_dist_prob(d, i) : alea_dist_truncated(d));
        cur.observed += obs[i];
        if (cur.expected >= 5) {
            bins[nb++] = cur;
            cur.expected = 0;
            cur.observed = 0;
        }
    }
    if (nb > 0) {
        bins[nb - 1].expected += cur.expected;
        bins[nb - 1].observed += cur.observed;
    }
    if (nb >= 2) {
        double chi2 = 0;
        for (size_t i = 0; i < nb; i++) {
            double diff = (double)bins[i].observed - bins[i].expected;
            chi2 += diff * diff / bins[i].expected;
        }
        double p = gsl_cdf_chisq_Q(chi2, (double)(nb - 1));
        if (p < P_MIN)
            fail_msg("'%s': chi-square %.2f with %zu bins, p = %.3g", src, chi2, nb - 1, p);
    } else {
        /* A constant: every roll must be that value. */
        assert_int_equal(n, 1);
        assert_int_equal(obs[0], ROLLS);
    }
    free(bins);
    free(obs);
    alea_dist_free(d);
    alea_expr_free(e);
}

static void test_roller_agrees_with_exact(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    assert_non_null(ctx);
    assert_true(sizeof corpus / sizeof corpus[0] >= 40);
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++)
        check_one(ctx, corpus[i], 1000 + i);
    alea_ctx_free(ctx);
}

/* The test can fail: a distribution that is slightly off is caught. */
static void test_detects_a_wrong_distribution(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *fair = NULL, *biased = NULL;
    alea_dist *d = NULL;
    assert_int_equal(alea_expr_compile(ctx, "1d6", 3, &fair), ALEA_OK);
    assert_int_equal(alea_expr_compile(ctx, "d{1,2,3,4,5,6,6,1,2,3,4,5,6,6,1,2,3,4,5}", 40,
                                       &biased),
                     ALEA_OK);
    assert_int_equal(alea_expr_dist(ctx, fair, &d), ALEA_OK);
    double chi2 = 0;
    long obs[7] = {0};
    alea_ctx_seed(ctx, 1);
    for (long i = 0; i < ROLLS; i++) {
        int64_t t;
        assert_int_equal(alea_expr_sample(ctx, biased, &t), ALEA_OK);
        obs[t]++;
    }
    for (int v = 1; v <= 6; v++) {
        double ex = ROLLS * alea_dist_p(d, v);
        double diff = (double)obs[v] - ex;
        chi2 += diff * diff / ex;
    }
    assert_true(gsl_cdf_chisq_Q(chi2, 5) < P_MIN);
    alea_dist_free(d);
    alea_expr_free(fair);
    alea_expr_free(biased);
    alea_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roller_agrees_with_exact),
        cmocka_unit_test(test_detects_a_wrong_distribution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
