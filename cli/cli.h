/*
 * cli.h -- what the files of the command line share: the commands, the
 * exit statuses, the parsed options, and each file's entry points.
 *
 * The pipeline, in the order a command runs:
 *   main.c      picks the command, runs it, maps the result to the exit status
 *   options.c   the option table, and the parser that reads argv through it
 *   help.c      --help, printed from the same table
 *   commands.c  roll, dist, compare: compile, evaluate within the limits
 *   sample.c    dist --sample: the estimate, on several threads
 *   table.c     distributions and comparisons as text tables, bars and CSV
 *   input.c     one expression per line of standard input
 *   session.c   the interactive session
 *   timer.c     --timeout and --time-limit
 *   heap.c      huge pages for the evaluations' memory, where Linux has them
 *   report.c    every error: usage, the library's (with a caret), memory
 *   suggest.c   "did you mean": the nearest command or option to a typo
 *   fairness.c  alea fairness: a log of rolls judged against fair dice
 *   serve.c     alea serve: roll, dist and compare as an HTTP JSON service
 *               (with serve_http.c, serve_queue.c, serve_api.c and
 *               serve_openapi.c, which share serve.h)
 * Like any other host, the command line uses only the public headers of the
 * library: <alea.h>, and <alea_games.h> for Double Down's boons and banes.
 */
#ifndef ALEA_CLI_H
#define ALEA_CLI_H

#include <alea.h>
#include <alea_games.h> /* the boon tables of the options */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* A macro's value as a string: STR(THREADS_MAX) is "64". */
#define STR_(x) #x
#define STR(x) STR_(x)

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2,
       EXIT_UNFAIR = 3 /* alea fairness: the rolls are not what fair dice give */ };

typedef enum command {
    CMD_ROLL, CMD_DIST, CMD_COMPARE, CMD_SERVE, CMD_TABLE, CMD_FAIRNESS, CMD_POLICY, CMD__COUNT
} command;

extern const char *const command_names[CMD__COUNT]; /* main.c */

typedef enum cumul_mode { SHOW_EXACT, SHOW_AT_LEAST, SHOW_AT_MOST } cumul_mode;

#define BOON_ROWS 64 /* rows of a --boons table */
/* --timeout's largest value: a day, in milliseconds. */
#define TIMEOUT_MAX_MS 86400000
/* --time-limit's default and largest values, in seconds. */
#define TIME_LIMIT_DEFAULT 60
#define TIME_LIMIT_MAX 604800
/* --sample: at most 10^12 rolls; --threads: at most 64. */
#define SAMPLE_MAX 1000000000000
#define THREADS_MAX 64

/*
 * --timeout: a deadline that the library polls through its interrupt hook
 * (every few thousand steps). Armed afresh for each expression: all its
 * rolls, or its distribution; on standard input, each line.
 */
typedef struct timer {
    int64_t ms; /* 0: no deadline */
    struct timespec at;
    /* --time-limit: the whole command's (each line's, on standard input and
     * in the session), so that a script's wrong count (roll -n 10^12) stops
     * with a message instead of running for hours. */
    int64_t cmd_s; /* 0: none */
    struct timespec cmd_at;
} timer;

/* table: the statistics one command computes (--stat, each a table or a
 * column), and the cells it computes by default: a designer's grid is
 * tens by tens; 10000 dist runs of a small expression take about a
 * second, and the cells share the one work limit besides. */
#define STATS_MAX 8
/* compare --svg: the lines one chart draws at most (the library's, a legend
 * row each; past 16 no one tells them apart). */
#define SVG_LINES_MAX 16
#define TABLE_CELLS 10000
#define TABLE_CELLS_MAX 1000000

/* compare's named columns, "adv=2d20kh1": a name is letters, digits, '_'
 * and '-', from a letter or '_', at most this long (the header's width). */
#define COLUMN_NAME_MAX 24
typedef char column_name[COLUMN_NAME_MAX + 1];

/* The session's rolls, for :fairness (session.c). */
typedef struct roll_log roll_log;

