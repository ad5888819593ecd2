/*
 * bounds.c -- the least and the greatest value an expression can take, from
 * its tree alone (interval analysis), without any probability.
 *
 * A distribution in doubles can miss its rarest outcomes, and a cut
 * explosion chain, or an estimate from samples, lists only some: their
 * listed ends are then not the expression's. Each node gives its bounds
 * from its children's; a bound is always sound (no value lies past it),
 * and marked attained only where some roll reaches it. What a node kind
 * cannot bound here is left open (alea__range.lo_inf, hi_inf), never
 * guessed; dist.c then falls back to the listed outcomes and says so.
 */
#include <string.h>

#include "bounds.h"
#include "pool.h"
#include "mech.h"

static void open_range(alea__range *r)
{
    memset(r, 0, sizeof *r);
    r->lo_inf = r->hi_inf = 1;
}

static void point(alea__range *r, int64_t v)
{
    memset(r, 0, sizeof *r);
    r->lo = r->hi = v;
    r->lo_at = r->hi_at = 1;
}

/* [a.lo + b.lo, a.hi + b.hi] (b negated first when sub). */
static void add(alea__range *a, const alea__range *bb, int sub)
{
    alea__range b = *bb;
    if (sub) {
        alea__range n;
        alea__bounds_neg(&b, &n);
        b = n;
    }
    a->lo_inf = a->lo_inf || b.lo_inf || alea__add_ovf(a->lo, b.lo, &a->lo);
    a->hi_inf = a->hi_inf || b.hi_inf || alea__add_ovf(a->hi, b.hi, &a->hi);
    a->lo_at = !a->lo_inf && a->lo_at && b.lo_at;
    a->hi_at = !a->hi_inf && a->hi_at && b.hi_at;
}

void alea__bounds_open(alea__range *r)
{
    open_range(r);
}

void alea__bounds_point(alea__range *r, int64_t v)
{
    point(r, v);
}

void alea__bounds_add(alea__range *a, const alea__range *b)
{
    add(a, b, 0);
}

void alea__bounds_neg(const alea__range *a, alea__range *out)
{
    memset(out, 0, sizeof *out);
    out->lo_inf = a->hi_inf || a->hi == INT64_MIN;
    out->hi_inf = a->lo_inf || a->lo == INT64_MIN;
    if (!out->lo_inf) {
        out->lo = -a->hi;
        out->lo_at = a->hi_at;
    }
    if (!out->hi_inf) {
        out->hi = -a->lo;
        out->hi_at = a->lo_at;
    }
}

/* A product or a quotient rounded by any rule: over a box whose divisor
 * keeps one sign, the extremes are at its corners, each reached when the
 * operands' ends are. A quotient that must be whole (OP_DIVWHOLE) is
 * bounded by its corners but may not reach them. */
static void corners(uint8_t op, alea__range *a, const alea__range *b)
{
    int at = a->lo_at && a->hi_at && b->lo_at && b->hi_at && op != OP_DIVWHOLE;
    if (a->lo_inf || a->hi_inf || b->lo_inf || b->hi_inf ||
        (op != OP_MUL && b->lo <= 0 && b->hi >= 0)) {
        open_range(a);
        return;
    }
    int64_t xs[2] = {a->lo, a->hi}, ys[2] = {b->lo, b->hi}, lo = 0, hi = 0;
    for (int i = 0; i < 4; i++) {
        int64_t r;
        int st = alea__arith(op, xs[i / 2], ys[i % 2], &r);
        if (st == ARITH_INEXACT) {
            /* not whole at this corner: the exact quotient's floor and
             * ceiling bound the whole ones near it */
            int64_t f, c;
            if (alea__arith(OP_DIV, xs[i / 2], ys[i % 2], &f) != ARITH_OK ||
                alea__arith(OP_DIVUP, xs[i / 2], ys[i % 2], &c) != ARITH_OK) {
                open_range(a);
                return;
            }
            lo = i == 0 || f < lo ? f : lo;
            hi = i == 0 || c > hi ? c : hi;
            continue;
        }
        if (st != ARITH_OK) {
            open_range(a);
            return;
        }
        lo = i == 0 || r < lo ? r : lo;
        hi = i == 0 || r > hi ? r : hi;
    }
    a->lo = lo;
    a->hi = hi;
    a->lo_at = a->hi_at = (uint8_t)at;
}

