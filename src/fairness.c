/*
 * fairness.c -- are these rolls what fair dice give? (alea_fairness_*)
 *
 * Each roll is placed in its expression's exact distribution by a
 * randomised probability integral transform, u uniform on [0, 1) for fair
 * dice; the mean of u and its spread (Kolmogorov-Smirnov) are tested over
 * every roll, and each expression's counts against its distribution by a
 * chi-square. The p-values come from libm alone (erfc, log, exp), so the
 * module builds wherever the library does (WebAssembly too); the tests
 * check them against GSL.
 */
#include "fairness.h"

#include "dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Work units of one placement: the hash of the text (a unit a byte) is
 * charged apart; this is the binary search and the bookkeeping. */
#define PLACE_UNIT 16

/* A cell's least expected count, less the rounding of its sum: 36 rolls of
 * 2d6 expect 36 * 5/36 = 5 eights, which sums to 4.9999999999999991. */
#define EXPECTED (ALEA_FAIRNESS_EXPECTED * (1 - 1e-9))

typedef struct ranked {
    double p;
    size_t i;
} ranked;

typedef struct entry {
    char *text; /* NUL-terminated copy */
    size_t len;
    uint64_t hash;
    alea_dist *dist;
    double mass;      /* the probabilities listed, summed */
    uint64_t *counts; /* a count per outcome */
    size_t n;         /* outcomes */
    int64_t rolls;
} entry;

struct alea_fairness {
    alea_ctx *ctx;
    uint64_t rng; /* splitmix64 state: V of each placement */
    entry *entries;
    size_t nentries, cap;
    uint32_t *slots; /* open addressing: entry index + 1, 0 empty */
    size_t nslots;
    int64_t limit;
    uint64_t *bins; /* ALEA_FAIRNESS_BINS counts of u */
    double usum, ucomp; /* sum of u, Neumaier's compensation */
    int64_t rolls, refused;
    alea_fairness_test *tests;
    ranked *order; /* Holm's ranks, as many as tests */
    size_t tests_cap;
    char text[160];
};

