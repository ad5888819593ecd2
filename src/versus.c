/*
 * versus.c -- distances between two distributions (alea_dist_versus): who
 * wins when both are rolled, and how far apart they are (total variation,
 * Kolmogorov-Smirnov, earth mover's), in one merged walk over both
 * supports; in fractions through the fraction module when both are exact.
 */
#include "ddouble.h"
#include "dist.h"
#include "fractions/frac.h"
#include "out.h"

#include <math.h>
#include <stdint.h>

/* Work units (about 2 ns each) of an outcome of the walk: in whole counts,
 * a few integer multiply-adds and the EMD's double-double sum (1d100000
 * against 1d100000 + 7: about 24 ns an outcome here); in double-double
 * sums, about 80 ns (2000d6 against 2000d6 + 3). In fractions the module
 * charges the digits as it goes. */
#define VERSUS_COUNT_UNIT 12
#define VERSUS_UNIT 40

/*
 * A distribution's outcomes as weights over a whole W: its exact counts
 * over their denominator when it has them (dist.c: 4d6kh3's over 1296),
 * else its probabilities over the mass listed (1 unless a tail was cut).
 * The walk below sums weights cross-multiplied by the other's whole (A's
 * over W_A W_B), so that with counts every sum is a whole number, exact in
 * double-double arithmetic (products of counts below 2^32 and sums below
 * 2^106), and each result is one rounding from the true value.
 */
static double weight(const alea_dist *d, size_t i)
{
    if (d->den > 0)
        return nearbyint(d->pmf.p[i] * d->den);
    /* An outcome rarer than this changes no sum by more than itself, and
     * its products would be subnormal numbers, which cost a hundred times
     * more (10000d6 lists 50001 outcomes, most of them at the smallest
     * double, standing for probabilities far below it). */
    return d->pmf.p[i] < ALEA__NEAR_UNDERFLOW ? 0 : d->pmf.p[i];
}

static double whole(const alea_dist *d)
{
    return d->den > 0 ? d->den : d->pmf.trunc > 0 && d->mass > 0 ? d->mass : 1;
}

static ddouble dd_neg(ddouble a)
{
    return (ddouble){-a.hi, -a.lo};
}

static ddouble dd_absd(ddouble a)
{
    return a.hi < 0 ? dd_neg(a) : a;
}

/* The walk in doubles: as frac_versus.c's, over the weights. */
static void walk_doubles(const alea_dist *a, const alea_dist *b, alea_versus *out)
{
    const alea__pmf *ma = &a->pmf, *mb = &b->pmf;
    double wa = whole(a), wb = whole(b);
    ddouble gt = {0, 0}, eq = {0, 0}, lt = {0, 0}, tv = {0, 0}, emd = {0, 0}, ks = {0, 0};
    ddouble fa = {0, 0}, fb = {0, 0}, diff = {0, 0}; /* diff: fa wb - fb wa */
    size_t i = 0, j = 0;
    while (i < ma->n || j < mb->n) {
        int64_t x = alea__walk_next(ma, i, mb, j, 0);
        double pa = i < ma->n && ma->v[i] == x ? weight(a, i++) : 0;
        double pb = j < mb->n && mb->v[j] == x ? weight(b, j++) : 0;
        if (pa > 0 && pb > 0)
            eq = dd_sum(eq, dd_prod(pa, pb));
        if (pa > 0)
            gt = dd_sum(gt, dd_mul(fb, pa));
        if (pb > 0)
            lt = dd_sum(lt, dd_mul(fa, pb));
        ddouble step = dd_sum(dd_prod(pa, wb), dd_prod(-pb, wa));
        tv = dd_sum(tv, dd_absd(step));
        fa = dd_add(fa, pa);
        fb = dd_add(fb, pb);
        diff = dd_sum(diff, step);
        ddouble ad = dd_absd(diff);
        if (dd_round(dd_sum(ad, dd_neg(ks))) > 0)
            ks = ad;
        int64_t next = alea__walk_next(ma, i, mb, j, x);
        if (next > x)
            emd = dd_sum(emd, dd_mul(ad, (double)((uint64_t)next - (uint64_t)x)));
    }
    ddouble w = dd_prod(wa, wb);
    double half = dd_round(dd_div(tv, dd_mul(w, 2)));
    double k = dd_round(dd_div(ks, w));
    out->p_greater = dd_round(dd_div(gt, w));
    out->p_equal = dd_round(dd_div(eq, w));
    out->p_less = dd_round(dd_div(lt, w));
    out->tv = half > 1 ? 1 : half;
    out->ks = k > 1 ? 1 : k;
    out->emd = dd_round(dd_div(emd, w));
}

/* Both in whole counts over denominators whose product is below this:
 * every sum of the walk is an integer below 2^63 (P(A > B) and the rest
 * at most the product, TV's sum twice it). */
#define COUNT_PRODUCT_MAX 0x1p62

static int by_counts(const alea_dist *a, const alea_dist *b)
{
    return a->den > 0 && b->den > 0 && a->den * b->den < COUNT_PRODUCT_MAX;
}

/* x as a double-double, exactly. */
static ddouble dd_of_u64(uint64_t x)
{
    uint64_t lo = x & 0xFFFFFFFFu;
    return dd_add((ddouble){(double)(x - lo), 0}, (double)lo);
}

static double ratio(uint64_t x, ddouble w)
{
    return dd_round(dd_div(dd_of_u64(x), w));
}

