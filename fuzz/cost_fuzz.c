/*
 * cost_fuzz.c -- libFuzzer target: does an input cost what the work model
 * charges for it?
 *
 * The work limit (ALEA_LIMIT_WORK) protects a host only if every step the
 * library takes is paid for: a loop that runs a thousand steps for each
 * unit it charges is a denial of service the limit never sees. For each
 * input this target compiles, rolls once (and formats the breakdown as text
 * and as JSON) and computes the exact distribution (and formats its JSON),
 * all with the default limits, and weighs each phase against the units the
 * context charged for it (ctx->work_used: the target includes core.h, the
 * context's insides, as it links the library's sources):
 *
 *   time    the thread's CPU time: past COST_FLOOR_NS and COST_NS_PER_UNIT
 *           a unit (a formatter: COST_NS_PER_BYTE it writes; compiling,
 *           which charges nothing: per byte of source) is a finding.
 *   output  the bytes of the breakdowns and of the distribution's JSON:
 *           past COST_BYTES_PER_UNIT charged by the evaluation that made
 *           them (and a floor) is a finding, as is a breakdown (text and
 *           JSON) past the BREAKDOWN limit.
 *   memory  the context's peak (ctx->mem_peak) within the memory limit; and
 *           what is asked of the allocator: past COST_ALLOCS_PER_UNIT
 *           allocations a unit, or past COST_BIG_BYTES_PER_UNIT bytes a
 *           unit in blocks of 128 KiB or more (beyond twice the memory
 *           limit), is a finding. Memory is not charged as work, and a
 *           block that big may come fresh from the kernel each time: an
 *           evaluation that allocates, clears and frees its scratch per
 *           state spends its time in page faults (here a second for 30
 *           million units, in a new process), not in its work.
 *
 * The bounds and the measurements they rest on are in fuzz/README.md.
 * Output and allocations are counted, so an input always gets the same
 * verdict from them; time is measured, so an input over its time bound is
 * measured a second time and is a finding only if it is over both times (a
 * busy machine does not make a finding).
 *
 * A watchdog in the interrupt hook (which the library polls every 4096
 * units charged) stops an evaluation as soon as its time is past the bound
 * for the units charged so far, so a hostile input costs the bound, not its
 * whole run. A loop that charges nothing never polls: it is measured when
 * it returns, or libFuzzer's -timeout catches it.
 *
 * The time measured is CPU time on a warm heap (keep_heap): page faults on
 * this virtual machine cost 5 us or more each and vary from one run to the
 * next by ten times, so they would drown the work; the allocator bounds
 * stand for them.
 *
 * With COST_REPORT set in the environment nothing fails: each phase of each
 * input is printed on stderr as a tab-separated line
 *   cost PHASE INPUT_BYTES UNITS DICE NS NS/UNIT OUT_BYTES PEAK ALLOCS
 *        ALLOC_BYTES BIG_BLOCKS BIG_BYTES STATUS INPUT
 * and an evaluation is stopped only after 10 s. COST_COLD leaves the heap
 * as the C library sets it up, to measure what the first evaluations of a
 * new process pay.
 */
#define _POSIX_C_SOURCE 199309L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the bounds (fuzz/README.md has their measured basis) ------------------ */

/* Below this much CPU time a phase is never a finding: fixed costs, timer
 * noise, an unlucky page fault. */
#define COST_FLOOR_NS 50e6
/* CPU per unit charged: 20 times the model's 2 ns; legitimate inputs past
 * the floor take at most 4 ns here. */
#define COST_NS_PER_UNIT 40.0
/* CPU per byte a formatter writes (or the compiler reads): at most 52 ns
 * seen. */
#define COST_NS_PER_BYTE 200.0
/* Output per unit charged, past a floor and 8 bytes per byte of input (the
 * JSON echoes the source, escaped): legitimate inputs print at most 62. */
#define COST_BYTES_PER_UNIT 256.0
#define COST_BYTES_FLOOR (1u << 20)
/* Allocations per unit charged, past a floor: at most 0.24 seen. */
#define COST_ALLOCS_PER_UNIT 1.0
#define COST_ALLOCS_FLOOR 10000u
/* Bytes in blocks of COST_BIG_BLOCK or more (glibc's malloc maps those
 * apart at first) per unit charged, past twice the memory limit (the peak,
 * and the doublings that reach it): legitimate inputs need at most 2.2;
 * the churn of scratch blocks found by review took 10 to 15. */
#define COST_BIG_BLOCK (128u << 10)
#define COST_BIG_BYTES_PER_UNIT 4.0

