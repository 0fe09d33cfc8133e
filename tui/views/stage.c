/* view_stage: one stage opened: its explanation (assets/stages.yaml), its
 * knobs (from the setup field table), a picture of its own, the matching
 * catalog table and a strip of live metrics. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "keys.h"
#include "theme.h"
#include "ui.h"

enum {
    KNOB_VALUE_MIN = 8, /* knob value column, arrows included */
    KNOB_ARROWS_W = 4,  /* the two arrows and their spaces */
    PIC_PAD = 2,
    CELL_W = 2,         /* one device / core cell plus a gap */
    RING_MAX = 12,      /* ring members drawn */
    PIPE_MB_MAX = 8,    /* micro-batches drawn in the pipeline schedule */
    RACK_ROWS_MAX = 8,
    LIVE_LABEL_W = 25,
};

static const char *const stage_caps[STAGE_COUNT] = {
    "1 DATA", "2 CPUs", "3 ACCELERATORS", "4 NETWORK",
    "5 INFRASTRUCTURE"}; /* short: the setup name shares the title line */
static const enum sim_series_id util_series[STAGE_COUNT] = {
    SERIES_UTIL_DATA, SERIES_UTIL_CPUS, SERIES_UTIL_ACCEL, SERIES_UTIL_NET, SERIES_UTIL_INFRA};

static struct rect inner(const struct rect *r)
{
    struct rect in = {r->y + 1, r->x + PIC_PAD, r->h - 2, r->w - 2 * PIC_PAD};
    return in;
}

/* ---- explanation ---- */

/* The explanation in r (its panel, or the whole body with `e`), scrolled
 * by text_scroll, with where it is on the bottom border ("2/5"). */
static void draw_text_panel(struct ui *u, struct rect r)
{
    const struct glyphs *g = glyphs_active();
    const struct stage_text *t = &u->texts->stage[u->stage];
    if (u->text_stage != u->stage) {
        u->text_stage = u->stage;
        u->text_scroll = 0;
    }
    for (int y = r.y; y < r.y + r.h; y++)
        draw_repeat(y, r.x, r.w, ROLE_TEXT, " ");
    draw_box(&r, ROLE_BORDER, false, t->title, ROLE_HEADING);
    char back[32];
    snprintf(back, sizeof back, " %s back ", g->arrow_left);
    int bw = draw_width(back);
    draw_text(r.y, r.x + r.w - bw - 1, bw, ROLE_KEY, back);
    hit_add(&u->hits, r.y, r.x + r.w - bw - 1, 1, bw, ACT_BACK, 0);
    struct rect in = inner(&r);
    int used = 0;
    if (t->tagline[0] && in.h > 2) {
        struct rect tl = in;
        used = draw_wrap(&tl, ROLE_DIM, t->tagline, 0);
        used++;
    }
    struct rect body = {in.y + used, in.x, in.h - used, in.w};
    if (body.h <= 0)
        return;
    struct rect none = {0, 0, 0, body.w};
    int total = draw_wrap(&none, ROLE_TEXT, t->text, 0);
    int max_scroll = total > body.h ? total - body.h : 0;
    if (u->text_scroll > max_scroll)
        u->text_scroll = max_scroll;
    draw_wrap(&body, ROLE_TEXT, t->text, u->text_scroll);
    hit_add_wheel(&u->hits, body.y, body.x, body.h, body.w, ACT_NONE, 2, ACT_TEXT_UP,
                  ACT_TEXT_DOWN);
    if (max_scroll > 0) {
        int pages = (total + body.h - 1) / body.h;
        int page = u->text_scroll >= max_scroll ? pages : u->text_scroll / body.h + 1;
        char where[48];
        snprintf(where, sizeof where, " PgDn %d/%d ", page, pages);
        int ww = draw_width(where);
        draw_text(r.y + r.h - 1, r.x + r.w - ww - 1, ww, ROLE_KEY, where);
    }
}

/* ---- knobs ---- */

static void knob_value(const struct field *f, const struct setup *s, char *shown, size_t len)
{
    char val[64];
    fields_format(f, s, val, sizeof val);
    if (f->unit && f->unit[0] && strcmp(val, "auto") != 0 && f->type != FIELD_ENUM &&
        f->type != FIELD_REF && f->type != FIELD_BOOL)
        snprintf(shown, len, "%s %s", val, f->unit);
    else if (!val[0] && f->type == FIELD_REF && f->ref_kind == CATALOG_LINK &&
             strstr(f->path, "intra"))
        snprintf(shown, len, "device's own"); /* empty: the accelerator's own link */
    else
        snprintf(shown, len, "%s", val[0] ? val : "none");
}

