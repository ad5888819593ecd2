/*
 * out.c -- the bounded writer behind every formatter (snprintf contract).
 */
#include "out.h"

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

size_t alea__fmt_double(char tmp[32], double v)
{
    if (!isfinite(v)) {
        memcpy(tmp, "null", 5);
        return 4;
    }
    /* The shortest of 15, 16, 17 significant digits that reads back as
     * exactly v: 0.7, not 0.70000000000000007. */
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(tmp, 32, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    return (size_t)n;
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
