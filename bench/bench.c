/*
 * bench.c -- alea's benchmarks: prints markdown tables to paste into
 * bench/README.md (scripts/bench builds and runs it).
 *
 *   alea_bench [--alea PATH] [--quick] [--growth FILE] [SECTION...]
 *
 * SECTION is one of exact, names, process, roll, sample, startup, growth
 * (all by default). --alea names the command-line binary for the whole-process
 * measures (default: "alea" beside this program's directory, ../alea).
 * --growth writes the growth series as data for gnuplot. --quick runs
 * fewer repetitions (for a smoke test, not for numbers).
 *
 * In-process times use the monotonic clock: a warm-up, then repetitions
 * until 0.3 s have passed (at least 5, at most 10000); the table shows the
 * median and, in brackets, the 10th and 90th percentiles. Whole-process
 * times spawn the binary with its output to /dev/null the same way; the
 * peak resident memory is the largest ru_maxrss of those runs.
 */
#define _DEFAULT_SOURCE 1 /* wait4 */
#define _POSIX_C_SOURCE 200809L

#include <alea.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rng.h" /* the generator itself, for its raw speed */
#include "ast.h" /* trees with names built by hand (tests/tree.h) */
#include "../tests/tree.h"

extern char **environ;

#define MAX_REPS 10000

static double budget_s = 0.3; /* per measurement */
static int min_reps = 5;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and 10th / 90th percentiles of n samples (sorted in place). */
typedef struct stats {
    double med, p10, p90;
    int n;
} stats;

static stats summarize(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    stats s = {t[n / 2], t[n / 10], t[n - 1 - n / 10], n};
    if (n % 2 == 0)
        s.med = (t[n / 2 - 1] + t[n / 2]) / 2;
    return s;
}

/* Times fn(arg) as described above; seconds per call. */
typedef int (*work_fn)(void *arg);

static stats measure(work_fn fn, void *arg)
{
    static double t[MAX_REPS];
    double start = now_s();
    for (int i = 0; i < 3 && now_s() - start < budget_s / 6; i++)
        if (fn(arg) != 0)
            return (stats){NAN, NAN, NAN, 0};
    int n = 0;
    start = now_s();
    while (n < MAX_REPS && (n < min_reps || now_s() - start < budget_s)) {
        double a = now_s();
        if (fn(arg) != 0)
            return (stats){NAN, NAN, NAN, 0};
        t[n++] = now_s() - a;
    }
    return summarize(t, n);
}

/* "1.23 (1.20-1.31)" in milliseconds. */
static void put_ms(stats s)
{
    if (s.n == 0) {
        printf("failed");
        return;
    }
    double k = 1e3;
    if (s.med * k >= 100)
        printf("%.0f (%.0f-%.0f)", s.med * k, s.p10 * k, s.p90 * k);
    else if (s.med * k >= 1)
        printf("%.2f (%.2f-%.2f)", s.med * k, s.p10 * k, s.p90 * k);
    else
        printf("%.3f (%.3f-%.3f)", s.med * k, s.p10 * k, s.p90 * k);
}

static void fail(const char *what, alea_ctx *ctx)
{
    fprintf(stderr, "alea_bench: %s: %s\n", what, alea_ctx_error(ctx));
    exit(1);
}

static alea_expr *compile(alea_ctx *ctx, const char *src)
{
    alea_expr *e;
    if (alea_expr_compile(ctx, src, strlen(src), &e) != ALEA_OK)
        fail(src, ctx);
    return e;
}

/* A context with the limits raised (memory to 2 GiB): the benchmarks
 * measure the engine, not the limits. */
static alea_ctx *big_ctx(void)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    if (!ctx)
        exit(1);
    for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
        alea_ctx_limit(ctx, (alea_limit)l, alea_limit_max((alea_limit)l));
    alea_ctx_limit(ctx, ALEA_LIMIT_MEMORY, (int64_t)2 << 30);
    alea_ctx_seed(ctx, 1);
    return ctx;
}

/* ---- exact distributions, in-process ------------------------------------ */

typedef struct dist_job {
    alea_ctx *ctx;
    const char *src; /* compiled each time: a request is compile + dist */
} dist_job;

static int run_dist(void *arg)
{
    dist_job *j = arg;
    alea_expr *e = compile(j->ctx, j->src);
    alea_dist *d;
    alea_status st = alea_expr_dist(j->ctx, e, &d);
    alea_expr_free(e);
    if (st != ALEA_OK)
        return -1;
    alea_dist_free(d);
    return 0;
}

