/* commands: the one table of mlviz's commands: name, handler, summary,
 * arguments and options.
 *
 * main() dispatches on it; `mlviz --help`'s command list, each command's
 * usage line (errors, --help), the man page's SYNOPSIS (mlviz options
 * --synopsis) and the shell completions (tui/cli/completion.c) are generated
 * from it; the view's options live in tui/cli/options.c.
 * tests/cli/completion.sh checks that every option a command accepts is
 * listed; tests/cli/docs.sh that every command is dispatched and documented. */
#ifndef MLVIZ_COMMANDS_H
#define MLVIZ_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What follows an option, for completions. */
/* ARG_NAMES: the names `mlviz completion --list WORDS` prints when the
 * completion runs (WORDS: presets, models, scenarios or themes), and files
 * but for themes. */
enum commands_arg { ARG_NONE, ARG_WORDS, ARG_FILE, ARG_DIR, ARG_FIELD, ARG_ANY, ARG_NAMES };

enum { COMMANDS_MAX_OPTIONS = 20 };

struct commands_option {
    const char *name;    /* "--format" */
    const char *metavar; /* "text|csv|json", "FILE"; NULL for a switch */
    enum commands_arg arg;
    const char *words; /* ARG_WORDS: the choices, space-separated */
    unsigned flags;    /* COMMANDS_REPEAT, COMMANDS_REQUIRED */
    const char *help;  /* one line for long help, or NULL */
};

enum { COMMANDS_REPEAT = 1u << 0, COMMANDS_REQUIRED = 1u << 1 };

struct commands_spec {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
    const char *summary;               /* one line for mlviz --help */
    const char *positional;            /* synopsis of the arguments ("FILE|PRESET|-"), or "" */
    const char *words; /* completion words for the first argument; NULL: files; "@presets",
                          "@scenarios": a list of `mlviz completion --list` (and files) */
    const char *tail;  /* synopsis after the options ("[args...]"), or NULL */
    struct commands_option options[COMMANDS_MAX_OPTIONS];
};

/* The spec of a command, NULL when the table has none. */
const struct commands_spec *commands_find(const char *name);
/* The i-th command of the table, NULL past the end. */
const struct commands_spec *commands_at(size_t i);
/* `mlviz --help`'s list: "  NAME  summary", one command a line. */
void commands_list(FILE *out);
/* The man page's SYNOPSIS lines (roff): the view, then every command. */
void commands_man_synopsis(FILE *out);
/* "mlviz eval FILE|PRESET|- [--model CONFIG.json|NAME] [--set PATH=VALUE]... ..." */
void commands_usage(const char *name, char *buf, size_t len);
/* The options with help lines, "  --trust           lift the sandbox", one a
 * line, names padded to COMMANDS_HELP_WIDTH. */
enum { COMMANDS_HELP_WIDTH = 17 };
void commands_option_help(FILE *out, const char *name);

#endif
