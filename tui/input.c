/* input: keys and mouse clicks become actions (through the key table and
 * the hit rectangles the views registered), and each action has one
 * handler in the table below. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_ctl.h"
#include "theme.h"
#include "ui.h"
#include "units.h"

static unsigned key_context(const struct ui *u)
{
    if (ui_help_open(u))
        return KEYCTX_HELP;
    if (ui_params_open(u))
        return KEYCTX_PARAMS;
    if (ui_touring(u) || ui_playing(u))
        return KEYCTX_TOUR; /* n / Enter continue a played story too */
    if (ui_current_view(u) == VIEW_PLAN)
        return KEYCTX_PLAN;
    return ui_current_view(u) == VIEW_STAGE ? KEYCTX_STAGE : KEYCTX_OVERVIEW;
}

/* Moving the box selection with arrows follows the picture: Data, CPUs,
 * Accelerators on top; Infrastructure, Interconnect below. */
static int box_neighbour(int box, int dir)
{
    /* grid positions: row 0: 0 1 2, row 1: 4 _ 3 */
    static const int right_of[STAGE_COUNT] = {1, 2, 2, 3, 3};
    static const int left_of[STAGE_COUNT] = {0, 0, 1, 4, 4};
    static const int up_of[STAGE_COUNT] = {0, 1, 2, 2, 0};
    static const int down_of[STAGE_COUNT] = {4, 4, 3, 3, 4};
    switch (dir) {
    case DIR_LEFT:
        return left_of[box];
    case DIR_RIGHT:
        return right_of[box];
    case DIR_UP:
        return up_of[box];
    default:
        return down_of[box];
    }
}

static void knob_select(struct ui *u, int delta)
{
    int n = ui_knob_table(u)[ui_stage(u)].count;
    if (n <= 0)
        return;
    ui_select_knob(u, ui_stage(u), ((ui_knob_sel(u)[ui_stage(u)] + delta) % n + n) % n);
}

static void reset(struct ui *u)
{
    char err[UI_MSG_LEN];
    if (ui_playing(u)) {
        ui_play_restart_later(u, 0); /* the scenario from the start */
        return;
    }
    if (!ui_apply_setup(u, ui_setup_loaded(u), err, sizeof err))
        ui_set_status(u, "reset failed: %s", err);
    ui_undo_clear(u);
    ui_new_sim(u);
    ui_refresh_live(u);
    ui_reset_animation(u);
    ui_set_status(u, "restarted from the setup as loaded");
}

static void cycle_theme(const struct ui *u)
{
    static const enum theme_id order[] = {THEME_DEFAULT, THEME_LIGHT, THEME_CONTRAST, THEME_MONO};
    enum theme_id cur = theme_current();
    size_t n = sizeof order / sizeof order[0], next = 0;
    for (size_t i = 0; i < n; i++)
        if (order[i] == cur)
            next = (i + 1) % n;
    theme_apply(theme_choose(order[next], ui_colors(u), ui_colors(u) == 0));
}

/* The value after `value` of a scenario parameter of `type`, into v:
 * numbers in [0.05, 1) step by a tenth (shares), other numbers double or
 * halve (while the double holds them), durations ("10m") double or
 * halve, booleans flip. False for other text, which is set on the command
 * line. */
static bool param_next(const char *value, const char *type, int dir, char *v, size_t cap)
{
    if (strcmp(type, "boolean") == 0) {
        snprintf(v, cap, "%s", strcmp(value, "true") == 0 ? "false" : "true");
        return true;
    }
    double x, seconds;
    char *end;
    x = strtod(value, &end);
    if (strcmp(type, "number") == 0 && end != value && *end == '\0') {
        if (x >= 0.05 && x < 1) {
            x += 0.1 * dir;
            x = x < 0.05 ? 0.05 : x > 0.95 ? 0.95 : x;
            snprintf(v, cap, "%.2g", x);
        } else if (x == 0) {
            snprintf(v, cap, "%d", dir > 0 ? 1 : 0);
        } else {
            /* The script reads this text and people see it formatted
             * (views/chrome.c): every digit, so that doubling and halving
             * come back to where they began. */
            double y = dir > 0 ? x * 2 : x / 2;
            output_format_number(v, cap, isfinite(y) && y != 0 ? y : x, 17);
        }
        return true;
    }
    if (fields_parse_duration(value, &seconds) && seconds > 0) {
        /* Written back in the largest unit that keeps it readable: 20m, 2h, 3d. */
        format_duration_value(v, cap, dir > 0 ? seconds * 2 : seconds / 2);
        return true;
    }
    return false;
}

