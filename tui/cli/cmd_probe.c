/* cmd_probe: `mlviz probe`, this machine described as a setup.
 *
 * Test hooks: MLVIZ_PROC_ROOT and MLVIZ_SYS_ROOT replace /proc and /sys
 * (fixture trees under tests/); the GPU tools are found on PATH (a stub
 * nvidia-smi in the tests). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "infile.h"
#include "probe.h"
#include "report.h"
#include "safewrite.h"

/* A GPU tool's output is small: a line per GPU, or a JSON object. */
enum { TOOL_MAX_BYTES = 1 << 20, TOOL_TIMEOUT_MS = 10000 };

static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !path[0])
        return false;
    char dir[1024], full[1300];
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s", (int)(n < 1000 ? n : 1000), path);
        snprintf(full, sizeof full, "%s/%s", dir[0] ? dir : ".", name);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

/* The tools' deadline: TOOL_TIMEOUT_MS, or MLVIZ_PROBE_TIMEOUT_MS (a test
 * hook, 100 ms to the default) so the suite need not wait ten seconds. */
static int tool_timeout_ms(void)
{
    const char *v = getenv("MLVIZ_PROBE_TIMEOUT_MS");
    char *end;
    long ms = v && v[0] ? strtol(v, &end, 10) : 0;
    return v && v[0] && *end == '\0' && ms >= 100 && ms <= TOOL_TIMEOUT_MS ? (int)ms
                                                                           : TOOL_TIMEOUT_MS;
}

/* Runs a GPU tool; its output, or NULL with what went wrong said. */
static char *run_tool(const char *const *argv)
{
    const char *tool = argv[0];
    int timeout_ms = tool_timeout_ms();
    struct cli_child res;
    bool ok = cli_run_child(argv, timeout_ms, TOOL_MAX_BYTES, &res);
    char why[160] = "";
    switch (res.end) {
    case CHILD_NOT_RUN:
        snprintf(why, sizeof why, "could not be run");
        break;
    case CHILD_TIMED_OUT:
        snprintf(why, sizeof why,
                 "did not finish within %d ms (a stuck driver?); it was killed with every "
                 "process it started",
                 timeout_ms);
        break;
    case CHILD_TOO_MUCH:
        snprintf(why, sizeof why, "printed more than %d MiB; it was killed", TOOL_MAX_BYTES >> 20);
        break;
    case CHILD_INTERRUPTED: /* not reached: the signal ends mlviz */
    case CHILD_DONE:
        if (res.signal)
            snprintf(why, sizeof why, "was killed by signal %d", res.signal);
        else if (res.exit_status != 0)
            snprintf(why, sizeof why, "failed (exit status %d)", res.exit_status);
        break;
    }
    if (res.unreaped)
        cli_error("%s did not end after SIGKILL (stuck in the kernel); leaving it", tool);
    if (!ok) {
        cli_error("%s is on PATH but %s; describing the machine without its GPUs", tool, why);
        free(res.out);
        return NULL;
    }
    if (res.leftovers)
        cli_error("%s exited but left processes running (one kept its output open); they were "
                  "killed",
                  tool);
    return res.out;
}

/* One tool's answer parsed into m; false (said) when it was rejected. */
static bool use_tool(struct probe_machine *m, const char *const *argv,
                     bool (*parse)(struct probe_machine *, const char *, char *, size_t))
{
    char err[512] = "";
    char *out = run_tool(argv);
    bool ok = out && parse(m, out, err, sizeof err);
    if (out && !ok)
        cli_error("%s answered, but its output was rejected: %s; describing the machine without "
                  "its GPUs",
                  argv[0], err);
    else if (ok && err[0])
        cli_error("warning: %s: %s", argv[0], err);
    if (!ok && !m->gpu_tool_rejected[0])
        snprintf(m->gpu_tool_rejected, sizeof m->gpu_tool_rejected, "%s", argv[0]);
    free(out);
    return ok;
}

/* GPUs through nvidia-smi, else rocm-smi; none when neither is on PATH. */
static void probe_gpus(struct probe_machine *m)
{
    if (on_path(probe_nvidia_smi_argv[0]) &&
        use_tool(m, probe_nvidia_smi_argv, probe_parse_nvidia_smi) && m->n_gpus > 0)
        return;
    if (on_path(probe_rocm_smi_argv[0]))
        use_tool(m, probe_rocm_smi_argv, probe_parse_rocm_smi);
}

