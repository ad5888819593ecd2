/*
 * frac.c -- the pmf operations of pmf.c in exact fractions: the second
 * number system of the exact engine (dist.h). pmf.c calls here when the
 * context is in exact mode; everything above it (keep, explosions, the
 * mechanics) is written once and hands weights down (alea__w).
 *
 * The numbers are FLINT's: a probability is a reduced fmpq, sums and powers
 * of dice are products of integer polynomials (fmpz_poly, Kronecker
 * substitution) over a common denominator. Their digits are allocated by
 * FLINT, outside the context's allocator, so they are counted instead: each
 * pmf adds the bytes of its digits to the context's memory (qbytes), and
 * the big operations estimate the digits of their result and refuse, before
 * they start, one that would pass the memory limit. Work is charged by the
 * limbs the arithmetic walks (q_cost), not by a count of additions.
 *
 * This file is not part of the library: with the library's other objects
 * and FLINT it makes the module alea-exact.so, which the library loads
 * (frac_load.c) when a context first computes in fractions: loading FLINT
 * and its libraries costs a process several milliseconds, which a roll or
 * a distribution in doubles does not pay. A program may also link this file
 * in place of frac_load.c (the fuzzers do). Without FLINT (the WebAssembly
 * build) exact mode cannot be switched on and this file is not built.
 */
#include "dist.h"
#include "out.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef ALEA_HAVE_FLINT
#error "frac.c is built with FLINT (ALEA_HAVE_FLINT) only"
#endif
#include <flint/fmpz_poly.h>
#include <mpfr.h>
#include <flint/fmpz_vec.h>

/* Work units per limb (times its logarithm) of the operands of an exact
 * addition, beyond the ALEA__FRAC_UNIT of one-limb fractions. */
#define FRAC_LIMB_COST 8

/* Limbs of the digits of a number, and of a fraction. */
static size_t z_limbs(const fmpz_t z)
{
    return (size_t)fmpz_size(z);
}

static size_t q_limbs(const alea__q *q)
{
    return z_limbs(fmpq_numref(q)) + z_limbs(fmpq_denref(q));
}

/* Bytes of the digits of q (its limbs beyond the two words of the fmpq). */
static size_t q_bytes(const alea__q *q)
{
    return q_limbs(q) * sizeof(mp_limb_t);
}

/* Work of an operation on fractions of `limbs` limbs. FLINT's products and
 * gcds of long numbers are subquadratic: measured here, an addition of two
 * fractions over powers of 20 takes 1 us at 8 limbs, 111 us at 2,048 and
 * 6.6 ms at 32,768 (a work unit is about 2 ns), which this bounds from
 * above by 1.5 to 3 times. */
static double q_cost(size_t limbs)
{
    double l = (double)limbs;
    return ALEA__FRAC_UNIT + FRAC_LIMB_COST * l * log2(l + 2);
}

void alea__frac_init(alea_ctx *ctx, alea__pmf *d)
{
    (void)ctx;
    for (size_t i = 0; i < d->n; i++)
        fmpq_init(&d->q[i]);
}

void alea__frac_clear(alea_ctx *ctx, alea__pmf *d, size_t from)
{
    for (size_t i = from; i < d->n; i++)
        fmpq_clear(&d->q[i]);
    if (from == 0 && d->qbytes) {
        ctx->mem_used -= d->qbytes;
        d->qbytes = 0;
    }
}

alea_status alea__frac_seal(alea_ctx *ctx, alea__pmf *d, const node *at)
{
    size_t bytes = 0;
    double limbs = 0;
    for (size_t i = 0; i < d->n; i++) {
        d->p[i] = fmpq_get_d(&d->q[i]);
        bytes += q_bytes(&d->q[i]);
        limbs += (double)q_limbs(&d->q[i]);
    }
    /* Reading the digits back for the doubles: a unit a limb. */
    alea_status st = alea__work_check(ctx, limbs, at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)limbs, at ? at->start : 0, at ? at->end : 0);
    if (st != ALEA_OK)
        return st;
    if (bytes > d->qbytes) {
        size_t grow = bytes - d->qbytes;
        if ((uint64_t)ctx->mem_used + grow > (uint64_t)ctx->limits[ALEA_LIMIT_MEMORY]) {
            ctx->mem_limit_hit = 1;
            return alea__nomem(ctx);
        }
        ctx->mem_used += grow;
        if (ctx->mem_used > ctx->mem_peak)
            ctx->mem_peak = ctx->mem_used;
    } else {
        ctx->mem_used -= d->qbytes - bytes;
    }
    d->qbytes = bytes;
    return ALEA_OK;
}

alea_status alea__frac_set(alea_ctx *ctx, alea__q *r, alea__w w, const node *at)
{
    if (w.q)
        fmpq_set(r, w.q);
    else if (w.d == 1)
        fmpq_one(r);
    else if (w.d == 0)
        fmpq_zero(r);
    else
        return alea__frac_inexact(ctx, at);
    return ALEA_OK;
}

alea_status alea__frac_addmul(alea_ctx *ctx, alea__q *r, const alea__q *x, alea__w w,
                              const node *at)
{
    if (w.q) {
        alea_status st = alea__charge(ctx, (int64_t)q_cost(q_limbs(x) + q_limbs(w.q)),
                                      at ? at->start : 0, at ? at->end : 0);
        if (st != ALEA_OK)
            return st;
        fmpq_addmul(r, x, w.q);
        return ALEA_OK;
    }
    if (w.d == 0)
        return ALEA_OK;
    if (w.d != 1)
        return alea__frac_inexact(ctx, at);
    alea_status st = alea__charge(ctx, (int64_t)q_cost(q_limbs(x) + q_limbs(r)),
                                  at ? at->start : 0, at ? at->end : 0);
    if (st == ALEA_OK)
        fmpq_add(r, r, x);
    return st;
}

/* ---- weights being computed (alea__x, pmf.c) ---- */

static alea_status digits_check(alea_ctx *ctx, double bytes, const node *at);

/* A weight as a fraction: its own, or a whole double (exact below 2^53)
 * into t; 0 when it has no exact value. */
static int w_get(alea__w w, fmpq_t t, const alea__q **out)
{
    if (w.q) {
        *out = w.q;
        return 1;
    }
    if (!(fabs(w.d) <= 9007199254740992.0) || w.d != floor(w.d))
        return 0;
    fmpq_set_si(t, (slong)w.d, 1);
    *out = t;
    return 1;
}

static alea_status x_op(alea_ctx *ctx, alea__q *r, alea__w a, alea__w b, int add,
                        const node *at)
{
    fmpq_t ta, tb;
    const alea__q *qa = NULL, *qb = NULL;
    fmpq_init(ta);
    fmpq_init(tb);
    alea_status st = ALEA_OK;
    if (!w_get(a, ta, &qa) || !w_get(b, tb, &qb))
        st = alea__frac_inexact(ctx, at);
    else
        st = alea__charge(ctx, (int64_t)q_cost(q_limbs(qa) + q_limbs(qb) + (add ? q_limbs(r) : 0)),
                          at ? at->start : 0, at ? at->end : 0);
    if (st == ALEA_OK) {
        if (add)
            fmpq_addmul(r, qa, qb);
        else
            fmpq_mul(r, qa, qb);
    }
    fmpq_clear(ta);
    fmpq_clear(tb);
    return st;
}

alea_status alea__frac_xmul(alea_ctx *ctx, alea__q *r, alea__w a, alea__w b, const node *at)
{
    return x_op(ctx, r, a, b, 0, at);
}

alea_status alea__frac_xaddmul(alea_ctx *ctx, alea__q *r, alea__w a, alea__w b,
                               const node *at)
{
    return x_op(ctx, r, a, b, 1, at);
}

