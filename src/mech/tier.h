/*
 * mech/tier.h -- the dice tier ladder (mech/tier.c), for tier(), downgrade()
 * and the parsers that build them into ordinary dice terms.
 */
#ifndef ALEA_MECH_TIER_H
#define ALEA_MECH_TIER_H

#include "../ast.h"

#define ALEA__TIER_COUNT 23
/* The ladder position of count dX (0 = 1d4 ... 22 = 5d20), or -1. */
ALEA__HIDDEN int alea__tier_index(int64_t count, int64_t sides);
/* The dice of ladder position i. */
ALEA__HIDDEN void alea__tier_entry(int i, int64_t *count, int64_t *sides);
/* "1d4 -> 1d6 -> ... -> 5d20", for messages. */
ALEA__HIDDEN const char *alea__tier_ladder_text(void);

#endif /* ALEA_MECH_TIER_H */
