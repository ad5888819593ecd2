/*
 * sweep.c -- alea table: an expression with free names, each swept over a
 * range or a list of values, and a statistic of its distribution in each
 * cell ("d20 + m >= dc" for m in 0..10 and dc in 10..20, the chance to
 * hit). A row per value of the first name, a column per value of the
 * second; with one name, a column per statistic.
 *
 * The names are the expression's parameters (alea_expr_compile_with): it
 * is compiled once and computed at each cell's values. Where the language
 * takes a fixed number and refuses a name (dd()'s modifier, tier()'s
 * steps, "+n DICE"), or a name reads as dice ("d"), each cell's value is
 * written into the text instead and the text compiled per cell. The cells
 * share one work budget, the WORK limit, and are at most --cells.
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A name swept and its values. */
typedef struct sweep {
    char name[COLUMN_NAME_MAX + 1];
    int64_t *v;
    size_t n;
    const char *spec; /* "m=0..10", as written */
} sweep;

/* What a statistic reads from a cell's distribution. */
typedef enum stat_kind { ST_MEAN, ST_SD, ST_MEDIAN, ST_GE, ST_LE, ST_EQ, ST_PCT, ST_FLAG } stat_kind;

typedef struct stat {
    stat_kind kind;
    int truth;        /* a mean whose every cell is of 0 and 1: a chance */
    int64_t n;        /* p>=N, p<=N, p=N; pN: N */
    const char *text; /* as written: the heading */
} stat;

/* A cell: the number, and its fraction in --exact where there is one. */
typedef struct cell {
    double x;
    char *frac; /* malloc'd, or NULL */
} cell;

