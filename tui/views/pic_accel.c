/* pic_accel: the Accelerators stage's picture: devices (busy, failed,
 * hot) and what fills their memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "pictures.h"
#include "theme.h"
#include "units.h"

/* A count with thousands separators ("1,965"), rounded. */
static void with_commas(char *buf, size_t len, double x)
{
    long long n = isfinite(x) && x > 0 && x < 1e15 ? (long long)(x + 0.5) : 0;
    if (n >= 1000)
        snprintf(buf, len, "%lld,%03lld", n / 1000, n % 1000);
    else
        snprintf(buf, len, "%lld", n);
}

/* y2026: the GEMM clock a power cap leaves ("clocks 1,740 of 1,965 MHz:
 * power-limited at 1,200 W"). */
static void power_clock_text(const struct model_report *r, bool compact, char *buf, size_t len)
{
    char now[32], top[32], cap[32];
    double share = r->power.clock_share;
    with_commas(now, sizeof now, r->power.clock_mhz);
    with_commas(top, sizeof top, share > 0 ? r->power.clock_mhz / share : 0);
    with_commas(cap, sizeof cap, r->power.limit_w);
    /* A cap that would hold the clocks below the device's lowest: the
     * setup cannot run (docs/MODEL.md, section 6). */
    if (r->power.below_min_clock && share <= r->power.min_clock_share && compact)
        snprintf(buf, len, "%s W cap: below the lowest clock", cap);
    else if (r->power.below_min_clock && share <= r->power.min_clock_share)
        snprintf(buf, len,
                 "cannot run: a %s W cap would hold the clocks below the lowest (%.1f%% of "
                 "boost)",
                 cap, 100.0 * r->power.min_clock_share);
    else if (r->power.clock_mhz > 0 && compact)
        snprintf(buf, len, "clocks %s/%s MHz, %s W cap", now, top, cap);
    else if (r->power.clock_mhz > 0)
        snprintf(buf, len, "clocks %s of %s MHz: power-limited at %s W", now, top, cap);
    else
        snprintf(buf, len, "clocks at %.0f%% of boost: power-limited at %s W", 100.0 * share, cap);
}

/* Rows `text` takes wrapped at word boundaries into w columns (as
 * draw_wrap fills them: greedy, a word longer than a row cut). */
static int wrapped_rows(const char *text, int w)
{
    int rows = 1, used = 0;
    while (*text && w > 0) {
        while (*text == ' ')
            text++;
        size_t n = strcspn(text, " ");
        if (n == 0)
            break;
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), text);
        int ww = draw_width(word);
        if (used > 0 && used + 1 + ww > w) {
            rows++;
            used = 0;
        }
        used += (used > 0) + ww;
        while (used > w) {
            rows++;
            used -= w;
        }
        text += n;
    }
    return rows;
}

/* y2026: which GEMMs run in the low format and which stay 16-bit, as the
 * model times them (model_precision.c, model_output.c: Transformer Engine
 * runs every linear layer's fprop, dgrad and wgrad in the low format;
 * attention and the output layer stay BF16), the long form when it fits
 * in w columns. False for 16/32-bit runs. */
static bool precision_text(const struct model_report *r, int w, bool compact, char *buf, size_t len)
{
    static const char *const low[][2] = {
        {"fp8", "FP8"}, {"mxfp8", "MXFP8"}, {"fp4", "MXFP4"}, {"nvfp4", "NVFP4"}};
    for (size_t i = 0; i < sizeof low / sizeof low[0]; i++) {
        if (strcmp(r->precision, low[i][0]) == 0) {
            snprintf(buf, len,
                     "%s: fprop, dgrad, wgrad of every linear layer; BF16: attention, output layer",
                     low[i][1]);
            if (compact)
                snprintf(buf, len, "%s linear GEMMs, BF16 attention", low[i][1]);
            else if (draw_width(buf) > w) /* two rows at most */
                snprintf(buf, len, "%s: linear fprop/dgrad/wgrad; BF16: attention, output layer",
                         low[i][1]);
            return true;
        }
    }
    return false;
}

/* Text wrapped at word boundaries from row y, never past the rectangle's
 * bottom; returns the next row. */
