/* cmd_view: the command line of the interactive view (`mlviz`, and the view
 * options `mlviz play` and `mlviz lesson` pass on). Parses the view's row
 * of the command table (commands.c), loads the catalog and the setup, and
 * hands a plain struct to the screen (tui.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "tui.h"

/* What the command line names; the screen gets it loaded (tui_options). */
struct view_args {
    const char *command; /* "" for the view, "play" for what play and lesson pass on */
    const char *setup_arg;
    struct cli_setup_args changes; /* --set */
    const char *catalog_dir;
    struct tui_options *o;
};

/* One option of the view's row of the command table, its value checked
 * there: 0, or -1 with the message printed. */
static int view_option(void *ctx, const char *name, const char *v)
{
    struct view_args *a = ctx;
    struct tui_options *o = a->o;
    if (strcmp(name, "--setup") == 0) {
        if (strcmp(v, "-") == 0) {
            cli_error("-c -: the view reads keys from standard input; give the setup as a file "
                      "(mlviz check - reads it from stdin)");
            return -1;
        }
        a->setup_arg = v;
    } else if (strcmp(name, "--set") == 0) {
        return cli_set_add(&a->changes, v) < 0 ? -1 : 0;
    } else if (strcmp(name, "--catalog") == 0) {
        a->catalog_dir = v;
    } else if (strcmp(name, "--theme") == 0) {
        o->theme = v;
    } else if (strcmp(name, "--frames") == 0) {
        o->frames = strtol(v, NULL, 10);
    } else if (strcmp(name, "--speed") == 0) {
        o->speed = strtod(v, NULL);
    } else if (strcmp(name, "--tour") == 0) {
        o->tour = true;
    } else if (strcmp(name, "--infer") == 0) {
        o->infer = true;
    } else if (strcmp(name, "--mono") == 0) {
        o->mono = true;
    } else if (strcmp(name, "--ascii") == 0) {
        o->ascii = true;
    } else if (strcmp(name, "--no-mouse") == 0) {
        o->no_mouse = true;
    } else {
        return cli_unhandled(name);
    }
    return 0;
}

/* The view takes no arguments. */
static int no_word(void *ctx, const char *word, bool ended)
{
    (void)ended;
    const struct view_args *a = ctx;
    cli_error("unexpected argument '%s' (see 'mlviz %s--help')", word,
              a->command[0] ? "play " : "");
    return -1;
}

/* Lua options go to the script, not the view: what play passes on is the
 * view's options only. */
static int play_word(void *ctx, const char *word, bool ended)
{
    return strcmp(word, "--") == 0 ? 0 : no_word(ctx, word, ended);
}

/* argv[0] is the program (or command) name. */
static int parse_options(int argc, char **argv, struct view_args *a)
{
    a->setup_arg = "default";
    int rc = cli_parse_words(a->command, argc, argv, view_option,
                             a->command[0] ? play_word : no_word, a);
    return rc == 0 ? EXIT_OK : cli_parse_exit(rc) == EXIT_OK ? -1 : EXIT_USAGE;
}

/* Options, the terminal check, then the catalog and the setup. */
static int load_view(int argc, char **argv, const char *command, struct tui_options *o)
{
    struct view_args a;
    memset(&a, 0, sizeof a);
    memset(o, 0, sizeof *o);
    a.o = o;
    a.command = command;
    int rc = parse_options(argc, argv, &a);
    if (rc != EXIT_OK)
        return rc;
    rc = cli_screen()->prepare(o->ascii);
    if (rc != EXIT_OK)
        return rc;
    o->cat = cli_load_catalog(a.catalog_dir);
    if (!o->cat)
        return EXIT_USAGE;
    if (!cli_load_setup_args(a.setup_arg, &a.changes, o->cat, &o->setup, &o->res)) {
        catalog_free(o->cat);
        o->cat = NULL;
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cmd_view(int argc, char **argv)
{
    struct tui_options *o = calloc(1, sizeof *o);
    if (!o) {
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    int rc = load_view(argc, argv, "", o);
    if (rc < 0)
        rc = EXIT_OK; /* --help */
    else if (rc == EXIT_OK)
        rc = cli_screen()->run(o);
    free(o);
    return rc;
}

int view_play(struct luahost **host, const char *script_path, int argc, char **argv)
{
    /* The TUI options come without a program name: put one in front so
     * both entry points parse alike. */
    char **args = calloc((size_t)argc + 2, sizeof *args);
    struct tui_options *o = calloc(1, sizeof *o);
    if (!args || !o) {
        free(args);
        free(o);
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    args[0] = (char *)"mlviz play";
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    int rc = load_view(argc + 1, args, "play", o);
    free(args);
    if (rc < 0)
        rc = EXIT_OK;
    else if (rc == EXIT_OK)
        rc = cli_screen()->play(host, script_path, o);
    free(o);
    return rc;
}
