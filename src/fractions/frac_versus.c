/*
 * frac_versus.c -- the distances between two exact distributions (the
 * fraction module, module.h): alea_dist_versus's one merged walk over both
 * supports (versus.c walks the same way in doubles), in fractions.
 */
#include "module.h"
#include "../dist.h"
#include "../out.h"

enum { GT, EQ, LT, TV, KS, EMD, NSTATS };

/* z = u, whatever the width of unsigned long. */
static void z_set_u64(mpz_t z, uint64_t u)
{
    mpz_set_ui(z, (unsigned long)(u >> 32));
    mpz_mul_2exp(z, z, 32);
    mpz_add_ui(z, z, (unsigned long)(u & 0xFFFFFFFFu));
}

/* The probability of outcome i of m over its mass (mass NULL: it is 1):
 * m's own fraction, or t. */
static const alea__q *share(const alea__pmf *m, size_t i, const alea__q *mass, alea__q *t)
{
    if (!mass)
        return &m->q[i];
    mpq_div(t, &m->q[i], mass);
    return t;
}

/* m's mass into s; 1 when it is 1 (nothing was cut). */
static int mass_is_one(const alea__pmf *m, alea__q *s)
{
    mpq_set_ui(s, 0, 1);
    for (size_t i = 0; i < m->n; i++)
        mpq_add(s, s, &m->q[i]);
    return mpq_cmp_ui(s, 1, 1) == 0;
}

/* By fractions: a gcd of long numbers per addition (denominators with no
 * short common multiple). r: the six results. */
static alea_status by_fractions(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b,
                                mpq_t *r)
{
    mpq_t fa, fb, ma, mb, ta, tb, d, t;
    mpz_t gap;
    mpq_init(fa);
    mpq_init(fb);
    mpq_init(ma);
    mpq_init(mb);
    mpq_init(ta);
    mpq_init(tb);
    mpq_init(d);
    mpq_init(t);
    mpz_init(gap);
    /* the masses: an addition an outcome */
    double limbs = 0;
    for (size_t i = 0; i < a->n; i++)
        limbs += (double)q_limbs(&a->q[i]);
    for (size_t j = 0; j < b->n; j++)
        limbs += (double)q_limbs(&b->q[j]);
    size_t avg = (size_t)(limbs / (double)(a->n + b->n ? a->n + b->n : 1));
    alea_status st = alea__charge(ctx, (int64_t)((double)(a->n + b->n) * q_cost(2 * avg + 2)),
                                  0, 0);
    const alea__q *mass_a = NULL, *mass_b = NULL;
    if (st == ALEA_OK) {
        mass_a = mass_is_one(a, ma) ? NULL : ma;
        mass_b = mass_is_one(b, mb) ? NULL : mb;
    }
    /* A merged walk up the values x of both: fa, fb = P(A < x), P(B < x),
     * then P(A <= x), P(B <= x); d their difference, which holds from x to
     * the next value (the EMD's integers in between). */
    size_t i = 0, j = 0;
    while (st == ALEA_OK && (i < a->n || j < b->n)) {
        int64_t x = alea__walk_next(a, i, b, j, 0);
        const alea__q *pa = i < a->n && a->v[i] == x ? share(a, i++, mass_a, ta) : NULL;
        const alea__q *pb = j < b->n && b->v[j] == x ? share(b, j++, mass_b, tb) : NULL;
        /* about ten operations on numbers as long as the running sums */
        size_t l = q_limbs(fa) + q_limbs(fb) + (pa ? q_limbs(pa) : 0) + (pb ? q_limbs(pb) : 0);
        if ((st = alea__charge(ctx, (int64_t)(10 * q_cost(l + 2)), 0, 0)) != ALEA_OK)
            break;
        if (pa && pb)
            q_addmul(r[EQ], pa, pb);
        if (pa && mpq_sgn(fb))
            q_addmul(r[GT], pa, fb);
        if (pb && mpq_sgn(fa))
            q_addmul(r[LT], pb, fa);
        if (pa)
            mpq_add(fa, fa, pa);
        if (pb)
            mpq_add(fb, fb, pb);
        mpq_set_ui(t, 0, 1);
        if (pa)
            mpq_set(t, pa);
        if (pb)
            mpq_sub(t, t, pb);
        mpq_abs(t, t);
        mpq_add(r[TV], r[TV], t);
        mpq_sub(d, fa, fb);
        mpq_abs(d, d);
        if (mpq_cmp(d, r[KS]) > 0)
            mpq_set(r[KS], d);
        int64_t next = alea__walk_next(a, i, b, j, x);
        if (next > x && mpq_sgn(d)) {
            z_set_u64(gap, (uint64_t)next - (uint64_t)x);
            mpz_mul(mpq_numref(t), mpq_numref(d), gap);
            mpz_set(mpq_denref(t), mpq_denref(d));
            mpq_canonicalize(t);
            mpq_add(r[EMD], r[EMD], t);
        }
    }
    mpq_div_2exp(r[TV], r[TV], 1);
    mpq_clear(fa);
    mpq_clear(fb);
    mpq_clear(ma);
    mpq_clear(mb);
    mpq_clear(ta);
    mpq_clear(tb);
    mpq_clear(d);
    mpq_clear(t);
    mpz_clear(gap);
    return st;
}

