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
 * The files of fractions/ (listed in module.h) are not part of the
 * library: with the library's other objects and GMP they make the module
 * alea-exact.so, which the library loads (frac_load.c) when a context
 * first computes in fractions, so that a roll or a distribution in
 * doubles never loads GMP. A program may also link them in place of
 * frac_load.c (the fuzzers do). Without GMP (the WebAssembly build) exact
 * mode cannot be switched on and they are not built.
 *
 * This file: the numbers and weights, the accumulator in fractions, the
 * primes of a denominator, and the module's table.
 */
#include "module.h"
#include "../dist.h" /* the layout check: sizeof(alea_dist) */

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    mpq_set_si(t, (int64_t)w.d, 1); /* 64 bits (long32.h: also on wasm32) */
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
            st = alea__frac_digits_check(ctx, HUGE_VAL, at);
        else if ((st = alea__frac_digits_check(ctx, limbs * sizeof(mp_limb_t), at)) == ALEA_OK &&
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

/* ---- the primes of a denominator ------------------------------------------- */

/* Trial division bound for a denominator's primes: the denominators of
 * dice are products of numbers of faces. */
#define SMOOTH_BOUND 4096

/* den = product of ps[i]^es[i] over primes below SMOOTH_BOUND: the count
 * of primes, or -1 when den has a larger factor (or too many primes). The
 * primes come from the gcd of den with the product of all primes below
 * the bound (about 90 limbs), so that a long den is divided only by its
 * own primes. */
int alea__frac_smooth(const mpz_t den, unsigned long *ps, unsigned long *es, double *work)
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
void alea__frac_reduce_smooth(alea__q *r, mpz_t c, const mpz_t den,
                              const unsigned long *ps, const unsigned long *es, int np, mpz_t pz, mpz_t g, quot_cache *qc)
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

/* Memory for about `bytes` of digits, or the exact-fractions limit error. */
alea_status alea__frac_digits_check(alea_ctx *ctx, double bytes, const node *at)
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
