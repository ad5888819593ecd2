/*
 * parse_text.c -- the text around an expression: alea__parse, the entry
 * point. A text is read as an expression (alea__p_program, parse_call.c), then
 * again without the words that follow it ("2d6 fire damage", "1d20 adv"):
 * a description, advantage read as the mechanic, a repeat refused with its
 * spelling; the hints of a repeat written as Foundry VTT's "x", and of a
 * text that the other tools' dialects read otherwise (dialect.h).
 */
#include "parser.h"
#include "mech.h"

#include <ctype.h>
#include <stdio.h>

/* What a reading of a prefix is given, and finds: the parser's fields of
 * the same names (parser.h). */
typedef struct reading {
    int adv;
    size_t adv_at;
    uint32_t d20s;
    size_t d20_at;
    uint8_t has_extra;
} reading;

/* "4d6kh3x6": an explosion written as Foundry VTT's "x" with a face ends
 * the expression, where a repeat was likely meant. */
static void repeat_hint(parser *p, const token_list *toks)
{
    if (toks->n < 4)
        return;
    const token *x = &toks->v[toks->n - 3], *num = x + 1;
    if (x->kind != T_X || num->kind != T_NUM || x[-1].end != x->start ||
        num->start != x->end)
        return;
    int el = (int)(x->start > 60 ? 60 : x->start);
    alea__p_hint(p, "'%.*s' explodes each die that shows %lld (Foundry VTT's x); did you mean "
                    "%lld x %.*s, to roll it %lld times?",
                 (int)(num->end - x->start), p->src + x->start, (long long)num->num,
                 (long long)num->num, el, p->src, (long long)num->num);
}

/* The lexer's "unknown name 'sometimes' at byte 10" for a word in the
 * call of a mechanic that takes words (dd(6, 14, sometimes)) also says what
 * the call takes: the lexer reads the whole text before the parser knows
 * the call. toks: the tokens lexed before the word. */
static alea_status word_in_call(alea_ctx *ctx, const char *src, const token_list *toks,
                                alea_status st)
{
    size_t s = ctx->err_start, e = ctx->err_end;
    if (st != ALEA_ERR_SYNTAX || e <= s || strncmp(ctx->errmsg, "unknown name '", 14) != 0)
        return st;
    int depth = 0; /* the innermost '(' still open before the word */
    size_t i = toks->n;
    while (i-- > 0 && !(toks->v[i].kind == T_LPAREN && depth-- == 0))
        depth += toks->v[i].kind == T_RPAREN;
    if (i == SIZE_MAX || i == 0 || toks->v[i - 1].kind != T_NAME)
        return st;
    const token *c = &toks->v[i - 1];
    for (const alea__mech *const *m = ctx->lang->mechs; *m; m++) {
        const char *name = (*m)->name;
        size_t n = name ? strlen(name) : 0;
        if (!(*m)->takes || n != c->end - c->start)
            continue;
        size_t k = 0;
        while (k < n && tolower((unsigned char)src[c->start + k]) == name[k])
            k++;
        if (k < n)
            continue;
        char msg[sizeof ctx->errmsg];
        memcpy(msg, ctx->errmsg, sizeof msg);
        return alea__error(ctx, ALEA_ERR_SYNTAX, s, e, "%s: %s() takes %s", msg, name,
                           (*m)->takes);
    }
    return st;
}

