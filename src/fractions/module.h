/*
 * module.h -- what the files of the fraction module (alea-exact.so) share
 * among themselves and nothing else includes: the module's own pmfs, its
 * refusal of a weight with no exact value, and the budget checks at a
 * node. The module sits on the storage (weight.c), the output (out.c) and
 * core alone; nothing of pmf.c is called from here.
 */
#ifndef ALEA_FRAC_MODULE_H
#define ALEA_FRAC_MODULE_H

#include "frac.h"

#ifndef ALEA_HAVE_GMP
#error "the fraction module is built with GMP (ALEA_HAVE_GMP) only"
#endif
#include <gmp.h>

/* ALEA_ERR_INVALID: a weight with no exact value (a construct whose exact
 * form is not written yet), at node at (may be NULL). */
ALEA__HIDDEN alea_status alea__frac_inexact(alea_ctx *ctx, const node *at);

/* A pmf of n outcomes in the context's number system, its fractions set
 * up (0); and given back, its fractions first (as pmf.h's alloc/free). */
ALEA__HIDDEN alea_status alea__frac_pmf_alloc(alea_ctx *ctx, size_t n, alea__pmf *d);
ALEA__HIDDEN void alea__frac_pmf_free(alea_ctx *ctx, alea__pmf *d);

/* core's budget checks at the span of node at (NULL: none). */
static inline alea_status work_check(alea_ctx *ctx, double units, const node *at)
{
    return alea__work_check_span(ctx, units, at ? at->start : 0, at ? at->end : 0);
}

static inline alea_status support_error(alea_ctx *ctx, const node *at)
{
    return alea__support_error_span(ctx, at ? at->start : 0, at ? at->end : 0);
}

#endif /* ALEA_FRAC_MODULE_H */
