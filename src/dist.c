/*
 * dist.c -- the public distribution object (alea_dist): made from a pmf at
 * the end of an evaluation, its accessors, and its JSON formatter.
 */
#include "dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

/* ---- the public distribution object ------------------------------------------------ */

/* s += x, with the rounding error of each addition kept in *c. */
static void neumaier(double *s, double *c, double x)
{
    double t = *s + x;
    *c += fabs(*s) >= fabs(x) ? (*s - t) + x : (x - t) + *s;
    *s = t;
}

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
    const alea__pmf *m = &d->pmf;
    /* Sums with their rounding errors carried (Neumaier), so that a mean is
     * as near its true value as the probabilities allow: 3d6's 10.5, not
     * 10.500000000000004. */
    double mass = 0, cmass = 0, mean = 0, cmean = 0, var = 0;
    for (size_t i = 0; i < m->n; i++) {
        neumaier(&mass, &cmass, m->p[i]);
        neumaier(&mean, &cmean, (double)m->v[i] * m->p[i]);
    }
    mass += cmass;
    if (mass > 0) {
        mean = (mean + cmean) / mass;
        double cvar = 0;
        for (size_t i = 0; i < m->n; i++) {
            double dv = (double)m->v[i] - mean;
            neumaier(&var, &cvar, dv * dv * m->p[i]);
        }
        var = (var + cvar) / mass;
    } else {
        mean = 0;
    }
    d->mass = mass;
    d->mean = mean;
    d->sd = sqrt(var);
    d->fracs = ctx->exact;
    d->exact = ctx->exact && !ctx->precise;
    d->sci = NULL;
    d->incomplete = NULL;
    if (d->fracs) {
        alea_status st = alea__frac_dist(ctx, d);
        if (st == ALEA_OK && (st = alea__frac_sci(ctx, d)) != ALEA_OK)
            alea__frac_dist_free(d);
        if (st != ALEA_OK) {
            *pmf = d->pmf;
            alea__mem_free(ctx, d, sizeof *d + len + 1);
            return st;
        }
    }
    *out = d;
    return ALEA_OK;
}

