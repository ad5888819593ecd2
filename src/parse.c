/*
 * parse.c -- tokens -> AST, by hand-written recursive descent.
 *
 * docs/grammar.md is the grammar; each function below carries its rule.
 * Depth is a counter that goes up and down (enter/leave), checked against
 * the DEPTH limit, so hostile nesting fails fast and the evaluators'
 * recursion over the tree stays bounded. Semantic checks that need only the
 * tree (an explosion that never ends, a reroll that matches every face) are
 * made here, so that they fail before anything is rolled.
 */
#include <string.h>

#include "ast.h"
#include "lex.h"
#include "mech/dd.h"
#include "mech/event.h"
#include "mech/tier.h"

typedef struct parser {
    alea_ctx *ctx;
    alea__arena *arena;
    const char *src;
    size_t len;
    const token *t; /* token array, ends with T_EOF */
    size_t pos;
    int64_t depth, max_depth;
    uint32_t nodes;
    int64_t max_nodes;
} parser;

/* ---- helpers ------------------------------------------------------------- */

static const token *peek(const parser *p)
{
    return &p->t[p->pos];
}

static const token *peek_at(const parser *p, size_t k)
{
    size_t i = p->pos;
    while (k-- > 0 && p->t[i].kind != T_EOF)
        i++;
    return &p->t[i];
}

static int at(const parser *p, tok_kind k)
{
    return p->t[p->pos].kind == k;
}

static const token *advance(parser *p)
{
    const token *t = &p->t[p->pos];
    if (t->kind != T_EOF)
        p->pos++;
    return t;
}

static int accept(parser *p, tok_kind k)
{
    if (at(p, k)) {
        advance(p);
        return 1;
    }
    return 0;
}

/* "unexpected X" error at token t: message names what was expected. */
static alea_status err_at(parser *p, const token *t, const char *expected)
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

static alea_status expect(parser *p, tok_kind k, const char *what)
{
    if (accept(p, k))
        return ALEA_OK;
    return err_at(p, peek(p), what);
}

static alea_status enter(parser *p, const token *t)
{
    if (++p->depth > p->max_depth)
        return alea__error(p->ctx, ALEA_ERR_LIMIT, t->start, t->end,
                           "expression nested too deeply at byte %u (depth limit is %lld)",
                           (unsigned)t->start, (long long)p->max_depth);
    return ALEA_OK;
}

static void leave(parser *p)
{
    p->depth--;
}

static alea_status count_nodes(parser *p, uint32_t k, size_t start, size_t end)
{
    if ((int64_t)p->nodes + k > p->max_nodes)
        return alea__error(p->ctx, ALEA_ERR_LIMIT, start, end,
                           "too many terms at byte %zu (node limit is %lld)",
                           start, (long long)p->max_nodes);
    p->nodes += k;
    return ALEA_OK;
}

static void *alloc(parser *p, size_t size)
{
    return alea__arena_alloc(p->arena, size);
}

