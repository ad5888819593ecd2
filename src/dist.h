/*
 * dist.h -- the exact engine: distributions under construction and their
 * arithmetic (pmf.c, over the hash table of table.c), order statistics for
 * keep/drop on pools (keep.c), AST -> distribution (exact.c), and the
 * public distribution object (dist.c).
 *
 * A distribution under construction is an alea__pmf: outcomes with distinct
 * values in ascending order and positive probabilities, plus the mass that
 * explosion tails cut off. Outcomes are built through an alea__acc, which
 * adds into a dense array when the value range is small and otherwise
 * into a hash table of the values, sorted once at the end, so a sparse
 * distribution (1d6 * 1000) costs its support, not its range.
 *
 * Every operation checks the SUPPORT limit before it allocates a result,
 * charges the WORK budget before each step, reports integer overflow of an
 * attainable value, and frees everything it allocated on any error.
 */
#ifndef ALEA_DIST_H
#define ALEA_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "ast.h"

/*
 * The two number systems. A distribution's probabilities are doubles, or,
 * in exact mode (alea_ctx_set_exact; needs GMP), reduced fractions
 * (GMP's mpq_t) with the nearest doubles beside them. The algorithms are
 * written once: they read a probability as a weight (alea__w: the double,
 * and the fraction when there is one) and hand weights to the accumulator
 * and the pmf operations, which do the arithmetic in the pmf's own system.
 * A weight that is a double alone is exact only when it is 0 or 1; in
 * exact mode any other is refused (ALEA_ERR_INVALID: the construct has no
 * exact form yet), never rounded in silently.
 */
#ifdef ALEA_HAVE_GMP
#include <gmp.h>
typedef __mpq_struct alea__q; /* an element of GMP's mpq_t */
#else
typedef struct alea__q {
    long num, den; /* never used: exact mode needs GMP */
} alea__q;
#endif

/* A sub-probability mass function. v and p (and q) share one block (owned)
 * of `bytes` bytes, at least n * (sizeof *v + sizeof *p (+ sizeof *q)) (a
 * spare block, see alea__spare_alloc; p need not follow v at once); n == 0
 * means no block. The outcomes' probabilities sum to 1 - trunc (up to
 * rounding; exactly in exact mode). */
typedef struct alea__pmf {
    int64_t *v; /* strictly ascending */
    double *p;  /* > 0; in exact mode the nearest doubles of q (0 below
                   the double range) */
    alea__q *q; /* exact mode: the probabilities, > 0, reduced; else NULL */
    size_t n;
    size_t bytes;
    size_t qbytes; /* exact mode: bytes of the digits of q, counted in the
                      context's memory */
    double trunc;  /* mass cut off by explosion tails, tracked, in [0, 1] */
    /* has_cut_low: every chain cut off ends at or above cut_low, as
     * die_dist (exact.c) proved it, so a keep may sort a cut die above the
     * outcomes up to cut_low; 0 (what every other operation makes):
     * nothing is known of a cut value */
    int has_cut_low;
    int64_t cut_low;
} alea__pmf;

/* Bounds of the values of a node (bounds.c): no value lies below lo
 * (above hi); lo_at (hi_at): some roll takes it. lo_inf (hi_inf): no
 * bound known at that end (lo or hi unused): an explosion without end, or
 * a construct left open. */
typedef struct alea__range {
    int64_t lo, hi;
    uint8_t lo_inf, hi_inf, lo_at, hi_at;
} alea__range;

/* The bounds of n's values from the tree alone, without any probability.
 * Cost: linear in the tree (a group's keep, quadratic in its members). */
ALEA__HIDDEN void alea__bounds(const node *n, alea__range *r);
/* The bounds of -x for x in a. */
ALEA__HIDDEN void alea__bounds_neg(const alea__range *a, alea__range *out);

/* A weight: a probability in either number system (q NULL: the double d,
 * which in exact mode must be 0 or 1). */
typedef struct alea__w {
    double d;
    const alea__q *q;
} alea__w;

#define ALEA__W(x) ((alea__w){(x), NULL})

/*
 * A weight being computed: a product of probabilities and ratios (a
 * multinomial term, a power of a die's chance), in the context's number
 * system. The double is always kept; in exact mode (ctx->exact) the
 * fraction beside it, which is what alea__x_w hands on. Starts at 1
 * (alea__x_init), is given back with alea__x_free; a weight that is a
 * double alone (ALEA__W) may take part when it is a whole number. Every
 * step is charged by the digits it handles (pmf.c, frac.c), so a long
 * product stops at the work limit.
 */
typedef struct alea__x {
    double d;
    int has_q;
    alea__q q;
} alea__x;

/* The probability of outcome i of d, as a weight. */
static inline alea__w alea__pmf_w(const alea__pmf *d, size_t i)
{
    return (alea__w){d->p[i], d->q ? &d->q[i] : NULL};
}

