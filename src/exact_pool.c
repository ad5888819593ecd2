/*
 * exact_pool.c -- a dice node as an exact distribution.
 *
 * Dice pools are built in three steps: the distribution of one die
 * (exact_die.c: faces, rerolls, the explosion chain followed until its
 * remaining mass is below the context's tail bound), then "ra" and
 * keep/drop by order statistics (keep.c), then, for a rolled count, the
 * mixture over the count's values (pmf_mix.c); rolled sides are a mixture
 * of pools. Success counting on "!" dice judges every roll, so there the
 * die's distribution is built over scores instead of values.
 */
#include <math.h>
#include <string.h>

#include "exact.h"
#include "keep.h"
#include "pmf.h"
#include "pool.h"
#include "select.h"
#include "unique.h"

/* ---- pools ---------------------------------------------------------------------- */

/* The pool with c dice (before boons and banes). match: the die outcomes
 * that "ra" rerolls, or NULL. */
static alea_status pool_of(alea_ctx *ctx, const node *n, const pool *p, const alea__pmf *die,
                           const int64_t *g, const uint8_t *match, int each, int64_t c,
                           alea__pmf *out)
{
    int64_t extra = p->extra, m, lo, hi;
    if (extra == INT64_MIN || alea__add_ovf(c, extra < 0 ? -extra : extra, &m))
        return alea__overflow_error(ctx, n);
    alea__pool_keep_range(p, c, &lo, &hi);
    if (each && (lo != 0 || hi != m))
        return alea__broken(ctx, n->start, n->end,
                            "success counting on '!' dice with keep, drop or extra dice");
    if (p->nselects)
        return alea__select_dist(ctx, n, die, g, m, out);
    if (match)
        return alea__keep_ra(ctx, die, g, match, m, lo, hi, n, out);
    return alea__keep(ctx, die, g, m, lo, hi, n, out);
}

/* The distribution of a rolled count ce, refused when it can be negative. */
static alea_status count_dist(alea_ctx *ctx, const node *ce, alea__pmf *cnt)
{
    alea_status st = alea__exact_eval(ctx, ce, cnt);
    if (st != ALEA_OK || !cnt->n || cnt->v[0] >= 0)
        return st;
    st = alea__error(ctx, ALEA_ERR_DOMAIN, ce->start, ce->end,
                     "dice count can be negative at byte %u (it can be %lld)",
                     (unsigned)ce->start, (long long)cnt->v[0]);
    alea__pmf_free(ctx, cnt);
    return st;
}

/* *acc += w (a (+) b); x is scratch, left empty. */
static alea_status add_conv_scaled(alea_ctx *ctx, alea__pmf *acc, const alea__pmf *a,
                                   const alea__pmf *b, alea__w w, const node *at, alea__pmf *x)
{
    alea_status st;
    if ((st = alea__charge(ctx, (int64_t)(a->n * b->n) + 1, at->start, at->end)) != ALEA_OK ||
        (st = alea__pmf_conv(ctx, a, b, at, x)) != ALEA_OK)
        return st;
    st = alea__pmf_add_scaled(ctx, acc, x, w, at);
    alea__pmf_free(ctx, x);
    return st;
}

/* ---- keep and drop on single rolls (rpg-dice-roller's "5d10!k2") ------------------ */

/*
 * A pool of c dice whose "!" chains are kept or dropped roll by roll (pool
 * keep_rolls). A roll explodes (kind t, with probability pt) or ends its
 * chain (kind n, pn = 1 - pt), and its value given its kind is independent
 * of every other roll. So the pool is c rolls of kind n and K of kind t,
 * where K, the explosions of c chains, is negative binomial: P(K = k) =
 * C(k + c - 1, k) pt^k pn^c. The parser allows this only when the trigger's
 * faces lie all above (or all below) the others, so the sorted rolls are the
 * n rolls then the t rolls (or the reverse), and the kept range splits into
 * a kept range of each: two independent keeps (keep.c), convolved. The
 * mixture over K is followed while the mass left is at least the tail bound;
 * what is left is out->trunc, as a chain's (alea__exact_pool_die). Past some
 * K the pool can stop changing: once the kept range of each kind no longer moves with
 * K and the kept explosion rolls all show one face (2d3!k1 keeps a 3 as soon
 * as a die has exploded), the rest of the mixture is that one pool, with
 * weight P(K >= k), and nothing is cut.
 */
