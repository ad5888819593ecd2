/*
 * dist.c -- the public distribution object (alea_dist): made from a pmf at
 * the end of an evaluation, its accessors, and its JSON formatter.
 */
#include "dist.h"
#include "ddouble.h"
#include "fractions/frac.h"
#include "pmf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

/* ---- the public distribution object ------------------------------------------------ */

/*
 * Exact counts. A distribution in doubles is most often a fraction of
 * whole counts over a small denominator (the faces of its dice: 4d6kh3's
 * 1296, dd(6, 14)'s 20) with each probability the nearest double to its
 * count over it, or within a few ulps of it. When those counts can be
 * recovered (and add up to the denominator exactly), every statistic is
 * computed from them: the cumulative columns are exact fractions rounded
 * once (1 at the bottom, never above), the median compares whole numbers,
 * and the mean and sd are the nearest doubles to the true ones
 * (dd(6, 14)'s 33/20 is 1.65, where the sum of its rounded probabilities
 * is 1.6500000000000001). COUNT_DEN_MAX bounds the denominator so that
 * the counts and their sums stay exact in doubles and 64-bit integers.
 */
#define COUNT_DEN_MAX 4294967296.0 /* 2^32 */
/* How far a probability may be from its count's fraction: the engine's
 * arithmetic leaves a few ulps of rounding in some (2d20kh1's 1/400 is
 * 0.0025000000000000014), and 2^-46 of p (about 100 ulps) still puts a
 * count of at most 2^32 within 2^-14 of p times the denominator. */
#define COUNT_REL 0x1p-46

static int near_count(double x, double p)
{
    return fabs(x - p) <= p * COUNT_REL;
}

/* The fraction num/den (den <= COUNT_DEN_MAX) that p is within COUNT_REL
 * of, 0 < p <= 1: the first convergent of p's continued fraction that is
 * (a fraction with den^2 well below 1/ulp(p) is one, by Legendre's
 * theorem); 0 if none. */
static double fraction_of(double p, double *num)
{
    double h0 = 0, h1 = 1, k0 = 1, k1 = 0, x = p;
    for (int it = 0; it < 64; it++) {
        double a = floor(x);
        double h = a * h1 + h0, k = a * k1 + k0;
        if (k > COUNT_DEN_MAX)
            return 0;
        if (k > 0 && near_count(h / k, p)) {
            *num = h;
            return k;
        }
        double f = x - a;
        if (!(f > 0))
            return 0;
        x = 1 / f;
        h0 = h1;
        h1 = h;
        k0 = k1;
        k1 = k;
    }
    return 0;
}

/* The common denominator of m's probabilities when each is the nearest
 * double of a count over it, and the counts add up to it (nothing was cut
 * off); 0 otherwise. Outcome i's count is then p[i] times it, rounded. */
static double count_denominator(const alea__pmf *m)
{
    if (m->n == 0 || m->trunc > 0)
        return 0;
    uint64_t den = 1;
    double last = -1;
    for (size_t i = 0; i < m->n; i++) {
        if (m->p[i] == last) /* a uniform die: the same fraction again */
            continue;
        last = m->p[i];
        double num, b = fraction_of(last, &num);
        if (b == 0)
            return 0;
        uint64_t bb = (uint64_t)b, g = alea__gcd(den, bb);
        if ((double)(den / g) * b > COUNT_DEN_MAX)
            return 0;
        den = den / g * bb;
    }
    double D = (double)den;
    uint64_t total = 0;
    for (size_t i = 0; i < m->n; i++) {
        double c = nearbyint(m->p[i] * D);
        if (!near_count(c / D, m->p[i]))
            return 0;
        total += (uint64_t)c;
        if (total > den)
            return 0;
    }
    return total == den ? D : 0;
}

/* Outcome i's weight in the statistics: its count, or its probability. */
static double weight(const alea_dist *d, size_t i)
{
    return d->den > 0 ? nearbyint(d->pmf.p[i] * d->den) : d->pmf.p[i];
}

