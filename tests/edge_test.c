/* edge_test.c -- numbers at the edges, through the public API only: dice
 * counts and sides near and above 2^31 and 2^63, sums and products that
 * leave int64, division by a die that can be 0, empty dice, keeping or
 * dropping more dice than rolled, negative counts, the tail bound at its
 * ends, the SUPPORT, WORK and MEMORY limits at N and N + 1, and a deadline
 * through the interrupt hook. Each input must give a defined result or a
 * clear error (a status, a message naming the problem, a span inside the
 * source), through compile, roll (alea_expr_roll and alea_expr_sample) and
 * dist alike. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <time.h>

#include "support.h"

#define EPS 1e-12

TEST_CONTEXT(NULL, NULL)

/* The context holds an error of status want whose message contains part and
 * whose span lies inside src. */
static void check_error(const char *what, const char *src, alea_status got,
                        alea_status want, const char *part)
{
    if (got != want)
        fail_msg("%s '%s': %s (%s), want %s", what, src, alea_status_name(got),
                 alea_ctx_error(ctx), alea_status_name(want));
    size_t start, end;
    if (alea_ctx_error_span(ctx, &start, &end) != want)
        fail_msg("%s '%s': alea_ctx_error_span disagrees with the status", what, src);
    if (start > end || end > strlen(src))
        fail_msg("%s '%s': span [%zu, %zu) outside the source", what, src, start, end);
    if (!strstr(alea_ctx_error(ctx), part))
        fail_msg("%s '%s': message '%s' lacks '%s'", what, src, alea_ctx_error(ctx), part);
}

static void compile_error(const char *src, alea_status want, const char *part)
{
    alea_expr *e = NULL;
    alea_status st = alea_expr_compile(ctx, src, strlen(src), &e);
    check_error("compile", src, st, want, part);
    assert_null(e);
}

/*
 * Rolls e with seed through alea_expr_roll and alea_expr_sample: both give
 * the same status (and, on success, the same total, returned in *total).
 * On failure the message contains part.
 */
static alea_status roll_both(const char *src, const alea_expr *e, uint64_t seed,
                             int64_t *total, const char *part)
{
    alea_roll *r = alea_roll_new(ctx);
    assert_non_null(r);
    alea_ctx_seed(ctx, seed);
    alea_status st = alea_expr_roll(ctx, e, r);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", alea_ctx_error(ctx));
    if (st != ALEA_OK && part)
        check_error("roll", src, st, st, part);
    int64_t rolled = alea_roll_total(r), sampled = 0;
    alea_roll_free(r);

    alea_ctx_seed(ctx, seed);
    alea_status st2 = alea_expr_sample(ctx, e, &sampled);
    if (st2 != st)
        fail_msg("'%s' seed %llu: roll %s (%s), sample %s (%s)", src,
                 (unsigned long long)seed, alea_status_name(st), msg,
                 alea_status_name(st2), alea_ctx_error(ctx));
    if (st != ALEA_OK && part)
        check_error("sample", src, st2, st, part);
    if (st == ALEA_OK) {
        if (rolled != sampled)
            fail_msg("'%s' seed %llu: roll %lld, sample %lld", src,
                     (unsigned long long)seed, (long long)rolled, (long long)sampled);
        *total = rolled;
    }
    return st;
}

/* One row of the edge table: what compile-then-roll and dist must give. */
typedef struct edge {
    const char *src;
    alea_status roll;     /* status of every roll (alea_expr_roll and _sample) */
    const char *roll_msg; /* part of the message, when roll is an error */
    int64_t lo, hi;       /* the rolled total's range, when roll is ALEA_OK */
    alea_status dist;
    const char *dist_msg; /* part of the message, when dist is an error */
} edge;

#define I64MAX INT64_MAX
#define I64MIN INT64_MIN

