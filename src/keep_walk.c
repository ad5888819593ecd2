/*
 * keep_walk.c -- the walks of keep/drop over the die's outcomes (keep.h):
 * order statistics on pools of iid dice, without enumerating rolls (the
 * method of the Python library icepool). "ra", a walk from the bottom, is in
 * keep_ra.c.
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
#include "pmf.h"

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

/* d's tables (d->F and d->phi set): the block of q, S, x, row, tlo, thi,
 * adds, the states and their accumulators, all 0. */
static alea_status dp_alloc(dp *d)
{
    alea_ctx *ctx = d->ctx;
    size_t nF = (size_t)d->F, nphi = (size_t)d->phi;
    /* q[F], S[F + 1], x[F] (int64), row[phi + 1], tlo[phi], thi[phi],
     * adds[phi] */
    size_t words = nF + (nF + 1) + nF + 4 * nphi + 1;
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
    d->adds = d->row + nphi + 1;
    d->xs = (int64_t *)(void *)(d->adds + nphi);
    d->tlo = d->xs + nF;
    d->thi = d->tlo + nphi;
    return ALEA_OK;
}

/* The contributions in walk order. */
static void dp_order(dp *d, const alea__pmf *die, const int64_t *g)
{
    int64_t F = d->F;
    for (int64_t t = 0; t < F; t++) {
        size_t i = (size_t)(d->bottom ? t : F - 1 - t);
        d->xs[t] = g ? g[i] : die->v[i];
    }
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

/* The walk's weights at an outcome t: normalised doubles, unnormalised
 * fractions (only their ratios count): qt its mass, St the mass at or
 * beyond it, St1 beyond it; in doubles also rho = qt / St, the chance that
 * a die at or beyond t takes it, and rhoc = St1 / St, worked out once per
 * outcome rather than once per row. */
typedef struct walk_at {
    alea__w qt, St, St1;
    double rho, rhoc;
} walk_at;

/* State j at outcome t of the walk: k more of the m - j dice left take its
 * value (a row of binomial weights with the chance w->rho), into the next
 * state j + k, or into the result once the kept range is filled (k = phi -
 * j: the rest of the kept range is filled by x, collapse). */
static alea_status dp_row(dp *d, int64_t t, int64_t j, const walk_at *w, alea__pmf *brow,
                          const node *at)
{
    alea_ctx *ctx = d->ctx;
    const alea__pmf *sj = &d->st[j];
    int64_t phi = d->phi, x = d->xs[t], base = j > d->plo ? j : d->plo;
    alea__acc *acc = d->acc, *fin = &d->fin; /* in locals: the calls below cannot move them */
    alea_status st;
    if ((st = alea__charge(ctx, (int64_t)(sj->n * (size_t)(phi - j + 1)) + STATE_COST,
                           at->start, at->end)) != ALEA_OK)
        return st;
    if (ctx->exact) { /* the row's terms, zero ones left out, k = phi - j last */
        if ((st = alea__pmf_binom_row(ctx, w->qt, w->St, w->St1, d->m - j, phi - j, at, d->row,
                                      brow)) != ALEA_OK)
            return st;
        for (size_t u = 0; u < brow->n; u++) {
            int64_t k = brow->v[u], kept = j + k > base ? j + k - base : 0;
            st = j + k < phi ? alea__acc_add_pmf(&acc[j + k], sj, kept * x, alea__pmf_w(brow, u))
                             : alea__acc_add_pmf(fin, sj, (phi - base) * x, alea__pmf_w(brow, u));
            if (st != ALEA_OK)
                return st;
        }
        return ALEA_OK;
    }
    /* alea__pmf_binom_row's doubles body, with rho worked out once per outcome */
    double *row = d->row;
    double tail = alea__binom_row(d->m - j, w->rho, w->rhoc, phi - j, row);
    for (int64_t k = 0; j + k < phi; k++) {
        int64_t kept = j + k > base ? j + k - base : 0;
        if (row[k] > 0 &&
            (st = alea__acc_add_pmf(&acc[j + k], sj, kept * x, ALEA__W(row[k]))) != ALEA_OK)
            return st;
    }
    if (tail > 0 && (st = alea__acc_add_pmf(fin, sj, (phi - base) * x, ALEA__W(tail))) != ALEA_OK)
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
    size_t i = (size_t)(d->bottom ? t : d->F - 1 - t);
    int qs = sums->q != NULL;
    walk_at w = {{d->q[t], qs ? &die->q[i] : NULL},
                 {d->S[t], qs ? &sums->q[t] : NULL},
                 {d->S[t + 1], qs && t + 1 < d->F ? &sums->q[t + 1] : NULL},
                 0,
                 0};
    if (!ctx->exact) {
        w.rho = d->q[t] / d->S[t];
        w.rhoc = d->S[t + 1] / d->S[t];
    }
    alea__acc *acc = d->acc;
    alea__pmf *sts = d->st;
    const double *adds = d->adds;
    alea_status st;
    for (int64_t j = 0; j < phi; j++)
        if (tlo[j] <= thi[j] &&
            (st = alea__acc_init(&acc[j], ctx, at, tlo[j], thi[j], adds[j])) != ALEA_OK)
            return st;
    for (int64_t j = 0; j < phi; j++)
        if (sts[j].n > 0 && (st = dp_row(d, t, j, &w, brow, at)) != ALEA_OK)
            return st;
    for (int64_t j = 0; j < phi; j++) {
        alea__pmf_free(ctx, &sts[j]);
        if (tlo[j] <= thi[j] && (st = alea__acc_finish(&acc[j], &sts[j])) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

alea_status alea__keep_walk(alea_ctx *ctx, const alea__pmf *die, const int64_t *g, int64_t m,
                            int64_t lo, int64_t hi, int64_t smin, int64_t smax, const node *at,
                            alea__pmf *out)
{
    alea_status st;
    int64_t F = (int64_t)die->n;
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

    dp d = {.ctx = ctx, .F = F, .phi = phi, .m = m, .plo = plo, .bottom = bottom};
    alea__pmf sums = {0}, brow = {0}; /* exact mode: see below */
    if ((st = dp_alloc(&d)) != ALEA_OK)
        return st;
    dp_order(&d, die, g);

    if ((st = alea__acc_init(&d.fin, ctx, at, smin, smax, (double)F * (double)phi)) !=
            ALEA_OK ||
        (st = alea__pmf_point(ctx, 0, ALEA__W(1), &d.st[0])) != ALEA_OK)
        goto fail;
    /* In fractions: the masses at or beyond each outcome, for the rows of
     * binomial weights. The walk's weights are normalised (given that no
     * die was cut); the result is scaled by P(no die was cut) at the end. */
    if ((st = alea__pmf_walk_sums(ctx, die, bottom, at, d.q, d.S, &sums)) != ALEA_OK)
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
    return ALEA_OK;
fail:
    dp_free(&d);
    alea__pmf_free(ctx, &sums);
    alea__pmf_free(ctx, &brow);
    return st;
}
