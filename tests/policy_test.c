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

/* The work is charged: dd()'s policy costs 160 units (4 first outcomes,
 * 20 naturals and a second d20 each), which fit a limit of 160, not 159. */
static void test_work_limit(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "dd(6, 14, critical)");
    alea_policy *p = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 160);
    assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_OK);
    alea_policy_free(p);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 159);
    assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_ERR_LIMIT);
    assert_non_null(strstr(alea_ctx_error(ctx), "work limit is 159"));
    alea_expr_free(e);
}

/* reroll(): one d10, one round, for the mean: keep 6 or more (6.75); two
 * rounds: keep 7 or more, and a 6 is rerolled (7.45); each row's value is
 * the mean of the rolls that start there. */
static void test_reroll_d10(void **state)
{
    (void)state;
    alea_policy *p = policy_of("reroll(1d10, 1, mean)");
    check_rows("reroll(1d10, 1, mean)", p, 1);
    assert_int_equal(alea_policy_rows(p), 10);
    assert_double_equal(alea_policy_value(p), 6.75, 1e-12);
    for (size_t i = 0; i < 10; i++) {
        int face = atoi(alea_policy_seen(p, i));
        assert_string_equal(alea_policy_choice(p, i), face >= 6 ? "keep all" : "reroll all");
        assert_double_equal(alea_policy_row_value(p, i), face >= 6 ? face : 5.5, 1e-12);
        assert_double_equal(alea_policy_row_plain(p, i), face, 0);
        assert_double_equal(alea_policy_prob(p, i), 0.1, 1e-15);
    }
    alea_policy_free(p);
    p = policy_of("reroll(1d10, 2, mean)");
    check_rows("reroll(1d10, 2, mean)", p, 1);
    assert_double_equal(alea_policy_value(p), 7.45, 1e-12);
    for (size_t i = 0; i < 10; i++) {
        int face = atoi(alea_policy_seen(p, i));
        assert_string_equal(alea_policy_choice(p, i), face >= 7 ? "keep all" : "reroll all");
        /* as it stands: kept this round, one round left (6.75 below 6) */
        assert_double_equal(alea_policy_row_plain(p, i), face >= 6 ? face : 5.5, 1e-12);
    }
    alea_policy_free(p);
}

/* reroll(5d6, 1, >= 20): a seen 6 5 3 2 1 keeps 6 5 (20/27 to reach 20
 * with three dice: 9 or more of 3d6 is 160/216); the whole chance is the
 * distribution's P(>= 20); several sizes name their dice. */
static void test_reroll_5d6(void **state)
{
    (void)state;
    const char *src = "reroll(5d6, 1, >= 20)";
    alea_policy *p = policy_of(src);
    check_rows(src, p, 0);
    assert_int_equal(alea_policy_rows(p), 252);
    assert_int_equal(alea_policy_is_prob(p), 1);
    alea_dist *d = dist_of(ctx, src);
    assert_double_equal(alea_policy_value(p), alea_dist_at_least(d, 20), 1e-12);
    alea_dist_free(d);
    size_t found = 0;
    for (size_t i = 0; i < alea_policy_rows(p); i++)
        if (!strcmp(alea_policy_seen(p, i), "6 5 3 2 1")) {
            assert_string_equal(alea_policy_choice(p, i), "keep 6 5");
            assert_double_equal(alea_policy_row_value(p, i), 20.0 / 27, 1e-12);
            assert_double_equal(alea_policy_row_plain(p, i), 0, 0);
            assert_double_equal(alea_policy_prob(p, i), 120.0 / 7776, 1e-15);
            found++;
        }
    assert_int_equal(found, 1);
    alea_policy_free(p);
    p = policy_of("reroll(2d4 + 1d6, 1, >= 10)");
    check_rows("reroll(2d4 + 1d6, 1, >= 10)", p, 0);
    /* the rows that keep the same dice come together, the best kept first */
    assert_string_equal(alea_policy_seen(p, 0), "4 4 (d4), 6 (d6)");
    assert_string_equal(alea_policy_choice(p, 0), "keep all");
    size_t groups = 1;
    for (size_t i = 0; i < alea_policy_rows(p); i++) {
        if (!strcmp(alea_policy_seen(p, i), "1 1 (d4), 4 (d6)"))
            assert_string_equal(alea_policy_choice(p, i), "keep 4 (d6)");
        if (i > 0 && strcmp(alea_policy_choice(p, i), alea_policy_choice(p, i - 1))) {
            groups++;
            for (size_t j = 0; j + 1 < i; j++) /* a choice is never met again */
                assert_true(strcmp(alea_policy_choice(p, j), alea_policy_choice(p, i)) != 0);
        }
    }
    assert_true(groups > 3 && groups < alea_policy_rows(p) / 2);
    assert_string_equal(alea_policy_choice(p, alea_policy_rows(p) - 1), "reroll all");
    alea_policy_free(p);
    /* no rounds, no choice */
    alea_expr *e = compile(ctx, "reroll(2d6, 0, mean)");
    assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_ERR_INVALID);
    alea_expr_free(e);
}

