/* ui: state shared by the interactive front end's modules (app.c runs the
 * loop; view_overview.c and view_stage.c draw; knobs.c turns knobs).
 * Internal to tui/: the public face is app.h. */
#ifndef MLVIZ_UI_H
#define MLVIZ_UI_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "hit.h"
#include "keys.h"
#include "layout.h"
#include "model.h"
#include "setup.h"
#include "sim.h"
#include "stagetext.h"

enum { UI_MAX_KNOBS = 24, UI_MSG_LEN = 320, UI_UNDO_MAX = 32, UI_TRANSCRIPT_MAX = 256, UI_SERIES_MAX = 512,
       UI_MAX_PARAMS = 16 };

enum ui_view { VIEW_OVERVIEW, VIEW_STAGE, VIEW_PLAN };

/* The tour: an intro stop, one per stage, an outro. */
enum { TOUR_STOPS = STAGE_COUNT + 2 };

/* One entry of a played scenario's transcript: a say() or a printed line. */
struct ui_said {
    char text[UI_MSG_LEN * 2];
    bool printed;
};

struct ui_knobs {
    const struct field *field[UI_MAX_KNOBS];
    int count;
};

struct ui {
    /* what runs */
    struct catalog *cat;
    struct setup setup;       /* the current setup (knobs edit it) */
    struct setup setup0;      /* as loaded, for reset */
    struct setup undo[UI_UNDO_MAX]; /* setups before the latest knob changes (u) */
    int undo_count;
    struct resolved res;
    struct model_report report; /* model_eval of `setup` */
    struct sim *sim;          /* NULL when the setup cannot run */
    bool sim_owned;           /* false while playing a script's sim */
    struct sim_live live;
    struct sim_counters counters;
    char sim_error[UI_MSG_LEN];

    /* time */
    double speed;             /* simulated seconds per wall second */
    int speed_index;
    bool speed_chosen;        /* by --speed or +/-: a played script keeps it */
    bool paused;
    bool lagging;             /* the sim could not keep up with the speed */
    double anim_phase[ARROW_COUNT]; /* batch positions along the arrows, 0..1 */
    double wall_s;            /* wall clock since start */

    /* screen */
    enum ui_view view;
    int stage;                /* open stage view (enum stage_id) */
    int selected_box;         /* overview keyboard selection */
    int knob_sel[STAGE_COUNT];
    struct ui_knobs knobs[STAGE_COUNT];
    bool help;
    int help_scroll;          /* first help line shown */
    int text_scroll;          /* first explanation line shown (stage view) */
    int text_stage;           /* the stage text_scroll belongs to */
    bool text_full;           /* the explanation fills the screen */
    bool mouse;
    int colors;               /* colours in use (0: none, NO_COLOR or --mono) */
    struct layout lay;
    struct hit_map hits;
    struct stage_texts *texts;
    char status[UI_MSG_LEN];  /* a transient message (knob error...) */
    double status_until_s;

    /* tour and narration */
    bool tour;
    int tour_stop;
    struct setup tour_saved;  /* the setup before the tour loaded its own */
    bool tour_swapped;        /* a stop shows its own setup (assets/tour/) */
    double tour_next_s;       /* wall time of the automatic advance */
    char caption[UI_MSG_LEN * 2]; /* what plays (mlviz play), above the transcript */
    struct ui_said transcript[UI_TRANSCRIPT_MAX]; /* narration and output, oldest first */
    int transcript_count;
    int caption_scroll;       /* transcript lines scrolled back from the newest */
    bool playing;             /* mlviz play */
    bool play_waiting;        /* the script paused for the presenter */
    bool play_done;
    int pauses_reached;       /* pause() calls met in this run of the script */
    int back_to_pause;        /* b: re-running up to this pause (0: not re-running) */
    bool play_restart;        /* r, b: start the script again at the next frame */

    /* the played scenario's parameters, as knobs (key o) */
    bool params_open;
    bool params_apply;        /* restart with `param_value` at the next frame */
    int param_sel;
    int n_params;
    char param_name[UI_MAX_PARAMS][64];
    char param_type[UI_MAX_PARAMS][16];
    char param_help[UI_MAX_PARAMS][256];
    char param_value[UI_MAX_PARAMS][64];

    /* the plan screen (key p): its background search, view_plan.c */
    struct plan_view *plan;

    /* series scratch for sparklines */
    double series[UI_SERIES_MAX];
};

/* The report everything on screen shows: the sim's when running. */
const struct model_report *ui_report(const struct ui *u);
const struct setup *ui_setup(const struct ui *u);
/* The stage that limits the run now (enum stage_id), or -1 when the setup
 * cannot run. The steady-state report decides unless the step loop's live
 * state says otherwise (racks throttled below the steady state, devices
 * down): then *live is true and why says what happens now and what the
 * steady state would be. Otherwise why is the report's reason. */
int ui_bottleneck(const struct ui *u, char *why, size_t why_len, bool *live);
/* Live figures: from the step loop where one runs (a utilization scaled
 * by the clocks the racks allow now against the steady state's; IT power
 * from the newest sample), else the steady-state report's. */
double ui_live_util(const struct ui *u, double steady);
double ui_live_it_kw(const struct ui *u);
/* Newest n samples of a series into u->series; returns how many. */
size_t ui_series(struct ui *u, enum sim_series_id id, size_t n);
/* Throughput (tokens/s) averaged over about one training step, newest n
 * samples into u->series (raw samples are bursty: steps end in jumps). */
size_t ui_throughput(struct ui *u, size_t n);
void ui_set_status(struct ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* views */
void view_overview_draw(struct ui *u);
void view_stage_draw(struct ui *u);
/* A stage's own picture drawn into a rectangle (stage view; also inside
 * the overview's boxes when they are tall enough). */
void view_stage_picture(struct ui *u, int stage, struct rect in);
void view_draw_title(struct ui *u, const char *where);
void view_draw_footer(struct ui *u, unsigned context);
void view_draw_caption(struct ui *u);
/* Short display name of a catalog entry ("H100 SXM"). */
const char *ui_short_name(const char *name, char *buf, size_t len);

/* the plan screen (view_plan.c) */
struct plan_view;
void view_plan_open(struct ui *u); /* shows it; starts a search of the current setup */
void view_plan_draw(struct ui *u);
/* Row selection and Enter (load the row); false when not a plan action. */
bool view_plan_key(struct ui *u, enum key_action act, int arg);
void view_plan_free(struct ui *u); /* stops the search */

/* knobs */
void knobs_build(struct ui *u);
/* Change knob i of the open stage by one step (dir +1/-1, 0 = set auto).
 * Applies the new setup at once; returns false with a status message. */
bool knobs_step(struct ui *u, int stage, int i, int dir);
/* Human label of a knob ("loader workers per device"). */
void knobs_label(const struct field *f, char *buf, size_t len);
/* u: back to the setup before the last knob change. */
void knobs_undo(struct ui *u);
/* w: the current setup as YAML in a new file in the current directory. */
void knobs_write(struct ui *u);
/* Re-evaluate the model and carry the sim over to a new setup. */
bool ui_apply_setup(struct ui *u, const struct setup *s, char *err, size_t err_len);

#endif
