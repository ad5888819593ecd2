/*
 * table.c -- distributions as text: dist's table (a row per value, its
 * odds, a bar) and CSV, and compare's columns side by side, or as CSV.
 */
#include "cli.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Width of the longest '#' bar in the dist table. */
#define BAR_WIDTH 40
/* Fractions longer than this leave no room for the bar on a line. */
#define FRACTION_BAR_MAX 24

/* A probability in the fewest digits that read back exactly (as the
 * library's JSON does): 0.1, not 0.10000000000000001. */
static void put_exact(double v)
{
    char tmp[32];
    alea_format_double(v, tmp, sizeof tmp);
    fputs(tmp, stdout);
}

/* Percent with two decimals, never "-0.00". */
static double pct(double p)
{
    double v = p * 100.0;
    return fabs(v) < 0.005 ? 0.0 : v;
}

/*
 * A percent cell of width w for `what` of outcome i (its double p): two
 * decimals, or a positive chance below 0.005% in two significant digits
 * ("3.1e-05"), never a bare 0.00 for what can happen; below the double
 * range from the library's scientific value (300d20 rolling all 1s:
 * "4.9e-389").
 */
static void put_pct(const alea_dist *d, alea_fraction what, size_t i, double p, int w)
{
    double v = p * 100.0, m;
    if (v >= 0.005 || v < 0) {
        printf("%*.2f", w, v);
        return;
    }
    int64_t e;
    if (p >= 1e-290 || alea_dist_incomplete(d)) { /* the double has the digits there are */
        e = (int64_t)floor(log10(p > 0 ? p : 1));
        m = p > 0 ? p / pow(10, (double)e) : 0;
        if (m >= 10) {
            m /= 10;
            e++;
        } else if (m > 0 && m < 1) {
            m *= 10;
            e--;
        }
    } else { /* below the double range: the library's digits, in constant time */
        e = alea_dist_sci(d, what, i, &m);
    }
    if (m == 0) {
        printf("%*.2f", w, 0.0);
        return;
    }
    e += 2; /* percent */
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.1f", m);
    if (tmp[0] == '1' && tmp[1] == '0') { /* 9.96 rounded up */
        snprintf(tmp, sizeof tmp, "1.0");
        e++;
    }
    char cell[80];
    snprintf(cell, sizeof cell, "%se%c%02lld", tmp, e < 0 ? '-' : '+',
             (long long)(e < 0 ? -e : e));
    printf("%*s", w, cell);
}

static double round2(double v)
{
    return fabs(v) < 0.005 ? 0.0 : v;
}

static int int_width(int64_t v)
{
    char tmp[24];
    return snprintf(tmp, sizeof tmp, "%" PRId64, v);
}

/* ---- dist ---------------------------------------------------------------- */

/* Cumulative sums of a distribution: most[i] = P(X <= v_i), least[i] =
 * P(X >= v_i), each summed from its small end. Returns 0 if out of memory. */
int cumulate(const alea_dist *d, double **least, double **most)
{
    size_t n = alea_dist_count(d);
    *least = malloc((n ? n : 1) * sizeof **least);
    *most = malloc((n ? n : 1) * sizeof **most);
    if (!*least || !*most) {
        free(*least);
        free(*most);
        *least = *most = NULL;
        return 0;
    }
    alea_dist_cumulate(d, *least, *most);
    return 1;
}

static void put_bar(double v, double vmax)
{
    long len = vmax > 0 ? lround(v / vmax * BAR_WIDTH) : 0;
    if (len == 0 && pct(v) > 0) /* visible in the numbers: visible in the bar */
        len = 1;
    if (len <= 0)
        return;
    static const char hashes[] = "  ########################################";
    _Static_assert(sizeof hashes - 3 >= BAR_WIDTH, "a bar fits in hashes");
    fwrite(hashes, 1, 2 + (size_t)(len < BAR_WIDTH ? len : BAR_WIDTH), stdout);
}

/* The exact value of `what` (of outcome i) as a new string, or NULL. */
char *fraction(const alea_dist *d, alea_fraction what, size_t i)
{
    size_t len = alea_dist_fraction(d, what, i, NULL, 0);
    char *s = len ? malloc(len + 1) : NULL;
    if (s)
        alea_dist_fraction(d, what, i, s, len + 1);
    return s;
}

