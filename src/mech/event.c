/*
 * mech/event.c -- critical pools (event()): exploding criticals cancelled by
 * 1s, and critical failure when more than half the pool shows 1.
 *
 *   1. Roll every die. ones = the dice showing 1.
 *   2. If 2 * ones > dice, the roll is a critical failure worth `ones`;
 *      nothing else counts.
 *   3. Otherwise each 1 cancels one critical (a die showing its maximum),
 *      the smallest dice first (their re-rolls add the least, so this is the
 *      roller's best choice); "largest" cancels the largest first. A
 *      cancelled critical keeps its face but does not re-roll.
 *   4. Every other critical re-rolls and adds, again on each maximum,
 *      without limit. 1s rolled on re-rolls cancel nothing.
 *   5. The total is every face plus every re-roll.
 */
#include "../mech.h"
#include "../pmf.h"

#include <math.h>
#include <string.h>

/* One group of the pool: count dice with sides faces each ("3d4"). */
typedef struct event_group {
    int64_t count, sides;    /* count >= 1, sides >= 2 */
    uint8_t count_implicit;  /* written "d18" */
} event_group;

typedef struct event_spec {
    const event_group *groups;
    uint32_t ngroups;
    int64_t ndice;          /* sum of the counts */
    uint8_t cancel_largest; /* 1s cancel the largest criticals first */
} event_spec;

ALEA__HIDDEN extern const alea__mech alea__mech_event;

/* The mark on a rolled pool's record (rec.flags): a critical failure. */
#define CRIT_FAIL 1

/*
 * The group after group prev (UINT32_MAX: the first) in cancelling order:
 * by sides, smallest first (largest first with cancel_largest), earlier
 * groups first among equal sides. UINT32_MAX when none is left.
 */
static uint32_t next_group(const event_spec *ev, uint32_t prev)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t g = 0; g < ev->ngroups; g++) {
        int64_t sg = ev->groups[g].sides;
        if (prev != UINT32_MAX) { /* only groups that come after prev */
            int64_t sp = ev->groups[prev].sides;
            int after = sg == sp ? g > prev : (ev->cancel_largest ? sg < sp : sg > sp);
            if (!after)
                continue;
        }
        if (best == UINT32_MAX)
            best = g;
        else if (sg != ev->groups[best].sides &&
                 (ev->cancel_largest ? sg > ev->groups[best].sides
                                     : sg < ev->groups[best].sides))
            best = g;
    }
    return best;
}

/* The index of group g's first die. */
static size_t group_first(const event_spec *ev, uint32_t g)
{
    size_t k = 0;
    for (uint32_t i = 0; i < g; i++)
        k += (size_t)ev->groups[i].count;
    return k;
}

