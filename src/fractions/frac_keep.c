/*
 * frac_keep.c -- what keep.c asks of the fraction module (module.h): the
 * sums of a die's mass along the walk over its outcomes, the binomial rows
 * of the dice left, and the kept sum of keep highest/lowest K of m dice by
 * the threshold method, in integers over one denominator.
 */
#include "module.h"

#include <math.h>
#include <string.h>

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

/* ---- keep highest/lowest K of m dice over one denominator ----------------------- */

/*
 * alea__frac_keep_sum: the threshold method of keep.c (the lowest kept die
 * at t, a < K dice beyond it) in integers. With D the least common multiple
 * of the die's denominators, each outcome's mass is n_i / D, and every
 * probability of the result is an integer over D^m: the sum over t of
 *   W_t(a) x^((K - a) g_t) C_t(x)^a,  C_t = sum over i beyond t of n_i x^g_i,
 * W_t(a) = C(m, a) T(m - a, K - a), T(r, k) = sum over j >= k of
 * C(r, j) e^j s^(r - j), with e = n_t and s the n's short of t. Walking t from the far end, C_t gains one term a step,
 * so its powers follow by the binomial theorem, each power a sum of scaled
 * copies of the lower ones (no product of polynomials); the sum is kept as
 * integers, and reduced once at the end (alea__frac_from_ints), instead of
 * a product, a reduction and an addition of fractions at every t.
 *
 * The polynomials are packed, a coefficient every `w` limbs (w fixed per
 * polynomial): the powers' coefficients are below D^a (C_t's sum at most D),
 * the sum's below D^m (its mass at most 1), so nothing carries from one
 * coefficient into the next, and a scaled copy of a power is one run of
 * mpn_addmul_1 per limb of the scale over the whole polynomial.
 */

/* Work units of the packed arithmetic: a unit per KEEP_LIMBS_PER_UNIT limb
 * products (mpn_addmul_1 does one in about half a nanosecond here, a unit
 * is about 2 ns), and KEEP_COEF_UNITS for a coefficient moved into the sum
 * (a product and an addition of GMP's on a few limbs). */
#define KEEP_LIMBS_PER_UNIT 2
#define KEEP_COEF_UNITS 16
/* Units of a step of the plan (a few operations on doubles, about 5 ns:
 * at a 64th of a unit a step, 2000d300kh1000 planned for 0.7 s before its
 * memory was refused). */
#define KEEP_PLAN_STEP_UNITS 2

typedef struct kpack {
    mp_limb_t *l;
    size_t cap; /* limbs, slack included */
} kpack;

static size_t limbs_of_bits(double bits)
{
    return (size_t)(bits / 64) + 1;
}

/* dst[0 ..] += s src[0 .. n), within cap limbs of dst (0: a carry would
 * pass the end, which the bounds above rule out). */
static int lim_addmul(mp_limb_t *dst, size_t cap, const mp_limb_t *src, size_t n, const mpz_t s)
{
    size_t sn = mpz_size(s);
    const mp_limb_t *sl = mpz_limbs_read(s);
    while (n && !src[n - 1])
        n--;
    if (!n)
        return 1;
    for (size_t i = 0; i < sn; i++) {
        if (!sl[i])
            continue;
        if (i + n > cap)
            return 0;
        mp_limb_t cy = mpn_addmul_1(dst + i, src, (mp_size_t)n, sl[i]);
        for (size_t k = i + n; cy; k++) {
            if (k >= cap)
                return 0;
            dst[k] += cy;
            cy = dst[k] < cy;
        }
    }
    return 1;
}

/* n new integers, 0 (free_ints gives them back); NULL when out of memory. */
static mpz_t *new_ints(alea_ctx *ctx, size_t n)
{
    mpz_t *z = alea__mem_alloc(ctx, alea__mul_size(n ? n : 1, sizeof *z));
    for (size_t i = 0; z && i < n; i++)
        mpz_init(z[i]);
    return z;
}

/* The walk's order: outcome u of the walk is the die's index idx(u). */
#define KIDX(u) (high ? F - 1 - (u) : (u))

/* dst[0 .. n) += src[0 .. n), within cap limbs of dst (0: past the end). */
static int lim_add(mp_limb_t *dst, size_t cap, const mp_limb_t *src, size_t n)
{
    if (n > cap)
        return 0;
    mp_limb_t cy = n ? mpn_add_n(dst, dst, src, (mp_size_t)n) : 0;
    for (size_t k = n; cy; k++) {
        if (k >= cap)
            return 0;
        dst[k] += cy;
        cy = dst[k] < cy;
    }
    return 1;
}

