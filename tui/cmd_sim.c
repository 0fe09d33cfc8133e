/* PLACEHOLDER: replaced by the step-loop work (issue 4). */
#include "cli.h"
int cmd_sim(int argc, char **argv)
{
    (void)argc, (void)argv;
    cli_error("sim: not built yet");
    return EXIT_RUNTIME;
}