typedef struct singles_parts {
    alea__pmf n, t; /* a roll that ends its chain, that explodes: conditioned */
    alea__x pt, pn; /* their chances */
    int t_high;     /* the trigger's faces are the highest */
    const node *at; /* the pool's node and facts */
    const pool *p;
} singles_parts;

static void singles_parts_free(alea_ctx *ctx, singles_parts *q)
{
    alea__pmf_free(ctx, &q->n);
    alea__pmf_free(ctx, &q->t);
    alea__x_free(ctx, &q->pt);
    alea__x_free(ctx, &q->pn);
}

/* The kept positions [*a, *b) (*a == *b: none) of one kind's m rolls, which
 * fill sorted positions [from, from + m) of a pool whose kept range is
 * [lo, hi). */
static void kind_range(int64_t lo, int64_t hi, int64_t from, int64_t m, int64_t *a, int64_t *b)
{
    *a = lo > from ? lo - from : 0;
    *b = hi - from < m ? hi - from : m;
    if (*b <= *a)
        *a = *b = 0;
}

/* The kept contributions of positions [lo, hi) of one kind's m rolls, which
 * fill sorted positions [from, from + m) of the pool. */
static alea_status singles_keep(alea_ctx *ctx, const alea__pmf *die, int64_t m, int64_t from,
                                int64_t lo, int64_t hi, const node *n, alea__pmf *out)
{
    int64_t a, b;
    kind_range(lo, hi, from, m, &a, &b);
    if (m == 0 || b <= a)
        return alea__pmf_point(ctx, 0, ALEA__W(1), out);
    return alea__keep(ctx, die, NULL, m, a, b, n, out);
}

/* Whether the pools of c + k and of c + k + 1 rolls keep the same: the
 * same positions of kind n, as many rolls of kind t, and those (if any)
 * all of one face. Once the keep steps clamp no more (k above every count
 * of theirs), the kept ranges move by 0 or 1 with each roll more, so the
 * same two pools in a row mean the same pools from then on. */
static int singles_settled(const pool *p, const singles_parts *q, int64_t c, int64_t k)
{
    double counts = (double)(p->extra < 0 ? -(double)p->extra : (double)p->extra);
    for (uint32_t i = 0; i < p->nkeeps; i++)
        counts += (double)p->keeps[i].n;
    if ((double)k <= counts || k > INT64_MAX - c - 1)
        return 0;
    int64_t r[2][3];
    for (int u = 0; u < 2; u++) {
        int64_t K = k + u, lo, hi, a, b;
        alea__pool_keep_range(p, c + K, &lo, &hi);
        kind_range(lo, hi, q->t_high ? 0 : K, c, &r[u][0], &r[u][1]);
        kind_range(lo, hi, q->t_high ? c : 0, K, &a, &b);
        r[u][2] = b - a;
    }
    return r[0][0] == r[1][0] && r[0][1] == r[1][1] && r[0][2] == r[1][2] &&
           (r[0][2] == 0 || q->t.n == 1);
}