static int is_prob(const stat *s)
{
    return s->kind == ST_GE || s->kind == ST_LE || s->kind == ST_EQ || s->kind == ST_FLAG ||
           s->truth;
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
    char *e;
    errno = 0;
    long long v = strtoll(buf, &e, 10);
    if (errno || *e || !((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '-' || buf[0] == '+'))
        return 0;
    *out = (int64_t)v;
    return 1;
}

/* "m=0..10", "m=0,2,5", "n=-3..3,10": the name and its values (at most
 * max of them). Returns EXIT_OK or a usage error. */
static int parse_sweep(const char *arg, int64_t max, sweep *s)
{
    const char *eq = strchr(arg, '=');
    s->spec = arg;
    if (!eq || eq == arg)
        return usage_error(CMD_TABLE, 1, "table: '%s' is not NAME=A..B or NAME=A,B,C (a "
                                         "name swept over a range or a list)", arg);
    if (eq - arg > COLUMN_NAME_MAX)
        return usage_error(CMD_TABLE, 1, "table: the name in '%.*s...' is longer than "
                                         "%d characters", COLUMN_NAME_MAX + 1, arg,
                           COLUMN_NAME_MAX);
    for (const char *c = arg; c < eq; c++)
        if (!name_byte(*c) || (c == arg && *c >= '0' && *c <= '9'))
            return usage_error(CMD_TABLE, 1, "table: '%.*s' in '%s' is not a name (letters, "
                                             "digits and '_', from a letter)",
                               (int)(eq - arg), arg, arg);
    memcpy(s->name, arg, (size_t)(eq - arg));
    s->name[eq - arg] = '\0';
    s->n = 0;
    const char *p = eq + 1;
    size_t cap = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        const char *dots = strstr(p, "..");
        int64_t a, b, step = 1;
        if (dots && dots < end) {
            const char *dots2 = strstr(dots + 2, ".."); /* A..B..STEP */
            const char *bend = dots2 && dots2 < end ? dots2 : end;
            if (!parse_i64(p, dots, &a) || !parse_i64(dots + 2, bend, &b) ||
                (bend < end && (!parse_i64(bend + 2, end, &step) || step < 1)))
                return usage_error(CMD_TABLE, 1, "table: bad range '%.*s' in '%s' (write "
                                                 "A..B or A..B..STEP with whole numbers, the "
                                                 "step positive, as in m=0..10 or m=0..20..5)",
                                   (int)(end - p), p, arg);
            if (b < a)
                return usage_error(CMD_TABLE, 1, "table: the range '%.*s' in '%s' ends "
                                                 "before it starts",
                                   (int)(end - p), p, arg);
        } else {
            if (!parse_i64(p, end, &a))
                return usage_error(CMD_TABLE, 1, "table: bad value '%.*s' in '%s' (a whole "
                                                 "number, or a range A..B)",
                                   (int)(end - p), p, arg);
            b = a;
        }
        for (int64_t v = a;; v++) {
            if ((int64_t)s->n >= max)
                return usage_error(CMD_TABLE, 1, "table: '%s' has more than %" PRId64
                                                 " values (cells limit is %" PRId64 ")",
                                   arg, max, max);
            if (s->n == cap) {
                cap = cap ? 2 * cap : 16;
                int64_t *nv = realloc(s->v, cap * sizeof *nv);
                if (!nv)
                    return out_of_memory();
                s->v = nv;
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
    return EXIT_OK;
}

/* --stat: mean, sd, median, p>=N, p<=N, p=N, pN (a percentile), or a
 * named probability the expression reports ("critical failure"). */
static int parse_stat(const char *t, stat *s)
{
    s->text = t;
    s->n = 0;
    const char *num = NULL;
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
    if (num && !parse_i64(num, num + strlen(num), &s->n))
        return usage_error(CMD_TABLE, 1, "table: --stat '%s': a whole number after '%.*s'", t,
                           (int)(num - t), t);
    if (s->kind == ST_PCT && (s->n < 0 || s->n > 100))
        return usage_error(CMD_TABLE, 1, "table: --stat '%s': a percentile from p0 to p100", t);
    return EXIT_OK;
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

static char *whole(int64_t v)
{
    char *b = malloc(24);
    if (b)
        snprintf(b, 24, "%" PRId64, v);
    return b;
}

/* The statistic of one cell; 0 when a named probability is not reported
 * (the caller says which are). */
static int stat_of(const alea_dist *d, stat *s, int exact, cell *c)
{
    size_t n = alea_dist_count(d), i;
    c->frac = NULL;
    switch (s->kind) {
    case ST_MEAN:
        c->x = alea_dist_mean(d);
        if (n == 0 || alea_dist_value(d, 0) < 0 || alea_dist_value(d, n - 1) > 1)
            s->truth = 0;
        if (exact)
            c->frac = fraction(d, ALEA_FRACTION_MEAN, 0);
        return 1;
    case ST_SD:
        c->x = alea_dist_sd(d);
        return 1;
    case ST_MEDIAN: /* a value: whole, exactly (a double rounds past 2^53) */
        c->x = (double)alea_dist_median(d);
        c->frac = whole(alea_dist_median(d));
        return 1;
    case ST_PCT:
        c->x = (double)alea_dist_percentile(d, (double)s->n / 100);
        c->frac = whole(alea_dist_percentile(d, (double)s->n / 100));
        return 1;
    case ST_GE:
        c->x = alea_dist_at_least(d, s->n);
        i = first_at_least(d, s->n);
        if (exact)
            c->frac = i < n ? fraction(d, ALEA_FRACTION_AT_LEAST, i) : whole(0);
        return 1;
    case ST_LE:
        c->x = alea_dist_at_most(d, s->n);
        i = first_at_least(d, s->n);
        if (i < n && alea_dist_value(d, i) == s->n)
            i++;
        if (exact)
            c->frac = i > 0 ? fraction(d, ALEA_FRACTION_AT_MOST, i - 1) : whole(0);
        return 1;
    case ST_EQ:
        c->x = alea_dist_p(d, s->n);
        i = first_at_least(d, s->n);
        if (exact)
            c->frac = i < n && alea_dist_value(d, i) == s->n ? fraction(d, ALEA_FRACTION_PROB, i)
                                                             : whole(0);
        return 1;
    case ST_FLAG:
        for (i = 0; i < alea_dist_flag_count(d); i++)
            if (!strcmp(alea_dist_flag_name(d, i), s->text)) {
                c->x = alea_dist_flag_prob(d, i);
                return 1;
            }
        return 0;
    }
    return 0;
}

/* Writes v into the text for name: "+n" with n = -3 reads "-3", "-n"
 * reads "+3", elsewhere "(-3)". */
static int subst(buffer *b, size_t *len, const char *src, const sweep *sw, size_t nsw,
                 const int64_t *vals, unsigned *seen)
{
    size_t at = 0, n = strlen(src);
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
        if (!buffer_reserve(b, at + (j > i ? j - i : 1) + 40))
            return 0;
        if (k == nsw) {
            if (i == n)
                break;
            size_t m = j > i ? j - i : 1;
            memcpy(b->p + at, src + i, m);
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
        memcpy(b->p + at, num, strlen(num));
        at += strlen(num);
        i = j;
    }
    b->p[at] = '\0';
    *len = at;
    return 1;
}

/* "m=3, dc=12": a cell's values, for a message (a static buffer). */
static const char *cell_name(const sweep *sw, size_t nsw, const int64_t *vals)
{
    static char buf[2 * (COLUMN_NAME_MAX + 24) + 8];
    if (nsw > 1)
        snprintf(buf, sizeof buf, "%s=%" PRId64 ", %s=%" PRId64, sw[0].name, vals[0],
                 sw[1].name, vals[1]);
    else
        snprintf(buf, sizeof buf, "%s=%" PRId64, sw[0].name, vals[0]);
    return buf;
}

/* ---- output ---------------------------------------------------------------- */

/* A statistic that is a value of the expression (median, pN): printed as
 * the whole number it is. */
static int is_value(const stat *s)
{
    return s->kind == ST_MEDIAN || s->kind == ST_PCT;
}

static void put_cell(const cell *c, const stat *s, int exact, int text, char *buf, size_t cap)
{
    if ((exact || is_value(s)) && c->frac)
        snprintf(buf, cap, "%s", c->frac);
    else if (text && is_prob(s))
        snprintf(buf, cap, "%.2f%%", 100 * c->x);
    else if (text && (s->kind == ST_MEAN || s->kind == ST_SD))
        snprintf(buf, cap, "%.2f", c->x);
    else
        alea_format_double(c->x, buf, cap);
}

typedef enum { OUT_TEXT, OUT_MD, OUT_CSV, OUT_JSON } out_kind;

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

/* Prints a grid: rows x cols strings, with a heading row and column. */
static void grid(out_kind k, const char *corner, char **head, char **rowh, char **cells,
                 size_t rows, size_t cols)
{
    int w0 = (int)strlen(corner), w = 0; /* the headings' column; the widest cell */
    for (size_t r = 0; r < rows; r++)
        if ((int)strlen(rowh[r]) > w0)
            w0 = (int)strlen(rowh[r]);
    for (size_t i = 0; i < rows * cols; i++)
        if ((int)strlen(cells[i]) > w)
            w = (int)strlen(cells[i]);
    if (k == OUT_MD) {
        printf("| %s |", corner);
        for (size_t c = 0; c < cols; c++)
            printf(" %s |", head[c]);
        printf("\n|---|");
        for (size_t c = 0; c < cols; c++)
            printf("---:|");
        putchar('\n');
        for (size_t r = 0; r < rows; r++) {
            printf("| %s |", rowh[r]);
            for (size_t c = 0; c < cols; c++)
                printf(" %s |", cells[r * cols + c]);
            putchar('\n');
        }
        return;
    }
    /* each column as wide as its heading or the widest cell */
    printf("%-*s", w0, corner);
    for (size_t c = 0; c < cols; c++)
        printf("  %*s", (int)strlen(head[c]) > w ? (int)strlen(head[c]) : w, head[c]);
    putchar('\n');
    for (size_t r = 0; r < rows; r++) {
        printf("%*s", w0, rowh[r]);
        for (size_t c = 0; c < cols; c++)
            printf("  %*s", (int)strlen(head[c]) > w ? (int)strlen(head[c]) : w,
                   cells[r * cols + c]);
        putchar('\n');
    }
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

static char *dup_i64(int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    return dup_str(b);
}

/* Prints the computed cells: cells[s][r * nc + c] for stat s. */
static int print_all(const options *o, const char *src, const sweep *sw, size_t nsw,
                     const stat *st, size_t nst, cell **cells)
{
    out_kind k = o->json ? OUT_JSON : o->csv ? OUT_CSV : o->markdown ? OUT_MD : OUT_TEXT;
    size_t nr = sw[0].n, nc = nsw > 1 ? sw[1].n : 1;
    char buf[64];
    int text = k == OUT_TEXT || k == OUT_MD;
    if (k == OUT_JSON) {
        printf("{\"expression\": ");
        json_str(src);
        printf(", \"names\": [");
        for (size_t i = 0; i < nsw; i++) {
            printf(i ? ", " : "");
            json_str(sw[i].name);
        }
        printf("], \"values\": [");
        for (size_t i = 0; i < nsw; i++) {
            printf(i ? ", [" : "[");
            for (size_t j = 0; j < sw[i].n; j++)
                printf(j ? ", %" PRId64 : "%" PRId64, sw[i].v[j]);
            putchar(']');
        }
        printf("], \"stats\": [");
        for (size_t s = 0; s < nst; s++) {
            printf(s ? ", {\"stat\": " : "{\"stat\": ");
            json_str(st[s].text);
            printf(", \"cells\": [");
            for (size_t r = 0; r < nr; r++) {
                printf(r ? ", " : "");
                if (nsw > 1)
                    putchar('[');
                for (size_t c = 0; c < nc; c++) {
                    const cell *x = &cells[s][r * nc + c];
                    printf(c ? ", " : "");
                    if (is_value(&st[s]) && x->frac)
                        fputs(x->frac, stdout);
                    else if (o->exact && x->frac)
                        json_str(x->frac);
                    else {
                        alea_format_double(x->x, buf, sizeof buf);
                        fputs(buf, stdout);
                    }
                }
                if (nsw > 1)
                    putchar(']');
            }
            printf("]}");
        }
        printf("]}\n");
        return EXIT_OK;
    }
    if (k == OUT_CSV) {
        if (nsw == 1) {
            printf("%s", sw[0].name);
            for (size_t s = 0; s < nst; s++)
                printf(",%s", st[s].text);
            putchar('\n');
            for (size_t r = 0; r < nr; r++) {
                printf("%" PRId64, sw[0].v[r]);
                for (size_t s = 0; s < nst; s++) {
                    put_cell(&cells[s][r], &st[s], o->exact, 0, buf, sizeof buf);
                    printf(",%s", buf);
                }
                putchar('\n');
            }
            return EXIT_OK;
        }
        printf("stat,%s", sw[0].name);
        for (size_t c = 0; c < nc; c++)
            printf(",%s=%" PRId64, sw[1].name, sw[1].v[c]);
        putchar('\n');
        for (size_t s = 0; s < nst; s++)
            for (size_t r = 0; r < nr; r++) {
                printf("%s,%" PRId64, st[s].text, sw[0].v[r]);
                for (size_t c = 0; c < nc; c++) {
                    put_cell(&cells[s][r * nc + c], &st[s], o->exact, 0, buf, sizeof buf);
                    printf(",%s", buf);
                }
                putchar('\n');
            }
        return EXIT_OK;
    }
    /* text and Markdown: one grid, or a grid per statistic */
    size_t cols = nsw == 1 ? nst : nc, grids = nsw == 1 ? 1 : nst;
    char **head = calloc(cols, sizeof *head), **rowh = calloc(nr, sizeof *rowh);
    char **g = calloc(nr * cols, sizeof *g);
    int rc = head && rowh && g ? EXIT_OK : out_of_memory();
    for (size_t r = 0; rc == EXIT_OK && r < nr; r++)
        if (!(rowh[r] = dup_i64(sw[0].v[r])))
            rc = out_of_memory();
    for (size_t gi = 0; rc == EXIT_OK && gi < grids; gi++) {
        char corner[2 * COLUMN_NAME_MAX + 8];
        for (size_t c = 0; rc == EXIT_OK && c < cols; c++) {
            free(head[c]);
            head[c] = nsw == 1 ? dup_str(st[c].text) : dup_i64(sw[1].v[c]);
            if (!head[c])
                rc = out_of_memory();
        }
        for (size_t r = 0; rc == EXIT_OK && r < nr; r++)
            for (size_t c = 0; c < cols; c++) {
                size_t s = nsw == 1 ? c : gi, at = nsw == 1 ? r : r * nc + c;
                put_cell(&cells[s][at], &st[s], o->exact, text, buf, sizeof buf);
                free(g[r * cols + c]);
                if (!(g[r * cols + c] = dup_str(buf)))
                    rc = out_of_memory();
            }
        if (rc != EXIT_OK)
            break;
        if (nsw == 1)
            snprintf(corner, sizeof corner, "%s", sw[0].name);
        else
            snprintf(corner, sizeof corner, "%s \\ %s", sw[0].name, sw[1].name);
        if (nsw > 1)
            printf(k == OUT_MD ? "%s**%s** of `%s`\n\n" : "%s%s of %s\n", gi ? "\n" : "",
                   st[gi].text, src);
        grid(k, corner, head, rowh, g, nr, cols);
    }
    for (size_t c = 0; head && c < cols; c++)
        free(head[c]);
    for (size_t r = 0; rowh && r < nr; r++)
        free(rowh[r]);
    for (size_t i = 0; g && i < nr * cols; i++)
        free(g[i]);
    free(head);
    free(rowh);
    free(g);
    return rc;
}

/* --svg: the cells as numbers for the library's chart, a heat map of the
 * one stat with two names, a line per stat with one. */
static int sweep_svg(alea_ctx *ctx, const options *o, const char *src, const sweep *sw,
                     size_t nsw, const stat *st, size_t nst, cell **cells)
{
    size_t nr = sw[0].n, nc = nsw > 1 ? sw[1].n : nst;
    double *x = malloc(nr * nc * sizeof *x);
    char **labels = calloc(nc, sizeof *labels);
    char title[512];
    int rc = x && labels ? EXIT_OK : out_of_memory(), prob = 1;
    for (size_t c = 0; rc == EXIT_OK && c < nc; c++)
        if (!(labels[c] = nsw > 1 ? dup_i64(sw[1].v[c]) : dup_str(st[c].text)))
            rc = out_of_memory();
    for (size_t s = 0; s < (nsw > 1 ? 1 : nst); s++)
        prob = prob && is_prob(&st[s]);
    for (size_t i = 0; rc == EXIT_OK && i < nr * nc; i++)
        x[i] = nsw > 1 ? cells[0][i].x : cells[i % nc][i / nc].x;
    snprintf(title, sizeof title, nsw > 1 ? "%s of %s" : "%.0s%s", st[0].text, src);
    if (rc == EXIT_OK)
        rc = svg_grid(ctx, o, title, sw[0].name, sw[0].v, nr, nsw > 1 ? sw[1].name : NULL,
                      (const char *const *)labels, nc, x, prob);
    for (size_t c = 0; labels && c < nc; c++)
        free(labels[c]);
    free(labels);
    free(x);
    return rc;
}

/* ---- the command ------------------------------------------------------------ */

int cmd_table(alea_ctx *ctx, const options *o)
{
    if (o->nexprs < 2)
        return usage_error(CMD_TABLE, 1, "table: an expression and at least one NAME=A..B "
                                         "(as in alea table 'd20 + m >= 15' m=0..10)");
    if (o->nexprs > 3)
        return usage_error(CMD_TABLE, 1, "table: at most two names are swept (a row per value "
                                         "of the first, a column per value of the second)");
    const char *src = o->exprs[0];
    size_t nsw = o->nexprs - 1, nst = o->nstats ? (size_t)o->nstats : 1;
    int64_t max_cells = o->cells ? o->cells : TABLE_CELLS;
    sweep sw[2];
    stat st[STATS_MAX];
    memset(sw, 0, sizeof sw);
    int rc = EXIT_OK;
    for (size_t i = 0; rc == EXIT_OK && i < nsw; i++)
        rc = parse_sweep(o->exprs[i + 1], max_cells, &sw[i]);
    if (rc == EXIT_OK && nsw == 2 && !strcmp(sw[0].name, sw[1].name))
        rc = usage_error(CMD_TABLE, 1, "table: '%s' is swept twice", sw[0].name);
    for (size_t s = 0; rc == EXIT_OK && s < nst; s++)
        rc = o->nstats ? parse_stat(o->stats[s], &st[s]) : parse_stat("mean", &st[s]);
    size_t nr = sw[0].n, nc = nsw > 1 ? sw[1].n : 1;
    if (rc == EXIT_OK && (double)nr * (double)nc > (double)max_cells)
        rc = usage_error(CMD_TABLE, 1, "table: %zu x %zu = %.0f cells, more than the cells "
                                       "limit (%" PRId64 "): sweep fewer values, or raise "
                                       "--cells",
                         nr, nc, (double)nr * (double)nc, max_cells);
    if (rc != EXIT_OK) {
        free(sw[0].v);
        free(sw[1].v);
        return rc;
    }
    const char *names[2] = {sw[0].name, sw[1].name};
    alea_expr *e = NULL;
    buffer b = {NULL, 0};
    cell *cells[STATS_MAX] = {NULL};
    for (size_t s = 0; s < nst; s++)
        if (!(cells[s] = calloc(nr * nc, sizeof *cells[s])))
            rc = out_of_memory();
    /* the parameters, or else each cell's text (see the top of the file) */
    int by_text = 0;
    alea_status compiled = rc == EXIT_OK ? alea_expr_compile_with(ctx, src, strlen(src), names,
                                                                 nsw, &e)
                                         : ALEA_OK;
    if (compiled != ALEA_OK) {
        int64_t first[2] = {sw[0].v[0], nsw > 1 ? sw[1].v[0] : 0};
        size_t len, at = 0, end = 0;
        unsigned seen = 0;
        alea_expr *t = NULL;
        alea_ctx_error_span(ctx, &at, &end);
        /* refused where a fixed number is taken, or a name that cannot be
         * a parameter (no position): the text's own error is the one */
        int by_value = compiled == ALEA_ERR_INVALID || (at == 0 && end == 0);
        if (!subst(&b, &len, src, sw, nsw, first, &seen)) {
            rc = out_of_memory();
        } else if (alea_expr_compile(ctx, b.p, len, &t) == ALEA_OK) {
            by_text = 1;
            for (size_t i = 0; rc == EXIT_OK && i < nsw; i++)
                if (!(seen >> i & 1))
                    rc = usage_error(CMD_TABLE, 1, "table: '%s' is swept but the expression "
                                                   "never uses it", sw[i].name);
        } else if (by_value) {
            fprintf(stderr, "alea: table: at %s, the expression with the values written in:\n",
                    cell_name(sw, nsw, first));
            rc = report(ctx, b.p);
        } else { /* the expression's own error, again, over its text */
            alea_expr_compile_with(ctx, src, strlen(src), names, nsw, &t);
            rc = report(ctx, src);
        }
        alea_expr_free(t);
    }
    for (size_t i = 0; rc == EXIT_OK && !by_text && i < nsw; i++)
        if (!alea_expr_param_used(e, i))
            rc = usage_error(CMD_TABLE, 1, "table: '%s' is swept but the expression never "
                                           "uses it", sw[i].name);
    /* the cells, within one work budget */
    int64_t limit = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1), used = 0;
    for (size_t r = 0; rc == EXIT_OK && r < nr; r++)
        for (size_t c = 0; rc == EXIT_OK && c < nc; c++) {
            int64_t vals[2] = {sw[0].v[r], nsw > 1 ? sw[1].v[c] : 0};
            alea_dist *d = NULL;
            alea_expr *t = NULL;
            size_t len = 0;
            unsigned seen = 0;
            alea_ctx_limit(ctx, ALEA_LIMIT_WORK, limit - used);
            alea_status s;
            if (by_text) {
                if (!subst(&b, &len, src, sw, nsw, vals, &seen)) {
                    rc = out_of_memory();
                    break;
                }
                s = alea_expr_compile(ctx, b.p, len, &t);
                if (s == ALEA_OK)
                    s = alea_expr_dist(ctx, t, &d);
            } else {
                s = alea_expr_dist_at(ctx, e, vals, nsw, &d);
            }
            used += alea_ctx_work(ctx);
            if (s != ALEA_OK) {
                char line[ALEA_ERROR_LINE_MAX];
                alea_ctx_error_line(ctx, line, sizeof line);
                fprintf(stderr, "alea: table: at %s: %s\n", cell_name(sw, nsw, vals), line);
                if (s == ALEA_ERR_LIMIT && strstr(line, "work"))
                    fprintf(stderr, "alea: hint: the cells share one work budget (work limit "
                                    "is %" PRId64 "): sweep fewer values, or raise "
                                    "--max-work\n", limit);
                rc = EXIT_FAIL;
            }
            for (size_t k = 0; rc == EXIT_OK && k < nst; k++)
                if (!stat_of(d, &st[k], o->exact, &cells[k][r * nc + c])) {
                    fprintf(stderr, "alea: table: --stat '%s' is none of mean, sd, median, "
                                    "p>=N, p<=N, p=N, pN, nor a named probability the "
                                    "expression reports (",
                            st[k].text);
                    size_t nf = alea_dist_flag_count(d);
                    for (size_t f = 0; f < nf; f++)
                        fprintf(stderr, "%s'%s'", f ? ", " : "", alea_dist_flag_name(d, f));
                    fprintf(stderr, "%s)\n", nf ? "" : "it reports none");
                    rc = EXIT_USAGE;
                }
            alea_dist_free(d);
            alea_expr_free(t);
        }
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, limit);
    if (rc == EXIT_OK && o->svg)
        rc = sweep_svg(ctx, o, src, sw, nsw, st, nst, cells);
    if (rc == EXIT_OK && !svg_to_stdout(o))
        rc = print_all(o, src, sw, nsw, st, nst, cells);
    for (size_t s = 0; s < nst; s++) {
        for (size_t i = 0; cells[s] && i < nr * nc; i++)
            free(cells[s][i].frac);
        free(cells[s]);
    }
    alea_expr_free(e);
    free(b.p);
    free(sw[0].v);
    free(sw[1].v);
    return rc;
}
