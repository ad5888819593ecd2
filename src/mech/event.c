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
 *
 * event(POOL, GOAL) (mech/goal.h: mean, or a condition such as >= 40)
 * chooses which criticals the 1s cancel after seeing the dice: of every
 * way to cancel (how many of each size of die), the one with the largest
 * goal's value, the smallest-first rule winning ties. One function decides
 * (ev_decide), for the roller, the exact engine and the policy table; it
 * values a choice by the shown faces' sum S and the survivors' re-roll
 * tails: S + the tails' means (mean), or the chance of the condition from
 * a table of the tails' sum built when compiled (its length is the target
 * less the dice, times one row per count of survivors: within the support
 * limit, charged to the work budget).
 */
#include "../mech.h"
#include "../pmf.h"
#include "goal.h"

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
    uint8_t has_goal;       /* the 1s cancel as is best for goal */
    alea__goal goal;        /* without has_goal: mean, to value the rule */
    /* Sizes of dice: cls[g] is group g's among the distinct sides
     * (ascending); built with tmean for at most EV_GROUPS groups. */
    uint32_t *cls, ncls;
    int64_t *cls_sides;
    double *tmean;  /* [G]: a critical's expected re-roll tail on group g */
    size_t *lradix; /* [G]: strides of the survivors' counts (with a table) */
    int64_t tlen;   /* a condition: the table's length per row */
    double *dens, *cdf; /* [nlive][tlen]: P(tails = t), P(tails <= t) */
} event_spec;

/* Groups of dice at most in the exact engine and the goal forms (they
 * hold one count per group). */
#define EV_GROUPS 64

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

/* ---- the choice: which criticals the 1s cancel -------------------------- */

/* A decision: the survivors per group, the goal's value with them and
 * with the smallest-first rule (plain), and whether there was a choice. */
typedef struct ev_choice {
    int64_t live[EV_GROUPS];
    double value, plain;
    int choice;
} ev_choice;

/* The table's P(tails <= x) of survivors' row li (0 below 0). */
static double ev_cdf(const event_spec *ev, size_t li, int64_t x)
{
    if (x < 0)
        return 0;
    if (x >= ev->tlen) /* not asked: the shown faces are at least one a die */
        x = ev->tlen - 1;
    return ev->cdf[li * (size_t)ev->tlen + (size_t)x];
}

/* The goal's value of S (every face shown) plus the re-roll tails of the
 * survivors live. */
static double ev_value(const event_spec *ev, const int64_t *live, int64_t S)
{
    const uint32_t G = ev->ngroups;
    if (!ev->goal.is_cond) {
        double v = (double)S;
        for (uint32_t g = 0; g < G; g++)
            v += (double)live[g] * ev->tmean[g];
        return v;
    }
    size_t li = 0;
    for (uint32_t g = 0; g < G; g++)
        li += (size_t)live[g] * ev->lradix[g];
    int64_t t; /* the tails must make T - S */
    if (alea__sub_ovf(ev->goal.cond.value, S, &t))
        t = ev->goal.cond.value < 0 ? -1 : ev->tlen; /* far below or above */
    double at = t >= 0 && t < ev->tlen ? ev->dens[li * (size_t)ev->tlen + (size_t)t] : 0;
    switch (ev->goal.cond.op) {
    case CMP_EQ: return at;
    case CMP_NE: return 1 - at;
    case CMP_LT: return ev_cdf(ev, li, t - 1);
    case CMP_LE: return ev_cdf(ev, li, t);
    case CMP_GT: return 1 - ev_cdf(ev, li, t);
    default: return 1 - ev_cdf(ev, li, t - 1); /* CMP_GE */
    }
}

/* The criticals per size of die, kc[j], of the criticals per group k. */
static void ev_class_counts(const event_spec *ev, const int64_t *k, int64_t *kc)
{
    for (uint32_t j = 0; j < ev->ncls; j++)
        kc[j] = 0;
    for (uint32_t g = 0; g < ev->ngroups; g++)
        kc[ev->cls[g]] += k[g];
}

/* Whether there is a choice: two sizes of dice among the criticals (kc per
 * size, K in all), and some but not all of them cancelled (m). */
static int ev_has_choice(const event_spec *ev, const int64_t *kc, int64_t m, int64_t K)
{
    uint32_t sizes = 0;
    for (uint32_t j = 0; j < ev->ncls; j++)
        sizes += kc[j] > 0;
    return sizes >= 2 && m > 0 && m < K;
}

/* ev_decide's work with a choice, in units: for a condition at most the
 * product of each size's counts (plus one) ways tried, each a pass over
 * the groups (at most the table's rows: within the support limit); for
 * the rest one pass. */
