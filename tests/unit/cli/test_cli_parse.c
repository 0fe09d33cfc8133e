/* cli_parse: options parsed by the command table (tui/cli/commands.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli.h"

struct seen {
    char log[512];
    int fail_on_value; /* on_option fails for the value "bad" */
};

static int record(void *ctx, const char *name, const char *value)
{
    struct seen *s = ctx;
    size_t used = strlen(s->log);
    snprintf(s->log + used, sizeof s->log - used, "%s=%s;", name, value ? value : "(switch)");
    return value && strcmp(value, "bad") == 0 ? -1 : 0;
}

static int parse(struct seen *s, const char *command, const char **pos, int max_pos, int argc,
                 const char **argv)
{
    memset(s, 0, sizeof *s);
    return cli_parse(command, argc, (char **)argv, record, s, pos, max_pos);
}

static void test_values_switches_and_positionals(void **state)
{
    (void)state;
    struct seen s;
    const char *pos[2] = {NULL, NULL};
    const char *argv[] = {"eval",     "default", "--format", "json", "--set=a.b=1",
                          "--strict", "--set",   "c=2",      NULL};
    assert_int_equal(parse(&s, "eval", pos, 1, 8, argv), 1);
    assert_string_equal(pos[0], "default");
    assert_string_equal(s.log, "--format=json;--set=a.b=1;--strict=(switch);--set=c=2;");
    const char *stdin_arg[] = {"check", "-", NULL};
    assert_int_equal(parse(&s, "check", pos, 1, 2, stdin_arg), 1);
    assert_string_equal(pos[0], "-");
}

static void test_errors(void **state)
{
    (void)state;
    struct seen s;
    const char *pos[1];
    const char *unknown[] = {"eval", "--nope", NULL};
    assert_int_equal(parse(&s, "eval", pos, 1, 2, unknown), CLI_PARSE_ERROR);
    /* A switch of one command is unknown to another. */
    const char *not_here[] = {"check", "--strict", NULL};
    assert_int_equal(parse(&s, "check", pos, 1, 2, not_here), CLI_PARSE_ERROR);
    const char *missing[] = {"eval", "x", "--format", NULL};
    assert_int_equal(parse(&s, "eval", pos, 1, 3, missing), CLI_PARSE_ERROR);
    const char *empty[] = {"eval", "x", "--format=", NULL};
    assert_int_equal(parse(&s, "eval", pos, 1, 3, empty), CLI_PARSE_ERROR);
    assert_string_equal(s.log, ""); /* never handed on */
    const char *two[] = {"eval", "a", "b", NULL};
    assert_int_equal(parse(&s, "eval", pos, 1, 3, two), CLI_PARSE_ERROR);
    const char *rejected[] = {"eval", "x", "--format", "bad", NULL};
    assert_int_equal(parse(&s, "eval", pos, 1, 4, rejected), CLI_PARSE_ERROR);
    /* A switch takes no inline value. */
    const char *inline_switch[] = {"eval", "x", "--strict=1", NULL};
    assert_int_equal(parse(&s, "eval", pos, 1, 3, inline_switch), CLI_PARSE_ERROR);
}

static void test_help(void **state)
{
    (void)state;
    struct seen s;
    const char *help[] = {"fields", "--format", "csv", "-h", NULL};
    assert_int_equal(parse(&s, "fields", NULL, 0, 4, help), CLI_PARSE_HELP);
    assert_int_equal(cli_parse_exit(CLI_PARSE_HELP), EXIT_OK);
    assert_int_equal(cli_parse_exit(CLI_PARSE_ERROR), EXIT_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_switches_and_positionals),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
