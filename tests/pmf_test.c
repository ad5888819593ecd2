/* pmf_test.c -- distributions under construction (pmf.c), built by hand:
 * the accumulator (dense and sparse), convolution and powers, products and
 * quotients, comparisons, max/min of copies, the support and work limits at
 * N and N+1, overflow, and allocation failure at every step. */
#include "dist.h"
#include "pmf.h"
#include "support.h"

#define EPS 1e-12

TEST_HEAP_CONTEXT

static const node at = {.kind = N_NUM, .start = 3, .end = 7};

static void check_sorted(const alea__pmf *d)
{
    for (size_t i = 0; i < d->n; i++) {
        assert_true(d->p[i] > 0);
        if (i)
            assert_true(d->v[i - 1] < d->v[i]);
    }
}

static void test_conv_and_pow(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6), two, three, p3;
    assert_int_equal(alea__pmf_conv(ctx, &d6, &d6, &at, &two), ALEA_OK);
    assert_int_equal(alea__pmf_conv(ctx, &two, &d6, &at, &three), ALEA_OK);
    assert_int_equal(alea__pmf_pow(ctx, &d6, 3, &at, &p3), ALEA_OK);
    check_sorted(&three);
    assert_int_equal(three.n, 16);
    assert_double_equal(pmf_p(&three, 10), 27.0 / 216, EPS);
    assert_double_equal(pmf_p(&three, 3), 1.0 / 216, EPS);
    for (size_t i = 0; i < 16; i++) {
        assert_true(p3.v[i] == three.v[i]);
        assert_double_equal(p3.p[i], three.p[i], EPS);
    }
    /* pow 0 is the point 0; pow 1 a copy */
    alea__pmf z, one;
    assert_int_equal(alea__pmf_pow(ctx, &d6, 0, &at, &z), ALEA_OK);
    assert_int_equal(z.n, 1);
    assert_true(z.v[0] == 0 && z.p[0] == 1);
    assert_int_equal(alea__pmf_pow(ctx, &d6, 1, &at, &one), ALEA_OK);
    assert_int_equal(one.n, 6);
    /* 200d20 mean and extremes */
    alea__pmf d20 = pmf_uniform(ctx, 1, 20), big;
    assert_int_equal(alea__pmf_pow(ctx, &d20, 200, &at, &big), ALEA_OK);
    assert_int_equal(big.n, 3801);
    double mean = 0, mass = 0;
    for (size_t i = 0; i < big.n; i++) {
        mean += (double)big.v[i] * big.p[i];
        mass += big.p[i];
    }
    assert_double_equal(mass, 1, 1e-12);
    assert_double_equal(mean, 2100, 1e-8);
    assert_double_equal(big.p[0], pow(20, -200), 1e-12 * pow(20, -200));
    alea__pmf *all[] = {&d6, &two, &three, &p3, &z, &one, &d20, &big};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        alea__pmf_free(ctx, all[i]);
}

/* Sparse values (1d6 * 1000 style) go through the hash accumulator;
 * the result must equal the dense computation shifted. */
static void test_sparse_conv(void **state)
{
    (void)state;
    int64_t v[] = {0, 1000000, 2000000000};
    double w[] = {1, 2, 3};
    alea__pmf a = pmf_weighted(ctx, 3, v, w), r;
    assert_int_equal(alea__pmf_pow(ctx, &a, 40, &at, &r), ALEA_OK);
    check_sorted(&r);
    /* outcomes: i * 1e6 + j * 2e9 with i + j <= 40: 41 * 42 / 2 */
    assert_int_equal(r.n, 861);
    double mass = 0;
    for (size_t i = 0; i < r.n; i++)
        mass += r.p[i];
    assert_double_equal(mass, 1, 1e-12);
    assert_double_equal(pmf_p(&r, 40 * 1000000), pow(2.0 / 6, 40), 1e-25);
    /* many additions at few values: repeated merging */
    alea__acc acc;
    assert_int_equal(alea__acc_init(&acc, ctx, &at, 0, INT64_MAX, 1), ALEA_OK);
    assert_int_equal(acc.span, 0); /* sparse */
    for (int i = 0; i < 100000; i++)
        assert_int_equal(alea__acc_add(&acc, (int64_t)(i % 7) * 1000000000000, ALEA__W(1e-5)),
                         ALEA_OK);
    alea__pmf s;
    assert_int_equal(alea__acc_finish(&acc, &s), ALEA_OK);
    assert_int_equal(s.n, 7);
    assert_double_equal(s.p[0], 14286e-5, 1e-12);
    alea__pmf_free(ctx, &a);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &s);
}

