/*
 * pool.h -- what a dice term means, apart from how it was written or how
 * it is evaluated: conditions on faces, a die's faces, the pool of dice
 * and its modifiers (rerolls, clamps, explosions, keep and select steps,
 * success counts), and the facts the parser's checks, the roller and the
 * exact engine all ask of it (pool.c). It knows no node: the pool's rolled
 * count and sides are the tree's (ast.h), held here as opaque pointers.
 */
#ifndef ALEA_POOL_H
#define ALEA_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

struct node;

typedef enum cmp_op {
    CMP_EQ, /* =  or == */
    CMP_NE, /* <> */
    CMP_LT, /* <  */
    CMP_LE, /* <= */
    CMP_GT, /* >  */
    CMP_GE, /* >= */
    /* Conditions on one die face only (never an N_CMP): the face is even,
     * or odd (Foundry VTT's "even", "odd" counts); value unused (0). */
    CMP_EVEN,
    CMP_ODD
} cmp_op;

/* Whether a condition's op tests the face's parity (CMP_EVEN, CMP_ODD):
 * it prints as a word, without a value. */
#define ALEA__COND_PARITY(op) ((op) == CMP_EVEN || (op) == CMP_ODD)

/* How many reroll conditions one die takes ("2d8r8r2" has two): every
 * face the die shows is tested against each, in the roller and the exact
 * engine alike. Roll20's docs write two; more than a few faces is a custom
 * die's job (d{...}) or a range condition's (r<3). */
#define ALEA__REROLLS_MAX 8
/* Critical markers of one kind on one die ("cs20cs10"), at most: a face is
 * matched against each, so they are few, as the rerolls are. */
#define ALEA__MARKS_MAX 8

/* A condition on one die face: "face <op> value". */
typedef struct cond {
    uint8_t op; /* cmp_op; CMP_NE ("<>") in rerolls, failures and markers */
    int64_t value;
} cond;

/* A count's judgement of a value (a pool's "3d6!>=5f1", a group's
 * "{2d6! + 1}>=5"): the value plus add scores +1 when success matches, -1
 * when failure matches (0 both or neither); either may be NULL. */
typedef struct alea__judge {
    const cond *success, *failure;
    int64_t add;
} alea__judge;

/* Face set of one die. RANGE: lo..hi, each once. LIST: faces[] as written
 * (duplicates allowed, weight = multiplicity); sorted ascending copy in
 * sorted[] for the engines. */
typedef enum face_kind { FACES_RANGE, FACES_LIST } face_kind;

typedef enum die_style {
    DIE_PLAIN,  /* dX, d{...}: printed as "dX" or "d{...}" */
    DIE_PCT,    /* d%: 1..100 */
    DIE_FUDGE,  /* dF: -1..1 */
    DIE_BRACE,  /* d{a..b}: a range written in braces */
    DIE_NULL    /* d0 with boons or banes: faces hold its value, prints "0" */
} die_style;

typedef struct die_spec {
    uint8_t kind;  /* face_kind */
    uint8_t style; /* die_style (printing only) */
    int64_t lo, hi;        /* RANGE bounds, and min/max face for LIST too */
    const int64_t *faces;  /* LIST: faces as written */
    const int64_t *sorted; /* LIST: the same, sorted ascending */
    uint32_t nfaces;       /* LIST: number of faces (>= 1) */
} die_spec;

typedef enum explode_kind {
    EXPLODE_NONE,
    EXPLODE_EACH,    /* "!"  : each extra roll is shown as its own roll; success
                        counting judges every roll; keep/drop sees the die's
                        total */
    EXPLODE_COMPOUND /* "!!" : extra rolls add into the die; everything sees
                        the total */
} explode_kind;

typedef enum keep_op { KEEP_HIGH, KEEP_LOW, DROP_HIGH, DROP_LOW } keep_op;

/* How extra dice were written after a term: a row of the extra-dice table
 * (mech.h, listed in mech/list.c). */
struct alea__extra;

typedef struct keep_step {
    uint8_t op; /* keep_op */
    int64_t n;  /* >= 0 */
} keep_step;

/* A selection of dice (Avrae's d20 "k3", "kh3", "p<3"; alea's "k{3}",
 * "p{h1,l1}"): the dice still kept that a value condition matches, or the
 * n highest or lowest of them. */
typedef enum sel_kind { SEL_VALUE, SEL_HIGH, SEL_LOW } sel_kind;

typedef struct select_item {
    uint8_t kind; /* sel_kind */
    cond c;       /* SEL_VALUE */
    int64_t n;    /* SEL_HIGH, SEL_LOW: >= 0 */
} select_item;

/* One step: the union of its items' selections is kept (every other die
 * still kept is dropped), or dropped. */
typedef struct select_op {
    uint8_t drop;
    uint32_t first, n; /* items[first .. first + n) of the pool's sel_items */
} select_op;

enum { SORT_NONE, SORT_ASC, SORT_DESC };

enum { UNIQUE_NONE, UNIQUE_ALL, UNIQUE_ONCE };

