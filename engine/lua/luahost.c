/* luahost: the Lua 5.4 host. Sandbox, limits, the `mlviz` module, headless
 * runs and coroutine playback (see luahost.h and docs/lua-api.md).
 *
 * Practices borrowed from embedders that run scripts they did not write:
 * an allow-list environment with a read-only fallback table (Redis), a
 * count hook that re-arms itself after tripping so pcall cannot swallow the
 * stop (Redis), a counting allocator for a hard memory cap, a message
 * handler with a traceback on every protected call (mpv), and script
 * parameters declared by the script itself (sysbench). */
#include "luahost.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "collective.h"
#include "csv.h"
#include "infile.h"
#include "lua_output.h"
#include "lua_patterns.h"
#include "model.h"
#include "plan.h"
#include "report.h"
#include "setup.h"
#include "sim.h"

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
#define LUAHOST_DESCRIBE_BUDGET 20000000ULL
#define LUAHOST_DESCRIBE_MEMORY_BYTES ((size_t)32 << 20)
#define LUAHOST_DESCRIBE_TIME_S 2.0
#define LUAHOST_MAX_PARAMS 32
#define LUAHOST_PATH_LEN 1024
#define LUAHOST_MSG_LEN 2048
/* Nesting limit when turning Lua values into JSON. */
#define LUAHOST_MAX_DEPTH 32
/* Nesting limit of setup tables (field paths have three or four parts). */
#define LUAHOST_SETUP_MAX_DEPTH 8
/* Fields kept per sweep row when the script names none. */
static const char *const default_sweep_fields[] = {
    "runnable",     "step_time_s",          "tokens_per_s", "mfu", "bottleneck",
    "memory.fits",  "memory.per_device_gb", NULL,
};

/* Registry keys (addresses are unique). */
static const char key_host = 'h';
static const char key_env = 'e';
static const char key_api = 'a';
static const char key_loaded = 'l';
static const char key_sims = 's';
static const char key_overrides = 'o';
static const char key_describe_stop = 'd';
static const char key_randomseed = 'r';
static const char key_table_sort = 't';

#define SETUP_MT "mlviz.setup"
#define SIM_MT "mlviz.sim"

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
    double active_s;             /* script running time of finished stretches */
    double active_since;         /* CLOCK_MONOTONIC start of the current stretch */
    int active_depth;            /* nesting of clock_enter */
    uint64_t unchecked_steps;    /* C work charged since the last limit check */
    int held_sim_ref;            /* the sim last handed to the front end */
    bool describing;   /* mlviz.params records and stops the script */
    bool usage_error;  /* the last luahost_load failure was the command line's fault */
    bool loaded;
    bool finished;
    bool started;
    int chunk_ref;     /* the compiled script (headless) */
    lua_State *co;     /* played: the script's coroutine */
    int co_ref;
    enum luahost_status yield_kind;
    struct luahost_request req;
    char path[LUAHOST_PATH_LEN];
    char dir[LUAHOST_PATH_LEN];
    char scripts_dir[LUAHOST_PATH_LEN];
    struct lua_output out; /* where write_csv/write_json go */
    struct luahost_param params[LUAHOST_MAX_PARAMS];
    size_t n_params;
    struct setup follow;  /* played: the setup made or evaluated last ... */
    bool follow_pending;  /* ... and not yet on screen (shown at the next pause) */
};

struct lsetup {
    struct setup s;
};

struct lsim {
    struct sim *sim;
    struct luahost *h;
    lua_State *running; /* thread inside sim:run, NULL otherwise */
    int next_id;
    double tick_s;
    bool closed;        /* sim:close() while the front end still shows it */
    bool has_error;     /* a callback failed; its error value is in the user value [0] */
    size_t charged_bytes; /* the sim's heap, counted against the memory cap */
};

static struct luahost *host_of(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_host);
    struct luahost *h = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return h;
}

/* ---- allocator and instruction budget ----------------------------------------- */

static void budget_hook(lua_State *L, lua_Debug *ar);

static void trip_memory_cap(struct luahost *h)
{
    if (!h->over_memory && h->L) {
        h->over_memory = true;
        /* From now on every instruction raises, so the script stops even if
         * it catches the memory error. */
        lua_sethook(h->L, budget_hook, LUA_MASKCOUNT, 1);
    }
}

/* One byte counter for everything a script makes the host hold: the Lua
 * allocator above and the C-side allocations made for the script (sims and
 * their series) both charge it. Growing from old_bytes to new_bytes asks
 * first; garbage (unreachable sims) is collected before saying no. */
static bool host_charge(struct luahost *h, lua_State *L, size_t old_bytes, size_t new_bytes)
{
    if (new_bytes <= old_bytes) {
        h->mem_used -= old_bytes - new_bytes;
        return true;
    }
    size_t more = new_bytes - old_bytes;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (h->mem_used <= h->mem_cap && more <= h->mem_cap - h->mem_used) {
            h->mem_used += more;
            return true;
        }
        if (attempt == 0 && !h->over_memory)
            lua_gc(L, LUA_GCCOLLECT);
    }
    trip_memory_cap(h);
    return false;
}

static void *host_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct luahost *h = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        h->mem_used -= old;
        free(ptr);
        return NULL;
    }
    if (nsize > old) {
        size_t limit = h->mem_cap + (h->over_memory ? LUAHOST_MEM_RESERVE_BYTES : 0);
        if (h->mem_used - old + nsize > limit) {
            trip_memory_cap(h);
            return NULL;
        }
    }
    void *p = realloc(ptr, nsize);
    if (p)
        h->mem_used = h->mem_used - old + nsize;
    return p;
}

/* Bumped by luahost_interrupt; a host stops once it differs from the value
 * it saw when it was made. Only written by a plain store of a sig_atomic_t,
 * so the signal handler may call it. */
static volatile sig_atomic_t interrupt_count;

void luahost_interrupt(void)
{
    interrupt_count = (sig_atomic_t)((interrupt_count + 1) & 0x3fffffff);
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The time limit counts only the stretches in which script code runs. */
static void clock_enter(struct luahost *h)
{
    if (h->active_depth++ == 0)
        h->active_since = monotonic_s();
}

static void clock_leave(struct luahost *h)
{
    if (--h->active_depth == 0)
        h->active_s += monotonic_s() - h->active_since;
}

static bool stop_flagged(const struct luahost *h)
{
    return h->over_budget || h->over_memory || h->over_time || h->interrupted;
}

/* Looks at every limit; sets the flag of the first one hit. True when the
 * script must stop. */
static bool limits_hit(struct luahost *h)
{
    if (stop_flagged(h))
        return true;
    if (interrupt_count != h->interrupt_seen)
        h->interrupted = true;
    else if (h->instructions > h->budget)
        h->over_budget = true;
    else if (h->active_depth &&
             h->active_s + (monotonic_s() - h->active_since) > h->time_limit_s)
        h->over_time = true;
    return stop_flagged(h);
}

static void limit_message(const struct luahost *h, const char *where, char *msg, size_t len)
{
    if (h->interrupted)
        snprintf(msg, len, "%sscript interrupted", where);
    else if (h->over_memory)
        snprintf(msg, len, "%smemory cap of %zu MiB exceeded (raise it with --memory)", where,
                 h->mem_cap >> 20);
    else if (h->over_time)
        snprintf(msg, len, "%sscript exceeded its time limit of %g s (raise it with --timeout)",
                 where, h->time_limit_s);
    else
        snprintf(msg, len,
                 "%sinstruction budget of %llu exceeded (an endless loop? raise it with --budget)",
                 where, (unsigned long long)h->budget);
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    struct luahost *h = host_of(L);
    if (!h)
        return;
    if (!stop_flagged(h))
        h->instructions += LUAHOST_HOOK_INTERVAL;
    if (!limits_hit(h))
        return;
    /* Re-arm on every instruction: a pcall that catches this error cannot
     * keep the script alive, the next instruction raises again. */
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    char where[LUA_IDSIZE + 32] = "";
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        snprintf(where, sizeof where, "%s:%d: ", ar->short_src, ar->currentline);
    char msg[256];
    limit_message(h, where, msg, sizeof msg);
    lua_pushstring(L, msg);
    lua_error(L);
}

/* Raise the error of the limit that was hit, at the script's line. */
static int raise_limit(lua_State *L, struct luahost *h)
{
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    if (L != h->L)
        lua_sethook(h->L, budget_hook, LUA_MASKCOUNT, 1);
    luaL_where(L, 1);
    char msg[256];
    limit_message(h, lua_tostring(L, -1), msg, sizeof msg);
    lua_pop(L, 1);
    lua_pushstring(L, msg);
    return lua_error(L);
}

/* Work done in C on behalf of the script: `steps` count against the
 * instruction budget like instructions; every LUAHOST_CHECK_STEPS the clock
 * and the interrupt flag are looked at too. Raises when a limit is hit. */
static void host_charge_steps(lua_State *L, struct luahost *h, uint64_t steps)
{
    h->instructions = steps > UINT64_MAX - h->instructions ? UINT64_MAX : h->instructions + steps;
    h->unchecked_steps += steps;
    if (h->unchecked_steps < LUAHOST_CHECK_STEPS && !stop_flagged(h))
        return;
    h->unchecked_steps = 0;
    if (limits_hit(h))
        raise_limit(L, h);
}

/* Raise if a limit was hit (the clock, the interrupt flag, the budget). */
static void host_check(lua_State *L, struct luahost *h)
{
    h->unchecked_steps = 0;
    if (limits_hit(h))
        raise_limit(L, h);
}

/* The charge function handed to the pattern matcher. */
static void pattern_charge(lua_State *L, unsigned steps)
{
    struct luahost *h = host_of(L);
    if (h)
        host_charge_steps(L, h, steps);
}

/* ---- messages ------------------------------------------------------------------ */

static void copy_msg(char *dst, size_t len, const char *src)
{
    if (len)
        snprintf(dst, len, "%s", src ? src : "(no message)");
}

/* The message handler of every protected call: message + traceback. */
static int msg_handler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* The final text of a failed run: the limits get a clear sentence even when
 * the error surfaced as a bare "not enough memory". */
static void final_message(struct luahost *h, const char *raw, char *err, size_t err_len)
{
    const char *key = h->interrupted  ? "script interrupted"
                      : h->over_memory ? "memory cap"
                      : h->over_time   ? "time limit"
                                       : "instruction budget";
    if (stop_flagged(h) && (!raw || !strstr(raw, key))) {
        char msg[256], where[LUAHOST_PATH_LEN + 4];
        snprintf(where, sizeof where, "%s: ", h->path);
        limit_message(h, where, msg, sizeof msg);
        snprintf(err, err_len, "%s%s%s", msg, raw ? "\n" : "", raw ? raw : "");
        return;
    }
    copy_msg(err, err_len, raw);
}

/* Raise "name: message" at the caller's line. */
static int api_error(lua_State *L, const char *fn, const char *msg)
{
    return luaL_error(L, "%s: %s", fn, msg);
}

/* ---- small helpers ------------------------------------------------------------- */

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A relative path that stays below its base: no leading '/', no ".." part. */
static bool path_is_contained(const char *p)
{
    if (!p[0] || p[0] == '/')
        return false;
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return false;
        if (!e)
            break;
        s = e + 1;
    }
    return true;
}

static void dir_of(const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s", path);
    char *slash = strrchr(buf, '/');
    if (slash == buf)
        buf[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(buf, len, ".");
}

/* Seconds from a number or a duration string ("90s", "15m", "6h", "2d"). */
static double check_duration(lua_State *L, int idx, const char *fn)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        double v = lua_tonumber(L, idx);
        if (!isfinite(v) || v < 0)
            luaL_error(L, "%s: duration must be a finite number of seconds >= 0", fn);
        return v;
    }
    if (lua_type(L, idx) == LUA_TSTRING) {
        double v;
        const char *t = lua_tostring(L, idx);
        if (!fields_parse_duration(t, &v))
            luaL_error(L, "%s: bad duration '%s' (write 90s, 15m, 6h, 2d or seconds)", fn, t);
        if (!isfinite(v)) /* "1e308d" parses, but to infinity */
            luaL_error(L, "%s: duration '%s' is too long", fn, t);
        return v;
    }
    luaL_typeerror(L, idx, "number of seconds or duration string");
    return 0;
}

static int stage_from_value(lua_State *L, int idx, const char *fn)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Integer n = lua_tointeger(L, idx);
        if (n < 1 || n > STAGE_COUNT)
            luaL_error(L, "%s: stage number must be 1-%d", fn, STAGE_COUNT);
        return (int)n - 1;
    }
    const char *name = luaL_checkstring(L, idx);
    int found = stage_find(name);
    if (found >= 0)
        return found;
    const char *names[STAGE_COUNT + 1];
    stage_name_list(names);
    const char *near = fields_suggest_word(name, names, STAGE_COUNT);
    luaL_error(L, "%s: unknown stage '%s'%s%s%s (stages: data, cpus, accelerators, interconnect, "
                  "infrastructure or 1-5)",
               fn, name, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    return 0;
}

/* ---- output -------------------------------------------------------------------- */

static void host_print(struct luahost *h, const char *text)
{
    if (h->describing)
        return; /* discovering parameters: the real run prints */
    if (h->opt.hooks.print) {
        h->opt.hooks.print(h->opt.hooks.ctx, text);
        return;
    }
    fputs(text, stdout);
    fputc('\n', stdout);
}

/* print(...): tab-separated tostring of the arguments, one line. */
static int l_print(lua_State *L)
{
    struct luahost *h = host_of(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    host_print(h, lua_tostring(L, -1));
    return 0;
}

static int l_say(lua_State *L)
{
    struct luahost *h = host_of(L);
    const char *text = luaL_checkstring(L, 1);
    if (h->opt.hooks.say) {
        h->opt.hooks.say(h->opt.hooks.ctx, text);
        return 0;
    }
    lua_pushfstring(L, "  > %s", text);
    host_print(h, lua_tostring(L, -1));
    return 0;
}

static bool can_yield_to_host(struct luahost *h, lua_State *L)
{
    return h->opt.played && h->co && L == h->co && lua_isyieldable(L);
}

/* Played: the view follows the setups a script makes and evaluates until
 * it shows something itself; at each pause the latest one goes on screen. */
static void follow_setup(lua_State *L, const struct setup *s)
{
    struct luahost *h = host_of(L);
    if (!h || !h->opt.played || !h->opt.hooks.show)
        return;
    h->follow = *s;
    h->follow_pending = true;
}

static int l_pause(lua_State *L)
{
    struct luahost *h = host_of(L);
    if (!can_yield_to_host(h, L))
        return 0; /* headless, or inside a callback: nothing to wait for */
    if (h->follow_pending) {
        h->follow_pending = false;
        h->opt.hooks.show(h->opt.hooks.ctx, &h->follow);
    }
    h->yield_kind = LUAHOST_PAUSE;
    return lua_yield(L, 0);
}

static int l_focus(lua_State *L)
{
    struct luahost *h = host_of(L);
    int stage = stage_from_value(L, 1, "focus");
    if (h->opt.hooks.focus)
        h->opt.hooks.focus(h->opt.hooks.ctx, stage);
    return 0;
}


/* The front end keeps drawing the sim at idx after it is handed over: hold
 * its Lua object (until another is handed over, or the host goes). */
static void hold_for_view(lua_State *L, struct luahost *h, int idx)
{
    lua_pushvalue(L, idx);
    luaL_unref(L, LUA_REGISTRYINDEX, h->held_sim_ref);
    h->held_sim_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

/* show(setup_or_sim [, {focus = stage}]): what the play view draws from now
 * on. A sim is handed to the front end like sim:run of no time (outside a
 * callback); headless, show only checks its arguments. */
static int l_show(lua_State *L)
{
    struct luahost *h = host_of(L);
    struct lsim *sim = luaL_testudata(L, 1, SIM_MT);
    struct lsetup *setup = sim ? NULL : luaL_testudata(L, 1, SETUP_MT);
    if (!sim && !setup)
        return luaL_error(L, "show: expected a setup or a sim (got %s)", luaL_typename(L, 1));
    if (sim && (!sim->sim || sim->closed))
        return luaL_error(L, "show: this simulation was closed");
    int stage = -1;
    bool focus = false;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_getfield(L, 2, "focus");
        if (!lua_isnil(L, -1)) {
            stage = stage_from_value(L, lua_gettop(L), "show");
            focus = true;
        }
        lua_pop(L, 1);
    }
    if (!h->opt.played)
        return 0;
    h->follow_pending = false;
    if (focus && h->opt.hooks.focus)
        h->opt.hooks.focus(h->opt.hooks.ctx, stage);
    if (setup) {
        if (h->opt.hooks.show)
            h->opt.hooks.show(h->opt.hooks.ctx, &setup->s);
        return 0;
    }
    if (!can_yield_to_host(h, L) || sim->running)
        return 0; /* inside a callback: the sim is on screen already or soon */
    h->yield_kind = LUAHOST_RUN;
    h->req.sim = sim->sim;
    h->req.duration_s = 0;
    hold_for_view(L, h, 1);
    return lua_yield(L, 0);
}

static int l_mark(lua_State *L)
{
    struct luahost *h = host_of(L);
    const char *label = luaL_checkstring(L, 1);
    if (h->opt.hooks.mark)
        h->opt.hooks.mark(h->opt.hooks.ctx, label);
    return 0;
}

/* ---- setups -------------------------------------------------------------------- */

/* Field paths are strings, never numbers that happen to convert. */
static const char *check_path(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_typeerror(L, idx, "field path string");
    return lua_tostring(L, idx);
}

static struct lsetup *check_setup(lua_State *L, int idx)
{
    return luaL_checkudata(L, idx, SETUP_MT);
}

static struct lsetup *push_setup(lua_State *L, const struct setup *s)
{
    struct lsetup *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->s = *s;
    luaL_setmetatable(L, SETUP_MT);
    follow_setup(L, s);
    return u;
}

/* Store the Lua value at idx into the field at path. */
static void set_field_value(lua_State *L, struct setup *s, const char *path, int idx,
                            const char *fn)
{
    char err[512];
    const struct field *f = fields_find(setup_fields(), path);
    bool ok;
    if (!f) {
        setup_set(s, path, "", err, sizeof err); /* writes the did-you-mean message */
        api_error(L, fn, err);
        return;
    }
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (f->type == FIELD_INT || f->type == FIELD_NUM || f->type == FIELD_NUM_AUTO)
            ok = fields_set_number(f, s, lua_tonumber(L, idx), err, sizeof err);
        else
            ok = fields_set_text(f, s, lua_tostring(L, idx), err, sizeof err);
        break;
    case LUA_TBOOLEAN:
        ok = fields_set_text(f, s, lua_toboolean(L, idx) ? "true" : "false", err, sizeof err);
        break;
    case LUA_TSTRING:
        ok = fields_set_text(f, s, lua_tostring(L, idx), err, sizeof err);
        break;
    default:
        luaL_error(L, "%s: value for '%s' must be a number, string or boolean (got %s)", fn, path,
                   luaL_typename(L, idx));
        return;
    }
    if (!ok)
        luaL_error(L, "%s: %s: %s", fn, path, err);
}

