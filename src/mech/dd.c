/*
 * mech/dd.c -- the Double Down roll: one d20 + modifier against a
 * difficulty, four outcomes, and the optional second roll that moves
 * the outcome up or down the table. The roller (roll.c) and the exact engine (exact.c) both use
 * these rules, so they cannot disagree.
 *
 * Outcomes: a natural 1 or 2 is a critical failure and a natural 19 or 20 a
 * critical success, whatever the total (critical outcomes take priority);
 * otherwise total >= difficulty is a success, else a failure.
 * Doubling down: a natural 19-20 raises the outcome by two, a success by one,
 * a failure lowers it by one, a natural 1-2 by two; clamped to the table.
 *
 * Whether to double down is taken after seeing the first roll: a fixed
 * policy (never, always, onfail) or a goal (best, tier, success, critical,
 * boons), which doubles down from a first outcome exactly when that raises
 * the goal's expectation. The second d20 does not depend on the first, so
 * the first outcome (not its natural) is all the decision needs.
 */
#include "../mech.h"
#include "../pmf.h"

#include "alea_games.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* In policy_names' order: the fixed policies, then the goals. */
typedef enum dd_policy {
    DD_NEVER, DD_ALWAYS, DD_ONFAIL, DD_BEST, DD_TIER, DD_GOAL_SUCCESS, DD_GOAL_CRITICAL, DD_BOONS
} dd_policy;

/* The largest boons (or banes) of one tier in dd(M, D, boons, ...): as
 * --multipliers' 10^6, and small enough that twenty of them add up exactly
 * in an int64. */
#define DD_WORTH_MAX 1000000

typedef struct dd_spec {
    int64_t mod, diff; /* d20 + mod against diff */
    int64_t worth[4];  /* a goal's value of each final outcome */
    uint8_t policy;    /* dd_policy */
} dd_spec;

ALEA__HIDDEN extern const alea__mech alea__mech_dd, alea__mech_stars;

enum { DD_CRIT_FAIL, DD_FAIL, DD_SUCCESS, DD_CRIT_SUCCESS }; /* the outcomes, worst first */

/* The mark on a rolled node's record (rec.flags): it doubled down. */
#define DOUBLED 1

static const char *const outcome_names[] = {"critical failure", "failure", "success",
                                         "critical success"};
static const char *const policy_names[] = {"never",   "always",   "onfail", "best", "tier",
                                           "success", "critical", "boons",  NULL};
static const char policy_takes[] = "a double-down policy (never, always or onfail) or goal "
                                   "(best, tier, success, critical or boons)";

/* What each goal maximises: the expectation of a value of the final
 * outcome (a chance is the expectation of 0 or 1). best is tier's older
 * spelling. boons defaults to the rule text's reading, boons on a success
 * or better only (the command line's --multipliers 0,0,1,1): any count and
 * drive scale it alike, so its choices are success's; dd(M, D, boons, A, B,
 * C, E) gives each outcome's boons (banes negative) instead. */
static const struct dd_goal {
    const char *measure; /* in the breakdown */
    int percent;         /* a chance: shown as a percentage */
    int64_t worth[4];
} goals[] = {
    [DD_BEST] = {"expected tier", 0, {0, 1, 2, 3}},
    [DD_TIER] = {"expected tier", 0, {0, 1, 2, 3}},
    [DD_GOAL_SUCCESS] = {"success or better", 1, {0, 0, 1, 1}},
    [DD_GOAL_CRITICAL] = {"critical success", 1, {0, 0, 0, 1}},
    [DD_BOONS] = {"expected boons", 0, {0, 0, 1, 1}},
};

/* The outcome of one d20 showing nat with modifier mod against diff. */
static int dd_outcome(int64_t nat, int64_t mod, int64_t diff)
{
    if (nat >= 19)
        return DD_CRIT_SUCCESS;
    if (nat <= 2)
        return DD_CRIT_FAIL;
    return nat + mod >= diff ? DD_SUCCESS : DD_FAIL;
}

