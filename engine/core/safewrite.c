/* safewrite: temporary file, then link or rename into place (see safewrite.h). */
#include "safewrite.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Temporary names tried before giving up (other writers holding them). */
#define SAFEWRITE_TMP_TRIES 16

static const char *kind_of(mode_t mode)
{
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISREG(mode))
        return "a file";
    return "a special file";
}

int safewrite_open_dir(const char *dir, bool create, char *err, size_t err_len)
{
    const char *d = dir && dir[0] ? dir : ".";
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = open(d, flags);
    if (fd < 0 && errno == ENOENT && create) {
        if (mkdir(d, 0755) != 0 && errno != EEXIST) {
            snprintf(err, err_len, "cannot create the directory '%s': %s", d, strerror(errno));
            return -1;
        }
        fd = open(d, flags);
    }
    if (fd < 0) {
        int e = errno;
        struct stat st;
        if (lstat(d, &st) == 0 && S_ISLNK(st.st_mode))
            snprintf(err, err_len,
                     "'%s' is a symbolic link (mlviz writes only into a directory named "
                     "as it is: give the directory it points to)",
                     d);
        else if (e == ENOTDIR)
            snprintf(err, err_len, "'%s' is not a directory", d);
        else
            snprintf(err, err_len, "cannot open the directory '%s': %s", d, strerror(e));
        return -1;
    }
    return fd;
}

