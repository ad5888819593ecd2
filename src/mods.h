/*
 * mods.h -- the modifiers of a dice term ("kh3", "r<3", "!>5", ">=8f1",
 * "u"), a row each, and what the parser's two dice files share:
 * parse_dice.c reads a term's count and sides, has the rows read the
 * tokens after them and runs the term's checks; parse_mods.c holds the
 * rows' functions and what is made from the rows (alea__mods_read,
 * alea__mods_check).
 */
#ifndef ALEA_MODS_H
#define ALEA_MODS_H

#include "parser.h"

/*
 * The pool modifiers, one row each:
 *
 *   X(a, name, (token kinds that spell it, at most 6), parse, check, refused)
 *
 * (a: whatever the user of the list passes through to X, as the token
 * kind of parse_mods.c's table of the rows that spell each kind.)
 * parse reads the modifier at its token into the term (alea__mods), or
 * leaves the token to the rows after it. check runs on the whole pool
 * once the term is read, or NULL. refused is the modifier's refusal
 * where a dialect only refuses it (the message names the dialect that
 * has it), or NULL; where a dialect changes what a spelling means
 * instead, the row's parse asks the dialect (dialect.h), as its comment
 * says.
 *
 * A token goes to the rows that spell it, in this order, until one takes
 * it; when none does, the term ends there. Which rows spell a kind is a
 * table made from the rows at compile time; the functions are called by
 * name from a switch made from the rows, never through pointers. The order matters where rows
 * share a kind (a selection's "k" before a keep's, Foundry's "df" before
 * a drop "d", Foundry's "sf" before a sort "s"), and for the checks, which
 * run in row order (once a row took a token): a pool with two faults gets
 * the message of the first row's. A new modifier is a row here, its functions in parse_mods.c, its
 * letters in the lexer (lex.c's mod_words, a second list), its canonical
 * text in ast.c (alea__pool_print_as, which prints in the canonical order,
 * not the rows') and its meaning in pool.c or the engines
 * (docs/internals.md).
 */
#define ALEA__POOL_MODS(X, a)                                                                 \
    /* "k{1,2}", "p{h1,l1}"; d20's "k3", "kh3", "pl1" (d20_select); else the "k" is a keep */ \
    X(a, select, (T_K, T_KH, T_KL, T_P), parse_select, NULL, NULL)                            \
    /* "cs>=19", "cf<3": markers; Foundry's count (cs_counts) and its "df"; a "d" else is */  \
    /* a drop */                                                                              \
    X(a, mark, (T_CS, T_CF, T_D), parse_mark, NULL, NULL)                                     \
    /* Roll20's "m", "mt" and Foundry's "sf", refused by name; an "s" else is a sort */       \
    X(a, foreign, (T_M, T_MT, T_S), NULL, NULL, refused_mod)                                  \
    /* Foundry's margin of success "ms>10" */                                                 \
    X(a, margin, (T_MS), parse_margin, NULL, refused_margin)                                  \
    /* Foundry's "even", "odd": a success count */                                            \
    X(a, parity, (T_EVEN, T_ODD), parse_parity, NULL, NULL)                                   \
    /* "min3", "max5", "mi3", "ma5" (a word "min" only glued to the dice); after the */       \
    /* explosion every roll (not in rpg-dice-roller's dialect: clamp_first) */                \
    X(a, clamp, (T_MIN, T_MAX, T_NAME), parse_clamp, NULL, NULL)                              \
    /* "s", "sa", "sd" */                                                                     \
    X(a, sort, (T_S, T_SA, T_SD), parse_sort, NULL, NULL)                                     \
    /* "kh3", "k3", "kl1", "dh1", "dl1", "d1" */                                              \
    X(a, keep, (T_KH, T_K, T_KL, T_DH, T_DL, T_D), parse_keep, NULL, NULL)                    \
    /* "r1", "ro<3", "2d8r8r2"; Foundry's "r" once and "r1=1", d20's "rr" and "rol1", a */    \
    /* bare "r" in rpg-dice-roller's (rr, reroll_once, bare_reroll, several_rerolls) */       \
    X(a, reroll, (T_R, T_RO), parse_reroll, check_reroll, NULL)                               \
    /* "ra1": one die rerolled once; in d20's dialect one more die (ra_adds) */               \
    X(a, reroll_one, (T_RA), parse_reroll_one, NULL, NULL)                                    \
    /* Foundry's "x", "xo", "x5=10"; d20's "e6" (only there: e_explode) */                    \
    X(a, xplode, (T_X, T_XO, T_E), parse_xplode_mod, NULL, refused_e)                         \
    /* "!", "!!", "!p", "!>5"; d20's "!=" is a comparison (bang_ne); its check is every */    \
    /* explosion's */                                                                         \
    X(a, explode, (T_BANG), parse_explode, check_explode, NULL)                               \
    /* ">=8f1", "=6": success counting; in d20's dialect a comparison of the total */         \
    /* (cmp_total), "<>" only where not_equal */                                              \
    X(a, success, (T_EQ, T_LT, T_LE, T_GT, T_GE, T_NE), parse_success, check_success, NULL)   \
    /* rpg-dice-roller's "u", "uo", "u=5" (refused where no_unique) */                        \
    X(a, unique, (T_U, T_UO), parse_unique, check_unique, refused_unique)

