/*
 * weight.c -- the storage of a distribution under construction (weight.h):
 * one block for its values, its doubles and, in exact mode, room for its
 * fractions. What the fractions hold (GMP's digits) is theirs to set up
 * and give back (fractions/, through pmf.c), so this file knows no number
 * system but doubles and serves both. And a probability in decimal
 * scientific form (alea__sci), as both write it.
 */
#include "weight.h"

#include <math.h>

static size_t outcome_bytes(size_t n, int exact)
{
    return alea__mul_size(n, sizeof(int64_t) + sizeof(double) + (exact ? sizeof(alea__q) : 0));
}

void alea__pmf_block_free(alea_ctx *ctx, alea__pmf *d)
{
    if (d->n)
        alea__spare_free(ctx, d->v, d->bytes);
    d->v = NULL;
    d->p = NULL;
    d->q = NULL;
    d->n = 0;
    d->bytes = 0;
}

alea_status alea__pmf_block_alloc(alea_ctx *ctx, size_t n, int exact, alea__pmf *d)
{
    d->v = NULL;
    d->p = NULL;
    d->q = NULL;
    d->n = 0;
    d->bytes = 0;
    d->qbytes = 0;
    d->trunc = 0;
    d->has_cut_low = 0;
    d->cut_low = 0;
    if (n == 0)
        return ALEA_OK;
    int64_t *block = alea__spare_alloc(ctx, outcome_bytes(n, exact), &d->bytes);
    if (!block)
        return alea__nomem(ctx);
    d->v = block;
    d->p = (double *)(void *)(block + n);
    d->n = n;
    if (exact)
        d->q = (alea__q *)(void *)(d->p + n);
    return ALEA_OK;
}

alea__sci alea__sci_norm(double d, double m, int64_t e)
{
    if (m >= 10) {
        m /= 10;
        e++;
    } else if (m < 1) {
        m *= 10;
        e--;
    }
    return (alea__sci){.m = m, .e = e, .d = d};
}

alea__sci alea__sci_of(double d)
{
    int64_t e = (int64_t)floor(log10(d));
    return alea__sci_norm(d, d / pow(10, (double)e), e);
}
