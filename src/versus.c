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

/* Work units of an outcome of the walk in doubles: about 30 floating-point
 * operations of double-double sums, a few nanoseconds. */
#define VERSUS_UNIT 4

/* Outcome i's probability over the mass listed (scale: 1 / mass, or 1). */
static double share(const alea_dist *d, size_t i, double scale)
{
    return d->pmf.p[i] * scale;
}

/* 1 / the mass listed when a tail was cut (the mean's normalisation). */
static double scale_of(const alea_dist *d)
{
    return d->pmf.trunc > 0 && d->mass > 0 ? 1 / d->mass : 1;
}

static ddouble dd_neg(ddouble a)
{
    return (ddouble){-a.hi, -a.lo};
}

static double dd_abs(ddouble a)
{
    double x = dd_round(a);
    return x < 0 ? -x : x;
}

/* The walk in doubles: as frac_versus.c's, with double-double sums. */
static void walk_doubles(const alea_dist *a, const alea_dist *b, alea_versus *out)
{
    const alea__pmf *ma = &a->pmf, *mb = &b->pmf;
    double sa = scale_of(a), sb = scale_of(b), ks = 0;
    ddouble gt = {0, 0}, eq = {0, 0}, lt = {0, 0}, tv = {0, 0}, emd = {0, 0};
    ddouble fa = {0, 0}, fb = {0, 0}, diff = {0, 0};
    size_t i = 0, j = 0;
    while (i < ma->n || j < mb->n) {
        int64_t x = j >= mb->n || (i < ma->n && ma->v[i] <= mb->v[j]) ? ma->v[i] : mb->v[j];
        double pa = i < ma->n && ma->v[i] == x ? share(a, i++, sa) : 0;
        double pb = j < mb->n && mb->v[j] == x ? share(b, j++, sb) : 0;
        eq = dd_sum(eq, dd_prod(pa, pb));
        gt = dd_sum(gt, dd_mul(fb, pa));
        lt = dd_sum(lt, dd_mul(fa, pb));
        tv = dd_add(tv, fabs(pa - pb));
        fa = dd_add(fa, pa);
        fb = dd_add(fb, pb);
        diff = dd_add(dd_add(diff, pa), -pb);
        double d = dd_abs(diff);
        ks = d > ks ? d : ks;
        int64_t next = i >= ma->n ? (j < mb->n ? mb->v[j] : x)
                       : j >= mb->n || ma->v[i] <= mb->v[j] ? ma->v[i] : mb->v[j];
        if (next > x) {
            ddouble ad = diff.hi < 0 ? dd_neg(diff) : diff;
            emd = dd_sum(emd, dd_mul(ad, (double)((uint64_t)next - (uint64_t)x)));
        }
    }
    double half = dd_round(tv) / 2;
    out->p_greater = dd_round(gt);
    out->p_equal = dd_round(eq);
    out->p_less = dd_round(lt);
    out->tv = half > 1 ? 1 : half;
    out->ks = ks > 1 ? 1 : ks;
    out->emd = dd_round(emd);
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
    double units = (double)(a->pmf.n + b->pmf.n) * VERSUS_UNIT;
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
        st = alea__frac_versus(ctx, &a->pmf, &b->pmf, x, o);
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
