/* view_overview: the five stage boxes, the arrows with moving batches and
 * queue gauges, the bottleneck verdict and the metrics strip; plus the
 * title line, footer and caption shared with the stage views. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "keys.h"
#include "pictures.h"
#include "schedule.h"
#include "theme.h"
#include "units.h"
#include "views.h"

enum {
    BOX_PAD = 2,  /* border + one space inside a box */
    LABEL_W = 17, /* metric labels before a sparkline or bar */
    SPARK_H_MAX = 6,
    BOX_SUMMARY_ROWS = 6,  /* figures at the top of a box */
    BOX_PICTURE_MIN = 5,   /* rows a picture needs inside a box */
    METRIC_FIXED_ROWS = 4, /* breakdown, legend, compute/memory, power rows */
};

static const char *const arrow_words[ARROW_COUNT][2] = {
    {"batch", "loading"}, {"task", "distrib."}, {"gradient", "sync"}, {"system", "support"}};
static const char *const phase_words[SIM_PHASE_COUNT] = {
    [SIM_PHASE_WAITING_FOR_DATA] = "waiting for data",
    [SIM_PHASE_FORWARD] = "forward",
    [SIM_PHASE_BACKWARD] = "backward",
    [SIM_PHASE_SYNC] = "gradient sync",
    [SIM_PHASE_OPTIMIZER] = "optimizer",
    [SIM_PHASE_CHECKPOINT] = "checkpoint",
    [SIM_PHASE_RESTARTING] = "restarting",
};

/* ---- stage boxes ---- */

static int live_bottleneck(const struct view_ctx *v)
{
    char why[8];
    bool live;
    return view_bottleneck(v, why, sizeof why, &live);
}

static enum theme_role box_role(const struct view_ctx *v, int s)
{
    int b = live_bottleneck(v);
    if (b < 0)
        return ROLE_BORDER;
    if (b == s)
        return ROLE_BOTTLENECK;
    return theme_role_for_util(v->live->stage_util[s]);
}

static struct rect box_frame(const struct view_ctx *v, struct view_out *out, int s)
{
    const struct glyphs *g = glyphs_active();
    struct rect b = v->lay->box[s];
    bool bottleneck = live_bottleneck(v) == s;
    enum theme_role role = box_role(v, s);
    char title[96];
    /* The stage table's caps, or its brief form where the box is too
     * narrow for them (beside the BOTTLENECK word when it shows). */
    int room = b.w - 4 - (bottleneck && b.w > 30 ? draw_width(" BOTTLENECK ") + 2 : 0);
    for (int brief = 0; brief < 2; brief++) {
        snprintf(title, sizeof title, "%s%d %s%s%s", v->selected_box == s ? g->selector : "", s + 1,
                 brief ? stage_table[s].brief : stage_table[s].caps, bottleneck ? " " : "",
                 bottleneck ? g->bottleneck : "");
        if (draw_width(title) <= room)
            break;
    }
    draw_box(&b, role, bottleneck || v->selected_box == s, title,
             bottleneck ? ROLE_BOTTLENECK : ROLE_HEADING);
    if (bottleneck && b.w > 30) {
        const char *word = " BOTTLENECK ";
        draw_text(b.y, b.x + b.w - draw_width(word) - 2, draw_width(word), ROLE_BOTTLENECK, word);
    }
    hit_add(out->hits, b.y, b.x, b.h, b.w, ACT_OPEN, s);
    struct rect in = {b.y + 1, b.x + BOX_PAD, b.h - 2, b.w - 2 * BOX_PAD};
    return in;
}

/* A utilization bar with its percentage after it ("warming up" until the
 * first whole step). */
static void util_line(const struct view_ctx *v, int y, int x, int w, double util,
                      enum theme_role role)
{
    char pct[16];
    if (view_warming(v)) {
        draw_text(y, x, w, ROLE_DIM, "warming up");
        return;
    }
    format_percent(pct, sizeof pct, util);
    view_mark_settling(v, pct, sizeof pct);
    int pw = draw_width(pct) + 1;
    draw_bar(y, x, w - pw, util, role, ROLE_DIM);
    draw_text(y, x + w - pw + 1, pw, ROLE_VALUE, pct);
}

