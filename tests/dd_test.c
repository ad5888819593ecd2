/*
 * dd_test.c -- dd()'s goals (src/mech/dd.c) against every policy: for each
 * goal, modifier and difficulty, the 16 policies (double down or not from
 * each of the four first outcomes) are enumerated here by the rule text,
 * independently of the engine. The exact distribution of dd(M, D, GOAL) must
 * reach the best of them on the goal's own measure (so at least every fixed
 * policy), and the roller, shown each first natural, must double down
 * exactly where that is strictly better for the goal (a tie keeps the roll).
 * The distributions themselves are in tests/lang/double-down.test (brute
 * blocks) and mech_test.c.
 */
#include "support.h"

#include "rng.h" /* alea__rng_set_faces */

/* The first roll's outcome: a natural 19-20 is 3, 1-2 is 0, else 2 when
 * the natural reaches need (the difficulty less the modifier), else 1. */
static int outcome(int nat, int need)
{
    return nat >= 19 ? 3 : nat <= 2 ? 0 : nat >= need ? 2 : 1;
}

static int after(int t, int nat2, int need)
{
    static const int shift[] = {-2, -1, 1, 2};
    int f = t + shift[outcome(nat2, need)];
    return f < 0 ? 0 : f > 3 ? 3 : f;
}

/* A goal: its spelling after the difficulty, and the value of each final
 * outcome whose expectation it maximises. */
typedef struct goal {
    const char *text;
    int64_t worth[4];
} goal;

static const goal goals[] = {
    {"tier", {0, 1, 2, 3}},
    {"best", {0, 1, 2, 3}},
    {"success", {0, 0, 1, 1}},
    {"critical", {0, 0, 0, 1}},
    {"boons", {0, 0, 1, 1}},
    {"boons, 0, 0, 3, 5", {0, 0, 3, 5}},
    {"boons, -2, -1, 1, 2", {-2, -1, 1, 2}},
    {"boons, 0, -1, 0, 0", {0, -1, 0, 0}},
    {"boons, 7, -3, 0, 1", {7, -3, 0, 1}},
    {"boons, -1000000, 0, 999999, 1000000", {-1000000, 0, 999999, 1000000}},
};

/* The scripted faces: the first d20 shows nat, a second one 10. */
typedef struct script {
    int64_t nat;
    int draws;
} script;

static uint64_t scripted(void *ud, uint64_t n, int64_t lo, const int64_t *faces)
{
    script *s = ud;
    assert_true(n == 20 && lo == 1 && !faces);
    return (uint64_t)((s->draws++ == 0 ? s->nat : 10) - lo);
}

/* The goal's measure of a distribution of outcomes, times 400. */
static double measured(const alea_dist *d, const int64_t *w)
{
    double m = 0;
    for (int t = 0; t < 4; t++)
        m += (double)w[t] * alea_dist_p(d, t) * 400;
    return m;
}

