/* sim_events: timed-event lists in YAML for `mlviz sim --events` and Lua.
 *
 *   - {at: 2h, event: fail_device}
 *   - {at: 3h, event: cooling_loss, value: 0.5}
 *   - {at: 6h, event: set, path: training.micro_batch, value: 2}
 *
 * Loading is strict: every problem is reported as "file:line:col: message"
 * (unknown keys and event names with a suggestion, bad times, values out of
 * range, unknown setup paths and values the field rejects). Also the queue
 * of scheduled events of a running sim: sim_schedule and what happens when
 * an event comes due. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "yamldoc.h"

static const char *const event_keys[] = {"at", "event", "value", "path"};
enum { N_EVENT_KEYS = 4 };

/* Which keys each event kind takes: value and path. */
static bool takes_value(int kind)
{
    return kind == SIM_EVENT_SET || kind == SIM_EVENT_COOLING_LOSS ||
           kind == SIM_EVENT_STORAGE_SLOW;
}

static bool fail_at(const struct ydoc *doc, const struct ynode *n, char *err, size_t err_len,
                    const char *fmt, const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    snprintf(err, err_len, "%s:%d:%d: %s", doc->file, n ? n->line : 1, n ? n->col : 1, msg);
    return false;
}

static bool scalar(const struct ynode *n)
{
    return n && n->kind == YNODE_SCALAR && n->value;
}

/* Every key of an event is known and given once. */
static bool check_keys(const struct ydoc *doc, const struct ynode *item, char *err, size_t err_len)
{
    for (size_t i = 0; i < item->count; i++) {
        const char *k = item->keys[i]->value ? item->keys[i]->value : "";
        bool known = false;
        for (int j = 0; j < N_EVENT_KEYS; j++)
            known |= strcmp(k, event_keys[j]) == 0;
        if (!known) {
            const char *near = fields_suggest_word(k, event_keys, N_EVENT_KEYS);
            char hint[96] = "";
            if (near)
                snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
            return fail_at(doc, item->keys[i], err, err_len,
                           "unknown key '%s' in an event (keys: at, event, value, path)%s", k,
                           hint);
        }
        for (size_t j = 0; j < i; j++)
            if (item->keys[j]->value && strcmp(item->keys[j]->value, k) == 0)
                return fail_at(doc, item->keys[i], err, err_len, "key '%s' given twice%s", k, NULL);
    }
    return true;
}

/* The event's kind from 'event:' (callbacks come only from Lua). */
static bool parse_kind(const struct ydoc *doc, const struct ynode *item, const struct ynode *what,
                       struct sim_event *ev, char *err, size_t err_len)
{
    if (!what)
        return fail_at(doc, item, err, err_len, "an event needs 'event:' (one of: %s)%s",
                       "set, fail_device, fail_node, cooling_loss, cooling_restore, "
                       "storage_slow, storage_restore, stop",
                       NULL);
    if (!scalar(what))
        return fail_at(doc, what, err, err_len, "'event' must be a name, not %s%s",
                       ynode_kind_name(what), NULL);
    ev->kind = -1;
    for (int k = 0; k < SIM_EVENT_KIND_COUNT; k++)
        if (k != SIM_EVENT_CALLBACK && strcmp(what->value, sim_event_names[k]) == 0)
            ev->kind = k;
    if (ev->kind < 0) {
        if (strcmp(what->value, "callback") == 0)
            return fail_at(doc, what, err, err_len,
                           "callback events come from Lua scripts (at(t, fn)), not event files%s%s",
                           NULL, NULL);
        const char *near =
            fields_suggest_word(what->value, sim_event_names, SIM_EVENT_KIND_COUNT - 1);
        char hint[96] = "";
        if (near)
            snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        return fail_at(doc, what, err, err_len,
                       "unknown event '%s' (events: set, fail_device, fail_node, cooling_loss, "
                       "cooling_restore, storage_slow, storage_restore, stop)%s",
                       what->value, hint);
    }
    return true;
}

