/* counter_fields: every sim counter described once (see counter_fields.h).
 *
 * The order is the order of `mlviz sim --format json|csv` after the run's
 * own keys (setup, duration_s, seed, ...): the rows up to avg_facility_kw
 * are the columns the CSV had before the table existed, in their order, so
 * that they keep their places; the others follow. */
#include "counter_fields.h"

#include <stdint.h>
#include <string.h>

#define MEMBER(m) offsetof(struct sim_counters, m), sizeof(((struct sim_counters *)0)->m)
#define NUM(key, member, unit, digits, help)                                                       \
    {                                                                                              \
        key, MEMBER(member), COUNTER_NUM, unit, help, NULL, false, 1.0, digits                     \
    }
#define COUNT(key, member, help)                                                                   \
    {                                                                                              \
        key, MEMBER(member), COUNTER_COUNT, "", help, NULL, false, 1.0, 0                          \
    }
#define STAGES(key, member, help)                                                                  \
    {                                                                                              \
        key, MEMBER(member), COUNTER_STAGES, "batches", help, NULL, false, 1.0, 9                  \
    }
/* A derived column: source / (time_s when per_second) / divisor. */
#define DERIVED(key, source, per_second, divisor, unit, help)                                      \
    {                                                                                              \
        key, MEMBER(source), COUNTER_NUM, unit, help, #source, per_second, divisor, 9              \
    }

/* Joules in a kilowatt-hour. */
#define J_PER_KWH 3.6e6

const struct counter_field counter_fields[] = {
    DERIVED("tokens_per_s", tokens, true, 1.0, "tokens/s",
            "useful tokens per simulated second (samples for a generic model)"),
    COUNT("steps", steps, "completed optimizer steps, including ones later rolled back"),
    COUNT("useful_steps", useful_steps, "steps that survived (not rolled back)"),
    NUM("starved_s", starved_s, "s", 9, "time the devices waited for data"),
    COUNT("failures", failures, "failures that stopped the job"),
    COUNT("device_failures", device_failures, "failures of one device"),
    COUNT("node_failures", node_failures, "failures of a whole node"),
    COUNT("restarts", restarts, "restarts from the last checkpoint"),
    COUNT("checkpoints", checkpoints, "checkpoints written"),
    NUM("checkpoint_s", checkpoint_s, "s", 9, "time stalled writing checkpoints"),
    NUM("lost_s", lost_s, "s", 9, "wall time lost to rollback and restart"),
    NUM("throttled_s", throttled_s, "s", 9, "time spent with lowered clocks"),
    NUM("max_rack_temp_c", max_rack_temp_c, "C", 6, "hottest rack temperature reached"),
    DERIVED("energy_kwh", energy_j, false, J_PER_KWH, "kWh", "facility energy (energy_j)"),
    DERIVED("avg_facility_kw", energy_j, true, 1000.0, "kW",
            "average facility power (energy_j over time_s)"),
    {"stopped", MEMBER(stopped), COUNTER_BOOL, "", "a stop event ended the run", NULL, false, 1.0,
     0},
    NUM("tokens", tokens, "tokens", 9, "useful tokens (rolled-back steps not counted)"),
    NUM("time_s", time_s, "s", 9, "simulated time"),
    COUNT("ticks", ticks, "ticks of the step loop"),
    NUM("energy_j", energy_j, "J", 9, "facility energy"),
    STAGES("items_in", items_in, "batches that entered each stage"),
    STAGES("items_out", items_out, "batches that left each stage (thrown away included)"),
    STAGES("items_inside", items_inside, "batches in each stage now"),
};
const size_t counter_field_count = sizeof counter_fields / sizeof counter_fields[0];

const struct counter_field *counter_field_find(const char *key)
{
    if (!key)
        return NULL;
    for (size_t i = 0; i < counter_field_count; i++)
        if (strcmp(counter_fields[i].key, key) == 0)
            return &counter_fields[i];
    return NULL;
}

double counter_field_number(const struct counter_field *f, const struct sim_counters *c)
{
    const char *p = (const char *)c + f->offset;
    double v;
    switch (f->type) {
    case COUNTER_NUM:
        v = *(const double *)(const void *)p;
        break;
    case COUNTER_COUNT:
        v = (double)*(const uint64_t *)(const void *)p;
        break;
    case COUNTER_BOOL:
        return *(const bool *)(const void *)p;
    default:
        return 0.0;
    }
    if (!f->derived_from)
        return v;
    if (f->per_second)
        v /= c->time_s > 0 ? c->time_s : 1.0;
    return v / f->divisor;
}

uint64_t counter_field_uint(const struct counter_field *f, const struct sim_counters *c)
{
    if (f->type != COUNTER_COUNT)
        return 0;
    return *(const uint64_t *)(const void *)((const char *)c + f->offset);
}

double counter_field_stage(const struct counter_field *f, const struct sim_counters *c, int stage)
{
    if (f->type != COUNTER_STAGES || stage < 0 || stage >= STAGE_COUNT)
        return 0.0;
    const double *v = (const double *)(const void *)((const char *)c + f->offset);
    return v[stage];
}