static alea_status new_node(parser *p, node_kind kind, size_t start, size_t end,
                            node **out)
{
    *out = NULL;
    alea_status st = count_nodes(p, 1, start, end);
    if (st != ALEA_OK)
        return st;
    node *n = alloc(p, sizeof *n);
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

static alea_status chain_push(parser *p, chainbuf *c, const node *item, uint8_t op)
{
    if (c->n == c->cap) {
        uint32_t ncap = c->cap ? c->cap * 2 : 4;
        const node **ni = alloc(p, ncap * sizeof *ni);
        uint8_t *no = alloc(p, ncap);
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

static alea_status parse_expr(parser *p, const node **out);
static alea_status finish_chain(parser *p, node_kind kind, chainbuf *c, const node **out);

/*
 * The tree is immutable once published, but while parsing, the parser owns
 * every node it made and may still edit one (boons attach to the dice term
 * before them). These give back the writable pointer the parser allocated.
 */
static pool *own_pool(const node *n)
{
    pool *pl;
    const pool *c = n->u.pool;
    memcpy(&pl, &c, sizeof pl);
    return pl;
}

static node *own_node(const node *n)
{
    node *m;
    memcpy(&m, &n, sizeof m);
    return m;
}

/* ---- dice ------------------------------------------------------------------ */

/* signed = ["-"] NUM */
static alea_status parse_signed(parser *p, int64_t *v, const char *what)
{
    *v = 0;
    int neg = accept(p, T_MINUS);
    const token *t = peek(p);
    if (t->kind != T_NUM)
        return err_at(p, t, what);
    advance(p);
    *v = neg ? -t->num : t->num;
    return ALEA_OK;
}

/* cond = [ "=" | "<" | "<=" | ">" | ">=" ] signed */
static alea_status parse_cond(parser *p, cond *c, const char *what)
{
    const token *t = peek(p);
    switch (t->kind) {
    case T_EQ: c->op = CMP_EQ; advance(p); break;
    case T_LT: c->op = CMP_LT; advance(p); break;
    case T_LE: c->op = CMP_LE; advance(p); break;
    case T_GT: c->op = CMP_GT; advance(p); break;
    case T_GE: c->op = CMP_GE; advance(p); break;
    case T_NUM:
    case T_MINUS: c->op = CMP_EQ; break;
    default: return err_at(p, t, what);
    }
    return parse_signed(p, &c->value, what);
}

/* faces = item { "," item } ; item = signed [ ".." signed ]   (inside braces) */
static alea_status parse_faces(parser *p, die_spec *d, const token *open)
{
    int64_t *faces = NULL;
    uint32_t n = 0, cap = 0;
    int64_t first_lo = 0, first_hi = 0;
    int single_range = 0;
    alea_status st;
    if (at(p, T_RBRACE))
        return alea__error(p->ctx, ALEA_ERR_INVALID, open->start, peek(p)->end,
                           "a die needs at least one face: d{} has none (byte %u)",
                           (unsigned)open->start);
    for (;;) {
        int64_t lo, hi;
        const token *it = peek(p);
        if ((st = parse_signed(p, &lo, "a face value")) != ALEA_OK)
            return st;
        hi = lo;
        int is_range = 0;
        if (accept(p, T_DOTDOT)) {
            if ((st = parse_signed(p, &hi, "the end of the face range")) != ALEA_OK)
                return st;
            if (hi < lo)
                return alea__error(p->ctx, ALEA_ERR_INVALID, it->start, p->t[p->pos - 1].end,
                                   "empty face range %lld..%lld at byte %u",
                                   (long long)lo, (long long)hi, (unsigned)it->start);
            is_range = 1;
        }
        if (n == 0 && is_range && at(p, T_RBRACE)) {
            /* d{a..b}: a range die, never expanded. */
            first_lo = lo;
            first_hi = hi;
            single_range = 1;
            break;
        }
        /* Expanded faces count against the node limit. */
        uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
        if (span == 0 || span > (uint64_t)(p->max_nodes - p->nodes))
            return alea__error(p->ctx, ALEA_ERR_LIMIT, it->start, p->t[p->pos - 1].end,
                               "too many faces in a custom die at byte %u (node limit is "
                               "%lld terms; write a single range d{a..b} for large dice)",
                               (unsigned)it->start, (long long)p->max_nodes);
        p->nodes += (uint32_t)span;
        for (uint64_t k = 0; k < span; k++) {
            if (n == cap) {
                uint32_t ncap = cap ? cap * 2 : 8;
                int64_t *nf = alloc(p, ncap * sizeof *nf);
                if (!nf)
                    return alea__nomem(p->ctx);
                if (n)
                    memcpy(nf, faces, n * sizeof *nf);
                faces = nf;
                cap = ncap;
            }
            faces[n++] = (int64_t)((uint64_t)lo + k);
        }
        if (!accept(p, T_COMMA))
            break;
    }
    if ((st = expect(p, T_RBRACE, "',' or '}' in the face list")) != ALEA_OK)
        return st;
    if (single_range) {
        d->kind = FACES_RANGE;
        d->style = DIE_BRACE;
        d->lo = first_lo;
        d->hi = first_hi;
        return ALEA_OK;
    }
    int64_t *sorted = alloc(p, n * sizeof *sorted);
    if (!sorted)
        return alea__nomem(p->ctx);
    memcpy(sorted, faces, n * sizeof *sorted);
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: lists are short */
        int64_t v = sorted[i];
        uint32_t j = i;
        while (j > 0 && sorted[j - 1] > v) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = v;
    }
    d->kind = FACES_LIST;
    d->style = DIE_PLAIN;
    d->faces = faces;
    d->sorted = sorted;
    d->nfaces = n;
    d->lo = sorted[0];
    d->hi = sorted[n - 1];
    return ALEA_OK;
}

/* sides = NUM | "%" | "F" | "{" faces "}" */
static alea_status parse_sides(parser *p, die_spec *d, const token *dtok)
{
    const token *t = peek(p);
    d->kind = FACES_RANGE;
    d->style = DIE_PLAIN;
    switch (t->kind) {
    case T_NUM:
        advance(p);
        d->lo = t->num == 0 ? 0 : 1; /* d0 is the null die: one face, 0 */
        d->hi = t->num;
        return ALEA_OK;
    case T_PERCENT:
        advance(p);
        d->style = DIE_PCT;
        d->lo = 1;
        d->hi = 100;
        return ALEA_OK;
    case T_F:
        advance(p);
        d->style = DIE_FUDGE;
        d->lo = -1;
        d->hi = 1;
        return ALEA_OK;
    case T_LBRACE:
        advance(p);
        return parse_faces(p, d, t);
    default:
        (void)dtok;
        return err_at(p, t, "the number of sides after 'd' (as in d6, d%, dF or d{1,2,3})");
    }
}

/* Length of src[start, end) without trailing blanks, for hints. */
static size_t trimmed_len(const parser *p, size_t start, size_t end)
{
    while (end > start && (p->src[end - 1] == ' ' || p->src[end - 1] == '\t'))
        end--;
    return end - start;
}

static int starts_sides(tok_kind k)
{
    return k == T_NUM || k == T_PERCENT || k == T_F || k == T_LBRACE;
}

/* Does cond c match every face in [a, b] (a <= b)? Conditions on a range
 * are intervals touching one end (or a point), so the ends decide. */
static int cond_all_in(const cond *c, int64_t a, int64_t b)
{
    if (c->op == CMP_EQ)
        return a == b && c->value == a;
    return alea__cond_match(c, a) && alea__cond_match(c, b);
}

/* Does cond c match every face of die d, except those matching `except`
 * (faces a reroll "r" removes; NULL for none)? */
static int cond_all(const die_spec *d, const cond *c, const cond *except)
{
    if (d->kind == FACES_LIST) {
        for (uint32_t i = 0; i < d->nfaces; i++) {
            int64_t v = d->sorted[i];
            if (except && alea__cond_match(except, v))
                continue;
            if (!alea__cond_match(c, v))
                return 0;
        }
        return 1;
    }
    if (!except)
        return cond_all_in(c, d->lo, d->hi);
    /* The faces left after removing `except` form at most two intervals. */
    int64_t lo = d->lo, hi = d->hi, v = except->value;
    int64_t a1 = lo, b1 = hi, a2 = 1, b2 = 0; /* [a2,b2] empty unless set */
    switch (except->op) {
    case CMP_EQ:
        if (v < lo || v > hi)
            break;
        b1 = v - 1; /* v > lo here or the interval is empty: v >= lo > INT64_MIN */
        if (v < hi) {
            a2 = v + 1;
            b2 = hi;
        }
        if (v == lo) { /* first interval empty */
            a1 = 1;
            b1 = 0;
        }
        break;
    case CMP_LT: if (v > lo) a1 = v; break;       /* keep [v, hi] */
    case CMP_LE: if (v >= lo) { if (v == INT64_MAX) { a1 = 1; b1 = 0; } else a1 = v + 1; } break;
    case CMP_GT: if (v < hi) b1 = v; break;       /* keep [lo, v] */
    case CMP_GE: if (v <= hi) { if (v == INT64_MIN) { a1 = 1; b1 = 0; } else b1 = v - 1; } break;
    default: break;
    }
    if (a1 <= b1 && !cond_all_in(c, a1, b1))
        return 0;
    if (a2 <= b2 && !cond_all_in(c, a2, b2))
        return 0;
    return 1;
}

static int cond_any(const die_spec *d, const cond *c)
{
    if (d->kind == FACES_RANGE) {
        switch (c->op) {
        case CMP_EQ: return c->value >= d->lo && c->value <= d->hi;
        case CMP_LT: return d->lo < c->value;
        case CMP_LE: return d->lo <= c->value;
        case CMP_GT: return d->hi > c->value;
        case CMP_GE: return d->hi >= c->value;
        default: return 1;
        }
    }
    for (uint32_t i = 0; i < d->nfaces; i++)
        if (alea__cond_match(c, d->sorted[i]))
            return 1;
    return 0;
}

static const char *cond_op_str(uint8_t op)
{
    switch (op) {
    case CMP_EQ: return "=";
    case CMP_LT: return "<";
    case CMP_LE: return "<=";
    case CMP_GT: return ">";
    case CMP_GE: return ">=";
    default: return "<>";
    }
}

/* Checks that need the whole pool: run once its modifiers are parsed. */
static alea_status check_pool(parser *p, const pool *pl, const node *n,
                              const token *rtok, const token *etok,
                              const token *stok)
{
    const die_spec *d = &pl->die;
    if (pl->has_reroll && cond_all(d, &pl->reroll, NULL))
        return alea__error(p->ctx, ALEA_ERR_INVALID, rtok->start, rtok->end,
                           pl->reroll_once
                               ? "reroll condition %s%lld matches every face of the die, "
                                 "so every die would be rerolled (byte %u)"
                               : "reroll condition %s%lld matches every face of the die, "
                                 "so no roll could be kept (byte %u)",
                           cond_op_str(pl->reroll.op), (long long)pl->reroll.value,
                           (unsigned)rtok->start);
    if (pl->explode != EXPLODE_NONE && !cond_any(d, &pl->trigger))
        return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                           "the explosion trigger %s%lld matches no face of the die, so "
                           "it would never explode (byte %u); to count successes on "
                           "exploding dice, give the trigger first, as in 3d6!!6>=7",
                           cond_op_str(pl->trigger.op), (long long)pl->trigger.value,
                           (unsigned)etok->start);
    if (pl->explode != EXPLODE_NONE) {
        /* With "r", rerolled faces never show; with "ro" they can. */
        const cond *gone = pl->has_reroll && !pl->reroll_once ? &pl->reroll : NULL;
        if (cond_all(d, &pl->trigger, gone)) {
            if (!pl->trigger_written)
                return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                                   "explosion would never end: every roll of this die "
                                   "shows its maximum %lld (byte %u)",
                                   (long long)d->hi, (unsigned)etok->start);
            return alea__error(p->ctx, ALEA_ERR_INVALID, etok->start, etok->end,
                               "explosion would never end: the trigger %s%lld matches "
                               "every face of the die (byte %u)",
                               cond_op_str(pl->trigger.op), (long long)pl->trigger.value,
                               (unsigned)etok->start);
        }
    }
    if (pl->has_success) {
        if (pl->explode == EXPLODE_EACH && pl->nkeeps > 0)
            return alea__error(p->ctx, ALEA_ERR_INVALID, stok->start, stok->end,
                               "success counting on '!' dice with keep or drop is "
                               "ambiguous (byte %u): write '!!' to judge each die's "
                               "total, or drop the keep",
                               (unsigned)stok->start);
        if (pl->explode != EXPLODE_COMPOUND && !pl->penetrate &&
            !cond_any(d, &pl->success) &&
            !(pl->has_failure && cond_any(d, &pl->failure)))
            return alea__error(p->ctx, ALEA_ERR_INVALID, stok->start, stok->end,
                               "no face of the die is %s %lld, so no die could count "
                               "as a success (byte %u); to compare a total, put it in "
                               "parentheses, as in (%.*s) %s %lld",
                               cond_op_str(pl->success.op), (long long)pl->success.value,
                               (unsigned)stok->start,
                               (int)trimmed_len(p, n->start, stok->start), p->src + n->start,
                               cond_op_str(pl->success.op), (long long)pl->success.value);
    }
    return ALEA_OK;
}