/* A set event: path and value checked against the setup's field table. */
static bool parse_set(const struct ydoc *doc, const struct ynode *item, const struct ynode *path,
                      const struct ynode *value, const struct setup *s, struct sim_event *ev,
                      char *err, size_t err_len)
{
    if (!path)
        return fail_at(doc, item, err, err_len,
                       "set needs 'path:', a setup field such as training.micro_batch%s%s", NULL,
                       NULL);
    if (!scalar(path))
        return fail_at(doc, path, err, err_len, "'path' must be a field path, not %s%s",
                       ynode_kind_name(path), NULL);
    if (strlen(path->value) >= sizeof ev->path || strlen(value->value) >= sizeof ev->text)
        return fail_at(doc, path, err, err_len, "path or value too long%s%s", NULL, NULL);
    snprintf(ev->path, sizeof ev->path, "%s", path->value);
    snprintf(ev->text, sizeof ev->text, "%s", value->value);
    /* Check path and value against the field table now, not hours into
     * the run. */
    struct setup tmp = *s;
    char msg[384];
    if (!fields_find(setup_fields(), ev->path)) {
        setup_set(&tmp, ev->path, ev->text, msg, sizeof msg);
        return fail_at(doc, path, err, err_len, "%s%s", msg, NULL);
    }
    if (!setup_set(&tmp, ev->path, ev->text, msg, sizeof msg))
        return fail_at(doc, value, err, err_len, "%s%s", msg, NULL);
    return true;
}

/* The number an event other than set takes, within its range. */
static bool parse_value(const struct ydoc *doc, const struct ynode *value, struct sim_event *ev,
                        char *err, size_t err_len)
{
    if (!fields_parse_number(value->value, &ev->value))
        return fail_at(doc, value, err, err_len, "'value' must be a number (got '%s')%s",
                       value->value, NULL);
    if (ev->kind == SIM_EVENT_COOLING_LOSS && !(ev->value >= 0 && ev->value <= 1))
        return fail_at(doc, value, err, err_len,
                       "cooling_loss value is the share of cooling capacity lost, from 0 to "
                       "1 (got %s)%s",
                       value->value, NULL);
    if (ev->kind == SIM_EVENT_STORAGE_SLOW &&
        !(ev->value >= SIM_STORAGE_SLOW_MIN && ev->value <= 1))
        return fail_at(doc, value, err, err_len,
                       "storage_slow value multiplies the storage bandwidth: above 0 (at "
                       "least 1e-06), up to 1 (got %s)%s",
                       value->value, NULL);
    return true;
}

static bool parse_item(const struct ydoc *doc, const struct ynode *item, const struct setup *s,
                       struct sim_event *ev, char *err, size_t err_len)
{
    memset(ev, 0, sizeof *ev);
    ev->line = item->line;
    ev->col = item->col;
    if (item->kind != YNODE_MAP)
        return fail_at(doc, item, err, err_len,
                       "each event is a mapping such as {at: 2h, event: fail_device}, not %s%s",
                       ynode_kind_name(item), NULL);
    if (!check_keys(doc, item, err, err_len))
        return false;
    const struct ynode *at = ynode_get(item, "at");
    const struct ynode *what = ynode_get(item, "event");
    const struct ynode *value = ynode_get(item, "value");
    const struct ynode *path = ynode_get(item, "path");
    if (!parse_kind(doc, item, what, ev, err, err_len))
        return false;
    if (!at)
        return fail_at(doc, item, err, err_len,
                       "an event needs 'at:', a time such as 90s, 15m, "
                       "6h or 2d%s%s",
                       NULL, NULL);
    if (!scalar(at) || !fields_parse_duration(at->value, &ev->time_s))
        return fail_at(doc, at, err, err_len,
                       "'at' must be a time such as 90s, 15m, 6h or 2d (got '%s')%s",
                       scalar(at) ? at->value : ynode_kind_name(at), NULL);
    const char *name = sim_event_names[ev->kind];
    if (path && ev->kind != SIM_EVENT_SET)
        return fail_at(doc, path, err, err_len, "'path' applies only to set events, not %s%s", name,
                       NULL);
    if (value && !takes_value(ev->kind))
        return fail_at(doc, value, err, err_len, "%s takes no 'value'%s", name, NULL);
    if (takes_value(ev->kind) && !value)
        return fail_at(doc, item, err, err_len, "%s needs 'value:'%s", name,
                       ev->kind == SIM_EVENT_COOLING_LOSS   ? " (share of cooling lost, 0..1)"
                       : ev->kind == SIM_EVENT_STORAGE_SLOW ? " (factor on storage bandwidth, "
                                                              "above 0 up to 1)"
                                                            : " (the new value of the field)");
    if (value && !scalar(value))
        return fail_at(doc, value, err, err_len, "'value' must be a single value, not %s%s",
                       ynode_kind_name(value), NULL);
    if (ev->kind == SIM_EVENT_SET)
        return parse_set(doc, item, path, value, s, ev, err, err_len);
    if (value)
        return parse_value(doc, value, ev, err, err_len);
    return true;
}

