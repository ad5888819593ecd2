/*
 * parse_extra.c -- sums and the extra dice written in them: bonus and
 * penalty dice ("d20 +1d", "+1d [bless]", "+expert"), extra dice on the
 * last dice term ("2d10 +1B", "2d6 +1 DICE"), their labels, and advantage
 * on a single d20 (alea__p_d20_seen). The spellings are the extra-dice
 * table's (mech.h); the products a sum adds are parse.c's (parser.h).
 */
#include "parser.h"
#include "mech.h"

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
alea_status alea__p_d20_seen(parser *p, alea_status st, const node **out)
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
    if ((st = alea__p_finish_chain(p, N_SUM, &left, &l)) != ALEA_OK)
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
alea_status alea__p_sum(parser *p, const node **out)
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
    if ((st = alea__p_product(p, &a)) != ALEA_OK)
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
        if ((st = alea__p_product(p, &a)) != ALEA_OK)
            return st;
        if ((st = chain_push(p, &c, a, t->kind == T_PLUS ? OP_ADD : OP_SUB)) != ALEA_OK)
            return st;
    }
    if (b.seen && (st = apply_bonus(p, &c, &b)) != ALEA_OK)
        return st;
    return alea__p_finish_chain(p, N_SUM, &c, out);
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