/*
 * dice_tail = "d" sides { modifier }
 * modifier  = keep | explode | reroll | success
 * keep      = ("kh" | "kl" | "dh" | "dl" | "k" | "d") [NUM]
 * explode   = "!" ["!"] ["p"] [cond]
 * reroll    = ("r" | "ro" | "ra") cond
 * success   = ("=" | "<" | "<=" | ">" | ">=") signed ["f" cond]
 */
static alea_status parse_dice_tail(parser *p, const node *count_expr, int64_t count,
                                   int implicit, size_t start, const node **out)
{
    alea_status st;
    const token *dtok = advance(p); /* 'd' */
    pool *pl = alloc(p, sizeof *pl);
    if (!pl)
        return alea__nomem(p->ctx);
    memset(pl, 0, sizeof *pl);
    pl->count_expr = count_expr;
    pl->count = count;
    pl->count_implicit = (uint8_t)implicit;
    if ((st = parse_sides(p, &pl->die, dtok)) != ALEA_OK)
        return st;

    keep_step *keeps = NULL;
    uint32_t nkeeps = 0, kcap = 0;
    const token *rtok = NULL, *etok = NULL, *stok = NULL;
    for (;;) {
        const token *t = peek(p);
        uint8_t kop;
        switch (t->kind) {
        case T_KH: kop = KEEP_HIGH; goto keep;
        case T_K: kop = KEEP_HIGH; goto keep;
        case T_KL: kop = KEEP_LOW; goto keep;
        case T_DH: kop = DROP_HIGH; goto keep;
        case T_DL: kop = DROP_LOW; goto keep;
        case T_D:
            kop = DROP_LOW;
        keep: {
            advance(p);
            int64_t k = 1;
            if (at(p, T_NUM))
                k = advance(p)->num;
            if (nkeeps == kcap) {
                uint32_t ncap = kcap ? kcap * 2 : 2;
                keep_step *nk = alloc(p, ncap * sizeof *nk);
                if (!nk)
                    return alea__nomem(p->ctx);
                if (nkeeps)
                    memcpy(nk, keeps, nkeeps * sizeof *nk);
                keeps = nk;
                kcap = ncap;
            }
            if ((st = count_nodes(p, 1, t->start, t->end)) != ALEA_OK)
                return st;
            keeps[nkeeps].op = kop;
            keeps[nkeeps].n = k;
            nkeeps++;
            continue;
        }
        case T_BANG:
            if (etok)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                   "a die can explode only one way, second '!' "
                                   "modifier at byte %u",
                                   (unsigned)t->start);
            etok = advance(p);
            pl->explode = EXPLODE_EACH;
            if (at(p, T_BANG) && peek(p)->start == etok->end) {
                advance(p);
                pl->explode = EXPLODE_COMPOUND;
            }
            if (accept(p, T_P))
                pl->penetrate = 1;
            pl->trigger.op = CMP_EQ;
            pl->trigger.value = pl->die.hi;
            switch (peek(p)->kind) {
            case T_EQ: case T_LT: case T_LE: case T_GT: case T_GE: case T_NUM:
                if ((st = parse_cond(p, &pl->trigger, "an explosion condition")) != ALEA_OK)
                    return st;
                pl->trigger_written = 1;
                break;
            default:
                break;
            }
            continue;
        case T_R:
        case T_RO:
            if (rtok)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                   "a die can have only one reroll modifier, second "
                                   "one at byte %u",
                                   (unsigned)t->start);
            rtok = advance(p);
            pl->has_reroll = 1;
            pl->reroll_once = t->kind == T_RO;
            if ((st = parse_cond(p, &pl->reroll,
                                 "a reroll condition (as in r1, r<3, ro<=2)")) != ALEA_OK)
                return st;
            continue;
        case T_RA:
            if (pl->has_reroll_one)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                   "'ra' given twice, second at byte %u", (unsigned)t->start);
            advance(p);
            pl->has_reroll_one = 1;
            if ((st = parse_cond(p, &pl->reroll_one,
                                 "a condition for the die to reroll (as in ra1)")) != ALEA_OK)
                return st;
            continue;
        case T_EQ: case T_LT: case T_LE: case T_GT: case T_GE:
            if (stok)
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                                   "success counting given twice, second at byte %u "
                                   "(to compare the total, put the dice in parentheses)",
                                   (unsigned)t->start);
            stok = t;
            pl->has_success = 1;
            if ((st = parse_cond(p, &pl->success, "a success threshold")) != ALEA_OK)
                return st;
            if (at(p, T_D) && starts_sides((tok_kind)peek_at(p, 1)->kind)) {
                /* "1d20 >= 1d20": the threshold would become "1" and the rest
                 * a drop. It is a comparison of two rolls. */
                return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, peek_at(p, 1)->end,
                                   "a success threshold must be a number (byte %u); to "
                                   "compare two rolls, put the first in parentheses: "
                                   "(%.*s) %s ...",
                                   (unsigned)t->start, (int)trimmed_len(p, start, t->start),
                                   p->src + start, alea__cmp_str(pl->success.op));
            }
            if (accept(p, T_F)) {
                pl->has_failure = 1;
                if ((st = parse_cond(p, &pl->failure,
                                     "a failure condition (as in f1, f<3)")) != ALEA_OK)
                    return st;
            }
            continue;
        default:
            break;
        }
        break;
    }
    pl->keeps = keeps;
    pl->nkeeps = nkeeps;
    node *n;
    size_t end = p->t[p->pos - 1].end;
    if ((st = new_node(p, N_DICE, start, end, &n)) != ALEA_OK)
        return st;
    n->u.pool = pl;
    if ((st = check_pool(p, pl, n, rtok, etok, stok)) != ALEA_OK)
        return st;
    *out = n;
    return ALEA_OK;
}

