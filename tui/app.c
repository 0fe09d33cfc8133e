/* app: the interactive front end. Options, terminal setup and restore, the
 * fixed-rate frame loop (the step loop advances between frames, input waits
 * with a timeout: no busy waiting), input dispatch (keys and mouse go
 * through the one key table), the tour and `mlviz play`. */
#include "app.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "draw.h"
#include "glyphs.h"
#include "keys.h"
#include "options.h"
#include "termguard.h"
#include "theme.h"
#include "ui.h"

/* Frame timing: about 30 frames per second. */
#define FRAME_S (1.0 / 30.0)
/* Wall time the step loop may use per frame before the sim is declared
 * lagging (it then runs slower than asked rather than freezing the UI). */
#define SIM_BUDGET_S 0.012
/* Never advance more than this much wall time at once (after a stall). */
#define MAX_FRAME_GAP_S 0.25
/* How long a status message stays. */
#define STATUS_S 6.0
/* Tour: seconds per stop when nobody presses a key. */
#define TOUR_STOP_S 14.0
/* Single step (`.`): give up after this many steps' worth of time. */
#define STEP_TIMEOUT_STEPS 4.0
/* `mlviz play`: wall seconds a script's sim:run(d) should take at most. */
#define PLAY_RUN_WALL_S 10.0
/* Target wall seconds per training step for the starting speed. */
#define WALL_S_PER_STEP 1.5
enum { ESC_DELAY_MS = 25, KEY_ESC_CODE = 27, MAX_KEYS_PER_FRAME = 64 };

/* Simulation speeds offered by +/-: simulated seconds per wall second. */
/* Simulated seconds per wall second. The top ones (an hour, six hours, a
 * day per second) let a played story cover a month-long run in seconds. */
static const double speeds[] = {0.1, 0.25, 0.5, 1,    2,    5,     10,    20,
                                50,  100,  200, 500, 1000, 3600, 21600, 86400};
enum { N_SPEEDS = sizeof speeds / sizeof speeds[0] };

struct app_options {
    const char *setup_arg;
    struct cli_setup_args changes; /* --set */
    const char *catalog_dir;
    const char *theme;
    long frames;
    double speed; /* 0: chosen from the step time */
    bool tour, mono, ascii, no_mouse;
};

static bool curses_active;
static void replay_stdout(void);

/* ---- the small shared helpers of ui.h ---- */

const struct model_report *ui_report(const struct ui *u)
{
    return u->sim ? sim_report(u->sim) : &u->report;
}

const struct setup *ui_setup(const struct ui *u)
{
    return u->sim ? sim_setup(u->sim) : &u->setup;
}

int ui_bottleneck(const struct ui *u, char *why, size_t why_len, bool *live)
{
    const struct model_report *r = ui_report(u);
    *live = false;
    if (!r->runnable) {
        snprintf(why, why_len, "%s", r->why_not);
        return -1;
    }
    int steady = r->bottleneck >= 0 && r->bottleneck < STAGE_COUNT ? r->bottleneck : 0;
    const struct sim_live *l = &u->live;
    /* A throttle deeper than the steady state's by more than rounding. */
    enum { PHASE_RESTARTING = 6 };
    bool hot = u->sim && isfinite(l->throttle) && l->throttle < r->power.throttle_factor - 0.01;
    bool down = u->sim && (l->failed_devices > 0 || l->phase == PHASE_RESTARTING);
    if (down) {
        *live = true;
        snprintf(why, why_len, "now: %d device%s down, restarting (steady: %s)",
                 l->failed_devices, l->failed_devices == 1 ? "" : "s",
                 stage_table[steady].title);
        return STAGE_INFRASTRUCTURE;
    }
    if (hot) {
        *live = true;
        snprintf(why, why_len, "now: clocks %.0f%%, rack %.0f C (steady: %s)",
                 100 * l->throttle, l->rack_temp_c, stage_table[steady].title);
        return STAGE_INFRASTRUCTURE;
    }
    snprintf(why, why_len, "%s", r->bottleneck_reason);
    return steady;
}

double ui_live_util(const struct ui *u, double steady)
{
    const struct model_report *r = ui_report(u);
    double keep = r->power.throttle_factor;
    if (!u->sim || !(keep > 0) || !isfinite(u->live.throttle))
        return steady;
    double v = steady * u->live.throttle / keep;
    return isfinite(v) && v > 0 ? v : 0;
}

double ui_live_it_kw(const struct ui *u)
{
    const struct model_report *r = ui_report(u);
    size_t len = u->sim ? sim_series_len(u->sim) : 0;
    if (len == 0)
        return r->power.it_kw;
    double v = sim_series_at(u->sim, SERIES_IT_KW, len - 1);
    return isfinite(v) && v >= 0 ? v : r->power.it_kw;
}

size_t ui_series(struct ui *u, enum sim_series_id id, size_t n)
{
    if (!u->sim)
        return 0;
    if (n > UI_SERIES_MAX)
        n = UI_SERIES_MAX;
    return sim_series_tail(u->sim, id, u->series, n);
}

size_t ui_throughput(struct ui *u, size_t n)
{
    enum { WINDOW_MAX = 64 };
    static double tot[UI_SERIES_MAX + WINDOW_MAX], tim[UI_SERIES_MAX + WINDOW_MAX];
    if (!u->sim)
        return 0;
    if (n > UI_SERIES_MAX)
        n = UI_SERIES_MAX;
    size_t len = sim_series_len(u->sim);
    if (len < 2)
        return 0;
    double step = ui_report(u)->step_time_s;
    double dt = sim_series_at(u->sim, SERIES_TIME_S, len - 1) -
                sim_series_at(u->sim, SERIES_TIME_S, len - 2);
    size_t w = dt > 0 && isfinite(step) ? (size_t)ceil(step / dt) : 1;
    if (w < 1)
        w = 1;
    if (w > WINDOW_MAX)
        w = WINDOW_MAX;
    size_t got = sim_series_tail(u->sim, SERIES_TOKENS_TOTAL, tot, n + w);
    sim_series_tail(u->sim, SERIES_TIME_S, tim, n + w);
    size_t out = 0;
    for (size_t i = 1; i < got; i++) {
        size_t j = i >= w ? i - w : 0;
        double span = tim[i] - tim[j];
        u->series[out++] = span > 0 ? (tot[i] - tot[j]) / span : 0;
    }
    /* Keep the newest n. */
    if (out > n) {
        memmove(u->series, u->series + (out - n), n * sizeof u->series[0]);
        out = n;
    }
    return out;
}

void ui_set_status(struct ui *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->status, sizeof u->status, fmt, ap);
    va_end(ap);
    u->status_until_s = u->wall_s + STATUS_S;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- terminal ---- */

/* Leaves curses; also the atexit handler, so every way out of the process
 * (exit() included) gives the terminal back and replays captured output. */
static void restore_terminal(void)
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

static void capture_stdout(void)
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
static void restart_capture(void)
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
 * others): a light background is colour 7 or 15 (white) or 9-14 light. */
