/*
 * unique.c -- the exact distribution of a pool with unique ("u", "uo";
 * rpg-dice-roller's): the dice in order, a face that an earlier die shows
 * (and the condition matches, when given) rolled again until it is new
 * ("u") or once ("uo"); then keep, drop, selections and success counts.
 *
 * Two methods, both exact:
 *
 * - "u" with every face kept apart on a die whose faces are equally likely:
 *   each die is uniform over the faces not yet shown, so the dice are a
 *   uniform random set of N distinct faces. Walking the faces in ascending
 *   order, face i of F joins the set with probability (N - j) / (F - i)
 *   when j have joined (selection sampling), and it is then the die at
 *   sorted position j: a dynamic programme over (j, the kept sum), F * N
 *   steps, each over one distribution.
 *
 * - Otherwise ("uo", a condition, faces of unequal weight), what a die can
 *   show depends on the faces already shown, so the state is the multiset
 *   of faces shown so far: a Markov chain over multisets of k faces,
 *   k = 0 .. N, ranked by the combinatorial number system into dense
 *   arrays. Its cost, the multisets times the faces, is checked against
 *   the work budget before it starts; beyond it the WORK limit error.
 *
 * Both are written once over weights (weight.h): the faces' chances given
 * those shown and the chain's layers are fractions in exact mode and
 * doubles otherwise; the set walk weighs by the ratios in doubles and, in
 * exact mode, counts the sets in whole numbers and divides once.
 */
#include <math.h>
#include <string.h>

#include "unique.h"
#include "pmf.h"
#include "pool.h"

/* Work units of one multiset's transition beyond its faces: ranking the
 * successor, a pass over the faces and the dice. */
#define RANK_COST 2

/* Work (about a byte of digits a unit) after which a layer of fractions
 * being summed is counted in the memory limit again: 4 MB at most unseen. */
#define SEAL_WORK (1 << 22)

/* A weight above 0 (a ratio being computed, or a double), or 0: the weight
 * of a state that cannot be reached is passed as ALEA__W(0). */
static int positive(alea__w w)
{
    return w.q != NULL || w.d > 0;
}

/* *out = wa * a + wb * (b shifted by shift); a or b may be empty. */
static alea_status mix(alea_ctx *ctx, const node *at, const alea__pmf *a, alea__w wa,
                       const alea__pmf *b, int64_t shift, alea__w wb, alea__pmf *out)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int use_a = positive(wa) && a->n, use_b = positive(wb) && b->n;
    if (use_a) {
        lo = a->v[0];
        hi = a->v[a->n - 1];
    }
    if (use_b) {
        int64_t blo = b->v[0] + shift, bhi = b->v[b->n - 1] + shift; /* checked range */
        lo = blo < lo ? blo : lo;
        hi = bhi > hi ? bhi : hi;
    }
    if (lo > hi)
        return alea__pmf_alloc(ctx, 0, out);
    size_t adds = (use_a ? a->n : 0) + (use_b ? b->n : 0);
    alea_status st = alea__charge(ctx, (int64_t)adds + 1, at->start, at->end);
    alea__acc acc;
    if (st != ALEA_OK || (st = alea__acc_init(&acc, ctx, at, lo, hi, (double)adds)) != ALEA_OK)
        return st;
    if ((use_a && (st = alea__acc_add_pmf(&acc, a, 0, wa)) != ALEA_OK) ||
        (use_b && (st = alea__acc_add_pmf(&acc, b, shift, wb)) != ALEA_OK)) {
        alea__acc_free(&acc);
        return st;
    }
    return alea__acc_finish(&acc, out);
}

/* x = num / den in the context's number system; left at 1 and not to be
 * used when num <= 0 (the weight is then ALEA__W(0)). */
static alea_status ratio(alea_ctx *ctx, const node *at, int64_t num, int64_t den, alea__x *x)
{
    alea__x_init(ctx, x);
    return num > 0 ? alea__x_ratio(ctx, x, (uint64_t)num, (uint64_t)den, at) : ALEA_OK;
}