static alea_status event_roll(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const event_spec *ev = n->u.mech.spec;
    alea_status st;
    size_t die0 = 0, nd = (size_t)ev->ndice;
    if ((st = alea__roll_charge(s, n, ev->ndice)) != ALEA_OK ||
        (st = alea__roll_reserve(s, nd, &die0)) != ALEA_OK)
        return st;
    rdie *dice = s->r->dice + die0;
    int64_t ones = 0;
    for (uint32_t g = 0, k = 0; g < ev->ngroups; g++) {
        int64_t sides = ev->groups[g].sides;
        for (int64_t j = 0; j < ev->groups[g].count; j++, k++) {
            dice[k].value = alea__roll_d(s, sides);
            dice[k].flags = 0;
            dice[k].score = 0;
            ones += dice[k].value == 1;
        }
    }
    int64_t total = 0;
    if (2 * ones > ev->ndice) {
        rc->flags |= CRIT_FAIL;
        total = ones;
        for (size_t k = 0; k < nd; k++)
            if (dice[k].value != 1)
                dice[k].flags |= DIE_DISCARDED;
    } else {
        /* Cancel `ones` criticals, smallest (or largest) dice first, earlier
         * dice first among equals: group by group in that order, so the
         * cost is linear in the dice (plus the groups squared). */
        int64_t left = ones;
        for (uint32_t g = next_group(ev, UINT32_MAX); g != UINT32_MAX && left > 0;
             g = next_group(ev, g)) {
            int64_t sides = ev->groups[g].sides;
            rdie *gd = dice + group_first(ev, g);
            for (int64_t j = 0; j < ev->groups[g].count && left > 0; j++)
                if (gd[j].value == sides) {
                    gd[j].flags |= DIE_CANCELLED;
                    left--;
                }
        }
    }
    uint32_t g = 0;
    int64_t in_group = 0; /* dice of group g seen so far */
    for (size_t k = 0; k < nd; k++, in_group++) {
        while (in_group == ev->groups[g].count) {
            g++;
            in_group = 0;
        }
        rdie *d = &dice[k];
        int64_t sides = ev->groups[g].sides, face = d->value;
        int live = !(rc->flags & CRIT_FAIL) && face == sides && !(d->flags & DIE_CANCELLED);
        d->first = (uint32_t)s->r->nfaces;
        if ((st = alea__roll_push(s, face, live ? FACE_EXPLODED : 0)) != ALEA_OK)
            return st;
        while (live) { /* re-roll and add, again on each maximum */
            if ((st = alea__roll_charge(s, n, 1)) != ALEA_OK)
                return st;
            int64_t x = alea__roll_d(s, sides);
            live = x == sides;
            if ((st = alea__roll_push(s, x, live ? FACE_EXPLODED : 0)) != ALEA_OK)
                return st;
            if (alea__add_ovf(d->value, x, &d->value))
                return alea__roll_overflow(s, n);
        }
        d->nfaces = (uint32_t)(s->r->nfaces - d->first);
        if (!(rc->flags & CRIT_FAIL) && alea__add_ovf(total, d->value, &total))
            return alea__roll_overflow(s, n);
    }
    rc->die0 = (uint32_t)die0;
    rc->ndice = (uint32_t)nd;
    if (!s->trace)
        s->r->ndice = die0;
    *value = total;
    return ALEA_OK;
}

/* ---- exact distribution ------------------------------------------------------
 *
 * Never enumerates face combinations. A die of d sides is one of: a 1, a
 * critical (its maximum), or another face 2..d-1. Per group of equal dice
 * the number of 1s a, of criticals b and the sum of the other faces follow
 * a multinomial; the pool's state is (ones, criticals per group) with a
 * distribution of the other faces' sum. At the end each state is resolved:
 * a critical failure is worth its ones; otherwise the 1s cancel criticals in
 * the chosen order and each surviving critical adds its re-roll tail (a
 * d-sided die exploding on d, followed until the tail bound, the cut mass
 * reported as truncated).
 */

/* *w (a single outcome, at 0) times num / (den1 den2): the weights below are
 * products of such ratios, so that they are exact in exact mode (fractions
 * of the module) and the same products in doubles. A weight may pass 1 on
 * the way (a binomial coefficient); only the results are probabilities. */
static alea_status scale_weight(alea_ctx *ctx, const node *at, alea__pmf *w, uint64_t num,
                                uint64_t den1, uint64_t den2)
{
    alea__pmf r = {0}, out = {0};
    alea_status st = alea__pmf_alloc(ctx, 1, &r);
    if (st != ALEA_OK)
        return st;
    r.v[0] = 0;
    alea__pmf_ratio(ctx, &r, 0, num, 1, den1, den2);
    if ((st = alea__pmf_seal(ctx, &r, at)) == ALEA_OK &&
        (st = alea__pmf_add_scaled(ctx, &out, w, alea__pmf_w(&r, 0), at)) == ALEA_OK) {
        alea__pmf_free(ctx, w);
        *w = out;
    }
    alea__pmf_free(ctx, &r);
    return st;
}

