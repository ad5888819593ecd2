/*
 * env_test.c -- names (env.h): a value bound once and read by its uses, in
 * the roller and in the exact engine (doubles and fractions). The trees are
 * built here by hand, apart from the parser: an expression compiled from
 * text gives the arena, the source and the bound value's tree; the names,
 * the binding and the operators around them are added with the tree's
 * constructors (ast.h). test_parsed reads the same trees from their text
 * ("let x = ... in ...").
 */
#include "ast.h"
#include "dist.h"
#include "support.h"

TEST_HEAP_CONTEXT

/* A use of slot, written "x" or "y" (by slot). */
static const node *use(alea_expr *e, uint32_t slot)
{
    node *n = alea__ast_name(&e->arena, slot, slot % 2 ? "y" : "x", 1, 0, 1);
    assert_non_null(n);
    return n;
}

/* "a op b": a chain of kind (N_SUM or N_PROD) of two items. */
static const node *chain2(alea_expr *e, uint8_t op, const node *a, const node *b)
{
    node *n = alea__arena_alloc(&e->arena, sizeof *n);
    const node **items = alea__arena_alloc(&e->arena, 2 * sizeof *items);
    uint8_t *ops = alea__arena_alloc(&e->arena, 2);
    assert_true(n && items && ops);
    memset(n, 0, sizeof *n);
    n->kind = op == OP_ADD || op == OP_SUB ? N_SUM : N_PROD;
    n->start = a->start;
    n->end = b->end;
    items[0] = a;
    items[1] = b;
    ops[0] = op == OP_ADD || op == OP_SUB ? OP_ADD : OP_MUL;
    ops[1] = op;
    n->u.chain.items = items;
    n->u.chain.ops = ops;
    n->u.chain.n = 2;
    return n;
}

static const node *bind(alea_expr *e, uint32_t slot, const node *value, const node *body)
{
    const node *n = alea__ast_bind(&e->arena, use(e, slot), value, body, 0);
    assert_non_null(n);
    return n;
}

/* The expression compiled from src, its root then replaced by make's tree
 * over it, with nslots slots. */
static alea_expr *built(const char *src, const node *(*make)(alea_expr *e), uint32_t nslots)
{
    alea_expr *e = compile(ctx, src);
    e->root = make(e);
    e->nslots = nslots;
    return e;
}

/* The distribution of e must be exactly values v[0..n), each of weight
 * w[i] / den: in doubles and, where built, in fractions. */
static void expect(const alea_expr *e, const int64_t *v, const int64_t *w, size_t n, int64_t den)
{
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        alea_dist *d = NULL;
        if (alea_expr_dist(ctx, e, &d) != ALEA_OK)
            fail_msg("dist: %s", alea_ctx_error(ctx));
        assert_int_equal(alea_dist_count(d), n);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(alea_dist_value(d, i), v[i]);
            assert_double_equal(alea_dist_prob(d, i), (double)w[i] / (double)den, 1e-12);
            if (exact) {
                char got[64], want[64];
                int64_t a = w[i], b = den, r;
                while (b) { /* the fraction in lowest terms */
                    r = a % b;
                    a = b;
                    b = r;
                }
                if (den / a == 1)
                    snprintf(want, sizeof want, "%lld", (long long)(w[i] / a));
                else
                    snprintf(want, sizeof want, "%lld/%lld", (long long)(w[i] / a),
                             (long long)(den / a));
                alea_dist_fraction(d, ALEA_FRACTION_PROB, i, got, sizeof got);
                assert_string_equal(got, want);
            }
        }
        assert_double_equal(alea_dist_truncated(d), 0, 0);
        alea_dist_free(d);
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
}

static void expect_text(const alea_expr *e, const char *want)
{
    char buf[256];
    alea_expr_format(e, buf, sizeof buf);
    assert_string_equal(buf, want);
}

/* let x = <the root> in x op x */
static const node *both(alea_expr *e, uint8_t op)
{
    return bind(e, 0, e->root, chain2(e, op, use(e, 0), use(e, 0)));
}

/* The number v. */
static const node *num(alea_expr *e, int64_t v)
{
    node *n = alea__arena_alloc(&e->arena, sizeof *n);
    assert_non_null(n);
    memset(n, 0, sizeof *n);
    n->kind = N_NUM;
    n->u.num = v;
    return n;
}

static const node *twice(alea_expr *e) { return both(e, OP_ADD); }
static const node *nothing(alea_expr *e) { return both(e, OP_SUB); }
static const node *square(alea_expr *e) { return both(e, OP_MUL); }

/* The tree make builds over src (nslots slots) prints as text, and its
 * distribution is values v[0..n), each of weight w[i] / den (expect). */
static void check(const char *src, const node *(*make)(alea_expr *e), uint32_t nslots,
                  const char *text, const int64_t *v, const int64_t *w, size_t n, int64_t den)
{
    alea_expr *e = built(src, make, nslots);
    expect_text(e, text);
    expect(e, v, w, n, den);
    alea_expr_free(e);
}

