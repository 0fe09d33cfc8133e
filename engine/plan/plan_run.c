/* plan_run: the search itself (workers over units, pruning, merge of their results). */
#include "plan.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan_internal.h"

struct shared {
    const struct plan_space *sp;
    const struct catalog *cat;
    const struct plan_spec *spec;
    struct plan_progress *progress;
    void (*report)(void *ctx, const struct plan_progress *p);
    void *report_ctx;
    double last_report_s;
    double base_key;
    bool base_ok;
    struct plan_bound bound;
    double cut_key;     /* units whose best possible key is above this are cut */
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
    if (!plan_usable(o))
        return;
    struct plan_entry e = {0};
    e.index = index;
    plan_figures_of(o, e.fig);
    if (!plan_within_limits(spec, e.fig)) {
        c->constraint_cut++;
        return;
    }
    c->runnable++;
    if (w->sh->base_ok && plan_key(spec, &e) < w->sh->base_key)
        c->better_than_base++;
    plan_top_add(w->res, spec, &e);
    if (spec->front && !plan_front_add(w->res, &e))
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
        model_eval_numbers(&s, &r, &o);
        record(w, &o, index);
    }
}

/* Tensor, context and pipeline sizes of the unit with these digits
 * multiply into a divisor of the devices. */
static bool splits_devices(const struct plan_space *sp, const int digit[PLAN_DIMS_MAX],
                           long long devices)
{
    long long split = 1;
    for (int i = 0; i < sp->n_dims - sp->n_switch; i++)
        if (sp->dims[i].splits_devices)
            split *= (long long)sp->dims[i].num[digit[i]];
    return split <= devices && devices % split == 0;
}

enum { BOUND_TRIES_MAX = 16 };

/* Memory bound: the least memory over the switches, from their frugal
 * values (memory is monotone in each, docs/PLAN.md) and every value of
 * those without one. False when no switch setting of the unit `s` fits. */
static bool unit_may_fit(const struct plan_space *sp, const struct setup *s,
                         const struct resolved *r, const struct model_split *split)
{
    int first_switch = sp->n_dims - sp->n_switch;
    struct memory_report m;
    uint64_t tries = 1;
    for (int i = first_switch; i < sp->n_dims; i++)
        if (sp->dims[i].frugal < 0)
            tries *= (uint64_t)sp->dims[i].count;
    if (sp->n_switch == 0 || tries > BOUND_TRIES_MAX)
        return true;
    for (uint64_t k = 0; k < tries; k++) {
        struct setup f = *s;
        uint64_t rest = k;
        for (int i = first_switch; i < sp->n_dims; i++) {
            const struct plan_dim *d = &sp->dims[i];
            int v = d->frugal;
            if (v < 0) {
                v = (int)(rest % (uint64_t)d->count);
                rest /= (uint64_t)d->count;
            }
            plan_apply_value(d, v, &f);
        }
        model_memory_split(&f, r, split, &m);
        if (m.fits)
            return true;
    }
    return false;
}

/* Steps the switch digits of a unit like an odometer, last fastest, and
 * applies what changed to s; false after the last setting. */
static bool next_switches(const struct plan_space *sp, int digit[PLAN_DIMS_MAX], struct setup *s)
{
    for (int i = sp->n_dims - 1; i >= sp->n_dims - sp->n_switch; i--) {
        if (++digit[i] < sp->dims[i].count) {
            plan_apply_value(&sp->dims[i], digit[i], s);
            return true;
        }
        digit[i] = 0;
        plan_apply_value(&sp->dims[i], 0, s);
    }
    return false;
}

/* Whether `path` is one of the switch fields of the space. */
static bool is_switch(const struct plan_space *sp, const char *path)
{
    for (int i = sp->n_dims - sp->n_switch; path && i < sp->n_dims; i++)
        if (strcmp(sp->dims[i].field->path, path) == 0)
            return true;
    return false;
}

