/* sweep_test.c -- tables (sweep.c, alea_table_new): each cell is the
 * distribution of the expression at the cell's values (by parameters, and
 * by the values written into the text where the language takes a fixed
 * number), the statistics, the formats and the picture (alea_table_svg),
 * the errors with their texts and spans, the cells limit at N and N + 1,
 * and allocation failures. */
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
    else if (stat[0] == 'p' && stat[1] >= '0' && stat[1] <= '9')
        x = (double)alea_dist_percentile(d, atof(stat + 1) / 100);
    else
        for (size_t i = 0; i < alea_dist_flag_count(d); i++)
            if (!strcmp(alea_dist_flag_name(d, i), stat))
                x = alea_dist_flag_prob(d, i);
    alea_dist_free(d);
    return x;
}

/* The texts with a cell's values written in, for each table below: the
 * first value for '@', the second for '#'. */
static const char at_hit[] = "let m = @, dc = # in d20 + m >= dc";
static const char at_dd[] = "dd(@, #, best)";
static const char at_tier[] = "event(tier(d4, +@))";
static const char at_dice[] = "2d6 +@ DICE";
static const char at_minus[] = "let n = @ in 3d6 - n";
static const char at_keep[] = "let m = @, dc = # in 10d10!kh5 + m >= dc";
static const char at_scale[] = "let m = @ in let a = 40d20kh10 in a * m";
/* a keep whose work is most of its distribution's in fractions too (the
 * 40d20kh10 above costs less than its fractions' decimal forms there) */
static const char at_scale_keep[] = "let m = @ in let a = 10d100kh5 in a * m";
static const char at_mixed[] = "let m = @, n = # in let a = d6 in a + 3d6 + m >= 4d4 + n";
static const char at_certain[] = "let m = @ in let k = m + 1 in 4d6kh3 * k + 2d8";
static const char at_small[] = "let m = @, dc = # in let b = 4d20kh2 + 3d6! in b + m >= dc";
static const char at_rare[] = "let m = @ in (500d6) >= 501 + m";

/* tmpl with its '@' and '#' written as a and b. */
static void fill(char *out, size_t cap, const char *tmpl, long long a, long long b)
{
    size_t at = 0;
    for (; *tmpl && at + 24 < cap; tmpl++)
        if (*tmpl == '@' || *tmpl == '#')
            at += (size_t)snprintf(out + at, cap - at, "%lld", *tmpl == '@' ? a : b);
        else
            out[at++] = *tmpl;
    out[at] = '\0';
}

/* Each cell of the table equals alea_expr_dist on the text with the values
 * written in by fmt; in exact mode, a mean to the digit. */
