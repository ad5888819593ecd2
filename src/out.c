/*
 * out.c -- the bounded writer behind every formatter (snprintf contract).
 */
#include "out.h"

#include <math.h>
#include <string.h>

void alea__out_init(alea__out *o, char *buf, size_t cap)
{
    o->buf = buf;
    o->cap = cap;
    o->len = 0;
    o->limit = SIZE_MAX;
    o->ansi = 0;
    o->md = 0;
    o->json = 0;
    o->foreign = NULL;
    o->zc_on = 0;
}

int alea__out_init_format(alea__out *o, char *buf, size_t cap, const alea_ctx *ctx,
                          alea_format format)
{
    alea__out_init(o, buf, cap);
    int64_t limit = ctx->limits[ALEA_LIMIT_OUTPUT];
    o->limit = (uint64_t)limit < SIZE_MAX ? (size_t)limit : SIZE_MAX;
    return format == ALEA_FORMAT_CSV || format == ALEA_FORMAT_JSON;
}

size_t alea__out_format_end(alea__out *o, alea_ctx *ctx, alea_format format, const char *owner,
                            size_t span)
{
    size_t len = alea__out_finish(o);
    if (len <= o->limit)
        return len;
    long long limit = (long long)ctx->limits[ALEA_LIMIT_OUTPUT];
    alea__error(ctx, ALEA_ERR_LIMIT, 0, span, "too much output: the %s's %s passes %lld bytes "
                "(output limit is %lld)", owner, format == ALEA_FORMAT_CSV ? "CSV" : "JSON",
                limit, limit);
    if (o->cap > 0)
        o->buf[0] = '\0';
    return 0;
}

/* Markdown's characters that would start markup in a chat (Discord's
 * flavour): a backslash before each keeps them text. */
static int md_special(char c)
{
    return c == '\\' || c == '*' || c == '_' || c == '~' || c == '`' || c == '|';
}

static void out_md(alea__out *o, const char *s, size_t n)
{
    o->md = 0;
    for (size_t i = 0; i < n; i++) {
        if (md_special(s[i]))
            alea__out_char(o, '\\');
        alea__out_char(o, s[i]);
    }
    o->md = 1;
}

void alea__out_raw(alea__out *o, const char *s)
{
    int md = o->md;
    o->md = 0;
    alea__out_str(o, s);
    o->md = md;
}

size_t alea__out_finish(alea__out *o)
{
    if (o->cap > 0)
        o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
    return o->len;
}

void alea__out_mem(alea__out *o, const char *s, size_t n)
{
    if (o->md) {
        out_md(o, s, n);
        return;
    }
    if (o->len < o->cap) {
        size_t room = o->cap - o->len - 1; /* keep one byte for the NUL */
        size_t k = n < room ? n : room;
        char *d = o->buf + o->len;
        if (k <= 8) { /* most pieces are a few bytes: no call */
            for (size_t i = 0; i < k; i++)
                d[i] = s[i];
        } else {
            memcpy(d, s, k);
        }
    }
    o->len += n;
}

void alea__out_text(alea__out *o, const char *s, size_t n)
{
    if (!o->json) {
        alea__out_mem(o, s, n);
        return;
    }
    for (size_t i = 0, from = 0; i <= n; i++) {
        if (i < n && s[i] != '"' && s[i] != '\\' && s[i] != '\t')
            continue;
        alea__out_mem(o, s + from, i - from);
        if (i < n)
            alea__out_str(o, s[i] == '\t' ? "\\t" : s[i] == '"' ? "\\\"" : "\\\\");
        from = i + 1;
    }
}

void alea__out_str(alea__out *o, const char *s)
{
    /* One pass, no strlen: the pieces are short ("kh", ", ", " dropped"). */
    size_t n = 0;
    if (o->md) {
        out_md(o, s, strlen(s));
        return;
    }
    if (o->len < o->cap) {
        size_t room = o->cap - o->len - 1;
        char *d = o->buf + o->len;
        for (; s[n] && n < room; n++)
            d[n] = s[n];
    }
    while (s[n])
        n++;
    o->len += n;
}

