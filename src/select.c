/*
 * select.c -- selections of dice: Avrae's d20 "k"/"p" with its selectors
 * ("10d6k1k2k3", "4d6kh3", "4d6p<3"), alea's "k{1,2,3}", "p{h1,l1}".
 *
 * A step selects, among the dice still kept, the union of its items (the
 * dice a value condition matches, the n highest, the n lowest), then keeps
 * only those or drops them. Exact distributions, cheapest first:
 *   - value conditions only: whether a die stays depends on its own face,
 *     so each die adds its contribution or 0, a plain sum;
 *   - highest and lowest only, where every step leaves a contiguous range of
 *     the sorted pool: order statistics (keep.c);
 *   - anything else ("k{h1,l1}", "kh3p1"): every multiset of faces the pool
 *     can show, with its multinomial probability, charged by its real cost
 *     and refused beyond the work limit.
 */
#include <math.h>
#include <string.h>

#include "select.h"
#include "keep.h"
#include "pmf.h"
#include "pool.h"

void alea__select_apply(const pool *p, const int64_t *sorted, size_t m, uint8_t *kept)
{
    for (uint32_t s = 0; s < p->nselects; s++) {
        const select_op *op = &p->selects[s];
        for (uint32_t j = 0; j < op->n; j++) {
            const select_item *it = &p->sel_items[op->first + j];
            int64_t left = it->n;
            switch (it->kind) {
            case SEL_VALUE:
                for (size_t i = 0; i < m; i++)
                    if (kept[i] && alea__cond_match(&it->c, sorted[i]))
                        kept[i] |= 2;
                break;
            case SEL_HIGH:
                /* Down the groups of equal values; of a group that does
                 * not fit whole, its first dice, as the lowest takes them. */
                for (size_t end = m; end > 0 && left > 0;) {
                    size_t start = end - 1;
                    while (start > 0 && sorted[start - 1] == sorted[end - 1])
                        start--;
                    for (size_t i = start; i < end && left > 0; i++)
                        if (kept[i]) {
                            kept[i] |= 2;
                            left--;
                        }
                    end = start;
                }
                break;
            default: /* SEL_LOW */
                for (size_t i = 0; i < m && left > 0; i++)
                    if (kept[i]) {
                        kept[i] |= 2;
                        left--;
                    }
                break;
            }
        }
        for (size_t i = 0; i < m; i++)
            kept[i] = kept[i] == (op->drop ? 1 : 3);
    }
}

/* The kept range [*lo, *hi) after the steps when each leaves a contiguous
 * range of the sorted pool (highest and lowest only); else 0. */
static int select_range(const pool *p, int64_t *lo, int64_t *hi)
{
    for (uint32_t s = 0; s < p->nselects; s++) {
        const select_op *op = &p->selects[s];
        int64_t h = 0, l = 0, k = *hi - *lo;
        for (uint32_t j = 0; j < op->n; j++) {
            const select_item *it = &p->sel_items[op->first + j];
            if (it->kind == SEL_VALUE)
                return 0;
            int64_t *x = it->kind == SEL_HIGH ? &h : &l;
            *x = it->n > *x ? it->n : *x;
        }
        /* Both ends: which dice the two take depends on ties. */
        if (h && l)
            return 0;
        h = h < k ? h : k;
        l = l < k ? l : k;
        if (op->drop)
            *lo += l, *hi -= h;
        else if (h)
            *lo = *hi - h;
        else
            *hi = *lo + l;
    }
    return 1;
}

/* Whether every item of every step is a value condition. */
static int values_only(const pool *p)
{
    for (uint32_t s = 0; s < p->nselects; s++)
        for (uint32_t j = 0; j < p->selects[s].n; j++)
            if (p->sel_items[p->selects[s].first + j].kind != SEL_VALUE)
                return 0;
    return 1;
}

/* Work units of one multiset beyond its faces: its probability from the
 * counts (a multiply-add and a log-factorial per outcome). */
#define MULTISET_COST 4

/* In exact mode, the probability of the multiset of counts c (m dice) in
 * fractions: the multinomial coefficient, a product of binomials each a
 * product of ratios, times each outcome's probability to its count (the
 * die's own, so a die cut by explosion tails needs no rescaling). */
static alea_status exact_weight(alea_ctx *ctx, const node *at, const alea__pmf *die,
                                const int64_t *c, int64_t m, alea__x *w)
{
    alea_status st = ALEA_OK;
    int64_t left = m;
    for (size_t i = 0; st == ALEA_OK && i < die->n; i++) {
        for (int64_t j = 1; st == ALEA_OK && j <= c[i]; j++)
            st = alea__x_ratio(ctx, w, (uint64_t)(left - c[i] + j), (uint64_t)j, at);
        left -= c[i];
        if (st == ALEA_OK && c[i])
            st = alea__x_pow(ctx, w, alea__pmf_w(die, i), (uint64_t)c[i], at);
    }
    return st;
}

/* Every multiset of m faces, as counts c[0..F) of the die's outcomes, in
 * turn; the kept sum of each into the accumulator. */
