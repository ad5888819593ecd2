/* exact_test.c -- the exact engine end to end (alea_expr_compile +
 * alea_expr_dist): closed forms, hand-computed fractions, brute-force
 * enumeration of small pools, errors with their spans, limits at N and N+1,
 * and allocation failure at every step. The game mechanics' values are in
 * mech_test.c and their golden files. */
#include "dist.h"
#include "exact.h"
#include "rng.h" /* alea__rng_set_faces */
#include "support.h"

#define EPS 1e-12

TEST_HEAP_CONTEXT

/* The distribution of src, or NULL with *st set. */
static alea_dist *try_dist(const char *src, alea_status *st)
{
    alea_expr *e = compile(ctx, src);
    alea_dist *d = NULL;
    *st = alea_expr_dist(ctx, e, &d);
    alea_expr_free(e);
    return d;
}

static alea_dist *dist(const char *src)
{
    alea_status st;
    alea_dist *d = try_dist(src, &st);
    if (st != ALEA_OK)
        fail_msg("'%s': %s: %s", src, alea_status_name(st), alea_ctx_error(ctx));
    dist_check(d); /* every result */
    return d;
}

static alea_status dist_error(const char *src)
{
    alea_status st;
    alea_dist *d = try_dist(src, &st);
    if (st == ALEA_OK) {
        alea_dist_free(d);
        fail_msg("'%s' computed, expected an error", src);
    }
    return st;
}

static void test_known_values(void **state)
{
    (void)state;
    alea_dist *d = dist("3d6");
    assert_double_equal(alea_dist_p(d, 10), 27.0 / 216, EPS);
    assert_double_equal(alea_dist_mean(d), 10.5, EPS);
    assert_true(alea_dist_median(d) == 10);
    alea_dist_free(d);
    d = dist("4d6kh3");
    assert_double_equal(alea_dist_mean(d), 15869.0 / 1296, EPS);
    alea_dist_free(d);
    d = dist("2d20kh1");
    assert_double_equal(alea_dist_mean(d), 13.825, EPS);
    alea_dist_free(d);
    d = dist("4dF");
    assert_double_equal(alea_dist_p(d, 0), 19.0 / 81, EPS);
    assert_true(alea_dist_min(d) == -4 && alea_dist_max(d) == 4);
    alea_dist_free(d);
    d = dist("1d%");
    assert_double_equal(alea_dist_mean(d), 50.5, EPS);
    alea_dist_free(d);
    d = dist("d{1,1,2,5}");
    assert_double_equal(alea_dist_p(d, 1), 0.5, EPS);
    assert_double_equal(alea_dist_p(d, 5), 0.25, EPS);
    alea_dist_free(d);
    d = dist("1d6*1000 + 1d6");
    assert_int_equal(alea_dist_count(d), 36);
    assert_double_equal(alea_dist_p(d, 6006), 1.0 / 36, EPS);
    alea_dist_free(d);
}

static void test_explode(void **state)
{
    (void)state;
    alea_dist *d = dist("1d6!");
    /* the tail cut at 1e-12 holds values near 100: mean within 1e-9 */
    assert_double_equal(alea_dist_mean(d), 4.2, 1e-9);
    assert_true(alea_dist_truncated(d) > 0 && alea_dist_truncated(d) < 1e-11);
    assert_double_equal(alea_dist_p(d, 7), 1.0 / 36, EPS);
    assert_double_equal(alea_dist_p(d, 6), 0, 0);
    assert_double_equal(alea_dist_p(d, 12), 0, 0);
    assert_double_equal(alea_dist_p(d, 13), 1.0 / 216, EPS);
    size_t n12 = alea_dist_count(d);
    alea_dist_free(d);
    d = dist("1d6!!");
    assert_double_equal(alea_dist_p(d, 8), 1.0 / 36, EPS);
    alea_dist_free(d);
    /* a looser tail: fewer outcomes, more truncated */
    assert_int_equal(alea_ctx_set_tail(ctx, 1e-6), ALEA_OK);
    d = dist("1d6!");
    assert_true(alea_dist_truncated(d) > 1e-8 && alea_dist_truncated(d) < 1e-6);
    assert_true(alea_dist_count(d) < n12);
    alea_dist_free(d);
    assert_int_equal(alea_ctx_set_tail(ctx, 1e-12), ALEA_OK);
    /* penetrating: every extra roll counts face - 1 */
    d = dist("1d6!p");
    for (int v = 1; v <= 5; v++)
        assert_double_equal(alea_dist_p(d, v), 1.0 / 6, EPS);
    for (int v = 6; v <= 10; v++)
        assert_double_equal(alea_dist_p(d, v), 1.0 / 36, EPS);
    for (int v = 11; v <= 15; v++)
        assert_double_equal(alea_dist_p(d, v), 1.0 / 216, EPS);
    assert_double_equal(alea_dist_mean(d), 4, 1e-9);
    alea_dist_free(d);
    /* a written trigger: 9 and 10 explode */
    d = dist("1d10!>=9");
    assert_double_equal(alea_dist_p(d, 8), 0.1, EPS);
    assert_double_equal(alea_dist_p(d, 10), 0.01, EPS); /* 9 then 1 */
    assert_double_equal(alea_dist_p(d, 11), 0.02, EPS); /* 9+2, 10+1 */
    assert_double_equal(alea_dist_mean(d), 5.5 / 0.8, 1e-9);
    alea_dist_free(d);
    /* keep on exploded totals */
    d = dist("10d10!kh5");
    assert_true(alea_dist_truncated(d) > 0 && alea_dist_truncated(d) < 1e-10);
    alea_dist_free(d);
    d = dist("2d6!kh1");
    /* max of two 1d6!: P(max <= 5) = (5/6)^2 */
    assert_double_equal(alea_dist_at_most(d, 5), 25.0 / 36, EPS);
    alea_dist_free(d);
}

