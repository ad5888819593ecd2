/*
 * serve.c -- alea serve: roll and dist as an HTTP JSON service, for bots in
 * any language.
 *
 * libmicrohttpd reads the HTTP (a pool of threads, a cap on connections, a
 * time limit on silent ones); jansson reads the request bodies; the answers
 * are the library's own JSON (alea_roll_format, alea_dist_format), and the
 * errors jansson's. Every request gets a context of its own, the limits of
 * the command line's options, and a deadline (--timeout): contexts are
 * never shared between threads. What a request may hold is bounded before
 * it is held: its body (--max-request, 413), its answer (--max-response),
 * the connections served at once (--max-connections; more wait in the
 * listen queue until one ends).
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
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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
    int64_t n;
    uint64_t seed;
    int seed_set;
    int dialect; /* -1: the server's (--dialect) */
    int exact;
} request_fields;

/* A request's own state, from its headers to its answer. */
typedef struct request {
    const struct route *route;
    buffer body;
    size_t len; /* bytes received, kept or not */
} request;

typedef void route_answer(const options *o, const request_fields *f, reply *out);

/* One row per path: its method, the fields its body takes, its answer. */
typedef struct route {
    const char *path;
    const char *method; /* and HEAD for GET */
    const char *allow;  /* the Allow header of a 405 */
    const char *fields; /* for the message of an unknown field; NULL: no body */
    route_answer *answer;
} route;

/* ---- errors ------------------------------------------------------------- */

/* An error answer: {"error": {"message": ..., "start": S, "end": E}}. The
 * message is made valid UTF-8 first (a byte that starts no character
 * becomes '?'), as JSON requires. */
static void fail(reply *out, unsigned status, const char *msg, size_t start, size_t end)
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
    out->status = status;
    out->p = NULL;
    json_t *j = json_pack("{s:{s:s,s:I,s:I}}", "error", "message", clean, "start",
                          (json_int_t)start, "end", (json_int_t)end);
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

static void fail_deadline(reply *out, const options *o)
{
    char line[128];
    snprintf(line, sizeof line, "timed out: the request ran past its deadline (--timeout %"
             PRId64 " ms) and was stopped", o->timer->ms);
    fail(out, MHD_HTTP_SERVICE_UNAVAILABLE, line, 0, 0);
}

/* The context's error as an answer: 503 for the deadline and the server's
 * memory, 422 for what the expression asked (syntax, limits). */
