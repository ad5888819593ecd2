/*
 * select.h -- a pool's selection steps after its keep steps (select.c).
 */
#ifndef ALEA_SELECT_H
#define ALEA_SELECT_H

#include <stdint.h>

#include "ast.h"
#include "weight.h"

/*
 * The distribution of the pool node `at` of m dice distributed as die (g as
 * in alea__keep) with its selection steps (select.c) after its keep steps.
 * Errors: ALEA_ERR_LIMIT when the pool needs more work than the limit.
 */
ALEA__HIDDEN alea_status alea__select_dist(alea_ctx *ctx, const node *at,
                                           const alea__pmf *die, const int64_t *g,
                                           int64_t m, alea__pmf *out);

#endif /* ALEA_SELECT_H */