/* n dice of faces[nf] (n <= 5), sorted positions [lo, hi) summed. */
static void check_keep(const char *src, const int *faces, int nf, int n, int lo, int hi)
{
    double want[128] = {0}, each = pow(nf, -n);
    int idx[5] = {0}, vals[5];
    do {
        for (int i = 0; i < n; i++)
            vals[i] = faces[idx[i]];
        qsort(vals, (size_t)n, sizeof *vals, cmp_int);
        int s = 0;
        for (int i = lo; i < hi; i++)
            s += vals[i];
        want[s] += each;
    } while (odometer_next_base(idx, n, nf));
    alea_dist *d = dist(src);
    for (int s = 0; s < 128; s++)
        if (fabs(alea_dist_p(d, s) - want[s]) > EPS)
            fail_msg("%s: P(%d) = %.17g, want %.17g", src, s, alea_dist_p(d, s), want[s]);
    alea_dist_free(d);
}

static void test_keep_bruteforce(void **state)
{
    (void)state;
    const int d6[] = {1, 2, 3, 4, 5, 6}, odd[] = {1, 1, 2, 5};
    check_keep("4d6kh1", d6, 6, 4, 3, 4);
    check_keep("4d6kh2", d6, 6, 4, 2, 4);
    check_keep("4d6kh3", d6, 6, 4, 1, 4);
    check_keep("4d6kh4", d6, 6, 4, 0, 4);
    check_keep("4d6kl1", d6, 6, 4, 0, 1);
    check_keep("4d6kl3", d6, 6, 4, 0, 3);
    check_keep("4d6dh1", d6, 6, 4, 0, 3);
    check_keep("4d6dl1", d6, 6, 4, 1, 4);
    check_keep("4d6dl2", d6, 6, 4, 2, 4);
    check_keep("4d6dh3", d6, 6, 4, 0, 1);
    check_keep("4d6kh0", d6, 6, 4, 0, 0);
    check_keep("4d6dl4", d6, 6, 4, 4, 4);
    check_keep("4d6kh3kl2", d6, 6, 4, 1, 3);
    check_keep("5d6dl1dh1", d6, 6, 5, 1, 4);
    check_keep("3d{1,1,2,5}kh2", odd, 4, 3, 1, 3);
    check_keep("3d{1,1,2,5}kl1", odd, 4, 3, 0, 1);
    check_keep("3d{1,1,2,5}dh1", odd, 4, 3, 0, 2);
    check_keep("3d{1,1,2,5}kl2dl1", odd, 4, 3, 1, 2);
}

/*
 * rpg-dice-roller's keep on single rolls: n dice of faces[nf], each a chain
 * of rolls while the face is a trigger (trig[face index]); every roll of
 * every chain is an entry, and the kept entries of the m sorted ones are
 * summed. Chains are enumerated to `depth` rolls each; the mass of the
 * longer ones, cut, bounds the error.
 */
#define SINGLES_MAX 96 /* entries in a path */
typedef struct singles_case {
    const int *faces, *trig;
    int nf, n;
    char op;   /* 'k' keep or 'd' drop */
    int high;  /* the highest, else the lowest */
    int count; /* how many */
    int depth; /* rolls of a chain enumerated */
    double want[512], cut;
    int vals[SINGLES_MAX];
} singles_case;

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The rolls of die `die` on (j of its rolls made), the pool's first m
 * entries already rolled. */
static void singles_walk(singles_case *c, int die, int j, int m, double p)
{
    if (die == c->n) {
        int v[SINGLES_MAX], k = c->count > m ? m : c->count, lo = 0, hi = m, sum = 0;
        memcpy(v, c->vals, (size_t)m * sizeof *v);
        qsort(v, (size_t)m, sizeof *v, int_cmp);
        if (c->op == 'k')
            *(c->high ? &lo : &hi) = c->high ? m - k : k;
        else
            *(c->high ? &hi : &lo) = c->high ? m - k : k;
        for (int i = lo; i < hi; i++)
            sum += v[i];
        assert_true(sum >= 0 && sum < 512);
        c->want[sum] += p;
        return;
    }
    for (int f = 0; f < c->nf; f++) {
        double q = p / c->nf;
        c->vals[m] = c->faces[f];
        if (!c->trig[f])
            singles_walk(c, die + 1, 0, m + 1, q); /* the chain ends: next die */
        else if (j + 1 >= c->depth || m + 1 >= SINGLES_MAX)
            c->cut += q;
        else
            singles_walk(c, die, j + 1, m + 1, q); /* it explodes: the same die again */
    }
}

static void check_singles(const char *src, const int *faces, const int *trig, int nf, int n,
                          char op, int high, int count, int depth)
{
    singles_case *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->faces = faces;
    c->trig = trig;
    c->nf = nf;
    c->n = n;
    c->op = op;
    c->high = high;
    c->count = count;
    c->depth = depth;
    singles_walk(c, 0, 0, 0, 1.0);
    assert_true(c->cut < 1e-5); /* the bound below stays well under the probabilities */
    assert_int_equal(alea_ctx_set_dialect(ctx, ALEA_DIALECT_RPGDR), ALEA_OK);
    alea_dist *d = dist(src);
    assert_int_equal(alea_ctx_set_dialect(ctx, ALEA_DIALECT_ALEA), ALEA_OK);
    for (int v = 0; v < 512; v++)
        if (fabs(alea_dist_p(d, v) - c->want[v]) > c->cut + 1e-11)
            fail_msg("%s: P(%d) = %.15g, enumerated %.15g", src, v, alea_dist_p(d, v),
                     c->want[v]);
    alea_dist_free(d);
    free(c);
}

