/* theme: role -> colour tables and their curses pairs. */
#include "theme.h"

#include <curses.h>
#include <math.h>
#include <string.h>

const char *const theme_names[] = {"default", "basic", "mono", "contrast", "light", NULL};
const char *const theme_role_names[] = {"text",
                                        "dim",
                                        "title",
                                        "heading",
                                        "border",
                                        "border-selected",
                                        "stage-idle",
                                        "stage-mid",
                                        "stage-busy",
                                        "bottleneck",
                                        "queue",
                                        "flow",
                                        "ok",
                                        "warning",
                                        "failed",
                                        "paused",
                                        "key",
                                        "knob-selected",
                                        "value",
                                        "caption",
                                        "spark-throughput",
                                        "spark-power",
                                        "part-compute",
                                        "part-comm",
                                        "part-bubble",
                                        "part-data",
                                        "part-other",
                                        "part-wait",
                                        "mem-weights",
                                        "mem-grads",
                                        "mem-optimizer",
                                        "mem-activations",
                                        "mem-free",
                                        NULL};

/* Terminal default colour. */
enum { DEF = -1 };
/* xterm-256 palette indices used by the default theme: a colour-blind-safe
 * set built on blue / orange / yellow, with magenta for alarms, so no
 * meaning rests on a red-vs-green difference. */
enum {
    /* Inks for text: each has a contrast of at least 4.5:1 (WCAG AA) on
     * black and on white paper, so labels stay readable when the paper is
     * not known (no COLORFGBG, no answer to OSC 11: tmux, screen, many
     * terminals). None has the margin a thin glyph needs on both papers
     * (THEME_FIGURE_CONTRAST_MIN), so there the figures inside them take
     * the terminal's own ink (theme_figure_style). Only bars, sparklines
     * and borders use the brighter colours below them. */
    C256_TEXT_GREY = 243,    /* 118 grey: 4.54 on white, 4.62 on black */
    C256_TEXT_BLUE = 63,     /* 4.60 / 4.57 */
    C256_TEXT_PURPLE = 98,   /* 4.52 / 4.65 */
    C256_TEXT_GREEN = 29,    /* 4.53 / 4.63 */
    C256_TEXT_RED = 131,     /* 4.54 / 4.62 */
    C256_TEXT_MAGENTA = 163, /* 4.66 / 4.51 */
    C256_GREY = 245,
    C256_DARKGREY = 240,
    C256_WHITE = 255,
    C256_BLUE = 39,
    C256_SKY = 117,
    C256_TEAL = 44,
    C256_YELLOW = 220,
    C256_ORANGE = 208,
    C256_MAGENTA = 199,
    C256_PURPLE = 141,
    C256_GREEN = 114,
    C256_NAVY = 25,
};

#define S(f, b, a)                                                                                 \
    {                                                                                              \
        (short)(f), (short)(b), (a)                                                                \
    }
#define B THEME_ATTR_BOLD
#define R THEME_ATTR_REVERSE
#define D THEME_ATTR_DIM
#define U THEME_ATTR_UNDERLINE

