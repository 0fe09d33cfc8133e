/* view_plan: the plan screen (key p). The search of engine/plan/plan.h runs in a
 * background thread (tui/plan_ctl.c, owned by the app) while the screen
 * shows its progress; then the ranked table, where the current setup
 * ranks, and a scatter of days to train against total cost with the
 * Pareto front marked. Enter loads the selected row into the live view.
 * Everything drawn comes from v->plan. */
#include <math.h>
#include <string.h>

#include <curses.h>

#include "draw.h"
#include "glyphs.h"
#include "keys.h"
#include "plan.h"
#include "units.h"
#include "views.h"

/* ---- drawing ---------------------------------------------------------------- */

static void draw_progress(const struct view_plan *pv, int y, int x, int w)
{
    struct plan_progress_now p;
    plan_progress_read(pv->progress, &p);
    int preparing = p.preparing;
    uint64_t done = preparing ? p.prep_done : p.done;
    uint64_t total = preparing ? p.prep_total : p.total;
    total = total ? total : 1;
    char a[32], b[32];
    format_si(a, sizeof a, (double)(done < total ? done : total), "");
    format_si(b, sizeof b, (double)total, "");
    int used = preparing == 1 ? draw_textf(y, x, w, ROLE_TEXT, "ranking %s of %s layouts ", a, b)
               : preparing == 2
                   ? draw_textf(y, x, w, ROLE_TEXT, "searching the most promising layouts first ")
                   : draw_textf(y, x, w, ROLE_TEXT, "searching %s of %s candidates ", a, b);
    double share = (double)done / (double)total;
    draw_bar(y, x + used, w - used > 40 ? 40 : w - used, share > 1 ? 1 : share, ROLE_OK, ROLE_DIM);
}

static void table_row(const struct view_plan *pv, int y, int x, int w, const char *rank,
                      const struct plan_entry *e, enum theme_role role, const char *changes)
{
    char tok[32], usd[32], days[32];
    format_si(tok, sizeof tok, e->fig[PLAN_TOKENS_PER_S], "");
    format_usd(usd, sizeof usd, e->fig[PLAN_USD_TOTAL]);
    format_fixed(days, sizeof days, e->fig[PLAN_DAYS], 1);
    (void)pv;
    draw_textf(y, x, w, role, "%5s %9s %7s %9s %5.1f%%  %s", rank, tok, days, usd,
               100 * e->fig[PLAN_MFU], changes);
}

/* Changes without the "training." prefixes, to fit the table. */
static void short_changes(const struct plan_space *sp, uint64_t index, char *buf, size_t len)
{
    char full[2048];
    plan_space_changes(sp, index, full, sizeof full);
    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = full; *p && used + 1 < len;) {
        if (strncmp(p, "training.", 9) == 0)
            p += 9;
        buf[used++] = *p++;
    }
    buf[used] = '\0';
    if (!buf[0])
        snprintf(buf, len, "(as it is)");
}

struct scatter {
    double x0, x1, y0, y1;
    struct rect r;
};

static void plot(const struct scatter *sc, double x, double y, enum theme_role role,
                 const char *glyph)
{
    double fx = sc->x1 > sc->x0 ? (x - sc->x0) / (sc->x1 - sc->x0) : 0.5;
    double fy = sc->y1 > sc->y0 ? (y - sc->y0) / (sc->y1 - sc->y0) : 0.5;
    if (!(fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1))
        return;
    int cx = sc->r.x + (int)(fx * (sc->r.w - 1) + 0.5);
    int cy = sc->r.y + sc->r.h - 1 - (int)(fy * (sc->r.h - 1) + 0.5);
    draw_text(cy, cx, 1, role, glyph);
}

static void widen(struct scatter *sc, const struct plan_entry *e, bool *first)
{
    double x = e->fig[PLAN_DAYS], y = e->fig[PLAN_USD_TOTAL];
    if (*first) {
        sc->x0 = sc->x1 = x;
        sc->y0 = sc->y1 = y;
        *first = false;
        return;
    }
    sc->x0 = x < sc->x0 ? x : sc->x0;
    sc->x1 = x > sc->x1 ? x : sc->x1;
    sc->y0 = y < sc->y0 ? y : sc->y0;
    sc->y1 = y > sc->y1 ? y : sc->y1;
}