/* min (hi: max) as text: "or less" ("or more") after an end the
 * expression can pass, where it is only the outcomes' (alea_dist_open). */
static int end_text(char *buf, size_t cap, const alea_dist *d, int hi)
{
    unsigned open = alea_dist_open(d) & (hi ? ALEA_OPEN_MAX : ALEA_OPEN_MIN);
    return snprintf(buf, cap, "%" PRId64 "%s", hi ? alea_dist_max(d) : alea_dist_min(d),
                    !open ? "" : hi ? " or more" : " or less");
}

static void put_summary(const alea_dist *d)
{
    char lo[48], hi[48];
    end_text(lo, sizeof lo, d, 0);
    end_text(hi, sizeof hi, d, 1);
    printf("mean %.2f   sd %.2f   min %s   max %s   median %" PRId64 "\n",
           round2(alea_dist_mean(d)), round2(alea_dist_sd(d)), lo, hi, alea_dist_median(d));
    if (alea_dist_is_exact(d)) {
        char *mean = fraction(d, ALEA_FRACTION_MEAN, 0);
        char *var = fraction(d, ALEA_FRACTION_VARIANCE, 0);
        if (mean && var)
            printf("exact mean %s   variance %s\n", mean, var);
        free(mean);
        free(var);
    }
    for (size_t i = 0; i < alea_dist_flag_count(d); i++)
        printf("%s %.2f%%\n", alea_dist_flag_name(d, i), pct(alea_dist_flag_prob(d, i)));
    double cut = alea_dist_truncated(d);
    char *exact_cut = alea_dist_is_exact(d) ? fraction(d, ALEA_FRACTION_TRUNCATED, 0) : NULL;
    if (exact_cut && strcmp(exact_cut, "0") != 0)
        printf("truncated %s (probability cut off by the explosion bound)\n", exact_cut);
    else if (cut > 0)
        printf("truncated %.2g (probability cut off by the explosion bound)\n",
               cut);
    free(exact_cut);
    if (alea_dist_rolls(d) > 1)
        printf("each of the %" PRId64 " rolls has this distribution\n", alea_dist_rolls(d));
    if (alea_dist_incomplete(d))
        printf("note: %s\n", alea_dist_incomplete(d));
}

/* Width of the label column (0 when the distribution names no value). */
static int label_width(const alea_dist *d)
{
    int w = 0;
    for (size_t i = 0; i < alea_dist_count(d); i++) {
        const char *l = alea_dist_label(d, alea_dist_value(d, i));
        if (l && (int)strlen(l) > w)
            w = (int)strlen(l);
    }
    return w;
}

/* ---- the negligible tails ------------------------------------------------ */

/* Rows [*lo, *hi) of the n rows whose chances p(i) are shown: without
 * the runs below TAIL_SHOWN at either end, unless that is every row. */
static void shown_rows(size_t n, double (*p)(const void *, size_t), const void *arg,
                       size_t *lo, size_t *hi)
{
    size_t a = 0, b = n;
    while (a < n && p(arg, a) < TAIL_SHOWN)
        a++;
    if (a == n) { /* nothing reaches it: show them all */
        *lo = 0;
        *hi = n;
        return;
    }
    while (b > a && p(arg, b - 1) < TAIL_SHOWN)
        b--;
    *lo = a;
    *hi = b;
}

/* "... 612 rows below 0.005% hidden (values 3 to 614, total 0.0031%)":
 * rows at one end (`column`: of a comparison, whose mass is the most one
 * column hides); `last` for the last such line, which names --all. */
static void put_hidden(size_t rows, int64_t from, int64_t to, double mass, int of_column,
                       int last)
{
    if (rows == 0)
        return;
    printf("... %zu row%s below 0.005%% hidden (value%s %" PRId64, rows, rows == 1 ? "" : "s",
           rows == 1 ? "" : "s", from);
    if (rows > 1)
        printf(" to %" PRId64, to);
    printf(", %s %.2g%%%s)%s\n", of_column ? "at most" : "total", mass * 100.0,
           of_column ? " of a column" : "", last ? "; --all shows every row" : "");
}

static double dist_prob_at(const void *d, size_t i)
{
    return alea_dist_prob((const alea_dist *)d, i);
}

/* The bytes of the table's rows [first, end) and its summary, at most
 * (every bar at its longest; the fixed lines at their longest). */
