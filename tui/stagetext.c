/* stagetext: strict loader for assets/stages.yaml. */
#include "stagetext.h"

#include <stdio.h>
#include <string.h>

#include "stages.h"
#include "yamldoc.h"

/* Stage ids and titles are the stage table's (engine/core/stages.h). */
_Static_assert((int)STAGETEXT_STAGES == (int)STAGE_COUNT, "one text per stage");

static bool fail_at(const char *file, const struct ynode *n, char *err, size_t err_len,
                    const char *msg, const char *what)
{
    snprintf(err, err_len, "%s:%d:%d: %s%s", file, n ? n->line : 1, n ? n->col : 1, msg,
             what ? what : "");
    return false;
}

static bool copy_scalar(const char *file, const struct ynode *n, char *dst, size_t len, char *err,
                        size_t err_len)
{
    if (n->kind != YNODE_SCALAR)
        return fail_at(file, n, err, err_len, "expected text, found ", ynode_kind_name(n));
    if (strlen(n->value) >= len)
        return fail_at(file, n, err, err_len, "text too long", NULL);
    snprintf(dst, len, "%s", n->value);
    return true;
}

static bool load_stage(const char *file, const struct ynode *m, struct stage_texts *out, bool *seen,
                       char *err, size_t err_len)
{
    if (m->kind != YNODE_MAP)
        return fail_at(file, m, err, err_len, "a stage must be a mapping, found ",
                       ynode_kind_name(m));
    const struct ynode *id = ynode_get(m, "id");
    if (!id || id->kind != YNODE_SCALAR)
        return fail_at(file, m, err, err_len,
                       "a stage needs an 'id' (data, cpus, accelerators, "
                       "interconnect, infrastructure)",
                       NULL);
    int which = -1;
    for (int i = 0; i < STAGETEXT_STAGES; i++)
        if (strcmp(id->value, stage_table[i].name) == 0)
            which = i;
    if (which < 0)
        return fail_at(file, id, err, err_len, "unknown stage id ", id->value);
    if (seen[which])
        return fail_at(file, id, err, err_len, "stage given twice: ", id->value);
    seen[which] = true;
    struct stage_text *st = &out->stage[which];
    for (size_t i = 0; i < m->count; i++) {
        const char *k = m->keys[i]->value;
        const struct ynode *v = m->items[i];
        bool ok;
        if (strcmp(k, "id") == 0)
            ok = copy_scalar(file, v, st->id, sizeof st->id, err, err_len);
        else if (strcmp(k, "title") == 0)
            ok = copy_scalar(file, v, st->title, sizeof st->title, err, err_len);
        else if (strcmp(k, "tagline") == 0)
            ok = copy_scalar(file, v, st->tagline, sizeof st->tagline, err, err_len);
        else if (strcmp(k, "text") == 0)
            ok = copy_scalar(file, v, st->text, sizeof st->text, err, err_len);
        else if (strcmp(k, "tour") == 0)
            ok = copy_scalar(file, v, st->tour, sizeof st->tour, err, err_len);
        else
            return fail_at(file, m->keys[i], err, err_len,
                           "unknown key (expected id, title, tagline, text, tour): ", k);
        if (!ok)
            return false;
    }
    if (!st->title[0] || !st->text[0])
        return fail_at(file, m, err, err_len, "a stage needs 'title' and 'text'", NULL);
    return true;
}

static bool load_doc(const struct ydoc *doc, struct stage_texts *out, char *err, size_t err_len)
{
    const char *file = doc->file;
    const struct ynode *root = doc->root;
    if (!root || root->kind != YNODE_MAP)
        return fail_at(file, root, err, err_len, "expected a mapping with 'stages' and 'tour'",
                       NULL);
    bool seen[STAGETEXT_STAGES] = {false};
    bool have_stages = false;
    for (size_t i = 0; i < root->count; i++) {
        const char *k = root->keys[i]->value;
        const struct ynode *v = root->items[i];
        if (strcmp(k, "stages") == 0) {
            if (v->kind != YNODE_SEQ)
                return fail_at(file, v, err, err_len, "'stages' must be a list, found ",
                               ynode_kind_name(v));
            for (size_t j = 0; j < v->count; j++)
                if (!load_stage(file, v->items[j], out, seen, err, err_len))
                    return false;
            have_stages = true;
        } else if (strcmp(k, "tour") == 0) {
            if (v->kind != YNODE_MAP)
                return fail_at(file, v, err, err_len, "'tour' must be a mapping, found ",
                               ynode_kind_name(v));
            for (size_t j = 0; j < v->count; j++) {
                const char *tk = v->keys[j]->value;
                bool ok;
                if (strcmp(tk, "intro") == 0)
                    ok = copy_scalar(file, v->items[j], out->tour_intro, sizeof out->tour_intro,
                                     err, err_len);
                else if (strcmp(tk, "outro") == 0)
                    ok = copy_scalar(file, v->items[j], out->tour_outro, sizeof out->tour_outro,
                                     err, err_len);
                else
                    return fail_at(file, v->keys[j], err, err_len,
                                   "unknown key (expected intro, outro): ", tk);
                if (!ok)
                    return false;
            }
        } else {
            return fail_at(file, root->keys[i], err, err_len,
                           "unknown key (expected stages, tour): ", k);
        }
    }
    if (!have_stages)
        return fail_at(file, root, err, err_len, "missing 'stages'", NULL);
    for (int i = 0; i < STAGETEXT_STAGES; i++)
        if (!seen[i])
            return fail_at(file, root, err, err_len, "missing stage ", stage_table[i].name);
    return true;
}

static bool load_any(struct ydoc *doc, struct stage_texts *out, char *err, size_t err_len)
{
    if (!doc)
        return false;
    struct stage_texts tmp;
    memset(&tmp, 0, sizeof tmp);
    bool ok = load_doc(doc, &tmp, err, err_len);
    ydoc_free(doc);
    if (ok)
        *out = tmp;
    return ok;
}

bool stagetext_load(const char *path, struct stage_texts *out, char *err, size_t err_len)
{
    return load_any(ydoc_load_file(path, err, err_len), out, err, err_len);
}

bool stagetext_load_string(const char *name, const char *text, struct stage_texts *out, char *err,
                           size_t err_len)
{
    return load_any(ydoc_load_string(name, text, strlen(text), err, err_len), out, err, err_len);
}

void stagetext_fallback(struct stage_texts *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < STAGETEXT_STAGES; i++) {
        snprintf(out->stage[i].id, sizeof out->stage[i].id, "%s", stage_table[i].name);
        snprintf(out->stage[i].title, sizeof out->stage[i].title, "%s", stage_table[i].title);
        snprintf(out->stage[i].text, sizeof out->stage[i].text,
                 "(assets/stages.yaml was not found: set MLVIZ_DATA to the directory that "
                 "holds assets/)");
    }
}
