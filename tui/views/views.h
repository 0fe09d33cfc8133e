/* views: what the screen's views draw from and what they give back.
 *
 * A view never changes the screen's state and never calls into the app:
 * it reads a view_ctx (filled by the app before each frame, state.c) and
 * answers with a view_out: the actions its clickable places stand for
 * (hit rectangles) and the scroll positions clamped to what fits. The
 * frame loop applies those. */
#ifndef MLVIZ_VIEWS_H
#define MLVIZ_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "fields.h"
#include "hit.h"
#include "infer.h"
#include "layout.h"
#include "luahost.h"
#include "model.h"
#include "plan.h"
#include "setup.h"
#include "sim.h"
#include "stages.h"
#include "stagetext.h"
#include "theme.h"

/* UI_MAX_PARAMS: scenario parameters the view keeps: the Lua host's limit,
 * so none is dropped; the panel scrolls and says "+N more" when they do not
 * fit on screen. */
enum {
    UI_MAX_KNOBS = 24,
    UI_MSG_LEN = 320,
    UI_TRANSCRIPT_MAX = 256,
    UI_SERIES_MAX = 512,
    UI_MAX_PARAMS = LUAHOST_MAX_PARAMS
};

enum ui_view { VIEW_OVERVIEW, VIEW_STAGE, VIEW_PLAN };

/* The tour: an intro stop, one per stage, an outro. */
enum { TOUR_STOPS = STAGE_COUNT + 2 };

/* One entry of a played scenario's transcript: a say() or a printed line. */
struct ui_said {
    char text[UI_MSG_LEN * 2];
    bool printed;
    bool header; /* a printed table's header row (pinned while its rows show) */
};

/* A stage view's knobs: fields of the setup field table. */
struct ui_knobs {
    const struct field *field[UI_MAX_KNOBS];
    int count;
};

/* A played scenario's parameter, shown as a knob (key o). */
struct ui_param {
    char name[64];
    char type[16];
    char help[256];
    char value[64];
};

/* The plan screen's search as the plan view draws it (tui/plan_ctl.c
 * fills it; the view never sees the thread). Until `done` only the
 * progress may be read: the search still writes the rest. */
struct view_plan {
    bool open; /* a search was started (key p) */
    bool done; /* it finished: the fields below are set */
    const struct plan_progress *progress;
    bool ok;
    const char *err; /* why it failed, or "" */
    const struct plan_space *space;
    const struct plan_result *result;
    const struct plan_why *why;
    int sel; /* the selected row */
};

/* Everything a view reads. Pointers point into the app's state, which does
 * not change while a frame is drawn. */
struct view_ctx {
    /* what runs */
    const struct catalog *cat;
    const struct setup *setup;  /* on screen: the sim's setup when one runs */
    const struct setup *setup0; /* as loaded (the title notices changes) */
    const struct resolved *res;
    const struct model_report *report; /* the sim's when one runs */
    const struct infer_report *infer;  /* the setup served (infer_eval, once per change) */
    bool infer_mode;                   /* read the stages for serving (key i, --infer) */
    const struct sim *sim;             /* series and state; NULL when none runs */
    const struct sim_live *live;
    const struct sim_counters *counters;
    const struct sim_window *win; /* live figures over whole steps; steps 0: warming up */
    bool win_steady;              /* false: the figures are still settling ("~") */
    const struct stage_texts *texts;
    const struct layout *lay;
    /* time */
    double speed; /* simulated seconds per wall second */
    double wall_s;
    bool paused, lagging;
    const double *anim_phase; /* [ARROW_COUNT] batch positions, 0..1 */
    const double *anim_rate;  /* [ARROW_COUNT] flow rates averaged over about a step */
    /* the screen */
    int stage; /* the open stage view */
    int selected_box;
    const struct ui_knobs *knobs; /* [STAGE_COUNT] */
    const int *knob_sel;          /* [STAGE_COUNT] */
    int text_scroll;
    bool text_full;
    int help_scroll;
    const char *status; /* a transient message, or "" */
    /* tour and playback */
    bool tour;
    int tour_stop;
    bool playing, play_waiting, play_done;
    const struct ui_said *transcript;
    int transcript_count;
    int caption_scroll; /* -1: the newest entry from its start (or all of it) */
    const struct ui_param *params;
    int n_params;
    int params_more; /* declared beyond UI_MAX_PARAMS */
    int param_sel;
    /* the plan screen (key p) */
    struct view_plan plan;
};

