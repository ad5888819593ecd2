/*
 * ddouble.h -- double-double arithmetic (a value is hi + lo, lo the rounding
 * error of hi): the sums of the distribution object's statistics (dist.c)
 * and of the distances between two distributions (versus.c).
 */
#ifndef ALEA_DDOUBLE_H
#define ALEA_DDOUBLE_H

#include <math.h>

/*
 * Statistics in doubles are computed in double-double arithmetic (a value
 * is hi + lo, with lo the rounding error of hi, Dekker and Knuth's exact
 * sums and products): about 106 bits, so that what is finally rounded to a
 * double is the nearest to the sums' true value.
 */
typedef struct ddouble {
    double hi, lo;
} ddouble;

/* a + b, b a double. */
static inline ddouble dd_add(ddouble a, double b)
{
    double s = a.hi + b, bb = s - a.hi;
    double e = (a.hi - (s - bb)) + (b - bb) + a.lo;
    double h = s + e;
    return (ddouble){h, e - (h - s)};
}

/* a + b. */
static inline ddouble dd_sum(ddouble a, ddouble b)
{
    return dd_add(dd_add(a, b.hi), b.lo);
}

/* a b, exactly. */
static inline ddouble dd_prod(double a, double b)
{
    double p = a * b;
    return (ddouble){p, fma(a, b, -p)};
}

/* a b, b a double. */
static inline ddouble dd_mul(ddouble a, double b)
{
    ddouble p = dd_prod(a.hi, b);
    return dd_add(p, a.lo * b);
}

/* a / b, as a double-double. */
static inline ddouble dd_div(ddouble a, ddouble b)
{
    double q = a.hi / b.hi;
    ddouble p = dd_mul(b, q); /* q b, less than an ulp from a */
    ddouble r = dd_sum(a, (ddouble){-p.hi, -p.lo});
    double q2 = (r.hi + r.lo) / b.hi;
    double h = q + q2;
    return (ddouble){h, q2 - (h - q)};
}

/* The double nearest to a. */
static inline double dd_round(ddouble a)
{
    return a.hi + a.lo;
}

#endif /* ALEA_DDOUBLE_H */