/*
 * Over common denominators (dice: the lcm of a sum's denominators is its
 * largest, 20^200 for 200d20): each outcome's count over its side's L,
 * na and nb, and every sum an integer, over MA MB (MA, MB the counts'
 * totals, L unless a tail was cut): no gcd until the six results. *done
 * 0 (and nothing computed) when a side's common multiple would be longer
 * than twice its longest denominator.
 */
static alea_status by_counts(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b, mpq_t *r,
                             int *done)
{
    size_t ca = max_den_limbs(a), cb = max_den_limbs(b);
    *done = 0;
    /* the common multiples: a gcd per outcome */
    alea_status st = alea__charge(ctx, (int64_t)((double)a->n * q_cost(2 * ca + 1) +
                                                 (double)b->n * q_cost(2 * cb + 1)),
                                  0, 0);
    if (st != ALEA_OK)
        return st;
    mpz_t La, Lb, MA, MB, fa, fb, d, step, t, gap, z[NSTATS];
    mpz_init(La);
    mpz_init(Lb);
    if (!common_den_capped(a, La, 2 * ca + 1) || !common_den_capped(b, Lb, 2 * cb + 1)) {
        mpz_clear(La);
        mpz_clear(Lb);
        return ALEA_OK;
    }
    *done = 1;
    double bytes = ((double)a->n * (double)z_limbs(La) + (double)b->n * (double)z_limbs(Lb) +
                    (double)(a->n + b->n)) * sizeof(mp_limb_t);
    mpz_t *na = NULL, *nb = NULL;
    if ((st = alea__frac_digits_check(ctx, bytes, NULL)) == ALEA_OK) {
        na = over_common(ctx, a, La);
        nb = na ? over_common(ctx, b, Lb) : NULL;
        if (!nb)
            st = alea__nomem(ctx);
    }
    mpz_inits(MA, MB, fa, fb, d, step, t, gap, NULL);
    for (int k = 0; k < NSTATS; k++)
        mpz_init(z[k]);
    for (size_t i = 0; nb && i < a->n; i++)
        mpz_add(MA, MA, na[i]);
    for (size_t j = 0; nb && j < b->n; j++)
        mpz_add(MB, MB, nb[j]);
    /* a step: about six products of a side's numbers by the other's */
    double la = (double)z_limbs(MA) + 1, lb = (double)z_limbs(MB) + 1;
    int64_t cost = (int64_t)(6 * (4 + 2 * la * lb) + 8 * (la + lb));
    size_t i = 0, j = 0;
    while (st == ALEA_OK && (i < a->n || j < b->n)) {
        if ((st = alea__charge(ctx, cost, 0, 0)) != ALEA_OK)
            break;
        int64_t x = alea__walk_next(a, i, b, j, 0);
        mpz_srcptr pa = i < a->n && a->v[i] == x ? na[i++] : NULL;
        mpz_srcptr pb = j < b->n && b->v[j] == x ? nb[j++] : NULL;
        if (pa && pb)
            mpz_addmul(z[EQ], pa, pb);
        if (pa)
            mpz_addmul(z[GT], pa, fb);
        if (pb)
            mpz_addmul(z[LT], pb, fa);
        /* step: pa MB - pb MA, the change of d = fa MB - fb MA */
        mpz_set_ui(step, 0);
        if (pa) {
            mpz_addmul(step, pa, MB);
            mpz_add(fa, fa, pa);
        }
        if (pb) {
            mpz_submul(step, pb, MA);
            mpz_add(fb, fb, pb);
        }
        mpz_abs(t, step);
        mpz_add(z[TV], z[TV], t);
        mpz_add(d, d, step);
        mpz_abs(t, d);
        if (mpz_cmp(t, z[KS]) > 0)
            mpz_set(z[KS], t);
        int64_t next = alea__walk_next(a, i, b, j, x);
        if (next > x && mpz_sgn(t)) {
            z_set_u64(gap, (uint64_t)next - (uint64_t)x);
            mpz_addmul(z[EMD], t, gap);
        }
    }
    if (st == ALEA_OK) {
        mpz_mul(t, MA, MB);
        for (int k = 0; k < NSTATS; k++)
            q_set_frac(r[k], z[k], t);
        mpq_div_2exp(r[TV], r[TV], 1);
    }
    free_ints(ctx, na, na ? a->n : 0);
    free_ints(ctx, nb, nb ? b->n : 0);
    mpz_clears(La, Lb, MA, MB, fa, fb, d, step, t, gap, NULL);
    for (int k = 0; k < NSTATS; k++)
        mpz_clear(z[k]);
    return st;
}

alea_status alea__frac_versus(alea_ctx *ctx, const alea__pmf *a, const alea__pmf *b,
                              double *out, alea__out *o, int by_gcd)
{
    mpq_t r[NSTATS];
    for (int k = 0; k < NSTATS; k++)
        mpq_init(r[k]);
    int done = 0;
    alea_status st = by_gcd ? ALEA_OK : by_counts(ctx, a, b, r, &done);
    if (st == ALEA_OK && !done)
        st = by_fractions(ctx, a, b, r);
    for (int k = 0; st == ALEA_OK && k < NSTATS; k++) {
        out[k] = alea__frac_nearest(r[k]);
        if (o) {
            if (k)
                alea__out_char(o, ' ');
            alea__frac_print(o, r[k]);
        }
    }
    for (int k = 0; k < NSTATS; k++)
        mpq_clear(r[k]);
    return st;
}
