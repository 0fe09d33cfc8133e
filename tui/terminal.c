/* terminal: curses setup and restore for the screen, and stdout capture
 * while a script plays. The signal side (handlers, the terminfo probe,
 * waiting for input) is termguard.c: it must stay async-signal-safe and
 * free of curses, so it stays its own module. */
#include "terminal.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "glyphs.h"
#include "report.h"
#include "termguard.h"
#include "theme.h"

enum { ESC_DELAY_MS = 25 };

static bool curses_active;
static void replay_stdout(void);

/* Leaves curses; also the atexit handler, so every way out of the process
 * (exit() included) gives the terminal back and replays captured output. */
void terminal_restore(void)
{
    if (curses_active) {
        if (has_mouse())
            mousemask(0, NULL);
        endwin();
        curses_active = false;
        termguard_set_active(-1);
    }
    replay_stdout();
}

/* While a script plays, anything it writes to stdout would scribble over
 * the screen: curses gets its own handle on the terminal and stdout goes
 * to a temporary file that is replayed after the terminal is restored. */
static FILE *tty_out;
static FILE *captured_stdout;
static int saved_stdout_fd = -1;

void terminal_capture_stdout(void)
{
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    FILE *tmp = fd >= 0 ? tmpfile() : NULL;
    if (!tmp) {
        if (fd >= 0)
            close(fd);
        return;
    }
    tty_out = fdopen(fd, "w");
    if (!tty_out) {
        close(fd);
        fclose(tmp);
        return;
    }
    saved_stdout_fd = dup(fd);
    captured_stdout = tmp;
    dup2(fileno(tmp), STDOUT_FILENO);
    termguard_set_capture(fileno(tmp), saved_stdout_fd);
}

/* The scenario starts again (r, b): what it printed so far goes. */
void terminal_restart_capture(void)
{
    if (!captured_stdout)
        return;
    fflush(stdout);
    if (ftruncate(fileno(captured_stdout), 0) == 0)
        lseek(STDOUT_FILENO, 0, SEEK_SET);
}

static void replay_stdout(void)
{
    if (!captured_stdout)
        return;
    termguard_set_capture(-1, -1);
    fflush(stdout);
    dup2(saved_stdout_fd, STDOUT_FILENO);
    close(saved_stdout_fd);
    saved_stdout_fd = -1;
    rewind(captured_stdout);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, captured_stdout)) > 0)
        fwrite(buf, 1, n, stdout);
    fflush(stdout);
    fclose(captured_stdout);
    captured_stdout = NULL;
}

/* COLORFGBG ("fg;bg" or "fg;default;bg", set by rxvt, Konsole and
 * others): a light background is colour 7 or 15 (white) or 9-14 light,
 * any other number a dark one; unset or unreadable: unknown. */
static enum theme_paper colorfgbg_paper(void)
{
    const char *v = getenv("COLORFGBG");
    if (!v || !*v)
        return THEME_PAPER_UNKNOWN;
    const char *bg = strrchr(v, ';');
    bg = bg ? bg + 1 : v;
    char *end;
    long n = strtol(bg, &end, 10);
    if (end == bg || *end != '\0')
        return THEME_PAPER_UNKNOWN;
    return n == 7 || (n >= 9 && n <= 15) ? THEME_PAPER_LIGHT : THEME_PAPER_DARK;
}

/* How long to wait for the terminal's answer about its background. */
#define BACKGROUND_QUERY_MS 150

static double monotonic_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The answer "ESC ] 11 ; rgb:RRRR/GGGG/BBBB" (1 to 4 hex digits a channel):
 * light when its luminance (Rec. 709 weights) is above the middle. Returns
 * 1 light, 0 dark, -1 no answer. */
static int parse_background(const char *reply)
{
    const char *p = strstr(reply, "]11;rgb:");
    if (!p)
        return -1;
    p += strlen("]11;rgb:");
    double c[3];
    for (int i = 0; i < 3; i++) {
        char *end;
        unsigned long v = strtoul(p, &end, 16);
        int digits = (int)(end - p);
        if (digits < 1 || digits > 4 || (i < 2 && *end != '/'))
            return -1;
        c[i] = (double)v / (double)((1UL << (4 * digits)) - 1);
        p = end + 1;
    }
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] > 0.5 ? 1 : 0;
}

/* Cut the first run from `start` up to and including `end` out of s. */
static void cut_reply(char *s, const char *start, char end)
{
    char *a = strstr(s, start);
    char *b = a ? strchr(a + strlen(start), end) : NULL;
    if (b)
        memmove(a, b + 1, strlen(b + 1) + 1);
}

/* Keys typed before the terminal answered were read with the answers:
 * they go back to the key reader, in order (the answers cut out). */
static void give_back_typeahead(char *buf)
{
    cut_reply(buf, "\033]11;", '\\'); /* ends in ESC \ (or BEL, below) */
    cut_reply(buf, "\033]11;", '\a');
    cut_reply(buf, "\033[?", 'c');
    for (size_t i = strlen(buf); i-- > 0;)
        ungetch((unsigned char)buf[i]);
}