static alea_status singles_pool(alea_ctx *ctx, const node *n, const pool *p,
                                const singles_parts *q, int64_t c, alea__pmf *out)
{
    alea_status st = ALEA_OK;
    alea__pmf sum = {0}, a = {0}, b = {0}, x = {0};
    alea__x w, left; /* P(K = k) (in fractions; its double from logarithms), P(K >= k) */
    double tail = ctx->tail > 0 ? ctx->tail : ALEA_TAIL_DEFAULT;
    double pt = q->pt.d, pn = q->pn.d;
    /* Work first: about mean + 12 sd + log(tail)/log(pt) values of K, each
     * two keeps over at most c + K rolls and a convolution. */
    double dc = (double)c, mean = dc * pt / pn, sd = sqrt(mean / pn);
    double kmax = mean + 12 * sd + log(tail) / log(pt) + 1;
    double per_k = ALEA__MIX_COST + (dc + kmax) * (double)(q->n.n + q->t.n);
    if ((st = alea__work_check(ctx, kmax * per_k, n)) != ALEA_OK)
        return st;
    double lw = dc * log(pn); /* log P(K = k): pn^c alone can underflow */
    int settled = 0;
    alea__x_init(ctx, &w);
    alea__x_init(ctx, &left);
    if ((st = alea__x_pow(ctx, &w, alea__x_w(&q->pn), (uint64_t)c, n)) != ALEA_OK)
        goto done;
    for (int64_t k = 0;; k++) {
        int64_t m, lo, hi;
        if (alea__add_ovf(c, k, &m)) {
            st = alea__overflow_error(ctx, n);
            goto done;
        }
        alea__pool_keep_range(p, m, &lo, &hi);
        int64_t nfrom = q->t_high ? 0 : k, tfrom = q->t_high ? c : 0;
        settled = singles_settled(p, q, c, k);
        w.d = exp(lw);
        if ((st = alea__charge(ctx, ALEA__MIX_COST, n->start, n->end)) != ALEA_OK ||
            (st = singles_keep(ctx, &q->n, c, nfrom, lo, hi, n, &a)) != ALEA_OK ||
            (st = singles_keep(ctx, &q->t, k, tfrom, lo, hi, n, &b)) != ALEA_OK ||
            (st = add_conv_scaled(ctx, &sum, &a, &b, alea__x_w(settled ? &left : &w), n, &x)) !=
                ALEA_OK)
            goto done;
        alea__pmf_free(ctx, &a);
        alea__pmf_free(ctx, &b);
        if (settled)
            break;
        if ((st = alea__x_addmul(ctx, &left, alea__x_w(&w), ALEA__W(-1), n)) != ALEA_OK)
            goto done;
        if (left.d < tail && (double)k >= mean) /* past the mode: the rest is the tail */
            break;
        lw += log((dc + (double)k) / (double)(k + 1)) + log(pt);
        if ((st = alea__x_mul(ctx, &w, alea__x_w(&q->pt), n)) != ALEA_OK ||
            (st = alea__x_ratio(ctx, &w, (uint64_t)m, (uint64_t)(k + 1), n)) != ALEA_OK)
            goto done;
    }
    sum.trunc = settled || left.d < 0 ? 0 : left.d;
    *out = sum;
    sum.n = 0;
done:
    alea__x_free(ctx, &w);
    alea__x_free(ctx, &left);
    alea__pmf_free(ctx, &a);
    alea__pmf_free(ctx, &b);
    alea__pmf_free(ctx, &x);
    alea__pmf_free(ctx, &sum);
    return st;
}

/* part = the outcomes of r with trigger `want`, conditioned on it: each
 * probability divided by mass, their sum. */
static alea_status singles_part(alea_ctx *ctx, const node *n, const pool *p, const alea__pmf *r,
                                int want, const alea__x *mass, alea__pmf *part)
{
    alea_status st = ALEA_OK;
    alea__x w;
    alea__x_init(ctx, &w);
    for (size_t i = 0, k = 0; i < r->n && st == ALEA_OK; i++) {
        if (!alea__cond_match(&p->trigger, r->v[i]) != !want)
            continue;
        alea__x_free(ctx, &w);
        alea__x_init(ctx, &w);
        if ((st = alea__x_mul(ctx, &w, alea__pmf_w(r, i), n)) != ALEA_OK ||
            (st = alea__x_div(ctx, &w, alea__x_w(mass), n)) != ALEA_OK)
            break;
        part->v[k] = r->v[i];
        st = alea__pmf_set_w(ctx, part, k, alea__x_w(&w), n);
        k++;
    }
    alea__x_free(ctx, &w);
    return st == ALEA_OK ? alea__pmf_seal(ctx, part, n) : st;
}

