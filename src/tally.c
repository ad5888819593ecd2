/*
 * tally.c -- Monte Carlo estimates: many samples of an expression counted
 * by value, for distributions past the exact engine's budget. A tally is
 * the exact engine's hash table (table.c) of value -> hits, bounded by the
 * SUPPORT limit; alea_tally_dist turns it into an alea_dist that says
 * it is an estimate (alea_dist_samples) and gives each probability a 95%
 * interval (alea_dist_interval).
 *
 * Threads: a tally belongs to its context, as everything does. A host that
 * samples on several threads gives each its own context (seeded with
 * alea_ctx_seed_stream) and tally, then merges them.
 */
#include <stdint.h>
#include <string.h>

#include "ast.h"
#include "bounds.h"
#include "dist.h"
#include "pmf.h"
#include "table.h"
#include "roll.h"
#include "mech.h"

/* Samples between two calls of the interrupt hook: each sample is its own
 * evaluation, with its own budget, so the hook is polled here too. */
#define TALLY_POLL 4096u

/* The hits of each value, as whole numbers in a hash table's doubles
 * (exact up to 2^53 hits). */
struct alea_tally {
    alea_ctx *ctx;
    alea__table t;
    uint64_t total;
};

alea_tally *alea_tally_new(alea_ctx *ctx)
{
    if (!ctx)
        return NULL;
    alea_tally *t = alea__mem_alloc(ctx, sizeof *t);
    if (!t) {
        alea__nomem(ctx);
        return NULL;
    }
    t->ctx = ctx;
    t->total = 0;
    /* Samples are the host's to choose, and repeat: key the hash by where
     * the tally lives (different from run to run where addresses are
     * randomised), so a chosen set of colliding values is hard to make;
     * the probe steps are charged all the same. */
    uint64_t key = (uint64_t)(uintptr_t)t * UINT64_C(0x9E3779B97F4A7C15);
    if (alea__table_init(ctx, &t->t, key) != ALEA_OK) {
        alea__mem_free(ctx, t, sizeof *t);
        return NULL;
    }
    return t;
}

void alea_tally_free(alea_tally *t)
{
    if (!t)
        return;
    alea_ctx *ctx = t->ctx;
    alea__table_free(ctx, &t->t);
    alea__mem_free(ctx, t, sizeof *t);
}

/* Adds k hits of v, within the support limit of distinct values. */
static alea_status add(alea_tally *t, int64_t v, double k, const alea_expr *e)
{
    alea_ctx *ctx = t->ctx;
    int64_t lim = ctx->limits[ALEA_LIMIT_SUPPORT];
    int full;
    alea_status st = alea__table_add(ctx, &t->t, v, k, lim < 1 ? 0 : (size_t)lim, &full);
    if (full)
        return alea__error(ctx, ALEA_ERR_LIMIT, 0, e ? e->len : 0,
                           "too many distinct values sampled (support limit is %lld)",
                           (long long)lim);
    if (st == ALEA_OK)
        t->total += (uint64_t)k;
    uint64_t steps = alea__table_steps(&t->t);
    if (st == ALEA_OK && steps)
        st = alea__charge(ctx, (int64_t)steps, 0, e ? e->len : 0);
    return st;
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
            st = add(t, v, 1.0, e);
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
    alea__budget_start(ctx); /* the probe steps of the merge */
    const alea__table *f = &from->t;
    if (f->has_min)
        st = add(into, INT64_MIN, f->min_val, NULL);
    for (size_t i = 0; i < f->cap && st == ALEA_OK; i++)
        if (f->key[i] != ALEA__TABLE_FREE)
            st = add(into, f->key[i], f->val[i], NULL);
    return st;
}

/* Hits are doubles in the table: whole numbers are exact up to 2^53. */
#define TALLY_TOTAL_MAX (UINT64_C(1) << 53)

alea_status alea_tally_add(alea_ctx *ctx, alea_tally *t, int64_t value, uint64_t count)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__clear_error(ctx);
    if (!t || t->ctx != ctx)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_tally_add: NULL, or a tally of another context");
    if (count > TALLY_TOTAL_MAX - t->total)
        return alea__error(ctx, ALEA_ERR_LIMIT, 0, 0,
                           "too many rolls counted (limit is 2^53 in a tally)");
    if (count == 0) /* no hits: not a value of the estimate */
        return ALEA_OK;
    alea__budget_start(ctx); /* the probe steps of this value */
    return add(t, value, (double)count, NULL);
}

uint64_t alea_tally_total(const alea_tally *t)
{
    return t ? t->total : 0;
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
    alea__pair *h;
    size_t k;
    alea_status st = alea__table_sorted(ctx, &t->t, &h, &k);
    if (st != ALEA_OK)
        return st;
    alea__pmf pmf;
    if ((st = alea__pmf_alloc(ctx, k, &pmf)) == ALEA_OK) {
        for (size_t i = 0; i < k; i++) {
            pmf.v[i] = h[i].v;
            pmf.p[i] = h[i].p / (double)t->total;
        }
        if ((st = alea__dist_make(ctx, &pmf, e->src, e->len, out)) != ALEA_OK) {
            alea__pmf_free(ctx, &pmf);
        } else {
            (*out)->samples = t->total;
            alea__bounds(e->root, &(*out)->tree);
            const node *root = e->root;
            if (root->kind == N_REPEAT) { /* its samples are one roll's */
                (*out)->rolls = root->u.rep.n;
                root = root->u.rep.a;
            }
            if (root->kind == N_MECH && root->u.mech.ops->describe)
                root->u.mech.ops->describe(root, &(*out)->notes);
        }
    }
    alea__mem_free(ctx, h, (k ? k : 1) * sizeof *h);
    return st;
}
