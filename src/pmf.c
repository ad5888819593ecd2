/*
 * pmf.c -- distributions under construction (alea__pmf): their basics, the
 * weights being computed (alea__x), the accumulator that builds them
 * (dense, or over a hash table of table.c), a scaled sum and the
 * polynomial of a keep's weights. The arithmetic of two distributions is
 * in pmf_arith.c; the storage in weight.c.
 */
#include "pmf.h"
#include "fractions/frac.h"
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- basics --------------------------------------------------------------- */

void alea__pmf_free(alea_ctx *ctx, alea__pmf *d)
{
    /* n == 0 also marks a pmf moved elsewhere ("x = y; y.n = 0;"): its
     * block and fractions belong to the copy. */
    if (d->n && d->q)
        alea__frac_clear(ctx, d, 0);
    alea__pmf_block_free(ctx, d);
}

alea_status alea__pmf_alloc(alea_ctx *ctx, size_t n, alea__pmf *d)
{
    alea_status st = alea__pmf_block_alloc(ctx, n, ctx->exact, d);
    if (st == ALEA_OK && d->q)
        alea__frac_init(ctx, d);
    return st;
}

alea_status alea__pmf_trim(alea_ctx *ctx, alea__pmf *d, size_t k)
{
    if (k == 0) {
        alea__pmf_free(ctx, d);
        return ALEA_OK;
    }
    if (d->q)
        alea__frac_clear(ctx, d, k);
    d->n = k;
    return ALEA_OK;
}

alea_status alea__pmf_seal(alea_ctx *ctx, alea__pmf *d, const node *at)
{
    alea_status st = ALEA_OK;
    if (d->q && (st = alea__frac_seal(ctx, d, at)) != ALEA_OK)
        alea__pmf_free(ctx, d);
    return st;
}

#define pmf_seal alea__pmf_seal

void alea__pmf_ratio(alea_ctx *ctx, alea__pmf *d, size_t k, uint64_t a1, uint64_t a2, uint64_t b1,
                     uint64_t b2)
{
    d->p[k] = (double)a1 * (double)a2 / ((double)b1 * (double)b2);
    if (d->q)
        alea__frac_ratio(ctx, &d->q[k], a1, a2, b1, b2);
}

void alea__pmf_take(alea_ctx *ctx, alea__pmf *out, size_t k, const alea__pmf *a, size_t i)
{
    out->v[k] = a->v[i];
    out->p[k] = a->p[i];
    if (out->q)
        alea__frac_copy(ctx, out, k, a, i);
}

alea_status alea__pmf_point(alea_ctx *ctx, int64_t v, alea__w w, alea__pmf *d)
{
    int some = w.q ? 1 : w.d > 0;
    alea_status st = alea__pmf_alloc(ctx, some ? 1 : 0, d);
    if (st != ALEA_OK || !some)
        return st;
    d->v[0] = v;
    d->p[0] = w.d;
    if (d->q && ((st = alea__frac_set(ctx, &d->q[0], w, NULL)) != ALEA_OK ||
                 (st = pmf_seal(ctx, d, NULL)) != ALEA_OK)) {
        alea__pmf_free(ctx, d);
        return st;
    }
    return ALEA_OK;
}

alea_status alea__pmf_copy(alea_ctx *ctx, const alea__pmf *a, alea__pmf *d)
{
    alea_status st = alea__pmf_alloc(ctx, a->n, d);
    if (st != ALEA_OK)
        return st;
    if (a->n) {
        memcpy(d->v, a->v, a->n * sizeof *d->v);
        memcpy(d->p, a->p, a->n * sizeof *d->p);
        for (size_t i = 0; d->q && i < a->n; i++)
            alea__frac_copy(ctx, d, i, a, i);
    }
    d->trunc = a->trunc;
    d->has_cut_low = a->has_cut_low;
    d->cut_low = a->cut_low;
    return pmf_seal(ctx, d, NULL);
}

uint64_t alea__gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

double alea__pmf_mass(const alea__pmf *d)
{
    double s = 0;
    for (size_t i = 0; i < d->n; i++)
        s += d->p[i];
    return s;
}

/* ---- weights being computed (alea__x) ---- */

void alea__x_init(alea_ctx *ctx, alea__x *x)
{
    memset(x, 0, sizeof *x);
    x->d = 1;
    /* A zeroed fraction is a valid number for the module to overwrite; 1
     * is always exact, so this cannot fail. */
    if (ctx->exact)
        x->has_q = alea__frac_set(ctx, &x->q, ALEA__W(1), NULL) == ALEA_OK;
}

