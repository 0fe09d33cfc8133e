/* plan_space: the search space (dimensions, values, candidate numbering). */
#include "plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

enum value_source {
    FROM_DEVICES,
    FROM_EXPERTS,
    FROM_LAYERS,
    FROM_UNEVEN,
    FROM_BATCH,
    FROM_CHOICES
};

/* The fields searched by default. A field missing from the setup table is
 * skipped, so a field added to the model joins the search by being listed
 * here. `frugal` is the value that needs the least memory ("*" when memory
 * does not depend on the field), used by the unit memory bound. */
static const struct default_dim {
    const char *path;
    int level;
    int source;
    const char *frugal;
} default_dims[] = {
    {"training.tensor_parallel", PLAN_LAYOUT, FROM_DEVICES, NULL},
    {"training.context_parallel", PLAN_LAYOUT, FROM_DEVICES, NULL},
    {"training.pipeline_parallel", PLAN_LAYOUT, FROM_DEVICES, NULL},
    {"training.expert_parallel", PLAN_LAYOUT, FROM_EXPERTS, NULL},
    {"training.virtual_stages", PLAN_LAYOUT, FROM_LAYERS, NULL},
    /* Uneven pipelines (Llama 3 paper, section 3.3.2: one layer fewer on
     * the first and the last stage, which also hold the embedding and the
     * output layer and loss): the setup's own split, or with --vary any
     * layer counts and "even-1", one layer fewer than the stage's even
     * share whatever the pipeline size of the candidate. */
    {"training.first_stage_layers", PLAN_LAYOUT, FROM_UNEVEN, NULL},
    {"training.last_stage_layers", PLAN_LAYOUT, FROM_UNEVEN, NULL},
    {"training.micro_batch", PLAN_LAYOUT, FROM_BATCH, NULL},
    /* Full recomputation needs the least memory except on a stage of one
     * layer with one micro-batch in flight, so every value is tried. */
    {"training.recompute", PLAN_SWITCH, FROM_CHOICES, NULL},
    /* ZeRO-3's gathered-layer buffers (FSDP prefetches whole layers) can
     * outweigh what it shards on a small model, so every stage is tried. */
    {"training.zero_stage", PLAN_SWITCH, FROM_CHOICES, NULL},
    {"training.sequence_parallel", PLAN_SWITCH, FROM_CHOICES, "true"},
    {"training.flash_attention", PLAN_SWITCH, FROM_CHOICES, "true"},
    {"training.overlap_grad_sync", PLAN_SWITCH, FROM_CHOICES, "*"},
};
enum { DEFAULT_DIMS = sizeof default_dims / sizeof default_dims[0] };

static bool add_value(struct plan_dim *d, const char *text, double num)
{
    for (int i = 0; i < d->count; i++) {
        bool same = d->field->type == FIELD_REF || d->field->type == FIELD_STR
                        ? strcmp(d->text[i], text) == 0
                        : d->num[i] == num;
        if (same)
            return true;
    }
    if (d->count >= PLAN_VALUES_MAX)
        return false;
    snprintf(d->text[d->count], FIELD_STR_LEN, "%s", text);
    d->num[d->count] = num;
    d->count++;
    return true;
}

/* Checks one value against the field (type, range, catalog) on a scratch
 * setup and adds it. */
