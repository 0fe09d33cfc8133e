/* draw_text on a curses screen (newterm on /dev/null, read back with
 * mvinnstr): text that does not fit ends at a whole word with an ellipsis,
 * never inside a word; text that fits is drawn as it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"

static SCREEN *scr;
static FILE *dev_out, *dev_in;

static int setup_screen(void **state)
{
    (void)state;
    dev_out = fopen("/dev/null", "w");
    dev_in = fopen("/dev/null", "r");
    if (!dev_out || !dev_in)
        return -1;
    setenv("COLUMNS", "80", 1);
    setenv("LINES", "24", 1);
    scr = newterm("xterm-256color", dev_out, dev_in);
    if (!scr)
        return -1;
    set_term(scr);
    glyphs_use(false); /* ASCII: the ellipsis is "~", one byte to read back */
    return 0;
}

static int teardown_screen(void **state)
{
    (void)state;
    endwin();
    delscreen(scr);
    fclose(dev_out);
    fclose(dev_in);
    return 0;
}

/* Draw s in w columns on a cleared row and read the row back, trailing
 * blanks removed. */
static const char *drawn(const char *s, int w, int *used)
{
    static char buf[128];
    move(5, 0);
    clrtoeol();
    *used = draw_text(5, 2, w, ROLE_TEXT, s);
    mvinnstr(5, 2, buf, 60);
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == ' ')
        buf[--n] = '\0';
    return buf;
}

static void test_fits(void **state)
{
    (void)state;
    int used;
    assert_string_equal(drawn("compute-bound at 68%", 30, &used), "compute-bound at 68%");
    assert_int_equal(used, 20);
    /* Only blanks beyond the width: nothing is cut. */
    assert_string_equal(drawn("exact fit   ", 9, &used), "exact fit");
}

static void test_cut_at_a_word(void **state)
{
    (void)state;
    int used;
    /* Width 22 would end inside "devices": the whole word goes. */
    assert_string_equal(drawn("compute-bound: devices busy 99.8% of the step", 22, &used),
                        "compute-bound:~");
    assert_int_equal(used, 15);
    /* A cut that falls on a space keeps the whole word before it. */
    assert_string_equal(drawn("one two three four", 8, &used), "one two~");
}

static void test_one_long_word(void **state)
{
    (void)state;
    int used;
    /* No space to back up to: cut with the ellipsis, still within w. */
    assert_string_equal(drawn("interconnects", 6, &used), "inter~");
    assert_int_equal(used, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits),
        cmocka_unit_test(test_cut_at_a_word),
        cmocka_unit_test(test_one_long_word),
    };
    return cmocka_run_group_tests(tests, setup_screen, teardown_screen);
}
