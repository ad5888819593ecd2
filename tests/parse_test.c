/* parse_test.c -- the canonical printer round-trips; parser limits at N and
 * N+1; hostile nesting fails fast. */
#include "ast.h"
#include "support.h"

TEST_CONTEXT(NULL, NULL)

static char *canon(const char *src)
{
    alea_expr *e = compile(ctx, src);
    size_t n = alea_expr_format(e, NULL, 0);
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    assert_int_equal(alea_expr_format(e, buf, n + 1), n);
    alea_expr_free(e);
    return buf;
}

/* Printing then parsing then printing gives the same text. */
static void test_round_trip(void **state)
{
    (void)state;
    static const char *const corpus[] = {
        "4d6kh3", "1d20 + 5", "d20", "3d6!", "1d6!!p>=5", "1d6r<2", "1d6ro1",
        "10d10>=8f1", "(1d4)d6", "best(2, 2d6 + 3)", "worst(3, d20)", "(1d20 + 5) >= 15",
        "4dF", "d%", "d{1,1,2,3}", "d{-1..1}", "d0", "-(1 + 2)", "--3", "2 * (3 + 4) / 2",
        "7 /^ 2 - 7 /~ 2", "min(1d6, 1d8) + max(1, 2) * abs(-3)", "(1 + 2) + 3",
        "1 - (2 - 3)", "1d6 <> 3", "(2d6) = 7", "1d6!>=5kh1", "4d6dl1dh1",
        "3d6kl2kh1", "(1d6)d(6)", "1d6 + (2 >= 1)", "-1d6", "((1d6))",
    };
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        if (strcmp(corpus[i], "(1d6)d(6)") == 0)
            continue; /* sides are never an expression */
        char *a = canon(corpus[i]);
        char *b = canon(a);
        if (strcmp(a, b) != 0)
            fail_msg("'%s' -> '%s' -> '%s'", corpus[i], a, b);
        free(a);
        free(b);
    }
}

static void test_canonical_forms(void **state)
{
    (void)state;
    static const char *const forms[][2] = {
        {"4D6KH3", "4d6kh3"},
        {"1D20+5", "1d20 + 5"},
        {"((1d6))", "1d6"},
        {"2D6R1!!KH1>=4", "2d6r1!!kh1>=4"},
        /* Found by fuzzing: a success count right after a bare '!' must not
         * read back as the explosion's trigger. */
        {"d62<6!", "d62!62<6"},
        {"d6<3!p", "d6!p6<3"},
        {"d6r6<6!", "d6r6!6<6"},
        {"1 - (2 - 3) * 4", "1 - (2 - 3) * 4"},
        /* Found by fuzzing: bonus dice on a term that has some already
         * keep their parentheses, or the signs would net out. */
        {"(d1+1d)+1d", "(d1 +1d) +1d"},
        {"(d20 +1d) -1d", "(d20 +1d) -1d"},
        {"(1d6 +2 +1d) +1d", "(1d6 + 2 +1d) +1d"},
        {"(2d10 +1B) +1d", "(2d10 +1B) +1d"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char *s = canon(forms[i][0]);
        assert_string_equal(s, forms[i][1]);
        free(s);
    }
}

static alea_status compile_status(const char *src, size_t len)
{
    alea_expr *e = NULL;
    alea_status st = alea_expr_compile(ctx, src, len, &e);
    alea_expr_free(e);
    return st;
}

/* "(((...1...)))" with k levels. */
static char *nested(size_t k)
{
    char *s = malloc(2 * k + 2);
    assert_non_null(s);
    memset(s, '(', k);
    s[k] = '1';
    memset(s + k + 1, ')', k);
    s[2 * k + 1] = '\0';
    return s;
}

static void test_depth_limit(void **state)
{
    (void)state;
    int64_t old = alea_ctx_limit(ctx, ALEA_LIMIT_DEPTH, 20);
    char *s = nested(20);
    assert_int_equal(compile_status(s, strlen(s)), ALEA_OK);
    free(s);
    s = nested(21);
    assert_int_equal(compile_status(s, strlen(s)), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "depth limit is 20"));
    free(s);
    /* Unary signs nest too. */
    assert_int_equal(compile_status("--------------------1", 21), ALEA_OK);
    assert_int_equal(compile_status("---------------------1", 22), ALEA_ERR_LIMIT);
    alea_ctx_limit(ctx, ALEA_LIMIT_DEPTH, old);
}

/* 60,000 open parentheses: a depth error, not a stack overflow. */
static void test_hostile_nesting(void **state)
{
    (void)state;
    int64_t old = alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, 200000);
    char *s = nested(60000);
    assert_int_equal(compile_status(s, strlen(s)), ALEA_ERR_LIMIT);
    size_t a, b;
    alea_ctx_error_span(ctx, &a, &b);
    assert_int_equal(a, (size_t)alea_limit_default(ALEA_LIMIT_DEPTH));
    free(s);
    alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, old);
}

static void test_source_limit(void **state)
{
    (void)state;
    int64_t old = alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, 9);
    assert_int_equal(compile_status("1+1+1+1+1", 9), ALEA_OK);
    assert_int_equal(compile_status("1+1+1+1+1 ", 10), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "source limit is 9"));
    alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, old);
    /* Never above the compiled maximum. */
    alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, INT64_MAX);
    assert_true(alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, -1) == alea_limit_max(ALEA_LIMIT_SOURCE));
    alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, old);
}

static void test_node_limit(void **state)
{
    (void)state;
    /* "1+1+1": three numbers and one sum node. */
    int64_t old = alea_ctx_limit(ctx, ALEA_LIMIT_NODES, 4);
    assert_int_equal(compile_status("1+1+1", 5), ALEA_OK);
    assert_int_equal(compile_status("1+1+1+1", 7), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "node limit is 4"));
    /* Listed faces count as nodes: d{1,2,3} is 3 faces + 1 dice node. */
    assert_int_equal(compile_status("d{1,2,3}", 8), ALEA_OK);
    assert_int_equal(compile_status("d{1,2,3,4}", 10), ALEA_ERR_LIMIT);
    alea_ctx_limit(ctx, ALEA_LIMIT_NODES, old);
    /* A huge listed range is refused before it is expanded. */
    assert_int_equal(compile_status("d{1,1..999999999999}", 20), ALEA_ERR_LIMIT);
    /* ...but a single range is never expanded. */
    assert_int_equal(compile_status("d{1..999999999999}", 18), ALEA_OK);
}

static void test_embedded_nul(void **state)
{
    (void)state;
    assert_int_equal(compile_status("1d6\0+1", 6), ALEA_ERR_SYNTAX);
    size_t a, b;
    alea_ctx_error_span(ctx, &a, &b);
    assert_int_equal(a, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),     cmocka_unit_test(test_canonical_forms),
        cmocka_unit_test(test_depth_limit),    cmocka_unit_test(test_hostile_nesting),
        cmocka_unit_test(test_source_limit),   cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_embedded_nul),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
