/* The shipped catalog for fuzz targets: shipped_catalog() of the one test
 * catalog fixture (tests/catalog_fixture.h). */
#ifndef MLVIZ_FUZZ_SHIPPED_CATALOG_H
#define MLVIZ_FUZZ_SHIPPED_CATALOG_H

#define CATALOG_FIXTURE_NO_GROUP
#include "../catalog_fixture.h"

#endif