static void test_keep_singles_bruteforce(void **state)
{
    (void)state;
    const int d3[] = {1, 2, 3}, d3max[] = {0, 0, 1}, d3min[] = {1, 0, 0};
    const int d6[] = {1, 2, 3, 4, 5, 6}, d6top[] = {0, 0, 0, 0, 1, 1};
    const int odd[] = {1, 1, 2, 5}, oddmax[] = {0, 0, 0, 1}, oddlow[] = {1, 1, 0, 0};
    check_singles("2d3!k1", d3, d3max, 3, 2, 'k', 1, 1, 24);
    check_singles("1d3!k1", d3, d3max, 3, 1, 'k', 1, 1, 24);
    check_singles("3d3!kh2", d3, d3max, 3, 3, 'k', 1, 2, 24);
    check_singles("2d3!kl1", d3, d3max, 3, 2, 'k', 0, 1, 24);
    check_singles("2d3!d1", d3, d3max, 3, 2, 'd', 0, 1, 24);
    check_singles("2d3!dh1", d3, d3max, 3, 2, 'd', 1, 1, 24);
    check_singles("1d3!d1", d3, d3max, 3, 1, 'd', 0, 1, 24);
    check_singles("2d3!<2k1", d3, d3min, 3, 2, 'k', 1, 1, 24);
    check_singles("2d3!=1kl2", d3, d3min, 3, 2, 'k', 0, 2, 24);
    /* two faces explode: 2^j chains of j explosions */
    check_singles("1d6!>4k1", d6, d6top, 6, 1, 'k', 1, 1, 12);
    check_singles("1d6!>=5dl1", d6, d6top, 6, 1, 'd', 0, 1, 12);
    check_singles("2d{1,1,2,5}!k1", odd, oddmax, 4, 2, 'k', 1, 1, 20);
    check_singles("1d{1,1,2,5}!<2kh2", odd, oddlow, 4, 1, 'k', 1, 2, 18);
    check_singles("3d{1,1,2,5}!dh1", odd, oddmax, 4, 3, 'd', 1, 1, 20);
    check_singles("0d6!k1", d6, d6top, 6, 0, 'k', 1, 1, 1);
}

/* "ra": n dice of faces[nf], the lowest die matching (match[face index])
 * rolled again, then positions [lo, hi) summed. */
static void check_ra(const char *src, const int *faces, const int *match, int nf, int n,
                     int lo, int hi)
{
    double want[128] = {0}, each = pow(nf, -n);
    int idx[5] = {0}, vals[5];
    do {
        int low = -1;
        for (int i = 0; i < n; i++)
            if (match[idx[i]] && (low < 0 || faces[idx[i]] < faces[idx[low]]))
                low = i;
        for (int y = 0; y < (low < 0 ? 1 : nf); y++) {
            for (int i = 0; i < n; i++)
                vals[i] = faces[idx[i]];
            if (low >= 0)
                vals[low] = faces[y];
            qsort(vals, (size_t)n, sizeof *vals, cmp_int);
            int s = 0;
            for (int i = lo; i < hi; i++)
                s += vals[i];
            want[s] += low < 0 ? each : each / nf;
        }
    } while (odometer_next_base(idx, n, nf));
    alea_dist *d = dist(src);
    for (int s = 0; s < 128; s++)
        if (fabs(alea_dist_p(d, s) - want[s]) > EPS)
            fail_msg("%s: P(%d) = %.17g, want %.17g", src, s, alea_dist_p(d, s), want[s]);
    alea_dist_free(d);
}

static void test_reroll_one(void **state)
{
    (void)state;
    int d20[20], one[20] = {1}, d6[6] = {1, 2, 3, 4, 5, 6}, lt3[6] = {1, 1, 0, 0, 0, 0};
    for (int i = 0; i < 20; i++)
        d20[i] = i + 1;
    check_ra("1d20ra1", d20, one, 20, 1, 0, 1);
    check_ra("2d20kh1ra1", d20, one, 20, 2, 1, 2); /* advantage, lucky */
    check_ra("2d20kl1ra1", d20, one, 20, 2, 0, 1);
    check_ra("4d6ra<3kh3", d6, lt3, 6, 4, 1, 4);
    check_ra("4d6ra<3", d6, lt3, 6, 4, 0, 4);
    /* 1d20ra1: a 1 shows only when rolled twice */
    alea_dist *d = dist("1d20ra1");
    assert_double_equal(alea_dist_p(d, 1), 1.0 / 400, EPS);
    alea_dist_free(d);
    /* with a rolled count and explosions: the mass checks in dist() */
    d = dist("(1d3)d6ra1");
    assert_double_equal(alea_dist_mean(d),
                        7 + 2.5 * (1 - (5.0 / 6 + 25.0 / 36 + 125.0 / 216) / 3), EPS);
    alea_dist_free(d);
    d = dist("3d6!ra1kh2");
    assert_true(alea_dist_truncated(d) > 0 && alea_dist_truncated(d) < 4e-12);
    alea_dist_free(d);
    /* "!" success counting scores rolls, "ra" judges totals: refused */
    assert_int_equal(dist_error("3d10!10>=8ra1"), ALEA_ERR_INVALID);
}

static void test_reroll(void **state)
{
    (void)state;
    alea_dist *d = dist("1d6r1");
    assert_int_equal(alea_dist_count(d), 5);
    for (int v = 2; v <= 6; v++)
        assert_double_equal(alea_dist_p(d, v), 0.2, EPS);
    alea_dist_free(d);
    d = dist("1d6ro1");
    assert_double_equal(alea_dist_p(d, 1), 1.0 / 36, EPS);
    for (int v = 2; v <= 6; v++)
        assert_double_equal(alea_dist_p(d, v), 7.0 / 36, EPS);
    alea_dist_free(d);
    d = dist("1d6r<3");
    for (int v = 3; v <= 6; v++)
        assert_double_equal(alea_dist_p(d, v), 0.25, EPS);
    alea_dist_free(d);
    d = dist("d{1,1,2,5}r1");
    assert_double_equal(alea_dist_p(d, 2), 0.5, EPS);
    alea_dist_free(d);
    d = dist("d{1,1,2,5}ro1");
    assert_double_equal(alea_dist_p(d, 1), 0.25, EPS);
    assert_double_equal(alea_dist_p(d, 2), 0.25 * 1.5, EPS);
    alea_dist_free(d);
    /* a huge die whose reroll leaves five faces: no walk over a billion */
    d = dist("1d1000000000r>5");
    assert_int_equal(alea_dist_count(d), 5);
    assert_double_equal(alea_dist_p(d, 3), 0.2, EPS);
    alea_dist_free(d);
    /* reroll, then explode: the extra roll is rerolled too */
    d = dist("1d6r1!");
    assert_double_equal(alea_dist_p(d, 2), 0.2, EPS);
    assert_double_equal(alea_dist_p(d, 7), 0, 0);
    assert_double_equal(alea_dist_p(d, 8), 0.04, EPS);
    alea_dist_free(d);
}