static bool light_background(void)
{
    const char *v = getenv("COLORFGBG");
    if (!v || !*v)
        return false;
    const char *bg = strrchr(v, ';');
    bg = bg ? bg + 1 : v;
    char *end;
    long n = strtol(bg, &end, 10);
    if (end == bg || *end != '\0')
        return false;
    return n == 7 || (n >= 9 && n <= 15);
}

static bool start_terminal(struct ui *u, const struct app_options *o)
{
    /* ncurses reads ESCDELAY before initscr: a short delay keeps Esc snappy. */
    set_escdelay(ESC_DELAY_MS);
    FILE *out = tty_out ? tty_out : stdout;
    /* newterm, not initscr: initscr ends the process when it fails. */
    if (!newterm(NULL, out, stdin))
        return false;
    curses_active = true;
    termguard_set_active(fileno(out));
    static bool registered;
    if (!registered)
        registered = atexit(restore_terminal) == 0;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    /* Home and End as screen, tmux and rxvt send them, when the terminfo
     * entry in use does not know those forms (a stray '1' would open a stage). */
    static const struct { const char *seq; int key; } extra_keys[] = {
        {"\033[1~", KEY_HOME}, {"\033[4~", KEY_END}, {"\033[7~", KEY_HOME},
        {"\033[8~", KEY_END},  {"\033[H", KEY_HOME}, {"\033[F", KEY_END}};
    for (size_t i = 0; i < sizeof extra_keys / sizeof extra_keys[0]; i++)
        if (key_defined(extra_keys[i].seq) == 0)
            define_key(extra_keys[i].seq, extra_keys[i].key);
    curs_set(0);
    bool no_color = o->mono || (getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
    enum theme_id wanted = THEME_DEFAULT;
    if (o->theme)
        theme_parse(o->theme, &wanted);
    else if (light_background())
        wanted = THEME_LIGHT;
    /* Colour is never switched on under NO_COLOR / --mono: not even the
     * white-on-black of the default pair reaches the terminal. COLORS is
     * only known after start_color. */
    int colors = 0;
    if (!no_color && has_colors()) {
        start_color();
        use_default_colors();
        colors = COLORS;
    }
    u->colors = colors;
    theme_apply(theme_choose(wanted, colors, no_color));
    u->mouse = !o->no_mouse;
    if (u->mouse) {
        mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
        mouseinterval(0);
    }
    return true;
}

/* ---- options ---- */

static int usage_error(unsigned mode, const char *fmt, const char *arg)
{
    fputs("mlviz: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(mode == OPT_PLAY ? "\nusage: mlviz play SCRIPT " : "\nusage: mlviz ", stderr);
    options_synopsis(stderr, mode);
    fputs("\n", stderr);
    return EXIT_USAGE;
}

/* mode: OPT_VIEW for `mlviz`, OPT_PLAY for the options `mlviz play` passed on. */
static int parse_options(int argc, char **argv, unsigned mode, struct app_options *o)
{
    memset(o, 0, sizeof *o);
    o->setup_arg = "default";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        const struct options_entry *opt = options_find(a, &v);
        if (!opt)
            return usage_error(mode, "unknown option '%s' (see 'mlviz --help')", a);
        if (!(opt->applies & mode))
            return usage_error(mode, "%s does not apply to mlviz play", opt->name);
        if (opt->arg && !v) {
            if (i + 1 >= argc)
                return usage_error(mode, "%s needs a value", a);
            v = argv[++i];
        } else if (!opt->arg && v) {
            return usage_error(mode, "%s takes no value", opt->name);
        }
        char *end;
        switch (opt->id) {
        case OPT_SETUP:
            if (strcmp(v, "-") == 0)
                return usage_error(mode, "%s: the view reads keys from standard input; give the "
                                         "setup as a file (mlviz check - reads it from stdin)",
                                   "-c -");
            o->setup_arg = v;
            break;
        case OPT_SET:
            if (!strchr(v, '=') || o->changes.n_sets >= CLI_MAX_SETS)
                return usage_error(mode, "--set %s: write PATH=VALUE (given at most 256 times)", v);
            o->changes.sets[o->changes.n_sets++] = v;
            break;
        case OPT_CATALOG: o->catalog_dir = v; break;
        case OPT_THEME: {
            enum theme_id t;
            if (!theme_parse(v, &t))
                return usage_error(mode, "unknown theme '%s' (default, light, basic, mono, contrast)", v);
            o->theme = v;
            break;
        }
        case OPT_FRAMES:
            errno = 0;
            o->frames = strtol(v, &end, 10);
            if (errno || end == v || *end || o->frames <= 0)
                return usage_error(mode, "--frames wants a positive whole number, not '%s'", v);
            break;
        case OPT_SPEED:
            o->speed = strtod(v, &end);
            if (end == v || *end || !(o->speed > 0) || o->speed > speeds[N_SPEEDS - 1])
                return usage_error(mode, "--speed wants a number above 0 and at most 86400, not '%s'",
                                   v);
            break;
        case OPT_TOUR: o->tour = true; break;
        case OPT_MONO: o->mono = true; break;
        case OPT_ASCII: o->ascii = true; break;
        case OPT_NO_MOUSE: o->no_mouse = true; break;
        }
    }
    return EXIT_OK;
}

static bool have_tty(void)
{
    return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

static int no_tty(void)
{
    cli_error("the interactive view needs a terminal, but stdin or stdout is not one.\n"
              "For scripts and pipes use the headless commands: 'mlviz eval default',\n"
              "'mlviz sim default --duration 1h', 'mlviz run SCRIPT.lua' (see 'mlviz --help').");
    return EXIT_USAGE;
}

/* ---- simulation ---- */

static void pick_speed(struct ui *u)
{
    double step = ui_report(u)->step_time_s;
    double want = isfinite(step) && step > 0 ? step / WALL_S_PER_STEP : 1;
    int best = 0;
    for (int i = 0; i < N_SPEEDS; i++)
        if (fabs(log(speeds[i] / want)) < fabs(log(speeds[best] / want)))
            best = i;
    u->speed_index = best;
    u->speed = speeds[best];
}

static void refresh_live(struct ui *u)
{
    if (u->sim) {
        sim_live(u->sim, &u->live);
        sim_counters(u->sim, &u->counters);
    } else {
        memset(&u->live, 0, sizeof u->live);
        memset(&u->counters, 0, sizeof u->counters);
        /* A setup that cannot run keeps nothing busy. */
        for (int i = 0; i < STAGE_COUNT; i++)
            u->live.stage_util[i] = u->report.runnable ? u->report.utilization[i] : 0;
    }
}

static void free_sim(struct ui *u)
{
    if (u->sim && u->sim_owned)
        sim_free(u->sim);
    u->sim = NULL;
}

static bool new_sim(struct ui *u)
{
    struct sim_options so;
    sim_default_options(&so);
    so.seed = 1;
    free_sim(u);
    u->sim_error[0] = '\0';
    if (!u->report.runnable) {
        snprintf(u->sim_error, sizeof u->sim_error, "%s", u->report.why_not);
        return false;
    }
    u->sim = sim_new(&u->setup, u->cat, &so, u->sim_error, sizeof u->sim_error);
    u->sim_owned = u->sim != NULL;
    return u->sim != NULL;
}

bool ui_apply_setup(struct ui *u, const struct setup *s, char *err, size_t err_len)
{
    struct resolved r;
    if (!setup_resolve(s, u->cat, &r, err, err_len))
        return false;
    u->setup = *s;
    u->res = r;
    model_eval(&u->setup, &u->res, &u->report);
    if (u->sim && u->report.runnable) {
        if (!sim_replace_setup(u->sim, &u->setup, err, err_len)) {
            /* The sim refused: start a fresh one on the new setup. */
            if (u->sim_owned)
                new_sim(u);
        }
    } else if (u->sim_owned || !u->sim) {
        new_sim(u);
    }
    refresh_live(u);
    return true;
}

/* Advance the step loop by wall_dt of wall time at the current speed,
 * within a wall-clock budget so the UI stays responsive. */
static void advance(struct ui *u, double wall_dt, double *budget_left)
{
    if (!u->sim || u->paused || wall_dt <= 0)
        return;
    double sim_dt = wall_dt * u->speed;
    enum { SLICES = 4 };
    double t0 = now_s();
    u->lagging = false;
    for (int i = 0; i < SLICES; i++) {
        char err[UI_MSG_LEN];
        if (!sim_run(u->sim, sim_dt / SLICES, err, sizeof err)) {
            ui_set_status(u, "simulation stopped: %s", err);
            u->paused = true;
            break;
        }
        if (now_s() - t0 > *budget_left) {
            u->lagging = i + 1 < SLICES;
            break;
        }
    }
    *budget_left -= now_s() - t0;
}

/* `.` while paused: run until one more step completes. */
static void single_step(struct ui *u)
{
    if (!u->sim)
        return;
    struct sim_counters c;
    sim_counters(u->sim, &c);
    uint64_t start = c.steps;
    double step = ui_report(u)->step_time_s;
    if (!(step > 0) || !isfinite(step))
        step = 1;
    double limit = c.time_s + step * STEP_TIMEOUT_STEPS;
    double slice = step / 64;
    char err[UI_MSG_LEN];
    while (c.steps == start && c.time_s < limit) {
        if (!sim_run(u->sim, slice, err, sizeof err)) {
            ui_set_status(u, "simulation stopped: %s", err);
            break;
        }
        sim_counters(u->sim, &c);
    }
}

/* Batches move along the arrows at the sim's flow rates. Each lane shows
 * a few batches; one batch crossing takes 1/rate simulated seconds, but the
 * on-screen speed is limited so fast flows read as a steady stream rather
 * than flicker. */
#define LANE_BATCHES 3.0
#define MAX_PHASE_PER_S 1.2
static void animate(struct ui *u, double wall_dt)
{
    if (u->paused || !u->sim)
        return;
    for (int i = 0; i < ARROW_COUNT; i++) {
        double rate = u->live.flow_rate[i];
        if (!isfinite(rate) || rate < 0)
            rate = 0;
        double dphase = rate * u->speed * wall_dt / LANE_BATCHES;
        if (dphase > MAX_PHASE_PER_S * wall_dt)
            dphase = MAX_PHASE_PER_S * wall_dt;
        u->anim_phase[i] = fmod(u->anim_phase[i] + dphase, 1.0);
    }
}

/* ---- tour ---- */

/* Back to the setup the tour started from. */
static void tour_restore(struct ui *u)
{
    if (!u->tour_swapped)
        return;
    char err[UI_MSG_LEN];
    u->tour_swapped = false;
    if (!ui_apply_setup(u, &u->tour_saved, err, sizeof err))
        ui_set_status(u, "cannot restore the setup: %s", err);
    else if (!u->sim && u->report.runnable)
        new_sim(u);
    memset(u->anim_phase, 0, sizeof u->anim_phase);
}

static void tour_end(struct ui *u)
{
    u->tour = false;
    tour_restore(u);
}

/* A stage's stop loads a setup whose bottleneck is that stage
 * (assets/tour/STAGE.yaml), so the picture shows what the caption says. */
static void tour_load(struct ui *u, int stage)
{
    char path[1200], err[UI_MSG_LEN];
    snprintf(path, sizeof path, "%s/assets/tour/%s.yaml", mlviz_data_dir(), stage_table[stage].name);
    struct setup s;
    if (!setup_load_file(&s, path, u->cat, err, sizeof err)) {
        ui_set_status(u, "tour: %s", err);
        return;
    }
    if (!u->tour_swapped)
        u->tour_saved = *ui_setup(u);
    if (u->sim_owned)
        free_sim(u);
    u->sim = NULL;
    if (!ui_apply_setup(u, &s, err, sizeof err)) {
        ui_set_status(u, "tour: %s", err);
        tour_restore(u);
        return;
    }
    u->tour_swapped = true;
    memset(u->anim_phase, 0, sizeof u->anim_phase);
    if (!u->speed_chosen)
        pick_speed(u);
}

static void tour_show(struct ui *u)
{
    int s = u->tour_stop;
    if (s >= 1 && s <= STAGE_COUNT)
        tour_load(u, s - 1);
    else
        tour_restore(u);
    if (s >= 1 && s <= STAGE_COUNT) {
        u->view = VIEW_STAGE;
        u->stage = s - 1;
        u->selected_box = s - 1;
    } else {
        u->view = VIEW_OVERVIEW;
    }
    u->tour_next_s = u->wall_s + TOUR_STOP_S;
}

static void tour_start(struct ui *u)
{
    u->tour = true;
    u->tour_stop = 0;
    tour_show(u);
}

static void tour_move(struct ui *u, int dir)
{
    int s = u->tour_stop + dir;
    if (s < 0)
        s = 0;
    if (s >= TOUR_STOPS) {
        /* After the outro the tour starts over: a kiosk can leave it running. */
        s = 0;
    }
    u->tour_stop = s;
    tour_show(u);
}

/* ---- input ---- */

static unsigned key_context(const struct ui *u)
{
    if (u->help)
        return KEYCTX_HELP;
    if (u->params_open)
        return KEYCTX_PARAMS;
    if (u->tour || u->playing)
        return KEYCTX_TOUR; /* n / Enter continue a played story too */
    if (u->view == VIEW_PLAN)
        return KEYCTX_PLAN;
    return u->view == VIEW_STAGE ? KEYCTX_STAGE : KEYCTX_OVERVIEW;
}

/* Moving the box selection with arrows follows the picture: Data, CPUs,
 * Accelerators on top; Infrastructure, Interconnect below. */
static int box_neighbour(int box, int dir)
{
    /* grid positions: row 0: 0 1 2, row 1: 4 _ 3 */
    static const int right_of[STAGE_COUNT] = {1, 2, 2, 3, 3};
    static const int left_of[STAGE_COUNT] = {0, 0, 1, 4, 4};
    static const int up_of[STAGE_COUNT] = {0, 1, 2, 2, 0};
    static const int down_of[STAGE_COUNT] = {4, 4, 3, 3, 4};
    switch (dir) {
    case DIR_LEFT: return left_of[box];
    case DIR_RIGHT: return right_of[box];
    case DIR_UP: return up_of[box];
    default: return down_of[box];
    }
}

static void knob_select(struct ui *u, int delta)
{
    int n = u->knobs[u->stage].count;
    if (n <= 0)
        return;
    int *sel = &u->knob_sel[u->stage];
    *sel = ((*sel + delta) % n + n) % n;
}

static void change_speed(struct ui *u, int dir)
{
    int i = u->speed_index + dir;
    if (i < 0)
        i = 0;
    if (i >= N_SPEEDS)
        i = N_SPEEDS - 1;
    u->speed_index = i;
    u->speed = speeds[i];
}

static void reset(struct ui *u)
{
    char err[UI_MSG_LEN];
    if (u->playing) {
        u->play_restart = true; /* the scenario from the start */
        u->back_to_pause = 0;
        return;
    }
    if (!ui_apply_setup(u, &u->setup0, err, sizeof err))
        ui_set_status(u, "reset failed: %s", err);
    u->undo_count = 0;
    new_sim(u);
    refresh_live(u);
    memset(u->anim_phase, 0, sizeof u->anim_phase);
    ui_set_status(u, "restarted from the setup as loaded");
}

static void cycle_theme(const struct ui *u)
{
    static const enum theme_id order[] = {THEME_DEFAULT, THEME_LIGHT, THEME_CONTRAST, THEME_MONO};
    enum theme_id cur = theme_current();
    size_t n = sizeof order / sizeof order[0], next = 0;
    for (size_t i = 0; i < n; i++)
        if (order[i] == cur)
            next = (i + 1) % n;
    theme_apply(theme_choose(order[next], u->colors, u->colors == 0));
}

/* Steps a scenario parameter: numbers in (0, 1) by a tenth (shares),
 * other numbers double or halve, durations ("10m") double or halve,
 * booleans flip. Other text is set on the command line. */
static void param_step(struct ui *u, int i, int dir)
{
    char *v = u->param_value[i];
    size_t cap = sizeof u->param_value[i];
    if (strcmp(u->param_type[i], "boolean") == 0) {
        snprintf(v, cap, "%s", strcmp(v, "true") == 0 ? "false" : "true");
        return;
    }
    double x, seconds;
    char *end;
    x = strtod(v, &end);
    if (strcmp(u->param_type[i], "number") == 0 && end != v && *end == '\0') {
        if (x > 0 && x < 1 && x != floor(x)) {
            x += 0.1 * dir;
            x = x < 0.05 ? 0.05 : x > 0.95 ? 0.95 : x;
            snprintf(v, cap, "%.2g", x);
        } else if (x == 0) {
            snprintf(v, cap, "%d", dir > 0 ? 1 : 0);
        } else {
            x = dir > 0 ? x * 2 : x / 2;
            snprintf(v, cap, "%.6g", x);
        }
        return;
    }
    if (fields_parse_duration(v, &seconds) && seconds > 0) {
        seconds = dir > 0 ? seconds * 2 : seconds / 2;
        /* Written back in the largest unit that keeps it readable: 20m, 2h, 3d. */
        static const struct {
            double s;
            char unit;
        } units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
        size_t k = 0;
        while (k + 1 < sizeof units / sizeof units[0] && seconds < units[k].s)
            k++;
        snprintf(v, cap, "%.4g%c", seconds / units[k].s, units[k].unit);
        return;
    }
    ui_set_status(u, "%s is text: set it with --%s=... on the command line", u->param_name[i],
                  u->param_name[i]);
}

/* Returns false to quit. */
static bool dispatch(struct ui *u, enum key_action act, int arg)
{
    switch (act) {
    case ACT_NONE: break;
    case ACT_QUIT: return false;
    case ACT_HELP:
        u->help = !u->help;
        u->help_scroll = 0;
        break;
    case ACT_HELP_SCROLL:
        u->help_scroll += arg;
        if (u->help_scroll < 0)
            u->help_scroll = 0;
        break;
    case ACT_PAUSE:
        if (u->playing && u->play_waiting)
            u->play_waiting = false; /* space also continues a paused story */
        else
            u->paused = !u->paused;
        break;
    case ACT_STEP:
        if (u->paused)
            single_step(u);
        else
            ui_set_status(u, "'.' steps once when paused (space pauses)");
        break;
    case ACT_FASTER:
    case ACT_SLOWER:
        change_speed(u, act == ACT_FASTER ? +1 : -1);
        u->speed_chosen = true;
        break;
    case ACT_RESET: reset(u); break;
    case ACT_TOUR:
        if (u->playing) {
            u->view = VIEW_OVERVIEW; /* no tour while a story plays: Esc goes back */
        } else if (u->tour) {
            tour_end(u);
            u->view = VIEW_OVERVIEW;
        } else {
            tour_start(u);
        }
        break;
    case ACT_THEME: cycle_theme(u); break;
    case ACT_OPEN:
        if (arg >= 0 && arg < STAGE_COUNT) {
            tour_end(u);
            u->view = VIEW_STAGE;
            u->stage = arg;
            u->selected_box = arg;
        }
        break;
    case ACT_SELECT: u->selected_box = box_neighbour(u->selected_box, arg); break;
    case ACT_ENTER:
        u->view = VIEW_STAGE;
        u->stage = u->selected_box;
        break;
    case ACT_BACK:
        if (u->text_full) {
            u->text_full = false;
            break;
        }
        u->view = VIEW_OVERVIEW;
        tour_end(u);
        break;
    case ACT_KNOB_NEXT: knob_select(u, +1); break;
    case ACT_KNOB_PREV: knob_select(u, -1); break;
    case ACT_KNOB_PICK:
        /* Knob indices from the mouse are 1-based (0 means the selected one). */
        if (arg > 0 && arg <= u->knobs[u->stage].count)
            u->knob_sel[u->stage] = arg - 1;
        break;
    case ACT_KNOB_INC:
    case ACT_KNOB_DEC:
        /* Mouse clicks on a knob's arrows carry its index + 1. */
        if (arg > 0 && arg <= u->knobs[u->stage].count)
            u->knob_sel[u->stage] = arg - 1;
        if (u->knobs[u->stage].count > 0)
            knobs_step(u, u->stage, u->knob_sel[u->stage], act == ACT_KNOB_INC ? +1 : -1);
        break;
    case ACT_KNOB_AUTO:
        if (u->knobs[u->stage].count > 0)
            knobs_step(u, u->stage, u->knob_sel[u->stage], 0);
        break;
    case ACT_TOUR_NEXT:
        if (u->playing && u->play_waiting)
            u->play_waiting = false;
        else if (!u->playing)
            tour_move(u, +1);
        break;
    case ACT_TOUR_PREV:
        if (!u->playing) {
            tour_move(u, -1);
        } else {
            /* Back to the pause before the one on screen, by running the
             * script again (same seed and parameters) up to it. */
            u->back_to_pause = u->play_waiting ? u->pauses_reached - 1 : u->pauses_reached;
            if (u->back_to_pause < 0)
                u->back_to_pause = 0;
            u->play_restart = true;
        }
        break;
    case ACT_TEXT_UP:
    case ACT_TEXT_DOWN: {
        int page = u->lay.text.h > 3 ? u->lay.text.h - 3 : 1;
        int lines = arg > 0 ? arg : arg < 0 ? 1 << 20 : page;
        u->text_scroll += act == ACT_TEXT_UP ? -lines : lines;
        if (u->text_scroll < 0)
            u->text_scroll = 0; /* the end depends on the width: clamped when drawn */
        break;
    }
    case ACT_TEXT_FULL: u->text_full = !u->text_full; break;
    case ACT_UNDO: knobs_undo(u); break;
    case ACT_WRITE: knobs_write(u); break;
    case ACT_CAPTION_BACK:
    case ACT_CAPTION_ON: {
        if (!u->playing) /* the tour: its caption is short; PgUp/PgDn scroll the explanation */
            return dispatch(u, act == ACT_CAPTION_BACK ? ACT_TEXT_UP : ACT_TEXT_DOWN, arg);
        int page = u->lay.caption.h > 1 ? u->lay.caption.h - 1 : 1; /* the prompt row stays */
        int lines = arg > 0 ? arg : page;
        u->caption_scroll += act == ACT_CAPTION_BACK ? lines : -lines;
        if (u->caption_scroll < 0)
            u->caption_scroll = 0; /* the upper bound depends on the width: set when drawn */
        break;
    }
    case ACT_PARAMS:
        if (!u->playing)
            ui_set_status(u, "parameters belong to a played scenario (mlviz play)");
        else if (u->n_params == 0 && !u->params_open)
            ui_set_status(u, "this scenario declares no parameters");
        else
            u->params_open = !u->params_open;
        break;
    case ACT_PARAM_SEL:
        if (u->n_params > 0)
            u->param_sel = ((u->param_sel + arg) % u->n_params + u->n_params) % u->n_params;
        break;
    case ACT_PARAM_CHANGE:
        if (u->n_params > 0)
            param_step(u, u->param_sel, arg);
        break;
    case ACT_PARAM_APPLY:
        u->params_apply = true;
        u->params_open = false;
        break;
    case ACT_PLAN: view_plan_open(u); break;
    case ACT_PLAN_ROW:
    case ACT_PLAN_LOAD: view_plan_key(u, act, arg); break;
    case ACT_COUNT: break;
    }
    return true;
}

static bool handle_mouse(struct ui *u)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return true;
    const struct hit_rect *h = hit_find(&u->hits, ev.y, ev.x);
    if (u->help) {
        u->help = false; /* any click closes the help */
        return true;
    }
    if (!h)
        return true;
    if (ev.bstate & BUTTON4_PRESSED)
        return h->wheel_up == ACT_NONE || dispatch(u, h->wheel_up, h->arg);
    if (ev.bstate & BUTTON5_PRESSED)
        return h->wheel_down == ACT_NONE || dispatch(u, h->wheel_down, h->arg);
    if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
        return dispatch(u, h->action, h->arg);
    return true;
}

/* Returns false to quit. */
static bool handle_key(struct ui *u, int ch)
{
    if (ch == KEY_RESIZE)
        return true; /* the next frame lays out again */
    if (ch == KEY_MOUSE)
        return handle_mouse(u);
    int arg = 0;
    enum key_action act = keys_lookup(ch, key_context(u), &arg);
    if (u->help && act == ACT_NONE) {
        u->help = false; /* any other key closes the help */
        return true;
    }
    if (act == ACT_NONE && (u->tour || u->playing)) {
        /* Keys of the underlying view still work during the tour. */
        act = keys_lookup(ch, u->view == VIEW_STAGE ? KEYCTX_STAGE : KEYCTX_OVERVIEW, &arg);
    }
    return dispatch(u, act, arg);
}

/* ---- drawing ---- */

static void draw_too_small(const struct ui *u)
{
    char msg[160];
    erase();
    snprintf(msg, sizeof msg, "mlviz needs a terminal of at least %dx%d; this one is %dx%d.",
             u->lay.need_cols, u->lay.need_rows, COLS, LINES);
    int y = LINES / 2 - 1;
    draw_wrap(&(struct rect){y < 0 ? 0 : y, 1, 3, COLS - 2}, ROLE_WARN, msg, 0);
    draw_text(y + 3, 1, COLS - 2, ROLE_DIM, "Enlarge the window or use a smaller font. q quits.");
}

static void draw_help(struct ui *u)
{
    static char text[8192];
    size_t used = keys_help_text(text, sizeof text);
    /* What the symbols and abbreviations on screen mean, in the glyphs in use. */
    const struct glyphs *g = glyphs_active();
    snprintf(text + used, sizeof text - used,
             "Symbols:\n"
             "\t%s BOTTLENECK: the stage that sets the pace (heavy border)\n"
             "\t\"now:\" beside it: the live run differs from the steady state\n"
             "\t%s %s %s: a device busy, failed, hot (throttled)\n"
             "\t%s on %s: a batch moving along an arrow, at the flow's rate\n"
             "\tq 1/2: a queue gauge, batches waiting / room in the queue\n"
             "\t%s %s %s: a fit or check that passes, fails, warns\n"
             "\tMFU: useful model FLOPs (6 x params x tokens) per second / peak\n"
             "\tHFU: all executed FLOPs (recomputation too) per second / peak\n"
             "\tPUE: facility power over IT power\n"
             "\tPgDn 2/5: where the explanation is (PgUp/PgDn/Home/End; e: full)\n",
             g->bottleneck, g->device, g->device_failed, g->device_hot, g->batch, g->track, g->pass,
             g->fail, g->warn);
    struct rect r = u->lay.help;
    draw_clear(&r);
    struct rect in = {r.y + 1, r.x + 2, r.h - 2, r.w - 4};
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    /* The mouse line wraps: count it twice. */
    lines++;
    /* Two columns when the list does not fit one and the box is wide. */
    enum { TWO_COL_MIN_W = 2 * 56 };
    int cols_n = lines > in.h && in.w >= TWO_COL_MIN_W ? 2 : 1;
    int col_w = in.w / cols_n;
    int max_scroll = lines - in.h * cols_n;
    if (max_scroll < 0)
        max_scroll = 0;
    if (u->help_scroll > max_scroll)
        u->help_scroll = max_scroll;
    draw_box(&r, ROLE_BORDER_SEL, true,
             max_scroll ? "help - keys (Up/Down scroll, any other key closes)"
                        : "help - keys (any key closes)",
             ROLE_HEADING);
    int row = -u->help_scroll, col = 0;
    const char *p = text;
    while (*p && col < cols_n) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        int x = in.x + col * col_w;
        if (line[0] == 'M') {
            if (row >= 0) {
                struct rect wr = {in.y + row, x, in.h - row, col_w - 1};
                row += draw_wrap(&wr, ROLE_DIM, line, 0);
            } else {
                row += 2;
            }
        } else {
            if (row >= 0 && row < in.h) {
                if (line[0] == '\t') {
                    /* A symbol's meaning: free text, indented like the keys. */
                    draw_text(in.y + row, x + 2, col_w - 3, ROLE_TEXT, line + 1);
                } else if (line[0] != ' ') {
                    draw_text(in.y + row, x, col_w - 1, ROLE_HEADING, line);
                } else {
                    /* "  label  help": the key part in the key role */
                    enum { KEY_COL = 2 + KEYS_LABEL_W + 1 };
                    char key[64];
                    snprintf(key, sizeof key, "%.*s", KEY_COL, line);
                    draw_text(in.y + row, x, KEY_COL, ROLE_KEY, key);
                    draw_text(in.y + row, x + KEY_COL, col_w - KEY_COL - 1, ROLE_TEXT,
                              n > KEY_COL ? line + KEY_COL : "");
                }
            }
            row++;
        }
        if (row >= in.h) {
            row = 0;
            col++;
        }
        p = nl ? nl + 1 : p + n;
    }
}

