/*
 * tally.c -- Monte Carlo estimates: many samples of an expression counted
 * by value, for distributions past the exact engine's budget. A tally is a
 * hash table of value -> hits (open addressing, linear probing), bounded by
 * the SUPPORT limit; alea_tally_dist turns it into an alea_dist that says
 * it is an estimate (alea_dist_samples) and gives each probability a 95%
 * interval (alea_dist_interval).
 *
 * Threads: a tally belongs to its context, as everything does. A host that
 * samples on several threads gives each its own context (seeded with
 * alea_ctx_seed_stream) and tally, then merges them.
 */
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "dist.h"
#include "roll.h"

/* First number of slots (a power of two); a table is at most 3/4 full. */
#define TALLY_MIN 64u
/* Samples between two calls of the interrupt hook: each sample is its own
 * evaluation, with its own budget, so the hook is polled here too. */
#define TALLY_POLL 4096u

#define EMPTY INT64_MIN /* the key of a free slot; the value itself is kept aside */

struct alea_tally {
    alea_ctx *ctx;
    int64_t *key;
    uint64_t *hits;
    size_t n, cap;
    uint64_t min_hits; /* hits of the value INT64_MIN */
    uint64_t total;
};

static size_t slot_of(int64_t v, size_t cap)
{
    return (size_t)(((uint64_t)v * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (cap - 1);
}

static int table_new(alea_ctx *ctx, size_t cap, int64_t **key, uint64_t **hits)
{
    *key = alea__mem_alloc(ctx, alea__mul_size(cap, sizeof **key));
    *hits = *key ? alea__mem_alloc(ctx, alea__mul_size(cap, sizeof **hits)) : NULL;
    if (!*hits) {
        if (*key)
            alea__mem_free(ctx, *key, cap * sizeof **key);
        *key = NULL;
        return 0;
    }
    for (size_t i = 0; i < cap; i++)
        (*key)[i] = EMPTY;
    return 1;
}

alea_tally *alea_tally_new(alea_ctx *ctx)
{
    if (!ctx)
        return NULL;
    alea_tally *t = alea__mem_alloc(ctx, sizeof *t);
    if (!t) {
        alea__nomem(ctx);
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    if (!table_new(ctx, TALLY_MIN, &t->key, &t->hits)) {
        alea__mem_free(ctx, t, sizeof *t);
        alea__nomem(ctx);
        return NULL;
    }
    t->cap = TALLY_MIN;
    return t;
}

void alea_tally_free(alea_tally *t)
{
    if (!t)
        return;
    alea_ctx *ctx = t->ctx;
    alea__mem_free(ctx, t->key, t->cap * sizeof *t->key);
    alea__mem_free(ctx, t->hits, t->cap * sizeof *t->hits);
    alea__mem_free(ctx, t, sizeof *t);
}

static alea_status too_many_values(alea_ctx *ctx, const alea_expr *e)
{
    size_t end = e ? e->len : 0;
    return alea__error(ctx, ALEA_ERR_LIMIT, 0, end,
                       "too many distinct values sampled (support limit is %lld)",
                       (long long)ctx->limits[ALEA_LIMIT_SUPPORT]);
}

/* Adds k hits of v; grows the table (doubling) within the support limit. */
static alea_status add(alea_tally *t, int64_t v, uint64_t k, const alea_expr *e)
{
    alea_ctx *ctx = t->ctx;
    if (v == EMPTY) {
        if (t->min_hits == 0 && (int64_t)(t->n + 1) > ctx->limits[ALEA_LIMIT_SUPPORT])
            return too_many_values(ctx, e);
        t->min_hits += k;
        t->total += k;
        return ALEA_OK;
    }
    size_t i = slot_of(v, t->cap);
    while (t->key[i] != v && t->key[i] != EMPTY)
        i = (i + 1) & (t->cap - 1);
    if (t->key[i] == EMPTY) {
        size_t values = t->n + 1 + (t->min_hits > 0);
        if ((int64_t)values > ctx->limits[ALEA_LIMIT_SUPPORT])
            return too_many_values(ctx, e);
        if (4 * (t->n + 1) > 3 * t->cap) {
            size_t ncap = t->cap * 2;
            int64_t *nk;
            uint64_t *nh;
            if (!table_new(ctx, ncap, &nk, &nh))
                return alea__nomem(ctx);
            for (size_t j = 0; j < t->cap; j++) {
                if (t->key[j] == EMPTY)
                    continue;
                size_t s = slot_of(t->key[j], ncap);
                while (nk[s] != EMPTY)
                    s = (s + 1) & (ncap - 1);
                nk[s] = t->key[j];
                nh[s] = t->hits[j];
            }
            alea__mem_free(ctx, t->key, t->cap * sizeof *t->key);
            alea__mem_free(ctx, t->hits, t->cap * sizeof *t->hits);
            t->key = nk;
            t->hits = nh;
            t->cap = ncap;
            i = slot_of(v, ncap);
            while (t->key[i] != EMPTY)
                i = (i + 1) & (ncap - 1);
        }
        t->key[i] = v;
        t->hits[i] = 0;
        t->n++;
    }
    t->hits[i] += k;
    t->total += k;
    return ALEA_OK;
}

alea_status alea_tally_sample(alea_ctx *ctx, const alea_expr *e, alea_tally *t, uint64_t n)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__clear_error(ctx);
    if (!e || e->ctx != ctx || !t || t->ctx != ctx)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_tally_sample: NULL, or an object of another context");
    alea_roll scratch;
    alea__scratch_init(ctx, &scratch);
    alea_status st = ALEA_OK;
    for (uint64_t i = 0; i < n && st == ALEA_OK; i++) {
        if (i % TALLY_POLL == TALLY_POLL - 1 && ctx->interrupt_fn &&
            ctx->interrupt_fn(ctx->interrupt_ud)) {
            st = alea__error(ctx, ALEA_ERR_INTERRUPTED, 0, e->len, "interrupted by the host");
            break;
        }
        int64_t v;
        alea__budget_start(ctx);
        if ((st = alea__sample_with(ctx, e, &scratch, &v)) == ALEA_OK)
            st = add(t, v, 1, e);
    }
    alea__scratch_free(&scratch);
    return st;
}

alea_status alea_tally_merge(alea_ctx *ctx, alea_tally *into, const alea_tally *from)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__clear_error(ctx);
    if (!into || into->ctx != ctx || !from)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_tally_merge: NULL, or a tally of another context");
    alea_status st = ALEA_OK;
    if (from->min_hits)
        st = add(into, EMPTY, from->min_hits, NULL);
    for (size_t i = 0; i < from->cap && st == ALEA_OK; i++)
        if (from->key[i] != EMPTY)
            st = add(into, from->key[i], from->hits[i], NULL);
    return st;
}

uint64_t alea_tally_total(const alea_tally *t)
{
    return t ? t->total : 0;
}

typedef struct hit {
    int64_t v;
    uint64_t k;
} hit;

static int hit_cmp(const void *a, const void *b)
{
    int64_t x = ((const hit *)a)->v, y = ((const hit *)b)->v;
    return (x > y) - (x < y);
}

alea_status alea_tally_dist(alea_ctx *ctx, const alea_tally *t, const alea_expr *e,
                            alea_dist **out)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__clear_error(ctx);
    if (!t || t->ctx != ctx || !e || e->ctx != ctx || !out)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_tally_dist: NULL, or an object of another context");
    if (t->total == 0)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "alea_tally_dist: no samples");
    size_t k = t->n + (t->min_hits > 0);
    hit *h = alea__mem_alloc(ctx, alea__mul_size(k, sizeof *h));
    if (!h)
        return alea__nomem(ctx);
    size_t j = 0;
    if (t->min_hits)
        h[j++] = (hit){INT64_MIN, t->min_hits};
    for (size_t i = 0; i < t->cap; i++)
        if (t->key[i] != EMPTY)
            h[j++] = (hit){t->key[i], t->hits[i]};
    qsort(h, k, sizeof *h, hit_cmp);
    alea__pmf pmf;
    alea_status st = alea__pmf_alloc(ctx, k, &pmf);
    if (st == ALEA_OK) {
        for (size_t i = 0; i < k; i++) {
            pmf.v[i] = h[i].v;
            pmf.p[i] = (double)h[i].k / (double)t->total;
        }
        if ((st = alea__dist_make(ctx, &pmf, e->src, e->len, out)) != ALEA_OK) {
            alea__pmf_free(ctx, &pmf);
        } else {
            (*out)->samples = t->total;
            (*out)->labels = e->root->kind == N_DD ? DIST_LABELS_DD : DIST_LABELS_NONE;
            (*out)->dd_diff = e->root->kind == N_DD ? e->root->u.dd->diff : 0;
        }
    }
    alea__mem_free(ctx, h, k * sizeof *h);
    return st;
}
