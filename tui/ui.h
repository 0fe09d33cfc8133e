/* ui: the interactive screen's state (state.c) and what changes it. The
 * frame loop (app.c), input (input.c), the tour (tour.c), playback
 * (play.c) and knobs (knobs.c) use it; views never see it: they get a
 * read-only view_ctx (views/views.h). Internal to tui/: the public face
 * is tui.h. */
#ifndef MLVIZ_UI_H
#define MLVIZ_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "hit.h"
#include "infer.h"
#include "keys.h"
#include "layout.h"
#include "model.h"
#include "setup.h"
#include "sim.h"
#include "stagetext.h"
#include "tui.h"
#include "views.h"

enum { UI_UNDO_MAX = 32 };

struct plan_view;

struct ui {
    /* what runs */
    struct catalog *cat;
    struct setup setup;             /* the current setup (knobs edit it) */
    struct setup setup0;            /* as loaded, for reset */
    struct setup undo[UI_UNDO_MAX]; /* setups before the latest knob changes (u) */
    int undo_count;
    struct resolved res;
    struct model_report report; /* model_eval of `setup` */
    struct infer_report infer;  /* infer_eval of `setup`: serving it */
    bool infer_mode;            /* the views read the setup for serving (key i, --infer) */
    bool infer_start;           /* --infer: the mode a restarted story begins in */
    struct sim *sim;            /* NULL when the setup cannot run */
    bool sim_owned;             /* false while playing a script's sim */
    struct sim_live live;
    struct sim_counters counters;
    char sim_error[UI_MSG_LEN];
    /* live figures: averages over whole steps since the setup last changed
     * (state.c, ui_refresh_live) */
    struct ui_window {
        const struct sim *sim;   /* the sim it follows (a new one restarts it) */
        double key[3];           /* step, tokens/s, IT power it was started on */
        double time_s;           /* the sim's clock when last seen */
        uint64_t steps_at_start; /* completed steps when it restarted */
        uint64_t skip_steps;     /* steps fed from batches already queued then */
        double since_s;          /* steps after this count (NAN: not yet) */
        struct sim_window avg;
        bool steady; /* the average is steady (else its figures show "~") */
    } win;

    /* time */
    double speed; /* simulated seconds per wall second */
    int speed_index;
    bool speed_chosen; /* by --speed or +/-: a played script keeps it */
    bool paused;
    bool lagging;                   /* the sim could not keep up with the speed */
    double anim_phase[ARROW_COUNT]; /* batch positions along the arrows, 0..1 */
    double anim_rate[ARROW_COUNT];  /* flow rates averaged over about a step (batches/s) */
    double wall_s;                  /* wall clock since start */

    /* screen */
    enum ui_view view;
    int stage;        /* open stage view (enum stage_id) */
    int selected_box; /* overview keyboard selection */
    int knob_sel[STAGE_COUNT];
    struct ui_knobs knobs[STAGE_COUNT];
    bool help;
    int help_scroll; /* first help line shown */
    int text_scroll; /* first explanation line shown (stage view) */
    int text_stage;  /* the stage text_scroll belongs to */
    bool text_full;  /* the explanation fills the screen */
    bool mouse;
    int colors; /* colours in use (0: none, NO_COLOR or --mono) */
    struct layout lay;
    struct hit_map hits;
    struct stage_texts *texts;
    char status[UI_MSG_LEN]; /* a transient message (knob error...) */
    double status_until_s;

    /* tour and narration */
    bool tour;
    int tour_stop;
    struct setup tour_saved;      /* the setup before the tour loaded its own */
    bool tour_swapped;            /* a stop shows its own setup (assets/tour/) */
    double tour_next_s;           /* wall time of the automatic advance */
    char caption[UI_MSG_LEN * 2]; /* what plays (mlviz play), above the transcript */
    struct ui_said transcript[UI_TRANSCRIPT_MAX]; /* narration and output, oldest first */
    int transcript_count;
    int caption_scroll; /* transcript lines scrolled back from the newest */
    bool playing;       /* mlviz play */
    bool play_waiting;  /* the script paused for the presenter */
    bool play_done;
    int pauses_reached; /* pause() calls met in this run of the script */
    int back_to_pause;  /* b: re-running up to this pause (0: not re-running) */
    bool play_restart;  /* r, b: start the script again at the next frame */

