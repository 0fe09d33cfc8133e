/* libFuzzer target: arbitrary bytes through the YAML tree builder and the
 * strict setup loader (with the shipped catalog, loaded once), and, when a
 * setup loads, through resolve, get/set by path and the YAML writer.
 *
 *   FUZZ_SECONDS=60 make fuzz        (builds with clang -fsanitize=fuzzer)
 *
 * Run from the repository root (the catalog is read from assets/catalog, or
 * from $MLVIZ_DATA/assets/catalog). Inputs must never crash, leak or trip the
 * sanitizers; errors must always carry a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "fuzz_shipped_catalog.h"
#include "setup.h"
#include "yamldoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const char *what, const char *err)
{
    /* Every failure names the input and says something. */
    if (strncmp(err, "fuzz.yaml", 9) != 0 || strlen(err) < 12) {
        fprintf(stderr, "fuzz_setup: %s failed with a bad message: '%s'\n", what, err);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct catalog *cat = shipped_catalog();
    char err[1024];

    /* 1. The tree builder on the raw bytes (embedded NULs included). */
    err[0] = '\0';
    struct ydoc *doc = ydoc_load_string("fuzz.yaml", (const char *)data, size, err, sizeof err);
    if (doc) {
        /* walk the root a little: lookups and kind names must be safe */
        (void)ynode_kind_name(doc->root);
        (void)ynode_is_null(doc->root);
        (void)ynode_get(doc->root, "cluster");
        ydoc_free(doc);
    } else {
        check_error("ydoc_load_string", err);
    }

    /* 2. The setup loader on the same bytes as a C string (it stops at NUL). */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct setup s;
    setup_defaults(&s);
    struct setup before = s;
    err[0] = '\0';
    if (!setup_load_string(&s, "fuzz.yaml", text, cat, err, sizeof err)) {
        check_error("setup_load_string", err);
        if (memcmp(&s, &before, sizeof s) != 0) {
            fprintf(stderr, "fuzz_setup: a failed load changed the setup: %s\n", err);
            abort();
        }
        free(text);
        return 0;
    }
    free(text);

    /* 3. A setup that loads must resolve, and survive get/set and the writer. */
    struct resolved r;
    if (!setup_resolve(&s, cat, &r, err, sizeof err)) {
        fprintf(stderr, "fuzz_setup: loaded but does not resolve: %s\n", err);
        abort();
    }
    char buf[256];
    const struct field_table *t = setup_fields();
    for (size_t i = 0; i < t->count; i++) {
        if (!setup_get(&s, t->fields[i].path, buf, sizeof buf, err, sizeof err))
            abort();
        struct setup copy = s;
        /* setting a field to its own formatted value must succeed */
        if (!setup_set(&copy, t->fields[i].path, buf, err, sizeof err) &&
            t->fields[i].type != FIELD_NUM) {
            fprintf(stderr, "fuzz_setup: %s = '%s' does not set back: %s\n", t->fields[i].path, buf,
                    err);
            abort();
        }
    }
    /* The writer's output loads back to a setup that writes the same text. */
    static char yaml[16384], again[16384];
    setup_write_yaml(&s, yaml, sizeof yaml);
    struct setup back;
    setup_defaults(&back);
    if (!setup_load_string(&back, "fuzz.yaml", yaml, cat, err, sizeof err)) {
        fprintf(stderr, "fuzz_setup: the written setup does not load back: %s\n%s\n", err, yaml);
        abort();
    }
    setup_write_yaml(&back, again, sizeof again);
    if (strcmp(yaml, again) != 0) {
        fprintf(stderr, "fuzz_setup: written, loaded and written again differs:\n%s\n---\n%s\n",
                yaml, again);
        abort();
    }
    return 0;
}
