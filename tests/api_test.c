/* api_test.c -- what the public API gives front ends so that they do not
 * recompute it: both cumulative columns of a distribution at once, the
 * expectation of a function of the outcome, a random seed drawn from a
 * context, the work an evaluation was charged, and one probability
 * formatted as the JSON formats it. */
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

/* alea_dist_luck: a total's place in its distribution, P(X <= total) and
 * P(X >= total), inside the support, at its edges and past them; a
 * repeat's distribution is one roll's. */
static void test_luck(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_dist *d = dist_of(ctx, "d20");
    double most = -1, least = -1;
    alea_dist_luck(d, 17, &most, &least);
    assert_true(most == 17.0 / 20 && least == 4.0 / 20);
    alea_dist_luck(d, 1, &most, &least);
    assert_true(most == 1.0 / 20 && least == 1);
    alea_dist_luck(d, 20, &most, &least);
    assert_true(most == 1 && least == 1.0 / 20);
    alea_dist_luck(d, 0, &most, &least); /* below every outcome */
    assert_true(most == 0 && least == 1);
    alea_dist_luck(d, INT64_MAX, &most, &least); /* above */
    assert_true(most == 1 && least == 0);
    alea_dist_luck(d, INT64_MIN, &most, NULL); /* one output only */
    assert_true(most == 0);
    alea_dist_free(d);
    /* 3d6 rolled 10: P(X <= 10) = 108/216, P(X >= 10) = 135/216 */
    d = dist_of(ctx, "3 x 3d6");
    alea_dist_luck(d, 10, &most, &least);
    assert_true(most == 108.0 / 216 && least == 135.0 / 216);
    alea_dist_free(d);
    alea_dist_luck(NULL, 3, &most, &least);
    assert_true(most == 0 && least == 0);
    /* Every total from below the support to past it, in a distribution
     * with gaps and one without whole counts: the same as the columns. */
    static const char *const wide[] = {"1d1000 * 3 + 1d2 * 1000", "10d6!kh3"};
    for (size_t k = 0; k < sizeof wide / sizeof wide[0]; k++) {
        d = dist_of(ctx, wide[k]);
        size_t n = alea_dist_count(d);
        double *lc = calloc(n, sizeof *lc), *mc = calloc(n, sizeof *mc);
        assert_non_null(lc);
        assert_non_null(mc);
        alea_dist_cumulate(d, lc, mc);
        size_t i = 0;
        for (int64_t v = alea_dist_value(d, 0) - 2; v <= alea_dist_value(d, n - 1) + 2; v++) {
            while (i < n && alea_dist_value(d, i) < v)
                i++;
            alea_dist_luck(d, v, &most, &least);
            int on = i < n && alea_dist_value(d, i) == v;
            assert_true(least == (i < n ? lc[i] : 0));
            assert_true(most == (on ? mc[i] : i > 0 ? mc[i - 1] : 0));
            assert_true(most == alea_dist_at_most(d, v) && least == alea_dist_at_least(d, v));
        }
        free(lc);
        free(mc);
        alea_dist_free(d);
    }
    alea_ctx_free(ctx);
}

/* The functions alea_dist_expect takes the expectation of: the outcome
 * itself, its square, and one that fails past a value (*ud). */
static alea_status outcome_itself(int64_t v, void *ud, double *x)
{
    (void)ud;
    *x = (double)v;
    return ALEA_OK;
}

static alea_status outcome_squared(int64_t v, void *ud, double *x)
{
    (void)ud;
    *x = (double)v * (double)v;
    return ALEA_OK;
}

static alea_status fails_past(int64_t v, void *ud, double *x)
{
    *x = 0;
    return v > *(const int64_t *)ud ? ALEA_ERR_DOMAIN : ALEA_OK;
}

static alea_status not_a_status(int64_t v, void *ud, double *x)
{
    (void)v;
    (void)ud;
    *x = 0;
    return (alea_status)99;
}

/* alea_dist_expect: the mean of 3d6 through a function (10.5) and its
 * second moment (the variance plus the mean squared: 35/4 + 10.5^2); a
 * status from the function is returned, naming the outcome, with *out
 * untouched; NULL arguments are refused. */
