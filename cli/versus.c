/*
 * versus.c -- compare's distances between mechanics: each column against
 * the first (or every pair, --pairs) through alea_dist_versus, printed as
 * a block under the table, or as the "versus" array of the JSON (which
 * alea serve's /compare writes too).
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The pairs (a, b), a < b: (0, k) for each k, or every pair. */
static size_t pair_count(size_t ncols, int all)
{
    if (ncols < 2)
        return 0;
    return all ? ncols * (ncols - 1) / 2 : ncols - 1;
}

void versus_free(versus_row *rows, size_t n)
{
    for (size_t k = 0; rows && k < n; k++)
        free(rows[k].fractions);
    free(rows);
}

/* The fractions of a pair into r->fractions (both exact). */
static alea_status pair_fractions(alea_ctx *ctx, const alea_dist *a, const alea_dist *b,
                                  versus_row *r)
{
    size_t len = 0;
    alea_status st = alea_dist_versus_fractions(ctx, a, b, NULL, 0, &len);
    if (st != ALEA_OK)
        return st;
    if (!(r->fractions = malloc(len + 1)))
        return ALEA_ERR_NOMEM;
    return alea_dist_versus_fractions(ctx, a, b, r->fractions, len + 1, &len);
}

alea_status versus_compute(alea_ctx *ctx, const alea_dist *const *d, size_t ncols, int all,
                           int64_t work, versus_row **out, size_t *nout)
{
    size_t n = pair_count(ncols, all), k = 0;
    *out = NULL;
    *nout = 0;
    if (n == 0)
        return ALEA_OK;
    versus_row *rows = calloc(n, sizeof *rows);
    if (!rows)
        return ALEA_ERR_NOMEM;
    /* every pair within what the columns left of the work limit */
    int64_t limit = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1);
    alea_status st = ALEA_OK;
    for (size_t a = 0; a < ncols && st == ALEA_OK; a++)
        for (size_t b = a + 1; b < ncols && st == ALEA_OK && (all || a == 0); b++) {
            versus_row *r = &rows[k++];
            r->a = a;
            r->b = b;
            alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work > 0 ? work : 0);
            st = alea_dist_versus(ctx, d[a], d[b], &r->v);
            work -= alea_ctx_work(ctx);
            if (st == ALEA_OK && alea_dist_is_exact(d[a]) && alea_dist_is_exact(d[b])) {
                alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work > 0 ? work : 0);
                st = pair_fractions(ctx, d[a], d[b], r);
                work -= alea_ctx_work(ctx);
            }
        }
    alea_ctx_limit(ctx, ALEA_LIMIT_WORK, limit);
    if (st != ALEA_OK) {
        versus_free(rows, n);
        return st;
    }
    *out = rows;
    *nout = n;
    return ALEA_OK;
}

/* The i-th of the six fractions of r (separated by spaces): its start and
 * length. */
static const char *fraction_at(const versus_row *r, int i, size_t *len)
{
    const char *s = r->fractions;
    for (; i > 0; i--)
        s = strchr(s, ' ') + 1;
    const char *e = strchr(s, ' ');
    *len = e ? (size_t)(e - s) : strlen(s);
    return s;
}

static const char *const keys[6] = {"p_greater", "p_equal", "p_less", "tv", "ks", "emd"};

static double stat_of(const alea_versus *v, int i)
{
    const double x[6] = {v->p_greater, v->p_equal, v->p_less, v->tv, v->ks, v->emd};
    return x[i];
}

size_t versus_json(const versus_row *rows, size_t n, char *buf, size_t cap)
{
    size_t at = 0;
#define PUT(...)                                                                             \
    do {                                                                                     \
        int w_ = snprintf(at < cap ? buf + at : NULL, at < cap ? cap - at : 0, __VA_ARGS__); \
        at += w_ > 0 ? (size_t)w_ : 0;                                                       \
    } while (0)
    PUT("\"versus\": [");
    for (size_t k = 0; k < n; k++) {
        const versus_row *r = &rows[k];
        PUT("%s{\"a\": %zu, \"b\": %zu", k ? ", " : "", r->a, r->b);
        for (int i = 0; i < 6; i++) {
            if (r->fractions) {
                size_t len;
                const char *s = fraction_at(r, i, &len);
                PUT(", \"%s\": \"%.*s\"", keys[i], (int)len, s);
            } else {
                char num[32];
                alea_format_double(stat_of(&r->v, i), num, sizeof num);
                PUT(", \"%s\": %s", keys[i], num);
            }
        }
        PUT("}");
    }
    PUT("]");
#undef PUT
    return at;
}

/* "A vs B" of a row, the columns' labels as the table's headers. */
static int pair_label(const versus_row *r, const column *cols, char *buf, size_t cap)
{
    return snprintf(buf, cap, "%s vs %s", cols[r->a].head, cols[r->b].head);
}

/* The characters (not bytes) of a UTF-8 text. */
static int text_width(const char *s)
{
    size_t len = strlen(s), units = 0;
    for (size_t i = 0; i < len; i += unit_len((const unsigned char *)s, len, i))
        units++;
    return (int)units;
}

/* The numbers of a row, as the header below spaces them. */
static void put_numbers(const alea_versus *v, int emdw)
{
    printf("  %6.2f%%  %6.2f%%  %6.2f%%  %5.3f  %5.3f  %*.2f\n", 100 * v->p_greater,
           100 * v->p_equal, 100 * v->p_less, v->tv, v->ks, emdw, v->emd);
}

void versus_text(const versus_row *rows, size_t n, const column *cols)
{
    if (n == 0)
        return;
    /* A line per pair while its label and numbers fit in 80 columns;
     * else each label on a line of its own and its numbers under it. */
    char label[2 * sizeof cols[0].head + 8];
    int lw = 6, emdw = 3; /* "A vs B", "EMD" */
    for (size_t k = 0; k < n; k++) {
        pair_label(&rows[k], cols, label, sizeof label);
        int w = text_width(label);
        lw = w > lw ? w : lw;
        char num[64];
        w = snprintf(num, sizeof num, "%.2f", rows[k].v.emd);
        emdw = w > emdw ? w : emdw;
    }
    int numbers = 2 + 7 + 2 + 7 + 2 + 7 + 2 + 5 + 2 + 5 + 2 + emdw;
    int one_line = lw + numbers <= 80;
    int pad = one_line ? lw : 0;
    printf("\n%-*s  %7s  %7s  %7s  %5s  %5s  %*s\n", pad, one_line ? "A vs B" : "",
           "A > B", "A = B", "A < B", "TV", "KS", emdw, "EMD");
    for (size_t k = 0; k < n; k++) {
        const versus_row *r = &rows[k];
        pair_label(r, cols, label, sizeof label);
        if (one_line) {
            fputs(label, stdout);
            for (int w = text_width(label); w < lw; w++)
                putchar(' ');
        } else {
            printf("%s\n", label);
        }
        put_numbers(&r->v, emdw);
        if (r->fractions) {
            size_t len;
            printf("%*sexact", pad, "");
            for (int i = 0; i < 6; i++) {
                static const char *const names[6] = {"A > B", "A = B", "A < B", "TV", "KS",
                                                      "EMD"};
                const char *s = fraction_at(r, i, &len);
                printf("  %s %.*s", names[i], (int)len, s);
            }
            putchar('\n');
        }
    }
}
