/* pictures: each stage's own picture (pic_data.c ... pic_infra.c), drawn in
 * the stage view and inside the overview's boxes when they are tall enough. */
#ifndef MLVIZ_PICTURES_H
#define MLVIZ_PICTURES_H

#include "draw.h"
#include "views.h"

enum {
    CELL_W = 2,      /* one device / core cell plus a gap */
    RING_MAX = 12,   /* ring members drawn */
    PIPE_MB_MAX = 8, /* micro-batches drawn in the pipeline schedule */
    RACK_ROWS_MAX = 8,
};

/* A stage's picture drawn into a rectangle (clipped to it). */
void view_stage_picture(const struct view_ctx *v, struct view_out *out, int stage, struct rect in);

void pic_data(const struct view_ctx *v, struct view_out *out, struct rect in);
void pic_cpus(const struct view_ctx *v, struct view_out *out, struct rect in);
void pic_accel(const struct view_ctx *v, struct view_out *out, struct rect in);
void pic_net(const struct view_ctx *v, struct view_out *out, struct rect in);
/* The simulated pipeline schedule from row y (pic_pipe.c); returns the next row. */
int pic_pipeline(const struct view_ctx *v, struct rect in, int y);
void pic_infra(const struct view_ctx *v, struct view_out *out, struct rect in);
/* The device's roofline with the ridge point and the operating point
 * (pic_roofline.c): a chart when `in` is tall enough, else one line. */
void pic_roofline(const struct view_ctx *v, struct rect in);
enum { ROOFLINE_MIN_H = 8, ROOFLINE_MAX_H = 14 };

/* A queue as one cell per slot when it fits, else as a bar. */
void pic_queue(int y, int x, int w, const char *label, double fill, double cap);
/* A grid of `total` items (devices, cores); returns the rows used. */
int pic_cells(int y, int x, int w, int h, int total, int filled, int failed, enum theme_role on,
              int *per_cell);

#endif