/* "u" on equally likely faces: the uniform random set of m faces. */
static alea_status uniform_set(alea_ctx *ctx, const node *at, const alea__pmf *die,
                               const int64_t *g, int64_t m, int64_t lo, int64_t hi,
                               alea__pmf *out)
{
    size_t F = die->n, M = (size_t)m;
    int64_t gmin = 0, gmax = 0, smin, smax;
    for (size_t i = 0; i < F; i++) {
        gmin = g[i] < gmin ? g[i] : gmin;
        gmax = g[i] > gmax ? g[i] : gmax;
    }
    if (alea__mul_ovf(m, gmin, &smin) || alea__mul_ovf(m, gmax, &smax))
        return alea__overflow_error(ctx, at); /* every partial sum lies between */
    /* F * (M + 1) steps, each a pass over two distributions (charged as
     * they go) */
    alea_status st = alea__work_check(ctx, (double)F * (double)(M + 1) * 4, at);
    if (st != ALEA_OK)
        return st;
    size_t size = alea__mul_size(M + 1, sizeof(alea__pmf));
    alea__pmf *cur = alea__mem_alloc(ctx, size);
    if (!cur)
        return alea__nomem(ctx);
    memset(cur, 0, size);
    /* In exact mode the walk counts the sets (whole numbers: their sums
     * need no gcd, several times faster than the ratios' fractions) and
     * divides by C(F, N) at the end; in doubles the counts could pass the
     * double range, so each step weighs by its ratio. */
    int count = ctx->exact;
    st = alea__pmf_point(ctx, 0, ALEA__W(1), &cur[0]);
    for (size_t i = 0; i < F && st == ALEA_OK; i++) {
        int64_t left = (int64_t)(F - i); /* faces not yet passed, this one included */
        size_t top = i + 1 < M ? i + 1 : M;
        for (size_t j = top + 1; j-- > 0 && st == ALEA_OK;) {
            /* stays at j: face i not taken, (left - (M - j)) / left (0 when
             * the faces left are all needed); from j - 1: taken as die
             * j - 1, (M - (j - 1)) / left */
            int64_t need = (int64_t)(M - j);
            int64_t c = j && (int64_t)(j - 1) >= lo && (int64_t)(j - 1) < hi ? g[i] : 0;
            int use_stay = left > need && cur[j].n, use_take = j && cur[j - 1].n;
            if (!use_stay && !cur[j].n && !use_take)
                continue; /* stays empty: no weights to make */
            alea__x stay, take;
            st = ratio(ctx, at, use_stay && !count ? left - need : 0, left, &stay);
            alea_status st2 = ratio(ctx, at, use_take && !count ? need + 1 : 0, left, &take);
            st = st != ALEA_OK ? st : st2;
            alea__w ws = !use_stay ? ALEA__W(0) : count ? ALEA__W(1) : alea__x_w(&stay);
            alea__w wt = !use_take ? ALEA__W(0) : count ? ALEA__W(1) : alea__x_w(&take);
            alea__pmf next;
            if (st == ALEA_OK)
                st = mix(ctx, at, &cur[j], ws, j ? &cur[j - 1] : &cur[j], c, wt, &next);
            alea__x_free(ctx, &stay);
            alea__x_free(ctx, &take);
            if (st != ALEA_OK)
                break;
            alea__pmf_free(ctx, &cur[j]);
            cur[j] = next;
        }
    }
    if (st == ALEA_OK && count) {
        /* 1 / C(F, N) = prod over t < N of (t + 1) / (F - t) */
        alea__x inv;
        alea__x_init(ctx, &inv);
        for (size_t t = 0; t < M && st == ALEA_OK; t++)
            st = alea__x_ratio(ctx, &inv, (uint64_t)t + 1, (uint64_t)(F - t), at);
        if (st == ALEA_OK)
            st = mix(ctx, at, &cur[M], alea__x_w(&inv), &cur[M], 0, ALEA__W(0), out);
        alea__x_free(ctx, &inv);
    } else if (st == ALEA_OK) {
        *out = cur[M];
        cur[M].n = 0;
    }
    for (size_t j = 0; j <= M; j++)
        alea__pmf_free(ctx, &cur[j]);
    alea__mem_free(ctx, cur, size);
    return st;
}

