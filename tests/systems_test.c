/*
 * systems_test.c -- the worked examples of the five rule texts, reproduced
 * with scripted dice: a custom random source returns, draw by draw, the
 * number that makes the next die show the face the example names.
 */
#include "support.h"

#include <alea_games.h> /* dd()'s boons and banes */

/* A queue of (face, sides): draw i yields face i on a die of sides i. */
typedef struct script {
    const int64_t (*draws)[2];
    size_t n, next;
} script;

/* The middle of face f's share of the 64-bit range, so that the bounded
 * draw (the high half of x * sides) lands on index f - 1 without rejection. */
static uint64_t scripted(void *ud)
{
    script *s = ud;
    if (s->next >= s->n)
        fail_msg("the expression drew more dice than the script holds (%zu)", s->n);
    uint64_t face = (uint64_t)s->draws[s->next][0], sides = (uint64_t)s->draws[s->next][1];
    s->next++;
    uint64_t share = UINT64_MAX / sides;
    return share * (face - 1) + share / 2;
}

static void expect_roll(const char *src, const int64_t (*draws)[2], size_t n,
                        const char *want_text, int64_t want_total)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    script s = {draws, n, 0};
    alea_ctx_set_random(ctx, scripted, &s);
    alea_expr *e = compile(ctx, src);
    alea_roll *r = alea_roll_new(ctx);
    if (alea_expr_roll(ctx, e, r) != ALEA_OK)
        fail_msg("'%s': %s", src, alea_ctx_error(ctx));
    char text[512];
    alea_roll_format(r, ALEA_FORMAT_TEXT, text, sizeof text);
    assert_string_equal(text, want_text);
    assert_true(alea_roll_total(r) == want_total);
    assert_int_equal(s.next, n); /* every scripted die was used */
    alea_roll_free(r);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* The bonus-dice rules: "if you have 0 dice in your pool and roll a 17 and a 5, you use
 * the 5. If you have 2 dice in your pool and roll those numbers, you use
 * the 17." */
static void test_bonus_dice_pool_of_dice(void **state)
{
    (void)state;
    static const int64_t d[][2] = {{17, 20}, {5, 20}};
    expect_roll("d20 -1d", d, 2, "d20 -1d [17 dropped, 5] = 5", 5);
    expect_roll("d20 +1d", d, 2, "d20 +1d [17, 5 dropped] = 17", 17);
    expect_roll("d20 +1d -1d +1d", d, 2, "d20 +1d [17, 5 dropped] = 17", 17);
}

/* The bonus-dice rules: "if a halfling has +1d on a skill check and rolls a 1 and a 13,
 * the halfling could use the Lucky trait to reroll the 1." */
static void test_bonus_dice_lucky(void **state)
{
    (void)state;
    static const int64_t d[][2] = {{1, 20}, {13, 20}, {18, 20}};
    expect_roll("d20ra1 +1d", d, 3, "d20ra1 +1d [1->18, 13 dropped] = 18", 18);
    /* With -1d the 1 is the die in use: rerolling it is the right choice. */
    expect_roll("d20ra1 -1d", d, 3, "d20ra1 -1d [1->18 dropped, 13] = 13", 13);
    /* Damage rolled twice, keeping the better result. */
    static const int64_t dmg[][2] = {{2, 6}, {3, 6}, {6, 6}, {1, 6}};
    expect_roll("2d6+3 +1d", dmg, 4,
                "best(2d6 [2, 3] + 3 = 8 dropped, 2d6 [6, 1] + 3 = 10) = 10", 10);
}

/* Critical pools: "You roll 3d4 + 3d6 + d18 ... 2, 3, 4 + 1, 6, 5 + 18. Three
 * criticals have been rolled but since a 1 has been rolled as well, you may
 * choose either to negate the d4, the d6 or the d18, and then re-roll the
 * non-canceled criticals." The roller negates the smallest (the d4). */
static void test_critical_pool_event(void **state)
{
    (void)state;
    static const int64_t d[][2] = {{2, 4},  {3, 4}, {4, 4},  {1, 6}, {6, 6},
                                   {5, 6},  {18, 18}, {3, 6}, {7, 18}};
    expect_roll("event(3d4 + 3d6 + d18)", d, 9,
                "event(3d4 + 3d6 + d18) [2, 3, 4 cancelled, 1, 6!+3, 5, 18!+7] = 49", 49);
    expect_roll("event(3d4 + 3d6 + d18, largest)",
                (const int64_t[][2]){{2, 4}, {3, 4}, {4, 4}, {1, 6}, {6, 6}, {5, 6},
                                     {18, 18}, {1, 4}, {3, 6}},
                9,
                "event(3d4 + 3d6 + d18, largest) [2, 3, 4!+1, 1, 6!+3, 5, 18 cancelled] = 43",
                43);
    /* Groups of equal sides apart from each other: the smallest dice go
     * first, the earlier die first among equals (and the reverse order of
     * sizes with "largest"). */
    static const int64_t g[][2] = {{6, 6}, {4, 4}, {6, 6}, {1, 4}, {1, 4}, {2, 6}};
    expect_roll("event(d6 + d4 + d6 + d4 + d4)", g, 6,
                "event(d6 + d4 + d6 + d4 + d4) [6 cancelled, 4 cancelled, 6!+2, 1, 1] = 20",
                20);
    static const int64_t gl[][2] = {{6, 6}, {4, 4}, {6, 6}, {1, 4}, {1, 4}, {3, 4}};
    expect_roll("event(d6 + d4 + d6 + d4 + d4, largest)", gl, 6,
                "event(d6 + d4 + d6 + d4 + d4, largest) [6 cancelled, 4!+3, 6 cancelled, 1, 1]"
                " = 21",
                21);
    /* "d12 + d14 + d18 + d20 ... 2, 14, 9, and a 20 ... both at their
     * maximum value, they are re-rolled and their new values are added to
     * the original 45." */
    static const int64_t e[][2] = {{2, 12}, {14, 14}, {9, 18}, {20, 20}, {5, 14}, {11, 20}};
    expect_roll("event(d12 + d14 + d18 + d20)", e, 6,
                "event(d12 + d14 + d18 + d20) [2, 14!+5, 9, 20!+11] = 61", 45 + 5 + 11);
    /* "You roll 5D12 ... 1, 1, 5, 8, 1 ... you have now Critically Failed.
     * You may only count the 1's for roll, so this Dice Roll is a 3." */
    static const int64_t f[][2] = {{1, 12}, {1, 12}, {5, 12}, {8, 12}, {1, 12}};
    expect_roll("event(5d12)", f, 5,
                "event(5d12) [1, 1, 5 discarded, 8 discarded, 1] critical failure = 3", 3);
}

