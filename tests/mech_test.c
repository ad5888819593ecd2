/*
 * mech_test.c -- the game mechanics (src/mech/, and the extra dice of
 * parse.c): their exact distributions against brute-force enumeration
 * written here, independently of the engine: every face combination of
 * small pools, and for event() every re-roll chain up to a depth, the
 * probability of longer chains counted as "cut" and allowed as the only
 * difference; event()'s critical-failure flag; dd()'s boon arithmetic.
 *
 * Each mechanic also has a golden file, tests/lang/NAME.test (canonical
 * forms, seeded rolls, values, errors), which agree_test.c rolls against
 * the exact engine; the rule texts' worked examples are in systems_test.c.
 */
#include "support.h"

#include <alea_games.h> /* dd()'s boons and banes */

#define VMIN (-64)
#define VMAX 4096
#define NV (VMAX - VMIN + 1)

/* A brute-force distribution over [VMIN, VMAX]. */
typedef struct brute {
    double p[NV];
    double cut; /* mass of the paths not followed to the end */
} brute;

static void add(brute *b, int64_t v, double p)
{
    if (v < VMIN || v > VMAX)
        fail_msg("value %lld outside the brute-force range", (long long)v);
    b->p[v - VMIN] += p;
}

/* Compares alea's distribution of src with b, allowing b's cut mass plus
 * alea's truncated mass (and 1e-12) of difference per value. */
static void expect_dist(const char *src, const brute *b)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_dist *d = dist_of(ctx, src);
    double tol = 1e-12 + b->cut + alea_dist_truncated(d);
    for (int64_t v = VMIN; v <= VMAX; v++) {
        double want = b->p[v - VMIN], got = alea_dist_p(d, v);
        if (got - want > tol || want - got > tol)
            fail_msg("'%s': P(%lld) = %.17g, brute force %.17g (tolerance %.3g)", src,
                     (long long)v, got, want, tol);
    }
    for (size_t i = 0; i < alea_dist_count(d); i++) {
        int64_t v = alea_dist_value(d, i);
        if ((v < VMIN || v > VMAX) && alea_dist_prob(d, i) > tol)
            fail_msg("'%s': P(%lld) = %.3g outside the brute-force range", src, (long long)v,
                     alea_dist_prob(d, i));
    }
    alea_dist_free(d);
    alea_ctx_free(ctx);
}

/* Calls fn for every face combination of n dice with the given sides. */
typedef void (*combo_fn)(const int64_t *faces, const int64_t *sides, int n, double p, void *ud);

static void each_combo(const int64_t *sides, int n, combo_fn fn, void *ud)
{
    int digit[16] = {0}, radix[16];
    int64_t faces[16];
    double p = 1;
    for (int i = 0; i < n; i++) {
        radix[i] = (int)sides[i];
        p /= (double)sides[i];
    }
    do {
        for (int i = 0; i < n; i++)
            faces[i] = digit[i] + 1;
        fn(faces, sides, n, p, ud);
    } while (odometer_next(digit, radix, n));
}

/* ---- boons, banes, +/- DICE, +1d: keep n of n+|k| dice ---- */

typedef struct keep_ud {
    brute *b;
    int keep, high;
} keep_ud;

static void keep_combo(const int64_t *f, const int64_t *s, int n, double p, void *ud)
{
    keep_ud *k = ud;
    int64_t sorted[16];
    (void)s;
    memcpy(sorted, f, (size_t)n * sizeof *f);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            int64_t t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    int64_t sum = 0;
    for (int i = 0; i < k->keep; i++)
        sum += k->high ? sorted[n - 1 - i] : sorted[i];
    add(k->b, sum, p);
}

static void keep_brute(int sides, int rolled, int keep, int high, brute *b)
{
    int64_t s[16];
    for (int i = 0; i < rolled; i++)
        s[i] = sides;
    memset(b, 0, sizeof *b);
    keep_ud ud = {b, keep, high};
    each_combo(s, rolled, keep_combo, &ud);
}

static void test_extra_dice(void **state)
{
    (void)state;
    static brute b;
    keep_brute(10, 4, 2, 1, &b);
    expect_dist("2d10 +2B", &b);
    expect_dist("2d10 +3B -1B", &b);
    keep_brute(10, 5, 2, 0, &b);
    expect_dist("2d10 +2B -5B", &b);
    /* capped at 5 boons (on d4s: summing 10^7 tiny terms would cost the
     * brute force its own 1e-12) */
    keep_brute(4, 7, 2, 1, &b);
    expect_dist("2d4 +7B", &b);
    keep_brute(4, 5, 2, 1, &b);
    expect_dist("2d4 +9B -2B", &b); /* each side capped first, then netted: +5 -2 */
    expect_dist("2d4 +3B", &b);
    keep_brute(6, 3, 2, 0, &b);
    expect_dist("2d6 -1 DICE", &b);
    expect_dist("2d6 -2 DICE +1 DICE", &b);
    keep_brute(6, 5, 2, 1, &b);
    expect_dist("2d6 +3 INJURY DICE", &b);
    keep_brute(20, 3, 1, 1, &b);
    expect_dist("d20 +2d", &b);
    expect_dist("d20 +proficient +1d", &b);
    expect_dist("d20 +1d[prof] +1d[prof] +1d", &b); /* the label counts once */
    keep_brute(20, 4, 1, 0, &b);
    expect_dist("d20 -3d", &b);
}