static void draw_knobs(struct ui *u)
{
    const struct glyphs *g = glyphs_active();
    struct ui_knobs *k = &u->knobs[u->stage];
    struct rect r = u->lay.knobs;
    draw_box(&r, ROLE_BORDER_SEL, false, "knobs", ROLE_HEADING);
    struct rect in = {r.y + 1, r.x + 1, r.h - 2, r.w - 2};
    if (k->count == 0 || in.h <= 0)
        return;
    int sel = u->knob_sel[u->stage];
    if (sel >= k->count)
        sel = u->knob_sel[u->stage] = 0;
    /* One line for the selected knob's help when there is room. */
    int help_rows = in.h > 3 ? (in.h > k->count + 2 ? 2 : 1) : 0;
    int rows = in.h - help_rows;
    int first = 0;
    if (sel >= rows)
        first = sel - rows + 1;
    const struct setup *s = ui_setup(u);
    /* The value column is as wide as the widest visible value. */
    int vw = KNOB_VALUE_MIN;
    for (int i = first; i < k->count && i - first < rows; i++) {
        char shown[96];
        knob_value(k->field[i], s, shown, sizeof shown);
        if (draw_width(shown) + KNOB_ARROWS_W > vw)
            vw = draw_width(shown) + KNOB_ARROWS_W;
    }
    if (vw > in.w / 2)
        vw = in.w / 2;
    for (int i = first; i < k->count && i - first < rows; i++) {
        const struct field *f = k->field[i];
        int y = in.y + i - first;
        bool on = i == sel;
        char label[64], shown[96];
        knobs_label(f, label, sizeof label);
        knob_value(f, s, shown, sizeof shown);
        if (on)
            draw_repeat(y, in.x, in.w, ROLE_KNOB_SEL, " ");
        enum theme_role role = on ? ROLE_KNOB_SEL : ROLE_TEXT;
        draw_text(y, in.x, 1, role, on ? g->selector : " ");
        draw_text(y, in.x + 2, in.w - vw - 3, role, label);
        int vx = in.x + in.w - vw;
        draw_text(y, vx, 1, on ? ROLE_KNOB_SEL : ROLE_KEY, g->dec);
        draw_center(y, vx + 1, vw - 2, on ? ROLE_KNOB_SEL : ROLE_VALUE, shown);
        draw_text(y, vx + vw - 1, 1, on ? ROLE_KNOB_SEL : ROLE_KEY, g->inc);
        /* Mouse: the line selects, the wheel turns, the arrows step. */
        hit_add_wheel(&u->hits, y, in.x, 1, in.w, ACT_KNOB_PICK, i + 1, ACT_KNOB_INC,
                      ACT_KNOB_DEC);
        hit_add_wheel(&u->hits, y, vx, 1, 1, ACT_KNOB_DEC, i + 1, ACT_KNOB_INC, ACT_KNOB_DEC);
        hit_add_wheel(&u->hits, y, vx + vw - 1, 1, 1, ACT_KNOB_INC, i + 1, ACT_KNOB_INC,
                      ACT_KNOB_DEC);
    }
    if (help_rows) {
        const struct field *f = k->field[sel];
        char desc[64], help[320];
        fields_describe_type(f, desc, sizeof desc);
        snprintf(help, sizeof help, "%s (%s)", f->help, f->path);
        struct rect hr = {in.y + in.h - help_rows, in.x + 1, help_rows, in.w - 2};
        draw_wrap(&hr, ROLE_DIM, help, 0);
    }
}

/* ---- pictures ---- */

/* A queue drawn as one cell per slot when it fits, else as a bar. */
static void draw_queue(int y, int x, int w, const char *label, double fill, double cap)
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

