/* fairness_test.c -- are these rolls fair? (fairness.c): the p-values
 * against GSL at many points, a million seeded rolls of alea's own roller
 * judged fair, biased streams judged unfair with their direction,
 * chi-squares worked by hand (pooling included), the limits at N and N+1,
 * the errors, and allocation failures. */
#include "fairness.h"
#include "support.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

TEST_HEAP_CONTEXT

static void test_pvalues_against_gsl(void **state)
{
    (void)state;
    static const double dfs[] = {1, 2, 3, 4, 5, 7, 10, 19, 30, 50, 99, 250, 1000, 5000};
    int points = 0;
    for (size_t k = 0; k < sizeof dfs / sizeof dfs[0]; k++)
        for (double r = 0.05; r < 4; r += 0.05) { /* x from far below df to far above */
            double x = r * dfs[k], want = gsl_cdf_chisq_Q(x, dfs[k]);
            double got = alea__chisq_q(x, dfs[k]);
            if (want > 1e-290)
                assert_double_equal(got / want, 1, 1e-9);
            else
                assert_true(got < 1e-280);
            points++;
        }
    assert_true(points > 1000);
    for (double z = -8; z <= 8; z += 0.01)
        assert_double_equal(alea__normal_q2(z) / (2 * gsl_cdf_ugaussian_Q(fabs(z))), 1, 1e-12);
    /* the Kolmogorov distribution's critical values (Smirnov's table) */
    assert_double_equal(alea__kolmogorov_q(1.2238), 0.10, 1e-4);
    assert_double_equal(alea__kolmogorov_q(1.3581), 0.05, 1e-4);
    assert_double_equal(alea__kolmogorov_q(1.6276), 0.01, 1e-4);
    assert_double_equal(alea__kolmogorov_q(1.9495), 0.001, 1e-5);
    assert_double_equal(alea__kolmogorov_q(0.8276), 0.50, 1e-4);
    /* both forms agree where they meet, and the tail is monotone */
    assert_double_equal(alea__kolmogorov_q(1.18 - 1e-12), alea__kolmogorov_q(1.18), 1e-12);
    double last = 1;
    for (double l = 0.01; l < 5; l += 0.01) {
        double q = alea__kolmogorov_q(l);
        assert_true(q <= last + 1e-15 && q >= 0);
        last = q;
    }
    assert_double_equal(alea__kolmogorov_q(0.2), 1, 1e-12);
}

static int64_t rolls_wanted(void)
{
    const char *env = getenv("ALEA_FAIRNESS_ROLLS"); /* smaller under valgrind */
    return env ? atoll(env) : 1000000;
}

static void judge(alea_fairness *f, alea_fairness_result *r)
{
    assert_int_equal(alea_fairness_judge(f, r), ALEA_OK);
}

/* A million rolls of the roller, five expressions, are fair. */
static void test_roller_is_fair(void **state)
{
    (void)state;
    static const char *const exprs[] = {"d20", "4d6kh3", "3d6", "2d10 + 1d4 - 3",
                                        "dd(3, 15, best)"};
    const size_t ne = sizeof exprs / sizeof exprs[0];
    alea_expr *x[5];
    for (size_t i = 0; i < ne; i++)
        x[i] = compile(ctx, exprs[i]);
    alea_fairness *f = alea_fairness_new(ctx, 12345);
    assert_non_null(f);
    alea_ctx_seed(ctx, 2026);
    int64_t n = rolls_wanted();
    for (int64_t k = 0; k < n; k++) {
        size_t i = (size_t)k % ne;
        int64_t t;
        assert_int_equal(alea_expr_sample(ctx, x[i], &t), ALEA_OK);
        assert_int_equal(alea_fairness_add(f, exprs[i], strlen(exprs[i]), t), ALEA_OK);
    }
    alea_fairness_result r;
    judge(f, &r);
    assert_int_equal(r.rolls, n);
    assert_int_equal(r.refused, 0);
    assert_int_equal(r.ntests, 2 + ne);
    assert_string_equal(r.tests[0].name, "mean");
    assert_string_equal(r.tests[1].name, "ks");
    assert_string_equal(r.tests[2].name, "chi-square");
    assert_string_equal(r.tests[2].expression, "d20");
    assert_int_equal(r.tests[2].df, 19);
    for (size_t i = 0; i < r.ntests; i++)
        assert_true(r.tests[i].p_adjusted >= ALEA_FAIRNESS_ALPHA);
    assert_int_equal(r.verdict, ALEA_FAIRNESS_FAIR);
    assert_string_equal(r.text, "consistent with fair dice");
    alea_fairness_free(f);
    for (size_t i = 0; i < ne; i++)
        alea_expr_free(x[i]);
}

