/* libFuzzer target: arbitrary bytes through the catalog loader, as if they
 * were a user's catalog file (`--catalog DIR`).
 *
 *   FUZZ_SECONDS=60 make fuzz        (builds with clang -fsanitize=fuzzer)
 *
 * Inputs must never crash, leak or trip the sanitizers; a failure must carry
 * a message naming the input; every entry that loads must hold only values
 * inside its field's range (no NaN, inf, zero capacity or subnormal), a
 * valid id and inlet below limit; and loading the same text again must
 * override, not duplicate, its entries. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_catalog: %s: %s\n", what, detail);
    abort();
}

/* Every number of every entry lies in its field's range. */
static void check_entries(const struct catalog *cat)
{
    for (int k = 0; k < CATALOG_KIND_COUNT; k++) {
        const struct field_table *t = catalog_fields((enum catalog_kind)k);
        for (size_t i = 0; i < catalog_count(cat, (enum catalog_kind)k); i++) {
            const void *e = catalog_entry(cat, (enum catalog_kind)k, i);
            const struct catalog_head *h = e;
            if (!h->id[0] || catalog_find(cat, (enum catalog_kind)k, h->id) != e)
                fail("id does not find its entry", h->id);
            for (size_t j = 0; j < t->count; j++) {
                const struct field *f = &t->fields[j];
                if (f->type != FIELD_INT && f->type != FIELD_NUM)
                    continue;
                double v = fields_get_number(f, e);
                if ((f->flags & FIELD_NULLABLE) && v == FIELD_ABSENT)
                    continue;
                if (!isfinite(v) || v < f->min || v > f->max ||
                    ((f->flags & FIELD_EXCL_MIN) && v <= f->min))
                    fail("value outside its range", f->path);
            }
            if (k == CATALOG_COOLING) {
                const struct cooling *c = e;
                if (!(c->inlet_c < c->limit_c))
                    fail("inlet not below limit", h->id);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    struct catalog *cat = catalog_new();
    if (!cat)
        return 0;
    err[0] = '\0';
    if (!catalog_load_string(cat, "fuzz.yaml", (const char *)data, size, err, sizeof err)) {
        if (strncmp(err, "fuzz.yaml", 9) != 0 || strlen(err) < 12)
            fail("failed with a bad message", err);
        catalog_free(cat);
        return 0;
    }
    check_entries(cat);
    size_t counts[CATALOG_KIND_COUNT];
    for (int k = 0; k < CATALOG_KIND_COUNT; k++)
        counts[k] = catalog_count(cat, (enum catalog_kind)k);
    /* The same file again (a user copy of a shipped file) overrides. */
    if (!catalog_load_string(cat, "fuzz.yaml", (const char *)data, size, err, sizeof err))
        fail("loads once but not twice", err);
    for (int k = 0; k < CATALOG_KIND_COUNT; k++)
        if (catalog_count(cat, (enum catalog_kind)k) != counts[k])
            fail("reloading changed the number of entries", catalog_kind_names[k]);
    check_entries(cat);
    catalog_free(cat);
    return 0;
}