/* The sparse accumulator's hash table: the extreme values (INT64_MIN is
 * the empty-slot key, kept aside), growth through many distinct values with
 * repeats, the support limit at N and N + 1 while it grows, and its work
 * charges. */
/* The value whose splitmix64 finaliser (the table's hash, key 0) is i << 20:
 * every such value falls in slot 0 of any table of up to 2^20 slots. */
static void test_remap(void **state)
{
    (void)state;
    alea__pmf d20 = pmf_uniform(ctx, 1, 20), r;
    int64_t map[20];
    for (int i = 0; i < 20; i++)
        map[i] = i + 1 >= 15;
    assert_int_equal(alea__pmf_remap(ctx, &d20, map, &at, &r), ALEA_OK);
    assert_int_equal(r.n, 2);
    assert_true(r.v[0] == 0 && r.p[0] == 0.7);
    assert_true(r.v[1] == 1 && r.p[1] == 0.3);
    alea__pmf_free(ctx, &r);
    /* 5362 faces, 5359 of them counted as 0: the sum is 5359/5362 itself */
    alea__pmf big = pmf_uniform(ctx, 1, 5362);
    int64_t *m2 = malloc(5362 * sizeof *m2);
    assert_non_null(m2);
    for (int i = 0; i < 5362; i++)
        m2[i] = i < 3;
    assert_int_equal(alea__pmf_remap(ctx, &big, m2, &at, &r), ALEA_OK);
    assert_true(r.p[0] == 5359.0 / 5362 && r.p[1] == 3.0 / 5362);
    alea__pmf_free(ctx, &r);
    free(m2);
    /* no common denominator: the compensated sum is within an ulp of 1 */
    int64_t v3[] = {1, 2, 3, 4};
    double w3[] = {1.0 / 3, 1.0 / 7, 1.0 / 11, 1 - 1.0 / 3 - 1.0 / 7 - 1.0 / 11};
    alea__pmf odd;
    assert_int_equal(alea__pmf_alloc(ctx, 4, &odd), ALEA_OK);
    memcpy(odd.v, v3, sizeof v3);
    memcpy(odd.p, w3, sizeof w3);
    int64_t m3[] = {5, 5, 5, 5};
    assert_int_equal(alea__pmf_remap(ctx, &odd, m3, &at, &r), ALEA_OK);
    assert_int_equal(r.n, 1);
    assert_true(fabs(r.p[0] - 1) <= 0x1p-52);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &odd);
    alea__pmf_free(ctx, &big);
    alea__pmf_free(ctx, &d20);
}

static void test_neg_abs(void **state)
{
    (void)state;
    alea__pmf d = pmf_uniform(ctx, -2, 3), n, a;
    assert_int_equal(alea__pmf_neg(ctx, &d, &at, &n), ALEA_OK);
    check_sorted(&n);
    assert_true(n.v[0] == -3 && n.v[5] == 2);
    assert_int_equal(alea__pmf_abs(ctx, &d, &at, &a), ALEA_OK);
    check_sorted(&a);
    assert_int_equal(a.n, 4); /* 0 1 2 3 */
    assert_double_equal(pmf_p(&a, 0), 1.0 / 6, EPS);
    assert_double_equal(pmf_p(&a, 1), 2.0 / 6, EPS);
    assert_double_equal(pmf_p(&a, 2), 2.0 / 6, EPS);
    assert_double_equal(pmf_p(&a, 3), 1.0 / 6, EPS);
    alea__pmf_free(ctx, &d);
    alea__pmf_free(ctx, &n);
    alea__pmf_free(ctx, &a);
    /* -INT64_MIN overflows */
    int64_t v[] = {INT64_MIN, 0};
    double w[] = {1, 1};
    alea__pmf m = pmf_weighted(ctx, 2, v, w), out;
    assert_int_equal(alea__pmf_neg(ctx, &m, &at, &out), ALEA_ERR_OVERFLOW);
    size_t s, e;
    assert_int_equal(alea_ctx_error_span(ctx, &s, &e), ALEA_ERR_OVERFLOW);
    assert_int_equal(s, 3);
    assert_int_equal(e, 7);
    assert_int_equal(alea__pmf_abs(ctx, &m, &at, &out), ALEA_ERR_OVERFLOW);
    alea__pmf_free(ctx, &m);
}

