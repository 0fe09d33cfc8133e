/* glyphs: every box, arrow, bar and sparkline character the TUI draws, in
 * two parallel tables (UTF-8 and ASCII) chosen once at start. Drawing code
 * never writes a literal glyph; it asks the active table. */
#ifndef MLVIZ_GLYPHS_H
#define MLVIZ_GLYPHS_H

#include <stdbool.h>

enum { GLYPH_SPARK_LEVELS = 9, GLYPH_BAR_EIGHTHS = 9 };

struct glyphs {
    bool utf8;
    /* Box drawing: light and heavy (heavy marks the selected or bottleneck box). */
    const char *h, *v, *tl, *tr, *bl, *br;
    const char *hh, *vv, *htl, *htr, *hbl, *hbr;
    const char *arrow_right, *arrow_left, *arrow_up, *arrow_down;
    const char *batch; /* a batch moving along an arrow */
    const char *track; /* the empty arrow line */
    const char *bar_full, *bar_empty, *bar_mid;
    const char *eighths[GLYPH_BAR_EIGHTHS]; /* 0/8 .. 8/8 horizontal fill */
    const char *spark[GLYPH_SPARK_LEVELS];  /* 0 (blank) .. 8 (full) vertical fill */
    const char *device, *device_failed, *device_hot;
    const char *bottleneck; /* the marker next to the bottleneck stage */
    const char *pass, *fail, *warn;
    const char *selector;  /* the selected knob */
    const char *dec, *inc; /* knob arrows */
    const char *legend;    /* a coloured square in legends */
    const char *bullet;
    const char *ellipsis;
};

/* The two tables. */
const struct glyphs *glyphs_table(bool utf8);
/* Decide once: ASCII when forced (--ascii) or when the codeset is not UTF-8.
 * `codeset` is what nl_langinfo(CODESET) returned (may be NULL). */
bool glyphs_want_utf8(const char *codeset, bool force_ascii);
/* Active table (set by glyphs_use; ASCII until then). */
const struct glyphs *glyphs_active(void);
void glyphs_use(bool utf8);

#endif