/* Named probabilities a distribution reports beside its outcomes. */
#define ALEA__FLAGS_MAX 4

/*
 * What a distribution says beyond its outcomes, filled by the mechanic of
 * the expression's root (mech.h): names of its outcomes 0..nlabels-1 (a
 * static table), named probabilities, and one parameter the mechanic keeps
 * for its own functions (which it reads back from the distribution, with
 * alea__dist_expect over the outcomes). The mechanic that filled them is
 * named by `mech` (NULL: none), so that its functions can recognise it.
 */
typedef struct alea__notes {
    const struct alea__mech *mech;
    const char *const *labels;
    uint32_t nlabels;
    uint32_t nflags;
    const char *flag_name[ALEA__FLAGS_MAX];
    double flag_p[ALEA__FLAGS_MAX];
    int64_t param;
} alea__notes;

/* A result in doubles with a probability below this (anywhere on the way)
 * may have dropped outcomes rarer than the double range (api.c). */
#define ALEA__NEAR_UNDERFLOW 1e-280

/* A probability as mantissa * 10^e, mantissa in [1, 10) (0 for 0): one
 * below the double range (300d20 rolling all 1s, 4.9e-391). */
typedef struct alea__sci {
    double m;
    int64_t e;
    double d; /* the nearest double (0 below the range) */
} alea__sci;

struct alea_dist {
    alea_ctx *ctx;
    alea__pmf pmf;
    double mass, mean, sd; /* mass: sum of the outcomes' probabilities */
    double den;            /* in doubles: the denominator of the outcomes'
                              exact counts (dist.c), or 0 when unknown */
    alea__notes notes;
    uint64_t samples;      /* an estimate from this many samples; 0: exact */
    int64_t rolls;         /* a repeat's rolls ("6 x 4d6kh3"), each of which
                              this is the distribution of; else 1 */
    int exact;             /* computed in exact mode: fractions are shown */
    int fracs;             /* pmf.q and xq hold fractions (exact mode, or a
                              result in doubles recomputed in fractions) */
    alea__q xq[3];         /* with fracs: mean, variance, truncated mass */
    alea__sci *sci;        /* with fracs: each outcome's probability, at least
                              and at most (3 a row) at any exponent */
    alea__range tree;      /* the expression's bounds (bounds.c), for min and
                              max where the outcomes listed may not reach
                              them */
    const char *incomplete; /* outcomes too rare for doubles may be missing:
                               why they could not be recomputed, or NULL */
    char why[256];          /* incomplete's text when it is not static */
    size_t len;            /* bytes of src, without the NUL */
    char src[];            /* copy of the expression's source */
};

/* ---- exact.c ---- */

/* The most probability the explosion tails may cut from a result (1%):
 * past it alea_expr_dist fails with ALEA_ERR_LIMIT instead of returning a
 * distribution that is mostly missing. */
#define ALEA__TRUNC_MAX 0.01

/* Computes the exact distribution of e. The caller (api.c) has already
 * called alea__budget_start(ctx) and checked arguments. On success *out is
 * a new alea_dist (allocated through ctx) owned by the caller. */
ALEA__HIDDEN alea_status alea__exact(alea_ctx *ctx, const alea_expr *e, alea_dist **out);

/* The distribution of node n (group.c). */
ALEA__HIDDEN alea_status alea__exact_eval(alea_ctx *ctx, const node *n, alea__pmf *out);
/* The distribution of one die of the pool of N_DICE node n: rerolled and
 * exploded, without keep, extra dice or the pool's success counting; with
 * count (not NULL), the die's score by it, every roll of a "!" chain
 * judged (group.c). */
ALEA__HIDDEN alea_status alea__exact_die(alea_ctx *ctx, const node *n, const alea__judge *count,
                                         alea__pmf *out);
/* Truncated mass of two independent parts: 1 - (1 - a)(1 - b). */
ALEA__HIDDEN double alea__trunc_join(double a, double b);
/* Truncated mass of n independent copies: 1 - (1 - t)^n. */
ALEA__HIDDEN double alea__trunc_pow(double t, int64_t n);

/* ---- pmf.c: pmf basics ---- */

/* Frees the outcomes of d (if any) and leaves it empty. */
ALEA__HIDDEN void alea__pmf_free(alea_ctx *ctx, alea__pmf *d);
/* Allocates room for n outcomes (contents undefined, trunc 0). */
ALEA__HIDDEN alea_status alea__pmf_alloc(alea_ctx *ctx, size_t n, alea__pmf *d);
/* The point mass at v with probability p. */
ALEA__HIDDEN alea_status alea__pmf_point(alea_ctx *ctx, int64_t v, alea__w p,
                                         alea__pmf *d);
ALEA__HIDDEN alea_status alea__pmf_copy(alea_ctx *ctx, const alea__pmf *a,
                                        alea__pmf *d);
