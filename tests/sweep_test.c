/* sweep_test.c -- tables (sweep.c, alea_table_new): each cell is the
 * distribution of the expression at the cell's values (by parameters, and
 * by the values written into the text where the language takes a fixed
 * number), the statistics, the formats, the errors with their texts and
 * spans, the cells limit at N and N + 1, and allocation failures. */
#include "support.h"

TEST_HEAP_CONTEXT

static alea_table *table_of(const char *src, const char *const *sw, size_t nsw,
                            const char *const *st, size_t nst)
{
    alea_table *t = NULL;
    alea_status s = alea_table_new(ctx, src, strlen(src), sw, nsw, st, nst, &t);
    if (s != ALEA_OK)
        fail_msg("%s: %s", src, alea_ctx_error(ctx));
    return t;
}

/* The statistic of the distribution of text (no names). */
static double stat_of(const char *text, const char *stat)
{
    alea_dist *d = dist_of(ctx, text);
    double x = 0;
    if (!strcmp(stat, "mean"))
        x = alea_dist_mean(d);
    else if (!strncmp(stat, "p>=", 3))
        x = alea_dist_at_least(d, atoll(stat + 3));
    else if (!strncmp(stat, "p<=", 3))
        x = alea_dist_at_most(d, atoll(stat + 3));
    else if (!strncmp(stat, "p=", 2))
        x = alea_dist_p(d, atoll(stat + 2));
    else if (!strcmp(stat, "median"))
        x = (double)alea_dist_median(d);
    else
        for (size_t i = 0; i < alea_dist_flag_count(d); i++)
            if (!strcmp(alea_dist_flag_name(d, i), stat))
                x = alea_dist_flag_prob(d, i);
    alea_dist_free(d);
    return x;
}

/* The texts with a cell's values written in, for each table below. */
typedef void text_fn(char *buf, size_t cap, long long a, long long b);
static void at_hit(char *buf, size_t cap, long long a, long long b)
{
    snprintf(buf, cap, "let m = %lld, dc = %lld in d20 + m >= dc", a, b);
}
static void at_dd(char *buf, size_t cap, long long a, long long b)
{
    snprintf(buf, cap, "dd(%lld, %lld, best)", a, b);
}
static void at_tier(char *buf, size_t cap, long long a, long long b)
{
    (void)b;
    snprintf(buf, cap, "event(tier(d4, +%lld))", a);
}
static void at_dice(char *buf, size_t cap, long long a, long long b)
{
    (void)b;
    snprintf(buf, cap, "2d6 +%lld DICE", a);
}
static void at_minus(char *buf, size_t cap, long long a, long long b)
{
    (void)b;
    snprintf(buf, cap, "let n = %lld in 3d6 - n", a);
}

/* Each cell of the table equals alea_expr_dist on the text with the values
 * written in by fmt. */
static void cells_are(const char *src, const char *const *sw, size_t nsw, const char *stat,
                      text_fn *fmt)
{
    alea_table *t = table_of(src, sw, nsw, &stat, 1);
    char text[128];
    assert_int_equal(alea_table_sweep_count(t), nsw);
    for (size_t r = 0; r < alea_table_rows(t); r++)
        for (size_t c = 0; c < alea_table_cols(t); c++) {
            long long a = (long long)alea_table_value(t, 0, r);
            long long b = nsw > 1 ? (long long)alea_table_value(t, 1, c) : 0;
            fmt(text, sizeof text, a, b);
            assert_double_equal(alea_table_cell(t, 0, r, c), stat_of(text, stat), 1e-12);
        }
    alea_table_free(t);
}

