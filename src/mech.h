/*
 * mech.h -- the seam between the engines and the game mechanics (src/mech/).
 *
 * A mechanic that is more than a spelling of the generic operators (the
 * Double Down roll, critical pools) is a node of kind N_MECH: its u.mech
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
 * (parse.h), the roller's (roll.h), the distributions' (dist.h) and the
 * writer (out.h); none of those includes this file, and the parser and the
 * engines include it only to call through the table.
 */
#ifndef ALEA_MECH_H
#define ALEA_MECH_H

#include "ast.h"
#include "dist.h"
#include "out.h"
#include "parse.h"
#include "roll.h"

typedef struct alea__mech {
    /* The call's name, in lower case: "dd" for dd(6, 14). */
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
} alea__mech;

/* Every mechanic, NULL-terminated (mech/list.c): a call's name is looked up
 * here after the built-in calls. */
ALEA__HIDDEN extern const alea__mech *const alea__mechs[];

/* A new N_MECH node of mechanic m with its arguments spec, spanning
 * [start, end) (mech/list.c). */
ALEA__HIDDEN alea_status alea__mech_node(alea__parser *p, const alea__mech *m, const void *spec,
                                         size_t start, size_t end, const node **out);

/* For the mechanics' breakdowns (show.c): one die as the breakdown shows
 * it ("14!+5", "1 cancelled"), plain dice styled by spec (NULL: none). */
ALEA__HIDDEN void alea__show_die(alea__out *o, const alea_roll *r, const rdie *d,
                                 const die_spec *spec);
/* A JSON boolean field ", \"name\": true" when on. */
ALEA__HIDDEN void alea__show_json_flag(alea__out *o, const char *name, int on);

#endif /* ALEA_MECH_H */