/* Damage rolled twice, keeping the better total: best of two 2d6+3. */
static void test_damage_twice(void **state)
{
    (void)state;
    static brute b;
    memset(&b, 0, sizeof b);
    for (int a = 2; a <= 12; a++)
        for (int c = 2; c <= 12; c++) {
            double pa = (double)(6 - abs(a - 7)) / 36, pc = (double)(6 - abs(c - 7)) / 36;
            add(&b, (a > c ? a : c) + 3, pa * pc);
        }
    expect_dist("2d6+3 +1d", &b);
}

/* The null die. */
static void test_null_die(void **state)
{
    (void)state;
    static brute b;
    memset(&b, 0, sizeof b);
    add(&b, 1, 1);
    expect_dist("d0 +1B", &b);
    expect_dist("d0 +5B -4B", &b);
    memset(&b, 0, sizeof b);
    add(&b, -1, 1);
    expect_dist("d0 -2B", &b);
    memset(&b, 0, sizeof b);
    add(&b, 0, 1);
    expect_dist("d0", &b);
    expect_dist("d0 +2B -2B", &b);
}

/* ---- reroll one die (ra) ---- */

/* d20ra1 with +1d: two d20s; if any shows 1, the lowest such die (a 1) is
 * rerolled; keep the highest (or lowest). */
static void test_reroll_one(void **state)
{
    (void)state;
    static brute hi, lo;
    memset(&hi, 0, sizeof hi);
    memset(&lo, 0, sizeof lo);
    for (int a = 1; a <= 20; a++)
        for (int b = 1; b <= 20; b++) {
            double p = 1.0 / 400;
            if (a == 1 || b == 1) {
                int other = a == 1 ? b : a; /* the die not rerolled */
                for (int r = 1; r <= 20; r++) {
                    add(&hi, other > r ? other : r, p / 20);
                    add(&lo, other < r ? other : r, p / 20);
                }
            } else {
                add(&hi, a > b ? a : b, p);
                add(&lo, a < b ? a : b, p);
            }
        }
    expect_dist("d20ra1 +1d", &hi);
    expect_dist("d20ra1 -1d", &lo);
    /* 3d4ra<=2: reroll the lowest die showing 1 or 2, sum all. */
    static brute s;
    memset(&s, 0, sizeof s);
    for (int a = 1; a <= 4; a++)
        for (int b = 1; b <= 4; b++)
            for (int c = 1; c <= 4; c++) {
                int f[3] = {a, b, c}, low = -1;
                for (int i = 0; i < 3; i++)
                    if (f[i] <= 2 && (low < 0 || f[i] < f[low]))
                        low = i;
                double p = 1.0 / 64;
                if (low < 0) {
                    add(&s, a + b + c, p);
                    continue;
                }
                for (int r = 1; r <= 4; r++)
                    add(&s, a + b + c - f[low] + r, p / 4);
            }
    expect_dist("3d4ra<=2", &s);
}

/* ---- event(): every face, and re-roll chains to a depth ---- */

#define CHAIN_DEPTH 6

typedef struct ev_ud {
    brute *b;
    int largest;
} ev_ud;

/* Adds, for live criticals crit[0..nc) still to re-roll, every chain. */
static void chains(brute *b, const int64_t *crit, int nc, int64_t total, double p, int depth)
{
    if (nc == 0) {
        add(b, total, p);
        return;
    }
    if (depth == CHAIN_DEPTH) {
        b->cut += p;
        return;
    }
    int64_t s = crit[0];
    for (int64_t x = 1; x <= s; x++) {
        if (x == s) /* again on the maximum: the same die keeps going */
            chains(b, crit, nc, total + x, p / (double)s, depth + 1);
        else
            chains(b, crit + 1, nc - 1, total + x, p / (double)s, 0);
    }
}

