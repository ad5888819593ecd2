/*
 * api.c -- the public entry points: argument checks, budgets, and calls into
 * the modules. Distribution accessors live with the distribution object (dist.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ast.h"
#include "dist.h"
#include "exact.h"
#include "fractions/frac.h"
#include "mech.h"
#include "out.h"
#include "rng.h"
#include "roll.h"

const char *alea_version(void)
{
    return ALEA_VERSION_STRING;
}

const char *alea_status_name(alea_status status)
{
    static const char *const names[] = {
#define NAME(name, text) "ALEA_" #name,
        ALEA_STATUS_MAP(NAME)
#undef NAME
    };
    if ((unsigned)status >= ALEA_STATUS__COUNT)
        return "ALEA_UNKNOWN";
    return names[status];
}

const char *alea_status_text(alea_status status)
{
    static const char *const texts[] = {
#define TEXT(name, text) text,
        ALEA_STATUS_MAP(TEXT)
#undef TEXT
    };
    if ((unsigned)status >= ALEA_STATUS__COUNT)
        return "unknown status";
    return texts[status];
}

/* ---- limits ------------------------------------------------------------ */

int64_t alea_ctx_limit(alea_ctx *ctx, alea_limit limit, int64_t value)
{
    if (!ctx || (unsigned)limit >= ALEA_LIMIT__COUNT)
        return -1;
    int64_t old = ctx->limits[limit];
    if (value >= 0)
        ctx->limits[limit] = value > alea_limit_max(limit) ? alea_limit_max(limit) : value;
    return old;
}

/* ---- context ------------------------------------------------------------ */

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

alea_ctx *alea_ctx_new(alea_alloc_fn alloc, void *ud)
{
    if (!alloc)
        alloc = default_alloc;
    alea_ctx *ctx = alloc(ud, NULL, 0, sizeof *ctx);
    if (!ctx)
        return NULL;
    memset(ctx, 0, sizeof *ctx);
    ctx->alloc = alloc;
    ctx->alloc_ud = ud;
    ctx->mem_used = ctx->mem_peak = sizeof *ctx;
    for (int i = 0; i < ALEA_LIMIT__COUNT; i++)
        ctx->limits[i] = alea_limit_default((alea_limit)i);
    ctx->tail = ALEA_TAIL_DEFAULT;
    ctx->lang = &alea__lang_all;
    if (alea__rng_seed_os(ctx) != 0) {
        /* No OS entropy: a seed from the clock and an address beats none. */
        uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)ctx;
        alea__rng_seed(ctx, seed);
    }
    return ctx;
}

void alea_ctx_free(alea_ctx *ctx)
{
    if (ctx) {
        alea__spare_flush(ctx);
        alea__frac_unload(ctx);
        ctx->alloc(ctx->alloc_ud, ctx, sizeof *ctx, 0);
    }
}

const char *alea_ctx_error(const alea_ctx *ctx)
{
    return ctx ? ctx->errmsg : "no context";
}

/* A message, a status's text (at most 18 bytes), ": " and the NUL. */
_Static_assert(ALEA__ERRMSG_CAP + 32 <= ALEA_ERROR_LINE_MAX, "error line room");

size_t alea_ctx_error_line(const alea_ctx *ctx, char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (ctx && ctx->status != ALEA_OK) {
        const char *what = alea_status_text(ctx->status), *msg = ctx->errmsg;
        int says = ctx->status == ALEA_ERR_LIMIT || ctx->status == ALEA_ERR_NOMEM ||
                   ctx->status == ALEA_ERR_INTERRUPTED || strstr(msg, what) != NULL;
        if (!*msg) {
            alea__out_str(&o, what);
        } else {
            if (!says) {
                alea__out_str(&o, what);
                alea__out_str(&o, ": ");
            }
            alea__out_str(&o, msg);
        }
    }
    return alea__out_finish(&o);
}

alea_status alea_ctx_error_span(const alea_ctx *ctx, size_t *start, size_t *end)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    if (start)
        *start = ctx->err_start;
    if (end)
        *end = ctx->err_end;
    return ctx->status;
}

int64_t alea_ctx_work(const alea_ctx *ctx)
{
    return ctx ? ctx->work_used : 0;
}

double alea_ctx_work_needed(const alea_ctx *ctx)
{
    return ctx && ctx->status == ALEA_ERR_LIMIT ? ctx->work_need : 0;
}

double alea_ctx_support_needed(const alea_ctx *ctx)
{
    return ctx && ctx->status == ALEA_ERR_LIMIT ? ctx->support_need : 0;
}

