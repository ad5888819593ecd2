/*
 * keep_ra.c -- "ra" (keep.h): reroll the lowest matching die of a pool,
 * then keep or drop. Above keep.c: a pool where no die matches is a plain
 * keep (alea__keep), and the pool given that no die was cut is scaled as
 * keep.c's walks are.
 */
#include <math.h>
#include <string.h>

#include "keep.h"
#include "pmf.h"

/*
 * After the m dice are rolled, the lowest die whose value matches is rolled
 * again (y, an independent die) and the new roll stands; then the keep range
 * applies to the new pool. Two parts:
 *   A. no die matches: the plain pool of the non-matching outcomes;
 *   B. some die matches: the walk from the bottom with two more bits of
 *      state, "the lowest match has been removed" (it is the first matching
 *      outcome any die takes) and "y has been placed" (y takes outcome x with
 *      probability rho, as one more die). A state counts the positions of the
 *      final pool; it collapses once the kept range is filled, weighted by
 *      the chance that a die still to come matches when none has yet.
 * Only the bottom-up walk knows which match is the lowest, so this costs
 * outcomes * 4 * hi * m at least; "ra" is meant for small pools (1d20ra1,
 * 2d20kh1ra1).
 */
typedef struct radp {
    alea_ctx *ctx;
    int64_t hi;
    int64_t m, lo, gmin, gmax; /* the walk's dice, kept range and contributions */
    alea__pmf *st;  /* st[f * hi + j]: f = removed | placed << 1 */
    alea__acc *acc; /* next states, initialised on first use */
    uint8_t *live;  /* acc[x] initialised */
    alea__acc fin;
    void *block; /* q, S, Snm, row, xs */
    size_t block_size;
    /* Exact mode: the die's masses at or beyond each outcome (sums), and
     * those of its other [0] and matching [1] outcomes (part), each in its
     * own order (psums); rows of binomial weights in fractions. */
    alea__pmf sums, part[2], psums[2], yrow, orow, frow;
    alea__x w, coll, fx; /* weights being computed */
} radp;

static void radp_free(radp *d)
{
    size_t n = 4 * (size_t)d->hi;
    if (d->st) {
        for (size_t i = 0; i < n; i++)
            alea__pmf_free(d->ctx, &d->st[i]);
        alea__mem_free(d->ctx, d->st, n * sizeof *d->st);
    }
    if (d->acc) {
        for (size_t i = 0; i < n; i++)
            alea__acc_free(&d->acc[i]);
        alea__mem_free(d->ctx, d->acc, n * sizeof *d->acc);
    }
    if (d->live)
        alea__mem_free(d->ctx, d->live, n);
    alea__acc_free(&d->fin);
    if (d->block)
        alea__mem_free(d->ctx, d->block, d->block_size);
    alea__pmf *pm[] = {&d->sums, &d->part[0], &d->part[1], &d->psums[0], &d->psums[1],
                       &d->yrow, &d->orow, &d->frow};
    for (size_t i = 0; i < sizeof pm / sizeof *pm; i++)
        alea__pmf_free(d->ctx, pm[i]);
    alea__x_free(d->ctx, &d->w);
    alea__x_free(d->ctx, &d->coll);
    alea__x_free(d->ctx, &d->fx);
}

/* The outcomes i of die with match[i] == want, with their probabilities
 * as they are (a sub-probability, possibly empty). */
static alea_status outcomes_where(alea_ctx *ctx, const alea__pmf *die, const uint8_t *match,
                                  int want, const node *at, alea__pmf *out)
{
    size_t n = 0;
    for (size_t i = 0; i < die->n; i++)
        n += !!match[i] == want;
    alea_status st = alea__pmf_alloc(ctx, n, out);
    if (st != ALEA_OK || n == 0)
        return st;
    n = 0;
    for (size_t i = 0; i < die->n; i++)
        if (!!match[i] == want)
            alea__pmf_take(ctx, out, n++, die, i);
    return alea__pmf_seal(ctx, out, at);
}

/* A row of weights over k = 0, 1, ...: in doubles the terms d[0 .. n) (a
 * term 0 is left out), in fractions the pmf r (its values are the k). */
typedef struct wrow {
    const double *d;
    size_t n;
    const alea__pmf *r;
} wrow;

static size_t wrow_len(const wrow *w)
{
    return w->r ? w->r->n : w->n;
}

/* Term u's k, or -1 for a term left out. */
static int64_t wrow_k(const wrow *w, size_t u)
{
    return w->r ? w->r->v[u] : w->d[u] > 0 ? (int64_t)u : -1;
}