/* Parses the first len bytes of e->src (alea__parse, below). */
static alea_status parse_prefix(alea_ctx *ctx, alea_expr *e, size_t len, reading *r)
{
    alea__arena *arena = &e->arena;
    const char *src = e->src;
    const node **root = &e->root;
    e->hint = NULL;
    token_list toks;
    alea_status st = e->nparams ? alea__lex_names(ctx, src, len, ctx->lang->is_word, &toks)
                                : alea__lex(ctx, src, len, ctx->lang->is_word, &toks);
    st = word_in_call(ctx, src, &toks, st);
    if (st == ALEA_OK && toks.comment_end > toks.comment_start) {
        e->comment = src + toks.comment_start;
        e->comment_len = toks.comment_end - toks.comment_start;
    }
    if (st == ALEA_OK) {
        parser p;
        memset(&p, 0, sizeof p);
        p.ctx = ctx;
        p.arena = arena;
        p.src = src;
        p.len = len;
        p.t = toks.v;
        p.max_depth = ctx->limits[ALEA_LIMIT_DEPTH];
        p.max_nodes = ctx->limits[ALEA_LIMIT_NODES];
        p.dl = &alea__dialects[ctx->dialect];
        p.adv = r ? r->adv : 0;
        p.adv_at = r ? r->adv_at : 0;
        for (uint32_t i = 0; i < e->nparams && st == ALEA_OK; i++) { /* slots 0.. */
            uint32_t slot;
            st = alea__p_scope_push(&p, e->params[i].name, e->params[i].len, &slot);
        }
        p.nparams = e->nparams;
        p.print_only = e->print_only;
        if (st != ALEA_OK) {
            /* out of memory bringing a parameter into scope */
        } else if (toks.n == 1) {
            st = alea__error(ctx, ALEA_ERR_SYNTAX, 0, 0,
                             "empty expression: write dice such as 1d20 or 4d6kh3");
        } else {
            st = alea__p_program(&p, root);
            if (st == ALEA_OK && p.dl->trunc_total) /* d20: the total, truncated */
                st = alea__p_round_last(&p, *root, OP_DIVTRUNC, (*root)->start, (*root)->end,
                                        root);
            if (st == ALEA_OK && !at(&p, T_EOF)) {
                const token *t = peek(&p);
                if (t->kind == T_RPAREN)
                    st = alea__error(ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                     "unmatched ')' at byte %u", (unsigned)t->start);
                else if (t->kind == T_NAME && p.pos > 0 && p.t[p.pos - 1].end == t->start &&
                         (src[t->start] == 'd' || src[t->start] == 'D'))
                    /* "4d6dd1": the letters read as a word, Double Down's "dd" */
                    st = alea__error(ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                     "'%.*s' right after dice at byte %u is a word of the "
                                     "language, not a modifier: to drop dice write dl or dh, "
                                     "as in 4d6dl1",
                                     (int)(t->end - t->start), src + t->start,
                                     (unsigned)t->start);
                else
                    st = err_at(&p, t, "an operator or the end of the expression");
            }
            if (st == ALEA_OK && p.dl->hints && (*root)->kind != N_REPEAT)
                repeat_hint(&p, &toks);
            e->nodes = p.nodes;
            e->nslots = p.nslots;
            e->params_used = p.params_used;
            e->has_labels = p.has_labels;
            if (r) {
                r->d20s = p.d20s;
                r->d20_at = p.d20_at;
                r->has_extra = p.has_extra;
            }
            if (st == ALEA_OK && p.hint[0]) {
                size_t n = strlen(p.hint) + 1;
                char *h = alea__arena_alloc(arena, n);
                if (!h)
                    st = alea__nomem(ctx);
                else
                    e->hint = memcpy(h, p.hint, n);
            }
        }
    }
    alea__mem_free(ctx, toks.v, alea__mul_size(toks.cap, sizeof(token)));
    return st;
}

static int is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Whether [a, b) of src is the word w (lower case), without case. */
static int word_is(const char *src, size_t a, size_t b, const char *w)
{
    size_t n = strlen(w);
    if (b - a != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = src[a + i];
        if ((c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) != w[i])
            return 0;
    }
    return 1;
}

/* Whether [a, b) of src is digits only (at least one). */
static int digits(const char *src, size_t a, size_t b)
{
    if (a >= b)
        return 0;
    for (size_t i = a; i < b; i++)
        if (src[i] < '0' || src[i] > '9')
            return 0;
    return 1;
}

/*
 * Words after an expression that name a mechanic (docs/language.md, "Words
 * after a roll"): advantage and disadvantage are read as the mechanic; a
 * repeat is refused with the spelling that does it.
 */
static const struct {
    const char *word;
    int adv; /* +1 advantage, -1 disadvantage */
} adv_words[] = {
    {"adv", 1}, {"advantage", 1}, {"dis", -1}, {"disadv", -1}, {"disadvantage", -1},
};

