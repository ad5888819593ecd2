/*
 * ast.h -- the immutable tree that the parser builds and that both the roller
 * (roll.c) and the exact engine (exact.c) read. Neither evaluator sees tokens.
 *
 * Every node owns a byte span [start, end) of the source, for errors.
 * Nodes live in the expression's arena and are never modified after parsing.
 * Tree depth is bounded by the DEPTH limit (sums and products are n-ary, so a
 * long chain "1+1+...+1" is one node, not a deep tree), which bounds the
 * recursion of every evaluator.
 */
#ifndef ALEA_AST_H
#define ALEA_AST_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

typedef enum node_kind {
    N_NUM,   /* integer literal: u.num */
    N_DICE,  /* a dice pool: u.pool */
    N_NEG,   /* unary minus: u.un.a */
    N_SUM,   /* n-ary: items[0] op[1] items[1] ... with op OP_ADD / OP_SUB */
    N_PROD,  /* n-ary, left to right: op OP_MUL / OP_DIV / OP_DIVUP / OP_DIVNEAR */
    N_CMP,   /* u.bin.a <op> u.bin.b, value 1 or 0; op a cmp_op */
    N_MIN,   /* min(a, b) */
    N_MAX,   /* max(a, b) */
    N_ABS,   /* abs(a): u.un.a */
    N_BEST,  /* best(n, a): roll a n times, keep the highest: u.rep */
    N_WORST, /* worst(n, a): keep the lowest: u.rep */
    N_MECH,  /* a game mechanic's node (mech.h): u.mech */
    N_GROUP, /* a group "{a, b}kh1" (group.c): u.group */
    N_REPEAT, /* "6 x 4d6kh3", "repeat(4d6kh3, 6)": u.rep, the whole
                 expression only; op 1 when written "N x" */
    N__COUNT
} node_kind;

typedef enum arith_op {
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,    /* "/"  : rounds down (towards minus infinity) */
    OP_DIVUP,  /* "/^" : rounds up (towards plus infinity) */
    OP_DIVNEAR, /* "/~" : rounds to nearest, halves away from zero */
    OP_DIVTRUNC, /* "trunc(a / b)": rounds towards zero (d20's "/") */
    OP_DIVWHOLE, /* a real division that must be whole (rpg-dice-roller's
                    "/"): prints as "/", which it equals whenever it holds */
    OP_DIVHALFUP, /* "roundhalfup(a / b)": to nearest, halves towards plus
                     infinity (JavaScript's Math.round: Roll20, Foundry VTT) */
    OP_MOD,      /* "%" : the remainder of "/" rounded towards zero, the sign
                    of the dividend (as C and JavaScript) */
    OP_POW       /* "^", "**": a power, in a node of its own (two items) */
} arith_op;

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
     * one by one (step 5 on rolls; exact.c, singles). */
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

/*
 * A group "{4d6 + 3, 2d8}kh1" (group.c): each member is rolled to a total;
 * a keep or drop chooses among the totals (the value is the kept ones'
 * sum), or a success count judges each total. With one member and a keep
 * or a count ("dice" set), the dice of its pools form one pool instead: the
 * keep chooses among the dice, the count judges each die plus the member's
 * numbers (Roll20's single sub-roll).
 */
