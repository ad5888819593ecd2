/*
 * svg.c -- charts as SVG documents, written into the caller's buffer with
 * the snprintf contract and the OUTPUT limit (as alea_dist_format): one
 * distribution's bars, several distributions' lines, a table's heat map
 * or its lines. Every chart reads without colour (each line its own dash
 * and marker, each heat-map cell its number, a lightness ramp) and by a
 * screen reader (role="img", a <title> and a <desc> that lists every
 * number drawn). Each bar, marker and cell carries its exact number in
 * data-* attributes, so that a program can read the chart back.
 */
#include "dist.h"
#include "out.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The page's chart colours (web/app.js COLOURS): a series' colour is its
 * index's, its dash and marker too, so that print in grey tells them
 * apart. */
static const char *const colours[] = {"#0b57d0", "#b3261e", "#137333",
                                      "#8430ce", "#c45100", "#007b83"};
static const char *const dashes[] = {"", "6 3", "2 2", "8 3 2 3", "1 3", "10 4"};
#define STYLES 6

/* The layout, in pixels: the plot's box inside a WIDTH-wide picture, a
 * legend row per line below it. */
#define WIDTH 640
#define PLOT_L 72
#define PLOT_R 616
#define PLOT_T 60
#define PLOT_B 340
#define LEGEND_ROW 18
/* The chance below which an outcome at either end of a distribution is
 * left out, as `alea dist` hides the rows below 0.005% (cli/cli.h
 * TAIL_SHOWN): 10d10! would draw 1,000 bars, most of them a zero pixel
 * high. */
#define TAIL_HIDDEN 0.00005
/* x-axis ticks wanted at most, y-axis ticks about. */
#define X_TICKS 10
#define Y_TICKS 5

/* ---- text ------------------------------------------------------------------ */

/* A person's text as XML character data or an attribute's value: "&<>\"'"
 * as entities, bytes that are not UTF-8 or are control characters XML
 * refuses as U+FFFD. */
static void xml_text(alea__out *o, const char *s, size_t n)
{
    size_t from = 0, i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        const char *rep = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;"
                          : c == '"' ? "&quot;" : c == '\'' ? "&#39;" : NULL;
        size_t k = 1;
        if (!rep && c >= 0x80) {
            k = alea__utf8_len((const unsigned char *)s + i, n - i);
            if (k == 0) {
                rep = "\xEF\xBF\xBD";
                k = 1;
            }
        } else if (!rep && c < 0x20 && c != '\t' && c != '\n') {
            rep = "\xEF\xBF\xBD";
        }
        if (rep) {
            alea__out_mem(o, s + from, i - from);
            alea__out_str(o, rep);
            from = i + k;
        }
        i += k;
    }
    alea__out_mem(o, s + from, n - from);
}

static void xml_str(alea__out *o, const char *s)
{
    xml_text(o, s, strlen(s));
}

/* A coordinate in tenths of a pixel ("12.3", "40"), locale-free. */
static void px(alea__out *o, double v)
{
    if (!(v > -1e9 && v < 1e9))
        v = 0;
    long long t = llround(v * 10);
    if (t < 0) {
        alea__out_char(o, '-');
        t = -t;
    }
    alea__out_i64(o, t / 10);
    if (t % 10) {
        alea__out_char(o, '.');
        alea__out_char(o, (char)('0' + t % 10));
    }
}

/* v rounded to digits significant digits, in the fewest that read back. */
static void sig(alea__out *o, double v, int digits)
{
    if (isfinite(v) && v != 0) {
        double scale = pow(10, digits - 1 - (int)floor(log10(fabs(v))));
        double r = round(v * scale) / scale;
        if (isfinite(r))
            v = r;
    }
    alea__out_double(o, v);
}

/* A number as a chart shows it: a chance as a percentage of 4 significant
 * digits, a value in 4. */
static void shown(alea__out *o, double v, int pct)
{
    if (!isfinite(v)) {
        alea__out_str(o, "none");
        return;
    }
    sig(o, pct ? v * 100 : v, 4);
    if (pct)
        alea__out_char(o, '%');
}