static uint64_t next_random(alea_fairness *f)
{
    uint64_t z = (f->rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

alea_fairness *alea_fairness_new(alea_ctx *ctx, uint64_t seed)
{
    if (!ctx)
        return NULL;
    alea_fairness *f = alea__mem_alloc(ctx, sizeof *f);
    if (!f) {
        alea__nomem(ctx);
        return NULL;
    }
    memset(f, 0, sizeof *f);
    f->ctx = ctx;
    f->rng = seed;
    f->limit = ALEA_FAIRNESS_EXPRESSIONS;
    f->bins = alea__mem_alloc(ctx, ALEA_FAIRNESS_BINS * sizeof *f->bins);
    if (!f->bins) {
        alea__mem_free(ctx, f, sizeof *f);
        alea__nomem(ctx);
        return NULL;
    }
    memset(f->bins, 0, ALEA_FAIRNESS_BINS * sizeof *f->bins);
    return f;
}

void alea_fairness_free(alea_fairness *f)
{
    if (!f)
        return;
    alea_ctx *ctx = f->ctx;
    for (size_t i = 0; i < f->nentries; i++) {
        entry *e = &f->entries[i];
        alea__mem_free(ctx, e->text, e->len + 1);
        alea__mem_free(ctx, e->counts, e->n * sizeof *e->counts);
        alea_dist_free(e->dist);
    }
    alea__mem_free(ctx, f->entries, f->cap * sizeof *f->entries);
    alea__mem_free(ctx, f->slots, f->nslots * sizeof *f->slots);
    alea__mem_free(ctx, f->bins, ALEA_FAIRNESS_BINS * sizeof *f->bins);
    alea__mem_free(ctx, f->tests, f->tests_cap * sizeof *f->tests);
    alea__mem_free(ctx, f->order, f->tests_cap * sizeof *f->order);
    alea__mem_free(ctx, f, sizeof *f);
}

int64_t alea_fairness_limit(alea_fairness *f, int64_t value)
{
    if (!f)
        return -1;
    int64_t old = f->limit;
    if (value >= 0) {
        if (value > ALEA_FAIRNESS_EXPRESSIONS_MAX)
            value = ALEA_FAIRNESS_EXPRESSIONS_MAX;
        if (value < (int64_t)f->nentries)
            value = (int64_t)f->nentries;
        f->limit = value;
    }
    return old;
}

static uint64_t hash_text(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
    return h;
}

/* The slot of text: its entry's, or the empty one it would take. */
static size_t find_slot(const alea_fairness *f, const char *s, size_t len, uint64_t h)
{
    size_t mask = f->nslots - 1, i = (size_t)h & mask;
    for (;;) {
        uint32_t k = f->slots[i];
        if (!k)
            return i;
        const entry *e = &f->entries[k - 1];
        if (e->hash == h && e->len == len && !memcmp(e->text, s, len))
            return i;
        i = (i + 1) & mask;
    }
}

/* Room for one more entry: the entries array and a table at most half full. */
static alea_status grow(alea_fairness *f)
{
    alea_ctx *ctx = f->ctx;
    if (f->nentries == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        entry *ne = alea__mem_realloc(ctx, f->entries, f->cap * sizeof *ne, cap * sizeof *ne);
        if (!ne)
            return alea__nomem(ctx);
        f->entries = ne;
        f->cap = cap;
    }
    if (2 * (f->nentries + 1) > f->nslots) {
        size_t ns = f->nslots ? 2 * f->nslots : 16;
        uint32_t *slots = alea__mem_alloc(ctx, ns * sizeof *slots);
        if (!slots)
            return alea__nomem(ctx);
        memset(slots, 0, ns * sizeof *slots);
        alea__mem_free(ctx, f->slots, f->nslots * sizeof *f->slots);
        f->slots = slots;
        f->nslots = ns;
        for (size_t k = 0; k < f->nentries; k++) {
            const entry *e = &f->entries[k];
            f->slots[find_slot(f, e->text, e->len, e->hash)] = (uint32_t)(k + 1);
        }
    }
    return ALEA_OK;
}

/* Compiles text and computes its distribution into a new entry. */
static alea_status add_entry(alea_fairness *f, const char *s, size_t len, uint64_t h,
                             entry **out)
{
    alea_ctx *ctx = f->ctx;
    if ((int64_t)f->nentries >= f->limit)
        return alea__error(ctx, ALEA_ERR_LIMIT, 0, len,
                           "too many distinct expressions (limit is %lld) at '%.*s'",
                           (long long)f->limit, len > 40 ? 40 : (int)len, s);
    alea_status st = grow(f);
    if (st != ALEA_OK)
        return st;
    alea_expr *x = NULL;
    alea_dist *d = NULL;
    st = alea_expr_compile(ctx, s, len, &x);
    if (st == ALEA_OK)
        st = alea_expr_dist(ctx, x, &d);
    alea_expr_free(x);
    if (st != ALEA_OK)
        return st;
    if (alea_dist_samples(d) > 0) {
        alea_dist_free(d);
        return alea__error(ctx, ALEA_ERR_DOMAIN, 0, len,
                           "'%.*s' has only an estimated distribution", (int)len, s);
    }
    entry e;
    memset(&e, 0, sizeof e);
    e.n = alea_dist_count(d);
    e.text = alea__mem_alloc(ctx, len + 1);
    e.counts = alea__mem_alloc(ctx, alea__mul_size(e.n ? e.n : 1, sizeof *e.counts));
    if (!e.text || !e.counts) {
        alea__mem_free(ctx, e.text, len + 1);
        alea__mem_free(ctx, e.counts, e.n * sizeof *e.counts);
        alea_dist_free(d);
        return alea__nomem(ctx);
    }
    memcpy(e.text, s, len);
    e.text[len] = '\0';
    memset(e.counts, 0, e.n * sizeof *e.counts);
    e.len = len;
    e.hash = h;
    e.dist = d;
    for (size_t i = 0; i < e.n; i++)
        e.mass += alea_dist_prob(d, i);
    f->entries[f->nentries] = e;
    f->slots[find_slot(f, s, len, h)] = (uint32_t)(f->nentries + 1);
    *out = &f->entries[f->nentries++];
    return ALEA_OK;
}

/* Where total falls in e: ALEA_OK with *i its outcome, or the error of a
 * total e's distribution cannot give. */
static alea_status locate(alea_fairness *f, const entry *e, size_t len, int64_t total, size_t *i)
{
    *i = alea__dist_index(e->dist, total);
    if (*i < e->n && e->mass > 0)
        return ALEA_OK;
    if (e->n == 0)
        return alea__error(f->ctx, ALEA_ERR_DOMAIN, 0, len, "'%s' cannot total %lld", e->text,
                           (long long)total);
    return alea__error(f->ctx, ALEA_ERR_DOMAIN, 0, len,
                       "'%s' cannot total %lld (its totals run from %lld to %lld)", e->text,
                       (long long)total, (long long)alea_dist_value(e->dist, 0),
                       (long long)alea_dist_value(e->dist, e->n - 1));
}

/* Places the roll of total, outcome i of e. */
static void place_one(alea_fairness *f, entry *e, size_t i, int64_t total)
{
    double at_most, p = alea_dist_prob(e->dist, i);
    alea_dist_luck(e->dist, total, &at_most, NULL);
    double v = (double)(next_random(f) >> 11) * 0x1p-53;
    double u = (at_most - p + v * p) / e->mass;
    if (!(u >= 0))
        u = 0;
    if (u >= 1)
        u = 0x1.fffffffffffffp-1;
    /* Neumaier's sum: a million u's keep their last digits */
    double t = f->usum + u;
    f->ucomp += fabs(f->usum) >= u ? (f->usum - t) + u : (u - t) + f->usum;
    f->usum = t;
    f->bins[(size_t)(u * ALEA_FAIRNESS_BINS)]++;
    e->counts[i]++;
    e->rolls++;
    f->rolls++;
}

/* Places n totals of the text s, all of them or none. */
static alea_status place(alea_fairness *f, const char *s, size_t len, const int64_t *totals,
                         size_t n)
{
    alea_ctx *ctx = f->ctx;
    alea__budget_start(ctx);
    /* the hash now; the placements, a binary search each, once the text's
     * distribution is known (a new one's evaluation charged its own) */
    alea_status st = alea__work_check_span(ctx, (double)len + PLACE_UNIT * (double)n, 0, len);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)len, 0, len);
    if (st != ALEA_OK)
        return st;
    if (n > ((uint64_t)1 << 53) - (uint64_t)f->rolls)
        return alea__error(ctx, ALEA_ERR_LIMIT, 0, len,
                           "too many rolls (limit is 2^53, where counts stay exact)");
    uint64_t h = hash_text(s, len);
    entry *e = NULL;
    if (f->nslots) {
        uint32_t k = f->slots[find_slot(f, s, len, h)];
        if (k)
            e = &f->entries[k - 1];
    }
    if (!e && (st = add_entry(f, s, len, h, &e)) != ALEA_OK)
        return st;
    if ((st = alea__charge(ctx, PLACE_UNIT * (int64_t)n, 0, len)) != ALEA_OK)
        return st;
    size_t i;
    for (size_t k = 0; k < n; k++) /* every total first: all or none */
        if ((st = locate(f, e, len, totals[k], &i)) != ALEA_OK)
            return st;
    for (size_t k = 0; k < n; k++) {
        locate(f, e, len, totals[k], &i);
        place_one(f, e, i, totals[k]);
    }
    return ALEA_OK;
}