/* 10d10>=8f1 against the trinomial: s successes, f failures. */
static void test_success_counting(void **state)
{
    (void)state;
    alea_dist *d = dist("10d10>=8f1");
    double want[21] = {0};
    for (int s = 0; s <= 10; s++) {
        for (int f = 0; s + f <= 10; f++) {
            double c = 1; /* 10! / (s! f! (10-s-f)!) */
            for (int i = 1; i <= 10; i++)
                c *= i;
            for (int i = 1; i <= s; i++)
                c /= i;
            for (int i = 1; i <= f; i++)
                c /= i;
            for (int i = 1; i <= 10 - s - f; i++)
                c /= i;
            want[s - f + 10] += c * pow(0.3, s) * pow(0.1, f) * pow(0.6, 10 - s - f);
        }
    }
    for (int k = -10; k <= 10; k++)
        assert_double_equal(alea_dist_p(d, k), want[k + 10], EPS);
    alea_dist_free(d);
    /* "!" judges every roll: a 10 counts and its extra roll counts too.
     * Per die: P(0) = 0.7, P(k) = 0.2 * 0.1^(k-1) + 0.7 * 0.1^k. */
    d = dist("10d10!10>=8");
    long double die[16] = {0.7L}, sum[200] = {1.0L};
    for (int k = 1; k < 16; k++)
        die[k] = 0.2L * powl(0.1L, k - 1) + 0.7L * powl(0.1L, k);
    for (int n = 0; n < 10; n++) {
        long double next[200] = {0};
        for (int a = 0; a < 180; a++)
            for (int b = 0; b < 16 && a + b < 200; b++)
                next[a + b] += sum[a] * die[b];
        memcpy(sum, next, sizeof sum);
    }
    for (int k = 0; k < 30; k++)
        assert_double_equal(alea_dist_p(d, k), (double)sum[k], EPS);
    assert_double_equal(alea_dist_mean(d), 10.0 / 3, 1e-9);
    alea_dist_free(d);
    /* "!!" judges the total: 1d6!! >= 8 is 6 then at least 2 */
    d = dist("1d6!!6>=8");
    assert_double_equal(alea_dist_p(d, 1), 5.0 / 36, 1e-11);
    alea_dist_free(d);
    /* "!p": the extra roll counts face - 1, so a second 6 is a 5 */
    d = dist("1d6!p6>=6");
    assert_double_equal(alea_dist_p(d, 1), 1.0 / 6, EPS);
    alea_dist_free(d);
    /* counting the kept dice: 4d6kh2>=5 against enumeration */
    d = dist("4d6kh2>=5");
    double w[3] = {0};
    for (int a = 1; a <= 6; a++)
        for (int b = 1; b <= 6; b++)
            for (int c = 1; c <= 6; c++)
                for (int e = 1; e <= 6; e++) {
                    int v[4] = {a, b, c, e};
                    qsort(v, 4, sizeof *v, cmp_int);
                    w[(v[2] >= 5) + (v[3] >= 5)] += 1.0 / 1296;
                }
    for (int k = 0; k < 3; k++)
        assert_double_equal(alea_dist_p(d, k), w[k], EPS);
    alea_dist_free(d);
}

static void test_best_worst(void **state)
{
    (void)state;
    alea_dist *d = dist("best(3, 1d6)");
    for (int v = 1; v <= 6; v++)
        assert_double_equal(alea_dist_p(d, v), (v * v * v - (v - 1) * (v - 1) * (v - 1)) / 216.0,
                            EPS);
    alea_dist_free(d);
    d = dist("worst(2, 1d20)");
    assert_double_equal(alea_dist_mean(d), 7.175, EPS);
    alea_dist_free(d);
    d = dist("worst(2, 2d6)");
    double w[13] = {0};
    for (int a = 2; a <= 12; a++)
        for (int b = 2; b <= 12; b++) {
            double pa = (6 - abs(a - 7)) / 36.0, pb = (6 - abs(b - 7)) / 36.0;
            w[a < b ? a : b] += pa * pb;
        }
    for (int v = 2; v <= 12; v++)
        assert_double_equal(alea_dist_p(d, v), w[v], EPS);
    alea_dist_free(d);
    d = dist("max(1d6, 1d8) - min(1d4, 1d4)");
    double mean = 0;
    for (int a = 1; a <= 6; a++)
        for (int b = 1; b <= 8; b++)
            mean += (a > b ? a : b) / 48.0;
    for (int a = 1; a <= 4; a++)
        for (int b = 1; b <= 4; b++)
            mean -= (a < b ? a : b) / 16.0;
    assert_double_equal(alea_dist_mean(d), mean, EPS);
    alea_dist_free(d);
}

static void test_division(void **state)
{
    (void)state;
    /* (1d6 - 4) is -3..2 */
    alea_dist *d = dist("(1d6-4)/2");
    assert_double_equal(alea_dist_p(d, -2), 1.0 / 6, EPS); /* -3 */
    assert_double_equal(alea_dist_p(d, -1), 2.0 / 6, EPS); /* -2, -1 */
    assert_double_equal(alea_dist_p(d, 0), 2.0 / 6, EPS);
    assert_double_equal(alea_dist_p(d, 1), 1.0 / 6, EPS);
    alea_dist_free(d);
    d = dist("(1d6-4)/^2");
    assert_double_equal(alea_dist_p(d, -1), 2.0 / 6, EPS); /* -3, -2 */
    assert_double_equal(alea_dist_p(d, 0), 2.0 / 6, EPS);  /* -1, 0 */
    assert_double_equal(alea_dist_p(d, 1), 2.0 / 6, EPS);  /* 1, 2 */
    alea_dist_free(d);
    d = dist("(1d6-4)/~2");
    assert_double_equal(alea_dist_p(d, -2), 1.0 / 6, EPS); /* -1.5 */
    assert_double_equal(alea_dist_p(d, -1), 2.0 / 6, EPS); /* -1, -0.5 */
    assert_double_equal(alea_dist_p(d, 0), 1.0 / 6, EPS);
    assert_double_equal(alea_dist_p(d, 1), 2.0 / 6, EPS); /* 0.5, 1 */
    alea_dist_free(d);
    d = dist("1d6 / -(1d2)");
    assert_double_equal(alea_dist_p(d, -6), 1.0 / 12, EPS);
    assert_double_equal(alea_dist_p(d, -1), 3.0 / 12, EPS); /* -1/1, -2/2, -1/2 */
    alea_dist_free(d);
    /* a divisor that can be 0: the error points at the divisor */
    assert_int_equal(dist_error("10 / (1d3-2)"), ALEA_ERR_DOMAIN);
    size_t s, e;
    alea_ctx_error_span(ctx, &s, &e);
    assert_true(s >= 5 && e <= 12 && s < e);
    assert_non_null(strstr(alea_ctx_error(ctx), "division by zero"));
    assert_int_equal(dist_error("1d6 * 3 /~ (1d6 - 1d6)"), ALEA_ERR_DOMAIN);
}