/* <text x y attrs>text</text>, text escaped. */
static void label(alea__out *o, double x, double y, const char *attrs, const char *s, size_t n)
{
    alea__out_str(o, "<text x=\"");
    px(o, x);
    alea__out_str(o, "\" y=\"");
    px(o, y);
    alea__out_str(o, "\"");
    alea__out_str(o, attrs);
    alea__out_char(o, '>');
    xml_text(o, s, n);
    alea__out_str(o, "</text>\n");
}

/* The document's start: its size, role and the labels that name it, the
 * title (title_n bytes) escaped; the caller writes the desc's text next
 * and ends it with desc_end. */
static void head(alea__out *o, double width, double height, const char *title,
                 size_t title_n)
{
    alea__out_str(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"");
    px(o, width);
    alea__out_str(o, "\" height=\"");
    px(o, height);
    alea__out_str(o, "\" viewBox=\"0 0 ");
    px(o, width);
    alea__out_char(o, ' ');
    px(o, height);
    alea__out_str(o, "\" role=\"img\" aria-labelledby=\"alea-title alea-desc\" "
                     "font-family=\"sans-serif\" font-size=\"12\">\n<title id=\"alea-title\">");
    xml_text(o, title, title_n);
    alea__out_str(o, "</title>\n<desc id=\"alea-desc\">");
}

static void desc_end(alea__out *o, double width, double height, const char *title,
                     size_t title_n)
{
    alea__out_str(o, "</desc>\n<rect width=\"");
    px(o, width);
    alea__out_str(o, "\" height=\"");
    px(o, height);
    alea__out_str(o, "\" fill=\"#fff\"/>\n");
    label(o, width / 2, 22, " text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\"",
          title, title_n);
}

/* ---- scales ------------------------------------------------------------------ */

/* The step of about want ticks over range: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int want)
{
    if (!(range > 0))
        return 1;
    double raw = range / want, p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

typedef struct scale {
    double lo, hi;   /* values at the plot's edges */
    double a, b;     /* pixels at lo and hi */
} scale;

/* The x of value v of a chart over [lo, hi] in pixels [a, b]: a value a
 * slot wide, from its offset to lo (exact in unsigned arithmetic: values
 * near 2^63 are as far apart as any). */
static double at_x(int64_t v, int64_t lo, int64_t hi, double a, double b)
{
    double off = (double)((uint64_t)v - (uint64_t)lo), span = (double)((uint64_t)hi - (uint64_t)lo);
    return a + (off + 0.5) / (span + 1) * (b - a);
}

static double at(const scale *s, double v)
{
    return s->hi > s->lo ? s->a + (v - s->lo) / (s->hi - s->lo) * (s->b - s->a)
                         : (s->a + s->b) / 2;
}

/* ---- the shared chart: axes, bars or lines, legend ----------------------------- */

/* A line or a set of bars: n points (x[i], y[i * stride] * factor),
 * named by its label. */
typedef struct series {
    const int64_t *x;
    const double *y;
    size_t n, stride;
    const char *label;
    size_t label_n;
} series;

typedef struct chart {
    const series *s;
    size_t ns;
    int bars;              /* one series as bars; else lines with markers */
    double factor;         /* 100 for chances drawn in percent */
    int64_t xlo, xhi;      /* the values drawn */
    const char *x_name, *y_name;
    const alea_dist *named; /* names the x values (dd()'s outcomes), or NULL */
    const char *note;       /* under the title, or NULL */
    size_t note_n;
} chart;

static double chart_height(const chart *c)
{
    return PLOT_B + 48 + (c->bars ? 0 : (double)c->ns * LEGEND_ROW);
}

/* A series' marker at (x, y): a circle, square, triangle, diamond, cross
 * or plus, by style k. The element is left open for its attributes. */