/* Time order, ties in file order (line, then column). */
static int cmp_event_time(const void *pa, const void *pb)
{
    const struct sim_event *a = pa, *b = pb;
    if (a->time_s != b->time_s)
        return a->time_s < b->time_s ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return (a->col > b->col) - (a->col < b->col);
}

static bool load_doc(struct ydoc *doc, const struct setup *s, struct sim_event **out, size_t *n,
                     char *err, size_t err_len)
{
    *out = NULL;
    *n = 0;
    const struct ynode *root = doc->root;
    if (!root || ynode_is_null(root))
        return true; /* an empty file: no events */
    if (root->kind != YNODE_SEQ)
        return fail_at(doc, root, err, err_len,
                       "an events file is a list of events such as '- {at: 2h, event: "
                       "fail_device}', not %s%s",
                       ynode_kind_name(root), NULL);
    struct sim_event *ev = calloc(root->count ? root->count : 1, sizeof *ev);
    if (!ev) {
        snprintf(err, err_len, "%s: out of memory", doc->file);
        return false;
    }
    for (size_t i = 0; i < root->count; i++)
        if (!parse_item(doc, root->items[i], s, &ev[i], err, err_len)) {
            free(ev);
            return false;
        }
    qsort(ev, root->count, sizeof *ev, cmp_event_time);
    *out = ev;
    *n = root->count;
    return true;
}

bool sim_events_load_file(const char *path, const struct setup *s, struct sim_event **out,
                          size_t *n, char *err, size_t err_len)
{
    *out = NULL;
    *n = 0;
    struct ydoc *doc = ydoc_load_file(path, err, err_len);
    if (!doc)
        return false;
    bool ok = load_doc(doc, s, out, n, err, err_len);
    ydoc_free(doc);
    return ok;
}

bool sim_events_load_string(const char *name, const char *text, const struct setup *s,
                            struct sim_event **out, size_t *n, char *err, size_t err_len)
{
    *out = NULL;
    *n = 0;
    struct ydoc *doc = ydoc_load_string(name, text, strlen(text), err, err_len);
    if (!doc)
        return false;
    bool ok = load_doc(doc, s, out, n, err, err_len);
    ydoc_free(doc);
    return ok;
}
/* ---- the queue of scheduled events (a binary min-heap in struct sim) ------------- */

static bool check_event(const struct sim_event *ev, char *err, size_t err_len)
{
    if (!(ev->time_s >= 0) || !isfinite(ev->time_s)) {
        snprintf(err, err_len, "event time must be a finite time >= 0 (got %g)", ev->time_s);
        return false;
    }
    if (ev->kind < 0 || ev->kind >= SIM_EVENT_KIND_COUNT) {
        snprintf(err, err_len, "unknown event kind %d", ev->kind);
        return false;
    }
    if (ev->kind == SIM_EVENT_COOLING_LOSS && !(ev->value >= 0 && ev->value <= 1)) {
        snprintf(err, err_len, "cooling_loss value is the share of capacity lost, 0..1 (got %g)",
                 ev->value);
        return false;
    }
    if (ev->kind == SIM_EVENT_STORAGE_SLOW &&
        !(ev->value >= SIM_STORAGE_SLOW_MIN && ev->value <= 1)) {
        snprintf(err, err_len,
                 "storage_slow value multiplies the storage bandwidth, > 0 and <= 1 (got %g)",
                 ev->value);
        return false;
    }
    if (ev->kind == SIM_EVENT_SET && ev->path[0] == '\0') {
        snprintf(err, err_len, "a set event needs a path");
        return false;
    }
    return true;
}

