/* luahost_fixture: what the luahost unit tests share: the catalog, scripts
 * written to temporary files, hooks that capture what a script does, and a
 * host made with them. Included by test_luahost.c and test_luahost_limits.c. */
#ifndef MLVIZ_LUAHOST_FIXTURE_H
#define MLVIZ_LUAHOST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "luahost.h"
#include "sim.h"

static struct catalog *cat;

static inline int setup_all(void **state)
{
    (void)state;
    char err[1024];
    cat = catalog_new();
    return cat && catalog_load_default(cat, NULL, err, sizeof err) ? 0 : -1;
}

static inline int teardown_all(void **state)
{
    (void)state;
    catalog_free(cat);
    return 0;
}

/* Write a script to a temporary file; returns its path (static buffer). */
static inline const char *script(const char *text)
{
    static char path[64];
    static int n;
    snprintf(path, sizeof path, "/tmp/test_luahost_%d_%d.lua", (int)getpid(), n++);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

struct captured {
    char text[4096];
    int says, focus, marks;
    int shows;
    int modes, infer;          /* mode() calls, and the last one's: 1 infer, 0 train */
    char shown[FIELD_STR_LEN]; /* name of the setup shown last */
};

static inline void cap_print(void *ctx, const char *t)
{
    struct captured *c = ctx;
    strncat(c->text, t, sizeof c->text - strlen(c->text) - 2);
    strcat(c->text, "\n");
}
static inline void cap_say(void *ctx, const char *t)
{
    struct captured *c = ctx;
    (void)t;
    c->says++;
}
static inline void cap_focus(void *ctx, int stage)
{
    struct captured *c = ctx;
    c->focus = stage;
}
static inline void cap_mark(void *ctx, const char *l)
{
    struct captured *c = ctx;
    (void)l;
    c->marks++;
}

static inline void cap_show(void *ctx, const struct setup *s)
{
    struct captured *c = ctx;
    c->shows++;
    snprintf(c->shown, sizeof c->shown, "%s", s->name);
}

static inline void cap_mode(void *ctx, bool infer)
{
    struct captured *c = ctx;
    c->modes++;
    c->infer = infer;
}

/* A host whose hooks fill c, on the test catalog, with a 64 MiB cap;
 * o (may be NULL) gives the other options. */
static inline struct luahost *host_with(struct captured *c, const struct luahost_options *o)
{
    struct luahost_options opt;
    char err[1024];
    memset(&opt, 0, sizeof opt);
    if (o)
        opt = *o;
    opt.cat = cat;
    opt.memory_cap_bytes = (size_t)64 << 20;
    opt.hooks = (struct luahost_hooks){c,        cap_print, cap_say,  cap_focus,
                                       cap_mark, cap_show,  cap_mode, NULL};
    struct luahost *h = luahost_new(&opt, err, sizeof err);
    assert_non_null(h);
    return h;
}

static inline struct luahost *host(struct captured *c, bool played, uint64_t budget)
{
    return host_with(
        c, &(struct luahost_options){.seed = 5, .played = played, .instruction_budget = budget});
}

#endif
