/* heap.h -- the tests' allocator hook: counts the blocks it holds and can
 * fail its fail_at-th request (fault injection). Header-only. */
#ifndef ALEA_TEST_HEAP_H
#define ALEA_TEST_HEAP_H

#include <stdlib.h>

typedef struct heap {
    long live, count, fail_at;
} heap;

static void *heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    heap *h = ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr)
            h->live--;
        free(ptr);
        return NULL;
    }
    if (h->fail_at && ++h->count == h->fail_at)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p && !ptr)
        h->live++;
    return p;
}

#endif