/* The change of outcome of a double-down roll showing nat: -2, -1, +1 or +2. */
static int dd_shift(int64_t nat, int64_t mod, int64_t diff)
{
    static const int shift[] = {-2, -1, +1, +2};
    return shift[dd_outcome(nat, mod, diff)];
}

/* The outcome after doubling down from t with a second d20 showing nat2. */
static int dd_after(int t, int64_t nat2, const dd_spec *dd)
{
    int f = t + dd_shift(nat2, dd->mod, dd->diff);
    return f < 0 ? 0 : f > 3 ? 3 : f;
}

/* A goal's expected value after doubling down from t, times 20: exact in
 * integers (|worth| <= DD_WORTH_MAX). */
static int64_t doubled_worth(int t, const dd_spec *dd)
{
    int64_t sum = 0;
    for (int64_t nat = 1; nat <= 20; nat++)
        sum += dd->worth[dd_after(t, nat, dd)];
    return sum;
}

/* Whether dd doubles down from first outcome t: the one rule the roller and
 * the exact engine follow. A goal doubles down when the expected value after
 * the second roll is strictly above the value in hand (on a tie it keeps
 * the roll), which makes its expectation the largest any policy can. */
static int doubles_down(int t, const dd_spec *dd)
{
    switch ((dd_policy)dd->policy) {
    case DD_NEVER: return 0;
    case DD_ALWAYS: return 1;
    case DD_ONFAIL: return t <= DD_FAIL;
    default: return doubled_worth(t, dd) > 20 * dd->worth[t];
    }
}

/* ---- rolling ---- */

static alea_status dd_roll(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const dd_spec *dd = n->u.mech.spec;
    alea_status st;
    size_t die0 = 0;
    if ((st = alea__roll_charge(s, n, 1)) != ALEA_OK ||
        (st = alea__roll_reserve(s, 1, &die0)) != ALEA_OK)
        return st;
    rdie *d = s->r->dice + die0;
    d->first = (uint32_t)s->r->nfaces;
    d->flags = 0;
    d->score = 0;
    int64_t nat = alea__roll_d(s, 20);
    int t = dd_outcome(nat, dd->mod, dd->diff);
    if ((st = alea__roll_push(s, nat, 0)) != ALEA_OK)
        return st;
    if (doubles_down(t, dd)) {
        if ((st = alea__roll_charge(s, n, 1)) != ALEA_OK)
            return st;
        int64_t nat2 = alea__roll_d(s, 20);
        if ((st = alea__roll_push(s, nat2, 0)) != ALEA_OK)
            return st;
        t = dd_after(t, nat2, dd);
        rc->flags |= DOUBLED;
    }
    d->value = t;
    d->nfaces = (uint32_t)(s->r->nfaces - d->first);
    rc->die0 = (uint32_t)die0;
    rc->ndice = 1;
    if (!s->trace)
        s->r->ndice = die0;
    *value = t;
    return ALEA_OK;
}

/* ---- exact distribution ---- */

static void dd_describe(const node *n, alea__notes *notes)
{
    notes->mech = &alea__mech_dd;
    notes->labels = outcome_names;
    notes->nlabels = 4;
    notes->param = ((const dd_spec *)n->u.mech.spec)->diff; /* for the boons */
}

static alea_status dd_exact(alea_ctx *ctx, const node *n, alea__pmf *out, alea__notes *notes)
{
    const dd_spec *dd = n->u.mech.spec;
    /* Count in units of 1/400 (two d20s), exactly, then divide once. */
    int64_t units[4] = {0, 0, 0, 0};
    for (int64_t nat = 1; nat <= 20; nat++) {
        int t = dd_outcome(nat, dd->mod, dd->diff);
        if (!doubles_down(t, dd)) {
            units[t] += 20;
            continue;
        }
        for (int64_t nat2 = 1; nat2 <= 20; nat2++)
            units[dd_after(t, nat2, dd)]++;
    }
    size_t k = 0;
    for (int t = 0; t < 4; t++)
        k += units[t] > 0;
    alea_status st = alea__pmf_alloc(ctx, k, out);
    if (st != ALEA_OK)
        return st;
    k = 0;
    for (int t = 0; t < 4; t++)
        if (units[t] > 0) {
            out->v[k] = t;
            alea__pmf_ratio(ctx, out, k++, (uint64_t)units[t], 1, 400, 1);
        }
    if ((st = alea__pmf_seal(ctx, out, n)) == ALEA_OK && notes)
        dd_describe(n, notes);
    return st;
}

