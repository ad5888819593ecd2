/*
 * sweep.c -- tables (alea_table_new): an expression with free names, each
 * swept over a range or a list of values, and statistics of its
 * distribution in each cell ("d20 + m >= dc" for m in 0..10 and dc in
 * 10..20, the chance to hit). A row per value of the first name, a column
 * per value of the second.
 *
 * The names are the expression's parameters (alea_expr_compile_with): it
 * is compiled once and computed at each cell's values. Where the language
 * takes a fixed number and refuses a name (dd()'s modifier, tier()'s
 * steps, "+n DICE"), or a name reads as dice ("d"), each cell's value is
 * written into the text instead and the text compiled per cell. The cells
 * share one work budget, the WORK limit, and are at most the CELLS limit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "out.h"
#include "share.h"

/* Work units charged for each byte of a cell's text where the values are
 * written in, before it is compiled: compiling is linear in the text, and
 * the densest text measured ("d6+d6+...", a node every 3 bytes) compiled at
 * about 0.7 us a byte where a unit of work costs 1.2 to 2 ns. Unpaid, the
 * compilations went unseen by the WORK limit: "2d6 +n DICE + m + 0 + ..."
 * (3975 bytes) over 100 x 100 cells took 1.2 s of CPU before the cells'
 * distributions reached the default limit, 8 s with the limit raised. */
#define COMPILE_BYTE_COST 512

/* A name swept and its values. */
typedef struct sweep {
    char name[ALEA_TABLE_NAME_MAX + 1];
    int64_t *v;
    size_t n, cap;
} sweep;

/* What a statistic reads from a cell's distribution. */
typedef enum stat_kind { ST_MEAN, ST_SD, ST_MEDIAN, ST_GE, ST_LE, ST_EQ, ST_PCT, ST_FLAG } stat_kind;

typedef struct statistic {
    stat_kind kind;
    int truth;  /* a mean whose every cell is of 0 and 1: a chance */
    int64_t n;  /* p>=N, p<=N, p=N; pN: N */
    char *text; /* as written: the heading (owned) */
    size_t size;
} statistic;

struct alea_table {
    alea_ctx *ctx;
    char *src; /* the expression, NUL-terminated */
    size_t len;
    int exact;
    size_t nsw, nst, rows, cols;
    sweep sw[ALEA_TABLE_SWEEPS_MAX];
    statistic st[ALEA_TABLE_STATS_MAX];
    double *x;   /* [stat][row][col] */
    char **frac; /* the same, each an owned string or NULL */
};

/* A growable text in the context's memory. */
typedef struct text {
    char *p;
    size_t cap;
    size_t *map; /* map[i]: the source byte that output byte i came from */
} text;

static alea_status fail(alea_ctx *ctx, alea_table_part part, size_t index)
{
    ctx->table_part = (uint8_t)part;
    ctx->table_index = index;
    return ctx->status;
}

