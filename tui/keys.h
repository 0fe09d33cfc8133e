/* keys: the one table of key bindings. The footer hints, the `?` help
 * overlay and the man page's key list are all made from it, and mouse
 * clicks map onto the same actions (see hit.h), so nothing can drift. */
#ifndef MLVIZ_KEYS_H
#define MLVIZ_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum key_action {
    ACT_NONE,
    ACT_QUIT,
    ACT_HELP,
    ACT_PAUSE,
    ACT_STEP,
    ACT_FASTER,
    ACT_SLOWER,
    ACT_RESET,
    ACT_TOUR,
    ACT_THEME,
    ACT_OPEN,   /* arg: stage 0..4 */
    ACT_SELECT, /* arg: direction (enum key_dir) among overview boxes */
    ACT_ENTER,  /* open the selected box */
    ACT_BACK,
    ACT_KNOB_NEXT,
    ACT_KNOB_PREV,
    ACT_KNOB_INC,
    ACT_KNOB_DEC,
    ACT_KNOB_PICK,   /* mouse only: arg = knob index */
    ACT_KNOB_AUTO,   /* set the knob to its automatic value */
    ACT_HELP_SCROLL, /* arg: lines (negative: up) */
    ACT_TOUR_NEXT,
    ACT_TOUR_PREV,
    ACT_PARAMS,       /* show or hide a played scenario's parameters */
    ACT_PARAM_SEL,    /* arg: -1 / +1 */
    ACT_PARAM_CHANGE, /* arg: -1 / +1 */
    ACT_PARAM_APPLY,  /* restart the scenario with the shown values */
    ACT_CAPTION_BACK, /* scroll the narration transcript back; arg: lines, 0 = a page */
    ACT_CAPTION_ON,   /* ... and forward */
    ACT_TEXT_UP,      /* scroll the stage explanation up; arg: lines, 0 = a page, -1 = top */
    ACT_TEXT_DOWN,    /* ... down; arg: lines, 0 = a page, -1 = the end */
    ACT_TEXT_FULL,    /* the stage explanation full screen, or back */
    ACT_UNDO,         /* back to the setup before the last knob change */
    ACT_WRITE,        /* the current setup as a YAML file */
    ACT_PLAN,         /* open the plan screen */
    ACT_PLAN_ROW,     /* arg: -1 / +1 */
    ACT_PLAN_LOAD,    /* load the selected row into the live view */
    ACT_INFER,        /* the inference mode on or off */
    ACT_COUNT
};

enum key_dir { DIR_LEFT, DIR_RIGHT, DIR_UP, DIR_DOWN };
enum { KEYS_LABEL_W = 18 };

/* Where a binding applies. */
enum key_context {
    KEYCTX_OVERVIEW = 1u << 0,
    KEYCTX_STAGE = 1u << 1,
    KEYCTX_TOUR = 1u << 2,
    KEYCTX_HELP = 1u << 3,
    KEYCTX_PARAMS = 1u << 4, /* the scenario-parameters panel of mlviz play */
    KEYCTX_PLAN = 1u << 5,   /* the plan screen */
    KEYCTX_ALL = KEYCTX_OVERVIEW | KEYCTX_STAGE | KEYCTX_TOUR,
};

/* What a key does: an action and its one line of help for the help
 * overlay, the man page and docs/TUI.md (written once, in keys.c). */
struct key_command {
    enum key_action action;
    const char *help;
};

struct key_binding {
    int key;           /* curses key code or character */
    int key_last;      /* a range key..key_last (digits); 0 = single key */
    const char *label; /* how the key is written: "space", "1-5", "Tab" */
    const struct key_command *cmd;
    int arg;           /* action argument (for ranges: added to key - key) */
    unsigned contexts; /* enum key_context mask */
    const char *hint;  /* footer word ("pause"); NULL: not in the footer */
};

size_t keys_count(void);
const struct key_binding *keys_get(size_t i);

/* The action a key triggers in a context (context-specific bindings win
 * over ones shared by several contexts). *arg receives the argument. */
enum key_action keys_lookup(int key, unsigned context, int *arg);

/* Footer entries of a context in table order; returns how many (<= max). */
size_t keys_footer(unsigned context, const struct key_binding **out, size_t max);

/* Text of the help overlay: one "label  help" line per action, grouped by
 * context headings; keys doing the same thing share a line ("q/Q"). Labels
 * take KEYS_LABEL_W columns. Returns the length written (truncated to len). */
size_t keys_help_text(char *buf, size_t len);
/* Man-page (roff) list of the keys, for docs/mlviz.1. */
void keys_write_man(FILE *out);
/* The key list as markdown (the block in docs/TUI.md): one table per
 * context, then the mouse. */
void keys_write_md(FILE *out);
/* Name of a context for headings ("Overview", "Stage view", ...). */
const char *keys_context_name(unsigned context);

#endif
