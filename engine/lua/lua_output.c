/* lua_output: the output directory and atomic file writes of Lua scripts
 * (see lua_output.h). */
#include "lua_output.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    free(o->created);
    o->created = NULL;
    o->n_created = o->cap_created = 0;
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
    char why[LUA_OUTPUT_PATH_LEN + 160];
    int fd = safewrite_open_dir(dir, true, why, sizeof why);
    if (fd < 0) {
        snprintf(err, err_len, "the output directory: %s", why);
        return false;
    }
    o->dir_fd = fd;
    return true;
}

/* The file this run wrote for `asked`, or NULL. */
static const struct lua_output_created *created_for(const struct lua_output *o, const char *asked)
{
    for (size_t i = 0; i < o->n_created; i++)
        if (strcmp(o->created[i].asked, asked) == 0)
            return &o->created[i];
    return NULL;
}

static bool remember(struct lua_output *o, const char *asked, const char *written)
{
    if (created_for(o, asked))
        return true;
    if (o->n_created == o->cap_created) {
        size_t cap = o->cap_created ? 2 * o->cap_created : 16;
        struct lua_output_created *grown = realloc(o->created, cap * sizeof *grown);
        if (!grown)
            return false;
        o->created = grown;
        o->cap_created = cap;
    }
    struct lua_output_created *c = &o->created[o->n_created++];
    snprintf(c->asked, sizeof c->asked, "%s", asked);
    snprintf(c->written, sizeof c->written, "%s", written);
    return true;
}

bool lua_output_adopt_created(struct lua_output *o, const struct lua_output *from)
{
    for (size_t i = 0; i < from->n_created; i++)
        if (!remember(o, from->created[i].asked, from->created[i].written))
            return false;
    return true;
}

size_t lua_output_renamed(const struct lua_output *o, size_t i, char *asked, size_t asked_len,
                          char *written, size_t written_len)
{
    /* Sandboxed names are below the output directory: show them with it. */
    const char *dir = o->trusted ? "" : o->dir[0] ? o->dir : LUA_OUTPUT_DEFAULT_DIR;
    size_t k = 0;
    for (size_t j = 0; j < o->n_created; j++) {
        const struct lua_output_created *c = &o->created[j];
        if (strcmp(c->asked, c->written) == 0)
            continue;
        if (k++ == i) {
            snprintf(asked, asked_len, "%s%s%s", dir, dir[0] ? "/" : "", c->asked);
            snprintf(written, written_len, "%s%s%s", dir, dir[0] ? "/" : "", c->written);
        }
    }
    return k;
}

/* The path a trusted name stands for: below --out when relative. */
static bool trusted_path(const struct lua_output *o, const char *name, char *out, size_t len,
                         char *err, size_t err_len)
{
    int w = name[0] == '/' ? snprintf(out, len, "%s", name)
                           : snprintf(out, len, "%s/%s", o->dir[0] ? o->dir : ".", name);
    if (w < 0 || (size_t)w >= len) {
        snprintf(err, err_len, "'%.200s...' is too long a path", name);
        return false;
    }
    return true;
}

bool lua_output_begin(struct lua_output *o, const char *name, size_t len, const char *ext,
                      struct lua_output_file *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->owner = o;
    if (o->trusted && strlen(name) != len) {
        snprintf(err, err_len, "the file name contains a NUL byte");
        return false;
    }
    if (!o->trusted && !lua_output_check_name(name, len, ext, err, err_len))
        return false;
    char asked[LUA_OUTPUT_PATH_LEN];
    if (o->trusted && !trusted_path(o, name, asked, sizeof asked, err, err_len))
        return false;
    if (!o->trusted)
        snprintf(asked, sizeof asked, "%s", name);
    snprintf(out->asked, sizeof out->asked, "%s", asked);
    const struct lua_output_created *c = created_for(o, asked);
    if (!c && o->n_created >= LUA_OUTPUT_MAX_FILES) {
        snprintf(err, err_len, "a script may create at most %d files in one run",
                 LUA_OUTPUT_MAX_FILES);
        return false;
    }
    /* A file of this run is replaced; anything else stays, and the new file
     * takes the first free name NAME-2.EXT, NAME-3.EXT, ... */
    enum safewrite_mode mode = c ? SAFEWRITE_REPLACE : SAFEWRITE_NEW_NAME;
    if (o->trusted) {
        char path[LUA_OUTPUT_PATH_LEN];
        snprintf(path, sizeof path, "%s", c ? c->written : asked);
        return safewrite_begin(&out->w, path, mode, err, err_len);
    }
    if (!open_sandbox_dir(o, err, err_len))
        return false;
    return safewrite_begin_at(&out->w, o->dir_fd, o->dir[0] ? o->dir : LUA_OUTPUT_DEFAULT_DIR,
                              c ? c->written : name, mode, err, err_len);
}

void lua_output_abort(struct lua_output_file *f)
{
    safewrite_abort(&f->w);
}

bool lua_output_commit(struct lua_output_file *f, char *err, size_t err_len)
{
    struct lua_output *o = f->owner;
    long size = fflush(f->w.f) == 0 ? ftell(f->w.f) : 0;
    if (!o->trusted && size > o->max_bytes - o->bytes_written) {
        snprintf(err, err_len,
                 "'%s' would pass the %lld MiB a script may write in one run (nothing was "
                 "written)",
                 f->w.path, o->max_bytes >> 20);
        safewrite_abort(&f->w);
        return false;
    }
    if (!safewrite_commit(&f->w, err, err_len))
        return false;
    o->bytes_written += size > 0 ? size : 0;
    /* The name written: the directory part of a trusted path is the one
     * asked for, so only the last part can differ. */
    char written[LUA_OUTPUT_PATH_LEN];
    const char *slash = strrchr(f->asked, '/');
    snprintf(written, sizeof written, "%.*s%s", slash ? (int)(slash - f->asked + 1) : 0, f->asked,
             f->w.name);
    if (!remember(o, f->asked, written)) {
        snprintf(err, err_len, "out of memory after writing %s", f->w.path);
        return false;
    }
    return true;
}
