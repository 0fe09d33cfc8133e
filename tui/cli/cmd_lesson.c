/* `mlviz lesson FILE.yaml`: a sequence of setups with captions, prepared
 * without Lua and presented with the keys of a played scenario. The lesson
 * is checked (every setup loads; messages name file:line:col) and played by
 * one fixed show/say/pause script that gets the lesson's text as values:
 * nothing is generated, nothing is written to a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "luahost.h"
#include "model.h"
#include "tui.h"
#include "yamldoc.h"

enum { LESSON_MAX_STEPS = 200, LESSON_PATH_LEN = 1200, LESSON_CAPTION_MAX = 2000 };

/* The lesson's one script. The lesson's text reaches it as values (one
 * sequence: the title, then setup path, caption and focus of each step,
 * "" where a lesson leaves one out), never as source: no caption can
 * change what it runs. It runs trusted (setups may live anywhere the
 * lesson points) and only shows, says and pauses. */
static const char lesson_script[] =
    "local lesson = ...\n"
    "if lesson[1] ~= '' then say(lesson[1]) end\n"
    "for i = 2, #lesson, 3 do\n"
    "  local focus = lesson[i + 2]\n"
    "  show(mlviz.load(lesson[i]), focus ~= '' and { focus = focus } or nil)\n"
    "  say(lesson[i + 1])\n"
    "  pause()\n"
    "end\n";

/* What a lesson file becomes: the values the script is called with. */
struct lesson {
    const char *values[1 + 3 * LESSON_MAX_STEPS];
    size_t n_values;
    char paths[LESSON_MAX_STEPS][LESSON_PATH_LEN];
};

/* Fail at a node: "file:line:col: message" in err; the exit status. */
static int node_error(const struct ydoc *doc, const struct ynode *n, const char *msg, char *err,
                      size_t err_len)
{
    snprintf(err, err_len, "%s:%d:%d: %s", doc->file, n ? n->line : 1, n ? n->col : 1, msg);
    return EXIT_USAGE;
}

/* The setup word of a step: a preset name, or a path relative to the lesson. */
static void step_setup_path(const char *lesson, const char *arg, char *out, size_t len)
{
    if (arg[0] != '/' && (strchr(arg, '/') || strstr(arg, ".yaml"))) {
        const char *slash = strrchr(lesson, '/');
        if (slash) {
            snprintf(out, len, "%.*s/%s", (int)(slash - lesson), lesson, arg);
            return;
        }
    }
    cli_setup_path(arg, out, len);
}

static bool is_stage(const char *name)
{
    for (int i = 0; i < STAGE_COUNT; i++)
        if (strcmp(name, stage_table[i].name) == 0)
            return true;
    return false;
}

/* Checks one step and adds its values; EXIT_OK or an exit status. */
static int read_step(const struct ydoc *doc, const struct ynode *st, const struct catalog *cat,
                     struct lesson *les, char *err, size_t err_len)
{
    if (st->kind != YNODE_MAP)
        return node_error(doc, st, "a step is a map with 'setup', 'caption' and 'focus'", err,
                          err_len);
    for (size_t j = 0; j < st->count; j++) {
        const char *k = st->keys[j]->value;
        if (strcmp(k, "setup") != 0 && strcmp(k, "caption") != 0 && strcmp(k, "focus") != 0)
            return node_error(doc, st->keys[j],
                              "unknown key (a step has 'setup', 'caption' and 'focus')", err,
                              err_len);
    }
    const struct ynode *setup = ynode_get(st, "setup");
    const struct ynode *caption = ynode_get(st, "caption");
    const struct ynode *focus = ynode_get(st, "focus");
    if (!setup || setup->kind != YNODE_SCALAR || !setup->value[0])
        return node_error(doc, setup ? setup : st, "each step needs a 'setup' (preset or file)",
                          err, err_len);
    if (!caption || caption->kind != YNODE_SCALAR || !caption->value[0])
        return node_error(doc, caption ? caption : st, "each step needs a 'caption'", err, err_len);
    if (strlen(caption->value) > LESSON_CAPTION_MAX)
        return node_error(doc, caption, "caption longer than 2000 characters", err, err_len);
    if (focus && (focus->kind != YNODE_SCALAR || !is_stage(focus->value)))
        return node_error(doc, focus,
                          "focus is one of data, cpus, accelerators, interconnect, infrastructure",
                          err, err_len);
    char *path = les->paths[(les->n_values - 1) / 3], why[1024];
    step_setup_path(doc->file, setup->value, path, LESSON_PATH_LEN);
    struct setup s;
    if (!setup_load_file(&s, path, cat, why, sizeof why) ||
        !model_settle_auto(&s, cat, why, sizeof why)) {
        char msg[1200];
        snprintf(msg, sizeof msg, "setup '%s': %s", setup->value, why);
        return node_error(doc, setup, msg, err, err_len);
    }
    les->values[les->n_values++] = path;
    les->values[les->n_values++] = caption->value;
    les->values[les->n_values++] = focus ? focus->value : "";
    return EXIT_OK;
}