/* What the words after an expression say: [start, end) of src, read once. */
typedef struct trailer {
    int adv;                  /* +1, -1, or 0 */
    size_t adv_start, adv_end; /* the first word of advantage */
    size_t comment;           /* where the description starts; end: none */
} trailer;

/* The next word of src from *at before end: [*a, *b); 0 when none. */
static int next_word(const char *src, size_t *at, size_t end, size_t *a, size_t *b)
{
    size_t i = *at;
    while (i < end && is_blank(src[i]))
        i++;
    if (i == end)
        return 0;
    *a = i;
    while (i < end && !is_blank(src[i]))
        i++;
    *b = *at = i;
    return 1;
}

/*
 * Reads the words [w, end) after the expression src[0, pre): advantage
 * words anywhere, a description from the first other word; a repeat
 * ("x6", "x 6", "6x", "6 times", "twice") or advantage and disadvantage
 * together is an error. One pass over the words.
 */
static alea_status read_trailer(alea_ctx *ctx, const char *src, size_t pre, size_t w,
                                size_t end, trailer *t)
{
    t->adv = 0;
    t->adv_start = t->adv_end = 0;
    t->comment = end;
    size_t at = w, a, b;
    int slashes = !alea__dialects[ctx->dialect].slash_slash; /* "//" starts a comment */
    while (next_word(src, &at, end, &a, &b)) {
        if (src[a] == '#' || (slashes && b - a >= 2 && src[a] == '/' && src[a + 1] == '/')) {
            /* a comment: its words are not read */
            if (t->comment == end) {
                a += src[a] == '#' ? 1 : 2;
                while (a < end && is_blank(src[a]))
                    a++;
                t->comment = a;
            }
            break;
        }
        const char *n = NULL; /* the count of a repeat, nl bytes */
        size_t nl = 0, rb = b; /* the repeat's words end at rb */
        size_t look = at, la = 0, lb = 0;
        int next = next_word(src, &look, end, &la, &lb);
        if ((src[a] == 'x' || src[a] == 'X') && digits(src, a + 1, b)) {
            n = src + a + 1, nl = b - a - 1; /* "x6" */
        } else if (digits(src, a, b - 1) && (src[b - 1] == 'x' || src[b - 1] == 'X')) {
            n = src + a, nl = b - a - 1; /* "6x" */
        } else if (word_is(src, a, b, "x") && next && digits(src, la, lb)) {
            n = src + la, nl = lb - la, rb = lb; /* "x 6" */
        } else if (digits(src, a, b) && next &&
                   (word_is(src, la, lb, "times") || word_is(src, la, lb, "time"))) {
            n = src + a, nl = b - a, rb = lb; /* "6 times" */
        } else if (word_is(src, a, b, "twice")) {
            n = "2", nl = 1;
        }
        if (n) {
            int el = (int)(pre > 60 ? 60 : pre);
            nl = nl > 20 ? 20 : nl;
            return alea__error(ctx, ALEA_ERR_SYNTAX, a, rb,
                               "'%.*s' after the expression (byte %zu) does not repeat it: "
                               "to roll it %.*s times, write %.*s x %.*s%s",
                               (int)(rb - a > 40 ? 40 : rb - a), src + a, a, (int)nl, n,
                               (int)nl, n, el, src, el < (int)pre ? "..." : "");
        }
        if (t->comment == end && strchr("+-*/^%<>=()[]{},", src[a]))
            return alea__error(ctx, ALEA_ERR_SYNTAX, a, end,
                               "'%.*s' at byte %zu follows the words after the expression: "
                               "put the words last, as in 1d20 + 5 adv",
                               (int)(end - a > 40 ? 40 : end - a), src + a, a);
        int adv = 0;
        for (size_t i = 0; i < sizeof adv_words / sizeof adv_words[0]; i++)
            if (word_is(src, a, b, adv_words[i].word))
                adv = adv_words[i].adv;
        if (adv && t->adv && adv != t->adv)
            return alea__error(ctx, ALEA_ERR_SYNTAX, a, b,
                               "'%.*s' at byte %zu and '%.*s' at byte %zu: advantage and "
                               "disadvantage together (in D&D they cancel: write neither, "
                               "and one d20 is rolled)",
                               (int)(t->adv_end - t->adv_start), src + t->adv_start,
                               t->adv_start, (int)(b - a), src + a, a);
        if (adv && !t->adv) {
            t->adv = adv;
            t->adv_start = a;
            t->adv_end = b;
        }
        if (!adv && t->comment == end)
            t->comment = a;
    }
    return ALEA_OK;
}