bool safewrite_taken(int dir_fd, const char *name)
{
    struct stat st;
    return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

static void set_path(struct safewrite *w)
{
    if (w->dir_shown[0])
        snprintf(w->path, sizeof w->path, "%s%s%s", w->dir_shown,
                 w->dir_shown[strlen(w->dir_shown) - 1] == '/' ? "" : "/", w->name);
    else
        snprintf(w->path, sizeof w->path, "%s", w->name);
}

static void release(struct safewrite *w)
{
    if (w->own_dir_fd && w->dir_fd >= 0)
        close(w->dir_fd);
    w->dir_fd = -1;
    w->own_dir_fd = false;
}

/* What may stop a write before it starts, by mode (false with a message). */
static bool check_target(const struct safewrite *w, char *err, size_t err_len)
{
    struct stat st;
    if (fstatat(w->dir_fd, w->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return true;
    if (w->mode == SAFEWRITE_NEW) {
        snprintf(err, err_len, "%s already exists (%s); it is left as it is", w->path,
                 kind_of(st.st_mode));
        return false;
    }
    if (w->mode == SAFEWRITE_REPLACE && !S_ISREG(st.st_mode)) {
        snprintf(err, err_len, "%s exists and is %s, not a regular file (never replaced)", w->path,
                 kind_of(st.st_mode));
        return false;
    }
    return true;
}

static bool begin_in(struct safewrite *w, int dir_fd, bool own, const char *dir_shown,
                     const char *name, enum safewrite_mode mode, char *err, size_t err_len)
{
    memset(w, 0, sizeof *w);
    w->dir_fd = dir_fd;
    w->own_dir_fd = own;
    w->mode = mode;
    snprintf(w->dir_shown, sizeof w->dir_shown, "%s", dir_shown ? dir_shown : "");
    size_t len = strlen(name);
    if (len == 0 || len >= sizeof w->name || strchr(name, '/') || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0) {
        snprintf(err, err_len, "'%.200s' does not name a file", name);
        release(w);
        return false;
    }
    memcpy(w->name, name, len + 1);
    set_path(w);
    if (!check_target(w, err, err_len)) {
        release(w);
        return false;
    }
    static unsigned long counter;
    int fd = -1;
    for (int i = 0; i < SAFEWRITE_TMP_TRIES && fd < 0; i++) {
        snprintf(w->tmp_name, sizeof w->tmp_name, ".mlviz-tmp-%ld-%lu", (long)getpid(), ++counter);
        fd =
            openat(dir_fd, w->tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd >= 0 && !(w->f = fdopen(fd, "w"))) {
        close(fd);
        unlinkat(dir_fd, w->tmp_name, 0);
        fd = -1;
    }
    if (fd < 0) {
        snprintf(err, err_len, "cannot write %s: %s", w->path, strerror(errno));
        release(w);
        return false;
    }
    return true;
}

bool safewrite_begin_at(struct safewrite *w, int dir_fd, const char *dir_shown, const char *name,
                        enum safewrite_mode mode, char *err, size_t err_len)
{
    return begin_in(w, dir_fd, false, dir_shown, name, mode, err, err_len);
}

bool safewrite_begin(struct safewrite *w, const char *path, enum safewrite_mode mode, char *err,
                     size_t err_len)
{
    memset(w, 0, sizeof *w);
    w->dir_fd = -1;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!base[0]) {
        snprintf(err, err_len, "'%.200s' does not name a file", path);
        return false;
    }
    char dir[SAFEWRITE_PATH_LEN];
    if (slash && (size_t)(slash - path) >= sizeof dir) {
        snprintf(err, err_len, "'%.200s...' is too long a path", path);
        return false;
    }
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    /* The directories on the way are the user's own choice; only the
     * file's own name is never followed. */
    int fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_len, "cannot write %s: %s: %s", path, slash ? dir : ".", strerror(errno));
        return false;
    }
    return begin_in(w, fd, true, slash ? dir : "", base, mode, err, err_len);
}

void safewrite_abort(struct safewrite *w)
{
    if (w->f) {
        fclose(w->f);
        w->f = NULL;
        unlinkat(w->dir_fd, w->tmp_name, 0);
    }
    release(w);
}

/* NAME.EXT -> NAME-k.EXT (a leading dot is part of the name). */
static void numbered(const char *name, int k, char *out, size_t len)
{
    const char *dot = strrchr(name, '.');
    if (!dot || dot == name)
        dot = name + strlen(name);
    snprintf(out, len, "%.*s-%d%s", (int)(dot - name), name, k, dot);
}

/* Puts the temporary file at `name` only if nothing is there: 0 or errno.
 * *moved: the temporary name is gone (renamed, not linked). */
static int place_new(struct safewrite *w, const char *name, bool *moved)
{
    if (linkat(w->dir_fd, w->tmp_name, w->dir_fd, name, 0) == 0)
        return 0;
    int e = errno;
    if (e == EEXIST || e == ENOSPC || e == EDQUOT || e == EROFS || e == EIO)
        return e;
    /* A file system without hard links: check, then rename (the only gap
     * left is a name created between the two calls). */
    if (safewrite_taken(w->dir_fd, name))
        return EEXIST;
    if (renameat(w->dir_fd, w->tmp_name, w->dir_fd, name) != 0)
        return errno;
    *moved = true;
    return 0;
}

static int place(struct safewrite *w, bool *moved)
{
    *moved = false;
    if (w->mode == SAFEWRITE_REPLACE) {
        struct stat st;
        if (fstatat(w->dir_fd, w->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
            return EEXIST;
        if (renameat(w->dir_fd, w->tmp_name, w->dir_fd, w->name) != 0)
            return errno;
        *moved = true;
        return 0;
    }
    int e = place_new(w, w->name, moved);
    char cand[SAFEWRITE_NAME_LEN];
    for (int k = 2; e == EEXIST && w->mode == SAFEWRITE_NEW_NAME && k <= SAFEWRITE_MAX_SUFFIX;
         k++) {
        numbered(w->name, k, cand, sizeof cand);
        if (strlen(cand) + 1 >= sizeof cand)
            break;
        e = place_new(w, cand, moved);
        if (e == 0)
            snprintf(w->name, sizeof w->name, "%s", cand);
    }
    return e;
}

bool safewrite_commit(struct safewrite *w, char *err, size_t err_len)
{
    if (!w->f) {
        snprintf(err, err_len, "cannot write %s: the write was not started", w->path);
        return false;
    }
    bool ok = fflush(w->f) == 0 && !ferror(w->f);
    int e = errno;
    /* A file that replaces another reaches the disk before its name does. */
    if (ok && w->mode == SAFEWRITE_REPLACE && fsync(fileno(w->f)) != 0 && errno != EINVAL) {
        ok = false;
        e = errno;
    }
    if (fclose(w->f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    w->f = NULL;
    bool moved = false;
    if (!ok) {
        snprintf(err, err_len, "cannot write %s: %s (nothing was changed)", w->path, strerror(e));
    } else if ((e = place(w, &moved)) != 0) {
        ok = false;
        if (e == EEXIST && w->mode == SAFEWRITE_NEW_NAME)
            snprintf(err, err_len, "cannot write %s: every name up to -%d is taken", w->path,
                     SAFEWRITE_MAX_SUFFIX);
        else if (e == EEXIST)
            snprintf(err, err_len, "%s appeared while it was written; it is left as it is",
                     w->path);
        else
            snprintf(err, err_len, "cannot write %s: %s (nothing was changed)", w->path,
                     strerror(e));
    }
    /* After a link the temporary name is a second name of the file. */
    if (!moved)
        unlinkat(w->dir_fd, w->tmp_name, 0);
    set_path(w);
    release(w);
    return ok;
}

bool safewrite_text(const char *path, const char *text, enum safewrite_mode mode, char *written,
                    size_t written_len, char *err, size_t err_len)
{
    struct safewrite w;
    if (!safewrite_begin(&w, path, mode, err, err_len))
        return false;
    if (fputs(text, w.f) < 0) {
        snprintf(err, err_len, "cannot write %s: %s", w.path, strerror(errno));
        safewrite_abort(&w);
        return false;
    }
    if (!safewrite_commit(&w, err, err_len))
        return false;
    if (written)
        snprintf(written, written_len, "%s", w.path);
    return true;
}
