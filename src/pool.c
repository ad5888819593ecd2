/*
 * pool.c -- order statistics for keep/drop on pools of iid dice, without
 * enumerating rolls (the method of the Python library icepool).
 *
 * The m dice are sorted; positions [lo, hi) are kept. Walk the die's
 * outcomes from one end. A state is (j, s): j dice have taken the outcomes
 * seen so far, filling the first j positions from that end, and s is the sum
 * of the contributions of those among them that are kept. At outcome x each
 * of the m - j remaining dice, which are known to be at or beyond x, equals
 * x with probability rho = P(x) / P(at or beyond x), so k of them take x
 * with the binomial probability C(m - j, k) rho^k (1 - rho)^(m - j - k).
 * Once the positions up to the far end of the kept range are filled, the
 * state "collapses": the dice left over are all dropped, whatever they show.
 * The walk starts from the end nearer to the far end of the kept range, so
 * that collapse comes soonest (keep highest: from the top).
 *
 * Cost: outcomes * (positions to fill)^2 * (sums per state). 100d6kh50 is
 * about 3 million multiply-adds.
 */
#include <math.h>
#include <string.h>

#include "dist.h"

/* Largest r for which C(r, k) is computed as an exact-ish product
 * (C(1000, 500) ~ 2.7e299 still fits a double). */
#define BINOM_DIRECT_MAX 1000

/* C(r, s) rho^s rhoc^(r - s), with rhoc = 1 - rho given separately. */
static double binom_pmf(int64_t r, int64_t s, double rho, double rhoc)
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
 * row[k] = P(K = k) for 0 <= k < kmax, K ~ Binomial(r, rho), 1 <= kmax <= r;
 * returns P(K >= kmax). Built outward from the mode (or from kmax - 1 when
 * that is below the mode), so nothing overflows, and the upper tail past
 * the mode is summed term by term so that a tiny tail keeps its digits.
 */
static double binom_row(int64_t r, double rho, double rhoc, int64_t kmax, double *row)
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
    double md = floor((double)(r + 1) * rho);
    int64_t mode = md >= (double)r ? r : (int64_t)md;
    int64_t s = mode < kmax - 1 ? mode : kmax - 1;
    row[s] = binom_pmf(r, s, rho, rhoc);
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

/* Scratch of one DP run, freed at once. */
typedef struct dp {
    alea_ctx *ctx;
    int64_t F, phi;  /* outcomes; positions to fill (the far end of the range) */
    alea__pmf *st;   /* st[j], j < phi: the sums of the states with j filled */
    alea__acc *acc;  /* next states */
    alea__acc fin;   /* collapsed states: the result */
    void *block;     /* q, S, x, row, tlo, thi, adds */
    size_t block_size;
} dp;

static void dp_free(dp *d)
{
    if (d->st)
        for (int64_t j = 0; j < d->phi; j++)
            alea__pmf_free(d->ctx, &d->st[j]);
    if (d->acc)
        for (int64_t j = 0; j < d->phi; j++)
            alea__acc_free(&d->acc[j]);
    alea__acc_free(&d->fin);
    size_t n = (size_t)d->phi;
    if (d->st)
        alea__mem_free(d->ctx, d->st, n * sizeof *d->st);
    if (d->acc)
        alea__mem_free(d->ctx, d->acc, n * sizeof *d->acc);
    if (d->block)
        alea__mem_free(d->ctx, d->block, d->block_size);
}

