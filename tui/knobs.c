/* knobs: each stage view's knobs come from the setup field table (fields
 * flagged FIELD_KNOB with that stage), never from a hand-kept list; their
 * labels, steps and "auto" values are columns of that table. One step of a
 * knob: cycle enum choices and catalog ids, toggle booleans, move a number
 * by the table's step, or double/halve counts and sizes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fields.h"
#include "safewrite.h"
#include "ui.h"

/* Whether a knob belongs to the mode on screen: serving knobs (inference.*)
 * in the inference mode, training's and its data path's in training; the
 * cluster, model and facility in both. */
static bool knob_in_mode(const struct field *f, bool infer)
{
    static const char *const training_only[] = {"training.", "data.", "model.seq_len"};
    if (strncmp(f->path, "inference.", 10) == 0)
        return infer;
    for (size_t i = 0; i < sizeof training_only / sizeof training_only[0]; i++)
        if (strncmp(f->path, training_only[i], strlen(training_only[i])) == 0)
            return !infer;
    return true;
}

void knobs_build(struct ui *u)
{
    const struct field_table *t = setup_fields();
    ui_knobs_clear(u);
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        if (!(f->flags & FIELD_KNOB) || f->stage < 1 || f->stage > STAGE_COUNT ||
            !knob_in_mode(f, ui_infer_mode(u)))
            continue;
        ui_knobs_add(u, f->stage - 1, f);
    }
}

void knobs_label(const struct field *f, char *buf, size_t len)
{
    snprintf(buf, len, "%s", f->label ? f->label : f->path);
}

/* The number the model actually used for an "auto" field: the report key
 * or the accelerator's catalog field the field table names. */
static double auto_value(const struct ui *u, const struct field *f)
{
    static const char accel_prefix[] = "accelerator.", infer_prefix[] = "infer.";
    const char *from = f->auto_from;
    if (from && strncmp(from, infer_prefix, sizeof infer_prefix - 1) == 0) {
        for (size_t i = 0; i < infer_report_field_count; i++)
            if (strcmp(infer_report_fields[i].key, from + sizeof infer_prefix - 1) == 0)
                return report_field_number(&infer_report_fields[i], ui_infer(u));
        return 1;
    }
    if (from && strncmp(from, accel_prefix, sizeof accel_prefix - 1) == 0) {
        const struct field *c =
            fields_find(catalog_fields(CATALOG_ACCELERATOR), from + sizeof accel_prefix - 1);
        return c && ui_resolved(u)->accel ? fields_get_number(c, ui_resolved(u)->accel) : 1;
    }
    const struct report_field *r = from ? report_field_find(from) : NULL;
    if (r)
        return report_field_number(r, ui_report(u));
    return f->min > 0 ? f->min : 1;
}

static bool step_ref(struct ui *u, const struct field *f, struct setup *s, int dir, char *err,
                     size_t err_len)
{
    size_t n = catalog_count(ui_catalog(u), (enum catalog_kind)f->ref_kind);
    bool optional = (f->flags & FIELD_OPTIONAL) != 0;
    size_t slots = n + (optional ? 1 : 0); /* slot n: none */
    if (slots == 0)
        return false;
    const char *cur = fields_get_string(f, s);
    size_t at = optional && (!cur || !cur[0]) ? n : 0;
    for (size_t i = 0; i < n; i++) {
        const struct catalog_head *h =
            catalog_entry(ui_catalog(u), (enum catalog_kind)f->ref_kind, i);
        if (cur && strcmp(h->id, cur) == 0)
            at = i;
    }
    size_t next = (at + slots + (size_t)(dir > 0 ? 1 : slots - 1)) % slots;
    if (next == n)
        return fields_set_text(f, s, "", err, err_len);
    const struct catalog_head *h =
        catalog_entry(ui_catalog(u), (enum catalog_kind)f->ref_kind, next);
    return fields_set_text(f, s, h->id, err, err_len);
}

static double nice_round(double v)
{
    if (!(v > 0))
        return v;
    double mag = pow(10, floor(log10(v)) - 1); /* two significant digits */
    return round(v / mag) * mag;
}