/* Apply a nested (YAML-shaped) or dotted-key table onto a setup. */
static void apply_table(lua_State *L, struct setup *s, int idx, const char *prefix, int depth,
                        const char *fn)
{
    if (depth >= LUAHOST_SETUP_MAX_DEPTH)
        luaL_error(L, "%s: table nested too deeply under '%s' (setup tables have at most %d "
                      "levels)",
                   fn, prefix, LUAHOST_SETUP_MAX_DEPTH);
    luaL_checkstack(L, 4, "setup table"); /* each level holds a key and a value */
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            luaL_error(L, "%s: keys must be field names (got a %s key under '%s')", fn,
                       luaL_typename(L, -2), prefix[0] ? prefix : "the top");
        }
        const char *k = lua_tostring(L, -2);
        char path[256];
        int n = snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", k);
        if (n < 0 || (size_t)n >= sizeof path)
            luaL_error(L, "%s: field path too long under '%s'", fn, prefix[0] ? prefix : "the top");
        if (lua_type(L, -1) == LUA_TTABLE)
            apply_table(L, s, -1, path, depth + 1, fn);
        else if (!(depth == 0 && strcmp(k, "preset") == 0))
            set_field_value(L, s, path, -1, fn);
        lua_pop(L, 1);
    }
}

/* Resolve a setup path or preset name; NULL with a message. */
static bool find_setup_file(struct luahost *h, const char *arg, char *out, size_t len, char *err,
                            size_t err_len)
{
    bool is_path = strchr(arg, '/') || strstr(arg, ".yaml") || strstr(arg, ".yml");
    if (!is_path) {
        snprintf(out, len, "%s/scenarios/presets/%s.yaml", mlviz_data_dir(), arg);
        if (file_exists(out))
            return true;
        snprintf(err, err_len, "no preset '%s' (presets live in %s/scenarios/presets)", arg,
                 mlviz_data_dir());
        return false;
    }
    if (!h->opt.trusted && !path_is_contained(arg)) {
        snprintf(err, err_len, "'%s': the sandbox only reads setup files below the current or "
                               "the script's directory (use --trust to lift it)", arg);
        return false;
    }
    if (file_exists(arg) || arg[0] == '/') {
        snprintf(out, len, "%s", arg);
        return true;
    }
    int w = snprintf(out, len, "%s/%s", h->dir, arg);
    if (w > 0 && (size_t)w < len && file_exists(out))
        return true;
    snprintf(out, len, "%s", arg); /* let the loader name the missing file */
    return true;
}

static const struct catalog *need_catalog(lua_State *L, struct luahost *h, const char *fn)
{
    if (!h->opt.cat)
        luaL_error(L, "%s: no catalog loaded", fn);
    return h->opt.cat;
}

static int l_load(lua_State *L)
{
    struct luahost *h = host_of(L);
    const char *arg = luaL_checkstring(L, 1);
    const struct catalog *cat = need_catalog(L, h, "load");
    char path[LUAHOST_PATH_LEN], err[LUAHOST_MSG_LEN];
    struct setup s;
    if (!find_setup_file(h, arg, path, sizeof path, err, sizeof err))
        return api_error(L, "load", err);
    if (!setup_load_file(&s, path, cat, err, sizeof err))
        return api_error(L, "load", err);
    push_setup(L, &s);
    return 1;
}

static int l_setup(lua_State *L)
{
    struct luahost *h = host_of(L);
    struct setup s;
    luaL_checktype(L, 1, LUA_TTABLE);
    setup_defaults(&s);
    if (lua_getfield(L, 1, "preset") != LUA_TNIL) {
        const char *name = luaL_checkstring(L, -1);
        char path[LUAHOST_PATH_LEN], err[LUAHOST_MSG_LEN];
        if (!find_setup_file(h, name, path, sizeof path, err, sizeof err) ||
            !setup_load_file(&s, path, need_catalog(L, h, "setup"), err, sizeof err))
            return api_error(L, "setup", err);
    }
    lua_pop(L, 1);
    apply_table(L, &s, 1, "", 0, "setup");
    push_setup(L, &s);
    return 1;
}

static void push_field_value(lua_State *L, const struct field *f, const void *obj)
{
    double v;
    switch (f->type) {
    case FIELD_INT:
        lua_pushinteger(L, (lua_Integer)fields_get_number(f, obj));
        return;
    case FIELD_NUM:
    case FIELD_NUM_AUTO:
        v = fields_get_number(f, obj);
        if (f->type == FIELD_NUM_AUTO && v == FIELD_AUTO)
            lua_pushliteral(L, "auto");
        else if ((f->flags & FIELD_NULLABLE) && v == FIELD_ABSENT)
            lua_pushnil(L);
        else
            lua_pushnumber(L, v);
        return;
    case FIELD_BOOL:
        lua_pushboolean(L, fields_get_number(f, obj) != 0);
        return;
    default:
        lua_pushstring(L, fields_get_string(f, obj));
        return;
    }
}

static int setup_get_m(lua_State *L)
{
    struct lsetup *u = check_setup(L, 1);
    const char *path = check_path(L, 2);
    const struct field *f = fields_find(setup_fields(), path);
    if (!f) {
        char buf[8], err[512];
        setup_get(&u->s, path, buf, sizeof buf, err, sizeof err);
        return api_error(L, "get", err);
    }
    push_field_value(L, f, &u->s);
    return 1;
}

static int setup_set_m(lua_State *L)
{
    struct lsetup *u = check_setup(L, 1);
    if (lua_type(L, 2) == LUA_TTABLE) {
        apply_table(L, &u->s, 2, "", 0, "set");
    } else {
        const char *path = check_path(L, 2);
        luaL_checkany(L, 3);
        set_field_value(L, &u->s, path, 3, "set");
    }
    follow_setup(L, &u->s);
    lua_settop(L, 1);
    return 1; /* the setup, for chaining */
}

static int setup_copy_m(lua_State *L)
{
    struct lsetup *u = check_setup(L, 1);
    push_setup(L, &u->s);
    if (lua_type(L, 2) == LUA_TTABLE) {
        struct lsetup *c = lua_touserdata(L, -1);
        apply_table(L, &c->s, 2, "", 0, "copy");
        follow_setup(L, &c->s);
    }
    return 1;
}

/* Report -> Lua table, through the one walk of report_visit. */
enum { TABLE_MAX_NEST = 8 };
struct table_builder {
    lua_State *L;
    const char *keys[TABLE_MAX_NEST];
    lua_Integer count[TABLE_MAX_NEST];
    int depth;
};

static void tb_open(void *ctx, const char *key, int narr)
{
    struct table_builder *b = ctx;
    lua_createtable(b->L, narr, narr ? 0 : 8);
    b->depth++;
    b->keys[b->depth] = key;
    b->count[b->depth] = 0;
}

static void tb_close(void *ctx)
{
    struct table_builder *b = ctx;
    const char *key = b->keys[b->depth];
    b->depth--;
    if (key)
        lua_setfield(b->L, -2, key);
    else
        lua_rawseti(b->L, -2, ++b->count[b->depth]);
}

static void tb_begin(void *ctx, const char *key) { tb_open(ctx, key, 0); }
static void tb_begin_list(void *ctx, const char *key) { tb_open(ctx, key, SUGGESTION_MAX); }

static void tb_set(struct table_builder *b, const char *key)
{
    if (key)
        lua_setfield(b->L, -2, key);
    else
        lua_rawseti(b->L, -2, ++b->count[b->depth]);
}

static void tb_num(void *ctx, const char *key, double v)
{
    struct table_builder *b = ctx;
    if (v == floor(v) && fabs(v) < 9e15)
        lua_pushinteger(b->L, (lua_Integer)v);
    else
        lua_pushnumber(b->L, v);
    tb_set(b, key);
}

static void tb_str(void *ctx, const char *key, const char *v)
{
    struct table_builder *b = ctx;
    lua_pushstring(b->L, v);
    tb_set(b, key);
}

static void tb_bool(void *ctx, const char *key, bool v)
{
    struct table_builder *b = ctx;
    lua_pushboolean(b->L, v);
    tb_set(b, key);
}

static void push_report(lua_State *L, const struct setup *s, const struct resolved *r,
                        const struct model_report *o)
{
    struct table_builder b = {.L = L};
    struct report_visitor v = {&b, tb_begin, tb_close, tb_begin_list, tb_close, tb_num, tb_str,
                               tb_bool};
    luaL_checkstack(L, TABLE_MAX_NEST + 4, "report");
    lua_createtable(L, 0, 32);
    report_visit(s, r, o, &v);
}

/* Values of single report fields, kept in C until they are pushed. */
struct picked {
    int type; /* LUA_TNUMBER, LUA_TSTRING, LUA_TBOOLEAN; LUA_TNONE: not a single value */
    double num;
    const char *str; /* points into the report or setup, alive during the call */
};

static void pk_num(void *ctx, const char *key, double v)
{
    (void)key;
    *(struct picked *)ctx = (struct picked){LUA_TNUMBER, v, NULL};
}
static void pk_str(void *ctx, const char *key, const char *v)
{
    (void)key;
    *(struct picked *)ctx = (struct picked){LUA_TSTRING, 0, v};
}
static void pk_bool(void *ctx, const char *key, bool v)
{
    (void)key;
    *(struct picked *)ctx = (struct picked){LUA_TBOOLEAN, v, NULL};
}
static void pk_nest(void *ctx, const char *key)
{
    (void)key;
    ((struct picked *)ctx)->type = LUA_TNONE; /* a list: not one value */
}
static void pk_none(void *ctx)
{
    (void)ctx;
}

/* The fields named by arguments 2.. (strings, or one array of them), read
 * straight from the report through report_fields: no table, no walk. */
static int push_picked(lua_State *L, const struct setup *s, const struct resolved *r,
                       const struct model_report *o)
{
    enum { PICK_MAX = 64 };
    int top = lua_gettop(L);
    bool array = top == 2 && lua_type(L, 2) == LUA_TTABLE;
    lua_Integer n = array ? (lua_Integer)lua_rawlen(L, 2) : top - 1;
    if (n > PICK_MAX)
        return luaL_error(L, "eval: at most %d result keys", PICK_MAX);
    luaL_checkstack(L, (int)n + 2, "eval");
    for (lua_Integer i = 1; i <= n; i++) {
        int t = array ? lua_rawgeti(L, 2, i) : lua_type(L, (int)i + 1);
        if (t != LUA_TSTRING)
            return luaL_error(L, "eval: result keys must be strings (key %d is a %s)", (int)i,
                              lua_typename(L, t));
        const char *name = lua_tostring(L, array ? -1 : (int)i + 1);
        const struct report_field *f = report_field_find(name);
        struct picked v = {LUA_TNONE, 0, NULL};
        if (f) {
            struct report_visitor vis = {&v, pk_nest, pk_none, pk_nest, pk_none, pk_num, pk_str,
                                         pk_bool};
            report_visit_field(f, s, r, o, &vis);
        }
        if (v.type == LUA_TNONE)
            return luaL_error(L, "eval: no result field '%s' (see setup:eval() for the keys)",
                              name);
        if (array)
            lua_pop(L, 1);
        if (v.type == LUA_TSTRING)
            lua_pushstring(L, v.str);
        else if (v.type == LUA_TBOOLEAN)
            lua_pushboolean(L, v.num != 0);
        else if (v.num == floor(v.num) && fabs(v.num) < 9e15)
            lua_pushinteger(L, (lua_Integer)v.num);
        else
            lua_pushnumber(L, v.num);
    }
    return (int)n;
}

/* setup:eval() -> the whole report table. setup:eval("tokens_per_s",
 * "memory.fits") or setup:eval{"tokens_per_s", "memory.fits"} -> just
 * those values, in that order: no table is built, so a loop that reads two
 * figures pays for the evaluation alone. */
static int setup_eval_m(lua_State *L)
{
    struct luahost *h = host_of(L);
    struct lsetup *u = check_setup(L, 1);
    struct resolved r;
    struct model_report o;
    char err[LUAHOST_MSG_LEN];
    if (!setup_resolve(&u->s, need_catalog(L, h, "eval"), &r, err, sizeof err))
        return api_error(L, "eval", err);
    model_eval(&u->s, &r, &o);
    if (lua_gettop(L) > 1)
        return push_picked(L, &u->s, &r, &o);
    push_report(L, &u->s, &r, &o);
    follow_setup(L, &u->s);
    return 1;
}

static int setup_check_m(lua_State *L)
{
    struct luahost *h = host_of(L);
    struct lsetup *u = check_setup(L, 1);
    struct resolved r;
    char err[LUAHOST_MSG_LEN];
    if (setup_resolve(&u->s, need_catalog(L, h, "check"), &r, err, sizeof err)) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
}

static int setup_yaml_m(lua_State *L)
{
    struct lsetup *u = check_setup(L, 1);
    enum { YAML_BUF = 16384 };
    /* A Lua buffer: counted by the memory cap, and freed even when pushing
     * the result raises. */
    luaL_Buffer b;
    char *buf = luaL_buffinitsize(L, &b, YAML_BUF);
    setup_write_yaml(&u->s, buf, YAML_BUF);
    luaL_pushresultsize(&b, strlen(buf));
    return 1;
}

static int setup_devices_m(lua_State *L)
{
    struct lsetup *u = check_setup(L, 1);
    lua_pushinteger(L, setup_devices(&u->s));
    return 1;
}

static int setup_tostring(lua_State *L)
{
    struct lsetup *u = check_setup(L, 1);
    lua_pushfstring(L, "setup '%s' (%I x %s)", u->s.name, (lua_Integer)setup_devices(&u->s),
                    u->s.cluster.node.accelerator);
    return 1;
}

static const luaL_Reg setup_methods[] = {
    {"get", setup_get_m},     {"set", setup_set_m},   {"copy", setup_copy_m},
    {"eval", setup_eval_m},   {"check", setup_check_m}, {"yaml", setup_yaml_m},
    {"devices", setup_devices_m}, {NULL, NULL},
};