static int name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static int parse_i64(const char *s, const char *end, int64_t *out)
{
    char buf[32];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '-' || buf[0] == '+'))
        return 0;
    /* by hand: no errno, no locale */
    size_t i = buf[0] == '-' || buf[0] == '+';
    if (!buf[i])
        return 0;
    uint64_t v = 0, lim = buf[0] == '-' ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; buf[i]; i++) {
        if (buf[i] < '0' || buf[i] > '9' || v > (lim - (uint64_t)(buf[i] - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(buf[i] - '0');
    }
    *out = buf[0] == '-' ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

/* "m=0..10", "m=0,2,5", "n=-3..3,10", "m=0..20..5": the name and its values
 * (at most max of them). Errors span the part of arg they concern. */
static alea_status parse_sweep(alea_ctx *ctx, const char *arg, int64_t max, size_t k, sweep *s)
{
    const char *eq = strchr(arg, '=');
    size_t alen = strlen(arg);
    if (!eq || eq == arg) {
        alea__error(ctx, ALEA_ERR_SYNTAX, 0, alen, "'%s' is not NAME=A..B or NAME=A,B,C (a "
                    "name swept over a range or a list)", arg);
        return fail(ctx, ALEA_TABLE_SWEEP, k);
    }
    size_t nl = (size_t)(eq - arg);
    if (nl > ALEA_TABLE_NAME_MAX) {
        alea__error(ctx, ALEA_ERR_SYNTAX, 0, nl, "the name in '%.*s...' is longer than %d "
                    "characters", ALEA_TABLE_NAME_MAX + 1, arg, ALEA_TABLE_NAME_MAX);
        return fail(ctx, ALEA_TABLE_SWEEP, k);
    }
    for (const char *c = arg; c < eq; c++)
        if (!name_byte(*c) || (c == arg && *c >= '0' && *c <= '9')) {
            alea__error(ctx, ALEA_ERR_SYNTAX, 0, nl, "'%.*s' in '%s' is not a name (letters, "
                        "digits and '_', from a letter)", (int)nl, arg, arg);
            return fail(ctx, ALEA_TABLE_SWEEP, k);
        }
    memcpy(s->name, arg, nl);
    s->name[nl] = '\0';
    const char *p = eq + 1;
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        const char *dots = strstr(p, "..");
        size_t at = (size_t)(p - arg), to = (size_t)(end - arg);
        int64_t a, b, step = 1;
        if (dots && dots < end) {
            const char *dots2 = strstr(dots + 2, ".."); /* A..B..STEP */
            const char *bend = dots2 && dots2 < end ? dots2 : end;
            if (!parse_i64(p, dots, &a) || !parse_i64(dots + 2, bend, &b) ||
                (bend < end && (!parse_i64(bend + 2, end, &step) || step < 1))) {
                alea__error(ctx, ALEA_ERR_SYNTAX, at, to, "bad range '%.*s' in '%s' (write "
                            "A..B or A..B..STEP with whole numbers, the step positive, as in "
                            "m=0..10 or m=0..20..5)", (int)(end - p), p, arg);
                return fail(ctx, ALEA_TABLE_SWEEP, k);
            }
            if (b < a) {
                alea__error(ctx, ALEA_ERR_SYNTAX, at, to, "the range '%.*s' in '%s' ends "
                            "before it starts", (int)(end - p), p, arg);
                return fail(ctx, ALEA_TABLE_SWEEP, k);
            }
        } else {
            if (!parse_i64(p, end, &a)) {
                alea__error(ctx, ALEA_ERR_SYNTAX, at, to, "bad value '%.*s' in '%s' (a whole "
                            "number, or a range A..B)", (int)(end - p), p, arg);
                return fail(ctx, ALEA_TABLE_SWEEP, k);
            }
            b = a;
        }
        for (int64_t v = a;; v++) {
            if ((int64_t)s->n >= max) {
                alea__error(ctx, ALEA_ERR_LIMIT, at, to, "'%s' has more than %" PRId64
                            " values (cells limit is %" PRId64 ")", arg, max, max);
                return fail(ctx, ALEA_TABLE_SWEEP, k);
            }
            if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 16;
                int64_t *nv = alea__mem_realloc(ctx, s->v, s->cap * sizeof *nv, cap * sizeof *nv);
                if (!nv) {
                    alea__nomem(ctx);
                    return fail(ctx, ALEA_TABLE_EXPRESSION, 0);
                }
                s->v = nv, s->cap = cap;
            }
            s->v[s->n++] = v;
            if ((uint64_t)b - (uint64_t)v < (uint64_t)step) /* v <= b: no overflow */
                break;
            v += step - 1;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return ALEA_OK;
}

/* mean, sd, median, p>=N, p<=N, p=N, pN (a percentile), or a named
 * probability the expression reports ("critical failure"). */
static alea_status parse_stat(alea_ctx *ctx, const char *t, size_t k, statistic *s)
{
    const char *num = NULL;
    s->n = 0;
    if (!strcmp(t, "mean"))
        s->kind = ST_MEAN;
    else if (!strcmp(t, "sd"))
        s->kind = ST_SD;
    else if (!strcmp(t, "median"))
        s->kind = ST_MEDIAN;
    else if (!strncmp(t, "p>=", 3))
        s->kind = ST_GE, num = t + 3;
    else if (!strncmp(t, "p<=", 3))
        s->kind = ST_LE, num = t + 3;
    else if (!strncmp(t, "p=", 2))
        s->kind = ST_EQ, num = t + 2;
    else if (t[0] == 'p' && t[1] >= '0' && t[1] <= '9')
        s->kind = ST_PCT, num = t + 1;
    else
        s->kind = ST_FLAG;
    s->truth = s->kind == ST_MEAN; /* until a cell's outcomes pass 0 and 1 */
    size_t len = strlen(t);
    if (num && !parse_i64(num, num + strlen(num), &s->n)) {
        alea__error(ctx, ALEA_ERR_SYNTAX, (size_t)(num - t), len, "stat '%s': a whole number "
                    "after '%.*s'", t, (int)(num - t), t);
        return fail(ctx, ALEA_TABLE_STAT, k);
    }
    if (s->kind == ST_PCT && (s->n < 0 || s->n > 100)) {
        alea__error(ctx, ALEA_ERR_SYNTAX, 1, len, "stat '%s': a percentile from p0 to p100", t);
        return fail(ctx, ALEA_TABLE_STAT, k);
    }
    s->size = len + 1;
    if (!(s->text = alea__mem_alloc(ctx, s->size))) {
        alea__nomem(ctx);
        return fail(ctx, ALEA_TABLE_EXPRESSION, 0);
    }
    memcpy(s->text, t, s->size);
    return ALEA_OK;
}

/* Index of the first outcome >= v (count if none). */
static size_t first_at_least(const alea_dist *d, int64_t v)
{
    size_t lo = 0, hi = alea_dist_count(d);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (alea_dist_value(d, mid) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* An owned copy of n bytes of s, or NULL (out of memory recorded). */
static char *dup_mem(alea_ctx *ctx, const char *s, size_t n)
{
    char *d = alea__mem_alloc(ctx, n + 1);
    if (!d) {
        alea__nomem(ctx);
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static char *whole(alea_ctx *ctx, int64_t v)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRId64, v);
    return dup_mem(ctx, b, (size_t)n);
}

static char *fraction(alea_ctx *ctx, const alea_dist *d, alea_fraction what, size_t i)
{
    size_t len = alea_dist_fraction(d, what, i, NULL, 0);
    char *s = alea__mem_alloc(ctx, len + 1);
    if (!s) {
        alea__nomem(ctx);
        return NULL;
    }
    alea_dist_fraction(d, what, i, s, len + 1);
    return s;
}

/* The statistic of one cell into *x and *frac. Returns 0 when a named
 * probability is not reported, -1 out of memory, else 1. */
static int stat_of(alea_ctx *ctx, const alea_dist *d, statistic *s, int exact, double *x,
                   char **frac)
{
    size_t n = alea_dist_count(d), i;
    char *f = NULL;
    switch (s->kind) {
    case ST_MEAN:
        *x = alea_dist_mean(d);
        if (n == 0 || alea_dist_value(d, 0) < 0 || alea_dist_value(d, n - 1) > 1)
            s->truth = 0;
        if (exact && !(f = fraction(ctx, d, ALEA_FRACTION_MEAN, 0)))
            return -1;
        break;
    case ST_SD:
        *x = alea_dist_sd(d);
        break;
    case ST_MEDIAN: /* a value: whole, exactly (a double rounds past 2^53) */
        *x = (double)alea_dist_median(d);
        if (!(f = whole(ctx, alea_dist_median(d))))
            return -1;
        break;
    case ST_PCT:
        *x = (double)alea_dist_percentile(d, (double)s->n / 100);
        if (!(f = whole(ctx, alea_dist_percentile(d, (double)s->n / 100))))
            return -1;
        break;
    case ST_GE:
        *x = alea_dist_at_least(d, s->n);
        i = first_at_least(d, s->n);
        if (exact && !(f = i < n ? fraction(ctx, d, ALEA_FRACTION_AT_LEAST, i) : whole(ctx, 0)))
            return -1;
        break;
    case ST_LE:
        *x = alea_dist_at_most(d, s->n);
        i = first_at_least(d, s->n);
        if (i < n && alea_dist_value(d, i) == s->n)
            i++;
        if (exact && !(f = i > 0 ? fraction(ctx, d, ALEA_FRACTION_AT_MOST, i - 1) : whole(ctx, 0)))
            return -1;
        break;
    case ST_EQ:
        *x = alea_dist_p(d, s->n);
        i = first_at_least(d, s->n);
        if (exact && !(f = i < n && alea_dist_value(d, i) == s->n
                               ? fraction(ctx, d, ALEA_FRACTION_PROB, i)
                               : whole(ctx, 0)))
            return -1;
        break;
    case ST_FLAG:
        for (i = 0; i < alea_dist_flag_count(d); i++)
            if (!strcmp(alea_dist_flag_name(d, i), s->text)) {
                *x = alea_dist_flag_prob(d, i);
                return 1;
            }
        return 0;
    }
    *frac = f;
    return 1;
}

/* Makes room for n more bytes at at. */
static int text_reserve(alea_ctx *ctx, text *b, size_t need)
{
    if (need <= b->cap)
        return 1;
    size_t cap = need < 64 ? 64 : 2 * need;
    char *p = alea__mem_realloc(ctx, b->p, b->cap, cap);
    if (!p)
        return 0;
    b->p = p;
    size_t *m = alea__mem_realloc(ctx, b->map, b->cap * sizeof *m, cap * sizeof *m);
    if (!m) {
        b->p = alea__mem_realloc(ctx, p, cap, b->cap); /* shrinking: cannot fail */
        return 0;
    }
    b->map = m;
    b->cap = cap;
    return 1;
}

/* Writes each value into the text for its name: "+n" with n = -3 reads
 * "-3", "-n" reads "+3", elsewhere "(-3)". *seen gets a bit per name
 * written. Returns 0 out of memory. */
static int subst(alea_ctx *ctx, text *b, size_t *len, const char *src, size_t n,
                 const sweep *sw, size_t nsw, const int64_t *vals, unsigned *seen)
{
    size_t at = 0;
    char num[32];
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        if (i < n && name_byte(src[i]) && !(src[i] >= '0' && src[i] <= '9') &&
            (i == 0 || !name_byte(src[i - 1])))
            while (j < n && name_byte(src[j]))
                j++;
        size_t k = nsw;
        for (size_t q = 0; j > i && q < nsw; q++)
            if (strlen(sw[q].name) == j - i && !memcmp(sw[q].name, src + i, j - i))
                k = q;
        if (!text_reserve(ctx, b, at + (j > i ? j - i : 1) + 40))
            return 0;
        if (k == nsw) {
            if (i == n)
                break;
            size_t m = j > i ? j - i : 1;
            memcpy(b->p + at, src + i, m);
            for (size_t q = 0; q < m; q++)
                b->map[at + q] = i + q;
            at += m, i += m;
            continue;
        }
        *seen |= 1u << k;
        int64_t v = vals[k];
        size_t s = at;
        while (s > 0 && b->p[s - 1] == ' ')
            s--;
        if (v < 0 && s > 0 && (b->p[s - 1] == '+' || b->p[s - 1] == '-')) {
            b->p[s - 1] = b->p[s - 1] == '+' ? '-' : '+';
            snprintf(num, sizeof num, "%" PRIu64, (uint64_t)0 - (uint64_t)v);
        } else {
            snprintf(num, sizeof num, v < 0 ? "(%" PRId64 ")" : "%" PRId64, v);
        }
        size_t m = strlen(num);
        memcpy(b->p + at, num, m);
        for (size_t q = 0; q < m; q++)
            b->map[at + q] = i; /* a number written stands for its name */
        at += m;
        i = j;
    }
    b->p[at] = '\0';
    b->map[at] = n;
    *len = at;
    return 1;
}

/* "m=3, dc=12": a cell's values, for a message. */
static void cell_name(char *buf, size_t cap, const sweep *sw, size_t nsw, const int64_t *vals)
{
    if (nsw > 1)
        snprintf(buf, cap, "%.*s=%" PRId64 ", %.*s=%" PRId64, ALEA_TABLE_NAME_MAX, sw[0].name,
                 vals[0], ALEA_TABLE_NAME_MAX, sw[1].name, vals[1]);
    else
        snprintf(buf, cap, "%.*s=%" PRId64, ALEA_TABLE_NAME_MAX, sw[0].name, vals[0]);
}

/* The context's error again, its message after prefix ("at m=3: "), its
 * span mapped from the text written to the source (map NULL: the same). */
static alea_status restate(alea_ctx *ctx, const char *prefix, const size_t *map, size_t len)
{
    char msg[ALEA_ERROR_LINE_MAX];
    size_t start, end;
    alea_status s = alea_ctx_error_span(ctx, &start, &end);
    if (s == ALEA_ERR_NOMEM || s == ALEA_ERR_INTERRUPTED)
        return s; /* nothing to add; never allocates */
    alea_ctx_error_line(ctx, msg, sizeof msg); /* with its status's text, once */
    if (map) {
        int none = start == 0 && end == 0;
        start = map[start < len ? start : len];
        end = none ? 0 : end > 0 ? map[end - 1 < len ? end - 1 : len] + 1 : start;
        if (end < start)
            end = start;
    }
    return alea__error(ctx, s, start, end, "%s%s", prefix, msg);
}

static void free_cells(alea_table *t)
{
    size_t n = t->nst * t->rows * t->cols;
    for (size_t i = 0; t->frac && i < n; i++)
        if (t->frac[i])
            alea__mem_free(t->ctx, t->frac[i], strlen(t->frac[i]) + 1);
    alea__mem_free(t->ctx, t->frac, t->frac ? n * sizeof *t->frac : 0);
    alea__mem_free(t->ctx, t->x, t->x ? n * sizeof *t->x : 0);
    t->frac = NULL, t->x = NULL;
}

void alea_table_free(alea_table *t)
{
    if (!t)
        return;
    free_cells(t);
    for (size_t i = 0; i < ALEA_TABLE_SWEEPS_MAX; i++)
        alea__mem_free(t->ctx, t->sw[i].v, t->sw[i].cap * sizeof *t->sw[i].v);
    for (size_t i = 0; i < ALEA_TABLE_STATS_MAX; i++)
        alea__mem_free(t->ctx, t->st[i].text, t->st[i].size);
    alea__mem_free(t->ctx, t->src, t->src ? t->len + 1 : 0);
    alea__mem_free(t->ctx, t, sizeof *t);
}

/* The arguments: sweeps, statistics, the cells limit. */
static alea_status read_args(alea_table *t, const char *const *sweeps, size_t nsweeps,
                             const char *const *stats, size_t nstats)
{
    alea_ctx *ctx = t->ctx;
    int64_t max = ctx->limits[ALEA_LIMIT_CELLS];
    if (nsweeps == 0) {
        alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "an expression and at least one NAME=A..B "
                    "(as in 'd20 + m >= 15' with m=0..10)");
        return fail(ctx, ALEA_TABLE_SWEEP, 0);
    }
    if (nsweeps > ALEA_TABLE_SWEEPS_MAX) {
        alea__error(ctx, ALEA_ERR_ARGUMENT, 0, strlen(sweeps[ALEA_TABLE_SWEEPS_MAX]),
                    "at most two names are swept (a row per value of the first, a column "
                    "per value of the second)");
        return fail(ctx, ALEA_TABLE_SWEEP, ALEA_TABLE_SWEEPS_MAX);
    }
    if (nstats > ALEA_TABLE_STATS_MAX) {
        alea__error(ctx, ALEA_ERR_ARGUMENT, 0, strlen(stats[ALEA_TABLE_STATS_MAX]),
                    "at most %d statistics", ALEA_TABLE_STATS_MAX);
        return fail(ctx, ALEA_TABLE_STAT, ALEA_TABLE_STATS_MAX);
    }
    t->nsw = nsweeps;
    t->nst = nstats ? nstats : 1;
    for (size_t i = 0; i < nsweeps; i++) {
        if (!sweeps[i]) {
            alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "sweep %zu is NULL", i);
            return fail(ctx, ALEA_TABLE_SWEEP, i);
        }
        alea_status s = parse_sweep(ctx, sweeps[i], max, i, &t->sw[i]);
        if (s != ALEA_OK)
            return s;
    }
    if (nsweeps == 2 && !strcmp(t->sw[0].name, t->sw[1].name)) {
        alea__error(ctx, ALEA_ERR_ARGUMENT, 0, strlen(t->sw[1].name), "'%s' is swept twice",
                    t->sw[0].name);
        return fail(ctx, ALEA_TABLE_SWEEP, 1);
    }
    for (size_t i = 0; i < t->nst; i++) {
        if (nstats && !stats[i]) {
            alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "stat %zu is NULL", i);
            return fail(ctx, ALEA_TABLE_STAT, i);
        }
        alea_status s = parse_stat(ctx, nstats ? stats[i] : "mean", i, &t->st[i]);
        if (s != ALEA_OK)
            return s;
    }
    t->rows = t->sw[0].n;
    t->cols = nsweeps > 1 ? t->sw[1].n : 1;
    if ((double)t->rows * (double)t->cols > (double)max) {
        const char *last = sweeps[nsweeps - 1];
        alea__error(ctx, ALEA_ERR_LIMIT, 0, strlen(last), "%zu x %zu = %.0f cells, more than "
                    "the cells limit (%" PRId64 ")", t->rows, t->cols,
                    (double)t->rows * (double)t->cols, max);
        return fail(ctx, ALEA_TABLE_SWEEP, nsweeps - 1);
    }
    return ALEA_OK;
}

/* The statistic named k is none the cell's distribution reports. */
static alea_status unknown_stat(alea_ctx *ctx, const alea_dist *d, const statistic *s, size_t k)
{
    char flags[160] = "";
    size_t at = 0, nf = alea_dist_flag_count(d);
    for (size_t f = 0; f < nf && at < sizeof flags; f++) {
        int w = snprintf(flags + at, sizeof flags - at, "%s'%s'", f ? ", " : "",
                         alea_dist_flag_name(d, f));
        at += w > 0 ? (size_t)w : 0;
    }
    alea__error(ctx, ALEA_ERR_ARGUMENT, 0, strlen(s->text), "stat '%s' is none of mean, sd, "
                "median, p>=N, p<=N, p=N, pN, nor a named probability the expression reports "
                "(%s)", s->text, nf ? flags : "it reports none");
    return fail(ctx, ALEA_TABLE_STAT, k);
}

/* Compiles the expression with the names as parameters, or decides on
 * writing the values into the text (*by_text). */
static alea_status compile(alea_table *t, text *b, alea_expr **e, int *by_text)
{
    alea_ctx *ctx = t->ctx;
    const char *names[ALEA_TABLE_SWEEPS_MAX] = {t->sw[0].name, t->sw[1].name};
    alea_status st = alea_expr_compile_with(ctx, t->src, t->len, names, t->nsw, e);
    if (st == ALEA_OK) {
        for (size_t i = 0; i < t->nsw; i++)
            if (!alea_expr_param_used(*e, i)) {
                alea__error(ctx, ALEA_ERR_ARGUMENT, 0, strlen(t->sw[i].name),
                            "'%s' is swept but the expression never uses it", t->sw[i].name);
                return fail(ctx, ALEA_TABLE_SWEEP, i);
            }
        return ALEA_OK;
    }
    if (st == ALEA_ERR_NOMEM || st == ALEA_ERR_INTERRUPTED)
        return st;
    int64_t first[2] = {t->sw[0].v[0], t->nsw > 1 ? t->sw[1].v[0] : 0};
    size_t len, at = 0, end = 0;
    unsigned seen = 0;
    alea_expr *x = NULL;
    alea_ctx_error_span(ctx, &at, &end);
    /* refused where a fixed number is taken, or a name that cannot be a
     * parameter (no position): the text's own error is the one */
    int by_value = st == ALEA_ERR_INVALID || (at == 0 && end == 0);
    if (!subst(ctx, b, &len, t->src, t->len, t->sw, t->nsw, first, &seen))
        return alea__nomem(ctx);
    st = alea_expr_compile(ctx, b->p, len, &x);
    alea_expr_free(x);
    if (st == ALEA_OK) {
        *by_text = 1;
        for (size_t i = 0; i < t->nsw; i++)
            if (!(seen >> i & 1)) {
                alea__error(ctx, ALEA_ERR_ARGUMENT, 0, strlen(t->sw[i].name),
                            "'%s' is swept but the expression never uses it", t->sw[i].name);
                return fail(ctx, ALEA_TABLE_SWEEP, i);
            }
        return ALEA_OK;
    }
    if (by_value) {
        char where[2 * (ALEA_TABLE_NAME_MAX + 24) + 8], prefix[sizeof where + 160];
        cell_name(where, sizeof where, t->sw, t->nsw, first);
        snprintf(prefix, sizeof prefix, "at %s, with the values written in: ", where);
        return restate(ctx, prefix, b->map, len);
    }
    /* the expression's own error, again, over its text */
    st = alea_expr_compile_with(ctx, t->src, t->len, names, t->nsw, &x);
    alea_expr_free(x);
    return st;
}

/* Each cell, within one work budget. With the expression compiled once,
 * what does not read the names is computed once for every cell (share.h:
 * the across keeping, given back under the memory limit as an
 * evaluation's own); written into the text, each cell is a tree of its own
 * and shares nothing with the others. The context's work is then the
 * table's. */
static alea_status compute(alea_table *t, text *b, const alea_expr *e, int by_text)
{
    alea_ctx *ctx = t->ctx;
    int64_t used = 0;
    size_t nc = t->cols, per = t->rows * t->cols;
    alea_status s = ALEA_OK;
    alea__share across;
    void (*outer_give_back)(alea_ctx *) = ctx->give_back;
    alea__share_across_init(ctx, &across);
    if (!by_text) {
        ctx->across = &across;
        ctx->give_back = alea__share_give_back;
    }
    for (size_t r = 0; s == ALEA_OK && r < t->rows; r++)
        for (size_t c = 0; s == ALEA_OK && c < nc; c++) {
            int64_t vals[2] = {t->sw[0].v[r], t->nsw > 1 ? t->sw[1].v[c] : 0};
            alea_dist *d = NULL;
            alea_expr *x = NULL;
            size_t len = 0;
            unsigned seen = 0;
            ctx->work_base = used;
            if (by_text) {
                if (!subst(ctx, b, &len, t->src, t->len, t->sw, t->nsw, vals, &seen)) {
                    s = alea__nomem(ctx);
                    break;
                }
                /* the compilation, paid before it starts (its span: the text) */
                ctx->work_used = used;
                s = alea__charge(ctx, COMPILE_BYTE_COST * (int64_t)len, 0, len);
                ctx->work_base = used = ctx->work_used;
                if (s == ALEA_OK)
                    s = alea_expr_compile(ctx, b->p, len, &x);
                if (s == ALEA_OK)
                    s = alea_expr_dist(ctx, x, &d);
            } else {
                s = alea_expr_dist_at(ctx, e, vals, t->nsw, &d);
            }
            used = alea_ctx_work(ctx);
            ctx->work_base = 0;
            if (s != ALEA_OK) {
                char where[2 * (ALEA_TABLE_NAME_MAX + 24) + 8], prefix[sizeof where + 160];
                cell_name(where, sizeof where, t->sw, t->nsw, vals);
                snprintf(prefix, sizeof prefix, "at %s: ", where);
                restate(ctx, prefix, by_text ? b->map : NULL, len);
            }
            for (size_t k = 0; s == ALEA_OK && k < t->nst; k++) {
                size_t i = k * per + r * nc + c;
                int got = stat_of(ctx, d, &t->st[k], t->exact, &t->x[i], &t->frac[i]);
                if (got < 0)
                    s = ALEA_ERR_NOMEM;
                else if (got == 0)
                    s = unknown_stat(ctx, d, &t->st[k], k);
            }
            alea_dist_free(d);
            alea_expr_free(x);
        }
    ctx->work_base = 0;
    ctx->across = NULL;
    ctx->give_back = outer_give_back;
    alea__share_free(ctx, &across);
    ctx->work_used = used;
    return s;
}

alea_status alea_table_new(alea_ctx *ctx, const char *src, size_t len,
                           const char *const *sweeps, size_t nsweeps,
                           const char *const *stats, size_t nstats, alea_table **out)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__clear_error(ctx);
    ctx->table_part = ALEA_TABLE_EXPRESSION;
    ctx->table_index = 0;
    if (!src || !out || (nsweeps && !sweeps) || (nstats && !stats))
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_table_new: NULL expression, sweeps, stats or out");
    alea_table *t = alea__mem_alloc(ctx, sizeof *t);
    if (!t)
        return alea__nomem(ctx);
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->exact = alea_ctx_exact(ctx);
    alea_status s = read_args(t, sweeps, nsweeps, stats, nstats);
    size_t n = s == ALEA_OK ? alea__mul_size(t->nst, t->rows * t->cols) : 0;
    if (s == ALEA_OK) {
        t->src = dup_mem(ctx, src, len);
        t->len = len;
        t->x = alea__mem_alloc(ctx, alea__mul_size(n, sizeof *t->x));
        t->frac = alea__mem_alloc(ctx, alea__mul_size(n, sizeof *t->frac));
        if (t->frac)
            memset(t->frac, 0, n * sizeof *t->frac);
        if (!t->src || !t->x || !t->frac)
            s = alea__nomem(ctx);
    }
    text b = {NULL, 0, NULL};
    alea_expr *e = NULL;
    int by_text = 0;
    if (s == ALEA_OK)
        s = compile(t, &b, &e, &by_text);
    if (s == ALEA_OK)
        s = compute(t, &b, e, by_text);
    alea_expr_free(e);
    alea__mem_free(ctx, b.p, b.cap);
    alea__mem_free(ctx, b.map, b.cap * sizeof *b.map);
    if (s != ALEA_OK) {
        alea_table_free(t);
        return s;
    }
    alea__clear_error(ctx);
    *out = t;
    return ALEA_OK;
}

