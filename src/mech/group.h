/*
 * mech/group.h -- what the group's two files share: a group's spec, and
 * the facts about its members that rolling (group.c) and the exact
 * distribution (group_exact.c) both read. Private to them.
 */
#ifndef ALEA_MECH_GROUP_H
#define ALEA_MECH_GROUP_H

#include "../mech.h"
#include "../pool.h"

/*
 * A group's arguments, the spec of its N_MECH node: each member is rolled
 * to a total; a keep or drop chooses among the totals (the value is the
 * kept ones' sum), or a success count judges each total. With one member
 * and a keep or a count ("dice" set), the dice of its pools form one pool
 * instead: the keep chooses among the dice, the count judges each die plus
 * the member's numbers (Roll20's single sub-roll).
 */
typedef struct group {
    const node *const *items;
    uint32_t n; /* >= 1 */
    uint8_t has_keep, dice;
    keep_step keep;
    uint8_t has_success, has_failure;
    cond success, failure;
    /* "s"/"sa", "sd" (rpg-dice-roller's): the breakdown lists the members
     * by their totals and each pool's dice in order; the value is
     * unchanged. SORT_ASC or SORT_DESC, 0: none. */
    uint8_t sort;
} group;

static inline const group *group_of(const node *n)
{
    return n->u.mech.spec;
}

/* +1 a success, -1 a failure, 0 neither (or both), with their marks. */
static inline int judge(const group *g, int64_t v, uint8_t *mark)
{
    alea__judge j = {&g->success, g->has_failure ? &g->failure : NULL, 0};
    int sc = 0;
    (void)alea__judge_score(&j, v, &sc, mark, DIE_SUCCESS, DIE_FAILURE); /* adds 0 */
    return sc;
}

/* The items of a group's dice member (a sum, or one pool): *items, *ops
 * (NULL: all added), *cnt. */
static inline void member_items(const group *g, const node *const **items,
                                const uint8_t **ops, uint32_t *cnt)
{
    const node *m = g->items[0];
    if (m->kind == N_SUM) {
        *items = m->u.chain.items;
        *ops = m->u.chain.ops;
        *cnt = m->u.chain.n;
    } else {
        *items = g->items;
        *ops = NULL;
        *cnt = 1;
    }
}

/* The numbers a dice member adds to its dice ("{3d20 + 5}": 5), into *c;
 * an overflow is the roller's error when s is given (group.c). */
ALEA__HIDDEN alea_status alea__group_member_numbers(alea_ctx *ctx, const node *n,
                                                    alea__rstate *s, int64_t *c);

/* The group's exact distribution, its row's exact (group_exact.c). */
ALEA__HIDDEN alea_status alea__group_exact(alea_ctx *ctx, const node *n, alea__pmf *out,
                                           alea__notes *notes);

#endif /* ALEA_MECH_GROUP_H */
