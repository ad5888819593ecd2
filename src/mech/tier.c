/*
 * mech/tier.c -- the dice tier ladder:
 *   1d4 -> 1d6 -> 1d8 -> 1d10 -> 1d12 -> 1d14 -> 1d16 -> 1d18 -> 1d20 ->
 *   2d12 -> 2d14 -> 2d16 -> 2d18 -> 2d20 -> 3d14 -> 3d16 -> 3d18 -> 3d20 ->
 *   4d16 -> 4d18 -> 4d20 -> 5d18 -> 5d20
 * tier(TERM, K) moves a term K steps along it; downgrade(POOL, K) takes K
 * steps off a pool, the highest entry each time. Both parse into ordinary
 * dice terms.
 */
#include "../mech.h"

#define TIER_COUNT 23

static const struct {
    uint8_t count, sides;
} ladder[TIER_COUNT] = {
    {1, 4},   {1, 6},   {1, 8},   {1, 10},  {1, 12},  {1, 14},  {1, 16},  {1, 18},
    {1, 20},  {2, 12},  {2, 14},  {2, 16},  {2, 18},  {2, 20},  {3, 14},  {3, 16},
    {3, 18},  {3, 20},  {4, 16},  {4, 18},  {4, 20},  {5, 18},  {5, 20},
};

static const char ladder_text[] =
    "d4, d6, d8, d10, d12, d14, d16, d18, d20, 2d12, 2d14, 2d16, 2d18, 2d20, "
    "3d14, 3d16, 3d18, 3d20, 4d16, 4d18, 4d20, 5d18, 5d20";

/* The ladder position of count dX (0 = 1d4 ... 22 = 5d20), or -1. */
static int tier_index(int64_t count, int64_t sides)
{
    for (int i = 0; i < TIER_COUNT; i++)
        if (ladder[i].count == count && ladder[i].sides == sides)
            return i;
    return -1;
}

/* The dice of ladder position i (clamped to the ladder). */
static void tier_entry(int64_t i, int64_t *count, int64_t *sides)
{
    i = i < 0 ? 0 : i >= TIER_COUNT ? TIER_COUNT - 1 : i;
    *count = ladder[i].count;
    *sides = ladder[i].sides;
}

/* tier = "tier" "(" expr "," expr ")": a ladder entry moved k steps. */
static alea_status tier_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    alea_ctx *ctx = alea__parse_ctx(p);
    const node *term;
    int64_t count, sides, k;
    alea_status st;
    (void)end;
    if ((st = alea__parse_open(p, "'(' after the function name")) != ALEA_OK ||
        (st = alea__parse_arg(p, &term)) != ALEA_OK)
        return st;
    int idx = alea__parse_plain_dice(term, &count, &sides) ? tier_index(count, sides) : -1;
    if (idx < 0)
        return alea__error(ctx, ALEA_ERR_INVALID, term->start, term->end,
                           "tier() takes a dice term on the tier ladder (%s) at byte %u",
                           ladder_text, (unsigned)term->start);
    if ((st = alea__parse_expect_comma(p, "',' and the number of steps")) != ALEA_OK ||
        (st = alea__parse_int(p, "tier", "number of steps", -TIER_COUNT * 4, TIER_COUNT * 4,
                              &k)) != ALEA_OK)
        return st;
    /* Upgrades stop at 5d20, downgrades at d4. */
    tier_entry(idx + k, &count, &sides);
    size_t call_end = alea__parse_here(p);
    if ((st = alea__parse_dice(p, count, sides, start, call_end, out)) != ALEA_OK)
        return st;
    return alea__parse_close(p, "')'", NULL);
}

/* downgrade = "downgrade" "(" expr "," expr ")": a pool downgraded k times. */
static alea_status downgrade_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    enum { MOST = TIER_COUNT * 8 }; /* ladder entries in one pool */
    alea_ctx *ctx = alea__parse_ctx(p);
    const node *pl;
    const node *const *items;
    uint32_t ni;
    int64_t k;
    alea_status st;
    (void)start;
    (void)end;
    if ((st = alea__parse_open(p, "'(' after the function name")) != ALEA_OK ||
        (st = alea__parse_arg(p, &pl)) != ALEA_OK ||
        (st = alea__parse_pool_terms(p, pl, "downgrade", &items, &ni)) != ALEA_OK)
        return st;
    if ((st = alea__parse_expect_comma(p, "',' and the number of dice lost")) != ALEA_OK ||
        (st = alea__parse_int(p, "downgrade", "number of dice lost", 0, 1000, &k)) != ALEA_OK)
        return st;
    /* Ladder entries: a term on the ladder is one entry (2d12); another
     * term NdX is N entries of 1dX (3d4). */
    int idx[MOST];
    uint32_t ne = 0;
    for (uint32_t i = 0; i < ni; i++) {
        int64_t c, s;
        alea__parse_plain_dice(items[i], &c, &s);
        int e = tier_index(c, s);
        int64_t reps = 1;
        if (e < 0) {
            e = tier_index(1, s);
            reps = c;
        }
        if (e < 0)
            return alea__error(ctx, ALEA_ERR_INVALID, items[i]->start, items[i]->end,
                               "downgrade() needs dice on the tier ladder (%s) at byte %u",
                               ladder_text, (unsigned)items[i]->start);
        for (int64_t r = 0; r < reps; r++) {
            if (ne == MOST)
                return alea__error(ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                                   "downgrade() takes at most %d dice", MOST);
            idx[ne++] = e;
        }
    }
    if (ne == 0)
        return alea__error(ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                           "downgrade() needs at least one die (byte %u)", (unsigned)pl->start);
    /* Each die lost moves the highest entry one step down; d4 is the floor. */
    for (int64_t step = 0; step < k; step++) {
        uint32_t hi = 0;
        for (uint32_t i = 1; i < ne; i++)
            if (idx[i] >= idx[hi])
                hi = i;
        if (idx[hi] == 0)
            break;
        idx[hi]--;
    }
    /* A pool is unordered: present it up the ladder, as in
     * downgrade(d12 + d14 + d18 + d20, 2) = d12 + d14 + d16 + d18. */
    for (uint32_t i = 1; i < ne; i++)
        for (uint32_t j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    const node **dice = alea__parse_alloc(p, ne * sizeof *dice);
    if (!dice)
        return alea__nomem(ctx);
    for (uint32_t i = 0; i < ne; i++) {
        int64_t cc, ss;
        tier_entry(idx[i], &cc, &ss);
        if ((st = alea__parse_dice(p, cc, ss, pl->start, pl->end, &dice[i])) != ALEA_OK)
            return st;
    }
    if ((st = alea__parse_sum(p, dice, ne, pl->start, pl->end, out)) != ALEA_OK)
        return st;
    return alea__parse_close(p, "')'", NULL);
}

const alea__mech alea__mech_tier = {.name = "tier", .parse = tier_parse};
const alea__mech alea__mech_downgrade = {.name = "downgrade", .parse = downgrade_parse};
