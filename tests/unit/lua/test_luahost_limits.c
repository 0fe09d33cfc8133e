/* test_luahost_limits: the C side of the Lua host, continued: the output
 * directory, the memory cap of C-side allocations, parameter discovery,
 * interrupts, the time limit, and sims handed to a played front end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../test_time.h"
#include "luahost_fixture.h"

static struct luahost *io_host(struct captured *c, bool played, bool trusted, const char *out)
{
    return host_with(
        c, &(struct luahost_options){.played = played, .trusted = trusted, .output_dir = out});
}

/* A fresh empty directory to run in; returns its path (static buffer). */
static const char *io_scratch_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/test_luahost_io_XXXXXX");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void test_io_sim_series_charge_the_cap(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = io_host(&c, true, false, NULL);
    char err[4096];
    const char *p = script("local s = mlviz.load('default')\n"
                           "local sim = mlviz.sim(s, {series_capacity = 200000})\n"
                           "pause()\n"
                           "local big = mlviz.sim(s, {series_capacity = 1000000})\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    size_t before = luahost_memory_bytes(h);
    struct luahost_request req;
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
    /* 18 series of 200000 doubles: 27.5 MiB held in C for the script. */
    assert_true(luahost_memory_bytes(h) - before >= (size_t)200000 * SERIES_COUNT * 8);
    /* A million samples (137 MiB) do not fit the 64 MiB cap: refused before allocating. */
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_ERROR);
    assert_non_null(strstr(err, ":4: sim: memory cap of 64 MiB exceeded"));
    luahost_free(h);
    remove(p);
}

