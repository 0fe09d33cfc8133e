/* lua_sandbox: what keeps a script in bounds. The counting allocator and
 * the one byte counter of the memory cap, the instruction budget, the time
 * limit and interrupts, the messages of a failed run, and the environment a
 * script sees (allow-listed globals, charged C work, seeded random, the
 * sandbox's load and require). */
#include "lua_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lualib.h>

#include "infile.h"
#include "lua_patterns.h"

struct luahost *lh_host_of(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_host);
    struct luahost *h = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return h;
}

/* ---- allocator and instruction budget ----------------------------------------- */

static void trip_memory_cap(struct luahost *h)
{
    if (!h->over_memory && h->L) {
        h->over_memory = true;
        /* From now on every instruction raises, so the script stops even if
         * it catches the memory error. */
        lua_sethook(h->L, lh_budget_hook, LUA_MASKCOUNT, 1);
    }
}

/* One byte counter for everything a script makes the host hold: the Lua
 * allocator above and the C-side allocations made for the script (sims and
 * their series) both charge it. Growing from old_bytes to new_bytes asks
 * first; garbage (unreachable sims) is collected before saying no. */
bool lh_host_charge(struct luahost *h, lua_State *L, size_t old_bytes, size_t new_bytes)
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

void *lh_host_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
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

