/*
 * frac_text.c -- the finished distribution in fractions (the fraction
 * module, module.h): the check of a result, its mean, variance and
 * truncated mass, the nearest doubles, each probability at any decimal
 * exponent (MPFR), and its fractions written as text (one fraction, the
 * CSV table).
 */
#include "module.h"
#include "../dist.h"
#include "../out.h"

#include <float.h>
#include <math.h>
#include <string.h>

#ifndef ALEA_MINI_GMP
#include <mpfr.h>
#endif

/* ---- printing ----------------------------------------------------------------- */

void alea__frac_release(alea_ctx *ctx)
{
    (void)ctx;
    /* MPFR keeps the constants its logarithms use in a cache of the calling
     * thread; an exact evaluation gives them back when it ends, so that
     * nothing it allocated outlives it but its result. */
    mpfr_free_cache();
}

/* floor(log10 x) for x = m 2^e2, m in [0.5, 1), from doubles: *f, and 1
 * when it is sure (the estimate is off by less than 1e-16 a bit of e2,
 * so it is unless it lands that near an integer), else 0 and *f the
 * nearest integer. */
static int log10_floor_est(double m, long e2, long *f)
{
    double est = log10(m) + (double)e2 * 0.30102999566398119521;
    double tol = 1e-7 + fabs((double)e2) * 1e-14, fl = floor(est);
    if (est - fl > tol && fl + 1 - est > tol) {
        *f = (long)fl;
        return 1;
    }
    *f = (long)floor(est + 0.5);
    return 0;
}

/* The number of decimal digits of |z| without writing them: from its bits,
 * and near a power of ten by a comparison with it. */
static size_t z_digits(const mpz_t z)
{
    if (mpz_cmpabs_ui(z, 1000000000) < 0) {
        unsigned long v = mpz_get_ui(z);
        size_t k = 1;
        while (v >= 10) {
            v /= 10;
            k++;
        }
        return k;
    }
    long e2, f;
    double m = mpz_get_d_2exp(&e2, z);
    if (log10_floor_est(fabs(m), e2, &f))
        return (size_t)f + 1;
    mpz_t t;
    mpz_init(t);
    mpz_ui_pow_ui(t, 10, (unsigned long)f);
    size_t k = (size_t)f + (mpz_cmpabs(z, t) >= 0);
    mpz_clear(t);
    return k;
}

/* The digits of z, into the output's buffer itself when they fit (a
 * distribution of 200d20 prints 7,602 numbers of 260 digits); else through
 * a string of their own, for their length. A number of more than a limb
 * whose digits the buffer holds already (a denominator, mostly: o->zc, by
 * its top limb and size) is copied from there; `kept`: z is the
 * distribution's own, which outlives the output (never a temporary). */
