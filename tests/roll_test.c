/* roll_test.c -- the generator, the roller's limits, reproducibility, the
 * custom random source, and allocation failure at every step. */
#include "rng.h"
#include "roll.h"
#include "support.h"

TEST_CONTEXT(NULL, NULL)

/* xoshiro256** seeded by splitmix64(0): the first outputs are fixed
 * forever (same seed, same rolls, on every platform). */
static void test_rng_reference(void **state)
{
    (void)state;
    alea__rng_seed(ctx, 0);
    uint64_t a = alea__rng_next(ctx), b = alea__rng_next(ctx);
    /* splitmix64 from 0 gives state e220a8397b1dcdaf, 6e789e6aa1b965f4,
     * 06c45d188009454f, f88bb8a8724c81ec; result = rotl(s1 * 5, 7) * 9. */
    uint64_t s1 = 0x6e789e6aa1b965f4u;
    uint64_t x = s1 * 5;
    uint64_t want = ((x << 7) | (x >> 57)) * 9;
    assert_true(a == want);
    assert_true(a != b);
}

static void test_rng_below(void **state)
{
    (void)state;
    alea__rng_seed(ctx, 42);
    for (int i = 0; i < 1000; i++)
        assert_true(alea__rng_below(ctx, 1) == 0);
    /* 60,000 draws of a d6: every face within 5% of 10,000. */
    unsigned counts[6] = {0};
    for (int i = 0; i < 60000; i++) {
        uint64_t v = alea__rng_below(ctx, 6);
        assert_true(v < 6);
        counts[v]++;
    }
    for (int i = 0; i < 6; i++)
        assert_true(counts[i] > 9500 && counts[i] < 10500);
    /* A bound above 2^63 still lands below it. */
    uint64_t big = ((uint64_t)1 << 63) + 12345;
    for (int i = 0; i < 1000; i++)
        assert_true(alea__rng_below(ctx, big) < big);
}

static void test_same_seed_same_rolls(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "4d6kh3 + 3d6! + 10d10>=8f1 + best(2, 1d20)");
    alea_roll *r = alea_roll_new(ctx);
    char *first[5];
    alea_ctx_seed(ctx, 99);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
        first[i] = roll_text(r, ALEA_FORMAT_TEXT);
    }
    alea_ctx_seed(ctx, 99);
    for (int i = 0; i < 5; i++) {
        int64_t t;
        assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
        char *again = roll_text(r, ALEA_FORMAT_TEXT);
        assert_string_equal(first[i], again);
        free(again);
        free(first[i]);
        (void)t;
    }
    /* The fast path draws the same numbers. */
    alea_ctx_seed(ctx, 5);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    int64_t rolled = alea_roll_total(r), sampled;
    alea_ctx_seed(ctx, 5);
    assert_int_equal(alea_expr_sample(ctx, e, &sampled), ALEA_OK);
    assert_true(rolled == sampled);
    alea_roll_free(r);
    alea_expr_free(e);
}

/* The sampler sums plain dice in one tight loop (rng.c); it must draw the
 * same numbers as the traced roll, in the same order, whatever the faces:
 * negative ranges, lists, and ranges whose sum needs the checked path. */
static void test_sample_matches_roll(void **state)
{
    (void)state;
    static const char *const exprs[] = {
        "9000d6", "1000d{-5..5}", "d{-9223372036854775807..-9223372036854775000}",
        "3d{-9223372036854775807..9223372036854775807}", "500d{1,1,2,3,5,8}",
        "2000d20 + 1000d4 - 3000d2", "(1d6)d1000000", "4d6kh3 + 100d6", "0d6 + 1d1",
    };
    alea_roll *r = alea_roll_new(ctx);
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        alea_expr *e = NULL;
        assert_int_equal(alea_expr_compile(ctx, exprs[i], strlen(exprs[i]), &e), ALEA_OK);
        for (uint64_t seed = 1; seed <= 20; seed++) {
            alea_ctx_seed(ctx, seed);
            alea_status st = alea_expr_roll(ctx, e, r);
            int64_t sampled = 0;
            alea_ctx_seed(ctx, seed);
            alea_status st2 = alea_expr_sample(ctx, e, &sampled);
            if (st != st2 || (st == ALEA_OK && alea_roll_total(r) != sampled))
                fail_msg("'%s' seed %d: roll %s %lld, sample %s %lld", exprs[i], (int)seed,
                         alea_status_name(st), (long long)alea_roll_total(r),
                         alea_status_name(st2), (long long)sampled);
        }
        alea_expr_free(e);
    }
    alea_roll_free(r);
}

