/* options: the one table of the interactive view's command-line options.
 * It serves `mlviz`, `mlviz play` (which passes them on to the view), the
 * usage text, `mlviz play --help` and the man page (`mlviz options --man`). */
#ifndef MLVIZ_OPTIONS_H
#define MLVIZ_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum options_id {
    OPT_SETUP,
    OPT_SET,
    OPT_CATALOG,
    OPT_TOUR,
    OPT_INFER,
    OPT_FRAMES,
    OPT_SPEED,
    OPT_THEME,
    OPT_MONO,
    OPT_ASCII,
    OPT_NO_MOUSE
};

/* Where an option applies: the interactive view (`mlviz`), `mlviz play`. */
enum { OPT_VIEW = 1u << 0, OPT_PLAY = 1u << 1 };

struct options_entry {
    enum options_id id;
    const char *name;  /* "--setup" */
    const char *alias; /* "-c", or NULL */
    const char *arg;   /* what the value is ("FILE|PRESET"); NULL for a switch */
    unsigned applies;  /* OPT_VIEW | OPT_PLAY */
    const char *help;
};

/* The option `word` names ("--speed", "--speed=2", "-c"), or NULL. When
 * the value is written inline, *inline_value points at it, else NULL. */
const struct options_entry *options_find(const char *word, const char **inline_value);
/* Entry i of the table, NULL past the end (for generated scripts). */
const struct options_entry *options_at(size_t i);
/* One line: "[-c FILE|PRESET] [--tour] ..." of the options for `applies`. */
void options_synopsis(FILE *out, unsigned applies);
/* One option a line, with its help, for usage texts. */
void options_help(FILE *out, unsigned applies);
/* The table as a markdown table (docs/TUI.md, README.md). */
void options_markdown(FILE *out);
/* The table as man-page roff (.TP entries). */
void options_man(FILE *out);

#endif