static void test_count_expr(void **state)
{
    (void)state;
    alea_dist *d = dist("(1d4)d6");
    assert_double_equal(alea_dist_mean(d), 2.5 * 3.5, EPS);
    alea_dist_free(d);
    d = dist("(1d3-1)d6");
    assert_double_equal(alea_dist_p(d, 0), 1.0 / 3, EPS);
    assert_double_equal(alea_dist_p(d, 12), 1.0 / 108, EPS);
    alea_dist_free(d);
    d = dist("(1d4)d6kh1");
    for (int v = 1; v <= 6; v++) {
        double w = 0;
        for (int c = 1; c <= 4; c++)
            w += 0.25 * (pow(v / 6.0, c) - pow((v - 1) / 6.0, c));
        assert_double_equal(alea_dist_p(d, v), w, EPS);
    }
    alea_dist_free(d);
    d = dist("(2d2)d6>=5");
    assert_double_equal(alea_dist_mean(d), 3 * (1.0 / 3), EPS);
    alea_dist_free(d);
    assert_int_equal(dist_error("(1d3-2)d6"), ALEA_ERR_DOMAIN);
    assert_non_null(strstr(alea_ctx_error(ctx), "dice count can be negative"));
    size_t s, e;
    alea_ctx_error_span(ctx, &s, &e);
    assert_true(s >= 1 && e <= 7 && s < e);
}

static void test_support_limit(void **state)
{
    (void)state;
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 16);
    alea_dist *d = dist("3d6");
    alea_dist_free(d);
    d = dist("4d6kh3");
    alea_dist_free(d);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 15);
    assert_int_equal(dist_error("3d6"), ALEA_ERR_LIMIT);
    assert_string_equal(alea_ctx_error(ctx),
                        "too many outcomes to compute at byte 0 (support limit is 15)");
    assert_int_equal(dist_error("4d6kh3"), ALEA_ERR_LIMIT);
    assert_int_equal(dist_error("1d16"), ALEA_ERR_LIMIT);
    d = dist("1d15");
    alea_dist_free(d);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 1000000);
    /* a billion dice: refused at once, nothing big allocated */
    size_t peak0;
    alea_ctx_memory(ctx, &peak0);
    assert_int_equal(dist_error("999999999d6"), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "support limit is 1000000"));
    assert_int_equal(dist_error("1d1000000001"), ALEA_ERR_LIMIT);
    size_t peak;
    alea_ctx_memory(ctx, &peak);
    assert_true(peak < peak0 + (1u << 20));
    /* keeping three of them is small, though: order statistics */
    d = dist("999999999d6kh3"); /* anything below 18 underflows */
    assert_int_equal(alea_dist_count(d), 1);
    assert_double_equal(alea_dist_p(d, 18), 1, EPS);
    alea_dist_free(d);
    /* but a billion dice of one face are one outcome */
    d = dist("999999999d1");
    assert_true(alea_dist_min(d) == 999999999);
    alea_dist_free(d);
}

static void test_overflow(void **state)
{
    (void)state;
    assert_int_equal(dist_error("9223372036854775807 + 1d2"), ALEA_ERR_OVERFLOW);
    assert_int_equal(dist_error("1d6 * 4611686018427387904"), ALEA_ERR_OVERFLOW);
    assert_int_equal(dist_error("3d4611686018427387904"), ALEA_ERR_LIMIT);
    assert_int_equal(dist_error("3d{1,4611686018427387904}"), ALEA_ERR_OVERFLOW);
    assert_int_equal(dist_error("3d{1,4611686018427387904}kh2"), ALEA_ERR_OVERFLOW);
    alea_dist *d = dist("2d{1,4611686018427387903}kh2");
    alea_dist_free(d);
}

static void test_work_and_interrupt(void **state)
{
    (void)state;
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 1000);
    assert_int_equal(dist_error("200d20"), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "work limit"));
    assert_int_equal(dist_error("100d6kh50"), ALEA_ERR_LIMIT);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 300000000);
    alea_ctx_set_interrupt(ctx, interrupt_now, NULL);
    assert_int_equal(dist_error("200d20"), ALEA_ERR_INTERRUPTED);
    alea_ctx_set_interrupt(ctx, NULL, NULL);
    /* an explosion whose chain would need astronomically many links */
    assert_int_equal(dist_error("1d1000000!>1"), ALEA_ERR_LIMIT);
}

static void test_json(void **state)
{
    (void)state;
    alea_dist *d = dist("1d2");
    char buf[256];
    alea_dist_format(d, ALEA_FORMAT_JSON, buf, sizeof buf);
    assert_string_equal(buf, "{\"expression\": \"1d2\", \"outcomes\": [[1, 0.5], [2, 0.5]], "
                             "\"mean\": 1.5, \"sd\": 0.5, \"min\": 1, \"max\": 2, "
                             "\"truncated\": 0}");
    alea_dist_free(d);
}

/* "!" with success counting and a keep range is ambiguous; the parser
 * rejects the written keeps, the engine the boons it cannot see. */
