/* cmd_sim: `mlviz sim`, the step loop run headless.
 *
 * Prints a summary (achieved vs analytic throughput, starvation, failures,
 * restarts, checkpoints, throttling, energy) as text, CSV or JSON, or with
 * --series the sampled time series as CSV (or inside the JSON). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "counter_fields.h"
#include "csv.h"
#include "model.h"
#include "report.h"
#include "sim.h"
#include "stages.h"

/* The usage line, from the command table (tui/cli/commands.c). */
static const char *sim_usage(void)
{
    static char usage[4096];
    if (!usage[0])
        commands_usage("sim", usage, sizeof usage);
    return usage;
}

/* Sample interval when --sample is not given: 1 s up to two hours, then a
 * minute, so that a default series stays a few thousand rows. */
#define SHORT_RUN_S    7200.0
#define SHORT_SAMPLE_S 1.0
#define LONG_SAMPLE_S  60.0
/* Largest ring the CLI asks for (the sim keeps the newest samples). */
#define MAX_CLI_SAMPLES ((size_t)1 << 22)

struct sim_args {
    struct cli_common c;
    const char *setup;
    const char *events;
    struct cli_setup_args changes; /* --set */
    double duration_s;
    double sample_s;
    double tick_s; /* 0: automatic */
    uint64_t seed;
    bool series, jitter, failures, thermal;
    /* The tick run: --tick's, or automatic (choose_tick) */
    bool tick_auto;
    struct sim_tick_choice tick;
};

/* The options' ranges are in their rows of the command table
 * (tui/cli/commands.c); the tick's is the step loop's (engine/sim/sim.h).
 * SIM_HELP: parse's answer after --help. */
#define MAX_TICK_S 60.0
enum { SIM_HELP = -1 };
/* How long a run may take. The automatic tick (sim_auto_tick: the
 * coarsest that leaves the results within 0.01%,
 * tests/unit/engine/test_sim_tick.c) is made coarser still for a run that
 * would take more than AUTO_TICKS; an explicit --tick may ask for up to
 * MAX_TICKS. The steps are simulated one by one whatever the tick, so a
 * run of more than MAX_STEPS steps (at the model's step time) is refused.
 * The costs per tick and per step (measured with `make bench` on the
 * development machine, 2 cores) give the estimate printed for long runs. */
#define AUTO_TICKS  1e8
#define MAX_TICKS   1e9
#define MAX_STEPS   1e8
#define TICK_COST_S 3e-8
#define STEP_COST_S 1e-7

/* What the options must say together: a setup, and no more ticks than a
 * run may take. */
