/*
 * core.c -- allocator accounting, arenas, errors, budgets, checked arithmetic.
 */
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- allocation -------------------------------------------------------- */

size_t alea__mul_size(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return SIZE_MAX;
    return n * size;
}

void *alea__mem_realloc(alea_ctx *ctx, void *ptr, size_t osize, size_t nsize)
{
    if (nsize == 0) {
        if (ptr) {
            ctx->alloc(ctx->alloc_ud, ptr, osize, 0);
            ctx->mem_used -= osize;
        }
        return NULL;
    }
    if (nsize == SIZE_MAX)
        return NULL;
    if (!ptr)
        osize = 0;
    if (nsize > osize) {
        size_t grow = nsize - osize;
        uint64_t limit = (uint64_t)ctx->limits[ALEA_LIMIT_MEMORY];
        if ((uint64_t)ctx->mem_used + grow > limit && ctx->spare_bytes)
            alea__spare_flush(ctx); /* spares first */
        if ((uint64_t)ctx->mem_used + grow > limit && ctx->give_back) {
            ctx->give_back(ctx); /* then what can be computed again */
            alea__spare_flush(ctx);
        }
        if ((uint64_t)ctx->mem_used + grow > limit) {
            ctx->mem_limit_hit = 1;
            return NULL;
        }
    }
    void *np = ctx->alloc(ctx->alloc_ud, ptr, osize, nsize);
    if (!np) {
        ctx->mem_limit_hit = 0;
        return NULL;
    }
    ctx->mem_used = ctx->mem_used - osize + nsize;
    if (ctx->mem_used > ctx->mem_peak)
        ctx->mem_peak = ctx->mem_used;
    return np;
}

void *alea__mem_alloc(alea_ctx *ctx, size_t size)
{
    return alea__mem_realloc(ctx, NULL, 0, size);
}

void alea__mem_free(alea_ctx *ctx, void *ptr, size_t size)
{
    alea__mem_realloc(ctx, ptr, size, 0);
}

/* ---- spare blocks ------------------------------------------------------ */

/* Blocks smaller than this go back to the allocator at once: malloc keeps
 * them itself, without page faults. */
#define SPARE_MIN 16384u

void *alea__spare_alloc(alea_ctx *ctx, size_t size, size_t *got)
{
    int best = -1;
    /* Spares are SPARE_MIN bytes or more, and serve requests of half their
     * size or more: a small request goes straight to the allocator. */
    for (int i = 0; ctx->spare_bytes && size >= SPARE_MIN / 2 && i < ALEA__SPARES; i++) {
        size_t s = ctx->spare[i].size;
        if (ctx->spare[i].p && s >= size && s / 2 <= size &&
            (best < 0 || s < ctx->spare[best].size))
            best = i;
    }
    if (best >= 0) {
        void *p = ctx->spare[best].p;
        *got = ctx->spare[best].size;
        ctx->spare_bytes -= *got;
        ctx->spare[best].p = NULL;
        ctx->spare[best].size = 0;
        return p;
    }
    /* A new block is rounded up to a power of two, so that the slowly
     * growing requests of a programme's steps fit the blocks of the last. */
    size_t round = size;
    if (size >= SPARE_MIN && size <= SIZE_MAX / 2) {
        round = SPARE_MIN;
        while (round < size)
            round *= 2;
    }
    *got = round;
    return alea__mem_alloc(ctx, round);
}

void alea__spare_free(alea_ctx *ctx, void *ptr, size_t size)
{
    if (!ptr)
        return;
    if (size >= SPARE_MIN && ctx->spare_on) {
        /* the first free slot, else the smallest spare */
        int slot = 0;
        for (int i = 0; i < ALEA__SPARES; i++) {
            if (!ctx->spare[i].p) {
                slot = i;
                break;
            }
            if (ctx->spare[i].size < ctx->spare[slot].size)
                slot = i;
        }
        if (ctx->spare[slot].p && ctx->spare[slot].size < size) {
            alea__mem_free(ctx, ctx->spare[slot].p, ctx->spare[slot].size);
            ctx->spare_bytes -= ctx->spare[slot].size;
            ctx->spare[slot].p = NULL;
        }
        if (!ctx->spare[slot].p) {
            ctx->spare[slot].p = ptr;
            ctx->spare[slot].size = size;
            ctx->spare_bytes += size;
            return;
        }
    }
    alea__mem_free(ctx, ptr, size);
}

void alea__spare_flush(alea_ctx *ctx)
{
    for (int i = 0; i < ALEA__SPARES; i++) {
        if (ctx->spare[i].p)
            alea__mem_free(ctx, ctx->spare[i].p, ctx->spare[i].size);
        ctx->spare[i].p = NULL;
        ctx->spare[i].size = 0;
    }
    ctx->spare_bytes = 0;
}

/* ---- arena ------------------------------------------------------------- */

struct alea__chunk {
    alea__chunk *next;
    size_t size; /* usable bytes after the header */
    /* data follows, 16-byte aligned */
};

