/* plan_output: the result of `mlviz plan` as text, CSV or JSON (the
 * ranked rows, the Pareto front, the simulated steps and why rank 1 wins). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "plan.h"
#include "report.h"
#include "units.h"

/* ---- output ---------------------------------------------------------------------- */

enum { CHANGES_LEN = 2048 };

static const int shown_figures[] = {
    PLAN_TOKENS_PER_S, PLAN_DAYS,        PLAN_USD_TOTAL, PLAN_ENERGY_MWH, PLAN_MFU,
    PLAN_USD_PER_HOUR, PLAN_FACILITY_KW, PLAN_MEMORY_GB, PLAN_DEVICES,    PLAN_STEP_TIME_S};
enum { SHOWN = sizeof shown_figures / sizeof shown_figures[0] };

static void text_row(FILE *out, const char *rank, const struct plan_entry *e, const char *changes)
{
    char tok[32], usd[32];
    format_si(tok, sizeof tok, e->fig[PLAN_TOKENS_PER_S], "");
    format_si(usd, sizeof usd, e->fig[PLAN_USD_TOTAL], "");
    fprintf(out, "%5s %9s %8.1f %9s %9.0f %5.1f%% %6.0f %6.1f %6.0f  %s\n", rank, tok,
            e->fig[PLAN_DAYS], usd, e->fig[PLAN_ENERGY_MWH], 100 * e->fig[PLAN_MFU],
            e->fig[PLAN_DEVICES], e->fig[PLAN_MEMORY_GB], e->fig[PLAN_FACILITY_KW],
            changes[0] ? changes : "(the setup as it is)");
}

static void text_header(FILE *out)
{
    fprintf(out, "%5s %9s %8s %9s %9s %6s %6s %6s %6s  %s\n", "rank", "tokens/s", "days", "USD",
            "MWh", "MFU", "devs", "mem GB", "kW", "changes");
}

static void csv_line(FILE *out, const char *section, int rank, const struct plan_entry *e,
                     const char *changes)
{
    struct csv_row row;
    csv_row_begin(&row, out);
    csv_row_field(&row, section);
    if (rank > 0)
        csv_row_number(&row, rank, 9);
    else
        csv_row_field(&row, "");
    for (int i = 0; i < SHOWN; i++)
        csv_row_number(&row, e->fig[shown_figures[i]], 9);
    csv_row_field(&row, changes);
    csv_row_end(&row);
}

static void json_entry(struct json_writer *w, const struct plan_space *sp, int rank,
                       const struct plan_entry *e, bool with_changes)
{
    json_open(w, NULL, false);
    if (rank > 0)
        json_key_num(w, "rank", rank);
    for (int i = 0; i < SHOWN; i++)
        json_key_num(w, plan_figure_names[shown_figures[i]], e->fig[shown_figures[i]]);
    if (rank > 0 && e->sim_step_s > 0)
        json_key_num(w, "simulated_step_s", e->sim_step_s);
    if (rank > 0 && e->closed_step_s > 0)
        json_key_num(w, "closed_form_step_s", e->closed_step_s);
    if (with_changes) {
        struct setup s;
        plan_space_setup(sp, e->index, &s);
        int dims[PLAN_DIMS_MAX];
        int n = plan_space_changed(sp, &s, dims);
        json_open(w, "changes", false);
        for (int i = 0; i < n; i++) {
            const struct field *f = sp->dims[dims[i]].field;
            char now[FIELD_STR_LEN + 8];
            fields_format(f, &s, now, sizeof now);
            json_key_str(w, f->path, now);
        }
        json_close(w, false);
    }
    json_close(w, false);
}

static int front_order(const void *a, const void *b)
{
    const struct plan_entry *x = a, *y = b;
    if (x->fig[PLAN_DAYS] != y->fig[PLAN_DAYS])
        return x->fig[PLAN_DAYS] < y->fig[PLAN_DAYS] ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
}

/* With the step-time bound some candidates were never evaluated: the base's
 * rank counts only evaluated ones, exact when it is within the top N (every
 * cut candidate is worse than the N-th best). */
static bool base_rank_exact(const struct plan_result *r)
{
    return r->counts.bound_cut == 0 || r->counts.better_than_base < (uint64_t)r->n_top;
}

/* The printed rows against the closed form: the ranks whose closed-form
 * step (what the search ranked by) differs from the simulated one (what
 * they are printed and ranked with) by more than 2%. */
