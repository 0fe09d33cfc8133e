/* cmd_view: the command line of the interactive view (`mlviz`, and the view
 * options `mlviz play` and `mlviz lesson` pass on). Parses the options of
 * the one option table (options.c), loads the catalog and the setup, and
 * hands a plain struct to the screen (tui.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "tui.h"

/* What the command line names; the screen gets it loaded (tui_options). */
struct view_args {
    const char *setup_arg;
    struct cli_setup_args changes; /* --set */
    const char *catalog_dir;
    struct tui_options *o;
};

static int usage_error(unsigned mode, const char *fmt, const char *arg)
{
    fputs("mlviz: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(mode == OPT_PLAY ? "\nusage: mlviz play SCRIPT " : "\nusage: mlviz ", stderr);
    options_synopsis(stderr, mode);
    fputs("\n", stderr);
    return EXIT_USAGE;
}

/* One option's value into a; EXIT_OK or the usage error's status. */
static int take_option(const struct options_entry *opt, const char *v, unsigned mode,
                       struct view_args *a)
{
    struct tui_options *o = a->o;
    char *end;
    switch (opt->id) {
    case OPT_SETUP:
        if (strcmp(v, "-") == 0)
            return usage_error(mode,
                               "%s: the view reads keys from standard input; give the "
                               "setup as a file (mlviz check - reads it from stdin)",
                               "-c -");
        a->setup_arg = v;
        break;
    case OPT_SET:
        if (!strchr(v, '=') || a->changes.n_sets >= CLI_MAX_SETS)
            return usage_error(mode, "--set %s: write PATH=VALUE (given at most 256 times)", v);
        a->changes.sets[a->changes.n_sets++] = v;
        break;
    case OPT_CATALOG:
        a->catalog_dir = v;
        break;
    case OPT_THEME:
        if (!cli_screen()->theme_known(v))
            return usage_error(mode, "unknown theme '%s' (default, light, basic, mono, contrast)",
                               v);
        o->theme = v;
        break;
    case OPT_FRAMES:
        errno = 0;
        o->frames = strtol(v, &end, 10);
        if (errno || end == v || *end || o->frames <= 0)
            return usage_error(mode, "--frames wants a positive whole number, not '%s'", v);
        break;
    case OPT_SPEED:
        o->speed = strtod(v, &end);
        if (end == v || *end || !(o->speed > 0) || o->speed > TUI_SPEED_MAX)
            return usage_error(mode, "--speed wants a number above 0 and at most 86400, not '%s'",
                               v);
        break;
    case OPT_TOUR:
        o->tour = true;
        break;
    case OPT_INFER:
        o->infer = true;
        break;
    case OPT_MONO:
        o->mono = true;
        break;
    case OPT_ASCII:
        o->ascii = true;
        break;
    case OPT_NO_MOUSE:
        o->no_mouse = true;
        break;
    }
    return EXIT_OK;
}

/* mode: OPT_VIEW for `mlviz`, OPT_PLAY for the options `mlviz play` passed
 * on. argv[0] is the program (or command) name. */
static int parse_options(int argc, char **argv, unsigned mode, struct view_args *a)
{
    a->setup_arg = "default";
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i], *v;
        if (strcmp(w, "--") == 0) { /* ends the options; the view takes no arguments */
            if (i + 1 < argc)
                return usage_error(mode, "unexpected argument '%s' (see 'mlviz --help')",
                                   argv[i + 1]);
            break;
        }
        const struct options_entry *opt = options_find(w, &v);
        if (!opt)
            return usage_error(mode, "unknown option '%s' (see 'mlviz --help')", w);
        if (!(opt->applies & mode))
            return usage_error(mode, "%s does not apply to mlviz play", opt->name);
        if (opt->arg && !v) {
            if (i + 1 >= argc)
                return usage_error(mode, "%s needs a value", w);
            v = argv[++i];
        } else if (!opt->arg && v) {
            return usage_error(mode, "%s takes no value", opt->name);
        }
        int rc = take_option(opt, v, mode, a);
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

/* Options, the terminal check, then the catalog and the setup. */
static int load_view(int argc, char **argv, unsigned mode, struct tui_options *o)
{
    struct view_args a;
    memset(&a, 0, sizeof a);
    memset(o, 0, sizeof *o);
    a.o = o;
    int rc = parse_options(argc, argv, mode, &a);
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
    int rc = load_view(argc, argv, OPT_VIEW, o);
    if (rc == EXIT_OK)
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
    int rc = load_view(argc + 1, args, OPT_PLAY, o);
    free(args);
    if (rc == EXIT_OK)
        rc = cli_screen()->play(host, script_path, o);
    free(o);
    return rc;
}