static void test_cells_are_dists(void **state)
{
    (void)state;
    const char *hit[] = {"m=0..3", "dc=10,15"};
    cells_are("d20 + m >= dc", hit, 2, "mean", at_hit);
    /* the values written in: dd()'s modifier, tier()'s steps, +n DICE */
    const char *dd[] = {"m=0..4", "d=10..12"};
    cells_are("dd(m, d, best)", dd, 2, "p>=2", at_dd);
    const char *tier[] = {"n=0..6"};
    cells_are("event(tier(d4, +n))", tier, 1, "critical failure", at_tier);
    cells_are("event(tier(d4, +n))", tier, 1, "mean", at_tier);
    const char *dice[] = {"n=0..3"};
    cells_are("2d6 +n DICE", dice, 1, "p>=7", at_dice);
    /* a negative value after '+' turns the sign: "2d6 -2 DICE" */
    const char *neg[] = {"n=-2"};
    alea_table *t = table_of("2d6 +n DICE", neg, 1, NULL, 0);
    assert_double_equal(alea_table_cell(t, 0, 0, 0), stat_of("2d6 -2 DICE", "mean"), 1e-12);
    alea_table_free(t);
    const char *minus[] = {"n=-2,0,5"};
    cells_are("3d6 - n", minus, 1, "p<=9", at_minus);
}

static void test_stats_and_accessors(void **state)
{
    (void)state;
    const char *sw[] = {"n=0..10..5,-1"};
    const char *st[] = {"mean", "sd", "median", "p90", "p>=6", "p<=3", "p=4"};
    alea_table *t = table_of("d6 + n", sw, 1, st, 7);
    assert_int_equal(alea_table_rows(t), 4);
    assert_int_equal(alea_table_cols(t), 1);
    assert_int_equal(alea_table_stat_count(t), 7);
    assert_string_equal(alea_table_name(t, 0), "n");
    assert_null(alea_table_name(t, 1));
    assert_int_equal(alea_table_value_count(t, 0), 4);
    assert_int_equal(alea_table_value(t, 0, 1), 5);
    assert_int_equal(alea_table_value(t, 0, 3), -1);
    assert_string_equal(alea_table_stat(t, 4), "p>=6");
    assert_false(alea_table_stat_is_prob(t, 0)); /* d6 + n is no chance */
    assert_true(alea_table_stat_is_prob(t, 4));
    assert_true(alea_table_stat_is_outcome(t, 2));
    assert_false(alea_table_stat_is_outcome(t, 0));
    assert_double_equal(alea_table_cell(t, 0, 1, 0), 8.5, 1e-15);
    assert_double_equal(alea_table_cell(t, 2, 0, 0), 3, 0);
    assert_string_equal(alea_table_cell_text(t, 2, 0, 0), "3");
    assert_double_equal(alea_table_cell(t, 4, 0, 0), 1.0 / 6, 1e-15);
    assert_double_equal(alea_table_cell(t, 6, 0, 0), 1.0 / 6, 1e-15);
    assert_null(alea_table_cell_text(t, 4, 0, 0)); /* doubles: no fraction */
    assert_double_equal(alea_table_cell(t, 0, 9, 0), 0, 0); /* out of range */
    alea_table_free(t);
    /* a mean of 0 and 1 is a chance */
    const char *m[] = {"m=0..1"};
    t = table_of("d20 + m >= 15", m, 1, NULL, 0);
    assert_true(alea_table_stat_is_prob(t, 0));
    assert_string_equal(alea_table_stat(t, 0), "mean");
    alea_table_free(t);
    alea_table_free(NULL);
}

