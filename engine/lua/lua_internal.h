/* lua_internal: what the files of the Lua host share (engine/lua/ only).
 *
 * luahost.c     lifecycle, load/run/resume, describe
 * lua_sandbox.c allocator, limits (budget, time, memory, interrupt), messages, environment
 * lua_api.c     the `mlviz` table, narration (print, say, pause, show ...), small helpers
 * lua_setup.c   the Setup class and Lua value -> setup field conversion
 * lua_sim.c     the Sim class
 * lua_sweep.c   mlviz.sweep          lua_plan.c    mlviz.plan
 * lua_tables.c  print_table, write_csv, write_json
 * lua_catalog.c the read-only catalog proxy
 * lua_params.c  declared parameters and --name=value overrides
 * lua_output.c  where written files go; lua_patterns.c budgeted string patterns */
#ifndef MLVIZ_LUA_INTERNAL_H
#define MLVIZ_LUA_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>

#include "fields.h"
#include "lua_output.h"
#include "luahost.h"

/* luaL_error and lua_error leave by longjmp and never return, but Lua's
 * headers do not say so. A wrapper that raises is marked _Noreturn and ends
 * with LH_RAISED(), so the compiler and the analyzers (scan-build, cppcheck)
 * know that no code after a call to it runs. */
#define LH_RAISED() __builtin_unreachable()
#include "model.h"
#include "setup.h"
#include "sim.h"

struct report_field;

/* ---- limits and defaults ------------------------------------------------------ */

/* About a few seconds of plain Lua on a current core: generous for any
 * scenario (the heavy work runs in C), small enough to stop a runaway loop. */
#define LUAHOST_DEFAULT_BUDGET 1000000000ULL
/* Enough for sweeps of a few hundred thousand rows. */
#define LUAHOST_DEFAULT_MEMORY_BYTES ((size_t)256 << 20)
/* Instructions between two budget checks: rare enough to cost nothing. */
#define LUAHOST_HOOK_INTERVAL 10000
/* Wall-clock seconds a script may run (time spent animating or waiting for
 * the presenter in `mlviz play` does not count). */
#define LUAHOST_DEFAULT_TIME_LIMIT_S 600.0
/* Units of work done in C between two looks at the clock and the interrupt
 * flag (a few microseconds of work each). */
#define LUAHOST_CHECK_STEPS 10000
/* sim:run advances in slices of this many ticks and checks the limits in
 * between (a slice runs in about a millisecond). */
#define LUAHOST_SIM_SLICE_TICKS 20000
/* Ticks one sim:run may ask for: beyond 2^53 a tick count is not exact. */
#define LUAHOST_MAX_SIM_TICKS 9007199254740992.0
/* Combinations one mlviz.sweep may evaluate (each is one table row). */
#define LUAHOST_MAX_SWEEP_ROWS 1000000
/* Budget charged per sweep combination: one resolve, evaluation and row
 * take about 10-20 us, the time of a thousand or two Lua instructions. */
#define LUAHOST_SWEEP_ROW_COST 1000
/* Extra memory allowed once the cap has tripped, so the error message and
 * its traceback can still be built. */
#define LUAHOST_MEM_RESERVE_BYTES ((size_t)1 << 20)
/* Describing a script runs its top until mlviz.params: keep it small. */
#define LUAHOST_DESCRIBE_BUDGET       20000000ULL
#define LUAHOST_DESCRIBE_MEMORY_BYTES ((size_t)32 << 20)
#define LUAHOST_DESCRIBE_TIME_S       2.0
#define LUAHOST_PATH_LEN              1024
#define LUAHOST_MSG_LEN               2048
/* Nesting limit when turning Lua values into JSON. */
#define LUAHOST_MAX_DEPTH 32
/* Nesting limit of setup tables (field paths have three or four parts). */
#define LUAHOST_SETUP_MAX_DEPTH 8
/* Registry keys (addresses are unique; defined in luahost.c). */
extern const char lh_key_host;
extern const char lh_key_env;
extern const char lh_key_api;
extern const char lh_key_loaded;
extern const char lh_key_sims;
extern const char lh_key_overrides;
extern const char lh_key_describe_stop;
extern const char lh_key_randomseed;
extern const char lh_key_table_sort;