static int check_args(const struct sim_args *a)
{
    if (!a->setup) {
        cli_error("missing setup file or preset (usage: %s)", sim_usage());
        return EXIT_USAGE;
    }
    if (a->tick_s > 0 && a->duration_s / a->tick_s > MAX_TICKS) {
        cli_error("--tick %g s makes --duration %g s %.3g ticks, more than the %.0e a run may "
                  "take; choose a coarser --tick, or leave it out for the automatic one",
                  a->tick_s, a->duration_s, a->duration_s / a->tick_s, MAX_TICKS);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* One option of sim's row of the command table, its value's type and range
 * checked there: 0, or -1 with the message printed. */
static int sim_option(void *ctx, const char *name, const char *v)
{
    struct sim_args *a = ctx;
    int k = cli_common_apply(&a->c, name, v);
    if (k != 0)
        return k < 0 ? -1 : 0;
    if (strcmp(name, "--set") == 0)
        return cli_set_add(&a->changes, v) < 0 ? -1 : 0;
    if (strcmp(name, "--duration") == 0)
        fields_parse_duration(v, &a->duration_s);
    else if (strcmp(name, "--sample") == 0)
        fields_parse_duration(v, &a->sample_s);
    else if (strcmp(name, "--tick") == 0 && strcmp(v, "auto") == 0)
        a->tick_s = 0;
    else if (strcmp(name, "--tick") == 0)
        fields_parse_duration(v, &a->tick_s);
    else if (strcmp(name, "--seed") == 0)
        a->seed = (uint64_t)strtoull(v, NULL, 10);
    else if (strcmp(name, "--events") == 0)
        a->events = v;
    else if (strcmp(name, "--series") == 0)
        a->series = true;
    else if (strcmp(name, "--no-jitter") == 0)
        a->jitter = false;
    else if (strcmp(name, "--no-failures") == 0)
        a->failures = false;
    else if (strcmp(name, "--no-thermal") == 0)
        a->thermal = false;
    else
        return cli_unhandled(name);
    return 0;
}

static int parse(int argc, char **argv, struct sim_args *a)
{
    memset(a, 0, sizeof *a);
    a->duration_s = 6 * 3600.0;
    a->seed = 1;
    a->jitter = a->failures = a->thermal = true;
    const char *pos[1];
    int n = cli_parse("sim", argc, argv, sim_option, a, pos, 1);
    if (n < 0)
        return n == CLI_PARSE_HELP ? SIM_HELP : EXIT_USAGE;
    a->setup = n ? pos[0] : NULL;
    return check_args(a);
}

/* The tick a long run needs to stay within AUTO_TICKS: the smallest of 1,
 * 2 or 5 times a power of ten at or above duration / AUTO_TICKS (at most
 * 50 s, the largest such below MAX_TICK_S), so that a round duration is a
 * whole number of ticks; `tick_s` when that is coarse enough already. */
static double cost_tick_s(double tick_s, double duration_s)
{
    double want = duration_s / AUTO_TICKS;
    if (!(want > tick_s))
        return tick_s;
    double decade = pow(10.0, floor(log10(want))), m = want / decade;
    double tick = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * decade;
    return tick < 50.0 ? tick : 50.0;
}

/* The numbers of the summary, computed once for all formats: the counters
 * the text needs (from counter_fields) and the comparison with the model. */
struct summary {
    double tokens_per_s, raw_tokens_per_s, analytic_tokens_per_s, ratio, goodput;
    double energy_kwh, avg_facility_kw;
};

/* A stored or derived counter by its key in counter_fields. */
static double counter(const struct sim_counters *c, const char *key)
{
    const struct counter_field *f = counter_field_find(key);
    return f ? counter_field_number(f, c) : 0.0;
}

static void summarize(const struct sim_counters *c, const struct model_report *o, struct summary *m)
{
    double t = c->time_s > 0 ? c->time_s : 1.0;
    m->tokens_per_s = counter(c, "tokens_per_s");
    double per_step = c->useful_steps > 0 ? c->tokens / (double)c->useful_steps : 0.0;
    m->raw_tokens_per_s = per_step * (double)c->steps / t;
    m->analytic_tokens_per_s = o->tokens_per_s;
    m->ratio = o->tokens_per_s > 0 ? m->tokens_per_s / o->tokens_per_s : 0.0;
    m->goodput = m->raw_tokens_per_s > 0 ? m->tokens_per_s / m->raw_tokens_per_s : 0.0;
    m->energy_kwh = counter(c, "energy_kwh");
    m->avg_facility_kw = counter(c, "avg_facility_kw");
}

/* The comparison with the analytic model follows the throughput it
 * compares (tokens_per_s) in JSON and CSV. */
static bool compared_here(const struct counter_field *f)
{
    return strcmp(f->key, "tokens_per_s") == 0;
}

/* The tick's line of the text summary: the tick, and how it was chosen. */
static void write_tick_text(const struct sim_args *a)
{
    char t[48], fine[48], probe[48];
    format_duration(t, sizeof t, a->tick_s);
    if (!a->tick_auto) {
        printf("  tick         %s (--tick)\n", t);
        return;
    }
    const struct sim_tick_choice *k = &a->tick;
    format_duration(fine, sizeof fine, k->tick_s);
    if (a->tick_s > k->tick_s)
        printf("  tick         %s, automatic: coarser than the %s that keeps the results within "
               "0.01%%, for a run of at most %.0f million ticks\n",
               t, fine, AUTO_TICKS / 1e6);
    else if (k->probe_s > 0) {
        format_duration(fine, sizeof fine, k->probe_tick_s);
        format_duration(probe, sizeof probe, k->probe_s);
        printf("  tick         %s, automatic: the coarsest within 0.01%% of a %s tick over the "
               "first %s (bound by %s)\n",
               t, fine, probe, k->bound_by ? k->bound_by : "the setup");
    } else {
        printf("  tick         %s, automatic: none coarser keeps the results within 0.01%% "
               "(bound by %s)\n",
               t, k->bound_by ? k->bound_by : "the setup");
    }
}

static void write_text(const struct setup *s, const struct sim_args *a,
                       const struct sim_counters *c, const struct summary *m, size_t n_events)
{
    char dur[48], a1[48], a2[48], st[48], lost[48], ck[48], thr[48], pct[48];
    char name[4 * FIELD_STR_LEN + 1];
    format_printable(name, sizeof name, s->name);
    format_duration(dur, sizeof dur, c->time_s);
    format_si(a1, sizeof a1, m->tokens_per_s, "");
    format_si(a2, sizeof a2, m->analytic_tokens_per_s, "");
    format_duration(st, sizeof st, c->starved_s);
    format_duration(lost, sizeof lost, c->lost_s);
    format_duration(ck, sizeof ck, c->checkpoint_s);
    format_duration(thr, sizeof thr, c->throttled_s);
    double t = c->time_s > 0 ? c->time_s : 1.0;
    printf("%s: simulated %s (seed %llu; jitter %s, failures %s, thermal %s; %zu event%s)%s\n",
           name, dur, (unsigned long long)a->seed, a->jitter ? "on" : "off",
           a->failures ? "on" : "off", a->thermal ? "on" : "off", n_events,
           n_events == 1 ? "" : "s", c->stopped ? " - stopped by an event" : "");
    format_percent(pct, sizeof pct, m->ratio);
    /* A generic model counts samples (one "token" each). */
    printf("  throughput   %s %s achieved vs %s analytic (%s)\n", a1,
           s->model.kind == MODEL_GENERIC ? "samples/s" : "tokens/s", a2, pct);
    format_percent(pct, sizeof pct, m->goodput);
    printf("  steps        %llu completed, %llu kept (goodput %s)\n", (unsigned long long)c->steps,
           (unsigned long long)c->useful_steps, pct);
    format_percent(pct, sizeof pct, c->starved_s / t);
    printf("  starvation   %s waiting for data (%s of the time)\n", st, pct);
    printf("  failures     %llu (%llu device, %llu node); %llu restart%s; %s lost to rollback "
           "and restart\n",
           (unsigned long long)c->failures, (unsigned long long)c->device_failures,
           (unsigned long long)c->node_failures, (unsigned long long)c->restarts,
           c->restarts == 1 ? "" : "s", lost);
    printf("  checkpoints  %llu written; %s stalled writing them\n",
           (unsigned long long)c->checkpoints, ck);
    format_percent(pct, sizeof pct, c->throttled_s / t);
    format_fixed(a1, sizeof a1, c->max_rack_temp_c, 1);
    printf("  throttling   %s throttled (%s); hottest rack %s C\n", thr, pct, a1);
    format_fixed(a1, sizeof a1, m->energy_kwh, 1);
    format_fixed(a2, sizeof a2, m->avg_facility_kw, 2);
    printf("  energy       %s kWh at the facility (%s kW average)\n", a1, a2);
    write_tick_text(a);
}

static void json_counter(struct json_writer *w, const struct counter_field *f,
                         const struct sim_counters *c)
{
    switch (f->type) {
    case COUNTER_COUNT:
        json_key_uint(w, f->key, (unsigned long long)counter_field_uint(f, c));
        break;
    case COUNTER_BOOL:
        json_key_bool(w, f->key, counter_field_number(f, c) != 0);
        break;
    case COUNTER_STAGES:
        json_open(w, f->key, false);
        for (int i = 0; i < STAGE_COUNT; i++)
            json_key_num(w, stage_table[i].name, counter_field_stage(f, c, i));
        json_close(w, false);
        break;
    default:
        json_key_num(w, f->key, counter_field_number(f, c));
        break;
    }
}

static void json_summary(struct json_writer *w, const struct setup *s, const struct sim_args *a,
                         const struct sim_counters *c, const struct summary *m, size_t n_events)
{
    json_key_str(w, "setup", s->name);
    json_key_num(w, "duration_s", c->time_s);
    json_key_uint(w, "seed", (unsigned long long)a->seed);
    json_key_num(w, "tick_s", a->tick_s);
    json_key_bool(w, "tick_auto", a->tick_auto);
    json_key_bool(w, "jitter", a->jitter);
    json_key_bool(w, "failures_on", a->failures);
    json_key_bool(w, "thermal", a->thermal);
    json_key_uint(w, "events", (unsigned long long)n_events);
    for (size_t i = 0; i < counter_field_count; i++) {
        json_counter(w, &counter_fields[i], c);
        if (compared_here(&counter_fields[i])) {
            json_key_num(w, "analytic_tokens_per_s", m->analytic_tokens_per_s);
            json_key_num(w, "ratio", m->ratio);
            json_key_num(w, "goodput", m->goodput);
        }
    }
}

/* A 64-bit counter as a CSV field, exact past 2^53. */
static void csv_row_count(struct csv_row *row, uint64_t n)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)n);
    csv_row_field(row, buf);
}

