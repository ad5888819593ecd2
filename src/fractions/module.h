/*
 * module.h -- what the files of the fraction module (alea-exact.so) share
 * among themselves and nothing else includes: the sizes and costs of
 * GMP's numbers, the operations mpq_t lacks, a cache of quotients by one
 * common denominator, the module's own pmfs, its refusal of a weight with
 * no exact value, and the budget checks at a node. The module sits on the
 * storage (weight.c), the output (out.c) and core alone; nothing of pmf.c
 * is called from here.
 *
 *   frac.c       numbers, weights, the accumulator, denominators' primes,
 *                the module's table
 *   frac_ops.c   values of pairs, comparisons, max/min, term by term
 *   frac_poly.c  sums and powers as products of integer polynomials
 *   frac_keep.c  keep's weights, walk sums and binomial rows
 *   frac_text.c  the finished distribution: moments, decimals, text
 */
#ifndef ALEA_FRAC_MODULE_H
#define ALEA_FRAC_MODULE_H

#include "frac.h"

#ifndef ALEA_HAVE_GMP
#error "the fraction module is built with GMP (ALEA_HAVE_GMP) only"
#endif
#ifdef ALEA_MINI_GMP
#include "mini.h" /* the WebAssembly build */
#else
#include <gmp.h>
#endif
#include <math.h>

/* Work units per limb (times its logarithm) of the operands of an exact
 * addition, beyond the ALEA__FRAC_UNIT of one-limb fractions. */
#define FRAC_LIMB_COST 8

/* Limbs of the digits of a number, and of a fraction. */
static inline size_t z_limbs(const mpz_t z)
{
    return (size_t)mpz_size(z);
}

static inline size_t q_limbs(const alea__q *q)
{
    return z_limbs(mpq_numref(q)) + z_limbs(mpq_denref(q));
}

/* Bytes of the digits of q: its limbs and the allocator's header of each
 * of its two blocks. */
static inline size_t q_bytes(const alea__q *q)
{
    return q_limbs(q) * sizeof(mp_limb_t) + 32;
}

/* Work of an operation on fractions of `limbs` limbs. GMP's products and
 * gcds of long numbers are subquadratic: measured here, an addition of two
 * fractions over powers of 20 takes 1 us at 8 limbs, 111 us at 2,048 and
 * 6.6 ms at 32,768 (a work unit is about 2 ns), which this bounds from
 * above by 1.5 to 3 times. */
static inline double q_cost(size_t limbs)
{
    double l = (double)limbs;
    return ALEA__FRAC_UNIT + FRAC_LIMB_COST * l * log2(l + 2);
}

/* Operations mpq_t lacks: r += x y; r = x^k (k >= 0); r = x k; r = a / b
 * (b > 0) in lowest terms; z = x / k exactly. */
static inline void q_addmul(mpq_t r, const mpq_t x, const mpq_t y)
{
    mpq_t t;
    mpq_init(t);
    mpq_mul(t, x, y);
    mpq_add(r, r, t);
    mpq_clear(t);
}

static inline void q_pow(mpq_t r, const mpq_t x, long k)
{
    mpz_pow_ui(mpq_numref(r), mpq_numref(x), (unsigned long)k);
    mpz_pow_ui(mpq_denref(r), mpq_denref(x), (unsigned long)k);
}

static inline void q_mul_si(mpq_t r, const mpq_t x, long k)
{
    mpz_mul_si(mpq_numref(r), mpq_numref(x), k);
    if (r != x)
        mpz_set(mpq_denref(r), mpq_denref(x));
    mpq_canonicalize(r);
}

static inline void q_set_frac(mpq_t r, const mpz_t a, const mpz_t b)
{
    mpz_set(mpq_numref(r), a);
    mpz_set(mpq_denref(r), b);
    mpq_canonicalize(r);
}

static inline void z_divexact_si(mpz_t z, const mpz_t x, long k)
{
    mpz_divexact_ui(z, x, (unsigned long)(k < 0 ? -k : k));
    if (k < 0)
        mpz_neg(z, z);
}

static inline size_t z_bits(const mpz_t z)
{
    return mpz_sgn(z) ? mpz_sizeinbase(z, 2) : 0;
}


/* A hash of z's top limb and size, for the caches of numbers met again. */
static inline uint64_t top_hash(const mpz_t z)
{
    size_t nl = mpz_size(z);
    uint64_t top = nl ? (uint64_t)mpz_getlimbn(z, (mp_size_t)nl - 1) : 0;
    return (top * 0x9E3779B97F4A7C15u ^ nl) >> 58;
}

/* L / d for one L and the few divisors d a distribution's fractions need
 * (the 3,801 fractions of 200d20 have 88 denominators): the last quotients,
 * by d's top limb and size, so that a divisor met again costs a comparison
 * rather than a division of long numbers. */
#define QC_SLOTS 32
typedef struct quot_cache {
    mpz_t d[QC_SLOTS], q[QC_SLOTS];
    int used[QC_SLOTS];
} quot_cache;

