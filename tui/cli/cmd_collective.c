/* cmd_collective: `mlviz collective`, the time of one collective by size and
 * algorithm over a setup's links or one catalog link. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cli.h"
#include "collective.h"
#include "commands.h"
#include "csv.h"
#include "fields.h"
#include "report.h"

struct coll_args {
    struct cli_common common;
    int op;
    double size;
    unsigned long long devices;
    const char *setup_arg, *link_id;
};

static int coll_option(void *ctx, const char *name, const char *v)
{
    struct coll_args *a = ctx;
    int k = cli_common_apply(&a->common, name, v);
    if (k != 0)
        return k < 0 ? -1 : 0;
    /* The table checked the op against collective_op_names, the size and
     * the device count against their ranges. */
    if (strcmp(name, "--op") == 0) {
        for (int j = 0; collective_op_names[j]; j++)
            if (strcmp(v, collective_op_names[j]) == 0)
                a->op = j;
    } else if (strcmp(name, "--size") == 0) {
        fields_parse_bytes(v, &a->size);
    } else if (strcmp(name, "--devices") == 0) {
        a->devices = strtoull(v, NULL, 10);
    } else if (strcmp(name, "--setup") == 0) {
        a->setup_arg = v;
    } else if (strcmp(name, "--link") == 0) {
        a->link_id = v;
    } else {
        return cli_unhandled(name);
    }
    return 0;
}