/* The played scenario's parameters as knobs, over the view. */
static void draw_params(struct ui *u)
{
    struct rect r = u->lay.help;
    draw_clear(&r);
    draw_box(&r, ROLE_BORDER_SEL, true,
             "scenario parameters - Up/Down select, Left/Right change, Enter restarts, Esc closes",
             ROLE_HEADING);
    struct rect in = {r.y + 1, r.x + 2, r.h - 2, r.w - 4};
    enum { NAME_W = 18, VALUE_W = 14 };
    int row = 0;
    for (int i = 0; i < u->n_params && row + 1 < in.h; i++) {
        bool sel = i == u->param_sel;
        int y = in.y + row;
        draw_text(y, in.x, 2, ROLE_KEY, sel ? glyphs_active()->selector : " ");
        draw_text(y, in.x + 2, NAME_W, sel ? ROLE_KNOB_SEL : ROLE_TEXT, u->param_name[i]);
        char val[80];
        snprintf(val, sizeof val, "%s %s %s", glyphs_active()->dec, u->param_value[i],
                 glyphs_active()->inc);
        draw_text(y, in.x + 2 + NAME_W, VALUE_W + 4, ROLE_VALUE, val);
        struct rect help = {y, in.x + 2 + NAME_W + VALUE_W + 5, 2,
                            in.w - (2 + NAME_W + VALUE_W + 5)};
        row += help.w > 10 ? draw_wrap(&help, ROLE_DIM, u->param_help[i], 0) : 1;
    }
}

