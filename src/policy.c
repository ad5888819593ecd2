/*
 * policy.c -- the player's decisions (alea_policy_new): what a mechanic
 * with a choice (mech.h's policy operation: reroll, dd with a goal, event
 * with a goal) reports through policy.h, kept for the hosts and written as
 * JSON or CSV. The mechanic computes; this file only keeps and writes.
 */
#include <string.h>

#include "ast.h"
#include "exact.h"
#include "fractions/frac.h"
#include "out.h"
#include "policy.h"

/* One situation. Its three texts live in one block of size bytes:
 * seen, choice and the value's fraction (empty: none), each NUL-ended. */
typedef struct prow {
    char *text;
    size_t size;
    const char *choice, *value_text;
    double prob, value, plain;
} prow;

struct alea_policy {
    alea_ctx *ctx;
    char *src; /* the expression, NUL-terminated */
    size_t len;
    char *goal; /* owned, or NULL until the mechanic names it */
    size_t goal_size;
    int is_prob;
    double value, optimum;
    char *value_text, *optimum_text; /* owned, or NULL */
    size_t value_size, optimum_size;
    int has_optimum;
    prow *rows;
    size_t n, cap;
};

/* An owned copy of s (NULL: none). */
static char *copy_text(alea_ctx *ctx, const char *s, size_t *size)
{
    *size = strlen(s) + 1;
    char *c = alea__mem_alloc(ctx, *size);
    if (c)
        memcpy(c, s, *size);
    return c;
}

alea_status alea__policy_goal(alea_policy *p, const char *goal, int is_prob)
{
    char *g = copy_text(p->ctx, goal, &p->goal_size);
    if (!g)
        return alea__nomem(p->ctx);
    p->goal = g;
    p->is_prob = is_prob != 0;
    return ALEA_OK;
}

/* A value and its owned fraction (text NULL: none). */
static alea_status set_value(alea_ctx *ctx, double *v, char **t, size_t *size, double value,
                             const char *text)
{
    *v = value;
    if (text && !(*t = copy_text(ctx, text, size)))
        return alea__nomem(ctx);
    return ALEA_OK;
}

alea_status alea__policy_total(alea_policy *p, double value, const char *text)
{
    return set_value(p->ctx, &p->value, &p->value_text, &p->value_size, value, text);
}

alea_status alea__policy_optimum(alea_policy *p, double value, const char *text)
{
    p->has_optimum = 1;
    return set_value(p->ctx, &p->optimum, &p->optimum_text, &p->optimum_size, value, text);
}

alea_status alea__policy_row(alea_policy *p, const char *seen, const char *choice, double prob,
                             double value, double plain, const char *value_text)
{
    alea_ctx *ctx = p->ctx;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        size_t bytes = alea__mul_size(cap, sizeof *p->rows);
        prow *r = bytes ? alea__mem_realloc(ctx, p->rows, p->cap * sizeof *p->rows, bytes)
                        : NULL;
        if (!r)
            return alea__nomem(ctx);
        p->rows = r;
        p->cap = cap;
    }
    size_t ls = strlen(seen), lc = strlen(choice), lv = value_text ? strlen(value_text) : 0;
    prow *r = &p->rows[p->n];
    r->size = ls + lc + lv + 3;
    if (!(r->text = alea__mem_alloc(ctx, r->size)))
        return alea__nomem(ctx);
    memcpy(r->text, seen, ls + 1);
    memcpy(r->text + ls + 1, choice, lc + 1);
    memcpy(r->text + ls + lc + 2, value_text ? value_text : "", lv + 1);
    r->choice = r->text + ls + 1;
    r->value_text = value_text ? r->text + ls + lc + 2 : NULL;
    r->prob = prob;
    r->value = value;
    r->plain = plain;
    p->n++;
    return ALEA_OK;
}

void alea_policy_free(alea_policy *p)
{
    if (!p)
        return;
    alea_ctx *ctx = p->ctx;
    for (size_t i = 0; i < p->n; i++)
        alea__mem_free(ctx, p->rows[i].text, p->rows[i].size);
    if (p->rows)
        alea__mem_free(ctx, p->rows, p->cap * sizeof *p->rows);
    if (p->goal)
        alea__mem_free(ctx, p->goal, p->goal_size);
    if (p->value_text)
        alea__mem_free(ctx, p->value_text, p->value_size);
    if (p->optimum_text)
        alea__mem_free(ctx, p->optimum_text, p->optimum_size);
    alea__mem_free(ctx, p->src, p->len + 1);
    alea__mem_free(ctx, p, sizeof *p);
}

alea_status alea_policy_new(alea_ctx *ctx, const alea_expr *e, alea_policy **out)
{
    if (!ctx)
        return ALEA_ERR_ARGUMENT;
    alea__budget_start(ctx);
    if (!e || e->ctx != ctx || !out)
        return alea__error(ctx, ALEA_ERR_ARGUMENT, 0, 0,
                           "alea_policy_new: NULL argument or an expression of another "
                           "context");
    alea_policy *p = alea__mem_alloc(ctx, sizeof *p);
    if (!p)
        return alea__nomem(ctx);
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->len = e->len;
    if (!(p->src = alea__mem_alloc(ctx, e->len + 1))) {
        alea__mem_free(ctx, p, sizeof *p);
        return alea__nomem(ctx);
    }
    memcpy(p->src, e->src, e->len);
    p->src[e->len] = '\0';
    alea_status st = alea__exact_policy(ctx, e, p);
    if (st == ALEA_OK && !p->goal)
        st = alea__policy_goal(p, "the mean", 0); /* a mechanic that named none */
    if (ctx->exact)
        alea__frac_release(ctx);
    if (st != ALEA_OK) {
        alea_policy_free(p);
        return st;
    }
    *out = p;
    return ALEA_OK;
}

