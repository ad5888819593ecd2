/*
 * serve.c -- alea serve: roll, dist and compare as an HTTP JSON service,
 * for bots in any language (docs/serve.md).
 *
 * libmicrohttpd reads and writes the HTTP on one thread; jansson reads the
 * request bodies; the answers are the library's own JSON (alea_roll_format,
 * alea_dist_format), and the errors jansson's. A request with a body waits
 * in the queue of its client address for one of --threads workers; every
 * request gets a context of its own, the limits of the command line's
 * options, and a deadline from its arrival (--timeout): contexts are never
 * shared between threads. What clients may hold is bounded before it is
 * held: a body (--max-request, 413), an answer (--max-response), all
 * answers not yet read (--max-pending), connections (--max-connections,
 * --max-client-connections), requests under way (--max-queue,
 * --max-client-queue), and the time a request takes to arrive and its
 * answer to be read (--request-timeout, --write-timeout): docs/security.md
 * gives each its reason.
 */
#define _POSIX_C_SOURCE 200809L /* sigwait, clock_gettime */

#include "cli.h"

void serve_defaults(options *o)
{
    o->port = SERVE_PORT;
    o->bind = SERVE_BIND;
    o->max_connections = SERVE_CONNECTIONS;
    o->max_request = SERVE_REQUEST;
    o->max_response = SERVE_RESPONSE;
    o->idle_timeout = SERVE_IDLE;
    o->max_client_connections = SERVE_CLIENT_CONNECTIONS;
    o->max_pending = SERVE_PENDING;
    o->max_queue = SERVE_QUEUE;
    o->max_client_queue = SERVE_CLIENT_QUEUE;
    o->request_timeout = SERVE_REQUEST_TIMEOUT;
    o->write_timeout = SERVE_WRITE_TIMEOUT;
    o->log_limit = SERVE_LOG_LIMIT;
    o->timer->ms = SERVE_TIMEOUT;
    o->timer->cmd_s = 0; /* a server runs until it is stopped */
}

#ifndef ALEA_HAVE_HTTP

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SERVE_PROGRAM "alea-serve"

int cmd_serve(const options *o)
{
    /* alea-serve serve ARGS..., NULL */
    char **args = malloc(((size_t)o->argc + 3) * sizeof *args);
    if (!args)
        return out_of_memory();
    char prog[] = SERVE_PROGRAM, serve[] = "serve";
    args[0] = prog;
    args[1] = serve;
    for (int i = 0; i < o->argc; i++)
        args[i + 2] = o->argv[i];
    args[o->argc + 2] = NULL;
    fflush(stdout);
    /* beside this program first: the alea-serve of the same build */
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path);
    if (n > 0 && (size_t)n < sizeof path) {
        path[n] = 0;
        char *slash = strrchr(path, '/');
        if (slash && (size_t)(slash - path) + sizeof "/" SERVE_PROGRAM <= sizeof path) {
            memcpy(slash + 1, SERVE_PROGRAM, sizeof SERVE_PROGRAM);
            execv(path, args);
        }
    }
    execvp(SERVE_PROGRAM, args);
    int e = errno;
    free(args);
    if (e == ENOENT)
        fputs("alea: serve: the HTTP server, alea-serve, is not installed beside alea or on "
              "the PATH (it is built when libmicrohttpd and jansson are there; scripts/deps "
              "installs them)\n", stderr);
    else
        fprintf(stderr, "alea: serve: cannot run alea-serve: %s\n", strerror(e));
    return EXIT_FAIL;
}

#else

#include <arpa/inet.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* An answer: its HTTP status and its JSON body (malloc'd; NULL: out of
 * memory, answered from a static text). */
typedef struct reply {
    unsigned status;
    char *p;
    size_t len;
} reply;

static const char oom_body[] =
    "{\"error\": {\"message\": \"out of memory\", \"start\": 0, \"end\": 0}}\n";

/* What a request asked for: the fields of its body. */
typedef struct request_fields {
    const char *expr;
    size_t expr_len;
    json_t *exprs; /* /compare: an array of strings (in the body's root) */
    int64_t n;
    uint64_t seed;
    int seed_set;
    int dialect; /* -1: the server's (--dialect) */
    int exact;
    alea_format format; /* /roll: JSON (the breakdown's objects), text or Markdown */
} request_fields;

typedef void route_answer(const options *o, const request_fields *f, const timer *deadline,
                          reply *out);

/* One row per path: its method, the fields its body takes, its answer. */
typedef struct route {
    const char *path;
    const char *method; /* and HEAD for GET */
    const char *allow;  /* the Allow header of a 405 */
    const char *fields; /* for the message of an unknown field; NULL: no body */
    route_answer *answer;
} route;

/* ---- errors ------------------------------------------------------------- */

/* The machine status of an error that is not the library's, by its HTTP
 * status (the library's are its own: ALEA_ERR_SYNTAX, ALEA_ERR_LIMIT...). */
static const struct {
    unsigned http;
    const char *status;
} http_statuses[] = {
    {MHD_HTTP_BAD_REQUEST, "SERVE_BAD_REQUEST"},
    {MHD_HTTP_FORBIDDEN, "SERVE_FORBIDDEN"},
    {MHD_HTTP_NOT_FOUND, "SERVE_NOT_FOUND"},
    {MHD_HTTP_METHOD_NOT_ALLOWED, "SERVE_METHOD"},
    {MHD_HTTP_REQUEST_TIMEOUT, "SERVE_REQUEST_TIMEOUT"},
    {MHD_HTTP_CONTENT_TOO_LARGE, "SERVE_TOO_LARGE"},
    {MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "SERVE_MEDIA_TYPE"},
    {MHD_HTTP_UNPROCESSABLE_CONTENT, "ALEA_ERR_LIMIT"}, /* --max-response */
    {MHD_HTTP_TOO_MANY_REQUESTS, "SERVE_TOO_MANY"},
    {MHD_HTTP_SERVICE_UNAVAILABLE, "SERVE_BUSY"},
};

/* An error answer: {"error": {"message": ..., "start": S, "end": E,
 * "status": NAME, "caret": the expression and a caret line under [S, E)
 * or null, "hint": a sentence or null}}. The texts are made valid UTF-8
 * first (a byte that starts no character becomes '?'), as JSON requires. */
static void fail_full(reply *out, unsigned http, const char *status, const char *msg,
                      size_t start, size_t end, const char *caret, const char *hint)
{
    char clean[ALEA_ERROR_LINE_MAX + 256];
    size_t n = strlen(msg), k = 0;
    const unsigned char *s = (const unsigned char *)msg;
    for (size_t i = 0; i < n && k + 4 < sizeof clean;) {
        size_t u = unit_len(s, n, i);
        if (u == 1 && s[i] >= 0x80) {
            clean[k++] = '?';
        } else {
            memcpy(clean + k, s + i, u);
            k += u;
        }
        i += u;
    }
    clean[k] = '\0';
    if (!status)
        for (size_t i = 0; i < sizeof http_statuses / sizeof http_statuses[0]; i++)
            if (http_statuses[i].http == http)
                status = http_statuses[i].status;
    out->status = http;
    out->p = NULL;
    json_t *j = json_pack("{s:{s:s,s:I,s:I,s:s,s:s?,s:s?}}", "error", "message", clean, "start",
                          (json_int_t)start, "end", (json_int_t)end, "status",
                          status ? status : "SERVE_ERROR", "caret", caret, "hint", hint);
    char *text = j ? json_dumps(j, 0) : NULL;
    json_decref(j);
    if (!text)
        return;
    out->len = strlen(text);
    out->p = realloc(text, out->len + 2);
    if (!out->p) {
        free(text);
        return;
    }
    memcpy(out->p + out->len, "\n", 2);
    out->len++;
}

static void fail(reply *out, unsigned http, const char *msg, size_t start, size_t end)
{
    fail_full(out, http, NULL, msg, start, end, NULL, NULL);
}

static void fail_deadline(reply *out, const options *o)
{
    char line[128], hint[128];
    snprintf(line, sizeof line, "timed out: the request ran past its deadline (--timeout %"
             PRId64 " ms) and was stopped", o->timer->ms);
    snprintf(hint, sizeof hint, "this server gives a request %" PRId64 " ms; ask for less work, "
             "or try again when it is less busy", o->timer->ms);
    fail_full(out, MHD_HTTP_SERVICE_UNAVAILABLE, alea_status_name(ALEA_ERR_INTERRUPTED), line, 0,
              0, NULL, hint);
}

