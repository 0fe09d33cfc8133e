/* draw: the curses drawing primitives. */
#include "draw.h"

#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "glyphs.h"

enum { TEXT_BUF = 1024 };

static bool clip_on;
static struct rect clip;

void draw_clip(const struct rect *r)
{
    clip = *r;
    clip_on = true;
}

void draw_clip_reset(void)
{
    clip_on = false;
}

/* Apply the clip to a run of w cells at (y, x); false when nothing is left. */
static bool clip_run(int y, int *x, int *w)
{
    if (w && *w <= 0)
        return false;
    if (!clip_on)
        return true;
    if (y < clip.y || y >= clip.y + clip.h || *x >= clip.x + clip.w)
        return false;
    if (*x < clip.x)
        return false; /* left of the clip: never used by callers */
    if (w && *x + *w > clip.x + clip.w)
        *w = clip.x + clip.w - *x;
    return true;
}

static bool is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

int draw_width(const char *s)
{
    int n = 0;
    for (; *s; s++)
        if (!is_cont((unsigned char)*s))
            n++;
    return n;
}

/* Bytes of the first `cols` columns of s. */
static size_t prefix_bytes(const char *s, int cols)
{
    size_t i = 0;
    int c = 0;
    while (s[i]) {
        if (!is_cont((unsigned char)s[i])) {
            if (c == cols)
                break;
            c++;
        }
        i++;
    }
    return i;
}

static bool word_byte(char c)
{
    return c > ' ' && c < 0x7f;
}

/* The end of the word at s[at] (within n bytes). */
static size_t word_end(const char *s, size_t at, size_t n)
{
    while (at < n && word_byte(s[at]))
        at++;
    return at;
}

/* A unit after a number: an SI prefix on its own ("61.7 k"), or one of
 * these words, alone or before a '/' ("GB/s", "tokens/s"), with trailing
 * punctuation ("GB/s;", "kW:"). */
static bool unit_word(const char *w, size_t len)
{
    static const char *const units[] = {
        "k",     "M",      "G",       "T",     "P",     "E",   "us",   "ms",    "s",
        "min",   "h",      "d",       "y",     "days",  "C",   "B",    "KB",    "MB",
        "GB",    "TB",     "PB",      "KiB",   "MiB",   "GiB", "TiB",  "W",     "kW",
        "MW",    "GW",     "Wh",      "kWh",   "MWh",   "GWh", "FLOP", "GFLOP", "TFLOP",
        "PFLOP", "tokens", "samples", "steps", "stops", "USD"};
    while (len > 0 && strchr(",;:.)", w[len - 1]))
        len--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t ul = strlen(units[i]);
        if (len >= ul && strncmp(w, units[i], ul) == 0 && (len == ul || w[ul] == '/'))
            return true;
    }
    return false;
}

size_t draw_figure_end(const char *s, size_t at, size_t n)
{
    if (at >= n || !word_byte(s[at]) || (at > 0 && word_byte(s[at - 1])))
        return at;
    size_t end = word_end(s, at, n);
    bool digit = false;
    for (size_t i = at; i < end; i++)
        digit = digit || (s[i] >= '0' && s[i] <= '9');
    if (!digit)
        return at;
    for (int units = 0; units < 2 && end + 1 < n && s[end] == ' '; units++) {
        size_t next = word_end(s, end + 1, n);
        if (next == end + 1 || !unit_word(s + end + 1, next - end - 1))
            break;
        end = next;
    }
    return end;
}

/* The first nb bytes of s at (y, x): figures in `fig`, the rest in `base`. */
static void put_runs(int y, int x, const char *s, size_t nb, int base, int fig)
{
    move(y, x);
    size_t i = 0;
    while (i < nb) {
        size_t start = i, end = i;
        while (i < nb && (end = draw_figure_end(s, i, nb)) == i)
            i++;
        if (i > start) {
            attrset(base);
            addnstr(s + start, (int)(i - start));
        }
        if (i < nb) {
            attrset(fig);
            addnstr(s + i, (int)(end - i));
            i = end;
        }
    }
}