const char *alea_policy_goal(const alea_policy *p)
{
    return p ? p->goal : NULL;
}

int alea_policy_is_prob(const alea_policy *p)
{
    return p ? p->is_prob : 0;
}

double alea_policy_value(const alea_policy *p)
{
    return p ? p->value : 0;
}

const char *alea_policy_value_text(const alea_policy *p)
{
    return p ? p->value_text : NULL;
}

double alea_policy_optimum(const alea_policy *p)
{
    return !p ? 0 : p->has_optimum ? p->optimum : p->value;
}

const char *alea_policy_optimum_text(const alea_policy *p)
{
    return !p ? NULL : p->has_optimum ? p->optimum_text : p->value_text;
}

size_t alea_policy_rows(const alea_policy *p)
{
    return p ? p->n : 0;
}

static const prow *row_at(const alea_policy *p, size_t i)
{
    return p && i < p->n ? &p->rows[i] : NULL;
}

const char *alea_policy_seen(const alea_policy *p, size_t i)
{
    const prow *r = row_at(p, i);
    return r ? r->text : NULL;
}

const char *alea_policy_choice(const alea_policy *p, size_t i)
{
    const prow *r = row_at(p, i);
    return r ? r->choice : NULL;
}

double alea_policy_prob(const alea_policy *p, size_t i)
{
    const prow *r = row_at(p, i);
    return r ? r->prob : 0;
}

double alea_policy_row_value(const alea_policy *p, size_t i)
{
    const prow *r = row_at(p, i);
    return r ? r->value : 0;
}

const char *alea_policy_row_value_text(const alea_policy *p, size_t i)
{
    const prow *r = row_at(p, i);
    return r ? r->value_text : NULL;
}

double alea_policy_row_plain(const alea_policy *p, size_t i)
{
    const prow *r = row_at(p, i);
    return r ? r->plain : 0;
}

/* ---- writing ------------------------------------------------------------ */

/* A value: its fraction as a JSON string (or a bare CSV field), else the
 * double. */
static void put_value(alea__out *o, int json, double v, const char *text)
{
    if (!text)
        alea__out_double(o, v);
    else if (json)
        alea__out_json_str(o, text, strlen(text));
    else
        alea__out_str(o, text);
}

/* A CSV field, quoted (the texts are a mechanic's words and numbers, but
 * quoting keeps any comma in its field). */
static void csv_field(alea__out *o, const char *s)
{
    alea__out_char(o, '"');
    for (; *s; s++) {
        if (*s == '"')
            alea__out_char(o, '"');
        alea__out_char(o, *s);
    }
    alea__out_char(o, '"');
}

static void format_json(const alea_policy *p, alea__out *o)
{
    alea__out_str(o, "{\"expression\": ");
    alea__out_json_str(o, p->src, p->len);
    alea__out_str(o, ", \"goal\": ");
    alea__out_json_str(o, p->goal, strlen(p->goal));
    alea__out_str(o, p->is_prob ? ", \"probability\": true" : ", \"probability\": false");
    alea__out_str(o, ", \"value\": ");
    put_value(o, 1, p->value, p->value_text);
    alea__out_str(o, ", \"optimum\": ");
    put_value(o, 1, alea_policy_optimum(p), alea_policy_optimum_text(p));
    alea__out_str(o, ", \"rows\": [");
    for (size_t i = 0; i < p->n && o->len <= o->limit; i++) {
        const prow *r = &p->rows[i];
        alea__out_str(o, i ? ", {\"seen\": " : "{\"seen\": ");
        alea__out_json_str(o, r->text, strlen(r->text));
        alea__out_str(o, ", \"choice\": ");
        alea__out_json_str(o, r->choice, strlen(r->choice));
        alea__out_str(o, ", \"chance\": ");
        alea__out_double(o, r->prob);
        alea__out_str(o, ", \"value\": ");
        put_value(o, 1, r->value, r->value_text);
        alea__out_str(o, ", \"plain\": ");
        alea__out_double(o, r->plain);
        alea__out_char(o, '}');
    }
    alea__out_str(o, "]}");
}

static void format_csv(const alea_policy *p, alea__out *o)
{
    alea__out_str(o, "seen,choice,chance,value,plain\n");
    for (size_t i = 0; i < p->n && o->len <= o->limit; i++) {
        const prow *r = &p->rows[i];
        csv_field(o, r->text);
        alea__out_char(o, ',');
        csv_field(o, r->choice);
        alea__out_char(o, ',');
        alea__out_double(o, r->prob);
        alea__out_char(o, ',');
        put_value(o, 0, r->value, r->value_text);
        alea__out_char(o, ',');
        alea__out_double(o, r->plain);
        alea__out_char(o, '\n');
    }
}

size_t alea_policy_format(const alea_policy *p, alea_format format, char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (!p || !alea__out_init_format(&o, buf, cap, p->ctx, format))
        return alea__out_finish(&o);
    if (format == ALEA_FORMAT_CSV)
        format_csv(p, &o);
    else
        format_json(p, &o);
    return alea__out_format_end(&o, p->ctx, format, "policy", p->len);
}
