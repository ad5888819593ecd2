/*
 * alea.h -- tabletop dice: roll an expression with a per-die breakdown, or
 * compute its exact probability distribution.
 *
 * This header is the public API and its manual; alea_games.h adds the
 * rules of one game on top of it (Double Down's boons and banes).
 *
 * Objects
 *   alea_ctx    a context: allocator hook, random generator, limits, last error.
 *               Everything else is made from a context and must be freed before
 *               it. A context is not thread-safe; use one per thread. Two
 *               contexts never share state.
 *   alea_expr   a compiled expression (immutable once compiled).
 *   alea_roll   the result of one roll: the total and its breakdown. Reusable:
 *               roll into the same object many times without reallocating.
 *   alea_dist   an exact probability distribution (or an estimate, from a
 *               tally).
 *   alea_tally  Monte Carlo counts of many rolls, for estimates.
 *
 * Errors
 *   Every fallible call returns an alea_status. On failure the context holds a
 *   message that names the problem and the byte span [start, end) of the
 *   source it concerns (alea_ctx_error, alea_ctx_error_span). Outputs are
 *   written only on success. The library never prints, exits or aborts.
 *
 * Quick start
 *   alea_ctx *ctx = alea_ctx_new(NULL, NULL);
 *   alea_expr *e;
 *   if (alea_expr_compile(ctx, "4d6kh3", 6, &e) != ALEA_OK)
 *       fprintf(stderr, "%s\n", alea_ctx_error(ctx));
 *   alea_roll *r = alea_roll_new(ctx);
 *   alea_ctx_seed(ctx, 7);
 *   if (alea_expr_roll(ctx, e, r) == ALEA_OK) {
 *       char line[256];
 *       alea_roll_format(r, ALEA_FORMAT_TEXT, line, sizeof line);
 *       puts(line);                       // 4d6kh3 [5, 2 dropped, 6, 6] = 17
 *   }
 *   alea_dist *d;
 *   if (alea_expr_dist(ctx, e, &d) == ALEA_OK) {
 *       printf("mean %g\n", alea_dist_mean(d));
 *       alea_dist_free(d);
 *   }
 *   alea_roll_free(r); alea_expr_free(e); alea_ctx_free(ctx);
 */
#ifndef ALEA_H
#define ALEA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shared library exports what this header declares, and nothing else:
 * the rest of alea is built with hidden visibility. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(default)
#endif

#define ALEA_VERSION_MAJOR 0
#define ALEA_VERSION_MINOR 1
#define ALEA_VERSION_PATCH 0
#define ALEA_VERSION_STRING "0.1.0"

/* The library's version string, e.g. "0.1.0". */
const char *alea_version(void);

/* ------------------------------------------------------------------------ */
/* Statuses                                                                 */

/* X(name, short description). One list makes the enum and its names. */
#define ALEA_STATUS_MAP(X)                                                   \
    X(OK, "ok")                                                              \
    X(ERR_SYNTAX, "syntax error")         /* the text does not parse */      \
    X(ERR_INVALID, "invalid expression")  /* parses, but means nothing */    \
    X(ERR_DOMAIN, "undefined result")     /* e.g. division by zero */        \
    X(ERR_OVERFLOW, "integer overflow")   /* a value left int64 */           \
    X(ERR_LIMIT, "limit exceeded")        /* a named limit was hit */        \
    X(ERR_NOMEM, "out of memory")         /* the allocator returned NULL */  \
    X(ERR_INTERRUPTED, "interrupted")     /* the interrupt hook said stop */ \
    X(ERR_ARGUMENT, "invalid argument")   /* API misuse, e.g. NULL */

typedef enum alea_status {
#define ALEA__STATUS_ENUM(name, text) ALEA_##name,
    ALEA_STATUS_MAP(ALEA__STATUS_ENUM)
#undef ALEA__STATUS_ENUM
    ALEA_STATUS__COUNT
} alea_status;

/* "ALEA_ERR_SYNTAX" etc. for a status; "ALEA_UNKNOWN" for anything else. */
const char *alea_status_name(alea_status status);
/* The short description of a status ("syntax error"). */
const char *alea_status_text(alea_status status);

/* ------------------------------------------------------------------------ */
/* Context                                                                  */

/*
 * Allocator hook, with Lua's contract:
 *   nsize == 0: free ptr (which may be NULL) and return NULL;
 *   otherwise: resize ptr (NULL: allocate) from osize to nsize bytes, return
 *   the new block or NULL on failure (leaving ptr untouched).
 */
