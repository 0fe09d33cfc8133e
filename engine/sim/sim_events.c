/* sim_events: timed-event lists in YAML for `mlviz sim --events` and Lua.
 *
 *   - {at: 2h, event: fail_device}
 *   - {at: 3h, event: cooling_loss, value: 0.5}
 *   - {at: 6h, event: set, path: training.micro_batch, value: 2}
 *
 * Loading is strict: every problem is reported as "file:line:col: message"
 * (unknown keys and event names with a suggestion, bad times, values out of
 * range, unknown setup paths and values the field rejects). */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
                return fail_at(doc, item->keys[i], err, err_len, "key '%s' given twice%s", k,
                               NULL);
    }
    const struct ynode *at = ynode_get(item, "at");
    const struct ynode *what = ynode_get(item, "event");
    const struct ynode *value = ynode_get(item, "value");
    const struct ynode *path = ynode_get(item, "path");
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
    if (!at)
        return fail_at(doc, item, err, err_len, "an event needs 'at:', a time such as 90s, 15m, "
                                                "6h or 2d%s%s",
                       NULL, NULL);
    if (!scalar(at) || !fields_parse_duration(at->value, &ev->time_s))
        return fail_at(doc, at, err, err_len,
                       "'at' must be a time such as 90s, 15m, 6h or 2d (got '%s')%s",
                       scalar(at) ? at->value : ynode_kind_name(at), NULL);
    const char *name = sim_event_names[ev->kind];
    if (path && ev->kind != SIM_EVENT_SET)
        return fail_at(doc, path, err, err_len, "'path' applies only to set events, not %s%s",
                       name, NULL);
    if (value && !takes_value(ev->kind))
        return fail_at(doc, value, err, err_len, "%s takes no 'value'%s", name, NULL);
    if (takes_value(ev->kind) && !value)
        return fail_at(doc, item, err, err_len, "%s needs 'value:'%s", name,
                       ev->kind == SIM_EVENT_COOLING_LOSS  ? " (share of cooling lost, 0..1)"
                       : ev->kind == SIM_EVENT_STORAGE_SLOW ? " (factor on storage bandwidth, "
                                                              "above 0 up to 1)"
                                                            : " (the new value of the field)");
    if (value && !scalar(value))
        return fail_at(doc, value, err, err_len, "'value' must be a single value, not %s%s",
                       ynode_kind_name(value), NULL);
    if (ev->kind == SIM_EVENT_SET) {
        if (!path)
            return fail_at(doc, item, err, err_len,
                           "set needs 'path:', a setup field such as training.micro_batch%s%s",
                           NULL, NULL);
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
    } else if (value) {
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
    }
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
