/* report_fields: the model report described once.
 *
 * report_fields[] lists every member of struct model_report: its key (the
 * JSON contract of `mlviz eval`), place, type and unit. The JSON, CSV and
 * text writers (engine/io/report.c), Lua's eval() results, sweep columns
 * and the model's finite-number guard all walk this table, so they cannot
 * disagree. */
#ifndef MLVIZ_REPORT_FIELDS_H
#define MLVIZ_REPORT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

enum report_field_type {
    REPORT_NUM,            /* double */
    REPORT_INT,            /* int */
    REPORT_BOOL,           /* bool */
    REPORT_NOT_BOOL,       /* bool, reported negated (checks.rack_power_ok) */
    REPORT_TEXT,           /* char array */
    REPORT_STAGE,          /* int enum stage_id, reported by name ("" for -1) */
    REPORT_SETUP_NAME,     /* the setup's name (not in the report) */
    REPORT_ACCELERATOR_ID, /* the resolved accelerator's id (not in the report) */
    REPORT_SUGGESTIONS,    /* the list of suggestions (report_suggestion_fields) */
};

struct report_field {
    const char *key; /* "step_time_s", "memory.per_device_gb": group.key */
    size_t offset;   /* into struct model_report (struct suggestion for the list) */
    size_t size;     /* of the member */
    int type;        /* enum report_field_type */
    const char *unit;
    const char *help;
};
extern const struct report_field report_fields[];
extern const size_t report_field_count;
extern const struct report_field report_suggestion_fields[];
extern const size_t report_suggestion_field_count;

/* The field with this key ("memory.fits"), or NULL. */
const struct report_field *report_field_find(const char *key);
/* Whether the field is one of the verdict's sentences that
 * model_eval_numbers leaves empty (why_not, bottleneck_reason, next_reason,
 * suggestions): a caller that reads no such field may take the numbers-only
 * evaluation and get the same values. */
bool report_field_is_words(const struct report_field *f);
/* A numeric field (NUM, INT, STAGE, BOOL as 0/1) of a struct. */
double report_field_number(const struct report_field *f, const void *base);
/* Zeroes every non-finite double of the report (and turns -0 into 0);
 * returns the key of the first one found, or NULL when all were finite. */
const char *report_sanitize(struct model_report *o);
/* The same guard over any table's NUM members in the struct at base;
 * returns the first non-finite field (now 0) or NULL. */
const struct report_field *report_clean_doubles(const struct report_field *t, size_t n, void *base);

#endif
