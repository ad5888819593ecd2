/*
 * compile_fuzz.c -- libFuzzer target: any bytes as an expression.
 *
 * Checks: compile ends with OK or a documented status, with a message and a
 * span inside the source, and writes its output only on success; the
 * canonical form obeys the snprintf contract, compiles again and prints
 * the same; an allocation failure at any point of a compile that succeeds
 * returns ALEA_ERR_NOMEM and leaks nothing; the context's memory count
 * matches its allocator hook.
 */
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data;
    uint64_t h = fz_hash(data, size);
    fz_heap heap, heap2;
    alea_ctx *ctx = fz_ctx_new(&heap);
    alea_ctx_set_dialect(ctx, fz_dialect(h));
    alea_expr *const unset = (alea_expr *)&heap;
    alea_expr *e = unset;
    alea_status st = alea_expr_compile(ctx, src, size, &e);
    fz_check_memory(ctx, &heap);
    if (st != ALEA_OK) {
        FZ_CHECK(e == unset, "alea_expr_compile wrote its output on failure");
        fz_check_error(ctx, st, size);
        FZ_CHECK(st == ALEA_ERR_SYNTAX || st == ALEA_ERR_INVALID || st == ALEA_ERR_LIMIT,
                 "compile returned %s (%s), not one of its documented statuses",
                 alea_status_name(st), alea_ctx_error(ctx));
        fz_ctx_free(ctx, &heap);
        return 0;
    }
    FZ_CHECK(e != NULL && e != unset, "compile OK without an expression");
    fz_check_ok(ctx);

    /* The canonical form is alea's notation: it reads back the same in
     * alea's dialect (for the other dialects, roll_fuzz's oracle is the
     * rolls; a "not equal" condition has no alea spelling yet). */
    if (fz_dialect(h) == ALEA_DIALECT_ALEA) {
        alea_ctx *ctx2 = fz_ctx_new(&heap2);
        char *canon;
        alea_expr *e2 = fz_roundtrip(ctx2, e, &canon);
        alea_expr_free(e2);
        free(canon);
        fz_ctx_free(ctx2, &heap2);
    }

    /* Fault injection: fail one of the allocations a compile makes. */
    unsigned long before = heap.count;
    alea_expr_free(e);
    fz_check_memory(ctx, &heap);
    e = NULL;
    FZ_CHECK(alea_expr_compile(ctx, src, size, &e) == ALEA_OK, "a second compile failed");
    alea_expr_free(e);
    unsigned long made = heap.count - before;
    FZ_CHECK(made > 0, "a compile without an allocation");
    heap.fail_at = heap.count + 1 + h % made;
    e = unset;
    st = alea_expr_compile(ctx, src, size, &e);
    heap.fail_at = 0;
    FZ_CHECK(st == ALEA_ERR_NOMEM, "allocation %lu of %lu failed but compile returned %s (%s)",
             (unsigned long)(1 + h % made), made, alea_status_name(st), alea_ctx_error(ctx));
    FZ_CHECK(e == unset, "alea_expr_compile wrote its output after running out of memory");
    fz_check_error(ctx, st, size);
    fz_ctx_free(ctx, &heap);
    return 0;
}
