/* The shipped catalog for fuzz targets, loaded once per process from
 * assets/catalog (run from the repository root) or $MLVIZ_DATA/assets/catalog.
 * Included by fuzz targets only. */
#ifndef MLVIZ_FUZZ_SHIPPED_CATALOG_H
#define MLVIZ_FUZZ_SHIPPED_CATALOG_H

#include <stdio.h>
#include <stdlib.h>

#include "catalog.h"

static const struct catalog *shipped_catalog(void)
{
    static struct catalog *cat;
    if (cat)
        return cat;
    char err[1024], dir[1100];
    const char *env = getenv("MLVIZ_DATA");
    snprintf(dir, sizeof dir, "%s/assets/catalog", env && env[0] ? env : ".");
    cat = catalog_new();
    if (!cat || !catalog_load_dir(cat, dir, err, sizeof err)) {
        fprintf(stderr, "fuzz: cannot load the catalog from %s: %s\n", dir, cat ? err : "");
        abort();
    }
    return cat;
}

#endif