typedef struct group {
    const struct node *const *items;
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

/* N_BEST/N_WORST's op when the node was written as bonus dice ("expr +1d"). */
#define ALEA__BEST_AS_BONUS 1

typedef struct node {
    uint8_t kind; /* node_kind */
    uint8_t op;   /* cmp_op for N_CMP; for N_BEST/N_WORST ALEA__BEST_AS_BONUS
                     when written as bonus dice "expr +1d" */
    uint32_t start, end;
    /* An inline label after a term ("3d6 [fire]", "(2d6 + 3) [fire]"):
     * its text, within the expression's source, or NULL. */
    const char *label;
    uint32_t label_len;
    union {
        int64_t num;
        const pool *pool;
        const group *group;
        struct {
            const struct node *a;
        } un;
        struct {
            const struct node *a, *b;
        } bin;
        struct {
            const struct node *const *items;
            const uint8_t *ops; /* ops[0] is OP_ADD (or OP_MUL); ops[i] joins item i */
            uint32_t n;         /* >= 2 */
        } chain;
        struct {
            const struct node *a;
            int64_t n; /* >= 1 */
        } rep;
        struct {
            const struct alea__mech *ops; /* the mechanic's table (mech.h) */
            const void *spec;             /* its arguments, its own type */
        } mech;
    } u;
} node;

/* A compiled expression. */
struct alea_expr {
    alea_ctx *ctx;
    alea__arena arena; /* owns every node and the source copy */
    const node *root;
    const char *src; /* NUL-terminated copy of the source */
    size_t len;
    uint32_t nodes;  /* number of nodes */
    const char *hint; /* alea_expr_hint, in the arena, or NULL */
    const char *comment; /* "4d6 # fire": "fire", within src, or NULL */
    uint8_t has_labels;  /* a term has an inline label ("3d6 [fire]") */
    size_t comment_len;
    size_t words_at; /* "1d20 adv": where the words after the expression
                        start (the expression trimmed), or len: none */
};

/* ---- parse.c ---- */

/* Parses e->src (e->len bytes), in the context's dialect, into an AST
 * allocated from e->arena: sets e->root and e->nodes, e->hint (a likely
 * mistake, in the arena, or NULL) and e->comment (the first comment's
 * text, within e->src, or NULL). On error records it in ctx. */
ALEA__HIDDEN alea_status alea__parse(alea_ctx *ctx, struct alea_expr *e);

/* ---- ast.c ---- */

/* Whether face value v satisfies condition c. */
ALEA__HIDDEN int alea__cond_match(const cond *c, int64_t v);
/* Whether the pool's critical markers of a success (fumble 0) or of a
 * failure (1) mark face v: any of them matches (none written: 0). */
ALEA__HIDDEN int alea__pool_marks(const pool *p, int fumble, int64_t v);
/* j's score of value v into *score, sflag or fflag set in *flags for a
 * success or a failure; 0 when v plus j->add overflows (nothing set). */
ALEA__HIDDEN int alea__judge_score(const alea__judge *j, int64_t v, int *score, uint8_t *flags,
                                   uint8_t sflag, uint8_t fflag);

/*
 * The arithmetic of the language, shared by both evaluators: op is an
 * arith_op. Returns ARITH_OK and *r, ARITH_OVERFLOW, or ARITH_DIV0.
 * Division: OP_DIV rounds down, OP_DIVUP up, OP_DIVNEAR to nearest with
 * halves away from zero, OP_DIVTRUNC towards zero; OP_DIVWHOLE returns
 * ARITH_INEXACT when the quotient is not whole. OP_POW returns ARITH_NEGPOW
 * for a negative power that is not whole (2 ^ -1), ARITH_DIV0 for 0 ^ -1.
 */
enum { ARITH_OK, ARITH_OVERFLOW, ARITH_DIV0, ARITH_INEXACT, ARITH_NEGPOW };
ALEA__HIDDEN int alea__arith(uint8_t op, int64_t a, int64_t b, int64_t *r);

/* Whether face v of pool p's die is rerolled: it matches any of the
 * pool's reroll conditions (0 without a reroll). The one face test of the
 * roller, the exact engine and the parser's checks. */
ALEA__HIDDEN int alea__pool_rerolls(const pool *p, int64_t v);

/* The value of face v of pool p's die once clamped (pool step 2b). */
ALEA__HIDDEN int64_t alea__pool_clamp(const pool *p, int64_t v);
/* Whether the pool has a clamp. */
#define ALEA__CLAMPED(p) ((p)->has_clamp_lo || (p)->has_clamp_hi)

/* Number of faces of the die (with multiplicity), and face i (0-based,
 * ascending order). */
ALEA__HIDDEN uint64_t alea__die_nfaces(const die_spec *d);
ALEA__HIDDEN int64_t alea__die_face(const die_spec *d, uint64_t i);

/*
 * The kept range of a pool of n dice (after boons/banes, extra included):
 * sorted ascending positions [*lo, *hi) of the n + |extra| dice rolled.
 * *lo == *hi when nothing is kept.
 */
ALEA__HIDDEN void alea__pool_keep_range(const pool *p, int64_t n, int64_t *lo,
                                        int64_t *hi);

/* ---- select.c ---- */

/*
 * Applies the pool's selection steps to m values sorted ascending: kept[i]
 * is 1 for the dice still kept on entry, and is cleared for the dice a step
 * drops. Of a group of equal values that the n highest or lowest take in
 * part, both take its first dice (d20 sorts stably both ways), so "kh1kl1"
 * of three equal dice keeps one.
 */
ALEA__HIDDEN void alea__select_apply(const pool *p, const int64_t *sorted, size_t m,
                                     uint8_t *kept);

/* Binding strength of a node when printed: a child printed inside a parent
 * needs parentheses when its precedence is below what the parent requires. */
enum { PREC_CMP = 1, PREC_SUM = 2, PREC_PROD = 3, PREC_NEG = 4, PREC_ATOM = 5 };
ALEA__HIDDEN int alea__node_prec(const node *n);
ALEA__HIDDEN const char *alea__cmp_str(uint8_t op);
ALEA__HIDDEN const char *alea__arith_str(uint8_t op); /* " + ", " /^ ", ... */
/* A chain's truncating divisions print as "trunc(a / b)": the opening
 * "trunc(" for each, before its first item, and the ")" after item i. */
struct alea__out;
ALEA__HIDDEN void alea__chain_open(struct alea__out *o, const node *n);
ALEA__HIDDEN void alea__chain_close(struct alea__out *o, const node *n, uint32_t i);
/* The precedence item i of a chain must have to print without parentheses
 * (a power's base is an atom; its exponent may be negated). */
ALEA__HIDDEN int alea__chain_min(const node *n, uint32_t i);

/* Writes the canonical text of a node through the writer. pool_print
 * writes an N_DICE node, with its count when with_count is set. */
struct alea__out;
ALEA__HIDDEN void alea__node_print(struct alea__out *o, const node *n);
/* The canonical text of a compiled expression, its comment after " # "
 * (alea_expr_format). */
ALEA__HIDDEN void alea__expr_print(struct alea__out *o, const struct alea_expr *e);
/* A label on a term other than dice or a number, printed around the term
 * (by node_print, and by the breakdown): "(" before it when it is not an
 * atom, then ") [label]" after it. Nothing for other nodes. */
ALEA__HIDDEN void alea__label_open(struct alea__out *o, const node *n);
ALEA__HIDDEN void alea__label_close(struct alea__out *o, const node *n);
ALEA__HIDDEN void alea__pool_print(struct alea__out *o, const node *n, int with_count);
/* The same, with rolled sides written by sides(o, ud) (the breakdown's
 * "d(1d20 [13])"); NULL: their text. */
typedef void alea__sides_fn(struct alea__out *o, const void *ud);
ALEA__HIDDEN void alea__pool_print_as(struct alea__out *o, const node *n, int with_count,
                                      alea__sides_fn *sides, const void *ud);

/* ---- parse_dice.c ---- */

/*
 * A pool with rolled sides ("1d(1d20)", n an N_DICE node with sides_expr)
 * at one value of its sides: *out is the pool with the die 1..sides (0:
 * the null die, as d0 is), its default explosion on that maximum. Refuses,
 * over the span of the sides (ALEA_ERR_DOMAIN, ALEA_ERR_INVALID), a value
 * below 0 and modifiers that would never end at that value (a reroll "r"
 * of every face, an explosion on every face), as the parser refuses them
 * for written sides; possible: the value is one the distribution can take
 * (the exact engine's wording) rather than one rolled.
 */
ALEA__HIDDEN alea_status alea__pool_at_sides(alea_ctx *ctx, const node *n, int64_t sides,
                                             int possible, pool *out);

#endif /* ALEA_AST_H */
