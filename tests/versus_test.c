/* versus_test.c -- the distances between two distributions (versus.c,
 * fractions/frac_versus.c): cases worked by hand, the same numbers as a
 * walk over every pair, identical and swapped distributions, exact
 * fractions, and the errors. */
#include "dist.h"
#include "fractions/frac.h"
#include "out.h"
#include "support.h"

#define EPS 1e-15

static alea_versus versus_of(alea_ctx *ctx, const char *a, const char *b)
{
    alea_dist *da = dist_of(ctx, a), *db = dist_of(ctx, b);
    alea_versus v;
    assert_int_equal(alea_dist_versus(ctx, da, db, &v), ALEA_OK);
    alea_dist_free(da);
    alea_dist_free(db);
    return v;
}

static void assert_versus_near(alea_versus v, double gt, double eq, double lt, double tv,
                               double ks, double emd, double eps)
{
    assert_double_equal(v.p_greater, gt, eps);
    assert_double_equal(v.p_equal, eq, eps);
    assert_double_equal(v.p_less, lt, eps);
    assert_double_equal(v.tv, tv, eps);
    assert_double_equal(v.ks, ks, eps);
    assert_double_equal(v.emd, emd, 4 * fabs(emd) * eps + eps);
}

static void assert_versus(alea_versus v, double gt, double eq, double lt, double tv, double ks,
                          double emd)
{
    assert_versus_near(v, gt, eq, lt, tv, ks, emd, EPS);
}

/*
 * By hand. d2 (A) against d3 (B): the six pairs (a, b), 1/6 each:
 *   (2,1) A > B;  (1,1) (2,2) A = B;  (1,2) (1,3) (2,3) A < B
 * so P(A > B) = 1/6, P(A = B) = 2/6 = 1/3, P(A < B) = 3/6 = 1/2.
 *   value     1    2    3
 *   P(A = v)  1/2  1/2  0      |difference| 1/6 1/6 1/3: TV = (2/3)/2 = 1/3
 *   P(A <= v) 1/2  1    1
 *   P(B <= v) 1/3  2/3  1      |difference| 1/6 1/3 0:   KS = 1/3,
 *                                                        EMD = 1/6 + 1/3 = 1/2
 * (A never passes B's distribution function: the EMD is the difference of
 * the means, 2 - 3/2.)
 * d20 (A) against d20+5 (B): of the 400 pairs, x - y > 5 for 14 + 13 + ...
 * + 1 = 105 of them (a difference d from 6 to 19 in 20 - d ways), x - y = 5
 * for 15: P(A > B) = 105/400 = 21/80, P(A = B) = 15/400 = 3/80, P(A < B) =
 * 280/400 = 7/10. P(A = v) and P(B = v) differ by 1/20 on 1..5 and 21..25:
 * TV = (10/20)/2 = 1/4; P(A <= v) - P(B <= v) rises by 1/20 from 1 to 5 and
 * stays 5/20 up to 20: KS = 1/4; EMD = 5 (every outcome moved by 5).
 * 1d2*10 (A: 10 or 20) against 0 (B): P(A <= v) - P(B <= v) is -1 on
 * [0, 10) and -1/2 on [10, 20): EMD = 10 + 5 = 15, over a sparse support.
 */
static void test_by_hand(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_versus v = versus_of(ctx, "d2", "d3");
    assert_versus(v, 1.0 / 6, 1.0 / 3, 1.0 / 2, 1.0 / 3, 1.0 / 3, 0.5);
    /* from the dice's exact counts: each the nearest double to its value */
    assert_true(v.p_greater == 1.0 / 6 && v.p_equal == 1.0 / 3 && v.tv == 1.0 / 3 &&
                v.ks == 1.0 / 3);
    assert_versus(versus_of(ctx, "d20", "d20+5"), 21.0 / 80, 3.0 / 80, 7.0 / 10, 0.25, 0.25, 5);
    assert_versus(versus_of(ctx, "1d2*10", "0"), 1, 0, 0, 1, 1, 15);
    /* far apart: the gap between the supports is counted whole */
    assert_versus(versus_of(ctx, "d6 - 1000000", "d6 + 1000000"), 0, 0, 1, 1, 1, 2000000);
    alea_ctx_free(ctx);
}

/* Every pair, for the first three; the distribution functions at every
 * value for the rest: what the merged walk must give. */