/* The context's error as an answer: 503 for the deadline and the server's
 * memory, 422 for what the expression (f's, compiled as e or not) asked:
 * its status, the caret under its span, and the expression's hint or the
 * limit's. */
static void fail_ctx(reply *out, const options *o, const alea_ctx *ctx, const request_fields *f,
                     const alea_expr *e)
{
    size_t start, end;
    alea_status st = alea_ctx_error_span(ctx, &start, &end);
    char line[ALEA_ERROR_LINE_MAX + 64];
    if (st == ALEA_ERR_INTERRUPTED) {
        fail_deadline(out, o);
        return;
    }
    alea_ctx_error_line(ctx, line, sizeof line);
    char *caret = NULL;
    size_t caret_len = 0;
    FILE *m = f && f->expr ? open_memstream(&caret, &caret_len) : NULL;
    if (m) {
        put_excerpt_to(m, f->expr, f->expr_len, start, end);
        fclose(m);
    }
    const char *hint = e ? alea_expr_hint(e) : NULL;
    if (!hint && st == ALEA_ERR_LIMIT)
        hint = "the limits are this server's (its --max-* options): ask for fewer dice, "
               "outcomes or less work";
    fail_full(out, st == ALEA_ERR_NOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE
                                        : MHD_HTTP_UNPROCESSABLE_CONTENT,
              alea_status_name(st), line, start, end, caret, hint);
    free(caret);
}

static void fail_response_limit(reply *out, const options *o)
{
    char line[160];
    snprintf(line, sizeof line, "the answer is longer than the response limit (--max-response "
             "%" PRId64 " bytes)", o->max_response);
    fail(out, MHD_HTTP_UNPROCESSABLE_CONTENT, line, 0, 0);
}

/* ---- the answers ----------------------------------------------------------- */

/* A context for one request: the server's limits, the request's dialect
 * and mode, and its deadline (tm, a copy of the one armed when the request
 * arrived); and its expression compiled in it (*e). NULL when refused (out
 * filled). */
