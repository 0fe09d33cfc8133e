/* ui: the interactive screen's state (state.c) and what changes it.
 * struct ui is opaque here: its members are in state_internal.h, which
 * only state.c (the writer) and state_read.c (the reader) include. The
 * frame loop (app.c), input (input.c), the tour (tour.c), playback
 * (play.c) and knobs (knobs.c) read it through the getters and change it
 * through the named operations below (tests/ui_state.sh checks). Views
 * never see it: they get a read-only view_ctx (views/views.h).
 * Internal to tui/: the public face is tui.h. */
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

struct plan_ctl;

/* The state itself: its members are state.c's (tui/state_internal.h);
 * everyone else reads through the getters below and changes it through
 * the named operations. */
struct ui;

/* Reading the state (state_read.c): one getter a member. */
const struct catalog *ui_catalog(const struct ui *u);
const struct resolved *ui_resolved(const struct ui *u);
const struct sim *ui_sim(const struct ui *u);
bool ui_sim_owned(const struct ui *u);
bool ui_infer_mode(const struct ui *u);
double ui_speed(const struct ui *u);
int ui_speed_index(const struct ui *u);
bool ui_speed_chosen(const struct ui *u);
bool ui_paused(const struct ui *u);
bool ui_status_shown(const struct ui *u); /* a status message is on the screen */
double ui_wall_s(const struct ui *u);
enum ui_view ui_current_view(const struct ui *u);
int ui_stage(const struct ui *u);
int ui_selected_box(const struct ui *u);
const struct ui_knobs *ui_knob_table(const struct ui *u);
const int *ui_knob_sel(const struct ui *u);
int ui_undo_count(const struct ui *u);
bool ui_help_open(const struct ui *u);
bool ui_text_full(const struct ui *u);
/* Rows of the explanation the last frame showed (its panel, or the whole
 * screen with `e`); 0 before a stage view was drawn. */
int ui_text_page(const struct ui *u);
bool ui_mouse(const struct ui *u);
int ui_colors(const struct ui *u);
const struct layout *ui_layout(const struct ui *u);
bool ui_touring(const struct ui *u);
int ui_tour_stop(const struct ui *u);
bool ui_tour_swapped(const struct ui *u);
double ui_tour_next_s(const struct ui *u);
bool ui_playing(const struct ui *u);
bool ui_play_waiting(const struct ui *u);
bool ui_play_done(const struct ui *u);
int ui_pauses_reached(const struct ui *u);
int ui_back_to_pause(const struct ui *u);
bool ui_params_open(const struct ui *u);
int ui_param_sel(const struct ui *u);
int ui_n_params(const struct ui *u);
const struct ui_param *ui_params(const struct ui *u);

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
const struct setup *ui_setup_loaded(const struct ui *u); /* as loaded: r resets to it */
const struct infer_report *ui_infer(const struct ui *u); /* the setup served */
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
double ui_now_s(void);
/* The clickable place at a screen cell from the frame drawn last, or NULL. */
const struct hit_rect *ui_hit_at(const struct ui *u, int y, int x);

/* Named changes: the only writes to struct ui outside ui_new/ui_open. */
void ui_set_wall_clock(struct ui *u, double wall_s);
void ui_expire_status(struct ui *u); /* clears a status message past its time */
void ui_set_paused(struct ui *u, bool paused);
void ui_set_colors(struct ui *u, int colors, bool mouse); /* what the terminal offers */
void ui_choose_speed(struct ui *u, int dir);              /* +/-: a played script keeps it */
void ui_reset_animation(struct ui *u);            /* batches back to the start of the arrows */
void ui_set_infer_mode(struct ui *u, bool infer); /* then knobs_build: the mode's knobs */
/* what the screen shows */
void ui_show_overview(struct ui *u);
void ui_show_stage(struct ui *u, int stage); /* the box selection stays */
void ui_open_stage(struct ui *u, int stage); /* and selects its box */
/* p: starts (or keeps) the search of the setup and shows it; the tour
 * stops. msg says why not. */
