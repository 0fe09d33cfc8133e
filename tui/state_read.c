/* state_read: the read side of the screen's state (struct ui, state.c):
 * what is on screen, and the read-only picture of it all the views draw
 * from (view_ctx). Every function here takes a const struct ui; every
 * change is a named operation in state.c (tests/ui_state.sh). */
#include "plan_ctl.h"
#include "state_internal.h"
#include "ui.h"

const struct model_report *ui_report(const struct ui *u)
{
    return u->sim ? sim_report(u->sim) : &u->report;
}

const struct setup *ui_setup(const struct ui *u)
{
    return u->sim ? sim_setup(u->sim) : &u->setup;
}

const struct infer_report *ui_infer(const struct ui *u)
{
    return &u->infer;
}

const struct setup *ui_setup_loaded(const struct ui *u)
{
    return &u->setup0;
}

const struct setup *ui_tour_saved(const struct ui *u)
{
    return &u->tour_saved;
}

const struct setup *ui_undo_top(const struct ui *u)
{
    return u->undo_count > 0 ? &u->undo[u->undo_count - 1] : NULL;
}

const struct hit_rect *ui_hit_at(const struct ui *u, int y, int x)
{
    return hit_find(&u->hits, y, x);
}

void ui_view_ctx(const struct ui *u, struct view_ctx *v)
{
    *v = (struct view_ctx){
        .cat = u->cat,
        .setup = ui_setup(u),
        .setup0 = &u->setup0,
        .res = &u->res,
        .report = ui_report(u),
        .infer = &u->infer,
        .infer_mode = u->infer_mode,
        .sim = u->sim,
        .live = &u->live,
        .counters = &u->counters,
        .win = &u->win.avg,
        .win_steady = u->win.steady,
        .texts = u->texts,
        .lay = &u->lay,
        .speed = u->speed,
        .wall_s = u->wall_s,
        .paused = u->paused,
        .lagging = u->lagging,
        .anim_phase = u->anim_phase,
        .anim_rate = u->anim_rate,
        .stage = u->stage,
        .selected_box = u->selected_box,
        .knobs = u->knobs,
        .knob_sel = u->knob_sel,
        .text_scroll = u->text_scroll,
        .text_full = u->text_full,
        .help_scroll = u->help_scroll,
        .status = u->status,
        .tour = u->tour,
        .tour_stop = u->tour_stop,
        .playing = u->playing,
        .play_waiting = u->play_waiting,
        .play_done = u->play_done,
        .transcript = u->transcript,
        .transcript_count = u->transcript_count,
        .caption_scroll = u->caption_home ? -1 : u->caption_scroll,
        .params = u->params,
        .n_params = u->n_params,
        .params_more = u->params_more,
        .param_sel = u->param_sel,
    };
    plan_ctl_view(u->plan, &v->plan);
}

/* ---- one getter a member read outside state.c ---- */

const struct catalog *ui_catalog(const struct ui *u)
{
    return u->cat;
}

const struct resolved *ui_resolved(const struct ui *u)
{
    return &u->res;
}

const struct sim *ui_sim(const struct ui *u)
{
    return u->sim;
}

bool ui_sim_owned(const struct ui *u)
{
    return u->sim_owned;
}

bool ui_infer_mode(const struct ui *u)
{
    return u->infer_mode;
}

double ui_speed(const struct ui *u)
{
    return u->speed;
}

int ui_speed_index(const struct ui *u)
{
    return u->speed_index;
}

bool ui_speed_chosen(const struct ui *u)
{
    return u->speed_chosen;
}

bool ui_paused(const struct ui *u)
{
    return u->paused;
}

bool ui_status_shown(const struct ui *u)
{
    return u->status[0] != '\0';
}

double ui_wall_s(const struct ui *u)
{
    return u->wall_s;
}

enum ui_view ui_current_view(const struct ui *u)
{
    return u->view;
}

int ui_stage(const struct ui *u)
{
    return u->stage;
}

int ui_selected_box(const struct ui *u)
{
    return u->selected_box;
}

const struct ui_knobs *ui_knob_table(const struct ui *u)
{
    return u->knobs;
}

const int *ui_knob_sel(const struct ui *u)
{
    return u->knob_sel;
}

int ui_undo_count(const struct ui *u)
{
    return u->undo_count;
}

bool ui_help_open(const struct ui *u)
{
    return u->help;
}

bool ui_text_full(const struct ui *u)
{
    return u->text_full;
}

int ui_text_page(const struct ui *u)
{
    return u->out.text_page;
}

bool ui_mouse(const struct ui *u)
{
    return u->mouse;
}

int ui_colors(const struct ui *u)
{
    return u->colors;
}

const struct layout *ui_layout(const struct ui *u)
{
    return &u->lay;
}

bool ui_touring(const struct ui *u)
{
    return u->tour;
}

int ui_tour_stop(const struct ui *u)
{
    return u->tour_stop;
}

bool ui_tour_swapped(const struct ui *u)
{
    return u->tour_swapped;
}

double ui_tour_next_s(const struct ui *u)
{
    return u->tour_next_s;
}

bool ui_playing(const struct ui *u)
{
    return u->playing;
}

bool ui_play_waiting(const struct ui *u)
{
    return u->play_waiting;
}

bool ui_play_done(const struct ui *u)
{
    return u->play_done;
}

int ui_pauses_reached(const struct ui *u)
{
    return u->pauses_reached;
}

int ui_back_to_pause(const struct ui *u)
{
    return u->back_to_pause;
}

bool ui_params_open(const struct ui *u)
{
    return u->params_open;
}

int ui_param_sel(const struct ui *u)
{
    return u->param_sel;
}

int ui_n_params(const struct ui *u)
{
    return u->n_params;
}

const struct ui_param *ui_params(const struct ui *u)
{
    return u->params;
}
