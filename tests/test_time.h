/* Hang guards in tests: a check that something ends "within N seconds" is
 * there to turn a regression that never ends into a failure, not to measure
 * speed (speed goals live in `make bench`). Under valgrind everything runs
 * tens of times slower, so tests/run.sh sets MLVIZ_TEST_TIME_FACTOR and the
 * guards stretch by it. Included by test programs only. */
#ifndef MLVIZ_TESTS_TEST_TIME_H
#define MLVIZ_TESTS_TEST_TIME_H

#include <stdlib.h>

static double test_time_factor(void)
{
    const char *v = getenv("MLVIZ_TEST_TIME_FACTOR");
    double f = v ? strtod(v, NULL) : 1.0;
    return f >= 1.0 && f <= 1000.0 ? f : 1.0;
}

#endif