static const struct theme_style default_theme[ROLE_COUNT] = {
    [ROLE_TEXT] = S(DEF, DEF, 0),
    [ROLE_DIM] = S(C256_TEXT_GREY, DEF, 0),
    [ROLE_TITLE] = S(C256_WHITE, C256_NAVY, B),
    [ROLE_HEADING] = S(C256_TEXT_BLUE, DEF, B),
    [ROLE_BORDER] = S(C256_DARKGREY, DEF, 0),
    [ROLE_BORDER_SEL] = S(DEF, DEF, B),
    [ROLE_STAGE_IDLE] = S(C256_BLUE, DEF, 0),
    [ROLE_STAGE_MID] = S(C256_TEAL, DEF, 0),
    [ROLE_STAGE_BUSY] = S(C256_YELLOW, DEF, B),
    [ROLE_BOTTLENECK] = S(C256_TEXT_MAGENTA, DEF, B),
    [ROLE_QUEUE] = S(C256_SKY, DEF, 0),
    [ROLE_FLOW] = S(C256_ORANGE, DEF, B),
    [ROLE_OK] = S(C256_TEXT_GREEN, DEF, 0),
    [ROLE_WARN] = S(C256_TEXT_RED, DEF, B),
    [ROLE_FAILED] = S(C256_TEXT_MAGENTA, DEF, B | R),
    [ROLE_PAUSED] = S(C256_YELLOW, C256_NAVY, B | R),
    [ROLE_KEY] = S(C256_TEXT_PURPLE, DEF, B),
    [ROLE_KNOB_SEL] = S(C256_WHITE, C256_NAVY, B),
    [ROLE_VALUE] = S(DEF, DEF, B),
    [ROLE_CAPTION] = S(C256_WHITE, C256_NAVY, B),
    [ROLE_SPARK_TPUT] = S(C256_TEAL, DEF, 0),
    [ROLE_SPARK_POWER] = S(C256_ORANGE, DEF, 0),
    [ROLE_PART_COMPUTE] = S(C256_BLUE, DEF, 0),
    [ROLE_PART_COMM] = S(C256_ORANGE, DEF, 0),
    [ROLE_PART_BUBBLE] = S(C256_PURPLE, DEF, 0),
    [ROLE_PART_DATA] = S(C256_YELLOW, DEF, 0),
    [ROLE_PART_OTHER] = S(C256_GREY, DEF, 0),
    [ROLE_PART_WAIT] = S(C256_TEAL, DEF, 0),
    [ROLE_MEM_WEIGHTS] = S(C256_BLUE, DEF, 0),
    [ROLE_MEM_GRADS] = S(C256_TEAL, DEF, 0),
    [ROLE_MEM_OPTIM] = S(C256_PURPLE, DEF, 0),
    [ROLE_MEM_ACT] = S(C256_ORANGE, DEF, 0),
    [ROLE_MEM_FREE] = S(C256_DARKGREY, DEF, 0),
};

static const struct theme_style basic_theme[ROLE_COUNT] = {
    [ROLE_TEXT] = S(DEF, DEF, 0),
    [ROLE_DIM] = S(DEF, DEF, D),
    [ROLE_TITLE] = S(COLOR_WHITE, COLOR_BLUE, B),
    [ROLE_HEADING] = S(COLOR_CYAN, DEF, B),
    [ROLE_BORDER] = S(DEF, DEF, D),
    [ROLE_BORDER_SEL] = S(COLOR_WHITE, DEF, B),
    [ROLE_STAGE_IDLE] = S(COLOR_BLUE, DEF, 0),
    [ROLE_STAGE_MID] = S(COLOR_CYAN, DEF, 0),
    [ROLE_STAGE_BUSY] = S(COLOR_YELLOW, DEF, B),
    [ROLE_BOTTLENECK] = S(COLOR_MAGENTA, DEF, B),
    [ROLE_QUEUE] = S(COLOR_CYAN, DEF, 0),
    [ROLE_FLOW] = S(COLOR_YELLOW, DEF, B),
    [ROLE_OK] = S(COLOR_GREEN, DEF, 0),
    [ROLE_WARN] = S(COLOR_YELLOW, DEF, B),
    [ROLE_FAILED] = S(COLOR_RED, DEF, B | R),
    [ROLE_PAUSED] = S(COLOR_YELLOW, COLOR_BLUE, B | R),
    [ROLE_KEY] = S(COLOR_YELLOW, DEF, B),
    [ROLE_KNOB_SEL] = S(COLOR_WHITE, COLOR_BLUE, B),
    [ROLE_VALUE] = S(DEF, DEF, B),
    [ROLE_CAPTION] = S(COLOR_WHITE, COLOR_BLUE, B),
    [ROLE_SPARK_TPUT] = S(COLOR_CYAN, DEF, 0),
    [ROLE_SPARK_POWER] = S(COLOR_YELLOW, DEF, 0),
    [ROLE_PART_COMPUTE] = S(COLOR_BLUE, DEF, 0),
    [ROLE_PART_COMM] = S(COLOR_YELLOW, DEF, 0),
    [ROLE_PART_BUBBLE] = S(COLOR_MAGENTA, DEF, 0),
    [ROLE_PART_DATA] = S(COLOR_CYAN, DEF, 0),
    [ROLE_PART_OTHER] = S(DEF, DEF, D),
    [ROLE_PART_WAIT] = S(COLOR_GREEN, DEF, 0),
    [ROLE_MEM_WEIGHTS] = S(COLOR_BLUE, DEF, 0),
    [ROLE_MEM_GRADS] = S(COLOR_CYAN, DEF, 0),
    [ROLE_MEM_OPTIM] = S(COLOR_MAGENTA, DEF, 0),
    [ROLE_MEM_ACT] = S(COLOR_YELLOW, DEF, 0),
    [ROLE_MEM_FREE] = S(DEF, DEF, D),
};