/* out's outcome k is a's outcome i (value and probability). */
ALEA__HIDDEN void alea__pmf_take(alea_ctx *ctx, alea__pmf *out, size_t k, const alea__pmf *a, size_t i);
/* Outcome k's probability is (a1 a2) / (b1 b2), whole numbers (exact in
 * exact mode). */
ALEA__HIDDEN void alea__pmf_ratio(alea_ctx *ctx, alea__pmf *d, size_t k, uint64_t a1, uint64_t a2,
                                  uint64_t b1, uint64_t b2);
/* In exact mode, after a pmf's fractions are written: its doubles and the
 * bytes of its digits (frac_seal); d is freed on error. Nothing otherwise. */
ALEA__HIDDEN alea_status alea__pmf_seal(alea_ctx *ctx, alea__pmf *d, const node *at);
/* The greatest common divisor of a and b (a when b is 0). */
ALEA__HIDDEN uint64_t alea__gcd(uint64_t a, uint64_t b);
/* Sum of the outcomes' probabilities. */
ALEA__HIDDEN double alea__pmf_mass(const alea__pmf *d);
/* The weights being computed (alea__x): = 1; given back; read as a weight;
 * x *= a; x *= num / den (den > 0); x *= a^k; x += a b. On error x keeps a
 * value that can be given back. */
ALEA__HIDDEN void alea__x_init(alea_ctx *ctx, alea__x *x);
ALEA__HIDDEN void alea__x_free(alea_ctx *ctx, alea__x *x);
ALEA__HIDDEN alea__w alea__x_w(const alea__x *x);
ALEA__HIDDEN alea_status alea__x_mul(alea_ctx *ctx, alea__x *x, alea__w a, const node *at);
ALEA__HIDDEN alea_status alea__x_ratio(alea_ctx *ctx, alea__x *x, uint64_t num, uint64_t den,
                                       const node *at);
ALEA__HIDDEN alea_status alea__x_pow(alea_ctx *ctx, alea__x *x, alea__w a, uint64_t k,
                                     const node *at);
ALEA__HIDDEN alea_status alea__x_addmul(alea_ctx *ctx, alea__x *x, alea__w a, alea__w b,
                                        const node *at);
/* x /= a (a above 0). */
ALEA__HIDDEN alea_status alea__x_div(alea_ctx *ctx, alea__x *x, alea__w a, const node *at);
/* Records the support-limit error for node at; returns ALEA_ERR_LIMIT. */
ALEA__HIDDEN alea_status alea__support_error(alea_ctx *ctx, const node *at);
/* The same, when the outcomes the step needs are known (alea_ctx_support_needed). */
ALEA__HIDDEN alea_status alea__support_need(alea_ctx *ctx, const node *at, double need);
/* Records an integer-overflow error for node at. */
ALEA__HIDDEN alea_status alea__overflow_error(alea_ctx *ctx, const node *at);
/* Checks that `units` more work fit in the budget, without charging it (the
 * loop that does the work charges as it goes, so the interrupt hook is
 * polled). Units is a double so that estimates cannot overflow. */
ALEA__HIDDEN alea_status alea__work_check(alea_ctx *ctx, double units, const node *at);

/* ---- table.c: the hash table; pmf.c: the accumulator ---- */

/*
 * A hash table from int64 values to doubles: open addressing with linear
 * probing, cap slots (a power of two, at most 3/4 full), n of them used. A
 * slot whose key is ALEA__TABLE_FREE is free; the value INT64_MIN itself is
 * kept aside (has_min, min_val). The sparse accumulator sums probabilities
 * in it, a Monte Carlo tally counts hits (whole numbers, exact below 2^53).
 *
 * No hash is proof against every key set (an attacker who knows it can
 * choose values that collide), so the table counts the slots it walks past
 * the first (steps, rehashing included) and its users charge them to the
 * work budget: a flooded table stops at the work limit instead of
 * slowing down unseen.
 */
typedef struct alea__table {
    int64_t *key;
    double *val;
    size_t n, cap;
    int has_min;
    double min_val;
    size_t bytes;      /* of the block holding key and val (a scratch block) */
    uint64_t hash_key; /* mixed into every hash; 0 gives reproducible steps */
    uint64_t steps;    /* slots probed past the first, not yet charged */
} alea__table;

#define ALEA__TABLE_FREE INT64_MIN
/* First number of slots of a hash table (a power of two); clearing them is
 * charged a quarter unit each, as for a dense array. */
#define ALEA__TABLE_MIN 1024u

/* An empty table of a first few slots, hashing with hash_key; NOMEM
 * recorded in ctx. */
