/* state_internal: the members of struct ui. Only tui/state.c (the
 * writer) and tui/state_read.c (the reader, on a const struct ui) include
 * this header, and white-box unit tests (tests/unit/tui); everyone else
 * sees an opaque struct ui (tui/ui.h). tests/ui_state.sh checks. */
#ifndef MLVIZ_STATE_INTERNAL_H
#define MLVIZ_STATE_INTERNAL_H

#include "ui.h"

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
    bool caption_home;  /* show the newest entry from its start (until the reader scrolls) */
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

    /* the plan screen (key p): its background search (plan_ctl.c) */
    struct plan_ctl *plan;

    /* what the views gave back for the frame drawn last */
    struct view_out out;
};

#endif
