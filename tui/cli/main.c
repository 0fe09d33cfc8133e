/* main: command dispatch by the command table (tui/cli/commands.c). With no
 * command mlviz opens the interactive view. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "hfconfig.h"
#include "paths.h"
#include "tui.h"

/* `mlviz --help`: the ways in, the commands of the table, what they share
 * and the view's options. */
static void print_usage(void)
{
    fputs("usage: mlviz [options]           open the interactive pipeline view\n"
          "       mlviz COMMAND [arguments]  one of the commands below\n"
          "       mlviz --help | --version\n"
          "\n"
          "Commands ('mlviz COMMAND --help' shows every option):\n",
          stdout);
    commands_list(stdout);
    enum { MAX_PRESETS = 64 };
    static char presets[MAX_PRESETS][PATHS_NAME_LEN];
    size_t n = paths_list(PATHS_PRESET, presets, MAX_PRESETS);
    fputs("\nFormats F: text (default), csv, json. A PRESET is a name from scenarios/presets:\n ",
          stdout);
    for (size_t i = 0; i < n; i++)
        printf(" %s%s", presets[i], i + 1 < n ? "," : ".\n");
    fputs("'-' reads the setup from stdin. check, eval, infer, sim, plan and the view\n"
          "take --set PATH=VALUE (repeatable); eval and infer take --model\n"
          "CONFIG.json|NAME and --strict. --force-architecture (any command) reads a\n"
          "config.json of an architecture mlviz does not know as a decoder-only\n"
          "transformer instead of refusing it (docs/HFCONFIG.md). '--' ends the options.\n"
          "Exit status: 0 ok, 1 runtime or script error, 2 usage or input error,\n"
          "3 eval --strict on a setup that cannot run.\n"
          "\n"
          "Options of the interactive view (mlviz, mlviz play):\n",
          stdout);
    commands_option_help(stdout, "");
}

static bool is_word(const char *arg, const char *a, const char *b, const char *c)
{
    return strcmp(arg, a) == 0 || strcmp(arg, b) == 0 || (c && strcmp(arg, c) == 0);
}

/* Warnings of the config.json reader, each said once. */
static void warn_once(const char *message)
{
    enum { REMEMBERED = 32, KEPT = 96 };
    static char said[REMEMBERED][KEPT];
    static int n_said;
    for (int i = 0; i < n_said; i++)
        if (strncmp(said[i], message, KEPT - 1) == 0)
            return;
    if (n_said < REMEMBERED)
        snprintf(said[n_said++], KEPT, "%s", message);
    fprintf(stderr, "mlviz: warning: %s\n", message);
}

/* --force-architecture applies to whatever loads a config.json, so every
 * command takes it; it is taken out before the command sees its options
 * (not after a '--', which ends them). */
static int take_global_options(int argc, char **argv)
{
    int out = 1;
    bool ended = false;
    for (int i = 1; i < argc; i++) {
        if (!ended && strcmp(argv[i], "--") == 0)
            ended = true;
        if (!ended && strcmp(argv[i], "--force-architecture") == 0) {
            hfconfig_set_force_architecture(true);
            continue;
        }
        argv[out++] = argv[i];
    }
    argv[out] = NULL;
    return out;
}

int main(int argc, char **argv)
{
    cli_use_screen(&tui_screen);
    hfconfig_set_warning_sink(warn_once);
    argc = take_global_options(argc, argv);
    if (argc >= 2 && is_word(argv[1], "--help", "-h", "help")) {
        print_usage();
        return EXIT_OK;
    }
    if (argc >= 2 && is_word(argv[1], "--version", "-V", NULL)) {
        printf("mlviz %s\n", MLVIZ_VERSION);
        return EXIT_OK;
    }
    if (argc < 2 || argv[1][0] == '-')
        return cmd_view(argc, argv);
    const struct commands_spec *c = commands_find(argv[1]);
    if (c)
        return c->run(argc - 1, argv + 1);
    enum { MAX_COMMANDS = 64 };
    const char *names[MAX_COMMANDS];
    size_t n = 0;
    for (; n < MAX_COMMANDS && (c = commands_at(n)) != NULL; n++)
        names[n] = c->name;
    const char *near = fields_suggest_word(argv[1], names, n);
    cli_error("unknown command '%s'%s%s%s; see 'mlviz --help'", argv[1],
              near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    return EXIT_USAGE;
}