ALEA__HIDDEN alea_status alea__table_init(alea_ctx *ctx, alea__table *t, uint64_t hash_key);
/* The steps counted since the last call (and resets the count). */
ALEA__HIDDEN uint64_t alea__table_steps(alea__table *t);
ALEA__HIDDEN void alea__table_free(alea_ctx *ctx, alea__table *t);
/* Adds x to the entry of v. A new value past `most` distinct ones is
 * refused: ALEA_ERR_LIMIT with *full set and no message (the caller names
 * its limit). Running out of memory is recorded, as everywhere. The table is
 * unchanged on error. */
ALEA__HIDDEN alea_status alea__table_add(alea_ctx *ctx, alea__table *t, int64_t v, double x,
                                         size_t most, int *full);
/* Distinct values held, INT64_MIN included. */
ALEA__HIDDEN size_t alea__table_count(const alea__table *t);

typedef struct alea__pair {
    int64_t v;
    double p;
} alea__pair;

/* The entries whose value is above 0, sorted by key: *k pairs in a block of
 * ctx's (the caller frees *k pairs, or one when *k is 0). */
ALEA__HIDDEN alea_status alea__table_sorted(alea_ctx *ctx, const alea__table *t,
                                            alea__pair **out, size_t *k);
/* Sorts pairs by key (qsort). */
ALEA__HIDDEN void alea__pairs_sort(alea__pair *p, size_t n);

typedef struct alea__acc {
    alea_ctx *ctx;
    const node *at; /* span for errors */
    size_t limit;   /* the SUPPORT limit */
    /* dense mode: d[0 .. span) holds values lo .. lo + span - 1 */
    int64_t lo;
    size_t span; /* 0 in sparse mode */
    double *d;   /* a scratch block of dbytes */
    size_t dbytes;
    /* sparse mode: the values in a hash table */
    alea__table t;
    int64_t uncharged; /* sparse additions not yet charged to the budget */
    /* exact mode (frac.c): the dense sums, or the sparse terms as (value,
     * fraction) pairs, sorted and merged when full and at the end */
    alea__q *dq;
    size_t dqbytes;
    void *sq;
    size_t nsq, capsq;
} alea__acc;

/*
 * Work units of one addition in sparse mode, against the 1 unit (about
 * 1.7 ns here) of a dense one: a hash probe and its share of the
 * rehashing, measured at about 6 ns while the table fits in the caches and
 * 40 ns once it does not (a memory access each). The accumulator charges
 * the difference itself; callers charge 1 per addition in either mode and
 * multiply their estimates by alea__acc_unit.
 */
#define ALEA__SPARSE_COST 4
/* Work units of an addition in exact fractions of one-limb numbers (about
 * 80 ns); frac.c charges more for longer numbers. */
#define ALEA__FRAC_UNIT 48
#define ALEA__SPARSE_COST_BIG 24

/* Work units per addition into a: 1 in dense mode, ALEA__SPARSE_COST in
 * sparse mode. */
ALEA__HIDDEN double alea__acc_unit(const alea__acc *a);

/*
 * Starts an accumulator for values in [lo, hi] (lo <= hi), expecting about
 * `adds` additions. Picks dense mode when the range is small enough.
 */
ALEA__HIDDEN alea_status alea__acc_init(alea__acc *a, alea_ctx *ctx, const node *at,
                                        int64_t lo, int64_t hi, double adds);
/* Adds probability p at v (v within the declared range); x * y at v. On
 * error the accumulator's buffers are freed. */
ALEA__HIDDEN alea_status alea__acc_add(alea__acc *a, int64_t v, alea__w p);
ALEA__HIDDEN alea_status alea__acc_add2(alea__acc *a, int64_t v, alea__w x, alea__w y);
/* Adds w * d shifted by `shift` (every d.v + shift within the range). */
ALEA__HIDDEN alea_status alea__acc_add_pmf(alea__acc *a, const alea__pmf *d,
                                           int64_t shift, alea__w w);
/* Moves the sum into *out (zero probabilities left out; out->trunc = 0) and
 * frees the accumulator's buffers. On error the buffers are freed too. */
ALEA__HIDDEN alea_status alea__acc_finish(alea__acc *a, alea__pmf *out);
/* Frees the buffers (after an error elsewhere). Safe to call twice. */
ALEA__HIDDEN void alea__acc_free(alea__acc *a);

/* ---- pmf.c: arithmetic of independent distributions ----
 * Each writes a new pmf into *out (which must not alias an input) only on
 * success; `at` gives the span for errors. */

/* a + b */
ALEA__HIDDEN alea_status alea__pmf_conv(alea_ctx *ctx, const alea__pmf *a,
                                        const alea__pmf *b, const node *at,
                                        alea__pmf *out);
/* The sum of n independent copies of a (n >= 0; 0 gives the point 0). */
ALEA__HIDDEN alea_status alea__pmf_pow(alea_ctx *ctx, const alea__pmf *a, int64_t n,
                                       const node *at, alea__pmf *out);
