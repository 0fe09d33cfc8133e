/* bench_frame: median time to build and output one overview frame at
 * 200x60, drawn by the real front-end code with curses writing to
 * /dev/null (the terminal is told it is a 256-colour xterm of that size).
 * The step loop advances between frames (not timed), so each frame has
 * the changes a real animated frame has. Prints `frame_ms: CPU WALL`, the
 * median frame of each clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "bench.h"
#include "cli.h"
#include "tui.h"

enum { COLS_BENCH = 200, ROWS_BENCH = 60, WARMUP = 20, FRAMES = 300 };
#define FRAME_DT_S (1.0 / 30.0)

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
    static double ms[FRAMES], cpu_ms[FRAMES];
    for (int i = 0; i < WARMUP + FRAMES; i++) {
        tui_frame_advance(u, FRAME_DT_S);
        struct bench_clock t0 = bench_now();
        tui_frame_draw(u);
        fflush(out);
        struct bench_clock dt = bench_since(t0);
        if (i >= WARMUP) {
            ms[i - WARMUP] = dt.wall_s * 1e3;
            cpu_ms[i - WARMUP] = dt.cpu_s * 1e3;
        }
    }
    tui_frame_close(u);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    qsort(ms, FRAMES, sizeof ms[0], cmp_double);
    qsort(cpu_ms, FRAMES, sizeof cpu_ms[0], cmp_double);
    printf("frame_ms: %.3f %.3f\n", cpu_ms[FRAMES / 2], ms[FRAMES / 2]);
    return 0;
}