static const int64_t sixths[] = {1, 1, 1, 1, 1, 1};

static void test_shared(void **state)
{
    (void)state;
    const int64_t even[] = {2, 4, 6, 8, 10, 12}, zero[] = {0}, one[] = {1},
                  squares[] = {1, 4, 9, 16, 25, 36};
    check("1d6", twice, 1, "let x = 1d6 in x + x", even, sixths, 6, 6);
    check("3d6", nothing, 1, "let x = 3d6 in x - x", zero, one, 1, 1);
    check("d6", square, 1, "let x = d6 in x * x", squares, sixths, 6, 6);
}

/* let x = 1d6 in (let x = 10 in x) + x: the inner x shadows the outer one
 * in its body only. */
static const node *shadow_same_slot(alea_expr *e)
{
    return bind(e, 0, e->root, chain2(e, OP_ADD, bind(e, 0, num(e, 10), use(e, 0)), use(e, 0)));
}

/* let x = 1d6 in let y = x * 2 in y + x: a second slot, its value from the
 * first. */
static const node *nested(alea_expr *e)
{
    return bind(e, 0, e->root,
                bind(e, 1, chain2(e, OP_MUL, use(e, 0), num(e, 2)),
                     chain2(e, OP_ADD, use(e, 1), use(e, 0))));
}

static void test_nested(void **state)
{
    (void)state;
    const int64_t shadowed[] = {11, 12, 13, 14, 15, 16}, thrice[] = {3, 6, 9, 12, 15, 18};
    check("1d6", shadow_same_slot, 1, "let x = 1d6 in (let x = 10 in x) + x", shadowed,
          sixths, 6, 6);
    check("1d6", nested, 2, "let x = 1d6 in let y = x * 2 in y + x", thrice, sixths, 6, 6);
}

/* let x = 1d2 in x * 10 + (x)d1: a pool's rolled count reads the name. */
static const node *count_of(alea_expr *e)
{
    const node *rolled = e->root->u.chain.items[1]; /* "(1d2)d1", its count x */
    node *dice = alea__arena_alloc(&e->arena, sizeof *dice);
    pool *pl = alea__arena_alloc(&e->arena, sizeof *pl);
    assert_true(dice && pl);
    *dice = *rolled;
    *pl = *rolled->u.pool;
    pl->count_expr = use(e, 0);
    dice->u.pool = pl;
    return bind(e, 0, e->root->u.chain.items[0],
                chain2(e, OP_ADD, chain2(e, OP_MUL, use(e, 0), num(e, 10)), dice));
}

static void test_in_operands(void **state)
{
    (void)state;
    alea_expr *e = built("1d2 + (1d2)d1", count_of, 1);
    const int64_t v[] = {11, 22}, w[] = {1, 1};
    expect(e, v, w, 2, 2);
    alea_ctx_seed(ctx, 3);
    for (int i = 0; i < 200; i++) {
        int64_t t;
        assert_int_equal(alea_expr_sample(ctx, e, &t), ALEA_OK);
        assert_true(t == 11 || t == 22);
    }
    alea_expr_free(e);
}

/* The text of each tree built above reads as that tree: its canonical
 * text and its distribution. */
static void parsed(const char *src, const char *text, const int64_t *v, const int64_t *w,
                   size_t n, int64_t den)
{
    alea_expr *e = compile(ctx, src);
    expect_text(e, text);
    expect(e, v, w, n, den);
    alea_expr_free(e);
}

static void test_parsed(void **state)
{
    (void)state;
    const int64_t even[] = {2, 4, 6, 8, 10, 12}, zero[] = {0}, one[] = {1},
                  shadowed[] = {11, 12, 13, 14, 15, 16}, thrice[] = {3, 6, 9, 12, 15, 18},
                  counted[] = {11, 22}, halves[] = {1, 1};
    parsed("let x = 1d6 in x + x", "let x = 1d6 in x + x", even, sixths, 6, 6);
    parsed("let x = 3d6 in x - x", "let x = 3d6 in x - x", zero, one, 1, 1);
    parsed("let x = 1d6 in (let x = 10 in x) + x", "let x = 1d6 in (let x = 10 in x) + x",
           shadowed, sixths, 6, 6);
    parsed("let x = 1d6, y = x * 2 in y + x", "let x = 1d6 in let y = x * 2 in y + x", thrice,
           sixths, 6, 6);
    parsed("let x = 1d2 in x * 10 + (x)d1", "let x = 1d2 in x * 10 + (x)d1", counted, halves,
           2, 2);
    alea_expr *e = compile(ctx, "let x = 1d6, y = x * 2 in y + x");
    assert_int_equal(e->nslots, 2);
    alea_expr_free(e);
}

