/*
 * parse.c -- tokens -> AST, by hand-written recursive descent: expressions
 * (sums, products, signs, comparisons, extra dice); the text around an
 * expression and the entry point are parse_text.c, dice terms parse_dice.c,
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
