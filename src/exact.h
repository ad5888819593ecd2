/*
 * exact.h -- the exact engine (exact.c the tree, exact_pool.c its dice,
 * exact_die.c one die): an expression's tree to its distribution, node by
 * node, over the operations of pmf.h and the pool algorithms (keep.h,
 * select.h, unique.h).
 */
#ifndef ALEA_EXACT_H
#define ALEA_EXACT_H

#include "ast.h"
#include "weight.h"

/* Computes the exact distribution of e. The caller (api.c) has already
 * called alea__budget_start(ctx) and checked arguments. On success *out is
 * a new alea_dist (allocated through ctx) owned by the caller. */
ALEA__HIDDEN alea_status alea__exact(alea_ctx *ctx, const alea_expr *e, alea_dist **out);
/* The player's decisions of e, whose root is a mechanic with a choice
 * (mech.h's policy), into out (alea_policy_new, policy.c). */
ALEA__HIDDEN alea_status alea__exact_policy(alea_ctx *ctx, const alea_expr *e, alea_policy *out);

/* The distribution of node n (group.c). */
ALEA__HIDDEN alea_status alea__exact_eval(alea_ctx *ctx, const node *n, alea__pmf *out);
/* The distribution of one die of the pool of N_DICE node n: rerolled and
 * exploded, without keep, extra dice or the pool's success counting; with
 * count (not NULL), the die's score by it, every roll of a "!" chain
 * judged (group.c). */
ALEA__HIDDEN alea_status alea__exact_die(alea_ctx *ctx, const node *n, const alea__judge *count,
                                         alea__pmf *out);

/* ---- between the engine's files: the tree (exact.c), one die
 * (exact_die.c), the pools (exact_pool.c) ---- */

/* Work units of one pool of a rolled count or rolled sides, or of one value
 * of a name, beyond its own steps (about 3 us of allocations and merging,
 * measured with callgrind). */
#define ALEA__MIX_COST 1000

/* Success counting score of one value by j into *s: +1 success, -1
 * failure; an overflow error at node `at` when the value plus j's numbers
 * overflows. */
ALEA__HIDDEN alea_status alea__exact_score(alea_ctx *ctx, const alea__judge *j, int64_t v,
                                           const node *at, int64_t *s);
/* One roll of pool p's die with its rerolls: the face that stays. */
ALEA__HIDDEN alea_status alea__exact_roll(alea_ctx *ctx, const pool *p, const node *at,
                                          alea__pmf *out);
/* One die of pool p, its chain followed (alea__exact_die, for a pool not
 * necessarily its node's: at one value of rolled sides). */
ALEA__HIDDEN alea_status alea__exact_pool_die(alea_ctx *ctx, const pool *p, const node *at,
                                              const alea__judge *count_mode, alea__pmf *out);
/* The pool of c dice of node n, one roll r each, whose explosions are
 * capped in the whole pool ("x5=10"). */
ALEA__HIDDEN alea_status alea__exact_capped(alea_ctx *ctx, const node *n, const alea__pmf *r,
                                            const alea__judge *count_mode, int64_t c,
                                            alea__pmf *out);
/* The distribution of N_DICE node n (its sides rolled or not). */
ALEA__HIDDEN alea_status alea__exact_dice(alea_ctx *ctx, const node *n, alea__pmf *out);

#endif /* ALEA_EXACT_H */
