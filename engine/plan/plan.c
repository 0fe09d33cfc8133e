/* plan: search over layouts and hardware, top N and Pareto front. */
#include "plan.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "infile.h"

const char *const plan_figure_names[] = {
    "tokens_per_s", "days",      "usd_total",  "energy_mwh", "mfu",
    "usd_per_hour", "facility_kw", "memory_gb", "devices",    "step_time_s", NULL};
/* Where each figure sits in the JSON of `mlviz eval` (report_visit keys). */
const char *const plan_figure_report_keys[] = {
    "tokens_per_s",       "cost.days_to_train", "cost.usd_total",       "cost.energy_mwh",
    "mfu",                "cost.usd_per_hour",  "power.facility_kw",    "memory.per_device_gb",
    "layout.devices",            "step_time_s",        NULL};

bool plan_figure_maximized(int figure)
{
    return figure == PLAN_TOKENS_PER_S || figure == PLAN_MFU;
}

int plan_figure_find(const char *name)
{
    for (int i = 0; i < PLAN_FIGURE_COUNT; i++)
        if (strcmp(plan_figure_names[i], name) == 0)
            return i;
    return -1;
}

static void figures_of(const struct model_report *o, double fig[PLAN_FIGURE_COUNT])
{
    fig[PLAN_TOKENS_PER_S] = o->tokens_per_s;
    fig[PLAN_DAYS] = o->cost.days_to_train;
    fig[PLAN_USD_TOTAL] = o->cost.usd_total;
    fig[PLAN_ENERGY_MWH] = o->cost.energy_mwh;
    fig[PLAN_MFU] = o->mfu;
    fig[PLAN_USD_PER_HOUR] = o->cost.usd_per_hour;
    fig[PLAN_FACILITY_KW] = o->power.facility_kw;
    fig[PLAN_MEMORY_GB] = o->memory.per_device_gb;
    fig[PLAN_DEVICES] = o->devices;
    fig[PLAN_STEP_TIME_S] = o->step_time_s;
}

/* ---- the spec ------------------------------------------------------------------ */

void plan_spec_init(struct plan_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->objective = PLAN_TOKENS_PER_S;
    spec->top = 10;
    spec->threads = 1;
    spec->shard_count = 1;
}

bool plan_spec_objective(struct plan_spec *spec, const char *name, char *err, size_t err_len)
{
    static const int allowed[] = {PLAN_TOKENS_PER_S, PLAN_DAYS, PLAN_USD_TOTAL, PLAN_ENERGY_MWH,
                                  PLAN_MFU};
    int f = plan_figure_find(name);
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (f == allowed[i]) {
            spec->objective = f;
            return true;
        }
    snprintf(err, err_len,
             "--objective must be tokens_per_s, days, usd_total, energy_mwh or mfu (got '%s')",
             name);
    return false;
}

static bool parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool plan_spec_max(struct plan_spec *spec, const char *arg, char *err, size_t err_len)
{
    const char *eq = strchr(arg, '=');
    char name[64];
    if (!eq || (size_t)(eq - arg) >= sizeof name || strlen(arg) >= PLAN_ARG_LEN) {
        snprintf(err, err_len, "--max takes FIGURE=VALUE, e.g. --max devices=2048 (got '%.80s')",
                 arg);
        return false;
    }
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = '\0';
    int f = plan_figure_find(name);
    if (f < 0) {
        const char *near = fields_suggest_word(name, plan_figure_names, PLAN_FIGURE_COUNT);
        snprintf(err, err_len, "--max: unknown figure '%s'%s%s%s (one of: tokens_per_s, days, "
                 "usd_total, energy_mwh, mfu, usd_per_hour, facility_kw, memory_gb, devices, "
                 "step_time_s)", name, near ? "; did you mean '" : "", near ? near : "",
                 near ? "'?" : "");
        return false;
    }
    double v;
    if (!parse_double(eq + 1, &v) || v < 0) {
        snprintf(err, err_len, "--max %s must be a number at least 0 (got '%.80s')", name, eq + 1);
        return false;
    }
    if (!spec->has_max[f]) {
        if (spec->n_maxes >= PLAN_FIGURE_COUNT)
            return false;
        snprintf(spec->maxes[spec->n_maxes++], PLAN_ARG_LEN, "%s", arg);
    } else {
        for (int i = 0; i < spec->n_maxes; i++)
            if (strncmp(spec->maxes[i], name, strlen(name)) == 0 &&
                spec->maxes[i][strlen(name)] == '=')
                snprintf(spec->maxes[i], PLAN_ARG_LEN, "%s", arg);
    }
    spec->has_max[f] = true;
    spec->max[f] = v;
    return true;
}