/* Monochrome: attributes only. */
static const struct theme_style mono_theme[ROLE_COUNT] = {
    [ROLE_TEXT] = S(DEF, DEF, 0),         [ROLE_DIM] = S(DEF, DEF, D),
    [ROLE_TITLE] = S(DEF, DEF, R),        [ROLE_HEADING] = S(DEF, DEF, B),
    [ROLE_BORDER] = S(DEF, DEF, 0),       [ROLE_BORDER_SEL] = S(DEF, DEF, B),
    [ROLE_STAGE_IDLE] = S(DEF, DEF, D),   [ROLE_STAGE_MID] = S(DEF, DEF, 0),
    [ROLE_STAGE_BUSY] = S(DEF, DEF, B),   [ROLE_BOTTLENECK] = S(DEF, DEF, B | U),
    [ROLE_QUEUE] = S(DEF, DEF, 0),        [ROLE_FLOW] = S(DEF, DEF, B),
    [ROLE_OK] = S(DEF, DEF, 0),           [ROLE_WARN] = S(DEF, DEF, B),
    [ROLE_FAILED] = S(DEF, DEF, B | R),   [ROLE_PAUSED] = S(DEF, DEF, B | R),
    [ROLE_KEY] = S(DEF, DEF, B),          [ROLE_KNOB_SEL] = S(DEF, DEF, R),
    [ROLE_VALUE] = S(DEF, DEF, B),        [ROLE_CAPTION] = S(DEF, DEF, R),
    [ROLE_SPARK_TPUT] = S(DEF, DEF, 0),   [ROLE_SPARK_POWER] = S(DEF, DEF, 0),
    [ROLE_PART_COMPUTE] = S(DEF, DEF, 0), [ROLE_PART_COMM] = S(DEF, DEF, B),
    [ROLE_PART_BUBBLE] = S(DEF, DEF, D),  [ROLE_PART_DATA] = S(DEF, DEF, U),
    [ROLE_PART_OTHER] = S(DEF, DEF, D),   [ROLE_PART_WAIT] = S(DEF, DEF, U),
    [ROLE_MEM_WEIGHTS] = S(DEF, DEF, 0),  [ROLE_MEM_GRADS] = S(DEF, DEF, B),
    [ROLE_MEM_OPTIM] = S(DEF, DEF, 0),    [ROLE_MEM_ACT] = S(DEF, DEF, B),
    [ROLE_MEM_FREE] = S(DEF, DEF, D),
};

/* High contrast for projectors: bright saturated colours, bold everywhere,
 * no dim grey text that washes out on a screen. */