/* ---- parsing ---- */

/*
 * dd     = "dd" "(" expr "," expr [ "," policy ] ")"
 * policy = "never" | "always" | "onfail" | "best" | "tier" | "success"
 *        | "critical" | "boons" [ "," expr "," expr "," expr "," expr ]
 */
static alea_status dd_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    static const char *const worth_what[] = {
        "boons of a critical failure", "boons of a failure", "boons of a success",
        "boons of a critical success"};
    static const char *const worth_comma[] = {
        NULL, "',' and the boons of a failure", "',' and the boons of a success",
        "',' and the boons of a critical success"};
    alea_status st;
    (void)end;
    dd_spec *dd = alea__parse_alloc(p, sizeof *dd);
    if (!dd)
        return alea__nomem(alea__parse_ctx(p));
    memset(dd, 0, sizeof *dd);
    if ((st = alea__parse_open(p, "'(' after the function name")) != ALEA_OK ||
        (st = alea__parse_int(p, "dd", "modifier", 0, 18, &dd->mod)) != ALEA_OK ||
        (st = alea__parse_expect_comma(p, "',' and the difficulty")) != ALEA_OK ||
        (st = alea__parse_int(p, "dd", "difficulty", 1, 100, &dd->diff)) != ALEA_OK)
        return st;
    if (alea__parse_comma(p)) {
        int which;
        if ((st = alea__parse_word(p, policy_names, policy_takes, &which)) != ALEA_OK)
            return st;
        dd->policy = (uint8_t)which; /* in dd_policy's order */
        if (dd->policy >= DD_BEST)
            memcpy(dd->worth, goals[dd->policy].worth, sizeof dd->worth);
        if (dd->policy == DD_BOONS && alea__parse_comma(p))
            for (int t = 0; t < 4; t++)
                if ((t > 0 && (st = alea__parse_expect_comma(p, worth_comma[t])) != ALEA_OK) ||
                    (st = alea__parse_int(p, "dd", worth_what[t], -DD_WORTH_MAX, DD_WORTH_MAX,
                                          &dd->worth[t])) != ALEA_OK)
                    return st;
    }
    if ((st = alea__mech_node(p, &alea__mech_dd, dd, start, alea__parse_here(p), out)) !=
        ALEA_OK)
        return st;
    return alea__parse_close(p, "')'", NULL);
}

/*
 * stars = "stars" "(" expr "," expr [ "," expr [ "," expr ] ] ")"
 * The Double Down roll's modifier: stat 1-5, stress 1-3, an optional tag
 * (1-5, or -1..-5 for an irrelevant tag of that many stars, which counts
 * one less), drive 0-5. Parsed into the number it stands for.
 */
static alea_status stars_parse(alea__parser *p, size_t start, size_t end, const node **out)
{
    int64_t stat, stress, tag = 0, drive = 0;
    alea_status st;
    (void)end;
    if ((st = alea__parse_open(p, "'(' after the function name")) != ALEA_OK ||
        (st = alea__parse_int(p, "stars", "stat stars", 1, 5, &stat)) != ALEA_OK ||
        (st = alea__parse_expect_comma(p, "',' and the stress stars")) != ALEA_OK ||
        (st = alea__parse_int(p, "stars", "stress stars", 1, 3, &stress)) != ALEA_OK)
        return st;
    if (alea__parse_comma(p) &&
        (st = alea__parse_int(p, "stars", "tag stars", -5, 5, &tag)) != ALEA_OK)
        return st;
    if (alea__parse_comma(p) &&
        (st = alea__parse_int(p, "stars", "drive", 0, 5, &drive)) != ALEA_OK)
        return st;
    node *n;
    if ((st = alea__parse_node(p, N_NUM, start, alea__parse_here(p), &n)) != ALEA_OK)
        return st;
    n->u.num = stat + stress + (tag > 0 ? tag : tag < 0 ? -tag - 1 : 0) + drive; /* 1..18 */
    *out = n;
    return alea__parse_close(p, "')'", NULL);
}