sig_atomic_t lh_interrupts_now(void)
{
    return interrupt_count;
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The time limit counts only the stretches in which script code runs. */
void lh_clock_enter(struct luahost *h)
{
    if (h->active_depth++ == 0)
        h->active_since = monotonic_s();
}

void lh_clock_leave(struct luahost *h)
{
    if (--h->active_depth == 0)
        h->active_s += monotonic_s() - h->active_since;
}

bool lh_stop_flagged(const struct luahost *h)
{
    return h->over_budget || h->over_memory || h->over_time || h->interrupted;
}

/* Looks at every limit; sets the flag of the first one hit. True when the
 * script must stop. */
bool lh_limits_hit(struct luahost *h)
{
    if (lh_stop_flagged(h))
        return true;
    if (interrupt_count != h->interrupt_seen)
        h->interrupted = true;
    else if (h->instructions > h->budget)
        h->over_budget = true;
    else if (h->active_depth && h->active_s + (monotonic_s() - h->active_since) > h->time_limit_s)
        h->over_time = true;
    return lh_stop_flagged(h);
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

void lh_budget_hook(lua_State *L, lua_Debug *ar)
{
    struct luahost *h = lh_host_of(L);
    if (!h)
        return;
    if (!lh_stop_flagged(h))
        h->instructions += LUAHOST_HOOK_INTERVAL;
    if (!lh_limits_hit(h))
        return;
    /* Re-arm on every instruction: a pcall that catches this error cannot
     * keep the script alive, the next instruction raises again. */
    lua_sethook(L, lh_budget_hook, LUA_MASKCOUNT, 1);
    char where[LUA_IDSIZE + 32] = "";
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        snprintf(where, sizeof where, "%s:%d: ", ar->short_src, ar->currentline);
    char msg[256];
    limit_message(h, where, msg, sizeof msg);
    lua_pushstring(L, msg);
    lua_error(L);
}

/* Raise the error of the limit that was hit, at the script's line. */
_Noreturn static void raise_limit(lua_State *L, struct luahost *h)
{
    lua_sethook(L, lh_budget_hook, LUA_MASKCOUNT, 1);
    if (L != h->L)
        lua_sethook(h->L, lh_budget_hook, LUA_MASKCOUNT, 1);
    luaL_where(L, 1);
    char msg[256];
    limit_message(h, lua_tostring(L, -1), msg, sizeof msg);
    lua_pop(L, 1);
    lua_pushstring(L, msg);
    lua_error(L);
    LH_RAISED();
}

/* Work done in C on behalf of the script: `steps` count against the
 * instruction budget like instructions; every LUAHOST_CHECK_STEPS the clock
 * and the interrupt flag are looked at too. Raises when a limit is hit. */
void lh_host_charge_steps(lua_State *L, struct luahost *h, uint64_t steps)
{
    h->instructions = steps > UINT64_MAX - h->instructions ? UINT64_MAX : h->instructions + steps;
    h->unchecked_steps += steps;
    if (h->unchecked_steps < LUAHOST_CHECK_STEPS && !lh_stop_flagged(h))
        return;
    h->unchecked_steps = 0;
    if (lh_limits_hit(h))
        raise_limit(L, h);
}

/* Raise if a limit was hit (the clock, the interrupt flag, the budget). */
void lh_host_check(lua_State *L, struct luahost *h)
{
    h->unchecked_steps = 0;
    if (lh_limits_hit(h))
        raise_limit(L, h);
}

/* The charge function handed to the pattern matcher. */
static void pattern_charge(lua_State *L, unsigned steps)
{
    struct luahost *h = lh_host_of(L);
    if (h)
        lh_host_charge_steps(L, h, steps);
}

/* ---- messages ------------------------------------------------------------------ */

void lh_copy_msg(char *dst, size_t len, const char *src)
{
    if (len)
        snprintf(dst, len, "%s", src ? src : "(no message)");
}

/* The message handler of every protected call: message + traceback. */
int lh_msg_handler(lua_State *L)
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
void lh_final_message(struct luahost *h, const char *raw, char *err, size_t err_len)
{
    const char *key = h->interrupted   ? "script interrupted"
                      : h->over_memory ? "memory cap"
                      : h->over_time   ? "time limit"
                                       : "instruction budget";
    if (lh_stop_flagged(h) && (!raw || !strstr(raw, key))) {
        char where[LUAHOST_PATH_LEN + 4], msg[sizeof where + 128];
        snprintf(where, sizeof where, "%s: ", h->path);
        limit_message(h, where, msg, sizeof msg);
        snprintf(err, err_len, "%s%s%s", msg, raw ? "\n" : "", raw ? raw : "");
        return;
    }
    lh_copy_msg(err, err_len, raw);
}

/* Raise "name: message" at the caller's line. */
_Noreturn void lh_raisef(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    luaL_where(L, 1);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    lua_error(L);
    LH_RAISED();
}

_Noreturn int lh_api_error(lua_State *L, const char *fn, const char *msg)
{
    lh_raisef(L, "%s: %s", fn, msg);
    LH_RAISED();
}

/* ---- the sandbox --------------------------------------------------------------- */

/* Loading text only, into the script's environment unless one is given. */
static int l_safe_load(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
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
        lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_env);
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
    lh_host_charge_steps(L, lh_host_of(L), total / 64 + (uint64_t)n / 8);
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
        lh_host_charge_steps(L, lh_host_of(L), (uint64_t)n);
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
            lh_host_charge_steps(L, lh_host_of(L), (uint64_t)(end - pos));
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
            lh_host_charge_steps(L, lh_host_of(L), (uint64_t)(size - pos));
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
    struct luahost *h = lh_host_of(L);
    lua_Integer seed = lua_isnoneornil(L, 1) ? (lua_Integer)h->opt.seed : luaL_checkinteger(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_randomseed);
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
/* The chunk of a script's text, named "@path" (a first line starting with
 * '#' skipped, its newline kept for line numbers). */
static int load_script_text(lua_State *L, const char *text, size_t len, const char *path)
{
    const char *chunk = text;
    if (len > 0 && text[0] == '#') {
        const char *nl = memchr(text, '\n', len);
        chunk = nl ? nl : text + len;
    }
    lua_pushfstring(L, "@%s", path);
    int st = luaL_loadbufferx(L, chunk, len - (size_t)(chunk - text), lua_tostring(L, -1), "t");
    lua_remove(L, -2); /* the chunk name */
    return st;
}

int lh_load_script_file(lua_State *L, const char *path)
{
    char *text = NULL, err[LUAHOST_PATH_LEN + 128];
    size_t len = 0;
    if (!infile_read(path, &text, &len, err, sizeof err)) {
        lua_pushfstring(L, "cannot read %s", err);
        return LUA_ERRFILE;
    }
    int st = load_script_text(L, text, len, path);
    free(text);
    return st;
}

/* A module of the script's own directory, sandboxed: read below it through
 * no symbolic link (infile_read_below). */
static int load_module_below(lua_State *L, const char *dir, const char *rel)
{
    char shown[LUAHOST_PATH_LEN * 2], *text = NULL, err[LUAHOST_PATH_LEN * 2 + 128];
    size_t len = 0;
    snprintf(shown, sizeof shown, "%s/%s", dir, rel);
    if (!infile_read_below(dir, rel, shown, &text, &len, err, sizeof err)) {
        lua_pushfstring(L, "cannot read %s", err);
        return LUA_ERRFILE;
    }
    int st = load_script_text(L, text, len, shown);
    free(text);
    return st;
}

static int l_require(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    const char *name = luaL_checkstring(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_loaded);
    if (lua_getfield(L, -1, name) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    if (strcmp(name, "mlviz") == 0) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_api);
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
    memcpy(rel + len, ".lua", 5);
    char path[LUAHOST_PATH_LEN * 2];
    /* The script's directory: sandboxed, below it through no link. */
    bool own = h->opt.trusted
                   ? snprintf(path, sizeof path, "%s/%s", h->dir, rel) > 0 && lh_file_exists(path)
                   : infile_exists_below(h->dir, rel);
    snprintf(path, sizeof path, "%s/%s", h->scripts_dir, rel);
    if (!own && !lh_file_exists(path))
        return luaL_error(L, "require: module '%s' not found in %s or %s", name, h->dir,
                          h->scripts_dir);
    int st;
    if (own && !h->opt.trusted) {
        st = load_module_below(L, h->dir, rel);
    } else {
        if (own)
            snprintf(path, sizeof path, "%s/%s", h->dir, rel);
        st = lh_load_script_file(L, path);
    }
    if (st != LUA_OK)
        return lua_error(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_env);
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
            return luaL_error(L,
                              "'%s' is not available in the sandbox (mlviz run --trust "
                              "lifts it)",
                              name);
    return luaL_error(L, "undeclared global '%s' (a typo? declare it with 'local')", name);
}

static int os_forbidden(lua_State *L)
{
    return luaL_error(L,
                      "os.%s is not available in the sandbox (only os.clock, os.time and "
                      "os.date; mlviz run --trust lifts it)",
                      luaL_tolstring(L, 2, NULL));
}

static int env_assign(lua_State *L)
{
    const char *name = luaL_tolstring(L, 2, NULL);
    return luaL_error(L, "assignment to undeclared global '%s' (use 'local %s = ...')", name, name);
}

static const char *const safe_base[] = {
    "assert",       "error",    "getmetatable", "ipairs", "next",      "pairs",
    "pcall",        "rawequal", "rawget",       "rawlen", "rawset",    "select",
    "setmetatable", "tonumber", "tostring",     "type",   "xpcall",    "_VERSION",
    "string",       "table",    "math",         "utf8",   "coroutine", NULL,
};

static void open_lib(lua_State *L, const char *name, lua_CFunction f)
{
    luaL_requiref(L, name, f, 1);
    lua_pop(L, 1);
}

/* The globals every script has, sandboxed or trusted. */
static const luaL_Reg narration_funcs[] = {
    {"print", lh_print}, {"say", lh_say},   {"pause", lh_pause}, {"focus", lh_focus},
    {"mark", lh_mark},   {"show", lh_show}, {"mode", lh_mode},   {NULL, NULL},
};

/* The standard libraries: all of them trusted, the safe ones sandboxed. */
static void env_open_libs(lua_State *L, const struct luahost *h)
{
    if (h->opt.trusted) {
        luaL_openlibs(L);
        return;
    }
    open_lib(L, LUA_GNAME, luaopen_base);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
    open_lib(L, LUA_COLIBNAME, luaopen_coroutine);
    open_lib(L, LUA_OSLIBNAME, luaopen_os); /* only three functions are copied */
}

/* Work in C that grows with its arguments counts against the budget. */
static void env_charge_work(lua_State *L)
{
    lua_getglobal(L, "string");
    lua_patterns_install(L, -1, pattern_charge);
    lua_pushcfunction(L, l_string_rep);
    lua_setfield(L, -2, "rep");
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    const luaL_Reg charged[] = {
        {"move", l_table_move},
        {"insert", l_table_insert},
        {"remove", l_table_remove},
        {NULL, NULL},
    };
    for (int i = 0; charged[i].name; i++) {
        lua_getfield(L, -1, charged[i].name);
        lua_pushcclosure(L, charged[i].func, 1);
        lua_setfield(L, -2, charged[i].name);
    }
    lua_pop(L, 1);
}

/* math.random starts from the run's seed; randomseed stays deterministic.
 * The library's own randomseed is kept in the registry for l_randomseed. */
static void env_seed_random(lua_State *L, const struct luahost *h)
{
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_randomseed);
    lua_pushinteger(L, (lua_Integer)h->opt.seed);
    lua_call(L, 1, 0);
    lua_pushcfunction(L, l_randomseed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
}

/* Trusted: the real globals, plus mlviz and the narration functions. */
static void env_trusted(lua_State *L, const struct luahost *h, int mlviz)
{
    lua_pushvalue(L, mlviz);
    lua_setglobal(L, "mlviz");
    lua_pushglobaltable(L);
    luaL_setfuncs(L, narration_funcs, 0);
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
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_env);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_api);
    lua_pop(L, 1);
}

