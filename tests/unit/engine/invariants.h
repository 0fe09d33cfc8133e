/* invariants: the physical invariants of issue 20, checked on one resolved
 * setup by evaluating it and variants of it (faster links, more HBM
 * bandwidth, a higher peak, overlaps on, more memory, full recomputation,
 * and the 2026 mechanisms: a higher power limit, more offloaded layers, a
 * higher capacity factor, LoRA, multi-token prediction, bf16 gradients).
 * Used by tests/unit/engine/test_invariants.c and tests/fuzz/
 * fuzz_invariants.c; included as .c, not a library.
 *
 * The predicates are separate so that a test can break each one on purpose
 * (feed it a report that violates it) and see it fail. */
#ifndef MLVIZ_TESTS_INVARIANTS_H
#define MLVIZ_TESTS_INVARIANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "setup.h"

/* The executed FLOP rate never exceeds the peak at the clocks the model
 * runs (power limit and cooling throttle); HFU never exceeds the executed
 * rate nor 1; MFU never exceeds HFU in its own convention. */
bool inv_rates(const struct model_report *o, char *msg, size_t len);
/* Every layer of a transformer sits on exactly one pipeline stage. */
bool inv_layers_placed(const struct setup *s, char *msg, size_t len);
/* `better` (one resource improved, or an overlap turned on) never turns a
 * setup that makes progress into one that cannot run (a power limit or a
 * cooling limit holding the clocks below the device's lowest, racks that
 * cannot be cooled). */
bool inv_still_runs(const char *what, const struct model_report *base,
                    const struct model_report *better, char *msg, size_t len);
/* `better` (one resource improved, or an overlap turned on) is never
 * slower, and still runs (inv_still_runs). */
bool inv_not_slower(const char *what, const struct model_report *base,
                    const struct model_report *better, char *msg, size_t len);
/* An overlap turned on (`on`) is never slower than `off` but by the ratio
 * of their clocks, where a cooling limit lowered them (the power side of
 * overlap). */
bool inv_overlap_not_slower(const char *what, const struct model_report *off,
                            const struct model_report *on, char *msg, size_t len);
/* More memory capacity leaves the step of a setup that fits unchanged. */
bool inv_same_step(const char *what, const struct model_report *base,
                   const struct model_report *more, char *msg, size_t len);
/* A change that saves memory (`less`: one more offloaded layer, LoRA, bf16
 * gradients) never raises the device memory of `base`. */
bool inv_not_more_memory(const char *what, const struct model_report *base,
                         const struct model_report *less, char *msg, size_t len);
/* A change that adds work (`more`: a higher capacity factor, one more MTP
 * module) never lowers the executed FLOPs of `base`. */
bool inv_not_fewer_flops(const char *what, const struct model_report *base,
                         const struct model_report *more, char *msg, size_t len);
/* Full recomputation is never faster than none when both fit. */
bool inv_recompute(const struct model_report *none, const struct model_report *full, char *msg,
                   size_t len);
/* A TP overlap share changes nothing where the TP group leaves the
 * scale-up domain (no userbuffers across nodes). */
bool inv_tp_overlap_domain(const struct model_report *with, const struct model_report *without,
                           char *msg, size_t len);

/* Every invariant on setup s (resolved as r); false with the first
 * violation in msg. *evals counts the model evaluations. */
bool inv_check_setup(const struct setup *s, const struct resolved *r, char *msg, size_t len,
                     long *evals);

#endif
