/* layout: the pure screen layout. */
#include "layout.h"

#include <string.h>

/* Rows of fixed furniture. */
enum {
    TITLE_H = 1,
    FOOTER_H = 1,
    CAPTION_H = 3, /* two lines of transcript + the prompt */
    CAPTION_H_MEDIUM = 5,
    CAPTION_MEDIUM_FROM_ROWS = 30,
    CAPTION_H_TALL = 8,
    CAPTION_TALL_FROM_ROWS = 40,
    BOX_H_MIN = 6,     /* border + 4 lines of figures */
    BOX_H_CAP_DIV = 3, /* boxes grow up to a third of the body */
    GAP_H_SMALL = 1,   /* lane between the box rows */
    GAP_H_LARGE = 2,
    GAP_LARGE_FROM_ROWS = 34,
    METRICS_H_MIN = 6,  /* verdict + five lines of metrics */
    METRICS_H_MAX = 11, /* verdict + four fixed rows + six rows of sparklines */
    ARROW_W_MIN = 9,    /* "loading" + arrow head */
    ARROW_W_MAX = 16,
    ARROW_W_DIV = 9,
    LIVE_H = 3,    /* stage view live strip */
    LEFT_PCT = 45, /* stage view: share of the width for text + knobs */
    LEFT_W_MIN = 38,
    TEXT_PCT = 45,    /* of the body height, for the explanation */
    PICTURE_PCT = 55, /* of the body height, for the picture */
    PANEL_H_MIN = 5,
    HELP_W_MAX = 84,
    HELP_MARGIN = 2,
};

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static struct rect mk(int y, int x, int h, int w)
{
    struct rect r = {y, x, h < 0 ? 0 : h, w < 0 ? 0 : w};
    return r;
}

static void overview(struct layout *l, int body_y, int body_h)
{
    int cols = l->cols;
    int gap_h = l->rows >= GAP_LARGE_FROM_ROWS ? GAP_H_LARGE : GAP_H_SMALL;
    int box_cap = body_h / BOX_H_CAP_DIV;
    /* Past what the metrics strip can use, height goes to the boxes. */
    int spare = (body_h - gap_h - METRICS_H_MAX) / 2;
    if (box_cap < spare)
        box_cap = spare;
    if (box_cap < BOX_H_MIN)
        box_cap = BOX_H_MIN;
    int box_h = clampi((body_h - gap_h - METRICS_H_MIN) / 2, BOX_H_MIN, box_cap);
    int arrow_w = clampi(cols / ARROW_W_DIV, ARROW_W_MIN, ARROW_W_MAX);
    int box_w = (cols - 2 * arrow_w) / 3;
    int last_w = cols - 2 * arrow_w - 2 * box_w; /* the remainder goes to accelerators */

    int top = body_y;
    int x_cpu = box_w + arrow_w;
    int x_acc = x_cpu + box_w + arrow_w;
    l->box[0] = mk(top, 0, box_h, box_w);
    l->box[1] = mk(top, x_cpu, box_h, box_w);
    l->box[2] = mk(top, x_acc, box_h, last_w);
    l->arrow[ARROW_BATCH_LOADING] = mk(top, box_w, box_h, arrow_w);
    l->arrow[ARROW_TASK_DISTRIBUTION] = mk(top, x_cpu + box_w, box_h, arrow_w);

    int lane = top + box_h;
    int bottom = lane + gap_h;
    int infra_w = x_acc - arrow_w;
    l->arrow[ARROW_GRADIENT_SYNC] = mk(lane, x_acc, gap_h, last_w);
    l->support = mk(lane, 0, gap_h, infra_w);
    l->box[4] = mk(bottom, 0, box_h, infra_w);
    l->arrow[ARROW_SYSTEM_SUPPORT] = mk(bottom, infra_w, box_h, arrow_w);
    l->box[3] = mk(bottom, x_acc, box_h, last_w);

    int my = bottom + box_h;
    int mh = body_y + body_h - my;
    l->verdict = mk(my, 0, 1, cols);
    l->metrics = mk(my + 1, 0, mh - 1, cols);
}

static void stage(struct layout *l, int body_y, int body_h)
{
    int cols = l->cols;
    int live_y = body_y + body_h - LIVE_H;
    int panels_h = body_h - LIVE_H;
    int left_w = cols * LEFT_PCT / 100;
    if (left_w < LEFT_W_MIN)
        left_w = LEFT_W_MIN;
    int right_w = cols - left_w;
    int text_h = clampi(panels_h * TEXT_PCT / 100, PANEL_H_MIN, panels_h - PANEL_H_MIN);
    int pic_h = clampi(panels_h * PICTURE_PCT / 100, PANEL_H_MIN, panels_h - PANEL_H_MIN);
    l->text = mk(body_y, 0, text_h, left_w);
    l->knobs = mk(body_y + text_h, 0, panels_h - text_h, left_w);
    l->picture = mk(body_y, left_w, pic_h, right_w);
    l->compare = mk(body_y + pic_h, left_w, panels_h - pic_h, right_w);
    l->live = mk(live_y, 0, LIVE_H, cols);
}

void layout_compute(int cols, int rows, enum layout_view view, bool caption, struct layout *out)
{
    memset(out, 0, sizeof *out);
    out->cols = cols;
    out->rows = rows;
    out->need_cols = LAYOUT_MIN_COLS;
    out->need_rows = LAYOUT_MIN_ROWS;
    if (cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS) {
        out->too_small = true;
        return;
    }
    /* Tall screens give narration room for the script's recent output too. */
    int cap_h = !caption                           ? 0
                : rows >= CAPTION_TALL_FROM_ROWS   ? CAPTION_H_TALL
                : rows >= CAPTION_MEDIUM_FROM_ROWS ? CAPTION_H_MEDIUM
                                                   : CAPTION_H;
    out->title = mk(0, 0, TITLE_H, cols);
    out->footer = mk(rows - FOOTER_H, 0, FOOTER_H, cols);
    out->caption = mk(rows - FOOTER_H - cap_h, 0, cap_h, cap_h ? cols : 0);
    int body_y = TITLE_H;
    int body_h = rows - TITLE_H - FOOTER_H - cap_h;
    if (view == LAYOUT_OVERVIEW)
        overview(out, body_y, body_h);
    else
        stage(out, body_y, body_h);
    int hw = cols - 2 * HELP_MARGIN;
    if (hw > HELP_W_MAX)
        hw = HELP_W_MAX;
    out->help = mk(TITLE_H, (cols - hw) / 2, rows - TITLE_H - FOOTER_H, hw);
}

bool rect_inside(const struct rect *r, int cols, int rows)
{
    return r->y >= 0 && r->x >= 0 && r->h >= 0 && r->w >= 0 && r->y + r->h <= rows &&
           r->x + r->w <= cols;
}

bool rect_overlap(const struct rect *a, const struct rect *b)
{
    if (a->h <= 0 || a->w <= 0 || b->h <= 0 || b->w <= 0)
        return false;
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

bool rect_contains(const struct rect *r, int y, int x)
{
    return y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}