int draw_text(int y, int x, int w, enum theme_role role, const char *s)
{
    if (w <= 0 || !s || y < 0 || x < 0 || y >= LINES || x >= COLS || !clip_run(y, &x, &w))
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    size_t nb = prefix_bytes(s, w);
    /* Text that does not fit is never cut inside a word: it ends at the
     * last whole word with an ellipsis (a single long word is cut with one). */
    const char *ell = NULL;
    size_t rest = nb;
    while (s[rest] == ' ')
        rest++;
    if (s[rest] != '\0' && w >= 2) {
        nb = prefix_bytes(s, w - 1);
        if (s[nb] != ' ' && nb > 0 && s[nb - 1] != ' ') {
            size_t sp = nb;
            while (sp > 0 && s[sp - 1] != ' ')
                sp--;
            if (sp > 0)
                nb = sp;
        }
        while (nb > 0 && s[nb - 1] == ' ')
            nb--;
        ell = glyphs_active()->ellipsis;
    }
    int used = 0;
    for (size_t i = 0; i < nb; i++)
        if (!is_cont((unsigned char)s[i]))
            used++;
    int base = theme_attr(role), fig = theme_figure_attr(role);
    if (fig == base) {
        attrset(base);
        mvaddnstr(y, x, s, (int)nb);
    } else {
        put_runs(y, x, s, nb, base, fig);
    }
    attrset(base);
    if (ell) {
        mvaddstr(y, x + used, ell);
        used++;
    }
    attrset(A_NORMAL);
    return used;
}

int draw_textf(int y, int x, int w, enum theme_role role, const char *fmt, ...)
{
    char buf[TEXT_BUF];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_text(y, x, w, role, buf);
}

void draw_center(int y, int x, int w, enum theme_role role, const char *s)
{
    int tw = draw_width(s);
    int off = tw < w ? (w - tw) / 2 : 0;
    draw_text(y, x + off, w - off, role, s);
}

void draw_repeat(int y, int x, int n, enum theme_role role, const char *glyph)
{
    if (n <= 0 || y < 0 || y >= LINES || x < 0 || !clip_run(y, &x, &n))
        return;
    if (x + n > COLS)
        n = COLS - x;
    if (n <= 0)
        return;
    char buf[TEXT_BUF * 4];
    size_t gl = strlen(glyph), used = 0;
    for (int i = 0; i < n && used + gl < sizeof buf; i++) {
        memcpy(buf + used, glyph, gl);
        used += gl;
    }
    buf[used] = '\0';
    attrset(theme_attr(role));
    mvaddstr(y, x, buf);
    attrset(A_NORMAL);
}

void draw_clear(const struct rect *r)
{
    for (int i = 0; i < r->h; i++)
        draw_repeat(r->y + i, r->x, r->w, ROLE_TEXT, " ");
}

void draw_box(const struct rect *r, enum theme_role border, bool heavy, const char *title,
              enum theme_role title_role)
{
    if (r->w < 2 || r->h < 2)
        return;
    const struct glyphs *g = glyphs_active();
    const char *h = heavy ? g->hh : g->h, *v = heavy ? g->vv : g->v;
    int right = r->x + r->w - 1, bottom = r->y + r->h - 1;
    draw_text(r->y, r->x, 1, border, heavy ? g->htl : g->tl);
    draw_repeat(r->y, r->x + 1, r->w - 2, border, h);
    draw_text(r->y, right, 1, border, heavy ? g->htr : g->tr);
    for (int y = r->y + 1; y < bottom; y++) {
        draw_text(y, r->x, 1, border, v);
        draw_text(y, right, 1, border, v);
    }
    draw_text(bottom, r->x, 1, border, heavy ? g->hbl : g->bl);
    draw_repeat(bottom, r->x + 1, r->w - 2, border, h);
    draw_text(bottom, right, 1, border, heavy ? g->hbr : g->br);
    if (title && title[0] && r->w > 4) {
        draw_text(r->y, r->x + 1, 1, border, " ");
        int used = draw_text(r->y, r->x + 2, r->w - 4, title_role, title);
        draw_text(r->y, r->x + 2 + used, 1, border, " ");
    }
}

static double clamp01(double v)
{
    return v > 0 ? (v < 1 ? v : 1) : 0; /* NaN -> 0 */
}

void draw_bar(int y, int x, int w, double frac, enum theme_role fill, enum theme_role empty)
{
    if (w <= 0)
        return;
    const struct glyphs *g = glyphs_active();
    enum { EIGHTHS = 8 };
    int eighths = (int)lround(clamp01(frac) * w * EIGHTHS);
    int full = eighths / EIGHTHS, part = eighths % EIGHTHS;
    draw_repeat(y, x, full, fill, g->bar_full);
    int pos = full;
    if (part && pos < w) {
        draw_text(y, x + pos, 1, fill, g->utf8 ? g->eighths[part] : g->bar_mid);
        pos++;
    }
    draw_repeat(y, x + pos, w - pos, empty, g->bar_empty);
}

