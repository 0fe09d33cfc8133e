/* libFuzzer target: the physical invariants of issue 20 over setups decoded
 * from the fuzzer's bytes. The bytes drive the property tests' generator
 * (tests/unit/engine/gen_setup.c: every field of the setup table, a model
 * shape and a layout over 1 to 100,000 devices, the 2026 mechanisms,
 * repaired until it resolves); every invariant of tests/unit/engine/invariants.c must hold,
 * else the target aborts with the violation. Run from the repository root
 * (or set MLVIZ_DATA). `make fuzz` runs it for FUZZ_SECONDS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_shipped_catalog.h"
#include "model.h"
#include "setup.h"

#include "../unit/engine/gen_setup.c"
#include "../unit/engine/invariants.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct catalog *cat = shipped_catalog();
    struct gen_src g;
    gen_src_bytes(&g, data, size);
    struct setup s;
    struct resolved r;
    if (!gen_setup(&g, cat, &s, &r))
        return 0;
    char msg[512];
    long evals = 0;
    if (!inv_check_setup(&s, &r, msg, sizeof msg, &evals)) {
        static char yaml[16384];
        setup_write_yaml(&s, yaml, sizeof yaml);
        fprintf(stderr, "invariant violated: %s\n%s\n", msg, yaml);
        abort();
    }
    return 0;
}
