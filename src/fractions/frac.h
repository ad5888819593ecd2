/*
 * frac.h -- the fraction module (alea-exact.so): the pmf operations in exact
 * fractions (GMP), listed once as X-tables for the module (fractions/,
 * which defines them) and for the library's loader (frac_load.c, which defines
 * each as a call through the module's table), and the table itself, whose
 * layout check (ALEA__FRAC_SIZES) refuses a module of another build.
 */
#ifndef ALEA_FRAC_H
#define ALEA_FRAC_H

#include <stddef.h>
#include <stdint.h>

#include "../ast.h"
#include "../weight.h"

/* ---- the pmf operations in exact fractions ----
 * pmf.c calls these in exact mode; `lo` is the result's lowest value. They
 * are written in the files of fractions/ with GMP, which the library does
 * not link: they and GMP make a module of their own (alea-exact.so), loaded
 * by frac_load.c when a context first needs fractions (alea__frac_load), so
 * that a run in doubles never pays for loading GMP. frac_load.c defines
 * each function below as a call through the module's table (ctx->frac_ops);
 * the module defines them for real (a build may also link its files
 * directly, as the fuzzers do). The tables below list them once, for both files:
 * X(name, parameters, arguments, the context they reach). */

/* Makes ctx able to compute in fractions (loads the module, once per
 * context; ALEA_ERR_ARGUMENT with the reason when it cannot); gives the
 * module back (alea_ctx_free). */
ALEA__HIDDEN alea_status alea__frac_load(alea_ctx *ctx);
ALEA__HIDDEN void alea__frac_unload(alea_ctx *ctx);

struct alea__out;