/* The CSV header: a STAGES counter is one column per stage (items_in.data). */
static void csv_counter_header(struct csv_row *row, const struct counter_field *f)
{
    if (f->type != COUNTER_STAGES) {
        csv_row_field(row, f->key);
        return;
    }
    for (int i = 0; i < STAGE_COUNT; i++) {
        char key[96];
        snprintf(key, sizeof key, "%s.%s", f->key, stage_table[i].name);
        csv_row_field(row, key);
    }
}

static void csv_counter(struct csv_row *row, const struct counter_field *f,
                        const struct sim_counters *c)
{
    switch (f->type) {
    case COUNTER_COUNT:
        csv_row_count(row, counter_field_uint(f, c));
        break;
    case COUNTER_BOOL:
        csv_row_field(row, counter_field_number(f, c) != 0 ? "true" : "false");
        break;
    case COUNTER_STAGES:
        for (int i = 0; i < STAGE_COUNT; i++)
            csv_row_number(row, counter_field_stage(f, c, i), f->csv_digits);
        break;
    default:
        csv_row_number(row, counter_field_number(f, c), f->csv_digits);
        break;
    }
}

static void write_csv_summary(const struct setup *s, const struct sim_args *a,
                              const struct sim_counters *c, const struct summary *m)
{
    static const char *const compared[] = {"analytic_tokens_per_s", "ratio", "goodput"};
    struct csv_row row;
    csv_row_begin(&row, stdout);
    csv_row_field(&row, "setup");
    csv_row_field(&row, "duration_s");
    csv_row_field(&row, "seed");
    csv_row_field(&row, "tick_s");
    csv_row_field(&row, "tick_auto");
    for (size_t i = 0; i < counter_field_count; i++) {
        csv_counter_header(&row, &counter_fields[i]);
        if (compared_here(&counter_fields[i]))
            for (size_t k = 0; k < sizeof compared / sizeof compared[0]; k++)
                csv_row_field(&row, compared[k]);
    }
    csv_row_end(&row);
    csv_row_field(&row, s->name);
    csv_row_number(&row, c->time_s, 9);
    csv_row_count(&row, a->seed);
    csv_row_number(&row, a->tick_s, 9);
    csv_row_field(&row, a->tick_auto ? "true" : "false");
    for (size_t i = 0; i < counter_field_count; i++) {
        csv_counter(&row, &counter_fields[i], c);
        if (compared_here(&counter_fields[i])) {
            csv_row_number(&row, m->analytic_tokens_per_s, 9);
            csv_row_number(&row, m->ratio, 6);
            csv_row_number(&row, m->goodput, 6);
        }
    }
    csv_row_end(&row);
}

