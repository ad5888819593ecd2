/*
 * session.c -- "alea" at a terminal: read a line, roll it or run its
 * :command, print, again. Lines are edited and kept in a history with
 * libedit when the build has it.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* read */

/*
 * The bytes typed for one line, as they came: the line editor drops a NUL
 * and bytes that are not UTF-8 from the line it gives back, and a line with
 * one of them must be refused as standard input refuses it (by the
 * library, with its caret), not run without it. Capped at the source limit
 * and a little more: a longer line is refused for its length anyway.
 */
typedef struct typed {
    char *raw;
    size_t n, cap;
    int pending; /* a byte read past a broken UTF-8 sequence, or -1 */
} typed;

/* The offset of the first NUL or byte that is not UTF-8 of the n bytes
 * at s; n when there is none. */
static size_t non_text_at(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n; i += unit_len(u, n, i))
        if (u[i] == 0 || (u[i] >= 0x80 && unit_len(u, n, i) == 1))
            return i;
    return n;
}

/* Whether the n bytes at s hold an editing key (a control character other
 * than the NUL at `except`, or DEL): then they are not the line. */
static int edited(const char *s, size_t n, size_t except)
{
    for (size_t i = 0; i < n; i++)
        if (i != except && (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7F))
            return 1;
    return 0;
}

/* A line typed with a byte that is not text: refused as standard input
 * refuses it, by the library, when the bytes typed are the line; else
 * (edited with the arrow keys, say) by its value and where it was typed. */
static void refuse_typed(alea_ctx *ctx, const typed *t, size_t at)
{
    alea_expr *e = NULL;
    if (edited(t->raw, t->n, at))
        fprintf(stderr, "alea: syntax error: unexpected byte 0x%02X, the %zu%s byte typed "
                        "(only text is understood; the line editor would drop it)\n",
                (unsigned char)t->raw[at], at + 1,
                at % 10 == 0 && at % 100 != 10 ? "st" : at % 10 == 1 && at % 100 != 11 ? "nd"
                : at % 10 == 2 && at % 100 != 12 ? "rd" : "th");
    else if (alea_expr_compile(ctx, t->raw, t->n, &e) != ALEA_OK)
        report_len(ctx, t->raw, t->n);
    else /* the library takes no such byte: never reached */
        fputs("alea: the line holds a byte that is not text\n", stderr);
    alea_expr_free(e);
}

static void typed_put(typed *t, int c)
{
    if (t->n < t->cap)
        t->raw[t->n++] = (char)c;
}

#ifdef ALEA_HAVE_EDITLINE
#include <dlfcn.h>
#ifndef ALEA_EDITLINE_SONAME
#define ALEA_EDITLINE_SONAME "libedit.so.2"
#endif

/* libedit's functions the session uses (editline/readline.h), loaded by the
 * session alone: linked, libedit and the libraries it needs cost every run
 * of alea about 1.5 ms to load. Without it, lines are read plainly. */
typedef struct editline {
    void *lib;
    int (**getc_function)(FILE *); /* libedit's rl_getc_function */
    char *(*readline)(const char *prompt);
    void (*using_history)(void);
    void (*stifle_history)(int max);
    int (*read_history)(const char *path);
    int (*write_history)(const char *path);
    int (*add_history)(const char *line);
} editline;

/* Sets *fn to the function `name` of lib; 0 when it is missing. */
static int edit_sym(void *lib, const char *name, size_t size, void *fn)
{
    void *p = dlsym(lib, name);
    if (!p)
        return 0;
    memcpy(fn, &p, size); /* POSIX: a function's address, returned as void * */
    return 1;
}

/* The line being typed, for typed_getc (the editor's hook has no
 * argument of the caller's): the session's, while it reads a line. */
static typed *typing;

/* One byte of the terminal, recorded; -1 at the end of input. */
static int typed_byte(FILE *f)
{
    unsigned char b;
    if (typing->pending >= 0) {
        int c = typing->pending;
        typing->pending = -1;
        return c;
    }
    for (;;) {
        ssize_t r = read(fileno(f), &b, 1);
        if (r == 1) {
            typed_put(typing, b);
            return b;
        }
        if (r == 0 || errno != EINTR)
            return -1;
    }
}

