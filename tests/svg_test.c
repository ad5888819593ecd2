/* svg_test.c -- the SVG charts (svg.c): every number drawn reads back as
 * the distribution's, user text is escaped, the negligible tails are left
 * out, the OUTPUT limit at N and N+1, the snprintf contract, a table's
 * heat map and lines. (tests/cli/svg_test.py parses the documents as XML.) */
#include "support.h"

TEST_HEAP_CONTEXT

/* The whole SVG of the n distributions, malloc'd (NULL when refused). */
static char *svg_of(const alea_dist *const *ds, const char *const *labels, size_t n)
{
    size_t len = alea_svg_dists(ds, labels, n, NULL, 0);
    if (len == 0)
        return NULL;
    char *p = malloc(len + 1);
    assert_non_null(p);
    assert_int_equal(alea_svg_dists(ds, labels, n, p, len + 1), len);
    assert_int_equal(strlen(p), len);
    return p;
}

/* How many times s occurs in text. */
static size_t count(const char *text, const char *s)
{
    size_t k = 0;
    for (const char *p = strstr(text, s); p; p = strstr(p + 1, s))
        k++;
    return k;
}

/* The data-value and data-y of each point, in order; returns how many. */
static size_t points(const char *text, int64_t *v, double *y, size_t max)
{
    size_t k = 0;
    for (const char *p = strstr(text, " data-value=\""); p && k < max;
         p = strstr(p + 1, " data-value=\"")) {
        v[k] = strtoll(p + 13, NULL, 10);
        const char *q = strstr(p, " data-y=\"");
        assert_non_null(q);
        y[k] = strtod(q + 9, NULL);
        k++;
    }
    return k;
}

static void test_bars_read_back(void **state)
{
    (void)state;
    alea_dist *d = dist_of(ctx, "3d6");
    const alea_dist *ds[] = {d};
    char *s = svg_of(ds, NULL, 1);
    assert_non_null(s);
    assert_non_null(strstr(s, "role=\"img\" aria-labelledby=\"alea-title alea-desc\""));
    assert_non_null(strstr(s, "<title id=\"alea-title\">Distribution of 3d6</title>"));
    assert_non_null(strstr(s, "<desc id=\"alea-desc\">"));
    assert_non_null(strstr(s, "3 0.463%, 4 1.389%"));
    assert_non_null(strstr(s, "Mean 10.5"));
    int64_t v[32];
    double y[32];
    assert_int_equal(points(s, v, y, 32), 16);
    for (size_t i = 0; i < 16; i++) {
        assert_int_equal(v[i], alea_dist_value(d, i));
        assert_true(y[i] == alea_dist_prob(d, i)); /* every digit */
    }
    assert_int_equal(count(s, "<rect x="), 16); /* a bar each */
    assert_null(strstr(s, "class=\"legend\"")); /* one distribution: no legend */
    free(s);
    alea_dist_free(d);
}

static void test_lines_and_escaping(void **state)
{
    (void)state;
    alea_dist *a = dist_of(ctx, "(d6 < 3) + 1d4 [a&b \"<c>\"]"), *b = dist_of(ctx, "2d4");
    const alea_dist *ds[] = {a, b};
    char *s = svg_of(ds, NULL, 2);
    assert_non_null(s);
    assert_null(strstr(s, "<c>"));
    assert_null(strstr(s, "a&b"));
    assert_non_null(strstr(s, "[a&amp;b &quot;&lt;c&gt;&quot;]"));
    assert_int_equal(count(s, "<polyline"), 2);
    assert_int_equal(count(s, "class=\"legend\""), 2);
    assert_non_null(strstr(s, "stroke-dasharray")); /* the second line is dashed */
    free(s);
    /* a caller's labels, escaped too; invalid UTF-8 and a control byte
     * become U+FFFD */
    const char *labels[] = {"x<y", "\xff\x01"};
    s = svg_of(ds, labels, 2);
    assert_non_null(strstr(s, ">x&lt;y and \xEF\xBF\xBD\xEF\xBF\xBD</title>"));
    free(s);
    alea_dist_free(a);
    alea_dist_free(b);
}

