/*
 * frac_load.c -- the exact engine's fractions, reached through a module.
 *
 * The pmf operations in fractions (fractions/frac.h, ALEA__FRAC_STATUS and
 * ALEA__FRAC_VOID) are written in the files of fractions/ with GMP and MPFR.
 * Loading them costs a process about 0.7 ms, more than a roll takes, so
 * the library does not link them: they, GMP and MPFR make the module
 * alea-exact.so, which
 * alea__frac_load opens the first time a context computes in fractions
 * (exact mode, or a result in doubles with outcomes near the double range,
 * api.c). The module's table is kept in the context; every function here
 * calls through it. No global state: each context holds its own reference
 * to the module (the dynamic loader counts them), given back when the
 * context is freed, after every object made from it.
 *
 * Where the module is looked for: by its name, which the dynamic loader
 * finds through the run path of the program or of libalea.so (the build
 * tree while building; <libdir>/alea once installed), through
 * LD_LIBRARY_PATH, or in the system's library directories; then at the
 * path it is installed at (ALEA_EXACT_MODULE_PATH).
 */
#include "core.h"
#include "dist.h"
#include "fractions/frac.h"

#ifdef ALEA_HAVE_GMP
#include <dlfcn.h>
#include <string.h>

#ifndef ALEA_EXACT_MODULE_PATH
#define ALEA_EXACT_MODULE_PATH "/usr/local/lib/alea/alea-exact.so"
#endif

static alea_status refuse(alea_ctx *ctx, const char *why, const char *detail)
{
    return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                       "exact fractions need the module alea-exact.so, which %s: %s", why,
                       detail);
}

alea_status alea__frac_load(alea_ctx *ctx)
{
    if (ctx->frac_ops)
        return ALEA_OK;
    void *h = dlopen("alea-exact.so", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        h = dlopen(ALEA_EXACT_MODULE_PATH, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        return refuse(ctx, "could not be loaded", e ? e : "not found");
    }
    const alea__frac_ops *ops = (const alea__frac_ops *)dlsym(h, ALEA__FRAC_SYMBOL);
    static const size_t sizes[] = ALEA__FRAC_SIZES;
    if (!ops || strcmp(ops->version, ALEA_VERSION_STRING) != 0 ||
        memcmp(ops->sizes, sizes, sizeof sizes) != 0) {
        dlclose(h);
        return refuse(ctx, "was found but belongs to another build of alea",
                      "install the module built with this library");
    }
    ctx->frac_handle = h;
    ctx->frac_ops = ops;
    return ALEA_OK;
}

void alea__frac_unload(alea_ctx *ctx)
{
    if (ctx->frac_handle)
        dlclose(ctx->frac_handle);
    ctx->frac_handle = NULL;
    ctx->frac_ops = NULL;
}

#else /* no GMP (a build without it; the WebAssembly build links the
       * fractions on mini-gmp in place of this file): exact mode cannot be
       * switched on */

alea_status alea__frac_load(alea_ctx *ctx)
{
    return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                       "exact fractions are not available in this build of alea "
                       "(it was built without GMP)");
}

void alea__frac_unload(alea_ctx *ctx)
{
    (void)ctx;
}

#endif

/* Each operation, through the table. Without it (which the callers rule
 * out: nothing makes fractions before alea__frac_load succeeded) a call
 * is an internal error, never a jump through NULL. */
#define CALL_STATUS(name, params, args, c)                                                   \
    alea_status alea__frac_##name params                                                     \
    {                                                                                        \
        const alea__frac_ops *ops = (c)->frac_ops;                                           \
        return ops ? ops->name args : alea__broken((c), 0, 0, "fractions without the module"); \
    }
#define CALL_VOID(name, params, args, c)                                                     \
    void alea__frac_##name params                                                            \
    {                                                                                        \
        const alea__frac_ops *ops = (c)->frac_ops;                                           \
        if (ops)                                                                             \
            ops->name args;                                                                  \
    }
ALEA__FRAC_STATUS(CALL_STATUS)
ALEA__FRAC_VOID(CALL_VOID)

int alea__frac_sgn(alea_ctx *ctx, const alea__q *q)
{
    return ctx->frac_ops ? ctx->frac_ops->sgn(ctx, q) : 0;
}