/* Splits one roll of the die into the parts above. */
static alea_status singles_split(alea_ctx *ctx, const node *n, const pool *p,
                                 singles_parts *q)
{
    alea__pmf r;
    memset(q, 0, sizeof *q);
    q->at = n;
    q->p = p;
    alea_status st = alea__exact_roll(ctx, p, n, &r);
    if (st != ALEA_OK)
        return st;
    size_t nt = 0;
    alea__x_init(ctx, &q->pt);
    alea__x_init(ctx, &q->pn);
    if ((st = alea__x_mul(ctx, &q->pt, ALEA__W(0), n)) != ALEA_OK ||
        (st = alea__x_mul(ctx, &q->pn, ALEA__W(0), n)) != ALEA_OK)
        goto fail;
    for (size_t i = 0; i < r.n; i++) {
        int t = alea__cond_match(&p->trigger, r.v[i]);
        nt += (size_t)t;
        if ((st = alea__x_addmul(ctx, t ? &q->pt : &q->pn, alea__pmf_w(&r, i), ALEA__W(1), n)) !=
            ALEA_OK)
            goto fail;
    }
    if (nt == 0 || nt == r.n) { /* the parser refuses both */
        st = alea__broken(ctx, n->start, n->end, "an explosion on no face or every face");
        goto fail;
    }
    if (!ctx->exact) { /* a roll's mass is 1 up to rounding; exactly in fractions */
        double sum = q->pt.d + q->pn.d;
        q->pt.d /= sum;
        q->pn.d /= sum;
    }
    if ((st = alea__pmf_alloc(ctx, r.n - nt, &q->n)) != ALEA_OK ||
        (st = alea__pmf_alloc(ctx, nt, &q->t)) != ALEA_OK ||
        (st = singles_part(ctx, n, p, &r, 0, &q->pn, &q->n)) != ALEA_OK ||
        (st = singles_part(ctx, n, p, &r, 1, &q->pt, &q->t)) != ALEA_OK)
        goto fail;
    q->t_high = q->t.v[0] > q->n.v[q->n.n - 1];
    alea__pmf_free(ctx, &r);
    if (!q->t_high && q->t.v[q->t.n - 1] > q->n.v[0]) {
        singles_parts_free(ctx, q);
        return alea__broken(ctx, n->start, n->end, "explosion faces between the others");
    }
    return ALEA_OK;
fail:
    alea__pmf_free(ctx, &r);
    singles_parts_free(ctx, q);
    return st;
}

/* The pool of c dice, for the mixture over a rolled count (ud: the parts).
 * Its mixing steps are singles_pool's own. */
static alea_status singles_at(alea_ctx *ctx, void *ud, int64_t c, alea__pmf *cur)
{
    const singles_parts *q = ud;
    alea__pmf_free(ctx, cur);
    return singles_pool(ctx, q->at, q->p, q, c, cur);
}

/* The pool, its count rolled or not: the mixture over the count. */
static alea_status singles(alea_ctx *ctx, const node *n, const pool *p, alea__pmf *out)
{
    singles_parts q;
    alea__pmf cnt;
    alea_status st = singles_split(ctx, n, p, &q);
    if (st != ALEA_OK)
        return st;
    if (!p->count_expr) {
        st = singles_pool(ctx, n, p, &q, p->count, out);
    } else if ((st = count_dist(ctx, p->count_expr, &cnt)) == ALEA_OK) {
        st = alea__pmf_mix(ctx, &cnt, 0, 0, singles_at, &q, n, out);
        alea__pmf_free(ctx, &cnt);
    }
    singles_parts_free(ctx, &q);
    return st;
}

/* A pool's die and how each of its outcomes is judged: what the pools of
 * every count share. */
