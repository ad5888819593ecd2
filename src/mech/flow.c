/*
 * mech/flow.c -- two calls of whole expressions that decide what is rolled:
 *
 *   if(COND, THEN, ELSE)  COND rolled, then only the branch it picks: THEN
 *                         when COND is not 0, else ELSE
 *   sum(N, EXPR)          N independent rolls of EXPR added (AnyDice's
 *                         Nd(EXPR)); N any expression, rolled first; 0 rolls
 *                         give 0, a negative N is an error at N
 *
 * Exactly, an if is P(COND != 0) dist(THEN) + P(COND = 0) dist(ELSE), a
 * mixture over whether the condition holds (pmf_mix.c), a branch whose
 * chance is 0 never computed; a sum is the mixture over N's values of the
 * sums of that many copies of EXPR, each count's sum built from the one
 * before (pmf_mix.c). Names bound around either are fixed while it is
 * computed (exact.c binds each value in turn), so there the parts are
 * independent. The least work a sum's convolutions take, and the outcomes
 * of its largest sum, are checked before the first, so a huge N is refused
 * at once; rolling, each repetition counts as a die against the DICE
 * limit, as best()'s do, charged before any is rolled.
 *
 * The breakdown shows an if's condition and the branch taken, the other as
 * "...", and a sum's rolls in brief; each is an entry of the JSON's
 * "groups", its members the records it rolled.
 */
#include <string.h>

#include "../exact.h"
#include "../mech.h"
#include "../pmf.h"

/* The arguments: if's condition, THEN and ELSE; sum's count and EXPR. */
enum { COND = 0, THEN = 1, ELSE = 2, COUNT = 0, EXPR = 1 };

typedef struct flow_spec {
    const node *arg[3];
    uint8_t n;
} flow_spec;

ALEA__HIDDEN extern const alea__mech alea__mech_if, alea__mech_sum;

/* What a repetition of a sum prints beyond its own record, at most: its
 * value in the text (", -9223372036854775808*") and its entry in the
 * JSON's "groups" ({"start", "end", "value"}, numbers of up to 20 digits). */
#define SUM_REP_BYTES 128

/* ---- parsing and printing ---- */

/* call = NAME "(" expr { "," expr } ")", exactly nargs expressions;
 * expect[0]: the message's expected text for "(", expect[i] for the ","
 * before argument i, close for ")". */
static alea_status parse_args(alea__parser *p, const alea__mech *m, uint8_t nargs,
                              const char *const *expect, const char *close, size_t start,
                              const node **out)
{
    alea_status st;
    flow_spec *f = alea__parse_alloc(p, sizeof *f);
    if (!f)
        return alea__nomem(alea__parse_ctx(p));
    memset(f, 0, sizeof *f);
    f->n = nargs;
    if ((st = alea__parse_open(p, expect[0])) != ALEA_OK)
        return st;
    for (uint8_t i = 0; i < nargs; i++)
        if ((i > 0 && (st = alea__parse_expect_comma(p, expect[i])) != ALEA_OK) ||
            (st = alea__parse_arg(p, &f->arg[i])) != ALEA_OK)
            return st;
    if ((st = alea__mech_node(p, m, f, start, alea__parse_here(p), out)) != ALEA_OK)
        return st;
    return alea__parse_close(p, close, NULL);
}

#define IF_EXAMPLE "as in if(d20 >= 11, 2d6, 0)"
#define SUM_EXAMPLE "as in sum(8, d20 >= 18)"

/* if = "if" "(" expr "," expr "," expr ")" */
static alea_status if_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    static const char *const expect[] = {
        "'(' after if, " IF_EXAMPLE,
        "',' and the value when the condition holds, " IF_EXAMPLE,
        "',' and the value when it does not (if takes three arguments), " IF_EXAMPLE,
    };
    (void)end;
    return parse_args(p, &alea__mech_if, 3, expect,
                      "')' (if takes three arguments: a condition, its value when the "
                      "condition holds and when it does not)",
                      start, out);
}

