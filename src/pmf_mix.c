/*
 * pmf_mix.c -- the mixture over a parameter's distribution: the
 * distribution of X when X's distribution depends on a random value V (a
 * rolled count or number of sides, a name bound by "let"), the sum over
 * V's outcomes v of P(V = v) times X's distribution given v. In either
 * number system, as the weights of V are.
 */
#include "pmf.h"

alea_status alea__pmf_mix(alea_ctx *ctx, const alea__pmf *param, double check, int64_t charge,
                          alea__mix_fn *at, void *ud, const node *n, alea__pmf *out)
{
    alea__pmf sum = {0}, cur = {0};
    double trunc = param->trunc;
    alea_status st = alea__work_check(ctx, (double)param->n * check, n);
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