static alea_versus brute(const alea_dist *a, const alea_dist *b)
{
    alea_versus v = {0, 0, 0, 0, 0, 0};
    size_t na = alea_dist_count(a), nb = alea_dist_count(b);
    double ma = 0, mb = 0; /* the masses listed, by which both are normalised */
    for (size_t i = 0; i < na; i++)
        ma += alea_dist_prob(a, i);
    for (size_t j = 0; j < nb; j++)
        mb += alea_dist_prob(b, j);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            double p = alea_dist_prob(a, i) * alea_dist_prob(b, j) / (ma * mb);
            int64_t x = alea_dist_value(a, i), y = alea_dist_value(b, j);
            *(x > y ? &v.p_greater : x == y ? &v.p_equal : &v.p_less) += p;
        }
    int64_t lo = alea_dist_value(a, 0) < alea_dist_value(b, 0) ? alea_dist_value(a, 0)
                                                               : alea_dist_value(b, 0);
    int64_t hi = alea_dist_value(a, na - 1) > alea_dist_value(b, nb - 1)
                     ? alea_dist_value(a, na - 1)
                     : alea_dist_value(b, nb - 1);
    for (int64_t x = lo; x <= hi; x++) {
        double d = fabs(alea_dist_at_most(a, x) / ma - alea_dist_at_most(b, x) / mb);
        v.tv += fabs(alea_dist_p(a, x) / ma - alea_dist_p(b, x) / mb) / 2;
        v.ks = d > v.ks ? d : v.ks;
        v.emd += d;
    }
    return v;
}

static void test_against_every_pair(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"2d6", "1d12"}, {"3d4 - 2", "1d8 * 2"}, {"4d6kh3", "3d6"},
        {"2d20kh1", "d20 + 5"}, {"dd(4, 14)", "dd(2, 10)"}, {"d6 - d6", "2d4 - 5"},
        /* no whole counts: in double-double sums */
        {"30d6", "29d6 + 4"}, {"1d6! * 2", "2d6"}};
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        alea_dist *a = dist_of(ctx, pairs[k][0]), *b = dist_of(ctx, pairs[k][1]);
        alea_versus v, w = brute(a, b);
        assert_int_equal(alea_dist_versus(ctx, a, b, &v), ALEA_OK);
        /* (the pairs summed in plain doubles: a few ulps off) */
        assert_versus_near(v, w.p_greater, w.p_equal, w.p_less, w.tv, w.ks, w.emd, 1e-13);
        assert_double_equal(v.p_greater + v.p_equal + v.p_less, 1, 4 * EPS);
        /* swapped: the winners swap, the distances stay */
        alea_versus s;
        assert_int_equal(alea_dist_versus(ctx, b, a, &s), ALEA_OK);
        assert_versus(s, v.p_less, v.p_equal, v.p_greater, v.tv, v.ks, v.emd);
        alea_dist_free(a);
        alea_dist_free(b);
    }
    alea_ctx_free(ctx);
}

/* A distribution against itself: no distance, and as likely to win as to
 * lose, exactly (the same sums in the same order); an exploding die's cut
 * tail is left out of both, as the mean leaves it out. */
static void test_identical(void **state)
{
    (void)state;
    static const char *const src[] = {"3d6", "1d6!", "4d6kh3", "d20 * 1000"};
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    for (size_t k = 0; k < sizeof src / sizeof src[0]; k++) {
        alea_dist *a = dist_of(ctx, src[k]), *b = dist_of(ctx, src[k]);
        alea_versus v;
        assert_int_equal(alea_dist_versus(ctx, a, b, &v), ALEA_OK);
        assert_true(v.p_greater == v.p_less);
        assert_true(v.tv == 0 && v.ks == 0 && v.emd == 0);
        assert_double_equal(v.p_greater + v.p_equal + v.p_less, 1, 4 * EPS);
        /* from two contexts */
        alea_ctx *other = alea_ctx_new(NULL, NULL);
        alea_dist *c = dist_of(other, src[k]);
        alea_versus w;
        assert_int_equal(alea_dist_versus(ctx, a, c, &w), ALEA_OK);
        assert_memory_equal(&v, &w, sizeof v);
        alea_dist_free(c);
        alea_ctx_free(other);
        alea_dist_free(a);
        alea_dist_free(b);
    }
    alea_ctx_free(ctx);
}

static char *fractions_of(alea_ctx *ctx, const char *a, const char *b, alea_versus *v)
{
    alea_dist *da = dist_of(ctx, a), *db = dist_of(ctx, b);
    size_t len = 0;
    assert_int_equal(alea_dist_versus_fractions(ctx, da, db, NULL, 0, &len), ALEA_OK);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    size_t again = 0;
    assert_int_equal(alea_dist_versus_fractions(ctx, da, db, buf, len + 1, &again), ALEA_OK);
    assert_int_equal(again, len);
    assert_int_equal(strlen(buf), len);
    assert_int_equal(alea_dist_versus(ctx, da, db, v), ALEA_OK);
    alea_dist_free(da);
    alea_dist_free(db);
    return buf;
}