static alea_ctx *request_ctx(const options *o, const request_fields *f, const timer *deadline,
                             timer *tm, alea_expr **e, reply *out)
{
    alea_ctx *ctx = alea_ctx_new(NULL, NULL);
    if (!ctx) {
        out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        out->p = NULL;
        return NULL;
    }
    apply_limits(ctx, o); /* run() checked them before serving */
    if (f->dialect >= 0)
        alea_ctx_set_dialect(ctx, (alea_dialect)f->dialect);
    if (f->exact && alea_ctx_set_exact(ctx, 1) != ALEA_OK) {
        fail_ctx(out, o, ctx, NULL, NULL);
        alea_ctx_free(ctx);
        return NULL;
    }
    *tm = *deadline;
    if (tm->ms > 0)
        alea_ctx_set_interrupt(ctx, timer_expired, tm);
    if (alea_expr_compile(ctx, f->expr, f->expr_len, e) != ALEA_OK) {
        fail_ctx(out, o, ctx, f, NULL);
        alea_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

/* Room for len more bytes after the at of b (and a NUL), within the
 * response limit: 1, or 0 past the limit (out filled), or -1 out of memory. */
static int room(buffer *b, size_t at, size_t len, const options *o, reply *out)
{
    if (at + len > (size_t)o->max_response) {
        fail_response_limit(out, o);
        return 0;
    }
    if (!buffer_reserve(b, at + len + 1)) {
        out->p = NULL; /* answered as out of memory */
        return 0;
    }
    return 1;
}

static int put(buffer *b, size_t *at, const char *s, size_t len, const options *o, reply *out)
{
    if (!room(b, *at, len, o, out))
        return 0;
    memcpy(b->p + *at, s, len);
    *at += len;
    return 1;
}

/* A roll as {"expression": ..., "total": T, "text": ...}, its text (with
 * its comment) in f's format, for a bot to post as it is. */
static int put_text(buffer *b, size_t *at, const request_fields *f, const alea_roll *roll,
                    const options *o, reply *out)
{
    size_t len = alea_roll_format(roll, f->format, NULL, 0);
    char *text = malloc(len + 1);
    json_t *j = NULL;
    if (text) {
        alea_roll_format(roll, f->format, text, len + 1);
        j = json_pack("{s:s%,s:I,s:s%}", "expression", f->expr, f->expr_len, "total",
                      (json_int_t)alea_roll_total(roll), "text", text, len);
    }
    char *d = j ? json_dumps(j, 0) : NULL;
    int ok = d ? put(b, at, d, strlen(d), o, out) : 0;
    if (!d)
        out->p = NULL; /* answered as out of memory */
    free(d);
    json_decref(j);
    free(text);
    return ok;
}

/* The answer's first field, "\"hint\": \"...\", ", for e's hint
 * (alea_expr_hint: another tool reads the text otherwise), "" when it has
 * none; malloc'd, NULL when out of memory. */
static char *hint_field(const alea_expr *e)
{
    const char *h = alea_expr_hint(e);
    json_t *j = h ? json_string(h) : NULL;
    char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    size_t n = q ? strlen(q) : 0;
    char *r = (h && !q) ? NULL : malloc(n + 12);
    if (r && q)
        snprintf(r, n + 12, "\"hint\": %s, ", q);
    else if (r)
        r[0] = '\0';
    free(q);
    return r;
}

/* POST /roll: {"hint": H, "rolls": [roll, ...], "seed": S}, each roll as
 * roll --json, S the seed that rolls them again (drawn when the request
 * gives none), H only when the expression has a hint. */
static void answer_roll(const options *o, const request_fields *f, const timer *deadline,
                        reply *out)
{
    timer tm;
    alea_expr *e;
    alea_ctx *ctx = request_ctx(o, f, deadline, &tm, &e, out);
    if (!ctx)
        return;
    buffer b = {NULL, 0};
    size_t at = 0;
    /* a seed drawn has 53 bits: every JSON reader reads it back exactly */
    uint64_t seed = f->seed_set ? f->seed : alea_ctx_random(ctx) >> 11;
    alea_ctx_seed(ctx, seed);
    alea_roll *roll = alea_roll_new(ctx);
    if (!roll) {
        fail_ctx(out, o, ctx, f, e);
        goto done;
    }
    char *hint = hint_field(e);
    int ok = hint && put(&b, &at, "{", 1, o, out) && put(&b, &at, hint, strlen(hint), o, out) &&
             put(&b, &at, "\"rolls\": [", 10, o, out);
    if (!hint)
        out->p = NULL; /* answered as out of memory */
    free(hint);
    if (!ok)
        goto done;
    for (int64_t k = 0; k < f->n; k++) {
        /* the library polls the deadline every few thousand steps: a
         * roll of a few dice takes fewer */
        if (k % 64 == 63 && timer_expired(&tm)) {
            fail_deadline(out, o);
            goto done;
        }
        if (alea_expr_roll(ctx, e, roll) != ALEA_OK) {
            fail_ctx(out, o, ctx, f, e);
            goto done;
        }
        if (k && !put(&b, &at, ", ", 2, o, out))
            goto done;
        if (f->format != ALEA_FORMAT_JSON) {
            if (!put_text(&b, &at, f, roll, o, out))
                goto done;
            continue;
        }
        size_t len = alea_roll_format(roll, ALEA_FORMAT_JSON, NULL, 0);
        if (!room(&b, at, len, o, out))
            goto done;
        at += alea_roll_format(roll, ALEA_FORMAT_JSON, b.p + at, len + 1);
    }
    char tail[48];
    int tl = snprintf(tail, sizeof tail, "], \"seed\": %" PRIu64 "}\n", seed);
    if (!put(&b, &at, tail, (size_t)tl, o, out))
        goto done;
    out->status = MHD_HTTP_OK;
    out->p = b.p;
    out->len = at;
    b.p = NULL;
done:
    free(b.p);
    alea_roll_free(roll);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* The JSON of d, as dist --json prints it, with hint (a field, or "")
 * first, within the response limit: malloc'd with room for a newline, its
 * length in *len; NULL with out filled (past the output limit, the
 * library's error about f's expression e, compiled in ctx). */
static char *dist_json(const alea_dist *d, const char *hint, const options *o,
                       const alea_ctx *ctx, const request_fields *f, const alea_expr *e,
                       size_t *len, reply *out)
{
    /* Each outcome takes 8 bytes at least ("[1, 1], "): refused before
     * anything is formatted when they cannot fit. */
    size_t limit = (size_t)o->max_response, hl = strlen(hint);
    if (alea_dist_count(d) > limit / 8 || hl + 8 > limit) {
        fail_response_limit(out, o);
        return NULL;
    }
    size_t cap = 32 * alea_dist_count(d) + 1024 + hl;
    cap = cap < limit + 1 ? cap : limit + 1;
    for (;;) {
        char *p = malloc(cap);
        size_t fl = p ? alea_dist_format(d, ALEA_FORMAT_JSON, p + hl, cap - hl) : 0;
        size_t n = hl + fl;
        if (p && hl) { /* "{" + hint + the rest of the object */
            memcpy(p + 1, hint, hl);
            p[0] = '{';
        }
        if (!p) {
            out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
            out->p = NULL;
        } else if (fl == 0) { /* past the output limit: the library's error */
            free(p);
            fail_ctx(out, o, ctx, f, e);
        } else if (n >= limit) { /* the newline after it too */
            free(p);
            fail_response_limit(out, o);
        } else if (n + 1 >= cap) {
            free(p);
            cap = n + 2;
            continue;
        } else {
            *len = n;
            return p;
        }
        return NULL;
    }
}

/* POST /dist: the distribution as dist --json, with the expression's
 * hint first as /roll gives it. */
static void answer_dist(const options *o, const request_fields *f, const timer *deadline,
                        reply *out)
{
    timer tm;
    alea_expr *e;
    alea_ctx *ctx = request_ctx(o, f, deadline, &tm, &e, out);
    if (!ctx)
        return;
    alea_dist *d = NULL;
    char *hint = NULL, *p;
    size_t len;
    if (alea_expr_dist(ctx, e, &d) != ALEA_OK) {
        fail_ctx(out, o, ctx, f, e);
    } else if (!(hint = hint_field(e))) {
        out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        out->p = NULL;
    } else if ((p = dist_json(d, hint, o, ctx, f, e, &len, out)) != NULL) {
        p[len++] = '\n';
        out->status = MHD_HTTP_OK;
        out->p = p;
        out->len = len;
    }
    free(hint);
    alea_dist_free(d);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* POST /compare: {"columns": [each expression's distribution as /dist
 * answers it, with "name": null first]}, as compare --json prints it. The
 * columns share one work budget and their outcomes together stay within
 * the support limit, as on the command line; the number of expressions is
 * bounded by the body's limit, and their time by the deadline; an error's
 * caret shows the expression it is about. */
static void answer_compare(const options *o, const request_fields *f, const timer *deadline,
                           reply *out)
{
    size_t n = json_array_size(f->exprs);
    request_fields g = *f;
    g.expr = json_string_value(json_array_get(f->exprs, 0));
    g.expr_len = json_string_length(json_array_get(f->exprs, 0));
    timer tm;
    alea_expr *e = NULL;
    alea_ctx *ctx = request_ctx(o, &g, deadline, &tm, &e, out);
    if (!ctx)
        return;
    int64_t work = alea_ctx_limit(ctx, ALEA_LIMIT_WORK, -1), spent = 0;
    int64_t support = alea_ctx_limit(ctx, ALEA_LIMIT_SUPPORT, -1), outcomes = 0;
    buffer b = {NULL, 0};
    size_t at = 0;
    alea_dist *d = NULL;
    if (!put(&b, &at, "{\"columns\": [", 13, o, out))
        goto done;
    for (size_t j = 0; j < n; j++) {
        if (j) {
            alea_expr_free(e);
            e = NULL;
            g.expr = json_string_value(json_array_get(f->exprs, j));
            g.expr_len = json_string_length(json_array_get(f->exprs, j));
            if (alea_expr_compile(ctx, g.expr, g.expr_len, &e) != ALEA_OK) {
                fail_ctx(out, o, ctx, &g, NULL);
                goto done;
            }
        }
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work - spent);
        alea_status st = alea_expr_dist(ctx, e, &d);
        spent += alea_ctx_work(ctx);
        alea_ctx_limit(ctx, ALEA_LIMIT_WORK, work);
        if (st != ALEA_OK) {
            fail_ctx(out, o, ctx, &g, e);
            goto done;
        }
        outcomes += (int64_t)alea_dist_count(d);
        if (outcomes > support) {
            char msg[160];
            snprintf(msg, sizeof msg, "the columns have more than %" PRId64 " outcomes in all "
                     "(the support limit)", support);
            fail_full(out, MHD_HTTP_UNPROCESSABLE_CONTENT, alea_status_name(ALEA_ERR_LIMIT),
                      msg, 0, 0, NULL, "compare fewer or smaller expressions");
            goto done;
        }
        size_t len;
        char *p = dist_json(d, "", o, ctx, &g, e, &len, out);
        int ok = p && put(&b, &at, j ? ", {\"name\": null, " : "{\"name\": null, ",
                          j ? 17 : 15, o, out) && put(&b, &at, p + 1, len - 1, o, out);
        free(p);
        alea_dist_free(d);
        d = NULL;
        if (!ok)
            goto done;
    }
    if (!put(&b, &at, "]}\n", 3, o, out))
        goto done;
    out->status = MHD_HTTP_OK;
    out->p = b.p;
    out->len = at;
    b.p = NULL;
done:
    free(b.p);
    alea_dist_free(d);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* GET /health. */
static void answer_health(const options *o, const request_fields *f, const timer *deadline,
                          reply *out)
{
    (void)o;
    (void)f;
    (void)deadline;
    json_t *j = json_pack("{s:s,s:s}", "status", "ok", "version", alea_version());
    out->status = MHD_HTTP_OK;
    out->p = j ? json_dumps(j, 0) : NULL;
    out->len = out->p ? strlen(out->p) : 0;
    json_decref(j);
}

/* GET /openapi.json: this service described for generators of clients
 * (OpenAPI 3.0), its version the library's; tests/cli/serve_test.py checks
 * the answers against it. Lines, joined as it is answered: a string
 * literal this long is past what C11 compilers must take. */
static const char *const openapi_lines[] = {
    "{\"openapi\": \"3.0.3\",\n",
    " \"info\": {\"title\": \"alea serve\", \"version\": \"VERSION\",\n",
    "  \"description\": \"Dice rolls, distributions and comparisons as JSON, for bots. Every request with a body is sent as application/json; requests with an Origin header are refused.\"},\n",
    " \"paths\": {\n",
    "  \"/roll\": {\"post\": {\"summary\": \"Roll an expression n times\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/RollRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"The rolls and the seed that rolls them again\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Rolls\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/dist\": {\"post\": {\"summary\": \"The distribution of an expression\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/DistRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"The distribution, as alea dist --json prints it\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Dist\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/compare\": {\"post\": {\"summary\": \"The distributions of several expressions, within one budget\",\n",
    "   \"requestBody\": {\"required\": true, \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/CompareRequest\"}}}},\n",
    "   \"responses\": {\"200\": {\"description\": \"Each expression's distribution, as alea compare --json prints them\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Compare\"}}}},\n",
    "    \"default\": {\"$ref\": \"#/components/responses/Error\"}}}},\n",
    "  \"/health\": {\"get\": {\"summary\": \"Whether the server answers\",\n",
    "   \"responses\": {\"200\": {\"description\": \"It does\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Health\"}}}}}}},\n",
    "  \"/openapi.json\": {\"get\": {\"summary\": \"This document\",\n",
    "   \"responses\": {\"200\": {\"description\": \"The OpenAPI document\", \"content\": {\"application/json\": {\"schema\": {\"type\": \"object\"}}}}}}}},\n",
    " \"components\": {\n",
    "  \"responses\": {\"Error\": {\"description\": \"An error: 400, 403, 404, 405, 408, 413, 415, 422, 429 or 503\", \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Error\"}}}}},\n",
    "  \"schemas\": {\n",
    "   \"RollRequest\": {\"type\": \"object\", \"required\": [\"expr\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expr\": {\"type\": \"string\"}, \"n\": {\"type\": \"integer\", \"minimum\": 1},\n",
    "    \"seed\": {\"oneOf\": [{\"type\": \"integer\", \"minimum\": 0}, {\"type\": \"string\", \"pattern\": \"^[0-9]+$\"}]},\n",
    "    \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]},\n",
    "    \"format\": {\"type\": \"string\", \"enum\": [\"json\", \"text\", \"markdown\"]}}},\n",
    "   \"DistRequest\": {\"type\": \"object\", \"required\": [\"expr\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expr\": {\"type\": \"string\"}, \"exact\": {\"type\": \"boolean\"},\n",
    "    \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]}}},\n",
    "   \"CompareRequest\": {\"type\": \"object\", \"required\": [\"exprs\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"exprs\": {\"type\": \"array\", \"minItems\": 1, \"items\": {\"type\": \"string\"}}, \"exact\": {\"type\": \"boolean\"},\n",
    "    \"dialect\": {\"type\": \"string\", \"enum\": [\"alea\", \"roll20\", \"foundry\", \"rpgdr\", \"d20\"]}}},\n",
    "   \"Rolls\": {\"type\": \"object\", \"required\": [\"rolls\", \"seed\"], \"properties\": {\n",
    "    \"rolls\": {\"type\": \"array\", \"items\": {\"oneOf\": [{\"$ref\": \"#/components/schemas/Roll\"}, {\"$ref\": \"#/components/schemas/RollText\"}]}},\n",
    "    \"seed\": {\"type\": \"integer\", \"minimum\": 0},\n",
    "    \"hint\": {\"type\": \"string\", \"description\": \"when another tool reads the expression otherwise\"}}},\n",
    "   \"Roll\": {\"type\": \"object\", \"required\": [\"expression\", \"total\", \"text\", \"dice\"], \"properties\": {\n",
    "    \"expression\": {\"type\": \"string\"}, \"total\": {\"type\": \"integer\"}, \"text\": {\"type\": \"string\"},\n",
    "    \"comment\": {\"type\": \"string\"}, \"dice\": {\"type\": \"array\", \"items\": {\"type\": \"object\"}}}},\n",
    "   \"RollText\": {\"type\": \"object\", \"required\": [\"expression\", \"total\", \"text\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"expression\": {\"type\": \"string\"}, \"total\": {\"type\": \"integer\"}, \"text\": {\"type\": \"string\"}}},\n",
    "   \"Dist\": {\"type\": \"object\", \"required\": [\"expression\", \"outcomes\", \"mean\", \"sd\", \"min\", \"max\", \"truncated\"], \"properties\": {\n",
    "    \"expression\": {\"type\": \"string\"}, \"hint\": {\"type\": \"string\"},\n",
    "    \"outcomes\": {\"type\": \"array\", \"items\": {\"type\": \"array\", \"minItems\": 2, \"maxItems\": 2, \"items\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}}},\n",
    "    \"mean\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}, \"sd\": {\"type\": \"number\"},\n",
    "    \"min\": {\"type\": \"integer\"}, \"max\": {\"type\": \"integer\"},\n",
    "    \"truncated\": {\"oneOf\": [{\"type\": \"number\"}, {\"type\": \"string\"}]}}},\n",
    "   \"Compare\": {\"type\": \"object\", \"required\": [\"columns\"], \"properties\": {\n",
    "    \"columns\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/Dist\"}}}},\n",
    "   \"Health\": {\"type\": \"object\", \"required\": [\"status\", \"version\"], \"properties\": {\n",
    "    \"status\": {\"type\": \"string\", \"enum\": [\"ok\"]}, \"version\": {\"type\": \"string\"}}},\n",
    "   \"Error\": {\"type\": \"object\", \"required\": [\"error\"], \"additionalProperties\": false, \"properties\": {\n",
    "    \"error\": {\"type\": \"object\", \"required\": [\"message\", \"start\", \"end\", \"status\", \"caret\", \"hint\"], \"additionalProperties\": false, \"properties\": {\n",
    "     \"message\": {\"type\": \"string\"}, \"start\": {\"type\": \"integer\", \"minimum\": 0}, \"end\": {\"type\": \"integer\", \"minimum\": 0},\n",
    "     \"status\": {\"type\": \"string\", \"pattern\": \"^(ALEA_ERR|SERVE)_[A-Z_]+$\"},\n",
    "     \"caret\": {\"type\": \"string\", \"nullable\": true}, \"hint\": {\"type\": \"string\", \"nullable\": true}}}}}}}}\n",
};

static void answer_openapi(const options *o, const request_fields *f, const timer *deadline,
                           reply *out)
{
    (void)o;
    (void)f;
    (void)deadline;
    buffer b = {NULL, 0};
    size_t at = 0;
    for (size_t i = 0; i < sizeof openapi_lines / sizeof openapi_lines[0]; i++) {
        size_t n = strlen(openapi_lines[i]);
        if (!buffer_reserve(&b, at + n + 1)) {
            free(b.p);
            out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
            out->p = NULL;
            return;
        }
        memcpy(b.p + at, openapi_lines[i], n);
        at += n;
    }
    json_t *doc = json_loadb(b.p, at, 0, NULL);
    free(b.p);
    json_object_set_new(json_object_get(doc, "info"), "version", json_string(alea_version()));
    out->status = MHD_HTTP_OK;
    out->p = doc ? json_dumps(doc, JSON_INDENT(1)) : NULL;
    out->len = out->p ? strlen(out->p) : 0;
    json_decref(doc);
}

static const route routes[] = {
    {"/roll", "POST", "POST", "expr, n, seed, dialect, format", answer_roll},
    {"/dist", "POST", "POST", "expr, exact, dialect", answer_dist},
    {"/compare", "POST", "POST", "exprs, exact, dialect", answer_compare},
    {"/health", "GET", "GET, HEAD", NULL, answer_health},
    {"/openapi.json", "GET", "GET, HEAD", NULL, answer_openapi},
};

/* ---- the request's body ---------------------------------------------------- */

/* Whether field name is one that route r takes ("expr, n, seed"). */
static int takes(const route *r, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = r->fields; (s = strstr(s, name)) != NULL; s += n)
        if ((s == r->fields || s[-1] == ' ') && (s[n] == ',' || s[n] == '\0'))
            return 1;
    return 0;
}

/* Reads the fields of the body's JSON object; 0 with out filled when one
 * is missing, unknown or of the wrong kind. The strings stay in root. */
static int read_fields(const route *r, json_t *root, request_fields *f, reply *out)
{
    char msg[256];
    const char *key;
    json_t *v;
    memset(f, 0, sizeof *f);
    f->n = 1;
    f->dialect = -1;
    f->format = ALEA_FORMAT_JSON;
    if (!json_is_object(root)) {
        fail(out, MHD_HTTP_BAD_REQUEST, "the body must be a JSON object, as {\"expr\": "
             "\"4d6kh3\"}", 0, 0);
        return 0;
    }
    json_object_foreach(root, key, v) {
        const char *bad = NULL;
        if (!takes(r, key)) {
            if (strlen(key) <= 40)
                snprintf(msg, sizeof msg, "unknown field '%s' (%s takes %s)", key, r->path,
                         r->fields);
            else
                snprintf(msg, sizeof msg, "unknown field of %zu bytes (%s takes %s)",
                         strlen(key), r->path, r->fields);
            fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
            return 0;
        }
        if (!strcmp(key, "expr")) {
            if (json_is_string(v)) {
                f->expr = json_string_value(v);
                f->expr_len = json_string_length(v);
            } else {
                bad = "a string";
            }
        } else if (!strcmp(key, "n")) {
            if (json_is_integer(v) && json_integer_value(v) >= 1)
                f->n = (int64_t)json_integer_value(v);
            else
                bad = "a positive integer";
        } else if (!strcmp(key, "seed")) {
            f->seed_set = 1;
            if (json_is_integer(v) && json_integer_value(v) >= 0)
                f->seed = (uint64_t)json_integer_value(v);
            else if (!json_is_string(v) || !parse_u64(json_string_value(v), &f->seed))
                bad = "an integer from 0 to 18446744073709551615 (as a string above 2^63)";
        } else if (!strcmp(key, "dialect")) {
            if (!json_is_string(v) || (f->dialect = alea_dialect_find(json_string_value(v))) < 0)
                bad = "one of alea, roll20, foundry, rpgdr, d20";
        } else if (!strcmp(key, "exprs")) {
            size_t i, k = json_array_size(v);
            for (i = 0; i < k && json_is_string(json_array_get(v, i)); i++)
                ;
            if (json_is_array(v) && k && i == k)
                f->exprs = v;
            else
                bad = "a non-empty array of strings";
        } else if (!strcmp(key, "format")) {
            const char *v_s = json_is_string(v) ? json_string_value(v) : "";
            if (!strcmp(v_s, "json"))
                f->format = ALEA_FORMAT_JSON;
            else if (!strcmp(v_s, "text"))
                f->format = ALEA_FORMAT_TEXT;
            else if (!strcmp(v_s, "markdown"))
                f->format = ALEA_FORMAT_MARKDOWN;
            else
                bad = "one of json, text, markdown";
        } else if (!strcmp(key, "exact")) {
            if (json_is_boolean(v))
                f->exact = json_is_true(v);
            else
                bad = "true or false";
        }
        if (bad) {
            snprintf(msg, sizeof msg, "field '%s' must be %s", key, bad);
            fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
            return 0;
        }
    }
    if (takes(r, "exprs") && !f->exprs) {
        snprintf(msg, sizeof msg, "missing field 'exprs' (the expressions, as {\"exprs\": "
                 "[\"2d20kh1\", \"1d20\"]})");
        fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
        return 0;
    }
    if (!f->expr && !takes(r, "exprs")) {
        snprintf(msg, sizeof msg, "missing field 'expr' (the expression, as {\"expr\": "
                 "\"4d6kh3\"})");
        fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
        return 0;
    }
    return 1;
}

/* The answer to a whole request on route r, within its deadline. */
static void answer(const options *o, const route *r, const char *body, size_t len,
                   const timer *deadline, reply *out)
{
    request_fields f;
    if (!r->fields) {
        r->answer(o, NULL, deadline, out);
        return;
    }
    json_error_t err;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        char msg[JSON_ERROR_TEXT_LENGTH + 32];
        snprintf(msg, sizeof msg, "malformed JSON: %s", err.text);
        /* jansson's position is past the byte it stopped at */
        size_t at = err.position > 0 ? (size_t)err.position : 0;
        at = at < len ? at : len;
        if (json_error_code(&err) == json_error_premature_end_of_input)
            fail(out, MHD_HTTP_BAD_REQUEST, msg, len, len);
        else
            fail(out, MHD_HTTP_BAD_REQUEST, msg, at ? at - 1 : 0, at ? at : 1);
        return;
    }
    if (read_fields(r, root, &f, out))
        r->answer(o, &f, deadline, out);
    json_decref(root);
}

/* ---- the server's state ---------------------------------------------------- */

/*
 * libmicrohttpd's one thread reads and writes every connection; the
 * requests with a body wait, their connection suspended, in the queue of
 * their client address, for one of --threads workers; a clock thread cuts
 * what runs past its time. One mutex guards all of it.
 *
 * A connection is in one phase at a time, each with its own bound:
 *   ARRIVING  its request's headers and body (--request-timeout, 408)
 *   WORKING   waiting for a worker or evaluated (--timeout, 503, sent at
 *             the deadline even when the evaluation has not yet stopped)
 *   SENDING   its answer being read (--write-timeout, closed)
 * A connection cut by the clock is shut down (its socket, not its
 * descriptor, which libmicrohttpd closes): libmicrohttpd sees the end and
 * closes it as it would any other.
 */
enum { ARRIVING, WORKING, SENDING, CUT };
enum { QUEUED, RUNNING, DONE };

/* Clients are told apart by address: IPv4 whole, IPv6 by its /64 prefix
 * (a host is given a /64 and picks addresses in it at will). */
typedef struct client_key {
    unsigned char b[9]; /* family, then 4 or 8 bytes */
} client_key;

typedef struct job job;

/* One client address: its requests waiting, and the worker time it used
 * lately, which decides whose request a free worker takes. */
typedef struct client {
    client_key key;
    job *head, *tail;
    int64_t waiting, running;
    double used; /* seconds of workers, halved every CLIENT_MEMORY_S */
    struct timespec used_at;
} client;

/* A request with a body, from its arrival to its answer. */
struct job {
    job *next;
    uint64_t seq; /* the order of arrival: among equal clients, the oldest first */
    client *cl;
    const route *r;
    char *body;
    size_t len;
    struct MHD_Connection *c;
    timer tm; /* its deadline, armed as it arrived */
    int state;
    int answered; /* out is the connection's (the worker's, or the clock's 503) */
    int orphan;   /* the connection is gone while the worker still runs it */
    reply out;
};

/* A connection: libmicrohttpd's socket context. */
typedef struct conn {
    struct conn *prev, *next;
    MHD_socket fd;
    int phase;
    int begun;  /* a request line has come: a cut gets a 408 */
    int served; /* answers sent: a cut of the first request gets a 408 */
    struct timespec due;
    job *job;
} conn;

/* What one request holds while it arrives. */
typedef struct request {
    const route *r;
    buffer body;
    size_t len;   /* bytes received, kept or not */
    int refused;  /* answered already (413 to a chunked body): drained, then closed */
    job *job;
} request;

/* The clock's period: the bounds above are kept to within it. */
#define CLOCK_MS 10
/* Clients remembered beyond those with requests in the queue, for their
 * share of the workers. */
#define CLIENTS_REMEMBERED 256
/* The worker time a client used counts half after this many seconds. */
#define CLIENT_MEMORY_S 2.0
/* With two workers or more, the first takes only requests of clients that
 * used less than this many seconds of workers lately (about a tenth of a
 * worker, steadily): clients that loop expensive requests share the
 * others, and a cheap request never waits behind them. */
#define CLIENT_LIGHT_S 0.25
/* A chunked body past --max-request is read and dropped up to this many
 * times the limit, so that its 413 is read; past that it is closed. */
#define DRAIN_TIMES 16

typedef struct server {
    const options *o;
    struct MHD_Daemon *d;
    pthread_mutex_t lock;
    pthread_cond_t work;
    conn *conns;
    client *clients;
    size_t nclients;
    int64_t admitted; /* jobs waiting or running */
    uint64_t arrived; /* jobs queued so far */
    int stopping;
    int64_t workers_left; /* workers not yet returned */
    size_t pending; /* bytes of answers held */
    /* libmicrohttpd's messages: this minute's, and those left out */
    pthread_mutex_t log_lock;
    struct timespec log_since;
    int64_t logged, left_out, left_out_all;
} server;

static struct timespec now_plus(int64_t ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static double seconds_since(const struct timespec *t)
{
    struct timespec n = now_plus(0);
    return (double)(n.tv_sec - t->tv_sec) + (double)(n.tv_nsec - t->tv_nsec) / 1e9;
}

static int past(const struct timespec *t)
{
    return seconds_since(t) >= 0;
}

/* ---- answers held: --max-pending ------------------------------------------- */

/* An answer handed to libmicrohttpd, counted until it is freed. */
typedef struct held {
    server *s;
    char *p;
    size_t len; /* counted; 0 for an error's few bytes */
} held;

/* Counts len more bytes of answers held; 0 past --max-pending. */
static int pending_take(server *s, size_t len)
{
    size_t max = (size_t)s->o->max_pending;
    pthread_mutex_lock(&s->lock);
    int ok = s->pending <= max && len <= max - s->pending;
    if (ok)
        s->pending += len;
    pthread_mutex_unlock(&s->lock);
    return ok;
}

static void pending_free(void *cls)
{
    held *h = cls;
    pthread_mutex_lock(&h->s->lock);
    h->s->pending -= h->len;
    pthread_mutex_unlock(&h->s->lock);
    free(h->p);
    free(h);
}

/* ---- HTTP -------------------------------------------------------------------- */

static void fail_busy(reply *out, const char *what, const char *option, int64_t limit)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s (%s %" PRId64 "); try again later", what, option, limit);
    fail(out, MHD_HTTP_SERVICE_UNAVAILABLE, msg, 0, 0);
}

static conn *conn_of(struct MHD_Connection *c);

/* Queues an answer (takes r->p); allow: the Allow header of a 405. An
 * answer (status 200) counts in --max-pending until libmicrohttpd frees
 * it; past the limit it becomes a 503. The connection's answer is then
 * being sent (--write-timeout). */
static enum MHD_Result send_reply(server *s, struct MHD_Connection *c, reply *r,
                                  const char *allow)
{
    struct MHD_Response *resp = NULL;
    size_t counted = r->status == MHD_HTTP_OK && r->p ? r->len : 0;
    if (counted && !pending_take(s, counted)) {
        free(r->p);
        counted = 0;
        fail_busy(r, "the answers not yet read by their clients hold too much memory",
                  "--max-pending", s->o->max_pending);
    }
    if (r->p) {
        held *h = malloc(sizeof *h);
        if (h) {
            h->s = s;
            h->p = r->p;
            h->len = counted;
            resp = MHD_create_response_from_buffer_with_free_callback_cls(r->len, r->p,
                                                                          pending_free, h);
            if (!resp)
                pending_free(h);
        } else {
            free(r->p);
            pthread_mutex_lock(&s->lock);
            s->pending -= counted;
            pthread_mutex_unlock(&s->lock);
        }
        if (!resp)
            r->p = NULL;
    }
    if (!r->p) {
        r->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        resp = MHD_create_response_from_buffer(sizeof oom_body - 1, (void *)(uintptr_t)oom_body,
                                               MHD_RESPMEM_PERSISTENT);
    }
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    if (allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (r->status == MHD_HTTP_SERVICE_UNAVAILABLE || r->status == MHD_HTTP_TOO_MANY_REQUESTS)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    conn *k = conn_of(c);
    if (k) {
        pthread_mutex_lock(&s->lock);
        if (k->phase != CUT) {
            k->phase = SENDING;
            k->due = now_plus(s->o->write_timeout * 1000);
            k->job = NULL;
        }
        pthread_mutex_unlock(&s->lock);
    }
    enum MHD_Result ok = MHD_queue_response(c, r->status, resp);
    MHD_destroy_response(resp);
    return ok;
}

static enum MHD_Result refuse(server *s, struct MHD_Connection *c, unsigned status,
                              const char *msg, const char *allow)
{
    reply r;
    fail(&r, status, msg, 0, 0);
    return send_reply(s, c, &r, allow);
}

static void size_message(char *msg, size_t n, const options *o)
{
    snprintf(msg, n, "the request body is larger than the request limit (--max-request %"
             PRId64 " bytes)", o->max_request);
}

/* An answer written on the socket itself, for when libmicrohttpd takes
 * none (a body still arriving, a request cut by the clock), then the end
 * of the sending side: the connection closes after it. */
static void send_raw(MHD_socket fd, unsigned status, const char *reason, const char *msg)
{
    reply r;
    fail(&r, status, msg, 0, 0);
    char head[256];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\n"
                     "Connection: close\r\nContent-Length: %zu\r\n\r\n", status, reason,
                     r.p ? r.len : sizeof oom_body - 1);
    /* best effort: a client that does not read loses it */
    if (send(fd, head, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n)
        send(fd, r.p ? r.p : oom_body, r.p ? r.len : sizeof oom_body - 1,
             MSG_NOSIGNAL | MSG_DONTWAIT);
    free(r.p);
    shutdown(fd, SHUT_WR);
}

static conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

static client_key key_of(struct MHD_Connection *c)
{
    client_key k;
    memset(&k, 0, sizeof k);
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = i ? i->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET) {
        k.b[0] = 4;
        memcpy(k.b + 1, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
    } else if (sa && sa->sa_family == AF_INET6) {
        const unsigned char *a =
            ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (!memcmp(a, mapped, 12)) { /* an IPv4 client of an IPv6 socket */
            k.b[0] = 4;
            memcpy(k.b + 1, a + 12, 4);
        } else {
            k.b[0] = 6;
            memcpy(k.b + 1, a, 8);
        }
    }
    return k;
}

/* The worker time c used, decayed to now. */
static double client_used(client *c)
{
    double dt = seconds_since(&c->used_at);
    return c->used * exp2(-dt / CLIENT_MEMORY_S);
}

/* The record of key (made, or an idle one's taken over); NULL when every
 * record has requests (the queue is full). Under the lock. */
static client *client_find(server *s, client_key key)
{
    client *idle = NULL;
    double least = 0;
    for (size_t i = 0; i < s->nclients; i++) {
        client *c = &s->clients[i];
        if (!memcmp(&c->key, &key, sizeof key))
            return c;
        if (!c->waiting && !c->running) {
            double u = c->key.b[0] ? client_used(c) : -1;
            if (!idle || u < least) {
                idle = c;
                least = u;
            }
        }
    }
    if (idle) {
        memset(idle, 0, sizeof *idle);
        idle->key = key;
        idle->used_at = now_plus(0);
    }
    return idle;
}

/* The next job for a free worker: from the client with the fewest
 * running, then the least worker time used lately; for the reserved
 * worker, only from a light client. Under the lock. */
static job *job_take(server *s, int reserved)
{
    client *best = NULL;
    double best_used = 0;
    for (size_t i = 0; i < s->nclients; i++) {
        client *c = &s->clients[i];
        if (!c->head)
            continue;
        double u = client_used(c);
        if (reserved && u >= CLIENT_LIGHT_S)
            continue;
        if (!best || c->running < best->running ||
            (c->running == best->running &&
             (u < best_used || (u == best_used && c->head->seq < best->head->seq)))) {
            best = c;
            best_used = u;
        }
    }
    if (!best)
        return NULL;
    job *j = best->head;
    best->head = j->next;
    if (!best->head)
        best->tail = NULL;
    best->waiting--;
    best->running++;
    j->state = RUNNING;
    return j;
}

/* Removes a waiting job from its client's queue. Under the lock. */
static void job_unqueue(server *s, job *j)
{
    client *c = j->cl;
    for (job **p = &c->head; *p; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            break;
        }
    c->tail = NULL;
    for (job *k = c->head; k; k = k->next)
        c->tail = k;
    c->waiting--;
    s->admitted--;
    j->state = DONE;
}

static void job_free(job *j)
{
    if (j) {
        free(j->body);
        free(j->out.p);
        free(j);
    }
}

/* A worker's server, and whether it is the one kept for light clients. */
typedef struct worker_arg {
    server *s;
    int reserved;
} worker_arg;

static void *worker(void *arg)
{
    server *s = ((worker_arg *)arg)->s;
    int reserved = ((worker_arg *)arg)->reserved;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        job *j = NULL;
        while (!s->stopping && !(j = job_take(s, reserved)))
            pthread_cond_wait(&s->work, &s->lock);
        if (!j)
            break;
        pthread_mutex_unlock(&s->lock);
        struct timespec t0 = now_plus(0);
        reply r;
        if (timer_expired(&j->tm))
            fail_deadline(&r, s->o);
        else
            answer(s->o, j->r, j->body ? j->body : "", j->len, &j->tm, &r);
        pthread_mutex_lock(&s->lock);
        client *c = j->cl;
        c->used = client_used(c) + seconds_since(&t0);
        c->used_at = now_plus(0);
        c->running--;
        s->admitted--;
        j->state = DONE;
        struct MHD_Connection *resume = NULL;
        if (!j->answered) {
            j->out = r;
            j->answered = 1;
            resume = j->c;
        } else {
            free(r.p); /* the clock answered it at its deadline */
        }
        if (j->orphan)
            job_free(j);
        if (resume) {
            pthread_mutex_unlock(&s->lock);
            MHD_resume_connection(resume);
            pthread_mutex_lock(&s->lock);
        }
    }
    s->workers_left--;
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* The clock: cuts what passed its bound (see the top of this part). */
static int clock_cut(server *s, struct MHD_Connection **resume, size_t max)
{
    size_t n = 0;
    for (conn *k = s->conns; k; k = k->next) {
        if ((k->phase == ARRIVING || k->phase == SENDING) && past(&k->due)) {
            if (k->phase == ARRIVING && (k->begun || !k->served)) {
                char msg[160];
                snprintf(msg, sizeof msg, "the request took longer than --request-timeout %"
                         PRId64 " s to arrive", s->o->request_timeout);
                send_raw(k->fd, MHD_HTTP_REQUEST_TIMEOUT, "Request Timeout", msg);
            }
            if (k->phase == SENDING) {
                /* an abortive close: the answer still queued in the kernel
                 * for a client that does not read is dropped, not sent */
                struct linger now = {1, 0};
                setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &now, sizeof now);
            }
            shutdown(k->fd, SHUT_RDWR);
            k->phase = CUT;
        } else if (k->phase == WORKING && k->job && !k->job->answered && n < max &&
                   (s->stopping || timer_expired(&k->job->tm))) {
            job *j = k->job;
            if (j->state == QUEUED)
                job_unqueue(s, j);
            if (s->stopping)
                fail(&j->out, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is stopping", 0, 0);
            else
                fail_deadline(&j->out, s->o);
            j->answered = 1;
            resume[n++] = j->c;
        }
    }
    return (int)n;
}

static void *clock_thread(void *arg)
{
    server *s = arg;
    struct timespec tick = {0, CLOCK_MS * 1000000L};
    struct MHD_Connection *resume[64];
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int n = clock_cut(s, resume, sizeof resume / sizeof resume[0]);
        int stop = s->stopping == 2 && !n;
        pthread_mutex_unlock(&s->lock);
        for (int i = 0; i < n; i++)
            MHD_resume_connection(resume[i]);
        if (stop)
            break;
        if (!n)
            nanosleep(&tick, NULL);
    }
    return NULL;
}

/* ---- libmicrohttpd's callbacks ----------------------------------------------- */

static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
                          enum MHD_ConnectionNotificationCode what)
{
    server *s = cls;
    conn *k = *ctx;
    if (what == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *i =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!i || !(k = calloc(1, sizeof *k)))
            return; /* not watched by the clock: the idle timeout still holds */
        k->fd = i->connect_fd;
        k->phase = ARRIVING;
        k->due = now_plus(s->o->request_timeout * 1000);
        pthread_mutex_lock(&s->lock);
        k->next = s->conns;
        if (s->conns)
            s->conns->prev = k;
        s->conns = k;
        pthread_mutex_unlock(&s->lock);
        *ctx = k;
    } else if (k) { /* closed: before libmicrohttpd closes the descriptor */
        pthread_mutex_lock(&s->lock);
        if (k->prev)
            k->prev->next = k->next;
        else
            s->conns = k->next;
        if (k->next)
            k->next->prev = k->prev;
        pthread_mutex_unlock(&s->lock);
        free(k);
        *ctx = NULL;
    }
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)uri;
    conn *k = conn_of(c);
    if (k) {
        pthread_mutex_lock(&((server *)cls)->lock);
        k->begun = 1;
        pthread_mutex_unlock(&((server *)cls)->lock);
    }
    return NULL;
}

