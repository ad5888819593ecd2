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
 */
#include <math.h>
#include <string.h>

#include "dist.h"

/* Work units of one multiset's transition beyond its faces: ranking the
 * successor, a pass over the faces and the dice. */
#define RANK_COST 2

/* *out = wa * a + wb * (b shifted by shift); a or b may be empty. */
static alea_status mix(alea_ctx *ctx, const node *at, const alea__pmf *a, double wa,
                       const alea__pmf *b, int64_t shift, double wb, alea__pmf *out)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (wa > 0 && a->n) {
        lo = a->v[0];
        hi = a->v[a->n - 1];
    } else {
        wa = 0;
    }
    if (wb > 0 && b->n) {
        int64_t blo = b->v[0] + shift, bhi = b->v[b->n - 1] + shift; /* checked range */
        lo = blo < lo ? blo : lo;
        hi = bhi > hi ? bhi : hi;
    } else {
        wb = 0;
    }
    if (lo > hi)
        return alea__pmf_alloc(ctx, 0, out);
    size_t adds = (wa > 0 ? a->n : 0) + (wb > 0 ? b->n : 0);
    alea_status st = alea__charge(ctx, (int64_t)adds + 1, at->start, at->end);
    alea__acc acc;
    if (st != ALEA_OK || (st = alea__acc_init(&acc, ctx, at, lo, hi, (double)adds)) != ALEA_OK)
        return st;
    if ((wa > 0 && (st = alea__acc_add_pmf(&acc, a, 0, ALEA__W(wa))) != ALEA_OK) ||
        (wb > 0 && (st = alea__acc_add_pmf(&acc, b, shift, ALEA__W(wb))) != ALEA_OK)) {
        alea__acc_free(&acc);
        return st;
    }
    return alea__acc_finish(&acc, out);
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
    st = alea__pmf_point(ctx, 0, ALEA__W(1), &cur[0]);
    for (size_t i = 0; i < F && st == ALEA_OK; i++) {
        double left = (double)(F - i); /* faces not yet passed, this one included */
        size_t top = i + 1 < M ? i + 1 : M;
        for (size_t j = top + 1; j-- > 0 && st == ALEA_OK;) {
            /* stays at j: face i not taken; from j - 1: taken as die j - 1 */
            double stay = 1.0 - (double)(M - j) / left;
            double take = j ? (double)(M - (j - 1)) / left : 0;
            int64_t c = j && (int64_t)(j - 1) >= lo && (int64_t)(j - 1) < hi ? g[i] : 0;
            alea__pmf next;
            if ((st = mix(ctx, at, &cur[j], stay, j ? &cur[j - 1] : &cur[j], c, take,
                          &next)) != ALEA_OK)
                break;
            alea__pmf_free(ctx, &cur[j]);
            cur[j] = next;
        }
    }
    if (st == ALEA_OK) {
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
 * current multiset's counts and its sorted outcomes. */
typedef struct chain {
    size_t F, M;
    uint64_t *binom; /* binom[r * (F + M) + n] = C(n, r), r <= M, n < F + M */
    double *cur, *next;
    int64_t *c;      /* counts c[0..F) of the multiset */
    int64_t *idx;    /* its outcomes' indices, ascending, M of them */
    int64_t *vals;   /* their values */
    uint8_t *kept;
    double *w;       /* the outcomes' probabilities, summing to 1 */
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

static alea_status chain_dist(alea_ctx *ctx, const node *at, const alea__pmf *die,
                              const int64_t *g, int64_t m, int64_t lo, int64_t hi,
                              alea__pmf *out)
{
    const pool *p = at->u.pool;
    size_t F = die->n, M = (size_t)m, W = F + M;
    /* Each layer's multisets pass over the faces and rank a successor for
     * each; the last layer builds each pool's kept sum. The estimate goes
     * layer by layer, multisets(F, l + 1) from multisets(F, l), and stops
     * once past the work left, after at most about the square root of it
     * layers (each costs at least F + l): "10007d3u=1" must not spend the
     * time it refuses. */
    int64_t left = ctx->limits[ALEA_LIMIT_WORK] - ctx->work_used;
    double work = 0, last = 1; /* last: multisets(F, l) */
    size_t l = 0;
    for (; l < M && work <= (double)left; l++) {
        work += last * (double)F * (double)(F + l + RANK_COST);
        last = last * (double)(F + l) / (double)(l + 1);
    }
    if (l == M)
        work += last * (3.0 * (double)M + (double)F + (double)M * p->nselects);
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
    /* within the work limit, so every count below fits; one block: the
     * binomials, two layers, counts, indices and values, the weights (8
     * bytes each), then the guards and the kept flags */
    size_t nb = alea__mul_size(M + 1, W), layer = (size_t)last;
    size_t words = nb + 2 * layer + (F + 2 * M) + F;
    size_t size = alea__mul_size(words, 8) + F + M + 1;
    chain ch = {F, M, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    alea__acc acc;
    int acc_on = 0;
    alea_status st = ALEA_OK;
    uint64_t *block = size / 8 >= words ? alea__mem_alloc(ctx, size) : NULL;
    if (!block)
        return alea__nomem(ctx);
    ch.binom = block;
    ch.cur = (double *)(void *)(block + nb);
    ch.next = ch.cur + layer;
    ch.c = (int64_t *)(void *)(ch.next + layer);
    ch.idx = ch.c + F;
    ch.vals = ch.idx + M;
    ch.w = (double *)(void *)(ch.vals + M);
    ch.guard = (uint8_t *)(void *)(ch.w + F);
    ch.kept = ch.guard + F;
    for (size_t r = 0; r <= M; r++)
        for (size_t n = 0; n < W; n++) {
            uint64_t v = r == 0 ? 1 : n == 0 ? 0 : C(&ch, n - 1, r - 1) + C(&ch, n - 1, r);
            ch.binom[r * W + n] = v > UINT64_MAX / 4 ? UINT64_MAX / 4 : v; /* unused if so */
        }
    double mass = alea__pmf_mass(die);
    for (size_t i = 0; i < F; i++) {
        ch.w[i] = die->p[i] / mass;
        ch.guard[i] = (uint8_t)(!p->has_unique_cond ||
                                alea__cond_match(&p->unique_cond, die->v[i]));
    }
    ch.cur[0] = 1.0;
    for (size_t k = 0; k < M; k++) {
        size_t n1 = (size_t)multisets(F, k + 1);
        memset(ch.next, 0, n1 * sizeof(double));
        memset(ch.c, 0, F * sizeof(int64_t));
        ch.c[0] = (int64_t)k;
        do {
            if ((st = alea__charge(ctx, (int64_t)(F * (F + k + RANK_COST)), at->start,
                                   at->end)) != ALEA_OK)
                goto done;
            double pr = ch.cur[rank(&ch, F)];
            if (pr == 0)
                continue;
            double blocked = 0, open = 0; /* the weight of faces rolled again, and not */
            for (size_t i = 0; i < F; i++)
                *(ch.c[i] && ch.guard[i] ? &blocked : &open) += ch.w[i];
            if (p->unique == UNIQUE_ALL && !(open > 0)) {
                st = alea__broken(ctx, at->start, at->end, "'u' with every face shown");
                goto done;
            }
            for (size_t i = 0; i < F; i++) {
                int shut = ch.c[i] && ch.guard[i];
                double q = p->unique == UNIQUE_ONCE ? (shut ? 0 : ch.w[i]) + blocked * ch.w[i]
                                                    : shut ? 0 : ch.w[i] / open;
                if (q > 0)
                    ch.next[rank(&ch, i)] += pr * q;
            }
        } while (next_multiset(ch.c, F));
        double *t = ch.cur;
        ch.cur = ch.next;
        ch.next = t;
    }
    int64_t gmin = 0, gmax = 0, smin, smax;
    for (size_t i = 0; i < F; i++) {
        gmin = g[i] < gmin ? g[i] : gmin;
        gmax = g[i] > gmax ? g[i] : gmax;
    }
    if (alea__mul_ovf(m, gmin, &smin) || alea__mul_ovf(m, gmax, &smax)) {
        st = alea__overflow_error(ctx, at);
        goto done;
    }
    if ((st = alea__acc_init(&acc, ctx, at, smin, smax, last)) != ALEA_OK)
        goto done;
    acc_on = 1;
    memset(ch.c, 0, F * sizeof(int64_t));
    ch.c[0] = (int64_t)M;
    do {
        if ((st = alea__charge(ctx, (int64_t)(3 * M + F + M * p->nselects), at->start,
                               at->end)) != ALEA_OK)
            goto done;
        double pr = ch.cur[rank(&ch, F)];
        if (pr == 0)
            continue;
        size_t t = 0;
        for (size_t i = 0; i < F; i++)
            for (int64_t q = 0; q < ch.c[i]; q++, t++) {
                ch.idx[t] = (int64_t)i;
                ch.vals[t] = die->v[i];
            }
        for (size_t k = 0; k < M; k++)
            ch.kept[k] = (int64_t)k >= lo && (int64_t)k < hi;
        alea__select_apply(p, ch.vals, M, ch.kept);
        int64_t sum = 0; /* within [smin, smax] */
        for (size_t k = 0; k < M; k++)
            if (ch.kept[k])
                sum += g[ch.idx[k]];
        if ((st = alea__acc_add(&acc, sum, ALEA__W(pr))) != ALEA_OK)
            goto done;
    } while (next_multiset(ch.c, F));
    acc_on = 0;
    st = alea__acc_finish(&acc, out);
done:
    if (acc_on)
        alea__acc_free(&acc);
    alea__mem_free(ctx, block, size);
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
    int equal = 1, all = 1;
    for (size_t i = 0; i < die->n; i++) {
        gv[i] = g ? g[i] : die->v[i];
        equal &= die->p[i] == die->p[0];
        all &= !p->has_unique_cond || alea__cond_match(&p->unique_cond, die->v[i]);
    }
    alea_status st;
    if (m == 0)
        st = alea__pmf_point(ctx, 0, ALEA__W(1), out);
    else if (p->unique == UNIQUE_ALL && all && (size_t)m > die->n)
        st = alea__broken(ctx, n->start, n->end, "'u' on more dice than faces");
    else if (p->unique == UNIQUE_ALL && all && equal && !p->nselects)
        st = uniform_set(ctx, n, die, gv, m, lo, hi, out);
    else
        st = chain_dist(ctx, n, die, gv, m, lo, hi, out);
    alea__mem_free(ctx, gv, gsize);
    return st;
}
