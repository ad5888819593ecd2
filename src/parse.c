/*
 * parse.c -- tokens -> AST, by hand-written recursive descent: expressions
 * (sums, products, signs, comparisons, extra dice) and the entry point; dice
 * terms are parsed in parse_dice.c, calls in parse_call.c (parser.h).
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

static alea_status d20_seen(parser *p, alea_status st, const node **out);

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
            return d20_seen(p, alea__p_dice_tail(p, NULL, t->num, 0, t->start, out), out);
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
        return d20_seen(p, alea__p_dice_tail(p, NULL, 1, 1, t->start, out), out);
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
    default:
        if ((m = opened_by(p, t->kind)))
            return m->parse(p, t->start, t->end, out);
        return err_at(p, t, "a number, a die or '('");
    }
}

static alea_status parse_unary(parser *p, const node **out);
static alea_status finish_chain(parser *p, node_kind kind, chainbuf *c, const node **out);

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
    return finish_chain(p, N_PROD, &c, out);
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
static alea_status finish_chain(parser *p, node_kind kind, chainbuf *c, const node **out)
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
static alea_status parse_product(parser *p, const node **out)
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
        default: return finish_chain(p, N_PROD, &c, out);
        }
        advance(p);
        if ((st = parse_unary(p, &a)) != ALEA_OK)
            return st;
        if ((st = chain_push(p, &c, a, op)) != ALEA_OK)
            return st;
    }
}

/* ---- extra dice (their spellings: the table of mech.h) ------------------------ */

/* Extra dice at a '+' or '-': their row of the table and how they were
 * written. */
typedef struct extra_at {
    const alea__extra *x; /* NULL: a term follows, not extra dice */
    int rank;             /* >= 0: a rank word ("+expert"), worth rank + 1 */
    size_t ntok;          /* tokens after the sign */
} extra_at;

/* The index of word t among words (NULL-terminated), or -1. */
static int word_index(const parser *p, const token *t, const char *const *words)
{
    for (int i = 0; words && words[i]; i++)
        if (alea__p_is_word(p, t, words[i]))
            return i;
    return -1;
}

/* Whether token t is spelled w: a word of the language, or a modifier
 * letter ("b" in "+2B"), without case. */
static int spelled(const parser *p, const token *t, const char *w)
{
    size_t n = t->end - t->start;
    if (t->kind == T_NUM || strlen(w) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = p->src[t->start + i];
        if ((c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) != w[i])
            return 0;
    }
    return 1;
}

/* At a '+' or '-': are extra dice what follows, rather than a term? */
static extra_at extra_here(const parser *p)
{
    extra_at e = {NULL, -1, 0};
    const token *a = peek_at(p, 1);
    for (const alea__extra *const *x = p->ctx->lang->extras; *x; x++) {
        int r = word_index(p, a, (*x)->ranks);
        if (r >= 0)
            return (extra_at){*x, r, 1};
    }
    if (a->kind != T_NUM)
        return e;
    for (const alea__extra *const *x = p->ctx->lang->extras; *x; x++) {
        if (!(*x)->after) { /* "+1d", not "+1d6" */
            if (peek_at(p, 2)->kind == T_D &&
                !alea__p_starts_sides((tok_kind)peek_at(p, 3)->kind))
                return (extra_at){*x, -1, 2};
            continue;
        }
        size_t k = 0;
        while ((*x)->after[k] && spelled(p, peek_at(p, 2 + k), (*x)->after[k]))
            k++;
        if (!(*x)->after[k])
            return (extra_at){*x, -1, 1 + k};
    }
    return e;
}

/* "as in 2d10 +1B or 2d6 +1 DICE": the examples of the extra dice that
 * apply to the last dice term (on_left 0), or to anything (-1). */