/* The same cases in exact mode: the fractions worked by hand, and the
 * doubles the nearest to them. */
static void test_exact(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    if (alea_ctx_set_exact(ctx, 1) != ALEA_OK) { /* a build without GMP */
        alea_ctx_free(ctx);
        skip();
    }
    alea_versus v;
    char *s = fractions_of(ctx, "d2", "d3", &v);
    assert_string_equal(s, "1/6 1/3 1/2 1/3 1/3 1/2");
    assert_true(v.p_greater == 1.0 / 6 && v.p_equal == 1.0 / 3 && v.p_less == 0.5);
    assert_true(v.tv == 1.0 / 3 && v.ks == 1.0 / 3 && v.emd == 0.5);
    free(s);
    s = fractions_of(ctx, "d20", "d20+5", &v);
    assert_string_equal(s, "21/80 3/80 7/10 1/4 1/4 5");
    assert_true(v.p_greater == 21.0 / 80 && v.emd == 5);
    free(s);
    /* 3d6 against itself: P(A = B) = the sum of the squares of its counts
     * (1, 3, 6, 10, 15, 21, 25, 27 twice) over 216^2 = 4332/46656 = 361/3888,
     * and the rest shared: (1 - 361/3888)/2 = 3527/7776 each */
    s = fractions_of(ctx, "3d6", "3d6", &v);
    assert_string_equal(s, "3527/7776 361/3888 3527/7776 0 0 0");
    free(s);
    s = fractions_of(ctx, "1d2*10", "0", &v);
    assert_string_equal(s, "1 0 0 1 1 15");
    free(s);
    /* a cut explosion tail: normalised by the mass listed, so the three
     * chances add up to 1 exactly */
    s = fractions_of(ctx, "1d6!", "1d6+2", &v);
    assert_double_equal(v.p_greater + v.p_equal + v.p_less, 1, EPS);
    free(s);

    /* the snprintf contract: a short buffer holds the start */
    alea_dist *a = dist_of(ctx, "d2"), *b = dist_of(ctx, "d3");
    char small[6];
    size_t len = 0;
    assert_int_equal(alea_dist_versus_fractions(ctx, a, b, small, sizeof small, &len), ALEA_OK);
    assert_int_equal(len, strlen("1/6 1/3 1/2 1/3 1/3 1/2"));
    assert_string_equal(small, "1/6 1");
    /* one exact, one not: doubles only, and no fractions */
    alea_ctx *plain = alea_ctx_new(NULL, NULL);
    alea_dist *c = dist_of(plain, "d3");
    assert_int_equal(alea_dist_versus(ctx, a, c, &v), ALEA_OK);
    assert_double_equal(v.p_greater, 1.0 / 6, EPS);
    assert_int_equal(alea_dist_versus_fractions(ctx, a, c, small, sizeof small, &len),
                     ALEA_ERR_ARGUMENT);
    assert_non_null(strstr(alea_ctx_error(ctx), "must be exact"));
    alea_dist_free(c);
    alea_ctx_free(plain);
    alea_dist_free(a);
    alea_dist_free(b);
    alea_ctx_free(ctx);
}

/* The two walks in fractions, over common denominators (what dice take)
 * and by a gcd per addition (the fallback for denominators with no short
 * common multiple), give the same six fractions; with a cut explosion
 * tail too, which both normalise by the mass listed. */
static void test_both_walks(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"d2", "d3"}, {"4d6kh3", "3d6"}, {"1d6!", "1d6! + 1"}, {"1d(1d12)", "2d6 * 1000"},
        {"dd(3, 12)", "dd(3, 12)"}};
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    if (alea_ctx_set_exact(ctx, 1) != ALEA_OK) {
        alea_ctx_free(ctx);
        skip();
    }
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        alea_dist *a = dist_of(ctx, pairs[k][0]), *b = dist_of(ctx, pairs[k][1]);
        char text[2][512];
        double x[2][6];
        for (int by_gcd = 0; by_gcd < 2; by_gcd++) {
            alea__out o;
            alea__out_init(&o, text[by_gcd], sizeof text[by_gcd]);
            assert_int_equal(alea__frac_versus(ctx, &a->pmf, &b->pmf, x[by_gcd], &o, by_gcd),
                             ALEA_OK);
            assert_true(alea__out_finish(&o) < sizeof text[by_gcd]);
        }
        assert_string_equal(text[0], text[1]);
        assert_memory_equal(x[0], x[1], sizeof x[0]);
        alea_dist_free(a);
        alea_dist_free(b);
    }
    alea_ctx_free(ctx);
}

