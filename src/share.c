/*
 * share.c -- work shared between the values of a binding (share.h): the
 * levels each computation read, and the distributions kept by node.
 */
#include <string.h>

#include "pmf.h"
#include "share.h"

/* Work units of one outcome copied (its value and probability, 16 bytes,
 * and its share of the block, as a pass over it: exact.c's PASS_COST);
 * in exact mode each fraction also costs about an addition of fractions
 * (an allocation of its digits), and the digits are charged as they are
 * read (alea__pmf_seal). */
#define SHARE_COPY_COST 2

/* The levels a use of a parameter reads: the last bit, of no level. */
#define PARAM ((uint64_t)1 << 63)
/* Levels from LEVELS_SHARED on share a bit. */
#define LEVELS_SHARED 63

/* The bit of a level (1 ...); bit 62 holds every level from 63 on. */
static uint64_t level_bit(uint32_t level)
{
    return (uint64_t)1 << (level < LEVELS_SHARED ? level - 1 : LEVELS_SHARED - 1);
}

static double copy_cost(const alea_ctx *ctx, const alea__pmf *d)
{
    return 1 + (double)d->n * (ctx->exact ? ALEA__FRAC_UNIT : SHARE_COPY_COST);
}

/* ---- the index by node ------------------------------------------------------------ */

static size_t home(const alea__share *s, const node *n)
{
    uint64_t x = (uint64_t)(uintptr_t)n * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(x >> 32) & (s->hcap - 1);
}

/* The index slot holding n, or hcap when n is not kept. */
static size_t find(const alea__share *s, const node *n)
{
    if (!s->hcap)
        return 0;
    for (size_t i = home(s, n);; i = (i + 1) & (s->hcap - 1)) {
        if (!s->h[i])
            return s->hcap;
        if (s->e[s->h[i] - 1].n == n)
            return i;
    }
}

static void place(alea__share *s, size_t k)
{
    size_t i = home(s, s->e[k].n);
    while (s->h[i])
        i = (i + 1) & (s->hcap - 1);
    s->h[i] = (uint32_t)(k + 1);
}

/* Empties index slot i, moving back the entries of its run that would no
 * longer be found past the gap (linear probing without tombstones). */
static void unplace(alea__share *s, size_t i)
{
    size_t mask = s->hcap - 1;
    for (size_t j = (i + 1) & mask; s->h[j]; j = (j + 1) & mask) {
        size_t hj = home(s, s->e[s->h[j] - 1].n);
        if (((j - hj) & mask) >= ((j - i) & mask)) {
            s->h[i] = s->h[j];
            i = j;
        }
    }
    s->h[i] = 0;
}

/* Room for one more entry. 0 when the allocator refuses (the node is then
 * not kept). */
static int reserve(alea_ctx *ctx, alea__share *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        if (cap > UINT32_MAX / 4)
            return 0;
        void *e = alea__mem_realloc(ctx, s->e, s->cap * sizeof *s->e, cap * sizeof *s->e);
        if (!e)
            return 0;
        s->e = e;
        s->cap = cap;
    }
    if (2 * (s->n + 1) > s->hcap) {
        size_t hcap = s->hcap ? 2 * s->hcap : 16;
        uint32_t *h = alea__mem_alloc(ctx, hcap * sizeof *h);
        if (!h)
            return 0;
        memset(h, 0, hcap * sizeof *h);
        alea__mem_free(ctx, s->h, s->hcap * sizeof *s->h);
        s->h = h;
        s->hcap = hcap;
        for (size_t k = 0; k < s->n; k++)
            place(s, k);
    }
    return 1;
}

/* Drops the entries from top on that read a level of `levels` (all of
 * them when levels is all ones), keeping the order of the others. */
static void drop(alea_ctx *ctx, alea__share *s, size_t top, uint64_t levels)
{
    size_t j = top;
    for (size_t k = top; k < s->n; k++) {
        size_t i = find(s, s->e[k].n);
        if (s->e[k].reads & levels || levels == UINT64_MAX) {
            unplace(s, i);
            alea__pmf_free(ctx, &s->e[k].d);
            continue;
        }
        if (j != k) {
            s->h[i] = (uint32_t)(j + 1);
            s->e[j] = s->e[k];
        }
        j++;
    }
    s->n = j;
}

/* ---- the evaluation's sharing ------------------------------------------------------ */

alea_status alea__share_init(alea_ctx *ctx, uint32_t nslots, uint32_t nparams,
                             alea__share *s)
{
    memset(s, 0, sizeof *s);
    alea__share *a = ctx->across;
    s->across = a && !a->off && a->exact == ctx->exact ? a : NULL;
    if (nslots == 0)
        return ALEA_OK;
    if (!(s->uses = alea__mem_alloc(ctx, alea__mul_size(nslots, sizeof *s->uses))))
        return alea__nomem(ctx);
    for (uint32_t i = 0; i < nslots; i++)
        s->uses[i] = i < nparams ? PARAM : 0;
    s->nslots = nslots;
    return ALEA_OK;
}

void alea__share_across_init(alea_ctx *ctx, alea__share *s)
{
    memset(s, 0, sizeof *s);
    s->exact = ctx->exact;
}

void alea__share_free(alea_ctx *ctx, alea__share *s)
{
    drop(ctx, s, 0, UINT64_MAX);
    alea__mem_free(ctx, s->e, s->cap * sizeof *s->e);
    alea__mem_free(ctx, s->h, s->hcap * sizeof *s->h);
    alea__mem_free(ctx, s->uses, s->nslots * sizeof *s->uses);
    memset(s, 0, sizeof *s);
}

