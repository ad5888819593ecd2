/*
 * keep.c -- keep and drop on a pool of iid dice (keep.h), without
 * enumerating rolls: the choice of method and the cases with no walk (one
 * possible sum, every die kept, contributions on a lattice), the threshold
 * method (a threshold per outcome, for the highest or the lowest dice), and
 * dice whose explosion chains were cut at the tail bound. The walk over
 * the die's outcomes and "ra" are in keep_walk.c.
 */
#include <math.h>

#include "keep.h"
#include "pmf.h"

/* What one die contributes, [*gmin, *gmax] (its g, or its face when g is
 * NULL), and the sums K kept dice can make, [*smin, *smax]. */
alea_status alea__keep_range(alea_ctx *ctx, const alea__pmf *die, const int64_t *g, int64_t K,
                             const node *at, int64_t *gmin, int64_t *gmax, int64_t *smin,
                             int64_t *smax)
{
    int64_t lo = g ? g[0] : die->v[0], hi = lo; /* locals: no store per outcome */
    for (size_t i = 0; i < die->n; i++) {
        int64_t x = g ? g[i] : die->v[i];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    *gmin = lo;
    *gmax = hi;
    if (alea__mul_ovf(K, lo, smin) || alea__mul_ovf(K, hi, smax))
        return alea__overflow_error(ctx, at);
    return ALEA_OK;
}

/* P(none of m dice was cut), a die with cut explosion tails having mass
 * 1 - trunc: in doubles from the tracked truncation (the mass itself
 * carries rounding that the power would amplify); in fractions the die's
 * own mass to the m, whenever it is not exactly 1 (a die's double mass can
 * round to 1 when it was cut, and a part of a die has no truncation). */
static alea_status uncut(alea_ctx *ctx, const alea__pmf *die, int64_t m, const node *at,
                         alea__x *x)
{
    alea_status st;
    alea__x mass;
    alea__x_init(ctx, x);
    if (!ctx->exact)
        return die->trunc > 0 ? alea__x_mul(ctx, x, ALEA__W(exp((double)m * log1p(-die->trunc))),
                                            at)
                              : ALEA_OK;
    alea__x_init(ctx, &mass);
    st = alea__x_mul(ctx, &mass, ALEA__W(-1), at); /* the mass short of 1 */
    for (size_t i = 0; i < die->n && st == ALEA_OK; i++)
        st = alea__x_addmul(ctx, &mass, alea__pmf_w(die, i), ALEA__W(1), at);
    if (st == ALEA_OK && !alea__x_is_zero(ctx, &mass) &&
        (st = alea__x_addmul(ctx, &mass, ALEA__W(1), ALEA__W(1), at)) == ALEA_OK)
        st = alea__x_pow(ctx, x, alea__x_w(&mass), (uint64_t)m, at);
    alea__x_free(ctx, &mass);
    return st;
}

/* d (normalised: the chance of its outcomes given that no die was cut)
 * times P(none of m dice of die was cut) (uncut); d is freed on error. */
alea_status alea__keep_scale_uncut(alea_ctx *ctx, const alea__pmf *die, int64_t m,
                                   const node *at, alea__pmf *d)
{
    alea__x sc;
    alea__pmf r = {0};
    alea_status st = ALEA_OK;
    if (!ctx->exact && die->trunc <= 0)
        return ALEA_OK;
    if ((st = uncut(ctx, die, m, at, &sc)) == ALEA_OK &&
        (st = alea__pmf_add_scaled(ctx, &r, d, alea__x_w(&sc), at)) == ALEA_OK) {
        r.trunc = d->trunc;
        alea__pmf_free(ctx, d);
        *d = r;
    }
    alea__x_free(ctx, &sc);
    if (st != ALEA_OK)
        alea__pmf_free(ctx, d);
    return st;
}

/* alea__keep with contributions gmin + step * k: computed on the
 * indices k, each sum s mapped back to K * gmin + step * s. That value lies
 * between K * gmin and K * gmax, which the caller checked for overflow, so
 * unsigned (wrapping) arithmetic gives it exactly. */
static alea_status keep_on_lattice(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                   int64_t gmin, uint64_t step, int64_t m, int64_t lo,
                                   int64_t hi, const node *at, alea__pmf *out)
{
    size_t n = die->n;
    int64_t *k = alea__mem_alloc(ctx, alea__mul_size(n, sizeof *k));
    if (!k)
        return alea__nomem(ctx);
    for (size_t i = 0; i < n; i++)
        k[i] = (int64_t)(((uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gmin) / step);
    alea_status st = alea__keep_uncut(ctx, die, k, m, lo, hi, at, out);
    alea__mem_free(ctx, k, n * sizeof *k);
    if (st != ALEA_OK)
        return st;
    uint64_t base = (uint64_t)(hi - lo) * (uint64_t)gmin;
    for (size_t i = 0; i < out->n; i++)
        out->v[i] = (int64_t)(base + step * (uint64_t)out->v[i]);
    return ALEA_OK;
}

/* ---- keep the highest or the lowest: a threshold per outcome ------------------ */

/*
 * When the K kept dice are the highest (mirrored: the lowest), condition on
 * t, the outcome of the lowest kept die. Some a < K dice are beyond t, all
 * kept; of the other m - a, at least K - a show t (K - a of them kept) and
 * the rest are short of t. So the kept sum is
 *   sum over t of  x^(K g_t) sum over a < K of W_t(a) B_t^a,
 * W_t(a) = P(a dice beyond t, at least K - a at t), B_t the die beyond t
 * given that it is, its values g - g_t (the (K - a) g_t of the kept dice
 * at t split as K g_t - a g_t). The inner sum is a polynomial in B_t,
 * evaluated by Horner's rule (alea__pmf_polyval): K products by B_t.
 * Cost: about outcomes^2 (K^2 / 2) (range of the values) / 3 multiply-adds,
 * independent of m: 100d6kh50 needs 0.07 million where the walk (keep_walk.c)
 * needs 3 million; the walk stays the cheaper for many outcomes and small K.
 * alea__pmf_keep_weights (pmf_w.c) gives W_t(a) in doubles. In fractions
 * the whole sum is one call (alea__pmf_keep_sum: fractions/frac_keep.c),
 * in integers over one denominator: its powers of B_t follow from t to t
 * by the binomial theorem, and its fractions are reduced once at the end
 * (5d10!kh3 took 15 ms with a reduced product and sum at every t, 1.7 ms so).
 */

static alea_status keep_threshold(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                  int64_t m, int64_t K, int high, int64_t smin, int64_t smax,
                                  double scale, const node *at, alea__pmf *out)
{
    alea_status st;
    size_t F = die->n, nK = (size_t)K;
    alea__acc fin;
    alea__pmf B = {0}, W = {0}, R = {0};
    if (ctx->exact) /* in integers over one denominator, reduced once */
        return alea__pmf_keep_sum(ctx, die, g, high, m, K, smin, 0, at, out);
    /* binomial rows: K terms for each a < K, at each outcome; and at each
     * outcome the faces beyond it copied */
    double rows = (double)F * ((double)K * (double)K / 2 * 8 + (double)F);
    if ((st = alea__work_check(ctx, rows, at)) != ALEA_OK)
        return st;
    if ((st = alea__acc_init(&fin, ctx, at, smin, smax, (double)F * (double)K * (double)F)) !=
        ALEA_OK)
        goto done;
    for (size_t t = 0; t < F; t++) {
        size_t nb = high ? F - 1 - t : t, k = 0;
        int64_t gt = g ? g[t] : die->v[t];
        if ((st = alea__charge(ctx, (int64_t)((double)F + (double)(nK * (nK + 1) / 2 * 8)),
                               at->start, at->end)) != ALEA_OK ||
            (st = alea__pmf_alloc(ctx, nb, &B)) != ALEA_OK ||
            (st = alea__pmf_alloc(ctx, nK, &W)) != ALEA_OK)
            goto done;
        for (size_t i = high ? t + 1 : 0; i < (high ? F : t); i++) {
            alea__pmf_take(ctx, &B, k, die, i);
            /* g - g_t: the caller checked that the range of g fits */
            B.v[k++] = (int64_t)((uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gt);
        }
        if ((st = alea__pmf_keep_weights(ctx, die, t, high, m, K, scale, at, &B, &W)) !=
                ALEA_OK ||
            (st = alea__pmf_polyval(ctx, &B, &W, at, &R)) != ALEA_OK ||
            (st = alea__acc_add_pmf(&fin, &R, (int64_t)((uint64_t)K * (uint64_t)gt),
                                    ALEA__W(1))) != ALEA_OK)
            goto done;
        alea__pmf_free(ctx, &B);
        alea__pmf_free(ctx, &W);
        alea__pmf_free(ctx, &R);
    }
    st = alea__acc_finish(&fin, out);
done:
    alea__acc_free(&fin);
    alea__pmf_free(ctx, &B);
    alea__pmf_free(ctx, &W);
    alea__pmf_free(ctx, &R);
    return st;
}

alea_status alea__keep_threshold(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                 int64_t m, int64_t lo, int64_t hi, const node *at,
                                 alea__pmf *out)
{
    int64_t gmin, gmax, smin, smax, span;
    alea_status st = alea__keep_range(ctx, die, g, hi - lo, at, &gmin, &gmax, &smin, &smax);
    if (st != ALEA_OK)
        return st;
    if ((lo != 0 && hi != m) || lo >= hi || die->n == 0 || gmin == INT64_MIN ||
        alea__add_ovf(gmax, -gmin, &span))
        return alea__error(ctx, ALEA_ERR_ARGUMENT, at->start, at->end,
                           "the threshold method keeps the highest or the lowest dice");
    double scale = die->trunc > 0 ? exp((double)m * log1p(-die->trunc)) : 1.0;
    st = keep_threshold(ctx, die, g, m, hi - lo, hi == m, smin, smax, scale, at, out);
    if (st == ALEA_OK)
        out->trunc = alea__trunc_pow(die->trunc, m);
    return st;
}

/* Whether the threshold method is the cheaper; in exact mode always taken
 * where it applies (the walk's rows in fractions carry every die left, the
 * threshold's polynomials only the kept ones). */
static int use_threshold(const alea_ctx *ctx, int64_t F, int64_t K, int64_t phi, int64_t gmin,
                         int64_t gmax)
{
    int64_t span;
    if (alea__add_ovf(gmax, -gmin, &span) || gmin == INT64_MIN)
        return 0; /* values too far apart for g - g_t */
    if (ctx->exact)
        return 1;
    double f = (double)F, k = (double)K, r = (double)span + 1, p = (double)phi;
    double thr = k * k / 2 * r * f * f / 3 + f * k * k * 4;
    double walk = f * p * p / 2 * (k * r / 2 + 1);
    return thr < walk;
}

/* The cases of alea__keep_uncut with no walk (*done set): one possible sum,
 * every die kept, contributions on a lattice. [gmin, gmax]: what one die
 * contributes; smin: the least kept sum; trunc: the result's truncation. */
static alea_status keep_shortcut(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                                 int64_t m, int64_t lo, int64_t hi, int64_t gmin,
                                 int64_t gmax, int64_t smin, double trunc, const node *at,
                                 alea__pmf *out, int *done)
{
    alea_status st;
    int64_t K = hi - lo;
    *done = 1;
    if (K == 0 || gmin == gmax) { /* one possible sum: P(no die was cut) */
        alea__x sc;
        if ((st = uncut(ctx, die, m, at, &sc)) == ALEA_OK &&
            (st = alea__pmf_point(ctx, smin, alea__x_w(&sc), out)) == ALEA_OK)
            out->trunc = trunc;
        alea__x_free(ctx, &sc);
        return st;
    }
    if (lo == 0 && hi == m) { /* everything kept: a plain sum */
        alea__pmf mapped;
        if (!g)
            return alea__pmf_pow(ctx, die, m, at, out);
        if ((st = alea__pmf_remap(ctx, die, g, at, &mapped)) != ALEA_OK)
            return st;
        st = alea__pmf_pow(ctx, &mapped, m, at, out);
        alea__pmf_free(ctx, &mapped);
        return st;
    }
    /* Contributions on a lattice gmin + step * k (d{0,100}!, every multiple
     * of 2^49) walk the lattice's indices k instead: the programme's dense
     * arrays shrink by the step, and the sums are mapped back at the end. */
    uint64_t step = 0;
    for (size_t i = 0; i < die->n && step != 1; i++)
        step = alea__gcd(step, (uint64_t)(g ? g[i] : die->v[i]) - (uint64_t)gmin);
    if (step > 1)
        return keep_on_lattice(ctx, die, g, gmin, step, m, lo, hi, at, out);
    *done = 0;
    return ALEA_OK;
}

alea_status alea__keep_uncut(alea_ctx *ctx, const alea__pmf *die, const int64_t *g, int64_t m,
                             int64_t lo, int64_t hi, const node *at, alea__pmf *out)
{
    alea_status st;
    int64_t K = hi - lo;
    double trunc = alea__trunc_pow(die->trunc, m);

    if (die->n == 0) {
        if ((st = alea__pmf_alloc(ctx, 0, out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    int64_t gmin, gmax, smin, smax;
    int done = 0;
    if ((st = alea__keep_range(ctx, die, g, K, at, &gmin, &gmax, &smin, &smax)) != ALEA_OK ||
        (st = keep_shortcut(ctx, die, g, m, lo, hi, gmin, gmax, smin, trunc, at, out,
                            &done)) != ALEA_OK ||
        done)
        return st;

    /* Any multiset of K outcomes can be the kept dice, so the sums number at
     * least K * (F - 1) + 1 when the contributions are distinct. */
    int64_t F = (int64_t)die->n;
    if (!g && (double)K * (double)(F - 1) + 1 > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__support_error(ctx, at);

    /* The walk fills the kept range from the nearer end (alea__keep_walk):
     * phi positions. */
    int64_t phi = hi <= m - lo ? hi : m - lo;
    if ((lo == 0 || hi == m) && use_threshold(ctx, F, K, phi, gmin, gmax))
        return alea__keep_threshold(ctx, die, g, m, lo, hi, at, out);
    if ((st = alea__keep_walk(ctx, die, g, m, lo, hi, smin, smax, at, out)) != ALEA_OK)
        return st;
    out->trunc = trunc;
    return alea__keep_scale_uncut(ctx, die, m, at, out);
}

/* The mass cut from a die by its explosion tails, as a weight (exact in
 * fractions: 1 minus the die's mass; in doubles the tracked truncation);
 * *cut is 0 when none was cut. A die none of whose chains was cut tracks
 * no truncation: its fractions are not summed. */
static alea_status cut_mass(alea_ctx *ctx, const alea__pmf *die, const node *at, alea__x *t,
                            int *cut)
{
    alea__x_init(ctx, t);
    if (!ctx->exact || die->trunc <= 0) {
        *cut = die->trunc > 0;
        t->d = die->trunc;
        return ALEA_OK;
    }
    alea_status st = ALEA_OK;
    for (size_t i = 0; i < die->n && st == ALEA_OK; i++) /* t = 1 - the die's mass */
        st = alea__x_addmul(ctx, t, alea__pmf_w(die, i), ALEA__W(-1), at);
    *cut = st == ALEA_OK && !alea__x_is_zero(ctx, t);
    return st;
}

/* Rolls in which more than this weight's share of the dice (relative to
 * 1) was cut are left to the truncated mass in doubles, where adding them
 * could not change a digit; exact mode adds every one. */
#define CUT_NEGLIGIBLE 1e-20
/* Work units of one count of cut dice beyond its keep: a binomial weight
 * and a scaled addition. */
#define CUT_STEP_COST 64

/* Terms of a binomial tail summed before the rest is bounded (below), and
 * the work units of one (logarithms and an exponential). */
#define TAIL_TERMS 4096
#define TAIL_TERM_COST 64

/*
 * *p = P(Binomial(m, t) >= j), in doubles. Below the mode (j <= (m + 1) t)
 * it is 1 less the j terms under j (alea__keep paid for j steps before);
 * above, the terms fall, and are summed while they count, at most
 * TAIL_TERMS of them, the rest bounded by a geometric series of the last
 * ratio (the ratios only fall): a pool of 4 * 10^17 dice whose mode is
 * 10^7 cut dice must not walk to it one term at a time.
 */
static alea_status binom_upper(alea_ctx *ctx, int64_t m, int64_t j, double t, const node *at,
                               double *p)
{
    *p = 0;
    if (j > m)
        return ALEA_OK;
    double mode = ((double)m + 1) * t;
    if ((double)j <= mode) {
        alea_status st = alea__charge(ctx, j * TAIL_TERM_COST, at->start, at->end);
        double lower = 0;
        for (int64_t i = 0; i < j && st == ALEA_OK; i++)
            lower += alea__binom_pmf(m, i, t, 1 - t);
        *p = lower < 1 ? 1 - lower : 0;
        return st;
    }
    alea_status st = alea__charge(ctx, TAIL_TERMS * TAIL_TERM_COST, at->start, at->end);
    if (st != ALEA_OK)
        return st;
    double tr = 0, b = 0;
    int64_t i = j;
    for (int64_t n = 0; i <= m && n < TAIL_TERMS; i++, n++) {
        b = alea__binom_pmf(m, i, t, 1 - t);
        tr += b;
        if (b <= tr * 1e-17)
            return *p = tr, ALEA_OK;
    }
    if (i <= m) { /* b(i) = b(i - 1) r, r = (m - i + 1) t / (i (1 - t)), and smaller after */
        double r = (double)(m - i + 1) * t / ((double)i * (1 - t));
        tr += r < 1 ? b * r / (1 - r) : 1;
    }
    *p = tr < 1 ? tr : 1;
    return ALEA_OK;
}

/* Pools whose likeliest count of dice beyond the cut bound passes this
 * are left to the truncated mass in doubles: each count up to it costs a
 * keep. The count only falls as the tail bound tightens (the outcomes up
 * to the bound gain mass), so a tighter bound never lists less. */
#define CUT_MODE_MAX 4096

/*
 * A die whose explosion chains were cut at the tail bound: a cut chain's
 * value is unknown, so a roll with a cut die is listed only where its kept
 * sum does not depend on it. With nothing kept the sum is 0. Otherwise
 * take L, the die's outcomes at or below die->cut_low, a bound below every
 * cut chain (exact_die.c proves one where it holds: "1d6!", whose extra rolls
 * add at least 1, is cut above all it lists; "1dF!0" cut at -1 or above).
 * The cut dice sort above the dice in L, so when at least hi of the other
 * dice lie in L, the kept range [lo, hi) is the lowest of those and the
 * sum is known. So the result sums the rolls with no cut die (alea__keep_uncut
 * of m dice) and, for each j = 1 .. m - hi, the rolls with j dice beyond L
 * of which at least one was cut: C(m, j) ((1 - P(L))^j - P(beyond L, not
 * cut)^j) times the kept range of m - j dice in L. Keeping the lowest of
 * exploding dice ("3d6!!kl2") so gives each listed outcome its whole
 * probability; the other rolls with a cut die are truncated.
 */
alea_status alea__keep(alea_ctx *ctx, const alea__pmf *die, const int64_t *g, int64_t m,
                       int64_t lo, int64_t hi, const node *at, alea__pmf *out)
{
    alea__x t, c, a, b, w, ph, rest;
    int cut = 0, skipped = 0;
    alea_status st = ALEA_OK;
    if (lo == hi && die->n > 0) /* nothing kept: 0, whatever the dice show */
        return alea__pmf_point(ctx, 0, ALEA__W(1), out);
    if (hi < m && die->n > 0)
        st = cut_mass(ctx, die, at, &t, &cut);
    else
        alea__x_init(ctx, &t);
    if (st != ALEA_OK || !cut) {
        alea__x_free(ctx, &t);
        return st == ALEA_OK ? alea__keep_uncut(ctx, die, g, m, lo, hi, at, out) : st;
    }
    /* L is a prefix of the outcomes (their values ascend), so g, indexed
     * by the die's outcomes, serves it too */
    size_t nl = 0;
    while (die->has_cut_low && nl < die->n && die->v[nl] <= die->cut_low)
        nl++;
    double pl = 0, pb = 0, td = die->trunc, listed = 0;
    for (size_t i = 0; i < die->n; i++)
        *(i < nl ? &pl : &pb) += die->p[i];
    double rd = pb + td, mode = ((double)m + 1) * rd; /* rd: beyond L or cut */
    int64_t most = nl == 0 || (!ctx->exact && mode > CUT_MODE_MAX) ? 0 : m - hi;

    alea__pmf sub = {0}, sum = {0}, part = {0};
    alea__x *xs[] = {&c, &a, &b, &w, &ph, &rest}; /* C(m, j), rest^j, ph^j, the weight */
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        alea__x_init(ctx, xs[i]);
    if ((st = alea__x_mul(ctx, &ph, ALEA__W(0), at)) != ALEA_OK ||
        (st = alea__x_mul(ctx, &rest, ALEA__W(0), at)) != ALEA_OK)
        goto done;
    if (most > 0) {
        /* L: in fractions as it is (alea__keep_uncut scales by P(L) to the dice),
         * in doubles normalised (the weights below carry it) */
        if ((st = alea__pmf_alloc(ctx, nl, &sub)) != ALEA_OK)
            goto done;
        for (size_t i = 0; i < nl; i++)
            alea__pmf_take(ctx, &sub, i, die, i);
        for (size_t i = 0; i < nl && !ctx->exact; i++)
            sub.p[i] /= pl;
        if ((st = alea__pmf_seal(ctx, &sub, at)) != ALEA_OK)
            goto done;
        sub.trunc = ctx->exact ? 1 - pl : 0;
        for (size_t i = nl; i < die->n && ctx->exact && st == ALEA_OK; i++)
            st = alea__x_addmul(ctx, &ph, alea__pmf_w(die, i), ALEA__W(1), at);
        if (st != ALEA_OK || (st = alea__x_addmul(ctx, &rest, alea__x_w(&ph), ALEA__W(1), at)) !=
                                 ALEA_OK ||
            (st = alea__x_addmul(ctx, &rest, alea__x_w(&t), ALEA__W(1), at)) != ALEA_OK)
            goto done;
    }
    if ((st = alea__keep_uncut(ctx, die, g, m, lo, hi, at, &sum)) != ALEA_OK)
        goto done;
    int64_t j = 1;
    for (; j <= most; j++) {
        /* a step costs its weight and a keep, which for one possible sum
         * charges nothing itself */
        if ((st = alea__charge(ctx, CUT_STEP_COST, at->start, at->end)) != ALEA_OK)
            break;
        /* in doubles: C(m, j) rd^j P(L)^(m - j) (1 - (pb / rd)^j) */
        double e = alea__binom_pmf(m, j, rd, pl) *
                   (pb > 0 ? -expm1((double)j * log1p(-td / rd)) : 1);
        if (ctx->exact) {
            alea__x_free(ctx, &w);
            alea__x_init(ctx, &w);
            if ((st = alea__x_ratio(ctx, &c, (uint64_t)(m - j + 1), (uint64_t)j, at)) != ALEA_OK ||
                (st = alea__x_mul(ctx, &a, alea__x_w(&rest), at)) != ALEA_OK ||
                (st = alea__x_mul(ctx, &b, alea__x_w(&ph), at)) != ALEA_OK ||
                (st = alea__x_mul(ctx, &w, alea__x_w(&a), at)) != ALEA_OK ||
                (st = alea__x_addmul(ctx, &w, alea__x_w(&b), ALEA__W(-1), at)) != ALEA_OK ||
                (st = alea__x_mul(ctx, &w, alea__x_w(&c), at)) != ALEA_OK)
                break;
        } else if (e < CUT_NEGLIGIBLE) {
            if ((double)j > mode) /* past the likeliest count: the rest is less */
                break;
            skipped = 1;
            continue;
        }
        if ((st = alea__keep_uncut(ctx, &sub, g, m - j, lo, hi, at, &part)) == ALEA_OK)
            st = alea__pmf_add_scaled(ctx, &sum, &part, ctx->exact ? alea__x_w(&w) : ALEA__W(e),
                                      at);
        alea__pmf_free(ctx, &part);
        if (st != ALEA_OK)
            break;
        listed += e;
    }
    if (st != ALEA_OK)
        goto done;
    /* truncated: the rolls with a cut die not listed (in exact mode the
     * fractions give it); with no outcome beyond L and none skipped, those
     * with j or more cut dice, j the first count left out */
    double tr = alea__trunc_pow(td, m) - listed;
    if (nl == die->n && !skipped && (st = binom_upper(ctx, m, j, td, at, &tr)) != ALEA_OK)
        goto done;
    sum.trunc = tr < 0 ? 0 : tr > 1 ? 1 : tr;
    *out = sum;
    sum.n = 0;
done:
    alea__pmf_free(ctx, &sub);
    alea__pmf_free(ctx, &sum);
    alea__pmf_free(ctx, &part);
    alea__x_free(ctx, &t);
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        alea__x_free(ctx, xs[i]);
    return st;
}