static void param_step(struct ui *u, int i, int dir)
{
    const struct ui_param *q = &ui_params(u)[i];
    char v[sizeof q->value];
    if (!param_next(q->value, q->type, dir, v, sizeof v)) {
        ui_set_status(u, "%s is text: set it with --%s=... on the command line", q->name, q->name);
        return;
    }
    ui_set_param_value(u, i, v);
}

typedef bool (*action_fn)(struct ui *u, enum key_action act, int arg);

static bool on_quit(struct ui *u, enum key_action act, int arg)
{
    (void)u, (void)act, (void)arg;
    return false;
}

static bool on_help(struct ui *u, enum key_action act, int arg)
{
    if (act == ACT_HELP)
        ui_toggle_help(u);
    else
        ui_scroll_help(u, arg);
    return true;
}

static bool on_pause(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (ui_playing(u) && ui_play_waiting(u))
        ui_play_continue(u); /* space also continues a paused story */
    else
        ui_set_paused(u, !ui_paused(u));
    return true;
}

static bool on_step(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (ui_paused(u))
        ui_single_step(u);
    else
        ui_set_status(u, "'.' steps once when paused (space pauses)");
    return true;
}

static bool on_speed(struct ui *u, enum key_action act, int arg)
{
    (void)arg;
    ui_choose_speed(u, act == ACT_FASTER ? +1 : -1);
    return true;
}

static bool on_reset(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    reset(u);
    return true;
}

static bool on_tour(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (ui_playing(u)) {
        ui_show_overview(u); /* no tour while a story plays: Esc goes back */
    } else if (ui_touring(u)) {
        tour_end(u);
        ui_show_overview(u);
    } else {
        tour_start(u);
    }
    return true;
}

static bool on_infer(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    ui_set_infer_mode(u, !ui_infer_mode(u));
    knobs_build(u); /* the mode's own knobs */
    return true;
}

static bool on_theme(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    cycle_theme(u);
    return true;
}

static bool on_open(struct ui *u, enum key_action act, int arg)
{
    (void)act;
    if (arg >= 0 && arg < STAGE_COUNT) {
        tour_end(u);
        ui_open_stage(u, arg);
    }
    return true;
}

static bool on_select(struct ui *u, enum key_action act, int arg)
{
    (void)act;
    ui_select_box(u, box_neighbour(ui_selected_box(u), arg));
    return true;
}

static bool on_enter(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    ui_open_stage(u, ui_selected_box(u));
    return true;
}

static bool on_back(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (ui_text_full(u)) {
        ui_set_text_full(u, false);
        return true;
    }
    ui_show_overview(u);
    tour_end(u);
    return true;
}

static bool on_knob_select(struct ui *u, enum key_action act, int arg)
{
    if (act == ACT_KNOB_PICK) {
        /* Knob indices from the mouse are 1-based (0 means the selected one). */
        ui_select_knob(u, ui_stage(u), arg - 1);
    } else {
        knob_select(u, act == ACT_KNOB_NEXT ? +1 : -1);
    }
    return true;
}

static bool on_knob_change(struct ui *u, enum key_action act, int arg)
{
    /* Mouse clicks on a knob's arrows carry its index + 1. */
    if (act != ACT_KNOB_AUTO && arg > 0)
        ui_select_knob(u, ui_stage(u), arg - 1);
    int dir = act == ACT_KNOB_INC ? +1 : act == ACT_KNOB_DEC ? -1 : 0;
    if (ui_knob_table(u)[ui_stage(u)].count > 0)
        knobs_step(u, ui_stage(u), ui_knob_sel(u)[ui_stage(u)], dir);
    return true;
}