/* floor, ceiling, nearest (halves away from zero), towards zero and
 * nearest with halves up, brute force. */
static void test_division(void **state)
{
    (void)state;
    alea__pmf a = pmf_uniform(ctx, -7, 7), b, r;
    int64_t bv[] = {-3, -2, 2, 3};
    double bw[] = {1, 1, 1, 1};
    b = pmf_weighted(ctx, 4, bv, bw);
    static const uint8_t ops[] = {OP_DIV, OP_DIVUP, OP_DIVNEAR, OP_DIVTRUNC, OP_DIVHALFUP};
    for (size_t o = 0; o < sizeof ops; o++) {
        uint8_t op = ops[o];
        assert_int_equal(alea__pmf_arith(ctx, op, &a, &b, &at, &at, &r), ALEA_OK);
        check_sorted(&r);
        double want[64] = {0};
        for (int64_t x = -7; x <= 7; x++) {
            for (int j = 0; j < 4; j++) {
                double q = (double)x / (double)bv[j], rq;
                if (op == OP_DIV)
                    rq = floor(q);
                else if (op == OP_DIVUP)
                    rq = ceil(q);
                else if (op == OP_DIVTRUNC)
                    rq = trunc(q);
                else if (op == OP_DIVHALFUP)
                    rq = floor(q + 0.5); /* JavaScript's Math.round */
                else
                    rq = round(q); /* C round: halves away from zero */
                want[(int)rq + 32] += 1.0 / 60;
            }
        }
        for (int k = 0; k < 64; k++)
            assert_double_equal(pmf_p(&r, k - 32), want[k], EPS);
        alea__pmf_free(ctx, &r);
    }
    /* products */
    assert_int_equal(alea__pmf_arith(ctx, OP_MUL, &a, &b, &at, &at, &r), ALEA_OK);
    assert_double_equal(pmf_p(&r, 21), 2.0 / 60, EPS); /* 7*3, -7*-3 */
    assert_double_equal(pmf_p(&r, 0), 4.0 / 60, EPS);
    alea__pmf_free(ctx, &r);
    /* a divisor that can be 0 */
    const node div = {.kind = N_NUM, .start = 10, .end = 12};
    alea__pmf z = pmf_uniform(ctx, 0, 2);
    assert_int_equal(alea__pmf_arith(ctx, OP_DIV, &a, &z, &at, &div, &r), ALEA_ERR_DOMAIN);
    size_t s, e;
    alea_ctx_error_span(ctx, &s, &e);
    assert_int_equal(s, 10);
    assert_int_equal(e, 12);
    assert_non_null(strstr(alea_ctx_error(ctx), "division by zero"));
    /* multiplication by 0 is fine */
    assert_int_equal(alea__pmf_arith(ctx, OP_MUL, &a, &z, &at, &div, &r), ALEA_OK);
    alea__pmf_free(ctx, &r);
    /* INT64_MIN / -1 and big products overflow */
    int64_t mv[] = {INT64_MIN, 1}, nv[] = {-1}, hv[] = {INT64_MAX / 2 + 1};
    double one[] = {1, 1};
    alea__pmf m = pmf_weighted(ctx, 2, mv, one), n1 = pmf_weighted(ctx, 1, nv, one), h = pmf_weighted(ctx, 1, hv, one);
    assert_int_equal(alea__pmf_arith(ctx, OP_DIV, &m, &n1, &at, &at, &r), ALEA_ERR_OVERFLOW);
    alea__pmf two = pmf_uniform(ctx, 1, 2);
    assert_int_equal(alea__pmf_arith(ctx, OP_MUL, &h, &two, &at, &at, &r), ALEA_ERR_OVERFLOW);
    assert_int_equal(alea__pmf_conv(ctx, &h, &h, &at, &r), ALEA_ERR_OVERFLOW);
    assert_int_equal(alea__pmf_pow(ctx, &h, 2, &at, &r), ALEA_ERR_OVERFLOW);
    alea__pmf *all[] = {&a, &b, &z, &m, &n1, &h, &two};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        alea__pmf_free(ctx, all[i]);
}

