/* out_test.c -- the number formatter behind every JSON and CSV probability:
 * alea_format_double gives the shortest of "%.15g", "%.16g", "%.17g" that
 * reads back exactly, computed from one conversion (src/out.c); checked
 * against libc on special values and on random doubles of every kind. */
#include "support.h"

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
        fail_msg("%.17g: '%s', want '%s'", v, fast, slow);
}

static void test_special(void **state)
{
    (void)state;
    static const double v[] = {0.0, -0.0, 1, -1, 0.1, 0.7, 1.0 / 3, 2.0 / 3, 1e-5, 1e-4,
                               9.5e-5, 0.5, 100, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23,
                               999999999999999.9, 9999999999999998.0, 123456789012345678.0,
                               5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                               1e-300, 4.9406564584124654e-320, 0.30000000000000004,
                               NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        check(v[i]);
    char small[4];
    assert_int_equal(alea_format_double(0.125, small, sizeof small), 5);
    assert_string_equal(small, "0.1"); /* snprintf contract: cut, terminated */
}

static void test_random(void **state)
{
    (void)state;
    uint64_t s = UINT64_C(88172645463325252);
    for (long i = 0; i < 400000; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double v;
        switch (i % 5) {
        case 0: memcpy(&v, &s, sizeof v); break;                 /* any bits */
        case 1: v = (double)(s >> 11) * 0x1p-53; break;            /* [0, 1) */
        case 2: v = (double)(s % 1000000) / (double)(1 + (s >> 40) % 1000); break;
        case 3: v = ldexp((double)(s >> 11) * 0x1p-53, (int)(s % 2000) - 1000); break;
        default: v = (double)(s % 100000) * 1e-5; break;          /* short decimals */
        }
        check(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