static void picture_data(struct ui *u, struct rect in)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = ui_report(u);
    const struct setup *s = ui_setup(u);
    char a[32], b[32], c[32];
    int y = in.y;
    draw_text(y++, in.x, in.w, ROLE_HEADING, "storage hierarchy (fast and small at the top)");
    fmt_pct(a, sizeof a, s->data.cache_hit);
    draw_textf(y++, in.x, in.w, s->data.cache_hit > 0 ? ROLE_TEXT : ROLE_DIM,
               "  host RAM cache     hit rate %s", a);
    if (u->res.local_storage) {
        fmt_si(b, sizeof b, u->res.local_storage->read_gbs * 1e9, "B/s");
        draw_textf(y++, in.x, in.w, s->data.source == DATA_LOCAL ? ROLE_TEXT : ROLE_DIM,
                   "  local %-12s %s per device%s", u->res.local_storage->head.id, b,
                   s->data.source == DATA_LOCAL ? "  < reading" : "");
    }
    if (u->res.storage) {
        fmt_si(b, sizeof b, r->stages.storage_bw_gbs * 1e9, "B/s");
        draw_textf(y++, in.x, in.w, s->data.source == DATA_SHARED ? ROLE_TEXT : ROLE_DIM,
                   "  shared %-11s %s in all%s", u->res.storage->head.id, b,
                   s->data.source == DATA_SHARED ? "  < reading" : "");
    }
    fmt_si(a, sizeof a, r->stages.storage_bw_gbs * 1e9, "B/s");
    fmt_si(c, sizeof c, r->stages.need_bw_gbs * 1e9, "B/s");
    double need = r->stages.storage_bw_gbs > 0 ? r->stages.need_bw_gbs / r->stages.storage_bw_gbs : 0;
    int used = draw_textf(y, in.x, in.w, ROLE_TEXT, "  devices need %s of %s ", c, a);
    if (in.w - used > 8)
        draw_bar(y, in.x + used, in.w - used, need, need > 1 ? ROLE_FAILED : ROLE_QUEUE, ROLE_DIM);
    y += 2;
    if (y >= in.y + in.h)
        return;
    draw_text(y++, in.x, in.w, ROLE_HEADING, "prefetch pipeline (batches waiting)");
    static const char *const qn[3] = {"  loaders", "  prefetch", "  device"};
    for (int i = 0; i < 3 && y < in.y + in.h; i++)
        draw_queue(y++, in.x, in.w, qn[i], u->live.queue_fill[i], u->live.queue_cap[i]);
    if (y < in.y + in.h) {
        fmt_pct(a, sizeof a, r->starvation);
        bool starving = u->sim && u->live.phase == 0;
        draw_textf(y, in.x, in.w, starving ? ROLE_WARN : ROLE_DIM, "  %s devices starved %s of the step%s",
                   starving ? g->warn : g->bullet, a, starving ? "  (waiting now)" : "");
    }
}

/* A grid of `total` items (devices, cores): the first `failed` marked, the
 * first `filled` in the `on` role. Few items get big blocks (readable on a
 * projector); many are aggregated so each cell stands for several.
 * Returns the rows used; *per_cell receives the items per cell. */
static int draw_cells(int y, int x, int w, int h, int total, int filled, int failed,
                      enum theme_role on, int *per_cell)
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
        const char *glyph = i < nfailed ? g->device_failed
                            : block     ? (i < nfilled ? g->bar_full : g->bar_empty)
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

static void picture_cpus(struct ui *u, struct rect in)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = ui_report(u);
    const struct setup *s = ui_setup(u);
    int y = in.y;
    int total = (int)lround(r->stages.cpu_cores_total), busy = (int)lround(r->stages.cpu_cores_busy);
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "cores of one node: %.1f of %d busy loading data",
               r->stages.cpu_cores_busy, total);
    int grid_h = in.h / 3;
    if (grid_h < 1)
        grid_h = 1;
    int per = 1;
    y += draw_cells(y, in.x, in.w, grid_h, total, busy, 0,
                    theme_role_for_util(u->live.stage_util[STAGE_CPUS]), &per);
    if (per > 1)
        draw_textf(y++, in.x, in.w, ROLE_DIM, "each cell = %d cores", per);
    y++;
    double dev_mem = r->memory.capacity_gb * s->cluster.node.accelerators_per_node;
    draw_textf(y++, in.x, in.w, ROLE_TEXT, "host RAM %.0f GB  vs  device memory %.0f GB per node",
               s->cluster.node.host_ram_gb, dev_mem);
    draw_textf(y++, in.x, in.w, r->host_ram_ok ? ROLE_OK : ROLE_FAILED, "  %s %s: host RAM >= device memory",
               r->host_ram_ok ? g->pass : g->fail, r->host_ram_ok ? "PASS" : "FAIL");
    draw_textf(y++, in.x, in.w, r->pcie_lanes_ok ? ROLE_OK : ROLE_WARN,
               "  %s PCIe lanes: %.0f needed of %.0f", r->pcie_lanes_ok ? g->pass : g->fail,
               r->pcie_lanes_needed, r->pcie_lanes_have);
    if (u->res.host_link) {
        char bw[32], t[32];
        fmt_si(bw, sizeof bw, u->res.host_link->bw_gbs * 1e9, "B/s");
        fmt_dur(t, sizeof t, r->stages.h2d_s);
        draw_textf(y++, in.x, in.w, ROLE_DIM, "host link %s %s/dir, copies %s per step",
                   u->res.host_link->head.id, bw, t);
    }
    if (u->res.cpu && y < in.y + in.h)
        draw_textf(y, in.x, in.w, ROLE_DIM, "vector units: %s", u->res.cpu->vector_ext);
}