static void test_cmp_minmax(void **state)
{
    (void)state;
    alea__pmf a = pmf_uniform(ctx, 1, 6), b = pmf_uniform(ctx, 3, 8), r;
    double want[6] = {0};
    for (int x = 1; x <= 6; x++)
        for (int y = 3; y <= 8; y++) {
            want[CMP_EQ] += (x == y) / 36.0;
            want[CMP_NE] += (x != y) / 36.0;
            want[CMP_LT] += (x < y) / 36.0;
            want[CMP_LE] += (x <= y) / 36.0;
            want[CMP_GT] += (x > y) / 36.0;
            want[CMP_GE] += (x >= y) / 36.0;
        }
    for (uint8_t op = CMP_EQ; op <= CMP_GE; op++) {
        assert_int_equal(alea__pmf_cmp(ctx, op, &a, &b, &r), ALEA_OK);
        check_sorted(&r);
        assert_double_equal(pmf_p(&r, 1), want[op], EPS);
        assert_double_equal(pmf_p(&r, 0), 1 - want[op], EPS);
        alea__pmf_free(ctx, &r);
    }
    for (int is_max = 0; is_max < 2; is_max++) {
        assert_int_equal(alea__pmf_minmax(ctx, is_max, &a, &b, &r), ALEA_OK);
        check_sorted(&r);
        double w[10] = {0};
        for (int x = 1; x <= 6; x++)
            for (int y = 3; y <= 8; y++)
                w[is_max ? (x > y ? x : y) : (x < y ? x : y)] += 1 / 36.0;
        for (int v = 0; v < 10; v++)
            assert_double_equal(pmf_p(&r, v), w[v], EPS);
        alea__pmf_free(ctx, &r);
    }
    alea__pmf_free(ctx, &a);
    alea__pmf_free(ctx, &b);
}

/* best/worst of n copies against enumeration. */
static void test_extreme(void **state)
{
    (void)state;
    int64_t v[] = {-1, 2, 5, 9};
    double w[] = {1, 2, 3, 4};
    alea__pmf a = pmf_weighted(ctx, 4, v, w), r;
    for (int is_max = 0; is_max < 2; is_max++) {
        assert_int_equal(alea__pmf_extreme(ctx, is_max, &a, 3, &at, &r), ALEA_OK);
        check_sorted(&r);
        double want[4] = {0};
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 4; k++) {
                    int e = i;
                    if (is_max ? j > e : j < e)
                        e = j;
                    if (is_max ? k > e : k < e)
                        e = k;
                    want[e] += a.p[i] * a.p[j] * a.p[k];
                }
        for (int i = 0; i < 4; i++)
            assert_double_equal(pmf_p(&r, v[i]), want[i], EPS);
        alea__pmf_free(ctx, &r);
    }
    /* deficient mass: the kept mass of 3 copies, truncation tracked */
    a.p[3] *= 0.5;
    a.trunc = 0.2;
    assert_int_equal(alea__pmf_extreme(ctx, 1, &a, 3, &at, &r), ALEA_OK);
    double mass = 0;
    for (size_t i = 0; i < r.n; i++)
        mass += r.p[i];
    assert_double_equal(mass, 0.8 * 0.8 * 0.8, EPS);
    assert_double_equal(r.trunc, 1 - 0.8 * 0.8 * 0.8, EPS);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &a);
}