static size_t table_bytes(const alea_dist *d, const char *src, size_t first, size_t end,
                          int vw, int lw, int est, char **fr, int fw, int bar)
{
    size_t row = (size_t)vw + (lw ? 2 + (size_t)lw : 0) + (est ? 47 : 9 + 11 + 11) +
                 (bar ? 2 + BAR_WIDTH : 0) + 1;
    size_t bytes = strlen(src) + 4096 + (end - first) * row; /* heads, notes, summary */
    for (size_t i = first; fr && i < end; i++)
        bytes += 2 + (bar ? (size_t)fw : fr[i] ? strlen(fr[i]) : 0);
    if (alea_dist_is_exact(d))
        for (int k = ALEA_FRACTION_MEAN; k <= ALEA_FRACTION_TRUNCATED; k++)
            bytes += alea_dist_fraction(d, (alea_fraction)k, 0, NULL, 0);
    return bytes;
}

/* The value column's width: its header's, or its widest value's. */
static int value_width(const alea_dist *d)
{
    size_t n = alea_dist_count(d);
    int vw = 5; /* "value" */
    if (n > 0) {
        int w1 = int_width(alea_dist_value(d, 0)), w2 = int_width(alea_dist_value(d, n - 1));
        vw = w1 > vw ? w1 : vw;
        vw = w2 > vw ? w2 : vw;
    }
    return vw;
}

/* The largest chance of the charted column (mode's). */
static double chart_max(const alea_dist *d, cumul_mode mode, const double *least,
                        const double *most)
{
    double vmax = 0;
    for (size_t i = 0; i < alea_dist_count(d); i++) {
        double v = mode == SHOW_AT_LEAST ? least[i]
                   : mode == SHOW_AT_MOST ? most[i] : alea_dist_prob(d, i);
        if (v > vmax)
            vmax = v;
    }
    return vmax;
}

/* Exact: each probability's fraction (malloc'd), the widest's width in
 * *fw; NULL when d is not exact or out of memory. */
static char **prob_fractions(const alea_dist *d, int *fw)
{
    size_t n = alea_dist_count(d);
    char **fr = NULL;
    if (alea_dist_is_exact(d) && n > 0 && (fr = calloc(n, sizeof *fr)) != NULL) {
        for (size_t i = 0; i < n; i++) {
            fr[i] = fraction(d, ALEA_FRACTION_PROB, i);
            int w = fr[i] ? (int)strlen(fr[i]) : 0;
            *fw = w > *fw ? w : *fw;
        }
    }
    return fr;
}

static void free_fractions(char **fr, size_t n)
{
    for (size_t i = 0; fr && i < n; i++)
        free(fr[i]);
    free(fr);
}

/* The header line; pw the width of the % column. */
static void dist_header(int vw, int lw, int est, cumul_mode mode, int pw, int fractions)
{
    printf("%*s", vw, "value");
    if (lw)
        printf("  %-*s", lw, "outcome");
    vw = 0; /* the value header is out */
    if (est)
        printf("%*s%8s%17s%11s%11s", vw, "", "%", "95% interval", "at least", "at most");
    else if (mode == SHOW_EXACT)
        printf("%*s%*s%11s%11s", vw, "", pw, "%", "at least", "at most");
    else if (mode == SHOW_AT_LEAST)
        printf("%*s%11s%*s%11s", vw, "", "at least", pw, "%", "at most");
    else
        printf("%*s%11s%*s%11s", vw, "", "at most", pw, "%", "at least");
    if (fractions)
        printf("  %s", "fraction");
    putchar('\n');
}

/* The width of the % column: a chance below 1e-99 % ("4.9e-389") needs
 * one more. */
static int pct_width(const alea_dist *d)
{
    int pw = 8;
    for (size_t i = 0; i < alea_dist_count(d) && pw == 8; i++) {
        double m;
        if (alea_dist_sci(d, ALEA_FRACTION_PROB, i, &m) < -101 && m > 0)
            pw = 9;
    }
    return pw;
}

/* Row i's percentages, the charted column first; returns the charted
 * chance. */
