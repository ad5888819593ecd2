/*
 * long32.h -- GMP where a long is 32 bits: the WebAssembly build (wasm32).
 *
 * GMP and MPFR are built for wasm32 from Debian's source packages
 * (scripts/web), with 64-bit limbs (_LONG_LONG_LIMB), as the module reads
 * them (frac_poly.c packs polynomials into limbs; the work and memory it
 * charges are counted in them), so that the same limits refuse the same
 * expressions in both builds. A long stays 32 bits there, and GMP's
 * functions that take one take 32 bits: the module gives three of them
 * values of 64 bits (an outcome, a magnitude, a whole weight below 2^53),
 * mpz_set_ui, mpz_mul_si and mpq_set_si, which are taken here by versions
 * of 64 bits. Where a long has 64 bits, this file adds nothing.
 */
#ifndef ALEA_FRAC_LONG32_H
#define ALEA_FRAC_LONG32_H

#include <gmp.h>
#include <limits.h>
#include <stdint.h>

#if LONG_MAX < INT64_MAX
_Static_assert(GMP_LIMB_BITS == 64, "GMP built with 64-bit limbs (_LONG_LONG_LIMB)");

/* z = u, u of 64 bits */
static inline void alea__mpz_set_u64(mpz_ptr z, uint64_t u)
{
    mp_limb_t *l = mpz_limbs_write(z, 1);
    l[0] = (mp_limb_t)u;
    mpz_limbs_finish(z, u != 0);
}

/* r = x k, k of 64 bits */
static inline void alea__mpz_mul_i64(mpz_ptr r, mpz_srcptr x, int64_t k)
{
    if (k >= LONG_MIN && k <= LONG_MAX) {
        mpz_mul_si(r, x, (long)k);
        return;
    }
    mpz_t t;
    mpz_init(t);
    alea__mpz_set_u64(t, k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k);
    if (k < 0)
        mpz_neg(t, t);
    mpz_mul(r, x, t);
    mpz_clear(t);
}

/* q = n / d, n of 64 bits (not made canonical: as mpq_set_si) */
static inline void alea__mpq_set_i64(mpq_ptr q, int64_t n, unsigned long d)
{
    alea__mpz_set_u64(mpq_numref(q), n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n);
    if (n < 0)
        mpz_neg(mpq_numref(q), mpq_numref(q));
    mpz_set_ui(mpq_denref(q), d);
}

#undef mpz_set_ui
#define mpz_set_ui alea__mpz_set_u64
#undef mpz_mul_si
#define mpz_mul_si alea__mpz_mul_i64
#undef mpq_set_si
#define mpq_set_si alea__mpq_set_i64
#endif

#endif /* ALEA_FRAC_LONG32_H */