typedef struct phase {
    const char *name;
    double ns;              /* CPU time */
    int64_t work, dice;     /* units charged, dice rolled */
    size_t bytes;           /* output (formatters) */
    size_t peak;            /* the context's peak memory */
    unsigned long allocs;   /* allocations and resizes asked for */
    unsigned long long vol; /* their bytes */
    unsigned long big;      /* those of COST_BIG_BLOCK bytes or more */
    unsigned long long bigvol;
    alea_status st;
} phase;

enum { P_COMPILE, P_ROLL, P_TEXT, P_JSON, P_DIST, P_DJSON, P__COUNT };
static const char *const phase_name[P__COUNT] = {"compile", "roll", "text",
                                                 "json",    "dist", "djson"};

typedef struct run {
    const uint8_t *data;
    size_t size;
    uint64_t h;
    phase p[P__COUNT];
} run;

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int reporting(void)
{
    static int r = -1;
    if (r < 0)
        r = getenv("COST_REPORT") != NULL;
    return r;
}

/* The time an evaluation that charged `work` units may take. */
static double time_bound(int64_t work)
{
    return COST_FLOOR_NS + COST_NS_PER_UNIT * (double)work;
}

/* The checking allocator of fuzz/common.c, counting what is asked of it. */
typedef struct cost_heap {
    fz_heap h;
    unsigned long allocs, big;
    unsigned long long vol, bigvol;
} cost_heap;

static void *cost_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    cost_heap *c = ud;
    if (nsize > 0) {
        c->allocs++;
        c->vol += nsize;
        if (nsize >= COST_BIG_BLOCK) {
            c->big++;
            c->bigvol += nsize;
        }
    }
    return fz_alloc(&c->h, ptr, osize, nsize);
}

/* As fz_ctx_new, on a counting heap. */
static alea_ctx *cost_ctx_new(cost_heap *c)
{
    memset(c, 0, sizeof *c);
    alea_ctx *ctx = alea_ctx_new(cost_alloc, c);
    FZ_CHECK(ctx != NULL, "alea_ctx_new failed without an allocation failure");
    alea_ctx_seed(ctx, 1);
    c->h.ctx_bytes = alea_ctx_memory(ctx, NULL);
    return ctx;
}

/* ---- measuring a phase -------------------------------------------------------- */

/* The watchdog: the interrupt hook reads the clock every 8th poll (32768
 * units) and stops the evaluation once its time is past the bound for the
 * units charged so far. */
typedef struct watch {
    alea_ctx *ctx;
    const cost_heap *heap;
    phase *p;
    double t0;
    cost_heap at0; /* the counts when the phase started */
    unsigned polls;
    int tripped;
} watch;

static int watchdog(void *ud)
{
    watch *w = ud;
    if (++w->polls % 8 != 0)
        return 0;
    double t = cpu_ns() - w->t0;
    if (reporting() ? t > 1e10 : t > time_bound(w->ctx->work_used)) {
        w->tripped = 1;
        return 1;
    }
    return 0;
}

static void watch_start(watch *w, alea_ctx *ctx, const cost_heap *heap, phase *p)
{
    w->ctx = ctx;
    w->heap = heap;
    w->p = p;
    w->polls = 0;
    w->tripped = 0;
    w->at0 = *heap;
    ctx->mem_peak = ctx->mem_used;
    alea_ctx_set_interrupt(ctx, watchdog, w);
    w->t0 = cpu_ns();
}

static void watch_stop(watch *w, alea_status st)
{
    phase *p = w->p;
    p->ns = cpu_ns() - w->t0;
    p->work = w->ctx->work_used;
    p->dice = w->ctx->dice_used;
    p->peak = w->ctx->mem_peak;
    p->allocs = w->heap->allocs - w->at0.allocs;
    p->vol = w->heap->vol - w->at0.vol;
    p->big = w->heap->big - w->at0.big;
    p->bigvol = w->heap->bigvol - w->at0.bigvol;
    p->st = st;
    alea_ctx_set_interrupt(w->ctx, NULL, NULL);
}

/* A failed evaluation: a documented error, unless the watchdog stopped it. */
static void check_failure(const watch *w, alea_status st, size_t size)
{
    if (st == ALEA_OK)
        return;
    fz_check_error(w->ctx, st, size);
    FZ_CHECK(st != ALEA_ERR_INTERRUPTED || w->tripped, "interrupted without a hook that said "
             "stop");
}

/*
 * Freed memory stays in the process and its pages stay mapped (64 MB of
 * them faulted in once, here): otherwise an evaluation that needs a few MB
 * may get fresh pages from the kernel, and at 5 us or more a page fault
 * here, 32 MB of them take 50 to 100 ms, ten times the work that fills
 * them, and a different time on each run. A host that evaluates many
 * expressions reuses its heap much the same way.
 */