static void check(alea_ctx *ctx, const goal *g, int m, int d)
{
    /* A negative modifier is the roll at modifier 0 against D - M: only the
     * natural a success needs matters (dd() takes modifiers from 0). */
    int need = d - m, mod = m < 0 ? 0 : m, diff = m < 0 ? d - m : d;
    int64_t kept[4], doubled[4]; /* the goal's expectation from each first outcome, x20 */
    for (int t = 0; t < 4; t++) {
        kept[t] = 20 * g->worth[t];
        doubled[t] = 0;
        for (int nat2 = 1; nat2 <= 20; nat2++)
            doubled[t] += g->worth[after(t, nat2, need)];
    }
    /* Every policy, a bit per first outcome it doubles down from. */
    int64_t best = INT64_MIN, fixed[3] = {0, 0, 0}; /* never, always, onfail */
    for (int mask = 0; mask < 16; mask++) {
        int64_t v = 0;
        for (int nat = 1; nat <= 20; nat++) {
            int t = outcome(nat, need);
            v += mask >> t & 1 ? doubled[t] : kept[t];
        }
        best = v > best ? v : best;
        if (mask == 0 || mask == 15 || mask == 3)
            fixed[mask == 0 ? 0 : mask == 15 ? 1 : 2] = v;
    }
    char src[96];
    snprintf(src, sizeof src, "dd(%d, %d, %s)", mod, diff, g->text);
    alea_dist *dist = dist_of(ctx, src);
    double got = measured(dist, g->worth);
    alea_dist_free(dist);
    if (fabs(got - (double)best) > 1e-6 * (1 + fabs((double)best)))
        fail_msg("'%s': %.17g / 400 on its goal, the best policy %lld / 400", src, got,
                 (long long)best);
    for (int k = 0; k < 3; k++)
        if ((double)fixed[k] > got + 1e-6 * (1 + fabs(got)))
            fail_msg("'%s': a fixed policy does better (%lld / 400)", src, (long long)fixed[k]);

    /* The roller, each first natural: doubles down iff it is strictly better. */
    alea_expr *e = compile(ctx, src);
    alea_roll *r = alea_roll_new(ctx);
    for (int nat = 1; nat <= 20; nat++) {
        int t = outcome(nat, need);
        script s = {nat, 0};
        alea__rng_set_faces(ctx, scripted, &s);
        assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
        int want = doubled[t] > kept[t];
        if (s.draws != 1 + want)
            fail_msg("'%s' after a natural %d: %d d20s, want %d", src, nat, s.draws, 1 + want);
        assert_int_equal(alea_roll_total(r), want ? after(t, 10, need) : t);
        char *text = roll_text(r, ALEA_FORMAT_TEXT);
        assert_true((strstr(text, "; double down") != NULL) == want);
        free(text);
    }
    alea__rng_set_faces(ctx, NULL, NULL);
    alea_roll_free(r);
    alea_expr_free(e);
}

static void test_dd_goals_are_best(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    for (size_t g = 0; g < sizeof goals / sizeof goals[0]; g++)
        for (int m = -5; m <= 15; m++)
            for (int d = 5; d <= 25; d++)
                check(ctx, &goals[g], m, d);
    alea_ctx_free(ctx);
}

/* The decisions the docs state (docs/systems/double-down.md), with s the
 * naturals 3-18 that succeed: tier from a failure when D <= M + 11, from a
 * success when D <= M + 9; success exactly as onfail; critical as always,
 * but from a critical failure (where it cannot matter). */
static void test_dd_goal_rules(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    for (int m = 0; m <= 18; m++)
        for (int d = 1; d <= 40; d++) {
            static const char *const pair[][2] = {
                {"success", "onfail"}, {"tier", "best"}, {"boons", "success"}};
            for (int k = 0; k < 3; k++) {
                char a[64], b[64];
                snprintf(a, sizeof a, "dd(%d, %d, %s)", m, d, pair[k][0]);
                snprintf(b, sizeof b, "dd(%d, %d, %s)", m, d, pair[k][1]);
                alea_dist *da = dist_of(ctx, a), *db = dist_of(ctx, b);
                for (int t = 0; t < 4; t++)
                    assert_true(alea_dist_p(da, t) == alea_dist_p(db, t));
                alea_dist_free(da);
                alea_dist_free(db);
            }
            /* tier's thresholds, from the breakdown of a scripted failure
             * (natural 3, when it fails) and success (natural 18) */
            char src[64];
            snprintf(src, sizeof src, "dd(%d, %d, tier)", m, d);
            alea_expr *e = compile(ctx, src);
            alea_roll *r = alea_roll_new(ctx);
            for (int nat = 3; nat <= 18; nat += 15) {
                int t = outcome(nat, d - m);
                if (t == 1 && nat == 18)
                    continue;
                if (t == 2 && nat == 3)
                    continue;
                script s = {nat, 0};
                alea__rng_set_faces(ctx, scripted, &s);
                assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
                int want = t == 1 ? d <= m + 11 : d <= m + 9;
                if (s.draws != 1 + want)
                    fail_msg("'%s' after a natural %d (%s): %d d20s", src, nat,
                             t == 1 ? "failure" : "success", s.draws);
            }
            alea__rng_set_faces(ctx, NULL, NULL);
            alea_roll_free(r);
            alea_expr_free(e);
        }
    alea_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dd_goals_are_best),
        cmocka_unit_test(test_dd_goal_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
