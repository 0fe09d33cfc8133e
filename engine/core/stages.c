/* stages: see stages.h. The five stages and their order follow the
 * project's design (DESIGN.md, "The five stages"). */
#include "stages.h"

#include <string.h>

const struct stage_info stage_table[STAGE_COUNT] = {
    {STAGE_DATA, "data", "Data", "DATA", "DATA", CATALOG_STORAGE},
    {STAGE_CPUS, "cpus", "CPUs", "CPUs", "CPUs", CATALOG_CPU},
    {STAGE_ACCELERATORS, "accelerators", "Accelerators", "ACCELERATORS", "ACCELERATORS",
     CATALOG_ACCELERATOR},
    {STAGE_INTERCONNECT, "interconnect", "Interconnects & networking", "INTERCONNECTS & NETWORKING",
     "INTERCONNECT", CATALOG_LINK},
    {STAGE_INFRASTRUCTURE, "infrastructure", "Supporting infrastructure",
     "SUPPORTING INFRASTRUCTURE", "INFRASTRUCTURE", CATALOG_COOLING},
};

int stage_find(const char *name)
{
    for (int i = 0; i < STAGE_COUNT; i++)
        if (name && strcmp(stage_table[i].name, name) == 0)
            return i;
    return -1;
}

void stage_name_list(const char *out[STAGE_COUNT + 1])
{
    for (int i = 0; i < STAGE_COUNT; i++)
        out[i] = stage_table[i].name;
    out[STAGE_COUNT] = NULL;
}
