/*
 * exact.c -- AST -> exact distribution: the walk over the tree.
 *
 * The tree has no shared subtrees, so every node is an independent random
 * variable and an operator combines independent distributions (pmf.c);
 * the one exception, a name bound by "let", is a mixture over its values,
 * each bound in the context's environment (env.h) while the body is
 * computed (eval_bind); a subtree that reads none of the names bound
 * around it is computed once for all their values and copied (share.h).
 * Dice are exact_pool.c's.
 */
#include <string.h>

#include "exact.h"
#include "bounds.h"
#include "dist.h"
#include "env.h"
#include "pmf.h"
#include "pool.h"
#include "mech.h"
#include "share.h"

static alea_status eval(alea_ctx *ctx, const node *n, alea__pmf *out);

/* ---- operators -------------------------------------------------------------------- */

/* Whether a and b are the same dice, each die on its own (no keep,
 * selection, cap, uniqueness or count of successes over the pool, a
 * written count): c of them and d of them are c + d of one pool, one power
 * of the die instead of a product of two long polynomials (500d6 + 500d6 is
 * 1000d6). Compared whole, the count aside: any other difference (and any
 * padding that differs) leaves them apart. */
static int same_dice(const node *a, const node *b)
{
    if (a->kind != N_DICE || b->kind != N_DICE || a->label || b->label)
        return 0;
    const pool *p = a->u.pool;
    if (p->count_expr || p->sides_expr || p->count < 0 || p->nkeeps || p->nselects ||
        p->extra || p->unique || p->has_reroll_one || p->explode_cap || p->keep_rolls ||
        p->has_success || p->has_failure || ALEA__CLAMPED(p))
        return 0;
    pool x = *p, y = *b->u.pool;
    x.count = y.count = 0;
    x.count_implicit = y.count_implicit = 0;
    return memcmp(&x, &y, sizeof x) == 0;
}

/* Item *i of a sum, with the same dice added right after it as one pool
 * (same_dice) in fractions (in doubles the product is cheap, and its
 * roundings are kept as they were); *i moves to the last item taken. */
static alea_status eval_term(alea_ctx *ctx, const node *n, uint32_t *i, alea__pmf *out)
{
    const node *const *items = n->u.chain.items, *it = items[*i];
    uint32_t j = *i;
    int64_t count = it->kind == N_DICE ? it->u.pool->count : 0;
    while (ctx->exact && n->u.chain.ops[*i] == OP_ADD && j + 1 < n->u.chain.n &&
           n->u.chain.ops[j + 1] == OP_ADD && same_dice(it, items[j + 1]) &&
           !alea__add_ovf(count, items[j + 1]->u.pool->count, &count))
        j++;
    if (j == *i)
        return eval(ctx, it, out);
    pool merged = *it->u.pool;
    node at = *it;
    merged.count = count;
    at.u.pool = &merged;
    at.end = items[j]->end;
    *i = j;
    return alea__exact_dice(ctx, &at, out);
}

/* Sums and products, left to right. */
static alea_status eval_chain(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea_status st;
    alea__pmf acc, item, t;
    uint32_t i = 0;
    if ((st = eval_term(ctx, n, &i, &acc)) != ALEA_OK)
        return st;
    for (i++; i < n->u.chain.n; i++) {
        const node *it = n->u.chain.items[i];
        uint8_t op = n->u.chain.ops[i];
        if ((st = eval_term(ctx, n, &i, &item)) != ALEA_OK)
            goto fail;
        if (op == OP_SUB) {
            st = alea__pmf_neg(ctx, &item, n, &t);
            alea__pmf_free(ctx, &item);
            if (st != ALEA_OK)
                goto fail;
            item = t;
        }
        if (op == OP_ADD || op == OP_SUB)
            st = alea__pmf_conv(ctx, &acc, &item, n, &t);
        else
            st = alea__pmf_arith(ctx, op, &acc, &item, n, it, &t);
        alea__pmf_free(ctx, &item);
        if (st != ALEA_OK)
            goto fail;
        alea__pmf_free(ctx, &acc);
        acc = t;
    }
    *out = acc;
    return ALEA_OK;
fail:
    alea__pmf_free(ctx, &acc);
    return st;
}

/* Work units an outcome of a pass (neg, abs, min, max, comparison) costs:
 * its value and probability read and written, and its share of the new
 * block, about 4 ns here; and of best/worst, a pow and a log each. */
