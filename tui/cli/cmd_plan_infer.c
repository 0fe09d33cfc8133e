/* cmd_plan_infer: `mlviz plan --infer`, the serving search
 * (engine/plan/plan_infer.h), as text, CSV or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "csv.h"
#include "plan_infer.h"
#include "report.h"

struct plan_infer_cli {
    struct cli_common common;
    struct cli_setup_args changes;
    struct plan_infer_spec spec;
};

/* Options of `plan` that have no meaning for the serving search. */
static const char *const training_only[] = {"--threads", "--shard",  "--write-best", "--write-top",
                                            "--force",   "--pareto", "--merge",      "--exhaustive",
                                            "--man",     NULL};

static int infer_plan_option(void *ctx, const char *name, const char *v)
{
    struct plan_infer_cli *pc = ctx;
    char err[1024];
    int k = cli_common_apply(&pc->common, name, v);
    if (k != 0)
        return k < 0 ? -1 : 0;
    for (int i = 0; training_only[i]; i++) {
        if (strcmp(name, training_only[i]) == 0) {
            cli_error("%s is for the training search; --infer searches serving layouts", name);
            return -1;
        }
    }
    bool ok = true;
    if (strcmp(name, "--set") == 0)
        return cli_set_add(&pc->changes, v) < 0 ? -1 : 0;
    if (strcmp(name, "--objective") == 0)
        ok = plan_infer_objective(&pc->spec, v, err, sizeof err);
    else if (strcmp(name, "--max") == 0)
        ok = plan_infer_max(&pc->spec, v, err, sizeof err);
    else if (strcmp(name, "--vary") == 0)
        ok = plan_infer_vary(&pc->spec, v, err, sizeof err);
    else if (strcmp(name, "--top") == 0) {
        int n = atoi(v);
        ok = n <= PLAN_INFER_TOP_MAX;
        snprintf(err, sizeof err, "--top must be a whole number from 1 to %d with --infer",
                 PLAN_INFER_TOP_MAX);
        if (ok)
            pc->spec.top = n;
    } else if (strcmp(name, "--infer") != 0 && strcmp(name, "--quiet") != 0) {
        return cli_unhandled(name); /* --infer chose this search; it has no progress bar */
    }
    if (!ok)
        cli_error("%s", err);
    return ok ? 0 : -1;
}

/* "path=value ..." for the fields a row changes from the base. */
static void row_changes(const struct plan_infer_spec *spec, const struct setup *base,
                        const struct setup *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < spec->n_vary; d++) {
        const struct field *f = spec->vary[d].field;
        char a[FIELD_STR_LEN * 2], b[FIELD_STR_LEN * 2];
        fields_format(f, base, a, sizeof a);
        fields_format(f, s, b, sizeof b);
        if (strcmp(a, b) == 0)
            continue;
        int n = snprintf(buf + used, used < len ? len - used : 0, "%s%s=%s", used ? " " : "",
                         f->path, b);
        if (n > 0)
            used += (size_t)n;
    }
}

static void write_text(const struct plan_infer_cli *pc, const struct setup *base,
                       const struct plan_infer_result *r)
{
    char name[256];
    format_printable(name, sizeof name, base->name);
    printf("plan --infer: %s; objective %s", name, plan_infer_figure_names[pc->spec.objective]);
    for (int f = 0; f < PLAN_INFER_FIGURE_COUNT; f++)
        if (pc->spec.has_max[f])
            printf("; %s <= %g", plan_infer_figure_names[f], pc->spec.max[f]);
    printf("\nsearched %llu candidates: %llu pass the checks, %llu can serve, %llu within the "
           "limits\n",
           r->candidates, r->valid, r->serving, r->feasible);
    if (r->n == 0) {
        printf("no deployment serves within the limits\n");
        return;
    }
    printf("\nrank  accelerator      TP  PP  weights  KV    batch      TTFT      TPOT  "
           "output tok/s    $/Mtok\n");
    for (int i = 0; i < r->n; i++) {
        const struct plan_infer_row *w = &r->rows[i];
        const struct infer_report *o = &w->report;
        char acc[FIELD_STR_LEN], a[32], b[32], c[32], d[32], ch[1024];
        format_printable(acc, sizeof acc, w->setup.cluster.node.accelerator);
        format_duration(a, sizeof a, o->ttft_s);
        format_duration(b, sizeof b, o->tpot_s);
        format_si(c, sizeof c, o->output_tokens_per_s, "");
        format_usd(d, sizeof d, o->usd_per_mtok);
        printf("%4d  %-15s %3d %3d  %-7s  %-5s %5d %9s %9s %13s %9s\n", i + 1, acc, o->tp, o->pp,
               o->weight_precision, o->kv_precision, o->batch, a, b, c, d);
        row_changes(&pc->spec, base, &w->setup, ch, sizeof ch);
        format_printable(name, sizeof name, ch);
        printf("      %s\n", name[0] ? name : "(the setup as given)");
    }
}

