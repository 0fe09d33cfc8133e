/* `mlviz sim --format json|csv` names the sim counters as counter_fields
 * does: its keys are the run's own (setup, duration_s, seed, ...), the
 * comparison with the model, and exactly the table's keys, in the table's
 * order (a STAGES counter is an object, or one CSV column per stage). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "counter_fields.h"
#include "stages.h"

/* Keys `mlviz sim` prints besides the counters. */
static const char *const run_keys[] = {
    "setup",  "duration_s",  "seed",    "tick_s", "tick_auto",
    "jitter", "failures_on", "thermal", "events", "analytic_tokens_per_s",
    "ratio",  "goodput"};
enum { RUN_KEYS = sizeof run_keys / sizeof run_keys[0], MAX_KEYS = 128 };

/* Runs `mlviz sim default ...` and returns its standard output (free it). */
static char *run_sim(const char *format)
{
    char *argv[] = {"sim",        "scenarios/presets/default.yaml",
                    "--duration", "2m",
                    "--catalog",  "assets/catalog",
                    "--format",   (char *)format,
                    NULL};
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
    int rc = cmd_sim(8, argv);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    assert_int_equal(rc, 0);
    long n = ftell(tmp);
    assert_true(n > 0);
    char *text = calloc((size_t)n + 1, 1);
    assert_non_null(text);
    rewind(tmp);
    assert_int_equal(fread(text, 1, (size_t)n, tmp), (size_t)n);
    fclose(tmp);
    return text;
}

static bool is_run_key(const char *key)
{
    for (int i = 0; i < RUN_KEYS; i++)
        if (strcmp(key, run_keys[i]) == 0)
            return true;
    return false;
}

/* The keys of the pretty JSON at one indent ("  " top level). */
static int json_keys(const char *text, const char *indent, char keys[][64])
{
    int n = 0;
    size_t in = strlen(indent);
    for (const char *line = text; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, indent, in) != 0 || line[in] != '"')
            continue;
        const char *end = strchr(line + in + 1, '"');
        assert_non_null(end);
        assert_true(n < MAX_KEYS);
        snprintf(keys[n], 64, "%.*s", (int)(end - line - in - 1), line + in + 1);
        n++;
    }
    return n;
}

static void test_json_keys_are_the_table(void **state)
{
    (void)state;
    char *text = run_sim("json");
    static char keys[MAX_KEYS][64];
    int n = json_keys(text, "  ", keys);
    size_t next = 0; /* the table row expected next */
    int run = 0;
    for (int i = 0; i < n; i++) {
        if (is_run_key(keys[i])) {
            run++;
            continue;
        }
        assert_true(next < counter_field_count);
        assert_string_equal(keys[i], counter_fields[next].key);
        next++;
    }
    assert_int_equal(next, counter_field_count);
    assert_int_equal(run, RUN_KEYS);
    /* the stage objects, keyed by stage name */
    static char inner[MAX_KEYS][64];
    int m = json_keys(text, "    ", inner);
    int stages_rows = 0;
    for (size_t i = 0; i < counter_field_count; i++)
        stages_rows += counter_fields[i].type == COUNTER_STAGES;
    assert_int_equal(m, stages_rows * STAGE_COUNT);
    for (int i = 0; i < m; i++)
        assert_string_equal(inner[i], stage_table[i % STAGE_COUNT].name);
    free(text);
}

static void test_csv_header_is_the_table(void **state)
{
    (void)state;
    char *text = run_sim("csv");
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    *nl = '\0';
    size_t next = 0;
    int stage = 0;
    for (char *col = strtok(text, ","); col; col = strtok(NULL, ",")) {
        if (is_run_key(col))
            continue;
        assert_true(next < counter_field_count);
        const struct counter_field *f = &counter_fields[next];
        if (f->type == COUNTER_STAGES) {
            char want[96];
            snprintf(want, sizeof want, "%s.%s", f->key, stage_table[stage].name);
            assert_string_equal(col, want);
            if (++stage < STAGE_COUNT)
                continue;
            stage = 0;
        } else {
            assert_string_equal(col, f->key);
        }
        next++;
    }
    assert_int_equal(next, counter_field_count);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_keys_are_the_table),
        cmocka_unit_test(test_csv_header_is_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
