/*
 * mech/reroll.c -- rerolls chosen after seeing the dice:
 *
 *   reroll(POOL, ROUNDS, GOAL)      POOL (plain dice of one or several
 *   reroll(POOL, ROUNDS, GOAL, K)   sizes, "5d6", "2d10 + 1d8") is rolled;
 *                                   then ROUNDS times the player rerolls
 *                                   any of its dice (at most K a round),
 *                                   seeing each result, playing for GOAL
 *                                   (goal.h: mean, or a condition on the
 *                                   total). The value is the final total.
 *
 * The optimal policy depends only on the call's fixed arguments, so it is
 * computed once, when the expression is compiled, into the node's table
 * (keep: what to keep from each state with r rounds left). The roller plays
 * it and the exact engine computes the distribution it makes, both reading
 * that one table through rr_keep: they cannot disagree.
 *
 * States. A group is the pool's dice of one size (2d6 + d6 is one group of
 * three). Each multiset of a group's faces of at most its count of dice has
 * an index, in order of size (the empty one 0, the full ones last, from
 * full0); adding face f to a multiset i that is not full gives
 * add[i * sides + f - 1], a larger index. A state of the pool is a
 * multiset per group, with the product index sum(i_g * stride_g) (P
 * states); a full one (every group full) also has a full index among the
 * F full ones (252 for 5d6; 92,378 for 10d10).
 *
 * Values, by backward induction. With r rounds left a full state x is
 * worth V_r(x): V_0(x) is the goal's value of x's total; V_r(x) is the
 * best, over the multisets k that x may keep (x itself, or down to K dice
 * fewer), of W_r(k), the expected V_{r-1} once the dice not kept are
 * rerolled: W_r(x) = V_{r-1}(x) when x is full, else the mean over the
 * faces f of one more die (of the first group not full) of W_r(k + f).
 * Each W_r is one pass over the P states (P times a group's faces); the
 * best kept multiset of every state another: B(y) is the better of y
 * itself and B(y - f) for each face f of y, pushed from every state to
 * those one die larger (P times every group's faces; with K, K such
 * passes). The whole is checked against the work budget before anything
 * is built, and charged as the passes go: reroll(20d20, 5, mean) has
 * 1.4e11 states and stops at once. The values V_r of the full states are
 * kept as floats, for the breakdown's "from 0% to 74.1%".
 *
 * Ties. Values within TIE_EPS of each other count as equal (rounding
 * makes equal chances differ in their last bits): then the choice that
 * rerolls fewer dice wins, then the one that keeps the higher faces,
 * group by group in the order the sizes first appear in the pool, each
 * group's kept faces compared from the highest down (more copies of a
 * higher face first). So a certain goal is kept, not rerolled.
 *
 * The exact distribution follows the policy forward: the chance of every
 * state after the first roll, then round by round, moved to what the state
 * keeps and spread over the rerolled dice's faces; at the end the full
 * states' chances add up on their totals. In fractions when the context
 * computes in fractions: the policy is the same, decided in doubles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mech.h"
#include "../pmf.h"
#include "goal.h"

/* Rounds of rerolls at most. Each round is a pass over every state when
 * compiled, a line of the breakdown and a decision a roll; a player
 * rerolls a handful of times, and 100 rounds of a d6 are already certain
 * of the best faces to 10^-8. */
#define REROLL_ROUNDS_MAX 100
/* Values this close (relative to the larger, absolute below 1) are a tie. */
#define TIE_EPS 1e-12
/* Work units of a step of the policy's passes (a face of a state: a
 * look-up in the add table and a value read at a state far away, about
 * 5 ns here against a unit's 2), charged in steps of PAY_STEP units so
 * that the interrupt hook is polled during a long pass; and of a step of
 * the exact engine's (a chance added to a state's: about 8 ns). */
#define STEP_UNITS 3
#define PAY_STEP 65536
#define EXACT_UNITS 4

/* One multiset of a group's faces: the multiset without its largest face
 * (parent) and that face, and its place in the tie order (0 the most
 * preferred; the order of all multisets of at most the group's count). */
typedef struct rr_ms {
    uint32_t parent, face, pref;
} rr_ms;

typedef struct rr_group {
    int64_t count, sides;
    uint32_t m, full0;        /* multisets of size <= count; full ones from full0 */
    uint32_t stride, fstride; /* in the product index; in the full index */
    const uint32_t *add;      /* [full0 * sides] */
    const rr_ms *ms;          /* [m] */
    const uint32_t *level;    /* [count + 2]: the first multiset of each size, then m */
} rr_group;

/* A term of the pool as written ("2d6"), and the group its dice join. */
typedef struct rr_term {
    int64_t count, sides;
    uint32_t group;
} rr_term;

typedef struct reroll_spec {
    const node *pool; /* as written, for printing */
    const rr_term *terms;
    uint32_t nterms;
    const rr_group *groups;
    uint32_t ngroups;
    int64_t ndice, rounds, most; /* most: K, or 0 when not given */
    alea__goal goal;
    uint32_t P, F;
    /* value[r * F + x]: V_r of full state x (r = 0..rounds), for the
     * breakdown; keep[(r - 1) * F + x]: the state x keeps with r rounds
     * left (a product index), r = 1..rounds. */
    const float *value;
    const uint32_t *keep;
} reroll_spec;

ALEA__HIDDEN extern const alea__mech alea__mech_reroll;

/* ---- the states ---- */

static uint32_t part_of(const rr_group *g, uint32_t x)
{
    return (x / g->stride) % g->m;
}

/* The product index of full state fx. */
static uint32_t full_to_state(const reroll_spec *rs, uint32_t fx)
{
    uint32_t x = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        x += (gr->full0 + (fx / gr->fstride) % (gr->m - gr->full0)) * gr->stride;
    }
    return x;
}

/* The full index of state x, or UINT32_MAX when a group is not full. */
static uint32_t state_to_full(const reroll_spec *rs, uint32_t x)
{
    uint32_t fx = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        uint32_t i = part_of(gr, x);
        if (i < gr->full0)
            return UINT32_MAX;
        fx += (i - gr->full0) * gr->fstride;
    }
    return fx;
}

/* The sum of the faces of state x (a walk down each group's multiset:
 * the checks keep the sum within an int64, a die's faces being counted). */
static int64_t state_total(const reroll_spec *rs, uint32_t x)
{
    int64_t t = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        for (uint32_t i = part_of(gr, x); i != 0; i = gr->ms[i].parent)
            t += gr->ms[i].face;
    }
    return t;
}

