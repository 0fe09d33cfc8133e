/* luahost: runs Lua 5.4 scenario scripts against the engine.
 *
 * A script runs in its own sandboxed environment (allow-listed globals,
 * locked global table, seeded math.random, no os/io/debug except what the
 * API grants), with an instruction budget and a memory cap. The module
 * `mlviz` exposes setups, the analytic model, the step loop, the catalog,
 * sweeps and output helpers (docs/lua-api.md).
 *
 * Headless (`mlviz run`): luahost_run() runs the script to the end;
 * sim:run() advances the step loop directly, say() prints, pause() returns.
 *
 * Played (`mlviz play`): the script runs as a coroutine. luahost_resume()
 * runs it until it needs the presenter: it returns LUAHOST_RUN when the
 * script called sim:run(d) (the front end animates `req.sim` for
 * `req.duration_s` of simulated time, calling sim_run in slices, then
 * resumes), LUAHOST_PAUSE for pause(), LUAHOST_DONE at the end, or
 * LUAHOST_ERROR with a message. Narration and output arrive through the
 * hooks as they happen. */
#ifndef MLVIZ_LUAHOST_H
#define MLVIZ_LUAHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "sim.h"

struct luahost;

/* Called as the script runs; any may be NULL (headless defaults apply). */
struct luahost_hooks {
    void *ctx;
    void (*print)(void *ctx, const char *text); /* print() and mlviz.print_table */
    void (*say)(void *ctx, const char *text);   /* narration caption */
    void (*focus)(void *ctx, int stage);        /* enum stage_id, open its view */
    void (*mark)(void *ctx, const char *label); /* a labelled moment */
    /* Played: put this setup on screen (show(setup), or at a pause the setup
     * the script made or evaluated last when it showed nothing since). A
     * shown sim arrives as a LUAHOST_RUN request of zero duration. */
    void (*show)(void *ctx, const struct setup *setup);
    /* mode("infer") or mode("train"): how the view reads the stages (for
     * serving the setup, or for training it). */
    void (*mode)(void *ctx, bool infer);
    /* mlviz.print_table's header row (the view keeps it in sight while its
     * rows are); when NULL it goes to print. */
    void (*table_header)(void *ctx, const char *text);
};

struct luahost_options {
    const struct catalog *cat;
    uint64_t seed;               /* math.random and sims without a seed */
    bool trusted;                /* --trust: full standard library */
    uint64_t instruction_budget; /* 0: default (1e9 instructions); work done in C
                                    (pattern matching, sweeps, string.rep...)
                                    counts too */
    double time_limit_s;         /* 0: default (600 s) of wall-clock time spent
                                    running the script (animation and pauses of
                                    `mlviz play` do not count) */
    size_t memory_cap_bytes;     /* 0: default (256 MiB) */
    const char *output_dir;      /* where write_csv/write_json write; NULL: "mlviz-out"
                                    (created on the first write), or with --trust the
                                    current directory (docs/lua-api.md) */
    bool played;                 /* running under the TUI: sim:run and pause yield */
    struct luahost_hooks hooks;
};

enum luahost_status { LUAHOST_DONE, LUAHOST_ERROR, LUAHOST_RUN, LUAHOST_PAUSE };

/* req.sim stays valid after the run it was handed out for, while the view
 * draws it: the host keeps a reference to its Lua object until a later
 * luahost_resume hands out another sim, or until luahost_free. Neither
 * dropping it and collecting garbage nor sim:close() frees it earlier. */
struct luahost_request {
    struct sim *sim;   /* LUAHOST_RUN: the simulation to animate (owned by the host) */
    double duration_s; /* LUAHOST_RUN: simulated time to advance */
};

/* Parameters one script may declare: a `params` table with more is an
 * error naming its line. Front ends size their parameter lists by it. */
#define LUAHOST_MAX_PARAMS 32

/* A scenario's declared parameter (from its `params` table). */
struct luahost_param {
    char name[FIELD_STR_LEN];
    char default_text[FIELD_STR_LEN];
    char help[256];
    char type[16];                  /* "number", "string" or "boolean": the default's type */
    char value_text[FIELD_STR_LEN]; /* the value in effect for this run */
};