/* Checks the lesson and collects its values; EXIT_OK or an exit status. */
static int read_lesson(const struct ydoc *doc, const struct catalog *cat, struct lesson *les,
                       char *err, size_t err_len)
{
    const struct ynode *root = doc->root;
    if (!root || root->kind != YNODE_MAP)
        return node_error(doc, root, "a lesson is a map with 'title' and 'steps'", err, err_len);
    for (size_t i = 0; i < root->count; i++) {
        const char *k = root->keys[i]->value;
        if (strcmp(k, "title") != 0 && strcmp(k, "steps") != 0)
            return node_error(doc, root->keys[i], "unknown key (a lesson has 'title' and 'steps')",
                              err, err_len);
    }
    const struct ynode *title = ynode_get(root, "title");
    const struct ynode *steps = ynode_get(root, "steps");
    if (title && title->kind != YNODE_SCALAR)
        return node_error(doc, title, "the title is text", err, err_len);
    if (!steps || steps->kind != YNODE_SEQ || steps->count == 0)
        return node_error(doc, steps ? steps : root, "'steps' must be a list of steps", err,
                          err_len);
    if (steps->count > LESSON_MAX_STEPS)
        return node_error(doc, steps, "too many steps (at most 200)", err, err_len);
    les->n_values = 0;
    les->values[les->n_values++] = title ? title->value : "";
    for (size_t i = 0; i < steps->count; i++) {
        int rc = read_step(doc, steps->items[i], cat, les, err, err_len);
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

/* lesson_host and lesson_host_text, once the YAML is read (frees doc). */
static struct luahost *host_of_doc(struct ydoc *doc, const struct catalog *cat,
                                   const struct luahost_hooks *hooks, int *status, char *err,
                                   size_t err_len)
{
    const char *file = doc->file;
    struct lesson *les = malloc(sizeof *les);
    if (!les) {
        ydoc_free(doc);
        snprintf(err, err_len, "out of memory");
        *status = EXIT_RUNTIME;
        return NULL;
    }
    struct luahost *h = NULL;
    *status = read_lesson(doc, cat, les, err, err_len);
    if (*status == EXIT_OK) {
        struct luahost_options o;
        memset(&o, 0, sizeof o);
        o.cat = cat;
        o.played = true;
        o.trusted = true;
        o.hooks = *hooks;
        char name[LESSON_PATH_LEN];
        snprintf(name, sizeof name, "lesson %s", file);
        h = luahost_new(&o, err, err_len);
        if (!h || !luahost_load_text(h, name, lesson_script, sizeof lesson_script - 1, les->values,
                                     les->n_values, err, err_len)) {
            luahost_free(h);
            h = NULL;
            *status = EXIT_RUNTIME;
        }
    }
    free(les);
    ydoc_free(doc);
    return h;
}

struct luahost *lesson_host(const char *file, const struct catalog *cat,
                            const struct luahost_hooks *hooks, int *status, char *err,
                            size_t err_len)
{
    *status = EXIT_USAGE;
    struct ydoc *doc = ydoc_load_file(file, err, err_len);
    return doc ? host_of_doc(doc, cat, hooks, status, err, err_len) : NULL;
}

struct luahost *lesson_host_text(const char *name, const char *text, size_t len,
                                 const struct catalog *cat, const struct luahost_hooks *hooks,
                                 int *status, char *err, size_t err_len)
{
    *status = EXIT_USAGE;
    struct ydoc *doc = ydoc_load_string(name, text, len, err, err_len);
    return doc ? host_of_doc(doc, cat, hooks, status, err, err_len) : NULL;
}

/* The lesson's file and the view's options it passes on (name, value). */
struct lesson_args {
    const char *file;
    char **view;
    int n_view;
    const char *catalog_dir; /* --catalog: the lesson's setups load with it too */
};

static int lesson_option(void *ctx, const char *name, const char *v)
{
    struct lesson_args *a = ctx;
    if (strcmp(name, "--catalog") == 0)
        a->catalog_dir = v;
    a->view[a->n_view++] = (char *)name;
    if (v)
        a->view[a->n_view++] = (char *)v;
    return 0;
}

static int lesson_word(void *ctx, const char *word, bool ended)
{
    (void)ended;
    struct lesson_args *a = ctx;
    if (a->file) {
        char usage[4096];
        commands_usage("lesson", usage, sizeof usage);
        cli_error("unexpected argument '%s' (usage: %s)", word, usage);
        return -1;
    }
    a->file = word;
    return 0;
}

int cmd_lesson(int argc, char **argv)
{
    struct lesson_args a = {NULL, calloc(2 * (size_t)argc + 1, sizeof(char *)), 0, NULL};
    if (!a.view) {
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    int n = cli_parse_words("lesson", argc, argv, lesson_option, lesson_word, &a);
    if (n < 0 || !a.file) {
        if (n == 0) {
            char usage[4096];
            commands_usage("lesson", usage, sizeof usage);
            cli_error("lesson: which file? (usage: %s)", usage);
        }
        free(a.view);
        return n == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
    }
    struct catalog *cat = cli_load_catalog(a.catalog_dir);
    if (!cat) {
        free(a.view);
        return EXIT_USAGE;
    }
    struct luahost_hooks hooks;
    memset(&hooks, 0, sizeof hooks);
    if (cli_screen()) /* else view_play says there is no screen */
        cli_screen()->play_hooks(&hooks);
    char err[2048];
    int rc;
    struct luahost *h = lesson_host(a.file, cat, &hooks, &rc, err, sizeof err);
    if (!h)
        cli_error("%s", err);
    else
        rc = view_play(&h, a.file, a.n_view, a.view);
    luahost_free(h);
    catalog_free(cat);
    free(a.view);
    return rc;
}
