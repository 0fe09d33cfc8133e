/* lua_output: where the files a Lua script writes go (mlviz.write_csv and
 * mlviz.write_json), and how they get there.
 *
 * Sandboxed scripts write only plain file names ("sweep.csv": letters,
 * digits, '.', '_', '-', no leading dot, at most LUA_OUTPUT_NAME_MAX bytes,
 * the extension of the writer) into one output directory. The directory is
 * created on the first write (mode 0755) and opened once without following
 * a symbolic link; every file is opened relative to that descriptor, so no
 * link, planted before or during the run, can redirect a write. Trusted
 * scripts (--trust) name any path.
 *
 * Every write goes through safewrite.h: complete or not at all, never
 * through a link, and never over a file this run did not create. A name
 * that is taken by anything else (an earlier run's result, a user's file, a
 * link) gets the first free NAME-2.EXT, NAME-3.EXT, ..., which the write
 * returns and which later writes of the same name in the run replace. */
#ifndef MLVIZ_LUA_OUTPUT_H
#define MLVIZ_LUA_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "safewrite.h"

#define LUA_OUTPUT_NAME_MAX 128
#define LUA_OUTPUT_PATH_LEN 1024
/* Bytes a sandboxed script may write in one run, all files together (a loop
 * of writes must not fill the disk). */
#define LUA_OUTPUT_MAX_BYTES ((long long)1 << 30)
/* The output directory of sandboxed scripts when --out does not name one. */
#define LUA_OUTPUT_DEFAULT_DIR "mlviz-out"

/* Files one run may create (a loop of writes must not fill the directory). */
#define LUA_OUTPUT_MAX_FILES 1000

/* A file this run created: the name the script asked for (a trusted one
 * with --out's directory in front) and the one written. */
struct lua_output_created {
    char asked[LUA_OUTPUT_PATH_LEN];
    char written[LUA_OUTPUT_PATH_LEN];
};

struct lua_output {
    char dir[LUA_OUTPUT_PATH_LEN]; /* as given; "" = default */
    bool trusted;
    int dir_fd;              /* sandboxed: the opened directory, -1 until the first write */
    long long bytes_written; /* committed so far in this run */
    long long max_bytes;     /* sandboxed: LUA_OUTPUT_MAX_BYTES after init */
    struct lua_output_created *created; /* the files of this run (malloc'ed) */
    size_t n_created, cap_created;
};

/* A file being written: write to `w.f`, then commit or abort. After a
 * commit `w.path` is the file written, as shown to the script. */
struct lua_output_file {
    struct safewrite w;
    char asked[LUA_OUTPUT_PATH_LEN];
    struct lua_output *owner;
};

/* dir: the --out directory or NULL. */
void lua_output_init(struct lua_output *o, const char *dir, bool trusted);
void lua_output_close(struct lua_output *o);

/* Check a sandboxed file name (len: its length in bytes, NULs included)
 * against the rule above; ext is ".csv" or ".json". The message names the
 * file and the reason. */
bool lua_output_check_name(const char *name, size_t len, const char *ext, char *err,
                           size_t err_len);

/* Start writing `name` (len bytes): checks the name (sandboxed), opens the
 * directory if needed and creates the temporary file. */
bool lua_output_begin(struct lua_output *o, const char *name, size_t len, const char *ext,
                      struct lua_output_file *out, char *err, size_t err_len);
/* Finish: flush, close, link or rename into place. On failure (an I/O
 * error, or past LUA_OUTPUT_MAX_BYTES in the sandbox) the temp file is gone
 * and whatever was at the name untouched. */
bool lua_output_commit(struct lua_output_file *f, char *err, size_t err_len);
/* Give up: close and remove the temp file. */
void lua_output_abort(struct lua_output_file *f);

/* A restarted run (mlviz play's new parameters) keeps the files the one
 * before created as its own. False when out of memory. */
bool lua_output_adopt_created(struct lua_output *o, const struct lua_output *from);
/* The i-th file written under another name than the script asked for;
 * returns how many there are (asked/written, as paths, set when i is below
 * that). */
size_t lua_output_renamed(const struct lua_output *o, size_t i, char *asked, size_t asked_len,
                          char *written, size_t written_len);

#endif
