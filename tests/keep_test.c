/* keep_test.c -- keep/drop by order statistics (alea__keep) against
 * brute-force enumeration of small pools, closed forms for large ones,
 * the limits, and allocation failure at every step. */
#include "dist.h"
#include "keep.h"
#include "pmf.h"
#include "support.h"

#define EPS 1e-12

static const node at = {.kind = N_DICE, .start = 0, .end = 6};

TEST_HEAP_CONTEXT

#define BF_OFF 1000
#define BF_SPAN 2001

/*
 * Every roll of m dice (m <= 8): sort, sum g over positions [lo, hi).
 * want[s + BF_OFF] = P(sum = s) with the die's probabilities as given
 * (a deficient die gives the kept mass). The sums are compensated
 * (Neumaier): under valgrind long double has only double's precision, and
 * 10^5 plain additions of 1e-5 drift by 2e-12.
 */
static void brute(const alea__pmf *die, const int64_t *g, int m, int lo, int hi,
                  long double *want)
{
    int idx[8] = {0};
    int64_t vals[8];
    static long double comp[BF_SPAN];
    memset(want, 0, BF_SPAN * sizeof *want);
    memset(comp, 0, sizeof comp);
    /* A die with truncated mass has one more outcome, index n: a chain cut
     * by the tail bound, of a value unknown but at least die->cut_low when
     * it has one. A roll with one counts when nothing is kept, or when at
     * least hi of its other dice are at or below that bound: then the cut
     * ones sort above the kept range. Other rolls with one are truncated. */
    int cuts = die->trunc > 0, n = (int)die->n;
    do {
        long double pr = 1;
        int cut = 0, below = 0;
        for (int i = 0; i < m; i++) {
            vals[i] = (int64_t)idx[i]; /* sort by outcome index = by value */
            pr *= idx[i] == n ? die->trunc : die->p[idx[i]];
            cut |= idx[i] == n;
            below += idx[i] < n && die->has_cut_low && die->v[idx[i]] <= die->cut_low;
        }
        if (cut && lo < hi && below < hi)
            continue;
        qsort(vals, (size_t)m, sizeof *vals, cmp_i64);
        int64_t s = 0;
        for (int i = lo; i < hi; i++)
            s += g ? g[vals[i]] : die->v[vals[i]];
        long double *w = &want[s + BF_OFF], t = *w + pr;
        comp[s + BF_OFF] += fabsl(*w) >= fabsl(pr) ? (*w - t) + pr : (pr - t) + *w;
        *w = t;
    } while (odometer_next_base(idx, m, n + cuts));
    for (int s = 0; s < BF_SPAN; s++)
        want[s] += comp[s];
}

static void check_all_ranges(const alea__pmf *die, const int64_t *g, int m)
{
    long double want[BF_SPAN];
    for (int lo = 0; lo <= m; lo++) {
        for (int hi = lo; hi <= m; hi++) {
            alea__pmf r;
            brute(die, g, m, lo, hi, want);
            assert_int_equal(alea__keep(ctx, die, g, m, lo, hi, &at, &r), ALEA_OK);
            double mass = 0;
            for (size_t i = 0; i < r.n; i++) {
                assert_true(r.p[i] > 0);
                if (i)
                    assert_true(r.v[i - 1] < r.v[i]);
                mass += r.p[i];
            }
            assert_true(mass <= 1 + EPS);
            for (int s = 0; s < BF_SPAN; s++) {
                double got = pmf_p(&r, s - BF_OFF);
                if (fabs(got - (double)want[s]) > EPS)
                    fail_msg("m=%d [%d,%d) sum %d: got %.17g want %.17g", m, lo, hi,
                             s - BF_OFF, got, (double)want[s]);
            }
            alea__pmf_free(ctx, &r);
            /* the threshold method, whichever alea__keep picked (by itself
             * it counts the rolls of uncut dice: below the top of a die
             * with cut chains alea__keep adds those that drop them) */
            if (hi > lo && (lo == 0 || hi == m) && (die->trunc <= 0 || hi == m)) {
                assert_int_equal(alea__keep_threshold(ctx, die, g, m, lo, hi, &at, &r), ALEA_OK);
                for (int s = 0; s < BF_SPAN; s++) {
                    double got = pmf_p(&r, s - BF_OFF);
                    if (fabs(got - (double)want[s]) > EPS)
                        fail_msg("threshold m=%d [%d,%d) sum %d: got %.17g want %.17g", m, lo,
                                 hi, s - BF_OFF, got, (double)want[s]);
                }
                alea__pmf_free(ctx, &r);
            }
        }
    }
}