/* The size of group gr's multiset i: its level. */
static uint32_t ms_size(const rr_group *gr, uint32_t i)
{
    uint32_t lo = 0, hi = (uint32_t)gr->count + 1; /* level[lo] <= i < level[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (gr->level[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t state_size(const reroll_spec *rs, uint32_t x)
{
    uint32_t n = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++)
        n += ms_size(&rs->groups[g], part_of(&rs->groups[g], x));
    return n;
}

/* The decision: what full state fx keeps with r >= 1 rounds left. */
static uint32_t rr_keep(const reroll_spec *rs, int64_t r, uint32_t fx)
{
    return rs->keep[(size_t)(r - 1) * rs->F + fx];
}

/* C(n, k) in doubles: exact while below 2^53, which the checks keep; past
 * 1e30 (no index reaches it) the loop stops there, so a d(2^63 - 1) costs
 * one step, not 2^63. */
static double choose(double n, double k)
{
    if (n - k < k)
        k = n - k;
    double r = 1;
    for (double i = 1; i <= k && r < 1e30; i++)
        r = r * (n - k + i) / i;
    return floor(r + 0.5);
}

/* ---- the policy: built when compiled ---- */

typedef struct rr_build {
    alea_ctx *ctx;
    reroll_spec *rs;
    size_t start, end; /* the call's span, for errors */
    double pending;    /* units done and not yet charged */
    double *W, *Vprev; /* [P], [F] */
    uint32_t *bk, *bk2; /* [P]: the best kept state of each */
} rr_build;

static alea_status pay(rr_build *b, double units)
{
    b->pending += STEP_UNITS * units;
    if (b->pending < PAY_STEP)
        return ALEA_OK;
    int64_t u = (int64_t)b->pending;
    b->pending = 0;
    return alea__charge(b->ctx, u, b->start, b->end);
}

/* Group g's multisets, by size level: each level's multisets add every
 * face at least their largest (a new multiset each: its parent and face),
 * then the smaller faces, through the parent: i + f = (parent + f) + face.
 * Then each one's place in the tie order, by counting those before it. */
static alea_status group_build(rr_build *b, alea__parser *p, rr_group *g)
{
    alea_ctx *ctx = b->ctx;
    const uint32_t s = (uint32_t)g->sides, c = (uint32_t)g->count;
    rr_ms *ms = alea__parse_alloc(p, alea__mul_size(g->m, sizeof *ms));
    uint32_t *add = alea__parse_alloc(p, alea__mul_size(alea__mul_size(g->full0, s),
                                                         sizeof *add));
    uint32_t *level = alea__parse_alloc(p, alea__mul_size((size_t)c + 2, sizeof *level));
    if (!ms || (!add && g->full0) || !level)
        return alea__nomem(ctx);
    g->ms = ms;
    g->add = add;
    g->level = level;
    level[0] = 0;
    memset(&ms[0], 0, sizeof ms[0]);
    uint32_t lo = 0, hi = 1, next = 1;
    alea_status st;
    for (uint32_t level_n = 0; level_n < c; level_n++) {
        for (uint32_t i = lo; i < hi; i++) /* new multisets */
            for (uint32_t f = ms[i].face ? ms[i].face : 1; f <= s; f++) {
                ms[next].parent = i;
                ms[next].face = f;
                add[(size_t)i * s + f - 1] = next++;
            }
        for (uint32_t i = lo; i < hi; i++) /* the others, reached through the parent */
            for (uint32_t f = 1; f < ms[i].face; f++)
                add[(size_t)i * s + f - 1] =
                    add[(size_t)add[(size_t)ms[i].parent * s + f - 1] * s + ms[i].face - 1];
        if ((st = pay(b, (double)(hi - lo) * s)) != ALEA_OK)
            return st;
        lo = hi;
        hi = next;
        level[level_n + 1] = lo;
    }
    level[c + 1] = g->m;
    if (next != g->m || lo != g->full0)
        return alea__broken(ctx, b->start, b->end, "reroll()'s count of multisets");
    /* The tie order: by counts from the highest face down, more first,
     * among every multiset of at most c faces. Those before a multiset
     * with counts n_s .. n_1 are, at each face j where it has n_j of the
     * rem_j faces left, those with more of face j: C(rem_j - n_j - 1 + j, j)
     * of them (as many as multisets of at most rem_j - n_j - 1 faces of
     * j faces). The counts come from the parent chain. */
    size_t nb = alea__mul_size((size_t)c + 1, (size_t)s + 1);
    uint32_t *cnt = alea__mem_alloc(ctx, alea__mul_size((size_t)s + 1, sizeof *cnt));
    double *tab = alea__mem_alloc(ctx, alea__mul_size(nb, sizeof *tab));
    if (!cnt || !tab) {
        alea__mem_free(ctx, cnt, ((size_t)s + 1) * sizeof *cnt);
        alea__mem_free(ctx, tab, nb * sizeof *tab);
        return alea__nomem(ctx);
    }
    for (uint32_t t = 0; t <= c; t++) /* tab[t][j] = C(t + j, j) */
        for (uint32_t j = 0; j <= s; j++)
            tab[(size_t)t * (s + 1) + j] =
                t == 0 || j == 0 ? 1
                                 : tab[(size_t)(t - 1) * (s + 1) + j] + tab[(size_t)t * (s + 1) + j - 1];
    st = ALEA_OK;
    for (uint32_t i = 0; i < g->m && st == ALEA_OK; i++) {
        memset(cnt, 0, ((size_t)s + 1) * sizeof *cnt);
        for (uint32_t k = i; k != 0; k = ms[k].parent)
            cnt[ms[k].face]++;
        double rank = 0;
        uint32_t rem = c;
        for (uint32_t j = s; j >= 1; j--) {
            if (rem > cnt[j])
                rank += tab[(size_t)(rem - cnt[j] - 1) * (s + 1) + j];
            rem -= cnt[j];
        }
        ms[i].pref = (uint32_t)rank;
        st = pay(b, (double)s + ms_size(g, i));
    }
    alea__mem_free(ctx, cnt, ((size_t)s + 1) * sizeof *cnt);
    alea__mem_free(ctx, tab, nb * sizeof *tab);
    return st;
}

/* Whether keeping state a is better than keeping b (W their values). */
static int better(const reroll_spec *rs, const double *W, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    double wa = W[a], wb = W[b];
    double tol = TIE_EPS * fmax(1, fmax(fabs(wa), fabs(wb)));
    if (wa > wb + tol)
        return 1;
    if (wb > wa + tol)
        return 0;
    uint32_t sa = state_size(rs, a), sb = state_size(rs, b);
    if (sa != sb)
        return sa > sb;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        uint32_t pa = gr->ms[part_of(gr, a)].pref, pb = gr->ms[part_of(gr, b)].pref;
        if (pa != pb)
            return pa < pb;
    }
    return 0;
}