/* The anchors: icepool 2.2.2 on CPython 3.11, compute only, best of 3, on a
 * 2-core AMD EPYC (issue 5). */
static const struct anchor {
    const char *what, *expr;
    double icepool_ms;
} anchors[] = {
    {"keep highest 50 of 100d6", "100d6kh50", 122},
    {"sum of 200d20", "200d20", 2170},
    {"keep highest 10 of 40d20", "40d20kh10", 41},
    {"5 exploding d10, keep highest 3", "5d10!kh3", 42},
    {"10 exploding d10, keep highest 5", "10d10!kh5", 119},
    /* issue 31's, icepool at the explosion depth whose cut mass is alea's
     * truncated fraction (bench/icepool_times.py), on this machine
     * 2026-11-28 */
    {"20 exploding d6, keep highest 10", "20d6!kh10", 2149},
    {"6 exploding d12, keep lowest 2", "6d12!kl2", 181},
    {"`event(3d4 + 3d6 + d18)`", "event(3d4 + 3d6 + d18)", 200},
};
#define NANCHORS (sizeof anchors / sizeof anchors[0])

static void section_exact(void)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL); /* default limits: what a user gets */
    printf("### Exact distributions, in-process (compile + dist), ms\n\n");
    /* exact fractions, the same default limits; "-" where refused */
    alea_ctx *qctx = alea_ctx_new(NULL, NULL);
    int have_q = alea_ctx_set_exact(qctx, 1) == ALEA_OK;
    printf("| case | expression | alea | alea, fractions | icepool | icepool / alea |\n");
    printf("|---|---|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < NANCHORS; i++) {
        dist_job j = {ctx, anchors[i].expr}, jq = {qctx, anchors[i].expr};
        stats s = measure(run_dist, &j);
        printf("| %s | `%s` | ", anchors[i].what, anchors[i].expr);
        put_ms(s);
        printf(" | ");
        if (have_q && run_dist(&jq) == 0)
            put_ms(measure(run_dist, &jq));
        else
            printf("-");
        printf(" | %.0f | %.0fx |\n", anchors[i].icepool_ms,
               anchors[i].icepool_ms / (s.med * 1e3));
    }
    printf("\n");
    alea_ctx_free(ctx);
    alea_ctx_free(qctx);
}

/* ---- distances between two distributions (alea_dist_versus) ------------------ */

typedef struct versus_job {
    alea_ctx *ctx;
    alea_dist *a, *b;
} versus_job;

static int run_versus(void *arg)
{
    versus_job *j = arg;
    alea_versus v;
    return alea_dist_versus(j->ctx, j->a, j->b, &v) == ALEA_OK ? 0 : -1;
}

static alea_dist *dist_or_fail(alea_ctx *ctx, const char *src)
{
    alea_expr *e = compile(ctx, src);
    alea_dist *d;
    if (alea_expr_dist(ctx, e, &d) != ALEA_OK)
        fail(src, ctx);
    alea_expr_free(e);
    return d;
}

/* The walk alone, the distributions computed beforehand: linear in the
 * outcomes of both (a tenth of the outcomes, a tenth of the time). */
static void section_versus(void)
{
    static const struct {
        const char *a, *b;
        int exact;
    } cases[] = {
        {"1d10000", "1d10000 + 7", 0},
        {"1d100000", "1d100000 + 7", 0},
        {"2000d6", "2000d6 + 3", 0},
        {"10000d6", "10001d6", 0},
        {"200d20", "201d20", 1},
    };
    printf("### Distances between two distributions (alea_dist_versus alone), ms\n\n");
    printf("| A | B | outcomes of A + B | in doubles or fractions | time |\n");
    printf("|---|---|--:|---|--:|\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        alea_ctx *ctx = big_ctx();
        if (cases[i].exact && alea_ctx_set_exact(ctx, 1) != ALEA_OK) {
            alea_ctx_free(ctx);
            continue;
        }
        versus_job j = {ctx, dist_or_fail(ctx, cases[i].a), dist_or_fail(ctx, cases[i].b)};
        printf("| `%s` | `%s` | %zu | %s | ", cases[i].a, cases[i].b,
               alea_dist_count(j.a) + alea_dist_count(j.b),
               cases[i].exact ? "fractions" : "doubles");
        put_ms(measure(run_versus, &j));
        printf(" |\n");
        alea_dist_free(j.a);
        alea_dist_free(j.b);
        alea_ctx_free(ctx);
    }
    printf("\n");
}