/* ---- the chain over multisets ---- */

/* The chain's tables: binomials, the two layers of probabilities, the
 * current multiset's counts and its sorted outcomes. In exact mode the
 * layers' fractions are pmfs beside the doubles (their values unused), so
 * that their digits are counted in the context's memory. */
typedef struct chain {
    size_t F, M;
    uint64_t *binom; /* binom[r * (F + M) + n] = C(n, r), r <= M, n < F + M */
    double *cur, *next;
    alea__pmf qcur, qnext; /* exact mode: the layers in fractions */
    int64_t *c;      /* counts c[0..F) of the multiset */
    int64_t *idx;    /* its outcomes' indices, ascending, M of them */
    int64_t *vals;   /* their values */
    uint8_t *kept;
    alea__x *w;      /* the outcomes' probabilities, summing to 1 */
    uint8_t *guard;  /* outcome i must be kept apart (the condition) */
} chain;

static uint64_t C(const chain *ch, size_t n, size_t r)
{
    return ch->binom[r * (ch->F + ch->M) + n];
}

/* The rank of the multiset c of k faces: its outcomes a_1 <= ... <= a_k,
 * sum of C(a_t + t - 1, t). With face `plus` added (or F: none). */
static uint64_t rank(const chain *ch, size_t plus)
{
    uint64_t r = 0;
    size_t t = 1;
    for (size_t i = 0; i < ch->F; i++) {
        int64_t k = ch->c[i] + (i == plus);
        for (int64_t q = 0; q < k; q++, t++)
            r += C(ch, i + t - 1, t);
    }
    return r;
}

/* The probability of multiset r of the current layer, as a weight. */
static alea__w layer_w(const chain *ch, uint64_t r)
{
    return (alea__w){ch->cur[r], ch->qcur.q ? &ch->qcur.q[r] : NULL};
}

static int layer_zero(alea_ctx *ctx, const chain *ch, uint64_t r)
{
    return alea__w_is_zero(ctx, layer_w(ch, r));
}

/* Multiset r of the next layer += pr q. */
static alea_status layer_add(alea_ctx *ctx, const node *at, chain *ch, uint64_t r, alea__w pr,
                             alea__w q)
{
    ch->next[r] += pr.d * q.d;
    return ch->qnext.q ? alea__pmf_addmul(ctx, &ch->qnext, r, pr, q, at) : ALEA_OK;
}

/* The next layer of n multisets, all 0 (in exact mode a new pmf of
 * fractions; the current one's digits are given back). */
static alea_status layer_next(alea_ctx *ctx, chain *ch, size_t n)
{
    memset(ch->next, 0, n * sizeof(double));
    if (!ctx->exact)
        return ALEA_OK;
    alea__pmf_free(ctx, &ch->qnext);
    return alea__pmf_alloc(ctx, n, &ch->qnext);
}

/* The layer just made becomes the current one (in exact mode its digits
 * are counted first). */
static alea_status layer_swap(alea_ctx *ctx, const node *at, chain *ch)
{
    double *t = ch->cur;
    ch->cur = ch->next;
    ch->next = t;
    if (!ctx->exact)
        return ALEA_OK;
    alea__pmf tq = ch->qcur;
    ch->qcur = ch->qnext;
    ch->qnext = tq;
    return alea__pmf_seal(ctx, &ch->qcur, at);
}

/* The next multiset of the same size (compositions in turn, as select.c
 * walks them); 0 after the last. */
static int next_multiset(int64_t *c, size_t F)
{
    size_t j = 0;
    while (j + 1 < F && c[j] == 0)
        j++;
    if (j + 1 >= F)
        return 0;
    int64_t t = c[j];
    c[j] = 0;
    c[0] = t - 1;
    c[j + 1]++;
    return 1;
}