static void write_json(const struct plan_infer_cli *pc, const struct setup *base,
                       const struct plan_infer_result *r)
{
    struct json_writer w;
    json_begin(&w, stdout, true);
    json_key_str(&w, "objective", plan_infer_figure_names[pc->spec.objective]);
    json_key_num(&w, "candidates", (double)r->candidates);
    json_key_num(&w, "valid", (double)r->valid);
    json_key_num(&w, "serving", (double)r->serving);
    json_key_num(&w, "feasible", (double)r->feasible);
    json_open(&w, "top", true);
    for (int i = 0; i < r->n; i++) {
        const struct plan_infer_row *row = &r->rows[i];
        char ch[1024];
        json_open(&w, NULL, false);
        json_key_num(&w, "rank", i + 1);
        json_key_str(&w, "accelerator", row->setup.cluster.node.accelerator);
        for (int f = 0; f < PLAN_INFER_FIGURE_COUNT; f++)
            json_key_num(&w, plan_infer_figure_names[f], plan_infer_figure(&row->report, f));
        json_key_num(&w, "tensor_parallel", row->report.tp);
        json_key_num(&w, "pipeline_parallel", row->report.pp);
        json_key_str(&w, "weight_precision", row->report.weight_precision);
        json_key_str(&w, "kv_precision", row->report.kv_precision);
        json_key_num(&w, "batch", row->report.batch);
        row_changes(&pc->spec, base, &row->setup, ch, sizeof ch);
        json_key_str(&w, "changes", ch);
        json_close(&w, false);
    }
    json_close(&w, true);
    json_finish(&w);
}

static void write_csv(const struct plan_infer_cli *pc, const struct setup *base,
                      const struct plan_infer_result *r)
{
    struct csv_row row;
    csv_row_begin(&row, stdout);
    csv_row_field(&row, "rank");
    csv_row_field(&row, "accelerator");
    for (int f = 0; f < PLAN_INFER_FIGURE_COUNT; f++)
        csv_row_field(&row, plan_infer_figure_names[f]);
    csv_row_field(&row, "batch");
    csv_row_field(&row, "changes");
    csv_row_end(&row);
    for (int i = 0; i < r->n; i++) {
        const struct plan_infer_row *w = &r->rows[i];
        char ch[1024];
        csv_row_begin(&row, stdout);
        csv_row_number(&row, i + 1, 10);
        csv_row_field(&row, w->setup.cluster.node.accelerator);
        for (int f = 0; f < PLAN_INFER_FIGURE_COUNT; f++)
            csv_row_number(&row, plan_infer_figure(&w->report, f), 10);
        csv_row_number(&row, w->report.batch, 10);
        row_changes(&pc->spec, base, &w->setup, ch, sizeof ch);
        csv_row_field(&row, ch);
        csv_row_end(&row);
    }
}

int cmd_plan_infer(int argc, char **argv)
{
    struct plan_infer_cli *pc = calloc(1, sizeof *pc);
    struct plan_infer_result *r = calloc(1, sizeof *r);
    struct catalog *cat = NULL;
    int rc = EXIT_RUNTIME;
    const char *pos[1];
    if (!pc || !r) {
        cli_error("out of memory");
        goto out;
    }
    plan_infer_spec_init(&pc->spec);
    int n = cli_parse("plan", argc, argv, infer_plan_option, pc, pos, 1);
    rc = n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    if (n < 0)
        goto out;
    if (n == 0) {
        cli_error("missing setup file (usage: mlviz plan SETUP --infer [...])");
        goto out;
    }
    char err[1024];
    if (!plan_infer_complete(&pc->spec, err, sizeof err)) {
        cli_error("%s", err);
        goto out;
    }
    cat = cli_load_catalog(pc->common.catalog_dir);
    struct setup base;
    struct resolved res;
    if (!cat || !cli_load_setup_args(pos[0], &pc->changes, cat, &base, &res))
        goto out;
    rc = EXIT_RUNTIME;
    if (!plan_infer_run(&base, cat, &pc->spec, r, err, sizeof err)) {
        cli_error("%s", err);
        goto out;
    }
    if (pc->common.format == FORMAT_JSON)
        write_json(pc, &base, r);
    else if (pc->common.format == FORMAT_CSV)
        write_csv(pc, &base, r);
    else
        write_text(pc, &base, r);
    rc = EXIT_OK;
out:
    free(pc);
    free(r);
    if (cat)
        catalog_free(cat);
    return rc;
}
