/* policy_test.c -- the player's decisions (alea_policy_new, policy.c):
 * each mechanic's rows agree with its exact distribution (the rows' values
 * weighted by how often they come are the expression's mean), the best
 * choice is at least as good as every other choice in every situation,
 * fixed rules against the optimum, fractions in exact mode, the formats
 * and their output limit at N and N+1, the errors with their spans, and
 * allocation failures. */
#include "support.h"

TEST_HEAP_CONTEXT

static alea_policy *policy_of(const char *src)
{
    alea_expr *e = compile(ctx, src);
    alea_policy *p = NULL;
    alea_status st = alea_policy_new(ctx, e, &p);
    if (st != ALEA_OK)
        fail_msg("%s: %s", src, alea_ctx_error(ctx));
    alea_expr_free(e);
    return p;
}

/* Sum over the rows of chance x value is the whole value; the chances sum
 * to 1; for a goal that is the mean of the expression, the whole value is
 * the distribution's mean. */
static void check_rows(const char *src, const alea_policy *p, int value_is_mean)
{
    double sum = 0, chance = 0;
    for (size_t i = 0; i < alea_policy_rows(p); i++) {
        assert_true(alea_policy_prob(p, i) > 0);
        sum += alea_policy_prob(p, i) * alea_policy_row_value(p, i);
        chance += alea_policy_prob(p, i);
    }
    assert_double_equal(chance, 1, 1e-12);
    assert_double_equal(sum, alea_policy_value(p), 1e-12);
    assert_true(alea_policy_optimum(p) >= alea_policy_value(p) - 1e-12);
    if (value_is_mean) {
        alea_dist *d = dist_of(ctx, src);
        assert_double_equal(alea_policy_value(p), alea_dist_mean(d), 1e-12);
        alea_dist_free(d);
    }
}

/* dd(): every modifier and difficulty, every fixed rule: the rows add up
 * to the distribution's mean; the best rule's value is the optimum, and no
 * fixed rule beats it; in each situation the best rule's choice is the
 * better of its two values (standing is the value as it stands). */
static void test_dd_every_rule(void **state)
{
    (void)state;
    static const char *const rules[] = {"never", "always", "onfail", "best"};
    char src[64];
    int checked = 0;
    for (int m = 0; m <= 18; m += 3)
        for (int d = 1; d <= 30; d += 2) {
            double best = 0;
            for (int r = 3; r >= 0; r--) { /* best first */
                snprintf(src, sizeof src, "dd(%d, %d, %s)", m, d, rules[r]);
                alea_policy *p = policy_of(src);
                check_rows(src, p, 1);
                if (r == 3) {
                    best = alea_policy_value(p);
                    assert_double_equal(alea_policy_optimum(p), best, 0);
                    for (size_t i = 0; i < alea_policy_rows(p); i++) {
                        int doubles = !strcmp(alea_policy_choice(p, i), "double down");
                        double v = alea_policy_row_value(p, i), plain = alea_policy_row_plain(p, i);
                        assert_true(doubles ? v > plain : v == plain);
                    }
                } else {
                    assert_true(alea_policy_value(p) <= best + 1e-12);
                    assert_double_equal(alea_policy_optimum(p), best, 1e-12);
                }
                alea_policy_free(p);
                checked++;
            }
        }
    assert_true(checked > 400);
}

/* A case by hand: dd(3, 14, best). Naturals 1-2 are a critical failure,
 * 3-10 a failure (3 + 10 = 13 < 14), 11-18 a success, 19-20 a critical
 * success. Doubling down from a failure (tier 1), the second d20 moves it
 * down one on a failure (naturals 3-10: tier 0), up one on a success
 * (11-18: tier 2), up two on 19-20 (tier 3), down two on 1-2 (clamped:
 * tier 0): (8 * 2 + 2 * 3) / 20 = 22/20 = 1.1 > 1, so it doubles down.
 * The whole roll: 2/20 * 0.6 + 8/20 * 1.1 + 8/20 * 2 + 2/20 * 3 = 1.6. */
