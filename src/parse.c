/*
 * parse.c -- tokens -> AST, by hand-written recursive descent: expressions
 * (products, signs, powers, labels, comparisons) and the names in scope;
 * sums and their extra dice are parse_extra.c, the text around an
 * expression and the entry point parse_text.c, dice terms parse_dice.c,
 * calls parse_call.c (parser.h).
 *
 * docs/grammar.md is the grammar; each function below carries its rule.
 * Depth is a counter that goes up and down (enter/leave), checked against
 * the DEPTH limit, so hostile nesting fails fast and the evaluators'
 * recursion over the tree stays bounded. Semantic checks that need only the
 * tree (an explosion that never ends, a reroll that matches every face) are
 * made here, so that they fail before anything is rolled.
 */
#include "parser.h"
#include "mech.h"

#include <stdarg.h>
#include <stdio.h>
/* ---- expressions ------------------------------------------------------------ */

static alea_status parse_name(parser *p, const node **out);

/* The construct that a token of kind k opens (a group's '{'), or NULL. */
static const alea__mech *opened_by(const parser *p, tok_kind k)
{
    for (const alea__mech *const *m = p->ctx->lang->mechs; *m; m++)
        if ((*m)->opens && (*m)->opens == k)
            return *m;
    return NULL;
}

/* The construct a parenthesised list reads as where the dialect has sets,
 * or NULL. */
static const alea__mech *set_construct(const parser *p)
{
    for (const alea__mech *const *m = p->ctx->lang->mechs; *m; m++)
        if ((*m)->parse_set)
            return *m;
    return NULL;
}

/*
 * postfix = NUM [dice_tail] | "(" expr ")" [dice_tail] | dice_tail | call
 *         | construct                      (mech.h: a group "{...}")
 */
static alea_status parse_postfix(parser *p, const node **out)
{
    const token *t = peek(p);
    const alea__mech *m;
    alea_status st;
    switch (t->kind) {
    case T_NUM: {
        advance(p);
        if (at(p, T_D))
            return alea__p_d20_seen(p, alea__p_dice_tail(p, NULL, t->num, 0, t->start, out), out);
        if (at(p, T_X)) /* "1 + 6 x 4d6": a repeat is the whole expression */
            return alea__p_repeat_x(p, t);
        node *n;
        if ((st = new_node(p, N_NUM, t->start, t->end, &n)) != ALEA_OK)
            return st;
        n->u.num = t->num;
        *out = n;
        return ALEA_OK;
    }
    case T_D:
        return alea__p_d20_seen(p, alea__p_dice_tail(p, NULL, 1, 1, t->start, out), out);
    case T_LPAREN: {
        advance(p);
        if ((st = enter(p, t)) != ALEA_OK)
            return st;
        const node *inner;
        if ((st = alea__p_expr(p, &inner)) != ALEA_OK)
            return st;
        if (p->dl->d20_select && at(p, T_COMMA) && (m = set_construct(p)))
            return m->parse_set(p, t->start, inner, out); /* d20's "(1d4 + 1, 3)kh1" */
        if ((st = expect(p, T_RPAREN, "')' or an operator")) != ALEA_OK)
            return st;
        leave(p);
        if (at(p, T_D))
            return alea__p_dice_tail(p, inner, 0, 0, t->start, out);
        *out = inner;
        return ALEA_OK;
    }
    case T_NAME:
        return alea__p_call(p, out);
    case T_IDENT:
        return parse_name(p, out);
    default:
        if ((m = opened_by(p, t->kind)))
            return m->parse(p, t->start, t->end, out);
        return err_at(p, t, "a number, a die or '('");
    }
}

static alea_status parse_unary(parser *p, const node **out);

/*
 * power = "^" unary     after a postfix: right-associative, and tighter
 * than a sign on its left (-2 ^ 2 is -4), as in Python; "**" is "^".
 */