/* The selection steps of one dice term while it is parsed. */
typedef struct sel_buf {
    select_op *ops;
    select_item *items;
    uint32_t nops, opcap, nitems, itemcap;
    size_t after; /* the token after the last d20 step, which a step there joins; 0: none */
} sel_buf;

/* A margin written after a term: "ms>10" (below 0), "ms<10" (below 1). */
typedef struct margin {
    const token *tok; /* NULL: none */
    uint8_t below;
    int64_t value;
} margin;

/* A dice term while its modifiers are read: its pool, and the first token
 * of each modifier, for the checks' messages and carets. */
typedef struct alea__mods {
    pool *pl;
    size_t start; /* where the term starts */
    keep_step *keeps;
    uint32_t nkeeps, kcap;
    const token *rtok, *etok, *stok, *ktok, *seltok;
    const token *ctok, *xtok; /* the first clamp; "x", "e", d20's "ra" */
    const token *utok;        /* "u", "uo" */
    sel_buf sel;
    margin ms;
    cond *also; /* "2d8r8r2": the conditions after the first */
    uint32_t alsocap;
} alea__mods;

/* Reads the modifiers after a term's sides into m, until a token that no
 * row takes: each token goes to the rows of ALEA__POOL_MODS that spell it
 * (a table made at compile time from the rows), in row order, until one
 * takes it, a row's refusal before its parse. *any: whether a row took a
 * token. */
ALEA__HIDDEN alea_status alea__mods_read(parser *p, alea__mods *m, int *any);
/* The rows that spell each token kind, row i as bit i (parse_mods.c). */
ALEA__HIDDEN extern const uint16_t alea__mods_rows_of_kind[];
/* Whether a row spells the kind of t: a term with no modifiers ("d20")
 * skips alea__mods_read. */
static inline int alea__mods_at(const token *t)
{
    return alea__mods_rows_of_kind[t->kind] != 0;
}
/* The rows' checks of the term once it is read, in row order (the first
 * fault's message); called only when a row took a token, since a term
 * without modifiers has nothing they check. */
ALEA__HIDDEN alea_status alea__mods_check(parser *p, const alea__mods *m);

/* The term n with its margin ("ms>10"), or n. */
ALEA__HIDDEN alea_status alea__mods_margin(parser *p, const alea__mods *m, const node *n,
                                           const node **out);

/* A meaning of the dialect's tool that alea does not have yet: refused,
 * rather than read in alea's meaning. */
static inline alea_status unsupported(parser *p, const token *t, const char *what)
{
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                       "%s: %s is not supported yet in this dialect (byte %u); "
                       "docs/dialects.md lists what is",
                       p->dl->tool, what, (unsigned)t->start);
}

/* signed = ["-"] NUM (what: the message's expected text) */
ALEA__HIDDEN alea_status alea__p_signed(parser *p, int64_t *v, const char *what);
/* A condition where "<>" is "not equal" in every dialect ("r<>3"); the
 * others are alea__p_cond's (parser.h). */
ALEA__HIDDEN alea_status alea__p_cond_ne(parser *p, cond *c, const char *what);
/* Whether a condition starts here (the dialect's comparisons, or a number;
 * "<>" when ne_ok). */
ALEA__HIDDEN int alea__p_starts_cond(const parser *p, int ne_ok);
/* Grows an arena array of `size`-byte elements to hold one more (first:
 * its first capacity). */
ALEA__HIDDEN alea_status alea__p_grow(parser *p, void **v, uint32_t n, uint32_t *cap,
                                      size_t size, uint32_t first);

#endif /* ALEA_MODS_H */
