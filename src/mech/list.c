/*
 * mech/list.c -- every game mechanic, listed once, one line each, and the
 * language they make (alea__lang_all), which each context hands the parser.
 * A call's name that is not a built-in (min, max, abs, best, worst) is
 * looked up there, in order, as is a construct that opens with a token of
 * its own (a group's '{'). docs/internals.md says how to add one.
 */
#include "../lex.h"
#include "../mech.h"

#define ALEA__MECH_LIST(X)                                                           \
    X(passive)   /* mech/bonus.c: the bonus-dice rules' passive score */            \
    X(event)     /* mech/event.c: critical pools */                                 \
    X(tier)      /* mech/tier.c: the dice tier ladder */                            \
    X(downgrade) /* mech/tier.c: a pool downgraded along the ladder */              \
    X(dd)        /* mech/dd.c: the Double Down roll */                              \
    X(stars)     /* mech/dd.c: its modifier, from stars */                          \
    X(group)     /* mech/group.c: group rolls "{4d6 + 3, 2d8}kh1", d20's sets */    \
    X(if)        /* mech/flow.c: the conditional "if(d20 >= 11, 2d6, 0)" */         \
    X(sum)       /* mech/flow.c: N rolls added, "sum(8, d20 >= 18)" */             \
    X(reroll)    /* mech/reroll.c: rerolls for a goal, "reroll(5d6, 1, >= 20)" */  \
    /* a new construct: one line above this one */

#define DECLARE(name) ALEA__HIDDEN extern const alea__mech alea__mech_##name;
ALEA__MECH_LIST(DECLARE)
#undef DECLARE

static const alea__mech *const mechs[] = {
#define ENTRY(name) &alea__mech_##name,
    ALEA__MECH_LIST(ENTRY)
#undef ENTRY
    NULL,
};

/* Extra dice written after a term: tried in this order after a '+' or '-'. */
#define ALEA__EXTRA_LIST(X)                                                          \
    X(bonus)     /* mech/bonus.c: bonus and penalty dice, "d20 +1d", "+expert" */  \
    X(boon)      /* mech/boons.c: boons and banes, "2d10 +2B" */                   \
    X(dice)      /* mech/dice.c: +/- DICE, "2d6 +1 DICE" */                        \
    X(injury)    /* mech/dice.c: the same on injury rolls, "+1 INJURY DICE" */      \
    /* a new kind: one line above this one */

#define DECLARE_EXTRA(name) ALEA__HIDDEN extern const alea__extra alea__extra_##name;
ALEA__EXTRA_LIST(DECLARE_EXTRA)
#undef DECLARE_EXTRA

static const alea__extra *const extras[] = {
#define EXTRA_ENTRY(name) &alea__extra_##name,
    ALEA__EXTRA_LIST(EXTRA_ENTRY)
#undef EXTRA_ENTRY
    NULL,
};

/* The lexer's words: the language's (the parser's built-in calls and the
 * words of everything listed here). */
int alea__lex_is_word(const char *s, size_t n)
{
    return alea__parse_is_word(&alea__lang_all, s, n);
}

const alea__lang alea__lang_all = {mechs, extras, alea__lex_is_word};

alea_status alea__mech_node(alea__parser *p, const alea__mech *m, const void *spec, size_t start,
                            size_t end, const node **out)
{
    node *n;
    alea_status st = alea__parse_node(p, N_MECH, start, end, &n);
    if (st != ALEA_OK)
        return st;
    n->u.mech.ops = m;
    n->u.mech.spec = spec;
    *out = n;
    return ALEA_OK;
}