/* W_r from V_{r-1} (b->Vprev), states from the largest index down. */
static alea_status pass_w(rr_build *b)
{
    const reroll_spec *rs = b->rs;
    alea_status st;
    for (uint32_t x = rs->P; x-- > 0;) {
        uint32_t g = 0, i = 0;
        for (; g < rs->ngroups; g++)
            if ((i = part_of(&rs->groups[g], x)) < rs->groups[g].full0)
                break;
        if (g == rs->ngroups) {
            b->W[x] = b->Vprev[state_to_full(rs, x)];
            continue;
        }
        const rr_group *gr = &rs->groups[g];
        const uint32_t *row = gr->add + (size_t)i * (size_t)gr->sides;
        double sum = 0;
        for (int64_t f = 0; f < gr->sides; f++)
            sum += b->W[x + (row[f] - i) * gr->stride];
        b->W[x] = sum / (double)gr->sides;
        if ((st = pay(b, (double)gr->sides)) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

/* from[x] pushed to every state one die larger: to[y] keeps the better. */
static alea_status pass_best(rr_build *b, const uint32_t *from, uint32_t *to)
{
    const reroll_spec *rs = b->rs;
    alea_status st;
    for (uint32_t x = 0; x < rs->P; x++) {
        uint32_t k = from[x];
        for (uint32_t g = 0; g < rs->ngroups; g++) {
            const rr_group *gr = &rs->groups[g];
            uint32_t i = part_of(gr, x);
            if (i >= gr->full0)
                continue;
            const uint32_t *row = gr->add + (size_t)i * (size_t)gr->sides;
            for (int64_t f = 0; f < gr->sides; f++) {
                uint32_t y = x + (row[f] - i) * gr->stride;
                if (better(rs, b->W, k, to[y]))
                    to[y] = k;
            }
            if ((st = pay(b, (double)gr->sides)) != ALEA_OK)
                return st;
        }
    }
    return ALEA_OK;
}

/* Round r (r rounds left): W_r, the best kept state of each, and V_r
 * (into value and keep when not NULL; always into b->Vprev). */
static alea_status round_build(rr_build *b, int64_t r, float *value, uint32_t *keep)
{
    const reroll_spec *rs = b->rs;
    alea_status st;
    if ((st = pass_w(b)) != ALEA_OK)
        return st;
    for (uint32_t x = 0; x < rs->P; x++)
        b->bk[x] = x;
    if (!(rs->most && rs->most < rs->ndice)) {
        /* no K: one pass, in place (bk[x] is final when x pushes it) */
        if ((st = pass_best(b, b->bk, b->bk)) != ALEA_OK)
            return st;
    }
    for (int64_t j = 0; rs->most && rs->most < rs->ndice && j < rs->most; j++) {
        /* B_j(y): y itself, or B_{j-1}(y - f) */
        for (uint32_t x = 0; x < rs->P; x++)
            b->bk2[x] = x;
        if ((st = pass_best(b, b->bk, b->bk2)) != ALEA_OK)
            return st;
        uint32_t *t = b->bk;
        b->bk = b->bk2;
        b->bk2 = t;
    }
    for (uint32_t fx = 0; fx < rs->F; fx++) {
        uint32_t k = b->bk[full_to_state(rs, fx)];
        if (keep)
            keep[(size_t)(r - 1) * rs->F + fx] = k;
        b->Vprev[fx] = b->W[k];
        if (value)
            value[(size_t)r * rs->F + fx] = (float)b->W[k];
    }
    return pay(b, (double)rs->F * rs->ngroups);
}

/* The work of the tables and of every round, in units, for P states of
 * which F full (doubles: they may be past any index). */
static double build_cost(const reroll_spec *rs, double P, double F)
{
    double tables = 0, faces = 0, most = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        double m = choose((double)(gr->count + gr->sides), (double)gr->sides);
        tables += m * (2.0 * (double)gr->sides + (double)gr->count);
        faces += (double)gr->sides;
        most = fmax(most, (double)gr->sides);
    }
    double passes = rs->most && rs->most < rs->ndice ? (double)rs->most : 1;
    return STEP_UNITS * (tables + F + (double)rs->rounds * (P * (most + passes * faces) +
                                                            2.0 * F * rs->ngroups));
}

static alea_status policy_build(alea__parser *p, reroll_spec *rs, rr_group *groups,
                                size_t start, size_t end)
{
    alea_ctx *ctx = alea__parse_ctx(p);
    rr_build b = {0};
    b.ctx = ctx;
    b.rs = rs;
    b.start = start;
    b.end = end;
    /* The states' counts, in doubles first: 20d20 has 1.4e11. */
    double P = 1, F = 1;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        P *= choose((double)(gr->count + gr->sides), (double)gr->sides);
        F *= choose((double)(gr->count + gr->sides - 1), (double)gr->sides - 1);
    }
    alea_status st = alea__work_check_span(ctx, build_cost(rs, P, F), start, end);
    if (st != ALEA_OK)
        return st;
    if (P >= (double)UINT32_MAX)
        return alea__error(ctx, ALEA_ERR_LIMIT, start, end,
                           "reroll() of this pool has %.3g states of its dice, more than "
                           "the %lu it can index (byte %u)",
                           P, (unsigned long)UINT32_MAX - 1, (unsigned)start);
    rs->P = (uint32_t)P;
    rs->F = (uint32_t)F;
    uint32_t stride = 1, fstride = 1;
    for (uint32_t g = rs->ngroups; g-- > 0;) {
        rr_group *gr = &groups[g];
        gr->stride = stride;
        gr->fstride = fstride;
        stride *= gr->m;
        fstride *= gr->m - gr->full0;
    }
    for (uint32_t g = 0; g < rs->ngroups; g++)
        if ((st = group_build(&b, p, &groups[g])) != ALEA_OK)
            return st;
    size_t nv = alea__mul_size(alea__mul_size((size_t)rs->rounds + 1, rs->F), sizeof(float));
    size_t nk = alea__mul_size(alea__mul_size((size_t)rs->rounds, rs->F), sizeof(uint32_t));
    float *value = alea__parse_alloc(p, nv);
    uint32_t *keep = rs->rounds ? alea__parse_alloc(p, nk) : NULL;
    size_t wb = alea__mul_size(rs->P, sizeof *b.W), vb = alea__mul_size(rs->F, sizeof *b.Vprev);
    size_t kb = alea__mul_size(rs->P, sizeof *b.bk);
    int two = rs->most && rs->most < rs->ndice;
    b.W = alea__mem_alloc(ctx, wb);
    b.Vprev = alea__mem_alloc(ctx, vb);
    b.bk = alea__mem_alloc(ctx, kb);
    b.bk2 = two ? alea__mem_alloc(ctx, kb) : NULL;
    if (!value || (rs->rounds && !keep) || !b.W || !b.Vprev || !b.bk || (two && !b.bk2)) {
        st = alea__nomem(ctx);
        goto done;
    }
    for (uint32_t fx = 0; fx < rs->F; fx++) {
        b.Vprev[fx] = alea__goal_value(&rs->goal, state_total(rs, full_to_state(rs, fx)));
        value[fx] = (float)b.Vprev[fx];
    }
    for (int64_t r = 1; r <= rs->rounds && st == ALEA_OK; r++)
        st = round_build(&b, r, value, keep);
    if (st == ALEA_OK && b.pending >= 1)
        st = alea__charge(ctx, (int64_t)b.pending, start, end);
    rs->value = value;
    rs->keep = keep;
done:
    alea__mem_free(ctx, b.W, wb);
    alea__mem_free(ctx, b.Vprev, vb);
    alea__mem_free(ctx, b.bk, kb);
    if (two)
        alea__mem_free(ctx, b.bk2, kb);
    return st;
}

/* ---- parsing and printing ---- */

#define REROLL_EXAMPLE "as in reroll(5d6, 1, >= 20)"

static const char *const words[] = {ALEA__GOAL_WORDS, NULL};

/* reroll = "reroll" "(" pool "," expr "," goal [ "," expr ] ")" */
static alea_status reroll_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    alea_ctx *ctx = alea__parse_ctx(p);
    const node *pl;
    const node *const *items;
    uint32_t ni;
    alea_status st;
    (void)end;
    if ((st = alea__parse_open(p, "'(' after reroll, " REROLL_EXAMPLE)) != ALEA_OK ||
        (st = alea__parse_arg(p, &pl)) != ALEA_OK ||
        (st = alea__parse_pool_terms(p, pl, "reroll", &items, &ni)) != ALEA_OK)
        return st;
    reroll_spec *rs = alea__parse_alloc(p, sizeof *rs);
    rr_term *terms = alea__parse_alloc(p, alea__mul_size(ni, sizeof *terms));
    rr_group *groups = alea__parse_alloc(p, alea__mul_size(ni, sizeof *groups));
    if (!rs || !terms || !groups)
        return alea__nomem(ctx);
    memset(rs, 0, sizeof *rs);
    memset(groups, 0, ni * sizeof *groups);
    uint32_t ng = 0;
    for (uint32_t i = 0; i < ni; i++) {
        alea__parse_plain_dice(items[i], &terms[i].count, &terms[i].sides);
        if (terms[i].sides < 1)
            return alea__error(ctx, ALEA_ERR_INVALID, items[i]->start, items[i]->end,
                               "reroll() dice need at least one side, not d%lld (byte %u)",
                               (long long)terms[i].sides, (unsigned)items[i]->start);
        if (terms[i].count > alea_limit_max(ALEA_LIMIT_DICE) - rs->ndice)
            return alea__error(ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                               "too many dice in reroll() (at most %lld)",
                               (long long)alea_limit_max(ALEA_LIMIT_DICE));
        rs->ndice += terms[i].count;
        uint32_t g = 0;
        while (g < ng && groups[g].sides != terms[i].sides)
            g++;
        if (g == ng) {
            groups[ng].sides = terms[i].sides;
            ng++;
        }
        groups[g].count += terms[i].count;
        terms[i].group = g;
    }
    if (rs->ndice == 0)
        return alea__error(ctx, ALEA_ERR_INVALID, pl->start, pl->end,
                           "reroll() needs at least one die (byte %u)", (unsigned)pl->start);
    /* A group of no dice (0d6 + d8) is left out: it has one state. */
    uint32_t kept = 0;
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t to = groups[g].count ? kept++ : UINT32_MAX;
        for (uint32_t i = 0; i < ni; i++)
            if (terms[i].group == g)
                terms[i].group = to;
        if (to != UINT32_MAX)
            groups[to] = groups[g];
    }
    ng = kept;
    uint32_t nt = 0; /* and so is a term of no dice: the dice are the others' */
    for (uint32_t i = 0; i < ni; i++)
        if (terms[i].count)
            terms[nt++] = terms[i];
    rs->pool = pl;
    rs->terms = terms;
    rs->nterms = nt;
    rs->groups = groups;
    rs->ngroups = ng;
    if ((st = alea__parse_expect_comma(p, "',' and the number of rounds of rerolls, "
                                          REROLL_EXAMPLE)) != ALEA_OK ||
        (st = alea__parse_int(p, "reroll", "number of rounds", 0, REROLL_ROUNDS_MAX,
                              &rs->rounds)) != ALEA_OK ||
        (st = alea__parse_expect_comma(p, "',' and the goal (mean, or a condition on the "
                                          "total such as >= 20), " REROLL_EXAMPLE)) != ALEA_OK ||
        (st = alea__goal_parse(p, "reroll", &rs->goal)) != ALEA_OK)
        return st;
    if (alea__parse_comma(p) &&
        (st = alea__parse_int(p, "reroll", "most dice rerolled a round", 1,
                              alea_limit_max(ALEA_LIMIT_DICE), &rs->most)) != ALEA_OK)
        return st;
    size_t here = alea__parse_here(p);
    /* The multisets of each group, in doubles first (checked by the work
     * budget in policy_build before anything is allocated). */
    for (uint32_t g = 0; g < ng; g++) {
        double m = choose((double)(groups[g].count + groups[g].sides), (double)groups[g].sides);
        double f = choose((double)(groups[g].count + groups[g].sides - 1),
                          (double)groups[g].sides - 1);
        groups[g].m = m < 4e9 ? (uint32_t)m : UINT32_MAX;
        groups[g].full0 = m < 4e9 ? (uint32_t)(m - f) : 0;
    }
    if (!alea__parse_print_only(p) &&
        (st = policy_build(p, rs, groups, start, here)) != ALEA_OK)
        return st;
    if ((st = alea__mech_node(p, &alea__mech_reroll, rs, start, here, out)) != ALEA_OK)
        return st;
    return alea__parse_close(p, "')' (reroll takes a pool, the rounds, a goal and "
                                "at most the dice rerolled a round)",
                             NULL);
}

