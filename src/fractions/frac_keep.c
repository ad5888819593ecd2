/*
 * frac_keep.c -- what keep.c asks of the fraction module (module.h): the
 * weights of keep highest/lowest K of m dice at a threshold, the sums of a
 * die's mass along the walk over its outcomes, and the binomial rows of
 * the dice left.
 */
#include "module.h"

#include <math.h>

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
    alea_status st = alea__frac_digits_check(ctx, per * (double)K * 2, at);
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
    alea_status st = alea__frac_digits_check(ctx, limbs * 8 * 2 * (double)F, at);
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
    alea_status st = alea__frac_digits_check(ctx, per * ((double)kmax + 1) * 2, at);
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