static void draw_data_box(const struct view_ctx *v, struct view_out *out)
{
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    struct rect in = box_frame(v, out, STAGE_DATA);
    char a[32], b[32];
    const struct storage *st = s->data.source == DATA_LOCAL && v->res->local_storage
                                   ? v->res->local_storage
                                   : v->res->storage;
    format_si(a, sizeof a, r->stages.storage_bw_gbs * 1e9, "B/s");
    draw_textf(in.y, in.x, in.w, ROLE_TEXT, "%s %s", st ? st->head.id : "storage", a);
    format_si(b, sizeof b, r->stages.need_bw_gbs * 1e9, "B/s");
    draw_textf(in.y + 1, in.x, in.w, ROLE_DIM, "need %s", b);
    /* Each line in the longest wording that fits: no figure is cut. */
    char hit[16], w0[64], w1[64], w2[64];
    format_percent(hit, sizeof hit, s->data.cache_hit);
    snprintf(w0, sizeof w0, "cache %s  ahead %d", hit, s->data.prefetch_batches);
    snprintf(w1, sizeof w1, "cache %s ahead %d", hit, s->data.prefetch_batches);
    snprintf(w2, sizeof w2, "cache %s", hit);
    view_draw_fitting(in.y + 2, in.x, in.w, ROLE_DIM, (const char *const[]){w0, w1, w2}, 3);
    util_line(v, in.y + 3, in.x, in.w, v->live->stage_util[STAGE_DATA],
              theme_role_for_util(v->live->stage_util[STAGE_DATA]));
    if (in.h > 4) {
        char sv[16];
        format_percent(sv, sizeof sv, r->starvation);
        snprintf(w0, sizeof w0, "GPUs starved %s", sv);
        snprintf(w1, sizeof w1, "starved %s", sv);
        view_draw_fitting(in.y + 4, in.x, in.w, r->starvation > 0.05 ? ROLE_WARN : ROLE_DIM,
                          (const char *const[]){w0, w1}, 2);
    }
    if (in.h > 5) {
        char t[32];
        format_duration(t, sizeof t, r->stages.read_s);
        snprintf(w0, sizeof w0, "read a batch %s", t);
        snprintf(w1, sizeof w1, "read %s", t);
        view_draw_fitting(in.y + 5, in.x, in.w, ROLE_DIM, (const char *const[]){w0, w1}, 2);
    }
}

static void draw_cpu_box(const struct view_ctx *v, struct view_out *out)
{
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    struct rect in = box_frame(v, out, STAGE_CPUS);
    char name[96];
    view_short_name(v->res->cpu ? v->res->cpu->head.name : s->cluster.node.cpu, name, sizeof name);
    draw_textf(in.y, in.x, in.w, ROLE_TEXT, "%dx %s", s->cluster.node.cpu_sockets, name);
    int workers = s->data.loader_workers_per_device * s->cluster.node.accelerators_per_node;
    char noun[16], w0[64], w1[64];
    snprintf(w0, sizeof w0, "%d loader %s", workers,
             format_noun(workers, "workers", noun, sizeof noun));
    snprintf(w1, sizeof w1, "%d %s", workers, format_noun(workers, "loaders", noun, sizeof noun));
    view_draw_fitting(in.y + 1, in.x, in.w, ROLE_DIM, (const char *const[]){w0, w1}, 2);
    /* Two different counts, each named: the loader cores in use (an
     * average over a step) and the gauge, the share of the step that
     * feeding the devices (preparing or copying a batch) takes. */
    char busy[16], line[64];
    view_fmt_cores(busy, sizeof busy, view_live_cores_busy(v));
    /* The longest wording that fits the box: the count is never cut. */
    static const char *const wording[] = {"cores used %s of %.0f", "cores used %s/%.0f",
                                          "cores %s/%.0f"};
    for (size_t i = 0; i < sizeof wording / sizeof wording[0]; i++) {
        snprintf(line, sizeof line, wording[i], busy, r->stages.cpu_cores_total);
        if (draw_width(line) <= in.w)
            break;
    }
    draw_text(in.y + 2, in.x, in.w, ROLE_DIM, line);
    int lw = draw_text(in.y + 3, in.x, in.w, ROLE_DIM, "feed ");
    util_line(v, in.y + 3, in.x + lw, in.w - lw, v->live->stage_util[STAGE_CPUS],
              theme_role_for_util(v->live->stage_util[STAGE_CPUS]));
    if (in.h > 4) {
        const struct glyphs *g = glyphs_active();
        draw_textf(in.y + 4, in.x, in.w, r->host_ram_ok ? ROLE_OK : ROLE_WARN, "%s host RAM %s",
                   r->host_ram_ok ? g->pass : g->fail, r->host_ram_ok ? "ok" : "too small");
    }
    if (in.h > 5) {
        char t[32];
        format_duration(t, sizeof t, r->stages.preprocess_s);
        draw_textf(in.y + 5, in.x, in.w, ROLE_DIM, "prepare a batch %s", t);
    }
}

