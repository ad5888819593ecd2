/*
 * lex.c -- bytes -> tokens. See lex.h for the letter-splitting rule.
 */
#include "lex.h"
#include "dialect.h"
#include "out.h"

#include <string.h>

alea_status alea__lex_text(alea_ctx *ctx, const char *src, size_t from, size_t to,
                           const char *what)
{
    for (size_t i = from; i < to;) {
        unsigned char c = (unsigned char)src[i];
        size_t k = c < 0x80 ? 1 : alea__utf8_len((const unsigned char *)src + i, to - i);
        if ((c < 0x20 && c != '\t') || c == 0x7F || k == 0)
            return alea__error(ctx, ALEA_ERR_SYNTAX, i, i + 1,
                               "%s holds text: byte 0x%02X at byte %zu is not "
                               "(a control character, or not UTF-8)",
                               what, c, i);
        i += k;
    }
    return ALEA_OK;
}

/*
 * A comment from s, whose text runs over [from, to) ("# text" and "// text"
 * to the end of the line, "/ * text * /" to its end). The first one with
 * text is kept in out.
 */
static alea_status comment(alea_ctx *ctx, const char *src, size_t s, size_t from, size_t to,
                           token_list *out)
{
    alea_status st = alea__lex_text(ctx, src, from, to, "a comment");
    if (st != ALEA_OK)
        return st;
    while (from < to && (src[from] == ' ' || src[from] == '\t'))
        from++;
    while (to > from && (src[to - 1] == ' ' || src[to - 1] == '\t' || src[to - 1] == '\r'))
        to--;
    if (to > from && out->comment_end == out->comment_start) {
        out->comment_start = from;
        out->comment_end = to;
    }
    (void)s;
    return ALEA_OK;
}

/* Modifier letters, longest first: the splitter tries them in this order. */
static const struct {
    const char *s;
    uint8_t len, kind;
} mod_words[] = {
    {"even", 4, T_EVEN}, {"odd", 3, T_ODD},
    {"min", 3, T_MIN}, {"max", 3, T_MAX},
    {"kh", 2, T_KH}, {"kl", 2, T_KL}, {"dh", 2, T_DH}, {"dl", 2, T_DL},
    {"ro", 2, T_RO}, {"ra", 2, T_RA}, {"mi", 2, T_MIN}, {"ma", 2, T_MAX},
    {"cs", 2, T_CS}, {"cf", 2, T_CF}, {"xo", 2, T_XO}, {"k", 1, T_K},   {"d", 1, T_D},   {"r", 1, T_R},
    {"f", 1, T_F},   {"p", 1, T_P},   {"b", 1, T_B},   {"x", 1, T_X},
    {"e", 1, T_E},
    {"sa", 2, T_SA}, {"sd", 2, T_SD}, {"uo", 2, T_UO}, {"s", 1, T_S},
    {"u", 1, T_U},   {"h", 1, T_H},   {"l", 1, T_L},
    {"ms", 2, T_MS}, {"mt", 2, T_MT}, {"m", 1, T_M},
};