static const struct theme_style contrast_theme[ROLE_COUNT] = {
    [ROLE_TEXT] = S(COLOR_WHITE, DEF, B),
    [ROLE_DIM] = S(COLOR_WHITE, DEF, 0),
    [ROLE_TITLE] = S(COLOR_BLACK, COLOR_WHITE, B),
    [ROLE_HEADING] = S(COLOR_CYAN, DEF, B),
    [ROLE_BORDER] = S(COLOR_WHITE, DEF, 0),
    [ROLE_BORDER_SEL] = S(COLOR_YELLOW, DEF, B),
    [ROLE_STAGE_IDLE] = S(COLOR_CYAN, DEF, B),
    [ROLE_STAGE_MID] = S(COLOR_WHITE, DEF, B),
    [ROLE_STAGE_BUSY] = S(COLOR_YELLOW, DEF, B),
    [ROLE_BOTTLENECK] = S(COLOR_MAGENTA, DEF, B | U),
    [ROLE_QUEUE] = S(COLOR_CYAN, DEF, B),
    [ROLE_FLOW] = S(COLOR_YELLOW, DEF, B),
    [ROLE_OK] = S(COLOR_GREEN, DEF, B),
    [ROLE_WARN] = S(COLOR_YELLOW, DEF, B | U),
    [ROLE_FAILED] = S(COLOR_WHITE, COLOR_RED, B),
    [ROLE_PAUSED] = S(COLOR_BLACK, COLOR_YELLOW, B),
    [ROLE_KEY] = S(COLOR_BLACK, COLOR_CYAN, B),
    [ROLE_KNOB_SEL] = S(COLOR_BLACK, COLOR_YELLOW, B),
    [ROLE_VALUE] = S(COLOR_YELLOW, DEF, B),
    [ROLE_CAPTION] = S(COLOR_BLACK, COLOR_WHITE, B),
    [ROLE_SPARK_TPUT] = S(COLOR_CYAN, DEF, B),
    [ROLE_SPARK_POWER] = S(COLOR_YELLOW, DEF, B),
    [ROLE_PART_COMPUTE] = S(COLOR_CYAN, DEF, B),
    [ROLE_PART_COMM] = S(COLOR_YELLOW, DEF, B),
    [ROLE_PART_BUBBLE] = S(COLOR_MAGENTA, DEF, B),
    [ROLE_PART_DATA] = S(COLOR_WHITE, DEF, B),
    [ROLE_PART_OTHER] = S(COLOR_WHITE, DEF, 0),
    [ROLE_PART_WAIT] = S(COLOR_GREEN, DEF, B),
    [ROLE_MEM_WEIGHTS] = S(COLOR_CYAN, DEF, B),
    [ROLE_MEM_GRADS] = S(COLOR_GREEN, DEF, B),
    [ROLE_MEM_OPTIM] = S(COLOR_MAGENTA, DEF, B),
    [ROLE_MEM_ACT] = S(COLOR_YELLOW, DEF, B),
    [ROLE_MEM_FREE] = S(COLOR_WHITE, DEF, 0),
};

/* For light backgrounds: dark inks on the terminal's own paper (the
 * default theme's near-white values would vanish there). */
enum {
    L256_GREY = 242,
    L256_LIGHTGREY = 250,
    L256_BORDER = 246,
    L256_NAVY = 25,
    L256_BLUE = 26,
    L256_TEAL = 30,
    L256_ORANGE = 166,
    L256_MAGENTA = 163,
    L256_PURPLE = 91,
    L256_OCHRE = 136,
    L256_GREEN = 28,
    L256_WHITE = 231,
};
static const struct theme_style light_theme[ROLE_COUNT] = {
    [ROLE_TEXT] = S(DEF, DEF, 0),
    [ROLE_DIM] = S(L256_GREY, DEF, 0),
    [ROLE_TITLE] = S(L256_WHITE, L256_NAVY, B),
    [ROLE_HEADING] = S(L256_NAVY, DEF, B),
    [ROLE_BORDER] = S(L256_BORDER, DEF, 0),
    [ROLE_BORDER_SEL] = S(DEF, DEF, B),
    [ROLE_STAGE_IDLE] = S(L256_BLUE, DEF, 0),
    [ROLE_STAGE_MID] = S(L256_TEAL, DEF, 0),
    [ROLE_STAGE_BUSY] = S(L256_ORANGE, DEF, B),
    [ROLE_BOTTLENECK] = S(L256_MAGENTA, DEF, B),
    [ROLE_QUEUE] = S(L256_BLUE, DEF, 0),
    [ROLE_FLOW] = S(L256_ORANGE, DEF, B),
    [ROLE_OK] = S(L256_GREEN, DEF, 0),
    [ROLE_WARN] = S(L256_ORANGE, DEF, B),
    [ROLE_FAILED] = S(L256_MAGENTA, DEF, B | R),
    [ROLE_PAUSED] = S(L256_WHITE, L256_ORANGE, B),
    [ROLE_KEY] = S(L256_NAVY, DEF, B),
    [ROLE_KNOB_SEL] = S(L256_WHITE, L256_NAVY, B),
    [ROLE_VALUE] = S(DEF, DEF, B),
    [ROLE_CAPTION] = S(L256_WHITE, L256_NAVY, B),
    [ROLE_SPARK_TPUT] = S(L256_TEAL, DEF, 0),
    [ROLE_SPARK_POWER] = S(L256_ORANGE, DEF, 0),
    [ROLE_PART_COMPUTE] = S(L256_BLUE, DEF, 0),
    [ROLE_PART_COMM] = S(L256_ORANGE, DEF, 0),
    [ROLE_PART_BUBBLE] = S(L256_PURPLE, DEF, 0),
    [ROLE_PART_DATA] = S(L256_OCHRE, DEF, 0),
    [ROLE_PART_OTHER] = S(L256_GREY, DEF, 0),
    [ROLE_PART_WAIT] = S(L256_TEAL, DEF, 0),
    [ROLE_MEM_WEIGHTS] = S(L256_BLUE, DEF, 0),
    [ROLE_MEM_GRADS] = S(L256_TEAL, DEF, 0),
    [ROLE_MEM_OPTIM] = S(L256_PURPLE, DEF, 0),
    [ROLE_MEM_ACT] = S(L256_ORANGE, DEF, 0),
    [ROLE_MEM_FREE] = S(L256_LIGHTGREY, DEF, 0),
};

