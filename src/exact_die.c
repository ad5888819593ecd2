/*
 * exact_die.c -- one die of a pool as an exact distribution: one roll (its
 * faces and rerolls), then the explosion chain followed until its
 * remaining mass is below the context's tail bound, or judged roll by roll
 * for success counting on "!" dice; and the pool whose explosions are
 * capped in the whole pool ("x5=10"), built from the same parts of a roll.
 */
#include <math.h>
#include <string.h>

#include "exact.h"
#include "pmf.h"
#include "pool.h"

/* Work units of one link of an explosion chain beyond its pairs: two
 * convolutions and a merge, each a distribution allocated and freed, about
 * 250 ns here when the distributions are small (found by fuzzing the cost of
 * each input: 1d100000!>1=1 follows 2.8 million links). */
#define LINK_COST 128

/* ---- one die ------------------------------------------------------------------ */

/* Success counting score of one value by j into *s: +1 success, -1
 * failure; an overflow error at node `at` when the value plus j's numbers
 * overflows. */
alea_status alea__exact_score(alea_ctx *ctx, const alea__judge *j, int64_t v, const node *at,
                              int64_t *s)
{
    int sc;
    uint8_t flags = 0;
    if (!alea__judge_score(j, v, &sc, &flags, 1, 2))
        return alea__overflow_error(ctx, at);
    *s = sc;
    return ALEA_OK;
}

/* The faces of the range [lo, hi] that condition c matches, as the interval
 * [*mlo, *mhi] (empty when *mlo > *mhi). Returns 0 when the matches are not
 * an interval (CMP_NE, not used for dice). */
static int match_interval(const cond *c, int64_t lo, int64_t hi, int64_t *mlo,
                          int64_t *mhi)
{
    int64_t v = c->value;
    *mlo = lo;
    *mhi = hi;
    switch (c->op) {
    case CMP_EQ: *mlo = v; *mhi = v; break;
    case CMP_LT: if (v == INT64_MIN) *mlo = 1, *mhi = 0; else *mhi = v - 1; break;
    case CMP_LE: *mhi = v; break;
    case CMP_GT: if (v == INT64_MAX) *mlo = 1, *mhi = 0; else *mlo = v + 1; break;
    case CMP_GE: *mlo = v; break;
    default: return 0;
    }
    if (*mlo < lo)
        *mlo = lo;
    if (*mhi > hi)
        *mhi = hi;
    if (*mlo > *mhi) { /* a canonical empty interval */
        *mlo = 1;
        *mhi = 0;
    }
    return 1;
}

/*
 * The distribution of one roll of the die with its rerolls: the face that
 * stays. "r": rolled again until no match, i.e. conditioned on not
 * matching; "ro": a matching face is rolled again once and the second face
 * stays, whatever it is.
 */
/* Outcome k of a die of nf faces is a face of multiplicity mult: its
 * probability with no reroll, rerolled until no match (cm of the faces
 * match), or rerolled once (a match stays only when rolled twice). */
static void face_prob(alea_ctx *ctx, alea__pmf *out, size_t k, uint64_t mult, int reroll,
                      int until, int match,
                      uint64_t nf, uint64_t cm)
{
    if (!reroll)
        alea__pmf_ratio(ctx, out, k, mult, 1, nf, 1);
    else if (until)
        alea__pmf_ratio(ctx, out, k, mult, 1, nf - cm, 1);
    else
        alea__pmf_ratio(ctx, out, k, mult, match ? cm : nf + cm, nf, nf);
}