/* A d20 that never shows 20 is caught, low. */
static void test_d20_without_20(void **state)
{
    (void)state;
    alea_fairness *f = alea_fairness_new(ctx, 1);
    for (int k = 0; k < 5000; k++)
        assert_int_equal(alea_fairness_add(f, "d20", 3, 1 + k % 19), ALEA_OK);
    alea_fairness_result r;
    judge(f, &r);
    assert_int_equal(r.verdict, ALEA_FAIRNESS_UNFAIR);
    assert_int_equal(r.direction, -1);
    assert_int_equal(r.tests[0].direction, -1);
    assert_true(r.tests[2].p < 1e-20); /* 250 twenties expected, none seen */
    assert_non_null(strstr(r.text, "these rolls are lower than fair dice give: p = "));
    alea_fairness_free(f);
}

/* 3d6 rolling only 3 to 9 is low; only 12 to 18 high. */
static void test_3d6_low_and_high(void **state)
{
    (void)state;
    alea_fairness *lo = alea_fairness_new(ctx, 5), *hi = alea_fairness_new(ctx, 5);
    for (int k = 0; k < 200; k++) {
        assert_int_equal(alea_fairness_add(lo, "3d6", 3, 3 + k % 7), ALEA_OK);
        assert_int_equal(alea_fairness_add(hi, "3d6", 3, 12 + k % 7), ALEA_OK);
    }
    alea_fairness_result r;
    judge(lo, &r);
    assert_int_equal(r.verdict, ALEA_FAIRNESS_UNFAIR);
    assert_int_equal(r.direction, -1);
    judge(hi, &r);
    assert_int_equal(r.verdict, ALEA_FAIRNESS_UNFAIR);
    assert_int_equal(r.direction, 1);
    assert_non_null(strstr(r.text, "higher"));
    alea_fairness_free(lo);
    alea_fairness_free(hi);
}

/* Too many extremes, the mean right: the spread gives it away. */
static void test_spread(void **state)
{
    (void)state;
    alea_fairness *f = alea_fairness_new(ctx, 9);
    for (int k = 0; k < 3000; k++)
        assert_int_equal(alea_fairness_add(f, "d100", 4, k % 2 ? 1 + k % 10 : 91 + k % 10),
                         ALEA_OK);
    alea_fairness_result r;
    judge(f, &r);
    assert_int_equal(r.verdict, ALEA_FAIRNESS_UNFAIR);
    assert_true(r.tests[0].p_adjusted > ALEA_FAIRNESS_ALPHA); /* the mean is 1/2 */
    assert_true(r.tests[1].p < 1e-10);
    assert_int_equal(r.direction, 0);
    alea_fairness_free(f);
}

static const alea_fairness_test *chi_of(const alea_fairness_result *r, const char *expr)
{
    for (size_t i = 0; i < r->ntests; i++)
        if (r->tests[i].expression && !strcmp(r->tests[i].expression, expr))
            return &r->tests[i];
    return NULL;
}

/*
 * By hand. d6 rolled 60 times, counts 20, 8, 8, 8, 8, 8 against 10 each:
 * (10^2 + 5 * 2^2) / 10 = 12, 5 degrees of freedom.
 * 2d6 rolled 36 times expects 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1: pooled from
 * the low end, 2..4 (6), 5..6 (9), 7 (6), 8 (5), 9..10 (7) and 11..12 (3),
 * too short, into the cell before: 9..12 (10). Observed 6, 9, 10, 5, 6:
 * 4^2 / 6 + 4^2 / 10 = 64/15, 4 degrees of freedom.
 */