#undef S
#undef B
#undef R
#undef D
#undef U

static const struct theme_style *const themes[THEME_COUNT] = {
    [THEME_DEFAULT] = default_theme,   [THEME_BASIC] = basic_theme, [THEME_MONO] = mono_theme,
    [THEME_CONTRAST] = contrast_theme, [THEME_LIGHT] = light_theme,
};

enum { COLORS_256 = 256, COLORS_BASIC = 8 };

static enum theme_id current = THEME_MONO;
static enum theme_paper paper_now = THEME_PAPER_UNKNOWN;

bool theme_parse(const char *name, enum theme_id *out)
{
    for (int i = 0; theme_names[i]; i++)
        if (strcmp(name, theme_names[i]) == 0) {
            *out = (enum theme_id)i;
            return true;
        }
    /* Friendly aliases. */
    if (strcmp(name, "high-contrast") == 0 || strcmp(name, "projector") == 0) {
        *out = THEME_CONTRAST;
        return true;
    }
    if (strcmp(name, "8") == 0 || strcmp(name, "8color") == 0) {
        *out = THEME_BASIC;
        return true;
    }
    return false;
}

enum theme_id theme_choose(enum theme_id wanted, int colors, bool no_color)
{
    if (no_color || wanted == THEME_MONO || colors < COLORS_BASIC)
        return THEME_MONO;
    if ((wanted == THEME_DEFAULT || wanted == THEME_LIGHT) && colors < COLORS_256)
        return THEME_BASIC;
    return wanted;
}

struct theme_style theme_style(enum theme_id theme, enum theme_role role)
{
    if ((int)theme < 0 || theme >= THEME_COUNT)
        theme = THEME_MONO;
    if ((int)role < 0 || role >= ROLE_COUNT)
        role = ROLE_TEXT;
    return themes[theme][role];
}

/* xterm-256: a 6x6x6 cube on these levels from 16, 24 greys from 232. */
enum { XTERM_CUBE = 16, XTERM_GREYS = 232, XTERM_COLOURS = 256 };
static const int cube_level[6] = {0, 95, 135, 175, 215, 255};

/* WCAG 2 relative luminance of an xterm-256 colour (16..255). */
static double luminance(short c)
{
    int rgb[3];
    if (c >= XTERM_GREYS) {
        rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (c - XTERM_GREYS);
    } else {
        int n = c - XTERM_CUBE;
        rgb[0] = cube_level[n / 36];
        rgb[1] = cube_level[n / 6 % 6];
        rgb[2] = cube_level[n % 6];
    }
    static const double weight[3] = {0.2126, 0.7152, 0.0722};
    double l = 0;
    for (int i = 0; i < 3; i++) {
        double v = rgb[i] / 255.0;
        l += weight[i] * (v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4));
    }
    return l;
}

enum { LUM_BLACK = 0, LUM_WHITE = 1 };