static const edge edges[] = {
    /* dice counts and sides near and above 2^31 */
    {"2147483648d6", ALEA_ERR_LIMIT, "dice limit is 10000", 0, 0, ALEA_ERR_LIMIT,
     "support limit is 100000)"},
    {"2147483647d1", ALEA_ERR_LIMIT, "dice limit is 10000", 0, 0, ALEA_OK, NULL},
    {"1d2147483648", ALEA_OK, NULL, 1, 2147483648LL, ALEA_ERR_LIMIT,
     "support limit is 100000)"},
    {"1d4294967296", ALEA_OK, NULL, 1, 4294967296LL, ALEA_ERR_LIMIT, "support limit"},
    /* ... and near 2^63 */
    {"1d9223372036854775807", ALEA_OK, NULL, 1, I64MAX, ALEA_ERR_LIMIT,
     "support limit is 100000)"},
    {"d{-9223372036854775807..9223372036854775807}", ALEA_OK, NULL, -I64MAX, I64MAX,
     ALEA_ERR_LIMIT, "support limit is 100000)"},
    {"(1d2)d4611686018427387903", ALEA_OK, NULL, 1, 9223372036854775806LL, ALEA_ERR_LIMIT,
     "support limit"},
    {"9223372036854775807d6", ALEA_ERR_LIMIT, "dice limit is 10000", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"9223372036854775807d1", ALEA_ERR_LIMIT, "dice limit", 0, 0, ALEA_OK, NULL},
    {"9223372036854775807d0", ALEA_ERR_LIMIT, "dice limit", 0, 0, ALEA_OK, NULL},
    /* found by fuzzing: keep on 2^63 - 1 dice (an int64 overflow in the
     * order statistics); a certain outcome summed from many (a probability
     * a hair above 1) */
    {"9223372036854775807d6k", ALEA_ERR_LIMIT, "dice limit", 0, 0, ALEA_OK, NULL},
    {"42d6 * 0", ALEA_OK, NULL, 0, 0, ALEA_OK, NULL},
    /* found by fuzzing: 10^14 exploding dice leave all the probability in
     * the cut tails */
    {"99999999999993d3d4kh2kl1kh620!", ALEA_ERR_LIMIT, "dice limit", 0, 0, ALEA_ERR_LIMIT,
     "explosion tails cut off 100% of the probability"},
    /* found by fuzzing: cancelling criticals was quadratic in the dice */
    {"event(5000d3)", ALEA_OK, NULL, 0, 1000000, ALEA_ERR_LIMIT, "support limit"},
    /* the extremes themselves are values */
    {"9223372036854775807", ALEA_OK, NULL, I64MAX, I64MAX, ALEA_OK, NULL},
    {"-9223372036854775807 - 1", ALEA_OK, NULL, I64MIN, I64MIN, ALEA_OK, NULL},
    {"(-9223372036854775807 - 1) * 1", ALEA_OK, NULL, I64MIN, I64MIN, ALEA_OK, NULL},
    {"9223372036854775807 > -9223372036854775807", ALEA_OK, NULL, 1, 1, ALEA_OK, NULL},
    /* sums, products and signs that leave int64 */
    {"9223372036854775807 + 1d6", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"9223372036854775807 + 1", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"-(-9223372036854775807 - 1)", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"abs(-9223372036854775807 - 1)", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"(-9223372036854775807 - 1) * -1", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"(-9223372036854775807 - 1) / -1", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"(-9223372036854775807 - 1) /^ -1", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"(-9223372036854775807 - 1) /~ -1", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"3037000500 * 3037000500", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"3037000499 * 3037000499", ALEA_OK, NULL, 9223372030926249001LL,
     9223372030926249001LL, ALEA_OK, NULL},
    {"2d4611686018427387903", ALEA_OK, NULL, 2, 9223372036854775806LL, ALEA_ERR_LIMIT,
     "support limit"},
    {"2d{9223372036854775807}", ALEA_ERR_OVERFLOW, "integer overflow", 0, 0,
     ALEA_ERR_OVERFLOW, "integer overflow"},
    {"2d{4611686018427387902, 4611686018427387903}", ALEA_OK, NULL,
     9223372036854775804LL, 9223372036854775806LL, ALEA_OK, NULL},
    {"2d{4611686018427387903, 4611686018427387904}kh1", ALEA_OK, NULL,
     4611686018427387903LL, 4611686018427387904LL, ALEA_OK, NULL},
    /* empty and degenerate dice */
    {"0d6", ALEA_OK, NULL, 0, 0, ALEA_OK, NULL},
    {"1d0", ALEA_OK, NULL, 0, 0, ALEA_OK, NULL},
    {"(1d2 - 1)d6", ALEA_OK, NULL, 0, 6, ALEA_OK, NULL},
    /* keep or drop more dice than rolled */
    {"2d6kh5", ALEA_OK, NULL, 2, 12, ALEA_OK, NULL},
    {"2d6kl5", ALEA_OK, NULL, 2, 12, ALEA_OK, NULL},
    {"2d6dl5", ALEA_OK, NULL, 0, 0, ALEA_OK, NULL},
    {"2d6dh5", ALEA_OK, NULL, 0, 0, ALEA_OK, NULL},
    {"2d6kh0", ALEA_OK, NULL, 0, 0, ALEA_OK, NULL},
    {"0d6kh1", ALEA_OK, NULL, 0, 0, ALEA_OK, NULL},
    {"3d6kh3kl1dl5", ALEA_OK, NULL, 0, 0, ALEA_OK, NULL},
    {"2d6kh9223372036854775807", ALEA_OK, NULL, 2, 12, ALEA_OK, NULL},
    {"999999999d6kh3", ALEA_ERR_LIMIT, "dice limit", 0, 0, ALEA_OK, NULL},
    /* negative dice counts */
    {"(1d2 - 3)d6", ALEA_ERR_DOMAIN, "negative dice count", 0, 0, ALEA_ERR_DOMAIN,
     "dice count can be negative"},
    {"(0 - 1)d6", ALEA_ERR_DOMAIN, "negative dice count", 0, 0, ALEA_ERR_DOMAIN,
     "dice count can be negative"},
    {"(-9223372036854775807 - 1)d6", ALEA_ERR_DOMAIN, "negative dice count", 0, 0,
     ALEA_ERR_DOMAIN, "dice count can be negative"},
    /* division by a constant 0 */
    {"1d6 / 0", ALEA_ERR_DOMAIN, "division by zero", 0, 0, ALEA_ERR_DOMAIN,
     "division by zero"},
    {"1d6 /^ (1 - 1)", ALEA_ERR_DOMAIN, "division by zero", 0, 0, ALEA_ERR_DOMAIN,
     "division by zero"},
    /* a budget per expression, not per term: repetitions are dice too */
    {"best(100000000, 1)", ALEA_ERR_LIMIT, "dice limit is 10000", 0, 0, ALEA_OK, NULL},
    {"best(5000, 1d6) + best(5001, 1)", ALEA_ERR_LIMIT, "dice limit", 0, 0, ALEA_OK,
     NULL},
    {"9999d1 + 1d1", ALEA_OK, NULL, 10000, 10000, ALEA_OK, NULL},
    {"9999d1 + 2d1", ALEA_ERR_LIMIT, "dice limit is 10000", 0, 0, ALEA_OK, NULL},
};

