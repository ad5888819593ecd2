/*
 * lex.h -- bytes -> tokens, each with its byte span.
 *
 * Letters are the subtle part: dice notation glues words together ("4dFkh1",
 * "1d20ro1"). A run of letters that is a word of the language (min, best,
 * and the words of the calls, which the parser knows) is one T_NAME token; any other run is split, longest match first, into the
 * modifier letters min max kh kl dh dl ro ra mi ma cs cf xo sa sd uo k d r f p b x e s u h l. A run that neither is a name
 * nor splits is an error ("unknown name 'foo'").
 *
 * Names: in a dialect with names, a text that has the word "let" is lexed
 * with identifiers. A run of letters, digits and '_' that starts a word
 * (not glued to a number or a closing bracket, as "4d6kh3" and "(2d6)kh1"
 * are), is not a word of the language and does not read as dice ("d6",
 * "dd", "dF": a 'd' and what splits after it) is one T_IDENT token. A text
 * without "let" is lexed as before names existed, so its errors stay.
 */
#ifndef ALEA_LEX_H
#define ALEA_LEX_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

typedef enum tok_kind {
    T_EOF,
    T_NUM,
    T_PLUS,
    T_MINUS,
    T_STAR,
    T_SLASH,    /* /  */
    T_SLASHUP,  /* /^ */
    T_SLASHNEAR,
    T_SLASHSLASH, /* "//" in a dialect where it divides (d20) */
    T_POW,        /* "^" or "**" *//* /~ */
    T_LPAREN,
    T_RPAREN,
    T_LBRACE,
    T_RBRACE,
    T_LBRACKET,
    T_RBRACKET,
    T_COMMA,
    T_DOTDOT,
    T_PERCENT,
    T_BANG,
    T_EQ, /* = or == */
    T_NE, /* <> */
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    /* modifier letters */
    T_D,
    T_KH,
    T_KL,
    T_DH,
    T_DL,
    T_K,
    T_RO,
    T_RA,
    T_R,
    T_F,
    T_P,
    T_B,
    T_X,
    T_XO,   /* "xo": Foundry's explode once */
    T_E,    /* "e": d20's explode */
    T_MIN,  /* "min" inside a run of letters, or d20's "mi" */
    T_MAX,  /* "max" inside a run, or d20's "ma" */
    T_CS,   /* "cs": critical success marker (Foundry: count successes) */
    T_CF,   /* "cf": critical failure marker (Foundry: count failures) */
    T_S,  /* "s": sort ascending */
    T_SA, /* "sa": sort ascending */
    T_SD, /* "sd": sort descending */
    T_U,  /* "u": unique */
    T_UO, /* "uo": unique, rerolled once */
    T_H,  /* "h": a selection of the highest (d20's "ph1", alea's "k{h1}") */
    T_L,  /* "l": of the lowest */
    T_MS,   /* "ms": Foundry's margin of success */
    T_EVEN, /* "even", "odd": Foundry's counts of even and odd faces */
    T_ODD,
    T_M,    /* "m", "mt": Roll20's matching dice */
    T_MT,
    T_NAME, /* a word of the language (alea__lex_is_word) */
    T_LABEL, /* "[text]": raw text, span includes the brackets */
    T_IDENT, /* a name a "let" may bind: letters, digits, '_' (dialects
                with names, and only where the text has a "let") */
    T__COUNT
} tok_kind;


typedef struct token {
    uint8_t kind;  /* tok_kind */
    uint32_t start, end;
    int64_t num;   /* T_NUM value */
} token;

typedef struct token_list {
    token *v;
    size_t n, cap;
    /* The first comment's text, trimmed ("4d6 # fire damage": "fire
     * damage"); an empty span when there is none. */
    size_t comment_start, comment_end;
} token_list;

/* Whether the n letters at s are a word of the language, matched without
 * case (a call's name, or a word its arguments take). */
typedef int (*alea__word_fn)(const char *s, size_t n);

/* Text for a person over [from, to) of src (a comment, a label, a
 * description), which a breakdown shows as it is: UTF-8 without control
 * characters, else an error that names `what`. */
ALEA__HIDDEN alea_status alea__lex_text(alea_ctx *ctx, const char *src, size_t from, size_t to,
                                        const char *what);

/*
 * Tokenizes src[0..len) into out (grown through ctx's allocator; the caller
 * frees out->v with alea__mem_free(ctx, out->v, out->cap * sizeof(token))).
 * is_word tells the language's words, which the lexer keeps whole: the
 * parser knows them (alea__lex_is_word, mech/list.c). Ends with a T_EOF
 * token. Errors: ALEA_ERR_SYNTAX with the offending span.
 */
ALEA__HIDDEN alea_status alea__lex(alea_ctx *ctx, const char *src, size_t len,
                                   alea__word_fn is_word, token_list *out);
/* As alea__lex, with names whether or not the text binds one (an
 * expression compiled with parameters, params.c), in a dialect that has
 * them. */
ALEA__HIDDEN alea_status alea__lex_names(alea_ctx *ctx, const char *src, size_t len,
                                         alea__word_fn is_word, token_list *out);

/* Human-readable description of a token kind, for messages ("'kh'"). */
ALEA__HIDDEN const char *alea__tok_desc(tok_kind k);
/* The language's words (mech/list.c: the built-in calls, the words of
 * extra dice, and the mechanics' names and words), for alea__lex. */
ALEA__HIDDEN int alea__lex_is_word(const char *s, size_t n);
/* The words of names and truth values (let, in, and, or, not), words of
 * the language in the dialects that have names (dialect.h). */
ALEA__HIDDEN int alea__lex_names_word(const char *s, size_t n);

#endif /* ALEA_LEX_H */