static void print_z(alea__out *o, const mpz_t z, int kept)
{
    if (!o->md && o->len + 1 >= o->cap) {
        /* no digit would be written (a caller measuring the length first,
         * as the CLI does for every fraction): counted, not converted */
        o->len += z_digits(z) + (mpz_sgn(z) < 0);
        return;
    }
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

void alea__frac_print(alea__out *o, const alea__q *q)
{
    frac_print(o, q, 0);
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
                mpz_mul_si(f, f, m->v[i]); /* a long of 64 bits (mini.h: also on wasm32) */
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

double alea__frac_nearest(const alea__q *q)
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

/* Above this a double holds a probability's 12 digits (alea__sci_of). */
#define SCI_NORMAL 1e-290

/* The powers 10^-e to_sci() scales by, kept by e: the three numbers of an
 * outcome and those of its neighbours mostly share their exponents; `slow`
 * counts the work of the powers made and the logarithms taken, charged as
 * it goes (they cost more than a whole conversion otherwise). */
#define POW10_SLOTS 8
typedef struct pow10_cache {
    mpfr_t t[POW10_SLOTS];
    long e[POW10_SLOTS];
    int set[POW10_SLOTS];
    double slow;
} pow10_cache;

/* Work of a conversion of a number to sci form (a 96-bit division, two
 * roundings, a logarithm of a double, a 96-bit product), of a power of ten
 * at 96 bits (mpfr_pow_si: 0.8 us here) and of a 96-bit logarithm (MPFR's
 * AGM: 17 us), in units of about 2 ns. */
#define SCI_CONV_WORK 64
#define SCI_POW_WORK 400
#define SCI_LOG_WORK 8192

static void p10_init(pow10_cache *c)
{
    for (int i = 0; i < POW10_SLOTS; i++) {
        mpfr_init2(c->t[i], 96);
        c->set[i] = 0;
    }
    c->slow = 0;
}

static void p10_clear(pow10_cache *c)
{
    for (int i = 0; i < POW10_SLOTS; i++)
        mpfr_clear(c->t[i]);
}

static mpfr_srcptr p10_get(pow10_cache *c, long e)
{
    int i = (int)((unsigned long)e % POW10_SLOTS);
    if (!c->set[i] || c->e[i] != e) {
        mpfr_set_si(c->t[i], 10, MPFR_RNDN);
        mpfr_pow_si(c->t[i], c->t[i], -e, MPFR_RNDN);
        c->e[i] = e;
        c->set[i] = 1;
        c->slow += SCI_POW_WORK;
    }
    return c->t[i];
}

/* floor(log10 r), r > 0: from r's binary exponent and leading bits in
 * doubles (log10_floor_est); when that is not sure, from the 96-bit
 * logarithm (MPFR's, an AGM of 17 us: most of the time of a distribution
 * of tiny probabilities when it was taken for every number). */
static long floor_log10(mpfr_srcptr r, mpfr_t t, double *slow)
{
    long e2, f;
    double m = mpfr_get_d_2exp(&e2, r, MPFR_RNDN);
    if (log10_floor_est(m, e2, &f))
        return f;
    *slow += SCI_LOG_WORK;
#ifdef ALEA_MINI_GMP
    (void)t;
    return alea__mini_floor_log10(r, f);
#else
    mpfr_log10(t, r, MPFR_RNDN);
    mpfr_floor(t, t);
    return mpfr_get_si(t, MPFR_RNDN);
#endif
}

/* num / den as mantissa * 10^e with more than 12 significant digits (mpfr
 * at 96 bits, whose exponent reaches far below a double's); den already
 * rounded to 96 bits. */
static alea__sci to_sci(const mpz_t num, const mpfr_t den, mpfr_t r, mpfr_t t, pow10_cache *pc)
{
    if (mpz_sgn(num) == 0)
        return (alea__sci){0, 0, 0};
    mpfr_set_z(r, num, MPFR_RNDN);
    mpfr_div(r, r, den, MPFR_RNDN);
    double d = mpfr_get_d(r, MPFR_RNDN);
    if (d >= SCI_NORMAL)
        return alea__sci_of(d);
    /* below: the power of ten from the wide value */
    long e = floor_log10(r, t, &pc->slow);
    mpfr_mul(r, r, p10_get(pc, e), MPFR_RNDN);
    /* positive, as nearest_prob() */
    return alea__sci_norm(d > 0 ? d : DBL_TRUE_MIN, mpfr_get_d(r, MPFR_RNDN), e);
}

alea_status alea__frac_sci(alea_ctx *ctx, alea_dist *d)
{
    const alea__pmf *m = &d->pmf;
    size_t n = m->n, bytes = alea__mul_size(n ? n : 1, 3 * sizeof(alea__sci));
    /* Over one denominator L: an outcome's numerator (a product and an
     * exact division), two integer sums and three conversions; the powers
     * of ten and logarithms below the double range as they are made. */
    mpz_t L, num, below, mass, x;
    mpz_init(L);
    common_den(m, L);
    double limbs = (double)z_limbs(L) + 2;
    alea_status st = alea__charge(ctx, (int64_t)((16 * limbs + 3 * SCI_CONV_WORK) * (double)n), 0, 0);
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
    pow10_cache pc;
    p10_init(&pc);
    quot_cache qc;
    qc_init(&qc);
    for (size_t i = 0; i < n; i++)
        mpz_addmul(mass, qc_get(&qc, L, mpq_denref(&m->q[i])), mpq_numref(&m->q[i]));
    for (size_t i = 0; i < n && st == ALEA_OK; i++) {
        /* charged above: done as it goes */
        st = alea__progress(ctx, 16 * limbs + 3 * SCI_CONV_WORK, 0, 0);
        if (st == ALEA_OK && pc.slow > 0) {
            st = alea__charge(ctx, (int64_t)pc.slow, 0, 0);
            pc.slow = 0;
        }
        if (st != ALEA_OK)
            break;
        mpz_mul(num, qc_get(&qc, L, mpq_denref(&m->q[i])), mpq_numref(&m->q[i]));
        /* the probability's nearest double is there already (alea__frac_dist) */
        sci[3 * i] = m->p[i] >= SCI_NORMAL ? alea__sci_of(m->p[i]) : to_sci(num, lf, r, t, &pc);
        mpz_sub(x, mass, below); /* at least */
        sci[3 * i + 1] = to_sci(x, lf, r, t, &pc);
        mpz_add(below, below, num);
        sci[3 * i + 2] = to_sci(below, lf, r, t, &pc);
    }
    if (st == ALEA_OK && pc.slow > 0)
        st = alea__charge(ctx, (int64_t)pc.slow, 0, 0);
    mpfr_clear(lf);
    p10_clear(&pc);
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

/* The CSV's cells (alea__out_csv_rows): each probability, and the
 * cumulative columns, at most summed from the bottom and at least the
 * mass less the at most before it (exact, so no cancellation to fear). */

/* By fractions: a gcd of long numbers per addition (a denominator with a
 * large prime). */
typedef struct csv_fracs {
    const alea__pmf *m;
    mpq_t most, least, mass;
} csv_fracs;

static void csv_frac_cells(void *ud, size_t i, alea__out *o)
{
    csv_fracs *c = ud;
    mpq_sub(c->least, c->mass, c->most);
    mpq_add(c->most, c->most, &c->m->q[i]);
    frac_print(o, &c->m->q[i], 1);
    alea__out_char(o, ',');
    frac_print(o, c->least, 0);
    alea__out_char(o, ',');
    frac_print(o, c->most, 0);
}

static void csv_by_fractions(const alea__pmf *m, alea__out *o)
{
    csv_fracs c = {.m = m};
    mpq_init(c.most);
    mpq_init(c.least);
    mpq_init(c.mass);
    for (size_t i = 0; i < m->n; i++)
        mpq_add(c.mass, c.mass, &m->q[i]);
    alea__out_csv_rows(o, m->v, m->n, csv_frac_cells, &c);
    mpq_clear(c.most);
    mpq_clear(c.least);
    mpq_clear(c.mass);
}

/* Over the common denominator L when its primes (ps^es, np of them) are
 * small (dice): integer additions, and each sum's lowest terms by dividing
 * out L's primes, where adding fractions takes gcds of long numbers (the
 * CSV of 500d10 spent 40% of its time in them). */
typedef struct csv_ints {
    const alea__pmf *m;
    mpz_t L, c, t, pz, g, most, mass;
    unsigned long ps[SMOOTH_PRIMES], es[SMOOTH_PRIMES];
    int np;
    quot_cache qc;
    mpq_t r;
} csv_ints;

static void csv_int_cells(void *ud, size_t i, alea__out *o)
{
    csv_ints *s = ud;
    const alea__pmf *m = s->m;
    frac_print(o, &m->q[i], 1);
    alea__out_char(o, ',');
    mpz_sub(s->c, s->mass, s->most);
    alea__frac_reduce_smooth(s->r, s->c, s->L, s->ps, s->es, s->np, s->pz, s->g, &s->qc);
    frac_print(o, s->r, 0);
    alea__out_char(o, ',');
    mpz_divexact(s->t, s->L, mpq_denref(&m->q[i]));
    mpz_addmul(s->most, s->t, mpq_numref(&m->q[i]));
    mpz_set(s->c, s->most);
    alea__frac_reduce_smooth(s->r, s->c, s->L, s->ps, s->es, s->np, s->pz, s->g, &s->qc);
    frac_print(o, s->r, 0);
}

void alea__frac_csv(const alea_dist *d, alea__out *o)
{
    const alea__pmf *m = &d->pmf;
    alea__out_str(o, "value,probability,at_least,at_most\n");
    csv_ints s;
    s.m = m;
    mpz_init(s.L);
    common_den(m, s.L);
    double work;
    s.np = m->n ? alea__frac_smooth(s.L, s.ps, s.es, &work) : -1;
    if (s.np < 0) {
        mpz_clear(s.L);
        csv_by_fractions(m, o);
        return;
    }
    mpz_init(s.c);
    mpz_init(s.t);
    mpz_init(s.pz);
    mpz_init(s.g);
    mpz_init(s.most);
    mpz_init(s.mass);
    for (size_t i = 0; i < m->n; i++) {
        mpz_divexact(s.t, s.L, mpq_denref(&m->q[i]));
        mpz_addmul(s.mass, s.t, mpq_numref(&m->q[i]));
    }
    qc_init(&s.qc);
    mpq_init(s.r);
    alea__out_csv_rows(o, m->v, m->n, csv_int_cells, &s);
    mpq_clear(s.r);
    qc_clear(&s.qc);
    mpz_clear(s.L);
    mpz_clear(s.c);
    mpz_clear(s.t);
    mpz_clear(s.pz);
    mpz_clear(s.g);
    mpz_clear(s.most);
    mpz_clear(s.mass);
}
