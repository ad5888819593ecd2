/*
 * heap.c -- asks Linux for transparent huge pages on the heap the
 * evaluations will use, before the first expression is read.
 *
 * Why: a large evaluation touches up to its memory limit (16 MiB by
 * default) of fresh memory, and each fresh 4 KiB page is a page fault. On
 * the virtual machines this project is measured on a fault has cost 5 to
 * 15 us, so touching 32 MiB cost 40 to 120 ms in the kernel alone, more than
 * the whole time budget of docs/security.md. With 2 MiB pages the same
 * memory takes a few hundred faults: `alea dist 'event(300d20)'` (refused by
 * the memory limit) went from 6,400 faults and 90 ms to 300 faults and
 * 10 ms; the figures are in docs/security.md.
 *
 * How: glibc's malloc is told to grow its heap by HEAP_PAD at a time and to
 * serve every block from it (no separate mappings, no trimming), and the
 * padded heap is marked MADV_HUGEPAGE, the opt-in of the kernel's default
 * "madvise" mode. Pages are still only given when touched, 2 MiB at a time,
 * so a small roll's resident memory does not grow. Elsewhere (other C
 * libraries, other systems, a kernel without huge pages) this does nothing:
 * it is only a hint, and nothing depends on it.
 */
#define _DEFAULT_SOURCE /* sbrk, madvise */

#include "cli.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef MADV_HUGEPAGE
enum {
    HUGE_PAGE = 2 << 20,  /* x86-64's and arm64's usual huge page */
    HEAP_PAD = 24 << 20,  /* the default memory limit, 16 MiB, and room */
    HEAP_ONLY = 64 << 20, /* blocks up to this come from the heap */
};

void heap_prepare(void)
{
    /* One arena: the sampling threads allocate rarely (a tally that
     * doubles), so they lose nothing by sharing the main heap and gain its
     * huge pages (64 threads refused by the memory limit: 5,000 faults and
     * 80 ms before, 400 faults and 50 ms after). */
    if (!mallopt(M_MMAP_THRESHOLD, HEAP_ONLY) || !mallopt(M_TRIM_THRESHOLD, HEAP_ONLY) ||
        !mallopt(M_TOP_PAD, HEAP_PAD) || !mallopt(M_ARENA_MAX, 1))
        return;
    char *first = malloc(1); /* grows the heap by the pad */
    if (!first)
        return;
    uintptr_t lo = ((uintptr_t)first + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t hi = (uintptr_t)sbrk(0) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* a hint: failure is fine */
    free(first);
}
#else
void heap_prepare(void) {}
#endif
#else
void heap_prepare(void) {}
#endif