alea_status alea__frac_xpow(alea_ctx *ctx, alea__q *r, alea__w a, uint64_t k, const node *at)
{
    fmpq_t t;
    const alea__q *qa = NULL;
    fmpq_init(t);
    alea_status st = ALEA_OK;
    if (!w_get(a, t, &qa)) {
        st = alea__frac_inexact(ctx, at);
    } else {
        /* The power has about k times the digits: checked against the
         * memory and work limits before FLINT computes it. */
        double limbs = (double)k * (double)(q_limbs(qa) ? q_limbs(qa) : 1);
        if (k > (uint64_t)INT32_MAX)
            st = digits_check(ctx, HUGE_VAL, at);
        else if ((st = digits_check(ctx, limbs * sizeof(mp_limb_t), at)) == ALEA_OK &&
            (st = alea__work_check(ctx, q_cost((size_t)limbs), at)) == ALEA_OK &&
            (st = alea__charge(ctx, (int64_t)q_cost((size_t)limbs), at ? at->start : 0,
                               at ? at->end : 0)) == ALEA_OK)
            fmpq_pow_si(r, qa, (slong)k);
    }
    fmpq_clear(t);
    return st;
}

alea_status alea__frac_xdiv(alea_ctx *ctx, alea__q *r, alea__w a, alea__w b, const node *at)
{
    fmpq_t ta, tb;
    const alea__q *qa = NULL, *qb = NULL;
    fmpq_init(ta);
    fmpq_init(tb);
    alea_status st = ALEA_OK;
    size_t s = at ? at->start : 0, e = at ? at->end : 0;
    if (!w_get(a, ta, &qa) || !w_get(b, tb, &qb))
        st = alea__frac_inexact(ctx, at);
    else if (fmpq_sgn(qb) <= 0) /* FLINT aborts on a zero divisor */
        st = alea__broken(ctx, s, e, "a weight divided by one not above 0");
    else
        st = alea__charge(ctx, (int64_t)q_cost(q_limbs(qa) + q_limbs(qb)), s, e);
    if (st == ALEA_OK)
        fmpq_div(r, qa, qb);
    fmpq_clear(ta);
    fmpq_clear(tb);
    return st;
}

void alea__frac_xfree(alea_ctx *ctx, alea__q *r)
{
    (void)ctx;
    fmpq_clear(r);
}

void alea__frac_ratio(alea_ctx *ctx, alea__q *r, uint64_t a1, uint64_t a2, uint64_t b1,
                      uint64_t b2)
{
    (void)ctx;
    fmpz_t t;
    fmpz_init(t);
    fmpz_set_ui(fmpq_numref(r), a1);
    fmpz_set_ui(t, a2);
    fmpz_mul(fmpq_numref(r), fmpq_numref(r), t);
    fmpz_set_ui(fmpq_denref(r), b1);
    fmpz_set_ui(t, b2);
    fmpz_mul(fmpq_denref(r), fmpq_denref(r), t);
    fmpq_canonicalise(r);
    fmpz_clear(t);
}

/* ---- the accumulator in fractions ---------------------------------------------- */

alea_status alea__frac_acc_dense(alea__acc *a)
{
    size_t bytes;
    a->dq = alea__spare_alloc(a->ctx, alea__mul_size(a->span, sizeof *a->dq), &bytes);
    if (!a->dq)
        return alea__nomem(a->ctx);
    a->dqbytes = bytes;
    for (size_t i = 0; i < a->span; i++)
        fmpq_init(&a->dq[i]);
    return ALEA_OK;
}

typedef struct qpair {
    int64_t v;
    alea__q q;
} qpair;

void alea__frac_acc_free(alea__acc *a)
{
    if (a->dq) {
        for (size_t i = 0; i < a->span; i++)
            fmpq_clear(&a->dq[i]);
        alea__spare_free(a->ctx, a->dq, a->dqbytes);
        a->dq = NULL;
    }
    if (a->sq) {
        qpair *pr = a->sq;
        for (size_t i = 0; i < a->nsq; i++)
            fmpq_clear(&pr[i].q);
        alea__mem_free(a->ctx, a->sq, a->capsq * sizeof(qpair));
        a->sq = NULL;
    }
    a->nsq = a->capsq = 0;
}

static int qpair_cmp(const void *x, const void *y)
{
    int64_t a = ((const qpair *)x)->v, b = ((const qpair *)y)->v;
    return (a > b) - (a < b);
}

/* Sorts the sparse pairs and merges equal values: nsq distinct after. */
static alea_status sparse_compact(alea__acc *a)
{
    qpair *pr = a->sq;
    size_t n = a->nsq;
    double lg = n > 1 ? ceil(log2((double)n)) : 1;
    alea_status st = alea__work_check(a->ctx, 2 * (double)n * lg, a->at);
    if (st == ALEA_OK)
        st = alea__charge(a->ctx, (int64_t)(2 * (double)n * lg), a->at->start, a->at->end);
    if (st != ALEA_OK)
        return st;
    qsort(pr, n, sizeof *pr, qpair_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && pr[k - 1].v == pr[i].v) {
            if ((st = alea__frac_addmul(a->ctx, &pr[k - 1].q, &pr[i].q, ALEA__W(1), a->at)) !=
                ALEA_OK) {
                a->nsq = n;
                return st;
            }
            fmpq_zero(&pr[i].q);
        } else if (k != i) {
            fmpq_swap(&pr[k].q, &pr[i].q);
            pr[k].v = pr[i].v;
            k++;
        } else {
            k++;
        }
    }
    for (size_t i = k; i < n; i++)
        fmpq_clear(&pr[i].q);
    a->nsq = k;
    if (k > a->limit)
        return alea__support_error(a->ctx, a->at);
    return ALEA_OK;
}

static alea_status sparse_push(alea__acc *a, int64_t v, const alea__q *x, alea__w w)
{
    alea_status st;
    if (a->nsq == a->capsq) {
        /* Full: merge first; grow only when most of the pairs are distinct. */
        if (a->nsq && (st = sparse_compact(a)) != ALEA_OK)
            return st;
        if (a->nsq * 2 >= a->capsq) { /* also the first push */
            size_t cap = a->capsq ? a->capsq * 2 : 64;
            qpair *np = alea__mem_realloc(a->ctx, a->sq, a->capsq * sizeof(qpair),
                                          alea__mul_size(cap, sizeof(qpair)));
            if (!np)
                return alea__nomem(a->ctx);
            a->sq = np;
            a->capsq = cap;
        }
    }
    qpair *pr = a->sq;
    fmpq_init(&pr[a->nsq].q);
    pr[a->nsq].v = v;
    a->nsq++;
    return alea__frac_addmul(a->ctx, &pr[a->nsq - 1].q, x, w, a->at);
}

alea_status alea__frac_acc_add(alea__acc *a, int64_t v, alea__w x, alea__w y)
{
    alea_status st;
    if (!x.q) { /* a 0 or 1 on the left: the weight is y */
        if (x.d == 0)
            return ALEA_OK;
        if (x.d != 1)
            return alea__frac_inexact(a->ctx, a->at);
        x = y;
        y = ALEA__W(1);
    }
    if (!x.q) {
        if (x.d == 0)
            return ALEA_OK;
        if (x.d != 1)
            return alea__frac_inexact(a->ctx, a->at);
        fmpq_t one;
        fmpq_init(one);
        fmpq_one(one);
        st = alea__frac_acc_add(a, v, (alea__w){1, one}, ALEA__W(1));
        fmpq_clear(one);
        return st;
    }
    if (a->span)
        return alea__frac_addmul(a->ctx, &a->dq[(size_t)((uint64_t)v - (uint64_t)a->lo)], x.q, y,
                                 a->at);
    return sparse_push(a, v, x.q, y);
}