static void test_4d6_all_ranges(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6);
    check_all_ranges(&d6, NULL, 4);
    check_all_ranges(&d6, NULL, 6);
    alea__pmf_free(ctx, &d6);
}

/* 3d{1,1,2,5}: faces with multiplicity. */
static void test_uneven_die(void **state)
{
    (void)state;
    int64_t v[] = {1, 2, 5};
    double p[] = {0.5, 0.25, 0.25};
    alea__pmf d = pmf_given(ctx, 3, v, p);
    check_all_ranges(&d, NULL, 3);
    check_all_ranges(&d, NULL, 5);
    alea__pmf_free(ctx, &d);
    int64_t v2[] = {-2, 0, 3, 7};
    double p2[] = {0.1, 0.2, 0.3, 0.4};
    d = pmf_given(ctx, 4, v2, p2);
    check_all_ranges(&d, NULL, 5);
    alea__pmf_free(ctx, &d);
}

/* Success counting on kept dice: contributions not monotone in the value. */
static void test_counting_contributions(void **state)
{
    (void)state;
    alea__pmf d = pmf_uniform(ctx, 1, 10);
    int64_t g[10] = {-1, 0, 0, 0, 0, 0, 0, 1, 1, 1}; /* >=8 f1 */
    check_all_ranges(&d, g, 5);
    int64_t g2[10] = {0, 1, 0, 1, 0, 1, 0, 1, -1, 1}; /* arbitrary */
    check_all_ranges(&d, g2, 4);
    alea__pmf_free(ctx, &d);
}

/* A die with a truncated tail: the DP gives the kept mass and tracks the
 * truncation; rolls with a cut die are listed only where their kept sum
 * does not depend on it: with no bound below the cut chains, none; with a
 * bound at or above every outcome, those whose cut dice are all above the
 * kept range; with one among the outcomes, those with enough dice below it. */
static void test_deficient_mass(void **state)
{
    (void)state;
    int64_t v[] = {1, 2, 3, 4};
    double p[] = {0.3, 0.25, 0.2, 0.15}; /* mass 0.9 */
    alea__pmf d = pmf_given(ctx, 4, v, p);
    d.trunc = 0.1;
    check_all_ranges(&d, NULL, 4);
    d.has_cut_low = 1;
    d.cut_low = 2;
    check_all_ranges(&d, NULL, 4);
    d.cut_low = 4;
    check_all_ranges(&d, NULL, 4);
    alea__pmf r;
    assert_int_equal(alea__keep(ctx, &d, NULL, 4, 1, 3, &at, &r), ALEA_OK);
    /* cut dice are the highest: the second and third of four are kept
     * from a cut one only when two or more were cut */
    assert_double_equal(r.trunc, 1 - pow(0.9, 4) - 4 * 0.1 * pow(0.9, 3), EPS);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &d);
}

/* Pools too large to enumerate: the truncated mass is the chance that a
 * cut die is kept, P(Binomial(m, t) >= j), below the mode (1 less the
 * terms under j) and above it (the terms summed); and the counts of cut
 * dice walked one by one are charged, so that a pool of 4 * 10^17 dice
 * keeping none ends at the work limit. */
