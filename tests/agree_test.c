/*
 * agree_test.c -- the roller agrees with the exact engine.
 *
 * The corpus is the golden files' (tests/lang/NAME.test; the files named on
 * the command line, or else every .test file of ALEA_LANG_DIR): the
 * expression of every block but the error blocks, taken once by its
 * canonical form, when the exact engine computes its distribution under the
 * default limits and one roll needs at most AGREE_DICE dice. So each new
 * construct's golden file feeds this test, and an expression too costly to
 * roll ROLLS times (d20 +9999d) is left out.
 *
 * For each expression, ROLLS seeded rolls are binned and a chi-square
 * goodness-of-fit test is run against the exact distribution (bins with an
 * expected count below 5 are merged with their neighbours; a rolled value
 * the exact engine says is impossible fails at once; a constant must be
 * rolled CONST_ROLLS times out of CONST_ROLLS). The seed of an expression
 * is a hash of its canonical form, so the test never flakes and adding an
 * expression to a golden file never changes another's verdict. A wrong
 * distribution fails with a p-value near 0; the threshold is P_MIN.
 *
 * Power, at ROLLS = 50,000: moving 1% of the probability from one face of a
 * d6 to another gives a chi-square noncentrality of 50,000 x 2 x 0.01^2 /
 * (1/6) = 60 on 5 degrees of freedom, which goes past the 1e-4 threshold
 * (25.7) in about 99.9% of seeded runs (about 94% for a 0.8% shift); the
 * biased die below, 4/19 on the 6 instead of 1/6, fails by a wide margin.
 * With about 250 expressions at P_MIN, a correct roller passes them all for
 * about 97.5% of the sets of seeds; it does for these, and a new expression
 * that fails by chance (p just below 1e-4) is a 1 in 10,000 event to look
 * into, not to reseed away.
 */
#define _POSIX_C_SOURCE 200809L /* opendir */

#include <dirent.h>
#include <gsl/gsl_cdf.h>

#include "support.h"

#define ROLLS 50000
#define CONST_ROLLS 1000
#define AGREE_DICE 100 /* dice one roll may need to stay in the corpus */

/* ROLLS, or ALEA_AGREE_ROLLS (at least 1000): scripts/memcheck runs the
 * corpus with fewer rolls, for the memory checks, where every roll is about
 * 30 times slower (the full corpus took 452 s of a 41-minute CI there); the
 * power this comment speaks of is the sanitized and plain builds' */
static long corpus_rolls = ROLLS;
#define P_MIN 1e-4

#ifndef ALEA_LANG_DIR
#define ALEA_LANG_DIR "tests/lang"
#endif

static char **paths; /* the golden files read */
static int npaths;

/* ---- the corpus from the golden files ---- */

typedef struct corpus {
    char **expr; /* as written, in the order found */
    int *dialect; /* the dialect each is read in */
    size_t n, cap;
    const char *file; /* the file being read, and its dialect so far */
    int cur;
} corpus;

static void corpus_add(corpus *c, const char *s, size_t len)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->expr = realloc(c->expr, c->cap * sizeof *c->expr);
        c->dialect = realloc(c->dialect, c->cap * sizeof *c->dialect);
        assert_non_null(c->expr);
        assert_non_null(c->dialect);
    }
    c->dialect[c->n] = c->cur;
    char *e = malloc(len + 1);
    assert_non_null(e);
    memcpy(e, s, len);
    e[len] = '\0';
    c->expr[c->n++] = e;
}

/* The expression of a block (format in lang_runner.c): the rest of the
 * line after canon, dist, or roll/json and the seed; the first word after
 * p, mean, flag and label; the rest after the colon of faces. Error blocks have none worth rolling. */
static void take_block(const golden_block *b, void *ud)
{
    const char *cmd = b->lines[0];
    corpus *c = ud;
    if (c->file != b->file) { /* a file starts in alea's own dialect */
        c->file = b->file;
        c->cur = ALEA_DIALECT_ALEA;
    }
    if (strncmp(cmd, "dialect ", 8) == 0) {
        c->cur = alea_dialect_find(cmd + 8);
        assert_true(c->cur >= 0);
        return;
    }
    static const char *const rest[] = {"canon ", "dist "};
    static const char *const word[] = {"p ", "mean ", "flag ", "label "};
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++)
        if (strncmp(cmd, rest[i], strlen(rest[i])) == 0) {
            corpus_add(ud, cmd + strlen(rest[i]), strlen(cmd + strlen(rest[i])));
            return;
        }
    if (strncmp(cmd, "roll ", 5) == 0 || strncmp(cmd, "json ", 5) == 0) {
        const char *sp = strchr(cmd + 5, ' ');
        if (sp)
            corpus_add(ud, sp + 1, strlen(sp + 1));
        return;
    }
    if (strncmp(cmd, "faces ", 6) == 0) { /* "faces F... : EXPR" */
        const char *colon = strchr(cmd, ':');
        if (colon)
            corpus_add(ud, colon + 1 + strspn(colon + 1, " "), strlen(colon + 1 + strspn(colon + 1, " ")));
        return;
    }
    for (size_t i = 0; i < sizeof word / sizeof *word; i++)
        if (strncmp(cmd, word[i], strlen(word[i])) == 0) {
            const char *s = cmd + strlen(word[i]);
            corpus_add(ud, s, strcspn(s, " "));
            return;
        }
}

