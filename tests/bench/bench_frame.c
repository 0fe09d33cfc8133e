/* bench_frame: median time to build and output one overview frame at
 * 200x60, drawn by the real front-end code with curses writing to
 * /dev/null (the terminal is told it is a 256-colour xterm of that size).
 * The step loop advances between frames (not timed), so each frame has
 * the changes a real animated frame has. Prints `frame_ms: T`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curses.h>

#include "cli.h"
#include "tui.h"

enum { COLS_BENCH = 200, ROWS_BENCH = 60, WARMUP = 20, FRAMES = 300 };
#define FRAME_DT_S (1.0 / 30.0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    if (!out || !in) {
        fprintf(stderr, "bench_frame: cannot open /dev/null\n");
        return 1;
    }
    /* Without a tty ncurses takes the size from these. */
    setenv("COLUMNS", "200", 1);
    setenv("LINES", "60", 1);
    SCREEN *scr = newterm("xterm-256color", out, in);
    if (!scr) {
        fprintf(stderr, "bench_frame: newterm failed\n");
        return 1;
    }
    set_term(scr);
    resizeterm(ROWS_BENCH, COLS_BENCH);
    struct catalog *cat = cli_load_catalog(NULL);
    static struct setup setup;
    struct resolved res;
    struct ui *u = cat && cli_load_setup("default", cat, &setup, &res)
                       ? tui_frame_open(cat, &setup, true)
                       : NULL;
    if (!u) {
        endwin();
        delscreen(scr);
        return 1;
    }
    static double ms[FRAMES];
    for (int i = 0; i < WARMUP + FRAMES; i++) {
        tui_frame_advance(u, FRAME_DT_S);
        double t0 = now_s();
        tui_frame_draw(u);
        fflush(out);
        double t1 = now_s();
        if (i >= WARMUP)
            ms[i - WARMUP] = (t1 - t0) * 1e3;
    }
    tui_frame_close(u);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    qsort(ms, FRAMES, sizeof ms[0], cmp_double);
    printf("frame_ms: %.3f\n", ms[FRAMES / 2]);
    return 0;
}
