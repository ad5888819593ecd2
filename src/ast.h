/*
 * ast.h -- the immutable tree that the parser builds and that both the roller
 * (roll.c) and the exact engine (exact.c) read. Neither evaluator sees tokens.
 *
 * Every node owns a byte span [start, end) of the source, for errors.
 * Nodes live in the expression's arena and are never modified after parsing.
 * Tree depth is bounded by the DEPTH limit (sums and products are n-ary, so a
 * long chain "1+1+...+1" is one node, not a deep tree), which bounds the
 * recursion of every evaluator.
 */
#ifndef ALEA_AST_H
#define ALEA_AST_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "pool.h"

typedef enum node_kind {
    N_NUM,   /* integer literal: u.num */
    N_DICE,  /* a dice pool: u.pool */
    N_NEG,   /* unary minus: u.un.a */
    N_SUM,   /* n-ary: items[0] op[1] items[1] ... with op OP_ADD / OP_SUB */
    N_PROD,  /* n-ary, left to right: op OP_MUL / OP_DIV / OP_DIVUP / OP_DIVNEAR */
    N_CMP,   /* u.bin.a <op> u.bin.b, value 1 or 0; op a cmp_op */
    N_MIN,   /* min(a, b) */
    N_MAX,   /* max(a, b) */
    N_ABS,   /* abs(a): u.un.a */
    N_BEST,  /* best(n, a): roll a n times, keep the highest: u.rep */
    N_WORST, /* worst(n, a): keep the lowest: u.rep */
    N_MECH,  /* a game mechanic's node (mech.h): u.mech */
    N_REPEAT, /* "6 x 4d6kh3", "repeat(4d6kh3, 6)": u.rep, the whole
                 expression only; op 1 when written "N x" */
    N_NAME,  /* a use of a bound name: u.name; the value its slot holds */
    N_BIND,  /* "let x = value in body": u.bind; value rolled once, bound
                to the slot of u.bind.name while body is evaluated */
    N_AND,   /* "a and b": 1 when both are true (not 0), else 0: u.bin */
    N_OR,    /* "a or b": 1 when either is true: u.bin */
    N_NOT,   /* "not a": 1 when a is 0, else 0: u.bin.a (u.bin.b NULL) */
    N__COUNT
} node_kind;

typedef enum arith_op {
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,    /* "/"  : rounds down (towards minus infinity) */
    OP_DIVUP,  /* "/^" : rounds up (towards plus infinity) */
    OP_DIVNEAR, /* "/~" : rounds to nearest, halves away from zero */
    OP_DIVTRUNC, /* "trunc(a / b)": rounds towards zero (d20's "/") */
    OP_DIVWHOLE, /* a real division that must be whole (rpg-dice-roller's
                    "/"): prints as "/", which it equals whenever it holds */
    OP_DIVHALFUP, /* "roundhalfup(a / b)": to nearest, halves towards plus
                     infinity (JavaScript's Math.round: Roll20, Foundry VTT) */
    OP_MOD,      /* "%" : the remainder of "/" rounded towards zero, the sign
                    of the dividend (as C and JavaScript) */
    OP_POW       /* "^", "**": a power, in a node of its own (two items) */
} arith_op;

/* N_BEST/N_WORST's op when the node was written as bonus dice ("expr +1d"). */
#define ALEA__BEST_AS_BONUS 1

typedef struct node {
    uint8_t kind; /* node_kind */
    uint8_t op;   /* cmp_op for N_CMP; for N_BEST/N_WORST ALEA__BEST_AS_BONUS
                     when written as bonus dice "expr +1d" */
    uint32_t start, end;
    /* An inline label after a term ("3d6 [fire]", "(2d6 + 3) [fire]"):
     * its text, within the expression's source, or NULL. */
    const char *label;
    uint32_t label_len;
    union {
        int64_t num;
        const pool *pool;
        struct {
            const struct node *a;
        } un;
        struct {
            const struct node *a, *b;
        } bin;
        struct {
            const struct node *const *items;
            const uint8_t *ops; /* ops[0] is OP_ADD (or OP_MUL); ops[i] joins item i */
            uint32_t n;         /* >= 2 */
        } chain;
        struct {
            const struct node *a;
            int64_t n; /* >= 1 */
        } rep;
        struct {
            const struct alea__mech *ops; /* the mechanic's table (mech.h) */
            const void *spec;             /* its arguments, its own type */
        } mech;
        struct {
            const char *text; /* the name as written, within the source */
            uint32_t len;
            uint32_t slot; /* below the expression's nslots (env.h) */
        } name;
        struct {
            const struct node *name; /* the N_NAME it binds (span: where
                                        it is written after "let") */
            const struct node *value, *body;
        } bind;
    } u;
} node;

/* A compiled expression. */
struct alea_expr {
    alea_ctx *ctx;
    alea__arena arena; /* owns every node and the source copy */
    const node *root;
    const char *src; /* NUL-terminated copy of the source */
    size_t len;
    uint32_t nodes;  /* number of nodes */
    uint32_t nslots; /* slots of its names (env.h): each below this */
    /* Parameters (params.c): names in scope for the whole expression, in
     * slots 0 to nparams - 1, their values given at each evaluation. */
    const struct alea__param *params;
    uint32_t nparams;
    uint64_t params_used; /* bit i: a use reads parameter i */
    const char *hint; /* alea_expr_hint, in the arena, or NULL */
    const char *comment; /* "4d6 # fire": "fire", within src, or NULL */
    uint8_t has_labels;  /* a term has an inline label ("3d6 [fire]") */
    size_t comment_len;
    size_t words_at; /* "1d20 adv": where the words after the expression
                        start (the expression trimmed), or len: none */
    /* Parsed only to be printed (another dialect's reading of the text, for
     * a hint): a mechanic may leave out what only rolling and computing
     * need (parse.h's alea__parse_print_only). */
    uint8_t print_only;
};