alea_status alea__frac_acc_add_pmf(alea__acc *a, const alea__pmf *d, int64_t shift, alea__w w)
{
    alea_status st = ALEA_OK;
    for (size_t i = 0; i < d->n && st == ALEA_OK; i++)
        st = alea__frac_acc_add(a, (int64_t)((uint64_t)d->v[i] + (uint64_t)shift),
                                (alea__w){d->p[i], &d->q[i]}, w);
    return st;
}

alea_status alea__frac_acc_finish(alea__acc *a, alea__pmf *out)
{
    alea_status st;
    alea__pmf r;
    if (a->span) {
        size_t k = 0;
        for (size_t i = 0; i < a->span; i++)
            k += fmpq_sgn(&a->dq[i]) > 0;
        if ((st = alea__pmf_alloc(a->ctx, k, &r)) != ALEA_OK)
            goto fail;
        k = 0;
        for (size_t i = 0; i < a->span; i++) {
            if (fmpq_sgn(&a->dq[i]) > 0) {
                r.v[k] = (int64_t)((uint64_t)a->lo + i);
                fmpq_swap(&r.q[k], &a->dq[i]);
                k++;
            }
        }
    } else {
        if (a->nsq && (st = sparse_compact(a)) != ALEA_OK)
            goto fail;
        qpair *pr = a->sq;
        size_t k = 0;
        for (size_t i = 0; i < a->nsq; i++)
            k += fmpq_sgn(&pr[i].q) > 0;
        if ((st = alea__pmf_alloc(a->ctx, k, &r)) != ALEA_OK)
            goto fail;
        k = 0;
        for (size_t i = 0; i < a->nsq; i++) {
            if (fmpq_sgn(&pr[i].q) > 0) {
                r.v[k] = pr[i].v;
                fmpq_swap(&r.q[k], &pr[i].q);
                k++;
            }
        }
    }
    alea__acc_free(a);
    if ((st = alea__frac_seal(a->ctx, &r, a->at)) != ALEA_OK) {
        alea__pmf_free(a->ctx, &r);
        return st;
    }
    *out = r;
    return ALEA_OK;
fail:
    alea__acc_free(a);
    return st;
}

/* ---- sums as polynomial products -------------------------------------------- */

/*
 * d as an integer polynomial over one denominator: P(x) = sum c_k x^k with
 * k = v - v[0], and den the least common multiple of the denominators.
 */
static void to_poly_at(const alea__pmf *d, int64_t base, slong len, fmpz_poly_t P, fmpz_t den)
{
    fmpz_one(den);
    for (size_t i = 0; i < d->n; i++)
        fmpz_lcm(den, den, fmpq_denref(&d->q[i]));
    fmpz_poly_fit_length(P, len);
    _fmpz_vec_zero(P->coeffs, len);
    fmpz_t t;
    fmpz_init(t);
    for (size_t i = 0; i < d->n; i++) {
        fmpz *c = P->coeffs + (slong)((uint64_t)d->v[i] - (uint64_t)base);
        fmpz_divexact(t, den, fmpq_denref(&d->q[i]));
        fmpz_addmul(c, fmpq_numref(&d->q[i]), t); /* polyval's values may repeat */
    }
    _fmpz_poly_set_length(P, len);
    _fmpz_poly_normalise(P);
    fmpz_clear(t);
}

static void to_poly(const alea__pmf *d, fmpz_poly_t P, fmpz_t den)
{
    to_poly_at(d, d->v[0], (slong)((uint64_t)d->v[d->n - 1] - (uint64_t)d->v[0]) + 1, P, den);
}

/* Trial division bound for a denominator's primes: the denominators of
 * dice are products of numbers of faces. */
#define SMOOTH_BOUND 4096
#define SMOOTH_PRIMES 32

/* den = product of ps[i]^es[i] over primes below SMOOTH_BOUND: the count
 * of primes, or -1 when den has a larger factor (or too many primes). The
 * primes come from the gcd of den with the product of all primes below
 * the bound (about 90 limbs), so that a long den is divided only by its
 * own primes. */
static int smooth(const fmpz_t den, ulong *ps, ulong *es, double *work)
{
    fmpz_t c, g, pz;
    fmpz_init_set(c, den);
    fmpz_init(g);
    fmpz_init(pz);
    fmpz_primorial(g, SMOOTH_BOUND - 1);
    fmpz_gcd(g, g, den);
    /* the trial divisions of g, a unit a limb; then a division of den per
     * power of two of each prime's exponent */
    *work = SMOOTH_BOUND * (double)(z_limbs(g) + 1);
    double rm = (double)(z_limbs(den) + 1) * 2 * log2((double)z_limbs(den) * 64 + 2);
    int np = 0;
    for (ulong d = 2; d < SMOOTH_BOUND && !fmpz_is_one(g); d++) {
        if (!fmpz_divisible_si(g, (slong)d))
            continue; /* g is squarefree: a composite d never divides */
        fmpz_divexact_ui(g, g, d);
        if (np == SMOOTH_PRIMES) {
            np = -1;
            break;
        }
        fmpz_set_ui(pz, d);
        ps[np] = d;
        es[np++] = (ulong)fmpz_remove(c, c, pz);
        *work += rm;
    }
    if (!fmpz_is_one(c))
        np = -1;
    fmpz_clear(c);
    fmpz_clear(g);
    fmpz_clear(pz);
    return np;
}

/* r = c / den in lowest terms, den = prod ps^es: the primes are divided out
 * of c (a valuation each: much cheaper than a gcd of long numbers). */
static void reduce_smooth(alea__q *r, const fmpz_t c, const fmpz_t den, const ulong *ps,
                          const ulong *es, int np, fmpz_t pz)
{
    fmpz_set(fmpq_numref(r), c);
    fmpz_set(fmpq_denref(r), den);
    for (int j = 0; j < np; j++) {
        fmpz_set_ui(pz, ps[j]);
        ulong e = (ulong)fmpz_remove(fmpq_numref(r), fmpq_numref(r), pz);
        if (e > es[j]) { /* only as many as den has */
            fmpz_pow_ui(pz, pz, e - es[j]);
            fmpz_mul(fmpq_numref(r), fmpq_numref(r), pz);
            e = es[j];
        }
        if (e) {
            fmpz_set_ui(pz, ps[j]);
            fmpz_pow_ui(pz, pz, e);
            fmpz_divexact(fmpq_denref(r), fmpq_denref(r), pz);
        }
    }
}

/* The pmf of P / den with its lowest power at value lo (zero coefficients
 * left out). */
