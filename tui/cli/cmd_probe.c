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
#include "probe.h"
#include "report.h"

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

/* Writes text to path through a temporary file renamed into place. */
static bool write_text(const char *path, const char *a, const char *b)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cli_error("cannot write %s: %s", path, strerror(errno));
        return false;
    }
    FILE *f = fdopen(fd, "w");
    bool ok = f && fputs(a, f) >= 0 && fputs(b, f) >= 0;
    ok = f && fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        cli_error("cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

/* The options of probe, by its row of the command table: 0 to go on, 1
 * after --help, -1 on a usage error (printed). */
static int parse_probe_args(int argc, char **argv, struct cli_common *c, const char **write_path,
                            const char **measure_dir)
{
    char usage[256];
    commands_usage("probe", usage, sizeof usage);
    for (int i = 1; i < argc; i++) {
        const char *name, *v;
        if (strcmp(argv[i], "--") == 0 && i + 1 == argc)
            break; /* "--" ends the options; probe takes no arguments */
        int k = cli_take_option("probe", argc, argv, &i, &name, &v);
        if (k < 0 || (k > 0 && !cli_value_given(name, v)))
            return -1;
        if (k > 0 && strcmp(name, "--write") == 0) {
            *write_path = v;
        } else if (k > 0 && strcmp(name, "--measure") == 0) {
            *measure_dir = v;
        } else if (k > 0) {
            cli_common_apply(c, name, v); /* --catalog */
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s\n"
                   "  Describes this machine (CPU, memory, disks, network, GPUs through nvidia-smi "
                   "or rocm-smi)\n  as a setup matched to the catalog. --write FILE saves it "
                   "and adds catalog entries for\n  devices the catalog lacks to "
                   "$XDG_CONFIG_HOME/mlviz/catalog/probe.yaml; --measure DIR times a\n  "
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
    int k = parse_probe_args(argc, argv, &c, &write_path, &measure_dir);
    if (k != 0)
        return k > 0 ? EXIT_OK : EXIT_USAGE;
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
    char catalog_path[1200] = "";
    if (res.catalog_yaml[0]) {
        if (!catalog_out_path(catalog_path, sizeof catalog_path)) {
            cli_error("cannot find a catalog directory for the new entries (set "
                      "XDG_CONFIG_HOME or HOME)");
            return EXIT_RUNTIME;
        }
        if (!write_text(catalog_path,
                        "# Written by mlviz probe: devices of this machine the catalog lacks.\n",
                        res.catalog_yaml))
            return EXIT_RUNTIME;
        fprintf(stderr, "mlviz: wrote catalog entries to %s\n", catalog_path);
    }
    if (!write_text(write_path, res.comments, yaml))
        return EXIT_RUNTIME;
    fprintf(stderr, "mlviz: wrote %s (open it with: mlviz -c %s)\n", write_path, write_path);
    return EXIT_OK;
}