/* 10d10! has 1,000s of outcomes; those below 0.005% at each end are left
 * out, and the chart says how many. */
static void test_tails_hidden(void **state)
{
    (void)state;
    alea_dist *d = dist_of(ctx, "10d10!");
    const alea_dist *ds[] = {d};
    char *s = svg_of(ds, NULL, 1);
    size_t n = alea_dist_count(d), drawn = count(s, " data-value=\"");
    assert_true(n > 1000);
    assert_true(drawn < 150);
    char note[80];
    snprintf(note, sizeof note, "%zu outcomes below 0.005%% at the ends not drawn", n - drawn);
    assert_non_null(strstr(s, note));
    int64_t v[160];
    double y[160];
    points(s, v, y, 160);
    assert_true(y[0] >= 0.00005 && y[drawn - 1] >= 0.00005);
    for (size_t i = 0; i < n; i++) /* the first drawn is the first at 0.005% */
        if (alea_dist_prob(d, i) >= 0.00005) {
            assert_int_equal(v[0], alea_dist_value(d, i));
            break;
        }
    free(s);
    alea_dist_free(d);
}

/* Values near 2^63 are placed by their distance from the first (a double
 * holds no 1e18 + 1): every bar inside the plot, a tick per value. */
static void test_huge_values(void **state)
{
    (void)state;
    alea_dist *d = dist_of(ctx, "1000000000000000000 + d6");
    const alea_dist *ds[] = {d};
    char *s = svg_of(ds, NULL, 1);
    assert_non_null(strstr(s, ">1000000000000000001</text>"));
    assert_non_null(strstr(s, ">1000000000000000006</text>"));
    double last = 0;
    for (const char *p = strstr(s, "<rect x=\""); p; p = strstr(p + 1, "<rect x=\"")) {
        double x = strtod(p + 9, NULL);
        assert_true(x > 72 && x < 616 && x > last + 50); /* apart, in order */
        last = x;
    }
    free(s);
    alea_dist_free(d);
}

/* The OUTPUT limit: a picture of exactly N bytes is written at limit N
 * and refused at N - 1, with the error and nothing written. */
static void test_output_limit(void **state)
{
    (void)state;
    alea_dist *d = dist_of(ctx, "3d6");
    const alea_dist *ds[] = {d};
    size_t len = alea_svg_dists(ds, NULL, 1, NULL, 0);
    char *buf = malloc(len + 1);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)len);
    assert_int_equal(alea_svg_dists(ds, NULL, 1, buf, len + 1), len);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)len - 1);
    assert_int_equal(alea_svg_dists(ds, NULL, 1, buf, len + 1), 0);
    assert_string_equal(buf, "");
    assert_int_equal(alea_ctx_error_span(ctx, NULL, NULL), ALEA_ERR_LIMIT);
    char want[120];
    snprintf(want, sizeof want, "too much output: the SVG passes %zu bytes (output limit is %zu)",
             len - 1, len - 1);
    assert_string_equal(alea_ctx_error(ctx), want);
    /* a limit far below the picture stops its loops early: 1,000s of
     * outcomes are not all formatted to be thrown away */
    alea_dist *big = dist_of(ctx, "d100000");
    const alea_dist *bs[] = {big};
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, 100);
    assert_int_equal(alea_svg_dists(bs, NULL, 1, NULL, 0), 0);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, alea_limit_default(ALEA_LIMIT_OUTPUT));
    free(buf);
    alea_dist_free(big);
    alea_dist_free(d);
}

/* snprintf contract: a short buffer gets the start, NUL-terminated, and
 * the full length is returned. */