static alea_status from_poly(alea_ctx *ctx, const fmpz_poly_t P, const fmpz_t den, int64_t lo,
                             const node *at, alea__pmf *out)
{
    slong len = fmpz_poly_length(P);
    size_t k = 0;
    for (slong i = 0; i < len; i++)
        k += !fmpz_is_zero(P->coeffs + i);
    ulong ps[SMOOTH_PRIMES], es[SMOOTH_PRIMES];
    size_t dl = z_limbs(den);
    /* Finding den's primes: a gcd with the primorial (its 90 limbs times
     * den's), a unit a limb; the rest (trial divisions of that gcd, at most
     * SMOOTH_BOUND times its 90 limbs, and divisions of den by at most
     * SMOOTH_PRIMES primes) is charged by what smooth() did. */
    double find = (double)(dl + 1) * 96;
    alea_status st = alea__work_check(ctx, find, at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)find, at->start, at->end);
    if (st != ALEA_OK)
        return st;
    double trial;
    int np = smooth(den, ps, es, &trial);
    if ((st = alea__charge(ctx, (int64_t)trial, at->start, at->end)) != ALEA_OK)
        return st;
    /* Reducing each fraction: a division per prime of den, or a gcd. */
    double cost = (double)k * (np >= 0 ? (double)(np + 1) * (double)(dl + 1) * 8 : q_cost(dl * 2));
    st = alea__work_check(ctx, cost, at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)cost, at->start, at->end);
    if (st != ALEA_OK || (st = alea__pmf_alloc(ctx, k, out)) != ALEA_OK)
        return st;
    fmpz_t pz;
    fmpz_init(pz);
    k = 0;
    for (slong i = 0; i < len; i++) {
        if (fmpz_is_zero(P->coeffs + i))
            continue;
        out->v[k] = (int64_t)((uint64_t)lo + (uint64_t)i);
        if (np >= 0)
            reduce_smooth(&out->q[k], P->coeffs + i, den, ps, es, np, pz);
        else
            fmpq_set_fmpz_frac(&out->q[k], P->coeffs + i, den);
        k++;
    }
    fmpz_clear(pz);
    if ((st = alea__frac_seal(ctx, out, at)) != ALEA_OK)
        alea__pmf_free(ctx, out);
    return st;
}

/* Memory for about `bytes` of digits, or the exact-fractions limit error. */
static alea_status digits_check(alea_ctx *ctx, double bytes, const node *at)
{
    if ((double)ctx->mem_used + bytes <= (double)ctx->limits[ALEA_LIMIT_MEMORY])
        return ALEA_OK;
    ctx->mem_limit_hit = 1;
    return alea__error(ctx, ALEA_ERR_LIMIT, at ? at->start : 0, at ? at->end : 0,
                       "the exact fractions at byte %u need about %.0f MB of digits "
                       "(memory limit is %lld bytes)",
                       (unsigned)(at ? at->start : 0), bytes / 1e6,
                       (long long)ctx->limits[ALEA_LIMIT_MEMORY]);
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
    if (digits_check(ctx, bytes, at) != ALEA_OK)
        return ALEA_ERR_LIMIT;
    alea_status st = alea__work_check(ctx, work, at);
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
    double bytes = (la + lb + len_out) * (double)sizeof(fmpz) + 2 * (double)a->qbytes +
                   (b ? 2 * (double)b->qbytes : 0);
    if ((double)ctx->mem_used + bytes > (double)ctx->limits[ALEA_LIMIT_MEMORY])
        return alea__error(ctx, ALEA_ERR_LIMIT, at->start, at->end,
                           "the exact fractions at byte %u need about %.0f MB "
                           "(memory limit is %lld bytes)",
                           (unsigned)at->start, bytes / 1e6,
                           (long long)ctx->limits[ALEA_LIMIT_MEMORY]);
    return alea__work_check(ctx, la + lb + len_out, at);
}

alea_status alea__frac_conv(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b, int64_t lo,
                            const node *at, alea__pmf *out)
{
    double len = (double)((uint64_t)a->v[a->n - 1] - (uint64_t)a->v[0]) +
                 (double)((uint64_t)b->v[b->n - 1] - (uint64_t)b->v[0]) + 1;
    alea_status st = skeleton_check(ctx, a, b, len, at);
    if (st != ALEA_OK)
        return st;
    fmpz_poly_t A, B;
    fmpz_t da, db;
    fmpz_poly_init(A);
    fmpz_poly_init(B);
    fmpz_init(da);
    fmpz_init(db);
    to_poly(a, A, da);
    to_poly(b, B, db);
    double la = (double)fmpz_poly_length(A), lb = (double)fmpz_poly_length(B);
    double ba = (double)fmpz_poly_max_bits(A) + (double)fmpz_bits(da),
           bb = (double)fmpz_poly_max_bits(B) + (double)fmpz_bits(db);
    st = poly_check(ctx, la + lb - 1, ba + bb, (la + lb) * (ba + bb), at);
    if (st == ALEA_OK) {
        fmpz_poly_mul(A, A, B);
        fmpz_mul(da, da, db);
        st = from_poly(ctx, A, da, lo, at, out);
    }
    fmpz_poly_clear(A);
    fmpz_poly_clear(B);
    fmpz_clear(da);
    fmpz_clear(db);
    return st;
}

alea_status alea__frac_pow(alea_ctx *ctx, const alea__pmf *a, int64_t n, int64_t lo,
                           const node *at, alea__pmf *out)
{
    double range = (double)((uint64_t)a->v[a->n - 1] - (uint64_t)a->v[0]);
    alea_status st = skeleton_check(ctx, a, NULL, range * (double)n + 1, at);
    if (st != ALEA_OK)
        return st;
    fmpz_poly_t A;
    fmpz_t da;
    fmpz_poly_init(A);
    fmpz_init(da);
    to_poly(a, A, da);
    double la = (double)fmpz_poly_length(A), dn = (double)n;
    double bits = ((double)fmpz_poly_max_bits(A) + (double)fmpz_bits(da)) * dn;
    double len = (la - 1) * dn + 1;
    /* Repeated squaring: the last product dominates, the ones before it sum
     * to about as much again. */
    st = poly_check(ctx, len, bits, 2 * len * bits, at);
    if (st == ALEA_OK) {
        fmpz_poly_pow(A, A, (ulong)n);
        fmpz_pow_ui(da, da, (ulong)n);
        st = from_poly(ctx, A, da, lo, at, out);
    }
    fmpz_poly_clear(A);
    fmpz_clear(da);
    return st;
}

/* Horner's rule on integers: with B = P / den and w[a] = n_a / L,
 * sum w[a] B^a = (sum n_a P^a den^(n-1-a) x^(c (n-1-a))) / (L den^(n-1)),
 * each step R = R P + n_a den^(n-1-a) x^(c (n-1-a)). */
alea_status alea__frac_polyval(alea_ctx *ctx, const alea__pmf *b, const alea__pmf *w,
                               int64_t base, int64_t top, int64_t lo, const node *at,
                               alea__pmf *out)
{
    size_t n = w->n;
    slong c = (slong)-base;
    alea_status st = skeleton_check(ctx, b, NULL, (double)(n - 1) * (double)top + 1, at);
    if (st != ALEA_OK)
        return st;
    fmpz_poly_t P, R;
    fmpz_t den, L, pw, t;
    fmpz_poly_init(P);
    fmpz_poly_init(R);
    fmpz_init(den);
    fmpz_init(L);
    fmpz_init(pw);
    fmpz_init(t);
    to_poly_at(b, base, (slong)top + 1, P, den);
    fmpz_one(L);
    double wbits = 0;
    for (size_t a = 0; a < n; a++) {
        fmpz_lcm(L, L, fmpq_denref(&w->q[a]));
        double nb = (double)fmpz_bits(fmpq_numref(&w->q[a]));
        wbits = nb > wbits ? nb : wbits;
    }
    /* The result's coefficients are below L den^(n-1) (B's mass is at most
     * 1). There are n products of R by P, R at most the result's size and
     * on average half of it; a product of a long R by a short P costs R's
     * limbs times the logarithm of P's (packed in R's coefficient size). */
    double dn = (double)n, len = (dn - 1) * (double)top + 1;
    double bits = (double)fmpz_bits(L) + (dn - 1) * (double)fmpz_bits(den) + wbits + 64;
    double plimbs = ((double)top + 1) * (bits / 64 + 1);
    st = poly_check(ctx, len, bits, plimbs * 64, at);
    double horner = (dn / 2 + 1) * len * (bits / 64 + 1) * (1 + log2(plimbs + 2));
    if (st == ALEA_OK && (st = alea__work_check(ctx, horner, at)) == ALEA_OK)
        st = alea__charge(ctx, (int64_t)horner, at->start, at->end);
    if (st == ALEA_OK) {
        fmpz_divexact(t, L, fmpq_denref(&w->q[n - 1]));
        fmpz_mul(t, t, fmpq_numref(&w->q[n - 1]));
        fmpz_poly_set_fmpz(R, t);
        fmpz_one(pw);
        for (size_t a = n - 1; a-- > 0;) {
            fmpz_poly_mul(R, R, P);
            fmpz_mul(pw, pw, den);
            if (fmpq_is_zero(&w->q[a]))
                continue;
            fmpz_divexact(t, L, fmpq_denref(&w->q[a]));
            fmpz_mul(t, t, fmpq_numref(&w->q[a]));
            fmpz_mul(t, t, pw);
            slong at_k = c * (slong)(n - 1 - a);
            if (at_k >= fmpz_poly_length(R)) {
                fmpz_poly_set_coeff_fmpz(R, at_k, t);
            } else {
                fmpz_add(R->coeffs + at_k, R->coeffs + at_k, t);
            }
        }
        fmpz_mul(L, L, pw);
        st = from_poly(ctx, R, L, lo, at, out);
    }
    fmpz_poly_clear(P);
    fmpz_poly_clear(R);
    fmpz_clear(den);
    fmpz_clear(L);
    fmpz_clear(pw);
    fmpz_clear(t);
    return st;
}

