/* infile: opening files a user names (setups, events, catalogs, stage texts).
 *
 * A path given on the command line or in a script may name anything: a FIFO
 * that nobody writes to, /dev/zero, a directory. Opening is done without
 * blocking (O_NONBLOCK | O_NOCTTY), the file is checked with fstat, and only
 * a regular file is accepted; everything else is refused with a message
 * that names the path and says what it is. */
#ifndef MLVIZ_INFILE_H
#define MLVIZ_INFILE_H

#include <stdbool.h>
#include <stddef.h>

/* Input files larger than this are refused ("PATH: larger than 64 MiB"). */
enum { INFILE_MAX_BYTES = 64 << 20 };

/* Reads a whole regular file of at most INFILE_MAX_BYTES into a malloc'ed,
 * NUL-terminated buffer (*len excludes the terminator; the text may hold
 * NULs of its own). False with "PATH: message" in err: "PATH: is a FIFO
 * (named pipe), not a regular file", "PATH: larger than 64 MiB", ...
 * (Lua scripts can be read with it and handed to luaL_loadbufferx.) */
bool infile_read(const char *path, char **text, size_t *len, char *err, size_t err_len);

/* Reads standard input to its end, with the same cap and messages as
 * infile_read (`name`, such as "<stdin>", stands for the path). A pipe or
 * a terminal is fine here: the user chose to give the text this way. */
bool infile_read_stdin(const char *name, char **text, size_t *len, char *err, size_t err_len);

#endif
