/*
 * dist.h -- the public distribution object (dist.c): an alea_dist's
 * insides, what the mechanic of the expression's root notes beside the
 * outcomes, and the making of one from a finished pmf (weight.h).
 */
#ifndef ALEA_DIST_H
#define ALEA_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "weight.h"

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
    double *cum;           /* without fracs: P(X >= value i) and P(X <= value
                              i), 2 a row, made once so that a roll's luck is
                              a binary search, not a sum over every outcome */
    alea__range tree;      /* the expression's bounds (bounds.c), for min and
                              max where the outcomes listed may not reach
                              them */
    const char *incomplete; /* outcomes too rare for doubles may be missing:
                               why they could not be recomputed, or NULL */
    char why[256];          /* incomplete's text when it is not static */
    size_t len;            /* bytes of src, without the NUL */
    char src[];            /* copy of the expression's source */
};

/* The most probability the explosion tails may cut from a result (1%):
 * past it alea_expr_dist fails with ALEA_ERR_LIMIT instead of returning a
 * distribution that is mostly missing. */
#define ALEA__TRUNC_MAX 0.01

/* Makes the public object: moves *pmf into it (leaving *pmf empty) and
 * copies the len bytes of src. On error *pmf is untouched. */
ALEA__HIDDEN alea_status alea__dist_make(alea_ctx *ctx, alea__pmf *pmf, const char *src,
                                         size_t len, alea_dist **out);

/* ---- the expectation of a function of the outcome (for a mechanic's own
 * tables, kept with the mechanic) ---- */

/* Sum of p(v) f(v, ud) over the outcomes, divided by their mass; ALEA_OK, or
 * the first status f returns other than ALEA_OK. */
ALEA__HIDDEN alea_status alea__dist_expect(const alea_dist *d,
                                           alea_status (*f)(int64_t v, void *ud, double *x),
                                           void *ud, double *mean);

/* The merged walk up the values of two pmfs (alea_dist_versus: versus.c,
 * fractions/frac_versus.c), at a's i-th and b's j-th outcome: the lesser
 * of their values, or x past the end of both. */
static inline int64_t alea__walk_next(const alea__pmf *a, size_t i, const alea__pmf *b,
                                      size_t j, int64_t x)
{
    if (i >= a->n)
        return j < b->n ? b->v[j] : x;
    return j >= b->n || a->v[i] <= b->v[j] ? a->v[i] : b->v[j];
}

/* The index of outcome v among dist's (ascending), or their count when v
 * is none of them: a binary search. */
ALEA__HIDDEN size_t alea__dist_index(const alea_dist *dist, int64_t v);

#endif /* ALEA_DIST_H */
