/* plan_view: the plan screen (key p): a background search of the current
 * setup's layouts (engine/plan) and its drawing. The app owns the pointer
 * and acts on the results; the screen only draws and answers. */
#ifndef MLVIZ_PLAN_VIEW_H
#define MLVIZ_PLAN_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "views.h"

struct plan_view;

/* Shows the search of `setup` (a new one unless the same setup is already
 * searched), allocating *pv the first time. False, with msg, when it cannot. */
bool plan_view_open(struct plan_view **pv, const struct setup *setup, const struct catalog *cat,
                    char *msg, size_t msg_len);
/* Moves the row selection (dir -1 / +1) once the search is done. */
void plan_view_row(struct plan_view *pv, int dir);
/* The selected row's setup and its rank (from 1); false with msg while the
 * search runs or when nothing can run. */
bool plan_view_pick(const struct plan_view *pv, struct setup *out, int *rank, char *msg,
                    size_t msg_len);
/* Stops the search (joins its thread) and frees pv; NULL is fine. */
void plan_view_free(struct plan_view *pv);
void view_plan_draw(const struct view_ctx *v, struct view_out *out, const struct plan_view *pv);

#endif