/* The walk in whole counts: as walk_doubles, in 64-bit integers (only the
 * EMD, whose gaps can be any size, in double-double sums). */
static void walk_counts(const alea_dist *a, const alea_dist *b, alea_versus *out)
{
    const alea__pmf *ma = &a->pmf, *mb = &b->pmf;
    uint64_t da = (uint64_t)a->den, db = (uint64_t)b->den;
    uint64_t gt = 0, eq = 0, lt = 0, tv = 0, ks = 0, fa = 0, fb = 0;
    int64_t diff = 0; /* fa db - fb da */
    ddouble emd = {0, 0};
    size_t i = 0, j = 0;
    while (i < ma->n || j < mb->n) {
        int64_t x = alea__walk_next(ma, i, mb, j, 0);
        uint64_t pa = i < ma->n && ma->v[i] == x ? (uint64_t)(ma->p[i++] * a->den + 0.5) : 0;
        uint64_t pb = j < mb->n && mb->v[j] == x ? (uint64_t)(mb->p[j++] * b->den + 0.5) : 0;
        eq += pa * pb;
        gt += pa * fb;
        lt += pb * fa;
        int64_t step = (int64_t)(pa * db) - (int64_t)(pb * da);
        tv += (uint64_t)(step < 0 ? -step : step);
        fa += pa;
        fb += pb;
        diff += step;
        uint64_t ad = (uint64_t)(diff < 0 ? -diff : diff);
        ks = ad > ks ? ad : ks;
        int64_t next = alea__walk_next(ma, i, mb, j, x);
        if (next > x && ad)
            emd = dd_sum(emd, dd_mul(dd_of_u64(ad), (double)((uint64_t)next - (uint64_t)x)));
    }
    ddouble w = dd_prod((double)da, (double)db);
    out->p_greater = ratio(gt, w);
    out->p_equal = ratio(eq, w);
    out->p_less = ratio(lt, w);
    out->tv = ratio(tv, dd_mul(w, 2));
    out->ks = ratio(ks, w);
    out->emd = dd_round(dd_div(emd, w));
}

/* The checks and the budget of both calls; ALEA_OK to go on. */
static alea_status versus_start(alea_ctx *ctx, const alea_dist *a, const alea_dist *b,
                                const void *out, const char *fn)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__budget_start(ctx);
    if (!a || !b || !out)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "%s: NULL argument", fn);
    double units = (double)(a->pmf.n + b->pmf.n) *
                   (a->exact && b->exact ? 1 : by_counts(a, b) ? VERSUS_COUNT_UNIT : VERSUS_UNIT);
    if (alea__work_check_span(ctx, units, 0, 0) != ALEA_OK)
        return alea__error(ctx, ALEA_ERR_LIMIT, 0, 0,
                           "%s: comparing %zu and %zu outcomes needs %.0f work units (work "
                           "limit is %lld)",
                           fn, a->pmf.n, b->pmf.n, units,
                           (long long)ctx->limits[ALEA_LIMIT_WORK]);
    return alea__charge(ctx, (int64_t)units, 0, 0);
}

/* Both exact: the walk in fractions (text into o when not NULL). */
static alea_status walk_fractions(alea_ctx *ctx, const alea_dist *a, const alea_dist *b,
                                  alea_versus *out, alea__out *o, const char *fn)
{
    alea_status st = alea__frac_load(ctx);
    double x[6];
    if (st == ALEA_OK)
        st = alea__frac_versus(ctx, &a->pmf, &b->pmf, x, o, 0);
    if (st == ALEA_ERR_LIMIT) /* the work limit, met on the way */
        return alea__error(ctx, ALEA_ERR_LIMIT, 0, 0,
                           "%s: comparing %zu and %zu outcomes in fractions needs more work "
                           "than the work limit (%lld) allows",
                           fn, a->pmf.n, b->pmf.n, (long long)ctx->limits[ALEA_LIMIT_WORK]);
    if (st != ALEA_OK)
        return st;
    *out = (alea_versus){x[0], x[1], x[2], x[3], x[4], x[5]};
    return ALEA_OK;
}

alea_status alea_dist_versus(alea_ctx *ctx, const alea_dist *a, const alea_dist *b,
                             alea_versus *out)
{
    alea_status st = versus_start(ctx, a, b, out, "alea_dist_versus");
    if (st != ALEA_OK)
        return st;
    if (a->exact && b->exact)
        return walk_fractions(ctx, a, b, out, NULL, "alea_dist_versus");
    if (by_counts(a, b))
        walk_counts(a, b, out);
    else
        walk_doubles(a, b, out);
    return ALEA_OK;
}

alea_status alea_dist_versus_fractions(alea_ctx *ctx, const alea_dist *a, const alea_dist *b,
                                       char *buf, size_t cap, size_t *len)
{
    const char *fn = "alea_dist_versus_fractions";
    alea_status st = versus_start(ctx, a, b, len, fn);
    if (st != ALEA_OK)
        return st;
    if (!a->exact || !b->exact)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "%s: both distributions must be exact (computed in exact mode)", fn);
    alea__out o;
    alea__out_init(&o, buf, cap);
    alea_versus v;
    st = walk_fractions(ctx, a, b, &v, &o, fn);
    size_t n = alea__out_finish(&o);
    if (st != ALEA_OK) {
        if (cap > 0)
            buf[0] = '\0';
        return st;
    }
    *len = n;
    return ALEA_OK;
}