/* ---- primaries ------------------------------------------------------------- */

/*
 * passive = "passive" "(" expr [ "," ("proficient" | "expert" | "master") ] ")"
 * The bonus-dice rules' passive score: 10 + modifier, + 4 proficient, + 6 expert,
 * + 7 master. Built as the sum it stands for.
 */
static alea_status parse_passive(parser *p, const token *nt, const node **out)
{
    alea_status st;
    const token *open = peek(p);
    if ((st = expect(p, T_LPAREN, "'(' after passive")) != ALEA_OK)
        return st;
    if ((st = enter(p, open)) != ALEA_OK)
        return st;
    const node *mod;
    if ((st = parse_expr(p, &mod)) != ALEA_OK)
        return st;
    int64_t bonus = 0;
    if (accept(p, T_COMMA)) {
        const token *t = peek(p);
        if (t->kind != T_NAME ||
            (t->name != NAME_PROFICIENT && t->name != NAME_EXPERT && t->name != NAME_MASTER))
            return err_at(p, t, "proficient, expert or master");
        advance(p);
        bonus = t->name == NAME_PROFICIENT ? 4 : t->name == NAME_EXPERT ? 6 : 7;
    }
    const token *close = peek(p);
    if ((st = expect(p, T_RPAREN, "')' after the passive score's arguments")) != ALEA_OK)
        return st;
    leave(p);
    node *ten, *b, *sum;
    if ((st = new_node(p, N_NUM, nt->start, nt->end, &ten)) != ALEA_OK ||
        (st = new_node(p, N_NUM, close->start, close->end, &b)) != ALEA_OK)
        return st;
    ten->u.num = 10;
    b->u.num = bonus;
    chainbuf c = {0};
    if ((st = chain_push(p, &c, ten, OP_ADD)) != ALEA_OK ||
        (st = chain_push(p, &c, mod, OP_ADD)) != ALEA_OK ||
        (bonus && (st = chain_push(p, &c, b, OP_ADD)) != ALEA_OK))
        return st;
    if ((st = new_node(p, N_SUM, nt->start, close->end, &sum)) != ALEA_OK)
        return st;
    sum->u.chain.items = c.items;
    sum->u.chain.ops = c.ops;
    sum->u.chain.n = c.n;
    *out = sum;
    return ALEA_OK;
}

