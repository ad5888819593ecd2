/*
 * mech/group.c -- group rolls, as Roll20 and Foundry VTT write them:
 *
 *   {4d6 + 3, 2d8}kh1     each member rolled to a total; keep or drop among
 *                         the totals; the value is the sum of those kept
 *   {2d6, 1d12}>=7f1      a success count: each total judged
 *   {4d6 + 3d8}k4         one member: its dice form one pool, the keep
 *                         chooses among the dice, numbers add as written
 *   {3d20 + 5}>=21        one member: each die plus the member's numbers
 *                         judged (Roll20's single sub-roll)
 *
 * Exact: the sum of the K highest of independent, differently distributed
 * values is a dynamic programme over the value t of the K-th highest (see
 * top_dp); K = 1 is a maximum, by products of distribution functions; the
 * lowest are the highest of the negated values. Success counts convolve
 * each member's (or die's) score.
 */
#include "../mech.h"

#include <stdlib.h>
#include <string.h>

#include "../parser.h"
#include "../pool.h"
#include "../exact.h"
#include "../keep.h"
#include "../pmf.h"

/*
 * A group's arguments, the spec of its N_MECH node: each member is rolled
 * to a total; a keep or drop chooses among the totals (the value is the
 * kept ones' sum), or a success count judges each total. With one member
 * and a keep or a count ("dice" set), the dice of its pools form one pool
 * instead: the keep chooses among the dice, the count judges each die plus
 * the member's numbers (Roll20's single sub-roll).
 */
typedef struct group {
    const node *const *items;
    uint32_t n; /* >= 1 */
    uint8_t has_keep, dice;
    keep_step keep;
    uint8_t has_success, has_failure;
    cond success, failure;
    /* "s"/"sa", "sd" (rpg-dice-roller's): the breakdown lists the members
     * by their totals and each pool's dice in order; the value is
     * unchanged. SORT_ASC or SORT_DESC, 0: none. */
    uint8_t sort;
} group;

ALEA__HIDDEN extern const alea__mech alea__mech_group;

static const group *group_of(const node *n)
{
    return n->u.mech.spec;
}

/* ---- parsing ---------------------------------------------------------------- */

/* The dice of the one member of a group that keeps or counts them: a sum of
 * dice pools of a literal count and sides (rerolled, clamped or exploding
 * allowed; no selections, capped explosions, unique or counts) and numbers. */
static int dice_item(const node *it, uint8_t op)
{
    if (it->kind == N_NUM)
        return op == OP_ADD || op == OP_SUB;
    if (it->kind != N_DICE || op != OP_ADD)
        return 0;
    const pool *pl = it->u.pool;
    return !pl->count_expr && !pl->sides_expr && !pl->nkeeps && !pl->nselects && !pl->extra &&
           !pl->has_reroll_one && !pl->explode_cap && !pl->has_success && !pl->has_failure &&
           !pl->unique;
}

static alea_status check_dice_member(parser *p, const node *m)
{
    int ok = 1;
    if (m->kind == N_SUM) {
        for (uint32_t i = 0; i < m->u.chain.n && ok; i++)
            ok = dice_item(m->u.chain.items[i], m->u.chain.ops[i]);
    } else {
        ok = m->kind == N_DICE && dice_item(m, OP_ADD);
    }
    if (ok)
        return ALEA_OK;
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, m->start, m->end,
                       "keeping or counting the dice of one expression: only plain dice "
                       "pools and numbers added are supported yet (byte %u); for totals, "
                       "give several, as in {2d6, 1d12}kh1",
                       (unsigned)m->start);
}

static alea_status parse_mods(parser *p, group *g, const token *open)
{
    alea_status st;
    const token *t = peek(p);
    switch (t->kind) {
    case T_KH: case T_K: g->keep.op = KEEP_HIGH; break;
    case T_KL: g->keep.op = KEEP_LOW; break;
    case T_DH: g->keep.op = DROP_HIGH; break;
    case T_DL: case T_D: g->keep.op = DROP_LOW; break;
    default: t = NULL; break;
    }
    if (t) {
        advance(p);
        g->has_keep = 1;
        g->keep.n = at(p, T_NUM) ? advance(p)->num : 1;
    }
    t = peek(p);
    switch (t->kind) {
    case T_NE:
        if (!p->dl->not_equal)
            break;
        /* fall through */
    case T_EQ: case T_LT: case T_LE: case T_GT: case T_GE:
        if (g->has_keep)
            return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                               "a success count after a group's keep or drop is not "
                               "supported yet (byte %u)", (unsigned)t->start);
        g->has_success = 1;
        if ((st = alea__p_cond(p, &g->success, "a success threshold")) != ALEA_OK)
            return st;
        if (accept(p, T_F)) {
            g->has_failure = 1;
            if ((st = alea__p_cond(p, &g->failure, "a failure condition (as in f1, f<3)")) !=
                ALEA_OK)
                return st;
        }
        break;
    default:
        break;
    }
    t = peek(p);
    if (t->kind == T_S || t->kind == T_SA || t->kind == T_SD)
        g->sort = advance(p)->kind == T_SD ? SORT_DESC : SORT_ASC;
    t = peek(p);
    if (t->kind == T_KH || t->kind == T_K || t->kind == T_KL || t->kind == T_DH ||
        t->kind == T_DL || t->kind == T_D)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, t->start, t->end,
                           "a group takes one keep or drop, before any success count "
                           "and sort; another at byte %u (group at byte %u)",
                           (unsigned)t->start, (unsigned)open->start);
    return ALEA_OK;
}

/* Closes a group's members c at the token `close` (the parser entered the
 * group at its opening): *out a group of them, without modifiers. */
static alea_status close_group(parser *p, tok_kind close, const char *what, const chainbuf *c,
                               group **out)
{
    alea_status st = expect(p, close, what);
    if (st != ALEA_OK)
        return st;
    leave(p);
    group *g = p_alloc(p, sizeof *g);
    if (!g)
        return alea__nomem(p->ctx);
    memset(g, 0, sizeof *g);
    g->items = c->items;
    g->n = c->n;
    *out = g;
    return ALEA_OK;
}

/* group = "{" expr { "," expr } "}" [ keep [NUM] ] [ cond [ "f" cond ] ]
 *         [ "s" | "sa" | "sd" ] */
