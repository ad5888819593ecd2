/*
 * pmf_arith.c -- the arithmetic of independent distributions under
 * construction (pmf.h), in either number system (in exact mode the
 * fraction module computes what a sum of doubles cannot: fractions/frac.h):
 * convolution, powers, negation and absolute value, remapping, products
 * and quotients, comparisons, max/min of two and of copies.
 *
 * Costs (n, m: outcomes of the operands; s: the result's value range):
 *   a + b            n * m additions (dense rows when the range is small)
 *   n copies of a    O(log n) convolutions by repeated squaring
 *   a * b, a / b     n * m pairs, merged densely or in a hash table
 *   a < b, max(a, b) n + m
 *   best(k, a)       n (powers of the distribution function)
 */
#include "pmf.h"
#include "fractions/frac.h"
#include "table.h"

#include <math.h>

/* ---- sums ------------------------------------------------------------------ */

/* Whether a sum over [lo, hi] from about `pairs` products of outcomes is
 * dense enough to be computed in fractions as a product of polynomials
 * (whose length is the value range, zero coefficients included, so the
 * range must be within the support limit too). */
static int dense_poly(const alea_ctx *ctx, int64_t lo, int64_t hi, double pairs)
{
    double range = (double)((uint64_t)hi - (uint64_t)lo) + 1;
    return range <= (double)alea__support_limit(ctx) &&
           (range <= ALEA__DENSE_SMALL || range <= ALEA__DENSE_RATIO * pairs);
}