void alea__x_free(alea_ctx *ctx, alea__x *x)
{
    if (x->has_q)
        alea__frac_xfree(ctx, &x->q);
    x->has_q = 0;
}

alea__w alea__x_w(const alea__x *x)
{
    return (alea__w){x->d, x->has_q ? &x->q : NULL};
}

alea_status alea__x_mul(alea_ctx *ctx, alea__x *x, alea__w a, const node *at)
{
    x->d *= a.d;
    return x->has_q ? alea__frac_xmul(ctx, &x->q, alea__x_w(x), a, at) : ALEA_OK;
}

alea_status alea__x_ratio(alea_ctx *ctx, alea__x *x, uint64_t num, uint64_t den,
                          const node *at)
{
    if (!x->has_q) {
        x->d *= (double)num / (double)den;
        return ALEA_OK;
    }
    alea__x r;
    alea__x_init(ctx, &r);
    alea__frac_ratio(ctx, &r.q, num, 1, den, 1);
    r.d = (double)num / (double)den;
    alea_status st = alea__x_mul(ctx, x, alea__x_w(&r), at);
    alea__x_free(ctx, &r);
    return st;
}

alea_status alea__x_pow(alea_ctx *ctx, alea__x *x, alea__w a, uint64_t k, const node *at)
{
    if (!x->has_q) {
        x->d *= pow(a.d, (double)k);
        return ALEA_OK;
    }
    alea__x r;
    alea__x_init(ctx, &r);
    r.d = pow(a.d, (double)k);
    alea_status st = alea__frac_xpow(ctx, &r.q, a, k, at);
    if (st == ALEA_OK)
        st = alea__x_mul(ctx, x, alea__x_w(&r), at);
    alea__x_free(ctx, &r);
    return st;
}

alea_status alea__x_addmul(alea_ctx *ctx, alea__x *x, alea__w a, alea__w b, const node *at)
{
    x->d += a.d * b.d;
    return x->has_q ? alea__frac_xaddmul(ctx, &x->q, a, b, at) : ALEA_OK;
}

alea_status alea__x_div(alea_ctx *ctx, alea__x *x, alea__w a, const node *at)
{
    x->d /= a.d;
    return x->has_q ? alea__frac_xdiv(ctx, &x->q, alea__x_w(x), a, at) : ALEA_OK;
}

alea_status alea__support_need(alea_ctx *ctx, const node *at, double need)
{
    alea_status st = alea__support_error(ctx, at);
    ctx->support_need = need;
    return st;
}