const alea__mech alea__mech_stars = {.name = "stars", .parse = stars_parse};

/* ---- printing and the breakdown ---- */

static void dd_print(alea__out *o, const node *n)
{
    const dd_spec *dd = n->u.mech.spec;
    alea__out_str(o, "dd(");
    alea__out_i64(o, dd->mod);
    alea__out_str(o, ", ");
    alea__out_i64(o, dd->diff);
    if (dd->policy != DD_NEVER) {
        alea__out_str(o, ", ");
        alea__out_str(o, policy_names[dd->policy]);
    }
    if (dd->policy == DD_BOONS &&
        memcmp(dd->worth, goals[DD_BOONS].worth, sizeof dd->worth) != 0)
        for (int t = 0; t < 4; t++) {
            alea__out_str(o, ", ");
            alea__out_i64(o, dd->worth[t]);
        }
    alea__out_char(o, ')');
}

/* One d20 of a dd() roll: "6 (12): failure". */
static void show_face(alea__out *o, const dd_spec *dd, int64_t nat)
{
    alea__out_i64(o, nat);
    alea__out_str(o, " (");
    alea__out_i64(o, nat + dd->mod);
    alea__out_str(o, "): ");
    alea__out_str(o, outcome_names[dd_outcome(nat, dd->mod, dd->diff)]);
}

/* A goal's value times 20 (v20), in the breakdown: a percentage for a
 * chance ("65%"), else the value to two decimals where it has them ("1.40",
 * "3"): v20 / 20 has at most two. */
static void show_worth(alea__out *o, int64_t v20, int percent)
{
    if (percent) {
        alea__out_i64(o, v20 * 5);
        alea__out_char(o, '%');
        return;
    }
    uint64_t a = v20 < 0 ? 0 - (uint64_t)v20 : (uint64_t)v20, cents = a % 20 * 5;
    if (v20 < 0)
        alea__out_char(o, '-');
    alea__out_i64(o, (int64_t)(a / 20));
    if (cents) {
        alea__out_char(o, '.');
        alea__out_char(o, (char)('0' + cents / 10));
        alea__out_char(o, (char)('0' + cents % 10));
    }
}

/* " [6 (12): failure; double down 20 (26): +2 -> critical success]"; a goal
 * but best (whose breakdown stays as it was) says why, from the first
 * outcome t: "; success or better 0% kept, 65% doubling down". */
static void dd_show(alea__out *o, const alea_roll *r, const rec *rc)
{
    const dd_spec *dd = rc->n->u.mech.spec;
    const rdie *d = &r->dice[rc->die0];
    alea__out_str(o, " [");
    show_face(o, dd, r->faces[d->first].face);
    if (d->nfaces > 1) {
        int64_t nat2 = r->faces[d->first + 1].face;
        int shift = dd_shift(nat2, dd->mod, dd->diff);
        alea__out_str(o, "; double down ");
        alea__out_i64(o, nat2);
        alea__out_str(o, " (");
        alea__out_i64(o, nat2 + dd->mod);
        alea__out_str(o, shift > 0 ? "): +" : "): ");
        alea__out_i64(o, shift);
        alea__out_str(o, " -> ");
        alea__out_str(o, outcome_names[d->value]);
    }
    if (dd->policy > DD_BEST) {
        int t = dd_outcome(r->faces[d->first].face, dd->mod, dd->diff);
        const struct dd_goal *g = &goals[dd->policy];
        alea__out_str(o, "; ");
        alea__out_str(o, g->measure);
        alea__out_char(o, ' ');
        show_worth(o, 20 * dd->worth[t], g->percent);
        alea__out_str(o, " kept, ");
        show_worth(o, doubled_worth(t, dd), g->percent);
        alea__out_str(o, " doubling down");
    }
    alea__out_char(o, ']');
}