typedef struct pool_die {
    const node *n;
    const pool *p;
    alea__pmf die;
    int64_t *g;     /* each outcome's score (counting on the die's total), or NULL */
    uint8_t *match; /* whether "ra" rerolls each outcome, or NULL */
    size_t g_size, match_size;
    int each;       /* counting on every roll of "!" dice: the die is over scores */
} pool_die;

static void pool_die_free(alea_ctx *ctx, pool_die *d)
{
    alea__pmf_free(ctx, &d->die);
    if (d->g)
        alea__mem_free(ctx, d->g, d->g_size);
    if (d->match)
        alea__mem_free(ctx, d->match, d->match_size);
}

/* "!!" and plain dice counting successes: each die's total judged by own. */
static alea_status pool_die_scores(alea_ctx *ctx, const alea__judge *own, pool_die *d)
{
    alea_status st = ALEA_OK;
    d->g_size = alea__mul_size(d->die.n, sizeof *d->g);
    if (d->die.n && !(d->g = alea__mem_alloc(ctx, d->g_size)))
        return alea__nomem(ctx);
    for (size_t i = 0; st == ALEA_OK && i < d->die.n; i++)
        st = alea__exact_score(ctx, own, d->die.v[i], d->n, &d->g[i]);
    return st;
}

/* "ra": the die's outcomes it rerolls. It judges each die's total; with "!"
 * success counting the score is not a function of the total, so the two
 * cannot be combined. */
static alea_status pool_die_match(alea_ctx *ctx, pool_die *d)
{
    const node *n = d->n;
    if (d->each)
        return alea__error(ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "'ra' with success counting on '!' dice has no exact "
                           "distribution (byte %u): write '!!' to judge each die's total",
                           (unsigned)n->start);
    d->match_size = d->die.n;
    if (d->die.n && !(d->match = alea__mem_alloc(ctx, d->match_size)))
        return alea__nomem(ctx);
    for (size_t i = 0; i < d->die.n; i++)
        d->match[i] = (uint8_t)alea__cond_match(&d->p->reroll_one, d->die.v[i]);
    return ALEA_OK;
}

/* The pool of c dice, for the mixture over a rolled count (ud: the die). */
static alea_status count_at(alea_ctx *ctx, void *ud, int64_t c, alea__pmf *cur)
{
    const pool_die *d = ud;
    alea__pmf_free(ctx, cur);
    return pool_of(ctx, d->n, d->p, &d->die, d->g, d->match, d->each, c, cur);
}

/* A rolled count: the mixture over its values of the pool of each. */
static alea_status rolled_count(alea_ctx *ctx, pool_die *d, alea__pmf *out)
{
    const pool *p = d->p;
    alea__pmf cnt, mapped;
    alea_status st = count_dist(ctx, p->count_expr, &cnt);
    if (st != ALEA_OK)
        return st;
    /* Each count is a pool of its own: beside the work its steps charge,
     * each costs a few allocations and a merge, about ALEA__MIX_COST units (found
     * by fuzzing: (1d43152!)d8kl2 made 86000 pools for 5 million units). */
    /* A pool of one count also passes over its die's outcomes (their range,
     * their contributions) before its own steps charge: a unit an outcome,
     * twice (found by fuzzing the cost of each input: (1d6+1d3108)d52664d62212
     * made 3113 pools of a d52664 for 0.16 s). */
    double per_pool = ALEA__MIX_COST + 2.0 * (double)d->die.n;
    if (p->nkeeps || p->extra || d->match || p->nselects) {
        st = alea__pmf_mix(ctx, &cnt, per_pool, (int64_t)per_pool, count_at, d, d->n, out);
    } else if ((st = alea__work_check(ctx, (double)cnt.n * per_pool, d->n)) == ALEA_OK) {
        /* Plain sums, each count's from the one before: their work checked
         * above, before the scores' pass. */
        if (d->g && (st = alea__pmf_remap(ctx, &d->die, d->g, d->n, &mapped)) == ALEA_OK) {
            alea__pmf_free(ctx, &d->die);
            d->die = mapped;
        }
        if (st == ALEA_OK)
            st = alea__pmf_mix_sums(ctx, &cnt, &d->die, ALEA__MIX_COST, d->n, out);
    }
    alea__pmf_free(ctx, &cnt);
    return st;
}