/* The mean and the sd of d's outcomes, normalised by their total weight,
 * into d->mass (of the probabilities), d->mean, d->sd. */
static void moments(alea_dist *d)
{
    const alea__pmf *m = &d->pmf;
    ddouble w = {0, 0}, s = {0, 0}, mass = {0, 0};
    for (size_t i = 0; i < m->n; i++) {
        double c = weight(d, i);
        w = dd_add(w, c);
        mass = dd_add(mass, m->p[i]);
        s = dd_sum(s, dd_prod(c, (double)m->v[i]));
    }
    d->mass = dd_round(mass);
    d->mean = d->sd = 0;
    if (!(w.hi > 0))
        return;
    ddouble mean = dd_div(s, w), var = {0, 0};
    for (size_t i = 0; i < m->n; i++) {
        ddouble dv = dd_add((ddouble){-mean.hi, -mean.lo}, (double)m->v[i]);
        ddouble sq = dd_mul(dd_mul(dv, dv.hi), weight(d, i));
        var = dd_sum(var, sq);
        var = dd_sum(var, dd_mul(dd_prod(dv.lo, weight(d, i)), dv.hi));
    }
    var = dd_div(var, w);
    d->mean = dd_round(mean);
    if (var.hi > 0) { /* the root of hi + lo: one Newton step from sqrt(hi) */
        double r = sqrt(var.hi);
        d->sd = r + (fma(-r, r, var.hi) + var.lo) / (2 * r);
    }
}

static void cumulate(const alea_dist *d, double *cum);

alea_status alea__dist_make(alea_ctx *ctx, alea__pmf *pmf, const char *src, size_t len,
                            alea_dist **out)
{
    if (len > SIZE_MAX - sizeof(alea_dist) - 1)
        return alea__nomem(ctx);
    alea_dist *d = alea__mem_alloc(ctx, sizeof *d + len + 1);
    if (!d)
        return alea__nomem(ctx);
    d->ctx = ctx;
    d->pmf = *pmf;
    memset(&d->notes, 0, sizeof d->notes);
    d->samples = 0;
    d->rolls = 1;
    memset(pmf, 0, sizeof *pmf);
    d->len = len;
    if (len)
        memcpy(d->src, src, len);
    d->src[len] = '\0';
    /* Rounding can leave a certain outcome a hair above 1 (42d6 * 0 adds
     * up 211 probabilities): a probability is at most 1. */
    for (size_t i = 0; i < d->pmf.n; i++)
        if (d->pmf.p[i] > 1)
            d->pmf.p[i] = 1;
    d->den = ctx->exact ? 0 : count_denominator(&d->pmf);
    /* with exact counts, each probability is the nearest double to its
     * fraction (2d20kh1's 1/400 is 0.0025, not 0.0025000000000000014) */
    for (size_t i = 0; d->den > 0 && i < d->pmf.n; i++)
        d->pmf.p[i] = weight(d, i) / d->den;
    moments(d);
    d->fracs = ctx->exact;
    d->exact = ctx->exact && !ctx->precise;
    d->sci = NULL;
    d->cum = NULL;
    d->incomplete = NULL;
    memset(&d->tree, 0, sizeof d->tree);
    d->tree.lo_inf = d->tree.hi_inf = 1;
    if (d->fracs) {
        alea_status st = alea__frac_dist(ctx, d);
        if (st == ALEA_OK && (st = alea__frac_sci(ctx, d)) != ALEA_OK)
            alea__frac_dist_free(d);
        if (st != ALEA_OK) {
            *pmf = d->pmf;
            alea__mem_free(ctx, d, sizeof *d + len + 1);
            return st;
        }
    } else if (d->pmf.n) {
        /* The evaluation is over: its spare blocks go first, so that the
         * columns never raise the peak above what the result needs. */
        alea__spare_flush(ctx);
        d->cum = alea__mem_alloc(ctx, alea__mul_size(d->pmf.n, 2 * sizeof(double)));
        if (!d->cum) {
            *pmf = d->pmf;
            alea__mem_free(ctx, d, sizeof *d + len + 1);
            return alea__nomem(ctx);
        }
        cumulate(d, d->cum);
    }
    *out = d;
    return ALEA_OK;
}

