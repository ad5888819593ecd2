/*
 * frac_ops.c -- the pmf operations in fractions that go term by term (the
 * fraction module, module.h): the values of pairs (products, quotients,
 * ...) summed a value at a time, comparisons, a step of max/min, the
 * max/min of copies by powers of the distribution function, and the
 * copies and swaps of single fractions.
 */
#include "module.h"

#include <math.h>
#include <stdlib.h>

/* ---- the values of pairs (products, quotients, ...) ---------------------------- */

static int pair_cmp(const void *x, const void *y)
{
    int64_t a = ((const alea__ipair *)x)->v, b = ((const alea__ipair *)y)->v;
    return (a > b) - (a < b);
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

/* Before the powers of a distribution function are made (len_out of
 * about bits_out bits each): the memory of their digits, and the work of
 * the subtractions of consecutive powers (a gcd of their digits each),
 * checked against the work left; the steps charge it as they go. */
static alea_status extreme_check(alea_ctx *ctx, double len_out, double bits_out,
                                 const node *at)
{
    double limbs = bits_out / 64 + 1;
    if (alea__frac_digits_check(ctx, len_out * limbs * 8 * 3, at) != ALEA_OK)
        return ALEA_ERR_LIMIT;
    return work_check(ctx, len_out * 8 * (2 * limbs) * log2(2 * limbs + 2), at);
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
