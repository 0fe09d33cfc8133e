/* plan_ctl: the plan screen's search (key p), owned by the app: a
 * background thread runs the layout search of engine/plan/plan.h over the
 * current setup while the frame loop goes on; the plan view draws a
 * read-only picture of it (struct view_plan, views.h) and never touches
 * the thread. */
#ifndef MLVIZ_PLAN_CTL_H
#define MLVIZ_PLAN_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "setup.h"
#include "views.h"

struct plan_ctl;

/* Starts a search of `setup` (a new one unless the same setup is already
 * searched), allocating *ctl the first time. False, with msg, when it
 * cannot. */
bool plan_ctl_open(struct plan_ctl **ctl, const struct setup *setup, const struct catalog *cat,
                   char *msg, size_t msg_len);
/* Moves the row selection (dir -1 / +1) once the search is done. */
void plan_ctl_row(struct plan_ctl *ctl, int dir);
/* The selected row's setup and its rank (from 1); false with msg while the
 * search runs or when nothing can run. */
bool plan_ctl_pick(const struct plan_ctl *ctl, struct setup *out, int *rank, char *msg,
                   size_t msg_len);
/* What the plan view draws (NULL ctl: nothing open). Pointers into ctl
 * stay valid until the next plan_ctl_open or plan_ctl_free. */
void plan_ctl_view(const struct plan_ctl *ctl, struct view_plan *out);
/* Stops the search (joins its thread) and frees ctl; NULL is fine. */
void plan_ctl_free(struct plan_ctl *ctl);

#endif