/* ---- names: a value used twice (let) ------------------------------------------ */

/* Each case as the language spells it, measured as compile + dist once the
 * parser reads it; until then (and for the rogue without "if") as a tree
 * built by hand (tests/tree.h), built once and measured as dist alone. */
static const struct named {
    const char *what, *text, *tree;
} named[] = {
    {"a part that reads no name", "let a = d20 in a + 100d6", "(let $a d20 (+ $a 100d6))"},
    {"two names, every pair of values", "let a = d20 in let b = d20 in a + b",
     "(let $a d20 (let $b d20 (+ $a $b)))"},
    {"the two-attack rogue",
     "let a = d20 in let b = d20 in let h1 = a = 20 or a + 8 >= 16 in "
     "let h2 = b = 20 or b + 8 >= 16 in if(h1, if(a = 20, 2d4, d4) + 4, 0) + "
     "if(h2, if(b = 20, 2d4, d4) + 4, 0) + "
     "if(h1, if(a = 20, 6d6, 3d6), if(h2, if(b = 20, 6d6, 3d6), 0))",
     NULL},
    {"the rogue, 0/1 products for if", NULL,
     "(let $a d20 (let $b d20 (let $h (>= $a 8) (let $g (>= $b 8) (let $c (= $a 20) "
     "(let $d (= $b 20) (+ (* $h (+ (* $c 2d4) (* (- 1 $c) d4) 4)) "
     "(* $g (+ (* $d 2d4) (* (- 1 $d) d4) 4)) (* $h (+ (* $c 6d6) (* (- 1 $c) 3d6))) "
     "(* (- 1 $h) $g (+ (* $d 6d6) (* (- 1 $d) 3d6))))))))))"},
};
#define NNAMED (sizeof named / sizeof named[0])

typedef struct tree_job {
    alea_ctx *ctx;
    const alea_expr *e;
} tree_job;

static int run_tree(void *arg)
{
    tree_job *j = arg;
    alea_dist *d;
    if (alea_expr_dist(j->ctx, j->e, &d) != ALEA_OK)
        return -1;
    alea_dist_free(d);
    return 0;
}

/* One cell: the case in ctx, as text when it compiles, else as its tree;
 * "-" when neither (or the limits refuse it). */
static void named_cell(alea_ctx *ctx, const struct named *c)
{
    alea_expr *e = NULL;
    if (c->text && alea_expr_compile(ctx, c->text, strlen(c->text), &e) == ALEA_OK) {
        alea_expr_free(e);
        dist_job j = {ctx, c->text};
        if (run_dist(&j) == 0) {
            put_ms(measure(run_dist, &j));
            return;
        }
    } else if (c->tree) {
        tree t;
        if (tree_build(ctx, c->tree, &t)) {
            tree_job j = {ctx, t.e};
            if (run_tree(&j) == 0)
                put_ms(measure(run_tree, &j));
            else
                printf("-");
            tree_free(&t);
            return;
        }
    }
    printf("-");
}

static void section_names(void)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL), *qctx = alea_ctx_new(NULL, NULL);
    int have_q = alea_ctx_set_exact(qctx, 1) == ALEA_OK;
    printf("### Names, in-process, ms\n\n");
    printf("| case | expression | alea | alea, fractions | mean | P(0) |\n");
    printf("|---|---|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < NNAMED; i++) {
        const struct named *c = &named[i];
        alea_expr *e = NULL;
        int text = c->text && alea_expr_compile(ctx, c->text, strlen(c->text), &e) == ALEA_OK;
        tree t = {0};
        if (!text && c->tree)
            e = tree_build(ctx, c->tree, &t);
        printf("| %s | `%s`%s | ", c->what, text || !c->tree ? c->text : c->tree,
               text ? "" : c->tree ? " (tree)" : " (not read yet)");
        named_cell(ctx, c);
        printf(" | ");
        if (have_q)
            named_cell(qctx, c);
        else
            printf("-");
        alea_dist *d = NULL;
        if (e && alea_expr_dist(ctx, e, &d) == ALEA_OK)
            printf(" | %.6g | %.6g |\n", alea_dist_mean(d),
                   alea_dist_value(d, 0) == 0 ? alea_dist_prob(d, 0) : 0.0);
        else
            printf(" | - | - |\n");
        alea_dist_free(d);
        if (text)
            alea_expr_free(e);
        else
            tree_free(&t);
    }
    printf("\n");
    alea_ctx_free(ctx);
    alea_ctx_free(qctx);
}