alea_status alea__frac_keep_weights(alea_ctx *ctx, const alea__pmf *die, size_t t, int high,
                                    int64_t m, int64_t K, const node *at, alea__pmf *w)
{
    /* e = P(t), s = P(short of t): the outcomes below t when the highest
     * are kept, above t when the lowest are. */
    fmpq_t e, s, es, T, U, C;
    fmpq_init(e);
    fmpq_init(s);
    fmpq_init(es);
    fmpq_init(T);
    fmpq_init(U);
    fmpq_init(C);
    fmpq_set(e, &die->q[t]);
    for (size_t i = 0; i < die->n; i++)
        if (high ? i < t : i > t)
            fmpq_add(s, s, &die->q[i]);
    fmpq_add(es, e, s);
    /* Each weight has about m times the digits of e and s, plus the
     * binomial's; K of them, and a fraction operation each. */
    double qb = (double)(fmpz_bits(fmpq_numref(es)) + fmpz_bits(fmpq_denref(es)) +
                         fmpz_bits(fmpq_numref(s)) + fmpz_bits(fmpq_denref(s)));
    double per = ((double)m * qb + (double)K * log2((double)m + 1)) / 8 + 16;
    alea_status st = digits_check(ctx, per * (double)K * 2, at);
    if (st == ALEA_OK)
        st = alea__work_check(ctx, (double)K * 4 * q_cost((size_t)(per / 8) + 1), at);
    if (st != ALEA_OK)
        goto done;
    {
        /* From a = K - 1 down: r = m - a, k = K - a; T(r, 1) = (e+s)^r - s^r,
         * U(r, k) = C(r, k) e^k s^(r-k+1) the term T loses a step down,
         * T(r+1, k+1) = (e+s) T(r, k) - U(r, k),
         * U(r+1, k+1) = U(r, k) e (r+1) / (k+1). */
        int64_t r = m - K + 1, k = 1;
        fmpq_pow_si(T, es, (slong)r);
        fmpq_pow_si(U, s, (slong)r);
        fmpq_sub(T, T, U);
        fmpq_mul(U, U, e);
        fmpq_mul_si(U, U, (slong)r);
        fmpz_bin_uiui(fmpq_numref(C), (ulong)m, (ulong)(K - 1));
        fmpz_one(fmpq_denref(C));
        for (int64_t a = K - 1; a >= 0; a--) {
            if ((st = alea__charge(ctx, (int64_t)(4 * q_cost(q_limbs(T) + q_limbs(U))),
                                   at->start, at->end)) != ALEA_OK)
                goto done;
            w->v[a] = a;
            fmpq_mul(&w->q[a], C, T);
            if (a == 0)
                break;
            fmpq_mul(T, T, es);
            fmpq_sub(T, T, U);
            fmpq_mul(U, U, e);
            fmpq_mul_si(U, U, (slong)(r + 1));
            fmpz_mul_si(fmpq_denref(U), fmpq_denref(U), (slong)(k + 1));
            fmpq_canonicalise(U);
            r++;
            k++;
            /* C(m, a - 1) = C(m, a) a / (m - a + 1) */
            fmpz_mul_si(fmpq_numref(C), fmpq_numref(C), (slong)a);
            fmpz_divexact_si(fmpq_numref(C), fmpq_numref(C), (slong)(m - a + 1));
        }
        st = alea__frac_seal(ctx, w, at);
    }
done:
    fmpq_clear(e);
    fmpq_clear(s);
    fmpq_clear(es);
    fmpq_clear(T);
    fmpq_clear(U);
    fmpq_clear(C);
    return st;
}

/* ---- keep.c's walk over the outcomes -------------------------------------------- */

alea_status alea__frac_walk_sums(alea_ctx *ctx, const alea__pmf *die, int bottom,
                                 const node *at, alea__pmf *out)
{
    size_t F = die->n;
    double limbs = 0;
    for (size_t i = 0; i < F; i++)
        limbs += (double)q_limbs(&die->q[i]);
    /* F additions of fractions of at most the die's digits, and F sums kept */
    alea_status st = digits_check(ctx, limbs * 8 * 2 * (double)F, at);
    if (st == ALEA_OK)
        st = alea__work_check(ctx, (double)F * q_cost((size_t)limbs + 1), at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)((double)F * q_cost((size_t)limbs + 1)), at->start,
                          at->end);
    if (st != ALEA_OK || (st = alea__pmf_alloc(ctx, F, out)) != ALEA_OK)
        return st;
    for (size_t t = F; t-- > 0;) {
        out->v[t] = (int64_t)t;
        fmpq_set(&out->q[t], &die->q[bottom ? t : F - 1 - t]);
        if (t + 1 < F)
            fmpq_add(&out->q[t], &out->q[t], &out->q[t + 1]);
    }
    if ((st = alea__frac_seal(ctx, out, at)) != ALEA_OK)
        alea__pmf_free(ctx, out);
    return st;
}

