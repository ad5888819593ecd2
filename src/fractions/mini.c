/*
 * mini.c -- what mini-gmp lacks of GMP and the exact part of MPFR the
 * fraction module uses, for the WebAssembly build (mini.h; built with
 * ALEA_MINI_GMP alone, beside mini-gmp.c and mini-mpq.c).
 */
#ifdef ALEA_MINI_GMP
#include "mini.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* the functions of mini-gmp the macros of mini.h stand in for */
#undef mpz_set_ui
#undef mpz_mul_si
#undef mpz_size
#undef mpz_getlimbn
#undef mpz_limbs_read
#undef mpz_limbs_write
#undef mpz_limbs_finish
#undef mpz_sizeinbase
#undef mpz_get_str
#undef mpz_mul

/* ---- 64-bit limbs: two of mini-gmp's each, the low one first ------------------ */

size_t alea__mini_size(const mpz_t z)
{
    return (mpz_size(z) + 1) / 2;
}

mp_limb_t alea__mini_getlimbn(const mpz_t z, mp_size_t i)
{
    return (mp_limb_t)mpz_getlimbn(z, 2 * i) | (mp_limb_t)mpz_getlimbn(z, 2 * i + 1) << 32;
}

/* An odd count of mini-gmp's limbs gets a zero limb above them (room for
 * it made, the value unchanged), so that the last 64-bit one reads whole. */
const mp_limb_t *alea__mini_limbs_read(mpz_srcptr z)
{
    size_t n = mpz_size(z);
    if (n % 2) {
        alea__mini_limb *d = mpz_limbs_modify((mpz_ptr)z, (mp_size_t)n + 1);
        d[n] = 0;
    }
    return (const mp_limb_t *)(const void *)mpz_limbs_read(z);
}

mp_limb_t *alea__mini_limbs_write(mpz_ptr z, mp_size_t n)
{
    return (mp_limb_t *)(void *)mpz_limbs_write(z, 2 * n);
}

void alea__mini_limbs_finish(mpz_ptr z, mp_size_t n)
{
    mpz_limbs_finish(z, 2 * n);
}

/* Below this many of mini-gmp's limbs in the shorter factor, its own
 * schoolbook product. */
#define KARATSUBA_LIMBS 40

/* r = |a| |b| (r may be a or b) */
static void kmul(mpz_t r, const mpz_t a, const mpz_t b)
{
    size_t na = mpz_size(a), nb = mpz_size(b);
    if (na < nb) {
        kmul(r, b, a);
        return;
    }
    if (nb < KARATSUBA_LIMBS) {
        mpz_mul(r, a, b);
        mpz_abs(r, r);
        return;
    }
    mp_bitcnt_t k = (mp_bitcnt_t)(na / 2) * 32; /* a = a1 2^k + a0 */
    mpz_t a0, a1, b0, b1, z0, z1, z2;
    mpz_init(a0);
    mpz_init(a1);
    mpz_init(z0);
    mpz_init(z2);
    mpz_abs(a1, a);
    mpz_tdiv_r_2exp(a0, a1, k);
    mpz_tdiv_q_2exp(a1, a1, k);
    if (nb <= na / 2) { /* b shorter than a half: a1 b 2^k + a0 b */
        kmul(z0, a0, b);
        kmul(z2, a1, b);
        mpz_mul_2exp(z2, z2, k);
        mpz_add(r, z2, z0);
    } else {
        mpz_init(b0);
        mpz_init(b1);
        mpz_init(z1);
        mpz_abs(b1, b);
        mpz_tdiv_r_2exp(b0, b1, k);
        mpz_tdiv_q_2exp(b1, b1, k);
        kmul(z0, a0, b0);
        kmul(z2, a1, b1);
        mpz_add(a0, a0, a1);
        mpz_add(b0, b0, b1);
        kmul(z1, a0, b0); /* (a0 + a1)(b0 + b1) - z0 - z2 */
        mpz_sub(z1, z1, z0);
        mpz_sub(z1, z1, z2);
        mpz_mul_2exp(z2, z2, 2 * k);
        mpz_mul_2exp(z1, z1, k);
        mpz_add(r, z2, z1);
        mpz_add(r, r, z0);
        mpz_clear(b0);
        mpz_clear(b1);
        mpz_clear(z1);
    }
    mpz_clear(a0);
    mpz_clear(a1);
    mpz_clear(z0);
    mpz_clear(z2);
}