const char *draw_part_fill(size_t i, bool legend)
{
    const struct glyphs *g = glyphs_active();
    enum theme_id t = theme_current();
    if (t != THEME_MONO && t != THEME_CONTRAST)
        return legend || !g->utf8 ? g->legend : g->bar_full;
    /* Colour does not tell the parts apart here: a pattern per part. */
    static const char *const utf8[] = {"█", "▓", "▒", "▞", "≡", "▪"};
    static const char *const ascii[] = {"#", "=", "%", "+", ":", "o"};
    enum { N_FILLS = sizeof utf8 / sizeof utf8[0] };
    return (g->utf8 ? utf8 : ascii)[i % N_FILLS];
}

void draw_stacked(int y, int x, int w, const double *parts, const enum theme_role *roles, size_t n,
                  double total)
{
    if (w <= 0)
        return;
    const struct glyphs *g = glyphs_active();
    if (!(total > 0)) {
        draw_repeat(y, x, w, ROLE_DIM, g->bar_empty);
        return;
    }
    double acc = 0;
    int pos = 0;
    for (size_t i = 0; i < n && pos < w; i++) {
        double v = parts[i] > 0 ? parts[i] : 0;
        acc += v;
        int end = (int)lround(clamp01(acc / total) * w);
        if (end > w)
            end = w;
        /* Non-zero parts get at least one cell when there is room. */
        if (v > 0 && end == pos && pos < w)
            end = pos + 1;
        draw_repeat(y, x + pos, end - pos, roles[i], draw_part_fill(i, false));
        pos = end;
    }
    draw_repeat(y, x + pos, w - pos, ROLE_DIM, g->bar_empty);
}

void draw_spark(int y, int x, int w, int h, const double *v, size_t n, double vmax,
                enum theme_role role)
{
    if (w <= 0 || h <= 0)
        return;
    const struct glyphs *g = glyphs_active();
    size_t first = n > (size_t)w ? n - (size_t)w : 0;
    if (vmax <= 0) {
        for (size_t i = first; i < n; i++)
            if (isfinite(v[i]) && v[i] > vmax)
                vmax = v[i];
    }
    int pad = w - (int)(n - first);
    enum { LEVELS = GLYPH_SPARK_LEVELS - 1 };
    for (int row = 0; row < h; row++) {
        int yy = y + h - 1 - row; /* row 0 is the bottom */
        draw_repeat(yy, x, pad, ROLE_DIM, " ");
        for (size_t i = first; i < n; i++) {
            double f = vmax > 0 && isfinite(v[i]) ? clamp01(v[i] / vmax) : 0;
            int lv = (int)lround(f * h * LEVELS) - row * LEVELS;
            if (lv < 0)
                lv = 0;
            if (lv > LEVELS)
                lv = LEVELS;
            /* A flat non-zero series still shows a baseline. */
            if (row == 0 && lv == 0 && f > 0)
                lv = 1;
            /* Blank cells in the plain role: a reverse-video role would
             * paint them solid. */
            draw_text(yy, x + pad + (int)(i - first), 1, lv ? role : ROLE_DIM, g->spark[lv]);
        }
    }
}

int draw_wrap(const struct rect *r, enum theme_role role, const char *text, int skip_lines)
{
    int line = 0, w = r->w;
    if (w <= 0)
        return 0;
    const char *p = text;
    char buf[TEXT_BUF];
    while (*p) {
        /* A blank line: paragraph break. */
        if (*p == '\n') {
            if (p[1] == '\n' || (p != text && p[-1] == '\n')) {
                line++;
                while (*p == '\n')
                    p++;
                continue;
            }
            p++;
            continue;
        }
        /* Take as many words as fit in w columns. */
        const char *end = p, *last_break = NULL;
        int cols = 0;
        while (*end && *end != '\n' && cols <= w) {
            if (*end == ' ')
                last_break = end;
            if (!is_cont((unsigned char)*end))
                cols++;
            end++;
        }
        const char *stop;
        if (cols <= w && (!*end || *end == '\n'))
            stop = end;
        else if (last_break && last_break > p)
            stop = last_break;
        else
            stop = p + prefix_bytes(p, w);
        size_t nb = (size_t)(stop - p);
        if (nb >= sizeof buf)
            nb = sizeof buf - 1;
        memcpy(buf, p, nb);
        buf[nb] = '\0';
        if (line >= skip_lines && line - skip_lines < r->h)
            draw_text(r->y + line - skip_lines, r->x, w, role, buf);
        line++;
        p = stop;
        while (*p == ' ')
            p++;
    }
    return line - skip_lines;
}