/* ALEA_FORMAT_ANSI is the text with colour escapes: without them it is the
 * text itself; a dropped die is dim, the highest face green, a 1 red. */
static void test_ansi_format(void **state)
{
    (void)state;
    static const char *const exprs[] = {"4d6kh3", "3d6! + 10d10>=8f1", "event(3d4 + 3d6 + d18)",
                                        "d20 +1d", "dd(6, 14, always)", "2d6r1 + 1d4ra1"};
    alea_roll *r = alea_roll_new(ctx);
    char text[1024], ansi[2048], stripped[1024];
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        alea_expr *e = NULL;
        assert_int_equal(alea_expr_compile(ctx, exprs[i], strlen(exprs[i]), &e), ALEA_OK);
        for (uint64_t seed = 1; seed <= 10; seed++) {
            alea_ctx_seed(ctx, seed);
            assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
            alea_roll_format(r, ALEA_FORMAT_TEXT, text, sizeof text);
            size_t n = alea_roll_format(r, ALEA_FORMAT_ANSI, ansi, sizeof ansi);
            assert_true(n < sizeof ansi);
            size_t k = 0;
            for (size_t j = 0; ansi[j]; j++) {
                if (ansi[j] == '\x1b') { /* skip ESC [ ... m */
                    while (ansi[j] != 'm')
                        j++;
                    continue;
                }
                stripped[k++] = ansi[j];
            }
            stripped[k] = '\0';
            assert_string_equal(stripped, text);
        }
        alea_expr_free(e);
    }
    alea_expr *e = NULL;
    assert_int_equal(alea_expr_compile(ctx, "4d6kh3", 6, &e), ALEA_OK);
    alea_ctx_seed(ctx, 7); /* 4d6kh3 [5, 2 dropped, 6, 6] = 17 */
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    alea_roll_format(r, ALEA_FORMAT_ANSI, ansi, sizeof ansi);
    assert_string_equal(ansi, "4d6kh3 [5, \x1b[2m2 dropped\x1b[22m, \x1b[32m6\x1b[39m, "
                              "\x1b[32m6\x1b[39m] = \x1b[1m17\x1b[22m");
    alea_expr_free(e);
    alea_roll_free(r);
}

static void test_dice_limit(void **state)
{
    (void)state;
    int64_t old = alea_ctx_limit(ctx, ALEA_LIMIT_DICE, 10);
    alea_expr *ok = compile(ctx, "10d6"), *over = compile(ctx, "11d6");
    alea_expr *reps_ok = compile(ctx, "best(5, 1d6)"), *reps_over = compile(ctx, "best(6, 1d6)");
    alea_roll *r = alea_roll_new(ctx);
    assert_int_equal(alea_expr_roll(ctx, ok, r), ALEA_OK);
    assert_int_equal(alea_expr_roll(ctx, over, r), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "dice limit"));
    /* A failed roll leaves no result behind. */
    assert_true(alea_roll_total(r) == 0);
    char buf[8];
    assert_int_equal(alea_roll_format(r, ALEA_FORMAT_TEXT, buf, sizeof buf), 0);
    /* best(n, 1d6): n repetitions + n dice. */
    assert_int_equal(alea_expr_roll(ctx, reps_ok, r), ALEA_OK);
    assert_int_equal(alea_expr_roll(ctx, reps_over, r), ALEA_ERR_LIMIT);
    int64_t t;
    assert_int_equal(alea_expr_sample(ctx, over, &t), ALEA_ERR_LIMIT);
    alea_roll_free(r);
    alea_expr_free(ok);
    alea_expr_free(over);
    alea_expr_free(reps_ok);
    alea_expr_free(reps_over);
    alea_ctx_limit(ctx, ALEA_LIMIT_DICE, old);
}

/* Explosions count against the dice limit: a source that always rolls the
 * maximum makes 1d6! explode until the limit stops it, with an error. */
static uint64_t always_max(void *ud)
{
    (void)ud;
    return UINT64_MAX;
}