static bool add_checked(struct plan_dim *d, const char *text, const struct catalog *cat,
                        const char *opt, char *err, size_t err_len)
{
    struct setup scratch;
    setup_defaults(&scratch);
    char msg[300];
    if (!fields_set_text(d->field, &scratch, text, msg, sizeof msg)) {
        snprintf(err, err_len, "%s: %s", opt, msg);
        return false;
    }
    if (d->field->type == FIELD_REF && text[0] &&
        !catalog_find(cat, (enum catalog_kind)d->field->ref_kind, text)) {
        const char *near = catalog_suggest(cat, (enum catalog_kind)d->field->ref_kind, text);
        snprintf(err, err_len, "%s: unknown catalog id '%s'%s%s%s", opt, text,
                 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        return false;
    }
    if (!add_value(d, text, fields_get_number(d->field, &scratch))) {
        snprintf(err, err_len, "%s: at most %d values per field", opt, PLAN_VALUES_MAX);
        return false;
    }
    return true;
}

static bool whole_number(const char *text, long long *out)
{
    double v;
    if (!plan_parse_double(text, &v) || v != floor(v) || fabs(v) > 1e15)
        return false;
    *out = (long long)v;
    return true;
}

/* "a,b,c", "lo..hi" (lo, 2 lo, 4 lo ... up to hi) or "lo..hi+step". */
static bool parse_values(struct plan_dim *d, const char *list, const struct catalog *cat,
                         const char *opt, char *err, size_t err_len)
{
    const char *dots = strstr(list, "..");
    if (dots && d->field->type != FIELD_REF && d->field->type != FIELD_STR) {
        char lo_text[64], hi_text[64], step_text[64] = "";
        size_t n = (size_t)(dots - list);
        const char *plus = strchr(dots + 2, '+');
        size_t m = plus ? (size_t)(plus - dots - 2) : strlen(dots + 2);
        long long lo, hi, step = 0;
        if (n >= sizeof lo_text || m >= sizeof hi_text || (plus && strlen(plus + 1) >= 64))
            goto bad_range;
        memcpy(lo_text, list, n);
        lo_text[n] = '\0';
        memcpy(hi_text, dots + 2, m);
        hi_text[m] = '\0';
        if (plus)
            snprintf(step_text, sizeof step_text, "%s", plus + 1);
        if (!whole_number(lo_text, &lo) || !whole_number(hi_text, &hi) || lo < 0 || hi < lo ||
            (plus && (!whole_number(step_text, &step) || step < 1)) || (!plus && lo < 1))
            goto bad_range;
        for (long long v = lo; v <= hi; v = plus ? v + step : v * 2) {
            char text[32];
            snprintf(text, sizeof text, "%lld", v);
            if (!add_checked(d, text, cat, opt, err, err_len))
                return false;
        }
        return true;
    bad_range:
        snprintf(err, err_len,
                 "%s: a range is lo..hi (doubling from lo >= 1) or lo..hi+step with whole "
                 "numbers, lo <= hi (got '%.80s')",
                 opt, list);
        return false;
    }
    char buf[PLAN_ARG_LEN];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++) {
        if (d->one_fewer && strcmp(tok, "even-1") == 0)
            add_value(d, tok, PLAN_ONE_FEWER);
        else if (!add_checked(d, tok, cat, opt, err, err_len))
            return false;
    }
    if (n == 0) {
        snprintf(err, err_len, "%s: no values", opt);
        return false;
    }
    return true;
}

static void add_divisors(struct plan_dim *d, long long n)
{
    for (long long k = 1; k <= n && k <= d->field->max; k++) {
        if (n % k != 0 || k < d->field->min)
            continue;
        char text[32];
        snprintf(text, sizeof text, "%lld", k);
        add_value(d, text, (double)k);
    }
}

/* Divisors of every device count the hardware dimensions allow. */
static bool device_divisors(struct plan_dim *d, const struct plan_space *sp, const char *opt,
                            char *err, size_t err_len)
{
    const struct setup *b = &sp->base;
    const struct field *f = d->field;
    int hw[PLAN_DIMS_MAX] = {0};
    for (;;) {
        struct setup s = *b;
        for (int i = 0; i < sp->n_dims; i++)
            if (sp->dims[i].level == PLAN_HARDWARE)
                plan_apply_value(&sp->dims[i], hw[i], &s);
        add_divisors(d, setup_devices(&s));
        int i = sp->n_dims - 1;
        for (; i >= 0; i--) {
            if (sp->dims[i].level != PLAN_HARDWARE)
                continue;
            if (++hw[i] < sp->dims[i].count)
                break;
            hw[i] = 0;
        }
        if (i < 0)
            break;
        if (d->count >= PLAN_VALUES_MAX)
            break;
    }
    if (d->count >= PLAN_VALUES_MAX) {
        snprintf(err, err_len,
                 "%s: the device counts have more than %d divisors; list the values with "
                 "--vary %s=a,b,c",
                 opt, PLAN_VALUES_MAX, f->path);
        return false;
    }
    return true;
}

static bool default_values(struct plan_dim *d, int source, const struct plan_space *sp,
                           const char *opt, char *err, size_t err_len)
{
    const struct setup *b = &sp->base;
    const struct field *f = d->field;
    switch (source) {
    case FROM_DEVICES:
        return device_divisors(d, sp, opt, err, err_len);
    case FROM_EXPERTS: {
        /* Expert-parallel sizes divide the expert count; a dense model
         * (or a setup without experts) has 1 only. */
        const struct field *e = fields_find(setup_fields(), "model.experts");
        double experts = e ? fields_get_number(e, b) : 0;
        if (experts >= 1 && experts <= 1e6)
            add_divisors(d, (long long)experts);
        else
            add_value(d, "1", 1);
        return true;
    }
    case FROM_LAYERS:
        add_divisors(d, b->model.layers);
        return true;
    case FROM_UNEVEN: {
        /* The setup's own split only, unless varied: two more layout
         * fields of 2-3 values each would multiply every search by 4-9. */
        char text[32];
        snprintf(text, sizeof text, "%.0f", fields_get_number(f, b));
        add_value(d, text, fields_get_number(f, b));
        return true;
    }
    case FROM_BATCH:
        add_divisors(d, b->training.global_batch);
        return true;
    default:
        if (f->type == FIELD_BOOL) {
            add_value(d, "false", 0);
            add_value(d, "true", 1);
        } else if (f->type == FIELD_ENUM) {
            /* torchtitan's per-op checkpointing (recompute "op") is searched
             * only when --vary names it: Megatron-style stacks have none. */
            bool op = strcmp(f->path, "training.recompute") == 0;
            for (int i = 0; f->choices[i]; i++)
                if (!(op && i == RECOMPUTE_OP))
                    add_value(d, f->choices[i], i);
        } else {
            for (double v = f->min; v <= f->max && d->count < PLAN_VALUES_MAX; v++) {
                char text[32];
                snprintf(text, sizeof text, "%.0f", v);
                add_value(d, text, v);
            }
        }
        return true;
    }
}

