/* input: keys and mouse clicks become actions (through the key table and
 * the hit rectangles the views registered), and each action has one
 * handler in the table below. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_view.h"
#include "theme.h"
#include "ui.h"

static unsigned key_context(const struct ui *u)
{
    if (u->help)
        return KEYCTX_HELP;
    if (u->params_open)
        return KEYCTX_PARAMS;
    if (u->tour || u->playing)
        return KEYCTX_TOUR; /* n / Enter continue a played story too */
    if (u->view == VIEW_PLAN)
        return KEYCTX_PLAN;
    return u->view == VIEW_STAGE ? KEYCTX_STAGE : KEYCTX_OVERVIEW;
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
    int n = u->knobs[u->stage].count;
    if (n <= 0)
        return;
    int *sel = &u->knob_sel[u->stage];
    *sel = ((*sel + delta) % n + n) % n;
}

static void reset(struct ui *u)
{
    char err[UI_MSG_LEN];
    if (u->playing) {
        u->play_restart = true; /* the scenario from the start */
        u->back_to_pause = 0;
        return;
    }
    if (!ui_apply_setup(u, &u->setup0, err, sizeof err))
        ui_set_status(u, "reset failed: %s", err);
    u->undo_count = 0;
    ui_new_sim(u);
    ui_refresh_live(u);
    memset(u->anim_phase, 0, sizeof u->anim_phase);
    memset(u->anim_rate, 0, sizeof u->anim_rate);
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
    theme_apply(theme_choose(order[next], u->colors, u->colors == 0));
}

/* Steps a scenario parameter: numbers in (0, 1) by a tenth (shares),
 * other numbers double or halve, durations ("10m") double or halve,
 * booleans flip. Other text is set on the command line. */
static void param_step(struct ui *u, int i, int dir)
{
    char *v = u->params[i].value;
    size_t cap = sizeof u->params[i].value;
    if (strcmp(u->params[i].type, "boolean") == 0) {
        snprintf(v, cap, "%s", strcmp(v, "true") == 0 ? "false" : "true");
        return;
    }
    double x, seconds;
    char *end;
    x = strtod(v, &end);
    if (strcmp(u->params[i].type, "number") == 0 && end != v && *end == '\0') {
        if (x > 0 && x < 1 && x != floor(x)) {
            x += 0.1 * dir;
            x = x < 0.05 ? 0.05 : x > 0.95 ? 0.95 : x;
            snprintf(v, cap, "%.2g", x);
        } else if (x == 0) {
            snprintf(v, cap, "%d", dir > 0 ? 1 : 0);
        } else {
            x = dir > 0 ? x * 2 : x / 2;
            snprintf(v, cap, "%.6g", x);
        }
        return;
    }
    if (fields_parse_duration(v, &seconds) && seconds > 0) {
        seconds = dir > 0 ? seconds * 2 : seconds / 2;
        /* Written back in the largest unit that keeps it readable: 20m, 2h, 3d. */
        static const struct {
            double s;
            char unit;
        } units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
        size_t k = 0;
        while (k + 1 < sizeof units / sizeof units[0] && seconds < units[k].s)
            k++;
        snprintf(v, cap, "%.4g%c", seconds / units[k].s, units[k].unit);
        return;
    }
    ui_set_status(u, "%s is text: set it with --%s=... on the command line", u->params[i].name,
                  u->params[i].name);
}

typedef bool (*action_fn)(struct ui *u, enum key_action act, int arg);

static bool on_quit(struct ui *u, enum key_action act, int arg)
{
    (void)u, (void)act, (void)arg;
    return false;
}

static bool on_help(struct ui *u, enum key_action act, int arg)
{
    if (act == ACT_HELP) {
        u->help = !u->help;
        u->help_scroll = 0;
    } else {
        u->help_scroll += arg;
        if (u->help_scroll < 0)
            u->help_scroll = 0;
    }
    return true;
}

static bool on_pause(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (u->playing && u->play_waiting)
        u->play_waiting = false; /* space also continues a paused story */
    else
        u->paused = !u->paused;
    return true;
}

static bool on_step(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (u->paused)
        ui_single_step(u);
    else
        ui_set_status(u, "'.' steps once when paused (space pauses)");
    return true;
}

static bool on_speed(struct ui *u, enum key_action act, int arg)
{
    (void)arg;
    ui_change_speed(u, act == ACT_FASTER ? +1 : -1);
    u->speed_chosen = true;
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
    if (u->playing) {
        u->view = VIEW_OVERVIEW; /* no tour while a story plays: Esc goes back */
    } else if (u->tour) {
        tour_end(u);
        u->view = VIEW_OVERVIEW;
    } else {
        tour_start(u);
    }
    return true;
}

static bool on_infer(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    u->infer_mode = !u->infer_mode;
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
        u->view = VIEW_STAGE;
        u->stage = arg;
        u->selected_box = arg;
    }
    return true;
}

static bool on_select(struct ui *u, enum key_action act, int arg)
{
    (void)act;
    u->selected_box = box_neighbour(u->selected_box, arg);
    return true;
}

static bool on_enter(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    u->view = VIEW_STAGE;
    u->stage = u->selected_box;
    return true;
}

static bool on_back(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (u->text_full) {
        u->text_full = false;
        return true;
    }
    u->view = VIEW_OVERVIEW;
    tour_end(u);
    return true;
}