static void text_simulated(FILE *out, const struct plan_result *r)
{
    int n = 0, off = 0;
    char list[256] = "";
    for (int i = 0; i < r->n_top; i++) {
        const struct plan_entry *e = &r->top[i];
        if (!(e->sim_step_s > 0) || !(e->closed_step_s > 0))
            continue;
        n++;
        if (fabs(e->closed_step_s - e->sim_step_s) > 0.02 * e->sim_step_s &&
            off < (int)sizeof list - 16)
            off += snprintf(list + off, sizeof list - (size_t)off, " %d (%+.1f%%)", i + 1,
                            100 * (e->closed_step_s / e->sim_step_s - 1));
    }
    fprintf(out, "closed form against the simulated step: %d of these rows simulated; %s%s\n", n,
            list[0] ? "the closed form differs by more than 2% at rank" : "all within 2%", list);
}

/* Why rank 1 beats the base, part by part (plan_why). */
static void text_why(FILE *out, const struct plan_why *why)
{
    fprintf(out, "\nrank 1 against your setup, seconds per step of the busiest stage (%s):\n",
            why->simulated ? "simulated schedule" : "closed form");
    fprintf(out, "  %-12s %10s %10s %10s\n", "part", "yours", "rank 1", "change");
    for (int i = 0; i < PLAN_WHY_PARTS; i++) {
        double a = why->base[i], b = why->best[i];
        if (!(a > 0) && !(b > 0))
            continue;
        char x[32], y[32], d[32];
        if (i == PLAN_WHY_MEMORY) {
            format_fixed(x, sizeof x, a, 1);
            format_fixed(y, sizeof y, b, 1);
            format_fixed(d + 1, sizeof d - 1, fabs(b - a), 1);
        } else {
            format_duration(x, sizeof x, a);
            format_duration(y, sizeof y, b);
            format_duration(d + 1, sizeof d - 1, fabs(b - a));
        }
        d[0] = b < a ? '-' : '+';
        if (fabs(b - a) <= 1e-9 * fabs(a))
            snprintf(d, sizeof d, "same");
        fprintf(out, "  %-12s %10s %10s %10s\n", plan_why_names[i], x, y, d);
    }
}

static void json_why(struct json_writer *w, const struct plan_why *why)
{
    json_open(w, "why_rank_1", false);
    json_key_bool(w, "simulated", why->simulated);
    for (int side = 0; side < 2; side++) {
        json_open(w, side ? "rank_1" : "yours", false);
        for (int i = 0; i < PLAN_WHY_PARTS; i++)
            json_key_num(w, plan_why_names[i], side ? why->best[i] : why->base[i]);
        json_close(w, false);
    }
    json_close(w, false);
}

static void write_json(FILE *out, const struct plan_space *sp, const struct plan_spec *spec,
                       const struct plan_result *r, bool pareto, const struct plan_why *why)
{
    const struct plan_counts *c = &r->counts;
    uint64_t base_rank = r->base_runnable ? c->better_than_base + 1 : 0;
    struct json_writer w;
    json_begin(&w, out, true);
    json_key_str(&w, "setup", sp->base.name);
    json_key_str(&w, "objective", plan_figure_names[spec->objective]);
    json_key_uint(&w, "candidates", c->candidates);
    json_key_uint(&w, "evaluated", c->evaluated);
    json_key_uint(&w, "runnable", c->runnable);
    json_open(&w, "pruned", false);
    json_key_uint(&w, "invalid", c->invalid);
    json_key_uint(&w, "memory", c->memory_cut);
    json_key_uint(&w, "constraint", c->constraint_cut);
    json_key_uint(&w, "bound", c->bound_cut);
    json_close(&w, false);
    json_open(&w, "base", false);
    json_key_bool(&w, "runnable", r->base_runnable);
    if (r->base_runnable)
        json_key_uint(&w, "rank", base_rank);
    for (int i = 0; i < SHOWN; i++) {
        /* A base that cannot run makes and costs nothing: null, as in eval. */
        int f = shown_figures[i];
        bool run_only = f <= PLAN_USD_PER_HOUR;
        json_key_num(&w, plan_figure_names[f],
                     r->base_runnable || !run_only ? r->base.fig[f] : NAN);
    }
    if (r->base_runnable)
        json_key_bool(&w, "rank_exact", base_rank_exact(r));
    json_close(&w, false);
    json_open(&w, "top", true);
    for (int i = 0; i < r->n_top; i++)
        json_entry(&w, sp, i + 1, &r->top[i], true);
    json_close(&w, true);
    if (why && why->ok)
        json_why(&w, why);
    if (pareto) {
        json_open(&w, "front", true);
        for (size_t i = 0; i < r->n_front; i++)
            json_entry(&w, sp, 0, &r->front[i], true);
        json_close(&w, true);
    }
    json_finish(&w);
}