static void test_cut_pools(void **state)
{
    (void)state;
    int64_t v[] = {1, 2};
    double p[] = {0.5, 0.5 - 1e-3};
    alea__pmf d = pmf_given(ctx, 2, v, p), r;
    d.trunc = 1e-3;
    /* keep the highest of 10^4: kept from a cut die when any was cut;
     * 10 cut dice are expected, above the one the walk stops at */
    assert_int_equal(alea__keep(ctx, &d, NULL, 10000, 9999, 10000, &at, &r), ALEA_OK);
    assert_double_equal(r.trunc, -expm1(10000 * log1p(-1e-3)), EPS);
    alea__pmf_free(ctx, &r);
    /* of 100: 0.1 cut dice expected, below it */
    assert_int_equal(alea__keep(ctx, &d, NULL, 100, 99, 100, &at, &r), ALEA_OK);
    assert_double_equal(r.trunc, -expm1(100 * log1p(-1e-3)), EPS);
    alea__pmf_free(ctx, &r);
    /* keep none of 4 * 10^17: 0 whatever the dice show, cut or not, at
     * once; keep the lowest, with the cut chains above every outcome: 4 *
     * 10^14 cut dice expected, past what doubles walk (the rolls with one
     * are truncated) */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 1000000);
    alea__budget_start(ctx);
    assert_int_equal(alea__keep(ctx, &d, NULL, 400000000000000000, 0, 0, &at, &r), ALEA_OK);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.v[0], 0);
    assert_double_equal(r.p[0], 1, 0);
    assert_double_equal(r.trunc, 0, 0);
    alea__pmf_free(ctx, &r);
    d.has_cut_low = 1;
    d.cut_low = 2;
    assert_int_equal(alea__keep(ctx, &d, NULL, 400000000000000000, 0, 1, &at, &r), ALEA_OK);
    assert_double_equal(r.trunc, 1, 1e-12);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &d);
}

/* Every roll of m dice, with "ra": the lowest matching die is replaced by
 * one more roll y (not rolled when nothing matches). */
static void brute_ra(const alea__pmf *die, const int64_t *g, const uint8_t *match, int m,
                     int lo, int hi, long double *want)
{
    int idx[8] = {0};
    int64_t vals[8];
    memset(want, 0, BF_SPAN * sizeof *want);
    do {
        long double pr = 1;
        int low = -1;
        for (int i = 0; i < m; i++) {
            pr *= die->p[idx[i]];
            if (match[idx[i]] && (low < 0 || idx[i] < idx[low]))
                low = i;
        }
        for (size_t y = 0; y < (low < 0 ? 1 : die->n); y++) {
            long double q = pr;
            for (int i = 0; i < m; i++)
                vals[i] = (int64_t)idx[i];
            if (low >= 0) {
                vals[low] = (int64_t)y;
                q *= die->p[y];
            }
            qsort(vals, (size_t)m, sizeof *vals, cmp_i64);
            int64_t s = 0;
            for (int i = lo; i < hi; i++)
                s += g ? g[vals[i]] : die->v[vals[i]];
            want[s + BF_OFF] += q;
        }
    } while (odometer_next_base(idx, m, (int)die->n));
}

static void check_all_ranges_ra(const alea__pmf *die, const int64_t *g,
                                const uint8_t *match, int m)
{
    long double want[BF_SPAN];
    for (int lo = 0; lo <= m; lo++) {
        for (int hi = lo; hi <= m; hi++) {
            alea__pmf r;
            brute_ra(die, g, match, m, lo, hi, want);
            assert_int_equal(alea__keep_ra(ctx, die, g, match, m, lo, hi, &at, &r),
                             ALEA_OK);
            for (int s = 0; s < BF_SPAN; s++) {
                double got = pmf_p(&r, s - BF_OFF);
                if (fabs(got - (double)want[s]) > EPS)
                    fail_msg("ra m=%d [%d,%d) sum %d: got %.17g want %.17g", m, lo, hi,
                             s - BF_OFF, got, (double)want[s]);
            }
            alea__pmf_free(ctx, &r);
        }
    }
}