static int value_index(const struct plan_dim *d, const char *text)
{
    for (int i = 0; i < d->count; i++)
        if (strcmp(d->text[i], text) == 0)
            return i;
    return -1;
}

static const struct default_dim *default_of(const char *path)
{
    for (int i = 0; i < DEFAULT_DIMS; i++)
        if (strcmp(default_dims[i].path, path) == 0)
            return &default_dims[i];
    return NULL;
}

/* The fields the user varies, checked; `user` gets one dimension each. */
static bool user_dims(const struct plan_spec *spec, const struct catalog *cat,
                      struct plan_dim user[PLAN_DIMS_MAX], int *n_user, char *err, size_t err_len)
{
    const struct field_table *t = setup_fields();
    *n_user = 0;
    for (int i = 0; i < spec->n_vary; i++) {
        char path[PLAN_ARG_LEN], opt[PLAN_ARG_LEN + 16];
        const char *eq = strchr(spec->vary[i], '=');
        size_t n = (size_t)(eq - spec->vary[i]);
        memcpy(path, spec->vary[i], n);
        path[n] = '\0';
        snprintf(opt, sizeof opt, "--vary %s", path);
        const struct field *f = fields_find(t, path);
        if (!f) {
            const char *near = fields_suggest(t, path);
            snprintf(err, err_len, "--vary: unknown field '%s'%s%s%s (see: mlviz fields)", path,
                     near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            return false;
        }
        if (f->type == FIELD_STR && !(f->flags & FIELD_KNOB)) {
            snprintf(err, err_len, "%s: text fields cannot be searched", opt);
            return false;
        }
        struct plan_dim *d = &user[(*n_user)++];
        memset(d, 0, sizeof *d);
        d->field = f;
        const struct default_dim *dd = default_of(path);
        d->level = dd ? dd->level : PLAN_HARDWARE;
        d->frugal = -1;
        d->one_fewer = dd && dd->source == FROM_UNEVEN;
        if (!parse_values(d, eq + 1, cat, opt, err, err_len))
            return false;
    }
    return true;
}

/* Units, switch combinations per unit and candidates, at most 2^50. */
static bool count_space(struct plan_space *sp, char *err, size_t err_len)
{
    sp->units = 1;
    sp->per_unit = 1;
    for (int i = 0; i < sp->n_dims; i++) {
        uint64_t *m = sp->dims[i].level == PLAN_SWITCH ? &sp->per_unit : &sp->units;
        if (*m > (UINT64_C(1) << 50) / (uint64_t)sp->dims[i].count) {
            snprintf(err, err_len, "plan: the search space is too large (more than 2^50)");
            return false;
        }
        *m *= (uint64_t)sp->dims[i].count;
    }
    sp->candidates = sp->units * sp->per_unit;
    if (sp->candidates > (UINT64_C(1) << 50)) {
        snprintf(err, err_len, "plan: the search space is too large (more than 2^50)");
        return false;
    }
    return true;
}

bool plan_space_build(struct plan_space *sp, const struct setup *base, const struct plan_spec *spec,
                      const struct catalog *cat, char *err, size_t err_len)
{
    memset(sp, 0, sizeof *sp);
    sp->base = *base;
    const struct field_table *t = setup_fields();
    /* The user's fields first: hardware ones become the outer dimensions. */
    struct plan_dim user[PLAN_DIMS_MAX];
    int n_user = 0;
    if (!user_dims(spec, cat, user, &n_user, err, err_len))
        return false;
    for (int i = 0; i < n_user; i++)
        if (user[i].level == PLAN_HARDWARE)
            sp->dims[sp->n_dims++] = user[i];
    for (int level = PLAN_LAYOUT; level <= PLAN_SWITCH; level++) {
        for (int k = 0; k < DEFAULT_DIMS; k++) {
            const struct default_dim *dd = &default_dims[k];
            if (dd->level != level)
                continue;
            const struct field *f = fields_find(t, dd->path);
            if (!f)
                continue; /* not in this version's setup */
            if (base->model.kind != MODEL_TRANSFORMER && level == PLAN_LAYOUT &&
                dd->source != FROM_BATCH)
                continue; /* generic models: data parallel only */
            struct plan_dim *d = &sp->dims[sp->n_dims];
            int j = 0;
            while (j < n_user && user[j].field != f)
                j++;
            if (j < n_user) {
                *d = user[j];
            } else {
                memset(d, 0, sizeof *d);
                d->field = f;
                d->level = level;
                char opt[128];
                snprintf(opt, sizeof opt, "plan: %s", f->path);
                if (!default_values(d, dd->source, sp, opt, err, err_len))
                    return false;
            }
            d->frugal = -1;
            d->splits_devices = dd->source == FROM_DEVICES;
            if (dd->frugal && strcmp(dd->frugal, "*") == 0)
                d->frugal = 0;
            else if (dd->frugal)
                d->frugal = value_index(d, dd->frugal);
            if (d->count == 0)
                continue;
            sp->n_dims++;
            if (level == PLAN_SWITCH)
                sp->n_switch++;
        }
    }
    return count_space(sp, err, err_len);
}

void plan_apply_value(const struct plan_dim *d, int k, struct setup *s)
{
    char msg[200];
    if (d->one_fewer && d->num[k] == PLAN_ONE_FEWER) {
        /* One layer fewer than the even share of a stage; a share of one
         * layer (or no pipeline) gets a split that setup_resolve refuses,
         * so it never repeats the even candidate. */
        int p = s->training.pipeline_parallel, layers = s->model.layers;
        int share = p > 1 ? layers / p - 1 : 0;
        fields_set_number(d->field, s, share >= 1 ? share : layers, msg, sizeof msg);
        return;
    }
    if (d->field->type == FIELD_REF || d->field->type == FIELD_STR)
        fields_set_text(d->field, s, d->text[k], msg, sizeof msg);
    else
        fields_set_number(d->field, s, d->num[k], msg, sizeof msg);
}

/* Digits of a candidate number, last dimension fastest. */
void plan_digits_of(const struct plan_space *sp, uint64_t index, int digit[PLAN_DIMS_MAX])
{
    for (int i = sp->n_dims - 1; i >= 0; i--) {
        digit[i] = (int)(index % (uint64_t)sp->dims[i].count);
        index /= (uint64_t)sp->dims[i].count;
    }
}

void plan_space_setup(const struct plan_space *sp, uint64_t index, struct setup *out)
{
    int digit[PLAN_DIMS_MAX];
    plan_digits_of(sp, index, digit);
    *out = sp->base;
    for (int i = 0; i < sp->n_dims; i++)
        plan_apply_value(&sp->dims[i], digit[i], out);
}

void plan_space_first_unit(const struct plan_space *sp, int digit[PLAN_DIMS_MAX], struct setup *s)
{
    plan_space_setup(sp, 0, s);
    for (int i = 0; i < sp->n_dims; i++)
        digit[i] = 0;
}

bool plan_space_next_unit(const struct plan_space *sp, int digit[PLAN_DIMS_MAX], struct setup *s)
{
    int last = sp->n_dims - sp->n_switch - 1; /* the unit dimensions come first */
    int i = last;
    while (i >= 0 && ++digit[i] == sp->dims[i].count)
        digit[i--] = 0;
    if (i < 0)
        return false;
    /* Dimensions i..last changed; setting them again in order gives what
     * plan_space_setup gives, since a value depends only on dimensions
     * before it (a one-fewer split reads the pipeline size and the layer
     * count: default_dims lists the pipeline before the splits, and a
     * varied model.layers is a hardware dimension, first). */
    for (int k = i; k <= last; k++)
        plan_apply_value(&sp->dims[k], digit[k], s);
    return true;
}

int plan_space_changed(const struct plan_space *sp, const struct setup *s, int dims[PLAN_DIMS_MAX])
{
    int n = 0;
    for (int i = 0; i < sp->n_dims; i++) {
        const struct field *f = sp->dims[i].field;
        char now[FIELD_STR_LEN + 8], was[FIELD_STR_LEN + 8];
        fields_format(f, s, now, sizeof now);
        fields_format(f, &sp->base, was, sizeof was);
        if (strcmp(now, was) != 0)
            dims[n++] = i;
    }
    return n;
}

void plan_space_changes(const struct plan_space *sp, uint64_t index, char *buf, size_t len)
{
    struct setup s;
    int dims[PLAN_DIMS_MAX];
    plan_space_setup(sp, index, &s);
    int n = plan_space_changed(sp, &s, dims);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        const struct field *f = sp->dims[dims[i]].field;
        char now[FIELD_STR_LEN + 8];
        fields_format(f, &s, now, sizeof now);
        int w = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", f->path, now);
        if (w > 0)
            used += (size_t)w;
    }
}