/* -a and |a|. */
ALEA__HIDDEN alea_status alea__pmf_neg(alea_ctx *ctx, const alea__pmf *a,
                                       const node *at, alea__pmf *out);
ALEA__HIDDEN alea_status alea__pmf_abs(alea_ctx *ctx, const alea__pmf *a,
                                       const node *at, alea__pmf *out);
/* a op b for op OP_MUL, OP_DIV, OP_DIVUP, OP_DIVNEAR; a divisor that can
 * be zero is ALEA_ERR_DOMAIN with the span of div_at. */
ALEA__HIDDEN alea_status alea__pmf_arith(alea_ctx *ctx, uint8_t op, const alea__pmf *a,
                                         const alea__pmf *b, const node *at,
                                         const node *div_at, alea__pmf *out);
/* The {0, 1} distribution of [a op b], op a cmp_op. */
ALEA__HIDDEN alea_status alea__pmf_cmp(alea_ctx *ctx, uint8_t op, const alea__pmf *a,
                                       const alea__pmf *b, alea__pmf *out);
/* max(a, b) (is_max) or min(a, b). */
ALEA__HIDDEN alea_status alea__pmf_minmax(alea_ctx *ctx, int is_max, const alea__pmf *a,
                                          const alea__pmf *b, alea__pmf *out);
/* The highest (is_max) or lowest of n >= 1 independent copies of a, by
 * powers of the distribution function. */
ALEA__HIDDEN alea_status alea__pmf_extreme(alea_ctx *ctx, int is_max, const alea__pmf *a,
                                           int64_t n, const node *at, alea__pmf *out);
/* *sum += w * b (sum may be empty). On error *sum is left as it was. */
/* out = sum over a < w->n of w[a] B^a, where w->v[a] == a (weights may be
 * 0) and B^a is the sum of a independent copies of b (b may be a partial
 * pmf, in any order of values): Horner's rule, a product by b a term. */
ALEA__HIDDEN alea_status alea__pmf_polyval(alea_ctx *ctx, const alea__pmf *b,
                                           const alea__pmf *w, const node *at,
                                           alea__pmf *out);
ALEA__HIDDEN alea_status alea__pmf_add_scaled(alea_ctx *ctx, alea__pmf *sum,
                                              const alea__pmf *b, alea__w w,
                                              const node *at);
/* The distribution of map[i] where outcome i of a has probability a.p[i]
 * (map need not be sorted or distinct). */
ALEA__HIDDEN alea_status alea__pmf_remap(alea_ctx *ctx, const alea__pmf *a,
                                         const int64_t *map, const node *at,
                                         alea__pmf *out);

/* Makes the public object: moves *pmf into it (leaving *pmf empty) and
 * copies the len bytes of src. On error *pmf is untouched. */
ALEA__HIDDEN alea_status alea__dist_make(alea_ctx *ctx, alea__pmf *pmf, const char *src,
                                         size_t len, alea_dist **out);

/* ---- the pmf operations in exact fractions ----
 * pmf.c calls these in exact mode; `lo` is the result's lowest value. They
 * are written in fractions/frac.c with GMP, which the library does not
 * link: frac.c and GMP make a module of their own (alea-exact.so), loaded
 * by frac_load.c when a context first needs fractions (alea__frac_load), so
 * that a run in doubles never pays for loading GMP. frac_load.c defines
 * each function below as a call through the module's table (ctx->frac_ops);
 * frac.c defines them for real (a build may also link it directly, as the
 * fuzzers do). The tables below list them once, for both files:
 * X(name, parameters, arguments, the context they reach). */

/* ALEA_ERR_INVALID: a weight with no exact value (a construct whose exact
 * form is not written yet), at node at (may be NULL). In pmf.c. */
ALEA__HIDDEN alea_status alea__frac_inexact(alea_ctx *ctx, const node *at);
/* Makes ctx able to compute in fractions (loads the module, once per
 * context; ALEA_ERR_ARGUMENT with the reason when it cannot); gives the
 * module back (alea_ctx_free). */
ALEA__HIDDEN alea_status alea__frac_load(alea_ctx *ctx);
ALEA__HIDDEN void alea__frac_unload(alea_ctx *ctx);

struct alea__out;

/* A pair of outcomes (a's i-th, b's j-th) of an operation in fractions and
 * the value it makes (pmf.c's arithmetic, frac.c's pairs). */
typedef struct alea__ipair {
    int64_t v;
    uint32_t i, j;
} alea__ipair;
/* Work units of a pair made (its value, 16 bytes of fresh memory), and of
 * each of the n log2 n steps that sort them (a compare through a call and
 * a move: about 9 ns here). */
#define ALEA__PAIR_UNIT 4
#define ALEA__PAIR_SORT_UNIT 5

