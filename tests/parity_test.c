/*
 * parity_test.c -- Foundry VTT's "even" and "odd" counts against every
 * face combination: each pool below is enumerated die by die (the odometer),
 * the kept dice counted by the parity of their faces, and the exact
 * engine's distribution compared outcome by outcome.
 */
#include "support.h"

TEST_HEAP_CONTEXT

#define MAXD 6

typedef struct rule {
    const char *expr;
    int dice, sides, keep_high; /* keep the keep_high highest (0: all) */
    int even;                   /* count even faces, else odd */
} rule;

static void check(const rule *r)
{
    double want[MAXD + 1] = {0};
    int digit[MAXD] = {0}, total = 0;
    do {
        int f[MAXD];
        for (int i = 0; i < r->dice; i++)
            f[i] = digit[i] + 1;
        qsort(f, (size_t)r->dice, sizeof *f, cmp_int);
        int from = r->keep_high ? r->dice - r->keep_high : 0, n = 0;
        for (int i = from; i < r->dice; i++)
            n += (f[i] % 2 == 0) == r->even;
        want[n] += 1;
        total++;
    } while (odometer_next_base(digit, r->dice, r->sides));

    alea_dist *d = dist_of(ctx, r->expr);
    double sum = 0;
    for (int v = 0; v <= MAXD; v++) {
        near_(alea_dist_p(d, v), want[v] / total, 1e-12, r->expr, __FILE__, __LINE__);
        sum += alea_dist_p(d, v);
    }
    near_(sum, 1, 1e-12, r->expr, __FILE__, __LINE__);
    alea_dist_free(d);
}

static void test_every_face(void **state)
{
    (void)state;
    static const rule rules[] = {
        {"4d4even", 4, 4, 0, 1},   {"4d4odd", 4, 4, 0, 0},   {"3d5even", 3, 5, 0, 1},
        {"3d5odd", 3, 5, 0, 0},    {"5d3odd", 5, 3, 0, 0},   {"4d6kh2even", 4, 6, 2, 1},
        {"4d5kh3odd", 4, 5, 3, 0}, {"5d4kh1even", 5, 4, 1, 1},
    };
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        check(&rules[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_face, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
