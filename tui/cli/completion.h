/* completion: shell completion scripts for bash, zsh and fish.
 *
 * Generated from the command table (tui/cli/commands.c: names, options,
 * their values, the view's row). Field paths after --set come from `mlviz fields` at
 * completion time, so they are never out of date. */
#ifndef MLVIZ_COMPLETION_H
#define MLVIZ_COMPLETION_H

#include <stdbool.h>
#include <stdio.h>

/* Writes the script for `shell` ("bash", "zsh" or "fish"); false for an
 * unknown shell. */
bool completion_write(FILE *out, const char *shell);

#endif