/* Every row through compile, roll (both paths, several seeds) and dist. */
static void test_edge_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        const edge *t = &edges[i];
        alea_expr *e = compile(ctx, t->src);
        for (uint64_t seed = 1; seed <= 5; seed++) {
            int64_t total = 0;
            alea_status st = roll_both(t->src, e, seed, &total, t->roll_msg);
            if (st != t->roll)
                fail_msg("roll '%s': %s (%s), want %s", t->src, alea_status_name(st),
                         alea_ctx_error(ctx), alea_status_name(t->roll));
            if (st == ALEA_OK && (total < t->lo || total > t->hi))
                fail_msg("roll '%s': %lld outside [%lld, %lld]", t->src, (long long)total,
                         (long long)t->lo, (long long)t->hi);
        }
        alea_dist *d = NULL;
        alea_status st = alea_expr_dist(ctx, e, &d);
        if (t->dist != ALEA_OK) {
            check_error("dist", t->src, st, t->dist, t->dist_msg);
            assert_null(d);
        } else {
            if (st != ALEA_OK)
                fail_msg("dist '%s': %s (%s)", t->src, alea_status_name(st),
                         alea_ctx_error(ctx));
            /* A constant roll has a one-point distribution at that value. */
            if (t->roll == ALEA_OK && t->lo == t->hi) {
                assert_int_equal(alea_dist_count(d), 1);
                assert_true(alea_dist_value(d, 0) == t->lo);
                assert_true(alea_dist_prob(d, 0) == 1.0);
            }
            alea_dist_free(d);
        }
        alea_expr_free(e);
    }
}

