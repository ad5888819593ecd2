/*
 * table.h -- the hash table from int64 values to doubles (table.c; its
 * layout, alea__table, is in weight.h): the sparse accumulator's sums
 * (pmf.c) and a Monte Carlo tally's counts (tally.c).
 */
#ifndef ALEA_TABLE_H
#define ALEA_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "weight.h"

/* First number of slots of a hash table (a power of two); clearing them is
 * charged a quarter unit each, as for a dense array. */
#define ALEA__TABLE_MIN 1024u

/* An empty table of a first few slots, hashing with hash_key; NOMEM
 * recorded in ctx. */
ALEA__HIDDEN alea_status alea__table_init(alea_ctx *ctx, alea__table *t, uint64_t hash_key);
/* The steps counted since the last call (and resets the count). */
ALEA__HIDDEN uint64_t alea__table_steps(alea__table *t);
ALEA__HIDDEN void alea__table_free(alea_ctx *ctx, alea__table *t);
/* Adds x to the entry of v. A new value past `most` distinct ones is
 * refused: ALEA_ERR_LIMIT with *full set and no message (the caller names
 * its limit). Running out of memory is recorded, as everywhere. The table is
 * unchanged on error. */
ALEA__HIDDEN alea_status alea__table_add(alea_ctx *ctx, alea__table *t, int64_t v, double x,
                                         size_t most, int *full);
/* Distinct values held, INT64_MIN included. */
ALEA__HIDDEN size_t alea__table_count(const alea__table *t);

/* The entries whose value is above 0, sorted by key: *k pairs in a block of
 * ctx's (the caller frees *k pairs, or one when *k is 0). */
ALEA__HIDDEN alea_status alea__table_sorted(alea_ctx *ctx, const alea__table *t,
                                            alea__pair **out, size_t *k);
/* Sorts pairs by key (qsort). */
ALEA__HIDDEN void alea__pairs_sort(alea__pair *p, size_t n);

#endif /* ALEA_TABLE_H */
