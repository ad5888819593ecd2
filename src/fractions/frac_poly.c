/*
 * frac_poly.c -- sums and powers of distributions in fractions as products
 * of integer polynomials over a common denominator (the fraction module,
 * module.h): Kronecker substitution for long products, a recurrence over
 * the coefficients for a power of a die with few faces. Each product is checked against the memory and work limits before it
 * starts.
 */
#include "module.h"

#include <math.h>
#include <string.h>

/* ---- sums as polynomial products -------------------------------------------- */

/*
 * Integer polynomials, c[k] the coefficient of x^k: their array comes from
 * the context's allocator, their digits from GMP. Every coefficient here is
 * a count, never negative, which is what lets a product be one product of
 * integers (Kronecker substitution: each polynomial packed into an integer,
 * a coefficient every `slot` bits, wide enough that no sum carries into the
 * next; GMP multiplies long integers in quasi-linear time).
 */
typedef struct zpoly {
    mpz_t *c;
    size_t len, cap;
} zpoly;

/* The limbs below are GMP's 64-bit limbs without nails (Debian's build). */
#define LIMB_BITS 64
_Static_assert(sizeof(mp_limb_t) * 8 == LIMB_BITS, "64-bit limbs");

static void zp_init(zpoly *P)
{
    P->c = NULL;
    P->len = P->cap = 0;
}

static void zp_clear(alea_ctx *ctx, zpoly *P)
{
    for (size_t i = 0; i < P->cap; i++)
        mpz_clear(P->c[i]);
    if (P->c)
        alea__mem_free(ctx, P->c, P->cap * sizeof *P->c);
    zp_init(P);
}

/* P = 0 with len coefficients. */
static alea_status zp_zero(alea_ctx *ctx, zpoly *P, size_t len)
{
    if (len > P->cap) {
        mpz_t *c = alea__mem_realloc(ctx, P->c, P->cap * sizeof *c,
                                     alea__mul_size(len, sizeof *c));
        if (!c)
            return alea__nomem(ctx);
        for (size_t i = P->cap; i < len; i++)
            mpz_init(c[i]);
        P->c = c;
        P->cap = len;
    }
    for (size_t i = 0; i < len; i++)
        mpz_set_ui(P->c[i], 0);
    P->len = len;
    return ALEA_OK;
}

static void zp_swap(zpoly *a, zpoly *b)
{
    zpoly t = *a;
    *a = *b;
    *b = t;
}

static size_t zp_max_bits(const zpoly *P)
{
    size_t b = 0;
    for (size_t i = 0; i < P->len; i++) {
        size_t x = z_bits(P->c[i]);
        b = x > b ? x : b;
    }
    return b;
}

/* z = sum c[k] 2^(k slot), each c[k] below 2^slot. */
static void kr_pack(mpz_t z, const zpoly *P, size_t slot)
{
    size_t total = P->len * slot / LIMB_BITS + 2;
    mp_limb_t *w = mpz_limbs_write(z, (mp_size_t)total);
    memset(w, 0, total * sizeof *w);
    for (size_t k = 0; k < P->len; k++) {
        size_t n = mpz_size(P->c[k]), bit = k * slot, li = bit / LIMB_BITS;
        unsigned sh = (unsigned)(bit % LIMB_BITS);
        const mp_limb_t *x = mpz_limbs_read(P->c[k]);
        for (size_t j = 0; j < n; j++) {
            w[li + j] |= x[j] << sh;
            if (sh)
                w[li + j + 1] |= x[j] >> (LIMB_BITS - sh);
        }
    }
    while (total && !w[total - 1])
        total--;
    mpz_limbs_finish(z, (mp_size_t)total);
}

/* R's len coefficients from z, slot bits each. */
static void kr_unpack(zpoly *R, const mpz_t z, size_t slot)
{
    size_t nz = mpz_size(z), n = slot / LIMB_BITS + 1;
    const mp_limb_t *w = mpz_limbs_read(z);
    mp_limb_t mask = slot % LIMB_BITS ? ((mp_limb_t)1 << (slot % LIMB_BITS)) - 1 : 0;
    for (size_t k = 0; k < R->len; k++) {
        size_t bit = k * slot, li = bit / LIMB_BITS;
        unsigned sh = (unsigned)(bit % LIMB_BITS);
        if (li >= nz) {
            mpz_set_ui(R->c[k], 0);
            continue;
        }
        mp_limb_t *r = mpz_limbs_write(R->c[k], (mp_size_t)n);
        for (size_t j = 0; j < n; j++) {
            mp_limb_t lo = li + j < nz ? w[li + j] : 0;
            mp_limb_t hi = li + j + 1 < nz ? w[li + j + 1] : 0;
            r[j] = sh ? (lo >> sh) | (hi << (LIMB_BITS - sh)) : lo;
        }
        r[n - 1] &= mask;
        size_t m = n;
        while (m && !r[m - 1])
            m--;
        mpz_limbs_finish(R->c[k], (mp_size_t)m);
    }
}

