/*
 * share_test.c -- work shared between the values of a binding (share.h):
 * every distribution equals the one computed with nothing shared, to the
 * last bit and the last digit, where a wrong entry would show (shadowed
 * names, a name read in a nested binding's value, a subtree met under two
 * bindings, bindings nested past the 62 levels of the set); and the sharing
 * happens: "let a = d20 in a + 100d6" fits a work limit that twenty 100d6
 * would pass. The trees are built by hand (tree.h).
 */
#include "ast.h"
#include "dist.h"
#include "env.h"
#include "exact.h"
#include "pmf.h"
#include "support.h"
#include "tree.h"

TEST_HEAP_CONTEXT

/* The distribution of e with nothing shared: the engine's walk, as
 * alea__exact makes it, without the context's sharing; its work in *work. */
static alea_status unshared(const alea_expr *e, alea_dist **out, int64_t *work)
{
    alea__env env;
    alea__pmf r;
    alea__budget_start(ctx);
    alea_status st = alea__env_init(ctx, NULL, e->nslots, &env);
    if (st != ALEA_OK)
        return st;
    ctx->env = &env;
    st = alea__exact_eval(ctx, e->root, &r);
    ctx->env = NULL;
    alea__env_free(ctx, &env);
    *work = ctx->work_used;
    if (st == ALEA_OK && (st = alea__dist_make(ctx, &r, e->src, e->len, out)) != ALEA_OK)
        alea__pmf_free(ctx, &r);
    return st;
}

/* The same outcomes, probabilities (bit for bit) and fractions. */
static void same(const alea_dist *a, const alea_dist *b, int exact)
{
    assert_int_equal(alea_dist_count(a), alea_dist_count(b));
    for (size_t i = 0; i < alea_dist_count(a); i++) {
        assert_int_equal(alea_dist_value(a, i), alea_dist_value(b, i));
        assert_true(alea_dist_prob(a, i) == alea_dist_prob(b, i));
        if (exact) {
            char x[128], y[128];
            alea_dist_fraction(a, ALEA_FRACTION_PROB, i, x, sizeof x);
            alea_dist_fraction(b, ALEA_FRACTION_PROB, i, y, sizeof y);
            assert_string_equal(x, y);
        }
    }
    assert_true(alea_dist_truncated(a) == alea_dist_truncated(b));
}

/* e's distribution, shared and not, equal in both number systems; the work
 * each took (doubles) in work[0] (shared) and work[1]. */
static void check_tree(const alea_expr *e, int64_t work[2])
{
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        alea_dist *a = NULL, *b = NULL;
        int64_t w;
        if (alea_expr_dist(ctx, e, &a) != ALEA_OK)
            fail_msg("dist: %s", alea_ctx_error(ctx));
        int64_t ws = alea_ctx_work(ctx);
        if (unshared(e, &b, &w) != ALEA_OK)
            fail_msg("unshared: %s", alea_ctx_error(ctx));
        same(a, b, exact);
        if (!exact && work) {
            work[0] = ws;
            work[1] = w;
        }
        alea_dist_free(a);
        alea_dist_free(b);
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
}

static void check(const char *text, int64_t work[2])
{
    tree t;
    alea_expr *e = tree_build(ctx, text, &t);
    if (!e)
        fail_msg("tree '%s': %s", text, alea_ctx_error(ctx));
    check_tree(e, work);
    tree_free(&t);
}

static void test_same(void **state)
{
    (void)state;
    /* a part that reads nothing, under one binding and under two */
    check("(let $a d20 (+ $a 100d6))", NULL);
    check("(let $a d6 (let $b d4 (+ (* $a $b) 10d6)))", NULL);
    /* shadowed: the inner x is another binding of the same slot; 3d6 and
     * 2d6 are shared across both, x + 3d6 is not */
    check("(let $x d6 (+ (let $x d4 (+ $x 3d6)) $x 2d6))", NULL);
    check("(let $x d6 (let $x (+ $x d4) (* $x 2d6)))", NULL);
    /* a name read in a nested binding's value; a * 2d6 is kept for the
     * values of b and must go when a takes its next value */
    check("(let $a d6 (let $b (+ $a 2d4) (+ $b $a 3d6 (* $a 2d6))))", NULL);
    check("(let $a d4 (let $b d3 (let $c (- $a $b) (+ (* $c 2d4) (* $a 3d6) (* $b d8)))))",
          NULL);
    /* comparisons of shared parts, the value of the outer binding itself
     * made of a binding */
    check("(let $a (let $z d6 (* $z $z)) (let $b d20 (+ (>= $b 11) (= $a 4d4) (>= 3d6 $a))))",
          NULL);
    /* certain values: h stands for a, so h * 3d6 is kept for the values
     * of b and goes when a takes its next value; k stands for nothing */
    check("(let $a d6 (let $b d4 (let $h (>= $a 3) (+ (* $h 3d6) (* (>= $b 2) $h 2d6)))))", NULL);
    check("(let $k 3 (let $a d6 (let $b d2 (+ (* $k 2d6) (* $a $b) (* $k $a 2d4)))))", NULL);
    check("(let $x d6 (let $b d2 (+ (let $x (+ $x 1) (* $x 2d4)) $x $b)))", NULL);
    check("(let $a d4 (let $b d3 (let $h (- $a $b) (let $c d2 (+ (* $h 3d4) $c)))))", NULL);
    /* a dice pool whose rolled count reads a: computed by exact_pool.c
     * through the engine, kept for the values of b, dropped with a's */
    check("(let $a d3 (let $b d2 (+ $b (count $a [(1d2)d6]) (count (+ $b 1) [(1d2)d4]))))",
          NULL);
}

