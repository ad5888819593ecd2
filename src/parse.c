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
/* ---- expressions ------------------------------------------------------------ */

/*
 * postfix = NUM [dice_tail] | "(" expr ")" [dice_tail] | dice_tail | call
 */
static alea_status parse_postfix(parser *p, const node **out)
{
    const token *t = peek(p);
    alea_status st;
    switch (t->kind) {
    case T_NUM: {
        advance(p);
        if (at(p, T_D))
            return alea__p_dice_tail(p, NULL, t->num, 0, t->start, out);
        node *n;
        if ((st = new_node(p, N_NUM, t->start, t->end, &n)) != ALEA_OK)
            return st;
        n->u.num = t->num;
        *out = n;
        return ALEA_OK;
    }
    case T_D:
        return alea__p_dice_tail(p, NULL, 1, 1, t->start, out);
    case T_LPAREN: {
        advance(p);
        if ((st = enter(p, t)) != ALEA_OK)
            return st;
        const node *inner;
        if ((st = alea__p_expr(p, &inner)) != ALEA_OK)
            return st;
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
        return err_at(p, t, "a number, a die or '('");
    }
}

/* unary = ("-" | "+") unary | postfix */
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
    return parse_postfix(p, out);
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

/* product = unary { ("*" | "/" | "/^" | "/~") unary } */
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
        case T_SLASH: op = OP_DIV; break;
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

/* ---- bonus dice, boons and banes, +/- DICE ---------------------------------- */

/* Training, as bonus dice: +proficient is +1d, +expert +2d, +master +3d. */
const char *const alea__p_training[] = {"proficient", "expert", "master", NULL};
/* The words of extra dice: "+1 DICE", "+1 INJURY DICE". */
const char *const alea__p_extra_words[] = {"dice", "injury", NULL};

typedef enum bonus_kind {
    BON_NONE,
    BON_D,      /* +1d [label]          bonus and penalty dice */
    BON_TRAIN,  /* +proficient/expert/master: +1d/+2d/+3d [proficiency] */
    BON_B,      /* +2B                  boons and banes */
    BON_DICE,   /* +1 DICE              +/- DICE */
    BON_INJURY  /* +1 INJURY DICE       +/- DICE, injury */
} bonus_kind;


/* The index of word t among words (NULL-terminated), or -1. */
static int word_index(const parser *p, const token *t, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (alea__p_is_word(p, t, words[i]))
            return i;
    return -1;
}

/* At a '+' or '-': is what follows extra dice rather than a term? */
static bonus_kind bonus_at(const parser *p)
{
    const token *a = peek_at(p, 1), *b = peek_at(p, 2), *c = peek_at(p, 3);
    if (word_index(p, a, alea__p_training) >= 0)
        return BON_TRAIN;
    if (a->kind != T_NUM)
        return BON_NONE;
    if (b->kind == T_D && !alea__p_starts_sides((tok_kind)c->kind))
        return BON_D;
    if (b->kind == T_B)
        return BON_B;
    if (alea__p_is_word(p, b, "dice"))
        return BON_DICE;
    if (alea__p_is_word(p, b, "injury") && alea__p_is_word(p, c, "dice"))
        return BON_INJURY;
    return BON_NONE;
}

/* Labelled bonus dice: the same label counts once (the largest count). */
typedef struct label_slot {
    const char *text;
    size_t len;
    int64_t count;
} label_slot;

typedef struct bonus_acc {
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
        label_slot *nl = alloc(p, ncap * sizeof *nl);
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

/* Recomputes a pool's extra dice from what was written (boons are capped). */
static alea_status settle_extra(parser *p, pool *pl, const token *at)
{
    int64_t plus = pl->extra_plus, minus = pl->extra_minus;
    if (pl->extra_style == EXTRA_BOON) {
        plus = plus > ALEA__BOON_CAP ? ALEA__BOON_CAP : plus;
        minus = minus > ALEA__BOON_CAP ? ALEA__BOON_CAP : minus;
    }
    int64_t net = plus - minus;
    if (pl->extra_style == EXTRA_BOON && is_null_die(pl)) {
        /* The null die: 0, or 1 with any net boon, or -1 with any net bane. */
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
    if (pl->has_success && pl->explode == EXPLODE_EACH && net != 0)
        return alea__error(p->ctx, ALEA_ERR_INVALID, at->start, at->end,
                           "success counting on '!' dice with extra dice is ambiguous "
                           "(byte %u): write '!!' to judge each die's total",
                           (unsigned)at->start);
    return ALEA_OK;
}

/*
 * bonus = ("+" | "-") NUM "d" [label]           bonus dice on everything to the left
 *       | "+" ("proficient" | "expert" | "master")
 *       | ("+" | "-") NUM "b"                   boons/banes on the last dice term
 *       | ("+" | "-") NUM ["injury"] "dice"     +/- DICE on the last dice term
 */
static alea_status parse_bonus(parser *p, bonus_kind kind, chainbuf *c, bonus_acc *b)
{
    const token *sign = advance(p);
    int neg = sign->kind == T_MINUS;
    alea_status st;
    const token *last;
    if ((st = count_nodes(p, 1, sign->start, sign->end)) != ALEA_OK)
        return st;
    if (kind == BON_TRAIN) {
        const token *nt = advance(p);
        int w = word_index(p, nt, alea__p_training);
        int64_t k = w + 1;
        if (neg)
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, sign->start, nt->end,
                               "training only adds dice: write +%s, not -%s (byte %u)",
                               alea__p_training[w], alea__p_training[w], (unsigned)sign->start);
        if ((st = add_label(p, b, "proficiency", 11, k)) != ALEA_OK)
            return st;
        last = nt;
    } else {
        const token *num = advance(p);
        int64_t k = neg ? -num->num : num->num;
        last = advance(p); /* d, b, dice or injury */
        if (kind == BON_INJURY)
            last = advance(p); /* dice */
        if (kind == BON_D) {
            if (at(p, T_LABEL)) {
                const token *lt = advance(p);
                if ((st = add_label(p, b, p->src + lt->start + 1, lt->end - lt->start - 2,
                                    k)) != ALEA_OK)
                    return st;
                last = lt;
            } else if (alea__add_ovf(b->plain, k, &b->plain)) {
                return alea__error(p->ctx, ALEA_ERR_INVALID, sign->start, last->end,
                                   "too many bonus dice at byte %u", (unsigned)sign->start);
            }
        } else {
            /* Boons, banes and DICE modify the last dice term to the left. */
            pool *target = NULL;
            for (uint32_t i = c->n; i-- > 0;) {
                if (c->items[i]->kind == N_DICE) {
                    target = own_pool(c->items[i]);
                    break;
                }
            }
            static const char *const what[] = {"", "", "", "boons and banes",
                                               "+/- DICE", "+/- INJURY DICE"};
            if (!target)
                return alea__error(p->ctx, ALEA_ERR_INVALID, sign->start, last->end,
                                   "%s need a dice term to their left, as in 2d10 +1B or "
                                   "2d6 +1 DICE (byte %u)",
                                   what[kind], (unsigned)sign->start);
            uint8_t style = kind == BON_B ? EXTRA_BOON : kind == BON_DICE ? EXTRA_DICE
                                                                           : EXTRA_INJURY;
            if (target->extra_style != EXTRA_NONE && target->extra_style != style)
                return alea__error(p->ctx, ALEA_ERR_INVALID, sign->start, last->end,
                                   "this dice term already has extra dice of another kind "
                                   "(byte %u): use one kind per term (+1d, +1B, +1 DICE or +1 INJURY DICE)",
                                   (unsigned)sign->start);
            target->extra_style = style;
            if (alea__add_ovf(neg ? target->extra_minus : target->extra_plus, num->num,
                              neg ? &target->extra_minus : &target->extra_plus))
                return alea__error(p->ctx, ALEA_ERR_INVALID, sign->start, last->end,
                                   "too many extra dice at byte %u", (unsigned)sign->start);
            return settle_extra(p, target, sign);
        }
    }
    b->seen = 1;
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
                           "too many bonus dice (at most %lld)",
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
                           "bonus dice need dice to their left, as in d20 +1d; '%.*s' "
                           "has none (byte %u)",
                           (int)trimmed_len(p, l->start, l->end), p->src + l->start,
                           (unsigned)l->start);
    const node *wrapped;
    pool *pl = l->kind == N_DICE ? own_pool(l) : NULL;
    if (pl && !pl->count_expr && pl->count == 1 && pl->nkeeps == 0 && !pl->has_success &&
        pl->extra_style == EXTRA_NONE) {
        /* One die: "d20 +1d" rolls 2d20 and keeps the highest. */
        pl->extra_style = EXTRA_BONUS;
        pl->extra_plus = k > 0 ? k : 0;
        pl->extra_minus = k < 0 ? -k : 0;
        if ((st = settle_extra(p, pl, &p->t[p->pos - 1])) != ALEA_OK)
            return st;
        own_node(l)->end = (uint32_t)b->end;
        wrapped = l;
    } else {
        /* Anything else is rolled 1+|k| times, keeping the best or worst. */
        node *n;
        if ((st = new_node(p, k > 0 ? N_BEST : N_WORST, l->start, b->end, &n)) != ALEA_OK)
            return st;
        n->op = 1;
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

/* sum = product { ("+" | "-") product | bonus } */
static alea_status parse_sum(parser *p, const node **out)
{
    chainbuf c = {0};
    bonus_acc b;
    const node *a;
    alea_status st;
    memset(&b, 0, sizeof b);
    if ((at(p, T_PLUS) || at(p, T_MINUS)) && bonus_at(p) != BON_NONE) {
        const token *t = peek(p);
        return alea__error(p->ctx, ALEA_ERR_INVALID, t->start, peek_at(p, 2)->end,
                           "extra dice need something to their left, as in d20 +1d, "
                           "2d10 +1B or 2d6 +1 DICE (byte %u)",
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
        bonus_kind bk = bonus_at(p);
        if (bk != BON_NONE) {
            if ((st = parse_bonus(p, bk, &c, &b)) != ALEA_OK)
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
    default:
        *out = a;
        return ALEA_OK;
    }
    advance(p);
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
alea_status alea__parse(alea_ctx *ctx, alea__arena *arena, const char *src,
                        size_t len, const node **root, uint32_t *nodes)
{
    token_list toks;
    alea_status st = alea__lex(ctx, src, len, alea__lex_is_word, &toks);
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
        if (toks.n == 1) {
            st = alea__error(ctx, ALEA_ERR_SYNTAX, 0, 0,
                             "empty expression: write dice such as 1d20 or 4d6kh3");
        } else {
            st = alea__p_expr(&p, root);
            if (st == ALEA_OK && !at(&p, T_EOF)) {
                const token *t = peek(&p);
                if (t->kind == T_RPAREN)
                    st = alea__error(ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                     "unmatched ')' at byte %u", (unsigned)t->start);
                else
                    st = err_at(&p, t, "an operator or the end of the expression");
            }
            *nodes = p.nodes;
        }
    }
    alea__mem_free(ctx, toks.v, alea__mul_size(toks.cap, sizeof(token)));
    return st;
}