/* __index for userdata: methods, or an error that names the nearest one. */
static int method_index(lua_State *L)
{
    const char *what = lua_tostring(L, lua_upvalueindex(2));
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return 1;
    const char *name = lua_tostring(L, 2);
    if (!name)
        return luaL_error(L, "%s: no field %s", what, luaL_typename(L, 2));
    const char *words[32];
    size_t n = 0;
    lua_pushnil(L);
    while (n < 32 && lua_next(L, lua_upvalueindex(1))) {
        words[n++] = lua_tostring(L, -2);
        lua_pop(L, 1);
    }
    const char *near = fields_suggest_word(name, words, n);
    return luaL_error(L, "%s has no method '%s'%s%s%s", what, name, near ? " (did you mean '" : "",
                      near ? near : "", near ? "'?)" : "");
}

static void new_class(lua_State *L, const char *mt, const luaL_Reg *methods, const char *what,
                      lua_CFunction gc, lua_CFunction tostring)
{
    luaL_newmetatable(L, mt);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushstring(L, what);
    lua_pushcclosure(L, method_index, 2);
    lua_setfield(L, -2, "__index");
    if (gc) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pushcfunction(L, tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

/* ---- simulations --------------------------------------------------------------- */

/* Raise the memory-cap error for C memory the script asked for. */
static int sim_memory_error(lua_State *L, struct luahost *h, size_t bytes, const char *what)
{
    char need[32];
    snprintf(need, sizeof need, "%.1f", (double)bytes / (1 << 20));
    return luaL_error(L, "sim: memory cap of %d MiB exceeded (raise it with --memory): the "
                         "simulation needs %s MiB more for %s",
                      (int)(h->mem_cap >> 20), need, what);
}

/* Bring the sim's charge up to date with what it holds now (its event
 * queue grows as sim:at schedules). */
static void recharge_sim(lua_State *L, struct lsim *u)
{
    size_t now = sim_memory_bytes(u->sim);
    if (now == u->charged_bytes)
        return;
    if (!host_charge(u->h, L, u->charged_bytes, now))
        sim_memory_error(L, u->h, now - u->charged_bytes, "its event queue (sim:at)");
    u->charged_bytes = now;
}

static struct lsim *check_sim(lua_State *L, int idx)
{
    struct lsim *u = luaL_checkudata(L, idx, SIM_MT);
    if (!u->sim || u->closed)
        luaL_error(L, "sim: this simulation was closed");
    recharge_sim(L, u);
    return u;
}

/* sim_callback_fn: call the Lua function registered under callback_id. */
static bool sim_callback(void *ctx, struct sim *sim, int callback_id, char *err, size_t err_len)
{
    (void)sim;
    struct lsim *u = ctx;
    struct luahost *h = u->h;
    /* Run on the thread that called sim:run; when the front end advances a
     * played sim, the script is suspended and the main thread is free. */
    lua_State *L = u->running ? u->running : h->L;
    if (!lua_checkstack(L, 8)) {
        copy_msg(err, err_len, "sim callback: Lua stack exhausted");
        return false;
    }
    int top = lua_gettop(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_sims);
    lua_rawgetp(L, -1, u);              /* the sim userdata */
    if (lua_isnil(L, -1)) {
        lua_settop(L, top);
        copy_msg(err, err_len, "sim callback: the simulation is gone");
        return false;
    }
    lua_getiuservalue(L, -1, 1);         /* callbacks table */
    lua_rawgeti(L, -1, callback_id);
    lua_pushvalue(L, -3);                /* fn(sim) */
    clock_enter(h); /* played: the front end runs the sim between resumes */
    /* Played, the front end is inside sim_run: the callback must not run or
     * close this sim again any more than headless. */
    lua_State *was_running = u->running;
    u->running = L;
    int st = lua_pcall(L, 1, 0, 0);
    u->running = was_running;
    clock_leave(h);
    if (st == LUA_OK) {
        lua_settop(L, top);
        return true;
    }
    /* Keep the error value for sim:run to re-raise with its own position. */
    const char *msg = lua_tostring(L, -1);
    copy_msg(err, err_len, msg ? msg : "error in sim callback");
    lua_rawseti(L, -2, 0);               /* callbacks[0] = error */
    u->has_error = true;
    lua_settop(L, top);
    return false;
}

static int sim_gc(lua_State *L)
{
    struct lsim *u = luaL_checkudata(L, 1, SIM_MT);
    if (u->sim) {
        if (u->h && u->h->req.sim == u->sim)
            u->h->req.sim = NULL;
        sim_free(u->sim);
        u->sim = NULL;
        if (u->h)
            u->h->mem_used -= u->charged_bytes;
        u->charged_bytes = 0;
    }
    return 0;
}

static bool opt_bool(lua_State *L, int t, const char *k, bool dflt)
{
    bool v = dflt;
    int ty = lua_getfield(L, t, k);
    if (ty == LUA_TBOOLEAN)
        v = lua_toboolean(L, -1);
    else if (ty != LUA_TNIL)
        luaL_error(L, "sim: option '%s' must be a boolean (got %s)", k, luaL_typename(L, -1));
    lua_pop(L, 1);
    return v;
}

static double opt_num(lua_State *L, int t, const char *k, double dflt, double lo, double hi)
{
    double v = dflt;
    int ty = lua_getfield(L, t, k);
    if (ty == LUA_TNUMBER)
        v = lua_tonumber(L, -1);
    else if (ty == LUA_TSTRING && (strstr(k, "_s") || strcmp(k, "duration") == 0))
        v = check_duration(L, -1, "sim");
    else if (ty != LUA_TNIL)
        luaL_error(L, "sim: option '%s' must be a number (got %s)", k, luaL_typename(L, -1));
    if (ty != LUA_TNIL && (!(v >= lo) || !(v <= hi)))
        luaL_error(L, "sim: option '%s' must be within %g..%g (got %g)", k, lo, hi, v);
    lua_pop(L, 1);
    return v;
}

static const char *const sim_option_names[] = {
    "seed", "jitter", "failures", "thermal", "tick_s", "sample_interval_s", "series_capacity",
    "compute_jitter_cv", "storage_jitter_cv", NULL,
};

static void check_known_keys(lua_State *L, int t, const char *const *names, const char *fn)
{
    size_t n = 0;
    while (names[n])
        n++;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        bool known = false;
        for (size_t i = 0; k && i < n; i++)
            known = known || strcmp(k, names[i]) == 0;
        if (!known) {
            const char *near = k ? fields_suggest_word(k, names, n) : NULL;
            luaL_error(L, "%s: unknown option '%s'%s%s%s", fn, k ? k : luaL_typename(L, -2),
                       near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        }
        lua_pop(L, 1);
    }
}

/* Upper bounds of sim options, to refuse absurd values with a message. */
#define SIM_MAX_TICK_S 3600.0
#define SIM_MAX_SERIES 10000000.0
#define SIM_MAX_CV 10.0

static int l_sim(lua_State *L)
{
    struct luahost *h = host_of(L);
    struct lsetup *s = check_setup(L, 1);
    const struct catalog *cat = need_catalog(L, h, "sim");
    struct sim_options o;
    sim_default_options(&o);
    o.seed = h->opt.seed;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        check_known_keys(L, 2, sim_option_names, "sim");
        o.seed = (uint64_t)opt_num(L, 2, "seed", (double)o.seed, 0, 9007199254740992.0);
        o.jitter = opt_bool(L, 2, "jitter", o.jitter);
        o.failures = opt_bool(L, 2, "failures", o.failures);
        o.thermal = opt_bool(L, 2, "thermal", o.thermal);
        o.tick_s = opt_num(L, 2, "tick_s", o.tick_s, 1e-6, SIM_MAX_TICK_S);
        o.sample_interval_s =
            opt_num(L, 2, "sample_interval_s", o.sample_interval_s, 1e-6, 1e9);
        o.series_capacity = (size_t)opt_num(L, 2, "series_capacity", (double)o.series_capacity,
                                            2, SIM_MAX_SERIES);
        o.compute_jitter_cv = opt_num(L, 2, "compute_jitter_cv", o.compute_jitter_cv, 0,
                                      SIM_MAX_CV);
        o.storage_jitter_cv = opt_num(L, 2, "storage_jitter_cv", o.storage_jitter_cv, 0,
                                      SIM_MAX_CV);
    }
    char err[LUAHOST_MSG_LEN];
    struct lsim *u = lua_newuserdatauv(L, sizeof *u, 1);
    memset(u, 0, sizeof *u);
    u->h = h;
    u->tick_s = o.tick_s;
    luaL_setmetatable(L, SIM_MT);
    lua_newtable(L);
    lua_setiuservalue(L, -2, 1);
    /* Ask before allocating: the series buffers are the script's memory. */
    size_t need = sim_new_bytes(&o);
    if (!host_charge(h, L, 0, need))
        return sim_memory_error(L, h, need, "its series (series_capacity samples)");
    u->sim = sim_new(&s->s, cat, &o, err, sizeof err);
    if (!u->sim) {
        host_charge(h, L, need, 0);
        return api_error(L, "sim", err);
    }
    u->charged_bytes = need;
    recharge_sim(L, u);
    sim_set_callback(u->sim, sim_callback, u);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_sims);
    lua_pushvalue(L, -2);
    lua_rawsetp(L, -2, u);
    lua_pop(L, 1);
    return 1;
}

static int event_kind_from(lua_State *L, const char *name)
{
    for (int i = 0; i < SIM_EVENT_KIND_COUNT; i++)
        if (sim_event_names[i] && strcmp(name, sim_event_names[i]) == 0 && i != SIM_EVENT_CALLBACK)
            return i;
    const char *near = fields_suggest_word(name, sim_event_names, SIM_EVENT_KIND_COUNT);
    return luaL_error(L, "at: unknown event '%s'%s%s%s", name, near ? " (did you mean '" : "",
                      near ? near : "", near ? "'?)" : "");
}

static const char *const event_keys[] = {"event", "path", "value", NULL};

static int sim_at_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    struct sim_event ev;
    char err[LUAHOST_MSG_LEN];
    memset(&ev, 0, sizeof ev);
    ev.time_s = check_duration(L, 2, "at");
    if (lua_type(L, 3) == LUA_TFUNCTION) {
        ev.kind = SIM_EVENT_CALLBACK;
        ev.callback_id = ++u->next_id;
        lua_getiuservalue(L, 1, 1);
        lua_pushvalue(L, 3);
        lua_rawseti(L, -2, ev.callback_id);
        lua_pop(L, 1);
    } else if (lua_type(L, 3) == LUA_TTABLE) {
        check_known_keys(L, 3, event_keys, "at");
        if (lua_getfield(L, 3, "event") != LUA_TSTRING)
            return luaL_error(L, "at: the event table needs event = \"fail_device\", "
                                 "\"cooling_loss\", \"set\"... (got %s)",
                              luaL_typename(L, -1));
        ev.kind = event_kind_from(L, lua_tostring(L, -1));
        lua_pop(L, 1);
        int vt = lua_getfield(L, 3, "value");
        if (ev.kind == SIM_EVENT_SET) {
            if (lua_getfield(L, 3, "path") != LUA_TSTRING)
                return luaL_error(L, "at: a set event needs path = \"section.field\"");
            const char *path = lua_tostring(L, -1);
            if (!fields_find(setup_fields(), path)) {
                struct setup tmp;
                setup_defaults(&tmp);
                setup_set(&tmp, path, "", err, sizeof err);
                return api_error(L, "at", err);
            }
            snprintf(ev.path, sizeof ev.path, "%s", path);
            lua_pop(L, 1);
            if (vt == LUA_TBOOLEAN)
                snprintf(ev.text, sizeof ev.text, "%s", lua_toboolean(L, -1) ? "true" : "false");
            else if (vt == LUA_TNUMBER || vt == LUA_TSTRING)
                snprintf(ev.text, sizeof ev.text, "%s", lua_tostring(L, -1));
            else
                return luaL_error(L, "at: a set event needs a value (number, string or boolean)");
        } else if (vt == LUA_TNUMBER) {
            ev.value = lua_tonumber(L, -1);
        } else if (vt != LUA_TNIL) {
            return luaL_error(L, "at: event value must be a number (got %s)",
                              luaL_typename(L, -1));
        } else if (ev.kind == SIM_EVENT_COOLING_LOSS) {
            ev.value = 1.0; /* all of the cooling */
        } else if (ev.kind == SIM_EVENT_STORAGE_SLOW) {
            ev.value = 0.5; /* half the bandwidth */
        }
        lua_pop(L, 1);
    } else {
        return luaL_typeerror(L, 3, "function or event table");
    }
    if (!sim_schedule(u->sim, &ev, err, sizeof err))
        return api_error(L, "at", err);
    lua_settop(L, 1);
    return 1;
}

/* After the front end advanced a played sim: re-raise a callback's error. */
static int raise_callback_error(lua_State *L, struct lsim *u, int sim_idx, const char *err)
{
    if (!u->has_error)
        return luaL_error(L, "run: %s", err);
    u->has_error = false;
    lua_getiuservalue(L, sim_idx, 1);
    lua_rawgeti(L, -1, 0);
    lua_pushnil(L);
    lua_rawseti(L, -3, 0);
    if (lua_type(L, -1) == LUA_TSTRING)
        lua_pushfstring(L, "%s (in an event callback of sim:run)", lua_tostring(L, -1));
    return lua_error(L);
}

static int sim_run_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status, (void)ctx;
    struct luahost *h = host_of(L);
    struct lsim *u = check_sim(L, 1);
    h->req.sim = NULL;
    if (u->has_error)
        return raise_callback_error(L, u, 1, "");
    lua_settop(L, 1);
    return 1;
}

static int sim_run_m(lua_State *L)
{
    struct luahost *h = host_of(L);
    struct lsim *u = check_sim(L, 1);
    double d = check_duration(L, 2, "run");
    char err[LUAHOST_MSG_LEN];
    if (u->running)
        return luaL_error(L, "run: this simulation is already running (sim:run inside its own "
                             "event callback)");
    double ticks = floor(d / u->tick_s + 0.5);
    if (ticks > LUAHOST_MAX_SIM_TICKS) {
        char msg[160];
        snprintf(msg, sizeof msg, "%g s in ticks of %g s is more than one run may take (2^53 "
                 "ticks)", d, u->tick_s);
        return api_error(L, "run", msg);
    }
    if (can_yield_to_host(h, L)) {
        h->follow_pending = false; /* the view shows this sim */
        h->yield_kind = LUAHOST_RUN;
        h->req.sim = u->sim;
        h->req.duration_s = d;
        lua_settop(L, 1);
        hold_for_view(L, h, 1);
        return lua_yieldk(L, 0, 0, sim_run_k);
    }
    /* The step loop runs in C where the count hook cannot fire: advance in
     * slices and look at the limits between them. */
    uint64_t left = (uint64_t)ticks;
    while (left > 0) {
        uint64_t n = left < LUAHOST_SIM_SLICE_TICKS ? left : LUAHOST_SIM_SLICE_TICKS;
        u->running = L;
        bool ok = sim_run(u->sim, (double)n * u->tick_s, err, sizeof err);
        u->running = NULL;
        if (!ok)
            return raise_callback_error(L, u, 1, err);
        left -= n;
        struct sim_counters c;
        sim_counters(u->sim, &c);
        if (c.stopped)
            break;
        host_check(L, h); /* ticks are not instructions: a long run is legitimate */
    }
    lua_settop(L, 1);
    return 1;
}

static int sim_set_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    const char *path = luaL_checkstring(L, 2);
    char text[FIELD_STR_LEN], err[LUAHOST_MSG_LEN];
    switch (lua_type(L, 3)) {
    case LUA_TBOOLEAN:
        snprintf(text, sizeof text, "%s", lua_toboolean(L, 3) ? "true" : "false");
        break;
    case LUA_TNUMBER:
    case LUA_TSTRING:
        snprintf(text, sizeof text, "%s", lua_tostring(L, 3));
        break;
    default:
        return luaL_typeerror(L, 3, "number, string or boolean");
    }
    if (!sim_set(u->sim, path, text, err, sizeof err))
        return api_error(L, "set", err);
    lua_settop(L, 1);
    return 1;
}

#define COUNTER_NUM(name) (lua_pushnumber(L, (double)c.name), lua_setfield(L, -2, #name))
#define COUNTER_INT(name) (lua_pushinteger(L, (lua_Integer)c.name), lua_setfield(L, -2, #name))