static void test_explosion_limit(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "1d6!");
    alea_roll *r = alea_roll_new(ctx);
    alea_ctx_set_random(ctx, always_max, NULL);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_ERR_LIMIT);
    int64_t t;
    assert_int_equal(alea_expr_sample(ctx, e, &t), ALEA_ERR_LIMIT);
    alea_ctx_set_random(ctx, NULL, NULL);
    alea_roll_free(r);
    alea_expr_free(e);
}

static void test_custom_source(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "3d6");
    alea_roll *r = alea_roll_new(ctx);
    alea_ctx_set_random(ctx, always_max, NULL);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    assert_true(alea_roll_total(r) == 18);
    char *s = roll_text(r, ALEA_FORMAT_TEXT);
    assert_string_equal(s, "3d6 [6, 6, 6] = 18");
    free(s);
    alea_ctx_set_random(ctx, NULL, NULL);
    alea_roll_free(r);
    alea_expr_free(e);
}

static void test_interrupt(void **state)
{
    (void)state;
    int64_t old = alea_ctx_limit(ctx, ALEA_LIMIT_DICE, 100000);
    int64_t old_bytes = alea_ctx_limit(ctx, ALEA_LIMIT_BREAKDOWN, 100000000);
    alea_expr *e = compile(ctx, "50000d6");
    alea_roll *r = alea_roll_new(ctx);
    alea_ctx_set_interrupt(ctx, interrupt_now, NULL);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_ERR_INTERRUPTED);
    alea_ctx_set_interrupt(ctx, NULL, NULL);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    alea_roll_free(r);
    alea_expr_free(e);
    alea_ctx_limit(ctx, ALEA_LIMIT_DICE, old);
    alea_ctx_limit(ctx, ALEA_LIMIT_BREAKDOWN, old_bytes);
}

static size_t printed(alea_roll *r)
{
    return alea_roll_format(r, ALEA_FORMAT_TEXT, NULL, 0) +
           alea_roll_format(r, ALEA_FORMAT_JSON, NULL, 0);
}

/* The BREAKDOWN limit at N and N + 1: 3d6 records a term of 3 source bytes
 * (2 * (3 * 3 + 16) bytes, and 128 for a mechanic's words), a record (48),
 * and 3 dice and 3 faces (96 each): 802 bytes, more than its text and JSON
 * print together. */
static void test_breakdown_limit(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "3d6");
    alea_roll *r = alea_roll_new(ctx);
    for (int64_t lim = 801; lim <= 802; lim++) {
        alea_ctx_limit(ctx, ALEA_LIMIT_BREAKDOWN, lim);
        alea_status st = alea_expr_roll(ctx, e, r);
        assert_int_equal(st, lim == 802 ? ALEA_OK : ALEA_ERR_LIMIT);
        if (st == ALEA_OK)
            assert_true(printed(r) <= 802);
        else
            assert_non_null(strstr(alea_ctx_error(ctx), "breakdown limit"));
    }
    alea_ctx_limit(ctx, ALEA_LIMIT_BREAKDOWN, alea_limit_default(ALEA_LIMIT_BREAKDOWN));
    alea_expr_free(e);

    /* A repeated expression of 4 KB: the dropped repetitions print their
     * totals only, so 9999 of them print a few kilobytes, not 80 MB. */
    char src[4200];
    size_t n = (size_t)snprintf(src, sizeof src, "best(9999, 0d{");
    for (int i = 0; i < 190; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "%s%lld", i ? "," : "",
                              (long long)(-9223372036854775807LL + i));
    snprintf(src + n, sizeof src - n, "})");
    e = compile(ctx, src);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    assert_true(printed(r) < 200000);
    char *t = roll_text(r, ALEA_FORMAT_TEXT);
    assert_non_null(strstr(t, "; dropped 0, 0, 0"));
    free(t);
    alea_expr_free(e);

    /* What is charged bounds what is printed, for every kind of term. */
    static const char *const terms[] = {
        "d%", "dF", "4dF+1", "3d6!", "5d10!!>8", "6d6!p", "10d10>=8f1", "8d6r<2kh3",
        "d20 +1d -2d", "2d10 +3B -1B", "d0 +1B", "2d6 -1 DICE", "event(3d4 + 3d6 + d18)",
        "dd(6, 14, always)", "tier(d8, +2)", "best(3, 1d6!) + worst(12, 2d4)",
        "(1d4)d6", "d{-9223372036854775807, 9223372036854775807}",
        "1d{-9223372036854775807..-9223372036854775800}",
        "max(1d6, 1d8) * -abs(1d4 - 3)", "(2d6 + 3) >= 8", "d20ra1 +1d",
        "3d{1,99999999999}!>1>=2", "3d{1..99999999999}!>=99999999999>=2",
        "1d6 # \"\"\"\\\\\\\\**__~~``||", "2d6 [\"\"\"\\\\] + 3 [\"\"]",
        "4d6 [**__~~] * 2 /~ 1 # ********", "(1d2-1) ^ 92233720368547 % 7 [||]",
        "1d(1d20)", "(1d4)d(1d6 [**]) kh2", "3d(1d4+1)!", "6 x 4d6kh3",
        "repeat((1d3)d(1d4) [__] + 1, 20) # **", "30 x d{-99999999999999999, 1}"};
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        e = compile(ctx, terms[i]);
        for (int k = 0; k < 20; k++) {
            assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
            if ((int64_t)printed(r) > r->bytes)
                fail_msg("%s prints %zu bytes, charged %lld", terms[i], printed(r),
                         (long long)r->bytes);
            /* Markdown (escaped text and markup) stays within the charge too */
            size_t md = alea_roll_format(r, ALEA_FORMAT_MARKDOWN, NULL, 0);
            if ((int64_t)md > r->bytes)
                fail_msg("%s prints %zu bytes of Markdown, charged %lld", terms[i], md,
                         (long long)r->bytes);
        }
        alea_expr_free(e);
    }

    /* Up to ALEA__REP_SHOWN repetitions, each is shown whole. */
    e = compile(ctx, "best(8, 1d6)");
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    t = roll_text(r, ALEA_FORMAT_TEXT);
    assert_null(strstr(t, "; dropped"));
    free(t);
    alea_expr_free(e);
    alea_roll_free(r);
}