size_t alea_ctx_memory(const alea_ctx *ctx, size_t *peak)
{
    if (!ctx)
        return 0;
    if (peak)
        *peak = ctx->mem_peak;
    return ctx->mem_used;
}

alea_status alea_ctx_set_tail(alea_ctx *ctx, double bound)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    if (!(bound >= 1e-300 && bound <= 1e-3))
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "tail bound must be between 1e-300 and 1e-3");
    ctx->tail = bound;
    return ALEA_OK;
}

double alea_ctx_tail(const alea_ctx *ctx)
{
    return ctx ? ctx->tail : ALEA_TAIL_DEFAULT;
}

alea_status alea_ctx_set_exact(alea_ctx *ctx, int on)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea_status st;
    if (on && (st = alea__frac_load(ctx)) != ALEA_OK)
        return st;
    ctx->exact = on != 0;
    return ALEA_OK;
}

int alea_ctx_exact(const alea_ctx *ctx)
{
    return ctx ? ctx->exact : 0;
}

void alea_ctx_set_interrupt(alea_ctx *ctx, alea_interrupt_fn fn, void *ud)
{
    if (!ctx)
        return;
    ctx->interrupt_fn = fn;
    ctx->interrupt_ud = ud;
}

void alea_ctx_seed(alea_ctx *ctx, uint64_t seed)
{
    if (ctx)
        alea__rng_seed(ctx, seed);
}

void alea_ctx_seed_stream(alea_ctx *ctx, uint64_t seed, uint32_t stream)
{
    if (!ctx)
        return;
    alea__rng_seed(ctx, seed);
    for (uint32_t i = 0; i < stream; i++)
        alea__rng_jump(ctx);
}

uint64_t alea_ctx_random(alea_ctx *ctx)
{
    return ctx ? alea__rng_next(ctx) : 0;
}

alea_status alea_ctx_seed_os(alea_ctx *ctx)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    if (alea__rng_seed_os(ctx) != 0)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "the operating system gave no entropy");
    return ALEA_OK;
}

void alea_ctx_set_random(alea_ctx *ctx, alea_random_fn fn, void *ud)
{
    if (!ctx)
        return;
    ctx->random_fn = fn;
    ctx->random_ud = ud;
}

/* ---- expressions --------------------------------------------------------- */

alea_status alea_expr_compile(alea_ctx *ctx, const char *src, size_t len,
                              alea_expr **out)
{
    return alea__expr_compile(ctx, src, len, NULL, 0, out);
}

alea_status alea__expr_compile(alea_ctx *ctx, const char *src, size_t len,
                               const char *const *names, size_t nnames, alea_expr **out)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__budget_start(ctx);
    if (!out || (!src && len > 0))
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_expr_compile: NULL source or output");
    if ((int64_t)len > ctx->limits[ALEA_LIMIT_SOURCE] || len >= UINT32_MAX) {
        /* The span is the part past the limit, so a caret can point at it. */
        size_t limit = (size_t)ctx->limits[ALEA_LIMIT_SOURCE];
        return alea__error(ctx, ALEA_ERR_LIMIT, limit, len,
                           "expression too long: %zu bytes (source limit is %lld)",
                           len, (long long)ctx->limits[ALEA_LIMIT_SOURCE]);
    }
    alea_expr *e = alea__mem_alloc(ctx, sizeof *e);
    if (!e)
        return alea__nomem(ctx);
    memset(e, 0, sizeof *e);
    e->ctx = ctx;
    alea__arena_init(&e->arena, ctx);
    char *copy = alea__arena_alloc(&e->arena, len + 1);
    if (!copy) {
        alea__mem_free(ctx, e, sizeof *e);
        return alea__nomem(ctx);
    }
    if (len)
        memcpy(copy, src, len);
    copy[len] = '\0';
    e->src = copy;
    e->len = len;
    alea_status st = ALEA_OK;
    if (nnames) { /* the names, copied into the arena (their number is checked) */
        alea__param *pr = alea__arena_alloc(&e->arena, nnames * sizeof *pr);
        for (size_t i = 0; pr && i < nnames; i++) {
            size_t n = strlen(names[i]);
            char *c = alea__arena_alloc(&e->arena, n + 1);
            if (!c)
                pr = NULL;
            else
                pr[i] = (alea__param){memcpy(c, names[i], n + 1), (uint32_t)n};
        }
        if (!pr)
            st = alea__nomem(ctx);
        e->params = pr;
        e->nparams = (uint32_t)nnames;
    }
    if (st == ALEA_OK)
        st = alea__parse(ctx, e);
    if (st != ALEA_OK) {
        alea__arena_free(&e->arena);
        alea__mem_free(ctx, e, sizeof *e);
        return st;
    }
    *out = e;
    return ALEA_OK;
}

