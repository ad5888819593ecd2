/*
 * share.h -- work shared between the values of a binding, in the exact
 * engine (share.c; exact.c calls it).
 *
 * "let a = d20 in a + 100d6" computes its body once per value of a, but
 * 100d6 does not read a: its distribution is the same each time. The
 * evaluation keeps such a subtree's distribution, keyed by its node, and
 * hands out copies instead of computing it again.
 *
 * What a subtree depends on is learnt while it is computed, not marked in
 * the tree. The bindings under way that mix several values are numbered by
 * depth (levels 1, 2, ...; the outermost is 1), each slot remembers the
 * levels its value stands for, and a use of a name (N_NAME) marks them in
 * the reads of the computation under way; every node's computation
 * collects the reads of its own part of the tree, a binding removing its
 * own level when its body is done. A slot bound to a certain value ("let
 * hit = a >= 8" with a bound) has no level of its own: it stands for the
 * levels its value read, of which it is a function, so a part that reads
 * hit is kept for as long as a holds its value. The engine is a function of the values bound, so a node reads
 * the same names, and has the same distribution, whenever the names it
 * read hold the same values (a branch not taken reads nothing). A node that
 * read no level as deep as the innermost binding under way is therefore
 * the same for that binding's next values: it is kept until a binding it
 * read moves to its next value (then dropped), or to the end of the
 * evaluation when it read none. Nothing else is needed: the tree stays
 * const and unmarked, a mechanic (N_MECH) needs nothing from the seam as
 * long as it computes its children through alea__exact_eval, and a subtree
 * met twice is looked up both times (sound under two bindings that mix,
 * whose levels differ; under two certain bindings of one slot it would not
 * be, but the parser builds trees, where a node is met under one binding of
 * each name).
 *
 * Only the largest such subtrees are kept: keeping a node drops what its
 * own computation kept (its parts), which its entry makes unreachable. A
 * node is kept only when computing it cost more work than a copy.
 *
 * Charges: a copy costs SHARE_COPY_COST units an outcome (a fraction's
 * digits beside, in exact mode), charged when the node is kept and each
 * time a copy is handed out; a lookup is part of the unit every node costs.
 * Memory: the entries are allocated through the context, under the memory
 * limit, and released when the evaluation ends; where the limit (or the
 * allocator) refuses one, the node is not kept. When the limit would refuse
 * any other allocation, everything kept is given back first (ctx->give_back)
 * and the evaluation goes on sharing nothing, computing again under the
 * work limit: what fits the memory limit without sharing fits it with.
 *
 * Levels are a 64-bit set: levels 1 to 62 a bit each, deeper ones share
 * bit 62, so a node that reads a binding nested 63 deep or more is never
 * kept (its parts still are). The last bit, PARAM, stands for the
 * parameters (params.c): a use of one reads it, as a certain value read
 * nothing of the evaluation's own bindings.
 *
 * Across evaluations (a table's cells, sweep.c): the cells evaluate one
 * compiled expression at different values of its parameters. A node that
 * read nothing at all (neither a level nor PARAM) has the same distribution
 * in every cell: with an `across` keeping (alea__share_across_init, owned
 * by the caller of the evaluations and put in ctx->across while they run),
 * such a node is kept there, at any depth, instead of in the evaluation's
 * own, and found by the next cells ("10d10!kh5 + m >= dc": the keep over
 * explosions once, then a shift and a comparison per cell). Its entries
 * say whether their computation came near the double range (low), which a
 * copy passes on to the evaluation (ctx->near_underflow: api.c then
 * computes again in fractions, as it would have). Only the number system
 * it was made in reads it (a doubles table's cell recomputed in fractions
 * shares nothing across). It is charged, kept and given back as the
 * evaluation's own is: ctx->give_back (alea__share_give_back) frees both,
 * and the across keeping keeps nothing more.
 */
#ifndef ALEA_SHARE_H
#define ALEA_SHARE_H

#include "ast.h"
#include "weight.h"

typedef struct alea__share_entry {
    const node *n;
    uint64_t reads; /* the levels its computation read */
    uint8_t low;    /* its computation came near the double range */
    alea__pmf d;
} alea__share_entry;