static void marker(alea__out *o, size_t k, double x, double y)
{
    switch (k % STYLES) {
    case 0:
        alea__out_str(o, "<circle r=\"3\" cx=\"");
        px(o, x);
        alea__out_str(o, "\" cy=\"");
        px(o, y);
        alea__out_char(o, '"');
        return;
    case 1:
        alea__out_str(o, "<rect width=\"6\" height=\"6\" x=\"");
        px(o, x - 3);
        alea__out_str(o, "\" y=\"");
        px(o, y - 3);
        alea__out_char(o, '"');
        return;
    default:
        break;
    }
    static const char *const shapes[] = {"m0,-4l3.5,6h-7z", "m0,-4l4,4l-4,4l-4,-4z",
                                         "m-3,-3l6,6m0,-6l-6,6", "m-4,0h8m-4,-4v8"};
    alea__out_str(o, "<path d=\"M");
    px(o, x);
    alea__out_char(o, ',');
    px(o, y);
    alea__out_str(o, shapes[k % STYLES - 2]);
    alea__out_char(o, '"');
    if (k % STYLES >= 4)
        alea__out_str(o, " fill=\"none\" stroke-width=\"1.5\"");
}

/* The number a point carries: data-value (its x) and data-y (its number,
 * unscaled, in full). */
static void point_data(alea__out *o, int64_t x, double y)
{
    alea__out_str(o, " data-value=\"");
    alea__out_i64(o, x);
    alea__out_str(o, "\" data-y=\"");
    alea__out_double(o, y);
    alea__out_str(o, "\"/>\n");
}

/* An x tick's text: the value's name, or the value. */
static void x_tick_text(alea__out *o, const chart *c, int64_t v, double x)
{
    const char *name = c->named ? alea_dist_label(c->named, v) : NULL;
    char num[24];
    alea__out t;
    alea__out_init(&t, num, sizeof num);
    alea__out_i64(&t, v);
    alea__out_finish(&t);
    label(o, x, PLOT_B + 16, " text-anchor=\"middle\"", name ? name : num,
          strlen(name ? name : num));
}