void alea__mini_mul(mpz_t r, const mpz_t a, const mpz_t b)
{
    int neg = mpz_sgn(a) * mpz_sgn(b) < 0;
    kmul(r, a, b);
    if (neg)
        mpz_neg(r, r);
}

/* base 10: from the bits, |z| < 2^bits */
size_t alea__mini_sizeinbase(const mpz_t z, int base)
{
    if (base != 10 || mpz_sgn(z) == 0)
        return mpz_sizeinbase(z, base);
    return (size_t)floor((double)mpz_sizeinbase(z, 2) * 0.30102999566398119521 + 1e-9) + 1;
}

/* base 10: mini-gmp's digits (mpn_get_str, on a copy: it takes the
 * limbs), without its exact length first; into s, or a new string from
 * GMP's allocator */
char *alea__mini_get_str(char *s, int base, const mpz_t z)
{
    if (base != 10)
        return mpz_get_str(s, base, z);
    size_t cap = alea__mini_sizeinbase(z, 10) + 2;
    if (!s) {
        void *(*alloc)(size_t);
        mp_get_memory_functions(&alloc, NULL, NULL);
        s = alloc(cap);
    }
    size_t i = 0;
    mp_size_t n = (mp_size_t)mpz_size(z);
    if (n == 0) {
        s[0] = '0';
        s[1] = '\0';
        return s;
    }
    if (mpz_sgn(z) < 0)
        s[i++] = '-';
    mpz_t t;
    mpz_init(t);
    mpz_abs(t, z);
    size_t k = mpn_get_str((unsigned char *)s + i, 10, mpz_limbs_modify(t, n), n);
    for (size_t j = 0; j < k; j++)
        s[i + j] = (char)('0' + s[i + j]);
    s[i + k] = '\0';
    mpz_clear(t);
    return s;
}

/* ---- GMP ---------------------------------------------------------------------- */

void alea__mini_inits(mpz_ptr z, ...)
{
    va_list ap;
    va_start(ap, z);
    for (; z; z = va_arg(ap, mpz_ptr))
        mpz_init(z);
    va_end(ap);
}

void alea__mini_clears(mpz_ptr z, ...)
{
    va_list ap;
    va_start(ap, z);
    for (; z; z = va_arg(ap, mpz_ptr))
        mpz_clear(z);
    va_end(ap);
}

/* r = x / f^k for the largest k (f > 1), returned; by squares of f, so
 * that a high power costs about log k divisions */
mp_bitcnt_t alea__mini_remove(mpz_t r, const mpz_t x, const mpz_t f)
{
    mpz_t p[64], q, rem;
    mp_bitcnt_t k = 0;
    int n = 0;
    mpz_init(q);
    mpz_init(rem);
    mpz_set(r, x);
    if (mpz_sgn(r) == 0 || mpz_cmpabs_ui(f, 1) <= 0) {
        mpz_clear(q);
        mpz_clear(rem);
        return 0;
    }
    /* f, f^2, f^4, ... while each divides r */
    mpz_init_set(p[0], f);
    n = 1;
    for (;;) {
        mpz_tdiv_qr(q, rem, r, p[n - 1]);
        if (mpz_sgn(rem) != 0)
            break;
        mpz_swap(r, q);
        k += (mp_bitcnt_t)1 << (n - 1);
        if (n == 64 || mpz_cmpabs(p[n - 1], r) > 0)
            break;
        mpz_init(p[n]);
        mpz_mul(p[n], p[n - 1], p[n - 1]);
        n++;
    }
    /* then the smaller powers, from the largest down */
    for (int i = n - 1; i >= 0; i--) {
        mpz_tdiv_qr(q, rem, r, p[i]);
        if (mpz_sgn(rem) == 0) {
            mpz_swap(r, q);
            k += (mp_bitcnt_t)1 << i;
        }
    }
    for (int i = 0; i < n; i++)
        mpz_clear(p[i]);
    mpz_clear(q);
    mpz_clear(rem);
    return k;
}

