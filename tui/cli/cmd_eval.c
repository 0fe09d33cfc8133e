/* cmd_eval: `mlviz check` (the resolved cluster and its sanity checks) and
 * `mlviz eval` (the analytic model's report). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "csv.h"
#include "model.h"
#include "report.h"
#include "schedule.h"

/* The options of check and eval: the common ones, --set, and for eval
 * --model and --strict (the table in commands.c says which command has
 * which). */
struct setup_opts {
    struct cli_common common;
    struct cli_setup_args args;
    bool strict;
    bool schedule;     /* --schedule */
    int schedule_kind; /* --schedule-kind */
};

static int setup_option(void *ctx, const char *name, const char *v)
{
    struct setup_opts *so = ctx;
    int k = cli_common_apply(&so->common, name, v);
    if (k != 0)
        return k < 0 ? -1 : 0;
    if (strcmp(name, "--set") == 0)
        return cli_set_add(&so->args, v) < 0 ? -1 : 0;
    if (strcmp(name, "--model") == 0)
        so->args.model = v;
    else if (strcmp(name, "--strict") == 0)
        so->strict = true;
    else if (strcmp(name, "--schedule") == 0)
        so->schedule = true;
    else if (strcmp(name, "--schedule-kind") == 0)
        so->schedule_kind = sched_kind_parse(v); /* one of the table's words */
    else
        return cli_unhandled(name);
    return 0;
}

/* Parses, loads and evaluates; EXIT_OK when the report is there to write,
 * else the exit status (DONE after --help). */
enum { DONE = -1 };

static int load_and_eval(const char *command, int argc, char **argv, struct setup_opts *so,
                         struct catalog **cat, struct setup *s, struct resolved *r,
                         struct model_report *o)
{
    const char *pos[1];
    int n = cli_parse(command, argc, argv, setup_option, so, pos, 1);
    if (n < 0)
        return n == CLI_PARSE_HELP ? DONE : EXIT_USAGE;
    if (n == 0) {
        char usage[512];
        commands_usage(command, usage, sizeof usage);
        cli_error("missing setup file (usage: %s)", usage);
        return EXIT_USAGE;
    }
    *cat = cli_load_catalog(so->common.catalog_dir);
    if (!*cat)
        return EXIT_USAGE;
    if (!cli_load_setup_args(pos[0], &so->args, *cat, s, r)) {
        catalog_free(*cat);
        *cat = NULL;
        return EXIT_USAGE;
    }
    model_eval(s, r, o);
    return EXIT_OK;
}

