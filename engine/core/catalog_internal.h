/* catalog_internal: what the catalog's files share (the field-table macros
 * of catalog entries); not part of the engine's public face. */
#ifndef MLVIZ_CATALOG_INTERNAL_H
#define MLVIZ_CATALOG_INTERNAL_H

#include <stddef.h>

#include "catalog.h"

#define HEAD(T)                                                                                    \
    {"id", FIELD_STR,      offsetof(T, head.id), 0, 0,    0,    "", NULL, 0,                       \
     "",   "lowercase id", FIELD_REQUIRED,       0, NULL, NULL, 0},                                \
        {"name",                                                                                   \
         FIELD_STR,                                                                                \
         offsetof(T, head.name),                                                                   \
         0,                                                                                        \
         FIELD_STR_LEN * 2,                                                                        \
         0,                                                                                        \
         "",                                                                                       \
         NULL,                                                                                     \
         0,                                                                                        \
         "",                                                                                       \
         "display name",                                                                           \
         FIELD_REQUIRED,                                                                           \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         0},                                                                                       \
        {"vendor", FIELD_STR, offsetof(T, head.vendor),                                            \
         0,        0,         0,                                                                   \
         "",       NULL,      0,                                                                   \
         "",       "maker",   0,                                                                   \
         0,        NULL,      NULL,                                                                \
         0},                                                                                       \
        {"year", FIELD_INT, offsetof(T, head.year), 1950, 2100, 2000, NULL, NULL,                  \
         0,      "",        "year of release",      0,    0,    NULL, NULL, 0},                    \
        {"source",                                                                                 \
         FIELD_STR,                                                                                \
         offsetof(T, head.source),                                                                 \
         0,                                                                                        \
         FIELD_STR_LEN * 4,                                                                        \
         0,                                                                                        \
         "",                                                                                       \
         NULL,                                                                                     \
         0,                                                                                        \
         "",                                                                                       \
         "datasheet or paper the figures come from",                                               \
         FIELD_REQUIRED,                                                                           \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         0},                                                                                       \
    {                                                                                              \
        "notes", FIELD_STR, offsetof(T, head.notes), 0, FIELD_STR_LEN * 4, 0, "", NULL, 0, "",     \
            "caveats", 0, 0, NULL, NULL, 0                                                         \
    }

/* Physical floors. A capacity of zero, or a subnormal one such as 4.9e-324,
 * passes "above 0" yet divides into inf; nothing real is slower than these:
 * 1 MB/s of bandwidth, 1 MB of memory, 1 GFLOP/s, 0.1 W, 1% efficiency. */
#define MIN_GBS    0.001
#define MIN_GB     0.001
#define MIN_TFLOPS 0.001
#define MIN_W      0.1
#define MIN_SHARE  0.01

#define NUM(T, key, member, lo, hi, dflt, unit, help, flags)                                       \
    {                                                                                              \
        key, FIELD_NUM, offsetof(T, member), lo, hi, dflt, NULL, NULL, 0, unit, help, flags, 0,    \
            NULL, NULL, 0                                                                          \
    }
#define INT(T, key, member, lo, hi, dflt, unit, help, flags)                                       \
    {                                                                                              \
        key, FIELD_INT, offsetof(T, member), lo, hi, dflt, NULL, NULL, 0, unit, help, flags, 0,    \
            NULL, NULL, 0                                                                          \
    }
/* The field table of serving entries (catalog_serving.c). */
enum { SERVING_FIELD_COUNT = 19 };
extern const struct field serving_fields[SERVING_FIELD_COUNT];

#endif
