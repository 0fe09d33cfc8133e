/* cmd_lua: `mlviz run`, `mlviz play` and `mlviz scenarios`. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "csv.h"
#include "fields.h"
#include "luahost.h"
#include "options.h"
#include "paths.h"
#include "report.h"
#include "tui.h"

/* Seed of runs that do not name one: a fixed number, so a scenario replays
 * the same way every time. */
#define LUA_DEFAULT_SEED  42
#define LUA_PATH_LEN      1200
#define LUA_MAX_SCENARIOS 256
#define LUA_ERR_LEN       16384

struct lua_cli {
    const char *script;
    const char *catalog_dir;
    struct luahost_options opt;
    int nargs; /* words for the script */
    char **args;
    int ntui; /* play: options for the interactive view */
    char **tui;
    bool help;
};

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool parse_count(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !(v >= 1) || v > 1.8e19)
        return false;
    *out = (uint64_t)v;
    return true;
}

/* One of the Lua commands' options (their row of the command table), with
 * its value: 0, or -1 on a bad value (printed). */
static int lua_option(struct lua_cli *c, const char *name, const char *v, bool play)
{
    if (strcmp(name, "--trust") == 0) {
        c->opt.trusted = true;
    } else if (strcmp(name, "--seed") == 0) {
        uint64_t s;
        if (!parse_count(v, &s) && strcmp(v, "0") != 0) {
            cli_error("--seed needs a whole number (got '%s')", v);
            return -1;
        }
        c->opt.seed = strcmp(v, "0") == 0 ? 0 : s;
    } else if (strcmp(name, "--budget") == 0) {
        if (!parse_count(v, &c->opt.instruction_budget)) {
            cli_error("--budget needs a positive number of instructions (got '%s')", v);
            return -1;
        }
    } else if (strcmp(name, "--memory") == 0) {
        double bytes;
        if (!fields_parse_bytes(v, &bytes) || bytes < 1 << 20 || bytes > 1e13) {
            cli_error("--memory needs a size of at least 1MiB, e.g. 512MiB (got '%s')", v);
            return -1;
        }
        c->opt.memory_cap_bytes = (size_t)bytes;
    } else if (strcmp(name, "--timeout") == 0) {
        char *end;
        errno = 0;
        double t = strtod(v, &end);
        if (*end || errno || !isfinite(t) || !(t > 0)) {
            cli_error("--timeout needs a positive number of seconds (got '%s')", v);
            return -1;
        }
        c->opt.time_limit_s = t;
    } else if (strcmp(name, "--out") == 0) {
        /* Created on the first write; its parent must exist. */
        struct stat st;
        if (!v[0] || (stat(v, &st) == 0 && !S_ISDIR(st.st_mode))) {
            cli_error("--out needs a directory (got '%s')", v);
            return -1;
        }
        c->opt.output_dir = v;
    } else if (strcmp(name, "--catalog") == 0) {
        if (!cli_value_given(name, v))
            return -1;
        c->catalog_dir = v;
        if (play) { /* the view loads the catalog too */
            c->tui[c->ntui++] = "--catalog";
            c->tui[c->ntui++] = (char *)v;
        }
    }
    return 0;
}

/* Files the script wrote under another name than it asked for (the name
 * was taken by something the run did not create): say so, once, at the end. */
static void say_renamed(const struct luahost *h)
{
    char asked[2100], written[2100];
    size_t n = luahost_renamed(h, 0, asked, sizeof asked, written, sizeof written);
    for (size_t i = 0; i < n; i++) {
        luahost_renamed(h, i, asked, sizeof asked, written, sizeof written);
        cli_error("%s was there already: wrote %s", asked, written);
    }
}

/* Options before and after the script are ours; other --name=value words go
 * to the script's parameters; plain words are its arguments. */
