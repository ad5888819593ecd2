/*
 * parse.h -- what the parser (parse.c) offers the game mechanics (src/mech/)
 * for parsing their calls: "name(" arguments ")" after the call's name.
 * Each function records its error in the context, with the span, as the
 * parser's own rules do, and returns its status.
 */
#ifndef ALEA_PARSE_H
#define ALEA_PARSE_H

#include "ast.h"

typedef struct alea__parser alea__parser;

/* Whether the n letters at s are a word of the language lang: a built-in
 * call's name, an extra dice's word, a mechanic's name or word (matched
 * without case). */
ALEA__HIDDEN int alea__parse_is_word(const alea__lang *lang, const char *s, size_t n);

/* Whether the tree is parsed only to be printed (another dialect's reading
 * of the text, for a hint): a mechanic may then leave out the work that
 * only rolling and computing need, such as a table of decisions. */
ALEA__HIDDEN int alea__parse_print_only(const alea__parser *p);

/* The context (for alea__error and alea__nomem). */
ALEA__HIDDEN alea_ctx *alea__parse_ctx(const alea__parser *p);

/* "(" after a call's name (what: the message's expected text, as
 * "'(' after the function name") and one level of the DEPTH limit; ")"
 * and the level left again. close_end (may be NULL) gets the end of ")". */
ALEA__HIDDEN alea_status alea__parse_open(alea__parser *p, const char *what);
ALEA__HIDDEN alea_status alea__parse_close(alea__parser *p, const char *what, size_t *close_end);

/* An argument: any expression. */
ALEA__HIDDEN alea_status alea__parse_arg(alea__parser *p, const node **out);
/* Takes a ',' if one is next: 1, else 0. */
ALEA__HIDDEN int alea__parse_comma(alea__parser *p);
/* A ',' that must come next (what: the message's expected text). */
ALEA__HIDDEN alea_status alea__parse_expect_comma(alea__parser *p, const char *what);
/* A whole number argument in [lo, hi]: a dice-free expression; fname and
 * what name it in the messages ("dd() modifier must be between 0 and 18"). */
ALEA__HIDDEN alea_status alea__parse_int(alea__parser *p, const char *fname, const char *what,
                                         int64_t lo, int64_t hi, int64_t *v);
/* A word argument among choices (NULL-terminated; matched without case):
 * *index is its position. expected names them in the message. */
ALEA__HIDDEN alea_status alea__parse_word(alea__parser *p, const char *const *choices,
                                          const char *expected, int *index);
/* A comparison ("=", "<>", "<", "<=", ">", ">=") if one is next: takes it,
 * *op its cmp_op (pool.h) and 1; else 0 and nothing taken. */
ALEA__HIDDEN int alea__parse_cmp(alea__parser *p, uint8_t *op);
/* The end of the token the parser stands on (the ")" of a call, before
 * alea__parse_close): a new node's span ends there. */
ALEA__HIDDEN size_t alea__parse_here(const alea__parser *p);

/* Memory of the expression (freed with it); NULL when out of memory. */
ALEA__HIDDEN void *alea__parse_alloc(alea__parser *p, size_t size);
/* A new node of the kind, spanning [start, end), counted against the
 * NODES limit; zeroed but for kind and span. */
ALEA__HIDDEN alea_status alea__parse_node(alea__parser *p, node_kind kind, size_t start,
                                          size_t end, node **out);
/* The sum of items (each joined with OP_ADD; one item stands alone),
 * spanning [start, end). */
ALEA__HIDDEN alea_status alea__parse_sum(alea__parser *p, const node *const *items, uint32_t n,
                                         size_t start, size_t end, const node **out);

/* A plain dice term: a literal count, faces 1..sides, no modifiers. */
ALEA__HIDDEN int alea__parse_plain_dice(const node *n, int64_t *count, int64_t *sides);
/* The plain dice terms of a pool "d12 + 2d14 + d18" (or one term); an
 * error naming fname otherwise. */
ALEA__HIDDEN alea_status alea__parse_pool_terms(alea__parser *p, const node *n, const char *fname,
                                                const node *const **items, uint32_t *nitems);
/* A new plain dice node count dX spanning [start, end). */
ALEA__HIDDEN alea_status alea__parse_dice(alea__parser *p, int64_t count, int64_t sides,
                                          size_t start, size_t end, const node **out);
/* The value of a dice-free expression: 1 and *v, or 0 if it has dice. */
ALEA__HIDDEN int alea__parse_const(const node *n, int64_t *v);

#endif /* ALEA_PARSE_H */