static void test_each_success_keep_invalid(void **state)
{
    (void)state;
    pool p;
    memset(&p, 0, sizeof p);
    p.count = 3;
    p.die.kind = FACES_RANGE;
    p.die.lo = 1;
    p.die.hi = 10;
    p.explode = EXPLODE_EACH;
    p.trigger.op = CMP_EQ;
    p.trigger.value = 10;
    p.has_success = 1;
    p.success.op = CMP_GE;
    p.success.value = 8;
    p.extra = 1;
    node n;
    memset(&n, 0, sizeof n);
    n.kind = N_DICE;
    n.start = 0;
    n.end = 9;
    n.u.pool = &p;
    alea_expr e;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    e.root = &n;
    e.src = "3d10!>=8b";
    e.len = 9;
    alea_dist *d = NULL;
    alea__budget_start(ctx);
    assert_int_equal(alea__exact(ctx, &e, &d), ALEA_ERR_INVALID);
    /* without the boon it is fine: 3 dice, each 1/3 success on average */
    p.extra = 0;
    alea__budget_start(ctx);
    assert_int_equal(alea__exact(ctx, &e, &d), ALEA_OK);
    assert_double_equal(alea_dist_mean(d), 1, 1e-9);
    alea_dist_free(d);
    /* boons without counting: 3 dice + 1, highest 3 kept (4d10kh3) */
    p.extra = 1;
    p.has_success = 0;
    p.explode = EXPLODE_NONE;
    alea__budget_start(ctx);
    assert_int_equal(alea__exact(ctx, &e, &d), ALEA_OK);
    alea_dist *ref = dist("4d10kh3");
    assert_int_equal(alea_dist_count(d), alea_dist_count(ref));
    for (size_t i = 0; i < alea_dist_count(d); i++)
        assert_double_equal(alea_dist_prob(d, i), alea_dist_prob(ref, i), EPS);
    alea_dist_free(ref);
    alea_dist_free(d);
    /* banes: the lowest 3 of 4 */
    p.extra = -1;
    alea__budget_start(ctx);
    assert_int_equal(alea__exact(ctx, &e, &d), ALEA_OK);
    ref = dist("4d10kl3");
    for (size_t i = 0; i < alea_dist_count(d); i++)
        assert_double_equal(alea_dist_prob(d, i), alea_dist_prob(ref, i), EPS);
    alea_dist_free(ref);
    alea_dist_free(d);
}

static void test_memory_limit(void **state)
{
    (void)state;
    alea_expr *e;
    assert_int_equal(alea_expr_compile(ctx, "300d20", 6, &e), ALEA_OK);
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, (int64_t)alea_ctx_memory(ctx, NULL) + 20000);
    alea_dist *d;
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "memory limit"));
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, 67108864);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    alea_dist_free(d);
    alea_expr_free(e);
}

/* Fail every allocation of an evaluation in turn: each failure is out of
 * memory and leaks nothing. */
static void sweep(const char *src)
{
    alea_expr *e;
    assert_int_equal(alea_expr_compile(ctx, src, strlen(src), &e), ALEA_OK);
    size_t base = alea_ctx_memory(ctx, NULL);
    long n;
    for (n = 1; n < 100000; n++) {
        alea_dist *d = NULL;
        heap_fail_at(&fa, n);
        alea_status st = alea_expr_dist(ctx, e, &d);
        heap_fail_at(&fa, 0);
        if (st == ALEA_OK) {
            alea_dist_free(d);
            assert_int_equal(alea_ctx_memory(ctx, NULL), base);
            break;
        }
        if (st != ALEA_ERR_NOMEM)
            fail_msg("%s: allocation %ld: %s: %s", src, n, alea_status_name(st),
                     alea_ctx_error(ctx));
        assert_string_equal(alea_ctx_error(ctx), "out of memory");
        assert_int_equal(alea_ctx_memory(ctx, NULL), base);
    }
    assert_true(n > 10);
    alea_expr_free(e);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    sweep("4d6kh3 + (1d4)d6! * 2 - best(2, 1d8) /~ 3 + max(2d6, 1d12) + ((3d6) > 10) "
          "+ 10d10>=8f1 + abs(1d6 - 1d6) + (1d3)d6kl1 + 3d6!!6>=9 + 2d6r1 "
          "+ worst(2, 1d4) + 3d6!ra<3kh2 + dd(3, 12)");
    sweep("3d{1,1000,1000000}kh2 + 1d6 * 1000 - (2d4)d{1,10}r1");
    sweep("(1d3)d6ra1 + 3d10!10>=8 + 4d6!!kl2>=5");
    sweep("3dF!0kl2 + 3d{-1,0,2}!<=0dh1 + 4d6!>=5kh3kl2");
    sweep("event(3d4 + 3d6 + d18) + event(2d2, largest) + dd(6, 14, best)");
    sweep("event(5d6)");
}

/* ---- keep over exploding dice: the tail bound only takes away ----------------- */

/* p(v) of d as a fraction "num/den" in buf (exact mode), "0" when v is not
 * listed. */
static void frac_at(const alea_dist *d, int64_t v, char *buf, size_t size)
{
    snprintf(buf, size, "0");
    for (size_t i = 0; i < alea_dist_count(d); i++)
        if (alea_dist_value(d, i) == v)
            alea_dist_fraction(d, ALEA_FRACTION_PROB, i, buf, size);
}

/*
 * Keeping the lowest of two dice whose chains end on -1 or +1 (a Fudge die
 * exploding on its blank, or a d3 penetrating on its 1: 1 + 0 + ... then 1
 * or 2 more). At the tail bound 1e-3 a die's chain is cut after six blanks,
 * t = 1/3^7, and each end has (1 - t) / 2. A cut die is at least the low
 * end, so beside a die on the low end the low end is kept: P(low) =
 * 3 (1 - t)^2 / 4 + t (1 - t), P(high) = ((1 - t) / 2)^2, truncated the
 * rest, t. The true P(high) is 1/4, which nothing listed may pass.
 */