static void test_expect(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_dist *d = dist_of(ctx, "3d6");
    double out = -1;
    assert_int_equal(alea_dist_expect(ctx, d, outcome_itself, NULL, &out), ALEA_OK);
    assert_true(fabs(out - 10.5) < 1e-12);
    assert_string_equal(alea_ctx_error(ctx), "");
    assert_int_equal(alea_dist_expect(ctx, d, outcome_squared, NULL, &out), ALEA_OK);
    assert_true(fabs(out - (35.0 / 4 + 10.5 * 10.5)) < 1e-10);
    int64_t limit = 12;
    out = -1;
    assert_int_equal(alea_dist_expect(ctx, d, fails_past, &limit, &out), ALEA_ERR_DOMAIN);
    assert_true(out == -1);
    assert_string_equal(alea_ctx_error(ctx),
                        "alea_dist_expect: the function returned ALEA_ERR_DOMAIN for 13");
    assert_int_equal(alea_dist_expect(ctx, d, not_a_status, NULL, &out), ALEA_ERR_ARGUMENT);
    assert_string_equal(alea_ctx_error(ctx),
                        "alea_dist_expect: the function returned ALEA_UNKNOWN for 3");
    assert_true(out == -1);
    assert_int_equal(alea_dist_expect(NULL, d, outcome_itself, NULL, &out), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_dist_expect(ctx, NULL, outcome_itself, NULL, &out), ALEA_ERR_ARGUMENT);
    assert_string_equal(alea_ctx_error(ctx), "alea_dist_expect: NULL argument");
    assert_int_equal(alea_dist_expect(ctx, d, NULL, NULL, &out), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_dist_expect(ctx, d, outcome_itself, NULL, NULL), ALEA_ERR_ARGUMENT);
    assert_true(out == -1);
    alea_dist_free(d);
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
    /* a step refused before it starts says what the evaluation needed up
     * to it: that much lets the step through (the next one stops) */
    assert_int_equal(alea_expr_compile(ctx, "3d6*3d6", 7, &e), ALEA_OK);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 100);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    double need = alea_ctx_work_needed(ctx);
    assert_true(need > 100 && need < 1000);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, (int64_t)need - 1);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    assert_true(alea_ctx_work_needed(ctx) == need);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, (int64_t)need);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    assert_true(alea_ctx_work_needed(ctx) == 0 || alea_ctx_work_needed(ctx) > need);
    /* any other error, and success, clear it */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 1000000);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    assert_true(alea_ctx_work_needed(ctx) == 0);
    alea_dist_free(d);
    alea_expr_free(e);
    assert_true(alea_ctx_work_needed(NULL) == 0);
    /* a die past the support limit says how many outcomes it needs: one
     * more face than the limit, and one past the most it can be raised to */
    assert_int_equal(alea_expr_compile(ctx, "1d101", 5, &e), ALEA_OK);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 100);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    assert_true(alea_ctx_support_needed(ctx) == 101);
    assert_true(alea_ctx_work_needed(ctx) == 0);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 101);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    assert_true(alea_ctx_support_needed(ctx) == 0);
    alea_dist_free(d);
    alea_expr_free(e);
    assert_int_equal(alea_expr_compile(ctx, "1d99999999999", 13, &e), ALEA_OK);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, alea_limit_max(ALEA_LIMIT_SUPPORT));
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    assert_true(alea_ctx_support_needed(ctx) == 99999999999.0);
    alea_expr_free(e);
    assert_true(alea_ctx_support_needed(NULL) == 0);
    alea_ctx_free(ctx);
}

/* ALEA_FORMAT_CSV: the header, a row per outcome with its cumulative
 * columns, the snprintf contract; an estimate adds its interval; a roll has
 * no CSV; without memory for the columns the answer is 0. */
