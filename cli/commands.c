/*
 * commands.c -- roll, dist and compare: compile the expressions, evaluate
 * them within the limits and the time, and hand the results to the
 * printers (the library's formatters, table.c).
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int buffer_reserve(buffer *b, size_t need)
{
    if (need <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = realloc(b->p, cap);
    if (!p)
        return 0;
    b->p = p;
    b->cap = cap;
    return 1;
}

int print_formatted(alea_ctx *ctx, formatter write, const void *obj, alea_format f)
{
    size_t n = write(obj, f, NULL, 0);
    if (n == 0) /* the output limit, with the option that raises it */
        return report_limit(ctx, NULL, 0);
    char *buf = malloc(n + 1);
    if (!buf)
        return out_of_memory();
    write(obj, f, buf, n + 1);
    fputs(buf, stdout);
    if (f == ALEA_FORMAT_JSON)
        putchar('\n');
    free(buf);
    return EXIT_OK;
}

/* format_dist's answer when the text passes the output limit (the
 * context holds the library's error). */
#define FORMAT_REFUSED (SIZE_MAX - 1)

/* Formats a distribution (computed in ctx) in the library's JSON or CSV
 * into b; returns its length, SIZE_MAX when out of memory, or
 * FORMAT_REFUSED. */
static size_t format_dist(alea_ctx *ctx, const alea_dist *d, alea_format fmt, buffer *b)
{
    /* Room for a typical outcome up front ("[123, 0.0123456789012345], ",
     * or a CSV line of four or six numbers), so that a large distribution
     * is formatted once, not twice. */
    size_t n = alea_dist_count(d);
    size_t row = fmt == ALEA_FORMAT_JSON ? 32 : alea_dist_samples(d) ? 160 : 96;
    if (alea_dist_is_exact(d) && n) {
        /* fractions: every denominator divides the longest, which the
         * rarest outcomes (usually the extremes) have, and each numerator
         * is shorter than its denominator */
        size_t lo = alea_dist_fraction(d, ALEA_FRACTION_PROB, 0, NULL, 0);
        size_t hi = alea_dist_fraction(d, ALEA_FRACTION_PROB, n - 1, NULL, 0);
        size_t w = lo > hi ? lo : hi;
        row += w < SIZE_MAX / 8 ? (fmt == ALEA_FORMAT_JSON ? 2 : 6) * w : 0;
    }
    size_t guess = n < SIZE_MAX / 256 ? row * n + 1024 : SIZE_MAX;
    if (b->cap < guess && !buffer_reserve(b, guess))
        return SIZE_MAX;
    size_t len = alea_dist_format(d, fmt, b->p, b->cap);
    if (len >= b->cap) {
        if (!buffer_reserve(b, len + 1))
            return SIZE_MAX;
        len = alea_dist_format(d, fmt, b->p, b->cap);
    }
    if (len == 0 && alea_ctx_error_span(ctx, NULL, NULL) == ALEA_ERR_LIMIT)
        return FORMAT_REFUSED;
    return len == 0 ? SIZE_MAX : len; /* CSV: no memory for its columns */
}

/* ---- roll ---------------------------------------------------------------- */

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* "adv=2d20kh1", "with advantage=2d20kh1": the name, words of letters,
 * digits, _ and - apart by one space (copied into name), and where the
 * expression starts; NULL when src does not start with a name and a single
 * '=', or (*too_long set) when the name is longer than COLUMN_NAME_MAX. */
static const char *split_name(const char *src, column_name name, int *too_long)
{
    *too_long = 0;
    size_t n = 0;
    if (!((src[0] >= 'a' && src[0] <= 'z') || (src[0] >= 'A' && src[0] <= 'Z') || src[0] == '_'))
        return NULL;
    while (name_char(src[n]) || (src[n] == ' ' && name_char(src[n + 1])))
        n++;
    if (src[n] != '=' || src[n + 1] == '=')
        return NULL;
    if (n > COLUMN_NAME_MAX) {
        *too_long = 1;
        return NULL;
    }
    memcpy(name, src, n);
    name[n] = '\0';
    return src + n + 1;
}

/* Whether src forms an expression alone: it compiles (or, with names,
 * "name=expr" whose expr does); and after another argument (after), it
 * does not start with an operator, which continues the one before ("alea
 * 1d20 +5"), and is not a number alone ("alea 4d6kh3 6 times"). */
