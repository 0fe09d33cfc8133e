/* stages: the five stages of the training pipeline, described once.
 *
 * Every place that names a stage (JSON values, the overview boxes, the stage
 * view's title, the lesson text, Lua's focus(), the bottleneck verdict)
 * reads this table, so a stage is spelled the same way everywhere. */
#ifndef MLVIZ_STAGES_H
#define MLVIZ_STAGES_H

#include "catalog.h"

enum stage_id {
    STAGE_DATA,
    STAGE_CPUS,
    STAGE_ACCELERATORS,
    STAGE_INTERCONNECT,
    STAGE_INFRASTRUCTURE,
    STAGE_COUNT
};

struct stage_info {
    enum stage_id id;
    const char *name;       /* "interconnect": the JSON value, Lua and file id */
    const char *title;      /* "Interconnects & networking": headings */
    const char *caps;       /* "INTERCONNECTS & NETWORKING": the overview's box labels */
    const char *brief;      /* "INTERCONNECT": where a box is too narrow for caps */
    enum catalog_kind kind; /* the catalog kind the stage's main knob picks */
};

extern const struct stage_info stage_table[STAGE_COUNT];

/* The stages' names in order, NULL-terminated (for word lists). */
void stage_name_list(const char *out[STAGE_COUNT + 1]);
/* The stage named `name` ("cpus"), or -1. */
int stage_find(const char *name);

#endif