static void test_compile_errors(void **state)
{
    (void)state;
    /* 2^63 is not a number of alea: the literal is refused, with its span */
    compile_error("9223372036854775808d6", ALEA_ERR_SYNTAX, "number too large");
    size_t start, end;
    alea_ctx_error_span(ctx, &start, &end);
    assert_int_equal(start, 0);
    assert_int_equal(end, 19);
    compile_error("1d9223372036854775808", ALEA_ERR_SYNTAX, "number too large");
    alea_ctx_error_span(ctx, &start, &end);
    assert_int_equal(start, 2);
    compile_error("-9223372036854775808", ALEA_ERR_SYNTAX, "number too large");
    compile_error("18446744073709551616", ALEA_ERR_SYNTAX, "number too large");
    compile_error("99999999999999999999999999999999999999d6", ALEA_ERR_SYNTAX,
                  "number too large");
    compile_error("d{9223372036854775808}", ALEA_ERR_SYNTAX, "number too large");
    /* dice without faces */
    compile_error("d{}", ALEA_ERR_INVALID, "at least one face");
    compile_error("3d{}", ALEA_ERR_INVALID, "at least one face");
    compile_error("d{3..1}", ALEA_ERR_INVALID, "empty face range");
    /* a listed range is refused before it is expanded */
    compile_error("d{1,1..999999999999}", ALEA_ERR_LIMIT, "node limit");
    compile_error("best(0, 1d20)", ALEA_ERR_INVALID, "between 1 and 100000000 repetitions");
    compile_error("best(100000001, 1)", ALEA_ERR_INVALID, "not 100000001");
    compile_error("", ALEA_ERR_SYNTAX, "empty expression");
    /* found by fuzzing: bonus dice netting to INT64_MIN (negated before the
     * check) */
    compile_error("1d6 -9223372036854775807d -1d", ALEA_ERR_INVALID, "too many bonus dice");
    /* found by fuzzing: a pool with no dice left nothing to build */
    compile_error("downgrade(0d4, 0)", ALEA_ERR_INVALID, "at least one die");
}

/* 1d6 / (1d2 - 1): the exact engine refuses the divisor that can be 0; the
 * roller divides when 1d2 shows 2 and fails with a clear error when it
 * shows 1. Over 64 seeds both happen. */
static void test_division_by_a_die(void **state)
{
    (void)state;
    const char *src = "1d6 / (1d2 - 1)";
    alea_expr *e = compile(ctx, src);
    alea_dist *d = NULL;
    check_error("dist", src, alea_expr_dist(ctx, e, &d), ALEA_ERR_DOMAIN,
                "division by zero is possible");
    size_t start, end;
    alea_ctx_error_span(ctx, &start, &end);
    assert_int_equal(start, 7); /* the divisor 1d2 - 1 */
    assert_int_equal(end, 14);
    int zero = 0, value = 0;
    for (uint64_t seed = 0; seed < 64; seed++) {
        int64_t total = 0;
        alea_status st = roll_both(src, e, seed, &total, "division by zero");
        if (st == ALEA_OK) {
            assert_true(total >= 1 && total <= 6);
            value++;
        } else {
            assert_int_equal(st, ALEA_ERR_DOMAIN);
            zero++;
        }
    }
    assert_true(zero > 0 && value > 0);
    alea_expr_free(e);
}

/* Sums that reach the int64 ends only sometimes: the roll is a value or an
 * overflow error depending on the dice; the distribution, which holds every
 * value, is an overflow error. */
