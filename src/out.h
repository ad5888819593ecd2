/*
 * out.h -- bounded text writer with the snprintf contract: writes at most
 * cap-1 bytes plus a NUL, and counts the full length. Never allocates.
 */
#ifndef ALEA_OUT_H
#define ALEA_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

typedef struct alea__out {
    char *buf;
    size_t cap;
    size_t len; /* full length written so far (may exceed cap) */
    size_t limit; /* a writer that loops stops once len passes it (the
                     OUTPUT limit; SIZE_MAX unless set) */
    int ansi;   /* colour escapes wanted (ALEA_FORMAT_ANSI) */
    int md;     /* Markdown: text written is escaped (alea__out_raw is not) */
    int json;   /* inside a JSON string: alea__out_text escapes '"' and '\\' */
    /* Set by the canonical printer when it wrote another tool's spelling
     * that alea's own dialect reads otherwise, as alea has none (a keep of
     * single rolls, "<>" on each die, a division of real numbers): what it
     * means, as a phrase for hints (parse.c). NULL: none. */
    const char *foreign;
    /* Numbers of an exact distribution whose digits are in buf already, so
     * that a denominator written again is copied, not converted again (the
     * 3,801 fractions of 200d20 have 88 denominators): frac.c's, valid
     * while zc_on. */
    int zc_on;
    struct alea__zcache {
        const void *z;   /* the number (an mpz of the distribution) */
        size_t at, len;  /* its digits: buf[at, at + len) */
    } zc[32];
} alea__out;

/* alea__out's foreign: "<>" after dice or a group, a condition on each. */
#define ALEA__FOREIGN_NE "'<>' a condition on each die, \"not equal\""

ALEA__HIDDEN void alea__out_init(alea__out *o, char *buf, size_t cap);
/* alea__out_init for a format of the public API (alea_dist_format,
 * alea_table_format): stops past ctx's OUTPUT limit, and 0 when format
 * is neither CSV nor JSON (the caller then writes nothing). */
ALEA__HIDDEN int alea__out_init_format(alea__out *o, char *buf, size_t cap,
                                       const alea_ctx *ctx, alea_format format);
/* Ends a text of a format of the public API (after alea__out_init_format):
 * its length, or past ctx's OUTPUT limit nothing of it (0, and "" in the
 * buffer) with the error "too much output: the OWNER's CSV passes N bytes
 * (output limit is N)" (JSON for format JSON) over [0, span). */
ALEA__HIDDEN size_t alea__out_format_end(alea__out *o, alea_ctx *ctx, alea_format format,
                                         const char *owner, size_t span);
/* Terminates the buffer; returns the full length. */
ALEA__HIDDEN size_t alea__out_finish(alea__out *o);
ALEA__HIDDEN void alea__out_mem(alea__out *o, const char *s, size_t n);
ALEA__HIDDEN void alea__out_str(alea__out *o, const char *s);
ALEA__HIDDEN void alea__out_char(alea__out *o, char c);
/* A person's text within notation (a label): as alea__out_mem, with '"',
 * '\\' and a tab escaped inside a JSON string (o->json). It holds no other
 * control characters (the lexer's check). */
ALEA__HIDDEN void alea__out_text(alea__out *o, const char *s, size_t n);
/* Markup, written as is even in Markdown ("~~", "**"). */
ALEA__HIDDEN void alea__out_raw(alea__out *o, const char *s);
ALEA__HIDDEN void alea__out_i64(alea__out *o, int64_t v);
/* A double in the fewest digits that read back exactly, as JSON (no NaN or
 * infinity: null). */
ALEA__HIDDEN void alea__out_double(alea__out *o, double v);
/* The same text into tmp (NUL-terminated); returns its length. */
ALEA__HIDDEN size_t alea__fmt_double(char tmp[32], double v);
/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
ALEA__HIDDEN size_t alea__utf8_len(const unsigned char *s, size_t n);
/* A JSON string literal of n bytes, with quotes, escapes, and invalid UTF-8
 * replaced by U+FFFD. */
ALEA__HIDDEN void alea__out_json_str(alea__out *o, const char *s, size_t n);

/* The rows of a distribution's CSV table: "v[i],<cells>\n" for each of the
 * n values while the output is within its limit, the cells of row i (no
 * leading comma) written by cells(ud, i, o): the one loop of both number
 * systems (dist.c, fractions/frac_text.c). */
ALEA__HIDDEN void alea__out_csv_rows(alea__out *o, const int64_t *v, size_t n,
                                     void (*cells)(void *ud, size_t i, alea__out *o),
                                     void *ud);

#endif /* ALEA_OUT_H */
