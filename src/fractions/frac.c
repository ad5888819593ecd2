/*
 * frac.c -- the pmf operations of pmf.c in exact fractions: the second
 * number system of the exact engine (frac.h). pmf.c calls here when the
 * context is in exact mode; everything above it (keep, explosions, the
 * mechanics) is written once and hands weights down (alea__w).
 *
 * The numbers are GMP's: a probability is a reduced mpq_t; sums and powers
 * of dice are products of integer polynomials over a common denominator,
 * computed as products of long integers (Kronecker substitution) or, for a
 * power of a die with few faces, by a recurrence over its coefficients.
 * Their digits are allocated by GMP, outside the context's allocator, so
 * they are counted instead: each pmf adds the bytes of its digits to the
 * context's memory (qbytes), and the big operations estimate the digits of
 * their result and refuse, before they start, one that would pass the
 * memory limit. Work is charged by the limbs the arithmetic walks (q_cost),
 * not by a count of additions.
 *
 * This file is not part of the library: with the library's other objects
 * and GMP it makes the module alea-exact.so, which the library loads
 * (frac_load.c) when a context first computes in fractions, so that a roll
 * or a distribution in doubles never loads GMP. A program may also link
 * this file in place of frac_load.c (the fuzzers do). Without GMP (the
 * WebAssembly build) exact mode cannot be switched on and this file is not
 * built.
 */
#include "module.h"
#include "../dist.h"
#include "../out.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

/* Work units per limb (times its logarithm) of the operands of an exact
 * addition, beyond the ALEA__FRAC_UNIT of one-limb fractions. */
#define FRAC_LIMB_COST 8

/* Limbs of the digits of a number, and of a fraction. */
static size_t z_limbs(const mpz_t z)
{
    return (size_t)mpz_size(z);
}

static size_t q_limbs(const alea__q *q)
{
    return z_limbs(mpq_numref(q)) + z_limbs(mpq_denref(q));
}

/* Bytes of the digits of q: its limbs and the allocator's header of each
 * of its two blocks. */
static size_t q_bytes(const alea__q *q)
{
    return q_limbs(q) * sizeof(mp_limb_t) + 32;
}

/* Work of an operation on fractions of `limbs` limbs. GMP's products and
 * gcds of long numbers are subquadratic: measured here, an addition of two
 * fractions over powers of 20 takes 1 us at 8 limbs, 111 us at 2,048 and
 * 6.6 ms at 32,768 (a work unit is about 2 ns), which this bounds from
 * above by 1.5 to 3 times. */
static double q_cost(size_t limbs)
{
    double l = (double)limbs;
    return ALEA__FRAC_UNIT + FRAC_LIMB_COST * l * log2(l + 2);
}

/* Operations mpq_t lacks: r += x y; r = x^k (k >= 0); r = x k; r = a / b
 * (b > 0) in lowest terms; z = x / k exactly. */
static void q_addmul(mpq_t r, const mpq_t x, const mpq_t y)
{
    mpq_t t;
    mpq_init(t);
    mpq_mul(t, x, y);
    mpq_add(r, r, t);
    mpq_clear(t);
}

static void q_pow(mpq_t r, const mpq_t x, long k)
{
    mpz_pow_ui(mpq_numref(r), mpq_numref(x), (unsigned long)k);
    mpz_pow_ui(mpq_denref(r), mpq_denref(x), (unsigned long)k);
}

static void q_mul_si(mpq_t r, const mpq_t x, long k)
{
    mpz_mul_si(mpq_numref(r), mpq_numref(x), k);
    if (r != x)
        mpz_set(mpq_denref(r), mpq_denref(x));
    mpq_canonicalize(r);
}

static void q_set_frac(mpq_t r, const mpz_t a, const mpz_t b)
{
    mpz_set(mpq_numref(r), a);
    mpz_set(mpq_denref(r), b);
    mpq_canonicalize(r);
}

static void z_divexact_si(mpz_t z, const mpz_t x, long k)
{
    mpz_divexact_ui(z, x, (unsigned long)(k < 0 ? -k : k));
    if (k < 0)
        mpz_neg(z, z);
}

alea_status alea__frac_inexact(alea_ctx *ctx, const node *at)
{
    size_t s = at ? at->start : 0, e = at ? at->end : 0;
    return alea__error(ctx, ALEA_ERR_INVALID, s, e,
                       "exact fractions are not available for the construct at byte %u "
                       "yet; compute it in doubles (without exact mode)",
                       (unsigned)s);
}

void alea__frac_init(alea_ctx *ctx, alea__pmf *d)
{
    (void)ctx;
    for (size_t i = 0; i < d->n; i++)
        mpq_init(&d->q[i]);
}

void alea__frac_clear(alea_ctx *ctx, alea__pmf *d, size_t from)
{
    for (size_t i = from; i < d->n; i++)
        mpq_clear(&d->q[i]);
    if (from == 0 && d->qbytes) {
        ctx->mem_used -= d->qbytes;
        d->qbytes = 0;
    }
}

alea_status alea__frac_pmf_alloc(alea_ctx *ctx, size_t n, alea__pmf *d)
{
    alea_status st = alea__pmf_block_alloc(ctx, n, ctx->exact, d);
    if (st == ALEA_OK && d->q)
        alea__frac_init(ctx, d);
    return st;
}

void alea__frac_pmf_free(alea_ctx *ctx, alea__pmf *d)
{
    if (d->n && d->q)
        alea__frac_clear(ctx, d, 0);
    alea__pmf_block_free(ctx, d);
}

alea_status alea__frac_seal(alea_ctx *ctx, alea__pmf *d, const node *at)
{
    size_t bytes = 0;
    double limbs = 0;
    for (size_t i = 0; i < d->n; i++) {
        d->p[i] = mpq_get_d(&d->q[i]);
        bytes += q_bytes(&d->q[i]);
        limbs += (double)q_limbs(&d->q[i]);
    }
    /* Reading the digits back for the doubles: a unit a limb. */
    alea_status st = work_check(ctx, limbs, at);
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
        mpq_set(r, w.q);
    else if (w.d == 1)
        mpq_set_ui(r, 1, 1);
    else if (w.d == 0)
        mpq_set_ui(r, 0, 1);
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
        q_addmul(r, x, w.q);
        return ALEA_OK;
    }
    if (w.d == 0)
        return ALEA_OK;
    if (w.d != 1)
        return alea__frac_inexact(ctx, at);
    alea_status st = alea__charge(ctx, (int64_t)q_cost(q_limbs(x) + q_limbs(r)),
                                  at ? at->start : 0, at ? at->end : 0);
    if (st == ALEA_OK)
        mpq_add(r, r, x);
    return st;
}

/* ---- weights being computed (alea__x, pmf.c) ---- */

static alea_status digits_check(alea_ctx *ctx, double bytes, const node *at);

/* A weight as a fraction: its own, or a whole double (exact below 2^53)
 * into t; 0 when it has no exact value. */
static int w_get(alea__w w, mpq_t t, const alea__q **out)
{
    if (w.q) {
        *out = w.q;
        return 1;
    }
    if (!(fabs(w.d) <= 9007199254740992.0) || w.d != floor(w.d))
        return 0;
    mpq_set_si(t, (long)w.d, 1);
    *out = t;
    return 1;
}