static void picture_accel(struct ui *u, struct rect in)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = ui_report(u);
    int y = in.y;
    double util = u->live.stage_util[STAGE_ACCELERATORS];
    char pct[16];
    fmt_pct(pct, sizeof pct, util);
    double temp = u->sim ? u->live.rack_temp_c : r->power.rack_temp_c;
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "%d devices  load %s  %.0f C%s", r->devices, pct,
               isfinite(temp) ? temp : 0, u->live.failed_devices ? "" : "");
    int grid_h = in.h - 6;
    if (grid_h < 1)
        grid_h = 1;
    int per = 1;
    /* Identical devices share one load; the grid shows how many there are
     * and which are down. */
    bool hot = u->sim ? u->live.throttle < 0.999 : r->power.throttled;
    y += draw_cells(y, in.x, in.w, grid_h, r->devices, r->devices, u->live.failed_devices,
                    hot ? ROLE_WARN : theme_role_for_util(util), &per);
    if (hot)
        draw_textf(y++, in.x, in.w, ROLE_WARN, "%s hot: throttled", g->device_hot);
    if (per > 1)
        draw_textf(y++, in.x, in.w, ROLE_DIM, "each %s = %d devices", g->device, per);
    if (u->live.failed_devices)
        draw_textf(y++, in.x, in.w, ROLE_FAILED, "%s %d failed: restarting from the last checkpoint",
                   g->device_failed, u->live.failed_devices);
    /* Memory bar. */
    const struct memory_report *m = &r->memory;
    double parts[5] = {m->params_gb, m->grads_gb, m->optimizer_gb, m->activations_gb + m->logits_gb,
                       m->reserved_gb};
    static const enum theme_role roles[6] = {ROLE_MEM_WEIGHTS, ROLE_MEM_GRADS, ROLE_MEM_OPTIM,
                                             ROLE_MEM_ACT, ROLE_PART_OTHER, ROLE_MEM_FREE};
    static const char *const names[5] = {"weights", "grads", "optim", "activ", "other"};
    double total = m->capacity_gb > m->per_device_gb ? m->capacity_gb : m->per_device_gb;
    y++;
    if (y >= in.y + in.h)
        return;
    int used = draw_textf(y, in.x, in.w, ROLE_TEXT, "memory %.0f/%.0f GB ", m->per_device_gb,
                          m->capacity_gb);
    draw_stacked(y, in.x + used, in.w - used, parts, roles, 5, total);
    y++;
    int x = in.x;
    for (int i = 0; i < 5 && y < in.y + in.h; i++) {
        x += draw_text(y, x, in.x + in.w - x, roles[i], draw_part_fill((size_t)i, true));
        x += draw_textf(y, x, in.x + in.w - x, ROLE_DIM, "%s %.1f ", names[i], parts[i]);
    }
    y++;
    draw_textf(y++, in.x, in.w, m->fits ? ROLE_OK : ROLE_FAILED, "%s %s", m->fits ? g->pass : g->fail,
               m->fits ? "fits in device memory" : "does not fit: try ZeRO 3, recompute or TP");
    /* Achieved against peak: the roofline's verdict for the matrix math. */
    y++;
    used = draw_textf(y, in.x, in.w, ROLE_TEXT, "compute %.0f of %.0f TFLOP/s ", r->tflops_per_device,
                      r->peak_tflops);
    draw_bar(y, in.x + used, in.w - used, r->peak_tflops > 0 ? r->tflops_per_device / r->peak_tflops : 0,
             ROLE_PART_COMPUTE, ROLE_DIM);
}

