/* `mlviz lesson FILE.yaml`: a sequence of setups with captions, prepared
 * without Lua and presented with the keys of a played scenario. The lesson
 * is checked (every setup loads; messages name file:line:col), turned into
 * a small show/say/pause script in a temporary file and played. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "luahost.h"
#include "model.h"
#include "options.h"
#include "tui.h"
#include "yamldoc.h"

enum { LESSON_MAX_STEPS = 200, LESSON_PATH_LEN = 1200, LESSON_CAPTION_MAX = 2000 };

/* Fail at a node: "file:line:col: message". */
static int node_error(const struct ydoc *doc, const struct ynode *n, const char *msg)
{
    cli_error("%s:%d:%d: %s", doc->file, n ? n->line : 1, n ? n->col : 1, msg);
    return EXIT_USAGE;
}

/* A Lua long string holding text: [==[text]==] with a level the text does
 * not close. Returns false when no level up to 16 works. */
static bool write_long_string(FILE *out, const char *text)
{
    for (int level = 0; level <= 16; level++) {
        char close[20];
        close[0] = ']';
        memset(close + 1, '=', (size_t)level);
        close[level + 1] = ']';
        close[level + 2] = '\0';
        if (strstr(text, close))
            continue;
        /* A trailing ']' would join the closing bracket: a space keeps them apart. */
        fprintf(out, "[%.*s[\n%s%s%s", level, "================", text,
                text[0] && text[strlen(text) - 1] == ']' ? " " : "", close);
        return true;
    }
    return false;
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

/* Checks the lesson and writes its script to out; EXIT_OK or an exit status. */
static int write_script(const struct ydoc *doc, const struct catalog *cat, FILE *out)
{
    const struct ynode *root = doc->root;
    if (!root || root->kind != YNODE_MAP)
        return node_error(doc, root, "a lesson is a map with 'title' and 'steps'");
    for (size_t i = 0; i < root->count; i++) {
        const char *k = root->keys[i]->value;
        if (strcmp(k, "title") != 0 && strcmp(k, "steps") != 0)
            return node_error(doc, root->keys[i], "unknown key (a lesson has 'title' and 'steps')");
    }
    const struct ynode *title = ynode_get(root, "title");
    const struct ynode *steps = ynode_get(root, "steps");
    if (!steps || steps->kind != YNODE_SEQ || steps->count == 0)
        return node_error(doc, steps ? steps : root, "'steps' must be a list of steps");
    if (steps->count > LESSON_MAX_STEPS)
        return node_error(doc, steps, "too many steps (at most 200)");
    if (title && title->kind == YNODE_SCALAR) {
        fputs("say(", out);
        write_long_string(out, title->value);
        fputs(")\n", out);
    }
    for (size_t i = 0; i < steps->count; i++) {
        const struct ynode *st = steps->items[i];
        if (st->kind != YNODE_MAP)
            return node_error(doc, st, "a step is a map with 'setup', 'caption' and 'focus'");
        for (size_t j = 0; j < st->count; j++) {
            const char *k = st->keys[j]->value;
            if (strcmp(k, "setup") != 0 && strcmp(k, "caption") != 0 && strcmp(k, "focus") != 0)
                return node_error(doc, st->keys[j],
                                  "unknown key (a step has 'setup', 'caption' and 'focus')");
        }
        const struct ynode *setup = ynode_get(st, "setup");
        const struct ynode *caption = ynode_get(st, "caption");
        const struct ynode *focus = ynode_get(st, "focus");
        if (!setup || setup->kind != YNODE_SCALAR || !setup->value[0])
            return node_error(doc, setup ? setup : st,
                              "each step needs a 'setup' (preset or file)");
        if (!caption || caption->kind != YNODE_SCALAR || !caption->value[0])
            return node_error(doc, caption ? caption : st, "each step needs a 'caption'");
        if (strlen(caption->value) > LESSON_CAPTION_MAX)
            return node_error(doc, caption, "caption longer than 2000 characters");
        if (focus && (focus->kind != YNODE_SCALAR || !is_stage(focus->value)))
            return node_error(doc, focus,
                              "focus is one of data, cpus, accelerators, "
                              "interconnect, infrastructure");
        char path[LESSON_PATH_LEN], err[1024];
        step_setup_path(doc->file, setup->value, path, sizeof path);
        struct setup s;
        if (!setup_load_file(&s, path, cat, err, sizeof err)) {
            char msg[1200];
            snprintf(msg, sizeof msg, "setup '%s': %s", setup->value, err);
            return node_error(doc, setup, msg);
        }
        fputs("show(mlviz.load(", out);
        if (!write_long_string(out, path))
            return node_error(doc, setup, "this path cannot be quoted");
        fputs(")", out);
        if (focus)
            fprintf(out, ", { focus = \"%s\" }", focus->value);
        fputs(")\nsay(", out);
        if (!write_long_string(out, caption->value))
            return node_error(doc, caption, "this caption cannot be quoted");
        fputs(")\npause()\n", out);
    }
    return EXIT_OK;
}

int cmd_lesson(int argc, char **argv)
{
    char lesson_usage[256];
    commands_usage("lesson", lesson_usage, sizeof lesson_usage);
    bool ended = argc >= 2 && strcmp(argv[1], "--") == 0; /* the file may start with '-' */
    if (ended) {
        argv++;
        argc--;
    }
    if (argc < 2 || (!ended && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))) {
        if (argc >= 2) {
            printf("usage: %s\nview options (the interactive view's):\n", lesson_usage);
            options_help(stdout, OPT_PLAY);
            return EXIT_OK;
        }
        cli_error("lesson: which file? (usage: %s)", lesson_usage);
        return EXIT_USAGE;
    }
    const char *file = argv[1];
    char err[1024];
    struct ydoc *doc = ydoc_load_file(file, err, sizeof err);
    if (!doc) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    struct catalog *cat = cli_load_catalog(NULL);
    if (!cat) {
        ydoc_free(doc);
        return EXIT_USAGE;
    }
    char script[] = "/tmp/mlviz-lesson-XXXXXX";
    int fd = mkstemp(script);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        if (fd >= 0)
            close(fd);
        cli_error("lesson: cannot make a temporary file");
        ydoc_free(doc);
        catalog_free(cat);
        return EXIT_RUNTIME;
    }
    fprintf(out, "-- lesson %s (generated)\n", "from YAML");
    int rc = write_script(doc, cat, out);
    ydoc_free(doc);
    if (fclose(out) != 0 && rc == EXIT_OK) {
        cli_error("lesson: cannot write a temporary file");
        rc = EXIT_RUNTIME;
    }
    if (rc == EXIT_OK) {
        /* The script is ours: trusted (setups may live anywhere the
         * lesson points), and it only shows, says and pauses. */
        struct luahost_options o;
        memset(&o, 0, sizeof o);
        o.cat = cat;
        o.played = true;
        o.trusted = true;
        cli_screen()->play_hooks(&o.hooks);
        struct luahost *h = luahost_new(&o, err, sizeof err);
        if (!h) {
            cli_error("%s", err);
            rc = EXIT_RUNTIME;
        } else if (!luahost_load(h, script, 0, NULL, err, sizeof err)) {
            cli_error("%s", err);
            rc = EXIT_RUNTIME;
        } else {
            rc = view_play(&h, file, argc - 2, argv + 2);
        }
        luahost_free(h);
    }
    unlink(script);
    catalog_free(cat);
    return rc;
}
