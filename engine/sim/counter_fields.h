/* counter_fields: the step loop's counters described once.
 *
 * counter_fields[] lists every member of struct sim_counters (sim.h) with
 * its key, place, type, unit and help, and the columns derived from them
 * (energy_kwh from energy_j, rates per simulated second). `mlviz sim`
 * (JSON and CSV) walks this table, and Lua's sim:counters() should, so that
 * every face names a counter the same way. */
#ifndef MLVIZ_COUNTER_FIELDS_H
#define MLVIZ_COUNTER_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

enum counter_field_type {
    COUNTER_NUM,    /* double */
    COUNTER_COUNT,  /* uint64_t: exact, also past 2^53 */
    COUNTER_BOOL,   /* bool */
    COUNTER_STAGES, /* double[STAGE_COUNT], one value per stage, keyed by stage name */
};

struct counter_field {
    const char *key;  /* "energy_j" */
    size_t offset;    /* into struct sim_counters (of the source for a derived one) */
    size_t size;      /* of that member */
    int type;         /* enum counter_field_type (a derived field is COUNTER_NUM) */
    const char *unit; /* "s", "J", "kWh", "tokens/s", "" */
    const char *help;
    /* A derived field: the value of `derived_from` (the stored field at
     * `offset`), divided by time_s when per_second, then by divisor. */
    const char *derived_from; /* NULL for a stored counter */
    bool per_second;
    double divisor;
    int csv_digits; /* significant digits of a NUM in CSV */
};
extern const struct counter_field counter_fields[];
extern const size_t counter_field_count;

/* The field with this key, or NULL. */
const struct counter_field *counter_field_find(const char *key);
/* A NUM, COUNT or BOOL field (stored or derived) as a number; 0 for STAGES.
 * Rates over no simulated time divide by 1 s. */
double counter_field_number(const struct counter_field *f, const struct sim_counters *c);
/* A COUNT field exactly (0 for other types). */
uint64_t counter_field_uint(const struct counter_field *f, const struct sim_counters *c);
/* The value of a STAGES field for one stage (0 for other types). */
double counter_field_stage(const struct counter_field *f, const struct sim_counters *c, int stage);

#endif