static int sim_counters_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    struct sim_counters c;
    sim_counters(u->sim, &c);
    lua_createtable(L, 0, 24);
    COUNTER_NUM(time_s);
    COUNTER_INT(ticks);
    COUNTER_INT(steps);
    COUNTER_INT(useful_steps);
    COUNTER_NUM(tokens);
    COUNTER_INT(failures);
    COUNTER_INT(device_failures);
    COUNTER_INT(node_failures);
    COUNTER_INT(restarts);
    COUNTER_INT(checkpoints);
    COUNTER_NUM(lost_s);
    COUNTER_NUM(starved_s);
    COUNTER_NUM(throttled_s);
    COUNTER_NUM(checkpoint_s);
    COUNTER_NUM(energy_j);
    COUNTER_NUM(max_rack_temp_c);
    lua_pushboolean(L, c.stopped);
    lua_setfield(L, -2, "stopped");
    const char *names[3] = {"items_in", "items_out", "items_inside"};
    const double *arrays[3] = {c.items_in, c.items_out, c.items_inside};
    for (int k = 0; k < 3; k++) {
        lua_createtable(L, 0, STAGE_COUNT);
        for (int i = 0; i < STAGE_COUNT; i++) {
            lua_pushnumber(L, arrays[k][i]);
            lua_setfield(L, -2, stage_table[i].name);
        }
        lua_setfield(L, -2, names[k]);
    }
    return 1;
}

static int sim_series_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    const char *name = luaL_checkstring(L, 2);
    int id = sim_series_find(name);
    if (id < 0) {
        const char *near = fields_suggest_word(name, sim_series_names, SERIES_COUNT);
        return luaL_error(L, "series: unknown series '%s'%s%s%s", name,
                          near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    }
    size_t n = sim_series_len(u->sim);
    host_charge_steps(L, host_of(L), n); /* up to series_capacity (1e7) values per call */
    lua_createtable(L, (int)(n < INT32_MAX ? n : 0), 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, sim_series_at(u->sim, (enum sim_series_id)id, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int sim_report_m(lua_State *L)
{
    struct luahost *h = host_of(L);
    struct lsim *u = check_sim(L, 1);
    const struct setup *s = sim_setup(u->sim);
    struct resolved r;
    char err[LUAHOST_MSG_LEN];
    if (!setup_resolve(s, need_catalog(L, h, "report"), &r, err, sizeof err))
        return api_error(L, "report", err);
    push_report(L, s, &r, sim_report(u->sim));
    return 1;
}

static int sim_setup_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    push_setup(L, sim_setup(u->sim));
    return 1;
}

static int sim_time_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    struct sim_counters c;
    sim_counters(u->sim, &c);
    lua_pushnumber(L, c.time_s);
    return 1;
}

static int sim_close_m(lua_State *L)
{
    struct lsim *u = luaL_checkudata(L, 1, SIM_MT);
    struct luahost *h = host_of(L);
    if (u->running)
        return luaL_error(L, "close: this simulation is running (sim:close inside its own event "
                             "callback)");
    if (h->held_sim_ref != LUA_NOREF) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->held_sim_ref);
        bool shown = lua_touserdata(L, -1) == u;
        lua_pop(L, 1);
        if (shown) { /* the front end still draws it: freed when let go */
            u->closed = true;
            return 0;
        }
    }
    return sim_gc(L);
}

static int sim_tostring(lua_State *L)
{
    struct lsim *u = luaL_checkudata(L, 1, SIM_MT);
    if (!u->sim) {
        lua_pushliteral(L, "sim (closed)");
        return 1;
    }
    struct sim_counters c;
    sim_counters(u->sim, &c);
    lua_pushfstring(L, "sim of '%s' at t=%f s", sim_setup(u->sim)->name, c.time_s);
    return 1;
}

static const luaL_Reg sim_methods[] = {
    {"at", sim_at_m},         {"run", sim_run_m},     {"set", sim_set_m},
    {"counters", sim_counters_m}, {"series", sim_series_m}, {"report", sim_report_m},
    {"setup", sim_setup_m},   {"time", sim_time_m},   {"close", sim_close_m},
    {NULL, NULL},
};

/* ---- sweeps -------------------------------------------------------------------- */

enum { SWEEP_MAX_AXES = 8, SWEEP_MAX_PICKS = 48, SWEEP_MAX_ORDINAL = 512 };

struct sweep_pick {
    char section[32];
    char leaf[64];
    char name[100]; /* dotted key of the row */
};

struct sweep_ctx {
    lua_State *L;
    struct sweep_pick picks[SWEEP_MAX_PICKS];
    int n_picks;
    /* The walk has one fixed order outside lists: learn each pick's ordinal
     * on the first walk, then match by counting. */
    signed char by_ordinal[SWEEP_MAX_ORDINAL];
    bool learned;
    int ordinal;
    int list_depth;
    const char *section;
    int nest;
    int found;
};

static int sweep_match(struct sweep_ctx *x, const char *key)
{
    if (x->list_depth)
        return -1;
    int ord = x->ordinal++;
    if (x->learned)
        return ord < SWEEP_MAX_ORDINAL ? x->by_ordinal[ord] : -1;
    const char *sec = x->nest ? x->section : "";
    for (int i = 0; i < x->n_picks; i++)
        if (strcmp(x->picks[i].leaf, key) == 0 && strcmp(x->picks[i].section, sec) == 0) {
            if (ord < SWEEP_MAX_ORDINAL)
                x->by_ordinal[ord] = (signed char)i;
            x->found++;
            return i;
        }
    return -1;
}

static void sw_begin(void *ctx, const char *key)
{
    struct sweep_ctx *x = ctx;
    if (x->list_depth) {
        x->list_depth++;
        return;
    }
    x->nest++;
    x->section = key;
}
static void sw_end(void *ctx)
{
    struct sweep_ctx *x = ctx;
    if (x->list_depth) {
        x->list_depth--;
        return;
    }
    x->nest--;
}
static void sw_begin_list(void *ctx, const char *key)
{
    (void)key;
    struct sweep_ctx *x = ctx;
    x->list_depth++;
}
static void sw_end_list(void *ctx)
{
    struct sweep_ctx *x = ctx;
    x->list_depth--;
}
static void sw_num(void *ctx, const char *key, double v)
{
    struct sweep_ctx *x = ctx;
    int i = sweep_match(x, key);
    if (i < 0)
        return;
    if (v == floor(v) && fabs(v) < 9e15)
        lua_pushinteger(x->L, (lua_Integer)v);
    else
        lua_pushnumber(x->L, v);
    lua_setfield(x->L, -2, x->picks[i].name);
}
static void sw_str(void *ctx, const char *key, const char *v)
{
    struct sweep_ctx *x = ctx;
    int i = sweep_match(x, key);
    if (i < 0)
        return;
    lua_pushstring(x->L, v);
    lua_setfield(x->L, -2, x->picks[i].name);
}
static void sw_bool(void *ctx, const char *key, bool v)
{
    struct sweep_ctx *x = ctx;
    int i = sweep_match(x, key);
    if (i < 0)
        return;
    lua_pushboolean(x->L, v);
    lua_setfield(x->L, -2, x->picks[i].name);
}

static void add_pick(lua_State *L, struct sweep_ctx *x, const char *name)
{
    if (x->n_picks >= SWEEP_MAX_PICKS)
        luaL_error(L, "sweep: at most %d result fields", SWEEP_MAX_PICKS);
    struct sweep_pick *p = &x->picks[x->n_picks++];
    const char *dot = strchr(name, '.');
    if (strlen(name) >= sizeof p->name || (dot && strchr(dot + 1, '.')) ||
        (dot && (size_t)(dot - name) >= sizeof p->section))
        luaL_error(L, "sweep: bad result field '%s' (write 'mfu' or 'memory.per_device_gb')",
                   name);
    snprintf(p->name, sizeof p->name, "%s", name);
    if (dot) {
        snprintf(p->section, sizeof p->section, "%.*s", (int)(dot - name), name);
        snprintf(p->leaf, sizeof p->leaf, "%s", dot + 1);
    } else {
        p->section[0] = '\0';
        snprintf(p->leaf, sizeof p->leaf, "%s", name);
    }
}

struct sweep_axis {
    const struct field *f;
    int values_idx; /* stack index of the values array */
    lua_Integer n;
};

static const char *const sweep_option_names[] = {"fields", NULL};

/* mlviz.sweep(setup, axes [, opts]) -> rows. The loop runs in C: one copy,
 * one set per axis, one resolve and one evaluation per combination. */
/* Pushes an array of the string keys of the table at `tbl`, sorted, and
 * returns how many; *others counts the keys that are not strings. */
static lua_Integer push_sorted_string_keys(lua_State *L, int tbl, lua_Integer *others)
{
    tbl = lua_absindex(L, tbl);
    lua_newtable(L);
    int keys = lua_gettop(L);
    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, tbl)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) {
            lua_pushvalue(L, -1);
            lua_rawseti(L, keys, ++n);
        } else {
            (*others)++;
        }
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_table_sort);
    lua_pushvalue(L, keys);
    lua_call(L, 1, 0);
    return n;
}

static int l_sweep(lua_State *L)
{
    struct luahost *h = host_of(L);
    lua_settop(L, 3); /* the work area below starts at a fixed index */
    struct lsetup *base = check_setup(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const struct catalog *cat = need_catalog(L, h, "sweep");
    struct sweep_ctx *x = lua_newuserdatauv(L, sizeof *x, 0); /* freed by the GC */
    memset(x, 0, sizeof *x);
    memset(x->by_ordinal, -1, sizeof x->by_ordinal);
    x->L = L;
    int x_idx = lua_gettop(L);
    (void)x_idx;

    /* Axes: an array of {path, values} (in order) or a map path -> values. */
    struct sweep_axis axes[SWEEP_MAX_AXES];
    int n_axes = 0;
    lua_newtable(L); /* columns */
    int cols = lua_gettop(L);
    lua_Integer ncols = 0;
    /* Count the axes before anything is pushed for them or stored in axes[]. */
    lua_Integer n_given = (lua_Integer)lua_rawlen(L, 2);
    if (n_given == 0) {
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            lua_pop(L, 1);
            if (++n_given > SWEEP_MAX_AXES) {
                lua_pop(L, 1);
                break;
            }
        }
    }
    if (n_given > SWEEP_MAX_AXES)
        return luaL_error(L, "sweep: at most %d axes", SWEEP_MAX_AXES);
    luaL_checkstack(L, 2 * SWEEP_MAX_AXES + 16, "sweep");
    if (lua_rawlen(L, 2) > 0) {
        for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 2); i++) {
            if (lua_rawgeti(L, 2, i) != LUA_TTABLE)
                return luaL_error(L, "sweep: axis %d must be {path, {values...}}", (int)i);
            lua_rawgeti(L, -1, 1);
            lua_rawgeti(L, -2, 2);
            if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TTABLE)
                return luaL_error(L, "sweep: axis %d must be {path, {values...}}", (int)i);
            lua_remove(L, -3);
        }
    } else {
        /* Map form: sorted by path so the order is reproducible. */
        lua_Integer others = 0;
        lua_Integer nk = push_sorted_string_keys(L, 2, &others);
        int keys = lua_gettop(L);
        if (others > 0)
            return luaL_error(L, "sweep: axes map field paths to arrays of values");
        for (lua_Integer i = 1; i <= nk && i <= SWEEP_MAX_AXES; i++) {
            lua_rawgeti(L, keys, i);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, 2) != LUA_TTABLE)
                return luaL_error(L, "sweep: axes map field paths to arrays of values");
        }
        lua_remove(L, keys);
    }
    /* Stack now: ... cols, (path, values) pairs. */
    int first = cols + 1;
    n_axes = (lua_gettop(L) - cols) / 2;
    if (n_axes > SWEEP_MAX_AXES)
        return luaL_error(L, "sweep: at most %d axes", SWEEP_MAX_AXES);
    lua_Integer total = 1;
    for (int a = 0; a < n_axes; a++) {
        const char *path = lua_tostring(L, first + 2 * a);
        axes[a].f = fields_find(setup_fields(), path);
        if (!axes[a].f) {
            char err[512];
            struct setup tmp = base->s;
            setup_set(&tmp, path, "", err, sizeof err);
            return api_error(L, "sweep", err);
        }
        axes[a].values_idx = first + 2 * a + 1;
        axes[a].n = (lua_Integer)lua_rawlen(L, axes[a].values_idx);
        if (axes[a].n == 0)
            return luaL_error(L, "sweep: no values for '%s'", path);
        if (axes[a].n > LUAHOST_MAX_SWEEP_ROWS / total)
            return luaL_error(L, "sweep: too many combinations (more than %d; sweep fewer "
                                 "values or split the sweep)",
                              LUAHOST_MAX_SWEEP_ROWS);
        total *= axes[a].n;
        lua_pushvalue(L, first + 2 * a);
        lua_rawseti(L, cols, ++ncols);
    }

    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        check_known_keys(L, 3, sweep_option_names, "sweep");
        if (lua_getfield(L, 3, "fields") == LUA_TTABLE) {
            for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, -1); i++) {
                lua_rawgeti(L, -1, i);
                const char *nm = lua_tostring(L, -1);
                if (lua_type(L, -1) != LUA_TSTRING)
                    return luaL_error(L, "sweep: fields must be strings");
                add_pick(L, x, nm);
                lua_pop(L, 1);
            }
        } else if (!lua_isnil(L, -1)) {
            return luaL_error(L, "sweep: fields must be an array of result keys");
        }
        lua_pop(L, 1);
    }
    if (x->n_picks == 0)
        for (int i = 0; default_sweep_fields[i]; i++)
            add_pick(L, x, default_sweep_fields[i]);
    for (int i = 0; i < x->n_picks; i++) {
        lua_pushstring(L, x->picks[i].name);
        lua_rawseti(L, cols, ++ncols);
    }

    lua_createtable(L, (int)(total < INT32_MAX ? total : 0), 1);
    int rows = lua_gettop(L);
    struct report_visitor v = {x, sw_begin, sw_end, sw_begin_list, sw_end_list, sw_num, sw_str,
                               sw_bool};
    lua_Integer index[SWEEP_MAX_AXES] = {0};
    char err[LUAHOST_MSG_LEN];
    struct setup s;
    struct resolved r;
    struct model_report o;
    for (lua_Integer row = 1; row <= total; row++) {
        host_charge_steps(L, h, LUAHOST_SWEEP_ROW_COST);
        s = base->s;
        lua_createtable(L, 0, n_axes + x->n_picks);
        for (int a = 0; a < n_axes; a++) {
            lua_rawgeti(L, axes[a].values_idx, index[a] + 1);
            const struct field *f = axes[a].f;
            bool ok;
            if (lua_type(L, -1) == LUA_TNUMBER &&
                (f->type == FIELD_INT || f->type == FIELD_NUM || f->type == FIELD_NUM_AUTO))
                ok = fields_set_number(f, &s, lua_tonumber(L, -1), err, sizeof err);
            else if (lua_type(L, -1) == LUA_TBOOLEAN)
                ok = fields_set_text(f, &s, lua_toboolean(L, -1) ? "true" : "false", err,
                                     sizeof err);
            else if (lua_type(L, -1) == LUA_TNUMBER || lua_type(L, -1) == LUA_TSTRING)
                ok = fields_set_text(f, &s, lua_tostring(L, -1), err, sizeof err);
            else
                return luaL_error(L, "sweep: values for '%s' must be numbers, strings or "
                                     "booleans",
                                  f->path);
            if (!ok)
                return luaL_error(L, "sweep: %s: %s", f->path, err);
            lua_setfield(L, -2, f->path);
        }
        if (setup_resolve(&s, cat, &r, err, sizeof err)) {
            model_eval(&s, &r, &o);
            x->ordinal = 0;
            x->nest = 0;
            x->list_depth = 0;
            report_visit(&s, &r, &o, &v);
            x->learned = x->learned || x->found == x->n_picks;
            if (!x->learned && row == 1 && x->found < x->n_picks) {
                for (int i = 0; i < x->n_picks; i++) {
                    bool seen = false;
                    for (int k = 0; k < SWEEP_MAX_ORDINAL; k++)
                        seen = seen || x->by_ordinal[k] == i;
                    if (!seen)
                        return luaL_error(L, "sweep: no result field '%s' (see setup:eval() for "
                                             "the keys)",
                                          x->picks[i].name);
                }
            }
        } else {
            lua_pushboolean(L, 0);
            lua_setfield(L, -2, "runnable");
            lua_pushstring(L, err);
            lua_setfield(L, -2, "error");
        }
        lua_rawseti(L, rows, row);
        /* Odometer: the last axis turns fastest. */
        for (int a = n_axes - 1; a >= 0; a--) {
            if (++index[a] < axes[a].n)
                break;
            index[a] = 0;
        }
    }
    lua_pushvalue(L, cols);
    lua_setfield(L, rows, "columns");
    return 1;
}

/* ---- mlviz.plan ------------------------------------------------------------------- */

/* Scripts search at most this many candidates (a few seconds); larger
 * spaces belong to `mlviz plan` and its shards. */
#define PLAN_SCRIPT_MAX_CANDIDATES (UINT64_C(1) << 26)
#define PLAN_MT "mlviz.plan_work"