static void fail_ctx(reply *out, const options *o, const alea_ctx *ctx)
{
    size_t start, end;
    alea_status st = alea_ctx_error_span(ctx, &start, &end);
    char line[ALEA_ERROR_LINE_MAX + 64];
    if (st == ALEA_ERR_INTERRUPTED) {
        fail_deadline(out, o);
        return;
    }
    alea_ctx_error_line(ctx, line, sizeof line);
    fail(out, st == ALEA_ERR_NOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE
                                   : MHD_HTTP_UNPROCESSABLE_CONTENT, line, start, end);
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
 * and mode, and its deadline (tm, armed here); and its expression compiled
 * in it (*e). NULL when refused (out filled). */
static alea_ctx *request_ctx(const options *o, const request_fields *f, timer *tm,
                             alea_expr **e, reply *out)
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
        fail_ctx(out, o, ctx);
        alea_ctx_free(ctx);
        return NULL;
    }
    *tm = *o->timer;
    if (tm->ms > 0)
        alea_ctx_set_interrupt(ctx, timer_expired, tm);
    timer_arm(tm);
    if (alea_expr_compile(ctx, f->expr, f->expr_len, e) != ALEA_OK) {
        fail_ctx(out, o, ctx);
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
static void answer_roll(const options *o, const request_fields *f, reply *out)
{
    timer tm;
    alea_expr *e;
    alea_ctx *ctx = request_ctx(o, f, &tm, &e, out);
    if (!ctx)
        return;
    buffer b = {NULL, 0};
    size_t at = 0;
    /* a seed drawn has 53 bits: every JSON reader reads it back exactly */
    uint64_t seed = f->seed_set ? f->seed : alea_ctx_random(ctx) >> 11;
    alea_ctx_seed(ctx, seed);
    alea_roll *roll = alea_roll_new(ctx);
    if (!roll) {
        fail_ctx(out, o, ctx);
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
            fail_ctx(out, o, ctx);
            goto done;
        }
        size_t len = alea_roll_format(roll, ALEA_FORMAT_JSON, NULL, 0);
        if ((k && !put(&b, &at, ", ", 2, o, out)) || !room(&b, at, len, o, out))
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

/* POST /dist: the distribution as dist --json, with the expression's
 * hint first as /roll gives it. */
static void answer_dist(const options *o, const request_fields *f, reply *out)
{
    timer tm;
    alea_expr *e;
    alea_ctx *ctx = request_ctx(o, f, &tm, &e, out);
    if (!ctx)
        return;
    alea_dist *d = NULL;
    if (alea_expr_dist(ctx, e, &d) != ALEA_OK) {
        fail_ctx(out, o, ctx);
        goto done;
    }
    /* Each outcome takes 8 bytes at least ("[1, 1], "): refused before
     * anything is formatted when they cannot fit. */
    size_t limit = (size_t)o->max_response;
    if (alea_dist_count(d) > limit / 8) {
        fail_response_limit(out, o);
        goto done;
    }
    char *hint = hint_field(e);
    if (!hint) {
        out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        out->p = NULL;
        goto done;
    }
    size_t hl = strlen(hint); /* the object's "{", then the hint */
    if (hl + 8 > limit) {
        free(hint);
        fail_response_limit(out, o);
        goto done;
    }
    size_t cap = 32 * alea_dist_count(d) + 1024 + hl;
    cap = cap < limit + 1 ? cap : limit + 1;
    for (;;) {
        char *p = malloc(cap);
        size_t len = p ? hl + alea_dist_format(d, ALEA_FORMAT_JSON, p + hl, cap - hl) : 0;
        if (p && hl) { /* "{" + hint + the rest of the object */
            memcpy(p + 1, hint, hl);
            p[0] = '{';
        }
        if (!p) {
            out->status = MHD_HTTP_SERVICE_UNAVAILABLE;
            out->p = NULL;
        } else if (len == 0) { /* past the output limit: the library's error */
            free(p);
            fail_ctx(out, o, ctx);
        } else if (len >= limit) { /* the newline after it too */
            free(p);
            fail_response_limit(out, o);
        } else if (len + 1 >= cap) {
            free(p);
            cap = len + 2;
            continue;
        } else {
            p[len++] = '\n';
            out->status = MHD_HTTP_OK;
            out->p = p;
            out->len = len;
        }
        break;
    }
    free(hint);
done:
    alea_dist_free(d);
    alea_expr_free(e);
    alea_ctx_free(ctx);
}

/* GET /health. */
static void answer_health(const options *o, const request_fields *f, reply *out)
{
    (void)o;
    (void)f;
    json_t *j = json_pack("{s:s,s:s}", "status", "ok", "version", alea_version());
    out->status = MHD_HTTP_OK;
    out->p = j ? json_dumps(j, 0) : NULL;
    out->len = out->p ? strlen(out->p) : 0;
    json_decref(j);
}

static const route routes[] = {
    {"/roll", "POST", "POST", "expr, n, seed, dialect", answer_roll},
    {"/dist", "POST", "POST", "expr, exact, dialect", answer_dist},
    {"/health", "GET", "GET, HEAD", NULL, answer_health},
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
    if (!f->expr) {
        snprintf(msg, sizeof msg, "missing field 'expr' (the expression, as {\"expr\": "
                 "\"4d6kh3\"})");
        fail(out, MHD_HTTP_BAD_REQUEST, msg, 0, 0);
        return 0;
    }
    return 1;
}

/* The answer to a whole request on route r. */
static void answer(const options *o, const route *r, const char *body, size_t len, reply *out)
{
    request_fields f;
    if (!r->fields) {
        r->answer(o, NULL, out);
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
        r->answer(o, &f, out);
    json_decref(root);
}

/* ---- HTTP -------------------------------------------------------------------- */

/* Queues an answer (takes r->p); allow: the Allow header of a 405. */
static enum MHD_Result send_reply(struct MHD_Connection *c, reply *r, const char *allow)
{
    struct MHD_Response *resp;
    if (r->p) {
        resp = MHD_create_response_from_buffer(r->len, r->p, MHD_RESPMEM_MUST_FREE);
        if (!resp)
            free(r->p);
    } else {
        r->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        resp = MHD_create_response_from_buffer(sizeof oom_body - 1, (void *)(uintptr_t)oom_body,
                                               MHD_RESPMEM_PERSISTENT);
    }
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    if (allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result ok = MHD_queue_response(c, r->status, resp);
    MHD_destroy_response(resp);
    return ok;
}

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *msg,
                              const char *allow)
{
    reply r;
    fail(&r, status, msg, 0, 0);
    return send_reply(c, &r, allow);
}

static enum MHD_Result refuse_size(struct MHD_Connection *c, const options *o)
{
    char msg[128];
    snprintf(msg, sizeof msg, "the request body is larger than the request limit "
             "(--max-request %" PRId64 " bytes)", o->max_request);
    return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE, msg, NULL);
}

/* libmicrohttpd's access handler: called once with the headers, then with
 * each piece of the body, then once more with none to answer. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **state)
{
    const options *o = cls;
    request *rq = *state;
    (void)version;
    if (!rq) {
        const route *r = NULL;
        for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
            if (!strcmp(url, routes[i].path))
                r = &routes[i];
        if (!r)
            return refuse(c, MHD_HTTP_NOT_FOUND, "no such path (alea serve answers POST "
                          "/roll, POST /dist and GET /health)", NULL);
        if (strcmp(method, r->method) != 0 &&
            !(!strcmp(r->method, "GET") && !strcmp(method, "HEAD"))) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s takes %s", r->path, r->allow);
            return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, msg, r->allow);
        }
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        uint64_t declared;
        if (cl && parse_u64(cl, &declared) && declared > (uint64_t)o->max_request)
            return refuse_size(c, o);
        if (!(rq = calloc(1, sizeof *rq)))
            return MHD_NO;
        rq->route = r;
        *state = rq;
        return MHD_YES;
    }
    size_t limit = (size_t)o->max_request;
    if (*upload_size) {
        /* A body without Content-Length (chunked) that passes the limit:
         * libmicrohttpd answers only once a body is read, so the rest is
         * read and dropped, up to the limit again; past it, the connection
         * is closed without an answer. */
        size_t n = *upload_size;
        *upload_size = 0;
        if (rq->len + n > limit) {
            rq->len = rq->len + n < 2 * limit + 1 ? rq->len + n : 2 * limit + 1;
            return rq->len > 2 * limit ? MHD_NO : MHD_YES;
        }
        if (!buffer_reserve(&rq->body, rq->len + n + 1))
            return MHD_NO;
        memcpy(rq->body.p + rq->len, upload, n);
        rq->len += n;
        return MHD_YES;
    }
    if (rq->len > limit)
        return refuse_size(c, o);
    reply r;
    answer(o, rq->route, rq->body.p ? rq->body.p : "", rq->len, &r);
    return send_reply(c, &r, NULL);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode why)
{
    request *rq = *state;
    (void)cls;
    (void)c;
    (void)why;
    if (rq) {
        free(rq->body.p);
        free(rq);
        *state = NULL;
    }
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
    if (threads > o->max_connections) /* each thread serves a share of them */
        threads = o->max_connections;

    /* SIGINT and SIGTERM are taken by sigwait below: blocked before the
     * threads start, so that they inherit the mask. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, on_request, (void *)(uintptr_t)o,
        MHD_OPTION_SOCK_ADDR, &addr.sa,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->idle_timeout,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "alea: serve: cannot listen on %s port %" PRId64 "\n", o->bind,
                o->port);
        return EXIT_FAIL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("listening on http://%s%s%s:%u/\n", v6 ? "[" : "", o->bind, v6 ? "]" : "",
           info ? (unsigned)info->port : (unsigned)o->port);
    fflush(stdout);

    int sig = 0;
    sigwait(&stop, &sig);
    /* Stop accepting, give the requests being answered their deadline to
     * finish (a second more), then close the rest. */
    MHD_socket listen_fd = MHD_quiesce_daemon(d);
    struct timespec pause = {0, 10000000L};
    int64_t waited_ms = 0, grace_ms = (o->timer->ms > 0 ? o->timer->ms : 1000) + 1000;
    while (daemon_connections(d) > 0 && waited_ms < grace_ms) {
        nanosleep(&pause, NULL);
        waited_ms += 10;
    }
    MHD_stop_daemon(d);
    if (listen_fd != MHD_INVALID_SOCKET)
        close(listen_fd);
    fprintf(stderr, "alea: serve: stopped by %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return EXIT_OK;
}

#endif
