/*
 * exact.c -- AST -> exact distribution.
 *
 * The tree has no shared subtrees, so every node is an independent random
 * variable and an operator combines independent distributions (pmf.c);
 * the one exception, a name bound by "let", is a mixture over its values,
 * each bound in the context's environment (env.h) while the body is
 * computed (eval_bind).
 * Dice pools are built in three steps: the distribution of one die (faces,
 * rerolls, the explosion chain followed until its remaining mass is below
 * the context's tail bound), then "ra" and keep/drop by order statistics
 * (keep.c), then, for a rolled count, the mixture over the count's values.
 * Success counting on "!" dice judges every roll, so there the die's
 * distribution is built over scores instead of values.
 */
#include <math.h>
#include <string.h>

#include "exact.h"
#include "bounds.h"
#include "dist.h"
#include "env.h"
#include "fractions/frac.h"
#include "keep.h"
#include "pmf.h"
#include "pool.h"
#include "select.h"
#include "unique.h"
#include "mech.h"

/* Work units of one link of an explosion chain beyond its pairs: two
 * convolutions and a merge, each a distribution allocated and freed, about
 * 250 ns here when the distributions are small (found by fuzzing the cost of
 * each input: 1d100000!>1=1 follows 2.8 million links). */
#define LINK_COST 128

static alea_status eval(alea_ctx *ctx, const node *n, alea__pmf *out);

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
        if (st == ALEA_OK && count && (st = alea__exact_score(ctx, count, v0, at, &c0[i])) == ALEA_OK)
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