/*
 * Advantage read from a word: the expression src[0, pre) read again with
 * one more d20 (or the tool's 2d20kh1) on its single d20. r holds what the
 * first reading found.
 */
static alea_status read_advantage(alea_ctx *ctx, alea_expr *e, size_t pre, const trailer *t,
                                  reading *r)
{
    const char *src = e->src;
    const char *what = t->adv > 0 ? "advantage" : "disadvantage";
    int el = (int)(pre > 60 ? 60 : pre);
    if (r->d20s != 1 || r->has_extra) {
        if (r->has_extra)
            return alea__error(ctx, ALEA_ERR_SYNTAX, t->adv_start, t->adv_end,
                               "'%.*s' (%s) at byte %zu: the expression already has extra "
                               "dice; write one or the other",
                               (int)(t->adv_end - t->adv_start), src + t->adv_start, what,
                               t->adv_start);
        if (r->d20s == 0)
            return alea__error(ctx, ALEA_ERR_SYNTAX, t->adv_start, t->adv_end,
                               "'%.*s' (%s) at byte %zu rolls a d20 twice and keeps the "
                               "%s, but '%.*s' has no single d20; for the %s of two rolls "
                               "of it, write %.*s %c1d",
                               (int)(t->adv_end - t->adv_start), src + t->adv_start, what,
                               t->adv_start, t->adv > 0 ? "higher" : "lower", el, src,
                               t->adv > 0 ? "better" : "worse", el, src,
                               t->adv > 0 ? '+' : '-');
        return alea__error(ctx, ALEA_ERR_SYNTAX, t->adv_start, t->adv_end,
                           "'%.*s' (%s) at byte %zu: '%.*s' has %u single d20s; write it on "
                           "the one it is for, as in d20 %c1d",
                           (int)(t->adv_end - t->adv_start), src + t->adv_start, what,
                           t->adv_start, el, src, (unsigned)r->d20s, t->adv > 0 ? '+' : '-');
    }
    r->adv = t->adv;
    r->adv_at = r->d20_at;
    e->comment = NULL;
    e->comment_len = 0;
    return parse_prefix(ctx, e, pre, r);
}

/* Whether the n letters at s are a word of the language in ctx's dialect
 * (with names: let, in, and, or, not too), which never starts a
 * description: "2d6 and more" is an error, not "2d6" described. A word
 * only a mechanic's arguments take does ("2d6 critical hit"). */
static int language_word(const alea_ctx *ctx, const char *s, size_t n)
{
    return alea__parse_is_word_outside(ctx->lang, s, n) ||
           (alea__dialects[ctx->dialect].names && alea__lex_names_word(s, n));
}

/*
 * Words after a whole expression, "2d6 fire damage", "1d20 adv": the
 * syntax error falls in a word that follows a space, is not a word of the
 * language, and what comes before that word compiles. Words that name a
 * mechanic are read or refused (read_trailer); the others describe the
 * roll, as a comment would. Costs three more passes over the source at
 * most (the prefix, another prefix, then the advantage or the error again).
 */