static alea__w wrow_w(const wrow *w, size_t u)
{
    return w->r ? alea__pmf_w(w->r, u) : ALEA__W(w->d[u]);
}

/* The row of r dice at outcome i of the walk, each taking it with the
 * chance rho = P(i) / P(at or beyond i) (binomial terms for k < kmax, then
 * the chance of kmax or more): in doubles into row[0 .. kmax], in
 * fractions replacing *out. */
static alea_status ra_row(radp *d, const alea__pmf *die, size_t i, int64_t r, int64_t kmax,
                          const node *at, double *row, alea__pmf *out)
{
    const double *q = d->block, *S = q + die->n;
    int qs = d->sums.q != NULL;
    alea__w qt = {q[i], qs ? &die->q[i] : NULL}, St = {S[i], qs ? &d->sums.q[i] : NULL};
    alea__w St1 = {S[i + 1], qs && i + 1 < die->n ? &d->sums.q[i + 1] : NULL};
    return alea__pmf_binom_row(d->ctx, qt, St, St1, r, kmax, at, row, out);
}

/* d->fx = the chance that some of n dice above outcome i match (none has
 * yet); *some = 0 when it is 0. inm, imt: the first outcomes above i among
 * the others and the matching ones (in part's order); cnm: the chance,
 * in doubles, that a die above i does not match. */
static alea_status some_match(radp *d, size_t i, size_t inm, size_t imt, double cnm, int64_t n,
                              const node *at, int *some)
{
    alea_ctx *ctx = d->ctx;
    alea__x_free(ctx, &d->fx);
    alea__x_init(ctx, &d->fx);
    *some = n > 0 && (ctx->exact ? imt < d->part[1].n : cnm < 1);
    if (!*some)
        return ALEA_OK;
    if (!ctx->exact)
        return alea__x_mul(ctx, &d->fx, ALEA__W(-expm1((double)n * log(cnm))), at);
    if (inm >= d->part[0].n) /* every die above matches */
        return ALEA_OK;
    /* 1 - cnm^n: the tail of a row of one term, cnm = Snm / S above i */
    alea_status st = alea__pmf_binom_row(ctx, alea__pmf_w(&d->psums[1], imt),
                                         alea__pmf_w(&d->sums, i + 1),
                                         alea__pmf_w(&d->psums[0], inm), n, 1, at, NULL,
                                         &d->frow);
    if (st != ALEA_OK)
        return st;
    *some = d->frow.n > 0 && d->frow.v[d->frow.n - 1] == 1;
    return *some ? alea__x_mul(ctx, &d->fx, alea__pmf_w(&d->frow, d->frow.n - 1), at) : ALEA_OK;
}

/* The walk at outcome i of the die (value x): the chance that a die at or
 * beyond i takes it (rho) or not (rhoc), that a die above it does not match
 * (cnm); the rows of weights of y and of the original dice there. */
typedef struct ra_step {
    size_t i, inm, imt; /* outcomes above i: the first other, matching */
    int64_t x;
    double rho, rhoc, cnm;
    double *row; /* doubles: the original dice's binomial row */
    wrow yrow, orow;
} ra_step;

/* d's tables for a walk over F outcomes of m dice (d->hi set); on failure
 * d is freed. */
static alea_status ra_alloc(radp *d, size_t nF, int64_t m)
{
    alea_ctx *ctx = d->ctx;
    size_t ns = 4 * (size_t)d->hi;
    d->block_size = alea__mul_size(4 * nF + 3 + (size_t)m + 1, 8);
    d->block = alea__mem_alloc(ctx, d->block_size);
    d->st = alea__mem_alloc(ctx, alea__mul_size(ns, sizeof *d->st));
    d->acc = alea__mem_alloc(ctx, alea__mul_size(ns, sizeof *d->acc));
    d->live = alea__mem_alloc(ctx, ns);
    if (!d->block || !d->st || !d->acc || !d->live) {
        alea_status st = alea__nomem(ctx);
        if (d->st)
            memset(d->st, 0, ns * sizeof *d->st);
        if (d->acc)
            memset(d->acc, 0, ns * sizeof *d->acc);
        radp_free(d);
        return st;
    }
    memset(d->st, 0, ns * sizeof *d->st);
    memset(d->acc, 0, ns * sizeof *d->acc);
    return ALEA_OK;
}