struct luahost *luahost_new(const struct luahost_options *o, char *err, size_t err_len);
void luahost_free(struct luahost *h);
/* The context the hooks receive from now on (a front end that comes up
 * after the host was made); luahost_reload keeps it. */
void luahost_set_hooks_ctx(struct luahost *h, void *ctx);

/* Asks every running script to stop ("script interrupted"). Safe to call
 * from a signal handler. */
void luahost_interrupt(void);

/* Load a script and its command-line arguments ("--nodes=64" sets param
 * nodes; other words are passed in `arg`). Loading runs the top of the
 * script, up to mlviz.params or its first engine call, to find its
 * parameters (docs/lua-api.md, Parameters); a script that meets the host's
 * budget, time limit or an interrupt there fails here with that message. */
bool luahost_load(struct luahost *h, const char *path, int argc, char **argv, char *err,
                  size_t err_len);

/* Load a script given as text instead of a file: `name` stands for it in
 * messages ("name:line: ..."). The chunk is called with one argument, a
 * sequence of the strings values[0..n_values-1]: data reaches the script as
 * values, never as source, so no text in them can change what it does. No
 * parameters, no `arg`; the host keeps copies, so luahost_reload loads the
 * same again. */
bool luahost_load_text(struct luahost *h, const char *name, const char *text, size_t text_len,
                       const char *const *values, size_t n_values, char *err, size_t err_len);

/* Headless: run to the end. Returns false with "file:line: message" and a
 * traceback in err. */
bool luahost_run(struct luahost *h, char *err, size_t err_len);

/* Played: run until the script needs the front end (see above). When the
 * front end's sim_run on req.sim fails (an event callback raised an error),
 * call luahost_resume anyway: the script receives the error and the call
 * returns LUAHOST_ERROR with its traceback. */
enum luahost_status luahost_resume(struct luahost *h, struct luahost_request *req, char *err,
                                   size_t err_len);

/* Async-signal-safe: every script running now (in any host made before
 * the call) stops at its next instruction-hook or C-side check with the
 * error "script interrupted" (within milliseconds); a played script that is
 * suspended ends at its next luahost_resume. Hosts made later are not
 * affected. For signal handlers and the play view's `q`. */
void luahost_interrupt(void);

/* True when the last run or resume ended because of luahost_interrupt. */
bool luahost_was_interrupted(const struct luahost *h);

/* The i-th file write_csv/write_json put under another name because the
 * one asked for was taken (docs/lua-api.md, The output directory): returns
 * how many there are; asked and written (paths as shown) are set for i
 * below that. */
size_t luahost_renamed(const struct luahost *h, size_t i, char *asked, size_t asked_len,
                       char *written, size_t written_len);

/* A fresh host with the same options running the same script again with
 * new arguments ("--name=value"): how the TUI restarts a played scenario
 * after its parameters change. NULL with a message when it cannot load; the
 * old host is left as it was. */
struct luahost *luahost_reload(const struct luahost *h, int argc, char **argv, char *err,
                               size_t err_len);

/* The parameters the loaded script declares (valid after luahost_load). */
const struct luahost_param *luahost_params(const struct luahost *h, size_t *n);

/* True when the last luahost_load failed because of the command line (an
 * unknown --option or a value of the wrong type): exit status 2. */
bool luahost_usage_error(const struct luahost *h);

/* Memory held for the script now, in bytes: the Lua state and the C side
 * (simulations), both counted against the memory cap. */
size_t luahost_memory_bytes(const struct luahost *h);

/* Instructions charged to the budget so far: the script's own and the work
 * done in C on its behalf (pattern matching, sweeps, mlviz.plan...). */
uint64_t luahost_instructions(const struct luahost *h);

/* Declared parameters and the one-line description of a script, read
 * without running it with the engine (for `mlviz scenarios` and --help). */
bool luahost_describe(const char *path, char *title, size_t title_len, struct luahost_param *params,
                      size_t max_params, size_t *n_params, char *err, size_t err_len);

#endif
