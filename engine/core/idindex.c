/* idindex: open addressing with linear probing, kept at most half full. */
#include "idindex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a (Fowler, Noll, Vo): names are short words; any good spread will do. */
static size_t name_hash(const char *key)
{
    uint64_t h = 14695981039346656037u;
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        h = (h ^ *c) * 1099511628211u;
    return (size_t)h;
}

/* The slot holding `key`, or the empty slot where it would go. */
static size_t *slot_of(const struct idindex *ix, const char *key, idindex_key_fn key_at,
                       const void *ctx)
{
    size_t mask = ix->n_slots - 1;
    for (size_t i = name_hash(key) & mask;; i = (i + 1) & mask) {
        size_t *slot = &ix->slots[i];
        if (*slot == 0 || strcmp(key_at(ctx, *slot - 1), key) == 0)
            return slot;
    }
}

bool idindex_add(struct idindex *ix, size_t i, idindex_key_fn key_at, const void *ctx)
{
    if (2 * (ix->count + 1) > ix->n_slots) {
        size_t n = ix->n_slots ? 2 * ix->n_slots : 8;
        size_t *slots = calloc(n, sizeof *slots);
        if (!slots)
            return false;
        size_t *old = ix->slots, n_old = ix->n_slots;
        ix->slots = slots;
        ix->n_slots = n;
        for (size_t j = 0; j < n_old; j++)
            if (old[j])
                *slot_of(ix, key_at(ctx, old[j] - 1), key_at, ctx) = old[j];
        free(old);
    }
    *slot_of(ix, key_at(ctx, i), key_at, ctx) = i + 1;
    ix->count++;
    return true;
}

size_t idindex_find(const struct idindex *ix, const char *key, idindex_key_fn key_at,
                    const void *ctx)
{
    if (ix->n_slots == 0)
        return (size_t)-1;
    size_t slot = *slot_of(ix, key, key_at, ctx);
    return slot ? slot - 1 : (size_t)-1;
}

void idindex_free(struct idindex *ix)
{
    free(ix->slots);
    ix->slots = NULL;
    ix->n_slots = 0;
    ix->count = 0;
}
