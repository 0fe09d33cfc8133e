/* cli_parse: options parsed by the command table (tui/cli/commands.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

struct seen {
    char log[2048];
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

/* Every row of the table dump (command, option, alias, type, a value it
 * takes, a value it refuses) through the parser: the option with its good
 * value reaches the handler under its own name (by its alias too); with
 * the bad value the parser refuses it before the handler sees it. */
static void test_every_table_option(void **state)
{
    (void)state;
    static char dump[65536];
    FILE *f = fmemopen(dump, sizeof dump, "w");
    assert_non_null(f);
    commands_table_dump(f);
    fclose(f);
    int rows = 0;
    for (char *save = NULL, *line = strtok_r(dump, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char cmd[64], opt[64], alias[64], type[64], good[160], bad[160];
        assert_int_equal(sscanf(line, "%63[^\t]\t%63[^\t]\t%63[^\t]\t%63[^\t]\t%159[^\t]\t%159s",
                                cmd, opt, alias, type, good, bad),
                         6);
        const char *command = strcmp(cmd, "-") == 0 ? "" : cmd;
        bool is_switch = strcmp(type, "switch") == 0;
        if (!is_switch && strcmp(good, "-") == 0)
            continue; /* the themes: the screen's table, which these tests do not link */
        const char *names[2] = {opt, alias};
        for (int k = 0; k < 2; k++) {
            if (strcmp(names[k], "-") == 0)
                continue;
            const char *argv[] = {"x", names[k], is_switch ? NULL : good, NULL};
            struct seen s;
            const char *pos[4];
            int n = parse(&s, command, pos, 4, is_switch ? 2 : 3, argv);
            if (n < 0 || strncmp(s.log, opt, strlen(opt)) != 0)
                fail_msg("mlviz %s %s %s: parsed %d, handed on '%s'", cmd, names[k],
                         is_switch ? "" : good, n, s.log);
        }
        if (strcmp(bad, "-") != 0) {
            const char *argv[] = {"x", opt, bad, NULL};
            struct seen s;
            const char *pos[4];
            if (parse(&s, command, pos, 4, 3, argv) != CLI_PARSE_ERROR || s.log[0])
                fail_msg("mlviz %s %s %s was not refused (handed on '%s')", cmd, opt, bad, s.log);
        }
        rows++;
    }
    assert_true(rows > 80);
}

/* A word no command's table has is refused by every command (but run and
 * play, which hand it to the script). */
static void test_options_outside_the_table(void **state)
{
    (void)state;
    const struct commands_spec *c;
    for (size_t i = 0; (c = commands_at(i)) != NULL; i++) {
        const char *argv[] = {"x", "--no-such-option", NULL};
        struct seen s;
        const char *pos[4];
        int n = parse(&s, c->name, pos, 4, 2, argv);
        if (c->flags & COMMANDS_SCRIPT_WORDS)
            assert_int_equal(n, 1);
        else if (n != CLI_PARSE_ERROR)
            fail_msg("mlviz %s took --no-such-option", c->name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_switches_and_positionals),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_every_table_option),
        cmocka_unit_test(test_options_outside_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