int64_t alea_expr_rolls(const alea_expr *expr)
{
    return expr && expr->root->kind == N_REPEAT ? expr->root->u.rep.n : 1;
}

const char *alea_expr_hint(const alea_expr *expr)
{
    return expr ? expr->hint : NULL;
}

alea_status alea_ctx_set_dialect(alea_ctx *ctx, alea_dialect dialect)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    if ((unsigned)dialect >= ALEA_DIALECT__COUNT)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_ctx_set_dialect: no dialect %d", (int)dialect);
    ctx->dialect = (uint8_t)dialect;
    return ALEA_OK;
}

alea_dialect alea_ctx_dialect(const alea_ctx *ctx)
{
    return ctx ? (alea_dialect)ctx->dialect : ALEA_DIALECT_ALEA;
}

void alea_expr_free(alea_expr *expr)
{
    if (!expr)
        return;
    alea_ctx *ctx = expr->ctx;
    alea__arena_free(&expr->arena);
    alea__mem_free(ctx, expr, sizeof *expr);
}

size_t alea_expr_format(const alea_expr *expr, char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (expr)
        alea__expr_print(&o, expr);
    return alea__out_finish(&o);
}

/* ---- rolling ------------------------------------------------------------ */

alea_roll *alea_roll_new(alea_ctx *ctx)
{
    if (!ctx)
        return NULL;
    alea_roll *r = alea__mem_alloc(ctx, sizeof *r);
    if (!r) {
        alea__nomem(ctx); /* recorded, for alea_ctx_error */
        return NULL;
    }
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    alea__arena_init(&r->arena, ctx);
    return r;
}

void alea_roll_free(alea_roll *roll)
{
    if (!roll)
        return;
    alea_ctx *ctx = roll->ctx;
    alea__arena_free(&roll->arena);
    alea__mem_free(ctx, roll->dice, roll->dcap * sizeof *roll->dice);
    alea__mem_free(ctx, roll->faces, roll->fcap * sizeof *roll->faces);
    alea__mem_free(ctx, roll, sizeof *roll);
}

static alea_status check_owner(alea_ctx *ctx, const alea_expr *expr, const char *fn)
{
    alea__budget_start(ctx);
    if (!expr)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "%s: NULL expression", fn);
    if (expr->ctx != ctx)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "%s: the expression belongs to another context", fn);
    return ALEA_OK;
}

alea_status alea_expr_roll(alea_ctx *ctx, const alea_expr *expr, alea_roll *roll)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea_status st = check_owner(ctx, expr, "alea_expr_roll");
    if (st != ALEA_OK)
        return st;
    if (!roll || roll->ctx != ctx)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_expr_roll: NULL roll or a roll of another context");
    return alea__roll(ctx, expr, roll);
}

alea_status alea_expr_sample(alea_ctx *ctx, const alea_expr *expr, int64_t *total)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea_status st = check_owner(ctx, expr, "alea_expr_sample");
    if (st != ALEA_OK)
        return st;
    if (!total)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "alea_expr_sample: NULL total");
    int64_t t;
    if ((st = alea__sample(ctx, expr, &t)) == ALEA_OK)
        *total = t;
    return st;
}

int64_t alea_roll_total(const alea_roll *roll)
{
    return roll ? roll->total : 0;
}

/* A repeat's rolls are the root's records; any other roll is one. */
size_t alea_roll_count(const alea_roll *roll)
{
    if (!roll || !roll->root)
        return 0;
    return roll->root->n->kind == N_REPEAT ? roll->root->nkids : 1;
}

int64_t alea_roll_total_at(const alea_roll *roll, size_t i)
{
    if (i >= alea_roll_count(roll))
        return 0;
    return roll->root->n->kind == N_REPEAT ? roll->root->kids[i]->value : roll->total;
}

size_t alea_roll_format(const alea_roll *roll, alea_format format, char *buf, size_t cap)
{
    if (!roll) {
        if (cap)
            buf[0] = '\0';
        return 0;
    }
    return alea__show(roll, format, buf, cap);
}

/* ---- distributions --------------------------------------------------------- */