static alea_status group_parse(parser *p, size_t start, size_t end, const node **out)
{
    (void)start;
    (void)end;
    const token *open = advance(p);
    alea_status st;
    if ((st = enter(p, open)) != ALEA_OK)
        return st;
    if (at(p, T_RBRACE))
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, open->start, peek(p)->end,
                           "a group needs at least one expression: {} has none (byte %u)",
                           (unsigned)open->start);
    chainbuf c = {0};
    for (;;) {
        const node *e;
        if ((st = alea__p_expr(p, &e)) != ALEA_OK ||
            (st = chain_push(p, &c, e, OP_ADD)) != ALEA_OK)
            return st;
        if (!accept(p, T_COMMA))
            break;
    }
    group *g;
    if ((st = close_group(p, T_RBRACE, "',' or '}' to close the group", &c, &g)) != ALEA_OK)
        return st;
    if ((st = parse_mods(p, g, open)) != ALEA_OK)
        return st;
    g->dice = g->n == 1 && (g->has_keep || g->has_success);
    if (g->dice && g->has_success && p->dl->no_group_dice_count)
        return alea__error(p->ctx, ALEA_ERR_SYNTAX, open->start, p->t[p->pos - 1].end,
                           "%s: a success count on a group of one expression, which judges "
                           "its total there, is not supported yet in this dialect (byte %u)",
                           p->dl->tool, (unsigned)open->start);
    if (g->dice && (st = check_dice_member(p, g->items[0])) != ALEA_OK)
        return st;
    return alea__mech_node(p, &alea__mech_group, g, open->start, p->t[p->pos - 1].end, out);
}

/* ---- Avrae's d20 sets ----------------------------------------------------------- */

/* A set's operator that alea does not read yet. */
static alea_status set_refused(parser *p, size_t start, size_t end, const char *what)
{
    return alea__error(p->ctx, ALEA_ERR_SYNTAX, start, end,
                       "%s: %s is not supported yet in this dialect (byte %zu); "
                       "docs/dialects.md lists what is",
                       p->dl->tool, what, start);
}

/*
 * set = "(" expr "," [ expr { "," expr } [ "," ] ] ")" [ setop ]
 * setop = ( "kh" | "kl" | "ph" | "pl" ) NUM
 * d20's set keeps or drops among its members' totals: alea's group
 * "{1d4 + 1, 3}kh1". Its value selectors (k3, k>3) and several operators
 * are refused, as is an operator on a set of one member (which alea's
 * group would read as a keep among that member's dice).
 */
static alea_status group_parse_set(parser *p, size_t open, const node *first,
                                   const node **out)
{
    alea_status st;
    chainbuf c = {0};
    if ((st = chain_push(p, &c, first, OP_ADD)) != ALEA_OK)
        return st;
    while (accept(p, T_COMMA) && !at(p, T_RPAREN)) {
        const node *e;
        if ((st = alea__p_expr(p, &e)) != ALEA_OK || (st = chain_push(p, &c, e, OP_ADD)) != ALEA_OK)
            return st;
    }
    group *g;
    if ((st = close_group(p, T_RPAREN, "',' or ')' to close the set", &c, &g)) != ALEA_OK)
        return st;
    const token *t = peek(p);
    size_t sel = (t->kind == T_KH || t->kind == T_KL) ? 1
              : (t->kind == T_P && (peek_at(p, 1)->kind == T_H || peek_at(p, 1)->kind == T_L) &&
                 peek_at(p, 1)->start == t->end) ? 2 : 0;
    if (sel) {
        const token *h = peek_at(p, sel - 1);
        if (peek_at(p, sel)->kind != T_NUM)
            return err_at(p, peek_at(p, sel), "how many to select (as in kh1, pl1)");
        int high = t->kind == T_KH || (sel == 2 && h->kind == T_H);
        g->has_keep = 1;
        g->keep.op = sel == 1 ? (high ? KEEP_HIGH : KEEP_LOW) : (high ? DROP_HIGH : DROP_LOW);
        p->pos += sel;
        g->keep.n = advance(p)->num;
    } else if (t->kind == T_K || t->kind == T_P) {
        return set_refused(p, t->start, t->end, "a set's selection by value (k3, k>3, p<3)");
    }
    t = peek(p);
    if (g->has_keep && (t->kind == T_K || t->kind == T_KH || t->kind == T_KL || t->kind == T_P))
        return set_refused(p, t->start, t->end, "a second operator on a set");
    if (g->n == 1 && g->has_keep)
        return set_refused(p, open, p->t[p->pos - 1].end, "an operator on a set of one member");
    if (g->n == 1) { /* "(1d4,)": the member */
        *out = first;
        return ALEA_OK;
    }
    return alea__mech_node(p, &alea__mech_group, g, open, p->t[p->pos - 1].end, out);
}

/* ---- printing ---------------------------------------------------------------- */

static void print_cond(alea__out *o, const cond *c, int eq_implied)
{
    if (!eq_implied || c->op != CMP_EQ || c->value < 0)
        alea__out_str(o, alea__cmp_str(c->op));
    alea__out_i64(o, c->value);
}

static void print_mods(alea__out *o, const group *g)
{
    static const char *const keep_str[] = {"kh", "kl", "dh", "dl"};
    if (g->has_keep) {
        alea__out_str(o, keep_str[g->keep.op]);
        alea__out_i64(o, g->keep.n);
    }
    if (g->has_success && g->success.op == CMP_NE)
        o->foreign = ALEA__FOREIGN_NE;
    if (g->has_success) {
        print_cond(o, &g->success, 0);
        if (g->has_failure) {
            alea__out_char(o, 'f');
            print_cond(o, &g->failure, 1);
        }
    }
    if (g->sort)
        alea__out_str(o, g->sort == SORT_DESC ? "sd" : "sa");
}

static void group_print(alea__out *o, const node *n)
{
    const group *g = group_of(n);
    alea__out_char(o, '{');
    for (uint32_t i = 0; i < g->n; i++) {
        if (i)
            alea__out_str(o, ", ");
        alea__node_print(o, g->items[i]);
    }
    alea__out_char(o, '}');
    print_mods(o, g);
}

/* ---- what is kept, judged ------------------------------------------------------ */

/* The sorted positions [lo, hi) of m values that the keep step keeps. */
static void keep_range(const keep_step *k, int64_t m, int64_t *lo, int64_t *hi)
{
    int64_t n = k->n < m ? k->n : m;
    *lo = 0;
    *hi = m;
    switch (k->op) {
    case KEEP_HIGH: *lo = m - n; break;
    case KEEP_LOW: *hi = n; break;
    case DROP_HIGH: *hi = m - n; break;
    default: *lo = n; break; /* DROP_LOW */
    }
}

