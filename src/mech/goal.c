/*
 * mech/goal.c -- a chooser's goal (goal.h): parsed, printed, and the
 * value it gives a total or a distribution.
 */
#include "goal.h"

#include "../policy.h"

#include <stdio.h>
#include <stdlib.h>

alea_status alea__goal_parse(alea__parser *p, const char *fname, alea__goal *g)
{
    static const char *const words[] = {ALEA__GOAL_WORDS, NULL};
    uint8_t op;
    g->is_cond = 0;
    g->cond.op = CMP_GE;
    g->cond.value = 0;
    if (alea__parse_cmp(p, &op)) {
        g->is_cond = 1;
        g->cond.op = op;
        return alea__parse_int(p, fname, "target", -INT64_MAX, INT64_MAX, &g->cond.value);
    }
    int which;
    return alea__parse_word(p, words, ALEA__GOAL_TAKES, &which);
}

void alea__goal_print(alea__out *o, const alea__goal *g)
{
    if (!g->is_cond) {
        alea__out_str(o, "mean");
        return;
    }
    alea__out_str(o, alea__cmp_str(g->cond.op));
    alea__out_char(o, ' ');
    alea__out_i64(o, g->cond.value);
}

double alea__goal_value(const alea__goal *g, int64_t total)
{
    return g->is_cond ? (double)alea__cond_match(&g->cond, total) : (double)total;
}

double alea__goal_of_pmf(const alea__goal *g, const alea__pmf *d)
{
    double s = 0;
    for (size_t i = 0; i < d->n; i++)
        s += d->p[i] * alea__goal_value(g, d->v[i]);
    return s;
}

void alea__goal_name(alea__out *o, const alea__goal *g)
{
    if (!g->is_cond) {
        alea__out_str(o, "expected total");
        return;
    }
    alea__out_str(o, "chance of ");
    alea__goal_print(o, g);
}

void alea__goal_show(alea__out *o, const alea__goal *g, double v)
{
    char tmp[48];
    if (!g->is_cond) {
        snprintf(tmp, sizeof tmp, "%.4g", v);
        alea__out_str(o, tmp);
        return;
    }
    /* Three digits, but a chance that is not certain never shows as 0% or
     * 100%: "0.0463%", "99.99%". */
    double pc = 100 * v;
    int digits = 3;
    while (digits < 12 && pc > 0 && pc < 100) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, pc);
        double back = strtod(tmp, NULL);
        if (back > 0 && back < 100)
            break;
        digits++;
    }
    snprintf(tmp, sizeof tmp, "%.*g%%", digits, pc);
    alea__out_str(o, tmp);
}

alea_status alea__goal_policy(alea_policy *p, const alea__goal *g)
{
    char goal[96];
    alea__out o;
    alea__out_init(&o, goal, sizeof goal);
    alea__out_str(&o, "the ");
    alea__goal_name(&o, g);
    alea__out_finish(&o);
    return alea__policy_goal(p, goal, g->is_cond);
}