static int cmp_desc(const void *a, const void *b)
{
    return *(const int *)b - *(const int *)a;
}

/* The roller plays the policy's table: for 400 seeded rolls of
 * reroll(3d4, 1, >= 9), the faces first seen (sorted, highest first) find
 * their row, and the breakdown's "kept ..." is the row's choice. */
static void test_reroll_roller_plays_the_table(void **state)
{
    (void)state;
    const char *src = "reroll(3d4, 1, >= 9)";
    alea_policy *p = policy_of(src);
    alea_expr *e = compile(ctx, src);
    alea_roll *r = alea_roll_new(ctx);
    int kinds[3] = {0, 0, 0}; /* keep all, reroll all, some */
    for (uint64_t seed = 1; seed <= 400; seed++) {
        alea_ctx_seed(ctx, seed);
        assert_int_equal(alea_expr_roll(ctx, e, r), ALEA_OK);
        char *text = roll_text(r, ALEA_FORMAT_TEXT);
        /* "... [3, 3, 1->3; kept 3 3: ..." */
        const char *at = strchr(text, '[') + 1, *semi = strchr(at, ';');
        int face[3], n = 0;
        for (const char *c = at; c < semi && n < 3;) {
            face[n++] = atoi(c);
            c = strchr(c, ',');
            if (!c || c > semi)
                break;
            c += 2;
        }
        assert_int_equal(n, 3);
        qsort(face, 3, sizeof face[0], cmp_desc);
        char seen[16], want[64];
        snprintf(seen, sizeof seen, "%d %d %d", face[0], face[1], face[2]);
        const char *kept = semi + 2; /* "kept all: ", "kept none: ", "kept 3 3: " */
        size_t row = alea_policy_rows(p);
        for (size_t i = 0; i < alea_policy_rows(p); i++)
            if (!strcmp(alea_policy_seen(p, i), seen))
                row = i;
        assert_true(row < alea_policy_rows(p));
        const char *choice = alea_policy_choice(p, row);
        if (!strncmp(kept, "kept all:", 9)) {
            assert_string_equal(choice, "keep all");
            kinds[0]++;
        } else if (!strncmp(kept, "kept none:", 10)) {
            assert_string_equal(choice, "reroll all");
            kinds[1]++;
        } else {
            /* the faces kept, in the dice's order: sorted as the row's */
            const char *colon = strchr(kept, ':');
            int k[3], nk = 0;
            for (const char *c = kept + 5; c < colon && nk < 3; c = strchr(c, ' ') + 1) {
                k[nk++] = atoi(c);
                if (!strchr(c, ' ') || strchr(c, ' ') > colon)
                    break;
            }
            qsort(k, (size_t)nk, sizeof k[0], cmp_desc);
            int w = snprintf(want, sizeof want, "keep %d", k[0]);
            for (int j = 1; j < nk; j++)
                w += snprintf(want + w, sizeof want - (size_t)w, " %d", k[j]);
            assert_string_equal(choice, want);
            kinds[2]++;
        }
        free(text);
    }
    assert_true(kinds[0] > 0 && kinds[1] > 0 && kinds[2] > 0);
    alea_roll_free(r);
    alea_expr_free(e);
    alea_policy_free(p);
}

/* reroll()'s policy checks the backward induction's whole cost before it
 * starts again, as the compilation did: a limit below it is refused at
 * once with the work it needs, which then fits, and one unit less not. */
static void test_reroll_work(void **state)
{
    (void)state;
    alea_expr *e = compile(ctx, "reroll(4d6, 2, >= 18)");
    alea_policy *p = NULL;
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, 1000);
    assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_ERR_LIMIT);
    double need = alea_ctx_work_needed(ctx);
    assert_true(need > 1000);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, (int64_t)ceil(need));
    assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_OK);
    assert_true(alea_ctx_work(ctx) <= (int64_t)ceil(need) && alea_ctx_work(ctx) > 1000);
    alea_policy_free(p);
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, (int64_t)ceil(need) - 1);
    assert_int_equal(alea_policy_new(ctx, e, &p), ALEA_ERR_LIMIT);
    alea_expr_free(e);
}

/* Each allocation failing in turn: ALEA_ERR_NOMEM, nothing leaked; for
 * each mechanic with a policy (event() with a goal, and a fixed rule
 * measured against the optimum). */
static void test_out_of_memory(void **state)
{
    (void)state;
    static const char *const srcs[] = {"dd(6, 14, best)", "reroll(3d4, 2, >= 9)",
                                       "event(d2 + d3 + d4, >= 9)",
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
        cmocka_unit_test_setup_teardown(test_work_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reroll_d10, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reroll_5d6, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reroll_roller_plays_the_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reroll_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