#define PASS_COST 2
#define POW_COST 16
/* What evaluating one node under a binding costs beyond its arithmetic
 * (eval): its allocations; measured on 60 nested lets of d6, refused at
 * the default limit after 0.48 s of CPU with nothing charged, 0.05 s so. */
#define EVAL_COST 128

/* Charges a pass of `units` before it starts. */
static alea_status charge_pass(alea_ctx *ctx, double units, const node *n)
{
    alea_status st = alea__work_check(ctx, units, n);
    return st == ALEA_OK ? alea__charge(ctx, (int64_t)units, n->start, n->end) : st;
}

/* Two operands, combined by the node's kind. */
static alea_status eval_pair(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea_status st;
    alea__pmf a, b;
    if ((st = eval(ctx, n->u.bin.a, &a)) != ALEA_OK)
        return st;
    if ((st = eval(ctx, n->u.bin.b, &b)) != ALEA_OK) {
        alea__pmf_free(ctx, &a);
        return st;
    }
    /* One pass over both, writing up to a.n + b.n outcomes (a comparison
     * first sums b twice). */
    st = charge_pass(ctx, (double)(a.n + b.n) * PASS_COST, n);
    if (st == ALEA_OK)
        st = n->kind == N_CMP ? alea__pmf_cmp(ctx, n->op, &a, &b, out)
                              : alea__pmf_minmax(ctx, n->kind == N_MAX, &a, &b, out);
    alea__pmf_free(ctx, &a);
    alea__pmf_free(ctx, &b);
    return st;
}

/* A binding under way: its node; whether its value mixes several, else
 * the levels the certain one read (share.h). */
typedef struct binding {
    const node *n;
    int mixes;
    uint64_t value_reads;
} binding;

/* The body of "let x = ... in body" with x bound to v (ud: the binding). */
static alea_status body_at(alea_ctx *ctx, void *ud, int64_t v, alea__pmf *cur)
{
    const binding *b = ud;
    const node *n = b->n, *x = n->u.bind.name;
    alea__env_saved saved;
    alea__share_saved shared;
    alea__pmf_free(ctx, cur);
    alea_status st = alea__env_bind(ctx, ctx->env, x->u.name.slot, v, x->start, x->end, &saved);
    if (st != ALEA_OK)
        return st;
    alea__share_bind(ctx, x->u.name.slot, b->mixes, b->value_reads, &shared);
    st = eval(ctx, n->u.bind.body, cur);
    alea__share_unbind(ctx, x->u.name.slot, &shared);
    alea__env_unbind(ctx->env, x->u.name.slot, &saved);
    return st;
}

/*
 * "let x = value in body": the mixture, over the value's outcomes, of the
 * body's distribution with x bound to each (its uses then share the one
 * value, exactly, instead of rolling apart): a body computed per outcome,
 * its parts that do not read x computed once (share.h).
 */
static alea_status eval_bind(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea__pmf val;
    alea__share_mark m;
    alea__share_begin(ctx, &m);
    alea_status st = eval(ctx, n->u.bind.value, &val);
    binding b = {n, 1, alea__share_took(ctx, &m)};
    if (st != ALEA_OK)
        return st;
    if (alea__pmf_certain(&val)) {
        /* A certain value ("let hit = a >= 8" with a bound): the body at
         * it is the mixture, with nothing to mix. */
        *out = (alea__pmf){0};
        b.mixes = 0;
        st = body_at(ctx, &b, val.v[0], out);
        if (st == ALEA_OK)
            out->has_cut_low = 0; /* as a mixture's */
        else
            alea__pmf_free(ctx, out);
    } else {
        st = alea__pmf_mix(ctx, &val, ALEA__MIX_COST, ALEA__MIX_COST, body_at, &b, n, out);
    }
    alea__pmf_free(ctx, &val);
    return st;
}

/* "a and b", "a or b": independent operands (a name bound where the engine
 * is, is a point), so P(a and b) = P(a true) P(b true), the min of their
 * truths, and "or" the max; "not a": the truth of a = 0. */