static void test_csv(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_dist *d = dist_of(ctx, "1d4");
    const char *want = "value,probability,at_least,at_most\n"
                       "1,0.25,1,0.25\n2,0.25,0.75,0.5\n3,0.25,0.5,0.75\n4,0.25,0.25,1\n";
    char buf[256], small[8];
    assert_int_equal(alea_dist_format(d, ALEA_FORMAT_CSV, buf, sizeof buf), strlen(want));
    assert_string_equal(buf, want);
    assert_int_equal(alea_dist_format(d, ALEA_FORMAT_CSV, NULL, 0), strlen(want));
    assert_int_equal(alea_dist_format(d, ALEA_FORMAT_CSV, small, sizeof small), strlen(want));
    assert_string_equal(small, "value,p");
    /* no room under the memory limit for the two columns */
    int64_t mem = alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, -1);
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, (int64_t)alea_ctx_memory(ctx, NULL) + 8);
    assert_int_equal(alea_dist_format(d, ALEA_FORMAT_CSV, buf, sizeof buf), 0);
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, mem);
    alea_dist_free(d);

    /* an estimate: two more columns, each row's interval around its p */
    alea_expr *e = NULL;
    assert_int_equal(alea_expr_compile(ctx, "1d2", 3, &e), ALEA_OK);
    alea_tally *t = alea_tally_new(ctx);
    assert_non_null(t);
    assert_int_equal(alea_tally_sample(ctx, e, t, 1000), ALEA_OK);
    assert_int_equal(alea_tally_dist(ctx, t, e, &d), ALEA_OK);
    size_t n = alea_dist_format(d, ALEA_FORMAT_CSV, buf, sizeof buf);
    assert_true(n > 0 && n < sizeof buf);
    assert_true(strncmp(buf, "value,probability,at_least,at_most,low95,high95\n1,", 50) == 0);
    double p, least, most, lo, hi;
    assert_int_equal(sscanf(strchr(buf, '\n') + 3, "%lf,%lf,%lf,%lf,%lf", &p, &least, &most,
                            &lo, &hi), 5);
    assert_true(lo < p && p < hi && least == 1 && most == p);
    alea_dist_free(d);

    /* a roll has no CSV */
    alea_roll *r = alea_roll_new(ctx);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    assert_int_equal(alea_roll_format(r, ALEA_FORMAT_CSV, buf, sizeof buf), 0);
    alea_roll_free(r);
    alea_tally_free(t);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* alea_ctx_error_line: the status's text before a message that does not
 * say it, the message alone where it does; "" after success. */
static void test_error_line(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    char line[ALEA_ERROR_LINE_MAX], small[8];
    alea_expr *e = NULL;
    assert_int_equal(alea_expr_compile(ctx, "1d6q7", 5, &e), ALEA_ERR_SYNTAX);
    size_t n = alea_ctx_error_line(ctx, line, sizeof line);
    assert_string_equal(line, "syntax error: unknown name 'q' at byte 3");
    assert_int_equal(n, strlen(line));
    assert_int_equal(alea_ctx_error_line(ctx, small, sizeof small), n);
    assert_string_equal(small, "syntax ");
    /* the message names its status already */
    assert_int_equal(alea_expr_compile(ctx, "9223372036854775807 + 1d6", 25, &e), ALEA_OK);
    alea_dist *d = NULL;
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_OVERFLOW);
    alea_ctx_error_line(ctx, line, sizeof line);
    assert_true(strncmp(line, "integer overflow at byte 0: ", 28) == 0);
    /* a limit's message names the limit */
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 3);
    alea_expr_free(e);
    assert_int_equal(alea_expr_compile(ctx, "1d6", 3, &e), ALEA_OK);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    alea_ctx_error_line(ctx, line, sizeof line);
    assert_string_equal(line, alea_ctx_error(ctx));
    /* after success, nothing */
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 100);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    assert_int_equal(alea_ctx_error_line(ctx, line, sizeof line), 0);
    assert_string_equal(line, "");
    assert_int_equal(alea_ctx_error_line(NULL, line, sizeof line), 0);
    alea_dist_free(d);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* Dialects: the names, finding one, refusing one out of range, the same
 * text read two ways, and the hint alea's own dialect gives. */