/* The search's memory: a userdata the GC frees (with the front the engine
 * allocates), so an error anywhere leaks nothing. */
struct plan_work {
    struct plan_spec spec;
    struct plan_space space;
    struct plan_result result;
};

static int plan_work_gc(lua_State *L)
{
    struct plan_work *w = luaL_checkudata(L, 1, PLAN_MT);
    plan_result_free(&w->result);
    return 0;
}

/* Budget charged per full evaluation of a candidate (a few microseconds,
 * a few hundred Lua instructions), and per candidate cut without one. */
#define PLAN_EVAL_COST 200
#define PLAN_CUT_PER_STEP 64

struct plan_watch {
    struct luahost *h;
    struct plan_progress *progress;
};

/* Called on the script's thread while the search runs: the time limit and
 * an interrupt stop the workers (the error is raised once they are done). */
static void plan_limit_check(void *ctx, const struct plan_progress *p)
{
    (void)p;
    struct plan_watch *w = ctx;
    if (limits_hit(w->h))
        __atomic_store_n(&w->progress->cancel, 1, __ATOMIC_RELAXED);
}

static const char *const plan_option_names[] = {"vary", "max", "objective", "top", "threads",
                                                NULL};

/* opts.vary: an array of "path=values" strings, or a map path -> "values"
 * or path -> {values...}. */
static void plan_read_vary(lua_State *L, int t, struct plan_spec *spec)
{
    char arg[PLAN_ARG_LEN], err[LUAHOST_MSG_LEN];
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    if (n > 0) {
        for (lua_Integer i = 1; i <= n; i++) {
            if (lua_rawgeti(L, t, i) != LUA_TSTRING)
                luaL_error(L, "plan: vary[%d] must be a string 'path=a,b,c'", (int)i);
            if (!plan_spec_vary(spec, lua_tostring(L, -1), err, sizeof err))
                api_error(L, "plan", err);
            lua_pop(L, 1);
        }
        return;
    }
    lua_Integer others = 0;
    lua_Integer nk = push_sorted_string_keys(L, t, &others);
    int keys = lua_gettop(L);
    if (others > 0)
        luaL_error(L, "plan: vary maps field paths to values");
    for (lua_Integer i = 1; i <= nk; i++) {
        lua_rawgeti(L, keys, i);
        const char *path = lua_tostring(L, -1);
        int vt = lua_rawget(L, t) == LUA_TTABLE ? 1 : 0;
        size_t used = (size_t)snprintf(arg, sizeof arg, "%s=", path);
        if (!vt) {
            if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
                luaL_error(L, "plan: vary['%s'] must be a string, a number or an array", path);
            used += (size_t)snprintf(arg + used, used < sizeof arg ? sizeof arg - used : 0, "%s",
                                     lua_tostring(L, -1));
        } else {
            lua_Integer nv = (lua_Integer)lua_rawlen(L, -1);
            for (lua_Integer k = 1; k <= nv && used < sizeof arg; k++) {
                lua_rawgeti(L, -1, k);
                const char *v = lua_type(L, -1) == LUA_TBOOLEAN
                                    ? (lua_toboolean(L, -1) ? "true" : "false")
                                    : lua_tostring(L, -1);
                if (!v || strchr(v, ','))
                    luaL_error(L, "plan: vary['%s'][%d] must be a number, string or boolean",
                               path, (int)k);
                used += (size_t)snprintf(arg + used, sizeof arg - used, "%s%s", k > 1 ? "," : "",
                                         v);
                lua_pop(L, 1);
            }
        }
        if (used >= sizeof arg)
            luaL_error(L, "plan: vary['%s'] is too long", path);
        if (!plan_spec_vary(spec, arg, err, sizeof err))
            api_error(L, "plan", err);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void plan_read_options(lua_State *L, int opts, struct plan_spec *spec)
{
    char err[LUAHOST_MSG_LEN], arg[PLAN_ARG_LEN];
    check_known_keys(L, opts, plan_option_names, "plan");
    if (lua_getfield(L, opts, "vary") == LUA_TTABLE)
        plan_read_vary(L, lua_gettop(L), spec);
    else if (!lua_isnil(L, -1))
        luaL_error(L, "plan: vary must be a table");
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "max") == LUA_TTABLE) {
        lua_Integer others = 0;
        lua_Integer nk = push_sorted_string_keys(L, -1, &others);
        if (others > 0)
            luaL_error(L, "plan: max maps figure names to numbers");
        for (lua_Integer i = 1; i <= nk; i++) {
            lua_rawgeti(L, -1, i);
            const char *name = lua_tostring(L, -1);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, -4) != LUA_TNUMBER)
                luaL_error(L, "plan: max['%s'] must be a number", name);
            snprintf(arg, sizeof arg, "%s=%.17g", name, lua_tonumber(L, -1));
            if (!plan_spec_max(spec, arg, err, sizeof err))
                api_error(L, "plan", err);
            lua_pop(L, 2);
        }
        lua_pop(L, 1);
    } else if (!lua_isnil(L, -1)) {
        luaL_error(L, "plan: max must be a table of figure = limit");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "objective") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING ||
            !plan_spec_objective(spec, lua_tostring(L, -1), err, sizeof err))
            luaL_error(L, "plan: objective must be tokens_per_s, days, usd_total, energy_mwh or "
                          "mfu");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "top") != LUA_TNIL) {
        lua_Integer n = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        if (n < 1 || n > PLAN_TOP_MAX)
            luaL_error(L, "plan: top must be a whole number from 1 to %d", PLAN_TOP_MAX);
        spec->top = (int)n;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "threads") != LUA_TNIL) {
        lua_Integer n = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        if (n < 1 || n > 64)
            luaL_error(L, "plan: threads must be a whole number from 1 to 64");
        spec->threads = (int)n;
    }
    lua_pop(L, 1);
}

/* One ranked configuration: its figures, its changes and its setup. */
static void push_plan_entry(lua_State *L, const struct plan_space *sp, const struct plan_entry *e,
                            long long rank, bool with_setup)
{
    lua_createtable(L, 0, PLAN_FIGURE_COUNT + 3);
    if (rank > 0) {
        lua_pushinteger(L, rank);
        lua_setfield(L, -2, "rank");
    }
    for (int f = 0; f < PLAN_FIGURE_COUNT; f++) {
        lua_pushnumber(L, e->fig[f]);
        lua_setfield(L, -2, plan_figure_names[f]);
    }
    if (!with_setup)
        return;
    struct setup s;
    plan_space_setup(sp, e->index, &s);
    int dims[PLAN_DIMS_MAX];
    int n = plan_space_changed(sp, &s, dims);
    lua_createtable(L, 0, n);
    for (int i = 0; i < n; i++) {
        const struct field *f = sp->dims[dims[i]].field;
        push_field_value(L, f, &s);
        lua_setfield(L, -2, f->path);
    }
    lua_setfield(L, -2, "changes");
    push_setup(L, &s);
    lua_setfield(L, -2, "setup");
}

/* mlviz.plan(setup, {vary=, max=, objective=, top=, threads=}) -> {top, front,
 * base, candidates, evaluated, runnable}: the search of `mlviz plan`. */
static int l_plan(lua_State *L)
{
    struct luahost *h = host_of(L);
    struct lsetup *base = check_setup(L, 1);
    const struct catalog *cat = need_catalog(L, h, "plan");
    lua_settop(L, 2);
    struct plan_work *w = lua_newuserdatauv(L, sizeof *w, 0);
    memset(w, 0, sizeof *w);
    if (luaL_newmetatable(L, PLAN_MT)) {
        lua_pushcfunction(L, plan_work_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    plan_spec_init(&w->spec);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    w->spec.threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
    if (!lua_isnil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        plan_read_options(L, 2, &w->spec);
    }
    char err[LUAHOST_MSG_LEN];
    struct resolved r;
    if (!setup_resolve(&base->s, cat, &r, err, sizeof err))
        return api_error(L, "plan", err);
    if (!plan_space_build(&w->space, &base->s, &w->spec, cat, err, sizeof err))
        return api_error(L, "plan", err);
    if (w->space.candidates > PLAN_SCRIPT_MAX_CANDIDATES) {
        snprintf(err, sizeof err,
                 "%llu candidates are more than a script may search (%llu); narrow vary or use "
                 "mlviz plan",
                 (unsigned long long)w->space.candidates,
                 (unsigned long long)PLAN_SCRIPT_MAX_CANDIDATES);
        return api_error(L, "plan", err);
    }
    host_check(L, h);
    struct plan_progress progress = {0};
    struct plan_watch watch = {h, &progress};
    bool ok = plan_run(&w->space, cat, &w->spec, &w->result, &progress, plan_limit_check,
                       &watch, err, sizeof err);
    if (!ok)
        return api_error(L, "plan", err);
    if (w->result.cancelled)
        host_check(L, h); /* raises the limit that stopped it */
    host_charge_steps(L, h,
                      w->result.counts.evaluated * PLAN_EVAL_COST +
                          w->result.counts.candidates / PLAN_CUT_PER_STEP);
    const struct plan_result *res = &w->result;
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, (lua_Integer)res->counts.candidates);
    lua_setfield(L, -2, "candidates");
    lua_pushinteger(L, (lua_Integer)res->counts.evaluated);
    lua_setfield(L, -2, "evaluated");
    lua_pushinteger(L, (lua_Integer)res->counts.runnable);
    lua_setfield(L, -2, "runnable");
    lua_pushstring(L, plan_figure_names[w->spec.objective]);
    lua_setfield(L, -2, "objective");
    lua_createtable(L, res->n_top, 0);
    for (int i = 0; i < res->n_top; i++) {
        push_plan_entry(L, &w->space, &res->top[i], i + 1, true);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "top");
    /* The front, fastest first (ties by candidate number). */
    struct plan_entry *front = w->result.front;
    for (size_t i = 1; i < res->n_front; i++)
        for (size_t j = i; j > 0 && (front[j].fig[PLAN_DAYS] < front[j - 1].fig[PLAN_DAYS] ||
                                     (front[j].fig[PLAN_DAYS] == front[j - 1].fig[PLAN_DAYS] &&
                                      front[j].index < front[j - 1].index));
             j--) {
            struct plan_entry tmp = front[j];
            front[j] = front[j - 1];
            front[j - 1] = tmp;
        }
    lua_createtable(L, (int)(res->n_front < 100000 ? res->n_front : 0), 0);
    for (size_t i = 0; i < res->n_front; i++) {
        push_plan_entry(L, &w->space, &res->front[i], 0, true);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "front");
    push_plan_entry(L, &w->space, &res->base, 0, false);
    lua_pushboolean(L, res->base_runnable);
    lua_setfield(L, -2, "runnable");
    if (res->base_runnable) {
        lua_pushinteger(L, (lua_Integer)res->counts.better_than_base + 1);
        lua_setfield(L, -2, "rank");
    }
    lua_setfield(L, -2, "base");
    return 1;
}

/* ---- tables, CSV and JSON -------------------------------------------------------- */

/* A cell as text: integers plainly, other numbers with 4 significant digits. */
static void cell_text(lua_State *L, int idx, char *buf, size_t len)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        snprintf(buf, len, "-");
        return;
    case LUA_TBOOLEAN:
        snprintf(buf, len, "%s", lua_toboolean(L, idx) ? "yes" : "no");
        return;
    case LUA_TNUMBER: {
        double v = lua_tonumber(L, idx);
        if (v == 0)
            v = 0.0; /* never "-0" */
        if (!isfinite(v))
            snprintf(buf, len, "-");
        else if (lua_isinteger(L, idx) || (v == floor(v) && fabs(v) < 1e15))
            snprintf(buf, len, "%.0f", v);
        else if (fabs(v) >= 1e15 || (fabs(v) < 1e-3 && v != 0))
            snprintf(buf, len, "%.3e", v);
        else if (fabs(v) >= 1000)
            snprintf(buf, len, "%.0f", v);
        else
            snprintf(buf, len, "%.4g", v);
        return;
    }
    case LUA_TSTRING:
        snprintf(buf, len, "%s", lua_tostring(L, idx));
        return;
    default:
        snprintf(buf, len, "<%s>", luaL_typename(L, idx));
        return;
    }
}

/* Columns: opts.columns, rows.columns, or the sorted keys of the first row. */
static int push_columns(lua_State *L, int rows, int opts)
{
    if (opts && lua_type(L, opts) == LUA_TTABLE && lua_getfield(L, opts, "columns") == LUA_TTABLE)
        return lua_gettop(L);
    if (opts && lua_type(L, opts) == LUA_TTABLE)
        lua_pop(L, 1);
    if (lua_getfield(L, rows, "columns") == LUA_TTABLE)
        return lua_gettop(L);
    lua_pop(L, 1);
    if (lua_rawgeti(L, rows, 1) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        return lua_gettop(L);
    }
    lua_Integer others = 0;
    push_sorted_string_keys(L, lua_gettop(L), &others);
    lua_remove(L, -2); /* the first row */
    return lua_gettop(L);
}

static void check_rows(lua_State *L, int idx, const char *fn)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "%s: rows must be an array of tables (got %s)", fn, luaL_typename(L, idx));
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, idx, i) != LUA_TTABLE)
            luaL_error(L, "%s: row %d is a %s, not a table", fn, (int)i, luaL_typename(L, -1));
        lua_pop(L, 1);
    }
}

enum { CELL_LEN = 64, TABLE_MAX_COLS = 64 };