static void test_chi_square_by_hand(void **state)
{
    (void)state;
    alea_fairness *f = alea_fairness_new(ctx, 3);
    static const int d6[] = {20, 8, 8, 8, 8, 8};
    for (int v = 1; v <= 6; v++)
        for (int k = 0; k < d6[v - 1]; k++)
            assert_int_equal(alea_fairness_add(f, "d6", 2, v), ALEA_OK);
    static const int two[] = {1, 2, 3, 4, 5, 10, 5, 3, 1, 1, 1}; /* 2 .. 12 */
    for (int v = 2; v <= 12; v++)
        for (int k = 0; k < two[v - 2]; k++)
            assert_int_equal(alea_fairness_add(f, "2d6", 3, v), ALEA_OK);
    alea_fairness_result r;
    judge(f, &r);
    assert_int_equal(r.rolls, 96);
    const alea_fairness_test *t = chi_of(&r, "d6");
    assert_non_null(t);
    assert_double_equal(t->statistic, 12, 1e-12);
    assert_int_equal(t->df, 5);
    assert_double_equal(t->p, gsl_cdf_chisq_Q(12, 5), 1e-12);
    assert_string_equal(t->pooled, "");
    assert_int_equal(t->rolls, 60);
    t = chi_of(&r, "2d6");
    assert_non_null(t);
    assert_double_equal(t->statistic, 64.0 / 15, 1e-12);
    assert_int_equal(t->df, 4);
    assert_int_equal(t->outcomes, 11);
    assert_string_equal(t->pooled, "2..4, 5..6, 9..12");
    /* Holm: 4 tests, the smallest p times 4, the next times 3, ... */
    assert_int_equal(r.ntests, 4);
    double ps[4];
    for (size_t i = 0; i < 4; i++)
        ps[i] = r.tests[i].p;
    size_t lo = 0;
    for (size_t i = 1; i < 4; i++)
        if (ps[i] < ps[lo])
            lo = i;
    assert_double_equal(r.tests[lo].p_adjusted, fmin(1, 4 * ps[lo]), 1e-15);
    assert_double_equal(r.p, r.tests[lo].p_adjusted, 0);
    alea_fairness_free(f);
}

/* Too few rolls for a cell pair: no chi-square; too few for any test. */
static void test_too_few(void **state)
{
    (void)state;
    alea_fairness *f = alea_fairness_new(ctx, 3);
    alea_fairness_result r;
    for (int k = 0; k < ALEA_FAIRNESS_MIN_ROLLS - 1; k++)
        assert_int_equal(alea_fairness_add(f, "d20", 3, 1 + 2 * k), ALEA_OK);
    judge(f, &r);
    assert_int_equal(r.verdict, ALEA_FAIRNESS_TOO_FEW);
    assert_int_equal(r.ntests, 0);
    assert_double_equal(r.p, 1, 0);
    assert_string_equal(r.text, "too few rolls to judge (9; the tests need 10)");
    assert_int_equal(alea_fairness_add(f, "d20", 3, 19), ALEA_OK);
    judge(f, &r);
    assert_true(r.ntests >= 2); /* mean and ks; the chi-square has two cells at most */
    assert_int_equal(r.verdict, ALEA_FAIRNESS_FAIR);
    alea_fairness_free(f);
}

static void test_errors(void **state)
{
    (void)state;
    alea_fairness *f = alea_fairness_new(ctx, 3);
    size_t a, b;
    assert_int_equal(alea_fairness_add(f, "d20", 3, 21), ALEA_ERR_DOMAIN);
    assert_string_equal(alea_ctx_error(ctx), "'d20' cannot total 21 (its totals run from 1 to 20)");
    assert_int_equal(alea_ctx_error_span(ctx, &a, &b), ALEA_ERR_DOMAIN);
    assert_int_equal(a, 0);
    assert_int_equal(b, 3);
    assert_int_equal(alea_fairness_add(f, "2d6", 3, 1), ALEA_ERR_DOMAIN);
    assert_int_equal(alea_fairness_add(f, "d20 +", 5, 3), ALEA_ERR_SYNTAX);
    alea_ctx_error_span(ctx, &a, &b);
    assert_true(a >= 3 && b <= 5);
    assert_int_equal(alea_fairness_add(f, "d20", 3, 20), ALEA_OK);
    assert_string_equal(alea_ctx_error(ctx), "");
    assert_int_equal(alea_fairness_add(NULL, "d20", 3, 20), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_fairness_add(f, NULL, 0, 20), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_fairness_judge(f, NULL), ALEA_ERR_ARGUMENT);
    /* a repeat's rolls: all or none */
    static const int64_t good[] = {1, 6, 3}, bad[] = {1, 7, 3};
    assert_int_equal(alea_fairness_add_rolls(f, "3 x d6", 6, bad, 3), ALEA_ERR_DOMAIN);
    assert_string_equal(alea_ctx_error(ctx), "'3 x d6' cannot total 7 (its totals run from 1 to 6)");
    assert_int_equal(alea_fairness_rolls(f), 1);
    assert_int_equal(alea_fairness_add_rolls(f, "3 x d6", 6, good, 3), ALEA_OK);
    assert_int_equal(alea_fairness_rolls(f), 4);
    assert_int_equal(alea_fairness_add_rolls(f, "3 x d6", 6, good, 0), ALEA_OK);
    assert_int_equal(alea_fairness_add_rolls(f, "3 x d6", 6, NULL, 2), ALEA_ERR_ARGUMENT);
    alea_fairness_result r;
    judge(f, &r);
    assert_int_equal(r.rolls, 4);
    assert_int_equal(r.refused, 6);
    /* the work limit: the hash charges a unit a byte */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 10);
    assert_int_equal(alea_fairness_add(f, "d20", 3, 20), ALEA_ERR_LIMIT);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
    alea_fairness_free(f);
    alea_fairness_free(NULL);
}