/* "ra" (reroll the lowest matching die) against enumeration. */
static void test_reroll_one(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6);
    const uint8_t ones[6] = {1, 0, 0, 0, 0, 0}, low[6] = {1, 1, 0, 0, 0, 0},
                  high[6] = {0, 0, 0, 0, 1, 1}, all[6] = {1, 1, 1, 1, 1, 1},
                  mid[6] = {0, 1, 0, 1, 0, 0};
    const uint8_t *sets[] = {ones, low, high, all, mid};
    for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
        check_all_ranges_ra(&d6, NULL, sets[k], 1);
        check_all_ranges_ra(&d6, NULL, sets[k], 3);
        check_all_ranges_ra(&d6, NULL, sets[k], 4);
    }
    int64_t g[6] = {-1, 0, 0, 0, 1, 1};
    check_all_ranges_ra(&d6, g, low, 4);
    /* a deficient die: truncation counts the extra roll too */
    int64_t v[] = {1, 2, 3, 4};
    double p[] = {0.3, 0.25, 0.2, 0.15};
    alea__pmf d = pmf_given(ctx, 4, v, p);
    d.trunc = 0.1;
    const uint8_t m2[4] = {1, 1, 0, 0};
    check_all_ranges_ra(&d, NULL, m2, 3);
    alea__pmf r;
    assert_int_equal(alea__keep_ra(ctx, &d, NULL, m2, 3, 1, 3, &at, &r), ALEA_OK);
    double mass = 0;
    for (size_t i = 0; i < r.n; i++)
        mass += r.p[i];
    assert_double_equal(mass + r.trunc, 1, EPS);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &d);
    alea__pmf_free(ctx, &d6);
}

static double mean_of(const alea__pmf *r)
{
    double m = 0;
    for (size_t i = 0; i < r->n; i++)
        m += (double)r->v[i] * r->p[i];
    return m;
}

static void test_known_means(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6), d20 = pmf_uniform(ctx, 1, 20), r;
    assert_int_equal(alea__keep(ctx, &d6, NULL, 4, 1, 4, &at, &r), ALEA_OK);
    assert_double_equal(mean_of(&r), 15869.0 / 1296, EPS);
    alea__pmf_free(ctx, &r);
    assert_int_equal(alea__keep(ctx, &d20, NULL, 2, 1, 2, &at, &r), ALEA_OK);
    assert_double_equal(mean_of(&r), 13.825, EPS);
    alea__pmf_free(ctx, &r);
    assert_int_equal(alea__keep(ctx, &d20, NULL, 2, 0, 1, &at, &r), ALEA_OK);
    assert_double_equal(mean_of(&r), 7.175, EPS);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &d6);
    alea__pmf_free(ctx, &d20);
}

/* P(Binomial(m, p) >= k) by a plain DP over the dice. */
static double binom_at_least(int m, double p, int k)
{
    double d[201] = {1};
    for (int i = 0; i < m; i++)
        for (int c = i + 1; c >= 0; c--)
            d[c] = d[c] * (1 - p) + (c ? d[c - 1] * p : 0);
    double s = 0;
    for (int c = k; c <= m; c++)
        s += d[c];
    return s;
}

/* 100d6kh50: the mean against order statistics, E X_(i) = 1 + sum over
 * v = 2..6 of P(at least m - i dice >= v), and kh50 + kl50 = 100d6. */
static void test_100d6kh50(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6), hi, lo;
    assert_int_equal(alea__keep(ctx, &d6, NULL, 100, 50, 100, &at, &hi), ALEA_OK);
    assert_int_equal(alea__keep(ctx, &d6, NULL, 100, 0, 50, &at, &lo), ALEA_OK);
    assert_int_equal(hi.n, 251);
    double want = 0;
    for (int i = 50; i < 100; i++) {
        want += 1;
        for (int v = 2; v <= 6; v++)
            want += binom_at_least(100, (7.0 - v) / 6, 100 - i);
    }
    assert_double_equal(mean_of(&hi), want, 1e-9);
    assert_double_equal(mean_of(&hi) + mean_of(&lo), 350, 1e-9);
    double mass = 0;
    for (size_t i = 0; i < hi.n; i++)
        mass += hi.p[i];
    assert_double_equal(mass, 1, 1e-12);
    /* the extremes: all 50 kept dice are 6 / are 1 */
    assert_double_equal(pmf_p(&hi, 300), binom_at_least(100, 1.0 / 6, 50),
                        1e-12 * pmf_p(&hi, 300));
    assert_double_equal(pmf_p(&lo, 50), binom_at_least(100, 1.0 / 6, 50),
                        1e-12 * pmf_p(&lo, 50));
    alea__pmf_free(ctx, &hi);
    alea__pmf_free(ctx, &lo);
    alea__pmf_free(ctx, &d6);
}