/* "reroll(2d10 + d8, 2, >= 15, 1)" */
static void reroll_print(alea__out *o, const node *n)
{
    const reroll_spec *rs = n->u.mech.spec;
    alea__out_str(o, "reroll(");
    alea__node_print(o, rs->pool);
    alea__out_str(o, ", ");
    alea__out_i64(o, rs->rounds);
    alea__out_str(o, ", ");
    alea__goal_print(o, &rs->goal);
    if (rs->most) {
        alea__out_str(o, ", ");
        alea__out_i64(o, rs->most);
    }
    alea__out_char(o, ')');
}

/* ---- rolling ---- */

/* What a roll recorded, in rc->marks (which a construct of members uses
 * for its members' marks, and this one for its rounds): per round, the
 * state seen (a product index) and the dice rerolled (die indices,
 * ascending) with the faces they showed next. */
typedef struct rr_round {
    uint32_t state, nre, nkept;
    const uint32_t *die;   /* [nre] */
    const int64_t *face;   /* [nre]: what they showed next */
    const int64_t *kept;   /* [nkept]: the faces kept, in the dice's order
                              (every die's when nre is 0) */
} rr_round;

/* What a round prints at most beyond the dice ("; round 100 kept ", the
 * goal's name and two values), and per face kept (20 digits and a space). */