alea_status alea__frac_binom_row(alea_ctx *ctx, const alea__q *qt, const alea__q *St,
                                 const alea__q *St1, int64_t r, int64_t kmax, const node *at,
                                 alea__pmf *out)
{
    fmpq_t rho, rhoc, up, term, sum;
    fmpq_init(rho);
    fmpq_init(rhoc);
    fmpq_init(up);
    fmpq_init(term);
    fmpq_init(sum);
    fmpq_div(rho, qt, St);
    if (St1)
        fmpq_div(rhoc, St1, St);
    /* Each term has about r times the digits of rho and rhoc, plus the
     * binomial's; kmax of them, and a few fraction operations each. */
    double qb = (double)(fmpz_bits(fmpq_numref(rho)) + fmpz_bits(fmpq_denref(rho)) +
                         fmpz_bits(fmpq_numref(rhoc)) + fmpz_bits(fmpq_denref(rhoc)));
    double per = ((double)r * qb + (double)kmax * log2((double)r + 1)) / 8 + 16;
    alea_status st = digits_check(ctx, per * ((double)kmax + 1) * 2, at);
    if (st == ALEA_OK)
        st = alea__work_check(ctx, ((double)kmax + 1) * 4 * q_cost((size_t)(per / 8) + 1), at);
    if (st != ALEA_OK || (st = alea__pmf_alloc(ctx, (size_t)kmax + 1, out)) != ALEA_OK)
        goto done;
    {
        size_t n = 0;
        if (!fmpq_is_zero(rhoc)) {
            /* row[0] = rhoc^r; row[k] = row[k - 1] (r - k + 1) / k rho / rhoc */
            fmpq_div(up, rho, rhoc);
            fmpq_pow_si(term, rhoc, (slong)r);
            for (int64_t k = 0; k < kmax; k++) {
                if (k > 0) {
                    fmpq_mul(term, term, up);
                    fmpq_mul_si(term, term, (slong)(r - k + 1));
                    fmpz_mul_si(fmpq_denref(term), fmpq_denref(term), (slong)k);
                    fmpq_canonicalise(term);
                }
                if ((st = alea__charge(ctx, (int64_t)(4 * q_cost(q_limbs(term))), at->start,
                                       at->end)) != ALEA_OK)
                    goto done;
                out->v[n] = k;
                fmpq_set(&out->q[n++], term);
                fmpq_add(sum, sum, term);
            }
        }
        /* the rest: at least kmax of the r dice take this outcome */
        fmpq_one(term);
        fmpq_sub(term, term, sum);
        if (fmpq_sgn(term) > 0) {
            out->v[n] = kmax;
            fmpq_set(&out->q[n++], term);
        }
        alea__frac_clear(ctx, out, n);
        out->n = n;
        st = alea__frac_seal(ctx, out, at);
    }
done:
    if (st != ALEA_OK)
        alea__pmf_free(ctx, out);
    fmpq_clear(rho);
    fmpq_clear(rhoc);
    fmpq_clear(up);
    fmpq_clear(term);
    fmpq_clear(sum);
    return st;
}

/* ---- the other operations, term by term -------------------------------------- */

void alea__frac_copy(alea_ctx *ctx, alea__pmf *out, size_t k, const alea__pmf *a, size_t i)
{
    (void)ctx;
    fmpq_set(&out->q[k], &a->q[i]);
}

void alea__frac_swap(alea_ctx *ctx, alea__pmf *d, size_t i, size_t j)
{
    (void)ctx;
    fmpq_swap(&d->q[i], &d->q[j]);
}

int alea__frac_sgn(alea_ctx *ctx, const alea__q *q)
{
    (void)ctx;
    return fmpq_sgn(q);
}

alea_status alea__frac_cmp(alea_ctx *ctx, uint8_t op, const alea__pmf *a, const alea__pmf *b,
                           alea__pmf *out)
{
    /* As pmf.c's: below[j] = P(B < b.v[j]), above[j] = P(B >= b.v[j]). */
    size_t nb = b->n;
    alea_status st = ALEA_OK;
    alea__q *below = alea__mem_alloc(ctx, alea__mul_size(2 * (nb + 1), sizeof *below));
    if (!below)
        return alea__nomem(ctx);
    alea__q *above = below + nb + 1;
    for (size_t j = 0; j < 2 * (nb + 1); j++)
        fmpq_init(&below[j]);
    fmpq_t pt, pf, t, f;
    fmpq_init(pt);
    fmpq_init(pf);
    fmpq_init(t);
    fmpq_init(f);
    for (size_t j = 0; j < nb && st == ALEA_OK; j++) {
        fmpq_set(&below[j + 1], &below[j]);
        st = alea__frac_addmul(ctx, &below[j + 1], &b->q[j], ALEA__W(1), NULL);
    }
    for (size_t j = nb; j-- > 0 && st == ALEA_OK;) {
        fmpq_set(&above[j], &above[j + 1]);
        st = alea__frac_addmul(ctx, &above[j], &b->q[j], ALEA__W(1), NULL);
    }
    size_t j = 0;
    for (size_t i = 0; i < a->n && st == ALEA_OK; i++) {
        int64_t x = a->v[i];
        while (j < nb && b->v[j] < x)
            j++;
        const alea__q *lt = &below[j], *gt;
        fmpq_t eq;
        fmpq_init(eq);
        size_t g = j;
        if (j < nb && b->v[j] == x) {
            fmpq_set(eq, &b->q[j]);
            g = j + 1;
        }
        gt = &above[g];
        switch (op) { /* x op B */
        case CMP_EQ: fmpq_set(t, eq); fmpq_add(f, lt, gt); break;
        case CMP_NE: fmpq_add(t, lt, gt); fmpq_set(f, eq); break;
        case CMP_LT: fmpq_set(t, gt); fmpq_add(f, lt, eq); break;
        case CMP_LE: fmpq_add(t, eq, gt); fmpq_set(f, lt); break;
        case CMP_GT: fmpq_set(t, lt); fmpq_add(f, eq, gt); break;
        default: fmpq_add(t, lt, eq); fmpq_set(f, gt); break; /* CMP_GE */
        }
        fmpq_clear(eq);
        if ((st = alea__frac_addmul(ctx, pt, &a->q[i], (alea__w){1, t}, NULL)) == ALEA_OK)
            st = alea__frac_addmul(ctx, pf, &a->q[i], (alea__w){1, f}, NULL);
    }
    size_t k = 0;
    if (st == ALEA_OK) {
        k = (size_t)(fmpq_sgn(pf) > 0) + (size_t)(fmpq_sgn(pt) > 0);
        st = alea__pmf_alloc(ctx, k, out);
    }
    if (st == ALEA_OK) {
        k = 0;
        if (fmpq_sgn(pf) > 0) {
            out->v[k] = 0;
            fmpq_set(&out->q[k++], pf);
        }
        if (fmpq_sgn(pt) > 0) {
            out->v[k] = 1;
            fmpq_set(&out->q[k], pt);
        }
        if ((st = alea__frac_seal(ctx, out, NULL)) != ALEA_OK)
            alea__pmf_free(ctx, out);
    }
    fmpq_clear(pt);
    fmpq_clear(pf);
    fmpq_clear(t);
    fmpq_clear(f);
    for (size_t l = 0; l < 2 * (nb + 1); l++)
        fmpq_clear(&below[l]);
    alea__mem_free(ctx, below, 2 * (nb + 1) * sizeof *below);
    return st;
}

alea_status alea__frac_minmax_step(alea_ctx *ctx, alea__q *r, alea__q *fa, alea__q *fb,
                                   const alea__q *pa, const alea__q *pb)
{
    /* r = pa (fb + pb) + fa pb; then fa += pa, fb += pb */
    fmpq_zero(r);
    double c = q_cost(z_limbs(fmpq_denref(fa)) + z_limbs(fmpq_denref(fb)) + 2);
    alea_status st = alea__charge(ctx, (int64_t)(4 * c), 0, 0);
    if (st != ALEA_OK)
        return st;
    if (pa) {
        fmpq_addmul(r, pa, fb);
        if (pb)
            fmpq_addmul(r, pa, pb);
    }
    if (pb)
        fmpq_addmul(r, fa, pb);
    if (pa)
        fmpq_add(fa, fa, pa);
    if (pb)
        fmpq_add(fb, fb, pb);
    return ALEA_OK;
}

alea_status alea__frac_extreme(alea_ctx *ctx, int is_max, const alea__pmf *a, int64_t n,
                               const node *at, alea__pmf *out)
{
    /* P(max = v) = F(v)^n - F(v-)^n, F the distribution function of a (whose
     * mass is 1 - truncated: the kept copies' mass is then (1 - t)^n). */
    fmpq_t run, prev, cur;
    fmpq_init(run);
    fmpq_init(prev);
    fmpq_init(cur);
    alea_status st = ALEA_OK;
    /* The powers have n times the digits of the distribution function. */
    double bits = 0;
    for (size_t i = 0; i < a->n; i++)
        bits += (double)fmpz_bits(fmpq_denref(&a->q[i]));
    bits = bits / (double)(a->n ? a->n : 1) + 64;
    st = poly_check(ctx, (double)a->n, bits * (double)n, bits * (double)n, at);
    for (size_t s = 0; s < a->n && st == ALEA_OK; s++) {
        size_t i = is_max ? s : a->n - 1 - s;
        fmpq_add(run, run, &a->q[i]);
        fmpq_pow_si(cur, run, (slong)n);
        out->v[i] = a->v[i];
        fmpq_sub(&out->q[i], cur, prev);
        fmpq_swap(prev, cur);
    }
    fmpq_clear(run);
    fmpq_clear(prev);
    fmpq_clear(cur);
    return st;
}

