/*
 * serve_http.c -- alea serve's HTTP: libmicrohttpd's callbacks, which read
 * a request's route and headers, bound its body (--max-request) and queue
 * it (serve_queue.c); the answers handed back, counted while they are held
 * (--max-pending); and the clock that cuts what passed its bound (the
 * phases of serve.h).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "cli.h"

#ifdef ALEA_HAVE_HTTP /* alea-serve's alone (cli.h, cmd_serve, says why) */

#include "serve.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

static const char oom_body[] =
    "{\"error\": {\"message\": \"out of memory\", \"start\": 0, \"end\": 0}}\n";


/* What one request holds while it arrives. */
typedef struct request {
    const route *r;
    buffer body;
    size_t len;   /* bytes received, kept or not */
    int refused;  /* answered already (413 to a chunked body): drained, then closed */
    job *job;
} request;

/* The clock's period: the bounds of the phases (serve.h) are kept to
 * within it. */
#define CLOCK_MS 10
/* A chunked body past --max-request is read and dropped up to this many
 * times the limit, so that its 413 is read; past that it is closed. */
#define DRAIN_TIMES 16

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

/* The clock: cuts what passed its bound (the phases, in serve.h). */
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

void *clock_thread(void *arg)
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

void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
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

void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
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
    const route *r = route_find(url);
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
enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
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

void on_completed(void *cls, struct MHD_Connection *c, void **state,
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

#endif
