/* lua_sim: the Sim class (mlviz.sim, sim:at/run/set/counters/series/
 * report/setup/time/tick/close): the step loop driven from a script, its memory
 * counted against the cap, its callbacks run protected. */
#include "counter_fields.h"
#include "lua_internal.h"

#include <math.h>
#include <string.h>

/* ---- simulations --------------------------------------------------------------- */

/* Raise the memory-cap error for C memory the script asked for. */
_Noreturn static int sim_memory_error(lua_State *L, struct luahost *h, size_t bytes,
                                      const char *what)
{
    char need[32];
    snprintf(need, sizeof need, "%.1f", (double)bytes / (1 << 20));
    lh_raisef(L,
              "sim: memory cap of %d MiB exceeded (raise it with --memory): the "
              "simulation needs %s MiB more for %s",
              (int)(h->mem_cap >> 20), need, what);
    LH_RAISED();
}

/* Bring the sim's charge up to date with what it holds now (its event
 * queue grows as sim:at schedules). */
static void recharge_sim(lua_State *L, struct lsim *u)
{
    size_t now = sim_memory_bytes(u->sim);
    if (now == u->charged_bytes)
        return;
    if (!lh_host_charge(u->h, L, u->charged_bytes, now))
        sim_memory_error(L, u->h, now - u->charged_bytes, "its event queue (sim:at)");
    u->charged_bytes = now;
}

static struct lsim *check_sim(lua_State *L, int idx)
{
    struct lsim *u = luaL_checkudata(L, idx, SIM_MT);
    if (!u->sim || u->closed)
        lh_raisef(L, "sim: this simulation was closed");
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
        lh_copy_msg(err, err_len, "sim callback: Lua stack exhausted");
        return false;
    }
    int top = lua_gettop(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_sims);
    lua_rawgetp(L, -1, u); /* the sim userdata */
    if (lua_isnil(L, -1)) {
        lua_settop(L, top);
        lh_copy_msg(err, err_len, "sim callback: the simulation is gone");
        return false;
    }
    lua_getiuservalue(L, -1, 1); /* callbacks table */
    lua_rawgeti(L, -1, callback_id);
    lua_pushvalue(L, -3); /* fn(sim) */
    lh_clock_enter(h);    /* played: the front end runs the sim between resumes */
    /* Played, the front end is inside sim_run: the callback must not run or
     * close this sim again any more than headless. */
    lua_State *was_running = u->running;
    u->running = L;
    int st = lua_pcall(L, 1, 0, 0);
    u->running = was_running;
    lh_clock_leave(h);
    if (st == LUA_OK) {
        lua_settop(L, top);
        return true;
    }
    /* Keep the error value for sim:run to re-raise with its own position. */
    const char *msg = lua_tostring(L, -1);
    lh_copy_msg(err, err_len, msg ? msg : "error in sim callback");
    lua_rawseti(L, -2, 0); /* callbacks[0] = error */
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

static const char *const sim_option_names[] = {
    "seed",
    "jitter",
    "failures",
    "thermal",
    "tick_s",
    "sample_interval_s",
    "series_capacity",
    "compute_jitter_cv",
    "storage_jitter_cv",
    NULL,
};

/* Upper bounds of sim options, to refuse absurd values with a message. */
#define SIM_MAX_TICK_S 3600.0
#define SIM_MAX_SERIES 10000000.0
#define SIM_MAX_CV     10.0

/* Whether the options at index 2 give tick_s. */
static bool tick_given(lua_State *L)
{
    if (lua_type(L, 2) != LUA_TTABLE)
        return false;
    bool given = lua_getfield(L, 2, "tick_s") != LUA_TNIL;
    lua_pop(L, 1);
    return given;
}

