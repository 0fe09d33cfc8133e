/* luahost: the Lua 5.4 host's lifecycle: making and freeing a host, loading
 * a script with its arguments, running it headless or resuming it played,
 * and describing a script without the engine (see luahost.h and
 * docs/lua-api.md; the other jobs live in the lua_*.c files, lua_internal.h).
 *
 * Practices borrowed from embedders that run scripts they did not write:
 * an allow-list environment with a read-only fallback table (Redis), a
 * count hook that re-arms itself after tripping so pcall cannot swallow the
 * stop (Redis), a counting allocator for a hard memory cap, a message
 * handler with a traceback on every protected call (mpv), and script
 * parameters declared by the script itself (sysbench). */
#include "lua_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"

const char lh_key_host = 'h';
const char lh_key_env = 'e';
const char lh_key_api = 'a';
const char lh_key_loaded = 'l';
const char lh_key_sims = 's';
const char lh_key_overrides = 'o';
const char lh_key_describe_stop = 'd';
const char lh_key_randomseed = 'r';
const char lh_key_table_sort = 't';

/* ---- lifecycle ------------------------------------------------------------------ */

/* Everything that allocates while setting a state up, run protected. */
static int init_state(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_loaded);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_overrides);
    lua_newtable(L); /* sims by address, weak so the GC can collect them */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_sims);
    lh_setup_register(L);
    lh_sim_register(L);
    lh_build_env(L, h);
    /* The host sorts keys with the library's own sort: a script may replace
     * table.sort, but must not run inside a write or a sweep. */
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "sort");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_table_sort);
    lua_pop(L, 1);
    return 0;
}

struct luahost *luahost_new(const struct luahost_options *o, char *err, size_t err_len)
{
    struct luahost *h = calloc(1, sizeof *h);
    if (!h) {
        lh_copy_msg(err, err_len, "out of memory");
        return NULL;
    }
    h->opt = *o;
    h->budget = o->instruction_budget ? o->instruction_budget : LUAHOST_DEFAULT_BUDGET;
    h->mem_cap = o->memory_cap_bytes ? o->memory_cap_bytes : LUAHOST_DEFAULT_MEMORY_BYTES;
    lua_output_init(&h->out, o->output_dir, o->trusted);
    h->time_limit_s = o->time_limit_s > 0 && isfinite(o->time_limit_s)
                          ? o->time_limit_s
                          : LUAHOST_DEFAULT_TIME_LIMIT_S;
    h->interrupt_seen = lh_interrupts_now();
    h->held_sim_ref = LUA_NOREF;
    snprintf(h->scripts_dir, sizeof h->scripts_dir, "%s/scripts", mlviz_data_dir());
    snprintf(h->dir, sizeof h->dir, ".");
    snprintf(h->path, sizeof h->path, "script");
    h->chunk_ref = LUA_NOREF;
    h->co_ref = LUA_NOREF;
    h->args_ref = LUA_NOREF;
    lua_State *L = lua_newstate(lh_host_alloc, h);
    if (!L) {
        free(h);
        lh_copy_msg(err, err_len, "cannot create a Lua state (memory cap too small?)");
        return NULL;
    }
    h->L = L;
    lua_pushlightuserdata(L, h);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_host);
    lua_settop(L, 0);
    lua_pushcfunction(L, init_state);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        lh_copy_msg(err, err_len, lua_tostring(L, -1));
        lua_close(L);
        free(h);
        return NULL;
    }
    lua_sethook(L, lh_budget_hook, LUA_MASKCOUNT, LUAHOST_HOOK_INTERVAL);
    return h;
}

void luahost_free(struct luahost *h)
{
    if (!h)
        return;
    if (h->L)
        lua_close(h->L);
    lua_output_close(&h->out);
    for (size_t i = 0; i < h->n_values; i++)
        free(h->values[i]);
    free(h->values);
    free(h->text);
    free(h);
}