/* sum = "sum" "(" expr "," expr ")" */
static alea_status sum_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    static const char *const expect[] = {
        "'(' after sum, " SUM_EXAMPLE,
        "',' and the expression to roll that many times, " SUM_EXAMPLE,
    };
    (void)end;
    return parse_args(p, &alea__mech_sum, 2, expect,
                      "')' (sum takes two arguments: how many rolls, and what is rolled)",
                      start, out);
}

/* "if(a = 20, 2d6, d6)", "sum(8, d20>=18)" */
static void flow_print(alea__out *o, const node *n)
{
    const flow_spec *f = n->u.mech.spec;
    alea__out_str(o, n->u.mech.ops->name);
    alea__out_char(o, '(');
    for (uint8_t i = 0; i < f->n; i++) {
        if (i)
            alea__out_str(o, ", ");
        alea__node_print(o, f->arg[i]);
    }
    alea__out_char(o, ')');
}

/* ---- rolling ---- */

/* Room for k records of the rolls of n (NULL untraced): *kids. */
static alea_status kids_alloc(alea__rstate *s, size_t k, const rec ***kids)
{
    *kids = NULL;
    if (!s->trace)
        return ALEA_OK;
    *kids = alea__arena_alloc(&s->r->arena, alea__mul_size(k, sizeof **kids));
    if (!*kids)
        return alea__nomem(s->ctx);
    memset((void *)*kids, 0, k * sizeof **kids);
    return ALEA_OK;
}

/* The condition, then the branch it picks: kids[0] and kids[1]. */
static alea_status if_roll(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const flow_spec *f = n->u.mech.spec;
    const rec **kids, *dummy;
    int64_t c;
    alea_status st = kids_alloc(s, 2, &kids);
    if (st != ALEA_OK ||
        (st = alea__roll_eval(s, f->arg[COND], kids ? &kids[0] : &dummy, &c)) != ALEA_OK ||
        (st = alea__roll_eval(s, f->arg[c ? THEN : ELSE], kids ? &kids[1] : &dummy, value)) !=
            ALEA_OK)
        return st;
    rc->kids = kids;
    rc->nkids = kids ? 2 : 0;
    return ALEA_OK;
}

static alea_status negative(alea_ctx *ctx, const node *count, const char *verb, int64_t v)
{
    return alea__error(ctx, ALEA_ERR_DOMAIN, count->start, count->end,
                       "sum() needs a count of rolls of 0 or more at byte %u (it %s %lld)",
                       (unsigned)count->start, verb, (long long)v);
}

/* The count (kids[0]), then its repetitions (kids[1..]). */
static alea_status sum_roll(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const flow_spec *f = n->u.mech.spec;
    const rec *count = NULL, *dummy, **kids;
    int64_t k, total = 0;
    alea_status st = alea__roll_eval(s, f->arg[COUNT], &count, &k);
    if (st != ALEA_OK)
        return st;
    if (k < 0)
        return negative(s->ctx, f->arg[COUNT], "is", k);
    /* Every repetition is a die, and prints: both charged before any is
     * rolled or allocated (the DICE limit keeps k within a size_t). */
    if ((st = alea__roll_charge(s, n, k)) != ALEA_OK ||
        (st = alea__roll_bytes(s, n, SUM_REP_BYTES * k)) != ALEA_OK ||
        (st = kids_alloc(s, (size_t)k + 1, &kids)) != ALEA_OK)
        return st;
    for (int64_t i = 0; i < k; i++) {
        int64_t v;
        if ((st = alea__roll_eval(s, f->arg[EXPR], kids ? &kids[i + 1] : &dummy, &v)) !=
            ALEA_OK)
            return st;
        if (alea__add_ovf(total, v, &total))
            return alea__roll_overflow(s, n);
    }
    if (kids)
        kids[0] = count;
    rc->kids = kids;
    rc->nkids = kids ? (uint32_t)k + 1 : 0;
    *value = total;
    return ALEA_OK;
}

/* ---- exact distributions ---- */

/* The branch where the condition holds (v = 1) or not (v = 0); ud: the
 * spec, by address. */
