/* tally_test.c -- Monte Carlo estimates (src/tally.c) and the generator's
 * streams: a tally counts exactly what alea_expr_sample draws; merging adds
 * counts; a tally built from counts is the one that sampled them; the
 * estimate agrees with the exact distribution within its intervals; the
 * support limit at N and N + 1; the value INT64_MIN; the interrupt hook;
 * allocation failures; streams that differ and repeat. */
#include "support.h"

static alea_dist *estimate(alea_ctx *ctx, const alea_expr *e, uint64_t n)
{
    alea_tally *t = alea_tally_new(ctx);
    assert_non_null(t);
    assert_int_equal(alea_tally_sample(ctx, e, t, n), ALEA_OK);
    assert_true(alea_tally_total(t) == n);
    alea_dist *d = NULL;
    assert_int_equal(alea_tally_dist(ctx, t, e, &d), ALEA_OK);
    alea_tally_free(t);
    return d;
}

/* The same seed: the tally's counts are those of n calls of
 * alea_expr_sample. */
static void test_counts_what_sample_draws(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *e = compile(ctx, "3d6 + 1d4kh1 - 2");
    long want[32] = {0};
    alea_ctx_seed(ctx, 11);
    for (int i = 0; i < 5000; i++) {
        int64_t v;
        assert_int_equal(alea_expr_sample(ctx, e, &v), ALEA_OK);
        want[v]++;
    }
    alea_ctx_seed(ctx, 11);
    alea_dist *d = estimate(ctx, e, 5000);
    assert_true(alea_dist_samples(d) == 5000);
    for (size_t i = 0; i < alea_dist_count(d); i++) {
        int64_t v = alea_dist_value(d, i);
        assert_true(v >= 0 && v < 32);
        assert_true(alea_dist_prob(d, i) == (double)want[v] / 5000);
        want[v] = 0;
    }
    for (int v = 0; v < 32; v++)
        assert_int_equal(want[v], 0); /* every value drawn is in the estimate */
    alea_dist_free(d);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* 200000 rolls of 4d6kh3 against the exact distribution: every outcome
 * within 5 standard errors, at least 90% of them inside their 95% interval,
 * and the intervals of an exact distribution are points. */
static void test_agrees_with_exact(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_ctx_seed(ctx, 3);
    alea_expr *e = compile(ctx, "4d6kh3");
    alea_dist *x = NULL, *d = estimate(ctx, e, 200000);
    assert_int_equal(alea_expr_dist(ctx, e, &x), ALEA_OK);
    assert_int_equal(alea_dist_count(d), alea_dist_count(x));
    size_t inside = 0, n = alea_dist_count(x);
    for (size_t i = 0; i < n; i++) {
        double p = alea_dist_prob(x, i), q = alea_dist_prob(d, i), lo, hi;
        assert_true(alea_dist_value(d, i) == alea_dist_value(x, i));
        assert_true(fabs(p - q) <= 5 * sqrt(p * (1 - p) / 200000));
        alea_dist_interval(d, i, &lo, &hi);
        assert_true(lo <= q && q <= hi && lo >= 0 && hi <= 1);
        inside += lo <= p && p <= hi;
        alea_dist_interval(x, i, &lo, &hi);
        assert_true(lo == p && hi == p);
    }
    assert_true(inside * 10 >= n * 9);
    assert_true(alea_dist_samples(x) == 0);
    assert_true(fabs(alea_dist_mean(d) - alea_dist_mean(x)) < 0.05);
    /* The JSON says it is an estimate. */
    char buf[4096];
    alea_dist_format(d, ALEA_FORMAT_JSON, buf, sizeof buf);
    assert_non_null(strstr(buf, "\"samples\": 200000, \"intervals\": [["));
    alea_dist_format(x, ALEA_FORMAT_JSON, buf, sizeof buf);
    assert_null(strstr(buf, "samples"));
    alea_dist_free(d);
    alea_dist_free(x);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* Two tallies merged count what one would; labels of dd() come along. */
/* A repeat's distribution, exact or sampled, is one roll's and says how
 * many rolls there are; any other expression has one. */
static void test_repeat_rolls(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *rep = compile(ctx, "4 x 1d6"), *one = compile(ctx, "1d6");
    alea_dist *x, *y;
    assert_int_equal(alea_expr_dist(ctx, rep, &x), ALEA_OK);
    assert_int_equal(alea_expr_dist(ctx, one, &y), ALEA_OK);
    assert_true(alea_dist_rolls(x) == 4 && alea_dist_rolls(y) == 1);
    assert_true(alea_expr_rolls(rep) == 4 && alea_expr_rolls(one) == 1);
    assert_true(alea_expr_rolls(NULL) == 1);
    assert_int_equal(alea_dist_count(x), 6);
    for (size_t i = 0; i < 6; i++)
        assert_true(alea_dist_prob(x, i) == alea_dist_prob(y, i));
    alea_dist *s = estimate(ctx, rep, 100);
    assert_true(alea_dist_rolls(s) == 4);
    assert_true(alea_dist_rolls(NULL) == 1);
    alea_dist_free(s);
    alea_dist_free(x);
    alea_dist_free(y);
    alea_expr_free(rep);
    alea_expr_free(one);
    alea_ctx_free(ctx);
}

static void test_merge(void **state)
{
    (void)state;
    alea_ctx *a = alea_ctx_new(NULL, NULL), *b = alea_ctx_new(NULL, NULL);
    alea_expr *ea = compile(a, "dd(6, 14, best)"), *eb = compile(b, "dd(6, 14, best)");
    alea_tally *ta = alea_tally_new(a), *tb = alea_tally_new(b), *one = alea_tally_new(a);
    alea_ctx_seed(a, 5);
    assert_int_equal(alea_tally_sample(a, ea, one, 3000), ALEA_OK);
    alea_ctx_seed(a, 5);
    assert_int_equal(alea_tally_sample(a, ea, ta, 1000), ALEA_OK);
    alea_ctx_seed(b, 5);
    assert_int_equal(alea_tally_sample(b, eb, tb, 1000), ALEA_OK); /* the same 1000 */
    assert_int_equal(alea_tally_merge(a, ta, tb), ALEA_OK);
    assert_true(alea_tally_total(ta) == 2000);
    alea_dist *d = NULL;
    assert_int_equal(alea_tally_dist(a, ta, ea, &d), ALEA_OK);
    assert_string_equal(alea_dist_label(d, 3), "critical success");
    alea_dist_free(d);
    /* a tally of the wrong context is refused */
    assert_int_equal(alea_tally_merge(a, tb, ta), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_tally_sample(a, eb, ta, 1), ALEA_ERR_ARGUMENT);
    alea_tally *empty = alea_tally_new(a);
    assert_int_equal(alea_tally_dist(a, empty, ea, &d), ALEA_ERR_ARGUMENT);
    alea_tally_free(empty);
    alea_tally_free(ta);
    alea_tally_free(tb);
    alea_tally_free(one);
    alea_expr_free(ea);
    alea_expr_free(eb);
    alea_ctx_free(a);
    alea_ctx_free(b);
}

/* A tally built from the counts of another (value by value, in any order)
 * gives the same estimate: values, probabilities, mean, sd, median and
 * cumulative columns. count 0 adds nothing; the support limit at N and
 * N + 1; the total at 2^53 and past it; a tally of another context. */
static void test_add_counts(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *e = compile(ctx, "3d6 + 1d4kh1 - 2");
    alea_ctx_seed(ctx, 11);
    alea_dist *want = estimate(ctx, e, 5000);
    alea_tally *t = alea_tally_new(ctx);
    size_t n = alea_dist_count(want);
    for (size_t k = 0; k < n; k++) {
        size_t i = (k * 7) % n; /* not in order (n is not a multiple of 7) */
        uint64_t hits = (uint64_t)llround(alea_dist_prob(want, i) * 5000);
        assert_int_equal(alea_tally_add(ctx, t, alea_dist_value(want, i), hits), ALEA_OK);
        assert_int_equal(alea_tally_add(ctx, t, 1000 + (int64_t)i, 0), ALEA_OK);
    }
    assert_true(n % 7 != 0);
    assert_true(alea_tally_total(t) == 5000);
    alea_dist *got = NULL;
    assert_int_equal(alea_tally_dist(ctx, t, e, &got), ALEA_OK);
    assert_int_equal(alea_dist_count(got), n);
    assert_true(alea_dist_samples(got) == 5000);
    assert_true(alea_dist_mean(got) == alea_dist_mean(want));
    assert_true(alea_dist_sd(got) == alea_dist_sd(want));
    assert_true(alea_dist_median(got) == alea_dist_median(want));
    double *c = malloc(4 * n * sizeof *c);
    assert_non_null(c);
    alea_dist_cumulate(want, c, c + n);
    alea_dist_cumulate(got, c + 2 * n, c + 3 * n);
    for (size_t i = 0; i < n; i++) {
        assert_true(alea_dist_value(got, i) == alea_dist_value(want, i));
        assert_true(alea_dist_prob(got, i) == alea_dist_prob(want, i));
        assert_true(c[i] == c[2 * n + i] && c[n + i] == c[3 * n + i]);
    }
    free(c);
    alea_dist_free(got);
    alea_dist_free(want);
    alea_tally_free(t);

    /* SUPPORT at N and N + 1: a value already counted is not a new one */
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 2);
    t = alea_tally_new(ctx);
    assert_int_equal(alea_tally_add(ctx, t, INT64_MIN, 1), ALEA_OK);
    assert_int_equal(alea_tally_add(ctx, t, 5, 2), ALEA_OK);
    assert_int_equal(alea_tally_add(ctx, t, 5, 3), ALEA_OK);
    assert_int_equal(alea_tally_add(ctx, t, 6, 1), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "support limit is 2"));
    assert_true(alea_tally_total(t) == 6);
    /* the total at 2^53, then past it: refused, the tally unchanged */
    uint64_t top = (UINT64_C(1) << 53) - 6;
    assert_int_equal(alea_tally_add(ctx, t, 5, top + 1), ALEA_ERR_LIMIT);
    assert_true(alea_tally_total(t) == 6);
    assert_int_equal(alea_tally_add(ctx, t, 5, top), ALEA_OK);
    assert_true(alea_tally_total(t) == UINT64_C(1) << 53);
    assert_int_equal(alea_tally_add(ctx, t, 5, 1), ALEA_ERR_LIMIT);
    assert_int_equal(alea_tally_add(ctx, t, 5, UINT64_MAX), ALEA_ERR_LIMIT);
    assert_true(alea_tally_total(t) == UINT64_C(1) << 53);
    /* another context's tally, and NULL */
    alea_ctx *other = alea_ctx_new(NULL, NULL);
    assert_int_equal(alea_tally_add(other, t, 5, 1), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_tally_add(ctx, NULL, 5, 1), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_tally_add(NULL, t, 5, 1), ALEA_ERR_ARGUMENT);
    alea_ctx_free(other);
    alea_tally_free(t);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* SUPPORT at N and N + 1: 1d20 rolled until all 20 values show. The value
 * INT64_MIN (a free slot's key in the table) is counted like any other. */
static void test_support_limit_and_extremes(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *e = compile(ctx, "1d20");
    for (int64_t lim = 19; lim <= 20; lim++) {
        alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, lim);
        alea_ctx_seed(ctx, 1);
        alea_tally *t = alea_tally_new(ctx);
        alea_status st = alea_tally_sample(ctx, e, t, 2000);
        assert_int_equal(st, lim == 20 ? ALEA_OK : ALEA_ERR_LIMIT);
        if (st != ALEA_OK)
            assert_non_null(strstr(alea_ctx_error(ctx), "support limit is 19"));
        alea_tally_free(t);
    }
    alea_expr_free(e);
    /* a roll that fails stops the tally with its error */
    e = compile(ctx, "(-9223372036854775807 - 1) * 1d2");
    alea_ctx_seed(ctx, 2);
    alea_tally *t = alea_tally_new(ctx);
    assert_int_equal(alea_tally_sample(ctx, e, t, 1000), ALEA_ERR_OVERFLOW);
    assert_true(alea_tally_total(t) < 1000);
    alea_tally_free(t);
    alea_expr_free(e);
    e = compile(ctx, "(-9223372036854775807 - 1) + 1d2 - 1");
    alea_ctx_seed(ctx, 2);
    alea_dist *d = estimate(ctx, e, 1000);
    assert_int_equal(alea_dist_count(d), 2);
    assert_true(alea_dist_value(d, 0) == INT64_MIN);
    assert_true(alea_dist_value(d, 1) == INT64_MIN + 1);
    assert_true(fabs(alea_dist_prob(d, 0) + alea_dist_prob(d, 1) - 1) < 1e-15);
    alea_dist_free(d);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* The hook is polled every 4096 rolls; what was counted stays. */
static void test_interrupt(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *e = compile(ctx, "1d6");
    int calls = 0;
    alea_ctx_set_interrupt(ctx, interrupt_now, &calls);
    alea_tally *t = alea_tally_new(ctx);
    assert_int_equal(alea_tally_sample(ctx, e, t, 1000000), ALEA_ERR_INTERRUPTED);
    assert_int_equal(calls, 1);
    assert_true(alea_tally_total(t) == 4095);
    alea_tally_free(t);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* Streams: stream 0 is the seed itself, other streams differ from it and
 * from each other, and each repeats. */
static void test_streams(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *e = compile(ctx, "d{0..9223372036854775807}");
    int64_t first[4], v;
    for (uint32_t s = 0; s < 4; s++) {
        alea_ctx_seed_stream(ctx, 42, s);
        assert_int_equal(alea_expr_sample(ctx, e, &first[s]), ALEA_OK);
        for (uint32_t k = 0; k < s; k++)
            assert_true(first[k] != first[s]);
    }
    alea_ctx_seed(ctx, 42);
    assert_int_equal(alea_expr_sample(ctx, e, &v), ALEA_OK);
    assert_true(v == first[0]);
    alea_ctx_seed_stream(ctx, 42, 3);
    assert_int_equal(alea_expr_sample(ctx, e, &v), ALEA_OK);
    assert_true(v == first[3]);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* Every allocation of new, sample, merge and dist failing in turn: out of
 * memory, and nothing leaks. */
static void test_alloc_failures(void **state)
{
    (void)state;
    heap h = {0, 0, 0};
    alea_ctx *ctx = alea_ctx_new(heap_alloc, &h);
    alea_expr *e = compile(ctx, "2d20kh1 * 100 + 1d100");
    long base = h.live;
    for (long n = 1;; n++) {
        heap_fail_at(&h, n);
        alea_ctx_seed(ctx, 9);
        alea_status st = ALEA_ERR_NOMEM;
        alea_tally *t = alea_tally_new(ctx), *u = alea_tally_new(ctx);
        alea_dist *d = NULL;
        if (t && u && (st = alea_tally_sample(ctx, e, t, 3000)) == ALEA_OK &&
            (st = alea_tally_sample(ctx, e, u, 500)) == ALEA_OK &&
            (st = alea_tally_merge(ctx, t, u)) == ALEA_OK)
            st = alea_tally_dist(ctx, t, e, &d);
        heap_fail_at(&h, 0);
        alea_dist_free(d);
        alea_tally_free(t);
        alea_tally_free(u);
        assert_int_equal(h.live, base);
        if (st == ALEA_OK)
            break;
        assert_int_equal(st, ALEA_ERR_NOMEM);
        assert_string_equal(alea_ctx_error(ctx), "out of memory");
        assert_true(n < 100000);
    }
    alea_expr_free(e);
    alea_ctx_free(ctx);
    assert_int_equal(h.live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_what_sample_draws),
        cmocka_unit_test(test_agrees_with_exact),
        cmocka_unit_test(test_repeat_rolls),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_add_counts),
        cmocka_unit_test(test_support_limit_and_extremes),
        cmocka_unit_test(test_interrupt),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