/* Below this many terms in the shorter factor a product is computed term by
 * term; above, packed. */
#define KRONECKER_FROM 16

/* The long factor of a packed product is multiplied this many limbs at a
 * time (or four times the short factor's, if more), so that one product of
 * GMP's, which cannot be interrupted, takes a few milliseconds at most
 * unless both factors are long (a squaring). */
#define KR_CHUNK_LIMBS 8192

/* The work done by a packed product of `out` limbs by a factor of `p`
 * limbs, in the units poly_check charges it (already charged): reported as
 * done, so that the interrupt hook is polled as the product goes. */
static alea_status mul_done(alea_ctx *ctx, double out, double p)
{
    return alea__progress(ctx, out * (1 + log2(p + 2)) * 4, 0, 0);
}

/* T = A B; T is neither A nor B, and its numbers keep their digits' room
 * from one product to the next (a Horner step or a squaring writes into
 * the polynomial the step before it freed). */
static alea_status zp_mul(alea_ctx *ctx, zpoly *T, const zpoly *A, const zpoly *B)
{
    size_t len = A->len && B->len ? A->len + B->len - 1 : 0;
    alea_status st = zp_zero(ctx, T, len);
    if (st != ALEA_OK || !len)
        return st;
    size_t shorter = A->len < B->len ? A->len : B->len;
    if (shorter < KRONECKER_FROM) {
        for (size_t i = 0; i < A->len && st == ALEA_OK; i++) {
            if (mpz_sgn(A->c[i]))
                for (size_t j = 0; j < B->len; j++)
                    mpz_addmul(T->c[i + j], A->c[i], B->c[j]);
            st = mul_done(ctx, (double)B->len * (double)(mpz_size(A->c[i]) + 1), 1);
        }
        return st;
    }
    /* a coefficient of the product: at most `shorter` products */
    size_t slot = zp_max_bits(A) + zp_max_bits(B) + 1;
    for (size_t k = shorter; k; k >>= 1)
        slot++;
    const zpoly *L = A->len >= B->len ? A : B, *S = L == A ? B : A;
    size_t s_limbs = S->len * slot / LIMB_BITS + 1;
    size_t chunk = (s_limbs * 4 > KR_CHUNK_LIMBS ? s_limbs * 4 : KR_CHUNK_LIMBS) * LIMB_BITS / slot;
    mpz_t a, b;
    mpz_init(a);
    mpz_init(b);
    if (A == B || chunk >= L->len) {
        kr_pack(a, A, slot);
        if (A == B) {
            mpz_mul(a, a, a);
        } else {
            kr_pack(b, B, slot);
            mpz_mul(a, a, b);
        }
        kr_unpack(T, a, slot);
        st = mul_done(ctx, (double)len * (double)slot / LIMB_BITS, (double)s_limbs);
    } else {
        /* L in pieces of `chunk` coefficients, each product added in */
        zpoly U;
        zp_init(&U);
        if (chunk < 1)
            chunk = 1;
        kr_pack(b, S, slot);
        for (size_t i = 0; i < L->len && st == ALEA_OK; i += chunk) {
            size_t k = L->len - i < chunk ? L->len - i : chunk;
            zpoly V = {L->c + i, k, k};
            if ((st = zp_zero(ctx, &U, k + S->len - 1)) != ALEA_OK)
                break;
            kr_pack(a, &V, slot);
            mpz_mul(a, a, b);
            kr_unpack(&U, a, slot);
            for (size_t j = 0; j < U.len; j++)
                mpz_add(T->c[i + j], T->c[i + j], U.c[j]);
            st = mul_done(ctx, (double)U.len * (double)slot / LIMB_BITS, (double)s_limbs);
        }
        zp_clear(ctx, &U);
    }
    mpz_clear(a);
    mpz_clear(b);
    return st;
}

