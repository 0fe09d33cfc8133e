/* hit: clickable rectangles registered by the drawing code each frame.
 * A mouse click becomes the action of the top-most rectangle under it, so
 * mouse and keyboard go through the same dispatcher. */
#ifndef MLVIZ_HIT_H
#define MLVIZ_HIT_H

#include <stdbool.h>

#include "keys.h"

enum { HIT_MAX = 128 };

struct hit_rect {
    int y, x, h, w;
    enum key_action action;
    int arg;
    enum key_action wheel_up, wheel_down; /* actions for the wheel over it (ACT_NONE: none) */
};

struct hit_map {
    struct hit_rect rects[HIT_MAX];
    int count;
};

void hit_clear(struct hit_map *m);
/* Register a rectangle; later ones are on top. Ignored when full or empty. */
void hit_add(struct hit_map *m, int y, int x, int h, int w, enum key_action action, int arg);
/* Same, with wheel actions. */
void hit_add_wheel(struct hit_map *m, int y, int x, int h, int w, enum key_action action, int arg,
                   enum key_action wheel_up, enum key_action wheel_down);
/* The rectangle under (y, x), top-most first; NULL when none. */
const struct hit_rect *hit_find(const struct hit_map *m, int y, int x);

#endif
