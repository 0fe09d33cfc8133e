/* bench_lua: analytic evaluations per second driven from Lua.
 * Prints "lua_sweep_per_s: N" for a sweep of 100,000 setups, and
 * "lua_eval2_per_s: N" for setup:eval in a Lua loop that reads two figures
 * (issue 13 goal: at least 500,000; the names form builds no report table)
 * and "lua_eval_table_per_s: N" for s:eval().tokens_per_s; each per CPU
 * second, then per wall second (bench.h). */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "catalog.h"
#include "luahost.h"

/* 100 x 10 x 10 x 10 = 100,000 setups; only fields the model reads per
 * setup change, so every row is a full resolve + evaluation. */
static const char bench_script[] =
    "local s = mlviz.load('default')\n"
    "local nodes, batch = {}, {}\n"
    "for i = 1, 100 do nodes[i] = i end\n"
    "for i = 1, 10 do batch[i] = 128 * 8 * i end\n"
    "local rows = mlviz.sweep(s, {\n"
    "  {'cluster.nodes', nodes}, {'training.global_batch', batch},\n"
    "  {'data.loader_workers_per_device', {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},\n"
    "  {'data.cache_hit', {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}},\n"
    "}, {fields = {'tokens_per_s', 'bottleneck'}})\n"
    "assert(#rows == 100000, #rows)\n";

static const char eval_script[] = "local s = mlviz.load('default')\n"
                                  "local sum = 0\n"
                                  "for i = 1, 300000 do\n"
                                  "  s:set('data.cache_hit', (i % 10) / 10)\n"
                                  "  local tps, fits = s:eval('tokens_per_s', 'memory.fits')\n"
                                  "  if fits then sum = sum + tps end\n"
                                  "end\n"
                                  "assert(sum > 0)\n";

/* The natural form: the whole report, one figure read from it (issue 23
 * goal: at least 300,000 a CPU second; the report table fills its fields
 * as they are read). */
static const char table_script[] = "local s = mlviz.load('default')\n"
                                   "local sum = 0\n"
                                   "for i = 1, 100000 do\n"
                                   "  s:set('data.cache_hit', (i % 10) / 10)\n"
                                   "  sum = sum + s:eval().tokens_per_s\n"
                                   "end\n"
                                   "assert(sum > 0)\n";

/* Runs a script; returns its CPU and wall time in seconds, or a CPU time
 * of -1 (the message printed). */
static struct bench_clock run_script(const struct catalog *cat, const char *text)
{
    char err[4096];
    const char *path = "/tmp/mlviz-bench-lua.lua";
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return (struct bench_clock){-1, -1};
    }
    fputs(text, f);
    fclose(f);
    struct luahost_options o = {0};
    o.cat = cat;
    o.seed = 1;
    o.memory_cap_bytes = (size_t)1 << 30; /* 100,000 result rows */
    struct luahost *h = luahost_new(&o, err, sizeof err);
    if (!h || !luahost_load(h, path, 0, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_lua: %s\n", err);
        luahost_free(h);
        return (struct bench_clock){-1, -1};
    }
    struct bench_clock t0 = bench_now();
    bool ok = luahost_run(h, err, sizeof err);
    struct bench_clock dt = bench_since(t0);
    if (!ok)
        fprintf(stderr, "bench_lua: %s\n", err);
    luahost_free(h);
    remove(path);
    return ok ? dt : (struct bench_clock){-1, -1};
}

int main(void)
{
    enum { SETUPS = 100000, EVALS = 300000, TABLE_EVALS = 100000 };
    char err[4096];
    struct catalog *cat = catalog_new();
    if (!cat || !catalog_load_default(cat, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_lua: %s\n", cat ? err : "out of memory");
        return 1;
    }
    static const struct {
        const char *name, *script;
        double count;
    } runs[] = {{"lua_sweep_per_s", bench_script, SETUPS},
                {"lua_eval2_per_s", eval_script, EVALS},
                {"lua_eval_table_per_s", table_script, TABLE_EVALS}};
    int status = 0;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        struct bench_clock dt = run_script(cat, runs[i].script);
        if (dt.cpu_s > 0)
            bench_rate(runs[i].name, runs[i].count, dt);
        else
            status = 1;
    }
    catalog_free(cat);
    return status;
}
