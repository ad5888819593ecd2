/*
 * tree.h -- expressions with names built by hand, from a prefix notation,
 * for the tests and the benchmarks of bindings in the exact engine
 * (tests/share_test.c, bench/bench.c) while the language spells none:
 *
 *   (let $a d20 (+ $a 100d6))        let a = d20 in a + 100d6
 *
 * A list is an operator and its operands: "let $name value body"; "+", "-"
 * or "*" over two or more (a chain, left to right); "=", "<>", "<", "<=",
 * ">", ">=" over two (1 or 0); "count" over a count and a dice term of a
 * rolled count, the term with its count replaced ("(count $a [(1d2)d6])":
 * a dice pool, a seam of its own, that reads a name through the engine).
 * "$word" is a use of a name, its slot the
 * order in which the words first appear (so a name bound again inside its
 * own body shadows it in the same slot). Digits are a number; anything
 * else, up to the next space or parenthesis (or inside "[...]"), is an
 * expression of the language compiled alone ("100d6", "[(1d2)d6]"), kept
 * by the tree. The nodes are the internal ones of
 * ast.h: include it first.
 *
 * Header-only, static inline; no test framework, so that the benchmarks can
 * use it: a malformed text gives NULL.
 */
#ifndef ALEA_TEST_TREE_H
#define ALEA_TEST_TREE_H

#include <stdlib.h>
#include <string.h>

#define TREE_PARTS 32
#define TREE_NAMES 16

typedef struct tree {
    alea_ctx *ctx;
    alea_expr *e;                 /* the whole: its arena holds the nodes */
    alea_expr *part[TREE_PARTS];  /* the expressions compiled alone */
    int nparts;
    const char *name[TREE_NAMES]; /* each slot's word, within the text */
    uint32_t len[TREE_NAMES];
    uint32_t nnames;
    const char *p; /* the text still to read */
} tree;

static inline const node *tree_read(tree *t);

static inline void tree_space(tree *t)
{
    while (*t->p == ' ')
        t->p++;
}

static inline size_t tree_word(const tree *t)
{
    return *t->p == '[' ? strcspn(t->p, "]") + (strchr(t->p, ']') != NULL)
                        : strcspn(t->p, " ()");
}

static inline node *tree_node(tree *t, uint8_t kind)
{
    node *n = alea__arena_alloc(&t->e->arena, sizeof *n);
    if (n)
        memset(n, 0, sizeof *n);
    if (n)
        n->kind = kind;
    return n;
}

/* items[0] op items[1] op ... (k >= 2), op '+', '-' or '*': a chain. */
static inline const node *tree_chain(tree *t, uint8_t op, const node *const *items, uint32_t k)
{
    node *n = tree_node(t, op == '*' ? N_PROD : N_SUM);
    const node **its = alea__arena_alloc(&t->e->arena, k * sizeof *its);
    uint8_t *ops = alea__arena_alloc(&t->e->arena, k);
    if (!n || !its || !ops)
        return NULL;
    for (uint32_t i = 0; i < k; i++) {
        its[i] = items[i];
        ops[i] = op == '*' ? OP_MUL : i && op == '-' ? OP_SUB : OP_ADD;
    }
    n->u.chain.items = its;
    n->u.chain.ops = ops;
    n->u.chain.n = k;
    return n;
}

/* "$word": a use of its slot. */
static inline const node *tree_name(tree *t)
{
    const char *w = t->p + 1;
    uint32_t len = (uint32_t)tree_word(t) - 1, slot = 0;
    while (slot < t->nnames && (t->len[slot] != len || memcmp(t->name[slot], w, len)))
        slot++;
    if (slot == t->nnames) {
        if (slot == TREE_NAMES)
            return NULL;
        t->name[slot] = w;
        t->len[slot] = len;
        t->nnames++;
    }
    t->p += len + 1;
    return alea__ast_name(&t->e->arena, slot, w, len, 0, 1);
}