/* libedit's rl_getc_function: a character to the editor, as a code point
 * (the editor reads it as a wide character), every byte recorded. A NUL or
 * a broken sequence goes to the editor as U+FFFD, which the line it gives
 * back is not used for: the recorded bytes are refused instead. */
static int typed_getc(FILE *f)
{
    int c = typed_byte(f);
    if (c < 0x80)
        return c == 0 ? 0xFFFD : c;
    int more = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2
               : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
    if (more < 0)
        return 0xFFFD;
    long cp = c & (0x3F >> more);
    for (int k = 0; k < more; k++) {
        int d = typed_byte(f);
        if (d < 0)
            return -1;
        if ((d & 0xC0) != 0x80) {
            typing->pending = d; /* the start of the next character */
            return 0xFFFD;
        }
        cp = cp << 6 | (d & 0x3F);
    }
    return (int)cp;
}

static int edit_load(editline *e)
{
    memset(e, 0, sizeof *e);
    e->lib = dlopen(ALEA_EDITLINE_SONAME, RTLD_NOW | RTLD_LOCAL);
#define SYM(f) edit_sym(e->lib, #f, sizeof e->f, &e->f)
    if (e->lib && SYM(readline) && SYM(using_history) && SYM(stifle_history) &&
        SYM(read_history) && SYM(write_history) && SYM(add_history) &&
        (e->getc_function = dlsym(e->lib, "rl_getc_function")) != NULL)
        return 1;
#undef SYM
    if (e->lib)
        dlclose(e->lib);
    memset(e, 0, sizeof *e);
    return 0;
}
#else
typedef struct editline {
    void *lib; /* always NULL: the build has no libedit */
} editline;
#endif

/*
 * The session's rolls, for :fairness: each roll's expression (an index
 * into the distinct texts, each with the dialect it was rolled in) and its
 * total, in the order rolled; a repeat's rolls one by one, as alea fairness
 * reads roll --json. Bounded: the rolls past max (--max-rolls,
 * SESSION_ROLLS), of a text past the accumulator's
 * ALEA_FAIRNESS_EXPRESSIONS or past ROLL_LOG_TEXT_BYTES of texts are
 * counted, not kept.
 */
#define ROLL_LOG_TEXT_BYTES (1u << 20) /* 256 texts of up to 4 KiB */

typedef struct log_text {
    char *text;
    int dialect;
    int refused; /* reported by the :fairness under way */
} log_text;

struct roll_log {
    log_text texts[ALEA_FAIRNESS_EXPRESSIONS];
    size_t ntexts, text_bytes, last;
    uint32_t *which; /* a roll's text */
    int64_t *totals;
    size_t n, cap, max;
    int64_t unkept;
};

/* The text of src in ctx's dialect, added when new; ntexts when it cannot be. */
static size_t log_text_of(roll_log *log, const alea_ctx *ctx, const char *src)
{
    int dialect = (int)alea_ctx_dialect(ctx);
    size_t k = log->last;
    if (k < log->ntexts && log->texts[k].dialect == dialect && !strcmp(log->texts[k].text, src))
        return k; /* the same as the roll before: :roll -n, an empty line */
    for (k = 0; k < log->ntexts; k++)
        if (log->texts[k].dialect == dialect && !strcmp(log->texts[k].text, src))
            return log->last = k;
    size_t len = strlen(src) + 1;
    if (k == ALEA_FAIRNESS_EXPRESSIONS || len > ROLL_LOG_TEXT_BYTES - log->text_bytes ||
        !(log->texts[k].text = strdup(src)))
        return log->ntexts;
    log->texts[k].dialect = dialect;
    log->texts[k].refused = 0;
    log->text_bytes += len;
    log->ntexts++;
    return log->last = k;
}

