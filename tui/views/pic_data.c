/* pic_data: the Data stage's picture: storage, the prefetch queues and
 * what the loaders read. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "pictures.h"
#include "theme.h"
#include "units.h"

void pic_data(const struct view_ctx *v, struct view_out *out, struct rect in)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = v->report;
    const struct setup *s = v->setup;
    char a[32], b[32], c[32];
    int y = in.y;
    draw_text(y++, in.x, in.w, ROLE_HEADING, "storage hierarchy (fast and small at the top)");
    format_percent(a, sizeof a, s->data.cache_hit);
    draw_textf(y++, in.x, in.w, s->data.cache_hit > 0 ? ROLE_TEXT : ROLE_DIM,
               "  host RAM cache     hit rate %s", a);
    if (v->res->local_storage) {
        format_si(b, sizeof b, v->res->local_storage->read_gbs * 1e9, "B/s");
        draw_textf(y++, in.x, in.w, s->data.source == DATA_LOCAL ? ROLE_TEXT : ROLE_DIM,
                   "  local %-12s %s per device%s", v->res->local_storage->head.id, b,
                   s->data.source == DATA_LOCAL ? "  < reading" : "");
    }
    if (v->res->storage) {
        format_si(b, sizeof b, r->stages.storage_bw_gbs * 1e9, "B/s");
        draw_textf(y++, in.x, in.w, s->data.source == DATA_SHARED ? ROLE_TEXT : ROLE_DIM,
                   "  shared %-11s %s in all%s", v->res->storage->head.id, b,
                   s->data.source == DATA_SHARED ? "  < reading" : "");
    }
    format_si(a, sizeof a, r->stages.storage_bw_gbs * 1e9, "B/s");
    format_si(c, sizeof c, r->stages.need_bw_gbs * 1e9, "B/s");
    double need =
        r->stages.storage_bw_gbs > 0 ? r->stages.need_bw_gbs / r->stages.storage_bw_gbs : 0;
    int used = draw_textf(y, in.x, in.w, ROLE_TEXT, "  devices need %s of %s ", c, a);
    if (in.w - used > 8)
        draw_bar(y, in.x + used, in.w - used, need, need > 1 ? ROLE_FAILED : ROLE_QUEUE, ROLE_DIM);
    y += 2;
    if (y >= in.y + in.h)
        return;
    draw_text(y++, in.x, in.w, ROLE_HEADING, "prefetch pipeline (batches waiting)");
    static const char *const qn[SIM_QUEUE_COUNT] = {
        [SIM_QUEUE_LOADER] = "  loaders",
        [SIM_QUEUE_PREFETCH] = "  prefetch",
        [SIM_QUEUE_DEVICE] = "  device",
    };
    for (int i = 0; i < SIM_QUEUE_COUNT && y < in.y + in.h; i++)
        pic_queue(y++, in.x, in.w, qn[i], v->live->queue_fill[i], v->live->queue_cap[i]);
    if (y < in.y + in.h) {
        format_percent(a, sizeof a, r->starvation);
        bool starving = v->sim && v->live->phase == SIM_PHASE_WAITING_FOR_DATA;
        draw_textf(y, in.x, in.w, starving ? ROLE_WARN : ROLE_DIM,
                   "  %s devices starved %s of the step%s", starving ? g->warn : g->bullet, a,
                   starving ? "  (waiting now)" : "");
    }
}