alea_status alea__exact_roll(alea_ctx *ctx, const pool *p, const node *at, alea__pmf *out)
{
    alea_status st;
    const die_spec *d = &p->die;
    uint64_t nf = alea__die_nfaces(d);
    if (nf == 0)
        return alea__broken(ctx, at->start, at->end, "a die without faces");
    uint64_t limit = (uint64_t)ctx->limits[ALEA_LIMIT_SUPPORT];
    const cond *rc = p->has_reroll ? &p->reroll : NULL;
    int until = rc && !p->reroll_once; /* matching faces never stay */
    double dnf = (double)nf, cm = 0;   /* matching faces, with multiplicity */
    int64_t mlo = 1, mhi = 0;          /* RANGE: the matching interval */
    uint64_t distinct;                 /* faces that can stay */

    if (d->kind == FACES_RANGE) {
        /* Several conditions ("r8r2") are counted face by face. */
        if (rc && (p->nreroll_also || !match_interval(rc, d->lo, d->hi, &mlo, &mhi))) {
            if (nf > limit)
                return alea__support_need(ctx, at, (double)nf);
            mlo = 1;
            mhi = 0;
            for (uint64_t i = 0; i < nf; i++)
                cm += alea__pool_rerolls(p, alea__die_face(d, i));
        } else if (mlo <= mhi) {
            cm = (double)((uint64_t)mhi - (uint64_t)mlo + 1);
        }
        distinct = until ? nf - (uint64_t)cm : nf;
    } else {
        distinct = 0;
        for (uint64_t i = 0; i < nf; i++) {
            int64_t f = alea__die_face(d, i);
            int match = alea__pool_rerolls(p, f);
            cm += match;
            if ((i == 0 || f != alea__die_face(d, i - 1)) && !(until && match))
                distinct++;
        }
    }
    if (distinct == 0 || cm >= dnf * (until ? 1 : 2))
        return alea__broken(ctx, at->start, at->end, "a reroll that matches every face");
    if (distinct > limit)
        return alea__support_need(ctx, at, (double)distinct);
    if ((st = alea__charge(ctx, (int64_t)distinct, at->start, at->end)) != ALEA_OK)
        return st;
    if ((st = alea__pmf_alloc(ctx, (size_t)distinct, out)) != ALEA_OK)
        return st;

    uint64_t ucm = (uint64_t)cm; /* a whole count */
    size_t k = 0;
    if (d->kind == FACES_RANGE && !(rc && mlo > mhi && cm > 0)) {
        /* Uniform faces: walk lo..hi, jumping over the matching interval
         * when those faces cannot stay. */
        int64_t f = d->lo;
        for (;;) {
            if (until && mlo <= mhi && f == mlo) {
                if (mhi == d->hi)
                    break;
                f = mhi + 1;
            }
            int match = rc && mlo <= mhi && f >= mlo && f <= mhi;
            out->v[k] = f;
            face_prob(ctx, out, k++, 1, rc != NULL, until, match, nf, ucm);
            if (f == d->hi)
                break;
            f++;
        }
    } else {
        /* Faces with multiplicity (or a condition that is no interval). */
        for (uint64_t i = 0; i < nf;) {
            int64_t f = alea__die_face(d, i);
            uint64_t mult = 0;
            for (; i < nf && alea__die_face(d, i) == f; i++)
                mult++;
            int match = alea__pool_rerolls(p, f);
            if (until && match)
                continue;
            out->v[k] = f;
            face_prob(ctx, out, k++, mult, rc != NULL, until, match, nf, ucm);
        }
    }
    return alea__pmf_seal(ctx, out, at);
}

/* The distribution of contribution c[i] over the faces i of r with
 * trig[i] == want (possibly none). Summed exactly (alea__pmf_remap): a long
 * explosion chain multiplies these masses thousands of times, and a d13001
 * exploding on >8 lost 4e-10 of its mass when 12993 faces were added up
 * plainly (found by fuzzing). */
