/*
 * rng.h -- the context's generator: xoshiro256** seeded through splitmix64,
 * or a host-supplied source; unbiased bounded draws by Lemire's method.
 * Integer-only, so the same seed gives the same rolls on every platform.
 */
#ifndef ALEA_RNG_H
#define ALEA_RNG_H

#include <stdint.h>

#include "core.h"

ALEA__HIDDEN void alea__rng_seed(alea_ctx *ctx, uint64_t seed);
/* 0 on success, -1 when the OS has no entropy to give. */
ALEA__HIDDEN int alea__rng_seed_os(alea_ctx *ctx);
ALEA__HIDDEN uint64_t alea__rng_next(alea_ctx *ctx);
/* Uniform in [0, n) for n >= 1; n == 0 means the full 64-bit range. */
ALEA__HIDDEN uint64_t alea__rng_below(alea_ctx *ctx, uint64_t n);
/* The index of a die's face, below n (its faces as in alea__face_fn): the
 * face source's choice when one is set, else alea__rng_below(ctx, n). */
ALEA__HIDDEN uint64_t alea__rng_face(alea_ctx *ctx, uint64_t n, int64_t lo,
                                     const int64_t *faces);
/* Sets (or with NULL, removes) the source of chosen faces, which overrides
 * every generator for dice. */
ALEA__HIDDEN void alea__rng_set_faces(alea_ctx *ctx, alea__face_fn fn, void *ud);
/* The sum of k draws of alea__rng_below(ctx, n), n >= 2, drawn as they
 * would be one by one; k * (n - 1) must fit in 64 bits. */
ALEA__HIDDEN uint64_t alea__rng_sum_below(alea_ctx *ctx, uint64_t n, int64_t k);
/* The sum (mod 2^64) of k raw outputs of the built-in generator, in the
 * same loop: the generator's own speed, for the benchmarks. */
ALEA__HIDDEN uint64_t alea__rng_sum_raw(alea_ctx *ctx, int64_t k);
/* Moves the built-in generator 2^128 steps ahead (xoshiro's jump): streams
 * that never overlap, for threads. */
ALEA__HIDDEN void alea__rng_jump(alea_ctx *ctx);

#endif /* ALEA_RNG_H */