/* Multisets of k faces out of F, as a double (C(F + k - 1, k)). */
static double multisets(size_t F, size_t k)
{
    double count = 1;
    for (size_t t = 1; t <= k && count < 1e300; t++)
        count = count * (double)(F - 1 + t) / (double)t;
    return count;
}

/* ch->w: the die's outcomes' probabilities divided by their mass. */
static alea_status chain_weights(alea_ctx *ctx, const node *at, const alea__pmf *die, chain *ch)
{
    alea__x mass;
    alea__x_init(ctx, &mass);
    alea_status st = alea__x_mul(ctx, &mass, ALEA__W(0), at);
    for (size_t i = 0; i < die->n && st == ALEA_OK; i++)
        st = alea__x_addmul(ctx, &mass, alea__pmf_w(die, i), ALEA__W(1), at);
    for (size_t i = 0; i < die->n && st == ALEA_OK; i++)
        if ((st = alea__x_mul(ctx, &ch->w[i], alea__pmf_w(die, i), at)) == ALEA_OK)
            st = alea__x_div(ctx, &ch->w[i], alea__x_w(&mass), at);
    alea__x_free(ctx, &mass);
    return st;
}

/* From multiset ch->c (probability pr) one more die: each face's chance
 * into the next layer. A face not blocked comes with pr w_i / open ("u")
 * or pr w_i (1 + blocked) ("uo": at once, or rolled again onto it); a
 * blocked face with pr w_i blocked ("uo") or never ("u"). The factors
 * by pr are made once, so a face costs one product. */
static alea_status chain_step(alea_ctx *ctx, const node *at, chain *ch, alea__w pr)
{
    const pool *p = at->u.pool;
    size_t F = ch->F;
    int any_open = 0;
    alea__x blocked, open, a, b; /* a: a face not blocked, b: one blocked */
    alea__x_init(ctx, &blocked);
    alea__x_init(ctx, &open);
    alea__x_init(ctx, &a);
    alea__x_init(ctx, &b);
    alea_status st = alea__x_mul(ctx, &blocked, ALEA__W(0), at);
    if (st == ALEA_OK)
        st = alea__x_mul(ctx, &open, ALEA__W(0), at);
    for (size_t i = 0; i < F && st == ALEA_OK; i++) {
        int shut = ch->c[i] && ch->guard[i];
        any_open |= !shut;
        st = alea__x_addmul(ctx, shut ? &blocked : &open, alea__x_w(&ch->w[i]), ALEA__W(1),
                            at);
    }
    if (st == ALEA_OK && p->unique == UNIQUE_ALL && !any_open)
        st = alea__broken(ctx, at->start, at->end, "'u' with every face shown");
    if (st == ALEA_OK)
        st = alea__x_mul(ctx, &a, pr, at);
    if (st == ALEA_OK && p->unique == UNIQUE_ALL) {
        st = alea__x_div(ctx, &a, alea__x_w(&open), at);
    } else if (st == ALEA_OK) {
        if ((st = alea__x_addmul(ctx, &a, pr, alea__x_w(&blocked), at)) == ALEA_OK &&
            (st = alea__x_mul(ctx, &b, pr, at)) == ALEA_OK)
            st = alea__x_mul(ctx, &b, alea__x_w(&blocked), at);
    }
    for (size_t i = 0; i < F && st == ALEA_OK; i++) {
        int shut = ch->c[i] && ch->guard[i];
        if (!(shut && p->unique == UNIQUE_ALL))
            st = layer_add(ctx, at, ch, rank(ch, i), alea__x_w(shut ? &b : &a),
                           alea__x_w(&ch->w[i]));
    }
    alea__x_free(ctx, &blocked);
    alea__x_free(ctx, &open);
    alea__x_free(ctx, &a);
    alea__x_free(ctx, &b);
    return st;
}

/* The chain's work over m dice of F faces, checked before anything is
 * allocated; *last: the multisets of the last layer (the size of a layer). */