static alea_status x_op(alea_ctx *ctx, alea__q *r, alea__w a, alea__w b, int add,
                        const node *at)
{
    mpq_t ta, tb;
    const alea__q *qa = NULL, *qb = NULL;
    mpq_init(ta);
    mpq_init(tb);
    alea_status st = ALEA_OK;
    if (!w_get(a, ta, &qa) || !w_get(b, tb, &qb))
        st = alea__frac_inexact(ctx, at);
    else
        st = alea__charge(ctx, (int64_t)q_cost(q_limbs(qa) + q_limbs(qb) + (add ? q_limbs(r) : 0)),
                          at ? at->start : 0, at ? at->end : 0);
    if (st == ALEA_OK) {
        if (add)
            q_addmul(r, qa, qb);
        else
            mpq_mul(r, qa, qb);
    }
    mpq_clear(ta);
    mpq_clear(tb);
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
    mpq_t t;
    const alea__q *qa = NULL;
    mpq_init(t);
    alea_status st = ALEA_OK;
    if (!w_get(a, t, &qa)) {
        st = alea__frac_inexact(ctx, at);
    } else {
        /* The power has about k times the digits: checked against the
         * memory and work limits before GMP computes it. */
        double limbs = (double)k * (double)(q_limbs(qa) ? q_limbs(qa) : 1);
        if (k > (uint64_t)INT32_MAX)
            st = digits_check(ctx, HUGE_VAL, at);
        else if ((st = digits_check(ctx, limbs * sizeof(mp_limb_t), at)) == ALEA_OK &&
            (st = work_check(ctx, q_cost((size_t)limbs), at)) == ALEA_OK &&
            (st = alea__charge(ctx, (int64_t)q_cost((size_t)limbs), at ? at->start : 0,
                               at ? at->end : 0)) == ALEA_OK)
            q_pow(r, qa, (long)k);
    }
    mpq_clear(t);
    return st;
}

alea_status alea__frac_xdiv(alea_ctx *ctx, alea__q *r, alea__w a, alea__w b, const node *at)
{
    mpq_t ta, tb;
    const alea__q *qa = NULL, *qb = NULL;
    mpq_init(ta);
    mpq_init(tb);
    alea_status st = ALEA_OK;
    size_t s = at ? at->start : 0, e = at ? at->end : 0;
    if (!w_get(a, ta, &qa) || !w_get(b, tb, &qb))
        st = alea__frac_inexact(ctx, at);
    else if (mpq_sgn(qb) <= 0) /* GMP aborts on a zero divisor */
        st = alea__broken(ctx, s, e, "a weight divided by one not above 0");
    else
        st = alea__charge(ctx, (int64_t)q_cost(q_limbs(qa) + q_limbs(qb)), s, e);
    if (st == ALEA_OK)
        mpq_div(r, qa, qb);
    mpq_clear(ta);
    mpq_clear(tb);
    return st;
}

void alea__frac_xfree(alea_ctx *ctx, alea__q *r)
{
    (void)ctx;
    mpq_clear(r);
}

void alea__frac_ratio(alea_ctx *ctx, alea__q *r, uint64_t a1, uint64_t a2, uint64_t b1,
                      uint64_t b2)
{
    (void)ctx;
    mpz_t t;
    mpz_init(t);
    mpz_set_ui(mpq_numref(r), a1);
    mpz_set_ui(t, a2);
    mpz_mul(mpq_numref(r), mpq_numref(r), t);
    mpz_set_ui(mpq_denref(r), b1);
    mpz_set_ui(t, b2);
    mpz_mul(mpq_denref(r), mpq_denref(r), t);
    mpq_canonicalize(r);
    mpz_clear(t);
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
        mpq_init(&a->dq[i]);
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
            mpq_clear(&a->dq[i]);
        alea__spare_free(a->ctx, a->dq, a->dqbytes);
        a->dq = NULL;
    }
    if (a->sq) {
        qpair *pr = a->sq;
        for (size_t i = 0; i < a->nsq; i++)
            mpq_clear(&pr[i].q);
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
    alea_status st = work_check(a->ctx, 2 * (double)n * lg, a->at);
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
            mpq_set_ui(&pr[i].q, 0, 1);
        } else if (k != i) {
            mpq_swap(&pr[k].q, &pr[i].q);
            pr[k].v = pr[i].v;
            k++;
        } else {
            k++;
        }
    }
    for (size_t i = k; i < n; i++)
        mpq_clear(&pr[i].q);
    a->nsq = k;
    if (k > a->limit)
        return support_error(a->ctx, a->at);
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
    mpq_init(&pr[a->nsq].q);
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
        mpq_t one;
        mpq_init(one);
        mpq_set_ui(one, 1, 1);
        st = alea__frac_acc_add(a, v, (alea__w){1, one}, ALEA__W(1));
        mpq_clear(one);
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
            k += mpq_sgn(&a->dq[i]) > 0;
        if ((st = alea__frac_pmf_alloc(a->ctx, k, &r)) != ALEA_OK)
            goto fail;
        k = 0;
        for (size_t i = 0; i < a->span; i++) {
            if (mpq_sgn(&a->dq[i]) > 0) {
                r.v[k] = (int64_t)((uint64_t)a->lo + i);
                mpq_swap(&r.q[k], &a->dq[i]);
                k++;
            }
        }
    } else {
        if (a->nsq && (st = sparse_compact(a)) != ALEA_OK)
            goto fail;
        qpair *pr = a->sq;
        size_t k = 0;
        for (size_t i = 0; i < a->nsq; i++)
            k += mpq_sgn(&pr[i].q) > 0;
        if ((st = alea__frac_pmf_alloc(a->ctx, k, &r)) != ALEA_OK)
            goto fail;
        k = 0;
        for (size_t i = 0; i < a->nsq; i++) {
            if (mpq_sgn(&pr[i].q) > 0) {
                r.v[k] = pr[i].v;
                mpq_swap(&r.q[k], &pr[i].q);
                k++;
            }
        }
    }
    alea__frac_acc_free(a);
    if ((st = alea__frac_seal(a->ctx, &r, a->at)) != ALEA_OK) {
        alea__frac_pmf_free(a->ctx, &r);
        return st;
    }
    *out = r;
    return ALEA_OK;
fail:
    alea__frac_acc_free(a);
    return st;
}

/* ---- the values of pairs (products, quotients, ...) ---------------------------- */

static int pair_cmp(const void *x, const void *y)
{
    int64_t a = ((const alea__ipair *)x)->v, b = ((const alea__ipair *)y)->v;
    return (a > b) - (a < b);
}


/* The least common multiple of the denominators of d, into L; 0 when it
 * passes `cap` limbs (the numerators over it would be too long to gain). */
static int common_den_capped(const alea__pmf *d, mpz_t L, size_t cap)
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
static mpz_t *over_common(alea_ctx *ctx, const alea__pmf *d, const mpz_t L)
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

static void free_ints(alea_ctx *ctx, mpz_t *z, size_t n)
{
    if (!z)
        return;
    for (size_t i = 0; i < n; i++)
        mpz_clear(z[i]);
    alea__mem_free(ctx, z, (n ? n : 1) * sizeof *z);
}

static size_t max_den_limbs(const alea__pmf *d)
{
    size_t m = 0;
    for (size_t i = 0; i < d->n; i++)
        m = z_limbs(mpq_denref(&d->q[i])) > m ? z_limbs(mpq_denref(&d->q[i])) : m;
    return m;
}

/*
 * Pairs sorted by value and summed a value at a time: no fraction is made
 * per pair (the accumulator made, sorted and merged one each: 1d500*1d500
 * took 3.7 ns a unit of work). When the denominators of each side have a
 * common multiple little longer than the longest of them (dice: the sides),
 * each pair is a product of integers, a multiply-add of their limbs, and a
 * value's sum is reduced once; else each pair is a product of fractions
 * added to the value's sum (a gcd each, charged as such).
 */