alea_table_part alea_table_error_part(const alea_ctx *ctx, size_t *index)
{
    if (index)
        *index = ctx ? ctx->table_index : 0;
    return ctx ? (alea_table_part)ctx->table_part : ALEA_TABLE_EXPRESSION;
}

/* ---- accessors ------------------------------------------------------------ */

size_t alea_table_rows(const alea_table *t)
{
    return t ? t->rows : 0;
}

size_t alea_table_cols(const alea_table *t)
{
    return t ? t->cols : 0;
}

size_t alea_table_sweep_count(const alea_table *t)
{
    return t ? t->nsw : 0;
}

size_t alea_table_stat_count(const alea_table *t)
{
    return t ? t->nst : 0;
}

const char *alea_table_name(const alea_table *t, size_t axis)
{
    return t && axis < t->nsw ? t->sw[axis].name : NULL;
}

size_t alea_table_value_count(const alea_table *t, size_t axis)
{
    return t && axis < t->nsw ? t->sw[axis].n : 0;
}

int64_t alea_table_value(const alea_table *t, size_t axis, size_t i)
{
    return t && axis < t->nsw && i < t->sw[axis].n ? t->sw[axis].v[i] : 0;
}

const char *alea_table_stat(const alea_table *t, size_t k)
{
    return t && k < t->nst ? t->st[k].text : NULL;
}

