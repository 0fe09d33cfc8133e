/* model_verdict: what the report concludes: the bottleneck and the next one
 * with their reasons, why a setup cannot run, and the changes that would
 * make it fit. */

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

/* ---- bottleneck ---------------------------------------------------------------------- */

/* The reasons are built on every evaluation, so they avoid printf (which
 * dominated the profile): numbers go through a small fixed formatter and
 * the sentence is appended piece by piece. */
struct text {
    char *p;
    size_t left;
};

/* Appends the n bytes of s, truncating; t->left counts the terminating
 * NUL. */
static void put_len(struct text *t, const char *s, size_t n)
{
    if (n > t->left - 1)
        n = t->left - 1;
    memcpy(t->p, s, n);
    t->p += n;
    t->left -= n;
    *t->p = '\0';
}

/* Appends s (inline, so that the length of a literal is known). */
static inline void put(struct text *t, const char *s)
{
    put_len(t, s, strlen(s));
}

/* A whole number in decimal. */
static void put_int(struct text *t, long long v)
{
    char buf[24], *q = buf + sizeof buf - 1;
    unsigned long long n = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    *q = '\0';
    do {
        *--q = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    if (v < 0)
        *--q = '-';
    put_len(t, q, (size_t)(buf + sizeof buf - 1 - q));
}

/* Three significant digits at most: 412, 41.2, 4.1, 0.41, 0.0041. */
static void put_num(struct text *t, double v)
{
    char buf[32], *q = buf + sizeof buf - 1, *end = q;
    *q = '\0';
    if (!isfinite(v) || v < 0)
        v = 0;
    int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    if (v > 0 && v < 0.1) /* two significant digits for small values */
        for (double x = v * 100; x < 10 && decimals < 9; x *= 10)
            decimals++;
    if (v >= 1e15)
        v = 1e15;
    double scale = 1;
    for (int i = 0; i < decimals; i++)
        scale *= 10;
    /* Rounded half away from zero, as llround does but without the call:
     * 0 <= x <= 1e15 < 2^53, so the truncation and x - n are exact. */
    double x = v * scale;
    unsigned long long n = (unsigned long long)x;
    if (x - (double)n >= 0.5)
        n++;
    for (int i = 0; i < decimals; i++) {
        *--q = (char)('0' + n % 10);
        n /= 10;
    }
    if (decimals) {
        /* Drop trailing zeros of the fraction: 4.10 -> 4.1, 4.00 -> 4. */
        while (end > q && end[-1] == '0')
            *--end = '\0';
        if (end > q)
            *--q = '.';
    }
    do {
        *--q = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    put_len(t, q, (size_t)(end - q));
}

/* The infrastructure: throttled, the consequence first, then why (the
 * heat the racks would make at full clocks against what the cooling
 * removes); otherwise the racks' draw against the cooling. */
static void infra_reason(struct text *t, const struct power_report *p)
{
    if (!p->throttled) {
        put(t, "racks draw ");
        put_num(t, p->per_rack_kw);
        put(t, " kW of ");
        put_num(t, p->rack_cooling_limit_kw);
        put(t, " kW cooling capacity");
        return;
    }
    if (p->below_min_clock) {
        put(t, "cannot run: even at the lowest clock (");
        put_num(t, 100.0 * p->min_clock_share);
        put(t, "% of rated) racks would make more heat than the cooling removes; at full clocks ");
    } else if (p->throttle_factor > 0) {
        put(t, "clocks cut to ");
        put_num(t, 100.0 * p->throttle_factor);
        put(t, "%: racks would make ");
    } else {
        put(t, "cannot run: racks would make ");
    }
    put_num(t, p->full_rack_kw);
    put(t, " kW, cooling removes ");
    put_num(t, p->rack_cooling_limit_kw);
    put(t, " kW");
}

static void stage_reason(const struct ctx *c, const struct model_report *o, int stage, char *buf,
                         size_t len)
{
    struct text t = {buf, len};
    const struct stage_times *st = &o->stages;
    buf[0] = '\0';
    switch (stage) {
    case STAGE_DATA:
        put(&t, "storage delivers ");
        put_num(&t, st->storage_bw_gbs);
        put(&t, " GB/s; the devices consume ");
        put_num(&t, st->need_bw_gbs);
        put(&t, " GB/s");
        break;
    case STAGE_CPUS:
        if (st->preprocess_s >= st->h2d_s) {
            put(&t, "loader workers prepare ");
            put_num(&t, ratio(c->s->training.global_batch, st->preprocess_s));
            put(&t, " samples/s; the devices consume ");
            put_num(&t, ratio(c->s->training.global_batch, o->device_step_s));
        } else {
            double per_dev = c->s->training.global_batch / (double)c->dp * c->s->data.sample_bytes;
            put(&t, "host links carry ");
            put_num(&t, ratio(per_dev, st->h2d_s) / 1e9);
            put(&t, " GB/s per device; the devices need ");
            put_num(&t, ratio(per_dev, o->device_step_s) / 1e9);
            put(&t, " GB/s");
        }
        break;
    case STAGE_ACCELERATORS:
        put(&t, "compute-bound: devices busy ");
        put_num(&t, 100.0 * o->utilization[STAGE_ACCELERATORS]);
        put(&t, "% of the step at ");
        put_num(&t, 100.0 * o->achieved_fraction);
        put(&t, "% of peak");
        break;
    case STAGE_INTERCONNECT: {
        const struct step_breakdown *k = &o->breakdown;
        const char *biggest = "gradient sync";
        double top = k->dp_comm_exposed;
        if (k->tp_comm > top)
            biggest = "tensor-parallel all-reduces", top = k->tp_comm;
        if (k->pp_bubble > top)
            biggest = "the pipeline bubble", top = k->pp_bubble;
        if (k->pp_p2p > top)
            biggest = "pipeline sends", top = k->pp_p2p;
        if (k->cp_comm > top)
            biggest = "the context-parallel ring exchange", top = k->cp_comm;
        if (k->ep_comm > top)
            biggest = "expert all-to-alls", top = k->ep_comm;
        put(&t, "communication takes ");
        put_num(&t, k->tp_comm + k->cp_comm + k->ep_comm + k->pp_bubble + k->pp_p2p +
                        k->dp_comm_exposed);
        put(&t, " s of the ");
        put_num(&t, o->step_time_s);
        put(&t, " s step, most of it ");
        put(&t, biggest);
        put(&t, " (");
        put_num(&t, top);
        put(&t, " s)");
        break;
    }
    default:
        infra_reason(&t, &o->power);
        break;
    }
}

/* The time each stage imposes on a step; the largest is the bottleneck. */
static void stage_pressure(const struct model_report *o, double out[STAGE_COUNT])
{
    const struct stage_times *st = &o->stages;
    const struct step_breakdown *k = &o->breakdown;
    out[STAGE_DATA] = st->read_s;
    out[STAGE_CPUS] = maxd(st->preprocess_s, st->h2d_s);
    out[STAGE_ACCELERATORS] = k->compute + k->recompute + k->optimizer;
    out[STAGE_INTERCONNECT] =
        k->tp_comm + k->cp_comm + k->ep_comm + k->pp_bubble + k->pp_p2p + k->dp_comm_exposed;
    /* Throttling costs the compute time it adds. */
    double f = o->power.throttle_factor;
    out[STAGE_INFRASTRUCTURE] = f > 0 && f < 1 ? (k->compute + k->recompute) * (1.0 - f) : 0.0;
}

void model_name_bottleneck(const struct ctx *c, struct model_report *o, bool words)
{
    double p[STAGE_COUNT];
    stage_pressure(o, p);
    int first = STAGE_ACCELERATORS;
    if (o->starvation > 0) {
        /* The devices wait: the data path sets the pace. */
        first = p[STAGE_DATA] >= p[STAGE_CPUS] ? STAGE_DATA : STAGE_CPUS;
    } else if (o->power.throttled) {
        first = STAGE_INFRASTRUCTURE;
    } else if (p[STAGE_INTERCONNECT] > p[STAGE_ACCELERATORS]) {
        first = STAGE_INTERCONNECT;
    }
    int second = -1;
    for (int i = 0; i < STAGE_COUNT; i++)
        if (i != first && (second < 0 || p[i] > p[second]))
            second = i;
    o->bottleneck = first;
    o->next_bottleneck = second;
    if (!words)
        return;
    stage_reason(c, o, first, o->bottleneck_reason, sizeof o->bottleneck_reason);
    stage_reason(c, o, second, o->next_reason, sizeof o->next_reason);
}

/* ---- suggestions when it does not fit ---------------------------------------------- */

/* The scale-out search stops here (65,536 nodes). */
#define SCALE_OUT_MAX_NODES ((int64_t)1 << 16)

static double memory_of(const struct setup *s, const struct resolved *r)
{
    struct ctx c;
    model_make_ctx(s, r, &c);
    struct memory_report m;
    model_memory_model(&c, &m);
    return m.per_device_gb;
}

/* Cheap validity check for a changed setup (the cross-checks of setup.c that
 * a memory suggestion could break). */
static bool shape_ok(const struct setup *s)
{
    int64_t dev = setup_devices(s), tp = s->training.tensor_parallel,
            pp = s->training.pipeline_parallel, cp = s->training.context_parallel;
    if (tp < 1 || pp < 1 || cp < 1 || dev % (tp * pp * cp) != 0)
        return false;
    if (s->model.kind == MODEL_TRANSFORMER && (s->model.heads < 1 || setup_kv_heads(s) < 1))
        return false;
    if (s->model.kind == MODEL_TRANSFORMER &&
        (s->model.heads % tp != 0 || pp > s->model.layers ||
         (setup_kv_heads(s) % tp != 0 && tp % setup_kv_heads(s) != 0)))
        return false;
    return true;
}

static void add_suggestion(struct model_report *o, double base_gb, const struct setup *changed,
                           const struct resolved *r, const char *text, const char *changes)
{
    /* A suggestion the stack cannot run is no suggestion (issue 20: the
     * stack rules of setup_check hold here too). */
    if (o->n_suggestions >= SUGGESTION_MAX || !shape_ok(changed) ||
        !setup_check_resolved(changed, r, NULL, 0))
        return;
    double after = memory_of(changed, r);
    double saves = base_gb - after;
    if (saves <= 0.001)
        return;
    struct suggestion *g = &o->suggestions[o->n_suggestions++];
    copy_text(g->text, sizeof g->text, text);
    copy_text(g->changes, sizeof g->changes, changes);
    g->saves_gb = saves;
    g->per_device_gb = after;
    g->fits = after <= r->accel->mem_gb;
}

/* The highest ZeRO stage the stack runs with this setup's pipeline. */
static int max_zero(const struct setup *s, const struct software *sw)
{
    int z = sw->max_zero_stage;
    if (s->training.pipeline_parallel > 1 && sw->zero_stage_with_pp < z)
        z = sw->zero_stage_with_pp;
    return z < 0 ? 0 : z > 3 ? 3 : z;
}

static void suggest_fits(const struct setup *s, const struct resolved *r, struct model_report *o)
{
    struct setup t;
    char text[160], changes[192];
    int64_t dp = setup_data_parallel(s);
    int zero = max_zero(s, r->software);
    if (dp > 1 && s->training.zero_stage < zero) {
        t = *s;
        t.training.zero_stage = zero;
        static const char *const what[] = {"", "optimizer state", "gradients and optimizer state",
                                           "weights, gradients and optimizer state"};
        snprintf(text, sizeof text, "ZeRO stage %d: shard %s", zero, what[zero]);
        snprintf(changes, sizeof changes, "training.zero_stage=%d", zero);
        add_suggestion(o, o->memory.per_device_gb, &t, r, text, changes);
    }
    if (s->model.kind == MODEL_TRANSFORMER && s->training.recompute != RECOMPUTE_FULL) {
        t = *s;
        t.training.recompute = RECOMPUTE_FULL;
        add_suggestion(o, o->memory.per_device_gb, &t, r, "full activation recomputation",
                       "training.recompute=full");
    }
    if (s->training.tensor_parallel > 1 && !s->training.sequence_parallel) {
        t = *s;
        t.training.sequence_parallel = true;
        add_suggestion(o, o->memory.per_device_gb, &t, r, "sequence parallelism",
                       "training.sequence_parallel=true");
    }
    int64_t tp2 = (int64_t)s->training.tensor_parallel * 2;
    if (s->model.kind == MODEL_TRANSFORMER && tp2 <= s->cluster.node.accelerators_per_node) {
        t = *s;
        t.training.tensor_parallel = (int)tp2;
        struct text tt = {text, sizeof text}, tc = {changes, sizeof changes};
        put(&tt, "tensor parallelism ");
        put_int(&tt, tp2);
        put(&tc, "training.tensor_parallel=");
        put_int(&tc, tp2);
        add_suggestion(o, o->memory.per_device_gb, &t, r, text, changes);
    }
    if (s->training.micro_batch > 1) {
        t = *s;
        t.training.micro_batch = 1;
        add_suggestion(o, o->memory.per_device_gb, &t, r, "micro-batch 1",
                       "training.micro_batch=1");
    }
    /* Scale out when no single change fits: the smallest device count
     * (whole nodes, ZeRO-3 and full recomputation) at which the model fits. */
    bool any_fits = false;
    for (int i = 0; i < o->n_suggestions; i++)
        any_fits = any_fits || o->suggestions[i].fits;
    if (!any_fits && o->n_suggestions < SUGGESTION_MAX) {
        t = *s;
        t.training.zero_stage = r->software->max_zero_stage; /* no pipeline below */
        if (t.model.kind == MODEL_TRANSFORMER)
            t.training.recompute = RECOMPUTE_FULL;
        t.training.tensor_parallel = 1;
        t.training.pipeline_parallel = 1;
        int64_t per = at_least_one(t.cluster.node.accelerators_per_node);
        int64_t mb = at_least_one(s->training.micro_batch);
        for (int64_t nodes = at_least_one(s->cluster.nodes); nodes <= SCALE_OUT_MAX_NODES;
             nodes *= 2) {
            int64_t dev = nodes * per, unit = dev * mb, batch = s->training.global_batch;
            if (unit > INT_MAX)
                break; /* the batch would not fit the setup's field */
            t.cluster.nodes = (int)nodes;
            t.training.global_batch = (int)(batch < unit ? unit : batch / unit * unit);
            if (dev > 1 && memory_of(&t, r) <= r->accel->mem_gb) {
                snprintf(text, sizeof text,
                         "scale out to %lld devices (%lld nodes) with ZeRO stage %d%s",
                         (long long)dev, (long long)nodes, t.training.zero_stage,
                         t.model.kind == MODEL_TRANSFORMER ? " and full recomputation" : "");
                snprintf(changes, sizeof changes,
                         "cluster.nodes=%lld training.zero_stage=%d training.tensor_parallel=1 "
                         "training.pipeline_parallel=1 training.global_batch=%d%s",
                         (long long)nodes, t.training.zero_stage, t.training.global_batch,
                         t.model.kind == MODEL_TRANSFORMER ? " training.recompute=full" : "");
                add_suggestion(o, o->memory.per_device_gb, &t, r, text, changes);
                break;
            }
        }
    }
}

/* The part of the step that reached the time ceiling, for the message. */
const char *model_stalled_part(const struct model_report *o)
{
    const struct stage_times *st = &o->stages;
    if (st->read_s >= MODEL_TIME_CEILING_S)
        return "storage reads (storage bandwidth)";
    if (st->preprocess_s >= MODEL_TIME_CEILING_S)
        return "loader workers (CPU cores, preprocessing time)";
    if (st->h2d_s >= MODEL_TIME_CEILING_S)
        return "host-to-device copies (host link, PCIe lanes)";
    if (o->breakdown.tp_comm + o->breakdown.cp_comm + o->breakdown.ep_comm + o->breakdown.pp_p2p +
            o->breakdown.dp_comm_exposed >=
        MODEL_TIME_CEILING_S)
        return "communication (link or network bandwidth)";
    return "the device step (compute, memory bandwidth, efficiencies)";
}

/* Adds a reason a setup cannot run; several may apply. */
void model_cannot_run(struct model_report *o, const char *fmt, ...)
{
    o->runnable = false;
    size_t used = strlen(o->why_not);
    if (used && used + 2 < sizeof o->why_not) {
        memcpy(o->why_not + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->why_not + used, sizeof o->why_not - used, fmt, ap);
    va_end(ap);
}

/* A setup that does not fit says by how much, and what would make it fit. */
void model_not_fit(const struct setup *s, const struct resolved *r, struct model_report *o)
{
    /* Built without printf: this runs on every evaluation that does
     * not fit, which sweeps do by the thousand. */
    char msg[160];
    struct text m = {msg, sizeof msg};
    put(&m, "needs ");
    put_num(&m, o->memory.per_device_gb);
    put(&m, " GB per device but ");
    put(&m, r->accel->head.id);
    put(&m, " has ");
    put_num(&m, o->memory.capacity_gb);
    put(&m, " GB");
    model_cannot_run(o, "%s", msg);
    suggest_fits(s, r, o);
}