static void draw_accel_box(const struct view_ctx *v, struct view_out *out)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    struct rect in = box_frame(v, out, STAGE_ACCELERATORS);
    char name[96];
    view_short_name(v->res->accel ? v->res->accel->head.name : s->cluster.node.accelerator, name,
                    sizeof name);
    draw_textf(in.y, in.x, in.w, ROLE_TEXT, "%dx %s %s", r->devices, name,
               train_precision_names[s->training.precision]);
    util_line(v, in.y + 1, in.x, in.w, v->live->stage_util[STAGE_ACCELERATORS],
              theme_role_for_util(v->live->stage_util[STAGE_ACCELERATORS]));
    char mfu[16];
    format_percent(mfu, sizeof mfu, view_live_util(v, r->mfu));
    int ph = v->live->phase;
    const char *pw = v->sim && ph >= 0 && ph < (int)(sizeof phase_words / sizeof phase_words[0])
                         ? phase_words[ph]
                         : "";
    /* A setup that cannot run does no useful work: no MFU to show. */
    int used = r->runnable ? draw_textf(in.y + 2, in.x, in.w, ROLE_VALUE, "MFU %s  ", mfu)
                           : draw_text(in.y + 2, in.x, in.w, ROLE_FAILED, "cannot run");
    draw_text(in.y + 2, in.x + used, in.w - used,
              ph == SIM_PHASE_WAITING_FOR_DATA && v->sim ? ROLE_WARN : ROLE_DIM, pw);
    char mem[48];
    char use_gb[16], cap_gb[16];
    format_significant(use_gb, sizeof use_gb, r->memory.per_device_gb, 3);
    format_significant(cap_gb, sizeof cap_gb, r->memory.capacity_gb, 3);
    snprintf(mem, sizeof mem, "mem %s/%s GB", use_gb, cap_gb);
    used = draw_text(in.y + 3, in.x, in.w, r->memory.fits ? ROLE_TEXT : ROLE_FAILED, mem);
    if (!r->memory.fits)
        draw_textf(in.y + 3, in.x + used, in.w - used, ROLE_FAILED, " %s too big", g->fail);
    if (in.h > 4 && v->live->failed_devices > 0)
        draw_textf(in.y + 4, in.x, in.w, ROLE_FAILED, "%s %d failed, restarting", g->device_failed,
                   v->live->failed_devices);
    else if (in.h > 4)
        draw_textf(in.y + 4, in.x, in.w, ROLE_DIM, "peak %.0f TFLOP/s", r->peak_tflops);
    if (in.h > 5) {
        char t[32];
        format_duration(t, sizeof t, r->step_time_s);
        draw_textf(in.y + 5, in.x, in.w, ROLE_DIM, "one step %s", t);
    }
}