static alea_status branch_at(alea_ctx *ctx, void *ud, int64_t v, alea__pmf *cur)
{
    const flow_spec *f = *(const flow_spec *const *)ud;
    alea__pmf_free(ctx, cur);
    return alea__exact_eval(ctx, f->arg[v ? THEN : ELSE], cur);
}

static alea_status if_exact(alea_ctx *ctx, const node *n, alea__pmf *out, alea__notes *notes)
{
    const flow_spec *f = n->u.mech.spec;
    alea__pmf c, holds;
    (void)notes;
    alea_status st = alea__exact_eval(ctx, f->arg[COND], &c);
    if (st != ALEA_OK)
        return st;
    /* Whether it holds: the condition's outcomes mapped to 1 or 0. */
    size_t bytes = alea__mul_size(c.n ? c.n : 1, sizeof(int64_t));
    int64_t *map = alea__mem_alloc(ctx, bytes);
    if (!map) {
        alea__pmf_free(ctx, &c);
        return alea__nomem(ctx);
    }
    for (size_t i = 0; i < c.n; i++)
        map[i] = c.v[i] != 0;
    st = alea__pmf_remap(ctx, &c, map, n, &holds);
    alea__mem_free(ctx, map, bytes);
    alea__pmf_free(ctx, &c);
    if (st != ALEA_OK)
        return st;
    /* A branch a value, each its own evaluation. */
    st = alea__pmf_mix(ctx, &holds, ALEA__MIX_COST, ALEA__MIX_COST, branch_at, &f, n, out);
    alea__pmf_free(ctx, &holds);
    return st;
}

/* The sums of a certain value v: c v at each count c, with the count's
 * chance (a power of fractions of 1 would be computed digit by digit). */
static alea_status certain_sums(alea_ctx *ctx, const node *n, const alea__pmf *cnt, int64_t v,
                                alea__pmf *out)
{
    size_t bytes = alea__mul_size(cnt->n ? cnt->n : 1, sizeof(int64_t));
    int64_t *map = alea__mem_alloc(ctx, bytes);
    alea_status st = map ? ALEA_OK : alea__nomem(ctx);
    for (size_t i = 0; st == ALEA_OK && i < cnt->n; i++)
        if (alea__mul_ovf(cnt->v[i], v, &map[i]))
            st = alea__overflow_error(ctx, n);
    if (st == ALEA_OK)
        st = alea__pmf_remap(ctx, cnt, map, n, out);
    if (map)
        alea__mem_free(ctx, map, bytes);
    return st;
}

static alea_status sum_exact(alea_ctx *ctx, const node *n, alea__pmf *out, alea__notes *notes)
{
    const flow_spec *f = n->u.mech.spec;
    alea__pmf cnt, a;
    (void)notes;
    alea_status st = alea__exact_eval(ctx, f->arg[COUNT], &cnt);
    if (st != ALEA_OK)
        return st;
    if (cnt.n && cnt.v[0] < 0) {
        st = negative(ctx, f->arg[COUNT], "can be", cnt.v[0]);
        alea__pmf_free(ctx, &cnt);
        return st;
    }
    if ((st = alea__exact_eval(ctx, f->arg[EXPR], &a)) != ALEA_OK) {
        alea__pmf_free(ctx, &cnt);
        return st;
    }
    if (a.n == 1 && a.trunc == 0) {
        st = certain_sums(ctx, n, &cnt, a.v[0], out);
        alea__pmf_free(ctx, &cnt);
        alea__pmf_free(ctx, &a);
        return st;
    }
    /*
     * Before the first step: the sum of the largest count c has at least
     * c (|A| - 1) + 1 outcomes (|X + Y| >= |X| + |Y| - 1), and each count's
     * sum after the first is the sum before convolved with at least |A|
     * outcomes, each pair a unit of work, beside a mixing step a count.
     */
    double grow = a.n > 1 ? (double)(a.n - 1) : 0, work = 0;
    for (size_t i = 0; i < cnt.n; i++)
        work += ALEA__MIX_COST + (i ? ((double)cnt.v[i - 1] * grow + 1) * (double)a.n : 0);
    double largest = cnt.n ? (double)cnt.v[cnt.n - 1] * grow + 1 : 1;
    if (largest > (double)alea__support_limit(ctx))
        st = alea__support_need(ctx, n, largest);
    else if ((st = alea__work_check(ctx, work, n)) == ALEA_OK)
        st = alea__pmf_mix_sums(ctx, &cnt, &a, ALEA__MIX_COST, n, out);
    alea__pmf_free(ctx, &cnt);
    alea__pmf_free(ctx, &a);
    return st;
}

