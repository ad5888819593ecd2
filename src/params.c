/*
 * params.c -- parameters: names an expression is compiled with and given
 * values at each evaluation (alea_expr_compile_with, alea_expr_dist_at),
 * the slots 0 to n - 1 of its environment (env.h), bound before the
 * evaluation starts as a certain "let" value is.
 */
#include <string.h>

#include "alea.h"
#include "ast.h"
#include "core.h"
#include "dialect.h"
#include "lex.h"
#include "mech.h"

/* Whether byte c can be part of a name. */
static int name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* A parameter's name reads as one name token, as a "let" name must; else
 * the "let" name's error, naming the parameter. */
static alea_status check_name(alea_ctx *ctx, const char *name)
{
    size_t n = strlen(name);
    int shown = (int)(n > 24 ? 24 : n);
    int ok = n > 0 && !(name[0] >= '0' && name[0] <= '9');
    for (size_t i = 0; ok && i < n; i++)
        ok = name_byte(name[i]);
    if (!ok)
        return alea__error(ctx, ALEA_ERR_SYNTAX, 0, 0,
                           "parameter '%.*s' is not a name (letters, digits and '_', starting "
                           "with a letter)",
                           shown, name);
    token_list toks;
    alea_status st = alea__lex_names(ctx, name, n, ctx->lang->is_word, &toks);
    if (st != ALEA_OK)
        return st;
    int kind = toks.n == 2 && toks.v[0].end == n ? toks.v[0].kind : -1;
    alea__mem_free(ctx, toks.v, alea__mul_size(toks.cap, sizeof(token)));
    if (kind == T_IDENT)
        return ALEA_OK;
    if (kind == T_NAME)
        return alea__error(ctx, ALEA_ERR_SYNTAX, 0, 0,
                           "parameter '%.*s' is a word of the language, not a name: choose "
                           "another name",
                           shown, name);
    return alea__error(ctx, ALEA_ERR_SYNTAX, 0, 0,
                       "parameter '%.*s' reads as dice, not a name: choose another name", shown,
                       name);
}

alea_status alea_expr_compile_with(alea_ctx *ctx, const char *src, size_t len,
                                   const char *const *names, size_t nnames, alea_expr **out)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__budget_start(ctx);
    if (nnames && !names)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0, "alea_expr_compile_with: NULL names");
    if (nnames > ALEA_PARAMS_MAX)
        return alea__error(ctx, ALEA_ERR_LIMIT, 0, 0,
                           "too many parameters: %zu (at most %d)", nnames, ALEA_PARAMS_MAX);
    if (nnames && !alea__dialects[ctx->dialect].names)
        return alea__error(ctx, ALEA_ERR_INVALID, 0, 0,
                           "parameters are names, which the %s dialect does not have",
                           alea_dialect_name(alea_ctx_dialect(ctx)));
    for (size_t i = 0; i < nnames; i++) {
        if (!names[i])
            return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                               "alea_expr_compile_with: NULL name %zu", i);
        alea_status st = check_name(ctx, names[i]);
        if (st != ALEA_OK)
            return st;
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0)
                return alea__error(ctx, ALEA_ERR_SYNTAX, 0, 0,
                                   "parameter '%.24s' is given twice", names[i]);
    }
    return alea__expr_compile(ctx, src, len, names, nnames, out);
}

size_t alea_expr_param_count(const alea_expr *expr)
{
    return expr ? expr->nparams : 0;
}

const char *alea_expr_param_name(const alea_expr *expr, size_t i)
{
    return expr && i < expr->nparams ? expr->params[i].name : NULL;
}

int alea_expr_param_used(const alea_expr *expr, size_t i)
{
    return expr && i < expr->nparams && (expr->params_used >> i & 1);
}

/* What an evaluation at values computes: alea_expr_dist, _roll or _sample. */
enum { AT_DIST, AT_ROLL, AT_SAMPLE };

/* Evaluates expr with its parameters bound to values[0..nvalues), which
 * must be as many (fn names the caller in the error). */
static alea_status eval_at(alea_ctx *ctx, const alea_expr *expr, const int64_t *values,
                           size_t nvalues, const char *fn, int what, void *out)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__budget_start(ctx);
    if (!expr || nvalues != expr->nparams || (nvalues && !values))
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "%s: %zu values for %zu parameters", fn, values ? nvalues : 0,
                           expr ? (size_t)expr->nparams : 0);
    ctx->params = values;
    alea_status st = what == AT_DIST   ? alea_expr_dist(ctx, expr, out)
                     : what == AT_ROLL ? alea_expr_roll(ctx, expr, out)
                                       : alea_expr_sample(ctx, expr, out);
    ctx->params = NULL;
    return st;
}

alea_status alea_expr_dist_at(alea_ctx *ctx, const alea_expr *expr, const int64_t *values,
                              size_t nvalues, alea_dist **out)
{
    return eval_at(ctx, expr, values, nvalues, "alea_expr_dist_at", AT_DIST, out);
}

alea_status alea_expr_roll_at(alea_ctx *ctx, const alea_expr *expr, const int64_t *values,
                              size_t nvalues, alea_roll *roll)
{
    return eval_at(ctx, expr, values, nvalues, "alea_expr_roll_at", AT_ROLL, roll);
}

alea_status alea_expr_sample_at(alea_ctx *ctx, const alea_expr *expr, const int64_t *values,
                                size_t nvalues, int64_t *total)
{
    return eval_at(ctx, expr, values, nvalues, "alea_expr_sample_at", AT_SAMPLE, total);
}
