/* tsan_test.c -- contexts in threads never touch each other: several
 * threads, each with its own context, allocator and interrupt hook, compile,
 * roll, tally Monte Carlo samples and compute distributions at once, and each thread's seeded results
 * equal those of the same work done alone on the main thread first.
 *
 * A normal test in every build; built a second time with -fsanitize=thread
 * (library included) it is the ThreadSanitizer check that the library has no
 * shared mutable state. Threads never call cmocka (its failures longjmp):
 * they record what they saw, and the main thread compares. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>

#include "support.h"

#define THREADS 4
#define ROLLS 10000 /* per thread, spread over the expressions below */

static const char *const roll_exprs[] = {
    "4d6kh3",
    "1d20 + 5",
    "3d6! + 10d10>=8f1",
    "best(3, 2d6 + 3)",
    "(1d4)d6kl2",
    "d{1,1,2,3} * 2 - 4dF",
    "min(1d6, 1d8) >= abs(-3)",
    "d20 +1d [bless] - 1",
    "2d10 +3B -1B",
    "2d6 -1 DICE",
    "event(d12 + d14 + d18 + d20)",
    "dd(6, 14, always)",
    "tier(d8, +2)",
    "1d6 / (1d2 - 1)", /* fails when 1d2 shows 1: errors are results too */
};

static const char *const dist_exprs[] = {
    "4d6kh3",
    "3d6! + 1d20",
    "10d10>=8f1",
    "event(d12 + d14 + d18 + d20)",
    "dd(6, 14, best)",
    "30d6kh15",
};

#define NROLL (sizeof roll_exprs / sizeof roll_exprs[0])
#define NDIST (sizeof dist_exprs / sizeof dist_exprs[0])

/* What one run of the work produced, compared field by field. */
typedef struct result {
    uint64_t roll_hash;       /* FNV-1a of every breakdown, total and status */
    int64_t total_sum;
    long errors;              /* rolls that ended in an error status */
    uint64_t dist_hash[NDIST]; /* FNV-1a of the outcomes and their bits */
    size_t dist_count[NDIST];
    long interrupts;          /* calls of the interrupt hook */
    size_t mem_after;         /* bytes still allocated once all is freed */
    heap alloc;               /* its allocator hook (alloc.live: blocks it holds) */
    char failure[256];        /* set when something failed outright */
} result;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3u;
    }
    return h;
}

static int count_polls(void *ud)
{
    long *n = ud;
    (*n)++;
    return 0;
}