/* ---- the breakdowns ---- */

/* "if(d20>=11 [14*] = 1, 2d6 [3, 5] = 8, ...)" */
static void if_show(alea__out *o, const alea_roll *r, const rec *rc)
{
    int holds = rc->kids[0]->value != 0;
    alea__out_str(o, "if(");
    alea__show_member(o, r, rc->kids[0], 1);
    alea__out_str(o, holds ? ", " : ", ..., ");
    alea__show_member(o, r, rc->kids[1], 1);
    alea__out_str(o, holds ? ", ...)" : ")");
}

/* A repetition in brief: a single die as its term shows it ("19*",
 * "6!+3"); a comparison by the side that was rolled, starred when it held
 * ("21*"); anything else by its value. */
static void show_rep(alea__out *o, const alea_roll *r, const rec *rc)
{
    const node *n = rc->n;
    if (n->kind == N_DICE && rc->ndice == 1 && !rc->count && !rc->sides) {
        alea__show_die(o, r, &r->dice[rc->die0], &n->u.pool->die);
        return;
    }
    if (n->kind == N_CMP && rc->nkids == 2) {
        show_rep(o, r, rc->kids[n->u.bin.a->kind == N_NUM ? 1 : 0]);
        if (rc->value)
            alea__out_char(o, '*');
        return;
    }
    alea__out_i64(o, rc->value);
}

/* "sum(3, d20>=18) [12, 19*, 4]"; a rolled count shows its roll,
 * "sum(d4 [2], 2d6) [7, 9]". */
static void sum_show(alea__out *o, const alea_roll *r, const rec *rc)
{
    const flow_spec *f = rc->n->u.mech.spec;
    alea__out_str(o, "sum(");
    alea__show_member(o, r, rc->kids[0], 1);
    alea__out_str(o, ", ");
    alea__node_print(o, f->arg[EXPR]);
    alea__out_str(o, ") [");
    for (uint32_t i = 1; i < rc->nkids; i++) {
        if (i > 1)
            alea__out_str(o, ", ");
        show_rep(o, r, rc->kids[i]);
    }
    alea__out_char(o, ']');
}

/* The entry of rc in the JSON's "groups": {"start", "end", "value", then
 * field (", \"branch\": \"then\""), then "members": the records of kids
 * [from, nkids)}. */
static void json_entry(alea__out *o, const rec *rc, int *first, const char *field,
                       int64_t field_value, uint32_t from)
{
    alea__show_json_at(o, *first ? ", \"groups\": [" : ", ", rc->n, rc->value);
    *first = 0;
    alea__out_str(o, field);
    if (field_value >= 0)
        alea__out_i64(o, field_value);
    alea__out_str(o, ", \"members\": [");
    for (uint32_t i = from; i < rc->nkids; i++) {
        alea__show_json_at(o, i > from ? ", " : "", rc->kids[i]->n, rc->kids[i]->value);
        alea__out_char(o, '}');
    }
    alea__out_str(o, "]}");
}

/* An if: "branch": "then" or "else"; its members, the condition and the
 * branch taken. */
static void if_show_json(alea__out *o, const rec *rc, int *first)
{
    json_entry(o, rc, first,
               rc->kids[0]->value ? ", \"branch\": \"then\"" : ", \"branch\": \"else\"", -1,
               0);
}

/* A sum: "count"; its members, the rolls. */
static void sum_show_json(alea__out *o, const rec *rc, int *first)
{
    json_entry(o, rc, first, ", \"count\": ", rc->kids[0]->value, 1);
}

/* ---- bounds ---- */

/* The branches' bounds joined; a branch the condition's bounds rule out is
 * left out, and an end is attained only through a branch some roll takes. */
