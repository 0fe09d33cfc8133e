/* libFuzzer target: arbitrary GPU-tool output and CPU names through
 * `mlviz probe`'s parsers and setup builder.
 *
 *   FUZZ_SECONDS=60 make fuzz        (builds with clang -fsanitize=fuzzer)
 *
 * The first byte picks the tool (even: nvidia-smi CSV, odd: rocm-smi JSON),
 * the first line after it is the CPU's model name, the rest the tool's
 * output. Whatever it holds, the probe must not crash, and when it builds
 * a setup, its catalog entries must load and the setup must load and
 * resolve against the catalog with them (what `mlviz probe --write`
 * promises). The shipped catalog is loaded once, not per input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "probe.h"
#include "setup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_probe: %s: %s\n", what, detail);
    abort();
}

/* The shipped catalog, loaded once: the builder only reads it. */
static struct catalog *shipped(void)
{
    static struct catalog *cat;
    if (!cat) {
        char dir[1100], err[1024];
        const char *env = getenv("MLVIZ_DATA");
        snprintf(dir, sizeof dir, "%s/assets/catalog", env && env[0] ? env : ".");
        cat = catalog_new();
        if (!cat || !catalog_load_dir(cat, dir, err, sizeof err))
            fail("cannot load the shipped catalog", err);
    }
    return cat;
}

/* The catalog the built setup is checked against: the shipped one plus
 * the entries each input adds. A repeated id replaces the earlier entry,
 * so an input sees its own entries; the catalog is loaded afresh every
 * RELOAD_EVERY inputs so that it does not grow without bound. */
enum { RELOAD_EVERY = 512 };
static struct catalog *checking(void)
{
    static struct catalog *cat;
    static unsigned uses;
    if (cat && ++uses % RELOAD_EVERY == 0) {
        catalog_free(cat);
        cat = NULL;
    }
    if (!cat) {
        char dir[1100], err[1024];
        const char *env = getenv("MLVIZ_DATA");
        snprintf(dir, sizeof dir, "%s/assets/catalog", env && env[0] ? env : ".");
        cat = catalog_new();
        if (!cat || !catalog_load_dir(cat, dir, err, sizeof err))
            fail("cannot load the shipped catalog", err);
    }
    return cat;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    static struct probe_machine m;
    static struct probe_result res;
    static char text[65537], yaml[65536];
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    memset(&m, 0, sizeof m);
    char *nl = strchr(text, '\n');
    const char *tool = nl ? nl + 1 : "";
    snprintf(m.cpu_model, sizeof m.cpu_model, "%.*s", nl ? (int)(nl - text) : 0, text);
    m.sockets = 1 + (data[0] >> 5);
    m.cores_per_socket = 1 + data[0];
    m.threads = m.sockets * m.cores_per_socket;
    m.ram_gb = 16;
    char err[1024];
    bool parsed = data[0] & 1 ? probe_parse_rocm_smi(&m, tool, err, sizeof err)
                              : probe_parse_nvidia_smi(&m, tool, err, sizeof err);
    /* A rejected answer leaves no GPU behind (never a 0 GB, 0 W one). */
    if (!parsed && m.n_gpus > 0)
        fail("a rejected tool answer left GPUs", err);
    for (size_t i = 0; i < m.n_gpus; i++)
        if (!(m.gpus[i].mem_gb > 0) || !m.gpus[i].name[0])
            fail("a GPU without a name or memory", m.gpus[i].name);
    if (probe_build(&m, shipped(), true, &res, err, sizeof err)) {
        struct catalog *cat = checking();
        if (res.catalog_yaml[0] && !catalog_load_string(cat, "probe entries", res.catalog_yaml,
                                                        strlen(res.catalog_yaml), err, sizeof err))
            fail("the probe's catalog entries do not load", err);
        setup_write_yaml(&res.setup, yaml, sizeof yaml);
        struct setup s;
        struct resolved r;
        if (!setup_load_string(&s, "probe setup", yaml, cat, err, sizeof err) ||
            !setup_resolve(&s, cat, &r, err, sizeof err))
            fail("the probed setup does not load", err);
    }
    return 0;
}