int alea_table_stat_is_prob(const alea_table *t, size_t k)
{
    if (!t || k >= t->nst)
        return 0;
    stat_kind kind = t->st[k].kind;
    return kind == ST_GE || kind == ST_LE || kind == ST_EQ || kind == ST_FLAG || t->st[k].truth;
}

int alea_table_stat_is_outcome(const alea_table *t, size_t k)
{
    return t && k < t->nst && (t->st[k].kind == ST_MEDIAN || t->st[k].kind == ST_PCT);
}

static int in_range(const alea_table *t, size_t k, size_t row, size_t col)
{
    return t && k < t->nst && row < t->rows && col < t->cols;
}

double alea_table_cell(const alea_table *t, size_t k, size_t row, size_t col)
{
    return in_range(t, k, row, col) ? t->x[(k * t->rows + row) * t->cols + col] : 0;
}

const char *alea_table_cell_text(const alea_table *t, size_t k, size_t row, size_t col)
{
    return in_range(t, k, row, col) ? t->frac[(k * t->rows + row) * t->cols + col]
                                       : NULL;
}

/* ---- formats ---------------------------------------------------------------- */

/* A cell in CSV: its exact text where it has one, else the number. */
static void csv_cell(const alea_table *t, size_t s, size_t r, size_t c, alea__out *o)
{
    const char *f = alea_table_cell_text(t, s, r, c);
    alea__out_char(o, ',');
    if (f)
        alea__out_str(o, f);
    else
        alea__out_double(o, alea_table_cell(t, s, r, c));
}