/*
 * A dice pool: count dice of one kind, each rolled (and rerolled, exploded)
 * independently; then the keep steps pick a contiguous range of the sorted
 * dice; then the kept dice are summed, or counted as successes.
 *
 * Per-die pipeline, in this order:
 *   1. roll a face;
 *   2. reroll: while the face matches (once only if reroll_once), roll again;
 *   2b. clamp: a face below clamp_lo counts as clamp_lo, above clamp_hi as
 *      clamp_hi: the first roll only, and the trigger sees the clamped
 *      value (clamp_all 0), or every roll of the chain after the trigger
 *      saw its face (clamp_all 1);
 *   3. explode: while the latest face matches the trigger, roll another face
 *      (itself rerolled as in 2) and add it (minus 1 per extra roll when
 *      penetrate). The die's value is the sum of its chain. With
 *      explode_once only the first roll can explode; with explode_cap > 0
 *      the whole pool explodes at most that many times, the dice in order
 *      (each die's chain before the next die), and a roll made once the
 *      cap is reached is not tested.
 *   3a. unique ("u", "uo"; dice without rerolls, clamps or explosions):
 *      the dice in order, each face that an earlier die already shows (and
 *      that unique_cond matches, when given) is rolled again, until it is
 *      new ("u") or once, the second face standing ("uo").
 * Pool:
 *   3b. reroll one ("ra"): the lowest die whose value matches is rolled
 *      again (steps 1-3) and the new die stands;
 *   4. boons (extra > 0): extra more dice are rolled and the count highest
 *      are kept; banes (extra < 0): |extra| more, the count lowest kept.
 *   5. keep steps, each on the dice still kept, in order.
 *   5b. selection steps (selects), each on the dice still kept, in order.
 *   6. value: sum of the kept dice, or with success counting the number of
 *      kept dice (rolls, for EXPLODE_EACH) matching success minus those
 *      matching failure.
 */
typedef struct pool {
    const struct node *count_expr; /* rolled count "(1d4)d6", or NULL */
    /* Rolled sides "1d(1d20)", or NULL: then die is a placeholder 1 to
     * INT64_MAX (the parser's checks ask what any die could do), and each
     * roll uses alea__pool_at_sides. */
    const struct node *sides_expr;
    int64_t count;                 /* literal count when count_expr is NULL */
    uint8_t count_implicit;        /* "d20" written without a count */
    die_spec die;

    uint8_t has_reroll, reroll_once;
    cond reroll;
    /* Further reroll conditions on the same die (Roll20's "2d8r8r2"): a
     * face is rerolled when any of reroll and these matches; the same
     * once-or-until as the first. At most ALEA__REROLLS_MAX - 1. */
    const cond *reroll_also;
    uint8_t nreroll_also;

    uint8_t explode;    /* explode_kind */
    uint8_t penetrate;  /* "!p" / "!!p" */
    cond trigger;       /* default: CMP_EQ max face */
    uint8_t trigger_written; /* a condition was written after "!" */
    uint8_t explode_once;    /* "xo": an extra roll never explodes */
    /* Foundry's "xo<8x10", an "xo" then an "x": the first roll also
     * explodes, once, on first_trigger (faces trigger does not match);
     * every roll explodes on trigger, again and again. */
    uint8_t has_first_trigger;
    cond first_trigger;
    int64_t explode_cap;     /* "x5=10": at most 5 in the pool; 0: no cap */

    /* Clamps ("4d6min3", "4d6max5", d20's "mi"/"ma"): step 2b above. */
    uint8_t has_clamp_lo, has_clamp_hi, clamp_all;
    int64_t clamp_lo, clamp_hi;

    /* "ra<cond>": after the pool is rolled, the lowest die matching the
     * condition (if any) is rerolled once and the new roll stands. */
    uint8_t has_reroll_one;
    cond reroll_one;

    int64_t extra; /* net extra dice: > 0 keep the highest, < 0 the lowest */
    /* How the extra dice were written, for printing: their row of the
     * extra-dice table (NULL: none), and the counts as written (before a
     * cap, such as the boons' 5). */
    const struct alea__extra *extra_kind;
    int64_t extra_plus, extra_minus;

    const keep_step *keeps;
    uint32_t nkeeps;
    /* Keep and drop choose among the single rolls of "!" dice, each
     * explosion an entry of its own (rpg-dice-roller's "5d10!k2"): the pool
     * is then the count's first rolls and their explosions, kept or dropped
     * one by one (step 5 on rolls; exact_pool.c, singles). */
    uint8_t keep_rolls;

    /* Pool-level selection, after the keep steps (5b): each step of
     * selects[] in order, on the dice still kept (select.c). */
    const select_op *selects;
    const select_item *sel_items;
    uint32_t nselects;
    /* "s"/"sa", "sd": the breakdown lists the dice sorted ascending or
     * descending; the value is unchanged. */
    uint8_t sort;

    uint8_t has_success, has_failure;
    cond success, failure;

    /* Unique ("u", "uo", "u=5"; rpg-dice-roller's): step 3a above. */
    uint8_t unique; /* UNIQUE_NONE, UNIQUE_ALL ("u"), UNIQUE_ONCE ("uo") */
    uint8_t has_unique_cond;
    cond unique_cond; /* only faces it matches must be unique */

    /* Critical markers ("cs>=19", "cf<3"): which faces the breakdown marks
     * as a critical success or failure, instead of the die's highest and
     * lowest faces. Display only. */
    uint8_t has_crit, has_fumble;
    cond crit, fumble;
    /* Further markers of each ("1d20cs20cs10": Roll20 marks a face that
     * any of them matches). At most ALEA__MARKS_MAX - 1 each. */
    const cond *crit_also, *fumble_also;
    uint8_t ncrit_also, nfumble_also;
} pool;