static double ev_decide_cost(const event_spec *ev, const int64_t *kc, int64_t m)
{
    if (!ev->has_goal || !ev->goal.is_cond)
        return (double)ev->ngroups + 1;
    double ways = 1;
    for (uint32_t j = 0; j < ev->ncls; j++)
        ways *= (double)(kc[j] < m ? kc[j] : m) + 1;
    return ways * ((double)ev->ngroups + 1);
}

/* The survivors when cc[j] criticals of size j are cancelled: within a
 * size, the earlier groups' dice first. */
static void ev_apply(const event_spec *ev, const int64_t *k, const int64_t *cc, int64_t *live)
{
    int64_t left[EV_GROUPS];
    memcpy(left, cc, ev->ncls * sizeof *left);
    for (uint32_t g = 0; g < ev->ngroups; g++) {
        int64_t *l = &left[ev->cls[g]], c = k[g] < *l ? k[g] : *l;
        live[g] = k[g] - c;
        *l -= c;
    }
}

/* Cancelling m criticals by sizes, smallest first (or largest first). */
static void ev_rule(const event_spec *ev, const int64_t *kc, int64_t m, int largest,
                    int64_t *cc)
{
    for (uint32_t i = 0; i < ev->ncls; i++) {
        uint32_t j = largest ? ev->ncls - 1 - i : i;
        cc[j] = kc[j] < m ? kc[j] : m;
        m -= cc[j];
    }
}

typedef struct ev_search {
    const event_spec *ev;
    const int64_t *k, *kc;
    int64_t S;
    int64_t cc[EV_GROUPS], room[EV_GROUPS + 1]; /* room[j]: sizes j.. hold */
    int64_t live[EV_GROUPS];
    ev_choice *best;
} ev_search;

/* Every way to cancel rem more criticals of sizes j.. (cc[0..j) chosen). */
static void ev_search_ways(ev_search *s, uint32_t j, int64_t rem)
{
    const event_spec *ev = s->ev;
    if (j == ev->ncls) {
        ev_apply(ev, s->k, s->cc, s->live);
        double v = ev_value(ev, s->live, s->S);
        if (v > s->best->value + 1e-12 * (1 + fabs(s->best->value))) {
            s->best->value = v;
            memcpy(s->best->live, s->live, ev->ngroups * sizeof *s->live);
        }
        return;
    }
    int64_t hi = s->kc[j] < rem ? s->kc[j] : rem;
    int64_t lo = rem - s->room[j + 1] > 0 ? rem - s->room[j + 1] : 0;
    for (int64_t c = lo; c <= hi; c++) {
        s->cc[j] = c;
        ev_search_ways(s, j + 1, rem - c);
    }
}

/*
 * THE decision, for the roller, the exact engine and the policy table: the
 * dice show k[g] criticals per group, `ones` 1s (not a critical failure)
 * and S in all. The 1s cancel m = min(ones, criticals) of them: by the
 * fixed rule, or with a goal the way of largest goal's value (the
 * smallest-first rule unless another is better by more than rounding).
 * For mean that is smallest first without a search: the value is S plus
 * each survivor's tail mean d(d + 1) / (2(d - 1)), which never falls as d
 * grows (a d2's and a d3's are both 3), so cancelling the smallest leaves
 * the most (event_goal_test tries every way and finds no better).
 * Costs ev_decide_cost(...) when there is a choice; the caller charges it.
 */
static void ev_decide(const event_spec *ev, const int64_t *k, int64_t ones, int64_t S,
                      ev_choice *out)
{
    int64_t kc[EV_GROUPS], cc[EV_GROUPS], K = 0;
    ev_class_counts(ev, k, kc);
    for (uint32_t j = 0; j < ev->ncls; j++)
        K += kc[j];
    int64_t m = ones < K ? ones : K;
    ev_rule(ev, kc, m, 0, cc);
    ev_apply(ev, k, cc, out->live);
    out->plain = out->value = ev_value(ev, out->live, S);
    out->choice = ev_has_choice(ev, kc, m, K);
    if (!ev->has_goal) {
        if (ev->cancel_largest) {
            ev_rule(ev, kc, m, 1, cc);
            ev_apply(ev, k, cc, out->live);
            out->value = ev_value(ev, out->live, S);
        }
        return;
    }
    if (!out->choice || !ev->goal.is_cond)
        return;
    ev_search s;
    s.ev = ev;
    s.k = k;
    s.kc = kc;
    s.S = S;
    s.best = out;
    s.room[ev->ncls] = 0;
    for (uint32_t j = ev->ncls; j-- > 0;)
        s.room[j] = s.room[j + 1] + kc[j];
    ev_search_ways(&s, 0, m);
}