/* What a view gives back. */
struct view_out {
    struct hit_map *hits; /* clickable places and their actions */
    int text_scroll;      /* the scrolls, clamped to their content */
    int text_page;        /* rows of the explanation shown (what PgDn scrolls) */
    int caption_scroll;
    int help_scroll;
    double series[UI_SERIES_MAX]; /* scratch for sparklines */
};

/* ---- figures every view shows (figures.c) ---- */

/* The stage that limits the run now (enum stage_id), or -1 when the setup
 * cannot run. The steady-state report decides unless the live state says
 * otherwise (racks throttled below the steady state, devices down): then
 * *live is true and why says what happens now and what the steady state
 * would be. Otherwise why is the report's reason. */
int view_bottleneck(const struct view_ctx *v, char *why, size_t why_len, bool *live);
/* A utilization scaled by the clocks the racks allow now against the
 * steady state's (the steady figure when no sim runs). */
double view_live_util(const struct view_ctx *v, double steady);
/* A stage's busy share now (0..1): over whole steps (state.c), except that the
 * infrastructure reads 100% while the racks throttle (it sets the pace:
 * more heat than the cooling can remove). */
double view_live_stage_util(const struct view_ctx *v, int stage);
/* Loader cores busy per node, live: the model's count scaled as the CPUs
 * stage's live busy share is to its steady one (the same source as the
 * CPUs gauge). */
double view_live_cores_busy(const struct view_ctx *v);
/* A count of busy cores for people: two significant digits, none finer than
 * a hundredth of a core ("14", "1.3", "0.84", "0.08"; below that "<0.01",
 * and 0 as "0"), never the "0.00077" that two digits alone would give. */
void view_fmt_cores(char *buf, size_t len, double cores);
/* Draws the first of n wordings (longest first) that fits w columns, the
 * last (clipped) when none does: a shorter wording drops words, never a
 * figure's digits ("GPUs starved 54.6%", "starved 54.6%"). Returns the
 * columns drawn. */
int view_draw_fitting(int y, int x, int w, enum theme_role role, const char *const *wordings,
                      size_t n);
/* The newest n samples of a stage's busy share into out->series, by the
 * same rule; returns how many. */
size_t view_stage_util_series(const struct view_ctx *v, struct view_out *out, int stage, size_t n);
/* Whether the devices exchange gradients (or ZeRO-3 weights) now: in the
 * sync phase, or in the forward/backward the sync overlaps, or always when
 * a whole step passes within a frame. False when paused or nothing runs. */
bool view_syncing(const struct view_ctx *v);
/* Whether the live figures wait for their first whole step since the
 * setup changed (they show "warming up" then). */
bool view_warming(const struct view_ctx *v);
/* Whether they have whole steps but too few for a steady average (their
 * spread leaves the mean more than a few percent uncertain). */
bool view_settling(const struct view_ctx *v);
/* Put "~" before a live figure's text while it is settling. */
void view_mark_settling(const struct view_ctx *v, char *buf, size_t len);
/* A series averaged over the whole steps since the setup changed (one
 * window for every live figure), else `steady` (no sim, warming up). */
double view_live_sample(const struct view_ctx *v, enum sim_series_id id, double steady);
/* A live figure as text: "warming up" while the window is empty, else a
 * share (unit "%") or a value with an SI prefix and unit ("~" before it
 * while settling). */
const char *view_live_text(const struct view_ctx *v, double x, const char *unit, char *buf,
                           size_t len);
/* Draw the verdict (the bottleneck and why, or why it cannot run) at
 * row y: on one row, or where rows allows and the reason needs it, on two
 * (cut at a word). caps: the stage in capitals (the overview). Returns the
 * rows used. */
int view_draw_verdict(const struct view_ctx *v, int y, int x, int w, int rows, bool caps);
/* Whether the verdict fits on one row of w columns (stage names as titles). */
bool view_verdict_fits(const struct view_ctx *v, int w);
/* The pipeline bubble's share of the step: the report's pp_bubble (eval
 * shows the same), read by the step bar and the Interconnect picture. */
double view_bubble_share(const struct model_report *r);
/* The cost per hour ("$24.9/h"), or "no cost" for a setup that cannot run. */
const char *view_cost_per_hour(const struct view_ctx *v, char *buf, size_t len);
/* IT power over whole steps, else the report's. */
double view_live_it_kw(const struct view_ctx *v);
/* Heat per rack now: the steady state's scaled by the live IT power. */
double view_live_rack_kw(const struct view_ctx *v);
/* Newest n samples of a series into out->series; returns how many. */
size_t view_series(const struct view_ctx *v, struct view_out *out, enum sim_series_id id, size_t n);
/* Throughput (tokens/s) averaged over about one training step, newest n
 * samples into out->series (raw samples are bursty: steps end in jumps). */
