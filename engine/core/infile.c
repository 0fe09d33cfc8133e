/* infile: non-blocking, regular-files-only opening of user-named inputs. */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a non-regular file is, for messages. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

static void size_error(const char *path, char *err, size_t err_len)
{
    snprintf(err, err_len, "%s: larger than %d MiB", path, INFILE_MAX_BYTES >> 20);
}

/* Checks an open descriptor's kind and size and puts it in blocking mode;
 * closes it and returns -1 on failure. */
static int check_regular(int fd, const char *path, struct stat *st, char *err, size_t err_len)
{
    if (fstat(fd, st) != 0) {
        snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        snprintf(err, err_len, "%s: is %s, not a regular file", path, file_kind(st->st_mode));
        close(fd);
        return -1;
    }
    if (st->st_size > INFILE_MAX_BYTES) {
        size_error(path, err, err_len);
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Opens without blocking and checks the kind; returns the descriptor, in
 * blocking mode, or -1. */
static int open_regular(const char *path, struct stat *st, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    return check_regular(fd, path, st, err, err_len);
}

/* Reads fd to its end (at most INFILE_MAX_BYTES) and closes it; `size`
 * is a hint. The one reading loop of files and of standard input. */
static bool read_all(int fd, const char *path, size_t size, char **text, size_t *len, char *err,
                     size_t err_len)
{
    /* The size is a hint: the file may grow or shrink while it is read. */
    size_t cap = size + 1, used = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            snprintf(err, err_len, "%s: out of memory", path);
            close(fd);
            return false;
        }
        if (used == cap) {
            if (cap > INFILE_MAX_BYTES) {
                free(buf);
                close(fd);
                size_error(path, err, err_len);
                return false;
            }
            cap = cap > INFILE_MAX_BYTES / 2 ? (size_t)INFILE_MAX_BYTES + 1 : cap * 2;
            char *grown = realloc(buf, cap + 1);
            if (!grown)
                free(buf);
            buf = grown;
            continue;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return false;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    close(fd);
    if (used > INFILE_MAX_BYTES) {
        free(buf);
        size_error(path, err, err_len);
        return false;
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return true;
}

bool infile_read(const char *path, char **text, size_t *len, char *err, size_t err_len)
{
    *text = NULL;
    *len = 0;
    struct stat st;
    int fd = open_regular(path, &st, err, err_len);
    if (fd < 0)
        return false;
    return read_all(fd, path, (size_t)st.st_size, text, len, err, err_len);
}

bool infile_read_stdin(const char *name, char **text, size_t *len, char *err, size_t err_len)
{
    *text = NULL;
    *len = 0;
    int fd = dup(STDIN_FILENO);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot read standard input: %s", name, strerror(errno));
        return false;
    }
    return read_all(fd, name, 4096, text, len, err, err_len);
}

/* ---- reading below a directory ------------------------------------------------ */

bool infile_check_below(const char *rel, char *err, size_t err_len)
{
    if (!rel[0]) {
        snprintf(err, err_len, "an empty path");
        return false;
    }
    if (rel[0] == '/') {
        snprintf(err, err_len, "an absolute path");
        return false;
    }
    if (strlen(rel) >= INFILE_PATH_LEN) {
        snprintf(err, err_len, "a path longer than %d bytes", INFILE_PATH_LEN - 1);
        return false;
    }
    for (const char *s = rel; *s;) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.') {
            snprintf(err, err_len, "a path with a '..' part");
            return false;
        }
        s += n + (s[n] == '/');
    }
    return true;
}

bool infile_join_below(const char *base, const char *name, char *out, size_t out_len, char *err,
                       size_t err_len)
{
    if (!infile_check_below(name, err, err_len))
        return false;
    const char *slash = strrchr(base, '/');
    int w = slash ? snprintf(out, out_len, "%.*s/%s", (int)(slash - base), base, name)
                  : snprintf(out, out_len, "%s", name);
    if (w < 0 || (size_t)w >= out_len || (size_t)w >= INFILE_PATH_LEN) {
        snprintf(err, err_len, "a path longer than %d bytes", INFILE_PATH_LEN - 1);
        return false;
    }
    return true;
}

/* Walks rel below root one part at a time, each opened with O_NOFOLLOW
 * from the descriptor of the one before. Returns the final part's
 * descriptor (opened with `last_flags`), or -1 with errno set; *link is set
 * when a part is a symbolic link. */
static int walk_below(const char *root, const char *rel, int last_flags, bool *link)
{
    *link = false;
    int dir = open(root && root[0] ? root : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const char *s = rel;
    char part[INFILE_PATH_LEN];
    while (dir >= 0) {
        size_t n = strcspn(s, "/");
        const char *next = s + n;
        while (*next == '/')
            next++;
        snprintf(part, sizeof part, "%.*s", (int)n, s);
        bool last = *next == '\0';
        if (n == 0 || (n == 1 && s[0] == '.')) { /* "" or ".": the same directory */
            if (last) {
                close(dir);
                errno = EISDIR;
                return -1;
            }
            s = next;
            continue;
        }
        int flags = last ? last_flags : O_RDONLY | O_DIRECTORY | O_CLOEXEC;
        int fd = openat(dir, part, flags | O_NOFOLLOW);
        int e = errno;
        struct stat st;
        if (fd < 0 && fstatat(dir, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            *link = true;
        close(dir);
        if (last || fd < 0) {
            errno = e;
            return fd;
        }
        dir = fd;
        s = next;
    }
    return -1;
}

bool infile_exists_below(const char *root, const char *rel)
{
    char err[8];
    bool link;
    if (!infile_check_below(rel, err, sizeof err))
        return false;
    int fd = walk_below(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, &link);
    if (fd >= 0)
        close(fd);
    return fd >= 0 || link;
}

bool infile_read_below(const char *root, const char *rel, const char *shown, char **text,
                       size_t *len, char *err, size_t err_len)
{
    *text = NULL;
    *len = 0;
    char why[96];
    if (!infile_check_below(rel, why, sizeof why)) {
        bool cwd = !root || !root[0] || strcmp(root, ".") == 0;
        snprintf(err, err_len, "%s: %s (only files below %s are read)", shown, why,
                 cwd ? "the current directory" : root);
        return false;
    }
    bool link;
    int fd = walk_below(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, &link);
    if (fd < 0 && link) {
        snprintf(err, err_len,
                 "%s: a symbolic link is on the way (not followed here: only files "
                 "below the directory are read)",
                 shown);
        return false;
    }
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot open: %s", shown, strerror(errno));
        return false;
    }
    struct stat st;
    if (check_regular(fd, shown, &st, err, err_len) < 0)
        return false;
    return read_all(fd, shown, (size_t)st.st_size, text, len, err, err_len);
}
