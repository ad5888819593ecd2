/*
 * reroll_test.c -- reroll(POOL, ROUNDS, GOAL[, K]) (src/mech/reroll.c)
 * against brute force: on tiny pools, every deterministic policy (a map
 * from each seen state, a multiset of faces per size of die, to the dice
 * rerolled) is played out exactly, here, without the library, and the best
 * one's value must be the goal's value of the distribution the library
 * computes by backward induction.
 *
 * With one round every policy is enumerated. With two, every pair of
 * maps (first round, last round) where that is few enough (2d3: 1728^2);
 * for 2d4 (331,776^2 pairs) every last-round map is enumerated and the
 * first round's best answer to it taken state by state, which is the
 * best over every first-round map (the value is a sum over the first
 * roll's states, each choosing alone).
 */
#include "support.h"

TEST_HEAP_CONTEXT

#define MAXD 4     /* dice */
#define MAXS 40    /* states */
#define MAXO 16    /* options a state */

typedef struct game {
    int n, sides[MAXD]; /* dice, equal sides next to each other */
    int most;           /* K, or 0 */
    int is_cond, op;    /* op: 0 >=, 1 <=, 2 =, 3 >, 4 < */
    int target;
    /* the states: faces, ascending within each run of equal sides */
    int ns, face[MAXS][MAXD];
    double p0[MAXS]; /* the first roll's chance of each */
    /* options of each state: the dice rerolled, a mask */
    int no[MAXS], mask[MAXS][MAXO];
    /* T[x][o][y]: the chance of state y after option o from x */
    double T[MAXS][MAXO][MAXS];
} game;

static int same_group(const game *g, int i, int j)
{
    int lo = i < j ? i : j, hi = i < j ? j : i;
    for (int k = lo; k < hi; k++)
        if (g->sides[k] != g->sides[k + 1])
            return 0;
    return 1;
}

