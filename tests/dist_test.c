/* dist_test.c -- the public distribution object (dist.c): its accessors
 * and its JSON, on a distribution built by hand. */
#include "dist.h"
#include "support.h"

#define EPS 1e-12

TEST_HEAP_CONTEXT


static alea_dist *dist_made(alea__pmf *p, const char *src)
{
    alea_dist *d = NULL;
    assert_int_equal(alea__dist_make(ctx, p, src, strlen(src), &d), ALEA_OK);
    return d;
}

static void test_accessors_and_json(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6);
    alea_dist *d = dist_made(&d6, "1d6");
    assert_int_equal(d6.n, 0); /* moved */
    assert_int_equal(alea_dist_count(d), 6);
    assert_true(alea_dist_value(d, 0) == 1);
    assert_double_equal(alea_dist_prob(d, 5), 1.0 / 6, EPS);
    assert_double_equal(alea_dist_p(d, 4), 1.0 / 6, EPS);
    assert_double_equal(alea_dist_p(d, 7), 0, 0);
    assert_double_equal(alea_dist_at_least(d, 5), 2.0 / 6, EPS);
    assert_double_equal(alea_dist_at_least(d, -100), 1, EPS);
    assert_double_equal(alea_dist_at_most(d, 2), 2.0 / 6, EPS);
    assert_double_equal(alea_dist_at_most(d, INT64_MAX), 1, EPS);
    assert_double_equal(alea_dist_mean(d), 3.5, EPS);
    assert_double_equal(alea_dist_sd(d), sqrt(35.0 / 12), EPS);
    assert_true(alea_dist_min(d) == 1 && alea_dist_max(d) == 6);
    assert_true(alea_dist_median(d) == 3); /* P(X <= 3) = 1/2 exactly */
    assert_double_equal(alea_dist_truncated(d), 0, 0);
    alea_dist_free(d);
    alea_dist_free(NULL);

    int64_t v[] = {1, 2};
    double w[] = {1, 1};
    alea__pmf two = pmf_weighted(ctx, 2, v, w);
    d = dist_made(&two, "1d2 \"q\"");
    const char *want = "{\"expression\": \"1d2 \\\"q\\\"\", \"outcomes\": [[1, 0.5], "
                       "[2, 0.5]], \"mean\": 1.5, \"sd\": 0.5, \"min\": 1, \"max\": 2, "
                       "\"truncated\": 0}";
    char buf[256];
    size_t n = alea_dist_format(d, ALEA_FORMAT_JSON, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
    /* snprintf contract */
    assert_int_equal(alea_dist_format(d, ALEA_FORMAT_JSON, NULL, 0), strlen(want));
    char small[10];
    assert_int_equal(alea_dist_format(d, ALEA_FORMAT_JSON, small, sizeof small), strlen(want));
    assert_string_equal(small, "{\"express");
    assert_int_equal(alea_dist_format(d, ALEA_FORMAT_TEXT, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    alea_dist_free(d);
}

/* The OUTPUT limit: a text of N bytes passes at N and is refused at N - 1
 * (nothing written, 0 returned, the error in the context). */
static void test_output_limit(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6);
    alea_dist *d = dist_made(&d6, "1d6");
    assert_int_equal(alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, -1), 8388608);
    char buf[512];
    for (int csv = 0; csv <= 1; csv++) {
        alea_format f = csv ? ALEA_FORMAT_CSV : ALEA_FORMAT_JSON;
        size_t n = alea_dist_format(d, f, buf, sizeof buf);
        assert_true(n > 50 && n < sizeof buf);
        alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)n);
        assert_int_equal(alea_dist_format(d, f, buf, sizeof buf), n);
        assert_int_equal(alea_dist_format(d, f, NULL, 0), n);
        alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)n - 1);
        assert_int_equal(alea_dist_format(d, f, buf, sizeof buf), 0);
        assert_string_equal(buf, "");
        assert_int_equal(alea_dist_format(d, f, NULL, 0), 0);
        size_t start, end;
        assert_int_equal(alea_ctx_error_span(ctx, &start, &end), ALEA_ERR_LIMIT);
        assert_true(start == 0 && end == 3);
        char want[128];
        snprintf(want, sizeof want,
                 "too much output: the distribution's %s passes %zu bytes (output limit is "
                 "%zu)",
                 csv ? "CSV" : "JSON", n - 1, n - 1);
        assert_string_equal(alea_ctx_error(ctx), want);
        alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, 8388608);
    }
    alea_dist_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_accessors_and_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_limit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