/* The ratio on one paper (luminance 0 or 1; DEF ink is its opposite). */
static double ratio_on(short fg, short bg, double paper)
{
    double a = fg == DEF ? 1 - paper : luminance(fg), b = bg == DEF ? paper : luminance(bg);
    return (fmax(a, b) + 0.05) / (fmin(a, b) + 0.05);
}

double theme_contrast(short fg, short bg, enum theme_paper paper)
{
    if ((fg != DEF && (fg < XTERM_CUBE || fg >= XTERM_COLOURS)) ||
        (bg != DEF && (bg < XTERM_CUBE || bg >= XTERM_COLOURS)))
        return 0;
    if (paper == THEME_PAPER_DARK)
        return ratio_on(fg, bg, LUM_BLACK);
    if (paper == THEME_PAPER_LIGHT)
        return ratio_on(fg, bg, LUM_WHITE);
    return fmin(ratio_on(fg, bg, LUM_BLACK), ratio_on(fg, bg, LUM_WHITE));
}

struct theme_style theme_figure_style(enum theme_id theme, enum theme_paper paper,
                                      enum theme_role role)
{
    struct theme_style st = theme_style(theme, role);
    st.attrs &= ~(unsigned)THEME_ATTR_DIM;
    bool terminal_colour = (st.fg >= 0 && st.fg < XTERM_CUBE) || (st.bg >= 0 && st.bg < XTERM_CUBE);
    if (terminal_colour || (st.fg == DEF && st.bg == DEF))
        return st;
    if (theme_contrast(st.fg, st.bg, paper) < THEME_FIGURE_CONTRAST_MIN)
        st.fg = st.bg = DEF;
    return st;
}

static int role_attr[ROLE_COUNT], figure_attr[ROLE_COUNT];

static int curses_attrs(unsigned a)
{
    int out = 0;
    if (a & THEME_ATTR_BOLD)
        out |= A_BOLD;
    if (a & THEME_ATTR_REVERSE)
        out |= A_REVERSE;
    if (a & THEME_ATTR_DIM)
        out |= A_DIM;
    if (a & THEME_ATTR_UNDERLINE)
        out |= A_UNDERLINE;
    return out;
}

void theme_set_paper(enum theme_paper paper)
{
    paper_now = paper;
}

enum theme_paper theme_paper(void)
{
    return paper_now;
}

/* The curses attribute of a style, with colour pair `pair` set up for it
 * when it has colours. */
static int style_attr(struct theme_style st, bool colour, int pair)
{
    int a = curses_attrs(st.attrs);
    if (colour && (st.fg != DEF || st.bg != DEF) && pair < COLOR_PAIRS) {
        init_pair((short)pair, st.fg < COLORS ? st.fg : DEF, st.bg < COLORS ? st.bg : DEF);
        a |= (int)COLOR_PAIR(pair);
    }
    return a;
}

void theme_apply(enum theme_id theme)
{
    current = theme;
    bool colour = theme != THEME_MONO && has_colors();
    for (int r = 0; r < ROLE_COUNT; r++) {
        struct theme_style st = theme_style(theme, (enum theme_role)r);
        struct theme_style fig = theme_figure_style(theme, paper_now, (enum theme_role)r);
        role_attr[r] = style_attr(st, colour, r + 1);
        bool same = fig.fg == st.fg && fig.bg == st.bg && fig.attrs == st.attrs;
        figure_attr[r] = same ? role_attr[r] : style_attr(fig, colour, ROLE_COUNT + r + 1);
    }
}

int theme_attr(enum theme_role role)
{
    if ((int)role < 0 || role >= ROLE_COUNT)
        return 0;
    return role_attr[role];
}

int theme_figure_attr(enum theme_role role)
{
    if ((int)role < 0 || role >= ROLE_COUNT)
        return 0;
    return figure_attr[role];
}

enum theme_id theme_current(void)
{
    return current;
}

/* Load thresholds for box colours: under a third is idle, over 80% busy. */
#define UTIL_IDLE_BELOW 0.34
#define UTIL_BUSY_FROM  0.80

enum theme_role theme_role_for_util(double util)
{
    if (!(util >= UTIL_IDLE_BELOW))
        return ROLE_STAGE_IDLE;
    if (util >= UTIL_BUSY_FROM)
        return ROLE_STAGE_BUSY;
    return ROLE_STAGE_MID;
}