static int forms_expression(alea_ctx *ctx, const options *o, const char *src, int after)
{
    if (after && (strchr("+-*/^%<>=),", src[0]) || strspn(src, "0123456789") == strlen(src)))
        return 0;
    column_name name;
    int too_long;
    const char *expr = src;
    alea_expr *e = NULL;
    alea_status st = alea_expr_compile(ctx, src, strlen(src), &e);
    if (st != ALEA_OK && o->names && (expr = split_name(src, name, &too_long)) != NULL)
        st = alea_expr_compile(ctx, expr, strlen(expr), &e);
    alea_expr_free(e);
    return st != ALEA_ERR_SYNTAX && st != ALEA_ERR_INVALID; /* a limit's error is its own */
}

/* An argument with a space or a tab in it was quoted: it stays whole. */
static int quoted(const char *src)
{
    return strpbrk(src, " \t") != NULL;
}

/*
 * "alea roll d20 +1d", "alea 1d20 + 5": the game systems' own spellings
 * have spaces, and an unquoted one reaches alea as several arguments. When
 * the arguments do not each form an expression, an argument that does not
 * (or that follows one that does not) joins the one before, with a space:
 * "d20" "+1d" "2d6" are "d20 +1d" and "2d6". A quoted argument ("d20 +1d")
 * is never joined. When the last part still does not form one and nothing
 * was quoted, all of them are one expression ("4d6kh3 6 times"), whose
 * error is then reported. The parts are written into o->joined. Returns 0
 * when out of memory; *joined tells whether it joined. Compiles each part
 * once per argument it takes: a few arguments.
 */
int join_arguments(alea_ctx *ctx, options *o, int *joined)
{
    *joined = 0;
    size_t n = o->nexprs, need = 1, i = 0;
    while (i < n && forms_expression(ctx, o, o->exprs[i], i > 0))
        i++;
    if (n < 2 || i == n)
        return 1;
    for (i = 0; i < n; i++)
        need += strlen(o->exprs[i]) + 1;
    char *s = malloc(need);
    if (!s)
        return 0;
    size_t k = 0, at = 0, part = 0;
    int forms = 0, was_quoted = 0, any_quoted = 0; /* the part so far */
    for (i = 0; i < n; i++) {
        size_t len = strlen(o->exprs[i]);
        int q = quoted(o->exprs[i]);
        any_quoted |= q;
        if (i > 0 && (q || was_quoted || (forms && forms_expression(ctx, o, o->exprs[i], 1)))) {
            s[at++] = '\0'; /* a new part */
            o->exprs[k++] = s + part;
            part = at;
        } else if (i > 0) {
            s[at++] = ' ';
        }
        memcpy(s + at, o->exprs[i], len);
        at += len;
        s[at] = '\0';
        was_quoted = q;
        forms = forms_expression(ctx, o, s + part, 0);
    }
    o->exprs[k++] = s + part;
    if (!forms && !any_quoted) { /* one expression, joined again */
        for (char *c = s; c < s + at; c++)
            if (!*c)
                *c = ' ';
        o->exprs[0] = s;
        k = 1;
    }
    free(o->joined); /* its repeats are copied into s */
    o->joined = s;
    o->nexprs = k;
    *joined = k < n;
    return 1;
}

int compile_all(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    for (size_t i = 0; i < o->nexprs; i++) {
        const char *src = o->exprs[i], *expr;
        int too_long;
        if (alea_expr_compile(ctx, src, strlen(src), &ex[i]) != ALEA_OK) {
            /* not an expression: a named column's, or the error */
            if (!o->names || !(expr = split_name(src, o->names[i], &too_long))) {
                if (o->names && too_long)
                    return usage_error(CMD_COMPARE, 1, "compare: the column name '%.*s...' "
                                       "is longer than " STR(COLUMN_NAME_MAX) " characters",
                                       COLUMN_NAME_MAX, src);
                int rc = report_limit(ctx, src, 0);
                column_name name;
                if (!o->names && (expr = split_name(src, name, &too_long)) != NULL)
                    fprintf(stderr, "alea: hint: '%s=' names a column of alea compare; here "
                                    "write the expression alone: %s\n", name, expr);
                return rc;
            }
            o->exprs[i] = expr;
            if (alea_expr_compile(ctx, expr, strlen(expr), &ex[i]) != ALEA_OK)
                return report_limit(ctx, expr, 0);
        }
        report_hint(ex[i]);
    }
    return EXIT_OK;
}

/* ---- roll --luck ---------------------------------------------------------- */

/* A probability as a percentage for a person: three significant digits,
 * "100%" and "0%" only when it is exactly that. */