static void test_keep_cut_unknown(void **state)
{
    (void)state;
    const char *src[] = {"2dF!0kl1", "2d3!p1kl1", "2d3!p1dh1"};
    const int64_t low[] = {-1, 2, 2}, high[] = {1, 3, 3};
    long long n = 2187, h = (n - 1) / 2; /* t = 1/n; each end h/n */
    double t = 1.0 / (double)n, e = (1 - t) / 2;
    char want_lo[64], want_hi[64], got[64];
    /* 3 (1 - t)^2 / 4 + t (1 - t) = (n - 1)(3n + 1) / (4 n^2) */
    long long num = (n - 1) * (3 * n + 1), den = 4 * n * n, gd = num, r = den;
    while (r) {
        long long u = gd % r;
        gd = r;
        r = u;
    }
    snprintf(want_lo, sizeof want_lo, "%lld/%lld", num / gd, den / gd);
    snprintf(want_hi, sizeof want_hi, "%lld/%lld", h * h, n * n);
    assert_int_equal(alea_ctx_set_tail(ctx, 1e-3), ALEA_OK);
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        for (size_t i = 0; i < sizeof src / sizeof *src; i++) {
            alea_dist *d = dist(src[i]);
            assert_int_equal(alea_dist_count(d), 2);
            assert_double_equal(alea_dist_p(d, high[i]), e * e, EPS);
            assert_true(alea_dist_p(d, high[i]) <= 0.25);
            assert_double_equal(alea_dist_p(d, low[i]), 3 * (1 - t) * (1 - t) / 4 + t * (1 - t),
                                EPS);
            assert_double_equal(alea_dist_truncated(d), t, 1e-15);
            if (exact) {
                frac_at(d, low[i], got, sizeof got);
                assert_string_equal(got, want_lo);
                frac_at(d, high[i], got, sizeof got);
                assert_string_equal(got, want_hi);
            }
            alea_dist_free(d);
        }
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
    assert_int_equal(alea_ctx_set_tail(ctx, ALEA_TAIL_DEFAULT), ALEA_OK);
}

/*
 * Every roll of an expression by the roller, its faces drawn in turn
 * (explosions included): a sequence of faces is followed while its chance
 * is at least BRUTE_EPS; past it the roll's dice cycle through their faces,
 * so that every chain ends, and its chance is counted as unknown.
 */
#define BRUTE_EPS 1e-6
#define BRUTE_DRAWS 64
#define BRUTE_LEAVES 3000 /* rolls enumerated, at most; more: no brute force */
#define BRUTE_OFF 256       /* totals -256 .. 255 */

typedef struct walk {
    uint64_t n[BRUTE_DRAWS], idx[BRUTE_DRAWS], spin;
    int len, fixed, over;
    double p; /* the chance of the faces drawn */
} walk;

static uint64_t brute_face(void *ud, uint64_t n, int64_t lo, const int64_t *faces)
{
    walk *b = ud;
    (void)lo;
    (void)faces;
    if (b->over || b->len == BRUTE_DRAWS || b->p / (double)n < BRUTE_EPS) {
        b->over = 1;
        return b->spin++ % n;
    }
    int k = b->len++;
    if (k >= b->fixed) {
        b->n[k] = n;
        b->idx[k] = 0;
    }
    b->p /= (double)n;
    return b->idx[k];
}

/* known[v + BRUTE_OFF]: the chance of the rolls followed to their end with
 * total v; *unknown: of the others. 0 when there are too many rolls. */
static int brute_rolls(const char *src, double *known, double *unknown)
{
    alea_expr *e = compile(ctx, src);
    alea_roll *r = alea_roll_new(ctx);
    walk b;
    assert_non_null(r);
    memset(&b, 0, sizeof b);
    memset(known, 0, 2 * BRUTE_OFF * sizeof *known);
    *unknown = 0;
    int ok = 1;
    for (long rolls = 0;; rolls++) {
        if (rolls == BRUTE_LEAVES) {
            ok = 0;
            break;
        }
        b.len = b.over = 0;
        b.spin = 0;
        b.p = 1;
        alea__rng_set_faces(ctx, brute_face, &b);
        alea_status st = alea_expr_roll(ctx, e, r);
        alea__rng_set_faces(ctx, NULL, NULL);
        if (st != ALEA_OK)
            fail_msg("roll '%s': %s", src, alea_ctx_error(ctx));
        int64_t v = alea_roll_total(r);
        if (b.over) {
            *unknown += b.p;
        } else {
            assert_true(v >= -BRUTE_OFF && v < BRUTE_OFF);
            known[v + BRUTE_OFF] += b.p;
        }
        b.fixed = b.len; /* the next sequence: the last draw with a face left moves on */
        while (b.fixed > 0 && b.idx[b.fixed - 1] + 1 == b.n[b.fixed - 1])
            b.fixed--;
        if (b.fixed == 0)
            break;
        b.idx[b.fixed - 1]++;
    }
    alea_roll_free(r);
    alea_expr_free(e);
    return ok;
}

/* Tail bounds, loosest first; fractions, dearer, at the first two. */
static const double tails[] = {1e-3, 1e-4, 1e-6};
#define NTAILS (sizeof tails / sizeof *tails)
#define NTAILS_EXACT 2

/*
 * src at each tail bound in doubles, and at the first ones in fractions
 * (the dearer, under valgrind): a looser bound
 * never lists more at any value than a tighter one (in fractions exactly:
 * their nearest doubles keep the order), and against the rolls enumerated
 * (when there are not too many), what is listed at v is at most the known
 * chance of v plus the unknown, and with the truncated mass at least the
 * known chance. Returns 1 when the brute force ran.
 */