static inline void qc_init(quot_cache *c)
{
    for (int i = 0; i < QC_SLOTS; i++) {
        mpz_init(c->d[i]);
        mpz_init(c->q[i]);
        c->used[i] = 0;
    }
}

static inline void qc_clear(quot_cache *c)
{
    for (int i = 0; i < QC_SLOTS; i++) {
        mpz_clear(c->d[i]);
        mpz_clear(c->q[i]);
    }
}

static inline mpz_srcptr qc_get(quot_cache *c, const mpz_t L, const mpz_t d)
{
    int k = (int)(top_hash(d) % QC_SLOTS);
    if (!c->used[k] || mpz_cmp(c->d[k], d) != 0) {
        mpz_set(c->d[k], d);
        mpz_divexact(c->q[k], L, d);
        c->used[k] = 1;
    }
    return c->q[k];
}

/* ---- fractions over one common denominator (frac_ops.c, frac_versus.c) ---- */

/* The least common multiple of the denominators of d, into L; 0 when it
 * passes `cap` limbs (the numerators over it would be too long to gain). */
static inline int common_den_capped(const alea__pmf *d, mpz_t L, size_t cap)
{
    mpz_set_ui(L, 1);
    for (size_t i = 0; i < d->n; i++) {
        mpz_lcm(L, L, mpq_denref(&d->q[i]));
        if (z_limbs(L) > cap)
            return 0;
    }
    return 1;
}

/* The numerators of d over its common denominator L, as new integers. */
static inline mpz_t *over_common(alea_ctx *ctx, const alea__pmf *d, const mpz_t L)
{
    mpz_t *z = alea__mem_alloc(ctx, alea__mul_size(d->n ? d->n : 1, sizeof *z));
    if (!z)
        return NULL;
    for (size_t i = 0; i < d->n; i++) {
        mpz_init(z[i]);
        mpz_divexact(z[i], L, mpq_denref(&d->q[i]));
        mpz_mul(z[i], z[i], mpq_numref(&d->q[i]));
    }
    return z;
}

static inline void free_ints(alea_ctx *ctx, mpz_t *z, size_t n)
{
    if (!z)
        return;
    for (size_t i = 0; i < n; i++)
        mpz_clear(z[i]);
    alea__mem_free(ctx, z, (n ? n : 1) * sizeof *z);
}

static inline size_t max_den_limbs(const alea__pmf *d)
{
    size_t m = 0;
    for (size_t i = 0; i < d->n; i++)
        m = z_limbs(mpq_denref(&d->q[i])) > m ? z_limbs(mpq_denref(&d->q[i])) : m;
    return m;
}

/* The primes of a denominator (frac.c): den = product of ps[i]^es[i] over
 * at most SMOOTH_PRIMES small primes, or -1; and c / den reduced by them. */
#define SMOOTH_PRIMES 32
ALEA__HIDDEN int alea__frac_smooth(const mpz_t den, unsigned long *ps, unsigned long *es,
                                   double *work);
ALEA__HIDDEN void alea__frac_reduce_smooth(alea__q *r, mpz_t c, const mpz_t den,
                                           const unsigned long *ps, const unsigned long *es,
                                           int np, mpz_t pz, mpz_t g, quot_cache *qc);

/* Memory for about `bytes` of digits, or the exact-fractions limit error
 * (frac.c). */
ALEA__HIDDEN alea_status alea__frac_digits_check(alea_ctx *ctx, double bytes, const node *at);

/* ALEA_ERR_INVALID: a weight with no exact value (a construct whose exact
 * form is not written yet), at node at (may be NULL). */
ALEA__HIDDEN alea_status alea__frac_inexact(alea_ctx *ctx, const node *at);

/* A pmf of n outcomes in the context's number system, its fractions set
 * up (0); and given back, its fractions first (as pmf.h's alloc/free). */
ALEA__HIDDEN alea_status alea__frac_pmf_alloc(alea_ctx *ctx, size_t n, alea__pmf *d);
ALEA__HIDDEN void alea__frac_pmf_free(alea_ctx *ctx, alea__pmf *d);

/* q as text, "num/den" (frac_text.c), one the caller owns; the double
 * nearest to q (ties to even). */
ALEA__HIDDEN void alea__frac_print(struct alea__out *o, const alea__q *q);
ALEA__HIDDEN double alea__frac_nearest(const alea__q *q);

/* core's budget checks at the span of node at (NULL: none). */
static inline alea_status work_check(alea_ctx *ctx, double units, const node *at)
{
    return alea__work_check_span(ctx, units, at ? at->start : 0, at ? at->end : 0);
}

static inline alea_status support_error(alea_ctx *ctx, const node *at)
{
    return alea__support_error_span(ctx, at ? at->start : 0, at ? at->end : 0);
}

#endif /* ALEA_FRAC_MODULE_H */