#define ALEA__FRAC_STATUS(X)                                                                  \
    /* After the fractions of d are written: the nearest doubles into p, the                 \
     * bytes of the digits counted in the context's memory (the limit applies). */           \
    X(seal, (alea_ctx * ctx, alea__pmf * d, const node *at), (ctx, d, at), ctx)              \
    /* *r = w; *r += x w (each charged by its limbs). */                                     \
    X(set, (alea_ctx * ctx, alea__q * r, alea__w w, const node *at), (ctx, r, w, at), ctx)   \
    X(addmul, (alea_ctx * ctx, alea__q * r, const alea__q *x, alea__w w, const node *at),    \
      (ctx, r, x, w, at), ctx)                                                               \
    /* A weight being computed (alea__x): *r = a b, *r += a b, *r = a^k (r may be             \
     * a's or b's fraction; each charged by its limbs, a power checked first). */            \
    X(xmul, (alea_ctx * ctx, alea__q * r, alea__w a, alea__w b, const node *at),             \
      (ctx, r, a, b, at), ctx)                                                               \
    X(xaddmul, (alea_ctx * ctx, alea__q * r, alea__w a, alea__w b, const node *at),          \
      (ctx, r, a, b, at), ctx)                                                               \
    X(xpow, (alea_ctx * ctx, alea__q * r, alea__w a, uint64_t k, const node *at),            \
      (ctx, r, a, k, at), ctx)                                                               \
    /* *r = a / b (b above 0; r may be a's or b's fraction). */                               \
    X(xdiv, (alea_ctx * ctx, alea__q * r, alea__w a, alea__w b, const node *at),             \
      (ctx, r, a, b, at), ctx)                                                               \
    /* The accumulator (pmf.c) in fractions. */                                              \
    X(acc_dense, (alea__acc * a), (a), a->ctx)                                               \
    X(acc_add, (alea__acc * a, int64_t v, alea__w x, alea__w y), (a, v, x, y), a->ctx)       \
    X(acc_add_pmf, (alea__acc * a, const alea__pmf *d, int64_t shift, alea__w w),            \
      (a, d, shift, w), a->ctx)                                                              \
    X(acc_finish, (alea__acc * a, alea__pmf * out), (a, out), a->ctx)                        \
    /* alea__pmf_polyval in fractions: b's values are placed at v - base in a                \
     * polynomial of length top + 1; the result's lowest value is lo. */                     \
    X(polyval,                                                                               \
      (alea_ctx * ctx, const alea__pmf *b, const alea__pmf *w, int64_t base, int64_t top,    \
       int64_t lo, const node *at, alea__pmf *out),                                          \
      (ctx, b, w, base, top, lo, at, out), ctx)                                              \
    /* The weights of keep highest (high) or lowest K of m dice, for the lowest              \
     * kept die at the die's outcome t: w->q[a] = C(m, a) T(m - a, K - a) for                \
     * a < K, T(r, k) = sum over j >= k of C(r, j) e^j s^(r - j), e = P(t),                  \
     * s = P(short of t); with B the die's outcomes beyond t (unnormalised),                 \
     * sum w[a] B^a is the distribution of the kept sum given that threshold. */             \
    X(keep_weights,                                                                          \
      (alea_ctx * ctx, const alea__pmf *die, size_t t, int high, int64_t m, int64_t K,       \
       const node *at, alea__pmf *w),                                                        \
      (ctx, die, t, high, m, K, at, w), ctx)                                                 \
    /* keep.c's walk over the outcomes in walk order (from the bottom or the                 \
     * top): out.q[t] = the die's mass at or beyond the t-th; and with rho =                 \
     * qt / St, the chance that one of the dice left takes this outcome, the                 \
     * binomial row out.q[k] = C(r, k) rho^k (1 - rho)^(r - k) for k < kmax and              \
     * at outcome kmax the chance of kmax or more (St1: the mass beyond, NULL                \
     * for none; zero terms left out). */                                                    \
    X(walk_sums, (alea_ctx * ctx, const alea__pmf *die, int bottom, const node *at,          \
                  alea__pmf *out),                                                           \
      (ctx, die, bottom, at, out), ctx)                                                      \
    X(binom_row,                                                                             \
      (alea_ctx * ctx, const alea__q *qt, const alea__q *St, const alea__q *St1, int64_t r,  \
       int64_t kmax, const node *at, alea__pmf *out),                                        \
      (ctx, qt, St, St1, r, kmax, at, out), ctx)                                             \
    /* a + b and n copies of a, as products of integer polynomials. */                       \
    X(conv,                                                                                  \
      (alea_ctx * ctx, const alea__pmf *a, const alea__pmf *b, int64_t lo, const node *at,   \
       alea__pmf *out),                                                                      \
      (ctx, a, b, lo, at, out), ctx)                                                         \
    X(pow,                                                                                   \
      (alea_ctx * ctx, const alea__pmf *a, int64_t n, int64_t lo, const node *at,            \
       alea__pmf *out),                                                                      \
      (ctx, a, n, lo, at, out), ctx)                                                         \
    /* The distribution of the n pairs' values: each value's probability the sum              \
     * of a.q[i] b.q[j] over its pairs (sorted here); more than `limit` values                \
     * is the support error. */                                                              \
    X(pairs,                                                                                 \
      (alea_ctx * ctx, const alea__pmf *a, const alea__pmf *b, alea__ipair *pr, size_t n,    \
       size_t limit, const node *at, alea__pmf *out),                                        \
      (ctx, a, b, pr, n, limit, at, out), ctx)                                               \
    X(cmp, (alea_ctx * ctx, uint8_t op, const alea__pmf *a, const alea__pmf *b,              \
            alea__pmf *out),                                                                 \
      (ctx, op, a, b, out), ctx)                                                             \
    /* One step of pmf.c's max/min walk: r = pa (fb + pb) + fa pb, then fa +=                \
     * pa, fb += pb (pa, pb NULL: 0). */                                                     \
    X(minmax_step,                                                                           \
      (alea_ctx * ctx, alea__q * r, alea__q * fa, alea__q * fb, const alea__q *pa,           \
       const alea__q *pb),                                                                   \
      (ctx, r, fa, fb, pa, pb), ctx)                                                         \
    /* out (allocated for a->n) gets P(max or min of n copies = v). */                       \
    X(extreme,                                                                               \
      (alea_ctx * ctx, int is_max, const alea__pmf *a, int64_t n, const node *at,            \
       alea__pmf *out),                                                                      \
      (ctx, is_max, a, n, at, out), ctx)                                                     \
    /* A distribution in doubles recomputed in fractions (ctx->precise): its                 \
     * probabilities, at least and at most at any exponent, into d->sci. */                  \
    X(sci, (alea_ctx * ctx, alea_dist * d), (ctx, d), ctx)                                   \
    /* Checks a finished exact result: every fraction above 0, their sum at                  \
     * most 1 (an operation that wrote doubles alone would break it). */                     \
    X(check, (alea_ctx * ctx, const alea__pmf *d, const node *at), (ctx, d, at), ctx)        \
    /* Completes a distribution made from an exact pmf: its mean, variance and               \
     * truncated mass as fractions, and every double (probabilities, mass,                   \
     * mean, sd) the nearest to its fraction. */                                             \
    X(dist, (alea_ctx * ctx, alea_dist * d), (ctx, d), ctx)