alea_status alea__pool_keep(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                            int64_t m, int64_t lo, int64_t hi, const node *at,
                            alea__pmf *out)
{
    alea_status st;
    int64_t K = hi - lo;
    double trunc = alea__trunc_pow(die->trunc, m);
    double mass = alea__pmf_mass(die);
    /* P(no die of the pool was cut), from the tracked truncation: mass
     * itself carries rounding that the power would amplify. */
    double scale = die->trunc > 0 ? exp((double)m * log1p(-die->trunc)) : 1.0;

    if (die->n == 0) {
        if ((st = alea__pmf_alloc(ctx, 0, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    int64_t gmin = g ? g[0] : die->v[0], gmax = gmin;
    for (size_t i = 0; i < die->n; i++) {
        int64_t x = g ? g[i] : die->v[i];
        gmin = x < gmin ? x : gmin;
        gmax = x > gmax ? x : gmax;
    }
    int64_t smin, smax;
    if (alea__mul_ovf(K, gmin, &smin) || alea__mul_ovf(K, gmax, &smax))
        return alea__overflow_error(ctx, at);
    if (K == 0 || gmin == gmax) { /* one possible sum */
        if ((st = alea__pmf_point(ctx, smin, scale, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    if (lo == 0 && hi == m) { /* everything kept: a plain sum */
        alea__pmf mapped;
        if (!g)
            return alea__pmf_pow(ctx, die, m, at, out);
        if ((st = alea__pmf_remap(ctx, die, g, at, &mapped)) != ALEA_OK)
            return st;
        st = alea__pmf_pow(ctx, &mapped, m, at, out);
        alea__pmf_free(ctx, &mapped);
        return st;
    }
    /* Any multiset of K outcomes can be the kept dice, so the sums number at
     * least K * (F - 1) + 1 when the contributions are distinct. */
    int64_t F = (int64_t)die->n;
    if (!g && (double)K * (double)(F - 1) + 1 > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__support_error(ctx, at);

    /* Walk from the bottom (positions 0..) or from the top, whichever end
     * fills the kept range sooner; plo/phi are the kept range counted from
     * that end. */
    int bottom = hi <= m - lo;
    int64_t plo = bottom ? lo : m - hi, phi = bottom ? hi : m - lo;
    /* At least outcomes * phi^2 / 2 binomial terms: check before allocating
     * anything of size phi. */
    if ((st = alea__work_check(ctx, (double)F * (double)phi * ((double)phi + 1) / 2, at)) !=
        ALEA_OK)
        return st;

    dp d;
    memset(&d, 0, sizeof d);
    d.ctx = ctx;
    d.F = F;
    d.phi = phi;
    size_t nF = (size_t)F, nphi = (size_t)phi;
    /* q[F], S[F + 1], x[F] (int64), row[phi], tlo[phi], thi[phi], adds[phi] */
    size_t words = nF + (nF + 1) + nF + 4 * nphi;
    d.block_size = alea__mul_size(words, 8);
    d.block = alea__mem_alloc(ctx, d.block_size);
    d.st = alea__mem_alloc(ctx, alea__mul_size(nphi, sizeof *d.st));
    d.acc = alea__mem_alloc(ctx, alea__mul_size(nphi, sizeof *d.acc));
    if (!d.block || !d.st || !d.acc) {
        if (d.block)
            alea__mem_free(ctx, d.block, d.block_size);
        if (d.st)
            alea__mem_free(ctx, d.st, nphi * sizeof *d.st);
        if (d.acc)
            alea__mem_free(ctx, d.acc, nphi * sizeof *d.acc);
        return alea__nomem(ctx);
    }
    memset(d.st, 0, nphi * sizeof *d.st);
    memset(d.acc, 0, nphi * sizeof *d.acc);
    double *q = d.block, *S = q + nF, *row = S + nF + 1, *adds = row + nphi;
    int64_t *xs = (int64_t *)(void *)(adds + nphi), *tlo = xs + nF, *thi = tlo + nphi;

    /* Normalised probabilities and contributions in walk order; S[t] is
     * the mass at or beyond outcome t, summed from the far end. */
    for (int64_t t = 0; t < F; t++) {
        size_t i = (size_t)(bottom ? t : F - 1 - t);
        q[t] = die->p[i] / mass;
        xs[t] = g ? g[i] : die->v[i];
    }
    S[F] = 0;
    for (int64_t t = F; t-- > 0;)
        S[t] = S[t + 1] + q[t];

    if ((st = alea__acc_init(&d.fin, ctx, at, smin, smax, (double)F * (double)phi)) !=
            ALEA_OK ||
        (st = alea__pmf_point(ctx, 0, 1.0, &d.st[0])) != ALEA_OK)
        goto fail;

    for (int64_t t = 0; t < F; t++) {
        int64_t x = xs[t];
        double rho = q[t] / S[t], rhoc = S[t + 1] / S[t];
        int any = 0;
        double cost = 0;
        /* Value range of each next state, over all its sources. */
        for (int64_t j = 0; j < phi; j++) {
            tlo[j] = INT64_MAX;
            thi[j] = INT64_MIN;
            adds[j] = 0;
        }
        for (int64_t j = 0; j < phi; j++) {
            const alea__pmf *sj = &d.st[j];
            if (sj->n == 0)
                continue;
            any = 1;
            cost += (double)sj->n * (double)(phi - j + 1) + (double)(phi - j);
            int64_t base = j > plo ? j : plo; /* kept so far end at base */
            for (int64_t k = 0; j + k < phi; k++) {
                int64_t kept = j + k > base ? j + k - base : 0;
                int64_t a = sj->v[0] + kept * x, b = sj->v[sj->n - 1] + kept * x;
                tlo[j + k] = a < tlo[j + k] ? a : tlo[j + k];
                thi[j + k] = b > thi[j + k] ? b : thi[j + k];
                adds[j + k] += (double)sj->n;
            }
        }
        if (!any)
            break; /* everything has collapsed */
        if ((st = alea__work_check(ctx, cost, at)) != ALEA_OK)
            goto fail;
        for (int64_t j = 0; j < phi; j++)
            if (tlo[j] <= thi[j] &&
                (st = alea__acc_init(&d.acc[j], ctx, at, tlo[j], thi[j], adds[j])) !=
                    ALEA_OK)
                goto fail;
        for (int64_t j = 0; j < phi; j++) {
            const alea__pmf *sj = &d.st[j];
            if (sj->n == 0)
                continue;
            if ((st = alea__charge(ctx, (int64_t)(sj->n * (size_t)(phi - j + 1)),
                                   at->start, at->end)) != ALEA_OK)
                goto fail;
            int64_t base = j > plo ? j : plo;
            double tail = binom_row(m - j, rho, rhoc, phi - j, row);
            for (int64_t k = 0; j + k < phi; k++) {
                int64_t kept = j + k > base ? j + k - base : 0;
                if (row[k] > 0 &&
                    (st = alea__acc_add_pmf(&d.acc[j + k], sj, kept * x, row[k])) != ALEA_OK)
                    goto fail;
            }
            /* The rest of the kept range is filled by x: collapse. */
            if (tail > 0 &&
                (st = alea__acc_add_pmf(&d.fin, sj, (phi - base) * x, tail * scale)) !=
                    ALEA_OK)
                goto fail;
        }
        for (int64_t j = 0; j < phi; j++) {
            alea__pmf_free(ctx, &d.st[j]);
            if (tlo[j] <= thi[j] && (st = alea__acc_finish(&d.acc[j], &d.st[j])) != ALEA_OK)
                goto fail;
        }
    }
    if ((st = alea__acc_finish(&d.fin, out)) != ALEA_OK)
        goto fail;
    dp_free(&d);
    out->trunc = trunc;
    return ALEA_OK;
fail:
    dp_free(&d);
    return st;
}