/* dd()'s goals: the whole value is the distribution's chance of a
 * success or better, of a critical success, its mean tier, and the
 * expected boons of its outcomes; each row's choice is the better of its
 * two values (a tie stands). */
static void test_dd_goals(void **state)
{
    (void)state;
    static const char *const goals[] = {"tier", "success", "critical", "boons, -2, -1, 2, 4"};
    char src[64];
    for (int m = 0; m <= 18; m += 6)
        for (int d = 4; d <= 28; d += 4)
            for (int g = 0; g < 4; g++) {
                snprintf(src, sizeof src, "dd(%d, %d, %s)", m, d, goals[g]);
                alea_policy *p = policy_of(src);
                check_rows(src, p, g == 0);
                alea_dist *dist = dist_of(ctx, src);
                double want = g == 1   ? alea_dist_at_least(dist, 2)
                              : g == 2 ? alea_dist_p(dist, 3)
                              : g == 3 ? -2 * alea_dist_p(dist, 0) - alea_dist_p(dist, 1) +
                                             2 * alea_dist_p(dist, 2) + 4 * alea_dist_p(dist, 3)
                                       : alea_dist_mean(dist);
                assert_double_equal(alea_policy_value(p), want, 1e-12);
                assert_int_equal(alea_policy_is_prob(p), g == 1 || g == 2);
                for (size_t i = 0; i < alea_policy_rows(p); i++) {
                    int doubles = !strcmp(alea_policy_choice(p, i), "double down");
                    double v = alea_policy_row_value(p, i), plain = alea_policy_row_plain(p, i);
                    assert_true(doubles ? v > plain : v == plain);
                }
                alea_dist_free(dist);
                alea_policy_free(p);
            }
}

static void test_dd_by_hand(void **state)
{
    (void)state;
    alea_policy *p = policy_of("dd(3, 14, best)");
    assert_int_equal(alea_policy_rows(p), 4);
    assert_string_equal(alea_policy_seen(p, 1), "failure (natural 3-10)");
    assert_string_equal(alea_policy_choice(p, 1), "double down");
    assert_double_equal(alea_policy_prob(p, 1), 0.4, 1e-15);
    assert_double_equal(alea_policy_row_value(p, 1), 1.1, 1e-15);
    assert_double_equal(alea_policy_row_plain(p, 1), 1, 0);
    assert_string_equal(alea_policy_choice(p, 2), "stand");
    assert_double_equal(alea_policy_value(p), 1.6, 1e-15);
    assert_null(alea_policy_value_text(p));
    assert_null(alea_policy_seen(p, 4));
    assert_null(alea_policy_choice(p, 4));
    alea_policy_free(p);
}

/* In exact mode the values carry their fractions, and they equal the
 * doubles. */
static void test_exact(void **state)
{
    (void)state;
    if (alea_ctx_set_exact(ctx, 1) != ALEA_OK)
        skip(); /* a library without exact fractions */
    alea_policy *p = policy_of("dd(3, 14, best)");
    assert_string_equal(alea_policy_value_text(p), "8/5");
    assert_string_equal(alea_policy_row_value_text(p, 1), "11/10");
    assert_string_equal(alea_policy_optimum_text(p), "8/5");
    char buf[1024];
    assert_true(alea_policy_format(p, ALEA_FORMAT_JSON, buf, sizeof buf) < sizeof buf);
    assert_non_null(strstr(buf, "\"value\": \"8/5\""));
    alea_policy_free(p);
    p = policy_of("dd(3, 14)"); /* never: 3/2 against the optimum's 8/5 */
    assert_string_equal(alea_policy_value_text(p), "3/2");
    assert_string_equal(alea_policy_optimum_text(p), "8/5");
    alea_policy_free(p);
}