static void give_back(alea_ctx *ctx, alea__share *s)
{
    if (!s || s->busy || s->off)
        return;
    uint8_t exact = s->exact;
    alea__share_free(ctx, s); /* every function is then a no-op */
    s->off = 1;
    s->exact = exact;
}

void alea__share_give_back(alea_ctx *ctx)
{
    give_back(ctx, ctx->share);
    give_back(ctx, ctx->across);
}

/* A status of a copy that the memory (not the work) refused. */
static int out_of_memory(const alea_ctx *ctx, alea_status st)
{
    return st == ALEA_ERR_NOMEM || (st == ALEA_ERR_LIMIT && ctx->mem_limit_hit);
}

/* alea__share_get from keeping k (the evaluation's s, or its across). */
static int get_from(alea_ctx *ctx, alea__share *s, alea__share *k, const node *n,
                    alea__pmf *out, alea_status *st)
{
    if (!k || !k->n) /* none kept, or given back */
        return 0;
    size_t i = find(k, n);
    if (i == k->hcap)
        return 0;
    const alea__share_entry *e = &k->e[k->h[i] - 1];
    alea_status cst = alea__charge(ctx, (int64_t)copy_cost(ctx, &e->d), n->start, n->end);
    if (cst == ALEA_OK) {
        k->busy = 1;
        cst = alea__pmf_copy(ctx, &e->d, out);
        k->busy = 0;
        if (out_of_memory(ctx, cst)) { /* computed again, in the room it held */
            alea__clear_error(ctx);
            alea__share_give_back(ctx);
            return 0;
        }
    }
    s->reads |= e->reads; /* what the copy stands for read them */
    if (e->low)
        ctx->near_underflow = 1;
    *st = cst;
    return 1;
}

int alea__share_get(alea_ctx *ctx, const node *n, alea__pmf *out, alea_status *st)
{
    alea__share *s = ctx->share;
    return s && (get_from(ctx, s, s->across, n, out, st) || get_from(ctx, s, s, n, out, st));
}

void alea__share_begin(alea_ctx *ctx, alea__share_mark *m)
{
    alea__share *s = ctx->share;
    if (!s || s->off)
        return;
    m->reads = s->reads;
    m->top = s->n;
    m->across_top = s->across ? s->across->n : 0;
    m->work = ctx->work_used;
    s->reads = 0;
}

alea_status alea__share_end(alea_ctx *ctx, const node *n, const alea__share_mark *m,
                            alea_status st, const alea__pmf *out)
{
    alea__share *s = ctx->share;
    if (!s || s->off)
        return st;
    uint64_t reads = s->reads;
    s->reads = m->reads | reads;
    if (st != ALEA_OK)
        return st;
    /* the same in every cell; else for every value of the innermost
     * binding, or (outside any binding, or reading it) only for this one */
    alea__share *k = s->across && !s->across->off && reads == 0 ? s->across : s;
    if (k == s && (s->depth == 0 || (reads & ~PARAM) >= level_bit(s->depth)))
        return st;
    double cost = copy_cost(ctx, out);
    if ((double)(ctx->work_used - m->work) <= cost ||
        cost > (double)(ctx->limits[ALEA_LIMIT_WORK] - ctx->work_used))
        return st; /* cheaper to compute again; or the copy would not fit */
    /* its parts: reached through it alone */
    drop(ctx, s, m->top, UINT64_MAX);
    if (k != s)
        drop(ctx, k, m->across_top, UINT64_MAX);
    if ((st = alea__charge(ctx, (int64_t)cost, n->start, n->end)) != ALEA_OK)
        return st; /* the host's interruption: the cost was checked */
    k->busy = 1;
    if (reserve(ctx, k)) {
        alea__share_entry *e = &k->e[k->n];
        if ((st = alea__pmf_copy(ctx, out, &e->d)) == ALEA_OK) {
            e->n = n;
            e->reads = reads;
            e->low = ctx->near_underflow;
            place(k, k->n++);
        } else if (out_of_memory(ctx, st) || st == ALEA_ERR_LIMIT) {
            alea__clear_error(ctx); /* not kept: computed again when met */
            st = ALEA_OK;
        }
    }
    k->busy = 0;
    return st;
}

void alea__share_read(alea_ctx *ctx, uint32_t slot)
{
    alea__share *s = ctx->share;
    if (s && slot < s->nslots) /* given back: nslots is 0 */
        s->reads |= s->uses[slot];
}

uint64_t alea__share_took(alea_ctx *ctx, const alea__share_mark *m)
{
    alea__share *s = ctx->share;
    if (!s || s->off)
        return 0;
    uint64_t reads = s->reads;
    s->reads |= m->reads;
    return reads;
}

void alea__share_bind(alea_ctx *ctx, uint32_t slot, int mixes, uint64_t value_reads,
                      alea__share_saved *saved)
{
    alea__share *s = ctx->share;
    if (!s || slot >= s->nslots)
        return;
    saved->uses = s->uses[slot];
    saved->top = s->n;
    saved->mixes = mixes;
    if (mixes)
        s->depth++;
    s->uses[slot] = mixes ? level_bit(s->depth) : value_reads;
}

void alea__share_unbind(alea_ctx *ctx, uint32_t slot, const alea__share_saved *saved)
{
    alea__share *s = ctx->share;
    if (!s || slot >= s->nslots)
        return;
    s->uses[slot] = saved->uses;
    if (!saved->mixes)
        return; /* what read it read the levels of its value */
    /* Levels from LEVELS_SHARED on share a bit: it is theirs alone again
     * once the last of them ends. */
    if (s->depth <= LEVELS_SHARED) {
        uint64_t bit = level_bit(s->depth);
        drop(ctx, s, saved->top, bit);
        s->reads &= ~bit;
    }
    s->depth--;
}