static double dist_row_pcts(const alea_dist *d, size_t i, int est, cumul_mode mode, int pw,
                            const double *least, const double *most)
{
    double p = alea_dist_prob(d, i), shown;
    if (est) {
        double lo, hi;
        alea_dist_interval(d, i, &lo, &hi);
        printf("%8.2f  %6.2f - %6.2f%11.2f%11.2f", pct(p), pct(lo), pct(hi), pct(least[i]),
               pct(most[i]));
        shown = mode == SHOW_AT_LEAST ? least[i] : mode == SHOW_AT_MOST ? most[i] : p;
    } else if (mode == SHOW_EXACT) {
        put_pct(d, ALEA_FRACTION_PROB, i, p, pw);
        put_pct(d, ALEA_FRACTION_AT_LEAST, i, least[i], 11);
        put_pct(d, ALEA_FRACTION_AT_MOST, i, most[i], 11);
        shown = p;
    } else if (mode == SHOW_AT_LEAST) {
        put_pct(d, ALEA_FRACTION_AT_LEAST, i, least[i], 11);
        put_pct(d, ALEA_FRACTION_PROB, i, p, pw);
        put_pct(d, ALEA_FRACTION_AT_MOST, i, most[i], 11);
        shown = least[i];
    } else {
        put_pct(d, ALEA_FRACTION_AT_MOST, i, most[i], 11);
        put_pct(d, ALEA_FRACTION_PROB, i, p, pw);
        put_pct(d, ALEA_FRACTION_AT_LEAST, i, least[i], 11);
        shown = most[i];
    }
    return shown;
}

int dist_table(const alea_dist *d, const char *src, cumul_mode mode, const double *least,
               const double *most, int all, int64_t max_output)
{
    size_t n = alea_dist_count(d);
    /* the shown rows: a dd()'s named outcomes are never hidden */
    size_t first = 0, end = n;
    if (!all && label_width(d) == 0)
        shown_rows(n, dist_prob_at, d, &first, &end);
    int vw = value_width(d);

    /* The charted column comes first after the value. */
    double vmax = chart_max(d, mode, least, most);

    /* Exact: each probability's fraction after the percentages; the bar
     * only while the fractions are short enough to leave it room. */
    int fw = 0;
    char **fr = prob_fractions(d, &fw);
    int bar = !fr || fw <= FRACTION_BAR_MAX;

    int lw = label_width(d);
    int est = alea_dist_samples(d) > 0; /* an estimate: each % with its interval */
    if ((double)table_bytes(d, src, first, end, vw, lw, est, fr, fw, bar) > (double)max_output) {
        free_fractions(fr, n);
        return 0;
    }
    printf("%s\n", src);
    int pw = pct_width(d);
    dist_header(vw, lw, est, mode, pw, fr != NULL);

    put_hidden(first, alea_dist_value(d, 0), first ? alea_dist_value(d, first - 1) : 0,
               first ? most[first - 1] : 0, 0, end == n);
    for (size_t i = first; i < end; i++) {
        printf("%*" PRId64, vw, alea_dist_value(d, i));
        if (lw) {
            const char *l = alea_dist_label(d, alea_dist_value(d, i));
            printf("  %-*s", lw, l ? l : "");
        }
        double shown = dist_row_pcts(d, i, est, mode, pw, least, most);
        if (fr)
            printf("  %-*s", bar ? fw : 0, fr[i] ? fr[i] : "");
        if (bar)
            put_bar(shown, vmax);
        putchar('\n');
    }
    put_hidden(n - end, end < n ? alea_dist_value(d, end) : 0, n ? alea_dist_value(d, n - 1) : 0,
               end < n ? least[end] : 0, 0, 1);
    free_fractions(fr, n);
    put_summary(d);
    return 1;
}

/* ---- compare ------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/*
 * The cell of column c for value v: sets *p and returns 1, or returns 0 when
 * blank (an impossible value, exact mode). Advances c->at monotonically, so
 * values must be asked in ascending order.
 */
static int cell(column *c, int64_t v, cumul_mode mode, double *p)
{
    while (c->at < c->n && alea_dist_value(c->d, c->at) < v)
        c->at++;
    int hit = c->at < c->n && alea_dist_value(c->d, c->at) == v;
    switch (mode) {
    case SHOW_AT_LEAST:
        *p = c->at < c->n ? c->least[c->at] : 0.0;
        return 1;
    case SHOW_AT_MOST:
        *p = hit ? c->most[c->at] : c->at > 0 ? c->most[c->at - 1] : 0.0;
        return 1;
    case SHOW_EXACT:
    default:
        if (!hit)
            return 0;
        *p = alea_dist_prob(c->d, c->at);
        return 1;
    }
}