static alea_status chain_estimate(alea_ctx *ctx, const node *at, size_t F, size_t M,
                                  double *last_out)
{
    const pool *p = at->u.pool;
    /* Each layer's multisets pass over the faces and rank a successor for
     * each; the last layer builds each pool's kept sum. The estimate goes
     * layer by layer, multisets(F, l + 1) from multisets(F, l), and stops
     * once past the work left, after at most about the square root of it
     * layers (each costs at least F + l): "10007d3u=1" must not spend the
     * time it refuses. In exact mode a face's step is two operations on
     * fractions, each at least ALEA__FRAC_UNIT (more as the digits grow,
     * charged as they go). */
    double frac = ctx->exact ? 2.0 * ALEA__FRAC_UNIT : 0;
    int64_t left = ctx->limits[ALEA_LIMIT_WORK] - ctx->work_used;
    double work = 0, last = 1; /* last: multisets(F, l) */
    size_t l = 0;
    for (; l < M && work <= (double)left; l++) {
        work += last * (double)F * ((double)(F + l + RANK_COST) + frac);
        last = last * (double)(F + l) / (double)(l + 1);
    }
    if (l == M)
        work += last * (3.0 * (double)M + (double)F + (double)M * p->nselects + frac / 4);
    /* the count the error names: the last layer's, or as far as a million
     * more multiplications reach */
    for (size_t more = 0; l < M && more < 1000000 && last < 1e300; l++, more++)
        last = last * (double)(F + l) / (double)(l + 1);
    if (!(work <= (double)left))
        return alea__error(ctx, ALEA_ERR_LIMIT, at->start, at->end,
                           "too much work to compute at byte %u (work limit is %lld): "
                           "unique on %zu dice of %zu faces walks %s%.3g multisets of "
                           "faces; only 'u' on every face of a fair die is cheap",
                           (unsigned)at->start, (long long)ctx->limits[ALEA_LIMIT_WORK], M,
                           F, l < M ? "more than " : "", last);
    *last_out = last;
    return ALEA_OK;
}

/* The layers of multisets of 0, 1, ..., M dice, each from the one before:
 * ch->cur ends with the probability of every multiset of M outcomes. */
static alea_status chain_layers(alea_ctx *ctx, const node *at, const alea__pmf *die, chain *ch)
{
    size_t F = ch->F, M = ch->M;
    alea_status st;
    /* the first layer: the empty multiset, certain */
    if ((st = chain_weights(ctx, at, die, ch)) != ALEA_OK ||
        (st = layer_next(ctx, ch, 1)) != ALEA_OK)
        return st;
    ch->next[0] = 1;
    if ((ch->qnext.q && (st = alea__pmf_set_w(ctx, &ch->qnext, 0, ALEA__W(1), at)) != ALEA_OK) ||
        (st = layer_swap(ctx, at, ch)) != ALEA_OK)
        return st;
    for (size_t k = 0; k < M; k++) {
        size_t n1 = (size_t)multisets(F, k + 1);
        if ((st = layer_next(ctx, ch, n1)) != ALEA_OK)
            return st;
        memset(ch->c, 0, F * sizeof(int64_t));
        ch->c[0] = (int64_t)k;
        int64_t mark = ctx->work_used;
        do {
            if ((st = alea__charge(ctx, (int64_t)(F * (F + k + RANK_COST)), at->start,
                                   at->end)) != ALEA_OK)
                return st;
            uint64_t r = rank(ch, F);
            if (!layer_zero(ctx, ch, r) &&
                (st = chain_step(ctx, at, ch, layer_w(ch, r))) != ALEA_OK)
                return st;
            /* A sum's digits grow by at most the limbs its products were
             * charged for (a byte or less a work unit): the layer's digits
             * are counted in the memory limit again once the work since
             * passes SEAL_WORK and four times what counting them costs. */
            if (ch->qnext.q && ctx->work_used - mark > SEAL_WORK &&
                (double)(ctx->work_used - mark) > 4.0 * (double)(n1 + ch->qnext.qbytes / 8)) {
                if ((st = alea__pmf_seal(ctx, &ch->qnext, at)) != ALEA_OK)
                    return st;
                mark = ctx->work_used;
            }
        } while (next_multiset(ch->c, F));
        if ((st = layer_swap(ctx, at, ch)) != ALEA_OK)
            return st;
    }
    return ALEA_OK;
}

