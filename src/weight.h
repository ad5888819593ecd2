/*
 * weight.h -- the data layouts both number systems share: a distribution
 * under construction (alea__pmf), a probability as a weight (alea__w) and a
 * weight being computed (alea__x), the hash table and the accumulator that
 * build outcomes, the pairs an operation makes, and the work units their
 * steps cost; and the storage of a pmf (weight.c). The functions over
 * them are declared by their modules (pmf.h, table.h) and, in fractions,
 * by fractions/frac.h.
 *
 * A distribution under construction is an alea__pmf: outcomes with distinct
 * values in ascending order and positive probabilities, plus the mass that
 * explosion tails cut off. Outcomes are built through an alea__acc, which
 * adds into a dense array when the value range is small and otherwise
 * into a hash table of the values, sorted once at the end, so a sparse
 * distribution (1d6 * 1000) costs its support, not its range.
 */
#ifndef ALEA_WEIGHT_H
#define ALEA_WEIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

struct node; /* ast.h: the spans of errors */

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
#ifdef ALEA_MINI_GMP
#include "fractions/mini.h" /* the WebAssembly build */
#else
#include <gmp.h>
#endif
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
     * alea__exact_pool_die (exact_die.c) proved it, so a keep may sort a
     * cut die above the outcomes up to cut_low; 0 (what every other
     * operation makes): nothing is known of a cut value */
    int has_cut_low;
    int64_t cut_low;
} alea__pmf;

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

/* A probability as mantissa * 10^e, mantissa in [1, 10) (0 for 0): one
 * below the double range (300d20 rolling all 1s, 4.9e-391). */
typedef struct alea__sci {
    double m;
    int64_t e;
    double d; /* the nearest double (0 below the range) */
} alea__sci;

/* d as mantissa m * 10^e with m brought into [1, 10) (e from a logarithm
 * may be one off at a power of ten); a double d > 0 as mantissa * 10^e
 * (weight.c). */
ALEA__HIDDEN alea__sci alea__sci_norm(double d, double m, int64_t e);
ALEA__HIDDEN alea__sci alea__sci_of(double d);

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

typedef struct alea__pair {
    int64_t v;
    double p;
} alea__pair;

typedef struct alea__acc {
    alea_ctx *ctx;
    const struct node *at; /* span for errors */
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

/* ---- storage (weight.c) ----
 * The block of a pmf of n outcomes: d's fields reset, d->v and d->p (and
 * with `exact`, d->q: room for n fractions, not yet set up) in one spare
 * block; n == 0: no block. Out of memory: ALEA_ERR_NOMEM, d empty. Freed
 * by alea__pmf_block_free once its fractions are given back (pmf.h's
 * alea__pmf_alloc and alea__pmf_free do both). */
ALEA__HIDDEN alea_status alea__pmf_block_alloc(alea_ctx *ctx, size_t n, int exact,
                                               alea__pmf *d);
ALEA__HIDDEN void alea__pmf_block_free(alea_ctx *ctx, alea__pmf *d);

#endif /* ALEA_WEIGHT_H */
