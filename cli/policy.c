/*
 * policy.c -- alea policy: the player's best choice in every situation of
 * an expression's first choice point (reroll(5d6, 1, >= 20); dd(6, 14,
 * success)). The library computes the decisions (alea_policy_new); this
 * file prints them: a line per situation, the choice named once for the
 * situations in a row that share it; --json and --csv are the library's
 * alea_policy_format.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A value of the goal: its fraction in exact mode, else a percentage for a
 * probability, two decimals for a mean. */
static void put_value(const alea_policy *p, double v, const char *text, char *buf, size_t cap)
{
    if (text)
        snprintf(buf, cap, "%s", text);
    else if (alea_policy_is_prob(p))
        snprintf(buf, cap, "%.2f%%", 100 * v);
    else
        snprintf(buf, cap, "%.2f", v);
}

/* The widest of a column's texts, at least its heading's. */
static int width(const alea_policy *p, const char *(*at)(const alea_policy *, size_t),
                 const char *head)
{
    size_t w = strlen(head);
    for (size_t i = 0; i < alea_policy_rows(p); i++)
        if (strlen(at(p, i)) > w)
            w = strlen(at(p, i));
    return (int)w;
}

/* Writes to f, or with f NULL only counts: the bytes written. */
static size_t put(FILE *f, const char *fmt, ...) PRINTF_LIKE(2, 3);
static size_t put(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = f ? vfprintf(f, fmt, ap) : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    return n > 0 ? (size_t)n : 0;
}

/* The text to f, or with f NULL its length (the output limit bounds it). */
static size_t print_text(FILE *f, const char *src, const alea_policy *p)
{
    size_t len = 0;
    char v[64], plain[64], seen_p[32];
    put_value(p, alea_policy_value(p), alea_policy_value_text(p), v, sizeof v);
    len += put(f, "%s: %s\n", src, alea_policy_goal(p));
    if (alea_policy_value(p) == alea_policy_optimum(p)) {
        len += put(f, "with the best choices: %s\n\n", v);
    } else {
        char best[64];
        put_value(p, alea_policy_optimum(p), alea_policy_optimum_text(p), best, sizeof best);
        len += put(f, "with these choices: %s; with the best choices: %s\n\n", v, best);
    }
    const char *vhead = alea_policy_is_prob(p) ? "chance" : "mean";
    int ws = width(p, alea_policy_seen, "seen"), wc = width(p, alea_policy_choice, "choice");
    int wv = (int)strlen(vhead);
    for (size_t i = 0; i < alea_policy_rows(p); i++) {
        put_value(p, alea_policy_row_value(p, i), alea_policy_row_value_text(p, i), v, sizeof v);
        if ((int)strlen(v) > wv)
            wv = (int)strlen(v);
    }
    len += put(f, "%-*s  %-*s  %8s  %*s  %s\n", ws, "seen", wc, "choice", "how often", wv,
               vhead, "as it stands");
    for (size_t i = 0; i < alea_policy_rows(p); i++) {
        const char *choice = alea_policy_choice(p, i);
        /* the situations in a row that share a choice name it once */
        int same = i > 0 && !strcmp(choice, alea_policy_choice(p, i - 1));
        put_value(p, alea_policy_row_value(p, i), alea_policy_row_value_text(p, i), v, sizeof v);
        put_value(p, alea_policy_row_plain(p, i), NULL, plain, sizeof plain);
        snprintf(seen_p, sizeof seen_p, "%.2f%%", 100 * alea_policy_prob(p, i));
        len += put(f, "%-*s  %-*s  %9s  %*s  %s\n", ws, alea_policy_seen(p, i), wc,
                   same ? "" : choice, seen_p, wv, v, plain);
    }
    return len;
}

static size_t format_policy(const void *obj, alea_format f, char *buf, size_t cap)
{
    return alea_policy_format(obj, f, buf, cap);
}

int cmd_policy(alea_ctx *ctx, const options *o, alea_expr **ex)
{
    if (o->nexprs != 1)
        return usage_error(CMD_POLICY, 1, "policy takes one expression (quote it if it has "
                                          "spaces), as in alea policy 'reroll(5d6, 1, >= 20)'");
    alea_policy *p = NULL;
    alea_status s = alea_policy_new(ctx, ex[0], &p);
    if (s != ALEA_OK) /* a limit's error says which option raises it */
        return report_limit(ctx, o->exprs[0], 0);
    int rc = EXIT_OK;
    if (o->json || o->csv)
        rc = print_formatted(ctx, format_policy, p, o->json ? ALEA_FORMAT_JSON : ALEA_FORMAT_CSV);
    else if ((double)print_text(NULL, o->exprs[0], p) >
             (double)alea_ctx_limit(ctx, ALEA_LIMIT_OUTPUT, -1)) /* counted first */
        rc = report_output_limit(ctx, o->exprs[0], "policy's table");
    else
        print_text(stdout, o->exprs[0], p);
    alea_policy_free(p);
    return rc;
}
