/* libFuzzer target: arbitrary bytes through the reader of `mlviz plan
 * --shard` partial results (what `mlviz plan --merge` reads), then, for an
 * accepted file, its setup through the setup loader and its space through
 * the planner's space builder with the shipped catalog (loaded once).
 *
 *   FUZZ_SECONDS=60 make fuzz        (builds with clang -fsanitize=fuzzer)
 *
 * Inputs must never crash, hang, leak or trip the sanitizers; refusals carry
 * a message that names the input and its line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_shipped_catalog.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_plan_partial: %s: %s\n", what, detail);
    abort();
}

static struct plan_space space; /* large: not on the stack */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct catalog *cat = shipped_catalog();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct plan_partial p;
    char err[1024] = "";
    bool ok = plan_parse_partial("part.txt", text, size, &p, err, sizeof err);
    free(text);
    if (!ok) {
        if (strncmp(err, "part.txt", 8) != 0 || strlen(err) < 11)
            fail("failed with a bad message", err);
        return 0;
    }
    if (!p.setup_yaml)
        fail("accepted without a setup", "setup_yaml is NULL");
    struct setup s;
    if (setup_load_string(&s, "part.txt", p.setup_yaml, cat, err, sizeof err)) {
        /* The options were checked when read; the space may still be refused
         * (too many values for this setup), never crash. */
        if (plan_space_build(&space, &s, &p.spec, cat, err, sizeof err) && space.candidates) {
            for (size_t i = 0; i < p.n_top && i < 4; i++) {
                struct setup c;
                plan_space_setup(&space, p.top[i] % space.candidates, &c);
            }
        }
    }
    plan_partial_free(&p);
    return 0;
}