alea_status alea__frac_pairs(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b,
                             alea__ipair *pr, size_t n, size_t limit, const node *at,
                             alea__pmf *out)
{
    double lg = n > 1 ? ceil(log2((double)n)) : 1;
    alea_status st = work_check(ctx, (double)n * lg * ALEA__PAIR_SORT_UNIT, at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)((double)n * lg * ALEA__PAIR_SORT_UNIT), at->start, at->end);
    if (st != ALEA_OK)
        return st;
    qsort(pr, n, sizeof *pr, pair_cmp);
    size_t groups = 0;
    for (size_t k = 0; k < n; k++)
        groups += k == 0 || pr[k].v != pr[k - 1].v;
    if (groups > limit)
        return support_error(ctx, at);

    mpz_t La, Lb, L, acc;
    mpz_init(La);
    mpz_init(Lb);
    mpz_init(L);
    mpz_init(acc);
    mpz_t *na = NULL, *nb = NULL;
    size_t ca = max_den_limbs(a), cb = max_den_limbs(b);
    /* the common multiples: a gcd per outcome */
    st = alea__charge(ctx, (int64_t)((double)a->n * q_cost(2 * ca + 1) +
                                     (double)b->n * q_cost(2 * cb + 1)),
                      at->start, at->end);
    int ints = st == ALEA_OK && common_den_capped(a, La, 2 * ca + 1) &&
               common_den_capped(b, Lb, 2 * cb + 1);
    if (ints) {
        mpz_mul(L, La, Lb);
        na = over_common(ctx, a, La);
        nb = na ? over_common(ctx, b, Lb) : NULL;
        if (!nb)
            st = alea__nomem(ctx);
    }
    /* a pair: a multiply-add of la by lb limbs, or a product of fractions
     * added to the sum (q_cost of the limbs it walks) */
    size_t la = 0, lb = 0;
    for (size_t i = 0; na && i < a->n; i++)
        la = z_limbs(na[i]) > la ? z_limbs(na[i]) : la;
    for (size_t j = 0; nb && j < b->n; j++)
        lb = z_limbs(nb[j]) > lb ? z_limbs(nb[j]) : lb;
    if (!ints) {
        la = 2 * ca + 1;
        lb = 2 * cb + 1;
    }
    double pair = ints ? 4 + 2 * (double)la * (double)lb : q_cost(2 * (la + lb));
    if (st == ALEA_OK && (st = alea__frac_pmf_alloc(ctx, groups, out)) == ALEA_OK) {
        mpq_t r;
        mpq_init(r);
        size_t g = 0;
        for (size_t k = 0; k < n && st == ALEA_OK; g++) {
            size_t end = k + 1;
            while (end < n && pr[end].v == pr[k].v)
                end++;
            /* the value's pairs, then its sum reduced (a gcd) */
            size_t sum_limbs = ints ? z_limbs(L) + la + lb + 1 : 2 * (la + lb);
            double c = (double)(end - k) * pair + q_cost(sum_limbs);
            if ((st = alea__charge(ctx, (int64_t)c, at->start, at->end)) != ALEA_OK)
                break;
            out->v[g] = pr[k].v;
            if (ints) {
                mpz_set_ui(acc, 0);
                for (; k < end; k++)
                    mpz_addmul(acc, na[pr[k].i], nb[pr[k].j]);
                mpz_set(mpq_numref(&out->q[g]), acc);
                mpz_set(mpq_denref(&out->q[g]), L);
                mpq_canonicalize(&out->q[g]);
            } else {
                mpq_set_ui(r, 0, 1);
                for (; k < end; k++)
                    q_addmul(r, &a->q[pr[k].i], &b->q[pr[k].j]);
                mpq_swap(&out->q[g], r);
            }
        }
        mpq_clear(r);
        if (st == ALEA_OK)
            st = alea__frac_seal(ctx, out, at);
        if (st != ALEA_OK)
            alea__frac_pmf_free(ctx, out);
    }
    free_ints(ctx, na, a->n);
    free_ints(ctx, nb, b->n);
    mpz_clear(La);
    mpz_clear(Lb);
    mpz_clear(L);
    mpz_clear(acc);
    return st;
}

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

static size_t z_bits(const mpz_t z)
{
    return mpz_sgn(z) ? mpz_sizeinbase(z, 2) : 0;
}

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
        mpz_addmul(c, mpq_numref(&d->q[i]), t); /* polyval's values may repeat */
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

/* A hash of z's top limb and size, for the caches of numbers met again. */
static uint64_t top_hash(const mpz_t z)
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

static void qc_init(quot_cache *c)
{
    for (int i = 0; i < QC_SLOTS; i++) {
        mpz_init(c->d[i]);
        mpz_init(c->q[i]);
        c->used[i] = 0;
    }
}

static void qc_clear(quot_cache *c)
{
    for (int i = 0; i < QC_SLOTS; i++) {
        mpz_clear(c->d[i]);
        mpz_clear(c->q[i]);
    }
}

static mpz_srcptr qc_get(quot_cache *c, const mpz_t L, const mpz_t d)
{
    int k = (int)(top_hash(d) % QC_SLOTS);
    if (!c->used[k] || mpz_cmp(c->d[k], d) != 0) {
        mpz_set(c->d[k], d);
        mpz_divexact(c->q[k], L, d);
        c->used[k] = 1;
    }
    return c->q[k];
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
static int smooth(const mpz_t den, unsigned long *ps, unsigned long *es, double *work)
{
    mpz_t c, g, pz;
    mpz_init_set(c, den);
    mpz_init(g);
    mpz_init(pz);
    mpz_primorial_ui(g, SMOOTH_BOUND - 1);
    mpz_gcd(g, g, den);
    /* the trial divisions of g, a unit a limb; then a division of den per
     * power of two of each prime's exponent */
    *work = SMOOTH_BOUND * (double)(z_limbs(g) + 1);
    double rm = (double)(z_limbs(den) + 1) * 2 * log2((double)z_limbs(den) * 64 + 2);
    int np = 0;
    for (unsigned long d = 2; d < SMOOTH_BOUND && !(mpz_cmp_ui(g, 1) == 0); d++) {
        if (!mpz_divisible_ui_p(g, d))
            continue; /* g is squarefree: a composite d never divides */
        mpz_divexact_ui(g, g, d);
        if (np == SMOOTH_PRIMES) {
            np = -1;
            break;
        }
        mpz_set_ui(pz, d);
        ps[np] = d;
        es[np++] = (unsigned long)mpz_remove(c, c, pz);
        *work += rm;
    }
    if (!(mpz_cmp_ui(c, 1) == 0))
        np = -1;
    mpz_clear(c);
    mpz_clear(g);
    mpz_clear(pz);
    return np;
}

/* r = c / den in lowest terms, den = prod ps^es: the primes are divided out
 * of c (a valuation each: much cheaper than a gcd of long numbers), and den
 * by their product g (through qc: few products recur). c's digits become
 * r's (c is left 0). */
static void reduce_smooth(alea__q *r, mpz_t c, const mpz_t den, const unsigned long *ps,
                          const unsigned long *es, int np, mpz_t pz, mpz_t g, quot_cache *qc)
{
    mpz_swap(mpq_numref(r), c);
    mpz_set_ui(g, 1);
    mpz_ptr num = mpq_numref(r);
    for (int j = 0; j < np; j++) {
        unsigned long e = 0;
        if (ps[j] == 2) { /* the trailing zero bits */
            e = (unsigned long)mpz_scan1(num, 0);
            mpz_tdiv_q_2exp(num, num, e);
        } else {
            /* a remainder first (mostly not divisible), a few exact
             * divisions; a high power (the extreme outcomes') is removed by
             * GMP's squarings */
            while (e < 4 && mpz_divisible_ui_p(num, ps[j])) {
                mpz_divexact_ui(num, num, ps[j]);
                e++;
            }
            if (e == 4) {
                mpz_set_ui(pz, ps[j]);
                e += (unsigned long)mpz_remove(num, num, pz);
            }
        }
        if (e > es[j]) { /* only as many as den has */
            mpz_ui_pow_ui(pz, ps[j], e - es[j]);
            mpz_mul(mpq_numref(r), mpq_numref(r), pz);
            e = es[j];
        }
        if (e) {
            mpz_ui_pow_ui(pz, ps[j], e);
            mpz_mul(g, g, pz);
        }
    }
    mpz_set(mpq_denref(r), qc_get(qc, den, g));
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
     * SMOOTH_PRIMES primes) is charged by what smooth() did. */
    double find = (double)(dl + 1) * 96;
    alea_status st = work_check(ctx, find, at);
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
            reduce_smooth(&out->q[k], P->c[i], den, ps, es, np, pz, g, &qc);
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

/* Work a limb of a long number costs in its product by one of p limbs.
 * GMP cuts the long one into pieces of p limbs and multiplies each by
 * Toom-Cook: measured here, about p^0.46 from a few hundred limbs (a
 * keep programme's Horner steps, 100d{0,100}!k40 in fractions, took 4 to
 * 5 ns a unit charged by log p alone), log p below that. */
static double unbalanced_factor(double p)
{
    double lg = 1 + log2(p + 2), tc = pow(p, 0.46);
    return tc > lg ? tc : lg;
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
    alea_status st = work_check(ctx, work, at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)work, at->start, at->end);
    return st;
}

