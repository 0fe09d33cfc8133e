/* probe_merge: the user catalog's probe.yaml merged by id (see probe.h). */
#include "probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "yamldoc.h"

struct emit {
    char *out;
    size_t len, used;
    bool full;
};

static void put(struct emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct emit *e, const char *fmt, ...)
{
    if (e->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(e->out + e->used, e->len - e->used, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= e->len - e->used)
        e->full = true;
    else
        e->used += (size_t)w;
}

/* A scalar that reads back as the same text written plainly. */
static bool plain_safe(const struct ynode *n)
{
    const char *v = n->value;
    if (n->quoted || !v[0] || v[strlen(v) - 1] == ' ')
        return false;
    if (!((v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z') ||
          (v[0] >= '0' && v[0] <= '9') || (v[0] == '-' && v[1] >= '0' && v[1] <= '9') ||
          v[0] == '.'))
        return false;
    for (const char *c = v; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._+-/(),%", *c))
            return false;
    return true;
}

static void put_scalar(struct emit *e, const struct ynode *n)
{
    if (plain_safe(n)) {
        put(e, "%s", n->value);
        return;
    }
    put(e, "\"");
    for (const unsigned char *c = (const unsigned char *)n->value; *c; c++) {
        if (*c == '"' || *c == '\\')
            put(e, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            put(e, "\\x%02x", *c);
        else
            put(e, "%c", *c);
    }
    put(e, "\"");
}

static void put_node(struct emit *e, const struct ynode *n, int indent, int depth);

/* A mapping's pairs (at least one), each at `indent`, except the first
 * when inline_first: it follows the "- " of a list item already written. */
static void put_map(struct emit *e, const struct ynode *m, int indent, bool inline_first, int depth)
{
    for (size_t i = 0; i < m->count; i++) {
        if (i > 0 || !inline_first)
            put(e, "%*s", indent, "");
        put_scalar(e, m->keys[i]);
        put(e, ":");
        put_node(e, m->items[i], indent + 2, depth + 1);
    }
}

static void put_node(struct emit *e, const struct ynode *n, int indent, int depth)
{
    if (depth > 16) { /* catalog entries are shallow; deeper is not ours */
        e->full = true;
        return;
    }
    if (n->kind == YNODE_SCALAR) {
        put(e, " ");
        put_scalar(e, n);
        put(e, "\n");
    } else if (n->kind == YNODE_MAP) {
        put(e, n->count ? "\n" : " {}\n");
        if (n->count)
            put_map(e, n, indent, false, depth);
    } else {
        put(e, n->count ? "\n" : " []\n");
        for (size_t i = 0; i < n->count; i++) {
            const struct ynode *item = n->items[i];
            put(e, "%*s-", indent, "");
            if (item->kind == YNODE_MAP && item->count) {
                put(e, " ");
                put_map(e, item, indent + 2, true, depth + 1);
            } else {
                put_node(e, item, indent + 2, depth + 1);
            }
        }
    }
}

static const char *entry_id(const struct ynode *entry)
{
    const struct ynode *id = ynode_get(entry, "id");
    return id && id->kind == YNODE_SCALAR ? id->value : NULL;
}

static bool has_id(const struct ynode *list, const char *id)
{
    for (size_t i = 0; id && list && list->kind == YNODE_SEQ && i < list->count; i++) {
        const char *other = entry_id(list->items[i]);
        if (other && strcmp(other, id) == 0)
            return true;
    }
    return false;
}

/* One section: the new entries, then the old ones whose id they lack. */
static void put_section(struct emit *e, const struct ynode *key, const struct ynode *fresh,
                        const struct ynode *old)
{
    put_scalar(e, key);
    put(e, ":\n");
    const struct ynode *lists[2] = {fresh, old};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; lists[l] && i < lists[l]->count; i++) {
            const struct ynode *item = lists[l]->items[i];
            if (l == 1 && has_id(fresh, entry_id(item)))
                continue;
            put(e, "  -");
            if (item->kind == YNODE_MAP && item->count) {
                put(e, " ");
                put_map(e, item, 4, true, 2);
            } else {
                put_node(e, item, 4, 2);
            }
        }
}

static bool is_sections(const struct ydoc *d, char *err, size_t err_len)
{
    if (!d->root)
        return true;
    if (d->root->kind != YNODE_MAP) {
        snprintf(err, err_len, "%s: not a catalog file (a mapping of kinds)", d->file);
        return false;
    }
    for (size_t i = 0; i < d->root->count; i++)
        if (d->root->items[i]->kind != YNODE_SEQ) {
            snprintf(err, err_len, "%s:%d:%d: '%s' is not a list of entries", d->file,
                     d->root->items[i]->line, d->root->items[i]->col, d->root->keys[i]->value);
            return false;
        }
    return true;
}

bool probe_merge_catalog(const char *old_name, const char *old_text, size_t old_len,
                         const char *fresh_text, const char *header, char *out, size_t out_len,
                         char *err, size_t err_len)
{
    struct ydoc *fresh =
        ydoc_load_string("probe catalog entries", fresh_text, strlen(fresh_text), err, err_len);
    struct ydoc *old =
        fresh && old_text ? ydoc_load_string(old_name, old_text, old_len, err, err_len) : NULL;
    bool ok = fresh && (!old_text || old) && is_sections(fresh, err, err_len) &&
              (!old || is_sections(old, err, err_len));
    struct emit e = {out, out_len, 0, false};
    if (ok) {
        put(&e, "%s", header);
        const struct ynode *fr = fresh->root, *ol = old ? old->root : NULL;
        /* The old file's sections in its order, then sections only new. */
        for (size_t i = 0; ol && i < ol->count; i++)
            put_section(&e, ol->keys[i], fr ? ynode_get(fr, ol->keys[i]->value) : NULL,
                        ol->items[i]);
        for (size_t i = 0; fr && i < fr->count; i++)
            if (!ol || !ynode_get(ol, fr->keys[i]->value))
                put_section(&e, fr->keys[i], fr->items[i], NULL);
        if (e.full) {
            snprintf(err, err_len, "%s: too large to merge into", old_name);
            ok = false;
        }
    }
    ydoc_free(fresh);
    ydoc_free(old);
    return ok;
}
