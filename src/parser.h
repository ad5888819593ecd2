/*
 * parser.h -- the parser's own state and token helpers, shared by its files
 * (and by nothing else: the mechanics use parse.h):
 *   parse.c       expressions: products, signs, comparisons, names in scope
 *   parse_extra.c sums and the extra dice in them (bonus dice, "+1B", labels)
 *   parse_text.c  the entry: the words after an expression, other dialects'
 *                 readings
 *   parse_dice.c  dice terms: a die's sides, the loop over the modifiers, the
 *                 term's checks; conditions
 *   parse_mods.c  the modifiers, a row each (mods.h)
 *   parse_call.c  calls: the built-ins, the mechanics' table, their interface
 */
#ifndef ALEA_PARSER_H
#define ALEA_PARSER_H

#include <string.h>

#include "dialect.h"
#include "lex.h"
#include "parse.h"

/* A name in scope ("let x = ... in ..."), innermost first, in the arena:
 * the slot (env.h) its uses read. */
typedef struct alea__scope {
    const char *name; /* within the source */
    uint32_t len;
    uint32_t slot;
    const struct alea__scope *up; /* the enclosing names, or NULL */
} alea__scope;

struct alea__parser {
    alea_ctx *ctx;
    const alea__dialect *dl; /* the context's dialect */
    char hint[192];          /* the first hint (alea__p_hint), or "" */
    alea__arena *arena;
    const char *src;
    size_t len;
    const token *t; /* token array, ends with T_EOF */
    size_t pos;
    int64_t depth, max_depth;
    size_t sum_start; /* where the sum being parsed starts, for hints */
    uint32_t nodes;
    uint8_t has_labels; /* a term was given an inline label */
    uint8_t print_only; /* the expression's print_only (ast.h) */
    int64_t max_nodes;
    /* Advantage written as a word after the expression ("1d20 adv",
     * alea__parse): the single d20 that starts at byte adv_at gets adv
     * (+1 or -1) more dice. What a reading found, for the next one: the
     * single d20s, where the first starts, whether extra dice were
     * written. */
    int adv;
    size_t adv_at;
    uint32_t d20s;
    size_t d20_at;
    uint8_t has_extra;
    /* The names in scope where the parser is (innermost first, or NULL), and
     * the slots given so far: each binding gets a slot of its own, so an
     * expression has nslots of them (alea_expr.nslots). */
    const alea__scope *scope;
    uint32_t nslots;
    /* The expression's parameters (params.c): slots 0 to nparams - 1, and
     * those a use reads, a bit each (alea_expr_param_used). */
    uint32_t nparams;
    uint64_t params_used;
};
typedef struct alea__parser parser;

/* ---- helpers ------------------------------------------------------------- */

static inline const token *peek(const parser *p)
{
    return &p->t[p->pos];
}

static inline const token *peek_at(const parser *p, size_t k)
{
    size_t i = p->pos;
    while (k-- > 0 && p->t[i].kind != T_EOF)
        i++;
    return &p->t[i];
}

static inline int at(const parser *p, tok_kind k)
{
    return p->t[p->pos].kind == k;
}

static inline const token *advance(parser *p)
{
    const token *t = &p->t[p->pos];
    if (t->kind != T_EOF)
        p->pos++;
    return t;
}

static inline int accept(parser *p, tok_kind k)
{
    if (at(p, k)) {
        advance(p);
        return 1;
    }
    return 0;
}

/* "unexpected X" error at token t: message names what was expected. */
static inline alea_status err_at(parser *p, const token *t, const char *expected)
{
    if (t->kind == T_EOF)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "expected %s at byte %u, found the end of the expression",
                           expected, (unsigned)t->start);
    int n = (int)(t->end - t->start);
    if (n > 24)
        n = 24;
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                       "expected %s at byte %u, found '%.*s'", expected,
                       (unsigned)t->start, n, p->src + t->start);
}

static inline alea_status expect(parser *p, tok_kind k, const char *what)
{
    if (accept(p, k))
        return ALEA_OK;
    return err_at(p, peek(p), what);
}

static inline alea_status enter(parser *p, const token *t)
{
    if (++p->depth > p->max_depth)
        return alea__error(p->ctx, ALEA_ERR_LIMIT, t->start, t->end,
                           "expression nested too deeply at byte %u (depth limit is %lld)",
                           (unsigned)t->start, (long long)p->max_depth);
    return ALEA_OK;
}

static inline void leave(parser *p)
{
    p->depth--;
}

static inline alea_status count_nodes(parser *p, uint32_t k, size_t start, size_t end)
{
    if ((int64_t)p->nodes + k > p->max_nodes)
        return alea__error(p->ctx, ALEA_ERR_LIMIT, start, end,
                           "too many terms at byte %zu (node limit is %lld)",
                           start, (long long)p->max_nodes);
    p->nodes += k;
    return ALEA_OK;
}

static inline void *p_alloc(parser *p, size_t size)
{
    return alea__arena_alloc(p->arena, size);
}