static alea_status part(alea_ctx *ctx, const alea__pmf *r, const uint8_t *trig, int want,
                        const int64_t *c, const node *at, alea__pmf *out)
{
    alea_status st;
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        k += trig[i] == want;
    if (k == 0)
        return alea__pmf_alloc(ctx, 0, out);
    alea__pmf sel;
    int64_t *map = alea__mem_alloc(ctx, alea__mul_size(k, sizeof *map));
    if (!map)
        return alea__nomem(ctx);
    if ((st = alea__pmf_alloc(ctx, k, &sel)) != ALEA_OK) {
        alea__mem_free(ctx, map, k * sizeof *map);
        return st;
    }
    k = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (trig[i] != want)
            continue;
        alea__pmf_take(ctx, &sel, k, r, i); /* ascending, as remap wants; only the masses matter */
        map[k++] = c[i];
    }
    st = alea__pmf_remap(ctx, &sel, map, at, out);
    alea__pmf_free(ctx, &sel);
    alea__mem_free(ctx, map, k * sizeof *map);
    return st;
}

/*
 * The parts of one roll of the pool's die: what a first roll (n0, t0) and
 * an extra roll of the chain (n1, t1) contribute, split by whether the roll
 * explodes (t) or not (n). A contribution is the roll's value (clamped,
 * minus 1 when penetrating), or with count_mode its success score. r is the
 * face after rerolls.
 */
typedef struct parts {
    alea__pmf n0, t0, n1, t1;
} parts;

static void parts_free(alea_ctx *ctx, parts *q)
{
    alea__pmf_free(ctx, &q->n0);
    alea__pmf_free(ctx, &q->t0);
    alea__pmf_free(ctx, &q->n1);
    alea__pmf_free(ctx, &q->t1);
}

static alea_status split_parts(alea_ctx *ctx, const pool *p, const alea__pmf *r,
                               const node *at, const alea__judge *count, parts *q)
{
    alea_status st;
    size_t size = alea__mul_size(r->n, 2 * sizeof(int64_t) + 2);
    void *scratch = alea__mem_alloc(ctx, size);
    if (!scratch)
        return alea__nomem(ctx);
    int64_t *c0 = scratch, *c1 = c0 + r->n;
    uint8_t *trig0 = (uint8_t *)(c1 + r->n), *trig1 = trig0 + r->n;
    int clamped = ALEA__CLAMPED(p);
    for (size_t i = 0; i < r->n; i++) {
        int64_t f = r->v[i];
        /* A clamp on the first roll is seen by the trigger; on every roll
         * (clamp_all), after the trigger saw the face (pool step 2b). */
        int64_t v0 = clamped ? alea__pool_clamp(p, f) : f;
        int64_t v1 = clamped && p->clamp_all ? v0 : f, f1 = v1;
        trig0[i] = (uint8_t)(alea__cond_match(&p->trigger, p->clamp_all ? f : v0) ||
                             (p->has_first_trigger && alea__cond_match(&p->first_trigger, f)));
        trig1[i] = (uint8_t)(!p->explode_once && alea__cond_match(&p->trigger, f));
        st = ALEA_OK;
        if (p->penetrate && alea__sub_ovf(v1, 1, &f1))
            st = alea__overflow_error(ctx, at);
        c0[i] = v0;
        c1[i] = f1;
        if (st == ALEA_OK && count &&
            (st = alea__exact_score(ctx, count, v0, at, &c0[i])) == ALEA_OK)
            st = alea__exact_score(ctx, count, f1, at, &c1[i]);
        if (st != ALEA_OK) {
            alea__mem_free(ctx, scratch, size);
            return st;
        }
    }
    memset(q, 0, sizeof *q);
    if ((st = part(ctx, r, trig0, 0, c0, at, &q->n0)) != ALEA_OK ||
        (st = part(ctx, r, trig0, 1, c0, at, &q->t0)) != ALEA_OK ||
        (st = part(ctx, r, trig1, 0, c1, at, &q->n1)) != ALEA_OK ||
        (st = part(ctx, r, trig1, 1, c1, at, &q->t1)) != ALEA_OK)
        parts_free(ctx, q);
    alea__mem_free(ctx, scratch, size);
    return st;
}

/* *acc += a (+) b (+) c, where b and c may be NULL; a convolution is charged
 * by the product of its sizes. */
