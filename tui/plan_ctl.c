/* plan_ctl: the plan screen's background search. One thread runs
 * plan_run over the setup as it was when p was pressed; the frame loop
 * reads its progress (plan_progress_read, atomic) and, once the thread
 * says it finished, its result. A new setup stops and joins the old
 * search before starting another. */
#include "plan_ctl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"

enum { PLAN_CTL_TOP = 20, SETUP_TEXT_LEN = 16384, PLAN_CTL_THREADS_MAX = 64 };

struct plan_ctl {
    struct plan_space space;
    struct plan_spec spec;
    struct plan_result result;
    struct plan_progress progress;
    pthread_t thread;
    bool started; /* a thread was started and not yet joined */
    int finished; /* set by the thread (atomic) */
    bool ok;
    char err[UI_MSG_LEN];
    char base_yaml[SETUP_TEXT_LEN]; /* the setup searched, to notice changes */
    const struct catalog *cat;
    int sel;
    struct plan_why why; /* rank 1 against the setup, part by part */
};

static void *search_main(void *arg)
{
    struct plan_ctl *pc = arg;
    pc->ok = plan_run(&pc->space, pc->cat, &pc->spec, &pc->result, &pc->progress, NULL, NULL,
                      pc->err, sizeof pc->err);
    memset(&pc->why, 0, sizeof pc->why);
    if (pc->ok && pc->result.n_top > 0 && pc->result.base_runnable)
        plan_why(&pc->space, pc->cat, pc->result.top[0].index, &pc->why);
    __atomic_store_n(&pc->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

static bool search_done(const struct plan_ctl *pc)
{
    return __atomic_load_n(&pc->finished, __ATOMIC_ACQUIRE) != 0;
}

/* Stops and joins a running search; frees its result. */
static void search_stop(struct plan_ctl *pc)
{
    if (pc->started) {
        plan_progress_cancel(&pc->progress);
        pthread_join(pc->thread, NULL);
        pc->started = false;
    }
    plan_result_free(&pc->result);
}

void plan_ctl_free(struct plan_ctl *pc)
{
    if (!pc)
        return;
    search_stop(pc);
    free(pc);
}

/* A new search of the setup as it is now. */
static void search_start(struct plan_ctl *pc, const struct setup *setup, const char *yaml,
                         const struct catalog *cat)
{
    search_stop(pc);
    snprintf(pc->base_yaml, sizeof pc->base_yaml, "%s", yaml);
    pc->cat = cat;
    pc->sel = 0;
    plan_spec_init(&pc->spec);
    pc->spec.top = PLAN_CTL_TOP;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pc->spec.threads = cores < 1                      ? 1
                       : cores > PLAN_CTL_THREADS_MAX ? PLAN_CTL_THREADS_MAX
                                                      : (int)cores;
    plan_progress_init(&pc->progress);
    pc->finished = 0;
    pc->ok = false;
    pc->err[0] = '\0';
    if (!plan_space_build(&pc->space, setup, &pc->spec, cat, pc->err, sizeof pc->err)) {
        pc->finished = 1;
    } else if (pthread_create(&pc->thread, NULL, search_main, pc) == 0) {
        pc->started = true;
    } else {
        snprintf(pc->err, sizeof pc->err, "plan: cannot start the search thread");
        pc->finished = 1;
    }
}

bool plan_ctl_open(struct plan_ctl **pcp, const struct setup *setup, const struct catalog *cat,
                   char *msg, size_t msg_len)
{
    if (!*pcp) {
        *pcp = calloc(1, sizeof **pcp);
        if (!*pcp) {
            snprintf(msg, msg_len, "plan: out of memory");
            return false;
        }
    }
    struct plan_ctl *pc = *pcp;
    char *yaml = malloc(SETUP_TEXT_LEN);
    if (!yaml)
        return true;
    setup_write_yaml(setup, yaml, SETUP_TEXT_LEN);
    if (!(pc->started && strcmp(yaml, pc->base_yaml) == 0))
        search_start(pc, setup, yaml, cat);
    free(yaml);
    return true;
}

static int ready_rows(const struct plan_ctl *pc)
{
    return search_done(pc) && pc->ok ? pc->result.n_top : 0;
}

void plan_ctl_row(struct plan_ctl *pc, int dir)
{
    int rows = pc ? ready_rows(pc) : 0;
    if (rows > 0)
        pc->sel = ((pc->sel + dir) % rows + rows) % rows;
}

bool plan_ctl_pick(const struct plan_ctl *pc, struct setup *out, int *rank, char *msg,
                   size_t msg_len)
{
    if (!pc)
        return false;
    if (!(search_done(pc) && pc->ok)) {
        snprintf(msg, msg_len, "the search is still running");
        return false;
    }
    if (ready_rows(pc) == 0) {
        snprintf(msg, msg_len, "no runnable configuration to load");
        return false;
    }
    plan_space_setup(&pc->space, pc->result.top[pc->sel].index, out);
    *rank = pc->sel + 1;
    return true;
}

void plan_ctl_view(const struct plan_ctl *pc, struct view_plan *out)
{
    memset(out, 0, sizeof *out);
    if (!pc)
        return;
    out->open = true;
    out->progress = &pc->progress;
    out->done = search_done(pc);
    if (!out->done)
        return; /* the thread still writes everything else */
    out->ok = pc->ok;
    out->err = pc->err;
    out->space = &pc->space;
    out->result = &pc->result;
    out->why = &pc->why;
    out->sel = pc->sel;
}
