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
    bool play;
};

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The view's options play passes on, as two words (name, value) or one. */
static void forward(struct lua_cli *c, const char *name, const char *v)
{
    c->tui[c->ntui++] = (char *)name;
    if (v)
        c->tui[c->ntui++] = (char *)v;
}

/* One of the Lua commands' options (their row of the command table, whose
 * types and ranges the parser checked) with its value, or for play one of
 * the view's: 0, or -1 on a bad value (printed). */
static int lua_option(void *ctx, const char *name, const char *v)
{
    struct lua_cli *c = ctx;
    if (strcmp(name, "--help") == 0) {
        c->help = true;
    } else if (strcmp(name, "--trust") == 0) {
        c->opt.trusted = true;
    } else if (strcmp(name, "--seed") == 0) {
        c->opt.seed = strtoull(v, NULL, 10);
    } else if (strcmp(name, "--budget") == 0) {
        double n = 0;
        fields_parse_number(v, &n);
        c->opt.instruction_budget = (uint64_t)n;
    } else if (strcmp(name, "--memory") == 0) {
        double bytes = 0;
        fields_parse_bytes(v, &bytes);
        c->opt.memory_cap_bytes = (size_t)bytes;
    } else if (strcmp(name, "--timeout") == 0) {
        fields_parse_number(v, &c->opt.time_limit_s);
    } else if (strcmp(name, "--out") == 0) {
        /* Created on the first write; its parent must exist. */
        struct stat st;
        if (stat(v, &st) == 0 && !S_ISDIR(st.st_mode)) {
            cli_error("--out needs a directory (got '%s')", v);
            return -1;
        }
        c->opt.output_dir = v;
    } else if (strcmp(name, "--catalog") == 0) {
        c->catalog_dir = v;
        if (c->play) /* the view loads the catalog too */
            forward(c, name, v);
    } else if (c->play) {
        forward(c, name, v); /* the view's (commands.c), checked by its row */
    } else {
        return cli_unhandled(name);
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

/* The script's name, if it has none yet, then its arguments: plain
 * words, --name=value parameters, and after "--" every word ("--" itself
 * too once the script is named). */
static int lua_word(void *ctx, const char *word, bool ended)
{
    struct lua_cli *c = ctx;
    bool dash = strcmp(word, "--") == 0;
    if (!c->script && !dash && (ended || word[0] != '-'))
        c->script = word;
    else if (c->script || !dash)
        c->args[c->nargs++] = (char *)word;
    return 0;
}

/* Options before and after the script are ours (the command table's run
 * and play rows, play's with the view's); other --name=value words go to
 * the script's parameters; plain words are its arguments. */
static int parse_lua_cli(int argc, char **argv, struct lua_cli *c, bool play)
{
    memset(c, 0, sizeof *c);
    c->opt.seed = LUA_DEFAULT_SEED;
    c->play = play;
    c->args = calloc((size_t)argc + 1, sizeof *c->args);
    c->tui = calloc(2 * (size_t)argc + 2, sizeof *c->tui); /* --catalog=DIR becomes two */
    if (!c->args || !c->tui) {
        cli_error("out of memory");
        return -1;
    }
    return cli_parse_words(play ? "play" : "run", argc, argv, lua_option, lua_word, c) == 0 ? 0
                                                                                            : -1;
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
    char usage[4096];
    commands_usage(play ? "play" : "run", usage, sizeof usage);
    if (!c.script) {
        if (c.help) {
            cli_print_help(play ? "play" : "run");
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
