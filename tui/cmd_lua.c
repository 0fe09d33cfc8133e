/* PLACEHOLDER: replaced by the Lua work (issue 6). */
#include "cli.h"
int cmd_run(int argc, char **argv)
{
    (void)argc, (void)argv;
    cli_error("run: not built yet");
    return EXIT_RUNTIME;
}
int cmd_play(int argc, char **argv)
{
    (void)argc, (void)argv;
    cli_error("play: not built yet");
    return EXIT_RUNTIME;
}
int cmd_scenarios(int argc, char **argv)
{
    (void)argc, (void)argv;
    cli_error("scenarios: not built yet");
    return EXIT_RUNTIME;
}