static bool on_knob_select(struct ui *u, enum key_action act, int arg)
{
    if (act == ACT_KNOB_PICK) {
        /* Knob indices from the mouse are 1-based (0 means the selected one). */
        if (arg > 0 && arg <= u->knobs[u->stage].count)
            u->knob_sel[u->stage] = arg - 1;
    } else {
        knob_select(u, act == ACT_KNOB_NEXT ? +1 : -1);
    }
    return true;
}

static bool on_knob_change(struct ui *u, enum key_action act, int arg)
{
    /* Mouse clicks on a knob's arrows carry its index + 1. */
    if (act != ACT_KNOB_AUTO && arg > 0 && arg <= u->knobs[u->stage].count)
        u->knob_sel[u->stage] = arg - 1;
    int dir = act == ACT_KNOB_INC ? +1 : act == ACT_KNOB_DEC ? -1 : 0;
    if (u->knobs[u->stage].count > 0)
        knobs_step(u, u->stage, u->knob_sel[u->stage], dir);
    return true;
}

static bool on_tour_next(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (u->playing && u->play_waiting)
        u->play_waiting = false;
    else if (!u->playing)
        tour_move(u, +1);
    return true;
}

static bool on_tour_prev(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (!u->playing) {
        tour_move(u, -1);
    } else {
        /* Back to the pause before the one on screen, by running the
         * script again (same seed and parameters) up to it. */
        u->back_to_pause = u->play_waiting ? u->pauses_reached - 1 : u->pauses_reached;
        if (u->back_to_pause < 0)
            u->back_to_pause = 0;
        u->play_restart = true;
    }
    return true;
}

static bool on_text_scroll(struct ui *u, enum key_action act, int arg)
{
    int page = u->lay.text.h > 3 ? u->lay.text.h - 3 : 1;
    int lines = arg > 0 ? arg : arg < 0 ? 1 << 20 : page;
    u->text_scroll += act == ACT_TEXT_UP ? -lines : lines;
    if (u->text_scroll < 0)
        u->text_scroll = 0; /* the end depends on the width: clamped when drawn */
    return true;
}

static bool on_text_full(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    u->text_full = !u->text_full;
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
    if (!u->playing) /* the tour: its caption is short; PgUp/PgDn scroll the explanation */
        return on_text_scroll(u, act == ACT_CAPTION_BACK ? ACT_TEXT_UP : ACT_TEXT_DOWN, arg);
    int page = u->lay.caption.h > 1 ? u->lay.caption.h - 1 : 1; /* the prompt row stays */
    int lines = arg > 0 ? arg : page;
    u->caption_scroll += act == ACT_CAPTION_BACK ? lines : -lines;
    if (u->caption_scroll < 0)
        u->caption_scroll = 0; /* the upper bound depends on the width: set when drawn */
    return true;
}

static bool on_params(struct ui *u, enum key_action act, int arg)
{
    (void)act, (void)arg;
    if (!u->playing)
        ui_set_status(u, "parameters belong to a played scenario (mlviz play)");
    else if (u->n_params == 0 && !u->params_open)
        ui_set_status(u, "this scenario declares no parameters");
    else
        u->params_open = !u->params_open;
    return true;
}

static bool on_param(struct ui *u, enum key_action act, int arg)
{
    if (act == ACT_PARAM_APPLY) {
        u->params_apply = true;
        u->params_open = false;
    } else if (u->n_params > 0 && act == ACT_PARAM_SEL) {
        u->param_sel = ((u->param_sel + arg) % u->n_params + u->n_params) % u->n_params;
    } else if (u->n_params > 0) {
        param_step(u, u->param_sel, arg);
    }
    return true;
}

static bool on_plan(struct ui *u, enum key_action act, int arg)
{
    char msg[UI_MSG_LEN] = "";
    struct setup s;
    int rank = 0;
    if (act == ACT_PLAN) {
        if (plan_view_open(&u->plan, &u->setup, u->cat, msg, sizeof msg)) {
            u->view = VIEW_PLAN;
            u->tour = false;
        }
    } else if (act == ACT_PLAN_ROW) {
        plan_view_row(u->plan, arg);
    } else if (plan_view_pick(u->plan, &s, &rank, msg, sizeof msg)) {
        char err[UI_MSG_LEN];
        if (!ui_apply_setup(u, &s, err, sizeof err)) {
            ui_set_status(u, "cannot load rank %d: %s", rank, err);
            return true;
        }
        ui_set_status(u, "loaded plan rank %d into the live view", rank);
        u->view = VIEW_OVERVIEW;
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
    const struct hit_rect *h = hit_find(&u->hits, ev.y, ev.x);
    if (u->help) {
        u->help = false; /* any click closes the help */
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
    if (u->help && act == ACT_NONE) {
        u->help = false; /* any other key closes the help */
        return true;
    }
    /* In a stage view of the tour, Left and Right turn the knob its caption
     * names (n and b move between stops). */
    bool knob_key = ch == KEY_RIGHT || ch == KEY_LEFT;
    if (u->tour && !u->playing && u->view == VIEW_STAGE && knob_key)
        act = ACT_NONE;
    if (act == ACT_NONE && (u->tour || u->playing)) {
        /* Keys of the underlying view still work during the tour; using
         * them holds the stop (no automatic advance mid-experiment). */
        act = keys_lookup(ch, u->view == VIEW_STAGE ? KEYCTX_STAGE : KEYCTX_OVERVIEW, &arg);
        if (act != ACT_NONE && !u->playing)
            tour_hands_on(u);
    }
    return input_action(u, act, arg);
}