void roll_log_add(roll_log *log, const alea_ctx *ctx, const char *src, const alea_roll *roll)
{
    size_t count = alea_roll_count(roll), k = log_text_of(log, ctx, src);
    for (size_t i = 0; i < count; i++) {
        if (k == log->ntexts) {
            log->unkept += (int64_t)(count - i);
            return;
        }
        if (log->n == log->cap) {
            size_t cap = log->cap ? 2 * log->cap : 256;
            cap = cap < log->max ? cap : log->max;
            uint32_t *w = cap > log->cap ? realloc(log->which, cap * sizeof *w) : NULL;
            if (w)
                log->which = w;
            int64_t *t = w ? realloc(log->totals, cap * sizeof *t) : NULL;
            if (!t) {
                log->unkept += (int64_t)(count - i);
                return;
            }
            log->totals = t;
            log->cap = cap;
        }
        log->which[log->n] = (uint32_t)k;
        log->totals[log->n++] = alea_roll_total_at(roll, i);
    }
}

static void roll_log_free(roll_log *log)
{
    for (size_t k = 0; k < log->ntexts; k++)
        free(log->texts[k].text);
    free(log->which);
    free(log->totals);
}

/* :fairness [--json] [--seed S]: the session's rolls judged as alea
 * fairness judges a log (its text or JSON), placed with seed S or with a
 * seed of their own (never drawn from the session's generator, whose rolls
 * after it stay as they were). */
static int repl_fairness(alea_ctx *ctx, const options *c)
{
    roll_log *log = c->log;
    if (!log->n && !log->unkept) {
        puts("no rolls yet: :fairness judges the rolls of this session (type an expression "
             "to roll it)");
        return EXIT_OK;
    }
    uint64_t seed = c->seed;
    if (!c->seed_set) {
        alea_ctx *fresh = alea_ctx_new(NULL, NULL);
        if (!fresh)
            return out_of_memory();
        seed = alea_ctx_random(fresh);
        alea_ctx_free(fresh);
    }
    alea_fairness *f = alea_fairness_new(ctx, seed);
    if (!f)
        return report_len(ctx, NULL, 0);
    alea_dialect dialect = alea_ctx_dialect(ctx);
    int rc = EXIT_OK;
    for (size_t k = 0; k < log->ntexts; k++)
        log->texts[k].refused = 0;
    for (size_t i = 0; i < log->n; i++) {
        if (i % 1024 == 1023 && command_expired(c->timer)) {
            rc = report_time_limit(c->timer);
            break;
        }
        log_text *t = &log->texts[log->which[i]];
        alea_ctx_set_dialect(ctx, (alea_dialect)t->dialect);
        timer_arm(c->timer); /* --timeout: each roll's, as alea fairness each line's */
        alea_status st = alea_fairness_add(f, t->text, strlen(t->text), log->totals[i]);
        if (st == ALEA_ERR_NOMEM ||
            (st == ALEA_ERR_INTERRUPTED && command_expired(c->timer))) {
            rc = report_len(ctx, NULL, 0);
            break;
        }
        if (st != ALEA_OK && !t->refused) { /* once an expression */
            char msg[ALEA_ERROR_LINE_MAX];
            if (st == ALEA_ERR_INTERRUPTED)
                snprintf(msg, sizeof msg, "timed out: its distribution ran past --timeout "
                         "and was stopped");
            else
                alea_ctx_error_line(ctx, msg, sizeof msg);
            fprintf(stderr, "alea: :fairness: the rolls of '%.60s%s' are not judged: %s\n",
                    t->text, strlen(t->text) > 60 ? "..." : "", msg);
            t->refused = 1;
        }
    }
    alea_ctx_set_dialect(ctx, dialect);
    alea_fairness_result r;
    timer_arm(c->timer); /* the tests' own */
    if (rc == EXIT_OK && alea_fairness_judge(f, &r) != ALEA_OK)
        rc = report_len(ctx, NULL, 0);
    if (rc == EXIT_OK) {
        if (log->unkept)
            fprintf(stderr, "alea: :fairness: %" PRId64 " later roll%s not kept (this session "
                            "keeps %zu rolls, its --max-rolls, of at most %d expressions): "
                            "the verdict is on the others\n",
                    log->unkept, log->unkept == 1 ? " was" : "s were", log->max,
                    ALEA_FAIRNESS_EXPRESSIONS);
        fflush(stderr);
        if (c->json)
            fairness_json(stdout, &r, seed, r.refused);
        else
            fairness_text(stdout, &r, seed, r.refused);
    }
    alea_fairness_free(f);
    return rc;
}