/* How zp_pow computes A^n: 0 by squaring (packed products, poly_check
 * charges them), else by a recurrence over the coefficients, each from the
 * few before it: 1 for a die of equal faces (half of them, by symmetry), 2
 * for Miller's over A's *terms nonzero coefficients. */
static int zp_pow_walk(const zpoly *A, unsigned long n, size_t *terms)
{
    size_t s = A->len, equal = 1;
    *terms = 0;
    for (size_t i = 0; i < s; i++) {
        *terms += mpz_sgn(A->c[i]) != 0;
        equal = equal && mpz_cmp(A->c[i], A->c[0]) == 0;
    }
    /* Miller's recurrence costs terms products of each coefficient by one
     * of A's: for A's of a limb, less than the squarings' packed products */
    if (s == 1 || n == 1 || (!equal && (*terms > KRONECKER_FROM || zp_max_bits(A) > LIMB_BITS)))
        return 0;
    return equal ? 1 : 2;
}

/* R = A^n, n >= 1, A->c[0] != 0 (a pmf's polynomial starts at its lowest
 * value). */
static alea_status zp_pow(alea_ctx *ctx, zpoly *R, const zpoly *A, unsigned long n)
{
    size_t s = A->len, terms;
    int walk = zp_pow_walk(A, n, &terms), equal = walk == 1;
    if (!walk) {
        /* by squaring, from the exponent's highest bit down: each step
         * squares R and multiplies it by the short A at most, so that the
         * only product of two long polynomials is the last squaring */
        zpoly T;
        zp_init(&T);
        alea_status st = zp_zero(ctx, R, s);
        for (size_t i = 0; st == ALEA_OK && i < s; i++)
            mpz_set(R->c[i], A->c[i]);
        int top = 0;
        while (top < 63 && (n >> (top + 1)))
            top++;
        for (int bit = top - 1; st == ALEA_OK && bit >= 0; bit--) {
            if ((st = zp_mul(ctx, &T, R, R)) != ALEA_OK)
                break;
            zp_swap(R, &T);
            if (((n >> bit) & 1) && (st = zp_mul(ctx, &T, R, A)) == ALEA_OK)
                zp_swap(R, &T);
        }
        zp_clear(ctx, &T);
        return st;
    }
    size_t len = (s - 1) * (size_t)n + 1;
    alea_status st = zp_zero(ctx, R, len);
    if (st != ALEA_OK)
        return st;
    mpz_t acc, t;
    mpz_init(acc);
    mpz_init(t);
    mpz_t *c = R->c;
    long ln = (long)n, ls = (long)s;
    mpz_set_ui(c[0], 1);
    if (equal) {
        /* (1 + x + ... + x^(s-1))^n, P: from P'/P = n (1/(1-x) - s x^(s-1)/(1-x^s)),
         * (k+1) c[k+1] = (k+n) c[k] + (k-s+1-ns) c[k-s+1] + (n(s-1)-k+s) c[k-s];
         * the coefficients are symmetric, so half of them are computed. */
        for (long k = 0; 2 * (k + 1) < (long)len && st == ALEA_OK; k++) {
            /* charged by alea__frac_pow before: done as it goes (two
             * coefficients, four passes each, counted twice) */
            st = alea__progress(ctx, 16 * ((double)mpz_size(c[k]) + 1), 0, 0);
            mpz_mul_si(acc, c[k], k + ln);
            if (k - ls + 1 >= 0) {
                mpz_mul_si(t, c[k - ls + 1], k - ls + 1 - ln * ls);
                mpz_add(acc, acc, t);
            }
            if (k - ls >= 0) {
                mpz_mul_si(t, c[k - ls], ln * (ls - 1) - k + ls);
                mpz_add(acc, acc, t);
            }
            mpz_divexact_ui(c[k + 1], acc, (unsigned long)(k + 1));
        }
        for (size_t k = (len - 1) / 2 + 1; k < len; k++)
            mpz_set(c[k], c[len - 1 - k]);
        if (mpz_cmp_ui(A->c[0], 1) != 0) {
            mpz_pow_ui(t, A->c[0], n);
            for (size_t k = 0; k < len; k++)
                mpz_mul(c[k], c[k], t);
        }
    } else {
        /* a few terms a[i]: from A P' = n A' P (J. C. P. Miller's recurrence),
         * k a[0] c[k] = sum over i of ((n+1) i - k) a[i] c[k-i] */
        long at[KRONECKER_FROM + 1]; /* A's terms past a[0]: over them only,
                                       * however far apart (d{0,0,11542}) */
        int nt = 0;
        for (long i = 1; i < ls; i++)
            if (mpz_sgn(A->c[i]))
                at[nt++] = i;
        mpz_pow_ui(c[0], A->c[0], n);
        for (long k = 1; k < (long)len && st == ALEA_OK; k++) {
            /* charged by alea__frac_pow before: done as it goes */
            st = alea__progress(ctx, 2 * (3 * (double)nt + 2) * ((double)mpz_size(c[k - 1]) + 1),
                                0, 0);
            mpz_set_ui(acc, 0);
            for (int j = 0; j < nt && at[j] <= k; j++) {
                long i = at[j];
                if (!mpz_sgn(c[k - i]))
                    continue;
                mpz_mul(t, A->c[i], c[k - i]);
                mpz_mul_si(t, t, (ln + 1) * i - k);
                mpz_add(acc, acc, t);
            }
            mpz_divexact_ui(acc, acc, (unsigned long)k);
            mpz_divexact(c[k], acc, A->c[0]);
        }
    }
    mpz_clear(acc);
    mpz_clear(t);
    return st;
}