/* os in the sandbox: the clock and the calendar only. Sets api.os. */
static void env_sandbox_os(lua_State *L, int api)
{
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
    /* The real os library is not needed by anything else. */
    lua_pushnil(L);
    lua_setglobal(L, "os");
}

/* Pushes the allow-list table: the safe globals, the narration functions,
 * the sandbox's load/require/collectgarbage, os and mlviz; any other name
 * fails loudly. */
static int env_allow_list(lua_State *L, int mlviz)
{
    lua_newtable(L);
    int api = lua_gettop(L);
    for (int i = 0; safe_base[i]; i++) {
        lua_getglobal(L, safe_base[i]);
        lua_setfield(L, api, safe_base[i]);
    }
    const luaL_Reg extra[] = {
        {"load", l_safe_load},
        {"require", l_require},
        {"collectgarbage", l_collectgarbage},
        {NULL, NULL},
    };
    luaL_setfuncs(L, narration_funcs, 0);
    luaL_setfuncs(L, extra, 0);
    env_sandbox_os(L, api);
    /* Binary chunks cannot be loaded; do not hand out their maker either. */
    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    lua_pushvalue(L, mlviz);
    lua_setfield(L, api, "mlviz");
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, env_undeclared);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, api);
    return api;
}

/* Build the environment scripts see. Sandboxed: an empty table whose
 * fallback is a table of allowed names, itself failing loudly on anything
 * else, and refusing new globals. Trusted: the real globals. */
void lh_build_env(lua_State *L, struct luahost *h)
{
    env_open_libs(L, h);
    env_charge_work(L);
    env_seed_random(L, h);
    lh_push_mlviz(L, h);
    int mlviz = lua_gettop(L);
    if (h->opt.trusted) {
        env_trusted(L, h, mlviz);
        return;
    }
    int api = env_allow_list(L, mlviz);
    lua_pushvalue(L, api);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_api);
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
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lh_key_env);
    lua_settop(L, mlviz - 1);
}