/* The state of faces f (sorted within each run of equal sides). */
static int state_of(const game *g, const int *f)
{
    int t[MAXD];
    memcpy(t, f, sizeof t);
    for (int i = 0; i < g->n; i++) /* insertion sort within runs */
        for (int j = i; j > 0 && same_group(g, j - 1, j) && t[j - 1] > t[j]; j--) {
            int x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    for (int s = 0; s < g->ns; s++)
        if (memcmp(g->face[s], t, (size_t)g->n * sizeof *t) == 0)
            return s;
    fail_msg("no state");
    return -1;
}

static double goal_of(const game *g, int s)
{
    int t = 0;
    for (int i = 0; i < g->n; i++)
        t += g->face[s][i];
    if (!g->is_cond)
        return t;
    switch (g->op) {
    case 0: return t >= g->target;
    case 1: return t <= g->target;
    case 2: return t == g->target;
    case 3: return t > g->target;
    default: return t < g->target;
    }
}

static void game_init(game *g)
{
    int f[MAXD], radix[MAXD];
    for (int i = 0; i < g->n; i++) {
        f[i] = 0;
        radix[i] = g->sides[i];
    }
    double each = 1;
    for (int i = 0; i < g->n; i++)
        each /= g->sides[i];
    g->ns = 0;
    do { /* the states: tuples ascending within runs */
        int ok = 1;
        for (int i = 1; i < g->n; i++)
            if (same_group(g, i - 1, i) && f[i - 1] > f[i])
                ok = 0;
        if (!ok)
            continue;
        assert_true(g->ns < MAXS);
        for (int i = 0; i < g->n; i++)
            g->face[g->ns][i] = f[i] + 1;
        g->ns++;
    } while (odometer_next(f, radix, g->n));
    for (int i = 0; i < g->n; i++)
        f[i] = 0;
    do {
        int t[MAXD];
        for (int i = 0; i < g->n; i++)
            t[i] = f[i] + 1;
        g->p0[state_of(g, t)] += each;
    } while (odometer_next(f, radix, g->n));
    for (int s = 0; s < g->ns; s++) {
        g->no[s] = 0;
        for (int m = 0; m < 1 << g->n; m++) {
            int k = 0, ok = 1;
            for (int i = 0; i < g->n; i++) {
                k += m >> i & 1;
                /* of equal dice showing equal faces, the first are rerolled */
                for (int j = i + 1; j < g->n; j++)
                    if (same_group(g, i, j) && g->face[s][i] == g->face[s][j] &&
                        (m >> j & 1) && !(m >> i & 1))
                        ok = 0;
            }
            if (!ok || (g->most && k > g->most))
                continue;
            assert_true(g->no[s] < MAXO);
            int o = g->no[s]++;
            g->mask[s][o] = m;
            int r[MAXD], rr[MAXD], nr = 0;
            double p = 1;
            for (int i = 0; i < g->n; i++)
                if (m >> i & 1) {
                    rr[nr++] = g->sides[i];
                    p /= g->sides[i];
                }
            for (int i = 0; i < nr; i++)
                r[i] = 0;
            do {
                int t[MAXD];
                for (int i = 0, q = 0; i < g->n; i++)
                    t[i] = m >> i & 1 ? r[q++] + 1 : g->face[s][i];
                g->T[s][o][state_of(g, t)] += p;
            } while (nr && odometer_next(r, rr, nr));
        }
    }
}

/* q[x][o] = the expected u after option o from x. */
static void expect(const game *g, const double *u, double q[MAXS][MAXO])
{
    for (int x = 0; x < g->ns; x++)
        for (int o = 0; o < g->no[x]; o++) {
            q[x][o] = 0;
            for (int y = 0; y < g->ns; y++)
                q[x][o] += g->T[x][o][y] * u[y];
        }
}

/* The best over every map pi of sum P0(x) q[x][pi(x)] (all enumerated),
 * and *count += the maps tried. */
static double best_map(const game *g, double q[MAXS][MAXO], const double *w, long *count)
{
    int pi[MAXS] = {0};
    double best = -HUGE_VAL;
    do {
        double v = 0;
        for (int x = 0; x < g->ns; x++)
            v += w[x] * q[x][pi[x]];
        if (v > best)
            best = v;
        (*count)++;
    } while (odometer_next(pi, g->no, g->ns));
    return best;
}

/* The best value over every policy of `rounds` (1 or 2) rounds; joint:
 * enumerate every first-round map too (else the best answer per state). */
static double brute(const game *g, int rounds, int joint, long *count)
{
    static double q[MAXS][MAXO], q1[MAXS][MAXO];
    double u[MAXS];
    for (int y = 0; y < g->ns; y++)
        u[y] = goal_of(g, y);
    expect(g, u, q);
    if (rounds == 1)
        return best_map(g, q, g->p0, count);
    int pi2[MAXS] = {0};
    double best = -HUGE_VAL;
    do { /* every last-round map: u its values, then the first round */
        double u2[MAXS] = {0};
        for (int y = 0; y < g->ns; y++)
            u2[y] = q[y][pi2[y]];
        expect(g, u2, q1);
        double v = 0;
        if (joint) {
            v = best_map(g, q1, g->p0, count);
        } else {
            for (int x = 0; x < g->ns; x++) {
                double m = -HUGE_VAL;
                for (int o = 0; o < g->no[x]; o++)
                    m = q1[x][o] > m ? q1[x][o] : m;
                v += g->p0[x] * m;
            }
            (*count)++;
        }
        if (v > best)
            best = v;
    } while (odometer_next(pi2, g->no, g->ns));
    return best;
}

/* The library's value of the same game: the goal's value of the
 * distribution of reroll(src). */
static double engine(const game *g, const char *src)
{
    double v = 0;
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        alea_dist *d = dist_of(ctx, src);
        double x = 0;
        if (!g->is_cond) {
            x = alea_dist_mean(d);
        } else {
            for (size_t i = 0; i < alea_dist_count(d); i++) {
                int64_t t = alea_dist_value(d, i);
                int hit = g->op == 0 ? t >= g->target : g->op == 1 ? t <= g->target
                        : g->op == 2 ? t == g->target : g->op == 3 ? t > g->target
                                                          : t < g->target;
                x += hit ? alea_dist_prob(d, i) : 0;
            }
        }
        alea_dist_free(d);
        if (exact)
            assert_double_equal(x, v, 1e-12);
        v = x;
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
    return v;
}

typedef struct brute_case {
    const char *src;
    int n, sides[MAXD], rounds, most, is_cond, op, target, joint;
    long policies; /* at least this many enumerated */
} brute_case;

static void test_every_policy(void **state)
{
    (void)state;
    static const brute_case cases[] = {
        {"reroll(2d3, 1, mean)", 2, {3, 3}, 1, 0, 0, 0, 0, 1, 1728},
        {"reroll(2d3, 1, >= 5)", 2, {3, 3}, 1, 0, 1, 0, 5, 1, 1728},
        {"reroll(2d3, 1, = 4)", 2, {3, 3}, 1, 0, 1, 2, 4, 1, 1728},
        {"reroll(2d3, 2, mean)", 2, {3, 3}, 2, 0, 0, 0, 0, 1, 1728L * 1728},
        {"reroll(2d3, 2, <= 3)", 2, {3, 3}, 2, 0, 1, 1, 3, 1, 1728L * 1728},
        {"reroll(2d4, 1, >= 7)", 2, {4, 4}, 1, 0, 1, 0, 7, 1, 331776},
        {"reroll(2d4, 2, >= 7)", 2, {4, 4}, 2, 0, 1, 0, 7, 0, 331776},
        {"reroll(2d4, 2, mean)", 2, {4, 4}, 2, 0, 0, 0, 0, 0, 331776},
        {"reroll(2d4, 2, = 5)", 2, {4, 4}, 2, 0, 1, 2, 5, 0, 331776},
        {"reroll(d2 + d3, 1, > 3)", 2, {2, 3}, 1, 0, 1, 3, 3, 1, 4096},
        {"reroll(d2 + d3, 2, < 4)", 2, {2, 3}, 2, 0, 1, 4, 4, 1, 4096L * 4096},
        {"reroll(3d3, 1, >= 8, 1)", 3, {3, 3, 3}, 1, 1, 1, 0, 8, 1, 1000},
        {"reroll(3d3, 1, mean, 2)", 3, {3, 3, 3}, 1, 2, 0, 0, 0, 1, 1000},
        {"reroll(3d3, 2, = 7, 1)", 3, {3, 3, 3}, 2, 1, 1, 2, 7, 0, 1000},
        {"reroll(2d2 + d3, 1, >= 6)", 3, {2, 2, 3}, 1, 0, 1, 0, 6, 1, 1000},
    };
    unsigned kinds = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const brute_case *bc = &cases[c];
        static game g;
        memset(&g, 0, sizeof g);
        g.n = bc->n;
        memcpy(g.sides, bc->sides, sizeof g.sides);
        g.most = bc->most;
        g.is_cond = bc->is_cond;
        g.op = bc->op;
        g.target = bc->target;
        game_init(&g);
        double got = engine(&g, bc->src);
        /* the light run (support.h) enumerates once for each kind of
         * enumeration (rounds, joint); the library computes every case */
        unsigned kind = 1u << (2 * bc->rounds + bc->joint);
        if (test_light() && (kinds & kind))
            continue;
        kinds |= kind;
        long count = 0;
        double want = brute(&g, bc->rounds, bc->joint, &count);
        if (!(fabs(got - want) <= 1e-12))
            fail_msg("%s: the library's %.17g, the best of %ld policies %.17g", bc->src, got,
                     count, want);
        assert_true(count >= bc->policies);
    }
}