static bool on_tour_next(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (ui_playing(u) && ui_play_waiting(u))
        ui_play_continue(u);
    else if (!ui_playing(u))
        tour_move(u, +1);
    return true;
}

static bool on_tour_prev(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (!ui_playing(u)) {
        tour_move(u, -1);
    } else {
        /* Back to the pause before the one on screen, by running the
         * script again (same seed and parameters) up to it. */
        ui_play_restart_later(u,
                              ui_play_waiting(u) ? ui_pauses_reached(u) - 1 : ui_pauses_reached(u));
    }
    return true;
}

static bool on_text_scroll(struct ui *u, enum key_action act, int arg)
{
    /* A page is what the last frame showed, in the panel or full screen
     * (the position on the border counts pages of that many rows). */
    int page = ui_text_page(u) > 0 ? ui_text_page(u) : 1;
    int lines = arg > 0 ? arg : arg < 0 ? 1 << 20 : page;
    ui_scroll_text(u, act == ACT_TEXT_UP ? -lines : lines);
    return true;
}

static bool on_text_full(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    ui_set_text_full(u, !ui_text_full(u));
    return true;
}

static bool on_undo(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    knobs_undo(u);
    return true;
}

static bool on_write(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    knobs_write(u);
    return true;
}

static bool on_caption_scroll(struct ui *u, enum key_action act, int arg)
{
    if (!ui_playing(u)) /* the tour: its caption is short; PgUp/PgDn scroll the explanation */
        return on_text_scroll(u, act == ACT_CAPTION_BACK ? ACT_TEXT_UP : ACT_TEXT_DOWN, arg);
    int page =
        ui_layout(u)->caption.h > 1 ? ui_layout(u)->caption.h - 1 : 1; /* the prompt row stays */
    int lines = arg > 0 ? arg : page;
    ui_scroll_caption(u, act == ACT_CAPTION_BACK ? lines : -lines);
    return true;
}

static bool on_params(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (!ui_playing(u))
        ui_set_status(u, "parameters belong to a played scenario (mlviz play)");
    else if (ui_n_params(u) == 0 && !ui_params_open(u))
        ui_set_status(u, "this scenario declares no parameters");
    else
        ui_toggle_params(u);
    return true;
}

static bool on_param(struct ui *u, enum key_action act, int arg)
{
    if (act == ACT_PARAM_APPLY)
        ui_apply_params_later(u);
    else if (act == ACT_PARAM_SEL)
        ui_select_param(u, arg);
    else if (ui_n_params(u) > 0)
        param_step(u, ui_param_sel(u), arg);
    return true;
}

static bool on_plan(struct ui *u, enum key_action act, int arg)
{
    char msg[UI_MSG_LEN] = "";
    struct setup s;
    int rank = 0;
    if (act == ACT_PLAN) {
        ui_show_plan(u, msg, sizeof msg);
    } else if (act == ACT_PLAN_ROW) {
        plan_ctl_row(ui_plan(u), arg);
    } else if (plan_ctl_pick(ui_plan(u), &s, &rank, msg, sizeof msg)) {
        char err[UI_MSG_LEN];
        if (!ui_apply_setup(u, &s, err, sizeof err)) {
            ui_set_status(u, "cannot load rank %d: %s", rank, err);
            return true;
        }
        ui_set_status(u, "loaded plan rank %d into the live view", rank);
        ui_show_overview(u);
    }
    if (msg[0])
        ui_set_status(u, "%s", msg);
    return true;
}