static void write_csv(FILE *out, const struct plan_space *sp, const struct plan_result *r,
                      bool pareto)
{
    char changes[CHANGES_LEN];
    uint64_t base_rank = r->base_runnable ? r->counts.better_than_base + 1 : 0;
    struct csv_row head;
    csv_row_begin(&head, out);
    csv_row_field(&head, "section");
    csv_row_field(&head, "rank");
    for (int i = 0; i < SHOWN; i++)
        csv_row_field(&head, plan_figure_names[shown_figures[i]]);
    csv_row_field(&head, "changes");
    csv_row_end(&head);
    csv_line(out, "base", (int)base_rank, &r->base, "");
    for (int i = 0; i < r->n_top; i++) {
        plan_space_changes(sp, r->top[i].index, changes, sizeof changes);
        csv_line(out, "top", i + 1, &r->top[i], changes);
    }
    for (size_t i = 0; pareto && i < r->n_front; i++) {
        plan_space_changes(sp, r->front[i].index, changes, sizeof changes);
        csv_line(out, "front", 0, &r->front[i], changes);
    }
}

void plan_write_result(FILE *out, int format, const struct plan_space *sp,
                       const struct plan_spec *spec, struct plan_result *r, bool pareto,
                       const struct plan_why *why)
{
    char changes[CHANGES_LEN];
    if (r->n_front > 1)
        qsort(r->front, r->n_front, sizeof *r->front, front_order);
    const struct plan_counts *c = &r->counts;
    uint64_t base_rank = r->base_runnable ? c->better_than_base + 1 : 0;
    if (format == FORMAT_JSON) {
        write_json(out, sp, spec, r, pareto, why);
        return;
    }
    if (format == FORMAT_CSV) {
        write_csv(out, sp, r, pareto);
        return;
    }
    char a[32], b[32];
    format_si(a, sizeof a, (double)c->candidates, "");
    format_si(b, sizeof b, (double)c->evaluated, "");
    fprintf(out, "plan for %s: %s candidates, %s evaluated, %llu runnable\n", sp->base.name, a, b,
            (unsigned long long)c->runnable);
    fprintf(out,
            "objective: %s (%s is better); the closed form's best %d re-ranked by the "
            "step-schedule simulator\n",
            plan_figure_names[spec->objective],
            plan_figure_maximized(spec->objective) ? "higher" : "lower", plan_rescore_rows(spec));
    if (c->bound_cut > 0) {
        format_si(a, sizeof a, (double)c->bound_cut, "");
        fprintf(out, "step-time bound: %s candidates cut unevaluated (too slow for the top %d)\n",
                a, spec->top);
    }
    for (int i = 0; i < spec->n_maxes; i++)
        fprintf(out, "limit: %s\n", spec->maxes[i]);
    fputc('\n', out);
    text_header(out);
    for (int i = 0; i < r->n_top; i++) {
        char rank[16];
        snprintf(rank, sizeof rank, "%d", i + 1);
        plan_space_changes(sp, r->top[i].index, changes, sizeof changes);
        text_row(out, rank, &r->top[i], changes);
    }
    if (r->n_top == 0)
        fprintf(out, "  (no runnable configuration in this space)\n");
    else
        text_simulated(out, r);
    if (r->base_runnable) {
        char rank[24];
        snprintf(rank, sizeof rank, "%llu", (unsigned long long)base_rank);
        fprintf(out, "\nyour setup ranks %s%s of %s%llu:\n", base_rank_exact(r) ? "" : "at least ",
                rank, c->bound_cut > 0 ? "at least " : "", (unsigned long long)c->runnable);
        text_row(out, rank, &r->base, "");
        if (why && why->ok)
            text_why(out, why);
    } else {
        fprintf(out, "\nyour setup cannot run as it is\n");
    }
    if (pareto) {
        fprintf(out, "\nPareto front over days, USD and MWh (%zu configurations):\n", r->n_front);
        text_header(out);
        for (size_t i = 0; i < r->n_front; i++) {
            plan_space_changes(sp, r->front[i].index, changes, sizeof changes);
            text_row(out, "-", &r->front[i], changes);
        }
    }
}