/*
 * d as an integer polynomial over one denominator: P(x) = sum c_k x^k with
 * k = v - base, and den the least common multiple of the denominators.
 */
static alea_status to_poly_at(alea_ctx *ctx, const alea__pmf *d, int64_t base, size_t len,
                              zpoly *P, mpz_t den)
{
    alea_status st = zp_zero(ctx, P, len);
    if (st != ALEA_OK)
        return st;
    mpz_set_ui(den, 1);
    for (size_t i = 0; i < d->n; i++)
        mpz_lcm(den, den, mpq_denref(&d->q[i]));
    mpz_t t;
    mpz_init(t);
    for (size_t i = 0; i < d->n; i++) {
        mpz_ptr c = P->c[(size_t)((uint64_t)d->v[i] - (uint64_t)base)];
        mpz_divexact(t, den, mpq_denref(&d->q[i]));
        mpz_addmul(c, mpq_numref(&d->q[i]), t);
    }
    mpz_clear(t);
    while (P->len && !mpz_sgn(P->c[P->len - 1]))
        P->len--;
    return ALEA_OK;
}

static alea_status to_poly(alea_ctx *ctx, const alea__pmf *d, zpoly *P, mpz_t den)
{
    return to_poly_at(ctx, d, d->v[0],
                      (size_t)((uint64_t)d->v[d->n - 1] - (uint64_t)d->v[0]) + 1, P, den);
}

/* The pmf of P / den with its lowest power at value lo (zero coefficients
 * left out). P's digits become the fractions' (P is left 0). */
static alea_status from_poly(alea_ctx *ctx, zpoly *P, const mpz_t den, int64_t lo,
                             const node *at, alea__pmf *out)
{
    size_t len = P->len, k = 0;
    for (size_t i = 0; i < len; i++)
        k += mpz_sgn(P->c[i]) != 0;
    unsigned long ps[SMOOTH_PRIMES], es[SMOOTH_PRIMES];
    size_t dl = z_limbs(den);
    /* Finding den's primes: a gcd with the primorial (its 90 limbs times
     * den's), a unit a limb; the rest (trial divisions of that gcd, at most
     * SMOOTH_BOUND times its 90 limbs, and divisions of den by at most
     * SMOOTH_PRIMES primes) is charged by what alea__frac_smooth() did. */
    double find = (double)(dl + 1) * 96;
    alea_status st = work_check(ctx, find, at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)find, at->start, at->end);
    if (st != ALEA_OK)
        return st;
    double trial;
    int np = alea__frac_smooth(den, ps, es, &trial);
    if ((st = alea__charge(ctx, (int64_t)trial, at->start, at->end)) != ALEA_OK)
        return st;
    /* Reducing each fraction: a division per prime of den, or a gcd. */
    double cost = (double)k * (np >= 0 ? (double)(np + 1) * (double)(dl + 1) * 8 : q_cost(dl * 2));
    st = work_check(ctx, cost, at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)cost, at->start, at->end);
    if (st != ALEA_OK || (st = alea__frac_pmf_alloc(ctx, k, out)) != ALEA_OK)
        return st;
    mpz_t pz, g;
    mpz_init(pz);
    mpz_init(g);
    quot_cache qc;
    qc_init(&qc);
    k = 0;
    for (size_t i = 0; i < len; i++) {
        if (!mpz_sgn(P->c[i]))
            continue;
        out->v[k] = (int64_t)((uint64_t)lo + (uint64_t)i);
        if (np >= 0) {
            alea__frac_reduce_smooth(&out->q[k], P->c[i], den, ps, es, np, pz, g, &qc);
        } else {
            mpz_swap(mpq_numref(&out->q[k]), P->c[i]);
            mpz_set(mpq_denref(&out->q[k]), den);
            mpq_canonicalize(&out->q[k]);
        }
        k++;
    }
    mpz_clear(pz);
    mpz_clear(g);
    qc_clear(&qc);
    if ((st = alea__frac_seal(ctx, out, at)) != ALEA_OK)
        alea__frac_pmf_free(ctx, out);
    return st;
}