static alea_status add(alea_fairness *f, const char *expr, size_t len, const int64_t *totals,
                       size_t n, const char *who)
{
    if (!f)
        return ALEA_ERR_ARGUMENT;
    alea_status st = expr && (totals || n == 0)
                         ? place(f, expr, len, totals, n)
                         : alea__error(f->ctx, ALEA_ERR_ARGUMENT, 0, 0, "%s: NULL argument", who);
    if (st != ALEA_OK)
        f->refused++;
    else
        alea__clear_error(f->ctx);
    return st;
}

alea_status alea_fairness_add(alea_fairness *f, const char *expr, size_t len, int64_t total)
{
    return add(f, expr, len, &total, 1, "alea_fairness_add");
}

alea_status alea_fairness_add_rolls(alea_fairness *f, const char *expr, size_t len,
                                    const int64_t *totals, size_t n)
{
    return add(f, expr, len, totals, n, "alea_fairness_add_rolls");
}

int64_t alea_fairness_rolls(const alea_fairness *f)
{
    return f ? f->rolls : 0;
}

/* ---- the distributions of the statistics ---------------------------------- */

double alea__normal_q2(double z)
{
    return erfc(fabs(z) / sqrt(2.0));
}

/* ln Gamma(a) for a whole or half a (a chi-square's df / 2), as a sum of
 * logs down to Gamma(1) = 1 or Gamma(1/2) = sqrt(pi): libm's lgamma writes
 * the global signgam, and the library keeps no global state. Cost: a log
 * per unit of a (df is at most the outcomes, which the support limit
 * bounds). */
