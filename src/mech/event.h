/*
 * mech/event.h -- a critical pool's arguments, as its parser builds them.
 */
#ifndef ALEA_MECH_EVENT_H
#define ALEA_MECH_EVENT_H

#include "../mech.h"

/* One group of the pool: count dice with sides faces each ("3d4"). */
typedef struct event_group {
    int64_t count, sides;    /* count >= 1, sides >= 2 */
    uint8_t count_implicit;  /* written "d18" */
} event_group;

typedef struct event_spec {
    const event_group *groups;
    uint32_t ngroups;
    int64_t ndice;          /* sum of the counts */
    uint8_t cancel_largest; /* 1s cancel the largest criticals first */
} event_spec;

ALEA__HIDDEN extern const alea__mech alea__mech_event;

#endif /* ALEA_MECH_EVENT_H */
