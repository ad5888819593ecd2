/*
 * mech/tier.c -- the dice tier ladder:
 *   1d4 -> 1d6 -> 1d8 -> 1d10 -> 1d12 -> 1d14 -> 1d16 -> 1d18 -> 1d20 ->
 *   2d12 -> 2d14 -> 2d16 -> 2d18 -> 2d20 -> 3d14 -> 3d16 -> 3d18 -> 3d20 ->
 *   4d16 -> 4d18 -> 4d20 -> 5d18 -> 5d20
 * tier(), downgrade() and event() are parsed into ordinary dice terms with
 * the help of these functions (their parsers).
 */
#include "tier.h"

static const struct {
    uint8_t count, sides;
} ladder[ALEA__TIER_COUNT] = {
    {1, 4},   {1, 6},   {1, 8},   {1, 10},  {1, 12},  {1, 14},  {1, 16},  {1, 18},
    {1, 20},  {2, 12},  {2, 14},  {2, 16},  {2, 18},  {2, 20},  {3, 14},  {3, 16},
    {3, 18},  {3, 20},  {4, 16},  {4, 18},  {4, 20},  {5, 18},  {5, 20},
};

int alea__tier_index(int64_t count, int64_t sides)
{
    for (int i = 0; i < ALEA__TIER_COUNT; i++)
        if (ladder[i].count == count && ladder[i].sides == sides)
            return i;
    return -1;
}

void alea__tier_entry(int i, int64_t *count, int64_t *sides)
{
    if (i < 0)
        i = 0;
    if (i >= ALEA__TIER_COUNT)
        i = ALEA__TIER_COUNT - 1;
    *count = ladder[i].count;
    *sides = ladder[i].sides;
}

const char *alea__tier_ladder_text(void)
{
    return "d4, d6, d8, d10, d12, d14, d16, d18, d20, 2d12, 2d14, 2d16, 2d18, 2d20, "
           "3d14, 3d16, 3d18, 3d20, 4d16, 4d18, 4d20, 5d18, 5d20";
}