/* A gate that holds the threads until all exist, so their work overlaps. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_open = PTHREAD_COND_INITIALIZER;
static int gate_waiting, gate_size;

static void gate_pass(void)
{
    pthread_mutex_lock(&gate_lock);
    if (++gate_waiting >= gate_size)
        pthread_cond_broadcast(&gate_open);
    while (gate_waiting < gate_size)
        pthread_cond_wait(&gate_open, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
}

typedef struct job {
    uint64_t seed;
    result res;
} job;

/* The work of one thread, all in its own context. */
static void *work(void *arg)
{
    job *j = arg;
    result *r = &j->res;
    gate_pass();
    memset(r, 0, sizeof *r);
    r->roll_hash = 0xcbf29ce484222325u;

    alea_ctx *ctx = alea_ctx_new(heap_alloc, &r->alloc);
    if (!ctx) {
        snprintf(r->failure, sizeof r->failure, "alea_ctx_new failed");
        return NULL;
    }
    alea_ctx_set_interrupt(ctx, count_polls, &r->interrupts);
    alea_ctx_seed(ctx, j->seed);

    alea_expr *ex[NROLL] = {NULL};
    alea_roll *roll = alea_roll_new(ctx);
    char buf[4096];
    if (!roll) {
        snprintf(r->failure, sizeof r->failure, "alea_roll_new failed");
        goto done;
    }
    for (size_t i = 0; i < NROLL; i++) {
        if (alea_expr_compile(ctx, roll_exprs[i], strlen(roll_exprs[i]), &ex[i]) != ALEA_OK) {
            snprintf(r->failure, sizeof r->failure, "compile '%s': %s", roll_exprs[i],
                     alea_ctx_error(ctx));
            goto done;
        }
    }

    for (int k = 0; k < ROLLS; k++) {
        const alea_expr *e = ex[(size_t)k % NROLL];
        alea_status st;
        int64_t total = 0;
        if (k % 2 == 0) { /* with a breakdown: text, or JSON every fourth */
            st = alea_expr_roll(ctx, e, roll);
            if (st == ALEA_OK) {
                alea_format f = k % 4 == 0 ? ALEA_FORMAT_JSON : ALEA_FORMAT_TEXT;
                size_t n = alea_roll_format(roll, f, buf, sizeof buf);
                r->roll_hash = fnv(r->roll_hash, buf, n < sizeof buf ? n : sizeof buf - 1);
                total = alea_roll_total(roll);
            }
        } else {
            st = alea_expr_sample(ctx, e, &total);
        }
        if (st != ALEA_OK) {
            r->errors++;
            const char *msg = alea_ctx_error(ctx);
            r->roll_hash = fnv(r->roll_hash, msg, strlen(msg));
        }
        r->roll_hash = fnv(r->roll_hash, &st, sizeof st);
        r->roll_hash = fnv(r->roll_hash, &total, sizeof total);
        r->total_sum += total;
    }

    /* A Monte Carlo tally on this thread's stream of one seed, as
     * `alea dist --sample` does: its counts join the roll hash. */
    {
        alea_ctx_seed_stream(ctx, 2026, (uint32_t)(j->seed % 7));
        alea_tally *t = alea_tally_new(ctx);
        alea_dist *d = NULL;
        if (!t || alea_tally_sample(ctx, ex[0], t, 20000) != ALEA_OK ||
            alea_tally_dist(ctx, t, ex[0], &d) != ALEA_OK) {
            snprintf(r->failure, sizeof r->failure, "tally: %s", alea_ctx_error(ctx));
            alea_tally_free(t);
            goto done;
        }
        for (size_t k = 0; k < alea_dist_count(d); k++) {
            double p = alea_dist_prob(d, k);
            r->roll_hash = fnv(r->roll_hash, &p, sizeof p);
        }
        alea_dist_free(d);
        alea_tally_free(t);
    }

    for (size_t i = 0; i < NDIST; i++) {
        alea_expr *e = NULL;
        alea_dist *d = NULL;
        if (alea_expr_compile(ctx, dist_exprs[i], strlen(dist_exprs[i]), &e) != ALEA_OK ||
            alea_expr_dist(ctx, e, &d) != ALEA_OK) {
            snprintf(r->failure, sizeof r->failure, "dist '%s': %s", dist_exprs[i],
                     alea_ctx_error(ctx));
            alea_expr_free(e);
            goto done;
        }
        uint64_t h = 0xcbf29ce484222325u;
        r->dist_count[i] = alea_dist_count(d);
        for (size_t k = 0; k < alea_dist_count(d); k++) {
            int64_t v = alea_dist_value(d, k);
            double p = alea_dist_prob(d, k);
            h = fnv(h, &v, sizeof v);
            h = fnv(h, &p, sizeof p);
        }
        double m = alea_dist_mean(d), s = alea_dist_sd(d);
        h = fnv(h, &m, sizeof m);
        h = fnv(h, &s, sizeof s);
        r->dist_hash[i] = h;
        alea_dist_free(d);
        alea_expr_free(e);
    }

done:
    for (size_t i = 0; i < NROLL; i++)
        alea_expr_free(ex[i]);
    alea_roll_free(roll);
    r->mem_after = alea_ctx_memory(ctx, NULL);
    alea_ctx_free(ctx);
    return NULL;
}

