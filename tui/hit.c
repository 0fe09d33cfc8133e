/* hit: the clickable-rectangle registry. */
#include "hit.h"

void hit_clear(struct hit_map *m)
{
    m->count = 0;
}

void hit_add_wheel(struct hit_map *m, int y, int x, int h, int w, enum key_action action, int arg,
                   enum key_action wheel_up, enum key_action wheel_down)
{
    if (m->count >= HIT_MAX || h <= 0 || w <= 0)
        return;
    m->rects[m->count++] = (struct hit_rect){y, x, h, w, action, arg, wheel_up, wheel_down};
}

void hit_add(struct hit_map *m, int y, int x, int h, int w, enum key_action action, int arg)
{
    hit_add_wheel(m, y, x, h, w, action, arg, ACT_NONE, ACT_NONE);
}

const struct hit_rect *hit_find(const struct hit_map *m, int y, int x)
{
    for (int i = m->count - 1; i >= 0; i--) {
        const struct hit_rect *r = &m->rects[i];
        if (y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w)
            return r;
    }
    return NULL;
}