static void luck_percent(double p, char *buf, size_t cap)
{
    double pc = p * 100;
    if (p > 0 && p < 1 && pc >= 99.95)
        snprintf(buf, cap, ">99.9%%");
    else if (p > 0 && pc < 0.001)
        snprintf(buf, cap, "<0.001%%");
    else
        snprintf(buf, cap, "%.3g%%", pc);
}

/* Appends to b (at *len) the luck of total in d: as text, "  (luck: P(<= 17)
 * 85%, P(>= 17) 20%)"; as JSON, {"at_most": 0.85, "at_least": 0.2}.
 * Returns 0 when out of memory. */
static int luck_append(buffer *b, size_t *len, const alea_dist *d, int64_t total, int json)
{
    double most, least;
    alea_dist_luck(d, total, &most, &least);
    char text[160];
    if (json) {
        char m[32], l[32];
        alea_format_double(most, m, sizeof m);
        alea_format_double(least, l, sizeof l);
        snprintf(text, sizeof text, "{\"at_most\": %s, \"at_least\": %s}", m, l);
    } else {
        char m[16], l[16];
        luck_percent(most, m, sizeof m);
        luck_percent(least, l, sizeof l);
        snprintf(text, sizeof text, "  (luck: P(<= %" PRId64 ") %s, P(>= %" PRId64 ") %s)", total,
                 m, total, l);
    }
    size_t n = strlen(text);
    if (!buffer_reserve(b, *len + n + 2))
        return 0;
    memcpy(b->p + *len, text, n + 1);
    *len += n;
    return 1;
}

/*
 * roll_luck (cli.h): writes into b (from 0, its length in *len) the breakdown held in line
 * (len_in bytes) with each roll's luck in d: in text, after each line of
 * the breakdown (a repeat's rolls, a line each); in JSON, "luck" before the
 * object's closing brace: an object, or for a repeat an array of them, one
 * per roll in the order of "repeat". Returns 0 when out of memory.
 */
int roll_luck(const alea_roll *roll, const alea_dist *d, int json, const char *line,
                     size_t len_in, buffer *b, size_t *len)
{
    size_t count = alea_roll_count(roll), lines = 1;
    for (size_t k = 0; k < len_in; k++)
        lines += line[k] == '\n';
    *len = 0;
    if (!buffer_reserve(b, len_in + 64))
        return 0;
    if (json) {
        size_t body = len_in > 0 && line[len_in - 1] == '}' ? len_in - 1 : len_in;
        memcpy(b->p, line, body);
        *len = body;
        const char *open = count > 1 ? ", \"luck\": [" : ", \"luck\": ";
        if (!buffer_reserve(b, *len + 16))
            return 0;
        memcpy(b->p + *len, open, strlen(open));
        *len += strlen(open);
        for (size_t i = 0; i < count; i++) {
            if (i > 0) {
                memcpy(b->p + *len, ", ", 2);
                *len += 2;
            }
            int64_t t = count > 1 ? alea_roll_total_at(roll, i) : alea_roll_total(roll);
            if (!luck_append(b, len, d, t, 1))
                return 0;
        }
        if (!buffer_reserve(b, *len + 4))
            return 0;
        memcpy(b->p + *len, count > 1 ? "]}" : "}", count > 1 ? 3 : 2);
        *len += count > 1 ? 2 : 1;
        return 1;
    }
    /* a line per roll: each its own luck; a single roll's after its text.
     * A repeat whose text is not a line per roll gets none: a repeat's sum
     * has no place in the distribution of one roll */
    int per_line = count > 1 && lines == count;
    size_t from = 0;
    for (size_t i = 0; i < (per_line ? count : 1); i++) {
        const char *nl = per_line ? memchr(line + from, '\n', len_in - from) : NULL;
        size_t end = nl ? (size_t)(nl - line) : len_in;
        if (!buffer_reserve(b, *len + (end - from) + 2))
            return 0;
        if (i > 0)
            b->p[(*len)++] = '\n';
        memcpy(b->p + *len, line + from, end - from);
        *len += end - from;
        int64_t t = per_line ? alea_roll_total_at(roll, i) : alea_roll_total(roll);
        if ((per_line || count == 1) && !luck_append(b, len, d, t, 0))
            return 0;
        from = end + 1;
    }
    return 1;
}

/* The distribution that --luck places e's rolls in, or NULL (with a hint
 * line saying why) when the exact engine refuses it: the rolls go on. */
