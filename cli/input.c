/*
 * input.c -- roll and dist with no EXPR and standard input not a terminal:
 * one expression per line, each answered (and flushed) before the next is
 * read, so that another program can keep alea running as a service.
 */
#define _POSIX_C_SOURCE 200809L /* read, ssize_t */

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* read */

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Standard input, read with read(2) in blocks: read returns what has
 * arrived, so a line is answered as soon as it comes, even from a program
 * that waits for the answer before it writes the next one (stdio's fread
 * would wait for a whole block).
 */
typedef struct input {
    size_t pos, end;
    int eof, err; /* end of input; errno of a read error */
    int cr;       /* the last line ended with '\r': a '\n' next is its end too */
    char buf[1 << 16];
} input;

static int input_fill(input *in)
{
    for (;;) {
        ssize_t n = read(STDIN_FILENO, in->buf, sizeof in->buf);
        if (n > 0) {
            in->pos = 0;
            in->end = (size_t)n;
            return 1;
        }
        if (n == 0) {
            in->eof = 1;
            return 0;
        }
        if (errno != EINTR) {
            in->err = errno;
            return 0;
        }
    }
}

/*
 * Reads one line: its first bytes, at most keep, into line (which has room
 * for keep + 1: it is NUL-terminated), their count in *kept, and the line's
 * whole length in *full, both without the line end ("\n", "\r\n" or a lone
 * "\r", as a file from an old Mac or a terminal in raw mode ends its lines).
 * *blank tells whether the line is only whitespace. Returns 0 at the end of
 * the input. Bytes past keep are read and dropped, so a line of any length
 * costs keep bytes.
 */
static int read_line(input *in, char *line, size_t keep, size_t *kept, size_t *full,
                     int *blank)
{
    size_t n = 0, total = 0;
    int any = 0;
    *blank = 1;
    if (in->cr) { /* the "\n" of a "\r\n", perhaps in the next block */
        if (in->pos < in->end || (!in->eof && !in->err && input_fill(in)))
            in->pos += in->buf[in->pos] == '\n';
        in->cr = 0;
    }
    for (;;) {
        if (in->pos == in->end && (in->eof || in->err || !input_fill(in)))
            break;
        any = 1;
        const char *p = in->buf + in->pos;
        size_t avail = in->end - in->pos;
        const char *nl = memchr(p, '\n', avail), *cr = memchr(p, '\r', avail);
        if (cr && (!nl || cr < nl)) {
            nl = cr;
            in->cr = 1;
        }
        size_t take = nl ? (size_t)(nl - p) : avail;
        size_t copy = take < keep - n ? take : keep - n;
        memcpy(line + n, p, copy);
        n += copy;
        for (size_t i = 0; i < take && *blank; i++)
            if (!is_blank((unsigned char)p[i]))
                *blank = 0;
        total += take;
        in->pos += take + (nl != NULL);
        if (nl)
            break;
    }
    if (!any)
        return 0;
    line[n] = '\0';
    *kept = n;
    *full = total;
    return 1;
}

/* A line longer than the source limit, of which kept bytes were read: the
 * library's message, with the caret under the first byte past the limit. */
static int report_too_long(const char *line, size_t kept, size_t full, int64_t limit)
{
    fprintf(stderr, "alea: expression too long: %zu bytes (source limit is %" PRId64 ")\n",
            full, limit);
    put_excerpt(line, kept, (size_t)limit, kept);
    return EXIT_FAIL;
}

/*
 * roll and dist with no EXPR and standard input not a terminal: each line
 * is an expression, evaluated as an argument would be (blank lines are
 * skipped). A bad line is reported on stderr and does not stop the others;
 * the result is EXIT_FAIL if any line failed. Each line's output is written
 * whole and flushed before the next line is read, so a program can keep
 * alea running and write one expression at a time. A line is read into at
 * most source limit + 1 bytes: a longer one gets the limit error.
 */
int cmd_lines(alea_ctx *ctx, const options *o, command cmd, int has_cmd)
{
    int64_t limit = alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, -1);
    size_t keep = (size_t)limit + 1, kept, full;
    char *line = malloc(keep + 1);
    input *in = calloc(1, sizeof *in);
    alea_roll *roll = cmd == CMD_ROLL ? alea_roll_new(ctx) : NULL;
    buffer b = {NULL, 0};
    int rc = EXIT_OK, lines = 0, printed = 0, blank;

    if (!line || !in || (cmd == CMD_ROLL && !roll)) {
        free(line);
        free(in);
        alea_roll_free(roll);
        return out_of_memory();
    }
    while (read_line(in, line, keep, &kept, &full, &blank)) {
        if (blank)
            continue;
        lines++;
        command_arm(o->timer); /* each line is a command of its own */
        alea_expr *e = NULL;
        int r;
        if (full > (size_t)limit) {
            r = report_too_long(line, kept, full, limit);
        } else if (alea_expr_compile(ctx, line, kept, &e) != ALEA_OK) {
            r = report_len(ctx, line, kept);
        } else if (report_hint(e), cmd == CMD_ROLL) {
            r = roll_one(ctx, o, e, line, roll, &b);
        } else {
            if (printed && !o->json)
                putchar('\n'); /* a blank line between tables */
            r = dist_one(ctx, o, e, line, &b);
            printed |= r == EXIT_OK;
        }
        alea_expr_free(e);
        if (r != EXIT_OK)
            rc = EXIT_FAIL;
        if (fflush(stdout) != 0 || ferror(stdout))
            break; /* a closed pipe: main reports */
    }
    if (in->err) {
        fprintf(stderr, "alea: error reading standard input: %s\n", strerror(in->err));
        rc = EXIT_FAIL;
    } else if (lines == 0 && !ferror(stdout)) {
        rc = usage_error(cmd, has_cmd, "missing expression");
    }
    alea_roll_free(roll);
    free(b.p);
    free(in);
    free(line);
    return rc;
}
