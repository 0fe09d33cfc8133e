/* main: command dispatch by the command table (tui/cli/commands.c). With no
 * command mlviz opens the interactive view. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "options.h"
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
    fputs("\n"
          "Formats F: text (default), csv, json. A PRESET is a name from scenarios/presets\n"
          "(default, gpt3-175b-a100, tpu-v4-pod, workstation, laptop-cpu); '-' reads the setup\n"
          "from stdin. check, eval, sim and plan take --set PATH=VALUE (repeatable); eval\n"
          "takes --model CONFIG.json|NAME and --strict.\n"
          "Exit status: 0 ok, 1 runtime or script error, 2 usage or input error,\n"
          "3 eval --strict on a setup that cannot run.\n"
          "\n"
          "Options of the interactive view (mlviz, mlviz play):\n",
          stdout);
    options_help(stdout, OPT_VIEW | OPT_PLAY);
}

static bool is_word(const char *arg, const char *a, const char *b, const char *c)
{
    return strcmp(arg, a) == 0 || strcmp(arg, b) == 0 || (c && strcmp(arg, c) == 0);
}

int main(int argc, char **argv)
{
    cli_use_screen(&tui_screen);
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
