/*
 * dist_fuzz.c -- libFuzzer target: compile any bytes, then compute the
 * exact distribution.
 *
 * The work and support limits are lowered (FZ_WORK, FZ_SUPPORT) so that
 * every input stays fast under the sanitizers; the limits themselves are
 * part of what is fuzzed. Checks: a documented status with a message and a
 * span, output written only on success; outcome values strictly
 * ascending, probabilities in (0, 1], their sum plus the truncated mass
 * within 1e-9 of 1; min <= median <= max, mean in [min, max], sd >= 0;
 * alea_dist_p / at_least / at_most agree with the outcomes; the JSON obeys
 * the snprintf contract and is valid; every value the roller draws has a
 * non-zero probability when nothing was truncated; the policy of an
 * expression with a choice agrees with itself and with the mean (check_policy).
 * On a quarter of the
 * inputs one allocation of the computation fails (ALEA_ERR_NOMEM, no leak;
 * or, where only a cache needed it, the same distribution);
 * on another quarter the interrupt hook stops it (ALEA_ERR_INTERRUPTED). An
 * eighth of the inputs run in exact mode (fractions; a construct with no
 * exact form yet is ALEA_ERR_INVALID), and in doubles a result near the
 * double range is computed again in fractions by the library itself.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define FZ_WORK 5000000
#define FZ_SUPPORT 200000
#define ROLLS 3
#define EPS 1e-9

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int stop_now(void *ud)
{
    (*(int *)ud)++;
    return 1;
}

static int dist_status_ok(alea_status st)
{
    return st == ALEA_ERR_LIMIT || st == ALEA_ERR_DOMAIN || st == ALEA_ERR_OVERFLOW ||
           st == ALEA_ERR_INVALID;
}

static int near(double a, double b)
{
    return fabs(a - b) <= EPS;
}

static void check_dist(alea_ctx *ctx, const alea_expr *e, const alea_dist *d, uint64_t h)
{
    size_t n = alea_dist_count(d);
    double trunc = alea_dist_truncated(d);
    FZ_CHECK(trunc >= 0 && trunc < 1, "truncated mass %g", trunc);
    FZ_CHECK(n > 0, "a distribution without outcomes (truncated %g)", trunc);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v = alea_dist_value(d, i);
        double p = alea_dist_prob(d, i);
        FZ_CHECK(p > 0 && p <= 1, "outcome %zu (value %" PRId64 ") has probability %.17g", i, v,
                 p);
        if (i > 0)
            FZ_CHECK(alea_dist_value(d, i - 1) < v,
                     "values not strictly ascending at outcome %zu: %" PRId64 ", %" PRId64, i,
                     alea_dist_value(d, i - 1), v);
        FZ_CHECK(alea_dist_p(d, v) == p, "alea_dist_p(%" PRId64 ") = %g, the outcome says %g",
                 v, alea_dist_p(d, v), p);
        if (v < INT64_MAX && (i + 1 == n || alea_dist_value(d, i + 1) != v + 1))
            FZ_CHECK(alea_dist_p(d, v + 1) == 0, "alea_dist_p(%" PRId64 ") = %g outside the "
                     "outcomes", v + 1, alea_dist_p(d, v + 1));
        sum += p;
    }
    FZ_CHECK(fabs(sum + trunc - 1) <= EPS, "probabilities sum to %.17g, truncated %.17g", sum,
             trunc);
    int64_t lo = alea_dist_min(d), hi = alea_dist_max(d), med = alea_dist_median(d);
    /* min and max are the support's bounds: the ends of the outcomes, or
     * past them where outcomes are missing (below the double range, or cut
     * explosion chains); an end the expression can pass (open) is listed */
    unsigned open = alea_dist_open(d);
    int part = alea_dist_incomplete(d) || alea_dist_truncated(d) > 0;
    FZ_CHECK(part ? lo <= alea_dist_value(d, 0) && hi >= alea_dist_value(d, n - 1) &&
                        (!(open & ALEA_OPEN_MIN) || lo == alea_dist_value(d, 0)) &&
                        (!(open & ALEA_OPEN_MAX) || hi == alea_dist_value(d, n - 1))
                  : lo == alea_dist_value(d, 0) && hi == alea_dist_value(d, n - 1) && !open,
             "min %" PRId64 " max %" PRId64 " but the outcomes run from %" PRId64 " to %" PRId64,
             lo, hi, alea_dist_value(d, 0), alea_dist_value(d, n - 1));
    FZ_CHECK(lo <= med && med <= hi, "median %" PRId64 " outside [%" PRId64 ", %" PRId64 "]",
             med, lo, hi);
    double mean = alea_dist_mean(d), sd = alea_dist_sd(d);
    double slack = 1e-9 * (fabs((double)lo) > fabs((double)hi) ? fabs((double)lo)
                                                                : fabs((double)hi)) + 1e-9;
    FZ_CHECK(mean >= (double)lo - slack && mean <= (double)hi + slack,
             "mean %.17g outside [%" PRId64 ", %" PRId64 "]", mean, lo, hi);
    FZ_CHECK(isfinite(sd) && sd >= 0, "sd %g", sd);
    FZ_CHECK(near(alea_dist_at_least(d, lo), sum) && near(alea_dist_at_most(d, hi), sum),
             "at_least(min) %.17g, at_most(max) %.17g, sum %.17g", alea_dist_at_least(d, lo),
             alea_dist_at_most(d, hi), sum);
    for (size_t i = 0; i < alea_dist_flag_count(d); i++) {
        double p = alea_dist_flag_prob(d, i);
        FZ_CHECK(alea_dist_flag_name(d, i) != NULL && p >= 0 && p <= 1 + EPS,
                 "flag %zu: %s %g", i, alea_dist_flag_name(d, i), p);
    }

    size_t jn;
    char *json = fz_format(fz_fmt_dist, d, ALEA_FORMAT_JSON, &jn, h);
    FZ_CHECK(fz_json_valid(json, jn), "invalid JSON:\n%s", json);
    free(json);

    /* The roller never draws what the exact engine calls impossible. */
    for (int i = 0; i < ROLLS; i++) {
        int64_t t;
        alea_ctx_seed(ctx, h + (uint64_t)i);
        if (alea_expr_sample(ctx, e, &t) != ALEA_OK)
            continue;
        if (trunc == 0)
            FZ_CHECK(alea_dist_p(d, t) > 0,
                     "the roller drew %" PRId64 " (seed %" PRIu64 "), which the exact "
                     "distribution gives probability 0 (min %" PRId64 ", max %" PRId64 ")",
                     t, h + (uint64_t)i, lo, hi);
    }
}