/* What each action does (ACT_NONE and actions without a handler: nothing). */
static const action_fn handlers[ACT_COUNT] = {
    [ACT_QUIT] = on_quit,
    [ACT_HELP] = on_help,
    [ACT_HELP_SCROLL] = on_help,
    [ACT_PAUSE] = on_pause,
    [ACT_STEP] = on_step,
    [ACT_FASTER] = on_speed,
    [ACT_SLOWER] = on_speed,
    [ACT_RESET] = on_reset,
    [ACT_TOUR] = on_tour,
    [ACT_THEME] = on_theme,
    [ACT_OPEN] = on_open,
    [ACT_SELECT] = on_select,
    [ACT_ENTER] = on_enter,
    [ACT_BACK] = on_back,
    [ACT_KNOB_NEXT] = on_knob_select,
    [ACT_KNOB_PREV] = on_knob_select,
    [ACT_KNOB_PICK] = on_knob_select,
    [ACT_KNOB_INC] = on_knob_change,
    [ACT_KNOB_DEC] = on_knob_change,
    [ACT_KNOB_AUTO] = on_knob_change,
    [ACT_TOUR_NEXT] = on_tour_next,
    [ACT_TOUR_PREV] = on_tour_prev,
    [ACT_TEXT_UP] = on_text_scroll,
    [ACT_TEXT_DOWN] = on_text_scroll,
    [ACT_TEXT_FULL] = on_text_full,
    [ACT_UNDO] = on_undo,
    [ACT_WRITE] = on_write,
    [ACT_CAPTION_BACK] = on_caption_scroll,
    [ACT_CAPTION_ON] = on_caption_scroll,
    [ACT_PARAMS] = on_params,
    [ACT_PARAM_SEL] = on_param,
    [ACT_PARAM_CHANGE] = on_param,
    [ACT_PARAM_APPLY] = on_param,
    [ACT_PLAN] = on_plan,
    [ACT_PLAN_ROW] = on_plan,
    [ACT_PLAN_LOAD] = on_plan,
    [ACT_INFER] = on_infer,
};

bool input_action(struct ui *u, enum key_action act, int arg)
{
    if (act <= ACT_NONE || act >= ACT_COUNT || !handlers[act])
        return true;
    return handlers[act](u, act, arg);
}

/* The action of the hit rectangle under a mouse event. */
static bool handle_mouse(struct ui *u)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return true;
    const struct hit_rect *h = ui_hit_at(u, ev.y, ev.x);
    if (ui_help_open(u)) {
        ui_close_help(u); /* any click closes the help */
        return true;
    }
    if (!h)
        return true;
    if (ev.bstate & BUTTON4_PRESSED)
        return input_action(u, h->wheel_up, h->arg);
    if (ev.bstate & BUTTON5_PRESSED)
        return input_action(u, h->wheel_down, h->arg);
    if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
        return input_action(u, h->action, h->arg);
    return true;
}

bool input_key(struct ui *u, int ch)
{
    if (ch == KEY_RESIZE)
        return true; /* the next frame lays out again */
    if (ch == KEY_MOUSE)
        return handle_mouse(u);
    int arg = 0;
    enum key_action act = keys_lookup(ch, key_context(u), &arg);
    if (ui_help_open(u) && act == ACT_NONE) {
        ui_close_help(u); /* any other key closes the help */
        return true;
    }
    /* In a stage view of the tour, Left and Right turn the knob its caption
     * names (n and b move between stops). */
    bool knob_key = ch == KEY_RIGHT || ch == KEY_LEFT;
    if (ui_touring(u) && !ui_playing(u) && ui_current_view(u) == VIEW_STAGE && knob_key)
        act = ACT_NONE;
    if (act == ACT_NONE && (ui_touring(u) || ui_playing(u))) {
        /* Keys of the underlying view still work during the tour; using
         * them holds the stop (no automatic advance mid-experiment). */
        act = keys_lookup(ch, ui_current_view(u) == VIEW_STAGE ? KEYCTX_STAGE : KEYCTX_OVERVIEW,
                          &arg);
        if (act != ACT_NONE && !ui_playing(u))
            tour_hands_on(u);
    }
    return input_action(u, act, arg);
}