/* One node met under two bindings of its slot (a tree that shares a
 * subtree): what it kept under the first must not serve the second. */
static void test_met_twice(void **state)
{
    (void)state;
    tree t;
    alea_expr *e = tree_build(
        ctx, "(+ (let $a d4 (let $b d2 (+ $b (* $a 3d6)))) (let $a d6 (let $b d3 (- (* $a 3d6) $b))))",
        &t);
    assert_non_null(e);
    /* the second "a * 3d6" replaced by the first: the same node */
    const node *l1 = e->root->u.chain.items[0], *l2 = e->root->u.chain.items[1];
    const node *x = l1->u.bind.body->u.bind.body->u.chain.items[1], *b2 = l2->u.bind.body;
    const node *diff[2] = {x, b2->u.bind.body->u.chain.items[1]};
    const node *body = tree_chain(&t, '-', diff, 2);
    const node *b = alea__ast_bind(&e->arena, b2->u.bind.name, b2->u.bind.value, body, 0);
    const node *a = alea__ast_bind(&e->arena, l2->u.bind.name, l2->u.bind.value, b, 0);
    const node *both[2] = {l1, a};
    assert_true(body && b && a);
    e->root = tree_chain(&t, '+', both, 2);
    assert_non_null(e->root);
    check_tree(e, NULL);
    tree_free(&t);
}

/* Bindings nested past the 62 levels that have a bit each. */
static void test_deep(void **state)
{
    (void)state;
    char text[2048];
    size_t k = 0;
    k += (size_t)snprintf(text + k, sizeof text - k, "(let $b d2 ");
    for (int i = 0; i < 70; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "(let $a %s ", i == 40 ? "d3" : "1");
    k += (size_t)snprintf(text + k, sizeof text - k, "(let $a d2 (+ $a $b 3d6 (* $b 2d4)))");
    for (int i = 0; i < 71; i++)
        text[k++] = ')';
    text[k] = '\0';
    check(text, NULL);
}

/* Two attacks of d20 + 8 against AC 16 (a natural 20 crits), each hit d4 +
 * 4 (2d4 + 4 on a crit), Sneak Attack 3d6 on the first hit (6d6 if that hit
 * crits); written with 0/1 products while the language has no "if". */
#define ROGUE                                                                               \
    "(let $a d20 (let $b d20 (let $h (>= $a 8) (let $g (>= $b 8) (let $c (= $a 20) "      \
    "(let $d (= $b 20) (+ (* $h (+ (* $c 2d4) (* (- 1 $c) d4) 4)) "                        \
    "(* $g (+ (* $d 2d4) (* (- 1 $d) d4) 4)) (* $h (+ (* $c 6d6) (* (- 1 $c) 3d6))) "      \
    "(* (- 1 $h) $g (+ (* $d 6d6) (* (- 1 $d) 3d6))))))))))"

/* The same in the language, once it reads let, or, and if. */
static const char rogue_text[] =
    "let a = d20 in let b = d20 in let h1 = a = 20 or a + 8 >= 16 in "
    "let h2 = b = 20 or b + 8 >= 16 in if(h1, if(a = 20, 2d4, d4) + 4, 0) + "
    "if(h2, if(b = 20, 2d4, d4) + 4, 0) + "
    "if(h1, if(a = 20, 6d6, 3d6), if(h2, if(b = 20, 6d6, 3d6), 0))";

/* The text's distribution, where it compiles, is the tree's: the same
 * outcomes and fractions, shared as it is not. */
static void check_text(const alea_expr *tree_e)
{
    alea_expr *x = NULL;
    if (alea_expr_compile(ctx, rogue_text, strlen(rogue_text), &x) != ALEA_OK)
        return; /* not read yet */
    check_tree(x, NULL);
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        alea_dist *a = NULL, *b = NULL;
        assert_int_equal(alea_expr_dist(ctx, x, &a), ALEA_OK);
        assert_int_equal(alea_expr_dist(ctx, tree_e, &b), ALEA_OK);
        assert_int_equal(alea_dist_count(a), alea_dist_count(b));
        for (size_t i = 0; i < alea_dist_count(a); i++) {
            assert_int_equal(alea_dist_value(a, i), alea_dist_value(b, i));
            assert_double_equal(alea_dist_prob(a, i), alea_dist_prob(b, i), 1e-15);
            char p[128], q[128];
            if (exact) {
                alea_dist_fraction(a, ALEA_FRACTION_PROB, i, p, sizeof p);
                alea_dist_fraction(b, ALEA_FRACTION_PROB, i, q, sizeof q);
                assert_string_equal(p, q);
            }
        }
        alea_dist_free(a);
        alea_dist_free(b);
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
    alea_expr_free(x);
}