size_t view_throughput(const struct view_ctx *v, struct view_out *out, size_t n);
/* view_throughput, and in *now the tokens/s to show: the newest reading
 * over whole steps, the steady state's while warming up, NAN ("-") when
 * the setup cannot run. Every view shows this figure. */
size_t view_live_throughput(const struct view_ctx *v, struct view_out *out, size_t n, double *now);
/* Sparkline scale, fixed for a run: the steady state's value (or the
 * series' peak when higher) with headroom, so a steady value reads as a
 * level line and a sustained drop stays low instead of being rescaled to
 * look full again. */
double view_spark_top(const double *series, size_t n, double steady);
/* What the data-parallel traffic carries: "grad sync" (gradients
 * all-reduced, ZeRO 0-2) or "ZeRO-3 weights+grads" (FSDP: weights
 * all-gathered for forward and backward, gradients reduce-scattered, per
 * micro-batch). `brief` gives the short form for boxes. */
const char *view_dp_traffic_label(const struct view_ctx *v, bool brief);
/* Short display name of a catalog entry ("H100 SXM"). */
const char *view_short_name(const char *name, char *buf, size_t len);

/* A knob's value as the screen shows it, with its unit ("130 M bytes",
 * "auto"), never an exponent; views/stage.c. */
void view_knob_value(const struct field *f, const struct setup *s, char *shown, size_t len);
/* Human label of a knob ("loader workers/device"), knobs.c. */
void knobs_label(const struct field *f, char *buf, size_t len);

/* ---- the views ---- */

void view_overview_draw(const struct view_ctx *v, struct view_out *out);
void view_stage_draw(const struct view_ctx *v, struct view_out *out);
/* The plan screen: the search's progress, then the ranked table and the
 * scatter of days against cost (plan_view.c). */
void view_plan_draw(const struct view_ctx *v, struct view_out *out);
/* The inference mode (infer_overview.c, infer_pics.c, infer_view.c): the
 * overview, a stage's picture, the stage view's live strip and its verdict
 * row, read for serving from v->infer. */
void view_infer_overview_draw(const struct view_ctx *v, struct view_out *out);
void view_infer_picture(const struct view_ctx *v, struct view_out *out, int stage, struct rect in);
/* A stage's picture in its box (view_stage_picture, view_infer_picture). */
typedef void (*view_picture_fn)(const struct view_ctx *v, struct view_out *out, int stage,
                                struct rect in);
/* Under the figures of every box tall enough (overview.c). */
void view_draw_box_pictures(const struct view_ctx *v, struct view_out *out,
                            view_picture_fn picture);
void view_infer_live(const struct view_ctx *v, struct view_out *out);
int view_infer_verdict(const struct view_ctx *v, int y, int x, int w, int rows);
/* The rows (at most `rows`) the serving verdict takes in w columns. */
int view_infer_verdict_rows(const struct view_ctx *v, int w, int rows);
/* Text that does not fit in w columns is cut at its last space that
 * leaves a head of at most w columns; the head's length in bytes (the
 * whole text when it fits or has no such space). */
size_t view_fitting_head(const char *text, int w);
/* A verdict's reason in fewer words, level 0..VIEW_REASON_LEVELS-1: whole;
 * its first clause (up to "; " or " ("); the verdict alone (up to ":").
 * Whole words and figures only, so a narrow screen says less but cuts no
 * figure. */
enum { VIEW_REASON_LEVELS = 3 };
void view_reason_brief(const char *reason, int level, char *buf, size_t len);
/* The rows a text takes wrapped at words after a lead of lead_w columns
 * in w columns (later rows indented three); past 8 when it never fits. */
int view_wrapped_rows(const char *text, int lead_w, int w);

/* chrome.c: the furniture around the views and the overlays. */
void view_draw_title(const struct view_ctx *v, struct view_out *out, const char *where);
void view_draw_footer(const struct view_ctx *v, struct view_out *out, unsigned context);
void view_draw_caption(const struct view_ctx *v, struct view_out *out);
void view_draw_help(const struct view_ctx *v, struct view_out *out);
void view_draw_params(const struct view_ctx *v, struct view_out *out);
void view_draw_too_small(const struct view_ctx *v);

#endif
