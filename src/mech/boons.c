/*
 * mech/boons.c -- boons and banes: "2d10 +2B" rolls two more d10 and keeps
 * the two highest, "-1B" one more and the lowest. Each side counts at most
 * five ("up to five boons"), capped before the two are netted, so both
 * sides print. On a zero-sided die they make the null die: "d0 +1B" is 1,
 * "d0 -1B" is -1, "d0" alone 0. They are extra dice (mech.h), so this file
 * holds their spelling; the boons arithmetic of a distribution
 * (alea_dist_boons, alea_games.h) is with the Double Down roll, in mech/dd.c.
 */
#include "../mech.h"

static const char *const after[] = {"b", NULL};

const alea__extra alea__extra_boon = {
    .what = "boons and banes",
    .after = after,
    .unit = "B",
    .example = "2d10 +1B",
    .split = 1,
    .cap = 5,
    .null_die = 1,
};
