/* The option table of the interactive view (tui/cli/options.c): lookup with
 * aliases and inline values, and what is generated from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static void test_find_names_aliases_and_values(void **state)
{
    (void)state;
    const char *v = "unset";
    const struct options_entry *o = options_find("--speed", &v);
    assert_non_null(o);
    assert_int_equal(o->id, OPT_SPEED);
    assert_null(v);
    o = options_find("--speed=3600", &v);
    assert_non_null(o);
    assert_int_equal(o->id, OPT_SPEED);
    assert_string_equal(v, "3600");
    o = options_find("-c", &v);
    assert_non_null(o);
    assert_int_equal(o->id, OPT_SETUP);
    o = options_find("--no-color", &v);
    assert_non_null(o);
    assert_int_equal(o->id, OPT_MONO);
    assert_null(o->arg);
    o = options_find("--setup=", &v);
    assert_non_null(o);
    assert_string_equal(v, "");
}

static void test_find_rejects_near_misses(void **state)
{
    (void)state;
    const char *v;
    assert_null(options_find("--speedy", &v));
    assert_null(options_find("--spee", &v));
    assert_null(options_find("-cx", &v));
    assert_null(options_find("speed", &v));
    assert_null(options_find("", &v));
}

/* Output of a generator into a string. */
static char *capture(void (*write)(FILE *, unsigned), unsigned applies)
{
    static char buf[8192];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    write(f, applies);
    fclose(f);
    return buf;
}

static void man_all(FILE *f, unsigned applies)
{
    (void)applies;
    options_man(f);
}

static void test_generated_texts_follow_applies_to(void **state)
{
    (void)state;
    const char *view = capture(options_help, OPT_VIEW);
    assert_non_null(strstr(view, "--speed X"));
    assert_non_null(strstr(view, "--catalog DIR"));
    assert_non_null(strstr(view, "--tour"));
    const char *play = capture(options_help, OPT_PLAY);
    assert_non_null(strstr(play, "--speed X"));
    assert_null(strstr(play, "--tour")); /* the tour is not for played scripts */
    const char *syn = capture(options_synopsis, OPT_PLAY);
    assert_non_null(strstr(syn, "[-c FILE|PRESET]"));
    assert_null(strstr(syn, "--tour"));
    const char *man = capture(man_all, 0);
    assert_non_null(strstr(man, "\\fB\\-\\-speed\\fR \\fIX\\fR"));
    assert_non_null(strstr(man, "\\fB\\-\\-no\\-color\\fR, \\fB\\-\\-mono\\fR"));
    assert_null(strstr(man, "--")); /* every dash escaped for roff */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_names_aliases_and_values),
        cmocka_unit_test(test_find_rejects_near_misses),
        cmocka_unit_test(test_generated_texts_follow_applies_to),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