static void test_formats(void **state)
{
    (void)state;
    const char *sw[] = {"m=0..1", "dc=10,15"};
    alea_table *t = table_of("d20 + m >= dc", sw, 2, NULL, 0);
    char buf[512];
    const char *json = "{\"expression\": \"d20 + m >= dc\", \"names\": [\"m\", \"dc\"], "
                       "\"values\": [[0, 1], [10, 15]], \"stats\": [{\"stat\": \"mean\", "
                       "\"cells\": [[0.55, 0.3], [0.6, 0.35]]}]}";
    size_t n = alea_table_format(t, ALEA_FORMAT_JSON, NULL, 0);
    assert_int_equal(n, strlen(json));
    assert_int_equal(alea_table_format(t, ALEA_FORMAT_JSON, buf, sizeof buf), n);
    assert_string_equal(buf, json);
    assert_int_equal(alea_table_format(t, ALEA_FORMAT_JSON, buf, 5), n); /* truncated */
    assert_string_equal(buf, "{\"ex");
    alea_table_format(t, ALEA_FORMAT_CSV, buf, sizeof buf);
    assert_string_equal(buf, "stat,m,dc=10,dc=15\nmean,0,0.55,0.3\nmean,1,0.6,0.35\n");
    assert_int_equal(alea_table_format(t, ALEA_FORMAT_TEXT, buf, sizeof buf), 0);
    /* the output limit at N and N + 1 */
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)n);
    assert_int_equal(alea_table_format(t, ALEA_FORMAT_JSON, buf, sizeof buf), n);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)n - 1);
    assert_int_equal(alea_table_format(t, ALEA_FORMAT_JSON, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_non_null(strstr(alea_ctx_error(ctx), "too much output: the table's JSON"));
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, alea_limit_default(ALEA_LIMIT_OUTPUT));
    alea_table_free(t);
    /* fractions in exact mode, outcomes as whole numbers */
    if (alea_ctx_set_exact(ctx, 1) == ALEA_OK) {
        const char *n1[] = {"n=1..2"}, *st[] = {"mean", "p>=6", "median"};
        t = table_of("d6 + n", n1, 1, st, 3);
        assert_string_equal(alea_table_cell_text(t, 0, 0, 0), "9/2");
        assert_string_equal(alea_table_cell_text(t, 1, 1, 0), "1/2");
        alea_table_format(t, ALEA_FORMAT_CSV, buf, sizeof buf);
        assert_string_equal(buf, "n,mean,p>=6,median\n1,9/2,1/3,4\n2,11/2,1/2,5\n");
        alea_table_format(t, ALEA_FORMAT_JSON, buf, sizeof buf);
        assert_non_null(strstr(buf, "{\"stat\": \"median\", \"cells\": [4, 5]}"));
        assert_non_null(strstr(buf, "{\"stat\": \"mean\", \"cells\": [\"9/2\", \"11/2\"]}"));
        alea_table_free(t);
        alea_ctx_set_exact(ctx, 0);
    }
}

/* alea_table_new fails with status, the message holding want, the span
 * [start, end) in the text named by part and index. */
static void fails(const char *src, const char *const *sw, size_t nsw, const char *const *st,
                  size_t nst, alea_status status, const char *want, alea_table_part part,
                  size_t index, size_t start, size_t end)
{
    alea_table *t = (alea_table *)1;
    size_t s, e, k = 99;
    assert_int_equal(alea_table_new(ctx, src, strlen(src), sw, nsw, st, nst, &t), status);
    assert_ptr_equal(t, (alea_table *)1); /* written only on success */
    if (!strstr(alea_ctx_error(ctx), want))
        fail_msg("'%s' is not in '%s'", want, alea_ctx_error(ctx));
    assert_int_equal(alea_table_error_part(ctx, &k), part);
    assert_int_equal(k, index);
    alea_ctx_error_span(ctx, &s, &e);
    assert_int_equal(s, start);
    assert_int_equal(e, end);
}

