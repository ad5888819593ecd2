/* The C example of the README, built and run by the tests (it must print
 * what the README says it prints). */
#include <alea.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);   /* your allocator, or malloc */
    alea_expr *e;
    const char *src = "4d6kh3";
    if (alea_expr_compile(ctx, src, strlen(src), &e) != ALEA_OK) {
        size_t at;
        alea_ctx_error_span(ctx, &at, NULL);
        fprintf(stderr, "%s (byte %zu)\n", alea_ctx_error(ctx), at);
        return 1;
    }
    alea_roll *r = alea_roll_new(ctx);           /* reused by every roll */
    alea_ctx_seed(ctx, 7);
    if (alea_expr_roll(ctx, e, r) == ALEA_OK) {
        char line[256];
        alea_roll_format(r, ALEA_FORMAT_TEXT, line, sizeof line);
        puts(line);                              /* 4d6kh3 [5, 2 dropped, 6, 6] = 17 */
    }
    alea_dist *d;
    if (alea_expr_dist(ctx, e, &d) == ALEA_OK) {
        printf("mean %.4f, P(18) = %.4f\n", alea_dist_mean(d), alea_dist_p(d, 18));
        alea_dist_free(d);                       /* mean 12.2446, P(18) = 0.0162 */
    }
    alea_roll_free(r);
    alea_expr_free(e);
    alea_ctx_free(ctx);
    return 0;
}