#define ALEA__FRAC_STATUS(X)                                                                  \
    /* After the fractions of d are written: the nearest doubles into p, the                 \
     * bytes of the digits counted in the context's memory (the limit applies). */           \
    X(seal, (alea_ctx * ctx, alea__pmf * d, const node *at), (ctx, d, at), ctx)              \
    /* *r = w; *r += x w (each charged by its limbs). */                                     \
    X(set, (alea_ctx * ctx, alea__q * r, alea__w w, const node *at), (ctx, r, w, at), ctx)   \
    X(addmul, (alea_ctx * ctx, alea__q * r, const alea__q *x, alea__w w, const node *at),    \
      (ctx, r, x, w, at), ctx)                                                               \
    /* A weight being computed (alea__x): *r = a b, *r += a b, *r = a^k (r may be             \
     * a's or b's fraction; each charged by its limbs, a power checked first). */            \
    X(xmul, (alea_ctx * ctx, alea__q * r, alea__w a, alea__w b, const node *at),             \
      (ctx, r, a, b, at), ctx)                                                               \
    X(xaddmul, (alea_ctx * ctx, alea__q * r, alea__w a, alea__w b, const node *at),          \
      (ctx, r, a, b, at), ctx)                                                               \
    X(xpow, (alea_ctx * ctx, alea__q * r, alea__w a, uint64_t k, const node *at),            \
      (ctx, r, a, k, at), ctx)                                                               \
    /* *r = a / b (b above 0; r may be a's or b's fraction). */                               \
    X(xdiv, (alea_ctx * ctx, alea__q * r, alea__w a, alea__w b, const node *at),             \
      (ctx, r, a, b, at), ctx)                                                               \
    /* The accumulator (pmf.c) in fractions. */                                              \
    X(acc_dense, (alea__acc * a), (a), a->ctx)                                               \
    X(acc_add, (alea__acc * a, int64_t v, alea__w x, alea__w y), (a, v, x, y), a->ctx)       \
    X(acc_add_pmf, (alea__acc * a, const alea__pmf *d, int64_t shift, alea__w w),            \
      (a, d, shift, w), a->ctx)                                                              \
    X(acc_finish, (alea__acc * a, alea__pmf * out), (a, out), a->ctx)                        \
    /* The kept sum of keep highest (high) or lowest K of m dice by the                     \
     * threshold method in integers over one denominator (frac_keep.c),                     \
     * contributions g (NULL: the die's values), smin = K min g; how: 0 the                 \
     * cheaper way, 1 by powers, 2 by Horner's rule (the tests compare them). */            \
    X(keep_sum,                                                                              \
      (alea_ctx * ctx, const alea__pmf *die, const int64_t *g, int high, int64_t m,          \
       int64_t K, int64_t smin, int how, const node *at, alea__pmf *out),                    \
      (ctx, die, g, high, m, K, smin, how, at, out), ctx)                                    \
    X(walk_sums, (alea_ctx * ctx, const alea__pmf *die, int bottom, const node *at,          \
                  alea__pmf *out),                                                           \
      (ctx, die, bottom, at, out), ctx)                                                      \
    X(binom_row,                                                                             \
      (alea_ctx * ctx, const alea__q *qt, const alea__q *St, const alea__q *St1, int64_t r,  \
       int64_t kmax, const node *at, alea__pmf *out),                                        \
      (ctx, qt, St, St1, r, kmax, at, out), ctx)                                             \
    /* a + b and n copies of a, as products of integer polynomials. */                       \
    X(conv,                                                                                  \
      (alea_ctx * ctx, const alea__pmf *a, const alea__pmf *b, int64_t lo, const node *at,   \
       alea__pmf *out),                                                                      \
      (ctx, a, b, lo, at, out), ctx)                                                         \
    X(pow,                                                                                   \
      (alea_ctx * ctx, const alea__pmf *a, int64_t n, int64_t lo, const node *at,            \
       alea__pmf *out),                                                                      \
      (ctx, a, n, lo, at, out), ctx)                                                         \
    /* The distribution of the n pairs' values: each value's probability the sum              \
     * of a.q[i] b.q[j] over its pairs (sorted here); more than `limit` values                \
     * is the support error. */                                                              \
    X(pairs,                                                                                 \
      (alea_ctx * ctx, const alea__pmf *a, const alea__pmf *b, alea__ipair *pr, size_t n,    \
       size_t limit, const node *at, alea__pmf *out),                                        \
      (ctx, a, b, pr, n, limit, at, out), ctx)                                               \
    X(cmp, (alea_ctx * ctx, uint8_t op, const alea__pmf *a, const alea__pmf *b,              \
            alea__pmf *out),                                                                 \
      (ctx, op, a, b, out), ctx)                                                             \
    /* One step of pmf.c's max/min walk: r = pa (fb + pb) + fa pb, then fa +=                \
     * pa, fb += pb (pa, pb NULL: 0). */                                                     \
    X(minmax_step,                                                                           \
      (alea_ctx * ctx, alea__q * r, alea__q * fa, alea__q * fb, const alea__q *pa,           \
       const alea__q *pb),                                                                   \
      (ctx, r, fa, fb, pa, pb), ctx)                                                         \
    /* out (allocated for a->n) gets P(max or min of n copies = v). */                       \
    X(extreme,                                                                               \
      (alea_ctx * ctx, int is_max, const alea__pmf *a, int64_t n, const node *at,            \
       alea__pmf *out),                                                                      \
      (ctx, is_max, a, n, at, out), ctx)                                                     \
    /* A distribution in doubles recomputed in fractions (ctx->precise): its                 \
     * probabilities, at least and at most at any exponent, into d->sci. */                  \
    X(sci, (alea_ctx * ctx, alea_dist * d), (ctx, d), ctx)                                   \
    /* Checks a finished exact result: every fraction above 0, their sum at                  \
     * most 1 (an operation that wrote doubles alone would break it). */                     \
    X(check, (alea_ctx * ctx, const alea__pmf *d, const node *at), (ctx, d, at), ctx)        \
    /* Completes a distribution made from an exact pmf: its mean, variance and               \
     * truncated mass as fractions, and every double (probabilities, mass,                   \
     * mean, sd) the nearest to its fraction. */                                             \
    X(dist, (alea_ctx * ctx, alea_dist * d), (ctx, d), ctx)                                  \
    /* alea_dist_versus in fractions (versus.c): P(A > B), P(A = B),                         \
     * P(A < B), TV, KS and EMD of a's and b's exact pmfs, each normalised by               \
     * its mass, as the nearest doubles into out[6], and as text into o                      \
     * (NULL: none), separated by spaces; by_gcd: the walk by fractions even                 \
     * where the one over common denominators would do (the tests compare them). */          \
    X(versus,                                                                                \
      (alea_ctx * ctx, const alea__pmf *a, const alea__pmf *b, double *out,                  \
       struct alea__out *o, int by_gcd),                                                     \
      (ctx, a, b, out, o, by_gcd), ctx)

