/*
 * mech/dd.h -- the Double Down roll's arguments, as its parser builds them.
 */
#ifndef ALEA_MECH_DD_H
#define ALEA_MECH_DD_H

#include "../mech.h"

typedef enum dd_policy { DD_NEVER, DD_ALWAYS, DD_ONFAIL, DD_BEST } dd_policy;

typedef struct dd_spec {
    int64_t mod, diff; /* d20 + mod against diff */
    uint8_t policy;    /* dd_policy */
} dd_spec;

ALEA__HIDDEN extern const alea__mech alea__mech_dd;

#endif /* ALEA_MECH_DD_H */
