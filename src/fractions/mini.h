/*
 * mini.h -- the fraction module's numbers in the WebAssembly build
 * (ALEA_MINI_GMP): mini-gmp and mini-mpq (the one-file subset of GMP that
 * GMP's source tarball carries; scripts/web fetches it from Debian's
 * source package) in place of GMP, with the few functions of GMP they
 * lack, and the part of MPFR that frac_text.c uses, in mini.c.
 *
 * mini-gmp's limb is an unsigned long, 32 bits on wasm32 (its code needs a
 * limb no wider than a long). The module reads limbs as GMP's 64-bit ones
 * (frac_poly.c packs polynomials into them; the work charged and the
 * memory counted are by limbs): mp_limb_t is 64 bits here, and the
 * functions that show limbs show two of mini-gmp's as one (little-endian),
 * so that a result is refused at the same limits in both builds. A `long`
 * is 32 bits too: the functions of GMP that take one and are given an
 * outcome or a count of 64 bits are taken by the 64-bit ones of mini.c.
 *
 * The MPFR part is exact: a number is an integer times a power of two,
 * rounded to its precision to nearest, ties to even, after each operation
 * (as MPFR's, whose operations are all correctly rounded, with an
 * exponent range no probability leaves), so that the doubles and decimal
 * forms written from it are MPFR's digit for digit.
 */
#ifndef ALEA_FRAC_MINI_H
#define ALEA_FRAC_MINI_H

#include <stdint.h>

/* mini-gmp's own limb under another name; GMP's 64-bit one after */
#define mp_limb_t alea__mini_limb
#include "mini-gmp.h"
#include "mini-mpq.h"
#undef mp_limb_t
typedef uint64_t mp_limb_t;

/* ---- mini-gmp's numbers seen in 64-bit limbs; their decimal length as
 * GMP's (exact or 1 too many: mini-gmp's own divides for it, which took
 * most of the time of a distribution's text), and their digits without it;
 * products of long numbers by Karatsuba's method (mini-gmp's are
 * schoolbook: a product of 60,000 limbs, as a power of a pool's die packed
 * in one number, took seconds between two polls of the deadline) ---- */
size_t alea__mini_size(const mpz_t z);
mp_limb_t alea__mini_getlimbn(const mpz_t z, mp_size_t i);
const mp_limb_t *alea__mini_limbs_read(mpz_srcptr z);
mp_limb_t *alea__mini_limbs_write(mpz_ptr z, mp_size_t n);
void alea__mini_limbs_finish(mpz_ptr z, mp_size_t n);
size_t alea__mini_sizeinbase(const mpz_t z, int base);
char *alea__mini_get_str(char *s, int base, const mpz_t z);
void alea__mini_mul(mpz_t r, const mpz_t a, const mpz_t b);
#define mpz_size alea__mini_size
#define mpz_mul alea__mini_mul
#define mpz_sizeinbase alea__mini_sizeinbase
#define mpz_get_str alea__mini_get_str
#define mpz_getlimbn alea__mini_getlimbn
#define mpz_limbs_read alea__mini_limbs_read
#define mpz_limbs_write alea__mini_limbs_write
#define mpz_limbs_finish alea__mini_limbs_finish

/* ---- what mini-gmp lacks of GMP ---- */
void alea__mini_inits(mpz_ptr z, ...);
void alea__mini_clears(mpz_ptr z, ...);
mp_bitcnt_t alea__mini_remove(mpz_t r, const mpz_t x, const mpz_t f);
void alea__mini_primorial(mpz_t r, unsigned long n);
double alea__mini_get_d_2exp(long *e, const mpz_t z);
void alea__mini_set_u64(mpz_t z, uint64_t u);
void alea__mini_mul_i64(mpz_t r, const mpz_t x, int64_t k);
#define mpz_inits alea__mini_inits
#define mpz_clears alea__mini_clears
#define mpz_remove alea__mini_remove
#define mpz_primorial_ui alea__mini_primorial
#define mpz_get_d_2exp alea__mini_get_d_2exp
#define mpz_set_ui alea__mini_set_u64
#define mpz_mul_si alea__mini_mul_i64

/* ---- the part of MPFR frac_text.c uses ---- */
typedef struct {
    mpz_t m;             /* the number is m 2^e */
    long e;
    unsigned long prec;  /* |m| < 2^prec */
} alea__mini_fr;
typedef alea__mini_fr mpfr_t[1];
typedef alea__mini_fr *mpfr_ptr;
typedef const alea__mini_fr *mpfr_srcptr;
typedef enum { MPFR_RNDN } mpfr_rnd_t;

void mpfr_init2(mpfr_ptr r, unsigned long prec);
void mpfr_clear(mpfr_ptr r);
void mpfr_set_q(mpfr_ptr r, const mpq_t q, mpfr_rnd_t rnd);
void mpfr_set_z(mpfr_ptr r, const mpz_t z, mpfr_rnd_t rnd);
void mpfr_set_si(mpfr_ptr r, long v, mpfr_rnd_t rnd);
void mpfr_pow_si(mpfr_ptr r, mpfr_srcptr x, long n, mpfr_rnd_t rnd);
void mpfr_mul(mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, mpfr_rnd_t rnd);
void mpfr_div(mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, mpfr_rnd_t rnd);
void mpfr_sqrt(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd);
double mpfr_get_d(mpfr_srcptr x, mpfr_rnd_t rnd);
double mpfr_get_d_2exp(long *e, mpfr_srcptr x, mpfr_rnd_t rnd);
/* floor(log10 x), x > 0, exactly; f the estimate, off by at most 1 (in
 * place of MPFR's logarithm, floored) */
long alea__mini_floor_log10(mpfr_srcptr x, long f);
static inline void mpfr_free_cache(void)
{
}

#endif /* ALEA_FRAC_MINI_H */
