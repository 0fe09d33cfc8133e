/* A cmocka group fixture that loads the shipped catalog once (tests run
 * from the repository root). Included by test programs only. */
#ifndef MLVIZ_TESTS_CATALOG_FIXTURE_H
#define MLVIZ_TESTS_CATALOG_FIXTURE_H

#include <stdio.h>

#include "catalog.h"

static struct catalog *cat;

static int load_catalog(void **state)
{
    (void)state;
    char err[512];
    cat = catalog_new();
    if (!catalog_load_dir(cat, "assets/catalog", err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int free_catalog(void **state)
{
    (void)state;
    catalog_free(cat);
    return 0;
}

#endif