static double log_gamma_halves(double a)
{
    double s = 0, k = a - 1;
    for (; k >= 0.5; k -= 1)
        s += log(k);
    return k > -0.25 ? s : s + 0.57236494292470008707; /* ln sqrt(pi) */
}

/*
 * Q(a, x) = Gamma(a, x) / Gamma(a), the regularized upper incomplete gamma
 * function (Numerical Recipes 6.2): the series of P(a, x) below x < a + 1,
 * Lentz's continued fraction of Q above, each to a relative 1e-15.
 */
static double gamma_q(double a, double x)
{
    if (x <= 0)
        return 1;
    double lead = a * log(x) - x - log_gamma_halves(a);
    if (x < a + 1) {
        double ap = a, del = 1 / a, sum = del;
        for (int n = 0; n < 100000; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * 1e-16)
                break;
        }
        double q = 1 - sum * exp(lead);
        return q < 0 ? 0 : q;
    }
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return exp(lead) * h;
}

double alea__chisq_q(double x, double df)
{
    return gamma_q(df / 2, x / 2);
}

/*
 * P(K > lambda) for the Kolmogorov distribution: the alternating series
 * 2 sum (-1)^(j-1) exp(-2 j^2 lambda^2) where it converges fast (lambda >=
 * 1.18), else 1 - the Jacobi theta form sqrt(2 pi) / lambda sum
 * exp(-(2j - 1)^2 pi^2 / (8 lambda^2)) (both as Numerical Recipes 14.3).
 */