static void cells_are(const char *src, const char *const *sw, size_t nsw, const char *stat,
                      const char *fmt)
{
    alea_table *t = table_of(src, sw, nsw, &stat, 1);
    char text[128];
    assert_int_equal(alea_table_sweep_count(t), nsw);
    for (size_t r = 0; r < alea_table_rows(t); r++)
        for (size_t c = 0; c < alea_table_cols(t); c++) {
            long long a = (long long)alea_table_value(t, 0, r);
            long long b = nsw > 1 ? (long long)alea_table_value(t, 1, c) : 0;
            fill(text, sizeof text, fmt, a, b);
            assert_double_equal(alea_table_cell(t, 0, r, c), stat_of(text, stat), 1e-12);
            const char *f = alea_table_cell_text(t, 0, r, c);
            if (f && !strcmp(stat, "mean")) {
                char want[256];
                alea_dist *d = dist_of(ctx, text);
                alea_dist_fraction(d, ALEA_FRACTION_MEAN, 0, want, sizeof want);
                assert_string_equal(f, want);
                alea_dist_free(d);
            }
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

/* The parts that read no name are computed once for the whole table
 * (share.h): each cell is still the distribution of its own text, in
 * doubles and in fractions. */
static const struct shared_case {
    const char *src, *sweep[2], *stat, *tmpl;
    int exact; /* checked in fractions too */
} shared_cases[] = {
    {"10d10!kh5 + m >= dc", {"m=0..10", "dc=25..37"}, "mean", at_keep, 0},
    {"let a = 40d20kh10 in a * m", {"m=1..20"}, "mean", at_scale, 0},
    {"let a = 40d20kh10 in a * m", {"m=1..20"}, "p>=2000", at_scale, 1},
    {"let a = d6 in a + 3d6 + m >= 4d4 + n", {"m=-2..2", "n=0..3"}, "mean", at_mixed, 1},
    {"let k = m + 1 in 4d6kh3 * k + 2d8", {"m=0..4"}, "median", at_certain, 0},
    {"let k = m + 1 in 4d6kh3 * k + 2d8", {"m=0..4"}, "p<=20", at_certain, 0},
    {"let b = 4d20kh2 + 3d6! in b + m >= dc", {"m=0..1", "dc=8..9"}, "mean", at_small, 1},
    /* a part near the double range, kept: each cell that copies it is still
     * computed again in fractions (the chance of all ones, 6^-500, makes
     * 0 an outcome, the first percentile's) */
    {"(500d6) >= 501 + m", {"m=0..1"}, "p0", at_rare, 0},
};

static void test_shared_cells_are_dists(void **state)
{
    (void)state;
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        for (size_t i = 0; i < sizeof shared_cases / sizeof shared_cases[0]; i++) {
            const struct shared_case *k = &shared_cases[i];
            if (k->exact || !exact)
                cells_are(k->src, k->sweep, k->sweep[1] ? 2 : 1, k->stat, k->tmpl);
        }
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
}

/* The sharing happened: the table's work (the context's after it) is its
 * cells' work one by one less, for each cell but the first, about the work
 * of the part they share (at least 3/4 of it: a copy is charged); and no
 * less than one cell's. */
static void test_shared_work(void **state)
{
    (void)state;
    const char *scale[] = {"m=1..20"};
    /* the limit raised: 10d100kh5 in doubles costs more than in fractions */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 1000000000);
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        alea_table *t = table_of("let a = 10d100kh5 in a * m", scale, 1, NULL, 0);
        int64_t table = alea_ctx_work(ctx), cells = 0, most = 0;
        alea_dist_free(dist_of(ctx, "10d100kh5"));
        int64_t part = alea_ctx_work(ctx);
        char text[128];
        for (size_t r = 0; r < alea_table_rows(t); r++) {
            fill(text, sizeof text, at_scale_keep, (long long)alea_table_value(t, 0, r), 0);
            alea_dist_free(dist_of(ctx, text));
            cells += alea_ctx_work(ctx);
            most = alea_ctx_work(ctx) > most ? alea_ctx_work(ctx) : most;
        }
        alea_table_free(t);
        if (table < most || 4 * (cells - table) < 3 * 19 * part)
            fail_msg("exact %d: the table's work %lld, its cells' %lld (the most %lld, the "
                     "part shared %lld)", exact, (long long)table, (long long)cells,
                     (long long)most, (long long)part);
    }
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
    /* 10d10!kh5 once, then 143 shifts and comparisons: within the default
     * budget, which 143 computations of it pass */
    const char *keep[] = {"m=0..10", "dc=10..22"};
    alea_table *t = table_of("10d10!kh5 + m >= dc", keep, 2, NULL, 0);
    int64_t table = alea_ctx_work(ctx);
    alea_table_free(t);
    alea_dist *d = dist_of(ctx, "10d10!kh5");
    assert_true(143 * alea_ctx_work(ctx) > alea_limit_default(ALEA_LIMIT_WORK));
    assert_true(table < 2 * alea_ctx_work(ctx));
    alea_dist_free(d);
}

/* The MEMORY limit at N and N + 1 on a table that keeps a part for its
 * cells, each run in a fresh context (the allocations are the same each
 * time): the least limit that passes, N, and N - 1 that fails with the
 * memory limit, the context never past it; no more than the peak the table
 * had with no limit, because what is kept is given back. */