/* +1 a success, -1 a failure, 0 neither (or both), with their marks. */
static int judge(const group *g, int64_t v, uint8_t *mark)
{
    alea__judge j = {&g->success, g->has_failure ? &g->failure : NULL, 0};
    int sc = 0;
    (void)alea__judge_score(&j, v, &sc, mark, DIE_SUCCESS, DIE_FAILURE); /* adds 0 */
    return sc;
}

/* The items of a group's dice member (a sum, or one pool): *items, *ops
 * (NULL: all added), *cnt. */
static void member_items(const group *g, const node *const **items, const uint8_t **ops,
                         uint32_t *cnt)
{
    const node *m = g->items[0];
    if (m->kind == N_SUM) {
        *items = m->u.chain.items;
        *ops = m->u.chain.ops;
        *cnt = m->u.chain.n;
    } else {
        *items = g->items;
        *ops = NULL;
        *cnt = 1;
    }
}

/* The numbers a dice member adds to its dice ("{3d20 + 5}": 5), into *c. */
static alea_status member_numbers(alea_ctx *ctx, const node *n, alea__rstate *s, int64_t *c)
{
    const node *const *items;
    const uint8_t *ops;
    uint32_t cnt;
    member_items(group_of(n), &items, &ops, &cnt);
    *c = 0;
    for (uint32_t i = 0; i < cnt; i++) {
        const node *it = items[i];
        if (it->kind != N_NUM)
            continue;
        int64_t v = ops && ops[i] == OP_SUB ? -it->u.num : it->u.num;
        if (it->u.num == INT64_MIN || alea__add_ovf(*c, v, c))
            return s ? alea__roll_overflow(s, n) : alea__overflow_error(ctx, n);
    }
    return ALEA_OK;
}

/* ---- rolling ------------------------------------------------------------------- */

typedef alea__ranked ranked;

/* The m values v in order (ties keep the earlier first), charged: *out. */
static alea_status rank_values(alea__rstate *s, const node *n, const int64_t *v, size_t m,
                               ranked **out)
{
    ranked *r = alea__arena_alloc(&s->r->arena, alea__mul_size(m, sizeof *r));
    if (!r)
        return alea__nomem(s->ctx);
    alea_status st = alea__charge(s->ctx, (int64_t)m, n->start, n->end); /* the sort */
    if (st != ALEA_OK)
        return st;
    for (size_t i = 0; i < m; i++) {
        r[i].v = v[i];
        r[i].i = i;
    }
    qsort(r, m, sizeof *r, alea__ranked_cmp);
    *out = r;
    return ALEA_OK;
}

/* Sets DIE_DROPPED in drop[i] for the values the keep step leaves out. */
static alea_status mark_dropped(alea__rstate *s, const node *n, const int64_t *v, size_t m,
                                uint8_t *drop)
{
    int64_t lo, hi;
    keep_range(&group_of(n)->keep, (int64_t)m, &lo, &hi);
    if (lo == 0 && hi == (int64_t)m)
        return ALEA_OK;
    ranked *r;
    alea_status st = rank_values(s, n, v, m, &r);
    if (st != ALEA_OK)
        return st;
    for (size_t k = 0; k < m; k++)
        if ((int64_t)k < lo || (int64_t)k >= hi)
            drop[r[k].i] |= DIE_DROPPED;
    return ALEA_OK;
}

/* One member whose dice form the pool: the keep drops dice, the count
 * judges each die plus the member's numbers, and each roll of a "!" die
 * (its explosions are dice of their own, as the die's own count judges
 * them; the roller scores them, DIE_SCORED). */
static alea_status roll_dice(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const group *g = group_of(n);
    alea_status st;
    size_t dice0 = s->r->ndice;
    int64_t mv, dsum = 0, c = 0, sum = 0;
    const rec *kid = NULL;
    if (g->has_success && (st = member_numbers(s->ctx, n, s, &c)) != ALEA_OK)
        return st;
    alea__judge j = {&g->success, g->has_failure ? &g->failure : NULL, c};
    int saved = s->keep_dice;
    const alea__judge *saved_judge = s->judge;
    uint8_t saved_sort = s->sort;
    s->keep_dice = 1;
    s->judge = g->has_success ? &j : NULL;
    if (g->sort)
        s->sort = g->sort;
    st = alea__roll_eval(s, g->items[0], &kid, &mv);
    s->keep_dice = saved;
    s->judge = saved_judge;
    s->sort = saved_sort;
    if (st != ALEA_OK)
        return st;
    size_t nd = s->r->ndice - dice0;
    rdie *dice = nd ? s->r->dice + dice0 : NULL; /* no dice: no array yet */
    int64_t *vals = alea__arena_alloc(&s->r->arena, alea__mul_size(nd ? nd : 1, sizeof *vals));
    uint8_t *flags = alea__arena_alloc(&s->r->arena, nd ? nd : 1);
    if (!vals || !flags)
        return alea__nomem(s->ctx);
    memset(flags, 0, nd ? nd : 1);
    for (size_t i = 0; i < nd; i++) {
        vals[i] = dice[i].value;
        if (alea__add_ovf(dsum, vals[i], &dsum))
            return alea__roll_overflow(s, n);
    }
    if (alea__sub_ovf(mv, dsum, &c)) /* the member's numbers */
        return alea__roll_overflow(s, n);
    if (g->has_keep && (st = mark_dropped(s, n, vals, nd, flags)) != ALEA_OK)
        return st;
    if (g->has_keep)
        sum = c;
    for (size_t i = 0; i < nd; i++) {
        if (g->has_success && (dice[i].flags & DIE_SCORED)) {
            sum += dice[i].score; /* |score| <= faces, bounded by the dice limit */
        } else if (g->has_success) {
            int64_t jv;
            if (alea__add_ovf(vals[i], c, &jv))
                return alea__roll_overflow(s, n);
            sum += judge(g, jv, &flags[i]);
        } else if (!(flags[i] & DIE_DROPPED) && alea__add_ovf(sum, vals[i], &sum)) {
            return alea__roll_overflow(s, n);
        }
        dice[i].flags |= flags[i];
    }
    if (s->trace) {
        const rec **kids = alea__arena_alloc(&s->r->arena, sizeof *kids);
        if (!kids)
            return alea__nomem(s->ctx);
        kids[0] = kid;
        rc->kids = kids;
        rc->nkids = 1;
    } else {
        s->r->ndice = dice0;
    }
    *value = sum;
    return ALEA_OK;
}