static void ev_combo(const int64_t *f, const int64_t *s, int n, double p, void *ud)
{
    ev_ud *e = ud;
    int ones = 0, nc = 0;
    int64_t total = 0, crit[16];
    int cancelled[16] = {0};
    for (int i = 0; i < n; i++)
        ones += f[i] == 1;
    if (2 * ones > n) {
        add(e->b, ones, p);
        return;
    }
    for (int c = 0; c < ones; c++) { /* cancel the smallest (largest) live critical */
        int pick = -1;
        for (int i = 0; i < n; i++)
            if (f[i] == s[i] && !cancelled[i] &&
                (pick < 0 || (e->largest ? s[i] > s[pick] : s[i] < s[pick])))
                pick = i;
        if (pick >= 0)
            cancelled[pick] = 1;
    }
    for (int i = 0; i < n; i++) {
        total += f[i];
        if (f[i] == s[i] && !cancelled[i])
            crit[nc++] = s[i];
    }
    chains(e->b, crit, nc, total, p, 0);
}

static void event_brute(const int64_t *sides, int n, int largest, brute *b)
{
    memset(b, 0, sizeof *b);
    ev_ud ud = {b, largest};
    each_combo(sides, n, ev_combo, &ud);
}

static void test_event(void **state)
{
    (void)state;
    static brute b;
    static const int64_t p1[] = {4, 4, 4, 6};
    event_brute(p1, 4, 0, &b);
    expect_dist("event(3d4 + d6)", &b);
    event_brute(p1, 4, 1, &b);
    expect_dist("event(3d4 + d6, largest)", &b);
    static const int64_t p2[] = {2, 3, 4};
    event_brute(p2, 3, 0, &b);
    expect_dist("event(d2 + d3 + d4)", &b);
    static const int64_t p3[] = {6, 6, 6, 6, 6};
    event_brute(p3, 5, 0, &b);
    expect_dist("event(5d6)", &b);
    static const int64_t p4[] = {4, 6, 8, 10};
    event_brute(p4, 4, 0, &b);
    expect_dist("event(d4 + d6 + d8 + d10)", &b);
}

/* A whole event() reports its chance of a critical failure beside the
 * outcomes: two or three 1s on 3d6, 16/216. */
static void test_event_flag(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_dist *d = dist_of(ctx, "event(3d6)");
    dist_check(d);
    assert_int_equal(alea_dist_flag_count(d), 1);
    assert_string_equal(alea_dist_flag_name(d, 0), "critical failure");
    assert_double_equal(alea_dist_flag_prob(d, 0), 16.0 / 216, 1e-12);
    assert_double_equal(alea_dist_p(d, 3), 1.0 / 216, 1e-12); /* three 1s */
    alea_dist_free(d);
    alea_ctx_free(ctx);
}

/* ---- dd(): two d20s, by the rule text ---- */

static int tier(int nat, int mod, int diff)
{
    if (nat >= 19)
        return 3;
    if (nat <= 2)
        return 0;
    return nat + mod >= diff ? 2 : 1;
}

static void test_dd(void **state)
{
    (void)state;
    static const char *const pol[] = {"never", "always", "onfail", "best"};
    static const int cases[][2] = {{6, 14}, {0, 22}, {18, 10}, {3, 12}};
    for (size_t c = 0; c < 4; c++) {
        int mod = cases[c][0], diff = cases[c][1];
        /* the expected final tier of doubling down from each tier */
        double gain[4];
        for (int t = 0; t < 4; t++) {
            double e = 0;
            for (int nat = 1; nat <= 20; nat++) {
                static const int shift[] = {-2, -1, 1, 2};
                int f = t + shift[tier(nat, mod, diff)];
                e += (f < 0 ? 0 : f > 3 ? 3 : f) / 20.0;
            }
            gain[t] = e;
        }
        for (int k = 0; k < 4; k++) {
            static brute b;
            memset(&b, 0, sizeof b);
            for (int nat = 1; nat <= 20; nat++) {
                int t = tier(nat, mod, diff);
                int dd = k == 1 || (k == 2 && t <= 1) || (k == 3 && gain[t] > t);
                if (!dd) {
                    add(&b, t, 1.0 / 20);
                    continue;
                }
                for (int nat2 = 1; nat2 <= 20; nat2++) {
                    static const int shift[] = {-2, -1, 1, 2};
                    int f = t + shift[tier(nat2, mod, diff)];
                    add(&b, f < 0 ? 0 : f > 3 ? 3 : f, 1.0 / 400);
                }
            }
            char src[64];
            snprintf(src, sizeof src, "dd(%d, %d, %s)", mod, diff, pol[k]);
            expect_dist(src, &b);
        }
    }
}

