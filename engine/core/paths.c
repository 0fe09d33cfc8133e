/* paths: presets and scenarios by name. */
#include "paths.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog.h"

struct paths_rule {
    const char *dir;          /* below mlviz_data_dir() */
    const char *ext;          /* added to a name */
    const char *path_exts[3]; /* a word holding one of these is a path; NULL ends */
};

static const struct paths_rule rules[] = {
    [PATHS_PRESET] = {"scenarios/presets", ".yaml", {".yaml", ".yml", NULL}},
    [PATHS_SCENARIO] = {"scenarios", ".lua", {NULL}},
};

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool paths_is_path(enum paths_kind kind, const char *arg)
{
    if (is_file(arg) || strchr(arg, '/'))
        return true;
    for (const char *const *e = rules[kind].path_exts; *e; e++)
        if (strstr(arg, *e))
            return true;
    return false;
}

void paths_shipped_dir(enum paths_kind kind, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", mlviz_data_dir(), rules[kind].dir);
}

bool paths_shipped(enum paths_kind kind, const char *name, char *out, size_t len)
{
    const struct paths_rule *r = &rules[kind];
    const char *ext = strstr(name, r->ext) ? "" : r->ext;
    int n = snprintf(out, len, "%s/%s/%s%s", mlviz_data_dir(), r->dir, name, ext);
    return n > 0 && (size_t)n < len && is_file(out);
}

void paths_resolve(enum paths_kind kind, const char *arg, char *out, size_t len)
{
    if (!paths_is_path(kind, arg) && paths_shipped(kind, arg, out, len))
        return;
    snprintf(out, len, "%s", arg);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

size_t paths_list(enum paths_kind kind, char (*names)[PATHS_NAME_LEN], size_t max)
{
    const struct paths_rule *r = &rules[kind];
    char dir[1100];
    paths_shipped_dir(kind, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0, ext_len = strlen(r->ext);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len <= ext_len || len >= PATHS_NAME_LEN ||
            strcmp(e->d_name + len - ext_len, r->ext) != 0)
            continue;
        memcpy(names[n++], e->d_name, len + 1); /* len < PATHS_NAME_LEN: checked above */
    }
    closedir(d);
    /* In the order of the file names ("a-b.lua" before "a.lua"), then
     * without the extension. */
    qsort(names, n, sizeof names[0], compare_names);
    for (size_t i = 0; i < n; i++)
        names[i][strlen(names[i]) - ext_len] = '\0';
    return n;
}