/* mlviz.print_table(rows [, {columns = {...}, title = "..."}]) */
static int l_print_table(lua_State *L)
{
    struct luahost *h = host_of(L);
    check_rows(L, 1, "print_table");
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    int cols = push_columns(L, 1, lua_isnoneornil(L, 2) ? 0 : 2);
    int nc = (int)lua_rawlen(L, cols);
    if (nc > TABLE_MAX_COLS)
        nc = TABLE_MAX_COLS;
    lua_Integer nr = (lua_Integer)lua_rawlen(L, 1);
    size_t width[TABLE_MAX_COLS];
    char cell[CELL_LEN];
    for (int c = 0; c < nc; c++) {
        lua_rawgeti(L, cols, c + 1);
        width[c] = strlen(luaL_tolstring(L, -1, NULL));
        lua_pop(L, 2);
    }
    for (lua_Integer r = 1; r <= nr; r++) {
        lua_rawgeti(L, 1, r);
        for (int c = 0; c < nc; c++) {
            lua_rawgeti(L, cols, c + 1);
            lua_rawget(L, -2);
            cell_text(L, -1, cell, sizeof cell);
            if (strlen(cell) > width[c])
                width[c] = strlen(cell);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (!lua_isnoneornil(L, 2) && lua_getfield(L, 2, "title") == LUA_TSTRING)
        host_print(h, lua_tostring(L, -1));
    luaL_Buffer b;
    /* Header, then rows; text left-aligned, numbers right-aligned. */
    for (lua_Integer r = 0; r <= nr; r++) {
        /* The row goes below the buffer: a luaL_Buffer owns the stack top
         * once it grows past its first block. */
        if (r > 0)
            lua_rawgeti(L, 1, r);
        else
            lua_pushnil(L);
        int row = lua_gettop(L);
        luaL_buffinit(L, &b);
        for (int c = 0; c < nc; c++) {
            lua_rawgeti(L, cols, c + 1);
            bool num = false;
            if (r == 0) {
                snprintf(cell, sizeof cell, "%s", luaL_tolstring(L, -1, NULL));
                lua_pop(L, 2);
            } else {
                lua_rawget(L, row);
                num = lua_type(L, -1) == LUA_TNUMBER;
                cell_text(L, -1, cell, sizeof cell);
                lua_pop(L, 1);
            }
            char padded[CELL_LEN + TABLE_MAX_COLS * 2];
            int w = (int)(width[c] < CELL_LEN ? width[c] : CELL_LEN);
            snprintf(padded, sizeof padded, num ? "%*s" : "%-*s", w, cell);
            if (c > 0)
                luaL_addstring(&b, "  ");
            if (c == nc - 1 && !num) { /* no trailing blanks */
                size_t l = strlen(padded);
                while (l > 0 && padded[l - 1] == ' ')
                    padded[--l] = '\0';
            }
            luaL_addstring(&b, padded);
        }
        luaL_pushresult(&b);
        host_print(h, lua_tostring(L, -1));
        lua_settop(L, row - 1);
    }
    return 0;
}

/* The body of a write runs protected, writing to the temporary file given as
 * a light userdata; any error (a value that cannot be written, the memory
 * cap, ...) reaches write_output, which removes the temporary file. Errors
 * are raised as bare messages: write_output adds the script's position. */
static int write_output(lua_State *L, const char *fn, const char *ext, lua_CFunction body,
                        int value_idx, int cols_idx)
{
    struct luahost *h = host_of(L);
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    char err[LUAHOST_MSG_LEN];
    if (h->describing) {
        /* Discovering parameters runs the script's top once more: write
         * nothing now, the real run writes. */
        if (!h->opt.trusted && !lua_output_check_name(name, len, ext, err, sizeof err))
            return luaL_error(L, "%s: %s", fn, err);
        lua_pushstring(L, name);
        return 1;
    }
    struct lua_output_file file;
    if (!lua_output_begin(&h->out, name, len, ext, &file, err, sizeof err))
        return luaL_error(L, "%s: %s", fn, err);
    lua_pushcfunction(L, body);
    lua_pushvalue(L, value_idx);
    if (cols_idx)
        lua_pushvalue(L, cols_idx);
    else
        lua_pushnil(L);
    lua_pushlightuserdata(L, file.f);
    if (lua_pcall(L, 3, 0, 0) != LUA_OK) {
        lua_output_abort(&file);
        if (h->over_memory || h->over_budget || lua_type(L, -1) != LUA_TSTRING)
            return lua_error(L);
        return luaL_error(L, "%s: %s (nothing was written)", fn, lua_tostring(L, -1));
    }
    if (!lua_output_commit(&file, err, sizeof err))
        return luaL_error(L, "%s: %s", fn, err);
    lua_pushstring(L, file.path);
    return 1;
}

/* write_output body: rows (1), columns (2), FILE (3). */
static int csv_body(lua_State *L)
{
    FILE *f = lua_touserdata(L, 3);
    char cell[CELL_LEN];
    int nc = (int)lua_rawlen(L, 2);
    for (int c = 0; c < nc; c++) {
        lua_rawgeti(L, 2, c + 1);
        if (c)
            fputc(',', f);
        csv_write_field(f, lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?");
        lua_pop(L, 1);
    }
    fputc('\n', f);
    lua_Integer nr = (lua_Integer)lua_rawlen(L, 1);
    for (lua_Integer r = 1; r <= nr; r++) {
        lua_rawgeti(L, 1, r);
        for (int c = 0; c < nc; c++) {
            lua_rawgeti(L, 2, c + 1);
            lua_rawget(L, -2);
            const char *text = cell;
            int t = lua_type(L, -1);
            if (t == LUA_TNUMBER && !lua_isinteger(L, -1)) {
                double v = lua_tonumber(L, -1);
                if (!isfinite(v))
                    return luaL_error(L, "row %d: %s is not a finite number", (int)r,
                                      lua_tostring(L, -1));
                snprintf(cell, sizeof cell, "%.10g", v == 0 ? 0.0 : v);
            } else if (t == LUA_TBOOLEAN) {
                snprintf(cell, sizeof cell, "%s", lua_toboolean(L, -1) ? "true" : "false");
            } else if (t == LUA_TNIL) {
                cell[0] = '\0';
            } else if (t == LUA_TNUMBER || t == LUA_TSTRING) {
                text = lua_tostring(L, -1); /* strings whole, however long */
            } else {
                snprintf(cell, sizeof cell, "<%s>", luaL_typename(L, -1));
            }
            if (c)
                fputc(',', f);
            csv_write_field(f, text);
            lua_pop(L, 1);
        }
        fputc('\n', f);
        lua_pop(L, 1);
    }
    return 0;
}

/* mlviz.write_csv(name, rows [, {columns = {...}}]) -> path */
static int l_write_csv(lua_State *L)
{
    luaL_checkstring(L, 1);
    check_rows(L, 2, "write_csv");
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    int cols = push_columns(L, 2, lua_isnoneornil(L, 3) ? 0 : 3);
    return write_output(L, "write_csv", ".csv", csv_body, 2, cols);
}

/* Lua value -> JSON. Arrays are tables with keys 1..n; other tables become
 * objects with sorted keys. Errors are reported in err (a memory error may
 * still raise: callers run it protected). */
static bool json_value(lua_State *L, int idx, struct json_writer *w, const char *key, int depth,
                       char *err, size_t err_len)
{
    idx = lua_absindex(L, idx);
    if (depth > LUAHOST_MAX_DEPTH) {
        snprintf(err, err_len, "value nested too deeply (a cycle?)");
        return false;
    }
    if (!lua_checkstack(L, 6)) {
        snprintf(err, err_len, "stack exhausted");
        return false;
    }
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        json_key_num(w, key, NAN); /* written as null */
        return true;
    case LUA_TBOOLEAN:
        json_key_bool(w, key, lua_toboolean(L, idx));
        return true;
    case LUA_TNUMBER: {
        double v = lua_tonumber(L, idx);
        json_key_num(w, key, v == 0 ? 0.0 : v); /* never "-0" */
        return true;
    }
    case LUA_TSTRING:
        json_key_str(w, key, lua_tostring(L, idx));
        return true;
    case LUA_TTABLE:
        break;
    default:
        snprintf(err, err_len, "cannot write a %s as JSON", luaL_typename(L, idx));
        return false;
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    lua_Integer count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        count++;
        lua_pop(L, 1);
    }
    bool is_array = count == n && n > 0; /* {} is written as an object */
    if (is_array) {
        json_open(w, key, true);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, i);
            bool ok = json_value(L, -1, w, NULL, depth + 1, err, err_len);
            lua_pop(L, 1);
            if (!ok)
                return false;
        }
        json_close(w, true);
        return true;
    }
    /* Sorted string keys (numbers are written as strings). */
    lua_createtable(L, (int)(count < INT32_MAX ? count : 0), 0);
    int keys = lua_gettop(L);
    lua_Integer k = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) {
            lua_pop(L, 2);
            snprintf(err, err_len, "JSON object keys must be strings or numbers");
            return false;
        }
        lua_pushvalue(L, -1);
        lua_pushstring(L, lua_tostring(L, -1)); /* string form of the key */
        lua_remove(L, -2);
        lua_rawseti(L, keys, ++k);
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_table_sort);
    lua_pushvalue(L, keys);
    lua_call(L, 1, 0); /* string keys: no metamethod, no error but memory */
    json_open(w, key, false);
    for (lua_Integer i = 1; i <= k; i++) {
        lua_rawgeti(L, keys, i);
        const char *ks = lua_tostring(L, -1);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, idx) == LUA_TNIL) { /* the key was a number */
            lua_pop(L, 1);
            lua_Number num = lua_tonumber(L, -1);
            lua_pushnumber(L, num);
            if (lua_isinteger(L, -2) || num == floor(num))
                lua_pushinteger(L, (lua_Integer)num), lua_remove(L, -2);
            lua_rawget(L, idx);
        }
        bool ok = json_value(L, -1, w, ks, depth + 1, err, err_len);
        lua_pop(L, 2);
        if (!ok) {
            lua_pop(L, 1);
            return false;
        }
    }
    json_close(w, false);
    lua_pop(L, 1);
    return true;
}

/* write_output body: value (1), nil (2), FILE (3). */
static int json_body(lua_State *L)
{
    char err[512] = "";
    struct json_writer w;
    memset(&w, 0, sizeof w);
    w.out = lua_touserdata(L, 3);
    w.pretty = true;
    if (!json_value(L, 1, &w, NULL, 0, err, sizeof err))
        return luaL_error(L, "%s", err[0] ? err : "cannot write the value");
    fputc('\n', w.out);
    return 0;
}

/* mlviz.write_json(name, value) -> path */
static int l_write_json(lua_State *L)
{
    luaL_checkstring(L, 1);
    luaL_checkany(L, 2);
    return write_output(L, "write_json", ".json", json_body, 2, 0);
}

/* ---- the catalog, read-only ------------------------------------------------------ */

/* Read-only proxy: upvalues (1) the real table, (2) a noun for messages,
 * (3) an array of keys in display order, (4) the catalog kind or -1. */
static int ro_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return 1;
    const char *what = lua_tostring(L, lua_upvalueindex(2));
    const char *k = lua_tostring(L, 2);
    if (!k)
        return luaL_error(L, "%s: no entry %s", what, luaL_typename(L, 2));
    int kind = (int)lua_tointeger(L, lua_upvalueindex(4));
    if (kind >= 0 && fields_find(catalog_fields((enum catalog_kind)kind), k))
        return 0; /* a known field the entry does not have (no fp8, say): nil */
    const char *words[256];
    size_t n = 0;
    lua_Integer len = (lua_Integer)lua_rawlen(L, lua_upvalueindex(3));
    for (lua_Integer i = 1; i <= len && n < 256; i++) {
        lua_rawgeti(L, lua_upvalueindex(3), i);
        words[n++] = lua_tostring(L, -1);
        lua_pop(L, 1); /* the array keeps the string alive */
    }
    const char *near = fields_suggest_word(k, words, n);
    return luaL_error(L, "%s has no '%s'%s%s%s", what, k, near ? " (did you mean '" : "",
                      near ? near : "", near ? "'?)" : "");
}

static int ro_newindex(lua_State *L)
{
    const char *what = lua_tostring(L, lua_upvalueindex(2));
    return luaL_error(L, "%s is read-only", what);
}

static int ro_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, lua_upvalueindex(3)));
    return 1;
}

/* Ordered iteration: the iterator keeps its position in an upvalue. */
static int ro_next(lua_State *L)
{
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(3)) + 1;
    lua_pushinteger(L, i);
    lua_replace(L, lua_upvalueindex(3));
    if (lua_rawgeti(L, lua_upvalueindex(2), i) == LUA_TNIL)
        return 1;
    lua_pushvalue(L, -1);
    lua_rawget(L, lua_upvalueindex(1));
    return 2;
}

static int ro_pairs(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, lua_upvalueindex(3));
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, ro_next, 3);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* Turn [real table, order array] on the stack top into a proxy. */
static void make_proxy(lua_State *L, const char *what, int kind)
{
    int order = lua_gettop(L);
    int real = order - 1;
    lua_newtable(L); /* proxy */
    lua_createtable(L, 0, 6);
    const lua_CFunction fns[4] = {ro_index, ro_newindex, ro_len, ro_pairs};
    const char *names[4] = {"__index", "__newindex", "__len", "__pairs"};
    for (int i = 0; i < 4; i++) {
        lua_pushvalue(L, real);
        lua_pushstring(L, what);
        lua_pushvalue(L, order);
        lua_pushinteger(L, kind);
        lua_pushcclosure(L, fns[i], 4);
        lua_setfield(L, -2, names[i]);
    }
    lua_pushliteral(L, "read-only");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_replace(L, real);
    lua_pop(L, 1);
}

static void push_catalog(lua_State *L, const struct catalog *cat)
{
    lua_newtable(L); /* kinds */
    lua_newtable(L); /* kind order */
    for (int k = 0; k < CATALOG_KIND_COUNT; k++) {
        const struct field_table *t = catalog_fields((enum catalog_kind)k);
        size_t n = cat ? catalog_count(cat, (enum catalog_kind)k) : 0;
        lua_createtable(L, 0, (int)n); /* id -> entry */
        lua_createtable(L, (int)n, 0); /* ids in catalog order */
        for (size_t i = 0; i < n; i++) {
            const void *e = catalog_entry(cat, (enum catalog_kind)k, i);
            lua_createtable(L, 0, (int)t->count);
            lua_createtable(L, (int)t->count, 0);
            lua_Integer nf = 0;
            for (size_t j = 0; j < t->count; j++) {
                const struct field *f = &t->fields[j];
                push_field_value(L, f, e);
                if (lua_isnil(L, -1)) {
                    lua_pop(L, 1);
                    continue;
                }
                lua_setfield(L, -3, f->path);
                lua_pushstring(L, f->path);
                lua_rawseti(L, -2, ++nf);
            }
            const struct catalog_head *hd = e;
            char what[FIELD_STR_LEN * 2];
            snprintf(what, sizeof what, "catalog %s '%s'", catalog_kind_singular[k], hd->id);
            make_proxy(L, what, k);
            lua_setfield(L, -3, hd->id);
            lua_pushstring(L, hd->id);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        char what[64];
        snprintf(what, sizeof what, "mlviz.catalog.%s", catalog_kind_names[k]);
        make_proxy(L, what, -1);
        lua_setfield(L, -3, catalog_kind_names[k]);
        lua_pushstring(L, catalog_kind_names[k]);
        lua_rawseti(L, -2, k + 1);
    }
    make_proxy(L, "mlviz.catalog", -1);
}

/* ---- parameters --------------------------------------------------------------- */

static const char *param_type_of(lua_State *L, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        return "number";
    case LUA_TBOOLEAN:
        return "boolean";
    case LUA_TSTRING:
        return "string";
    default:
        return NULL;
    }
}

/* Convert a command-line text to the type of the default; pushes it. */
static bool push_param_text(lua_State *L, const char *type, const char *text)
{
    if (strcmp(type, "number") == 0)
        return lua_stringtonumber(L, text) != 0;
    if (strcmp(type, "boolean") == 0) {
        if (!strcmp(text, "true") || !strcmp(text, "yes") || !strcmp(text, "1") ||
            !strcmp(text, "on"))
            lua_pushboolean(L, 1);
        else if (!strcmp(text, "false") || !strcmp(text, "no") || !strcmp(text, "0") ||
                 !strcmp(text, "off"))
            lua_pushboolean(L, 0);
        else
            return false;
        return true;
    }
    lua_pushstring(L, text);
    return true;
}

static int params_index(lua_State *L)
{
    return luaL_error(L, "params: no parameter '%s' was declared", luaL_tolstring(L, 2, NULL));
}

static void record_param(struct luahost *h, const char *name, const char *type, lua_State *L,
                         int def_idx, const char *help)
{
    if (h->n_params >= LUAHOST_MAX_PARAMS)
        return;
    struct luahost_param *p = &h->params[h->n_params++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->type, sizeof p->type, "%s", type);
    snprintf(p->default_text, sizeof p->default_text, "%s", luaL_tolstring(L, def_idx, NULL));
    lua_pop(L, 1);
    snprintf(p->help, sizeof p->help, "%s", help);
}

/* mlviz.params{ {"nodes", 64, "help"}, {name=, default=, help=} ... } -> values */
static int l_params(lua_State *L)
{
    struct luahost *h = host_of(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_newtable(L);
    int values = lua_gettop(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_overrides);
    int over = lua_gettop(L);
    h->n_params = 0;
    lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 1, i) != LUA_TTABLE)
            return luaL_error(L, "params: entry %d must be {name, default, help}", (int)i);
        int e = lua_gettop(L);
        if (lua_getfield(L, e, "name") == LUA_TNIL) {
            lua_pop(L, 1);
            lua_rawgeti(L, e, 1);
        }
        if (lua_getfield(L, e, "default") == LUA_TNIL) {
            lua_pop(L, 1);
            lua_rawgeti(L, e, 2);
        }
        if (lua_getfield(L, e, "help") == LUA_TNIL) {
            lua_pop(L, 1);
            lua_rawgeti(L, e, 3);
        }
        const char *name = lua_tostring(L, e + 1);
        const char *type = param_type_of(L, e + 2);
        const char *help = lua_type(L, e + 3) == LUA_TSTRING ? lua_tostring(L, e + 3) : "";
        if (lua_type(L, e + 1) != LUA_TSTRING || !name[0])
            return luaL_error(L, "params: entry %d needs a name", (int)i);
        if (!type)
            return luaL_error(L, "params: '%s' needs a default (number, string or boolean)",
                              name);
        if (strlen(name) >= FIELD_STR_LEN)
            return luaL_error(L, "params: name '%s' is too long", name);
        record_param(h, name, type, L, e + 2, help);
        /* The command line wins over the default. */
        if (lua_getfield(L, over, name) == LUA_TSTRING) {
            const char *text = lua_tostring(L, -1);
            if (!push_param_text(L, type, text))
                return luaL_error(L, "params: --%s expects a %s (got '%s')", name, type, text);
            lua_setfield(L, values, name);
        } else {
            lua_pushvalue(L, e + 2);
            lua_setfield(L, values, name);
        }
        lua_settop(L, over);
    }
    if (h->describing) {
        lua_pushlightuserdata(L, (void *)&key_describe_stop);
        return lua_error(L); /* all we wanted to know */
    }
    /* Reading an undeclared parameter is a typo: say so. */
    lua_newtable(L);
    lua_pushcfunction(L, params_index);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, values);
    lua_pushvalue(L, values);
    return 1;
}

/* ---- small utilities exposed to scripts -------------------------------------------- */

static int l_parse_duration(lua_State *L)
{
    lua_pushnumber(L, check_duration(L, 1, "parse_duration"));
    return 1;
}

static int l_format_duration(lua_State *L)
{
    char buf[64];
    format_duration(buf, sizeof buf, luaL_checknumber(L, 1));
    lua_pushstring(L, buf);
    return 1;
}