static void format_csv(const alea_table *t, alea__out *o)
{
    if (t->nsw == 1) {
        alea__out_str(o, t->sw[0].name);
        for (size_t s = 0; s < t->nst; s++) {
            alea__out_char(o, ',');
            alea__out_str(o, t->st[s].text);
        }
        alea__out_char(o, '\n');
        for (size_t r = 0; r < t->rows && o->len <= o->limit; r++) {
            alea__out_i64(o, t->sw[0].v[r]);
            for (size_t s = 0; s < t->nst; s++)
                csv_cell(t, s, r, 0, o);
            alea__out_char(o, '\n');
        }
        return;
    }
    alea__out_str(o, "stat,");
    alea__out_str(o, t->sw[0].name);
    for (size_t c = 0; c < t->cols; c++) {
        alea__out_char(o, ',');
        alea__out_str(o, t->sw[1].name);
        alea__out_char(o, '=');
        alea__out_i64(o, t->sw[1].v[c]);
    }
    alea__out_char(o, '\n');
    for (size_t s = 0; s < t->nst; s++)
        for (size_t r = 0; r < t->rows && o->len <= o->limit; r++) {
            alea__out_str(o, t->st[s].text);
            alea__out_char(o, ',');
            alea__out_i64(o, t->sw[0].v[r]);
            for (size_t c = 0; c < t->cols; c++)
                csv_cell(t, s, r, c, o);
            alea__out_char(o, '\n');
        }
}