static alea_status enumerate(alea_ctx *ctx, const node *at, const alea__pmf *die,
                             const int64_t *g, int64_t m, int64_t lo, int64_t hi,
                             double scale, alea__acc *acc)
{
    const pool *p = at->u.pool;
    size_t F = die->n, M = (size_t)m;
    double mass = alea__pmf_mass(die);
    /* c[F] (int64), vals[M] (int64), idx[M] (int64), lq[F], lf[M + 1] */
    size_t words = F + 2 * M + F + M + 1, size = alea__mul_size(words, 8);
    int64_t *c = alea__mem_alloc(ctx, size);
    uint8_t *kept = alea__mem_alloc(ctx, M ? M : 1);
    if (!c || !kept) {
        if (c)
            alea__mem_free(ctx, c, size);
        if (kept)
            alea__mem_free(ctx, kept, M ? M : 1);
        return alea__nomem(ctx);
    }
    int64_t *vals = c + F, *idx = vals + M;
    double *lq = (double *)(void *)(idx + M), *lf = lq + F;
    for (size_t i = 0; i < F; i++) {
        c[i] = 0;
        lq[i] = log(die->p[i] / mass);
    }
    lf[0] = 0;
    for (size_t k = 1; k <= M; k++)
        lf[k] = lf[k - 1] + log((double)k);
    c[0] = m;
    alea_status st = ALEA_OK;
    int64_t per = (int64_t)(3 * M + MULTISET_COST * F) + (int64_t)M * p->nselects;
    for (;;) {
        if ((st = alea__charge(ctx, per, at->start, at->end)) != ALEA_OK)
            break;
        double lp = lf[M];
        size_t k = 0;
        for (size_t i = 0; i < F; i++) {
            if (c[i])
                lp += (double)c[i] * lq[i] - lf[c[i]];
            for (int64_t r = 0; r < c[i]; r++, k++) {
                vals[k] = die->v[i];
                idx[k] = (int64_t)i;
            }
        }
        for (size_t i = 0; i < M; i++)
            kept[i] = (int64_t)i >= lo && (int64_t)i < hi;
        alea__select_apply(p, vals, M, kept);
        int64_t sum = 0; /* within the range the caller checked */
        for (size_t i = 0; i < M; i++)
            if (kept[i])
                sum += g ? g[idx[i]] : vals[i];
        if (ctx->exact) {
            alea__x w;
            alea__x_init(ctx, &w);
            st = exact_weight(ctx, at, die, c, m, &w);
            if (st == ALEA_OK)
                st = alea__acc_add(acc, sum, alea__x_w(&w));
            alea__x_free(ctx, &w);
        } else {
            st = alea__acc_add(acc, sum, ALEA__W(scale * exp(lp)));
        }
        if (st != ALEA_OK)
            break;
        /* the next composition of m into F parts */
        size_t j = 0;
        while (j + 1 < F && c[j] == 0)
            j++;
        if (j + 1 >= F)
            break;
        int64_t t = c[j];
        c[j] = 0;
        c[0] = t - 1;
        c[j + 1]++;
    }
    alea__mem_free(ctx, c, size);
    alea__mem_free(ctx, kept, M ? M : 1);
    return st;
}

alea_status alea__select_dist(alea_ctx *ctx, const node *at, const alea__pmf *die,
                              const int64_t *g, int64_t m, alea__pmf *out)
{
    const pool *p = at->u.pool;
    alea_status st;
    int64_t lo, hi;
    alea__pool_keep_range(p, m, &lo, &hi);
    double trunc = alea__trunc_pow(die->trunc, m);
    if (die->n == 0 || m == 0) {
        if ((st = die->n ? alea__pmf_point(ctx, 0, ALEA__W(1), out) : alea__pmf_alloc(ctx, 0, out)) ==
            ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    if (values_only(p) && lo == 0 && hi == m) {
        /* A die stays by its own face: it adds its contribution, or 0. */
        size_t n = die->n, size = alea__mul_size(n, sizeof(int64_t));
        int64_t *g2 = alea__mem_alloc(ctx, size);
        if (!g2)
            return alea__nomem(ctx);
        if ((st = alea__charge(ctx, (int64_t)n * (1 + p->nselects), at->start, at->end)) ==
            ALEA_OK) {
            for (size_t i = 0; i < n; i++) {
                uint8_t k = 1;
                alea__select_apply(p, &die->v[i], 1, &k);
                g2[i] = k ? (g ? g[i] : die->v[i]) : 0;
            }
            st = alea__keep(ctx, die, g2, m, 0, m, at, out);
        }
        alea__mem_free(ctx, g2, size);
        return st;
    }
    if (select_range(p, &lo, &hi))
        return alea__keep(ctx, die, g, m, lo, hi, at, out);

    /* Every multiset: C(m + F - 1, F - 1) of them, each costing a pass over
     * the pool and the outcomes. */
    double F = (double)die->n, count = 1;
    for (double k = 1; k < F && count < 1e300; k++)
        count = count * ((double)m + k) / k;
    double per = 3 * (double)m + MULTISET_COST * F + (double)m * (double)p->nselects;
    if ((st = alea__work_check(ctx, count * per, at)) != ALEA_OK)
        return st;
    int64_t gmin = 0, gmax = 0, smin, smax;
    for (size_t i = 0; i < die->n; i++) {
        int64_t x = g ? g[i] : die->v[i];
        gmin = x < gmin ? x : gmin;
        gmax = x > gmax ? x : gmax;
    }
    if (alea__mul_ovf(m, gmin, &smin) || alea__mul_ovf(m, gmax, &smax))
        return alea__overflow_error(ctx, at);
    double scale = die->trunc > 0 ? exp((double)m * log1p(-die->trunc)) : 1.0;
    alea__acc acc;
    if ((st = alea__acc_init(&acc, ctx, at, smin, smax, count)) != ALEA_OK)
        return st;
    if ((st = enumerate(ctx, at, die, g, m, lo, hi, scale, &acc)) != ALEA_OK) {
        alea__acc_free(&acc);
        return st;
    }
    if ((st = alea__acc_finish(&acc, out)) == ALEA_OK)
        out->trunc = trunc;
    return st;
}