/* The resolved cluster of `mlviz check` as JSON or as one CSV row. */
static void write_check_data(const struct setup *s, const struct resolved *r,
                             const struct model_report *o, int format)
{
    struct json_writer w;
    const double dev_mem_gb = r->accel->mem_gb;
    struct {
        const char *key;
        double value;
    } nums[] = {
        {"devices", o->devices},
        {"nodes", o->nodes},
        {"racks", o->racks},
        {"devices_per_node", s->cluster.node.accelerators_per_node},
        {"device_memory_gb", dev_mem_gb},
        {"device_memory_total_gb", dev_mem_gb * o->devices},
        {"host_ram_per_node_gb", s->cluster.node.host_ram_gb},
        {"host_ram_total_gb", s->cluster.node.host_ram_gb * s->cluster.nodes},
        {"intra_link_bw_gbs", r->intra_link->bw_gbs},
        {"host_link_bw_gbs", r->host_link->bw_gbs},
        {"nic_bw_gbs", r->nic ? r->nic->bw_gbs : 0.0},
        {"nics_per_node", s->cluster.node.nics_per_node},
        {"storage_read_gbs", o->stages.storage_bw_gbs},
        {"params", o->params},
        {"pcie_lanes_needed", o->pcie_lanes_needed},
        {"pcie_lanes_have", o->pcie_lanes_have},
        {"per_rack_kw", o->power.per_rack_kw},
        {"rack_cooling_limit_kw", o->power.rack_cooling_limit_kw},
        {"per_device_gb", o->memory.per_device_gb},
    };
    struct {
        const char *key;
        bool value;
    } checks[] = {
        {"host_ram_ok", o->host_ram_ok},
        {"pcie_lanes_ok", o->pcie_lanes_ok},
        {"rack_power_ok", !o->power.throttled},
        {"memory_fits", o->memory.fits},
    };
    size_t n_nums = sizeof nums / sizeof nums[0], n_checks = sizeof checks / sizeof checks[0];
    if (format == FORMAT_JSON) {
        json_begin(&w, stdout, true);
        json_key_str(&w, "name", s->name);
        json_key_bool(&w, "valid", true);
        json_key_str(&w, "accelerator", r->accel->head.id);
        json_key_str(&w, "cpu", r->cpu->head.id);
        json_key_str(&w, "intra_link", r->intra_link->head.id);
        json_key_str(&w, "nic", r->nic ? r->nic->head.id : "");
        json_key_str(&w, "storage", r->storage->head.id);
        json_key_str(&w, "cooling", r->cooling->head.id);
        for (size_t i = 0; i < n_nums; i++)
            json_key_num(&w, nums[i].key, nums[i].value);
        json_open(&w, "checks", false);
        for (size_t i = 0; i < n_checks; i++)
            json_key_bool(&w, checks[i].key, checks[i].value);
        json_close(&w, false);
        json_finish(&w);
        return;
    }
    struct csv_row row;
    char key[64];
    csv_row_begin(&row, stdout);
    csv_row_field(&row, "name");
    csv_row_field(&row, "accelerator");
    for (size_t i = 0; i < n_nums; i++)
        csv_row_field(&row, nums[i].key);
    for (size_t i = 0; i < n_checks; i++) {
        snprintf(key, sizeof key, "checks.%s", checks[i].key);
        csv_row_field(&row, key);
    }
    csv_row_end(&row);
    csv_row_field(&row, s->name);
    csv_row_field(&row, r->accel->head.id);
    for (size_t i = 0; i < n_nums; i++)
        csv_row_number(&row, nums[i].value, 10);
    for (size_t i = 0; i < n_checks; i++)
        csv_row_field(&row, checks[i].value ? "true" : "false");
    csv_row_end(&row);
}