/* r = the product of the primes up to n: a sieve, the primes multiplied
 * into words first (frac.c asks for it at each denominator it factors) */
void alea__mini_primorial(mpz_t r, unsigned long n)
{
    enum { SIEVE = 4096 };
    unsigned char composite[SIEVE] = {0};
    unsigned long word = 1;
    mpz_set_ui(r, 1);
    for (unsigned long p = 2; p <= n; p++) {
        if (p < SIEVE) {
            if (composite[p])
                continue;
            for (unsigned long m = p * p; m < SIEVE; m += p)
                composite[m] = 1;
        } else { /* past the sieve (no caller goes there): by trial */
            unsigned long d = 2;
            while (d * d <= p && p % d)
                d++;
            if (d * d <= p)
                continue;
        }
        if (word > 0xFFFFFFFFul / p) {
            mpz_mul_ui(r, r, word);
            word = 1;
        }
        word *= p;
    }
    mpz_mul_ui(r, r, word);
}

/* z = m 2^e, m in [0.5, 1) truncated to a double's bits (as GMP's) */
double alea__mini_get_d_2exp(long *e, const mpz_t z)
{
    if (mpz_sgn(z) == 0) {
        *e = 0;
        return 0.0;
    }
    size_t bits = mpz_sizeinbase(z, 2);
    mpz_t t;
    mpz_init(t);
    if (bits > 53)
        mpz_tdiv_q_2exp(t, z, bits - 53);
    else
        mpz_mul_2exp(t, z, 53 - bits);
    double d = ldexp(mpz_get_d(t), -53);
    mpz_clear(t);
    *e = (long)bits;
    return d;
}

void alea__mini_set_u64(mpz_t z, uint64_t u)
{
    mpz_set_ui(z, (unsigned long)(u >> 32));
    mpz_mul_2exp(z, z, 32);
    mpz_add_ui(z, z, (unsigned long)(u & 0xFFFFFFFFu));
}

void alea__mini_mul_i64(mpz_t r, const mpz_t x, int64_t k)
{
    if (k >= LONG_MIN && k <= LONG_MAX) {
        mpz_mul_si(r, x, (long)k);
        return;
    }
    mpz_t t;
    mpz_init(t);
    alea__mini_set_u64(t, k < 0 ? -(uint64_t)k : (uint64_t)k);
    if (k < 0)
        mpz_neg(t, t);
    mpz_mul(r, x, t);
    mpz_clear(t);
}

/* ---- MPFR, exactly ------------------------------------------------------------ */

void mpfr_init2(mpfr_ptr r, unsigned long prec)
{
    mpz_init(r->m);
    r->e = 0;
    r->prec = prec;
}

void mpfr_clear(mpfr_ptr r)
{
    mpz_clear(r->m);
}

/* r = n 2^e, plus a positive part below 2^e when `sticky` (n has more
 * than r's precision then), rounded to nearest, ties to even; n's digits
 * are taken (n is left anything) */
static void fr_round(mpfr_ptr r, mpz_t n, long e, int sticky, unsigned long prec)
{
    int neg = mpz_sgn(n) < 0;
    mpz_abs(n, n);
    size_t bits = mpz_sgn(n) ? mpz_sizeinbase(n, 2) : 0;
    if (bits > prec) {
        mp_bitcnt_t shift = (mp_bitcnt_t)(bits - prec);
        int guard = mpz_tstbit(n, shift - 1);
        int low = sticky || mpz_scan1(n, 0) < shift - 1;
        mpz_tdiv_q_2exp(n, n, shift);
        if (guard && (low || mpz_odd_p(n)))
            mpz_add_ui(n, n, 1);
        e += (long)shift;
    }
    if (neg)
        mpz_neg(n, n);
    mpz_swap(r->m, n);
    r->e = e;
}