/* ---- printing ----------------------------------------------------------------- */

void alea__frac_release(alea_ctx *ctx)
{
    (void)ctx;
    /* FLINT keeps the numbers it frees in a cache of the calling thread;
     * an exact evaluation gives them back when it ends, so that nothing it
     * allocated outlives it but its result. */
    flint_cleanup();
}

/* The digits of z, into the output's buffer itself when they fit (a
 * distribution of 200d20 prints 7,602 numbers of 260 digits); else through
 * a string of their own, for their length. */
static void print_z(alea__out *o, const fmpz_t z)
{
    size_t need = fmpz_sizeinbase(z, 10) + 2; /* a sign and the NUL */
    if (!o->md && o->len < o->cap && o->cap - o->len > need) {
        fmpz_get_str(o->buf + o->len, 10, z);
        o->len += strlen(o->buf + o->len);
        return;
    }
    char *s = fmpz_get_str(NULL, 10, z);
    alea__out_mem(o, s, strlen(s));
    flint_free(s);
}

static void frac_print(alea__out *o, const alea__q *q)
{
    print_z(o, fmpq_numref(q));
    if (!fmpz_is_one(fmpq_denref(q))) {
        alea__out_char(o, '/');
        print_z(o, fmpq_denref(q));
    }
}

/* ---- the finished distribution ------------------------------------------------ */

/*
 * Sums over a common denominator L (the largest denominator, grown when
 * another does not divide it): integer additions, where adding fractions
 * would take a gcd of long numbers each. *sk = sum of v^k q for k < nk.
 */
static void q_sums(const alea__pmf *m, int nk, alea__q *sk)
{
    fmpz_t L, f, s[3];
    fmpz_init(L);
    fmpz_init(f);
    for (int k = 0; k < nk; k++)
        fmpz_init(s[k]);
    fmpz_one(L);
    for (size_t i = 0; i < m->n; i++)
        if (fmpz_cmp(fmpq_denref(&m->q[i]), L) > 0)
            fmpz_set(L, fmpq_denref(&m->q[i]));
    for (size_t i = 0; i < m->n; i++)
        if (!fmpz_divisible(L, fmpq_denref(&m->q[i])))
            fmpz_lcm(L, L, fmpq_denref(&m->q[i]));
    for (size_t i = 0; i < m->n; i++) {
        fmpz_divexact(f, L, fmpq_denref(&m->q[i]));
        fmpz_mul(f, f, fmpq_numref(&m->q[i])); /* q_i L */
        for (int k = 0; k < nk; k++) {
            if (k)
                fmpz_mul_si(f, f, (slong)m->v[i]);
            fmpz_add(s[k], s[k], f);
        }
    }
    for (int k = 0; k < nk; k++) {
        fmpq_set_fmpz_frac(&sk[k], s[k], L);
        fmpz_clear(s[k]);
    }
    fmpz_clear(L);
    fmpz_clear(f);
}

alea_status alea__frac_check(alea_ctx *ctx, const alea__pmf *d, const node *at)
{
    fmpq_t sum;
    fmpq_init(sum);
    int ok = 1;
    for (size_t i = 0; i < d->n && ok; i++)
        ok = fmpq_sgn(&d->q[i]) > 0;
    /* A division and a product of the digits per outcome. */
    alea_status st = alea__charge(ctx, (int64_t)(4 * (double)d->qbytes / 8 + (double)d->n),
                                  at->start, at->end);
    if (st != ALEA_OK) {
        fmpq_clear(sum);
        return st;
    }
    q_sums(d, 1, sum);
    ok = ok && fmpz_cmp(fmpq_numref(sum), fmpq_denref(sum)) <= 0;
    /* ... and the mass the doubles tracked as cut off is what is missing (a
     * part computed in doubles alone would leave its fractions 0). */
    ok = ok && fabs(1 - fmpq_get_d(sum) - d->trunc) <= 1e-9;
    fmpq_clear(sum);
    /* an internal error, not "no exact form yet": a construct without its
     * exact form is refused where it hands a double on, so fractions that
     * do not add up are a mistake to report, never a refusal to count */
    return ok ? ALEA_OK
              : alea__error(ctx, ALEA_ERR_INVALID, at->start, at->end,
                            "internal error at byte %u: the exact fractions do not add up to "
                            "the mass computed; please report the expression",
                            (unsigned)at->start);
}

/* The double nearest q (ties to even), as FLINT's own conversion rounds
 * towards zero; with `root`, the nearest to its square root (computed
 * wide, so that a variance below the double range keeps its sd). */
static double nearest_root(const alea__q *q, int root)
{
    mpfr_t r;
    mpfr_init2(r, 64);
    fmpq_get_mpfr(r, q, MPFR_RNDN);
    if (root)
        mpfr_sqrt(r, r, MPFR_RNDN);
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    return d;
}

static double nearest(const alea__q *q)
{
    return nearest_root(q, 0);
}

/* A probability: a positive q below the double range is the smallest
 * positive double, so that an outcome that can happen never reads as 0
 * (its digits are in alea_dist_sci). */
static double nearest_prob(const alea__q *q)
{
    double d = nearest(q);
    return d == 0 && fmpq_sgn(q) > 0 ? DBL_TRUE_MIN : d;
}

/* num / den as mantissa * 10^e with more than 12 significant digits (mpfr
 * at 96 bits, whose exponent reaches far below a double's). */
static alea__sci to_sci(const fmpz_t num, const fmpz_t den, mpfr_t r, mpfr_t t)
{
    alea__sci s = {0, 0, 0};
    if (fmpz_is_zero(num))
        return s;
    fmpz_get_mpfr(r, num, MPFR_RNDN);
    fmpz_get_mpfr(t, den, MPFR_RNDN);
    mpfr_div(r, r, t, MPFR_RNDN);
    s.d = mpfr_get_d(r, MPFR_RNDN);
    double m;
    long e;
    if (s.d >= 1e-290) { /* a normal double holds the digits: no wide power */
        e = (long)floor(log10(s.d));
        m = s.d / pow(10, (double)e);
    } else {
        s.d = s.d > 0 ? s.d : DBL_TRUE_MIN; /* positive, as nearest_prob() */
        mpfr_log10(t, r, MPFR_RNDN);
        mpfr_floor(t, t);
        e = mpfr_get_si(t, MPFR_RNDN);
        mpfr_set_si(t, 10, MPFR_RNDN);
        mpfr_pow_si(t, t, -e, MPFR_RNDN);
        mpfr_mul(r, r, t, MPFR_RNDN);
        m = mpfr_get_d(r, MPFR_RNDN);
    }
    if (m >= 10) { /* log10 rounded up to the next power */
        m /= 10;
        e++;
    } else if (m < 1) {
        m *= 10;
        e--;
    }
    s.m = m;
    s.e = e;
    return s;
}

