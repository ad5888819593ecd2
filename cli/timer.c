/*
 * timer.c -- --timeout and --time-limit: deadlines on the monotonic clock,
 * which the library polls through its interrupt hook (every few thousand
 * steps) and the roll loop checks between rolls.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "cli.h"

static int passed(const struct timespec *at)
{
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return 0;
    return now.tv_sec > at->tv_sec || (now.tv_sec == at->tv_sec && now.tv_nsec >= at->tv_nsec);
}

/* Whether the command's time limit has passed. */
int command_expired(const timer *t)
{
    return t->cmd_s > 0 && passed(&t->cmd_at);
}

/* The library's interrupt hook: the expression's deadline or the
 * command's. Reads only: the sampling threads share it. */
int timer_expired(void *ud)
{
    const timer *t = ud;
    return (t->ms > 0 && passed(&t->at)) || command_expired(t);
}

static void deadline_in(struct timespec *at, int64_t ms)
{
    if (clock_gettime(CLOCK_MONOTONIC, at) != 0) {
        at->tv_sec = 0; /* no clock: never passes */
        at->tv_nsec = 0;
        return;
    }
    at->tv_sec += (time_t)(ms / 1000);
    at->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (at->tv_nsec >= 1000000000L) {
        at->tv_sec++;
        at->tv_nsec -= 1000000000L;
    }
}

/* Starts the time of one expression (nothing without --timeout). */
void timer_arm(timer *t)
{
    if (t && t->ms > 0)
        deadline_in(&t->at, t->ms);
}

/* Starts the time of a whole command (or one line of input). */
void command_arm(timer *t)
{
    if (t && t->cmd_s > 0)
        deadline_in(&t->cmd_at, t->cmd_s * 1000);
}
