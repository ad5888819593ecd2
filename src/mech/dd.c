/*
 * mech/dd.c -- the Double Down roll: one d20 + modifier against a
 * difficulty, four outcome tiers, and the optional second roll that moves
 * the tier. The roller (roll.c) and the exact engine (exact.c) both use
 * these rules, so they cannot disagree.
 *
 * Tiers: a natural 1 or 2 is a critical failure and a natural 19 or 20 a
 * critical success, whatever the total (critical outcomes take priority);
 * otherwise total >= difficulty is a success, else a failure.
 * Doubling down: a natural 19-20 raises the tier by two, a success by one,
 * a failure lowers it by one, a natural 1-2 by two; clamped to the tiers.
 */
#include "../ast.h"

int alea__dd_tier(int64_t nat, int64_t mod, int64_t diff)
{
    if (nat >= 19)
        return DD_CRIT_SUCCESS;
    if (nat <= 2)
        return DD_CRIT_FAIL;
    return nat + mod >= diff ? DD_SUCCESS : DD_FAIL;
}

int alea__dd_shift(int64_t nat, int64_t mod, int64_t diff)
{
    static const int shift[] = {-2, -1, +1, +2};
    return shift[alea__dd_tier(nat, mod, diff)];
}

int alea__dd_best_doubles(int t, int64_t mod, int64_t diff)
{
    /* Expected final tier after doubling down from t, times 20 (exact in
     * integers): double down when it beats staying at t. */
    int64_t sum = 0;
    for (int64_t nat = 1; nat <= 20; nat++) {
        int f = t + alea__dd_shift(nat, mod, diff);
        sum += f < 0 ? 0 : f > 3 ? 3 : f;
    }
    return sum > 20 * (int64_t)t;
}

const char *alea__dd_tier_name(int t)
{
    static const char *const names[] = {"critical failure", "failure", "success",
                                        "critical success"};
    return t >= 0 && t <= 3 ? names[t] : "?";
}

const char *alea__dd_policy_name(int policy)
{
    static const char *const names[] = {"never", "always", "onfail", "best"};
    return policy >= 0 && policy <= 3 ? names[policy] : "?";
}

/* ---- rolling ---- */

#include "../roll.h"

alea_status alea__dd_roll(alea__rstate *s, const node *n, rec *rc, int64_t *value)
{
    const dd_spec *dd = n->u.dd;
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
    int t = alea__dd_tier(nat, dd->mod, dd->diff);
    if ((st = alea__roll_push(s, nat, 0)) != ALEA_OK)
        return st;
    int doubles = dd->policy == DD_ALWAYS || (dd->policy == DD_ONFAIL && t <= DD_FAIL) ||
                  (dd->policy == DD_BEST && alea__dd_best_doubles(t, dd->mod, dd->diff));
    if (doubles) {
        if ((st = alea__roll_charge(s, n, 1)) != ALEA_OK)
            return st;
        int64_t nat2 = alea__roll_d(s, 20);
        if ((st = alea__roll_push(s, nat2, 0)) != ALEA_OK)
            return st;
        t += alea__dd_shift(nat2, dd->mod, dd->diff);
        t = t < 0 ? 0 : t > 3 ? 3 : t;
        rc->flags |= REC_DOUBLED;
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

#include "../dist.h"

alea_status alea__dd_exact(alea_ctx *ctx, const node *n, alea__pmf *out)
{
    const dd_spec *dd = n->u.dd;
    /* Count in units of 1/400 (two d20s), exactly, then divide once. */
    int64_t units[4] = {0, 0, 0, 0};
    double p[4];
    for (int64_t nat = 1; nat <= 20; nat++) {
        int t = alea__dd_tier(nat, dd->mod, dd->diff);
        int doubles = dd->policy == DD_ALWAYS || (dd->policy == DD_ONFAIL && t <= DD_FAIL) ||
                      (dd->policy == DD_BEST && alea__dd_best_doubles(t, dd->mod, dd->diff));
        if (!doubles) {
            units[t] += 20;
            continue;
        }
        for (int64_t nat2 = 1; nat2 <= 20; nat2++) {
            int f = t + alea__dd_shift(nat2, dd->mod, dd->diff);
            units[f < 0 ? 0 : f > 3 ? 3 : f]++;
        }
    }
    for (int t = 0; t < 4; t++)
        p[t] = (double)units[t] / 400.0;
    alea__acc acc;
    alea_status st = alea__acc_init(&acc, ctx, n, 0, 3, 4);
    for (int t = 0; st == ALEA_OK && t < 4; t++)
        if (p[t] > 0)
            st = alea__acc_add(&acc, t, p[t]);
    if (st != ALEA_OK) {
        alea__acc_free(&acc);
        return st;
    }
    return alea__acc_finish(&acc, out);
}

/* ---- boons and banes from the game's tables (public API) ---- */

#include <math.h>

alea_status alea_boons_for_tier(const alea_boon_table *table, int64_t difficulty, int tier,
                                int64_t drive, int support, int64_t *boons, int64_t *banes)
{
    if (!table || !boons || !banes || tier < 0 || tier > 3 || drive < 0 ||
        (table->n && (!table->difficulty || !table->count)))
        return ALEA_ERR_ARGUMENT;
    if (!isfinite(table->multiplier[tier]))
        return ALEA_ERR_ARGUMENT;
    int64_t base = 0;
    for (size_t i = 0; i < table->n && table->difficulty[i] <= difficulty; i++)
        base = table->count[i];
    double m = table->multiplier[tier] * (double)base;
    if (m > 0 && support)
        m /= 2;
    /* Whole boons, rounded up (the text does not say; half a boon is not
     * a thing, and rounding up never gives less than the multiplier). The
     * result must be an int64 (below 2^63, the first double past it). */
    double up = ceil(fabs(m) - 1e-9);
    if (!(up < 0x1p63))
        return ALEA_ERR_OVERFLOW;
    int64_t b = m > 0 ? (int64_t)up : 0, n = m < 0 ? (int64_t)up : 0;
    if (tier >= DD_SUCCESS && alea__add_ovf(b, drive, &b))
        return ALEA_ERR_OVERFLOW;
    *boons = b;
    *banes = n;
    return ALEA_OK;
}

alea_status alea__dd_boons(alea_ctx *ctx, const alea_dist *d, const alea_boon_table *table,
                           int64_t drive, int support, double *boons, double *banes)
{
    if (d->labels != DIST_LABELS_DD)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "boons are computed for a dd() roll: the expression must be a dd() call");
    double eb = 0, en = 0, mass = 0;
    for (size_t i = 0; i < d->pmf.n; i++) {
        int64_t b, n;
        alea_status st = alea_boons_for_tier(table, d->dd_diff, (int)d->pmf.v[i], drive,
                                             support, &b, &n);
        if (st == ALEA_ERR_OVERFLOW)
            return alea__error(ctx, st, 0, 0,
                               "boons past %lld: a multiplier times a count, plus the drive, "
                               "is too large", (long long)INT64_MAX);
        if (st != ALEA_OK)
            return alea__error(ctx, st, 0, 0,
                               "invalid boon table: a multiplier that is not a finite number, "
                               "or a NULL table");
        eb += d->pmf.p[i] * (double)b;
        en += d->pmf.p[i] * (double)n;
        mass += d->pmf.p[i];
    }
    *boons = mass > 0 ? eb / mass : 0;
    *banes = mass > 0 ? en / mass : 0;
    return ALEA_OK;
}
