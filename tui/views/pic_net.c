/* pic_net: the Interconnect stage's picture: the all-reduce ring or tree
 * and the pipeline schedule. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "pictures.h"
#include "theme.h"

static void pic_ring(const struct view_ctx *v, struct view_out *out, struct rect in, int y, int n)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    int shown = n < RING_MAX ? n : RING_MAX;
    if (shown < 2)
        return;
    /* Members on two rows (top left->right, bottom right->left) make a ring. */
    int top = (shown + 1) / 2, bottom = shown - top;
    int gap = (in.w - 4) / (top > 0 ? top : 1);
    if (gap > 8)
        gap = 8;
    if (gap < 2)
        gap = 2;
    bool syncing = view_syncing(v);
    int hot = syncing ? (int)fmod(v->wall_s * 6, shown) : -1;
    for (int i = 0; i < top; i++) {
        draw_text(y, in.x + 2 + i * gap, 1, i == hot ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
        if (i + 1 < top)
            draw_repeat(y, in.x + 3 + i * gap, gap - 1, ROLE_DIM, g->track);
    }
    draw_text(y + 1, in.x + 2 + (top - 1) * gap, 1, ROLE_DIM, g->v);
    draw_text(y + 1, in.x + 2, 1, ROLE_DIM, g->v);
    for (int j = 0; j < bottom; j++) {
        int i = top + j;
        int col = top - 1 - j;
        if (bottom < top)
            col = top - 1 - j; /* keep the right edge aligned */
        draw_text(y + 2, in.x + 2 + col * gap, 1, i == hot ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
        if (j + 1 < bottom || col > 0)
            draw_repeat(y + 2, in.x + 3 + (col - 1) * gap, gap - 1, ROLE_DIM, g->track);
    }
    if (n > shown)
        draw_textf(y + 1, in.x + 4, in.w - 6, ROLE_DIM, "(%d of %d shown)", shown, n);
}

static void pic_tree(const struct view_ctx *v, struct view_out *out, struct rect in, int y)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    bool syncing = view_syncing(v);
    int level = syncing ? (int)fmod(v->wall_s * 3, 3) : -1;
    int cx = in.x + in.w / 2;
    draw_text(y, cx, 1, level == 0 ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
    int q = in.w / 4;
    draw_text(y + 1, cx - q, 1, level == 1 ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
    draw_text(y + 1, cx + q, 1, level == 1 ? ROLE_FLOW : ROLE_STAGE_MID, g->device);
    int e = q / 2;
    for (int i = -1; i <= 1; i += 2)
        for (int j = -1; j <= 1; j += 2)
            draw_text(y + 2, cx + i * q + j * e, 1, level == 2 ? ROLE_FLOW : ROLE_STAGE_MID,
                      g->device);
}

void pic_net(const struct view_ctx *v, struct view_out *out, struct rect in)
{
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    int y = in.y;
    char full[32], exp[32], tp[32];
    fmt_dur(full, sizeof full, r->stages.dp_comm_s);
    fmt_dur(exp, sizeof exp, r->breakdown.dp_comm_exposed);
    int algo = s->training.allreduce;
    bool tree = algo == ALLREDUCE_TREE;
    const char *how = tree ? "tree" : algo == ALLREDUCE_HIERARCHICAL ? "hierarchical" : "ring";
    bool zero3 = s->training.zero_stage >= 3;
    /* ZeRO-3 (FSDP) moves weights too: all-gathered for the forward and
     * the backward, gradients reduce-scattered, every micro-batch. */
    if (zero3)
        draw_textf(y++, in.x, in.w, ROLE_HEADING,
                   "ZeRO-3 over DP=%d: %s all-gather weights + reduce-scatter grads: %s, %s "
                   "exposed",
                   r->dp, how, full, exp);
    else
        draw_textf(y++, in.x, in.w, ROLE_HEADING, "%s all-reduce over DP=%d: %s, %s exposed", how,
                   r->dp, full, exp);
    if (r->dp > 1) {
        if (tree)
            pic_tree(v, out, in, y);
        else
            pic_ring(v, out, in, y, r->dp);
        y += 3;
        double share = (r->dp - 1.0) / r->dp;
        if (zero3)
            draw_textf(y++, in.x, in.w, ROLE_DIM,
                       "per micro-batch each link carries (n-1)/n = %.2fx the weights twice "
                       "and the gradients once",
                       share);
        else
            draw_textf(y++, in.x, in.w, ROLE_DIM,
                       "each link carries 2(n-1)/n = %.2fx the gradients", 2 * share);
    } else {
        draw_text(y++, in.x, in.w, ROLE_DIM, "one data-parallel replica: no gradient all-reduce");
    }
    fmt_dur(tp, sizeof tp, r->breakdown.tp_comm);
    draw_textf(y++, in.x, in.w, ROLE_DIM, "tensor parallel TP=%d: %s per step", r->tp, tp);
    y++;
    if (y >= in.y + in.h)
        return;
    int p = r->pp, m = r->micro_batches;
    if (p <= 1) {
        draw_text(y, in.x, in.w, ROLE_DIM, "pipeline: PP=1, so no pipeline bubble");
        return;
    }
    double bubble = (double)(p - 1) / (m + p - 1);
    char bp[16];
    fmt_pct(bp, sizeof bp, bubble);
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "pipeline PP=%d, %d micro-batches: bubble %s", p, m,
               bp);
    /* GPipe-style picture: forward wave, then backward wave; the idle
     * corners are the bubble. */
    const struct glyphs *g = glyphs_active();
    int md = m < PIPE_MB_MAX ? m : PIPE_MB_MAX;
    int rows = p < in.y + in.h - y ? p : in.y + in.h - y;
    for (int i = 0; i < rows; i++) {
        int x = in.x;
        x += draw_textf(y + i, x, 4, ROLE_DIM, "s%-2d", i + 1);
        for (int c = 0; c < 2 * (md + p - 1) && x < in.x + in.w; c++) {
            int f0 = i, f1 = i + md;                         /* forward slots */
            int b0 = md + p - 1 + (p - 1 - i), b1 = b0 + md; /* backward slots */
            if (c >= f0 && c < f1)
                x += draw_text(y + i, x, 1, ROLE_PART_COMPUTE, "F");
            else if (c >= b0 && c < b1)
                x += draw_text(y + i, x, 1, ROLE_PART_COMM, "B");
            else
                x += draw_text(y + i, x, 1, ROLE_PART_BUBBLE, g->bar_empty);
        }
    }
}