static alea_status table_in(int64_t limit, int exact, size_t *peak)
{
    alea_ctx *c = alea_ctx_new(NULL, NULL);
    assert_non_null(c);
    if (limit)
        alea_ctx_limit(c, ALEA_LIMIT_MEMORY, limit);
    if (exact)
        assert_int_equal(alea_ctx_set_exact(c, 1), ALEA_OK);
    const char *sw[] = {"m=1..4"}, *src = "let a = 40d20kh10 in a * m + 6d6";
    alea_table *t = NULL;
    alea_status s = alea_table_new(c, src, strlen(src), sw, 1, NULL, 0, &t);
    if (s != ALEA_OK && (s != ALEA_ERR_LIMIT || !strstr(alea_ctx_error(c), "memory limit")))
        fail_msg("limit %lld: %s (%s)", (long long)limit, alea_status_name(s),
                 alea_ctx_error(c));
    alea_table_free(t);
    alea_ctx_memory(c, peak);
    alea_ctx_free(c);
    return s;
}

static void test_shared_memory_limit(void **state)
{
    (void)state;
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        size_t peak, p;
        assert_int_equal(table_in(0, exact, &peak), ALEA_OK);
        int64_t lo = 0, hi = (int64_t)peak; /* lo fails, hi passes */
        while (lo + 1 < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (table_in(mid, exact, &p) == ALEA_OK)
                hi = mid;
            else
                lo = mid;
            assert_true(p <= (size_t)mid);
        }
        assert_int_equal(table_in(hi, exact, &p), ALEA_OK);
        assert_true(p <= (size_t)hi);
        assert_int_equal(table_in(hi - 1, exact, &p), ALEA_ERR_LIMIT);
        assert_true(p <= (size_t)hi - 1);
        /* in doubles the part kept is held while a later cell peaks (in
         * fractions the first cell's computation of it is the peak) */
        if (!(exact ? hi <= (int64_t)peak : hi < (int64_t)peak))
            fail_msg("exact %d: needs %lld bytes, the peak with no limit %zu", exact,
                     (long long)hi, peak);
    }
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

/* The picture as `alea table --svg` built it from the accessors (the
 * arrays of alea_svg_grid: a heat map of stat k with two names, titled
 * "STAT of EXPR"; a line per statistic with one, titled by the
 * expression). Owned by the caller. */
static char *grid_svg(const alea_table *t, const char *src, size_t k)
{
    size_t nsw = alea_table_sweep_count(t), nst = alea_table_stat_count(t);
    size_t nr = alea_table_rows(t), nc = nsw > 1 ? alea_table_cols(t) : nst;
    double x[64];
    int64_t rows[32];
    char digits[16][24], title[128];
    const char *labels[16];
    int prob = 1;
    assert_true(nr <= 32 && nc <= 16 && nr * nc <= 64);
    for (size_t c = 0; c < nc; c++) {
        snprintf(digits[c], sizeof digits[c], "%lld", (long long)alea_table_value(t, 1, c));
        labels[c] = nsw > 1 ? digits[c] : alea_table_stat(t, c);
        if (nsw == 1)
            prob = prob && alea_table_stat_is_prob(t, c);
    }
    if (nsw > 1)
        prob = alea_table_stat_is_prob(t, k);
    for (size_t r = 0; r < nr; r++) {
        rows[r] = alea_table_value(t, 0, r);
        for (size_t c = 0; c < nc; c++)
            x[r * nc + c] = nsw > 1 ? alea_table_cell(t, k, r, c) : alea_table_cell(t, c, r, 0);
    }
    snprintf(title, sizeof title, nsw > 1 ? "%s of %s" : "%.0s%s", alea_table_stat(t, k), src);
    size_t len = alea_svg_grid(ctx, title, alea_table_name(t, 0), rows, nr,
                               nsw > 1 ? alea_table_name(t, 1) : NULL, labels, nc, x, prob, NULL, 0);
    char *p = malloc(len + 1);
    assert_non_null(p);
    alea_svg_grid(ctx, title, alea_table_name(t, 0), rows, nr, nsw > 1 ? alea_table_name(t, 1) : NULL,
                  labels, nc, x, prob, p, len + 1);
    return p;
}