#define ROUND_BYTES 160
#define KEPT_BYTES 24

/* The product index of the dice's faces; part[g]: group g's multiset. */
static uint32_t dice_state(const reroll_spec *rs, const int64_t *face, uint32_t *part)
{
    for (uint32_t g = 0; g < rs->ngroups; g++)
        part[g] = 0;
    size_t k = 0;
    for (uint32_t t = 0; t < rs->nterms; t++) {
        const rr_group *gr = &rs->groups[rs->terms[t].group];
        uint32_t *i = &part[rs->terms[t].group];
        for (int64_t j = 0; j < rs->terms[t].count; j++, k++)
            *i = gr->add[(size_t)*i * (size_t)gr->sides + (size_t)face[k] - 1];
    }
    uint32_t x = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++)
        x += part[g] * rs->groups[g].stride;
    return x;
}

/* One round: the dice rerolled from state x keeping state keep (the first
 * dice showing each kept face are kept), drawn into face[]. cnt: room for
 * a count per face of every group. */
static alea_status play_round(alea__rstate *s, const node *n, const reroll_spec *rs,
                              uint32_t keep, int64_t *face, uint32_t *cnt, size_t ncnt,
                              rr_round *out)
{
    memset(cnt, 0, ncnt * sizeof *cnt);
    size_t nre = (size_t)rs->ndice;
    for (uint32_t g = 0, off = 0; g < rs->ngroups; off += (uint32_t)rs->groups[g].sides + 1, g++) {
        const rr_group *gr = &rs->groups[g];
        for (uint32_t m = part_of(gr, keep); m != 0; m = gr->ms[m].parent, nre--)
            cnt[off + gr->ms[m].face]++;
    }
    alea_status st = alea__roll_charge(s, n, (int64_t)nre);
    uint32_t *die = alea__arena_alloc(&s->r->arena, alea__mul_size(nre, sizeof *die));
    int64_t *next = alea__arena_alloc(&s->r->arena, alea__mul_size(nre, sizeof *next));
    int64_t *kept = alea__arena_alloc(&s->r->arena,
                                      alea__mul_size((size_t)rs->ndice - nre, sizeof *kept));
    if (st != ALEA_OK)
        return st;
    if (!die || !next || (!kept && nre < (size_t)rs->ndice))
        return alea__nomem(s->ctx);
    uint32_t nk = 0;
    uint32_t j = 0;
    size_t k = 0;
    for (uint32_t t = 0; t < rs->nterms; t++) {
        uint32_t g = rs->terms[t].group, off = 0;
        for (uint32_t h = 0; h < g; h++)
            off += (uint32_t)rs->groups[h].sides + 1;
        for (int64_t i = 0; i < rs->terms[t].count; i++, k++) {
            uint32_t *c = &cnt[off + (size_t)face[k]];
            if (*c > 0) {
                (*c)--;
                kept[nk++] = face[k];
                continue;
            }
            die[j] = (uint32_t)k;
            next[j++] = face[k] = alea__roll_d(s, rs->groups[g].sides);
        }
    }
    out->nre = j;
    out->die = die;
    out->face = next;
    out->nkept = nk;
    out->kept = kept;
    return ALEA_OK;
}

static alea_status reroll_roll(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const reroll_spec *rs = n->u.mech.spec;
    alea_status st;
    size_t die0 = 0, nd = (size_t)rs->ndice, R = (size_t)rs->rounds;
    if ((st = alea__roll_charge(s, n, rs->ndice)) != ALEA_OK ||
        (st = alea__roll_bytes(s, n, rs->rounds * (ROUND_BYTES + KEPT_BYTES * rs->ndice))) !=
            ALEA_OK ||
        (st = alea__roll_reserve(s, nd, &die0)) != ALEA_OK)
        return st;
    size_t ncnt = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++)
        ncnt += (size_t)rs->groups[g].sides + 1;
    /* cnt: a count per face of each group, then a multiset per group, then
     * a place in each round's list; face: each die's face now, first: as
     * first rolled */
    uint32_t *cnt = alea__arena_alloc(&s->r->arena,
                                      alea__mul_size(ncnt + rs->ngroups + R, sizeof *cnt));
    int64_t *face = alea__arena_alloc(&s->r->arena, alea__mul_size(2 * nd, sizeof *face));
    rr_round *rounds = alea__arena_alloc(&s->r->arena, alea__mul_size(R + 1, sizeof *rounds));
    if (!cnt || !face || !rounds)
        return alea__nomem(s->ctx);
    uint32_t *part = cnt + ncnt, *at = part + rs->ngroups;
    int64_t *first = face + nd;
    size_t k = 0;
    for (uint32_t t = 0; t < rs->nterms; t++)
        for (int64_t j = 0; j < rs->terms[t].count; j++, k++)
            face[k] = first[k] = alea__roll_d(s, rs->terms[t].sides);
    for (size_t i = 0; i < R; i++) {
        int64_t left = rs->rounds - (int64_t)i;
        uint32_t x = dice_state(rs, face, part);
        uint32_t keep = rr_keep(rs, left, state_to_full(rs, x));
        memset(&rounds[i], 0, sizeof rounds[i]);
        rounds[i].state = x;
        if (keep != x) {
            if ((st = play_round(s, n, rs, keep, face, cnt, ncnt, &rounds[i])) != ALEA_OK)
                return st;
            continue;
        }
        int64_t *all = alea__arena_alloc(&s->r->arena, alea__mul_size(nd, sizeof *all));
        if (!all)
            return alea__nomem(s->ctx);
        memcpy(all, face, nd * sizeof *all);
        rounds[i].kept = all;
        rounds[i].nkept = (uint32_t)nd;
    }
    /* The dice, each with its faces in order: the first roll, then what
     * each round that rerolled it drew. */
    rdie *dice = s->r->dice + die0;
    int64_t total = 0;
    for (size_t i = 0; i < R; i++)
        at[i] = 0;
    for (k = 0; k < nd; k++) {
        rdie *d = &dice[k];
        memset(d, 0, sizeof *d);
        d->value = face[k];
        if (alea__add_ovf(total, face[k], &total))
            return alea__roll_overflow(s, n);
        d->first = (uint32_t)s->r->nfaces;
        int64_t f = first[k];
        for (size_t i = 0; i < R; i++) {
            if (at[i] >= rounds[i].nre || rounds[i].die[at[i]] != k)
                continue;
            if ((st = alea__roll_push(s, f, FACE_REROLLED)) != ALEA_OK)
                return st;
            f = rounds[i].face[at[i]++];
        }
        if ((st = alea__roll_push(s, f, 0)) != ALEA_OK)
            return st;
        d->nfaces = (uint32_t)(s->r->nfaces - d->first);
    }
    rc->die0 = (uint32_t)die0;
    rc->ndice = (uint32_t)nd;
    rc->marks = (const uint8_t *)rounds; /* read back as rr_round (show, JSON) */
    if (!s->trace)
        s->r->ndice = die0;
    *value = total;
    return ALEA_OK;
}