/* ---- pool.c ---- */

/* Whether face value v satisfies condition c. */
ALEA__HIDDEN int alea__cond_match(const cond *c, int64_t v);
/* A condition's operator in messages: "=", "<", "<=", ">", ">=", and
 * "<>" for the others. */
ALEA__HIDDEN const char *alea__cond_op_str(uint8_t op);
/* j's score of value v into *score, sflag or fflag set in *flags for a
 * success or a failure; 0 when v plus j->add overflows (nothing set). */
ALEA__HIDDEN int alea__judge_score(const alea__judge *j, int64_t v, int *score, uint8_t *flags,
                                   uint8_t sflag, uint8_t fflag);

/* Number of faces of the die (with multiplicity), and face i (0-based,
 * ascending order). */
ALEA__HIDDEN uint64_t alea__die_nfaces(const die_spec *d);
ALEA__HIDDEN int64_t alea__die_face(const die_spec *d, uint64_t i);
/* The number of distinct faces of die d, up to cap. */
ALEA__HIDDEN uint64_t alea__die_distinct_faces(const die_spec *d, uint64_t cap);

/* Whether cond c matches every face of die d, except those matching
 * `except` (faces a reroll "r" removes; NULL for none). */
ALEA__HIDDEN int alea__cond_all(const die_spec *d, const cond *c, const cond *except);
/* Whether cond c matches some face of die d. */
ALEA__HIDDEN int alea__cond_any(const die_spec *d, const cond *c);
/* Whether the faces of die d that c matches are all above, or all below,
 * the faces it does not match (its highest or lowest faces). */
ALEA__HIDDEN int alea__cond_at_end(const die_spec *d, const cond *c);

/* Whether face v of pool p's die is rerolled: it matches any of the
 * pool's reroll conditions (0 without a reroll). The one face test of the
 * roller, the exact engine and the parser's checks. */
ALEA__HIDDEN int alea__pool_rerolls(const pool *p, int64_t v);
/*
 * Whether some face of die d is neither rerolled by pool pl's conditions
 * nor matched by `also` (an explosion's trigger; NULL: none). On a range
 * at most 3 faces per condition are tried, whatever the die's size.
 */
ALEA__HIDDEN int alea__pool_face_stays(const die_spec *d, const pool *pl, const cond *also);

/* The value of face v of pool p's die once clamped (pool step 2b). */
ALEA__HIDDEN int64_t alea__pool_clamp(const pool *p, int64_t v);
/* Whether the pool has a clamp. */
#define ALEA__CLAMPED(p) ((p)->has_clamp_lo || (p)->has_clamp_hi)

/* Whether the pool's critical markers of a success (fumble 0) or of a
 * failure (1) mark face v: any of them matches (none written: 0). */
ALEA__HIDDEN int alea__pool_marks(const pool *p, int fumble, int64_t v);

/* The pool's own count: its conditions, nothing added. */
ALEA__HIDDEN alea__judge alea__pool_judge(const pool *p);
/* Success score of one value by the pool's own count (which it must
 * have): +1 success, -1 failure (both: 0); sflag or fflag set in *flags. */
ALEA__HIDDEN int alea__pool_score(const pool *p, int64_t v, uint8_t *flags, uint8_t sflag,
                                  uint8_t fflag);

/*
 * The kept range of a pool of n dice (after boons/banes, extra included):
 * sorted ascending positions [*lo, *hi) of the n + |extra| dice rolled.
 * *lo == *hi when nothing is kept.
 */
ALEA__HIDDEN void alea__pool_keep_range(const pool *p, int64_t n, int64_t *lo,
                                        int64_t *hi);

/*
 * A pool with rolled sides ("1d(1d20)": p->sides_expr set) at one value of
 * its sides: *out is the pool with the die 1..sides (0: the null die, as
 * d0 is), its default explosion on that maximum. Refuses, over the span
 * [start, end) of the sides (ALEA_ERR_DOMAIN, ALEA_ERR_INVALID), a value
 * below 0 and modifiers that would never end at that value (a reroll "r"
 * of every face, an explosion on every face), as the parser refuses them
 * for written sides; possible: the value is one the distribution can take
 * (the exact engine's wording) rather than one rolled.
 */
ALEA__HIDDEN alea_status alea__pool_at_sides(alea_ctx *ctx, const pool *p, size_t start,
                                             size_t end, int64_t sides, int possible,
                                             pool *out);

#endif /* ALEA_POOL_H */