#define SETUP_MT "mlviz.setup"
#define SIM_MT   "mlviz.sim"

struct luahost {
    lua_State *L;
    struct luahost_options opt;
    size_t mem_used;
    size_t mem_cap;
    uint64_t instructions;
    uint64_t budget;
    bool over_budget;
    bool over_memory;
    bool over_time;
    bool interrupted;
    sig_atomic_t interrupt_seen; /* interrupt_count when the host was made */
    double time_limit_s;
    double active_s;          /* script running time of finished stretches */
    double active_since;      /* CLOCK_MONOTONIC start of the current stretch */
    int active_depth;         /* nesting of clock_enter */
    uint64_t unchecked_steps; /* C work charged since the last limit check */
    int held_sim_ref;         /* the sim last handed to the front end */
    bool describing;          /* mlviz.params records and stops the script */
    bool params_over_cap;     /* mlviz.params got more than LUAHOST_MAX_PARAMS */
    bool describe_cut;        /* the describe run met its caps before any mlviz.params */
    bool usage_error;         /* the last luahost_load failure was the command line's fault */
    bool loaded;
    bool finished;
    bool started;
    int chunk_ref; /* the compiled script (headless) */
    int args_ref;  /* luahost_load_text: the table of values the chunk is called with */
    char *text;    /* luahost_load_text: the script and its values, copied for reload */
    size_t text_len;
    char **values;
    size_t n_values;
    lua_State *co; /* played: the script's coroutine */
    int co_ref;
    enum luahost_status yield_kind;
    struct luahost_request req;
    char path[LUAHOST_PATH_LEN];
    char dir[LUAHOST_PATH_LEN];
    char scripts_dir[LUAHOST_PATH_LEN];
    struct lua_output out; /* where write_csv/write_json go */
    struct luahost_param params[LUAHOST_MAX_PARAMS];
    size_t n_params;
    struct setup follow; /* played: the setup made or evaluated last ... */
    bool follow_pending; /* ... and not yet on screen (shown at the next pause) */
};

struct lsetup {
    struct setup s;
    struct setup_resolve_memo memo; /* setup:eval's last catalog lookups */
};

struct lsim {
    struct sim *sim;
    struct luahost *h;
    lua_State *running; /* thread inside sim:run, NULL otherwise */
    int next_id;
    double tick_s;
    double carry_s;       /* of the runs asked for, what whole ticks did not cover */
    bool tick_auto;       /* the tick was chosen by sim_auto_tick */
    bool closed;          /* sim:close() while the front end still shows it */
    bool has_error;       /* a callback failed; its error value is in the user value [0] */
    size_t charged_bytes; /* the sim's heap, counted against the memory cap */
};

/* lua_sandbox.c */
struct luahost *lh_host_of(lua_State *L);
bool lh_host_charge(struct luahost *h, lua_State *L, size_t old_bytes, size_t new_bytes);
void *lh_host_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
void lh_clock_enter(struct luahost *h);
void lh_clock_leave(struct luahost *h);
bool lh_stop_flagged(const struct luahost *h);
bool lh_limits_hit(struct luahost *h);
void lh_budget_hook(lua_State *L, lua_Debug *ar);
void lh_host_charge_steps(lua_State *L, struct luahost *h, uint64_t steps);
void lh_host_check(lua_State *L, struct luahost *h);
void lh_copy_msg(char *dst, size_t len, const char *src);
int lh_msg_handler(lua_State *L);
void lh_final_message(struct luahost *h, const char *raw, char *err, size_t err_len);
/* Raises "fn: msg" at the caller's line; never returns. (int, so that a
 * lua_CFunction may `return lh_api_error(...)` as it would luaL_error.) */
_Noreturn int lh_api_error(lua_State *L, const char *fn, const char *msg) __attribute__((noreturn));
/* luaL_error marked _Noreturn: the same message ("where: " and the text of
 * lua_pushfstring's formats), raised. Every luaL_error that is a statement
 * of its own (not returned) is this one. */
