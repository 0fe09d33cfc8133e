/* cmd_catalog: `mlviz catalog [KIND]`, the hardware tables as text, CSV or JSON. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "cli.h"
#include "commands.h"
#include "csv.h"
#include "fields.h"
#include "report.h"

/* Columns shown per kind in the text table (the rest is in csv/json). */
enum { TEXT_COLUMNS_MAX = 16 }; /* including the NULL that ends each list */
static const char *const text_columns[CATALOG_KIND_COUNT][TEXT_COLUMNS_MAX] = {
    {"id", "kind", "mem_gib", "mem_gb", "mem_bw_gbs", "fp32_tflops", "fp16_tflops", "bf16_tflops",
     "fp8_tflops", "fp4_tflops", "int8_tops", "tdp_w", "link", "source", NULL},
    {"id", "cores", "mem_channels", "mem_bw_gbs", "pcie_lanes", "pcie_gen", "tdp_w", "vector_ext",
     "source", NULL},
    {"id", "scope", "read_gbs", "write_gbs", "latency_us", "source", NULL},
    {"id", "kind", "bw_gbs", "latency_us", "nccl_efficiency", "domain_max_devices", "source", NULL},
    {"id", "rack_kw_max", "pue", "overhead_fraction", "source", NULL},
    {"id", "kernels_per_layer_fwd", "elementwise_bytes_sbh", "runtime_reserved_gb",
     "step_overhead_s", "source", NULL},
    {"id", "step_overhead_us", "kv_block_tokens", "memory_utilization", "max_batch",
     "allreduce_latency_us", "source", NULL},
};

/* One cell of the catalog's text table, safe for a terminal (a user
 * catalog may hold anything in its strings). */
static void catalog_cell(const struct field_table *t, const char *col, const void *entry, char *buf,
                         size_t len)
{
    char raw[512];
    fields_format(fields_find(t, col), entry, raw, sizeof raw);
    format_printable(buf, len, raw);
}

static void print_kind_csv(const struct catalog *cat, int kind, bool first)
{
    const struct field_table *t = catalog_fields((enum catalog_kind)kind);
    size_t n = catalog_count(cat, (enum catalog_kind)kind);
    char buf[4 * 512 + 1];
    struct csv_row row;
    if (!first)
        fputc('\n', stdout);
    csv_row_begin(&row, stdout);
    csv_row_field(&row, "kind");
    for (size_t j = 0; j < t->count; j++)
        csv_row_field(&row, t->fields[j].path);
    csv_row_end(&row);
    for (size_t i = 0; i < n; i++) {
        const void *e = catalog_entry(cat, (enum catalog_kind)kind, i);
        csv_row_begin(&row, stdout);
        csv_row_field(&row, catalog_kind_singular[kind]);
        for (size_t j = 0; j < t->count; j++) {
            fields_format(&t->fields[j], e, buf, sizeof buf);
            csv_row_field(&row, strcmp(buf, "-") == 0 ? "" : buf);
        }
        csv_row_end(&row);
    }
}

/* Text: aligned columns; the source last, unpadded. */
static void print_kind_text(const struct catalog *cat, int kind, bool first)
{
    const struct field_table *t = catalog_fields((enum catalog_kind)kind);
    size_t n = catalog_count(cat, (enum catalog_kind)kind);
    char buf[4 * 512 + 1];
    const char *const *cols = text_columns[kind];
    size_t ncols = 0;
    while (cols[ncols])
        ncols++;
    int width[TEXT_COLUMNS_MAX] = {0};
    for (size_t c = 0; c < ncols; c++) {
        width[c] = (int)strlen(cols[c]);
        for (size_t i = 0; i < n; i++) {
            catalog_cell(t, cols[c], catalog_entry(cat, (enum catalog_kind)kind, i), buf,
                         sizeof buf);
            if ((int)strlen(buf) > width[c])
                width[c] = (int)strlen(buf);
        }
    }
    if (!first)
        fputc('\n', stdout);
    printf("%s (%zu)\n", catalog_kind_names[kind], n);
    for (size_t c = 0; c < ncols; c++)
        if (c + 1 < ncols)
            printf("%-*s  ", width[c], cols[c]);
        else
            printf("%s\n", cols[c]);
    for (size_t i = 0; i < n; i++) {
        const void *e = catalog_entry(cat, (enum catalog_kind)kind, i);
        for (size_t c = 0; c < ncols; c++) {
            const struct field *f = fields_find(t, cols[c]);
            catalog_cell(t, cols[c], e, buf, sizeof buf);
            bool numeric = f->type == FIELD_NUM || f->type == FIELD_INT;
            if (c + 1 == ncols)
                printf("%s\n", buf);
            else
                printf(numeric ? "%*s  " : "%-*s  ", width[c], buf);
        }
    }
}

static void print_kind_json(struct json_writer *w, const struct catalog *cat, int kind)
{
    const struct field_table *t = catalog_fields((enum catalog_kind)kind);
    size_t n = catalog_count(cat, (enum catalog_kind)kind);
    json_open(w, catalog_kind_names[kind], true);
    for (size_t i = 0; i < n; i++) {
        const void *e = catalog_entry(cat, (enum catalog_kind)kind, i);
        json_open(w, NULL, false);
        for (size_t j = 0; j < t->count; j++) {
            const struct field *f = &t->fields[j];
            if (f->type == FIELD_NUM || f->type == FIELD_INT) {
                double v = fields_get_number(f, e);
                if ((f->flags & FIELD_NULLABLE) && v == FIELD_ABSENT)
                    json_key_num(w, f->path, NAN);
                else
                    json_key_num(w, f->path, v);
            } else if (f->type == FIELD_BOOL) {
                json_key_bool(w, f->path, fields_get_number(f, e) != 0);
            } else {
                json_key_str(w, f->path, fields_get_string(f, e));
            }
        }
        json_close(w, false);
    }
    json_close(w, true);
}

int cmd_catalog(int argc, char **argv)
{
    char usage[512];
    commands_usage("catalog", usage, sizeof usage);
    struct cli_common c = {0};
    const char *pos[1];
    int n = cli_parse("catalog", argc, argv, cli_common_only, &c, pos, 1);
    if (n < 0)
        return cli_parse_exit(n);
    int only = -1;
    if (n == 1) {
        for (int k = 0; k < CATALOG_KIND_COUNT; k++)
            if (strcmp(pos[0], catalog_kind_names[k]) == 0 ||
                strcmp(pos[0], catalog_kind_singular[k]) == 0)
                only = k;
        if (only < 0) {
            const char *near = fields_suggest_word(pos[0], catalog_kind_names, CATALOG_KIND_COUNT);
            cli_error("unknown catalog kind '%s'%s%s%s (usage: %s)", pos[0],
                      near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", usage);
            return EXIT_USAGE;
        }
    }
    struct catalog *cat = cli_load_catalog(c.catalog_dir);
    if (!cat)
        return EXIT_USAGE;
    if (c.format == FORMAT_JSON) {
        struct json_writer w;
        json_begin(&w, stdout, true);
        for (int k = 0; k < CATALOG_KIND_COUNT; k++)
            if (only < 0 || k == only)
                print_kind_json(&w, cat, k);
        json_finish(&w);
    } else {
        bool first = true;
        for (int k = 0; k < CATALOG_KIND_COUNT; k++) {
            if (only >= 0 && k != only)
                continue;
            if (c.format == FORMAT_CSV)
                print_kind_csv(cat, k, first);
            else
                print_kind_text(cat, k, first);
            first = false;
        }
    }
    catalog_free(cat);
    return EXIT_OK;
}