/* A repeat's rolls count as dice: N of them within the DICE limit, N + 1
 * past it; each roll's dice count too. Its samples are one roll's. */
static void test_repeat_limit(void **state)
{
    (void)state;
    alea_roll *r = alea_roll_new(ctx);
    alea_ctx_limit(ctx, ALEA_LIMIT_DICE, 10);
    static const struct {
        const char *src;
        alea_status want;
    } cases[] = {{"10 x 1", ALEA_OK}, {"11 x 1", ALEA_ERR_LIMIT},
                 {"repeat(1, 10)", ALEA_OK}, {"repeat(1, 11)", ALEA_ERR_LIMIT},
                 {"5 x 1d6", ALEA_OK}, {"5 x 1d(1d6)", ALEA_ERR_LIMIT}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        alea_expr *e = compile(ctx, cases[i].src);
        if (alea_expr_roll(ctx, e, r) != cases[i].want)
            fail_msg("%s: %s", cases[i].src, alea_ctx_error(ctx));
        alea_expr_free(e);
    }
    alea_ctx_limit(ctx, ALEA_LIMIT_DICE, alea_limit_default(ALEA_LIMIT_DICE));

    alea_expr *e = compile(ctx, "3 x 1d6");
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    char *t = roll_text(r, ALEA_FORMAT_TEXT);
    int64_t sum = 0;
    const char *at = t;
    for (int i = 0; i < 3; i++) { /* three lines "1d6 [v] = v", summed */
        const char *eq = strstr(at, " = ");
        assert_non_null(eq);
        sum += strtoll(eq + 3, NULL, 10);
        at = eq + 3;
    }
    assert_int_equal(alea_roll_total(r), sum);
    assert_int_equal(alea_roll_count(r), 3);
    assert_int_equal(alea_roll_total_at(r, 0) + alea_roll_total_at(r, 1) +
                         alea_roll_total_at(r, 2), sum);
    assert_int_equal(alea_roll_total_at(r, 3), 0);
    free(t);
    for (int i = 0; i < 200; i++) { /* a sample is one roll */
        int64_t v;
        assert_int_equal(alea_expr_sample(ctx, e, &v), ALEA_OK);
        assert_true(v >= 1 && v <= 6);
    }
    alea_expr_free(e);
    alea_roll_free(r);
}

/* Fails the 1st, 2nd, ... allocation of compile + roll + format until the
 * whole run succeeds: each failure must be ALEA_ERR_NOMEM and leak nothing. */