static int parse_lua_cli(int argc, char **argv, struct lua_cli *c, bool play)
{
    memset(c, 0, sizeof *c);
    c->opt.seed = LUA_DEFAULT_SEED;
    c->args = calloc((size_t)argc + 1, sizeof *c->args);
    c->tui = calloc(2 * (size_t)argc + 2, sizeof *c->tui); /* --catalog=DIR becomes two */
    if (!c->args || !c->tui) {
        cli_error("out of memory");
        return -1;
    }
    bool rest = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v, *name;
        int k;
        const struct options_entry *opt;
        if (rest) { /* the script's name, if it had none yet, then its arguments */
            if (c->script)
                c->args[c->nargs++] = argv[i];
            else
                c->script = a;
            continue;
        }
        if (strcmp(a, "--") == 0) { /* ends our options; the script sees it after its name */
            rest = true;
            if (c->script)
                c->args[c->nargs++] = argv[i];
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            c->help = true;
        } else if ((k = cli_take_option(play ? "play" : "run", argc, argv, &i, &name, &v)) != 0) {
            if (k < 0 || lua_option(c, name, v, play) < 0)
                return -1;
        } else if (play && (opt = options_find(a, &v))) { /* the view's (tui/cli/options.c) */
            c->tui[c->ntui++] = argv[i];
            if (opt->arg && !v && i + 1 < argc)
                c->tui[c->ntui++] = argv[++i];
        } else if (!c->script && a[0] != '-') {
            c->script = a;
        } else {
            c->args[c->nargs++] = argv[i];
        }
    }
    return 0;
}

static void print_script_help(const char *path)
{
    char title[256], err[1024];
    struct luahost_param params[LUAHOST_MAX_PARAMS];
    size_t n = 0;
    if (!luahost_describe(path, title, sizeof title, params, LUAHOST_MAX_PARAMS, &n, err,
                          sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    printf("%s\n%s\n", path, title);
    if (n)
        printf("\nparameters:\n");
    for (size_t i = 0; i < n; i++)
        printf("  --%s=%s  %s (default %s)\n", params[i].name, params[i].type, params[i].help,
               params[i].default_text);
}

static void free_cli(struct lua_cli *c)
{
    free(c->args);
    free(c->tui);
}

/* Headless: SIGINT/SIGTERM stop the script at its next check; the run then
 * exits 128 + the signal's number. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
    luahost_interrupt();
}

static int run_or_play(int argc, char **argv, bool play)
{
    struct lua_cli c;
    if (parse_lua_cli(argc, argv, &c, play) < 0) {
        free_cli(&c);
        return EXIT_USAGE;
    }
    char usage[512];
    commands_usage(play ? "play" : "run", usage, sizeof usage);
    if (!c.script) {
        if (c.help) {
            printf("usage: %s\n  %s a Lua scenario%s. SCRIPT may be a scenario name (see 'mlviz "
                   "scenarios').\n",
                   usage, play ? "Plays" : "Runs", play ? " in the interactive view" : " headless");
            commands_option_help(stdout, play ? "play" : "run");
            printf("  %-*s set a parameter the script declares (SCRIPT --help lists them)\n",
                   COMMANDS_HELP_WIDTH, "--name=value");
            if (play) {
                printf("mlviz play takes the same options and these of the view:\n");
                options_help(stdout, OPT_PLAY);
            }
            free_cli(&c);
            return EXIT_OK;
        }
        cli_error("%s: which script? (usage: %s)", play ? "play" : "run", usage);
        free_cli(&c);
        return EXIT_USAGE;
    }
    char path[LUA_PATH_LEN];
    paths_resolve(PATHS_SCENARIO, c.script, path, sizeof path);
    if (!is_file(path)) {
        cli_error("no script '%s' (not a file, nor a scenario in %s/scenarios)", c.script,
                  mlviz_data_dir());
        free_cli(&c);
        return EXIT_USAGE;
    }
    if (c.help) {
        print_script_help(path);
        free_cli(&c);
        return EXIT_OK;
    }
    struct catalog *cat = cli_load_catalog(c.catalog_dir);
    if (!cat) {
        free_cli(&c);
        return EXIT_USAGE;
    }
    c.opt.cat = cat;
    c.opt.played = play;
    if (play)
        cli_screen()->play_hooks(&c.opt.hooks); /* narration, focus and print go to the view */
    char *err = malloc(LUA_ERR_LEN);
    int rc = EXIT_RUNTIME;
    struct luahost *h = err ? luahost_new(&c.opt, err, LUA_ERR_LEN) : NULL;
    if (h && stop_signal)
        luahost_interrupt(); /* a signal before the host existed stops it too */
    if (!h) {
        cli_error("%s", err ? err : "out of memory");
    } else if (!luahost_load(h, path, c.nargs, c.args, err, LUA_ERR_LEN)) {
        fprintf(stderr, "%s\n", err);
        rc = luahost_usage_error(h) ? EXIT_USAGE : EXIT_RUNTIME;
    } else if (play) {
        fflush(stdout);
        rc = view_play(&h, path, c.ntui, c.tui);
    } else if (luahost_run(h, err, LUA_ERR_LEN)) {
        rc = EXIT_OK;
    } else {
        fflush(stdout);
        fprintf(stderr, "%s\n", err);
    }
    fflush(stdout);
    if (h)
        say_renamed(h);
    luahost_free(h);
    free(err);
    catalog_free(cat);
    free_cli(&c);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int rc = run_or_play(argc, argv, false);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (stop_signal)
        rc = 128 + stop_signal;
    return rc;
}

int cmd_play(int argc, char **argv)
{
    return run_or_play(argc, argv, true);
}

/* Append without overflowing (long lists are cut). */
static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    while (*s && used + 1 < len)
        buf[used++] = *s++;
    buf[used] = '\0';
}

