/*
 * pmf_mix.c -- the mixture over a parameter's distribution: the
 * distribution of X when X's distribution depends on a random value V (a
 * rolled count or number of sides, a name bound by "let"), the sum over
 * V's outcomes v of P(V = v) times X's distribution given v. In either
 * number system, as the weights of V are. A sum of a rolled number of
 * copies builds each count's sum from the one before (alea__pmf_mix_sums).
 */
#include "pmf.h"

alea_status alea__pmf_mix(alea_ctx *ctx, const alea__pmf *param, double check, int64_t charge,
                          alea__mix_fn *at, void *ud, const node *n, alea__pmf *out)
{
    alea__pmf sum = {0}, cur = {0};
    double trunc = param->trunc;
    alea_status st;
    if (alea__pmf_certain(param)) {
        /* The distribution at the one value: no copy scaled by 1 to make,
         * no mixing step to charge ("if" of a condition a name decides). */
        if ((st = at(ctx, ud, param->v[0], &cur)) != ALEA_OK) {
            alea__pmf_free(ctx, &cur);
            return st;
        }
        cur.has_cut_low = 0; /* as a mixture's */
        *out = cur;
        return ALEA_OK;
    }
    st = alea__work_check(ctx, (double)param->n * check, n);
    for (size_t i = 0; st == ALEA_OK && i < param->n; i++) {
        if ((st = alea__charge(ctx, charge, n->start, n->end)) != ALEA_OK ||
            (st = at(ctx, ud, param->v[i], &cur)) != ALEA_OK ||
            (st = alea__pmf_add_scaled(ctx, &sum, &cur, alea__pmf_w(param, i), n)) != ALEA_OK)
            break;
        trunc += param->p[i] * cur.trunc;
    }
    if (st == ALEA_OK) {
        sum.trunc = trunc < 0 ? 0 : trunc > 1 ? 1 : trunc;
        *out = sum;
        sum.n = 0;
    }
    alea__pmf_free(ctx, &sum);
    alea__pmf_free(ctx, &cur);
    return st;
}

/* The sums of copies for alea__pmf_mix_sums: the summand, and the count
 * whose sum *cur holds (-1: none yet). */
typedef struct mix_sums {
    const alea__pmf *a;
    const node *at;
    int64_t last;
} mix_sums;

/* The sum of c copies, from the sum of the count before in *cur: a copy
 * more, or the copies between added at once (by repeated squaring). */
static alea_status sums_at(alea_ctx *ctx, void *ud, int64_t c, alea__pmf *cur)
{
    mix_sums *m = ud;
    alea_status st;
    alea__pmf step, x;
    int first = m->last < 0;
    int64_t gap = c - (first ? 0 : m->last);
    if (first || gap > 1) {
        if ((st = alea__pmf_pow(ctx, m->a, gap, m->at, &step)) != ALEA_OK)
            return st;
        if (first) {
            x = step;
        } else {
            st = alea__pmf_conv(ctx, cur, &step, m->at, &x);
            alea__pmf_free(ctx, &step);
        }
    } else {
        st = alea__pmf_conv(ctx, cur, m->a, m->at, &x);
    }
    if (st != ALEA_OK)
        return st;
    alea__pmf_free(ctx, cur);
    *cur = x;
    m->last = c;
    return ALEA_OK;
}

alea_status alea__pmf_mix_sums(alea_ctx *ctx, const alea__pmf *count, const alea__pmf *a,
                               int64_t charge, const node *n, alea__pmf *out)
{
    mix_sums m = {a, n, -1};
    return alea__pmf_mix(ctx, count, 0, charge, sums_at, &m, n, out);
}
