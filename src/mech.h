/*
 * mech.h -- the seam between the engines and the game mechanics (src/mech/).
 *
 * A mechanic that is more than a spelling of the generic operators (the
 * Double Down roll, critical pools), and a construct with a syntax of its
 * own (a group "{4d6 + 3, 2d8}kh1"), is a node of kind N_MECH: its u.mech
 * holds the mechanic's table of operations and its own arguments. The
 * parser, the printer, the roller, the exact engine and the breakdown call
 * through the table and never name a mechanic. A mechanic that only
 * desugars (tier, downgrade, stars, passive) has a parse operation alone
 * and builds ordinary nodes.
 *
 * Every mechanic is listed once, in mech/list.c, as Lua's linit.c lists its
 * libraries; docs/internals.md says how to add one.
 *
 * Dependencies point one way: the mechanics use the parser's interface
 * (parse.h), the roller's (roll.h), the distributions' (weight.h, pmf.h,
 * dist.h) and the writer (out.h); none of those includes this file, and the
 * parser and the engines include it only to call through the table.
 */
#ifndef ALEA_MECH_H
#define ALEA_MECH_H

#include "ast.h"
#include "bounds.h"
#include "dist.h"
#include "out.h"
#include "parse.h"
#include "policy.h"
#include "roll.h"
#include "weight.h"

typedef struct alea__mech {
    /* The call's name, in lower case: "dd" for dd(6, 14); NULL for a
     * construct that opens with a token instead (opens). */
    const char *name;
    /* Parses the call after its name (the name spans [start, end)): "("
     * arguments ")", through the parser's interface (parse.h). Builds a new
     * N_MECH node with this table and the mechanic's own arguments, or, for
     * a mechanic that is a spelling of generic operators, ordinary nodes
     * (then the operations below are NULL). */
    alea_status (*parse)(alea__parser *p, size_t start, size_t end, const node **out);
    /* The words its arguments take ("never", "always"; NULL-terminated, or
     * NULL): words of the language, which the lexer keeps whole. */
    const char *const *words;
    /* What its words are, as its parser's error says it ("a goal: mean ...
     * or a condition ..."), for the lexer's error of a word it does not
     * know in its call (parse_text.c); or NULL. */
    const char *takes;

    /* The rest only for N_MECH nodes. */

    /* The canonical text of the node ("dd(6, 14, always)"). */
    void (*print)(alea__out *o, const node *n);
    /* Rolls the node into rc (dice, faces and flags of the trace) and *value. */
    alea_status (*roll)(alea__rstate *s, const node *n, rec *rc, int64_t *value);
    /* The node's exact distribution. notes is not NULL when the node is the
     * whole expression: the mechanic adds what the distribution reports
     * beyond its outcomes (a named probability, the names of its outcomes). */
    alea_status (*exact)(alea_ctx *ctx, const node *n, alea__pmf *out, alea__notes *notes);
    /* What a distribution of the node says without computing it (outcome
     * names, parameters): for estimates (tally.c). May be NULL. */
    void (*describe)(const node *n, alea__notes *notes);
    /* The breakdown of a rolled node, after its canonical text: " [2, 14!+5]". */
    void (*show)(alea__out *o, const alea_roll *r, const rec *rc);
    /* JSON fields of the rolled node beyond term, span, value and dice
     * (", \"label\": \"success\""), or NULL. */
    void (*show_json)(alea__out *o, const rec *rc);
    /* The least and the greatest value of the node (bounds.h's alea__range:
     * sound, and attained where marked), for alea_dist_min and _max where
     * the outcomes listed may not reach them. May be NULL: left open. */
    void (*bounds)(const node *n, alea__range *r);

    /* Constructs written otherwise than as a call (a group "{a, b}kh1"). */

    /* The kind of the token that opens the construct (lex.h: T_LBRACE for a
     * group; its name is NULL), or 0 for a call. parse is called at that
     * token, not taken yet, with start and end its span. */
    uint8_t opens;
    /* Where the dialect reads a parenthesised list as a set (d20's
     * "(1d4 + 1, 3)kh1"): called at the ',' after the first expression,
     * parsed inside the parenthesis at byte open, which the parser entered.
     * NULL for the others. */
    alea_status (*parse_set)(alea__parser *p, size_t open, const node *first,
                             const node **out);
    /* 1: the node is made of members, each rolled to its own record in
     * rc->kids and marked in rc->marks (DIE_DROPPED, DIE_SUCCESS,
     * DIE_FAILURE). show then writes the whole breakdown (the members in
     * place of the canonical text), and the JSON lists the members' dice, a
     * dropped member's as discarded, instead of the node as one term. */
    uint8_t members;
    /* The node's entry in the JSON's "groups" (", \"groups\": [{...}" when
     * *first, then cleared, else ", {...}"), or nothing; NULL: none. */
    void (*show_json_members)(alea__out *o, const rec *rc, int *first);

    /* The player's decisions at the node's first choice point, for
     * alea_policy_new when the node is the whole expression: its goal, a
     * row per situation and the total, through policy.h. NULL: the node
     * has no choice to show. */
    alea_status (*policy)(alea_ctx *ctx, const node *n, alea_policy *out);
} alea__mech;