static alea_dist *luck_dist(alea_ctx *ctx, const alea_expr *e, const char *src)
{
    alea_dist *d = NULL;
    if (alea_expr_dist(ctx, e, &d) == ALEA_OK)
        return d;
    char why[ALEA_ERROR_LINE_MAX];
    alea_ctx_error_line(ctx, why, sizeof why);
    fprintf(stderr, "alea: hint: no luck for '%s': its distribution was refused: %s\n", src, why);
    return NULL;
}

/*
 * Rolls e (compiled from src) o->n times, a line per roll; roll and b are
 * reused from call to call. Stops at the first error (reported after the
 * rolls so far) or when stdout fails (main reports that). With --luck, the
 * distribution is computed once, first, within the limits and the time.
 */
int roll_one(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
             alea_roll *roll, buffer *b)
{
    alea_format fmt = o->json ? ALEA_FORMAT_JSON
                      : o->markdown ? ALEA_FORMAT_MARKDOWN
                      : o->color ? ALEA_FORMAT_ANSI : ALEA_FORMAT_TEXT;
    timer_arm(o->timer);
    alea_dist *d = NULL;
    buffer lb = {NULL, 0};
    if (o->luck && (d = luck_dist(ctx, e, src)) != NULL)
        timer_arm(o->timer); /* the rolls' own time */
    int rc = EXIT_OK;
    for (int64_t k = 0; k < o->n; k++) {
        if (k % 1024 == 1023 && command_expired(o->timer)) {
            fflush(stdout);
            rc = report_time_limit(o->timer);
            break;
        }
        if (alea_expr_roll(ctx, e, roll) != ALEA_OK) {
            fflush(stdout); /* the rolls so far, then the error */
            rc = report_limit(ctx, src, 0);
            break;
        }
        if (o->log)
            roll_log_add(o->log, ctx, src, roll);
        size_t len = alea_roll_format(roll, fmt, b->p, b->cap);
        if (len + 2 > b->cap) { /* room for '\n' and the NUL */
            if (!buffer_reserve(b, len + 2)) {
                rc = out_of_memory();
                break;
            }
            len = alea_roll_format(roll, fmt, b->p, b->cap);
        }
        if (d) {
            if (!roll_luck(roll, d, o->json, b->p, len, &lb, &len)) {
                rc = out_of_memory();
                break;
            }
            if (fwrite(lb.p, 1, len, stdout) != len || putchar('\n') == EOF)
                break; /* a closed pipe: stop rolling; main reports */
            continue;
        }
        b->p[len] = '\n'; /* one write a line: the hot path of roll -n */
        if (fwrite(b->p, 1, len + 1, stdout) != len + 1)
            break; /* a closed pipe: stop rolling; main reports */
    }
    alea_dist_free(d);
    free(lb.p);
    return rc;
}

int cmd_roll(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    buffer b = {NULL, 0};
    int rc = EXIT_OK;
    alea_roll *roll = alea_roll_new(ctx);
    if (!roll || !buffer_reserve(&b, 256)) {
        alea_roll_free(roll);
        free(b.p);
        return out_of_memory();
    }
    for (size_t i = 0; i < o->nexprs && rc == EXIT_OK && !ferror(stdout); i++)
        rc = roll_one(ctx, o, ex[i], o->exprs[i], roll, &b);
    alea_roll_free(roll);
    free(b.p);
    return rc;
}

/* ---- dist ---------------------------------------------------------------- */

/* Prints the distribution of e (compiled from src) in the format o asks for;
 * b is reused from call to call. JSON is formatted whole before it is
 * written: never a partial document. */
