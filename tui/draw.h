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