static void if_bounds(const node *n, alea__range *r)
{
    const flow_spec *f = n->u.mech.spec;
    alea__range c, t, e;
    alea__bounds(f->arg[COND], &c);
    alea__bounds(f->arg[THEN], &t);
    alea__bounds(f->arg[ELSE], &e);
    int can_hold = c.lo_inf || c.hi_inf || c.lo != 0 || c.hi != 0;
    int can_fail = (c.lo_inf || c.lo <= 0) && (c.hi_inf || c.hi >= 0);
    int holds_at = (c.lo_at && c.lo != 0) || (c.hi_at && c.hi != 0);
    int fails_at = (c.lo_at && c.lo == 0) || (c.hi_at && c.hi == 0);
    if (!can_fail) {
        *r = t;
        return;
    }
    if (!can_hold) {
        *r = e;
        return;
    }
    t.lo_at = t.lo_at && holds_at;
    t.hi_at = t.hi_at && holds_at;
    e.lo_at = e.lo_at && fails_at;
    e.hi_at = e.hi_at && fails_at;
    memset(r, 0, sizeof *r);
    r->lo_inf = t.lo_inf || e.lo_inf;
    if (!r->lo_inf) {
        r->lo = t.lo < e.lo ? t.lo : e.lo;
        r->lo_at = (t.lo == r->lo && t.lo_at) || (e.lo == r->lo && e.lo_at);
    }
    r->hi_inf = t.hi_inf || e.hi_inf;
    if (!r->hi_inf) {
        r->hi = t.hi > e.hi ? t.hi : e.hi;
        r->hi_at = (t.hi == r->hi && t.hi_at) || (e.hi == r->hi && e.hi_at);
    }
}

/* k x over k in [klo, khi] (klo >= 0; khi_inf: no end): least when
 * least, and the same at the greatest end by symmetry. */
static void scale_end(int64_t x, int xinf, int xat, int64_t klo, int khi_inf, int64_t khi,
                      int kat_lo, int kat_hi, int low, int64_t *v, uint8_t *inf, uint8_t *at)
{
    /* k x is monotone in k: the end is at klo or khi, by x's sign. */
    int use_hi = low ? x < 0 : x > 0;
    *inf = (uint8_t)(xinf || (use_hi && khi_inf));
    if (!*inf)
        *inf = (uint8_t)alea__mul_ovf(use_hi ? khi : klo, x, v);
    *at = (uint8_t)(!*inf && xat && (use_hi ? kat_hi : kat_lo));
}

static void sum_bounds(const node *n, alea__range *r)
{
    const flow_spec *f = n->u.mech.spec;
    alea__range k, x;
    alea__bounds(f->arg[COUNT], &k);
    alea__bounds(f->arg[EXPR], &x);
    /* A negative count is an error: the counts rolled are from 0. */
    int64_t klo = k.lo_inf || k.lo < 0 ? 0 : k.lo;
    int kat_lo = !k.lo_inf && k.lo >= 0 && k.lo_at;
    memset(r, 0, sizeof *r);
    if (!k.hi_inf && k.hi < 0) { /* every roll is an error */
        alea__bounds_point(r, 0);
        return;
    }
    scale_end(x.lo, x.lo_inf, x.lo_at, klo, k.hi_inf, k.hi, kat_lo, k.hi_at, 1, &r->lo,
              &r->lo_inf, &r->lo_at);
    scale_end(x.hi, x.hi_inf, x.hi_at, klo, k.hi_inf, k.hi, kat_lo, k.hi_at, 0, &r->hi,
              &r->hi_inf, &r->hi_at);
}

const alea__mech alea__mech_if = {
    .name = "if",
    .parse = if_parse,
    .print = flow_print,
    .roll = if_roll,
    .exact = if_exact,
    .show = if_show,
    .bounds = if_bounds,
    .members = 1,
    .show_json_members = if_show_json,
};

const alea__mech alea__mech_sum = {
    .name = "sum",
    .parse = sum_parse,
    .print = flow_print,
    .roll = sum_roll,
    .exact = sum_exact,
    .show = sum_show,
    .bounds = sum_bounds,
    .members = 1,
    .show_json_members = sum_show_json,
};