static void dd_show_json(alea__out *o, const rec *rc)
{
    alea__show_json_flag(o, "doubled_down", (rc->flags & DOUBLED) != 0);
    alea__out_str(o, ", \"label\": \"");
    alea__out_str(o, outcome_names[rc->value]);
    alea__out_char(o, '"');
}

/* ---- the policy ---- */

/* The goal as a policy names it, by dd_policy; a fixed policy is measured
 * by the expected tier. */
static const char *const goal_texts[] = {
    [DD_NEVER] = "the expected tier (0 critical failure .. 3 critical success)",
    [DD_ALWAYS] = "the expected tier (0 critical failure .. 3 critical success)",
    [DD_ONFAIL] = "the expected tier (0 critical failure .. 3 critical success)",
    [DD_BEST] = "the expected tier (0 critical failure .. 3 critical success)",
    [DD_TIER] = "the expected tier (0 critical failure .. 3 critical success)",
    [DD_GOAL_SUCCESS] = "the chance of a success or better",
    [DD_GOAL_CRITICAL] = "the chance of a critical success",
    [DD_BOONS] = "the expected boons (banes counted against them)",
};

/* num/den in lowest terms into buf, when the context is exact (else
 * NULL: the double alone). */
static const char *ratio_text(const alea_ctx *ctx, int64_t num, int64_t den, char *buf,
                              size_t cap)
{
    if (!alea_ctx_exact(ctx))
        return NULL;
    int64_t a = num < 0 ? -num : num, b = den;
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    if (a > 1) {
        num /= a;
        den /= a;
    }
    if (den == 1)
        snprintf(buf, cap, "%lld", (long long)num);
    else
        snprintf(buf, cap, "%lld/%lld", (long long)num, (long long)den);
    return buf;
}

/* "failure (natural 3-11)": the first roll's outcome t, with the naturals
 * that give it, into buf; their count in *n (0: t cannot happen). */
static void outcome_seen(int t, const dd_spec *dd, char *buf, size_t cap, int *n)
{
    int64_t lo = 0, hi = 0;
    *n = 0;
    for (int64_t nat = 1; nat <= 20; nat++)
        if (dd_outcome(nat, dd->mod, dd->diff) == t) {
            lo = *n ? lo : nat;
            hi = nat;
            ++*n;
        }
    if (lo == hi)
        snprintf(buf, cap, "%s (natural %lld)", outcome_names[t], (long long)lo);
    else
        snprintf(buf, cap, "%s (natural %lld-%lld)", outcome_names[t], (long long)lo,
                 (long long)hi);
}

/* A row per outcome of the first roll: double down or stand, by the
 * roll's own rule (doubles_down), with the goal's mean after each; the
 * whole roll's mean by that rule, and by the best choices. Scores are
 * whole numbers, so every value is a sum over 20 or 400 cases, exact. */
static alea_status dd_choices(alea_ctx *ctx, const node *n, alea_policy *out)
{
    const dd_spec *dd = n->u.mech.spec;
    int goal = dd->policy >= DD_BEST;
    const int64_t *worth = goal ? dd->worth : goals[DD_TIER].worth;
    alea_status st = alea__policy_goal(out, goal_texts[dd->policy],
                                       goal && goals[dd->policy].percent);
    int64_t total = 0, best = 0; /* in 1/400 */
    char text[48];
    /* the work: each first outcome, its naturals and a second d20 */
    if (st == ALEA_OK)
        st = alea__charge(ctx, 4 * 40, n->start, n->end);
    for (int t = 0; t < 4 && st == ALEA_OK; t++) {
        char seen[64];
        int count;
        outcome_seen(t, dd, seen, sizeof seen, &count);
        if (!count)
            continue;
        int64_t after = 0, stand = 20 * worth[t]; /* in 1/20 */
        for (int64_t nat2 = 1; nat2 <= 20; nat2++)
            after += worth[dd_after(t, nat2, dd)];
        int doubles = doubles_down(t, dd);
        int64_t value = doubles ? after : stand;
        total += value * count;
        best += (after > stand ? after : stand) * count;
        st = alea__policy_row(out, seen, doubles ? "double down" : "stand", count / 20.0,
                              (double)value / 20, (double)stand / 20,
                              ratio_text(ctx, value, 20, text, sizeof text));
    }
    if (st == ALEA_OK)
        st = alea__policy_total(out, (double)total / 400,
                                ratio_text(ctx, total, 400, text, sizeof text));
    if (st == ALEA_OK)
        st = alea__policy_optimum(out, (double)best / 400,
                                  ratio_text(ctx, best, 400, text, sizeof text));
    return st;
}