static void format_json(const alea_table *t, alea__out *o)
{
    alea__out_str(o, "{\"expression\": ");
    alea__out_json_str(o, t->src, t->len);
    alea__out_str(o, ", \"names\": [");
    for (size_t i = 0; i < t->nsw; i++) {
        alea__out_str(o, i ? ", " : "");
        alea__out_json_str(o, t->sw[i].name, strlen(t->sw[i].name));
    }
    alea__out_str(o, "], \"values\": [");
    for (size_t i = 0; i < t->nsw; i++) {
        alea__out_str(o, i ? ", [" : "[");
        for (size_t j = 0; j < t->sw[i].n; j++) {
            alea__out_str(o, j ? ", " : "");
            alea__out_i64(o, t->sw[i].v[j]);
        }
        alea__out_char(o, ']');
    }
    alea__out_str(o, "], \"stats\": [");
    for (size_t s = 0; s < t->nst; s++) {
        alea__out_str(o, s ? ", {\"stat\": " : "{\"stat\": ");
        alea__out_json_str(o, t->st[s].text, strlen(t->st[s].text));
        alea__out_str(o, ", \"cells\": [");
        for (size_t r = 0; r < t->rows && o->len <= o->limit; r++) {
            alea__out_str(o, r ? ", " : "");
            if (t->nsw > 1)
                alea__out_char(o, '[');
            for (size_t c = 0; c < t->cols; c++) {
                const char *f = alea_table_cell_text(t, s, r, c);
                alea__out_str(o, c ? ", " : "");
                if (f && alea_table_stat_is_outcome(t, s))
                    alea__out_str(o, f);
                else if (f)
                    alea__out_json_str(o, f, strlen(f));
                else
                    alea__out_double(o, alea_table_cell(t, s, r, c));
            }
            if (t->nsw > 1)
                alea__out_char(o, ']');
        }
        alea__out_str(o, "]}");
    }
    alea__out_str(o, "]}");
}