/* A pool whose explosions are capped (the parser allows no keep, "ra" or
 * rolled count). */
static alea_status capped(alea_ctx *ctx, const node *n, const pool *p,
                          const alea__judge *count_mode, alea__pmf *out)
{
    if (p->extra)
        return alea__error(ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "extra dice with a capped explosion are not supported yet "
                           "(byte %u)", (unsigned)n->start);
    alea__pmf r;
    alea_status st = alea__exact_roll(ctx, p, n, &r);
    if (st != ALEA_OK)
        return st;
    st = alea__exact_capped(ctx, n, &r, count_mode, p->count, out);
    alea__pmf_free(ctx, &r);
    return st;
}

/* The pool p of node n (n's own, or at one value of its rolled sides). */
static alea_status eval_pool(alea_ctx *ctx, const node *n, const pool *p, alea__pmf *out)
{
    alea_status st;
    int counting = p->has_success || p->has_failure;
    alea__judge own = alea__pool_judge(p);
    pool_die d = {.n = n, .p = p, .each = counting && p->explode == EXPLODE_EACH};

    if (!p->count_expr && p->count < 0)
        return alea__error(ctx, ALEA_ERR_DOMAIN, n->start, n->end,
                           "dice count can be negative at byte %u", (unsigned)n->start);
    if (p->explode_cap)
        return capped(ctx, n, p, d.each ? &own : NULL, out);
    if (p->keep_rolls) /* the parser allows no count of successes here */
        return singles(ctx, n, p, out);
    if ((st = alea__exact_pool_die(ctx, p, n, d.each ? &own : NULL, &d.die)) != ALEA_OK)
        return st;
    if (counting && !d.each && (st = pool_die_scores(ctx, &own, &d)) != ALEA_OK)
        goto done;
    if (p->unique) /* the parser allows plain dice of a written count */
        st = alea__unique_dist(ctx, n, &d.die, d.g, out);
    else if (!p->has_reroll_one || (st = pool_die_match(ctx, &d)) == ALEA_OK)
        st = p->count_expr ? rolled_count(ctx, &d, out)
                           : pool_of(ctx, n, p, &d.die, d.g, d.match, d.each, p->count, out);
done:
    pool_die_free(ctx, &d);
    return st;
}

/* Node n's pool at the given number of sides (ud: the node, by address). */
static alea_status pool_at(alea_ctx *ctx, void *ud, int64_t sides, alea__pmf *cur)
{
    const node *n = *(const node *const *)ud;
    const pool *p = n->u.pool;
    pool at;
    alea_status st = alea__pool_at_sides(ctx, p, p->sides_expr->start, p->sides_expr->end, sides,
                                         1, &at);
    alea__pmf_free(ctx, cur);
    return st == ALEA_OK ? eval_pool(ctx, n, &at, cur) : st;
}

/*
 * "1d(1d20)": the mixture over the sides' values of the pool at each, the
 * count (if rolled) mixed within each. Each value is a pool of its own, as
 * each value of a rolled count is (ALEA__MIX_COST).
 */
alea_status alea__exact_dice(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    const pool *p = n->u.pool;
    if (!p->sides_expr)
        return eval_pool(ctx, n, p, out);
    alea__pmf sides;
    alea_status st = alea__exact_eval(ctx, p->sides_expr, &sides);
    if (st != ALEA_OK)
        return st;
    st = alea__pmf_mix(ctx, &sides, ALEA__MIX_COST, ALEA__MIX_COST, pool_at, &n, n, out);
    alea__pmf_free(ctx, &sides);
    return st;
}