/* ---- game mechanics: tier, downgrade, event, dd, stars ---------------------- */

/* A plain dice term: literal count, faces 1..sides, no modifiers. */
static int plain_dice(const node *n, int64_t *count, int64_t *sides)
{
    *count = *sides = 0;
    if (n->kind != N_DICE)
        return 0;
    const pool *pl = n->u.pool;
    if (pl->count_expr || pl->die.kind != FACES_RANGE || pl->die.style != DIE_PLAIN ||
        pl->die.lo != 1 || pl->has_reroll || pl->explode || pl->nkeeps || pl->has_success ||
        pl->extra_style != EXTRA_NONE)
        return 0;
    *count = pl->count;
    *sides = pl->die.hi;
    return 1;
}

/* The plain dice terms of a pool "d12 + 2d14 + d18" (or one term). */
static alea_status pool_terms(parser *p, const node *n, const char *fname,
                              const node *const **items, uint32_t *nitems)
{
    int64_t c, s;
    if (n->kind == N_DICE && plain_dice(n, &c, &s)) {
        const node **one = alloc(p, sizeof *one);
        if (!one)
            return alea__nomem(p->ctx);
        one[0] = n;
        *items = one;
        *nitems = 1;
        return ALEA_OK;
    }
    if (n->kind == N_SUM) {
        uint32_t i;
        for (i = 0; i < n->u.chain.n; i++)
            if (n->u.chain.ops[i] != OP_ADD || !plain_dice(n->u.chain.items[i], &c, &s))
                break;
        if (i == n->u.chain.n) {
            *items = n->u.chain.items;
            *nitems = n->u.chain.n;
            return ALEA_OK;
        }
    }
    return alea__error(p->ctx, ALEA_ERR_INVALID, n->start, n->end,
                       "%s() takes a pool of plain dice added together, such as "
                       "d12 + d14 + d18 + d20 (byte %u)",
                       fname, (unsigned)n->start);
}

/* A new plain dice node count dX, spanning [start, end). */
static alea_status make_dice(parser *p, int64_t count, int64_t sides, size_t start,
                             size_t end, const node **out)
{
    pool *pl = alloc(p, sizeof *pl);
    node *n;
    alea_status st;
    if (!pl)
        return alea__nomem(p->ctx);
    memset(pl, 0, sizeof *pl);
    pl->count = count;
    pl->count_implicit = count == 1;
    pl->die.kind = FACES_RANGE;
    pl->die.style = DIE_PLAIN;
    pl->die.lo = 1;
    pl->die.hi = sides;
    if ((st = new_node(p, N_DICE, start, end, &n)) != ALEA_OK)
        return st;
    n->u.pool = pl;
    *out = n;
    return ALEA_OK;
}

/* The value of a dice-free expression, for arguments that must be known
 * before rolling (dd's modifier and difficulty). 0 if it has dice. */
static int const_value(const node *n, int64_t *v)
{
    int64_t a, b;
    switch (n->kind) {
    case N_NUM:
        *v = n->u.num;
        return 1;
    case N_NEG:
        return const_value(n->u.un.a, &a) && !alea__sub_ovf(0, a, v);
    case N_SUM:
    case N_PROD:
        if (!const_value(n->u.chain.items[0], &a))
            return 0;
        for (uint32_t i = 1; i < n->u.chain.n; i++) {
            if (!const_value(n->u.chain.items[i], &b) ||
                alea__arith(n->u.chain.ops[i], a, b, &a) != ARITH_OK)
                return 0;
        }
        *v = a;
        return 1;
    default:
        return 0;
    }
}

/* A whole number argument in [lo, hi]: a dice-free expression. */
static alea_status int_arg(parser *p, const char *fname, const char *what, int64_t lo,
                           int64_t hi, int64_t *v)
{
    const node *n = NULL;
    alea_status st;
    *v = 0;
    if ((st = parse_expr(p, &n)) != ALEA_OK)
        return st;
    if (!const_value(n, v))
        return alea__error(p->ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "%s() needs a fixed number for its %s, not dice (byte %u)", fname,
                           what, (unsigned)n->start);
    if (*v < lo || *v > hi)
        return alea__error(p->ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "%s() %s must be between %lld and %lld, not %lld (byte %u)", fname,
                           what, (long long)lo, (long long)hi, (long long)*v,
                           (unsigned)n->start);
    return ALEA_OK;
}