void alea_dist_free(alea_dist *dist)
{
    if (!dist)
        return;
    alea_ctx *ctx = dist->ctx;
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

double alea_dist_p(const alea_dist *dist, int64_t v)
{
    if (!dist)
        return 0;
    size_t i = lower_bound(&dist->pmf, v);
    return i < dist->pmf.n && dist->pmf.v[i] == v ? dist->pmf.p[i] : 0;
}

double alea_dist_at_least(const alea_dist *dist, int64_t v)
{
    if (!dist)
        return 0;
    double s = 0;
    size_t first = lower_bound(&dist->pmf, v);
    if (dist->sci) /* recomputed in fractions: the nearest double */
        return first < dist->pmf.n ? dist->sci[3 * first + 1].d : 0;
    for (size_t i = dist->pmf.n; i-- > first;)
        s += dist->pmf.p[i];
    return s;
}

double alea_dist_at_most(const alea_dist *dist, int64_t v)
{
    if (!dist)
        return 0;
    double s = 0;
    size_t end = v == INT64_MAX ? dist->pmf.n : lower_bound(&dist->pmf, v + 1);
    if (dist->sci)
        return end > 0 ? dist->sci[3 * (end - 1) + 2].d : 0;
    for (size_t i = 0; i < end; i++)
        s += dist->pmf.p[i];
    return s;
}

double alea_dist_mean(const alea_dist *dist)
{
    return dist ? dist->mean : 0;
}

double alea_dist_sd(const alea_dist *dist)
{
    return dist ? dist->sd : 0;
}

int64_t alea_dist_min(const alea_dist *dist)
{
    return dist && dist->pmf.n ? dist->pmf.v[0] : 0;
}

int64_t alea_dist_max(const alea_dist *dist)
{
    return dist && dist->pmf.n ? dist->pmf.v[dist->pmf.n - 1] : 0;
}

int64_t alea_dist_median(const alea_dist *dist)
{
    if (!dist || dist->pmf.n == 0)
        return 0;
    /* P(X <= v) >= 1/2 of the mass, with a relative allowance for the
     * rounding of the running sum (1d6: 3 * (1/6) may round below 1/2). */
    double half = 0.5 * dist->mass * (1 - 1e-12), s = 0;
    for (size_t i = 0; i < dist->pmf.n; i++) {
        s += dist->pmf.p[i];
        if (s >= half)
            return dist->pmf.v[i];
    }
    return dist->pmf.v[dist->pmf.n - 1];
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

void alea_dist_cumulate(const alea_dist *dist, double *least, double *most)
{
    if (!dist)
        return;
    const alea__pmf *m = &dist->pmf;
    double s = 0;
    if (dist->sci) { /* recomputed in fractions: the nearest doubles */
        for (size_t i = 0; i < m->n; i++) {
            least[i] = dist->sci[3 * i + 1].d;
            most[i] = dist->sci[3 * i + 2].d;
        }
        return;
    }
    for (size_t i = 0; i < m->n; i++)
        most[i] = s += m->p[i];
    s = 0;
    for (size_t i = m->n; i-- > 0;)
        least[i] = s += m->p[i];
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
                e = (int64_t)floor(log10(p));
                m = p / pow(10, (double)e);
                if (m >= 10) {
                    m /= 10;
                    e++;
                } else if (m < 1) {
                    m *= 10;
                    e--;
                }
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
    int est = dist->samples > 0;
    alea__out_str(o, est ? "value,probability,at_least,at_most,low95,high95\n"
                         : "value,probability,at_least,at_most\n");
    char ptext[32];
    size_t plen = 0;
    double last = -1;
    for (size_t i = 0; i < m->n && o->len <= o->limit; i++) {
        alea__out_i64(o, m->v[i]);
        alea__out_char(o, ',');
        if (dist->sci && m->p[i] < SCI_BELOW) {
            out_prob(dist, o, ALEA_FRACTION_PROB, i, m->p[i]);
        } else {
            if (m->p[i] != last) { /* a uniform die: the same text again */
                last = m->p[i];
                plen = alea__fmt_double(ptext, last);
            }
            alea__out_mem(o, ptext, plen);
        }
        alea__out_char(o, ',');
        out_prob(dist, o, ALEA_FRACTION_AT_LEAST, i, least[i]);
        alea__out_char(o, ',');
        out_prob(dist, o, ALEA_FRACTION_AT_MOST, i, most[i]);
        if (est) {
            double lo, hi;
            alea_dist_interval(dist, i, &lo, &hi);
            alea__out_char(o, ',');
            alea__out_double(o, lo);
            alea__out_char(o, ',');
            alea__out_double(o, hi);
        }
        alea__out_char(o, '\n');
    }
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

/* A text past the OUTPUT limit: nothing of it, and the error in the
 * context that computed the distribution. */
static size_t refuse_output(const alea_dist *dist, alea__out *o, const char *what)
{
    long long limit = (long long)dist->ctx->limits[ALEA_LIMIT_OUTPUT];
    alea__error(dist->ctx, ALEA_ERR_LIMIT, 0, dist->len,
                "too much output: the distribution's %s passes %lld bytes (output limit is "
                "%lld)",
                what, limit, limit);
    if (o->cap > 0)
        o->buf[0] = '\0';
    return 0;
}

static size_t format_json(const alea_dist *dist, alea__out *o);

size_t alea_dist_format(const alea_dist *dist, alea_format format, char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (!dist || (format != ALEA_FORMAT_CSV && format != ALEA_FORMAT_JSON))
        return alea__out_finish(&o);
    int64_t limit = dist->ctx->limits[ALEA_LIMIT_OUTPUT];
    o.limit = (uint64_t)limit < SIZE_MAX ? (size_t)limit : SIZE_MAX;
    size_t len;
    if (format == ALEA_FORMAT_CSV && dist->exact) {
        alea__frac_csv(dist, &o);
        len = alea__out_finish(&o);
    } else if (format == ALEA_FORMAT_CSV) {
        len = format_csv(dist, &o);
    } else {
        len = format_json(dist, &o);
    }
    return len > o.limit ? refuse_output(dist, &o, format == ALEA_FORMAT_CSV ? "CSV" : "JSON")
                         : len;
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
