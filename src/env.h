/*
 * env.h -- the environment of an evaluation: the values bound to names.
 *
 * A name is a slot, a small number the parser gives each binding
 * (alea_expr.nslots of them in an expression): a use of the name (N_NAME)
 * reads its slot, a binding (N_BIND) writes it for the time of its body.
 * The slots are allocated per evaluation through the context's allocator,
 * never shared: two evaluations, or two contexts, never see each other's
 * values. The roller carries its environment in its state (roll.h), the
 * exact engine in the context, for the evaluation under way (core.h).
 */
#ifndef ALEA_ENV_H
#define ALEA_ENV_H

#include <stdint.h>

#include "core.h"

typedef struct alea__env {
    uint32_t n;     /* slots */
    int64_t *v;     /* v[slot]: the bound value, when bound[slot] */
    uint8_t *bound; /* 1: the slot holds a value */
} alea__env;

/* What a binding replaced, given back when it ends (a binding in the body
 * of another of the same slot shadows it, and ends before it). */
typedef struct alea__env_saved {
    int64_t v;
    uint8_t bound;
} alea__env_saved;

/* An environment of n slots, none bound, its storage from the arena (the
 * roller's, reset at every roll), or from the context when arena is NULL
 * (then released by alea__env_free). n may be 0: no storage. */
ALEA__HIDDEN alea_status alea__env_init(alea_ctx *ctx, alea__arena *arena, uint32_t n,
                                        alea__env *env);
/* Binds e's parameters (slots 0 to e->nparams - 1) to the values the
 * call under way gave (ctx->params): ALEA_ERR_ARGUMENT naming the first
 * parameter when none were given (alea_expr_dist rather than
 * alea_expr_dist_at). */
struct alea_expr;
ALEA__HIDDEN alea_status alea__env_params(alea_ctx *ctx, const struct alea_expr *e,
                                          alea__env *env);
/* Releases what alea__env_init took from the context (not from an arena). */
ALEA__HIDDEN void alea__env_free(alea_ctx *ctx, alea__env *env);

/* The value of slot into *v. A slot outside the environment, or unbound
 * (env may be NULL: none), is the tree's fault, reported as broken at
 * [start, end): never read blindly. */
ALEA__HIDDEN alea_status alea__env_get(alea_ctx *ctx, const alea__env *env, uint32_t slot,
                                       size_t start, size_t end, int64_t *v);
/* Binds slot to v, keeping what it held in *saved for alea__env_unbind.
 * A slot outside the environment is reported as broken at [start, end). */
ALEA__HIDDEN alea_status alea__env_bind(alea_ctx *ctx, alea__env *env, uint32_t slot, int64_t v,
                                        size_t start, size_t end, alea__env_saved *saved);
/* Ends a binding of slot made by alea__env_bind: the slot holds again what
 * it held before. */
ALEA__HIDDEN void alea__env_unbind(alea__env *env, uint32_t slot, const alea__env_saved *saved);

#endif /* ALEA_ENV_H */
