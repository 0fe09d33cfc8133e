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
 * Every write is atomic: the text goes to a fresh temporary file in the
 * same directory, which replaces the target by rename only once it is
 * complete. A failed write leaves the previous file as it was. */
#ifndef MLVIZ_LUA_OUTPUT_H
#define MLVIZ_LUA_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define LUA_OUTPUT_NAME_MAX 128
#define LUA_OUTPUT_PATH_LEN 1024
/* Bytes a sandboxed script may write in one run, all files together (a loop
 * of writes must not fill the disk). */
#define LUA_OUTPUT_MAX_BYTES ((long long)1 << 30)
/* The output directory of sandboxed scripts when --out does not name one. */
#define LUA_OUTPUT_DEFAULT_DIR "mlviz-out"

struct lua_output {
    char dir[LUA_OUTPUT_PATH_LEN]; /* as given; "" = default */
    bool trusted;
    int dir_fd;              /* sandboxed: the opened directory, -1 until the first write */
    long long bytes_written; /* committed so far in this run */
    long long max_bytes;     /* sandboxed: LUA_OUTPUT_MAX_BYTES after init */
};

/* A file being written: write to `f`, then commit or abort. */
struct lua_output_file {
    FILE *f;
    int dir_fd;      /* directory holding the temp file and the target */
    bool own_dir_fd; /* close dir_fd when done (trusted writes) */
    char tmp_name[LUA_OUTPUT_NAME_MAX + 64];
    char target_name[LUA_OUTPUT_PATH_LEN];
    char path[LUA_OUTPUT_PATH_LEN * 2]; /* the target as shown to the script */
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
/* Finish: flush, close, rename into place. On failure (an I/O error, or
 * past LUA_OUTPUT_MAX_BYTES in the sandbox) the temp file is gone and the
 * previous file untouched. */
bool lua_output_commit(struct lua_output_file *f, char *err, size_t err_len);
/* Give up: close and remove the temp file. */
void lua_output_abort(struct lua_output_file *f);

#endif