static void draw_chart(alea__out *o, const chart *c)
{
    /* the number axis from 0 (or below, for a table's negative numbers) */
    double ymax = 0, ymin = 0;
    for (size_t k = 0; k < c->ns; k++)
        for (size_t i = 0; i < c->s[k].n; i++) {
            double y = c->s[k].y[i * c->s[k].stride] * c->factor;
            if (isfinite(y) && y > ymax)
                ymax = y;
            if (isfinite(y) && y < ymin)
                ymin = y;
        }
    if (!(ymax > ymin))
        ymax = ymin + 1;
    double ystep = nice_step(ymax - ymin, Y_TICKS);
    double ybot = floor(ymin / ystep) * ystep, ytop = ceil(ymax / ystep) * ystep;
    scale ys = {ybot, ytop, PLOT_B, PLOT_T};
    double xa = PLOT_L + 4, xb = PLOT_R - 4;
    if (c->note)
        label(o, WIDTH / 2.0, 40, " text-anchor=\"middle\" font-size=\"11\"", c->note, c->note_n);
    /* the chance axis: a grid line and a number per tick */
    alea__out_str(o, "<g class=\"y-axis\" stroke=\"#ddd\">\n");
    for (int k = 0; ybot + k * ystep <= ytop + ystep * 1e-9 && o->len <= o->limit; k++) {
        double y = at(&ys, ybot + k * ystep);
        alea__out_str(o, "<line x1=\"");
        px(o, PLOT_L);
        alea__out_str(o, "\" x2=\"");
        px(o, PLOT_R);
        alea__out_str(o, "\" y1=\"");
        px(o, y);
        alea__out_str(o, "\" y2=\"");
        px(o, y);
        alea__out_str(o, "\"/>\n<text stroke=\"none\" fill=\"#222\" text-anchor=\"end\" x=\"");
        px(o, PLOT_L - 6);
        alea__out_str(o, "\" y=\"");
        px(o, y + 4);
        alea__out_str(o, "\">");
        sig(o, ybot + k * ystep, 6);
        alea__out_str(o, "</text>\n");
    }
    alea__out_str(o, "</g>\n");
    /* the value axis: every value when named, else about X_TICKS whole numbers */
    /* the value axis: every value when named (a few), else about X_TICKS
     * multiples of a round step */
    uint64_t span = (uint64_t)c->xhi - (uint64_t)c->xlo;
    double step = c->named && span <= 4 * X_TICKS ? 1 : nice_step(span ? (double)span : 1, X_TICKS);
    uint64_t xstep = step < 1 ? 1 : step >= 0x1p62 ? (uint64_t)1 << 62 : (uint64_t)step;
    alea__out_str(o, "<g class=\"x-axis\" fill=\"#222\">\n<line stroke=\"#222\" x1=\"");
    px(o, PLOT_L);
    alea__out_str(o, "\" x2=\"");
    px(o, PLOT_R);
    alea__out_str(o, "\" y1=\"");
    px(o, PLOT_B);
    alea__out_str(o, "\" y2=\"");
    px(o, PLOT_B);
    alea__out_str(o, "\"/>\n");
    int64_t m = c->xlo % (int64_t)xstep;
    uint64_t off = m == 0 ? 0 : m > 0 ? xstep - (uint64_t)m : (uint64_t)-m;
    for (; off <= span && o->len <= o->limit; off += xstep) {
        int64_t v = (int64_t)((uint64_t)c->xlo + off);
        x_tick_text(o, c, v, at_x(v, c->xlo, c->xhi, xa, xb));
        if (span - off < xstep)
            break;
    }
    alea__out_str(o, "</g>\n");
    label(o, (PLOT_L + PLOT_R) / 2.0, PLOT_B + 34, " text-anchor=\"middle\"", c->x_name,
          strlen(c->x_name));
    alea__out_str(o, "<text text-anchor=\"middle\" transform=\"translate(16 ");
    px(o, (PLOT_T + PLOT_B) / 2.0);
    alea__out_str(o, ") rotate(-90)\">");
    xml_str(o, c->y_name);
    alea__out_str(o, "</text>\n");

    double slot = (xb - xa) / ((double)span + 1);
    for (size_t k = 0; k < c->ns && o->len <= o->limit; k++) {
        const series *s = &c->s[k];
        alea__out_str(o, "<g class=\"series\" data-label=\"");
        xml_text(o, s->label, s->label_n);
        alea__out_str(o, "\" fill=\"");
        alea__out_str(o, colours[k % STYLES]);
        alea__out_str(o, "\" stroke=\"");
        alea__out_str(o, c->bars ? "none" : colours[k % STYLES]);
        alea__out_str(o, "\">\n");
        if (!c->bars) { /* the line through the points, then a marker on each */
            alea__out_str(o, "<polyline fill=\"none\" stroke-width=\"2\"");
            if (*dashes[k % STYLES]) {
                alea__out_str(o, " stroke-dasharray=\"");
                alea__out_str(o, dashes[k % STYLES]);
                alea__out_char(o, '"');
            }
            alea__out_str(o, " points=\"");
            for (size_t i = 0; i < s->n && o->len <= o->limit; i++) {
                double y = s->y[i * s->stride];
                if (!isfinite(y))
                    continue;
                px(o, at_x(s->x[i], c->xlo, c->xhi, xa, xb));
                alea__out_char(o, ',');
                px(o, at(&ys, y * c->factor));
                alea__out_char(o, ' ');
            }
            alea__out_str(o, "\"/>\n");
        }
        for (size_t i = 0; i < s->n && o->len <= o->limit; i++) {
            double y = s->y[i * s->stride];
            if (!isfinite(y))
                continue;
            double x = at_x(s->x[i], c->xlo, c->xhi, xa, xb), top = at(&ys, y * c->factor);
            if (c->bars) {
                alea__out_str(o, "<rect x=\"");
                px(o, x - slot * 0.4);
                alea__out_str(o, "\" width=\"");
                px(o, slot * 0.8);
                alea__out_str(o, "\" y=\"");
                px(o, top);
                alea__out_str(o, "\" height=\"");
                px(o, at(&ys, 0) - top);
                alea__out_char(o, '"');
            } else {
                marker(o, k, x, top);
            }
            point_data(o, s->x[i], y);
        }
        alea__out_str(o, "</g>\n");
    }
    /* a legend row per line: its dash and marker, and its name */
    for (size_t k = 0; !c->bars && k < c->ns && o->len <= o->limit; k++) {
        double y = PLOT_B + 56 + (double)k * LEGEND_ROW;
        alea__out_str(o, "<g class=\"legend\" fill=\"");
        alea__out_str(o, colours[k % STYLES]);
        alea__out_str(o, "\" stroke=\"");
        alea__out_str(o, colours[k % STYLES]);
        alea__out_str(o, "\">\n<line stroke-width=\"2\" x1=\"");
        px(o, PLOT_L);
        alea__out_str(o, "\" x2=\"");
        px(o, PLOT_L + 36);
        alea__out_str(o, "\" y1=\"");
        px(o, y - 4);
        alea__out_str(o, "\" y2=\"");
        px(o, y - 4);
        if (*dashes[k % STYLES]) {
            alea__out_str(o, "\" stroke-dasharray=\"");
            alea__out_str(o, dashes[k % STYLES]);
        }
        alea__out_str(o, "\"/>\n");
        marker(o, k, PLOT_L + 18, y - 4);
        alea__out_str(o, "/>\n</g>\n");
        label(o, PLOT_L + 44, y, " fill=\"#222\"", c->s[k].label, c->s[k].label_n);
    }
    alea__out_str(o, "</svg>\n");
}