/*
 * Doubles never drop an outcome silently. An outcome goes missing only when
 * every product that makes it falls below the double range (1e-308), so
 * its chance is below the support limit times that; a result whose
 * smallest probability (or one of a part's on the way, exact.c) is below
 * ALEA__NEAR_UNDERFLOW may have lost such outcomes
 * and is computed again in fractions (the same algorithms, ctx->exact; the
 * doubles shown are the nearest to the fractions, and the rare ones keep
 * their digits in alea_dist_sci). The second evaluation has a work budget
 * of its own (the same limit: such a call may do twice the limit's work in
 * all), and the same memory limit with the first result still held. When
 * it cannot (a limit, a construct with no
 * exact form, a library without GMP), the doubles stand and the
 * distribution says why outcomes may be missing (alea_dist_incomplete).
 */
static int near_underflow(const alea_ctx *ctx, const alea_dist *d)
{
    if (ctx->near_underflow)
        return 1;
    for (size_t i = 0; i < d->pmf.n; i++)
        if (d->pmf.p[i] < ALEA__NEAR_UNDERFLOW)
            return 1;
    return 0;
}

/* Why d may miss outcomes: "outcomes rarer than ... may be missing: " and
 * the reason, in d's own buffer (a longer message is cut at its size). */
static void say_incomplete(alea_dist *d, const char *reason, const char *detail)
{
    alea__out o;
    alea__out_init(&o, d->why, sizeof d->why);
    alea__out_str(&o, "outcomes rarer than about 1e-290 may be missing: ");
    alea__out_str(&o, reason);
    if (detail) {
        alea__out_str(&o, " (");
        alea__out_str(&o, detail);
        alea__out_char(&o, ')');
    }
    alea__out_finish(&o);
    d->incomplete = d->why;
}

static alea_status recompute_in_fractions(alea_ctx *ctx, const alea_expr *expr,
                                          alea_dist **out)
{
    if (alea__frac_load(ctx) != ALEA_OK) { /* the loader's reason */
        say_incomplete(*out, alea_ctx_error(ctx), NULL);
        alea__clear_error(ctx);
        return ALEA_OK;
    }
    alea_dist *q = NULL;
    /* A work budget of its own, counted on top of the first (so that the
     * work used is the whole call's): at most twice the limit in all. */
    int64_t limit = ctx->limits[ALEA_LIMIT_WORK];
    ctx->limits[ALEA_LIMIT_WORK] = ctx->work_used < INT64_MAX - limit
                                       ? ctx->work_used + limit : INT64_MAX;
    ctx->exact = 1;
    ctx->precise = 1;
    alea_status st = alea__exact(ctx, expr, &q);
    ctx->exact = 0;
    ctx->precise = 0;
    ctx->limits[ALEA_LIMIT_WORK] = limit;
    alea__frac_release(ctx);
    if (st == ALEA_OK ||
        /* the host stopped it, or its allocator failed: that is the answer */
        st == ALEA_ERR_INTERRUPTED || (st == ALEA_ERR_NOMEM && !ctx->mem_limit_hit)) {
        alea_dist_free(*out);
        *out = q;
        return st;
    }
    /* what stopped it, in the library's words (a limit names itself) */
    size_t at = 0, end = 0;
    char reason[128];
    alea_ctx_error_span(ctx, &at, &end);
    if (st == ALEA_ERR_INVALID) {
        snprintf(reason, sizeof reason,
                 "the construct at byte %zu has no exact form yet to recompute them", at);
        say_incomplete(*out, reason, NULL);
    } else if (strncmp(alea_ctx_error(ctx), "too much work", 13) == 0) { /* the raised limit */
        snprintf(reason, sizeof reason,
                 "recomputing them in exact fractions needs more work than the limit "
                 "allows (work limit is %lld)",
                 (long long)limit);
        say_incomplete(*out, reason, NULL);
    } else {
        say_incomplete(*out, "recomputing them in exact fractions stopped", alea_ctx_error(ctx));
    }
    alea__clear_error(ctx);
    return ALEA_OK;
}

alea_status alea_expr_dist(alea_ctx *ctx, const alea_expr *expr, alea_dist **out)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea_status st = check_owner(ctx, expr, "alea_expr_dist");
    if (st != ALEA_OK)
        return st;
    if (!out)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "alea_expr_dist: NULL output");
    ctx->spare_on = 1;
    ctx->near_underflow = 0;
    alea_dist *d = NULL;
    st = alea__exact(ctx, expr, &d);
    if (st == ALEA_OK && !ctx->exact && near_underflow(ctx, d))
        st = recompute_in_fractions(ctx, expr, &d);
    if (st == ALEA_OK)
        *out = d;
    ctx->spare_on = 0;
    alea__spare_flush(ctx);
    if (ctx->exact)
        alea__frac_release(ctx);
    return st;
}