const char *alea__tok_desc(tok_kind k)
{
    switch (k) {
    case T_EOF: return "end of input";
    case T_NUM: return "number";
    case T_PLUS: return "'+'";
    case T_MINUS: return "'-'";
    case T_STAR: return "'*'";
    case T_SLASH: return "'/'";
    case T_SLASHUP: return "'/^'";
    case T_SLASHNEAR: return "'/~'";
    case T_SLASHSLASH: return "'//'";
    case T_POW: return "'^'";
    case T_LPAREN: return "'('";
    case T_RPAREN: return "')'";
    case T_LBRACE: return "'{'";
    case T_RBRACE: return "'}'";
    case T_LBRACKET: return "'['";
    case T_RBRACKET: return "']'";
    case T_COMMA: return "','";
    case T_DOTDOT: return "'..'";
    case T_PERCENT: return "'%'";
    case T_BANG: return "'!'";
    case T_EQ: return "'='";
    case T_NE: return "'<>'";
    case T_LT: return "'<'";
    case T_LE: return "'<='";
    case T_GT: return "'>'";
    case T_GE: return "'>='";
    case T_D: return "'d'";
    case T_KH: return "'kh'";
    case T_KL: return "'kl'";
    case T_DH: return "'dh'";
    case T_DL: return "'dl'";
    case T_K: return "'k'";
    case T_RO: return "'ro'";
    case T_RA: return "'ra'";
    case T_R: return "'r'";
    case T_F: return "'f'";
    case T_P: return "'p'";
    case T_B: return "'b'";
    case T_X: return "'x'";
    case T_XO: return "'xo'";
    case T_E: return "'e'";
    case T_MIN: return "'min'";
    case T_MAX: return "'max'";
    case T_CS: return "'cs'";
    case T_CF: return "'cf'";
    case T_S: return "'s'";
    case T_SA: return "'sa'";
    case T_SD: return "'sd'";
    case T_U: return "'u'";
    case T_UO: return "'uo'";
    case T_H: return "'h'";
    case T_L: return "'l'";
    case T_MS: return "'ms'";
    case T_EVEN: return "'even'";
    case T_ODD: return "'odd'";
    case T_M: return "'m'";
    case T_MT: return "'mt'";
    case T_NAME: return "name";
    case T_LABEL: return "label";
    case T_IDENT: return "name";
    case T__COUNT: break;
    }
    return "token";
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive equality of src[0..n) with the lowercase word w. */
static int word_eq(const char *src, size_t n, const char *w)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (w[i] == '\0' || lower(src[i]) != w[i])
            return 0;
    return w[i] == '\0';
}

static alea_status push(alea_ctx *ctx, token_list *out, uint8_t kind,
                        size_t start, size_t end)
{
    if (out->n == out->cap) {
        size_t ncap = out->cap ? out->cap * 2 : 32;
        size_t osz = alea__mul_size(out->cap, sizeof(token));
        size_t nsz = alea__mul_size(ncap, sizeof(token));
        token *nv = alea__mem_realloc(ctx, out->v, osz, nsz);
        if (!nv)
            return alea__nomem(ctx);
        out->v = nv;
        out->cap = ncap;
    }
    token *t = &out->v[out->n++];
    t->kind = kind;
    t->start = (uint32_t)start;
    t->end = (uint32_t)end;
    t->num = 0;
    return ALEA_OK;
}

