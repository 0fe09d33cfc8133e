/* setup_internal: shared by setup.c and setup_check.c (not a public face). */
#ifndef MLVIZ_SETUP_INTERNAL_H
#define MLVIZ_SETUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "setup.h"

/* A failed check: writes the message (only when the caller gave room for
 * one: the planner asks with err_len 0, since a candidate it drops needs no
 * sentence and formatting them was 29% of a search), names the field to
 * blame and, for when that field is not written in the file, the one to
 * point at instead, and returns false from the checking function. */
#define FAIL_AT(path, alt, ...)                                                                    \
    do {                                                                                           \
        if (err_len > 0)                                                                           \
            snprintf(err, err_len, __VA_ARGS__);                                                   \
        bad_path[0] = path;                                                                        \
        bad_path[1] = alt;                                                                         \
        return false;                                                                              \
    } while (0)
#define FAIL(path, ...) FAIL_AT(path, NULL, __VA_ARGS__)

/* Resolves the catalog references into r and runs every cross-check. On
 * failure bad_path[0] names the field to blame and bad_path[1] (or NULL)
 * the one to point at when the first is not written in the file. */
bool setup_check(const struct setup *s, const struct catalog *cat, struct resolved *r, char *err,
                 size_t err_len, const char *bad_path[2]);
/* setup_check for a setup just loaded, whose training.tensor_parallel may
 * still be auto (0): it passes when some power of two would. */
bool setup_check_loaded(const struct setup *s, const struct catalog *cat, struct resolved *r,
                        char *msg, size_t msg_len, const char *bad[2]);

/* The inference section's cross-checks (setup_infer.c): replica size,
 * heads over tensor ranks, number formats the device has. */
bool setup_check_inference(const struct setup *s, const struct resolved *r, char *err,
                           size_t err_len, const char *bad_path[2]);
/* The checks of the 2026 fields (setup_check_2026.c), same contract. */
bool setup_check_2026(const struct setup *s, const struct resolved *r, char *err, size_t err_len,
                      const char *bad_path[2]);
/* The rules of the training stack (setup_stack.c): ZeRO stages and their
 * combination with pipelines, flash attention, interleaving, sequence and
 * context parallelism, each refusal quoting the rule's source. */
bool setup_check_stack(const struct setup *s, const struct software *sw, char *err, size_t err_len,
                       const char *bad_path[2]);

#endif