const alea__mech alea__mech_dd = {
    .name = "dd", .parse = dd_parse, .words = policy_names, .takes = policy_takes,
    .print = dd_print, .roll = dd_roll, .exact = dd_exact, .describe = dd_describe,
    .show = dd_show, .show_json = dd_show_json, .policy = dd_choices,
};

/* ---- boons and banes from the game's tables (public API: alea_games.h) ---- */

alea_status alea_boons_for_outcome(const alea_boon_table *table, int64_t difficulty, int outcome,
                                int64_t drive, int support, int64_t *boons, int64_t *banes)
{
    if (!table || !boons || !banes || outcome < 0 || outcome > 3 || drive < 0 ||
        (table->n && (!table->difficulty || !table->count)))
        return ALEA_ERR_ARGUMENT;
    if (!isfinite(table->multiplier[outcome]))
        return ALEA_ERR_ARGUMENT;
    int64_t base = 0;
    for (size_t i = 0; i < table->n && table->difficulty[i] <= difficulty; i++)
        base = table->count[i];
    double m = table->multiplier[outcome] * (double)base;
    if (m > 0 && support)
        m /= 2;
    /* Whole boons, rounded up (the text does not say; half a boon is not
     * a thing, and rounding up never gives less than the multiplier). The
     * result must be an int64 (below 2^63, the first double past it). */
    double up = ceil(fabs(m) - 1e-9);
    if (!(up < 0x1p63))
        return ALEA_ERR_OVERFLOW;
    int64_t b = m > 0 ? (int64_t)up : 0, n = m < 0 ? (int64_t)up : 0;
    if (outcome >= DD_SUCCESS && alea__add_ovf(b, drive, &b))
        return ALEA_ERR_OVERFLOW;
    *boons = b;
    *banes = n;
    return ALEA_OK;
}

/* The boons and banes of one outcome: the expectation's function. */
typedef struct boons_of {
    const alea_boon_table *table;
    int64_t difficulty, drive;
    int support, banes; /* which of the two */
} boons_of;

static alea_status one_outcome(int64_t outcome, void *ud, double *x)
{
    const boons_of *b = ud;
    int64_t boons = 0, banes = 0;
    alea_status st = alea_boons_for_outcome(b->table, b->difficulty, (int)outcome, b->drive,
                                         b->support, &boons, &banes);
    *x = (double)(b->banes ? banes : boons);
    return st;
}

alea_status alea_dist_boons(alea_ctx *ctx, const alea_dist *dist, const alea_boon_table *table,
                            int64_t drive, int support, double *boons, double *banes)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__clear_error(ctx);
    if (!dist || !table || !boons || !banes)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "alea_dist_boons: NULL argument");
    if (dist->notes.mech != &alea__mech_dd)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "boons are computed for a dd() roll: the expression must be a dd() call");
    boons_of b = {table, dist->notes.param, drive, support, 0};
    double eb, en;
    alea_status st = alea__dist_expect(dist, one_outcome, &b, &eb);
    if (st == ALEA_OK) {
        b.banes = 1;
        st = alea__dist_expect(dist, one_outcome, &b, &en);
    }
    if (st == ALEA_ERR_OVERFLOW)
        return alea__error(ctx, st, 0, 0,
                           "boons past %lld: a multiplier times a count, plus the drive, "
                           "is too large", (long long)INT64_MAX);
    if (st != ALEA_OK)
        return alea__error(ctx, st, 0, 0,
                           "invalid boon table: a multiplier that is not a finite number, "
                           "or a NULL table");
    *boons = eb;
    *banes = en;
    return ALEA_OK;
}
