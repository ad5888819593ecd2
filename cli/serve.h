/*
 * serve.h -- what the files of alea serve share (the program alea-serve,
 * built with HTTP):
 *   serve.c          the options' defaults, startup, the main loop, the stop
 *   serve_http.c     libmicrohttpd's callbacks: requests, their headers and
 *                    bodies, the answers held, the clock
 *   serve_queue.c    the queues of the client addresses, their fair share
 *                    of the workers, the workers
 *   serve_api.c      a request's body and its answer, the errors as JSON
 *   serve_openapi.c  GET /openapi.json
 */
#ifndef ALEA_CLI_SERVE_H
#define ALEA_CLI_SERVE_H

#include "cli.h"

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <time.h>

/* An answer: its HTTP status and its JSON body (malloc'd; NULL: out of
 * memory, answered from a static text). */
typedef struct reply {
    unsigned status;
    char *p;
    size_t len;
} reply;

/* What a request asked for: the fields of its body. */
typedef struct request_fields {
    const char *expr;
    size_t expr_len;
    json_t *exprs; /* /compare: an array of strings (in the body's root) */
    json_t *sweeps; /* /table: arrays of strings ("m=0..10"; "mean", "p>=2") */
    json_t *stats;
    int64_t n;
    uint64_t seed;
    int seed_set;
    int dialect; /* -1: the server's (--dialect) */
    int exact;
    int luck; /* /roll: each roll's place in its distribution */
    alea_format format; /* /roll: JSON (the breakdown's objects), text or Markdown */
    json_t *rolls;      /* /fairness: [{"expression", "total"}, ...] (in the root) */
    const char *text;   /* /fairness: the log as alea fairness reads it */
    size_t text_len;
} request_fields;

typedef void route_answer(const options *o, const request_fields *f, const timer *deadline,
                          reply *out);
/* The answer of a route of one expression: e is the request's expression,
 * compiled in ctx, the request's context (limits, dialect, mode, deadline);
 * the caller frees both. */
typedef void expr_answer(const options *o, const request_fields *f, alea_ctx *ctx,
                         const alea_expr *e, reply *out);

/* One row per path: its method, the fields its body takes, its answer. */
typedef struct route {
    const char *path;
    const char *method; /* and HEAD for GET */
    const char *allow;  /* the Allow header of a 405 */
    const char *fields; /* for the message of an unknown field; NULL: no body */
    route_answer *answer;
    expr_answer *on_expr; /* instead of answer: the route's expression answered */
} route;

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

/* Clients remembered beyond those with requests in the queue, for their
 * share of the workers. */
#define CLIENTS_REMEMBERED 256

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

static inline struct timespec now_plus(int64_t ms)
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

static inline double seconds_since(const struct timespec *t)
{
    struct timespec n = now_plus(0);
    return (double)(n.tv_sec - t->tv_sec) + (double)(n.tv_nsec - t->tv_nsec) / 1e9;
}

static inline int past(const struct timespec *t)
{
    return seconds_since(t) >= 0;
}

/* A worker's server, and whether it is the one kept for light clients. */
typedef struct worker_arg {
    server *s;
    int reserved;
} worker_arg;

/* ---- serve_api.c --------------------------------------------------------- */

/* An error answer with the machine status of its HTTP status. */
void fail(reply *out, unsigned http, const char *msg, size_t start, size_t end);
/* The 503 of a request past its deadline (--timeout). */
void fail_deadline(reply *out, const options *o);
/* The route of path; NULL: none. */
const route *route_find(const char *path);
/* The answer to a whole request on route r, within its deadline. */
void answer(const options *o, const route *r, const char *body, size_t len,
            const timer *deadline, reply *out);

/* ---- serve_openapi.c ----------------------------------------------------- */

route_answer answer_openapi;

/* ---- serve_queue.c ------------------------------------------------------- */

client_key key_of(struct MHD_Connection *c);
client *client_find(server *s, client_key key);
void job_unqueue(server *s, job *j);
void job_free(job *j);
void *worker(void *arg); /* a worker_arg */

/* ---- serve_http.c: libmicrohttpd's callbacks, and the clock's thread ----- */

void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
                   enum MHD_ConnectionNotificationCode what);
void *on_uri(void *cls, const char *uri, struct MHD_Connection *c);
enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                           const char *method, const char *version, const char *upload,
                           size_t *upload_size, void **state);
void on_completed(void *cls, struct MHD_Connection *c, void **state,
                  enum MHD_RequestTerminationCode why);
void *clock_thread(void *arg); /* the server */

#endif