/* Every pool of the last layer (last multisets): its kept dice (positions
 * [lo, hi), then the selections), their contributions g summed, into out. */
static alea_status chain_sums(alea_ctx *ctx, const node *at, const alea__pmf *die, chain *ch,
                              const int64_t *g, int64_t lo, int64_t hi, double last,
                              alea__pmf *out)
{
    const pool *p = at->u.pool;
    size_t F = ch->F, M = ch->M;
    int64_t gmin = 0, gmax = 0, smin, smax;
    for (size_t i = 0; i < F; i++) {
        gmin = g[i] < gmin ? g[i] : gmin;
        gmax = g[i] > gmax ? g[i] : gmax;
    }
    if (alea__mul_ovf((int64_t)M, gmin, &smin) || alea__mul_ovf((int64_t)M, gmax, &smax))
        return alea__overflow_error(ctx, at);
    alea__acc acc;
    alea_status st = alea__acc_init(&acc, ctx, at, smin, smax, last);
    if (st != ALEA_OK)
        return st;
    memset(ch->c, 0, F * sizeof(int64_t));
    ch->c[0] = (int64_t)M;
    do {
        if ((st = alea__charge(ctx, (int64_t)(3 * M + F + M * p->nselects), at->start,
                               at->end)) != ALEA_OK)
            break;
        uint64_t r = rank(ch, F);
        if (layer_zero(ctx, ch, r))
            continue;
        size_t t = 0;
        for (size_t i = 0; i < F; i++)
            for (int64_t q = 0; q < ch->c[i]; q++, t++) {
                ch->idx[t] = (int64_t)i;
                ch->vals[t] = die->v[i];
            }
        for (size_t k = 0; k < M; k++)
            ch->kept[k] = (int64_t)k >= lo && (int64_t)k < hi;
        alea__select_apply(p, ch->vals, M, ch->kept);
        int64_t sum = 0; /* within [smin, smax] */
        for (size_t k = 0; k < M; k++)
            if (ch->kept[k])
                sum += g[ch->idx[k]];
        if ((st = alea__acc_add(&acc, sum, layer_w(ch, r))) != ALEA_OK)
            break;
    } while (next_multiset(ch->c, F));
    if (st != ALEA_OK) {
        alea__acc_free(&acc);
        return st;
    }
    return alea__acc_finish(&acc, out);
}

static alea_status chain_dist(alea_ctx *ctx, const node *at, const alea__pmf *die,
                              const int64_t *g, int64_t m, int64_t lo, int64_t hi,
                              alea__pmf *out)
{
    const pool *p = at->u.pool;
    size_t F = die->n, M = (size_t)m, W = F + M;
    double last = 0;
    alea_status st = chain_estimate(ctx, at, F, M, &last);
    if (st != ALEA_OK)
        return st;
    /* within the work limit, so every count below fits; one block: the
     * binomials, two layers, counts, indices and values (8 bytes each),
     * then the guards and the kept flags */
    size_t nb = alea__mul_size(M + 1, W), layer = (size_t)last;
    size_t words = nb + 2 * layer + (F + 2 * M);
    size_t size = alea__mul_size(words, 8) + F + M + 1;
    size_t wsize = alea__mul_size(F, sizeof(alea__x));
    chain ch;
    memset(&ch, 0, sizeof ch);
    ch.F = F;
    ch.M = M;
    uint64_t *block = size / 8 >= words ? alea__mem_alloc(ctx, size) : NULL;
    ch.w = block ? alea__mem_alloc(ctx, wsize) : NULL;
    if (!ch.w) {
        if (block)
            alea__mem_free(ctx, block, size);
        return alea__nomem(ctx);
    }
    for (size_t i = 0; i < F; i++)
        alea__x_init(ctx, &ch.w[i]);
    ch.binom = block;
    ch.cur = (double *)(void *)(block + nb);
    ch.next = ch.cur + layer;
    ch.c = (int64_t *)(void *)(ch.next + layer);
    ch.idx = ch.c + F;
    ch.vals = ch.idx + M;
    ch.guard = (uint8_t *)(void *)(ch.vals + M);
    ch.kept = ch.guard + F;
    for (size_t r = 0; r <= M; r++)
        for (size_t n = 0; n < W; n++) {
            uint64_t v = r == 0 ? 1 : n == 0 ? 0 : C(&ch, n - 1, r - 1) + C(&ch, n - 1, r);
            ch.binom[r * W + n] = v > UINT64_MAX / 4 ? UINT64_MAX / 4 : v; /* unused if so */
        }
    for (size_t i = 0; i < F; i++)
        ch.guard[i] = (uint8_t)(!p->has_unique_cond ||
                                alea__cond_match(&p->unique_cond, die->v[i]));
    if ((st = chain_layers(ctx, at, die, &ch)) == ALEA_OK)
        st = chain_sums(ctx, at, die, &ch, g, lo, hi, last, out);
    alea__pmf_free(ctx, &ch.qcur);
    alea__pmf_free(ctx, &ch.qnext);
    for (size_t i = 0; i < F; i++)
        alea__x_free(ctx, &ch.w[i]);
    alea__mem_free(ctx, ch.w, wsize);
    alea__mem_free(ctx, block, size);
    return st;
}

