/* pic_pipe: the pipeline schedule in the Interconnect picture, as the
 * step-schedule simulator (engine/sched) runs it: a row per stage, each
 * column what that stage's compute stream does then (forwards, backwards,
 * of even and odd model chunks; weight passes; idle slots where the bubble
 * is). The bubble in the heading is sched_bubble_s, the figure `mlviz
 * eval` and the step bar show. The simulation runs once per setup, not
 * per frame. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "model.h"
#include "pictures.h"
#include "schedule.h"
#include "setup.h"
#include "theme.h"
#include "units.h"

enum {
    PIPE_ROWS_MAX = 128,
    PIPE_COLS_MAX = 240,
    PIPE_PASSES_DRAWN = 1 << 16 /* stages x chunks x micro-batches simulated for the picture */
};

/* The last picture's schedule: one character per cell ('.' idle). */
static struct {
    double step_s, bubble_s;
    int pp, vp, m, m_drawn, cols;
    bool ok;
    char cell[PIPE_ROWS_MAX][PIPE_COLS_MAX];
} pipe_cache;

static char pass_char(const struct sched_op *op)
{
    if (op->kind == SCHED_OP_WGRAD)
        return 'W';
    if (op->kind == SCHED_OP_FORWARD)
        return op->chunk % 2 ? 'f' : 'F';
    return op->chunk % 2 ? 'b' : 'B';
}

/* Simulates the setup (with fewer micro-batches when it has very many:
 * whole groups of p, the picture's width shows no more) and fills the
 * cells. */
static void pipe_build(const struct view_ctx *v, int cols)
{
    const struct model_report *r = v->report;
    memset(&pipe_cache, 0, sizeof pipe_cache);
    pipe_cache.step_s = r->device_step_s;
    pipe_cache.bubble_s = r->breakdown.pp_bubble;
    pipe_cache.pp = r->pp, pipe_cache.vp = r->vp, pipe_cache.m = r->micro_batches;
    pipe_cache.cols = cols;
    struct setup s = *v->setup;
    long slots = (long)r->pp * (r->vp > 0 ? r->vp : 1);
    int m = r->micro_batches;
    if (slots * m > PIPE_PASSES_DRAWN) {
        m = (int)(PIPE_PASSES_DRAWN / slots / r->pp) * r->pp;
        if (m < r->pp)
            m = r->pp;
        long per_mb = (long)r->dp * s.training.micro_batch;
        s.training.global_batch = (int)(per_mb * m);
    }
    pipe_cache.m_drawn = m;
    struct sched_result q;
    if (sched_simulate(&s, v->res, r, SCHED_AUTO, true, &q) != SCHED_OK)
        return;
    memset(pipe_cache.cell, '.', sizeof pipe_cache.cell);
    double col_s = q.pipeline_s / cols;
    for (size_t i = 0; col_s > 0 && i < q.n_ops; i++) {
        const struct sched_op *op = &q.ops[i];
        if (op->stage >= PIPE_ROWS_MAX)
            continue;
        int a = (int)ceil(op->start_s / col_s - 0.5), b = (int)ceil(op->end_s / col_s - 0.5);
        for (int k = a < 0 ? 0 : a; k < b && k < cols; k++)
            pipe_cache.cell[op->stage][k] = pass_char(op);
    }
    pipe_cache.ok = true;
    sched_free(&q);
}

static bool pipe_cached(const struct view_ctx *v, int cols)
{
    const struct model_report *r = v->report;
    return pipe_cache.cols == cols && pipe_cache.step_s == r->device_step_s &&
           pipe_cache.bubble_s == r->breakdown.pp_bubble && pipe_cache.pp == r->pp &&
           pipe_cache.vp == r->vp && pipe_cache.m == r->micro_batches;
}

static enum theme_role cell_role(char c)
{
    return c == 'F' || c == 'f' ? ROLE_PART_COMPUTE : c == '.' ? ROLE_PART_BUBBLE : ROLE_PART_COMM;
}

/* The schedule from row y; returns the row after it. */
int pic_pipeline(const struct view_ctx *v, struct rect in, int y)
{
    const struct model_report *r = v->report;
    int p = r->pp;
    if (p <= 1) {
        draw_text(y, in.x, in.w, ROLE_DIM, "pipeline: PP=1, so no pipeline bubble");
        return y + 1;
    }
    char bs[32], bp[16];
    format_duration(bs, sizeof bs, sched_bubble_s(r));
    format_percent(bp, sizeof bp, sched_bubble_share(r));
    char vp[24] = "";
    if (r->vp > 1)
        snprintf(vp, sizeof vp, " x %d chunks", r->vp);
    char noun[24];
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "pipeline PP=%d%s, %d %s: bubble %s (%s)", p, vp,
               r->micro_batches, format_noun(r->micro_batches, "micro-batches", noun, sizeof noun),
               bs, bp);
    int cols = in.w - 4;
    if (cols > PIPE_COLS_MAX)
        cols = PIPE_COLS_MAX;
    if (cols < 8 || y >= in.y + in.h)
        return y;
    if (!pipe_cached(v, cols))
        pipe_build(v, cols);
    if (!pipe_cache.ok) {
        draw_text(y, in.x, in.w, ROLE_DIM, "(too many passes to draw this schedule)");
        return y + 1;
    }
    const struct glyphs *g = glyphs_active();
    int rows = in.y + in.h - y;
    if (rows > p)
        rows = p;
    if (rows > PIPE_ROWS_MAX)
        rows = PIPE_ROWS_MAX;
    for (int i = 0; i < rows; i++, y++) {
        int x = in.x + draw_textf(y, in.x, 4, ROLE_DIM, "s%-2d", i + 1);
        for (int c = 0; c < cols; c++) {
            char ch[2] = {pipe_cache.cell[i][c], '\0'};
            x += draw_text(y, x, 1, cell_role(ch[0]), ch[0] == '.' ? g->bar_empty : ch);
        }
    }
    if (pipe_cache.m_drawn < pipe_cache.m && y < in.y + in.h)
        draw_textf(y++, in.x, in.w, ROLE_DIM, "(the first %d of %d micro-batches drawn)",
                   pipe_cache.m_drawn, pipe_cache.m);
    return y;
}
