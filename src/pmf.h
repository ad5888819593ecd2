/*
 * pmf.h -- distributions under construction (pmf.c, pmf_arith.c), in
 * either number system: their basics, the weights being computed
 * (alea__x), the accumulator that builds them, and the arithmetic of
 * independent distributions. The layouts are in weight.h; in exact mode
 * they hand the arithmetic to the fraction module (fractions/frac.h).
 *
 * Every operation checks the SUPPORT limit before it allocates a result,
 * charges the WORK budget before each step, reports integer overflow of an
 * attainable value, and frees everything it allocated on any error.
 */
#ifndef ALEA_PMF_H
#define ALEA_PMF_H

#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "weight.h"

/* ---- pmf.c: pmf basics ---- */

/* Frees the outcomes of d (if any) and leaves it empty. */
ALEA__HIDDEN void alea__pmf_free(alea_ctx *ctx, alea__pmf *d);
/* Allocates room for n outcomes (contents undefined, trunc 0). */
ALEA__HIDDEN alea_status alea__pmf_alloc(alea_ctx *ctx, size_t n, alea__pmf *d);
/* The point mass at v with probability p. */
ALEA__HIDDEN alea_status alea__pmf_point(alea_ctx *ctx, int64_t v, alea__w p,
                                         alea__pmf *d);
ALEA__HIDDEN alea_status alea__pmf_copy(alea_ctx *ctx, const alea__pmf *a,
                                        alea__pmf *d);
/* out's outcome k is a's outcome i (value and probability). */
ALEA__HIDDEN void alea__pmf_take(alea_ctx *ctx, alea__pmf *out, size_t k, const alea__pmf *a, size_t i);
/* Outcome k's probability is (a1 a2) / (b1 b2), whole numbers (exact in
 * exact mode). */
ALEA__HIDDEN void alea__pmf_ratio(alea_ctx *ctx, alea__pmf *d, size_t k, uint64_t a1, uint64_t a2,
                                  uint64_t b1, uint64_t b2);
/* In exact mode, after a pmf's fractions are written: its doubles and the
 * bytes of its digits (frac_seal); d is freed on error. Nothing otherwise. */
ALEA__HIDDEN alea_status alea__pmf_seal(alea_ctx *ctx, alea__pmf *d, const node *at);
/* Shrinks d (allocated for d->n outcomes, the first k filled) to k. The
 * block stays (it is freed whole, by its size in d->bytes): a copy into a
 * smaller one would cost more than the bytes it gives back. */
ALEA__HIDDEN alea_status alea__pmf_trim(alea_ctx *ctx, alea__pmf *d, size_t k);
/* The SUPPORT limit as a count of outcomes (at least 1). */
static inline size_t alea__support_limit(const alea_ctx *ctx)
{
    int64_t l = ctx->limits[ALEA_LIMIT_SUPPORT];
    if (l < 1)
        return 1;
    return (uint64_t)l > SIZE_MAX / 4 ? SIZE_MAX / 4 : (size_t)l;
}
/* The greatest common divisor of a and b (a when b is 0). */
ALEA__HIDDEN uint64_t alea__gcd(uint64_t a, uint64_t b);
/* Sum of the outcomes' probabilities. */
ALEA__HIDDEN double alea__pmf_mass(const alea__pmf *d);
/* The weights being computed (alea__x): = 1; given back; read as a weight;
 * x *= a; x *= num / den (den > 0); x *= a^k; x += a b. On error x keeps a
 * value that can be given back. */
ALEA__HIDDEN void alea__x_init(alea_ctx *ctx, alea__x *x);
ALEA__HIDDEN void alea__x_free(alea_ctx *ctx, alea__x *x);
ALEA__HIDDEN alea__w alea__x_w(const alea__x *x);
ALEA__HIDDEN alea_status alea__x_mul(alea_ctx *ctx, alea__x *x, alea__w a, const node *at);
ALEA__HIDDEN alea_status alea__x_ratio(alea_ctx *ctx, alea__x *x, uint64_t num, uint64_t den,
                                       const node *at);
ALEA__HIDDEN alea_status alea__x_pow(alea_ctx *ctx, alea__x *x, alea__w a, uint64_t k,
                                     const node *at);
ALEA__HIDDEN alea_status alea__x_addmul(alea_ctx *ctx, alea__x *x, alea__w a, alea__w b,
                                        const node *at);
/* x /= a (a above 0). */
ALEA__HIDDEN alea_status alea__x_div(alea_ctx *ctx, alea__x *x, alea__w a, const node *at);
/* The budget's checks and errors (core.c) at node at's span (at may be NULL
 * where the caller has no node: then byte 0). Records the support-limit
 * error; returns ALEA_ERR_LIMIT. */
static inline alea_status alea__support_error(alea_ctx *ctx, const node *at)
{
    return alea__support_error_span(ctx, at ? at->start : 0, at ? at->end : 0);
}
/* The same, when the outcomes the step needs are known (alea_ctx_support_needed). */
ALEA__HIDDEN alea_status alea__support_need(alea_ctx *ctx, const node *at, double need);
/* Records an integer-overflow error for node at. */
static inline alea_status alea__overflow_error(alea_ctx *ctx, const node *at)
{
    return alea__overflow_error_span(ctx, at ? at->start : 0, at ? at->end : 0);
}
/* Checks that `units` more work fit in the budget, without charging it
 * (alea__work_check_span). */
static inline alea_status alea__work_check(alea_ctx *ctx, double units, const node *at)
{
    return alea__work_check_span(ctx, units, at ? at->start : 0, at ? at->end : 0);
}