static alea_status parse_text(alea_ctx *ctx, alea_expr *e)
{
    e->words_at = e->len;
    alea_status st = parse_prefix(ctx, e, e->len, NULL);
    size_t w = ctx->err_start;
    const char *src = e->src;
    if (st != ALEA_ERR_SYNTAX || w >= e->len || !is_letter(src[w]))
        return st;
    size_t wend = w;
    while (w > 0 && is_letter(src[w - 1]))
        w--;
    while (wend < e->len && is_letter(src[wend]))
        wend++;
    /* "2d6 +1 INJURY": a word of the language is not a description */
    if (w == 0 || !(src[w - 1] == ' ' || src[w - 1] == '\t') ||
        language_word(ctx, src + w, wend - w))
        return st;
    /* "4d6kh3 6 times": the count before the word */
    if (word_is(src, w, wend, "times") || word_is(src, w, wend, "time")) {
        size_t k = w;
        while (k > 0 && (src[k - 1] == ' ' || src[k - 1] == '\t'))
            k--;
        size_t ds = k;
        while (ds > 0 && src[ds - 1] >= '0' && src[ds - 1] <= '9')
            ds--;
        if (ds < k && ds > 0 && (src[ds - 1] == ' ' || src[ds - 1] == '\t'))
            w = ds;
    }
    /* "1d20+5 Roll for Initiative": the error is in "for", and "Roll" read
     * as modifier letters; the description starts at the first of the
     * words, each after a space, that run up to the error's. */
    size_t w0 = w; /* tried second */
    for (size_t k = w - 1;;) {
        while (k > 0 && (src[k] == ' ' || src[k] == '\t'))
            k--;
        size_t ws = k + 1;
        while (ws > 0 && is_letter(src[ws - 1]))
            ws--;
        if (ws > k || ws == 0 || !(src[ws - 1] == ' ' || src[ws - 1] == '\t') ||
            language_word(ctx, src + ws, k + 1 - ws))
            break;
        w = ws;
        k = ws - 1;
    }
    size_t end = e->len; /* the words, trimmed */
    while (end > w && is_blank(src[end - 1]))
        end--;
    if (alea__lex_text(ctx, src, w, end, "a description") != ALEA_OK)
        return parse_prefix(ctx, e, e->len, NULL); /* its own error, again */
    e->comment = NULL;
    e->comment_len = 0;
    reading r;
    memset(&r, 0, sizeof r);
    alea_status again = parse_prefix(ctx, e, w, &r);
    if (again != ALEA_OK && again != ALEA_ERR_SYNTAX)
        return again; /* out of memory: no other reading */
    if (again != ALEA_OK) {
        e->comment = NULL;
        e->comment_len = 0;
        again = w == w0 ? again : parse_prefix(ctx, e, w0, &r);
        if (again != ALEA_OK && again != ALEA_ERR_SYNTAX)
            return again;
        if (again != ALEA_OK) {
            /* an error inside the words before the description is the
             * expression's own: "d6xo1<6k{1} note" */
            size_t body = w0;
            while (body > 0 && (src[body - 1] == ' ' || src[body - 1] == '\t'))
                body--;
            if (ctx->err_end <= body)
                return again;
            return parse_prefix(ctx, e, e->len, NULL); /* its own error, again */
        }
        w = w0;
    }
    size_t pre = w; /* the expression, trimmed */
    while (pre > 0 && (src[pre - 1] == ' ' || src[pre - 1] == '\t'))
        pre--;
    trailer t;
    if ((st = read_trailer(ctx, src, pre, w, end, &t)) != ALEA_OK)
        return st;
    const char *comment = e->comment; /* a comment inside the expression */
    size_t comment_len = e->comment_len;
    if (t.adv && (st = read_advantage(ctx, e, pre, &t, &r)) != ALEA_OK)
        return st;
    alea__clear_error(ctx); /* the first pass's */
    if (comment) { /* the first comment stays the description */
        e->comment = comment;
        e->comment_len = comment_len;
    } else if (t.comment < end) {
        e->comment = src + t.comment;
        e->comment_len = end - t.comment;
    }
    e->words_at = pre;
    /* a tool that reads the word as the roll's description (Roll20) is
     * named in its own dialect, and in alea's (whose hints name the tools
     * that read a text otherwise) */
    const alea__dialect *describes = NULL;
    for (int d = 0; d < ALEA_DIALECT__COUNT && !describes; d++)
        if (alea__dialects[d].adv_words_describe &&
            (d == (int)ctx->dialect || alea__dialects[ctx->dialect].hints))
            describes = &alea__dialects[d];
    if (t.adv && describes && !e->hint) {
        char h[160];
        int n = snprintf(h, sizeof h, "'%.*s' reads as %s; %s reads words after a roll as "
                                       "its description, and rolls one d20",
                         (int)(t.adv_end - t.adv_start > 40 ? 40 : t.adv_end - t.adv_start),
                         src + t.adv_start, t.adv > 0 ? "advantage" : "disadvantage",
                         describes->tool);
        char *copy = n > 0 ? alea__arena_alloc(&e->arena, (size_t)n + 1) : NULL;
        if (!copy)
            return alea__nomem(ctx);
        e->hint = memcpy(copy, h, (size_t)n + 1);
    }
    return ALEA_OK;
}