struct luahost *luahost_reload(const struct luahost *h, int argc, char **argv, char *err,
                               size_t err_len)
{
    struct luahost *fresh = luahost_new(&h->opt, err, err_len);
    if (!fresh)
        return NULL;
    /* The same run goes on: the files it wrote are still its own. */
    if (!lua_output_adopt_created(&fresh->out, &h->out)) {
        snprintf(err, err_len, "out of memory");
        luahost_free(fresh);
        return NULL;
    }
    bool ok = h->text ? luahost_load_text(fresh, h->path, h->text, h->text_len,
                                          (const char *const *)h->values, h->n_values, err, err_len)
                      : luahost_load(fresh, h->path, argc, argv, err, err_len);
    if (!ok) {
        luahost_free(fresh);
        return NULL;
    }
    return fresh;
}

void luahost_set_hooks_ctx(struct luahost *h, void *ctx)
{
    if (h)
        h->opt.hooks.ctx = ctx;
}

const struct luahost_param *luahost_params(const struct luahost *h, size_t *n)
{
    *n = h->n_params;
    return h->params;
}

size_t luahost_renamed(const struct luahost *h, size_t i, char *asked, size_t asked_len,
                       char *written, size_t written_len)
{
    return lua_output_renamed(&h->out, i, asked, asked_len, written, written_len);
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

uint64_t luahost_instructions(const struct luahost *h)
{
    return h->instructions;
}

/* ---- loading and running --------------------------------------------------------- */

struct describe_limits {
    uint64_t budget;
    double time_s;
    sig_atomic_t interrupt_seen;
    bool for_host; /* on behalf of luahost_load: the host's own limits */
    bool cut;      /* out: stopped by its own caps before mlviz.params */
};
static bool describe_script(const char *path, char *title, size_t title_len,
                            struct luahost_param *params, size_t max_params, size_t *n_params,
                            struct describe_limits *lim, char *err, size_t err_len);

/* The loaded chunk on top of the stack becomes the script: its _ENV is the
 * sandbox's (or the trusted) environment; played, it is the body of a
 * coroutine, unprotected, so that an error leaves the coroutine's stack in
 * place for the traceback. */
static void adopt_chunk(struct luahost *h)
{
    lua_State *L = h->L;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_env);
    lua_setupvalue(L, -2, 1);
    if (h->opt.played) {
        h->co = lua_newthread(L);
        lua_pushvalue(L, -2);
        lua_xmove(L, h->co, 1);
        h->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_pop(L, 1);
    } else {
        h->chunk_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    h->loaded = true;
}

bool luahost_load(struct luahost *h, const char *path, int argc, char **argv, char *err,
                  size_t err_len)
{
    lua_State *L = h->L;
    h->usage_error = false;
    if (h->loaded) {
        lh_copy_msg(err, err_len, "luahost_load: a script is already loaded in this host");
        return false;
    }
    snprintf(h->path, sizeof h->path, "%s", path);
    lh_dir_of(path, h->dir, sizeof h->dir);
    if (!lh_file_exists(path)) {
        snprintf(err, err_len, "%s: no such script", path);
        h->usage_error = true;
        return false;
    }
    if (!h->describing) {
        char title[8];
        size_t n = 0;
        /* The describe run gets no larger limits than the host was given
         * (a --timeout 0.25 script is not described for 2 s), and a script
         * that runs into them before mlviz.params fails here, once. */
        struct describe_limits lim = {h->budget, h->time_limit_s, h->interrupt_seen, true, false};
        if (!describe_script(path, title, sizeof title, h->params, LUAHOST_MAX_PARAMS, &n, &lim,
                             err, err_len))
            return false;
        h->n_params = n;
        h->describe_cut = lim.cut;
    }
    lua_settop(L, 0);
    lh_split_args(h, argc, argv);
    if (!h->describing && !lh_check_overrides(h, err, err_len)) {
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
    lua_rawgetp(L, LUA_REGISTRYINDEX, h->opt.trusted ? &lh_key_env : &lh_key_api);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "arg");
    lua_settop(L, 0);
    /* Text chunks only; the chunk name "@path" makes messages read path:line. */
    if (lh_load_script_file(L, path) != LUA_OK) {
        lh_final_message(h, lua_tostring(L, -1), err, err_len);
        lua_settop(L, 0);
        return false;
    }
    adopt_chunk(h);
    return true;
}

/* Keeps a copy of a text script and its values (for luahost_reload). */
static bool keep_text(struct luahost *h, const char *text, size_t text_len,
                      const char *const *values, size_t n_values)
{
    h->text = malloc(text_len + 1);
    h->values = calloc(n_values ? n_values : 1, sizeof *h->values);
    if (!h->text || !h->values)
        return false;
    memcpy(h->text, text, text_len);
    h->text[text_len] = '\0';
    h->text_len = text_len;
    for (; h->n_values < n_values; h->n_values++) {
        h->values[h->n_values] = strdup(values[h->n_values]);
        if (!h->values[h->n_values])
            return false;
    }
    return true;
}

/* The table of values a text script is called with, made protected. */
static int push_values(lua_State *L)
{
    const struct luahost *h = lua_touserdata(L, 1);
    lua_createtable(L, (int)h->n_values, 0);
    for (size_t i = 0; i < h->n_values; i++) {
        lua_pushstring(L, h->values[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

bool luahost_load_text(struct luahost *h, const char *name, const char *text, size_t text_len,
                       const char *const *values, size_t n_values, char *err, size_t err_len)
{
    lua_State *L = h->L;
    h->usage_error = false;
    if (h->loaded || h->text) {
        lh_copy_msg(err, err_len, "luahost_load_text: a script is already loaded in this host");
        return false;
    }
    snprintf(h->path, sizeof h->path, "%s", name);
    if (!keep_text(h, text, text_len, values, n_values) || n_values > (size_t)INT_MAX) {
        lh_copy_msg(err, err_len, "out of memory");
        return false;
    }
    lua_settop(L, 0);
    lua_pushcfunction(L, push_values);
    lua_pushlightuserdata(L, h);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lh_final_message(h, lua_tostring(L, -1), err, err_len);
        lua_settop(L, 0);
        return false;
    }
    h->args_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushfstring(L, "=%s", name);
    int st = luaL_loadbufferx(L, text, text_len, lua_tostring(L, -1), "t");
    lua_remove(L, -2);
    if (st != LUA_OK) {
        lh_final_message(h, lua_tostring(L, -1), err, err_len);
        lua_settop(L, 0);
        return false;
    }
    adopt_chunk(h);
    return true;
}

bool luahost_run(struct luahost *h, char *err, size_t err_len)
{
    lua_State *L = h->L;
    if (!h->loaded || h->finished || h->opt.played) {
        lh_copy_msg(err, err_len,
                    h->opt.played ? "luahost_run: use luahost_resume in played mode"
                                  : "luahost_run: no script loaded");
        return false;
    }
    h->finished = true;
    lua_settop(L, 0);
    lua_pushcfunction(L, lh_msg_handler);
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->chunk_ref);
    int nargs = h->args_ref != LUA_NOREF;
    if (nargs)
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->args_ref);
    lh_clock_enter(h);
    int st = lua_pcall(L, nargs, 0, 1);
    lh_clock_leave(h);
    if (st == LUA_OK && !lh_stop_flagged(h)) {
        lua_settop(L, 0);
        return true;
    }
    const char *raw = st == LUA_OK ? NULL : lua_tostring(L, -1);
    if (st != LUA_OK && lua_touserdata(L, -1) == &lh_key_describe_stop)
        raw = "stopped while describing";
    lh_final_message(h, raw, err, err_len);
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
        lh_copy_msg(err, err_len, "luahost_resume: no script loaded in played mode");
        return LUAHOST_ERROR;
    }
    if (h->finished)
        return LUAHOST_DONE;
    if (h->started && lh_limits_hit(h)) { /* interrupted while suspended */
        h->finished = true;
        lh_final_message(h, NULL, err, err_len);
        return LUAHOST_ERROR;
    }
    int nres = 0, nargs = 0;
    if (!h->started && h->args_ref != LUA_NOREF && lua_checkstack(h->co, 1)) {
        lua_rawgeti(h->L, LUA_REGISTRYINDEX, h->args_ref);
        lua_xmove(h->L, h->co, 1);
        nargs = 1;
    }
    h->yield_kind = LUAHOST_DONE;
    h->started = true;
    lh_clock_enter(h);
    int st = lua_resume(h->co, h->L, nargs, &nres);
    lh_clock_leave(h);
    if (st == LUA_YIELD && lh_limits_hit(h)) {
        /* Interrupted (or out of time) while the script was yielding: end
         * it here rather than at its next instruction. */
        lua_pop(h->co, nres);
        h->finished = true;
        lh_final_message(h, NULL, err, err_len);
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
    if (st == LUA_OK && !lh_stop_flagged(h))
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
    lh_final_message(h, raw, err, err_len);
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

bool luahost_describe(const char *path, char *title, size_t title_len, struct luahost_param *params,
                      size_t max_params, size_t *n_params, char *err, size_t err_len)
{
    struct describe_limits lim = {LUAHOST_DESCRIBE_BUDGET, LUAHOST_DESCRIBE_TIME_S,
                                  lh_interrupts_now(), false, false};
    return describe_script(path, title, title_len, params, max_params, n_params, &lim, err,
                           err_len);
}

/* The describe run's budget and time limit are the LUAHOST_DESCRIBE_* ones,
 * or the host's own where they are smaller (its memory cap is always
 * LUAHOST_DESCRIBE_MEMORY_BYTES: a script over the host's cap fails in the
 * run, with the cap's message); interrupt_seen: a describe run on
 * behalf of a host stops when that host would (an interrupt during
 * luahost_load). On behalf of a host, a limit of the host's own (or an
 * interrupt) hit before mlviz.params is the load's error: the run would hit
 * it at the same place. The describe run's own caps only end the search
 * for parameters (lim->cut). */
static bool describe_script(const char *path, char *title, size_t title_len,
                            struct luahost_param *params, size_t max_params, size_t *n_params,
                            struct describe_limits *lim, char *err, size_t err_len)
{
    *n_params = 0;
    if (title && title_len)
        read_title(path, title, title_len);
    struct luahost_options o;
    memset(&o, 0, sizeof o);
    o.instruction_budget =
        lim->budget < LUAHOST_DESCRIBE_BUDGET ? lim->budget : LUAHOST_DESCRIBE_BUDGET;
    o.memory_cap_bytes = LUAHOST_DESCRIBE_MEMORY_BYTES;
    o.time_limit_s = lim->time_s < LUAHOST_DESCRIBE_TIME_S ? lim->time_s : LUAHOST_DESCRIBE_TIME_S;
    struct luahost *h = luahost_new(&o, err, err_len);
    if (!h)
        return false;
    h->interrupt_seen = lim->interrupt_seen;
    h->describing = true;
    bool ok = luahost_load(h, path, 0, NULL, err, err_len);
    if (ok) {
        /* Run until mlviz.params stops it. Errors before that mean "no
         * parameters" (the script needs the engine first), except syntax
         * errors, which luahost_load already reported. */
        lua_State *L = h->L;
        lua_settop(L, 0);
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->chunk_ref);
        /* The clock runs, so the time limit holds here too. */
        lh_clock_enter(h);
        int st = lua_pcall(L, 0, 0, 0);
        lh_clock_leave(h);
        if (st != LUA_OK && h->params_over_cap) {
            lh_copy_msg(err, err_len, lua_tostring(L, -1));
            ok = false;
        } else if (st != LUA_OK && h->n_params == 0 && lh_stop_flagged(h)) {
            bool hosts_own = h->interrupted ||
                             (h->over_budget && lim->budget <= LUAHOST_DESCRIBE_BUDGET) ||
                             (h->over_time && lim->time_s <= LUAHOST_DESCRIBE_TIME_S);
            if (lim->for_host && hosts_own) {
                lh_copy_msg(err, err_len, lua_tostring(L, -1));
                ok = false;
            } else {
                lim->cut = true;
            }
        }
        lua_settop(L, 0);
        size_t n = h->n_params < max_params ? h->n_params : max_params;
        if (params)
            memcpy(params, h->params, n * sizeof *params);
        *n_params = n;
    }
    luahost_free(h);
    return ok;
}