int lh_sim(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    struct lsetup *s = lh_check_setup(L, 1);
    const struct catalog *cat = lh_need_catalog(L, h, "sim");
    struct sim_options o;
    sim_default_options(&o);
    o.seed = h->opt.seed;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lh_check_known_keys(L, 2, sim_option_names, "sim");
        o.seed = (uint64_t)lh_opt_num(L, 2, "seed", (double)o.seed, 0, 9007199254740992.0);
        o.jitter = lh_opt_bool(L, 2, "jitter", o.jitter);
        o.failures = lh_opt_bool(L, 2, "failures", o.failures);
        o.thermal = lh_opt_bool(L, 2, "thermal", o.thermal);
        o.tick_s = lh_opt_num(L, 2, "tick_s", o.tick_s, 1e-6, SIM_MAX_TICK_S);
        o.sample_interval_s = lh_opt_num(L, 2, "sample_interval_s", o.sample_interval_s, 1e-6, 1e9);
        o.series_capacity = (size_t)lh_opt_num(L, 2, "series_capacity", (double)o.series_capacity,
                                               2, SIM_MAX_SERIES);
        o.compute_jitter_cv =
            lh_opt_num(L, 2, "compute_jitter_cv", o.compute_jitter_cv, 0, SIM_MAX_CV);
        o.storage_jitter_cv =
            lh_opt_num(L, 2, "storage_jitter_cv", o.storage_jitter_cv, 0, SIM_MAX_CV);
    }
    char err[LUAHOST_MSG_LEN];
    /* "auto" values become numbers first, in place (as eval does). */
    if (!model_settle_auto(&s->s, cat, err, sizeof err))
        return lh_api_error(L, "sim", err);
    /* No view draws this sim: without tick_s, the coarsest tick that
     * leaves its results as they are (a setup that cannot run is refused
     * by sim_new below, with the same message). */
    bool tick_auto = !tick_given(L) && !h->opt.played;
    struct sim_tick_choice choice;
    if (tick_auto && sim_auto_tick(&s->s, cat, &o, 0, NULL, 0, &choice, err, sizeof err))
        o.tick_s = choice.tick_s;
    struct lsim *u = lua_newuserdatauv(L, sizeof *u, 1);
    memset(u, 0, sizeof *u);
    u->h = h;
    u->tick_s = o.tick_s;
    u->tick_auto = tick_auto;
    luaL_setmetatable(L, SIM_MT);
    lua_newtable(L);
    lua_setiuservalue(L, -2, 1);
    /* Ask before allocating: the series buffers are the script's memory. */
    size_t need = sim_new_bytes(&o);
    if (!lh_host_charge(h, L, 0, need))
        return sim_memory_error(L, h, need, "its series (series_capacity samples)");
    u->sim = sim_new(&s->s, cat, &o, err, sizeof err);
    if (!u->sim) {
        lh_host_charge(h, L, need, 0);
        return lh_api_error(L, "sim", err);
    }
    u->charged_bytes = need;
    recharge_sim(L, u);
    sim_set_callback(u->sim, sim_callback, u);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_sims);
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
    ev.time_s = lh_check_duration(L, 2, "at");
    if (lua_type(L, 3) == LUA_TFUNCTION) {
        ev.kind = SIM_EVENT_CALLBACK;
        ev.callback_id = ++u->next_id;
        lua_getiuservalue(L, 1, 1);
        lua_pushvalue(L, 3);
        lua_rawseti(L, -2, ev.callback_id);
        lua_pop(L, 1);
    } else if (lua_type(L, 3) == LUA_TTABLE) {
        lh_check_known_keys(L, 3, event_keys, "at");
        if (lua_getfield(L, 3, "event") != LUA_TSTRING)
            return luaL_error(L,
                              "at: the event table needs event = \"fail_device\", "
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
                return lh_api_error(L, "at", err);
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
            return luaL_error(L, "at: event value must be a number (got %s)", luaL_typename(L, -1));
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
        return lh_api_error(L, "at", err);
    lua_settop(L, 1);
    return 1;
}

/* After the front end advanced a played sim: re-raise a callback's error. */
_Noreturn static int raise_callback_error(lua_State *L, struct lsim *u, int sim_idx,
                                          const char *err)
{
    if (!u->has_error) {
        lh_raisef(L, "run: %s", err);
        LH_RAISED();
    }
    u->has_error = false;
    lua_getiuservalue(L, sim_idx, 1);
    lua_rawgeti(L, -1, 0);
    lua_pushnil(L);
    lua_rawseti(L, -3, 0);
    if (lua_type(L, -1) == LUA_TSTRING)
        lua_pushfstring(L, "%s (in an event callback of sim:run)", lua_tostring(L, -1));
    lua_error(L);
    LH_RAISED();
}

static int sim_run_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status, (void)ctx;
    struct luahost *h = lh_host_of(L);
    struct lsim *u = check_sim(L, 1);
    h->req.sim = NULL;
    if (u->has_error)
        return raise_callback_error(L, u, 1, "");
    lua_settop(L, 1);
    return 1;
}