/* The exact fraction of the cell cell() has just read (its column in exact
 * mode): the same outcome, the same rule outside the column's range. */
static void put_cell_fraction(const column *c, int64_t v, cumul_mode mode)
{
    int hit = c->at < c->n && alea_dist_value(c->d, c->at) == v;
    alea_fraction what = mode == SHOW_AT_LEAST ? ALEA_FRACTION_AT_LEAST
                         : mode == SHOW_AT_MOST ? ALEA_FRACTION_AT_MOST
                                                : ALEA_FRACTION_PROB;
    size_t i = c->at;
    if (mode == SHOW_AT_MOST && !hit) {
        if (c->at == 0) {
            putchar('0');
            return;
        }
        i = c->at - 1;
    } else if (mode == SHOW_AT_LEAST && c->at >= c->n) {
        putchar('0');
        return;
    }
    size_t len = alea_dist_fraction(c->d, what, i, NULL, 0);
    char *buf = malloc(len + 1);
    if (!buf) {
        fputs("?", stdout); /* out of memory: the cell says it has no value */
        return;
    }
    alea_dist_fraction(c->d, what, i, buf, len + 1);
    fputs(buf, stdout);
    free(buf);
}

/* What names column j: its name, else its expression. */
static const char *column_label(const options *o, size_t j)
{
    return o->names && o->names[j][0] ? o->names[j] : o->exprs[j];
}

/* Header text: the expression, cut to HEADER_MAX characters with "...". */
static void make_head(column *c, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t len = strlen(src), units = 0, i;
    for (i = 0; i < len; i += unit_len(s, len, i))
        units++;
    size_t keep = units <= HEADER_MAX ? units : HEADER_MAX - 3, u = 0, o = 0;
    for (i = 0; i < len && u < keep; u++) {
        size_t n = unit_len(s, len, i);
        unsigned ch = s[i];
        if (n > 1) {
            memcpy(c->head + o, s + i, n);
            o += n;
        } else {
            c->head[o++] = ch < 0x20 || ch == 0x7F || ch >= 0x80 ? '?' : (char)ch;
        }
        i += n;
    }
    if (keep < units) {
        memcpy(c->head + o, "...", 3);
        o += 3;
    }
    c->head[o] = '\0';
    c->width = (int)(keep < units ? HEADER_MAX : units);
}

static void put_csv_field(const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' &&
        (s[0] == '\0' || s[strlen(s) - 1] != ' ')) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

/* Prints a stat row: label, then one formatted value per column. */
static void put_stat_row(const char *label, int lw, column *cols, size_t ncols,
                         int which)
{
    printf("%*s", lw, label);
    for (size_t j = 0; j < ncols; j++) {
        const alea_dist *d = cols[j].d;
        char tmp[64];
        switch (which) {
        case 0: snprintf(tmp, sizeof tmp, "%.2f", round2(alea_dist_mean(d))); break;
        case 1: snprintf(tmp, sizeof tmp, "%.2f", round2(alea_dist_sd(d))); break;
        case 2: end_text(tmp, sizeof tmp, d, 0); break;
        case 3: end_text(tmp, sizeof tmp, d, 1); break;
        default: snprintf(tmp, sizeof tmp, "%" PRId64, alea_dist_median(d)); break;
        }
        printf("  %*s", cols[j].width, tmp);
    }
    putchar('\n');
}

static int stat_width(const alea_dist *d)
{
    char tmp[64];
    int w = snprintf(tmp, sizeof tmp, "%.2f", round2(alea_dist_mean(d)));
    int k = snprintf(tmp, sizeof tmp, "%.2f", round2(alea_dist_sd(d)));
    w = k > w ? k : w;
    k = end_text(tmp, sizeof tmp, d, 0);
    w = k > w ? k : w;
    k = end_text(tmp, sizeof tmp, d, 1);
    return k > w ? k : w;
}

/*
 * The rows of the comparison shown, [*first, *end) of vals: from the first
 * value that some column shows at TAIL_SHOWN or more to the last; hidden[0]
 * and hidden[1], the most probability that one column has below and above.
 */