static void test_short_buffer(void **state)
{
    (void)state;
    alea_dist *d = dist_of(ctx, "d6");
    const alea_dist *ds[] = {d};
    char *whole = svg_of(ds, NULL, 1);
    char small[40];
    assert_int_equal(alea_svg_dists(ds, NULL, 1, small, sizeof small), strlen(whole));
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, whole, sizeof small - 1);
    /* nothing to draw: 0 and "" */
    assert_int_equal(alea_svg_dists(ds, NULL, 0, small, sizeof small), 0);
    assert_string_equal(small, "");
    assert_int_equal(alea_svg_dists(NULL, NULL, 1, small, sizeof small), 0);
    free(whole);
    alea_dist_free(d);
}

static char *grid_of(const char *col_name, const char *const *labels, size_t rows, size_t cols,
                     const double *cells, int is_prob)
{
    static const int64_t rv[] = {0, 1, 2};
    size_t len = alea_svg_grid(ctx, "p>=2 of <m & d>", "m", rv, rows, col_name, labels, cols,
                               cells, is_prob, NULL, 0);
    assert_true(len > 0);
    char *p = malloc(len + 1);
    assert_int_equal(alea_svg_grid(ctx, "p>=2 of <m & d>", "m", rv, rows, col_name, labels,
                                   cols, cells, is_prob, p, len + 1),
                     len);
    return p;
}

static void test_grid(void **state)
{
    (void)state;
    const char *cols[] = {"10", "12"};
    const double cells[] = {0.25, 0.5, 0.125, NAN, 1, 0.0625};
    char *s = grid_of("d", cols, 3, 2, cells, 1);
    assert_non_null(strstr(s, "<title id=\"alea-title\">p&gt;=2 of &lt;m &amp; d&gt;</title>"));
    assert_non_null(strstr(s, "m 0: d 10 25%, d 12 50%. m 1: d 10 12.5%, d 12 none."));
    assert_int_equal(count(s, "data-row=\""), 6);
    assert_non_null(strstr(s, "data-row=\"2\" data-col=\"12\" data-y=\"0.0625\""));
    assert_non_null(strstr(s, ">6.3</text>")); /* 6.25% printed in its cell */
    assert_non_null(strstr(s, "linearGradient")); /* the scale */
    free(s);
    /* one name, two stats: a line each, with a legend */
    const char *stats[] = {"mean", "sd"};
    const double two[] = {3.5, 1.7, 4.5, 1.7, 5.5, 1.7};
    s = grid_of(NULL, stats, 3, 2, two, 0);
    assert_int_equal(count(s, "<polyline"), 2);
    assert_int_equal(count(s, "class=\"legend\""), 2);
    assert_non_null(strstr(s, "mean: 0 3.5, 1 4.5, 2 5.5."));
    free(s);
    /* the output limit as for a distribution */
    static const int64_t rv[] = {0, 1, 2};
    size_t len = alea_svg_grid(ctx, "t", "m", rv, 3, "d", cols, 2, cells, 1, NULL, 0);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)len);
    assert_int_equal(alea_svg_grid(ctx, "t", "m", rv, 3, "d", cols, 2, cells, 1, NULL, 0), len);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)len - 1);
    assert_int_equal(alea_svg_grid(ctx, "t", "m", rv, 3, "d", cols, 2, cells, 1, NULL, 0), 0);
    assert_int_equal(alea_ctx_error_span(ctx, NULL, NULL), ALEA_ERR_LIMIT);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, alea_limit_default(ALEA_LIMIT_OUTPUT));
    /* missing arguments: nothing */
    assert_int_equal(alea_svg_grid(ctx, "t", "m", rv, 0, "d", cols, 2, cells, 1, NULL, 0), 0);
    assert_int_equal(alea_svg_grid(ctx, "t", "m", rv, 3, "d", NULL, 2, cells, 1, NULL, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bars_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lines_and_escaping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tails_hidden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_short_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
