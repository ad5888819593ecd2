/*
 * pmf_w.c -- operations the algorithms ask, in the pmf's own number
 * system: each has one entry and two bodies, the doubles written here and
 * the fractions handed to the fraction module (fractions/frac.h), so that
 * keep, unique, select and exact speak only weights and pmfs.
 *
 * The binomial rows of keep's walks and the weights of its threshold
 * method are here in doubles for the same reason: keep.c asks for a row or
 * a threshold's weights and gets them in the system of its pmfs. They are
 * called once per row or per threshold, never per term.
 */
#include <math.h>

#include "pmf.h"
#include "fractions/frac.h"

/* Largest r for which C(r, k) is computed as an exact-ish product
 * (C(1000, 500) ~ 2.7e299 still fits a double). */
#define BINOM_DIRECT_MAX 1000

/* C(r, s) rho^s rhoc^(r - s), with rhoc = 1 - rho given separately. */
double alea__binom_pmf(int64_t r, int64_t s, double rho, double rhoc)
{
    int64_t s2 = s < r - s ? s : r - s;
    double ds = (double)s, dt = (double)(r - s);
    /* Each factor from the side where it is accurate: 1 - rho is exact to
     * an ulp only through log1p of the smaller one. */
    double l1 = rhoc < 0.5 ? ds * log1p(-rhoc) : ds * log(rho);
    double l2 = rho < 0.5 ? dt * log1p(-rho) : dt * log(rhoc);
    if (r <= BINOM_DIRECT_MAX) {
        double c = 1;
        for (int64_t u = 1; u <= s2; u++)
            c = c * (double)(r - s2 + u) / (double)u;
        double f1 = rhoc < 0.5 ? exp(l1) : pow(rho, ds);
        double f2 = rho < 0.5 ? exp(l2) : pow(rhoc, dt);
        double f = f1 * f2;
        if (f > 1e-290) /* no underflow: the product is as exact as it gets */
            return c * f;
        return exp(log(c) + l1 + l2);
    }
    double lc = 0;
    for (int64_t u = 1; u <= s2; u++)
        lc += log((double)(r - s2 + u) / (double)u);
    return exp(lc + l1 + l2);
}

/*
 * Built outward from the mode (or from kmax - 1 when that is below the
 * mode), so nothing overflows, and the upper tail past the mode is summed
 * term by term so that a tiny tail keeps its digits.
 */
double alea__binom_row(int64_t r, double rho, double rhoc, int64_t kmax, double *row)
{
    double up = rho / rhoc, down = rhoc / rho;
    if (rhoc <= 0 || !isfinite(up)) { /* every die left takes this outcome */
        for (int64_t k = 0; k < kmax; k++)
            row[k] = 0;
        return 1;
    }
    if (rho <= 0 || !isfinite(down)) {
        row[0] = 1;
        for (int64_t k = 1; k < kmax; k++)
            row[k] = 0;
        return 0;
    }
    double md = floor(((double)r + 1.0) * rho); /* r may be INT64_MAX */
    int64_t mode = md >= (double)r ? r : (int64_t)md;
    int64_t s = mode < kmax - 1 ? mode : kmax - 1;
    row[s] = alea__binom_pmf(r, s, rho, rhoc);
    for (int64_t k = s; k > 0; k--)
        row[k - 1] = row[k] * (double)k / (double)(r - k + 1) * down;
    for (int64_t k = s; k + 1 < kmax; k++)
        row[k + 1] = row[k] * (double)(r - k) / (double)(k + 1) * up;
    if (kmax - 1 >= mode) {
        /* Past the mode the terms shrink ever faster. */
        double term = row[kmax - 1], tail = 0;
        for (int64_t k = kmax - 1; k < r; k++) {
            term *= (double)(r - k) / (double)(k + 1) * up;
            tail += term;
            if (term <= tail * 1e-17)
                break;
        }
        return tail;
    }
    double lower = 0;
    for (int64_t k = 0; k < kmax; k++)
        lower += row[k];
    return lower >= 1 ? 0 : 1 - lower;
}


/* C(r, s) p^s q^(r - s), the ends exact */
static double binom_term(int64_t r, int64_t s, double p, double q)
{
    if (p <= 0)
        return s == 0;
    if (q <= 0)
        return s == r;
    return alea__binom_pmf(r, s, p, q);
}

int alea__w_is_zero(alea_ctx *ctx, alea__w w)
{
    return w.q ? alea__frac_sgn(ctx, w.q) == 0 : w.d == 0;
}