static void test_dialects(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    assert_string_equal(alea_dialect_name(ALEA_DIALECT_ROLL20), "roll20");
    assert_string_equal(alea_dialect_tool(ALEA_DIALECT_RPGDR), "rpg-dice-roller");
    assert_null(alea_dialect_name(ALEA_DIALECT__COUNT));
    assert_int_equal(alea_dialect_find("D20"), ALEA_DIALECT_D20);
    assert_int_equal(alea_dialect_find("anydice"), -1);
    assert_int_equal(alea_dialect_find(NULL), -1);
    assert_int_equal(alea_ctx_dialect(ctx), ALEA_DIALECT_ALEA);
    assert_int_equal(alea_ctx_set_dialect(ctx, ALEA_DIALECT__COUNT), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_ctx_dialect(ctx), ALEA_DIALECT_ALEA);

    alea_expr *e = NULL;
    char text[64];
    assert_int_equal(alea_expr_compile(ctx, "3d6>3", 5, &e), ALEA_OK);
    alea_expr_format(e, text, sizeof text);
    assert_string_equal(text, "3d6>3");
    assert_non_null(strstr(alea_expr_hint(e), "--dialect roll20"));
    alea_expr_free(e);
    assert_int_equal(alea_ctx_set_dialect(ctx, ALEA_DIALECT_ROLL20), ALEA_OK);
    assert_int_equal(alea_expr_compile(ctx, "3d6>3", 5, &e), ALEA_OK);
    alea_expr_format(e, text, sizeof text);
    assert_string_equal(text, "3d6>=3");
    assert_null(alea_expr_hint(e));
    alea_expr_free(e);
    /* Words after the roll describe it: a success, with no error left from
     * reading them as notation first. */
    assert_int_equal(alea_expr_compile(ctx, "2d6 fire damage", 15, &e), ALEA_OK);
    size_t s = 9, end = 9;
    assert_int_equal(alea_ctx_error_span(ctx, &s, &end), ALEA_OK);
    assert_int_equal(s + end, 0);
    assert_string_equal(alea_ctx_error(ctx), "");
    alea_expr_free(e);
    assert_null(alea_expr_hint(NULL));
    alea_ctx_free(ctx);
}

/* ALEA_FORMAT_MARKDOWN: dropped dice struck through, criticals bold, the
 * total in code, other markup characters escaped; the same text as
 * ALEA_FORMAT_TEXT once the markup is taken away. */
static void test_markdown(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    static const struct {
        const char *src, *want;
        uint64_t seed;
    } cases[] = {
        {"4d6kh3", "4d6kh3 [5, 4, ~~2~~, 4] = `13`", 3},
        {"2d6 * 2", "2d6 [2, **1**] \\* 2 = `6`", 11},
        {"1d6 /~ 2 + 1d20", "1d6 [5] /\\~ 2 + 1d20 [11] = `14`", 1},
        {"10d10>=8", "10d10>=8 [8\\*, 6, 6, 4, 7, 2, **1**, 4, 9\\*, 6] = `2`", 1},
    };
    char buf[256], text[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        alea_expr *e = NULL;
        alea_roll *r = alea_roll_new(ctx);
        assert_int_equal(alea_expr_compile(ctx, cases[i].src, strlen(cases[i].src), &e),
                         ALEA_OK);
        alea_ctx_seed(ctx, cases[i].seed);
        assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
        size_t n = alea_roll_format(r, ALEA_FORMAT_MARKDOWN, buf, sizeof buf);
        assert_string_equal(buf, cases[i].want);
        assert_int_equal(n, strlen(buf));
        /* without the markup, the text */
        alea_roll_format(r, ALEA_FORMAT_TEXT, text, sizeof text);
        char plain[256];
        size_t k = 0;
        for (const char *c = buf; *c; c++) {
            if (*c == '\\') {
                plain[k++] = *++c;
            } else if ((c[0] == '~' && c[1] == '~') || (c[0] == '*' && c[1] == '*')) {
                c++;
            } else if (*c != '`') {
                plain[k++] = *c;
            }
        }
        plain[k] = '\0';
        char *dropped;
        while ((dropped = strstr(text, " dropped")) != NULL) /* struck through instead */
            memmove(dropped, dropped + 8, strlen(dropped + 8) + 1);
        assert_string_equal(plain, text);
        alea_roll_free(r);
        alea_expr_free(e);
    }
    /* a format of rolls only */
    alea_dist *d = dist_of(ctx, "1d6");
    assert_int_equal(alea_dist_format(d, ALEA_FORMAT_MARKDOWN, buf, sizeof buf), 0);
    alea_dist_free(d);
    alea_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cumulate),
        cmocka_unit_test(test_luck),
        cmocka_unit_test(test_expect),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_work),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_error_line),
        cmocka_unit_test(test_dialects),
        cmocka_unit_test(test_markdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