/* a % b: the sign of the dividend, smaller than the divisor in size and
 * no larger than the dividend. Bounds only (which remainders occur depends
 * on the values, not their range). */
static void rem(alea__range *a, const alea__range *b)
{
    if (a->lo_inf || a->hi_inf || b->lo_inf || b->hi_inf || b->lo == INT64_MIN ||
        a->lo == INT64_MIN) {
        open_range(a);
        return;
    }
    int64_t m = (b->hi > -b->lo ? b->hi : -b->lo) - 1; /* the largest |r| */
    if (m < 0)
        m = 0;
    int64_t lo = a->lo < 0 ? (-a->lo < m ? a->lo : -m) : 0;
    int64_t hi = a->hi > 0 ? (a->hi < m ? a->hi : m) : 0;
    int pointed = a->lo == a->hi && b->lo == b->hi;
    int64_t r;
    if (pointed && alea__arith(OP_MOD, a->lo, b->lo, &r) == ARITH_OK) {
        point(a, r);
        return;
    }
    a->lo = lo;
    a->hi = hi;
    a->lo_at = a->hi_at = 0;
}

/* a ^ b for a base of at least 1 and an exponent of at least 0: increasing
 * in both. Else only a power of two numbers is bounded. */
static void power(alea__range *a, const alea__range *b)
{
    int64_t lo, hi;
    if (!a->lo_inf && !b->lo_inf && a->lo >= 1 && b->lo >= 0 &&
        alea__arith(OP_POW, a->lo, b->lo, &lo) == ARITH_OK) {
        int hi_ok = !a->hi_inf && !b->hi_inf && alea__arith(OP_POW, a->hi, b->hi, &hi) == ARITH_OK;
        a->lo = lo;
        a->lo_at = a->lo_at && b->lo_at;
        a->hi_inf = !hi_ok;
        a->hi = hi_ok ? hi : 0;
        a->hi_at = hi_ok && a->hi_at && b->hi_at;
        return;
    }
    if (!a->lo_inf && !a->hi_inf && !b->lo_inf && !b->hi_inf && a->lo == a->hi &&
        b->lo == b->hi && alea__arith(OP_POW, a->lo, b->lo, &lo) == ARITH_OK) {
        point(a, lo);
        return;
    }
    open_range(a);
}

static void compare(uint8_t op, const alea__range *a, const alea__range *b, alea__range *out)
{
    /* can: whether each answer is possible by the bounds; sure: whether a
     * roll reaches it (the ends that decide it are attained) */
    int can_t = 1, can_f = 1, sure_t = 0, sure_f = 0;
    int fa = !a->lo_inf && !a->hi_inf, fb = !b->lo_inf && !b->hi_inf;
    switch (op) {
    case CMP_LT: case CMP_GE: {
        /* a < b is possible when a.lo < b.hi, certain when a.hi < b.lo */
        int lt_can = a->lo_inf || b->hi_inf || a->lo < b->hi;
        int ge_can = a->hi_inf || b->lo_inf || a->hi >= b->lo;
        int lt_sure = !a->lo_inf && !b->hi_inf && a->lo < b->hi && a->lo_at && b->hi_at;
        int ge_sure = !a->hi_inf && !b->lo_inf && a->hi >= b->lo && a->hi_at && b->lo_at;
        can_t = op == CMP_LT ? lt_can : ge_can;
        can_f = op == CMP_LT ? ge_can : lt_can;
        sure_t = op == CMP_LT ? lt_sure : ge_sure;
        sure_f = op == CMP_LT ? ge_sure : lt_sure;
        break;
    }
    case CMP_LE: case CMP_GT: {
        int le_can = a->lo_inf || b->hi_inf || a->lo <= b->hi;
        int gt_can = a->hi_inf || b->lo_inf || a->hi > b->lo;
        int le_sure = !a->lo_inf && !b->hi_inf && a->lo <= b->hi && a->lo_at && b->hi_at;
        int gt_sure = !a->hi_inf && !b->lo_inf && a->hi > b->lo && a->hi_at && b->lo_at;
        can_t = op == CMP_LE ? le_can : gt_can;
        can_f = op == CMP_LE ? gt_can : le_can;
        sure_t = op == CMP_LE ? le_sure : gt_sure;
        sure_f = op == CMP_LE ? gt_sure : le_sure;
        break;
    }
    default: { /* CMP_EQ, CMP_NE: equality is possible where the ranges meet */
        int meet = !(fa && fb) || (a->lo <= b->hi && b->lo <= a->hi);
        int both_one = fa && fb && a->lo == a->hi && b->lo == b->hi;
        int differ = !both_one || a->lo != b->lo;
        int differ_sure = fa && fb && a->lo_at && a->hi_at && b->lo_at && b->hi_at &&
                          (a->lo != b->hi || a->hi != b->lo);
        can_t = op == CMP_EQ ? meet : differ;
        can_f = op == CMP_EQ ? differ : meet;
        sure_t = op == CMP_EQ ? both_one && !differ : differ_sure;
        sure_f = op == CMP_EQ ? differ_sure : both_one && !differ;
        break;
    }
    }
    memset(out, 0, sizeof *out);
    out->lo = can_f ? 0 : 1;
    out->hi = can_t ? 1 : 0;
    /* a lone answer is reached by every roll */
    out->lo_at = (uint8_t)(can_f ? sure_f || !can_t : 1);
    out->hi_at = (uint8_t)(can_t ? sure_t || !can_f : 1);
}