/* Ask the terminal for its background colour (OSC 11), then for its
 * attributes (DA1), which every terminal answers: once that answer is in,
 * an OSC 11 answer would have come before it, so the wait is short and no
 * late reply reaches the key reader. A terminal that answers neither is
 * waited for BACKGROUND_QUERY_MS and its input flushed. */
static int query_background(int out_fd)
{
    int in = STDIN_FILENO;
    struct termios old, raw;
    if (!isatty(in) || !isatty(out_fd) || tcgetattr(in, &old) != 0)
        return -1;
    raw = old;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(in, TCSANOW, &raw) != 0)
        return -1;
    static const char ask[] = "\033]11;?\033\\\033[c";
    char reply[256];
    size_t n = 0;
    bool done = write(out_fd, ask, sizeof ask - 1) != (ssize_t)(sizeof ask - 1);
    double until = monotonic_ms() + BACKGROUND_QUERY_MS;
    while (!done && n < sizeof reply - 1) {
        int left = (int)(until - monotonic_ms());
        struct pollfd pf = {.fd = in, .events = POLLIN};
        if (left <= 0 || poll(&pf, 1, left) <= 0)
            break;
        ssize_t got = read(in, reply + n, sizeof reply - 1 - n);
        if (got <= 0)
            break;
        n += (size_t)got;
        reply[n] = '\0';
        const char *da = strstr(reply, "\033[?");
        done = da && strchr(da, 'c');
    }
    reply[n] = '\0';
    if (!done)
        tcflush(in, TCIFLUSH);
    tcsetattr(in, TCSANOW, &old);
    int light = parse_background(reply);
    give_back_typeahead(reply);
    return light;
}

int terminal_start(const struct terminal_options *o, bool *mouse)
{
    /* ncurses reads ESCDELAY before initscr: a short delay keeps Esc snappy. */
    set_escdelay(ESC_DELAY_MS);
    FILE *out = tty_out ? tty_out : stdout;
    /* newterm, not initscr: initscr ends the process when it fails. */
    if (!newterm(NULL, out, stdin))
        return -1;
    curses_active = true;
    termguard_set_active(fileno(out));
    static bool registered;
    if (!registered)
        registered = atexit(terminal_restore) == 0;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    /* Home and End as screen, tmux and rxvt send them, when the terminfo
     * entry in use does not know those forms (a stray '1' would open a stage). */
    static const struct {
        const char *seq;
        int key;
    } extra_keys[] = {{"\033[1~", KEY_HOME}, {"\033[4~", KEY_END}, {"\033[7~", KEY_HOME},
                      {"\033[8~", KEY_END},  {"\033[H", KEY_HOME}, {"\033[F", KEY_END}};
    for (size_t i = 0; i < sizeof extra_keys / sizeof extra_keys[0]; i++)
        if (key_defined(extra_keys[i].seq) == 0)
            define_key(extra_keys[i].seq, extra_keys[i].key);
    curs_set(0);
    bool no_color = o->mono || (getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
    enum theme_id wanted = THEME_DEFAULT;
    enum theme_paper paper = colorfgbg_paper();
    bool has_fgbg = getenv("COLORFGBG") && *getenv("COLORFGBG");
    if (o->theme)
        theme_parse(o->theme, &wanted);
    else if (!has_fgbg) {
        /* No COLORFGBG: ask the terminal (most multiplexers do not answer). */
        int light = query_background(fileno(out));
        paper = light == 1 ? THEME_PAPER_LIGHT : light == 0 ? THEME_PAPER_DARK : paper;
    }
    if (!o->theme && paper == THEME_PAPER_LIGHT)
        wanted = THEME_LIGHT;
    if (paper == THEME_PAPER_UNKNOWN && wanted == THEME_LIGHT)
        paper = THEME_PAPER_LIGHT; /* --theme light says the paper is light */
    theme_set_paper(paper);
    /* Colour is never switched on under NO_COLOR / --mono: not even the
     * white-on-black of the default pair reaches the terminal. COLORS is
     * only known after start_color. */
    int colors = 0;
    if (!no_color && has_colors()) {
        start_color();
        use_default_colors();
        colors = COLORS;
    }
    theme_apply(theme_choose(wanted, colors, no_color));
    *mouse = !o->no_mouse;
    if (*mouse) {
        mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
        mouseinterval(0);
    }
    return colors;
}

void terminal_replay_stdout(void)
{
    replay_stdout();
}

bool terminal_theme_known(const char *name)
{
    enum theme_id t;
    return theme_parse(name, &t);
}

int terminal_prepare(bool ascii)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fputs("mlviz: the interactive view needs a terminal, but stdin or stdout is not one.\n"
              "For scripts and pipes use the headless commands: 'mlviz eval default',\n"
              "'mlviz sim default --duration 1h', 'mlviz run SCRIPT.lua' (see 'mlviz --help').\n",
              stderr);
        return 2;
    }
    char err[320], safe[4 * sizeof err + 1];
    if (!termguard_probe(STDOUT_FILENO, err, sizeof err)) {
        format_printable(safe, sizeof safe, err); /* TERM is the user's text */
        fprintf(stderr, "mlviz: %s\n", safe);
        return 2;
    }
    setlocale(LC_ALL, "");
    glyphs_use(glyphs_want_utf8(nl_langinfo(CODESET), ascii));
    return 0;
}