/* r = a / b (b != 0) rounded to prec bits: the quotient taken to at least
 * prec + 2 bits, its remainder the sticky part */
static void fr_quot(mpfr_ptr r, const mpz_t a, long ea, const mpz_t b, long eb)
{
    mpz_t n, d, rem;
    if (mpz_sgn(a) == 0) {
        mpz_set_ui(r->m, 0);
        r->e = 0;
        return;
    }
    mpz_init(n);
    mpz_init(d);
    mpz_init(rem);
    mpz_abs(n, a);
    mpz_abs(d, b);
    long k = (long)r->prec + 2 - ((long)mpz_sizeinbase(n, 2) - (long)mpz_sizeinbase(d, 2));
    if (k > 0)
        mpz_mul_2exp(n, n, (mp_bitcnt_t)k);
    else if (k < 0)
        mpz_mul_2exp(d, d, (mp_bitcnt_t)-k);
    mpz_tdiv_qr(n, rem, n, d);
    if (mpz_sgn(a) * mpz_sgn(b) < 0)
        mpz_neg(n, n);
    fr_round(r, n, ea - eb - k, mpz_sgn(rem) != 0, r->prec);
    mpz_clear(n);
    mpz_clear(d);
    mpz_clear(rem);
}

void mpfr_set_q(mpfr_ptr r, const mpq_t q, mpfr_rnd_t rnd)
{
    (void)rnd;
    fr_quot(r, mpq_numref(q), 0, mpq_denref(q), 0);
}

void mpfr_set_z(mpfr_ptr r, const mpz_t z, mpfr_rnd_t rnd)
{
    (void)rnd;
    mpz_t n;
    mpz_init_set(n, z);
    fr_round(r, n, 0, 0, r->prec);
    mpz_clear(n);
}

void mpfr_set_si(mpfr_ptr r, long v, mpfr_rnd_t rnd)
{
    (void)rnd;
    mpz_t n;
    mpz_init_set_si(n, v);
    fr_round(r, n, 0, 0, r->prec);
    mpz_clear(n);
}

void mpfr_pow_si(mpfr_ptr r, mpfr_srcptr x, long n, mpfr_rnd_t rnd)
{
    (void)rnd;
    unsigned long k = n < 0 ? 0UL - (unsigned long)n : (unsigned long)n;
    mpz_t p, one;
    mpz_init(p);
    mpz_pow_ui(p, x->m, k);
    long e = x->e * (long)k;
    if (n >= 0) {
        fr_round(r, p, e, 0, r->prec);
    } else {
        mpz_init_set_ui(one, 1);
        fr_quot(r, one, 0, p, e);
        mpz_clear(one);
    }
    mpz_clear(p);
}

void mpfr_mul(mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, mpfr_rnd_t rnd)
{
    (void)rnd;
    mpz_t n;
    mpz_init(n);
    mpz_mul(n, a->m, b->m);
    fr_round(r, n, a->e + b->e, 0, r->prec);
    mpz_clear(n);
}

void mpfr_div(mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, mpfr_rnd_t rnd)
{
    (void)rnd;
    mpz_t am, bm;
    mpz_init_set(am, a->m); /* r may be a or b */
    mpz_init_set(bm, b->m);
    fr_quot(r, am, a->e, bm, b->e);
    mpz_clear(am);
    mpz_clear(bm);
}

/* x >= 0: the root of m 2^e, e made even, taken to prec + 2 bits at least
 * with its remainder the sticky part */
