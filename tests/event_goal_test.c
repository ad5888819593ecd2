/* event_goal_test.c -- critical pools with a goal, event(POOL, GOAL): on
 * small pools every first roll is enumerated and every way the 1s can
 * cancel the criticals is tried (the re-roll tails summed in doubles up to
 * the target, past which the goal no longer changes); the best for the
 * goal, summed over the rolls, is the policy's value and the exact
 * distribution's, and neither fixed rule (smallest, largest) beats it. The
 * roller, shown each first roll, cancels what the policy table's row for
 * that situation says. The table's size against the support limit at N
 * and N+1. */
#include "support.h"

#include "rng.h" /* alea__rng_set_faces */

#include <math.h>

TEST_HEAP_CONTEXT

#define VMAX 400 /* the tails' sums followed at most to here (the targets are below) */
#define MAXD 6   /* dice in a pool */

typedef struct egoal {
    const char *text; /* "mean", ">= 9" */
    char op;          /* 0 mean; 'g' >=, 'G' >, 'l' <=, 'L' <, 'e' =, 'n' <> */
    int64_t target;
} egoal;

static int meets(const egoal *g, int64_t v)
{
    switch (g->op) {
    case 'g': return v >= g->target;
    case 'G': return v > g->target;
    case 'l': return v <= g->target;
    case 'L': return v < g->target;
    case 'e': return v == g->target;
    default: return v != g->target;
    }
}

/* P(tail = t) of a critical on a dd, t <= T: 1/d^(k+1) at t = k d + j,
 * 0 < j < d. */
static void tail_pmf(int64_t d, int64_t T, double *p)
{
    for (int64_t t = 0; t <= T; t++)
        p[t] = t % d ? pow(1.0 / (double)d, (double)(t / d + 1)) : 0;
}

static void conv(const double *a, const double *b, int64_t T, double *out)
{
    for (int64_t t = 0; t <= T; t++) {
        double s = 0;
        for (int64_t u = 0; u <= t; u++)
            s += a[u] * b[t - u];
        out[t] = s;
    }
}

/* The goal's value of S plus the tails of the dice in survivors (a mask). */
static double value_of(const egoal *g, const int64_t *sides, int n, unsigned survivors, int64_t S)
{
    if (!g->op) {
        double v = (double)S;
        for (int i = 0; i < n; i++)
            if (survivors >> i & 1)
                v += (double)sides[i] * ((double)sides[i] + 1) / (2 * ((double)sides[i] - 1));
        return v;
    }
    /* the tails followed to T, where every sum past S + T is past the
     * target: the goal is the same for all of them, their mass 1 - mass
     * (the condition never changes past the target, so this is no cut) */
    int64_t T = g->target - S < 0 ? 0 : g->target - S < VMAX ? g->target - S : VMAX;
    static double acc[VMAX + 1], tail[VMAX + 1], tmp[VMAX + 1];
    for (int64_t t = 0; t <= T; t++)
        acc[t] = t == 0;
    for (int i = 0; i < n; i++)
        if (survivors >> i & 1) {
            tail_pmf(sides[i], T, tail);
            conv(acc, tail, T, tmp);
            memcpy(acc, tmp, (size_t)(T + 1) * sizeof *acc);
        }
    double v = 0, mass = 0;
    for (int64_t t = 0; t <= T; t++) {
        v += acc[t] * meets(g, S + t);
        mass += acc[t];
    }
    return v + (1 - mass) * meets(g, S + T + 1);
}

/* The m criticals (of mask crits) a fixed rule cancels: by sides, earlier
 * dice first among equal sides. */
static unsigned rule_cancels(const int64_t *sides, int n, unsigned crits, int m, int largest)
{
    unsigned out = 0;
    for (int c = 0; c < m; c++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if ((crits >> i & 1) && !(out >> i & 1) &&
                (best < 0 || (largest ? sides[i] > sides[best] : sides[i] < sides[best])))
                best = i;
        out |= 1u << best;
    }
    return out;
}

/* The goal's value of the whole roll: with the best cancelling of each
 * first roll (rule -1), or a fixed rule (0 smallest, 1 largest). */
