/*
 * mods.h -- what the parser's dice files share (parse_dice.c: a die's
 * sides; parse_mods.c: the modifiers after them).
 */
#ifndef ALEA_MODS_H
#define ALEA_MODS_H

#include "parser.h"

/* signed = ["-"] NUM (what: the message's expected text) */
ALEA__HIDDEN alea_status alea__p_signed(parser *p, int64_t *v, const char *what);
/* sides = NUM | "%" | "F" | "{" faces "}", after the 'd' at dtok */
ALEA__HIDDEN alea_status alea__p_sides(parser *p, die_spec *d, const token *dtok);
/* sides = "(" expr ")": rolled sides, into the pool */
ALEA__HIDDEN alea_status alea__p_rolled_sides(parser *p, pool *pl);

#endif /* ALEA_MODS_H */
