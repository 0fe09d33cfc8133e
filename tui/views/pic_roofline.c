/* pic_roofline: the roofline of one device (Williams, Waterman, Patterson,
 * "Roofline: an insightful visual performance model", CACM 2009): attainable
 * FLOP/s = min(peak, intensity x memory bandwidth), on log scales. Left of
 * the ridge point (peak / bandwidth, FLOP per byte) a kernel is
 * memory-bound, right of it compute-bound. The operating point is the
 * layer's largest GEMM (the MLP projection) at the compute-phase speed the
 * model reports (achieved_fraction of peak). */
#include <math.h>
#include <stdio.h>

#include "draw.h"
#include "glyphs.h"
#include "pictures.h"
#include "theme.h"
#include "units.h"

enum {
    AXIS_W = 6,      /* "990  " and the axis line */
    DECADES_X = 4,   /* intensity: ridge / 100 ... ridge x 100 */
    DECADES_Y = 2,   /* FLOP/s: peak / 100 ... peak */
    ROOF_TEXT_H = 3, /* heading, x axis, verdict */
};

/* Bytes per element of a GEMM's inputs and output at the training precision
 * (the convention of engine/model: FP8 inputs 1 byte, FP4 half, 16-bit
 * output; FP32 and TF32 keep 4 bytes). */
static void gemm_bytes(int precision, double *in_b, double *out_b)
{
    *out_b = 2;
    *in_b = 2;
    if (precision == TRAIN_FP32 || precision == TRAIN_TF32)
        *in_b = *out_b = 4;
    else if (precision == TRAIN_FP8 || precision == TRAIN_INT8 || precision == TRAIN_MXFP8)
        *in_b = 1;
    else if (precision == TRAIN_FP4 || precision == TRAIN_NVFP4)
        *in_b = 0.5;
}

/* Arithmetic intensity (FLOP per byte of device memory traffic) of the MLP
 * up-projection of one micro-batch on one device: M tokens x K hidden x N
 * ffn/TP, 2MNK FLOPs over reading A and B and writing C. 0 when the model
 * has no transformer shape. */
static double gemm_intensity(const struct view_ctx *v)
{
    const struct setup *s = v->setup;
    const struct model_report *r = v->report;
    if (s->model.kind != MODEL_TRANSFORMER || s->model.hidden <= 0)
        return 0;
    double M = (double)s->training.micro_batch * s->model.seq_len / (r->cp > 0 ? r->cp : 1);
    double K = s->model.hidden;
    double N = (double)setup_ffn_hidden(s) / (r->tp > 0 ? r->tp : 1);
    double in_b, out_b;
    gemm_bytes(s->training.precision, &in_b, &out_b);
    double bytes = (M * K + K * N) * in_b + M * N * out_b;
    double x = bytes > 0 ? 2.0 * M * N * K / bytes : 0;
    return isfinite(x) && x > 0 ? x : 0;
}

/* Column and row of (intensity, flops) in a plot of pw x ph cells. */
static int col_of(double intensity, double ridge, int pw)
{
    double f = log10(intensity / (ridge / 100)) / DECADES_X;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return (int)lround(f * (pw - 1));
}

static int row_of(double flops, double peak, int ph)
{
    double f = log10(flops / (peak / 100)) / DECADES_Y;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return (int)lround((1 - f) * (ph - 1));
}