void alea_dist_free(alea_dist *dist)
{
    if (!dist)
        return;
    alea_ctx *ctx = dist->ctx;
    if (dist->cum)
        alea__mem_free(ctx, dist->cum, alea__mul_size(dist->pmf.n, 2 * sizeof(double)));
    if (dist->sci)
        alea__mem_free(ctx, dist->sci, alea__mul_size(dist->pmf.n ? dist->pmf.n : 1,
                                                      3 * sizeof(alea__sci)));
    if (dist->fracs) {
        alea__frac_dist_free(dist);
        alea__frac_clear(ctx, &dist->pmf, 0);
        alea__frac_release(ctx);
    }
    if (dist->pmf.n) /* not a spare: the evaluation has ended */
        alea__mem_free(ctx, dist->pmf.v, dist->pmf.bytes);
    alea__mem_free(ctx, dist, sizeof *dist + dist->len + 1);
}

size_t alea_dist_count(const alea_dist *dist)
{
    return dist ? dist->pmf.n : 0;
}

int64_t alea_dist_value(const alea_dist *dist, size_t i)
{
    return dist && i < dist->pmf.n ? dist->pmf.v[i] : 0;
}

double alea_dist_prob(const alea_dist *dist, size_t i)
{
    return dist && i < dist->pmf.n ? dist->pmf.p[i] : 0;
}

/* Index of the first outcome with value >= v (n if none). */
static size_t lower_bound(const alea__pmf *m, int64_t v)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t alea__dist_index(const alea_dist *dist, int64_t v)
{
    size_t i = lower_bound(&dist->pmf, v);
    return i < dist->pmf.n && dist->pmf.v[i] == v ? i : dist->pmf.n;
}

double alea_dist_p(const alea_dist *dist, int64_t v)
{
    if (!dist)
        return 0;
    size_t i = lower_bound(&dist->pmf, v);
    return i < dist->pmf.n && dist->pmf.v[i] == v ? dist->pmf.p[i] : 0;
}

/*
 * The cumulative columns: P(X >= value i) and P(X <= value i). With exact
 * counts, a sum of them over the denominator, rounded once. Else each is
 * summed (double-double) from its small end while it is at most half the
 * mass, and is the mass (1 less what was cut) less the other column's sum
 * past that, so that both are the whole mass at their far end, and never
 * leave [0, 1]. The sums of the first `upto` (i) outcomes and of those
 * from i on (*above) are given.
 */