/* Where entries for devices the catalog lacks go: the user's catalog
 * directory, which every mlviz command reads. */
static bool catalog_out_path(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char base[1024];
    if (xdg && xdg[0])
        snprintf(base, sizeof base, "%s", xdg);
    else if (home && home[0])
        snprintf(base, sizeof base, "%s/.config", home);
    else
        return false;
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/mlviz", base);
    mkdir(base, 0755);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/mlviz/catalog", base);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return false;
    snprintf(buf, len, "%s/probe.yaml", dir);
    return true;
}

/* The header of probe.yaml. */
static const char catalog_header[] =
    "# Written by mlviz probe: devices of the machines probed that the catalog lacks\n"
    "# (merged by id: probing one machine keeps the others' entries).\n";

/* Starts writing probe.yaml in the user catalog: this machine's entries
 * merged by id into what the file holds (it is mlviz's own file, so it is
 * replaced; never through a link). The merged text must load. */
static bool begin_catalog(struct safewrite *w, const char *entries, char *err, size_t err_len)
{
    char path[1200];
    if (!catalog_out_path(path, sizeof path)) {
        snprintf(err, err_len,
                 "cannot find a catalog directory for the new entries (set XDG_CONFIG_HOME or "
                 "HOME)");
        return false;
    }
    char dir[1200];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(path, '/') - path), path);
    char *old = NULL, *merged = NULL;
    size_t old_len = 0;
    if (infile_exists_below(dir, "probe.yaml") &&
        !infile_read_below(dir, "probe.yaml", path, &old, &old_len, err, err_len))
        return false;
    size_t cap = old_len * 2 + strlen(entries) * 2 + 4096;
    struct catalog *check = catalog_new();
    bool ok = (merged = malloc(cap)) && check &&
              probe_merge_catalog(path, old, old_len, entries, catalog_header, merged, cap, err,
                                  err_len) &&
              catalog_load_string(check, path, merged, strlen(merged), err, err_len) &&
              safewrite_begin(w, path, SAFEWRITE_REPLACE, err, err_len);
    if (ok && fputs(merged, w->f) < 0) {
        snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
        safewrite_abort(w);
        ok = false;
    }
    if (!merged || !check)
        snprintf(err, err_len, "out of memory");
    catalog_free(check);
    free(old);
    free(merged);
    return ok;
}

/* --write: the setup, then the catalog entries it names, each complete or
 * not at all. Both are prepared first; if the catalog cannot be put in
 * place after the setup, a setup this run created is removed again. */
static int write_outputs(const char *write_path, bool force, const struct probe_result *res,
                         const char *yaml)
{
    char dir[4096], err[SAFEWRITE_PATH_LEN + 512];
    const char *name;
    int fd = cli_open_parent(write_path, "--write", dir, sizeof dir, &name);
    if (fd < 0)
        return EXIT_RUNTIME;
    struct safewrite sw, cw;
    bool entries = res->catalog_yaml[0] != '\0';
    bool ok = safewrite_begin_at(&sw, fd, dir, name, force ? SAFEWRITE_REPLACE : SAFEWRITE_NEW, err,
                                 sizeof err);
    if (ok && (fputs(res->comments, sw.f) < 0 || fputs(yaml, sw.f) < 0)) {
        snprintf(err, sizeof err, "cannot write %s: %s", sw.path, strerror(errno));
        safewrite_abort(&sw);
        ok = false;
    }
    if (ok && entries && !begin_catalog(&cw, res->catalog_yaml, err, sizeof err)) {
        safewrite_abort(&sw);
        ok = false;
    }
    if (ok && !safewrite_commit(&sw, err, sizeof err)) {
        if (entries)
            safewrite_abort(&cw);
        ok = false;
    }
    if (ok && entries && !safewrite_commit(&cw, err, sizeof err)) {
        if (!force)
            unlinkat(fd, sw.name, 0);
        cli_error("%s%s", err, force ? "" : " (the setup naming its entries was not kept either)");
        close(fd);
        return EXIT_RUNTIME;
    }
    close(fd);
    if (!ok) {
        cli_error("%s%s", err,
                  !force && strstr(err, "already exists") ? " (--force replaces it)" : "");
        return EXIT_RUNTIME;
    }
    if (entries)
        fprintf(stderr, "mlviz: wrote catalog entries to %s\n", cw.path);
    fprintf(stderr, "mlviz: wrote %s (open it with: mlviz -c %s)\n", sw.path, sw.path);
    return EXIT_OK;
}