static void test_overflow_by_chance(void **state)
{
    (void)state;
    static const struct {
        const char *src;
        int64_t ok; /* the one total that fits */
    } cases[] = {
        {"4611686018427387904 * 1d2", 4611686018427387904LL},
        {"-9223372036854775807 - 1d2", INT64_MIN},
        {"9223372036854775806 + 1d2", INT64_MAX},
        {"-1d2 * 4611686018427387904 - 4611686018427387904", INT64_MIN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        alea_expr *e = compile(ctx, cases[i].src);
        int fits = 0, over = 0;
        for (uint64_t seed = 0; seed < 64; seed++) {
            int64_t total = 0;
            alea_status st = roll_both(cases[i].src, e, seed, &total, "integer overflow");
            if (st == ALEA_OK) {
                assert_true(total == cases[i].ok);
                fits++;
            } else {
                assert_int_equal(st, ALEA_ERR_OVERFLOW);
                over++;
            }
        }
        assert_true(fits > 0 && over > 0);
        alea_dist *d = NULL;
        check_error("dist", cases[i].src, alea_expr_dist(ctx, e, &d), ALEA_ERR_OVERFLOW,
                    "integer overflow");
        alea_expr_free(e);
    }
}

/* Keeping more dice than rolled keeps them all; dropping more drops them all. */
static void test_keep_more_than_rolled(void **state)
{
    (void)state;
    alea_dist *a = dist_of(ctx, "2d6kh5"), *b = dist_of(ctx, "2d6");
    alea_dist *c = dist_of(ctx, "2d6kl3");
    assert_int_equal(alea_dist_count(a), 11);
    assert_int_equal(alea_dist_count(c), 11);
    for (size_t i = 0; i < 11; i++) {
        assert_true(alea_dist_value(a, i) == alea_dist_value(b, i));
        assert_true(fabs(alea_dist_prob(a, i) - alea_dist_prob(b, i)) <= EPS);
        assert_true(fabs(alea_dist_prob(c, i) - alea_dist_prob(b, i)) <= EPS);
    }
    assert_true(fabs(alea_dist_p(a, 7) - 6.0 / 36) <= EPS);
    alea_dist_free(a);
    alea_dist_free(b);
    alea_dist_free(c);

    /* the breakdown shows every die kept, or every die dropped */
    alea_expr *e = compile(ctx, "2d6kh5");
    alea_roll *r = alea_roll_new(ctx);
    alea_ctx_seed(ctx, 3);
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    char buf[128];
    alea_roll_format(r, ALEA_FORMAT_TEXT, buf, sizeof buf);
    assert_null(strstr(buf, "dropped"));
    alea_expr_free(e);
    e = compile(ctx, "2d6dl5");
    assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
    alea_roll_format(r, ALEA_FORMAT_TEXT, buf, sizeof buf);
    assert_non_null(strstr(buf, "dropped, "));
    assert_non_null(strstr(buf, " dropped] = 0"));
    alea_roll_free(r);
    alea_expr_free(e);
}

/* The tail bound at its ends: 1e-300 and 1e-3 are accepted, anything past
 * them is refused and leaves the bound as it was; explosions at 1e-300 end
 * with a result or a limit error, never a hang. */
static void test_tail_bound(void **state)
{
    (void)state;
    assert_int_equal(alea_ctx_set_tail(ctx, 1e-300), ALEA_OK);
    assert_true(alea_ctx_tail(ctx) == 1e-300);
    assert_int_equal(alea_ctx_set_tail(ctx, nextafter(1e-300, 0)), ALEA_ERR_ARGUMENT);
    assert_non_null(strstr(alea_ctx_error(ctx), "tail bound"));
    assert_int_equal(alea_ctx_set_tail(ctx, 0), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_ctx_set_tail(ctx, -1e-6), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_ctx_set_tail(ctx, NAN), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_ctx_set_tail(ctx, INFINITY), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_ctx_set_tail(ctx, nextafter(1e-3, 1)), ALEA_ERR_ARGUMENT);
    assert_true(alea_ctx_tail(ctx) == 1e-300);
    assert_int_equal(alea_ctx_set_tail(ctx, 1e-3), ALEA_OK);
    assert_int_equal(alea_ctx_set_tail(ctx, 1e-300), ALEA_OK);

    static const char *const explode[] = {"1d6!", "1d2!", "1d2!!", "1d2!p", "3d6!",
                                          "1d6!>=2", "10d2!"};
    for (size_t i = 0; i < sizeof explode / sizeof explode[0]; i++) {
        alea_expr *e = compile(ctx, explode[i]);
        alea_dist *d = NULL;
        alea_status st = alea_expr_dist(ctx, e, &d);
        if (st == ALEA_OK) {
            /* Followed until less than the bound is left: what was cut is
             * below anything a double can add to 1. */
            double mass = 0;
            for (size_t k = 0; k < alea_dist_count(d); k++)
                mass += alea_dist_prob(d, k);
            assert_true(fabs(mass - 1) < 1e-9);
            assert_true(alea_dist_truncated(d) < 1e-200);
            assert_true(alea_dist_count(d) > 100);
            alea_dist_free(d);
        } else {
            check_error("dist", explode[i], st, ALEA_ERR_LIMIT, "limit");
        }
        alea_expr_free(e);
    }
    assert_int_equal(alea_ctx_set_tail(ctx, ALEA_TAIL_DEFAULT), ALEA_OK);
}

/* At most 1% of the probability may be cut by the tails: at tail 1e-3, 13
 * exploding d6 added up leave 0.998% out, 14 leave 1.07% (and a pool of
 * 10^14 exploding dice, found by fuzzing, leaves everything). */
static void test_truncated_at_most(void **state)
{
    (void)state;
    char src[16 * 5];
    assert_int_equal(alea_ctx_set_tail(ctx, 1e-3), ALEA_OK);
    for (int n = 13; n <= 14; n++) {
        src[0] = '\0';
        for (int i = 0; i < n; i++)
            strcat(src, i ? "+1d6!" : "1d6!");
        alea_expr *e = compile(ctx, src);
        alea_dist *d = NULL;
        alea_status st = alea_expr_dist(ctx, e, &d);
        if (n == 13) {
            assert_int_equal(st, ALEA_OK);
            assert_true(alea_dist_truncated(d) > 0.0099 && alea_dist_truncated(d) <= 0.01);
            alea_dist_free(d);
        } else {
            check_error("dist", src, st, ALEA_ERR_LIMIT,
                        "explosion tails cut off 1.07% of the probability");
        }
        alea_expr_free(e);
    }
    assert_int_equal(alea_ctx_set_tail(ctx, ALEA_TAIL_DEFAULT), ALEA_OK);
}

/* Success counting on many large dice: each die's counted outcomes add up
 * thousands of small probabilities, and the pool raises their rounding to
 * the 26151st power (found by fuzzing at 1 - 3.8e-9); a die exploding on
 * nearly every face multiplies its parts along a chain of 44600 links. */
static void test_counted_mass(void **state)
{
    (void)state;
    static const char *const src[] = {"26151d5362>3f>=2", "10000d5000<=3",
                                      "100d100000<=3",
                                      /* 44600 links of explosion (fuzzing: 1 - 4e-10) */
                                      "3d13001!>8==8"};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
        alea_expr *e = compile(ctx, src[i]);
        alea_dist *d = NULL;
        assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
        double mass = alea_dist_truncated(d);
        for (size_t k = 0; k < alea_dist_count(d); k++)
            mass += alea_dist_prob(d, k);
        if (fabs(mass - 1) > 1e-11)
            fail_msg("'%s': the outcomes and the tail add up to 1 %+g", src[i], mass - 1);
        alea_dist_free(d);
        alea_expr_free(e);
    }
}