static alea_status eval_truth(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea__pmf a, b, ta, tb;
    int two = n->kind != N_NOT;
    alea_status st = eval(ctx, n->u.bin.a, &a);
    if (st != ALEA_OK)
        return st;
    st = alea__pmf_truth(ctx, &a, two, two ? &ta : out);
    alea__pmf_free(ctx, &a);
    if (st != ALEA_OK || !two)
        return st;
    if ((st = eval(ctx, n->u.bin.b, &b)) == ALEA_OK) {
        st = alea__pmf_truth(ctx, &b, 1, &tb);
        alea__pmf_free(ctx, &b);
        if (st == ALEA_OK) {
            st = alea__pmf_minmax(ctx, n->kind == N_OR, &ta, &tb, out);
            alea__pmf_free(ctx, &tb);
        }
    }
    alea__pmf_free(ctx, &ta);
    return st;
}

static alea_status eval_node(alea_ctx *ctx, const node *n, alea__pmf *out);

/* Every node's result in doubles is watched for probabilities near the
 * double range: outcomes rarer still may have been dropped on the way
 * ((500d6) >= 501 loses P(500d6 = 500) = 6^-500 inside the sum, before the
 * comparison), and alea_expr_dist then computes again in fractions. */
static alea_status eval(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea_status st;
    alea__share_mark m;
    /* A node's distribution is a few allocations and a pass over it even
     * when it is one point (a name's value): under a binding, where a body
     * is evaluated again for each bound value (millions, nested), charged. */
    if (ctx->share && ctx->share->depth > 0 &&
        (st = alea__charge(ctx, EVAL_COST, n->start, n->end)) != ALEA_OK)
        return st;
    if (alea__share_get(ctx, n, out, &st))
        return st; /* watched when it was computed */
    /* whether this node's computation came near: what sharing it keeps */
    uint8_t near = ctx->near_underflow;
    ctx->near_underflow = 0;
    alea__share_begin(ctx, &m);
    st = eval_node(ctx, n, out);
    if (st == ALEA_OK && !ctx->exact && !ctx->near_underflow)
        for (size_t i = 0; i < out->n; i++)
            if (out->p[i] < ALEA__NEAR_UNDERFLOW) {
                ctx->near_underflow = 1;
                break;
            }
    st = alea__share_end(ctx, n, &m, st, out);
    ctx->near_underflow |= near;
    return st;
}

static alea_status eval_node(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    alea_status st;
    alea__pmf a;
    if ((st = alea__charge(ctx, 1, n->start, n->end)) != ALEA_OK)
        return st;
    switch (n->kind) {
    case N_NUM:
        return alea__pmf_point(ctx, n->u.num, ALEA__W(1), out);
    case N_DICE:
        return alea__exact_dice(ctx, n, out);
    case N_SUM:
    case N_PROD:
        return eval_chain(ctx, n, out);
    case N_CMP:
    case N_MIN:
    case N_MAX:
        return eval_pair(ctx, n, out);
    case N_NEG:
    case N_ABS:
        if ((st = eval(ctx, n->u.un.a, &a)) != ALEA_OK)
            return st;
        if ((st = charge_pass(ctx, (double)a.n * PASS_COST, n)) == ALEA_OK)
            st = n->kind == N_NEG ? alea__pmf_neg(ctx, &a, n, out)
                                  : alea__pmf_abs(ctx, &a, n, out);
        alea__pmf_free(ctx, &a);
        return st;
    case N_BEST:
    case N_WORST:
        if (n->u.rep.n < 1)
            return alea__broken(ctx, n->start, n->end, "best/worst without repetitions");
        if ((st = eval(ctx, n->u.rep.a, &a)) != ALEA_OK)
            return st;
        if ((st = charge_pass(ctx, (double)a.n * POW_COST, n)) == ALEA_OK)
            st = alea__pmf_extreme(ctx, n->kind == N_BEST, &a, n->u.rep.n, n, out);
        alea__pmf_free(ctx, &a);
        return st;
    case N_MECH:
        return n->u.mech.ops->exact(ctx, n, out, NULL);
    case N_REPEAT: /* "6 x 4d6kh3": the distribution of one roll */
        return eval(ctx, n->u.rep.a, out);
    case N_NAME: { /* the value bound where the engine is: certain */
        int64_t v;
        if ((st = alea__env_get(ctx, ctx->env, n->u.name.slot, n->start, n->end, &v)) != ALEA_OK)
            return st;
        alea__share_read(ctx, n->u.name.slot);
        return alea__pmf_point(ctx, v, ALEA__W(1), out);
    }
    case N_BIND:
        return eval_bind(ctx, n, out);
    case N_AND:
    case N_OR:
    case N_NOT:
        return eval_truth(ctx, n, out);
    default:
        return alea__broken(ctx, n->start, n->end, "an unknown node kind");
    }
}