static void test_errors(void **state)
{
    (void)state;
    const char *bad[] = {"n=1..x"}, *back[] = {"n=5..3"}, *noeq[] = {"=1..3"};
    const char *three[] = {"n=1", "m=1", "k=1"}, *twice[] = {"n=1..2", "n=3"};
    const char *unused[] = {"n=1..2", "m=1"}, *n1[] = {"n=1"}, *x[] = {"m=1", "x=1"};
    const char *st_bad[] = {"p>=x"}, *st_pct[] = {"p101"}, *st_crit[] = {"crit"};
    fails("d20 + n", bad, 1, NULL, 0, ALEA_ERR_SYNTAX, "bad range '1..x' in 'n=1..x'",
          ALEA_TABLE_SWEEP, 0, 2, 6);
    fails("d20 + n", back, 1, NULL, 0, ALEA_ERR_SYNTAX, "ends before it starts",
          ALEA_TABLE_SWEEP, 0, 2, 6);
    fails("d20 + n", noeq, 1, NULL, 0, ALEA_ERR_SYNTAX, "is not NAME=A..B", ALEA_TABLE_SWEEP,
          0, 0, 5);
    fails("d20 + n", three, 3, NULL, 0, ALEA_ERR_ARGUMENT, "at most two names",
          ALEA_TABLE_SWEEP, 2, 0, 3);
    fails("d20 + n", NULL, 0, NULL, 0, ALEA_ERR_ARGUMENT, "at least one NAME=A..B",
          ALEA_TABLE_SWEEP, 0, 0, 0);
    fails("d20 + n", twice, 2, NULL, 0, ALEA_ERR_ARGUMENT, "'n' is swept twice",
          ALEA_TABLE_SWEEP, 1, 0, 1);
    fails("d20 + n", unused, 2, NULL, 0, ALEA_ERR_ARGUMENT, "'m' is swept but the "
          "expression never uses it", ALEA_TABLE_SWEEP, 1, 0, 1);
    fails("dd(m, 10)", x, 2, NULL, 0, ALEA_ERR_ARGUMENT, "'x' is swept but",
          ALEA_TABLE_SWEEP, 1, 0, 1);
    fails("d20 + n", n1, 1, st_bad, 1, ALEA_ERR_SYNTAX, "stat 'p>=x': a whole number after "
          "'p>='", ALEA_TABLE_STAT, 0, 3, 4);
    fails("d20 + n", n1, 1, st_pct, 1, ALEA_ERR_SYNTAX, "a percentile from p0 to p100",
          ALEA_TABLE_STAT, 0, 1, 4);
    fails("d20 + n", n1, 1, st_crit, 1, ALEA_ERR_ARGUMENT, "nor a named probability the "
          "expression reports (it reports none)", ALEA_TABLE_STAT, 0, 0, 4);
    fails("event(tier(d4, +n))", n1, 1, st_crit, 1, ALEA_ERR_ARGUMENT,
          "reports ('critical failure')", ALEA_TABLE_STAT, 0, 0, 4);
    /* the expression's errors: its own span; a cell's, named */
    fails("d20 + b", n1, 1, NULL, 0, ALEA_ERR_SYNTAX, "unknown name 'b' at byte 6 (in "
          "scope: n)", ALEA_TABLE_EXPRESSION, 0, 6, 7);
    const char *zero[] = {"n=1,0"};
    fails("d20 / n", zero, 1, NULL, 0, ALEA_ERR_DOMAIN, "at n=0: ", ALEA_TABLE_EXPRESSION, 0,
          6, 7);
    /* with the values written in: the span is the name's in the text */
    const char *big[] = {"n=-9223372036854775808"};
    alea_table *t;
    assert_int_equal(alea_table_new(ctx, "dd(n, 10)", 9, big, 1, NULL, 0, &t),
                     ALEA_ERR_SYNTAX);
    assert_non_null(strstr(alea_ctx_error(ctx), "at n=-9223372036854775808, with the values "
                                                "written in: "));
    size_t s, e;
    alea_ctx_error_span(ctx, &s, &e);
    assert_int_equal(s, 3);
    assert_int_equal(e, 4);
    assert_int_equal(alea_table_new(NULL, "d6", 2, n1, 1, NULL, 0, &t), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_table_new(ctx, "d6", 2, n1, 1, NULL, 0, NULL), ALEA_ERR_ARGUMENT);
}