static void write_series_csv(const struct sim *sim)
{
    struct csv_row row;
    csv_row_begin(&row, stdout);
    for (int i = 0; i < SERIES_COUNT; i++)
        csv_row_field(&row, sim_series_names[i]);
    csv_row_end(&row);
    size_t n = sim_series_len(sim);
    for (size_t r = 0; r < n; r++) {
        for (int i = 0; i < SERIES_COUNT; i++)
            csv_row_number(&row, sim_series_at(sim, (enum sim_series_id)i, r), 9);
        csv_row_end(&row);
    }
}

static void write_series_json(struct json_writer *w, const struct sim *sim)
{
    json_open(w, "series", false);
    size_t n = sim_series_len(sim);
    for (int i = 0; i < SERIES_COUNT; i++) {
        json_open(w, sim_series_names[i], true);
        for (size_t r = 0; r < n; r++)
            json_key_num(w, NULL, sim_series_at(sim, (enum sim_series_id)i, r));
        json_close(w, true);
    }
    json_close(w, false);
}

/* Apply the set events in time order to a copy of the setup and check that
 * each result can run, so that a bad change is reported now, with its place
 * in the file, rather than hours into the run. */
static bool check_set_events(const char *file, const struct setup *s, const struct catalog *cat,
                             const struct sim_event *ev, size_t n)
{
    struct setup t = *s;
    char err[1024];
    /* The loader sorts events by time, ties in file order. */
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != SIM_EVENT_SET)
            continue;
        if (!setup_set(&t, ev[i].path, ev[i].text, err, sizeof err) ||
            !sim_check_setup(&t, cat, err, sizeof err)) {
            char msg[2048], safe[4 * 2048 + 1];
            snprintf(msg, sizeof msg, "%s:%d:%d: after setting %s to %s: %s", file, ev[i].line,
                     ev[i].col, ev[i].path, ev[i].text, err);
            format_printable(safe, sizeof safe, msg);
            fprintf(stderr, "%s\n", safe);
            return false;
        }
    }
    return true;
}

