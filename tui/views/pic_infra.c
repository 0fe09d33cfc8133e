/* pic_infra: the Supporting infrastructure stage's picture: racks, heat,
 * throttling and failures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "pictures.h"
#include "theme.h"
#include "units.h"

void pic_infra(const struct view_ctx *v, struct view_out *out, struct rect in)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    int y = in.y;
    double limit = r->power.rack_cooling_limit_kw;
    double heat = limit > 0 ? view_live_rack_kw(v) / limit : 0;
    draw_textf(y++, in.x, in.w, ROLE_HEADING, "%d rack%s, %s cooling, limit %.0f kW%s", r->racks,
               r->racks == 1 ? "" : "s", s->facility.cooling, limit, r->racks == 1 ? "" : " each");
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
                   "%.1f/%.0f kW%s", view_live_rack_kw(v), limit, heat > 1 ? "!" : "");
        y++;
    }
    if (r->racks > rows) {
        char noun[16];
        draw_textf(y++, in.x, in.w, ROLE_DIM, "... %d %s alike", r->racks - rows,
                   format_noun(r->racks - rows, "racks", noun, sizeof noun));
    }
    double temp = v->sim ? v->live->rack_temp_c : r->power.rack_temp_c;
    bool throttled = v->sim ? v->live->throttle < 0.999 : r->power.throttled;
    double keep = v->sim ? v->live->throttle : r->power.throttle_factor;
    if (throttled)
        draw_textf(y++, in.x, in.w, ROLE_WARN, "%s %.0f C: THROTTLED to %.0f%% speed", g->warn,
                   isfinite(temp) ? temp : 0, 100 * keep);
    else
        draw_textf(y++, in.x, in.w, ROLE_OK, "%s %.0f C: no throttling", g->pass,
                   isfinite(temp) ? temp : 0);
    /* Failures and restarts over time. */
    size_t n = view_series(v, out, SERIES_FAILURES, (size_t)(in.w - 12));
    for (size_t i = n; i-- > 1;)
        out->series[i] = out->series[i] - out->series[i - 1] > 0 ? 1 : 0;
    if (n)
        out->series[0] = 0;
    int used = draw_textf(y, in.x, 12, ROLE_DIM, "failures %llu",
                          (unsigned long long)v->counters->failures);
    (void)used;
    draw_spark(y++, in.x + 12, in.w - 12, 1, out->series, n, 1, ROLE_FAILED);
    char ck[32];
    format_duration(ck, sizeof ck, r->reliability.checkpoint_interval_min * 60);
    char w0[128], w1[128]; /* the longest wording that fits: no figure is cut */
    snprintf(w0, sizeof w0, "restarts %llu  checkpoints %llu (every %s)",
             (unsigned long long)v->counters->restarts,
             (unsigned long long)v->counters->checkpoints, ck);
    snprintf(w1, sizeof w1, "restarts %llu  ckpts %llu every %s",
             (unsigned long long)v->counters->restarts,
             (unsigned long long)v->counters->checkpoints, ck);
    view_draw_fitting(y++, in.x, in.w, ROLE_DIM, (const char *const[]){w0, w1}, 2);
    char cost[32], tot[32], energy[32];
    format_usd(cost, sizeof cost, r->cost.usd_per_hour);
    format_usd(tot, sizeof tot, r->cost.usd_total);
    format_si(energy, sizeof energy, v->counters->energy_j / 3600.0, "Wh");
    if (y < in.y + in.h && !r->runnable)
        draw_text(y, in.x, in.w, ROLE_FAILED, "cannot run: no energy or cost");
    else if (y < in.y + in.h)
        draw_textf(y, in.x, in.w, ROLE_VALUE, "%s/h  energy %s so far  whole run %s", cost, energy,
                   tot);
}