static alea_status add_conv(alea_ctx *ctx, alea__pmf *acc, const alea__pmf *a,
                            const alea__pmf *b, const alea__pmf *c, const node *at)
{
    alea_status st;
    alea__pmf x = {0}, y = {0};
    const alea__pmf *cur = a;
    const alea__pmf *more[2] = {b, c};
    for (int k = 0; k < 2; k++) {
        if (!more[k])
            continue;
        if ((st = alea__charge(ctx, (int64_t)(cur->n * more[k]->n) + 1, at->start,
                               at->end)) != ALEA_OK ||
            (st = alea__pmf_conv(ctx, cur, more[k], at, &y)) != ALEA_OK) {
            alea__pmf_free(ctx, &x);
            return st;
        }
        alea__pmf_free(ctx, &x);
        x = y;
        y.n = 0;
        cur = &x;
    }
    st = alea__pmf_add_scaled(ctx, acc, cur, ALEA__W(1), at);
    alea__pmf_free(ctx, &x);
    return st;
}

/*
 * A bound below every chain that alea__exact_pool_die cuts off: *low, and 1,
 * or 0 when there is none. A chain cut after `links` extra rolls, all of which
 * exploded, has made at least t0min plus `links` times the least exploding
 * extra roll, and rolls on: more exploding rolls, then one that ends it.
 * When no exploding extra roll can lower the sum it ends at or above that
 * plus the least ending roll; when one can ("d{-1,1}!<0") it has no bound.
 * "1d6!" is cut above all it lists (7 links: at least 49); "1dF!0" at -1,
 * below its +1; "1d6!>=5" (5+5+5+5+1) below some (6+6+6+4).
 */
static int cut_bound(const parts *q, int64_t t0min, int64_t links, int64_t *low)
{
    int64_t t1min = q->t1.n ? q->t1.v[0] : 0;
    return t1min >= 0 && !alea__mul_ovf(links, t1min, low) && !alea__add_ovf(*low, t0min, low) &&
           !alea__add_ovf(*low, q->n1.v[0], low);
}

/*
 * The distribution of one die: its value (the sum of its chain), or with
 * count_mode its success score judged on every roll of the chain (what
 * "!" with success counting means). The chain is followed while the mass
 * still rolling is at least ctx->tail; what is left is out->trunc. An
 * explosion once ("xo") has at most one extra roll, and is exact.
 */