static bool step_number(struct ui *u, const struct field *f, struct setup *s, int dir, char *err,
                        size_t err_len)
{
    double v = fields_get_number(f, s);
    if (f->type == FIELD_NUM_AUTO && v == FIELD_AUTO) {
        if (dir == 0)
            return true;
        v = auto_value(u, f);
    }
    if (dir == 0) {
        if (f->type != FIELD_NUM_AUTO) {
            snprintf(err, err_len, "%s has no automatic value", f->path);
            return false;
        }
        return fields_set_auto(f, s, err, err_len);
    }
    double nv;
    bool excl = (f->flags & FIELD_EXCL_MIN) != 0;
    if (f->step > 0) /* the field table's step */
        nv = round((v + dir * f->step) / f->step) * f->step;
    else if (f->type == FIELD_INT)
        nv = dir > 0 ? (v < 1 ? 1 : v * 2) : (v <= 1 ? f->min : floor(v / 2));
    else
        nv = nice_round(dir > 0 ? (v > 0 ? v * 2 : 1) : v / 2);
    if (nv > f->max)
        nv = f->max;
    if (nv < f->min || (excl && nv <= f->min)) {
        if (f->type == FIELD_NUM_AUTO) /* below the range: back to auto */
            return fields_set_auto(f, s, err, err_len);
        if (excl) {
            snprintf(err, err_len, "%s is already at its smallest", f->path);
            return false;
        }
        nv = f->min;
    }
    return fields_set_number(f, s, nv, err, err_len);
}

bool knobs_step(struct ui *u, int stage, int i, int dir)
{
    if (stage < 0 || stage >= STAGE_COUNT || i < 0 || i >= ui_knob_table(u)[stage].count)
        return false;
    const struct field *f = ui_knob_table(u)[stage].field[i];
    struct setup s = *ui_setup(u);
    char err[UI_MSG_LEN] = "";
    bool ok = true;
    switch (f->type) {
    case FIELD_BOOL:
        ok = fields_set_number(f, &s, fields_get_number(f, &s) != 0 ? 0 : 1, err, sizeof err);
        break;
    case FIELD_ENUM: {
        int n = 0;
        while (f->choices && f->choices[n])
            n++;
        if (n > 0) {
            int v = ((int)fields_get_number(f, &s) + (dir >= 0 ? 1 : n - 1)) % n;
            ok = fields_set_number(f, &s, v, err, sizeof err);
        }
        break;
    }
    case FIELD_REF:
        ok = step_ref(u, f, &s, dir, err, sizeof err);
        break;
    case FIELD_STR:
        ok = false;
        snprintf(err, sizeof err, "%s is text: edit the setup file", f->path);
        break;
    default:
        ok = step_number(u, f, &s, dir, err, sizeof err);
        break;
    }
    struct setup before = *ui_setup(u);
    if (ok)
        ok = ui_apply_setup(u, &s, err, sizeof err);
    if (ok)
        ui_undo_push(u, &before);
    char label[64], val[96];
    knobs_label(f, label, sizeof label);
    if (!ok) {
        ui_set_status(u, "%s: %s", label, err[0] ? err : "cannot change");
        return false;
    }
    view_knob_value(f, ui_setup(u), val, sizeof val);
    const struct model_report *r = ui_report(u);
    if (!r->runnable)
        ui_set_status(u, "%s = %s: cannot run: %s", label, val, r->why_not);
    else
        ui_set_status(u, "%s = %s: bottleneck now %s", label, val,
                      stage_table[r->bottleneck].title);
    return true;
}

void knobs_undo(struct ui *u)
{
    const struct setup *before = ui_undo_top(u);
    if (!before) {
        ui_set_status(u, "nothing to undo");
        return;
    }
    char err[UI_MSG_LEN];
    if (!ui_apply_setup(u, before, err, sizeof err)) {
        ui_set_status(u, "cannot undo: %s", err);
        return;
    }
    ui_undo_drop(u);
    ui_set_status(u, "undone: %d more change%s to undo", ui_undo_count(u),
                  ui_undo_count(u) == 1 ? "" : "s");
}

void knobs_write(struct ui *u)
{
    enum { YAML_MAX = 16384 };
    char *text = malloc(YAML_MAX);
    if (!text) {
        ui_set_status(u, "cannot write: out of memory");
        return;
    }
    setup_write_yaml(ui_setup(u), text, YAML_MAX);
    /* A new name each time (mlviz-setup.yaml, mlviz-setup-2.yaml, ...):
     * nothing that exists, a link included, is ever replaced. */
    char written[SAFEWRITE_PATH_LEN], err[SAFEWRITE_PATH_LEN + 256];
    if (safewrite_text("mlviz-setup.yaml", text, SAFEWRITE_NEW_NAME, written, sizeof written, err,
                       sizeof err))
        ui_set_status(u, "wrote %s (mlviz -c %s opens it)", written, written);
    else
        ui_set_status(u, "%s", err);
    free(text);
}
