/* Shared by the benchmark programs: a CPU clock beside the wall clock, and
 * the one output line tests/bench/run.sh reads, "NAME: CPU WALL": the
 * figure measured in CPU time (what the goal in tests/bench/goals applies
 * to: it does not depend on what else the machine runs), then the same
 * figure in wall time. A rate is per CPU second, then per wall second; a
 * duration is CPU milliseconds or seconds, then wall ones. */
#ifndef MLVIZ_TESTS_BENCH_H
#define MLVIZ_TESTS_BENCH_H

#include <stdio.h>
#include <time.h>

struct bench_clock {
    double wall_s, cpu_s;
};

static inline struct bench_clock bench_now(void)
{
    struct timespec w, c;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c); /* every thread of the process */
    return (struct bench_clock){(double)w.tv_sec + (double)w.tv_nsec * 1e-9,
                                (double)c.tv_sec + (double)c.tv_nsec * 1e-9};
}

/* The time since t0, both clocks. */
static inline struct bench_clock bench_since(struct bench_clock t0)
{
    struct bench_clock t = bench_now();
    return (struct bench_clock){t.wall_s - t0.wall_s, t.cpu_s - t0.cpu_s};
}

/* "NAME: COUNT/cpu COUNT/wall". */
static inline void bench_rate(const char *name, double count, struct bench_clock dt)
{
    printf("%s: %.0f %.0f\n", name, dt.cpu_s > 0 ? count / dt.cpu_s : 0.0,
           dt.wall_s > 0 ? count / dt.wall_s : 0.0);
}

/* "NAME: CPU_MS WALL_MS" for a duration divided by `per` (runs, frames). */
static inline void bench_ms(const char *name, struct bench_clock dt, double per)
{
    printf("%s: %.3f %.3f\n", name, dt.cpu_s * 1e3 / per, dt.wall_s * 1e3 / per);
}

#endif