/* What the arguments asked for (options.c fills it from the option table). */
typedef struct options {
    int64_t limit[ALEA_LIMIT__COUNT];
    int limit_set[ALEA_LIMIT__COUNT];
    double tail;
    int tail_set;
    int dialect; /* --dialect: an alea_dialect */
    int markdown; /* --format markdown: rolls as chat Markdown */
    const char *tail_text;
    int64_t n;
    uint64_t seed;
    int seed_set;
    int json, csv;
    int exact; /* --exact: fractions (dist, compare) */
    int all;   /* --all: the tables' negligible tails too (table.c) */
    int luck;  /* roll --luck: each roll's place in its distribution */
    roll_log *log; /* the session's rolls, which roll_one adds to; NULL elsewhere */
    cumul_mode cumul;
    int help;
    const char **exprs; /* borrowed from argv, or from joined */
    size_t nexprs;
    char *joined; /* the repeats "6 x 4d6kh3" written as three words, or the
                     arguments joined (join_arguments), or NULL */
    int argc;     /* the command's arguments as given (serve hands them on) */
    char **argv;
    int from_stdin; /* no EXPR: one per line of standard input */
    int repl;       /* no EXPR and a terminal: the interactive session */
    int color;      /* breakdowns in colour: stdout a terminal, NO_COLOR unset */
    /* Boons of the Double Down roll: the game's tables, given as data. */
    int boons_set;
    int64_t boon_diff[BOON_ROWS], boon_count[BOON_ROWS];
    alea_boon_table boons;
    int64_t drive;
    int support;
    timer *timer; /* owned by run() */
    /* dist --sample: a Monte Carlo estimate from this many rolls, on this
     * many threads (0: every core) */
    int64_t sample, threads;
    /* serve: where it listens, and the bounds of its requests (serve.c) */
    int64_t port;
    const char *bind;
    int64_t max_connections, max_request, max_response, idle_timeout;
    int64_t max_rolls; /* serve: /fairness's rolls a request */
    /* serve: what one client address, all answers and the log may take
     * (serve.c) */
    int64_t max_client_connections, max_pending, max_queue, max_client_queue;
    int64_t request_timeout, write_timeout, log_limit;
    /* compare: each column's name ("" for none), read by compile_all from
     * "name=expr" (exprs[i] then points at expr); NULL: no names */
    column_name *names;
    /* table: --stat, in order, and --cells (0: TABLE_CELLS) */
    const char *stats[STATS_MAX];
    int nstats;
    int64_t cells;
    int pairs; /* compare --pairs: the distances of every pair of columns */
    const char *svg; /* --svg FILE: the chart's picture goes there too ("-":
                        standard output, in place of the text); NULL: none */
} options;

/* A growing byte buffer for the library's snprintf-style formatters. */
typedef struct buffer {
    char *p;
    size_t cap;
} buffer;

/* Widest expression header in the compare table. */
#define HEADER_MAX 24

/* One column of the comparison: a distribution and a cursor over it. */
typedef struct column {
    alea_dist *d;
    double *least, *most;
    size_t n, at;
    int width;
    char head[HEADER_MAX * 4 + 1]; /* room for UTF-8 */
} column;

/* ---- options.c ----------------------------------------------------------- */

/* Parses argv[0..argc) (the words after the command) into o, whose exprs
 * has room for argc pointers. Returns EXIT_OK or EXIT_USAGE (reported). */
int parse_args(command cmd, int has_cmd, int argc, char **argv, options *o);
/* How many of argv[0..argc) are options of cmd and their values, before
 * the first word that is not (a "--" counted): the session's ":dist
 * --at-least 3d6" has its expression after them. *open: the last one
 * needs a value that is not there. */
int leading_options(command cmd, int argc, char **argv, int *open);
/* A decimal integer from 0 to 2^64 - 1, the whole string. */
int parse_u64(const char *s, uint64_t *out);
/* Sets the limits and tail bound of o on ctx; 0 when the tail bound is out
 * of range. */
int apply_limits(alea_ctx *ctx, const options *o);

/* ---- help.c -------------------------------------------------------------- */

void help_main(FILE *f);
void help_command(command cmd, FILE *f);
/* alea help syntax: the dice language on one screen. */
void help_syntax(FILE *f);

/* ---- suggest.c ----------------------------------------------------------- */

/* "did you mean": offer each known word; the result is the nearest near
 * miss (one edit, two for words of six or more letters), or NULL. */
typedef struct suggestion {
    const char *word; /* the mistyped word (borrowed) */
    size_t dist;
    char best[48];
} suggestion;
void suggest_start(suggestion *s, const char *word);
void suggest_offer(suggestion *s, const char *candidate);
const char *suggest_result(const suggestion *s);

/* ---- commands.c ---------------------------------------------------------- */

