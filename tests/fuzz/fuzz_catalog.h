/* The shipped catalog for fuzz targets, loaded once from assets/catalog (or
 * $MLVIZ_DATA/assets/catalog); aborts when it cannot be read. Included by
 * fuzz targets only. */
#ifndef MLVIZ_TESTS_FUZZ_CATALOG_H
#define MLVIZ_TESTS_FUZZ_CATALOG_H

#include <stdio.h>
#include <stdlib.h>

#include "catalog.h"

static struct catalog *fuzz_catalog(void)
{
    static struct catalog *cat;
    if (cat)
        return cat;
    char err[1024], dir[1100];
    const char *env = getenv("MLVIZ_DATA");
    snprintf(dir, sizeof dir, "%s/assets/catalog", env && env[0] ? env : ".");
    cat = catalog_new();
    if (!cat || !catalog_load_dir(cat, dir, err, sizeof err)) {
        fprintf(stderr, "fuzz: cannot load the catalog from %s: %s\n", dir, err);
        abort();
    }
    return cat;
}

#endif
