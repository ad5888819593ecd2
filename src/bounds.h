/*
 * bounds.h -- the bounds of a node's values from the tree alone (bounds.c),
 * for alea_dist_min and _max where the outcomes listed may not reach them.
 */
#ifndef ALEA_BOUNDS_H
#define ALEA_BOUNDS_H

#include <stdint.h>

#include "core.h"

struct node;

/* Bounds of the values of a node (bounds.c): no value lies below lo
 * (above hi); lo_at (hi_at): some roll takes it. lo_inf (hi_inf): no
 * bound known at that end (lo or hi unused): an explosion without end, or
 * a construct left open. */
typedef struct alea__range {
    int64_t lo, hi;
    uint8_t lo_inf, hi_inf, lo_at, hi_at;
} alea__range;

/* The bounds of n's values from the tree alone, without any probability.
 * Cost: linear in the tree (a group's keep, quadratic in its members). */
ALEA__HIDDEN void alea__bounds(const struct node *n, alea__range *r);
/* The bounds of -x for x in a. */
ALEA__HIDDEN void alea__bounds_neg(const alea__range *a, alea__range *out);

#endif /* ALEA_BOUNDS_H */
