/* cmd_schedule: `mlviz eval --schedule`, the step-schedule simulator's
 * answer for a setup: the step and what is exposed in it, each stage's busy
 * time, sends, idle time and peak in-flight micro-batches, and the per-stage
 * timeline (text: one row a stage; JSON: every pass). The simulator is
 * engine/sched; this file only writes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "plan.h"
#include "report.h"
#include "schedule.h"
#include "units.h"

/* Timeline columns of the text rows, and the most passes the JSON lists. */
enum { TIMELINE_COLS = 96, JSON_OPS_MAX = 200000 };

static const char *const kind_titles[SCHED_KIND_COUNT] = {
    "the setup's own", "GPipe", "1F1B", "interleaved 1F1B (Megatron-Core)", "zero bubble ZB-H1"};

/* The exposed parts of the step of the busiest stage, in order. */
struct part {
    const char *key, *name;
    double s;
};

static size_t parts_of(const struct sched_result *q, struct part out[11])
{
    struct part p[] = {{"compute_s", "compute", q->compute_s},
                       {"recompute_s", "recompute", q->recompute_s},
                       {"tp_comm_s", "TP comm", q->tp_s},
                       {"cp_comm_s", "CP comm", q->cp_s},
                       {"ep_comm_s", "EP comm", q->ep_s},
                       {"pp_p2p_s", "sends", q->p2p_s},
                       {"pp_bubble_s", "bubble", q->bubble_s},
                       {"dp_comm_s", "DP comm", q->dp_s},
                       {"optimizer_s", "optimizer", q->optimizer_s},
                       {"straggler_s", "straggler", q->straggler_s},
                       {"overhead_s", "overhead", q->overhead_s}};
    memcpy(out, p, sizeof p);
    return sizeof p / sizeof p[0];
}

/* One stage's row: what runs at the middle of each column. */
static void timeline_row(const struct sched_result *q, int stage, double col_s, char *row)
{
    memset(row, '.', TIMELINE_COLS);
    row[TIMELINE_COLS] = '\0';
    for (size_t i = 0; i < q->n_ops; i++) {
        const struct sched_op *op = &q->ops[i];
        if (op->stage != stage)
            continue;
        char c = op->kind == SCHED_OP_FORWARD    ? (op->chunk % 2 ? 'f' : 'F')
                 : op->kind == SCHED_OP_BACKWARD ? (op->chunk % 2 ? 'b' : 'B')
                                                 : 'W';
        int a = (int)ceil(op->start_s / col_s - 0.5), b = (int)ceil(op->end_s / col_s - 0.5);
        for (int k = a < 0 ? 0 : a; k < b && k < TIMELINE_COLS; k++)
            row[k] = c;
    }
}

static void write_text(const struct model_report *o, const struct sched_result *q)
{
    char a[32], b[32], c[32], d[32], e[32];
    format_duration(a, sizeof a, q->step_s);
    format_duration(b, sizeof b, o->device_step_s);
    printf("schedule: %s, %d stage%s x %d chunk%s, %d micro-batch%s\n", kind_titles[q->kind], q->pp,
           q->pp == 1 ? "" : "s", q->vp, q->vp == 1 ? "" : "s", q->m, q->m == 1 ? "" : "es");
    printf("step %s simulated (closed form %s), busiest stage s%d:\n", a, b, q->critical + 1);
    double data = o->step_time_s - o->device_step_s;
    if (data > 0) {
        format_duration(a, sizeof a, q->step_s + data);
        format_duration(b, sizeof b, data);
        printf("  with the data path's stall (%s): %s a step\n", b, a);
    }
    struct part parts[11];
    size_t n = parts_of(q, parts);
    for (size_t i = 0; i < n; i++) {
        if (!(parts[i].s > 0))
            continue;
        format_duration(a, sizeof a, parts[i].s);
        format_percent(b, sizeof b, q->step_s > 0 ? parts[i].s / q->step_s : 0.0);
        printf("  %-10s %9s %7s\n", parts[i].name, a, b);
    }
    printf("stage     busy     sends      idle       end   DP tail  in flight\n");
    for (int s = 0; s < q->pp; s++) {
        const struct sched_stage *st = &q->stages[s];
        format_duration(a, sizeof a, st->busy_s);
        format_duration(b, sizeof b, st->send_s);
        format_duration(c, sizeof c, st->idle_s);
        format_duration(d, sizeof d, st->end_s);
        format_duration(e, sizeof e, st->dp_tail_s);
        printf("s%-4d %8s %9s %9s %9s %9s %10.2f\n", s + 1, a, b, c, d, e, st->peak_micro_batches);
    }
    if (q->n_ops == 0 || !(q->pipeline_s > 0))
        return;
    double col_s = q->pipeline_s / TIMELINE_COLS;
    format_duration(a, sizeof a, col_s);
    printf("timeline, one column = %s (F/f forward, B/b backward of even/odd chunks, W weight "
           "gradients, . idle):\n",
           a);
    char row[TIMELINE_COLS + 1];
    for (int s = 0; s < q->pp; s++) {
        timeline_row(q, s, col_s, row);
        printf("s%-4d %s\n", s + 1, row);
    }
}