/* ---- the exact distribution ---- */

/* The chances of the states: Q's outcome x is state x's (v unused). */
static alea_status masses_new(alea_ctx *ctx, uint32_t P, alea__pmf *Q)
{
    alea_status st = alea__pmf_alloc(ctx, P, Q);
    if (st == ALEA_OK && !Q->q)
        memset(Q->p, 0, (size_t)P * sizeof *Q->p);
    return st;
}

/* Every state not full spreads its chance over one more die of its first
 * group not full, from the smallest index up, so that what reaches the
 * full states is their chance. */
static alea_status spread(alea_ctx *ctx, const reroll_spec *rs, const alea__pmf *inv,
                          alea__pmf *Q, const node *n)
{
    alea_status st;
    for (uint32_t x = 0; x < rs->P; x++) {
        alea__w w = alea__pmf_w(Q, x);
        if (alea__w_is_zero(ctx, w))
            continue;
        uint32_t g = 0, i = 0;
        for (; g < rs->ngroups; g++)
            if ((i = part_of(&rs->groups[g], x)) < rs->groups[g].full0)
                break;
        if (g == rs->ngroups)
            continue;
        const rr_group *gr = &rs->groups[g];
        const uint32_t *row = gr->add + (size_t)i * (size_t)gr->sides;
        if ((st = alea__charge(ctx, EXACT_UNITS * gr->sides, n->start, n->end)) != ALEA_OK)
            return st;
        if (!Q->q) { /* doubles: added in place */
            double share = Q->p[x] / (double)gr->sides;
            for (int64_t f = 0; f < gr->sides; f++)
                Q->p[x + (row[f] - i) * gr->stride] += share;
            continue;
        }
        for (int64_t f = 0; f < gr->sides; f++)
            if ((st = alea__pmf_addmul(ctx, Q, x + (row[f] - i) * gr->stride, w,
                                       alea__pmf_w(&inv[g], 0), n)) != ALEA_OK)
                return st;
    }
    return ALEA_OK;
}

static alea_status reroll_exact(alea_ctx *ctx, const node *n, alea__pmf *out, alea__notes *notes)
{
    const reroll_spec *rs = n->u.mech.spec;
    (void)notes;
    double most = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++)
        most = fmax(most, (double)rs->groups[g].sides);
    /* Each round (and the first roll) spreads over every state a die's
     * faces and moves the full states' chances; then the totals. */
    alea_status st = alea__work_check(
        ctx,
        EXACT_UNITS * (((double)rs->rounds + 1) * ((double)rs->P * (most + 1) + (double)rs->F) +
                       rs->F),
        n);
    if (st != ALEA_OK)
        return st;
    alea__pmf inv[64], Q = {0}, Q2 = {0};
    uint32_t ninv = 0;
    memset(inv, 0, sizeof inv);
    if (rs->ngroups > 64) /* the states' index keeps the groups few long before */
        return alea__broken(ctx, n->start, n->end, "reroll() of more than 64 sizes of dice");
    for (; ninv < rs->ngroups; ninv++) {
        if ((st = alea__pmf_alloc(ctx, 1, &inv[ninv])) != ALEA_OK)
            goto done;
        inv[ninv].v[0] = 0;
        alea__pmf_ratio(ctx, &inv[ninv], 0, 1, 1, (uint64_t)rs->groups[ninv].sides, 1);
        if ((st = alea__pmf_seal(ctx, &inv[ninv], n)) != ALEA_OK)
            goto done;
    }
    /* The first roll, then each round: each full state's chance moves to
     * the state it keeps, and spreads over the dice rerolled. */
    if ((st = masses_new(ctx, rs->P, &Q)) != ALEA_OK ||
        (st = alea__pmf_set_w(ctx, &Q, 0, ALEA__W(1), n)) != ALEA_OK ||
        (st = spread(ctx, rs, inv, &Q, n)) != ALEA_OK)
        goto done;
    for (int64_t r = rs->rounds; r >= 1; r--) {
        if ((st = masses_new(ctx, rs->P, &Q2)) != ALEA_OK ||
            (st = alea__charge(ctx, EXACT_UNITS * (rs->F + rs->P / 4), n->start, n->end)) !=
                ALEA_OK)
            goto done;
        for (uint32_t fx = 0; fx < rs->F; fx++) {
            uint32_t x = full_to_state(rs, fx);
            alea__w w = alea__pmf_w(&Q, x);
            if (!alea__w_is_zero(ctx, w) &&
                (st = alea__pmf_addmul(ctx, &Q2, rr_keep(rs, r, fx), w, ALEA__W(1), n)) !=
                    ALEA_OK)
                goto done;
        }
        if ((st = spread(ctx, rs, inv, &Q2, n)) != ALEA_OK)
            goto done;
        alea__pmf_free(ctx, &Q);
        Q = Q2;
        memset(&Q2, 0, sizeof Q2);
    }
    /* The totals of the full states. */
    int64_t lo = rs->ndice, hi = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++)
        hi += rs->groups[g].count * rs->groups[g].sides;
    alea__acc acc;
    if ((st = alea__acc_init(&acc, ctx, n, lo, hi, (double)rs->F)) != ALEA_OK)
        goto done;
    for (uint32_t fx = 0; fx < rs->F && st == ALEA_OK; fx++) {
        uint32_t x = full_to_state(rs, fx);
        alea__w w = alea__pmf_w(&Q, x);
        if (!alea__w_is_zero(ctx, w))
            st = alea__acc_add(&acc, state_total(rs, x), w);
    }
    if (st == ALEA_OK)
        st = alea__acc_finish(&acc, out);
    else
        alea__acc_free(&acc);
done:
    for (uint32_t g = 0; g < ninv; g++)
        alea__pmf_free(ctx, &inv[g]);
    alea__pmf_free(ctx, &Q);
    alea__pmf_free(ctx, &Q2);
    return st;
}

/* ---- the breakdown ---- */

/* Round i's goal values: had it kept all (*stay), and with its choice. */
static void round_values(const reroll_spec *rs, const rr_round *rd, int64_t i, double *stay,
                         double *chosen)
{
    int64_t left = rs->rounds - i;
    uint32_t fx = state_to_full(rs, rd->state);
    *stay = rs->value[(size_t)(left - 1) * rs->F + fx];
    *chosen = rs->value[(size_t)left * rs->F + fx];
}

