/*
 * mech/dice.c -- +/- DICE on 2d6: "2d6 +1 DICE" rolls one more d6 and keeps
 * the two highest, "-1 DICE" one more and the two lowest; "+1 INJURY DICE"
 * is the same on an injury roll, written apart so that the two never mix on
 * one term. They are extra dice (mech.h), so this file holds their
 * spelling.
 */
#include "../mech.h"

static const char *const dice[] = {"dice", NULL};
static const char *const injury[] = {"injury", "dice", NULL};

const alea__extra alea__extra_dice = {
    .what = "+/- DICE",
    .after = dice,
    .unit = " DICE",
    .example = "2d6 +1 DICE",
};

const alea__extra alea__extra_injury = {
    .what = "+/- INJURY DICE",
    .after = injury,
    .unit = " INJURY DICE",
};