/* The desc's list of one series' numbers: "LABEL: 3 0.463%, 4 1.389%, ...". */
static void desc_series(alea__out *o, const chart *c, const series *s, int pct)
{
    xml_text(o, s->label, s->label_n);
    alea__out_str(o, ":");
    for (size_t i = 0; i < s->n && o->len <= o->limit; i++) {
        const char *name = c->named ? alea_dist_label(c->named, s->x[i]) : NULL;
        alea__out_str(o, i ? ", " : " ");
        if (name)
            xml_str(o, name);
        else
            alea__out_i64(o, s->x[i]);
        alea__out_char(o, ' ');
        shown(o, s->y[i * s->stride], pct);
    }
    alea__out_str(o, ". ");
}

/* The OUTPUT limit of ctx on o; a text past it is refused, with ctx's
 * error over [start, end). */
static void limit_output(alea__out *o, const alea_ctx *ctx)
{
    int64_t limit = ctx->limits[ALEA_LIMIT_OUTPUT];
    o->limit = (uint64_t)limit < SIZE_MAX ? (size_t)limit : SIZE_MAX;
}

static size_t finish(alea__out *o, alea_ctx *ctx, size_t start, size_t end)
{
    size_t len = alea__out_finish(o);
    if (len <= o->limit)
        return len;
    long long limit = (long long)ctx->limits[ALEA_LIMIT_OUTPUT];
    alea__error(ctx, ALEA_ERR_LIMIT, start, end,
                "too much output: the SVG passes %lld bytes (output limit is %lld)", limit,
                limit);
    if (o->cap > 0)
        o->buf[0] = '\0';
    return 0;
}

/* ---- distributions --------------------------------------------------------------- */

/* Outcomes [*a, *b) of d drawn: without the runs below TAIL_HIDDEN at
 * either end, unless that is all of them; a dd()'s named outcomes all. */
static void drawn(const alea_dist *d, size_t *a, size_t *b)
{
    size_t n = d->pmf.n, lo = 0, hi = n;
    if (d->notes.nlabels == 0) {
        while (lo < n && d->pmf.p[lo] < TAIL_HIDDEN)
            lo++;
        if (lo == n)
            lo = 0;
        else
            while (hi > lo && d->pmf.p[hi - 1] < TAIL_HIDDEN)
                hi--;
    }
    *a = lo;
    *b = hi;
}

#define DISTS_MAX 16 /* lines in one chart: past a legend of 16, no one reads it */