static void extra_examples(const parser *p, char *buf, size_t cap, int on_left)
{
    const char *ex[8];
    size_t n = 0;
    for (const alea__extra *const *x = p->ctx->lang->extras; *x && n < 8; x++)
        if ((*x)->example && (on_left < 0 || (*x)->on_left == on_left))
            ex[n++] = (*x)->example;
    alea__out o;
    alea__out_init(&o, buf, cap);
    for (size_t i = 0; i < n; i++) {
        alea__out_str(&o, i == 0 ? "" : i + 1 == n ? " or " : ", ");
        alea__out_str(&o, ex[i]);
    }
    alea__out_finish(&o);
}

/* "+1d, +1B, +1 DICE or +1 INJURY DICE": every kind, spelled. */
static void extra_spellings(const parser *p, char *buf, size_t cap)
{
    const alea__extra *const *all = p->ctx->lang->extras;
    alea__out o;
    alea__out_init(&o, buf, cap);
    for (const alea__extra *const *x = all; *x; x++) {
        alea__out_str(&o, x == all ? "" : !x[1] ? " or " : ", ");
        alea__out_str(&o, "+1");
        alea__out_str(&o, (*x)->unit);
    }
    alea__out_finish(&o);
}

/* Labelled bonus dice: the same label counts once (the largest count). */
typedef struct label_slot {
    const char *text;
    size_t len;
    int64_t count;
} label_slot;

typedef struct bonus_acc {
    const alea__extra *kind; /* the row of the dice that count on the left */
    int seen;
    int64_t plain;      /* unlabelled, summed */
    label_slot *labels; /* in the arena */
    uint32_t nlabels, cap;
    uint32_t upto;      /* items to the left of the last bonus group */
    size_t end;         /* byte after the last bonus group */
} bonus_acc;

static int label_eq(const char *a, size_t an, const char *b, size_t bn)
{
    if (an != bn)
        return 0;
    for (size_t i = 0; i < an; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return 0;
    }
    return 1;
}

static alea_status add_label(parser *p, bonus_acc *b, const char *text, size_t len,
                             int64_t count)
{
    while (len > 0 && (*text == ' ' || *text == '\t')) {
        text++;
        len--;
    }
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    for (uint32_t i = 0; i < b->nlabels; i++) {
        label_slot *l = &b->labels[i];
        if (label_eq(l->text, l->len, text, len)) {
            int64_t m = count < 0 ? -count : count, lm = l->count < 0 ? -l->count : l->count;
            if (m > lm)
                l->count = count;
            return ALEA_OK;
        }
    }
    if (b->nlabels == b->cap) {
        uint32_t ncap = b->cap ? b->cap * 2 : 4;
        label_slot *nl = p_alloc(p, ncap * sizeof *nl);
        if (!nl)
            return alea__nomem(p->ctx);
        if (b->nlabels)
            memcpy(nl, b->labels, b->nlabels * sizeof *nl);
        b->labels = nl;
        b->cap = ncap;
    }
    b->labels[b->nlabels].text = text;
    b->labels[b->nlabels].len = len;
    b->labels[b->nlabels].count = count;
    b->nlabels++;
    return ALEA_OK;
}

static int is_null_die(const pool *pl)
{
    return pl->die.style == DIE_NULL ||
           (pl->die.kind == FACES_RANGE && pl->die.style == DIE_PLAIN && pl->die.lo == 0 &&
            pl->die.hi == 0);
}

/*
 * The tree is immutable once made: extra dice that modify a dice term
 * already in the sum's buffer (*slot) replace it by a new node and pool,
 * copies of the old, which the caller edits before anything else sees them.
 */
static alea_status edit_dice(parser *p, const node **slot, node **nout, pool **out)
{
    node *n;
    pool *pl = p_alloc(p, sizeof *pl);
    if (!pl)
        return alea__nomem(p->ctx);
    alea_status st = new_node(p, N_DICE, (*slot)->start, (*slot)->end, &n);
    if (st != ALEA_OK)
        return st;
    *n = **slot;
    *pl = *(*slot)->u.pool;
    n->u.pool = pl;
    *slot = n;
    *nout = n;
    *out = pl;
    return ALEA_OK;
}

