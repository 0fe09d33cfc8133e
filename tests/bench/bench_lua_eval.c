/* bench_lua_eval: setup:eval from a Lua loop that reads two figures
 * (issue 13 goal: at least 500,000 per second). The names form returns the
 * values without building the report table. Prints "lua_eval2_per_s: N". */
#include <stdio.h>
#include <time.h>

#include "catalog.h"
#include "luahost.h"

enum { EVALS = 300000 };

static const char bench_script[] =
    "local s = mlviz.load('default')\n"
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

int main(void)
{
    char err[4096];
    struct catalog *cat = catalog_new();
    if (!cat || !catalog_load_default(cat, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_lua_eval: %s\n", cat ? err : "out of memory");
        return 1;
    }
    const char *path = "/tmp/mlviz-bench-lua-eval.lua";
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
    struct luahost *h = luahost_new(&o, err, sizeof err);
    if (!h || !luahost_load(h, path, 0, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_lua_eval: %s\n", err);
        return 1;
    }
    double t0 = now_s();
    bool ok = luahost_run(h, err, sizeof err);
    double dt = now_s() - t0;
    if (!ok) {
        fprintf(stderr, "bench_lua_eval: %s\n", err);
        return 1;
    }
    printf("lua_eval2_per_s: %.0f\n", EVALS / dt);
    luahost_free(h);
    catalog_free(cat);
    remove(path);
    return 0;
}
