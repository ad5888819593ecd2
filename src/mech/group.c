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
 * Here: parsing, printing, rolling, the breakdown, the bounds and the
 * table's row; the exact distribution is group_exact.c, the spec both
 * read is group.h.
 */
#include "group.h"

#include <stdlib.h>
#include <string.h>

#include "../parser.h"
#include "../pool.h"
#include "../pmf.h"

ALEA__HIDDEN extern const alea__mech alea__mech_group;

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

/* The numbers a dice member adds to its dice ("{3d20 + 5}": 5), into *c. */
alea_status alea__group_member_numbers(alea_ctx *ctx, const node *n, alea__rstate *s,
                                       int64_t *c)
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
    if (g->has_success && (st = alea__group_member_numbers(s->ctx, n, s, &c)) != ALEA_OK)
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
    alea__show_json_at(o, *first ? ", \"groups\": [" : ", ", rc->n, rc->value);
    *first = 0;
    alea__out_str(o, ", \"members\": [");
    for (uint32_t i = 0; i < rc->nkids; i++) {
        alea__show_json_at(o, i ? ", " : "", rc->kids[i]->n, rc->kids[i]->value);
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

/* ---- the table ------------------------------------------------------------------ */

const alea__mech alea__mech_group = {
    .parse = group_parse,
    .print = group_print,
    .roll = group_roll,
    .exact = alea__group_exact,
    .show = group_show,
    .bounds = group_bounds,
    .opens = T_LBRACE,
    .parse_set = group_parse_set,
    .members = 1,
    .show_json_members = group_show_json,
};