/* From state sj (flags f, j positions filled) at step s, y taking yh
 * positions here with weight wy: each count k of the original dice here
 * (the row s->orow) moves it to a next state, or collapses it into d->fin
 * once the kept range is filled. */
static alea_status ra_spread(radp *d, const ra_step *s, const uint8_t *match,
                             const alea__pmf *sj, int f, int64_t j, int64_t n_o, int64_t yh,
                             alea__w wy, const node *at)
{
    alea_ctx *ctx = d->ctx;
    const int64_t hi = d->hi, lo = d->lo, x = s->x;
    const int removed = f & 1;
    const int64_t base = j > lo ? j : lo;
    alea_status st;
    int any = 0;
    alea__x_free(ctx, &d->coll);
    alea__x_init(ctx, &d->coll);
    if ((st = alea__x_mul(ctx, &d->coll, ALEA__W(0), at)) != ALEA_OK)
        return st;
    for (size_t u = 0; u < wrow_len(&s->orow); u++) {
        int64_t k = wrow_k(&s->orow, u);
        if (k < 0)
            continue;
        alea__w rk = wrow_w(&s->orow, u);
        int rem = !removed && match[s->i] && k >= 1;
        int64_t jn = j + k - rem + yh;
        int nf = f | rem | (int)yh << 1;
        if (jn >= hi) { /* collapsed: a match is still to come if none was */
            int some = 1;
            if (!(nf & 1) && (st = some_match(d, s->i, s->inm, s->imt, s->cnm, n_o - k, at,
                                              &some)) != ALEA_OK)
                return st;
            if (some && (st = alea__x_addmul(ctx, &d->coll, rk,
                                             nf & 1 ? ALEA__W(1) : alea__x_w(&d->fx), at)) !=
                            ALEA_OK)
                return st;
            any |= some;
            continue;
        }
        size_t t = (size_t)nf * (size_t)hi + (size_t)jn;
        if (!d->live[t]) {
            int64_t kc = jn > lo ? jn - lo : 0;
            if ((st = alea__acc_init(&d->acc[t], ctx, at, kc * d->gmin, kc * d->gmax,
                                     (double)sj->n * (double)hi)) != ALEA_OK)
                return st;
            d->live[t] = 1;
        }
        int64_t kept = jn > base ? jn - base : 0;
        alea__x_free(ctx, &d->w);
        alea__x_init(ctx, &d->w);
        if ((st = alea__x_mul(ctx, &d->w, wy, at)) != ALEA_OK ||
            (st = alea__x_mul(ctx, &d->w, rk, at)) != ALEA_OK ||
            (st = alea__acc_add_pmf(&d->acc[t], sj, kept * x, alea__x_w(&d->w))) != ALEA_OK)
            return st;
    }
    if (any && (ctx->exact || d->coll.d > 0) &&
        ((st = alea__x_mul(ctx, &d->coll, wy, at)) != ALEA_OK ||
         (st = alea__acc_add_pmf(&d->fin, sj, (hi - base) * x, alea__x_w(&d->coll))) !=
             ALEA_OK))
        return st;
    return ALEA_OK;
}

/* State sj (flags f: removed | placed << 1; j positions filled) through
 * step s: the row of the original dice left, then y placed here or not. */