struct probe_args {
    struct cli_common c;
    const char *write_path, *measure_dir;
    bool force;
};

/* One option of probe's row of the command table: 0, or -1 (printed). */
static int probe_option(void *ctx, const char *name, const char *v)
{
    struct probe_args *a = ctx;
    if (strcmp(name, "--write") == 0)
        a->write_path = v;
    else if (strcmp(name, "--force") == 0)
        a->force = true;
    else if (strcmp(name, "--measure") == 0)
        a->measure_dir = v;
    else if (cli_common_apply(&a->c, name, v) <= 0)
        return cli_unhandled(name);
    return 0;
}

/* The probed setup and catalog entries in res and yaml, checked to load
 * and resolve; false with the message printed. */
static bool build_checked(const struct probe_machine *m, struct catalog *cat, bool write,
                          struct probe_result *res, char *yaml, size_t yaml_len)
{
    char err[1024];
    if (!probe_build(m, cat, write, res, err, sizeof err)) {
        cli_error("%s", err);
        return false;
    }
    /* The result must load: with the new entries added, resolve it. */
    if (res->catalog_yaml[0] &&
        !catalog_load_string(cat, "probe catalog entries", res->catalog_yaml,
                             strlen(res->catalog_yaml), err, sizeof err)) {
        cli_error("internal: the probe's catalog entries do not load: %s", err);
        return false;
    }
    setup_write_yaml(&res->setup, yaml, yaml_len);
    struct setup check;
    struct resolved r;
    if (!setup_load_string(&check, "probe setup", yaml, cat, err, sizeof err) ||
        !setup_resolve(&check, cat, &r, err, sizeof err)) {
        cli_error("internal: the probed setup does not load: %s", err);
        return false;
    }
    return true;
}

int cmd_probe(int argc, char **argv)
{
    struct probe_args a = {0};
    int k = cli_parse("probe", argc, argv, probe_option, &a, NULL, 0);
    if (k < 0)
        return cli_parse_exit(k);
    const char *write_path = a.write_path, *measure_dir = a.measure_dir;
    bool force = a.force;
    struct cli_common c = a.c;
    if (write_path) { /* before any probing: nothing is replaced without --force */
        char dir[4096];
        const char *name;
        int fd = cli_open_parent(write_path, "--write", dir, sizeof dir, &name);
        bool may = fd >= 0 && cli_may_write(fd, write_path, name, force, "--write");
        if (fd >= 0)
            close(fd);
        if (!may)
            return EXIT_USAGE;
    }
    const char *proc = getenv("MLVIZ_PROC_ROOT"), *sys = getenv("MLVIZ_SYS_ROOT");
    static struct probe_machine m;
    memset(&m, 0, sizeof m);
    char err[1024];
    if (!probe_read_host(&m, proc && proc[0] ? proc : "/proc", sys && sys[0] ? sys : "/sys", err,
                         sizeof err)) {
        cli_error("%s", err);
        return EXIT_RUNTIME;
    }
    probe_gpus(&m);
    if (measure_dir && !probe_measure_read(measure_dir, &m.read_gbs, err, sizeof err)) {
        cli_error("--measure %s", err);
        return EXIT_RUNTIME;
    }
    struct catalog *cat = cli_load_catalog(c.catalog_dir);
    if (!cat)
        return EXIT_USAGE;
    static struct probe_result res;
    static char yaml[65536];
    if (!build_checked(&m, cat, write_path != NULL, &res, yaml, sizeof yaml)) {
        catalog_free(cat);
        return EXIT_RUNTIME;
    }
    catalog_free(cat);
    if (!write_path) {
        fputs(res.comments, stdout);
        fputs(yaml, stdout);
        return EXIT_OK;
    }
    return write_outputs(write_path, force, &res, yaml);
}