static void extreme(int is_max, alea__range *a, const alea__range *b)
{
    alea__range r;
    memset(&r, 0, sizeof r);
    if (is_max) {
        /* the larger low is reached when its operand is at it, the other
         * below; the larger high when either is */
        r.lo_inf = a->lo_inf && b->lo_inf;
        r.lo = a->lo_inf ? b->lo : b->lo_inf ? a->lo : a->lo > b->lo ? a->lo : b->lo;
        r.lo_at = !r.lo_inf && a->lo_at && b->lo_at;
        r.hi_inf = a->hi_inf || b->hi_inf;
        r.hi = r.hi_inf ? 0 : a->hi > b->hi ? a->hi : b->hi;
        r.hi_at = !r.hi_inf && (a->hi >= b->hi ? a->hi_at : b->hi_at);
    } else {
        r.hi_inf = a->hi_inf && b->hi_inf;
        r.hi = a->hi_inf ? b->hi : b->hi_inf ? a->hi : a->hi < b->hi ? a->hi : b->hi;
        r.hi_at = !r.hi_inf && a->hi_at && b->hi_at;
        r.lo_inf = a->lo_inf || b->lo_inf;
        r.lo = r.lo_inf ? 0 : a->lo < b->lo ? a->lo : b->lo;
        r.lo_at = !r.lo_inf && (a->lo <= b->lo ? a->lo_at : b->lo_at);
    }
    *a = r;
}

/* ---- dice ---- */

/* The faces worth trying for an extreme of any set the pool's conditions
 * cut from the die: the ends, and each side of every condition's value
 * (each condition holds on an interval or on a parity). RANGE dice only;
 * a LIST die tries all its faces. Returns how many it wrote (at most 64). */
static size_t range_candidates(const pool *p, int64_t *c)
{
    const die_spec *d = &p->die;
    size_t n = 0;
    int64_t base[4] = {d->lo, d->lo + (d->lo < d->hi), d->hi - (d->lo < d->hi), d->hi};
    for (int i = 0; i < 4; i++)
        c[n++] = base[i];
    const cond *cs[16];
    size_t nc = 0;
    if (p->has_reroll)
        cs[nc++] = &p->reroll;
    for (uint8_t i = 0; i < p->nreroll_also && nc < 12; i++)
        cs[nc++] = &p->reroll_also[i];
    if (p->explode)
        cs[nc++] = &p->trigger;
    if (p->has_success)
        cs[nc++] = &p->success;
    if (p->has_failure)
        cs[nc++] = &p->failure;
    for (size_t i = 0; i < nc; i++) {
        for (int64_t dv = -1; dv <= 1; dv++) {
            int64_t v;
            if (!alea__add_ovf(cs[i]->value, dv, &v) && v >= d->lo && v <= d->hi)
                c[n++] = v;
        }
    }
    return n;
}

/* What one die can show, clamps and rerolls applied. */
typedef struct facts {
    int any, any_t, any_nt;        /* a standing face; one that triggers; one that does not */
    int64_t smin, smax;            /* standing faces (clamped) */
    int64_t tmin, tmax, nmin, nmax; /* triggering, not triggering */
    int scmin, scmax;              /* a standing face's success score */
} facts;

