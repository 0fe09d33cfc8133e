/* The screen's action handlers (input.c), the one budgeted advance of the
 * simulation (state.c) and the parameters overlay (views/chrome.c): each
 * action does what the key table says, the advance honours its wall-clock
 * budget, and no scenario parameter is dropped silently. */
/* cmocka.h needs these before it */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>

#include <cmocka.h>
/* clang-format on */

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "glyphs.h"
#include "layout.h"
#include "state_internal.h" /* white-box: the test reads and sets members */
#include "ui.h"
#include "views.h"

/* A ui on the default preset, as `mlviz` opens it (no terminal). */
static struct ui *open_default(void)
{
    struct tui_options *o = calloc(1, sizeof *o);
    assert_non_null(o);
    o->cat = cli_load_catalog(NULL);
    assert_non_null(o->cat);
    assert_true(cli_load_setup("default", o->cat, &o->setup, &o->res));
    struct ui *u = ui_new();
    assert_non_null(u);
    ui_open(u, o);
    knobs_build(u);
    assert_null(o->cat); /* the ui took the catalog */
    free(o);
    return u;
}

static void test_actions(void **state)
{
    (void)state;
    struct ui *u = open_default();
    assert_false(input_action(u, ACT_QUIT, 0));
    assert_true(input_action(u, ACT_NONE, 0));
    assert_true(input_action(u, ACT_COUNT, 0));
    assert_true(input_action(u, (enum key_action) - 3, 0));

    bool paused = u->paused;
    assert_true(input_action(u, ACT_PAUSE, 0));
    assert_true(u->paused != paused);

    /* + and - walk the offered speeds and stop at both ends. */
    double before = u->speed;
    input_action(u, ACT_FASTER, 0);
    assert_true(u->speed > before && u->speed_chosen);
    for (int i = 0; i < 40; i++)
        input_action(u, ACT_FASTER, 0);
    assert_true(u->speed == ui_speeds[UI_SPEED_COUNT - 1]);
    for (int i = 0; i < 40; i++)
        input_action(u, ACT_SLOWER, 0);
    assert_true(u->speed == ui_speeds[0]);

    /* The help scrolls, never above its top. */
    input_action(u, ACT_HELP, 0);
    assert_true(u->help);
    input_action(u, ACT_HELP_SCROLL, -5);
    assert_int_equal(u->help_scroll, 0);
    input_action(u, ACT_HELP_SCROLL, 3);
    assert_int_equal(u->help_scroll, 3);
    input_action(u, ACT_HELP, 0);
    assert_false(u->help);

    /* 1-5 open a stage; anything else is ignored. */
    input_action(u, ACT_OPEN, 7);
    assert_int_equal(u->view, VIEW_OVERVIEW);
    input_action(u, ACT_OPEN, STAGE_CPUS);
    assert_int_equal(u->view, VIEW_STAGE);
    assert_int_equal(u->stage, STAGE_CPUS);
    input_action(u, ACT_BACK, 0);
    assert_int_equal(u->view, VIEW_OVERVIEW);

    /* Parameters belong to a played scenario; their selection wraps. */
    input_action(u, ACT_PARAMS, 0);
    assert_false(u->params_open);
    assert_non_null(strstr(u->status, "mlviz play"));
    u->n_params = 3;
    input_action(u, ACT_PARAM_SEL, -1);
    assert_int_equal(u->param_sel, 2);
    input_action(u, ACT_PARAM_SEL, 1);
    assert_int_equal(u->param_sel, 0);
    ui_free(u);
}

/* Every action a key can trigger changes something or says why not: none
 * falls through to "nothing happened" by a missing handler. */
