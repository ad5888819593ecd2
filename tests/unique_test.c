/*
 * unique_test.c -- unique ("u", "uo") against the rule itself: a walk of
 * the tree of every face each die draws, the dice in order, a face an
 * earlier die shows (and the condition matches) drawn again until it is new
 * ("u") or once ("uo"); the faces drawn again share one branch, cut
 * below 1e-16 (1e-9 in the light run of support.h; the mass cut is counted
 * and bounds the comparison). Then the highest dice kept, or the dice at
 * least a target counted. The exact engine (src/unique.c) computes the
 * same distributions by a set walk and a chain of multisets, never by
 * drawing.
 */
#include "ast.h"
#include "support.h"

TEST_HEAP_CONTEXT

#define MAXV 64 /* sums of the small pools below, offset by OFF */
#define OFF 8

typedef struct rule {
    const char *expr;
    const int64_t *faces; /* as written, repeats allowed */
    int nfaces, dice, once;
    int has_cond;
    cond c;
    int keep;   /* the highest `keep` dice (dice: all) */
    int target; /* count the dice >= target; 0: sum */
} rule;

static double got[MAXV], lost, cut = 1e-16;

static void finish(const rule *r, const int64_t *vals, double pr)
{
    int64_t s[16];
    for (int i = 0; i < r->dice; i++) { /* sorted by insertion: a few dice, millions of leaves */
        int k = i;
        for (; k > 0 && s[k - 1] > vals[i]; k--)
            s[k] = s[k - 1];
        s[k] = vals[i];
    }
    int64_t sum = 0;
    for (int k = r->dice - r->keep; k < r->dice; k++)
        sum += r->target ? s[k] >= r->target : s[k];
    assert_true(sum + OFF >= 0 && sum + OFF < MAXV);
    got[sum + OFF] += pr;
}

static void walk(const rule *r, int64_t *vals, int die, int attempt, double pr)
{
    if (die == r->dice) {
        finish(r, vals, pr);
        return;
    }
    double again = 0; /* the faces drawn again lead to one and the same draw */
    for (int i = 0; i < r->nfaces; i++) {
        int64_t v = r->faces[i];
        double q = pr / r->nfaces;
        int shown = 0;
        for (int k = 0; k < die; k++)
            shown |= vals[k] == v;
        if (shown && (!r->has_cond || alea__cond_match(&r->c, v)) &&
            !(r->once && attempt == 1)) {
            again += q;
        } else {
            vals[die] = v;
            walk(r, vals, die + 1, 0, q);
        }
    }
    if (again > cut)
        walk(r, vals, die, attempt + 1, again);
    else
        lost += again;
}

static void check(const rule *r)
{
    int64_t vals[16] = {0};
    memset(got, 0, sizeof got);
    lost = 0;
    walk(r, vals, 0, 0, 1.0);
    /* in doubles, and in exact fractions (their nearest doubles) */
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        alea_dist *d = dist_of(ctx, r->expr);
        assert_int_equal(alea_dist_is_exact(d), exact);
        double seen = 0;
        for (size_t i = 0; i < alea_dist_count(d); i++) {
            int64_t v = alea_dist_value(d, i);
            assert_true(v + OFF >= 0 && v + OFF < MAXV);
            assert_double_equal(alea_dist_prob(d, i), got[v + OFF], 1e-12 + lost);
            seen += got[v + OFF];
        }
        /* no outcome alea lacks (the walk's millions of additions round) */
        assert_double_equal(seen + lost, 1.0, 1e-9);
        alea_dist_free(d);
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
}

static const int64_t d3[] = {1, 2, 3}, d4[] = {1, 2, 3, 4}, d5[] = {1, 2, 3, 4, 5};
static const int64_t d6[] = {1, 2, 3, 4, 5, 6}, lop[] = {1, 1, 2, 3}, neg[] = {-1, 0, 1};

/* "u" on every face: the set walk (equal faces) and the chain (a list die
 * with a repeated face, a selection). */
static void test_unique_all(void **state)
{
    (void)state;
    const rule rs[] = {
        {"2d3u", d3, 3, 2, 0, 0, {0, 0}, 2, 0},
        {"3d4u", d4, 4, 3, 0, 0, {0, 0}, 3, 0},
        {"4d4u", d4, 4, 4, 0, 0, {0, 0}, 4, 0},
        {"4d6ukh2", d6, 6, 4, 0, 0, {0, 0}, 2, 0},
        {"4d6kh3u", d6, 6, 4, 0, 0, {0, 0}, 3, 0},
        {"5d6>=4u", d6, 6, 5, 0, 0, {0, 0}, 5, 4},
        {"3d{1,1,2,3}u", lop, 4, 3, 0, 0, {0, 0}, 3, 0},
        {"2d{1,1,2,3}u", lop, 4, 2, 0, 0, {0, 0}, 2, 0},
        {"3dFu", neg, 3, 3, 0, 0, {0, 0}, 3, 0},
        {"3d6u>0", d6, 6, 3, 0, 1, {CMP_GT, 0}, 3, 0},
    };
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++)
        check(&rs[i]);
}

