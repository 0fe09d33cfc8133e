/* lua_output: the output directory and atomic file writes of Lua scripts
 * (see lua_output.h). */
#include "lua_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Temporary names tried before giving up (another writer holding them). */
#define LUA_OUTPUT_TMP_TRIES 16

void lua_output_init(struct lua_output *o, const char *dir, bool trusted)
{
    memset(o, 0, sizeof *o);
    snprintf(o->dir, sizeof o->dir, "%s", dir ? dir : "");
    o->trusted = trusted;
    o->dir_fd = -1;
    o->max_bytes = LUA_OUTPUT_MAX_BYTES;
}

void lua_output_close(struct lua_output *o)
{
    if (o->dir_fd >= 0)
        close(o->dir_fd);
    o->dir_fd = -1;
}

/* The name as it may appear in a message: quoted, control bytes escaped,
 * cut after 80 bytes. */
static void show_name(const char *name, size_t len, char *buf, size_t buf_len)
{
    size_t used = 0;
    buf[used++] = '"';
    for (size_t i = 0; i < len && used + 8 < buf_len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (i >= 80) {
            used += (size_t)snprintf(buf + used, buf_len - used, "...");
            break;
        }
        if (c == '\n')
            used += (size_t)snprintf(buf + used, buf_len - used, "\\n");
        else if (c < 0x20 || c == 0x7f)
            used += (size_t)snprintf(buf + used, buf_len - used, "\\x%02x", c);
        else if (c == '"' || c == '\\')
            used += (size_t)snprintf(buf + used, buf_len - used, "\\%c", c);
        else
            buf[used++] = (char)c;
    }
    buf[used++] = '"';
    buf[used] = '\0';
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

bool lua_output_check_name(const char *name, size_t len, const char *ext, char *err, size_t err_len)
{
    char shown[128];
    show_name(name, len, shown, sizeof shown);
    if (len == 0) {
        snprintf(err, err_len, "the file name is empty");
        return false;
    }
    if (len > LUA_OUTPUT_NAME_MAX) {
        snprintf(err, err_len, "%s is longer than %d bytes", shown, LUA_OUTPUT_NAME_MAX);
        return false;
    }
    for (size_t i = 0; i < len; i++)
        if (!is_name_char(name[i])) {
            snprintf(err, err_len,
                     "%s is not a plain file name (letters, digits, '.', '_', '-'; it is written "
                     "into the output directory, chosen with --out)",
                     shown);
            return false;
        }
    if (name[0] == '.') {
        snprintf(err, err_len, "%s starts with a dot (hidden files are not written)", shown);
        return false;
    }
    size_t el = strlen(ext);
    if (len <= el || strcmp(name + len - el, ext) != 0) {
        snprintf(err, err_len, "%s must end in %s", shown, ext);
        return false;
    }
    return true;
}

/* Sandboxed: the output directory, created on demand, never through a link. */
static bool open_sandbox_dir(struct lua_output *o, char *err, size_t err_len)
{
    if (o->dir_fd >= 0)
        return true;
    const char *dir = o->dir[0] ? o->dir : LUA_OUTPUT_DEFAULT_DIR;
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = open(dir, flags);
    if (fd < 0 && errno == ENOENT) {
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            snprintf(err, err_len, "cannot create the output directory '%s': %s", dir,
                     strerror(errno));
            return false;
        }
        fd = open(dir, flags);
    }
    if (fd < 0) {
        int e = errno;
        struct stat st;
        if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
            snprintf(err, err_len,
                     "the output directory '%s' is a symbolic link (give the real directory "
                     "with --out)",
                     dir);
        else
            snprintf(err, err_len, "cannot open the output directory '%s': %s", dir, strerror(e));
        return false;
    }
    o->dir_fd = fd;
    return true;
}

