/*
 * keep.c -- order statistics for keep/drop on pools of iid dice, without
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

#include "keep.h"
#include "fractions/frac.h"
#include "pmf.h"

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
    double md = floor(((double)r + 1.0) * rho); /* r may be INT64_MAX */
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

/* Work units of one state at one outcome beyond its additions: a row of
 * binomial terms (logarithms and exponentials) and an accumulator made and
 * finished, about 1 us (found by fuzzing: (d30 +0)d4318k!-12 walked 10^5
 * outcomes nearly free). */
#define STATE_COST 500

/* Scratch of one DP run, freed at once. */
typedef struct dp {
    alea_ctx *ctx;
    int64_t F, phi;  /* outcomes; positions to fill (the far end of the range) */
    alea__pmf *st;   /* st[j], j < phi: the sums of the states with j filled */
    alea__acc *acc;  /* next states */
    alea__acc fin;   /* collapsed states: the result */
    void *block;     /* q, S, x, row, tlo, thi, adds */
    size_t block_size;
    /* The walk, in its order (from the bottom or from the top): the
     * normalised probabilities q, the mass S[t] at or beyond outcome t, the
     * contributions xs; scratch for one outcome: a row of binomial weights,
     * and each next state's value range and additions. */
    double *q, *S, *row, *adds;
    int64_t *xs, *tlo, *thi;
    int64_t m, plo; /* dice; the start of the kept range from the walk's end */
    int bottom;     /* walking from the bottom */
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

/* What one die contributes, [*gmin, *gmax] (its g, or its face when g is
 * NULL), and the sums K kept dice can make, [*smin, *smax]. */
static alea_status kept_range(alea_ctx *ctx, const alea__pmf *die, const int64_t *g, int64_t K,
                              const node *at, int64_t *gmin, int64_t *gmax, int64_t *smin,
                              int64_t *smax)
{
    *gmin = *gmax = g ? g[0] : die->v[0];
    for (size_t i = 0; i < die->n; i++) {
        int64_t x = g ? g[i] : die->v[i];
        *gmin = x < *gmin ? x : *gmin;
        *gmax = x > *gmax ? x : *gmax;
    }
    if (alea__mul_ovf(K, *gmin, smin) || alea__mul_ovf(K, *gmax, smax))
        return alea__overflow_error(ctx, at);
    return ALEA_OK;
}

/* P(none of m dice was cut), a die with cut explosion tails having mass
 * 1 - trunc: in doubles from the tracked truncation (the mass itself
 * carries rounding that the power would amplify); in fractions the die's
 * own mass to the m, whenever it is not exactly 1 (a die's double mass can
 * round to 1 when it was cut, and a part of a die has no truncation). */
static alea_status uncut(alea_ctx *ctx, const alea__pmf *die, int64_t m, const node *at,
                         alea__x *x)
{
    alea_status st;
    alea__x mass;
    alea__x_init(ctx, x);
    if (!ctx->exact)
        return die->trunc > 0 ? alea__x_mul(ctx, x, ALEA__W(exp((double)m * log1p(-die->trunc))),
                                            at)
                              : ALEA_OK;
    alea__x_init(ctx, &mass);
    st = alea__x_mul(ctx, &mass, ALEA__W(-1), at); /* the mass short of 1 */
    for (size_t i = 0; i < die->n && st == ALEA_OK; i++)
        st = alea__x_addmul(ctx, &mass, alea__pmf_w(die, i), ALEA__W(1), at);
    if (st == ALEA_OK && alea__frac_sgn(ctx, &mass.q) != 0 &&
        (st = alea__x_addmul(ctx, &mass, ALEA__W(1), ALEA__W(1), at)) == ALEA_OK)
        st = alea__x_pow(ctx, x, alea__x_w(&mass), (uint64_t)m, at);
    alea__x_free(ctx, &mass);
    return st;
}

/* d (normalised: the chance of its outcomes given that no die was cut)
 * times P(none of m dice of die was cut) (uncut); d is freed on error. */
static alea_status scale_uncut(alea_ctx *ctx, const alea__pmf *die, int64_t m, const node *at,
                               alea__pmf *d)
{
    alea__x sc;
    alea__pmf r = {0};
    alea_status st = ALEA_OK;
    if (!ctx->exact && die->trunc <= 0)
        return ALEA_OK;
    if ((st = uncut(ctx, die, m, at, &sc)) == ALEA_OK &&
        (st = alea__pmf_add_scaled(ctx, &r, d, alea__x_w(&sc), at)) == ALEA_OK) {
        r.trunc = d->trunc;
        alea__pmf_free(ctx, d);
        *d = r;
    }
    alea__x_free(ctx, &sc);
    if (st != ALEA_OK)
        alea__pmf_free(ctx, d);
    return st;
}

static alea_status keep_uncut(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                              int64_t m, int64_t lo, int64_t hi, const node *at,
                              alea__pmf *out);

/* alea__keep with contributions gmin + step * k: computed on the
 * indices k, each sum s mapped back to K * gmin + step * s. That value lies
 * between K * gmin and K * gmax, which the caller checked for overflow, so
 * unsigned (wrapping) arithmetic gives it exactly. */
static alea_status keep_on_lattice(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                   int64_t gmin, uint64_t step, int64_t m, int64_t lo,
                                   int64_t hi, const node *at, alea__pmf *out)
{
    size_t n = die->n;
    int64_t *k = alea__mem_alloc(ctx, alea__mul_size(n, sizeof *k));
    if (!k)
        return alea__nomem(ctx);
    for (size_t i = 0; i < n; i++)
        k[i] = (int64_t)(((uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gmin) / step);
    alea_status st = keep_uncut(ctx, die, k, m, lo, hi, at, out);
    alea__mem_free(ctx, k, n * sizeof *k);
    if (st != ALEA_OK)
        return st;
    uint64_t base = (uint64_t)(hi - lo) * (uint64_t)gmin;
    for (size_t i = 0; i < out->n; i++)
        out->v[i] = (int64_t)(base + step * (uint64_t)out->v[i]);
    return ALEA_OK;
}

/* ---- keep the highest or the lowest: a threshold per outcome ------------------ */

/*
 * When the K kept dice are the highest (mirrored: the lowest), condition on
 * t, the outcome of the lowest kept die. Some a < K dice are beyond t, all
 * kept; of the other m - a, at least K - a show t (K - a of them kept) and
 * the rest are short of t. So the kept sum is
 *   sum over t of  x^(K g_t) sum over a < K of W_t(a) B_t^a,
 * W_t(a) = P(a dice beyond t, at least K - a at t), B_t the die beyond t
 * given that it is, its values g - g_t (the (K - a) g_t of the kept dice
 * at t split as K g_t - a g_t). The inner sum is a polynomial in B_t,
 * evaluated by Horner's rule (alea__pmf_polyval): K products by B_t.
 * Cost: about outcomes^2 (K^2 / 2) (range of the values) / 3 multiply-adds,
 * independent of m: 100d6kh50 needs 0.07 million where the walk above
 * needs 3 million; the walk stays the cheaper for many outcomes and small K.
 * In exact mode W_t(a) comes from frac.c (with B_t unnormalised).
 */

/* C(r, s) p^s q^(r - s), the ends exact */
static double binom_term(int64_t r, int64_t s, double p, double q)
{
    if (p <= 0)
        return s == 0;
    if (q <= 0)
        return s == r;
    return binom_pmf(r, s, p, q);
}

/* W_t(a) for a < K into w (K entries), normalised by the die's mass and
 * times scale, the chance that no die was cut; row: K doubles. */
static void threshold_weights(const alea__pmf *die, size_t t, int high, int64_t m, int64_t K,
                              double scale, double *row, alea__pmf *w)
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
        double tail = pa > 0 ? binom_row(m - a, rho, rhoc, K - a, row) : 0;
        w->v[a] = a;
        w->p[a] = scale * pa * tail;
    }
}

