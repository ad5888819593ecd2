/*
 * mech/list.c -- every game mechanic, listed once, one line each. A call's
 * name that is not a built-in (min, max, abs, best, worst) is looked up
 * here, in order. docs/internals.md says how to add one.
 */
#include "../mech.h"

#define ALEA__MECH_LIST(X)                                                           \
    X(passive)   /* mech/bonus.c: the bonus-dice rules' passive score */            \
    X(event)     /* mech/event.c: critical pools */                                 \
    X(tier)      /* mech/tier.c: the dice tier ladder */                            \
    X(downgrade) /* mech/tier.c: a pool downgraded along the ladder */              \
    X(dd)        /* mech/dd.c: the Double Down roll */                              \
    X(stars)     /* mech/dd.c: its modifier, from stars */

#define DECLARE(name) ALEA__HIDDEN extern const alea__mech alea__mech_##name;
ALEA__MECH_LIST(DECLARE)
#undef DECLARE

const alea__mech *const alea__mechs[] = {
#define ENTRY(name) &alea__mech_##name,
    ALEA__MECH_LIST(ENTRY)
#undef ENTRY
    NULL,
};

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
