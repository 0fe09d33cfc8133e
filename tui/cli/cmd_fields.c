/* cmd_fields: `mlviz fields`, every setup field (path, type, unit, default,
 * range, help) as text, CSV, JSON, or as the markdown of docs/ (--md: the
 * setup fields of engine/core/setup.c and the report fields of
 * engine/model/report_fields.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "fields.h"
#include "report.h"
#include "setup.h"

struct fields_args {
    struct cli_common common;
    bool md;
};

static int fields_option(void *ctx, const char *name, const char *v)
{
    struct fields_args *a = ctx;
    if (strcmp(name, "--md") == 0) {
        a->md = true;
        return 0;
    }
    int k = cli_common_apply(&a->common, name, v);
    return k > 0 ? 0 : k < 0 ? -1 : cli_unhandled(name);
}

static bool is_numeric(const struct field *f)
{
    return f->type == FIELD_INT || f->type == FIELD_NUM || f->type == FIELD_NUM_AUTO;
}

static void field_json(struct json_writer *w, const struct field *f, const char *def,
                       const char *type)
{
    json_open(w, NULL, false);
    json_key_str(w, "path", f->path);
    json_key_str(w, "type", type);
    json_key_str(w, "unit", f->unit);
    json_key_str(w, "default", def);
    if (is_numeric(f)) {
        json_key_num(w, "min", f->min);
        json_key_num(w, "max", f->max);
    }
    json_key_bool(w, "knob", (f->flags & FIELD_KNOB) != 0);
    json_key_num(w, "stage", f->stage);
    json_key_str(w, "help", f->help);
    json_close(w, false);
}

static void field_csv(const struct field *f, const char *def, const char *type)
{
    char lo[48], hi[48], stage[16];
    struct csv_row row;
    output_format_number(lo, sizeof lo, f->min, 10);
    output_format_number(hi, sizeof hi, f->max, 10);
    snprintf(stage, sizeof stage, "%d", f->stage);
    csv_row_begin(&row, stdout);
    csv_row_field(&row, f->path);
    csv_row_field(&row, type);
    csv_row_field(&row, f->unit);
    csv_row_field(&row, def);
    csv_row_field(&row, lo);
    csv_row_field(&row, hi);
    csv_row_field(&row, (f->flags & FIELD_KNOB) ? "yes" : "no");
    csv_row_field(&row, stage);
    csv_row_field(&row, f->help);
    csv_row_end(&row);
}

/* A table cell of markdown: a '|' would end the cell. */
static void md_cell(const char *text)
{
    fputs(" ", stdout);
    for (const char *p = text ? text : ""; *p; p++) {
        if (*p == '|')
            fputc('\\', stdout);
        fputc(*p, stdout);
    }
    fputs(" |", stdout);
}

/* The markdown of docs/: one table of the setup fields, one of the report's. */
static void fields_markdown(void)
{
    const struct field_table *t = setup_fields();
    struct setup s;
    setup_defaults(&s);
    char def[128], range[112], code[160];
    puts("| setup field | default | unit | range | knob | meaning |");
    puts("|---|---|---|---|---|---|");
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        fields_format(f, &s, def, sizeof def);
        fields_describe_range(f, range, sizeof range);
        snprintf(code, sizeof code, "`%s`", f->path);
        fputs("|", stdout);
        md_cell(code);
        md_cell(def);
        md_cell(f->unit);
        md_cell(range);
        md_cell(f->flags & FIELD_KNOB ? "yes" : "");
        md_cell(f->help);
        fputc('\n', stdout);
    }
    puts("");
    puts("| report field (`mlviz eval --format json`) | unit | meaning |");
    puts("|---|---|---|");
    for (size_t i = 0; i < report_field_count; i++) {
        const struct report_field *f = &report_fields[i];
        snprintf(code, sizeof code, "`%s`", f->key);
        fputs("|", stdout);
        md_cell(code);
        md_cell(f->unit);
        md_cell(f->help);
        fputc('\n', stdout);
    }
}

int cmd_fields(int argc, char **argv)
{
    struct fields_args a = {{0}, false};
    int n = cli_parse("fields", argc, argv, fields_option, &a, NULL, 0);
    if (n < 0)
        return cli_parse_exit(n);
    if (a.md) {
        fields_markdown();
        return EXIT_OK;
    }
    const struct field_table *t = setup_fields();
    struct setup s;
    setup_defaults(&s);
    char def[128], type[256];
    struct json_writer w;
    static const char *const csv_header[] = {"path", "type", "unit",  "default", "min",
                                             "max",  "knob", "stage", "help"};
    if (a.common.format == FORMAT_JSON) {
        json_begin(&w, stdout, true), json_open(&w, "fields", true);
    } else if (a.common.format == FORMAT_CSV) {
        csv_write_row(stdout, csv_header, sizeof csv_header / sizeof csv_header[0]);
    }
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        fields_format(f, &s, def, sizeof def);
        fields_describe_type(f, type, sizeof type);
        if (a.common.format == FORMAT_JSON) {
            field_json(&w, f, def, type);
        } else if (a.common.format == FORMAT_CSV) {
            field_csv(f, def, type);
        } else {
            char range[112];
            fields_describe_range(f, range, sizeof range);
            printf("%-40s %-14s %-8s %-8s %s%s\n", f->path, def, f->unit, range, f->help,
                   (f->flags & FIELD_KNOB) ? " [knob]" : "");
        }
    }
    if (a.common.format == FORMAT_JSON) {
        json_close(&w, true);
        json_finish(&w);
    }
    return EXIT_OK;
}