bool plan_spec_vary(struct plan_spec *spec, const char *arg, char *err, size_t err_len)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || strlen(arg) >= PLAN_ARG_LEN) {
        snprintf(err, err_len,
                 "--vary takes PATH=a,b,c or PATH=lo..hi, e.g. --vary cluster.nodes=64..1024 "
                 "(got '%.80s')",
                 arg);
        return false;
    }
    for (int i = 0; i < spec->n_vary; i++) {
        const char *other = strchr(spec->vary[i], '=');
        if ((size_t)(other - spec->vary[i]) == (size_t)(eq - arg) &&
            strncmp(spec->vary[i], arg, (size_t)(eq - arg)) == 0) {
            snprintf(err, err_len, "--vary %.*s is given twice", (int)(eq - arg), arg);
            return false;
        }
    }
    if (spec->n_vary >= PLAN_DIMS_MAX) {
        snprintf(err, err_len, "--vary: at most %d fields", PLAN_DIMS_MAX);
        return false;
    }
    snprintf(spec->vary[spec->n_vary++], PLAN_ARG_LEN, "%s", arg);
    return true;
}

/* ---- the space ------------------------------------------------------------------- */

enum value_source { FROM_DEVICES, FROM_EXPERTS, FROM_LAYERS, FROM_BATCH, FROM_CHOICES };

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
    {"training.micro_batch", PLAN_LAYOUT, FROM_BATCH, NULL},
    /* Full recomputation needs the least memory except on a stage of one
     * layer with one micro-batch in flight, so every value is tried. */
    {"training.recompute", PLAN_SWITCH, FROM_CHOICES, NULL},
    {"training.zero_stage", PLAN_SWITCH, FROM_CHOICES, "3"},
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
    if (!parse_double(text, &v) || v != floor(v) || fabs(v) > 1e15)
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
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++)
        if (!add_checked(d, tok, cat, opt, err, err_len))
            return false;
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