/* Counts the Content-Length and Transfer-Encoding headers, and whether
 * the Content-Lengths differ. */
typedef struct framing {
    int lengths, encodings, differ;
    const char *length;
} framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    framing *f = cls;
    (void)kind;
    if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
        if (f->lengths++ && strcmp(f->length, value ? value : ""))
            f->differ = 1;
        f->length = value ? value : "";
    } else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
        f->encodings++;
    }
    return MHD_YES;
}

/* Whether a Content-Type is application/json (with parameters or not). */
static int is_json(const char *type)
{
    static const char want[] = "application/json";
    if (!type)
        return 0;
    while (*type == ' ' || *type == '\t')
        type++;
    if (strncasecmp(type, want, sizeof want - 1))
        return 0;
    char next = type[sizeof want - 1];
    return next == '\0' || next == ';' || next == ' ' || next == '\t';
}

/* The checks of a request's headers before its body is read: NULL when
 * it may go on, else the answer's status and message. */
static const char *check_headers(server *s, struct MHD_Connection *c, const route *r,
                                 unsigned *status)
{
    framing f = {0, 0, 0, NULL};
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
    *status = MHD_HTTP_BAD_REQUEST;
    if (f.differ)
        return "two different Content-Length headers: the body's length is ambiguous";
    if (f.lengths && f.encodings)
        return "both Content-Length and Transfer-Encoding: the body's length is ambiguous";
    if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin")) {
        *status = MHD_HTTP_FORBIDDEN;
        return "requests from web pages are refused (the request has an Origin header): "
               "call alea serve from your own server";
    }
    if (r->fields &&
        !is_json(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type"))) {
        *status = MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
        return "the body must be sent as Content-Type: application/json";
    }
    uint64_t declared;
    if (f.length && parse_u64(f.length, &declared) && declared > (uint64_t)s->o->max_request) {
        *status = MHD_HTTP_CONTENT_TOO_LARGE;
        return "";
    }
    return NULL;
}