    /* the played scenario's parameters, as knobs (key o) */
    bool params_open;
    bool params_apply; /* restart with `param_value` at the next frame */
    int param_sel;
    int n_params;
    int params_more; /* declared beyond UI_MAX_PARAMS (none while it is the host's limit) */
    struct ui_param params[UI_MAX_PARAMS];

    /* the plan screen (key p): its background search, view_plan.c */
    struct plan_view *plan;

    /* what the views gave back for the frame drawn last */
    struct view_out out;
};

/* ---- state.c ---- */

/* The speeds + and - offer, simulated seconds per wall second. */
enum { UI_SPEED_COUNT = 16 };
extern const double ui_speeds[UI_SPEED_COUNT];

struct ui *ui_new(void); /* loads the stage texts; NULL when out of memory */
void ui_free(struct ui *u);
/* Takes the catalog and the setup of o; evaluates it and starts a sim. */
void ui_open(struct ui *u, struct tui_options *o);
/* The report everything on screen shows: the sim's when running. */
const struct model_report *ui_report(const struct ui *u);
const struct setup *ui_setup(const struct ui *u);
void ui_set_status(struct ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Evaluate u->setup for training (u->report) and serving (u->infer). */
void ui_eval(struct ui *u);
/* Re-evaluate the model and carry the sim over to a new setup. */
bool ui_apply_setup(struct ui *u, const struct setup *s, char *err, size_t err_len);
/* A fresh sim of u->setup (false, with u->sim_error, when it cannot run). */
bool ui_new_sim(struct ui *u);
void ui_free_sim(struct ui *u);
/* Live sample and counters from the sim (or the report when none runs). */
void ui_refresh_live(struct ui *u);
/* The offered speed nearest one training step per 1.5 wall seconds. */
void ui_pick_speed(struct ui *u);
/* One offered speed up (+1) or down (-1). */
void ui_change_speed(struct ui *u, int dir);
/* Advance the sim by up to sim_dt simulated seconds in slices, stopping
 * when the frame's wall-clock budget (*budget_s, reduced by the time used)
 * runs out; sets u->lagging then. Returns the simulated time advanced, or
 * -1 when the sim failed (message in err). */
double ui_advance(struct ui *u, double sim_dt, double *budget_s, char *err, size_t err_len);
/* `.` while paused: run until one more training step completes. */
void ui_single_step(struct ui *u);
/* Move the batches along the arrows for wall_dt of wall time. */
void ui_animate(struct ui *u, double wall_dt);
/* The read-only picture of u the views draw from. */
void ui_view_ctx(const struct ui *u, struct view_ctx *v);
double ui_now_s(void);

/* ---- knobs.c ---- */
void knobs_build(struct ui *u);
/* Change knob i of the open stage by one step (dir +1/-1, 0 = set auto).
 * Applies the new setup at once; returns false with a status message. */
bool knobs_step(struct ui *u, int stage, int i, int dir);
/* u: back to the setup before the last knob change. */
void knobs_undo(struct ui *u);
/* w: the current setup as YAML in a new file in the current directory. */
void knobs_write(struct ui *u);

/* ---- tour.c ---- */
void tour_start(struct ui *u);
void tour_end(struct ui *u);
/* A key of the stop's own view (a knob turned): the stop stays until n. */
void tour_hands_on(struct ui *u);
void tour_move(struct ui *u, int dir);

/* ---- input.c ---- */
/* One key (or KEY_MOUSE, KEY_RESIZE); returns false to quit. */
bool input_key(struct ui *u, int ch);
/* One action; returns false to quit. */
bool input_action(struct ui *u, enum key_action act, int arg);

#endif