alea_status alea__frac_from_ints(alea_ctx *ctx, mpz_t *c, size_t len, const mpz_t den,
                                 int64_t lo, const node *at, alea__pmf *out)
{
    zpoly P = {c, len, len};
    while (P.len && !mpz_sgn(P.c[P.len - 1]))
        P.len--;
    return from_poly(ctx, &P, den, lo, at, out);
}

/* Work and digit bytes of a product of polynomials of lengths la, lb with
 * coefficients of ba, bb bits: Kronecker substitution multiplies two
 * integers of la (ba + bb + log2) bits, a unit a limb (times log), and the
 * result holds la + lb - 1 coefficients of ba + bb bits. */
static alea_status poly_check(alea_ctx *ctx, double len_out, double bits_out, double mul_bits,
                              const node *at)
{
    double limbs = len_out * (bits_out / 64 + 1);
    double bytes = limbs * 8 * 3; /* the result, its fractions, the packed product */
    double work = limbs * (1 + log2(mul_bits / 64 + 2)) * 4;
    if (alea__frac_digits_check(ctx, bytes, at) != ALEA_OK)
        return ALEA_ERR_LIMIT;
    alea_status st = work_check(ctx, work, at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)work, at->start, at->end);
    return st;
}

/* Before the polynomials are made: their coefficients (a word each, zeros
 * included, over the value ranges of the operands: lengths la, lb and the
 * result's) and the operands' digits must fit in the memory limit. */
static alea_status skeleton_check(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b,
                                  double len_out, const node *at)
{
    double la = (double)((uint64_t)a->v[a->n - 1] - (uint64_t)a->v[0]) + 1;
    double lb = b ? (double)((uint64_t)b->v[b->n - 1] - (uint64_t)b->v[0]) + 1 : 0;
    double bytes = (la + lb + len_out) * (double)sizeof(mpz_t) + 2 * (double)a->qbytes +
                   (b ? 2 * (double)b->qbytes : 0);
    if ((double)ctx->mem_used + bytes > (double)ctx->limits[ALEA_LIMIT_MEMORY])
        return alea__error(ctx, ALEA_ERR_LIMIT, at->start, at->end,
                           "the exact fractions at byte %u need about %.0f MB "
                           "(memory limit is %lld bytes)",
                           (unsigned)at->start, bytes / 1e6,
                           (long long)ctx->limits[ALEA_LIMIT_MEMORY]);
    return work_check(ctx, la + lb + len_out, at);
}

/* A sum with a constant (one outcome of probability 1: `1000d6 + 20`): the
 * other's fractions, moved, already in lowest terms; as a product its 5001
 * fractions were reduced again, 50 ms and 40 million units. A copy: a pass
 * over each fraction's limbs, counted twice, and the seal's read. */
static alea_status moved(alea_ctx *ctx, const alea__pmf *o, int64_t by, const node *at,
                         alea__pmf *out)
{
    double limbs = 0;
    for (size_t i = 0; i < o->n; i++)
        limbs += (double)q_limbs(&o->q[i]) + 1;
    alea_status st = alea__frac_digits_check(ctx, (double)o->qbytes, at) == ALEA_OK
                         ? work_check(ctx, 2 * limbs, at)
                         : ALEA_ERR_LIMIT;
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)(2 * limbs), at->start, at->end);
    if (st != ALEA_OK || (st = alea__frac_pmf_alloc(ctx, o->n, out)) != ALEA_OK)
        return st;
    for (size_t i = 0; i < o->n; i++) {
        out->v[i] = (int64_t)((uint64_t)o->v[i] + (uint64_t)by); /* in lo..hi, checked */
        mpq_set(&out->q[i], &o->q[i]);
    }
    if ((st = alea__frac_seal(ctx, out, at)) != ALEA_OK)
        alea__frac_pmf_free(ctx, out);
    return st;
}