int buffer_reserve(buffer *b, size_t need);
/* A library object's text as its alea_*_format writes it (their contract:
 * the length, 0 past the output limit), printed whole, a newline after
 * JSON; past the limit the library's error in ctx and the hint. */
typedef size_t (*formatter)(const void *obj, alea_format f, char *buf, size_t cap);
int print_formatted(alea_ctx *ctx, formatter write, const void *obj, alea_format f);
/* Compiles every expression of o into ex (reports the first error). With
 * o->names, a word that is not an expression but "name=expr" with expr one
 * is a named column: no valid expression is ever read as a name. */
int join_arguments(alea_ctx *ctx, options *o, int *joined);
int compile_all(alea_ctx *ctx, const options *o, alea_expr **ex);
/* Rolls e (compiled from src) o->n times, a line per roll; roll and b are
 * reused from call to call. */
int roll_one(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
             alea_roll *roll, buffer *b);
/* The breakdown line (len_in bytes, as alea_roll_format wrote roll) with
 * each roll's luck in d (roll --luck) written into b, its length in *len:
 * in text after each line, in JSON as "luck" before the closing brace (a
 * list for a repeat). 0 when out of memory. */
int roll_luck(const alea_roll *roll, const alea_dist *d, int json, const char *line,
              size_t len_in, buffer *b, size_t *len);
/* Prints the distribution of e (compiled from src) as o asks. */
int dist_one(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
             buffer *b);
int cmd_roll(alea_ctx *ctx, const options *o, alea_expr **ex);
int cmd_dist(alea_ctx *ctx, const options *o, alea_expr **ex);
int cmd_compare(alea_ctx *ctx, const options *o, alea_expr **ex);
/* policy.c: the best choice in each situation of the expression's first choice point. */
int cmd_policy(alea_ctx *ctx, const options *o, alea_expr **ex);

/* ---- sweep.c ------------------------------------------------------------- */

/* alea table EXPR NAME=A..B [NAME=A..B] [--stat STAT]...: o->exprs[0] is
 * the expression, the rest the names swept. */
int cmd_table(alea_ctx *ctx, const options *o);
/* --svg: the chart of the n distributions (labels: their names, or NULL)
 * written to o->svg; src names the first in an error. */
int svg_dists(alea_ctx *ctx, const options *o, const alea_dist *const *ds,
              const char *const *labels, size_t n, const char *src);
/* --svg of a table: alea_table_svg's picture (the heat map of the first
 * statistic with two names) written to o->svg; src names it in an error. */
int svg_table(alea_ctx *ctx, const options *o, const alea_table *t, const char *src);
/* --svg '-': the picture takes standard output's place. */
int svg_to_stdout(const options *o);

/* ---- sample.c ------------------------------------------------------------ */

/* The distribution of e (compiled from the len bytes of src) estimated from
 * o->sample rolls on *threads threads, streams of *seed. */
int estimate(alea_ctx *ctx, const options *o, const alea_expr *e, const char *src,
             size_t len, uint64_t *seed, uint32_t *threads, alea_dist **out);

/* ---- table.c ------------------------------------------------------------- */

/* The exact value of `what` (of outcome i) as a new string, or NULL. */
char *fraction(const alea_dist *d, alea_fraction what, size_t i);

/* most[i] = P(X <= v_i), least[i] = P(X >= v_i); 0 if out of memory. */
int cumulate(const alea_dist *d, double **least, double **most);
/* The table hides the runs of rows at either end whose chance is below
 * TAIL_SHOWN (they would read 0.00), and says how many and how much; all
 * shows them. The rows between always show. */
#define TAIL_SHOWN 0.00005
/* Returns 0, printing nothing, when the table would pass max_output bytes
 * (reckoned before it is printed: every bar at its longest). */
int dist_table(const alea_dist *d, const char *src, cumul_mode mode, const double *least,
               const double *most, int all, int64_t max_output);
/* The comparison of ncols columns (their distributions cumulated), as a
 * table or CSV; the headers are made from o->exprs. */
int compare_table(alea_ctx *ctx, column *cols, size_t ncols, size_t total,
                  const options *o);

/* ---- versus.c ------------------------------------------------------------ */

/* compare's distances between two of its columns, a < b (alea_dist_versus);
 * fractions: with both exact, the six as "num/den" text separated by
 * spaces (malloc'd), else NULL. */