static alea_status keep_threshold(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                  int64_t m, int64_t K, int high, int64_t smin, int64_t smax,
                                  double scale, const node *at, alea__pmf *out)
{
    alea_status st;
    size_t F = die->n, nK = (size_t)K, row_bytes = alea__mul_size(nK, sizeof(double));
    alea__acc fin;
    alea__pmf B = {0}, W = {0}, R = {0};
    /* binomial rows: K terms for each a < K, at each outcome; and at each
     * outcome the faces beyond it copied, in fractions each a fraction */
    double unit = ctx->exact ? ALEA__FRAC_UNIT : 1;
    double rows = (double)F * ((double)K * (double)K / 2 * 8 + (double)F * unit);
    if ((st = alea__work_check(ctx, rows, at)) != ALEA_OK)
        return st;
    double *row = ctx->exact ? NULL : alea__mem_alloc(ctx, row_bytes);
    if (!ctx->exact && !row)
        return alea__nomem(ctx);
    if ((st = alea__acc_init(&fin, ctx, at, smin, smax, (double)F * (double)K * (double)F)) !=
        ALEA_OK)
        goto done;
    for (size_t t = 0; t < F; t++) {
        size_t nb = high ? F - 1 - t : t, k = 0;
        int64_t gt = g ? g[t] : die->v[t];
        if ((st = alea__charge(ctx, (int64_t)((double)F * unit + (double)(nK * (nK + 1) / 2 * 8)),
                               at->start, at->end)) != ALEA_OK ||
            (st = alea__pmf_alloc(ctx, nb, &B)) != ALEA_OK ||
            (st = alea__pmf_alloc(ctx, nK, &W)) != ALEA_OK)
            goto done;
        double sb = 0;
        for (size_t i = high ? t + 1 : 0; i < (high ? F : t); i++) {
            alea__pmf_take(ctx, &B, k, die, i);
            /* g - g_t: the caller checked that the range of g fits */
            B.v[k++] = (int64_t)((uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gt);
            sb += die->p[i];
        }
        if (ctx->exact) {
            st = alea__frac_keep_weights(ctx, die, t, high, m, K, at, &W);
        } else {
            for (size_t i = 0; i < nb; i++)
                B.p[i] /= sb;
            threshold_weights(die, t, high, m, K, scale, row, &W);
        }
        if (st != ALEA_OK || (st = alea__pmf_polyval(ctx, &B, &W, at, &R)) != ALEA_OK ||
            (st = alea__acc_add_pmf(&fin, &R, (int64_t)((uint64_t)K * (uint64_t)gt),
                                    ALEA__W(1))) != ALEA_OK)
            goto done;
        alea__pmf_free(ctx, &B);
        alea__pmf_free(ctx, &W);
        alea__pmf_free(ctx, &R);
    }
    st = alea__acc_finish(&fin, out);
done:
    alea__acc_free(&fin);
    alea__pmf_free(ctx, &B);
    alea__pmf_free(ctx, &W);
    alea__pmf_free(ctx, &R);
    if (row)
        alea__mem_free(ctx, row, row_bytes);
    return st;
}

alea_status alea__keep_threshold(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                 int64_t m, int64_t lo, int64_t hi, const node *at,
                                 alea__pmf *out)
{
    int64_t gmin, gmax, smin, smax, span;
    alea_status st = kept_range(ctx, die, g, hi - lo, at, &gmin, &gmax, &smin, &smax);
    if (st != ALEA_OK)
        return st;
    if ((lo != 0 && hi != m) || lo >= hi || die->n == 0 || gmin == INT64_MIN ||
        alea__add_ovf(gmax, -gmin, &span))
        return alea__error(ctx, ALEA_ERR_ARGUMENT, at->start, at->end,
                           "the threshold method keeps the highest or the lowest dice");
    double scale = die->trunc > 0 ? exp((double)m * log1p(-die->trunc)) : 1.0;
    st = keep_threshold(ctx, die, g, m, hi - lo, hi == m, smin, smax, scale, at, out);
    if (st == ALEA_OK)
        out->trunc = alea__trunc_pow(die->trunc, m);
    return st;
}

/* Whether the threshold method is the cheaper; in exact mode always taken
 * where it applies (the walk's rows in fractions carry every die left, the
 * threshold's polynomials only the kept ones). */
static int use_threshold(const alea_ctx *ctx, int64_t F, int64_t K, int64_t phi, int64_t gmin,
                         int64_t gmax)
{
    int64_t span;
    if (alea__add_ovf(gmax, -gmin, &span) || gmin == INT64_MIN)
        return 0; /* values too far apart for g - g_t */
    if (ctx->exact)
        return 1;
    double f = (double)F, k = (double)K, r = (double)span + 1, p = (double)phi;
    double thr = k * k / 2 * r * f * f / 3 + f * k * k * 4;
    double walk = f * p * p / 2 * (k * r / 2 + 1);
    return thr < walk;
}

/* The cases of keep_uncut with no walk (*done set): one possible sum,
 * every die kept, contributions on a lattice. [gmin, gmax]: what one die
 * contributes; smin: the least kept sum; trunc: the result's truncation. */
static alea_status keep_shortcut(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                 int64_t m, int64_t lo, int64_t hi, int64_t gmin,
                                 int64_t gmax, int64_t smin, double trunc, const node *at,
                                 alea__pmf *out, int *done)
{
    alea_status st;
    int64_t K = hi - lo;
    *done = 1;
    if (K == 0 || gmin == gmax) { /* one possible sum: P(no die was cut) */
        alea__x sc;
        if ((st = uncut(ctx, die, m, at, &sc)) == ALEA_OK &&
            (st = alea__pmf_point(ctx, smin, alea__x_w(&sc), out)) == ALEA_OK)
            out->trunc = trunc;
        alea__x_free(ctx, &sc);
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
    /* Contributions on a lattice gmin + step * k (d{0,100}!, every multiple
     * of 2^49) walk the lattice's indices k instead: the programme's dense
     * arrays shrink by the step, and the sums are mapped back at the end. */
    uint64_t step = 0;
    for (size_t i = 0; i < die->n && step != 1; i++)
        step = alea__gcd(step, (uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gmin);
    if (step > 1)
        return keep_on_lattice(ctx, die, g, gmin, step, m, lo, hi, at, out);
    *done = 0;
    return ALEA_OK;
}

/* d's tables (d->F and d->phi set): the block of q, S, x, row, tlo, thi,
 * adds, the states and their accumulators, all 0. */
static alea_status dp_alloc(dp *d)
{
    alea_ctx *ctx = d->ctx;
    size_t nF = (size_t)d->F, nphi = (size_t)d->phi;
    /* q[F], S[F + 1], x[F] (int64), row[phi], tlo[phi], thi[phi], adds[phi] */
    size_t words = nF + (nF + 1) + nF + 4 * nphi;
    d->block_size = alea__mul_size(words, 8);
    d->block = alea__mem_alloc(ctx, d->block_size);
    d->st = alea__mem_alloc(ctx, alea__mul_size(nphi, sizeof *d->st));
    d->acc = alea__mem_alloc(ctx, alea__mul_size(nphi, sizeof *d->acc));
    if (!d->block || !d->st || !d->acc) {
        if (d->block)
            alea__mem_free(ctx, d->block, d->block_size);
        if (d->st)
            alea__mem_free(ctx, d->st, nphi * sizeof *d->st);
        if (d->acc)
            alea__mem_free(ctx, d->acc, nphi * sizeof *d->acc);
        return alea__nomem(ctx);
    }
    memset(d->st, 0, nphi * sizeof *d->st);
    memset(d->acc, 0, nphi * sizeof *d->acc);
    d->q = d->block;
    d->S = d->q + nF;
    d->row = d->S + nF + 1;
    d->adds = d->row + nphi;
    d->xs = (int64_t *)(void *)(d->adds + nphi);
    d->tlo = d->xs + nF;
    d->thi = d->tlo + nphi;
    return ALEA_OK;
}

/* Normalised probabilities and contributions in walk order; S[t] is the
 * mass at or beyond outcome t, summed from the far end. */
static void dp_order(dp *d, const alea__pmf *die, const int64_t *g, double mass)
{
    int64_t F = d->F;
    for (int64_t t = 0; t < F; t++) {
        size_t i = (size_t)(d->bottom ? t : F - 1 - t);
        d->q[t] = die->p[i] / mass;
        d->xs[t] = g ? g[i] : die->v[i];
    }
    d->S[F] = 0;
    for (int64_t t = F; t-- > 0;)
        d->S[t] = d->S[t + 1] + d->q[t];
}

/* The value range of each next state over all its sources, the dice
 * taking the value x; *any = 0 when every state has collapsed. Returns
 * the work of the step. */
static double dp_ranges(dp *d, int64_t x, int *any)
{
    int64_t phi = d->phi, plo = d->plo, *tlo = d->tlo, *thi = d->thi;
    double *adds = d->adds, cost = 0;
    *any = 0;
    for (int64_t j = 0; j < phi; j++) {
        tlo[j] = INT64_MAX;
        thi[j] = INT64_MIN;
        adds[j] = 0;
    }
    for (int64_t j = 0; j < phi; j++) {
        const alea__pmf *sj = &d->st[j];
        if (sj->n == 0)
            continue;
        *any = 1;
        cost += (double)sj->n * (double)(phi - j + 1) + (double)(phi - j) + STATE_COST;
        int64_t base = j > plo ? j : plo; /* kept so far end at base */
        for (int64_t k = 0; j + k < phi; k++) {
            int64_t kept = j + k > base ? j + k - base : 0;
            int64_t a = sj->v[0] + kept * x, b = sj->v[sj->n - 1] + kept * x;
            tlo[j + k] = a < tlo[j + k] ? a : tlo[j + k];
            thi[j + k] = b > thi[j + k] ? b : thi[j + k];
            adds[j + k] += (double)sj->n;
        }
    }
    return cost;
}

/* State j at outcome t of the walk: k more of the m - j dice left take its
 * value (a row of binomial weights, rho = P(t) / P(at or beyond t), in
 * fractions from sums in exact mode), into the next state j + k, or into
 * the result once the kept range is filled. */
static alea_status dp_row(dp *d, const alea__pmf *die, int64_t t, int64_t j, double rho,
                          double rhoc, const alea__pmf *sums, alea__pmf *brow, const node *at)
{
    alea_ctx *ctx = d->ctx;
    const alea__pmf *sj = &d->st[j];
    int64_t F = d->F, phi = d->phi, m = d->m, x = d->xs[t];
    alea_status st;
    if ((st = alea__charge(ctx, (int64_t)(sj->n * (size_t)(phi - j + 1)) + STATE_COST,
                           at->start, at->end)) != ALEA_OK)
        return st;
    int64_t base = j > d->plo ? j : d->plo;
    if (ctx->exact) { /* the same row, in fractions */
        alea__pmf_free(ctx, brow);
        if ((st = alea__frac_binom_row(ctx, &die->q[d->bottom ? t : F - 1 - t], &sums->q[t],
                                       t + 1 < F ? &sums->q[t + 1] : NULL, m - j, phi - j, at,
                                       brow)) != ALEA_OK)
            return st;
        for (size_t u = 0; u < brow->n; u++) {
            int64_t k = brow->v[u], kept = j + k > base ? j + k - base : 0;
            st = j + k < phi
                     ? alea__acc_add_pmf(&d->acc[j + k], sj, kept * x, alea__pmf_w(brow, u))
                     : alea__acc_add_pmf(&d->fin, sj, (phi - base) * x, alea__pmf_w(brow, u));
            if (st != ALEA_OK)
                return st;
        }
        return ALEA_OK;
    }
    double *row = d->row;
    double tail = binom_row(m - j, rho, rhoc, phi - j, row);
    for (int64_t k = 0; j + k < phi; k++) {
        int64_t kept = j + k > base ? j + k - base : 0;
        if (row[k] > 0 &&
            (st = alea__acc_add_pmf(&d->acc[j + k], sj, kept * x, ALEA__W(row[k]))) != ALEA_OK)
            return st;
    }
    /* The rest of the kept range is filled by x: collapse. */
    if (tail > 0 &&
        (st = alea__acc_add_pmf(&d->fin, sj, (phi - base) * x, ALEA__W(tail))) != ALEA_OK)
        return st;
    return ALEA_OK;
}

/* Outcome t of the walk (its ranges made by dp_ranges): every state
 * through it, and the next states become the states. */
static alea_status dp_step(dp *d, const alea__pmf *die, int64_t t, const alea__pmf *sums,
                           alea__pmf *brow, const node *at)
{
    alea_ctx *ctx = d->ctx;
    int64_t phi = d->phi, *tlo = d->tlo, *thi = d->thi;
    double rho = d->q[t] / d->S[t], rhoc = d->S[t + 1] / d->S[t];
    alea_status st;
    for (int64_t j = 0; j < phi; j++)
        if (tlo[j] <= thi[j] &&
            (st = alea__acc_init(&d->acc[j], ctx, at, tlo[j], thi[j], d->adds[j])) != ALEA_OK)
            return st;
    for (int64_t j = 0; j < phi; j++)
        if (d->st[j].n > 0 &&
            (st = dp_row(d, die, t, j, rho, rhoc, sums, brow, at)) != ALEA_OK)
            return st;
    for (int64_t j = 0; j < phi; j++) {
        alea__pmf_free(ctx, &d->st[j]);
        if (tlo[j] <= thi[j] && (st = alea__acc_finish(&d->acc[j], &d->st[j])) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

/* alea__keep of m dice none of which was cut (scaled by that chance). */
static alea_status keep_uncut(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                              int64_t m, int64_t lo, int64_t hi, const node *at,
                              alea__pmf *out)
{
    alea_status st;
    int64_t K = hi - lo;
    double trunc = alea__trunc_pow(die->trunc, m);
    double mass = alea__pmf_mass(die);

    if (die->n == 0) {
        if ((st = alea__pmf_alloc(ctx, 0, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    int64_t gmin, gmax, smin, smax;
    int done = 0;
    if ((st = kept_range(ctx, die, g, K, at, &gmin, &gmax, &smin, &smax)) != ALEA_OK ||
        (st = keep_shortcut(ctx, die, g, m, lo, hi, gmin, gmax, smin, trunc, at, out,
                            &done)) != ALEA_OK ||
        done)
        return st;

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
    if ((lo == 0 || hi == m) && use_threshold(ctx, F, K, phi, gmin, gmax))
        return alea__keep_threshold(ctx, die, g, m, lo, hi, at, out);
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
    d.m = m;
    d.plo = plo;
    d.bottom = bottom;
    alea__pmf sums = {0}, brow = {0}; /* exact mode: see below */
    if ((st = dp_alloc(&d)) != ALEA_OK)
        return st;
    dp_order(&d, die, g, mass);

    if ((st = alea__acc_init(&d.fin, ctx, at, smin, smax, (double)F * (double)phi)) !=
            ALEA_OK ||
        (st = alea__pmf_point(ctx, 0, ALEA__W(1), &d.st[0])) != ALEA_OK)
        goto fail;
    /* In fractions: the masses at or beyond each outcome, for the rows of
     * binomial weights. The walk's weights are normalised (given that no
     * die was cut); the result is scaled by P(no die was cut) at the end. */
    if (ctx->exact && (st = alea__frac_walk_sums(ctx, die, bottom, at, &sums)) != ALEA_OK)
        goto fail;

    for (int64_t t = 0; t < F; t++) {
        int any;
        double cost = dp_ranges(&d, d.xs[t], &any);
        if (!any)
            break; /* everything has collapsed */
        if ((st = alea__work_check(ctx, cost, at)) != ALEA_OK)
            goto fail;
        if ((st = dp_step(&d, die, t, &sums, &brow, at)) != ALEA_OK)
            goto fail;
    }
    if ((st = alea__acc_finish(&d.fin, out)) != ALEA_OK)
        goto fail;
    dp_free(&d);
    alea__pmf_free(ctx, &sums);
    alea__pmf_free(ctx, &brow);
    out->trunc = trunc;
    return scale_uncut(ctx, die, m, at, out);
fail:
    dp_free(&d);
    alea__pmf_free(ctx, &sums);
    alea__pmf_free(ctx, &brow);
    return st;
}

/* The mass cut from a die by its explosion tails, as a weight (exact in
 * fractions: 1 minus the die's mass; in doubles the tracked truncation);
 * *cut is 0 when none was cut. A die none of whose chains was cut tracks
 * no truncation: its fractions are not summed. */
static alea_status cut_mass(alea_ctx *ctx, const alea__pmf *die, const node *at, alea__x *t,
                            int *cut)
{
    alea__x_init(ctx, t);
    if (!ctx->exact || die->trunc <= 0) {
        *cut = die->trunc > 0;
        t->d = die->trunc;
        return ALEA_OK;
    }
    alea_status st = ALEA_OK;
    for (size_t i = 0; i < die->n && st == ALEA_OK; i++) /* t = 1 - the die's mass */
        st = alea__x_addmul(ctx, t, alea__pmf_w(die, i), ALEA__W(-1), at);
    *cut = st == ALEA_OK && alea__frac_sgn(ctx, &t->q) != 0;
    return st;
}

/* Rolls in which more than this weight's share of the dice (relative to
 * 1) was cut are left to the truncated mass in doubles, where adding them
 * could not change a digit; exact mode adds every one. */
#define CUT_NEGLIGIBLE 1e-20
/* Work units of one count of cut dice beyond its keep: a binomial weight
 * and a scaled addition. */
#define CUT_STEP_COST 64

/* Terms of a binomial tail summed before the rest is bounded (below), and
 * the work units of one (logarithms and an exponential). */
#define TAIL_TERMS 4096
#define TAIL_TERM_COST 64

/*
 * *p = P(Binomial(m, t) >= j), in doubles. Below the mode (j <= (m + 1) t)
 * it is 1 less the j terms under j (alea__keep paid for j steps before);
 * above, the terms fall, and are summed while they count, at most
 * TAIL_TERMS of them, the rest bounded by a geometric series of the last
 * ratio (the ratios only fall): a pool of 4 * 10^17 dice whose mode is
 * 10^7 cut dice must not walk to it one term at a time.
 */
static alea_status binom_upper(alea_ctx *ctx, int64_t m, int64_t j, double t, const node *at,
                               double *p)
{
    *p = 0;
    if (j > m)
        return ALEA_OK;
    double mode = ((double)m + 1) * t;
    if ((double)j <= mode) {
        alea_status st = alea__charge(ctx, j * TAIL_TERM_COST, at->start, at->end);
        double lower = 0;
        for (int64_t i = 0; i < j && st == ALEA_OK; i++)
            lower += binom_pmf(m, i, t, 1 - t);
        *p = lower < 1 ? 1 - lower : 0;
        return st;
    }
    alea_status st = alea__charge(ctx, TAIL_TERMS * TAIL_TERM_COST, at->start, at->end);
    if (st != ALEA_OK)
        return st;
    double tr = 0, b = 0;
    int64_t i = j;
    for (int64_t n = 0; i <= m && n < TAIL_TERMS; i++, n++) {
        b = binom_pmf(m, i, t, 1 - t);
        tr += b;
        if (b <= tr * 1e-17)
            return *p = tr, ALEA_OK;
    }
    if (i <= m) { /* b(i) = b(i - 1) r, r = (m - i + 1) t / (i (1 - t)), and smaller after */
        double r = (double)(m - i + 1) * t / ((double)i * (1 - t));
        tr += r < 1 ? b * r / (1 - r) : 1;
    }
    *p = tr < 1 ? tr : 1;
    return ALEA_OK;
}

/* Pools whose likeliest count of dice beyond the cut bound passes this
 * are left to the truncated mass in doubles: each count up to it costs a
 * keep. The count only falls as the tail bound tightens (the outcomes up
 * to the bound gain mass), so a tighter bound never lists less. */
#define CUT_MODE_MAX 4096

/*
 * A die whose explosion chains were cut at the tail bound: a cut chain's
 * value is unknown, so a roll with a cut die is listed only where its kept
 * sum does not depend on it. With nothing kept the sum is 0. Otherwise
 * take L, the die's outcomes at or below die->cut_low, a bound below every
 * cut chain (exact_die.c proves one where it holds: "1d6!", whose extra rolls
 * add at least 1, is cut above all it lists; "1dF!0" cut at -1 or above).
 * The cut dice sort above the dice in L, so when at least hi of the other
 * dice lie in L, the kept range [lo, hi) is the lowest of those and the
 * sum is known. So the result sums the rolls with no cut die (keep_uncut
 * of m dice) and, for each j = 1 .. m - hi, the rolls with j dice beyond L
 * of which at least one was cut: C(m, j) ((1 - P(L))^j - P(beyond L, not
 * cut)^j) times the kept range of m - j dice in L. Keeping the lowest of
 * exploding dice ("3d6!!kl2") so gives each listed outcome its whole
 * probability; the other rolls with a cut die are truncated.
 */
alea_status alea__keep(alea_ctx *ctx, const alea__pmf *die, const int64_t *g, int64_t m,
                       int64_t lo, int64_t hi, const node *at, alea__pmf *out)
{
    alea__x t, c, a, b, w, ph, rest;
    int cut = 0, skipped = 0;
    alea_status st = ALEA_OK;
    if (lo == hi && die->n > 0) /* nothing kept: 0, whatever the dice show */
        return alea__pmf_point(ctx, 0, ALEA__W(1), out);
    if (hi < m && die->n > 0)
        st = cut_mass(ctx, die, at, &t, &cut);
    else
        alea__x_init(ctx, &t);
    if (st != ALEA_OK || !cut) {
        alea__x_free(ctx, &t);
        return st == ALEA_OK ? keep_uncut(ctx, die, g, m, lo, hi, at, out) : st;
    }
    /* L is a prefix of the outcomes (their values ascend), so g, indexed
     * by the die's outcomes, serves it too */
    size_t nl = 0;
    while (die->has_cut_low && nl < die->n && die->v[nl] <= die->cut_low)
        nl++;
    double pl = 0, pb = 0, td = die->trunc, listed = 0;
    for (size_t i = 0; i < die->n; i++)
        *(i < nl ? &pl : &pb) += die->p[i];
    double rd = pb + td, mode = ((double)m + 1) * rd; /* rd: beyond L or cut */
    int64_t most = nl == 0 || (!ctx->exact && mode > CUT_MODE_MAX) ? 0 : m - hi;

    alea__pmf sub = {0}, sum = {0}, part = {0};
    alea__x *xs[] = {&c, &a, &b, &w, &ph, &rest}; /* C(m, j), rest^j, ph^j, the weight */
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        alea__x_init(ctx, xs[i]);
    if ((st = alea__x_mul(ctx, &ph, ALEA__W(0), at)) != ALEA_OK ||
        (st = alea__x_mul(ctx, &rest, ALEA__W(0), at)) != ALEA_OK)
        goto done;
    if (most > 0) {
        /* L: in fractions as it is (keep_uncut scales by P(L) to the dice),
         * in doubles normalised (the weights below carry it) */
        if ((st = alea__pmf_alloc(ctx, nl, &sub)) != ALEA_OK)
            goto done;
        for (size_t i = 0; i < nl; i++)
            alea__pmf_take(ctx, &sub, i, die, i);
        for (size_t i = 0; i < nl && !ctx->exact; i++)
            sub.p[i] /= pl;
        if ((st = alea__pmf_seal(ctx, &sub, at)) != ALEA_OK)
            goto done;
        sub.trunc = ctx->exact ? 1 - pl : 0;
        for (size_t i = nl; i < die->n && ctx->exact && st == ALEA_OK; i++)
            st = alea__x_addmul(ctx, &ph, alea__pmf_w(die, i), ALEA__W(1), at);
        if (st != ALEA_OK || (st = alea__x_addmul(ctx, &rest, alea__x_w(&ph), ALEA__W(1), at)) !=
                                 ALEA_OK ||
            (st = alea__x_addmul(ctx, &rest, alea__x_w(&t), ALEA__W(1), at)) != ALEA_OK)
            goto done;
    }
    if ((st = keep_uncut(ctx, die, g, m, lo, hi, at, &sum)) != ALEA_OK)
        goto done;
    int64_t j = 1;
    for (; j <= most; j++) {
        /* a step costs its weight and a keep, which for one possible sum
         * charges nothing itself */
        if ((st = alea__charge(ctx, CUT_STEP_COST, at->start, at->end)) != ALEA_OK)
            break;
        /* in doubles: C(m, j) rd^j P(L)^(m - j) (1 - (pb / rd)^j) */
        double e = binom_pmf(m, j, rd, pl) * (pb > 0 ? -expm1((double)j * log1p(-td / rd)) : 1);
        if (ctx->exact) {
            alea__x_free(ctx, &w);
            alea__x_init(ctx, &w);
            if ((st = alea__x_ratio(ctx, &c, (uint64_t)(m - j + 1), (uint64_t)j, at)) != ALEA_OK ||
                (st = alea__x_mul(ctx, &a, alea__x_w(&rest), at)) != ALEA_OK ||
                (st = alea__x_mul(ctx, &b, alea__x_w(&ph), at)) != ALEA_OK ||
                (st = alea__x_mul(ctx, &w, alea__x_w(&a), at)) != ALEA_OK ||
                (st = alea__x_addmul(ctx, &w, alea__x_w(&b), ALEA__W(-1), at)) != ALEA_OK ||
                (st = alea__x_mul(ctx, &w, alea__x_w(&c), at)) != ALEA_OK)
                break;
        } else if (e < CUT_NEGLIGIBLE) {
            if ((double)j > mode) /* past the likeliest count: the rest is less */
                break;
            skipped = 1;
            continue;
        }
        if ((st = keep_uncut(ctx, &sub, g, m - j, lo, hi, at, &part)) == ALEA_OK)
            st = alea__pmf_add_scaled(ctx, &sum, &part, ctx->exact ? alea__x_w(&w) : ALEA__W(e),
                                      at);
        alea__pmf_free(ctx, &part);
        if (st != ALEA_OK)
            break;
        listed += e;
    }
    if (st != ALEA_OK)
        goto done;
    /* truncated: the rolls with a cut die not listed (in exact mode the
     * fractions give it); with no outcome beyond L and none skipped, those
     * with j or more cut dice, j the first count left out */
    double tr = alea__trunc_pow(td, m) - listed;
    if (nl == die->n && !skipped && (st = binom_upper(ctx, m, j, td, at, &tr)) != ALEA_OK)
        goto done;
    sum.trunc = tr < 0 ? 0 : tr > 1 ? 1 : tr;
    *out = sum;
    sum.n = 0;
done:
    alea__pmf_free(ctx, &sub);
    alea__pmf_free(ctx, &sum);
    alea__pmf_free(ctx, &part);
    alea__x_free(ctx, &t);
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        alea__x_free(ctx, xs[i]);
    return st;
}

/* ---- "ra": reroll the lowest matching die --------------------------------------- */

/*
 * After the m dice are rolled, the lowest die whose value matches is rolled
 * again (y, an independent die) and the new roll stands; then the keep range
 * applies to the new pool. Two parts:
 *   A. no die matches: the plain pool of the non-matching outcomes;
 *   B. some die matches: the walk from the bottom with two more bits of
 *      state, "the lowest match has been removed" (it is the first matching
 *      outcome any die takes) and "y has been placed" (y takes outcome x with
 *      probability rho, as one more die). A state counts the positions of the
 *      final pool; it collapses once the kept range is filled, weighted by
 *      the chance that a die still to come matches when none has yet.
 * Only the bottom-up walk knows which match is the lowest, so this costs
 * outcomes * 4 * hi * m at least; "ra" is meant for small pools (1d20ra1,
 * 2d20kh1ra1).
 */
typedef struct radp {
    alea_ctx *ctx;
    int64_t hi;
    int64_t m, lo, gmin, gmax; /* the walk's dice, kept range and contributions */
    alea__pmf *st;  /* st[f * hi + j]: f = removed | placed << 1 */
    alea__acc *acc; /* next states, initialised on first use */
    uint8_t *live;  /* acc[x] initialised */
    alea__acc fin;
    void *block; /* q, S, Snm, row, xs */
    size_t block_size;
    /* Exact mode: the die's masses at or beyond each outcome (sums), and
     * those of its other [0] and matching [1] outcomes (part), each in its
     * own order (psums); rows of binomial weights in fractions. */
    alea__pmf sums, part[2], psums[2], yrow, orow, frow;
    alea__x w, coll, fx; /* weights being computed */
} radp;

static void radp_free(radp *d)
{
    size_t n = 4 * (size_t)d->hi;
    if (d->st) {
        for (size_t i = 0; i < n; i++)
            alea__pmf_free(d->ctx, &d->st[i]);
        alea__mem_free(d->ctx, d->st, n * sizeof *d->st);
    }
    if (d->acc) {
        for (size_t i = 0; i < n; i++)
            alea__acc_free(&d->acc[i]);
        alea__mem_free(d->ctx, d->acc, n * sizeof *d->acc);
    }
    if (d->live)
        alea__mem_free(d->ctx, d->live, n);
    alea__acc_free(&d->fin);
    if (d->block)
        alea__mem_free(d->ctx, d->block, d->block_size);
    alea__pmf *pm[] = {&d->sums, &d->part[0], &d->part[1], &d->psums[0], &d->psums[1],
                       &d->yrow, &d->orow, &d->frow};
    for (size_t i = 0; i < sizeof pm / sizeof *pm; i++)
        alea__pmf_free(d->ctx, pm[i]);
    alea__x_free(d->ctx, &d->w);
    alea__x_free(d->ctx, &d->coll);
    alea__x_free(d->ctx, &d->fx);
}

/* The outcomes i of die with match[i] == want, with their probabilities
 * as they are (a sub-probability, possibly empty). */
static alea_status outcomes_where(alea_ctx *ctx, const alea__pmf *die, const uint8_t *match,
                                  int want, const node *at, alea__pmf *out)
{
    size_t n = 0;
    for (size_t i = 0; i < die->n; i++)
        n += !!match[i] == want;
    alea_status st = alea__pmf_alloc(ctx, n, out);
    if (st != ALEA_OK || n == 0)
        return st;
    n = 0;
    for (size_t i = 0; i < die->n; i++)
        if (!!match[i] == want)
            alea__pmf_take(ctx, out, n++, die, i);
    return alea__pmf_seal(ctx, out, at);
}

/* A row of weights over k = 0, 1, ...: in doubles the terms d[0 .. n) (a
 * term 0 is left out), in fractions the pmf r (its values are the k). */
typedef struct wrow {
    const double *d;
    size_t n;
    const alea__pmf *r;
} wrow;

static size_t wrow_len(const wrow *w)
{
    return w->r ? w->r->n : w->n;
}

/* Term u's k, or -1 for a term left out. */
static int64_t wrow_k(const wrow *w, size_t u)
{
    return w->r ? w->r->v[u] : w->d[u] > 0 ? (int64_t)u : -1;
}

static alea__w wrow_w(const wrow *w, size_t u)
{
    return w->r ? alea__pmf_w(w->r, u) : ALEA__W(w->d[u]);
}

/* In fractions, the row of r dice at outcome i of the walk, each taking
 * it with the chance rho = P(i) / P(at or beyond i) (binomial terms for
 * k < kmax, then the chance of kmax or more); replaces *row. */
static alea_status ra_row(radp *d, const alea__pmf *die, size_t i, int64_t r, int64_t kmax,
                          const node *at, alea__pmf *row)
{
    alea__pmf_free(d->ctx, row);
    return alea__frac_binom_row(d->ctx, &die->q[i], &d->sums.q[i],
                                i + 1 < die->n ? &d->sums.q[i + 1] : NULL, r, kmax, at, row);
}

/* d->fx = the chance that some of n dice above outcome i match (none has
 * yet); *some = 0 when it is 0. inm, imt: the first outcomes above i among
 * the others and the matching ones (in part's order); cnm: the chance,
 * in doubles, that a die above i does not match. */
static alea_status some_match(radp *d, size_t i, size_t inm, size_t imt, double cnm, int64_t n,
                              const node *at, int *some)
{
    alea_ctx *ctx = d->ctx;
    alea__x_free(ctx, &d->fx);
    alea__x_init(ctx, &d->fx);
    *some = n > 0 && (ctx->exact ? imt < d->part[1].n : cnm < 1);
    if (!*some)
        return ALEA_OK;
    if (!ctx->exact)
        return alea__x_mul(ctx, &d->fx, ALEA__W(-expm1((double)n * log(cnm))), at);
    if (inm >= d->part[0].n) /* every die above matches */
        return ALEA_OK;
    /* 1 - cnm^n: the tail of a row of one term, cnm = Snm / S above i */
    alea__pmf_free(ctx, &d->frow);
    alea_status st = alea__frac_binom_row(ctx, &d->psums[1].q[imt], &d->sums.q[i + 1],
                                          &d->psums[0].q[inm], n, 1, at, &d->frow);
    if (st != ALEA_OK)
        return st;
    *some = d->frow.n > 0 && d->frow.v[d->frow.n - 1] == 1;
    return *some ? alea__x_mul(ctx, &d->fx, alea__pmf_w(&d->frow, d->frow.n - 1), at) : ALEA_OK;
}

/* The walk at outcome i of the die (value x): the chance that a die at or
 * beyond i takes it (rho) or not (rhoc), that a die above it does not match
 * (cnm); the rows of weights of y and of the original dice there. */
typedef struct ra_step {
    size_t i, inm, imt; /* outcomes above i: the first other, matching */
    int64_t x;
    double rho, rhoc, cnm;
    double *row; /* doubles: the original dice's binomial row */
    wrow yrow, orow;
} ra_step;

/* d's tables for a walk over F outcomes of m dice (d->hi set); on failure
 * d is freed. */
static alea_status ra_alloc(radp *d, size_t nF, int64_t m)
{
    alea_ctx *ctx = d->ctx;
    size_t ns = 4 * (size_t)d->hi;
    d->block_size = alea__mul_size(4 * nF + 3 + (size_t)m + 1, 8);
    d->block = alea__mem_alloc(ctx, d->block_size);
    d->st = alea__mem_alloc(ctx, alea__mul_size(ns, sizeof *d->st));
    d->acc = alea__mem_alloc(ctx, alea__mul_size(ns, sizeof *d->acc));
    d->live = alea__mem_alloc(ctx, ns);
    if (!d->block || !d->st || !d->acc || !d->live) {
        alea_status st = alea__nomem(ctx);
        if (d->st)
            memset(d->st, 0, ns * sizeof *d->st);
        if (d->acc)
            memset(d->acc, 0, ns * sizeof *d->acc);
        radp_free(d);
        return st;
    }
    memset(d->st, 0, ns * sizeof *d->st);
    memset(d->acc, 0, ns * sizeof *d->acc);
    return ALEA_OK;
}

/* From state sj (flags f, j positions filled) at step s, y taking yh
 * positions here with weight wy: each count k of the original dice here
 * (the row s->orow) moves it to a next state, or collapses it into d->fin
 * once the kept range is filled. */
static alea_status ra_spread(radp *d, const ra_step *s, const uint8_t *match,
                             const alea__pmf *sj, int f, int64_t j, int64_t n_o, int64_t yh,
                             alea__w wy, const node *at)
{
    alea_ctx *ctx = d->ctx;
    const int64_t hi = d->hi, lo = d->lo, x = s->x;
    const int removed = f & 1;
    const int64_t base = j > lo ? j : lo;
    alea_status st;
    int any = 0;
    alea__x_free(ctx, &d->coll);
    alea__x_init(ctx, &d->coll);
    if ((st = alea__x_mul(ctx, &d->coll, ALEA__W(0), at)) != ALEA_OK)
        return st;
    for (size_t u = 0; u < wrow_len(&s->orow); u++) {
        int64_t k = wrow_k(&s->orow, u);
        if (k < 0)
            continue;
        alea__w rk = wrow_w(&s->orow, u);
        int rem = !removed && match[s->i] && k >= 1;
        int64_t jn = j + k - rem + yh;
        int nf = f | rem | (int)yh << 1;
        if (jn >= hi) { /* collapsed: a match is still to come if none was */
            int some = 1;
            if (!(nf & 1) && (st = some_match(d, s->i, s->inm, s->imt, s->cnm, n_o - k, at,
                                              &some)) != ALEA_OK)
                return st;
            if (some && (st = alea__x_addmul(ctx, &d->coll, rk,
                                             nf & 1 ? ALEA__W(1) : alea__x_w(&d->fx), at)) !=
                            ALEA_OK)
                return st;
            any |= some;
            continue;
        }
        size_t t = (size_t)nf * (size_t)hi + (size_t)jn;
        if (!d->live[t]) {
            int64_t kc = jn > lo ? jn - lo : 0;
            if ((st = alea__acc_init(&d->acc[t], ctx, at, kc * d->gmin, kc * d->gmax,
                                     (double)sj->n * (double)hi)) != ALEA_OK)
                return st;
            d->live[t] = 1;
        }
        int64_t kept = jn > base ? jn - base : 0;
        alea__x_free(ctx, &d->w);
        alea__x_init(ctx, &d->w);
        if ((st = alea__x_mul(ctx, &d->w, wy, at)) != ALEA_OK ||
            (st = alea__x_mul(ctx, &d->w, rk, at)) != ALEA_OK ||
            (st = alea__acc_add_pmf(&d->acc[t], sj, kept * x, alea__x_w(&d->w))) != ALEA_OK)
            return st;
    }
    if (any && (ctx->exact || d->coll.d > 0) &&
        ((st = alea__x_mul(ctx, &d->coll, wy, at)) != ALEA_OK ||
         (st = alea__acc_add_pmf(&d->fin, sj, (hi - base) * x, alea__x_w(&d->coll))) !=
             ALEA_OK))
        return st;
    return ALEA_OK;
}

/* State sj (flags f: removed | placed << 1; j positions filled) through
 * step s: the row of the original dice left, then y placed here or not. */
static alea_status ra_state(radp *d, ra_step *s, const alea__pmf *die, const uint8_t *match,
                            const alea__pmf *sj, int f, int64_t j, const node *at)
{
    alea_ctx *ctx = d->ctx;
    /* y, not placed yet: placed here (1) or not (0); placed already: 1 */
    static const double one = 1;
    const wrow ydone = {&one, 1, NULL};
    alea_status st = ALEA_OK;
    int removed = f & 1, placed = f >> 1;
    int64_t n_o = d->m - (j + removed - placed); /* original dice left */
    if ((st = alea__charge(ctx, (n_o + 1) * (int64_t)(2 + sj->n), at->start, at->end)) !=
        ALEA_OK)
        return st;
    if (ctx->exact)
        st = ra_row(d, die, s->i, n_o, n_o, at, &d->orow);
    else if (n_o > 0)
        s->row[n_o] = binom_row(n_o, s->rho, s->rhoc, n_o, s->row);
    else
        s->row[0] = 1;
    if (st != ALEA_OK)
        return st;
    s->orow.n = (size_t)n_o + 1;
    const wrow *yr = placed ? &ydone : &s->yrow;
    for (size_t uy = 0; uy < wrow_len(yr); uy++) {
        int64_t yh = wrow_k(yr, uy);
        if (yh >= 0 &&
            (st = ra_spread(d, s, match, sj, f, j, n_o, yh, wrow_w(yr, uy), at)) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

/* Part B, normalised (given that no die was cut): the walk over the die's
 * outcomes, its weights in the context's number system. */
static alea_status ra_walk(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                           const uint8_t *match, int64_t m, int64_t lo, int64_t hi,
                           int64_t gmin, int64_t gmax, const node *at, alea__pmf *out)
{
    alea_status st;
    int64_t F = (int64_t)die->n;
    size_t nF = (size_t)F, ns = 4 * (size_t)hi;
    radp d;
    memset(&d, 0, sizeof d);
    d.ctx = ctx;
    d.hi = hi;
    d.m = m;
    d.lo = lo;
    d.gmin = gmin;
    d.gmax = gmax;
    if ((st = ra_alloc(&d, nF, m)) != ALEA_OK)
        return st;
    double *q = d.block, *S = q + nF, *Snm = S + nF + 1, *row = Snm + nF + 1;
    int64_t *xs = (int64_t *)(void *)(row + m + 1);
    double mass = alea__pmf_mass(die), yd[2];
    for (size_t i = 0; i < nF; i++) {
        q[i] = die->p[i] / mass;
        xs[i] = g ? g[i] : die->v[i];
    }
    S[F] = Snm[F] = 0;
    for (int64_t i = F; i-- > 0;) {
        S[i] = S[i + 1] + q[i];
        Snm[i] = Snm[i + 1] + (match[i] ? 0 : q[i]);
    }
    if (ctx->exact) {
        if ((st = alea__frac_walk_sums(ctx, die, 1, at, &d.sums)) != ALEA_OK)
            goto fail;
        for (int w = 0; w < 2; w++)
            if ((st = outcomes_where(ctx, die, match, w, at, &d.part[w])) != ALEA_OK ||
                (d.part[w].n &&
                 (st = alea__frac_walk_sums(ctx, &d.part[w], 1, at, &d.psums[w])) != ALEA_OK))
                goto fail;
    }
    int64_t K = hi - lo;
    if ((st = alea__acc_init(&d.fin, ctx, at, K * gmin, K * gmax, (double)F * (double)hi)) !=
            ALEA_OK ||
        (st = alea__pmf_point(ctx, 0, ALEA__W(1), &d.st[0])) != ALEA_OK)
        goto fail;

    ra_step s = {.row = row,
                 .yrow = {yd, 2, ctx->exact ? &d.yrow : NULL},
                 .orow = {row, 0, ctx->exact ? &d.orow : NULL}};
    for (int64_t i = 0; i < F; i++) {
        s.i = (size_t)i;
        s.x = xs[i];
        s.rho = q[i] / S[i];
        s.rhoc = S[i + 1] / S[i];
        /* chance that a die above x does not match */
        s.cnm = S[i + 1] > 0 ? Snm[i + 1] / S[i + 1] : 0;
        yd[0] = s.rhoc;
        yd[1] = s.rho;
        *(match[i] ? &s.imt : &s.inm) += 1;
        if (ctx->exact && (st = ra_row(&d, die, (size_t)i, 1, 1, at, &d.yrow)) != ALEA_OK)
            goto fail;
        memset(d.live, 0, ns);
        for (int f = 0; f < 4; f++)
            for (int64_t j = 0; j < hi; j++) {
                const alea__pmf *sj = &d.st[(size_t)f * (size_t)hi + (size_t)j];
                if (sj->n > 0 && (st = ra_state(&d, &s, die, match, sj, f, j, at)) != ALEA_OK)
                    goto fail;
            }
        for (size_t t = 0; t < ns; t++) {
            alea__pmf_free(ctx, &d.st[t]);
            if (d.live[t] && (st = alea__acc_finish(&d.acc[t], &d.st[t])) != ALEA_OK)
                goto fail;
        }
    }
    if ((st = alea__acc_finish(&d.fin, out)) != ALEA_OK)
        goto fail;
    radp_free(&d);
    return ALEA_OK;
fail:
    radp_free(&d);
    return st;
}

alea_status alea__keep_ra(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                               const uint8_t *match, int64_t m, int64_t lo, int64_t hi,
                               const node *at, alea__pmf *out)
{
    alea_status st;
    size_t F = die->n, nm = 0;
    for (size_t i = 0; i < F; i++)
        nm += !match[i];
    if (m == 0 || nm == F) /* nothing can be rerolled */
        return alea__keep(ctx, die, g, m, lo, hi, at, out);

    int64_t K = hi - lo;
    double t = die->trunc, pnm = 0;
    for (size_t i = 0; i < F; i++)
        pnm += match[i] ? 0 : die->p[i];
    double pa = pow(pnm, (double)m); /* P(no die matches, none cut) */
    /* kept mass: no match, or a match and y both kept */
    /* m + 1 dice may be rolled (the rerolled one); m can be INT64_MAX
     * (found by fuzzing), where one more changes no double */
    int64_t m1 = m < INT64_MAX ? m + 1 : m;
    double trunc = alea__trunc_pow(t, m1) - t * pa;
    trunc = trunc < 0 ? 0 : trunc > 1 ? 1 : trunc;

    int64_t gmin, gmax, smin, smax;
    if ((st = kept_range(ctx, die, g, K, at, &gmin, &gmax, &smin, &smax)) != ALEA_OK)
        return st;
    if (!ctx->exact && (K == 0 || gmin == gmax)) { /* one possible sum */
        if ((st = alea__pmf_point(ctx, smin, ALEA__W(1 - trunc), out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    /* In fractions the parts below give the mass exactly; with nothing kept
     * they keep one more position, whose sums are all 0 (m >= 1 here). */
    if (K == 0)
        lo = hi = 1;
    if (!g && (double)K * (double)(F - 1) + 1 > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__support_error(ctx, at);
    /* Each outcome moves every state (j, sums) to up to m - j others: at
     * least outcomes * sum over j < hi of (m - j) * (kept so far + 1).
     * Checked before anything is allocated, as the states' memory grows
     * with it. The sum in closed form: a loop over j costs what an
     * attacker picks (333333333d2ra<2kh3 walked 1.6e8 terms, found by
     * fuzzing the cost of each input). */
    double M = (double)m, L = (double)lo, H = (double)hi;
    double n1 = L + 1 < H ? L + 1 : H;          /* j <= lo: weight 1 */
    double T = H - 1 - L;                       /* j = lo + t, t = 1..T: weight t + 1 */
    double sum = n1 * M - n1 * (n1 - 1) / 2;
    if (T >= 1)
        sum += (M - L) * (T * (T + 1) / 2 + T) - (T * (T + 1) * (2 * T + 1) / 6 + T * (T + 1) / 2);
    double est = 4.0 * (double)F * H * (M + 2) + (double)F * sum;
    if ((st = alea__work_check(ctx, est, at)) != ALEA_OK)
        return st;

    /* Part A: the pool of the other outcomes. In doubles normalised, then
     * weighted by pa; in fractions as they are, so that the pool's own mass
     * is pnm^m exactly. */
    alea__pmf a = {0}, b = {0}, sub = {0};
    int64_t *gs = NULL;
    size_t gs_size = alea__mul_size(nm, sizeof *gs);
    if (nm > 0 && (ctx->exact || pa > 0)) {
        if ((st = outcomes_where(ctx, die, match, 0, at, &sub)) != ALEA_OK)
            return st;
        if (g && !(gs = alea__mem_alloc(ctx, gs_size))) {
            st = alea__nomem(ctx);
            goto done;
        }
        for (size_t i = 0, k = 0; i < F; i++)
            if (!match[i] && gs)
                gs[k++] = g[i];
        for (size_t k = 0; k < nm; k++)
            sub.p[k] = ctx->exact ? sub.p[k] : sub.p[k] / pnm;
        sub.trunc = ctx->exact && pnm < 1 ? 1 - pnm : 0;
        /* sub's missing mass is the matching outcomes' (and the cut one's):
         * the pool of non-matching dice, none cut, as it is */
        if ((st = keep_uncut(ctx, &sub, gs, m, lo, hi, at, &a)) != ALEA_OK)
            goto done;
    }
    /* Part B, times P(none of the m + 1 dice was cut) */
    if ((st = ra_walk(ctx, die, g, match, m, lo, hi, gmin, gmax, at, &b)) != ALEA_OK ||
        (st = scale_uncut(ctx, die, m1, at, &b)) != ALEA_OK)
        goto done;
    if ((st = alea__pmf_add_scaled(ctx, &b, &a, ALEA__W(ctx->exact ? 1 : pa), at)) != ALEA_OK)
        goto done;
    b.trunc = trunc;
    *out = b;
    b.n = 0;
done:
    alea__pmf_free(ctx, &a);
    alea__pmf_free(ctx, &b);
    alea__pmf_free(ctx, &sub);
    if (gs)
        alea__mem_free(ctx, gs, gs_size);
    return st;
}