static double column(const alea_dist *d, ddouble below, ddouble above, int least)
{
    double whole = 1 - d->pmf.trunc;
    double x;
    if (d->den > 0) {
        x = (least ? above.hi : below.hi) / d->den;
    } else {
        ddouble mine = least ? above : below, other = least ? below : above;
        x = dd_round(other) <= whole / 2 ? dd_round(dd_add((ddouble){-other.hi, -other.lo}, whole))
                                          : dd_round(mine);
    }
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

double alea_dist_at_least(const alea_dist *dist, int64_t v)
{
    if (!dist)
        return 0;
    size_t first = lower_bound(&dist->pmf, v);
    if (first >= dist->pmf.n)
        return 0;
    if (dist->sci) /* recomputed in fractions: the nearest double */
        return dist->sci[3 * first + 1].d;
    return dist->cum[2 * first];
}

double alea_dist_at_most(const alea_dist *dist, int64_t v)
{
    if (!dist)
        return 0;
    size_t end = v == INT64_MAX ? dist->pmf.n : lower_bound(&dist->pmf, v + 1);
    if (end == 0)
        return 0;
    if (dist->sci)
        return dist->sci[3 * (end - 1) + 2].d;
    return dist->cum[2 * (end - 1) + 1];
}

void alea_dist_luck(const alea_dist *dist, int64_t total, double *at_most, double *at_least)
{
    if (at_most)
        *at_most = alea_dist_at_most(dist, total);
    if (at_least)
        *at_least = alea_dist_at_least(dist, total);
}

double alea_dist_mean(const alea_dist *dist)
{
    return dist ? dist->mean : 0;
}

double alea_dist_sd(const alea_dist *dist)
{
    return dist ? dist->sd : 0;
}

/*
 * One end of the support (hi: its greatest value), and *open set when it is
 * not known: then the listed end, which the expression may pass. The
 * outcomes listed reach both ends unless rare ones were missed in doubles
 * (incomplete), a chain was cut (truncated) or they were sampled; else the
 * tree's bound where a roll reaches it (bounds.c), or the listed end where
 * the tree says nothing lies past it. (An incomplete operand's listed end
 * is no bound, so a pmf's own are not used here.)
 */
static int64_t support_end(const alea_dist *d, int hi, int *open)
{
    const alea__pmf *m = &d->pmf;
    const alea__range *t = &d->tree;
    int64_t listed = m->n ? m->v[hi ? m->n - 1 : 0] : 0;
    *open = 0;
    if (!d->incomplete && m->trunc == 0 && !d->samples && m->n)
        return listed;
    int inf = hi ? t->hi_inf : t->lo_inf, at = hi ? t->hi_at : t->lo_at;
    int64_t bound = hi ? t->hi : t->lo;
    if (!inf && at)
        return bound;
    if (!inf && m->n && bound == listed)
        return listed;
    *open = 1;
    return listed;
}

int64_t alea_dist_min(const alea_dist *dist)
{
    int open;
    return dist ? support_end(dist, 0, &open) : 0;
}

int64_t alea_dist_max(const alea_dist *dist)
{
    int open;
    return dist ? support_end(dist, 1, &open) : 0;
}

unsigned alea_dist_open(const alea_dist *dist)
{
    int lo = 0, hi = 0;
    if (dist) {
        support_end(dist, 0, &lo);
        support_end(dist, 1, &hi);
    }
    return (lo ? ALEA_OPEN_MIN : 0u) | (hi ? ALEA_OPEN_MAX : 0u);
}

int64_t alea_dist_percentile(const alea_dist *dist, double q)
{
    if (!dist || dist->pmf.n == 0)
        return 0;
    const alea__pmf *m = &dist->pmf;
    if (!(q > 0))
        return m->v[0];
    if (dist->den > 0) { /* whole counts: count <= q den, exactly (fma's sign) */
        double s = 0;
        for (size_t i = 0; i < m->n; i++) {
            s += weight(dist, i);
            if (fma(-q, dist->den, s) >= 0)
                return m->v[i];
        }
        return m->v[m->n - 1];
    }
    if (dist->sci) { /* fractions: their nearest doubles of P(X <= v) */
        double whole = dist->sci[3 * (m->n - 1) + 2].d;
        for (size_t i = 0; i < m->n; i++)
            if (dist->sci[3 * i + 2].d >= q * whole)
                return m->v[i];
        return m->v[m->n - 1];
    }
    /* P(X <= v) >= q of the mass, with a relative allowance for the rounding
     * of the probabilities themselves (1d6 in doubles: 3 * (1/6) may fall
     * below 1/2). */
    double goal = q * dist->mass * (1 - 1e-12);
    ddouble s = {0, 0};
    for (size_t i = 0; i < m->n; i++) {
        s = dd_add(s, m->p[i]);
        if (dd_round(s) >= goal)
            return m->v[i];
    }
    return m->v[m->n - 1];
}

int64_t alea_dist_median(const alea_dist *dist)
{
    return alea_dist_percentile(dist, 0.5);
}

uint64_t alea_dist_samples(const alea_dist *dist)
{
    return dist ? dist->samples : 0;
}

/* z for a two-sided 95% interval */
#define Z95 1.959963984540054

void alea_dist_interval(const alea_dist *dist, size_t i, double *lo, double *hi)
{
    double p = alea_dist_prob(dist, i), l = p, h = p;
    if (dist && dist->samples > 0) {
        /* Wilson's score interval: sound near 0 and 1, unlike p +- z sd */
        double n = (double)dist->samples, z2 = Z95 * Z95;
        double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
        double half = Z95 * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
        l = centre - half < 0 ? 0 : centre - half;
        h = centre + half > 1 ? 1 : centre + half;
    }
    if (lo)
        *lo = l;
    if (hi)
        *hi = h;
}

double alea_dist_truncated(const alea_dist *dist)
{
    return dist ? dist->pmf.trunc : 0;
}

/* The cumulative columns of d in doubles, into cum: P(X >= value i) at
 * 2i, P(X <= value i) at 2i + 1. Two passes: the sums from the top (kept in
 * cum as they go, then replaced), and the sums from the bottom, with which
 * both columns are made. The double-double sum from the top is carried as
 * its rounded value and error in the row's two cells. */
static void cumulate(const alea_dist *d, double *cum)
{
    size_t n = d->pmf.n;
    ddouble above = {0, 0};
    for (size_t i = n; i-- > 0;) {
        above = dd_add(above, weight(d, i));
        cum[2 * i] = above.hi;
        cum[2 * i + 1] = above.lo;
    }
    ddouble below = {0, 0};
    for (size_t i = 0; i < n; i++) {
        ddouble from_i = {cum[2 * i], cum[2 * i + 1]};
        ddouble to_i = dd_add(below, weight(d, i));
        ddouble past = i + 1 < n ? (ddouble){cum[2 * i + 2], cum[2 * i + 3]} : (ddouble){0, 0};
        cum[2 * i] = column(d, below, from_i, 1);
        cum[2 * i + 1] = column(d, to_i, past, 0);
        below = to_i;
    }
}

void alea_dist_cumulate(const alea_dist *dist, double *least, double *most)
{
    if (!dist)
        return;
    const alea__pmf *m = &dist->pmf;
    for (size_t i = 0; i < m->n; i++) {
        if (dist->sci) { /* recomputed in fractions: the nearest doubles */
            least[i] = dist->sci[3 * i + 1].d;
            most[i] = dist->sci[3 * i + 2].d;
        } else {
            least[i] = dist->cum[2 * i];
            most[i] = dist->cum[2 * i + 1];
        }
    }
}

/* Below this a probability in doubles has lost digits (subnormal) or is 0:
 * a recomputed distribution prints it from its fractions. */
#define SCI_BELOW 1e-290

int64_t alea_dist_sci(const alea_dist *dist, alea_fraction what, size_t i, double *mant)
{
    double m = 0;
    int64_t e = 0;
    if (dist && i < dist->pmf.n && (unsigned)what <= ALEA_FRACTION_AT_MOST) {
        if (dist->sci) {
            alea__sci s = dist->sci[3 * i + (size_t)what];
            m = s.m;
            e = s.e;
        } else {
            int64_t v = dist->pmf.v[i];
            double p = what == ALEA_FRACTION_PROB       ? dist->pmf.p[i]
                       : what == ALEA_FRACTION_AT_LEAST ? alea_dist_at_least(dist, v)
                                                        : alea_dist_at_most(dist, v);
            if (p > 0) {
                alea__sci s = alea__sci_of(p);
                m = s.m;
                e = s.e;
            }
        }
    }
    if (mant)
        *mant = m;
    return e;
}

const char *alea_dist_incomplete(const alea_dist *dist)
{
    return dist ? dist->incomplete : NULL;
}

/* A probability in JSON or CSV: its shortest double, or below the double
 * range, from a recomputed distribution's fractions, 12 digits
 * ("4.90909346530e-391"). */
static void out_prob(const alea_dist *dist, alea__out *o, alea_fraction what, size_t i,
                     double p)
{
    if (!dist->sci || p >= SCI_BELOW) {
        alea__out_double(o, p);
        return;
    }
    alea__sci s = dist->sci[3 * i + (size_t)what];
    char buf[48];
    int len = snprintf(buf, sizeof buf, "%.11fe%lld", s.m, (long long)s.e);
    if (s.m == 0)
        len = snprintf(buf, sizeof buf, "0");
    else if (buf[0] == '1' && buf[1] == '0') /* 9.999999999996 rounded up */
        len = snprintf(buf, sizeof buf, "%.11fe%lld", 1.0, (long long)s.e + 1);
    alea__out_mem(o, buf, (size_t)len);
}

/* A CSV row's cells in doubles: the probability (a run of equal ones, a
 * uniform die, reuses the last text), the cumulative columns, and for an
 * estimate its 95% interval. */
typedef struct csv_doubles {
    const alea_dist *dist;
    const double *least, *most;
    int est;
    char ptext[32];
    size_t plen;
    double last;
} csv_doubles;

static void csv_cells(void *ud, size_t i, alea__out *o)
{
    csv_doubles *c = ud;
    const alea_dist *dist = c->dist;
    const alea__pmf *m = &dist->pmf;
    if (dist->sci && m->p[i] < SCI_BELOW) {
        out_prob(dist, o, ALEA_FRACTION_PROB, i, m->p[i]);
    } else {
        if (m->p[i] != c->last) {
            c->last = m->p[i];
            c->plen = alea__fmt_double(c->ptext, c->last);
        }
        alea__out_mem(o, c->ptext, c->plen);
    }
    alea__out_char(o, ',');
    out_prob(dist, o, ALEA_FRACTION_AT_LEAST, i, c->least[i]);
    alea__out_char(o, ',');
    out_prob(dist, o, ALEA_FRACTION_AT_MOST, i, c->most[i]);
    if (c->est) {
        double lo, hi;
        alea_dist_interval(dist, i, &lo, &hi);
        alea__out_char(o, ',');
        alea__out_double(o, lo);
        alea__out_char(o, ',');
        alea__out_double(o, hi);
    }
}

/* "value,probability,at_least,at_most[,low95,high95]", a row per outcome.
 * Returns 0 when the cumulative columns find no memory. */
static size_t format_csv(const alea_dist *dist, alea__out *o)
{
    const alea__pmf *m = &dist->pmf;
    size_t bytes = alea__mul_size(m->n ? m->n : 1, 2 * sizeof(double));
    double *least = alea__mem_alloc(dist->ctx, bytes);
    if (!least)
        return 0;
    double *most = least + (m->n ? m->n : 1);
    alea_dist_cumulate(dist, least, most);
    csv_doubles c = {.dist = dist, .least = least, .most = most, .est = dist->samples > 0,
                     .last = -1};
    alea__out_str(o, c.est ? "value,probability,at_least,at_most,low95,high95\n"
                           : "value,probability,at_least,at_most\n");
    alea__out_csv_rows(o, m->v, m->n, csv_cells, &c);
    alea__mem_free(dist->ctx, least, bytes);
    return alea__out_finish(o);
}

int alea_dist_is_exact(const alea_dist *dist)
{
    return dist ? dist->exact : 0;
}

size_t alea_dist_fraction(const alea_dist *dist, alea_fraction what, size_t i, char *buf,
                          size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (dist && dist->exact && (unsigned)what <= ALEA_FRACTION_TRUNCATED)
        alea__frac_value(dist, what, i, &o);
    return alea__out_finish(&o);
}

/* A probability in JSON: a number, or in exact mode the string "num/den". */
static void json_prob(const alea_dist *dist, alea__out *o, alea_fraction what, size_t i)
{
    alea__out_char(o, '"');
    alea__frac_value(dist, what, i, o);
    alea__out_char(o, '"');
}

static size_t format_json(const alea_dist *dist, alea__out *o);

size_t alea_dist_format(const alea_dist *dist, alea_format format, char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (!dist || !alea__out_init_format(&o, buf, cap, dist->ctx, format))
        return alea__out_finish(&o);
    if (format == ALEA_FORMAT_CSV && dist->exact)
        alea__frac_csv(dist, &o);
    else if (format == ALEA_FORMAT_CSV)
        format_csv(dist, &o);
    else
        format_json(dist, &o);
    return alea__out_format_end(&o, dist->ctx, format, "distribution", dist->len);
}

static size_t format_json(const alea_dist *dist, alea__out *o)
{
    const alea__pmf *m = &dist->pmf;
    alea__out_str(o, "{\"expression\": ");
    alea__out_json_str(o, dist->src, dist->len);
    alea__out_str(o, ", \"outcomes\": [");
    /* Runs of equal probabilities (a uniform die) reuse the last text. */
    char ptext[32];
    size_t plen = 0;
    double last = -1;
    for (size_t i = 0; i < m->n && o->len <= o->limit; i++) {
        alea__out_str(o, i ? ", [" : "[");
        alea__out_i64(o, m->v[i]);
        alea__out_str(o, ", ");
        if (dist->exact) {
            json_prob(dist, o, ALEA_FRACTION_PROB, i);
        } else if (dist->sci && m->p[i] < SCI_BELOW) {
            out_prob(dist, o, ALEA_FRACTION_PROB, i, m->p[i]);
        } else {
            if (m->p[i] != last) {
                last = m->p[i];
                plen = alea__fmt_double(ptext, last);
            }
            alea__out_mem(o, ptext, plen);
        }
        alea__out_char(o, ']');
    }
    alea__out_str(o, "], \"mean\": ");
    if (dist->exact)
        json_prob(dist, o, ALEA_FRACTION_MEAN, 0);
    else
        alea__out_double(o, dist->mean);
    if (dist->exact) {
        alea__out_str(o, ", \"variance\": ");
        json_prob(dist, o, ALEA_FRACTION_VARIANCE, 0);
    }
    alea__out_str(o, ", \"sd\": ");
    alea__out_double(o, dist->sd);
    alea__out_str(o, ", \"min\": ");
    alea__out_i64(o, alea_dist_min(dist));
    alea__out_str(o, ", \"max\": ");
    alea__out_i64(o, alea_dist_max(dist));
    unsigned open = alea_dist_open(dist);
    if (open) /* ends the expression can pass: the outcomes listed stop there */
        alea__out_str(o, open == ALEA_OPEN_MIN   ? ", \"open\": [\"min\"]"
                         : open == ALEA_OPEN_MAX ? ", \"open\": [\"max\"]"
                                                 : ", \"open\": [\"min\", \"max\"]");
    alea__out_str(o, ", \"truncated\": ");
    if (dist->exact)
        json_prob(dist, o, ALEA_FRACTION_TRUNCATED, 0);
    else
        alea__out_double(o, m->trunc);
    if (dist->exact)
        alea__out_str(o, ", \"exact\": true");
    if (dist->incomplete) {
        alea__out_str(o, ", \"incomplete\": ");
        alea__out_json_str(o, dist->incomplete, strlen(dist->incomplete));
    }
    if (dist->notes.nlabels > 0) {
        alea__out_str(o, ", \"labels\": [");
        for (size_t i = 0; i < m->n && o->len <= o->limit; i++) {
            alea__out_str(o, i ? ", [" : "[");
            alea__out_i64(o, m->v[i]);
            alea__out_str(o, ", \"");
            alea__out_str(o, alea_dist_label(dist, m->v[i]));
            alea__out_str(o, "\"]");
        }
        alea__out_char(o, ']');
    }
    if (dist->samples > 0) {
        /* An estimate: how many samples, and each probability's 95% interval */
        alea__out_str(o, ", \"samples\": ");
        alea__out_i64(o, (int64_t)dist->samples);
        alea__out_str(o, ", \"intervals\": [");
        for (size_t i = 0; i < m->n && o->len <= o->limit; i++) {
            double lo, hi;
            alea_dist_interval(dist, i, &lo, &hi);
            alea__out_str(o, i ? ", [" : "[");
            alea__out_double(o, lo);
            alea__out_str(o, ", ");
            alea__out_double(o, hi);
            alea__out_char(o, ']');
        }
        alea__out_char(o, ']');
    }
    if (dist->rolls > 1) {
        alea__out_str(o, ", \"rolls\": ");
        alea__out_i64(o, dist->rolls);
    }
    if (alea_dist_flag_count(dist) > 0) {
        alea__out_str(o, ", \"flags\": {");
        for (size_t i = 0; i < alea_dist_flag_count(dist); i++) {
            alea__out_str(o, i ? ", \"" : "\"");
            alea__out_str(o, alea_dist_flag_name(dist, i));
            alea__out_str(o, "\": ");
            alea__out_double(o, alea_dist_flag_prob(dist, i));
        }
        alea__out_char(o, '}');
    }
    alea__out_char(o, '}');
    return alea__out_finish(o);
}

const char *alea_dist_label(const alea_dist *dist, int64_t v)
{
    if (!dist || v < 0 || (uint64_t)v >= dist->notes.nlabels)
        return NULL;
    return dist->notes.labels[v];
}

int64_t alea_dist_rolls(const alea_dist *dist)
{
    return dist ? dist->rolls : 1;
}

size_t alea_dist_flag_count(const alea_dist *dist)
{
    return dist ? dist->notes.nflags : 0;
}

const char *alea_dist_flag_name(const alea_dist *dist, size_t i)
{
    return i < alea_dist_flag_count(dist) ? dist->notes.flag_name[i] : NULL;
}

double alea_dist_flag_prob(const alea_dist *dist, size_t i)
{
    return i < alea_dist_flag_count(dist) ? dist->notes.flag_p[i] : 0.0;
}

alea_status alea__dist_expect(const alea_dist *d,
                              alea_status (*f)(int64_t v, void *ud, double *x), void *ud,
                              double *mean)
{
    double sum = 0, mass = 0;
    for (size_t i = 0; i < d->pmf.n; i++) {
        double x;
        alea_status st = f(d->pmf.v[i], ud, &x);
        if (st != ALEA_OK)
            return st;
        sum += d->pmf.p[i] * x;
        mass += d->pmf.p[i];
    }
    *mean = mass > 0 ? sum / mass : 0;
    return ALEA_OK;
}

/* The public expectation: the caller's function, and the outcome it was
 * last called with, for the message of a status it returns. */
typedef struct expect_call {
    alea_status (*f)(int64_t v, void *ud, double *x);
    void *ud;
    int64_t at;
} expect_call;

static alea_status expect_one(int64_t v, void *ud, double *x)
{
    expect_call *c = ud;
    c->at = v;
    return c->f(v, c->ud, x);
}

alea_status alea_dist_expect(alea_ctx *ctx, const alea_dist *dist,
                             alea_status (*f)(int64_t outcome, void *ud, double *x), void *ud,
                             double *out)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__clear_error(ctx);
    if (!dist || !f || !out)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "alea_dist_expect: NULL argument");
    expect_call c = {f, ud, 0};
    double mean;
    alea_status st = alea__dist_expect(dist, expect_one, &c, &mean);
    if (st != ALEA_OK) {
        const char *name = alea_status_name(st);
        if ((unsigned)st >= ALEA_STATUS__COUNT) /* not a status: the caller's mistake */
            st = ALEA_ERR_ARGUMENT;
        return alea__error(ctx, st, 0, 0, "alea_dist_expect: the function returned %s for %lld",
                           name, (long long)c.at);
    }
    *out = mean;
    return ALEA_OK;
}
