/*
 * serve_queue.c -- alea serve's queues: the requests with a body wait in
 * the queue of their client address, and a free worker takes the next one
 * from the client that used the workers least lately (its fair share);
 * the workers answer them (serve_api.c). The clock that cuts what runs
 * past its deadline is serve_http.c's.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "cli.h"

#ifdef ALEA_HAVE_HTTP /* alea-serve's alone (cli.h, cmd_serve, says why) */

#include "serve.h"

#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* The worker time a client used counts half after this many seconds. */
#define CLIENT_MEMORY_S 2.0
/* With two workers or more, the first takes only requests of clients that
 * used less than this many seconds of workers lately (about a tenth of a
 * worker, steadily): clients that loop expensive requests share the
 * others, and a cheap request never waits behind them. */
#define CLIENT_LIGHT_S 0.25

client_key key_of(struct MHD_Connection *c)
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
client *client_find(server *s, client_key key)
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
void job_unqueue(server *s, job *j)
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

void job_free(job *j)
{
    if (j) {
        free(j->body);
        free(j->out.p);
        free(j);
    }
}

void *worker(void *arg)
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

#endif
