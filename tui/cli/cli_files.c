/* cli_files: the files the headless commands write (plan --write-best and
 * --write-top, probe --write), through safewrite.h (see cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "safewrite.h"

int cli_open_parent(const char *path, const char *what, char *dir_shown, size_t len,
                    const char **name)
{
    const char *slash = strrchr(path, '/');
    *name = slash ? slash + 1 : path;
    if (slash == path)
        snprintf(dir_shown, len, "/");
    else
        snprintf(dir_shown, len, "%.*s", slash ? (int)(slash - path) : 0, path);
    if (!**name) {
        cli_error("%s %s: does not name a file", what, path);
        return -1;
    }
    /* The directories on the way are the user's; the file's own name is
     * never followed. */
    int fd = open(dir_shown[0] ? dir_shown : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        cli_error("%s %s: %s: %s", what, path, dir_shown[0] ? dir_shown : ".", strerror(errno));
    return fd;
}

bool cli_may_write(int dir_fd, const char *shown, const char *name, bool force, const char *what)
{
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return true;
    if (force && S_ISREG(st.st_mode))
        return true;
    if (force)
        cli_error("%s: %s exists and is not a regular file (never replaced, even with --force)",
                  what, shown);
    else
        cli_error("%s: %s already exists (--force replaces it)", what, shown);
    return false;
}

bool cli_write_file(int dir_fd, const char *dir_shown, const char *name, const char *text,
                    bool force)
{
    char err[SAFEWRITE_PATH_LEN + 512];
    struct safewrite w;
    enum safewrite_mode mode = force ? SAFEWRITE_REPLACE : SAFEWRITE_NEW;
    bool ok = safewrite_begin_at(&w, dir_fd, dir_shown, name, mode, err, sizeof err);
    if (ok && fputs(text, w.f) < 0) {
        snprintf(err, sizeof err, "cannot write %s: %s", w.path, strerror(errno));
        safewrite_abort(&w);
        ok = false;
    } else if (ok) {
        ok = safewrite_commit(&w, err, sizeof err);
    }
    if (ok)
        fprintf(stderr, "mlviz: wrote %s\n", w.path);
    else
        cli_error("%s%s", err,
                  !force && strstr(err, "already exists") ? " (--force replaces it)" : "");
    return ok;
}