/* Before the powers of a distribution function are made (len_out of
 * about bits_out bits each): the memory of their digits, and the work of
 * the subtractions of consecutive powers (a gcd of their digits each),
 * checked against the work left; the steps charge it as they go. */
static alea_status extreme_check(alea_ctx *ctx, double len_out, double bits_out,
                                 const node *at)
{
    double limbs = bits_out / 64 + 1;
    if (digits_check(ctx, len_out * limbs * 8 * 3, at) != ALEA_OK)
        return ALEA_ERR_LIMIT;
    return work_check(ctx, len_out * 8 * (2 * limbs) * log2(2 * limbs + 2), at);
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

alea_status alea__frac_conv(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b, int64_t lo,
                            const node *at, alea__pmf *out)
{
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
            st = digits_check(ctx, len * (bits / LIMB_BITS + 1) * 8 * 3, at) == ALEA_OK
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

/* Horner's rule on integers: with B = P / den and w[a] = n_a / L,
 * sum w[a] B^a = (sum n_a P^a den^(n-1-a) x^(c (n-1-a))) / (L den^(n-1)),
 * each step R = R P + n_a den^(n-1-a) x^(c (n-1-a)). */
alea_status alea__frac_polyval(alea_ctx *ctx, const alea__pmf *b, const alea__pmf *w,
                               int64_t base, int64_t top, int64_t lo, const node *at,
                               alea__pmf *out)
{
    size_t n = w->n;
    size_t c = (size_t)-base;
    alea_status st = skeleton_check(ctx, b, NULL, (double)(n - 1) * (double)top + 1, at);
    if (st != ALEA_OK)
        return st;
    zpoly P, R, T;
    mpz_t den, L, pw, t;
    zp_init(&P);
    zp_init(&R);
    zp_init(&T);
    mpz_init(den);
    mpz_init(L);
    mpz_init(pw);
    mpz_init(t);
    if ((st = to_poly_at(ctx, b, base, (size_t)top + 1, &P, den)) != ALEA_OK)
        goto done;
    mpz_set_ui(L, 1);
    double wbits = 0;
    for (size_t a = 0; a < n; a++) {
        mpz_lcm(L, L, mpq_denref(&w->q[a]));
        double nb = (double)z_bits(mpq_numref(&w->q[a]));
        wbits = nb > wbits ? nb : wbits;
    }
    /* The result's coefficients are below L den^(n-1) (B's mass is at most
     * 1). There are n products of R by P, R at most the result's size and
     * on average half of it; a product of a long R by a short P costs R's
     * limbs times the logarithm of P's (packed in R's coefficient size). */
    double dn = (double)n, len = (dn - 1) * (double)top + 1;
    double bits = (double)z_bits(L) + (dn - 1) * (double)z_bits(den) + wbits + 64;
    double plimbs = ((double)top + 1) * (bits / 64 + 1);
    st = poly_check(ctx, len, bits, plimbs * 64, at);
    double horner = (dn / 2 + 1) * len * (bits / 64 + 1) * unbalanced_factor(plimbs);
    if (st == ALEA_OK && (st = work_check(ctx, horner, at)) == ALEA_OK)
        st = alea__charge(ctx, (int64_t)horner, at->start, at->end);
    if (st == ALEA_OK && (st = zp_zero(ctx, &R, 1)) == ALEA_OK) {
        mpz_divexact(t, L, mpq_denref(&w->q[n - 1]));
        mpz_mul(R.c[0], t, mpq_numref(&w->q[n - 1]));
        mpz_set_ui(pw, 1);
        for (size_t a = n - 1; a-- > 0 && st == ALEA_OK;) {
            if ((st = zp_mul(ctx, &T, &R, &P)) != ALEA_OK)
                break;
            zp_swap(&R, &T);
            mpz_mul(pw, pw, den);
            if (!mpq_sgn(&w->q[a]))
                continue;
            mpz_divexact(t, L, mpq_denref(&w->q[a]));
            mpz_mul(t, t, mpq_numref(&w->q[a]));
            mpz_mul(t, t, pw);
            size_t at_k = c * (n - 1 - a);
            if (at_k >= R.len) {
                size_t old = R.len;
                zpoly G;
                zp_init(&G);
                if ((st = zp_zero(ctx, &G, at_k + 1)) != ALEA_OK) {
                    zp_clear(ctx, &G);
                    break;
                }
                for (size_t i = 0; i < old; i++)
                    mpz_swap(G.c[i], R.c[i]);
                zp_swap(&R, &G);
                zp_clear(ctx, &G);
            }
            mpz_add(R.c[at_k], R.c[at_k], t);
        }
        if (st == ALEA_OK) {
            mpz_mul(L, L, pw);
            st = from_poly(ctx, &R, L, lo, at, out);
        }
    }
done:
    zp_clear(ctx, &P);
    zp_clear(ctx, &R);
    zp_clear(ctx, &T);
    mpz_clear(den);
    mpz_clear(L);
    mpz_clear(pw);
    mpz_clear(t);
    return st;
}

alea_status alea__frac_keep_weights(alea_ctx *ctx, const alea__pmf *die, size_t t, int high,
                                    int64_t m, int64_t K, const node *at, alea__pmf *w)
{
    /* e = P(t), s = P(short of t): the outcomes below t when the highest
     * are kept, above t when the lowest are. */
    mpq_t e, s, es, T, U, C;
    mpq_init(e);
    mpq_init(s);
    mpq_init(es);
    mpq_init(T);
    mpq_init(U);
    mpq_init(C);
    mpq_set(e, &die->q[t]);
    for (size_t i = 0; i < die->n; i++)
        if (high ? i < t : i > t)
            mpq_add(s, s, &die->q[i]);
    mpq_add(es, e, s);
    /* Each weight has about m times the digits of e and s, plus the
     * binomial's; K of them, and a fraction operation each. */
    double qb = (double)(z_bits(mpq_numref(es)) + z_bits(mpq_denref(es)) +
                         z_bits(mpq_numref(s)) + z_bits(mpq_denref(s)));
    double per = ((double)m * qb + (double)K * log2((double)m + 1)) / 8 + 16;
    alea_status st = digits_check(ctx, per * (double)K * 2, at);
    if (st == ALEA_OK)
        st = work_check(ctx, (double)K * 4 * q_cost((size_t)(per / 8) + 1), at);
    if (st != ALEA_OK)
        goto done;
    {
        /* From a = K - 1 down: r = m - a, k = K - a; T(r, 1) = (e+s)^r - s^r,
         * U(r, k) = C(r, k) e^k s^(r-k+1) the term T loses a step down,
         * T(r+1, k+1) = (e+s) T(r, k) - U(r, k),
         * U(r+1, k+1) = U(r, k) e (r+1) / (k+1). */
        int64_t r = m - K + 1, k = 1;
        q_pow(T, es, (long)r);
        q_pow(U, s, (long)r);
        mpq_sub(T, T, U);
        mpq_mul(U, U, e);
        q_mul_si(U, U, (long)r);
        mpz_bin_uiui(mpq_numref(C), (unsigned long)m, (unsigned long)(K - 1));
        mpz_set_ui(mpq_denref(C), 1);
        for (int64_t a = K - 1; a >= 0; a--) {
            if ((st = alea__charge(ctx, (int64_t)(4 * q_cost(q_limbs(T) + q_limbs(U))),
                                   at->start, at->end)) != ALEA_OK)
                goto done;
            w->v[a] = a;
            mpq_mul(&w->q[a], C, T);
            if (a == 0)
                break;
            mpq_mul(T, T, es);
            mpq_sub(T, T, U);
            mpq_mul(U, U, e);
            q_mul_si(U, U, (long)(r + 1));
            mpz_mul_si(mpq_denref(U), mpq_denref(U), (long)(k + 1));
            mpq_canonicalize(U);
            r++;
            k++;
            /* C(m, a - 1) = C(m, a) a / (m - a + 1) */
            mpz_mul_si(mpq_numref(C), mpq_numref(C), (long)a);
            z_divexact_si(mpq_numref(C), mpq_numref(C), (long)(m - a + 1));
        }
        st = alea__frac_seal(ctx, w, at);
    }
done:
    mpq_clear(e);
    mpq_clear(s);
    mpq_clear(es);
    mpq_clear(T);
    mpq_clear(U);
    mpq_clear(C);
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
        st = work_check(ctx, (double)F * q_cost((size_t)limbs + 1), at);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)((double)F * q_cost((size_t)limbs + 1)), at->start,
                          at->end);
    if (st != ALEA_OK || (st = alea__frac_pmf_alloc(ctx, F, out)) != ALEA_OK)
        return st;
    for (size_t t = F; t-- > 0;) {
        out->v[t] = (int64_t)t;
        mpq_set(&out->q[t], &die->q[bottom ? t : F - 1 - t]);
        if (t + 1 < F)
            mpq_add(&out->q[t], &out->q[t], &out->q[t + 1]);
    }
    if ((st = alea__frac_seal(ctx, out, at)) != ALEA_OK)
        alea__frac_pmf_free(ctx, out);
    return st;
}