int dist_one(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
             buffer *b)
{
    alea_dist *d;
    uint64_t seed = 0;
    uint32_t threads = 0;
    timer_arm(o->timer);
    if (o->sample) {
        int erc = estimate(ctx, o, e, src, strlen(src), &seed, &threads, &d);
        if (erc != EXIT_OK)
            return erc;
    } else if (alea_expr_dist(ctx, e, &d) != ALEA_OK) {
        return report_limit(ctx, src, HINT_SAMPLE | (o->exact ? HINT_EXACT : 0u));
    }
    double boons = 0, banes = 0;
    if (o->boons_set &&
        alea_dist_boons(ctx, d, &o->boons, o->drive, o->support, &boons, &banes) != ALEA_OK) {
        alea_dist_free(d);
        return report(ctx, src);
    }

    int rc = EXIT_OK;
    if (o->svg) {
        rc = svg_dists(ctx, o, (const alea_dist *const *)&d, NULL, 1, src);
        if (rc != EXIT_OK || svg_to_stdout(o)) {
            alea_dist_free(d);
            return rc;
        }
    }
    if (o->json) {
        size_t len = format_dist(ctx, d, ALEA_FORMAT_JSON, b);
        char extra[96] = "";
        if (o->sample) /* how to make the estimate again, before the last '}' */
            snprintf(extra, sizeof extra, ", \"seed\": %" PRIu64 ", \"threads\": %u}", seed,
                     threads);
        size_t xl = strlen(extra);
        if (len == FORMAT_REFUSED) {
            rc = report_limit(ctx, src, 0);
        } else if (len == SIZE_MAX || !buffer_reserve(b, len + xl + 2)) {
            rc = out_of_memory();
        } else {
            if (xl) {
                memcpy(b->p + len - 1, extra, xl);
                len += xl - 1;
            }
            b->p[len] = '\n';
            fwrite(b->p, 1, len + 1, stdout);
        }
    } else if (o->csv) {
        size_t len = format_dist(ctx, d, ALEA_FORMAT_CSV, b);
        if (len == FORMAT_REFUSED)
            rc = report_limit(ctx, src, 0);
        else if (len == SIZE_MAX)
            rc = out_of_memory();
        else
            fwrite(b->p, 1, len, stdout);
    } else {
        double *least, *most;
        if (!cumulate(d, &least, &most)) {
            rc = out_of_memory();
        } else {
            if (o->sample)
                printf("estimate from %" PRIu64 " rolls on %u thread%s, seed %" PRIu64
                       " (--seed %" PRIu64 " --threads %u to repeat it)\n",
                       alea_dist_samples(d), threads, threads == 1 ? "" : "s", seed, seed,
                       threads);
            if (!dist_table(d, src, o->cumul, least, most, o->all,
                            alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, -1)))
                rc = report_output_limit(ctx, src, "distribution's table");
            else if (o->boons_set)
                printf("expected boons %.2f   expected banes %.2f\n", boons, banes);
            free(least);
            free(most);
        }
    }
    alea_dist_free(d);
    return rc;
}

int cmd_dist(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    buffer b = {NULL, 0};
    int rc = dist_one(ctx, o, ex[0], o->exprs[0], &b);
    free(b.p);
    return rc;
}

/* ---- compare ------------------------------------------------------------- */

/* compare --json: {"columns": [<each column's dist --json, with "name"
 * first: its name, or null>, ...], "versus": [<each pair's distances>]},
 * formatted whole before it is written. */
static int compare_json(alea_ctx *ctx, const column *cols, size_t ncols, const options *o,
                        const versus_row *rows, size_t nrows)
{
    buffer b = {NULL, 0}, all = {NULL, 0};
    size_t at = 0;
    int rc = EXIT_OK;
    /* the output limit bounds the whole document */
    int64_t limit = alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, -1);
    for (size_t j = 0; j < ncols && rc == EXIT_OK; j++) {
        size_t len = format_dist(ctx, cols[j].d, ALEA_FORMAT_JSON, &b);
        const char *name = o->names && o->names[j][0] ? o->names[j] : NULL;
        /* "{\"columns\": [" or ", ", then {"name": "...", and the rest */
        size_t need = at + 16 + 12 + COLUMN_NAME_MAX + len + 4;
        if (len == FORMAT_REFUSED || (len != SIZE_MAX && (double)need > (double)limit)) {
            rc = report_output_limit(ctx, o->exprs[j], "comparison's JSON");
            break;
        }
        if (len == SIZE_MAX || !buffer_reserve(&all, need)) {
            rc = out_of_memory();
            break;
        }
        at += (size_t)sprintf(all.p + at, "%s{\"name\": %s%s%s, ", j ? ", " : "{\"columns\": [",
                              name ? "\"" : "", name ? name : "null", name ? "\"" : "");
        memcpy(all.p + at, b.p + 1, len - 1); /* the names need no escaping */
        at += len - 1;
    }
    /* then the distances between the columns: "versus": [...] */
    size_t vlen = versus_json(rows, nrows, NULL, 0) + 2;
    if (rc == EXIT_OK && (double)(at + vlen + 3) > (double)limit)
        rc = report_output_limit(ctx, o->exprs[0], "comparison's JSON");
    else if (rc == EXIT_OK && !buffer_reserve(&all, at + vlen + 4))
        rc = out_of_memory();
    if (rc == EXIT_OK) {
        all.p[at++] = ']';
        memcpy(all.p + at, ", ", 2);
        at += 2 + versus_json(rows, nrows, all.p + at + 2, vlen - 1);
        memcpy(all.p + at, "}\n", 2);
        fwrite(all.p, 1, at + 2, stdout);
    }
    free(b.p);
    free(all.p);
    return rc;
}