size_t alea_svg_dists(const alea_dist *const *dists, const char *const *labels, size_t n,
                      char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (!dists || n == 0 || n > DISTS_MAX)
        return alea__out_finish(&o);
    for (size_t k = 0; k < n; k++)
        if (!dists[k] || dists[k]->pmf.n == 0)
            return alea__out_finish(&o);
    alea_ctx *ctx = dists[0]->ctx;
    limit_output(&o, ctx);
    series s[DISTS_MAX];
    size_t hidden = 0;
    int64_t xlo = INT64_MAX, xhi = INT64_MIN;
    const alea_dist *named = NULL;
    for (size_t k = 0; k < n; k++) {
        const alea_dist *d = dists[k];
        size_t a, b;
        drawn(d, &a, &b);
        hidden += d->pmf.n - (b - a);
        const char *l = labels && labels[k] ? labels[k] : d->src;
        s[k] = (series){d->pmf.v + a, d->pmf.p + a, b - a, 1, l,
                        labels && labels[k] ? strlen(l) : d->len};
        if (s[k].x[0] < xlo)
            xlo = s[k].x[0];
        if (s[k].x[s[k].n - 1] > xhi)
            xhi = s[k].x[s[k].n - 1];
        if (!named && d->notes.nlabels)
            named = d;
    }
    /* the title: "Distribution of 3d6", or "3d6 and 4d6kh3" */
    char tbuf[512];
    alea__out t;
    alea__out_init(&t, tbuf, sizeof tbuf);
    if (n == 1)
        alea__out_str(&t, "Distribution of ");
    for (size_t k = 0; k < n; k++) {
        alea__out_str(&t, k == 0 ? "" : k + 1 < n ? ", " : " and ");
        alea__out_mem(&t, s[k].label, s[k].label_n);
        if (dists[k]->samples) { /* as the page's legend says it */
            alea__out_str(&t, " (estimate from ");
            alea__out_i64(&t, (int64_t)dists[k]->samples);
            alea__out_str(&t, " rolls)");
        }
    }
    size_t tn = alea__out_finish(&t);
    if (tn >= sizeof tbuf) { /* cut at a character's start, with an ellipsis */
        tn = sizeof tbuf - 4;
        while (tn > 0 && ((unsigned char)tbuf[tn] & 0xC0) == 0x80)
            tn--;
        memcpy(tbuf + tn, "...", 4);
        tn += 3;
    }
    char note[160];
    size_t note_n = 0;
    if (hidden) {
        alea__out no;
        alea__out_init(&no, note, sizeof note);
        alea__out_i64(&no, (int64_t)hidden);
        alea__out_str(&no, hidden == 1 ? " outcome" : " outcomes");
        alea__out_str(&no, " below 0.005% at the ends not drawn");
        note_n = alea__out_finish(&no);
    }
    chart c = {s, n, n == 1, 100, xlo, xhi, named ? "outcome" : "value", "chance (%)", named,
               hidden ? note : NULL, note_n};
    double h = chart_height(&c);
    head(&o, WIDTH, h, tbuf, tn);
    alea__out_str(&o, n == 1 ? "Bar chart of the chance of each outcome, in percent. "
                             : "Line chart of the chance of each outcome, in percent, a line "
                               "for each expression. ");
    for (size_t k = 0; k < n && o.len <= o.limit; k++) {
        desc_series(&o, &c, &s[k], 1);
        alea__out_str(&o, "Mean ");
        sig(&o, dists[k]->mean, 4);
        alea__out_str(&o, ", standard deviation ");
        sig(&o, dists[k]->sd, 4);
        alea__out_str(&o, ". ");
    }
    if (hidden) {
        xml_text(&o, note, note_n);
        alea__out_str(&o, ".");
    }
    desc_end(&o, WIDTH, h, tbuf, tn);
    draw_chart(&o, &c);
    return finish(&o, ctx, 0, dists[0]->len);
}

/* ---- a table ------------------------------------------------------------------- */

#define CELL_H 24
#define GRID_T 76   /* the heat map's top: the title, the column name and values */
#define SCALE_W 90  /* the legend's scale at the right */

/* A heat-map cell's fill at t in [0, 1]: from a pale to a dark blue, its
 * lightness falling with t, so that grey print keeps the order. */
static void ramp(alea__out *o, double t)
{
    static const int lo[3] = {0xf1, 0xf5, 0xfe}, hi[3] = {0x08, 0x30, 0x6b};
    static const char hex[] = "0123456789abcdef";
    alea__out_char(o, '#');
    for (int i = 0; i < 3; i++) {
        int v = (int)lround(lo[i] + (hi[i] - lo[i]) * t);
        alea__out_char(o, hex[v >> 4 & 15]);
        alea__out_char(o, hex[v & 15]);
    }
}

/* A cell's text as the heat map prints it: a percentage of 1 decimal, or
 * 4 significant digits. */
