/* cmd_plan: `mlviz plan`, the search over layouts and hardware (engine/plan/plan.h),
 * its shards and their merge, progress on stderr, and the output forms. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "csv.h"
#include "plan.h"
#include "report.h"
#include "roff.h"
#include "safewrite.h"
#include "units.h"

struct plan_cli {
    struct cli_common common;
    struct plan_spec spec;
    struct cli_setup_args changes; /* --set */
    const char *setup_arg;
    const char *write_best, *write_top;
    bool pareto, quiet, sharded, merge, threads_given, force, man;
    const char *files[1024];
    int n_files;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- progress ------------------------------------------------------------------- */

struct progress_ctx {
    double start;
    double search_start; /* when the workers started (0: still preparing) */
    int width;           /* of the longest line shown */
    bool shown;
};

/* A bar of 30 cells, `share` of them filled. */
static void progress_bar(char bar[31], double share)
{
    int filled = (int)((share < 0 ? 0 : share > 1 ? 1 : share) * 30);
    for (int i = 0; i < 30; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[30] = '\0';
}

static void show_progress(void *ctx, const struct plan_progress *progress)
{
    struct progress_ctx *pc = ctx;
    struct plan_progress_now p;
    plan_progress_read(progress, &p);
    double elapsed = now_s() - pc->start;
    if (elapsed < 1.0 || p.total == 0)
        return;
    char line[256], bar[31], a[32], b[32], r[32], t[32];
    if (p.preparing) {
        /* Before the workers: the units ranked by their best possible
         * figures, then the most promising searched first. */
        double share = p.prep_total ? (double)p.prep_done / (double)p.prep_total : 0;
        share = share > 1 ? 1 : share;
        progress_bar(bar, share);
        format_si(b, sizeof b, (double)p.prep_total, "");
        snprintf(line, sizeof line, "[%s] %3.0f%% preparing: %s %s layouts", bar, 100 * share,
                 p.preparing == 1 ? "ranking" : "searching first the most promising", b);
    } else {
        if (pc->search_start == 0)
            pc->search_start = now_s();
        uint64_t done = p.done;
        double share = (double)done / (double)p.total;
        double searching_s = now_s() - pc->search_start;
        double rate = searching_s > 0 ? done / searching_s : 0;
        double left = rate > 0 ? (double)(p.total - done) / rate : 0;
        progress_bar(bar, share);
        format_si(a, sizeof a, (double)done, "");
        format_si(b, sizeof b, (double)p.total, "");
        format_si(r, sizeof r, rate, "/s");
        format_duration(t, sizeof t, left);
        snprintf(line, sizeof line, "[%s] %3.0f%% %s of %s candidates, %s, %s left", bar,
                 100 * share, a, b, r, t);
    }
    /* Padded: a shorter line covers the longer one before it. */
    int len = (int)strlen(line);
    pc->width = len > pc->width ? len : pc->width;
    fprintf(stderr, "\r%-*s", pc->width, line);
    fflush(stderr);
    pc->shown = true;
}

/* ---- arguments ------------------------------------------------------------------ */

/* A spec setter's answer: 0 taken, -1 refused (its message printed). */
static int taken(bool ok, const char *err)
{
    if (!ok)
        cli_error("%s", err);
    return ok ? 0 : -1;
}

/* One option of plan's row of the command table (its value's type and
 * range checked there): 0, or -1 with the message printed. */
static int plan_option(void *ctx, const char *name, const char *v)
{
    struct plan_cli *pc = ctx;
    char err[1200];
    int k = cli_common_apply(&pc->common, name, v);
    if (k != 0)
        return k < 0 ? -1 : 0;
    if (strcmp(name, "--set") == 0)
        return cli_set_add(&pc->changes, v) < 0 ? -1 : 0;
    if (strcmp(name, "--objective") == 0)
        return taken(plan_spec_objective(&pc->spec, v, err, sizeof err), err);
    if (strcmp(name, "--vary") == 0)
        return taken(plan_spec_vary(&pc->spec, v, err, sizeof err), err);
    if (strcmp(name, "--max") == 0)
        return taken(plan_spec_max(&pc->spec, v, err, sizeof err), err);
    if (strcmp(name, "--shard") == 0) {
        int si, sn;
        char extra;
        if (sscanf(v, "%d/%d%c", &si, &sn, &extra) != 2 || sn < 1 || sn > 1000000 || si < 0 ||
            si >= sn) {
            cli_error("--shard must be I/N with 0 <= I < N <= 1000000, e.g. --shard 0/4 "
                      "(got '%s')",
                      v);
            return -1;
        }
        pc->spec.shard_index = si;
        pc->spec.shard_count = sn;
        pc->sharded = true;
    } else if (strcmp(name, "--top") == 0) {
        pc->spec.top = atoi(v);
    } else if (strcmp(name, "--threads") == 0) {
        pc->spec.threads = atoi(v);
        pc->threads_given = true;
    } else if (strcmp(name, "--write-best") == 0) {
        pc->write_best = v;
    } else if (strcmp(name, "--write-top") == 0) {
        pc->write_top = v;
    } else if (strcmp(name, "--pareto") == 0) {
        pc->pareto = true;
    } else if (strcmp(name, "--quiet") == 0) {
        pc->quiet = true;
    } else if (strcmp(name, "--merge") == 0) {
        pc->merge = true;
    } else if (strcmp(name, "--force") == 0) {
        pc->force = true;
    } else if (strcmp(name, "--exhaustive") == 0) {
        pc->spec.exhaustive = true;
    } else if (strcmp(name, "--man") == 0) {
        pc->man = true;
    } else {
        return cli_unhandled(name); /* --infer goes to cmd_plan_infer */
    }
    return 0;
}

/* Before the search: the files --write-best and --write-top will write may
 * be written (nothing is replaced without --force), so a long search does
 * not end in a refusal. The writes check again. */
static int check_targets(const struct plan_cli *pc)
{
    char dir[4096];
    const char *name;
    if (pc->write_best) {
        int fd = cli_open_parent(pc->write_best, "--write-best", dir, sizeof dir, &name);
        bool ok = fd >= 0 && cli_may_write(fd, pc->write_best, name, pc->force, "--write-best");
        if (fd >= 0)
            close(fd);
        if (!ok)
            return EXIT_USAGE;
    }
    if (!pc->write_top)
        return EXIT_OK;
    struct stat st;
    if (lstat(pc->write_top, &st) == 0 && !S_ISDIR(st.st_mode)) {
        cli_error("--write-top: '%s' is %s, not a directory (a link is not followed)",
                  pc->write_top, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
        return EXIT_USAGE;
    }
    int fd = open(pc->write_top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    bool ok = true;
    for (int i = 0; fd >= 0 && ok && i < pc->spec.top; i++) {
        char file[32], shown[4200];
        snprintf(file, sizeof file, "rank-%02d.yaml", i + 1);
        snprintf(shown, sizeof shown, "%s/%s", pc->write_top, file);
        ok = cli_may_write(fd, shown, file, pc->force, "--write-top");
    }
    if (fd >= 0)
        close(fd);
    return ok ? EXIT_OK : EXIT_USAGE;
}

/* Returns EXIT_OK to go on, -1 after --help or --man, else the exit status. */
static int parse_plan_args(int argc, char **argv, struct plan_cli *pc)
{
    plan_spec_init(&pc->spec);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pc->spec.threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
    int n = cli_parse("plan", argc, argv, plan_option, pc, pc->files,
                      (int)(sizeof pc->files / sizeof pc->files[0]));
    if (n == CLI_PARSE_HELP)
        return -1;
    if (n < 0)
        return EXIT_USAGE;
    pc->n_files = n;
    if (pc->man) {
        commands_option_man(stdout, "plan");
        return -1;
    }
    if (pc->merge) {
        if (pc->n_files == 0) {
            cli_error("--merge needs the partial result files of every shard");
            return EXIT_USAGE;
        }
        if (pc->sharded || pc->spec.n_vary || pc->spec.n_maxes || pc->changes.n_sets) {
            cli_error("--merge takes the space from the partial files: drop --shard, --vary, "
                      "--max and --set");
            return EXIT_USAGE;
        }
        return check_targets(pc);
    }
    if (pc->n_files != 1) {
        cli_error(pc->n_files ? "plan takes one setup (got '%s' too)" : "plan needs a setup%s",
                  pc->n_files ? pc->files[1] : " (usage: mlviz plan FILE|PRESET [options])");
        return EXIT_USAGE;
    }
    if (pc->sharded && (pc->write_best || pc->write_top)) {
        cli_error("--shard writes a partial result; use --write-best/--write-top with --merge");
        return EXIT_USAGE;
    }
    pc->setup_arg = pc->files[0];
    /* Without --pareto the front is not needed, so the step-time bound may
     * cut; shards keep the front for a merge that may ask for it. */
    pc->spec.front = pc->pareto || pc->sharded;
    return check_targets(pc);
}

/* Writes candidate `index` as `name` in dir_fd (cli_write_file). */
static bool write_setup_file(const struct plan_cli *pc, int dir_fd, const char *dir_shown,
                             const char *name, const struct plan_space *sp, uint64_t index,
                             int rank)
{
    struct setup s;
    plan_space_setup(sp, index, &s);
    snprintf(s.name, sizeof s.name, "plan #%d: %.40s", rank, sp->base.name);
    enum { YAML_LEN = 64 << 10 };
    char *yaml = malloc(YAML_LEN);
    if (!yaml)
        return false;
    setup_write_yaml(&s, yaml, YAML_LEN);
    bool ok = cli_write_file(dir_fd, dir_shown, name, yaml, pc->force);
    free(yaml);
    return ok;
}

static bool write_files(const struct plan_cli *pc, const struct plan_space *sp,
                        const struct plan_result *r)
{
    if ((pc->write_best || pc->write_top) && r->n_top == 0) {
        cli_error("no runnable configuration: nothing to write");
        return false;
    }
    char dir[4096];
    const char *name;
    if (pc->write_best) {
        int fd = cli_open_parent(pc->write_best, "--write-best", dir, sizeof dir, &name);
        bool ok = fd >= 0 && write_setup_file(pc, fd, dir, name, sp, r->top[0].index, 1);
        if (fd >= 0)
            close(fd);
        if (!ok)
            return false;
    }
    if (!pc->write_top)
        return true;
    int fd = safewrite_open_dir(pc->write_top, true, dir, sizeof dir);
    if (fd < 0) {
        cli_error("--write-top: %s", dir);
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < r->n_top; i++) {
        char file[32];
        snprintf(file, sizeof file, "rank-%02d.yaml", i + 1);
        ok = write_setup_file(pc, fd, pc->write_top, file, sp, r->top[i].index, i + 1);
    }
    close(fd);
    return ok;
}

/* ---- merge ------------------------------------------------------------------------- */

static bool same_spec(const struct plan_spec *a, const struct plan_spec *b)
{
    if (a->objective != b->objective || a->top != b->top || a->n_vary != b->n_vary ||
        a->n_maxes != b->n_maxes || a->shard_count != b->shard_count)
        return false;
    for (int i = 0; i < a->n_vary; i++)
        if (strcmp(a->vary[i], b->vary[i]) != 0)
            return false;
    for (int i = 0; i < a->n_maxes; i++)
        if (strcmp(a->maxes[i], b->maxes[i]) != 0)
            return false;
    return true;
}

/* Adds one shard's counts and re-evaluated candidates to the whole. */
static int merge_one(const struct plan_cli *pc, const struct catalog *cat,
                     const struct plan_space *sp, const struct plan_partial *q, const char *file,
                     struct plan_result *r)
{
    struct plan_counts *c = &r->counts;
    c->candidates += q->counts.candidates;
    c->invalid += q->counts.invalid;
    c->memory_cut += q->counts.memory_cut;
    c->constraint_cut += q->counts.constraint_cut;
    c->evaluated += q->counts.evaluated;
    c->runnable += q->counts.runnable;
    c->better_than_base += q->counts.better_than_base;
    c->bound_cut += q->counts.bound_cut;
    for (int pass = 0; pass < 2; pass++) {
        const uint64_t *idx = pass ? q->front : q->top;
        size_t cnt = pass ? q->n_front : q->n_top;
        for (size_t k = 0; k < cnt; k++) {
            struct plan_entry e = {0};
            if (idx[k] >= sp->candidates || !plan_eval_candidate(sp, cat, idx[k], &e)) {
                cli_error("%s: candidate %llu is not a runnable configuration of this space", file,
                          (unsigned long long)idx[k]);
                return EXIT_USAGE;
            }
            if (!plan_result_add(r, &pc->spec, &e))
                return EXIT_RUNTIME;
        }
    }
    return EXIT_OK;
}

static int run_merge(struct plan_cli *pc, const struct catalog *cat, struct plan_space *sp)
{
    char err[1200];
    struct plan_partial first, p;
    if (!plan_read_partial(pc->files[0], &first, err, sizeof err)) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    int n = first.shard_count;
    if (pc->n_files != n) {
        cli_error("--merge: %s is one of %d shards but %d file%s given", pc->files[0], n,
                  pc->n_files, pc->n_files == 1 ? " was" : "s were");
        plan_partial_free(&first);
        return EXIT_USAGE;
    }
    struct setup base;
    if (!setup_load_string(&base, pc->files[0], first.setup_yaml, cat, err, sizeof err)) {
        cli_error("%s (the setup inside the partial result)", err);
        plan_partial_free(&first);
        return EXIT_USAGE;
    }
    pc->spec = first.spec;
    pc->spec.shard_index = 0;
    pc->spec.shard_count = 1;
    if (!plan_space_build(sp, &base, &first.spec, cat, err, sizeof err)) {
        cli_error("%s: %s", pc->files[0], err);
        plan_partial_free(&first);
        return EXIT_USAGE;
    }
    bool *seen = calloc((size_t)n, sizeof *seen);
    struct plan_result *r = calloc(1, sizeof *r);
    int rc = seen && r ? EXIT_OK : EXIT_RUNTIME;
    for (int i = 0; rc == EXIT_OK && i < n; i++) {
        if (i > 0 && !plan_read_partial(pc->files[i], &p, err, sizeof err)) {
            cli_error("%s", err);
            rc = EXIT_USAGE;
            break;
        }
        struct plan_partial *q = i == 0 ? &first : &p;
        if (i > 0 &&
            (!same_spec(&first.spec, &q->spec) || strcmp(first.setup_yaml, q->setup_yaml) != 0)) {
            cli_error("%s: not from the same search as %s (setup or options differ)", pc->files[i],
                      pc->files[0]);
            rc = EXIT_USAGE;
        } else if (seen[q->shard_index]) {
            cli_error("%s: shard %d/%d is given twice", pc->files[i], q->shard_index, n);
            rc = EXIT_USAGE;
        } else {
            seen[q->shard_index] = true;
            rc = merge_one(pc, cat, sp, q, pc->files[i], r);
        }
        if (i > 0)
            plan_partial_free(&p);
    }
    if (rc == EXIT_OK) {
        r->base_runnable = plan_eval_setup(&base, cat, &r->base);
        plan_rescore(sp, cat, &pc->spec, r);
        struct plan_why why = {0};
        if (r->n_top > 0 && r->base_runnable)
            plan_why(sp, cat, r->top[0].index, &why);
        plan_write_result(stdout, pc->common.format, sp, &pc->spec, r, pc->pareto, &why);
        if (!write_files(pc, sp, r))
            rc = EXIT_RUNTIME;
    }
    if (r)
        plan_result_free(r);
    free(r);
    free(seen);
    plan_partial_free(&first);
    return rc;
}

/* ---- the command ------------------------------------------------------------------- */

/* On a terminal: the progress line cleared, then how long the search and
 * its re-scoring took (stderr, so stdout does not depend on the timing). */
static void report_time(const struct plan_cli *pc, const struct progress_ctx *prog,
                        const struct plan_result *r)
{
    if (prog->shown)
        fprintf(stderr, "\r%*s\r", prog->width, "");
    if (pc->quiet || !isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "mlviz: searched %llu candidates in %.2f s",
            (unsigned long long)r->counts.candidates, now_s() - prog->start);
    if (r->rescored)
        fprintf(stderr, " (the step-schedule simulator re-scored %d rows in %.0f ms)",
                r->rescore_rows, 1e3 * r->rescore_s);
    fputc('\n', stderr);
}

int cmd_plan(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--infer") == 0)
            return cmd_plan_infer(argc, argv); /* the serving search: cmd_plan_infer.c */
    struct plan_cli *pc = calloc(1, sizeof *pc);
    struct plan_space *sp = calloc(1, sizeof *sp);
    struct plan_result *r = calloc(1, sizeof *r);
    struct catalog *cat = NULL;
    int rc = EXIT_RUNTIME;
    if (!pc || !sp || !r) {
        cli_error("out of memory");
        goto out;
    }
    rc = parse_plan_args(argc, argv, pc);
    if (rc < 0) {
        rc = EXIT_OK; /* --help */
        goto out;
    }
    if (rc != EXIT_OK)
        goto out;
    cat = cli_load_catalog(pc->common.catalog_dir);
    if (!cat) {
        rc = EXIT_USAGE;
        goto out;
    }
    if (pc->merge) {
        rc = run_merge(pc, cat, sp);
        goto out;
    }
    struct setup base;
    struct resolved res;
    if (!cli_load_setup_args(pc->setup_arg, &pc->changes, cat, &base, &res)) {
        rc = EXIT_USAGE;
        goto out;
    }
    char err[1200];
    if (!plan_space_build(sp, &base, &pc->spec, cat, err, sizeof err)) {
        cli_error("%s", err);
        rc = EXIT_USAGE;
        goto out;
    }
    struct progress_ctx prog = {now_s(), 0, 0, false};
    bool show = !pc->quiet && isatty(STDERR_FILENO);
    if (!plan_run(sp, cat, &pc->spec, r, NULL, show ? show_progress : NULL, &prog, err,
                  sizeof err)) {
        cli_error("%s", err);
        rc = EXIT_RUNTIME;
        goto out;
    }
    report_time(pc, &prog, r);
    rc = EXIT_OK;
    if (pc->sharded) {
        if (!plan_write_partial(stdout, sp, &pc->spec, r)) {
            cli_error("cannot write the partial result");
            rc = EXIT_RUNTIME;
        }
        goto out;
    }
    struct plan_why why = {0};
    if (r->n_top > 0 && r->base_runnable)
        plan_why(sp, cat, r->top[0].index, &why);
    plan_write_result(stdout, pc->common.format, sp, &pc->spec, r, pc->pareto, &why);
    if (!write_files(pc, sp, r))
        rc = EXIT_RUNTIME;
out:
    if (r)
        plan_result_free(r);
    free(r);
    free(sp);
    free(pc);
    if (cat)
        catalog_free(cat);
    return rc;
}
