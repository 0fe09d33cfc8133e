/* gen_setup: random valid setups for the property tests of issue 20
 * (tests/unit/engine/test_invariants.c, tests/fuzz/fuzz_invariants.c).
 *
 * A draw starts from the defaults, gives every field of the setup's field
 * table a random value (so a field added to the table joins the draws by
 * itself), then draws a consistent model shape and layout over 1 to
 * 100,000 devices (dense and MoE transformers, generic models) and repairs
 * what setup_resolve still refuses by putting the blamed field back to its
 * default. The randomness comes from a seed or from fuzzer bytes.
 *
 * Included (as .c) by the programs that use it; not a library. */
#ifndef MLVIZ_TESTS_GEN_SETUP_H
#define MLVIZ_TESTS_GEN_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "setup.h"

/* Where the draws come from: fuzzer bytes (data != NULL; zeros once they
 * run out) or a splitmix64 stream. */
struct gen_src {
    const uint8_t *data;
    size_t size, pos;
    uint64_t state;
};

void gen_src_seed(struct gen_src *g, uint64_t seed);
void gen_src_bytes(struct gen_src *g, const uint8_t *data, size_t size);
uint64_t gen_u64(struct gen_src *g);

/* Draws one setup that resolves against cat into s and r; false when this
 * draw found none (draw again). */
bool gen_setup(struct gen_src *g, const struct catalog *catalog, struct setup *s,
               struct resolved *r);

/* Why the field at `path` is never drawn; NULL for a drawn field. */
const char *gen_not_drawn_reason(const char *path);

#endif