/* " [6, 5, 2->4, 1->6, 3->2; kept 6 5: chance of >= 20 from 0% to 74.1%]":
 * the dice, then each round's choice (with several rounds, "round 2
 * kept ..."): the faces it kept ("all" when it rerolled nothing, "none"),
 * and the goal's value had it kept all, then with its choice. */
static void reroll_show(alea__out *o, const alea_roll *r, const rec *rc)
{
    const reroll_spec *rs = rc->n->u.mech.spec;
    const rr_round *rounds = (const rr_round *)(const void *)rc->marks;
    alea__out_str(o, " [");
    for (uint32_t k = 0; k < rc->ndice; k++) {
        if (k)
            alea__out_str(o, ", ");
        alea__show_die(o, r, &r->dice[rc->die0 + k], NULL);
    }
    for (int64_t i = 0; rounds && i < rs->rounds; i++) {
        const rr_round *rd = &rounds[i];
        double stay, chosen;
        round_values(rs, rd, i, &stay, &chosen);
        alea__out_str(o, "; ");
        if (rs->rounds > 1) {
            alea__out_str(o, "round ");
            alea__out_i64(o, i + 1);
            alea__out_char(o, ' ');
        }
        if (rd->nre == 0) {
            alea__out_str(o, "kept all: ");
            alea__goal_name(o, &rs->goal);
            alea__out_char(o, ' ');
            alea__goal_show(o, &rs->goal, chosen);
            continue;
        }
        alea__out_str(o, "kept");
        if (rd->nkept == 0)
            alea__out_str(o, " none");
        for (uint32_t k = 0; k < rd->nkept; k++) {
            alea__out_char(o, ' ');
            alea__out_i64(o, rd->kept[k]);
        }
        alea__out_str(o, ": ");
        alea__goal_name(o, &rs->goal);
        alea__out_str(o, " from ");
        alea__goal_show(o, &rs->goal, stay);
        alea__out_str(o, " to ");
        alea__goal_show(o, &rs->goal, chosen);
    }
    alea__out_char(o, ']');
}

/* ", "goal": ">= 20", "rounds": [{"kept": [6, 5], "rerolled": [2, 3, 4],
 * "value_kept_all": 0, "value": 0.7407...}]": per round the faces kept
 * (every die's when it rerolled none),
 * the dice rerolled (their places in "dice"), and the goal's value had it
 * kept all, then with its choice (to seven digits, as the table keeps
 * them). */
static void reroll_show_json(alea__out *o, const rec *rc)
{
    const reroll_spec *rs = rc->n->u.mech.spec;
    const rr_round *rounds = (const rr_round *)(const void *)rc->marks;
    alea__out_str(o, ", \"goal\": \"");
    alea__goal_print(o, &rs->goal);
    alea__out_str(o, "\", \"rounds\": [");
    for (int64_t i = 0; rounds && i < rs->rounds; i++) {
        const rr_round *rd = &rounds[i];
        double stay, chosen;
        round_values(rs, rd, i, &stay, &chosen);
        alea__out_str(o, i ? ", {\"kept\": [" : "{\"kept\": [");
        for (uint32_t k = 0; k < rd->nkept; k++) {
            if (k)
                alea__out_str(o, ", ");
            alea__out_i64(o, rd->kept[k]);
        }
        alea__out_char(o, ']');
        alea__out_str(o, ", \"rerolled\": [");
        for (uint32_t k = 0; k < rd->nre; k++) {
            if (k)
                alea__out_str(o, ", ");
            alea__out_i64(o, rd->die[k]);
        }
        char num[32]; /* seven digits: what the table keeps (a float) */
        snprintf(num, sizeof num, "%.7g", stay);
        alea__out_str(o, "], \"value_kept_all\": ");
        alea__out_str(o, num);
        snprintf(num, sizeof num, "%.7g", chosen);
        alea__out_str(o, ", \"value\": ");
        alea__out_str(o, num);
        alea__out_char(o, '}');
    }
    alea__out_char(o, ']');
}

/* The least total is every die on 1 and the greatest every die on its
 * highest face; whether the policy lets either stand depends on the goal,
 * so neither is marked attained. */
static void reroll_bounds(const node *n, alea__range *r)
{
    const reroll_spec *rs = n->u.mech.spec;
    memset(r, 0, sizeof *r);
    r->lo = rs->ndice;
    for (uint32_t g = 0; g < rs->ngroups; g++)
        r->hi += rs->groups[g].count * rs->groups[g].sides;
}

/* ---- the policy (alea_policy) ---- */

/* State x's faces, each group's largest first ("6 5 3 2 1"; with several
 * sizes each group's named: "3 1 (d4), 6 (d6)"), or those of the dice x
 * lacks against full state *from (NULL: x's own), into o. */
static void state_text(alea__out *o, const reroll_spec *rs, uint32_t x, const uint32_t *from)
{
    int first = 1;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        uint32_t i = part_of(gr, x);
        /* with from: walk both, largest first; a face of from's that x
         * lacks is rerolled */
        uint32_t a = from ? part_of(gr, *from) : i, b = from ? i : 0;
        int any = 0;
        for (; a != 0; a = gr->ms[a].parent) {
            uint32_t f = gr->ms[a].face;
            if (from && b != 0 && gr->ms[b].face == f) {
                b = gr->ms[b].parent;
                continue;
            }
            alea__out_str(o, first ? "" : any ? " " : ", ");
            alea__out_i64(o, f);
            first = 0;
            any = 1;
        }
        if (any && rs->ngroups > 1) {
            alea__out_str(o, " (d");
            alea__out_i64(o, gr->sides);
            alea__out_char(o, ')');
        }
    }
}

/* The chance of rolling full state fx: per group, count! / (the faces'
 * multiplicities!) / sides^count. */
static double state_chance(const reroll_spec *rs, uint32_t fx)
{
    uint32_t x = full_to_state(rs, fx);
    double p = 1;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        double left = (double)gr->count;
        uint32_t i = part_of(gr, x);
        while (i != 0) { /* a run of one face: C(left, run) */
            uint32_t f = gr->ms[i].face, run = 0;
            for (; i != 0 && gr->ms[i].face == f; i = gr->ms[i].parent)
                run++;
            p *= choose(left, run);
            left -= run;
        }
        p *= pow((double)gr->sides, -(double)gr->count);
    }
    return p;
}

/* The values V_R and V_{R-1} of every full state (R the rounds) in
 * doubles, into top and stay: the backward induction the compilation
 * did, again, checked and charged as it was. */
