/* PLACEHOLDER: replaced by the terminal UI work (issue 5). */
#include "cli.h"
int tui_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    cli_error("the interactive view is not built yet; try 'mlviz eval default'");
    return EXIT_USAGE;
}
int tui_play(struct luahost *host, const char *script_path, int argc, char **argv)
{
    (void)host, (void)script_path, (void)argc, (void)argv;
    cli_error("play: the interactive view is not built yet");
    return EXIT_USAGE;
}
