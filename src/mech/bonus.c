/*
 * mech/bonus.c -- bonus and penalty dice: "d20 +1d" rolls one more d20 and
 * keeps the highest, "-1d" the lowest; training, "+proficient", "+expert",
 * "+master", is +1d, +2d, +3d under the label "proficiency". They are extra
 * dice (mech.h), so this file holds their spelling. And the passive score:
 *   passive(MOD [, proficient | expert | master])
 * is 10 + MOD, + 4 proficient, + 6 expert, + 7 master: parsed into the sum
 * it stands for.
 */
#include "../mech.h"

static const char *const training[] = {"proficient", "expert", "master", NULL};

static alea_status passive_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    static const int64_t bonus_of[] = {4, 6, 7};
    alea_status st;
    const node *mod;
    if ((st = alea__parse_open(p, "'(' after passive")) != ALEA_OK ||
        (st = alea__parse_arg(p, &mod)) != ALEA_OK)
        return st;
    int64_t bonus = 0;
    if (alea__parse_comma(p)) {
        int w;
        if ((st = alea__parse_word(p, training, "proficient, expert or master", &w)) != ALEA_OK)
            return st;
        bonus = bonus_of[w];
    }
    size_t close_end;
    node *ten, *b; /* 10 spans the name, the bonus the ')' */
    const node *items[3];
    if ((st = alea__parse_close(p, "')' after the passive score's arguments", &close_end)) !=
        ALEA_OK)
        return st;
    if ((st = alea__parse_node(p, N_NUM, start, end, &ten)) != ALEA_OK ||
        (st = alea__parse_node(p, N_NUM, close_end - 1, close_end, &b)) != ALEA_OK)
        return st;
    ten->u.num = 10;
    b->u.num = bonus;
    items[0] = ten;
    items[1] = mod;
    items[2] = b;
    return alea__parse_sum(p, items, bonus ? 3 : 2, start, close_end, out);
}

const alea__mech alea__mech_passive = {.name = "passive", .parse = passive_parse,
                                       .words = training};

const alea__extra alea__extra_bonus = {
    .what = "bonus dice",
    .after = NULL, /* "+1d" */
    .unit = "d",
    .example = "d20 +1d",
    .on_left = 1,
    .ranks = training,
    .rank_label = "proficiency",
    .rank_what = "training",
};
