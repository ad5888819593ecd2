/*
 * core.h -- the context's insides, shared by every module: allocator
 * accounting, arenas, errors with spans, limits and per-evaluation budgets.
 */
#ifndef ALEA_CORE_H
#define ALEA_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "alea.h"

#if defined(__GNUC__) || defined(__clang__)
#define ALEA__HIDDEN __attribute__((visibility("hidden")))
#define ALEA__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ALEA__HIDDEN
#define ALEA__PRINTF(f, a)
#endif

#define ALEA__ERRMSG_CAP 256

/* Spare blocks a context keeps (see alea__spare_alloc). */
#define ALEA__SPARES 64

/* How often (in work units) evaluations poll the interrupt hook. */
#define ALEA__POLL_EVERY 4096

/* A chosen face for each die (alea__rng_set_faces): the index, below n, of
 * the face a die of n faces shows; its faces are lo, lo + 1, ... or, when
 * faces is not NULL, faces[0..n) in ascending order. For tests that state
 * the faces a tool's documentation rolls. */
typedef uint64_t (*alea__face_fn)(void *ud, uint64_t n, int64_t lo, const int64_t *faces);
/* The mechanics and extra dice a context reads (mech.h). */
typedef struct alea__lang alea__lang;

struct alea_ctx {
    alea_alloc_fn alloc;
    void *alloc_ud;
    size_t mem_used, mem_peak;
    int mem_limit_hit; /* the last failed allocation was refused by the limit */

    int64_t limits[ALEA_LIMIT__COUNT];
    double tail;

    uint64_t rng[4];          /* xoshiro256** state */
    alea_random_fn random_fn; /* custom source, or NULL */
    void *random_ud;
    alea__face_fn face_fn; /* chosen faces, or NULL */
    void *face_ud;

    alea_interrupt_fn interrupt_fn;
    void *interrupt_ud;

    const alea__lang *lang; /* what its expressions are read in (mech.h) */

    /* Large blocks freed during the evaluation under way, kept for the next
     * request of about their size (alea__spare_*), released when it ends:
     * a dynamic programme makes and drops an accumulator per state, and
     * returning each to the system costs page faults on the next. */
    struct {
        void *p;
        size_t size;
    } spare[ALEA__SPARES];
    size_t spare_bytes;
    int spare_on; /* an evaluation that flushes the spares is under way */

    /* Budget of the evaluation under way (reset by alea__budget_start). */
    int64_t work_used, work_poll, dice_used;
    double work_done; /* work charged in advance and done since (alea__progress) */
    double work_need; /* after a step refused before it started: the work the
                         evaluation needed up to its end (alea_ctx_work_needed) */
    double support_need; /* after a support-limit error: the outcomes the step
                            refused needed at least, when known (0: unknown) */

    uint8_t dialect; /* alea_dialect of the expressions compiled next */
    uint8_t exact;   /* distributions in exact fractions (weight.h) */
    uint8_t precise; /* exact fractions only for the doubles' sake (api.c): a
                        result near the double range recomputed */
    uint8_t near_underflow; /* a probability of the evaluation under way came
                               near the double range (exact.c, api.c) */
    /* The names bound in the exact evaluation under way (env.h, exact.c),
     * or NULL: every function of the engine, and every mechanic's exact
     * operation, sees them through the context it is handed. */
    struct alea__env *env;
    /* The parameters' values for the evaluation under way (params.c), or
     * NULL: none given. */
    const int64_t *params;
    /* The distributions that evaluation keeps for the values of its
     * bindings (share.h), or NULL: none kept. */
    struct alea__share *share;
    /* What the evaluations of a table's cells keep for each other (share.h,
     * sweep.c), or NULL. */
    struct alea__share *across;
    /* What the evaluation under way gives back before the memory limit
     * refuses an allocation (share.c's kept distributions), or NULL. Frees
     * without allocating. */
    void (*give_back)(alea_ctx *ctx);
    /* The exact engine's fractions, once loaded (frac_load.c): the module's
     * table and the dynamic loader's handle (NULL: not loaded). */
    const struct alea__frac_ops *frac_ops;
    void *frac_handle;

    alea_status status;
    size_t err_start, err_end;
    /* After alea_table_new's error: which of its texts the span is in. */
    uint8_t table_part;
    size_t table_index;
    char errmsg[ALEA__ERRMSG_CAP];
};

/* ---- allocation through the context's hook, counted against the limit --- */

/* NULL on failure (with ctx->mem_limit_hit set when the limit refused). */
ALEA__HIDDEN void *alea__mem_alloc(alea_ctx *ctx, size_t size);
ALEA__HIDDEN void *alea__mem_realloc(alea_ctx *ctx, void *ptr, size_t osize,
                                     size_t nsize);
ALEA__HIDDEN void alea__mem_free(alea_ctx *ctx, void *ptr, size_t size);

