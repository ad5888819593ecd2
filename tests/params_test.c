/*
 * params_test.c -- parameters (params.c): an expression compiled once with
 * names the host gives values, and computed at each value as the same
 * text with those values bound by "let" (a cell of alea table is a run of
 * dist), in doubles and in fractions; its roll; the errors of its names
 * and values; the limit of parameters at N and N + 1.
 */
#include "support.h"

TEST_HEAP_CONTEXT

/* The same distribution: the same outcomes, probabilities, mean, flags,
 * and in exact mode the same fractions. */
static void same_dist(const alea_dist *a, const alea_dist *b)
{
    assert_int_equal(alea_dist_count(a), alea_dist_count(b));
    for (size_t i = 0; i < alea_dist_count(a); i++) {
        assert_int_equal(alea_dist_value(a, i), alea_dist_value(b, i));
        assert_true(alea_dist_prob(a, i) == alea_dist_prob(b, i));
    }
    assert_true(alea_dist_mean(a) == alea_dist_mean(b));
    assert_int_equal(alea_dist_flag_count(a), alea_dist_flag_count(b));
    for (size_t i = 0; i < alea_dist_flag_count(a); i++)
        assert_true(alea_dist_flag_prob(a, i) == alea_dist_flag_prob(b, i));
    assert_int_equal(alea_dist_is_exact(a), alea_dist_is_exact(b));
    if (alea_dist_is_exact(a)) {
        char fa_[256], fb[256];
        alea_dist_fraction(a, ALEA_FRACTION_MEAN, 0, fa_, sizeof fa_);
        alea_dist_fraction(b, ALEA_FRACTION_MEAN, 0, fb, sizeof fb);
        assert_string_equal(fa_, fb);
        for (size_t i = 0; i < alea_dist_count(a); i++) {
            alea_dist_fraction(a, ALEA_FRACTION_PROB, i, fa_, sizeof fa_);
            alea_dist_fraction(b, ALEA_FRACTION_PROB, i, fb, sizeof fb);
            assert_string_equal(fa_, fb);
        }
    }
}

/* Every cell of a grid over names[0..n) equals the text with the values
 * bound by let. */
static void grid(const char *src, const char *const *names, size_t n, int64_t lo, int64_t hi)
{
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        alea_expr *e = NULL;
        if (alea_expr_compile_with(ctx, src, strlen(src), names, n, &e) != ALEA_OK)
            fail_msg("'%s': %s", src, alea_ctx_error(ctx));
        assert_int_equal(alea_expr_param_count(e), n);
        for (int64_t a = lo; a <= hi; a++)
            for (int64_t b = lo; b <= (n > 1 ? hi : lo); b++) {
                int64_t v[2] = {a, b};
                char text[256];
                if (n > 1)
                    snprintf(text, sizeof text, "let %s = %lld, %s = %lld in %s", names[0],
                             (long long)a, names[1], (long long)b, src);
                else
                    snprintf(text, sizeof text, "let %s = %lld in %s", names[0], (long long)a,
                             src);
                alea_dist *d = NULL, *want = dist_of(ctx, text);
                if (alea_expr_dist_at(ctx, e, v, n, &d) != ALEA_OK)
                    fail_msg("'%s' at %lld, %lld: %s", src, (long long)a, (long long)b,
                             alea_ctx_error(ctx));
                same_dist(d, want);
                alea_dist_free(d);
                alea_dist_free(want);
            }
        alea_expr_free(e);
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
}

static void test_cells_are_dist(void **state)
{
    (void)state;
    const char *md[] = {"m", "dc"}, *n[] = {"n"};
    grid("d20 + m >= dc", md, 2, 8, 12);
    grid("3d6 + m * dc", md, 2, -2, 2);
    grid("let a = d20 in a + m >= dc and a = 20", md, 2, 9, 11);
    grid("if(n > 2, 2d6, d4) + n", n, 1, -1, 4);
    grid("(n)d6kh1", n, 1, 1, 4); /* a rolled count read from a parameter */
    grid("let n = d4 in n + 1", n, 1, 0, 1); /* the text's own n shadows it */
}

static void test_roll(void **state)
{
    (void)state;
    const char *names[] = {"m"};
    alea_expr *e = NULL, *t = compile(ctx, "let m = 5 in 4d6kh3 + m");
    assert_int_equal(alea_expr_compile_with(ctx, "4d6kh3 + m", 10, names, 1, &e), ALEA_OK);
    alea_roll *r = alea_roll_new(ctx), *q = alea_roll_new(ctx);
    int64_t v = 5, x, y;
    for (uint64_t seed = 1; seed < 20; seed++) {
        alea_ctx_seed(ctx, seed);
        assert_int_equal(alea_expr_roll_at(ctx, e, &v, 1, r), ALEA_OK);
        alea_ctx_seed(ctx, seed);
        assert_int_equal(alea_expr_roll(ctx, t, q), ALEA_OK);
        assert_int_equal(alea_roll_total(r), alea_roll_total(q));
        alea_ctx_seed(ctx, seed);
        assert_int_equal(alea_expr_sample_at(ctx, e, &v, 1, &x), ALEA_OK);
        alea_ctx_seed(ctx, seed);
        assert_int_equal(alea_expr_sample(ctx, t, &y), ALEA_OK);
        assert_int_equal(x, y);
    }
    /* without values: refused, naming the parameter */
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_ERR_ARGUMENT);
    assert_non_null(strstr(alea_ctx_error(ctx), "'m' has no value"));
    alea_roll_free(r);
    alea_roll_free(q);
    alea_expr_free(e);
    alea_expr_free(t);
}