/* Rerolling at most K dice a round: no roll ever rerolls more. */
static void test_at_most_k(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "reroll(5d6, 3, >= 24, 2)");
    alea_roll *r = alea_roll_new(ctx);
    alea_ctx_seed(ctx, 7);
    for (int i = 0; i < 300; i++) {
        assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
        char *json = roll_text(r, ALEA_FORMAT_JSON);
        /* every round's "rerolled" lists at most two dice */
        for (const char *p = json; (p = strstr(p, "\"rerolled\": [")) != NULL;) {
            p += strlen("\"rerolled\": [");
            int n = *p == ']' ? 0 : 1;
            for (; *p != ']'; p++)
                n += *p == ',';
            assert_true(n <= 2);
        }
        free(json);
    }
    alea_roll_free(r);
    alea_expr_free(e);
}

/* The work limit stops a pool of too many states at once, with the work
 * it needs, before anything is allocated for it. */
static void test_work_limit(void **state)
{
    (void)state;
    alea_expr *e = NULL;
    assert_int_equal(alea_expr_compile(ctx, "reroll(20d20, 5, mean)", 22, &e),
                     ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "work limit"));
    size_t peak = 0;
    alea_ctx_memory(ctx, &peak);
    assert_true(peak < 1 << 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_policy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_at_most_k, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work_limit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