/* One link type everywhere: a single flat group. */
static bool net_from_link(const struct catalog *cat, const struct coll_args *a,
                          struct collective_net *net, const char **what)
{
    const struct link *l = catalog_link(cat, a->link_id);
    if (!l) {
        const char *near = catalog_suggest(cat, CATALOG_LINK, a->link_id);
        cli_error("unknown link '%s'%s%s%s (see: mlviz catalog links)", a->link_id,
                  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return false;
    }
    net->devices = (int)a->devices;
    net->per_node = (int)a->devices;
    net->intra_bw_gbs = l->bw_gbs * l->nccl_efficiency;
    net->intra_lat_s = l->latency_us * 1e-6;
    net->inter_bw_gbs = net->intra_bw_gbs;
    net->inter_lat_s = net->intra_lat_s;
    net->nvls_bw_gbs = l->nvls_bw_gbs;
    net->nvls_setup_s = l->nvls_setup_us * 1e-6;
    *what = l->head.name;
    return true;
}

/* The links of a setup: inside a node, and its NICs between nodes. */
static bool net_from_setup(const struct catalog *cat, const struct coll_args *a,
                           struct collective_net *net, const char **what)
{
    struct setup s;
    struct resolved r;
    if (!cli_load_setup(a->setup_arg ? a->setup_arg : "default", cat, &s, &r))
        return false;
    int per = s.cluster.node.accelerators_per_node > 0 ? s.cluster.node.accelerators_per_node : 1;
    net->devices = (int)a->devices;
    net->per_node = (unsigned long long)per < a->devices ? per : (int)a->devices;
    net->intra_bw_gbs = r.intra_link->bw_gbs * r.intra_link->nccl_efficiency;
    net->intra_lat_s = r.intra_link->latency_us * 1e-6;
    if (r.nic && s.cluster.node.nics_per_node > 0) {
        net->inter_bw_gbs =
            r.nic->bw_gbs * r.nic->nccl_efficiency * s.cluster.node.nics_per_node / per;
        net->inter_lat_s = r.nic->latency_us * 1e-6;
    } else {
        net->inter_bw_gbs = net->intra_bw_gbs;
        net->inter_lat_s = net->intra_lat_s;
    }
    net->nvls_bw_gbs = r.intra_link->nvls_bw_gbs;
    net->nvls_setup_s = r.intra_link->nvls_setup_us * 1e-6;
    /* The link's name lives in the catalog, which outlives the setup. */
    *what = r.intra_link->head.name;
    return true;
}

static const int algos[] = {ALLREDUCE_RING, ALLREDUCE_TREE, ALLREDUCE_HIERARCHICAL, ALLREDUCE_NVLS};

/* A link too slow to time the largest buffer is an input error, not a
 * table of ceilings. */
static bool net_can_time(const struct coll_args *a, const struct collective_net *net,
                         const char *what)
{
    for (size_t k = 0; k < 3; k++) {
        double t = collective_time((enum collective_op)a->op, algos[k], a->size, net, NULL);
        if (!(t < COLLECTIVE_TIME_CEILING_S)) {
            cli_error("%s: the link bandwidth (%g GB/s inside a node, %g GB/s between nodes) is "
                      "zero or too small to time a collective",
                      what, net->intra_bw_gbs, net->inter_bw_gbs);
            return false;
        }
    }
    return true;
}

/* One row of the table: an algorithm at one size. */
struct coll_row {
    const char *algorithm;
    double bytes, time_s, algbw_gbs, busbw_gbs;
};

static void write_header(struct json_writer *w, int format, const struct coll_args *a,
                         const struct collective_net *net, const char *what)
{
    if (format == FORMAT_JSON) {
        json_rows_begin(w, stdout);
    } else if (format == FORMAT_CSV) {
        static const char *const header[] = {"algorithm", "size_bytes", "time_s", "algbw_gbs",
                                             "busbw_gbs"};
        csv_write_row(stdout, header, sizeof header / sizeof header[0]);
    } else {
        char text[PRINTABLE_MAX];
        format_printable(text, sizeof text, what);
        printf("%s over %llu devices (%d per node), %s\n", collective_op_names[a->op], a->devices,
               net->per_node, text);
        printf("%-13s %14s %12s %12s %12s\n", "algorithm", "size_bytes", "time_us", "algbw_GB/s",
               "busbw_GB/s");
    }
}

static void write_row(struct json_writer *w, int format, const struct coll_row *x)
{
    if (format == FORMAT_JSON) {
        json_row_open(w);
        json_key_str(w, "algorithm", x->algorithm);
        json_key_num(w, "size_bytes", x->bytes);
        json_key_num(w, "time_s", x->time_s);
        json_key_num(w, "algbw_gbs", x->algbw_gbs);
        json_key_num(w, "busbw_gbs", x->busbw_gbs);
        json_row_close(w);
    } else if (format == FORMAT_CSV) {
        struct csv_row row;
        csv_row_begin(&row, stdout);
        csv_row_field(&row, x->algorithm);
        csv_row_number(&row, x->bytes, 10);
        csv_row_number(&row, x->time_s, 9);
        csv_row_number(&row, x->algbw_gbs, 6);
        csv_row_number(&row, x->busbw_gbs, 6);
        csv_row_end(&row);
    } else {
        char b[48], us[48], alg[48], busbw[48];
        format_fixed(b, sizeof b, x->bytes, 0);
        format_fixed(us, sizeof us, x->time_s * 1e6, 2);
        format_fixed(alg, sizeof alg, x->algbw_gbs, 2);
        format_fixed(busbw, sizeof busbw, x->busbw_gbs, 2);
        printf("%-13s %14s %12s %12s %12s\n", x->algorithm, b, us, alg, busbw);
    }
}

static void write_table(struct json_writer *w, int format, const struct coll_args *a,
                        const struct collective_net *net)
{
    enum collective_op op = (enum collective_op)a->op;
    double bus = collective_bus_factor(op, (int)a->devices), size = a->size;
    /* All-to-all has one algorithm (pairwise exchange posted at once). */
    size_t n_algos =
        op == COLL_ALL_TO_ALL                                                            ? 1
        : op == COLL_ALL_REDUCE && net->nvls_bw_gbs > 0 && net->per_node >= net->devices ? 4
                                                                                         : 3;
    for (size_t k = 0; k < n_algos; k++) {
        /* Powers of two up to the requested size, which is the last row. */
        for (double step = 8, bytes = step < size ? step : size; bytes > 0;
             step *= 2, bytes = step < size ? step : (bytes < size ? size : 0)) {
            struct coll_row x = {op == COLL_ALL_TO_ALL ? "pairwise" : allreduce_names[algos[k]],
                                 bytes, collective_time(op, algos[k], bytes, net, NULL), 0, 0};
            x.algbw_gbs = x.time_s > 0 ? bytes / x.time_s / 1e9 : 0.0;
            x.busbw_gbs = x.algbw_gbs * bus;
            write_row(w, format, &x);
        }
    }
    if (format == FORMAT_JSON)
        json_rows_finish(w);
}

int cmd_collective(int argc, char **argv)
{
    struct coll_args a = {.op = COLL_ALL_REDUCE, .size = 1073741824.0, .devices = 8};
    int n = cli_parse("collective", argc, argv, coll_option, &a, NULL, 0);
    if (n < 0)
        return cli_parse_exit(n);
    if (a.setup_arg && a.link_id) {
        cli_error("give --setup or --link, not both");
        return EXIT_USAGE;
    }
    struct catalog *cat = cli_load_catalog(a.common.catalog_dir);
    if (!cat)
        return EXIT_USAGE;
    struct collective_net net = {0};
    const char *what = "";
    bool ok =
        a.link_id ? net_from_link(cat, &a, &net, &what) : net_from_setup(cat, &a, &net, &what);
    if (!ok || !net_can_time(&a, &net, what)) {
        catalog_free(cat);
        return EXIT_USAGE;
    }
    struct json_writer w;
    write_header(&w, a.common.format, &a, &net, what);
    write_table(&w, a.common.format, &a, &net);
    catalog_free(cat);
    return EXIT_OK;
}
