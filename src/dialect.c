/*
 * dialect.c -- the table of dialects (dialect.h), and their public names.
 * Each row was checked against the tool's own documentation or tests;
 * docs/dialects.md cites what each difference rests on.
 */
#include "dialect.h"

#include "ast.h"

const alea__dialect alea__dialects[ALEA_DIALECT__COUNT] = {
    [ALEA_DIALECT_ALEA] = {.name = "alea", .tool = "alea", .hints = 1, .slash = OP_DIV,
                           .several_rerolls = 1, .adv_bonus = 1, .names = 1},
    [ALEA_DIALECT_ROLL20] = {.name = "roll20", .tool = "Roll20", .inclusive = 1,
                             .trailing_text = 1, .adv_words_describe = 1, .several_rerolls = 1, .slash = OP_DIVWHOLE,
                             .round_half_up = 1, .no_unique = 1},
    [ALEA_DIALECT_FOUNDRY] = {.name = "foundry", .tool = "Foundry VTT", .reroll_once = 1,
                              .rr = 1, .slash = OP_DIVWHOLE, .cs_counts = 1,
                              .margin = 1, .written_order = 1, .clamp_count_only = 1,
                              .round_half_up = 1, .no_unique = 1},
    [ALEA_DIALECT_RPGDR] = {.name = "rpgdr", .tool = "rpg-dice-roller", .not_equal = 1,
                            .keep_whole = 1, .slash = OP_DIVWHOLE, .keep_rolls = 1,
                            .bare_reroll = 1,
                            .clamp_first = 1, .reroll_after_explode = 1, .no_group_dice_count = 1},
    [ALEA_DIALECT_D20] = {.name = "d20", .tool = "Avrae's d20", .rr = 1, .slash = OP_DIVWHOLE,
                          .trailing_text = 1,
                          .trunc_total = 1, .cmp_total = 1,
                          .pct_tens = 1, .slash_slash = 1, .bang_ne = 1, .no_mod = 1,
                          .d20_select = 1, .e_explode = 1, .ra_adds = 1,
                          .written_order = 1, .no_unique = 1},
};

const char *alea_dialect_name(alea_dialect d)
{
    return (unsigned)d < ALEA_DIALECT__COUNT ? alea__dialects[d].name : NULL;
}

const char *alea_dialect_tool(alea_dialect d)
{
    return (unsigned)d < ALEA_DIALECT__COUNT ? alea__dialects[d].tool : NULL;
}

int alea_dialect_find(const char *name)
{
    for (int d = 0; name && d < ALEA_DIALECT__COUNT; d++) {
        const char *a = name, *b = alea__dialects[d].name;
        while (*a && (*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) == *b) {
            a++;
            b++;
        }
        if (!*a && !*b)
            return d;
    }
    return -1;
}