/* alea_table_svg of t's statistic k is grid_svg's, whole and cut short. */
static void svg_is_grid(const alea_table *t, const char *src, size_t k)
{
    char *want = grid_svg(t, src, k);
    size_t n = alea_table_svg(t, k, NULL, 0);
    assert_int_equal(n, strlen(want));
    char *got = malloc(n + 1), small[24];
    assert_int_equal(alea_table_svg(t, k, got, n + 1), n);
    assert_string_equal(got, want);
    assert_int_equal(alea_table_svg(t, k, small, sizeof small), n); /* truncated */
    assert_memory_equal(small, want, sizeof small - 1);
    assert_int_equal(small[sizeof small - 1], '\0');
    free(got);
    free(want);
}

static void test_svg(void **state)
{
    (void)state;
    /* two names: the heat map of each statistic in turn */
    const char *sw[] = {"m=0..3", "dc=10,12,15"}, *st[] = {"mean", "sd", "median"};
    alea_table *t = table_of("d20 + m >= dc", sw, 2, st, 3);
    for (size_t k = 0; k < 3; k++)
        svg_is_grid(t, "d20 + m >= dc", k);
    size_t n = alea_table_svg(t, 0, NULL, 0);
    char *s = malloc(n + 1);
    alea_table_svg(t, 0, s, n + 1);
    assert_non_null(strstr(s, "<title id=\"alea-title\">mean of d20 + m &gt;= dc</title>"));
    assert_non_null(strstr(s, "m 0: dc 10 55%, dc 12 45%, dc 15 30%."));
    free(s);
    /* a statistic past the table's: nothing, an argument error */
    char buf[16] = "x";
    assert_int_equal(alea_table_svg(t, 3, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(alea_ctx_error_span(ctx, NULL, NULL), ALEA_ERR_ARGUMENT);
    /* the output limit at N and N + 1, over the expression */
    n = alea_table_svg(t, 1, NULL, 0);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)n);
    assert_int_equal(alea_table_svg(t, 1, NULL, 0), n);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)n - 1);
    assert_int_equal(alea_table_svg(t, 1, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    size_t a = 1, b = 0;
    assert_int_equal(alea_ctx_error_span(ctx, &a, &b), ALEA_ERR_LIMIT);
    assert_int_equal(a, 0);
    assert_int_equal(b, strlen("d20 + m >= dc"));
    assert_non_null(strstr(alea_ctx_error(ctx), "too much output: the SVG passes"));
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, alea_limit_default(ALEA_LIMIT_OUTPUT));
    alea_table_free(t);
    /* one name: a line per statistic, whatever stat is; in percent only
     * when every statistic is a probability */
    const char *one[] = {"n=0..4"}, *ps[] = {"p>=6", "p<=2"}, *mixed[] = {"mean", "p>=6"};
    t = table_of("d6 + n", one, 1, mixed, 2);
    svg_is_grid(t, "d6 + n", 0);
    s = grid_svg(t, "d6 + n", 0);
    n = alea_table_svg(t, 7, NULL, 0);
    assert_int_equal(n, strlen(s));
    free(s);
    alea_table_free(t);
    t = table_of("d6 + n", one, 1, ps, 2);
    svg_is_grid(t, "d6 + n", 0);
    alea_table_free(t);
    t = table_of("event(tier(d4, +n))", (const char *[]){"n=0..6"}, 1,
                 (const char *[]){"mean", "critical failure"}, 2);
    svg_is_grid(t, "event(tier(d4, +n))", 0);
    alea_table_free(t);
    /* each allocation failing in turn: out of memory, nothing leaked */
    t = table_of("d20 + m >= dc", sw, 2, st, 1);
    alea_table *u = table_of("d6 + n", one, 1, ps, 2);
    for (int which = 0; which < 2; which++) {
        alea_table *x = which ? u : t;
        size_t whole = alea_table_svg(x, 0, NULL, 0);
        for (long k = 1;; k++) {
            long live = fa.live;
            heap_fail_at(&fa, k);
            size_t got = alea_table_svg(x, 0, NULL, 0);
            heap_fail_at(&fa, 0);
            assert_int_equal(fa.live, live);
            if (got) {
                assert_int_equal(got, whole);
                break;
            }
            assert_int_equal(alea_ctx_error_span(ctx, NULL, NULL), ALEA_ERR_NOMEM);
        }
    }
    alea_table_free(u);
    alea_table_free(t);
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
    /* the limit the error names is the one set, not what the last cell had
     * left of it (once "work limit is -2340505") */
    char said[64];
    snprintf(said, sizeof said, "(work limit is %lld)", (long long)(hi - 1));
    assert_non_null(strstr(alea_ctx_error(ctx), said));
    /* a cell past the limit, the table having used most of it: the same */
    const char *sixty[] = {"m=1..60"};
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
    assert_int_equal(alea_table_new(ctx, "sum(m, 10d10)", 13, sixty, 1, NULL, 0, &t),
                     ALEA_ERR_LIMIT);
    snprintf(said, sizeof said, "(work limit is %lld)",
             (long long)alea_limit_default(ALEA_LIMIT_WORK));
    assert_non_null(strstr(alea_ctx_error(ctx), said));
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 1000000);
    alea_dist *one = NULL;
    alea_expr *e = compile(ctx, "let n = 1 in 10d6 + n");
    assert_int_equal(alea_expr_dist(ctx, e, &one), ALEA_OK);
    /* 10d6 once for the four cells (share.h): less than two cells' work */
    assert_true(hi < 2 * alea_ctx_work(ctx));
    alea_dist_free(one);
    alea_expr_free(e);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
}