alea_status alea__frac_binom_row(alea_ctx *ctx, const alea__q *qt, const alea__q *St,
                                 const alea__q *St1, int64_t r, int64_t kmax, const node *at,
                                 alea__pmf *out)
{
    mpq_t rho, rhoc, up, term, sum;
    mpq_init(rho);
    mpq_init(rhoc);
    mpq_init(up);
    mpq_init(term);
    mpq_init(sum);
    mpq_div(rho, qt, St);
    if (St1)
        mpq_div(rhoc, St1, St);
    /* Each term has about r times the digits of rho and rhoc, plus the
     * binomial's; kmax of them, and a few fraction operations each. */
    double qb = (double)(z_bits(mpq_numref(rho)) + z_bits(mpq_denref(rho)) +
                         z_bits(mpq_numref(rhoc)) + z_bits(mpq_denref(rhoc)));
    double per = ((double)r * qb + (double)kmax * log2((double)r + 1)) / 8 + 16;
    alea_status st = digits_check(ctx, per * ((double)kmax + 1) * 2, at);
    if (st == ALEA_OK)
        st = work_check(ctx, ((double)kmax + 1) * 4 * q_cost((size_t)(per / 8) + 1), at);
    if (st != ALEA_OK || (st = alea__frac_pmf_alloc(ctx, (size_t)kmax + 1, out)) != ALEA_OK)
        goto done;
    {
        size_t n = 0;
        if (!(mpq_sgn(rhoc) == 0)) {
            /* row[0] = rhoc^r; row[k] = row[k - 1] (r - k + 1) / k rho / rhoc */
            mpq_div(up, rho, rhoc);
            q_pow(term, rhoc, (long)r);
            for (int64_t k = 0; k < kmax; k++) {
                if (k > 0) {
                    mpq_mul(term, term, up);
                    q_mul_si(term, term, (long)(r - k + 1));
                    mpz_mul_si(mpq_denref(term), mpq_denref(term), (long)k);
                    mpq_canonicalize(term);
                }
                if ((st = alea__charge(ctx, (int64_t)(4 * q_cost(q_limbs(term))), at->start,
                                       at->end)) != ALEA_OK)
                    goto done;
                out->v[n] = k;
                mpq_set(&out->q[n++], term);
                mpq_add(sum, sum, term);
            }
        }
        /* the rest: at least kmax of the r dice take this outcome */
        mpq_set_ui(term, 1, 1);
        mpq_sub(term, term, sum);
        if (mpq_sgn(term) > 0) {
            out->v[n] = kmax;
            mpq_set(&out->q[n++], term);
        }
        alea__frac_clear(ctx, out, n);
        out->n = n;
        st = alea__frac_seal(ctx, out, at);
    }
done:
    if (st != ALEA_OK)
        alea__frac_pmf_free(ctx, out);
    mpq_clear(rho);
    mpq_clear(rhoc);
    mpq_clear(up);
    mpq_clear(term);
    mpq_clear(sum);
    return st;
}

/* ---- the other operations, term by term -------------------------------------- */

void alea__frac_copy(alea_ctx *ctx, alea__pmf *out, size_t k, const alea__pmf *a, size_t i)
{
    (void)ctx;
    mpq_set(&out->q[k], &a->q[i]);
}

void alea__frac_swap(alea_ctx *ctx, alea__pmf *d, size_t i, size_t j)
{
    (void)ctx;
    mpq_swap(&d->q[i], &d->q[j]);
}