typedef struct alea__share {
    uint32_t depth; /* bindings under way */
    uint64_t reads; /* levels read by the node under computation so far */
    uint32_t nslots;
    uint64_t *uses; /* uses[slot]: the levels a use of the slot reads */
    /* The entries, in the order they were kept (a node after its parts). */
    alea__share_entry *e;
    size_t n, cap;
    /* Index by node: open addressing, linear probing; 1 + an index into e,
     * 0 free; hcap a power of two, at least twice n. */
    uint32_t *h;
    size_t hcap;
    uint8_t busy; /* copying from or into an entry: nothing given back */
    uint8_t off;  /* given back: nothing more kept */
    uint8_t exact; /* an across keeping: the number system of its entries */
    /* An evaluation's: the keeping across evaluations it reads and adds to
     * (ctx->across in its number system), or NULL. */
    struct alea__share *across;
} alea__share;

/* Where a node's computation started: what alea__share_end needs. */
typedef struct alea__share_mark {
    uint64_t reads;
    size_t top, across_top;
    int64_t work;
} alea__share_mark;

/* What a binding replaced (alea__share_bind), given back at its end. */
typedef struct alea__share_saved {
    uint64_t uses;
    size_t top;
    int mixes; /* the binding has a level of its own */
} alea__share_saved;

/* Sharing for an evaluation of an expression of nslots slots, the first
 * nparams of them its parameters: nothing kept, no binding under way; it
 * reads and adds to ctx->across when that is in ctx->exact's number system.
 * Released by alea__share_free. */
ALEA__HIDDEN alea_status alea__share_init(alea_ctx *ctx, uint32_t nslots, uint32_t nparams,
                                          alea__share *s);
ALEA__HIDDEN void alea__share_free(alea_ctx *ctx, alea__share *s);
/* A keeping across evaluations, empty, in ctx->exact's number system; the
 * caller puts it in ctx->across while the evaluations run, with
 * alea__share_give_back as ctx->give_back between them, and releases it
 * with alea__share_free. Allocates nothing. */
ALEA__HIDDEN void alea__share_across_init(alea_ctx *ctx, alea__share *s);
/* ctx->give_back while an evaluation shares, or while ctx->across keeps:
 * frees every entry of both (but the one a copy is under way from or
 * into) and they keep nothing more. */
ALEA__HIDDEN void alea__share_give_back(alea_ctx *ctx);

/* The following take the sharing of the evaluation under way, ctx->share;
 * with none (NULL) they share nothing. */

/* 1 when node n is kept: then *out is a copy of its distribution and *st
 * the status of the copy (charged first: the work limit may refuse it).
 * 0: not kept (or a copy the memory limit refused: then nothing is kept
 * any more), *out and *st untouched. */
ALEA__HIDDEN int alea__share_get(alea_ctx *ctx, const node *n, alea__pmf *out, alea_status *st);
/* Before node n is computed (after alea__share_get said 0). */
ALEA__HIDDEN void alea__share_begin(alea_ctx *ctx, alea__share_mark *m);
/* After node n was computed into *out with status st (*out set only when
 * st is ALEA_OK): its reads pass to its parent, and it is kept when it cost
 * more than a copy and read nothing as deep as the innermost binding (in
 * the evaluation's keeping), or nothing at all (in the across keeping, when
 * there is one); ctx->near_underflow says whether it came near the double
 * range.
 * Returns st, or the host's interruption while charging the copy. */
ALEA__HIDDEN alea_status alea__share_end(alea_ctx *ctx, const node *n,
                                         const alea__share_mark *m, alea_status st,
                                         const alea__pmf *out);
/* A use of slot (bound: alea__env_get said so) read its value. */
ALEA__HIDDEN void alea__share_read(alea_ctx *ctx, uint32_t slot);
/* The levels read since mark m (alea__share_begin), passed on to the
 * computation under way: what a binding's value read. */
ALEA__HIDDEN uint64_t alea__share_took(alea_ctx *ctx, const alea__share_mark *m);
/* A binding of slot (below nslots: alea__env_bind said so) starts: one of
 * several values (mixes), one level deeper; or a certain value whose
 * computation read the levels `value_reads`. alea__share_unbind ends it,
 * dropping what read its level. */
ALEA__HIDDEN void alea__share_bind(alea_ctx *ctx, uint32_t slot, int mixes,
                                   uint64_t value_reads, alea__share_saved *saved);
ALEA__HIDDEN void alea__share_unbind(alea_ctx *ctx, uint32_t slot,
                                     const alea__share_saved *saved);

#endif /* ALEA_SHARE_H */