/* Recomputes a pool's extra dice from what was written (capped first). */
static alea_status settle_extra(parser *p, pool *pl, const token *at)
{
    const alea__extra *x = pl->extra_kind;
    int64_t plus = pl->extra_plus, minus = pl->extra_minus;
    if (x->cap) {
        plus = plus > x->cap ? x->cap : plus;
        minus = minus > x->cap ? x->cap : minus;
    }
    int64_t net = plus - minus;
    if (x->null_die && is_null_die(pl)) {
        /* The null die: 0, or 1 with any net plus, or -1 with any net minus. */
        pl->die.style = DIE_NULL;
        pl->die.lo = pl->die.hi = net > 0 ? 1 : net < 0 ? -1 : 0;
        pl->extra = 0;
        return ALEA_OK;
    }
    int64_t count = pl->count_expr ? 0 : pl->count;
    if (net > alea_limit_max(ALEA_LIMIT_DICE) || -net > alea_limit_max(ALEA_LIMIT_DICE) ||
        count > alea_limit_max(ALEA_LIMIT_DICE))
        return alea__error(p->ctx, ALEA_ERR_INVALID, at->start, at->end,
                           "too many extra dice at byte %u (at most %lld)",
                           (unsigned)at->start, (long long)alea_limit_max(ALEA_LIMIT_DICE));
    pl->extra = net;
    if (pl->unique && net != 0)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, at->start, at->end,
                           "unique ('u', 'uo') with extra dice is not supported yet "
                           "(byte %u)",
                           (unsigned)at->start);
    if (pl->nselects && net != 0)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, at->start, at->end,
                           "a selection of dice ('k{...}', 'p{...}') with extra dice is "
                           "not supported yet (byte %u)",
                           (unsigned)at->start);
    if (pl->has_success && pl->explode == EXPLODE_EACH && net != 0)
        return alea__error(p->ctx, ALEA_ERR_INVALID, at->start, at->end,
                           "success counting on '!' dice with extra dice is ambiguous "
                           "(byte %u): write '!!' to judge each die's total",
                           (unsigned)at->start);
    return ALEA_OK;
}

/* A single d20, plain enough that advantage means one more of it. */
static int single_d20(const node *n)
{
    const pool *pl = n->kind == N_DICE ? n->u.pool : NULL;
    return pl && !pl->count_expr && !pl->sides_expr && pl->count == 1 &&
           pl->die.kind == FACES_RANGE && pl->die.style == DIE_PLAIN && pl->die.lo == 1 &&
           pl->die.hi == 20 && pl->explode == EXPLODE_NONE && !pl->nkeeps && !pl->nselects &&
           !pl->has_success && !pl->unique && !pl->extra_kind;
}

/*
 * A dice term just parsed (*out, when st is ALEA_OK): a single d20 is
 * counted for advantage written as a word (alea__parse), and the one that
 * advantage names gets its die: alea's bonus die ("1d20 +1d") or, in the
 * other tools' dialects, their spelling ("2d20kh1").
 */
static alea_status d20_seen(parser *p, alea_status st, const node **out)
{
    if (st != ALEA_OK || !single_d20(*out))
        return st;
    if (p->d20s++ == 0)
        p->d20_at = (*out)->start;
    if (!p->adv || (*out)->start != p->adv_at)
        return st;
    node *n;
    pool *pl;
    if ((st = edit_dice(p, out, &n, &pl)) != ALEA_OK)
        return st;
    if (p->dl->adv_bonus) {
        for (const alea__extra *const *x = p->ctx->lang->extras; *x && !pl->extra_kind; x++)
            if (!(*x)->after) /* the row of "+1d" */
                pl->extra_kind = *x;
        pl->extra_plus = p->adv > 0;
        pl->extra_minus = p->adv < 0;
        return settle_extra(p, pl, &p->t[p->pos - 1]);
    }
    keep_step *k = p_alloc(p, sizeof *k);
    if (!k)
        return alea__nomem(p->ctx);
    k->op = p->adv > 0 ? KEEP_HIGH : KEEP_LOW;
    k->n = 1;
    pl->count = 2;
    pl->count_implicit = 0;
    pl->keeps = k;
    pl->nkeeps = 1;
    return ALEA_OK;
}