/* out: the whole mass of d on the value v (exact in both number systems). */
static alea_status collapse(alea_ctx *ctx, const node *at, const alea__pmf *d, int64_t v,
                            alea__pmf *out)
{
    int64_t *map = alea__mem_alloc(ctx, alea__mul_size(d->n, sizeof *map));
    if (!map)
        return alea__nomem(ctx);
    for (size_t i = 0; i < d->n; i++)
        map[i] = v;
    alea_status st = alea__pmf_remap(ctx, d, map, at, out);
    alea__mem_free(ctx, map, alea__mul_size(d->n, sizeof *map));
    return st;
}

/* The weight 1 (a single outcome at 0 of probability 1), to be scaled. */
static alea_status unit_weight(alea_ctx *ctx, alea__pmf *w)
{
    return alea__pmf_point(ctx, 0, ALEA__W(1), w);
}

/* The weight w holds: 0 once it fell below the double range, where a
 * pmf in doubles drops it (event(300d20)'s C(300, a) / 20^a). */
static alea__w weight_of(const alea__pmf *w)
{
    return w->n ? alea__pmf_w(w, 0) : ALEA__W(0);
}

/* The re-roll tail of a critical on a d-sided die: X + [X = d](X' + ...). */
static alea_status reroll_tail(alea_ctx *ctx, const node *at, int64_t d, alea__pmf *out)
{
    double q = 1.0 / (double)d, level = 1.0; /* P(reaching this level) */
    int64_t levels = 0;
    while (level >= ctx->tail && levels < 100000) {
        level *= q;
        levels++;
    }
    int64_t hi;
    if (alea__mul_ovf(levels, d, &hi))
        return alea__overflow_error(ctx, at);
    if ((double)(d - 1) * (double)levels > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__support_error(ctx, at);
    alea__acc acc;
    alea__pmf reach = {0}; /* (1/d)^(k + 1): a face of level k */
    alea_status st = unit_weight(ctx, &reach);
    if (st != ALEA_OK)
        return st;
    st = alea__acc_init(&acc, ctx, at, 1, hi, (double)levels * (double)(d - 1));
    for (int64_t k = 0; st == ALEA_OK && k < levels; k++) {
        if ((st = scale_weight(ctx, at, &reach, 1, (uint64_t)d, 1)) != ALEA_OK)
            break;
        for (int64_t r = 1; st == ALEA_OK && r < d; r++)
            st = alea__acc_add(&acc, k * d + r, weight_of(&reach));
    }
    if (st != ALEA_OK) {
        alea__acc_free(&acc);
        alea__pmf_free(ctx, &reach);
        return st;
    }
    if ((st = alea__acc_finish(&acc, out)) == ALEA_OK)
        out->trunc = reach.p[0]; /* P(still re-rolling after the last level) */
    alea__pmf_free(ctx, &reach);
    return st;
}

typedef struct ev_state {
    alea__pmf *s; /* per state: the other faces' sum */
    size_t n;
} ev_state;

static void states_free(alea_ctx *ctx, ev_state *st)
{
    if (!st->s)
        return;
    for (size_t i = 0; i < st->n; i++)
        alea__pmf_free(ctx, &st->s[i]);
    alea__mem_free(ctx, st->s, st->n * sizeof *st->s);
    st->s = NULL;
}

static alea_status states_new(alea_ctx *ctx, size_t n, ev_state *st)
{
    st->n = n;
    st->s = alea__mem_alloc(ctx, alea__mul_size(n, sizeof *st->s));
    if (!st->s)
        return alea__nomem(ctx);
    memset(st->s, 0, n * sizeof *st->s);
    return ALEA_OK;
}

/* The working set of event_exact: every buffer lives until its end (the
 * phases below fill it in turn), then all are freed at once. */
typedef struct ev_work {
    const event_spec *ev;
    const node *n;
    size_t nstates;
    size_t *radix; /* [0..G]: the strides of the states' mixed radix */
    size_t *list;  /* [0..nstates): the states reached so far */
    ev_state cur, next, powers;
    alea__pmf other, tmp, sum, point;
    alea__pmf qw, wa, wab; /* weights: 1/d, and the splits' below */
    double crit, trunc;
} ev_work;

/* One d-sided die's other faces 2..d-1, each 1/d, in w->other (empty for a
 * d2), and the weight 1/d in w->qw. */
static alea_status ev_other_faces(alea_ctx *ctx, ev_work *w, int64_t d)
{
    const node *n = w->n;
    alea_status st;
    alea__pmf_free(ctx, &w->other);
    alea__pmf_free(ctx, &w->qw);
    if ((st = unit_weight(ctx, &w->qw)) != ALEA_OK ||
        (st = scale_weight(ctx, n, &w->qw, 1, (uint64_t)d, 1)) != ALEA_OK)
        return st;
    if (d > 2) {
        if ((double)(d - 2) > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
            return alea__support_error(ctx, n);
        alea__acc acc;
        st = alea__acc_init(&acc, ctx, n, 2, d - 1, (double)(d - 2));
        for (int64_t v = 2; st == ALEA_OK && v < d; v++)
            st = alea__acc_add(&acc, v, weight_of(&w->qw));
        if (st != ALEA_OK) {
            alea__acc_free(&acc);
            return st;
        }
        if ((st = alea__acc_finish(&acc, &w->other)) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

/* Group g's dice added to every listed state of w->cur, into w->next: per
 * split (a ones, b criticals, m other faces) its weight times the other
 * faces' sum of m dice (w->powers). */
static alea_status ev_spread_splits(alea_ctx *ctx, ev_work *w, uint32_t g, size_t nlist)
{
    const event_spec *ev = w->ev;
    const node *n = w->n;
    int64_t c = ev->groups[g].count, d = ev->groups[g].sides;
    alea_status st;
    /* The split's weight, C(c, a) C(c - a, b) / d^(a + b) (the other
     * faces' 1/d each are in powers), as a product of ratios: wa is
     * C(c, a) / d^a, wab wa times C(c - a, b) / d^b. */
    alea__pmf_free(ctx, &w->wa);
    if ((st = unit_weight(ctx, &w->wa)) != ALEA_OK)
        return st;
    for (int64_t a = 0; a <= c; a++) {
        if (a > 0 && (st = scale_weight(ctx, n, &w->wa, (uint64_t)(c - a + 1), (uint64_t)a,
                                        (uint64_t)d)) != ALEA_OK)
            return st;
        alea__pmf_free(ctx, &w->wab);
        if ((st = alea__pmf_copy(ctx, &w->wa, &w->wab)) != ALEA_OK)
            return st;
        for (int64_t b = 0; a + b <= c; b++) {
            int64_t m = c - a - b;
            if (b > 0 && (st = scale_weight(ctx, n, &w->wab, (uint64_t)(m + 1), (uint64_t)b,
                                            (uint64_t)d)) != ALEA_OK)
                return st;
            if (m > 0 && w->other.n == 0)
                continue; /* a d2 has no other faces */
            if (w->wab.n == 0)
                continue; /* the split's weight is below the double range */
            if ((st = alea__charge(ctx, (int64_t)nlist, n->start, n->end)) != ALEA_OK)
                return st;
            alea__w wt = weight_of(&w->wab);
            const alea__pmf *otherm = &w->powers.s[m];
            for (size_t li = 0; li < nlist; li++) {
                size_t i = w->list[li];
                size_t o = i % w->radix[0];
                if (o + (size_t)a > (size_t)ev->ndice)
                    continue;
                size_t j = i + (size_t)a + (size_t)b * w->radix[g];
                /* pmf_conv checks and charges its own work */
                if ((st = alea__pmf_conv(ctx, &w->cur.s[i], otherm, n, &w->tmp)) != ALEA_OK ||
                    (st = alea__pmf_add_scaled(ctx, &w->next.s[j], &w->tmp, wt, n)) != ALEA_OK)
                    return st;
                alea__pmf_free(ctx, &w->tmp);
            }
        }
    }
    return ALEA_OK;
}

/* Group g's dice added to the states: w->cur becomes the states after it. */
static alea_status ev_add_group(alea_ctx *ctx, ev_work *w, uint32_t g)
{
    const node *n = w->n;
    int64_t c = w->ev->groups[g].count;
    alea_status st;
    if ((st = ev_other_faces(ctx, w, w->ev->groups[g].sides)) != ALEA_OK ||
        (st = states_new(ctx, w->nstates, &w->next)) != ALEA_OK)
        return st;
    /* The other faces' sum of m dice, for m = 0..c, built once. */
    if ((st = states_new(ctx, (size_t)c + 1, &w->powers)) != ALEA_OK ||
        (st = alea__pmf_point(ctx, 0, ALEA__W(1), &w->powers.s[0])) != ALEA_OK)
        return st;
    for (int64_t m = 1; m <= c && w->other.n > 0; m++)
        if ((st = alea__pmf_conv(ctx, &w->powers.s[m - 1], &w->other, n, &w->powers.s[m])) !=
            ALEA_OK)
            return st;
    /* Each (ones, criticals) split of the group visits every reached
     * state: listed once, then a unit per visit, checked before the
     * loops (found by fuzzing: event(d6 + 100d8 + d10) scanned 10^9
     * empty states unpaid). */
    size_t nlist = 0;
    if ((st = alea__charge(ctx, (int64_t)(w->nstates / 8 + 1), n->start, n->end)) != ALEA_OK)
        return st;
    for (size_t i = 0; i < w->nstates; i++)
        if (w->cur.s[i].n)
            w->list[nlist++] = i;
    double splits = (double)(c + 1) * (double)(c + 2) / 2;
    if ((st = alea__work_check(ctx, splits * (double)nlist, n)) != ALEA_OK ||
        (st = ev_spread_splits(ctx, w, g, nlist)) != ALEA_OK)
        return st;
    states_free(ctx, &w->cur);
    states_free(ctx, &w->powers);
    w->cur = w->next;
    w->next.s = NULL;
    return ALEA_OK;
}

/* State i (not a critical failure, with `ones` 1s): the criticals left
 * after the 1s cancel them in the chosen order, as an index into the
 * live states (*li), and the sum of all its 1s and maxima (*shift). */
static alea_status ev_survivors(alea_ctx *ctx, const ev_work *w, size_t i, int64_t ones,
                                size_t *li, int64_t *shift)
{
    const event_spec *ev = w->ev;
    const uint32_t G = ev->ngroups;
    int64_t live[64], sum = ones, left = ones;
    for (uint32_t g = 0; g < G; g++) {
        int64_t k = (int64_t)((i / w->radix[g]) % (size_t)(ev->groups[g].count + 1)), face;
        live[g] = k;
        if (alea__mul_ovf(k, ev->groups[g].sides, &face) || alea__add_ovf(sum, face, &sum))
            return alea__overflow_error(ctx, w->n);
    }
    *shift = sum;
    while (left > 0) { /* cancel the smallest (or largest) live critical */
        int best = -1;
        for (uint32_t g = 0; g < G; g++)
            if (live[g] > 0 &&
                (best < 0 || (ev->cancel_largest
                                  ? ev->groups[g].sides > ev->groups[best].sides
                                  : ev->groups[g].sides < ev->groups[best].sides)))
                best = (int)g;
        if (best < 0)
            break;
        live[best]--;
        left--;
    }
    *li = 0;
    for (uint32_t g = 0; g < G; g++)
        *li += (size_t)live[g] * (w->radix[g] / w->radix[0]);
    return ALEA_OK;
}

/* Resolve every state: a critical failure is worth its ones (into w->sum,
 * its mass into w->crit); otherwise the state joins the others with the
 * same surviving criticals in w->next (nlive of them), shifted by every
 * face (the 1s, the criticals' maxima, the other faces). */
static alea_status ev_resolve(alea_ctx *ctx, ev_work *w, size_t nlive)
{
    const node *n = w->n;
    alea_status st;
    if ((st = alea__charge(ctx, (int64_t)w->nstates, n->start, n->end)) != ALEA_OK ||
        (st = states_new(ctx, nlive, &w->next)) != ALEA_OK)
        return st;
    for (size_t i = 0; i < w->nstates; i++) {
        alea__pmf *sp = &w->cur.s[i];
        if (sp->n == 0)
            continue;
        double m = alea__pmf_mass(sp);
        int64_t ones = (int64_t)(i % w->radix[0]);
        alea__pmf_free(ctx, &w->point);
        if (2 * ones > w->ev->ndice) { /* the state's whole mass, on its ones */
            w->crit += m;
            if ((st = collapse(ctx, n, sp, ones, &w->point)) != ALEA_OK ||
                (st = alea__pmf_add_scaled(ctx, &w->sum, &w->point, ALEA__W(1), n)) != ALEA_OK)
                return st;
            continue;
        }
        size_t li = 0;
        int64_t shift = 0;
        if ((st = ev_survivors(ctx, w, i, ones, &li, &shift)) != ALEA_OK ||
            (st = alea__pmf_point(ctx, shift, ALEA__W(1), &w->point)) != ALEA_OK ||
            (st = alea__pmf_conv(ctx, sp, &w->point, n, &w->tmp)) != ALEA_OK ||
            (st = alea__pmf_add_scaled(ctx, &w->next.s[li], &w->tmp, ALEA__W(1), n)) != ALEA_OK)
            return st;
        alea__pmf_free(ctx, &w->tmp);
    }
    states_free(ctx, &w->cur);
    return ALEA_OK;
}

/* Each group of surviving criticals (the nlive states of w->next) gets
 * its re-roll tails once, into w->sum (the cut mass into w->trunc);
 * tails[g] holds tail_g^r for r = 0..count_g, built on demand. */
static alea_status ev_tails(alea_ctx *ctx, ev_work *w, size_t nlive)
{
    const event_spec *ev = w->ev;
    const node *n = w->n;
    const uint32_t G = ev->ngroups;
    alea_status st = ALEA_OK;
    ev_state tails[64];
    memset(tails, 0, sizeof tails);
    for (size_t li = 0; li < nlive && st == ALEA_OK; li++) {
        alea__pmf *sp = &w->next.s[li];
        if (sp->n == 0)
            continue;
        double m = alea__pmf_mass(sp);
        alea__pmf acc_pmf = {0};
        if ((st = alea__pmf_copy(ctx, sp, &acc_pmf)) != ALEA_OK)
            break;
        for (uint32_t g = 0; g < G && st == ALEA_OK; g++) {
            int64_t r = (int64_t)((li * w->radix[0] / w->radix[g]) %
                                  (size_t)(ev->groups[g].count + 1));
            if (r == 0)
                continue;
            ev_state *t = &tails[g];
            if (!t->s) {
                alea__pmf one = {0};
                if ((st = states_new(ctx, (size_t)ev->groups[g].count + 1, t)) != ALEA_OK ||
                    (st = alea__pmf_point(ctx, 0, ALEA__W(1), &t->s[0])) != ALEA_OK ||
                    (st = reroll_tail(ctx, n, ev->groups[g].sides, &one)) != ALEA_OK) {
                    alea__pmf_free(ctx, &one);
                    break;
                }
                t->s[1] = one; /* the others are built from it below */
            }
            for (int64_t k = 2; k <= r && st == ALEA_OK; k++)
                if (t->s[k].n == 0)
                    st = alea__pmf_conv(ctx, &t->s[k - 1], &t->s[1], n, &t->s[k]);
            if (st == ALEA_OK &&
                (st = alea__pmf_conv(ctx, &acc_pmf, &t->s[r], n, &w->tmp)) == ALEA_OK) {
                alea__pmf_free(ctx, &acc_pmf);
                acc_pmf = w->tmp;
                memset(&w->tmp, 0, sizeof w->tmp);
            }
        }
        if (st == ALEA_OK) {
            w->trunc += m * acc_pmf.trunc;
            st = alea__pmf_add_scaled(ctx, &w->sum, &acc_pmf, ALEA__W(1), n);
        }
        alea__pmf_free(ctx, &acc_pmf);
    }
    for (uint32_t g = 0; g < G; g++)
        states_free(ctx, &tails[g]);
    return st;
}

static alea_status event_exact(alea_ctx *ctx, const node *n, alea__pmf *out,
                               alea__notes *notes)
{
    const event_spec *ev = n->u.mech.spec;
    const uint32_t G = ev->ngroups;
    alea_status st = ALEA_OK;
    /* States: ones o in [0, N], criticals k_g in [0, c_g]: mixed radix. */
    double nstates_d = (double)(ev->ndice + 1);
    for (uint32_t g = 0; g < G; g++)
        nstates_d *= (double)(ev->groups[g].count + 1);
    if (nstates_d > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__support_error(ctx, n);
    if (G > 64) /* ev_survivors and ev_tails hold one count per group */
        return alea__error(ctx, ALEA_ERR_LIMIT, n->start, n->end,
                           "event() takes at most 64 groups of dice (byte %u)",
                           (unsigned)n->start);
    ev_work w = {0};
    w.ev = ev;
    w.n = n;
    w.nstates = (size_t)nstates_d;
    /* radix[0..G], then list[0..nstates) */
    size_t scratch = alea__mul_size((size_t)G + 1 + w.nstates, sizeof(size_t));
    w.radix = alea__mem_alloc(ctx, scratch);
    if (!w.radix)
        return alea__nomem(ctx);
    w.list = w.radix + G + 1;
    w.radix[0] = (size_t)ev->ndice + 1; /* stride of group 0's criticals */
    for (uint32_t g = 1; g <= G; g++)
        w.radix[g] = w.radix[g - 1] * (size_t)(ev->groups[g - 1].count + 1);

    if ((st = states_new(ctx, w.nstates, &w.cur)) != ALEA_OK ||
        (st = alea__pmf_point(ctx, 0, ALEA__W(1), &w.cur.s[0])) != ALEA_OK)
        goto done;
    for (uint32_t g = 0; g < G; g++)
        if ((st = ev_add_group(ctx, &w, g)) != ALEA_OK)
            goto done;
    size_t nlive = w.nstates / w.radix[0];
    if ((st = ev_resolve(ctx, &w, nlive)) != ALEA_OK ||
        (st = ev_tails(ctx, &w, nlive)) != ALEA_OK)
        goto done;
    w.sum.trunc = w.trunc;
    *out = w.sum;
    w.sum.n = 0;
    w.sum.v = NULL;
    w.sum.p = NULL;
    if (notes) { /* the whole expression: its chance of a critical failure too */
        notes->mech = &alea__mech_event;
        notes->flag_name[0] = "critical failure";
        notes->flag_p[0] = w.crit;
        notes->nflags = 1;
    }
done:
    alea__pmf_free(ctx, &w.qw);
    alea__pmf_free(ctx, &w.wa);
    alea__pmf_free(ctx, &w.wab);
    alea__pmf_free(ctx, &w.other);
    alea__pmf_free(ctx, &w.tmp);
    alea__pmf_free(ctx, &w.sum);
    alea__pmf_free(ctx, &w.point);
    states_free(ctx, &w.cur);
    states_free(ctx, &w.next);
    states_free(ctx, &w.powers);
    alea__mem_free(ctx, w.radix, scratch);
    return st;
}

/* ---- parsing ---- */

static const char *const order[] = {"smallest", "largest", NULL};

/* event = "event" "(" expr [ "," ("smallest" | "largest") ] ")" */
static alea_status event_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    alea_ctx *ctx = alea__parse_ctx(p);
    const node *pl;
    const node *const *items;
    uint32_t ni;
    int64_t constant;
    alea_status st;
    (void)end;
    if ((st = alea__parse_open(p, "'(' after the function name")) != ALEA_OK ||
        (st = alea__parse_arg(p, &pl)) != ALEA_OK)
        return st;
    if (pl->kind == N_NUM || alea__parse_const(pl, &constant))
        return alea__error(ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                           "event() of a constant: it takes a pool of dice such as "
                           "d12 + d14 + d18 + d20 (byte %u)",
                           (unsigned)pl->start);
    if ((st = alea__parse_pool_terms(p, pl, "event", &items, &ni)) != ALEA_OK)
        return st;
    event_spec *ev = alea__parse_alloc(p, sizeof *ev);
    event_group *g = alea__parse_alloc(p, ni * sizeof *g);
    if (!ev || !g)
        return alea__nomem(ctx);
    memset(ev, 0, sizeof *ev);
    for (uint32_t i = 0; i < ni; i++) {
        alea__parse_plain_dice(items[i], &g[i].count, &g[i].sides);
        g[i].count_implicit = items[i]->u.pool->count_implicit;
        if (g[i].sides < 2)
            return alea__error(ctx, ALEA_ERR_INVALID, items[i]->start, items[i]->end,
                               "event() dice need at least 2 sides: on a d%lld every "
                               "roll is both a 1 and a critical (byte %u)",
                               (long long)g[i].sides, (unsigned)items[i]->start);
        if (g[i].count > alea_limit_max(ALEA_LIMIT_DICE) - ev->ndice)
            return alea__error(ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                               "too many dice in event() (at most %lld)",
                               (long long)alea_limit_max(ALEA_LIMIT_DICE));
        ev->ndice += g[i].count;
    }
    if (ev->ndice == 0)
        return alea__error(ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                           "event() needs at least one die (byte %u)", (unsigned)pl->start);
    ev->groups = g;
    ev->ngroups = ni;
    if (alea__parse_comma(p)) {
        int which;
        if ((st = alea__parse_word(p, order,
                                   "smallest or largest (which criticals 1s cancel first)",
                                   &which)) != ALEA_OK)
            return st;
        ev->cancel_largest = which == 1;
    }
    if ((st = alea__mech_node(p, &alea__mech_event, ev, start, alea__parse_here(p), out)) !=
        ALEA_OK)
        return st;
    return alea__parse_close(p, "')'", NULL);
}

/* ---- printing and the breakdown ---- */

static void event_print(alea__out *o, const node *n)
{
    const event_spec *ev = n->u.mech.spec;
    alea__out_str(o, "event(");
    for (uint32_t i = 0; i < ev->ngroups; i++) {
        if (i)
            alea__out_str(o, " + ");
        if (!ev->groups[i].count_implicit)
            alea__out_i64(o, ev->groups[i].count);
        alea__out_char(o, 'd');
        alea__out_i64(o, ev->groups[i].sides);
    }
    if (ev->cancel_largest)
        alea__out_str(o, ", largest");
    alea__out_char(o, ')');
}

/* " [2, 14!+5, 9, 20!+3]", with " critical failure" when it was. */
static void event_show(alea__out *o, const alea_roll *r, const rec *rc)
{
    alea__out_str(o, " [");
    for (uint32_t i = 0; i < rc->ndice; i++) {
        if (i)
            alea__out_str(o, ", ");
        alea__show_die(o, r, &r->dice[rc->die0 + i], NULL);
    }
    alea__out_char(o, ']');
    if (rc->flags & CRIT_FAIL)
        alea__out_str(o, " critical failure");
}

static void event_show_json(alea__out *o, const rec *rc)
{
    alea__show_json_flag(o, "critical_failure", (rc->flags & CRIT_FAIL) != 0);
}

/* The least total is a critical failure's, with just over half the dice
 * showing 1 (any other roll totals at least one a die, each die 1 or
 * more and some 2 or more); criticals re-roll without limit, so there is
 * no greatest. */
static void event_bounds(const node *n, alea__range *r)
{
    const event_spec *ev = n->u.mech.spec;
    memset(r, 0, sizeof *r);
    r->lo = ev->ndice / 2 + 1;
    r->lo_at = 1;
    r->hi_inf = 1;
}

const alea__mech alea__mech_event = {
    .name = "event", .parse = event_parse, .words = order, .print = event_print,
    .roll = event_roll, .exact = event_exact, .show = event_show,
    .show_json = event_show_json, .bounds = event_bounds,
};
