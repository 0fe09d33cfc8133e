/* glyphs: the UTF-8 and ASCII glyph tables. */
#include "glyphs.h"

#include <ctype.h>
#include <string.h>

static const struct glyphs utf8_glyphs = {
    .utf8 = true,
    .h = "─",
    .v = "│",
    .tl = "╭",
    .tr = "╮",
    .bl = "╰",
    .br = "╯",
    .hh = "━",
    .vv = "┃",
    .htl = "┏",
    .htr = "┓",
    .hbl = "┗",
    .hbr = "┛",
    .arrow_right = "▶",
    .arrow_left = "◀",
    .arrow_up = "▲",
    .arrow_down = "▼",
    .batch = "■",
    .track = "─",
    .bar_full = "█",
    .bar_empty = "░",
    .bar_mid = "▌",
    .eighths = {" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"},
    .spark = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"},
    .device = "■",
    .device_failed = "✖",
    .device_hot = "▲",
    .bottleneck = "◆",
    .pass = "✔",
    .fail = "✘",
    .warn = "⚠",
    .selector = "▸",
    .dec = "◂",
    .inc = "▸",
    .legend = "■",
    .bullet = "•",
    .ellipsis = "…",
};

static const struct glyphs ascii_glyphs = {
    .utf8 = false,
    .h = "-",
    .v = "|",
    .tl = "+",
    .tr = "+",
    .bl = "+",
    .br = "+",
    .hh = "=",
    .vv = "#",
    .htl = "#",
    .htr = "#",
    .hbl = "#",
    .hbr = "#",
    .arrow_right = ">",
    .arrow_left = "<",
    .arrow_up = "^",
    .arrow_down = "v",
    .batch = "o",
    .track = "-",
    .bar_full = "#",
    .bar_empty = ".",
    .bar_mid = "=",
    .eighths = {" ", " ", " ", "-", "-", "=", "=", "#", "#"},
    .spark = {" ", ".", ".", ":", ":", "|", "|", "#", "#"},
    .device = "o",
    .device_failed = "X",
    .device_hot = "^",
    .bottleneck = "!",
    .pass = "+",
    .fail = "X",
    .warn = "!",
    .selector = ">",
    .dec = "<",
    .inc = ">",
    .legend = "#",
    .bullet = "*",
    .ellipsis = "~",
};

static const struct glyphs *active = &ascii_glyphs;

const struct glyphs *glyphs_table(bool utf8)
{
    return utf8 ? &utf8_glyphs : &ascii_glyphs;
}

bool glyphs_want_utf8(const char *codeset, bool force_ascii)
{
    if (force_ascii || !codeset)
        return false;
    /* Accept "UTF-8", "utf8", "UTF8" in any case. */
    char norm[16];
    size_t n = 0;
    for (const char *p = codeset; *p && n + 1 < sizeof norm; p++)
        if (*p != '-' && *p != '_')
            norm[n++] = (char)tolower((unsigned char)*p);
    norm[n] = '\0';
    return strcmp(norm, "utf8") == 0;
}

const struct glyphs *glyphs_active(void)
{
    return active;
}

void glyphs_use(bool utf8)
{
    active = glyphs_table(utf8);
}