/* ---- rerolls chosen for a goal (issue 30) ---------------------------------- */

typedef struct reroll_job {
    alea_ctx *ctx;
    const char *src; /* NULL: every target of reroll(5d6, 1, >= T), T = 5..30 */
} reroll_job;

static int run_reroll(void *arg)
{
    reroll_job *j = arg;
    for (int t = 5; t <= 30; t++) {
        char src[64];
        snprintf(src, sizeof src, "reroll(5d6, 1, >= %d)", t);
        dist_job d = {j->ctx, j->src ? j->src : src};
        if (run_dist(&d) != 0)
            return -1;
        if (j->src)
            break;
    }
    return 0;
}

static void section_reroll(void)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL), *qctx = alea_ctx_new(NULL, NULL);
    int have_q = alea_ctx_set_exact(qctx, 1) == ALEA_OK;
    static const struct {
        const char *what, *src;
    } cases[] = {
        {"every target of `reroll(5d6, 1, >= T)`, T = 5..30, together", NULL},
        {"one d10, five rounds", "reroll(d10, 5, mean)"},
        {"5d6 for 20 or more, two rounds, one die a round", "reroll(5d6, 2, >= 20, 1)"},
        {"10d10, one round (92,378 full states)", "reroll(10d10, 1, mean)"},
    };
    printf("### Rerolls for a goal, in-process (compile + dist), ms; default limits\n\n");
    printf("| case | expression | alea | alea, fractions |\n");
    printf("|---|---|--:|--:|\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reroll_job j = {ctx, cases[i].src}, jq = {qctx, cases[i].src};
        printf("| %s | %s%s%s | ", cases[i].what, cases[i].src ? "`" : "",
               cases[i].src ? cases[i].src : "26 expressions", cases[i].src ? "`" : "");
        put_ms(measure(run_reroll, &j));
        printf(" | ");
        if (have_q && run_reroll(&jq) == 0)
            put_ms(measure(run_reroll, &jq));
        else
            printf("-");
        printf(" |\n");
    }
    printf("\n");
    alea_ctx_free(ctx);
    alea_ctx_free(qctx);
}

/* ---- tables: an expression over a grid of its names' values ------------------- */

/* A grid of rows x cols cells, each an exact distribution: by text (each
 * cell's values written into fmt, compiled and computed, as alea table
 * does where the language takes only fixed numbers), or by parameters
 * (src compiled once with the names m and dc, alea_expr_dist_at per cell). */
typedef struct table_job {
    alea_ctx *ctx;
    const char *fmt, *src;
    int64_t r0, rows, c0, cols;
} table_job;

/* tmpl with each '@' written as m, each '#' as c. */
static void fill(char *out, size_t cap, const char *tmpl, int64_t m, int64_t c)
{
    size_t at = 0;
    for (; *tmpl && at + 24 < cap; tmpl++) {
        if (*tmpl == '@' || *tmpl == '#')
            at += (size_t)snprintf(out + at, cap - at, "%lld", (long long)(*tmpl == '@' ? m : c));
        else
            out[at++] = *tmpl;
    }
    out[at] = '\0';
}

static int run_table(void *arg)
{
    table_job *j = arg;
    const char *names[] = {"m", "dc"};
    alea_expr *e = NULL;
    if (j->src && alea_expr_compile_with(j->ctx, j->src, strlen(j->src), names, 2, &e) != ALEA_OK)
        return -1;
    for (int64_t r = j->r0; r < j->r0 + j->rows; r++)
        for (int64_t c = j->c0; c < j->c0 + j->cols; c++) {
            alea_dist *d = NULL;
            alea_status st;
            if (e) {
                int64_t v[2] = {r, c};
                st = alea_expr_dist_at(j->ctx, e, v, 2, &d);
            } else {
                char text[128];
                fill(text, sizeof text, j->fmt, r, c);
                alea_expr *t = compile(j->ctx, text);
                st = alea_expr_dist(j->ctx, t, &d);
                alea_expr_free(t);
            }
            alea_dist_free(d);
            if (st != ALEA_OK) {
                alea_expr_free(e);
                return -1;
            }
        }
    alea_expr_free(e);
    return 0;
}

