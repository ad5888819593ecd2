/* table_test.c -- the hash table of sparse distributions (table.c): keys
 * chosen to collide, probes charged to the work budget, growth. */
#include "pmf.h"
#include "table.h"
#include "support.h"

#define EPS 1e-12

TEST_HEAP_CONTEXT

static const node at = {.kind = N_NUM, .start = 3, .end = 7};

static int64_t colliding(uint64_t i)
{
    uint64_t z = i << 20;
    z ^= (z >> 31) ^ (z >> 62);
    z *= UINT64_C(0x319642b2d24d8ec3);
    z ^= (z >> 27) ^ (z >> 54);
    z *= UINT64_C(0x96de1b173f119089);
    z ^= (z >> 30) ^ (z >> 60);
    return (int64_t)z;
}

static void test_sparse_table(void **state)
{
    (void)state;
    enum { N = 30000 };
    static int64_t want[N + 3];
    alea__acc acc;
    assert_int_equal(alea__acc_init(&acc, ctx, &at, INT64_MIN, INT64_MAX, 1), ALEA_OK);
    assert_int_equal(acc.span, 0);
    for (int rep = 0; rep < 2; rep++) {
        assert_int_equal(alea__acc_add(&acc, INT64_MIN, ALEA__W(0.05)), ALEA_OK);
        assert_int_equal(alea__acc_add(&acc, INT64_MAX, ALEA__W(0.1)), ALEA_OK);
        assert_int_equal(alea__acc_add(&acc, -1, ALEA__W(0.15)), ALEA_OK);
        for (int64_t i = 0; i < N; i++) /* spread out, in a scrambled order */
            assert_int_equal(alea__acc_add(&acc, ((i * 7919) % N) * 1000003 + 5, ALEA__W(1e-5)),
                             ALEA_OK);
    }
    for (int64_t i = 0; i < N; i++)
        want[i] = i * 1000003 + 5;
    want[N] = INT64_MIN;
    want[N + 1] = INT64_MAX;
    want[N + 2] = -1;
    qsort(want, N + 3, sizeof *want, cmp_i64);
    alea__pmf r;
    assert_int_equal(alea__acc_finish(&acc, &r), ALEA_OK);
    assert_int_equal(r.n, N + 3);
    for (size_t i = 0; i < r.n; i++) {
        assert_true(r.v[i] == want[i]);
        double p = r.v[i] == INT64_MIN ? 0.1 : r.v[i] == INT64_MAX ? 0.2
                 : r.v[i] == -1        ? 0.3 : 2e-5;
        assert_double_equal(r.p[i], p, 1e-15);
    }
    alea__pmf_free(ctx, &r);

    /* SUPPORT at N and N + 1 for a growing table */
    for (int64_t lim = 2999; lim <= 3000; lim++) {
        alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, lim);
        assert_int_equal(alea__acc_init(&acc, ctx, &at, 0, INT64_MAX, 1), ALEA_OK);
        alea_status st = ALEA_OK;
        for (int64_t i = 0; i < 3000 && st == ALEA_OK; i++)
            st = alea__acc_add(&acc, i * 1000000007, ALEA__W(1.0 / 3000));
        if (st == ALEA_OK)
            st = alea__acc_finish(&acc, &r);
        assert_int_equal(st, lim == 3000 ? ALEA_OK : ALEA_ERR_LIMIT);
        if (st == ALEA_OK)
            alea__pmf_free(ctx, &r);
    }
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, alea_limit_default(ALEA_LIMIT_SUPPORT));

    /* WORK: a sparse a + a with |a| = 3 has 9 pairs at ALEA__SPARSE_COST
     * units, a table's slots cleared at a quarter unit each, and 6 distinct
     * sums, sorted at 2 * 6 * ceil(log2 6) units. */
    int64_t v[] = {0, 1000000, 2000000000};
    double w[] = {1, 1, 1};
    alea__pmf a = pmf_weighted(ctx, 3, v, w);
    int64_t need = 9 * ALEA__SPARSE_COST + ALEA__TABLE_MIN / 4 + 2 * 6 * 3;
    for (int64_t lim = need - 1; lim <= need; lim++) {
        alea__budget_start(ctx);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, lim);
        alea_status st = alea__pmf_conv(ctx, &a, &a, &at, &r);
        assert_int_equal(st, lim == need ? ALEA_OK : ALEA_ERR_LIMIT);
        if (st == ALEA_OK) {
            assert_int_equal(r.n, 6);
            alea__pmf_free(ctx, &r);
        }
    }
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
    alea__pmf_free(ctx, &a);
    /* Flooding: values chosen so that the table's hash puts every one of
     * them in slot 0 (the hash inverted). The slots walked are charged, so
     * the work limit stops what costs a probe run each, where the same
     * number of ordinary values passes. */
    enum { F = 2000 };
    for (int flood = 0; flood <= 1; flood++) {
        alea__budget_start(ctx);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 200000);
        assert_int_equal(alea__acc_init(&acc, ctx, &at, INT64_MIN, INT64_MAX, 1), ALEA_OK);
        alea_status st = ALEA_OK;
        for (uint64_t i = 1; i <= F && st == ALEA_OK; i++)
            st = alea__acc_add(&acc, flood ? colliding(i) : (int64_t)(i * 1000003), ALEA__W(1.0 / F));
        if (st == ALEA_OK)
            st = alea__acc_finish(&acc, &r);
        /* F^2 / 2 = 2,000,000 steps flooded; about F * ALEA__SPARSE_COST else */
        assert_int_equal(st, flood ? ALEA_ERR_LIMIT : ALEA_OK);
        if (st == ALEA_OK)
            alea__pmf_free(ctx, &r);
    }
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
}

/* Remapping (success counting): a die's faces share a denominator, so each
 * counted outcome is its numerator over it, rounded once (a d20 counted as
 * >= 15 is exactly the doubles 0.7 and 0.3); other probabilities are summed
 * with compensation. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sparse_table, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