static void draw_frame(struct ui *u)
{
    bool caption = u->tour || u->playing;
    layout_compute(COLS, LINES, u->view == VIEW_STAGE ? LAYOUT_STAGE : LAYOUT_OVERVIEW, caption,
                   &u->lay);
    hit_clear(&u->hits);
    if (u->lay.too_small) {
        draw_too_small(u);
        refresh();
        return;
    }
    erase();
    if (u->view == VIEW_STAGE)
        view_stage_draw(u);
    else if (u->view == VIEW_PLAN)
        view_plan_draw(u);
    else
        view_overview_draw(u);
    if (caption)
        view_draw_caption(u);
    if (u->params_open)
        draw_params(u);
    if (u->help)
        draw_help(u);
    refresh();
}

/* ---- setup loading ---- */

static struct ui *ui_new(void)
{
    struct ui *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->texts = calloc(1, sizeof *u->texts);
    if (!u->texts) {
        free(u);
        return NULL;
    }
    char path[1200], err[UI_MSG_LEN];
    snprintf(path, sizeof path, "%s/assets/stages.yaml", mlviz_data_dir());
    if (!stagetext_load(path, u->texts, err, sizeof err)) {
        stagetext_fallback(u->texts);
        ui_set_status(u, "%s", err);
        fprintf(stderr, "%s\n", err);
    }
    return u;
}