/* A name argument among `choices` (name ids, -1 terminated). */
static alea_status name_arg(parser *p, const int *choices, const char *expected, int *out)
{
    const token *t = peek(p);
    if (t->kind == T_NAME)
        for (int i = 0; choices[i] >= 0; i++)
            if (t->name == choices[i]) {
                advance(p);
                *out = choices[i];
                return ALEA_OK;
            }
    return err_at(p, t, expected);
}

/*
 * mech = "tier" "(" expr "," expr ")"          a ladder entry moved k steps
 *      | "downgrade" "(" expr "," expr ")"     a pool downgraded k times
 *      | "event" "(" expr [ "," ("smallest" | "largest") ] ")"
 *      | "dd" "(" expr "," expr [ "," ("never" | "always" | "onfail" | "best") ] ")"
 *      | "stars" "(" expr "," expr [ "," expr [ "," expr ] ] ")"
 */
static alea_status parse_mech(parser *p, const token *nt, const node **out)
{
    alea_status st;
    const char *fname = alea__name_str((name_id)nt->name);
    const token *open = peek(p);
    if ((st = expect(p, T_LPAREN, "'(' after the function name")) != ALEA_OK)
        return st;
    if ((st = enter(p, open)) != ALEA_OK)
        return st;
    node *n = NULL;
    const node *result = NULL;
    switch (nt->name) {
    case NAME_TIER: {
        const node *term;
        int64_t count, sides, k;
        if ((st = parse_expr(p, &term)) != ALEA_OK)
            return st;
        int idx = plain_dice(term, &count, &sides) ? alea__tier_index(count, sides) : -1;
        if (idx < 0)
            return alea__error(p->ctx, ALEA_ERR_INVALID, term->start, term->end,
                               "tier() takes a dice term on the tier ladder (%s) at byte %u",
                               alea__tier_ladder_text(), (unsigned)term->start);
        if ((st = expect(p, T_COMMA, "',' and the number of steps")) != ALEA_OK ||
            (st = int_arg(p, fname, "number of steps", -ALEA__TIER_COUNT * 4,
                          ALEA__TIER_COUNT * 4, &k)) != ALEA_OK)
            return st;
        /* Upgrades stop at 5d20, downgrades at d4. */
        int64_t to = idx + k;
        alea__tier_entry(to < 0 ? 0 : to >= ALEA__TIER_COUNT ? ALEA__TIER_COUNT - 1 : (int)to,
                         &count, &sides);
        if ((st = make_dice(p, count, sides, nt->start, peek(p)->end, &result)) != ALEA_OK)
            return st;
        break;
    }
    case NAME_DOWNGRADE: {
        const node *pl;
        const node *const *items;
        uint32_t ni;
        int64_t k;
        if ((st = parse_expr(p, &pl)) != ALEA_OK ||
            (st = pool_terms(p, pl, fname, &items, &ni)) != ALEA_OK)
            return st;
        if ((st = expect(p, T_COMMA, "',' and the number of dice lost")) != ALEA_OK ||
            (st = int_arg(p, fname, "number of dice lost", 0, 1000, &k)) != ALEA_OK)
            return st;
        /* Ladder entries: a term on the ladder is one entry (2d12); another
         * term NdX is N entries of 1dX (3d4). */
        int *idx = alloc(p, (size_t)ALEA__TIER_COUNT * 8 * sizeof *idx);
        uint32_t ne = 0;
        if (!idx)
            return alea__nomem(p->ctx);
        for (uint32_t i = 0; i < ni; i++) {
            int64_t c, s;
            plain_dice(items[i], &c, &s);
            int e = alea__tier_index(c, s);
            int64_t reps = 1;
            if (e < 0) {
                e = alea__tier_index(1, s);
                reps = c;
            }
            if (e < 0)
                return alea__error(p->ctx, ALEA_ERR_INVALID, items[i]->start, items[i]->end,
                                   "downgrade() needs dice on the tier ladder (%s) at byte %u",
                                   alea__tier_ladder_text(), (unsigned)items[i]->start);
            for (int64_t r = 0; r < reps; r++) {
                if (ne == (uint32_t)ALEA__TIER_COUNT * 8)
                    return alea__error(p->ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                                       "downgrade() takes at most %d dice",
                                       ALEA__TIER_COUNT * 8);
                idx[ne++] = e;
            }
        }
        if (ne == 0)
            return alea__error(p->ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                               "downgrade() needs at least one die (byte %u)",
                               (unsigned)pl->start);
        /* Each die lost moves the highest entry one step down; d4 is the floor. */
        for (int64_t step = 0; step < k; step++) {
            uint32_t hi = 0;
            for (uint32_t i = 1; i < ne; i++)
                if (idx[i] >= idx[hi])
                    hi = i;
            if (idx[hi] == 0)
                break;
            idx[hi]--;
        }
        /* A pool is unordered: present it up the ladder, as in
         * downgrade(d12 + d14 + d18 + d20, 2) = d12 + d14 + d16 + d18. */
        for (uint32_t i = 1; i < ne; i++)
            for (uint32_t j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
                int t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            }
        chainbuf c = {0};
        for (uint32_t i = 0; i < ne; i++) {
            int64_t cc, ss;
            const node *d;
            alea__tier_entry(idx[i], &cc, &ss);
            if ((st = make_dice(p, cc, ss, pl->start, pl->end, &d)) != ALEA_OK ||
                (st = chain_push(p, &c, d, OP_ADD)) != ALEA_OK)
                return st;
        }
        if ((st = finish_chain(p, N_SUM, &c, &result)) != ALEA_OK)
            return st;
        break;
    }
    case NAME_EVENT: {
        const node *pl;
        const node *const *items;
        uint32_t ni;
        if ((st = parse_expr(p, &pl)) != ALEA_OK)
            return st;
        if (pl->kind == N_NUM || const_value(pl, &(int64_t){0}))
            return alea__error(p->ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                               "event() of a constant: it takes a pool of dice such as "
                               "d12 + d14 + d18 + d20 (byte %u)",
                               (unsigned)pl->start);
        if ((st = pool_terms(p, pl, fname, &items, &ni)) != ALEA_OK)
            return st;
        event_spec *ev = alloc(p, sizeof *ev);
        event_group *g = alloc(p, ni * sizeof *g);
        if (!ev || !g)
            return alea__nomem(p->ctx);
        memset(ev, 0, sizeof *ev);
        for (uint32_t i = 0; i < ni; i++) {
            plain_dice(items[i], &g[i].count, &g[i].sides);
            g[i].count_implicit = items[i]->u.pool->count_implicit;
            if (g[i].sides < 2)
                return alea__error(p->ctx, ALEA_ERR_INVALID, items[i]->start, items[i]->end,
                                   "event() dice need at least 2 sides: on a d%lld every "
                                   "roll is both a 1 and a critical (byte %u)",
                                   (long long)g[i].sides, (unsigned)items[i]->start);
            if (g[i].count > alea_limit_max(ALEA_LIMIT_DICE) - ev->ndice)
                return alea__error(p->ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                                   "too many dice in event() (at most %lld)",
                                   (long long)alea_limit_max(ALEA_LIMIT_DICE));
            ev->ndice += g[i].count;
        }
        if (ev->ndice == 0)
            return alea__error(p->ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                               "event() needs at least one die (byte %u)", (unsigned)pl->start);
        ev->groups = g;
        ev->ngroups = ni;
        if (accept(p, T_COMMA)) {
            static const int order[] = {NAME_SMALLEST, NAME_LARGEST, -1};
            int which;
            if ((st = name_arg(p, order, "smallest or largest (which criticals 1s cancel first)",
                               &which)) != ALEA_OK)
                return st;
            ev->cancel_largest = which == NAME_LARGEST;
        }
        if ((st = new_node(p, N_MECH, nt->start, peek(p)->end, &n)) != ALEA_OK)
            return st;
        n->u.mech.ops = &alea__mech_event;
        n->u.mech.spec = ev;
        break;
    }
    case NAME_DD: {
        dd_spec *dd = alloc(p, sizeof *dd);
        if (!dd)
            return alea__nomem(p->ctx);
        memset(dd, 0, sizeof *dd);
        if ((st = int_arg(p, fname, "modifier", 0, 18, &dd->mod)) != ALEA_OK ||
            (st = expect(p, T_COMMA, "',' and the difficulty")) != ALEA_OK ||
            (st = int_arg(p, fname, "difficulty", 1, 100, &dd->diff)) != ALEA_OK)
            return st;
        if (accept(p, T_COMMA)) {
            static const int pol[] = {NAME_NEVER, NAME_ALWAYS, NAME_ONFAIL, NAME_BEST, -1};
            int which;
            if ((st = name_arg(p, pol, "a double-down policy: never, always, onfail or best",
                               &which)) != ALEA_OK)
                return st;
            dd->policy = which == NAME_NEVER    ? DD_NEVER
                         : which == NAME_ALWAYS ? DD_ALWAYS
                         : which == NAME_ONFAIL ? DD_ONFAIL
                                                : DD_BEST;
        }
        if ((st = new_node(p, N_MECH, nt->start, peek(p)->end, &n)) != ALEA_OK)
            return st;
        n->u.mech.ops = &alea__mech_dd;
        n->u.mech.spec = dd;
        break;
    }
    case NAME_STARS: {
        /* The Double Down roll's modifier: stat 1-5, stress 1-3, an optional tag (1-5,
         * or -1..-5 for an irrelevant tag of that many stars, which counts
         * one less), drive 0-5. */
        int64_t stat, stress, tag = 0, drive = 0;
        if ((st = int_arg(p, fname, "stat stars", 1, 5, &stat)) != ALEA_OK ||
            (st = expect(p, T_COMMA, "',' and the stress stars")) != ALEA_OK ||
            (st = int_arg(p, fname, "stress stars", 1, 3, &stress)) != ALEA_OK)
            return st;
        if (accept(p, T_COMMA) && (st = int_arg(p, fname, "tag stars", -5, 5, &tag)) != ALEA_OK)
            return st;
        if (accept(p, T_COMMA) && (st = int_arg(p, fname, "drive", 0, 5, &drive)) != ALEA_OK)
            return st;
        int64_t m = stat + stress + (tag > 0 ? tag : tag < 0 ? -tag - 1 : 0) + drive;
        if ((st = new_node(p, N_NUM, nt->start, peek(p)->end, &n)) != ALEA_OK)
            return st;
        n->u.num = m; /* within +1..+18 by the ranges above */
        break;
    }
    default:
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, nt->start, nt->end,
                           "'%s' cannot start a term (byte %u)", fname, (unsigned)nt->start);
    }
    if ((st = expect(p, T_RPAREN, "')'")) != ALEA_OK)
        return st;
    leave(p);
    *out = n ? n : result;
    return ALEA_OK;
}