static int l_format_si(lua_State *L)
{
    char buf[64];
    format_si(buf, sizeof buf, luaL_checknumber(L, 1), luaL_optstring(L, 2, ""));
    lua_pushstring(L, buf);
    return 1;
}

/* mlviz.fields() -> array of {path, type, unit, default, help, min, max, knob, stage} */
static int l_fields(lua_State *L)
{
    const struct field_table *t = setup_fields();
    struct setup d;
    setup_defaults(&d);
    lua_createtable(L, (int)t->count, 0);
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        char buf[256];
        lua_createtable(L, 0, 10);
        lua_pushstring(L, f->path);
        lua_setfield(L, -2, "path");
        fields_describe_type(f, buf, sizeof buf);
        lua_pushstring(L, buf);
        lua_setfield(L, -2, "type");
        lua_pushstring(L, f->unit ? f->unit : "");
        lua_setfield(L, -2, "unit");
        push_field_value(L, f, &d);
        lua_setfield(L, -2, "default");
        lua_pushstring(L, f->help ? f->help : "");
        lua_setfield(L, -2, "help");
        if (f->type == FIELD_INT || f->type == FIELD_NUM || f->type == FIELD_NUM_AUTO) {
            lua_pushnumber(L, f->min);
            lua_setfield(L, -2, "min");
            lua_pushnumber(L, f->max);
            lua_setfield(L, -2, "max");
        }
        lua_pushboolean(L, (f->flags & FIELD_KNOB) != 0);
        lua_setfield(L, -2, "knob");
        lua_pushinteger(L, f->stage);
        lua_setfield(L, -2, "stage");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static const char *const collective_keys[] = {
    "devices", "per_node", "intra_bw_gbs", "intra_lat_s", "inter_bw_gbs", "inter_lat_s", NULL,
};

/* mlviz.collective(op, algo, bytes, net) -> seconds, algorithm used */
static int l_collective(lua_State *L)
{
    const char *op = luaL_checkstring(L, 1);
    const char *algo = luaL_checkstring(L, 2);
    double bytes = luaL_checknumber(L, 3);
    luaL_checktype(L, 4, LUA_TTABLE);
    int opi = -1, algi = -1;
    for (int i = 0; collective_op_names[i]; i++)
        if (strcmp(op, collective_op_names[i]) == 0)
            opi = i;
    for (int i = 0; allreduce_names[i]; i++)
        if (strcmp(algo, allreduce_names[i]) == 0)
            algi = i;
    if (opi < 0)
        return luaL_error(L, "collective: unknown operation '%s' (all-reduce, all-gather, "
                             "reduce-scatter, broadcast)",
                          op);
    if (algi < 0)
        return luaL_error(L, "collective: unknown algorithm '%s' (auto, ring, tree, "
                             "hierarchical)",
                          algo);
    if (!(bytes >= 0) || !isfinite(bytes))
        return luaL_error(L, "collective: bytes must be a finite number >= 0");
    check_known_keys(L, 4, collective_keys, "collective");
    struct collective_net net = {0};
    net.devices = (int)opt_num(L, 4, "devices", 8, 1, 1e8);
    net.per_node = (int)opt_num(L, 4, "per_node", net.devices < 8 ? net.devices : 8, 1, 1e8);
    if (net.per_node > net.devices)
        net.per_node = net.devices;
    /* Defaults: NVLink-4 class inside a node, one 400G port per device outside. */
    net.intra_bw_gbs = opt_num(L, 4, "intra_bw_gbs", 360, 1e-9, 1e9);
    net.intra_lat_s = opt_num(L, 4, "intra_lat_s", 2e-6, 0, 10);
    net.inter_bw_gbs = opt_num(L, 4, "inter_bw_gbs", 45, 1e-9, 1e9);
    net.inter_lat_s = opt_num(L, 4, "inter_lat_s", 5e-6, 0, 10);
    int used = algi;
    double t = collective_time((enum collective_op)opi, algi, bytes, &net, &used);
    lua_pushnumber(L, t);
    lua_pushstring(L, used >= 0 && used < 4 ? allreduce_names[used] : "?");
    return 2;
}

static void push_name_list(lua_State *L, const char *const *names, int n)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n && names[i]; i++) {
        lua_pushstring(L, names[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

static const luaL_Reg mlviz_funcs[] = {
    {"load", l_load},
    {"setup", l_setup},
    {"sim", l_sim},
    {"sweep", l_sweep},
    {"plan", l_plan},
    {"print_table", l_print_table},
    {"write_csv", l_write_csv},
    {"write_json", l_write_json},
    {"params", l_params},
    {"fields", l_fields},
    {"collective", l_collective},
    {"parse_duration", l_parse_duration},
    {"format_duration", l_format_duration},
    {"format_si", l_format_si},
    {NULL, NULL},
};

static void push_mlviz(lua_State *L, struct luahost *h)
{
    luaL_newlib(L, mlviz_funcs);
    push_catalog(L, h->opt.cat);
    lua_setfield(L, -2, "catalog");
    const char *stage_list[STAGE_COUNT + 1];
    stage_name_list(stage_list);
    push_name_list(L, stage_list, STAGE_COUNT);
    lua_setfield(L, -2, "stages");
    push_name_list(L, sim_series_names, SERIES_COUNT);
    lua_setfield(L, -2, "series_names");
    push_name_list(L, sim_event_names, SIM_EVENT_KIND_COUNT);
    lua_setfield(L, -2, "event_names");
    lua_pushboolean(L, h->opt.played);
    lua_setfield(L, -2, "played");
    lua_pushinteger(L, (lua_Integer)h->opt.seed);
    lua_setfield(L, -2, "seed");
    lua_pushboolean(L, h->opt.trusted);
    lua_setfield(L, -2, "trusted");
#ifdef MLVIZ_VERSION
    lua_pushliteral(L, MLVIZ_VERSION);
#else
    lua_pushliteral(L, "dev");
#endif
    lua_setfield(L, -2, "version");
}

/* ---- the sandbox --------------------------------------------------------------- */

/* Loading text only, into the script's environment unless one is given. */
static int l_safe_load(lua_State *L)
{
    struct luahost *h = host_of(L);
    int t = lua_type(L, 1);
    if (t != LUA_TSTRING && t != LUA_TFUNCTION)
        return luaL_typeerror(L, 1, "string or function");
    const char *mode = luaL_optstring(L, 3, "t");
    if (strchr(mode, 'b') && !h->opt.trusted)
        return luaL_error(L, "load: binary chunks are not allowed in the sandbox");
    bool env_given = lua_gettop(L) >= 4;
    lua_settop(L, 4);
    lua_getglobal(L, "load"); /* the real one, outside the sandbox */
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushliteral(L, "t");
    if (env_given)
        lua_pushvalue(L, 4);
    else
        lua_rawgetp(L, LUA_REGISTRYINDEX, &key_env);
    lua_call(L, 4, 2);
    return 2;
}

/* string.rep(s, n [, sep]) with the copying charged; an empty result is
 * built at once (the library would loop n times to make ""). */
static int l_string_rep(lua_State *L)
{
    size_t len, sep_len;
    const char *text = luaL_checklstring(L, 1, &len);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &sep_len);
    if (n <= 0 || len + sep_len == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    size_t unit = len + sep_len;
    if (unit < len || unit > (size_t)INT64_MAX / (size_t)n)
        return luaL_error(L, "resulting string too large");
    size_t total = (size_t)n * len + (size_t)(n - 1) * sep_len;
    host_charge_steps(L, host_of(L), total / 64 + (uint64_t)n / 8);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, total);
    for (lua_Integer i = 0; i < n; i++) {
        memcpy(out, text, len);
        out += len;
        if (i + 1 < n && sep_len) {
            memcpy(out, sep, sep_len);
            out += sep_len;
        }
    }
    luaL_pushresultsize(&b, total);
    return 1;
}

/* Call the library function in upvalue 1 with this call's arguments. */
static int call_original(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* A plain table (no metatable) whose length can be read without running
 * script code: only those are checked and charged before the call; others
 * go to the library as they are (their metamethods run under the hook). */
static bool plain_table(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return false;
    if (!lua_getmetatable(L, idx))
        return true;
    lua_pop(L, 1);
    return false;
}

/* table.move(a1, f, e, t [, a2]): the library loops e - f + 1 times in C,
 * even over an empty table. The argument checks are the library's, made
 * here so their errors name the script's line. */
static int l_table_move(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TTABLE && !lua_getmetatable(L, 1))
        luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, lua_gettop(L) < 5 ? lua_gettop(L) : 5);
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    if (e >= f) {
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        lua_Integer n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        host_charge_steps(L, host_of(L), (uint64_t)n);
    }
    return call_original(L);
}

/* table.insert(t, pos, v) and table.remove(t, pos) shift the elements
 * after pos in C: charge the shift. Checks as the library's. */
static int l_table_insert(lua_State *L)
{
    if (plain_table(L, 1)) {
        lua_Integer end = (lua_Integer)lua_rawlen(L, 1) + 1;
        if (lua_gettop(L) == 3) {
            lua_Integer pos = luaL_checkinteger(L, 2);
            luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)end, 2,
                          "position out of bounds");
            host_charge_steps(L, host_of(L), (uint64_t)(end - pos));
        } else if (lua_gettop(L) != 2) {
            return luaL_error(L, "wrong number of arguments to 'insert'");
        }
    }
    return call_original(L);
}

static int l_table_remove(lua_State *L)
{
    if (plain_table(L, 1)) {
        lua_Integer size = (lua_Integer)lua_rawlen(L, 1);
        lua_Integer pos = luaL_optinteger(L, 2, size);
        if (pos != size)
            luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2,
                          "position out of bounds");
        if (pos < size)
            host_charge_steps(L, host_of(L), (uint64_t)(size - pos));
    }
    return call_original(L);
}

static int l_collectgarbage(lua_State *L)
{
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") == 0) {
        lua_pushnumber(L, lua_gc(L, LUA_GCCOUNT, 0) + lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
        return 1;
    }
    if (strcmp(opt, "collect") == 0 || strcmp(opt, "step") == 0) {
        lua_gc(L, LUA_GCCOLLECT);
        lua_pushinteger(L, 0);
        return 1;
    }
    return luaL_error(L, "collectgarbage: only \"count\" and \"collect\" in the sandbox");
}

/* math.randomseed: deterministic; no argument means the run's seed. */
static int l_randomseed(lua_State *L)
{
    struct luahost *h = host_of(L);
    lua_Integer seed = lua_isnoneornil(L, 1) ? (lua_Integer)h->opt.seed : luaL_checkinteger(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_randomseed);
    lua_pushinteger(L, seed);
    lua_call(L, 1, 0);
    return 0;
}

/* require(name): modules from the script's directory, then scripts/.
 * Loaded once per host, run in the script's environment. */
/* Loads a text chunk from a file the way luaL_loadfilex does (chunk name
 * "@path", a first line starting with '#' skipped), but through infile_read:
 * a FIFO, a device or a directory is refused at once instead of blocking,
 * and the size is capped. On failure the message is on the stack. */
static int load_script_file(lua_State *L, const char *path)
{
    char *text = NULL, err[LUAHOST_PATH_LEN + 128];
    size_t len = 0;
    if (!infile_read(path, &text, &len, err, sizeof err)) {
        lua_pushfstring(L, "cannot read %s", err);
        return LUA_ERRFILE;
    }
    const char *chunk = text;
    if (len > 0 && text[0] == '#') { /* a shebang: keep its newline for line numbers */
        const char *nl = memchr(text, '\n', len);
        chunk = nl ? nl : text + len;
    }
    lua_pushfstring(L, "@%s", path);
    int st = luaL_loadbufferx(L, chunk, len - (size_t)(chunk - text), lua_tostring(L, -1), "t");
    lua_remove(L, -2); /* the chunk name */
    free(text);
    return st;
}

static int l_require(lua_State *L)
{
    struct luahost *h = host_of(L);
    const char *name = luaL_checkstring(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_loaded);
    if (lua_getfield(L, -1, name) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    if (strcmp(name, "mlviz") == 0) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &key_api);
        lua_getfield(L, -1, "mlviz");
        return 1;
    }
    char rel[256];
    size_t len = strlen(name);
    if (len == 0 || len >= sizeof rel - 8)
        return luaL_error(L, "require: bad module name '%s'", name);
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return luaL_error(L, "require: bad module name '%s' (letters, digits, _ - and .)",
                              name);
        rel[i] = c == '.' ? '/' : c;
    }
    rel[len] = '\0';
    char path[LUAHOST_PATH_LEN * 2];
    const char *dirs[2] = {h->dir, h->scripts_dir};
    bool found = false;
    for (int i = 0; i < 2 && !found; i++) {
        snprintf(path, sizeof path, "%s/%s.lua", dirs[i], rel);
        found = file_exists(path);
    }
    if (!found)
        return luaL_error(L, "require: module '%s' not found in %s or %s", name, h->dir,
                          h->scripts_dir);
    int st = load_script_file(L, path);
    if (st != LUA_OK)
        return lua_error(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_env);
    lua_setupvalue(L, -2, 1);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, name);
    return 1;
}

/* Names a script may reach for that the sandbox leaves out on purpose. */
static const char *const forbidden_globals[] = {
    "io", "debug", "package", "dofile", "loadfile", "loadstring", "ffi", "jit", NULL,
};

static int env_undeclared(lua_State *L)
{
    const char *name = luaL_tolstring(L, 2, NULL);
    for (int i = 0; forbidden_globals[i]; i++)
        if (strcmp(name, forbidden_globals[i]) == 0)
            return luaL_error(L, "'%s' is not available in the sandbox (mlviz run --trust "
                                 "lifts it)",
                              name);
    return luaL_error(L, "undeclared global '%s' (a typo? declare it with 'local')", name);
}

static int os_forbidden(lua_State *L)
{
    return luaL_error(L, "os.%s is not available in the sandbox (only os.clock, os.time and "
                         "os.date; mlviz run --trust lifts it)",
                      luaL_tolstring(L, 2, NULL));
}

static int env_assign(lua_State *L)
{
    const char *name = luaL_tolstring(L, 2, NULL);
    return luaL_error(L, "assignment to undeclared global '%s' (use 'local %s = ...')", name,
                      name);
}

static const char *const safe_base[] = {
    "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget",
    "rawlen", "rawset", "select", "setmetatable", "tonumber", "tostring", "type", "xpcall",
    "_VERSION", "string", "table", "math", "utf8", "coroutine", NULL,
};

static void open_lib(lua_State *L, const char *name, lua_CFunction f)
{
    luaL_requiref(L, name, f, 1);
    lua_pop(L, 1);
}

/* Build the environment scripts see. Sandboxed: an empty table whose
 * fallback is a table of allowed names, itself failing loudly on anything
 * else, and refusing new globals. Trusted: the real globals. */