static int ends_with_test(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".test") == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .test file of ALEA_LANG_DIR, sorted, when none was named. */
static void list_lang_dir(void)
{
    DIR *d = opendir(ALEA_LANG_DIR);
    if (!d)
        return;
    struct dirent *ent;
    static char *found[256];
    while ((ent = readdir(d)) != NULL && npaths < 256) {
        if (!ends_with_test(ent->d_name))
            continue;
        size_t n = strlen(ALEA_LANG_DIR) + 1 + strlen(ent->d_name) + 1;
        found[npaths] = malloc(n);
        if (!found[npaths])
            break;
        snprintf(found[npaths], n, "%s/%s", ALEA_LANG_DIR, ent->d_name);
        npaths++;
    }
    closedir(d);
    qsort(found, (size_t)npaths, sizeof *found, cmp_str);
    paths = found;
}

/* FNV-1a: the seed of an expression, from its canonical form. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* ---- one expression ---- */

typedef struct bin {
    double expected;
    long observed;
} bin;

/* Rolls e with seed and compares with its distribution d (src for the
 * messages). */
static void check_one(alea_ctx *ctx, const char *src, const alea_expr *e, const alea_dist *d,
                      uint64_t seed)
{
    size_t n = alea_dist_count(d);
    long rolls = n == 1 && alea_dist_truncated(d) == 0 ? CONST_ROLLS : corpus_rolls;
    long *obs = calloc(n + 1, sizeof *obs); /* obs[n]: beyond the computed tail */
    assert_non_null(obs);
    alea_ctx_seed(ctx, seed);
    for (long i = 0; i < rolls; i++) {
        int64_t t;
        if (alea_expr_sample(ctx, e, &t) != ALEA_OK)
            fail_msg("'%s' roll: %s", src, alea_ctx_error(ctx));
        /* binary search for t among the outcomes */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (alea_dist_value(d, mid) < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && alea_dist_value(d, lo) == t)
            obs[lo]++;
        else if (alea_dist_truncated(d) > 0)
            obs[n]++;
        else
            fail_msg("'%s' rolled %lld, which the exact engine calls impossible", src,
                     (long long)t);
    }
    /* Merge adjacent outcomes until each bin expects at least 5. */
    bin *bins = calloc(n + 1, sizeof *bins);
    assert_non_null(bins);
    size_t nb = 0;
    bin cur = {0, 0};
    for (size_t i = 0; i <= n; i++) {
        cur.expected += (double)rolls * (i < n ? alea_dist_prob(d, i) : alea_dist_truncated(d));
        cur.observed += obs[i];
        if (cur.expected >= 5) {
            bins[nb++] = cur;
            cur.expected = 0;
            cur.observed = 0;
        }
    }
    if (nb > 0) {
        bins[nb - 1].expected += cur.expected;
        bins[nb - 1].observed += cur.observed;
    }
    if (nb >= 2) {
        double chi2 = 0;
        for (size_t i = 0; i < nb; i++) {
            double diff = (double)bins[i].observed - bins[i].expected;
            chi2 += diff * diff / bins[i].expected;
        }
        double p = gsl_cdf_chisq_Q(chi2, (double)(nb - 1));
        if (p < P_MIN)
            fail_msg("'%s': chi-square %.2f with %zu bins, p = %.3g", src, chi2, nb - 1, p);
    } else {
        /* A constant: every roll must be that value. */
        assert_int_equal(n, 1);
        assert_int_equal(obs[0], rolls);
    }
    free(bins);
    free(obs);
}