/* A parameter's name, within the expression's arena. */
typedef struct alea__param {
    const char *name;
    uint32_t len;
} alea__param;

/* alea_expr_compile with parameters (api.c; params.c checks their names
 * first): e->params are in scope, slots 0 to n - 1, before the text's own
 * names. */
ALEA__HIDDEN alea_status alea__expr_compile(alea_ctx *ctx, const char *src, size_t len,
                                            const char *const *names, size_t n,
                                            struct alea_expr **out);

/* ---- parse.c ---- */

/* Parses e->src (e->len bytes), in the context's dialect, into an AST
 * allocated from e->arena: sets e->root and e->nodes, e->hint (a likely
 * mistake, in the arena, or NULL) and e->comment (the first comment's
 * text, within e->src, or NULL). On error records it in ctx. */
ALEA__HIDDEN alea_status alea__parse(alea_ctx *ctx, struct alea_expr *e);

/* ---- ast.c ---- */

/*
 * The arithmetic of the language, shared by both evaluators: op is an
 * arith_op. Returns ARITH_OK and *r, ARITH_OVERFLOW, or ARITH_DIV0.
 * Division: OP_DIV rounds down, OP_DIVUP up, OP_DIVNEAR to nearest with
 * halves away from zero, OP_DIVTRUNC towards zero; OP_DIVWHOLE returns
 * ARITH_INEXACT when the quotient is not whole. OP_POW returns ARITH_NEGPOW
 * for a negative power that is not whole (2 ^ -1), ARITH_DIV0 for 0 ^ -1.
 */
enum { ARITH_OK, ARITH_OVERFLOW, ARITH_DIV0, ARITH_INEXACT, ARITH_NEGPOW };
ALEA__HIDDEN int alea__arith(uint8_t op, int64_t a, int64_t b, int64_t *r);

/* A value read as a truth ("and", "or", "not"): true when it is not 0. */
static inline int alea__truth(int64_t v)
{
    return v != 0;
}

/* ---- select.c ---- */

/*
 * Applies the pool's selection steps to m values sorted ascending: kept[i]
 * is 1 for the dice still kept on entry, and is cleared for the dice a step
 * drops. Of a group of equal values that the n highest or lowest take in
 * part, both take its first dice (d20 sorts stably both ways), so "kh1kl1"
 * of three equal dice keeps one.
 */
ALEA__HIDDEN void alea__select_apply(const pool *p, const int64_t *sorted, size_t m,
                                     uint8_t *kept);

/* Nodes for names, from the arena: a use of slot, written name[0..len)
 * over [start, end); the binding of name's slot to value in body, over
 * [start, body's end). NULL when out of memory. For the parser's "let" and
 * for the tests that build trees by hand. */
ALEA__HIDDEN node *alea__ast_name(alea__arena *a, uint32_t slot, const char *name, uint32_t len,
                                  uint32_t start, uint32_t end);
ALEA__HIDDEN node *alea__ast_bind(alea__arena *a, const node *name, const node *value,
                                  const node *body, uint32_t start);

/* Binding strength of a node when printed: a child printed inside a parent
 * needs parentheses when its precedence is below what the parent requires. */
enum {
    PREC_BIND = 0,
    PREC_OR,
    PREC_AND,
    PREC_NOT,
    PREC_CMP,
    PREC_SUM,
    PREC_PROD,
    PREC_NEG,
    PREC_ATOM
};
ALEA__HIDDEN int alea__node_prec(const node *n);
ALEA__HIDDEN const char *alea__cmp_str(uint8_t op);
ALEA__HIDDEN const char *alea__arith_str(uint8_t op); /* " + ", " /^ ", ... */
/* A chain's truncating divisions print as "trunc(a / b)": the opening
 * "trunc(" for each, before its first item, and the ")" after item i. */
struct alea__out;
ALEA__HIDDEN void alea__chain_open(struct alea__out *o, const node *n);
ALEA__HIDDEN void alea__chain_close(struct alea__out *o, const node *n, uint32_t i);
/* The precedence item i of a chain must have to print without parentheses
 * (a power's base is an atom; its exponent may be negated). */
ALEA__HIDDEN int alea__chain_min(const node *n, uint32_t i);

/* Writes the canonical text of a node through the writer. pool_print
 * writes an N_DICE node, with its count when with_count is set. */
struct alea__out;
ALEA__HIDDEN void alea__node_print(struct alea__out *o, const node *n);
/* The canonical text of a compiled expression, its comment after " # "
 * (alea_expr_format). */
ALEA__HIDDEN void alea__expr_print(struct alea__out *o, const struct alea_expr *e);
/* A label on a term other than dice or a number, printed around the term
 * (by node_print, and by the breakdown): "(" before it when it is not an
 * atom, then ") [label]" after it. Nothing for other nodes. */
ALEA__HIDDEN void alea__label_open(struct alea__out *o, const node *n);
ALEA__HIDDEN void alea__label_close(struct alea__out *o, const node *n);
ALEA__HIDDEN void alea__pool_print(struct alea__out *o, const node *n, int with_count);
/* The same, with rolled sides written by sides(o, ud) (the breakdown's
 * "d(1d20 [13])"); NULL: their text. */
typedef void alea__sides_fn(struct alea__out *o, const void *ud);
ALEA__HIDDEN void alea__pool_print_as(struct alea__out *o, const node *n, int with_count,
                                      alea__sides_fn *sides, const void *ud);

#endif /* ALEA_AST_H */
