/* bench_lua: analytic evaluations per second driven from a Lua sweep.
 * Prints "lua_sweep_per_s: N" for a sweep of 100,000 setups. */
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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    enum { SETUPS = 100000 };
    char err[4096];
    struct catalog *cat = catalog_new();
    if (!cat || !catalog_load_default(cat, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_lua: %s\n", cat ? err : "out of memory");
        return 1;
    }
    const char *path = "/tmp/mlviz-bench-lua.lua";
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fputs(bench_script, f);
    fclose(f);
    struct luahost_options o = {0};
    o.cat = cat;
    o.seed = 1;
    o.memory_cap_bytes = (size_t)1 << 30; /* 100,000 result rows */
    struct luahost *h = luahost_new(&o, err, sizeof err);
    if (!h || !luahost_load(h, path, 0, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_lua: %s\n", err);
        return 1;
    }
    double t0 = now_s();
    bool ok = luahost_run(h, err, sizeof err);
    double dt = now_s() - t0;
    if (!ok) {
        fprintf(stderr, "bench_lua: %s\n", err);
        return 1;
    }
    printf("lua_sweep_per_s: %.0f\n", SETUPS / dt);
    luahost_free(h);
    catalog_free(cat);
    remove(path);
    return 0;
}