typedef void *(*alea_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct alea_ctx alea_ctx;

/*
 * A new context. alloc NULL means the C library's malloc/realloc/free.
 * The generator is seeded from the operating system (getentropy); call
 * alea_ctx_seed for reproducible rolls. Returns NULL if out of memory.
 */
alea_ctx *alea_ctx_new(alea_alloc_fn alloc, void *ud);

/* Frees the context. Every object made from it must be freed first.
 * alea_ctx_free(NULL) does nothing. */
void alea_ctx_free(alea_ctx *ctx);

/* The message of the last error ("" after success). Owned by the context,
 * valid until the next call that uses it. */
const char *alea_ctx_error(const alea_ctx *ctx);

/*
 * The last error as one line for a person, without the "alea: " a program
 * may put first: the message after its status's text ("syntax error:
 * unknown name 's' at byte 3"), or the message alone where it already says
 * it ("integer overflow at byte 0: ...", and the messages of limits, memory
 * and interruptions, which name what stopped). "" after success. snprintf
 * contract, as alea_roll_format; ALEA_ERROR_LINE_MAX bytes always suffice.
 */
#define ALEA_ERROR_LINE_MAX 288
size_t alea_ctx_error_line(const alea_ctx *ctx, char *buf, size_t cap);

/* The byte span [*start, *end) of the source that the last error concerns;
 * both 0 when it concerns no position. Returns the last status. */
alea_status alea_ctx_error_span(const alea_ctx *ctx, size_t *start, size_t *end);

/* After an ALEA_ERR_LIMIT error of the work limit: the work units the
 * evaluation needed at least, when the step that would pass the limit was
 * refused before it started (its cost is known beforehand: a dynamic
 * programme's states times its outcomes, the multisets of a pool); 0 when
 * the limit was reached on the way (what the rest would need is unknown)
 * and after any other error. A host can say "needs at least N" and offer
 * to raise the limit. */
double alea_ctx_work_needed(const alea_ctx *ctx);

/* After an ALEA_ERR_LIMIT error of the support limit: the outcomes the
 * step that passed it needed at least, when that is known before the step
 * starts (a die's faces: 1d99999999999 needs 99999999999); 0 otherwise and
 * after any other error. A host can tell a limit it may raise from one
 * past the most it can be raised to. */
double alea_ctx_support_needed(const alea_ctx *ctx);

/* Bytes currently allocated through the context's allocator, and the peak. */
size_t alea_ctx_memory(const alea_ctx *ctx, size_t *peak);

/* Work units charged by the context's last evaluation (compile, roll,
 * distribution; a tally's last sample), as counted against the WORK limit:
 * a host that runs several evaluations for one request can give each what
 * the others left of one budget. */
int64_t alea_ctx_work(const alea_ctx *ctx);

/* ------------------------------------------------------------------------ */
/* Limits                                                                   */

/*
 * Every limit is named, has a default chosen for a chat bot evaluating a
 * stranger's text, and a compiled maximum that no setting can exceed.
 * X(name, default, maximum, what it counts). The defaults keep any one
 * evaluation under about 100 ms and 40 MB on one core of a 2020s server
 * (docs/security.md has the measurements); the reasons:
 *
 *   SOURCE   4 KiB: a chat message is at most a few thousand characters;
 *            compiling is linear, so the maximum (1 MiB) is safe too.
 *   DEPTH    64: no dice expression needs more; bounds every recursion of
 *            the parser and the evaluators (512 levels need under 1 MB of
 *            stack).
 *   NODES    1000: terms in one expression, listed faces included; each
 *            costs a few dozen bytes of tree.
 *   DICE     10000: every die rolled, rerolls, explosions and best()
 *            repetitions included; a roll's breakdown keeps each die, so
 *            this bounds its memory (about 96 bytes a die) and time.
 *   SUPPORT  100000: distinct outcomes of any distribution built on the way;
 *            a result's JSON or table is proportional to it: 100000
 *            outcomes print in about 7 ms as JSON, 80 ms as a table.
 *   WORK     30 million steps: one step is about one multiply-add of a
 *            convolution (about 2 ns here; an addition into a sparse table
 *            counts 4 to 24 steps, as it costs), so the default stops an
 *            evaluation within about 60 ms.
 *   MEMORY   16 MiB: what the context may hold at once; with the program's
 *            own, the process stays under 64 MiB. Every input of
 *            docs/security.md that succeeds needs under 15 MB, and each
 *            fresh page costs a page fault: on the virtual machines
 *            measured, touching 32 MiB cost more than the whole time
 *            budget before an input was refused.
 *   BREAKDOWN 4 MiB: what one roll's breakdown may print, its text and its
 *            JSON together, charged while the roll records its terms (an
 *            upper bound of what they print: 96 bytes a die and a face,
 *            so that the DICE limit's 10000 dice of any size fit): a 4 KB
 *            expression repeated 9999 times printed 80 MB before it.
 *   OUTPUT   8 MiB: what one distribution's text may take, as CSV, JSON or
 *            the command line's table (alea_dist_format refuses past it):
 *            the support limit's 100000 outcomes in doubles fit in every
 *            format (6.7 MB, the CSV of best(2,1d100000), the longest
 *            measured), while exact fractions grow with the dice: the CSV
 *            of 500d10, a 6-byte input, was 12.5 MB.
 *   CELLS    10000: the cells of one table (alea_table_new), each a
 *            distribution computed; a designer's grid is a few hundred
 *            (11 modifiers by 13 difficulties), and the cells share the
 *            WORK limit besides, so this bounds the table's memory (16
 *            bytes a cell and statistic) and its text.
 */
#define ALEA_LIMIT_MAP(X)                                                      \
    X(SOURCE, 4096, 1048576, "bytes of expression text")                       \
    X(DEPTH, 64, 512, "nesting depth of parentheses, calls and unary signs")   \
    X(NODES, 1000, 100000, "terms, operators and calls in one expression")     \
    X(DICE, 10000, 100000000, "dice rolled in one roll, rerolls and explosions included") \
    X(SUPPORT, 100000, 100000000, "distinct outcomes in one distribution")     \
    X(WORK, 30000000, 1000000000000, "elementary steps of one evaluation")     \
    X(MEMORY, 16777216, 17179869184, "bytes allocated by the context")        \
    X(BREAKDOWN, 4194304, 1073741824, "bytes of one roll's breakdown, text and JSON") \
    X(OUTPUT, 8388608, 1073741824, "bytes of one distribution's CSV, JSON or table") \
    X(CELLS, 10000, 1000000, "cells of one table, each a distribution (alea_table_new)")

typedef enum alea_limit {
#define ALEA__LIMIT_ENUM(name, def, max, what) ALEA_LIMIT_##name,
    ALEA_LIMIT_MAP(ALEA__LIMIT_ENUM)
#undef ALEA__LIMIT_ENUM
    ALEA_LIMIT__COUNT
} alea_limit;

/*
 * Sets a limit (as sqlite3_limit does) and returns its previous value.
 * value < 0 only queries. A value above the compiled maximum is lowered to
 * it. Returns -1 for an unknown limit.
 */
int64_t alea_ctx_limit(alea_ctx *ctx, alea_limit limit, int64_t value);

/* The lowercase name ("dice"), default, maximum and description of a limit;
 * NULL / -1 for an unknown limit. */
const char *alea_limit_name(alea_limit limit);
int64_t alea_limit_default(alea_limit limit);
int64_t alea_limit_max(alea_limit limit);
const char *alea_limit_what(alea_limit limit);

/*
 * Exploding dice are unlimited in meaning. The exact engine follows each
 * explosion tail until the probability left is below this bound, and reports
 * the mass it cut (alea_dist_truncated). The bound is per die: a result that
 * would lose more than 1% in all is refused (ALEA_ERR_LIMIT). Default 1e-12;
 * accepted range [1e-300, 1e-3]. Returns ALEA_ERR_ARGUMENT outside it.
 */
#define ALEA_TAIL_DEFAULT 1e-12
alea_status alea_ctx_set_tail(alea_ctx *ctx, double bound);
double alea_ctx_tail(const alea_ctx *ctx);

/*
 * Dialects: the dice notation of another tool, read as that tool means it.
 * A context's dialect applies to the expressions it compiles from then on;
 * what they mean is fixed at compile time, and their canonical text (in
 * breakdowns) is alea's own notation for it ("3d6>3" in roll20 prints as
 * "3d6>=3"). docs/dialects.md lists every difference.
 */
typedef enum alea_dialect {
    ALEA_DIALECT_ALEA,    /* "alea": alea's own notation (the default) */
    ALEA_DIALECT_ROLL20,  /* "roll20": Roll20 */
    ALEA_DIALECT_FOUNDRY, /* "foundry": Foundry VTT */
    ALEA_DIALECT_RPGDR,   /* "rpgdr": rpg-dice-roller (JavaScript bots) */
    ALEA_DIALECT_D20,     /* "d20": Avrae's d20 (Python bots) */
    ALEA_DIALECT__COUNT
} alea_dialect;

/* Sets the dialect (ALEA_ERR_ARGUMENT out of range, the dialect unchanged). */
alea_status alea_ctx_set_dialect(alea_ctx *ctx, alea_dialect dialect);
alea_dialect alea_ctx_dialect(const alea_ctx *ctx);
/* The dialect's name ("roll20") and the tool it follows ("Roll20"); NULL
 * out of range. alea_dialect_find: the dialect named name (without case),
 * or -1. */
const char *alea_dialect_name(alea_dialect dialect);
const char *alea_dialect_tool(alea_dialect dialect);
int alea_dialect_find(const char *name);

/*
 * Interrupt hook: the roller and the exact engine call it now and then
 * (every few thousand steps); a non-zero return stops the evaluation with
 * ALEA_ERR_INTERRUPTED. Use it for deadlines. NULL removes it.
 */
typedef int (*alea_interrupt_fn)(void *ud);
void alea_ctx_set_interrupt(alea_ctx *ctx, alea_interrupt_fn fn, void *ud);

/* ------------------------------------------------------------------------ */
/* Random source                                                            */

/*
 * Seeds the context's generator (xoshiro256**, seeded through splitmix64).
 * The same seed gives the same rolls on every platform.
 */
void alea_ctx_seed(alea_ctx *ctx, uint64_t seed);

/*
 * Seeds the generator for stream number `stream` of `seed`: the sequence of
 * alea_ctx_seed(ctx, seed), moved 2^128 draws ahead `stream` times
 * (xoshiro256**'s jump), so that streams never overlap. Give each thread's
 * context its own stream of one seed: the results are reproducible for a
 * given seed and number of threads. Cost: about 1000 steps per stream.
 */
void alea_ctx_seed_stream(alea_ctx *ctx, uint64_t seed, uint32_t stream);

/* 64 random bits from the context's generator (or its custom source): a
 * seed for another context or a stream, which the host can show so that
 * what it rolls can be rolled again. */
uint64_t alea_ctx_random(alea_ctx *ctx);

/* Reseeds from the operating system. ALEA_ERR_ARGUMENT if it has no entropy
 * source (the generator is then left as it was). */
alea_status alea_ctx_seed_os(alea_ctx *ctx);

/*
 * Replaces the generator by a custom source of uniformly random 64-bit
 * numbers (NULL restores the built-in generator). alea derives unbiased dice
 * from it.
 */
typedef uint64_t (*alea_random_fn)(void *ud);
void alea_ctx_set_random(alea_ctx *ctx, alea_random_fn fn, void *ud);

/* ------------------------------------------------------------------------ */
/* Expressions                                                              */

typedef struct alea_expr alea_expr;

/*
 * Compiles len bytes of src (no terminator needed). On success *out is a
 * new expression owned by the caller. Errors: ALEA_ERR_SYNTAX,
 * ALEA_ERR_INVALID, ALEA_ERR_LIMIT (source, depth, nodes), ALEA_ERR_NOMEM.
 * Cost: linear in len.
 */
alea_status alea_expr_compile(alea_ctx *ctx, const char *src, size_t len,
                              alea_expr **out);

/* alea_expr_free(NULL) does nothing. */
void alea_expr_free(alea_expr *expr);

/*
 * Writes the canonical form of the expression ("4d6kh3", "1d20 + 5") into
 * buf (at most cap bytes, always NUL-terminated when cap > 0) and returns
 * its full length, as snprintf does.
 */
size_t alea_expr_format(const alea_expr *expr, char *buf, size_t cap);

/* ------------------------------------------------------------------------ */
/* Rolling                                                                  */

typedef struct alea_roll alea_roll;

/* An empty roll object, to be filled by alea_expr_roll. NULL if out of
 * memory (recorded in the context, as any error). */
alea_roll *alea_roll_new(alea_ctx *ctx);
void alea_roll_free(alea_roll *roll);

/*
 * Rolls expr once with the context's generator, replacing what roll held
 * and reusing its memory. Errors: ALEA_ERR_LIMIT (dice, work, memory),
 * ALEA_ERR_DOMAIN (division by zero, negative dice count),
 * ALEA_ERR_OVERFLOW, ALEA_ERR_NOMEM, ALEA_ERR_INTERRUPTED; after an error
 * the roll holds no result.
 */
alea_status alea_expr_roll(alea_ctx *ctx, const alea_expr *expr, alea_roll *roll);

/* Rolls expr once without recording a breakdown: the fast path for
 * sampling. Same errors as alea_expr_roll; a repeat ("6 x 4d6kh3") samples
 * one of its rolls, so an error that only a later roll meets is not met. */
alea_status alea_expr_sample(alea_ctx *ctx, const alea_expr *expr, int64_t *total);

/* The number of rolls expr makes: a repeat's N ("6 x 4d6kh3",
 * "repeat(4d6kh3, 6)"), else 1 (also for NULL). */
int64_t alea_expr_rolls(const alea_expr *expr);

/*
 * A hint about a compiled expression that is valid but may mean something
 * else than its writer meant: in alea's own dialect, each other dialect
 * that reads the text otherwise, with its reading ("10d20cs20": Foundry
 * VTT counts the 20s; "2d10!<>8": rpg-dice-roller explodes on anything
 * but 8), or a success count where a comparison of the total is likely
 * meant ("3d6 >= 5"). NULL when there is none. Owned by expr. Finding the
 * other readings costs a parse of the text per dialect at compile time.
 */
const char *alea_expr_hint(const alea_expr *expr);

/* The total of the last successful roll (of a repeat, "6 x 4d6kh3", the
 * sum of its rolls' totals). */
int64_t alea_roll_total(const alea_roll *roll);

/* The rolls of the last successful roll: a repeat's N (each a line of the
 * text breakdown), else 1; 0 when there is none. alea_roll_total_at gives
 * roll i's total (0 for i out of range). */
size_t alea_roll_count(const alea_roll *roll);
int64_t alea_roll_total_at(const alea_roll *roll, size_t i);

typedef enum alea_format {
    ALEA_FORMAT_TEXT, /* one line: "4d6kh3 [5, 2 dropped, 6, 6] = 17" */
    ALEA_FORMAT_JSON, /* one JSON object, see docs/language.md */
    ALEA_FORMAT_ANSI, /* the text with ANSI colours for a terminal (rolls only):
                         dropped, cancelled and discarded dice dim, a die's
                         highest face and explosions green, a 1 on a die of
                         more than two faces red, the total bold */
    ALEA_FORMAT_CSV,  /* a distribution as CSV (distributions only): the
                         header "value,probability,at_least,at_most" (and
                         ",low95,high95" for an estimate), then a line per
                         outcome, numbers as alea_format_double writes them */
    ALEA_FORMAT_MARKDOWN /* the text as chat Markdown renders it (rolls only,
                         Discord's flavour): dropped, cancelled and discarded
                         dice struck through (~~2~~, without "dropped"), the
                         same criticals as ALEA_FORMAT_ANSI in bold, the total
                         in code (`17`), and every other *, _, ~, `, | and
                         backslash escaped so a label cannot start markup */
} alea_format;

/*
 * Writes the breakdown of the roll in the given format into buf (snprintf
 * contract: at most cap bytes, NUL-terminated when cap > 0; returns the full
 * length). Call with cap 0 to learn the size.
 */
size_t alea_roll_format(const alea_roll *roll, alea_format format, char *buf,
                        size_t cap);

/* ------------------------------------------------------------------------ */
/* Exact distributions                                                      */

typedef struct alea_dist alea_dist;

/*
 * Computes the exact distribution of expr. On success *out is a new
 * distribution owned by the caller. Errors: ALEA_ERR_LIMIT (support, work,
 * memory; or explosion tails that would cut more than 1% of the
 * probability, see alea_ctx_set_tail), ALEA_ERR_DOMAIN (a divisor that can be zero, a dice count that
 * can be negative), ALEA_ERR_OVERFLOW, ALEA_ERR_NOMEM,
 * ALEA_ERR_INTERRUPTED, and ALEA_ERR_INVALID for the few combinations the
 * engine refuses as ambiguous (success counting on "!" dice together with
 * boons or "ra": a die's score is not determined by its total). Cost: see docs/language.md; bounded by the support
 * and work limits, checked before each step.
 */
alea_status alea_expr_dist(alea_ctx *ctx, const alea_expr *expr, alea_dist **out);

/*
 * Parameters: an expression with names that the host gives values, as a
 * designer's table sweeps a modifier ("d20 + m >= dc" for m in 0..10 and
 * dc in 10..20). Compiles as alea_expr_compile, with names[0..nnames)
 * (NUL-terminated) in scope for the whole expression, as if bound by a
 * "let" around it, whatever the text binds itself (a "let m" inside
 * shadows parameter m). Each evaluation gives each parameter one certain
 * value (alea_expr_dist_at, alea_expr_roll_at); the exact engine computes
 * at it as at a certain "let" value. A parameter is a name where the
 * language takes a name; a mechanic's argument that must be a fixed
 * number (dd()'s modifier, tier()'s steps) or an extra-dice count ("+n
 * DICE") is refused as it refuses a "let" name there ("needs a fixed
 * number ..."): a host can write the value into the text instead (the
 * command line's table does). Errors: those of alea_expr_compile; a name
 * no "let" binds and no parameter is, "unknown name 'b' (in scope: m,
 * dc)"; a parameter that is no name gives the "let" name's error
 * (ALEA_ERR_SYNTAX: "'d' reads as dice, not a name", "'in' is a word of
 * the language"), spanning nothing; ALEA_ERR_LIMIT past ALEA_PARAMS_MAX
 * parameters; ALEA_ERR_INVALID in a dialect without names. Cost: as
 * alea_expr_compile.
 */
#define ALEA_PARAMS_MAX 64 /* parameters of one expression: a bit each */
alea_status alea_expr_compile_with(alea_ctx *ctx, const char *src, size_t len,
                                   const char *const *names, size_t nnames, alea_expr **out);
/* The parameters of expr (0 for one compiled without), parameter i's name
 * (NULL out of range; owned by expr), and whether a use in the text reads
 * it (0: the value changes nothing, as a table would like to say). */
size_t alea_expr_param_count(const alea_expr *expr);
const char *alea_expr_param_name(const alea_expr *expr, size_t i);
int alea_expr_param_used(const alea_expr *expr, size_t i);
/* alea_expr_dist, alea_expr_roll and alea_expr_sample with parameter i
 * bound to values[i]; nvalues must be alea_expr_param_count (else
 * ALEA_ERR_ARGUMENT). The plain calls on an expression with parameters
 * return ALEA_ERR_ARGUMENT naming the first. */
alea_status alea_expr_dist_at(alea_ctx *ctx, const alea_expr *expr, const int64_t *values,
                              size_t nvalues, alea_dist **out);
alea_status alea_expr_roll_at(alea_ctx *ctx, const alea_expr *expr, const int64_t *values,
                              size_t nvalues, alea_roll *roll);
alea_status alea_expr_sample_at(alea_ctx *ctx, const alea_expr *expr, const int64_t *values,
                                size_t nvalues, int64_t *total);

void alea_dist_free(alea_dist *dist);

/* Number of outcomes with non-zero probability; outcome i (ascending by
 * value, 0 <= i < count) has value alea_dist_value and probability
 * alea_dist_prob. */
size_t alea_dist_count(const alea_dist *dist);
int64_t alea_dist_value(const alea_dist *dist, size_t i);
double alea_dist_prob(const alea_dist *dist, size_t i);

/* Probability of exactly / at least / at most v. */
double alea_dist_p(const alea_dist *dist, int64_t v);
double alea_dist_at_least(const alea_dist *dist, int64_t v);
double alea_dist_at_most(const alea_dist *dist, int64_t v);

/* Both cumulative columns at once, for a table: least[i] = P(X >= value i)
 * and most[i] = P(X <= value i); least and most have room for
 * alea_dist_count entries. Each is in [0, 1], the whole mass listed (1
 * less alea_dist_truncated) at its far end, exactly 1 when nothing was
 * cut; the exact fractions rounded once when they are known (exact mode,
 * exact counts as for alea_dist_mean), else summed from its small end in
 * double-double arithmetic (no cancellation). alea_dist_at_least and
 * alea_dist_at_most give the same numbers. The distribution holds both
 * columns from its making (16 bytes an outcome, counted in the memory
 * limit): this is a copy, and alea_dist_at_least, alea_dist_at_most and
 * alea_dist_luck a binary search each. */
void alea_dist_cumulate(const alea_dist *dist, double *least, double *most);

/*
 * A rolled total's luck: its place in dist, the distribution of the
 * expression that rolled it. *at_most = P(X <= total) and *at_least =
 * P(X >= total), the numbers alea_dist_at_most and alea_dist_at_least give
 * (exactly rounded in exact mode): both sum the roll's own probability, so
 * their sum is 1 + P(X = total). A total below every outcome has at_most 0
 * and at_least the whole mass listed (1 less alea_dist_truncated); above
 * every outcome, the reverse. For a repeat ("6 x 4d6kh3") dist is one
 * roll's: pass each roll's total (alea_roll_total_at), not their sum.
 * A NULL dist gives 0 and 0; a NULL output is not written. Cost: a binary
 * search over the outcomes, no allocation, so that a repeat of 10,000 rolls
 * of 1d100000 places them all in milliseconds.
 */
void alea_dist_luck(const alea_dist *dist, int64_t total, double *at_most, double *at_least);

/* Mean and standard deviation of the computed outcomes, normalised by their
 * total mass: the nearest doubles to the true values of the outcomes
 * listed (from exact counts when each probability is within 2^-46 of its
 * own of a whole count over a denominator up to 2^32, the counts adding up
 * to it, as most dice's do; else from sums carried in double-double
 * arithmetic, as near as the probabilities' own rounding allows). A truncated
 * explosion tail holds the largest values, so they can fall short of the
 * true ones by a little more than the truncated mass times those values
 * (1d6! at the default bound: 3e-11 low). min and max are the least and
 * the greatest value the expression can take, known without any
 * probability, where the outcomes listed may not reach them: rare ones
 * fell below the double range and could not be recomputed
 * (alea_dist_incomplete: 1000d6 lists 1599 to 5401, min and max are 1000
 * and 6000; 1000d6kh500's min is 500), an explosion chain was cut
 * (alea_dist_truncated), or the outcomes are sampled (alea_tally_dist: the
 * expression's bounds, not the rolls'). They come from the expression's
 * tree, each construct bounding its value from its parts'. Where an end is
 * not known, because the expression has none (1d6! has no greatest value,
 * -1d6! no least) or a construct is not bounded there (rolled counts and
 * sides, unique dice, selections, "ra", explosion caps, keeping single
 * rolls, clamped explosions, success counts over "!" rolls, a group of one
 * member's dice or a keep among more than 16 members, a power of a base
 * below 1, dd(); and abs, %, =, <> and a group's success count where the
 * outcomes listed do not reach the bound), it is the least (greatest)
 * value listed and alea_dist_open says so. median is the smallest value v with
 * P(X <= v) >= 1/2 of the mass listed. */
double alea_dist_mean(const alea_dist *dist);
double alea_dist_sd(const alea_dist *dist);
int64_t alea_dist_min(const alea_dist *dist);
int64_t alea_dist_max(const alea_dist *dist);
int64_t alea_dist_median(const alea_dist *dist);
/* Which of min and max are only the outcomes' ends, which the expression
 * can pass (above): ALEA_OPEN_MIN, ALEA_OPEN_MAX, both, or 0 when both are
 * the expression's own. In JSON, "open": ["min"], ["max"] or both. */
#define ALEA_OPEN_MIN 1u
#define ALEA_OPEN_MAX 2u
unsigned alea_dist_open(const alea_dist *dist);
/* The smallest value v with P(X <= v) >= q of the mass listed: q = 0.5 is
 * the median, 0.25 and 0.75 the quartiles, 0.9 the 90th percentile; q <= 0
 * gives the least value, q >= 1 the value where the mass is reached. The
 * comparison is exact with exact counts or fractions; in doubles otherwise,
 * with a relative allowance of 1e-12 for their rounding. Cost: linear. */
int64_t alea_dist_percentile(const alea_dist *dist, double q);

/*
 * The expectation of a function of the outcome: the sum of p(v) f(v) over
 * the outcomes v listed, divided by their mass (as alea_dist_mean is; with
 * f(v) = v it is the mean, 10.5 for 3d6, though summed in plain doubles).
 * f is called once per outcome, in ascending order, with ud, and writes
 * its value for the outcome to *x; a status other than ALEA_OK from f
 * stops the sum and is returned (ALEA_ERR_ARGUMENT for a value that is no
 * alea_status), recorded in ctx with the outcome it came from.
 * ALEA_ERR_ARGUMENT for a NULL dist, f or out (recorded in ctx). *out is
 * written only on success. Cost: one call of f per outcome.
 */
alea_status alea_dist_expect(alea_ctx *ctx, const alea_dist *dist,
                             alea_status (*f)(int64_t outcome, void *ud, double *x), void *ud,
                             double *out);

/* The probability mass cut off by the explosion tail bound (0 when nothing
 * was cut). The outcomes' probabilities sum to 1 minus this. */
double alea_dist_truncated(const alea_dist *dist);

/*
 * The name of value v, or NULL. Distributions whose expression is a dd()
 * roll name its outcomes: 0 "critical failure", 1 "failure", 2 "success",
 * 3 "critical success".
 */
const char *alea_dist_label(const alea_dist *dist, int64_t v);

/*
 * Named probabilities reported beside the outcomes (flags), i from 0 to
 * count - 1. An expression that is an event() pool reports "critical
 * failure": the chance that more than half the pool shows 1.
 */
size_t alea_dist_flag_count(const alea_dist *dist);
/*
 * The number of rolls of a repeat ("6 x 4d6kh3", "repeat(4d6kh3, 6)"): its
 * distribution is that of one of them (each has the same). 1 for any other
 * expression. In JSON, "rolls" when above 1.
 */
int64_t alea_dist_rolls(const alea_dist *dist);
const char *alea_dist_flag_name(const alea_dist *dist, size_t i);
double alea_dist_flag_prob(const alea_dist *dist, size_t i);

/*
 * Exact fractions. In exact mode alea_expr_dist computes in exact rational
 * arithmetic (GMP): every probability is a reduced fraction, no outcome
 * is lost to underflow, and the doubles the accessors above return are the
 * nearest to the fractions (the mean of 3d6 is 10.5). Exact mode costs
 * more work and memory (digits grow with the dice: 1000d20's fractions
 * have about 1300 digits each); the WORK and MEMORY limits cover them.
 * alea_ctx_set_exact returns ALEA_ERR_ARGUMENT in a build without GMP
 * (the WebAssembly module has mini-gmp: its fractions are GMP's digit for
 * digit). Every construct of the language has its exact
 * form; a construct without one (none today) would be refused by
 * alea_expr_dist with ALEA_ERR_INVALID naming it, never rounded silently.
 */
alea_status alea_ctx_set_exact(alea_ctx *ctx, int on);
int alea_ctx_exact(const alea_ctx *ctx);

typedef enum alea_fraction {
    ALEA_FRACTION_PROB,     /* outcome i's probability */
    ALEA_FRACTION_AT_LEAST, /* P(X >= value of outcome i) */
    ALEA_FRACTION_AT_MOST,  /* P(X <= value of outcome i) */
    ALEA_FRACTION_MEAN,     /* the mean (i unused), normalised as alea_dist_mean */
    ALEA_FRACTION_VARIANCE, /* the variance (i unused) */
    ALEA_FRACTION_TRUNCATED /* the mass cut by explosion tails (i unused) */
} alea_fraction;

/* 1 when dist was computed in exact mode. */
int alea_dist_is_exact(const alea_dist *dist);
/*
 * Writes the exact value of `what` as "num/den" in lowest terms ("1/6",
 * "7/2"; a whole number without "/1"), NUL-terminated, into buf of cap
 * bytes, and returns its length (as snprintf: call with cap 0 to size the
 * buffer). Returns 0 for a distribution that is not exact or an i out of
 * range. At least and at most sum the outcomes on each call (linear).
 */
size_t alea_dist_fraction(const alea_dist *dist, alea_fraction what, size_t i, char *buf,
                          size_t cap);
/*
 * `what` (ALEA_FRACTION_PROB, _AT_LEAST or _AT_MOST) of outcome i in
 * scientific notation: returns the power of ten e and sets *mant (may be
 * NULL) to m in [1, 10) with the probability m * 10^e (m = 0, e = 0 for 0
 * or an i out of range). Unlike the doubles, this reaches below the double
 * range: in the default mode a result whose smallest probabilities come
 * near it (300d20 rolling all 1s, 4.9e-391) is recomputed in exact
 * fractions when the library has them, so that no outcome is dropped, and
 * its probabilities are read here to 12 digits and more. In JSON and CSV
 * such a probability is printed as "4.90909346530e-391". Constant time for a
 * distribution computed or recomputed in fractions; otherwise at least and
 * at most sum the outcomes on each call (linear).
 */
int64_t alea_dist_sci(const alea_dist *dist, alea_fraction what, size_t i, double *mant);
/*
 * NULL, or why outcomes rarer than about 1e-290 may be missing from a
 * distribution in doubles: its smallest probabilities came near the double
 * range and it could not be recomputed in fractions (the reason, e.g. the
 * memory limit, or a library without GMP). Also "incomplete" in JSON.
 */
const char *alea_dist_incomplete(const alea_dist *dist);

/*
 * A distribution estimated by alea_tally_dist has the number of samples it
 * came from (0 for an exact one), and each probability a 95% confidence
 * interval (Wilson's score interval; [p, p] for an exact distribution).
 */
uint64_t alea_dist_samples(const alea_dist *dist);
void alea_dist_interval(const alea_dist *dist, size_t i, double *lo, double *hi);

/* ------------------------------------------------------------------------ */
/* Distances between two distributions                                      */

/*
 * How two mechanics compare, A and B rolled independently: who wins, and
 * how far apart their distributions are. Each distribution is normalised
 * by its mass listed first (as alea_dist_mean is: a truncated explosion
 * tail is left out of both), so p_greater + p_equal + p_less is 1.
 *
 *   p_greater, p_equal, p_less  P(A > B), P(A = B), P(A < B)
 *   tv    total variation distance: half the sum over v of |P(A = v) -
 *         P(B = v)|, the most by which the chance of any set of outcomes
 *         differs (0 identical, 1 disjoint)
 *   ks    Kolmogorov-Smirnov distance: the greatest |P(A <= v) - P(B <= v)|
 *   emd   earth mover's distance (Wasserstein-1): the sum over every
 *         integer v of |P(A <= v) - P(B <= v)|, the least average shift of
 *         the outcomes that turns A into B (d20 and d20+5: 5)
 *
 * d2 against d3: p_greater 1/6, p_equal 1/3, p_less 1/2, tv 1/3, ks 1/3,
 * emd 1/2.
 */
typedef struct alea_versus {
    double p_greater, p_equal, p_less;
    double tv, ks, emd;
} alea_versus;

/*
 * Fills *out with the distances between a and b (above), which may come
 * from different contexts. In doubles the sums are carried in double-double
 * arithmetic; when both a and b are exact (alea_dist_is_exact), they are
 * computed in fractions and each double is the nearest to its fraction.
 * Errors (recorded in ctx, *out written only on success): ALEA_ERR_ARGUMENT
 * for a NULL argument; ALEA_ERR_LIMIT when the work passes ctx's WORK
 * limit; ALEA_ERR_INTERRUPTED; ALEA_ERR_NOMEM. Cost: one merged pass over
 * both supports, O(n + m), checked against the work limit before it starts:
 * 12 work units an outcome when both have whole counts over a common
 * denominator (dice: 1d100000 against 1d100000 + 7 takes about 5 ms), 40 in
 * double-double sums (10000d6 against 10001d6, about 4 ms); in fractions,
 * a few products of their digits an outcome, charged as it goes (200d20
 * against 201d20, about 6 ms).
 */
alea_status alea_dist_versus(alea_ctx *ctx, const alea_dist *a, const alea_dist *b,
                             alea_versus *out);

/*
 * The same six numbers as exact fractions, when a and b are both exact: "p_greater
 * p_equal p_less tv ks emd" in that order, each "num/den" in lowest terms
 * (a whole number without "/1"), separated by single spaces, for
 * d2 against d3 "1/6 1/3 1/2 1/3 1/3 1/2". snprintf contract into buf of
 * cap bytes, the full length in *len (call with cap 0 to size the buffer:
 * the sums are done again). Errors as alea_dist_versus, and
 * ALEA_ERR_ARGUMENT when a or b is not exact; *len written only on success.
 */
alea_status alea_dist_versus_fractions(alea_ctx *ctx, const alea_dist *a, const alea_dist *b,
                                       char *buf, size_t cap, size_t *len);

/* ------------------------------------------------------------------------ */
/* Tables: an expression swept over values of its names                     */

/*
 * A designer's grid: an expression with free names ("d20 + m >= dc"), each
 * swept over values ("m=0..10", "dc=10,12,14"), and statistics of its
 * distribution in each cell (the chance to hit). The first sweep gives the
 * rows, the second (if any) the columns: at most ALEA_TABLE_SWEEPS_MAX.
 *
 *   const char *sweeps[] = {"m=0..10", "dc=10..20"}, *stats[] = {"mean"};
 *   alea_table *t;
 *   if (alea_table_new(ctx, "d20 + m >= dc", 13, sweeps, 2, stats, 1, &t) == ALEA_OK) {
 *       double p = alea_table_cell(t, 0, 5, 0);   // m=5, dc=10: 0.8
 *       alea_table_free(t);
 *   }
 *
 * A sweep is NAME=VALUES: the name (letters, digits and '_', from a
 * letter, at most ALEA_TABLE_NAME_MAX bytes), then a comma-separated list
 * of whole numbers and ranges A..B or A..B..STEP (step positive):
 * "n=-3..3", "m=0..20..5,-1". A statistic (at most ALEA_TABLE_STATS_MAX;
 * nstats 0 means "mean") is one of
 *   mean, sd, median   of the cell's distribution
 *   p>=N, p<=N, p=N    the chance of at least / at most / exactly N
 *   pN                 the N-th percentile, N from 0 to 100 (p50 the median)
 *   a named probability the expression reports ("critical failure",
 *                      alea_dist_flag_name)
 *
 * The names are the expression's parameters (alea_expr_compile_with),
 * compiled once and computed at each cell's values. Where the language
 * takes only a fixed number (dd()'s modifier, tier()'s steps, "+n DICE")
 * or a name reads as dice ("d"), each cell's values are written into the
 * text instead ("+n" at n = -3 reads "-3", elsewhere "(-3)") and the text
 * compiled per cell: "dd(m, d, best)", "event(tier(d4, +n))" and
 * "2d6 +n DICE" sweep as any other; each such compilation is charged to the
 * WORK limit before it starts, 512 units a byte of the cell's text (about
 * what the densest text costs to compile).
 *
 * The cells are at most the CELLS limit and share one budget of the WORK
 * limit, as one evaluation would; the table holds each cell's number (and
 * its exact text) in the context's memory. Errors (nothing written to
 * *out): those of alea_expr_compile and alea_expr_dist, their message
 * after the cell's values ("at m=3, dc=12: ...", "at m=3, with the values
 * written in: ..." for the text with the values in it) and their span in
 * src; for the arguments, ALEA_ERR_SYNTAX for a sweep or a statistic that
 * does not read ("bad range '1..x' in 'n=1..x' ..."), ALEA_ERR_ARGUMENT
 * for too many sweeps or statistics, a name swept twice or never used by
 * the expression, a named probability the expression does not report,
 * ALEA_ERR_LIMIT past the CELLS limit ("11 x 1001 = 11011 cells, more than
 * the cells limit (10000)"); their span is in the text of that sweep or
 * statistic, which alea_table_error_part names. Cost: a compilation (or
 * one per cell) and a distribution per cell; compiled once, the parts of
 * the expression that read no swept name are computed once for the whole
 * table and copied into each cell (the keep in "10d10!kh5 + m >= dc"),
 * within the memory limit (given back, and computed again, where the limit
 * would refuse something else). After it, alea_ctx_work is the whole
 * table's work.
 */
typedef struct alea_table alea_table;
#define ALEA_TABLE_SWEEPS_MAX 2 /* rows and columns */
#define ALEA_TABLE_STATS_MAX 8  /* a table's statistics: 8 fit a screen's columns */
#define ALEA_TABLE_NAME_MAX 24  /* bytes of a swept name: a column heading */
alea_status alea_table_new(alea_ctx *ctx, const char *src, size_t len,
                           const char *const *sweeps, size_t nsweeps,
                           const char *const *stats, size_t nstats, alea_table **out);
/* alea_table_free(NULL) does nothing. Free it before its context. */
void alea_table_free(alea_table *table);

/* After alea_table_new returned an error: the text its span is in, the
 * expression (ALEA_TABLE_EXPRESSION), sweeps[*index] or stats[*index]. */
typedef enum alea_table_part {
    ALEA_TABLE_EXPRESSION,
    ALEA_TABLE_SWEEP,
    ALEA_TABLE_STAT
} alea_table_part;
alea_table_part alea_table_error_part(const alea_ctx *ctx, size_t *index);

/* Rows (the first sweep's values), columns (the second's; 1 with one
 * sweep), sweeps and statistics. */
size_t alea_table_rows(const alea_table *table);
size_t alea_table_cols(const alea_table *table);
size_t alea_table_sweep_count(const alea_table *table);
size_t alea_table_stat_count(const alea_table *table);
/* Sweep axis's name (axis 0 the rows, 1 the columns; NULL out of range),
 * its number of values, and its value i (0 out of range). Owned by table. */
const char *alea_table_name(const alea_table *table, size_t axis);
size_t alea_table_value_count(const alea_table *table, size_t axis);
int64_t alea_table_value(const alea_table *table, size_t axis, size_t i);
/* Statistic i as written ("p>=2"; NULL out of range). It is a probability
 * for p>=N, p<=N, p=N, a named probability, and a mean whose every cell's
 * outcomes are 0 and 1 (a chance: "d20 + m >= dc"); an outcome of the
 * expression, a whole number, for median and pN. */
const char *alea_table_stat(const alea_table *table, size_t stat);
int alea_table_stat_is_prob(const alea_table *table, size_t stat);
int alea_table_stat_is_outcome(const alea_table *table, size_t stat);
/* Cell (row, col) of statistic stat (0 out of range), and its exact text
 * or NULL: the whole number of an outcome (median, pN), and in exact mode
 * (alea_ctx_exact when the table was made) the fraction of a mean or a
 * probability p>=N, p<=N, p=N in lowest terms ("7/2"); sd and a named
 * probability have none. Owned by table. */
double alea_table_cell(const alea_table *table, size_t stat, size_t row, size_t col);
const char *alea_table_cell_text(const alea_table *table, size_t stat, size_t row, size_t col);

/*
 * Writes the table as ALEA_FORMAT_JSON:
 *   {"expression": "...", "names": ["m", "dc"], "values": [[0, 1], [10, 15]],
 *    "stats": [{"stat": "mean", "cells": [[0.55, 0.3], [0.6, 0.35]]}]}
 * cells a row per value of the first name, each a list of the columns with
 * two names (a number with one); a cell is its exact text as a string in
 * exact mode, an outcome as a whole number. Or as ALEA_FORMAT_CSV: with
 * one name, the header "m,mean,p>=2" and a line per value; with two,
 * "stat,m,dc=10,dc=11" and a line per statistic and row; a cell is its
 * exact text, else the number as alea_format_double writes it. snprintf
 * contract and the OUTPUT limit as alea_dist_format ("too much output: the
 * table's CSV passes N bytes (output limit is N)").
 */
size_t alea_table_format(const alea_table *table, alea_format format, char *buf, size_t cap);
/*
 * Writes the table as the SVG picture `alea table --svg` draws (through
 * alea_svg_grid, below): with two names the heat map of statistic stat,
 * titled "STAT of EXPR", a row per value of the first name and a column
 * per value of the second; with one name a line per statistic over the
 * values of the name, titled by the expression (stat ignored). The cells
 * are in percent where the statistics are probabilities (with one name,
 * where every one is). snprintf contract and the OUTPUT limit as
 * alea_dist_format ("too much output: the SVG passes N bytes (output limit
 * is N)", over the expression's span). It takes the context's memory
 * while it runs: the title and a few dozen bytes a column with two names, a copy of
 * the cells with one. Cost: linear in the cells.
 * Errors, in the table's context, with 0 returned and "" in buf (cap > 0):
 * ALEA_ERR_LIMIT, ALEA_ERR_NOMEM, and ALEA_ERR_ARGUMENT for a stat past
 * the table's statistics with two names.
 */
size_t alea_table_svg(const alea_table *table, size_t stat, char *buf, size_t cap);

/* Policies: the player's best choice, shown                                */

/*
 * The decisions of an expression whose whole is a mechanic with a choice
 * (reroll(POOL, ROUNDS, GOAL); dd(M, D, GOAL) with a goal; event(POOL,
 * GOAL)): a row per situation the player can see at its first choice
 * point, the choice best for the goal (or the one a fixed policy makes:
 * dd(6, 14, always)), and the goal's value with that choice and without
 * choosing (keeping every die, not doubling down), as
 * the exact engine computes them, in fractions too in exact mode.
 *
 *   alea_policy *p;
 *   if (alea_policy_new(ctx, e, &p) == ALEA_OK) {
 *       for (size_t i = 0; i < alea_policy_rows(p); i++)
 *           printf("%s -> %s\n", alea_policy_seen(p, i), alea_policy_choice(p, i));
 *       alea_policy_free(p);
 *   }
 *
 * Rows that share a choice come one after another where the mechanic can
 * order them so (the hosts group them). Errors: ALEA_ERR_INVALID when the
 * expression has no choice (its span), the errors of alea_expr_dist (the
 * WORK and MEMORY limits, ALEA_ERR_INTERRUPTED), ALEA_ERR_NOMEM.
 */
typedef struct alea_policy alea_policy;
alea_status alea_policy_new(alea_ctx *ctx, const alea_expr *expr, alea_policy **out);
/* alea_policy_free(NULL) does nothing. Free it before its context. */
void alea_policy_free(alea_policy *policy);
/* The goal as a person reads it ("the chance of >= 20", "the mean"), and
 * whether its values are probabilities. Owned by policy. */
const char *alea_policy_goal(const alea_policy *policy);
int alea_policy_is_prob(const alea_policy *policy);
/* The goal's value of the whole expression with its choices (the best
 * ones, or those of the fixed policy it names: dd(6, 14, always)), and its
 * exact fraction in exact mode (else NULL); and with the best choices
 * (the same for a policy that is the best). */
double alea_policy_value(const alea_policy *policy);
const char *alea_policy_value_text(const alea_policy *policy);
double alea_policy_optimum(const alea_policy *policy);
const char *alea_policy_optimum_text(const alea_policy *policy);
size_t alea_policy_rows(const alea_policy *policy);
/* Row i (NULL or 0 out of range): what the player sees ("6 5 3 2 1"), the
 * best choice ("keep 6 5", "keep all", "double down"), the chance of seeing it, the
 * goal's value with the choice and its exact fraction (or NULL), and the
 * goal's value without choosing. Owned by policy. */
const char *alea_policy_seen(const alea_policy *policy, size_t row);
const char *alea_policy_choice(const alea_policy *policy, size_t row);
double alea_policy_prob(const alea_policy *policy, size_t row);
double alea_policy_row_value(const alea_policy *policy, size_t row);
const char *alea_policy_row_value_text(const alea_policy *policy, size_t row);
double alea_policy_row_plain(const alea_policy *policy, size_t row);
/*
 * Writes the policy as ALEA_FORMAT_JSON:
 *   {"expression": "reroll(2d6, 1, >= 10)", "goal": "the chance of >= 10",
 *    "probability": true, "value": 0.33, "optimum": 0.33, "rows": [{"seen": "6 6",
 *    "choice": "keep", "chance": 0.0277, "value": 1, "plain": 1}, ...]}
 * ("value" a string, the fraction, in exact mode), or as ALEA_FORMAT_CSV:
 * "seen,choice,chance,value,plain" and a line per row. snprintf contract
 * and the OUTPUT limit as alea_dist_format.
 */
size_t alea_policy_format(const alea_policy *policy, alea_format format, char *buf,
                          size_t cap);
/* Fairness: are these rolls what fair dice give?                           */

/*
 * A log of rolls (a bot's, a table's) judged against the exact
 * distributions of their expressions. Each roll is placed by a randomised
 * probability integral transform: u = P(X < total) + V P(X = total), V
 * uniform in [0, 1) from the accumulator's own generator (seeded, so a
 * judgement is reproducible). For fair dice u is uniform on [0, 1)
 * whatever the expression, so rolls of different expressions combine.
 *
 *   alea_fairness *f = alea_fairness_new(ctx, 7);
 *   alea_fairness_add(f, "d20", 3, 17);          // one line of the log
 *   ...
 *   alea_fairness_result r;
 *   alea_fairness_judge(f, &r);                  // r.verdict
 *   alea_fairness_free(f);
 *
 * The tests (docs/fairness.md says how to read them):
 *   "mean"        the mean of u against 1/2 (z = (sum u - n/2) / sqrt(n/12),
 *                 two-sided, normal): are the rolls low or high?
 *                 direction -1 low, +1 high
 *   "ks"          Kolmogorov-Smirnov distance of u from the uniform,
 *                 measured at ALEA_FAIRNESS_BINS equally spaced points,
 *                 p from the Kolmogorov distribution with Stephens'
 *                 correction ((sqrt n + 0.12 + 0.11 / sqrt n) D): is the
 *                 spread wrong (too many extremes, too few)?
 *   "chi-square"  per expression with enough rolls: its counts against
 *                 its exact distribution, outcomes pooled with their
 *                 neighbours (from the low end) until each cell expects
 *                 at least ALEA_FAIRNESS_EXPECTED rolls; the p-value is
 *                 the regularized upper incomplete gamma function
 *                 Q(df / 2, x / 2) (series and continued fraction)
 * "mean" and "ks" run from ALEA_FAIRNESS_MIN_ROLLS rolls; a chi-square
 * needs at least two cells. Each p-value is adjusted for the number of
 * tests run (Holm's step-down correction); the rolls are "not fair" when
 * an adjusted p-value is below ALEA_FAIRNESS_ALPHA.
 */
typedef struct alea_fairness alea_fairness;

#define ALEA_FAIRNESS_ALPHA 0.01    /* the verdict's threshold, Holm-adjusted */
#define ALEA_FAIRNESS_MIN_ROLLS 10  /* rolls before "mean" and "ks" run */
#define ALEA_FAIRNESS_EXPECTED 5.0  /* least expected rolls of a chi-square cell */
#define ALEA_FAIRNESS_BINS 65536    /* points of "ks": D within 1/65536 (512 KiB) */
/* Distinct expression texts one accumulator holds, each with its exact
 * distribution and a count per outcome (a log of a game has a few dozen;
 * each costs its distribution's memory, within the MEMORY limit). */
#define ALEA_FAIRNESS_EXPRESSIONS 256
#define ALEA_FAIRNESS_EXPRESSIONS_MAX 65536

/* A new accumulator using ctx (which must outlive it), its generator
 * seeded with seed. NULL when out of memory (recorded in ctx). Holds
 * ALEA_FAIRNESS_BINS counts (512 KiB) from the start. */
alea_fairness *alea_fairness_new(alea_ctx *ctx, uint64_t seed);
/* alea_fairness_free(NULL) does nothing. */
void alea_fairness_free(alea_fairness *f);

/* Sets the limit of distinct expressions (value < 0 only queries; above
 * ALEA_FAIRNESS_EXPRESSIONS_MAX it is lowered to it; below those already
 * held, raised to them) and returns the previous value. */
int64_t alea_fairness_limit(alea_fairness *f, int64_t value);

/*
 * Places one roll: the expression's text (len bytes; the first time a text
 * is seen it is compiled and its exact distribution computed, within ctx's
 * limits) and the total it rolled (for a repeat, "6 x 4d6kh3", one roll's
 * total). Errors, recorded in ctx with their span in the text, the roll
 * not counted and the refusal counted (alea_fairness_result's refused):
 * those of alea_expr_compile and alea_expr_dist; ALEA_ERR_DOMAIN for a
 * total the distribution cannot give ("d20 cannot total 21 (its totals run
 * from 1 to 20)"), or an estimate's; ALEA_ERR_LIMIT past the distinct
 * expressions limit or 2^53 rolls; ALEA_ERR_ARGUMENT for NULL. Cost: a
 * hash of the text and a binary search, charged to the WORK limit.
 */
alea_status alea_fairness_add(alea_fairness *f, const char *expr, size_t len, int64_t total);

/* Places n rolls of one expression (a repeat's, "6 x 4d6kh3": each roll's
 * total), all of them or none: a total its distribution cannot give
 * refuses the whole (one refusal counted). Errors and cost as
 * alea_fairness_add, n placements; n 0 places nothing but checks the
 * text. */
alea_status alea_fairness_add_rolls(alea_fairness *f, const char *expr, size_t len,
                                    const int64_t *totals, size_t n);

/* The rolls placed so far (a host can bound a request's before judging). */
int64_t alea_fairness_rolls(const alea_fairness *f);

typedef struct alea_fairness_test {
    const char *name;       /* "mean", "ks" or "chi-square" */
    const char *expression; /* chi-square: the expression's text, else NULL */
    double statistic;       /* z, D, or the chi-square sum */
    double p;               /* its p-value */
    double p_adjusted;      /* Holm-adjusted over the tests run */
    int64_t rolls;          /* the rolls it used */
    int direction;          /* mean: -1 low, +1 high (0 exactly fair) */
    int df;                 /* chi-square: degrees of freedom (cells - 1) */
    size_t outcomes;        /* chi-square: the outcomes of the distribution */
    char pooled[96];        /* chi-square: the cells pooled, "3..4, 17..18"
                               ("" none; "..." ends a longer list) */
} alea_fairness_test;

typedef enum alea_fairness_verdict {
    ALEA_FAIRNESS_FAIR,     /* "consistent with fair dice" */
    ALEA_FAIRNESS_UNFAIR,   /* an adjusted p-value below ALEA_FAIRNESS_ALPHA */
    ALEA_FAIRNESS_TOO_FEW   /* no test ran: too few rolls */
} alea_fairness_verdict;

typedef struct alea_fairness_result {
    int64_t rolls;   /* rolls placed */
    int64_t refused; /* adds that returned an error */
    size_t ntests;
    const alea_fairness_test *tests; /* mean, ks, then chi-squares */
    alea_fairness_verdict verdict;
    int direction;   /* UNFAIR through "mean": -1 low, +1 high; else 0 */
    double p;        /* the least adjusted p-value (1 when no test ran) */
    const char *text; /* the verdict for a person: "consistent with fair
                         dice", "these rolls are lower than fair dice
                         give: p = 0.003" */
} alea_fairness_result;

/*
 * Runs the tests on the rolls placed so far and fills *out; its pointers
 * are owned by f, valid until its next add, judge or free. Errors:
 * ALEA_ERR_NOMEM, the WORK limit (charged an outcome of each expression and
 * the bins), ALEA_ERR_INTERRUPTED, ALEA_ERR_ARGUMENT for NULL.
 */
alea_status alea_fairness_judge(alea_fairness *f, alea_fairness_result *out);

/* ------------------------------------------------------------------------ */
/* Monte Carlo estimates                                                    */

/*
 * For expressions past the exact engine's budget: roll many times and count
 * each value. A tally holds the counts (at most the SUPPORT limit of
 * distinct values, in the context's memory).
 *
 *   alea_tally *t = alea_tally_new(ctx);
 *   alea_tally_sample(ctx, e, t, 1000000);
 *   alea_dist *d;
 *   alea_tally_dist(ctx, t, e, &d);   // an estimate: alea_dist_samples(d)
 *
 * To use several threads, give each its own context seeded with
 * alea_ctx_seed_stream(ctx, seed, thread), its own compiled expression and
 * tally, then merge the tallies into one after the threads are joined.
 */
typedef struct alea_tally alea_tally;

/* An empty tally; NULL if out of memory (recorded in the context). */
alea_tally *alea_tally_new(alea_ctx *ctx);
void alea_tally_free(alea_tally *tally);

/*
 * Rolls expr n times (as alea_expr_sample: each roll within the limits) and
 * counts the totals in tally. The interrupt hook is polled every 4096
 * rolls. Errors: those of alea_expr_sample, and ALEA_ERR_LIMIT when more
 * distinct values turn up than the SUPPORT limit; the rolls counted before
 * an error stay in the tally. Cost: about the cost of n rolls.
 */
alea_status alea_tally_sample(alea_ctx *ctx, const alea_expr *expr, alea_tally *tally,
                              uint64_t n);

/* Adds the counts of from (which may belong to another context, as long as
 * no other thread uses it meanwhile) to into, a tally of ctx. */
alea_status alea_tally_merge(alea_ctx *ctx, alea_tally *into, const alea_tally *from);

/*
 * Counts count more rolls of value in tally, as if alea_tally_sample had
 * drawn them: a host that merges counts it received (from workers, a file)
 * builds the tally here, and alea_tally_dist gives the same estimate as the
 * tally that sampled them. count 0 adds nothing. Errors: ALEA_ERR_LIMIT
 * when a new value would pass the SUPPORT limit of distinct values, or the
 * tally's total would pass 2^53 rolls (counts are exact up to there),
 * both with the tally unchanged; ALEA_ERR_NOMEM; the errors of the WORK
 * limit and the interrupt hook, charged the hash table's probes. Cost:
 * constant, on average.
 */
alea_status alea_tally_add(alea_ctx *ctx, alea_tally *tally, int64_t value, uint64_t count);

/* How many rolls the tally has counted. */
uint64_t alea_tally_total(const alea_tally *tally);

/*
 * The estimated distribution: each value's share of the rolls, with the
 * number of samples and intervals (above); expr is the expression sampled
 * (its text and, for dd(), its labels). ALEA_ERR_ARGUMENT for an empty
 * tally.
 */
alea_status alea_tally_dist(alea_ctx *ctx, const alea_tally *tally, const alea_expr *expr,
                            alea_dist **out);

/* ------------------------------------------------------------------------ */
/* Writing distributions and numbers                                        */

/*
 * Writes the distribution as ALEA_FORMAT_CSV (above; the cumulative columns
 * take 16 bytes an outcome from the context's allocator while it runs, and
 * 0 is returned without them), or as ALEA_FORMAT_JSON:
 *   {"expression": "...", "outcomes": [[value, probability], ...],
 *    "mean": m, "sd": s, "min": a, "max": b, "truncated": t}
 * expression is the source text the expression was compiled from. Keys
 * that follow only when the distribution has them: "labels": [[value,
 * "name"], ...] (dd() outcomes), "samples": n and "intervals": [[lo, hi], ...]
 * (an estimate, one interval per outcome), and "flags": {"critical
 * failure": p, ...} (event() pools).
 * snprintf contract, as alea_roll_format. A text longer than the OUTPUT
 * limit of the context that computed dist is refused: nothing is written
 * (buf holds "" when cap > 0), 0 is returned, and that context's error is
 * ALEA_ERR_LIMIT, "too much output: the CSV would pass N bytes (output
 * limit is N)" over the expression's span; formatting stops at the row
 * that passes it.
 */
size_t alea_dist_format(const alea_dist *dist, alea_format format, char *buf,
                        size_t cap);

/*
 * Charts as SVG documents (snprintf contract, as alea_dist_format; the
 * OUTPUT limit applies, with its refusal and error as there, "too much
 * output: the SVG passes N bytes (output limit is N)"). Each is readable in
 * grey print (lines differ by dash and marker; a heat map's cells print
 * their numbers on a ramp that darkens as they grow) and by a screen
 * reader: role="img" labelled by a <title> and a <desc> that lists every
 * number drawn (4 significant digits). Each bar, marker and cell carries
 * its exact number: data-value (the outcome, or the row's value),
 * data-y (the probability or number, as alea_format_double writes it),
 * and in a heat map data-row and data-col. User text is escaped for XML
 * (invalid UTF-8 and control characters become U+FFFD).
 *
 * alea_svg_dists: the chance of each outcome of the n distributions (1 to
 * 16; 0 returned and nothing written otherwise), bars for one, a line per
 * distribution with a legend for more; labels[k] names distribution k in
 * the legend and title (labels NULL, or labels[k] NULL: its expression's
 * text). The runs of outcomes below 0.005% at either end are not drawn (as
 * `alea dist` hides them; the chart says how many), a dd()'s named outcomes
 * always are, by name. The limit and error are those of dists[0]'s context.
 *
 * alea_svg_grid: a table of numbers, cells[r * cols + c] for the rows
 * values of row_name (row_values) and cols columns named col_labels[c]
 * (NaN: a cell without a number). With col_name set (the second name
 * swept), a heat map: a row per row value, a column per col_labels; with
 * col_name NULL, a line per column (at most 16: statistics of one name)
 * over the row values, with a legend. is_prob: the cells are
 * probabilities, shown in percent. title heads the picture. 0 and nothing
 * written for a missing argument, no rows or columns. Cost: linear in the
 * cells (and in the outcomes drawn), and the output limit stops it.
 */
size_t alea_svg_dists(const alea_dist *const *dists, const char *const *labels, size_t n,
                      char *buf, size_t cap);
size_t alea_svg_grid(alea_ctx *ctx, const char *title, const char *row_name,
                     const int64_t *row_values, size_t rows, const char *col_name,
                     const char *const *col_labels, size_t cols, const double *cells,
                     int is_prob, char *buf, size_t cap);

/*
 * Writes v in the fewest significant digits (15, 16 or 17) that read back
 * as exactly v ("0.1", not "0.10000000000000001"), as the JSON above does;
 * "null" for NaN and infinities. snprintf contract; 32 bytes always
 * suffice. About 0.06 us a number from 1e-11 to 1e17, 0.2 us below, and up
 * to 2 us near the largest doubles.
 */
size_t alea_format_double(double v, char *buf, size_t cap);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* ALEA_H */