/* Allocation failures in fractions (the counts over common denominators
 * take an array per side from the context): failing the Nth allocation for
 * N = 1, 2, ... until the call succeeds, each failure is ALEA_ERR_NOMEM
 * and leaks nothing. */
static void test_out_of_memory(void **state)
{
    (void)state;
    heap h = {0, 0, 0};
    alea_ctx *c = alea_ctx_new(heap_alloc, &h);
    assert_non_null(c);
    if (alea_ctx_set_exact(c, 1) != ALEA_OK) {
        alea_ctx_free(c);
        skip();
    }
    alea_dist *a = dist_of(c, "4d6kh3"), *b = dist_of(c, "3d6 + 1");
    long live = h.live;
    int failures = 0;
    for (long n = 1;; n++) {
        h.count = 0;
        h.fail_at = n;
        char text[256];
        size_t len = 0;
        alea_status st = alea_dist_versus_fractions(c, a, b, text, sizeof text, &len);
        h.fail_at = 0;
        assert_int_equal(h.live, live);
        if (st == ALEA_OK)
            break;
        assert_int_equal(st, ALEA_ERR_NOMEM);
        failures++;
    }
    assert_true(failures >= 2); /* both sides' arrays were refused once */
    alea_dist_free(a);
    alea_dist_free(b);
    alea_ctx_free(c);
}

/* The work: 12 units an outcome of both in whole counts, 40 in
 * double-double sums, refused at N + 1 before it starts; the errors of a
 * NULL argument. */
static void test_errors_and_work(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_dist *a = dist_of(ctx, "3d6"), *b = dist_of(ctx, "2d6"); /* 16 and 11 outcomes */
    alea_dist *c = dist_of(ctx, "1d6!");                          /* 80 */
    alea_versus v = {9, 9, 9, 9, 9, 9};
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 12 * 27);
    assert_int_equal(alea_dist_versus(ctx, a, b, &v), ALEA_OK);
    assert_int_equal(alea_ctx_work(ctx), 12 * 27);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 12 * 27 - 1);
    alea_versus u = {9, 9, 9, 9, 9, 9};
    assert_int_equal(alea_dist_versus(ctx, a, b, &u), ALEA_ERR_LIMIT);
    assert_string_equal(alea_ctx_error(ctx), "alea_dist_versus: comparing 16 and 11 outcomes "
                                             "needs 324 work units (work limit is 323)");
    assert_true(u.p_greater == 9); /* untouched */
    /* in double-double sums (a cut explosion tail: no whole counts) */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 40 * 96);
    assert_int_equal(alea_dist_versus(ctx, a, c, &v), ALEA_OK);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 40 * 96 - 1);
    assert_int_equal(alea_dist_versus(ctx, a, c, &v), ALEA_ERR_LIMIT);
    alea_dist_free(c);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
    assert_int_equal(alea_dist_versus(ctx, NULL, b, &v), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_dist_versus(ctx, a, NULL, &v), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_dist_versus(ctx, a, b, NULL), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_dist_versus(NULL, a, b, &v), ALEA_ERR_ARGUMENT);
    size_t len;
    assert_int_equal(alea_dist_versus_fractions(ctx, a, b, NULL, 0, NULL), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_dist_versus_fractions(ctx, a, b, NULL, 0, &len), ALEA_ERR_ARGUMENT);
    alea_dist_free(a);
    alea_dist_free(b);

    /* in fractions the walk is charged as it goes: a limit it passes on
     * the way is the work limit's error */
    if (alea_ctx_set_exact(ctx, 1) == ALEA_OK) {
        a = dist_of(ctx, "30d6");
        b = dist_of(ctx, "30d6 + 1");
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 2000);
        assert_int_equal(alea_dist_versus(ctx, a, b, &v), ALEA_ERR_LIMIT);
        assert_non_null(strstr(alea_ctx_error(ctx), "in fractions needs more work"));
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
        assert_int_equal(alea_dist_versus(ctx, a, b, &v), ALEA_OK);
        assert_double_equal(v.emd, 1, EPS);
        alea_dist_free(a);
        alea_dist_free(b);
    }
    alea_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_against_every_pair),
        cmocka_unit_test(test_identical),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_both_walks),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_errors_and_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