/* Truncated mass of two independent parts: 1 - (1 - a)(1 - b). */
ALEA__HIDDEN double alea__trunc_join(double a, double b);
/* Truncated mass of n independent copies: 1 - (1 - t)^n. */
ALEA__HIDDEN double alea__trunc_pow(double t, int64_t n);

/* ---- pmf.c: the accumulator (over the hash table of table.c) ---- */

/* Dense mode is used when the value range is at most this many values, or
 * at most ALEA__DENSE_RATIO times the expected number of additions (and a
 * sum in fractions is a product of polynomials on the same terms). */
#define ALEA__DENSE_SMALL 65536u
#define ALEA__DENSE_RATIO 8.0

/* Work units per addition into a: 1 in dense mode, ALEA__SPARSE_COST in
 * sparse mode. */
ALEA__HIDDEN double alea__acc_unit(const alea__acc *a);

/*
 * Starts an accumulator for values in [lo, hi] (lo <= hi), expecting about
 * `adds` additions. Picks dense mode when the range is small enough.
 */
ALEA__HIDDEN alea_status alea__acc_init(alea__acc *a, alea_ctx *ctx, const node *at,
                                        int64_t lo, int64_t hi, double adds);
/* Adds probability p at v (v within the declared range); x * y at v. On
 * error the accumulator's buffers are freed. */
ALEA__HIDDEN alea_status alea__acc_add(alea__acc *a, int64_t v, alea__w p);
ALEA__HIDDEN alea_status alea__acc_add2(alea__acc *a, int64_t v, alea__w x, alea__w y);
/* Adds w * d shifted by `shift` (every d.v + shift within the range). */
ALEA__HIDDEN alea_status alea__acc_add_pmf(alea__acc *a, const alea__pmf *d,
                                           int64_t shift, alea__w w);
/* Moves the sum into *out (zero probabilities left out; out->trunc = 0) and
 * frees the accumulator's buffers. On error the buffers are freed too. */
ALEA__HIDDEN alea_status alea__acc_finish(alea__acc *a, alea__pmf *out);
/* Frees the buffers (after an error elsewhere). Safe to call twice. */
ALEA__HIDDEN void alea__acc_free(alea__acc *a);

/* ---- pmf_arith.c: arithmetic of independent distributions (the scaled
 * sum and the polynomial: pmf.c) ----
 * Each writes a new pmf into *out (which must not alias an input) only on
 * success; `at` gives the span for errors. */

/* a + b */
ALEA__HIDDEN alea_status alea__pmf_conv(alea_ctx *ctx, const alea__pmf *a,
                                        const alea__pmf *b, const node *at,
                                        alea__pmf *out);
/* The sum of n independent copies of a (n >= 0; 0 gives the point 0). */
ALEA__HIDDEN alea_status alea__pmf_pow(alea_ctx *ctx, const alea__pmf *a, int64_t n,
                                       const node *at, alea__pmf *out);
/* -a and |a|. */
ALEA__HIDDEN alea_status alea__pmf_neg(alea_ctx *ctx, const alea__pmf *a,
                                       const node *at, alea__pmf *out);
ALEA__HIDDEN alea_status alea__pmf_abs(alea_ctx *ctx, const alea__pmf *a,
                                       const node *at, alea__pmf *out);
/* a op b for op OP_MUL, OP_DIV, OP_DIVUP, OP_DIVNEAR; a divisor that can
 * be zero is ALEA_ERR_DOMAIN with the span of div_at. */
ALEA__HIDDEN alea_status alea__pmf_arith(alea_ctx *ctx, uint8_t op, const alea__pmf *a,
                                         const alea__pmf *b, const node *at,
                                         const node *div_at, alea__pmf *out);
/* The {0, 1} distribution of [a op b], op a cmp_op. */
ALEA__HIDDEN alea_status alea__pmf_cmp(alea_ctx *ctx, uint8_t op, const alea__pmf *a,
                                       const alea__pmf *b, alea__pmf *out);
/* max(a, b) (is_max) or min(a, b). */
ALEA__HIDDEN alea_status alea__pmf_minmax(alea_ctx *ctx, int is_max, const alea__pmf *a,
                                          const alea__pmf *b, alea__pmf *out);
/* The highest (is_max) or lowest of n >= 1 independent copies of a, by
 * powers of the distribution function. */
ALEA__HIDDEN alea_status alea__pmf_extreme(alea_ctx *ctx, int is_max, const alea__pmf *a,
                                           int64_t n, const node *at, alea__pmf *out);
/* *sum += w * b (sum may be empty). On error *sum is left as it was. */
/* out = sum over a < w->n of w[a] B^a, where w->v[a] == a (weights may be
 * 0) and B^a is the sum of a independent copies of b (b may be a partial
 * pmf, in any order of values): Horner's rule, a product by b a term. */
ALEA__HIDDEN alea_status alea__pmf_polyval(alea_ctx *ctx, const alea__pmf *b,
                                           const alea__pmf *w, const node *at,
                                           alea__pmf *out);
ALEA__HIDDEN alea_status alea__pmf_add_scaled(alea_ctx *ctx, alea__pmf *sum,
                                              const alea__pmf *b, alea__w w,
                                              const node *at);
/* The distribution of map[i] where outcome i of a has probability a.p[i]
 * (map need not be sorted or distinct). */
ALEA__HIDDEN alea_status alea__pmf_remap(alea_ctx *ctx, const alea__pmf *a,
                                         const int64_t *map, const node *at,
                                         alea__pmf *out);

#endif /* ALEA_PMF_H */
