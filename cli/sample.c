/*
 * sample.c -- dist --sample: a Monte Carlo estimate. The rolls are shared
 * among threads, each with its own context on its own stream of the seed,
 * and their tallies merged; the threads share the command's memory limit.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include "cli.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* sysconf */

/* One thread's share: its own context (stream `index` of the seed),
 * expression and tally. */
typedef struct sampler {
    const options *o;
    const char *src;
    size_t len;
    uint64_t seed, n;
    uint32_t index;
    int64_t memory; /* the thread's share of the memory limit */
    alea_ctx *ctx;
    alea_expr *e;
    alea_tally *tally;
    alea_status st;
} sampler;

static void *sampler_run(void *arg)
{
    sampler *w = arg;
    w->ctx = alea_ctx_new(NULL, NULL);
    if (!w->ctx) {
        w->st = ALEA_ERR_NOMEM;
        return NULL;
    }
    apply_limits(w->ctx, w->o); /* checked on the main context already */
    /* The memory limit is the command's: each thread has its share. */
    alea_ctx_limit(w->ctx, ALEA_LIMIT_MEMORY, w->memory);
    if (w->o->timer->ms > 0 || w->o->timer->cmd_s > 0)
        alea_ctx_set_interrupt(w->ctx, timer_expired, w->o->timer); /* read only */
    alea_ctx_seed_stream(w->ctx, w->seed, w->index);
    if ((w->st = alea_expr_compile(w->ctx, w->src, w->len, &w->e)) != ALEA_OK)
        return NULL;
    w->tally = alea_tally_new(w->ctx);
    w->st = w->tally ? alea_tally_sample(w->ctx, w->e, w->tally, w->n) : ALEA_ERR_NOMEM;
    return NULL;
}

/* Cores to use: --threads, else those online (at most THREADS_MAX). */
static uint32_t thread_count(const options *o)
{
    if (o->threads)
        return (uint32_t)o->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > THREADS_MAX ? THREADS_MAX : (uint32_t)n;
}


/*
 * The distribution of e (compiled from src) estimated from o->sample rolls
 * on *threads threads, streams of *seed (--seed, or a fresh one). On error
 * it is reported (with the context that failed) and the result is not 0.
 */
int estimate(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
             size_t len, uint64_t *seed, uint32_t *threads, alea_dist **out)
{
    uint32_t nt = thread_count(o);
    if ((uint64_t)nt > (uint64_t)o->sample)
        nt = (uint32_t)o->sample;
    *threads = nt;
    *seed = o->seed_set ? o->seed : alea_ctx_random(ctx);
    sampler *w = calloc(nt, sizeof *w);
    pthread_t *tid = calloc(nt, sizeof *tid);
    unsigned char *started = calloc(nt, 1);
    if (!w || !tid || !started) {
        free(w);
        free(tid);
        free(started);
        return out_of_memory();
    }
    /* One memory budget for the command: the threads and the merged tally
     * (in ctx) share it equally while the threads run; then each thread's
     * share passes to the merged tally as its tally is merged and freed
     * (the merged one holds every value the threads found). */
    int64_t memory = alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, -1);
    int64_t share = memory / (int64_t)(nt + 1);
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, (int64_t)alea_ctx_memory(ctx, NULL) + share);
    for (uint32_t i = 0; i < nt; i++) {
        w[i] = (sampler){o, src, len, *seed, (uint64_t)o->sample / nt, i, share, NULL, NULL,
                         NULL, ALEA_OK};
        if (i < (uint64_t)o->sample % nt)
            w[i].n++;
        /* The first share runs here; a thread that cannot start runs here too. */
        started[i] = i > 0 && pthread_create(&tid[i], NULL, sampler_run, &w[i]) == 0;
    }
    for (uint32_t i = 0; i < nt; i++)
        if (!started[i])
            sampler_run(&w[i]);
    for (uint32_t i = 0; i < nt; i++)
        if (started[i])
            pthread_join(tid[i], NULL);

    int rc = EXIT_OK;
    alea_tally *all = NULL;
    for (uint32_t i = 0; i < nt && rc == EXIT_OK; i++) {
        if (w[i].st == ALEA_ERR_LIMIT && nt > 1 && strstr(alea_ctx_error(w[i].ctx), "memory")) {
            fprintf(stderr, "alea: the %u sampling threads share the memory limit (%" PRId64
                            " bytes), %" PRId64 " bytes each, and one ran out; use fewer "
                            "--threads, or raise --max-memory\n", nt, memory, share);
            rc = EXIT_FAIL;
        } else if (w[i].st != ALEA_OK) {
            rc = w[i].ctx ? report_len(w[i].ctx, src, len) : out_of_memory();
        }
    }
    if (rc == EXIT_OK) {
        all = alea_tally_new(ctx);
        if (!all)
            rc = report_len(ctx, src, len);
        for (uint32_t i = 0; i < nt && rc == EXIT_OK; i++) {
            if (alea_tally_merge(ctx, all, w[i].tally) != ALEA_OK)
                rc = report_len(ctx, src, len);
            alea_tally_free(w[i].tally);
            w[i].tally = NULL;
            alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY,
                           alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, -1) + share);
        }
        if (rc == EXIT_OK && alea_tally_dist(ctx, all, e, out) != ALEA_OK)
            rc = report_len(ctx, src, len);
    }
    alea_tally_free(all);
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, memory);
    for (uint32_t i = 0; i < nt; i++) {
        alea_tally_free(w[i].tally);
        alea_expr_free(w[i].e);
        alea_ctx_free(w[i].ctx);
    }
    free(w);
    free(tid);
    free(started);
    return rc;
}