static void ui_free(struct ui *u)
{
    if (!u)
        return;
    view_plan_free(u); /* joins the search thread before the catalog goes */
    free_sim(u);
    if (u->cat)
        catalog_free(u->cat);
    free(u->texts);
    free(u);
}

static void init_locale_and_glyphs(const struct app_options *o)
{
    setlocale(LC_ALL, "");
    glyphs_use(glyphs_want_utf8(nl_langinfo(CODESET), o->ascii));
}

/* ---- the loop ---- */

/* A played script's step: called each frame; returns false when the
 * script failed (message in err). */
struct play_state;
static bool play_tick(struct ui *u, struct play_state *p, double wall_dt, char *err,
                      size_t err_len);

/* Handles input until the next frame is due (at `due`, a now_s time).
 * Returns false to quit, with *status set when the terminal went away. A
 * key shows its effect at once: the frame is drawn after each. */
static bool wait_input(struct ui *u, double due, int *status)
{
    bool ready = false; /* poll saw input that getch has not yet read */
    for (int k = 0; k < MAX_KEYS_PER_FRAME; k++) {
        timeout(0);
        int ch = getch();
        if (termguard_quit_signal())
            return false;
        if (ch != ERR) {
            termguard_read_failed(false);
            if (handle_key(u, ch))
                return true;
            if (u->playing)
                termguard_quit_deadline(); /* a running script stops too */
            return false;
        }
        /* Input was reported but reading it failed: end of file or EIO. */
        if (ready && termguard_read_failed(true)) {
            *status = EXIT_RUNTIME;
            return false;
        }
        double left = due - now_s();
        if (left <= 0)
            return true;
        enum termguard_wait w = termguard_wait_input((int)(left * 1000) + 1);
        if (w == TERMGUARD_GONE) {
            *status = EXIT_RUNTIME;
            return false;
        }
        if (w == TERMGUARD_TIMEOUT)
            return true;
        ready = w == TERMGUARD_READY;
    }
    return true;
}

