/* paths: the one resolver of the names a user may give instead of a path.
 *
 * A setup argument ("gpt3-175b-a100") names a preset in
 * <data>/scenarios/presets/NAME.yaml; a script argument ("data-starvation")
 * names a scenario in <data>/scenarios/NAME.lua (<data> is mlviz_data_dir()).
 * The CLI (setup loading, lessons, run/play, scenarios) and the Lua host's
 * load() resolve through these functions, so one rule holds everywhere:
 *
 *   an argument is a path when it is an existing regular file or holds a
 *   '/', and (for setups) when it names a .yaml or .yml file; any other
 *   word is a shipped name, with the kind's extension added when missing. */
#ifndef MLVIZ_PATHS_H
#define MLVIZ_PATHS_H

#include <stdbool.h>
#include <stddef.h>

enum paths_kind { PATHS_PRESET, PATHS_SCENARIO };

/* True when `arg` is to be read as a path, not as a shipped name. */
bool paths_is_path(enum paths_kind kind, const char *arg);
/* The shipped file `name` stands for, in out; false when there is none. */
bool paths_shipped(enum paths_kind kind, const char *name, char *out, size_t len);
/* What to open for an argument: a path as given, else the shipped file,
 * else the argument itself (so that the loader names the missing file). */
void paths_resolve(enum paths_kind kind, const char *arg, char *out, size_t len);
/* The directory of the shipped files of `kind`. */
void paths_shipped_dir(enum paths_kind kind, char *out, size_t len);

enum { PATHS_NAME_LEN = 64 };
/* The shipped names of `kind` (no extension, no dot files), sorted; returns
 * how many (at most max). */
size_t paths_list(enum paths_kind kind, char (*names)[PATHS_NAME_LEN], size_t max);

#endif