/* The resolved cluster of `mlviz check` for people, and its sanity checks. */
static void write_check_text(const struct setup *s, const struct resolved *r,
                             const struct model_report *o)
{
    char name[PRINTABLE_MAX], id[PRINTABLE_MAX], id2[PRINTABLE_MAX], a[48], b[48], ram[48];
    format_printable(name, sizeof name, s->name);
    printf("%s: valid\n", name);
    format_printable(id, sizeof id, r->accel->head.id);
    format_printable(id2, sizeof id2, r->accel->head.name);
    format_fixed(a, sizeof a, r->accel->mem_gb, 0);
    format_fixed(b, sizeof b, r->accel->mem_gb * o->devices, 0);
    printf("  devices   %d x %s (%s), %s GB each, %s GB in all\n", o->devices, id, id2, a, b);
    format_si(ram, sizeof ram, s->cluster.node.host_ram_gb * 1e9 * s->cluster.nodes, "B");
    format_printable(id, sizeof id, r->cpu->head.id);
    format_fixed(a, sizeof a, s->cluster.node.host_ram_gb, 0);
    char noun[16];
    printf("  nodes     %d x (%d %s, %d x %s, %s GB host RAM), %s host RAM in all\n",
           s->cluster.nodes, s->cluster.node.accelerators_per_node,
           format_noun(s->cluster.node.accelerators_per_node, "devices", noun, sizeof noun),
           s->cluster.node.cpu_sockets, id, a, ram);
    format_printable(id, sizeof id, r->cooling->head.id);
    printf("  racks     %d (%d %s per rack, %s cooling)\n", o->racks, s->facility.nodes_per_rack,
           format_noun(s->facility.nodes_per_rack, "nodes", noun, sizeof noun), id);
    format_printable(id, sizeof id, r->intra_link->head.id);
    format_printable(id2, sizeof id2, r->host_link->head.id);
    format_fixed(a, sizeof a, r->intra_link->bw_gbs, 0);
    format_fixed(b, sizeof b, r->host_link->bw_gbs, 1);
    printf("  links     inside node %s %s GB/s/dir; host %s %s GB/s/dir", id, a, id2, b);
    if (r->nic) {
        format_printable(id, sizeof id, r->nic->head.id);
        format_fixed(a, sizeof a, r->nic->bw_gbs, 1);
        printf("; network %d x %s %s GB/s/dir per node", s->cluster.node.nics_per_node, id, a);
    }
    format_printable(id, sizeof id, r->storage->head.id);
    format_printable(id2, sizeof id2, r->local_storage ? r->local_storage->head.id : "");
    format_fixed(a, sizeof a, o->stages.storage_bw_gbs, o->stages.storage_bw_gbs >= 1 ? 0 : 2);
    printf("\n  storage   %s (%s GB/s read)%s%s\n", id, a, r->local_storage ? "; local " : "", id2);
    format_si(a, sizeof a, o->params, "");
    printf("  model     %s parameters; TP %d x CP %d x PP %d x DP %d", a, o->tp, o->cp, o->pp,
           o->dp);
    if (o->ep > 1)
        printf(" (EP %d carved out of DP x CP)", o->ep);
    printf("\n");
    printf("checks:\n");
    int warnings = report_write_checks(stdout, s, r, o);
    if (warnings)
        printf("%d warning%s\n", warnings, warnings == 1 ? "" : "s");
}

/* What check and eval write once the setup is loaded and evaluated;
 * returns the exit status. */
typedef int (*setup_writer)(const struct setup_opts *so, const struct setup *s,
                            const struct resolved *r, const struct model_report *o);

static int run_with_setup(const char *command, int argc, char **argv, setup_writer write)
{
    static struct setup_opts so;
    memset(&so, 0, sizeof so);
    struct catalog *cat;
    struct setup s;
    struct resolved r;
    struct model_report o;
    int rc = load_and_eval(command, argc, argv, &so, &cat, &s, &r, &o);
    if (rc != EXIT_OK)
        return rc == DONE ? EXIT_OK : rc;
    rc = write(&so, &s, &r, &o);
    catalog_free(cat);
    return rc;
}

static int write_check(const struct setup_opts *so, const struct setup *s, const struct resolved *r,
                       const struct model_report *o)
{
    if (so->common.format != FORMAT_TEXT)
        write_check_data(s, r, o, so->common.format);
    else
        write_check_text(s, r, o);
    return EXIT_OK;
}

static int write_eval(const struct setup_opts *so, const struct setup *s, const struct resolved *r,
                      const struct model_report *o)
{
    if (so->schedule || so->schedule_kind != SCHED_AUTO) {
        if (so->common.format == FORMAT_CSV) {
            cli_error("--schedule writes text or JSON");
            return EXIT_USAGE;
        }
        return eval_write_schedule(s, r, o, so->schedule_kind, so->common.format);
    }
    if (so->common.format == FORMAT_JSON)
        report_write_json(stdout, s, r, o);
    else if (so->common.format == FORMAT_CSV)
        report_write_csv(stdout, s, r, o, true);
    else
        report_write_text(stdout, s, r, o);
    if (!o->runnable && so->common.format == FORMAT_TEXT)
        cli_error("%s cannot run: %s", s->name, o->why_not);
    /* --strict: scripts and CI gate on a setup that cannot run. */
    return so->strict && !o->runnable ? EXIT_CANNOT_RUN : EXIT_OK;
}

int cmd_check(int argc, char **argv)
{
    return run_with_setup("check", argc, argv, write_check);
}

int cmd_eval(int argc, char **argv)
{
    return run_with_setup("eval", argc, argv, write_eval);
}
