/* cmd_infer: `mlviz infer`, the serving model's report (engine/model/infer.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "infer.h"
#include "report.h"
#include "serve.h"

struct infer_opts {
    struct cli_common common;
    struct cli_setup_args args;
    bool strict;
    const char *serve; /* --serve DURATION */
    const char *seed;
};

static int infer_option(void *ctx, const char *name, const char *v)
{
    struct infer_opts *io = ctx;
    int k = cli_common_apply(&io->common, name, v);
    if (k != 0)
        return k < 0 ? -1 : 0;
    if (strcmp(name, "--set") == 0)
        return cli_set_add(&io->args, v) < 0 ? -1 : 0;
    if (strcmp(name, "--model") == 0)
        io->args.model = v;
    else if (strcmp(name, "--strict") == 0)
        io->strict = true;
    else if (strcmp(name, "--serve") == 0)
        io->serve = v;
    else if (strcmp(name, "--seed") == 0)
        io->seed = v;
    else
        return cli_unhandled(name);
    return 0;
}

/* --serve DURATION [--seed N]: the deployment played out over time. */
static int serve_over_time(const struct infer_opts *io, const struct setup *s,
                           const struct resolved *r)
{
    double duration = 3600.0, seed = 42.0;
    if (io->serve && (!fields_parse_duration(io->serve, &duration) || !(duration > 0) ||
                      duration > SERVE_DURATION_MAX_S)) {
        cli_error("--serve: '%s' is not a duration from 1s to 1d (90s, 15m, 6h)", io->serve);
        return EXIT_USAGE;
    }
    if (io->seed &&
        (!fields_parse_number(io->seed, &seed) || seed < 0 || seed > 9e15 || seed != floor(seed))) {
        cli_error("--seed: '%s' is not a whole number from 0 to 9e15", io->seed);
        return EXIT_USAGE;
    }
    static struct serve_report o;
    if (!infer_serve(s, r, duration, (uint64_t)seed, &o)) {
        cli_error("%s", o.why_not);
        return EXIT_RUNTIME;
    }
    if (io->common.format == FORMAT_JSON)
        report_write_json_table(stdout, serve_report_fields, serve_report_field_count, &o, s, r);
    else if (io->common.format == FORMAT_CSV)
        report_write_csv_table(stdout, serve_report_fields, serve_report_field_count, &o, s, r,
                               true);
    else
        serve_write_text(stdout, s, &o);
    return io->strict && !o.ran ? EXIT_CANNOT_RUN : EXIT_OK;
}

int cmd_infer(int argc, char **argv)
{
    static struct infer_opts io;
    memset(&io, 0, sizeof io);
    const char *pos[1];
    int n = cli_parse("infer", argc, argv, infer_option, &io, pos, 1);
    if (n < 0)
        return n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    if (n == 0) {
        char usage[512];
        commands_usage("infer", usage, sizeof usage);
        cli_error("missing setup file (usage: %s)", usage);
        return EXIT_USAGE;
    }
    struct catalog *cat = cli_load_catalog(io.common.catalog_dir);
    if (!cat)
        return EXIT_USAGE;
    static struct setup s;
    struct resolved r;
    if (!cli_load_setup_args(pos[0], &io.args, cat, &s, &r)) {
        catalog_free(cat);
        return EXIT_USAGE;
    }
    if (io.serve || io.seed) {
        int rc = serve_over_time(&io, &s, &r);
        catalog_free(cat);
        return rc;
    }
    static struct infer_report o;
    infer_eval(&s, &r, &o);
    if (io.common.format == FORMAT_JSON)
        report_write_json_table(stdout, infer_report_fields, infer_report_field_count, &o, &s, &r);
    else if (io.common.format == FORMAT_CSV)
        report_write_csv_table(stdout, infer_report_fields, infer_report_field_count, &o, &s, &r,
                               true);
    else
        infer_write_text(stdout, &s, &r, &o);
    if (!o.runnable && io.common.format == FORMAT_TEXT)
        cli_error("%s cannot serve: %s", s.name, o.why_not);
    catalog_free(cat);
    return io.strict && !o.runnable ? EXIT_CANNOT_RUN : EXIT_OK;
}