/* "d12" or "2d4, d18": cc[j] criticals of each size j. */
static void ev_sizes_text(alea__out *o, const event_spec *ev, const int64_t *cc)
{
    int any = 0;
    for (uint32_t j = 0; j < ev->ncls; j++) {
        if (!cc[j])
            continue;
        if (any++)
            alea__out_str(o, ", ");
        if (cc[j] > 1)
            alea__out_i64(o, cc[j]);
        alea__out_char(o, 'd');
        alea__out_i64(o, ev->cls_sides[j]);
    }
    if (!any)
        alea__out_str(o, "none");
}

/* The criticals cancelled, by size: k[g] - live[g] of each group. */
static void ev_choice_text(alea__out *o, const event_spec *ev, const int64_t *k,
                           const int64_t *live)
{
    int64_t cc[EV_GROUPS] = {0};
    for (uint32_t g = 0; g < ev->ngroups; g++)
        cc[ev->cls[g]] += k[g] - live[g];
    ev_sizes_text(o, ev, cc);
}

/* What a roll with a goal and a choice recorded, in rc->marks (read back
 * by the breakdown and its JSON): the goal's values with the choice and
 * by smallest first, and the criticals cancelled per size of die. */
typedef struct ev_rolled {
    double value, plain;
    const int64_t *cc; /* [ncls] */
} ev_rolled;

/* What the choice prints at most beyond the dice ("; cancelled ", the
 * goal's name and two values, in text and JSON), per size of die
 * ("20 digits d20 digits, "), and per die cancelled (its sides in JSON). */
#define CHOICE_BYTES 200
#define SIZE_BYTES 48
#define CANCEL_BYTES 24

/* The goal forms' cancelling, by ev_decide on the dice shown: in each
 * group, its first criticals beyond the survivors are cancelled. */