static void test_rogue(void **state)
{
    (void)state;
    tree t;
    alea_expr *e = tree_build(ctx, ROGUE, &t);
    assert_non_null(e);
    /* in fractions it passes the default work limit: every product by 0
     * is computed (no "if" yet), and the mixtures add fractions */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 200000000);
    check_tree(e, NULL);
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        alea_dist *d = NULL;
        assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
        assert_double_equal(alea_dist_mean(d), 18.6225, 1e-12);
        assert_int_equal(alea_dist_value(d, 0), 0);
        assert_double_equal(alea_dist_prob(d, 0), 49.0 / 400, 1e-15);
        if (exact) {
            char f[64];
            alea_dist_fraction(d, ALEA_FRACTION_PROB, 0, f, sizeof f);
            assert_string_equal(f, "49/400");
        }
        alea_dist_free(d);
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
    check_text(e);
    tree_free(&t);
}

/* The sharing happens: 100d6 once, then copies; the work it takes is the
 * limit it fits, one unit less is refused as any work is. */
static void test_work(void **state)
{
    (void)state;
    int64_t work[2];
    check("(let $a d20 (+ $a 100d6))", work);
    assert_true(work[0] * 4 < work[1]);
    tree t;
    alea_expr *e = tree_build(ctx, "(let $a d20 (+ $a 100d6))", &t);
    alea_dist *d = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work[0]);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    alea_dist_free(d);
    int64_t w;
    assert_int_equal(unshared(e, &d, &w), ALEA_ERR_LIMIT); /* it fits only shared */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work[0] - 1);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "work limit is"));
    tree_free(&t);
}

/* Near the least memory limit that the walk with nothing shared fits:
 * the sharing fits too (what it keeps is given back before the limit
 * refuses anything else), with the same distribution. */
static void test_memory(void **state)
{
    (void)state;
    const char *const texts[] = {"(let $a d20 (+ $a 100d6))", ROGUE,
                                 "(let $a d6 (let $b d4 (+ (* $a $b) 10d6 (* $a 3d6))))"};
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        tree t;
        alea_expr *e = tree_build(ctx, texts[k], &t);
        assert_non_null(e);
        alea_dist *want = NULL, *d = NULL;
        int64_t w;
        assert_int_equal(unshared(e, &want, &w), ALEA_OK);
        alea__spare_flush(ctx);
        int64_t lo = (int64_t)ctx->mem_used, hi = lo + (1 << 20); /* fails at lo, fits at hi */
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, mid);
            d = NULL;
            alea_status st = unshared(e, &d, &w);
            alea_dist_free(d);
            alea__spare_flush(ctx);
            *(st == ALEA_OK ? &hi : &lo) = mid;
        }
        for (int64_t l = hi; l < hi + 4096; l += 64) {
            alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, l);
            d = NULL;
            alea_status st = unshared(e, &d, &w);
            alea_dist_free(d);
            alea__spare_flush(ctx);
            if (st != ALEA_OK)
                continue;
            if (alea_expr_dist(ctx, e, &d) != ALEA_OK)
                fail_msg("%s at a memory limit of %lld: %s", texts[k], (long long)l,
                         alea_ctx_error(ctx));
            same(d, want, 0);
            alea_dist_free(d);
        }
        alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, alea_limit_default(ALEA_LIMIT_MEMORY));
        alea_dist_free(want);
        tree_free(&t);
    }
}

/* Every allocation failing in turn, the cache's own among them: out of
 * memory or the same distribution (a copy refused is computed again),
 * nothing leaked. */
static void test_alloc_failures(void **state)
{
    (void)state;
    tree t;
    alea_expr *e = tree_build(ctx, "(let $a d6 (let $b d4 (+ (* $a $b) 10d6 (* $a 3d6))))", &t);
    assert_non_null(e);
    alea_dist *want = NULL;
    int64_t w;
    assert_int_equal(unshared(e, &want, &w), ALEA_OK);
    long live = fa.live;
    for (long n = 1;; n++) {
        alea_dist *d = NULL;
        heap_fail_at(&fa, n);
        alea_status st = alea_expr_dist(ctx, e, &d);
        int failed = fa.count >= n; /* the n-th request came */
        heap_fail_at(&fa, 0);
        assert_true(st == ALEA_OK || st == ALEA_ERR_NOMEM);
        if (st == ALEA_OK)
            same(d, want, 0);
        alea_dist_free(d);
        assert_int_equal(fa.live, live);
        if (!failed)
            break;
    }
    alea_dist_free(want);
    tree_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_same, setup, teardown),
        cmocka_unit_test_setup_teardown(test_met_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rogue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
