/*
 * policy.h -- the player's decisions, as a mechanic reports them
 * (alea_policy_new, policy.c): a row per situation the player can see at
 * the mechanic's first choice point, the choice that is best for its goal,
 * and the goal's value with that choice and without choosing.
 *
 * A mechanic with a choice (mech.h's policy operation) fills the table
 * through these calls; the table belongs to the public alea_policy, which
 * writes it as JSON or CSV. Rows that share a choice are grouped by the
 * hosts when they come one after another: a mechanic orders its rows so.
 */
#ifndef ALEA_POLICY_H
#define ALEA_POLICY_H

#include "core.h"

/* The goal, as a person reads it ("the chance of >= 20", "the mean"); and
 * what its values are: probabilities (1) or totals (0). */
ALEA__HIDDEN alea_status alea__policy_goal(alea_policy *p, const char *goal, int is_prob);
/*
 * One situation: what the player sees ("6 5 3 2 1"), the best choice
 * ("keep 6 5", "keep all", "double down"), the chance of
 * seeing it, the goal's value with that choice (value) and without
 * choosing (plain), and value as an exact fraction or NULL. Copied.
 */
ALEA__HIDDEN alea_status alea__policy_row(alea_policy *p, const char *seen, const char *choice,
                                          double prob, double value, double plain,
                                          const char *value_text);
/* The goal's value of the whole expression with its choices (the best
 * ones, or its fixed rule's), and as an exact fraction or NULL. */
ALEA__HIDDEN alea_status alea__policy_total(alea_policy *p, double value, const char *text);

/* The goal's value of the whole expression with the best choices, where
 * the expression's own rule may choose otherwise (a fixed policy); not
 * called: the rule is the best. */
ALEA__HIDDEN alea_status alea__policy_optimum(alea_policy *p, double value, const char *text);

#endif /* ALEA_POLICY_H */
