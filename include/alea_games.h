/*
 * alea_games.h -- Double Down's boons and banes: the game's Difficulty and
 * Outcomes tables, given as data, and the boons and banes a dd() roll earns
 * with them, for one outcome or expected over its distribution.
 *
 * The rules of one game, not the dice language: alea.h is the generic API
 * (alea_dist_expect takes the expectation of any function of the outcome),
 * and this header the Double Down tables on top of it. The same library
 * exports both; this header includes alea.h.
 */
#ifndef ALEA_GAMES_H
#define ALEA_GAMES_H

#include "alea.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exported by the shared library, as alea.h's declarations are. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------------ */
/* Boons and banes of a Double Down roll                                    */

/*
 * The rule text leaves its Difficulty and Outcomes tables to the game's
 * book, so alea takes them as data. A roll at difficulty D earns count[i]
 * for the last entry with difficulty[i] <= D (none: 0), times the
 * multiplier of its final outcome (critical failure, failure, success,
 * critical success): a positive product is boons, a negative one banes,
 * rounded up to whole ones. Drive spent adds that many boons on a success or
 * better, not multiplied. A support roll halves the boons (not the drive's).
 */
typedef struct alea_boon_table {
    const int64_t *difficulty; /* ascending */
    const int64_t *count;      /* boons or banes at that difficulty */
    size_t n;
    double multiplier[4];      /* per outcome 0..3 */
} alea_boon_table;

/* Boons and banes earned by one roll ending in outcome (0..3) at difficulty.
 * ALEA_ERR_ARGUMENT for an outcome out of range, a NULL pointer, a negative
 * drive or a multiplier that is not finite; ALEA_ERR_OVERFLOW when the
 * boons or banes (with the drive) would pass INT64_MAX. */
alea_status alea_boons_for_outcome(const alea_boon_table *table, int64_t difficulty, int outcome,
                                   int64_t drive, int support, int64_t *boons, int64_t *banes);

/* Expected boons and banes of a dd() roll, from its distribution (which
 * must have been computed from an expression that is a dd() call: else
 * ALEA_ERR_ARGUMENT, recorded in ctx): the expectation, as alea_dist_expect
 * takes it, of alea_boons_for_outcome over the roll's outcomes. */
alea_status alea_dist_boons(alea_ctx *ctx, const alea_dist *dist, const alea_boon_table *table,
                            int64_t drive, int support, double *boons, double *banes);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ALEA_GAMES_H */