static int run_loop(struct ui *u, const struct app_options *o, struct play_state *play)
{
    double last = now_s(), start = last;
    long frames = 0;
    int status = EXIT_OK;
    for (;;) {
        double frame_start = now_s();
        double wall_dt = frame_start - last;
        if (wall_dt > MAX_FRAME_GAP_S)
            wall_dt = MAX_FRAME_GAP_S;
        last = frame_start;
        u->wall_s = frame_start - start;
        double budget = SIM_BUDGET_S;
        if (play) {
            char err[1024];
            if (!play_tick(u, play, wall_dt, err, sizeof err)) {
                restore_terminal();
                if (!termguard_quit_signal()) /* else the script heard the quit */
                    fprintf(stderr, "%s\n", err);
                return EXIT_RUNTIME;
            }
        } else {
            advance(u, wall_dt, &budget);
        }
        refresh_live(u);
        animate(u, wall_dt);
        if (u->tour && !u->paused && u->wall_s >= u->tour_next_s)
            tour_move(u, +1);
        if (u->status[0] && u->wall_s > u->status_until_s)
            u->status[0] = '\0';
        draw_frame(u);
        frames++;
        if (o->frames && frames >= o->frames)
            break;
        if (!wait_input(u, frame_start + FRAME_S, &status))
            break;
    }
    return status;
}

static int open_ui(struct ui *u, const struct app_options *o)
{
    u->cat = cli_load_catalog(o->catalog_dir);
    if (!u->cat)
        return EXIT_USAGE;
    if (!cli_load_setup_args(o->setup_arg, &o->changes, u->cat, &u->setup, &u->res))
        return EXIT_USAGE;
    u->setup0 = u->setup;
    model_eval(&u->setup, &u->res, &u->report);
    new_sim(u);
    refresh_live(u);
    knobs_build(u);
    pick_speed(u);
    if (o->speed > 0) {
        u->speed = o->speed;
        u->speed_chosen = true;
        /* +/- continue from the nearest offered speed. */
        for (int i = 0; i < N_SPEEDS; i++)
            if (fabs(log(speeds[i] / o->speed)) < fabs(log(speeds[u->speed_index] / o->speed)))
                u->speed_index = i;
    }
    u->selected_box = u->report.bottleneck >= 0 && u->report.bottleneck < STAGE_COUNT
                          ? u->report.bottleneck
                          : STAGE_ACCELERATORS;
    return EXIT_OK;
}