int alea__lex_names_word(const char *s, size_t n)
{
    static const char *const words[] = {"let", "in", "and", "or", "not"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (word_eq(s, n, words[i]))
            return 1;
    return 0;
}

/* The length of the modifier word at src[i..e), longest first, or 0. */
static size_t mod_word_at(const char *src, size_t i, size_t e, uint8_t *kind)
{
    for (size_t m = 0; m < sizeof mod_words / sizeof mod_words[0]; m++) {
        size_t l = mod_words[m].len;
        if (l <= e - i && word_eq(src + i, l, mod_words[m].s)) {
            *kind = mod_words[m].kind;
            return l;
        }
    }
    return 0;
}

/* Whether the letters src[s..e), a language's word, or in a dialect with
 * names one of theirs (names), are a word the lexer keeps whole. */
static int keeps_whole(const char *src, size_t s, size_t e, alea__word_fn is_word, int names)
{
    return (is_word && is_word(src + s, e - s)) || (names && alea__lex_names_word(src + s, e - s));
}

/* A run of letters src[s..e): one name token, or split into modifiers. */
static alea_status lex_word(alea_ctx *ctx, const char *src, size_t s, size_t e,
                            alea__word_fn is_word, token_list *out)
{
    if (keeps_whole(src, s, e, is_word, alea__dialects[ctx->dialect].names))
        return push(ctx, out, T_NAME, s, e);
    size_t i = s;
    while (i < e) {
        uint8_t kind = 0;
        size_t l = mod_word_at(src, i, e, &kind);
        if (l == 0) {
            int shown = (int)(e - s > 24 ? 24 : e - s);
            return alea__error(ctx, ALEA_ERR_SYNTAX, s, e,
                               "unknown name '%.*s%s' at byte %zu", shown,
                               src + s, e - s > 24 ? "..." : "", s);
        }
        alea_status st = push(ctx, out, kind, i, i + l);
        if (st != ALEA_OK)
            return st;
        i += l;
    }
    return ALEA_OK;
}

/* A token lexed: its status, and the byte after it (where the next one may
 * start). */
typedef struct lexed {
    alea_status st;
    size_t end;
} lexed;

/* A number at s: digits, an integer that fits int64_t (no decimals). */
static lexed lex_number(alea_ctx *ctx, const char *src, size_t len, size_t s,
                        token_list *out)
{
    size_t e = s;
    int64_t v = 0;
    int big = 0;
    while (e < len && is_digit(src[e])) {
        int d = src[e] - '0';
        if (v > (INT64_MAX - d) / 10)
            big = 1;
        else
            v = v * 10 + d;
        e++;
    }
    if (big)
        return (lexed){alea__error(ctx, ALEA_ERR_SYNTAX, s, e,
                                   "number too large at byte %zu (the largest is %lld)", s,
                                   (long long)INT64_MAX),
                       e};
    if (e + 1 < len && src[e] == '.' && is_digit(src[e + 1]))
        return (lexed){alea__error(ctx, ALEA_ERR_SYNTAX, s, e + 1,
                                   "decimal numbers are not supported at byte %zu: "
                                   "dice values are integers",
                                   s),
                       e};
    alea_status st = push(ctx, out, T_NUM, s, e);
    if (st == ALEA_OK)
        out->v[out->n - 1].num = v;
    return (lexed){st, e};
}

/* A comment at s ('#', "//" or "/ *", which c and n1 tell apart). */
static lexed lex_comment(alea_ctx *ctx, const char *src, size_t len, size_t s, char c,
                         char n1, token_list *out)
{
    size_t from = s + (c == '#' ? 1 : 2), e = from;
    if (c == '/' && n1 == '*') {
        while (e + 1 < len && !(src[e] == '*' && src[e + 1] == '/'))
            e++;
        if (e + 1 >= len)
            return (lexed){alea__error(ctx, ALEA_ERR_SYNTAX, s, len,
                                       "unclosed comment '/*' at byte %zu (close it with */)",
                                       s),
                           e};
    } else {
        while (e < len && src[e] != '\n')
            e++;
    }
    return (lexed){comment(ctx, src, s, from, e, out), c == '/' && n1 == '*' ? e + 2 : e};
}

/* A label at s: raw text up to ']' on the same line. */
static lexed lex_label(alea_ctx *ctx, const char *src, size_t len, size_t s, token_list *out)
{
    size_t e = s + 1;
    while (e < len && src[e] != ']' && src[e] != '\n' && src[e] != '[')
        e++;
    if (e >= len || src[e] != ']')
        return (lexed){alea__error(ctx, ALEA_ERR_SYNTAX, s, e,
                                   "unclosed label '[' at byte %zu (labels are "
                                   "written [text])",
                                   s),
                       e};
    alea_status st = alea__lex_text(ctx, src, s + 1, e, "a label");
    if (st == ALEA_OK)
        st = push(ctx, out, T_LABEL, s, e + 1);
    return (lexed){st, e + 1};
}

/* The error for a byte at s that starts no token. */
static alea_status bad_byte(alea_ctx *ctx, const char *src, size_t len, size_t s)
{
    unsigned char uc = (unsigned char)src[s];
    if (uc >= 0x20 && uc < 0x7F)
        return alea__error(ctx, ALEA_ERR_SYNTAX, s, s + 1,
                           "unexpected character '%c' at byte %zu", src[s], s);
    /* Span a whole UTF-8 sequence so the caret covers one glyph. */
    size_t e = s + 1;
    while (e < len && e - s < 4 && ((unsigned char)src[e] & 0xC0) == 0x80)
        e++;
    return alea__error(ctx, ALEA_ERR_SYNTAX, s, e,
                       "unexpected byte 0x%02X at byte %zu (only ASCII dice "
                       "notation is understood)",
                       uc, s);
}

/* An operator or punctuation of one or two bytes at s (c, then n1). */
static lexed lex_operator(alea_ctx *ctx, const char *src, size_t len, size_t s,
                          char c, char n1, token_list *out)
{
    size_t w = 1;
    uint8_t k;
    switch (c) {
    case '+': k = T_PLUS; break;
    case '-': k = T_MINUS; break;
    case '*':
        k = n1 == '*' ? T_POW : T_STAR; /* "**" */
        w = n1 == '*' ? 2 : 1;
        break;
    case '^': k = T_POW; break;
    case '/':
        if (n1 == '^') {
            k = T_SLASHUP;
            w = 2;
        } else if (n1 == '~') {
            k = T_SLASHNEAR;
            w = 2;
        } else {
            k = T_SLASH;
        }
        break;
    case '(': k = T_LPAREN; break;
    case ')': k = T_RPAREN; break;
    case '{': k = T_LBRACE; break;
    case '}': k = T_RBRACE; break;
    case ']': k = T_RBRACKET; break;
    case ',': k = T_COMMA; break;
    case '%': k = T_PERCENT; break;
    case '!': k = T_BANG; break;
    case '.':
        if (n1 != '.')
            return (lexed){alea__error(ctx, ALEA_ERR_SYNTAX, s, s + 1,
                                       "unexpected '.' at byte %zu (ranges are written "
                                       "'a..b'; decimals are not supported)",
                                       s),
                           s};
        k = T_DOTDOT;
        w = 2;
        break;
    case '=':
        k = T_EQ;
        if (n1 == '=')
            w = 2;
        break;
    case '<':
        if (n1 == '=') {
            k = T_LE;
            w = 2;
        } else if (n1 == '>') {
            k = T_NE;
            w = 2;
        } else {
            k = T_LT;
        }
        break;
    case '>':
        if (n1 == '=') {
            k = T_GE;
            w = 2;
        } else {
            k = T_GT;
        }
        break;
    default: return (lexed){bad_byte(ctx, src, len, s), s};
    }
    return (lexed){push(ctx, out, k, s, s + w), s + w};
}

static int is_ident(char c)
{
    return is_alpha(c) || is_digit(c) || c == '_';
}

/* Whether src[s..e), a run of identifier bytes, reads as dice: a 'd'
 * alone (before "%", "{" or "("), or followed by the number of sides
 * ("d6", "d20kh1"), or Fudge dice ("dF"). A 'd' and other letters is a
 * name ("dc", "dex", "deed"): a die has its sides right after the 'd'. */
static int reads_as_dice(const char *src, size_t s, size_t e)
{
    if (lower(src[s]) != 'd')
        return 0;
    return e == s + 1 || is_digit(src[s + 1]) || (lower(src[s + 1]) == 'f' && e == s + 2);
}

/*
 * An identifier at s (lexing with names): [s, *end) is one T_IDENT token
 * (*made 1), or 0 when the run there is glued to what comes before it, is
 * a word kept whole or reads as dice: then it is lexed as it always was.
 */
static alea_status lex_ident(alea_ctx *ctx, const char *src, size_t len, size_t s,
                             alea__word_fn is_word, token_list *out, size_t *end, int *made)
{
    size_t e = s, letters;
    *made = 0;
    if (s > 0 && (is_ident(src[s - 1]) || strchr(")}]%!", src[s - 1])))
        return ALEA_OK;
    while (e < len && is_alpha(src[e]))
        e++;
    letters = e;
    while (e < len && is_ident(src[e]))
        e++;
    if ((letters == e && keeps_whole(src, s, e, is_word, 1)) || reads_as_dice(src, s, e))
        return ALEA_OK;
    *made = 1;
    *end = e;
    return push(ctx, out, T_IDENT, s, e);
}

/* The tokens of src, with identifiers (names: see lex_ident) or without;
 * *idents counts the T_IDENT tokens made, *lets the words "let". */
static alea_status lex_all(alea_ctx *ctx, const char *src, size_t len, alea__word_fn is_word,
                           int names, token_list *out, size_t *idents, size_t *lets)
{
    size_t i = 0;
    alea_status st;
    out->v = NULL;
    out->n = out->cap = 0;
    out->comment_start = out->comment_end = 0;
    *idents = *lets = 0;
    while (i < len) {
        char c = src[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            i++;
            continue;
        }
        if (is_digit(c)) {
            lexed r = lex_number(ctx, src, len, i, out);
            if (r.st != ALEA_OK)
                return r.st;
            i = r.end;
            continue;
        }
        if (is_alpha(c)) {
            size_t s = i;
            int made = 0;
            if (names && (st = lex_ident(ctx, src, len, s, is_word, out, &i, &made)) != ALEA_OK)
                return st;
            if (made) {
                (*idents)++;
                continue;
            }
            while (i < len && is_alpha(src[i]))
                i++;
            if ((st = lex_word(ctx, src, s, i, is_word, out)) != ALEA_OK)
                return st;
            if (out->v[out->n - 1].kind == T_NAME && word_eq(src + s, i - s, "let"))
                (*lets)++;
            continue;
        }
        char n1 = i + 1 < len ? src[i + 1] : '\0';
        if (c == '/' && n1 == '/' && alea__dialects[ctx->dialect].slash_slash) {
            if ((st = push(ctx, out, T_SLASHSLASH, i, i + 2)) != ALEA_OK)
                return st;
            i += 2;
            continue;
        }
        lexed r;
        if (c == '#' || (c == '/' && (n1 == '/' || n1 == '*')))
            r = lex_comment(ctx, src, len, i, c, n1, out);
        else if (c == '[')
            r = lex_label(ctx, src, len, i, out);
        else
            r = lex_operator(ctx, src, len, i, c, n1, out);
        if (r.st != ALEA_OK)
            return r.st;
        i = r.end;
    }
    return push(ctx, out, T_EOF, len, len);
}

alea_status alea__lex(alea_ctx *ctx, const char *src, size_t len, alea__word_fn is_word,
                      token_list *out)
{
    size_t idents, lets;
    if (!alea__dialects[ctx->dialect].names)
        return lex_all(ctx, src, len, is_word, 0, out, &idents, &lets);
    /* With names where the text binds one; else as before names, so that
     * "2d6 fire" and "1d20 + foo" read and fail as they always did. */
    alea_status st = lex_all(ctx, src, len, is_word, 1, out, &idents, &lets);
    if (lets > 0 || (st == ALEA_OK && idents == 0) || (st != ALEA_OK && st != ALEA_ERR_SYNTAX))
        return st; /* out of memory is never lexed away */
    alea__mem_free(ctx, out->v, alea__mul_size(out->cap, sizeof(token)));
    return lex_all(ctx, src, len, is_word, 0, out, &idents, &lets);
}

alea_status alea__lex_names(alea_ctx *ctx, const char *src, size_t len, alea__word_fn is_word,
                            token_list *out)
{
    size_t idents, lets;
    return lex_all(ctx, src, len, is_word, alea__dialects[ctx->dialect].names, out, &idents,
                   &lets);
}