static int check_tails(const char *src)
{
    static double known[2 * BRUTE_OFF];
    double unknown;
    int brute = brute_rolls(src, known, &unknown);
    for (int exact = 0; exact < NUMBER_SYSTEMS; exact++) {
        alea_dist *d[NTAILS];
        size_t nt = exact ? NTAILS_EXACT : NTAILS;
        assert_int_equal(alea_ctx_set_exact(ctx, exact), ALEA_OK);
        for (size_t k = 0; k < nt; k++) {
            assert_int_equal(alea_ctx_set_tail(ctx, tails[k]), ALEA_OK);
            d[k] = dist(src);
        }
        for (size_t k = 0; k + 1 < nt; k++)
            for (size_t l = k + 1; l < nt; l++)
                for (size_t i = 0; i < alea_dist_count(d[k]); i++) {
                    int64_t v = alea_dist_value(d[k], i);
                    double lp = alea_dist_prob(d[k], i), tp = alea_dist_p(d[l], v);
                    if (exact ? lp > tp : lp > tp * (1 + 1e-9))
                        fail_msg("'%s'%s: P(%lld) = %.17g at tail %g, %.17g at %g", src,
                                 exact ? " in fractions" : "", (long long)v, lp, tails[k], tp,
                                 tails[l]);
                }
        for (size_t k = 0; k < nt && brute; k++) {
            double tr = alea_dist_truncated(d[k]);
            for (size_t i = 0; i < alea_dist_count(d[k]); i++) {
                int64_t v = alea_dist_value(d[k], i);
                if (v < -BRUTE_OFF || v >= BRUTE_OFF ||
                    alea_dist_prob(d[k], i) > known[v + BRUTE_OFF] + unknown + 1e-12)
                    fail_msg("'%s': P(%lld) = %.17g at tail %g; rolled %.17g, %.3g unknown", src,
                             (long long)v, alea_dist_prob(d[k], i), tails[k],
                             v < -BRUTE_OFF || v >= BRUTE_OFF ? 0 : known[v + BRUTE_OFF],
                             unknown);
            }
            for (int64_t v = -BRUTE_OFF; v < BRUTE_OFF; v++)
                if (alea_dist_p(d[k], v) + tr < known[v + BRUTE_OFF] - 1e-12)
                    fail_msg("'%s': P(%lld) = %.17g at tail %g, truncated %.3g; rolled %.17g",
                             src, (long long)v, alea_dist_p(d[k], v), tails[k], tr,
                             known[v + BRUTE_OFF]);
        }
        for (size_t k = 0; k < nt; k++)
            alea_dist_free(d[k]);
    }
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
    assert_int_equal(alea_ctx_set_tail(ctx, ALEA_TAIL_DEFAULT), ALEA_OK);
    return brute;
}

/* A small generator of its own (xorshift64), so that the cases never
 * change with the library's. */
static uint64_t gen_state;

static unsigned gen(unsigned n)
{
    gen_state ^= gen_state << 13;
    gen_state ^= gen_state >> 7;
    gen_state ^= gen_state << 17;
    return (unsigned)(gen_state % n);
}

/* A random pool of exploding dice: up to three dice of a small die (faces
 * 0 and below included), an explosion ("!", "!!", "!p") on a face or a
 * range, perhaps a clamp the trigger sees, and a keep or drop, a range in
 * the middle, or bonus or penalty dice. */
static void gen_expr(char *buf, size_t size)
{
    static const struct {
        const char *text;
        int64_t faces[4];
        int nf;
    } dice[] = {
        {"d2", {1, 2}, 2},          {"d3", {1, 2, 3}, 3},         {"d4", {1, 2, 3, 4}, 4},
        {"dF", {-1, 0, 1}, 3},      {"d{-1,0,2}", {-1, 0, 2}, 3}, {"d{0,0,1}", {0, 0, 1}, 3},
        {"d{-2,1,3}", {-2, 1, 3}, 3}, {"d{0,1,1,2}", {0, 1, 1, 2}, 4},
    };
    static const char *const kinds[] = {"!", "!!", "!p"};
    static const char *const ops[] = {">=", "<=", ">", "<"};
    unsigned di = gen(sizeof dice / sizeof *dice);
    int nf = dice[di].nf;
    int64_t face = dice[di].faces[gen((unsigned)nf)];
    char clamp[32] = "", trig[32] = "", keep[32] = "";
    if (gen(5) == 0)
        snprintf(clamp, sizeof clamp, "min%lld", (long long)dice[di].faces[gen((unsigned)nf)]);
    unsigned t = gen(3);
    if (t == 1 && face >= 0)
        snprintf(trig, sizeof trig, "%lld", (long long)face);
    else if (t == 2)
        snprintf(trig, sizeof trig, "%s%lld", ops[gen(4)], (long long)face);
    int m = 1 + (int)gen(3), a = 1 + (int)gen((unsigned)m), b = 1 + (int)gen((unsigned)m);
    switch (gen(8)) {
    case 0: snprintf(keep, sizeof keep, "kh%d", a); break;
    case 1: snprintf(keep, sizeof keep, "kl%d", a); break;
    case 2: snprintf(keep, sizeof keep, "dh%d", a - 1); break;
    case 3: snprintf(keep, sizeof keep, "dl%d", a - 1); break;
    case 4: snprintf(keep, sizeof keep, "kh%dkl%d", a, b); break;
    case 5: snprintf(keep, sizeof keep, "dl%ddh%d", a - 1, b - 1); break;
    case 6:
        if (m < 3)
            snprintf(keep, sizeof keep, " %c%db", gen(2) ? '+' : '-', 1 + (int)gen(3 - (unsigned)m));
        break;
    default: break;
    }
    snprintf(buf, size, "%d%s%s%s%s%s", m, dice[di].text, clamp, kinds[gen(3)], trig, keep);
}

static void test_keep_tails(void **state)
{
    (void)state;
    /* the cases the bug was found with, then random ones */
    const char *fixed[] = {"2dF!0kl1",   "2d3!p1kl1",     "2d3!p1dh1",      "3dF!p0kl2",
                           "2dF!p0 -1b", "2d6!>=5kl1",    "3d6!!kl2",       "2d6!kl1",
                           "1d4min4!",   "1d6min5!>=5",   "2d4min4!!kl1",   "1d4min4!p",
                           "8dFdh2!!<0kh4", "2dF!p0 -3b"};
    int ran = 0, brute = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        brute += check_tails(fixed[i]);
    gen_state = 0x9E3779B97F4A7C15u;
    for (int n = 0; n < 30; n++) {
        char src[160];
        alea_expr *e = NULL;
        gen_expr(src, sizeof src);
        if (alea_expr_compile(ctx, src, strlen(src), &e) != ALEA_OK)
            continue; /* an explosion on every face, a keep count past the dice */
        alea_expr_free(e);
        brute += check_tails(src);
        ran++;
    }
    assert_true(ran >= 20);
    assert_true(brute >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_known_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_explode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_cut_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_tails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_bruteforce, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_singles_bruteforce, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reroll, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reroll_one, setup, teardown),
        cmocka_unit_test_setup_teardown(test_success_counting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_best_worst, setup, teardown),
        cmocka_unit_test_setup_teardown(test_division, setup, teardown),
        cmocka_unit_test_setup_teardown(test_count_expr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_support_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work_and_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_each_success_keep_invalid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