static alea_status parse_power(parser *p, const node **out)
{
    if (!at(p, T_POW))
        return ALEA_OK;
    const token *t = advance(p);
    alea_status st;
    if ((st = enter(p, t)) != ALEA_OK)
        return st;
    const node *e;
    if ((st = parse_unary(p, &e)) != ALEA_OK)
        return st;
    leave(p);
    chainbuf c = {0};
    if ((st = chain_push(p, &c, *out, OP_MUL)) != ALEA_OK ||
        (st = chain_push(p, &c, e, OP_POW)) != ALEA_OK)
        return st;
    return alea__p_finish_chain(p, N_PROD, &c, out);
}

/* unary = ("-" | "+") unary | postfix [ LABEL ] [ power ] */
static alea_status parse_unary(parser *p, const node **out)
{
    const token *t = peek(p);
    *out = NULL;
    alea_status st;
    if (t->kind == T_MINUS || t->kind == T_PLUS) {
        advance(p);
        if ((st = enter(p, t)) != ALEA_OK)
            return st;
        const node *a;
        if ((st = parse_unary(p, &a)) != ALEA_OK)
            return st;
        leave(p);
        if (t->kind == T_PLUS) {
            *out = a;
            return ALEA_OK;
        }
        node *n;
        if ((st = new_node(p, N_NEG, t->start, a->end, &n)) != ALEA_OK)
            return st;
        n->u.un.a = a;
        *out = n;
        return ALEA_OK;
    }
    if ((st = parse_postfix(p, out)) != ALEA_OK)
        return st;
    if (!at(p, T_LABEL))
        return parse_power(p, out);
    /* "3d6 [fire]", "(2d6 + 3) [fire]": an inline label, on any term */
    const token *lt = advance(p);
    const node *a = *out;
    if (a->label)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, lt->start, lt->end,
                           "a second label at byte %u: a term takes one", (unsigned)lt->start);
    node *n;
    if ((st = new_node(p, (node_kind)a->kind, a->start, a->end, &n)) != ALEA_OK)
        return st;
    *n = *a; /* a copy: the tree is never edited */
    n->label = p->src + lt->start + 1;
    n->label_len = lt->end - lt->start - 2;
    p->has_labels = 1;
    *out = n;
    return parse_power(p, out);
}

/* Wraps the items of a chain into one n-ary node (or returns the single item). */
alea_status alea__p_finish_chain(parser *p, node_kind kind, chainbuf *c, const node **out)
{
    if (c->n == 1) {
        *out = c->items[0];
        return ALEA_OK;
    }
    node *n;
    alea_status st = new_node(p, kind, c->items[0]->start, c->items[c->n - 1]->end, &n);
    if (st != ALEA_OK)
        return st;
    n->u.chain.items = c->items;
    n->u.chain.ops = c->ops;
    n->u.chain.n = c->n;
    *out = n;
    return ALEA_OK;
}

/* product = unary { ("*" | "/" | "/^" | "/~" | "%") unary } */
alea_status alea__p_product(parser *p, const node **out)
{
    chainbuf c = {0};
    const node *a;
    alea_status st;
    if ((st = parse_unary(p, &a)) != ALEA_OK)
        return st;
    if ((st = chain_push(p, &c, a, OP_MUL)) != ALEA_OK)
        return st;
    for (;;) {
        uint8_t op;
        switch (peek(p)->kind) {
        case T_STAR: op = OP_MUL; break;
        case T_SLASH: op = p->dl->slash; break;
        case T_SLASHSLASH: op = OP_DIV; break; /* d20's "//", as Python's */
        case T_PERCENT:
            if (p->dl->no_mod)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, peek(p)->start, peek(p)->end,
                                   "%s: '%%' (a modulo that takes the divisor's sign) is "
                                   "not supported yet in this dialect (byte %u)",
                                   p->dl->tool, (unsigned)peek(p)->start);
            op = OP_MOD;
            break;
        case T_SLASHUP: op = OP_DIVUP; break;
        case T_SLASHNEAR: op = OP_DIVNEAR; break;
        default: return alea__p_finish_chain(p, N_PROD, &c, out);
        }
        advance(p);
        if ((st = parse_unary(p, &a)) != ALEA_OK)
            return st;
        if ((st = chain_push(p, &c, a, op)) != ALEA_OK)
            return st;
    }
}