static void cell_text(alea__out *o, double x, int is_prob)
{
    if (!isfinite(x)) {
        alea__out_str(o, "-");
        return;
    }
    if (!is_prob) {
        sig(o, x, 4);
        return;
    }
    long long t = llround(x * 1000);
    alea__out_i64(o, t / 10);
    alea__out_char(o, '.');
    alea__out_char(o, (char)('0' + t % 10));
}

static void heat_map(alea__out *o, const char *title, size_t tn, const char *row_name,
                     const int64_t *rv, size_t rows, const char *col_name,
                     const char *const *col_labels, size_t cols, const double *cells,
                     int is_prob)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < rows * cols; i++)
        if (isfinite(cells[i])) {
            lo = cells[i] < lo ? cells[i] : lo;
            hi = cells[i] > hi ? cells[i] : hi;
        }
    double cw = (WIDTH - PLOT_L - SCALE_W) / (double)cols;
    cw = cw < 36 ? 36 : cw > 64 ? 64 : cw;
    double w = PLOT_L + cw * (double)cols + SCALE_W;
    double h = GRID_T + CELL_H * (double)rows + 24;
    head(o, w, h, title, tn);
    alea__out_str(o, "Heat map, a row for each value of ");
    xml_str(o, row_name);
    alea__out_str(o, " and a column for each value of ");
    xml_str(o, col_name);
    alea__out_str(o, is_prob ? "; each cell the chance in percent, darker higher. "
                             : "; each cell its number, darker higher. ");
    for (size_t r = 0; r < rows && o->len <= o->limit; r++) {
        xml_str(o, row_name);
        alea__out_char(o, ' ');
        alea__out_i64(o, rv[r]);
        alea__out_char(o, ':');
        for (size_t c = 0; c < cols; c++) {
            alea__out_str(o, c ? ", " : " ");
            xml_str(o, col_name);
            alea__out_char(o, ' ');
            xml_str(o, col_labels[c]);
            alea__out_char(o, ' ');
            shown(o, cells[r * cols + c], is_prob);
        }
        alea__out_str(o, ". ");
    }
    desc_end(o, w, h, title, tn);
    label(o, PLOT_L + cw * (double)cols / 2, 42, " text-anchor=\"middle\"", col_name,
          strlen(col_name));
    label(o, PLOT_L - 8, GRID_T - 8, " text-anchor=\"end\"", row_name, strlen(row_name));
    int small = cw < 48;
    for (size_t c = 0; c < cols && o->len <= o->limit; c++)
        label(o, PLOT_L + cw * ((double)c + 0.5), GRID_T - 8, " text-anchor=\"middle\"",
              col_labels[c], strlen(col_labels[c]));
    alea__out_str(o, "<g class=\"cells\" text-anchor=\"middle\"");
    alea__out_str(o, small ? " font-size=\"10\">\n" : ">\n");
    for (size_t r = 0; r < rows && o->len <= o->limit; r++) {
        double y = GRID_T + CELL_H * (double)r;
        alea__out_str(o, "<text text-anchor=\"end\" x=\"");
        px(o, PLOT_L - 8);
        alea__out_str(o, "\" y=\"");
        px(o, y + 16);
        alea__out_str(o, "\">");
        alea__out_i64(o, rv[r]);
        alea__out_str(o, "</text>\n");
        for (size_t c = 0; c < cols; c++) {
            double x = cells[r * cols + c];
            double t = isfinite(x) && hi > lo ? (x - lo) / (hi - lo) : 0;
            double cx = PLOT_L + cw * (double)c;
            alea__out_str(o, "<rect stroke=\"#fff\" x=\"");
            px(o, cx);
            alea__out_str(o, "\" y=\"");
            px(o, y);
            alea__out_str(o, "\" width=\"");
            px(o, cw);
            alea__out_str(o, "\" height=\"" "24" "\" fill=\"");
            if (isfinite(x))
                ramp(o, t);
            else
                alea__out_str(o, "#fff");
            alea__out_str(o, "\" data-row=\"");
            alea__out_i64(o, rv[r]);
            alea__out_str(o, "\" data-col=\"");
            xml_str(o, col_labels[c]);
            alea__out_str(o, "\" data-y=\"");
            alea__out_double(o, x);
            alea__out_str(o, "\"/>\n<text x=\"");
            px(o, cx + cw / 2);
            alea__out_str(o, "\" y=\"");
            px(o, y + 16);
            alea__out_str(o, t > 0.55 ? "\" fill=\"#fff\">" : "\" fill=\"#000\">");
            cell_text(o, x, is_prob);
            alea__out_str(o, "</text>\n");
        }
    }
    alea__out_str(o, "</g>\n");
    /* the scale: the ramp from the lowest cell's number to the highest's */
    double sx = PLOT_L + cw * (double)cols + 24, top = GRID_T, bottom = h - 24;
    alea__out_str(o, "<defs><linearGradient id=\"alea-scale\" x1=\"0\" y1=\"1\" x2=\"0\" "
                     "y2=\"0\"><stop offset=\"0\" stop-color=\"");
    ramp(o, 0);
    alea__out_str(o, "\"/><stop offset=\"1\" stop-color=\"");
    ramp(o, 1);
    alea__out_str(o, "\"/></linearGradient></defs>\n<g class=\"scale\">\n<rect x=\"");
    px(o, sx);
    alea__out_str(o, "\" y=\"");
    px(o, top);
    alea__out_str(o, "\" width=\"14\" height=\"");
    px(o, bottom - top);
    alea__out_str(o, "\" stroke=\"#222\" fill=\"url(#alea-scale)\"/>\n");
    for (int e = 0; e < 2; e++) {
        alea__out_str(o, "<text x=\"");
        px(o, sx + 18);
        alea__out_str(o, "\" y=\"");
        px(o, e ? top + 10 : bottom);
        alea__out_str(o, "\">");
        cell_text(o, e ? hi : lo, is_prob);
        alea__out_str(o, is_prob ? "%</text>\n" : "</text>\n");
    }
    alea__out_str(o, "</g>\n</svg>\n");
}

