/* out_test.c -- the number formatter behind every JSON and CSV probability:
 * alea_format_double gives the shortest of "%.15g", "%.16g", "%.17g" that
 * reads back exactly (src/out.c); checked against that definition, with
 * libc's snprintf and strtod, on special values, every power of two and
 * of ten and their neighbours, exact ties and their neighbours, and
 * random doubles of every kind: probabilities, means, any bits.
 *
 * 'out_test N' draws N doubles of each random kind instead of the
 * default, to run many more by hand. */
#include "support.h"

#include <float.h>

/* Doubles of each random kind by default: with the neighbours of some,
 * 625,000 checks of up to three snprintf and strtod calls each, which take
 * 1.6 s under the sanitizers and 30 s under valgrind. */
#define DEFAULT_COUNT 25000L

/* The definition, the slow way. */
static void shortest(char tmp[32], double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, 32, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            return;
    }
}

static void check(double v)
{
    char fast[32], slow[32];
    size_t n = alea_format_double(v, fast, sizeof fast);
    if (!isfinite(v))
        strcpy(slow, "null");
    else
        shortest(slow, v);
    if (strcmp(fast, slow) != 0 || n != strlen(slow))
        fail_msg("%a (%.17g): '%s', want '%s'", v, v, fast, slow);
}

/* v, its neighbours, and their negatives. */
static void check_around(double v)
{
    double w[3] = {v, nextafter(v, -INFINITY), nextafter(v, INFINITY)};
    for (int i = 0; i < 3; i++) {
        check(w[i]);
        check(-w[i]);
    }
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A uniform double in [0, 1). */
static double unit(uint64_t *s)
{
    return (double)(next(s) >> 11) * 0x1p-53;
}

static void test_special(void **state)
{
    (void)state;
    static const double v[] = {0.0, -0.0, 1, -1, 0.1, 0.7, 1.0 / 3, 2.0 / 3, 1e-5, 1e-4,
                               9.5e-5, 0.5, 100, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23,
                               999999999999999.9, 9999999999999998.0, 123456789012345678.0,
                               5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                               1e-300, 4.9406564584124654e-320, 0.30000000000000004,
                               9007199254740992.0, 9007199254740993.0, 1e18, 1e-12,
                               0.0001, 1e-5 + 1e-21, 5e-5, 0.00015, 1125899906842624.5,
                               NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        check(v[i]);
    char small[4];
    assert_int_equal(alea_format_double(0.125, small, sizeof small), 5);
    assert_string_equal(small, "0.1"); /* snprintf contract: cut, terminated */
}

/* Every binary exponent, so every decimal exponent estimate and every
 * shift; the narrower gap below a power of two; the smallest and largest
 * doubles. */
static void test_powers_of_two(void **state)
{
    (void)state;
    for (int t = -1074; t <= 1023; t++)
        check_around(ldexp(1, t));
    check_around(DBL_MAX);
    check_around(DBL_MIN);
}

/* Every decimal exponent, and the doubles nearest its power of ten, where
 * the digit count changes (0.99999999999999989 and 1). */
static void test_powers_of_ten(void **state)
{
    (void)state;
    for (int k = -323; k <= 308; k++) {
        char text[16];
        snprintf(text, sizeof text, "1e%d", k);
        double p = strtod(text, NULL);
        check_around(p);
        check_around(p * 5); /* 5e-k: a half at every scale */
    }
}

/*
 * Exact ties: D * 2^-j for an odd D is the decimal D * 5^j / 10^j, whose
 * last digit is a 5. With D * 5^j of 16, 17 or 18 digits, %.15g, %.16g or
 * %.17g rounds a tie (to even), and the neighbours lie just either side of
 * it. Integers of 16 digits ending in 5 are ties for %.15g too.
 */
static void test_ties(void **state)
{
    long count = *(long *)*state;
    uint64_t s = UINT64_C(0x9E3779B97F4A7C15);
    for (long i = 0; i < count; i++) {
        int digits = 16 + (int)(next(&s) % 3), j = 1 + (int)(next(&s) % 25);
        uint64_t p5 = 1, lo = 1;
        for (int k = 0; k < j; k++)
            p5 *= 5;
        for (int k = 1; k < digits; k++)
            lo *= 10;
        uint64_t hi = (lo * 10 - 1) / p5, top = (UINT64_C(1) << 53) - 1;
        lo = (lo + p5 - 1) / p5;
        if (hi > top)
            hi = top;
        if (lo > hi)
            continue;
        uint64_t d = (lo + next(&s) % (hi - lo + 1)) | 1;
        if (d > hi)
            d -= 2;
        check_around(ldexp((double)d, -j));
        uint64_t w = (UINT64_C(1000000000000000) + next(&s) % UINT64_C(8000000000000000)) / 10;
        check_around((double)(w * 10 + 5));
    }
}

/* Probabilities, the numbers the formatter prints most: uniform in [0, 1),
 * log-uniform down to 1e-12, k/n for small n, powers (a max of many dice
 * reaches 1e-160), tiny ones, and cumulative ones just below 1. */
static void test_probabilities(void **state)
{
    long count = *(long *)*state;
    uint64_t s = UINT64_C(88172645463325252);
    for (long i = 0; i < count; i++) {
        check(unit(&s));
        check(pow(10, -12 * unit(&s)));
        double n = (double)(1 + next(&s) % 1000);
        check((double)(next(&s) % ((uint64_t)n + 1)) / n);
        check(pow(unit(&s), (double)(1 + next(&s) % 64)));
        check(pow(10, -330 * unit(&s)));
        check(1 - pow(10, -16 * unit(&s)));
    }
}

/* Means, standard deviations and values: integers up to 2^64, near 2^53,
 * short decimals, and ratios of small integers. */
static void test_numbers(void **state)
{
    long count = *(long *)*state;
    uint64_t s = UINT64_C(0x2545F4914F6CDD1D);
    for (long i = 0; i < count; i++) {
        uint64_t r = next(&s);
        check((double)(r >> (r % 64)));
        check(9007199254740992.0 + (double)((int64_t)(next(&s) % 20001) - 10000));
        check((double)(next(&s) % 100000) * 1e-5);
        check((double)(next(&s) % 1000000) / (double)(1 + next(&s) % 1000));
    }
}

/* Any bits (NaNs, infinities, subnormals, every exponent), subnormals
 * alone, and any exponent with a random significand. */
static void test_bits(void **state)
{
    long count = *(long *)*state;
    uint64_t s = UINT64_C(0x853C49E6748FEA9B);
    for (long i = 0; i < count; i++) {
        uint64_t r = next(&s);
        double v;
        memcpy(&v, &r, sizeof v);
        check(v);
        r = (next(&s) & ((UINT64_C(1) << 52) - 1)) >> (next(&s) % 52); /* subnormal */
        r |= next(&s) & UINT64_C(1) << 63;
        memcpy(&v, &r, sizeof v);
        check(v);
        check(ldexp(unit(&s), (int)(next(&s) % 2100) - 1050));
    }
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : DEFAULT_COUNT;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special),
        cmocka_unit_test(test_powers_of_two),
        cmocka_unit_test(test_powers_of_ten),
        cmocka_unit_test_prestate(test_ties, &count),
        cmocka_unit_test_prestate(test_probabilities, &count),
        cmocka_unit_test_prestate(test_numbers, &count),
        cmocka_unit_test_prestate(test_bits, &count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
