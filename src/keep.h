/*
 * keep.h -- keep and drop on a pool of identical dice (keep.c): the
 * distribution of the sum of the kept dice by order statistics, never by
 * enumerating rolls; and "ra", one die rolled again before keeping.
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

#endif /* ALEA_KEEP_H */