static void see(const pool *p, facts *f, int64_t face)
{
    if (p->has_reroll && !p->reroll_once && alea__pool_rerolls(p, face))
        return; /* rerolled until it shows another face */
    int64_t v = alea__pool_clamp(p, face);
    int score = (p->has_success && alea__cond_match(&p->success, v)) -
                (p->has_failure && alea__cond_match(&p->failure, v));
    if (!f->any) {
        f->smin = f->smax = v;
        f->scmin = f->scmax = score;
    }
    f->smin = v < f->smin ? v : f->smin;
    f->smax = v > f->smax ? v : f->smax;
    f->scmin = score < f->scmin ? score : f->scmin;
    f->scmax = score > f->scmax ? score : f->scmax;
    f->any = 1;
    if (p->explode && alea__cond_match(&p->trigger, v)) {
        f->tmin = !f->any_t || v < f->tmin ? v : f->tmin;
        f->tmax = !f->any_t || v > f->tmax ? v : f->tmax;
        f->any_t = 1;
    } else {
        f->nmin = !f->any_nt || v < f->nmin ? v : f->nmin;
        f->nmax = !f->any_nt || v > f->nmax ? v : f->nmax;
        f->any_nt = 1;
    }
}

/* a + b - pen, or 0 with *bad set on overflow */
static int64_t chain2(int64_t a, int64_t b, int64_t pen, int *bad)
{
    int64_t r;
    if (alea__add_ovf(a, b, &r) || alea__add_ovf(r, -pen, &r)) {
        *bad = 1;
        return 0;
    }
    return r;
}

/* The bounds of one die's value (its whole chain), and of its score. */
static int die_range(const pool *p, alea__range *die, int *scmin, int *scmax, int *score_at)
{
    facts f;
    memset(&f, 0, sizeof f);
    if (p->die.kind == FACES_LIST) {
        for (uint32_t i = 0; i < p->die.nfaces; i++)
            see(p, &f, p->die.sorted[i]);
    } else {
        int64_t c[64];
        size_t n = range_candidates(p, c);
        for (size_t i = 0; i < n; i++)
            see(p, &f, c[i]);
    }
    if (!f.any)
        return 0;
    *scmin = f.scmin;
    *scmax = f.scmax;
    *score_at = !p->explode; /* a chain's total may not reach a face's score */
    if (!p->explode || !f.any_t) {
        die->lo = f.smin;
        die->hi = f.smax;
        die->lo_at = die->hi_at = 1;
        return 1;
    }
    if (p->has_success || p->has_failure) {
        *scmin = p->has_failure ? -1 : 0;
        *scmax = p->has_success ? 1 : 0;
    }
    int64_t pen = p->penetrate ? 1 : 0;
    int bad = 0;
    if (p->explode_once) { /* one extra roll at most, which does not explode */
        int64_t lo = chain2(f.tmin, f.smin, pen, &bad), hi = chain2(f.tmax, f.smax, pen, &bad);
        if (bad)
            return 0;
        die->lo = f.any_nt && f.nmin < lo ? f.nmin : lo;
        die->hi = f.any_nt && f.nmax > hi ? f.nmax : hi;
        die->lo_at = die->hi_at = 1;
        return 1;
    }
    if (!f.any_nt)
        return 0;
    /* A chain is t0 + (t1 - pen) + ... + (f - pen): each extra triggering
     * roll moves it by t - pen, so one of either sign makes that end
     * unbounded; else the extremes take at most one extra roll. */
    die->hi_inf = f.tmax - pen > 0;
    die->lo_inf = f.tmin - pen < 0;
    if (!die->hi_inf) {
        int64_t hi = chain2(f.tmax, f.nmax, pen, &bad);
        die->hi = hi > f.nmax ? hi : f.nmax;
        die->hi_at = 1;
    }
    if (!die->lo_inf) {
        int64_t lo = chain2(f.tmin, f.nmin, pen, &bad);
        die->lo = lo < f.nmin ? lo : f.nmin;
        die->lo_at = 1;
    }
    return !bad;
}

/* k times the die's range (each kept die at its end). */
static void times(alea__range *r, const alea__range *die, int64_t k)
{
    memset(r, 0, sizeof *r);
    r->lo_inf = die->lo_inf || alea__mul_ovf(die->lo, k, &r->lo);
    r->hi_inf = die->hi_inf || alea__mul_ovf(die->hi, k, &r->hi);
    r->lo_at = !r->lo_inf && die->lo_at;
    r->hi_at = !r->hi_inf && die->hi_at;
}