/* compare = sum [ ("=" | "<>" | "<" | "<=" | ">" | ">=") sum ] */
static alea_status parse_compare(parser *p, const node **out)
{
    const node *a, *b;
    alea_status st;
    if ((st = alea__p_sum(p, &a)) != ALEA_OK)
        return st;
    uint8_t op;
    switch (peek(p)->kind) {
    case T_EQ: op = CMP_EQ; break;
    case T_NE: op = CMP_NE; break;
    case T_LT: op = CMP_LT; break;
    case T_LE: op = CMP_LE; break;
    case T_GT: op = CMP_GT; break;
    case T_GE: op = CMP_GE; break;
    case T_BANG: /* d20's "!=" */
        if (p->dl->bang_ne && peek_at(p, 1)->kind == T_EQ && peek_at(p, 1)->start == peek(p)->end) {
            advance(p);
            op = CMP_NE;
            break;
        }
        /* fall through */
    default:
        *out = a;
        return ALEA_OK;
    }
    const token *opt = advance(p);
    if ((st = alea__p_sum(p, &b)) != ALEA_OK)
        return st;
    switch (peek(p)->kind) {
    case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE: {
        const token *t = peek(p);
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "comparisons do not chain: second comparison at byte %u "
                           "(use parentheses)",
                           (unsigned)t->start);
    }
    default:
        break;
    }
    if (op == CMP_NE && a->kind == N_DICE && a->end == opt->start &&
        p->dl->hints)
        alea__p_hint(p, "'%.*s' compares the total with %.*s (1 when they differ); in "
                        "rpg-dice-roller '<>' right after dice is a condition on each die, "
                        "\"not equal\" (--dialect rpgdr)",
                     (int)(b->end - a->start), p->src + a->start,
                     (int)(b->end - b->start), p->src + b->start);
    node *n;
    if ((st = new_node(p, N_CMP, a->start, b->end, &n)) != ALEA_OK)
        return st;
    n->op = op;
    n->u.bin.a = a;
    n->u.bin.b = b;
    *out = n;
    return ALEA_OK;
}

/* ---- truth values: "and", "or", "not" ----------------------------------- */

/* Whether the next token is the word w of names and truth values (a word
 * only in the dialects that have names). */
static int at_names_word(const parser *p, const char *w)
{
    return p->dl->names && alea__p_is_word(p, peek(p), w);
}

/* A truth node of kind over a (and b), [a's start, (b or a)'s end), or from
 * start for "not". */
static alea_status truth_node(parser *p, node_kind kind, size_t start, const node *a,
                              const node *b, const node **out)
{
    node *n;
    alea_status st = new_node(p, kind, start, (b ? b : a)->end, &n);
    if (st != ALEA_OK)
        return st;
    n->u.bin.a = a;
    n->u.bin.b = b;
    *out = n;
    return ALEA_OK;
}

/* not = "not" not | compare */
static alea_status parse_not(parser *p, const node **out)
{
    if (!at_names_word(p, "not"))
        return parse_compare(p, out);
    const token *t = advance(p);
    alea_status st;
    const node *a;
    if ((st = enter(p, t)) != ALEA_OK || (st = parse_not(p, &a)) != ALEA_OK)
        return st;
    leave(p);
    return truth_node(p, N_NOT, t->start, a, NULL, out);
}

/* and = not { "and" not }    or = and { "or" and }    left to right; each
 * operand is rolled (the breakdown shows every die). The nodes are binary,
 * so a chain is as deep as it is long: each operator counts for the DEPTH
 * limit until the chain ends, which bounds the evaluators' recursion. */