/* The distinct expressions limit at N and N+1. */
static void test_expression_limit(void **state)
{
    (void)state;
    alea_fairness *f = alea_fairness_new(ctx, 3);
    assert_int_equal(alea_fairness_limit(f, -1), ALEA_FAIRNESS_EXPRESSIONS);
    assert_int_equal(alea_fairness_limit(f, 3), ALEA_FAIRNESS_EXPRESSIONS);
    assert_int_equal(alea_fairness_add(f, "d4", 2, 1), ALEA_OK);
    assert_int_equal(alea_fairness_add(f, "d6", 2, 1), ALEA_OK);
    assert_int_equal(alea_fairness_add(f, "d8", 2, 1), ALEA_OK);
    assert_int_equal(alea_fairness_add(f, "d10", 3, 1), ALEA_ERR_LIMIT);
    assert_string_equal(alea_ctx_error(ctx),
                        "too many distinct expressions (limit is 3) at 'd10'");
    assert_int_equal(alea_fairness_add(f, "d6", 2, 6), ALEA_OK); /* held ones still count */
    assert_int_equal(alea_fairness_limit(f, 1), 3); /* not below those held */
    assert_int_equal(alea_fairness_limit(f, -1), 3);
    assert_int_equal(alea_fairness_limit(f, INT64_MAX), 3);
    assert_int_equal(alea_fairness_limit(f, -1), ALEA_FAIRNESS_EXPRESSIONS_MAX);
    /* many distinct texts: the table grows and finds each again */
    char text[32];
    for (int k = 0; k < 300; k++) {
        int len = snprintf(text, sizeof text, "d%d", 2 + k);
        assert_int_equal(alea_fairness_add(f, text, (size_t)len, 2), ALEA_OK);
    }
    for (int k = 0; k < 300; k++) {
        int len = snprintf(text, sizeof text, "d%d", 2 + k);
        assert_int_equal(alea_fairness_add(f, text, (size_t)len, 1), ALEA_OK);
    }
    alea_fairness_result r;
    judge(f, &r);
    assert_int_equal(r.rolls, 604);
    alea_fairness_free(f);
}

/* The same seed places the same rolls the same way. */
static void test_reproducible(void **state)
{
    (void)state;
    alea_fairness_result r1, r2;
    double s[2][2];
    for (int j = 0; j < 2; j++) {
        alea_fairness *f = alea_fairness_new(ctx, 77);
        for (int k = 0; k < 100; k++)
            alea_fairness_add(f, "d6", 2, 1 + k % 6);
        judge(f, j ? &r2 : &r1);
        s[j][0] = (j ? r2 : r1).tests[0].statistic;
        s[j][1] = (j ? r2 : r1).tests[1].statistic;
        alea_fairness_free(f);
    }
    assert_double_equal(s[0][0], s[1][0], 0);
    assert_double_equal(s[0][1], s[1][1], 0);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    heap h = {0, 0, 0};
    alea_ctx *c = alea_ctx_new(heap_alloc, &h);
    assert_non_null(c);
    long live = h.live;
    int failures = 0;
    for (long n = 1;; n++) {
        h.count = 0;
        h.fail_at = n;
        alea_fairness *f = alea_fairness_new(c, 1);
        alea_status st = f ? ALEA_OK : ALEA_ERR_NOMEM;
        for (int k = 0; st == ALEA_OK && k < 40; k++)
            st = alea_fairness_add(f, k % 2 ? "d6" : "3d6", k % 2 ? 2 : 3, 3 + k % 4);
        alea_fairness_result r;
        if (st == ALEA_OK)
            st = alea_fairness_judge(f, &r);
        alea_fairness_free(f);
        h.fail_at = 0;
        assert_int_equal(h.live, live);
        if (st == ALEA_OK)
            break;
        assert_int_equal(st, ALEA_ERR_NOMEM);
        failures++;
    }
    assert_true(failures >= 5);
    alea_ctx_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pvalues_against_gsl),
        cmocka_unit_test_setup_teardown(test_roller_is_fair, setup, teardown),
        cmocka_unit_test_setup_teardown(test_d20_without_20, setup, teardown),
        cmocka_unit_test_setup_teardown(test_3d6_low_and_high, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chi_square_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_few, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expression_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reproducible, setup, teardown),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