/* A whole table through the library (alea_table_new): the expression
 * compiled once, or written per cell where it takes fixed numbers; what
 * reads no name computed once for the table (share.h). */
typedef struct api_job {
    alea_ctx *ctx;
    const char *src, *sweep[2], *stat;
} api_job;

static int run_table_api(void *arg)
{
    api_job *j = arg;
    alea_table *t = NULL;
    size_t nsw = j->sweep[1] ? 2 : 1;
    if (alea_table_new(j->ctx, j->src, strlen(j->src), j->sweep, nsw, &j->stat, 1, &t) != ALEA_OK)
        return -1;
    alea_table_free(t);
    return 0;
}

static void section_table_api(void)
{
    static const api_job jobs[] = {
        {NULL, "dd(m, d, best)", {"m=0..10", "d=10..22"}, "p>=2"},
        {NULL, "10d6 + m >= dc", {"m=0..10", "dc=30..42"}, "mean"},
        {NULL, "10d10!kh5 + m >= dc", {"m=0..10", "dc=10..22"}, "mean"},
        {NULL, "let a = 40d20kh10 in a * m", {"m=1..20", NULL}, "mean"},
    };
    alea_ctx *ctx = big_ctx();
    printf("### Tables through the library (alea_table_new), ms for the whole table\n\n");
    printf("| expression | sweeps | alea | alea, fractions |\n|---|---|--:|--:|\n");
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        api_job j = jobs[i];
        j.ctx = ctx;
        printf("| `%s` | %s%s%s | ", j.src, j.sweep[0], j.sweep[1] ? " " : "",
               j.sweep[1] ? j.sweep[1] : "");
        for (int exact = 0; exact < 2; exact++) {
            if (alea_ctx_set_exact(ctx, exact) != ALEA_OK) {
                printf("- |%s", exact ? "" : " ");
                continue;
            }
            put_ms(measure(run_table_api, &j));
            printf(" |%s", exact ? "" : " ");
        }
        printf("\n");
    }
    alea_ctx_set_exact(ctx, 0);
    printf("\n");
    alea_ctx_free(ctx);
}

static void section_table(void)
{
    static const table_job jobs[] = {
        {NULL, "dd(@, #, best)", NULL, 0, 11, 10, 13},
        {NULL, NULL, "d20 + m >= dc", 0, 11, 10, 13},
        {NULL, "let m = @, dc = # in d20 + m >= dc", NULL, 0, 11, 10, 13},
        {NULL, NULL, "10d6 + m >= dc", 0, 11, 30, 13},
        {NULL, "let m = @, dc = # in 10d6 + m >= dc", NULL, 0, 11, 30, 13},
    };
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    printf("### Tables (alea table), in-process, ms for the whole grid\n\n");
    printf("| grid | cells | how | ms |\n|---|--:|---|--:|\n");
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        table_job j = jobs[i];
        j.ctx = ctx;
        printf("| `%s` | %lld x %lld | %s | ", j.src ? j.src : j.fmt, (long long)j.rows,
               (long long)j.cols, j.src ? "parameters, compiled once" : "text per cell");
        put_ms(measure(run_table, &j));
        printf(" |\n");
    }
    printf("\n");
    alea_ctx_free(ctx);
    section_table_api();
}

/* ---- whole processes --------------------------------------------------------- */

typedef struct proc_job {
    char **argv;
    long maxrss_kb;
} proc_job;

static int run_proc(void *arg)
{
    proc_job *j = arg;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, j->argv[0], &fa, NULL, j->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "alea_bench: cannot run %s: %s\n", j->argv[0], strerror(rc));
        return -1;
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return -1;
    if (ru.ru_maxrss > j->maxrss_kb)
        j->maxrss_kb = ru.ru_maxrss;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static const char *alea_path = "alea";

/* Times the command args[0..] (NULL-terminated, at most 15 words). */
static stats time_process(const char *const *args, long *maxrss_kb)
{
    char *argv[16];
    int n = 0;
    for (; args[n] && n < 15; n++)
        argv[n] = strdup(args[n]);
    argv[n] = NULL;
    proc_job j = {argv, 0};
    stats s = measure(run_proc, &j);
    for (int i = 0; i < n; i++)
        free(argv[i]);
    if (maxrss_kb)
        *maxrss_kb = j.maxrss_kb;
    return s;
}

static stats time_true(void)
{
    const char *args[] = {"/bin/true", NULL};
    return time_process(args, NULL);
}