static alea_status event_roll_choose(alea__rstate *s, const node *n, rec *rc, rdie *dice,
                                     int64_t ones)
{
    const event_spec *ev = n->u.mech.spec;
    int64_t k[EV_GROUPS], kc[EV_GROUPS], S = 0, K = 0;
    for (uint32_t g = 0, i = 0; g < ev->ngroups; g++) {
        k[g] = 0;
        for (int64_t j = 0; j < ev->groups[g].count; j++, i++) {
            k[g] += dice[i].value == ev->groups[g].sides;
            if (alea__add_ovf(S, dice[i].value, &S))
                return alea__roll_overflow(s, n);
        }
        K += k[g];
    }
    ev_class_counts(ev, k, kc);
    int64_t m = ones < K ? ones : K;
    double cost = ev_has_choice(ev, kc, m, K) ? ev_decide_cost(ev, kc, m) : 1;
    alea_status st = alea__charge(s->ctx, cost < 9e18 ? (int64_t)cost : INT64_MAX, n->start,
                                  n->end); /* the work budget: no dice are drawn */
    if (st != ALEA_OK)
        return st;
    ev_choice ch;
    ev_decide(ev, k, ones, S, &ch);
    if (ch.choice && s->trace) {
        ev_rolled *rd;
        int64_t *cc;
        if ((st = alea__roll_bytes(s, n,
                                   CHOICE_BYTES + SIZE_BYTES * (int64_t)ev->ncls +
                                       CANCEL_BYTES * m)) != ALEA_OK)
            return st;
        if (!(rd = alea__arena_alloc(&s->r->arena, sizeof *rd)) ||
            !(cc = alea__arena_alloc(&s->r->arena, ev->ncls * sizeof *cc)))
            return alea__nomem(s->r->ctx);
        for (uint32_t j = 0; j < ev->ncls; j++)
            cc[j] = 0;
        for (uint32_t g = 0; g < ev->ngroups; g++)
            cc[ev->cls[g]] += k[g] - ch.live[g];
        rd->value = ch.value;
        rd->plain = ch.plain;
        rd->cc = cc;
        rc->marks = (const uint8_t *)rd; /* read back as ev_rolled (show, JSON) */
    }
    for (uint32_t g = 0, i = 0; g < ev->ngroups; g++) {
        int64_t cancel = k[g] - ch.live[g];
        for (int64_t j = 0; j < ev->groups[g].count; j++, i++)
            if (cancel > 0 && dice[i].value == ev->groups[g].sides) {
                dice[i].flags |= DIE_CANCELLED;
                cancel--;
            }
    }
    return ALEA_OK;
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
    } else if (ev->has_goal) {
        if ((st = event_roll_choose(s, n, rc, dice, ones)) != ALEA_OK)
            return st;
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

/* State i: its criticals per group k[g], its 1s (*ones), and the sum of
 * all its 1s and maxima (*shift). */
static alea_status ev_state_of(alea_ctx *ctx, const ev_work *w, size_t i, int64_t *k,
                               int64_t *ones, int64_t *shift)
{
    const event_spec *ev = w->ev;
    int64_t sum = *ones = (int64_t)(i % w->radix[0]);
    for (uint32_t g = 0; g < ev->ngroups; g++) {
        int64_t face;
        k[g] = (int64_t)((i / w->radix[g]) % (size_t)(ev->groups[g].count + 1));
        if (alea__mul_ovf(k[g], ev->groups[g].sides, &face) || alea__add_ovf(sum, face, &sum))
            return alea__overflow_error(ctx, w->n);
    }
    *shift = sum;
    return ALEA_OK;
}

/* The index among the live states of the survivors live. */
static size_t ev_live_index(const ev_work *w, const int64_t *live)
{
    size_t li = 0;
    for (uint32_t g = 0; g < w->ev->ngroups; g++)
        li += (size_t)live[g] * (w->radix[g] / w->radix[0]);
    return li;
}

/* The work of deciding state i's S values (n of them, or 1 when the
 * choice does not depend on S), charged before ev_decide runs. */
static alea_status ev_charge_decide(alea_ctx *ctx, const ev_work *w, const int64_t *k,
                                    int64_t ones, size_t n)
{
    const event_spec *ev = w->ev;
    int64_t kc[EV_GROUPS], K = 0;
    ev_class_counts(ev, k, kc);
    for (uint32_t j = 0; j < ev->ncls; j++)
        K += kc[j];
    int64_t m = ones < K ? ones : K;
    double per = ev_has_choice(ev, kc, m, K) ? ev_decide_cost(ev, kc, m)
                                             : (double)ev->ngroups + 1;
    double units = per * (double)n;
    if (units > 9e18)
        units = 9e18;
    return alea__charge(ctx, (int64_t)units, w->n->start, w->n->end);
}

/* sp's outcomes whose choice (li[j]) is target, shifted by shift, added
 * to into (the li[j] taken are set to SIZE_MAX). */
static alea_status ev_add_part(alea_ctx *ctx, ev_work *w, const alea__pmf *sp, size_t *li,
                               size_t target, int64_t shift, alea__pmf *into)
{
    const node *n = w->n;
    size_t cnt = 0;
    for (size_t j = 0; j < sp->n; j++)
        cnt += li[j] == target;
    alea__pmf part = {0};
    alea_status st = alea__pmf_alloc(ctx, cnt, &part);
    if (st != ALEA_OK)
        return st;
    cnt = 0;
    for (size_t j = 0; j < sp->n; j++)
        if (li[j] == target) {
            alea__pmf_take(ctx, &part, cnt++, sp, j);
            li[j] = SIZE_MAX;
        }
    alea__pmf_free(ctx, &w->point);
    if ((st = alea__pmf_seal(ctx, &part, n)) == ALEA_OK &&
        (st = alea__pmf_point(ctx, shift, ALEA__W(1), &w->point)) == ALEA_OK &&
        (st = alea__pmf_conv(ctx, &part, &w->point, n, &w->tmp)) == ALEA_OK)
        st = alea__pmf_add_scaled(ctx, into, &w->tmp, ALEA__W(1), n);
    alea__pmf_free(ctx, &w->tmp);
    alea__pmf_free(ctx, &part);
    return st;
}

/* ev_decide at the faces' sum *S = shift + v: an overflow error past
 * int64. */
static alea_status ev_decide_at(alea_ctx *ctx, const ev_work *w, const int64_t *k,
                                int64_t ones, int64_t shift, int64_t v, int64_t *S,
                                ev_choice *out)
{
    if (alea__add_ovf(shift, v, S))
        return alea__overflow_error(ctx, w->n);
    ev_decide(w->ev, k, ones, *S, out);
    return ALEA_OK;
}

/* A state with a condition for goal: each S decided on its own (ev_decide),
 * its outcomes split among the survivors chosen. */
static alea_status ev_resolve_each(alea_ctx *ctx, ev_work *w, const alea__pmf *sp,
                                   const int64_t *k, int64_t ones, int64_t shift)
{
    alea_status st = ev_charge_decide(ctx, w, k, ones, sp->n);
    if (st != ALEA_OK)
        return st;
    size_t *li = alea__mem_alloc(ctx, alea__mul_size(sp->n, sizeof *li));
    if (!li)
        return alea__nomem(ctx);
    for (size_t j = 0; j < sp->n && st == ALEA_OK; j++) {
        ev_choice ch;
        int64_t S;
        if ((st = ev_decide_at(ctx, w, k, ones, shift, sp->v[j], &S, &ch)) != ALEA_OK)
            break;
        li[j] = ev_live_index(w, ch.live);
    }
    /* each part a pass over the outcomes: charged per part */
    for (size_t j = 0; j < sp->n && st == ALEA_OK; j++)
        if (li[j] != SIZE_MAX &&
            (st = alea__charge(ctx, (int64_t)sp->n, w->n->start, w->n->end)) == ALEA_OK) {
            size_t target = li[j];
            st = ev_add_part(ctx, w, sp, li, target, shift, &w->next.s[target]);
        }
    alea__mem_free(ctx, li, sp->n * sizeof *li);
    return st;
}

/* Resolve every state: a critical failure is worth its ones (into w->sum,
 * its mass into w->crit); otherwise the state joins the others with the
 * same surviving criticals (ev_decide's) in w->next (nlive of them),
 * shifted by every face (the 1s, the criticals' maxima, the other faces). */
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
        int64_t ones = (int64_t)(i % w->radix[0]), k[EV_GROUPS], shift = 0;
        alea__pmf_free(ctx, &w->point);
        if (2 * ones > w->ev->ndice) { /* the state's whole mass, on its ones */
            w->crit += m;
            if ((st = collapse(ctx, n, sp, ones, &w->point)) != ALEA_OK ||
                (st = alea__pmf_add_scaled(ctx, &w->sum, &w->point, ALEA__W(1), n)) != ALEA_OK)
                return st;
            continue;
        }
        if ((st = ev_state_of(ctx, w, i, k, &ones, &shift)) != ALEA_OK)
            return st;
        if (w->ev->has_goal && w->ev->goal.is_cond) {
            if ((st = ev_resolve_each(ctx, w, sp, k, ones, shift)) != ALEA_OK)
                return st;
            continue;
        }
        /* the fixed rules and mean: the same choice whatever S */
        ev_choice ch;
        if ((st = ev_charge_decide(ctx, w, k, ones, 1)) != ALEA_OK)
            return st;
        ev_decide(w->ev, k, ones, shift, &ch);
        size_t li = ev_live_index(w, ch.live);
        if ((st = alea__pmf_point(ctx, shift, ALEA__W(1), &w->point)) != ALEA_OK ||
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
    ev_state tails[EV_GROUPS];
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

static alea_status ev_policy_rows(alea_ctx *ctx, ev_work *w, alea_policy *pol);

/* The distribution of ev's roll (n: where its errors point); with pol,
 * first a policy row per situation (ev_policy_rows). */
static alea_status ev_run(alea_ctx *ctx, const node *n, const event_spec *ev, alea__pmf *out,
                          alea__notes *notes, alea_policy *pol)
{
    const uint32_t G = ev->ngroups;
    alea_status st = ALEA_OK;
    /* States: ones o in [0, N], criticals k_g in [0, c_g]: mixed radix. */
    double nstates_d = (double)(ev->ndice + 1);
    for (uint32_t g = 0; g < G; g++)
        nstates_d *= (double)(ev->groups[g].count + 1);
    if (nstates_d > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__support_error(ctx, n);
    if (G > EV_GROUPS) /* ev_decide and ev_tails hold one count per group */
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
    if (pol && (st = ev_policy_rows(ctx, &w, pol)) != ALEA_OK)
        goto done;
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

static alea_status event_exact(alea_ctx *ctx, const node *n, alea__pmf *out,
                               alea__notes *notes)
{
    return ev_run(ctx, n, n->u.mech.spec, out, notes, NULL);
}

/* ---- the policy table ---- */

/* "criticals 2d4, d18; one 1", with "; shown 31-37" for a range of the
 * faces' sum (lo > hi: none). */
static void ev_seen_text(alea__out *o, const event_spec *ev, const int64_t *k, int64_t ones,
                         int64_t lo, int64_t hi)
{
    int64_t none[EV_GROUPS] = {0};
    alea__out_str(o, "criticals ");
    ev_choice_text(o, ev, k, none); /* every critical, by size */
    alea__out_str(o, "; ");
    alea__out_i64(o, ones);
    alea__out_str(o, ones == 1 ? " one" : " ones");
    if (lo <= hi) {
        alea__out_str(o, "; shown ");
        alea__out_i64(o, lo);
        if (hi > lo) {
            alea__out_char(o, '-');
            alea__out_i64(o, hi);
        }
    }
}

/* A run of a state's S values with one choice, summed to a row. */
typedef struct ev_run_row {
    int64_t lo, hi, live[EV_GROUPS];
    double prob, value, plain;
} ev_run_row;

static alea_status ev_flush(alea_policy *pol, const event_spec *ev, const int64_t *k,
                            int64_t ones, const ev_run_row *r)
{
    if (r->prob <= 0)
        return ALEA_OK;
    char seen[512], choice[256];
    alea__out o;
    alea__out_init(&o, seen, sizeof seen);
    if (ev->goal.is_cond)
        ev_seen_text(&o, ev, k, ones, r->lo, r->hi);
    else
        ev_seen_text(&o, ev, k, ones, 1, 0);
    alea__out_finish(&o);
    alea__out_init(&o, choice, sizeof choice);
    alea__out_str(&o, "cancel ");
    ev_choice_text(&o, ev, k, r->live);
    alea__out_finish(&o);
    return alea__policy_row(pol, seen, choice, r->prob, r->value / r->prob,
                            r->plain / r->prob, NULL);
}

/* A row per situation with a choice (the criticals by group, the 1s, and
 * with a condition a run of the faces' sums with one choice), in the
 * states' order (by 1s, then criticals); then one row for every roll
 * without a choice. Runs before the states are resolved. */
static alea_status ev_policy_rows(alea_ctx *ctx, ev_work *w, alea_policy *pol)
{
    const event_spec *ev = w->ev;
    alea_status st = ALEA_OK;
    double rest_p = 0, rest_v = 0;
    for (size_t i = 0; i < w->nstates && st == ALEA_OK; i++) {
        const alea__pmf *sp = &w->cur.s[i];
        if (sp->n == 0)
            continue;
        int64_t ones = (int64_t)(i % w->radix[0]), k[EV_GROUPS], kc[EV_GROUPS], shift = 0,
                K = 0;
        if (2 * ones > ev->ndice) { /* a critical failure */
            double m = alea__pmf_mass(sp);
            rest_p += m;
            rest_v += m * alea__goal_value(&ev->goal, ones);
            continue;
        }
        if ((st = ev_state_of(ctx, w, i, k, &ones, &shift)) != ALEA_OK ||
            (st = ev_charge_decide(ctx, w, k, ones, sp->n)) != ALEA_OK)
            break;
        ev_class_counts(ev, k, kc);
        for (uint32_t j = 0; j < ev->ncls; j++)
            K += kc[j];
        int choice = ev_has_choice(ev, kc, ones < K ? ones : K, K);
        ev_run_row r;
        memset(&r, 0, sizeof r);
        for (size_t j = 0; j < sp->n && st == ALEA_OK; j++) {
            ev_choice ch;
            int64_t S;
            if ((st = ev_decide_at(ctx, w, k, ones, shift, sp->v[j], &S, &ch)) != ALEA_OK)
                break;
            double p = sp->p[j];
            if (!choice) {
                rest_p += p;
                rest_v += p * ch.value;
                continue;
            }
            if (r.prob > 0 && memcmp(r.live, ch.live, ev->ngroups * sizeof *r.live) != 0) {
                st = ev_flush(pol, ev, k, ones, &r);
                memset(&r, 0, sizeof r);
            }
            if (r.prob == 0) {
                r.lo = S;
                memcpy(r.live, ch.live, ev->ngroups * sizeof *r.live);
            }
            r.hi = S;
            r.prob += p;
            r.value += p * ch.value;
            r.plain += p * ch.plain;
        }
        if (st == ALEA_OK && choice)
            st = ev_flush(pol, ev, k, ones, &r);
    }
    if (st == ALEA_OK && rest_p > 0)
        st = alea__policy_row(pol,
                              "any other roll (no choice)",
                              "none", rest_p, rest_v / rest_p, rest_v / rest_p, NULL);
    return st;
}

/* The policy of event(POOL, GOAL), or of a fixed rule measured by the
 * mean against the mean's optimum: the rows, then the goal's value of the
 * whole roll from the exact distribution. */
static alea_status event_choices(alea_ctx *ctx, const node *n, alea_policy *out)
{
    const event_spec *ev = n->u.mech.spec;
    alea_status st = alea__goal_policy(out, &ev->goal);
    alea__pmf d = {0};
    if (st == ALEA_OK && (st = ev_run(ctx, n, ev, &d, NULL, out)) == ALEA_OK)
        st = alea__policy_total(out, alea__goal_of_pmf(&ev->goal, &d), NULL);
    alea__pmf_free(ctx, &d);
    if (st == ALEA_OK && !ev->has_goal) { /* the mean's best choices */
        event_spec best = *ev;
        best.has_goal = 1;
        best.cancel_largest = 0;
        if ((st = ev_run(ctx, n, &best, &d, NULL, NULL)) == ALEA_OK)
            st = alea__policy_optimum(out, alea__goal_of_pmf(&best.goal, &d), NULL);
        alea__pmf_free(ctx, &d);
    }
    return st;
}

/* ---- parsing ---- */

static const char *const order[] = {"smallest", "largest", ALEA__GOAL_WORDS, NULL};
static const char order_takes[] = "smallest or largest (which criticals 1s cancel first), or a "
                                  "goal: mean or a condition on the total such as >= 40";

/* The sizes of dice (cls), the expected tails (tmean) and, for a
 * condition, the table of the survivors' tails: row li (survivors r_g per
 * group, li = sum r_g lradix[g]) holds P(tails = t) for t < tlen, built
 * from the row with one survivor less by the tail's recurrence
 * h(t) = (sum of f(t - j), j = 1..d-1, + h(t - d)) / d. */
static alea_status event_tables(alea__parser *p, event_spec *ev, size_t start, size_t end)
{
    alea_ctx *ctx = alea__parse_ctx(p);
    const uint32_t G = ev->ngroups;
    ev->cls = alea__parse_alloc(p, G * sizeof *ev->cls);
    ev->cls_sides = alea__parse_alloc(p, G * sizeof *ev->cls_sides);
    ev->tmean = alea__parse_alloc(p, G * sizeof *ev->tmean);
    ev->lradix = alea__parse_alloc(p, G * sizeof *ev->lradix);
    if (!ev->cls || !ev->cls_sides || !ev->tmean || !ev->lradix)
        return alea__nomem(ctx);
    ev->ncls = 0;
    for (uint32_t g = 0; g < G; g++) { /* the distinct sides, ascending */
        int64_t d = ev->groups[g].sides;
        uint32_t j = 0;
        while (j < ev->ncls && ev->cls_sides[j] < d)
            j++;
        if (j == ev->ncls || ev->cls_sides[j] != d) {
            memmove(ev->cls_sides + j + 1, ev->cls_sides + j,
                    (ev->ncls - j) * sizeof *ev->cls_sides);
            ev->cls_sides[j] = d;
            ev->ncls++;
        }
        /* a tail's mean: (d + 1)/2 a roll, d/(d - 1) rolls */
        ev->tmean[g] = (double)d * ((double)d + 1) / (2 * ((double)d - 1));
    }
    for (uint32_t g = 0; g < G; g++) {
        uint32_t j = 0;
        while (ev->cls_sides[j] != ev->groups[g].sides)
            j++;
        ev->cls[g] = j;
    }
    if (!ev->has_goal || !ev->goal.is_cond)
        return ALEA_OK;
    /* The condition asks P(tails = T - S) and about, with S >= the dice. */
    double tlen = (double)ev->goal.cond.value - (double)ev->ndice + 1, nlive = 1;
    if (tlen < 1)
        tlen = 1;
    for (uint32_t g = 0; g < G; g++)
        nlive *= (double)ev->groups[g].count + 1;
    double cells = tlen * nlive;
    if (cells > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__error(ctx, ALEA_ERR_LIMIT, start, end,
                           "event() with this goal needs a table of %.0f chances (the "
                           "survivors' re-rolls by the target), more than the support limit "
                           "of %lld (byte %u)",
                           cells, (long long)ctx->limits[ALEA_LIMIT_SUPPORT], (unsigned)start);
    alea_status st = alea__charge(ctx, (int64_t)(2 * cells), start, end);
    if (st != ALEA_OK)
        return st;
    ev->tlen = (int64_t)tlen;
    size_t L = (size_t)tlen, rows = (size_t)nlive;
    ev->dens = alea__parse_alloc(p, alea__mul_size(rows * L, sizeof *ev->dens));
    ev->cdf = alea__parse_alloc(p, alea__mul_size(rows * L, sizeof *ev->cdf));
    if (!ev->dens || !ev->cdf)
        return alea__nomem(ctx);
    size_t stride = 1;
    for (uint32_t g = 0; g < G; g++) {
        ev->lradix[g] = stride;
        stride *= (size_t)ev->groups[g].count + 1;
    }
    for (size_t li = 0; li < rows; li++) {
        double *h = ev->dens + li * L, *c = ev->cdf + li * L;
        if (li == 0) { /* no survivor: 0 for certain */
            for (size_t x = 0; x < L; x++)
                h[x] = x == 0;
        } else {
            uint32_t g = 0; /* the first group with a survivor */
            while ((li / ev->lradix[g]) % ((size_t)ev->groups[g].count + 1) == 0)
                g++;
            const double *f = ev->dens + (li - ev->lradix[g]) * L;
            int64_t d = ev->groups[g].sides;
            double win = 0; /* f(x - 1) + ... + f(x - d + 1) */
            for (size_t x = 0; x < L; x++) {
                if (x >= 1)
                    win += f[x - 1];
                if ((int64_t)x - d >= 0)
                    win -= f[x - (size_t)d];
                if (win < 0)
                    win = 0;
                h[x] = (win + ((int64_t)x - d >= 0 ? h[x - (size_t)d] : 0)) / (double)d;
            }
        }
        double run = 0;
        for (size_t x = 0; x < L; x++)
            c[x] = run += h[x];
    }
    return ALEA_OK;
}

/* event = "event" "(" expr [ "," ("smallest" | "largest" | goal) ] ")" */
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
    ev->goal.cond.op = CMP_GE; /* the fixed rules are valued by the mean */
    if (alea__parse_comma(p)) {
        uint8_t op;
        int which;
        if (alea__parse_cmp(p, &op)) {
            ev->has_goal = 1;
            ev->goal.is_cond = 1;
            ev->goal.cond.op = op;
            if ((st = alea__parse_int(p, "event", "target", -INT64_MAX, INT64_MAX,
                                      &ev->goal.cond.value)) != ALEA_OK)
                return st;
        } else if ((st = alea__parse_word(p, order, order_takes, &which)) != ALEA_OK)
            return st;
        else if (which == 2)
            ev->has_goal = 1; /* mean */
        else
            ev->cancel_largest = which == 1;
    }
    if (ev->has_goal && ni > EV_GROUPS)
        return alea__error(ctx, ALEA_ERR_LIMIT, pl->start, pl->end,
                           "event() with a goal takes at most %d groups of dice (byte %u)",
                           EV_GROUPS, (unsigned)pl->start);
    if (ni <= EV_GROUPS && (st = event_tables(p, ev, start, alea__parse_here(p))) != ALEA_OK)
        return st;
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
    if (ev->has_goal) {
        alea__out_str(o, ", ");
        alea__goal_print(o, &ev->goal);
    }
    alea__out_char(o, ')');
}

/* " [2, 14!+5, 9, 20!+3]", with " critical failure" when it was; with a
 * goal and a choice, "; cancelled d12: chance of >= 40 47.2% (smallest
 * first: 45%)", as the roll recorded it. */
static void event_show(alea__out *o, const alea_roll *r, const rec *rc)
{
    const event_spec *ev = rc->n->u.mech.spec;
    alea__out_str(o, " [");
    for (uint32_t i = 0; i < rc->ndice; i++) {
        if (i)
            alea__out_str(o, ", ");
        alea__show_die(o, r, &r->dice[rc->die0 + i], NULL);
    }
    const ev_rolled *rd = ev->has_goal ? (const ev_rolled *)(const void *)rc->marks : NULL;
    if (rd) {
        alea__out_str(o, "; cancelled ");
        ev_sizes_text(o, ev, rd->cc);
        alea__out_str(o, ": ");
        alea__goal_name(o, &ev->goal);
        alea__out_char(o, ' ');
        alea__goal_show(o, &ev->goal, rd->value);
        alea__out_str(o, " (smallest first: ");
        alea__goal_show(o, &ev->goal, rd->plain);
        alea__out_char(o, ')');
    }
    alea__out_char(o, ']');
    if (rc->flags & CRIT_FAIL)
        alea__out_str(o, " critical failure");
}

/* ", "critical_failure": true" when it was; with a goal ", "goal": ">= 40"",
 * then with a choice ", "choice": {"cancelled": [12], "value": 0.5,
 * "value_smallest_first": 0.3333}": the sides of the criticals cancelled,
 * and the goal's value with the choice and by smallest first. */
static void event_show_json(alea__out *o, const rec *rc)
{
    const event_spec *ev = rc->n->u.mech.spec;
    alea__show_json_flag(o, "critical_failure", (rc->flags & CRIT_FAIL) != 0);
    if (!ev->has_goal)
        return;
    alea__out_str(o, ", \"goal\": \"");
    alea__goal_print(o, &ev->goal);
    alea__out_char(o, '"');
    const ev_rolled *rd = (const ev_rolled *)(const void *)rc->marks;
    if (!rd)
        return;
    alea__out_str(o, ", \"choice\": {\"cancelled\": [");
    int any = 0;
    for (uint32_t j = 0; j < ev->ncls; j++)
        for (int64_t c = 0; c < rd->cc[j]; c++) {
            if (any++)
                alea__out_str(o, ", ");
            alea__out_i64(o, ev->cls_sides[j]);
        }
    alea__out_str(o, "], \"value\": ");
    alea__out_double(o, rd->value);
    alea__out_str(o, ", \"value_smallest_first\": ");
    alea__out_double(o, rd->plain);
    alea__out_char(o, '}');
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
    .name = "event", .parse = event_parse, .words = order, .takes = order_takes,
    .print = event_print,
    .roll = event_roll, .exact = event_exact, .show = event_show,
    .show_json = event_show_json, .bounds = event_bounds, .policy = event_choices,
};
