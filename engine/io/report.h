/* report: the public forms of a model report.
 *
 * report_fields[] describes every member of struct model_report once: its
 * key (the JSON contract of `mlviz eval`), place, type and unit.
 * report_visit() walks that table in order; the JSON and CSV writers here,
 * the Lua result tables and the model's finite-number guard are all built
 * on it, so they cannot disagree.
 *
 * Numbers reach output through units.h (output_number and the formatters
 * built on it): no nan, inf or -0 is ever printed. User strings
 * reach text output through format_printable() and JSON through
 * json_write_string(), which escape control characters. */
#ifndef MLVIZ_REPORT_H
#define MLVIZ_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "infer.h"
#include "json.h"
#include "model.h"
#include "report_fields.h"
#include "serve.h"
#include "units.h"

/* A user string made safe for a terminal: control characters as \xNN,
 * invalid UTF-8 bytes as '?'. Truncates to fit. */
void format_printable(char *buf, size_t len, const char *text);

struct report_visitor {
    void *ctx;
    void (*begin)(void *ctx, const char *key); /* nested object; key NULL in a list */
    void (*end)(void *ctx);
    void (*begin_list)(void *ctx, const char *key);
    void (*end_list)(void *ctx);
    void (*num)(void *ctx, const char *key, double v);
    void (*str)(void *ctx, const char *key, const char *v);
    void (*boolean)(void *ctx, const char *key, bool v);
};

/* Visits one field of report_fields as report_visit does (its leaf key,
 * no group around it). */
void report_visit_field(const struct report_field *f, const struct setup *s,
                        const struct resolved *r, const struct model_report *o,
                        const struct report_visitor *v);
/* Walks the report (the caller has opened the top-level object). */
void report_visit(const struct setup *s, const struct resolved *r, const struct model_report *o,
                  const struct report_visitor *v);

/* The same walk over any table of report fields describing the struct at
 * `base` (the inference report's table, say). */
void report_visit_table(const struct report_field *rows, size_t n, const void *base,
                        const struct setup *s, const struct resolved *r,
                        const struct report_visitor *v);

/* The JSON writer (json.h) as a report_visitor. */
void json_visitor(struct json_writer *w, struct report_visitor *v);

enum output_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };
extern const char *const output_format_names[]; /* "text", "csv", "json" */
bool output_format_parse(const char *text, int *out);

void report_write_json(FILE *out, const struct setup *s, const struct resolved *r,
                       const struct model_report *o);
/* One header line of flattened keys (memory.per_device_gb) and one row. */
void report_write_csv(FILE *out, const struct setup *s, const struct resolved *r,
                      const struct model_report *o, bool header);
/* The JSON object and the CSV header + row of any report table. */
void report_write_json_table(FILE *out, const struct report_field *rows, size_t n, const void *base,
                             const struct setup *s, const struct resolved *r);
void report_write_csv_table(FILE *out, const struct report_field *rows, size_t n, const void *base,
                            const struct setup *s, const struct resolved *r, bool header);
/* The readable report of `mlviz eval`. */
void report_write_text(FILE *out, const struct setup *s, const struct resolved *r,
                       const struct model_report *o);
/* The readable report of `mlviz infer` (report_infer.c). */
void infer_write_text(FILE *out, const struct setup *s, const struct resolved *r,
                      const struct infer_report *o);
/* The readable report of `mlviz infer --serve` (report_infer.c). */
void serve_write_text(FILE *out, const struct setup *s, const struct serve_report *o);
/* The static sanity checks of `mlviz check` (host RAM, PCIe lanes, rack
 * power); returns the number of warnings. */
int report_write_checks(FILE *out, const struct setup *s, const struct resolved *r,
                        const struct model_report *o);

#endif