/* The step with data stalls (the closed form's wait for data, which the
 * simulator does not see) and the figures `mlviz plan` prints at it
 * (plan_entry_at_step), so that a printed row is reproduced exactly. */
static void json_figures(struct json_writer *w, const struct model_report *o,
                         const struct sched_result *q)
{
    struct plan_entry closed = {0}, at;
    plan_figures_of(o, closed.fig);
    double data = o->step_time_s - o->device_step_s;
    plan_entry_at_step(&closed, q->step_s + data, &at);
    static const int shown[] = {PLAN_STEP_TIME_S, PLAN_TOKENS_PER_S, PLAN_MFU,
                                PLAN_DAYS,        PLAN_USD_TOTAL,    PLAN_ENERGY_MWH};
    json_open(w, "at_simulated_step", false);
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
        json_key_num(w, plan_figure_names[shown[i]], at.fig[shown[i]]);
    json_close(w, false);
}

static void write_json(const struct model_report *o, const struct sched_result *q)
{
    struct json_writer w;
    json_begin(&w, stdout, true);
    json_key_str(&w, "schedule", sched_kind_name(q->kind));
    json_key_num(&w, "pipeline_parallel", q->pp);
    json_key_num(&w, "virtual_stages", q->vp);
    json_key_num(&w, "micro_batches", q->m);
    json_key_num(&w, "step_s", q->step_s);
    json_key_num(&w, "pipeline_s", q->pipeline_s);
    json_key_num(&w, "closed_form_step_s", o->device_step_s);
    json_key_num(&w, "closed_form_bubble_s", o->breakdown.pp_bubble);
    json_key_num(&w, "critical_stage", q->critical);
    json_figures(&w, o, q);
    struct part parts[11];
    size_t n = parts_of(q, parts);
    json_open(&w, "exposed", false);
    for (size_t i = 0; i < n; i++)
        json_key_num(&w, parts[i].key, parts[i].s);
    json_close(&w, false);
    json_open(&w, "stages", true);
    for (int s = 0; s < q->pp; s++) {
        const struct sched_stage *st = &q->stages[s];
        json_open(&w, NULL, false);
        json_key_num(&w, "stage", s);
        json_key_num(&w, "busy_s", st->busy_s);
        json_key_num(&w, "send_s", st->send_s);
        json_key_num(&w, "idle_s", st->idle_s);
        json_key_num(&w, "end_s", st->end_s);
        json_key_num(&w, "dp_tail_s", st->dp_tail_s);
        json_key_num(&w, "peak_in_flight_micro_batches", st->peak_micro_batches);
        json_close(&w, false);
    }
    json_close(&w, true);
    json_key_bool(&w, "ops_complete", q->n_ops <= JSON_OPS_MAX);
    json_open(&w, "ops", true);
    static const char *const kinds[] = {"F", "B", "W"};
    for (size_t i = 0; i < q->n_ops && i < JSON_OPS_MAX; i++) {
        const struct sched_op *op = &q->ops[i];
        json_open(&w, NULL, false);
        json_key_num(&w, "stage", op->stage);
        json_key_str(&w, "pass", kinds[op->kind]);
        json_key_num(&w, "chunk", op->chunk);
        json_key_num(&w, "micro_batch", op->micro_batch);
        json_key_num(&w, "start_s", op->start_s);
        json_key_num(&w, "end_s", op->end_s);
        json_close(&w, false);
    }
    json_close(&w, true);
    json_finish(&w);
}

int eval_write_schedule(const struct setup *s, const struct resolved *r,
                        const struct model_report *o, int kind, int format)
{
    struct sched_result q;
    int rc = sched_simulate(s, r, o, kind, true, &q);
    if (rc != SCHED_OK) {
        cli_error("%s: no schedule: %s", s->name,
                  rc == SCHED_TOO_BIG    ? "more than 2^20 stage x chunk x micro-batch passes"
                  : rc == SCHED_DEADLOCK ? "the interleaved order waits on itself (Megatron-Core "
                                           "needs the micro-batches in whole groups of p)"
                                         : "out of memory or costs out of range");
        return EXIT_RUNTIME;
    }
    if (format == FORMAT_JSON)
        write_json(o, &q);
    else
        write_text(o, &q);
    sched_free(&q);
    return EXIT_OK;
}
