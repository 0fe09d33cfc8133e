/* The command table (tui/cli/commands.c): lookup with aliases and inline
 * values, the view's options in play and lesson, choices drawn from their
 * tables, and what is generated from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "commands.h"

static void test_find_names_aliases_and_values(void **state)
{
    (void)state;
    const struct commands_spec *view = commands_find("");
    assert_non_null(view);
    const struct commands_option *o = commands_option_find(view, "--speed");
    assert_non_null(o);
    assert_string_equal(o->name, "--speed");
    assert_int_equal(o->value, VALUE_NUMBER);
    assert_ptr_equal(commands_option_find(view, "--speed=3600"), o);
    o = commands_option_find(view, "-c");
    assert_non_null(o);
    assert_string_equal(o->name, "--setup");
    o = commands_option_find(view, "--no-color");
    assert_non_null(o);
    assert_string_equal(o->name, "--mono");
    assert_int_equal(o->value, VALUE_NONE);
    assert_non_null(commands_option_find(commands_find("plan"), "-q"));
}

static void test_find_rejects_near_misses(void **state)
{
    (void)state;
    const struct commands_spec *view = commands_find("");
    assert_null(commands_option_find(view, "--speedy"));
    assert_null(commands_option_find(view, "--spee"));
    assert_null(commands_option_find(view, "-cx"));
    assert_null(commands_option_find(view, "speed"));
    assert_null(commands_option_find(view, ""));
    /* An option of one command is not another's. */
    assert_null(commands_option_find(commands_find("check"), "--strict"));
    assert_null(commands_option_find(commands_find("sim"), "--tour"));
}

/* play and lesson take the view's options but --tour; the view's --catalog
 * and --set are play's own already and are listed once. */
static void test_view_options_in_play(void **state)
{
    (void)state;
    const struct commands_spec *play = commands_find("play");
    int catalogs = 0, speed = 0, tour = 0;
    const struct commands_option *o;
    for (size_t i = 0; (o = commands_option_at(play, i)) != NULL; i++) {
        catalogs += strcmp(o->name, "--catalog") == 0;
        speed += strcmp(o->name, "--speed") == 0;
        tour += strcmp(o->name, "--tour") == 0;
    }
    assert_int_equal(catalogs, 1);
    assert_int_equal(speed, 1);
    assert_int_equal(tour, 0);
    /* Found, so that the parser can say it is not play's. */
    o = commands_option_find(play, "--tour");
    assert_non_null(o);
    assert_true(o->flags & COMMANDS_VIEW_ONLY);
    assert_non_null(commands_option_find(commands_find("lesson"), "--theme"));
}

/* --op's choices are the engine's table of operations, all of them. */
static void test_choices_from_tables(void **state)
{
    (void)state;
    const struct commands_option *o = commands_option_find(commands_find("collective"), "--op");
    assert_non_null(o);
    const char *w[64];
    size_t n = commands_words(o->words, w, 64);
    size_t ops = 0;
    while (collective_op_names[ops])
        ops++;
    assert_int_equal(n, ops);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(w[i], collective_op_names[i]);
    char mv[256];
    commands_metavar(o, mv, sizeof mv);
    assert_non_null(strstr(mv, "all-to-all"));
}

/* Output of a generator into a string. */
static char *capture(void (*write)(FILE *, const char *), const char *name)
{
    static char buf[16384];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    write(f, name);
    fclose(f);
    return buf;
}

static void test_generated_texts(void **state)
{
    (void)state;
    const char *view = capture(commands_option_help, "");
    assert_non_null(strstr(view, "--speed X"));
    assert_non_null(strstr(view, "--catalog DIR"));
    assert_non_null(strstr(view, "--tour"));
    const char *play = capture(commands_option_help, "play");
    assert_non_null(strstr(play, "--speed X"));
    assert_non_null(strstr(play, "--trust"));
    assert_null(strstr(play, "--tour")); /* the tour is not for played scripts */
    char usage[4096];
    commands_usage("play", usage, sizeof usage);
    assert_non_null(strstr(usage, "[-c FILE|PRESET]"));
    assert_null(strstr(usage, "--tour"));
    const char *man = capture(commands_option_man, "");
    assert_non_null(strstr(man, "\\fB\\-\\-speed\\fR \\fIX\\fR"));
    assert_non_null(strstr(man, "\\fB\\-\\-no\\-color\\fR, \\fB\\-\\-mono\\fR"));
    assert_null(strstr(man, "--")); /* every dash escaped for roff */
    const char *plan = capture(commands_option_man, "plan");
    assert_non_null(strstr(plan, "\\-\\-objective"));
    assert_null(strstr(plan, "\\-\\-man")); /* the option that prints this */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_names_aliases_and_values),
        cmocka_unit_test(test_find_rejects_near_misses),
        cmocka_unit_test(test_view_options_in_play),
        cmocka_unit_test(test_choices_from_tables),
        cmocka_unit_test(test_generated_texts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