static const char repl_help[] =
    "Type an expression to roll it; an empty line rolls the last one again.\n"
    "  :roll [OPTION]... EXPR  roll (the same as typing EXPR): :roll -n 3 4d6kh3\n"
    "  :dist [OPTION]... [EXPR]\n"
    "                       its distribution: :dist --at-least 3d6; alone, the last\n"
    "                       expression's\n"
    "  :compare [OPTION]... E1 ; E2 ...\n"
    "                       distributions side by side (expressions split by ';')\n"
    "  :table [OPTION]... EXPR NAME=A..B [NAME=A..B] [--stat S]...\n"
    "                       EXPR swept over values of its names: :table d20 + m >= 15\n"
    "                       m=0..10 --stat mean\n"
    "  :fairness [--json] [--seed S]\n"
    "                       the rolls of this session judged against fair dice, as\n"
    "                       alea fairness judges a log\n"
    "  :policy [OPTION]... [EXPR]\n"
    "                       the best choice in each situation: :policy reroll(5d6,\n"
    "                       1, >= 20); alone, the last expression's\n"
    "  :seed S              seed the generator (the rolls after it repeat)\n"
    "  :help                this text\n"
    "  :quit, quit, exit    leave (or Ctrl-D)\n"
    "Options are those of the command (alea help dist), for that line only:\n"
    ":roll --luck 3d6 shows where the roll stands in its distribution.\n"
    "The dice language: 'alea help syntax', or 'man alea'.\n";

/* One line from the user, without its line end; NULL at the end of input.
 * The caller frees it. The bytes typed for it are in *t. */
static char *repl_read(const editline *e, const char *prompt, typed *t)
{
    t->n = 0;
    t->pending = -1;
#ifdef ALEA_HAVE_EDITLINE
    if (e->lib) {
        typing = t;
        char *line = e->readline(prompt);
        typing = NULL;
        /* the line end: Enter sends "\r" to a terminal in raw mode */
        while (t->n > 0 && (t->raw[t->n - 1] == '\r' || t->raw[t->n - 1] == '\n'))
            t->n--;
        return line;
    }
#else
    (void)e;
#endif
    fputs(prompt, stdout);
    fflush(stdout);
    size_t cap = 256, n = 0;
    char *line = malloc(cap);
    int c;
    while (line && (c = getchar()) != EOF && c != '\n') {
        typed_put(t, c);
        if (n + 1 == cap) {
            char *p = cap < 1048576 ? realloc(line, cap *= 2) : NULL;
            if (!p) {
                free(line);
                return NULL;
            }
            line = p;
        }
        line[n++] = (char)c;
    }
    if (!line || (c == EOF && n == 0)) {
        free(line);
        return NULL;
    }
    line[n] = '\0';
    return line;
}