alea_status alea__exact_eval(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    return eval(ctx, n, out);
}

/* What an evaluation of one expression runs on its root (one roll of a
 * repeat): the distribution with its notes, or a mechanic's policy. */
typedef struct root_task {
    alea__pmf *r;
    alea__notes *notes;
    alea_policy *policy; /* not NULL: the policy instead */
} root_task;

static alea_status run_root(alea_ctx *ctx, const node *root, root_task *t)
{
    if (t->policy) {
        if (root->kind != N_MECH || !root->u.mech.ops->policy)
            return alea__error(ctx, ALEA_ERR_INVALID, root->start, root->end,
                               "no choice for the player in this expression: a policy is "
                               "of reroll(...), dd(M, D, GOAL) or event(POOL, GOAL) "
                               "written alone");
        return root->u.mech.ops->policy(ctx, root, t->policy);
    }
    /* A mechanic as the whole expression also reports what it says beyond
     * the outcomes (a chance of critical failure, the outcomes' names). */
    return root->kind == N_MECH ? root->u.mech.ops->exact(ctx, root, t->r, t->notes)
                                : eval(ctx, root, t->r);
}

/* Runs t on e's root with the names' values, and what is kept for them,
 * set up for this evaluation only. */
static alea_status with_env(alea_ctx *ctx, const alea_expr *e, root_task *t)
{
    alea__env env, *outer = ctx->env;
    alea__share share, *outer_share = ctx->share;
    alea_status st = alea__env_init(ctx, NULL, e->nslots, &env);
    if (st != ALEA_OK)
        return st;
    if ((st = alea__env_params(ctx, e, &env)) != ALEA_OK ||
        (st = alea__share_init(ctx, e->nslots, e->nparams, &share)) != ALEA_OK) {
        alea__env_free(ctx, &env);
        return st;
    }
    void (*outer_give_back)(alea_ctx *) = ctx->give_back;
    ctx->env = &env;
    ctx->share = &share;
    ctx->give_back = alea__share_give_back;
    const node *root = e->root->kind == N_REPEAT ? e->root->u.rep.a : e->root; /* one roll */
    st = run_root(ctx, root, t);
    ctx->env = outer;
    ctx->share = outer_share;
    ctx->give_back = outer_give_back;
    alea__share_free(ctx, &share);
    alea__env_free(ctx, &env);
    return st;
}

alea_status alea__exact_policy(alea_ctx *ctx, const alea_expr *e, alea_policy *out)
{
    root_task t = {NULL, NULL, out};
    return with_env(ctx, e, &t);
}

alea_status alea__exact(alea_ctx *ctx, const alea_expr *e, alea_dist **out)
{
    alea__pmf r;
    alea__notes notes;
    memset(&notes, 0, sizeof notes);
    root_task t = {&r, &notes, NULL};
    alea_status st = with_env(ctx, e, &t);
    if (st != ALEA_OK)
        return st;
    /* The tail bound is per die: a pool of 10^14 exploding dice, or a
     * thousand pools at --tail 1e-3, can leave most of the probability in
     * the cut tails. Such a result would be a few scraps of a distribution. */
    if (r.trunc > ALEA__TRUNC_MAX) {
        st = alea__error(ctx, ALEA_ERR_LIMIT, e->root->start, e->root->end,
                         "explosion tails cut off %.3g%% of the probability at byte %u "
                         "(at most %g%% is allowed): lower the tail bound (tail is %g)",
                         r.trunc * 100, (unsigned)e->root->start, ALEA__TRUNC_MAX * 100,
                         ctx->tail);
        alea__pmf_free(ctx, &r);
        return st;
    }
    if ((st = alea__pmf_check_sum(ctx, &r, e->root)) != ALEA_OK ||
        (st = alea__dist_make(ctx, &r, e->src, e->len, out)) != ALEA_OK) {
        alea__pmf_free(ctx, &r);
        return st;
    }
    (*out)->notes = notes;
    alea__bounds(e->root, &(*out)->tree);
    if (e->root->kind == N_REPEAT)
        (*out)->rolls = e->root->u.rep.n;
    return ALEA_OK;
}