static void draw_scatter(const struct view_plan *pv, struct rect box)
{
    const struct glyphs *g = glyphs_active();
    const struct plan_result *r = pv->result;
    draw_box(&box, ROLE_BORDER, false, "days to train vs total cost", ROLE_HEADING);
    if (box.h < 6 || box.w < 20)
        return;
    struct scatter sc = {0};
    sc.r = (struct rect){box.y + 1, box.x + 11, box.h - 4, box.w - 13};
    bool first = true;
    for (int i = 0; i < r->n_top; i++)
        widen(&sc, &r->top[i], &first);
    for (size_t i = 0; i < r->n_front; i++)
        widen(&sc, &r->front[i], &first);
    if (r->base_runnable)
        widen(&sc, &r->base, &first);
    if (first) {
        draw_text(box.y + 2, box.x + 2, box.w - 4, ROLE_DIM, "no runnable configuration");
        return;
    }
    char a[32], b[32];
    format_usd(a, sizeof a, sc.y1);
    format_usd(b, sizeof b, sc.y0);
    draw_text(sc.r.y, box.x + 1, 10, ROLE_DIM, a);
    draw_text(sc.r.y + sc.r.h - 1, box.x + 1, 10, ROLE_DIM, b);
    format_fixed(a, sizeof a, sc.x0, 1);
    format_fixed(b, sizeof b, sc.x1, 1);
    int axis_y = sc.r.y + sc.r.h;
    draw_textf(axis_y, sc.r.x, sc.r.w, ROLE_DIM, "%s d", a);
    draw_textf(axis_y, sc.r.x + sc.r.w - draw_width(b) - 2, draw_width(b) + 2, ROLE_DIM, "%s d", b);
    for (int i = 0; i < r->n_top; i++)
        plot(&sc, r->top[i].fig[PLAN_DAYS], r->top[i].fig[PLAN_USD_TOTAL], ROLE_DIM, g->bullet);
    for (size_t i = 0; i < r->n_front; i++)
        plot(&sc, r->front[i].fig[PLAN_DAYS], r->front[i].fig[PLAN_USD_TOTAL], ROLE_OK, g->device);
    if (r->base_runnable)
        plot(&sc, r->base.fig[PLAN_DAYS], r->base.fig[PLAN_USD_TOTAL], ROLE_WARN, g->bottleneck);
    if (r->n_top > 0)
        plot(&sc, r->top[pv->sel].fig[PLAN_DAYS], r->top[pv->sel].fig[PLAN_USD_TOTAL],
             ROLE_KNOB_SEL, g->selector);
    draw_textf(axis_y + 1, box.x + 2, box.w - 4, ROLE_DIM,
               "%s front  %s ranked  %s your setup  %s selected", g->device, g->bullet,
               g->bottleneck, g->selector);
}

/* Rank 1 against the setup: the step, then each part that moved by at
 * least 1% of the setup's step (plan_why, the same as `mlviz plan`). */
static int draw_why(const struct plan_why *why, int y, int x, int w)
{
    char line[512], a[32], b[32];
    format_duration(a, sizeof a, why->base[PLAN_WHY_STEP]);
    format_duration(b, sizeof b, why->best[PLAN_WHY_STEP]);
    int n = snprintf(line, sizeof line, "rank 1 vs yours: step %s -> %s:", a, b);
    for (int i = 0; i < PLAN_WHY_STEP && n > 0 && (size_t)n < sizeof line; i++) {
        double d = why->best[i] - why->base[i];
        if (!(fabs(d) >= 0.01 * why->base[PLAN_WHY_STEP]))
            continue;
        format_duration(a, sizeof a, fabs(d));
        n += snprintf(line + n, sizeof line - (size_t)n, " %s %c%s", plan_why_names[i],
                      d < 0 ? '-' : '+', a);
    }
    draw_text(y++, x, w, ROLE_DIM, line);
    return y;
}

void view_plan_draw(const struct view_ctx *v, struct view_out *out)
{
    view_draw_title(v, out, "plan");
    int top = v->lay->title.y + v->lay->title.h + 1;
    int bottom = v->lay->footer.y - 1;
    int x = 1, w = COLS - 2;
    const struct view_plan *pv = &v->plan;
    if (!pv->open || bottom - top < 4) {
        view_draw_footer(v, out, KEYCTX_PLAN);
        return;
    }
    if (!pv->done) {
        draw_progress(pv, top, x, w);
        draw_text(top + 2, x, w, ROLE_DIM,
                  "The planner tries every tensor, pipeline and data-parallel split, micro-batch,"
                  " recomputation, ZeRO stage and overlap of this setup's devices.");
        view_draw_footer(v, out, KEYCTX_PLAN);
        return;
    }
    if (!pv->ok) {
        draw_text(top, x, w, ROLE_WARN, pv->err[0] ? pv->err : "the search failed");
        view_draw_footer(v, out, KEYCTX_PLAN);
        return;
    }
    const struct plan_result *r = pv->result;
    char a[32], b[32];
    format_si(a, sizeof a, (double)r->counts.candidates, "");
    format_si(b, sizeof b, (double)r->counts.evaluated, "");
    draw_textf(top, x, w, ROLE_TEXT, "%s candidates, %s evaluated, %llu runnable: fastest first", a,
               b, (unsigned long long)r->counts.runnable);
    /* The table takes the upper part, the scatter the rest. */
    int avail = bottom - top - 1;
    int table_h = r->n_top + 4 < avail / 2 ? r->n_top + 4 : avail / 2;
    if (table_h < 4)
        table_h = avail < 4 ? avail : 4;
    int y = top + 2;
    draw_textf(y++, x, w, ROLE_HEADING, "%5s %9s %7s %9s %6s  %s", "rank", "tokens/s", "days",
               "USD", "MFU", "changes");
    int rows = table_h - 3;
    int first = pv->sel >= rows ? pv->sel - rows + 1 : 0;
    char changes[512], rank[16];
    for (int i = first; i < r->n_top && i < first + rows; i++) {
        snprintf(rank, sizeof rank, "%d", i + 1);
        short_changes(pv->space, r->top[i].index, changes, sizeof changes);
        table_row(pv, y++, x, w, rank, &r->top[i], i == pv->sel ? ROLE_KNOB_SEL : ROLE_TEXT,
                  changes);
    }
    if (r->base_runnable) {
        snprintf(rank, sizeof rank, "%llu", (unsigned long long)r->counts.better_than_base + 1);
        table_row(pv, y++, x, w, rank, &r->base, ROLE_WARN, "your setup");
        if (pv->why->ok)
            y = draw_why(pv->why, y, x, w);
    } else {
        draw_text(y++, x, w, ROLE_WARN, "your setup cannot run as it is");
    }
    struct rect box = {y + 1, x, bottom - y, w};
    if (box.h >= 6)
        draw_scatter(pv, box);
    view_draw_footer(v, out, KEYCTX_PLAN);
}