static bool event_before(const struct queued_event *a, const struct queued_event *b)
{
    return a->ev.time_s < b->ev.time_s || (a->ev.time_s == b->ev.time_s && a->seq < b->seq);
}

/* Remove the earliest event from the heap into *out. */
void sim_take_next_event(struct sim *S, struct sim_event *out)
{
    *out = S->ev[0].ev;
    struct queued_event last = S->ev[--S->n_ev];
    size_t pos = 0;
    for (;;) {
        size_t child = 2 * pos + 1;
        if (child >= S->n_ev)
            break;
        if (child + 1 < S->n_ev && event_before(&S->ev[child + 1], &S->ev[child]))
            child++;
        if (!event_before(&S->ev[child], &last))
            break;
        S->ev[pos] = S->ev[child];
        pos = child;
    }
    if (S->n_ev)
        S->ev[pos] = last;
}

bool sim_schedule(struct sim *S, const struct sim_event *ev, char *err, size_t err_len)
{
    if (!check_event(ev, err, err_len))
        return false;
    if (ev->kind == SIM_EVENT_SET) {
        struct setup tmp = S->setup;
        if (!setup_set(&tmp, ev->path, ev->text, err, err_len))
            return false;
    }
    if (S->n_ev >= SIM_MAX_PENDING_EVENTS) {
        snprintf(err, err_len, "too many scheduled events (at most %d may be pending)",
                 SIM_MAX_PENDING_EVENTS);
        return false;
    }
    if (S->n_ev == S->cap_ev) {
        size_t nc = S->cap_ev ? S->cap_ev * 2 : 16;
        struct queued_event *p = realloc(S->ev, nc * sizeof *p);
        if (!p) {
            snprintf(err, err_len, "out of memory");
            return false;
        }
        S->ev = p;
        S->cap_ev = nc;
    }
    struct queued_event q = {.ev = *ev, .seq = S->ev_seq++};
    q.ev.path[sizeof q.ev.path - 1] = '\0';
    q.ev.text[sizeof q.ev.text - 1] = '\0';
    size_t pos = S->n_ev++;
    while (pos > 0 && event_before(&q, &S->ev[(pos - 1) / 2])) {
        S->ev[pos] = S->ev[(pos - 1) / 2];
        pos = (pos - 1) / 2;
    }
    S->ev[pos] = q;
    sim_set_next_event(S);
    sim_update_next_special(S);
    return true;
}

void sim_set_callback(struct sim *S, sim_callback_fn fn, void *ctx)
{
    S->cb = fn;
    S->cb_ctx = ctx;
}

bool sim_do_event(struct sim *S, const struct sim_event *ev, char *err, size_t err_len)
{
    switch (ev->kind) {
    case SIM_EVENT_SET:
        return sim_set(S, ev->path, ev->text, err, err_len);
    case SIM_EVENT_FAIL_DEVICE:
        sim_fail(S, false);
        return true;
    case SIM_EVENT_FAIL_NODE:
        sim_fail(S, true);
        return true;
    case SIM_EVENT_COOLING_LOSS:
        S->cooling_share = clamp01(1.0 - ev->value);
        return true;
    case SIM_EVENT_COOLING_RESTORE:
        S->cooling_share = 1.0;
        return true;
    case SIM_EVENT_STORAGE_SLOW:
        S->storage_factor = ev->value > 0 ? min2(ev->value, 1.0) : 1.0;
        sim_update_rates(S);
        return true;
    case SIM_EVENT_STORAGE_RESTORE:
        S->storage_factor = 1.0;
        sim_update_rates(S);
        return true;
    case SIM_EVENT_STOP:
        S->stopped = true;
        S->c.stopped = true;
        sim_update_rates(S);
        return true;
    case SIM_EVENT_CALLBACK:
        if (S->cb)
            return S->cb(S->cb_ctx, S, ev->callback_id, err, err_len);
        return true;
    default:
        snprintf(err, err_len, "unknown event kind %d", ev->kind);
        return false;
    }
}
