/*
 * env.c -- the environment of an evaluation: slots bound to values (env.h).
 */
#include <string.h>

#include "env.h"
#include "ast.h"

alea_status alea__env_init(alea_ctx *ctx, alea__arena *arena, uint32_t n, alea__env *env)
{
    memset(env, 0, sizeof *env);
    if (n == 0)
        return ALEA_OK;
    size_t bytes = alea__mul_size(n, sizeof *env->v + sizeof *env->bound);
    void *block = arena ? alea__arena_alloc(arena, bytes) : alea__mem_alloc(ctx, bytes);
    if (!block)
        return alea__nomem(ctx);
    memset(block, 0, bytes);
    env->n = n;
    env->v = block;
    env->bound = (uint8_t *)(env->v + n);
    return ALEA_OK;
}

void alea__env_free(alea_ctx *ctx, alea__env *env)
{
    if (env->n)
        alea__mem_free(ctx, env->v, (size_t)env->n * (sizeof *env->v + sizeof *env->bound));
    memset(env, 0, sizeof *env);
}

alea_status alea__env_get(alea_ctx *ctx, const alea__env *env, uint32_t slot, size_t start,
                          size_t end, int64_t *v)
{
    if (!env || slot >= env->n || !env->bound[slot])
        return alea__broken(ctx, start, end, "a name that is not bound");
    *v = env->v[slot];
    return ALEA_OK;
}

alea_status alea__env_bind(alea_ctx *ctx, alea__env *env, uint32_t slot, int64_t v, size_t start,
                           size_t end, alea__env_saved *saved)
{
    if (!env || slot >= env->n)
        return alea__broken(ctx, start, end, "a binding outside the expression's names");
    saved->v = env->v[slot];
    saved->bound = env->bound[slot];
    env->v[slot] = v;
    env->bound[slot] = 1;
    return ALEA_OK;
}

void alea__env_unbind(alea__env *env, uint32_t slot, const alea__env_saved *saved)
{
    env->v[slot] = saved->v;
    env->bound[slot] = saved->bound;
}

alea_status alea__env_params(alea_ctx *ctx, const alea_expr *e, alea__env *env)
{
    if (!e->nparams)
        return ALEA_OK;
    if (!ctx->params)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "the parameter '%.*s' has no value: give the parameters' values "
                           "(alea_expr_dist_at, alea_expr_roll_at)",
                           (int)(e->params[0].len > 24 ? 24 : e->params[0].len),
                           e->params[0].name);
    for (uint32_t i = 0; i < e->nparams && i < env->n; i++) {
        env->v[i] = ctx->params[i];
        env->bound[i] = 1;
    }
    return ALEA_OK;
}