static int wrap_from(struct rect in, int y, enum theme_role role, const char *text)
{
    struct rect r = {.y = y, .x = in.x, .h = in.y + in.h - y, .w = in.w};
    if (r.h <= 0)
        return y;
    int n = draw_wrap(&r, role, text, 0);
    return y + (n < r.h ? n : r.h);
}

/* The memory bar and its legend from row y; returns the row after them, or
 * -1 when the box is full. The legend goes on one row: with the sizes when
 * they fit, else the names alone; an item that still does not fit goes to
 * the next row whole (never cut mid-word). */
static int memory_rows(struct rect in, int y, const struct memory_report *m)
{
    double parts[5] = {m->params_gb, m->grads_gb, m->optimizer_gb, m->activations_gb + m->logits_gb,
                       m->reserved_gb};
    static const enum theme_role roles[6] = {ROLE_MEM_WEIGHTS, ROLE_MEM_GRADS,  ROLE_MEM_OPTIM,
                                             ROLE_MEM_ACT,     ROLE_PART_OTHER, ROLE_MEM_FREE};
    static const char *const names[5] = {"weights", "grads", "optim", "activ", "other"};
    double total = m->capacity_gb > m->per_device_gb ? m->capacity_gb : m->per_device_gb;
    if (y >= in.y + in.h)
        return -1;
    char use_gb[16], cap_gb[16];
    format_significant(use_gb, sizeof use_gb, m->per_device_gb, 3);
    format_significant(cap_gb, sizeof cap_gb, m->capacity_gb, 3);
    int used = draw_textf(y, in.x, in.w, ROLE_TEXT, "memory %s/%s GB ", use_gb, cap_gb);
    draw_stacked(y, in.x + used, in.w - used, parts, roles, 5, total);
    y++;
    char items[5][32];
    int full_w = 0;
    for (int i = 0; i < 5; i++)
        full_w += 1 + snprintf(items[i], sizeof items[i], "%s %.1f ", names[i], parts[i]);
    bool sizes = full_w <= in.w + 1;
    int x = in.x;
    for (int i = 0; i < 5 && y < in.y + in.h; i++) {
        if (!sizes)
            snprintf(items[i], sizeof items[i], "%s ", names[i]);
        int need = 1 + (int)strlen(items[i]); /* the fill glyph takes one column */
        if (x > in.x && x + need > in.x + in.w + 1) {
            if (++y >= in.y + in.h)
                return -1;
            x = in.x;
        }
        x += draw_text(y, x, in.x + in.w - x, roles[i], draw_part_fill((size_t)i, true));
        x += draw_text(y, x, in.x + in.w - x, ROLE_DIM, items[i]);
    }
    return y;
}

/* y2026 notes under the device grid: the power-limited clock and the
 * precision split (empty when they do not apply), and the rows they and
 * the host-memory line take. A short picture takes their one-row forms, so
 * that the memory verdict stays on it. */
struct accel_notes {
    char clock[160], prec[160];
    int rows;
};

static void accel_notes(const struct model_report *r, struct rect in, struct accel_notes *n)
{
    bool capped = r->power.clock_share < 0.999;
    int host = r->memory.host_offload_gb > 0;
    for (int compact = 0; compact < 2; compact++) {
        n->clock[0] = n->prec[0] = '\0';
        if (!precision_text(r, in.w, compact, n->prec, sizeof n->prec))
            n->prec[0] = '\0';
        if (capped)
            power_clock_text(r, compact, n->clock, sizeof n->clock);
        n->rows = (capped ? wrapped_rows(n->clock, in.w) : 0) +
                  (n->prec[0] ? wrapped_rows(n->prec, in.w) : 0) + host;
        /* heading, grid, the notes, memory bar and legend, verdict, compute */
        if (2 + n->rows + 4 <= in.h)
            break;
    }
}

/* y2026: the activations offloaded to host memory, on row y. */
static void host_memory_row(const struct view_ctx *v, struct rect in, int y)
{
    char gb[16], text[96], noun[16];
    format_significant(gb, sizeof gb, v->report->memory.host_offload_gb, 3);
    int layers = v->setup->training.activation_offload_layers;
    const char *layer = format_noun(layers, "layers", noun, sizeof noun);
    snprintf(text, sizeof text, "host memory %s GB: %d offloaded %s", gb, layers, layer);
    if (draw_width(text) > in.w)
        snprintf(text, sizeof text, "host %s GB: %d %s offloaded", gb, layers, layer);
    draw_text(y, in.x, in.w, ROLE_DIM, text);
}