_Noreturn void lh_raisef(lua_State *L, const char *fmt, ...) __attribute__((noreturn));
int lh_load_script_file(lua_State *L, const char *path);
void lh_build_env(lua_State *L, struct luahost *h);

/* lua_api.c */
bool lh_file_exists(const char *path);
void lh_dir_of(const char *path, char *buf, size_t len);
double lh_check_duration(lua_State *L, int idx, const char *fn);
void lh_host_print(struct luahost *h, const char *text);
/* A table's header row: the table_header hook, else as lh_host_print. */
void lh_host_print_header(struct luahost *h, const char *text);
int lh_print(lua_State *L);
int lh_say(lua_State *L);
bool lh_can_yield_to_host(struct luahost *h, lua_State *L);
void lh_follow_setup(lua_State *L, const struct setup *s);
int lh_pause(lua_State *L);
int lh_focus(lua_State *L);
void lh_hold_for_view(lua_State *L, struct luahost *h, int idx);
int lh_show(lua_State *L);
int lh_mark(lua_State *L);
int lh_mode(lua_State *L);
bool lh_opt_bool(lua_State *L, int t, const char *k, bool dflt);
double lh_opt_num(lua_State *L, int t, const char *k, double dflt, double lo, double hi);
void lh_check_known_keys(lua_State *L, int t, const char *const *names, const char *fn);
void lh_push_mlviz(lua_State *L, struct luahost *h);

/* lua_setup.c */
struct lsetup *lh_check_setup(lua_State *L, int idx);
void lh_set_field(lua_State *L, struct setup *s, const struct field *f, int idx, const char *fn);
const struct field *lh_check_field(lua_State *L, const char *path, const char *fn);
struct lsetup *lh_push_setup(lua_State *L, const struct setup *s);
const struct catalog *lh_need_catalog(lua_State *L, struct luahost *h, const char *fn);
int lh_load(lua_State *L);
int lh_setup(lua_State *L);
void lh_push_field_value(lua_State *L, const struct field *f, const void *obj);
void lh_new_class(lua_State *L, const char *mt, const luaL_Reg *methods, const char *what,
                  lua_CFunction gc, lua_CFunction tostring);

/* lua_report.c: report tables. lh_push_report pushes one that fills
 * itself as it is read; lh_report_complete fills every field of such a
 * table at idx (anything else is left alone): call it before walking a
 * table with lua_next or lua_rawget. lh_push_picked pushes the fields named
 * by arguments 2.. (setup:eval's names form); lh_push_report_table builds a
 * whole table from a field table (the serving report). */
void lh_push_report(lua_State *L, const struct setup *s, const struct resolved *r,
                    const struct model_report *o);
void lh_report_complete(lua_State *L, int idx);
int lh_push_picked(lua_State *L, const struct setup *s, const struct resolved *r,
                   const struct model_report *o);
/* Whether the names form asks for a verdict sentence (then the full
 * evaluation; otherwise model_eval_numbers serves it). */
bool lh_picks_need_words(lua_State *L);
void lh_push_report_table(lua_State *L, const struct report_field *rows, size_t n, const void *base,
                          const struct setup *s, const struct resolved *r);

/* lua_sim.c */
int lh_sim(lua_State *L);

/* lua_sweep.c */
lua_Integer lh_push_sorted_string_keys(lua_State *L, int tbl, lua_Integer *others);
int lh_sweep(lua_State *L);

/* lua_plan.c */
int lh_plan(lua_State *L);

/* lua_tables.c */
int lh_print_table(lua_State *L);
int lh_write_csv(lua_State *L);
int lh_write_json(lua_State *L);

/* lua_catalog.c */
void lh_push_catalog(lua_State *L, const struct catalog *cat);

/* lua_params.c */
int lh_params(lua_State *L);
void lh_split_args(struct luahost *h, int argc, char **argv);
bool lh_check_overrides(struct luahost *h, char *err, size_t err_len);

/* lua_sandbox.c: the interrupt counter now (a host stops once it differs). */
sig_atomic_t lh_interrupts_now(void);
/* lua_setup.c, lua_sim.c: the metatables of the two classes. */
void lh_setup_register(lua_State *L);
void lh_sim_register(lua_State *L);

#endif