static void test_every_bound_action_acts(void **state)
{
    (void)state;
    for (size_t i = 0; i < keys_count(); i++) {
        enum key_action a = keys_get(i)->cmd->action;
        if (a == ACT_QUIT || a == ACT_NONE)
            continue;
        struct ui *u = open_default();
        u->playing = a == ACT_PARAMS || a == ACT_TOUR_PREV; /* their effect shows in play */
        u->view = a == ACT_BACK ? VIEW_STAGE : VIEW_OVERVIEW;
        u->n_params = 2;
        u->paused = a == ACT_STEP;
        int arg = keys_get(i)->arg;
        u->help_scroll = u->text_scroll = 5; /* room to scroll both ways */
        if (a == ACT_SELECT)                 /* a box with a neighbour that way */
            u->selected_box = arg == DIR_LEFT ? STAGE_CPUS
                              : arg == DIR_UP ? STAGE_INFRASTRUCTURE
                                              : 0;
        if (a == ACT_WRITE || a == ACT_PLAN || a == ACT_PLAN_ROW || a == ACT_PLAN_LOAD ||
            a == ACT_THEME || a == ACT_STEP) {
            ui_free(u); /* files, threads, curses: exercised end to end (tests/e2e) */
            continue;
        }
        if (a == ACT_KNOB_NEXT || a == ACT_KNOB_PREV || a == ACT_KNOB_INC || a == ACT_KNOB_DEC ||
            a == ACT_KNOB_AUTO || a == ACT_TEXT_UP || a == ACT_TEXT_FULL || a == ACT_UNDO ||
            a == ACT_CAPTION_BACK) {
            u->view = VIEW_STAGE;
            u->stage = STAGE_ACCELERATORS;
            u->text_scroll = 5;
        }
        struct ui *copy = malloc(sizeof *copy);
        assert_non_null(copy);
        memcpy(copy, u, sizeof *u);
        assert_true(input_action(u, a, arg));
        bool changed = memcmp(copy, u, sizeof *u) != 0;
        if (!changed)
            fail_msg("action %d (%s) changed nothing", (int)a, keys_get(i)->label);
        free(copy);
        ui_free(u);
    }
}

/* ui_advance is the one way the simulation moves: all of sim_dt within the
 * budget; a spent budget stops after one slice and says it is lagging. */
static void test_advance_budget(void **state)
{
    (void)state;
    struct ui *u = open_default();
    assert_non_null(u->sim);
    char err[UI_MSG_LEN];
    struct sim_counters c0, c1;
    sim_counters(u->sim, &c0);
    double budget = 10.0;
    double done = ui_advance(u, 4.0, &budget, err, sizeof err);
    sim_counters(u->sim, &c1);
    assert_true(done > 3.999 && done < 4.001);
    assert_true(c1.time_s - c0.time_s > 3.999 && c1.time_s - c0.time_s < 4.001);
    assert_false(u->lagging);
    assert_true(budget < 10.0);
    budget = 0;
    done = ui_advance(u, 4.0, &budget, err, sizeof err);
    assert_true(done > 0.999 && done < 1.001); /* one slice of four */
    assert_true(u->lagging);
    ui_free(u);
}

/* The overlay's text at 100x30 into screen_text (a terminal of its own). */
static void draw_params_text(struct ui_param *params, int n, int sel, char *screen_text, size_t len)
{
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    assert_true(out && in);
    setenv("COLUMNS", "100", 1);
    setenv("LINES", "30", 1);
    SCREEN *scr = newterm("xterm-256color", out, in);
    assert_non_null(scr);
    set_term(scr);
    glyphs_use(false);
    struct layout lay;
    layout_compute(100, 30, LAYOUT_OVERVIEW, true, &lay);
    struct view_ctx v = {.lay = &lay, .params = params, .n_params = n, .param_sel = sel};
    static struct view_out o;
    static struct hit_map hits;
    o.hits = &hits;
    erase();
    view_draw_params(&v, &o);
    char row[256];
    screen_text[0] = '\0';
    for (int y = 0; y < 30; y++) {
        mvinnstr(y, 0, row, 100);
        if (strlen(screen_text) + strlen(row) + 2 < len) {
            strcat(screen_text, row);
            strcat(screen_text, "\n");
        }
    }
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
}

/* A digit, then e+ or e- and a digit: a number in scientific notation. */
static const char *exponent_in(const char *text)
{
    for (const char *p = text; p[0] && p[1] && p[2] && p[3]; p++)
        if (p[0] >= '0' && p[0] <= '9' && (p[1] == 'e' || p[1] == 'E') &&
            (p[2] == '+' || p[2] == '-') && p[3] >= '0' && p[3] <= '9')
            return p;
    return NULL;
}

/* Right on a number parameter doubles it past a million (and on past the
 * billions), Left halves it back; a default the script wrote as "1e-05"
 * or "60200000.0": the overlay shows each in digits, never "3.1e+06", and
 * the text the script receives comes back to where it began. */
