/* test_luahost: the C side of the Lua host (headless, played, limits). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "luahost_fixture.h"

static void test_headless_print_and_hooks(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, false, 0);
    char err[4096];
    const char *p =
        script("-- hooks\nprint('tokens', mlviz.load('default'):eval().layout.devices)\n"
               "say('hi') focus('cpus') mark('x') pause()\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_true(luahost_run(h, err, sizeof err));
    assert_string_equal(c.text, "tokens\t8\n");
    assert_int_equal(c.says, 1);
    assert_int_equal(c.focus, 1);
    assert_int_equal(c.marks, 1);
    luahost_free(h);
    remove(p);
}

static void test_error_names_file_and_line(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, false, 0);
    char err[4096];
    const char *p = script("local s = mlviz.load('default')\n\ns:set('cluster.nodez', 1)\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_false(luahost_run(h, err, sizeof err));
    char want[256];
    snprintf(want, sizeof want,
             "%s:3: set: unknown field 'cluster.nodez' (did you mean "
             "'cluster.nodes'?)",
             p);
    assert_non_null(strstr(err, want));
    assert_non_null(strstr(err, "stack traceback"));
    luahost_free(h);
    remove(p);
}

static void test_budget_stops_loop(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, false, 1000000);
    char err[4096];
    /* No mlviz.params: the run of the top that looks for parameters meets
     * the budget first, and the load fails with its message. */
    const char *p = script("while true do pcall(function() while true do end end) end\n");
    assert_false(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_non_null(strstr(err, "instruction budget of 1000000 exceeded"));
    assert_false(luahost_usage_error(h));
    remove(p);
    /* After mlviz.params the run meets it. */
    luahost_free(h);
    h = host(&c, false, 1000000);
    p = script(
        "local P = mlviz.params{}\nwhile true do pcall(function() while true do end end) end\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_false(luahost_run(h, err, sizeof err));
    assert_non_null(strstr(err, "instruction budget of 1000000 exceeded"));
    luahost_free(h);
    remove(p);
}

static void test_memory_cap(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, false, 0);
    char err[4096];
    const char *p = script("local t = {} while true do t[#t + 1] = ('x'):rep(4096) .. #t end\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_false(luahost_run(h, err, sizeof err));
    assert_non_null(strstr(err, "memory cap of 64 MiB exceeded"));
    luahost_free(h);
    remove(p);
}

static void test_params_and_describe(void **state)
{
    (void)state;
    char title[128], err[1024];
    struct luahost_param params[4];
    size_t n = 0;
    const char *p =
        script("-- A story about nodes\nlocal P = mlviz.params{ {'nodes', 4, 'how many'},"
               " {name = 'fast', default = false, help = 'go fast'} }\n"
               "print(P.nodes, P.fast)\n");
    assert_true(luahost_describe(p, title, sizeof title, params, 4, &n, err, sizeof err));
    assert_string_equal(title, "A story about nodes");
    assert_int_equal(n, 2);
    assert_string_equal(params[0].name, "nodes");
    assert_string_equal(params[0].default_text, "4");
    assert_string_equal(params[0].type, "number");
    assert_string_equal(params[1].help, "go fast");

    struct captured c = {0};
    struct luahost *h = host(&c, false, 0);
    char *argv[] = {"--nodes=16", "--fast", "extra"};
    assert_true(luahost_load(h, p, 3, argv, err, sizeof err));
    assert_true(luahost_run(h, err, sizeof err));
    assert_string_equal(c.text, "16\ttrue\n");
    luahost_free(h);

    h = host(&c, false, 0);
    char *bad[] = {"--nodez=3"};
    assert_false(luahost_load(h, p, 1, bad, err, sizeof err));
    assert_true(luahost_usage_error(h));
    assert_non_null(strstr(err, "unknown option '--nodez'"));
    luahost_free(h);
    remove(p);
}

/* The contract the TUI's `mlviz play` relies on. */
static void test_played_yields(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, true, 0);
    char err[4096];
    const char *p = script("local sim = mlviz.sim(mlviz.load('default'))\n"
                           "local hits = 0\n"
                           "sim:at(1, function() hits = hits + 1 end)\n"
                           "say('start')\n"
                           "sim:run(3)\n"
                           "pause()\n"
                           "print('t', sim:time(), hits)\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    struct luahost_request req;
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_RUN);
    assert_non_null(req.sim);
    assert_true(req.duration_s == 3.0);
    assert_int_equal(c.says, 1);
    /* The front end advances the simulation in slices; callbacks run. */
    assert_true(sim_run(req.sim, 1.5, err, sizeof err));
    assert_true(sim_run(req.sim, 1.5, err, sizeof err));
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_DONE);
    assert_non_null(strstr(c.text, "t\t3"));
    assert_non_null(strstr(c.text, "\t1\n"));
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_DONE);
    luahost_free(h);
    remove(p);
}

/* mode("infer") and mode("train") reach the front end when played; a
 * name it does not know is an error; headless, nothing is called. */
static void test_mode(void **state)
{
    (void)state;
    char err[4096];
    const char *p = script("mode('infer')\n"
                           "mode('train')\n"
                           "mode('infer')\n"
                           "print(pcall(mode, 'serving'))\n");
    for (int played = 0; played < 2; played++) {
        struct captured c = {0};
        struct luahost *h = host(&c, played, 0);
        assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
        struct luahost_request req;
        if (played)
            assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_DONE);
        else
            assert_true(luahost_run(h, err, sizeof err));
        assert_int_equal(c.modes, played ? 3 : 0);
        assert_int_equal(c.infer, played ? 1 : 0);
        assert_non_null(strstr(c.text, "false"));
        assert_non_null(strstr(c.text, "serving"));
        luahost_free(h);
    }
}