/* Loads the setup and the events file; EXIT_OK or the exit status. */
static int load_inputs(const struct sim_args *a, const struct catalog *cat, struct setup *s,
                       struct sim_event **events, size_t *n_events)
{
    struct resolved r;
    if (!cli_load_setup_args(a->setup, &a->changes, cat, s, &r))
        return EXIT_USAGE;
    char err[1024];
    if (a->events && !sim_events_load_file(a->events, s, events, n_events, err, sizeof err)) {
        char safe[4 * sizeof err + 1];
        format_printable(safe, sizeof safe, err);
        fprintf(stderr, "%s\n", safe);
        return EXIT_USAGE;
    }
    if (!check_set_events(a->events, s, cat, *events, *n_events))
        return EXIT_USAGE;
    return EXIT_OK;
}

/* The step loop's options from the command line. */
static void options_for(const struct sim_args *a, struct sim_options *o)
{
    sim_default_options(o);
    o->seed = a->seed;
    o->jitter = a->jitter;
    o->failures = a->failures;
    o->thermal = a->thermal;
    if (a->tick_s > 0)
        o->tick_s = a->tick_s;
    o->sample_interval_s = a->sample_s > 0                ? a->sample_s
                           : a->duration_s <= SHORT_RUN_S ? SHORT_SAMPLE_S
                                                          : LONG_SAMPLE_S;
    if (a->tick_s > 0 && o->sample_interval_s < o->tick_s)
        o->sample_interval_s = o->tick_s;
    double want = ceil(a->duration_s / o->sample_interval_s) + 1;
    o->series_capacity = want < 2                         ? 2
                         : want > (double)MAX_CLI_SAMPLES ? MAX_CLI_SAMPLES
                                                          : (size_t)want;
}

/* The tick when --tick is auto or left out: the coarsest that leaves the
 * results within 0.01% (sim_auto_tick), made coarser for a run past
 * AUTO_TICKS ticks. A setup that cannot run keeps the finest; new_sim
 * says why. */
static void choose_tick(struct sim_args *a, const struct setup *s, const struct catalog *cat,
                        const struct sim_event *events, size_t n_events)
{
    a->tick_auto = !(a->tick_s > 0);
    if (!a->tick_auto)
        return;
    struct sim_options o;
    options_for(a, &o);
    char err[1024];
    if (!sim_auto_tick(s, cat, &o, a->duration_s, events, n_events, &a->tick, err, sizeof err))
        a->tick.tick_s = SIM_AUTO_TICK_MIN_S;
    a->tick_s = cost_tick_s(a->tick.tick_s, a->duration_s);
}

/* Schedules the events (warning about those after the end of the run);
 * EXIT_OK or the exit status. */