static void draw_net_box(const struct view_ctx *v, struct view_out *out)
{
    const struct model_report *r = v->report;
    struct rect in = box_frame(v, out, STAGE_INTERCONNECT);
    char bw[32], t[32], exp[32];
    const struct link *l = v->res->intra_link;
    char w0[128], w1[128];
    format_si(bw, sizeof bw, l ? l->bw_gbs * 1e9 : 0, "B/s");
    snprintf(w0, sizeof w0, "%s %s/dir", l ? l->head.id : "-", bw);
    snprintf(w1, sizeof w1, "%s %s", l ? l->head.id : "-", bw);
    view_draw_fitting(in.y, in.x, in.w, ROLE_TEXT, (const char *const[]){w0, w1, bw}, 3);
    if (r->cp > 1 || r->ep > 1) /* context and expert parallelism when used */
        draw_textf(in.y + 1, in.x, in.w, ROLE_DIM, "TP%d CP%d PP%d EP%d DP%d", r->tp, r->cp, r->pp,
                   r->ep, r->dp);
    else
        draw_textf(in.y + 1, in.x, in.w, ROLE_DIM, "TP%d PP%d DP%d", r->tp, r->pp, r->dp);
    format_duration(t, sizeof t, r->stages.dp_comm_s);
    format_duration(exp, sizeof exp, r->breakdown.dp_comm_exposed);
    snprintf(w0, sizeof w0, "%s %s", view_dp_traffic_label(v, true), t);
    snprintf(w1, sizeof w1, "sync %s", t);
    view_draw_fitting(in.y + 2, in.x, in.w, ROLE_DIM, (const char *const[]){w0, w1}, 2);
    util_line(v, in.y + 3, in.x, in.w, v->live->stage_util[STAGE_INTERCONNECT],
              theme_role_for_util(v->live->stage_util[STAGE_INTERCONNECT]));
    if (in.h > 4 && v->res->nic) {
        char nb[32];
        format_si(nb, sizeof nb, v->res->nic->bw_gbs * 1e9, "B/s");
        snprintf(w0, sizeof w0, "NIC %s %s", v->res->nic->head.id, nb);
        snprintf(w1, sizeof w1, "NIC %s", nb);
        view_draw_fitting(in.y + 4, in.x, in.w, ROLE_DIM, (const char *const[]){w0, w1}, 2);
    }
    if (in.h > 5)
        draw_textf(in.y + 5, in.x, in.w, ROLE_DIM, "exposed %s (%s)", exp,
                   allreduce_names[v->setup->training.allreduce]);
}

static void draw_infra_box(const struct view_ctx *v, struct view_out *out)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    struct rect in = box_frame(v, out, STAGE_INFRASTRUCTURE);
    char it[32], fac[32], cost[32];
    format_si(it, sizeof it, view_live_it_kw(v) * 1e3, "W");
    format_si(fac, sizeof fac, view_live_sample(v, SERIES_FACILITY_KW, r->power.facility_kw) * 1e3,
              "W");
    draw_textf(in.y, in.x, in.w, ROLE_TEXT, "IT %s  facility %s  PUE %.2f", it, fac,
               isfinite(r->power.pue) ? r->power.pue : 0);
    double temp = v->sim ? v->live->rack_temp_c : r->power.rack_temp_c;
    bool throttled = v->sim ? v->live->throttle < 0.999 : r->power.throttled;
    int used = draw_textf(in.y + 1, in.x, in.w, ROLE_TEXT, "rack %.1f/%.0f kW %s %.0f C ",
                          view_live_rack_kw(v), r->power.rack_cooling_limit_kw, s->facility.cooling,
                          isfinite(temp) ? temp : 0);
    if (throttled)
        draw_textf(in.y + 1, in.x + used, in.w - used, ROLE_WARN, "%s THROTTLED", g->warn);
    else
        draw_text(in.y + 1, in.x + used, in.w - used, ROLE_OK, "no throttling");
    char ck[32];
    format_duration(ck, sizeof ck, r->reliability.checkpoint_interval_min * 60);
    char gp[16];
    format_percent(gp, sizeof gp, r->reliability.goodput);
    draw_textf(in.y + 2, in.x, in.w, ROLE_DIM, "%.2f stops/day  ckpt %s  goodput %s",
               r->reliability.interruptions_per_day, ck, gp);
    view_cost_per_hour(v, cost, sizeof cost);
    double heat = r->power.rack_cooling_limit_kw > 0
                      ? view_live_rack_kw(v) / r->power.rack_cooling_limit_kw
                      : 0;
    used = draw_textf(in.y + 3, in.x, in.w, ROLE_VALUE, "%s  ", cost);
    used += draw_text(in.y + 3, in.x + used, in.w - used, ROLE_DIM, "heat ");
    char hp[16];
    format_percent(hp, sizeof hp, heat);
    int pw = draw_width(hp); /* the whole figure ("100.0%"), the bar takes the rest */
    int bw = in.w - used - pw - 1;
    if (bw > 0) {
        draw_bar(in.y + 3, in.x + used, bw, heat,
                 heat > 1 ? ROLE_FAILED : theme_role_for_util(heat), ROLE_DIM);
        draw_text(in.y + 3, in.x + used + bw + 1, pw, ROLE_VALUE, hp);
    }
    if (in.h > 4 && r->runnable) {
        char energy[32];
        format_si(energy, sizeof energy, v->counters->energy_j / 3600.0, "Wh");
        draw_textf(in.y + 4, in.x, in.w, ROLE_DIM, "failures %llu  restarts %llu  energy %s",
                   (unsigned long long)v->counters->failures,
                   (unsigned long long)v->counters->restarts, energy);
    }
}

