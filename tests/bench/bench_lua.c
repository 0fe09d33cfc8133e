/* bench_lua: analytic evaluations per second driven from Lua.
 * Prints "lua_sweep_per_s: N" for a sweep of 100,000 setups, and
 * "lua_eval2_per_s: N" for setup:eval in a Lua loop that reads two figures
 * (issue 13 goal: at least 500,000; the names form builds no report table). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Runs a script; returns its wall time in seconds, or -1 (message printed). */
static double run_script(const struct catalog *cat, const char *text)
{
    char err[4096];
    const char *path = "/tmp/mlviz-bench-lua.lua";
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
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
        return -1;
    }
    double t0 = now_s();
    bool ok = luahost_run(h, err, sizeof err);
    double dt = now_s() - t0;
    if (!ok)
        fprintf(stderr, "bench_lua: %s\n", err);
    luahost_free(h);
    remove(path);
    return ok ? dt : -1;
}

int main(void)
{
    enum { SETUPS = 100000, EVALS = 300000 };
    char err[4096];
    struct catalog *cat = catalog_new();
    if (!cat || !catalog_load_default(cat, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_lua: %s\n", cat ? err : "out of memory");
        return 1;
    }
    double sweep = run_script(cat, bench_script);
    double eval = sweep > 0 ? run_script(cat, eval_script) : -1;
    if (sweep > 0)
        printf("lua_sweep_per_s: %.0f\n", SETUPS / sweep);
    if (eval > 0)
        printf("lua_eval2_per_s: %.0f\n", EVALS / eval);
    catalog_free(cat);
    return sweep > 0 && eval > 0 ? 0 : 1;
}
