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
     * in alea's own dialect, the text is read in every row that does not
     * hint, and each that reads it as another tree is named (parse.c). */
    uint8_t hints;
    /* ">N" and "<N" in a die's conditions (success, failure, explosion,
     * reroll) are "at least" and "at most" (Roll20). */
    uint8_t inclusive;
    /* Words after a whole expression describe the roll, as a comment
     * would ("2d6 fire damage"; Roll20, d20); else they are an error that says
     * how to write a comment. */
    uint8_t trailing_text;
    /* Advantage written as a word ("1d20 adv") is alea's bonus die, read
     * as d20 +1d; else the tools' 2d20kh1 (2d20kl1 for disadvantage). */
    uint8_t adv_bonus;
    /* the tool reads an advantage word after a roll as its description and
     * rolls one d20 (Roll20): alea reads the mechanic, with a hint */
    uint8_t adv_words_describe;
    /* "r" rerolls once (Foundry); a bare "r" rerolls the lowest face. */
    uint8_t reroll_once;
    /* Several rerolls on one die reroll a face that any of them matches
     * ("2d8r8r2": Roll20, alea); else they are refused (Foundry and d20
     * apply them one after another). */
    uint8_t several_rerolls;
    /* "rr" rerolls until no match, as alea's "r" (Foundry, d20). */
    uint8_t rr;
    /* "<>N" in a die's conditions: not equal (rpg-dice-roller). */
    uint8_t not_equal;
    /* Keep and drop steps all choose from the whole pool, and the dice
     * either drops are dropped (rpg-dice-roller); else each step chooses
     * from the dice the one before kept. */
    uint8_t keep_whole;
    /* What "/" is: OP_DIV (rounds down) or OP_DIVWHOLE (a real division,
     * as Roll20, Foundry VTT, rpg-dice-roller and d20 divide, which alea's
     * integer values hold only when it is whole). */
    uint8_t slash;
    /* A comparison after dice compares the total ("3d6>3" is 1 or 0): the
     * tool has no success counts (d20). */
    uint8_t cmp_total;
    /* "/" is a real division whose whole expression is truncated towards
     * zero at the end (d20): a "/" that ends the expression's product is
     * OP_DIVTRUNC, any other is `slash`. */
    uint8_t trunc_total;
    /* "round" sends a half towards plus infinity, as JavaScript's
     * Math.round (Roll20, Foundry VTT); else away from zero, as alea's
     * "/~" and the mathjs round rpg-dice-roller uses. */
    uint8_t round_half_up;
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
    /* Keep and drop on "!" dice choose among single rolls, each explosion
     * an entry of its own (rpg-dice-roller); else they choose whole dice. */
    uint8_t keep_rolls;
    /* A bare "r" or "ro" rerolls the die's lowest face, until it stops or
     * once (rpg-dice-roller). */
    uint8_t bare_reroll;
    /* "k" and "p" take Avrae's d20 selectors ("k3": the dice showing 3;
     * "k>3", "k<3", "kh3", "pl1"), and consecutive steps of the same kind
     * add up ("10d6k1k2k3"): alea's "k{1,2,3}". */
    uint8_t d20_select;
    /* ---- per-die modifiers ---- */
    /* "cs", "cf" and "df" count successes and failures (Foundry); else
     * "cs" and "cf" only mark critical faces in the breakdown. */
    uint8_t cs_counts;
    /* "e" explodes, with d20's selectors "e6", "e>5", "e<2" (d20). */
    uint8_t e_explode;
    /* "ra" rolls one more die when a die matches and adds it, once in the
     * pool (d20); else "ra" is the Lucky reroll. */
    uint8_t ra_adds;
    /* "ms>10" is the term minus 10, "ms<10" 10 minus the term: a margin
     * of success (Foundry). */
    uint8_t margin;
    /* Clamps act first, before explosions and rerolls, whatever the order
     * written (rpg-dice-roller); else they act where written (below). */
    uint8_t clamp_first;
    /* Rerolls act after explosions, on every roll of a chain, and a
     * rerolled face does not explode (rpg-dice-roller's fixed order); alea
     * rerolls before the trigger sees the face: refused until alea has it. */
    uint8_t reroll_after_explode;
    /* Modifiers act in the order written, and the tool's explosions add
     * dice to the pool that earlier modifiers never see (Foundry, d20): a
     * clamp before a reroll, and rerolls or keep and drop with such an
     * explosion, are refused as not supported yet. */
    uint8_t written_order;
    /* A clamp changes only what a roll counts: explosions and success
     * counting still see its face (Foundry). */
    uint8_t clamp_count_only;
    /* A group of one expression with a success count judges its total
     * (rpg-dice-roller), not each die plus its numbers (Roll20, alea):
     * refused until alea has it. */
    uint8_t no_group_dice_count;
    /* The tool has no unique "u", "uo" (rpg-dice-roller's): refused. */
    uint8_t no_unique;
    /* Names and truth values: "let x = ... in ...", "and", "or", "not"
     * (alea's own; the other tools read those words as they always did). */
    uint8_t names;
} alea__dialect;

ALEA__HIDDEN extern const alea__dialect alea__dialects[ALEA_DIALECT__COUNT];

#endif /* ALEA_DIALECT_H */