alea_status alea__exact_pool_die(alea_ctx *ctx, const pool *p, const node *at,
                                 const alea__judge *count_mode, alea__pmf *out)
{
    alea_status st;
    alea__pmf r, total = {0}, cur = {0}, x, one = {0};
    parts q;
    int64_t *map = NULL;
    memset(&q, 0, sizeof q);
    if ((st = alea__exact_roll(ctx, p, at, &r)) != ALEA_OK)
        return st;
    if (p->explode == EXPLODE_NONE) { /* counting judges the total (keep.c) */
        if (!ALEA__CLAMPED(p)) {
            *out = r;
            return ALEA_OK;
        }
        if (!(map = alea__mem_alloc(ctx, alea__mul_size(r.n, sizeof *map)))) {
            alea__pmf_free(ctx, &r);
            return alea__nomem(ctx);
        }
        for (size_t i = 0; i < r.n; i++)
            map[i] = alea__pool_clamp(p, r.v[i]);
        st = alea__pmf_remap(ctx, &r, map, at, out);
        alea__mem_free(ctx, map, r.n * sizeof *map);
        alea__pmf_free(ctx, &r);
        return st;
    }
    if ((st = split_parts(ctx, p, &r, at, count_mode, &q)) != ALEA_OK)
        goto done;
    if (q.t0.n == 0) { /* no face explodes */
        total = q.n0;
        q.n0.n = 0;
        goto finish;
    }
    if (p->explode_once) { /* n0 + t0 (+) (any extra roll) */
        total = q.n0;
        q.n0.n = 0;
        if ((st = alea__pmf_add_scaled(ctx, &one, &q.n1, ALEA__W(1), at)) != ALEA_OK ||
            (st = alea__pmf_add_scaled(ctx, &one, &q.t1, ALEA__W(1), at)) != ALEA_OK ||
            (st = add_conv(ctx, &total, &q.t0, &one, NULL, at)) != ALEA_OK)
            goto done;
        goto finish;
    }
    /* A first roll may explode on every face (a clamp the trigger sees:
     * 1d4min4! is 4 + 1d4!, the extra rolls unclamped); an extra roll
     * that always explodes would never end, which the parser refuses. */
    if (q.n1.n == 0) {
        st = alea__broken(ctx, at->start, at->end, "an explosion on every extra roll");
        goto done;
    }
    {
        /* Links needed: pT^k < tail. A trigger mass near 1 would take
         * forever: check the budget first. */
        double tail = ctx->tail > 0 ? ctx->tail : ALEA_TAIL_DEFAULT;
        double pt = alea__pmf_mass(&q.t1), pn = alea__pmf_mass(&q.n1);
        double links = pt <= 0 ? 1 : log(tail) / log1p(-pn / (pt + pn)) + 1;
        if ((st = alea__work_check(ctx, links * ((double)(q.n1.n + q.t1.n) + LINK_COST),
                                   at)) != ALEA_OK)
            goto done;
        total = q.n0;
        q.n0.n = 0;
        cur = q.t0;
        q.t0.n = 0;
        int64_t t0min = cur.v[0], links_made = 0;
        while (cur.n && alea__pmf_mass(&cur) >= tail) {
            links_made++;
            if ((st = alea__charge(ctx, LINK_COST, at->start, at->end)) != ALEA_OK ||
                (st = alea__pmf_conv(ctx, &cur, &q.n1, at, &x)) != ALEA_OK)
                goto done;
            st = alea__pmf_add_scaled(ctx, &total, &x, ALEA__W(1), at);
            alea__pmf_free(ctx, &x);
            if (st != ALEA_OK ||
                (st = alea__pmf_conv(ctx, &cur, &q.t1, at, &x)) != ALEA_OK)
                goto done;
            alea__pmf_free(ctx, &cur);
            cur = x;
        }
        double cut = alea__pmf_mass(&cur);
        total.trunc = cut > 1 ? 1 : cut;
        total.has_cut_low = cut > 0 && cut_bound(&q, t0min, links_made, &total.cut_low);
    }
finish:
    *out = total;
    total.n = 0;
    st = ALEA_OK;
done:
    alea__pmf_free(ctx, &r);
    parts_free(ctx, &q);
    alea__pmf_free(ctx, &one);
    alea__pmf_free(ctx, &cur);
    alea__pmf_free(ctx, &total);
    return st;
}

/*
 * A pool of c dice whose explosions are capped ("x5=10"): at most M =
 * explode_cap in the whole pool, given to the dice in order, each die's
 * chain before the next die's. Exact, with no truncated mass: the state
 * after each die is the number e <= M of explosions used; at[e] is the
 * distribution of the sum so far with e used. Within a die, a roll made
 * when e < M is tested (n: it ends the die; t: e + 1 and another roll);
 * once e reaches M the pending roll and every later die count plainly
 * (f0 a first roll, f1 an extra roll, of any face).
 */
