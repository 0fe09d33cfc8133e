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

/* Opens without blocking and checks the kind; returns the descriptor, in
 * blocking mode, or -1. */
static int open_regular(const char *path, struct stat *st, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
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
