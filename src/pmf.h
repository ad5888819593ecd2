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
/* Whether d is one value for certain (probability 1, nothing cut off:
 * exactly 1 in exact mode, where the probabilities sum to 1 - trunc). */
static inline int alea__pmf_certain(const alea__pmf *d)
{
    return d->n == 1 && d->trunc == 0 && d->p[0] == 1;
}
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
 * (alea__work_check_span): the test that passes inline, the call only
 * for the error (the walks check once per step). */
static inline alea_status alea__work_check(alea_ctx *ctx, double units, const node *at)
{
    if (units <= (double)(ctx->limits[ALEA_LIMIT_WORK] - ctx->work_used)) /* NaN: not here */
        return ALEA_OK;
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
/* The {0, 1} distribution of a's truth: 1 where a is not 0 (true_is 1),
 * or where it is 0 (true_is 0: "not a"); in either number system. For
 * "and", "or", "not" and any construct that asks whether a value is true. */
ALEA__HIDDEN alea_status alea__pmf_truth(alea_ctx *ctx, const alea__pmf *a, int true_is,
                                         alea__pmf *out);
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
 * pmf, in any order of values): Horner's rule, a product by b a term. In
 * doubles only (exact mode's keep is alea__pmf_keep_sum). */
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

/* ---- pmf_mix.c: the mixture over a parameter's distribution ---- */

/* The distribution at the parameter's value v, for alea__pmf_mix: *cur
 * holds the one at the previous value (empty at the first, the values
 * coming in increasing order) and is replaced by the one at v, so that
 * one can be built from the other; ud is the caller's. On error *cur is
 * left for alea__pmf_mix to free. */
typedef alea_status alea__mix_fn(alea_ctx *ctx, void *ud, int64_t v, alea__pmf *cur);

/*
 * out = the sum over param's outcomes v of P(v) times at's distribution at
 * v; what was cut off adds up alike (param's own, and each one's by its
 * weight). Before the first value, checks that param->n times `check`
 * units of work fit; before each, charges `charge` units (the mixing step,
 * beside the work at's steps charge). A certain param (alea__pmf_certain)
 * is at's distribution at its value, with no mixing step. out is written
 * only on success.
 */
ALEA__HIDDEN alea_status alea__pmf_mix(alea_ctx *ctx, const alea__pmf *param, double check,
                                       int64_t charge, alea__mix_fn *at, void *ud,
                                       const node *n, alea__pmf *out);
/* out = the sum over count's outcomes c (whole numbers from 0, in
 * increasing order) of P(c) times the sum of c independent copies of a;
 * each count's sum is built from the one before, by a copy more or the
 * copies between at once. Charges `charge` units a count beside the
 * convolutions' own work; the caller checks what the whole costs first. */
ALEA__HIDDEN alea_status alea__pmf_mix_sums(alea_ctx *ctx, const alea__pmf *count,
                                            const alea__pmf *a, int64_t charge, const node *n,
                                            alea__pmf *out);
/* ---- pmf_w.c: operations the algorithms ask, in the pmf's own number system ----
 * Each has one entry and two bodies: doubles in pmf_w.c, fractions by the
 * fraction module. They are called per row or per threshold, not per term. */

/* Whether weight w, or the weight being computed x, is 0 (its fraction
 * when it has one). */
ALEA__HIDDEN int alea__w_is_zero(alea_ctx *ctx, alea__w w);
ALEA__HIDDEN int alea__x_is_zero(alea_ctx *ctx, const alea__x *x);
/* Outcome k of d gets probability w (its double, and its fraction when d
 * has fractions). */
ALEA__HIDDEN alea_status alea__pmf_set_w(alea_ctx *ctx, alea__pmf *d, size_t k, alea__w w,
                                         const node *at);
/* Outcome k of d += a b: its double in doubles, its fraction in exact mode
 * (a with a fraction; the doubles are then the seal's to write). */
ALEA__HIDDEN alea_status alea__pmf_addmul(alea_ctx *ctx, alea__pmf *d, size_t k, alea__w a,
                                          alea__w b, const node *at);
/* Checks a finished result: in exact mode every fraction above 0 and their
 * sum at most 1 (an operation that wrote doubles alone would break it);
 * nothing to check in doubles. */
ALEA__HIDDEN alea_status alea__pmf_check_sum(alea_ctx *ctx, const alea__pmf *d,
                                             const node *at);
/* The sums of keep's walks over the die's outcomes in walk order (from the
 * bottom or the top): q[t] the t-th outcome's probability normalised by
 * the die's mass and S[t] the normalised mass at or beyond it, S[F] = 0
 * (q and S NULL: none); in exact mode also *sums, the fractions of the
 * unnormalised masses at or beyond each outcome. */
ALEA__HIDDEN alea_status alea__pmf_walk_sums(alea_ctx *ctx, const alea__pmf *die, int bottom,
                                             const node *at, double *q, double *S,
                                             alea__pmf *sums);
/* C(r, s) rho^s rhoc^(r - s), rhoc = 1 - rho given separately, in doubles
 * (each factor from the side where it is accurate). */
ALEA__HIDDEN double alea__binom_pmf(int64_t r, int64_t s, double rho, double rhoc);
/* row[k] = P(K = k) for 0 <= k < kmax, K ~ Binomial(r, rho), rhoc = 1 - rho
 * given separately, 1 <= kmax <= r; returns P(K >= kmax). In doubles only:
 * what alea__pmf_binom_row does in doubles, for a walk that works out rho
 * once per outcome and calls it per row (keep_walk.c, keep_ra.c). */
ALEA__HIDDEN double alea__binom_row(int64_t r, double rho, double rhoc, int64_t kmax,
                                    double *row);
/* A row of the walk: r dice each take the outcome with the chance rho =
 * qt / St (1 - rho = St1 / St, St1 = 0: nothing beyond). The binomial
 * terms C(r, k) rho^k (1 - rho)^(r - k) for k < kmax, then the chance of
 * kmax or more: in doubles into row[0 .. kmax] (kmax + 1 doubles); in
 * exact mode into *out, replaced, whose values are the k (zero terms left
 * out; row unused). */
ALEA__HIDDEN alea_status alea__pmf_binom_row(alea_ctx *ctx, alea__w qt, alea__w St,
                                             alea__w St1, int64_t r, int64_t kmax,
                                             const node *at, double *row, alea__pmf *out);
/* The weights of keep highest (high) or lowest K of m dice when the lowest
 * kept die shows the die's outcome t (keep.c's threshold method), into w
 * (K outcomes, values a < K), for B, the die's outcomes beyond t: sum w[a]
 * B^a is the distribution of the kept sum given that threshold. In doubles
 * B is normalised here and w is times scale (the chance that no die was
 * cut). In doubles only (exact mode's keep is alea__pmf_keep_sum). */
ALEA__HIDDEN alea_status alea__pmf_keep_weights(alea_ctx *ctx, const alea__pmf *die, size_t t,
                                                int high, int64_t m, int64_t K, double scale,
                                                const node *at, alea__pmf *B, alea__pmf *w);
/* Exact mode: the whole threshold method's kept sum (fractions/frac.h:
 * keep_sum), smin = K times the least contribution; how: 0 the cheaper
 * way, 1 by powers, 2 by Horner's rule. */
ALEA__HIDDEN alea_status alea__pmf_keep_sum(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                            int high, int64_t m, int64_t K, int64_t smin, int how,
                                            const node *at, alea__pmf *out);

#endif /* ALEA_PMF_H */
