/* theme: colours by role. Drawing code asks for a role (stage busy,
 * bottleneck, queue, warning...), never for a colour; a theme maps roles to
 * colours and attributes for what the terminal can show (256 colours, 8
 * colours, or none). Meaning is never carried by colour alone: the drawing
 * code pairs every alarm colour with a word or glyph. */
#ifndef MLVIZ_THEME_H
#define MLVIZ_THEME_H

#include <stdbool.h>

enum theme_role {
    ROLE_TEXT,
    ROLE_DIM,
    ROLE_TITLE,   /* the title line */
    ROLE_HEADING, /* box titles */
    ROLE_BORDER,
    ROLE_BORDER_SEL, /* selected box / knob panel in focus */
    ROLE_STAGE_IDLE, /* box colour by utilization: low */
    ROLE_STAGE_MID,
    ROLE_STAGE_BUSY,
    ROLE_BOTTLENECK,
    ROLE_QUEUE,
    ROLE_FLOW, /* batches moving along arrows */
    ROLE_OK,
    ROLE_WARN,
    ROLE_FAILED,
    ROLE_PAUSED,
    ROLE_KEY, /* a key in the footer / help */
    ROLE_KNOB_SEL,
    ROLE_VALUE,   /* headline numbers */
    ROLE_CAPTION, /* tour and narration captions */
    ROLE_SPARK_TPUT,
    ROLE_SPARK_POWER,
    ROLE_PART_COMPUTE, /* step breakdown and memory bar parts */
    ROLE_PART_COMM,
    ROLE_PART_BUBBLE,
    ROLE_PART_DATA,
    ROLE_PART_OTHER,
    ROLE_PART_WAIT, /* waiting for the slowest device (stragglers) */
    ROLE_MEM_WEIGHTS,
    ROLE_MEM_GRADS,
    ROLE_MEM_OPTIM,
    ROLE_MEM_ACT,
    ROLE_MEM_FREE,
    ROLE_COUNT
};

enum theme_id { THEME_DEFAULT, THEME_BASIC, THEME_MONO, THEME_CONTRAST, THEME_LIGHT, THEME_COUNT };
extern const char *const theme_names[]; /* "default", "basic", "mono", "contrast", "light", NULL */
extern const char *const theme_role_names[]; /* "text", "dim", ... */

enum theme_attr_flags {
    THEME_ATTR_BOLD = 1u << 0,
    THEME_ATTR_REVERSE = 1u << 1,
    THEME_ATTR_DIM = 1u << 2,
    THEME_ATTR_UNDERLINE = 1u << 3,
};

/* A resolved style: fg/bg are curses colour numbers, -1 = terminal default. */
struct theme_style {
    short fg, bg;
    unsigned attrs;
};

/* The terminal's paper (background), as COLORFGBG or the terminal's answer
 * to OSC 11 tells it, or as --theme light implies; unknown otherwise (tmux,
 * screen and many terminals say nothing). */
enum theme_paper { THEME_PAPER_UNKNOWN, THEME_PAPER_DARK, THEME_PAPER_LIGHT };

/* Parse a theme name; false when unknown. */
bool theme_parse(const char *name, enum theme_id *out);
/* The theme to use: mono when no_color (NO_COLOR set, --mono) or the terminal
 * has no colours; the 8-colour fallback when `default` meets < 256 colours. */
enum theme_id theme_choose(enum theme_id wanted, int colors, bool no_color);
/* Pure: the style of one role under one (already chosen) theme. */
struct theme_style theme_style(enum theme_id theme, enum theme_role role);

/* The least contrast (WCAG ratio) a figure keeps its role's colour at: the
 * 4.5:1 of WCAG AA with the margin a thin glyph needs (antialiasing leaves
 * the strokes of a regular-weight "0" about 3% short of their ink). */
#define THEME_FIGURE_CONTRAST_MIN 5.0
/* WCAG contrast ratio of xterm-256 colours fg on bg (16..255; -1 is the
 * terminal's own ink or paper, taken as black or white per `paper`, the
 * worse of the two when unknown); 0 when either is one of colours 0..15,
 * which each terminal sets for itself. */
double theme_contrast(short fg, short bg, enum theme_paper paper);
/* Pure: the style of a figure (a number with its unit, see draw.h) drawn in
 * text of `role`: the role's own where its colours have a contrast of at
 * least THEME_FIGURE_CONTRAST_MIN on `paper` (on both papers when it is
 * unknown) or cannot be known (colours 0..15: the basic and contrast
 * themes); otherwise the terminal's own ink on its paper, which is readable
 * there by construction. Never dim. */
struct theme_style theme_figure_style(enum theme_id theme, enum theme_paper paper,
                                      enum theme_role role);

/* Curses side: the paper (before theme_apply), colour pairs for the chosen
 * theme (call after initscr/start_color), and the attribute to draw a role
 * and the figures in its text with. */
void theme_set_paper(enum theme_paper paper);
enum theme_paper theme_paper(void);
void theme_apply(enum theme_id theme);
int theme_attr(enum theme_role role);
int theme_figure_attr(enum theme_role role);
enum theme_id theme_current(void);

/* Role for a utilization 0..1 (box colour by load). */
enum theme_role theme_role_for_util(double util);

#endif
