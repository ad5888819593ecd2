/*
 * group.h -- group rolls "{4d6 + 3, 2d8}kh1", "{4d6 + 3d8}k4",
 * "{3d10 + 5}>=30f<=15" (group.c): what the parser, the printer, the
 * roller and the exact engine call for an N_GROUP node (ast.h).
 */
#ifndef ALEA_GROUP_H
#define ALEA_GROUP_H

#include "ast.h"
#include "dist.h"
#include "out.h"
#include "parse.h"
#include "roll.h"

/* group = "{" expr { "," expr } "}" [ keep ] [ count ], at '{'. */
ALEA__HIDDEN alea_status alea__group_parse(alea__parser *p, const node **out);
/* Avrae's d20 set "(1d4 + 1, 3)kh1", at the ',' after its first member
 * (parsed, inside the parenthesis at byte open, which the parser entered):
 * a group of totals. */
ALEA__HIDDEN alea_status alea__group_parse_set(alea__parser *p, size_t open,
                                               const node *first, const node **out);
/* The canonical text "{a, b}kh1", and its modifiers alone ("kh1"). */
ALEA__HIDDEN void alea__group_print(alea__out *o, const node *n);
ALEA__HIDDEN void alea__group_print_mods(alea__out *o, const group *g);
/* One roll: the members' records in rc->kids, their marks in rc->marks. */
ALEA__HIDDEN alea_status alea__group_roll(alea__rstate *s, const node *n, rec *rc,
                                          int64_t *value);
/* The exact distribution. */
ALEA__HIDDEN alea_status alea__group_exact(alea_ctx *ctx, const node *n, alea__pmf *out);

#endif /* ALEA_GROUP_H */