/*
 * Spare blocks: alea__spare_alloc returns a block of at least size
 * bytes (*got: how many), a spare one when one fits (at most twice the
 * size asked), else a new one; alea__spare_free keeps the block as a
 * spare (counted in the memory limit as before) or frees it. Spares are
 * freed by alea__spare_flush, at the end of each evaluation, and whenever
 * the memory limit would refuse an allocation. The contents of a block are
 * undefined.
 */
ALEA__HIDDEN void *alea__spare_alloc(alea_ctx *ctx, size_t size, size_t *got);
ALEA__HIDDEN void alea__spare_free(alea_ctx *ctx, void *ptr, size_t size);
ALEA__HIDDEN void alea__spare_flush(alea_ctx *ctx);

/* n * size without overflow, or SIZE_MAX. */
ALEA__HIDDEN size_t alea__mul_size(size_t n, size_t size);

/* Bump allocator of chunks; freed all at once. Blocks are 16-byte aligned. */
typedef struct alea__chunk alea__chunk;
typedef struct alea__arena {
    alea_ctx *ctx;
    alea__chunk *head; /* current chunk; earlier chunks follow ->next */
    size_t used;       /* bytes used in head */
} alea__arena;

ALEA__HIDDEN void alea__arena_init(alea__arena *a, alea_ctx *ctx);
/* NULL when out of memory (the caller reports with alea__nomem). */
ALEA__HIDDEN void *alea__arena_alloc(alea__arena *a, size_t size);
/* Forget every block but keep the first chunk for reuse. */
ALEA__HIDDEN void alea__arena_reset(alea__arena *a);
ALEA__HIDDEN void alea__arena_free(alea__arena *a);

/* ---- errors --------------------------------------------------------------- */

/* Records status, span and message in ctx; returns status. */
ALEA__HIDDEN alea_status alea__error(alea_ctx *ctx, alea_status status,
                                     size_t start, size_t end, const char *fmt,
                                     ...) ALEA__PRINTF(5, 6);
/*
 * A tree that breaks a rule the parser checks (the only place each rule is
 * checked and worded for users): the engines return this rather than
 * trusting a tree blindly, so a bug is an error, never a crash.
 */
ALEA__HIDDEN alea_status alea__broken(alea_ctx *ctx, size_t start, size_t end, const char *rule);
/* A real division (rpg-dice-roller's "/") whose quotient is not whole, over
 * [start, end): alea's values are integers, so it says how to round. */
ALEA__HIDDEN alea_status alea__inexact_error(alea_ctx *ctx, size_t start, size_t end,
                                             int possible);
/* An integer overflow of a possible value over [start, end). */
ALEA__HIDDEN alea_status alea__overflow_error_span(alea_ctx *ctx, size_t start, size_t end);
/* Out of memory, or the memory limit: never allocates. */
ALEA__HIDDEN alea_status alea__nomem(alea_ctx *ctx);
/* Clears the error state (status OK, empty message). */
ALEA__HIDDEN void alea__clear_error(alea_ctx *ctx);

/* ---- budgets ------------------------------------------------------------ */

/* Resets the per-evaluation counters. Call at the start of each public call. */
ALEA__HIDDEN void alea__budget_start(alea_ctx *ctx);

/*
 * Charges units of work before a step starts. Returns ALEA_OK, or records
 * and returns ALEA_ERR_LIMIT (work limit, with span) or ALEA_ERR_INTERRUPTED.
 */
ALEA__HIDDEN alea_status alea__charge(alea_ctx *ctx, int64_t units, size_t start,
                                      size_t end);

/*
 * Checks that `units` more work fit in the budget, without charging it (the
 * loop that does the work charges as it goes, so the interrupt hook is
 * polled). Units is a double so that estimates cannot overflow. Past the
 * limit: ALEA_ERR_LIMIT over [start, end), and ctx->work_need set.
 */
ALEA__HIDDEN alea_status alea__work_check_span(alea_ctx *ctx, double units, size_t start,
                                               size_t end);
/* The SUPPORT limit refused a step over [start, end): ALEA_ERR_LIMIT. */
ALEA__HIDDEN alea_status alea__support_error_span(alea_ctx *ctx, size_t start, size_t end);

/*
 * Reports units of work, charged before a long step started, as done: a
 * step charged in one lump calls it as it goes, so that the interrupt hook
 * is polled every ALEA__POLL_EVERY units of work done, not once a lump.
 * Charges nothing. Returns ALEA_OK or ALEA_ERR_INTERRUPTED (recorded).
 */
ALEA__HIDDEN alea_status alea__progress(alea_ctx *ctx, double units, size_t start,
                                        size_t end);

/* ---- checked int64 arithmetic: 0 on success, 1 on overflow ---------------- */

ALEA__HIDDEN int alea__add_ovf(int64_t a, int64_t b, int64_t *r);
ALEA__HIDDEN int alea__sub_ovf(int64_t a, int64_t b, int64_t *r);
ALEA__HIDDEN int alea__mul_ovf(int64_t a, int64_t b, int64_t *r);

#endif /* ALEA_CORE_H */