/* ---- other tools' readings ---------------------------------------------------- */

/* A tool_reading's text in hints: at most this many bytes of it, then "...". */
#define READING_SHOWN 60

/* One dialect's tool_reading of the text: its canonical text (allocated, size
 * bytes; NULL when the dialect refuses the text), and what the printer
 * said alea's own dialect reads otherwise in it. */
typedef struct tool_reading {
    char *text;
    size_t size;
    const char *foreign;
} tool_reading;

static alea_status read_as(alea_ctx *ctx, const alea_expr *e, tool_reading *r)
{
    alea__out o;
    alea__out_init(&o, NULL, 0);
    alea__expr_print(&o, e);
    size_t n = alea__out_finish(&o) + 1;
    if (!(r->text = alea__mem_alloc(ctx, n)))
        return alea__nomem(ctx);
    r->size = n;
    alea__out_init(&o, r->text, n);
    alea__expr_print(&o, e);
    alea__out_finish(&o);
    r->foreign = o.foreign;
    return ALEA_OK;
}

/* e's text in dialect d, into *r (r->text NULL when d refuses it, or its
 * limits do: no tool_reading to name); only running out of memory is an error.
 * The context's error state is left as it was. */
static alea_status read_in(alea_ctx *ctx, const alea_expr *e, uint8_t d, size_t len,
                           tool_reading *r)
{
    uint8_t own = ctx->dialect;
    alea_status saved = ctx->status;
    size_t es = ctx->err_start, ee = ctx->err_end;
    int limit_hit = ctx->mem_limit_hit;
    char msg[sizeof ctx->errmsg];
    memcpy(msg, ctx->errmsg, sizeof msg);
    alea_expr t;
    memset(&t, 0, sizeof t);
    t.ctx = ctx;
    alea__arena_init(&t.arena, ctx);
    t.src = e->src;
    t.len = len;
    t.print_only = 1; /* a reading is printed, never rolled */
    ctx->dialect = d;
    alea_status st = parse_text(ctx, &t);
    ctx->dialect = own;
    if (st == ALEA_OK)
        st = read_as(ctx, &t, r);
    alea__arena_free(&t.arena);
    if (st == ALEA_ERR_NOMEM)
        return st;
    ctx->status = saved;
    ctx->err_start = es;
    ctx->err_end = ee;
    ctx->mem_limit_hit = limit_hit;
    memcpy(ctx->errmsg, msg, sizeof msg);
    return ALEA_OK;
}

/* Whether dialect d's tool_reading r differs from alea's own, a. */
static int reads_otherwise(const tool_reading *a, const tool_reading *r)
{
    return r->text && (r->foreign || strcmp(a->text, r->text) != 0);
}

static void out_reading(alea__out *o, const tool_reading *r)
{
    size_t n = strlen(r->text), cut = n;
    if (n > READING_SHOWN) /* at a character's start: a label or comment may be UTF-8 */
        for (cut = READING_SHOWN; cut > 0 && ((unsigned char)r->text[cut] & 0xC0) == 0x80;)
            cut--;
    alea__out_mem(o, r->text, cut);
    if (cut < n)
        alea__out_str(o, "...");
    if (r->foreign) {
        alea__out_str(o, ", with ");
        alea__out_str(o, r->foreign);
    }
}

/*
 * The hint of a text that other tools read otherwise, derived from the
 * table of dialects (dialect.h): e's text is read in every other dialect
 * of the table, and each that reads it as another tree is named with its
 * tool_reading, the tools that agree together ("Roll20 and Foundry VTT read it
 * as ..."), after the parser's own hint; a tool that hint names already is
 * not named again. A new row of the table brings its hints. Costs a parse
 * of the text per row.
 */