/* The player's choices of an expression whose distribution was computed:
 * none (ALEA_ERR_INVALID) for most; else the rows' chances add up to 1,
 * their values weighted by them to the whole value, the best choices are
 * worth at least the expression's own, a chance is within [0, 1], a goal
 * that is the expected total is the distribution's mean, and the JSON is
 * valid. */
static void check_policy(alea_ctx *ctx, const alea_expr *e, const alea_dist *d, size_t size,
                         uint64_t h)
{
    alea_policy *p = NULL;
    alea_status st = alea_policy_new(ctx, e, &p);
    if (st != ALEA_OK) {
        fz_check_error(ctx, st, size);
        FZ_CHECK(st == ALEA_ERR_INVALID || st == ALEA_ERR_LIMIT || st == ALEA_ERR_NOMEM,
                 "policy returned %s (%s)", alea_status_name(st), alea_ctx_error(ctx));
        return;
    }
    double chance = 0, sum = 0, v = alea_policy_value(p);
    int prob = alea_policy_is_prob(p);
    for (size_t i = 0; i < alea_policy_rows(p); i++) {
        double c = alea_policy_prob(p, i), x = alea_policy_row_value(p, i);
        FZ_CHECK(c >= 0 && c <= 1 + EPS && isfinite(x) &&
                     (!prob || (x >= -EPS && x <= 1 + EPS)) && alea_policy_seen(p, i) &&
                     alea_policy_choice(p, i),
                 "policy row %zu: chance %g value %g", i, c, x);
        chance += c;
        sum += c * x;
    }
    double scale = fabs(v) > 1 ? fabs(v) : 1;
    FZ_CHECK(fabs(chance - 1) <= 1e-9 && fabs(sum - v) <= 1e-9 * scale &&
                 alea_policy_optimum(p) >= v - 1e-9 * scale,
             "policy: chances sum to %.17g, values to %.17g of %.17g (optimum %.17g)", chance,
             sum, v, alea_policy_optimum(p));
    if (!strcmp(alea_policy_goal(p), "the expected total") && alea_dist_truncated(d) == 0)
        FZ_CHECK(fabs(v - alea_dist_mean(d)) <= 1e-9 * scale,
                 "policy's expected total %.17g, the distribution's mean %.17g", v,
                 alea_dist_mean(d));
    size_t jn;
    char *json = fz_format(fz_fmt_policy, p, ALEA_FORMAT_JSON, &jn, h);
    FZ_CHECK(fz_json_valid(json, jn), "invalid policy JSON:\n%s", json);
    free(json);
    alea_policy_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    fz_heap heap;
    alea_ctx *ctx = fz_ctx_new(&heap);
    alea_ctx_set_dialect(ctx, fz_dialect(h));
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, FZ_WORK);
    alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, FZ_SUPPORT);
    /* an eighth of the inputs in exact fractions (where the build has them) */
    if ((h >> 24) % 8 == 0)
        alea_ctx_set_exact(ctx, 1);
    alea_expr *e = fz_compile(ctx, &heap, data, size);
    if (!e)
        return 0;
    alea_status st;

    alea_dist *const unset = (alea_dist *)&heap;
    alea_dist *d = unset;
    unsigned long before = heap.count;
    st = alea_expr_dist(ctx, e, &d);
    unsigned long made = heap.count - before;
    /* a distribution may hold fractions: exact mode, or rare outcomes */
    fz_check_memory_with(ctx, &heap, st == ALEA_OK);
    if (st != ALEA_OK) {
        FZ_CHECK(d == unset, "alea_expr_dist wrote its output on failure");
        fz_check_error(ctx, st, size);
        FZ_CHECK(dist_status_ok(st), "dist returned %s (%s), not a documented status",
                 alea_status_name(st), alea_ctx_error(ctx));
    } else {
        FZ_CHECK(d != NULL && d != unset, "dist OK without a distribution");
        fz_check_ok(ctx);
        check_dist(ctx, e, d, h);
        check_policy(ctx, e, d, size, h);
        alea_dist_free(d);
        fz_check_memory(ctx, &heap);
    }

    switch (h >> 62) {
    case 0: { /* fail one allocation of the same computation */
        if (made == 0)
            break;
        heap.fail_at = heap.count + 1 + (h >> 8) % made;
        d = unset;
        alea_status st2 = alea_expr_dist(ctx, e, &d);
        heap.fail_at = 0;
        /* a failed allocation that only a cache needed (share.c keeps a
         * distribution to copy later, or computes it again) may leave the
         * computation whole: then it is the same distribution */
        FZ_CHECK(st2 == ALEA_ERR_NOMEM || st2 == st || st2 == ALEA_OK,
                 "allocation %lu of %lu failed but dist returned %s (%s)",
                 (unsigned long)(1 + (h >> 8) % made), made, alea_status_name(st2),
                 alea_ctx_error(ctx));
        if (st2 != ALEA_OK) {
            FZ_CHECK(d == unset, "alea_expr_dist wrote its output on failure");
            fz_check_error(ctx, st2, size);
        } else {
            FZ_CHECK(st == ALEA_OK, "allocation %lu of %lu failed and dist returned OK, "
                     "but without the failure it returned %s",
                     (unsigned long)(1 + (h >> 8) % made), made, alea_status_name(st));
            alea_dist *again = unset;
            FZ_CHECK(alea_expr_dist(ctx, e, &again) == ALEA_OK, "dist failed the third time: %s",
                     alea_ctx_error(ctx));
            size_t n = alea_dist_count(d);
            FZ_CHECK(n == alea_dist_count(again) &&
                         alea_dist_truncated(d) == alea_dist_truncated(again),
                     "with allocation %lu failing, %zu outcomes (truncated %g); without, %zu "
                     "(truncated %g)", (unsigned long)(1 + (h >> 8) % made), n,
                     alea_dist_truncated(d), alea_dist_count(again),
                     alea_dist_truncated(again));
            for (size_t i = 0; i < n; i++)
                FZ_CHECK(alea_dist_value(d, i) == alea_dist_value(again, i) &&
                             alea_dist_prob(d, i) == alea_dist_prob(again, i),
                         "with allocation %lu failing, outcome %zu is %" PRId64 " (%.17g); "
                         "without, %" PRId64 " (%.17g)", (unsigned long)(1 + (h >> 8) % made),
                         i, alea_dist_value(d, i), alea_dist_prob(d, i),
                         alea_dist_value(again, i), alea_dist_prob(again, i));
            alea_dist_free(again);
            alea_dist_free(d);
        }
        break;
    }
    case 1: { /* the host says stop at the first poll */
        int polls = 0;
        alea_ctx_set_interrupt(ctx, stop_now, &polls);
        d = unset;
        alea_status st2 = alea_expr_dist(ctx, e, &d);
        alea_ctx_set_interrupt(ctx, NULL, NULL);
        if (st2 == ALEA_OK) {
            FZ_CHECK(polls == 0, "the hook said stop %d times but dist went on", polls);
            alea_dist_free(d);
        } else {
            FZ_CHECK(d == unset, "alea_expr_dist wrote its output on failure");
            fz_check_error(ctx, st2, size);
            FZ_CHECK(st2 == ALEA_ERR_INTERRUPTED || (polls == 0 && st2 == st),
                     "interrupted computation returned %s (%s)", alea_status_name(st2),
                     alea_ctx_error(ctx));
        }
        break;
    }
    default:
        break;
    }

    alea_expr_free(e);
    fz_ctx_free(ctx, &heap);
    return 0;
}
