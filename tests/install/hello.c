/* hello.c -- a program built against an installed alea (tests/install/run.sh):
 * prints the version, a seeded roll, and the mean of 3d6. */
#include <alea.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    alea_expr *e;
    alea_roll *r;
    alea_dist *d;
    if (!ctx || alea_expr_compile(ctx, "3d6", 3, &e) != ALEA_OK)
        return 1;
    r = alea_roll_new(ctx);
    alea_ctx_seed(ctx, 7);
    if (!r || alea_expr_roll(ctx, e, r) != ALEA_OK || alea_expr_dist(ctx, e, &d) != ALEA_OK)
        return 1;
    char line[128];
    alea_roll_format(r, ALEA_FORMAT_TEXT, line, sizeof line);
    printf("alea %s (%d.%d.%d): %s, mean %g\n", alea_version(), ALEA_VERSION_MAJOR,
           ALEA_VERSION_MINOR, ALEA_VERSION_PATCH, line, alea_dist_mean(d));
    alea_dist_free(d);
    alea_roll_free(r);
    alea_expr_free(e);
    alea_ctx_free(ctx);
    return strcmp(alea_version(), ALEA_VERSION_STRING) != 0;
}