/* A request's first call: its route and headers. */
static enum MHD_Result request_start(server *s, struct MHD_Connection *c, const char *url,
                                     const char *method, void **state)
{
    const route *r = NULL;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (!strcmp(url, routes[i].path))
            r = &routes[i];
    if (!r)
        return refuse(s, c, MHD_HTTP_NOT_FOUND, "no such path (alea serve answers POST "
                      "/roll, /dist and /compare, GET /health and /openapi.json)", NULL);
    if (strcmp(method, r->method) != 0 &&
        !(!strcmp(r->method, "GET") && !strcmp(method, "HEAD"))) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s takes %s", r->path, r->allow);
        return refuse(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, msg, r->allow);
    }
    unsigned status;
    const char *bad = check_headers(s, c, r, &status);
    if (bad) {
        char msg[160];
        if (status == MHD_HTTP_CONTENT_TOO_LARGE)
            size_message(msg, sizeof msg, s->o);
        return refuse(s, c, status, *bad ? bad : msg, NULL);
    }
    if (!r->fields) { /* no body, no evaluation: answered at once */
        reply out;
        r->answer(s->o, NULL, NULL, &out);
        return send_reply(s, c, &out, NULL);
    }
    request *rq = calloc(1, sizeof *rq);
    if (!rq)
        return MHD_NO;
    rq->r = r;
    *state = rq;
    return MHD_YES;
}

