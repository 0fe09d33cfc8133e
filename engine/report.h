/* report: the public forms of a model report.
 *
 * report_visit() walks a report in one fixed order with stable key names
 * (the JSON contract of `mlviz eval`). The JSON and CSV writers here and the
 * Lua result tables are all built from that one walk, so they cannot
 * disagree. */
#ifndef MLVIZ_REPORT_H
#define MLVIZ_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

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
void json_key_num(struct json_writer *w, const char *key, double v);
void json_key_str(struct json_writer *w, const char *key, const char *s);
void json_key_bool(struct json_writer *w, const char *key, bool b);
void json_open(struct json_writer *w, const char *key, bool list);
void json_close(struct json_writer *w, bool list);
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