static void keep_heap(void)
{
#if defined(__GLIBC__)
    if (getenv("COST_COLD"))
        return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    enum { BLOCKS = 32, BLOCK = 2 << 20 };
    void *b[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) {
        b[i] = malloc(BLOCK);
        if (b[i])
            memset(b[i], 1, BLOCK);
    }
    for (int i = BLOCKS - 1; i >= 0; i--)
        free(b[i]);
#endif
}

/* One measurement of every phase, in a fresh context. Returns 1 if the
 * input compiled. */
static int measure(run *m)
{
    cost_heap heap;
    watch w;
    alea_ctx *ctx = cost_ctx_new(&heap);
    for (int i = 0; i < P__COUNT; i++) {
        memset(&m->p[i], 0, sizeof m->p[i]);
        m->p[i].name = phase_name[i];
    }

    alea_expr *e = NULL;
    watch_start(&w, ctx, &heap, &m->p[P_COMPILE]);
    alea_status st = alea_expr_compile(ctx, (const char *)m->data, m->size, &e);
    watch_stop(&w, st);
    if (st != ALEA_OK) {
        fz_check_error(ctx, st, m->size);
        fz_ctx_free(ctx, &heap.h);
        return 0;
    }

    alea_roll *r = alea_roll_new(ctx);
    FZ_CHECK(r != NULL, "alea_roll_new failed");
    alea_ctx_seed(ctx, m->h);
    watch_start(&w, ctx, &heap, &m->p[P_ROLL]);
    st = alea_expr_roll(ctx, e, r);
    watch_stop(&w, st);
    check_failure(&w, st, m->size);
    if (st == ALEA_OK) {
        /* The length alone: formatting with cap 0 does all the work. */
        static const alea_format fmt[2] = {ALEA_FORMAT_TEXT, ALEA_FORMAT_JSON};
        for (int i = 0; i < 2; i++) {
            phase *p = &m->p[P_TEXT + i];
            double t0 = cpu_ns();
            p->bytes = alea_roll_format(r, fmt[i], NULL, 0);
            p->ns = cpu_ns() - t0;
        }
    }
    alea_roll_free(r);

    alea_dist *d = NULL;
    watch_start(&w, ctx, &heap, &m->p[P_DIST]);
    st = alea_expr_dist(ctx, e, &d);
    watch_stop(&w, st);
    check_failure(&w, st, m->size);
    if (st == ALEA_OK) {
        phase *p = &m->p[P_DJSON];
        double t0 = cpu_ns();
        p->bytes = alea_dist_format(d, ALEA_FORMAT_JSON, NULL, 0);
        p->ns = cpu_ns() - t0;
        alea_dist_free(d);
    }

    alea_expr_free(e);
    fz_ctx_free(ctx, &heap.h);
    return 1;
}

/* ---- the verdict -------------------------------------------------------------- */

static int over_time(const phase *p, double bound_ns)
{
    return p->ns > COST_FLOOR_NS && p->ns > bound_ns;
}

/* The first timed phase over its bound, or -1. */
static int over_time_any(const run *m)
{
    /* Compiling is linear in the source and charges nothing: held to a
     * formatter's rate per source byte. */
    if (over_time(&m->p[P_COMPILE], COST_NS_PER_BYTE * (double)m->size))
        return P_COMPILE;
    for (int i = P_ROLL; i < P__COUNT; i++) {
        const phase *p = &m->p[i];
        int fmt = i == P_TEXT || i == P_JSON || i == P_DJSON;
        if (over_time(p, fmt ? COST_NS_PER_BYTE * (double)p->bytes : time_bound(p->work)))
            return i;
    }
    return -1;
}

/* What the counted measures break (the same every time), or NULL; the
 * explanation goes to why[]. */