static void test_allocation_failure_sweep(void **state)
{
    (void)state;
    static const char *const corpus[] = {
        "4d6kh3", "1d20 + 5", "(1d3)d(1d6)kh1", "3 x 2d6 # x", "3d6! + 10d10>=8f1", "best(3, 2d6 + 3)", "(1d4)d6kl2",
        "d{1,1,2,3} * 2 - 4dF", "min(1d6, 1d8) >= abs(-3)", "300d6kh150",
    };
    for (size_t c = 0; c < sizeof corpus / sizeof corpus[0]; c++) {
        int done = 0;
        for (long n = 1; n < 10000 && !done; n++) {
            heap f = {0, 0, 0};
            alea_ctx *fc = alea_ctx_new(heap_alloc, &f);
            assert_non_null(fc);
            heap_fail_at(&f, n);
            alea_expr *e = NULL;
            alea_roll *r = NULL;
            alea_status st = alea_expr_compile(fc, corpus[c], strlen(corpus[c]), &e);
            if (st == ALEA_OK) {
                r = alea_roll_new(fc);
                if (!r)
                    st = ALEA_ERR_NOMEM;
                else
                    st = alea_expr_roll(fc, e, r);
            }
            if (st == ALEA_OK) {
                int64_t t;
                st = alea_expr_sample(fc, e, &t);
            }
            if (st == ALEA_OK)
                done = 1;
            else if (st != ALEA_ERR_NOMEM)
                fail_msg("'%s', failing allocation %ld: %s (%s)", corpus[c], n,
                         alea_status_name(st), alea_ctx_error(fc));
            alea_roll_free(r);
            alea_expr_free(e);
            alea_ctx_free(fc);
            if (f.live != 0)
                fail_msg("'%s', failing allocation %ld: %ld blocks leaked", corpus[c], n,
                         f.live);
        }
        assert_true(done);
    }
}

static void test_memory_limit(void **state)
{
    (void)state;
    alea_ctx *c = alea_ctx_new(NULL, NULL);
    alea_ctx_limit(c, ALEA_LIMIT_DICE, 1000000);
    alea_ctx_limit(c, ALEA_LIMIT_MEMORY, 64 * 1024);
    alea_expr *e = NULL;
    assert_int_equal(alea_expr_compile(c, "100000d6", 8, &e), ALEA_OK);
    alea_roll *r = alea_roll_new(c);
    assert_int_equal(alea_expr_roll(c, e, r), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(c), "memory limit"));
    size_t peak;
    alea_ctx_memory(c, &peak);
    assert_true(peak <= 64 * 1024);
    alea_roll_free(r);
    alea_expr_free(e);
    alea_ctx_free(c);
}

static void test_json_escapes_source(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "1d1 + 1\t");
    alea_roll *r = alea_roll_new(ctx);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    char buf[512];
    alea_roll_format(r, ALEA_FORMAT_JSON, buf, sizeof buf);
    assert_string_equal(buf,
                        "{\"expression\": \"1d1 + 1\\u0009\", \"total\": 2, \"text\": "
                        "\"1d1 [1] + 1 = 2\", \"dice\": [{\"term\": \"1d1\", \"start\": 0, "
                        "\"end\": 3, \"value\": 1, \"sides\": 1, \"min\": 1, \"max\": 1, \"dice\": "
                        "[{\"value\": 1, \"rolls\": "
                        "[{\"face\": 1}]}]}]}");
    /* snprintf contract: a short buffer gets a prefix and the full length. */
    char small[10];
    size_t n = alea_roll_format(r, ALEA_FORMAT_TEXT, small, sizeof small);
    assert_int_equal(n, strlen("1d1 [1] + 1 = 2"));
    assert_string_equal(small, "1d1 [1] +");
    alea_roll_free(r);
    alea_expr_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_reference),
        cmocka_unit_test(test_rng_below),
        cmocka_unit_test(test_same_seed_same_rolls),
        cmocka_unit_test(test_sample_matches_roll),
        cmocka_unit_test(test_ansi_format),
        cmocka_unit_test(test_dice_limit),
        cmocka_unit_test(test_explosion_limit),
        cmocka_unit_test(test_custom_source),
        cmocka_unit_test(test_interrupt),
        cmocka_unit_test(test_allocation_failure_sweep),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_breakdown_limit),
        cmocka_unit_test(test_repeat_limit),
        cmocka_unit_test(test_json_escapes_source),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
