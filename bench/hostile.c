/*
 * hostile.c -- one hostile input through the C API, measured in-process:
 * the measuring half of scripts/hostile (which holds the inputs and prints
 * the table of docs/security.md).
 *
 *   alea_hostile [LIMIT=VALUE | tail=P | timeout=MS | exact=1]... FILE
 *
 * FILE holds the expression's bytes, exactly (no line end is stripped).
 * LIMIT is a limit's name (source, dice, work, ...); exact=1 computes the
 * distribution in exact fractions (alea_ctx_set_exact); timeout installs an
 * interrupt hook that stops each step after MS milliseconds, as a host
 * would. In a fresh context with
 * the default allocator: compile, then one seeded roll (seed 1), then the
 * exact distribution, each timed in CPU time. Prints one line
 * of JSON:
 *
 *   {"compile": R, "roll": R, "dist": R, "peak": BYTES}
 *   R = {"status": "ALEA_...", "ms": T, "message": "...", "span": [a, b],
 *        "result": "..."}
 *
 * "result" is the roll's total or the number of outcomes; "peak" is the
 * most the context ever held through its allocator (alea_ctx_memory).
 * roll and dist are null when the compile failed. Exit status 0 when every
 * step ended with a result or a clear error (a status, a message, a span
 * inside the source), 1 otherwise, 2 for bad usage.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <alea.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The process's CPU time: what a step cost, whatever else the machine ran
 * meanwhile (the deadline of timeout=MS stays on the monotonic clock, as a
 * host's would). */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The input file, whole. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return buf;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* Prints one step's record; returns whether it ended clearly. */
static int step(const alea_ctx *ctx, alea_status st, double ms, size_t len, const char *result)
{
    size_t a = 0, b = 0;
    alea_ctx_error_span(ctx, &a, &b);
    const char *msg = st == ALEA_OK ? "" : alea_ctx_error(ctx);
    int clear = st == ALEA_OK || (st != ALEA_ERR_ARGUMENT && st < ALEA_STATUS__COUNT &&
                                  msg[0] != '\0' && a <= b && b <= len);
    printf("{\"status\": \"%s\", \"ms\": %.3f, \"message\": ", alea_status_name(st), ms);
    json_string(msg);
    printf(", \"span\": [%zu, %zu], \"result\": ", a, b);
    json_string(result);
    putchar('}');
    return clear;
}

/* The deadline of the step under way (timeout=MS), in now_ms() time. */
typedef struct deadline {
    double ms, at;
} deadline;

static int past(void *ud)
{
    const deadline *d = ud;
    return now_ms() >= d->at;
}

/* LIMIT=VALUE, tail=P, timeout=MS or exact=1. */
static int apply(alea_ctx *ctx, const char *arg, deadline *dl)
{
    const char *eq = strchr(arg, '=');
    if (!eq)
        return 0;
    size_t n = (size_t)(eq - arg);
    if (n == 4 && !strncmp(arg, "tail", 4))
        return alea_ctx_set_tail(ctx, strtod(eq + 1, NULL)) == ALEA_OK;
    if (n == 5 && !strncmp(arg, "exact", 5))
        return alea_ctx_set_exact(ctx, atoi(eq + 1)) == ALEA_OK;
    if (n == 7 && !strncmp(arg, "timeout", 7)) {
        dl->ms = strtod(eq + 1, NULL);
        alea_ctx_set_interrupt(ctx, past, dl);
        return dl->ms > 0;
    }
    for (int l = 0; l < ALEA_LIMIT__COUNT; l++) {
        const char *name = alea_limit_name((alea_limit)l);
        if (strlen(name) == n && !strncmp(arg, name, n)) {
            alea_ctx_limit(ctx, (alea_limit)l, strtoll(eq + 1, NULL, 10));
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: alea_hostile [LIMIT=VALUE | tail=P | timeout=MS | exact=1]... "
                        "FILE\n");
        return 2;
    }
    size_t len = 0;
    char *src = slurp(argv[argc - 1], &len);
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    if (!src || !ctx) {
        fprintf(stderr, "alea_hostile: cannot read %s\n", argv[argc - 1]);
        return 2;
    }
    deadline dl = {0, 0};
    for (int i = 1; i < argc - 1; i++)
        if (!apply(ctx, argv[i], &dl)) {
            fprintf(stderr, "alea_hostile: bad setting '%s'\n", argv[i]);
            return 2;
        }
    alea_ctx_seed(ctx, 1);

    char result[64] = "";
    int clear = 1;
    alea_expr *e = NULL;
    double t0 = cpu_ms();
    dl.at = now_ms() + dl.ms;
    alea_status st = alea_expr_compile(ctx, src, len, &e);
    double t1 = cpu_ms();
    printf("{\"compile\": ");
    clear &= step(ctx, st, t1 - t0, len, "");
    printf(", \"roll\": ");
    if (st == ALEA_OK) {
        alea_roll *r = alea_roll_new(ctx);
        t0 = cpu_ms();
        dl.at = now_ms() + dl.ms;
        st = r ? alea_expr_roll(ctx, e, r) : ALEA_ERR_NOMEM;
        t1 = cpu_ms();
        if (st == ALEA_OK)
            snprintf(result, sizeof result, "%" PRId64, alea_roll_total(r));
        clear &= step(ctx, st, t1 - t0, len, result);
        alea_roll_free(r);

        alea_dist *d = NULL;
        t0 = cpu_ms();
        dl.at = now_ms() + dl.ms;
        st = alea_expr_dist(ctx, e, &d);
        t1 = cpu_ms();
        result[0] = '\0';
        if (st == ALEA_OK)
            snprintf(result, sizeof result, "%zu outcomes", alea_dist_count(d));
        printf(", \"dist\": ");
        clear &= step(ctx, st, t1 - t0, len, result);
        alea_dist_free(d);
    } else {
        printf("null, \"dist\": null");
    }
    alea_expr_free(e);
    size_t peak = 0;
    alea_ctx_memory(ctx, &peak);
    printf(", \"peak\": %zu}\n", peak);
    alea_ctx_free(ctx);
    free(src);
    return clear ? 0 : 1;
}
