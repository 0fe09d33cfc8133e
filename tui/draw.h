/* draw: clipped curses drawing primitives built on the glyph table and the
 * theme roles: text, boxes, bars, stacked bars and sparklines. Every
 * primitive clips to the width it is given and accepts zero sizes. */
#ifndef MLVIZ_DRAW_H
#define MLVIZ_DRAW_H

#include <stdbool.h>
#include <stddef.h>

#include "layout.h"
#include "theme.h"

/* Clip all drawing to a rectangle (pictures whose content may not fit);
 * draw_clip_reset() returns to the whole screen. */
void draw_clip(const struct rect *r);
void draw_clip_reset(void);
/* Display columns of a UTF-8 string (every glyph we use is one column). */
int draw_width(const char *s);
/* Text clipped to w columns; returns the columns used. */
int draw_text(int y, int x, int w, enum theme_role role, const char *s);
int draw_textf(int y, int x, int w, enum theme_role role, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Figures: a word (a run of printable ASCII between spaces) with a digit in
 * it ("54.6%", "$24.6/h", "TP8", "1/16"), with up to two unit words after
 * it, one space apart ("61.7 k tokens/s", "200 GB/s", "30.35 s"): what a
 * reader reads as a value. draw_text draws them in theme_figure_attr(),
 * the rest of the text in the role's own attribute (where the role's ink
 * is too pale for the paper, figures take the terminal's own ink). The end
 * (exclusive, <= n) of the figure that starts at s[at], or `at` when none
 * starts there. */
size_t draw_figure_end(const char *s, size_t at, size_t n);
/* Centred text. */
void draw_center(int y, int x, int w, enum theme_role role, const char *s);
/* Repeat a glyph n times. */
void draw_repeat(int y, int x, int n, enum theme_role role, const char *glyph);
/* Blank a rectangle. */
void draw_clear(const struct rect *r);
/* Box with a title in the top border; heavy lines for emphasis. */
void draw_box(const struct rect *r, enum theme_role border, bool heavy, const char *title,
              enum theme_role title_role);
/* A horizontal bar of w cells filled to frac (0..1) with eighth blocks. */
void draw_bar(int y, int x, int w, double frac, enum theme_role fill, enum theme_role empty);
/* A stacked bar: parts (already non-negative) scaled to total over w cells. */
/* Fill of part i of a stacked bar, or (legend) its square in the legend:
 * in the mono and contrast themes each part has its own pattern, so colour
 * is never the only way to tell them apart. */
const char *draw_part_fill(size_t i, bool legend);
void draw_stacked(int y, int x, int w, const double *parts, const enum theme_role *roles, size_t n,
                  double total);
/* Block sparkline of the newest values that fit, h rows tall, scaled to
 * [0, vmax] (vmax <= 0: the data's max). */
void draw_spark(int y, int x, int w, int h, const double *v, size_t n, double vmax,
                enum theme_role role);
/* Wrap text into a rectangle (blank line = paragraph break); returns lines used. */
int draw_wrap(const struct rect *r, enum theme_role role, const char *text, int skip_lines);

#endif