/* An expression of the language, compiled alone; a number, a node. */
static inline const node *tree_part(tree *t)
{
    size_t len = tree_word(t);
    if (len && strspn(t->p, "0123456789") == len) {
        node *n = tree_node(t, N_NUM);
        if (n)
            n->u.num = strtoll(t->p, NULL, 10);
        t->p += len;
        return n;
    }
    if (len == 0 || t->nparts == TREE_PARTS)
        return NULL;
    alea_expr **x = &t->part[t->nparts];
    int br = *t->p == '['; /* "[...]": its inside */
    if (alea_expr_compile(t->ctx, t->p + br, len - 2 * (size_t)br, x) != ALEA_OK)
        return NULL;
    t->nparts++;
    t->p += len;
    return (*x)->root;
}

/* The operands of a list up to its ")", into items (at most cap). */
static inline uint32_t tree_items(tree *t, const node **items, uint32_t cap)
{
    uint32_t k = 0;
    for (tree_space(t); *t->p && *t->p != ')'; tree_space(t)) {
        if (k == cap || !(items[k] = tree_read(t)))
            return 0;
        k++;
    }
    if (*t->p != ')')
        return 0;
    t->p++;
    return k;
}

static inline const node *tree_list(tree *t)
{
    static const char *const cmp[] = {"=", "<>", "<", "<=", ">", ">="};
    static const uint8_t cmp_ops[] = {CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE};
    const node *items[16];
    t->p++;
    tree_space(t);
    const char *op = t->p;
    size_t oplen = tree_word(t);
    t->p += oplen;
    uint32_t k = tree_items(t, items, 16);
    node *n = NULL;
    if (oplen == 3 && !memcmp(op, "let", 3) && k == 3 && items[0]->kind == N_NAME)
        return alea__ast_bind(&t->e->arena, items[0], items[1], items[2], 0);
    if (oplen == 5 && !memcmp(op, "count", 5) && k == 2 && items[1]->kind == N_DICE &&
        items[1]->u.pool->count_expr && (n = tree_node(t, N_DICE))) {
        pool *pl = alea__arena_alloc(&t->e->arena, sizeof *pl);
        if (!pl)
            return NULL;
        *n = *items[1];
        *pl = *items[1]->u.pool;
        pl->count_expr = items[0];
        n->u.pool = pl;
        return n;
    }
    for (int i = 0; i < 6; i++)
        if (oplen == strlen(cmp[i]) && !memcmp(op, cmp[i], oplen) && k == 2 &&
            (n = tree_node(t, N_CMP))) {
            n->op = cmp_ops[i];
            n->u.bin.a = items[0];
            n->u.bin.b = items[1];
            return n;
        }
    if (oplen != 1 || !strchr("+-*", *op) || k < 2)
        return NULL;
    return tree_chain(t, (uint8_t)*op, items, k);
}

static inline const node *tree_read(tree *t)
{
    tree_space(t);
    return *t->p == '(' ? tree_list(t) : *t->p == '$' ? tree_name(t) : tree_part(t);
}

/* Frees the tree and every part (t may be half built). */
static inline void tree_free(tree *t)
{
    alea_expr_free(t->e);
    for (int i = 0; i < t->nparts; i++)
        alea_expr_free(t->part[i]);
    memset(t, 0, sizeof *t);
}

/* The tree of text, in t->e; NULL (t freed) when malformed. */
static inline alea_expr *tree_build(alea_ctx *ctx, const char *text, tree *t)
{
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->p = text;
    if (alea_expr_compile(ctx, "0", 1, &t->e) != ALEA_OK)
        return NULL;
    const node *root = tree_read(t);
    tree_space(t);
    if (!root || *t->p) {
        tree_free(t);
        return NULL;
    }
    t->e->root = root;
    t->e->nslots = t->nnames;
    return t->e;
}

#endif /* ALEA_TEST_TREE_H */
