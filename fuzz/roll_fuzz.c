/*
 * roll_fuzz.c -- libFuzzer target: compile any bytes, then roll them.
 *
 * The seed is a hash of the input, so a finding replays exactly. For each
 * of a few rolls: a documented status, with a message and a span; on
 * success the text and JSON breakdowns obey the snprintf contract, the
 * JSON is valid, the text ends in "= total" (a repeat's: its last roll's), alea_expr_sample draws the
 * same total from the same seed, and the canonical form of the expression
 * rolls the same breakdown. An allocation failure during a roll returns
 * ALEA_ERR_NOMEM and leaks nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define ROLLS 3
#define FZ_WORK 2000000
#define FZ_MEMORY (4 << 20)
#define FZ_BREAKDOWN (256 << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int roll_status_ok(alea_status st)
{
    return st == ALEA_ERR_LIMIT || st == ALEA_ERR_DOMAIN || st == ALEA_ERR_OVERFLOW;
}

/* Text and JSON of a successful roll; the text is returned (caller frees). */
static char *check_formats(const alea_roll *r, uint64_t h)
{
    size_t tn, jn;
    char *text = fz_format(fz_fmt_roll, r, ALEA_FORMAT_TEXT, &tn, h);
    char *json = fz_format(fz_fmt_roll, r, ALEA_FORMAT_JSON, &jn, h >> 7);
    FZ_CHECK(fz_json_valid(json, jn), "invalid JSON:\n%s", json);
    char tail[40];
    /* " = total", then the comment if there is one: " = 4 # fire"; a
     * repeat's text ends with its last roll's line */
    size_t count = alea_roll_count(r);
    int64_t last = count > 1 ? alea_roll_total_at(r, count - 1) : alea_roll_total(r);
    int k = snprintf(tail, sizeof tail, " = %" PRId64, last);
    int ends = tn >= (size_t)k && strcmp(text + tn - (size_t)k, tail) == 0;
    if (!ends && strstr(json, "\"comment\": ")) {
        snprintf(tail + k, sizeof tail - (size_t)k, " # ");
        ends = strstr(text, tail) != NULL;
    }
    FZ_CHECK(ends, "the text does not end in '%s' (and its comment): %s", tail, text);
    free(json);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data;
    uint64_t h = fz_hash(data, size);
    fz_heap heap, heap2;
    alea_ctx *ctx = fz_ctx_new(&heap);
    /* A roll's work, memory and breakdown lowered, as dist_fuzz does: a
     * dozen evaluations of each input, and the formatting of their
     * breakdowns, stay fast under the sanitizers (4646 x 1d2 x 1d2 wrote
     * 1.5 MB of JSON a roll, 1.3 s in all). */
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, FZ_WORK);
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, FZ_MEMORY);
    alea_ctx_limit(ctx, ALEA_LIMIT_BREAKDOWN, FZ_BREAKDOWN);
    alea_expr *e = fz_compile(ctx, &heap, data, size);
    if (!e)
        return 0;
    alea_status st;
    alea_ctx *ctx2 = fz_ctx_new(&heap2);
    alea_ctx_limit(ctx2, ALEA_LIMIT_WORK, FZ_WORK);
    alea_ctx_limit(ctx2, ALEA_LIMIT_MEMORY, FZ_MEMORY);
    alea_ctx_limit(ctx2, ALEA_LIMIT_BREAKDOWN, FZ_BREAKDOWN);
    char *canon;
    alea_expr *e2 = fz_roundtrip(ctx2, e, &canon);
    alea_roll *r = alea_roll_new(ctx), *r2 = alea_roll_new(ctx2);
    FZ_CHECK(r && r2, "alea_roll_new failed");

    for (int i = 0; i < ROLLS; i++) {
        uint64_t seed = h + (uint64_t)i;
        alea_ctx_seed(ctx, seed);
        st = alea_expr_roll(ctx, e, r);
        fz_check_memory(ctx, &heap);
        char *text = NULL;
        /* the breakdown's limit stops a roll, never a sample (which keeps
         * no breakdown): the sample goes on and may fail later, otherwise */
        int breakdown_full = st == ALEA_ERR_LIMIT && strstr(alea_ctx_error(ctx), "breakdown");
        char why[256];
        snprintf(why, sizeof why, "%s", st == ALEA_OK ? "" : alea_ctx_error(ctx));
        if (st != ALEA_OK) {
            fz_check_error(ctx, st, size);
            FZ_CHECK(roll_status_ok(st), "roll returned %s (%s), not a documented status",
                     alea_status_name(st), alea_ctx_error(ctx));
            /* No result: an empty line and an empty JSON object. */
            size_t n;
            char *t = fz_format(fz_fmt_roll, r, ALEA_FORMAT_TEXT, &n, h);
            FZ_CHECK(n == 0, "a failed roll formats as '%s'", t);
            free(t);
            t = fz_format(fz_fmt_roll, r, ALEA_FORMAT_JSON, &n, h);
            FZ_CHECK(fz_json_valid(t, n), "a failed roll formats as invalid JSON: %s", t);
            free(t);
        } else {
            fz_check_ok(ctx);
            text = check_formats(r, h + (uint64_t)i);
        }

        /* The fast path draws the same dice. */
        int64_t total = INT64_MIN + 7;
        alea_ctx_seed(ctx, seed);
        alea_status sst = alea_expr_sample(ctx, e, &total);
        /* The roll object keeps its memory for the next roll, and it counts
         * against the context's memory limit: the sample may find less room. */
        int sample_out_of_room = sst == ALEA_ERR_LIMIT && strstr(alea_ctx_error(ctx), "memory");
        if (st == ALEA_OK && !sample_out_of_room) {
            /* a repeat samples one roll: its first */
            int64_t want = alea_roll_count(r) > 1 ? alea_roll_total_at(r, 0) : alea_roll_total(r);
            FZ_CHECK(sst == ALEA_OK && total == want,
                     "roll gave %" PRId64 " but sample %s %" PRId64 " from seed %" PRIu64 " (%s)",
                     want, alea_status_name(sst), total, seed, alea_ctx_error(ctx));
        } else if (st != ALEA_OK) {
            /* a repeat samples its first roll: a later one may fail alone,
             * and the rolls together may pass a limit first ("19999 x
             * 31d(1)r1": the dice limit, where one roll's reroll never ends) */
            FZ_CHECK(sst == st || (st == ALEA_ERR_LIMIT && sst == ALEA_OK) ||
                         alea_expr_rolls(e) > 1 || sample_out_of_room || breakdown_full,
                     "roll failed with %s but sample with %s", alea_status_name(st),
                     alea_status_name(sst));
            if (sst != ALEA_OK)
                FZ_CHECK(total == INT64_MIN + 7, "sample wrote its total on failure");
        }

        /* The canonical form is the same expression: the same breakdown. */
        alea_ctx_seed(ctx2, seed);
        alea_status st2 = alea_expr_roll(ctx2, e2, r2);
        /* the breakdown's bytes are bounded before they are written, from
         * each term's span in the source (roll.c TERM_BYTES): a spelling
         * with more spaces meets the breakdown's limit sooner
         * ("sum(d999,2  d18)") */
        int breakdown_full2 = st2 == ALEA_ERR_LIMIT && strstr(alea_ctx_error(ctx2), "breakdown");
        FZ_CHECK(st2 == st || breakdown_full || breakdown_full2,
                 "'%.*s' rolls %s but its canonical form '%s' rolls %s (%s | %s)", (int)size, src,
                 alea_status_name(st), canon, alea_status_name(st2), why, alea_ctx_error(ctx2));
        if (st == ALEA_OK && st2 == ALEA_OK) {
            size_t n2;
            char *text2 = fz_format(fz_fmt_roll, r2, ALEA_FORMAT_TEXT, &n2, h);
            FZ_CHECK(strcmp(text, text2) == 0,
                     "the canonical form '%s' rolls differently:\n  source: %s\n  canon:  %s",
                     canon, text, text2);
            free(text2);
        }
        free(text);
    }

    /* Fault injection: fail one allocation of a fresh roll object's roll. */
    unsigned long before = heap.count;
    alea_roll *r3 = alea_roll_new(ctx);
    FZ_CHECK(r3 != NULL, "alea_roll_new failed");
    alea_ctx_seed(ctx, h);
    alea_status st3 = alea_expr_roll(ctx, e, r3);
    alea_roll_free(r3);
    unsigned long made = heap.count - before;
    heap.fail_at = heap.count + 1 + h % made;
    r3 = alea_roll_new(ctx);
    if (r3) {
        alea_ctx_seed(ctx, h);
        st = alea_expr_roll(ctx, e, r3);
        FZ_CHECK(st == ALEA_ERR_NOMEM || (st3 != ALEA_OK && st == st3),
                 "an allocation failed but the roll returned %s (%s)", alea_status_name(st),
                 alea_ctx_error(ctx));
        if (st != ALEA_OK)
            fz_check_error(ctx, st, size);
        size_t n;
        free(fz_format(fz_fmt_roll, r3, ALEA_FORMAT_TEXT, &n, h));
        alea_roll_free(r3);
    }
    heap.fail_at = 0;
    fz_check_memory(ctx, &heap);

    alea_roll_free(r);
    alea_roll_free(r2);
    alea_expr_free(e);
    alea_expr_free(e2);
    free(canon);
    fz_ctx_free(ctx, &heap);
    fz_ctx_free(ctx2, &heap2);
    return 0;
}
