/*
 * dialect.h -- the notations of other tools, as rows of one table: what
 * each reads differently from alea's own notation. The parser consults the
 * row of the context's dialect where the tools disagree; the trees it
 * builds mean the same in every dialect, so the engines never see one.
 * docs/dialects.md is the user's view of this table.
 */
#ifndef ALEA_DIALECT_H
#define ALEA_DIALECT_H

#include <stdint.h>

#include "core.h"

typedef struct alea__dialect {
    const char *name; /* "roll20" */
    const char *tool; /* "Roll20", for messages */
    /* Hints where another tool reads a spelling otherwise (alea_expr_hint):
     * in alea's own dialect, whose readings are the ones that differ. */
    uint8_t hints;
    /* ">N" and "<N" in a die's conditions (success, failure, explosion,
     * reroll) are "at least" and "at most" (Roll20). */
    uint8_t inclusive;
    /* Words after a whole expression describe the roll, as a comment
     * would ("2d6 fire damage"; Roll20); else they are an error that says
     * how to write a comment. */
    uint8_t trailing_text;
    /* "r" rerolls once (Foundry); a bare "r" rerolls the lowest face. */
    uint8_t reroll_once;
    /* "rr" rerolls until no match, as alea's "r" (Foundry, d20). */
    uint8_t rr;
    /* "<>N" in a die's conditions: not equal (rpg-dice-roller). */
    uint8_t not_equal;
    /* Keep and drop steps all choose from the whole pool, and the dice
     * either drops are dropped (rpg-dice-roller); else each step chooses
     * from the dice the one before kept. */
    uint8_t keep_whole;
    /* What "/" is: OP_DIV (rounds down), OP_DIVTRUNC (towards zero, as
     * Python's int() of a quotient) or OP_DIVWHOLE (a real division, which
     * alea's integer values hold only when it is whole). */
    uint8_t slash;
    /* "d%" is a tens die, 0 to 90 (d20); else 1 to 100. */
    uint8_t pct_tens;
    /* "//" is division rounding down, as Python's (d20); else a comment. */
    uint8_t slash_slash;
    /* "!=" is "not equal" (d20, which has no "!"); else an explosion
     * triggered on a face equal to what follows. */
    uint8_t bang_ne;
    /* "%" is Python's modulo, which takes the divisor's sign (d20): not
     * alea's yet, so refused. */
    uint8_t no_mod;
    /* The tool's own meanings that alea does not have yet, refused with an
     * error that says so rather than read in alea's meaning:
     * keep and drop on exploding dice, which choose single rolls
     * (rpg-dice-roller); */
    uint8_t no_keep_explode;
    /* "k"/"p" with a selector of values ("k3": the dice showing 3; "k>3"),
     * several selections that add up, "p", and "ra" (d20). */
    uint8_t no_d20_select;
    /* A group of one expression with a success count judges its total
     * (rpg-dice-roller), not each die plus its numbers (Roll20, alea):
     * refused until alea has it. */
    uint8_t no_group_dice_count;
} alea__dialect;

ALEA__HIDDEN extern const alea__dialect alea__dialects[ALEA_DIALECT__COUNT];

#endif /* ALEA_DIALECT_H */