/* The distributions of every expression, side by side (table.c prints
 * them), all within one set of limits. */
int cmd_compare(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    size_t ncols = o->nexprs, total = 0, nrows = 0;
    versus_row *rows = NULL;
    int rc = EXIT_OK;
    column *cols = calloc(ncols, sizeof *cols);
    if (!cols)
        return out_of_memory();

    /* The limits bound the whole table: the columns share one work budget
     * (each is given what the others left), and their outcomes together
     * stay within the support limit, which bounds the table's memory and
     * rows. The memory limit already covers them: every column is held in
     * ctx until the table is printed. */
    int64_t work = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1), spent = 0;
    int64_t support = alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, -1);
    for (size_t j = 0; j < ncols; j++) {
        timer_arm(o->timer);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent);
        alea_status st = alea_expr_dist(ctx, ex[j], &cols[j].d);
        spent += alea_ctx_work(ctx);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work);
        if (st != ALEA_OK) {
            cols[j].d = NULL;
            if (st == ALEA_ERR_LIMIT && j > 0 && strstr(alea_ctx_error(ctx), "work limit")) {
                fprintf(stderr, "alea: compare: the columns need more work in all than the "
                                "work limit (%" PRId64 ") allows; compare fewer expressions, "
                                "or raise --max-work\n", work);
                rc = EXIT_FAIL;
            } else {
                rc = report_limit(ctx, o->exprs[j], 0);
            }
            goto done;
        }
        cols[j].n = alea_dist_count(cols[j].d);
        total += cols[j].n;
        if ((int64_t)total > support) {
            fprintf(stderr, "alea: compare: the columns have more than %" PRId64 " outcomes in "
                            "all (support limit, for the whole table); compare fewer "
                            "expressions, or raise --max-support\n", support);
            rc = EXIT_FAIL;
            goto done;
        }
        if (!cumulate(cols[j].d, &cols[j].least, &cols[j].most)) {
            rc = out_of_memory();
            goto done;
        }
    }

    /* the distances between the columns, within the work they left */
    const alea_dist **dists = malloc(ncols * sizeof *dists);
    if (!dists) {
        rc = out_of_memory();
        goto done;
    }
    for (size_t j = 0; j < ncols; j++)
        dists[j] = cols[j].d;
    alea_status vst = o->csv && !o->json ? ALEA_OK /* the CSV is the rows alone */
                      : versus_compute(ctx, dists, ncols, o->pairs, work - spent, &rows, &nrows);
    free(dists);
    if (vst == ALEA_ERR_NOMEM) {
        rc = out_of_memory();
        goto done;
    } else if (vst == ALEA_ERR_LIMIT) {
        fprintf(stderr, "alea: compare: the columns and the distances between them need more "
                        "work in all than the work limit (%" PRId64 ") allows; compare fewer "
                        "expressions, or raise --max-work\n", work);
        rc = EXIT_FAIL;
        goto done;
    } else if (vst != ALEA_OK) {
        rc = report_limit(ctx, NULL, 0);
        goto done;
    }

    if (o->svg) {
        const alea_dist **ds = malloc(ncols * sizeof *ds);
        const char **labels = malloc(ncols * sizeof *labels);
        if (!ds || !labels) {
            rc = out_of_memory();
        } else {
            for (size_t j = 0; j < ncols; j++) {
                ds[j] = cols[j].d;
                labels[j] = o->names && o->names[j][0] ? o->names[j] : NULL;
            }
            rc = svg_dists(ctx, o, ds, labels, ncols, o->exprs[0]);
        }
        free(ds);
        free(labels);
        if (rc != EXIT_OK || svg_to_stdout(o))
            goto done;
    }
    if (o->json) {
        rc = compare_json(ctx, cols, ncols, o, rows, nrows);
    } else {
        rc = compare_table(ctx, cols, ncols, total, o);
        if (rc == EXIT_OK && !o->csv)
            versus_text(rows, nrows, cols);
    }

done:
    versus_free(rows, nrows);
    for (size_t j = 0; j < ncols; j++) {
        alea_dist_free(cols[j].d);
        free(cols[j].least);
        free(cols[j].most);
    }
    free(cols);
    return rc;
}