/* Tiny probabilities keep their digits: P(max of 1000d2 = 1) = 2^-1000. */
static void test_tiny_probabilities(void **state)
{
    (void)state;
    alea__pmf d2 = pmf_uniform(ctx, 1, 2), d6 = pmf_uniform(ctx, 1, 6), r;
    assert_int_equal(alea__keep(ctx, &d2, NULL, 1000, 999, 1000, &at, &r), ALEA_OK);
    assert_double_equal(pmf_p(&r, 1), ldexp(1, -1000), 1e-12 * ldexp(1, -1000));
    assert_double_equal(pmf_p(&r, 2), 1, EPS);
    alea__pmf_free(ctx, &r);
    assert_int_equal(alea__keep(ctx, &d6, NULL, 40, 39, 40, &at, &r), ALEA_OK);
    assert_double_equal(pmf_p(&r, 1), pow(6, -40), 1e-12 * pow(6, -40));
    assert_double_equal(pmf_p(&r, 2), pow(3, -40) - pow(6, -40), 1e-12 * pow(3, -40));
    alea__pmf_free(ctx, &r);
    /* a million dice, keep the highest: nothing but 6 survives rounding */
    assert_int_equal(alea__keep(ctx, &d6, NULL, 1000000, 999999, 1000000, &at, &r),
                     ALEA_OK);
    assert_int_equal(r.n, 1);
    assert_double_equal(r.p[0], 1, EPS);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &d2);
    alea__pmf_free(ctx, &d6);
}

static void test_limits(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6), r;
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 16); /* 4d6kh3: 3..18 */
    assert_int_equal(alea__keep(ctx, &d6, NULL, 4, 1, 4, &at, &r), ALEA_OK);
    assert_int_equal(r.n, 16);
    alea__pmf_free(ctx, &r);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 15);
    assert_int_equal(alea__keep(ctx, &d6, NULL, 4, 1, 4, &at, &r), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "support limit is 15"));
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 1000000);
    /* the median die of 100001: too much work, refused before starting */
    alea__budget_start(ctx);
    size_t before = alea_ctx_memory(ctx, NULL);
    assert_int_equal(alea__keep(ctx, &d6, NULL, 100001, 50000, 50001, &at, &r),
                     ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "work limit"));
    assert_int_equal(alea_ctx_memory(ctx, NULL), before);
    /* sums that leave int64 */
    int64_t v[] = {1, INT64_MAX / 2};
    double p[] = {0.5, 0.5};
    alea__pmf big = pmf_given(ctx, 2, v, p);
    assert_int_equal(alea__keep(ctx, &big, NULL, 4, 1, 4, &at, &r), ALEA_ERR_OVERFLOW);
    assert_int_equal(alea__keep(ctx, &big, NULL, 4, 2, 4, &at, &r), ALEA_OK);
    alea__pmf_free(ctx, &r);
    alea__pmf_free(ctx, &big);
    alea__pmf_free(ctx, &d6);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    alea__pmf d6 = pmf_uniform(ctx, 1, 6), r;
    int64_t v[] = {1, 1000, 1000000000};
    double p[] = {0.5, 0.25, 0.25};
    alea__pmf sp = pmf_given(ctx, 3, v, p); /* sparse sums */
    size_t base = alea_ctx_memory(ctx, NULL);
    const alea__pmf *dice[] = {&d6, &sp};
    for (int k = 0; k < 2; k++) {
        long n;
        for (n = 1; n < 100000; n++) {
            heap_fail_at(&fa, n);
            static const uint8_t ra[3] = {1, 0, 1};
            alea_status st = k == 0 ? alea__keep(ctx, dice[k], NULL, 7, 2, 5, &at, &r)
                                    : alea__keep_ra(ctx, dice[k], NULL, ra, 7, 2, 5,
                                                         &at, &r);
            assert_int_equal(alea_ctx_memory(ctx, NULL), base + (st == ALEA_OK ?
                             r.bytes : 0));
            if (st == ALEA_OK) {
                alea__pmf_free(ctx, &r);
                break;
            }
            assert_int_equal(st, ALEA_ERR_NOMEM);
        }
        assert_true(n > 3);
    }
    heap_fail_at(&fa, 0);
    alea__pmf_free(ctx, &d6);
    alea__pmf_free(ctx, &sp);
}

