/* idindex: a hash index from names to positions in an array the caller owns.
 *
 * Used for the keys of a YAML mapping and the ids of catalog entries, so
 * lookups and duplicate checks are constant time instead of a scan (a file
 * with 60,000 keys loads in milliseconds, not seconds). The index stores
 * positions only; `key_at` reads the name at a position from the caller's
 * array. */
#ifndef MLVIZ_IDINDEX_H
#define MLVIZ_IDINDEX_H

#include <stdbool.h>
#include <stddef.h>

typedef const char *(*idindex_key_fn)(const void *ctx, size_t i);

struct idindex {
    size_t *slots;  /* position + 1, 0 for an empty slot */
    size_t n_slots; /* a power of two, or 0 */
    size_t count;   /* positions indexed */
};

/* Index position `i` (the caller's array already holds its name at i; names
 * are unique: look up first). False when out of memory. */
bool idindex_add(struct idindex *ix, size_t i, idindex_key_fn key_at, const void *ctx);
/* Position of `key`, or (size_t)-1 when absent. */
size_t idindex_find(const struct idindex *ix, const char *key, idindex_key_fn key_at,
                    const void *ctx);
void idindex_free(struct idindex *ix);

#endif
