/*
 * roll.h -- the roller: AST -> one sample, with a trace of every node it
 * evaluated and every die face it drew, for the breakdown printer (show.c).
 */
#ifndef ALEA_ROLL_H
#define ALEA_ROLL_H

#include <stdint.h>

#include "ast.h"
#include "env.h"

/* One face drawn. */
enum {
    FACE_REROLLED = 1,  /* replaced by a reroll: does not count */
    FACE_EXPLODED = 2,  /* matched the trigger: the next face adds */
    FACE_PENETRATED = 4,/* an extra roll of "!p": counts face - 1 */
    FACE_SUCCESS = 8,   /* counted as a success (EXPLODE_EACH: per face) */
    FACE_FAILURE = 16,  /* counted as a failure */
    FACE_CLAMPED = 32   /* raised or lowered by a clamp: the next face is
                           what it counts ("1=>3") */
};

typedef struct rface {
    int64_t face; /* as drawn */
    uint8_t flags;
} rface;

/* One die: a chain of faces. */
enum {
    DIE_DROPPED = 1,   /* outside the kept range */
    DIE_SUCCESS = 2,   /* success counting on the die's total */
    DIE_FAILURE = 4,
    DIE_CANCELLED = 8, /* cancelled by another die: does not count */
    DIE_DISCARDED = 16, /* set aside by the rule of its term: does not count */
    DIE_SCORED = 32    /* judged roll by roll for a group's count: score is
                          what it counts (mech/group.c) */
};

typedef struct rdie {
    int64_t value;          /* total of the chain: what keep/drop sees */
    int64_t score;          /* "!" with success counting: per-roll score */
    uint32_t first, nfaces; /* faces[first .. first + nfaces) of the roll */
    uint8_t flags;
} rdie;

/* The record of one evaluated node. */
typedef struct rec {
    const node *n;
    int64_t value;
    /* N_DICE: dice[die0 .. die0 + ndice) of the roll; count: record of the
     * rolled count, or NULL. */
    uint32_t die0, ndice;
    const struct rec *count;
    /* N_DICE with rolled sides ("1d(1d20)"): the record of the sides, and
     * the pool as rolled (its die 1..the rolled value); else NULL. */
    const struct rec *sides;
    const pool *rolled;
    /* Operands (N_SUM/N_PROD items, N_CMP/N_MIN/N_MAX a and b, N_NEG/N_ABS
     * a, N_BIND value and body) or repetitions (N_BEST/N_WORST), in order. */
    const struct rec *const *kids;
    uint32_t nkids;
    uint32_t kept; /* N_BEST/N_WORST: index of the repetition kept */
    /* A construct of members (mech.h's members: a group): per member,
     * DIE_DROPPED, DIE_SUCCESS, DIE_FAILURE; or NULL */
    const uint8_t *marks;
    uint8_t flags; /* a mechanic's own marks (mech.h) */
} rec;

struct alea_roll {
    alea_ctx *ctx;
    const alea_expr *expr; /* of the last successful roll, or NULL */
    int64_t total;
    const rec *root;
    alea__arena arena; /* records; reset at every roll, memory kept */
    rdie *dice;
    size_t ndice, dcap;
    rface *faces;
    size_t nfaces, fcap;
    int64_t bytes; /* charged to the BREAKDOWN limit: at least what it prints */
};

/* The roller's state during one evaluation. */
typedef struct alea__rstate {
    alea_ctx *ctx;
    alea_roll *r; /* storage: dice, faces, records */
    int trace;    /* record faces and nodes */
    int64_t dice_limit;
    int64_t bytes; /* what the breakdown recorded so far may print, at most */
    /* Dice pools leave their dice in r->dice even without a trace (a group
     * that keeps among the dice of its member, mech/group.c). */
    int keep_dice;
    /* A group's count of its one member's dice (mech/group.c): each roll of a
     * "!" die, plus the member's numbers, is judged into the die's score,
     * as the die's own count would judge it; NULL when no group judges. */
    const alea__judge *judge;
    /* A sorting group's order (mech/group.c): its pools list their dice so, as
     * their own "s" would. 0: none. */
    uint8_t sort;
    /* The values of the names bound where the roll is (env.h): a mechanic
     * rolling its operands through alea__roll_eval passes them on. NULL in
     * an expression without names (alea__env_get and alea__env_bind take
     * NULL as no slots). */
    alea__env *env;
} alea__rstate;

/* best()/worst() of more repetitions than this show the dropped ones by
 * their totals only (text), and list only the kept one's dice (JSON). */
#define ALEA__REP_SHOWN 8

/* For the mechanics (mech/): charge k dice against the DICE limit; reserve
 * k dice records; draw a face 1..sides; record a face in the trace. */
ALEA__HIDDEN alea_status alea__roll_charge(alea__rstate *s, const node *n, int64_t k);
ALEA__HIDDEN alea_status alea__roll_reserve(alea__rstate *s, size_t k, size_t *first);
ALEA__HIDDEN int64_t alea__roll_d(alea__rstate *s, int64_t sides);
ALEA__HIDDEN alea_status alea__roll_push(alea__rstate *s, int64_t face, uint8_t flags);
ALEA__HIDDEN alea_status alea__roll_overflow(alea__rstate *s, const node *n);
/* Charges what a mechanic's own breakdown prints beyond its records' (a
 * value per repetition, an entry in the JSON's "groups") to the BREAKDOWN
 * limit, before it allocates for it; nothing without a trace. */
ALEA__HIDDEN alea_status alea__roll_bytes(alea__rstate *s, const node *n, int64_t bytes);
/* Rolls node n into *value; with a trace, *out is its record (mech/group.c). */
ALEA__HIDDEN alea_status alea__roll_eval(alea__rstate *s, const node *n, const rec **out,
                                         int64_t *value);

/* Rolls e into r (r->ctx == ctx). Resets r first. */
ALEA__HIDDEN alea_status alea__roll(alea_ctx *ctx, const alea_expr *e, alea_roll *r);
/* Rolls e without a trace. */
ALEA__HIDDEN alea_status alea__sample(alea_ctx *ctx, const alea_expr *e, int64_t *total);
/* The same with storage kept from sample to sample: a scratch roll object
 * made by alea__scratch_init and released by alea__scratch_free. */
ALEA__HIDDEN void alea__scratch_init(alea_ctx *ctx, alea_roll *scratch);
ALEA__HIDDEN void alea__scratch_free(alea_roll *scratch);
ALEA__HIDDEN alea_status alea__sample_with(alea_ctx *ctx, const alea_expr *e,
                                           alea_roll *scratch, int64_t *total);

/* show.c: the breakdown as text or JSON (snprintf contract). */
ALEA__HIDDEN size_t alea__show(const alea_roll *r, alea_format fmt, char *buf, size_t cap);

/* A value and its position, ordered by value, then position (ties keep
 * the earlier one lower, as pools do): for sorting dice and totals. */
typedef struct alea__ranked {
    int64_t v;
    size_t i;
} alea__ranked;
ALEA__HIDDEN int alea__ranked_cmp(const void *a, const void *b);

#endif /* ALEA_ROLL_H */