/* A piece of the body. */
static enum MHD_Result request_body(server *s, struct MHD_Connection *c, request *rq,
                                    const char *upload, size_t n)
{
    size_t limit = (size_t)s->o->max_request;
    if (rq->len + n > limit || rq->refused) {
        /* A body without Content-Length (chunked) past the limit:
         * libmicrohttpd takes no answer before the body ends, so the 413
         * is written on the socket now, and the rest read and dropped
         * (up to DRAIN_TIMES the limit) so that the client reads it. */
        if (!rq->refused) {
            conn *k = conn_of(c);
            char msg[160];
            size_message(msg, sizeof msg, s->o);
            if (k) {
                pthread_mutex_lock(&s->lock);
                send_raw(k->fd, MHD_HTTP_CONTENT_TOO_LARGE, "Content Too Large", msg);
                pthread_mutex_unlock(&s->lock);
            }
            rq->refused = 1;
            free(rq->body.p);
            rq->body.p = NULL;
        }
        rq->len = rq->len + n < DRAIN_TIMES * limit + 1 ? rq->len + n : DRAIN_TIMES * limit + 1;
        return rq->len > DRAIN_TIMES * limit ? MHD_NO : MHD_YES;
    }
    if (!buffer_reserve(&rq->body, rq->len + n + 1))
        return MHD_NO;
    memcpy(rq->body.p + rq->len, upload, n);
    rq->len += n;
    return MHD_YES;
}