static const char *over_count(const run *m, char *why, size_t cap)
{
    /* The library's own promise: text and JSON within the BREAKDOWN limit. */
    size_t shown = m->p[P_TEXT].bytes + m->p[P_JSON].bytes;
    FZ_CHECK(shown <= (size_t)alea_limit_default(ALEA_LIMIT_BREAKDOWN),
             "the breakdown prints %zu bytes (text %zu, JSON %zu), past the breakdown limit",
             shown, m->p[P_TEXT].bytes, m->p[P_JSON].bytes);
    for (int i = P_TEXT; i < P__COUNT; i++) {
        const phase *p = &m->p[i];
        if (i == P_DIST)
            continue;
        int64_t work = i == P_DJSON ? m->p[P_DIST].work : m->p[P_ROLL].work;
        double most = COST_BYTES_FLOOR + COST_BYTES_PER_UNIT * (double)work +
                      8.0 * (double)m->size;
        if ((double)p->bytes > most) {
            snprintf(why, cap, "%zu bytes of output for %" PRId64 " units (%.0f bytes/unit; "
                     "bound %.0f bytes)", p->bytes, work,
                     (double)p->bytes / (double)(work ? work : 1), most);
            return p->name;
        }
    }
    static const int evals[2] = {P_ROLL, P_DIST};
    for (int i = 0; i < 2; i++) {
        const phase *p = &m->p[evals[i]];
        FZ_CHECK(p->peak <= (size_t)alea_limit_default(ALEA_LIMIT_MEMORY),
                 "%s: peak %zu bytes over the memory limit", p->name, p->peak);
        double most = COST_ALLOCS_FLOOR + COST_ALLOCS_PER_UNIT * (double)p->work;
        if ((double)p->allocs > most) {
            snprintf(why, cap, "%lu allocations for %" PRId64 " units (bound %.0f)", p->allocs,
                     p->work, most);
            return p->name;
        }
        most = 2.0 * (double)alea_limit_default(ALEA_LIMIT_MEMORY) +
               COST_BIG_BYTES_PER_UNIT * (double)p->work;
        if ((double)p->bigvol > most) {
            snprintf(why, cap, "%llu bytes in %lu blocks of %u KiB or more (peak %zu) for %"
                     PRId64 " units (bound %.0f bytes)", p->bigvol, p->big,
                     COST_BIG_BLOCK >> 10, p->peak, p->work, most);
            return p->name;
        }
    }
    return NULL;
}

/* The measurements, one line a phase, for a finding's message; with m2,
 * the time of the second measurement too. */
static void table(char *buf, size_t cap, const run *m, const run *m2)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < P__COUNT && k < cap; i++) {
        const phase *p = &m->p[i];
        char again[32] = "";
        if (m2)
            snprintf(again, sizeof again, " (then %.1f)", m2->p[i].ns / 1e6);
        k += (size_t)snprintf(buf + k, cap - k,
                              "\n  %-7s %8.1f ms%s %10" PRId64 " units %9.1f ns/unit %10zu "
                              "bytes out, peak %zu, %lu allocs (%lu big), %s",
                              p->name, p->ns / 1e6, again, p->work,
                              p->work ? p->ns / (double)p->work : 0.0, p->bytes, p->peak,
                              p->allocs, p->big, alea_status_name(p->st));
    }
}

static void report(const run *m, int phases)
{
    for (int i = 0; i < phases; i++) {
        const phase *p = &m->p[i];
        fprintf(stderr,
                "cost\t%s\t%zu\t%" PRId64 "\t%" PRId64 "\t%.0f\t%.2f\t%zu\t%zu\t%lu\t%llu\t%lu\t%llu"
                "\t%s\t",
                p->name, m->size, p->work, p->dice, p->ns,
                p->work ? p->ns / (double)p->work : 0.0, p->bytes, p->peak, p->allocs, p->vol,
                p->big, p->bigvol, alea_status_name(p->st));
        for (size_t j = 0; j < m->size && j < 100; j++)
            fputc(m->data[j] >= 0x20 && m->data[j] < 0x7f ? m->data[j] : '?', stderr);
        fputc('\n', stderr);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        keep_heap();
        ready = 1;
    }
    static run m, m2;
    static char lines[2048], why[256];
    m.data = data;
    m.size = size;
    m.h = fz_hash(data, size);
    int compiled = measure(&m);
    if (reporting()) {
        report(&m, compiled ? P__COUNT : 1);
        return 0;
    }
    if (!compiled)
        return 0;
    int shown = (int)(size < 300 ? size : 300);
    const char *what = over_count(&m, why, sizeof why);
    if (what) {
        table(lines, sizeof lines, &m, NULL);
        fz_fail(__FILE__, __LINE__, "cost within the model",
                "%s: %s\n  input (%zu bytes): '%.*s'%s", what, why, size, shown,
                (const char *)data, lines);
    }
    int slow = over_time_any(&m);
    if (slow < 0)
        return 0;
    /* Once more: a busy machine is not a finding. */
    m2 = m;
    measure(&m2);
    if (over_time_any(&m2) < 0)
        return 0;
    const phase *p = &m.p[slow];
    table(lines, sizeof lines, &m, &m2);
    fz_fail(__FILE__, __LINE__, "cost within the model",
            "%s: %.1f ms of CPU, then %.1f ms, for %" PRId64 " units and %zu bytes out "
            "(bounds: over %.0f ms and %.0f ns/unit, or %.0f ns/byte)\n  input (%zu bytes): "
            "'%.*s'%s",
            p->name, p->ns / 1e6, m2.p[slow].ns / 1e6, p->work, p->bytes, COST_FLOOR_NS / 1e6,
            COST_NS_PER_UNIT, COST_NS_PER_BYTE, size, shown, (const char *)data, lines);
}