/* A sorting group's members in order of their totals, for the breakdown:
 * their records and marks permuted alike. */
static alea_status sort_members(alea__rstate *s, const node *n, const int64_t *vals,
                                const rec **kids, uint8_t *marks)
{
    size_t m = group_of(n)->n;
    ranked *r;
    const rec **k2 = alea__arena_alloc(&s->r->arena, alea__mul_size(m, sizeof *k2));
    uint8_t *m2 = alea__arena_alloc(&s->r->arena, m);
    if (!k2 || !m2)
        return alea__nomem(s->ctx);
    alea_status st = rank_values(s, n, vals, m, &r);
    if (st != ALEA_OK)
        return st;
    memcpy(k2, kids, m * sizeof *k2);
    memcpy(m2, marks, m);
    for (size_t k = 0; k < m; k++) {
        size_t from = r[group_of(n)->sort == SORT_DESC ? m - 1 - k : k].i;
        kids[k] = k2[from];
        marks[k] = m2[from];
    }
    return ALEA_OK;
}

static alea_status group_roll(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const group *g = group_of(n);
    alea_status st;
    if (g->dice)
        return roll_dice(s, n, rc, value);
    size_t m = g->n;
    int64_t *vals = alea__arena_alloc(&s->r->arena, alea__mul_size(m, sizeof *vals));
    uint8_t *marks = alea__arena_alloc(&s->r->arena, m);
    const rec **kids = s->trace ? alea__arena_alloc(&s->r->arena,
                                                    alea__mul_size(m, sizeof *kids))
                                : NULL;
    if (!vals || !marks || (s->trace && !kids))
        return alea__nomem(s->ctx);
    memset(marks, 0, m);
    uint8_t saved_sort = s->sort;
    if (g->sort)
        s->sort = g->sort;
    for (size_t i = 0; i < m; i++) {
        const rec *dummy;
        if ((st = alea__roll_eval(s, g->items[i], kids ? &kids[i] : &dummy, &vals[i])) !=
            ALEA_OK)
            return st;
    }
    s->sort = saved_sort;
    if (g->has_keep && (st = mark_dropped(s, n, vals, m, marks)) != ALEA_OK)
        return st;
    int64_t sum = 0;
    for (size_t i = 0; i < m; i++) {
        if (g->has_success)
            sum += judge(g, vals[i], &marks[i]);
        else if (!(marks[i] & DIE_DROPPED) && alea__add_ovf(sum, vals[i], &sum))
            return alea__roll_overflow(s, n);
    }
    if (g->sort && kids && (st = sort_members(s, n, vals, kids, marks)) != ALEA_OK)
        return st;
    rc->kids = kids;
    rc->nkids = kids ? (uint32_t)m : 0;
    rc->marks = marks;
    *value = sum;
    return ALEA_OK;
}

/* ---- the breakdown -------------------------------------------------------------- */

/* Its members, each with its total when not plain, and marks:
 * "{4d6 [6, 4, 3, 1] + 3 = 17, 2d8 [2, 5] = 7 dropped}kh1". With one
 * member whose dice form the pool, the dice carry the marks. */
static void group_show(alea__out *o, const alea_roll *r, const rec *rc)
{
    const group *g = group_of(rc->n);
    alea__out_char(o, '{');
    for (uint32_t i = 0; i < rc->nkids; i++) {
        if (i)
            alea__out_str(o, ", ");
        alea__show_member(o, r, rc->kids[i], !g->dice && (g->has_keep || g->has_success));
        uint8_t m = rc->marks ? rc->marks[i] : 0;
        if (m & DIE_SUCCESS)
            alea__out_char(o, '*');
        if (m & DIE_FAILURE)
            alea__out_char(o, 'x');
        if (m & DIE_DROPPED)
            alea__out_str(o, " dropped");
    }
    alea__out_char(o, '}');
    print_mods(o, g);
}

/* A group of several expressions ("{4d6 + 3, 2d8}kh1") in the JSON's
 * "groups": {"start", "end", "value", "members": [{"start", "end", "value",
 * flags}]}. A member is named by its span of the expression, not its text:
 * nested groups would print each level again. The dice of a group of one
 * expression ("{4d6 + 3d8}k4") are in "dice" already. */
static void group_show_json(alea__out *o, const rec *rc, int *first)
{
    if (group_of(rc->n)->dice || !rc->marks)
        return;
    alea__out_str(o, *first ? ", \"groups\": [{\"start\": " : ", {\"start\": ");
    *first = 0;
    alea__out_i64(o, rc->n->start);
    alea__out_str(o, ", \"end\": ");
    alea__out_i64(o, rc->n->end);
    alea__out_str(o, ", \"value\": ");
    alea__out_i64(o, rc->value);
    alea__out_str(o, ", \"members\": [");
    for (uint32_t i = 0; i < rc->nkids; i++) {
        const node *m = rc->kids[i]->n;
        alea__out_str(o, i ? ", {\"start\": " : "{\"start\": ");
        alea__out_i64(o, m->start);
        alea__out_str(o, ", \"end\": ");
        alea__out_i64(o, m->end);
        alea__out_str(o, ", \"value\": ");
        alea__out_i64(o, rc->kids[i]->value);
        alea__show_json_flag(o, "dropped", (rc->marks[i] & DIE_DROPPED) != 0);
        alea__show_json_flag(o, "success", (rc->marks[i] & DIE_SUCCESS) != 0);
        alea__show_json_flag(o, "failure", (rc->marks[i] & DIE_FAILURE) != 0);
        alea__out_char(o, '}');
    }
    alea__out_str(o, "]}");
}

/* ---- bounds -------------------------------------------------------------------- */

/* Groups of at most this many members keep or drop among their totals
 * here (a selection over their bounds, quadratic; the bounds are on the
 * stack, at every level of nesting up to the DEPTH limit); larger ones are
 * left open. */
#define KEEP_MEMBERS_MAX 16

