/*
 * fairness.h -- the distributions of fairness.c's statistics, shared with
 * its tests (which check them against GSL).
 */
#ifndef ALEA_FAIRNESS_H
#define ALEA_FAIRNESS_H

#include "core.h"

/* P(|Z| >= |z|) for a standard normal Z: erfc(|z| / sqrt 2). */
ALEA__HIDDEN double alea__normal_q2(double z);
/* P(X >= x) for X chi-square with df degrees of freedom. */
ALEA__HIDDEN double alea__chisq_q(double x, double df);
/* P(K > lambda) for the Kolmogorov distribution. */
ALEA__HIDDEN double alea__kolmogorov_q(double lambda);

#endif /* ALEA_FAIRNESS_H */
