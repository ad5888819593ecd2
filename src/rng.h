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

#endif /* ALEA_RNG_H */