/*
 * Extra dice written after a term with a sign: "d20 +1d", "2d10 +2B",
 * "2d6 +1 DICE". Whatever the spelling, they are the pool's generic rule
 * (ast.h: |extra| more dice rolled, the highest or lowest kept), so the
 * roller and the exact engine need nothing from a mechanic; a row of this
 * table brings the spelling, what it applies to and how it prints.
 */
typedef struct alea__extra {
    /* In messages: "boons and banes need a dice term to their left". */
    const char *what;
    /* The words after the count, NULL-terminated ({"injury", "dice"});
     * NULL: the count is followed by 'd' and no sides ("+1d"). */
    const char *const *after;
    /* Printed after the signed count: "d", "B", " DICE". */
    const char *unit;
    /* An example for messages ("2d10 +1B"), or NULL. */
    const char *example;
    /* 1: the dice count over the whole sum to their left and may carry a
     * label ("d20 +1 +1d[bless]"), the same label counting once; 0: they
     * modify the last dice term to their left. */
    uint8_t on_left;
    /* 1: the plus and the minus print apart ("+2B -1B"), as the cap
     * applies to each; 0: the net prints. */
    uint8_t split;
    /* At most this many of each sign count (0: no cap). */
    int64_t cap;
    /* 1: extra dice on a zero-sided die ("d0 +1B") make it the null die:
     * 1 with any net plus, -1 with any net minus, else 0. */
    uint8_t null_die;
    /* Words that stand for +1, +2, ... of these dice ("+expert"),
     * NULL-terminated, or NULL; they count under rank_label, and only add
     * (a minus is an error that names rank_what). */
    const char *const *ranks;
    const char *rank_label, *rank_what;
} alea__extra;

/*
 * The language a context reads: its mechanics and its kinds of extra dice.
 * alea_ctx_new (api.c) gives each context alea__lang_all (mech/list.c), in
 * ctx->lang, where the parser finds them: the parser is handed the list and
 * never reaches up to it.
 */
struct alea__lang {
    /* Every mechanic, NULL-terminated: a call's name is looked up here after
     * the built-in calls, and a construct by the token that opens it. */
    const alea__mech *const *mechs;
    /* Every kind of extra dice, NULL-terminated. */
    const alea__extra *const *extras;
    /* The lexer's test of a word of the language (alea__lex's is_word):
     * alea__parse_is_word over this language. */
    int (*is_word)(const char *s, size_t n);
};
/* The whole language: every mechanic and kind of extra dice (mech/list.c). */
ALEA__HIDDEN extern const alea__lang alea__lang_all;

/* A new N_MECH node of mechanic m with its arguments spec, spanning
 * [start, end) (mech/list.c). */
ALEA__HIDDEN alea_status alea__mech_node(alea__parser *p, const alea__mech *m, const void *spec,
                                         size_t start, size_t end, const node **out);

/* For the mechanics' breakdowns (show.c): one die as the breakdown shows
 * it ("14!+5", "1 cancelled"), plain dice styled by spec (NULL: none). */
ALEA__HIDDEN void alea__show_die(alea__out *o, const alea_roll *r, const rdie *d,
                                 const die_spec *spec);
/* A member's breakdown (show.c), followed by " = " and its value where
 * valued and the value is not plain to see. */
ALEA__HIDDEN void alea__show_member(alea__out *o, const alea_roll *r, const rec *rc, int valued);
/* A JSON object of the "groups" opened, after before (", " or ""): its
 * node's span and a value, "{\"start\": 4, \"end\": 7, \"value\": 9"; the
 * caller adds its fields and closes it. */
ALEA__HIDDEN void alea__show_json_at(alea__out *o, const char *before, const node *n,
                                     int64_t value);
/* A JSON boolean field ", \"name\": true" when on. */
ALEA__HIDDEN void alea__show_json_flag(alea__out *o, const char *name, int on);

/* For the mechanics' bounds (bounds.c): r open at both ends; r the one
 * value v, attained; a += b. */
ALEA__HIDDEN void alea__bounds_open(alea__range *r);
ALEA__HIDDEN void alea__bounds_point(alea__range *r, int64_t v);
ALEA__HIDDEN void alea__bounds_add(alea__range *a, const alea__range *b);

#endif /* ALEA_MECH_H */