int alea__frac_sgn(alea_ctx *ctx, const alea__q *q)
{
    (void)ctx;
    return mpq_sgn(q);
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
        mpq_init(&below[j]);
    mpq_t pt, pf, t, f;
    mpq_init(pt);
    mpq_init(pf);
    mpq_init(t);
    mpq_init(f);
    for (size_t j = 0; j < nb && st == ALEA_OK; j++) {
        mpq_set(&below[j + 1], &below[j]);
        st = alea__frac_addmul(ctx, &below[j + 1], &b->q[j], ALEA__W(1), NULL);
    }
    for (size_t j = nb; j-- > 0 && st == ALEA_OK;) {
        mpq_set(&above[j], &above[j + 1]);
        st = alea__frac_addmul(ctx, &above[j], &b->q[j], ALEA__W(1), NULL);
    }
    size_t j = 0;
    for (size_t i = 0; i < a->n && st == ALEA_OK; i++) {
        int64_t x = a->v[i];
        while (j < nb && b->v[j] < x)
            j++;
        const alea__q *lt = &below[j], *gt;
        mpq_t eq;
        mpq_init(eq);
        size_t g = j;
        if (j < nb && b->v[j] == x) {
            mpq_set(eq, &b->q[j]);
            g = j + 1;
        }
        gt = &above[g];
        switch (op) { /* x op B */
        case CMP_EQ: mpq_set(t, eq); mpq_add(f, lt, gt); break;
        case CMP_NE: mpq_add(t, lt, gt); mpq_set(f, eq); break;
        case CMP_LT: mpq_set(t, gt); mpq_add(f, lt, eq); break;
        case CMP_LE: mpq_add(t, eq, gt); mpq_set(f, lt); break;
        case CMP_GT: mpq_set(t, lt); mpq_add(f, eq, gt); break;
        default: mpq_add(t, lt, eq); mpq_set(f, gt); break; /* CMP_GE */
        }
        mpq_clear(eq);
        if ((st = alea__frac_addmul(ctx, pt, &a->q[i], (alea__w){1, t}, NULL)) == ALEA_OK)
            st = alea__frac_addmul(ctx, pf, &a->q[i], (alea__w){1, f}, NULL);
    }
    size_t k = 0;
    if (st == ALEA_OK) {
        k = (size_t)(mpq_sgn(pf) > 0) + (size_t)(mpq_sgn(pt) > 0);
        st = alea__frac_pmf_alloc(ctx, k, out);
    }
    if (st == ALEA_OK) {
        k = 0;
        if (mpq_sgn(pf) > 0) {
            out->v[k] = 0;
            mpq_set(&out->q[k++], pf);
        }
        if (mpq_sgn(pt) > 0) {
            out->v[k] = 1;
            mpq_set(&out->q[k], pt);
        }
        if ((st = alea__frac_seal(ctx, out, NULL)) != ALEA_OK)
            alea__frac_pmf_free(ctx, out);
    }
    mpq_clear(pt);
    mpq_clear(pf);
    mpq_clear(t);
    mpq_clear(f);
    for (size_t l = 0; l < 2 * (nb + 1); l++)
        mpq_clear(&below[l]);
    alea__mem_free(ctx, below, 2 * (nb + 1) * sizeof *below);
    return st;
}

alea_status alea__frac_minmax_step(alea_ctx *ctx, alea__q *r, alea__q *fa, alea__q *fb,
                                   const alea__q *pa, const alea__q *pb)
{
    /* r = pa (fb + pb) + fa pb; then fa += pa, fb += pb */
    mpq_set_ui(r, 0, 1);
    double c = q_cost(z_limbs(mpq_denref(fa)) + z_limbs(mpq_denref(fb)) + 2);
    alea_status st = alea__charge(ctx, (int64_t)(4 * c), 0, 0);
    if (st != ALEA_OK)
        return st;
    if (pa) {
        q_addmul(r, pa, fb);
        if (pb)
            q_addmul(r, pa, pb);
    }
    if (pb)
        q_addmul(r, fa, pb);
    if (pa)
        mpq_add(fa, fa, pa);
    if (pb)
        mpq_add(fb, fb, pb);
    return ALEA_OK;
}

alea_status alea__frac_extreme(alea_ctx *ctx, int is_max, const alea__pmf *a, int64_t n,
                               const node *at, alea__pmf *out)
{
    /* P(max = v) = F(v)^n - F(v-)^n, F the distribution function of a (whose
     * mass is 1 - truncated: the kept copies' mass is then (1 - t)^n). */
    mpq_t run, prev, cur;
    mpq_init(run);
    mpq_init(prev);
    mpq_init(cur);
    alea_status st = ALEA_OK;
    /* The powers have n times the digits of the distribution function. */
    double bits = 0;
    for (size_t i = 0; i < a->n; i++)
        bits += (double)z_bits(mpq_denref(&a->q[i]));
    bits = bits / (double)(a->n ? a->n : 1) + 64;
    st = extreme_check(ctx, (double)a->n, bits * (double)n, at);
    for (size_t s = 0; s < a->n && st == ALEA_OK; s++) {
        size_t i = is_max ? s : a->n - 1 - s;
        /* each step charged by the digits it walks: the running sum (a
         * gcd), its n-th power, and the difference of two powers, a gcd of
         * numbers n times as long (the dearest: 20 nested best(2, 3d6) cost
         * 10 times their charge when only the power was counted) */
        size_t l = q_limbs(run) + q_limbs(&a->q[i]);
        double c = q_cost(l) + 2 * q_cost((size_t)n * l) + q_cost(2 * (size_t)n * l);
        if ((st = alea__charge(ctx, (int64_t)c, at->start, at->end)) != ALEA_OK)
            break;
        mpq_add(run, run, &a->q[i]);
        q_pow(cur, run, (long)n);
        out->v[i] = a->v[i];
        mpq_sub(&out->q[i], cur, prev);
        mpq_swap(prev, cur);
    }
    mpq_clear(run);
    mpq_clear(prev);
    mpq_clear(cur);
    return st;
}

/* ---- printing ----------------------------------------------------------------- */

void alea__frac_release(alea_ctx *ctx)
{
    (void)ctx;
    /* MPFR keeps the constants its logarithms use in a cache of the calling
     * thread; an exact evaluation gives them back when it ends, so that
     * nothing it allocated outlives it but its result. */
    mpfr_free_cache();
}

/* The digits of z, into the output's buffer itself when they fit (a
 * distribution of 200d20 prints 7,602 numbers of 260 digits); else through
 * a string of their own, for their length. A number of more than a limb
 * whose digits the buffer holds already (a denominator, mostly: o->zc, by
 * its top limb and size) is copied from there; `kept`: z is the
 * distribution's own, which outlives the output (never a temporary). */
static void print_z(alea__out *o, const mpz_t z, int kept)
{
    size_t need = mpz_sizeinbase(z, 10) + 2; /* a sign and the NUL */
    if (!o->md && o->len < o->cap && o->cap - o->len > need) {
        size_t nl = mpz_size(z);
        struct alea__zcache *c = NULL;
        if (kept && nl > 1) {
            if (!o->zc_on) {
                memset(o->zc, 0, sizeof o->zc);
                o->zc_on = 1;
            }
            c = &o->zc[top_hash(z) % (sizeof o->zc / sizeof o->zc[0])];
            if (c->z && mpz_cmp(c->z, z) == 0) {
                memcpy(o->buf + o->len, o->buf + c->at, c->len);
                o->len += c->len;
                return;
            }
        }
        mpz_get_str(o->buf + o->len, 10, z);
        size_t len = strlen(o->buf + o->len);
        if (c) {
            c->z = z;
            c->at = o->len;
            c->len = len;
        }
        o->len += len;
        return;
    }
    void (*gmp_free)(void *, size_t);
    mp_get_memory_functions(NULL, NULL, &gmp_free);
    char *s = mpz_get_str(NULL, 10, z);
    size_t len = strlen(s);
    alea__out_mem(o, s, len);
    gmp_free(s, len + 1);
}

static void frac_print(alea__out *o, const alea__q *q, int kept)
{
    print_z(o, mpq_numref(q), kept);
    if (!(mpz_cmp_ui(mpq_denref(q), 1) == 0)) {
        alea__out_char(o, '/');
        print_z(o, mpq_denref(q), kept);
    }
}

/* ---- the finished distribution ------------------------------------------------ */

/*
 * Sums over a common denominator L (the largest denominator, grown when
 * another does not divide it): integer additions, where adding fractions
 * would take a gcd of long numbers each. *sk = sum of v^k q for k < nk.
 */
/* L = the least common multiple of m's denominators, starting from the
 * largest (which the others mostly divide); a denominator equal to one
 * already met (a table by top limb) is not divided again. */