/* ---- arrows ---- */

/* Batches on a horizontal track of n cells ending in an arrow head (on the
 * right, or on the left when `left`). When the flow stops with the queue
 * ahead full, batches wait at the head (back-pressure, in the queue's
 * colour); when it stops with nothing to carry, the track is empty. */
static void draw_track(int y, int x, int n, double phase, double rate, double queue_frac,
                       bool running, bool left)
{
    const struct glyphs *g = glyphs_active();
    if (n < 2)
        return;
    int len = n - 1;
    int x0 = left ? x + 1 : x; /* the first track cell */
    draw_repeat(y, x0, len, ROLE_DIM, g->track);
    draw_text(y, left ? x : x + len, 1, ROLE_FLOW, left ? g->arrow_left : g->arrow_right);
    if (!running)
        return;
    enum { BATCHES = 3 };
    /* Cell k counted from the track's start (the far end from the head). */
#define TRACK_CELL(k) (left ? x0 + len - 1 - (k) : x0 + (k))
    if (!(rate > 0)) {
        if (queue_frac >= 0.99)
            for (int k = 0; k < BATCHES && k < len; k++)
                draw_text(y, TRACK_CELL(len - 1 - k), 1, ROLE_QUEUE, g->batch);
        return;
    }
    for (int k = 0; k < BATCHES; k++) {
        double p = fmod(phase + (double)k / BATCHES, 1.0);
        int cell = (int)(p * len);
        if (cell >= 0 && cell < len)
            draw_text(y, TRACK_CELL(cell), 1, ROLE_FLOW, g->batch);
    }
#undef TRACK_CELL
}

static void draw_lane(const struct view_ctx *v, struct view_out *out, int a, int qi)
{
    (void)out;
    struct rect r = v->lay->arrow[a];
    int inner_w = r.w - 2;
    int x = r.x + 1;
    int y = r.y + 1;
    draw_center(y, x, inner_w, ROLE_DIM, arrow_words[a][0]);
    draw_center(y + 1, x, inner_w, ROLE_DIM, arrow_words[a][1]);
    double frac = 0;
    if (qi >= 0 && v->live->queue_cap[qi] > 0)
        frac = v->live->queue_fill[qi] / v->live->queue_cap[qi];
    draw_track(y + 2, x, inner_w, v->anim_phase[a], v->anim_rate[a], frac,
               v->sim != NULL && !v->paused, false);
    if (qi >= 0 && r.h > 4) {
        draw_bar(y + 3, x, inner_w, frac, ROLE_QUEUE, ROLE_DIM);
        if (r.h > 5)
            draw_textf(y + 4, x, inner_w, ROLE_DIM, "q %.0f/%.0f", v->live->queue_fill[qi],
                       v->live->queue_cap[qi]);
    }
}

static void draw_sync_lane(const struct view_ctx *v, struct view_out *out)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    struct rect r = v->lay->arrow[ARROW_GRADIENT_SYNC];
    bool syncing = view_syncing(v);
    char text[96];
    /* Down into the interconnect on the left, back up on the right: the
     * reading order 3 -> 4. While the devices exchange gradients (or
     * ZeRO-3 weights) a batch goes down and comes back up. */
    int k = syncing ? (int)fmod(v->wall_s * 4, 2) : -1;
    snprintf(text, sizeof text, "%s%s gradient sync %s%s", g->arrow_down, k == 0 ? g->batch : " ",
             k == 1 ? g->batch : " ", g->arrow_up);
    draw_center(r.y + (r.h - 1) / 2, r.x, r.w, syncing ? ROLE_FLOW : ROLE_DIM, text);
}