void ui_show_plan(struct ui *u, char *msg, size_t msg_len);
struct plan_ctl *ui_plan(struct ui *u); /* NULL before the first p */
void ui_select_box(struct ui *u, int box);
void ui_toggle_help(struct ui *u);
void ui_close_help(struct ui *u);
/* Scroll by lines (negative: up), stopping at the top; the views clamp
 * the end when they draw. */
void ui_scroll_help(struct ui *u, int lines);
void ui_scroll_text(struct ui *u, int lines);
void ui_scroll_caption(struct ui *u, int lines); /* positive: back in the transcript */
void ui_set_text_full(struct ui *u, bool full);
/* A frame: lays out for cols x lines, clears the hit map and fills v with
 * the read-only picture of u; the views answer in the view_out returned,
 * which ui_frame_end takes back (the scrolls clamped to what fits). */
struct view_out *ui_frame_begin(struct ui *u, int cols, int lines, struct view_ctx *v);
void ui_frame_end(struct ui *u);
/* The read-only picture of u the views draw from (state_read.c). */
void ui_view_ctx(const struct ui *u, struct view_ctx *v);
/* knobs and undo */
void ui_knobs_clear(struct ui *u); /* no knobs, none selected */
void ui_knobs_add(struct ui *u, int stage, const struct field *f);
void ui_select_knob(struct ui *u, int stage, int i);
void ui_undo_push(struct ui *u, const struct setup *before); /* the oldest drops at UI_UNDO_MAX */
const struct setup *ui_undo_top(const struct ui *u);         /* NULL: nothing to undo */
void ui_undo_drop(struct ui *u);
void ui_undo_clear(struct ui *u);
void ui_keep_as_loaded(struct ui *u); /* the setup now is the one r resets to */
/* the tour */
void ui_tour_begin(struct ui *u);  /* at stop 0 */
void ui_tour_finish(struct ui *u); /* the flag only: tour_end restores the setup */
void ui_tour_stop_at(struct ui *u, int stop, double next_s); /* advancing at wall time next_s */
void ui_tour_hold(struct ui *u);                             /* no automatic advance */
/* Before a stop shows its own setup: the one on screen is saved, unless
 * a stop's own is already on screen. */
void ui_tour_save(struct ui *u);
void ui_tour_swap(struct ui *u, bool swapped); /* a stop's own setup is on screen */
const struct setup *ui_tour_saved(const struct ui *u);
/* playback (mlviz play) */
void ui_set_playing(struct ui *u, const char *caption); /* the transcript starts with it */
void ui_set_caption(struct ui *u, const char *text);
void ui_transcript_add(struct ui *u, const char *text, size_t len, bool printed);
void ui_transcript_clear(struct ui *u, const char *first);
/* The newest entry is a printed table's header row (the narration pane
 * pins it while the table's rows show). */
void ui_transcript_mark_header(struct ui *u);
/* The script's sim on screen (not the view's to free); its setup becomes
 * the one "as loaded". */
void ui_adopt_sim(struct ui *u, struct sim *sim);
void ui_forget_sim(struct ui *u); /* drops a script's sim without freeing it */
void ui_set_params(struct ui *u, const struct luahost_param *ps, size_t n);
void ui_set_param_value(struct ui *u, int i, const char *value);
void ui_select_param(struct ui *u, int delta);
void ui_toggle_params(struct ui *u);
void ui_apply_params_later(struct ui *u); /* restart with them at the next frame */
bool ui_take_params_apply(struct ui *u);  /* true once after ui_apply_params_later */
/* r, b: the script starts again at the next frame, replayed up to pause
 * to_pause (0: from the start). */
void ui_play_restart_later(struct ui *u, int to_pause);
bool ui_take_play_restart(struct ui *u);         /* true once after ui_play_restart_later */
void ui_play_continue(struct ui *u);             /* the presenter goes on from a pause */
void ui_play_paused(struct ui *u, bool waiting); /* one more pause met; waiting: stop there */
void ui_play_finished(struct ui *u);
void ui_play_replay_to(struct ui *u, int pause);
void ui_play_replayed(struct ui *u); /* back at the pause replayed to */
/* The script starts again: no pause met, the overview, the mode it began
 * in; true when the mode changed (the knobs need building). */
bool ui_play_started_again(struct ui *u);

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