/* args for min/max/abs/best/worst: call = NAME "(" expr { "," expr } ")" */
static alea_status parse_call(parser *p, const node **out)
{
    const token *nt = advance(p);
    alea_status st;
    name_id id = (name_id)nt->name;
    const char *nm = alea__name_str(id);
    node_kind kind;
    int nargs;
    switch (id) {
    case NAME_MIN: kind = N_MIN; nargs = 2; break;
    case NAME_MAX: kind = N_MAX; nargs = 2; break;
    case NAME_ABS: kind = N_ABS; nargs = 1; break;
    case NAME_BEST: kind = N_BEST; nargs = 2; break;
    case NAME_WORST: kind = N_WORST; nargs = 2; break;
    case NAME_PASSIVE: return parse_passive(p, nt, out);
    case NAME_TIER:
    case NAME_DOWNGRADE:
    case NAME_EVENT:
    case NAME_DD:
    case NAME_STARS: return parse_mech(p, nt, out);
    default:
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, nt->start, nt->end,
                           "'%s' cannot start a term (byte %u)", nm, (unsigned)nt->start);
    }
    if (!at(p, T_LPAREN))
        return err_at(p, peek(p), kind == N_ABS ? "'(' after abs" : "'(' after the function name");
    const token *open = advance(p);
    if ((st = enter(p, open)) != ALEA_OK)
        return st;
    const node *args[2] = {NULL, NULL};
    int64_t reps = 0;
    for (int i = 0; i < nargs; i++) {
        if (i > 0 && (st = expect(p, T_COMMA, "','")) != ALEA_OK)
            return st;
        if ((kind == N_BEST || kind == N_WORST) && i == 0) {
            const token *t = peek(p);
            if (t->kind != T_NUM || peek_at(p, 1)->kind != T_COMMA)
                return err_at(p, t->kind == T_NUM ? peek_at(p, 1) : t,
                              "a whole number of repetitions and ',', as in best(2, 1d20)");
            advance(p);
            if (t->num < 1 || t->num > alea_limit_max(ALEA_LIMIT_DICE))
                return alea__error(p->ctx, ALEA_ERR_INVALID, t->start, t->end,
                                   "%s() needs between 1 and %lld repetitions, not %lld "
                                   "(byte %u)",
                                   nm, (long long)alea_limit_max(ALEA_LIMIT_DICE),
                                   (long long)t->num, (unsigned)t->start);
            reps = t->num;
            continue;
        }
        if ((st = parse_expr(p, &args[i])) != ALEA_OK)
            return st;
    }
    if (!at(p, T_RPAREN))
        return err_at(p, peek(p),
                      nargs == 1 ? "')' (abs takes one argument)"
                                 : "')' (this function takes two arguments)");
    const token *close = advance(p);
    leave(p);
    node *n;
    if ((st = new_node(p, kind, nt->start, close->end, &n)) != ALEA_OK)
        return st;
    if (kind == N_BEST || kind == N_WORST) {
        n->u.rep.a = args[1];
        n->u.rep.n = reps;
    } else if (kind == N_ABS) {
        n->u.un.a = args[0];
    } else {
        n->u.bin.a = args[0];
        n->u.bin.b = args[1];
    }
    *out = n;
    return ALEA_OK;
}

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
            return parse_dice_tail(p, NULL, t->num, 0, t->start, out);
        node *n;
        if ((st = new_node(p, N_NUM, t->start, t->end, &n)) != ALEA_OK)
            return st;
        n->u.num = t->num;
        *out = n;
        return ALEA_OK;
    }
    case T_D:
        return parse_dice_tail(p, NULL, 1, 1, t->start, out);
    case T_LPAREN: {
        advance(p);
        if ((st = enter(p, t)) != ALEA_OK)
            return st;
        const node *inner;
        if ((st = parse_expr(p, &inner)) != ALEA_OK)
            return st;
        if ((st = expect(p, T_RPAREN, "')' or an operator")) != ALEA_OK)
            return st;
        leave(p);
        if (at(p, T_D))
            return parse_dice_tail(p, inner, 0, 0, t->start, out);
        *out = inner;
        return ALEA_OK;
    }
    case T_NAME:
        return parse_call(p, out);
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

