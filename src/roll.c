/*
 * roll.c -- AST -> one sample. Every face drawn counts against the DICE
 * limit (rerolls and explosions included; a repetition of best/worst counts
 * as one die too, so constant-only repetitions are bounded as well).
 * With a trace, every node leaves a record and every face is kept for the
 * breakdown; without one (alea__sample) only values are computed.
 */
#include "roll.h"

#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "rng.h"
#include "mech.h"

typedef alea__rstate rstate;

static alea_status overflow(rstate *s, const node *n)
{
    return alea__error(s->ctx, ALEA_ERR_OVERFLOW, n->start, n->end,
                       "integer overflow at byte %u: a value went beyond %lld",
                       (unsigned)n->start, (long long)INT64_MAX);
}

static alea_status too_many_dice(rstate *s, const node *n)
{
    return alea__error(s->ctx, ALEA_ERR_LIMIT, n->start, n->end,
                       "too many dice at byte %u (dice limit is %lld)", (unsigned)n->start,
                       (long long)s->dice_limit);
}

static alea_status charge_dice(rstate *s, const node *n, int64_t k)
{
    if (k > s->dice_limit - s->ctx->dice_used)
        return too_many_dice(s, n);
    s->ctx->dice_used += k;
    /* Dice are work too: poll the interrupt hook now and then. */
    return alea__charge(s->ctx, k, n->start, n->end);
}

static alea_status push_face(rstate *s, int64_t face, uint8_t flags)
{
    alea_roll *r = s->r;
    if (!s->trace)
        return ALEA_OK;
    if (r->nfaces == r->fcap) {
        size_t ncap = r->fcap ? r->fcap * 2 : 64;
        rface *nf = alea__mem_realloc(s->ctx, r->faces, r->fcap * sizeof *nf,
                                      alea__mul_size(ncap, sizeof *nf));
        if (!nf)
            return alea__nomem(s->ctx);
        r->faces = nf;
        r->fcap = ncap;
    }
    r->faces[r->nfaces].face = face;
    r->faces[r->nfaces].flags = flags;
    r->nfaces++;
    return ALEA_OK;
}

/* Reserves k dice at the end of r->dice; returns the index of the first. */
static alea_status reserve_dice(rstate *s, size_t k, size_t *first)
{
    alea_roll *r = s->r;
    /* Always a real array, even for 0d6: NULL + 0 is undefined. */
    if (k > r->dcap - r->ndice || !r->dice) {
        size_t ncap = r->dcap ? r->dcap : 16;
        while (ncap - r->ndice < k)
            ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
        rdie *nd = alea__mem_realloc(s->ctx, r->dice, r->dcap * sizeof *nd,
                                     alea__mul_size(ncap, sizeof *nd));
        if (!nd)
            return alea__nomem(s->ctx);
        r->dice = nd;
        r->dcap = ncap;
    }
    *first = r->ndice;
    r->ndice += k;
    return ALEA_OK;
}

static int64_t draw(rstate *s, const die_spec *d)
{
    uint64_t i = alea__rng_face(s->ctx, alea__die_nfaces(d), d->lo,
                                d->kind == FACES_LIST ? d->sorted : NULL);
    return alea__die_face(d, i);
}

/* ---- for the mechanics ---- */

alea_status alea__roll_charge(rstate *s, const node *n, int64_t k)
{
    return charge_dice(s, n, k);
}

alea_status alea__roll_reserve(rstate *s, size_t k, size_t *first)
{
    return reserve_dice(s, k, first);
}

int64_t alea__roll_d(rstate *s, int64_t sides)
{
    return 1 + (int64_t)alea__rng_face(s->ctx, (uint64_t)sides, 1, NULL);
}

alea_status alea__roll_push(rstate *s, int64_t face, uint8_t flags)
{
    return push_face(s, face, flags);
}

alea_status alea__roll_overflow(rstate *s, const node *n)
{
    return overflow(s, n);
}

/* Rolls one die of the pool: reroll, clamp, then explode. The first face
 * has been charged by the caller; rerolls and explosions charge
 * themselves. budget: the explosions the pool has left ("x5=10"), or NULL
 * for no cap. */