static void common_den(const alea__pmf *m, mpz_t L)
{
    mpz_srcptr seen[QC_SLOTS] = {0};
    mpz_set_ui(L, 1);
    for (size_t i = 0; i < m->n; i++)
        if (mpz_cmp(mpq_denref(&m->q[i]), L) > 0)
            mpz_set(L, mpq_denref(&m->q[i]));
    for (size_t i = 0; i < m->n; i++) {
        mpz_srcptr d = mpq_denref(&m->q[i]);
        int k = (int)(top_hash(d) % QC_SLOTS);
        if (seen[k] && mpz_cmp(seen[k], d) == 0)
            continue;
        seen[k] = d;
        if (!mpz_divisible_p(L, d))
            mpz_lcm(L, L, d);
    }
}

static alea_status q_sums(alea_ctx *ctx, const alea__pmf *m, int nk, alea__q *sk)
{
    alea_status st = ALEA_OK;
    mpz_t L, f, s[3];
    mpz_init(L);
    mpz_init(f);
    for (int k = 0; k < nk; k++)
        mpz_init(s[k]);
    common_den(m, L);
    quot_cache qc;
    qc_init(&qc);
    for (size_t i = 0; i < m->n && st == ALEA_OK; i++) {
        mpz_mul(f, qc_get(&qc, L, mpq_denref(&m->q[i])), mpq_numref(&m->q[i])); /* q_i L */
        for (int k = 0; k < nk; k++) {
            if (k)
                mpz_mul_si(f, f, (long)m->v[i]);
            mpz_add(s[k], s[k], f);
        }
        /* charged by the callers before: done as it goes */
        st = alea__progress(ctx, 4 * ((double)q_limbs(&m->q[i]) + 1) * nk, 0, 0);
    }
    qc_clear(&qc);
    for (int k = 0; k < nk; k++) {
        q_set_frac(&sk[k], s[k], L);
        mpz_clear(s[k]);
    }
    mpz_clear(L);
    mpz_clear(f);
    return st;
}

alea_status alea__frac_check(alea_ctx *ctx, const alea__pmf *d, const node *at)
{
    mpq_t sum;
    mpq_init(sum);
    int ok = 1;
    for (size_t i = 0; i < d->n && ok; i++)
        ok = mpq_sgn(&d->q[i]) > 0;
    /* A division and a product of the digits per outcome. */
    alea_status st = alea__charge(ctx, (int64_t)(4 * (double)d->qbytes / 8 + (double)d->n),
                                  at->start, at->end);
    if (st != ALEA_OK) {
        mpq_clear(sum);
        return st;
    }
    if ((st = q_sums(ctx, d, 1, sum)) != ALEA_OK) {
        mpq_clear(sum);
        return st;
    }
    ok = ok && mpz_cmp(mpq_numref(sum), mpq_denref(sum)) <= 0;
    /* ... and the mass the doubles tracked as cut off is what is missing (a
     * part computed in doubles alone would leave its fractions 0). */
    ok = ok && fabs(1 - mpq_get_d(sum) - d->trunc) <= 1e-9;
    mpq_clear(sum);
    /* an internal error, not "no exact form yet": a construct without its
     * exact form is refused where it hands a double on, so fractions that
     * do not add up are a mistake to report, never a refusal to count */
    return ok ? ALEA_OK
              : alea__error(ctx, ALEA_ERR_INVALID, at->start, at->end,
                            "internal error at byte %u: the exact fractions do not add up to "
                            "the mass computed; please report the expression",
                            (unsigned)at->start);
}

/* The double nearest q (ties to even), as GMP's own conversion rounds
 * towards zero; with `root`, the nearest to its square root (computed
 * wide, so that a variance below the double range keeps its sd). */
static double nearest_root(const alea__q *q, int root)
{
    /* at a double's 53 bits, q is rounded once, correctly; a root is taken
     * of q at 128 bits, whose second rounding can differ only when the root
     * lies within 2^-75 of a tie */
    mpfr_t r;
    mpfr_init2(r, root ? 128 : 53);
    mpfr_set_q(r, q, MPFR_RNDN);
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
    return d == 0 && mpq_sgn(q) > 0 ? DBL_TRUE_MIN : d;
}


/* Above this a double holds a probability's 12 digits (sci_of). */
#define SCI_NORMAL 1e-290

/* d as mantissa m * 10^e, m brought into [1, 10) (e from a logarithm may be
 * one off at a power of ten). */
static alea__sci sci_norm(double d, double m, long e)
{
    if (m >= 10) {
        m /= 10;
        e++;
    } else if (m < 1) {
        m *= 10;
        e--;
    }
    return (alea__sci){.m = m, .e = e, .d = d};
}

/* A double d >= SCI_NORMAL as mantissa * 10^e. */
static alea__sci sci_of(double d)
{
    long e = (long)floor(log10(d));
    return sci_norm(d, d / pow(10, (double)e), e);
}

/* num / den as mantissa * 10^e with more than 12 significant digits (mpfr
 * at 96 bits, whose exponent reaches far below a double's); den already
 * rounded to 96 bits. */
static alea__sci to_sci(const mpz_t num, const mpfr_t den, mpfr_t r, mpfr_t t)
{
    if (mpz_sgn(num) == 0)
        return (alea__sci){0, 0, 0};
    mpfr_set_z(r, num, MPFR_RNDN);
    mpfr_div(r, r, den, MPFR_RNDN);
    double d = mpfr_get_d(r, MPFR_RNDN);
    if (d >= SCI_NORMAL)
        return sci_of(d);
    /* below: the power of ten from the wide value */
    mpfr_log10(t, r, MPFR_RNDN);
    mpfr_floor(t, t);
    long e = mpfr_get_si(t, MPFR_RNDN);
    mpfr_set_si(t, 10, MPFR_RNDN);
    mpfr_pow_si(t, t, -e, MPFR_RNDN);
    mpfr_mul(r, r, t, MPFR_RNDN);
    /* positive, as nearest_prob() */
    return sci_norm(d > 0 ? d : DBL_TRUE_MIN, mpfr_get_d(r, MPFR_RNDN), e);
}

alea_status alea__frac_sci(alea_ctx *ctx, alea_dist *d)
{
    const alea__pmf *m = &d->pmf;
    size_t n = m->n, bytes = alea__mul_size(n ? n : 1, 3 * sizeof(alea__sci));
    /* Over one denominator L: an outcome's numerator (a product and an
     * exact division), two integer sums and three conversions (a division
     * of 96-bit numbers and a power of ten each). */
    mpz_t L, num, below, mass, x;
    mpz_init(L);
    common_den(m, L);
    double limbs = (double)z_limbs(L) + 2;
    alea_status st = alea__charge(ctx, (int64_t)((16 * limbs + 3 * 400) * (double)n), 0, 0);
    alea__sci *sci = st == ALEA_OK ? alea__mem_alloc(ctx, bytes) : NULL;
    if (st == ALEA_OK && !sci)
        st = alea__nomem(ctx);
    if (st != ALEA_OK) {
        mpz_clear(L);
        return st;
    }
    mpz_init(num);
    mpz_init(below);
    mpz_init(mass);
    mpz_init(x);
    mpfr_t r, t, lf;
    mpfr_init2(r, 96);
    mpfr_init2(t, 96);
    mpfr_init2(lf, 96);
    mpfr_set_z(lf, L, MPFR_RNDN);
    quot_cache qc;
    qc_init(&qc);
    for (size_t i = 0; i < n; i++)
        mpz_addmul(mass, qc_get(&qc, L, mpq_denref(&m->q[i])), mpq_numref(&m->q[i]));
    for (size_t i = 0; i < n && st == ALEA_OK; i++) {
        /* charged above: done as it goes */
        st = alea__progress(ctx, 16 * limbs + 3 * 400, 0, 0);
        mpz_mul(num, qc_get(&qc, L, mpq_denref(&m->q[i])), mpq_numref(&m->q[i]));
        /* the probability's nearest double is there already (alea__frac_dist) */
        sci[3 * i] = m->p[i] >= SCI_NORMAL ? sci_of(m->p[i]) : to_sci(num, lf, r, t);
        mpz_sub(x, mass, below); /* at least */
        sci[3 * i + 1] = to_sci(x, lf, r, t);
        mpz_add(below, below, num);
        sci[3 * i + 2] = to_sci(below, lf, r, t);
    }
    mpfr_clear(lf);
    qc_clear(&qc);
    mpz_clear(L);
    mpz_clear(num);
    mpz_clear(below);
    mpz_clear(mass);
    mpz_clear(x);
    mpfr_clear(r);
    mpfr_clear(t);
    if (st != ALEA_OK) {
        alea__mem_free(ctx, sci, bytes);
        return st;
    }
    d->sci = sci;
    return ALEA_OK;
}