/* "u" with a condition: only the faces it matches kept apart. */
static void test_unique_cond(void **state)
{
    (void)state;
    const rule rs[] = {
        {"2d3u=1", d3, 3, 2, 0, 1, {CMP_EQ, 1}, 2, 0},
        {"4d3u<=2", d3, 3, 4, 0, 1, {CMP_LE, 2}, 4, 0},
        {"4d4u>2", d4, 4, 4, 0, 1, {CMP_GT, 2}, 4, 0},
        {"4d5u<>3kh2", d5, 5, 4, 0, 1, {CMP_NE, 3}, 2, 0},
        {"5d3u=3", d3, 3, 5, 0, 1, {CMP_EQ, 3}, 5, 0},
        {"4d6>=5u>4", d6, 6, 4, 0, 1, {CMP_GT, 4}, 4, 5},
    };
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++)
        check(&rs[i]);
}

/* "uo": a repeated face drawn again once, the second standing. */
static void test_unique_once(void **state)
{
    (void)state;
    const rule rs[] = {
        {"2d3uo", d3, 3, 2, 1, 0, {0, 0}, 2, 0},
        {"3d4uo", d4, 4, 3, 1, 0, {0, 0}, 3, 0},
        {"5d3uo", d3, 3, 5, 1, 0, {0, 0}, 5, 0},
        {"4d6uokh3", d6, 6, 4, 1, 0, {0, 0}, 3, 0},
        {"4d4uo>=2", d4, 4, 4, 1, 1, {CMP_GE, 2}, 4, 0},
        {"3d{1,1,2,3}uo", lop, 4, 3, 1, 0, {0, 0}, 3, 0},
        {"4d6>=4uo", d6, 6, 4, 1, 0, {0, 0}, 4, 4},
    };
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++)
        check(&rs[i]);
}

/* The chain's cost is checked before it starts: a work limit error, at
 * once, not a long walk. */
static void test_limit(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "20d20uo");
    alea_dist *d = NULL;
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    assert_null(d);
    alea_expr_free(e);
    /* the set walk of "u" is cheap where the chain is not */
    d = dist_of(ctx, "20d20u");
    dist_check(d);
    assert_double_equal(alea_dist_mean(d), 210.0, 1e-9);
    alea_dist_free(d);
}

#ifdef ALEA_HAVE_GMP
/* Exact fractions: read whole; the chain's and the set walk's fractions
 * agree (a selection that keeps every die sends "u" through the chain);
 * each allocation failing in turn gives NOMEM and gives back every byte,
 * the digits' included. */
static void test_exact(void **state)
{
    (void)state;
    assert_int_equal(alea_ctx_set_exact(ctx, 1), ALEA_OK);
    char a[64], b[64];
    alea_dist *d = dist_of(ctx, "3d4uo"), *d2;
    assert_int_equal(alea_dist_value(d, 0), 3);
    alea_dist_fraction(d, ALEA_FRACTION_PROB, 0, a, sizeof a);
    assert_string_equal(a, "1/1024");
    alea_dist_fraction(d, ALEA_FRACTION_VARIANCE, 0, a, sizeof a);
    assert_string_equal(a, "145/64");
    alea_dist_free(d);
    d = dist_of(ctx, "5d9ukh3");
    d2 = dist_of(ctx, "5d9kh3uk{>=1}");
    assert_int_equal(alea_dist_count(d), alea_dist_count(d2));
    for (size_t i = 0; i < alea_dist_count(d); i++) {
        assert_int_equal(alea_dist_value(d, i), alea_dist_value(d2, i));
        alea_dist_fraction(d, ALEA_FRACTION_PROB, i, a, sizeof a);
        alea_dist_fraction(d2, ALEA_FRACTION_PROB, i, b, sizeof b);
        assert_string_equal(a, b);
    }
    alea_dist_free(d);
    alea_dist_free(d2);
    const char *srcs[] = {"4d6ukh3", "3d4uokh2", "3d{1,1,2,3}u<3", "4d3>=2uo"};
    for (size_t k = 0; k < sizeof srcs / sizeof *srcs; k++) {
        alea_expr *e = compile(ctx, srcs[k]);
        size_t base = alea_ctx_memory(ctx, NULL);
        long n;
        for (n = 1; n < 100000; n++) {
            d = NULL;
            heap_fail_at(&fa, n);
            alea_status st = alea_expr_dist(ctx, e, &d);
            heap_fail_at(&fa, 0);
            if (st == ALEA_OK)
                alea_dist_free(d);
            assert_int_equal(alea_ctx_memory(ctx, NULL), base);
            if (st == ALEA_OK)
                break;
            if (st != ALEA_ERR_NOMEM)
                fail_msg("%s: allocation %ld: %s", srcs[k], n, alea_ctx_error(ctx));
            assert_null(d);
        }
        assert_true(n > 5);
        alea_expr_free(e);
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
}
#endif

int main(void)
{
    if (test_light()) /* under valgrind: a shallower walk, a wider tolerance */
        cut = 1e-9;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unique_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unique_cond, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unique_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
#ifdef ALEA_HAVE_GMP
        cmocka_unit_test_setup_teardown(test_exact, setup, teardown),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