void pic_accel(const struct view_ctx *v, struct view_out *out, struct rect in)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = v->report;
    int y = in.y;
    double util = v->live->stage_util[STAGE_ACCELERATORS];
    char pct[16];
    format_percent(pct, sizeof pct, util);
    double temp = v->sim ? v->live->rack_temp_c : r->power.rack_temp_c;
    char noun[16];
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "%d %s  load %s  %.0f C", r->devices,
               format_noun(r->devices, "devices", noun, sizeof noun), pct,
               isfinite(temp) ? temp : 0);
    /* Rows besides the grid: heading, memory bar and legend, fit, compute
     * bar and the blank lines between. A tall picture gives the roofline
     * the rows the grid does not need; a short one its verdict line. */
    enum { FIXED_ROWS = 7, NOTE_ROWS = 2 };
    int roof_h = in.h - FIXED_ROWS - NOTE_ROWS - 1;
    roof_h = roof_h < ROOFLINE_MIN_H ? 1 : roof_h > ROOFLINE_MAX_H ? ROOFLINE_MAX_H : roof_h;
    struct accel_notes n;
    accel_notes(r, in, &n);
    int notes = n.rows;
    int grid_h = in.h - FIXED_ROWS + 1 - roof_h - notes;
    if (grid_h < 1)
        grid_h = 1;
    int per = 1;
    /* Identical devices share one load; the grid shows how many there are
     * and which are down. */
    bool hot = v->sim ? v->live->throttle < 0.999 : r->power.throttled;
    y += pic_cells(y, in.x, in.w, grid_h, r->devices, r->devices, v->live->failed_devices,
                   hot ? ROLE_WARN : theme_role_for_util(util), &per);
    if (hot)
        draw_textf(y++, in.x, in.w, ROLE_WARN, "%s hot: throttled", g->device_hot);
    if (n.clock[0]) /* y2026: the power-limited clock */
        y = wrap_from(in, y, ROLE_WARN, n.clock);
    if (n.prec[0])
        y = wrap_from(in, y, ROLE_DIM, n.prec);
    if (per > 1)
        draw_textf(y++, in.x, in.w, ROLE_DIM, "each %s = %d devices", g->device, per);
    if (v->live->failed_devices)
        draw_textf(y++, in.x, in.w, ROLE_FAILED,
                   "%s %d failed: restarting from the last checkpoint", g->device_failed,
                   v->live->failed_devices);
    const struct memory_report *m = &r->memory;
    /* Below: the memory bar and legend, the host memory, the verdict and
     * the compute bar; the blank rows between them only where they fit. */
    int below = 4 + (m->host_offload_gb > 0), spare = in.y + in.h - y - below;
    y = memory_rows(in, y + (spare > 0), m);
    if (y < 0)
        return;
    y++;
    if (m->host_offload_gb > 0 && y < in.y + in.h) /* y2026: offloaded activations */
        host_memory_row(v, in, y++);
    draw_textf(y++, in.x, in.w, m->fits ? ROLE_OK : ROLE_FAILED, "%s %s",
               m->fits ? g->pass : g->fail,
               m->fits ? "fits in device memory" : "does not fit: try ZeRO 3, recompute or TP");
    /* Achieved against peak: the roofline's verdict for the matrix math
     * (below it, when a row is left). */
    if (in.y + in.h - y > 2)
        y++;
    if (!r->runnable) {
        draw_text(y, in.x, in.w, ROLE_FAILED, "cannot run: no compute rate");
        return;
    }
    int used = draw_textf(y, in.x, in.w, ROLE_TEXT, "compute %.0f of %.0f TFLOP/s ",
                          view_live_util(v, r->tflops_per_device), r->peak_tflops);
    draw_bar(y, in.x + used, in.w - used,
             r->peak_tflops > 0 ? view_live_util(v, r->tflops_per_device) / r->peak_tflops : 0,
             ROLE_PART_COMPUTE, ROLE_DIM);
    y++;
    int left = in.y + in.h - y;
    if (left >= ROOFLINE_MIN_H)
        y++, left--;
    if (left > 0)
        pic_roofline(v, (struct rect){y, in.x, left, in.w});
}