/* SUPPORT at N and N + 1, through the public dist: 3d6 has 16 outcomes. */
static void test_support_limit(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "3d6");
    alea_dist *d = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 16);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    assert_int_equal(alea_dist_count(d), 16);
    alea_dist_free(d);
    d = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 15);
    check_error("dist", "3d6", alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT,
                "too many outcomes to compute at byte 0 (support limit is 15)");
    assert_null(d);
    /* The roller has no support limit. */
    int64_t total;
    assert_int_equal(alea_expr_sample(ctx, e, &total), ALEA_OK);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, alea_limit_default(ALEA_LIMIT_SUPPORT));
    alea_expr_free(e);
}

/* WORK at N and N + 1, through the public dist. 1d100 + 1d100 costs one
 * unit per node (3), one per face of each die (2 x 100), one per pair of
 * the sum (100 x 100) and a quarter per value of its dense array (199 / 4 +
 * 1): 10253. */
static void test_work_limit(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "1d100 + 1d100");
    alea_dist *d = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 10253);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    assert_int_equal(alea_dist_count(d), 199);
    alea_dist_free(d);
    d = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 10252);
    check_error("dist", "1d100 + 1d100", alea_expr_dist(ctx, e, &d), ALEA_ERR_LIMIT,
                "work limit is 10252");
    assert_null(d);
    /* The budget is per evaluation: the failed one left nothing behind. */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 10253);
    assert_int_equal(alea_expr_dist(ctx, e, &d), ALEA_OK);
    alea_dist_free(d);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
    alea_expr_free(e);
}