static void draw_support_lane(const struct view_ctx *v, struct view_out *out)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    struct rect r = v->lay->support;
    int y = r.y + (r.h - 1) / 2;
    for (int s = 0; s < 2; s++) {
        struct rect b = v->lay->box[s];
        char text[64];
        snprintf(text, sizeof text, "%s system support %s", g->arrow_up, g->arrow_up);
        draw_center(y, b.x, b.w, ROLE_DIM, text);
    }
    /* The heat of the machines goes to the cooling on the left: the arrow
     * also carries the reading order on, 4 -> 5, round to system support
     * (the arrows up into 1 and 2). */
    struct rect a = v->lay->arrow[ARROW_SYSTEM_SUPPORT];
    int x = a.x + 1, w = a.w - 2;
    draw_center(a.y + 1, x, w, ROLE_DIM, "heat to");
    draw_center(a.y + 2, x, w, ROLE_DIM, "cooling");
    draw_track(a.y + 3, x, w, v->anim_phase[ARROW_SYSTEM_SUPPORT],
               v->anim_rate[ARROW_SYSTEM_SUPPORT], 0, v->sim != NULL && !v->paused, true);
}

/* ---- verdict and metrics ---- */

/* The verdict: its row, or two where the reason needs them and the
 * sparklines can give one. Returns the rows used. */
static int draw_verdict(const struct view_ctx *v, int rows)
{
    struct rect vr = v->lay->verdict;
    return view_draw_verdict(v, vr.y, vr.x + 1, vr.w - 2, rows, true);
}

enum { PART_COMPUTE, PART_COMM, PART_BUBBLE, PART_WAIT, PART_DATA, PART_OTHER, PART_COUNT };
static const char *const part_names[PART_COUNT] = {"compute",    "comm", "bubble",
                                                   "stragglers", "data", "other"};
static const enum theme_role part_roles[PART_COUNT] = {ROLE_PART_COMPUTE, ROLE_PART_COMM,
                                                       ROLE_PART_BUBBLE,  ROLE_PART_WAIT,
                                                       ROLE_PART_DATA,    ROLE_PART_OTHER};

static void group_breakdown(const struct model_report *r, double *parts)
{
    const struct step_breakdown *b = &r->breakdown;
    parts[PART_COMPUTE] = b->compute + b->recompute;
    parts[PART_COMM] = b->tp_comm + b->cp_comm + b->ep_comm + b->dp_comm_exposed + b->pp_p2p;
    /* The pipeline bubble alone (sched_bubble_s, as eval and the pipeline
     * picture); waiting for the slowest device is its own part. */
    parts[PART_BUBBLE] = sched_bubble_s(r);
    parts[PART_WAIT] = b->straggler;
    parts[PART_DATA] = b->data_read + b->preprocess + b->host_to_device;
    parts[PART_OTHER] = b->optimizer + b->overhead;
}

static void draw_breakdown(int y, int x, int w, const struct model_report *r, bool legend_row,
                           int ly)
{
    double parts[PART_COUNT];
    group_breakdown(r, parts);
    char st[32];
    format_duration(st, sizeof st, r->step_time_s);
    int used = draw_textf(y, x, LABEL_W, ROLE_TEXT, "step %s", st);
    (void)used;
    draw_stacked(y, x + LABEL_W, w - LABEL_W, parts, part_roles, PART_COUNT, r->step_time_s);
    if (!legend_row)
        return;
    /* The breakdown is the model's: what a step takes in the steady state
     * (or would take, when the setup cannot run). */
    draw_text(ly, x, LABEL_W - 1, ROLE_DIM, r->runnable ? "steady state" : "if it could run");
    int lx = x + LABEL_W;
    for (int i = 0; i < PART_COUNT; i++) {
        char pct[16];
        if (!(parts[i] > 0) && i != PART_COMPUTE)
            continue; /* no bubble without a pipeline, no data wait when fed */
        format_percent(pct, sizeof pct, r->step_time_s > 0 ? parts[i] / r->step_time_s : 0);
        char item[48];
        snprintf(item, sizeof item, " %s %s", part_names[i], pct);
        if (lx + 1 + draw_width(item) > x + w)
            break; /* whole items only, never a swatch without its name */
        lx += draw_text(ly, lx, x + w - lx, part_roles[i], draw_part_fill((size_t)i, true));
        lx += draw_textf(ly, lx, x + w - lx, ROLE_DIM, " %s %s  ", part_names[i], pct);
    }
}

