/*
 * rng.c -- xoshiro256** (Blackman and Vigna, public domain reference
 * algorithm), splitmix64 seeding, and Lemire's nearly divisionless bounded
 * draw ("Fast Random Integer Generation in an Interval", 2019).
 */
#if !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1 /* getentropy */
#endif
#include "rng.h"

#include <unistd.h>

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void alea__rng_seed(alea_ctx *ctx, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < 4; i++)
        ctx->rng[i] = splitmix64(&s);
}

int alea__rng_seed_os(alea_ctx *ctx)
{
    uint64_t seed[4];
    if (getentropy(seed, sizeof seed) != 0)
        return -1;
    for (int i = 0; i < 4; i++)
        ctx->rng[i] = seed[i];
    /* Never the all-zero state, the one xoshiro cannot leave. */
    if ((seed[0] | seed[1] | seed[2] | seed[3]) == 0)
        alea__rng_seed(ctx, 0);
    return 0;
}

/* One step of xoshiro256** on the state s; returns its output. Loops keep
 * a local copy of the state, which the compiler holds in registers. */
static inline uint64_t step(uint64_t s[4])
{
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t alea__rng_next(alea_ctx *ctx)
{
    if (ctx->random_fn)
        return ctx->random_fn(ctx->random_ud);
    return step(ctx->rng);
}

/* The 128-bit product a*b as (hi, lo): one instruction where the compiler
 * has a 128-bit type, four 32-bit products elsewhere. */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;
static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    u128 p = (u128)a * b;
    *hi = (uint64_t)(p >> 64);
    *lo = (uint64_t)p;
}
#else
static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32;
    uint64_t b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
#endif

uint64_t alea__rng_below(alea_ctx *ctx, uint64_t n)
{
    if (n == 0)
        return alea__rng_next(ctx);
    if (n == 1)
        return 0; /* a one-faced die needs no randomness */
    uint64_t hi, lo;
    mul128(alea__rng_next(ctx), n, &hi, &lo);
    if (lo < n) {
        uint64_t threshold = (0 - n) % n; /* 2^64 mod n */
        while (lo < threshold)
            mul128(alea__rng_next(ctx), n, &hi, &lo);
    }
    return hi;
}

uint64_t alea__rng_face(alea_ctx *ctx, uint64_t n, int64_t lo, const int64_t *faces)
{
    if (!ctx->face_fn)
        return alea__rng_below(ctx, n);
    uint64_t i = ctx->face_fn(ctx->face_ud, n, lo, faces);
    return n ? i % n : i; /* a source's slip stays a face */
}

void alea__rng_set_faces(alea_ctx *ctx, alea__face_fn fn, void *ud)
{
    ctx->face_fn = fn;
    ctx->face_ud = ud;
}

/*
 * The sum of k draws below n (n >= 2): the sampler's inner loop, with the
 * state in registers and the generator inlined, the same draws in the same
 * order as k calls of alea__rng_below. The caller makes sure that
 * k * (n - 1) fits in 64 bits.
 */
uint64_t alea__rng_sum_below(alea_ctx *ctx, uint64_t n, int64_t k)
{
    uint64_t sum = 0;
    if (ctx->random_fn) {
        for (int64_t i = 0; i < k; i++)
            sum += alea__rng_below(ctx, n);
        return sum;
    }
    uint64_t st[4] = {ctx->rng[0], ctx->rng[1], ctx->rng[2], ctx->rng[3]};
    uint64_t threshold = 0;
    int have_threshold = 0;
    for (int64_t i = 0; i < k; i++) {
        uint64_t hi, lo;
        for (;;) {
            mul128(step(st), n, &hi, &lo);
            if (lo >= n)
                break;
            if (!have_threshold) {
                threshold = (0 - n) % n;
                have_threshold = 1;
            }
            if (lo >= threshold)
                break;
        }
        sum += hi;
    }
    for (int j = 0; j < 4; j++)
        ctx->rng[j] = st[j];
    return sum;
}

uint64_t alea__rng_sum_raw(alea_ctx *ctx, int64_t k)
{
    uint64_t st[4] = {ctx->rng[0], ctx->rng[1], ctx->rng[2], ctx->rng[3]};
    uint64_t sum = 0;
    for (int64_t i = 0; i < k; i++)
        sum += step(st);
    for (int j = 0; j < 4; j++)
        ctx->rng[j] = st[j];
    return sum;
}

void alea__rng_jump(alea_ctx *ctx)
{
    /* xoshiro256**'s jump polynomial: 2^128 steps ahead. */
    static const uint64_t jump[4] = {0x180ec6d33cfd0abau, 0xd5a61266f0c9392cu,
                                     0xa9582618e03fc9aau, 0x39abdc4529b1661cu};
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 64; b++) {
            if (jump[i] & (UINT64_C(1) << b)) {
                s0 ^= ctx->rng[0];
                s1 ^= ctx->rng[1];
                s2 ^= ctx->rng[2];
                s3 ^= ctx->rng[3];
            }
            step(ctx->rng);
        }
    ctx->rng[0] = s0;
    ctx->rng[1] = s1;
    ctx->rng[2] = s2;
    ctx->rng[3] = s3;
}
