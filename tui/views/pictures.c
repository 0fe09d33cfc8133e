/* pictures: the shared parts of the stage pictures (queues, grids of
 * cells) and the one entry point that draws a stage's picture. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "pictures.h"
#include "theme.h"

/* A queue drawn as one cell per slot when it fits, else as a bar. */
void pic_queue(int y, int x, int w, const char *label, double fill, double cap)
{
    const struct glyphs *g = glyphs_active();
    enum { QLABEL_W = 11, QCOUNT_W = 8 };
    draw_text(y, x, QLABEL_W, ROLE_DIM, label);
    int bw = w - QLABEL_W - QCOUNT_W;
    if (bw <= 0)
        return;
    if (cap > 0 && cap <= bw) {
        int c = (int)cap, f = (int)lround(fill);
        for (int i = 0; i < c; i++)
            draw_text(y, x + QLABEL_W + i, 1, i < f ? ROLE_QUEUE : ROLE_DIM,
                      i < f ? g->bar_full : g->bar_empty);
    } else {
        draw_bar(y, x + QLABEL_W, bw, cap > 0 ? fill / cap : 0, ROLE_QUEUE, ROLE_DIM);
    }
    draw_textf(y, x + QLABEL_W + bw + 1, QCOUNT_W - 1, ROLE_VALUE, "%.0f/%.0f", fill, cap);
}

/* A grid of `total` items (devices, cores): the first `failed` marked, the
 * first `filled` in the `on` role. Few items get big blocks (readable on a
 * projector); many are aggregated so each cell stands for several.
 * Returns the rows used; *per_cell receives the items per cell. */
int pic_cells(int y, int x, int w, int h, int total, int filled, int failed, enum theme_role on,
              int *per_cell)
{
    const struct glyphs *g = glyphs_active();
    *per_cell = 1;
    if (w < CELL_W || h < 1 || total <= 0)
        return 0;
    /* Largest block (width cw, height ch, one column/row of gap) that fits. */
    static const int sizes[][2] = {{8, 3}, {6, 2}, {4, 2}, {3, 1}, {1, 1}};
    int cw = 1, ch = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int per_row = (w + 1) / (sizes[i][0] + 1);
        int rows = (h + (sizes[i][1] > 1 ? 1 : 0)) / (sizes[i][1] + (sizes[i][1] > 1 ? 1 : 0));
        if (per_row > 0 && rows > 0 && per_row * rows >= total) {
            cw = sizes[i][0];
            ch = sizes[i][1];
            break;
        }
    }
    int gap_y = ch > 1 ? 1 : 0;
    int per_row = (w + 1) / (cw + 1);
    int rows = (h + gap_y) / (ch + gap_y);
    int cells = per_row * rows;
    int each = total > cells ? (total + cells - 1) / cells : 1;
    int n = (total + each - 1) / each;
    *per_cell = each;
    int nfilled = (filled + each - 1) / each, nfailed = (failed + each - 1) / each;
    bool block = cw > 1 && g->utf8;
    for (int i = 0; i < n; i++) {
        int cy = y + (i / per_row) * (ch + gap_y), cx = x + (i % per_row) * (cw + 1);
        enum theme_role role = i < nfailed ? ROLE_FAILED : i < nfilled ? on : ROLE_DIM;
        const char *glyph = i < nfailed   ? g->device_failed
                            : block       ? (i < nfilled ? g->bar_full : g->bar_empty)
                            : i < nfilled ? g->device
                                          : g->bar_empty;
        for (int r = 0; r < ch; r++) {
            if (i < nfailed && r > 0)
                break;
            if (i < nfailed)
                draw_text(cy + r, cx + cw / 2, 1, role, glyph);
            else
                draw_repeat(cy + r, cx, cw, role, glyph);
        }
    }
    int used_rows = (n + per_row - 1) / per_row;
    return used_rows * (ch + gap_y) - gap_y;
}

void view_stage_picture(const struct view_ctx *v, struct view_out *out, int stage, struct rect in)
{
    if (in.h <= 0 || in.w <= 0)
        return;
    draw_clip(&in);
    switch (stage) {
    case STAGE_DATA:
        pic_data(v, out, in);
        break;
    case STAGE_CPUS:
        pic_cpus(v, out, in);
        break;
    case STAGE_ACCELERATORS:
        pic_accel(v, out, in);
        break;
    case STAGE_INTERCONNECT:
        pic_net(v, out, in);
        break;
    default:
        pic_infra(v, out, in);
        break;
    }
    draw_clip_reset();
}
