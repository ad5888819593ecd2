/*
 * table.c -- a hash table from int64 values to doubles (open addressing,
 * linear probing), for the sparse accumulator (pmf.c) and the Monte Carlo
 * tally (tally.c). Every slot a probe walks past the first is counted, to
 * be charged to the work budget by the table's users.
 */
#include "table.h"

#include <stdlib.h>
#include <string.h>

/* ---- the hash table --------------------------------------------------------- */

/* The slot of v: splitmix64's finaliser of v xor the table's key, whose
 * every output bit depends on every input bit, so that values sharing their
 * low or high bits (multiples of 2^49, sums of them) spread over the slots.
 * A multiplicative hash kept only the high bits of a product, and put every
 * multiple of 2^49 in one slot. */
static size_t slot_of(const alea__table *t, int64_t v)
{
    uint64_t z = (uint64_t)v ^ t->hash_key;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return (size_t)z & (t->cap - 1);
}

/* The slot of v: its own, or the free one where it would go. Each slot
 * looked at past the first is counted in t->steps, to be charged. */
static size_t probe(alea__table *t, int64_t v)
{
    size_t i = slot_of(t, v);
    while (t->key[i] != v && t->key[i] != ALEA__TABLE_FREE) {
        i = (i + 1) & (t->cap - 1);
        t->steps++;
    }
    return i;
}

/* cap slots, keys and values in one spare-pool block, every key free. The
 * clearing is charged to the work budget by the caller (a quarter unit a
 * slot, as for a dense array). */
static alea_status slots_alloc(alea_ctx *ctx, alea__table *t, size_t cap)
{
    size_t got;
    int64_t *key = alea__spare_alloc(ctx, alea__mul_size(cap, sizeof *key + sizeof *t->val),
                                       &got);
    if (!key)
        return alea__nomem(ctx);
    for (size_t i = 0; i < cap; i++)
        key[i] = ALEA__TABLE_FREE;
    t->key = key;
    t->val = (double *)(void *)(key + cap);
    t->bytes = got;
    t->cap = cap;
    return ALEA_OK;
}

alea_status alea__table_init(alea_ctx *ctx, alea__table *t, uint64_t hash_key)
{
    memset(t, 0, sizeof *t);
    t->hash_key = hash_key;
    t->steps = ALEA__TABLE_MIN / 4; /* the clearing */
    return slots_alloc(ctx, t, ALEA__TABLE_MIN);
}

void alea__table_free(alea_ctx *ctx, alea__table *t)
{
    if (t->key)
        alea__spare_free(ctx, t->key, t->bytes);
    memset(t, 0, sizeof *t);
}

size_t alea__table_count(const alea__table *t)
{
    return t->n + (size_t)t->has_min;
}

/* Doubles the slots. Rehashing probes like any addition: its steps are
 * counted too. */
static alea_status table_grow(alea_ctx *ctx, alea__table *t)
{
    alea__table nt = *t;
    alea_status st = slots_alloc(ctx, &nt, t->cap * 2);
    if (st != ALEA_OK)
        return st;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->key[i] == ALEA__TABLE_FREE)
            continue;
        size_t j = probe(&nt, t->key[i]);
        nt.key[j] = t->key[i];
        nt.val[j] = t->val[i];
    }
    nt.steps += t->cap + nt.cap / 4; /* the old slots read, the new cleared */
    alea__spare_free(ctx, t->key, t->bytes);
    *t = nt;
    return ALEA_OK;
}

uint64_t alea__table_steps(alea__table *t)
{
    uint64_t s = t->steps;
    t->steps = 0;
    return s;
}

alea_status alea__table_add(alea_ctx *ctx, alea__table *t, int64_t v, double x, size_t most,
                            int *full)
{
    *full = 0;
    if (v == ALEA__TABLE_FREE) {
        if (!t->has_min && alea__table_count(t) >= most) {
            *full = 1;
            return ALEA_ERR_LIMIT;
        }
        t->has_min = 1;
        t->min_val += x;
        return ALEA_OK;
    }
    size_t i = probe(t, v);
    if (t->key[i] == ALEA__TABLE_FREE) {
        if (alea__table_count(t) >= most) {
            *full = 1;
            return ALEA_ERR_LIMIT;
        }
        if (4 * (t->n + 1) > 3 * t->cap) {
            alea_status st = table_grow(ctx, t);
            if (st != ALEA_OK)
                return st;
            i = probe(t, v);
        }
        t->key[i] = v;
        t->val[i] = 0;
        t->n++;
    }
    t->val[i] += x;
    return ALEA_OK;
}

static int pair_cmp(const void *x, const void *y)
{
    int64_t a = ((const alea__pair *)x)->v, b = ((const alea__pair *)y)->v;
    return (a > b) - (a < b);
}

void alea__pairs_sort(alea__pair *p, size_t n)
{
    if (n > 1)
        qsort(p, n, sizeof *p, pair_cmp);
}

alea_status alea__table_sorted(alea_ctx *ctx, const alea__table *t, alea__pair **out,
                               size_t *k)
{
    size_t n = (size_t)(t->has_min && t->min_val > 0);
    for (size_t i = 0; i < t->cap; i++)
        n += t->key[i] != ALEA__TABLE_FREE && t->val[i] > 0;
    alea__pair *pr = alea__mem_alloc(ctx, alea__mul_size(n ? n : 1, sizeof *pr));
    if (!pr)
        return alea__nomem(ctx);
    size_t j = 0;
    if (t->has_min && t->min_val > 0)
        pr[j++] = (alea__pair){INT64_MIN, t->min_val};
    for (size_t i = 0; i < t->cap; i++)
        if (t->key[i] != ALEA__TABLE_FREE && t->val[i] > 0)
            pr[j++] = (alea__pair){t->key[i], t->val[i]};
    alea__pairs_sort(pr, n);
    *out = pr;
    *k = n;
    return ALEA_OK;
}