static bool default_values(struct plan_dim *d, int source, const struct plan_space *sp,
                           const char *opt, char *err, size_t err_len)
{
    const struct setup *b = &sp->base;
    const struct field *f = d->field;
    switch (source) {
    case FROM_DEVICES: {
        /* Divisors of every device count the hardware dimensions allow. */
        int hw[PLAN_DIMS_MAX] = {0};
        for (;;) {
            struct setup s = *b;
            char msg[200];
            for (int i = 0; i < sp->n_dims; i++)
                if (sp->dims[i].level == PLAN_HARDWARE) {
                    const struct plan_dim *h = &sp->dims[i];
                    if (h->field->type == FIELD_REF || h->field->type == FIELD_STR)
                        fields_set_text(h->field, &s, h->text[hw[i]], msg, sizeof msg);
                    else
                        fields_set_number(h->field, &s, h->num[hw[i]], msg, sizeof msg);
                }
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
    case FROM_BATCH:
        add_divisors(d, b->training.global_batch);
        return true;
    default:
        if (f->type == FIELD_BOOL) {
            add_value(d, "false", 0);
            add_value(d, "true", 1);
        } else if (f->type == FIELD_ENUM) {
            for (int i = 0; f->choices[i]; i++)
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

bool plan_space_build(struct plan_space *sp, const struct setup *base,
                      const struct plan_spec *spec, const struct catalog *cat, char *err,
                      size_t err_len)
{
    memset(sp, 0, sizeof *sp);
    sp->base = *base;
    const struct field_table *t = setup_fields();
    /* The user's fields first: hardware ones become the outer dimensions. */
    struct plan_dim user[PLAN_DIMS_MAX];
    int n_user = 0;
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
        struct plan_dim *d = &user[n_user++];
        memset(d, 0, sizeof *d);
        d->field = f;
        const struct default_dim *dd = default_of(path);
        d->level = dd ? dd->level : PLAN_HARDWARE;
        d->frugal = -1;
        if (!parse_values(d, eq + 1, cat, opt, err, err_len))
            return false;
    }
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

static void apply_value(const struct plan_dim *d, int k, struct setup *s)
{
    char msg[200];
    if (d->field->type == FIELD_REF || d->field->type == FIELD_STR)
        fields_set_text(d->field, s, d->text[k], msg, sizeof msg);
    else
        fields_set_number(d->field, s, d->num[k], msg, sizeof msg);
}

/* Digits of a candidate number, last dimension fastest. */
static void digits_of(const struct plan_space *sp, uint64_t index, int digit[PLAN_DIMS_MAX])
{
    for (int i = sp->n_dims - 1; i >= 0; i--) {
        digit[i] = (int)(index % (uint64_t)sp->dims[i].count);
        index /= (uint64_t)sp->dims[i].count;
    }
}

void plan_space_setup(const struct plan_space *sp, uint64_t index, struct setup *out)
{
    int digit[PLAN_DIMS_MAX];
    digits_of(sp, index, digit);
    *out = sp->base;
    for (int i = 0; i < sp->n_dims; i++)
        apply_value(&sp->dims[i], digit[i], out);
}

int plan_space_changed(const struct plan_space *sp, const struct setup *s,
                       int dims[PLAN_DIMS_MAX])
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

/* ---- ranking --------------------------------------------------------------------- */

static double key_of(const struct plan_spec *spec, const struct plan_entry *e)
{
    double v = e->fig[spec->objective];
    return plan_figure_maximized(spec->objective) ? -v : v;
}

int plan_compare(const struct plan_spec *spec, const struct plan_entry *a,
                 const struct plan_entry *b)
{
    double ka = key_of(spec, a), kb = key_of(spec, b);
    if (ka < kb)
        return -1;
    if (ka > kb)
        return 1;
    return a->index < b->index ? -1 : a->index > b->index ? 1 : 0;
}

/* a dominates b on (days, usd_total, energy_mwh); equal points: the lower
 * number wins, which keeps the front the same whatever the order of arrival. */
static bool dominates(const struct plan_entry *a, const struct plan_entry *b)
{
    static const int axes[] = {PLAN_DAYS, PLAN_USD_TOTAL, PLAN_ENERGY_MWH};
    bool strict = false;
    for (int i = 0; i < 3; i++) {
        if (a->fig[axes[i]] > b->fig[axes[i]])
            return false;
        strict = strict || a->fig[axes[i]] < b->fig[axes[i]];
    }
    return strict || a->index < b->index;
}

static bool front_add(struct plan_result *r, const struct plan_entry *e)
{
    for (size_t i = 0; i < r->n_front; i++)
        if (r->front[i].index == e->index || dominates(&r->front[i], e))
            return true;
    size_t kept = 0;
    for (size_t i = 0; i < r->n_front; i++)
        if (!dominates(e, &r->front[i]))
            r->front[kept++] = r->front[i];
    r->n_front = kept;
    if (r->n_front == r->cap_front) {
        size_t cap = r->cap_front ? 2 * r->cap_front : 64;
        struct plan_entry *p = realloc(r->front, cap * sizeof *p);
        if (!p)
            return false;
        r->front = p;
        r->cap_front = cap;
    }
    r->front[r->n_front++] = *e;
    return true;
}

static void top_add(struct plan_result *r, const struct plan_spec *spec,
                    const struct plan_entry *e)
{
    if (r->n_top == spec->top && plan_compare(spec, e, &r->top[r->n_top - 1]) >= 0)
        return;
    int i = r->n_top < spec->top ? r->n_top++ : r->n_top - 1;
    while (i > 0 && plan_compare(spec, e, &r->top[i - 1]) < 0) {
        r->top[i] = r->top[i - 1];
        i--;
    }
    r->top[i] = *e;
}

bool plan_result_add(struct plan_result *r, const struct plan_spec *spec,
                     const struct plan_entry *e)
{
    for (int i = 0; i < r->n_top; i++)
        if (r->top[i].index == e->index)
            return front_add(r, e);
    top_add(r, spec, e);
    return front_add(r, e);
}

void plan_result_free(struct plan_result *r)
{
    free(r->front);
    r->front = NULL;
    r->n_front = r->cap_front = 0;
}

static bool within_limits(const struct plan_spec *spec, const double fig[PLAN_FIGURE_COUNT])
{
    for (int f = 0; f < PLAN_FIGURE_COUNT; f++)
        if (spec->has_max[f] && fig[f] > spec->max[f])
            return false;
    return true;
}

/* A runnable report: fits, can be cooled, makes progress. */
static bool usable(const struct model_report *o)
{
    return o->runnable && o->cost.days_to_train > 0 && o->tokens_per_s > 0;
}

bool plan_eval_setup(const struct setup *s, const struct catalog *cat, struct plan_entry *e)
{
    struct resolved r;
    struct model_report o;
    char err[512];
    memset(e->fig, 0, sizeof e->fig);
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        return false;
    model_eval(s, &r, &o);
    figures_of(&o, e->fig);
    return usable(&o);
}

bool plan_eval_candidate(const struct plan_space *sp, const struct catalog *cat,
                         uint64_t index, struct plan_entry *e)
{
    struct setup s;
    plan_space_setup(sp, index, &s);
    e->index = index;
    return plan_eval_setup(&s, cat, e);
}

/* ---- the workers ------------------------------------------------------------------- */

struct shared {
    const struct plan_space *sp;
    const struct catalog *cat;
    const struct plan_spec *spec;
    struct plan_progress *progress;
    double base_key;
    bool base_ok;
    uint64_t next_unit; /* atomic */
    int finished;       /* atomic */
};

struct worker {
    struct shared *sh;
    struct plan_result *res;
    bool ok;
};

static void record(struct worker *w, const struct model_report *o, uint64_t index)
{
    const struct plan_spec *spec = w->sh->spec;
    struct plan_counts *c = &w->res->counts;
    c->evaluated++;
    if (!usable(o))
        return;
    struct plan_entry e;
    e.index = index;
    figures_of(o, e.fig);
    if (!within_limits(spec, e.fig)) {
        c->constraint_cut++;
        return;
    }
    c->runnable++;
    if (w->sh->base_ok && key_of(spec, &e) < w->sh->base_key)
        c->better_than_base++;
    top_add(w->res, spec, &e);
    if (!front_add(w->res, &e))
        w->ok = false;
}

/* Every candidate resolved and evaluated on its own: the reference the
 * pruned search is tested against. */
static void unit_exhaustive(struct worker *w, uint64_t unit)
{
    const struct plan_space *sp = w->sh->sp;
    struct setup s;
    struct resolved r;
    struct model_report o;
    char err[512];
    for (uint64_t j = 0; j < sp->per_unit; j++) {
        uint64_t index = unit * sp->per_unit + j;
        plan_space_setup(sp, index, &s);
        if (!setup_resolve(&s, w->sh->cat, &r, err, sizeof err)) {
            w->res->counts.invalid++;
            continue;
        }
        model_eval(&s, &r, &o);
        record(w, &o, index);
    }
}

enum { BOUND_TRIES_MAX = 16 };

static void unit_pruned(struct worker *w, uint64_t unit)
{
    const struct plan_space *sp = w->sh->sp;
    const struct plan_spec *spec = w->sh->spec;
    struct plan_counts *c = &w->res->counts;
    struct setup s;
    struct resolved r;
    struct model_report o;
    struct memory_report m;
    char err[512];
    int digit[PLAN_DIMS_MAX];
    int first_switch = sp->n_dims - sp->n_switch;
    plan_space_setup(sp, unit * sp->per_unit, &s);
    digits_of(sp, unit * sp->per_unit, digit);
    /* Devices are fixed by the unit. */
    if (spec->has_max[PLAN_DEVICES] && setup_devices(&s) > spec->max[PLAN_DEVICES]) {
        c->constraint_cut += sp->per_unit;
        return;
    }
    /* Tensor, context and pipeline sizes multiply into a divisor of the
     * devices (data parallelism takes the rest): a cheap necessary
     * condition before the resolve. */
    long long split = 1;
    for (int i = 0; i < first_switch; i++)
        if (sp->dims[i].splits_devices)
            split *= (long long)sp->dims[i].num[digit[i]];
    if (split > setup_devices(&s) || setup_devices(&s) % split != 0) {
        c->invalid += sp->per_unit;
        return;
    }
    /* Validity does not depend on the switches (tested against the
     * exhaustive search), so one resolve decides the unit. */
    if (!setup_resolve(&s, w->sh->cat, &r, err, sizeof err)) {
        c->invalid += sp->per_unit;
        return;
    }
    /* Memory bound: the least memory over the switches, from their frugal
     * values (memory is monotone in each, docs/PLAN.md) and every value of
     * those without one. */
    uint64_t tries = 1;
    for (int i = first_switch; i < sp->n_dims; i++)
        if (sp->dims[i].frugal < 0)
            tries *= (uint64_t)sp->dims[i].count;
    if (sp->n_switch > 0 && tries <= BOUND_TRIES_MAX) {
        bool fits = false;
        for (uint64_t k = 0; k < tries && !fits; k++) {
            struct setup f = s;
            uint64_t rest = k;
            for (int i = first_switch; i < sp->n_dims; i++) {
                const struct plan_dim *d = &sp->dims[i];
                int v = d->frugal;
                if (v < 0) {
                    v = (int)(rest % (uint64_t)d->count);
                    rest /= (uint64_t)d->count;
                }
                apply_value(d, v, &f);
            }
            model_memory(&f, &r, &m);
            fits = m.fits;
        }
        if (!fits) {
            c->memory_cut += sp->per_unit;
            return;
        }
    }
    for (uint64_t j = 0; j < sp->per_unit; j++) {
        if (j > 0) {
            /* Odometer over the switch digits; apply only what changed. */
            for (int i = sp->n_dims - 1; i >= first_switch; i--) {
                if (++digit[i] < sp->dims[i].count) {
                    apply_value(&sp->dims[i], digit[i], &s);
                    break;
                }
                digit[i] = 0;
                apply_value(&sp->dims[i], 0, &s);
            }
        }
        model_memory(&s, &r, &m);
        if (!m.fits) {
            c->memory_cut++;
            continue;
        }
        model_eval(&s, &r, &o);
        record(w, &o, unit * sp->per_unit + j);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    const struct plan_spec *spec = sh->spec;
    for (;;) {
        if (sh->progress && __atomic_load_n(&sh->progress->cancel, __ATOMIC_RELAXED)) {
            w->res->cancelled = true;
            break;
        }
        uint64_t u = __atomic_fetch_add(&sh->next_unit, 1, __ATOMIC_RELAXED);
        /* Units of this shard: shard_index, shard_index + count, ... */
        uint64_t unit = u * (uint64_t)spec->shard_count + (uint64_t)spec->shard_index;
        if (unit >= sh->sp->units)
            break;
        w->res->counts.candidates += sh->sp->per_unit;
        if (spec->exhaustive)
            unit_exhaustive(w, unit);
        else
            unit_pruned(w, unit);
        if (sh->progress)
            __atomic_fetch_add(&sh->progress->done, sh->sp->per_unit, __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&sh->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void add_counts(struct plan_counts *to, const struct plan_counts *from)
{
    to->candidates += from->candidates;
    to->invalid += from->invalid;
    to->memory_cut += from->memory_cut;
    to->constraint_cut += from->constraint_cut;
    to->evaluated += from->evaluated;
    to->runnable += from->runnable;
    to->better_than_base += from->better_than_base;
}

static uint64_t shard_units(const struct plan_space *sp, const struct plan_spec *spec)
{
    uint64_t n = sp->units / (uint64_t)spec->shard_count;
    if (sp->units % (uint64_t)spec->shard_count > (uint64_t)spec->shard_index)
        n++;
    return n;
}

bool plan_run(const struct plan_space *sp, const struct catalog *cat,
              const struct plan_spec *spec, struct plan_result *out,
              struct plan_progress *progress,
              void (*report)(void *ctx, const struct plan_progress *p), void *ctx, char *err,
              size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct plan_progress own = {0};
    if (!progress)
        progress = &own;
    progress->total = shard_units(sp, spec) * sp->per_unit;
    __atomic_store_n(&progress->done, 0, __ATOMIC_RELAXED);

    struct shared sh = {sp, cat, spec, progress, 0, false, 0, 0};
    /* The base setup's own figures and place. */
    {
        struct resolved r;
        char msg[512];
        if (!setup_resolve(&sp->base, cat, &r, msg, sizeof msg)) {
            snprintf(err, err_len, "plan: the setup itself is invalid: %s", msg);
            return false;
        }
        out->base.index = UINT64_MAX;
        out->base_runnable = plan_eval_setup(&sp->base, cat, &out->base);
        sh.base_ok = out->base_runnable;
        sh.base_key = key_of(spec, &out->base);
    }
    int n = spec->threads < 1 ? 1 : spec->threads > 64 ? 64 : spec->threads;
    struct worker *w = calloc((size_t)n, sizeof *w);
    pthread_t *tid = calloc((size_t)n, sizeof *tid);
    bool *started = calloc((size_t)n, sizeof *started);
    bool ok = w && tid && started;
    for (int i = 0; ok && i < n; i++) {
        w[i].sh = &sh;
        w[i].ok = true;
        w[i].res = calloc(1, sizeof *w[i].res);
        if (!w[i].res)
            ok = false;
    }
    int running = 0;
    for (int i = 0; ok && i < n; i++) {
        if (pthread_create(&tid[i], NULL, worker_main, &w[i]) == 0) {
            started[i] = true;
            running++;
        } else if (running == 0) {
            /* No thread at all: work here. */
            worker_main(&w[i]);
        } else {
            __atomic_fetch_add(&sh.finished, 1, __ATOMIC_RELEASE);
        }
    }
    if (ok && report) {
        while (__atomic_load_n(&sh.finished, __ATOMIC_ACQUIRE) < n) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
            report(ctx, progress);
        }
    }
    for (int i = 0; ok && i < n; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    for (int i = 0; ok && i < n; i++) {
        struct plan_result *r = w[i].res;
        ok = ok && w[i].ok;
        add_counts(&out->counts, &r->counts);
        out->cancelled = out->cancelled || r->cancelled;
        for (int k = 0; ok && k < r->n_top; k++)
            top_add(out, spec, &r->top[k]);
        for (size_t k = 0; ok && k < r->n_front; k++)
            ok = front_add(out, &r->front[k]);
    }
    for (int i = 0; w && i < n; i++) {
        if (w[i].res)
            plan_result_free(w[i].res);
        free(w[i].res);
    }
    free(w);
    free(tid);
    free(started);
    if (!ok) {
        plan_result_free(out);
        snprintf(err, err_len, "plan: out of memory");
        return false;
    }
    return true;
}

/* ---- shards ------------------------------------------------------------------------- */

static const char partial_magic[] = "mlviz-plan-partial 1";
enum { SETUP_YAML_MAX = 64 << 10 };

bool plan_write_partial(FILE *out, const struct plan_space *sp, const struct plan_spec *spec,
                        const struct plan_result *r)
{
    char *yaml = malloc(SETUP_YAML_MAX);
    if (!yaml)
        return false;
    setup_write_yaml(&sp->base, yaml, SETUP_YAML_MAX);
    fprintf(out, "%s\n", partial_magic);
    fprintf(out, "shard %d %d\n", spec->shard_index, spec->shard_count);
    fprintf(out, "objective %s\n", plan_figure_names[spec->objective]);
    fprintf(out, "top %d\n", spec->top);
    for (int i = 0; i < spec->n_vary; i++)
        fprintf(out, "vary %s\n", spec->vary[i]);
    for (int i = 0; i < spec->n_maxes; i++)
        fprintf(out, "max %s\n", spec->maxes[i]);
    const struct plan_counts *c = &r->counts;
    fprintf(out, "counts %llu %llu %llu %llu %llu %llu %llu\n",
            (unsigned long long)c->candidates, (unsigned long long)c->invalid,
            (unsigned long long)c->memory_cut, (unsigned long long)c->constraint_cut,
            (unsigned long long)c->evaluated, (unsigned long long)c->runnable,
            (unsigned long long)c->better_than_base);
    fprintf(out, "setup %zu\n%s", strlen(yaml), yaml);
    free(yaml);
    fprintf(out, "top-entries %d\n", r->n_top);
    for (int i = 0; i < r->n_top; i++)
        fprintf(out, "%llu\n", (unsigned long long)r->top[i].index);
    fprintf(out, "front-entries %zu\n", r->n_front);
    for (size_t i = 0; i < r->n_front; i++)
        fprintf(out, "%llu\n", (unsigned long long)r->front[i].index);
    fprintf(out, "end\n");
    return !ferror(out);
}

void plan_partial_free(struct plan_partial *p)
{
    free(p->setup_yaml);
    free(p->top);
    free(p->front);
    memset(p, 0, sizeof *p);
}

/* A line reader over a whole file in memory. */
struct lines {
    char *text;
    size_t len, pos;
    int line;
};

static char *next_line(struct lines *l)
{
    if (l->pos >= l->len)
        return NULL;
    char *start = l->text + l->pos;
    char *nl = memchr(start, '\n', l->len - l->pos);
    if (!nl)
        return NULL; /* every line ends with a newline */
    *nl = '\0';
    l->pos = (size_t)(nl - l->text) + 1;
    l->line++;
    return start;
}

static bool read_u64(const char *text, uint64_t *out)
{
    if (!*text || strlen(text) > 20)
        return false;
    for (const char *c = text; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno)
        return false;
    *out = v;
    return true;
}

static bool read_indices(struct lines *l, const char *word, uint64_t **out, size_t *n,
                         const char *path, char *err, size_t err_len)
{
    char *line = next_line(l);
    size_t wl = strlen(word);
    uint64_t count;
    if (!line || strncmp(line, word, wl) != 0 || line[wl] != ' ' ||
        !read_u64(line + wl + 1, &count) || count > (1u << 20)) {
        snprintf(err, err_len, "%s:%d: expected '%s N'", path, l->line + (line ? 0 : 1), word);
        return false;
    }
    *out = calloc(count ? count : 1, sizeof **out);
    if (!*out) {
        snprintf(err, err_len, "%s: out of memory", path);
        return false;
    }
    for (uint64_t i = 0; i < count; i++) {
        line = next_line(l);
        if (!line || !read_u64(line, &(*out)[i])) {
            snprintf(err, err_len, "%s:%d: expected a candidate number", path,
                     l->line + (line ? 0 : 1));
            return false;
        }
    }
    *n = (size_t)count;
    return true;
}

bool plan_read_partial(const char *path, struct plan_partial *p, char *err, size_t err_len)
{
    char *text;
    size_t len;
    memset(p, 0, sizeof *p);
    if (!infile_read(path, &text, &len, err, err_len))
        return false;
    bool ok = plan_parse_partial(path, text, len, p, err, err_len);
    free(text);
    return ok;
}

bool plan_parse_partial(const char *path, char *text, size_t len, struct plan_partial *p,
                        char *err, size_t err_len)
{
    memset(p, 0, sizeof *p);
    plan_spec_init(&p->spec);
    struct lines l = {text, len, 0, 0};
    bool ok = false;
    char msg[600];
    if (memchr(l.text, '\0', l.len)) {
        snprintf(err, err_len, "%s: binary data: not a partial result of mlviz plan --shard",
                 path);
        goto done;
    }
    char *line = next_line(&l);
    if (!line || strcmp(line, partial_magic) != 0) {
        snprintf(err, err_len, "%s:1: not a partial result of mlviz plan --shard (expected '%s')",
                 path, partial_magic);
        goto done;
    }
    int si, sn;
    char extra;
    line = next_line(&l);
    if (!line || sscanf(line, "shard %d %d %c", &si, &sn, &extra) != 2 || sn < 1 ||
        sn > 1000000 || si < 0 || si >= sn) {
        snprintf(err, err_len, "%s:%d: expected 'shard I N' with 0 <= I < N", path, l.line);
        goto done;
    }
    p->shard_index = si;
    p->shard_count = sn;
    p->spec.shard_index = si;
    p->spec.shard_count = sn;
    for (;;) {
        line = next_line(&l);
        if (!line) {
            snprintf(err, err_len, "%s:%d: unexpected end of file", path, l.line + 1);
            goto done;
        }
        if (strncmp(line, "objective ", 10) == 0) {
            if (!plan_spec_objective(&p->spec, line + 10, msg, sizeof msg))
                goto bad_line;
        } else if (strncmp(line, "top ", 4) == 0) {
            uint64_t t;
            if (!read_u64(line + 4, &t) || t < 1 || t > PLAN_TOP_MAX) {
                snprintf(msg, sizeof msg, "top must be 1..%d", PLAN_TOP_MAX);
                goto bad_line;
            }
            p->spec.top = (int)t;
        } else if (strncmp(line, "vary ", 5) == 0) {
            if (!plan_spec_vary(&p->spec, line + 5, msg, sizeof msg))
                goto bad_line;
        } else if (strncmp(line, "max ", 4) == 0) {
            if (!plan_spec_max(&p->spec, line + 4, msg, sizeof msg))
                goto bad_line;
        } else if (strncmp(line, "counts ", 7) == 0) {
            uint64_t v[7];
            char *save = NULL;
            int k = 0;
            for (char *tok = strtok_r(line + 7, " ", &save); tok && k < 8;
                 tok = strtok_r(NULL, " ", &save), k++)
                if (k >= 7 || !read_u64(tok, &v[k]))
                    k = 9;
            if (k != 7) {
                snprintf(msg, sizeof msg, "counts takes 7 whole numbers");
                goto bad_line;
            }
            p->counts = (struct plan_counts){v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
        } else if (strncmp(line, "setup ", 6) == 0) {
            uint64_t n;
            if (!read_u64(line + 6, &n) || n > SETUP_YAML_MAX || n > l.len - l.pos) {
                snprintf(msg, sizeof msg, "setup length out of range");
                goto bad_line;
            }
            p->setup_yaml = malloc((size_t)n + 1);
            if (!p->setup_yaml) {
                snprintf(msg, sizeof msg, "out of memory");
                goto bad_line;
            }
            memcpy(p->setup_yaml, l.text + l.pos, (size_t)n);
            p->setup_yaml[n] = '\0';
            for (size_t k = 0; k < n; k++)
                l.line += l.text[l.pos + k] == '\n';
            l.pos += (size_t)n;
            break;
        } else {
            snprintf(msg, sizeof msg, "unknown line '%.60s'", line);
            goto bad_line;
        }
    }
    if (!read_indices(&l, "top-entries", &p->top, &p->n_top, path, err, err_len) ||
        !read_indices(&l, "front-entries", &p->front, &p->n_front, path, err, err_len))
        goto done;
    line = next_line(&l);
    if (!line || strcmp(line, "end") != 0 || l.pos != l.len) {
        snprintf(err, err_len, "%s:%d: expected 'end' as the last line", path, l.line);
        goto done;
    }
    ok = true;
    goto done;
bad_line:
    snprintf(err, err_len, "%s:%d: %s", path, l.line, msg);
done:
    if (!ok)
        plan_partial_free(p);
    return ok;
}
