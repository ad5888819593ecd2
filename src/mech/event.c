/*
 * mech/event.c -- seed 001's event pools: exploding criticals cancelled by
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
#include "../roll.h"

/* The sides of die k of the pool (dice are numbered group by group). */
static int64_t sides_of(const event_spec *ev, int64_t k)
{
    for (uint32_t g = 0; g < ev->ngroups; g++) {
        if (k < ev->groups[g].count)
            return ev->groups[g].sides;
        k -= ev->groups[g].count;
    }
    return 2;
}

alea_status alea__event_roll(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const event_spec *ev = n->u.event;
    alea_status st;
    size_t die0 = 0, nd = (size_t)ev->ndice;
    if ((st = alea__roll_charge(s, n, ev->ndice)) != ALEA_OK ||
        (st = alea__roll_reserve(s, nd, &die0)) != ALEA_OK)
        return st;
    rdie *dice = s->r->dice + die0;
    int64_t ones = 0, ncrit = 0;
    for (size_t k = 0; k < nd; k++) {
        int64_t sides = sides_of(ev, (int64_t)k);
        dice[k].value = alea__roll_d(s, sides);
        dice[k].flags = 0;
        dice[k].score = 0;
        ones += dice[k].value == 1;
        ncrit += dice[k].value == sides;
    }
    int64_t total = 0;
    if (2 * ones > ev->ndice) {
        rc->flags |= REC_CRIT_FAIL;
        total = ones;
        for (size_t k = 0; k < nd; k++)
            if (dice[k].value != 1)
                dice[k].flags |= DIE_DISCARDED;
    } else {
        /* Cancel `ones` criticals, smallest (or largest) dice first, earlier
         * dice first among equals. */
        for (int64_t c = 0; c < ones && c < ncrit; c++) {
            size_t pick = nd;
            for (size_t k = 0; k < nd; k++) {
                int64_t sk = sides_of(ev, (int64_t)k);
                if (dice[k].value != sk || (dice[k].flags & DIE_CANCELLED))
                    continue;
                if (pick == nd || (ev->cancel_largest ? sk > sides_of(ev, (int64_t)pick)
                                                      : sk < sides_of(ev, (int64_t)pick)))
                    pick = k;
            }
            dice[pick].flags |= DIE_CANCELLED;
        }
    }
    for (size_t k = 0; k < nd; k++) {
        rdie *d = &dice[k];
        int64_t sides = sides_of(ev, (int64_t)k), face = d->value;
        int live = !(rc->flags & REC_CRIT_FAIL) && face == sides && !(d->flags & DIE_CANCELLED);
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
        if (!(rc->flags & REC_CRIT_FAIL) && alea__add_ovf(total, d->value, &total))
            return alea__roll_overflow(s, n);
    }
    rc->die0 = (uint32_t)die0;
    rc->ndice = (uint32_t)nd;
    if (!s->trace)
        s->r->ndice = die0;
    *value = total;
    return ALEA_OK;
}