/* JSON and CSV, the snprintf contract, and the OUTPUT limit at N and N+1. */
static void test_formats(void **state)
{
    (void)state;
    alea_policy *p = policy_of("dd(3, 14, best)");
    size_t n = alea_policy_format(p, ALEA_FORMAT_JSON, NULL, 0);
    char *json = malloc(n + 1);
    assert_int_equal(alea_policy_format(p, ALEA_FORMAT_JSON, json, n + 1), n);
    assert_int_equal(json[n], '\0');
    assert_non_null(strstr(json, "\"rows\": [{\"seen\": \"critical failure (natural 1-2)\", "
                                 "\"choice\": \"double down\", \"chance\": 0.1, \"value\": 0.6, "
                                 "\"plain\": 0}"));
    char small[8];
    assert_int_equal(alea_policy_format(p, ALEA_FORMAT_JSON, small, sizeof small), n);
    assert_int_equal(strlen(small), 7);
    size_t c = alea_policy_format(p, ALEA_FORMAT_CSV, NULL, 0);
    char *csv = malloc(c + 1);
    alea_policy_format(p, ALEA_FORMAT_CSV, csv, c + 1);
    assert_non_null(strstr(csv, "seen,choice,chance,value,plain\n\"critical failure (natural "
                                "1-2)\",\"double down\",0.1,0.6,0\n"));
    /* the limit: exactly n bytes fit; n - 1 do not */
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)n);
    assert_int_equal(alea_policy_format(p, ALEA_FORMAT_JSON, json, n + 1), n);
    alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, (int64_t)n - 1);
    assert_int_equal(alea_policy_format(p, ALEA_FORMAT_JSON, json, n + 1), 0);
    assert_string_equal(json, "");
    size_t s0, s1;
    assert_int_equal(alea_ctx_error_span(ctx, &s0, &s1), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "the policy's JSON passes"));
    assert_int_equal(alea_policy_format(p, ALEA_FORMAT_TEXT, json, n + 1), 0);
    free(json);
    free(csv);
    alea_policy_free(p);
}

/* An expression without a choice: invalid, over its span; NULLs. */
static void test_errors(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "2d6 + dd(3, 14, best)");
    alea_policy *p = (alea_policy *)&fa;
    assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_ERR_INVALID);
    assert_ptr_equal(p, (alea_policy *)&fa);
    size_t s, end;
    alea_ctx_error_span(ctx, &s, &end);
    assert_int_equal(s, 0);
    assert_int_equal(end, 21);
    assert_non_null(strstr(alea_ctx_error(ctx), "no choice for the player"));
    assert_int_equal(alea_policy_new(ctx, NULL, &p), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_policy_new(ctx, e, NULL), ALEA_ERR_ARGUMENT);
    assert_int_equal(alea_policy_new(NULL, e, &p), ALEA_ERR_ARGUMENT);
    alea_expr_free(e);
    alea_policy_free(NULL);
    assert_int_equal(alea_policy_rows(NULL), 0);
    assert_null(alea_policy_goal(NULL));
}

/* Each allocation failing in turn: ALEA_ERR_NOMEM, nothing leaked; for
 * each mechanic with a policy (event() with a goal, and a fixed rule
 * measured against the optimum). */
static void test_out_of_memory(void **state)
{
    (void)state;
    static const char *const srcs[] = {"dd(6, 14, best)", "event(d2 + d3 + d4, >= 9)",
                                       "event(d4 + d6 + d8, largest)"};
    for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
        alea_expr *e = compile(ctx, srcs[i]);
        long live = fa.live;
        int failures = 0;
        for (long k = 1;; k++) {
            alea_policy *p = NULL;
            heap_fail_at(&fa, k);
            alea_status st = alea_policy_new(ctx, e, &p);
            heap_fail_at(&fa, 0);
            if (st == ALEA_OK) {
                alea_policy_free(p);
                break;
            }
            assert_int_equal(st, ALEA_ERR_NOMEM);
            assert_int_equal(fa.live, live);
            failures++;
        }
        assert_true(failures >= 4);
        alea_expr_free(e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dd_every_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dd_goals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dd_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_formats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