size_t alea_table_format(const alea_table *t, alea_format format, char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (!t || !alea__out_init_format(&o, buf, cap, t->ctx, format))
        return alea__out_finish(&o);
    if (format == ALEA_FORMAT_CSV)
        format_csv(t, &o);
    else
        format_json(t, &o);
    return alea__out_format_end(&o, t->ctx, format, "table", t->len);
}

/* ---- the picture ------------------------------------------------------------ */

/* Frees what alea_table_svg allocated (NULL: nothing). */
static void svg_parts_free(alea_ctx *ctx, char *title, size_t title_size, void *block,
                           size_t block_size)
{
    if (title)
        alea__mem_free(ctx, title, title_size);
    if (block)
        alea__mem_free(ctx, block, block_size);
}

size_t alea_table_svg(const alea_table *t, size_t stat, char *buf, size_t cap)
{
    if (cap > 0)
        buf[0] = '\0';
    if (!t)
        return 0;
    alea_ctx *ctx = t->ctx;
    int two = t->nsw > 1;
    if (two && stat >= t->nst) {
        alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "no statistic %zu: the table has %zu", stat,
                    t->nst);
        return 0;
    }
    /* As `alea table --svg` draws it: with two names the heat map of one
     * statistic, its cells in place ([row][col] of t->x), titled "STAT of
     * EXPR", a column per value of the second name; with one name a line
     * per statistic (the cells turned to [row][stat]), titled by the
     * expression. */
    size_t cols = two ? t->cols : t->nst, srclen = strlen(t->src);
    const char *labels[ALEA_TABLE_STATS_MAX];
    const char **lab = labels;
    const double *cells = t->x + (two ? stat * t->rows * t->cols : 0);
    char *title = NULL, *block = NULL;
    size_t title_size = 0, block_size = 0;
    int prob = 1;
    if (two) {
        /* the column labels: a pointer and the digits of each value */
        const char *stext = t->st[stat].text;
        title_size = strlen(stext) + 4 + srclen + 1;
        block_size = cols * (sizeof(char *) + 24);
        title = alea__mem_alloc(ctx, title_size);
        block = cols <= SIZE_MAX / (sizeof(char *) + 24) ? alea__mem_alloc(ctx, block_size) : NULL;
        if (!title || !block) {
            svg_parts_free(ctx, title, title_size, block, block_size);
            alea__nomem(ctx);
            return 0;
        }
        snprintf(title, title_size, "%s of %s", stext, t->src);
        lab = (const char **)(void *)block;
        char *digits = block + cols * sizeof(char *);
        for (size_t c = 0; c < cols; c++) {
            snprintf(digits + 24 * c, 24, "%" PRId64, t->sw[1].v[c]);
            lab[c] = digits + 24 * c;
        }
        prob = alea_table_stat_is_prob(t, stat);
    } else {
        block_size = t->rows * cols * sizeof(double);
        block = t->rows <= SIZE_MAX / sizeof(double) / cols ? alea__mem_alloc(ctx, block_size) : NULL;
        if (!block) {
            alea__nomem(ctx);
            return 0;
        }
        double *x = (double *)(void *)block;
        for (size_t r = 0; r < t->rows; r++)
            for (size_t c = 0; c < cols; c++)
                x[r * cols + c] = t->x[c * t->rows + r];
        cells = x;
        for (size_t c = 0; c < cols; c++) {
            labels[c] = t->st[c].text;
            prob = prob && alea_table_stat_is_prob(t, c);
        }
    }
    size_t len = alea_svg_grid(ctx, two ? title : t->src, t->sw[0].name, t->sw[0].v, t->rows,
                               two ? t->sw[1].name : NULL, lab, cols, cells, prob, buf, cap);
    svg_parts_free(ctx, title, title_size, block, block_size);
    if (len == 0 && ctx->status == ALEA_ERR_LIMIT) {
        /* over the expression, as the table's other formats */
        ctx->err_start = 0;
        ctx->err_end = t->len;
    }
    return len;
}
