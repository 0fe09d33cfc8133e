/* The shipped catalog for tests, loaded the one way every test program and
 * fuzz target uses: from $MLVIZ_DATA/assets/catalog, or assets/catalog of
 * the current directory (tests run from the repository root).
 *
 *   catalog_fixture_load()  a new catalog, NULL with the reason on stderr;
 *   load_catalog/free_catalog  a cmocka group fixture that fills `cat`;
 *   shipped_catalog()  one catalog per process for fuzz targets (aborts
 *                      when it does not load).
 *
 * Included by test programs only; every function is static and marked
 * unused, so a program takes the part it needs. */
#ifndef MLVIZ_TESTS_CATALOG_FIXTURE_H
#define MLVIZ_TESTS_CATALOG_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "catalog.h"

#define CATALOG_FIXTURE_UNUSED __attribute__((unused))

static CATALOG_FIXTURE_UNUSED struct catalog *catalog_fixture_load(void)
{
    char err[1024], dir[1100];
    const char *env = getenv("MLVIZ_DATA");
    snprintf(dir, sizeof dir, "%s/assets/catalog", env && env[0] ? env : ".");
    struct catalog *c = catalog_new();
    if (!c || !catalog_load_dir(c, dir, err, sizeof err)) {
        fprintf(stderr, "cannot load the catalog from %s: %s\n", dir, c ? err : "out of memory");
        catalog_free(c);
        return NULL;
    }
    return c;
}

/* Programs whose functions name their own `cat` (fuzz targets, some tests)
 * define CATALOG_FIXTURE_NO_GROUP and leave the group fixture out. */
#ifndef CATALOG_FIXTURE_NO_GROUP
static CATALOG_FIXTURE_UNUSED struct catalog *cat;

static CATALOG_FIXTURE_UNUSED int load_catalog(void **state)
{
    (void)state;
    cat = catalog_fixture_load();
    return cat ? 0 : -1;
}

static CATALOG_FIXTURE_UNUSED int free_catalog(void **state)
{
    (void)state;
    catalog_free(cat);
    cat = NULL;
    return 0;
}
#endif

static CATALOG_FIXTURE_UNUSED const struct catalog *shipped_catalog(void)
{
    static struct catalog *once;
    if (!once && !(once = catalog_fixture_load()))
        abort();
    return once;
}

#endif