double alea__trunc_join(double a, double b)
{
    double t = a + b - a * b;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

double alea__trunc_pow(double t, int64_t n)
{
    if (t <= 0 || n <= 0)
        return 0;
    if (t >= 1)
        return 1;
    double r = -expm1((double)n * log1p(-t));
    return r < 0 ? 0 : r > 1 ? 1 : r;
}

/* ---- the accumulator -------------------------------------------------------- */

/* Slots of a table that still fits in a core's caches (1 MiB of keys and
 * values): past it, additions cost ALEA__SPARSE_COST_BIG. */
#define SPARSE_CACHED 65536u

/* ---- the accumulator -------------------------------------------------------- */

alea_status alea__acc_init(alea__acc *a, alea_ctx *ctx, const node *at, int64_t lo,
                           int64_t hi, double adds)
{
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
    a->at = at;
    a->limit = alea__support_limit(ctx);
    uint64_t diff = (uint64_t)hi - (uint64_t)lo; /* span - 1, no overflow */
    if (diff < a->limit &&
        (diff < ALEA__DENSE_SMALL || (double)diff < ALEA__DENSE_RATIO * adds)) {
        size_t span = (size_t)diff + 1;
        /* Clearing the array and reading it back: a quarter unit a value */
        alea_status st = alea__charge(ctx, (int64_t)(span / 4 + 1), at->start, at->end);
        if (st != ALEA_OK)
            return st;
        a->lo = lo;
        a->span = span;
        if (ctx->exact)
            return alea__frac_acc_dense(a);
        a->d = alea__spare_alloc(ctx, alea__mul_size(span, sizeof *a->d), &a->dbytes);
        if (!a->d)
            return alea__nomem(ctx);
        memset(a->d, 0, span * sizeof *a->d);
        return ALEA_OK;
    }
    if (ctx->exact)
        return ALEA_OK; /* pairs, on the first addition */
    return alea__table_init(ctx, &a->t, 0);
}

double alea__acc_unit(const alea__acc *a)
{
    if (a->ctx->exact)
        return ALEA__FRAC_UNIT;
    return a->span ? 1.0 : (double)ALEA__SPARSE_COST;
}

void alea__acc_free(alea__acc *a)
{
    if (a->dq || a->sq)
        alea__frac_acc_free(a);
    if (a->d)
        alea__spare_free(a->ctx, a->d, a->dbytes);
    a->d = NULL;
    a->span = 0;
    alea__table_free(a->ctx, &a->t);
}

/* Charges the sparse additions made so far (all but the 1 unit each that
 * the caller charges) and every slot they probed past the first (a unit
 * each: a read of the next slot, in the same cache line most of the time). */
static alea_status charge_sparse(alea__acc *a)
{
    /* A table past the caches costs a memory access per addition. */
    int64_t cost = a->t.cap > SPARSE_CACHED ? ALEA__SPARSE_COST_BIG : ALEA__SPARSE_COST;
    uint64_t steps = alea__table_steps(&a->t);
    double units = (double)a->uncharged * (double)(cost - 1) + (double)steps;
    a->uncharged = 0;
    alea_status st = alea__work_check(a->ctx, units, a->at);
    if (st == ALEA_OK)
        st = alea__charge(a->ctx, (int64_t)units, a->at->start, a->at->end);
    if (st != ALEA_OK)
        alea__acc_free(a);
    return st;
}

/* Charged every this many additions or probe steps, so that a flooded table
 * (long probe runs) is stopped within a few thousand steps of the limit. */
#define SPARSE_CHARGE_EVERY 4096

/* Adds to the table; past the support limit, the error and the buffers go. */
static alea_status sparse_add(alea__acc *a, int64_t v, double p)
{
    int full;
    alea_status st = alea__table_add(a->ctx, &a->t, v, p, a->limit, &full);
    if (full)
        st = alea__support_error(a->ctx, a->at);
    if (st != ALEA_OK) {
        alea__acc_free(a);
        return st;
    }
    if (++a->uncharged >= SPARSE_CHARGE_EVERY || a->t.steps >= SPARSE_CHARGE_EVERY)
        return charge_sparse(a);
    return ALEA_OK;
}

alea_status alea__acc_add2(alea__acc *a, int64_t v, alea__w x, alea__w y)
{
    if (a->ctx->exact) {
        alea_status st = alea__frac_acc_add(a, v, x, y);
        if (st != ALEA_OK)
            alea__acc_free(a);
        return st;
    }
    double p = x.d * y.d;
    if (a->span) {
        a->d[(size_t)((uint64_t)v - (uint64_t)a->lo)] += p;
        return ALEA_OK;
    }
    return sparse_add(a, v, p);
}

alea_status alea__acc_add(alea__acc *a, int64_t v, alea__w p)
{
    return alea__acc_add2(a, v, p, ALEA__W(1));
}

alea_status alea__acc_add_pmf(alea__acc *a, const alea__pmf *d, int64_t shift, alea__w ww)
{
    size_t n = d->n;
    if (a->ctx->exact) {
        alea_status st = alea__frac_acc_add_pmf(a, d, shift, ww);
        if (st != ALEA_OK)
            alea__acc_free(a);
        return st;
    }
    double w = ww.d;
    if (n == 0 || w == 0)
        return ALEA_OK;
    const int64_t *v = d->v;
    const double *p = d->p;
    if (a->span) {
        uint64_t off = (uint64_t)shift - (uint64_t)a->lo;
        if ((uint64_t)v[n - 1] - (uint64_t)v[0] == n - 1) {
            /* consecutive values: a plain axpy the compiler vectorises */
            double *dst = a->d + (size_t)((uint64_t)v[0] + off);
            for (size_t i = 0; i < n; i++)
                dst[i] += w * p[i];
        } else {
            for (size_t i = 0; i < n; i++)
                a->d[(size_t)((uint64_t)v[i] + off)] += w * p[i];
        }
        return ALEA_OK;
    }
    alea_status st = ALEA_OK;
    for (size_t i = 0; i < n && st == ALEA_OK; i++)
        st = sparse_add(a, (int64_t)((uint64_t)v[i] + (uint64_t)shift), w * p[i]);
    return st;
}

/* The sparse table's positive entries, sorted by value, into *r. The sort
 * is charged (n log2 n comparisons at 2 units each) before it starts. */
static alea_status sparse_finish(alea__acc *a, alea__pmf *r)
{
    alea_status st = charge_sparse(a);
    if (st != ALEA_OK)
        return st;
    size_t k = alea__table_count(&a->t);
    double lg = k > 1 ? ceil(log2((double)k)) : 1;
    alea__pair *pr = NULL;
    if ((st = alea__work_check(a->ctx, 2 * (double)k * lg, a->at)) != ALEA_OK ||
        (st = alea__charge(a->ctx, (int64_t)(2 * (double)k * lg), a->at->start,
                           a->at->end)) != ALEA_OK ||
        (st = alea__table_sorted(a->ctx, &a->t, &pr, &k)) != ALEA_OK) {
        alea__acc_free(a);
        return st;
    }
    alea__acc_free(a); /* before the result: the table is done with */
    if ((st = alea__pmf_alloc(a->ctx, k, r)) == ALEA_OK) {
        for (size_t i = 0; i < k; i++) {
            r->v[i] = pr[i].v;
            r->p[i] = pr[i].p;
        }
    }
    alea__mem_free(a->ctx, pr, (k ? k : 1) * sizeof *pr);
    return st;
}

alea_status alea__acc_finish(alea__acc *a, alea__pmf *out)
{
    alea_status st;
    alea__pmf r;
    if (a->ctx->exact)
        return alea__frac_acc_finish(a, out);
    if (a->span) {
        size_t k = 0;
        for (size_t i = 0; i < a->span; i++)
            k += a->d[i] > 0;
        if ((st = alea__pmf_alloc(a->ctx, k, &r)) != ALEA_OK) {
            alea__acc_free(a);
            return st;
        }
        k = 0;
        for (size_t i = 0; i < a->span; i++) {
            if (a->d[i] > 0) {
                r.v[k] = (int64_t)((uint64_t)a->lo + i);
                r.p[k] = a->d[i];
                k++;
            }
        }
        alea__acc_free(a);
    } else if ((st = sparse_finish(a, &r)) != ALEA_OK) {
        return st;
    }
    *out = r;
    return ALEA_OK;
}

/* ---- sums into a pmf ---------------------------------------------------------- */

alea_status alea__pmf_add_scaled(alea_ctx *ctx, alea__pmf *sum, const alea__pmf *b,
                                 alea__w ww, const node *at)
{
    alea__pmf r;
    alea_status st;
    double w = ww.d;
    if (b->n == 0 || (w == 0 && !ww.q))
        return ALEA_OK;
    if ((st = alea__charge(ctx, (int64_t)(sum->n + b->n), at->start, at->end)) != ALEA_OK ||
        (st = alea__pmf_alloc(ctx, sum->n + b->n, &r)) != ALEA_OK)
        return st;
    size_t i = 0, j = 0, k = 0;
    while (i < sum->n || j < b->n) {
        if (j >= b->n || (i < sum->n && sum->v[i] < b->v[j])) {
            alea__pmf_take(ctx, &r, k++, sum, i++);
        } else if (i >= sum->n || b->v[j] < sum->v[i]) {
            r.v[k] = b->v[j];
            r.p[k] = w * b->p[j];
            if (r.q) {
                if ((st = alea__frac_addmul(ctx, &r.q[k], &b->q[j], ww, at)) != ALEA_OK) {
                    alea__pmf_free(ctx, &r);
                    return st;
                }
                r.p[k] = alea__frac_sgn(ctx, &r.q[k]);
            }
            j++;
            k += r.p[k] > 0;
        } else {
            alea__pmf_take(ctx, &r, k, sum, i++);
            r.p[k] += w * b->p[j];
            if (r.q && (st = alea__frac_addmul(ctx, &r.q[k], &b->q[j], ww, at)) != ALEA_OK) {
                alea__pmf_free(ctx, &r);
                return st;
            }
            j++;
            k++;
        }
    }
    if (k > alea__support_limit(ctx)) {
        alea__pmf_free(ctx, &r);
        return alea__support_error(ctx, at);
    }
    r.trunc = sum->trunc;
    alea__pmf_trim(ctx, &r, k);
    if ((st = pmf_seal(ctx, &r, at)) != ALEA_OK)
        return st;
    alea__pmf_free(ctx, sum);
    *sum = r;
    return ALEA_OK;
}

/* ---- polynomials of a pmf ------------------------------------------------------ */

alea_status alea__pmf_polyval(alea_ctx *ctx, const alea__pmf *b, const alea__pmf *w,
                              const node *at, alea__pmf *out)
{
    alea_status st;
    size_t n = w->n;
    if (n == 0)
        return alea__pmf_alloc(ctx, 0, out);
    if (b->n == 0) /* B is nothing: only the constant term */
        return alea__pmf_point(ctx, 0, alea__pmf_w(w, 0), out);
    /* B = x^base P(x), base = min(B's lowest value, 0); P's length is
     * top + 1, top >= -base, so that the constant of each Horner step,
     * which lands at c (n - 1 - a) with c = -base, is inside the product. */
    int64_t b0 = b->v[0], b1 = b->v[0];
    for (size_t i = 1; i < b->n; i++) {
        b0 = b->v[i] < b0 ? b->v[i] : b0;
        b1 = b->v[i] > b1 ? b->v[i] : b1;
    }
    int64_t base = b0 < 0 ? b0 : 0, top, lo, len;
    if (base == INT64_MIN || alea__add_ovf(b1 > 0 ? b1 : 0, -base, &top) ||
        alea__mul_ovf((int64_t)n - 1, base, &lo) ||
        alea__mul_ovf((int64_t)n - 1, top, &len) || len == INT64_MAX)
        return alea__overflow_error(ctx, at);
    len += 1;
    if ((uint64_t)len > alea__support_limit(ctx))
        return alea__support_error(ctx, at);
    if (ctx->exact) /* keep.c's threshold method is whole in fractions */
        return alea__broken(ctx, at->start, at->end, "a polynomial of weights in fractions");

    /* Horner's rule on dense arrays: each step is R * P, whose length grows
     * by top, plus the next weight. */
    double steps = (double)n * (double)n / 2 * ((double)top + 1) * (double)b->n;
    if ((st = alea__work_check(ctx, steps + 2 * (double)len, at)) != ALEA_OK)
        return st;
    size_t ul = (size_t)len, bytes = alea__mul_size(ul, 2 * sizeof(double));
    double *blk = alea__mem_alloc(ctx, bytes), *r = blk; /* r and s swap */
    if (!blk)
        return alea__nomem(ctx);
    double *s = r + ul;
    size_t cur = 1;
    r[0] = w->p[n - 1];
    for (size_t a = n - 1; a-- > 0;) {
        size_t next = cur + (size_t)top, c = (size_t)-base;
        if ((st = alea__charge(ctx, (int64_t)next, at->start, at->end)) != ALEA_OK) {
            alea__mem_free(ctx, blk, bytes);
            return st;
        }
        memset(s, 0, next * sizeof *s);
        /* charged by rows of R as they go, about a poll's worth at a time
         * (a step of a long R was one lump between polls) */
        size_t rows = ALEA__POLL_EVERY / b->n + 1;
        for (size_t i0 = 0; i0 < cur; i0 += rows) {
            size_t i1 = cur - i0 < rows ? cur : i0 + rows;
            if ((st = alea__charge(ctx, (int64_t)((i1 - i0) * b->n), at->start, at->end)) !=
                ALEA_OK) {
                alea__mem_free(ctx, blk, bytes);
                return st;
            }
            for (size_t i = i0; i < i1; i++) {
                if (r[i] == 0)
                    continue;
                for (size_t j = 0; j < b->n; j++)
                    s[i + (size_t)(b->v[j] - base)] += r[i] * b->p[j];
            }
        }
        s[c * (n - 1 - a)] += w->p[a];
        double *t = r;
        r = s;
        s = t;
        cur = next;
    }
    size_t k = 0;
    for (size_t i = 0; i < cur; i++)
        k += r[i] > 0;
    if ((st = alea__pmf_alloc(ctx, k, out)) == ALEA_OK) {
        k = 0;
        for (size_t i = 0; i < cur; i++)
            if (r[i] > 0) {
                out->v[k] = lo + (int64_t)i;
                out->p[k++] = r[i];
            }
    }
    alea__mem_free(ctx, blk, bytes);
    return st;
}