static alea_status values_again(alea_ctx *ctx, const node *n, const reroll_spec *rs,
                                double *top, double *stay)
{
    rr_build b = {0};
    b.ctx = ctx;
    b.rs = (reroll_spec *)(uintptr_t)rs; /* read only: round_build writes b's arrays */
    b.start = n->start;
    b.end = n->end;
    alea_status st = alea__work_check_span(ctx, build_cost(rs, rs->P, rs->F), n->start, n->end);
    if (st != ALEA_OK)
        return st;
    size_t wb = alea__mul_size(rs->P, sizeof *b.W), kb = alea__mul_size(rs->P, sizeof *b.bk);
    int two = rs->most && rs->most < rs->ndice;
    b.W = alea__mem_alloc(ctx, wb);
    b.bk = alea__mem_alloc(ctx, kb);
    b.bk2 = two ? alea__mem_alloc(ctx, kb) : NULL;
    b.Vprev = top;
    if (!b.W || !b.bk || (two && !b.bk2)) {
        st = alea__nomem(ctx);
        goto done;
    }
    for (uint32_t fx = 0; fx < rs->F; fx++)
        top[fx] = alea__goal_value(&rs->goal, state_total(rs, full_to_state(rs, fx)));
    for (int64_t r = 1; r <= rs->rounds && st == ALEA_OK; r++) {
        if (r == rs->rounds)
            memcpy(stay, top, rs->F * sizeof *stay);
        st = round_build(&b, r, NULL, NULL);
    }
    if (st == ALEA_OK && b.pending >= 1)
        st = alea__charge(ctx, (int64_t)b.pending, n->start, n->end);
done:
    alea__mem_free(ctx, b.W, wb);
    alea__mem_free(ctx, b.bk, kb);
    if (two)
        alea__mem_free(ctx, b.bk2, kb);
    return st;
}

/* A state's place in the tie order (0: the most dice, the highest faces
 * first), over the groups in turn. */
static uint64_t state_rank(const reroll_spec *rs, uint32_t x)
{
    uint64_t r = 0;
    for (uint32_t g = 0; g < rs->ngroups; g++) {
        const rr_group *gr = &rs->groups[g];
        r = r * gr->m + gr->ms[part_of(gr, x)].pref;
    }
    return r;
}

/* A row's place: keep all first, then what is kept (most and highest
 * first), reroll all last; within each, what was seen, highest first. */
typedef struct rr_row {
    uint8_t kind; /* 0 keep all, 1 keep some, 2 reroll all */
    uint64_t kept, seen;
    uint32_t fx;
} rr_row;

static int row_order(const void *a, const void *b)
{
    const rr_row *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->kept != y->kept)
        return x->kept < y->kept ? -1 : 1;
    return x->seen < y->seen ? -1 : x->seen > y->seen;
}

/*
 * A row per full state after the first roll: the faces seen, what the
 * first round keeps ("keep 6 5", the others rerolled; "keep all", "reroll
 * all"), the chance of seeing it, the goal's value with the best choices
 * (V_R) and had it kept every die this round (V_{R-1}). The rows that keep
 * the same dice come together, so that a host names the rule once. The
 * whole value is the chance-weighted sum of the rows' values. Doubles
 * only (the choices are decided in doubles; the exact engine gives the
 * distribution's fractions).
 */
static alea_status reroll_choices(alea_ctx *ctx, const node *n, alea_policy *out)
{
    const reroll_spec *rs = n->u.mech.spec;
    if (rs->rounds == 0)
        return alea__error(ctx, ALEA_ERR_INVALID, n->start, n->end,
                           "no choice for the player: reroll() with 0 rounds rerolls nothing");
    alea_status st = alea__goal_policy(out, &rs->goal);
    alea__out o;
    size_t vb = alea__mul_size(rs->F, sizeof(double));
    double *top = alea__mem_alloc(ctx, vb), *stay = alea__mem_alloc(ctx, vb);
    /* a row's texts: every die's face twice, and the words */
    size_t tb = alea__mul_size((size_t)rs->ndice, 2 * KEPT_BYTES) + 64;
    char *seen = alea__mem_alloc(ctx, tb), *choice = alea__mem_alloc(ctx, tb);
    if (st == ALEA_OK && (!top || !stay || !seen || !choice))
        st = alea__nomem(ctx);
    if (st == ALEA_OK)
        st = values_again(ctx, n, rs, top, stay);
    size_t rb = alea__mul_size(rs->F, sizeof(rr_row));
    rr_row *order = st == ALEA_OK ? alea__mem_alloc(ctx, rb) : NULL;
    if (st == ALEA_OK && !order)
        st = alea__nomem(ctx);
    /* the sort: F log F comparisons */
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)rs->F * (int64_t)(log2((double)rs->F + 1) + 1),
                          n->start, n->end);
    for (uint32_t fx = 0; fx < rs->F && st == ALEA_OK; fx++) {
        uint32_t x = full_to_state(rs, fx), k = rr_keep(rs, rs->rounds, fx);
        order[fx].kind = k == x ? 0 : state_size(rs, k) == 0 ? 2 : 1;
        order[fx].kept = order[fx].kind == 1 ? state_rank(rs, k) : 0;
        order[fx].seen = state_rank(rs, x);
        order[fx].fx = fx;
    }
    if (st == ALEA_OK)
        qsort(order, rs->F, sizeof *order, row_order);
    double total = 0;
    for (uint32_t i = 0; i < rs->F && st == ALEA_OK; i++) {
        uint32_t fx = order[i].fx;
        uint32_t x = full_to_state(rs, fx), k = rr_keep(rs, rs->rounds, fx);
        alea__out_init(&o, seen, tb);
        state_text(&o, rs, x, NULL);
        alea__out_finish(&o);
        alea__out_init(&o, choice, tb);
        if (k == x) {
            alea__out_str(&o, "keep all");
        } else if (state_size(rs, k) == 0) {
            alea__out_str(&o, "reroll all");
        } else {
            alea__out_str(&o, "keep ");
            state_text(&o, rs, k, NULL);
        }
        alea__out_finish(&o);
        double p = state_chance(rs, fx);
        total += p * top[fx];
        st = alea__policy_row(out, seen, choice, p, top[fx], stay[fx], NULL);
        if (st == ALEA_OK)
            st = alea__charge(ctx, (int64_t)rs->ndice * 4, n->start, n->end);
    }
    if (st == ALEA_OK)
        st = alea__policy_total(out, total, NULL);
    if (order)
        alea__mem_free(ctx, order, rb);
    alea__mem_free(ctx, top, vb);
    alea__mem_free(ctx, stay, vb);
    alea__mem_free(ctx, seen, tb);
    alea__mem_free(ctx, choice, tb);
    return st;
}

const alea__mech alea__mech_reroll = {
    .name = "reroll", .parse = reroll_parse, .words = words, .takes = ALEA__GOAL_TAKES,
    .print = reroll_print,
    .roll = reroll_roll, .exact = reroll_exact, .show = reroll_show,
    .show_json = reroll_show_json, .bounds = reroll_bounds, .policy = reroll_choices,
};
