/* commands: the one table of mlviz's commands and of every option they take:
 * name, handler, summary, arguments, and per option its value's type,
 * range or choices, completion and help.
 *
 * Every command parses its argv with this table (cli_parse in
 * tui/cli/parse.c walks it and checks each value before the command sees
 * it); the interactive view's options are the table's row "" (the view),
 * which play and lesson take too. main() dispatches on it; `mlviz --help`,
 * each command's usage line and --help, the man page (SYNOPSIS, OPTIONS,
 * PLAN OPTIONS), the shell completions (tui/cli/completion.c) and README's
 * command-line block (`mlviz options --usage`) are generated from it.
 * tests/cli/optable.sh runs every option of every command and refuses
 * options the table lacks; tests/unit/cli/test_cli_parse.c walks it. */
#ifndef MLVIZ_COMMANDS_H
#define MLVIZ_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What follows an option, for completions. ARG_WORDS: the choices of a
 * VALUE_CHOICE option. ARG_NAMES: the names `mlviz completion --list
 * WORDS` prints when the completion runs (WORDS: presets, models,
 * scenarios or themes), and files but for themes. */
enum commands_arg { ARG_NONE, ARG_WORDS, ARG_FILE, ARG_DIR, ARG_FIELD, ARG_ANY, ARG_NAMES };

/* The type of an option's value, checked by the parser. */
enum commands_value {
    VALUE_NONE,     /* a switch: no value */
    VALUE_TEXT,     /* any text that is not empty */
    VALUE_COUNT,    /* a whole number from min to max, digits only */
    VALUE_NUMBER,   /* a number from min (above it: COMMANDS_ABOVE_MIN) to max */
    VALUE_DURATION, /* a time (90s, 15m, 6h, 2d or seconds) from min to max seconds */
    VALUE_BYTES,    /* a size (1GiB, 64MB, 4096) from min to max bytes */
    VALUE_CHOICE,   /* one of `words` */
    VALUE_ASSIGN,   /* NAME=VALUE with a name before the '=' */
};

enum { COMMANDS_MAX_OPTIONS = 20 };

/* Option flags: given more than once adds up (--set); the view's option
 * that play and lesson do not take (--tour); a VALUE_NUMBER above min,
 * not min itself (--speed); a measure that also takes the word "auto"
 * (--tick). */
enum {
    COMMANDS_REPEAT = 1u << 0,
    COMMANDS_VIEW_ONLY = 1u << 1,
    COMMANDS_ABOVE_MIN = 1u << 2,
    COMMANDS_AUTO = 1u << 3
};

struct commands_option {
    const char *name;    /* "--format" */
    const char *alias;   /* "-c", "--no-color", or NULL */
    const char *metavar; /* "FILE"; NULL for a switch, or a choice (its words joined by '|') */
    enum commands_value value;
    double min, max; /* VALUE_COUNT, NUMBER, DURATION, BYTES */
    enum commands_arg arg;
    /* VALUE_CHOICE: the choices, space-separated, or "@ops", "@schedules",
     * "@themes", "@formats": a table of the engine or the screen.
     * ARG_NAMES: the list `mlviz completion --list` prints. */
    const char *words;
    unsigned flags;
    const char *help;   /* one line */
    const char *sample; /* a value the option takes (tests); NULL: one made from the type */
};

/* Command flags. VIEW_OPTIONS: takes the view's options too (play,
 * lesson). SCRIPT_WORDS: words that look like options but are none of
 * the table's go to the script (run, play: --name=value). OWN_HELP: -h and
 * --help reach the handler as the option "--help" (a script's own help). */
enum {
    COMMANDS_VIEW_OPTIONS = 1u << 0,
    COMMANDS_SCRIPT_WORDS = 1u << 1,
    COMMANDS_OWN_HELP = 1u << 2
};

struct commands_spec {
    const char *name;                  /* "" for the interactive view */
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
    const char *summary;               /* one line for mlviz --help */
    const char *positional;            /* synopsis of the arguments ("FILE|PRESET|-"), or "" */
    const char *words; /* completion words for the first argument; NULL: files; "@presets",
                          "@scenarios": a list of `mlviz completion --list` (and files) */
    const char *tail;  /* synopsis after the options ("[args...]"), or NULL */
    const char *about; /* a paragraph --help prints under the usage line, or NULL */
    unsigned flags;
    struct commands_option options[COMMANDS_MAX_OPTIONS];
};

/* The spec of a command ("" or NULL: the view), NULL when the table has none. */
const struct commands_spec *commands_find(const char *name);
/* The i-th command of the table (the view not included), NULL past the end. */
const struct commands_spec *commands_at(size_t i);
/* The option of command `c` that `word` names ("--x", "--x=V", an alias),
 * with the view's for a VIEW_OPTIONS command; NULL when none. */
const struct commands_option *commands_option_find(const struct commands_spec *c, const char *word);
/* The i-th option a command takes: its own, then (VIEW_OPTIONS) the view's
 * that apply; NULL past the end. */
const struct commands_option *commands_option_at(const struct commands_spec *c, size_t i);
/* The choices of an option (VALUE_CHOICE), or of a named list ("@ops"):
 * at most max words into out; returns how many. */
size_t commands_words(const char *words, const char **out, size_t max);
/* The option's value as the synopsis writes it ("N", "text|csv|json"). */
void commands_metavar(const struct commands_option *o, char *buf, size_t len);

/* `mlviz --help`'s list: "  NAME  summary", one command a line. */
void commands_list(FILE *out);
/* The man page's SYNOPSIS lines (roff): the view, then every command. */
void commands_man_synopsis(FILE *out);
/* A command's options as man-page .TP entries (the view: "", plan). */
void commands_option_man(FILE *out, const char *name);
/* The man page's COMMANDS section: each command (but plan, which has its
 * own section) with its summary, paragraph and options (.SS, .TP). */
void commands_man_commands(FILE *out);
/* A command's options as a markdown table (docs/TUI.md: the view's). */
void commands_option_markdown(FILE *out, const char *name);
/* "mlviz eval FILE|PRESET|- [--model CONFIG.json|NAME] [--set PATH=VALUE]... ..." */
void commands_usage(const char *name, char *buf, size_t len);
/* "usage: mlviz NAME ..." wrapped at `width` columns, then the command's
 * paragraph (about), for --help. */
void commands_help_head(FILE *out, const char *name, int width);
/* Every command's usage line, the view first, wrapped at `width` columns
 * (README's command-line block: `mlviz options --usage`). */
void commands_usage_all(FILE *out, int width);
/* The options with help lines, "  --trust           lift the sandbox", one a
 * line, names padded to COMMANDS_HELP_WIDTH. */
enum { COMMANDS_HELP_WIDTH = 17 };
void commands_option_help(FILE *out, const char *name);
/* One line per option of every command, tab-separated: command, option,
 * alias, value type, a value it takes, a value it refuses (or "-"). For
 * tests (`mlviz options --table`). */
void commands_table_dump(FILE *out);

#endif