/* The SUPPORT limit at N and N + 1. */
static void test_support_limit(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6), r;
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 16); /* 3d6 has 16 outcomes */
    assert_int_equal(alea__pmf_pow(ctx, &d6, 3, &at, &r), ALEA_OK);
    alea__pmf_free(ctx, &r);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 15);
    assert_int_equal(alea__pmf_pow(ctx, &d6, 3, &at, &r), ALEA_ERR_LIMIT);
    assert_string_equal(alea_ctx_error(ctx),
                        "too many outcomes to compute at byte 3 (support limit is 15)");
    /* sparse results are checked as they are merged */
    int64_t v[] = {0, 1000000, 2000000000};
    double w[] = {1, 1, 1};
    alea__pmf a = pmf_weighted(ctx, 3, v, w);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 861);
    assert_int_equal(alea__pmf_pow(ctx, &a, 40, &at, &r), ALEA_OK);
    alea__pmf_free(ctx, &r);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 860);
    assert_int_equal(alea__pmf_pow(ctx, &a, 40, &at, &r), ALEA_ERR_LIMIT);
    /* a billion dice fail at once, before allocating anything big */
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 1000000);
    size_t before = alea_ctx_memory(ctx, NULL);
    assert_int_equal(alea__pmf_pow(ctx, &d6, 999999999, &at, &r), ALEA_ERR_LIMIT);
    assert_int_equal(alea_ctx_memory(ctx, NULL), before);
    alea__pmf_free(ctx, &d6);
    alea__pmf_free(ctx, &a);
}

static void test_work_limit(void **state)
{
    (void)state;
    alea__pmf d = pmf_uniform(ctx, 1, 100), r;
    alea__budget_start(ctx);
    /* 100 x 100 pairs, and a quarter unit per value of the dense result
     * array (199 / 4 + 1): 10050 */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 10049);
    assert_int_equal(alea__pmf_conv(ctx, &d, &d, &at, &r), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "work limit"));
    alea__budget_start(ctx);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 10050);
    assert_int_equal(alea__pmf_conv(ctx, &d, &d, &at, &r), ALEA_OK);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &d);
}

/* Fail every allocation of a computation in turn: each failure reports
 * out of memory and leaks nothing. */
static void test_alloc_failures(void **state)
{
    (void)state;
    int64_t v[] = {0, 1000000, 2000000000};
    double w[] = {1, 2, 3};
    alea__pmf sp = pmf_weighted(ctx, 3, v, w), d6 = pmf_uniform(ctx, 1, 6), r;
    size_t base = alea_ctx_memory(ctx, NULL);
    int ok = 0;
    for (long n = 1; n < 10000 && !ok; n++) {
        heap_fail_at(&fa, n);
        alea_status st = alea__pmf_pow(ctx, &sp, 30, &at, &r);
        if (st == ALEA_OK) {
            ok = 1;
            alea__pmf_free(ctx, &r);
        } else {
            assert_int_equal(st, ALEA_ERR_NOMEM);
        }
        assert_int_equal(alea_ctx_memory(ctx, NULL), base);
    }
    assert_true(ok);
    for (long n = 1; n < 10000; n++) {
        heap_fail_at(&fa, n);
        alea__pmf a, b, c;
        alea_status st = alea__pmf_pow(ctx, &d6, 25, &at, &a);
        if (st == ALEA_OK) {
            st = alea__pmf_arith(ctx, OP_DIVNEAR, &a, &d6, &at, &at, &b);
            if (st == ALEA_OK) {
                st = alea__pmf_extreme(ctx, 1, &b, 3, &at, &c);
                if (st == ALEA_OK) {
                    alea_dist *dd;
                    st = alea__dist_make(ctx, &c, "x", 1, &dd);
                    if (st == ALEA_OK)
                        alea_dist_free(dd);
                    alea__pmf_free(ctx, &c);
                }
                alea__pmf_free(ctx, &b);
            }
            alea__pmf_free(ctx, &a);
        }
        assert_int_equal(alea_ctx_memory(ctx, NULL), base);
        if (st == ALEA_OK)
            break;
        assert_int_equal(st, ALEA_ERR_NOMEM);
    }
    heap_fail_at(&fa, 0);
    alea__pmf_free(ctx, &sp);
    alea__pmf_free(ctx, &d6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_conv_and_pow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_conv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_neg_abs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_division, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cmp_minmax, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extreme, setup, teardown),
        cmocka_unit_test_setup_teardown(test_support_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