void alea__out_char(alea__out *o, char c)
{
    if (o->md) {
        out_md(o, &c, 1);
        return;
    }
    if (o->len + 1 < o->cap)
        o->buf[o->len] = c;
    o->len++;
}

void alea__out_i64(alea__out *o, int64_t v)
{
    /* By hand: snprintf's format parsing costs more than the digits, and a
     * distribution of 100000 outcomes prints 100000 of them. */
    if (v >= 0 && v < 10) { /* a die's face, most of the time */
        char c = (char)('0' + v);
        alea__out_mem(o, &c, 1);
        return;
    }
    char tmp[24], *e = tmp + sizeof tmp, *p = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    alea__out_mem(o, p, (size_t)(e - p));
}

/* The %.{prec}g text of the decimal digits d[0..prec) times 10^x (d[0]
 * not 0), with the sign, into tmp; returns its length. */
static size_t render_g(char tmp[32], int neg, const char *d, int prec, int x)
{
    int nd = prec;
    while (nd > 1 && d[nd - 1] == '0') /* %g drops trailing zeros */
        nd--;
    char *p = tmp;
    if (neg)
        *p++ = '-';
    if (x < -4 || x >= prec) { /* d.ddde±XX */
        *p++ = d[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)(nd - 1));
            p += nd - 1;
        }
        int ax = x < 0 ? -x : x;
        *p++ = 'e';
        *p++ = x < 0 ? '-' : '+';
        if (ax >= 100)
            *p++ = (char)('0' + ax / 100);
        *p++ = (char)('0' + ax / 10 % 10);
        *p++ = (char)('0' + ax % 10);
    } else if (x >= 0) { /* ddd.ddd: x + 1 digits before the point */
        for (int i = 0; i <= x; i++)
            *p++ = i < nd ? d[i] : '0';
        if (nd > x + 1) {
            *p++ = '.';
            memcpy(p, d + x + 1, (size_t)(nd - x - 1));
            p += nd - x - 1;
        }
    } else { /* 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *p++ = '0';
        memcpy(p, d, (size_t)nd);
        p += nd;
    }
    *p = '\0';
    return (size_t)(p - tmp);
}

/*
 * Exact decimal digits. v = m * 2^e with m < 2^53, and each number the
 * choice needs -- v and the two midpoints between v and its neighbours,
 * each times 2 * 10^s -- is a * 2^b * 10^s for a below 2^55: its integer
 * part fits 64 bits, and the rest is known exactly as zero or not. That is
 * enough to round half-even at any decimal place and to say whether a
 * decimal reads back as v, with no libc conversion: printf's %e and strtod
 * do the same in general-purpose bignums, and took 60% of the instructions
 * of 'alea dist --csv' on 100,000 outcomes.
 *
 * The integers are 32-bit limbs so that a product of two fits uint64_t on
 * every target (WebAssembly included), without __int128. The longest is
 * 5^340 (below 2^790, 25 limbs) times a midpoint of the smallest subnormal:
 * 27 limbs. Above 10^17, a * 2^sh before the division by 5^-s takes at
 * most 24 (DBL_MAX: 2^55 * 2^681, then 5^291).
 */
#define BIG_LIMBS 27

typedef struct {
    int n;                 /* limbs in use; w[n - 1] may be zero */
    uint32_t w[BIG_LIMBS]; /* least significant first */
} big;

/* 5^0 .. 5^27, the powers of five below 2^64. */
#define POW5_U64_MAX 27
static const uint64_t pow5_u64[POW5_U64_MAX + 1] = {
    UINT64_C(1),
    UINT64_C(5),
    UINT64_C(25),
    UINT64_C(125),
    UINT64_C(625),
    UINT64_C(3125),
    UINT64_C(15625),
    UINT64_C(78125),
    UINT64_C(390625),
    UINT64_C(1953125),
    UINT64_C(9765625),
    UINT64_C(48828125),
    UINT64_C(244140625),
    UINT64_C(1220703125),
    UINT64_C(6103515625),
    UINT64_C(30517578125),
    UINT64_C(152587890625),
    UINT64_C(762939453125),
    UINT64_C(3814697265625),
    UINT64_C(19073486328125),
    UINT64_C(95367431640625),
    UINT64_C(476837158203125),
    UINT64_C(2384185791015625),
    UINT64_C(11920928955078125),
    UINT64_C(59604644775390625),
    UINT64_C(298023223876953125),
    UINT64_C(1490116119384765625),
    UINT64_C(7450580596923828125),
};

static void big_mul_small(big *x, uint32_t f)
{
    uint64_t carry = 0;
    for (int i = 0; i < x->n; i++) {
        uint64_t t = (uint64_t)x->w[i] * f + carry;
        x->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry)
        x->w[x->n++] = (uint32_t)carry;
}

/* r = x * a, for a below 2^64. */
static void big_mul_u64(big *r, const big *x, uint64_t a)
{
    uint32_t y[2] = {(uint32_t)a, (uint32_t)(a >> 32)};
    for (int i = 0; i < x->n + 2; i++)
        r->w[i] = 0;
    for (int j = 0; j < 2; j++) {
        uint64_t carry = 0;
        for (int i = 0; i < x->n; i++) {
            /* at most (2^32-1)^2 + 2 * (2^32-1) = 2^64 - 1 */
            uint64_t t = (uint64_t)x->w[i] * y[j] + r->w[i + j] + carry;
            r->w[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        r->w[x->n + j] = (uint32_t)carry;
    }
    r->n = x->n + 2;
}

/* x = floor(x / d); returns whether the remainder is not zero. */
static int big_div_small(big *x, uint32_t d)
{
    uint64_t rem = 0;
    for (int i = x->n; i-- > 0;) {
        uint64_t cur = rem << 32 | x->w[i];
        x->w[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    while (x->n > 1 && x->w[x->n - 1] == 0)
        x->n--;
    return rem != 0;
}

/* floor(x / 2^sh), which the caller knows is below 2^64; *inexact is set
 * when the bits shifted out are not all zero. */
static uint64_t big_shr(const big *x, int sh, int *inexact)
{
    int k = sh / 32, r = sh % 32;
    for (int i = 0; i < k && i < x->n; i++)
        if (x->w[i])
            *inexact = 1;
    if (r && k < x->n && (x->w[k] & ((UINT32_C(1) << r) - 1)))
        *inexact = 1;
    uint64_t w0 = k < x->n ? x->w[k] : 0;
    uint64_t w1 = k + 1 < x->n ? x->w[k + 1] : 0;
    uint64_t w2 = k + 2 < x->n ? x->w[k + 2] : 0;
    uint64_t lo = (w0 | w1 << 32) >> r;
    if (r)
        lo |= w2 << (64 - r);
    return lo;
}

/* a * b = *hi * 2^64 + the result, from 32-bit halves (no __int128). */
static uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *hi)
{
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10; /* below 3 * 2^32 */
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return mid << 32 | (uint32_t)p00;
}

/* A number of the choice: floor(a * 2^b * 10^s) and whether that dropped
 * a fraction. For s > POW5_U64_MAX, p5 is 5^s. */
typedef struct {
    uint64_t i;
    int inexact;
} scaled;

static scaled scale(uint64_t a, int b, int s, const big *p5)
{
    scaled r = {0, 0};
    int sh = b + s; /* a * 2^b * 10^s = a * 5^s * 2^sh */
    if (s >= 0 && s <= POW5_U64_MAX) {
        /* |v| in [1e-11, 1e17): probabilities and means. The product is
         * below 2^55 * 5^27 < 2^118 and the result at least 2 * 10^16 >
         * 2^54, so -64 < sh < 64. */
        uint64_t hi, lo = mul_64x64(a, pow5_u64[s], &hi);
        if (sh >= 0) {
            r.i = lo << sh;
        } else {
            r.i = lo >> -sh | hi << (64 + sh);
            r.inexact = lo << (64 + sh) != 0;
        }
        return r;
    }
    big x;
    if (s > 0) { /* |v| < 1e-11: sh < 0 */
        big_mul_u64(&x, p5, a);
        r.i = big_shr(&x, -sh, &r.inexact);
        return r;
    }
    /* a * 2^sh / 5^-s. sh > 0: s < 0 means |v| >= 10^17, so t >= 56,
     * e = t - 52 and sh >= e - 1 + 16 - x0 >= 0.69 t - 37 > 0. */
    int k = sh / 32, bit = sh % 32;
    for (int i = 0; i < k; i++)
        x.w[i] = 0;
    uint64_t lo = a << bit, hi = bit ? a >> (64 - bit) : 0;
    x.w[k] = (uint32_t)lo;
    x.w[k + 1] = (uint32_t)(lo >> 32);
    x.w[k + 2] = (uint32_t)hi;
    x.n = k + 3;
    for (int j = -s; j > 0; j -= 13) /* 5^13: the largest in a limb */
        r.inexact |= big_div_small(&x, (uint32_t)pow5_u64[j < 13 ? j : 13]);
    r.i = big_shr(&x, 0, &r.inexact);
    return r;
}

static const uint64_t pow10_u64[19] = {
    UINT64_C(1),
    UINT64_C(10),
    UINT64_C(100),
    UINT64_C(1000),
    UINT64_C(10000),
    UINT64_C(100000),
    UINT64_C(1000000),
    UINT64_C(10000000),
    UINT64_C(100000000),
    UINT64_C(1000000000),
    UINT64_C(10000000000),
    UINT64_C(100000000000),
    UINT64_C(1000000000000),
    UINT64_C(10000000000000),
    UINT64_C(100000000000000),
    UINT64_C(1000000000000000),
    UINT64_C(10000000000000000),
    UINT64_C(100000000000000000),
    UINT64_C(1000000000000000000),
};

static const char digit_pairs[201] =
    "0001020304050607080910111213141516171819"
    "2021222324252627282930313233343536373839"
    "4041424344454647484950515253545556575859"
    "6061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t alea__fmt_double(char tmp[32], double v)
{
    if (!isfinite(v)) {
        memcpy(tmp, "null", 5);
        return 4;
    }
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 63);
    int bexp = (int)(bits >> 52 & 0x7FF);
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
    if (bexp == 0 && m == 0) /* "0" or "-0", as %.15g */
        return render_g(tmp, neg, "0", 1, 0);
    int e = bexp ? bexp - 1075 : -1074, len = 53; /* |v| = m * 2^e, m of len bits */
    if (bexp)
        m |= UINT64_C(1) << 52;
    else
        for (len = 0; m >> len; len++)
            ;
    /*
     * The shortest of 15, 16, 17 significant digits that reads back as
     * exactly v: 0.7, not 0.70000000000000007. Each is v rounded half-even
     * to that many digits (what %.{15,16,17}g print), and it reads back when
     * it lies between the midpoints to v's neighbours, or on one when m is
     * even (strtod rounds half-even too); 17 digits always do. Tested
     * against libc's %g and strtod on millions of values.
     *
     * 2^t <= |v| < 2^(t+1) and x0 = floor(t log10 2) (78913 / 2^18 gives it
     * exactly for |t| < 1100; the 2000 keeps the shift on a positive
     * number), so |v| * 10^s is in [10^16, 2 * 10^17): 17 or 18 digits
     * before the point.
     */
    int t = e + len - 1;
    int x0 = ((t * 78913 + (2000 << 18)) >> 18) - 2000;
    int s = 16 - x0;
    big p5; /* 5^s, when too big for the table */
    p5.n = 1;
    p5.w[0] = 1;
    for (int j = s > POW5_U64_MAX ? s : 0; j > 0; j -= 13)
        big_mul_small(&p5, (uint32_t)pow5_u64[j < 13 ? j : 13]);
    /* In units of 2^-1 10^-s: |v|, and the midpoints (2m +- 1) 2^(e-1);
     * below a power of two the lower neighbour is half as far. */
    scaled q = scale(m, e + 1, s, &p5);
    scaled hi = scale(2 * m + 1, e, s, &p5);
    scaled lo = bexp > 1 && m == UINT64_C(1) << 52 ? scale(4 * m - 1, e - 1, s, &p5)
                                                  : scale(2 * m - 1, e, s, &p5);
    int even = !(m & 1);
    int nd = q.i >= 2 * pow10_u64[17] ? 18 : 17; /* digits before the point */
    for (int prec = 15;; prec++) {
        /* Drop nd - prec digits: a unit of n is 2 * 10^(nd - prec) of q's,
         * and q.inexact tells a tie from just above one. */
        uint64_t half = pow10_u64[nd - prec], unit = 2 * half;
        uint64_t n = q.i / unit, r = q.i % unit;
        if (r > half || (r == half && (q.inexact || (n & 1))))
            n++;
        uint64_t c = n * unit; /* the decimal, in q's units */
        int reads_back = prec == 17 ||
                         ((c > lo.i || (even && c == lo.i && !lo.inexact)) &&
                          (c < hi.i || (c == hi.i && (hi.inexact || even))));
        if (!reads_back)
            continue;
        int x = x0 + nd - 17;
        if (n == pow10_u64[prec]) { /* 999... became 1000... */
            n /= 10;
            x++;
        }
        char d[17];
        int i = prec;
        for (; i >= 2; i -= 2, n /= 100) /* two at a time: half the divisions */
            memcpy(d + i - 2, digit_pairs + 2 * (n % 100), 2);
        if (i)
            d[0] = (char)('0' + n);
        return render_g(tmp, neg, d, prec, x);
    }
}

size_t alea_format_double(double v, char *buf, size_t cap)
{
    char tmp[32];
    size_t n = alea__fmt_double(tmp, v);
    alea__out o;
    alea__out_init(&o, buf, cap);
    alea__out_mem(&o, tmp, n);
    return alea__out_finish(&o);
}

void alea__out_double(alea__out *o, double v)
{
    char tmp[32];
    size_t n = alea__fmt_double(tmp, v);
    alea__out_mem(o, tmp, n);
}

size_t alea__utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t need;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < need)
        return 0;
    unsigned cp = c & (0x7Fu >> need);
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

void alea__out_json_str(alea__out *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    alea__out_char(o, '"');
    size_t i = 0;
    while (i < n) {
        unsigned char c = u[i];
        if (c == '"' || c == '\\') {
            alea__out_char(o, '\\');
            alea__out_char(o, (char)c);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            alea__out_mem(o, esc, 6);
            i++;
        } else if (c < 0x80) {
            alea__out_char(o, (char)c);
            i++;
        } else {
            size_t k = alea__utf8_len(u + i, n - i);
            if (k == 0) {
                alea__out_str(o, "\\ufffd");
                i++;
            } else {
                alea__out_mem(o, s + i, k);
                i += k;
            }
        }
    }
    alea__out_char(o, '"');
}

void alea__out_csv_rows(alea__out *o, const int64_t *v, size_t n,
                        void (*cells)(void *ud, size_t i, alea__out *o), void *ud)
{
    for (size_t i = 0; i < n && o->len <= o->limit; i++) {
        alea__out_i64(o, v[i]);
        alea__out_char(o, ',');
        cells(ud, i, o);
        alea__out_char(o, '\n');
    }
}