static void build_env(lua_State *L, struct luahost *h)
{
    if (h->opt.trusted) {
        luaL_openlibs(L);
    } else {
        open_lib(L, LUA_GNAME, luaopen_base);
        open_lib(L, LUA_TABLIBNAME, luaopen_table);
        open_lib(L, LUA_STRLIBNAME, luaopen_string);
        open_lib(L, LUA_MATHLIBNAME, luaopen_math);
        open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
        open_lib(L, LUA_COLIBNAME, luaopen_coroutine);
        open_lib(L, LUA_OSLIBNAME, luaopen_os); /* only three functions are copied */
    }
    /* Work in C that grows with its arguments counts against the budget. */
    lua_getglobal(L, "string");
    lua_patterns_install(L, -1, pattern_charge);
    lua_pushcfunction(L, l_string_rep);
    lua_setfield(L, -2, "rep");
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    const luaL_Reg charged[] = {
        {"move", l_table_move}, {"insert", l_table_insert}, {"remove", l_table_remove},
        {NULL, NULL},
    };
    for (int i = 0; charged[i].name; i++) {
        lua_getfield(L, -1, charged[i].name);
        lua_pushcclosure(L, charged[i].func, 1);
        lua_setfield(L, -2, charged[i].name);
    }
    lua_pop(L, 1);
    /* math.random starts from the run's seed; randomseed stays deterministic.
     * The library's own randomseed is kept in the registry for l_randomseed. */
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_randomseed);
    lua_pushinteger(L, (lua_Integer)h->opt.seed);
    lua_call(L, 1, 0);
    lua_pushcfunction(L, l_randomseed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);

    push_mlviz(L, h);
    int mlviz = lua_gettop(L);

    if (h->opt.trusted) {
        lua_pushvalue(L, mlviz);
        lua_setglobal(L, "mlviz");
        const luaL_Reg hooks[] = {{"print", l_print}, {"say", l_say},   {"pause", l_pause},
                                  {"focus", l_focus}, {"mark", l_mark}, {"show", l_show},
                                  {NULL, NULL}};
        lua_pushglobaltable(L);
        luaL_setfuncs(L, hooks, 0);
        lua_pop(L, 1);
        /* require still finds scripts/ and the script's directory. */
        lua_getglobal(L, "package");
        lua_pushfstring(L, "%s/?.lua;%s/?.lua;", h->dir, h->scripts_dir);
        lua_getfield(L, -2, "path");
        lua_concat(L, 2);
        lua_setfield(L, -2, "path");
        lua_getfield(L, -1, "loaded");
        lua_pushvalue(L, mlviz);
        lua_setfield(L, -2, "mlviz");
        lua_pop(L, 2);
        lua_pushglobaltable(L);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &key_env);
        lua_newtable(L);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &key_api);
        lua_pop(L, 1);
        return;
    }

    /* The allow-list table. */
    lua_newtable(L);
    int api = lua_gettop(L);
    for (int i = 0; safe_base[i]; i++) {
        lua_getglobal(L, safe_base[i]);
        lua_setfield(L, api, safe_base[i]);
    }
    const luaL_Reg extra[] = {
        {"print", l_print}, {"say", l_say},       {"pause", l_pause},
        {"focus", l_focus}, {"mark", l_mark},     {"show", l_show},
        {"load", l_safe_load},
        {"require", l_require}, {"collectgarbage", l_collectgarbage}, {NULL, NULL},
    };
    lua_pushvalue(L, api);
    luaL_setfuncs(L, extra, 0);
    lua_pop(L, 1);
    /* os: the clock and the calendar only. */
    lua_createtable(L, 0, 3);
    lua_getglobal(L, "os");
    const char *os_ok[] = {"clock", "time", "date"};
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, -1, os_ok[i]);
        lua_setfield(L, -3, os_ok[i]);
    }
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, os_forbidden);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, api, "os");
    /* Binary chunks cannot be loaded; do not hand out their maker either. */
    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    lua_pushvalue(L, mlviz);
    lua_setfield(L, api, "mlviz");
    /* The real os library is not needed by anything else. */
    lua_pushnil(L);
    lua_setglobal(L, "os");
    /* Unknown names in the allow-list fail loudly. */
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, env_undeclared);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, api);
    lua_pushvalue(L, api);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_api);

    /* The script's environment. */
    lua_newtable(L);
    lua_createtable(L, 0, 3);
    lua_pushvalue(L, api);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, env_assign);
    lua_setfield(L, -2, "__newindex");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, api, "_G");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_env);
    lua_settop(L, mlviz - 1);
}

/* ---- lifecycle ------------------------------------------------------------------ */

/* Everything that allocates while setting a state up, run protected. */
static int init_state(lua_State *L)
{
    struct luahost *h = host_of(L);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_loaded);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_overrides);
    lua_newtable(L); /* sims by address, weak so the GC can collect them */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_sims);
    new_class(L, SETUP_MT, setup_methods, "setup", NULL, setup_tostring);
    new_class(L, SIM_MT, sim_methods, "sim", sim_gc, sim_tostring);
    build_env(L, h);
    /* The host sorts keys with the library's own sort: a script may replace
     * table.sort, but must not run inside a write or a sweep. */
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "sort");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_table_sort);
    lua_pop(L, 1);
    return 0;
}

struct luahost *luahost_new(const struct luahost_options *o, char *err, size_t err_len)
{
    struct luahost *h = calloc(1, sizeof *h);
    if (!h) {
        copy_msg(err, err_len, "out of memory");
        return NULL;
    }
    h->opt = *o;
    h->budget = o->instruction_budget ? o->instruction_budget : LUAHOST_DEFAULT_BUDGET;
    h->mem_cap = o->memory_cap_bytes ? o->memory_cap_bytes : LUAHOST_DEFAULT_MEMORY_BYTES;
    lua_output_init(&h->out, o->output_dir, o->trusted);
    h->time_limit_s = o->time_limit_s > 0 && isfinite(o->time_limit_s)
                          ? o->time_limit_s
                          : LUAHOST_DEFAULT_TIME_LIMIT_S;
    h->interrupt_seen = interrupt_count;
    h->held_sim_ref = LUA_NOREF;
    snprintf(h->scripts_dir, sizeof h->scripts_dir, "%s/scripts", mlviz_data_dir());
    snprintf(h->dir, sizeof h->dir, ".");
    snprintf(h->path, sizeof h->path, "script");
    h->chunk_ref = LUA_NOREF;
    h->co_ref = LUA_NOREF;
    lua_State *L = lua_newstate(host_alloc, h);
    if (!L) {
        free(h);
        copy_msg(err, err_len, "cannot create a Lua state (memory cap too small?)");
        return NULL;
    }
    h->L = L;
    lua_pushlightuserdata(L, h);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_host);
    lua_settop(L, 0);
    lua_pushcfunction(L, init_state);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        copy_msg(err, err_len, lua_tostring(L, -1));
        lua_close(L);
        free(h);
        return NULL;
    }
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, LUAHOST_HOOK_INTERVAL);
    return h;
}

void luahost_free(struct luahost *h)
{
    if (!h)
        return;
    if (h->L)
        lua_close(h->L);
    lua_output_close(&h->out);
    free(h);
}

struct luahost *luahost_reload(const struct luahost *h, int argc, char **argv, char *err,
                               size_t err_len)
{
    struct luahost *fresh = luahost_new(&h->opt, err, err_len);
    if (!fresh)
        return NULL;
    if (!luahost_load(fresh, h->path, argc, argv, err, err_len)) {
        luahost_free(fresh);
        return NULL;
    }
    return fresh;
}

const struct luahost_param *luahost_params(const struct luahost *h, size_t *n)
{
    *n = h->n_params;
    return h->params;
}

bool luahost_was_interrupted(const struct luahost *h)
{
    return h->interrupted;
}

bool luahost_usage_error(const struct luahost *h)
{
    return h->usage_error;
}

size_t luahost_memory_bytes(const struct luahost *h)
{
    return h->mem_used;
}

/* ---- loading and running --------------------------------------------------------- */

static void split_args(struct luahost *h, int argc, char **argv)
{
    lua_State *L = h->L;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_overrides);
    lua_newtable(L); /* arg */
    lua_pushstring(L, h->path);
    lua_rawseti(L, -2, 0);
    lua_Integer n = 0;
    bool options = true;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (options && strcmp(a, "--") == 0) {
            options = false;
            continue;
        }
        if (options && a[0] == '-' && a[1] == '-' && a[2]) {
            const char *eq = strchr(a, '=');
            if (eq) {
                lua_pushlstring(L, a + 2, (size_t)(eq - a - 2));
                lua_pushstring(L, eq + 1);
            } else {
                lua_pushstring(L, a + 2);
                lua_pushliteral(L, "true"); /* a bare --flag turns a boolean on */
            }
            lua_rawset(L, -4);
            continue;
        }
        lua_pushstring(L, a);
        lua_rawseti(L, -2, ++n);
    }
}

/* Check --name=value words against the params the script declares. */
static bool check_overrides(struct luahost *h, char *err, size_t err_len)
{
    lua_State *L = h->L;
    int over = lua_gettop(L) - 1; /* overrides, arg */
    lua_pushnil(L);
    while (lua_next(L, over)) {
        const char *name = lua_tostring(L, -2), *text = lua_tostring(L, -1);
        const struct luahost_param *p = NULL;
        for (size_t i = 0; i < h->n_params; i++)
            if (strcmp(h->params[i].name, name) == 0)
                p = &h->params[i];
        if (!p) {
            char list[512] = "";
            for (size_t i = 0; i < h->n_params; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s--%s", i ? ", " : "",
                         h->params[i].name);
            snprintf(err, err_len, "%s: unknown option '--%s' (%s%s)", h->path, name,
                     h->n_params ? "the script's parameters: " : "the script declares no "
                                                                  "parameters",
                     list);
            lua_pop(L, 2);
            return false;
        }
        if (!push_param_text(L, p->type, text)) {
            snprintf(err, err_len, "%s: --%s expects a %s (got '%s')", h->path, name, p->type,
                     text);
            lua_pop(L, 2);
            return false;
        }
        lua_pop(L, 2);
    }
    return true;
}

static bool describe_script(const char *path, char *title, size_t title_len,
                            struct luahost_param *params, size_t max_params, size_t *n_params,
                            sig_atomic_t interrupt_seen, char *err, size_t err_len);

bool luahost_load(struct luahost *h, const char *path, int argc, char **argv, char *err,
                  size_t err_len)
{
    lua_State *L = h->L;
    h->usage_error = false;
    if (h->loaded) {
        copy_msg(err, err_len, "luahost_load: a script is already loaded in this host");
        return false;
    }
    snprintf(h->path, sizeof h->path, "%s", path);
    dir_of(path, h->dir, sizeof h->dir);
    if (!file_exists(path)) {
        snprintf(err, err_len, "%s: no such script", path);
        h->usage_error = true;
        return false;
    }
    if (!h->describing) {
        char title[8];
        size_t n = 0;
        if (!describe_script(path, title, sizeof title, h->params, LUAHOST_MAX_PARAMS, &n,
                             h->interrupt_seen, err, err_len))
            return false;
        h->n_params = n;
    }
    lua_settop(L, 0);
    split_args(h, argc, argv);
    if (!h->describing && !check_overrides(h, err, err_len)) {
        h->usage_error = true;
        lua_settop(L, 0);
        return false;
    }
    /* The value each parameter takes in this run (shown as TUI knobs). */
    int overrides = lua_gettop(L) - 1;
    for (size_t i = 0; i < h->n_params; i++) {
        struct luahost_param *p = &h->params[i];
        snprintf(p->value_text, sizeof p->value_text, "%s", p->default_text);
        if (lua_getfield(L, overrides, p->name) == LUA_TSTRING)
            snprintf(p->value_text, sizeof p->value_text, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    /* `arg` for the script. */
    lua_rawgetp(L, LUA_REGISTRYINDEX, h->opt.trusted ? &key_env : &key_api);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "arg");
    lua_settop(L, 0);
    /* Text chunks only; the chunk name "@path" makes messages read path:line. */
    if (load_script_file(L, path) != LUA_OK) {
        final_message(h, lua_tostring(L, -1), err, err_len);
        lua_settop(L, 0);
        return false;
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_env);
    lua_setupvalue(L, -2, 1);
    if (h->opt.played) {
        /* The chunk is the coroutine's body, unprotected: an error leaves
         * the coroutine's stack in place for the traceback. */
        h->co = lua_newthread(L);
        lua_pushvalue(L, -2);
        lua_xmove(L, h->co, 1);
        h->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_pop(L, 1);
    } else {
        h->chunk_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    h->loaded = true;
    return true;
}

bool luahost_run(struct luahost *h, char *err, size_t err_len)
{
    lua_State *L = h->L;
    if (!h->loaded || h->finished || h->opt.played) {
        copy_msg(err, err_len, h->opt.played ? "luahost_run: use luahost_resume in played mode"
                                             : "luahost_run: no script loaded");
        return false;
    }
    h->finished = true;
    lua_settop(L, 0);
    lua_pushcfunction(L, msg_handler);
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->chunk_ref);
    clock_enter(h);
    int st = lua_pcall(L, 0, 0, 1);
    clock_leave(h);
    if (st == LUA_OK && !stop_flagged(h)) {
        lua_settop(L, 0);
        return true;
    }
    const char *raw = st == LUA_OK ? NULL : lua_tostring(L, -1);
    if (st != LUA_OK && lua_touserdata(L, -1) == &key_describe_stop)
        raw = "stopped while describing";
    final_message(h, raw, err, err_len);
    lua_settop(L, 0);
    return false;
}

enum luahost_status luahost_resume(struct luahost *h, struct luahost_request *req, char *err,
                                   size_t err_len)
{
    if (req) {
        req->sim = NULL;
        req->duration_s = 0;
    }
    if (!h->loaded || !h->opt.played || !h->co) {
        copy_msg(err, err_len, "luahost_resume: no script loaded in played mode");
        return LUAHOST_ERROR;
    }
    if (h->finished)
        return LUAHOST_DONE;
    if (h->started && limits_hit(h)) { /* interrupted while suspended */
        h->finished = true;
        final_message(h, NULL, err, err_len);
        return LUAHOST_ERROR;
    }
    int nres = 0;
    h->yield_kind = LUAHOST_DONE;
    h->started = true;
    clock_enter(h);
    int st = lua_resume(h->co, h->L, 0, &nres);
    clock_leave(h);
    if (st == LUA_YIELD && limits_hit(h)) {
        /* Interrupted (or out of time) while the script was yielding: end
         * it here rather than at its next instruction. */
        lua_pop(h->co, nres);
        h->finished = true;
        final_message(h, NULL, err, err_len);
        lua_settop(h->L, 0);
        return LUAHOST_ERROR;
    }
    if (st == LUA_YIELD) {
        lua_pop(h->co, nres);
        if (h->yield_kind == LUAHOST_RUN) {
            if (req)
                *req = h->req;
            return LUAHOST_RUN;
        }
        if (h->yield_kind == LUAHOST_PAUSE)
            return LUAHOST_PAUSE;
        /* A coroutine.yield at the top of the script: treat it as a pause. */
        return LUAHOST_PAUSE;
    }
    h->finished = true;
    if (st == LUA_OK && !stop_flagged(h))
        return LUAHOST_DONE;
    const char *raw = NULL;
    if (st != LUA_OK) {
        lua_State *co = h->co;
        if (lua_type(co, -1) != LUA_TSTRING && !luaL_callmeta(co, -1, "__tostring"))
            lua_pushfstring(co, "(error object is a %s value)", luaL_typename(co, -1));
        if (st == LUA_ERRMEM || !lua_checkstack(h->L, 4))
            raw = lua_tostring(co, -1);
        else {
            luaL_traceback(h->L, co, lua_tostring(co, -1), 0);
            raw = lua_tostring(h->L, -1);
        }
    }
    final_message(h, raw, err, err_len);
    lua_settop(h->L, 0);
    return LUAHOST_ERROR;
}

/* ---- describing a script without running it with the engine ------------------------- */

static void read_title(const char *path, char *title, size_t len)
{
    title[0] = '\0';
    char *text = NULL, err[LUAHOST_PATH_LEN + 128];
    size_t n = 0;
    if (!infile_read(path, &text, &n, err, sizeof err))
        return;
    char *line = text;
    if (line[0] == '#' && line[1] == '!') { /* a shebang line */
        char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
    if (line[0] == '-' && line[1] == '-') {
        char *p = line;
        while (*p == '-')
            p++;
        while (*p == ' ' || *p == '\t')
            p++;
        p[strcspn(p, "\r\n")] = '\0';
        snprintf(title, len, "%s", p);
    }
    free(text);
}

bool luahost_describe(const char *path, char *title, size_t title_len,
                      struct luahost_param *params, size_t max_params, size_t *n_params,
                      char *err, size_t err_len)
{
    return describe_script(path, title, title_len, params, max_params, n_params,
                           interrupt_count, err, err_len);
}

/* interrupt_seen: a describe run on behalf of a host stops when that host
 * would (an interrupt during luahost_load). */
static bool describe_script(const char *path, char *title, size_t title_len,
                            struct luahost_param *params, size_t max_params, size_t *n_params,
                            sig_atomic_t interrupt_seen, char *err, size_t err_len)
{
    *n_params = 0;
    if (title && title_len)
        read_title(path, title, title_len);
    struct luahost_options o;
    memset(&o, 0, sizeof o);
    o.instruction_budget = LUAHOST_DESCRIBE_BUDGET;
    o.memory_cap_bytes = LUAHOST_DESCRIBE_MEMORY_BYTES;
    o.time_limit_s = LUAHOST_DESCRIBE_TIME_S;
    struct luahost *h = luahost_new(&o, err, err_len);
    if (!h)
        return false;
    h->interrupt_seen = interrupt_seen;
    h->describing = true;
    bool ok = luahost_load(h, path, 0, NULL, err, err_len);
    if (ok) {
        /* Run until mlviz.params stops it. Errors before that mean "no
         * parameters" (the script needs the engine first), except syntax
         * errors, which luahost_load already reported. */
        lua_State *L = h->L;
        lua_settop(L, 0);
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->chunk_ref);
        (void)lua_pcall(L, 0, 0, 0);
        lua_settop(L, 0);
        size_t n = h->n_params < max_params ? h->n_params : max_params;
        if (params)
            memcpy(params, h->params, n * sizeof *params);
        *n_params = n;
    }
    luahost_free(h);
    return ok;
}