/* Trusted: the directory part of the path, opened like any program would. */
static bool open_trusted_dir(const struct lua_output *o, const char *name,
                             struct lua_output_file *out, char *err, size_t err_len)
{
    char dir[LUA_OUTPUT_PATH_LEN * 2];
    const char *base = o->dir[0] ? o->dir : ".";
    const char *slash = strrchr(name, '/');
    if (name[0] == '/' && slash == name)
        snprintf(dir, sizeof dir, "/");
    else if (name[0] == '/')
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - name), name);
    else if (slash)
        snprintf(dir, sizeof dir, "%s/%.*s", base, (int)(slash - name), name);
    else
        snprintf(dir, sizeof dir, "%s", base);
    const char *file = slash ? slash + 1 : name;
    if (!file[0] || strlen(file) >= sizeof out->target_name) {
        snprintf(err, err_len, "'%s' does not name a file", name);
        return false;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_len, "cannot write '%s': %s: %s", name, dir, strerror(errno));
        return false;
    }
    out->dir_fd = fd;
    out->own_dir_fd = true;
    snprintf(out->target_name, sizeof out->target_name, "%s", file);
    if (name[0] == '/')
        snprintf(out->path, sizeof out->path, "%s", name);
    else
        snprintf(out->path, sizeof out->path, "%s/%s", base, name);
    return true;
}

static void release_dir(struct lua_output_file *f)
{
    if (f->own_dir_fd && f->dir_fd >= 0)
        close(f->dir_fd);
    f->dir_fd = -1;
    f->own_dir_fd = false;
}

bool lua_output_begin(struct lua_output *o, const char *name, size_t len, const char *ext,
                      struct lua_output_file *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->dir_fd = -1;
    out->owner = o;
    if (o->trusted) {
        if (strlen(name) != len) {
            snprintf(err, err_len, "the file name contains a NUL byte");
            return false;
        }
        if (!open_trusted_dir(o, name, out, err, err_len))
            return false;
    } else {
        if (!lua_output_check_name(name, len, ext, err, err_len))
            return false;
        if (!open_sandbox_dir(o, err, err_len))
            return false;
        out->dir_fd = o->dir_fd;
        snprintf(out->target_name, sizeof out->target_name, "%s", name);
        snprintf(out->path, sizeof out->path, "%s/%s", o->dir[0] ? o->dir : LUA_OUTPUT_DEFAULT_DIR,
                 name);
        /* Whatever sits at the name must be a plain file we may replace. */
        struct stat st;
        if (fstatat(out->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(err, err_len, "'%s' exists and is %s, not a regular file", out->path,
                     S_ISLNK(st.st_mode) ? "a symbolic link" : "something else");
            out->dir_fd = -1;
            return false;
        }
    }
    static unsigned long counter;
    int fd = -1;
    for (int i = 0; i < LUA_OUTPUT_TMP_TRIES && fd < 0; i++) {
        snprintf(out->tmp_name, sizeof out->tmp_name, ".mlviz-tmp-%ld-%lu", (long)getpid(),
                 ++counter);
        fd = openat(out->dir_fd, out->tmp_name,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        snprintf(err, err_len, "cannot write '%s': %s", out->path, strerror(errno));
        release_dir(out);
        return false;
    }
    out->f = fdopen(fd, "w");
    if (!out->f) {
        snprintf(err, err_len, "cannot write '%s': %s", out->path, strerror(errno));
        close(fd);
        unlinkat(out->dir_fd, out->tmp_name, 0);
        release_dir(out);
        return false;
    }
    return true;
}

void lua_output_abort(struct lua_output_file *f)
{
    if (f->f) {
        fclose(f->f);
        f->f = NULL;
        unlinkat(f->dir_fd, f->tmp_name, 0);
    }
    release_dir(f);
}

bool lua_output_commit(struct lua_output_file *f, char *err, size_t err_len)
{
    bool ok = fflush(f->f) == 0 && !ferror(f->f);
    int e = errno;
    long size = ok ? ftell(f->f) : 0;
    struct lua_output *o = f->owner;
    if (ok && !o->trusted && size > o->max_bytes - o->bytes_written) {
        fclose(f->f);
        f->f = NULL;
        unlinkat(f->dir_fd, f->tmp_name, 0);
        snprintf(err, err_len,
                 "'%s' would pass the %lld MiB a script may write in one run (nothing was "
                 "written)",
                 f->path, o->max_bytes >> 20);
        release_dir(f);
        return false;
    }
    if (fclose(f->f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    f->f = NULL;
    if (ok && renameat(f->dir_fd, f->tmp_name, f->dir_fd, f->target_name) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        snprintf(err, err_len, "error writing '%s': %s (the previous file is unchanged)", f->path,
                 strerror(e));
        unlinkat(f->dir_fd, f->tmp_name, 0);
    } else {
        o->bytes_written += size;
    }
    release_dir(f);
    return ok;
}