alea_status alea__pmf_conv(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b,
                           const node *at, alea__pmf *out)
{
    alea_status st;
    double trunc = alea__trunc_join(a->trunc, b->trunc);
    if (a->n == 0 || b->n == 0) {
        if ((st = alea__pmf_alloc(ctx, 0, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    int64_t lo, hi;
    if (alea__add_ovf(a->v[0], b->v[0], &lo) ||
        alea__add_ovf(a->v[a->n - 1], b->v[b->n - 1], &hi))
        return alea__overflow_error(ctx, at);
    /* |A + B| >= |A| + |B| - 1 for sets of integers */
    if ((uint64_t)a->n + b->n - 1 > alea__support_limit(ctx))
        return alea__support_error(ctx, at);
    if (a->n > b->n) { /* rows over the smaller operand */
        const alea__pmf *t = a;
        a = b;
        b = t;
    }
    double pairs = (double)a->n * (double)b->n;
    if (ctx->exact && dense_poly(ctx, lo, hi, pairs)) {
        if ((st = alea__frac_conv(ctx, a, b, lo, at, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    alea__acc acc;
    if ((st = alea__acc_init(&acc, ctx, at, lo, hi, pairs)) != ALEA_OK)
        return st;
    if ((st = alea__work_check(ctx, pairs * alea__acc_unit(&acc), at)) != ALEA_OK) {
        alea__acc_free(&acc);
        return st;
    }
    for (size_t i = 0; i < a->n; i++) {
        if ((st = alea__charge(ctx, (int64_t)b->n, at->start, at->end)) != ALEA_OK ||
            (st = alea__acc_add_pmf(&acc, b, a->v[i], alea__pmf_w(a, i))) != ALEA_OK) {
            alea__acc_free(&acc);
            return st;
        }
    }
    if ((st = alea__acc_finish(&acc, out)) != ALEA_OK)
        return st;
    out->trunc = trunc;
    return ALEA_OK;
}

alea_status alea__pmf_pow(alea_ctx *ctx, const alea__pmf *a, int64_t n, const node *at,
                          alea__pmf *out)
{
    alea_status st;
    if (n <= 0)
        return alea__pmf_point(ctx, 0, ALEA__W(1), out);
    double trunc = alea__trunc_pow(a->trunc, n);
    if (a->n == 0) {
        if ((st = alea__pmf_alloc(ctx, 0, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    int64_t lo, hi;
    if (alea__mul_ovf(a->v[0], n, &lo) || alea__mul_ovf(a->v[a->n - 1], n, &hi))
        return alea__overflow_error(ctx, at);
    if (a->n == 1 && !ctx->exact) {
        if ((st = alea__pmf_point(ctx, lo, ALEA__W(pow(a->p[0], (double)n)), out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    /* The n-fold sum has at least n * (|A| - 1) + 1 outcomes. */
    if (a->n > 1 && (uint64_t)n > (alea__support_limit(ctx) - 1) / (a->n - 1))
        return alea__support_error(ctx, at);
    if (ctx->exact && dense_poly(ctx, lo, hi, (double)a->n * (double)n * (double)a->n)) {
        if ((st = alea__frac_pow(ctx, a, n, lo, at, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }

    /* Repeated squaring: base runs through a^(2^k), acc collects the bits. */
    alea__pmf base = *a, res = {0}, t;
    int own_base = 0, have = 0;
    for (;;) {
        if (n & 1) {
            st = have ? alea__pmf_conv(ctx, &res, &base, at, &t)
                      : alea__pmf_copy(ctx, &base, &t);
            if (st != ALEA_OK)
                goto fail;
            alea__pmf_free(ctx, &res);
            res = t;
            have = 1;
        }
        n >>= 1;
        if (!n)
            break;
        if ((st = alea__pmf_conv(ctx, &base, &base, at, &t)) != ALEA_OK)
            goto fail;
        if (own_base)
            alea__pmf_free(ctx, &base);
        base = t;
        own_base = 1;
    }
    if (own_base)
        alea__pmf_free(ctx, &base);
    res.trunc = trunc;
    *out = res;
    return ALEA_OK;
fail:
    if (own_base)
        alea__pmf_free(ctx, &base);
    alea__pmf_free(ctx, &res);
    return st;
}

/* ---- unary ----------------------------------------------------------------- */

alea_status alea__pmf_neg(alea_ctx *ctx, const alea__pmf *a, const node *at,
                          alea__pmf *out)
{
    if (a->n && a->v[0] == INT64_MIN)
        return alea__overflow_error(ctx, at);
    alea_status st = alea__pmf_alloc(ctx, a->n, out);
    if (st != ALEA_OK)
        return st;
    for (size_t i = 0; i < a->n; i++) {
        alea__pmf_take(ctx, out, i, a, a->n - 1 - i);
        out->v[i] = -out->v[i];
    }
    out->trunc = a->trunc;
    return alea__pmf_seal(ctx, out, at);
}

alea_status alea__pmf_abs(alea_ctx *ctx, const alea__pmf *a, const node *at,
                          alea__pmf *out)
{
    if (a->n && a->v[0] == INT64_MIN)
        return alea__overflow_error(ctx, at);
    alea_status st = alea__pmf_alloc(ctx, a->n, out);
    if (st != ALEA_OK)
        return st;
    /* Merge the non-negative part (ascending) with the negated negative
     * part (descending in a). */
    size_t z = 0;
    while (z < a->n && a->v[z] < 0)
        z++;
    size_t i = z, j = z, k = 0; /* i: up from z; j: down from z - 1 */
    while (i < a->n || j > 0) {
        int64_t vi = i < a->n ? a->v[i] : INT64_MAX;
        int64_t vj = j > 0 ? -a->v[j - 1] : INT64_MAX;
        if (i < a->n && (j == 0 || vi < vj)) {
            alea__pmf_take(ctx, out, k++, a, i++);
        } else if (i >= a->n || vj < vi) {
            alea__pmf_take(ctx, out, k, a, --j);
            out->v[k++] = vj;
        } else {
            alea__pmf_take(ctx, out, k, a, i++);
            out->p[k] += a->p[--j];
            if (out->q && (st = alea__frac_addmul(ctx, &out->q[k], &a->q[j], ALEA__W(1), at)) !=
                              ALEA_OK) {
                alea__pmf_free(ctx, out);
                return st;
            }
            k++;
        }
    }
    out->trunc = a->trunc;
    alea__pmf_trim(ctx, out, k);
    return alea__pmf_seal(ctx, out, at);
}

/*
 * N when every p[i] is the double nearest k_i / N for whole numbers k_i and
 * N <= 2^32 (the faces of a die, rerolls included); 0 otherwise.
 */
static double common_denominator(const double *p, size_t n)
{
    double pmin = 1;
    for (size_t i = 0; i < n; i++)
        pmin = p[i] < pmin ? p[i] : pmin;
    if (!(pmin > 0x1p-32))
        return 0;
    double den = nearbyint(1 / pmin);
    for (size_t i = 0; i < n; i++) {
        double k = nearbyint(p[i] * den);
        if (k < 1 || k / den != p[i])
            return 0;
    }
    return den;
}

/* pmf_remap in fractions, with pr room for a->n pairs: each pair holds an
 * outcome's index (a whole double) to sort by the new value. */
static alea_status remap_frac(alea_ctx *ctx, const alea__pmf *a, const int64_t *map,
                              alea__pair *pr, const node *at, alea__pmf *out)
{
    size_t n = a->n, k = 0;
    alea_status st;
    for (size_t i = 0; i < n; i++)
        pr[i] = (alea__pair){map[i], (double)i};
    alea__pairs_sort(pr, n);
    for (size_t i = 0; i < n; i++)
        k += i == 0 || pr[i].v != pr[i - 1].v;
    if ((st = alea__pmf_alloc(ctx, k, out)) != ALEA_OK)
        return st;
    k = 0;
    for (size_t i = 0; i < n && st == ALEA_OK; i++) {
        if (i > 0 && pr[i].v == pr[i - 1].v)
            k--;
        out->v[k] = pr[i].v;
        st = alea__frac_addmul(ctx, &out->q[k++], &a->q[(size_t)pr[i].p], ALEA__W(1), at);
    }
    out->trunc = a->trunc;
    if (st != ALEA_OK) {
        alea__pmf_free(ctx, out);
        return st;
    }
    return alea__pmf_seal(ctx, out, at);
}

alea_status alea__pmf_remap(alea_ctx *ctx, const alea__pmf *a, const int64_t *map,
                            const node *at, alea__pmf *out)
{
    alea_status st;
    size_t n = a->n;
    if (n == 0) {
        if ((st = alea__pmf_alloc(ctx, 0, out)) == ALEA_OK)
            out->trunc = a->trunc;
        return st;
    }
    /*
     * Sorted by the new value, each run summed exactly where it can be: a
     * d5362 counted as <=3 adds 5359 probabilities of 1/5362 into one
     * outcome, and a plain sum would be 1.4e-13 short, which 26151 such dice
     * raise to 3.8e-9 (found by fuzzing). The faces of a die share one
     * denominator, so a run is the sum of its numerators over it, rounded
     * once; other probabilities are summed with Neumaier's compensation.
     */
    double den = common_denominator(a->p, n);
    double lg = n > 1 ? ceil(log2((double)n)) : 1;
    if ((st = alea__work_check(ctx, 2 * (double)n * lg, at)) != ALEA_OK ||
        (st = alea__charge(ctx, (int64_t)(2 * (double)n * lg), at->start, at->end)) != ALEA_OK)
        return st;
    alea__pair *pr = alea__mem_alloc(ctx, alea__mul_size(n, sizeof *pr));
    if (!pr)
        return alea__nomem(ctx);
    if (ctx->exact) {
        st = remap_frac(ctx, a, map, pr, at, out);
        alea__mem_free(ctx, pr, n * sizeof *pr);
        return st;
    }
    for (size_t i = 0; i < n; i++)
        pr[i] = (alea__pair){map[i], a->p[i]};
    alea__pairs_sort(pr, n);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        int64_t v = pr[i].v;
        double sum = 0, comp = 0, num = 0;
        for (; i < n && pr[i].v == v; i++) {
            double t = sum + pr[i].p;
            comp += fabs(sum) >= fabs(pr[i].p) ? (sum - t) + pr[i].p : (pr[i].p - t) + sum;
            sum = t;
            num += nearbyint(pr[i].p * den); /* whole numbers: exact below 2^53 */
        }
        double p = den > 0 ? num / den : sum + comp;
        if (p > 0)
            pr[k++] = (alea__pair){v, p};
    }
    if ((st = alea__pmf_alloc(ctx, k, out)) == ALEA_OK) {
        for (size_t i = 0; i < k; i++) {
            out->v[i] = pr[i].v;
            out->p[i] = pr[i].p;
        }
        out->trunc = a->trunc;
    }
    alea__mem_free(ctx, pr, n * sizeof *pr);
    return st;
}

/* ---- products and quotients ---------------------------------------------------- */

/* [*lo, *hi] grown to hold r (*first: nothing held yet). */
static void widen(int64_t *lo, int64_t *hi, int *first, int64_t r)
{
    if (*first || r < *lo)
        *lo = r;
    if (*first || r > *hi)
        *hi = r;
    *first = 0;
}

/* pmf_arith in fractions: the pairs' values, then frac.c sorts them and sums
 * each value's pairs. Checked before the pairs are made: making and
 * sorting them, and a multiply-add each at least. */
static alea_status exact_pairs(alea_ctx *ctx, uint8_t op, const alea__pmf *a,
                               const alea__pmf *b, const node *at, const node *div_at,
                               double trunc, alea__pmf *out)
{
    double pairs = (double)a->n * (double)b->n;
    double lg = pairs > 1 ? ceil(log2(pairs)) : 1;
    alea_status st = alea__work_check(
        ctx, pairs * (ALEA__PAIR_UNIT + lg * ALEA__PAIR_SORT_UNIT + 6), at);
    if (st != ALEA_OK)
        return st;
    if (a->n > UINT32_MAX || b->n > UINT32_MAX || pairs * sizeof(alea__ipair) > (double)SIZE_MAX)
        return alea__support_error(ctx, at);
    size_t n = a->n * b->n, bytes = n * sizeof(alea__ipair);
    alea__ipair *pr = alea__mem_alloc(ctx, bytes ? bytes : 1);
    if (!pr)
        return alea__nomem(ctx);
    for (size_t i = 0; i < a->n && st == ALEA_OK; i++) {
        if ((st = alea__charge(ctx, (int64_t)b->n * ALEA__PAIR_UNIT, at->start, at->end)) !=
            ALEA_OK)
            break;
        for (size_t j = 0; j < b->n; j++) {
            alea__ipair *p = &pr[i * b->n + j];
            int ar = alea__arith(op, a->v[i], b->v[j], &p->v);
            if (ar != ARITH_OK) {
                st = ar == ARITH_INEXACT ? alea__inexact_error(ctx, at->start, div_at->end, 1)
                                         : alea__overflow_error(ctx, at);
                break;
            }
            p->i = (uint32_t)i;
            p->j = (uint32_t)j;
        }
    }
    if (st == ALEA_OK)
        st = alea__frac_pairs(ctx, a, b, pr, n, alea__support_limit(ctx), at, out);
    alea__mem_free(ctx, pr, bytes ? bytes : 1);
    if (st == ALEA_OK)
        out->trunc = trunc;
    return st;
}

alea_status alea__pmf_arith(alea_ctx *ctx, uint8_t op, const alea__pmf *a,
                            const alea__pmf *b, const node *at, const node *div_at,
                            alea__pmf *out)
{
    alea_status st;
    double trunc = alea__trunc_join(a->trunc, b->trunc);
    if (op != OP_MUL && op != OP_POW) {
        for (size_t j = 0; j < b->n; j++)
            if (b->v[j] == 0)
                return alea__error(ctx, ALEA_ERR_DOMAIN, div_at->start, div_at->end,
                                   "division by zero is possible at byte %u: the "
                                   "divisor can be 0",
                                   (unsigned)div_at->start);
    }
    if (a->n == 0 || b->n == 0) {
        if ((st = alea__pmf_alloc(ctx, 0, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    /*
     * The range of the result: x op y is monotone in x for fixed y, and in y
     * on each side of 0 for fixed x (rounding keeps monotonicity), so its
     * extremes are at the ends of a and at the ends of each sign of b. All
     * candidates are attainable, so an overflow among them is real.
     */
    int64_t lo = 0, hi = 0;
    if (op == OP_MOD || op == OP_POW) {
        /* Not monotone: the range from every pair (and every error found
         * before any memory is taken). A power takes up to 7 squarings a
         * pair (bases of 2 or more overflow past that; 0, 1 and -1 take
         * none), done again below: 16 units a pair. */
        int64_t unit = op == OP_POW ? 16 : 1;
        if ((st = alea__work_check(ctx, (double)a->n * (double)b->n * (double)unit, at)) !=
            ALEA_OK)
            return st;
        int first = 1;
        for (size_t i = 0; i < a->n; i++) {
            if ((st = alea__charge(ctx, (int64_t)b->n * unit, at->start, at->end)) != ALEA_OK)
                return st;
            for (size_t j = 0; j < b->n; j++) {
                int64_t r;
                int ar = alea__arith(op, a->v[i], b->v[j], &r);
                if (ar == ARITH_NEGPOW || ar == ARITH_DIV0)
                    return alea__error(ctx, ALEA_ERR_DOMAIN, at->start, at->end,
                                       "a negative power that is not a whole number is "
                                       "possible at byte %u (%lld ^ %lld)",
                                       (unsigned)at->start, (long long)a->v[i],
                                       (long long)b->v[j]);
                if (ar != ARITH_OK)
                    return alea__overflow_error(ctx, at);
                widen(&lo, &hi, &first, r);
            }
        }
        goto ranged;
    }
    int64_t xs[2] = {a->v[0], a->v[a->n - 1]}, ys[4];
    int ny = 0;
    ys[ny++] = b->v[0];
    ys[ny++] = b->v[b->n - 1];
    size_t z = 0;
    while (z < b->n && b->v[z] < 0)
        z++;
    if (z > 0)
        ys[ny++] = b->v[z - 1]; /* negative closest to 0 */
    if (z < b->n)
        ys[ny++] = b->v[z]; /* smallest non-negative */
    int first = 1;
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < ny; j++) {
            int64_t r; /* a whole division's range is the floor's */
            if (alea__arith(op == OP_DIVWHOLE ? OP_DIV : op, xs[i], ys[j], &r) != ARITH_OK)
                return alea__overflow_error(ctx, at);
            widen(&lo, &hi, &first, r);
        }
    }
    /* Products of positive numbers (or of negative ones) are strictly
     * monotone in each factor, so, as for sums, there are at least
     * |a| + |b| - 1 distinct values: refuse an oversized result before any
     * work (1d1000000 * 1d3). */
    if (op == OP_MUL && ((a->v[0] > 0 && b->v[0] > 0) ||
                         (a->v[a->n - 1] < 0 && b->v[b->n - 1] < 0)) &&
        (double)a->n + (double)b->n - 1 > (double)alea__support_limit(ctx))
        return alea__support_error(ctx, at);
ranged:;
    double pairs = (double)a->n * (double)b->n;
    if (ctx->exact)
        return exact_pairs(ctx, op, a, b, at, div_at, trunc, out);
    alea__acc acc;
    if ((st = alea__acc_init(&acc, ctx, at, lo, hi, pairs)) != ALEA_OK)
        return st;
    if ((st = alea__work_check(ctx, pairs * alea__acc_unit(&acc), at)) != ALEA_OK) {
        alea__acc_free(&acc);
        return st;
    }
    for (size_t i = 0; i < a->n; i++) {
        if ((st = alea__charge(ctx, (int64_t)b->n, at->start, at->end)) != ALEA_OK) {
            alea__acc_free(&acc);
            return st;
        }
        for (size_t j = 0; j < b->n; j++) {
            int64_t r;
            int ar = alea__arith(op, a->v[i], b->v[j], &r);
            if (ar != ARITH_OK) {
                alea__acc_free(&acc);
                return ar == ARITH_INEXACT ? alea__inexact_error(ctx, at->start, div_at->end, 1)
                                           : alea__overflow_error(ctx, at);
            }
            if ((st = alea__acc_add2(&acc, r, alea__pmf_w(a, i), alea__pmf_w(b, j))) != ALEA_OK)
                return st;
        }
    }
    if ((st = alea__acc_finish(&acc, out)) != ALEA_OK)
        return st;
    out->trunc = trunc;
    return ALEA_OK;
}

/* ---- comparisons, max and min ---------------------------------------------------- */

alea_status alea__pmf_truth(alea_ctx *ctx, const alea__pmf *a, int true_is, alea__pmf *out)
{
    alea__pmf zero;
    alea_status st = alea__pmf_point(ctx, 0, ALEA__W(1), &zero);
    if (st != ALEA_OK)
        return st;
    st = alea__pmf_cmp(ctx, true_is ? CMP_NE : CMP_EQ, a, &zero, out);
    alea__pmf_free(ctx, &zero);
    return st;
}

alea_status alea__pmf_cmp(alea_ctx *ctx, uint8_t op, const alea__pmf *a,
                          const alea__pmf *b, alea__pmf *out)
{
    alea_status st;
    double ptrue = 0, pfalse = 0;
    if (ctx->exact) {
        if ((st = alea__frac_cmp(ctx, op, a, b, out)) == ALEA_OK)
            out->trunc = alea__trunc_join(a->trunc, b->trunc);
        return st;
    }
    if (a->n && b->n) {
        /* below[j] = P(B < b.v[j]) summed from the bottom, above[j] =
         * P(B >= b.v[j]) summed from the top: no cancellation. */
        size_t nb = b->n;
        double *below = alea__mem_alloc(ctx, alea__mul_size(2 * (nb + 1), sizeof *below));
        if (!below)
            return alea__nomem(ctx);
        double *above = below + nb + 1;
        below[0] = 0;
        for (size_t j = 0; j < nb; j++)
            below[j + 1] = below[j] + b->p[j];
        above[nb] = 0;
        for (size_t j = nb; j-- > 0;)
            above[j] = above[j + 1] + b->p[j];
        size_t j = 0;
        for (size_t i = 0; i < a->n; i++) {
            int64_t x = a->v[i];
            while (j < nb && b->v[j] < x)
                j++;
            double lt = below[j], eq = 0, gt;
            size_t g = j;
            if (j < nb && b->v[j] == x) {
                eq = b->p[j];
                g = j + 1;
            }
            gt = above[g];
            double t, f;
            switch (op) { /* x op B */
            case CMP_EQ: t = eq; f = lt + gt; break;
            case CMP_NE: t = lt + gt; f = eq; break;
            case CMP_LT: t = gt; f = lt + eq; break;
            case CMP_LE: t = eq + gt; f = lt; break;
            case CMP_GT: t = lt; f = eq + gt; break;
            default: t = lt + eq; f = gt; break; /* CMP_GE */
            }
            ptrue += a->p[i] * t;
            pfalse += a->p[i] * f;
        }
        alea__mem_free(ctx, below, 2 * (nb + 1) * sizeof *below);
    }
    size_t k = (size_t)(pfalse > 0) + (size_t)(ptrue > 0);
    if ((st = alea__pmf_alloc(ctx, k, out)) != ALEA_OK)
        return st;
    k = 0;
    if (pfalse > 0) {
        out->v[k] = 0;
        out->p[k++] = pfalse;
    }
    if (ptrue > 0) {
        out->v[k] = 1;
        out->p[k] = ptrue;
    }
    out->trunc = alea__trunc_join(a->trunc, b->trunc);
    return ALEA_OK;
}

alea_status alea__pmf_minmax(alea_ctx *ctx, int is_max, const alea__pmf *a,
                             const alea__pmf *b, alea__pmf *out)
{
    /*
     * max = v when one is v and the other at most v, without counting both
     * twice: P(A = v) P(B <= v) + P(A < v) P(B = v). For min the mirror
     * image, walking down from the top. Products only, no cancellation.
     */
    /* In exact mode the two running sums are kept in the last two
     * fractions of out (at most a->n + b->n - 1 outcomes come first). */
    alea_status st = alea__pmf_alloc(ctx, a->n + b->n + (ctx->exact ? 2 : 0), out);
    if (st != ALEA_OK)
        return st;
    size_t na = a->n, nb = b->n, i = 0, j = 0, k = 0;
    double fa = 0, fb = 0; /* mass of A, B strictly before v in the walk */
    while (i < na || j < nb) {
        /* walk order: ascending for max, descending for min */
        size_t ia = is_max ? i : na - 1 - i, jb = is_max ? j : nb - 1 - j;
        int take_a, take_b;
        if (i >= na) {
            take_a = 0;
            take_b = 1;
        } else if (j >= nb) {
            take_a = 1;
            take_b = 0;
        } else {
            int64_t va = a->v[ia], vb = b->v[jb];
            take_a = is_max ? va <= vb : va >= vb;
            take_b = va == vb || !take_a;
        }
        double pa = take_a ? a->p[ia] : 0, pb = take_b ? b->p[jb] : 0;
        double r = pa * (fb + pb) + fa * pb;
        if (out->q) {
            if ((st = alea__frac_minmax_step(ctx, &out->q[k], &out->q[out->n - 2],
                                             &out->q[out->n - 1], take_a ? &a->q[ia] : NULL,
                                             take_b ? &b->q[jb] : NULL)) != ALEA_OK) {
                alea__pmf_free(ctx, out);
                return st;
            }
            r = alea__frac_sgn(ctx, &out->q[k]);
        }
        if (r > 0) {
            out->v[k] = take_a ? a->v[ia] : b->v[jb];
            out->p[k++] = r;
        }
        fa += pa;
        fb += pb;
        i += (size_t)take_a;
        j += (size_t)take_b;
    }
    if (!is_max) { /* written descending */
        for (size_t l = 0; l < k / 2; l++) {
            int64_t tv = out->v[l];
            double tp = out->p[l];
            out->v[l] = out->v[k - 1 - l];
            out->p[l] = out->p[k - 1 - l];
            out->v[k - 1 - l] = tv;
            out->p[k - 1 - l] = tp;
            if (out->q)
                alea__frac_swap(ctx, out, l, k - 1 - l);
        }
    }
    out->trunc = alea__trunc_join(a->trunc, b->trunc);
    alea__pmf_trim(ctx, out, k);
    return alea__pmf_seal(ctx, out, NULL);
}

/* hi^n - lo^n for 0 <= lo <= hi, accurate when they are close. */
static double pow_diff(double hi, double lo, double n)
{
    if (lo <= 0)
        return pow(hi, n);
    double e = n * log1p((hi - lo) / lo);
    if (e > 1)
        return pow(hi, n) - pow(lo, n);
    return pow(lo, n) * expm1(e);
}

alea_status alea__pmf_extreme(alea_ctx *ctx, int is_max, const alea__pmf *a, int64_t n,
                              const node *at, alea__pmf *out)
{
    /*
     * P(max = v) = F(v)^n - F(v-)^n with F the distribution function,
     * normalised so that it ends at exactly 1 (rounding in the total would
     * otherwise be raised to the n-th power), then scaled by the kept mass
     * of n copies, (1 - trunc)^n.
     */
    alea_status st = alea__pmf_alloc(ctx, a->n, out);
    if (st != ALEA_OK)
        return st;
    if (out->q) {
        size_t k = 0;
        if ((st = alea__frac_extreme(ctx, is_max, a, n, at, out)) != ALEA_OK) {
            alea__pmf_free(ctx, out);
            return st;
        }
        for (size_t i = 0; i < a->n; i++)
            if (alea__frac_sgn(ctx, &out->q[i]) > 0) {
                out->v[k] = out->v[i];
                alea__frac_swap(ctx, out, k++, i);
            }
        out->trunc = alea__trunc_pow(a->trunc, n);
        alea__pmf_trim(ctx, out, k);
        return alea__pmf_seal(ctx, out, at);
    }
    double dn = (double)n, total = alea__pmf_mass(a), run = 0, f = 0;
    double scale = a->trunc > 0 ? exp(dn * log1p(-a->trunc)) : 1.0;
    size_t k = 0;
    for (size_t s = 0; s < a->n; s++) {
        size_t i = is_max ? s : a->n - 1 - s;
        run += a->p[i];
        double nf = s + 1 == a->n ? 1.0 : run / total;
        out->v[i] = a->v[i];
        out->p[i] = scale * pow_diff(nf, f, dn);
        f = nf;
    }
    for (size_t i = 0; i < a->n; i++) { /* drop underflowed outcomes */
        if (out->p[i] > 0) {
            out->v[k] = out->v[i];
            out->p[k++] = out->p[i];
        }
    }
    out->trunc = alea__trunc_pow(a->trunc, n);
    return alea__pmf_trim(ctx, out, k);
}