/* "top 105 k" under a sparkline's label when it has the rows. */
static void spark_scale(int y, int x, int spark_h, size_t n, double top, const char *unit)
{
    if (spark_h < 3 || !(top > 0) || n == 0)
        return;
    char t[32];
    format_si(t, sizeof t, top, unit);
    draw_textf(y + 2, x, LABEL_W, ROLE_DIM, "top %s", t);
}

/* Throughput and power with sparklines, on the metrics strip's top rows. */
static void draw_sparklines(const struct view_ctx *v, struct view_out *out, int spark_h)
{
    const struct model_report *r = v->report;
    struct rect m = v->lay->metrics;
    int half = m.w / 2;
    int x = m.x + 1;
    char tp[32], pw[32];
    double tps;
    size_t n = view_live_throughput(v, out, (size_t)(half - LABEL_W - 1), &tps);
    bool warming = view_warming(v);
    view_live_text(v, tps, "", tp, sizeof tp);
    draw_textf(m.y, x, LABEL_W, ROLE_VALUE, "%s %s",
               v->setup->model.kind == MODEL_GENERIC ? "samples/s" : "tokens/s", warming ? "" : tp);
    /* "warming up" on its own row where there is one. */
    if (warming && spark_h < 2) /* one row: "tokens/s warming" */
        draw_textf(m.y, x, LABEL_W, ROLE_DIM, "%s warming",
                   v->setup->model.kind == MODEL_GENERIC ? "samples/s" : "tokens/s");
    draw_text(m.y + 1, x, LABEL_W, ROLE_DIM, warming ? tp : spark_h > 1 ? "throughput" : "");
    double top = view_spark_top(out->series, n, r->tokens_per_s);
    draw_spark(m.y, x + LABEL_W, half - LABEL_W - 1, spark_h, out->series, n, top, ROLE_SPARK_TPUT);
    spark_scale(m.y, x, spark_h, n, top, "");
    n = view_series(v, out, SERIES_IT_KW, (size_t)(m.w - half - LABEL_W - 1));
    view_live_text(v, view_live_it_kw(v) * 1e3, "W", pw, sizeof pw);
    draw_textf(m.y, half, LABEL_W, ROLE_VALUE, "IT power %s", warming ? "" : pw);
    if (warming && spark_h < 2)
        draw_text(m.y, half, LABEL_W, ROLE_DIM, "IT power warming");
    draw_text(m.y + 1, half, LABEL_W, ROLE_DIM, warming ? pw : spark_h > 1 ? "power" : "");
    for (size_t i = 0; i < n; i++)
        out->series[i] *= 1e3; /* kW to W, for the scale's prefix */
    top = view_spark_top(out->series, n, r->power.it_kw * 1e3);
    draw_spark(m.y, half + LABEL_W, m.w - half - LABEL_W - 1, spark_h, out->series, n, top,
               ROLE_SPARK_POWER);
    spark_scale(m.y, half, spark_h, n, top, "W");
}

