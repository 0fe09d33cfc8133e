/* state_read: the read side of the screen's state (struct ui, state.c):
 * what is on screen, and the read-only picture of it all the views draw
 * from (view_ctx). Every function here takes a const struct ui; every
 * change is a named operation in state.c (tests/ui_state.sh). */
#include "plan_ctl.h"
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
        .caption_scroll = u->caption_scroll,
        .params = u->params,
        .n_params = u->n_params,
        .params_more = u->params_more,
        .param_sel = u->param_sel,
    };
    plan_ctl_view(u->plan, &v->plan);
}
