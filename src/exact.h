/*
 * exact.h -- the exact engine (exact.c): an expression's tree to its
 * distribution, node by node, over the operations of pmf.h and the pool
 * algorithms (keep.h, select.h, unique.h).
 */
#ifndef ALEA_EXACT_H
#define ALEA_EXACT_H

#include "ast.h"
#include "weight.h"

/* Computes the exact distribution of e. The caller (api.c) has already
 * called alea__budget_start(ctx) and checked arguments. On success *out is
 * a new alea_dist (allocated through ctx) owned by the caller. */
ALEA__HIDDEN alea_status alea__exact(alea_ctx *ctx, const alea_expr *e, alea_dist **out);

/* The distribution of node n (group.c). */
ALEA__HIDDEN alea_status alea__exact_eval(alea_ctx *ctx, const node *n, alea__pmf *out);
/* The distribution of one die of the pool of N_DICE node n: rerolled and
 * exploded, without keep, extra dice or the pool's success counting; with
 * count (not NULL), the die's score by it, every roll of a "!" chain
 * judged (group.c). */
ALEA__HIDDEN alea_status alea__exact_die(alea_ctx *ctx, const node *n, const alea__judge *count,
                                         alea__pmf *out);

#endif /* ALEA_EXACT_H */
