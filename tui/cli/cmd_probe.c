/* cmd_probe: `mlviz probe`, this machine described as a setup.
 *
 * Test hooks: MLVIZ_PROC_ROOT and MLVIZ_SYS_ROOT replace /proc and /sys
 * (fixture trees under tests/); the GPU tools are found on PATH (a stub
 * nvidia-smi in the tests). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Runs a tool found on PATH and collects its standard output: at most
 * TOOL_MAX_BYTES, at most TOOL_TIMEOUT_MS (then it is killed). NULL when
 * it cannot be run, fails or times out. */
static char *run_tool(const char *const *argv)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char *buf = malloc(TOOL_MAX_BYTES + 1);
    size_t used = 0;
    bool ok = buf != NULL;
    long long deadline = now_ms() + TOOL_TIMEOUT_MS;
    while (ok) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            ok = false;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ok = false;
            break;
        }
        ssize_t got = read(fds[0], buf + used, TOOL_MAX_BYTES - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        used += (size_t)got;
        if (used == TOOL_MAX_BYTES)
            ok = false; /* more than a GPU tool ever prints */
    }
    close(fds[0]);
    if (!ok)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(buf);
        return NULL;
    }
    buf[used] = '\0';
    return buf;
}

/* GPUs through nvidia-smi, else rocm-smi; none when neither is on PATH. */
static void probe_gpus(struct probe_machine *m)
{
    char err[512];
    if (on_path(probe_nvidia_smi_argv[0])) {
        char *out = run_tool(probe_nvidia_smi_argv);
        if (out && !probe_parse_nvidia_smi(m, out, err, sizeof err))
            cli_error("%s", err);
        else if (!out)
            cli_error("nvidia-smi is on PATH but did not answer; describing the machine without "
                      "its GPUs");
        free(out);
        if (m->n_gpus > 0)
            return;
    }
    if (on_path(probe_rocm_smi_argv[0])) {
        char *out = run_tool(probe_rocm_smi_argv);
        if (out && !probe_parse_rocm_smi(m, out, err, sizeof err))
            cli_error("%s", err);
        free(out);
    }
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

/* The options of probe, by its row of the command table: 0 to go on, 1
 * after --help, -1 on a usage error (printed). */
static int parse_probe_args(int argc, char **argv, struct cli_common *c, const char **write_path,
                            const char **measure_dir, bool *force)
{
    char usage[256];
    commands_usage("probe", usage, sizeof usage);
    for (int i = 1; i < argc; i++) {
        const char *name, *v;
        int k = cli_take_option("probe", argc, argv, &i, &name, &v);
        if (k < 0 || (k > 0 && v && !cli_value_given(name, v)))
            return -1;
        if (k > 0 && strcmp(name, "--write") == 0) {
            *write_path = v;
        } else if (k > 0 && strcmp(name, "--force") == 0) {
            *force = true;
        } else if (k > 0 && strcmp(name, "--measure") == 0) {
            *measure_dir = v;
        } else if (k > 0) {
            cli_common_apply(c, name, v); /* --catalog */
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf(
                "usage: %s\n"
                "  Describes this machine (CPU, memory, disks, network, GPUs through nvidia-smi "
                "or rocm-smi)\n  as a setup matched to the catalog. --write FILE saves it "
                "(never over an existing file\n  without --force) and merges catalog entries for "
                "devices the catalog lacks into\n  $XDG_CONFIG_HOME/mlviz/catalog/probe.yaml "
                "(by id); --measure DIR times a\n  "
                "sequential read of a scratch file in DIR (at most %d MiB, %d s).\n",
                usage, PROBE_MEASURE_BYTES >> 20, PROBE_MEASURE_S);
            return 1;
        } else {
            cli_error("unknown argument '%s' (usage: %s)", argv[i], usage);
            return -1;
        }
    }
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
    struct cli_common c = {0};
    const char *write_path = NULL, *measure_dir = NULL;
    bool force = false;
    int k = parse_probe_args(argc, argv, &c, &write_path, &measure_dir, &force);
    if (k != 0)
        return k > 0 ? EXIT_OK : EXIT_USAGE;
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