static void test_roller_agrees_with_exact(void **state)
{
    (void)state;
    corpus c = {NULL, NULL, 0, 0, NULL, 0};
    if (npaths == 0)
        list_lang_dir();
    assert_true(npaths >= 10); /* the golden files were found */
    for (int i = 0; i < npaths; i++)
        if (golden_read(paths[i], take_block, &c) != 0)
            fail_msg("cannot read %s", paths[i]);

    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    assert_non_null(ctx);
    char **seen = calloc(c.n, sizeof *seen); /* canonical forms checked */
    assert_non_null(seen);
    size_t nseen = 0, costly = 0, no_dist = 0, constants = 0;
    for (size_t i = 0; i < c.n; i++) {
        alea_expr *e = NULL;
        alea_dist *d = NULL;
        alea_ctx_set_dialect(ctx, (alea_dialect)c.dialect[i]);
        if (alea_expr_compile(ctx, c.expr[i], strlen(c.expr[i]), &e) != ALEA_OK)
            continue; /* lang_runner reports it */
        size_t len = alea_expr_format(e, NULL, 0);
        char *canon = malloc(len + 1);
        assert_non_null(canon);
        alea_expr_format(e, canon, len + 1);
        int dup = 0;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = strcmp(seen[k], canon) == 0;
        if (dup) {
            free(canon);
            alea_expr_free(e);
            continue;
        }
        seen[nseen++] = canon;
        if (alea_expr_dist(ctx, e, &d) != ALEA_OK) {
            no_dist++; /* a limit, or no distribution (a divisor that can be 0) */
            alea_expr_free(e);
            continue;
        }
        /* One roll within AGREE_DICE dice, or the expression is left out. */
        int64_t t;
        alea_ctx_limit(ctx, ALEA_LIMIT_DICE, AGREE_DICE);
        alea_ctx_seed(ctx, 0);
        alea_status st = alea_expr_sample(ctx, e, &t);
        if (st == ALEA_ERR_LIMIT) {
            costly++;
        } else {
            if (st != ALEA_OK)
                fail_msg("'%s' roll: %s", c.expr[i], alea_ctx_error(ctx));
            constants += alea_dist_count(d) == 1 && alea_dist_truncated(d) == 0;
            check_one(ctx, canon, e, d, fnv1a(canon));
        }
        alea_ctx_limit(ctx, ALEA_LIMIT_DICE, alea_limit_default(ALEA_LIMIT_DICE));
        alea_dist_free(d);
        alea_expr_free(e);
    }
    size_t checked = nseen - costly - no_dist;
    print_message("%zu expressions of %d golden files: %zu checked (%zu constants), "
                  "%zu without a distribution, %zu over %d dice\n",
                  nseen, npaths, checked, constants, no_dist, costly, AGREE_DICE);
    /* The files hold every construct: far more than the 86 expressions
     * that were listed here by hand before. */
    assert_true(checked >= 150);
    for (size_t k = 0; k < nseen; k++)
        free(seen[k]);
    free(seen);
    for (size_t k = 0; k < c.n; k++)
        free(c.expr[k]);
    free(c.expr);
    free(c.dialect);
    alea_ctx_free(ctx);
}

/* The test can fail: a distribution that is slightly off is caught. */
static void test_detects_a_wrong_distribution(void **state)
{
    (void)state;
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *fair = NULL, *biased = NULL;
    alea_dist *d = NULL;
    assert_int_equal(alea_expr_compile(ctx, "1d6", 3, &fair), ALEA_OK);
    assert_int_equal(alea_expr_compile(ctx, "d{1,2,3,4,5,6,6,1,2,3,4,5,6,6,1,2,3,4,5}", 40,
                                       &biased),
                     ALEA_OK);
    assert_int_equal(alea_expr_dist(ctx, fair, &d), ALEA_OK);
    double chi2 = 0;
    long obs[7] = {0};
    alea_ctx_seed(ctx, 1);
    for (long i = 0; i < ROLLS; i++) {
        int64_t t;
        assert_int_equal(alea_expr_sample(ctx, biased, &t), ALEA_OK);
        obs[t]++;
    }
    for (int v = 1; v <= 6; v++) {
        double ex = ROLLS * alea_dist_p(d, v);
        double diff = (double)obs[v] - ex;
        chi2 += diff * diff / ex;
    }
    assert_true(gsl_cdf_chisq_Q(chi2, 5) < P_MIN);
    alea_dist_free(d);
    alea_expr_free(fair);
    alea_expr_free(biased);
    alea_ctx_free(ctx);
}

int main(int argc, char **argv)
{
    paths = argv + 1;
    npaths = argc - 1;
    const char *env = getenv("ALEA_AGREE_ROLLS");
    if (env && atol(env) >= 1000)
        corpus_rolls = atol(env);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roller_agrees_with_exact),
        cmocka_unit_test(test_detects_a_wrong_distribution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