static void same_result(const result *got, const result *want, int thread)
{
    if (got->failure[0])
        fail_msg("thread %d: %s", thread, got->failure);
    if (got->roll_hash != want->roll_hash || got->total_sum != want->total_sum ||
        got->errors != want->errors)
        fail_msg("thread %d: rolls differ from the single-threaded run "
                 "(hash %016llx vs %016llx, sum %lld vs %lld)",
                 thread, (unsigned long long)got->roll_hash,
                 (unsigned long long)want->roll_hash, (long long)got->total_sum,
                 (long long)want->total_sum);
    for (size_t i = 0; i < NDIST; i++)
        if (got->dist_hash[i] != want->dist_hash[i] ||
            got->dist_count[i] != want->dist_count[i])
            fail_msg("thread %d: dist '%s' differs from the single-threaded run", thread,
                     dist_exprs[i]);
    if (got->interrupts != want->interrupts)
        fail_msg("thread %d: the hook was polled %ld times, %ld alone", thread,
                 got->interrupts, want->interrupts);
}

static void test_threads(void **state)
{
    (void)state;
    job ref[THREADS], run[THREADS];
    pthread_t tid[THREADS];

    /* What a context holds with nothing made from it. */
    alea_ctx *empty = alea_ctx_new(NULL, NULL);
    assert_non_null(empty);
    size_t base = alea_ctx_memory(empty, NULL);
    alea_ctx_free(empty);

    /* The reference: each thread's work, alone, one after the other. */
    gate_size = 0; /* the gate is open */
    for (int t = 0; t < THREADS; t++) {
        ref[t].seed = 1000 + (uint64_t)t;
        work(&ref[t]);
        if (ref[t].res.failure[0])
            fail_msg("reference %d: %s", t, ref[t].res.failure);
        assert_int_equal(ref[t].res.mem_after, base); /* everything given back */
        assert_true(ref[t].res.alloc.live == 0);
        assert_true(ref[t].res.errors > 0); /* 1d6 / (1d2 - 1) failed sometimes */
        assert_true(ref[t].res.interrupts > 0);
    }
    /* Different seeds, different rolls; same distributions. */
    assert_true(ref[0].res.roll_hash != ref[1].res.roll_hash);
    assert_memory_equal(ref[0].res.dist_hash, ref[1].res.dist_hash,
                        sizeof ref[0].res.dist_hash);

    /* The same work, all at once. */
    gate_waiting = 0;
    gate_size = THREADS;
    for (int t = 0; t < THREADS; t++) {
        run[t].seed = ref[t].seed;
        assert_int_equal(pthread_create(&tid[t], NULL, work, &run[t]), 0);
    }
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(tid[t], NULL), 0);
    for (int t = 0; t < THREADS; t++) {
        same_result(&run[t].res, &ref[t].res, t);
        assert_true(run[t].res.alloc.live == 0);
        assert_int_equal(run[t].res.mem_after, base);
    }
}

/* Reading the library's constant tables from many threads at once. */
static void *read_tables(void *arg)
{
    long *bad = arg;
    for (int k = 0; k < 2000; k++) {
        if (strcmp(alea_version(), ALEA_VERSION_STRING) != 0)
            (*bad)++;
        for (int s = 0; s < ALEA_STATUS__COUNT; s++)
            if (!alea_status_name((alea_status)s) || !alea_status_text((alea_status)s))
                (*bad)++;
        for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
            if (!alea_limit_name((alea_limit)l) ||
                alea_limit_default((alea_limit)l) > alea_limit_max((alea_limit)l))
                (*bad)++;
    }
    return NULL;
}

static void test_shared_tables(void **state)
{
    (void)state;
    pthread_t tid[THREADS];
    long bad[THREADS] = {0};
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&tid[t], NULL, read_tables, &bad[t]), 0);
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(tid[t], NULL), 0);
        assert_true(bad[t] == 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_shared_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