static alea_status parse_logic(parser *p, int is_or, const node **out)
{
    alea_status st;
    const node *a, *b;
    int64_t depth = p->depth;
    if ((st = is_or ? parse_logic(p, 0, &a) : parse_not(p, &a)) != ALEA_OK)
        return st;
    while (at_names_word(p, is_or ? "or" : "and")) {
        const token *t = advance(p);
        if ((st = enter(p, t)) != ALEA_OK ||
            (st = is_or ? parse_logic(p, 0, &b) : parse_not(p, &b)) != ALEA_OK)
            return st;
        if ((st = truth_node(p, is_or ? N_OR : N_AND, a->start, a, b, &a)) != ALEA_OK)
            return st;
    }
    p->depth = depth;
    *out = a;
    return ALEA_OK;
}

/* ---- names: "let x = ... in ..." ------------------------------------------- */

/* Whether byte c can be part of a name. */
static int name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* The name a "let" binds, at token t: a T_IDENT, else an error that says
 * why the word cannot be a name (a word of the language, dice). */
static alea_status let_name(parser *p, const token *t)
{
    if (t->kind == T_IDENT)
        return ALEA_OK;
    size_t e = t->start;
    while (e < p->len && name_byte(p->src[e]))
        e++;
    const char *c = p->src + t->start;
    int n = (int)(e - t->start > 24 ? 24 : e - t->start);
    if (e == t->start || (*c >= '0' && *c <= '9'))
        return err_at(p, t, "a name after let (letters, digits and '_', starting with a letter)");
    if (t->kind == T_NAME)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, e,
                           "'%.*s' at byte %u is a word of the language, not a name: choose "
                           "another name",
                           n, c, (unsigned)t->start);
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, e,
                       "'%.*s' at byte %u reads as dice, not a name: choose another name",
                       n, c, (unsigned)t->start);
}

/* The error for a name that no "let" binds here, listing those that are
 * (innermost first, each once), or that none is. It reads as the lexer's
 * "unknown name 'foo' at byte 4" first: the front ends' suggestions for a
 * misspelt word of the language key on it. */
static alea_status unbound(parser *p, const token *t)
{
    char list[160];
    size_t at = 0;
    list[0] = '\0';
    for (const alea__scope *sc = p->scope; sc; sc = sc->up) {
        uint32_t slot;
        if (alea__p_scope_find(p, sc->name, sc->len, &slot) && slot != sc->slot)
            continue; /* shadowed: listed once, where it is innermost */
        int k = snprintf(list + at, sizeof list - at, "%s%.*s", at ? ", " : "",
                         (int)(sc->len > 24 ? 24 : sc->len), sc->name);
        if (k < 0 || (size_t)k >= sizeof list - at) {
            snprintf(list + (at < sizeof list - 6 ? at : sizeof list - 6), 6, ", ...");
            break;
        }
        at += (size_t)k;
    }
    int n = (int)(t->end - t->start > 24 ? 24 : t->end - t->start);
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                       "unknown name '%.*s' at byte %u (%s%s)", n, p->src + t->start,
                       (unsigned)t->start, at ? "in scope: " : "no name is in scope here",
                       list);
}

/* name = IDENT     a use of a name in scope */
static alea_status parse_name(parser *p, const node **out)
{
    const token *t = advance(p);
    uint32_t slot;
    if (!alea__p_scope_find(p, p->src + t->start, t->end - t->start, &slot))
        return unbound(p, t);
    if (slot < p->nparams)
        p->params_used |= (uint64_t)1 << slot;
    node *n;
    alea_status st = new_node(p, N_NAME, t->start, t->end, &n);
    if (st != ALEA_OK)
        return st;
    n->u.name.text = p->src + t->start;
    n->u.name.len = t->end - t->start;
    n->u.name.slot = slot;
    *out = n;
    return ALEA_OK;
}

/*
 * let = "let" IDENT "=" expr { "," IDENT "=" expr } "in" expr
 * Each value sees the names before it; the body, as far as it reaches,
 * sees them all. Several names are nested bindings, one deeper each.
 */