static int schedule_events(struct sim *sim, const struct sim_args *a,
                           const struct sim_event *events, size_t n_events)
{
    char err[1024];
    size_t late = 0;
    for (size_t i = 0; i < n_events; i++)
        late += events[i].time_s > a->duration_s;
    if (late) {
        char t[32];
        format_duration(t, sizeof t, a->duration_s);
        cli_error("warning: %s: %zu event%s come%s after the end of the run (%s)", a->events, late,
                  late == 1 ? "" : "s", late == 1 ? "s" : "", t);
    }
    for (size_t i = 0; i < n_events; i++) {
        if (!sim_schedule(sim, &events[i], err, sizeof err)) {
            cli_error("%s: event %zu: %s", a->events, i + 1, err);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

/* Runs the sim for the duration and prints it; EXIT_OK or EXIT_RUNTIME. */
static int run_and_write(struct sim *sim, const struct sim_args *a, size_t n_events)
{
    char err[1024];
    int rc = EXIT_OK;
    if (!sim_run(sim, a->duration_s, err, sizeof err)) {
        cli_error("sim: %s", err);
        rc = EXIT_RUNTIME;
    }
    struct sim_counters c;
    sim_counters(sim, &c);
    struct summary m;
    summarize(&c, sim_report(sim), &m);
    const struct setup *now = sim_setup(sim);
    if (a->c.format == FORMAT_JSON) {
        struct json_writer w;
        json_begin(&w, stdout, true);
        json_summary(&w, now, a, &c, &m, n_events);
        if (a->series)
            write_series_json(&w, sim);
        json_finish(&w);
    } else if (a->series) {
        write_series_csv(sim);
    } else if (a->c.format == FORMAT_CSV) {
        write_csv_summary(now, a, &c, &m);
    } else {
        write_text(now, a, &c, &m, n_events);
    }
    return rc;
}

/* A new sim that can run the setup; NULL with the message printed. */
/* False (said) when the run would take more than MAX_STEPS steps; a run
 * that takes more than a second is announced with its estimate. */
static bool bounded(const struct sim_args *a, const struct sim_options *o, double step_s)
{
    double steps = step_s > 0 ? a->duration_s / step_s : 0, ticks = a->duration_s / o->tick_s;
    char d[32], t[32], st[32];
    format_duration(d, sizeof d, a->duration_s);
    format_duration(t, sizeof t, o->tick_s);
    format_duration(st, sizeof st, step_s);
    if (steps > MAX_STEPS) {
        char n[32], most[32];
        format_si(n, sizeof n, steps, "");
        format_si(most, sizeof most, MAX_STEPS, "");
        cli_error("--duration %s is %s steps of %s, more than the %s a run may take; "
                  "shorten it",
                  d, n, st, most);
        return false;
    }
    double cost_s = steps * STEP_COST_S + ticks * TICK_COST_S;
    if (cost_s > 1) {
        char n[32];
        format_si(n, sizeof n, steps, "");
        cli_error("note: %s is %s steps at a %s tick (%s); expect about %.0f s", d, n, t,
                  a->tick_auto ? "automatic, --tick sets it" : "--tick", cost_s);
    }
    return true;
}

static struct sim *new_sim(const struct setup *s, const struct catalog *cat,
                           const struct sim_args *a, int *rc)
{
    char err[1024];
    struct sim_options o;
    options_for(a, &o);
    struct sim *sim = sim_new(s, cat, &o, err, sizeof err);
    if (!sim) {
        cli_error("%s", err);
        return NULL;
    }
    /* A capacity too small to model leaves nothing to simulate: the step
     * loop would only show the batches already in flight. */
    const struct model_report *rep = sim_report(sim);
    if (rep->step_time_s >= MODEL_TIME_CEILING_S) {
        cli_error("%s cannot run: %s", s->name, rep->why_not);
        sim_free(sim);
        return NULL;
    }
    if (!bounded(a, &o, rep->step_time_s)) {
        sim_free(sim);
        *rc = EXIT_USAGE;
        return NULL;
    }
    return sim;
}

int cmd_sim(int argc, char **argv)
{
    struct sim_args a;
    int rc = parse(argc, argv, &a);
    if (rc != EXIT_OK)
        return rc == SIM_HELP ? EXIT_OK : rc;
    struct catalog *cat = cli_load_catalog(a.c.catalog_dir);
    if (!cat)
        return EXIT_USAGE;
    struct setup s;
    struct sim_event *events = NULL;
    size_t n_events = 0;
    rc = load_inputs(&a, cat, &s, &events, &n_events);
    if (rc == EXIT_OK)
        choose_tick(&a, &s, cat, events, n_events);
    struct sim *sim = NULL;
    if (rc == EXIT_OK && !(sim = new_sim(&s, cat, &a, &rc)) && rc == EXIT_OK)
        rc = EXIT_RUNTIME;
    if (rc == EXIT_OK)
        rc = schedule_events(sim, &a, events, n_events);
    free(events);
    if (rc == EXIT_OK)
        rc = run_and_write(sim, &a, n_events);
    sim_free(sim);
    catalog_free(cat);
    return rc;
}
