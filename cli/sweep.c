/*
 * sweep.c -- alea table: an expression with free names, each swept over a
 * range or a list of values, and a statistic of its distribution in each
 * cell ("d20 + m >= dc" for m in 0..10 and dc in 10..20, the chance to
 * hit). The library computes the table (alea_table_new: the sweeps, the
 * statistics, the cells limit and the shared work budget); this file reads
 * the command's arguments and prints the table: as text or Markdown, a row
 * per value of the first name and a column per value of the second (with
 * one name, a column per statistic); --csv and --json are the library's
 * alea_table_format.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A cell as text: its exact text where it has one, a percentage for a
 * probability, two decimals for a mean or sd, else the number. */
static void put_cell(const alea_table *t, size_t s, size_t r, size_t c, char *buf, size_t cap)
{
    const char *f = alea_table_cell_text(t, s, r, c);
    double x = alea_table_cell(t, s, r, c);
    const char *name = alea_table_stat(t, s);
    if (f)
        snprintf(buf, cap, "%s", f);
    else if (alea_table_stat_is_prob(t, s))
        snprintf(buf, cap, "%.2f%%", 100 * x);
    else if (!strcmp(name, "mean") || !strcmp(name, "sd"))
        snprintf(buf, cap, "%.2f", x);
    else
        alea_format_double(x, buf, cap);
}

typedef enum { OUT_TEXT, OUT_MD } out_kind;

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

/* Text and Markdown: one grid, or a grid per statistic. */
static int print_grids(out_kind k, const char *src, const alea_table *t)
{
    size_t nsw = alea_table_sweep_count(t), nst = alea_table_stat_count(t);
    size_t nr = alea_table_rows(t), nc = alea_table_cols(t);
    size_t cols = nsw == 1 ? nst : nc, grids = nsw == 1 ? 1 : nst;
    char buf[64];
    char **head = calloc(cols, sizeof *head), **rowh = calloc(nr, sizeof *rowh);
    char **g = calloc(nr * cols, sizeof *g);
    int rc = head && rowh && g ? EXIT_OK : out_of_memory();
    for (size_t r = 0; rc == EXIT_OK && r < nr; r++)
        if (!(rowh[r] = dup_i64(alea_table_value(t, 0, r))))
            rc = out_of_memory();
    for (size_t gi = 0; rc == EXIT_OK && gi < grids; gi++) {
        char corner[2 * ALEA_TABLE_NAME_MAX + 8];
        for (size_t c = 0; rc == EXIT_OK && c < cols; c++) {
            free(head[c]);
            head[c] = nsw == 1 ? dup_str(alea_table_stat(t, c)) : dup_i64(alea_table_value(t, 1, c));
            if (!head[c])
                rc = out_of_memory();
        }
        for (size_t r = 0; rc == EXIT_OK && r < nr; r++)
            for (size_t c = 0; c < cols; c++) {
                put_cell(t, nsw == 1 ? c : gi, r, nsw == 1 ? 0 : c, buf, sizeof buf);
                free(g[r * cols + c]);
                if (!(g[r * cols + c] = dup_str(buf)))
                    rc = out_of_memory();
            }
        if (rc != EXIT_OK)
            break;
        if (nsw == 1)
            snprintf(corner, sizeof corner, "%s", alea_table_name(t, 0));
        else
            snprintf(corner, sizeof corner, "%s \\ %s", alea_table_name(t, 0),
                     alea_table_name(t, 1));
        if (nsw > 1)
            printf(k == OUT_MD ? "%s**%s** of `%s`\n\n" : "%s%s of %s\n", gi ? "\n" : "",
                   alea_table_stat(t, gi), src);
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

/* --csv and --json: the library's text. */
static size_t format_table(const void *obj, alea_format f, char *buf, size_t cap)
{
    return alea_table_format(obj, f, buf, cap);
}

/* alea_table_new's error: a sweep's or a statistic's is a usage error (the
 * command's words); the expression's, with its caret. */
static int table_error(alea_ctx *ctx, const char *src, alea_status s)
{
    size_t k = 0;
    alea_table_part part = alea_table_error_part(ctx, &k);
    char line[ALEA_ERROR_LINE_MAX];
    if (s == ALEA_ERR_NOMEM)
        return out_of_memory();
    if (part == ALEA_TABLE_STAT)
        return usage_error(CMD_TABLE, 1, "table: --%s", alea_ctx_error(ctx));
    if (part == ALEA_TABLE_SWEEP)
        return usage_error(CMD_TABLE, 1, "table: %s%s", alea_ctx_error(ctx),
                           s == ALEA_ERR_LIMIT && strstr(alea_ctx_error(ctx), " cells, ")
                               ? ": sweep fewer values, or raise --cells" : "");
    if (s == ALEA_ERR_INTERRUPTED)
        return report(ctx, src);
    alea_ctx_error_line(ctx, line, sizeof line);
    /* a cell's error names the cell ("at m=3: ..."); the expression's is as
     * any command's */
    fprintf(stderr, "alea: %s%s\n", strncmp(line, "at ", 3) ? "" : "table: ", line);
    size_t start = 0, end = 0;
    alea_ctx_error_span(ctx, &start, &end);
    if (end > start || start > 0 || s == ALEA_ERR_SYNTAX)
        put_excerpt(src, strlen(src), start, end);
    if (s == ALEA_ERR_LIMIT && strstr(line, "work limit"))
        fprintf(stderr, "alea: hint: the cells share one work budget (work limit is %" PRId64
                        "): sweep fewer values, or raise --max-work\n",
                alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1));
    return EXIT_FAIL;
}

/* ---- the command ------------------------------------------------------------ */

int cmd_table(alea_ctx *ctx, const options *o)
{
    if (o->nexprs < 2)
        return usage_error(CMD_TABLE, 1, "table: an expression and at least one NAME=A..B "
                                         "(as in alea table 'd20 + m >= 15' m=0..10)");
    const char *src = o->exprs[0];
    if (o->cells)
        alea_ctx_limit(ctx, ALEA_LIMIT_CELLS, o->cells);
    alea_table *t = NULL;
    alea_status s = alea_table_new(ctx, src, strlen(src), (const char *const *)o->exprs + 1,
                                   (size_t)o->nexprs - 1, (const char *const *)o->stats,
                                   (size_t)o->nstats, &t);
    if (s != ALEA_OK)
        return table_error(ctx, src, s);
    int rc = o->svg ? svg_table(ctx, o, t, src) : EXIT_OK;
    if (rc == EXIT_OK && !svg_to_stdout(o))
        rc = o->json  ? print_formatted(ctx, format_table, t, ALEA_FORMAT_JSON)
             : o->csv ? print_formatted(ctx, format_table, t, ALEA_FORMAT_CSV)
                      : print_grids(o->markdown ? OUT_MD : OUT_TEXT, src, t);
    alea_table_free(t);
    return rc;
}
