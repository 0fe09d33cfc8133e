/* report: the public forms of a model report.
 *
 * report_fields[] describes every member of struct model_report once: its
 * key (the JSON contract of `mlviz eval`), place, type and unit.
 * report_visit() walks that table in order; the JSON and CSV writers here,
 * the Lua result tables and the model's finite-number guard are all built
 * on it, so they cannot disagree.
 *
 * Every number that reaches any output goes through output_number() (or a
 * formatter built on it): no nan, inf or -0 is ever printed. User strings
 * reach text output through format_printable() and JSON through
 * json_write_string(), which escape control characters. */
#ifndef MLVIZ_REPORT_H
#define MLVIZ_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "report_fields.h"


/* The one gate from a double to output: non-finite -> 0, -0 -> 0. */
double output_number(double v);
/* A number for machines (JSON, CSV): integer-valued numbers exactly,
 * others with `digits` significant digits. */
void output_format_number(char *buf, size_t len, double v, int digits);
/* A number for people with `decimals` decimals; beyond 1e15 three
 * significant digits with an exponent, never a 300-digit number. */
void format_fixed(char *buf, size_t len, double v, int decimals);
/* A share (0.123) as a percentage with one decimal ("12.3%"). */
void format_percent(char *buf, size_t len, double share);
/* A dollar amount, unit-scaled ("$1.2 M"). */
void format_usd(char *buf, size_t len, double usd);
/* A user string made safe for a terminal: control characters as \xNN,
 * invalid UTF-8 bytes as '?'. Truncates to fit. */
void format_printable(char *buf, size_t len, const char *text);

struct report_visitor {
    void *ctx;
    void (*begin)(void *ctx, const char *key);      /* nested object; key NULL in a list */
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

/* A streaming JSON writer, also a report_visitor. */
struct json_writer {
    FILE *out;
    int depth;
    bool need_comma[64];
    bool pretty;
};
void json_begin(struct json_writer *w, FILE *out, bool pretty); /* opens the top object */
void json_finish(struct json_writer *w);                         /* closes it, newline */
void json_visitor(struct json_writer *w, struct report_visitor *v);
/* A number (integer-valued ones exactly); NaN is written as null, which
 * callers use for "absent". */
void json_key_num(struct json_writer *w, const char *key, double v);
void json_key_uint(struct json_writer *w, const char *key, unsigned long long v);
void json_key_str(struct json_writer *w, const char *key, const char *s);
void json_key_bool(struct json_writer *w, const char *key, bool b);
void json_open(struct json_writer *w, const char *key, bool list);
void json_close(struct json_writer *w, bool list);
/* A JSON string: valid UTF-8 (invalid bytes become U+FFFD), control
 * characters escaped. */
void json_write_string(FILE *out, const char *s);

enum output_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };
extern const char *const output_format_names[]; /* "text", "csv", "json" */
bool output_format_parse(const char *text, int *out);

void report_write_json(FILE *out, const struct setup *s, const struct resolved *r,
                       const struct model_report *o);
/* One header line of flattened keys (memory.per_device_gb) and one row. */
void report_write_csv(FILE *out, const struct setup *s, const struct resolved *r,
                      const struct model_report *o, bool header);
/* The readable report of `mlviz eval`. */
void report_write_text(FILE *out, const struct setup *s, const struct resolved *r,
                       const struct model_report *o);
/* The static sanity checks of `mlviz check` (host RAM, PCIe lanes, rack
 * power); returns the number of warnings. */
int report_write_checks(FILE *out, const struct setup *s, const struct resolved *r,
                        const struct model_report *o);

/* Human formatting shared by the text report and the TUI. */
void format_si(char *buf, size_t len, double v, const char *unit); /* 1.2 k, 3.4 M */
void format_duration(char *buf, size_t len, double seconds);       /* 1.02 s, 41 min, 3.2 d */

#endif