typedef struct versus_row {
    size_t a, b;
    alea_versus v;
    char *fractions;
} versus_row;
/* The pairs of the columns d[0..ncols): each against the first, or every
 * pair (all), within `work` units in all (the work limit is restored);
 * *out malloc'd (NULL and 0 for fewer than two columns). An error is the
 * library's (in ctx), or ALEA_ERR_NOMEM unrecorded. */
alea_status versus_compute(alea_ctx *ctx, const alea_dist *const *d, size_t ncols, int all,
                           int64_t work, versus_row **out, size_t *nout);
void versus_free(versus_row *rows, size_t n);
/* "versus": [{"a": 0, "b": 1, "p_greater": ..., "emd": ...}, ...] (the
 * fractions as strings in exact mode): snprintf contract. */
size_t versus_json(const versus_row *rows, size_t n, char *buf, size_t cap);
/* The block under compare's table: a line per pair (A > B, A = B, A < B in
 * percent, TV, KS, EMD), the columns' headers naming them. */
void versus_text(const versus_row *rows, size_t n, const column *cols);

/* ---- fairness.c ------------------------------------------------------------ */

/* Why a line of a log of rolls was refused: [start, end) bytes of the
 * line, the message, and the library's status (ALEA_OK for the line's own
 * syntax). */
typedef struct fairness_line_error {
    size_t start, end;
    alea_status status;
    char msg[ALEA_ERROR_LINE_MAX + 64];
} fairness_line_error;

/* Adds the rolls of one line of a log to f: "EXPR TOTAL" (the last field
 * the total), a line of roll --json (its "expression" and "total", or each
 * roll's of its "repeat"), nothing for a blank line or a '#' comment.
 * 1 when added, 0 with *e filled. */
int fairness_line(alea_ctx *ctx, alea_fairness *f, const char *line, size_t len,
                  fairness_line_error *e);
/* The result as one JSON object and a newline (docs/fairness.md);
 * refused: the lines (or rolls) refused. */
void fairness_json(FILE *out, const alea_fairness_result *r, uint64_t seed, int64_t refused);
/* The result as text, what alea fairness prints: the rolls, a line per
 * test, the verdict. */
void fairness_text(FILE *out, const alea_fairness_result *r, uint64_t seed, int64_t refused);
int cmd_fairness(alea_ctx *ctx, const options *o);

/* ---- input.c, session.c -------------------------------------------------- */

int cmd_lines(alea_ctx *ctx, const options *o, command cmd, int has_cmd);
int cmd_repl(alea_ctx *ctx, options *o);
/* Keeps the last roll of src (each roll of a repeat), rolled in ctx's
 * dialect, for :fairness; past the log's bounds, only counts it. */
void roll_log_add(roll_log *log, const alea_ctx *ctx, const char *src, const alea_roll *roll);

/* ---- timer.c ------------------------------------------------------------- */

int command_expired(const timer *t);
int timer_expired(void *ud); /* the library's interrupt hook */
void timer_arm(timer *t);   /* one expression's deadline (--timeout) */
void command_arm(timer *t); /* a command's, or a line's (--time-limit) */

/* ---- heap.c -------------------------------------------------------------- */

void heap_prepare(void); /* before the first evaluation; only a hint */

/* ---- serve.c ------------------------------------------------------------- */

/* alea serve: its defaults, and the range of each setting. */
#define SERVE_PORT 8080
#define SERVE_PORT_MAX 65535
#define SERVE_BIND "127.0.0.1"
/* Connections open at once, from all clients: each costs libmicrohttpd's
 * buffer (32 KiB at most) while its request arrives; the memory of the
 * evaluations and answers is bounded apart (SERVE_QUEUE, SERVE_PENDING).
 * More wait in the listen queue until one ends. */
#define SERVE_CONNECTIONS 128
#define SERVE_CONNECTIONS_MAX 10000
/* Connections one client address may hold open: a client that holds them
 * (slow headers, unread answers) leaves the rest of SERVE_CONNECTIONS to
 * the others; one more from that address is closed as it is accepted. */
#define SERVE_CLIENT_CONNECTIONS 8
/* Requests admitted at once, waiting for a thread or being evaluated, from
 * all clients (past it, 503), and from one address (past it, 429): a
 * client that loops expensive requests waits behind its own, and a cheap
 * request from another address is taken by the next free thread. */
#define SERVE_QUEUE 64
#define SERVE_QUEUE_MAX 10000
#define SERVE_CLIENT_QUEUE 4
/* Bytes of all answers held at once, built and not yet read by their
 * clients: with the evaluations' memory (--threads times --max-memory) and
 * the program's own, the server stays under 64 MiB when clients stop
 * reading. An answer that would pass it is refused with 503. */
