/*
 * keep.h -- keep and drop on a pool of identical dice (keep.c, and the
 * walks of keep_walk.c): the distribution of the sum of the kept dice by
 * order statistics, never by enumerating rolls; and "ra", one die rolled
 * again before keeping.
 */
#ifndef ALEA_KEEP_H
#define ALEA_KEEP_H

#include <stdint.h>

#include "ast.h"
#include "weight.h"

/*
 * The distribution of the sum of g over the dice at sorted (ascending)
 * positions [lo, hi) of m iid dice distributed as die (0 <= lo <= hi <= m).
 * g[i] is the contribution of die outcome i (NULL: the outcome's value).
 * Keep/drop is computed by order-statistic dynamic programming over the
 * die's outcomes, never by enumerating rolls. A die with deficient mass
 * (its probabilities sum to 1 - die->trunc) gives out->trunc =
 * 1 - (1 - die->trunc)^m.
 */
ALEA__HIDDEN alea_status alea__keep(alea_ctx *ctx, const alea__pmf *die,
                                         const int64_t *g, int64_t m, int64_t lo,
                                         int64_t hi, const node *at, alea__pmf *out);
/* alea__keep by the threshold method alone (a threshold per outcome, see
 * keep.c), which alea__keep picks when it is the cheaper or in exact mode;
 * only for a kept range at one end (lo == 0 or hi == m). For tests. */
ALEA__HIDDEN alea_status alea__keep_threshold(alea_ctx *ctx, const alea__pmf *die,
                                              const int64_t *g, int64_t m, int64_t lo,
                                              int64_t hi, const node *at, alea__pmf *out);

/*
 * The same with "ra": before keeping, the lowest die whose value matches
 * (match[i] for die outcome i) is rolled again and the new roll stands.
 * Walks from the bottom only, so it suits small pools.
 */
ALEA__HIDDEN alea_status alea__keep_ra(alea_ctx *ctx, const alea__pmf *die,
                                            const int64_t *g, const uint8_t *match,
                                            int64_t m, int64_t lo, int64_t hi,
                                            const node *at, alea__pmf *out);

/* ---- between keep.c and keep_walk.c ---- */

/* What one die contributes, [*gmin, *gmax] (its g, or its face when g is
 * NULL), and the sums K kept dice can make, [*smin, *smax] (keep.c). */
ALEA__HIDDEN alea_status alea__keep_range(alea_ctx *ctx, const alea__pmf *die,
                                          const int64_t *g, int64_t K, const node *at,
                                          int64_t *gmin, int64_t *gmax, int64_t *smin,
                                          int64_t *smax);
/* alea__keep of m dice none of which was cut (scaled by that chance;
 * keep.c): the cases with no walk, the threshold method or the walk. */
ALEA__HIDDEN alea_status alea__keep_uncut(alea_ctx *ctx, const alea__pmf *die,
                                          const int64_t *g, int64_t m, int64_t lo, int64_t hi,
                                          const node *at, alea__pmf *out);
/* d (normalised: the chance of its outcomes given that no die was cut)
 * times P(none of m dice of die was cut); d is freed on error (keep.c). */
ALEA__HIDDEN alea_status alea__keep_scale_uncut(alea_ctx *ctx, const alea__pmf *die, int64_t m,
                                                const node *at, alea__pmf *d);
/* The walk over the die's outcomes (keep_walk.c) for alea__keep_uncut:
 * the kept sums, in [smin, smax], of m dice none of which was cut,
 * normalised (given that none was), trunc 0. */
ALEA__HIDDEN alea_status alea__keep_walk(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                         int64_t m, int64_t lo, int64_t hi, int64_t smin,
                                         int64_t smax, const node *at, alea__pmf *out);

#endif /* ALEA_KEEP_H */
