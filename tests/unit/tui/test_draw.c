/* draw_text on a curses screen (newterm on /dev/null, read back with
 * mvinnstr): text that does not fit ends at a whole word with an ellipsis,
 * never inside a word; text that fits is drawn as it is; figures (numbers
 * with their units) are drawn in the figure attribute of the role, which on
 * an unknown paper is the terminal's own ink where the role's is a grey. */
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
#include "theme.h"

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

/* The figure that starts at `at` in s, as a string. */
static const char *figure_at(const char *s, size_t at)
{
    static char buf[64];
    size_t end = draw_figure_end(s, at, strlen(s));
    snprintf(buf, sizeof buf, "%.*s", (int)(end - at), s + at);
    return buf;
}

static void test_figures(void **state)
{
    (void)state;
    const char *cores = "cores used 0.00077/112 of 8 devices";
    assert_string_equal(figure_at(cores, 0), ""); /* a label */
    assert_string_equal(figure_at(cores, 11), "0.00077/112");
    assert_string_equal(figure_at(cores, 12), "");  /* never inside a word */
    assert_string_equal(figure_at(cores, 26), "8"); /* "devices" is no unit */
    /* Up to two unit words, trailing punctuation included. */
    assert_string_equal(figure_at("nvlink4 450 GB/s/dir", 8), "450 GB/s/dir");
    assert_string_equal(figure_at("tokens/s 61.7 k tokens/s now", 9), "61.7 k tokens/s");
    assert_string_equal(figure_at("one step 30.35 s; next", 9), "30.35 s;");
    assert_string_equal(figure_at("$24.6/h heat", 0), "$24.6/h");
    assert_string_equal(figure_at("TP1 PP1", 0), "TP1");
    assert_string_equal(figure_at("hdd 270 MB/s", 0), "");
    assert_string_equal(figure_at("hdd 270 MB/s", 4), "270 MB/s");
    /* A unit word needs its number: "s" alone is a word. */
    assert_string_equal(figure_at("s 12", 0), "");
    /* The end never passes n. */
    assert_int_equal(draw_figure_end("200 GB", 0, 4), 3);
    assert_int_equal(draw_figure_end("200 GB", 0, 5), 5); /* "200 G": a prefix */
}

/* On an unknown paper, the default theme draws the label of a dim line in
 * its grey and the figures in the terminal's own ink. */
static void test_figure_ink(void **state)
{
    (void)state;
    start_color();
    use_default_colors();
    theme_set_paper(THEME_PAPER_UNKNOWN);
    theme_apply(THEME_DEFAULT);
    assert_int_not_equal(theme_attr(ROLE_DIM), theme_figure_attr(ROLE_DIM));
    move(7, 0);
    clrtoeol();
    draw_text(7, 0, 60, ROLE_DIM, "cores used 0.5/112 of 8 GB");
    chtype label = mvinch(7, 0), figure = mvinch(7, 11), unit = mvinch(7, 25);
    assert_int_equal(label & A_COLOR, theme_attr(ROLE_DIM) & A_COLOR);
    assert_int_equal(PAIR_NUMBER((int)(figure & A_COLOR)), 0); /* the terminal's own */
    assert_int_equal(PAIR_NUMBER((int)(unit & A_COLOR)), 0);
    assert_int_equal(mvinch(7, 19) & A_COLOR, label & A_COLOR); /* "of" */
    /* On a light paper the light theme's grey has the margin: it stays. */
    theme_set_paper(THEME_PAPER_LIGHT);
    theme_apply(THEME_LIGHT);
    assert_int_equal(theme_attr(ROLE_DIM), theme_figure_attr(ROLE_DIM));
    theme_set_paper(THEME_PAPER_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits),          cmocka_unit_test(test_cut_at_a_word),
        cmocka_unit_test(test_one_long_word), cmocka_unit_test(test_figures),
        cmocka_unit_test(test_figure_ink),
    };
    return cmocka_run_group_tests(tests, setup_screen, teardown_screen);
}