double alea__kolmogorov_q(double lambda)
{
    if (lambda <= 0)
        return 1;
    if (lambda < 1.18) {
        double y = exp(-1.23370055013616983 / (lambda * lambda)); /* pi^2 / 8 */
        double s = y + pow(y, 9) + pow(y, 25) + pow(y, 49);
        double p = 1 - 2.50662827463100050 / lambda * s; /* sqrt(2 pi) */
        return p < 0 ? 0 : p > 1 ? 1 : p;
    }
    double x = exp(-2 * lambda * lambda), sum = 0, sign = 1;
    for (int j = 1; j < 100; j++) {
        double term = pow(x, (double)j * j);
        sum += sign * term;
        sign = -sign;
        if (term < 1e-300)
            break;
    }
    double p = 2 * sum;
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* ---- the tests ------------------------------------------------------------- */

static void append(char *buf, size_t cap, const char *s)
{
    size_t used = strlen(buf), n = strlen(s);
    if (used + n + 4 < cap) {
        memcpy(buf + used, s, n + 1);
    } else if (used + 4 <= cap && (used < 3 || strcmp(buf + used - 3, "..."))) {
        memcpy(buf + used, "...", 4);
    }
}

/* A cell's (observed - expected)^2 / expected; 0 when they differ by no
 * more than the rounding of the expected count's sum (12 rolls of d6
 * expect 6.000000000000001 in a half, and 6 seen is a perfect fit). */
static double cell_term(double obs, double expected)
{
    double d = obs - expected;
    return fabs(d) <= 1e-9 * expected ? 0 : d * d / expected;
}

/*
 * The chi-square of one expression's counts: outcomes pooled from the low
 * end until a cell expects ALEA_FAIRNESS_EXPECTED rolls, a short last cell
 * into the one before. 0 when fewer than two cells form.
 */
static int chi_square(const entry *e, alea_fairness_test *t)
{
    double n = (double)e->rolls, x = 0, exp_cell = 0, obs_cell = 0;
    double last_exp = 0, last_obs = 0;
    int64_t cell_lo = 0, last_lo = 0, last_hi = 0;
    size_t cells = 0, in_cell = 0, last_in = 0;
    char buf[48];
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < e->n; i++) {
        int64_t v = alea_dist_value(e->dist, i);
        if (!in_cell)
            cell_lo = v;
        exp_cell += n * alea_dist_prob(e->dist, i) / e->mass;
        obs_cell += (double)e->counts[i];
        in_cell++;
        if (exp_cell >= EXPECTED || i + 1 == e->n) {
            if (exp_cell < EXPECTED && cells > 0) {
                /* a short last cell: into the one before */
                exp_cell += last_exp;
                obs_cell += last_obs;
                cell_lo = last_lo;
                in_cell += last_in;
                cells--;
            } else if (cells > 0) {
                x += cell_term(last_obs, last_exp);
                if (last_in > 1) {
                    snprintf(buf, sizeof buf, "%s%lld..%lld", t->pooled[0] ? ", " : "",
                             (long long)last_lo, (long long)last_hi);
                    append(t->pooled, sizeof t->pooled, buf);
                }
            }
            last_exp = exp_cell, last_obs = obs_cell, last_lo = cell_lo, last_hi = v;
            last_in = in_cell;
            cells++;
            exp_cell = obs_cell = 0;
            in_cell = 0;
        }
    }
    if (cells < 2 || last_exp < EXPECTED)
        return 0;
    x += cell_term(last_obs, last_exp);
    if (last_in > 1) {
        snprintf(buf, sizeof buf, "%s%lld..%lld", t->pooled[0] ? ", " : "", (long long)last_lo,
                 (long long)last_hi);
        append(t->pooled, sizeof t->pooled, buf);
    }
    t->name = "chi-square";
    t->expression = e->text;
    t->statistic = x;
    t->df = (int)(cells - 1);
    t->p = alea__chisq_q(x, t->df);
    t->rolls = e->rolls;
    t->outcomes = e->n;
    return 1;
}