#define SERVE_PENDING 16777216
#define SERVE_PENDING_MAX 17179869184
/* Seconds a request may take to arrive, its headers and body together,
 * counted from the connection's start or the end of its previous answer
 * (past it, 408 and the connection closed): a client that sends a byte
 * now and then holds a connection no longer than this. */
#define SERVE_REQUEST_TIMEOUT 10
/* Seconds an answer may take to be read by its client (past it, the
 * connection is closed and the answer's memory freed). */
#define SERVE_WRITE_TIMEOUT 10
/* libmicrohttpd's messages (one per malformed request) written to stderr
 * per minute; the rest are counted, and the count is written. */
#define SERVE_LOG_LIMIT 10
#define SERVE_LOG_LIMIT_MAX 1000000
/* A request body: an expression of the source limit (4 KiB) and its
 * options fit many times over; the largest, room for the source maximum. */
/* /fairness: rolls judged in one request. A roll costs a hash of its text
 * and a binary search (about 0.1 us); the body limit bounds them first
 * (5 bytes a roll of "d6 1\n"): 4 MiB holds about 800,000. */
#define SERVE_FAIRNESS_ROLLS 100000
/* The session's rolls kept for :fairness (--max-rolls): 12 MiB of them,
 * hours of :roll -n. */
#define SESSION_ROLLS 1048576
#define SERVE_FAIRNESS_ROLLS_MAX 10000000
#define SERVE_REQUEST 65536
#define SERVE_REQUEST_MAX 4194304
/* A response: a distribution near the support limit is about 3 MB of JSON
 * ('1d300 * 1d300 + 1d300', 90299 outcomes: 2.9 MB); the largest, 1 GiB. */
#define SERVE_RESPONSE 8388608
#define SERVE_RESPONSE_MAX 1073741824
/* Seconds a connection may stay silent before it is closed. */
#define SERVE_IDLE 10
#define SERVE_IDLE_MAX 3600
/* A request's deadline, in milliseconds: an evaluation within the default
 * limits ends in about 100 ms. */
#define SERVE_TIMEOUT 1000

/* The settings serve starts from, before the options. */
void serve_defaults(options *o);
/* Listens until SIGINT or SIGTERM; EXIT_FAIL when it cannot start. The
 * server is a program of its own, alea-serve (this file built with HTTP):
 * the HTTP libraries cost every run that links them about 5 ms to load, so
 * alea itself is built without them and its serve runs alea-serve, from
 * the directory alea is in (or the PATH), with the same arguments. */
int cmd_serve(const options *o);

/* ---- report.c ------------------------------------------------------------ */

/* "alea: <message>" and the pointer to --help; returns EXIT_USAGE. */
int usage_error(command cmd, int has_cmd, const char *fmt, ...) PRINTF_LIKE(3, 4);
int out_of_memory(void);
/* The context's last error, with the expression and a caret under its span
 * (src may be NULL); returns EXIT_FAIL. */
int report(const alea_ctx *ctx, const char *src);
int report_len(const alea_ctx *ctx, const char *src, size_t len);
int report_time_limit(const timer *t);
/* After a limit error: a hint line with what would let the expression
 * through (the limit's option, and the ways below where they help). */
enum { HINT_SAMPLE = 1, HINT_EXACT = 2 };
void report_limit_hint(alea_ctx *ctx, unsigned ways);
/* report(), then the hint of a limit error. */
int report_limit(alea_ctx *ctx, const char *src, unsigned ways);
/* A text (what: "distribution's table", "comparison's JSON") past the output
 * limit, in the library's words (alea_dist_format), with the caret under
 * the expression and the hint; returns EXIT_FAIL. */
int report_output_limit(alea_ctx *ctx, const char *src, const char *what);
/* A compiled expression's hint about a likely mistake, if it has one. */
void report_hint(const alea_expr *e);
/* The timer whose expiry explains an interrupted evaluation. */
void report_use_timer(const timer *t);
void put_excerpt(const char *src, size_t len, size_t start, size_t end);
/* The same on f: the expression's line and a line of carets under the span
 * (serve.c puts it in its error answers). */
void put_excerpt_to(FILE *f, const char *src, size_t len, size_t start, size_t end);
/* The bytes of the character at s[i]: a valid UTF-8 sequence, else 1. */
size_t unit_len(const unsigned char *s, size_t len, size_t i);

#endif