/* What both entry points do before the terminal starts: options, the TTY
 * check, glyphs, the ui with its catalog, setup and simulation. */
static int prepare_ui(int argc, char **argv, unsigned mode, struct app_options *o,
                      struct ui **out)
{
    int rc = parse_options(argc, argv, mode, o);
    if (rc != EXIT_OK)
        return rc;
    if (!have_tty())
        return no_tty();
    char err[UI_MSG_LEN];
    if (!termguard_probe(STDOUT_FILENO, err, sizeof err)) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    init_locale_and_glyphs(o);
    struct ui *u = ui_new();
    if (!u) {
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    rc = open_ui(u, o);
    if (rc != EXIT_OK) {
        ui_free(u);
        return rc;
    }
    *out = u;
    return EXIT_OK;
}

int tui_main(int argc, char **argv)
{
    struct app_options o;
    struct ui *u = NULL;
    int rc = prepare_ui(argc, argv, OPT_VIEW, &o, &u);
    if (rc != EXIT_OK)
        return rc;
    termguard_install_signals();
    if (!start_terminal(u, &o)) {
        ui_free(u);
        cli_error("cannot initialise the terminal (is TERM set?)");
        return EXIT_RUNTIME;
    }
    if (o.tour)
        tour_start(u);
    rc = run_loop(u, &o, NULL);
    restore_terminal();
    termguard_exit_if_signalled();
    ui_free(u);
    return rc;
}

/* ---- frames for benchmarks ---- */

struct ui *tui_frame_open(const char *setup_arg, bool utf8)
{
    struct app_options o;
    memset(&o, 0, sizeof o);
    o.setup_arg = setup_arg;
    glyphs_use(utf8);
    struct ui *u = ui_new();
    if (!u)
        return NULL;
    if (open_ui(u, &o) != EXIT_OK) {
        ui_free(u);
        return NULL;
    }
    if (has_colors()) {
        start_color();
        use_default_colors();
        u->colors = COLORS;
    }
    theme_apply(theme_choose(THEME_DEFAULT, u->colors, false));
    return u;
}

void tui_frame_advance(struct ui *u, double wall_dt)
{
    double budget = SIM_BUDGET_S;
    u->wall_s += wall_dt;
    advance(u, wall_dt, &budget);
    refresh_live(u);
    animate(u, wall_dt);
}

void tui_frame_draw(struct ui *u)
{
    draw_frame(u);
}

void tui_frame_close(struct ui *u)
{
    ui_free(u);
}

/* ---- mlviz play ---- */

/* Narration arrives through hooks with a static context: the luahost is
 * created (by cmd_lua.c) before tui_play runs, so the hooks point here and
 * find the current ui, if any. */
static struct ui *play_ui;

static void transcript_add(struct ui *u, const char *text, size_t len, bool printed)
{
    if (u->transcript_count == UI_TRANSCRIPT_MAX) {
        memmove(&u->transcript[0], &u->transcript[1],
                sizeof u->transcript[0] * (UI_TRANSCRIPT_MAX - 1));
        u->transcript_count--;
    }
    struct ui_said *e = &u->transcript[u->transcript_count++];
    if (len >= sizeof e->text)
        len = sizeof e->text - 1;
    memcpy(e->text, text, len);
    e->text[len] = '\0';
    e->printed = printed;
    if (u->caption_scroll > 0)
        u->caption_scroll++; /* a reader scrolled back keeps their place (about) */
}

static void transcript_clear(struct ui *u, const char *first)
{
    u->transcript_count = 0;
    u->caption_scroll = 0;
    transcript_add(u, first, strlen(first), false);
}

static void hook_print(void *ctx, const char *text)
{
    (void)ctx;
    /* On stdout too: while the view is up that is the capture file, shown
     * after quitting (docs/TUI.md). */
    fputs(text, stdout);
    fputc('\n', stdout);
    if (play_ui) {
        /* print() may carry several lines (tables): keep each. */
        const char *p = text;
        do {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            transcript_add(play_ui, p, n, true);
            p += n + (nl != NULL);
        } while (*p);
    }
}

static void hook_say(void *ctx, const char *text)
{
    (void)ctx;
    if (play_ui) {
        snprintf(play_ui->caption, sizeof play_ui->caption, "%s", text);
        transcript_add(play_ui, text, strlen(text), false);
    } else {
        printf("%s\n", text);
    }
}

static void hook_focus(void *ctx, int stage)
{
    (void)ctx;
    if (!play_ui)
        return;
    if (stage >= 0 && stage < STAGE_COUNT) {
        play_ui->view = VIEW_STAGE;
        play_ui->stage = stage;
    } else {
        play_ui->view = VIEW_OVERVIEW;
    }
}

/* show(setup): the view animates its own sim of that setup; a script's sim
 * on screen is the script's to keep. */
static void hook_show(void *ctx, const struct setup *s)
{
    (void)ctx;
    struct ui *u = play_ui;
    if (!u)
        return;
    if (u->sim_owned)
        free_sim(u);
    u->sim = NULL;
    char err[UI_MSG_LEN];
    if (!ui_apply_setup(u, s, err, sizeof err)) {
        ui_set_status(u, "show: %s", err);
        return;
    }
    u->setup0 = u->setup;
    u->undo_count = 0;
    if (!u->speed_chosen)
        pick_speed(u);
}

static void hook_mark(void *ctx, const char *label)
{
    (void)ctx;
    if (play_ui)
        ui_set_status(play_ui, "%s %s", glyphs_active()->bullet, label);
}

void tui_play_hooks(struct luahost_hooks *hooks)
{
    hooks->ctx = NULL;
    hooks->print = hook_print;
    hooks->say = hook_say;
    hooks->focus = hook_focus;
    hooks->mark = hook_mark;
    hooks->show = hook_show;
}

struct play_state {
    struct luahost **host;
    double remaining_s; /* simulated time left of the current sim:run */
    bool running;
};

static void adopt_sim(struct ui *u, struct sim *sim)
{
    if (u->sim == sim)
        return;
    free_sim(u);
    u->sim = sim;
    u->sim_owned = false;
    u->setup = *sim_setup(sim);
    u->setup0 = u->setup; /* what the story shows is the setup "as loaded" */
    u->undo_count = 0;
    char err[UI_MSG_LEN];
    if (setup_resolve(&u->setup, u->cat, &u->res, err, sizeof err))
        model_eval(&u->setup, &u->res, &u->report);
    if (!u->speed_chosen)
        pick_speed(u);
}

/* Copies the scenario's parameters into the ui for the parameters panel. */
static void load_params(struct ui *u, const struct luahost *host)
{
    size_t n;
    const struct luahost_param *ps = luahost_params(host, &n);
    u->n_params = n < UI_MAX_PARAMS ? (int)n : UI_MAX_PARAMS;
    for (int i = 0; i < u->n_params; i++) {
        snprintf(u->param_name[i], sizeof u->param_name[i], "%s", ps[i].name);
        snprintf(u->param_type[i], sizeof u->param_type[i], "%s", ps[i].type);
        snprintf(u->param_help[i], sizeof u->param_help[i], "%s", ps[i].help);
        snprintf(u->param_value[i], sizeof u->param_value[i], "%s",
                 ps[i].value_text[0] ? ps[i].value_text : ps[i].default_text);
    }
    if (u->param_sel >= u->n_params)
        u->param_sel = 0;
}

/* Starts the scenario again with the values of the parameters panel. The
 * old host owns the simulation on screen, so the view takes back its own
 * before the old host goes. */
static void restart_play(struct ui *u, struct play_state *p, const char *why)
{
    char args[UI_MAX_PARAMS][sizeof u->param_name[0] + sizeof u->param_value[0] + 4];
    char *argv[UI_MAX_PARAMS];
    for (int i = 0; i < u->n_params; i++) {
        snprintf(args[i], sizeof args[i], "--%s=%s", u->param_name[i], u->param_value[i]);
        argv[i] = args[i];
    }
    char err[1024];
    struct luahost *fresh = luahost_reload(*p->host, u->n_params, argv, err, sizeof err);
    if (!fresh) {
        ui_set_status(u, "cannot restart: %s", err);
        return;
    }
    if (!u->sim_owned)
        u->sim = NULL;
    new_sim(u);
    luahost_free(*p->host);
    *p->host = fresh;
    load_params(u, fresh);
    p->running = false;
    p->remaining_s = 0;
    u->play_done = u->play_waiting = false;
    u->pauses_reached = 0;
    u->view = VIEW_OVERVIEW; /* the script's focus() calls open views again */
    restart_capture();
    snprintf(u->caption, sizeof u->caption, "%s", why);
    transcript_clear(u, why);
    ui_set_status(u, "the scenario starts again");
}

/* b: run the restarted script at once (no animation) up to pause number
 * u->back_to_pause; the same seed and parameters replay the same story. */
static bool play_fast_forward(struct ui *u, struct play_state *p, char *err, size_t err_len)
{
    while (u->pauses_reached < u->back_to_pause) {
        struct luahost_request req;
        memset(&req, 0, sizeof req);
        switch (luahost_resume(*p->host, &req, err, err_len)) {
        case LUAHOST_RUN:
            if (req.sim) {
                adopt_sim(u, req.sim);
                if (req.duration_s > 0 && !sim_run(req.sim, req.duration_s, err, err_len))
                    p->running = false; /* the script hears of it at the next resume */
            }
            break;
        case LUAHOST_PAUSE:
            u->pauses_reached++;
            break;
        case LUAHOST_DONE:
            u->play_done = true;
            u->back_to_pause = 0;
            return true;
        case LUAHOST_ERROR:
        default:
            u->back_to_pause = 0;
            return false;
        }
    }
    u->play_waiting = u->pauses_reached > 0;
    ui_set_status(u, "back at pause %d", u->pauses_reached);
    u->back_to_pause = 0;
    refresh_live(u);
    return true;
}

static bool play_tick(struct ui *u, struct play_state *p, double wall_dt, char *err,
                      size_t err_len)
{
    if (u->params_apply) {
        u->params_apply = false;
        restart_play(u, p, "Restarted with new parameters");
    }
    if (u->play_restart) {
        u->play_restart = false;
        int target = u->back_to_pause;
        restart_play(u, p, "Restarted");
        if (target > 0) {
            u->back_to_pause = target;
            return play_fast_forward(u, p, err, err_len);
        }
    }
    if (u->play_done || u->play_waiting)
        return true;
    if (p->running) {
        if (u->paused)
            return true;
        double dt = wall_dt * u->speed;
        if (dt > p->remaining_s)
            dt = p->remaining_s;
        /* In slices, within the frame's budget (see advance()). */
        enum { SLICES = 4 };
        double t0 = now_s();
        bool failed = false;
        u->lagging = false;
        for (int i = 0; i < SLICES && dt > 0; i++) {
            double step = dt / SLICES;
            if (step > p->remaining_s)
                step = p->remaining_s;
            if (!sim_run(u->sim, step, err, err_len)) {
                failed = true;
                break;
            }
            p->remaining_s -= step;
            if (i + 1 < SLICES && now_s() - t0 > SIM_BUDGET_S) {
                u->lagging = true;
                break;
            }
        }
        /* On failure the script hears about it and answers with its
         * traceback (LUAHOST_ERROR) or handles it. */
        if (!failed && p->remaining_s > 1e-9)
            return true;
        p->running = false;
    }
    struct luahost_request req;
    memset(&req, 0, sizeof req);
    switch (luahost_resume(*p->host, &req, err, err_len)) {
    case LUAHOST_RUN:
        if (req.sim)
            adopt_sim(u, req.sim);
        p->remaining_s = req.duration_s > 0 ? req.duration_s : 0;
        p->running = true;
        /* A long run plays in a few seconds unless the presenter chose a
         * speed (--speed, + or -). */
        while (!u->speed_chosen && u->speed_index + 1 < N_SPEEDS &&
               p->remaining_s / u->speed > PLAY_RUN_WALL_S)
            change_speed(u, +1);
        return true;
    case LUAHOST_PAUSE:
        u->play_waiting = true;
        u->pauses_reached++;
        return true;
    case LUAHOST_DONE:
        u->play_done = true;
        ui_set_status(u, "the scenario has finished: r restarts, q quits");
        return true;
    case LUAHOST_ERROR:
    default:
        return false;
    }
}

int tui_play(struct luahost **host, const char *script_path, int argc, char **argv)
{
    /* cmd_lua.c hands over only the TUI options (no program name): put one
     * in front so both entry points parse alike. */
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) {
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    args[0] = (char *)"mlviz play";
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    struct app_options o;
    struct ui *u = NULL;
    /* Until the script starts a simulation, the view shows the default setup. */
    int rc = prepare_ui(argc + 1, args, OPT_PLAY, &o, &u);
    free(args);
    if (rc != EXIT_OK)
        return rc;
    u->playing = true;
    load_params(u, *host);
    const char *base = strrchr(script_path, '/');
    snprintf(u->caption, sizeof u->caption, "Playing %s", base ? base + 1 : script_path);
    transcript_clear(u, u->caption);
    termguard_install_signals();
    capture_stdout();
    if (!start_terminal(u, &o)) {
        replay_stdout();
        ui_free(u);
        cli_error("cannot initialise the terminal (is TERM set?)");
        return EXIT_RUNTIME;
    }
    play_ui = u;
    struct play_state p = {host, 0, false};
    rc = run_loop(u, &o, &p);
    restore_terminal();
    termguard_exit_if_signalled();
    play_ui = NULL;
    /* The script owns the sim it handed over: forget it before freeing. */
    if (!u->sim_owned)
        u->sim = NULL;
    ui_free(u);
    return rc;
}