/* Resolves the catalog references of unit setup s (its first switch
 * setting) into r. A switch can make a setup invalid (a ZeRO stage the
 * software does not implement): when the setting is refused for a switch
 * field, the next settings are tried; refused for another field (the rules
 * on a unit's own fields read no switch, docs/PLAN.md), the whole unit is.
 * False when no setting is valid. */
static bool unit_resolve(const struct plan_space *sp, const struct setup *s,
                         const int digit[PLAN_DIMS_MAX], const struct catalog *cat,
                         struct resolved *r)
{
    char err[512];
    const char *blame = NULL;
    if (setup_resolve_blame(s, cat, r, err, sizeof err, &blame))
        return true;
    struct setup t = *s;
    int d[PLAN_DIMS_MAX];
    memcpy(d, digit, sizeof d);
    while ((blame == NULL || is_switch(sp, blame)) && next_switches(sp, d, &t))
        if (setup_resolve_blame(&t, cat, r, err, sizeof err, &blame))
            return true;
    return false;
}

static void unit_pruned(struct worker *w, uint64_t unit)
{
    const struct plan_space *sp = w->sh->sp;
    const struct plan_spec *spec = w->sh->spec;
    struct plan_counts *c = &w->res->counts;
    struct setup s;
    struct resolved r;
    struct model_report o;
    struct memory_report m;
    int digit[PLAN_DIMS_MAX];
    plan_space_setup(sp, unit * sp->per_unit, &s);
    plan_digits_of(sp, unit * sp->per_unit, digit);
    /* Devices are fixed by the unit. */
    if (spec->has_max[PLAN_DEVICES] && setup_devices(&s) > spec->max[PLAN_DEVICES]) {
        c->constraint_cut += sp->per_unit;
        return;
    }
    /* Tensor, context and pipeline sizes multiply into a divisor of the
     * devices (data parallelism takes the rest): a cheap necessary
     * condition before the resolve. */
    if (!splits_devices(sp, digit, setup_devices(&s))) {
        c->invalid += sp->per_unit;
        return;
    }
    /* The catalog references are no switches: one resolve serves the unit,
     * and each candidate is then checked without the lookups. */
    if (!unit_resolve(sp, &s, digit, w->sh->cat, &r)) {
        c->invalid += sp->per_unit;
        return;
    }
    /* No switch setting of the unit can beat the N-th best. */
    if (w->sh->cut_key < INFINITY &&
        plan_bound_key(&w->sh->bound, spec, &s, r.accel) > w->sh->cut_key) {
        c->bound_cut += sp->per_unit;
        return;
    }
    /* The pipeline split is the layout's, the same for every switch
     * setting (model.h): made once here, not twice a candidate (memory
     * check, evaluation). */
    struct model_split split;
    model_split_of(&s, &r, &split);
    if (!unit_may_fit(sp, &s, &r, &split)) {
        c->memory_cut += sp->per_unit;
        return;
    }
    for (uint64_t j = 0; j < sp->per_unit; j++) {
        if (j > 0)
            next_switches(sp, digit, &s);
        if (!setup_check_resolved(&s, &r, NULL, 0)) {
            c->invalid++;
            continue;
        }
        model_memory_split(&s, &r, &split, &m);
        if (!m.fits) {
            c->memory_cut++;
            continue;
        }
        model_eval_numbers_split(&s, &r, &split, &o);
        record(w, &o, unit * sp->per_unit + j);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    const struct plan_spec *spec = sh->spec;
    for (;;) {
        if (sh->progress && atomic_load_explicit(&sh->progress->cancel, memory_order_relaxed)) {
            w->res->cancelled = true;
            break;
        }
        uint64_t u = __atomic_fetch_add(&sh->next_unit, 1, __ATOMIC_RELAXED);
        /* Units of this shard: shard_index, shard_index + count, ... */
        uint64_t unit = u * (uint64_t)spec->shard_count + (uint64_t)spec->shard_index;
        if (unit >= sh->sp->units)
            break;
        w->res->counts.candidates += sh->sp->per_unit;
        uint64_t evaluated = w->res->counts.evaluated;
        if (spec->exhaustive)
            unit_exhaustive(w, unit);
        else
            unit_pruned(w, unit);
        if (sh->progress) {
            atomic_fetch_add_explicit(&sh->progress->evaluated,
                                      w->res->counts.evaluated - evaluated, memory_order_relaxed);
            atomic_fetch_add_explicit(&sh->progress->done, sh->sp->per_unit, memory_order_relaxed);
        }
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
    to->bound_cut += from->bound_cut;
}

static uint64_t shard_units(const struct plan_space *sp, const struct plan_spec *spec)
{
    uint64_t n = sp->units / (uint64_t)spec->shard_count;
    if (sp->units % (uint64_t)spec->shard_count > (uint64_t)spec->shard_index)
        n++;
    return n;
}

/* Adds one worker's answer to the whole. */
static bool gather(struct plan_result *out, const struct plan_spec *spec, const struct worker *w)
{
    const struct plan_result *r = w->res;
    bool ok = w->ok;
    add_counts(&out->counts, &r->counts);
    out->cancelled = out->cancelled || r->cancelled;
    for (int k = 0; ok && k < r->n_top; k++)
        plan_top_add(out, spec, &r->top[k]);
    for (size_t k = 0; ok && k < r->n_front; k++)
        ok = plan_front_add(out, &r->front[k]);
    return ok;
}

enum {
    BOUND_UNITS_MAX = 1 << 22, /* above this many valid units the bound is not used */
    BOUND_FIRST_UNITS = 256    /* at least this many units (or 1/16 of them) searched first */
};

/* Seconds between two calls of plan_run's report callback, by default. */
#define REPORT_S 0.1

static double report_s(const struct plan_spec *spec)
{
    return spec->report_s > 0 && spec->report_s < REPORT_S ? spec->report_s : REPORT_S;
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Preparing (in the calling thread): count `n` more units of work, report
 * at most ten times a second; false when the search was cancelled. */
static bool prep_step(struct shared *sh, uint64_t n)
{
    struct plan_progress *p = sh->progress; /* plan_run always has one */
    atomic_fetch_add_explicit(&p->prep_done, n, memory_order_relaxed);
    if (sh->report) {
        double now = monotonic_s();
        if (now - sh->last_report_s >= report_s(sh->spec)) {
            sh->last_report_s = now;
            sh->report(sh->report_ctx, p);
        }
    }
    return !atomic_load_explicit(&p->cancel, memory_order_relaxed);
}

/* Ranking: `n` more units ranked by their bound (counted as work done). */
static bool rank_step(struct shared *sh, uint64_t n)
{
    atomic_fetch_add_explicit(&sh->progress->ranked, n, memory_order_relaxed);
    return prep_step(sh, n);
}

struct unit_key {
    double key;
    uint64_t unit;
};

static int unit_key_order(const void *a, const void *b)
{
    const struct unit_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit ? 1 : 0;
}

/* The best possible key of every unit that can be valid, best first, in
 * *keys (malloc'd); false when out of memory, over BOUND_UNITS_MAX or
 * cancelled. */
static bool unit_keys(struct shared *sh, struct unit_key **keys, size_t *n)
{
    const struct plan_space *sp = sh->sp;
    const struct plan_spec *spec = sh->spec;
    size_t cap = 0;
    struct setup s;
    int digit[PLAN_DIMS_MAX];
    *keys = NULL;
    *n = 0;
    plan_space_first_unit(sp, digit, &s);
    for (uint64_t u = 0; u < sp->units; u++, plan_space_next_unit(sp, digit, &s)) {
        if (u % 4096 == 4095 && !rank_step(sh, 4096)) {
            free(*keys);
            *keys = NULL;
            return false;
        }
        long long devices = setup_devices(&s);
        const struct accelerator *a =
            catalog_find(sh->cat, CATALOG_ACCELERATOR, s.cluster.node.accelerator);
        if (!a || !splits_devices(sp, digit, devices) ||
            (spec->has_max[PLAN_DEVICES] && devices > spec->max[PLAN_DEVICES]))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            struct unit_key *more =
                cap <= BOUND_UNITS_MAX ? realloc(*keys, cap * sizeof *more) : NULL;
            if (!more) {
                free(*keys);
                *keys = NULL;
                return false;
            }
            *keys = more;
        }
        (*keys)[*n].key = plan_bound_key(&sh->bound, spec, &s, a);
        (*keys)[(*n)++].unit = u;
    }
    atomic_fetch_add_explicit(&sh->progress->ranked, sp->units % 4096, memory_order_relaxed);
    if (*n > 0) /* no keys: *keys may be NULL, which qsort may not take */
        qsort(*keys, *n, sizeof **keys, unit_key_order);
    return true;
}

/* The cut for the step-time bound, the same for any thread count and shard:
 * the units with the best bounds are searched first, in that order, until
 * the next one cannot improve the N-th best (or a sixteenth of them, at
 * least BOUND_FIRST_UNITS, were searched). A unit is then cut when its best possible key is worse
 * than that N-th best. (Counts of better candidates than the base then leave out the cut ones: its
 * rank is exact only when it is in the top N.) INFINITY (no cut) when the bound is off or nothing
 * was found. */
static double bound_cut_key(struct shared *sh)
{
    const struct plan_spec *spec = sh->spec;
    if (!sh->bound.on)
        return INFINITY;
    struct unit_key *keys = NULL;
    size_t n = 0;
    struct plan_result *first = calloc(1, sizeof *first);
    double cut = INFINITY;
    if (first && unit_keys(sh, &keys, &n)) {
        struct shared scratch = *sh;
        scratch.cut_key = INFINITY;
        struct worker w = {&scratch, first, true};
        size_t budget = n / 16 > BOUND_FIRST_UNITS ? n / 16 : BOUND_FIRST_UNITS;
        atomic_store_explicit(&sh->progress->prep_total, budget < n ? budget : n,
                              memory_order_relaxed);
        atomic_store_explicit(&sh->progress->prep_done, 0, memory_order_relaxed);
        atomic_store_explicit(&sh->progress->preparing, 2, memory_order_release);
        for (size_t k = 0; k < n && k < budget; k++) {
            if (first->n_top == plan_rescore_rows(spec) &&
                keys[k].key > plan_key(spec, &first->top[first->n_top - 1]))
                break;
            uint64_t evaluated = first->counts.evaluated;
            unit_pruned(&w, keys[k].unit);
            atomic_fetch_add_explicit(&sh->progress->evaluated, first->counts.evaluated - evaluated,
                                      memory_order_relaxed);
            if (!prep_step(sh, 1))
                break;
        }
        if (first->n_top == plan_rescore_rows(spec)) {
            cut = plan_key(spec, &first->top[first->n_top - 1]);
            /* Rounding: the bound and the figures come by different sums. */
            cut += 1e-9 * fabs(cut);
        }
    }
    free(keys);
    free(first);
    return cut;
}

/* The base setup's own figures and place, and the bound's cut. */
static bool base_place(struct shared *sh, struct plan_result *out, char *err, size_t err_len)
{
    const struct plan_space *sp = sh->sp;
    struct resolved r;
    struct model_report o;
    char msg[512];
    if (!setup_resolve(&sp->base, sh->cat, &r, msg, sizeof msg)) {
        snprintf(err, err_len, "plan: the setup itself is invalid: %s", msg);
        return false;
    }
    out->base.index = UINT64_MAX;
    out->base_runnable = plan_eval_setup(&sp->base, sh->cat, &out->base);
    sh->base_ok = out->base_runnable;
    sh->base_key = plan_key(sh->spec, &out->base);
    model_eval(&sp->base, &r, &o);
    plan_bound_init(&sh->bound, sp, sh->spec, &o);
    sh->cut_key = bound_cut_key(sh);
    return true;
}

void plan_progress_init(struct plan_progress *p)
{
    atomic_init(&p->done, 0);
    atomic_init(&p->total, 0);
    atomic_init(&p->cancel, 0);
    atomic_init(&p->preparing, 0);
    atomic_init(&p->prep_done, 0);
    atomic_init(&p->prep_total, 0);
    atomic_init(&p->evaluated, 0);
    atomic_init(&p->ranked, 0);
}

void plan_progress_read(const struct plan_progress *p, struct plan_progress_now *now)
{
    now->preparing = atomic_load_explicit(&p->preparing, memory_order_acquire);
    now->done = atomic_load_explicit(&p->done, memory_order_relaxed);
    now->total = atomic_load_explicit(&p->total, memory_order_relaxed);
    now->prep_done = atomic_load_explicit(&p->prep_done, memory_order_relaxed);
    now->prep_total = atomic_load_explicit(&p->prep_total, memory_order_relaxed);
    now->evaluated = atomic_load_explicit(&p->evaluated, memory_order_relaxed);
    now->ranked = atomic_load_explicit(&p->ranked, memory_order_relaxed);
}

void plan_progress_cancel(struct plan_progress *p)
{
    atomic_store_explicit(&p->cancel, 1, memory_order_relaxed);
}

/* While n workers run: report every report_s, and look for their end every
 * millisecond, so a short search is not held up to the next report. */
static void watch_workers(struct shared *sh, int n,
                          void (*report)(void *ctx, const struct plan_progress *p), void *ctx)
{
    double next_report_s = monotonic_s() + report_s(sh->spec);
    while (__atomic_load_n(&sh->finished, __ATOMIC_ACQUIRE) < n) {
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
        if (monotonic_s() >= next_report_s) {
            next_report_s = monotonic_s() + report_s(sh->spec);
            report(ctx, sh->progress);
        }
    }
}

bool plan_run(const struct plan_space *sp, const struct catalog *cat, const struct plan_spec *spec,
              struct plan_result *out, struct plan_progress *progress,
              void (*report)(void *ctx, const struct plan_progress *p), void *ctx, char *err,
              size_t err_len)
{
    memset(out, 0, sizeof *out);
    struct plan_progress own;
    plan_progress_init(&own);
    if (!progress)
        progress = &own;
    atomic_store_explicit(&progress->total, shard_units(sp, spec) * sp->per_unit,
                          memory_order_relaxed);
    atomic_store_explicit(&progress->done, 0, memory_order_relaxed);

    struct shared sh = {.sp = sp,
                        .cat = cat,
                        .spec = spec,
                        .progress = progress,
                        .report = report,
                        .report_ctx = ctx,
                        .last_report_s = monotonic_s()};
    atomic_store_explicit(&progress->prep_done, 0, memory_order_relaxed);
    atomic_store_explicit(&progress->prep_total, sp->units, memory_order_relaxed);
    atomic_store_explicit(&progress->preparing, 1, memory_order_release);
    bool placed = base_place(&sh, out, err, err_len);
    atomic_store_explicit(&progress->preparing, 0, memory_order_release);
    if (!placed)
        return false;
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
    if (ok && report)
        watch_workers(&sh, n, report, ctx);
    for (int i = 0; ok && i < n; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    for (int i = 0; ok && i < n; i++)
        ok = gather(out, spec, &w[i]);
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
    /* A whole search re-scores its best rows (unless asked for the closed
     * form's); a shard's are re-scored by the merge, once every shard's
     * are combined. */
    if (spec->shard_count == 1 && !out->cancelled && !spec->closed_form)
        plan_rescore(sp, cat, spec, out);
    else if (spec->shard_count == 1 && out->n_top > spec->top)
        out->n_top = spec->top; /* the K rows kept for re-scoring, cut to the top */
    return true;
}