static void test_param_numbers_read(void **state)
{
    (void)state;
    struct ui *u = open_default();
    u->playing = true;
    u->n_params = 3;
    snprintf(u->params[0].name, sizeof u->params[0].name, "nodes");
    snprintf(u->params[0].type, sizeof u->params[0].type, "number");
    snprintf(u->params[0].value, sizeof u->params[0].value, "3");
    snprintf(u->params[1].name, sizeof u->params[1].name, "tiny");
    snprintf(u->params[1].type, sizeof u->params[1].type, "number");
    snprintf(u->params[1].value, sizeof u->params[1].value, "1.5e-05");
    snprintf(u->params[2].name, sizeof u->params[2].name, "params");
    snprintf(u->params[2].type, sizeof u->params[2].type, "number");
    snprintf(u->params[2].value, sizeof u->params[2].value, "60200000.0");
    static char text[30 * 256];
    const char *want[] = {"3145728", "6291456", "3.22 G", "6.6 T"};
    const int presses[] = {20, 1, 9, 11};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        for (int i = 0; i < presses[k]; i++)
            assert_true(input_action(u, ACT_PARAM_CHANGE, +1));
        draw_params_text(u->params, u->n_params, 0, text, sizeof text);
        if (exponent_in(text) || !strstr(text, want[k]))
            fail_msg("after doubling 3: '%s' shows, want '%s' and no exponent:\n%s",
                     u->params[0].value, want[k], text);
    }
    for (int i = 0; i < 41; i++)
        input_action(u, ACT_PARAM_CHANGE, -1);
    assert_string_equal(u->params[0].value, "3"); /* every digit kept */
    draw_params_text(u->params, u->n_params, 0, text, sizeof text);
    assert_null(exponent_in(text));
    assert_non_null(strstr(text, "0.000015"));
    assert_non_null(strstr(text, "60200000 "));
    /* A small one (below the shares' 0.05) halves on below 1e-4. */
    input_action(u, ACT_PARAM_SEL, +1);
    for (int i = 0; i < 4; i++)
        input_action(u, ACT_PARAM_CHANGE, -1);
    draw_params_text(u->params, u->n_params, 1, text, sizeof text);
    if (exponent_in(text) || !strstr(text, "0.000000938"))
        fail_msg("1.5e-05 halved 4 times ('%s'):\n%s", u->params[1].value, text);
    ui_free(u);
}

/* A knob's value and its unit agree in number: "1 sample", "2 samples"
 * (issue 22), and the knob's status line says the same. */
static void test_knob_value_singular(void **state)
{
    (void)state;
    struct ui *u = open_default();
    const struct field *f = fields_find(setup_fields(), "training.micro_batch");
    assert_non_null(f);
    struct setup s = *ui_setup(u);
    char shown[96];
    s.training.micro_batch = 1;
    view_knob_value(f, &s, shown, sizeof shown);
    assert_string_equal(shown, "1 sample");
    s.training.micro_batch = 2;
    view_knob_value(f, &s, shown, sizeof shown);
    assert_string_equal(shown, "2 samples");
    ui_free(u);
}

/* What a script prints, the caption and a message in the status line
 * reach the screen without e-notation (issue 22): "0..2.097e+06" from a
 * story's table, "%g" in an engine message. */
static void test_text_in_digits(void **state)
{
    (void)state;
    struct ui *u = open_default();
    const char *said = "plot 0..2.097e+06 tokens/s, share 1.234e-04";
    ui_transcript_add(u, said, strlen(said), true);
    assert_string_equal(u->transcript[u->transcript_count - 1].text,
                        "plot 0..2097000 tokens/s, share 0.0001234");
    ui_set_status(u, "%g is too small (above %g)", 1e-300, 1e-9);
    assert_string_equal(u->status, "0 is too small (above 0.000000001)");
    ui_set_caption(u, "a step of 3.5e+03 s");
    assert_string_equal(u->caption, "a step of 3500 s");
    ui_free(u);
}

/* More parameters than the overlay has rows: the selected one shows and the
 * rest are counted, never dropped without a word. */
static void test_params_overflow(void **state)
{
    (void)state;
    static struct ui_param params[UI_MAX_PARAMS];
    for (int i = 0; i < UI_MAX_PARAMS; i++) {
        snprintf(params[i].name, sizeof params[i].name, "param%02d", i);
        snprintf(params[i].value, sizeof params[i].value, "%d", i);
        snprintf(params[i].help, sizeof params[i].help, "help of %d", i);
    }
    static char screen_text[30 * 256];
    draw_params_text(params, UI_MAX_PARAMS, UI_MAX_PARAMS - 1, screen_text, sizeof screen_text);
    char last[16];
    snprintf(last, sizeof last, "param%02d", UI_MAX_PARAMS - 1);
    assert_non_null(strstr(screen_text, last));
    assert_non_null(strstr(screen_text, " more"));
    assert_null(strstr(screen_text, "param00 "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_actions),
        cmocka_unit_test(test_every_bound_action_acts),
        cmocka_unit_test(test_advance_budget),
        cmocka_unit_test(test_params_overflow),
        cmocka_unit_test(test_param_numbers_read),
        cmocka_unit_test(test_knob_value_singular),
        cmocka_unit_test(test_text_in_digits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
