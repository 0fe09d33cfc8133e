/* safewrite: the one way mlviz writes a file (setups from `plan` and
 * `probe`, the user catalog's probe.yaml, the view's `w` key, the CSV and
 * JSON files of Lua scripts).
 *
 * The rules, for every file:
 * - The text goes to a fresh hidden temporary file created with O_CREAT |
 *   O_EXCL | O_NOFOLLOW in the target's directory, and reaches its name
 *   only once complete; a failed write leaves no half file and the previous
 *   one untouched.
 * - Everything happens relative to one descriptor of the directory, and the
 *   last part of a name is never followed: a symbolic link (to a file, to a
 *   directory, dangling) is a name like any other.
 * - Nothing that exists is replaced unless the caller says so
 *   (SAFEWRITE_REPLACE: the user gave --force, or the file is mlviz's own),
 *   and even then only a regular file: never a link, a directory or a
 *   device. SAFEWRITE_NEW puts the file in place with linkat, which fails
 *   when the name is taken, so no check-then-write race exists.
 * - The caller learns the path that was written (`path`), so it can say so.
 */
#ifndef MLVIZ_SAFEWRITE_H
#define MLVIZ_SAFEWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SAFEWRITE_NAME_LEN 256
#define SAFEWRITE_PATH_LEN 4096
/* SAFEWRITE_NEW_NAME tries NAME.EXT, NAME-2.EXT, ... up to this suffix. */
#define SAFEWRITE_MAX_SUFFIX 999

enum safewrite_mode {
    SAFEWRITE_NEW,      /* fail when anything exists at the name */
    SAFEWRITE_NEW_NAME, /* when the name is taken, the first free NAME-N.EXT */
    SAFEWRITE_REPLACE,  /* replace a regular file there (nothing else) */
};

struct safewrite {
    FILE *f; /* write the text here between begin and commit */
    int dir_fd;
    bool own_dir_fd; /* opened by safewrite_begin (closed at the end) */
    enum safewrite_mode mode;
    char tmp_name[64];
    char name[SAFEWRITE_NAME_LEN];      /* asked for; after commit, the name written */
    char dir_shown[SAFEWRITE_PATH_LEN]; /* the directory as messages show it ("" = none) */
    char path[SAFEWRITE_PATH_LEN + SAFEWRITE_NAME_LEN]; /* dir_shown/name, as shown */
};

/* Opens a directory to write into, refusing a symbolic link at its last
 * part; with `create`, makes it first (mode 0755) when it is missing.
 * Returns the descriptor or -1 with a message naming `dir`. */
int safewrite_open_dir(const char *dir, bool create, char *err, size_t err_len);

/* True when something (a file, a link, even a dangling one) has `name` in
 * the directory. */
bool safewrite_taken(int dir_fd, const char *name);

/* Starts writing `path` (its directory as the user named it, the file name
 * never followed). False with a message when the directory cannot be
 * opened, the name is not a file name, or (SAFEWRITE_NEW, SAFEWRITE_REPLACE)
 * it is already taken by something this mode may not replace. */
bool safewrite_begin(struct safewrite *w, const char *path, enum safewrite_mode mode, char *err,
                     size_t err_len);
/* The same inside an open directory (left open); dir_shown prefixes the
 * name in messages and in `path`. `name` has no '/'. */
bool safewrite_begin_at(struct safewrite *w, int dir_fd, const char *dir_shown, const char *name,
                        enum safewrite_mode mode, char *err, size_t err_len);
/* Flushes, closes and puts the file in place; w->path is then what was
 * written. On failure the temporary file is gone, whatever was at the name
 * is as it was, and err says why ("PATH exists (...)" when the name was
 * taken meanwhile). */
bool safewrite_commit(struct safewrite *w, char *err, size_t err_len);
/* Gives up: the temporary file is removed. Safe to call twice. */
void safewrite_abort(struct safewrite *w);

/* begin + the text + commit. `written` (may be NULL) receives the path. */
bool safewrite_text(const char *path, const char *text, enum safewrite_mode mode, char *written,
                    size_t written_len, char *err, size_t err_len);

#endif
