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
 * promises). */
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
    (void)parsed;
    char dir[1100];
    const char *env = getenv("MLVIZ_DATA");
    snprintf(dir, sizeof dir, "%s/assets/catalog", env && env[0] ? env : ".");
    struct catalog *cat = catalog_new();
    if (!cat || !catalog_load_dir(cat, dir, err, sizeof err))
        fail("cannot load the shipped catalog", err);
    if (probe_build(&m, cat, true, &res, err, sizeof err)) {
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
    catalog_free(cat);
    return 0;
}