static void compare_rows(const column *cols, size_t ncols, const int64_t *vals, size_t nvals,
                         size_t *first, size_t *end, double hidden[2])
{
    int64_t vlo = INT64_MAX, vhi = INT64_MIN;
    for (size_t j = 0; j < ncols; j++) {
        size_t a, b;
        shown_rows(cols[j].n, dist_prob_at, cols[j].d, &a, &b);
        if (a < b) {
            int64_t x = alea_dist_value(cols[j].d, a), y = alea_dist_value(cols[j].d, b - 1);
            vlo = x < vlo ? x : vlo;
            vhi = y > vhi ? y : vhi;
        }
    }
    *first = 0;
    *end = nvals;
    hidden[0] = hidden[1] = 0;
    if (vlo > vhi)
        return;
    while (*first < nvals && vals[*first] < vlo)
        ++*first;
    while (*end > *first && vals[*end - 1] > vhi)
        --*end;
    for (size_t j = 0; j < ncols; j++) {
        size_t i = 0;
        while (i < cols[j].n && alea_dist_value(cols[j].d, i) < vlo)
            i++;
        if (i > 0 && cols[j].most[i - 1] > hidden[0])
            hidden[0] = cols[j].most[i - 1];
        i = cols[j].n;
        while (i > 0 && alea_dist_value(cols[j].d, i - 1) > vhi)
            i--;
        if (i < cols[j].n && cols[j].least[i] > hidden[1])
            hidden[1] = cols[j].least[i];
    }
}

/* compare --csv: a row per value, a column per expression. */
static void compare_csv(column *cols, size_t ncols, const int64_t *vals, size_t nvals,
                        const options *o)
{
    fputs("value", stdout);
    for (size_t j = 0; j < ncols; j++) {
        putchar(',');
        put_csv_field(column_label(o, j));
    }
    putchar('\n');
    for (size_t r = 0; r < nvals; r++) {
        printf("%" PRId64, vals[r]);
        for (size_t j = 0; j < ncols; j++) {
            double p;
            putchar(',');
            if (cell(&cols[j], vals[r], o->cumul, &p)) {
                if (alea_dist_is_exact(cols[j].d))
                    put_cell_fraction(&cols[j], vals[r], o->cumul);
                else
                    put_exact(p);
            }
        }
        putchar('\n');
    }
}

/* The value column's width; each column widened to its statistics and to
 * "100.00". */
static int compare_widths(column *cols, size_t ncols, const int64_t *vals, size_t nvals)
{
    int lw = 6; /* "median" */
    if (nvals > 0) {
        int w1 = int_width(vals[0]), w2 = int_width(vals[nvals - 1]);
        lw = w1 > lw ? w1 : lw;
        lw = w2 > lw ? w2 : lw;
    }
    for (size_t j = 0; j < ncols; j++) {
        int w = stat_width(cols[j].d);
        if (w > cols[j].width)
            cols[j].width = w;
        if (cols[j].width < 6) /* "100.00" */
            cols[j].width = 6;
    }
    return lw;
}

/* The outcome column's width; 0: none. */
static int compare_label_width(const column *cols, size_t ncols)
{
    int labw = 0; /* dd() compared with dd() only: name the outcomes */
    for (size_t j = 0; j < ncols; j++) {
        int w = label_width(cols[j].d);
        if (w == 0) {
            labw = 0;
            break;
        }
        labw = w > labw ? w : labw;
    }
    return labw;
}

/* The line of the columns' names. */
static void compare_header(const column *cols, size_t ncols, int lw, int labw)
{
    printf("%*s", lw, "value");
    if (labw)
        printf("  %-*s", labw, "outcome");
    for (size_t j = 0; j < ncols; j++) {
        /* %*s counts bytes; pad by characters so UTF-8 headers line up. */
        size_t units = 0, len = strlen(cols[j].head);
        const unsigned char *s = (const unsigned char *)cols[j].head;
        for (size_t i = 0; i < len; i += unit_len(s, len, i))
            units++;
        fputs("  ", stdout);
        for (size_t k = units; k < (size_t)cols[j].width; k++)
            putchar(' ');
        fputs(cols[j].head, stdout);
    }
    putchar('\n');
}