static inline alea_status new_node(parser *p, node_kind kind, size_t start, size_t end,
                            node **out)
{
    *out = NULL;
    alea_status st = count_nodes(p, 1, start, end);
    if (st != ALEA_OK)
        return st;
    node *n = p_alloc(p, sizeof *n);
    if (!n)
        return alea__nomem(p->ctx);
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)kind;
    n->start = (uint32_t)start;
    n->end = (uint32_t)end;
    *out = n;
    return ALEA_OK;
}

/* A growable array of node pointers and ops, in the arena. */
typedef struct chainbuf {
    const node **items;
    uint8_t *ops;
    uint32_t n, cap;
} chainbuf;

static inline alea_status chain_push(parser *p, chainbuf *c, const node *item, uint8_t op)
{
    if (c->n == c->cap) {
        uint32_t ncap = c->cap ? c->cap * 2 : 4;
        const node **ni = p_alloc(p, ncap * sizeof *ni);
        uint8_t *no = p_alloc(p, ncap);
        if (!ni || !no)
            return alea__nomem(p->ctx);
        if (c->n) {
            memcpy(ni, c->items, c->n * sizeof *ni);
            memcpy(no, c->ops, c->n);
        }
        c->items = ni;
        c->ops = no;
        c->cap = ncap;
    }
    c->items[c->n] = item;
    c->ops[c->n] = op;
    c->n++;
    return ALEA_OK;
}


/* Records a hint about a likely mistake (alea_expr_hint); the first one
 * stays. */
ALEA__HIDDEN void alea__p_hint(parser *p, const char *fmt, ...) ALEA__PRINTF(2, 3);

/* Names (env.h): alea__p_scope_push brings name[0..len) into scope with a
 * new slot (*slot), until alea__p_scope_pop ends the innermost name;
 * alea__p_scope_find gives the slot of the innermost name so written (1),
 * or 0 when none is in scope. */
ALEA__HIDDEN alea_status alea__p_scope_push(parser *p, const char *name, uint32_t len,
                                            uint32_t *slot);
ALEA__HIDDEN void alea__p_scope_pop(parser *p);
ALEA__HIDDEN int alea__p_scope_find(const parser *p, const char *name, size_t len,
                                    uint32_t *slot);

/* Length of src[start, end) without trailing blanks, for hints. */
static inline size_t trimmed_len(const parser *p, size_t start, size_t end)
{
    while (end > start && (p->src[end - 1] == ' ' || p->src[end - 1] == '\t'))
        end--;
    return end - start;
}

/* The grammar's rules that the files call across (docs/grammar.md). */
ALEA__HIDDEN alea_status alea__p_expr(parser *p, const node **out);
ALEA__HIDDEN alea_status alea__p_dice_tail(parser *p, const node *count_expr, int64_t count,
                                           int implicit, size_t start, const node **out);
ALEA__HIDDEN alea_status alea__p_call(parser *p, const node **out);
/* product (parse.c) and sum (parse_extra.c, with the extra dice a sum
 * takes). */
ALEA__HIDDEN alea_status alea__p_product(parser *p, const node **out);
ALEA__HIDDEN alea_status alea__p_sum(parser *p, const node **out);
/* Wraps the items of a chain into one n-ary node of kind (N_SUM, N_PROD),
 * or returns the single item. */
ALEA__HIDDEN alea_status alea__p_finish_chain(parser *p, node_kind kind, chainbuf *c,
                                              const node **out);
/* A dice term just parsed (*out, when st is ALEA_OK): a single d20 counted
 * for advantage written as a word, and given its die (parse_extra.c). */
ALEA__HIDDEN alea_status alea__p_d20_seen(parser *p, alea_status st, const node **out);
/* a, with the "/" that ends it (the last operation of a product is the
 * dialect's "/") rounded by op instead, spanning [start, end): "floor(a /
 * b)", and d20's truncated total. Anything else is returned as it is. */
ALEA__HIDDEN alea_status alea__p_round_last(parser *p, const node *a, uint8_t op, size_t start,
                                            size_t end, const node **out);
/* cond = [ "=" | "<" | "<=" | ">" | ">=" ] signed, in the dialect's
 * meaning of "<" and ">" (what: the message's expected text). */
ALEA__HIDDEN alea_status alea__p_cond(parser *p, cond *c, const char *what);
/* The whole expression, a repeat "6 x 4d6kh3" or not; and the error for
 * "N x" found inside an expression (num: the count's token, 'x' next). */
ALEA__HIDDEN alea_status alea__p_program(parser *p, const node **out);
ALEA__HIDDEN alea_status alea__p_repeat_x(parser *p, const token *num);
/* Whether a token of kind k can start a die's sides (6, %, F, {). */
ALEA__HIDDEN int alea__p_starts_sides(tok_kind k);
/* Whether token t is the word w, matched without case. */
ALEA__HIDDEN int alea__p_is_word(const parser *p, const token *t, const char *w);

#endif /* ALEA_PARSER_H */