static void test_io_garbage_sims_give_memory_back(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = io_host(&c, false, false, NULL);
    char err[4096];
    /* Forty sims of 27.5 MiB, each dropped: the cap asks the collector first. */
    const char *p = script("local s = mlviz.load('default')\n"
                           "for i = 1, 40 do\n"
                           "  local sim = mlviz.sim(s, {series_capacity = 200000})\n"
                           "  sim:run(10)\n"
                           "end\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_true(luahost_run(h, err, sizeof err));
    luahost_free(h);
    remove(p);
}

static void test_io_describe_runs_no_side_effect(void **state)
{
    (void)state;
    const char *dir = io_scratch_dir();
    char cwd[1024], path[256];
    assert_non_null(getcwd(cwd, sizeof cwd));
    const char *p = script("-- Noisy\nprint('top')\nmlviz.write_csv('top.csv', {{a = 1}})\n"
                           "local p = mlviz.params{ {'n', 1, 'n'} }\n");
    assert_int_equal(chdir(dir), 0);
    /* Capture stdout while the script is described. */
    fflush(stdout);
    int saved = dup(1);
    snprintf(path, sizeof path, "%s/stdout", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    char title[64], err[1024];
    struct luahost_param params[4];
    size_t n = 0;
    bool ok = luahost_describe(p, title, sizeof title, params, 4, &n, err, sizeof err);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(fd);
    assert_true(ok);
    assert_int_equal(n, 1);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);               /* nothing printed */
    assert_int_not_equal(stat("top.csv", &st), 0); /* nothing written */
    assert_int_not_equal(stat("mlviz-out", &st), 0);
    remove(path);
    assert_int_equal(chdir(cwd), 0);
    rmdir(dir);
    remove(p);
}

static void test_io_default_and_trusted_directories(void **state)
{
    (void)state;
    const char *dir = io_scratch_dir();
    char cwd[1024], err[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    char p[64]; /* script() returns a static buffer */
    snprintf(p, sizeof p, "%s",
             script("assert(mlviz.write_csv('a.csv', {{x = 1}}) == "
                    "'mlviz-out/a.csv')\n"));
    const char *q = script("assert(mlviz.write_json('sub/b.json', {x = 1}) == './sub/b.json')\n");
    assert_int_equal(chdir(dir), 0);
    struct captured c = {0};
    struct luahost *h = io_host(&c, false, false, NULL);
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    if (!luahost_run(h, err, sizeof err))
        fail_msg("%s", err);
    luahost_free(h);
    struct stat st;
    assert_int_equal(stat("mlviz-out", &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(st.st_mode & 0777, 0755 & ~mask);
    assert_int_equal(stat("mlviz-out/a.csv", &st), 0);
    /* Trusted: any path, relative to the current directory without --out. */
    assert_int_equal(mkdir("sub", 0755), 0);
    h = io_host(&c, false, true, NULL);
    assert_true(luahost_load(h, q, 0, NULL, err, sizeof err));
    if (!luahost_run(h, err, sizeof err))
        fail_msg("%s", err);
    luahost_free(h);
    assert_int_equal(stat("sub/b.json", &st), 0);
    remove("sub/b.json");
    rmdir("sub");
    remove("mlviz-out/a.csv");
    rmdir("mlviz-out");
    assert_int_equal(chdir(cwd), 0);
    rmdir(dir);
    remove(p);
    remove(q);
}

/* print hook that counts bytes a table line may not hold. */
static void count_foreign_bytes(void *ctx, const char *t)
{
    int *bad = ctx;
    for (const char *s = t; *s; s++)
        if (!strchr(" xc0123456789", *s))
            (*bad)++;
}

static void test_io_print_table_wide_rows(void **state)
{
    (void)state;
    int bad = 0;
    struct luahost_options o;
    char err[4096];
    memset(&o, 0, sizeof o);
    o.hooks.ctx = &bad;
    o.hooks.print = count_foreign_bytes;
    struct luahost *h = luahost_new(&o, err, sizeof err);
    assert_non_null(h);
    const char *p =
        script("local r = {}\n"
               "for i = 1, 60 do r[string.format('c%02d', i)] = string.rep('x', 70) end\n"
               "mlviz.print_table({r, r})\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_true(luahost_run(h, err, sizeof err));
    assert_int_equal(bad, 0);
    luahost_free(h);
    remove(p);
}

/* ---- budget, time limit, interrupt and sim lifetime (hardening) ---------------- */

/* A host with a time limit; print() calls luahost_interrupt when asked. */
static bool interrupt_on_print;

static void print_maybe_interrupt(void *ctx, const char *t)
{
    cap_print(ctx, t);
    if (interrupt_on_print)
        luahost_interrupt();
}

static struct luahost *limited_host(struct captured *c, bool played, uint64_t budget,
                                    double time_limit_s)
{
    struct luahost_options o;
    char err[1024];
    memset(&o, 0, sizeof o);
    o.cat = cat;
    o.seed = 5;
    o.played = played;
    o.instruction_budget = budget;
    o.time_limit_s = time_limit_s;
    o.memory_cap_bytes = (size_t)64 << 20;
    o.hooks = (struct luahost_hooks){
        c, print_maybe_interrupt, cap_say, cap_focus, cap_mark, cap_show, cap_mode, NULL};
    struct luahost *h = luahost_new(&o, err, sizeof err);
    assert_non_null(h);
    return h;
}

/* The hang guards below count CPU time, which a loaded machine does not
 * stretch: a script that does not stop keeps using it. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run `text` headless; expect failure with `want` in the message within
 * `max_s` seconds of CPU time. The load fails instead of the run when the
 * script meets the limit before any mlviz.params (the load runs the top of
 * the script to find its parameters). */
static void expect_stop(struct luahost *h, const char *text, const char *want, double max_s)
{
    char err[4096];
    const char *p = script(text);
    double t0 = cpu_s();
    bool ok = luahost_load(h, p, 0, NULL, err, sizeof err) && luahost_run(h, err, sizeof err);
    double took = cpu_s() - t0;
    remove(p);
    if (ok)
        fail_msg("the script finished; wanted '%s'", want);
    if (!strstr(err, want))
        fail_msg("wanted '%s' in: %s", want, err);
    if (took > max_s * test_time_factor())
        fail_msg("took %.2f s (at most %.2f)", took, max_s * test_time_factor());
}

/* Each script, in a fresh headless host, fails with `want`. */
static void expect_each_stops(const char *const *cases, size_t n, uint64_t budget,
                              double time_limit_s, bool interrupt, const char *want)
{
    for (size_t i = 0; i < n; i++) {
        struct captured c = {0};
        struct luahost *h = limited_host(&c, false, budget, time_limit_s);
        interrupt_on_print = interrupt;
        expect_stop(h, cases[i], want, 10.0);
        interrupt_on_print = false;
        luahost_free(h);
    }
}

static void test_interrupt_stops_lua_loop(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = limited_host(&c, false, UINT64_MAX / 2, 0);
    interrupt_on_print = true;
    expect_stop(h, "print('go')\nwhile true do end\n", ":2: script interrupted", 10.0);
    interrupt_on_print = false;
    assert_true(luahost_was_interrupted(h));
    luahost_free(h);
    /* A host made after the interrupt is not affected. */
    h = limited_host(&c, false, 0, 0);
    char err[4096];
    const char *p = script("local x = 0 for i = 1, 1000 do x = x + i end\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    assert_true(luahost_run(h, err, sizeof err));
    assert_false(luahost_was_interrupted(h));
    luahost_free(h);
    remove(p);
}

/* C-side work (a pattern, sim:run, a sweep) sees the interrupt too. */
static void test_interrupt_stops_c_work(void **state)
{
    (void)state;
    const char *cases[] = {
        "print('go')\nstring.find(string.rep('a', 40), string.rep('a*', 40) .. 'b')\n",
        "local sim = mlviz.sim(mlviz.load('default'))\nprint('go') sim:run(1e9)\n",
        ("local v = {} for i = 1, 1000 do v[i] = 1 end\nprint('go')\n"
         "mlviz.sweep(mlviz.load('default'), {{'cluster.nodes', v}, {'cluster.nodes', v}})\n"),
    };
    expect_each_stops(cases, sizeof cases / sizeof *cases, UINT64_MAX / 2, 0, true,
                      "script interrupted");
}

/* A played script suspended in pause() ends at its next resume. */
static void test_interrupt_played(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = limited_host(&c, true, 0, 0);
    char err[4096];
    const char *p = script("pause()\nprint('should not run')\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    struct luahost_request req;
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
    luahost_interrupt();
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_ERROR);
    assert_non_null(strstr(err, "script interrupted"));
    assert_null(strstr(c.text, "should not run"));
    luahost_free(h);
    remove(p);
}

static void test_time_limit(void **state)
{
    (void)state;
    const char *cases[] = {
        "local n = 0\nwhile true do n = n + 1 end\n",
        "local sim = mlviz.sim(mlviz.load('default'))\nsim:run(1e9)\n",
        ("local ok = pcall(string.find, string.rep('a', 40), string.rep('a*', 40) .. 'b')\n"
         "while true do end\n"),
    };
    expect_each_stops(cases, sizeof cases / sizeof *cases, UINT64_MAX / 2, 0.3, false,
                      ":2: script exceeded its time limit of 0.3 s");
}

/* Looking for parameters runs the top of the script under the host's time
 * limit: a slow top stops at the limit (not after its own 5 s), and the
 * load says so. */
static void test_time_limit_while_describing(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = limited_host(&c, false, UINT64_MAX / 2, 0.2);
    char err[4096];
    const char *p = script("local t0 = os.clock()\nwhile os.clock() - t0 < 5 do end\n"
                           "local P = mlviz.params{ { 'n', 1, 'a number' } }\n");
    double t0 = cpu_s();
    bool ok = luahost_load(h, p, 0, NULL, err, sizeof err);
    double took = cpu_s() - t0;
    remove(p);
    assert_false(ok);
    if (!strstr(err, ":2: script exceeded its time limit of 0.2 s"))
        fail_msg("wanted the time limit at line 2 in: %s", err);
    if (took > 2.0 * test_time_factor())
        fail_msg("the load took %.2f s (the limit is 0.2 s)", took);
    luahost_free(h);
}

/* Work done in C is charged to the instruction budget. */
static void test_budget_covers_c_work(void **state)
{
    (void)state;
    const char *cases[] = {
        "local s = string.rep('a', 40)\nreturn s:find(string.rep('a*', 40) .. 'b')\n",
        "local s = string.rep('x', 300000)\nreturn s:gsub('.-y', '')\n",
        ("local v = {} for i = 1, 1000 do v[i] = 8 end\n"
         "mlviz.sweep(mlviz.load('default'), {{'cluster.nodes', v}, {'cluster.nodes', v}})\n"),
    };
    expect_each_stops(cases, sizeof cases / sizeof *cases, 20000000, 0, false,
                      ":2: instruction budget of 20000000 exceeded");
}

/* mlviz.plan charges its work to the budget as it goes, its preparation
 * included: a small budget stops a search whose preparation alone takes
 * seconds, with the budget's message, and the work charged when it stops
 * is near the budget. (Charged only at the end, the whole search ran and
 * charged about 40 times this budget.) One worker: the work done between
 * two looks at the budget (a tenth of a second) does not grow with cores. */
static void test_budget_stops_plan_promptly(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = limited_host(&c, false, 15000000, 0);
    expect_stop(h,
                "local s = mlviz.load('gpt3-175b-a100')\n"
                "local p = mlviz.plan(s, { threads = 1, vary = { 'cluster.nodes=32..1024',\n"
                "  'cluster.node.accelerator=a100-sxm-80gb,h100-sxm,b200', "
                "'training.context_parallel=1' } })\n",
                ":2: instruction budget of 15000000 exceeded", 10.0);
    uint64_t used = luahost_instructions(h);
    if (used > 100000000)
        fail_msg("%llu instructions charged when the budget of 15000000 stopped the search",
                 (unsigned long long)used);
    luahost_free(h);
}

/* Events run in time order, ties in insertion order, whatever order they
 * were scheduled in; scheduling is not quadratic. */
static void test_many_events_in_order(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost *h = limited_host(&c, false, 0, 0);
    char err[4096];
    const char *p =
        script("local sim = mlviz.sim(mlviz.load('default'))\n"
               "local seen = {}\n"
               "for i = 60000, 1, -1 do\n"
               "  sim:at((i % 300) * 0.01, function() seen[#seen + 1] = i end)\n"
               "end\n"
               "sim:run(5)\n"
               "assert(#seen == 60000, #seen)\n"
               "for k = 2, #seen do\n"
               "  local a, b = seen[k - 1], seen[k]\n"
               "  assert(a % 300 < b % 300 or (a % 300 == b % 300 and a > b), 'order at ' .. k)\n"
               "end\n"
               "print('ordered')\n");
    assert_true(luahost_load(h, p, 0, NULL, err, sizeof err));
    double t0 = cpu_s();
    if (!luahost_run(h, err, sizeof err))
        fail_msg("%s", err);
    assert_true(cpu_s() - t0 < 20.0); /* quadratic insertion took minutes */
    assert_string_equal(c.text, "ordered\n");
    luahost_free(h);
    remove(p);
}

/* A played host running `body`, resumed to its first sim:run. */
static struct luahost *played_at_first_run(struct captured *c, const char *body, const char **path,
                                           struct luahost_request *req)
{
    char err[4096];
    struct luahost *h = limited_host(c, true, 0, 0);
    *path = script(body);
    assert_true(luahost_load(h, *path, 0, NULL, err, sizeof err));
    assert_int_equal(luahost_resume(h, req, err, sizeof err), LUAHOST_RUN);
    assert_non_null(req->sim);
    return h;
}

/* `mlviz play`: the view keeps drawing req.sim after the run; dropping the
 * sim and collecting garbage, or closing it, must not free it (run under
 * AddressSanitizer this was a heap use-after-free). */
static void test_played_sim_outlives_script_reference(void **state)
{
    (void)state;
    const char *bodies[] = {
        ("local sim = mlviz.sim(mlviz.load('default'))\nsim:run(1)\nsim = nil\n"
         "collectgarbage()\ncollectgarbage()\npause()\n"),
        ("local sim = mlviz.sim(mlviz.load('default'))\nsim:run(1)\nsim:close()\n"
         "collectgarbage()\npause()\n"),
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        struct captured c = {0};
        struct luahost_request req;
        const char *p;
        struct luahost *h = played_at_first_run(&c, bodies[i], &p, &req);
        char err[4096];
        struct sim *shown = req.sim;
        assert_true(sim_run(shown, 1, err, sizeof err));
        assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_PAUSE);
        /* The view draws the sim it holds. */
        struct sim_counters k;
        sim_counters(shown, &k);
        assert_true(k.time_s > 0.99 && k.time_s < 1.01);
        assert_true(sim_run(shown, 0.5, err, sizeof err));
        assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_DONE);
        sim_counters(shown, &k);
        assert_true(k.time_s > 1.49);
        luahost_free(h);
        remove(p);
    }
}

/* A closed sim cannot be used by the script even while the view holds it. */
static void test_played_closed_sim_refuses_use(void **state)
{
    (void)state;
    struct captured c = {0};
    struct luahost_request req;
    const char *p;
    struct luahost *h = played_at_first_run(&c,
                                            "local sim = mlviz.sim(mlviz.load('default'))\n"
                                            "sim:run(1)\nsim:close()\nsim:run(1)\n",
                                            &p, &req);
    char err[4096];
    assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_ERROR);
    assert_non_null(strstr(err, ":4: sim: this simulation was closed"));
    luahost_free(h);
    remove(p);
}

/* Played: while the front end runs a sim, its callbacks cannot run or
 * close it again (the engine is not reentrant; closing freed it mid-run). */
static void test_played_callback_cannot_reenter(void **state)
{
    (void)state;
    const char *bodies[] = {
        ("local sim = mlviz.sim(mlviz.load('default'))\n"
         "sim:at(1, function(x) x:run(1) end)\nsim:run(3)\n"),
        ("local sim = mlviz.sim(mlviz.load('default'))\n"
         "sim:at(1, function(x) x:close() end)\nsim:run(3)\n"),
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        struct captured c = {0};
        struct luahost_request req;
        const char *p;
        struct luahost *h = played_at_first_run(&c, bodies[i], &p, &req);
        char err[4096];
        assert_false(sim_run(req.sim, 3, err, sizeof err));
        assert_int_equal(luahost_resume(h, &req, err, sizeof err), LUAHOST_ERROR);
        assert_non_null(strstr(err, ":2: "));
        assert_non_null(strstr(err, i == 0 ? "already running" : "is running"));
        luahost_free(h);
        remove(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_io_sim_series_charge_the_cap),
        cmocka_unit_test(test_io_garbage_sims_give_memory_back),
        cmocka_unit_test(test_io_describe_runs_no_side_effect),
        cmocka_unit_test(test_io_default_and_trusted_directories),
        cmocka_unit_test(test_io_print_table_wide_rows),
        cmocka_unit_test(test_interrupt_stops_lua_loop),
        cmocka_unit_test(test_interrupt_stops_c_work),
        cmocka_unit_test(test_interrupt_played),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_time_limit_while_describing),
        cmocka_unit_test(test_budget_covers_c_work),
        cmocka_unit_test(test_budget_stops_plan_promptly),
        cmocka_unit_test(test_many_events_in_order),
        cmocka_unit_test(test_played_sim_outlives_script_reference),
        cmocka_unit_test(test_played_closed_sim_refuses_use),
        cmocka_unit_test(test_played_callback_cannot_reenter),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