#define ALEA__FRAC_VOID(X)                                                                   \
    /* Initialises the n fractions of a new pmf to 0; clears those from `from`               \
     * on (from 0: the digits' bytes are given back to the context). */                      \
    X(init, (alea_ctx * ctx, alea__pmf * d), (ctx, d), ctx)                                  \
    X(clear, (alea_ctx * ctx, alea__pmf * d, size_t from), (ctx, d, from), ctx)              \
    /* *r = (a1 a2) / (b1 b2) */                                                             \
    X(ratio,                                                                                 \
      (alea_ctx * ctx, alea__q * r, uint64_t a1, uint64_t a2, uint64_t b1, uint64_t b2),     \
      (ctx, r, a1, a2, b1, b2), ctx)                                                         \
    /* out->q[k] = a->q[i]; swaps d->q[i] and d->q[j]. */                                    \
    X(copy, (alea_ctx * ctx, alea__pmf * out, size_t k, const alea__pmf *a, size_t i),       \
      (ctx, out, k, a, i), ctx)                                                              \
    X(swap, (alea_ctx * ctx, alea__pmf * d, size_t i, size_t j), (ctx, d, i, j), ctx)        \
    X(acc_free, (alea__acc * a), (a), a->ctx)                                                \
    /* Gives back a weight's fraction (alea__x_free). */                                     \
    X(xfree, (alea_ctx * ctx, alea__q * r), (ctx, r), ctx)                                   \
    /* Gives back what MPFR cached for the calling thread (constants for the                 \
     * decimal exponents of probabilities below the double range), at the end                \
     * of an exact evaluation and when an exact distribution is freed. */                    \
    X(release, (alea_ctx * ctx), (ctx), ctx)                                                 \
    X(dist_free, (alea_dist * d), (d), d->ctx)                                               \
    /* Writes the fraction `what` (of outcome i) of an exact distribution; its               \
     * CSV table in fractions. */                                                            \
    X(value, (const alea_dist *d, alea_fraction what, size_t i, struct alea__out *o),        \
      (d, what, i, o), d->ctx)                                                               \
    X(csv, (const alea_dist *d, struct alea__out *o), (d, o), d->ctx)

#define ALEA__FRAC_DECLARE_STATUS(name, params, args, c)                                     \
    ALEA__HIDDEN alea_status alea__frac_##name params;
