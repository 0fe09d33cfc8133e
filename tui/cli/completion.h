/* completion: shell completion scripts for bash, zsh and fish.
 *
 * Generated from the command names main() dispatches on, the option table
 * of the interactive view (tui/cli/options.c) and the headless commands' table
 * (tui/cli/commands.c), which also writes their usage lines. Field paths after --set come from
 * `mlviz fields` at completion time, so they are never out of date. */
#ifndef MLVIZ_COMPLETION_H
#define MLVIZ_COMPLETION_H

#include <stdbool.h>
#include <stdio.h>

/* Writes the script for `shell` ("bash", "zsh" or "fish"); false for an
 * unknown shell. `commands` are the subcommand names. */
bool completion_write(FILE *out, const char *shell, const char *const *commands, size_t n_commands);

#endif