static void group_bounds(const node *n, alea__range *r)
{
    const group *g = group_of(n);
    alea__bounds_open(r);
    if (g->dice)
        return;
    if (g->has_success || g->has_failure) { /* each total scores -1, 0 or 1 */
        r->lo_inf = r->hi_inf = 0;
        r->lo = g->has_failure ? -(int64_t)g->n : 0;
        r->hi = g->has_success ? (int64_t)g->n : 0;
        return;
    }
    if (!g->has_keep) {
        alea__bounds_point(r, 0);
        for (uint32_t i = 0; i < g->n; i++) {
            alea__range m;
            alea__bounds(g->items[i], &m);
            alea__bounds_add(r, &m);
        }
        return;
    }
    if (g->n > KEEP_MEMBERS_MAX)
        return;
    alea__range m[KEEP_MEMBERS_MAX];
    for (uint32_t i = 0; i < g->n; i++)
        alea__bounds(g->items[i], &m[i]);
    /* the kept totals: the k highest, or the k lowest */
    int64_t k = g->keep.n < (int64_t)g->n ? g->keep.n : (int64_t)g->n;
    int high = g->keep.op == KEEP_HIGH || g->keep.op == DROP_LOW;
    if (g->keep.op == DROP_HIGH || g->keep.op == DROP_LOW)
        k = (int64_t)g->n - k;
    alea__bounds_point(r, 0);
    for (int end = 0; end < 2; end++) {
        uint8_t used[KEEP_MEMBERS_MAX] = {0};
        int64_t sum = 0;
        int inf = 0, at = 1;
        for (uint32_t i = 0; i < g->n; i++) {
            inf = inf || (end ? m[i].hi_inf : m[i].lo_inf);
            at = at && (end ? m[i].hi_at : m[i].lo_at);
        }
        /* every member at its low (high): the k highest or lowest of those */
        for (int64_t j = 0; j < k && !inf; j++) {
            uint32_t best = UINT32_MAX;
            for (uint32_t i = 0; i < g->n; i++) {
                int64_t v = end ? m[i].hi : m[i].lo;
                if (!used[i] && (best == UINT32_MAX ||
                                 (high ? v > (end ? m[best].hi : m[best].lo)
                                       : v < (end ? m[best].hi : m[best].lo))))
                    best = i;
            }
            if (best >= g->n)
                break;
            used[best] = 1;
            inf = alea__add_ovf(sum, end ? m[best].hi : m[best].lo, &sum);
        }
        if (end) {
            r->hi_inf = (uint8_t)inf;
            r->hi = inf ? 0 : sum;
            r->hi_at = (uint8_t)(!inf && at);
        } else {
            r->lo_inf = (uint8_t)inf;
            r->lo = inf ? 0 : sum;
            r->lo_at = (uint8_t)(!inf && at);
        }
    }
}

/* ---- exact --------------------------------------------------------------------- */

/* Independent values: count copies of each distribution d (scored: d is
 * already a success score, a "!" die judged roll by roll). */
typedef struct kind {
    alea__pmf d;
    int64_t count;
    int scored;
} kind;

typedef struct kinds {
    kind *k;
    uint32_t n, cap;
    int64_t m; /* sum of the counts */
    int64_t c; /* the numbers of a dice member */
} kinds;

static void kinds_free(alea_ctx *ctx, kinds *ks)
{
    for (uint32_t i = 0; i < ks->n; i++)
        alea__pmf_free(ctx, &ks->k[i].d);
    if (ks->k)
        alea__mem_free(ctx, ks->k, ks->cap * sizeof *ks->k);
}

/* The members' distributions, or the dice of a dice member and its numbers
 * (a count's "!" dice as their scores, as the roller judges them). */
static alea_status kinds_of(alea_ctx *ctx, const node *n, kinds *ks)
{
    const group *g = group_of(n);
    const node *const *items = g->items;
    const uint8_t *ops = NULL;
    uint32_t cnt = g->n;
    alea_status st;
    memset(ks, 0, sizeof *ks);
    if (g->dice) {
        member_items(g, &items, &ops, &cnt);
        if ((st = member_numbers(ctx, n, NULL, &ks->c)) != ALEA_OK)
            return st;
    }
    alea__judge j = {&g->success, g->has_failure ? &g->failure : NULL, ks->c};
    ks->cap = cnt;
    if (!(ks->k = alea__mem_alloc(ctx, alea__mul_size(cnt, sizeof *ks->k))))
        return alea__nomem(ctx);
    for (uint32_t i = 0; i < cnt; i++) {
        const node *it = items[i];
        if (g->dice && it->kind == N_NUM)
            continue;
        kind *k = &ks->k[ks->n];
        k->count = g->dice ? it->u.pool->count : 1;
        k->scored = g->dice && g->has_success && it->u.pool->explode == EXPLODE_EACH;
        st = g->dice ? alea__exact_die(ctx, it, k->scored ? &j : NULL, &k->d)
                     : alea__exact_eval(ctx, it, &k->d);
        if (st != ALEA_OK)
            return st;
        ks->n++;
        if (alea__add_ovf(ks->m, k->count, &ks->m))
            return alea__overflow_error(ctx, n);
    }
    return ALEA_OK;
}

/* The truncated mass of all the values together. */
static double kinds_trunc(const kinds *ks)
{
    double t = 0;
    for (uint32_t i = 0; i < ks->n; i++)
        t = alea__trunc_join(t, alea__trunc_pow(ks->k[i].d.trunc, ks->k[i].count));
    return t;
}

/* The sum of every value, or (is_max) the highest of them, by products of
 * distribution functions: folded kind by kind. */
static alea_status fold_all(alea_ctx *ctx, const node *n, const kinds *ks, int is_max,
                            alea__pmf *out)
{
    alea__pmf acc = {0}, x, y;
    alea_status st = ALEA_OK;
    int have = 0;
    for (uint32_t i = 0; st == ALEA_OK && i < ks->n; i++) {
        const kind *k = &ks->k[i];
        if (k->count == 0)
            continue;
        st = is_max ? alea__pmf_extreme(ctx, 1, &k->d, k->count, n, &x)
                    : alea__pmf_pow(ctx, &k->d, k->count, n, &x);
        if (st != ALEA_OK)
            break;
        if (!have) {
            acc = x;
            have = 1;
            continue;
        }
        st = is_max ? alea__pmf_minmax(ctx, 1, &acc, &x, &y)
                    : alea__pmf_conv(ctx, &acc, &x, n, &y);
        alea__pmf_free(ctx, &x);
        if (st == ALEA_OK) {
            alea__pmf_free(ctx, &acc);
            acc = y;
        }
    }
    if (st != ALEA_OK) {
        alea__pmf_free(ctx, &acc);
        return st;
    }
    if (!have) /* no value: the empty sum */
        return alea__pmf_point(ctx, 0, ALEA__W(1), out);
    *out = acc;
    return ALEA_OK;
}