/* The body has arrived: the request joins its client's queue, its
 * connection suspended until a worker or the clock answers it. */
static enum MHD_Result request_queue(server *s, struct MHD_Connection *c, request *rq)
{
    conn *k = conn_of(c);
    reply out;
    job *j = calloc(1, sizeof *j);
    if (!j)
        return MHD_NO;
    j->r = rq->r;
    j->body = rq->body.p;
    j->len = rq->len;
    rq->body.p = NULL;
    j->c = c;
    j->tm = *s->o->timer;
    timer_arm(&j->tm);
    pthread_mutex_lock(&s->lock);
    if ((k && k->phase == CUT) || s->stopping) {
        pthread_mutex_unlock(&s->lock);
        job_free(j);
        if (!s->stopping)
            return MHD_NO;
        fail(&out, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is stopping", 0, 0);
        return send_reply(s, c, &out, NULL);
    }
    client *cl = client_find(s, key_of(c));
    if (!cl || s->admitted >= s->o->max_queue) {
        pthread_mutex_unlock(&s->lock);
        job_free(j);
        fail_busy(&out, "the server has too many requests waiting", "--max-queue",
                  s->o->max_queue);
        return send_reply(s, c, &out, NULL);
    }
    if (cl->waiting + cl->running >= s->o->max_client_queue) {
        pthread_mutex_unlock(&s->lock);
        job_free(j);
        char msg[200];
        snprintf(msg, sizeof msg, "too many requests from this address at once "
                 "(--max-client-queue %" PRId64 "); wait for their answers",
                 s->o->max_client_queue);
        fail(&out, MHD_HTTP_TOO_MANY_REQUESTS, msg, 0, 0);
        return send_reply(s, c, &out, NULL);
    }
    /* suspended before it is queued: a worker may resume it at once */
    MHD_suspend_connection(c);
    j->cl = cl;
    j->seq = s->arrived++;
    j->state = QUEUED;
    if (cl->tail)
        cl->tail->next = j;
    else
        cl->head = j;
    cl->tail = j;
    cl->waiting++;
    s->admitted++;
    rq->job = j;
    if (k) {
        k->phase = WORKING;
        k->job = j;
    }
    pthread_cond_broadcast(&s->work); /* the reserved worker may not take it */
    pthread_mutex_unlock(&s->lock);
    return MHD_YES;
}

/* libmicrohttpd's access handler: called once with the headers, then with
 * each piece of the body, then with none until it is answered. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **state)
{
    server *s = cls;
    request *rq = *state;
    (void)version;
    if (!rq)
        return request_start(s, c, url, method, state);
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        return request_body(s, c, rq, upload, n);
    }
    if (rq->refused)
        return MHD_NO;
    if (!rq->job)
        return request_queue(s, c, rq);
    /* resumed: answered by a worker or by the clock */
    pthread_mutex_lock(&s->lock);
    reply out = rq->job->out;
    rq->job->out.p = NULL;
    pthread_mutex_unlock(&s->lock);
    return send_reply(s, c, &out, NULL);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode why)
{
    server *s = cls;
    request *rq = *state;
    (void)why;
    conn *k = conn_of(c);
    pthread_mutex_lock(&s->lock);
    if (k && k->phase != CUT) { /* the next request's time starts */
        k->phase = ARRIVING;
        k->begun = 0;
        k->served++;
        k->due = now_plus(s->o->request_timeout * 1000);
        k->job = NULL;
    }
    if (rq && rq->job) {
        if (rq->job->state == RUNNING)
            rq->job->orphan = 1; /* the worker frees it */
        else
            job_free(rq->job);
    }
    pthread_mutex_unlock(&s->lock);
    if (rq) {
        free(rq->body.p);
        free(rq);
        *state = NULL;
    }
}