/* Extra dice that modify the last dice term to their left ("2d10 +1B"). */
static alea_status extra_on_term(parser *p, const alea__extra *x, chainbuf *c, const token *sign,
                                 const token *num, const token *last)
{
    int neg = sign->kind == T_MINUS;
    uint32_t i = c->n;
    while (i > 0 && c->items[i - 1]->kind != N_DICE)
        i--;
    if (i == 0) {
        char ex[128];
        extra_examples(p, ex, sizeof ex, 0);
        return alea__error(p->ctx, ALEA_ERR_INVALID, sign->start, last->end,
                           "%s need a dice term to their left, as in %s (byte %u)", x->what,
                           ex, (unsigned)sign->start);
    }
    const alea__extra *had = c->items[i - 1]->u.pool->extra_kind;
    if (had && had != x) {
        char all[128];
        extra_spellings(p, all, sizeof all);
        return alea__error(p->ctx, ALEA_ERR_INVALID, sign->start, last->end,
                           "this dice term already has extra dice of another kind "
                           "(byte %u): use one kind per term (%s)",
                           (unsigned)sign->start, all);
    }
    node *tn;
    pool *target;
    p->has_extra = 1;
    alea_status st = edit_dice(p, &c->items[i - 1], &tn, &target);
    if (st != ALEA_OK)
        return st;
    target->extra_kind = x;
    if (alea__add_ovf(neg ? target->extra_minus : target->extra_plus, num->num,
                      neg ? &target->extra_minus : &target->extra_plus))
        return alea__error(p->ctx, ALEA_ERR_INVALID, sign->start, last->end,
                           "too many extra dice at byte %u", (unsigned)sign->start);
    return settle_extra(p, target, sign);
}

/*
 * bonus = ("+" | "-") NUM "d" [label]           bonus dice on everything to the left
 *       | "+" RANK                              the same, a word for a count
 *       | ("+" | "-") NUM WORDS                 extras on the last dice term
 * The spellings are the extra-dice table's (mech.h): "+1d", "+expert",
 * "+2B", "+1 DICE", "+1 INJURY DICE".
 */
static alea_status parse_bonus(parser *p, extra_at e, chainbuf *c, bonus_acc *b)
{
    const token *sign = advance(p);
    int neg = sign->kind == T_MINUS;
    alea_status st;
    const token *last;
    if ((st = count_nodes(p, 1, sign->start, sign->end)) != ALEA_OK)
        return st;
    if (e.rank >= 0) {
        const token *nt = advance(p);
        const char *w = e.x->ranks[e.rank];
        if (neg)
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, sign->start, nt->end,
                               "%s only adds dice: write +%s, not -%s (byte %u)",
                               e.x->rank_what, w, w, (unsigned)sign->start);
        if ((st = add_label(p, b, e.x->rank_label, strlen(e.x->rank_label), e.rank + 1)) !=
            ALEA_OK)
            return st;
        last = nt;
    } else {
        const token *num = advance(p);
        int64_t k = neg ? -num->num : num->num;
        last = num;
        for (size_t i = 1; i < e.ntok; i++)
            last = advance(p); /* 'd', or the words */
        if (!e.x->on_left)
            return extra_on_term(p, e.x, c, sign, num, last);
        if (at(p, T_LABEL)) {
            const token *lt = advance(p);
            if ((st = add_label(p, b, p->src + lt->start + 1, lt->end - lt->start - 2, k)) !=
                ALEA_OK)
                return st;
            last = lt;
        } else if (alea__add_ovf(b->plain, k, &b->plain)) {
            return alea__error(p->ctx, ALEA_ERR_INVALID, sign->start, last->end,
                               "too many %s at byte %u", e.x->what, (unsigned)sign->start);
        }
    }
    b->kind = e.x;
    b->seen = 1;
    p->has_extra = 1;
    b->upto = c->n;
    b->end = last->end;
    return ALEA_OK;
}

