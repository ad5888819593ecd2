/*
 * svg.c -- --svg FILE of dist, compare and table: the library's chart
 * (alea_svg_dists, alea_table_svg) formatted whole, then written to the
 * file, or to standard output for '-'.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int svg_to_stdout(const options *o)
{
    return o->svg && !strcmp(o->svg, "-");
}

/* Writes the len bytes of text to o->svg: the whole picture or, on an
 * error, a message naming the file. */
static int save(const options *o, const char *text, size_t len)
{
    if (svg_to_stdout(o)) {
        fwrite(text, 1, len, stdout);
        return EXIT_OK;
    }
    FILE *f = fopen(o->svg, "wb");
    int ok = f && fwrite(text, 1, len, f) == len;
    int err = errno;
    if (f && fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        fprintf(stderr, "alea: --svg: cannot write '%s': %s\n", o->svg, strerror(err));
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

int svg_dists(alea_ctx *ctx, const options *o, const alea_dist *const *ds,
              const char *const *labels, size_t n, const char *src)
{
    size_t len = alea_svg_dists(ds, labels, n, NULL, 0);
    if (len == 0)
        return report_output_limit(ctx, src, "SVG");
    char *p = malloc(len + 1);
    if (!p)
        return out_of_memory();
    alea_svg_dists(ds, labels, n, p, len + 1);
    int rc = save(o, p, len);
    free(p);
    return rc;
}

int svg_table(alea_ctx *ctx, const options *o, const alea_table *t, const char *src)
{
    size_t len = alea_table_svg(t, 0, NULL, 0);
    if (len == 0)
        return alea_ctx_error_span(ctx, NULL, NULL) == ALEA_ERR_NOMEM
                   ? out_of_memory()
                   : report_output_limit(ctx, src, "SVG");
    char *p = malloc(len + 1);
    if (!p)
        return out_of_memory();
    alea_table_svg(t, 0, p, len + 1);
    int rc = save(o, p, len);
    free(p);
    return rc;
}
