/* libFuzzer target: arbitrary bytes as a Hugging Face config.json
 * (`model: {hf_config: PATH}`, `mlviz eval --model PATH`).
 *
 *   FUZZ_SECONDS=60 make fuzz        (builds with clang -fsanitize=fuzzer)
 *
 * Inputs must never crash, leak or trip the sanitizers; a refusal carries a
 * message naming the input and leaves the setup as it was; an accepted
 * config leaves every model field inside its range and the model a
 * transformer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfconfig.h"
#include "setup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_hfconfig: %s: %s\n", what, detail);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct setup before, s;
    setup_defaults(&before);
    s = before;
    char err[1024] = "";
    if (!hfconfig_apply_text(&s, "config.json", (const char *)data, size, err, sizeof err)) {
        if (strncmp(err, "config.json", 11) != 0)
            fail("a refusal does not name the input", err);
        if (memcmp(&s, &before, sizeof s) != 0)
            fail("a refused config changed the setup", err);
        return 0;
    }
    if (s.model.kind != MODEL_TRANSFORMER)
        fail("an accepted config is not a transformer", "");
    const struct field_table *t = setup_fields();
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        if (strncmp(f->path, "model.", 6) != 0 || (f->type != FIELD_INT && f->type != FIELD_NUM))
            continue;
        double v = fields_get_number(f, &s);
        if (!(v >= f->min && v <= f->max))
            fail("a model field left its range", f->path);
    }
    return 0;
}