static int by_p(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Holm's step-down adjustment of the tests' p-values: the r-th smallest
 * times (m - r), never below the one before, at most 1. */
static void holm(alea_fairness_test *t, size_t m, ranked *order)
{
    for (size_t i = 0; i < m; i++)
        order[i] = (ranked){t[i].p, i};
    qsort(order, m, sizeof *order, by_p);
    double run = 0;
    for (size_t r = 0; r < m; r++) {
        double a = (double)(m - r) * order[r].p;
        if (a > 1)
            a = 1;
        if (a < run)
            a = run;
        run = a;
        t[order[r].i].p_adjusted = a;
    }
}

static void p_text(char *buf, size_t cap, double p)
{
    if (p < 1e-15)
        snprintf(buf, cap, "p < 1e-15");
    else if (p < 0.001)
        snprintf(buf, cap, "p = %.1e", p);
    else
        snprintf(buf, cap, "p = %.3f", p);
}

alea_status alea_fairness_judge(alea_fairness *f, alea_fairness_result *out)
{
    if (!f)
        return ALEA_ERR_ARGUMENT;
    alea_ctx *ctx = f->ctx;
    if (!out)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "alea_fairness_judge: NULL result");
    alea__budget_start(ctx);
    double units = ALEA_FAIRNESS_BINS;
    for (size_t i = 0; i < f->nentries; i++)
        units += (double)f->entries[i].n * 4;
    alea_status st = alea__work_check_span(ctx, units, 0, 0);
    if (st == ALEA_OK)
        st = alea__charge(ctx, (int64_t)units, 0, 0);
    if (st != ALEA_OK)
        return st;
    size_t need = 2 + f->nentries;
    if (need > f->tests_cap) {
        alea_fairness_test *nt = alea__mem_alloc(ctx, need * sizeof *nt);
        ranked *no = alea__mem_alloc(ctx, need * sizeof *no);
        if (!nt || !no) {
            alea__mem_free(ctx, nt, need * sizeof *nt);
            alea__mem_free(ctx, no, need * sizeof *no);
            return alea__nomem(ctx);
        }
        alea__mem_free(ctx, f->tests, f->tests_cap * sizeof *f->tests);
        alea__mem_free(ctx, f->order, f->tests_cap * sizeof *f->order);
        f->tests = nt;
        f->order = no;
        f->tests_cap = need;
    }
    alea_fairness_test *t = f->tests;
    size_t m = 0;
    double n = (double)f->rolls;
    if (f->rolls >= ALEA_FAIRNESS_MIN_ROLLS) {
        memset(&t[m], 0, sizeof t[m]);
        double z = (f->usum + f->ucomp - n / 2) / sqrt(n / 12);
        t[m].name = "mean";
        t[m].statistic = z;
        t[m].p = alea__normal_q2(z);
        t[m].rolls = f->rolls;
        t[m].direction = z < 0 ? -1 : z > 0;
        m++;
        memset(&t[m], 0, sizeof t[m]);
        double below = 0, d = 0;
        for (size_t k = 0; k < ALEA_FAIRNESS_BINS; k++) {
            below += (double)f->bins[k];
            double gap = fabs(below / n - (double)(k + 1) / ALEA_FAIRNESS_BINS);
            if (gap > d)
                d = gap;
        }
        double sn = sqrt(n);
        t[m].name = "ks";
        t[m].statistic = d;
        t[m].p = alea__kolmogorov_q((sn + 0.12 + 0.11 / sn) * d);
        t[m].rolls = f->rolls;
        m++;
    }
    for (size_t i = 0; i < f->nentries; i++)
        m += (size_t)chi_square(&f->entries[i], &t[m]);
    holm(t, m, f->order);

    memset(out, 0, sizeof *out);
    out->rolls = f->rolls;
    out->refused = f->refused;
    out->ntests = m;
    out->tests = t;
    out->p = 1;
    const alea_fairness_test *worst = NULL;
    for (size_t i = 0; i < m; i++)
        if (t[i].p_adjusted < out->p || !worst) {
            out->p = t[i].p_adjusted;
            worst = &t[i];
        }
    char pt[40];
    if (m == 0) {
        out->verdict = ALEA_FAIRNESS_TOO_FEW;
        snprintf(f->text, sizeof f->text, "too few rolls to judge (%lld; the tests need %d)",
                 (long long)f->rolls, ALEA_FAIRNESS_MIN_ROLLS);
    } else if (out->p >= ALEA_FAIRNESS_ALPHA) {
        out->verdict = ALEA_FAIRNESS_FAIR;
        snprintf(f->text, sizeof f->text, "consistent with fair dice");
    } else {
        out->verdict = ALEA_FAIRNESS_UNFAIR;
        /* a direction, when the mean says one, leads */
        if (t[0].p_adjusted < ALEA_FAIRNESS_ALPHA && f->rolls >= ALEA_FAIRNESS_MIN_ROLLS) {
            out->direction = t[0].direction;
            p_text(pt, sizeof pt, t[0].p_adjusted);
            snprintf(f->text, sizeof f->text, "these rolls are %s than fair dice give: %s",
                     t[0].direction < 0 ? "lower" : "higher", pt);
        } else if (worst->expression) {
            p_text(pt, sizeof pt, worst->p_adjusted);
            snprintf(f->text, sizeof f->text,
                     "the rolls of %.60s do not fall as fair dice fall: %s", worst->expression, pt);
        } else {
            p_text(pt, sizeof pt, worst->p_adjusted);
            snprintf(f->text, sizeof f->text,
                     "these rolls are not spread as fair dice spread: %s", pt);
        }
    }
    out->text = f->text;
    alea__clear_error(ctx);
    return ALEA_OK;
}