/* ~/.alea_history, or NULL without a HOME. */
static char *history_path(void)
{
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    size_t n = strlen(home) + sizeof "/.alea_history";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/.alea_history", home);
    return p;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Compiles src and rolls it once, or prints its distribution. */
static int repl_eval(alea_ctx *ctx, options *o, const char *src, int dist, alea_roll *roll,
                     buffer *b)
{
    alea_expr *e;
    if (alea_expr_compile(ctx, src, strlen(src), &e) != ALEA_OK)
        return report_limit(ctx, src, 0);
    report_hint(e);
    int rc = dist ? dist_one(ctx, o, e, src, b) : roll_one(ctx, o, e, src, roll, b);
    alea_expr_free(e);
    return rc;
}

/* "dist 3d6", "help": a line that does not compile and starts with the
 * name of a session command, written without its ':'. */
static void colon_hint(const char *line)
{
    static const char *const names[] = {"roll",   "dist", "compare", "table", "fairness",
                                         "policy", "seed", "help"};
    size_t n = strcspn(line, " \t");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (n == strlen(names[i]) && !strncmp(line, names[i], n)) {
            fprintf(stderr, "alea: hint: the session's commands start with ':', as in :%s%s "
                            "(:help lists them)\n",
                    names[i], line[n] ? line + n : "");
            return;
        }
}

/* :policy EXPR: the choices of one expression, as alea policy prints them. */
static int repl_policy(alea_ctx *ctx, options *o, const char *src)
{
    alea_expr *e;
    if (alea_expr_compile(ctx, src, strlen(src), &e) != ALEA_OK)
        return report_limit(ctx, src, 0);
    report_hint(e);
    options c = *o;
    const char *one[1] = {src};
    c.exprs = one;
    c.nexprs = 1;
    int rc = cmd_policy(ctx, &c, &e);
    alea_expr_free(e);
    return rc;
}

/* :compare E1 ; E2 ... */
static int repl_compare(alea_ctx *ctx, options *o, char *list)
{
    const char *parts[64];
    size_t n = 0;
    for (char *p = list, *semi; p && n < 64; p = semi) {
        semi = strchr(p, ';');
        if (semi)
            *semi++ = '\0';
        char *t = trim(p);
        if (*t)
            parts[n++] = t;
    }
    if (n < 1) {
        fputs("alea: :compare needs expressions, as in :compare 2d20kh1 ; 1d20+5\n", stderr);
        return EXIT_FAIL;
    }
    alea_expr *ex[64] = {NULL};
    column_name names[64] = {""};
    options c = *o;
    c.exprs = parts;
    c.nexprs = n;
    c.names = names;
    int rc = compile_all(ctx, &c, ex);
    if (rc == EXIT_FAIL && n == 1 && strpbrk(parts[0], " \t"))
        fputs("alea: hint: :compare parts its expressions at ';', as in :compare 2d6 ; "
              "1d12\n", stderr);
    if (rc == EXIT_OK)
        rc = cmd_compare(ctx, &c, ex);
    for (size_t i = 0; i < n; i++)
        alea_expr_free(ex[i]);
    return rc;
}

/* A word that reads as a sweep: NAME=, then a number (the library reads
 * the rest, and says what is wrong with it). */
static int sweep_word(const char *w, size_t n)
{
    size_t i = 0;
    if (!n || !((w[0] >= 'a' && w[0] <= 'z') || (w[0] >= 'A' && w[0] <= 'Z') || w[0] == '_'))
        return 0;
    while (i < n && w[i] != '=' && (isalnum((unsigned char)w[i]) || w[i] == '_'))
        i++;
    return i + 1 < n && w[i] == '=' && strchr("0123456789+-", w[i + 1]);
}

/* :table EXPR NAME=A..B [NAME=A..B] [--stat S]...: the words NAME=A..B and
 * --stat S at the end of the line are the sweeps and statistics (after
 * those of the options first), the text before them the expression. */
static int repl_table(alea_ctx *ctx, options *o, char *text)
{
    const char *sweeps[3], *exprs[4];
    size_t nsw = 0, end = strlen(text);
    options c = *o;
    const char *stats[STATS_MAX];
    size_t nst = 0, first = (size_t)o->nstats;
    for (;;) { /* from the end: the last word, and the one before it */
        while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t'))
            end--;
        size_t start = end;
        while (start > 0 && text[start - 1] != ' ' && text[start - 1] != '\t')
            start--;
        size_t prev_end = start;
        while (prev_end > 0 && (text[prev_end - 1] == ' ' || text[prev_end - 1] == '\t'))
            prev_end--;
        if (prev_end >= 6 && !strncmp(text + prev_end - 6, "--stat", 6) &&
            (prev_end == 6 || text[prev_end - 7] == ' ' || text[prev_end - 7] == '\t') &&
            start < end) {
            if (first + nst == STATS_MAX) {
                fprintf(stderr, "alea: :table takes at most %d statistics\n", STATS_MAX);
                return EXIT_USAGE;
            }
            text[end] = '\0';
            stats[nst++] = text + start;
            end = prev_end - 6;
        } else if (start < end && sweep_word(text + start, end - start) && nsw < 3) {
            text[end] = '\0';
            sweeps[nsw++] = text + start;
            end = start;
        } else {
            break;
        }
    }
    text[end] = '\0';
    if (!*trim(text) || !nsw) {
        fputs("alea: :table needs an expression and NAME=A..B, as in :table d20 + m >= 15 "
              "m=0..10\n", stderr);
        return EXIT_USAGE;
    }
    exprs[0] = trim(text);
    for (size_t i = 0; i < nsw; i++) /* found last first */
        exprs[1 + i] = sweeps[nsw - 1 - i];
    for (size_t i = 0; i < nst; i++)
        c.stats[first + i] = stats[nst - 1 - i];
    c.nstats = (int)(first + nst);
    c.exprs = exprs;
    c.nexprs = 1 + nsw;
    return cmd_table(ctx, &c);
}

/* Words of a session command read as options, at most: a line of more
 * options than that is refused. */
#define SESSION_WORDS 64

/* The context's settings that a command's options change for its line. */
typedef struct saved_ctx {
    int64_t limit[ALEA_LIMIT__COUNT];
    int exact;
    double tail;
    timer tm;
} saved_ctx;

/*
 * :roll, :dist, :compare, :table, :fairness or :policy (cmd) on arg: the options first, as
 * on the command line (":dist --at-least 3d6", ":roll -n 3 4d6kh3"), read
 * by the same parser and applied to this line alone; then the expression,
 * the rest of the line as typed. :roll, :dist and :policy without one take
 * the last expression; :roll and :dist keep theirs as the last.
 */
static int repl_run(alea_ctx *ctx, const options *o, command cmd, const char *arg, char **last,
                    alea_roll *roll, buffer *b)
{
    char *copy = strdup(arg), *text = NULL, *words[SESSION_WORDS + 1];
    const char *exprs[SESSION_WORDS + 1];
    size_t at[SESSION_WORDS];
    int n = 0;
    if (!copy)
        return out_of_memory();
    for (char *p = copy; n < SESSION_WORDS;) {
        p += strspn(p, " \t");
        if (!*p)
            break;
        at[n] = (size_t)(p - copy);
        words[n++] = p;
        p += strcspn(p, " \t");
        if (*p)
            *p++ = '\0';
    }
    int open;
    int k = leading_options(cmd, n, words, &open);
    const char *expr = k < n ? arg + at[k] : "";
    int rc = EXIT_FAIL;
    if (open) { /* never the last expression as its value */
        fprintf(stderr, "alea: option '%s' needs a value\n", words[k - 1]);
        goto done;
    }
    if (k == SESSION_WORDS) {
        fprintf(stderr, "alea: :%s takes at most %d words of options\n", command_names[cmd],
                SESSION_WORDS);
        goto done;
    }
    if (cmd == CMD_FAIRNESS && *expr) {
        fprintf(stderr, "alea: :fairness judges this session's rolls and takes no file "
                        "('%s'): alea fairness FILE reads one\n", expr);
        goto done;
    }
    if (!*expr && cmd != CMD_FAIRNESS && (cmd == CMD_COMPARE || cmd == CMD_TABLE || !*last)) {
        fprintf(stderr, "alea: :%s needs %s, as in :%s %s\n", command_names[cmd],
                cmd == CMD_COMPARE ? "expressions" : "an expression", command_names[cmd],
                cmd == CMD_COMPARE ? "2d20kh1 ; 1d20+5"
                : cmd == CMD_TABLE ? "d20 + m >= 15 m=0..10" : "4d6kh3");
        goto done;
    }
    text = strdup(*expr ? expr : cmd == CMD_FAIRNESS ? "-" : *last); /* fairness: no file */
    if (!text) {
        rc = out_of_memory();
        goto done;
    }
    words[k] = text;

    options c = *o;
    c.exprs = exprs;
    c.nexprs = 0;
    c.joined = NULL;
    if (parse_args(cmd, 1, k + 1, words, &c) != EXIT_OK)
        goto done;
    if (c.help) {
        help_command(cmd, stdout);
        rc = EXIT_OK;
        goto done;
    }
    saved_ctx sv;
    for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
        sv.limit[l] = alea_ctx_limit(ctx, (alea_limit)l, -1);
    sv.exact = alea_ctx_exact(ctx);
    sv.tail = alea_ctx_tail(ctx);
    sv.tm = *o->timer;
    if (!apply_limits(ctx, &c)) {
        fprintf(stderr, "alea: %s\n", c.exact && !alea_ctx_exact(ctx)
                                          ? alea_ctx_error(ctx)
                                          : "--tail is outside the accepted range [1e-300, 1e-3]");
    } else {
        if (c.seed_set && cmd == CMD_ROLL)
            alea_ctx_seed(ctx, c.seed); /* as :seed does */
        if (cmd == CMD_COMPARE) {
            rc = repl_compare(ctx, &c, text);
        } else if (cmd == CMD_TABLE) {
            rc = repl_table(ctx, &c, text);
        } else if (cmd == CMD_FAIRNESS) {
            rc = repl_fairness(ctx, &c);
        } else if (cmd == CMD_POLICY) {
            rc = repl_policy(ctx, &c, text);
        } else {
            rc = repl_eval(ctx, &c, text, cmd == CMD_DIST, roll, b);
            if (rc == EXIT_OK) { /* the last expression that ran, for :dist alone */
                free(*last);
                *last = text;
                text = NULL;
            }
        }
    }
    for (int l = 0; l < ALEA_LIMIT__COUNT; l++)
        alea_ctx_limit(ctx, (alea_limit)l, sv.limit[l]);
    alea_ctx_set_exact(ctx, sv.exact);
    alea_ctx_set_tail(ctx, sv.tail);
    alea_ctx_set_dialect(ctx, (alea_dialect)o->dialect);
    *o->timer = sv.tm;
    free(c.joined);
done:
    free(text);
    free(copy);
    return rc;
}

/* A line that starts with ':' (cmd, trimmed): a command of the session
 * (repl_help). Returns 1 for :quit. */
static int repl_colon(alea_ctx *ctx, options *o, char *cmd, char **last, alea_roll *roll,
                      buffer *b)
{
    int quit = 0;
    char *arg = cmd + 1 + strcspn(cmd + 1, " \t");
    size_t wl = (size_t)(arg - cmd - 1);
    arg = trim(arg);
#define IS(w) (wl == sizeof w - 1 && !strncmp(cmd + 1, w, wl))
    if (IS("quit") || IS("q") || IS("exit")) {
        quit = 1;
    } else if (IS("help") || IS("h") || IS("?")) {
        fputs(repl_help, stdout);
    } else if (IS("roll") || IS("r") || IS("dist") || IS("d") || IS("compare") || IS("c") ||
               IS("table") || IS("t") || IS("fairness") || IS("f") || IS("policy") ||
               IS("p")) {
        repl_run(ctx, o, IS("roll") || IS("r") ? CMD_ROLL
                         : IS("dist") || IS("d") ? CMD_DIST
                         : IS("table") || IS("t") ? CMD_TABLE
                         : IS("fairness") || IS("f") ? CMD_FAIRNESS
                         : IS("policy") || IS("p") ? CMD_POLICY : CMD_COMPARE,
                 arg, last, roll, b);
    } else if ((IS("seed") || IS("s")) && *arg) {
        uint64_t seed;
        if (parse_u64(arg, &seed)) {
            alea_ctx_seed(ctx, seed);
            printf("seeded with %" PRIu64 "\n", seed);
        } else {
            fprintf(stderr, "alea: :seed takes a number from 0 to "
                            "18446744073709551615, not '%s'\n", arg);
        }
    } else if (IS("seed") || IS("s")) {
        fputs("alea: :seed needs a number, as in :seed 7\n", stderr);
    } else {
        fprintf(stderr, "alea: unknown command '%s' (:help lists them)\n", cmd);
    }
#undef IS
    return quit;
}

#ifdef ALEA_HAVE_EDITLINE
/* The line editor, when libedit loads: characters in UTF-8, and the
 * history of the file hist (NULL: none). */
static void edit_start(editline *ed, const char *hist)
{
    /* the editor reads characters in UTF-8, as the library takes them
     * (in the C locale it dropped every byte past ASCII) */
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "C.utf8");
    if (edit_load(ed)) {
        *ed->getc_function = typed_getc; /* before the editor starts */
        ed->using_history();
        ed->stifle_history(1000);
        if (hist)
            ed->read_history(hist);
    }
}
#endif