static void plot(struct rect p, double peak, double bw, double ridge, double op_i, double op_f)
{
    const struct glyphs *g = glyphs_active();
    for (int y = 0; y < p.h; y++)
        draw_text(p.y + y, p.x - 1, 1, ROLE_BORDER, g->v);
    int ridge_col = col_of(ridge, ridge, p.w);
    for (int c = 0; c < p.w; c++) {
        double i = ridge / 100 * pow(10, (double)DECADES_X * c / (p.w - 1));
        double f = i * bw < peak ? i * bw : peak;
        bool mem = c < ridge_col;
        draw_text(p.y + row_of(f, peak, p.h), p.x + c, 1, mem ? ROLE_PART_DATA : ROLE_PART_COMPUTE,
                  mem ? "/" : g->h);
    }
    for (int y = row_of(peak, peak, p.h) + 1; y < p.h; y++)
        draw_text(p.y + y, p.x + ridge_col, 1, ROLE_DIM, ":");
    if (op_i > 0 && op_f > 0)
        draw_text(p.y + row_of(op_f, peak, p.h), p.x + col_of(op_i, ridge, p.w), 1, ROLE_BOTTLENECK,
                  g->bullet);
    char top[16], bottom[16];
    snprintf(top, sizeof top, "%.0f", peak / 1e12);
    format_significant(bottom, sizeof bottom, peak / 100 / 1e12, 3); /* never an exponent */
    draw_text(p.y, p.x - AXIS_W, AXIS_W - 1, ROLE_DIM, top);
    draw_text(p.y + p.h - 1, p.x - AXIS_W, AXIS_W - 1, ROLE_DIM, bottom);
}

/* The verdict in one line: where the GEMM sits against the ridge. */
static void verdict_line(int y, struct rect in, double ridge, double op_i, double op_f, double peak)
{
    const struct glyphs *g = glyphs_active();
    char ri[16], oi[16], pct[16];
    snprintf(ri, sizeof ri, "%.0f", ridge);
    if (!(op_i > 0)) {
        draw_textf(y, in.x, in.w, ROLE_DIM,
                   "ridge %s FLOP/B; layer shapes unknown for this model, no operating point", ri);
        return;
    }
    if (op_i >= 1e3)
        snprintf(oi, sizeof oi, "%.1fk", op_i / 1e3);
    else
        snprintf(oi, sizeof oi, "%.0f", op_i);
    format_percent(pct, sizeof pct, op_f / peak);
    int used = draw_textf(y, in.x, in.w, ROLE_BOTTLENECK, "%s ", g->bullet);
    draw_textf(y, in.x + used, in.w - used, ROLE_TEXT, "%s: GEMM %s %s ridge %s FLOP/B, %s of peak",
               op_i >= ridge ? "compute-bound" : "memory-bound", oi, op_i >= ridge ? ">" : "<", ri,
               pct);
}

void pic_roofline(const struct view_ctx *v, struct rect in)
{
    const struct model_report *r = v->report;
    const struct accelerator *a = v->res->accel;
    if (!a || !(a->mem_bw_gbs > 0) || !(r->peak_tflops > 0) || in.h < 1 || in.w < 20)
        return;
    double peak = r->peak_tflops * 1e12, bw = a->mem_bw_gbs * 1e9;
    double ridge = peak / bw;
    double op_i = gemm_intensity(v);
    double frac = view_live_util(v, r->achieved_fraction); /* throttled: lower */
    double op_f = isfinite(frac) && frac > 0 ? frac * peak : 0;
    if (in.h < ROOF_TEXT_H + 3) {
        verdict_line(in.y + in.h - 1, in, ridge, op_i, op_f, peak);
        return;
    }
    char bws[32];
    format_si(bws, sizeof bws, bw, "B/s");
    draw_textf(in.y, in.x, in.w, ROLE_HEADING,
               "roofline: TFLOP/s vs FLOP per byte (log); ridge = %.0f TFLOP/s / %s", peak / 1e12,
               bws);
    struct rect p = {in.y + 1, in.x + AXIS_W, in.h - ROOF_TEXT_H, in.w - AXIS_W};
    plot(p, peak, bw, ridge, op_i, op_f);
    int ay = p.y + p.h;
    char lo[16], hi[16];
    format_si(lo, sizeof lo, ridge / 100, "");
    format_si(hi, sizeof hi, ridge * 100, "");
    draw_text(ay, p.x, p.w, ROLE_DIM, lo);
    draw_center(ay, p.x, p.w, ROLE_DIM, "memory-bound | compute-bound");
    draw_text(ay, p.x + p.w - draw_width(hi), draw_width(hi), ROLE_DIM, hi);
    verdict_line(ay + 1, in, ridge, op_i, op_f, peak);
}