/* ---- the kept sum in fractions, two ways ---------------------------------------- */

/* An exact die: values v[i] of masses num[i] / den[i]. */
static void exact_die(const int64_t *v, const uint64_t *num, const uint64_t *den, size_t n,
                      alea__pmf *d)
{
    assert_int_equal(alea__pmf_alloc(ctx, n, d), ALEA_OK);
    for (size_t i = 0; i < n; i++) {
        alea__x x;
        alea__x_init(ctx, &x);
        d->v[i] = v[i];
        assert_int_equal(alea__x_ratio(ctx, &x, num[i], den[i], &at), ALEA_OK);
        assert_int_equal(alea__pmf_set_w(ctx, d, i, alea__x_w(&x), &at), ALEA_OK);
        alea__x_free(ctx, &x);
    }
    assert_int_equal(alea__pmf_seal(ctx, d, &at), ALEA_OK);
}

/* The kept sum by powers of the dice beyond (how 1) and by Horner's rule
 * (how 2), each fraction written out: the same, digit for digit. Which one
 * a keep takes depends on its sizes (the brute blocks of keep.test run the
 * ones small pools take; exploding dice take the powers). */
static void same_two_ways(const alea__pmf *die, const int64_t *g, int high, int64_t m,
                          int64_t K)
{
    int64_t gmin = g ? g[0] : die->v[0];
    for (size_t i = 0; i < die->n; i++)
        gmin = (g ? g[i] : die->v[i]) < gmin ? (g ? g[i] : die->v[i]) : gmin;
    alea_dist *d[2];
    for (int how = 1; how <= 2; how++) {
        alea__pmf r;
        assert_int_equal(alea__pmf_keep_sum(ctx, die, g, high, m, K, K * gmin, how, &at, &r),
                         ALEA_OK);
        assert_int_equal(alea__dist_make(ctx, &r, "keep", 4, &d[how - 1]), ALEA_OK);
    }
    size_t n = alea_dist_count(d[0]);
    assert_int_equal(alea_dist_count(d[1]), n);
    assert_true(n > 1);
    for (size_t i = 0; i < n; i++) {
        char x[512], y[512];
        assert_int_equal(alea_dist_value(d[0], i), alea_dist_value(d[1], i));
        alea_dist_fraction(d[0], ALEA_FRACTION_PROB, i, x, sizeof x);
        alea_dist_fraction(d[1], ALEA_FRACTION_PROB, i, y, sizeof y);
        assert_string_equal(x, y);
    }
    alea_dist_free(d[0]);
    alea_dist_free(d[1]);
}

static void test_exact_kept_sum_two_ways(void **state)
{
    (void)state;
    if (alea_ctx_set_exact(ctx, 1) != ALEA_OK)
        skip(); /* a build without GMP */
    /* an exploding d4 cut after three extra rolls: masses over 4 to 256,
     * short of 1 */
    static const int64_t v[] = {1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15};
    static const uint64_t num[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const uint64_t den[] = {4, 4, 4, 16, 16, 16, 64, 64, 64, 256, 256, 256};
    /* contributions out of order, below 0, repeated */
    static const int64_t g[] = {3, -2, 0, 7, 7, 1, -5, 4, 2, 0, 9, -1};
    alea__pmf die;
    exact_die(v, num, den, 12, &die);
    for (int high = 0; high <= 1; high++)
        for (int64_t m = 2; m <= 7; m++)
            for (int64_t K = 1; K < m; K++) {
                same_two_ways(&die, NULL, high, m, K);
                same_two_ways(&die, g, high, m, K);
            }
    alea__pmf_free(ctx, &die);
    assert_int_equal(alea_ctx_set_exact(ctx, 0), ALEA_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_4d6_all_ranges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uneven_die, setup, teardown),
        cmocka_unit_test_setup_teardown(test_counting_contributions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deficient_mass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cut_pools, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reroll_one, setup, teardown),
        cmocka_unit_test_setup_teardown(test_known_means, setup, teardown),
        cmocka_unit_test_setup_teardown(test_100d6kh50, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tiny_probabilities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exact_kept_sum_two_ways, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