/* Applies the net bonus dice of a sum to the items left of the last group. */
static alea_status apply_bonus(parser *p, chainbuf *c, bonus_acc *b)
{
    int64_t k = b->plain;
    alea_status st;
    for (uint32_t i = 0; i < b->nlabels; i++)
        if (alea__add_ovf(k, b->labels[i].count, &k))
            k = INT64_MAX;
    if (k == 0)
        return ALEA_OK;
    /* INT64_MIN first: its magnitude is not an int64 (found by fuzzing). */
    if (k == INT64_MIN || (k < 0 ? -k : k) >= alea_limit_max(ALEA_LIMIT_DICE))
        return alea__error(p->ctx, ALEA_ERR_INVALID, c->items[0]->start, b->end,
                           "too many %s (at most %lld)", b->kind->what,
                           (long long)alea_limit_max(ALEA_LIMIT_DICE) - 1);
    int64_t mag = k < 0 ? -k : k;
    /* The term to the left: items [0, upto) as one node. */
    chainbuf left = {0};
    for (uint32_t i = 0; i < b->upto; i++)
        if ((st = chain_push(p, &left, c->items[i], c->ops[i])) != ALEA_OK)
            return st;
    const node *l;
    if ((st = finish_chain(p, N_SUM, &left, &l)) != ALEA_OK)
        return st;
    int64_t fixed;
    if (alea__parse_const(l, &fixed))
        return alea__error(p->ctx, ALEA_ERR_INVALID, l->start, b->end,
                           "%s need dice to their left, as in %s; '%.*s' has none (byte %u)",
                           b->kind->what, b->kind->example, (int)trimmed_len(p, l->start, l->end), p->src + l->start,
                           (unsigned)l->start);
    const node *wrapped;
    const pool *lp = l->kind == N_DICE ? l->u.pool : NULL;
    if (lp && !lp->count_expr && lp->count == 1 && lp->nkeeps == 0 && !lp->has_success &&
        !lp->extra_kind) {
        /* One die: "d20 +1d" rolls 2d20 and keeps the highest. */
        node *ln;
        pool *pl;
        if ((st = edit_dice(p, &l, &ln, &pl)) != ALEA_OK)
            return st;
        pl->extra_kind = b->kind;
        pl->extra_plus = k > 0 ? k : 0;
        pl->extra_minus = k < 0 ? -k : 0;
        if ((st = settle_extra(p, pl, &p->t[p->pos - 1])) != ALEA_OK)
            return st;
        ln->end = (uint32_t)b->end;
        wrapped = l;
    } else {
        /* Anything else is rolled 1+|k| times, keeping the best or worst. */
        node *n;
        if ((st = new_node(p, k > 0 ? N_BEST : N_WORST, l->start, b->end, &n)) != ALEA_OK)
            return st;
        n->op = ALEA__BEST_AS_BONUS;
        n->u.rep.a = l;
        n->u.rep.n = 1 + mag;
        wrapped = n;
    }
    /* Replace the first upto items by the wrapped term. */
    uint32_t rest = c->n - b->upto;
    c->items[0] = wrapped;
    c->ops[0] = OP_ADD;
    memmove(c->items + 1, c->items + b->upto, rest * sizeof *c->items);
    memmove(c->ops + 1, c->ops + b->upto, rest);
    c->n = 1 + rest;
    return ALEA_OK;
}

static alea_status extra_then_product(parser *p, const token *t);

static alea_status parse_sum_items(parser *p, const node **out);

