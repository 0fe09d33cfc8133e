/* tour: the guided tour (t). An intro stop, one stop per stage that loads a
 * setup whose bottleneck is that stage (assets/tour/STAGE.yaml), an outro;
 * then it starts over, so a kiosk can leave it running. */
#include <stdio.h>
#include <string.h>

#include "ui.h"

/* Seconds per stop when nobody presses a key. */
#define TOUR_STOP_S 14.0

/* Back to the setup the tour started from. */
static void tour_restore(struct ui *u)
{
    if (!ui_tour_swapped(u))
        return;
    char err[UI_MSG_LEN];
    ui_tour_swap(u, false);
    if (!ui_apply_setup(u, ui_tour_saved(u), err, sizeof err))
        ui_set_status(u, "cannot restore the setup: %s", err);
    else if (!ui_sim(u) && ui_report(u)->runnable)
        ui_new_sim(u);
    ui_reset_animation(u);
}

void tour_end(struct ui *u)
{
    ui_tour_finish(u);
    tour_restore(u);
}

/* A stage's stop loads a setup whose bottleneck is that stage
 * (assets/tour/STAGE.yaml), so the picture shows what the caption says. */
static void tour_load(struct ui *u, int stage)
{
    char path[1200], err[UI_MSG_LEN];
    snprintf(path, sizeof path, "%s/assets/tour/%s.yaml", mlviz_data_dir(),
             stage_table[stage].name);
    struct setup s;
    if (!setup_load_file(&s, path, ui_catalog(u), err, sizeof err)) {
        ui_set_status(u, "tour: %s", err);
        return;
    }
    ui_tour_save(u);
    ui_free_sim(u);
    if (!ui_apply_setup(u, &s, err, sizeof err)) {
        ui_set_status(u, "tour: %s", err);
        tour_restore(u);
        return;
    }
    ui_tour_swap(u, true);
    ui_reset_animation(u);
    if (!ui_speed_chosen(u))
        ui_pick_speed(u);
}

/* The knob each stage's caption asks the user to turn ("press Right for
 * ..."): selected when the stop opens, so the key acts on it at once. */
static const char *const tour_knob[STAGE_COUNT] = {"cluster.storage",
                                                   "data.loader_workers_per_device", NULL,
                                                   "cluster.node.intra_link", "facility.cooling"};

static void tour_select_knob(struct ui *u, int stage)
{
    for (int i = 0; tour_knob[stage] && i < ui_knob_table(u)[stage].count; i++)
        if (strcmp(ui_knob_table(u)[stage].field[i]->path, tour_knob[stage]) == 0)
            ui_select_knob(u, stage, i);
}

void tour_hands_on(struct ui *u)
{
    /* Someone is trying what the caption says: the stop stays (n goes on). */
    if (ui_touring(u))
        ui_tour_hold(u);
}

static void tour_show(struct ui *u)
{
    int s = ui_tour_stop(u);
    if (s >= 1 && s <= STAGE_COUNT)
        tour_load(u, s - 1);
    else
        tour_restore(u);
    if (s >= 1 && s <= STAGE_COUNT) {
        ui_open_stage(u, s - 1);
        tour_select_knob(u, s - 1);
    } else {
        ui_show_overview(u);
    }
    ui_tour_stop_at(u, s, ui_wall_s(u) + TOUR_STOP_S);
}

void tour_start(struct ui *u)
{
    ui_tour_begin(u);
    tour_show(u);
}

void tour_move(struct ui *u, int dir)
{
    int s = ui_tour_stop(u) + dir;
    if (s < 0)
        s = 0;
    if (s >= TOUR_STOPS) {
        /* After the outro the tour starts over: a kiosk can leave it running. */
        s = 0;
    }
    ui_tour_stop_at(u, s, ui_tour_next_s(u));
    tour_show(u);
}