/* Whether outcome i of die is as likely as outcome 0: the doubles, and in
 * exact mode the fractions (two near fractions can share a double). */
static alea_status same_weight(alea_ctx *ctx, const node *at, const alea__pmf *die, size_t i,
                               int *same)
{
    *same = die->p[i] == die->p[0];
    if (!*same || !die->q)
        return ALEA_OK;
    alea__x x;
    alea__x_init(ctx, &x);
    alea_status st = alea__x_mul(ctx, &x, alea__pmf_w(die, i), at);
    if (st == ALEA_OK && (st = alea__x_addmul(ctx, &x, alea__pmf_w(die, 0), ALEA__W(-1), at)) ==
                             ALEA_OK)
        *same = alea__x_is_zero(ctx, &x);
    alea__x_free(ctx, &x);
    return st;
}

alea_status alea__unique_dist(alea_ctx *ctx, const node *n, const alea__pmf *die,
                              const int64_t *g, alea__pmf *out)
{
    const pool *p = n->u.pool;
    if (p->count_expr || p->sides_expr || p->extra || p->has_reroll || p->has_reroll_one ||
        p->explode != EXPLODE_NONE || ALEA__CLAMPED(p) || p->count < 0)
        return alea__broken(ctx, n->start, n->end,
                            "unique with a reroll, explosion, clamp, extra dice or a rolled "
                            "count or sides");
    int64_t m = p->count, lo, hi;
    alea__pool_keep_range(p, m, &lo, &hi);
    size_t gsize = alea__mul_size(die->n ? die->n : 1, sizeof(int64_t));
    int64_t *gv = alea__mem_alloc(ctx, gsize);
    if (!gv)
        return alea__nomem(ctx);
    int equal = 1, all = 1, same;
    alea_status st = ALEA_OK;
    for (size_t i = 0; i < die->n && st == ALEA_OK; i++) {
        gv[i] = g ? g[i] : die->v[i];
        st = same_weight(ctx, n, die, i, &same);
        equal &= same;
        all &= !p->has_unique_cond || alea__cond_match(&p->unique_cond, die->v[i]);
    }
    if (st == ALEA_OK && m == 0)
        st = alea__pmf_point(ctx, 0, ALEA__W(1), out);
    else if (st == ALEA_OK && p->unique == UNIQUE_ALL && all && (size_t)m > die->n)
        st = alea__broken(ctx, n->start, n->end, "'u' on more dice than faces");
    else if (st == ALEA_OK && p->unique == UNIQUE_ALL && all && equal && !p->nselects)
        st = uniform_set(ctx, n, die, gv, m, lo, hi, out);
    else if (st == ALEA_OK)
        st = chain_dist(ctx, n, die, gv, m, lo, hi, out);
    alea__mem_free(ctx, gv, gsize);
    return st;
}