/* sum = product { ("+" | "-") product | bonus } */
static alea_status parse_sum(parser *p, const node **out)
{
    size_t outer = p->sum_start;
    p->sum_start = peek(p)->start;
    alea_status st = parse_sum_items(p, out);
    p->sum_start = outer;
    return st;
}

static alea_status parse_sum_items(parser *p, const node **out)
{
    chainbuf c = {0};
    bonus_acc b;
    const node *a;
    alea_status st;
    memset(&b, 0, sizeof b);
    if ((at(p, T_PLUS) || at(p, T_MINUS)) && extra_here(p).x) {
        const token *t = peek(p);
        char ex[128];
        extra_examples(p, ex, sizeof ex, -1);
        return alea__error(p->ctx, ALEA_ERR_INVALID, t->start, peek_at(p, 2)->end,
                           "extra dice need something to their left, as in %s (byte %u)", ex,
                           (unsigned)t->start);
    }
    if ((st = parse_product(p, &a)) != ALEA_OK)
        return st;
    if ((st = chain_push(p, &c, a, OP_ADD)) != ALEA_OK)
        return st;
    for (;;) {
        const token *t = peek(p);
        if (t->kind != T_PLUS && t->kind != T_MINUS)
            break;
        extra_at e = extra_here(p);
        if (e.x) {
            if ((st = parse_bonus(p, e, &c, &b)) != ALEA_OK)
                return st;
            tok_kind next = (tok_kind)peek(p)->kind;
            if (next == T_STAR || next == T_SLASH || next == T_SLASHUP || next == T_SLASHNEAR)
                return extra_then_product(p, peek(p));
            continue;
        }
        advance(p);
        if ((st = parse_product(p, &a)) != ALEA_OK)
            return st;
        if ((st = chain_push(p, &c, a, t->kind == T_PLUS ? OP_ADD : OP_SUB)) != ALEA_OK)
            return st;
    }
    if (b.seen && (st = apply_bonus(p, &c, &b)) != ALEA_OK)
        return st;
    return finish_chain(p, N_SUM, &c, out);
}

/* After extra dice ("2d10 +1B"), a '*' or '/' would apply to the last term
 * only: say how to write it. */
static alea_status extra_then_product(parser *p, const token *t)
{
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                       "extra dice such as +1B or +1d end a sum, so %s at byte %u "
                       "cannot follow them: put the sum in parentheses, as in "
                       "(2d10 +1B) /^ 2",
                       alea__tok_desc((tok_kind)t->kind), (unsigned)t->start);
}

/* compare = sum [ ("=" | "<>" | "<" | "<=" | ">" | ">=") sum ] */
static alea_status parse_compare(parser *p, const node **out)
{
    const node *a, *b;
    alea_status st;
    if ((st = parse_sum(p, &a)) != ALEA_OK)
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
    if ((st = parse_sum(p, &b)) != ALEA_OK)
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

/* expr = compare */
alea_status alea__p_expr(parser *p, const node **out)
{
    *out = NULL;
    return parse_compare(p, out);
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

int alea__p_scope_find(const parser *p, const char *name, size_t len, uint32_t *slot)
{
    for (const alea__scope *sc = p->scope; sc; sc = sc->up)
        if (sc->len == len && memcmp(sc->name, name, len) == 0) {
            *slot = sc->slot;
            return 1;
        }
    return 0;
}

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

/* Parses the first len bytes of e->src (alea__parse, below). */
static alea_status parse_prefix(alea_ctx *ctx, alea_expr *e, size_t len, reading *r)
{
    alea__arena *arena = &e->arena;
    const char *src = e->src;
    const node **root = &e->root;
    e->hint = NULL;
    token_list toks;
    alea_status st = alea__lex(ctx, src, len, ctx->lang->is_word, &toks);
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
        if (toks.n == 1) {
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
        ctx->lang->is_word(src + w, wend - w))
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
            ctx->lang->is_word(src + ws, k + 1 - ws))
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
        if (again != ALEA_OK)
            return parse_prefix(ctx, e, e->len, NULL); /* its own error, again */
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