static double brute(const int64_t *sides, int n, const egoal *g, int rule)
{
    int64_t face[MAXD];
    double total = 0, w = 1;
    for (int i = 0; i < n; i++) {
        face[i] = 1;
        w /= (double)sides[i];
    }
    for (;;) {
        int ones = 0, K = 0;
        unsigned crits = 0;
        int64_t S = 0;
        for (int i = 0; i < n; i++) {
            ones += face[i] == 1;
            if (face[i] == sides[i]) {
                crits |= 1u << i;
                K++;
            }
            S += face[i];
        }
        if (2 * ones > n) {
            total += w * (g->op ? meets(g, ones) : (double)ones);
        } else {
            int m = ones < K ? ones : K;
            double best;
            if (rule >= 0) {
                best = value_of(g, sides, n, crits & ~rule_cancels(sides, n, crits, m, rule), S);
            } else {
                best = -1e300;
                for (unsigned c = 0; c < 1u << n; c++)
                    if ((c & ~crits) == 0 && __builtin_popcount(c) == m) {
                        double v = value_of(g, sides, n, crits & ~c, S);
                        best = v > best ? v : best;
                    }
            }
            total += w * best;
        }
        int i = 0;
        while (i < n && face[i] == sides[i])
            face[i++] = 1;
        if (i == n)
            break;
        face[i]++;
    }
    return total;
}

static double goal_of_dist(const alea_dist *d, const egoal *g)
{
    if (!g->op)
        return alea_dist_mean(d);
    double s = 0;
    for (size_t i = 0; i < alea_dist_count(d); i++)
        s += alea_dist_prob(d, i) * meets(g, alea_dist_value(d, i));
    return s;
}

typedef struct epool {
    const char *text;
    int n;
    int64_t sides[MAXD];
} epool;

static const epool pools[] = {
    {"d2 + d3 + d4", 3, {2, 3, 4}},
    {"d3 + 2d4", 3, {3, 4, 4}},
    {"2d2 + d3 + d5", 4, {2, 2, 3, 5}},
    {"d2 + d3 + d6", 3, {2, 3, 6}},
    {"d4 + d6 + d8 + d10", 4, {4, 6, 8, 10}},
};

static const egoal goals[] = {
    {"mean", 0, 0},  {">= 9", 'g', 9},  {">= 12", 'g', 12}, {"> 9", 'G', 9},
    {"<= 8", 'l', 8}, {"< 10", 'L', 10}, {"= 11", 'e', 11},  {"<> 10", 'n', 10},
    {">= 30", 'g', 30},
};

/* Every pool and goal: the optimum by enumeration is the policy's value
 * and the exact distribution's; the fixed rules' distributions measure
 * what the enumeration says, never more than the optimum; for mean, the
 * fixed rules' policy reports that optimum. */
static void test_optimum_is_exact(void **state)
{
    (void)state;
    char src[128];
    int strictly = 0;
    for (size_t pi = 0; pi < sizeof pools / sizeof *pools; pi++)
        for (size_t gi = 0; gi < sizeof goals / sizeof *goals; gi++) {
            const epool *P = &pools[pi];
            const egoal *g = &goals[gi];
            double best = brute(P->sides, P->n, g, -1);
            double tol = 1e-9 * (1 + fabs(best));
            snprintf(src, sizeof src, "event(%s, %s)", P->text, g->text);
            alea_expr *e = compile(ctx, src);
            alea_policy *p = NULL;
            assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_OK);
            if (fabs(alea_policy_value(p) - best) > tol)
                fail_msg("'%s': policy %.15g, enumeration %.15g", src, alea_policy_value(p),
                         best);
            double rows = 0;
            for (size_t i = 0; i < alea_policy_rows(p); i++)
                rows += alea_policy_prob(p, i) * alea_policy_row_value(p, i);
            assert_double_equal(rows, best, tol);
            alea_policy_free(p);
            alea_expr_free(e);
            alea_dist *d = dist_of(ctx, src);
            assert_double_equal(goal_of_dist(d, g), best, tol);
            alea_dist_free(d);
            for (int rule = 0; rule < 2; rule++) {
                double fixed = brute(P->sides, P->n, g, rule);
                snprintf(src, sizeof src, "event(%s, %s)", P->text, rule ? "largest" : "smallest");
                d = dist_of(ctx, src);
                assert_double_equal(goal_of_dist(d, g), fixed, tol);
                alea_dist_free(d);
                if (fixed > best + tol)
                    fail_msg("'%s' beats the optimum on %s", src, g->text);
                strictly += fixed < best - tol;
                if (!g->op) {
                    e = compile(ctx, src);
                    assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_OK);
                    assert_double_equal(alea_policy_optimum(p), best, tol);
                    assert_double_equal(alea_policy_value(p), fixed, tol);
                    alea_policy_free(p);
                    alea_expr_free(e);
                }
            }
        }
    assert_true(strictly > 0); /* some rule loses somewhere: the choice matters */
}

/* Faces for the roller: the first roll's, then 1 on every re-roll. */
typedef struct script {
    const int64_t *face;
    int n, draws;
} script;

static uint64_t scripted(void *ud, uint64_t n, int64_t lo, const int64_t *faces)
{
    script *s = ud;
    (void)n;
    (void)faces;
    int k = s->draws++;
    return (uint64_t)((k < s->n ? s->face[k] : 1) - lo);
}