alea_status alea__exact_capped(alea_ctx *ctx, const node *n, const alea__pmf *r,
                               const alea__judge *count_mode, int64_t c, alea__pmf *out)
{
    const pool *p = n->u.pool;
    alea_status st;
    int64_t m = p->explode_cap;
    parts q;
    alea__pmf f0 = {0}, f1 = {0}, tmp = {0};
    alea__pmf *at = NULL, *nx = NULL, *chain = NULL;
    size_t k = 0, bytes = 0;
    if (c < 0)
        return alea__error(ctx, ALEA_ERR_DOMAIN, n->start, n->end,
                           "dice count can be negative at byte %u", (unsigned)n->start);
    memset(&q, 0, sizeof q);
    /* Each die passes over M + 1 states with a few convolutions each, of
     * a sum over up to c + M rolls by one roll. */
    double rolls = (double)c + (double)m + 1;
    if ((st = alea__work_check(ctx, (double)c * (double)(m + 1) * 4 * (double)r->n *
                                        (double)r->n * rolls, n)) != ALEA_OK)
        return st;
    k = (size_t)m + 1;
    bytes = alea__mul_size(k, 3 * sizeof(alea__pmf));
    if (!(at = alea__mem_alloc(ctx, bytes)))
        return alea__nomem(ctx);
    memset(at, 0, bytes);
    nx = at + k;
    chain = nx + k;
    if ((st = split_parts(ctx, p, r, n, count_mode, &q)) != ALEA_OK ||
        (st = alea__pmf_add_scaled(ctx, &f0, &q.n0, ALEA__W(1), n)) != ALEA_OK ||
        (st = alea__pmf_add_scaled(ctx, &f0, &q.t0, ALEA__W(1), n)) != ALEA_OK ||
        (st = alea__pmf_add_scaled(ctx, &f1, &q.n1, ALEA__W(1), n)) != ALEA_OK ||
        (st = alea__pmf_add_scaled(ctx, &f1, &q.t1, ALEA__W(1), n)) != ALEA_OK ||
        (st = alea__pmf_point(ctx, 0, ALEA__W(1), &at[0])) != ALEA_OK)
        goto done;
    for (int64_t d = 0; d < c; d++) {
        /* chain[j]: the sum with j used and an extra roll pending */
        for (size_t e = 0; e < k; e++) {
            if (!at[e].n)
                continue;
            if (e == (size_t)m) { /* no explosions left: a plain die */
                if ((st = add_conv(ctx, &nx[e], &at[e], &f0, NULL, n)) != ALEA_OK)
                    goto done;
                continue;
            }
            if ((st = add_conv(ctx, &nx[e], &at[e], &q.n0, NULL, n)) != ALEA_OK ||
                (q.t0.n && (st = add_conv(ctx, &chain[e + 1], &at[e], &q.t0, NULL, n)) !=
                               ALEA_OK))
                goto done;
        }
        for (size_t j = 1; j < k; j++) { /* ascending: chain[j] feeds chain[j + 1] */
            if (!chain[j].n)
                continue;
            if (j == (size_t)m || p->explode_once) { /* the pending roll is not tested */
                st = add_conv(ctx, &nx[j], &chain[j], &f1, NULL, n);
            } else {
                st = add_conv(ctx, &nx[j], &chain[j], &q.n1, NULL, n);
                if (st == ALEA_OK && q.t1.n)
                    st = add_conv(ctx, &chain[j + 1], &chain[j], &q.t1, NULL, n);
            }
            alea__pmf_free(ctx, &chain[j]);
            if (st != ALEA_OK)
                goto done;
        }
        for (size_t e = 0; e < k; e++) { /* the next die starts from nx */
            alea__pmf_free(ctx, &at[e]);
            at[e] = nx[e];
            nx[e].n = 0;
            nx[e].v = NULL;
            nx[e].p = NULL;
        }
    }
    for (size_t e = 0; e < k; e++)
        if ((st = alea__pmf_add_scaled(ctx, &tmp, &at[e], ALEA__W(1), n)) != ALEA_OK)
            goto done;
    *out = tmp;
    tmp.n = 0;
    st = ALEA_OK;
done:
    parts_free(ctx, &q);
    alea__pmf_free(ctx, &f0);
    alea__pmf_free(ctx, &f1);
    alea__pmf_free(ctx, &tmp);
    for (size_t e = 0; at && e < k; e++) {
        alea__pmf_free(ctx, &at[e]);
        alea__pmf_free(ctx, &nx[e]);
        alea__pmf_free(ctx, &chain[e]);
    }
    if (at)
        alea__mem_free(ctx, at, bytes);
    return st;
}

alea_status alea__exact_die(alea_ctx *ctx, const node *n, const alea__judge *count,
                            alea__pmf *out)
{
    return alea__exact_pool_die(ctx, n->u.pool, n, count, out);
}