/* The Double Down roll: the bridge. Modifier +6 (3 Agility + 2 Rogue + 1 drive) against
 * difficulty 14: a 6 makes 12, a failure; doubling down, a natural 20
 * raises it two tiers, to a critical success. */
static void test_double_down_bridge(void **state)
{
    (void)state;
    static const int64_t d[][2] = {{6, 20}, {20, 20}};
    /* The example's +6 is 3 Agility + 2 Rogue + 1 drive; it leaves out the
     * stress stars the rules call mandatory, so the modifier is given as is. */
    expect_roll("dd(6, 14, always)", d, 2,
                "dd(6, 14, always) [6 (12): failure; double down 20 (26): +2 -> critical "
                "success] = 3",
                3);
}

/* The Double Down roll's boons and banes, from tables given as data. The rule text's
 * two worked examples: the bridge's critical success at difficulty 14
 * "results in four boons (plus one boon from the spent drive)", and "a
 * support roll with a difficulty of 16 with no drive gives you 3 boons
 * instead of 6". The tables themselves are the book's: these are made up
 * to fit the examples (mech_test.c tests the arithmetic further). */
static void test_double_down_boons(void **state)
{
    (void)state;
    static const int64_t diff[] = {10, 14, 16}, count[] = {1, 2, 6};
    alea_boon_table t = {diff, count, 3, {-2, -1, 1, 2}};
    int64_t boons, banes;
    assert_int_equal(alea_boons_for_outcome(&t, 14, 3, 1, 0, &boons, &banes), ALEA_OK);
    assert_true(boons == 5 && banes == 0); /* 2 x 2, plus 1 from drive */
    assert_int_equal(alea_boons_for_outcome(&t, 16, 2, 0, 0, &boons, &banes), ALEA_OK);
    assert_true(boons == 6 && banes == 0);
    assert_int_equal(alea_boons_for_outcome(&t, 16, 2, 0, 1, &boons, &banes), ALEA_OK);
    assert_true(boons == 3 && banes == 0); /* a support roll: half */
}

/* Boons and banes: "when rolling 2d10 with +2B becomes 4d10. The lowest dice are
 * then dropped until only the original number of dice remain." */
static void test_boons_and_banes(void **state)
{
    (void)state;
    static const int64_t d[][2] = {{3, 10}, {9, 10}, {1, 10}, {7, 10}};
    expect_roll("2d10 +2B", d, 4, "2d10 +2B [3 dropped, 9, 1 dropped, 7] = 16", 16);
    expect_roll("2d10 +4B -2B", d, 4, "2d10 +4B -2B [3 dropped, 9, 1 dropped, 7] = 16", 16);
    /* More than five boons: the excess is ignored (+7B -2B is +3B). */
    static const int64_t e[][2] = {{3, 10}, {9, 10}, {1, 10}, {7, 10}, {10, 10}};
    expect_roll("2d10 +7B -2B", e, 5, "2d10 +7B -2B [3 dropped, 9, 1 dropped, 7 dropped, 10] = 19",
                19);
    expect_roll("d0 +2B", NULL, 0, "d0 +2B [1] = 1", 1);
    expect_roll("d0 -1B", NULL, 0, "d0 -1B [-1] = -1", -1);
    expect_roll("d0 +3B -3B", NULL, 0, "d0 +3B -3B [0] = 0", 0);
}

/* +/- DICE: the Trench Pilgrim. "-1 DICE ... 3 dice are rolled ... 5, 5 and
 * 1. The two lowest rolls are picked (a 5 and the 1) giving a Success Roll
 * of 6." */
static void test_plus_minus_dice_trench_pilgrim(void **state)
{
    (void)state;
    static const int64_t d[][2] = {{5, 6}, {5, 6}, {1, 6}};
    expect_roll("2d6 -1 DICE", d, 3, "2d6 -1 DICE [5, 5 dropped, 1] = 6", 6);
    expect_roll("2d6 +2 DICE -1 DICE", d, 3, "2d6 +1 DICE [5, 5, 1 dropped] = 10", 10);
    expect_roll("2d6 +1 INJURY DICE", d, 3, "2d6 +1 INJURY DICE [5, 5, 1 dropped] = 10", 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bonus_dice_pool_of_dice),
        cmocka_unit_test(test_bonus_dice_lucky),
        cmocka_unit_test(test_critical_pool_event),
        cmocka_unit_test(test_double_down_bridge),
        cmocka_unit_test(test_double_down_boons),
        cmocka_unit_test(test_boons_and_banes),
        cmocka_unit_test(test_plus_minus_dice_trench_pilgrim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
