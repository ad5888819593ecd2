/*
 * mech/goal.h -- what a player who chooses aims for: the GOAL argument of
 * the constructs whose value follows choices made on the way (reroll(),
 * and later event() and dd() with a goal). A goal is
 *
 *   mean          the largest expected total
 *   >= T, <= T, = T, > T, < T, <> T
 *                 the largest chance that the total meets the condition
 *
 * Every choice compares "the goal's value" of what may follow: the total
 * itself for mean, 1 or 0 for a condition; the value of a distribution is
 * its expectation (the mean, or the chance of the condition).
 */
#ifndef ALEA_MECH_GOAL_H
#define ALEA_MECH_GOAL_H

#include "../out.h"
#include "../parse.h"
#include "../pool.h"
#include "../weight.h"

/* The words a goal may be: put them in the mechanic's words (mech.h), as
 * in {"smallest", ALEA__GOAL_WORDS, NULL}, so that the lexer keeps them. */
#define ALEA__GOAL_WORDS "mean"
/* What a goal is, as its parser's error says it. */
#define ALEA__GOAL_TAKES                                                                    \
    "a goal: mean (the largest expected total) or a condition on the total such as >= 20 " \
    "(the largest chance of it)"

typedef struct alea__goal {
    uint8_t is_cond; /* 0: mean; 1: the condition cond */
    cond cond;       /* op CMP_EQ .. CMP_GE (pool.h), value the target */
} alea__goal;

/*
 * goal = "mean" | ("=" | "<>" | "<" | "<=" | ">" | ">=") expr
 * Parses a goal argument through the parser's interface; the target is a
 * dice-free whole number. fname names the call in messages. On error the
 * context holds the message and the span (an unknown word: at the word).
 */
ALEA__HIDDEN alea_status alea__goal_parse(alea__parser *p, const char *fname, alea__goal *g);
/* The canonical text: "mean", ">= 20". */
ALEA__HIDDEN void alea__goal_print(alea__out *o, const alea__goal *g);
/* The goal's value of a final total: the total (mean), or 1 or 0. */
ALEA__HIDDEN double alea__goal_value(const alea__goal *g, int64_t total);
/* The goal's value of a distribution: its mean, or the chance that the
 * condition holds (in doubles, whatever d's number system). */
ALEA__HIDDEN double alea__goal_of_pmf(const alea__goal *g, const alea__pmf *d);
/* What a goal's value is, as a breakdown names it: "expected total",
 * "chance of >= 20". */
ALEA__HIDDEN void alea__goal_name(alea__out *o, const alea__goal *g);
/* Sets the goal of policy p (alea__policy_goal) to g's: "the expected
 * total", "the chance of >= 20", chances for a condition. */
ALEA__HIDDEN alea_status alea__goal_policy(alea_policy *p, const alea__goal *g);
/* A goal's value v as a breakdown writes it: "17.93" (mean), "74.1%"
 * (a chance, in three digits, never 0% or 100% unless it is). */
ALEA__HIDDEN void alea__goal_show(alea__out *o, const alea__goal *g, double v);

#endif /* ALEA_MECH_GOAL_H */