#define ALEA__FRAC_VOID(X)                                                                   \
    /* Initialises the n fractions of a new pmf to 0; clears those from `from`               \
     * on (from 0: the digits' bytes are given back to the context). */                      \
    X(init, (alea_ctx * ctx, alea__pmf * d), (ctx, d), ctx)                                  \
    X(clear, (alea_ctx * ctx, alea__pmf * d, size_t from), (ctx, d, from), ctx)              \
    /* *r = (a1 a2) / (b1 b2) */                                                             \
    X(ratio,                                                                                 \
      (alea_ctx * ctx, alea__q * r, uint64_t a1, uint64_t a2, uint64_t b1, uint64_t b2),     \
      (ctx, r, a1, a2, b1, b2), ctx)                                                         \
    /* out->q[k] = a->q[i]; swaps d->q[i] and d->q[j]. */                                    \
    X(copy, (alea_ctx * ctx, alea__pmf * out, size_t k, const alea__pmf *a, size_t i),       \
      (ctx, out, k, a, i), ctx)                                                              \
    X(swap, (alea_ctx * ctx, alea__pmf * d, size_t i, size_t j), (ctx, d, i, j), ctx)        \
    X(acc_free, (alea__acc * a), (a), a->ctx)                                                \
    /* Gives back a weight's fraction (alea__x_free). */                                     \
    X(xfree, (alea_ctx * ctx, alea__q * r), (ctx, r), ctx)                                   \
    /* Gives back what MPFR cached for the calling thread (constants for the                 \
     * decimal exponents of probabilities below the double range), at the end                \
     * of an exact evaluation and when an exact distribution is freed. */                    \
    X(release, (alea_ctx * ctx), (ctx), ctx)                                                 \
    X(dist_free, (alea_dist * d), (d), d->ctx)                                               \
    /* Writes the fraction `what` (of outcome i) of an exact distribution; its               \
     * CSV table in fractions. */                                                            \
    X(value, (const alea_dist *d, alea_fraction what, size_t i, struct alea__out *o),        \
      (d, what, i, o), d->ctx)                                                               \
    X(csv, (const alea_dist *d, struct alea__out *o), (d, o), d->ctx)

#define ALEA__FRAC_DECLARE_STATUS(name, params, args, c)                                     \
    ALEA__HIDDEN alea_status alea__frac_##name params;
#define ALEA__FRAC_DECLARE_VOID(name, params, args, c) ALEA__HIDDEN void alea__frac_##name params;
ALEA__FRAC_STATUS(ALEA__FRAC_DECLARE_STATUS)
ALEA__FRAC_VOID(ALEA__FRAC_DECLARE_VOID)
/* The sign of q (-1, 0, 1). */
ALEA__HIDDEN int alea__frac_sgn(alea_ctx *ctx, const alea__q *q);

/* The module's table: what it was built from (checked before it is used:
 * a module of another build would read the structures differently), and
 * each function above. frac.c exports it as ALEA__FRAC_SYMBOL. */
#define ALEA__FRAC_MEMBER_STATUS(name, params, args, c) alea_status(*name) params;
#define ALEA__FRAC_MEMBER_VOID(name, params, args, c) void(*name) params;
typedef struct alea__frac_ops {
    const char *version; /* ALEA_VERSION_STRING */
    size_t sizes[5];     /* ALEA__FRAC_SIZES */
    ALEA__FRAC_STATUS(ALEA__FRAC_MEMBER_STATUS)
    ALEA__FRAC_VOID(ALEA__FRAC_MEMBER_VOID)
    int (*sgn)(alea_ctx *ctx, const alea__q *q);
} alea__frac_ops;
/* (sizeof(alea_dist): where it is used, with dist.h) */
#define ALEA__FRAC_SIZES                                                                     \
    {sizeof(alea_ctx), sizeof(alea__pmf), sizeof(alea__acc), sizeof(alea_dist),               \
     sizeof(alea__frac_ops)}
#define ALEA__FRAC_SYMBOL "alea_exact_module_ops"

#endif /* ALEA_FRAC_H */