/* libmicrohttpd's messages: at most --log-limit a minute, the rest
 * counted (a client could otherwise grow the log at will). */
static void on_log(void *cls, const char *fmt, va_list ap) PRINTF_LIKE(2, 0);
static void on_log(void *cls, const char *fmt, va_list ap)
{
    server *s = cls;
    pthread_mutex_lock(&s->log_lock);
    if (seconds_since(&s->log_since) >= 60) {
        if (s->left_out)
            fprintf(stderr, "alea: serve: %" PRId64 " more messages of the HTTP server were "
                    "left out (--log-limit %" PRId64 " a minute)\n", s->left_out,
                    s->o->log_limit);
        s->log_since = now_plus(0);
        s->logged = s->left_out = 0;
    }
    if (s->logged < s->o->log_limit) {
        s->logged++;
        fputs("alea: serve: ", stderr);
        vfprintf(stderr, fmt, ap);
    } else {
        s->left_out++;
        s->left_out_all++;
    }
    pthread_mutex_unlock(&s->log_lock);
}

static unsigned daemon_connections(struct MHD_Daemon *d)
{
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return i ? i->num_connections : 0;
}

int cmd_serve(const options *o)
{
    union {
        struct sockaddr sa;
        struct sockaddr_in v4;
        struct sockaddr_in6 v6;
    } addr;
    memset(&addr, 0, sizeof addr);
    int v6 = 0;
    if (inet_pton(AF_INET, o->bind, &addr.v4.sin_addr) == 1) {
        addr.v4.sin_family = AF_INET;
        addr.v4.sin_port = htons((uint16_t)o->port);
    } else if (inet_pton(AF_INET6, o->bind, &addr.v6.sin6_addr) == 1) {
        addr.v6.sin6_family = AF_INET6;
        addr.v6.sin6_port = htons((uint16_t)o->port);
        v6 = 1;
    }

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t threads = o->threads ? o->threads : cores > 0 ? cores : 1;
    if (threads > THREADS_MAX)
        threads = THREADS_MAX;
    if (threads > o->max_connections) /* each evaluates one connection's request */
        threads = o->max_connections;

    /* static: a worker in an evaluation that does not poll its deadline
     * may outlive cmd_serve until the process exits */
    static server s;
    s.o = o;
    s.nclients = (size_t)o->max_queue + CLIENTS_REMEMBERED;
    s.clients = calloc(s.nclients, sizeof *s.clients);
    pthread_t workers[THREADS_MAX], clock_id;
    static worker_arg args[THREADS_MAX];
    if (!s.clients)
        return out_of_memory();
    pthread_mutex_init(&s.lock, NULL);
    pthread_mutex_init(&s.log_lock, NULL);
    pthread_cond_init(&s.work, NULL);
    s.log_since = now_plus(0);

    /* SIGINT and SIGTERM are taken by sigwait below: blocked before the
     * threads start, so that they inherit the mask. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0);
    s.d = MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, on_request, &s,
        MHD_OPTION_EXTERNAL_LOGGER, on_log, &s, /* first, to have every message */
        MHD_OPTION_SOCK_ADDR, &addr.sa,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)o->max_client_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->idle_timeout,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, &s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, &s,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, &s,
        MHD_OPTION_END);
    if (!s.d) {
        fprintf(stderr, "alea: serve: cannot listen on %s port %" PRId64 "\n", o->bind,
                o->port);
        free(s.clients);
        return EXIT_FAIL;
    }
    int64_t started = 0;
    for (; started < threads; started++) {
        args[started].s = &s;
        args[started].reserved = started == 0 && threads > 1;
        if (pthread_create(&workers[started], NULL, worker, &args[started]) != 0)
            break;
    }
    s.workers_left = started;
    int clock_ok = pthread_create(&clock_id, NULL, clock_thread, &s) == 0;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s.d, MHD_DAEMON_INFO_BIND_PORT);
    if (started && clock_ok) {
        printf("listening on http://%s%s%s:%u/\n", v6 ? "[" : "", o->bind, v6 ? "]" : "",
               info ? (unsigned)info->port : (unsigned)o->port);
        fflush(stdout);
    }

    int sig = 0;
    if (started && clock_ok)
        sigwait(&stop, &sig);
    else
        fputs("alea: serve: cannot start its threads\n", stderr);
    /* Stop accepting, give the requests being answered their deadline to
     * finish (a second more), then answer those left 503 and close the
     * rest. */
    MHD_socket listen_fd = MHD_quiesce_daemon(s.d);
    struct timespec pause = {0, 10000000L};
    int64_t waited_ms = 0, grace_ms = (o->timer->ms > 0 ? o->timer->ms : 1000) + 1000;
    while (daemon_connections(s.d) > 0 && waited_ms < grace_ms) {
        nanosleep(&pause, NULL);
        waited_ms += 10;
    }
    pthread_mutex_lock(&s.lock);
    s.stopping = 1; /* the clock answers what is left, the workers stop */
    pthread_cond_broadcast(&s.work);
    pthread_mutex_unlock(&s.lock);
    if (clock_ok) {
        nanosleep(&pause, NULL); /* a tick to answer the last */
        pthread_mutex_lock(&s.lock);
        s.stopping = 2;
        pthread_mutex_unlock(&s.lock);
        pthread_join(clock_id, NULL);
    }
    MHD_stop_daemon(s.d);
    if (listen_fd != MHD_INVALID_SOCKET)
        close(listen_fd);
    /* The workers end with their evaluation, which polls the deadline;
     * one that does not within a grace is left to the process's exit. */
    int64_t left = 0;
    for (waited_ms = 0; waited_ms <= grace_ms; waited_ms += 10) {
        pthread_mutex_lock(&s.lock);
        left = s.workers_left;
        pthread_mutex_unlock(&s.lock);
        if (!left)
            break;
        nanosleep(&pause, NULL);
    }
    for (int64_t i = 0; i < started; i++)
        if (left)
            pthread_detach(workers[i]);
        else
            pthread_join(workers[i], NULL);
    if (s.left_out_all)
        fprintf(stderr, "alea: serve: %" PRId64 " messages of the HTTP server were left out "
                "in all (--log-limit %" PRId64 " a minute)\n", s.left_out_all, o->log_limit);
    if (!left) {
        free(s.clients);
        pthread_mutex_destroy(&s.lock);
        pthread_mutex_destroy(&s.log_lock);
        pthread_cond_destroy(&s.work);
    }
    if (sig)
        fprintf(stderr, "alea: serve: stopped by %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return sig ? EXIT_OK : EXIT_FAIL;
}

#endif