/*
 * MEMORY at N and N + 1: compile + dist in a fresh context with no limit to
 * speak of, read the peak, then run the same in a context limited to the
 * peak (succeeds) and to one byte less (fails with the memory limit, and the
 * context never went past it). The allocations are the same each time, so
 * the peak is exact.
 */
static alea_status compile_and_dist(alea_ctx *c, const char *src, size_t *peak)
{
    alea_expr *e = NULL;
    alea_dist *d = NULL;
    alea_status st = alea_expr_compile(c, src, strlen(src), &e);
    if (st == ALEA_OK)
        st = alea_expr_dist(c, e, &d);
    alea_ctx_memory(c, peak);
    alea_dist_free(d);
    alea_expr_free(e);
    return st;
}

static void test_memory_limit(void **state)
{
    (void)state;
    static const char *const corpus[] = {"4d6kh3 + 3d6!", "1d1000 * 1d20", "event(5d6)"};
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        size_t peak, peak2;
        alea_ctx *c = alea_ctx_new(NULL, NULL);
        assert_non_null(c);
        size_t base = alea_ctx_memory(c, NULL);
        assert_int_equal(compile_and_dist(c, corpus[i], &peak), ALEA_OK);
        assert_int_equal(alea_ctx_memory(c, NULL), base); /* all given back */
        alea_ctx_free(c);

        c = alea_ctx_new(NULL, NULL);
        alea_ctx_limit(c, ALEA_LIMIT_MEMORY, (int64_t)peak);
        assert_int_equal(compile_and_dist(c, corpus[i], &peak2), ALEA_OK);
        assert_int_equal(peak2, peak);
        alea_ctx_free(c);

        c = alea_ctx_new(NULL, NULL);
        alea_ctx_limit(c, ALEA_LIMIT_MEMORY, (int64_t)peak - 1);
        alea_status st = compile_and_dist(c, corpus[i], &peak2);
        if (st != ALEA_ERR_LIMIT || !strstr(alea_ctx_error(c), "memory limit"))
            fail_msg("'%s' with %zu bytes: %s (%s)", corpus[i], peak - 1,
                     alea_status_name(st), alea_ctx_error(c));
        assert_true(peak2 < peak);
        alea_ctx_free(c);
    }
}

/* Every limit: the default is at most the maximum, a setting above the
 * maximum is lowered to it, a negative value only queries, and an unknown
 * limit is -1. */
