/*
 * unique.h -- pools with unique dice ("u", "uo") (unique.c).
 */
#ifndef ALEA_UNIQUE_H
#define ALEA_UNIQUE_H

#include <stdint.h>

#include "ast.h"
#include "weight.h"

/*
 * The distribution of the pool of N_DICE node n with unique ("u", "uo"),
 * then its keep, drop, selections and success counts: die is one die's
 * distribution, g[i] the contribution of outcome i (its success score;
 * NULL: its value). Errors:
 * ALEA_ERR_LIMIT when the pool needs more work than the limit ("uo", a
 * condition or faces of unequal weight walk every multiset of faces).
 */
ALEA__HIDDEN alea_status alea__unique_dist(alea_ctx *ctx, const node *n, const alea__pmf *die,
                                           const int64_t *g, alea__pmf *out);

#endif /* ALEA_UNIQUE_H */
