/* catalog_rules: the fields of a software entry that state what the stack
 * can run (issue 20), a fragment of the software field table of catalog.c
 * kept apart. Each rule has a source field; setup_stack.c quotes it. */
#ifndef MLVIZ_CATALOG_RULES_H
#define MLVIZ_CATALOG_RULES_H

#include <stddef.h>

#include "catalog.h"
#include "fields.h"

const char *const interleave_rule_names[] = {"none", "multiple", "at-least", NULL};

/* i20: the source of one of a stack's rules (what it can run). */
#define SOURCE_OF(key, member, what)                                                               \
    {                                                                                              \
        key, FIELD_STR, offsetof(struct software, member), 0, SOFTWARE_SOURCE_LEN, 0, "", NULL, 0, \
            "", "source of " what, 0, 0, NULL, NULL, 0                                             \
    }

#define SOFTWARE_RULE_FIELDS                                                                       \
    {"flash_attention",                                                                            \
     FIELD_BOOL,                                                                                   \
     offsetof(struct software, flash_attention),                                                   \
     0,                                                                                            \
     1,                                                                                            \
     1,                                                                                            \
     NULL,                                                                                         \
     NULL,                                                                                         \
     0,                                                                                            \
     "",                                                                                           \
     "runs fused (flash) attention kernels (training.flash_attention)",                            \
     0,                                                                                            \
     0,                                                                                            \
     NULL,                                                                                         \
     NULL,                                                                                         \
     0},                                                                                           \
        INT(struct software, "zero_stage_with_pp", zero_stage_with_pp, 0, 3, 3, "",                \
            "highest ZeRO stage the stack runs beside pipeline parallelism", 0),                   \
        {"interleave",                                                                             \
         FIELD_ENUM,                                                                               \
         offsetof(struct software, interleave),                                                    \
         0,                                                                                        \
         0,                                                                                        \
         INTERLEAVE_AT_LEAST,                                                                      \
         NULL,                                                                                     \
         interleave_rule_names,                                                                    \
         0,                                                                                        \
         "",                                                                                       \
         "interleaved pipeline: none, micro-batches a multiple of the stages, or at least the "    \
         "stages",                                                                                 \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         0},                                                                                       \
        {"sequence_parallel",                                                                      \
         FIELD_BOOL,                                                                               \
         offsetof(struct software, sequence_parallel),                                             \
         0,                                                                                        \
         1,                                                                                        \
         1,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         0,                                                                                        \
         "",                                                                                       \
         "runs sequence parallelism beside tensor parallelism",                                    \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         NULL,                                                                                     \
         0},                                                                                       \
        SOURCE_OF("zero_source", zero_source, "ZeRO stages and their combination with pipelines"), \
        SOURCE_OF("flash_attention_source", flash_attention_source, "flash_attention"),            \
        SOURCE_OF("interleave_source", interleave_source, "interleave"),                           \
        SOURCE_OF("sequence_parallel_source", sequence_parallel_source, "sequence_parallel"),      \
        SOURCE_OF("context_parallel_source", context_parallel_source, "context_parallel"),         \
        SOURCE_OF("tp_overlap_source", tp_overlap_source,                                          \
                  "tp_comm_overlap (credited inside the scale-up domain only)"),

#endif