/* The cells limit at N and N + 1, and the cells' one work budget. */
static void test_limits(void **state)
{
    (void)state;
    alea_table *t = NULL;
    const char *at[] = {"n=1..100", "m=1..100"}, *past[] = {"n=1..100", "m=0..100"};
    assert_int_equal(alea_ctx_limit(ctx, ALEA_LIMIT_CELLS, -1), 10000);
    assert_int_equal(alea_table_new(ctx, "n + m", 5, at, 2, NULL, 0, &t), ALEA_OK);
    assert_int_equal(alea_table_rows(t) * alea_table_cols(t), 10000);
    alea_table_free(t);
    fails("n + m", past, 2, NULL, 0, ALEA_ERR_LIMIT, "100 x 101 = 10100 cells, more than the "
          "cells limit (10000)", ALEA_TABLE_SWEEP, 1, 0, 8);
    alea_ctx_limit(ctx, ALEA_LIMIT_CELLS, 12);
    const char *twelve[] = {"n=1..3", "m=1..4"}, *fifteen[] = {"n=1..3", "m=0..4"};
    assert_int_equal(alea_table_new(ctx, "d4 + n + m", 10, twelve, 2, NULL, 0, &t), ALEA_OK);
    alea_table_free(t);
    fails("d4 + n + m", fifteen, 2, NULL, 0, ALEA_ERR_LIMIT, "3 x 5 = 15 cells",
          ALEA_TABLE_SWEEP, 1, 0, 6);
    const char *row13[] = {"n=1..13"};
    fails("d4 + n", row13, 1, NULL, 0, ALEA_ERR_LIMIT, "'n=1..13' has more than 12 values",
          ALEA_TABLE_SWEEP, 0, 2, 7);
    alea_ctx_limit(ctx, ALEA_LIMIT_CELLS, alea_limit_default(ALEA_LIMIT_CELLS));
    /* work: the cells share the budget; the least that passes, and one less */
    const char *four[] = {"n=1..4"};
    int64_t lo = 0, hi = 1 << 24;
    while (lo + 1 < hi) {
        int64_t mid = (lo + hi) / 2;
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, mid);
        alea_status s = alea_table_new(ctx, "10d6 + n", 8, four, 1, NULL, 0, &t);
        if (s == ALEA_OK)
            alea_table_free(t), hi = mid;
        else
            lo = mid;
    }
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, hi);
    assert_int_equal(alea_table_new(ctx, "10d6 + n", 8, four, 1, NULL, 0, &t), ALEA_OK);
    alea_table_free(t);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, hi - 1);
    assert_int_equal(alea_table_new(ctx, "10d6 + n", 8, four, 1, NULL, 0, &t), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "work limit"));
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 1000000);
    alea_dist *one = NULL;
    alea_expr *e = compile(ctx, "let n = 1 in 10d6 + n");
    assert_int_equal(alea_expr_dist(ctx, e, &one), ALEA_OK);
    assert_true(hi > 3 * alea_ctx_work(ctx)); /* four cells' work, not one's */
    alea_dist_free(one);
    alea_expr_free(e);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
}

/* Each allocation failing in turn: the out-of-memory status, nothing leaked. */
static void test_out_of_memory(void **state)
{
    (void)state;
    const char *sw[] = {"m=0..2", "d=10..11"}, *st[] = {"p>=2", "mean"};
    for (long n = 1;; n++) {
        alea_table *t = NULL;
        long live = fa.live;
        heap_fail_at(&fa, n);
        alea_status s = alea_table_new(ctx, "dd(m, d, best)", 14, sw, 2, st, 2, &t);
        heap_fail_at(&fa, 0);
        if (s == ALEA_OK) {
            alea_table_free(t);
            assert_int_equal(fa.live, live);
            break;
        }
        assert_int_equal(s, ALEA_ERR_NOMEM);
        assert_int_equal(fa.live, live);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cells_are_dists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats_and_accessors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_formats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