/* One scenario as a row of `mlviz scenarios`; false when it does not load. */
static bool write_scenario(struct json_writer *w, int format, const char *name)
{
    char path[LUA_PATH_LEN], title[256], err[1024], plist[512] = "";
    struct luahost_param params[LUAHOST_MAX_PARAMS];
    size_t np = 0;
    bool ok = paths_shipped(PATHS_SCENARIO, name, path, sizeof path) &&
              luahost_describe(path, title, sizeof title, params, LUAHOST_MAX_PARAMS, &np, err,
                               sizeof err);
    if (!ok) {
        fprintf(stderr, "%s\n", err);
        snprintf(title, sizeof title, "(does not load)");
    }
    for (size_t k = 0; k < np; k++) {
        append(plist, sizeof plist, k ? " " : "");
        append(plist, sizeof plist, params[k].name);
    }
    if (format == FORMAT_JSON) {
        json_row_open(w);
        json_key_str(w, "name", name);
        json_key_str(w, "description", title);
        json_key_str(w, "parameters", plist);
        json_row_close(w);
    } else if (format == FORMAT_CSV) {
        struct csv_row row;
        csv_row_begin(&row, stdout);
        csv_row_field(&row, name);
        csv_row_field(&row, title);
        csv_row_field(&row, plist);
        csv_row_end(&row);
    } else {
        printf("%-26s %s\n", name, title);
    }
    return ok;
}

int cmd_scenarios(int argc, char **argv)
{
    struct cli_common common = {0};
    int parsed = cli_parse("scenarios", argc, argv, cli_common_only, &common, NULL, 0);
    if (parsed == CLI_PARSE_HELP)
        printf("  Lists the shipped scenarios; run one with 'mlviz run NAME' or play it "
               "with 'mlviz play NAME'.\n");
    if (parsed < 0)
        return cli_parse_exit(parsed);
    char dir[LUA_PATH_LEN];
    paths_shipped_dir(PATHS_SCENARIO, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("cannot open %s: %s", dir, strerror(errno));
        return EXIT_RUNTIME;
    }
    closedir(d);
    static char names[LUA_MAX_SCENARIOS][PATHS_NAME_LEN];
    size_t n = paths_list(PATHS_SCENARIO, names, LUA_MAX_SCENARIOS);
    int rc = EXIT_OK;
    struct json_writer w;
    if (common.format == FORMAT_JSON)
        json_rows_begin(&w, stdout);
    else if (common.format == FORMAT_CSV)
        printf("name,description,parameters\n");
    for (size_t i = 0; i < n; i++)
        if (!write_scenario(&w, common.format, names[i]))
            rc = EXIT_RUNTIME;
    if (common.format == FORMAT_JSON)
        json_rows_finish(&w);
    else if (common.format == FORMAT_TEXT)
        printf("\nRun one with 'mlviz run NAME' (headless) or 'mlviz play NAME'; "
               "'mlviz run NAME --help' lists its parameters.\n");
    return rc;
}