/* The check values. */
static void test_dd_known(void **state)
{
    (void)state;
    static brute b;
    memset(&b, 0, sizeof b);
    add(&b, 0, 0.10);
    add(&b, 1, 0.25);
    add(&b, 2, 0.55);
    add(&b, 3, 0.10);
    expect_dist("dd(6, 14)", &b);
    memset(&b, 0, sizeof b);
    add(&b, 0, 0.1775);
    add(&b, 1, 0.2025);
    add(&b, 2, 0.1725);
    add(&b, 3, 0.4475);
    expect_dist("dd(6, 14, always)", &b);
    /* +5 against 15 never doubles down. */
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_dist *d = dist_of(ctx, "dd(5, 15)");
    dist_check(d);
    assert_double_equal(alea_dist_p(d, 0), 0.10, 1e-12); /* natural 1-2 */
    assert_double_equal(alea_dist_p(d, 1), 0.35, 1e-12); /* 3..9 */
    assert_double_equal(alea_dist_p(d, 2), 0.45, 1e-12); /* 10..18 */
    assert_double_equal(alea_dist_p(d, 3), 0.10, 1e-12); /* natural 19-20 */
    alea_dist_free(d);
    alea_ctx_free(ctx);
}

/* dd()'s boons and banes from tables given as data (alea_boons_for_outcome,
 * alea_dist_boons). The table is made up to fit the rule text's worked
 * examples, which are in systems_test.c. */
static void test_dd_boons(void **state)
{
    (void)state;
    static const int64_t diff[] = {10, 14, 16}, count[] = {1, 2, 6};
    alea_boon_table t = {diff, count, 3, {-2, -1, 1, 2}};
    int64_t boons, banes;
    assert_int_equal(alea_boons_for_outcome(&t, 15, 0, 3, 1, &boons, &banes), ALEA_OK);
    assert_true(boons == 0 && banes == 4); /* banes are not halved; no drive boons */
    assert_int_equal(alea_boons_for_outcome(&t, 9, 3, 0, 0, &boons, &banes), ALEA_OK);
    assert_true(boons == 0 && banes == 0); /* below the table */
    assert_int_equal(alea_boons_for_outcome(&t, 14, 4, 0, 0, &boons, &banes), ALEA_ERR_ARGUMENT);
    /* Tables from a stranger: no multiplier that is not a number, and no
     * product or drive past int64 (it converted out of range before). */
    static const int64_t huge[] = {INT64_MAX};
    alea_boon_table bad = {diff, huge, 1, {NAN, INFINITY, -INFINITY, 2}};
    for (int tier = 0; tier < 3; tier++)
        assert_int_equal(alea_boons_for_outcome(&bad, 10, tier, 0, 0, &boons, &banes),
                         ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_boons_for_outcome(&bad, 10, 3, 0, 0, &boons, &banes), ALEA_ERR_OVERFLOW);
    alea_boon_table half = {diff, huge, 1, {-1, 0.5, 0.5, 1}};
    assert_int_equal(alea_boons_for_outcome(&half, 10, 1, 0, 0, &boons, &banes), ALEA_OK);
    assert_true(boons == INT64_MAX / 2 + 1 && banes == 0); /* 2^62 exactly */
    assert_int_equal(alea_boons_for_outcome(&half, 10, 0, 0, 0, &boons, &banes), ALEA_ERR_OVERFLOW);
    assert_int_equal(alea_boons_for_outcome(&half, 10, 2, INT64_MAX, 0, &boons, &banes),
                     ALEA_ERR_OVERFLOW);

    /* Expected per policy: dd(6, 14) ends 0.10 / 0.25 / 0.55 / 0.10, so
     * boons 0.55 * (2 + 1) + 0.10 * (4 + 1) = 2.15 and banes 0.25 * 2 +
     * 0.10 * 4 = 0.9; always: 0.1725 * 3 + 0.4475 * 5 and 0.2025 * 2 +
     * 0.1775 * 4. */
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    static const char *const src[] = {"dd(6, 14)", "dd(6, 14, always)", "1d20"};
    static const double want[][2] = {{2.15, 0.9}, {0.1725 * 3 + 0.4475 * 5, 0.2025 * 2 + 0.1775 * 4}};
    for (int i = 0; i < 3; i++) {
        alea_expr *e = NULL;
        alea_dist *d = NULL;
        double b, n;
        assert_int_equal(alea_expr_compile(ctx, src[i], strlen(src[i]), &e), ALEA_OK);
        assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
        if (i < 2) {
            assert_int_equal(alea_dist_boons(ctx, d, &t, 1, 0, &b, &n), ALEA_OK);
            assert_true(fabs(b - want[i][0]) < 1e-12);
            assert_true(fabs(n - want[i][1]) < 1e-12);
        } else {
            assert_int_equal(alea_dist_boons(ctx, d, &t, 1, 0, &b, &n), ALEA_ERR_ARGUMENT);
        }
        alea_dist_free(d);
        alea_expr_free(e);
    }
    alea_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extra_dice), cmocka_unit_test(test_damage_twice),
        cmocka_unit_test(test_null_die),   cmocka_unit_test(test_reroll_one),
        cmocka_unit_test(test_event),      cmocka_unit_test(test_event_flag),
        cmocka_unit_test(test_dd),         cmocka_unit_test(test_dd_known),
        cmocka_unit_test(test_dd_boons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