/*
 * "alea" at a terminal: read a line, roll it or run its command, print,
 * again, until :quit or the end of input. Errors are reported and the
 * session goes on. With editline, lines can be edited and the history is
 * kept in ~/.alea_history.
 */
int cmd_repl(alea_ctx *ctx, options *o)
{
    alea_roll *roll = alea_roll_new(ctx);
    buffer b = {NULL, 0};
    char *last = NULL, *hist = history_path();
    if (!roll)
        return out_of_memory();
    editline ed;
    memset(&ed, 0, sizeof ed);
    /* the source limit and a line end: a longer line is refused all the same */
    typed t = {NULL, 0, (size_t)alea_ctx_limit(ctx, ALEA_LIMIT_SOURCE, -1) + 2, -1};
    t.raw = malloc(t.cap);
    if (!t.raw) {
        alea_roll_free(roll);
        free(hist);
        return out_of_memory();
    }
#ifdef ALEA_HAVE_EDITLINE
    edit_start(&ed, hist);
#endif
    printf("alea %s: type an expression to roll it, :help for more, Ctrl-D to leave.\n",
           alea_version());
    o->n = 1;
    o->seed_set = 0; /* main seeded the session: a line's own --seed alone reseeds */
    roll_log *log = calloc(1, sizeof *log);
    if (!log) {
        alea_roll_free(roll);
        free(hist);
        free(t.raw);
        return out_of_memory();
    }
    log->max = o->max_rolls ? (size_t)o->max_rolls : SESSION_ROLLS;
    o->max_rolls = 0; /* the session's: no option of its lines */
    o->log = log;
    for (;;) {
        fflush(stdout);
        char *line = repl_read(&ed, "alea> ", &t);
        if (!line) {
            putchar('\n');
            break;
        }
        command_arm(o->timer); /* each line is a command of its own */
        size_t at = non_text_at(t.raw, t.n);
        if (at < t.n) {
            refuse_typed(ctx, &t, at);
            free(line);
            fflush(stderr);
            continue;
        }
        char *cmd = trim(line);
#ifdef ALEA_HAVE_EDITLINE
        if (*cmd && ed.lib)
            ed.add_history(cmd);
#endif
        int quit = 0;
        if (!*cmd) {
            if (last)
                repl_eval(ctx, o, last, 0, roll, &b);
        } else if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) {
            quit = 1; /* neither is an expression */
        } else if (*cmd != ':') {
            if (repl_eval(ctx, o, cmd, 0, roll, &b) == EXIT_OK) {
                free(last);
                last = strdup(cmd);
            } else {
                colon_hint(cmd);
            }
        } else {
            quit = repl_colon(ctx, o, cmd, &last, roll, &b);
        }
        free(line);
        fflush(stderr);
        if (quit)
            break;
    }
#ifdef ALEA_HAVE_EDITLINE
    if (hist && ed.lib)
        ed.write_history(hist);
    /* libedit stays loaded until the process ends: closed, its history
     * (held by its own globals) would be memory nobody can reach */
#endif
    free(hist);
    free(last);
    free(b.p);
    free(t.raw);
    o->log = NULL;
    roll_log_free(log);
    free(log);
    alea_roll_free(roll);
    return EXIT_OK;
}