static alea_status roll_die(rstate *s, const node *n, const pool *p, int64_t *budget,
                            rdie *die)
{
    alea_status st;
    int64_t total = 0;
    int extra = 0;
    die->first = (uint32_t)s->r->nfaces;
    die->score = 0;
    for (;;) {
        int64_t f = draw(s, &p->die);
        if (p->has_reroll) {
            while (alea__pool_rerolls(p, f)) {
                if ((st = push_face(s, f, FACE_REROLLED)) != ALEA_OK)
                    return st;
                if ((st = charge_dice(s, n, 1)) != ALEA_OK)
                    return st;
                f = draw(s, &p->die);
                if (p->reroll_once)
                    break;
            }
        }
        uint8_t flags = 0;
        /* A clamp on the first roll is seen by the trigger; on every roll
         * (clamp_all), after the trigger saw the face. */
        int64_t v = ALEA__CLAMPED(p) && (p->clamp_all || !extra) ? alea__pool_clamp(p, f) : f;
        int64_t seen = p->clamp_all ? f : v;
        int64_t counted = v;
        if (extra && p->penetrate) {
            if (alea__sub_ovf(v, 1, &counted))
                return overflow(s, n);
            flags |= FACE_PENETRATED;
        }
        if (alea__add_ovf(total, counted, &total))
            return overflow(s, n);
        /* "!" with success counting: every roll is judged (all dice are
         * kept: the parser rejects keep/drop here). */
        int sc;
        if (p->has_success && p->explode == EXPLODE_EACH) {
            die->score += alea__pool_score(p, counted, &flags, FACE_SUCCESS, FACE_FAILURE);
        } else if (s->judge && p->explode == EXPLODE_EACH) {
            if (!alea__judge_score(s->judge, counted, &sc, &flags, FACE_SUCCESS, FACE_FAILURE))
                return overflow(s, n);
            die->score += sc;
        }
        int boom = p->explode != EXPLODE_NONE && !(extra && p->explode_once) &&
                   (!budget || *budget > 0) &&
                   (alea__cond_match(&p->trigger, seen) ||
                    (!extra && p->has_first_trigger && alea__cond_match(&p->first_trigger, seen)));
        if (boom) {
            flags |= FACE_EXPLODED;
            if (budget)
                --*budget;
        }
        if (v != f && (st = push_face(s, f, FACE_CLAMPED)) != ALEA_OK)
            return st;
        if ((st = push_face(s, v, flags)) != ALEA_OK)
            return st;
        if (!boom)
            break;
        if ((st = charge_dice(s, n, 1)) != ALEA_OK)
            return st;
        extra = 1;
    }
    die->value = total;
    die->nfaces = (uint32_t)(s->r->nfaces - die->first);
    die->flags = s->judge && p->explode == EXPLODE_EACH ? DIE_SCORED : 0;
    return ALEA_OK;
}

/* Ends die d, whose faces start at d->first: it shows face f and counts it. */
static alea_status one_face(rstate *s, rdie *d, int64_t f)
{
    d->value = f;
    d->score = 0;
    d->flags = 0;
    alea_status st = push_face(s, f, 0);
    d->nfaces = (uint32_t)(s->r->nfaces - d->first); /* 0 untraced */
    return st;
}

/* Whether face f is in the open-addressing set of cap slots (a power of
 * two); adds it when not. */
static int shown_add(int64_t *set, uint8_t *used, size_t cap, int64_t f)
{
    size_t h = (size_t)(((uint64_t)f * 0x9E3779B97F4A7C15u) >> 32) & (cap - 1);
    for (; used[h]; h = (h + 1) & (cap - 1))
        if (set[h] == f)
            return 1;
    used[h] = 1;
    set[h] = f;
    return 0;
}

/*
 * Step 3a, unique ("u", "uo"): the dice in order, each face that an earlier
 * die shows (and the condition matches, when given) rolled again, until it
 * is new ("u") or once ("uo"); the faces rolled again stay in the trace,
 * marked rerolled, as "r" leaves them. The faces shown are kept in an
 * open-addressing set of at least twice the dice, so a check costs O(1);
 * each roll again is a die against the DICE limit, which bounds "u".
 */