/* The roller: the value rolled once, its uses read it. */
static void test_roll(void **state)
{
    (void)state;
    alea_expr *e = built("1d6", twice, 1);
    alea_roll *r = alea_roll_new(ctx);
    assert_non_null(r);
    int seen[13] = {0};
    for (uint64_t seed = 1; seed <= 500; seed++) {
        alea_ctx_seed(ctx, seed);
        assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
        int64_t t = alea_roll_total(r);
        assert_true(t >= 2 && t <= 12 && t % 2 == 0);
        seen[t]++;
        int64_t s;
        assert_int_equal(alea_expr_sample(ctx, e, &s), ALEA_OK);
        assert_true(s >= 2 && s <= 12 && s % 2 == 0);
    }
    for (int t = 2; t <= 12; t += 2)
        assert_true(seen[t] > 0);
    /* The breakdown: the die once, where it is bound; its uses by name. */
    alea_ctx_seed(ctx, 7);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    char *text = roll_text(r, ALEA_FORMAT_TEXT), want[64];
    int64_t t = alea_roll_total(r);
    snprintf(want, sizeof want, "let x = 1d6 [%lld] in x + x = %lld", (long long)(t / 2),
             (long long)t);
    assert_string_equal(text, want);
    free(text);
    /* The JSON lists the one die. */
    char *json = roll_text(r, ALEA_FORMAT_JSON);
    const char *first = strstr(json, "\"rolls\"");
    assert_non_null(first);
    assert_null(strstr(first + 1, "\"rolls\""));
    free(json);
    alea_roll_free(r);

    alea_tally *tl = alea_tally_new(ctx);
    assert_non_null(tl);
    assert_int_equal(alea_tally_sample(ctx, e, tl, 1000), ALEA_OK);
    alea_dist *d = NULL;
    assert_int_equal(alea_tally_dist(ctx, tl, e, &d), ALEA_OK);
    for (size_t i = 0; i < alea_dist_count(d); i++)
        assert_int_equal(alea_dist_value(d, i) % 2, 0);
    alea_dist_free(d);
    alea_tally_free(tl);
    alea_expr_free(e);
}

/* A use of slot 0 with nothing bound; a binding of a slot past nslots. */
static const node *unbound(alea_expr *e)
{
    return chain2(e, OP_ADD, e->root, use(e, 0));
}

static void expect_broken(const alea_expr *e)
{
    alea_dist *d = NULL;
    alea_roll *r = alea_roll_new(ctx);
    int64_t t;
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_INVALID);
        assert_non_null(strstr(alea_ctx_error(ctx), "internal error"));
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_ERR_INVALID);
    assert_non_null(strstr(alea_ctx_error(ctx), "internal error"));
    assert_int_equal(alea_expr_sample(ctx, e, &t), ALEA_ERR_INVALID);
    alea_roll_free(r);
}

static void test_unbound(void **state)
{
    (void)state;
    alea_expr *e = built("1d6", unbound, 1);
    expect_broken(e);
    alea_expr_free(e);
    e = built("1d6", unbound, 0); /* no slots at all */
    expect_broken(e);
    alea_expr_free(e);
    e = built("1d6", twice, 0); /* a binding past the slots */
    expect_broken(e);
    alea_expr_free(e);
}

/* let x = 1d100 in x + 20d6: a body per value, each charged. */
static const node *heavy(alea_expr *e)
{
    return bind(e, 0, e->root->u.chain.items[0],
                chain2(e, OP_ADD, use(e, 0), e->root->u.chain.items[1]));
}

static void test_work(void **state)
{
    (void)state;
    alea_expr *e = built("1d100 + 20d6", heavy, 1);
    alea_dist *d = NULL;
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    assert_double_equal(alea_dist_mean(d), 50.5 + 70, 1e-9);
    alea_dist_free(d);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 20000);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    alea_expr_free(e);
}

/* Every allocation failing in turn: out of memory, nothing leaked. */
static void test_alloc_failures(void **state)
{
    (void)state;
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        for (long n = 1;; n++) {
            long live = fa.live;
            alea_expr *e = built("1d6", twice, 1);
            alea_roll *r = alea_roll_new(ctx);
            assert_non_null(r);
            assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
            alea_dist *d = NULL;
            heap_fail_at(&fa, n);
            alea_status a = alea_expr_dist(ctx, e, &d), b = alea_expr_roll(ctx, e, r);
            heap_fail_at(&fa, 0);
            assert_true(a == ALEA_OK || a == ALEA_ERR_NOMEM);
            assert_true(b == ALEA_OK || b == ALEA_ERR_NOMEM);
            alea_dist_free(d);
            alea_roll_free(r);
            alea_expr_free(e);
            assert_int_equal(fa.live, live);
            if (a == ALEA_OK && b == ALEA_OK)
                break;
        }
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_shared, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nested, setup, teardown),
        cmocka_unit_test_setup_teardown(test_in_operands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parsed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roll, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unbound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