static void picture_ring(struct ui *u, struct rect in, int y, int n)
{
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
    bool syncing = u->sim && u->live.phase == 3;
    int hot = syncing ? (int)fmod(u->wall_s * 6, shown) : -1;
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

static void picture_tree(struct ui *u, struct rect in, int y)
{
    const struct glyphs *g = glyphs_active();
    bool syncing = u->sim && u->live.phase == 3;
    int level = syncing ? (int)fmod(u->wall_s * 3, 3) : -1;
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

static void picture_net(struct ui *u, struct rect in)
{
    const struct model_report *r = ui_report(u);
    const struct setup *s = ui_setup(u);
    int y = in.y;
    char full[32], exp[32], tp[32];
    fmt_dur(full, sizeof full, r->stages.dp_comm_s);
    fmt_dur(exp, sizeof exp, r->breakdown.dp_comm_exposed);
    int algo = s->training.allreduce;
    bool tree = algo == ALLREDUCE_TREE;
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "%s all-reduce over DP=%d: %s, %s exposed",
               tree ? "tree" : algo == ALLREDUCE_HIERARCHICAL ? "hierarchical" : "ring", r->dp, full,
               exp);
    if (r->dp > 1) {
        if (tree)
            picture_tree(u, in, y);
        else
            picture_ring(u, in, y, r->dp);
        y += 3;
        double share = 2.0 * (r->dp - 1) / r->dp;
        draw_textf(y++, in.x, in.w, ROLE_DIM, "each link carries 2(n-1)/n = %.2fx the gradients", share);
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
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "pipeline PP=%d, %d micro-batches: bubble %s", p, m, bp);
    /* GPipe-style picture: forward wave, then backward wave; the idle
     * corners are the bubble. */
    const struct glyphs *g = glyphs_active();
    int md = m < PIPE_MB_MAX ? m : PIPE_MB_MAX;
    int rows = p < in.y + in.h - y ? p : in.y + in.h - y;
    for (int i = 0; i < rows; i++) {
        int x = in.x;
        x += draw_textf(y + i, x, 4, ROLE_DIM, "s%-2d", i + 1);
        for (int c = 0; c < 2 * (md + p - 1) && x < in.x + in.w; c++) {
            int f0 = i, f1 = i + md;                       /* forward slots */
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

static void picture_infra(struct ui *u, struct rect in)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = ui_report(u);
    const struct setup *s = ui_setup(u);
    int y = in.y;
    double limit = r->power.rack_cooling_limit_kw;
    double heat = limit > 0 ? r->power.per_rack_kw / limit : 0;
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "%d racks, %s cooling, limit %.0f kW each", r->racks,
               s->facility.cooling, limit);
    int rows = r->racks < RACK_ROWS_MAX ? r->racks : RACK_ROWS_MAX;
    int room = in.h - 6;
    if (rows > room)
        rows = room > 1 ? room : 1;
    for (int i = 0; i < rows; i++) {
        int used = draw_textf(y, in.x, in.w, ROLE_DIM, "rack %-3d ", i + 1);
        int bw = in.w - used - 16;
        if (bw > 2)
            draw_bar(y, in.x + used, bw, heat, heat > 1 ? ROLE_FAILED : theme_role_for_util(heat),
                     ROLE_DIM);
        draw_textf(y, in.x + used + (bw > 2 ? bw : 0) + 1, 15, heat > 1 ? ROLE_FAILED : ROLE_VALUE,
                   "%.1f/%.0f kW%s", r->power.per_rack_kw, limit, heat > 1 ? "!" : "");
        y++;
    }
    if (r->racks > rows)
        draw_textf(y++, in.x, in.w, ROLE_DIM, "... %d racks alike", r->racks - rows);
    double temp = u->sim ? u->live.rack_temp_c : r->power.rack_temp_c;
    bool throttled = u->sim ? u->live.throttle < 0.999 : r->power.throttled;
    double keep = u->sim ? u->live.throttle : r->power.throttle_factor;
    if (throttled)
        draw_textf(y++, in.x, in.w, ROLE_WARN, "%s %.0f C: THROTTLED to %.0f%% speed", g->warn,
                   isfinite(temp) ? temp : 0, 100 * keep);
    else
        draw_textf(y++, in.x, in.w, ROLE_OK, "%s %.0f C: no throttling", g->pass,
                   isfinite(temp) ? temp : 0);
    /* Failures and restarts over time. */
    size_t n = ui_series(u, SERIES_FAILURES, (size_t)(in.w - 12));
    for (size_t i = n; i-- > 1;)
        u->series[i] = u->series[i] - u->series[i - 1] > 0 ? 1 : 0;
    if (n)
        u->series[0] = 0;
    int used = draw_textf(y, in.x, 12, ROLE_DIM, "failures %llu", (unsigned long long)u->counters.failures);
    (void)used;
    draw_spark(y++, in.x + 12, in.w - 12, 1, u->series, n, 1, ROLE_FAILED);
    char ck[32];
    fmt_dur(ck, sizeof ck, r->reliability.checkpoint_interval_min * 60);
    draw_textf(y++, in.x, in.w, ROLE_DIM, "restarts %llu  checkpoints %llu (every %s)",
               (unsigned long long)u->counters.restarts, (unsigned long long)u->counters.checkpoints, ck);
    char cost[32], tot[32], energy[32];
    fmt_usd(cost, sizeof cost, r->cost.usd_per_hour);
    fmt_usd(tot, sizeof tot, r->cost.usd_total);
    fmt_si(energy, sizeof energy, u->counters.energy_j / 3600.0, "Wh");
    if (y < in.y + in.h)
        draw_textf(y, in.x, in.w, ROLE_VALUE, "%s/h  energy %s so far  whole run %s", cost,
                   energy, tot);
}

void view_stage_picture(struct ui *u, int stage, struct rect in)
{
    if (in.h <= 0 || in.w <= 0)
        return;
    draw_clip(&in);
    switch (stage) {
    case STAGE_DATA: picture_data(u, in); break;
    case STAGE_CPUS: picture_cpus(u, in); break;
    case STAGE_ACCELERATORS: picture_accel(u, in); break;
    case STAGE_INTERCONNECT: picture_net(u, in); break;
    default: picture_infra(u, in); break;
    }
    draw_clip_reset();
}

static void draw_picture(struct ui *u)
{
    struct rect r = u->lay.picture;
    static const char *const titles[STAGE_COUNT] = {"storage and prefetch", "host CPUs",
                                                    "devices and memory", "collectives and pipeline",
                                                    "racks, heat and failures"};
    draw_box(&r, ROLE_BORDER, false, titles[u->stage], ROLE_HEADING);
    struct rect in = inner(&r);
    if (in.h <= 0 || in.w <= 0)
        return;
    view_stage_picture(u, u->stage, in);
}

/* ---- catalog table ---- */

struct column {
    const char *head;
    int width;
};

static void table_row(int y, int x, int w, enum theme_role role, const char *const *cells,
                      const struct column *cols, int n)
{
    int cx = x;
    for (int i = 0; i < n && cx < x + w; i++) {
        char cell[64];
        if (i == 0)
            snprintf(cell, sizeof cell, "%-*.*s", cols[i].width, cols[i].width, cells[i]);
        else
            snprintf(cell, sizeof cell, "%*.*s", cols[i].width, cols[i].width, cells[i]);
        cx += draw_text(y, cx, x + w - cx, role, cell);
        cx += draw_text(y, cx, x + w - cx, role, " ");
    }
}

static void num_cell(char *buf, size_t len, double v, int decimals)
{
    if (v == FIELD_ABSENT || !isfinite(v) || v < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", decimals, v);
}

static void draw_compare(struct ui *u)
{
    const struct glyphs *g = glyphs_active();
    struct rect r = u->lay.compare;
    static const enum catalog_kind kinds[STAGE_COUNT] = {CATALOG_STORAGE, CATALOG_CPU,
                                                         CATALOG_ACCELERATOR, CATALOG_LINK,
                                                         CATALOG_COOLING};
    enum catalog_kind kind = kinds[u->stage];
    char title[64];
    snprintf(title, sizeof title, "compare: %s", catalog_kind_names[kind]);
    draw_box(&r, ROLE_BORDER, false, title, ROLE_HEADING);
    struct rect in = {r.y + 1, r.x + 1, r.h - 2, r.w - 2};
    if (in.h < 2)
        return;
    static const struct column cols[STAGE_COUNT][6] = {
        {{"storage", 12}, {"scope", 7}, {"read GB/s", 9}, {"write", 7}, {"lat us", 7}, {"", 0}},
        {{"cpu", 12}, {"cores", 5}, {"mem ch", 6}, {"mem GB/s", 8}, {"lanes", 5}, {"TDP W", 6}},
        {{"device", 14}, {"mem GB", 6}, {"GB/s", 6}, {"bf16", 6}, {"fp8", 6}, {"TDP W", 6}},
        {{"link", 14}, {"kind", 10}, {"GB/s/dir", 8}, {"lat us", 6}, {"", 0}, {"", 0}},
        {{"cooling", 13}, {"rack kW", 7}, {"PUE", 5}, {"inlet C", 7}, {"limit C", 7}, {"", 0}},
    };
    static const char *const scopes[] = {"local", "shared", "memory"};
    static const char *const link_kinds[] = {"nvlink", "pcie", "infiniband", "ethernet", "ici",
                                             "other"};
    int ncols = 0;
    while (ncols < 6 && cols[u->stage][ncols].width > 0)
        ncols++;
    const char *heads[6];
    for (int i = 0; i < ncols; i++)
        heads[i] = cols[u->stage][i].head;
    table_row(in.y, in.x + 2, in.w - 2, ROLE_HEADING, heads, cols[u->stage], ncols);
    size_t n = catalog_count(u->cat, kind);
    const struct setup *s = ui_setup(u);
    const char *cur[2] = {NULL, NULL};
    switch (u->stage) {
    case STAGE_DATA: cur[0] = s->cluster.storage; cur[1] = s->cluster.node.local_storage; break;
    case STAGE_CPUS: cur[0] = s->cluster.node.cpu; break;
    case STAGE_ACCELERATORS: cur[0] = s->cluster.node.accelerator; break;
    case STAGE_INTERCONNECT:
        cur[0] = u->res.intra_link ? u->res.intra_link->head.id : "";
        cur[1] = s->cluster.node.nic;
        break;
    default: cur[0] = s->facility.cooling; break;
    }
    int rows = in.h - 1;
    size_t first = 0, cur_i = 0;
    for (size_t i = 0; i < n; i++) {
        const struct catalog_head *h = catalog_entry(u->cat, kind, i);
        if (cur[0] && strcmp(h->id, cur[0]) == 0)
            cur_i = i;
    }
    if (rows > 0 && cur_i >= (size_t)rows)
        first = cur_i - (size_t)rows / 2;
    for (size_t i = first; i < n && (int)(i - first) < rows; i++) {
        const void *e = catalog_entry(u->cat, kind, i);
        const struct catalog_head *h = e;
        char c[6][FIELD_STR_LEN + 8];
        const char *cells[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};
        snprintf(c[0], sizeof c[0], "%s", h->id);
        switch (kind) {
        case CATALOG_STORAGE: {
            const struct storage *st = e;
            snprintf(c[1], sizeof c[1], "%s", st->scope >= 0 && st->scope < 3 ? scopes[st->scope] : "?");
            num_cell(c[2], sizeof c[2], st->read_gbs, 1);
            num_cell(c[3], sizeof c[3], st->write_gbs, 1);
            num_cell(c[4], sizeof c[4], st->latency_us, 0);
            break;
        }
        case CATALOG_CPU: {
            const struct cpu *cp = e;
            snprintf(c[1], sizeof c[1], "%d", cp->cores);
            snprintf(c[2], sizeof c[2], "%d", cp->mem_channels);
            num_cell(c[3], sizeof c[3], cp->mem_bw_gbs, 0);
            snprintf(c[4], sizeof c[4], "%d", cp->pcie_lanes);
            num_cell(c[5], sizeof c[5], cp->tdp_w, 0);
            break;
        }
        case CATALOG_ACCELERATOR: {
            const struct accelerator *a = e;
            num_cell(c[1], sizeof c[1], a->mem_gb, 0);
            num_cell(c[2], sizeof c[2], a->mem_bw_gbs, 0);
            num_cell(c[3], sizeof c[3], a->peak_tflops[PREC_BF16], 0);
            num_cell(c[4], sizeof c[4], a->peak_tflops[PREC_FP8], 0);
            num_cell(c[5], sizeof c[5], a->tdp_w, 0);
            break;
        }
        case CATALOG_LINK: {
            const struct link *l = e;
            snprintf(c[1], sizeof c[1], "%s", l->kind >= 0 && l->kind < 6 ? link_kinds[l->kind] : "?");
            num_cell(c[2], sizeof c[2], l->bw_gbs, 1);
            num_cell(c[3], sizeof c[3], l->latency_us, 1);
            break;
        }
        default: {
            const struct cooling *co = e;
            num_cell(c[1], sizeof c[1], co->rack_kw_max, 0);
            num_cell(c[2], sizeof c[2], co->pue, 2);
            num_cell(c[3], sizeof c[3], co->inlet_c, 0);
            num_cell(c[4], sizeof c[4], co->limit_c, 0);
            break;
        }
        }
        bool mine = (cur[0] && strcmp(h->id, cur[0]) == 0) || (cur[1] && strcmp(h->id, cur[1]) == 0);
        int y = in.y + 1 + (int)(i - first);
        draw_text(y, in.x, 1, ROLE_VALUE, mine ? g->selector : " ");
        table_row(y, in.x + 2, in.w - 2, mine ? ROLE_VALUE : ROLE_DIM, cells, cols[u->stage], ncols);
    }
}

/* ---- live strip ---- */

static void draw_live(struct ui *u)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = ui_report(u);
    struct rect l = u->lay.live;
    int half = l.w / 2, x = l.x + 1;
    char pct[16], tp[32];
    double util = u->live.stage_util[u->stage];
    fmt_pct(pct, sizeof pct, util);
    static const char *const short_names[STAGE_COUNT] = {"Data", "CPUs", "Accelerators",
                                                         "Network", "Infrastructure"};
    draw_textf(l.y, x, LIVE_LABEL_W, ROLE_VALUE, "%s busy %s", short_names[u->stage], pct);
    size_t n = ui_series(u, util_series[u->stage], (size_t)(half - LIVE_LABEL_W - 2));
    draw_spark(l.y, x + LIVE_LABEL_W, half - LIVE_LABEL_W - 2, 1, u->series, n, 1,
               theme_role_for_util(util));
    fmt_si(tp, sizeof tp, r->runnable ? r->tokens_per_s : NAN, "");
    n = ui_throughput(u, (size_t)(l.w - half - LIVE_LABEL_W - 1));
    if (n > 0 && isfinite(u->series[n - 1]))
        fmt_si(tp, sizeof tp, u->series[n - 1], "");
    draw_textf(l.y, half, LIVE_LABEL_W, ROLE_VALUE, "tokens/s %s", tp);
    draw_spark(l.y, half + LIVE_LABEL_W, l.w - half - LIVE_LABEL_W - 1, 1, u->series, n, 0,
               ROLE_SPARK_TPUT);
    /* Stage summary line. */
    char a[32], b[32], c[32];
    switch (u->stage) {
    case STAGE_DATA:
        fmt_dur(a, sizeof a, r->stages.read_s);
        fmt_pct(b, sizeof b, r->starvation);
        draw_textf(l.y + 1, x, l.w - 2, ROLE_TEXT, "read one global batch %s   devices starved %s", a, b);
        break;
    case STAGE_CPUS:
        fmt_dur(a, sizeof a, r->stages.preprocess_s);
        fmt_dur(b, sizeof b, r->stages.h2d_s);
        draw_textf(l.y + 1, x, l.w - 2, ROLE_TEXT,
                   "preprocess one global batch %s   host-to-device copies %s", a, b);
        break;
    case STAGE_ACCELERATORS:
        fmt_pct(a, sizeof a, r->achieved_fraction);
        fmt_dur(b, sizeof b, r->breakdown.compute);
        fmt_pct(c, sizeof c, ui_live_util(u, r->mfu));
        draw_textf(l.y + 1, x, l.w - 2, ROLE_TEXT,
                   "achieved %.0f TFLOP/s per device (%s of %.0f peak)   MFU %s   compute %s per step",
                   r->tflops_per_device, a, r->peak_tflops, c, b);
        break;
    case STAGE_INTERCONNECT:
        fmt_dur(a, sizeof a, r->stages.dp_comm_s);
        fmt_dur(b, sizeof b, r->breakdown.dp_comm_exposed);
        fmt_dur(c, sizeof c, r->breakdown.pp_bubble);
        draw_textf(l.y + 1, x, l.w - 2, ROLE_TEXT,
                   "gradient sync %s (%s exposed)   pipeline bubble %s", a, b, c);
        break;
    default: {
        char it[32], fac[32];
        fmt_si(it, sizeof it, ui_live_it_kw(u) * 1e3, "W");
        fmt_si(fac, sizeof fac, r->power.facility_kw * 1e3, "W");
        fmt_usd(a, sizeof a, r->cost.usd_per_hour);
        fmt_pct(b, sizeof b, r->reliability.goodput);
        draw_textf(l.y + 1, x, l.w - 2, ROLE_TEXT, "IT %s  facility %s  PUE %.2f  %s/h  goodput %s",
                   it, fac, isfinite(r->power.pue) ? r->power.pue : 0, a, b);
        break;
    }
    }
    /* Status or the verdict. */
    if (u->status[0]) {
        draw_textf(l.y + 2, x, l.w - 2, ROLE_WARN, "%s %s", g->bullet, u->status);
    } else {
        char why[UI_MSG_LEN];
        bool live;
        int b_ = ui_bottleneck(u, why, sizeof why, &live);
        if (b_ < 0) {
            draw_textf(l.y + 2, x, l.w - 2, ROLE_FAILED, "%s CANNOT RUN: %s", g->fail, why);
        } else {
            int used = draw_textf(l.y + 2, x, l.w - 2, ROLE_BOTTLENECK, "%s BOTTLENECK %s %s",
                                  g->bottleneck, g->arrow_right, stage_table[b_].title);
            draw_textf(l.y + 2, x + used, l.w - 2 - used, ROLE_DIM, " - %s", why);
        }
    }
}

void view_stage_draw(struct ui *u)
{
    view_draw_title(u, stage_caps[u->stage]);
    if (u->text_full) {
        /* Everything between the title and the caption or footer. */
        int bottom = u->lay.caption.h > 0 ? u->lay.caption.y : u->lay.footer.y;
        draw_text_panel(u, (struct rect){1, 0, bottom - 1, u->lay.cols});
        view_draw_footer(u, u->tour ? KEYCTX_TOUR : KEYCTX_STAGE);
        return;
    }
    draw_text_panel(u, u->lay.text);
    draw_knobs(u);
    draw_picture(u);
    draw_compare(u);
    draw_live(u);
    view_draw_footer(u, u->tour ? KEYCTX_TOUR : KEYCTX_STAGE);
}