static alea_status roll_unique(rstate *s, const node *n, const pool *p, rdie *dice,
                               int64_t total)
{
    alea_status st;
    size_t cap = 8;
    while (cap < 2 * (size_t)total)
        cap *= 2;
    int64_t *set = alea__arena_alloc(&s->r->arena, alea__mul_size(cap, sizeof *set));
    uint8_t *used = alea__arena_alloc(&s->r->arena, cap);
    if (!set || !used)
        return alea__nomem(s->ctx);
    memset(used, 0, cap);
    for (int64_t i = 0; i < total; i++) {
        dice[i].first = (uint32_t)s->r->nfaces;
        int64_t f = draw(s, &p->die);
        while (shown_add(set, used, cap, f) &&
               (!p->has_unique_cond || alea__cond_match(&p->unique_cond, f))) {
            if ((st = push_face(s, f, FACE_REROLLED)) != ALEA_OK ||
                (st = charge_dice(s, n, 1)) != ALEA_OK)
                return st;
            f = draw(s, &p->die);
            if (p->unique == UNIQUE_ONCE) { /* the second face stands */
                shown_add(set, used, cap, f);
                break;
            }
        }
        if ((st = one_face(s, &dice[i], f)) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

/* A die that shows one face and counts it: no reroll, explosion or success
 * counting. */
static int plain_die(const pool *p)
{
    return !p->has_reroll && p->explode == EXPLODE_NONE && !p->has_success &&
           !p->has_failure && !ALEA__CLAMPED(p);
}

/*
 * The sum of total plain dice without a trace: the sampler's fast path, a
 * draw and an add per die. The dice were charged; the sum is checked for
 * overflow only when total dice at the extreme face could leave int64.
 */
static alea_status sum_plain(rstate *s, const node *n, const pool *p, int64_t total,
                             int64_t *value)
{
    const die_spec *d = &p->die;
    uint64_t nf = alea__die_nfaces(d);
    int64_t sum = 0, edge = d->hi > -d->lo ? d->hi : -d->lo; /* lo > INT64_MIN */
    int safe = d->lo > INT64_MIN && (edge == 0 || total <= INT64_MAX / edge);
    if (d->kind == FACES_RANGE && safe && nf >= 2 && (uint64_t)total <= UINT64_MAX / (nf - 1) &&
        !s->ctx->face_fn) {
        /* lo * total + the draws, modulo 2^64: the true sum lies between
         * total dice at either end, so it is an int64 */
        uint64_t u = (uint64_t)d->lo * (uint64_t)total + alea__rng_sum_below(s->ctx, nf, total);
        sum = u <= INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
    } else {
        for (int64_t i = 0; i < total; i++)
            if (alea__add_ovf(sum, draw(s, d), &sum))
                return overflow(s, n);
    }
    *value = sum;
    return ALEA_OK;
}

typedef alea__ranked order;

int alea__ranked_cmp(const void *a, const void *b)
{
    const order *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->i < y->i ? -1 : (x->i > y->i);
}

/* The n dice in ascending order of value (ties in roll order), in the
 * roll's arena. */
static alea_status sorted_dice(rstate *s, const rdie *dice, size_t n, order **out)
{
    order *ord = alea__arena_alloc(&s->r->arena, alea__mul_size(n, sizeof(order)));
    if (!ord)
        return alea__nomem(s->ctx);
    for (size_t i = 0; i < n; i++) {
        ord[i].v = dice[i].value;
        ord[i].i = i;
    }
    if (n <= 32) { /* insertion sort: a handful of dice, no calls */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && alea__ranked_cmp(&ord[j - 1], &ord[j]) > 0; j--) {
                order t = ord[j];
                ord[j] = ord[j - 1];
                ord[j - 1] = t;
            }
    } else {
        qsort(ord, n, sizeof *ord, alea__ranked_cmp);
    }
    *out = ord;
    return ALEA_OK;
}

/* The selection steps (select.c) on the dice still kept, in sorted order
 * ord; the dice they drop are marked. Charged a unit a die and item. */
static alea_status select_dice(rstate *s, const node *n, rdie *dice, const order *ord,
                               size_t total)
{
    const pool *p = n->u.pool;
    int64_t items = 0;
    for (uint32_t i = 0; i < p->nselects; i++)
        items += p->selects[i].n;
    alea_status st = alea__charge(s->ctx, (int64_t)total * (items + 1), n->start, n->end);
    if (st != ALEA_OK)
        return st;
    int64_t *vals = alea__arena_alloc(&s->r->arena, alea__mul_size(total, sizeof *vals));
    uint8_t *kept = alea__arena_alloc(&s->r->arena, total ? total : 1);
    if (!vals || !kept)
        return alea__nomem(s->ctx);
    for (size_t k = 0; k < total; k++) {
        vals[k] = ord[k].v;
        kept[k] = !(dice[ord[k].i].flags & DIE_DROPPED);
    }
    alea__select_apply(p, vals, total, kept);
    for (size_t k = 0; k < total; k++)
        if (!kept[k])
            dice[ord[k].i].flags |= DIE_DROPPED;
    return ALEA_OK;
}

/* "s", "sd": the dice records in order of value, for the breakdown. */
static alea_status sort_dice(rstate *s, rdie *dice, size_t total, uint8_t sort)
{
    order *ord;
    alea_status st = sorted_dice(s, dice, total, &ord);
    if (st != ALEA_OK)
        return st;
    rdie *copy = alea__arena_alloc(&s->r->arena, alea__mul_size(total, sizeof *copy));
    if (!copy)
        return alea__nomem(s->ctx);
    memcpy(copy, dice, total * sizeof *copy);
    for (size_t k = 0; k < total; k++)
        dice[k] = copy[ord[sort == SORT_DESC ? total - 1 - k : k].i];
    return ALEA_OK;
}

static alea_status eval(rstate *s, const node *n, const rec **out, int64_t *value);

/* "1d(1d20)": rolls the sides (after the count, as written) and makes
 * *out the pool at that value; a trace keeps a copy in the record. */
static alea_status roll_sides(rstate *s, const node *n, rec *rc, pool *out)
{
    const node *se = n->u.pool->sides_expr;
    int64_t sides;
    alea_status st;
    if ((st = eval(s, se, &rc->sides, &sides)) != ALEA_OK ||
        (st = alea__pool_at_sides(s->ctx, n->u.pool, se->start, se->end, sides, 0, out)) !=
            ALEA_OK)
        return st;
    if (s->trace) {
        pool *kept = alea__arena_alloc(&s->r->arena, sizeof *kept);
        if (!kept)
            return alea__nomem(s->ctx);
        *kept = *out;
        rc->rolled = kept;
    }
    return ALEA_OK;
}

/* The end of a pool's roll: its dice r->dice[die0 .. die0 + m) sorted for
 * the breakdown ("s", "sd"), its record, and its value sum. */
static alea_status finish_dice(rstate *s, const pool *p, rec *rc, size_t die0, size_t m,
                               int64_t sum, int64_t *value)
{
    alea_status st;
    uint8_t sort = p->sort ? p->sort : s->sort;
    if (sort && s->trace && (st = sort_dice(s, s->r->dice + die0, m, sort)) != ALEA_OK)
        return st;
    rc->die0 = (uint32_t)die0;
    rc->ndice = (uint32_t)m;
    if (!s->trace && !s->keep_dice)
        s->r->ndice = die0; /* values are no longer needed */
    *value = sum;
    return ALEA_OK;
}

/*
 * rpg-dice-roller's keep and drop on "!" dice (pool keep_rolls): every roll
 * of every chain is a record of its own, and the keep steps choose among
 * the rolls (the parser allows no reroll, clamp, penetration or count of
 * successes here). The count dice were charged; each explosion charges its
 * roll.
 */
static alea_status eval_singles(rstate *s, const node *n, const pool *p, int64_t count,
                                rec *rc, int64_t *value)
{
    alea_status st;
    size_t die0 = s->r->ndice, idx;
    for (int64_t i = 0; i < count; i++) {
        for (;;) {
            int64_t f = draw(s, &p->die);
            int boom = alea__cond_match(&p->trigger, f);
            if ((st = reserve_dice(s, 1, &idx)) != ALEA_OK)
                return st;
            rdie *d = &s->r->dice[idx];
            d->value = f;
            d->score = 0;
            d->flags = 0;
            d->first = (uint32_t)s->r->nfaces;
            if ((st = push_face(s, f, boom ? FACE_EXPLODED : 0)) != ALEA_OK)
                return st;
            d->nfaces = (uint32_t)(s->r->nfaces - d->first); /* 0 untraced */
            if (!boom)
                break;
            if ((st = charge_dice(s, n, 1)) != ALEA_OK)
                return st;
        }
    }
    size_t m = s->r->ndice - die0;
    /* stable: no reallocation below; no dice ("0d6!k1"): none at all */
    rdie *dice = m ? s->r->dice + die0 : NULL;
    int64_t lo, hi;
    alea__pool_keep_range(p, (int64_t)m, &lo, &hi);
    order *ord;
    if ((st = sorted_dice(s, dice, m, &ord)) != ALEA_OK)
        return st;
    int64_t sum = 0;
    for (size_t k = 0; k < m; k++) {
        if ((int64_t)k < lo || (int64_t)k >= hi)
            dice[ord[k].i].flags |= DIE_DROPPED;
        else if (alea__add_ovf(sum, ord[k].v, &sum))
            return overflow(s, n);
    }
    return finish_dice(s, p, rc, die0, m, sum, value);
}

static alea_status eval_dice(rstate *s, const node *n, rec *rc, int64_t *value)
{
    const pool *p = n->u.pool;
    alea_status st;
    int64_t count = p->count;
    if (p->count_expr) {
        if ((st = eval(s, p->count_expr, &rc->count, &count)) != ALEA_OK)
            return st;
        if (count < 0)
            return alea__error(s->ctx, ALEA_ERR_DOMAIN, p->count_expr->start,
                               p->count_expr->end,
                               "negative dice count %lld at byte %u",
                               (long long)count, (unsigned)p->count_expr->start);
    }
    pool rolled; /* with rolled sides: the pool at the value rolled */
    if (p->sides_expr) {
        if ((st = roll_sides(s, n, rc, &rolled)) != ALEA_OK)
            return st;
        p = &rolled;
    }
    int64_t extra = p->extra < 0 ? -p->extra : p->extra;
    if (count > s->dice_limit || extra > s->dice_limit - count)
        return too_many_dice(s, n);
    int64_t total = count + extra;
    if ((st = charge_dice(s, n, total)) != ALEA_OK)
        return st;
    if (p->keep_rolls)
        return eval_singles(s, n, p, total, rc, value);
    if (!s->trace && !s->keep_dice && plain_die(p) && !p->nkeeps && !p->nselects && !p->extra &&
        !p->has_reroll_one && !p->unique)
        return sum_plain(s, n, p, total, value);
    size_t die0 = 0;
    if ((st = reserve_dice(s, (size_t)total, &die0)) != ALEA_OK)
        return st;
    rdie *dice = s->r->dice + die0; /* stable: no reallocation below */
    if (p->unique) { /* the parser allows plain dice only */
        if ((st = roll_unique(s, n, p, dice, total)) != ALEA_OK)
            return st;
    } else if (plain_die(p)) { /* one face each: the common case, without roll_die */
        for (int64_t i = 0; i < total; i++) {
            int64_t f = draw(s, &p->die);
            dice[i].first = (uint32_t)s->r->nfaces;
            if ((st = one_face(s, &dice[i], f)) != ALEA_OK)
                return st;
        }
    } else {
        int64_t left = p->explode_cap; /* explosions the pool has left */
        for (int64_t i = 0; i < total; i++)
            if ((st = roll_die(s, n, p, p->explode_cap ? &left : NULL, &dice[i])) != ALEA_OK)
                return st;
    }

    if (p->has_reroll_one) {
        /* Reroll the lowest matching die (the best choice whatever is kept:
         * every keep range's sum is monotone in each die); the new roll
         * stands. Its old faces are copied to the end of the trace, marked
         * rerolled, so the die's faces stay contiguous. */
        size_t pick = (size_t)total;
        for (size_t i = 0; i < (size_t)total; i++)
            if (alea__cond_match(&p->reroll_one, dice[i].value) &&
                (pick == (size_t)total || dice[i].value < dice[pick].value))
                pick = i;
        if (pick < (size_t)total) {
            rdie old = dice[pick];
            size_t first = s->r->nfaces;
            for (uint32_t k = 0; k < old.nfaces; k++) {
                rface f = s->r->faces[old.first + k];
                if ((st = push_face(s, f.face, (uint8_t)(f.flags | FACE_REROLLED))) != ALEA_OK)
                    return st;
            }
            if ((st = charge_dice(s, n, 1)) != ALEA_OK ||
                (st = roll_die(s, n, p, NULL, &dice[pick])) != ALEA_OK)
                return st;
            dice[pick].first = (uint32_t)first;
            dice[pick].nfaces = (uint32_t)(s->r->nfaces - first);
        }
    }
    int64_t lo, hi;
    alea__pool_keep_range(p, count, &lo, &hi);
    if (lo > 0 || hi < total || p->nselects) {
        order *ord;
        if ((st = sorted_dice(s, dice, (size_t)total, &ord)) != ALEA_OK)
            return st;
        for (size_t k = 0; k < (size_t)total; k++)
            if ((int64_t)k < lo || (int64_t)k >= hi)
                dice[ord[k].i].flags |= DIE_DROPPED;
        if (p->nselects && (st = select_dice(s, n, dice, ord, (size_t)total)) != ALEA_OK)
            return st;
    }

    int64_t sum = 0;
    for (size_t i = 0; i < (size_t)total; i++) {
        rdie *d = &dice[i];
        if (d->flags & DIE_DROPPED)
            continue;
        if (!p->has_success) {
            if (alea__add_ovf(sum, d->value, &sum))
                return overflow(s, n);
        } else if (p->explode == EXPLODE_EACH) {
            if (alea__add_ovf(sum, d->score, &sum))
                return overflow(s, n);
        } else {
            sum += alea__pool_score(p, d->value, &d->flags, DIE_SUCCESS, DIE_FAILURE);
        }
    }
    return finish_dice(s, p, rc, die0, (size_t)total, sum, value);
}

/* Bytes a record may print, at most, in the text and the JSON breakdown
 * together: a term's canonical text (twice: the text and the JSON "term";
 * canonical text is at most 3 bytes a source byte and 16 more), its words, and each
 * die and face, their numbers of up to 20 digits and their flags. */
#define REC_BYTES 48
#define DIE_BYTES 96 /* a face's flags: up to six, "critical" among them */
#define TERM_BYTES(n) (2 * (3 * (int64_t)((n)->end - (n)->start) + 16) + TERM_WORDS)
/* A mechanic's words in a term's breakdown ("doubled down", "critical
 * failure"), in the text and the JSON. */
#define TERM_WORDS 128
/* A dropped repetition shown by its total: ", -9223372036854775808". */
#define REP_BYTES 24

static int structural(const node *n)
{
    switch (n->kind) {
    case N_NUM: case N_SUM: case N_PROD: case N_CMP: case N_MIN: case N_MAX:
    case N_NEG: case N_ABS: case N_BEST: case N_WORST: case N_REPEAT: case N_BIND:
    case N_AND: case N_OR: case N_NOT:
        return 1;
    default:
        return 0;
    }
}

/* Adds what a record will print to the breakdown's bytes, within the
 * BREAKDOWN limit. */
static alea_status charge_bytes(rstate *s, const node *n, int64_t bytes)
{
    int64_t limit = s->ctx->limits[ALEA_LIMIT_BREAKDOWN];
    if (bytes > limit - s->bytes)
        return alea__error(s->ctx, ALEA_ERR_LIMIT, n->start, n->end,
                           "the breakdown would pass %lld bytes at byte %u (breakdown limit); "
                           "roll fewer dice, or ask for the total alone",
                           (long long)limit, (unsigned)n->start);
    s->bytes += bytes;
    return ALEA_OK;
}

/* Work units of evaluating one node: repetitions can evaluate a big tree
 * many times (best(9999, <990 terms>) is 10^7 evaluations, about 70 ms
 * here), so the nodes are paid for as well as the dice (found by fuzzing). */
#define NODE_COST 4

/*
 * "6 x 4d6kh3": nk rolls of the expression, each its own record; the value
 * is the sum of their totals. Untraced (alea_expr_sample, the Monte Carlo
 * tally) it is one roll (nk is 1): a repeat's distribution is one roll's.
 * The JSON lists each roll's dice twice (in "dice" and in "repeat"), so
 * their bytes are charged twice.
 */
static alea_status eval_repeat(rstate *s, const node *n, uint32_t nk, const rec **kids,
                               int64_t *value)
{
    alea_status st;
    int64_t before = s->bytes, sum = 0;
    const rec *dummy;
    for (uint32_t i = 0; i < nk; i++) {
        int64_t a;
        if ((st = eval(s, n->u.rep.a, kids ? &kids[i] : &dummy, &a)) != ALEA_OK)
            return st;
        if (alea__add_ovf(sum, a, &sum))
            return overflow(s, n);
    }
    *value = sum;
    return s->trace ? charge_bytes(s, n, s->bytes - before) : ALEA_OK;
}

/* How many records of operands or repetitions n has (untraced, a repeat
 * is one roll: see eval_repeat). */
static uint32_t operand_count(const rstate *s, const node *n)
{
    switch (n->kind) {
    case N_SUM: case N_PROD: return n->u.chain.n;
    case N_CMP: case N_MIN: case N_MAX: case N_AND: case N_OR: return 2;
    case N_NEG: case N_ABS: case N_NOT: return 1;
    case N_BIND: return 2;
    case N_BEST: case N_WORST: return (uint32_t)n->u.rep.n;
    case N_REPEAT: return s->trace ? (uint32_t)n->u.rep.n : 1;
    default: return 0;
    }
}

/* A chain "a + b - c", "a * b / c", left to right: *value. */
static alea_status eval_chain(rstate *s, const node *n, const rec **kids, int64_t *value)
{
    alea_status st;
    const rec *dummy;
    int64_t v = 0;
    for (uint32_t i = 0; i < n->u.chain.n; i++) {
        const node *item = n->u.chain.items[i];
        int64_t a;
        if ((st = eval(s, item, kids ? &kids[i] : &dummy, &a)) != ALEA_OK)
            return st;
        if (i == 0) {
            v = a;
            continue;
        }
        switch (alea__arith(n->u.chain.ops[i], v, a, &v)) {
        case ARITH_OK: break;
        case ARITH_DIV0:
            return alea__error(s->ctx, ALEA_ERR_DOMAIN, item->start, item->end,
                               "division by zero at byte %u", (unsigned)item->start);
        case ARITH_INEXACT:
            return alea__inexact_error(s->ctx, n->start, item->end, 0);
        case ARITH_NEGPOW:
            return alea__error(s->ctx, ALEA_ERR_DOMAIN, n->start, item->end,
                               "a negative power is not a whole number at byte %u "
                               "(only 1 and -1 have whole negative powers)",
                               (unsigned)n->start);
        default: return overflow(s, n);
        }
    }
    *value = v;
    return ALEA_OK;
}

/* The operators of one or two operands: -a, abs(a), a < b, min(a, b),
 * max(a, b). */
static alea_status eval_operands(rstate *s, const node *n, const rec **kids, int64_t *value)
{
    alea_status st;
    const rec *dummy;
    int64_t a, b;
    int unary = n->kind == N_NEG || n->kind == N_ABS || n->kind == N_NOT;
    if ((st = eval(s, n->kind == N_NOT ? n->u.bin.a : unary ? n->u.un.a : n->u.bin.a,
                   kids ? &kids[0] : &dummy, &a)) != ALEA_OK)
        return st;
    if (n->kind == N_NOT) {
        *value = !alea__truth(a);
        return ALEA_OK;
    }
    if (unary) {
        if (n->kind == N_ABS && a >= 0)
            *value = a;
        else if (alea__sub_ovf(0, a, value))
            return overflow(s, n);
        return ALEA_OK;
    }
    if ((st = eval(s, n->u.bin.b, kids ? &kids[1] : &dummy, &b)) != ALEA_OK)
        return st;
    if (n->kind == N_AND || n->kind == N_OR) { /* both rolled: see parse_logic */
        *value = n->kind == N_AND ? alea__truth(a) && alea__truth(b)
                                  : alea__truth(a) || alea__truth(b);
    } else if (n->kind == N_MIN) {
        *value = a < b ? a : b;
    } else if (n->kind == N_MAX) {
        *value = a > b ? a : b;
    } else {
        cond c = {n->op, b};
        *value = alea__cond_match(&c, a);
    }
    return ALEA_OK;
}

/* best(nk, a), worst(nk, a): the highest or lowest of nk rolls, its index
 * in rc->kept. Past ALEA__REP_SHOWN, a dropped repetition prints its total
 * only: the bytes of its breakdown are given back once it is dropped. */
static alea_status eval_best(rstate *s, const node *n, uint32_t nk, const rec **kids, rec *rc,
                             int64_t *value)
{
    alea_status st;
    const rec *dummy;
    int compact = nk > ALEA__REP_SHOWN;
    int64_t start = s->bytes, kept_bytes = 0, v = 0;
    for (uint32_t i = 0; i < nk; i++) {
        int64_t a, before = s->bytes;
        if ((st = eval(s, n->u.rep.a, kids ? &kids[i] : &dummy, &a)) != ALEA_OK)
            return st;
        int keep = i == 0 || (n->kind == N_BEST ? a > v : a < v);
        if (keep) {
            v = a;
            rc->kept = i;
        }
        if (compact && s->trace) {
            int64_t mine = s->bytes - before;
            if (keep)
                kept_bytes = mine;
            s->bytes = start + kept_bytes + REP_BYTES * (int64_t)i;
        }
    }
    *value = v;
    return ALEA_OK;
}

/* "let x = value in body": the value rolled once (its record kids[0], the
 * only one of its dice), bound to x's slot while the body (kids[1]) is
 * rolled; each use of x reads the slot (an N_NAME, no dice). */
static alea_status eval_bind(rstate *s, const node *n, const rec **kids, int64_t *value)
{
    alea_status st;
    const rec *dummy;
    const node *x = n->u.bind.name;
    alea__env_saved saved;
    int64_t v;
    if ((st = eval(s, n->u.bind.value, kids ? &kids[0] : &dummy, &v)) != ALEA_OK ||
        (st = alea__env_bind(s->ctx, s->env, x->u.name.slot, v, x->start, x->end, &saved)) !=
            ALEA_OK)
        return st;
    st = eval(s, n->u.bind.body, kids ? &kids[1] : &dummy, value);
    alea__env_unbind(s->env, x->u.name.slot, &saved);
    return st;
}

/* What n's record will print, charged to the breakdown's bytes: a term's
 * text and the dice and faces it rolled since dice0 and faces0. */
static alea_status charge_record(rstate *s, const node *n, size_t dice0, size_t faces0)
{
    int64_t bytes = REC_BYTES;
    if (n->label) /* in the JSON: the text, the term, its label and its
                     entry in "labels", each escaped (twice as long at
                     most); in Markdown, escaped */
        bytes += 9 * (int64_t)n->label_len + 96;
    if (n->kind == N_BIND) /* "let x = ... in ...": x's text; in the JSON's
                              "bound", x and its value's text again */
        bytes += 2 * TERM_BYTES(n->u.bind.name) + TERM_BYTES(n->u.bind.value);
    else if (n->kind == N_MECH && n->u.mech.ops->members) /* its text around its
                                                             members, whose records
                                                             hold its dice */
        bytes += TERM_BYTES(n);
    else if (!structural(n))
        bytes += TERM_BYTES(n) +
                 DIE_BYTES * (int64_t)(s->r->ndice - dice0 + s->r->nfaces - faces0);
    return charge_bytes(s, n, bytes);
}

alea_status alea__roll_bytes(rstate *s, const node *n, int64_t bytes)
{
    return s->trace ? charge_bytes(s, n, bytes) : ALEA_OK;
}

static alea_status eval(rstate *s, const node *n, const rec **out, int64_t *value)
{
    alea_status st;
    if ((st = alea__charge(s->ctx, NODE_COST, n->start, n->end)) != ALEA_OK)
        return st;
    rec local, *rc = &local;
    if (s->trace) {
        rc = alea__arena_alloc(&s->r->arena, sizeof *rc);
        if (!rc)
            return alea__nomem(s->ctx);
    }
    memset(rc, 0, sizeof *rc);
    rc->n = n;
    int64_t v = 0;
    size_t dice0 = s->r->ndice, faces0 = s->r->nfaces;

    /* Operands: up to two, or a chain, or repetitions. */
    uint32_t nk = operand_count(s, n);
    const rec **kids = NULL;
    /* Repetitions count as dice: charge them all before allocating for them. */
    if ((n->kind == N_BEST || n->kind == N_WORST || n->kind == N_REPEAT) &&
        (st = charge_dice(s, n, nk)) != ALEA_OK)
        return st;
    if (s->trace && nk > 0) {
        kids = alea__arena_alloc(&s->r->arena, alea__mul_size(nk, sizeof *kids));
        if (!kids)
            return alea__nomem(s->ctx);
        memset((void *)kids, 0, nk * sizeof *kids);
        rc->kids = kids;
        rc->nkids = nk;
    }

    switch (n->kind) {
    case N_NUM: v = n->u.num; break;
    case N_DICE: st = eval_dice(s, n, rc, &v); break;
    case N_SUM: case N_PROD: st = eval_chain(s, n, kids, &v); break;
    case N_NEG: case N_ABS: case N_CMP: case N_MIN: case N_MAX:
    case N_AND: case N_OR: case N_NOT:
        st = eval_operands(s, n, kids, &v);
        break;
    case N_MECH: st = n->u.mech.ops->roll(s, n, rc, &v); break;
    case N_BEST: case N_WORST: st = eval_best(s, n, nk, kids, rc, &v); break;
    case N_REPEAT: st = eval_repeat(s, n, nk, kids, &v); break;
    case N_NAME:
        st = alea__env_get(s->ctx, s->env, n->u.name.slot, n->start, n->end, &v);
        break;
    case N_BIND: st = eval_bind(s, n, kids, &v); break;
    default: return alea__broken(s->ctx, n->start, n->end, "an unknown node kind");
    }
    if (st != ALEA_OK)
        return st;
    rc->value = v;
    if (s->trace) {
        if ((st = charge_record(s, n, dice0, faces0)) != ALEA_OK)
            return st;
        *out = rc;
    }
    *value = v;
    return ALEA_OK;
}

alea_status alea__roll_eval(rstate *s, const node *n, const rec **out, int64_t *value)
{
    return eval(s, n, out, value);
}

static void reset(alea_roll *r)
{
    alea__arena_reset(&r->arena);
    r->ndice = 0;
    r->nfaces = 0;
    r->root = NULL;
    r->expr = NULL;
    r->total = 0;
}

alea_status alea__roll(alea_ctx *ctx, const alea_expr *e, alea_roll *r)
{
    alea__env env;
    rstate s = {ctx, r, 1, ctx->limits[ALEA_LIMIT_DICE], 0, 0, NULL, 0, NULL};
    int64_t total;
    const rec *root = NULL;
    alea_status st = ALEA_OK;
    reset(r);
    /* An expression without names has no environment (s.env NULL): nothing
     * to set up per roll of the many rolls of one expression. The comment,
     * once in the text and once in the JSON (escaped, at most twice as
     * long), and twice escaped as Markdown. */
    if (e->nslots && (st = alea__env_init(ctx, &r->arena, e->nslots, &env)) == ALEA_OK)
        s.env = &env;
    if (st == ALEA_OK && e->nparams)
        st = alea__env_params(ctx, e, &env);
    if (st == ALEA_OK && e->comment)
        st = charge_bytes(&s, e->root, 4 * (int64_t)e->comment_len + 32);
    if (st == ALEA_OK)
        st = eval(&s, e->root, &root, &total);
    if (st != ALEA_OK) {
        reset(r);
        return st;
    }
    r->expr = e;
    r->root = root;
    r->total = total;
    r->bytes = s.bytes;
    return ALEA_OK;
}

void alea__scratch_init(alea_ctx *ctx, alea_roll *scratch)
{
    memset(scratch, 0, sizeof *scratch);
    scratch->ctx = ctx;
    alea__arena_init(&scratch->arena, ctx);
}

void alea__scratch_free(alea_roll *scratch)
{
    alea_ctx *ctx = scratch->ctx;
    alea__arena_free(&scratch->arena);
    alea__mem_free(ctx, scratch->dice, scratch->dcap * sizeof *scratch->dice);
    alea__mem_free(ctx, scratch->faces, scratch->fcap * sizeof *scratch->faces);
}

alea_status alea__sample_with(alea_ctx *ctx, const alea_expr *e, alea_roll *scratch,
                              int64_t *total)
{
    alea__env env;
    rstate s = {ctx, scratch, 0, ctx->limits[ALEA_LIMIT_DICE], 0, 0, NULL, 0, NULL};
    const rec *root = NULL;
    alea_status st = ALEA_OK;
    reset(scratch);
    if (e->nslots && (st = alea__env_init(ctx, &scratch->arena, e->nslots, &env)) == ALEA_OK)
        s.env = &env; /* none without names, as alea__roll */
    if (st == ALEA_OK && e->nparams)
        st = alea__env_params(ctx, e, &env);
    return st == ALEA_OK ? eval(&s, e->root, &root, total) : st;
}

alea_status alea__sample(alea_ctx *ctx, const alea_expr *e, int64_t *total)
{
    alea_roll tmp;
    alea__scratch_init(ctx, &tmp);
    alea_status st = alea__sample_with(ctx, e, &tmp, total);
    alea__scratch_free(&tmp);
    return st;
}