#define CHUNK_HDR ((sizeof(alea__chunk) + 15u) & ~(size_t)15u)
#define CHUNK_MIN 4096u
/* A block this large, or larger, never makes the next chunk larger. */
#define CHUNK_BIG 65536u

void alea__arena_init(alea__arena *a, alea_ctx *ctx)
{
    a->ctx = ctx;
    a->head = NULL;
    a->used = 0;
}

void *alea__arena_alloc(alea__arena *a, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    if (size == 0)
        size = 16;
    if (a->head && a->head->size - a->used >= size) {
        void *p = (char *)a->head + CHUNK_HDR + a->used;
        a->used += size;
        return p;
    }
    /* A large block that the head cannot hold gets a chunk of its own,
     * behind the head: the head stays, and so does the size the next
     * chunk doubles (a table of megabytes would otherwise make the next
     * chunk twice as large, for a few nodes). */
    if (a->head && size >= CHUNK_BIG && size > a->head->size - a->used) {
        alea__chunk *big = alea__mem_alloc(a->ctx, CHUNK_HDR + size);
        if (!big)
            return NULL;
        big->size = size;
        big->next = a->head->next;
        a->head->next = big;
        return (char *)big + CHUNK_HDR;
    }
    /* A recycled chunk after reset may sit behind head; reuse only the
     * first (kept) chunk, which reset makes the head again. */
    size_t want = size > CHUNK_MIN ? size : CHUNK_MIN;
    if (a->head && want < a->head->size * 2 && a->head->size * 2 <= (size_t)1 << 24)
        want = a->head->size * 2;
    if (want > SIZE_MAX - CHUNK_HDR)
        return NULL;
    alea__chunk *c = alea__mem_alloc(a->ctx, CHUNK_HDR + want);
    if (!c)
        return NULL;
    c->size = want;
    c->next = a->head;
    a->head = c;
    a->used = size;
    return (char *)c + CHUNK_HDR;
}

void alea__arena_reset(alea__arena *a)
{
    if (!a->head)
        return;
    /* Keep the largest chunk (the newest: sizes grow), free the rest. */
    alea__chunk *keep = a->head, *c = keep->next;
    while (c) {
        alea__chunk *next = c->next;
        alea__mem_free(a->ctx, c, CHUNK_HDR + c->size);
        c = next;
    }
    keep->next = NULL;
    a->head = keep;
    a->used = 0;
}

void alea__arena_free(alea__arena *a)
{
    alea__chunk *c = a->head;
    while (c) {
        alea__chunk *next = c->next;
        alea__mem_free(a->ctx, c, CHUNK_HDR + c->size);
        c = next;
    }
    a->head = NULL;
    a->used = 0;
}

/* ---- errors ------------------------------------------------------------ */

alea_status alea__error(alea_ctx *ctx, alea_status status, size_t start,
                        size_t end, const char *fmt, ...)
{
    va_list ap;
    ctx->status = status;
    ctx->work_need = 0;
    ctx->support_need = 0;
    ctx->err_start = start;
    ctx->err_end = end < start ? start : end;
    va_start(ap, fmt);
    vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
    va_end(ap);
    return status;
}

alea_status alea__broken(alea_ctx *ctx, size_t start, size_t end, const char *rule)
{
    return alea__error(ctx, ALEA_ERR_INVALID, start, end,
                       "internal error at byte %zu: %s, which the parser refuses; please "
                       "report the expression",
                       start, rule);
}

alea_status alea__inexact_error(alea_ctx *ctx, size_t start, size_t end, int possible)
{
    return alea__error(ctx, ALEA_ERR_DOMAIN, start, end,
                       "a division %s a remainder at byte %zu: this dialect divides as "
                       "real numbers, and alea's values are whole numbers; round it with "
                       "floor(a / b), ceil(a / b) or round(a / b)",
                       possible ? "can leave" : "left", start);
}

alea_status alea__overflow_error_span(alea_ctx *ctx, size_t start, size_t end)
{
    return alea__error(ctx, ALEA_ERR_OVERFLOW, start, end,
                       "integer overflow at byte %u: a possible value goes beyond %lld",
                       (unsigned)start, (long long)INT64_MAX);
}

alea_status alea__nomem(alea_ctx *ctx)
{
    static const char limit_msg[] = "memory limit exceeded";
    static const char nomem_msg[] = "out of memory";
    int lim = ctx->mem_limit_hit;
    ctx->status = lim ? ALEA_ERR_LIMIT : ALEA_ERR_NOMEM;
    ctx->err_start = ctx->err_end = 0;
    if (lim)
        snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s (limit is %lld bytes)",
                 limit_msg, (long long)ctx->limits[ALEA_LIMIT_MEMORY]);
    else
        memcpy(ctx->errmsg, nomem_msg, sizeof nomem_msg);
    return ctx->status;
}

void alea__clear_error(alea_ctx *ctx)
{
    ctx->status = ALEA_OK;
    ctx->err_start = ctx->err_end = 0;
    ctx->errmsg[0] = '\0';
    ctx->mem_limit_hit = 0;
}