alea_status alea__frac_dist(alea_ctx *ctx, alea_dist *d)
{
    const alea__pmf *m = &d->pmf;
    mpq_t mass, t, sq, mean, var, trunc;
    mpq_init(mass);
    mpq_init(t);
    mpq_init(sq);
    mpq_init(mean);
    mpq_init(var);
    mpq_init(trunc);
    for (int k = 0; k < 3; k++)
        mpq_init(&d->xq[k]);
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
            mpq_init(&sums[k]);
        st = q_sums(ctx, m, 3, sums);
        mpq_swap(mass, &sums[0]);
        mpq_swap(mean, &sums[1]);
        mpq_swap(var, &sums[2]);
        for (int k = 0; k < 3; k++)
            mpq_clear(&sums[k]);
        for (size_t i = 0; i < m->n && st == ALEA_OK; i++)
            d->pmf.p[i] = nearest_prob(&m->q[i]);
        mpq_set_ui(t, 1, 1);
        mpq_sub(trunc, t, mass);
        if (mpq_sgn(mass) > 0) {
            mpq_div(mean, mean, mass);
            mpq_div(var, var, mass);
            mpq_mul(sq, mean, mean);
            mpq_sub(var, var, sq);
        }
        d->mass = nearest(mass);
        d->mean = nearest(mean);
        d->sd = nearest_root(var, 1);
        d->pmf.trunc = nearest(trunc);
        mpq_swap(&d->xq[0], mean);
        mpq_swap(&d->xq[1], var);
        mpq_swap(&d->xq[2], trunc);
    }
    mpq_clear(mass);
    mpq_clear(t);
    mpq_clear(sq);
    mpq_clear(mean);
    mpq_clear(var);
    mpq_clear(trunc);
    if (st != ALEA_OK) /* the caller frees them only after a success */
        alea__frac_dist_free(d);
    return st;
}

void alea__frac_dist_free(alea_dist *d)
{
    for (int k = 0; k < 3; k++)
        mpq_clear(&d->xq[k]);
}

void alea__frac_value(const alea_dist *d, alea_fraction what, size_t i, alea__out *o)
{
    const alea__pmf *m = &d->pmf;
    if (what == ALEA_FRACTION_MEAN || what == ALEA_FRACTION_VARIANCE ||
        what == ALEA_FRACTION_TRUNCATED) {
        size_t k = what == ALEA_FRACTION_MEAN ? 0 : what == ALEA_FRACTION_VARIANCE ? 1 : 2;
        frac_print(o, &d->xq[k], 1);
        return;
    }
    if (i >= m->n)
        return;
    if (what == ALEA_FRACTION_PROB) {
        frac_print(o, &m->q[i], 1);
        return;
    }
    /* at least: outcomes i.. ; at most: ..i, summed from the small end */
    mpq_t s;
    mpq_init(s);
    if (what == ALEA_FRACTION_AT_LEAST)
        for (size_t j = m->n; j-- > i;)
            mpq_add(s, s, &m->q[j]);
    else
        for (size_t j = 0; j <= i; j++)
            mpq_add(s, s, &m->q[j]);
    frac_print(o, s, 0);
    mpq_clear(s);
}

/* The CSV's cumulative columns by fractions: a gcd of long numbers per
 * addition (a denominator with a large prime). */
static void csv_by_fractions(const alea__pmf *m, alea__out *o)
{
    mpq_t most, least, mass;
    mpq_init(most);
    mpq_init(least);
    mpq_init(mass);
    for (size_t i = 0; i < m->n; i++)
        mpq_add(mass, mass, &m->q[i]);
    for (size_t i = 0; i < m->n && o->len <= o->limit; i++) {
        mpq_sub(least, mass, most);
        mpq_add(most, most, &m->q[i]);
        alea__out_i64(o, m->v[i]);
        alea__out_char(o, ',');
        frac_print(o, &m->q[i], 1);
        alea__out_char(o, ',');
        frac_print(o, least, 0);
        alea__out_char(o, ',');
        frac_print(o, most, 0);
        alea__out_char(o, '\n');
    }
    mpq_clear(most);
    mpq_clear(least);
    mpq_clear(mass);
}

void alea__frac_csv(const alea_dist *d, alea__out *o)
{
    /* at most: summed from the bottom; at least: the mass less the at most
     * before it (exact, so no cancellation to fear). Over the common
     * denominator L when its primes are small (dice): integer additions,
     * and each sum's lowest terms by dividing out L's primes, where adding
     * fractions takes gcds of long numbers (the CSV of 500d10 spent 40% of
     * its time in them). */
    const alea__pmf *m = &d->pmf;
    alea__out_str(o, "value,probability,at_least,at_most\n");
    mpz_t L, c, t, pz, g, most, mass;
    mpz_init(L);
    common_den(m, L);
    unsigned long ps[SMOOTH_PRIMES], es[SMOOTH_PRIMES];
    double work;
    int np = m->n ? smooth(L, ps, es, &work) : -1;
    if (np < 0) {
        mpz_clear(L);
        csv_by_fractions(m, o);
        return;
    }
    mpz_init(c);
    mpz_init(t);
    mpz_init(pz);
    mpz_init(g);
    mpz_init(most);
    mpz_init(mass);
    for (size_t i = 0; i < m->n; i++) {
        mpz_divexact(t, L, mpq_denref(&m->q[i]));
        mpz_addmul(mass, t, mpq_numref(&m->q[i]));
    }
    quot_cache qc;
    qc_init(&qc);
    mpq_t r;
    mpq_init(r);
    for (size_t i = 0; i < m->n && o->len <= o->limit; i++) {
        alea__out_i64(o, m->v[i]);
        alea__out_char(o, ',');
        frac_print(o, &m->q[i], 1);
        alea__out_char(o, ',');
        mpz_sub(c, mass, most);
        reduce_smooth(r, c, L, ps, es, np, pz, g, &qc);
        frac_print(o, r, 0);
        alea__out_char(o, ',');
        mpz_divexact(t, L, mpq_denref(&m->q[i]));
        mpz_addmul(most, t, mpq_numref(&m->q[i]));
        mpz_set(c, most);
        reduce_smooth(r, c, L, ps, es, np, pz, g, &qc);
        frac_print(o, r, 0);
        alea__out_char(o, '\n');
    }
    mpq_clear(r);
    qc_clear(&qc);
    mpz_clear(L);
    mpz_clear(c);
    mpz_clear(t);
    mpz_clear(pz);
    mpz_clear(g);
    mpz_clear(most);
    mpz_clear(mass);
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