static alea_status hint_dialects(alea_ctx *ctx, alea_expr *e)
{
    tool_reading rd[ALEA_DIALECT__COUNT];
    memset(rd, 0, sizeof rd);
    /* words after the expression ("1d20 adv") are read alike in every
     * dialect, but printed in each one's style (1d20 +1d, 2d20kh1): the
     * readings compared are the expression's before them */
    size_t len = e->words_at;
    alea_status st = len < e->len ? read_in(ctx, e, ctx->dialect, len, &rd[ctx->dialect])
                                  : read_as(ctx, e, &rd[ctx->dialect]);
    if (st == ALEA_OK && !rd[ctx->dialect].text)
        return ALEA_OK; /* the expression alone is refused: nothing to compare */
    const tool_reading *own = &rd[ctx->dialect];
    int any = 0;
    for (int d = 0; st == ALEA_OK && d < ALEA_DIALECT__COUNT; d++) {
        if (d == (int)ctx->dialect || alea__dialects[d].hints)
            continue;
        if ((st = read_in(ctx, e, (uint8_t)d, len, &rd[d])) == ALEA_OK &&
            reads_otherwise(own, &rd[d]) &&
            !(e->hint && strstr(e->hint, alea__dialects[d].tool)))
            any = 1;
        else if (st == ALEA_OK && rd[d].text) { /* the same tool_reading: nothing to say */
            alea__mem_free(ctx, rd[d].text, rd[d].size);
            rd[d].text = NULL;
        }
    }
    if (st == ALEA_OK && any) {
        /* Twice: the length, then the text in the arena. */
        char *buf = NULL;
        size_t cap = 0;
        for (int pass = 0; pass < 2 && st == ALEA_OK; pass++) {
            alea__out o;
            alea__out_init(&o, buf, cap);
            if (e->hint) {
                alea__out_str(&o, e->hint);
                alea__out_str(&o, "; ");
            } else {
                alea__out_str(&o, "alea reads this as ");
                out_reading(&o, own);
                alea__out_str(&o, "; ");
            }
            int first = 1, said[ALEA_DIALECT__COUNT] = {0};
            said[ctx->dialect] = 1;
            for (int d = 0; d < ALEA_DIALECT__COUNT; d++) {
                if (said[d] || !rd[d].text)
                    continue;
                int same[ALEA_DIALECT__COUNT], n = 0;
                for (int k = d; k < ALEA_DIALECT__COUNT; k++)
                    if (!said[k] && rd[k].text && rd[k].foreign == rd[d].foreign &&
                        strcmp(rd[k].text, rd[d].text) == 0) {
                        same[n++] = k;
                        said[k] = 1;
                    }
                if (!first)
                    alea__out_str(&o, "; ");
                first = 0;
                for (int i = 0; i < n; i++) {
                    if (i)
                        alea__out_str(&o, i + 1 < n ? ", " : " and ");
                    alea__out_str(&o, alea__dialects[same[i]].tool);
                }
                alea__out_str(&o, n > 1 ? " read it as " : " reads it as ");
                out_reading(&o, &rd[d]);
                alea__out_str(&o, " (--dialect ");
                for (int i = 0; i < n; i++) {
                    if (i)
                        alea__out_str(&o, ", ");
                    alea__out_str(&o, alea__dialects[same[i]].name);
                }
                alea__out_char(&o, ')');
            }
            size_t n = alea__out_finish(&o);
            if (pass == 0 && !(buf = alea__arena_alloc(&e->arena, cap = n + 1)))
                st = alea__nomem(ctx);
            else if (pass == 1)
                e->hint = buf;
        }
    }
    for (int d = 0; d < ALEA_DIALECT__COUNT; d++)
        if (rd[d].text)
            alea__mem_free(ctx, rd[d].text, rd[d].size);
    return st;
}

alea_status alea__parse(alea_ctx *ctx, alea_expr *e)
{
    alea_status st = parse_text(ctx, e);
    if (st == ALEA_OK && alea__dialects[ctx->dialect].hints)
        st = hint_dialects(ctx, e);
    return st;
}