/* Work units of one cell of the programme's table, per value it adds to. */
#define CELL_COST 1

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* One value of distribution d joins the table cur (states (a, c) of len
 * cells each) at threshold t, into nxt. */
static void dp_step(const alea__pmf *d, int64_t t, int64_t lo, int64_t K, size_t len,
                    const double *cur, double *nxt)
{
    size_t w = (size_t)K + 1, first = 0;
    double pb = 0, pt = 0;
    while (first < d->n && d->v[first] <= t) {
        if (d->v[first] < t)
            pb += d->p[first];
        else
            pt += d->p[first];
        first++;
    }
    memset(nxt, 0, (size_t)K * w * len * sizeof *nxt);
    for (int64_t a = 0; a < K; a++)
        for (size_t c = 0; c < w; c++) {
            const double *row = cur + ((size_t)a * w + c) * len;
            double *same = nxt + ((size_t)a * w + c) * len;
            double *at = nxt + ((size_t)a * w + (c + 1 < w ? c + 1 : c)) * len;
            double *up = a + 1 < K ? nxt + ((size_t)(a + 1) * w + c) * len : NULL;
            for (size_t s = 0; s < len; s++) {
                double x = row[s];
                if (x == 0)
                    continue;
                same[s] += x * pb;
                at[s] += x * pt;
                if (up)
                    for (size_t j = first; j < d->n; j++)
                        up[s + (size_t)((uint64_t)d->v[j] - (uint64_t)lo)] += x * d->p[j];
            }
        }
}

/* One pass of top_dp in doubles: the table of every state (a, c), a dense
 * array of len sums each, over the values, for threshold t; the rolls whose
 * K-th highest is t into acc. */
static alea_status pass_doubles(alea_ctx *ctx, const node *n, const kinds *ks, int64_t K,
                                int64_t t, int64_t lo, size_t len, double step, double *buf,
                                alea__acc *acc)
{
    size_t w = (size_t)K + 1, cells = (size_t)K * w * len;
    double *cur = buf, *nxt = buf + cells;
    alea_status st;
    memset(cur, 0, cells * sizeof *cur);
    cur[0] = 1;
    for (uint32_t i = 0; i < ks->n; i++)
        for (int64_t r = 0; r < ks->k[i].count; r++) {
            if ((st = alea__charge(ctx, (int64_t)step, n->start, n->end)) != ALEA_OK)
                return st;
            dp_step(&ks->k[i].d, t, lo, K, len, cur, nxt);
            double *x = cur;
            cur = nxt;
            nxt = x;
        }
    for (int64_t a = 0; a < K; a++)
        for (size_t c = (size_t)(K - a); c < w; c++) {
            const double *row = cur + ((size_t)a * w + c) * len;
            /* a values above t, at least K - a at t: a lo + s + (K - a) t,
             * within [K lo, K hi] */
            int64_t base = a * lo + (K - a) * t;
            for (size_t s = 0; s < len; s++)
                if (row[s] != 0 &&
                    (st = alea__acc_add(acc, base + (int64_t)s, ALEA__W(row[s]))) != ALEA_OK)
                    return st;
        }
    return ALEA_OK;
}

/* How one value of distribution d stands to the threshold t, in fractions:
 * its chance below t, at t, and its outcomes above t (a partial pmf). */
typedef struct split {
    alea__x below, at;
    int has_below, has_at;
    alea__pmf above;
} split;

static void split_free(alea_ctx *ctx, split *sp)
{
    alea__x_free(ctx, &sp->below);
    alea__x_free(ctx, &sp->at);
    alea__pmf_free(ctx, &sp->above);
}

static alea_status split_at(alea_ctx *ctx, const node *n, const alea__pmf *d, int64_t t,
                            split *sp)
{
    size_t first = 0;
    alea_status st;
    memset(sp, 0, sizeof *sp);
    alea__x_init(ctx, &sp->below);
    alea__x_init(ctx, &sp->at);
    if ((st = alea__x_mul(ctx, &sp->below, ALEA__W(0), n)) != ALEA_OK ||
        (st = alea__x_mul(ctx, &sp->at, ALEA__W(0), n)) != ALEA_OK)
        return st;
    for (; first < d->n && d->v[first] <= t; first++) {
        int below = d->v[first] < t;
        *(below ? &sp->has_below : &sp->has_at) = 1;
        if ((st = alea__x_addmul(ctx, below ? &sp->below : &sp->at, alea__pmf_w(d, first),
                                 ALEA__W(1), n)) != ALEA_OK)
            return st;
    }
    if ((st = alea__pmf_alloc(ctx, d->n - first, &sp->above)) != ALEA_OK)
        return st;
    for (size_t j = first; j < d->n; j++)
        alea__pmf_take(ctx, &sp->above, j - first, d, j);
    return alea__pmf_seal(ctx, &sp->above, n);
}

/*
 * Work of a state's pmf in fractions beyond what the operations that make
 * it charge: its outcomes are copied, reduced, read back to doubles and
 * cleared, and the gcds of long numbers grow faster than their limbs. An
 * addition of one-limb fractions a limb of its digits (none for numbers of
 * one word) keeps the pass near the rest of the engine in CPU time a unit:
 * measured here, {20d7 + 20d11}k20 at 1.5 ns against 2.7 ns without it,
 * {15d6 + 15d7}k15 and {10d7 + 10d11}k10 at 0.7 to 0.9 ns, as 300d20 at 1.
 */
static alea_status state_charge(alea_ctx *ctx, const node *n, const alea__pmf *d)
{
    double units = (double)d->qbytes / 8 * ALEA__FRAC_UNIT;
    alea_status st = alea__work_check(ctx, units, n);
    return st == ALEA_OK ? alea__charge(ctx, (int64_t)units, n->start, n->end) : st;
}

/* *to += x w; an empty *to takes x itself when it is *own (w is 1). */
static alea_status state_add(alea_ctx *ctx, const node *n, alea__pmf *to, alea__pmf *x,
                             int own, alea__w w)
{
    if (own && to->n == 0) {
        *to = *x;
        x->n = 0; /* moved */
        return ALEA_OK;
    }
    alea_status st = state_charge(ctx, n, to);
    if (st == ALEA_OK && (st = state_charge(ctx, n, x)) == ALEA_OK)
        st = alea__pmf_add_scaled(ctx, to, x, w, n);
    if (own)
        alea__pmf_free(ctx, x);
    return st;
}

/* One value joins the states: cur (freed) into nxt (empty), as dp_step
 * does, each state's sums a pmf in fractions. */