/* show(setup) reaches the front end at once; show(sim) hands the sim over
 * like a run of no time; without show, each pause shows the setup made or
 * evaluated last; headless, show only checks its argument. */
static void test_played_show_and_follow(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, true, 0);
    char err[4096];
    const char *p = script("local a = mlviz.load('default'):set('name', 'first')\n"
                           "local b = a:copy{ name = 'second' }\n"
                           "pause()\n" /* follows b, the last made */
                           "a:eval()\n"
                           "pause()\n" /* follows a, evaluated last */
                           "pause()\n" /* nothing new: no show */
                           "show(b, { focus = 'cpus' })\n"
                           "local sim = mlviz.sim(a)\n"
                           "show(sim)\n"
                           "sim:close(); sim = nil; collectgarbage()\n"
                           "pause()\n" /* the sim was shown after a */
                           "print(pcall(show, 42))\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    struct luahost_request req;
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
    assert_int_equal(c.shows, 1);
    assert_string_equal(c.shown, "second");
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
    assert_int_equal(c.shows, 2);
    assert_string_equal(c.shown, "first");
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
    assert_int_equal(c.shows, 2);
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_RUN);
    assert_int_equal(c.shows, 3);
    assert_string_equal(c.shown, "second");
    assert_int_equal(c.focus, 1);
    assert_non_null(req.sim);
    assert_true(req.duration_s == 0.0);
    assert_string_equal(sim_setup(req.sim)->name, "first");
    struct sim *shown = req.sim;
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
    assert_int_equal(c.shows, 3);
    /* Closed and dropped by the script, the shown sim lives while drawn. */
    assert_true(sim_run(shown, 1.0, err, sizeof err));
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_DONE);
    assert_non_null(strstr(c.text, "false\tshow: expected a setup or a sim (got number)"));
    luahost_free(h);
    remove(p);

    /* Headless: no hook calls, but a wrong argument is still an error. */
    struct captured d = {0};
    h = host(&d, false, 0);
    p = script("show(mlviz.load('default'))\nshow(mlviz.sim(mlviz.load('default')))\nshow('x')\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_false(luahost_run(h, err, sizeof err));
    assert_non_null(strstr(err, ":3: show: expected a setup or a sim (got string)"));
    assert_int_equal(d.shows, 0);
    luahost_free(h);
    remove(p);
}

static void test_played_callback_error(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, true, 0);
    char err[4096];
    const char *p = script("local sim = mlviz.sim(mlviz.load('default'))\n"
                           "sim:at(1, function() error('kaput') end)\n"
                           "sim:run(3)\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    struct luahost_request req;
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_RUN);
    assert_false(sim_run(req.sim, 3, err, sizeof err));
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_ERROR);
    assert_non_null(strstr(err, ":2: kaput"));
    luahost_free(h);
    remove(p);
}

static void test_played_error_has_traceback(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, true, 0);
    char err[4096];
    const char *p = script("pause()\nlocal x = nil\nprint(x.y)\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    struct luahost_request req;
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_ERROR);
    assert_non_null(strstr(err, ":3: attempt to index a nil value"));
    assert_non_null(strstr(err, "stack traceback"));
    luahost_free(h);
    remove(p);
}

static void test_syntax_error(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = host(&c, false, 0);
    char err[4096];
    const char *p = script("local = 1\n");
    assert_false(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_non_null(strstr(err, ":1:"));
    assert_false(luahost_usage_error(h));
    luahost_free(h);
    remove(p);
}

/* LUAHOST_MAX_PARAMS parameters are all kept; one more is an error at the
 * line of mlviz.params, not a silent cut. */
static void test_params_cap(void **state)
{
    (void)state;
    char text[256], err[4096];
    for (int extra = 0; extra <= 1; extra++) {
        struct captured c = {0};
        struct luahost *h = host(&c, false, 0);
        snprintf(text, sizeof text,
                 "local list = {}\nfor i = 1, %d do list[i] = {'p' .. i, i, 'h'} end\n"
                 "local P = mlviz.params(list)\nprint(P.p1)\n",
                 LUAHOST_MAX_PARAMS + extra);
        const char *p = script(text);
        bool loaded = luahost_load(h, p, 0, NULL, err, sizeof err);
        size_t n = 0;
        luahost_params(h, &n);
        if (extra == 0) {
            assert_true(loaded);
            assert_int_equal(n, LUAHOST_MAX_PARAMS);
            assert_true(luahost_run(h, err, sizeof err));
        } else {
            /* Found while reading the parameters: the load fails, and so
             * does the description (`mlviz scenarios`, --help). */
            assert_false(loaded);
            assert_false(luahost_usage_error(h));
            char want[256];
            snprintf(want, sizeof want, "%s:3: params: %d parameters declared", p,
                     LUAHOST_MAX_PARAMS + 1);
            assert_non_null(strstr(err, want));
            struct luahost_param params[LUAHOST_MAX_PARAMS];
            assert_false(
                luahost_describe(p, NULL, 0, params, LUAHOST_MAX_PARAMS, &n, err, sizeof err));
            assert_non_null(strstr(err, want));
        }
        luahost_free(h);
        remove(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headless_print_and_hooks),
        cmocka_unit_test(test_error_names_file_and_line),
        cmocka_unit_test(test_budget_stops_loop),
        cmocka_unit_test(test_memory_cap),
        cmocka_unit_test(test_params_and_describe),
        cmocka_unit_test(test_params_cap),
        cmocka_unit_test(test_played_yields),
        cmocka_unit_test(test_played_show_and_follow),
        cmocka_unit_test(test_mode),
        cmocka_unit_test(test_played_callback_error),
        cmocka_unit_test(test_played_error_has_traceback),
        cmocka_unit_test(test_syntax_error),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