/* Written into the text, each cell's compilation is charged before it
 * starts, 512 units a byte of the cell's text (sweep.c): the table's work is
 * its cells' distributions and those bytes. At that work the table fits; a
 * byte more is the work limit's error, and a unit less than the last cell's
 * compilation needs is that error before it, over the whole expression. */
static void test_compile_work(void **state)
{
    (void)state;
    const char *four[] = {"n=1..4"};
    const char *src = "2d6 +n DICE", *longer = "2d6 +n DICE ";
    int64_t want = 0, last = 0;
    for (int n = 1; n <= 4; n++) {
        char text[32];
        snprintf(text, sizeof text, "2d6 +%d DICE", n);
        alea_dist *d = dist_of(ctx, text);
        last = alea_ctx_work(ctx);
        want += last + 512 * (int64_t)strlen(text);
        alea_dist_free(d);
    }
    alea_table *t = table_of(src, four, 1, NULL, 0);
    assert_int_equal(alea_ctx_work(ctx), want);
    alea_table_free(t);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, want);
    t = table_of(src, four, 1, NULL, 0);
    alea_table_free(t);
    char said[96];
    snprintf(said, sizeof said, "(work limit is %lld)", (long long)want);
    t = NULL;
    assert_int_equal(alea_table_new(ctx, longer, strlen(longer), four, 1, NULL, 0, &t),
                     ALEA_ERR_LIMIT);
    assert_null(t);
    assert_non_null(strstr(alea_ctx_error(ctx), said));
    int64_t short_by_one = want - last - 1;
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, short_by_one);
    snprintf(said, sizeof said, "at n=4: too much work to compute at byte 0 (work limit is "
             "%lld)", (long long)short_by_one);
    fails(src, four, 1, NULL, 0, ALEA_ERR_LIMIT, said, ALEA_TABLE_EXPRESSION, 0, 0,
          strlen(src));
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
}

/* Each allocation failing in turn: the out-of-memory status, nothing leaked. */
static void fails_each_allocation(const char *src, const char *const *sw, size_t nsw)
{
    const char *st[] = {"p>=2", "mean"};
    for (long n = 1;; n++) {
        alea_table *t = NULL;
        long live = fa.live;
        heap_fail_at(&fa, n);
        alea_status s = alea_table_new(ctx, src, strlen(src), sw, nsw, st, 2, &t);
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

static void test_out_of_memory(void **state)
{
    (void)state;
    const char *sw[] = {"m=0..2", "d=10..11"}, *kw[] = {"m=0..2", "dc=3..4"};
    fails_each_allocation("dd(m, d, best)", sw, 2);
    /* a table keeping parts for its cells (share.h) */
    fails_each_allocation("let a = 3d6 in a + 4d6kh3 + m >= dc", kw, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cells_are_dists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_cells_are_dists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compile_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats_and_accessors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_formats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
