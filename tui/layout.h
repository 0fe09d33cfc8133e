/* layout: where every part of every screen goes, as a pure function of the
 * terminal size (no curses calls), so it can be unit-tested at any size.
 *
 * Overview: a title line, the five stage boxes in two rows (Data, CPUs,
 * Accelerators on top; Supporting infrastructure and Interconnects below,
 * the interconnect under the accelerators), arrow lanes between them, the
 * bottleneck verdict, a metrics strip, an optional caption and the footer.
 * Stage view: explanation and knobs on the left, the stage's picture and
 * catalog table on the right, a live-metrics strip at the bottom. */
#ifndef MLVIZ_LAYOUT_H
#define MLVIZ_LAYOUT_H

#include <stdbool.h>

enum { LAYOUT_MIN_COLS = 80, LAYOUT_MIN_ROWS = 24, LAYOUT_STAGES = 5 };

/* Arrow lanes of the overview. */
enum layout_arrow {
    ARROW_BATCH_LOADING,     /* data -> CPUs (horizontal) */
    ARROW_TASK_DISTRIBUTION, /* CPUs -> accelerators (horizontal) */
    ARROW_GRADIENT_SYNC,     /* accelerators <-> interconnect (vertical) */
    ARROW_SYSTEM_SUPPORT,    /* infrastructure -> interconnect (horizontal) */
    ARROW_COUNT
};

enum layout_view { LAYOUT_OVERVIEW, LAYOUT_STAGE };

struct rect {
    int y, x, h, w;
};

struct layout {
    int cols, rows;
    bool too_small; /* nothing but the "enlarge" message fits */
    int need_cols, need_rows;
    struct rect title, footer, caption; /* caption.h == 0 when no caption */
    /* overview */
    struct rect box[LAYOUT_STAGES]; /* indexed by enum stage_id */
    struct rect arrow[ARROW_COUNT];
    struct rect support; /* lane under Data/CPUs: "system support" arrows up */
    struct rect verdict; /* bottleneck line */
    struct rect metrics;
    /* stage view */
    struct rect text, knobs, picture, compare, live;
    /* overlays */
    struct rect help;
};

/* Compute the layout of one view. `caption` reserves caption lines (tour,
 * narration). Every rectangle lies inside the screen and rectangles of one
 * view do not overlap. */
void layout_compute(int cols, int rows, enum layout_view view, bool caption, struct layout *out);

bool rect_inside(const struct rect *r, int cols, int rows);
bool rect_overlap(const struct rect *a, const struct rect *b);
bool rect_contains(const struct rect *r, int y, int x);

#endif
