/* main: command dispatch. With no command mlviz opens the interactive view. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "completion.h"
#include "options.h"
#include "tui.h"

static const char usage_text[] =
    "usage: mlviz [options]                         open the interactive pipeline view\n"
    "       mlviz catalog [KIND] [--format F]       hardware tables (accelerators, cpus, storage,\n"
    "                                                links, cooling, software)\n"
    "       mlviz check FILE|PRESET [--format F]    load a setup, print it and its sanity checks\n"
    "       mlviz eval FILE|PRESET [--format F]     the analytic model: step time, bottleneck,\n"
    "                                                memory, power, cost, reliability\n"
    "       mlviz collective --op OP --size S --devices N [--setup FILE|--link ID]\n"
    "       mlviz sim FILE|PRESET [--duration 6h] [--seed N] [--events FILE] [--series]\n"
    "       mlviz plan FILE|PRESET [options]        search layouts and hardware: top N, Pareto\n"
    "                                                front, shards (mlviz plan --help)\n"
    "       mlviz run SCRIPT.lua [args...]          run a Lua scenario headless\n"
    "       mlviz play SCRIPT.lua [options] [args...]  play a Lua scenario in the interactive "
    "view\n"
    "       mlviz lesson FILE.yaml [options]       present setups with captions (no Lua needed)\n"
    "       mlviz scenarios                         list the shipped scenarios\n"
    "       mlviz fields [--format F]               every setup field: path, default, range, help\n"
    "       mlviz probe [--write FILE] [--measure DIR]  this machine as a setup\n"
    "       mlviz completion bash|zsh|fish          a shell completion script\n"
    "       mlviz keys [--man|--md]                 the key bindings of the interactive view\n"
    "       mlviz options [--man]                   the options of the interactive view\n"
    "       mlviz --help | --version\n"
    "\n"
    "Formats F: text (default), csv, json. A PRESET is a name from scenarios/presets\n"
    "(default, gpt3-175b-a100, tpu-v4-pod, workstation, laptop-cpu); '-' reads the setup\n"
    "from stdin. check, eval and sim take --set PATH=VALUE (repeatable); eval takes\n"
    "--model CONFIG.json|NAME and --strict. 'mlviz COMMAND --help' shows every option.\n"
    "Exit status: 0 ok, 1 runtime or script error, 2 usage or input error,\n"
    "3 eval --strict on a setup that cannot run.\n"
    "\n"
    "Options of the interactive view (mlviz, mlviz play):\n";

/* `mlviz options [--man] [--md]`: the view's option table as help, man-page
 * roff or the markdown of docs/. */
static int options_option(void *ctx, const char *name, const char *value)
{
    (void)value;
    *(const char **)ctx = name;
    return 0;
}

static int cmd_options(int argc, char **argv)
{
    const char *form = NULL;
    int n = cli_parse("options", argc, argv, options_option, &form, NULL, 0);
    if (n < 0)
        return cli_parse_exit(n);
    if (form && strcmp(form, "--man") == 0)
        options_man(stdout);
    else if (form)
        options_markdown(stdout);
    else
        options_help(stdout, OPT_VIEW | OPT_PLAY);
    return EXIT_OK;
}

/* `mlviz keys [--man|--md]`: the key table as help text, man-page roff or
 * markdown (the block in docs/TUI.md). */
static int cmd_keys(int argc, char **argv)
{
    bool man = argc == 2 && strcmp(argv[1], "--man") == 0;
    bool md = argc == 2 && strcmp(argv[1], "--md") == 0;
    if (argc > 2 || (argc == 2 && !man && !md)) {
        cli_error("usage: mlviz keys [--man|--md]");
        return EXIT_USAGE;
    }
    tui_write_keys(stdout, man ? TUI_KEYS_MAN : md ? TUI_KEYS_MD : TUI_KEYS_TEXT);
    return EXIT_OK;
}

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
};

static int cmd_completion(int argc, char **argv);

static const struct command commands[] = {
    {"catalog", cmd_catalog}, {"check", cmd_check},
    {"eval", cmd_eval},       {"collective", cmd_collective},
    {"sim", cmd_sim},         {"run", cmd_run},
    {"play", cmd_play},       {"scenarios", cmd_scenarios},
    {"fields", cmd_fields},   {"keys", cmd_keys},
    {"options", cmd_options}, {"lesson", cmd_lesson},
    {"plan", cmd_plan},

    {"probe", cmd_probe},     {"completion", cmd_completion},
};

enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

/* `mlviz completion bash|zsh|fish`: the script, from the command table. */
static int cmd_completion(int argc, char **argv)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: mlviz completion bash|zsh|fish\n");
        return EXIT_OK;
    }
    if (argc != 2 || !completion_write(stdout, argv[1], names, N_COMMANDS)) {
        cli_error("usage: mlviz completion bash|zsh|fish");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        fputs(usage_text, stdout);
        options_help(stdout, OPT_VIEW | OPT_PLAY);
        return EXIT_OK;
    }
    if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
        printf("mlviz %s\n", MLVIZ_VERSION);
        return EXIT_OK;
    }
    if (argc >= 2 && argv[1][0] != '-') {
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                return commands[i].run(argc - 1, argv + 1);
        const char *names[sizeof commands / sizeof commands[0]];
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            names[i] = commands[i].name;
        const char *near = fields_suggest_word(argv[1], names, sizeof names / sizeof names[0]);
        cli_error("unknown command '%s'%s%s%s; see 'mlviz --help'", argv[1],
                  near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        return EXIT_USAGE;
    }
    return cmd_view(argc, argv);
}