static int sim_run_m(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    struct lsim *u = check_sim(L, 1);
    double d = lh_check_duration(L, 2, "run");
    char err[LUAHOST_MSG_LEN];
    if (u->running)
        return luaL_error(L, "run: this simulation is already running (sim:run inside its own "
                             "event callback)");
    /* Whole ticks; what they leave over (at most half a tick either way)
     * goes to the next run, so that runs of a fraction of a tick add up. */
    double want = d + u->carry_s;
    double ticks = floor(want / u->tick_s + 0.5);
    if (ticks > LUAHOST_MAX_SIM_TICKS) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "%g s in ticks of %g s is more than one run may take (2^53 "
                 "ticks)",
                 d, u->tick_s);
        return lh_api_error(L, "run", msg);
    }
    if (lh_can_yield_to_host(h, L)) {
        u->carry_s = 0;            /* the front end runs d as it is */
        h->follow_pending = false; /* the view shows this sim */
        h->yield_kind = LUAHOST_RUN;
        h->req.sim = u->sim;
        h->req.duration_s = d;
        lua_settop(L, 1);
        lh_hold_for_view(L, h, 1);
        return lua_yieldk(L, 0, 0, sim_run_k);
    }
    /* The step loop runs in C where the count hook cannot fire: advance in
     * slices and look at the limits between them. */
    u->carry_s = want - ticks * u->tick_s;
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
        lh_host_check(L, h); /* ticks are not instructions: a long run is legitimate */
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
        return lh_api_error(L, "set", err);
    lua_settop(L, 1);
    return 1;
}

/* sim:counters(): every counter of counter_fields[] (engine/sim), stored or
 * derived, under the key `mlviz sim` prints it with. */
static int sim_counters_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    struct sim_counters c;
    sim_counters(u->sim, &c);
    lua_createtable(L, 0, (int)counter_field_count);
    for (size_t k = 0; k < counter_field_count; k++) {
        const struct counter_field *f = &counter_fields[k];
        switch (f->type) {
        case COUNTER_COUNT:
            lua_pushinteger(L, (lua_Integer)counter_field_uint(f, &c));
            break;
        case COUNTER_BOOL:
            lua_pushboolean(L, counter_field_number(f, &c) != 0);
            break;
        case COUNTER_STAGES:
            lua_createtable(L, 0, STAGE_COUNT);
            for (int i = 0; i < STAGE_COUNT; i++) {
                lua_pushnumber(L, counter_field_stage(f, &c, i));
                lua_setfield(L, -2, stage_table[i].name);
            }
            break;
        default:
            lua_pushnumber(L, counter_field_number(f, &c));
            break;
        }
        lua_setfield(L, -2, f->key);
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
    lh_host_charge_steps(L, lh_host_of(L), n); /* up to series_capacity (1e7) values per call */
    lua_createtable(L, (int)(n < INT32_MAX ? n : 0), 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, sim_series_at(u->sim, (enum sim_series_id)id, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int sim_report_m(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    struct lsim *u = check_sim(L, 1);
    const struct setup *s = sim_setup(u->sim);
    struct resolved r;
    char err[LUAHOST_MSG_LEN];
    if (!setup_resolve(s, lh_need_catalog(L, h, "report"), &r, err, sizeof err))
        return lh_api_error(L, "report", err);
    lh_push_report(L, s, &r, sim_report(u->sim));
    return 1;
}

static int sim_setup_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    lh_push_setup(L, sim_setup(u->sim));
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

/* sim:tick() -> seconds, automatic: the step loop's tick, and whether
 * sim_auto_tick chose it. */
static int sim_tick_m(lua_State *L)
{
    struct lsim *u = check_sim(L, 1);
    lua_pushnumber(L, u->tick_s);
    lua_pushboolean(L, u->tick_auto);
    return 2;
}

static int sim_close_m(lua_State *L)
{
    struct lsim *u = luaL_checkudata(L, 1, SIM_MT);
    struct luahost *h = lh_host_of(L);
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
    {"at", sim_at_m},
    {"run", sim_run_m},
    {"set", sim_set_m},
    {"counters", sim_counters_m},
    {"series", sim_series_m},
    {"report", sim_report_m},
    {"setup", sim_setup_m},
    {"time", sim_time_m},
    {"tick", sim_tick_m},
    {"close", sim_close_m},
    {NULL, NULL},
};

void lh_sim_register(lua_State *L)
{
    lh_new_class(L, SIM_MT, sim_methods, "sim", sim_gc, sim_tostring);
}
