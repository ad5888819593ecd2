/* lex_test.c -- tokens, spans, the letter-splitting rule, lexical errors. */
#include "lex.h"
#include "support.h"

TEST_CONTEXT(NULL, NULL)

/* Lexes src and checks the kinds (terminated by T_EOF). */
static void expect_kinds(const char *src, const uint8_t *kinds)
{
    token_list tl;
    assert_int_equal(alea__lex(ctx, src, strlen(src), alea__lex_is_word, &tl), ALEA_OK);
    size_t i = 0;
    for (; kinds[i] != T_EOF; i++) {
        assert_true(i < tl.n);
        assert_int_equal(tl.v[i].kind, kinds[i]);
    }
    assert_int_equal(tl.v[i].kind, T_EOF);
    assert_int_equal(tl.n, i + 1);
    alea__mem_free(ctx, tl.v, tl.cap * sizeof(token));
}

static void test_dice_words_split(void **state)
{
    (void)state;
    static const uint8_t a[] = {T_NUM, T_D, T_F, T_KH, T_NUM, T_EOF};
    expect_kinds("4dFkh1", a);
    static const uint8_t b[] = {T_NUM, T_D, T_NUM, T_RO, T_NUM, T_EOF};
    expect_kinds("1d20ro1", b);
    static const uint8_t c[] = {T_NUM, T_D, T_NUM, T_DL, T_NUM, T_D, T_EOF};
    expect_kinds("4d6DL1d", c);
    static const uint8_t d[] = {T_NUM, T_D, T_NUM, T_BANG, T_BANG, T_P, T_GE, T_NUM, T_EOF};
    expect_kinds("1d6!!p>=5", d);
    static const uint8_t e[] = {T_NAME, T_LPAREN, T_NUM, T_COMMA, T_D, T_NUM, T_RPAREN, T_EOF};
    expect_kinds("BEST(2, d20)", e);
}

static void test_operators(void **state)
{
    (void)state;
    static const uint8_t a[] = {T_NUM, T_SLASH, T_NUM, T_SLASHUP, T_NUM, T_SLASHNEAR,
                                T_NUM, T_STAR, T_NUM, T_EOF};
    expect_kinds("1/2/^3/~4*5", a);
    static const uint8_t b[] = {T_LT, T_LE, T_GT, T_GE, T_EQ, T_EQ, T_NE, T_EOF};
    expect_kinds("< <= > >= = == <>", b);
    static const uint8_t c[] = {T_D, T_LBRACE, T_MINUS, T_NUM, T_DOTDOT, T_NUM, T_RBRACE,
                                T_D, T_PERCENT, T_EOF};
    expect_kinds("d{-1..1} d%", c);
}

static void test_spans_and_numbers(void **state)
{
    (void)state;
    token_list tl;
    const char *src = "  12d6 + 9223372036854775807";
    assert_int_equal(alea__lex(ctx, src, strlen(src), alea__lex_is_word, &tl), ALEA_OK);
    assert_int_equal(tl.v[0].start, 2);
    assert_int_equal(tl.v[0].end, 4);
    assert_int_equal(tl.v[0].num, 12);
    assert_int_equal(tl.v[1].start, 4);
    assert_int_equal(tl.v[3].kind, T_PLUS);
    assert_true(tl.v[4].num == INT64_MAX);
    assert_int_equal(tl.v[5].kind, T_EOF);
    assert_int_equal(tl.v[5].start, strlen(src));
    alea__mem_free(ctx, tl.v, tl.cap * sizeof(token));
}

static void expect_error(const char *src, size_t start, size_t end, const char *msg_part)
{
    token_list tl;
    alea_status st = alea__lex(ctx, src, strlen(src), alea__lex_is_word, &tl);
    assert_int_equal(st, ALEA_ERR_SYNTAX);
    size_t s, e;
    alea_ctx_error_span(ctx, &s, &e);
    assert_int_equal(s, start);
    assert_int_equal(e, end);
    assert_non_null(strstr(alea_ctx_error(ctx), msg_part));
    alea__mem_free(ctx, tl.v, tl.cap * sizeof(token));
}

/* Names: identifiers only where the text has "let"; dice stay dice. */
static void test_names(void **state)
{
    (void)state;
    static const uint8_t a[] = {T_NAME, T_IDENT, T_EQ, T_D, T_NUM, T_NAME, T_IDENT, T_STAR,
                                T_IDENT, T_EOF};
    expect_kinds("let a_1 = d6 in a_1 * Ab2", a);
    static const uint8_t b[] = {T_NAME, T_IDENT, T_EQ, T_NUM, T_D, T_NUM, T_KH, T_NUM,
                                T_NAME, T_LPAREN, T_D, T_NUM, T_RPAREN, T_KH, T_NUM, T_EOF};
    expect_kinds("LET x = 4d6kh3 IN (d6)kh1", b);
    static const uint8_t c[] = {T_NAME, T_NAME, T_EQ, T_D, T_F, T_NAME, T_D, T_D, T_EOF};
    expect_kinds("let dd = dF in d d", c); /* a word, dice: the parser refuses them */
    /* without "let": as before names ("x" a modifier letter) */
    static const uint8_t d[] = {T_NUM, T_X, T_NUM, T_D, T_NUM, T_NAME, T_NAME, T_NUM, T_EOF};
    expect_kinds("6 x 4d6 and not 1", d);
    expect_error("1 and foo", 6, 9, "unknown name 'foo'");
}

/* Comments: skipped, the first one's trimmed text kept. */
static void test_comments(void **state)
{
    (void)state;
    token_list tl;
    const char *src = "1d6 /**/ + 2 // bonus \n+ 1 # x";
    assert_int_equal(alea__lex(ctx, src, strlen(src), alea__lex_is_word, &tl), ALEA_OK);
    assert_int_equal(tl.n, 8); /* 1 d 6 + 2 + 1 EOF */
    assert_int_equal(tl.comment_end - tl.comment_start, 5);
    assert_true(strncmp(src + tl.comment_start, "bonus", 5) == 0);
    alea__mem_free(ctx, tl.v, tl.cap * sizeof(token));
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("1d6 + foo", 6, 9, "unknown name 'foo'");
    expect_error("1d6@", 3, 4, "unexpected character '@'");
    expect_error("1d6 /* x", 4, 8, "unclosed comment");
    expect_error("1d6 # a\x01", 7, 8, "a comment holds text: byte 0x01");
    expect_error("1d6 # \xC3(", 6, 7, "byte 0xC3");
    expect_error("9223372036854775808", 0, 19, "number too large");
    expect_error("1.5", 0, 2, "decimal numbers are not supported");
    expect_error("1 . 2", 2, 3, "unexpected '.'");
    expect_error("d6 \xC3\xA9", 3, 5, "unexpected byte 0xC3");
    expect_error("d6\x01", 2, 3, "unexpected byte 0x01");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dice_words_split),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_operators),
        cmocka_unit_test(test_spans_and_numbers),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