static alea_status parse_let(parser *p, const token *let, const node **out)
{
    alea_status st;
    uint32_t k = 0;
    const node **names = NULL, **values = NULL;
    uint32_t cap = 0;
    const token *nt;
    do {
        nt = advance(p);
        if ((st = enter(p, nt)) != ALEA_OK || (st = let_name(p, nt)) != ALEA_OK)
            return st;
        if (!at(p, T_EQ))
            return err_at(p, peek(p), "'=' after the name");
        advance(p);
        if (at_names_word(p, "in") || at(p, T_COMMA) || at(p, T_EOF))
            return err_at(p, peek(p), "a value for the name");
        if (k == cap) { /* grows as a chain does: the nodes are limited */
            uint32_t ncap = cap ? 2 * cap : 4;
            const node **nn = p_alloc(p, ncap * sizeof *nn), **nv = p_alloc(p, ncap * sizeof *nv);
            if (!nn || !nv)
                return alea__nomem(p->ctx);
            if (k) {
                memcpy(nn, names, k * sizeof *nn);
                memcpy(nv, values, k * sizeof *nv);
            }
            names = nn, values = nv, cap = ncap;
        }
        if ((st = alea__p_expr(p, &values[k])) != ALEA_OK)
            return st;
        uint32_t slot = 0;
        if ((st = alea__p_scope_push(p, p->src + nt->start, nt->end - nt->start, &slot)) !=
            ALEA_OK)
            return st;
        node *x;
        if ((st = new_node(p, N_NAME, nt->start, nt->end, &x)) != ALEA_OK)
            return st;
        x->u.name.text = p->src + nt->start;
        x->u.name.len = nt->end - nt->start;
        x->u.name.slot = slot;
        names[k++] = x;
    } while (accept(p, T_COMMA));
    if (!at_names_word(p, "in"))
        return err_at(p, peek(p), k == 1 ? "'in' (or ',' and another name) after the value"
                                         : "'in' or ',' after the value");
    advance(p);
    const node *body;
    if ((st = alea__p_expr(p, &body)) != ALEA_OK)
        return st;
    for (uint32_t i = k; i-- > 0;) {
        node *b;
        size_t start = i ? names[i]->start : let->start;
        if ((st = new_node(p, N_BIND, start, body->end, &b)) != ALEA_OK)
            return st;
        b->u.bind.name = names[i];
        b->u.bind.value = values[i];
        b->u.bind.body = body;
        body = b;
        alea__p_scope_pop(p);
        leave(p);
    }
    *out = body;
    return ALEA_OK;
}

/* expr = let | or */
alea_status alea__p_expr(parser *p, const node **out)
{
    *out = NULL;
    if (at_names_word(p, "let"))
        return parse_let(p, advance(p), out);
    return parse_logic(p, 1, out);
}

/* program = expr EOF */
void alea__p_hint(parser *p, const char *fmt, ...)
{
    if (p->hint[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->hint, sizeof p->hint, fmt, ap);
    va_end(ap);
}

/* ---- names in scope: "let" brings one in for its body ---------------------- */

alea_status alea__p_scope_push(parser *p, const char *name, uint32_t len, uint32_t *slot)
{
    alea__scope *sc = alea__arena_alloc(p->arena, sizeof *sc);
    if (!sc)
        return alea__nomem(p->ctx);
    sc->name = name;
    sc->len = len;
    sc->slot = p->nslots++; /* fewer than the nodes, which are limited */
    sc->up = p->scope;
    p->scope = sc;
    *slot = sc->slot;
    return ALEA_OK;
}

void alea__p_scope_pop(parser *p)
{
    if (p->scope)
        p->scope = p->scope->up;
}

/* Whether the n bytes at a and b are the same: a loop, not memcmp, whose
 * call the program would import from the C library only for this (a
 * symbol looked up at every start of the command line). */
static int same_bytes(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

int alea__p_scope_find(const parser *p, const char *name, size_t len, uint32_t *slot)
{
    for (const alea__scope *sc = p->scope; sc; sc = sc->up)
        if (sc->len == len && same_bytes(sc->name, name, len)) {
            *slot = sc->slot;
            return 1;
        }
    return 0;
}
