/*
 * fuzz.h -- what the three libFuzzer targets share (fuzz/common.c): a
 * checking allocator, the oracles for alea's contracts, and FZ_CHECK.
 *
 * A target never trusts the library: every documented promise it can test
 * on any input is tested, and a broken one aborts with a message on stderr
 * so libFuzzer records the input as a crash.
 */
#ifndef ALEA_FUZZ_H
#define ALEA_FUZZ_H

#include <alea.h>
#include <stddef.h>
#include <stdint.h>

/* Aborts (a libFuzzer finding) with the failed condition and a message. */
#define FZ_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond))                                                          \
            fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                  \
    } while (0)

#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 4, 5)))
#endif
void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...);

/*
 * The allocator hook handed to every context: each block carries its size
 * in a header, so a wrong osize (an accounting bug) is caught at once.
 * fail_at > 0 makes the fail_at-th allocation or growth fail (fault
 * injection); count says how many were asked for.
 */
typedef struct fz_heap {
    size_t live_blocks, live_bytes;
    unsigned long count, fail_at;
    size_t ctx_bytes; /* what the context counts right after alea_ctx_new */
} fz_heap;

void *fz_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* A context on heap h, seeded, with default limits. Aborts if NULL. */
alea_ctx *fz_ctx_new(fz_heap *h);
/* Frees ctx and checks that every block of h was given back. */
void fz_ctx_free(alea_ctx *ctx, fz_heap *h);
/* The context's own count (alea_ctx_memory) is what its hook holds, and its
 * peak stays within the memory limit. */
void fz_check_memory(alea_ctx *ctx, const fz_heap *h);
/* The same while a distribution that may hold fractions is alive (their
 * digits are counted by the context, outside the hook). */
void fz_check_memory_with(alea_ctx *ctx, const fz_heap *h, int fractions);

/* Compiles the input in ctx. On failure checks the error (a documented
 * status, a message, a span inside the source), frees ctx with
 * fz_ctx_free and returns NULL: the target is done with this input. */
alea_expr *fz_compile(alea_ctx *ctx, fz_heap *h, const uint8_t *data, size_t size);

/* FNV-1a of the input: the seed of a target's rolls and its choices. */
uint64_t fz_hash(const uint8_t *data, size_t size);
/* The dialect an input is read in: alea's own for half the inputs, each
 * other tool's for an eighth, chosen by bits of the input's hash. */
static inline alea_dialect fz_dialect(uint64_t h)
{
    unsigned d = (unsigned)((h >> 40) % 8);
    return d < ALEA_DIALECT__COUNT ? (alea_dialect)d : ALEA_DIALECT_ALEA;
}

/* The status is a known one, the message says something, and the error
 * span lies inside the len bytes of source. For a failed call. */
void fz_check_error(const alea_ctx *ctx, alea_status st, size_t len);
/* After a successful call: status OK and an empty message. */
void fz_check_ok(const alea_ctx *ctx);

/*
 * The snprintf contract of a formatter: the full length with cap 0, the
 * same length and the whole text when it fits (strlen == length: no NUL
 * inside), a NUL-terminated prefix when it does not, never a byte past cap.
 * Returns the whole text in a malloc'd block (caller frees), its length in
 * *len.
 */
typedef size_t (*fz_format_fn)(const void *obj, int arg, char *buf, size_t cap);
char *fz_format(fz_format_fn fn, const void *obj, int arg, size_t *len, uint64_t h);

size_t fz_fmt_expr(const void *obj, int arg, char *buf, size_t cap);
size_t fz_fmt_roll(const void *obj, int arg, char *buf, size_t cap);
size_t fz_fmt_dist(const void *obj, int arg, char *buf, size_t cap);
size_t fz_fmt_policy(const void *obj, int arg, char *buf, size_t cap);

/* 1 if s[0..n) is one valid JSON value (RFC 8259, UTF-8), else 0. */
int fz_json_valid(const char *s, size_t n);

/*
 * Compiles the canonical form of e in a context with the parser limits at
 * their maximum, checks that it compiles and prints the same text again,
 * and returns that expression (owned by ctx2's caller) for further checks.
 */
alea_expr *fz_roundtrip(alea_ctx *ctx2, const alea_expr *e, char **canon);

#endif