int alea__x_is_zero(alea_ctx *ctx, const alea__x *x)
{
    return x->has_q ? alea__frac_sgn(ctx, &x->q) == 0 : x->d == 0;
}

alea_status alea__pmf_set_w(alea_ctx *ctx, alea__pmf *d, size_t k, alea__w w, const node *at)
{
    d->p[k] = w.d;
    return d->q ? alea__frac_set(ctx, &d->q[k], w, at) : ALEA_OK;
}

alea_status alea__pmf_addmul(alea_ctx *ctx, alea__pmf *d, size_t k, alea__w a, alea__w b,
                             const node *at)
{
    if (!d->q) {
        d->p[k] += a.d * b.d;
        return ALEA_OK;
    }
    return alea__frac_addmul(ctx, &d->q[k], a.q, b, at);
}

alea_status alea__pmf_check_sum(alea_ctx *ctx, const alea__pmf *d, const node *at)
{
    return ctx->exact ? alea__frac_check(ctx, d, at) : ALEA_OK;
}

alea_status alea__pmf_walk_sums(alea_ctx *ctx, const alea__pmf *die, int bottom,
                                const node *at, double *q, double *S, alea__pmf *sums)
{
    size_t F = die->n;
    if (q) {
        double mass = alea__pmf_mass(die);
        for (size_t t = 0; t < F; t++)
            q[t] = die->p[bottom ? t : F - 1 - t] / mass;
        S[F] = 0;
        for (size_t t = F; t-- > 0;)
            S[t] = S[t + 1] + q[t];
    }
    return ctx->exact ? alea__frac_walk_sums(ctx, die, bottom, at, sums) : ALEA_OK;
}

alea_status alea__pmf_binom_row(alea_ctx *ctx, alea__w qt, alea__w St, alea__w St1, int64_t r,
                                int64_t kmax, const node *at, double *row, alea__pmf *out)
{
    if (!ctx->exact) {
        row[kmax] = alea__binom_row(r, qt.d / St.d, St1.d / St.d, kmax, row);
        return ALEA_OK;
    }
    alea__pmf_free(ctx, out);
    return alea__frac_binom_row(ctx, qt.q, St.q, St1.q, r, kmax, at, out);
}

/* W_t(a) for a < K into w (K entries), normalised by the die's mass and
 * times scale; each a's binomial row is worked out in w->p[a ..] (K - a
 * terms), whose first term it then overwrites. */
static void threshold_weights(const alea__pmf *die, size_t t, int high, int64_t m, int64_t K,
                              double scale, alea__pmf *w)
{
    double beyond = 0, shortp = 0, mass = alea__pmf_mass(die);
    for (size_t i = 0; i < die->n; i++)
        if (i != t && (high ? i > t : i < t))
            beyond += die->p[i];
        else if (i != t)
            shortp += die->p[i];
    double at_or_short = die->p[t] + shortp;
    double rho = die->p[t] / at_or_short, rhoc = shortp / at_or_short;
    for (int64_t a = 0; a < K; a++) {
        double pa = binom_term(m, a, beyond / mass, at_or_short / mass);
        double tail = pa > 0 ? alea__binom_row(m - a, rho, rhoc, K - a, w->p + a) : 0;
        w->v[a] = a;
        w->p[a] = scale * pa * tail;
    }
}

alea_status alea__pmf_keep_weights(alea_ctx *ctx, const alea__pmf *die, size_t t, int high,
                                   int64_t m, int64_t K, double scale, const node *at,
                                   alea__pmf *B, alea__pmf *w)
{
    if (ctx->exact) /* keep.c's threshold method is whole in fractions */
        return alea__broken(ctx, at->start, at->end, "the weights of a threshold in fractions");
    double sb = 0;
    for (size_t i = 0; i < B->n; i++)
        sb += B->p[i];
    for (size_t i = 0; i < B->n; i++)
        B->p[i] /= sb;
    threshold_weights(die, t, high, m, K, scale, w);
    return ALEA_OK;
}

alea_status alea__pmf_keep_sum(alea_ctx *ctx, const alea__pmf *die, const int64_t *g, int high,
                               int64_t m, int64_t K, int64_t smin, int how, const node *at,
                               alea__pmf *out)
{
    if (!ctx->exact)
        return alea__broken(ctx, at->start, at->end, "the kept sum in integers without fractions");
    return alea__frac_keep_sum(ctx, die, g, high, m, K, smin, how, at, out);
}