static alea_status step_exact(alea_ctx *ctx, const node *n, const split *sp, int64_t K,
                              alea__pmf *cur, alea__pmf *nxt)
{
    size_t w = (size_t)K + 1;
    alea_status st = ALEA_OK;
    for (int64_t a = 0; st == ALEA_OK && a < K; a++)
        for (size_t c = 0; st == ALEA_OK && c < w; c++) {
            alea__pmf *x = &cur[(size_t)a * w + c], y;
            if (x->n == 0)
                continue;
            if (sp->has_below)
                st = state_add(ctx, n, &nxt[(size_t)a * w + c], x, 0, alea__x_w(&sp->below));
            if (st == ALEA_OK && sp->has_at)
                st = state_add(ctx, n, &nxt[(size_t)a * w + (c + 1 < w ? c + 1 : c)], x, 0,
                               alea__x_w(&sp->at));
            if (st == ALEA_OK && a + 1 < K && sp->above.n &&
                (st = alea__pmf_conv(ctx, x, &sp->above, n, &y)) == ALEA_OK &&
                (st = state_charge(ctx, n, &y)) != ALEA_OK)
                alea__pmf_free(ctx, &y);
            if (st == ALEA_OK && a + 1 < K && sp->above.n)
                st = state_add(ctx, n, &nxt[(size_t)(a + 1) * w + c], &y, 1, ALEA__W(1));
        }
    for (size_t s = 0; s < (size_t)K * w; s++)
        alea__pmf_free(ctx, &cur[s]);
    return st;
}

/* One pass of top_dp in exact mode: the same states, each a pmf of the sum
 * of the values above t built by the exact operations (cur and nxt hold
 * K (K + 1) empty pmfs, and are left so). */
static alea_status pass_exact(alea_ctx *ctx, const node *n, const kinds *ks, int64_t K,
                              int64_t t, alea__pmf *cur, alea__pmf *nxt, alea__acc *acc)
{
    size_t w = (size_t)K + 1, S = (size_t)K * w;
    alea_status st = alea__pmf_point(ctx, 0, ALEA__W(1), &cur[0]);
    for (uint32_t i = 0; st == ALEA_OK && i < ks->n; i++) {
        split sp;
        if ((st = split_at(ctx, n, &ks->k[i].d, t, &sp)) == ALEA_OK)
            for (int64_t r = 0; st == ALEA_OK && r < ks->k[i].count; r++) {
                /* the states walked; their operations charge themselves */
                if ((st = alea__charge(ctx, (int64_t)S, n->start, n->end)) != ALEA_OK ||
                    (st = step_exact(ctx, n, &sp, K, cur, nxt)) != ALEA_OK)
                    break;
                alea__pmf *x = cur;
                cur = nxt;
                nxt = x;
            }
        split_free(ctx, &sp);
    }
    for (int64_t a = 0; st == ALEA_OK && a < K; a++)
        for (size_t c = (size_t)(K - a); st == ALEA_OK && c < w; c++)
            st = alea__acc_add_pmf(acc, &cur[(size_t)a * w + c], (K - a) * t, ALEA__W(1));
    for (size_t s = 0; s < S; s++) {
        alea__pmf_free(ctx, &cur[s]);
        alea__pmf_free(ctx, &nxt[s]);
    }
    return st;
}

/*
 * The sum of the K highest of the values (1 < K < m), by the value t of the
 * K-th highest: for each t of the support, a pass over the values keeps,
 * in state (a, c) = (how many are above t, below K; how many equal t,
 * counted up to K), the distribution of the sum of those above t. The
 * states with a + c >= K are the rolls whose K-th highest is t, worth that
 * sum plus (K - a) t; every roll has one K-th highest, so the passes add
 * up to the distribution. In doubles the sums are dense arrays, shifted by
 * the lowest value, lo: a values above t sum to a lo plus an index below
 * (K - 1) (hi - lo) + 1. In exact mode each state is a pmf (pass_exact).
 */
static alea_status top_dp(alea_ctx *ctx, const node *n, const kinds *ks, int64_t K,
                          alea__pmf *out)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, vmin, vmax, span;
    size_t nt = 0;
    for (uint32_t i = 0; i < ks->n; i++) {
        const alea__pmf *d = &ks->k[i].d;
        if (d->n == 0 || ks->k[i].count == 0)
            continue;
        lo = d->v[0] < lo ? d->v[0] : lo;
        hi = d->v[d->n - 1] > hi ? d->v[d->n - 1] : hi;
        nt += d->n;
    }
    if (nt == 0) /* every value was cut off */
        return alea__pmf_alloc(ctx, 0, out);
    if (alea__mul_ovf(K, lo, &vmin) || alea__mul_ovf(K, hi, &vmax) ||
        alea__sub_ovf(hi, lo, &span))
        return alea__overflow_error(ctx, n);
    double S = (double)K * (double)(K + 1), L = (double)(K - 1) * (double)span + 1;
    if (S * L > (double)ctx->limits[ALEA_LIMIT_SUPPORT])
        return alea__support_error(ctx, n);
    /* The distinct thresholds, each a pass over the m values: a step costs
     * in doubles each cell of the table per outcome, in exact mode the S
     * states walked at least (their operations charge the rest as they go). */
    size_t tbytes = alea__mul_size(nt, sizeof(int64_t)), nd = 0;
    int64_t *ts = alea__mem_alloc(ctx, tbytes);
    if (!ts)
        return alea__nomem(ctx);
    nt = 0;
    for (uint32_t i = 0; i < ks->n; i++)
        for (size_t j = 0; ks->k[i].count && j < ks->k[i].d.n; j++)
            ts[nt++] = ks->k[i].d.v[j];
    qsort(ts, nt, sizeof *ts, i64_cmp);
    for (size_t ti = 0; ti < nt; ti++)
        if (nd == 0 || ts[ti] != ts[nd - 1])
            ts[nd++] = ts[ti];
    double step = S * L * ((double)nt / ks->n + 2) * CELL_COST;
    alea_status st = alea__work_check(ctx, (double)nd * (double)ks->m * (ctx->exact ? S : step), n);
    size_t cells = (size_t)(S * L), len = (size_t)L;
    size_t bytes = ctx->exact ? alea__mul_size((size_t)S, 2 * sizeof(alea__pmf))
                              : alea__mul_size(cells, 2 * sizeof(double));
    void *buf = NULL;
    alea__acc acc;
    int acc_on = 0;
    if (st != ALEA_OK)
        goto done;
    if (!(buf = alea__mem_alloc(ctx, bytes))) {
        st = alea__nomem(ctx);
        goto done;
    }
    if (ctx->exact)
        memset(buf, 0, bytes); /* empty pmfs */
    if ((st = alea__acc_init(&acc, ctx, n, vmin, vmax, (double)nd * S * L)) != ALEA_OK)
        goto done;
    acc_on = 1;
    for (size_t ti = 0; ti < nd; ti++) {
        alea__pmf *states = buf;
        st = ctx->exact ? pass_exact(ctx, n, ks, K, ts[ti], states, states + (size_t)S, &acc)
                        : pass_doubles(ctx, n, ks, K, ts[ti], lo, len, step, buf, &acc);
        if (st != ALEA_OK)
            goto done;
    }
    acc_on = 0;
    st = alea__acc_finish(&acc, out);