/* The error of compiling src with names, or of its first cell. */
static void refused(const char *src, const char *const *names, size_t n, alea_status want,
                    const char *message)
{
    alea_expr *e = NULL;
    alea_status st = alea_expr_compile_with(ctx, src, strlen(src), names, n, &e);
    assert_int_equal(st, want);
    assert_null(e);
    if (!strstr(alea_ctx_error(ctx), message))
        fail_msg("'%s': '%s' lacks '%s'", src, alea_ctx_error(ctx), message);
}

static void test_errors(void **state)
{
    (void)state;
    const char *m[] = {"m"}, *d[] = {"d"}, *in[] = {"in"}, *twice[] = {"m", "m"},
               *digit[] = {"2x"}, *dd[] = {"dd"};
    refused("d20 + b", m, 1, ALEA_ERR_SYNTAX, "unknown name 'b' at byte 6 (in scope: m)");
    refused("d20 + d", d, 1, ALEA_ERR_SYNTAX, "parameter 'd' reads as dice, not a name");
    refused("d20", in, 1, ALEA_ERR_SYNTAX, "parameter 'in' is a word of the language");
    refused("d20", dd, 1, ALEA_ERR_SYNTAX, "parameter 'dd' is a word of the language");
    refused("d20", digit, 1, ALEA_ERR_SYNTAX, "parameter '2x' is not a name");
    refused("d20 + m", twice, 2, ALEA_ERR_SYNTAX, "parameter 'm' is given twice");
    refused("dd(m, 10, best)", m, 1, ALEA_ERR_INVALID, "dd() needs a fixed number");
    /* a parameter never read, and values of the wrong number */
    alea_expr *e = NULL;
    alea_dist *dist = NULL;
    const char *two[] = {"a", "b"};
    assert_int_equal(alea_expr_compile_with(ctx, "d6 + a", 6, two, 2, &e), ALEA_OK);
    assert_true(alea_expr_param_used(e, 0));
    assert_false(alea_expr_param_used(e, 1));
    assert_false(alea_expr_param_used(e, 2));
    assert_string_equal(alea_expr_param_name(e, 1), "b");
    assert_null(alea_expr_param_name(e, 2));
    int64_t v[2] = {1, 2};
    assert_int_equal(alea_expr_dist_at(ctx, e, v, 1, &dist), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_expr_dist(ctx, e, &dist), ALEA_ERR_ARGUMENT);
    assert_null(dist);
    assert_int_equal(alea_expr_dist_at(ctx, e, v, 2, &dist), ALEA_OK);
    assert_double_equal(alea_dist_mean(dist), 4.5, 1e-12);
    alea_dist_free(dist);
    alea_expr_free(e);
    /* a dialect without names has no parameters */
    assert_int_equal(alea_ctx_set_dialect(ctx, ALEA_DIALECT_ROLL20), ALEA_OK);
    refused("d20 + m", m, 1, ALEA_ERR_INVALID, "parameters are names");
    assert_int_equal(alea_ctx_set_dialect(ctx, ALEA_DIALECT_ALEA), ALEA_OK);
}

/* ALEA_PARAMS_MAX parameters compile; one more is refused. */
static void test_limit(void **state)
{
    (void)state;
    static char store[ALEA_PARAMS_MAX + 1][8];
    const char *names[ALEA_PARAMS_MAX + 1];
    for (int i = 0; i <= ALEA_PARAMS_MAX; i++) {
        snprintf(store[i], sizeof store[i], "p%d", i);
        names[i] = store[i];
    }
    alea_expr *e = NULL;
    assert_int_equal(alea_expr_compile_with(ctx, "p63 + p0", 8, names, ALEA_PARAMS_MAX, &e),
                     ALEA_OK);
    int64_t v[ALEA_PARAMS_MAX] = {0};
    v[0] = 2;
    v[63] = 40;
    alea_dist *d = NULL;
    assert_int_equal(alea_expr_dist_at(ctx, e, v, ALEA_PARAMS_MAX, &d), ALEA_OK);
    assert_int_equal(alea_dist_value(d, 0), 42);
    assert_true(alea_expr_param_used(e, 63));
    alea_dist_free(d);
    alea_expr_free(e);
    assert_int_equal(alea_expr_compile_with(ctx, "p0", 2, names, ALEA_PARAMS_MAX + 1, &e),
                     ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "too many parameters: 65 (at most 64)"));
}

static void test_alloc_failures(void **state)
{
    (void)state;
    const char *names[] = {"m", "dc"};
    long live = fa.live;
    for (long n = 1; n < 500; n++) {
        alea_expr *e = NULL;
        alea_dist *d = NULL;
        heap_fail_at(&fa, n);
        alea_status a = alea_expr_compile_with(ctx, "d20 + m >= dc", 13, names, 2, &e), b = a;
        int64_t v[2] = {3, 12};
        if (a == ALEA_OK)
            b = alea_expr_dist_at(ctx, e, v, 2, &d);
        heap_fail_at(&fa, 0);
        assert_true(a == ALEA_OK || a == ALEA_ERR_NOMEM);
        assert_true(b == ALEA_OK || b == ALEA_ERR_NOMEM);
        alea_dist_free(d);
        alea_expr_free(e);
        assert_int_equal(fa.live, live);
        if (b == ALEA_OK)
            break;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cells_are_dist, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roll, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