static void draw_metrics(const struct view_ctx *v, struct view_out *out)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = v->report;
    struct rect m = v->lay->metrics;
    int spark_h = m.h - METRIC_FIXED_ROWS;
    if (spark_h < 1)
        spark_h = 1;
    if (spark_h > SPARK_H_MAX)
        spark_h = SPARK_H_MAX;
    int x = m.x + 1, w = m.w - 2;
    draw_sparklines(v, out, spark_h);
    int y = m.y + spark_h;
    /* Step-time breakdown and its legend (or a status message). */
    draw_breakdown(y, x, w, r, !v->status[0], y + 1);
    if (v->status[0])
        draw_textf(y + 1, x, w, ROLE_WARN, "%s %s", g->bullet, v->status);
    /* Compute and memory. */
    char mfu[16], hfu[16];
    format_percent(mfu, sizeof mfu, view_live_util(v, r->mfu));
    format_percent(hfu, sizeof hfu, view_live_util(v, r->hfu));
    int used;
    if (r->runnable) {
        used = draw_textf(y + 2, x, w, ROLE_VALUE, "MFU %s", mfu);
        used += draw_textf(y + 2, x + used, w - used, ROLE_DIM, "  HFU %s  %.0f TFLOP/s/device  ",
                           hfu, view_live_util(v, r->tflops_per_device));
    } else {
        used = draw_text(y + 2, x, w, ROLE_FAILED, "cannot run: no MFU or TFLOP/s  ");
    }
    char use_gb[16], cap_gb[16];
    format_significant(use_gb, sizeof use_gb, r->memory.per_device_gb, 3);
    format_significant(cap_gb, sizeof cap_gb, r->memory.capacity_gb, 3);
    used += draw_textf(y + 2, x + used, w - used, ROLE_TEXT, "memory %s/%s GB ", use_gb, cap_gb);
    int bw = w - used - 12;
    if (bw > 4) {
        double f = r->memory.capacity_gb > 0 ? r->memory.per_device_gb / r->memory.capacity_gb : 0;
        draw_bar(y + 2, x + used, bw, f, r->memory.fits ? ROLE_QUEUE : ROLE_FAILED, ROLE_DIM);
        used += bw;
    }
    draw_textf(y + 2, x + used, w - used, r->memory.fits ? ROLE_OK : ROLE_FAILED, " %s %s",
               r->memory.fits ? g->pass : g->fail, r->memory.fits ? "fits" : "too big");
    /* Power, heat, cost. */
    char it[32], fac[32], cost[32];
    format_si(it, sizeof it, view_live_it_kw(v) * 1e3, "W");
    format_si(fac, sizeof fac, view_live_sample(v, SERIES_FACILITY_KW, r->power.facility_kw) * 1e3,
              "W");
    view_cost_per_hour(v, cost, sizeof cost);
    used = draw_textf(y + 3, x, w, ROLE_TEXT,
                      "IT %s  facility %s  PUE %.2f  rack heat %.1f of %.0f kW ", it, fac,
                      isfinite(r->power.pue) ? r->power.pue : 0, view_live_rack_kw(v),
                      r->power.rack_cooling_limit_kw);
    double heat = r->power.rack_cooling_limit_kw > 0
                      ? view_live_rack_kw(v) / r->power.rack_cooling_limit_kw
                      : 0;
    bw = w - used - 14;
    if (bw > 12)
        bw = 12;
    if (bw > 3) {
        draw_bar(y + 3, x + used, bw, heat, heat > 1 ? ROLE_FAILED : theme_role_for_util(heat),
                 ROLE_DIM);
        used += bw;
    }
    draw_textf(y + 3, x + used, w - used, ROLE_VALUE, "  %s", cost);
}

/* Tall boxes (big screens, projectors) also show the stage's picture
 * under their figures, drawn by `picture` (the training or the serving
 * one). */
void view_draw_box_pictures(const struct view_ctx *v, struct view_out *out, view_picture_fn picture)
{
    const struct glyphs *g = glyphs_active();
    for (int s = 0; s < STAGE_COUNT; s++) {
        struct rect b = v->lay->box[s];
        struct rect in = {b.y + 1 + BOX_SUMMARY_ROWS + 1, b.x + BOX_PAD, 0, b.w - 2 * BOX_PAD};
        in.h = b.y + b.h - 1 - in.y;
        if (in.h < BOX_PICTURE_MIN)
            continue;
        draw_repeat(in.y - 1, b.x + 1, b.w - 2, ROLE_BORDER, g->h);
        picture(v, out, s, in);
    }
}

void view_overview_draw(const struct view_ctx *v, struct view_out *out)
{
    view_draw_title(v, out, "overview");
    draw_data_box(v, out);
    draw_cpu_box(v, out);
    draw_accel_box(v, out);
    draw_net_box(v, out);
    draw_infra_box(v, out);
    view_draw_box_pictures(v, out, view_stage_picture);
    draw_lane(v, out, ARROW_BATCH_LOADING, SIM_QUEUE_LOADER);
    draw_lane(v, out, ARROW_TASK_DISTRIBUTION, SIM_QUEUE_PREFETCH);
    draw_sync_lane(v, out);
    draw_support_lane(v, out);
    /* A verdict on two rows takes the sparklines' first row. */
    struct layout lay = *v->lay;
    struct view_ctx below = *v;
    below.lay = &lay;
    int spare = lay.metrics.h - METRIC_FIXED_ROWS - 1;
    int extra = draw_verdict(v, spare > 0 ? 2 : 1) - 1;
    lay.metrics.y += extra;
    lay.metrics.h -= extra;
    draw_metrics(&below, out);
    view_draw_footer(v, out, v->tour ? KEYCTX_TOUR : KEYCTX_OVERVIEW);
}