static void section_process(void)
{
    printf("### Exact distributions, whole process (`alea dist [--exact] --json EXPR`), "
           "ms\n\n");
    stats t = time_true();
    printf("Starting any process here (`/bin/true`) takes ");
    put_ms(t);
    printf(" ms.\n\n");
    printf("| expression | alea process | peak RSS MB | in fractions (`--exact`) | "
           "icepool (compute only) | ratio |\n");
    printf("|---|--:|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < NANCHORS; i++) {
        const char *args[] = {alea_path, "dist", "--json", anchors[i].expr, NULL};
        const char *qargs[] = {alea_path, "dist", "--exact", "--json", anchors[i].expr, NULL};
        long kb, qkb;
        stats s = time_process(args, &kb), q = time_process(qargs, &qkb);
        printf("| `%s` | ", anchors[i].expr);
        put_ms(s);
        printf(" | %.1f | ", (double)kb / 1024);
        put_ms(q);
        printf(" | %.0f | %.0fx |\n", anchors[i].icepool_ms, anchors[i].icepool_ms / (s.med * 1e3));
    }
    /* the largest plain sums the default limits take in fractions (issue 31) */
    static const char *const sums[] = {"300d20", "1000d6"};
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        const char *args[] = {alea_path, "dist", "--json", sums[i], NULL};
        const char *qargs[] = {alea_path, "dist", "--exact", "--json", sums[i], NULL};
        long kb, qkb;
        stats s = time_process(args, &kb), q = time_process(qargs, &qkb);
        printf("| `%s` | ", sums[i]);
        put_ms(s);
        printf(" | %.1f | ", (double)kb / 1024);
        put_ms(q);
        printf(" | - | - |\n");
    }
    printf("\n");
}

/* ---- rolling ------------------------------------------------------------------- */

typedef struct roll_job {
    alea_ctx *ctx;
    alea_expr *e;
    alea_roll *r;
    char buf[4096];
    int n; /* rolls per call */
    int format;
} roll_job;

static int run_rolls(void *arg)
{
    roll_job *j = arg;
    for (int i = 0; i < j->n; i++) {
        if (alea_expr_roll(j->ctx, j->e, j->r) != ALEA_OK)
            return -1;
        if (j->format)
            alea_roll_format(j->r, ALEA_FORMAT_TEXT, j->buf, sizeof j->buf);
    }
    return 0;
}

static const struct roll_anchor {
    const char *expr;
    double rpg_per_s; /* rpg-dice-roller, in-process loop (issue 5) */
} roll_anchors[] = {
    {"4d6kh3", 210e3},
    {"1d20+5", 137e3},
    {"3d6!", 219e3},
};
#define NROLL (sizeof roll_anchors / sizeof roll_anchors[0])

static void section_roll(int quick)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_ctx_seed(ctx, 1);
    printf("### Rolling, rolls per second\n\n");
    printf("In-process: `alea_expr_roll` with the breakdown formatted "
           "(`alea_roll_format`), 1000 rolls a call. Whole process: "
           "`alea roll -n N EXPR > /dev/null`, breakdowns printed.\n\n");
    printf("| expression | in-process | whole process | rpg-dice-roller | whole / rpg |\n");
    printf("|---|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < NROLL; i++) {
        roll_job *j = calloc(1, sizeof *j);
        j->ctx = ctx;
        j->e = compile(ctx, roll_anchors[i].expr);
        j->r = alea_roll_new(ctx);
        j->n = 1000;
        j->format = 1;
        stats s = measure(run_rolls, j);
        char n[32];
        long rolls = quick ? 100000 : 1000000;
        snprintf(n, sizeof n, "%ld", rolls);
        const char *args[] = {alea_path, "roll", "-n", n, "--seed", "1",
                              roll_anchors[i].expr, NULL};
        double save = budget_s;
        budget_s = quick ? 0.2 : 2;
        int save_min = min_reps;
        min_reps = 3;
        stats p = time_process(args, NULL);
        budget_s = save;
        min_reps = save_min;
        double inproc = 1000 / s.med, whole = (double)rolls / p.med;
        printf("| `%s` | %.2f M | %.2f M | %.0f k | %.1fx |\n", roll_anchors[i].expr,
               inproc / 1e6, whole / 1e6, roll_anchors[i].rpg_per_s / 1e3,
               whole / roll_anchors[i].rpg_per_s);
        alea_roll_free(j->r);
        alea_expr_free(j->e);
        free(j);
    }
    printf("\n");
    alea_ctx_free(ctx);
}

