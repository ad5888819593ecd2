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
 *
 * This file: the settings' defaults, alea's serve (which runs alea-serve),
 * and alea-serve's start, main loop and stop. The rest of the server is in
 * serve_http.c, serve_queue.c, serve_api.c and serve_openapi.c (serve.h).
 */
#define _POSIX_C_SOURCE 200809L /* sigwait, clock_gettime */

#include "cli.h"

void serve_defaults(options *o)
{
    o->port = SERVE_PORT;
    o->bind = SERVE_BIND;
    o->max_connections = SERVE_CONNECTIONS;
    o->max_request = SERVE_REQUEST;
    o->max_rolls = SERVE_FAIRNESS_ROLLS;
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

#include "serve.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Where --bind and --port say to listen. */
typedef union listen_addr {
    struct sockaddr sa;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
} listen_addr;

/* --bind and --port as an address; 1 when it is IPv6. */
static int listen_address(const options *o, listen_addr *addr)
{
    memset(addr, 0, sizeof *addr);
    int v6 = 0;
    if (inet_pton(AF_INET, o->bind, &addr->v4.sin_addr) == 1) {
        addr->v4.sin_family = AF_INET;
        addr->v4.sin_port = htons((uint16_t)o->port);
    } else if (inet_pton(AF_INET6, o->bind, &addr->v6.sin6_addr) == 1) {
        addr->v6.sin6_family = AF_INET6;
        addr->v6.sin6_port = htons((uint16_t)o->port);
        v6 = 1;
    }
    return v6;
}

/* The workers: --threads, or one per core. */
static int64_t worker_count(const options *o)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t threads = o->threads ? o->threads : cores > 0 ? cores : 1;
    if (threads > THREADS_MAX)
        threads = THREADS_MAX;
    if (threads > o->max_connections) /* each evaluates one connection's request */
        threads = o->max_connections;
    return threads;
}

/* libmicrohttpd listening at addr, its callbacks given s; NULL when it
 * cannot. */
static struct MHD_Daemon *start_daemon(server *s, listen_addr *addr, int v6)
{
    const options *o = s->o;
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0);
    return MHD_start_daemon(
        flags, (uint16_t)o->port, NULL, NULL, on_request, s,
        MHD_OPTION_EXTERNAL_LOGGER, on_log, s, /* first, to have every message */
        MHD_OPTION_SOCK_ADDR, &addr->sa,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)o->max_client_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->idle_timeout,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
        MHD_OPTION_END);
}

/* Stop accepting, give the requests being answered their deadline to
 * finish (a second more), then answer those left 503 and close the rest.
 * The workers end with their evaluation, which polls the deadline; one
 * that does not within a grace is left to the process's exit. Returns how
 * many were left so. */
static int64_t stop_server(server *s, int clock_ok, pthread_t clock_id, const pthread_t *workers,
                           int64_t started)
{
    MHD_socket listen_fd = MHD_quiesce_daemon(s->d);
    struct timespec pause = {0, 10000000L};
    int64_t waited_ms = 0, grace_ms = (s->o->timer->ms > 0 ? s->o->timer->ms : 1000) + 1000;
    while (daemon_connections(s->d) > 0 && waited_ms < grace_ms) {
        nanosleep(&pause, NULL);
        waited_ms += 10;
    }
    pthread_mutex_lock(&s->lock);
    s->stopping = 1; /* the clock answers what is left, the workers stop */
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->lock);
    if (clock_ok) {
        nanosleep(&pause, NULL); /* a tick to answer the last */
        pthread_mutex_lock(&s->lock);
        s->stopping = 2;
        pthread_mutex_unlock(&s->lock);
        pthread_join(clock_id, NULL);
    }
    MHD_stop_daemon(s->d);
    if (listen_fd != MHD_INVALID_SOCKET)
        close(listen_fd);
    int64_t left = 0;
    for (waited_ms = 0; waited_ms <= grace_ms; waited_ms += 10) {
        pthread_mutex_lock(&s->lock);
        left = s->workers_left;
        pthread_mutex_unlock(&s->lock);
        if (!left)
            break;
        nanosleep(&pause, NULL);
    }
    for (int64_t i = 0; i < started; i++)
        if (left)
            pthread_detach(workers[i]);
        else
            pthread_join(workers[i], NULL);
    return left;
}

int cmd_serve(const options *o)
{
    listen_addr addr;
    int v6 = listen_address(o, &addr);
    int64_t threads = worker_count(o);

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

    s.d = start_daemon(&s, &addr, v6);
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
    int64_t left = stop_server(&s, clock_ok, clock_id, workers, started);
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