#define ALEA__FRAC_DECLARE_VOID(name, params, args, c) ALEA__HIDDEN void alea__frac_##name params;
ALEA__FRAC_STATUS(ALEA__FRAC_DECLARE_STATUS)
ALEA__FRAC_VOID(ALEA__FRAC_DECLARE_VOID)
/* The sign of q (-1, 0, 1). */
ALEA__HIDDEN int alea__frac_sgn(alea_ctx *ctx, const alea__q *q);

/* The module's table: what it was built from (checked before it is used:
 * a module of another build would read the structures differently), and
 * each function above. frac.c exports it as ALEA__FRAC_SYMBOL. */
#define ALEA__FRAC_MEMBER_STATUS(name, params, args, c) alea_status(*name) params;
#define ALEA__FRAC_MEMBER_VOID(name, params, args, c) void(*name) params;
typedef struct alea__frac_ops {
    const char *version; /* ALEA_VERSION_STRING */
    size_t sizes[5];     /* ALEA__FRAC_SIZES */
    ALEA__FRAC_STATUS(ALEA__FRAC_MEMBER_STATUS)
    ALEA__FRAC_VOID(ALEA__FRAC_MEMBER_VOID)
    int (*sgn)(alea_ctx *ctx, const alea__q *q);
} alea__frac_ops;
#define ALEA__FRAC_SIZES                                                                     \
    {sizeof(alea_ctx), sizeof(alea__pmf), sizeof(alea__acc), sizeof(alea_dist),               \
     sizeof(alea__frac_ops)}
#define ALEA__FRAC_SYMBOL "alea_exact_module_ops"

/* ---- keep.c ---- */

/*
 * The distribution of the sum of g over the dice at sorted (ascending)
 * positions [lo, hi) of m iid dice distributed as die (0 <= lo <= hi <= m).
 * g[i] is the contribution of die outcome i (NULL: the outcome's value).
 * Keep/drop is computed by order-statistic dynamic programming over the
 * die's outcomes, never by enumerating rolls. A die with deficient mass
 * (its probabilities sum to 1 - die->trunc) gives out->trunc =
 * 1 - (1 - die->trunc)^m.
 */
ALEA__HIDDEN alea_status alea__keep(alea_ctx *ctx, const alea__pmf *die,
                                         const int64_t *g, int64_t m, int64_t lo,
                                         int64_t hi, const node *at, alea__pmf *out);
/* alea__keep by the threshold method alone (a threshold per outcome, see
 * keep.c), which alea__keep picks when it is the cheaper or in exact mode;
 * only for a kept range at one end (lo == 0 or hi == m). For tests. */
ALEA__HIDDEN alea_status alea__keep_threshold(alea_ctx *ctx, const alea__pmf *die,
                                              const int64_t *g, int64_t m, int64_t lo,
                                              int64_t hi, const node *at, alea__pmf *out);

/*
 * The distribution of the pool node `at` of m dice distributed as die (g as
 * in alea__keep) with its selection steps (select.c) after its keep steps.
 * Errors: ALEA_ERR_LIMIT when the pool needs more work than the limit.
 */
ALEA__HIDDEN alea_status alea__select_dist(alea_ctx *ctx, const node *at,
                                           const alea__pmf *die, const int64_t *g,
                                           int64_t m, alea__pmf *out);

/*
 * The same with "ra": before keeping, the lowest die whose value matches
 * (match[i] for die outcome i) is rolled again and the new roll stands.
 * Walks from the bottom only, so it suits small pools.
 */
ALEA__HIDDEN alea_status alea__keep_ra(alea_ctx *ctx, const alea__pmf *die,
                                            const int64_t *g, const uint8_t *match,
                                            int64_t m, int64_t lo, int64_t hi,
                                            const node *at, alea__pmf *out);

/* ---- unique.c ---- */

/*
 * The distribution of the pool of N_DICE node n with unique ("u", "uo"),
 * then its keep, drop, selections and success counts: die is one die's
 * distribution, g[i] the contribution of outcome i (its success score;
 * NULL: its value). Errors:
 * ALEA_ERR_LIMIT when the pool needs more work than the limit ("uo", a
 * condition or faces of unequal weight walk every multiset of faces).
 */
ALEA__HIDDEN alea_status alea__unique_dist(alea_ctx *ctx, const node *n, const alea__pmf *die,
                                           const int64_t *g, alea__pmf *out);

/* ---- the expectation of a function of the outcome (for a mechanic's own
 * tables, kept with the mechanic) ---- */

/* Sum of p(v) f(v, ud) over the outcomes, divided by their mass; ALEA_OK, or
 * the first status f returns other than ALEA_OK. */
ALEA__HIDDEN alea_status alea__dist_expect(const alea_dist *d,
                                           alea_status (*f)(int64_t v, void *ud, double *x),
                                           void *ud, double *mean);

#endif /* ALEA_DIST_H */