/* ---- plain sums against the generator ------------------------------------------------ */

typedef struct gen_job {
    alea_ctx *ctx;
    alea_expr *e;
    uint64_t sink;
} gen_job;

#define GEN_BATCH 100000

static int run_gen(void *arg)
{
    gen_job *j = arg;
    j->sink += alea__rng_sum_raw(j->ctx, GEN_BATCH);
    return 0;
}

static int run_sample(void *arg)
{
    gen_job *j = arg;
    int64_t t;
    if (alea_expr_sample(j->ctx, j->e, &t) != ALEA_OK)
        return -1;
    j->sink += (uint64_t)t;
    return 0;
}

static void section_sample(void)
{
    alea_ctx *ctx = big_ctx();
    gen_job g = {ctx, NULL, 0};
    stats sg = measure(run_gen, &g);
    double gen_rate = GEN_BATCH / sg.med;
    printf("### Plain sums against the generator\n\n");
    printf("The generator (xoshiro256**) alone makes %.0f M 64-bit numbers per "
           "second (summed in a loop like the dice's); `alea_expr_sample` (no "
           "breakdown) rolls:\n\n", gen_rate / 1e6);
    printf("| expression | dice per second | ratio to the generator |\n|---|--:|--:|\n");
    static const struct {
        const char *expr;
        double dice;
    } sums[] = {{"100000d6", 1e5}, {"100000d20", 1e5}, {"100000d1000000", 1e5}};
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        g.e = compile(ctx, sums[i].expr);
        stats s = measure(run_sample, &g);
        double rate = sums[i].dice / s.med;
        printf("| `%s` | %.0f M | %.2f |\n", sums[i].expr, rate / 1e6, rate / gen_rate);
        alea_expr_free(g.e);
    }
    printf("\n");
    alea_ctx_free(ctx);
}

/* ---- start-up ------------------------------------------------------------------------ */

static void section_startup(void)
{
    printf("### Start-up, whole process, ms\n\n");
    printf("| command | alea |\n|---|--:|\n");
    stats t = time_true();
    printf("| `/bin/true` (any process here) | ");
    put_ms(t);
    printf(" |\n");
    static const char *const cmds[][4] = {
        {"roll", "d20", NULL, NULL},
        {"roll", "4d6kh3", NULL, NULL},
        {"dist", "3d6", NULL, NULL},
        {"dist", "event(d12 + d14 + d18 + d20)", NULL, NULL},
        {"compare", "dd(6, 14)", "dd(6, 14, best)", NULL},
        /* loads the exact module (GMP) */
        {"dist", "--exact", "3d6", NULL},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *args[6] = {alea_path};
        int k = 1;
        for (int a = 0; a < 4 && cmds[i][a]; a++)
            args[k++] = cmds[i][a];
        args[k] = NULL;
        stats s = time_process(args, NULL);
        printf("| `alea");
        for (int a = 1; a < k; a++)
            printf(a > 1 && args[a][0] != '-' ? " '%s'" : " %s", args[a]);
        printf("` | ");
        put_ms(s);
        printf(" |\n");
    }
    printf("\n");
}

/* ---- growth -------------------------------------------------------------------------- */

/* The expression of growth series k at size n. */
enum { G_KEEP, G_EXPLODE, G_EVENT, G_SUM, G_KEEP_Q, G_SUM_Q, G_SUM6_Q, G__COUNT };

static void growth_expr(int k, int n, char *src, size_t cap)
{
    switch (k) {
    case G_KEEP:
    case G_KEEP_Q: snprintf(src, cap, "%dd6kh%d", n, n / 2); break;
    case G_EXPLODE: snprintf(src, cap, "%dd6!", n); break;
    case G_EVENT: snprintf(src, cap, "event(%dd6)", n); break;
    case G_SUM6_Q: snprintf(src, cap, "%dd6", n); break;
    default: snprintf(src, cap, "%dd20", n); break;
    }
}