/* *acc += w (a (+) b); x is scratch, left empty. */
static alea_status add_conv_scaled(alea_ctx *ctx, alea__pmf *acc, const alea__pmf *a,
                                   const alea__pmf *b, alea__w w, const node *at, alea__pmf *x)
{
    alea_status st;
    if ((st = alea__charge(ctx, (int64_t)(a->n * b->n) + 1, at->start, at->end)) != ALEA_OK ||
        (st = alea__pmf_conv(ctx, a, b, at, x)) != ALEA_OK)
        return st;
    st = alea__pmf_add_scaled(ctx, acc, x, w, at);
    alea__pmf_free(ctx, x);
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

/* ---- pools ---------------------------------------------------------------------- */

/* The pool with c dice (before boons and banes). match: the die outcomes
 * that "ra" rerolls, or NULL. */
static alea_status pool_of(alea_ctx *ctx, const node *n, const pool *p, const alea__pmf *die,
                           const int64_t *g, const uint8_t *match, int each, int64_t c,
                           alea__pmf *out)
{
    int64_t extra = p->extra, m, lo, hi;
    if (extra == INT64_MIN || alea__add_ovf(c, extra < 0 ? -extra : extra, &m))
        return alea__overflow_error(ctx, n);
    alea__pool_keep_range(p, c, &lo, &hi);
    if (each && (lo != 0 || hi != m))
        return alea__broken(ctx, n->start, n->end,
                            "success counting on '!' dice with keep, drop or extra dice");
    if (p->nselects)
        return alea__select_dist(ctx, n, die, g, m, out);
    if (match)
        return alea__keep_ra(ctx, die, g, match, m, lo, hi, n, out);
    return alea__keep(ctx, die, g, m, lo, hi, n, out);
}

/* The distribution of a rolled count ce, refused when it can be negative. */
static alea_status count_dist(alea_ctx *ctx, const node *ce, alea__pmf *cnt)
{
    alea_status st = eval(ctx, ce, cnt);
    if (st != ALEA_OK || !cnt->n || cnt->v[0] >= 0)
        return st;
    st = alea__error(ctx, ALEA_ERR_DOMAIN, ce->start, ce->end,
                     "dice count can be negative at byte %u (it can be %lld)",
                     (unsigned)ce->start, (long long)cnt->v[0]);
    alea__pmf_free(ctx, cnt);
    return st;
}

/* ---- keep and drop on single rolls (rpg-dice-roller's "5d10!k2") ------------------ */

/*
 * A pool of c dice whose "!" chains are kept or dropped roll by roll (pool
 * keep_rolls). A roll explodes (kind t, with probability pt) or ends its
 * chain (kind n, pn = 1 - pt), and its value given its kind is independent
 * of every other roll. So the pool is c rolls of kind n and K of kind t,
 * where K, the explosions of c chains, is negative binomial: P(K = k) =
 * C(k + c - 1, k) pt^k pn^c. The parser allows this only when the trigger's
 * faces lie all above (or all below) the others, so the sorted rolls are the
 * n rolls then the t rolls (or the reverse), and the kept range splits into
 * a kept range of each: two independent keeps (keep.c), convolved. The
 * mixture over K is followed while the mass left is at least the tail bound;
 * what is left is out->trunc, as a chain's (alea__exact_pool_die). Past some
 * K the pool can stop changing: once the kept range of each kind no longer moves with
 * K and the kept explosion rolls all show one face (2d3!k1 keeps a 3 as soon
 * as a die has exploded), the rest of the mixture is that one pool, with
 * weight P(K >= k), and nothing is cut.
 */
typedef struct singles_parts {
    alea__pmf n, t; /* a roll that ends its chain, that explodes: conditioned */
    alea__x pt, pn; /* their chances */
    int t_high;     /* the trigger's faces are the highest */
    const node *at; /* the pool's node and facts */
    const pool *p;
} singles_parts;

static void singles_parts_free(alea_ctx *ctx, singles_parts *q)
{
    alea__pmf_free(ctx, &q->n);
    alea__pmf_free(ctx, &q->t);
    alea__x_free(ctx, &q->pt);
    alea__x_free(ctx, &q->pn);
}

/* The kept positions [*a, *b) (*a == *b: none) of one kind's m rolls, which
 * fill sorted positions [from, from + m) of a pool whose kept range is
 * [lo, hi). */
static void kind_range(int64_t lo, int64_t hi, int64_t from, int64_t m, int64_t *a, int64_t *b)
{
    *a = lo > from ? lo - from : 0;
    *b = hi - from < m ? hi - from : m;
    if (*b <= *a)
        *a = *b = 0;
}

/* The kept contributions of positions [lo, hi) of one kind's m rolls, which
 * fill sorted positions [from, from + m) of the pool. */
static alea_status singles_keep(alea_ctx *ctx, const alea__pmf *die, int64_t m, int64_t from,
                                int64_t lo, int64_t hi, const node *n, alea__pmf *out)
{
    int64_t a, b;
    kind_range(lo, hi, from, m, &a, &b);
    if (m == 0 || b <= a)
        return alea__pmf_point(ctx, 0, ALEA__W(1), out);
    return alea__keep(ctx, die, NULL, m, a, b, n, out);
}

/* Whether the pools of c + k and of c + k + 1 rolls keep the same: the
 * same positions of kind n, as many rolls of kind t, and those (if any)
 * all of one face. Once the keep steps clamp no more (k above every count
 * of theirs), the kept ranges move by 0 or 1 with each roll more, so the
 * same two pools in a row mean the same pools from then on. */
static int singles_settled(const pool *p, const singles_parts *q, int64_t c, int64_t k)
{
    double counts = (double)(p->extra < 0 ? -(double)p->extra : (double)p->extra);
    for (uint32_t i = 0; i < p->nkeeps; i++)
        counts += (double)p->keeps[i].n;
    if ((double)k <= counts || k > INT64_MAX - c - 1)
        return 0;
    int64_t r[2][3];
    for (int u = 0; u < 2; u++) {
        int64_t K = k + u, lo, hi, a, b;
        alea__pool_keep_range(p, c + K, &lo, &hi);
        kind_range(lo, hi, q->t_high ? 0 : K, c, &r[u][0], &r[u][1]);
        kind_range(lo, hi, q->t_high ? c : 0, K, &a, &b);
        r[u][2] = b - a;
    }
    return r[0][0] == r[1][0] && r[0][1] == r[1][1] && r[0][2] == r[1][2] &&
           (r[0][2] == 0 || q->t.n == 1);
}

static alea_status singles_pool(alea_ctx *ctx, const node *n, const pool *p,
                                const singles_parts *q, int64_t c, alea__pmf *out)
{
    alea_status st = ALEA_OK;
    alea__pmf sum = {0}, a = {0}, b = {0}, x = {0};
    alea__x w, left; /* P(K = k) (in fractions; its double from logarithms), P(K >= k) */
    double tail = ctx->tail > 0 ? ctx->tail : ALEA_TAIL_DEFAULT;
    double pt = q->pt.d, pn = q->pn.d;
    /* Work first: about mean + 12 sd + log(tail)/log(pt) values of K, each
     * two keeps over at most c + K rolls and a convolution. */
    double dc = (double)c, mean = dc * pt / pn, sd = sqrt(mean / pn);
    double kmax = mean + 12 * sd + log(tail) / log(pt) + 1;
    if ((st = alea__work_check(ctx, kmax * (ALEA__MIX_COST + (dc + kmax) * (double)(q->n.n + q->t.n)),
                               n)) != ALEA_OK)
        return st;
    double lw = dc * log(pn); /* log P(K = k): pn^c alone can underflow */
    int settled = 0;
    alea__x_init(ctx, &w);
    alea__x_init(ctx, &left);
    if ((st = alea__x_pow(ctx, &w, alea__x_w(&q->pn), (uint64_t)c, n)) != ALEA_OK)
        goto done;
    for (int64_t k = 0;; k++) {
        int64_t m, lo, hi;
        if (alea__add_ovf(c, k, &m)) {
            st = alea__overflow_error(ctx, n);
            goto done;
        }
        alea__pool_keep_range(p, m, &lo, &hi);
        int64_t nfrom = q->t_high ? 0 : k, tfrom = q->t_high ? c : 0;
        settled = singles_settled(p, q, c, k);
        w.d = exp(lw);
        if ((st = alea__charge(ctx, ALEA__MIX_COST, n->start, n->end)) != ALEA_OK ||
            (st = singles_keep(ctx, &q->n, c, nfrom, lo, hi, n, &a)) != ALEA_OK ||
            (st = singles_keep(ctx, &q->t, k, tfrom, lo, hi, n, &b)) != ALEA_OK ||
            (st = add_conv_scaled(ctx, &sum, &a, &b, alea__x_w(settled ? &left : &w), n, &x)) !=
                ALEA_OK)
            goto done;
        alea__pmf_free(ctx, &a);
        alea__pmf_free(ctx, &b);
        if (settled)
            break;
        if ((st = alea__x_addmul(ctx, &left, alea__x_w(&w), ALEA__W(-1), n)) != ALEA_OK)
            goto done;
        if (left.d < tail && (double)k >= mean) /* past the mode: the rest is the tail */
            break;
        lw += log((dc + (double)k) / (double)(k + 1)) + log(pt);
        if ((st = alea__x_mul(ctx, &w, alea__x_w(&q->pt), n)) != ALEA_OK ||
            (st = alea__x_ratio(ctx, &w, (uint64_t)m, (uint64_t)(k + 1), n)) != ALEA_OK)
            goto done;
    }
    sum.trunc = settled || left.d < 0 ? 0 : left.d;
    *out = sum;
    sum.n = 0;
done:
    alea__x_free(ctx, &w);
    alea__x_free(ctx, &left);
    alea__pmf_free(ctx, &a);
    alea__pmf_free(ctx, &b);
    alea__pmf_free(ctx, &x);
    alea__pmf_free(ctx, &sum);
    return st;
}

/* part = the outcomes of r with trigger `want`, conditioned on it: each
 * probability divided by mass, their sum. */
static alea_status singles_part(alea_ctx *ctx, const node *n, const pool *p, const alea__pmf *r,
                                int want, const alea__x *mass, alea__pmf *part)
{
    alea_status st = ALEA_OK;
    alea__x w;
    alea__x_init(ctx, &w);
    for (size_t i = 0, k = 0; i < r->n && st == ALEA_OK; i++) {
        if (!alea__cond_match(&p->trigger, r->v[i]) != !want)
            continue;
        alea__x_free(ctx, &w);
        alea__x_init(ctx, &w);
        if ((st = alea__x_mul(ctx, &w, alea__pmf_w(r, i), n)) != ALEA_OK ||
            (st = alea__x_div(ctx, &w, alea__x_w(mass), n)) != ALEA_OK)
            break;
        part->v[k] = r->v[i];
        part->p[k] = w.d;
        if (part->q)
            st = alea__frac_set(ctx, &part->q[k], alea__x_w(&w), n);
        k++;
    }
    alea__x_free(ctx, &w);
    return st == ALEA_OK ? alea__pmf_seal(ctx, part, n) : st;
}

/* Splits one roll of the die into the parts above. */
static alea_status singles_split(alea_ctx *ctx, const node *n, const pool *p,
                                 singles_parts *q)
{
    alea__pmf r;
    memset(q, 0, sizeof *q);
    q->at = n;
    q->p = p;
    alea_status st = alea__exact_roll(ctx, p, n, &r);
    if (st != ALEA_OK)
        return st;
    size_t nt = 0;
    alea__x_init(ctx, &q->pt);
    alea__x_init(ctx, &q->pn);
    if ((st = alea__x_mul(ctx, &q->pt, ALEA__W(0), n)) != ALEA_OK ||
        (st = alea__x_mul(ctx, &q->pn, ALEA__W(0), n)) != ALEA_OK)
        goto fail;
    for (size_t i = 0; i < r.n; i++) {
        int t = alea__cond_match(&p->trigger, r.v[i]);
        nt += (size_t)t;
        if ((st = alea__x_addmul(ctx, t ? &q->pt : &q->pn, alea__pmf_w(&r, i), ALEA__W(1), n)) !=
            ALEA_OK)
            goto fail;
    }
    if (nt == 0 || nt == r.n) { /* the parser refuses both */
        st = alea__broken(ctx, n->start, n->end, "an explosion on no face or every face");
        goto fail;
    }
    if (!ctx->exact) { /* a roll's mass is 1 up to rounding; exactly in fractions */
        double sum = q->pt.d + q->pn.d;
        q->pt.d /= sum;
        q->pn.d /= sum;
    }
    if ((st = alea__pmf_alloc(ctx, r.n - nt, &q->n)) != ALEA_OK ||
        (st = alea__pmf_alloc(ctx, nt, &q->t)) != ALEA_OK ||
        (st = singles_part(ctx, n, p, &r, 0, &q->pn, &q->n)) != ALEA_OK ||
        (st = singles_part(ctx, n, p, &r, 1, &q->pt, &q->t)) != ALEA_OK)
        goto fail;
    q->t_high = q->t.v[0] > q->n.v[q->n.n - 1];
    alea__pmf_free(ctx, &r);
    if (!q->t_high && q->t.v[q->t.n - 1] > q->n.v[0]) {
        singles_parts_free(ctx, q);
        return alea__broken(ctx, n->start, n->end, "explosion faces between the others");
    }
    return ALEA_OK;
fail:
    alea__pmf_free(ctx, &r);
    singles_parts_free(ctx, q);
    return st;
}

/* The pool of c dice, for the mixture over a rolled count (ud: the parts).
 * Its mixing steps are singles_pool's own. */
static alea_status singles_at(alea_ctx *ctx, void *ud, int64_t c, alea__pmf *cur)
{
    const singles_parts *q = ud;
    alea__pmf_free(ctx, cur);
    return singles_pool(ctx, q->at, q->p, q, c, cur);
}

/* The pool, its count rolled or not: the mixture over the count. */
static alea_status singles(alea_ctx *ctx, const node *n, const pool *p, alea__pmf *out)
{
    singles_parts q;
    alea__pmf cnt;
    alea_status st = singles_split(ctx, n, p, &q);
    if (st != ALEA_OK)
        return st;
    if (!p->count_expr) {
        st = singles_pool(ctx, n, p, &q, p->count, out);
    } else if ((st = count_dist(ctx, p->count_expr, &cnt)) == ALEA_OK) {
        st = alea__pmf_mix(ctx, &cnt, 0, 0, singles_at, &q, n, out);
        alea__pmf_free(ctx, &cnt);
    }
    singles_parts_free(ctx, &q);
    return st;
}

/* A pool's die and how each of its outcomes is judged: what the pools of
 * every count share. */
typedef struct pool_die {
    const node *n;
    const pool *p;
    alea__pmf die;
    int64_t *g;     /* each outcome's score (counting on the die's total), or NULL */
    uint8_t *match; /* whether "ra" rerolls each outcome, or NULL */
    size_t g_size, match_size;
    int each;       /* counting on every roll of "!" dice: the die is over scores */
    int64_t last;   /* plain sums: the count before (-1: none yet) */
} pool_die;

static void pool_die_free(alea_ctx *ctx, pool_die *d)
{
    alea__pmf_free(ctx, &d->die);
    if (d->g)
        alea__mem_free(ctx, d->g, d->g_size);
    if (d->match)
        alea__mem_free(ctx, d->match, d->match_size);
}

/* "!!" and plain dice counting successes: each die's total judged by own. */
static alea_status pool_die_scores(alea_ctx *ctx, const alea__judge *own, pool_die *d)
{
    alea_status st = ALEA_OK;
    d->g_size = alea__mul_size(d->die.n, sizeof *d->g);
    if (d->die.n && !(d->g = alea__mem_alloc(ctx, d->g_size)))
        return alea__nomem(ctx);
    for (size_t i = 0; st == ALEA_OK && i < d->die.n; i++)
        st = alea__exact_score(ctx, own, d->die.v[i], d->n, &d->g[i]);
    return st;
}

/* "ra": the die's outcomes it rerolls. It judges each die's total; with "!"
 * success counting the score is not a function of the total, so the two
 * cannot be combined. */
static alea_status pool_die_match(alea_ctx *ctx, pool_die *d)
{
    const node *n = d->n;
    if (d->each)
        return alea__error(ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "'ra' with success counting on '!' dice has no exact "
                           "distribution (byte %u): write '!!' to judge each die's total",
                           (unsigned)n->start);
    d->match_size = d->die.n;
    if (d->die.n && !(d->match = alea__mem_alloc(ctx, d->match_size)))
        return alea__nomem(ctx);
    for (size_t i = 0; i < d->die.n; i++)
        d->match[i] = (uint8_t)alea__cond_match(&d->p->reroll_one, d->die.v[i]);
    return ALEA_OK;
}

/* The pool of c dice, for the mixture over a rolled count (ud: the die). */
static alea_status count_at(alea_ctx *ctx, void *ud, int64_t c, alea__pmf *cur)
{
    const pool_die *d = ud;
    alea__pmf_free(ctx, cur);
    return pool_of(ctx, d->n, d->p, &d->die, d->g, d->match, d->each, c, cur);
}

/* A plain sum of c dice, from the sum of the count before in *cur: a die
 * more, or the dice between added at once. */
static alea_status sum_at(alea_ctx *ctx, void *ud, int64_t c, alea__pmf *cur)
{
    pool_die *d = ud;
    alea_status st;
    alea__pmf step, x;
    int first = d->last < 0;
    int64_t gap = c - (first ? 0 : d->last);
    if (first || gap > 1) {
        if ((st = alea__pmf_pow(ctx, &d->die, gap, d->n, &step)) != ALEA_OK)
            return st;
        if (first) {
            x = step;
        } else {
            st = alea__pmf_conv(ctx, cur, &step, d->n, &x);
            alea__pmf_free(ctx, &step);
        }
    } else {
        st = alea__pmf_conv(ctx, cur, &d->die, d->n, &x);
    }
    if (st != ALEA_OK)
        return st;
    alea__pmf_free(ctx, cur);
    *cur = x;
    d->last = c;
    return ALEA_OK;
}

/* A rolled count: the mixture over its values of the pool of each. */
static alea_status rolled_count(alea_ctx *ctx, pool_die *d, alea__pmf *out)
{
    const pool *p = d->p;
    alea__pmf cnt, mapped;
    alea_status st = count_dist(ctx, p->count_expr, &cnt);
    if (st != ALEA_OK)
        return st;
    /* Each count is a pool of its own: beside the work its steps charge,
     * each costs a few allocations and a merge, about ALEA__MIX_COST units (found
     * by fuzzing: (1d43152!)d8kl2 made 86000 pools for 5 million units). */
    /* A pool of one count also passes over its die's outcomes (their range,
     * their contributions) before its own steps charge: a unit an outcome,
     * twice (found by fuzzing the cost of each input: (1d6+1d3108)d52664d62212
     * made 3113 pools of a d52664 for 0.16 s). */
    double per_pool = ALEA__MIX_COST + 2.0 * (double)d->die.n;
    if (p->nkeeps || p->extra || d->match || p->nselects) {
        st = alea__pmf_mix(ctx, &cnt, per_pool, (int64_t)per_pool, count_at, d, d->n, out);
    } else if ((st = alea__work_check(ctx, (double)cnt.n * per_pool, d->n)) == ALEA_OK) {
        /* Plain sums, each count's from the one before: their work checked
         * above, before the scores' pass. */
        if (d->g && (st = alea__pmf_remap(ctx, &d->die, d->g, d->n, &mapped)) == ALEA_OK) {
            alea__pmf_free(ctx, &d->die);
            d->die = mapped;
        }
        d->last = -1;
        if (st == ALEA_OK)
            st = alea__pmf_mix(ctx, &cnt, 0, ALEA__MIX_COST, sum_at, d, d->n, out);
    }
    alea__pmf_free(ctx, &cnt);
    return st;
}

/* A pool whose explosions are capped (the parser allows no keep, "ra" or
 * rolled count). */
static alea_status capped(alea_ctx *ctx, const node *n, const pool *p,
                          const alea__judge *count_mode, alea__pmf *out)
{
    if (p->extra)
        return alea__error(ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "extra dice with a capped explosion are not supported yet "
                           "(byte %u)", (unsigned)n->start);
    alea__pmf r;
    alea_status st = alea__exact_roll(ctx, p, n, &r);
    if (st != ALEA_OK)
        return st;
    st = alea__exact_capped(ctx, n, &r, count_mode, p->count, out);
    alea__pmf_free(ctx, &r);
    return st;
}

/* The pool p of node n (n's own, or at one value of its rolled sides). */
static alea_status eval_pool(alea_ctx *ctx, const node *n, const pool *p, alea__pmf *out)
{
    alea_status st;
    int counting = p->has_success || p->has_failure;
    alea__judge own = alea__pool_judge(p);
    pool_die d = {.n = n, .p = p, .each = counting && p->explode == EXPLODE_EACH};

    if (!p->count_expr && p->count < 0)
        return alea__error(ctx, ALEA_ERR_DOMAIN, n->start, n->end,
                           "dice count can be negative at byte %u", (unsigned)n->start);
    if (p->explode_cap)
        return capped(ctx, n, p, d.each ? &own : NULL, out);
    if (p->keep_rolls) /* the parser allows no count of successes here */
        return singles(ctx, n, p, out);
    if ((st = alea__exact_pool_die(ctx, p, n, d.each ? &own : NULL, &d.die)) != ALEA_OK)
        return st;
    if (counting && !d.each && (st = pool_die_scores(ctx, &own, &d)) != ALEA_OK)
        goto done;
    if (p->unique) /* the parser allows plain dice of a written count */
        st = alea__unique_dist(ctx, n, &d.die, d.g, out);
    else if (!p->has_reroll_one || (st = pool_die_match(ctx, &d)) == ALEA_OK)
        st = p->count_expr ? rolled_count(ctx, &d, out)
                           : pool_of(ctx, n, p, &d.die, d.g, d.match, d.each, p->count, out);
done:
    pool_die_free(ctx, &d);
    return st;
}

/* Node n's pool at the given number of sides (ud: the node, by address). */
static alea_status pool_at(alea_ctx *ctx, void *ud, int64_t sides, alea__pmf *cur)
{
    const node *n = *(const node *const *)ud;
    const pool *p = n->u.pool;
    pool at;
    alea_status st = alea__pool_at_sides(ctx, p, p->sides_expr->start, p->sides_expr->end, sides,
                                         1, &at);
    alea__pmf_free(ctx, cur);
    return st == ALEA_OK ? eval_pool(ctx, n, &at, cur) : st;
}

/*
 * "1d(1d20)": the mixture over the sides' values of the pool at each, the
 * count (if rolled) mixed within each. Each value is a pool of its own, as
 * each value of a rolled count is (ALEA__MIX_COST).
 */
alea_status alea__exact_dice(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    const pool *p = n->u.pool;
    if (!p->sides_expr)
        return eval_pool(ctx, n, p, out);
    alea__pmf sides;
    alea_status st = eval(ctx, p->sides_expr, &sides);
    if (st != ALEA_OK)
        return st;
    st = alea__pmf_mix(ctx, &sides, ALEA__MIX_COST, ALEA__MIX_COST, pool_at, &n, n, out);
    alea__pmf_free(ctx, &sides);
    return st;
}

/* ---- operators -------------------------------------------------------------------- */

/* Sums and products, left to right. */
static alea_status eval_chain(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea_status st;
    alea__pmf acc, item, t;
    if ((st = eval(ctx, n->u.chain.items[0], &acc)) != ALEA_OK)
        return st;
    for (uint32_t i = 1; i < n->u.chain.n; i++) {
        const node *it = n->u.chain.items[i];
        uint8_t op = n->u.chain.ops[i];
        if ((st = eval(ctx, it, &item)) != ALEA_OK)
            goto fail;
        if (op == OP_SUB) {
            st = alea__pmf_neg(ctx, &item, n, &t);
            alea__pmf_free(ctx, &item);
            if (st != ALEA_OK)
                goto fail;
            item = t;
        }
        if (op == OP_ADD || op == OP_SUB)
            st = alea__pmf_conv(ctx, &acc, &item, n, &t);
        else
            st = alea__pmf_arith(ctx, op, &acc, &item, n, it, &t);
        alea__pmf_free(ctx, &item);
        if (st != ALEA_OK)
            goto fail;
        alea__pmf_free(ctx, &acc);
        acc = t;
    }
    *out = acc;
    return ALEA_OK;
fail:
    alea__pmf_free(ctx, &acc);
    return st;
}

/* Work units an outcome of a pass (neg, abs, min, max, comparison) costs:
 * its value and probability read and written, and its share of the new
 * block, about 4 ns here; and of best/worst, a pow and a log each. */
#define PASS_COST 2
#define POW_COST 16

/* Charges a pass of `units` before it starts. */
static alea_status charge_pass(alea_ctx *ctx, double units, const node *n)
{
    alea_status st = alea__work_check(ctx, units, n);
    return st == ALEA_OK ? alea__charge(ctx, (int64_t)units, n->start, n->end) : st;
}

/* Two operands, combined by the node's kind. */
static alea_status eval_pair(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea_status st;
    alea__pmf a, b;
    if ((st = eval(ctx, n->u.bin.a, &a)) != ALEA_OK)
        return st;
    if ((st = eval(ctx, n->u.bin.b, &b)) != ALEA_OK) {
        alea__pmf_free(ctx, &a);
        return st;
    }
    /* One pass over both, writing up to a.n + b.n outcomes (a comparison
     * first sums b twice). */
    st = charge_pass(ctx, (double)(a.n + b.n) * PASS_COST, n);
    if (st == ALEA_OK)
        st = n->kind == N_CMP ? alea__pmf_cmp(ctx, n->op, &a, &b, out)
                              : alea__pmf_minmax(ctx, n->kind == N_MAX, &a, &b, out);
    alea__pmf_free(ctx, &a);
    alea__pmf_free(ctx, &b);
    return st;
}

/* The body of "let x = ... in body" with x bound to v (ud: the node, by
 * address). */
static alea_status body_at(alea_ctx *ctx, void *ud, int64_t v, alea__pmf *cur)
{
    const node *n = *(const node *const *)ud, *x = n->u.bind.name;
    alea__env_saved saved;
    alea__pmf_free(ctx, cur);
    alea_status st = alea__env_bind(ctx, ctx->env, x->u.name.slot, v, x->start, x->end, &saved);
    if (st != ALEA_OK)
        return st;
    st = eval(ctx, n->u.bind.body, cur);
    alea__env_unbind(ctx->env, x->u.name.slot, &saved);
    return st;
}

/*
 * "let x = value in body": the mixture, over the value's outcomes, of the
 * body's distribution with x bound to each (its uses then share the one
 * value, exactly, instead of rolling apart): a body computed per outcome.
 */
static alea_status eval_bind(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea__pmf val;
    alea_status st = eval(ctx, n->u.bind.value, &val);
    if (st != ALEA_OK)
        return st;
    st = alea__pmf_mix(ctx, &val, ALEA__MIX_COST, ALEA__MIX_COST, body_at, &n, n, out);
    alea__pmf_free(ctx, &val);
    return st;
}

static alea_status eval_node(alea_ctx *ctx, const node *n, alea__pmf *out);

/* Every node's result in doubles is watched for probabilities near the
 * double range: outcomes rarer still may have been dropped on the way
 * ((500d6) >= 501 loses P(500d6 = 500) = 6^-500 inside the sum, before the
 * comparison), and alea_expr_dist then computes again in fractions. */
static alea_status eval(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea_status st = eval_node(ctx, n, out);
    if (st == ALEA_OK && !ctx->exact && !ctx->near_underflow)
        for (size_t i = 0; i < out->n; i++)
            if (out->p[i] < ALEA__NEAR_UNDERFLOW) {
                ctx->near_underflow = 1;
                break;
            }
    return st;
}

static alea_status eval_node(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea_status st;
    alea__pmf a;
    if ((st = alea__charge(ctx, 1, n->start, n->end)) != ALEA_OK)
        return st;
    switch (n->kind) {
    case N_NUM:
        return alea__pmf_point(ctx, n->u.num, ALEA__W(1), out);
    case N_DICE:
        return alea__exact_dice(ctx, n, out);
    case N_SUM:
    case N_PROD:
        return eval_chain(ctx, n, out);
    case N_CMP:
    case N_MIN:
    case N_MAX:
        return eval_pair(ctx, n, out);
    case N_NEG:
    case N_ABS:
        if ((st = eval(ctx, n->u.un.a, &a)) != ALEA_OK)
            return st;
        if ((st = charge_pass(ctx, (double)a.n * PASS_COST, n)) == ALEA_OK)
            st = n->kind == N_NEG ? alea__pmf_neg(ctx, &a, n, out)
                                  : alea__pmf_abs(ctx, &a, n, out);
        alea__pmf_free(ctx, &a);
        return st;
    case N_BEST:
    case N_WORST:
        if (n->u.rep.n < 1)
            return alea__broken(ctx, n->start, n->end, "best/worst without repetitions");
        if ((st = eval(ctx, n->u.rep.a, &a)) != ALEA_OK)
            return st;
        if ((st = charge_pass(ctx, (double)a.n * POW_COST, n)) == ALEA_OK)
            st = alea__pmf_extreme(ctx, n->kind == N_BEST, &a, n->u.rep.n, n, out);
        alea__pmf_free(ctx, &a);
        return st;
    case N_MECH:
        return n->u.mech.ops->exact(ctx, n, out, NULL);
    case N_REPEAT: /* "6 x 4d6kh3": the distribution of one roll */
        return eval(ctx, n->u.rep.a, out);
    case N_NAME: { /* the value bound where the engine is: certain */
        int64_t v;
        if ((st = alea__env_get(ctx, ctx->env, n->u.name.slot, n->start, n->end, &v)) != ALEA_OK)
            return st;
        return alea__pmf_point(ctx, v, ALEA__W(1), out);
    }
    case N_BIND:
        return eval_bind(ctx, n, out);
    default:
        return alea__broken(ctx, n->start, n->end, "an unknown node kind");
    }
}

alea_status alea__exact_eval(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    return eval(ctx, n, out);
}

alea_status alea__exact_die(alea_ctx *ctx, const node *n, const alea__judge *count,
                            alea__pmf *out)
{
    return alea__exact_pool_die(ctx, n->u.pool, n, count, out);
}

alea_status alea__exact(alea_ctx *ctx, const alea_expr *e, alea_dist **out)
{
    alea__pmf r;
    alea__notes notes;
    memset(&notes, 0, sizeof notes);
    /* The names' values, for this evaluation only. */
    alea__env env, *outer = ctx->env;
    alea_status st = alea__env_init(ctx, NULL, e->nslots, &env);
    if (st != ALEA_OK)
        return st;
    ctx->env = &env;
    /* A mechanic as the whole expression also reports what it says beyond
     * the outcomes (a chance of critical failure, the outcomes' names). */
    const node *root = e->root->kind == N_REPEAT ? e->root->u.rep.a : e->root; /* one roll */
    st = root->kind == N_MECH ? root->u.mech.ops->exact(ctx, root, &r, &notes)
                              : eval(ctx, root, &r);
    ctx->env = outer;
    alea__env_free(ctx, &env);
    if (st != ALEA_OK)
        return st;
    /* The tail bound is per die: a pool of 10^14 exploding dice, or a
     * thousand pools at --tail 1e-3, can leave most of the probability in
     * the cut tails. Such a result would be a few scraps of a distribution. */
    if (r.trunc > ALEA__TRUNC_MAX) {
        st = alea__error(ctx, ALEA_ERR_LIMIT, e->root->start, e->root->end,
                         "explosion tails cut off %.3g%% of the probability at byte %u "
                         "(at most %g%% is allowed): lower the tail bound (tail is %g)",
                         r.trunc * 100, (unsigned)e->root->start, ALEA__TRUNC_MAX * 100,
                         ctx->tail);
        alea__pmf_free(ctx, &r);
        return st;
    }
    if ((ctx->exact && (st = alea__frac_check(ctx, &r, e->root)) != ALEA_OK) ||
        (st = alea__dist_make(ctx, &r, e->src, e->len, out)) != ALEA_OK) {
        alea__pmf_free(ctx, &r);
        return st;
    }
    (*out)->notes = notes;
    alea__bounds(e->root, &(*out)->tree);
    if (e->root->kind == N_REPEAT)
        (*out)->rolls = e->root->u.rep.n;
    return ALEA_OK;
}
