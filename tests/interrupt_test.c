/*
 * interrupt_test.c -- the interrupt hook is polled as the work is done, in
 * doubles and in fractions: a host's deadline (alea serve, --time-limit)
 * stops an evaluation within a few milliseconds of CPU, never after a step
 * charged in one lump runs to its end (300d100kh150 in fractions ran 14 s
 * past a 1 s limit). Measured in work units, not in time: whatever the
 * machine's speed, an evaluation that charged W units polled the hook at
 * least W / (POLL_GAP) times.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core.h"
#include "support.h"

/* At most this many work units between polls, on average over an
 * evaluation: the hook is polled every ALEA__POLL_EVERY units done, and a
 * step's charge may be up to a few times what it reports done. */
#define POLL_GAP (16 * ALEA__POLL_EVERY)

static int count_polls(void *ud)
{
    ++*(long *)ud;
    return 0;
}

/* Expensive evaluations, each a fraction of a second in the optimised
 * build at raised limits: keep over many dice (a Horner programme in
 * fractions), powers, products, keep over exploding dice, events. */
static const char *const expensive[] = {
    "60d100kh30", "100d100",          "30d{0,100}!kh12", "400d20",
    "1d300*1d300", "event(6d20 + 4d12)", "20d20!kh5",    "60d30kl20",
};

/* The light run's (support.h) in place of the two dearest in fractions:
 * the same steps on fewer dice. */
static const char *const light[] = {
    "30d100kh15", "100d100",          "30d{0,100}!kh12", "400d20",
    "1d300*1d300", "event(6d20 + 4d12)", "12d20!kh5",    "60d30kl20",
};

static void polls_follow_work(int exact)
{
    const char *const *srcs = exact && test_light() ? light : expensive;
    for (size_t i = 0; i < sizeof expensive / sizeof *expensive; i++) {
        alea_ctx *ctx = alea_ctx_new(NULL, NULL);
        assert_non_null(ctx);
        if (exact && alea_ctx_set_exact(ctx, 1) != ALEA_OK) {
            alea_ctx_free(ctx);
            skip();
        }
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_max(ALEA_LIMIT_WORK));
        alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, (int64_t)1 << 32);
        alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, alea_limit_max(ALEA_LIMIT_SUPPORT));
        long polls = 0;
        alea_ctx_set_interrupt(ctx, count_polls, &polls);
        alea_dist *d = dist_of(ctx, srcs[i]);
        int64_t work = alea_ctx_work(ctx);
        if (getenv("ALEA_TEST_VERBOSE"))
            print_message("%s%s: %lld units, %ld polls, %.0f units a poll\n", srcs[i],
                          exact ? " (exact)" : "", (long long)work, polls,
                          (double)work / (double)(polls ? polls : 1));
        if ((double)polls < (double)work / POLL_GAP)
            fail_msg("%s%s: %ld polls for %lld units of work (at least one per %d expected)",
                     srcs[i], exact ? " in fractions" : "", polls, (long long)work,
                     POLL_GAP);
        alea_dist_free(d);
        alea_ctx_free(ctx);
    }
}

static void test_polls_in_doubles(void **state)
{
    (void)state;
    polls_follow_work(0);
}

static void test_polls_in_fractions(void **state)
{
    (void)state;
    polls_follow_work(1);
}

/* Says stop at the poll number *ud counts down to. */
static int stop_at(void *ud)
{
    return --*(long *)ud <= 0;
}

/* Stopped at each of its first polls, and at some far ones, an evaluation in
 * fractions returns ALEA_ERR_INTERRUPTED and leaks nothing: the steps that
 * now poll as they go (products in pieces, recurrences, sums over outcomes)
 * leave cleanly. */
static void test_stops_cleanly(void **state)
{
    (void)state;
    static const char *const src[] = {"40d100kh20", "100d100", "1d120*1d120", "20d20!kh5"};
    static const long at[] = {1, 2, 3, 5, 8, 13, 40, 100, 400, 1000, 3000};
    for (size_t i = 0; i < sizeof src / sizeof *src; i++)
        for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
            heap h = {0, 0, 0};
            alea_ctx *ctx = alea_ctx_new(heap_alloc, &h);
            assert_non_null(ctx);
            if (alea_ctx_set_exact(ctx, 1) != ALEA_OK) {
                alea_ctx_free(ctx);
                skip();
            }
            alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_max(ALEA_LIMIT_WORK));
            alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, (int64_t)1 << 32);
            long left = at[k];
            alea_ctx_set_interrupt(ctx, stop_at, &left);
            alea_expr *e = compile(ctx, src[i]);
            alea_dist *d = NULL;
            alea_status st = alea_expr_dist(ctx, e, &d);
            if (st == ALEA_OK) /* done before that poll */
                assert_true(left > 0);
            else
                assert_int_equal(st, ALEA_ERR_INTERRUPTED);
            alea_dist_free(d);
            alea_expr_free(e);
            alea_ctx_free(ctx);
            assert_int_equal(h.live, 0);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polls_in_doubles),
        cmocka_unit_test(test_polls_in_fractions),
        cmocka_unit_test(test_stops_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