static void section_growth(const char *data_path)
{
    static const char *const names[G__COUNT] = {
        "keep the highest half: `Nd6khN/2`", "exploding: `Nd6!`",
        "critical pool: `event(Nd6)`", "sum: `Nd20`",
        "keep the highest half in fractions: `Nd6khN/2`", "sum in fractions: `Nd20`",
        "sum in fractions: `Nd6`"};
    /* The largest N each series reaches in a few seconds. */
    static const int sizes[] = {10, 30, 100, 300, 1000};
    static const int largest[G__COUNT] = {1000, 1000, 100, 1000, 1000, 1000, 1000};
    FILE *data = data_path ? fopen(data_path, "w") : NULL;
    if (data_path && !data) {
        fprintf(stderr, "alea_bench: cannot write %s\n", data_path);
        exit(1);
    }
    alea_ctx *ctx = big_ctx(), *qctx = big_ctx();
    int have_q = alea_ctx_set_exact(qctx, 1) == ALEA_OK;
    printf("### Growth, in-process (compile + dist), ms; limits raised\n\n");
    printf("| series | N = 10 | 30 | 100 | 300 | 1000 | t ~ N^k, k from the last two |\n");
    printf("|---|--:|--:|--:|--:|--:|--:|\n");
    for (int k = 0; k < G__COUNT; k++) {
        if (k >= G_KEEP_Q && !have_q)
            continue; /* built without GMP */
        printf("| %s |", names[k]);
        if (data) { /* the name without its markdown */
            fputc('"', data);
            for (const char *c = names[k]; *c; c++)
                if (*c != '`')
                    fputc(*c, data);
            fputs("\"\n", data);
        }
        double last[2] = {0, 0};
        int lastn[2] = {1, 1};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int n = sizes[i];
            if (n > largest[k]) {
                printf(" - |");
                continue;
            }
            char src[64];
            growth_expr(k, n, src, sizeof src);
            dist_job j = {k >= G_KEEP_Q ? qctx : ctx, src};
            stats st = measure(run_dist, &j);
            printf(" ");
            put_ms(st);
            printf(" |");
            last[0] = last[1];
            lastn[0] = lastn[1];
            last[1] = st.med;
            lastn[1] = n;
            if (data && st.n)
                fprintf(data, "%d %g\n", n, st.med * 1e3);
        }
        printf(" %.2f |\n", log(last[1] / last[0]) / log((double)lastn[1] / lastn[0]));
        if (data)
            fprintf(data, "\n\n");
    }
    printf("\n");
    if (data)
        fclose(data);
    alea_ctx_free(ctx);
    alea_ctx_free(qctx);
}

/* ---- main ---------------------------------------------------------------------------- */

static int wanted(int argc, char **argv, int first, const char *name)
{
    if (first >= argc)
        return 1;
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], name))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static char path[4096];
    const char *growth = NULL;
    int quick = 0, i = 1;
    /* Default: the CLI in the parent of this program's directory. */
    const char *slash = strrchr(argv[0], '/');
    if (slash) {
        snprintf(path, sizeof path, "%.*s/../alea", (int)(slash - argv[0]), argv[0]);
        alea_path = path;
    }
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--alea") && i + 1 < argc)
            alea_path = argv[++i];
        else if (!strcmp(argv[i], "--growth") && i + 1 < argc)
            growth = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else {
            fprintf(stderr, "usage: alea_bench [--alea PATH] [--quick] [--growth FILE] "
                            "[exact|names|reroll|table|versus|process|roll|sample|startup|growth]...\n");
            return 2;
        }
    }
    if (quick) {
        budget_s = 0.02;
        min_reps = 1;
    }
    if (access(alea_path, X_OK) != 0 && (wanted(argc, argv, i, "process") ||
                                         wanted(argc, argv, i, "roll") ||
                                         wanted(argc, argv, i, "startup"))) {
        fprintf(stderr, "alea_bench: no alea binary at %s (use --alea)\n", alea_path);
        return 2;
    }
    printf("alea %s benchmarks\n\n", alea_version());
    if (wanted(argc, argv, i, "exact"))
        section_exact();
    if (wanted(argc, argv, i, "names"))
        section_names();
    if (wanted(argc, argv, i, "reroll"))
        section_reroll();
    if (wanted(argc, argv, i, "table"))
        section_table();
    if (wanted(argc, argv, i, "versus"))
        section_versus();
    if (wanted(argc, argv, i, "process"))
        section_process();
    if (wanted(argc, argv, i, "roll"))
        section_roll(quick);
    if (wanted(argc, argv, i, "sample"))
        section_sample();
    if (wanted(argc, argv, i, "startup"))
        section_startup();
    if (wanted(argc, argv, i, "growth"))
        section_growth(growth);
    return 0;
}