size_t alea_svg_grid(alea_ctx *ctx, const char *title, const char *row_name,
                     const int64_t *row_values, size_t rows, const char *col_name,
                     const char *const *col_labels, size_t cols, const double *cells,
                     int is_prob, char *buf, size_t cap)
{
    alea__out o;
    alea__out_init(&o, buf, cap);
    if (!ctx || !title || !row_name || !row_values || !cells || rows == 0 || cols == 0 ||
        !col_labels || (!col_name && cols > DISTS_MAX) || rows > SIZE_MAX / cols)
        return alea__out_finish(&o);
    for (size_t c = 0; c < cols; c++)
        if (!col_labels[c])
            return alea__out_finish(&o);
    limit_output(&o, ctx);
    size_t tn = strlen(title);
    if (col_name) {
        heat_map(&o, title, tn, row_name, row_values, rows, col_name, col_labels, cols, cells,
                 is_prob);
        return finish(&o, ctx, 0, 0);
    }
    /* a line per column, over the rows' values */
    series s[DISTS_MAX];
    int64_t xlo = INT64_MAX, xhi = INT64_MIN;
    for (size_t r = 0; r < rows; r++) {
        xlo = row_values[r] < xlo ? row_values[r] : xlo;
        xhi = row_values[r] > xhi ? row_values[r] : xhi;
    }
    for (size_t c = 0; c < cols; c++)
        s[c] = (series){row_values, cells + c, rows, cols, col_labels[c], strlen(col_labels[c])};
    chart ch = {s, cols, 0, is_prob ? 100 : 1, xlo, xhi, row_name,
                is_prob ? "chance (%)" : cols == 1 ? col_labels[0] : "value", NULL, NULL, 0};
    double h = chart_height(&ch);
    head(&o, WIDTH, h, title, tn);
    alea__out_str(&o, "Line chart over ");
    xml_str(&o, row_name);
    alea__out_str(&o, is_prob ? ", a line for each column, in percent. "
                              : ", a line for each column. ");
    for (size_t c = 0; c < cols && o.len <= o.limit; c++)
        desc_series(&o, &ch, &s[c], is_prob);
    desc_end(&o, WIDTH, h, title, tn);
    draw_chart(&o, &ch);
    return finish(&o, ctx, 0, 0);
}
