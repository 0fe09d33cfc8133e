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

/* ---- untrusted names: reading only below a directory ----
 * A name that comes from untrusted input (a sandboxed script, a setup such
 * a script loads) is read only below one directory, `root`: the name must be
 * relative, without a ".." part, and every part of it is opened with
 * O_NOFOLLOW from the descriptor of the part before, so no symbolic link,
 * planted before or during the run, leads out. Messages name the file as
 * the caller shows it and say nothing about anything outside `root`. */

/* Paths below a directory are at most this long (bytes with the NUL). */
enum { INFILE_PATH_LEN = 1024 };

/* Whether rel may be looked up below a directory at all (relative, no
 * "..", not empty, not too long); false with the reason ("an absolute path"). */
bool infile_check_below(const char *rel, char *err, size_t err_len);
/* `name` relative to the directory of `base` (both below the same root):
 * "dir/setup.yaml" and "cfg.json" give "dir/cfg.json". False with the reason
 * when name fails infile_check_below. */
bool infile_join_below(const char *base, const char *name, char *out, size_t out_len, char *err,
                       size_t err_len);
/* True when rel leads to something below root: an entry at its end, or a
 * symbolic link met on the way (which infile_read_below then refuses; what
 * the link points to is never looked at). */
bool infile_exists_below(const char *root, const char *rel);
/* infile_read for rel below root (NULL or "" = the current directory);
 * `shown` names it in messages. */
bool infile_read_below(const char *root, const char *rel, const char *shown, char **text,
                       size_t *len, char *err, size_t err_len);

#endif