typedef enum bonus_kind {
    BON_NONE,
    BON_D,      /* +1d [label]          bonus and penalty dice */
    BON_TRAIN,  /* +proficient/expert/master: +1d/+2d/+3d [proficiency] */
    BON_B,      /* +2B                  boons and banes */
    BON_DICE,   /* +1 DICE              +/- DICE */
    BON_INJURY  /* +1 INJURY DICE       +/- DICE, injury */
} bonus_kind;

/* At a '+' or '-': is what follows extra dice rather than a term? */
static bonus_kind bonus_at(const parser *p)
{
    const token *a = peek_at(p, 1), *b = peek_at(p, 2), *c = peek_at(p, 3);
    if (a->kind == T_NAME &&
        (a->name == NAME_PROFICIENT || a->name == NAME_EXPERT || a->name == NAME_MASTER))
        return BON_TRAIN;
    if (a->kind != T_NUM)
        return BON_NONE;
    if (b->kind == T_D && !starts_sides((tok_kind)c->kind))
        return BON_D;
    if (b->kind == T_B)
        return BON_B;
    if (b->kind == T_NAME && b->name == NAME_DICE)
        return BON_DICE;
    if (b->kind == T_NAME && b->name == NAME_INJURY && c->kind == T_NAME && c->name == NAME_DICE)
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
        int64_t k = nt->name == NAME_PROFICIENT ? 1 : nt->name == NAME_EXPERT ? 2 : 3;
        if (neg)
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, sign->start, nt->end,
                               "training only adds dice: write +%s, not -%s (byte %u)",
                               alea__name_str((name_id)nt->name),
                               alea__name_str((name_id)nt->name), (unsigned)sign->start);
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
    if (const_value(l, &fixed))
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
static alea_status parse_expr(parser *p, const node **out)
{
    *out = NULL;
    return parse_compare(p, out);
}

/* program = expr EOF */
alea_status alea__parse(alea_ctx *ctx, alea__arena *arena, const char *src,
                        size_t len, const node **root, uint32_t *nodes)
{
    token_list toks;
    alea_status st = alea__lex(ctx, src, len, &toks);
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
            st = parse_expr(&p, root);
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