/* ---- budgets ----------------------------------------------------------- */

void alea__budget_start(alea_ctx *ctx)
{
    ctx->work_used = ctx->work_base;
    ctx->work_need = 0;
    ctx->work_poll = ctx->work_base + ALEA__POLL_EVERY;
    ctx->work_done = 0;
    ctx->dice_used = 0;
    alea__clear_error(ctx);
}

alea_status alea__charge(alea_ctx *ctx, int64_t units, size_t start, size_t end)
{
    int64_t limit = ctx->limits[ALEA_LIMIT_WORK];
    if (units < 0 || units > limit - ctx->work_used)
        return alea__error(ctx, ALEA_ERR_LIMIT, start, end,
                           "too much work to compute at byte %zu (work limit is %lld)",
                           start, (long long)limit);
    ctx->work_used += units;
    if (ctx->work_used >= ctx->work_poll) {
        ctx->work_poll = ctx->work_used + ALEA__POLL_EVERY;
        if (ctx->interrupt_fn && ctx->interrupt_fn(ctx->interrupt_ud))
            return alea__error(ctx, ALEA_ERR_INTERRUPTED, start, end,
                               "interrupted by the host");
    }
    return ALEA_OK;
}

alea_status alea__work_check_span(alea_ctx *ctx, double units, size_t start, size_t end)
{
    int64_t limit = ctx->limits[ALEA_LIMIT_WORK], left = limit - ctx->work_used;
    if (units <= (double)left) /* NaN is refused below */
        return ALEA_OK;
    double need = (double)ctx->work_used + units;
    alea_status st = alea__error(ctx, ALEA_ERR_LIMIT, start, end,
                                 "too much work to compute at byte %zu: it needs at least "
                                 "%.*g units (work limit is %lld)",
                                 start, need < 1e15 ? 15 : 3, ceil(need), (long long)limit);
    ctx->work_need = need == need ? need : HUGE_VAL;
    return st;
}

alea_status alea__support_error_span(alea_ctx *ctx, size_t start, size_t end)
{
    return alea__error(ctx, ALEA_ERR_LIMIT, start, end,
                       "too many outcomes to compute at byte %u (support limit is %lld)",
                       (unsigned)start, (long long)ctx->limits[ALEA_LIMIT_SUPPORT]);
}

alea_status alea__progress(alea_ctx *ctx, double units, size_t start, size_t end)
{
    ctx->work_done += units;
    if (ctx->work_done < ALEA__POLL_EVERY)
        return ALEA_OK;
    ctx->work_done = 0;
    if (ctx->interrupt_fn && ctx->interrupt_fn(ctx->interrupt_ud))
        return alea__error(ctx, ALEA_ERR_INTERRUPTED, start, end, "interrupted by the host");
    return ALEA_OK;
}

/* ---- checked arithmetic ------------------------------------------------- */

int alea__add_ovf(int64_t a, int64_t b, int64_t *r)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return 1;
    *r = a + b;
    return 0;
}

int alea__sub_ovf(int64_t a, int64_t b, int64_t *r)
{
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))
        return 1;
    *r = a - b;
    return 0;
}

int alea__mul_ovf(int64_t a, int64_t b, int64_t *r)
{
    if (a == 0 || b == 0) {
        *r = 0;
        return 0;
    }
    if (a > 0) {
        if (b > 0) {
            if (a > INT64_MAX / b)
                return 1;
        } else if (b < INT64_MIN / a) {
            return 1;
        }
    } else {
        if (b > 0) {
            if (a < INT64_MIN / b)
                return 1;
        } else if (a < INT64_MAX / b) {
            return 1;
        }
    }
    *r = a * b;
    return 0;
}

/* ---- limits: the table of alea.h's ALEA_LIMIT_MAP --------------------------- */

static const struct {
    const char *name, *what;
    int64_t def, max;
} limit_info[] = {
#define INFO(name, def, max, what) {#name, what, def, max},
    ALEA_LIMIT_MAP(INFO)
#undef INFO
};

const char *alea_limit_name(alea_limit limit)
{
    /* Lowercase names, kept beside the upper-case X-macro names. */
    static const char *const lower[] = {"source", "depth", "nodes", "dice",
                                        "support", "work", "memory", "breakdown",
                                        "output", "cells"};
    _Static_assert(sizeof lower / sizeof lower[0] == ALEA_LIMIT__COUNT,
                   "one lowercase name per limit");
    if ((unsigned)limit >= ALEA_LIMIT__COUNT)
        return NULL;
    return lower[limit];
}

int64_t alea_limit_default(alea_limit limit)
{
    return (unsigned)limit < ALEA_LIMIT__COUNT ? limit_info[limit].def : -1;
}

int64_t alea_limit_max(alea_limit limit)
{
    return (unsigned)limit < ALEA_LIMIT__COUNT ? limit_info[limit].max : -1;
}

const char *alea_limit_what(alea_limit limit)
{
    return (unsigned)limit < ALEA_LIMIT__COUNT ? limit_info[limit].what : NULL;
}