done:
    if (acc_on)
        alea__acc_free(&acc);
    if (ts)
        alea__mem_free(ctx, ts, tbytes);
    if (buf)
        alea__mem_free(ctx, buf, bytes);
    return st;
}

/* The sum of the K highest values (0 <= K <= m). */
static alea_status top_sum(alea_ctx *ctx, const node *n, const kinds *ks, int64_t K,
                           alea__pmf *out)
{
    if (K == 0)
        return alea__pmf_point(ctx, 0, ALEA__W(1), out);
    if (K == ks->m)
        return fold_all(ctx, n, ks, 0, out);
    if (K == 1)
        return fold_all(ctx, n, ks, 1, out);
    if (ks->n == 1) /* one pool's dice ({40d6}k20): its order statistics */
        return alea__keep(ctx, &ks->k[0].d, NULL, ks->m, ks->m - K, ks->m, n, out);
    return top_dp(ctx, n, ks, K, out);
}

/* The kept values' sum: the K highest, or the K lowest as the highest of
 * the negated values. */
static alea_status keep_exact(alea_ctx *ctx, const node *n, kinds *ks, alea__pmf *out)
{
    const keep_step *k = &group_of(n)->keep;
    int64_t cnt = k->n < ks->m ? k->n : ks->m;
    int low = k->op == KEEP_LOW || k->op == DROP_HIGH;
    int64_t K = k->op == KEEP_HIGH || k->op == KEEP_LOW ? cnt : ks->m - cnt;
    alea_status st;
    alea__pmf x;
    for (uint32_t i = 0; low && i < ks->n; i++) {
        if ((st = alea__pmf_neg(ctx, &ks->k[i].d, n, &x)) != ALEA_OK)
            return st;
        alea__pmf_free(ctx, &ks->k[i].d);
        ks->k[i].d = x;
    }
    if ((st = top_sum(ctx, n, ks, K, low ? &x : out)) != ALEA_OK || !low)
        return st;
    st = alea__pmf_neg(ctx, &x, n, out);
    alea__pmf_free(ctx, &x);
    return st;
}

/* The success count: each value (plus the numbers c) scores +1, -1 or 0,
 * a distribution of its own (remapped from the value's, in the context's
 * number system); the scores of independent values sum as fold_all sums
 * values (powers and products: faster than a walk over the values, as
 * measured on {9999d2}>=2 in doubles, 0.02 s against 0.13 s). */
static alea_status count_exact(alea_ctx *ctx, const node *n, const kinds *ks, alea__pmf *out)
{
    const group *g = group_of(n);
    kinds sc;
    alea_status st = ALEA_OK;
    memset(&sc, 0, sizeof sc);
    sc.cap = ks->cap; /* at least 1: a group has a member */
    if (!(sc.k = alea__mem_alloc(ctx, alea__mul_size(sc.cap, sizeof *sc.k))))
        return alea__nomem(ctx);
    for (uint32_t i = 0; st == ALEA_OK && i < ks->n; i++) {
        const alea__pmf *d = &ks->k[i].d;
        size_t size = alea__mul_size(d->n ? d->n : 1, sizeof(int64_t));
        int64_t *map = alea__mem_alloc(ctx, size);
        if (!map) {
            st = alea__nomem(ctx);
            break;
        }
        for (size_t j = 0; st == ALEA_OK && j < d->n; j++) {
            uint8_t mark = 0;
            if (ks->k[i].scored)
                map[j] = d->v[j];
            else if (alea__add_ovf(d->v[j], ks->c, &map[j]))
                st = alea__overflow_error(ctx, n);
            else
                map[j] = judge(g, map[j], &mark);
        }
        if (st == ALEA_OK && (st = alea__pmf_remap(ctx, d, map, n, &sc.k[i].d)) == ALEA_OK) {
            sc.k[i].count = ks->k[i].count;
            sc.n++;
        }
        alea__mem_free(ctx, map, size);
    }
    if (st == ALEA_OK)
        st = fold_all(ctx, n, &sc, 0, out);
    kinds_free(ctx, &sc);
    return st;
}

static alea_status group_exact(alea_ctx *ctx, const node *n, alea__pmf *out,
                               alea__notes *notes)
{
    (void)notes; /* a group's distribution says nothing beyond its outcomes */
    const group *g = group_of(n);
    kinds ks;
    alea__pmf x, c;
    alea_status st = kinds_of(ctx, n, &ks);
    if (st == ALEA_OK) {
        if (g->has_success) {
            st = count_exact(ctx, n, &ks, out);
        } else if (g->has_keep) {
            if ((st = keep_exact(ctx, n, &ks, &x)) == ALEA_OK) {
                /* a dice member's numbers add to the kept dice */
                if ((st = alea__pmf_point(ctx, ks.c, ALEA__W(1), &c)) == ALEA_OK) {
                    st = alea__pmf_conv(ctx, &x, &c, n, out);
                    alea__pmf_free(ctx, &c);
                }
                alea__pmf_free(ctx, &x);
            }
        } else {
            st = fold_all(ctx, n, &ks, 0, out);
        }
        if (st == ALEA_OK)
            out->trunc = kinds_trunc(&ks);
    }
    kinds_free(ctx, &ks);
    return st;
}

/* ---- the table ------------------------------------------------------------------ */

const alea__mech alea__mech_group = {
    .parse = group_parse,
    .print = group_print,
    .roll = group_roll,
    .exact = group_exact,
    .show = group_show,
    .bounds = group_bounds,
    .opens = T_LBRACE,
    .parse_set = group_parse_set,
    .members = 1,
    .show_json_members = group_show_json,
};