static alea_status ra_state(radp *d, ra_step *s, const alea__pmf *die, const uint8_t *match,
                            const alea__pmf *sj, int f, int64_t j, const node *at)
{
    alea_ctx *ctx = d->ctx;
    /* y, not placed yet: placed here (1) or not (0); placed already: 1 */
    static const double one = 1;
    const wrow ydone = {&one, 1, NULL};
    alea_status st = ALEA_OK;
    int removed = f & 1, placed = f >> 1;
    int64_t n_o = d->m - (j + removed - placed); /* original dice left */
    if ((st = alea__charge(ctx, (n_o + 1) * (int64_t)(2 + sj->n), at->start, at->end)) !=
        ALEA_OK)
        return st;
    if (ctx->exact || n_o > 0)
        st = ra_row(d, die, s->i, n_o, n_o, at, s->row, &d->orow);
    else
        s->row[0] = 1;
    if (st != ALEA_OK)
        return st;
    s->orow.n = (size_t)n_o + 1;
    const wrow *yr = placed ? &ydone : &s->yrow;
    for (size_t uy = 0; uy < wrow_len(yr); uy++) {
        int64_t yh = wrow_k(yr, uy);
        if (yh >= 0 &&
            (st = ra_spread(d, s, match, sj, f, j, n_o, yh, wrow_w(yr, uy), at)) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

/* Part B, normalised (given that no die was cut): the walk over the die's
 * outcomes, its weights in the context's number system. */
static alea_status ra_walk(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                           const uint8_t *match, int64_t m, int64_t lo, int64_t hi,
                           int64_t gmin, int64_t gmax, const node *at, alea__pmf *out)
{
    alea_status st;
    int64_t F = (int64_t)die->n;
    size_t nF = (size_t)F, ns = 4 * (size_t)hi;
    radp d = {.ctx = ctx, .hi = hi, .m = m, .lo = lo, .gmin = gmin, .gmax = gmax};
    if ((st = ra_alloc(&d, nF, m)) != ALEA_OK)
        return st;
    double *q = d.block, *S = q + nF, *Snm = S + nF + 1, *row = Snm + nF + 1;
    int64_t *xs = (int64_t *)(void *)(row + m + 1);
    double yd[2];
    for (size_t i = 0; i < nF; i++)
        xs[i] = g ? g[i] : die->v[i];
    if ((st = alea__pmf_walk_sums(ctx, die, 1, at, q, S, &d.sums)) != ALEA_OK)
        goto fail;
    Snm[F] = 0;
    for (int64_t i = F; i-- > 0;)
        Snm[i] = Snm[i + 1] + (match[i] ? 0 : q[i]);
    if (ctx->exact) {
        for (int w = 0; w < 2; w++)
            if ((st = outcomes_where(ctx, die, match, w, at, &d.part[w])) != ALEA_OK ||
                (d.part[w].n && (st = alea__pmf_walk_sums(ctx, &d.part[w], 1, at, NULL, NULL,
                                                          &d.psums[w])) != ALEA_OK))
                goto fail;
    }
    int64_t K = hi - lo;
    if ((st = alea__acc_init(&d.fin, ctx, at, K * gmin, K * gmax, (double)F * (double)hi)) !=
            ALEA_OK ||
        (st = alea__pmf_point(ctx, 0, ALEA__W(1), &d.st[0])) != ALEA_OK)
        goto fail;

    ra_step s = {.row = row,
                 .yrow = {yd, 2, ctx->exact ? &d.yrow : NULL},
                 .orow = {row, 0, ctx->exact ? &d.orow : NULL}};
    for (int64_t i = 0; i < F; i++) {
        s.i = (size_t)i;
        s.x = xs[i];
        s.rho = q[i] / S[i];
        s.rhoc = S[i + 1] / S[i];
        /* chance that a die above x does not match */
        s.cnm = S[i + 1] > 0 ? Snm[i + 1] / S[i + 1] : 0;
        yd[0] = s.rhoc;
        yd[1] = s.rho;
        *(match[i] ? &s.imt : &s.inm) += 1;
        if (ctx->exact && (st = ra_row(&d, die, (size_t)i, 1, 1, at, NULL, &d.yrow)) != ALEA_OK)
            goto fail;
        memset(d.live, 0, ns);
        for (int f = 0; f < 4; f++)
            for (int64_t j = 0; j < hi; j++) {
                const alea__pmf *sj = &d.st[(size_t)f * (size_t)hi + (size_t)j];
                if (sj->n > 0 && (st = ra_state(&d, &s, die, match, sj, f, j, at)) != ALEA_OK)
                    goto fail;
            }
        for (size_t t = 0; t < ns; t++) {
            alea__pmf_free(ctx, &d.st[t]);
            if (d.live[t] && (st = alea__acc_finish(&d.acc[t], &d.st[t])) != ALEA_OK)
                goto fail;
        }
    }
    if ((st = alea__acc_finish(&d.fin, out)) != ALEA_OK)
        goto fail;
    radp_free(&d);
    return ALEA_OK;
fail:
    radp_free(&d);
    return st;
}

alea_status alea__keep_ra(alea_ctx *ctx, const alea__pmf *die, const int64_t *g,
                               const uint8_t *match, int64_t m, int64_t lo, int64_t hi,
                               const node *at, alea__pmf *out)
{
    alea_status st;
    size_t F = die->n, nm = 0;
    for (size_t i = 0; i < F; i++)
        nm += !match[i];
    if (m == 0 || nm == F) /* nothing can be rerolled */
        return alea__keep(ctx, die, g, m, lo, hi, at, out);

    int64_t K = hi - lo;
    double t = die->trunc, pnm = 0;
    for (size_t i = 0; i < F; i++)
        pnm += match[i] ? 0 : die->p[i];
    double pa = pow(pnm, (double)m); /* P(no die matches, none cut) */
    /* kept mass: no match, or a match and y both kept */
    /* m + 1 dice may be rolled (the rerolled one); m can be INT64_MAX
     * (found by fuzzing), where one more changes no double */
    int64_t m1 = m < INT64_MAX ? m + 1 : m;
    double trunc = alea__trunc_pow(t, m1) - t * pa;
    trunc = trunc < 0 ? 0 : trunc > 1 ? 1 : trunc;

    int64_t gmin, gmax, smin, smax;
    if ((st = alea__keep_range(ctx, die, g, K, at, &gmin, &gmax, &smin, &smax)) != ALEA_OK)
        return st;
    if (!ctx->exact && (K == 0 || gmin == gmax)) { /* one possible sum */
        if ((st = alea__pmf_point(ctx, smin, ALEA__W(1 - trunc), out)) == ALEA_OK)
            out->trunc = trunc;
        return st;
    }
    /* In fractions the parts below give the mass exactly; with nothing kept
     * they keep one more position, whose sums are all 0 (m >= 1 here). */
    if (K == 0)
        lo = hi = 1;
    if (!g && (double)K * (double)(F - 1) + 1 > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__support_error(ctx, at);
    /* Each outcome moves every state (j, sums) to up to m - j others: at
     * least outcomes * sum over j < hi of (m - j) * (kept so far + 1).
     * Checked before anything is allocated, as the states' memory grows
     * with it. The sum in closed form: a loop over j costs what an
     * attacker picks (333333333d2ra<2kh3 walked 1.6e8 terms, found by
     * fuzzing the cost of each input). */
    double M = (double)m, L = (double)lo, H = (double)hi;
    double n1 = L + 1 < H ? L + 1 : H;          /* j <= lo: weight 1 */
    double T = H - 1 - L;                       /* j = lo + t, t = 1..T: weight t + 1 */
    double sum = n1 * M - n1 * (n1 - 1) / 2;
    if (T >= 1)
        sum += (M - L) * (T * (T + 1) / 2 + T) - (T * (T + 1) * (2 * T + 1) / 6 + T * (T + 1) / 2);
    double est = 4.0 * (double)F * H * (M + 2) + (double)F * sum;
    if ((st = alea__work_check(ctx, est, at)) != ALEA_OK)
        return st;

    /* Part A: the pool of the other outcomes. In doubles normalised, then
     * weighted by pa; in fractions as they are, so that the pool's own mass
     * is pnm^m exactly. */
    alea__pmf a = {0}, b = {0}, sub = {0};
    int64_t *gs = NULL;
    size_t gs_size = alea__mul_size(nm, sizeof *gs);
    if (nm > 0 && (ctx->exact || pa > 0)) {
        if ((st = outcomes_where(ctx, die, match, 0, at, &sub)) != ALEA_OK)
            return st;
        if (g && !(gs = alea__mem_alloc(ctx, gs_size))) {
            st = alea__nomem(ctx);
            goto done;
        }
        for (size_t i = 0, k = 0; i < F; i++)
            if (!match[i] && gs)
                gs[k++] = g[i];
        for (size_t k = 0; k < nm; k++)
            sub.p[k] = ctx->exact ? sub.p[k] : sub.p[k] / pnm;
        sub.trunc = ctx->exact && pnm < 1 ? 1 - pnm : 0;
        /* sub's missing mass is the matching outcomes' (and the cut one's):
         * the pool of non-matching dice, none cut, as it is */
        if ((st = alea__keep_uncut(ctx, &sub, gs, m, lo, hi, at, &a)) != ALEA_OK)
            goto done;
    }
    /* Part B, times P(none of the m + 1 dice was cut) */
    if ((st = ra_walk(ctx, die, g, match, m, lo, hi, gmin, gmax, at, &b)) != ALEA_OK ||
        (st = alea__keep_scale_uncut(ctx, die, m1, at, &b)) != ALEA_OK)
        goto done;
    if ((st = alea__pmf_add_scaled(ctx, &b, &a, ALEA__W(ctx->exact ? 1 : pa), at)) != ALEA_OK)
        goto done;
    b.trunc = trunc;
    *out = b;
    b.n = 0;
done:
    alea__pmf_free(ctx, &a);
    alea__pmf_free(ctx, &b);
    alea__pmf_free(ctx, &sub);
    if (gs)
        alea__mem_free(ctx, gs, gs_size);
    return st;
}