/* Horner's rule at walk position u (outcome g_t = gt from gmin, the u
 * outcomes before it beyond it): R = W(K-1), R = R C_t + W(a) x^((K-1-a) gt)
 * for a = K-2 down to 0, in slots of w limbs (r, r2: cap limbs each), then
 * sum += R (sum: the sum's slots from gt on, scap limbs). */
static alea_status horner_at(alea_ctx *ctx, const node *at, const alea__pmf *die,
                             const int64_t *g, int high, mpz_t *n, mpz_t *W, size_t nK, size_t u,
                             size_t gt, int64_t gmin, size_t span, size_t w, mp_limb_t *r,
                             mp_limb_t *r2, size_t cap, mp_limb_t *sum, size_t scap)
{
    size_t F = die->n, len = 1;
    memset(r, 0, w * sizeof *r);
    for (size_t a = nK; a-- > 0;) {
        if (a + 1 < nK) { /* R = R C_t */
            size_t nlen = len + (u ? span : 0), idx = (nK - 1 - a) * gt;
            nlen = idx + 1 > nlen ? idx + 1 : nlen;
            if (nlen * w > cap)
                return alea__broken(ctx, at->start, at->end, "a kept sum past its bound");
            memset(r2, 0, nlen * w * sizeof *r2);
            for (size_t v = 0; v < u; v++) {
                size_t i = KIDX(v);
                size_t off = (size_t)((uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gmin) * w;
                if (!lim_addmul(r2 + off, cap - off, r, len * w, n[i]))
                    return alea__broken(ctx, at->start, at->end, "a kept sum past its bound");
            }
            mp_limb_t *t = r;
            r = r2;
            r2 = t;
            len = nlen;
            alea_status st = alea__progress(ctx, (double)(u * len * w) / KEEP_LIMBS_PER_UNIT,
                                            at->start, at->end);
            if (st != ALEA_OK)
                return st;
        }
        size_t idx = (nK - 1 - a) * gt, wn = mpz_size(W[a]);
        if (wn > w || (wn && mpn_add(r + idx * w, r + idx * w, (mp_size_t)w, mpz_limbs_read(W[a]),
                                     (mp_size_t)wn)))
            return alea__broken(ctx, at->start, at->end, "a kept sum past its bound");
    }
    if (!lim_add(sum, scap, r, len * w))
        return alea__broken(ctx, at->start, at->end, "a kept sum past its bound");
    return ALEA_OK;
}

alea_status alea__frac_keep_sum(alea_ctx *ctx, const alea__pmf *die, const int64_t *g, int high,
                                int64_t m, int64_t K, int64_t smin, int how, const node *at,
                                alea__pmf *out)
{
    size_t F = die->n, nK = (size_t)K;
    alea_status st = ALEA_OK;
    int64_t gmin = g ? g[0] : die->v[0], gmax = gmin;
    for (size_t i = 0; i < F; i++) {
        int64_t x = g ? g[i] : die->v[i];
        gmin = x < gmin ? x : gmin;
        gmax = x > gmax ? x : gmax;
    }
    size_t span = (size_t)((uint64_t)gmax - (uint64_t)gmin); /* checked by keep.c */
    mpz_t D, s, e, es, T, U, C, sc;
    mpz_t *n = NULL, *W = NULL, *c = NULL;
    kpack *P = NULL, acc = {0};
    size_t lenA = 0, np = 0;
    mp_limb_t *tmp = NULL;
    size_t tmp_cap = 0;
    mpz_init(D);
    mpz_init(s);
    mpz_init(e);
    mpz_init(es);
    mpz_init(T);
    mpz_init(U);
    mpz_init(C);
    mpz_init(sc);
    /* the masses as integers over D */
    if (!(n = new_ints(ctx, F)) || !(W = new_ints(ctx, nK))) {
        st = alea__nomem(ctx);
        goto done;
    }
    mpz_set_ui(D, 1);
    for (size_t i = 0; i < F; i++)
        mpz_lcm(D, D, mpq_denref(&die->q[i]));
    for (size_t i = 0; i < F; i++) {
        mpz_divexact(n[i], D, mpq_denref(&die->q[i]));
        mpz_mul(n[i], n[i], mpq_numref(&die->q[i]));
    }
    double bd = (double)z_bits(D), dm = (double)m;
    /* First the plan's own loops (F K^2 / 2 steps) and the sum's length,
     * a word a coefficient at least (d1000 kept by thousands would loop
     * for minutes before it was refused) */
    double dlen = (double)nK * (double)span + 1;
    double plan = (double)F * (double)K * (double)K / 2 * KEEP_PLAN_STEP_UNITS + 1;
    if ((st = alea__frac_digits_check(ctx, dlen * 8 * 2, at)) != ALEA_OK ||
        (st = work_check(ctx, plan + dlen, at)) != ALEA_OK ||
        (st = alea__charge(ctx, (int64_t)plan, at->start, at->end)) != ALEA_OK)
        goto done;
    lenA = nK * span + 1;
    /* slots: the powers' (below D^(K-1)), the sum's (below D^m) */
    size_t wp = limbs_of_bits(bd * (double)(K - 1) + 1), wa = limbs_of_bits(bd * dm + 1);
    size_t slack = limbs_of_bits(bd * (double)(K - 1) + (double)K + 1) + 1;

    /* The plan, as the loops below will go: the limbs of each scaled copy
     * times the limbs of its scale, the coefficients moved into the sum. */
    double ops = 0, coefs = 0, bytes = (double)lenA * (double)wa * 8 * 2;
    for (size_t a = 1; a < nK; a++)
        bytes += ((double)a * (double)span + 1) * (double)wp * 8 + (double)slack * 8;
    /* Horner's rule instead (many dice kept of few outcomes: 1000d6kh500
     * takes K^3 copies of powers above, K^2 here): at each t, R = W(K-1),
     * R = R C_t + W(a) x^((K-1-a) g_t), a copy of R per term of C_t a step,
     * in slots of wr limbs (R's coefficients stay below K 2^m D^m). */
    size_t wr = limbs_of_bits(bd * dm + dm + log2((double)K) + 2);
    size_t rcap = ((nK - 1) * span + span + 2) * wr + wr + 2;
    double hops = 0, hbytes = (double)lenA * (double)wr * 8 * 2 + 2 * (double)rcap * 8;
    double nl = 0;
    for (size_t i = 0; i < F; i++)
        nl = (double)mpz_size(n[i]) > nl ? (double)mpz_size(n[i]) : nl;
    {
        int64_t glo = 0, ghi = -1; /* the range beyond t, from gmin (none yet) */
        for (size_t u = 0; u < F; u++) {
            size_t i = KIDX(u);
            int64_t gt = (int64_t)((uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gmin);
            double nb = (double)z_bits(n[i]), width = ghi >= glo ? (double)(ghi - glo) : -1;
            double len = 1, grow = (double)span;
            for (size_t j = 1; j < nK; j++) {
                if (u > 0)
                    hops += (double)u * len * (double)wr * nl;
                len += grow;
                hops += len * (double)wr;
            }
            hops += (double)nK * (double)wr + len * (double)wr;
            /* into the sum: each power's coefficients times W_t(a) */
            for (size_t a = 0; a < nK; a++)
                if (a == 0 || width >= 0)
                    coefs += (double)a * (width > 0 ? width : 0) + 1;
            /* the powers: each gains the scaled lower ones */
            for (size_t a = 1; a < nK; a++)
                for (size_t b = 0; b < a; b++)
                    if (b == 0 || width >= 0)
                        ops += ((double)b * (width > 0 ? width : 0) + 1) * (double)wp *
                               (double)limbs_of_bits((double)a + (double)(a - b) * nb);
            int any = ghi >= glo;
            glo = any && glo < gt ? glo : gt;
            ghi = any && ghi > gt ? ghi : gt;
        }
    }
    /* W_t(a) has at most m bits more than D^(m - a) (its binomials). At
     * each t the weights take two powers of such a length and, for each a,
     * products of it by a binomial of cl limbs and by numbers of D's dl
     * limbs, and a few passes over it. */
    double wlimbs = (double)limbs_of_bits(bd * dm + dm);
    double dl = (double)limbs_of_bits(bd), cl = (double)limbs_of_bits((double)K * log2(dm + 1));
    double weights = 2 * wlimbs * (log2(wlimbs + 2) + 1) * 4 + (double)K * wlimbs * (cl + 2 * dl + 4);
    double work = ops / KEEP_LIMBS_PER_UNIT +
                  coefs * ((double)wp * wlimbs / KEEP_LIMBS_PER_UNIT + KEEP_COEF_UNITS);
    double hwork = hops / KEEP_LIMBS_PER_UNIT;
    int horner = how ? how == 2 : hwork < work;
    if (horner) {
        work = hwork;
        bytes = hbytes;
        wa = wr;
    }
    work += (double)F * (weights / KEEP_LIMBS_PER_UNIT + (double)K * 8) + (double)lenA * (double)wa;
    if ((st = alea__frac_digits_check(ctx, bytes, at)) != ALEA_OK ||
        (st = work_check(ctx, work, at)) != ALEA_OK ||
        (st = alea__charge(ctx, (int64_t)work, at->start, at->end)) != ALEA_OK)
        goto done;

    np = horner ? 3 : nK; /* Horner's R and next R in P[1], P[2] */
    P = alea__mem_alloc(ctx, alea__mul_size(np, sizeof *P));
    if (!P) {
        st = alea__nomem(ctx);
        goto done;
    }
    memset(P, 0, np * sizeof *P);
    for (size_t a = 1; a < np && st == ALEA_OK; a++) {
        P[a].cap = horner ? rcap : (a * span + 1) * wp + slack;
        if (!(P[a].l = alea__mem_alloc(ctx, alea__mul_size(P[a].cap, sizeof(mp_limb_t)))))
            st = alea__nomem(ctx);
        else
            memset(P[a].l, 0, P[a].cap * sizeof(mp_limb_t));
    }
    acc.cap = lenA * wa + slack;
    tmp_cap = (size_t)wlimbs + wp + 2;
    if (st == ALEA_OK &&
        (!(acc.l = alea__mem_alloc(ctx, alea__mul_size(acc.cap, sizeof(mp_limb_t)))) ||
         !(tmp = alea__mem_alloc(ctx, tmp_cap * sizeof(mp_limb_t)))))
        st = alea__nomem(ctx);
    if (st != ALEA_OK)
        goto done;
    memset(acc.l, 0, acc.cap * sizeof(mp_limb_t));

    /* s: the n's short of the first outcome of the walk (all but it) */
    for (size_t u = 1; u < F; u++)
        mpz_add(s, s, n[KIDX(u)]);
    {
        int64_t glo = 0, ghi = -1;
        mp_limb_t one = 1;
        for (size_t u = 0; u < F && st == ALEA_OK; u++) {
            size_t i = KIDX(u);
            size_t gt = (size_t)((uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gmin);
            int any = ghi >= glo;
            size_t lo = any ? (size_t)glo : 0, width = any ? (size_t)(ghi - glo) : 0;
            /* W_t(a), a = K - 1 down to 0, r = m - a, k = K - a: T(r, 1) =
             * (e+s)^r - s^r, U(r, k) = C(r, k) e^k s^(r-k+1) the term T loses
             * a step down, T(r+1, k+1) = (e+s) T(r, k) - U(r, k), U(r+1, k+1) =
             * U(r, k) e (r+1) / (k+1); C(m, a - 1) = C(m, a) a / (m - a + 1) */
            mpz_set(e, n[i]);
            mpz_add(es, e, s);
            unsigned long r = (unsigned long)(m - K + 1), k = 1;
            mpz_pow_ui(T, es, r);
            mpz_pow_ui(U, s, r);
            mpz_sub(T, T, U);
            mpz_mul(U, U, e);
            mpz_mul_ui(U, U, r);
            mpz_bin_uiui(C, (unsigned long)m, (unsigned long)(K - 1));
            for (int64_t a = K - 1; a >= 0; a--) {
                mpz_mul(W[a], C, T);
                if (a == 0)
                    break;
                mpz_mul(T, T, es);
                mpz_sub(T, T, U);
                mpz_mul(U, U, e);
                mpz_mul_ui(U, U, r + 1);
                mpz_divexact_ui(U, U, k + 1);
                r++;
                k++;
                mpz_mul_ui(C, C, (unsigned long)a);
                mpz_divexact_ui(C, C, (unsigned long)(m - a + 1));
            }
            if (horner) {
                /* P[1], P[2]: R and the next R */
                st = horner_at(ctx, at, die, g, high, n, W, nK, u, gt, gmin, span, wr, P[1].l,
                               P[2].l, rcap, acc.l + gt * wr, acc.cap - gt * wr);
                goto next;
            }
            /* into the sum: W_t(a) x^((K - a) g_t) C_t^a */
            for (size_t a = 0; a < nK && st == ALEA_OK; a++) {
                if (a > 0 && !any)
                    break;
                size_t from = a * lo, to = a * (lo + width), sh = (nK - a) * gt;
                size_t wn = mpz_size(W[a]);
                const mp_limb_t *wl = mpz_limbs_read(W[a]);
                if (!wn)
                    continue;
                for (size_t j = from; j <= to; j++) {
                    const mp_limb_t *pc = a ? P[a].l + j * wp : &one;
                    size_t pn = a ? wp : 1;
                    while (pn && !pc[pn - 1])
                        pn--;
                    if (!pn)
                        continue;
                    size_t tn = wn + pn;
                    if (tn > tmp_cap) {
                        st = alea__broken(ctx, at->start, at->end, "a kept sum past its bound");
                        break;
                    }
                    if (wn >= pn)
                        mpn_mul(tmp, wl, (mp_size_t)wn, pc, (mp_size_t)pn);
                    else
                        mpn_mul(tmp, pc, (mp_size_t)pn, wl, (mp_size_t)wn);
                    while (tn && !tmp[tn - 1])
                        tn--;
                    mp_limb_t *dst = acc.l + (sh + j) * wa;
                    if (tn > wa || mpn_add(dst, dst, (mp_size_t)wa, tmp, (mp_size_t)tn)) {
                        st = alea__broken(ctx, at->start, at->end, "a kept sum past its bound");
                        break;
                    }
                }
                if (st == ALEA_OK)
                    st = alea__progress(ctx, (double)(to - from + 1) * KEEP_COEF_UNITS, at->start,
                                        at->end);
            }
            if (st != ALEA_OK)
                break;
            /* C_t gains n_t x^g_t: P_a += C(a, b) n_t^(a - b) x^((a - b) g_t) P_b,
             * a from the top (the P_b, b < a, still C_t's) */
            for (size_t a = nK; a-- > 1 && st == ALEA_OK;) {
                mpz_set_ui(C, 1); /* C(a, b) */
                for (size_t b = 0; b < a; b++) {
                    if (b == 0 || any) {
                        size_t from = b * lo, len = b ? b * width + 1 : 1;
                        mpz_pow_ui(sc, e, (unsigned long)(a - b));
                        mpz_mul(sc, sc, C);
                        size_t off = (from + (a - b) * gt) * wp;
                        int ok = b ? lim_addmul(P[a].l + off, P[a].cap - off, P[b].l + from * wp,
                                                len * wp, sc)
                                   : lim_addmul(P[a].l + off, P[a].cap - off, &one, 1, sc);
                        if (!ok) {
                            st = alea__broken(ctx, at->start, at->end,
                                              "a power of the dice beyond past its bound");
                            break;
                        }
                        st = alea__progress(ctx, (double)(len * wp * mpz_size(sc)) /
                                                     KEEP_LIMBS_PER_UNIT,
                                            at->start, at->end);
                        if (st != ALEA_OK)
                            break;
                    }
                    mpz_mul_ui(C, C, (unsigned long)(a - b));
                    mpz_divexact_ui(C, C, (unsigned long)(b + 1));
                }
            }
        next:
            glo = any && glo < (int64_t)gt ? glo : (int64_t)gt;
            ghi = any && ghi > (int64_t)gt ? ghi : (int64_t)gt;
            if (u + 1 < F)
                mpz_sub(s, s, n[KIDX(u + 1)]);
        }
    }
    if (st != ALEA_OK)
        goto done;
    /* the sum's coefficients as integers, over D^m */
    if (!(c = new_ints(ctx, lenA))) {
        st = alea__nomem(ctx);
        goto done;
    }
    for (size_t nc = 0; nc < lenA; nc++) {
        const mp_limb_t *src = acc.l + nc * wa;
        size_t k = wa;
        while (k && !src[k - 1])
            k--;
        if (k) {
            mp_limb_t *d = mpz_limbs_write(c[nc], (mp_size_t)k);
            memcpy(d, src, k * sizeof *d);
            mpz_limbs_finish(c[nc], (mp_size_t)k);
        }
    }
    /* give the packed limbs back before the fractions are made */
    alea__mem_free(ctx, acc.l, acc.cap * sizeof(mp_limb_t));
    acc.l = NULL;
    mpz_pow_ui(D, D, (unsigned long)m);
    st = alea__frac_from_ints(ctx, c, lenA, D, smin, at, out);
done:
    free_ints(ctx, c, lenA);
    free_ints(ctx, n, F);
    free_ints(ctx, W, nK);
    if (P) {
        for (size_t a = 1; a < np; a++)
            if (P[a].l)
                alea__mem_free(ctx, P[a].l, P[a].cap * sizeof(mp_limb_t));
        alea__mem_free(ctx, P, np * sizeof *P);
    }
    if (acc.l)
        alea__mem_free(ctx, acc.l, acc.cap * sizeof(mp_limb_t));
    if (tmp)
        alea__mem_free(ctx, tmp, tmp_cap * sizeof(mp_limb_t));
    mpz_clear(D);
    mpz_clear(s);
    mpz_clear(e);
    mpz_clear(es);
    mpz_clear(T);
    mpz_clear(U);
    mpz_clear(C);
    mpz_clear(sc);
    return st;
}
