/* paths: the one resolver of preset and scenario names (tests run from the
 * repository root, which is the data directory). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

static int use_repository(void **state)
{
    (void)state;
    return setenv("MLVIZ_DATA", ".", 1);
}

static void test_names_and_paths(void **state)
{
    (void)state;
    char out[1200];
    paths_resolve(PATHS_PRESET, "default", out, sizeof out);
    assert_string_equal(out, "./scenarios/presets/default.yaml");
    /* Paths stay paths, even when a preset of that name exists. */
    paths_resolve(PATHS_PRESET, "./default", out, sizeof out);
    assert_string_equal(out, "./default");
    paths_resolve(PATHS_PRESET, "mine.yml", out, sizeof out);
    assert_string_equal(out, "mine.yml");
    assert_true(paths_is_path(PATHS_PRESET, "x.yaml"));
    assert_true(paths_is_path(PATHS_PRESET, "Makefile")); /* an existing file */
    assert_false(paths_is_path(PATHS_PRESET, "gpt3-175b-a100"));
    /* An unknown name is left for the loader to report. */
    paths_resolve(PATHS_PRESET, "no-such-preset", out, sizeof out);
    assert_string_equal(out, "no-such-preset");
    assert_false(paths_shipped(PATHS_PRESET, "no-such-preset", out, sizeof out));
    /* Scenarios: the extension is added when missing, and may be given. */
    paths_resolve(PATHS_SCENARIO, "cooling", out, sizeof out);
    assert_string_equal(out, "./scenarios/cooling.lua");
    paths_resolve(PATHS_SCENARIO, "cooling.lua", out, sizeof out);
    assert_string_equal(out, "./scenarios/cooling.lua");
    assert_false(paths_is_path(PATHS_SCENARIO, "cooling.lua"));
}

static void test_list_in_file_name_order(void **state)
{
    (void)state;
    static char names[256][PATHS_NAME_LEN];
    size_t n = paths_list(PATHS_SCENARIO, names, 256);
    assert_true(n >= 10);
    size_t cooling_failure = n, cooling = n;
    for (size_t i = 0; i < n; i++) {
        assert_null(strstr(names[i], ".lua"));
        if (strcmp(names[i], "cooling-failure") == 0)
            cooling_failure = i;
        if (strcmp(names[i], "cooling") == 0)
            cooling = i;
    }
    /* "cooling-failure.lua" sorts before "cooling.lua" ('-' < '.'). */
    assert_true(cooling_failure < cooling && cooling < n);
    n = paths_list(PATHS_PRESET, names, 256);
    assert_true(n >= 5);
    assert_string_equal(names[0], "default");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_paths),
        cmocka_unit_test(test_list_in_file_name_order),
    };
    return cmocka_run_group_tests(tests, use_repository, NULL);
}