/* The row of value v: its outcome's name, each column's percentage. */
static void compare_row(column *cols, size_t ncols, int64_t v, int lw, int labw,
                        cumul_mode cumul)
{
    printf("%*" PRId64, lw, v);
    if (labw) {
        const char *l = NULL;
        for (size_t j = 0; j < ncols && !l; j++)
            l = alea_dist_label(cols[j].d, v);
        printf("  %-*s", labw, l ? l : "");
    }
    int blanks = 0; /* trailing blank cells are not padded */
    for (size_t j = 0; j < ncols; j++) {
        double p;
        if (cell(&cols[j], v, cumul, &p)) {
            for (; blanks > 0; blanks--)
                printf("  %*s", cols[j - (size_t)blanks].width, "");
            printf("  %*.2f", cols[j].width, pct(p));
        } else {
            blanks++;
        }
    }
    putchar('\n');
}

/* Under the rows: the statistics, the boons and banes, the flags and
 * what the explosion bound cut off; lw the width of the names. */
static void compare_footer(alea_ctx *ctx, column *cols, size_t ncols, int lw, const options *o)
{
    static const char *const stats[] = {"mean", "sd", "min", "max", "median"};
    for (int k = 0; k < 5; k++)
        put_stat_row(stats[k], lw, cols, ncols, k);
    if (o->boons_set) { /* expected boons and banes per column (dd() only) */
        static const char *const names[] = {"boons", "banes"};
        for (int k = 0; k < 2; k++) {
            printf("%*s", lw, names[k]);
            for (size_t j = 0; j < ncols; j++) {
                double b, n;
                if (alea_dist_boons(ctx, cols[j].d, &o->boons, o->drive, o->support, &b,
                                    &n) == ALEA_OK)
                    printf("  %*.2f", cols[j].width, k ? n : b);
                else
                    printf("  %*s", cols[j].width, "");
            }
            putchar('\n');
        }
    }
    for (size_t j = 0; j < ncols; j++)
        for (size_t i = 0; i < alea_dist_flag_count(cols[j].d); i++)
            printf("%s %.2f%% in %s\n", alea_dist_flag_name(cols[j].d, i),
                   pct(alea_dist_flag_prob(cols[j].d, i)), column_label(o, j));
    for (size_t j = 0; j < ncols; j++) {
        double cut = alea_dist_truncated(cols[j].d);
        if (cut > 0)
            printf("truncated %.2g in %s (probability cut off by the explosion "
                   "bound)\n", cut, column_label(o, j));
    }
}

static void compare_print(alea_ctx *ctx, column *cols, size_t ncols, const int64_t *vals,
                          size_t nvals, const options *o)
{
    static const char *const titles[] = {
        "% chance of each value", "% chance of at least each value",
        "% chance of at most each value"};

    if (o->csv) {
        compare_csv(cols, ncols, vals, nvals, o);
        return;
    }
    int lw = compare_widths(cols, ncols, vals, nvals);
    int labw = compare_label_width(cols, ncols);
    size_t first = 0, end = nvals;
    double hidden[2] = {0, 0};
    if (!o->all && !labw)
        compare_rows(cols, ncols, vals, nvals, &first, &end, hidden);
    puts(titles[o->cumul]);
    compare_header(cols, ncols, lw, labw);
    put_hidden(first, vals[0], first ? vals[first - 1] : 0, hidden[0], 1,
               end == nvals);
    for (size_t r = first; r < end; r++)
        compare_row(cols, ncols, vals[r], lw, labw, o->cumul);
    put_hidden(nvals - end, end < nvals ? vals[end] : 0, nvals ? vals[nvals - 1] : 0, hidden[1],
               1, 1);
    if (labw)
        lw += 2 + labw; /* the statistics' names span the label column too */
    compare_footer(ctx, cols, ncols, lw, o);
}

int compare_table(alea_ctx *ctx, column *cols, size_t ncols, size_t total, const options *o)
{
    /* Rows: the union of every column's values. */
    size_t nvals = 0;
    int64_t *vals = malloc((total ? total : 1) * sizeof *vals);
    if (!vals)
        return out_of_memory();
    for (size_t j = 0; j < ncols; j++)
        for (size_t i = 0; i < cols[j].n; i++)
            vals[nvals++] = alea_dist_value(cols[j].d, i);
    qsort(vals, nvals, sizeof *vals, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nvals; i++)
        if (u == 0 || vals[i] != vals[u - 1])
            vals[u++] = vals[i];
    nvals = u;

    for (size_t j = 0; j < ncols; j++)
        make_head(&cols[j], column_label(o, j));
    compare_print(ctx, cols, ncols, vals, nvals, o);
    free(vals);
    return EXIT_OK;
}
