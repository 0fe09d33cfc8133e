/* pic_cpus: the CPUs stage's picture: host cores busy feeding the devices. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "pictures.h"
#include "theme.h"
#include "units.h"

void pic_cpus(const struct view_ctx *v, struct view_out *out, struct rect in)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    int y = in.y;
    double cores = view_live_cores_busy(v);
    int total = (int)lround(r->stages.cpu_cores_total), busy = (int)lround(cores);
    char nbusy[16];
    view_fmt_cores(nbusy, sizeof nbusy, cores);
    char noun[16];
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "loaders use %s of %d %s (one node)", nbusy, total,
               format_noun(total, "cores", noun, sizeof noun));
    int grid_h = in.h / 3;
    if (grid_h < 1)
        grid_h = 1;
    int per = 1;
    y += pic_cells(y, in.x, in.w, grid_h, total, busy, 0,
                   theme_role_for_util(v->live->stage_util[STAGE_CPUS]), &per);
    if (per > 1)
        draw_textf(y++, in.x, in.w, ROLE_DIM, "each cell = %d cores", per);
    /* The strip's and the overview's gauge: a share of the step's time,
     * not of the cores (a few cores can keep the feed busy all step). */
    char feed[16] = "warming up";
    if (!view_warming(v)) {
        format_percent(feed, sizeof feed, view_live_stage_util(v, STAGE_CPUS));
        view_mark_settling(v, feed, sizeof feed);
    }
    /* Each line in the longest wording that fits: no figure is cut. */
    char w0[128], w1[128], w2[128];
    const char *of_step = view_warming(v) ? "" : " of the step";
    snprintf(w0, sizeof w0, "feeding (prepare, copy a batch) busy %s%s", feed, of_step);
    snprintf(w1, sizeof w1, "feeding busy %s%s", feed, of_step);
    snprintf(w2, sizeof w2, "feeding busy %s", feed);
    view_draw_fitting(y++, in.x, in.w, ROLE_TEXT, (const char *const[]){w0, w1, w2}, 3);
    double dev_mem = r->memory.capacity_gb * s->cluster.node.accelerators_per_node;
    snprintf(w0, sizeof w0, "host RAM %.0f GB  vs  device memory %.0f GB per node",
             s->cluster.node.host_ram_gb, dev_mem);
    snprintf(w1, sizeof w1, "host RAM %.0f GB vs device memory %.0f GB",
             s->cluster.node.host_ram_gb, dev_mem);
    snprintf(w2, sizeof w2, "host RAM %.0f GB, devices %.0f GB", s->cluster.node.host_ram_gb,
             dev_mem);
    view_draw_fitting(y++, in.x, in.w, ROLE_TEXT, (const char *const[]){w0, w1, w2}, 3);
    draw_textf(y++, in.x, in.w, r->host_ram_ok ? ROLE_OK : ROLE_FAILED,
               "  %s %s: host RAM >= device memory", r->host_ram_ok ? g->pass : g->fail,
               r->host_ram_ok ? "PASS" : "FAIL");
    draw_textf(y++, in.x, in.w, r->pcie_lanes_ok ? ROLE_OK : ROLE_WARN,
               "  %s PCIe lanes: %.0f needed of %.0f", r->pcie_lanes_ok ? g->pass : g->fail,
               r->pcie_lanes_needed, r->pcie_lanes_have);
    if (v->res->host_link) {
        char bw[32], t[32];
        format_si(bw, sizeof bw, v->res->host_link->bw_gbs * 1e9, "B/s");
        format_duration(t, sizeof t, r->stages.h2d_s);
        draw_textf(y++, in.x, in.w, ROLE_DIM, "host link %s %s/dir, copies %s per step",
                   v->res->host_link->head.id, bw, t);
    }
    if (v->res->cpu && y < in.y + in.h)
        draw_textf(y, in.x, in.w, ROLE_DIM, "vector units: %s", v->res->cpu->vector_ext);
}