void mpfr_sqrt(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    (void)rnd;
    mpz_t n, rem;
    mpz_init_set(n, x->m);
    mpz_init(rem);
    long e = x->e;
    if (mpz_sgn(n) <= 0) {
        mpz_set_ui(r->m, 0);
        r->e = 0;
        mpz_clear(n);
        mpz_clear(rem);
        return;
    }
    long need = 2 * ((long)r->prec + 2) - (long)mpz_sizeinbase(n, 2);
    long sh = need > 0 ? need : 0;
    if ((e - sh) % 2 != 0)
        sh++;
    mpz_mul_2exp(n, n, (mp_bitcnt_t)sh);
    e -= sh;
    mpz_sqrtrem(n, rem, n);
    fr_round(r, n, e / 2, mpz_sgn(rem) != 0, r->prec);
    mpz_clear(n);
    mpz_clear(rem);
}

/* to the nearest double, ties to even, below the normal range at the
 * bits left (one rounding, as MPFR's) */
double mpfr_get_d(mpfr_srcptr x, mpfr_rnd_t rnd)
{
    (void)rnd;
    if (mpz_sgn(x->m) == 0)
        return 0.0;
    long bits = (long)mpz_sizeinbase(x->m, 2), top = bits + x->e; /* x < 2^top */
    if (top > 1024)
        return mpz_sgn(x->m) < 0 ? -HUGE_VAL : HUGE_VAL;
    long p = top >= -1021 ? 53 : top + 1074;
    if (p < 0)
        return mpz_sgn(x->m) < 0 ? -0.0 : 0.0;
    mpz_t n;
    mpz_init(n);
    mpz_abs(n, x->m);
    long e = x->e;
    if (bits > p) {
        mp_bitcnt_t shift = (mp_bitcnt_t)(bits - p);
        int guard = mpz_tstbit(n, shift - 1);
        int low = mpz_scan1(n, 0) < shift - 1;
        mpz_tdiv_q_2exp(n, n, shift);
        if (guard && (low || mpz_odd_p(n)))
            mpz_add_ui(n, n, 1);
        e += (long)shift;
    }
    double d = ldexp(mpz_get_d(n), (int)e);
    mpz_clear(n);
    return mpz_sgn(x->m) < 0 ? -d : d;
}

double mpfr_get_d_2exp(long *e, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    (void)rnd;
    if (mpz_sgn(x->m) == 0) {
        *e = 0;
        return 0.0;
    }
    mpfr_t t;
    mpfr_init2(t, 53);
    mpz_t n;
    mpz_init_set(n, x->m);
    fr_round(t, n, 0, 0, 53);
    size_t bits = mpz_sizeinbase(t->m, 2);
    double d = ldexp(mpz_get_d(t->m), -(int)bits);
    *e = (long)bits + x->e + t->e;
    mpz_clear(n);
    mpfr_clear(t);
    return d;
}

/* x >= 10^f, x > 0: m 10^-f 2^e >= 1 (f < 0), or m 2^e >= 10^f */
static int at_least_pow10(mpfr_srcptr x, long f)
{
    mpz_t a, b;
    mpz_init(a);
    mpz_init(b);
    mpz_abs(a, x->m);
    mpz_ui_pow_ui(b, 10, (unsigned long)(f < 0 ? -f : f));
    if (f < 0) {
        mpz_mul(a, a, b);
        mpz_set_ui(b, 1);
    }
    /* a 2^e against b */
    if (x->e >= 0)
        mpz_mul_2exp(a, a, (mp_bitcnt_t)x->e);
    else
        mpz_mul_2exp(b, b, (mp_bitcnt_t)-x->e);
    int ge = mpz_cmp(a, b) >= 0;
    mpz_clear(a);
    mpz_clear(b);
    return ge;
}

long alea__mini_floor_log10(mpfr_srcptr x, long f)
{
    while (!at_least_pow10(x, f))
        f--;
    while (at_least_pow10(x, f + 1))
        f++;
    return f;
}

#else
typedef int alea__mini_unused; /* the GMP build: nothing here */
#endif