alea_status alea__frac_sci(alea_ctx *ctx, alea_dist *d)
{
    const alea__pmf *m = &d->pmf;
    size_t n = m->n, bytes = alea__mul_size(n ? n : 1, 3 * sizeof(alea__sci));
    /* Over one denominator L: an outcome's numerator (a product and an
     * exact division), two integer sums and three conversions (a division
     * of 96-bit numbers and a power of ten each). */
    fmpz_t L, num, below, mass, x;
    fmpz_init(L);
    fmpz_one(L);
    for (size_t i = 0; i < n; i++)
        if (!fmpz_divisible(L, fmpq_denref(&m->q[i])))
            fmpz_lcm(L, L, fmpq_denref(&m->q[i]));
    double limbs = (double)z_limbs(L) + 2;
    alea_status st = alea__charge(ctx, (int64_t)((16 * limbs + 3 * 400) * (double)n), 0, 0);
    alea__sci *sci = st == ALEA_OK ? alea__mem_alloc(ctx, bytes) : NULL;
    if (st == ALEA_OK && !sci)
        st = alea__nomem(ctx);
    if (st != ALEA_OK) {
        fmpz_clear(L);
        return st;
    }
    fmpz_init(num);
    fmpz_init(below);
    fmpz_init(mass);
    fmpz_init(x);
    mpfr_t r, t;
    mpfr_init2(r, 96);
    mpfr_init2(t, 96);
    for (size_t i = 0; i < n; i++) {
        fmpz_divexact(x, L, fmpq_denref(&m->q[i]));
        fmpz_addmul(mass, x, fmpq_numref(&m->q[i]));
    }
    for (size_t i = 0; i < n; i++) {
        fmpz_divexact(x, L, fmpq_denref(&m->q[i]));
        fmpz_mul(num, x, fmpq_numref(&m->q[i]));
        sci[3 * i] = to_sci(num, L, r, t);
        fmpz_sub(x, mass, below); /* at least */
        sci[3 * i + 1] = to_sci(x, L, r, t);
        fmpz_add(below, below, num);
        sci[3 * i + 2] = to_sci(below, L, r, t);
    }
    fmpz_clear(L);
    fmpz_clear(num);
    fmpz_clear(below);
    fmpz_clear(mass);
    fmpz_clear(x);
    mpfr_clear(r);
    mpfr_clear(t);
    d->sci = sci;
    return ALEA_OK;
}

alea_status alea__frac_dist(alea_ctx *ctx, alea_dist *d)
{
    const alea__pmf *m = &d->pmf;
    fmpq_t mass, t, sq, mean, var, trunc;
    fmpq_init(mass);
    fmpq_init(t);
    fmpq_init(sq);
    fmpq_init(mean);
    fmpq_init(var);
    fmpq_init(trunc);
    for (int k = 0; k < 3; k++)
        fmpq_init(&d->xq[k]);
    /* mean = sum v q / mass; variance = sum v^2 q / mass - mean^2 */
    double limbs = 0;
    for (size_t i = 0; i < m->n; i++)
        limbs += (double)q_limbs(&m->q[i]);
    size_t avg = (size_t)(limbs / (double)(m->n ? m->n : 1));
    /* Sums over one denominator (a product, an exact division and three
     * additions of integers an outcome, no gcd), then a conversion each. */
    alea_status st = alea__charge(ctx, (int64_t)(16 * ((double)avg + 2) * (double)m->n), 0, 0);
    if (st == ALEA_OK) {
        alea__q sums[3];
        for (int k = 0; k < 3; k++)
            fmpq_init(&sums[k]);
        q_sums(m, 3, sums);
        fmpq_swap(mass, &sums[0]);
        fmpq_swap(mean, &sums[1]);
        fmpq_swap(var, &sums[2]);
        for (int k = 0; k < 3; k++)
            fmpq_clear(&sums[k]);
        for (size_t i = 0; i < m->n; i++)
            d->pmf.p[i] = nearest_prob(&m->q[i]);
        fmpq_one(t);
        fmpq_sub(trunc, t, mass);
        if (fmpq_sgn(mass) > 0) {
            fmpq_div(mean, mean, mass);
            fmpq_div(var, var, mass);
            fmpq_mul(sq, mean, mean);
            fmpq_sub(var, var, sq);
        }
        d->mass = nearest(mass);
        d->mean = nearest(mean);
        d->sd = nearest_root(var, 1);
        d->pmf.trunc = nearest(trunc);
        fmpq_swap(&d->xq[0], mean);
        fmpq_swap(&d->xq[1], var);
        fmpq_swap(&d->xq[2], trunc);
    }
    fmpq_clear(mass);
    fmpq_clear(t);
    fmpq_clear(sq);
    fmpq_clear(mean);
    fmpq_clear(var);
    fmpq_clear(trunc);
    return st;
}

void alea__frac_dist_free(alea_dist *d)
{
    for (int k = 0; k < 3; k++)
        fmpq_clear(&d->xq[k]);
}

void alea__frac_value(const alea_dist *d, alea_fraction what, size_t i, alea__out *o)
{
    const alea__pmf *m = &d->pmf;
    if (what == ALEA_FRACTION_MEAN || what == ALEA_FRACTION_VARIANCE ||
        what == ALEA_FRACTION_TRUNCATED) {
        frac_print(o, &d->xq[what == ALEA_FRACTION_MEAN       ? 0
                                   : what == ALEA_FRACTION_VARIANCE ? 1
                                                                    : 2]);
        return;
    }
    if (i >= m->n)
        return;
    if (what == ALEA_FRACTION_PROB) {
        frac_print(o, &m->q[i]);
        return;
    }
    /* at least: outcomes i.. ; at most: ..i, summed from the small end */
    fmpq_t s;
    fmpq_init(s);
    if (what == ALEA_FRACTION_AT_LEAST)
        for (size_t j = m->n; j-- > i;)
            fmpq_add(s, s, &m->q[j]);
    else
        for (size_t j = 0; j <= i; j++)
            fmpq_add(s, s, &m->q[j]);
    frac_print(o, s);
    fmpq_clear(s);
}

void alea__frac_csv(const alea_dist *d, alea__out *o)
{
    /* at most: summed from the bottom; at least: the mass less the at most
     * before it (exact, so no cancellation to fear). */
    const alea__pmf *m = &d->pmf;
    fmpq_t most, least, mass;
    fmpq_init(most);
    fmpq_init(least);
    fmpq_init(mass);
    for (size_t i = 0; i < m->n; i++)
        fmpq_add(mass, mass, &m->q[i]);
    alea__out_str(o, "value,probability,at_least,at_most\n");
    for (size_t i = 0; i < m->n; i++) {
        fmpq_sub(least, mass, most);
        fmpq_add(most, most, &m->q[i]);
        alea__out_i64(o, m->v[i]);
        alea__out_char(o, ',');
        frac_print(o, &m->q[i]);
        alea__out_char(o, ',');
        frac_print(o, least);
        alea__out_char(o, ',');
        frac_print(o, most);
        alea__out_char(o, '\n');
    }
    fmpq_clear(most);
    fmpq_clear(least);
    fmpq_clear(mass);
}

/* ---- the module ------------------------------------------------------------- */

/* Linked into the module (or directly into a program), the functions above
 * are there already: nothing to load. */
alea_status alea__frac_load(alea_ctx *ctx)
{
    (void)ctx;
    return ALEA_OK;
}

void alea__frac_unload(alea_ctx *ctx)
{
    (void)ctx;
}

#define OP(name, params, args, c) .name = alea__frac_##name,
/* What frac_load.c looks up in the module (the one symbol it exports). */
__attribute__((visibility("default"))) extern const alea__frac_ops alea_exact_module_ops;
const alea__frac_ops alea_exact_module_ops = {
    .version = ALEA_VERSION_STRING,
    .sizes = ALEA__FRAC_SIZES,
    ALEA__FRAC_STATUS(OP) ALEA__FRAC_VOID(OP).sgn = alea__frac_sgn,
};