static int is_one(const alea__pmf *d)
{
    return d->n == 1 && mpz_cmp_ui(mpq_numref(&d->q[0]), 1) == 0 &&
           mpz_cmp_ui(mpq_denref(&d->q[0]), 1) == 0;
}

alea_status alea__frac_conv(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b, int64_t lo,
                            const node *at, alea__pmf *out)
{
    if (is_one(a))
        return moved(ctx, b, a->v[0], at, out);
    if (is_one(b))
        return moved(ctx, a, b->v[0], at, out);
    double len = (double)((uint64_t)a->v[a->n - 1] - (uint64_t)a->v[0]) +
                 (double)((uint64_t)b->v[b->n - 1] - (uint64_t)b->v[0]) + 1;
    alea_status st = skeleton_check(ctx, a, b, len, at);
    if (st != ALEA_OK)
        return st;
    zpoly A, B;
    mpz_t da, db;
    zp_init(&A);
    zp_init(&B);
    mpz_init(da);
    mpz_init(db);
    if ((st = to_poly(ctx, a, &A, da)) == ALEA_OK && (st = to_poly(ctx, b, &B, db)) == ALEA_OK) {
        double la = (double)A.len, lb = (double)B.len;
        double ba = (double)zp_max_bits(&A) + (double)z_bits(da),
               bb = (double)zp_max_bits(&B) + (double)z_bits(db);
        st = poly_check(ctx, la + lb - 1, ba + bb, (la + lb) * (ba + bb), at);
    }
    zpoly C;
    zp_init(&C);
    if (st == ALEA_OK && (st = zp_mul(ctx, &C, &A, &B)) == ALEA_OK) {
        mpz_mul(da, da, db);
        st = from_poly(ctx, &C, da, lo, at, out);
    }
    zp_clear(ctx, &A);
    zp_clear(ctx, &B);
    zp_clear(ctx, &C);
    mpz_clear(da);
    mpz_clear(db);
    return st;
}

alea_status alea__frac_pow(alea_ctx *ctx, const alea__pmf *a, int64_t n, int64_t lo,
                           const node *at, alea__pmf *out)
{
    double range = (double)((uint64_t)a->v[a->n - 1] - (uint64_t)a->v[0]);
    alea_status st = skeleton_check(ctx, a, NULL, range * (double)n + 1, at);
    if (st != ALEA_OK)
        return st;
    zpoly A, R;
    mpz_t da;
    zp_init(&A);
    zp_init(&R);
    mpz_init(da);
    if ((st = to_poly(ctx, a, &A, da)) == ALEA_OK) {
        double la = (double)A.len, dn = (double)n;
        double bits = ((double)zp_max_bits(&A) + (double)z_bits(da)) * dn;
        double len = (la - 1) * dn + 1;
        size_t terms;
        int walk = zp_pow_walk(&A, (unsigned long)n, &terms);
        if (walk && mpz_cmp_ui(A.c[0], 1) == 0) {
            /* A recurrence: each coefficient from a few before it, a pass
             * over its limbs for each product, sum and exact division
             * (equal faces: six for each of half of them, and a copy;
             * Miller's: three a term and two), counted twice; a first
             * coefficient other than 1 scales every one (a long product:
             * charged as squaring below). */
            double passes = walk == 1 ? 4 : 3 * (double)terms + 2;
            double work = 2 * passes * len * (bits / LIMB_BITS + 1);
            /* the digits as poly_check counts them: the result, its
             * fractions and (here) the recurrence's own */
            st = alea__frac_digits_check(ctx, len * (bits / LIMB_BITS + 1) * 8 * 3, at) == ALEA_OK
                     ? work_check(ctx, work, at)
                     : ALEA_ERR_LIMIT;
            if (st == ALEA_OK)
                st = alea__charge(ctx, (int64_t)work, at->start, at->end);
        } else {
            /* Repeated squaring: the last product dominates, the ones
             * before it sum to about as much again. */
            st = poly_check(ctx, len, bits, 2 * len * bits, at);
        }
    }
    if (st == ALEA_OK && (st = zp_pow(ctx, &R, &A, (unsigned long)n)) == ALEA_OK) {
        mpz_pow_ui(da, da, (unsigned long)n);
        st = from_poly(ctx, &R, da, lo, at, out);
    }
    zp_clear(ctx, &A);
    zp_clear(ctx, &R);
    mpz_clear(da);
    return st;
}