static void test_limit_settings(void **state)
{
    (void)state;
    for (int i = 0; i < ALEA_LIMIT__COUNT; i++) {
        alea_limit l = (alea_limit)i;
        int64_t def = alea_limit_default(l), max = alea_limit_max(l);
        assert_true(def > 0 && def <= max);
        assert_non_null(alea_limit_name(l));
        assert_non_null(alea_limit_what(l));
        assert_true(alea_ctx_limit(ctx, l, -1) == def);
        assert_true(alea_ctx_limit(ctx, l, INT64_MAX) == def);
        assert_true(alea_ctx_limit(ctx, l, -1) == max);
        assert_true(alea_ctx_limit(ctx, l, max + 1) == max);
        assert_true(alea_ctx_limit(ctx, l, -1) == max);
        alea_ctx_limit(ctx, l, def);
    }
    assert_true(alea_ctx_limit(ctx, ALEA_LIMIT__COUNT, 5) == -1);
    assert_true(alea_ctx_limit(ctx, (alea_limit)-1, 5) == -1);
    assert_null(alea_limit_name(ALEA_LIMIT__COUNT));
    assert_true(alea_limit_default(ALEA_LIMIT__COUNT) == -1);

    /* A limit of 0 refuses everything it counts, with a clear error. */
    alea_ctx_limit(ctx, ALEA_LIMIT_DICE, 0);
    alea_expr *e = compile(ctx, "1d6"), *k = compile(ctx, "7");
    int64_t total;
    check_error("sample", "1d6", alea_expr_sample(ctx, e, &total), ALEA_ERR_LIMIT,
                "dice limit is 0");
    assert_int_equal(alea_expr_sample(ctx, k, &total), ALEA_OK);
    assert_true(total == 7);
    alea_ctx_limit(ctx, ALEA_LIMIT_DICE, alea_limit_default(ALEA_LIMIT_DICE));
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 0);
    alea_dist *d = NULL;
    check_error("dist", "7", alea_expr_dist(ctx, k, &d), ALEA_ERR_LIMIT, "work limit is 0");
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
    alea_expr_free(e);
    alea_expr_free(k);
}

/* ---- a time budget through the interrupt hook ------------------------------ */

typedef struct deadline {
    struct timespec at;
    long calls;
} deadline;

static int past_deadline(void *ud)
{
    deadline *dl = ud;
    struct timespec now;
    dl->calls++;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > dl->at.tv_sec ||
           (now.tv_sec == dl->at.tv_sec && now.tv_nsec >= dl->at.tv_nsec);
}

static void start_deadline(deadline *dl, long ms)
{
    clock_gettime(CLOCK_MONOTONIC, &dl->at);
    dl->at.tv_nsec += (ms % 1000) * 1000000L;
    dl->at.tv_sec += ms / 1000 + dl->at.tv_nsec / 1000000000L;
    dl->at.tv_nsec %= 1000000000L;
    dl->calls = 0;
}

/*
 * A host's 50 ms deadline stops a distribution that would run for seconds:
 * 200d1000 with the work and support limits raised takes about 5 s (gcc -O3, one
 * core of an AMD EPYC). Only the status is checked, never a duration: the
 * test must pass under valgrind and the sanitizers too.
 */
static void test_deadline(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "200d1000");
    alea_dist *d = NULL;
    deadline dl;
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_max(ALEA_LIMIT_WORK));
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, 1000000);
    alea_ctx_set_interrupt(ctx, past_deadline, &dl);
    start_deadline(&dl, 50);
    check_error("dist", "200d1000", alea_expr_dist(ctx, e, &d), ALEA_ERR_INTERRUPTED,
                "interrupted");
    assert_null(d);
    assert_true(dl.calls > 0);
    /* The hook stays installed and a cheap evaluation still succeeds. */
    alea_expr *small = compile(ctx, "3d6");
    start_deadline(&dl, 60000);
    assert_int_equal(alea_expr_dist(ctx, small, &d), ALEA_OK);
    alea_dist_free(d);
    alea_ctx_set_interrupt(ctx, NULL, NULL);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, alea_limit_default(ALEA_LIMIT_WORK));
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, alea_limit_default(ALEA_LIMIT_SUPPORT));
    alea_expr_free(small);
    alea_expr_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edge_table),
        cmocka_unit_test(test_compile_errors),
        cmocka_unit_test(test_division_by_a_die),
        cmocka_unit_test(test_overflow_by_chance),
        cmocka_unit_test(test_keep_more_than_rolled),
        cmocka_unit_test(test_tail_bound),
        cmocka_unit_test(test_truncated_at_most),
        cmocka_unit_test(test_counted_mass),
        cmocka_unit_test(test_support_limit),
        cmocka_unit_test(test_work_limit),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_limit_settings),
        cmocka_unit_test(test_deadline),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