/* Every first roll of d2 + d3 + d4 and 2d2 + d3 + d5 with a choice: the
 * roller's "cancelled ..." is the choice of the policy row for what it
 * saw (its criticals, its 1s, the faces' sum in the row's range). */
static void test_roller_follows_rows(void **state)
{
    (void)state;
    static const char *const gl[] = {">= 9", "<= 8", "mean", "= 11"};
    char src[128], want[160];
    int compared = 0;
    for (size_t pi = 0; pi < 3; pi++)
        for (size_t gi = 0; gi < sizeof gl / sizeof *gl; gi++) {
            const epool *P = &pools[pi];
            snprintf(src, sizeof src, "event(%s, %s)", P->text, gl[gi]);
            alea_expr *e = compile(ctx, src);
            alea_policy *p = NULL;
            assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_OK);
            alea_roll *r = alea_roll_new(ctx);
            int64_t face[MAXD];
            for (int i = 0; i < P->n; i++)
                face[i] = 1;
            for (;;) {
                script s = {face, P->n, 0};
                alea__rng_set_faces(ctx, scripted, &s);
                assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
                alea__rng_set_faces(ctx, NULL, NULL);
                char *text = roll_text(r, ALEA_FORMAT_TEXT);
                const char *c = strstr(text, "; cancelled ");
                if (c) {
                    c += strlen("; cancelled ");
                    snprintf(want, sizeof want, "cancel %.*s", (int)strcspn(c, ":"), c);
                    int64_t S = 0;
                    for (int i = 0; i < P->n; i++)
                        S += face[i];
                    int found = 0;
                    for (size_t i = 0; i < alea_policy_rows(p) && !found; i++) {
                        const char *seen = alea_policy_seen(p, i), *sh = strstr(seen, "shown ");
                        long long lo = 0, hi = 0;
                        if (sh) {
                            int got = sscanf(sh, "shown %lld-%lld", &lo, &hi);
                            if (got == 1)
                                hi = lo;
                            if (S < lo || S > hi)
                                continue;
                        }
                        /* the situation: its criticals and 1s, as the roll's */
                        int64_t ones = 0;
                        for (int k = 0; k < P->n; k++)
                            ones += face[k] == 1;
                        char ones_text[32];
                        snprintf(ones_text, sizeof ones_text, "; %lld one", (long long)ones);
                        if (!strstr(seen, ones_text))
                            continue;
                        char crit[64] = "criticals ";
                        for (int k = 0; k < P->n; k++) /* sides ascending in the pools */
                            if (face[k] == P->sides[k]) {
                                int same = 0;
                                for (int j = 0; j < P->n; j++)
                                    same += face[j] == P->sides[j] && P->sides[j] == P->sides[k];
                                if (k > 0 && P->sides[k - 1] == P->sides[k] &&
                                    face[k - 1] == P->sides[k - 1])
                                    continue; /* counted with the first of its size */
                                char part[24];
                                snprintf(part, sizeof part, "%s%.0dd%lld",
                                         strlen(crit) > 10 ? ", " : "", same > 1 ? same : 0,
                                         (long long)P->sides[k]);
                                strcat(crit, part);
                            }
                        strcat(crit, ";");
                        if (strncmp(seen, crit, strlen(crit)) != 0)
                            continue;
                        found = 1;
                        if (strcmp(alea_policy_choice(p, i), want) != 0)
                            fail_msg("'%s' %s: the roller's %s, the row's %s", src, text, want,
                                     alea_policy_choice(p, i));
                        compared++;
                    }
                    if (!found)
                        fail_msg("'%s' %s: no row for it", src, text);
                }
                free(text);
                int i = 0;
                while (i < P->n && face[i] == P->sides[i])
                    face[i++] = 1;
                if (i == P->n)
                    break;
                face[i]++;
            }
            alea_roll_free(r);
            alea_policy_free(p);
            alea_expr_free(e);
        }
    assert_true(compared >= 20);
}

/* The table of a condition: (target - dice + 1) x the survivors' counts
 * chances, against the support limit at N and N+1: event(d2 + d3 + d4,
 * >= 9) needs 7 x 8 = 56. */
static void test_table_limit(void **state)
{
    (void)state;
    const char *src = "event(d2 + d3 + d4, >= 9)";
    alea_expr *e = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 56);
    assert_int_equal(alea_expr_compile(ctx, src, strlen(src), &e), ALEA_OK);
    alea_expr_free(e);
    e = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 55);
    assert_int_equal(alea_expr_compile(ctx, src, strlen(src), &e), ALEA_ERR_LIMIT);
    assert_null(e);
    assert_non_null(strstr(alea_ctx_error(ctx), "table of 56 chances"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_optimum_is_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roller_follows_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_limit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