static void dice(const node *n, alea__range *r)
{
    const pool *p = n->u.pool;
    open_range(r);
    /* what this analysis leaves open: rolled counts and sides, unique
     * dice, selections, a reroll of one die, a cap on explosions, keeping
     * among single rolls, and clamps of exploding dice */
    if (p->count_expr || p->sides_expr || p->unique || p->nselects || p->has_reroll_one ||
        p->explode_cap || p->has_first_trigger || p->keep_rolls ||
        (p->explode && ALEA__CLAMPED(p)) ||
        (p->explode == EXPLODE_EACH && (p->has_success || p->has_failure)) || p->count < 0)
        return;
    alea__range die;
    memset(&die, 0, sizeof die);
    int scmin = 0, scmax = 0, score_at = 0;
    if (!die_range(p, &die, &scmin, &scmax, &score_at))
        return;
    int64_t lo, hi;
    alea__pool_keep_range(p, p->count, &lo, &hi);
    int64_t k = hi - lo;
    if (k <= 0) {
        point(r, 0);
        return;
    }
    if (p->has_success || p->has_failure) {
        alea__range s;
        memset(&s, 0, sizeof s);
        s.lo = scmin;
        s.hi = scmax;
        s.lo_at = s.hi_at = (uint8_t)score_at;
        times(r, &s, k);
        return;
    }
    times(r, &die, k);
}

/* The bounds of a chain's items from item 1 on, joined by their ops. */
static void chain(const node *n, alea__range *r)
{
    alea__bounds(n->u.chain.items[0], r);
    for (uint32_t i = 1; i < n->u.chain.n; i++) {
        alea__range b;
        alea__bounds(n->u.chain.items[i], &b);
        uint8_t op = n->u.chain.ops[i];
        if (op == OP_ADD || op == OP_SUB)
            add(r, &b, op == OP_SUB);
        else if (op == OP_MOD)
            rem(r, &b);
        else if (op == OP_POW)
            power(r, &b);
        else
            corners(op, r, &b);
    }
}

void alea__bounds(const node *n, alea__range *r)
{
    alea__range a, b;
    switch (n->kind) {
    case N_NUM:
        point(r, n->u.num);
        return;
    case N_DICE:
        dice(n, r);
        return;
    case N_NEG:
        alea__bounds(n->u.un.a, &a);
        alea__bounds_neg(&a, r);
        return;
    case N_SUM:
    case N_PROD:
        chain(n, r);
        return;
    case N_CMP:
        alea__bounds(n->u.bin.a, &a);
        alea__bounds(n->u.bin.b, &b);
        compare(n->op, &a, &b, r);
        return;
    case N_MIN:
    case N_MAX:
        alea__bounds(n->u.bin.a, r);
        alea__bounds(n->u.bin.b, &b);
        extreme(n->kind == N_MAX, r, &b);
        return;
    case N_ABS:
        alea__bounds(n->u.un.a, &a);
        if (!a.lo_inf && a.lo >= 0) {
            *r = a;
        } else if (!a.hi_inf && a.hi <= 0) {
            alea__bounds_neg(&a, r);
        } else { /* both signs: 0 is a bound, reached only if listed */
            alea__bounds_neg(&a, &b);
            memset(r, 0, sizeof *r);
            r->hi_inf = a.hi_inf || b.hi_inf;
            r->hi = r->hi_inf ? 0 : a.hi > b.hi ? a.hi : b.hi;
            r->hi_at = !r->hi_inf && (a.hi >= b.hi ? a.hi_at : b.hi_at);
        }
        return;
    case N_BEST:
    case N_WORST:
    case N_REPEAT: /* the distribution of one roll */
        alea__bounds(n->u.rep.a, r);
        return;
    case N_AND:
    case N_OR:
    case N_NOT: /* a truth: 0 or 1, neither sure to be reached */
        memset(r, 0, sizeof *r);
        r->hi = 1;
        return;
    case N_BIND: /* its uses are left open: the body's range is sound */
        alea__bounds(n->u.bind.body, r);
        return;
    case N_MECH:
        if (n->u.mech.ops->bounds)
            n->u.mech.ops->bounds(n, r);
        else
            open_range(r);
        return;
    default:
        open_range(r);
        return;
    }
}
