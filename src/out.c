/*
 * out.c -- the bounded writer behind every formatter (snprintf contract).
 */
#include "out.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void alea__out_init(alea__out *o, char *buf, size_t cap)
{
    o->buf = buf;
    o->cap = cap;
    o->len = 0;
    o->ansi = 0;
}

size_t alea__out_finish(alea__out *o)
{
    if (o->cap > 0)
        o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
    return o->len;
}

void alea__out_mem(alea__out *o, const char *s, size_t n)
{
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

void alea__out_str(alea__out *o, const char *s)
{
    /* One pass, no strlen: the pieces are short ("kh", ", ", " dropped"). */
    size_t n = 0;
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

/* Whether the text tmp, the digits d[0..prec) (d[0] not 0; NULL: not
 * known) times 10^x, reads back as v. Clinger's fast path first: a whole
 * number D below 2^53 and a power of ten up to 10^22 are exact doubles, so
 * D * 10^k or D / 10^-k, rounded once, is what strtod would return. */
static int reads_back(const char *d, int prec, int x, const char *tmp, double v)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    int k = x - (prec - 1);
#if FLT_EVAL_METHOD == 0 /* doubles rounded as doubles (not x87's extended) */
    if (d && k >= -22 && k <= 22) {
        uint64_t D = 0;
        for (int i = 0; i < prec; i++)
            D = D * 10 + (uint64_t)(d[i] - '0');
        if (D < (UINT64_C(1) << 53)) {
            double r = k < 0 ? (double)D / pow10[-k] : (double)D * pow10[k];
            return r == fabs(v);
        }
    }
#else
    (void)d;
    (void)k;
#endif
    return strtod(tmp, NULL) == v;
}

size_t alea__fmt_double(char tmp[32], double v)
{
    if (!isfinite(v)) {
        memcpy(tmp, "null", 5);
        return 4;
    }
    /*
     * The shortest of 15, 16, 17 significant digits that reads back as
     * exactly v: 0.7, not 0.70000000000000007. One conversion to 17 digits
     * (libc rounds it correctly), whose rounding to 15 or 16 digits is the
     * correct one unless the digits dropped are a 5 and zeros (the exact
     * value may lie either side of the tie): then libc is asked again.
     * Tested against "%.{15,16,17}g" on millions of values.
     */
    char e[40];
    snprintf(e, sizeof e, "%.16e", v);
    int neg = e[0] == '-';
    const char *m = e + neg; /* d.dddddddddddddddde±X */
    char d17[17];
    d17[0] = m[0];
    memcpy(d17 + 1, m + 2, 16);
    int x = atoi(m + 19);
    if (d17[0] == '0') /* zero */
        return (size_t)snprintf(tmp, 32, "%.15g", v);
    for (int prec = 15; prec <= 16; prec++) {
        char d[17];
        int xr = x;
        int tie = d17[prec] == '5';
        for (int i = prec + 1; i < 17 && tie; i++)
            tie = d17[i] == '0';
        size_t n;
        if (tie) {
            n = (size_t)snprintf(tmp, 32, "%.*g", prec, v);
        } else {
            memcpy(d, d17, (size_t)prec);
            xr = x;
            if (d17[prec] >= '5') { /* round up, carrying */
                int i = prec - 1;
                while (i >= 0 && d[i] == '9')
                    d[i--] = '0';
                if (i >= 0) {
                    d[i]++;
                } else { /* 999... became 1000... */
                    d[0] = '1';
                    xr++;
                }
            }
            n = render_g(tmp, neg, d, prec, xr);
        }
        if (reads_back(tie ? NULL : d, prec, xr, tmp, v))
            return n;
    }
    return render_g(tmp, neg, d17, 17, x);
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

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
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
            size_t k = utf8_len(u + i, n - i);
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
