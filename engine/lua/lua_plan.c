/* lua_plan: mlviz.plan, the search of `mlviz plan` run from a script,
 * under the script's limits. */
#include "lua_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"

/* ---- mlviz.plan ------------------------------------------------------------------- */

/* Scripts search at most this many candidates (a few seconds); larger
 * spaces belong to `mlviz plan` and its shards. */
#define PLAN_SCRIPT_MAX_CANDIDATES (UINT64_C(1) << 26)
#define PLAN_MT                    "mlviz.plan_work"

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
 * a few hundred Lua instructions), per candidate cut without one, per unit
 * ranked by its bound while preparing (a fraction of a microsecond, its
 * share of the sort included) and per row of the result table. */
#define PLAN_EVAL_COST    200
#define PLAN_CUT_PER_STEP 64
#define PLAN_RANK_COST    16
#define PLAN_ROW_COST     200
/* Seconds between two looks at the budget and the limits while the search
 * runs (its work between two looks is the most it overshoots by). */
#define PLAN_CHECK_S 0.005

struct plan_watch {
    struct luahost *h;
    struct plan_progress *progress;
    uint64_t charged; /* budget steps charged for the search so far */
};

/* The search's work so far in budget steps: every candidate decided, every
 * one evaluated in full and every unit ranked while preparing. */
static uint64_t plan_cost(const struct plan_progress_now *p)
{
    return p->evaluated * PLAN_EVAL_COST + p->done / PLAN_CUT_PER_STEP + p->ranked * PLAN_RANK_COST;
}

/* Charges the work since the last call to the budget; the steps to raise
 * for (at the end, on the script's thread). */
static uint64_t plan_charge(struct plan_watch *w)
{
    struct plan_progress_now now;
    plan_progress_read(w->progress, &now);
    uint64_t cost = plan_cost(&now), steps = cost > w->charged ? cost - w->charged : 0;
    w->charged += steps;
    return steps;
}

/* Called on the script's thread while the search runs, the preparation
 * included (about ten times a second): its work counts against the budget
 * as it goes, and the budget, the time limit and an interrupt stop the
 * workers (the error is raised once they are done). */
static void plan_limit_check(void *ctx, const struct plan_progress *p)
{
    (void)p;
    struct plan_watch *w = ctx;
    struct luahost *h = w->h;
    uint64_t steps = plan_charge(w);
    h->instructions = steps > UINT64_MAX - h->instructions ? UINT64_MAX : h->instructions + steps;
    if (lh_limits_hit(h))
        plan_progress_cancel(w->progress);
}

static const char *const plan_option_names[] = {"vary",    "max",     "objective", "top",
                                                "threads", "rescore", NULL};

/* opts.vary: an array of "path=values" strings, or a map path -> "values"
 * or path -> {values...}. */
static void plan_read_vary(lua_State *L, int t, struct plan_spec *spec)
{
    char arg[PLAN_ARG_LEN], err[LUAHOST_MSG_LEN];
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    if (n > 0) {
        for (lua_Integer i = 1; i <= n; i++) {
            if (lua_rawgeti(L, t, i) != LUA_TSTRING)
                lh_raisef(L, "plan: vary[%d] must be a string 'path=a,b,c'", (int)i);
            if (!plan_spec_vary(spec, lua_tostring(L, -1), err, sizeof err))
                lh_api_error(L, "plan", err);
            lua_pop(L, 1);
        }
        return;
    }
    lua_Integer others = 0;
    lua_Integer nk = lh_push_sorted_string_keys(L, t, &others);
    int keys = lua_gettop(L);
    if (others > 0)
        lh_raisef(L, "plan: vary maps field paths to values");
    for (lua_Integer i = 1; i <= nk; i++) {
        lua_rawgeti(L, keys, i);
        const char *path = lua_tostring(L, -1);
        int vt = lua_rawget(L, t) == LUA_TTABLE ? 1 : 0;
        size_t used = (size_t)snprintf(arg, sizeof arg, "%s=", path);
        if (!vt) {
            if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
                lh_raisef(L, "plan: vary['%s'] must be a string, a number or an array", path);
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
                    lh_raisef(L, "plan: vary['%s'][%d] must be a number, string or boolean", path,
                              (int)k);
                used +=
                    (size_t)snprintf(arg + used, sizeof arg - used, "%s%s", k > 1 ? "," : "", v);
                lua_pop(L, 1);
            }
        }
        if (used >= sizeof arg)
            lh_raisef(L, "plan: vary['%s'] is too long", path);
        if (!plan_spec_vary(spec, arg, err, sizeof err))
            lh_api_error(L, "plan", err);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void plan_read_options(lua_State *L, int opts, struct plan_spec *spec)
{
    char err[LUAHOST_MSG_LEN], arg[PLAN_ARG_LEN];
    lh_check_known_keys(L, opts, plan_option_names, "plan");
    if (lua_getfield(L, opts, "vary") == LUA_TTABLE)
        plan_read_vary(L, lua_gettop(L), spec);
    else if (!lua_isnil(L, -1))
        lh_raisef(L, "plan: vary must be a table");
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "max") == LUA_TTABLE) {
        lua_Integer others = 0;
        lua_Integer nk = lh_push_sorted_string_keys(L, -1, &others);
        if (others > 0)
            lh_raisef(L, "plan: max maps figure names to numbers");
        for (lua_Integer i = 1; i <= nk; i++) {
            lua_rawgeti(L, -1, i);
            const char *name = lua_tostring(L, -1);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, -4) != LUA_TNUMBER)
                lh_raisef(L, "plan: max['%s'] must be a number", name);
            snprintf(arg, sizeof arg, "%s=%.17g", name, lua_tonumber(L, -1));
            if (!plan_spec_max(spec, arg, err, sizeof err))
                lh_api_error(L, "plan", err);
            lua_pop(L, 2);
        }
        lua_pop(L, 1);
    } else if (!lua_isnil(L, -1)) {
        lh_raisef(L, "plan: max must be a table of figure = limit");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "objective") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING ||
            !plan_spec_objective(spec, lua_tostring(L, -1), err, sizeof err))
            lh_raisef(L, "plan: objective must be tokens_per_s, days, usd_total, energy_mwh or "
                         "mfu");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "top") != LUA_TNIL) {
        lua_Integer n = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        if (n < 1 || n > PLAN_TOP_MAX)
            lh_raisef(L, "plan: top must be a whole number from 1 to %d", PLAN_TOP_MAX);
        spec->top = (int)n;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "threads") != LUA_TNIL) {
        lua_Integer n = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        if (n < 1 || n > 64)
            lh_raisef(L, "plan: threads must be a whole number from 1 to 64");
        spec->threads = (int)n;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, opts, "rescore") != LUA_TNIL) {
        if (!lua_isboolean(L, -1))
            luaL_error(L, "plan: rescore must be true or false");
        spec->closed_form = !lua_toboolean(L, -1);
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
    /* Re-scored rows: the simulated step they carry and the closed form's. */
    if (e->sim_step_s > 0) {
        lua_pushnumber(L, e->sim_step_s);
        lua_setfield(L, -2, "simulated_step_s");
    }
    if (e->closed_step_s > 0) {
        lua_pushnumber(L, e->closed_step_s);
        lua_setfield(L, -2, "closed_form_step_s");
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
        lh_push_field_value(L, f, &s);
        lua_setfield(L, -2, f->path);
    }
    lua_setfield(L, -2, "changes");
    lh_push_setup(L, &s);
    lua_setfield(L, -2, "setup");
}

/* The front, fastest first (ties by candidate number). */
static int front_order(const void *a, const void *b)
{
    const struct plan_entry *x = a, *y = b;
    double dx = x->fig[PLAN_DAYS], dy = y->fig[PLAN_DAYS];
    if (isnan(dx) != isnan(dy)) /* a consistent order even for a NaN (last) */
        return isnan(dx) ? 1 : -1;
    if (!isnan(dx) && dx != dy)
        return dx < dy ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
}

/* The result table of mlviz.plan. */
static void push_plan_result(lua_State *L, struct plan_work *w)
{
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
    qsort(w->result.front, res->n_front, sizeof *w->result.front, front_order);
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
}

/* mlviz.plan(setup, {vary=, max=, objective=, top=, threads=}) -> {top, front,
 * base, candidates, evaluated, runnable}: the search of `mlviz plan`. */
int lh_plan(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    struct lsetup *base = lh_check_setup(L, 1);
    const struct catalog *cat = lh_need_catalog(L, h, "plan");
    lua_settop(L, 2);
    struct plan_work *w = lua_newuserdatauv(L, sizeof *w, 0);
    memset(w, 0, sizeof *w);
    if (luaL_newmetatable(L, PLAN_MT)) {
        lua_pushcfunction(L, plan_work_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    plan_spec_init(&w->spec);
    w->spec.report_s = PLAN_CHECK_S;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    w->spec.threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
    if (!lua_isnil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        plan_read_options(L, 2, &w->spec);
    }
    char err[LUAHOST_MSG_LEN];
    struct resolved r;
    if (!model_settle_auto(&base->s, cat, err, sizeof err) ||
        !setup_resolve(&base->s, cat, &r, err, sizeof err))
        return lh_api_error(L, "plan", err);
    if (!plan_space_build(&w->space, &base->s, &w->spec, cat, err, sizeof err))
        return lh_api_error(L, "plan", err);
    if (w->space.candidates > PLAN_SCRIPT_MAX_CANDIDATES) {
        snprintf(err, sizeof err,
                 "%llu candidates are more than a script may search (%llu); narrow vary or use "
                 "mlviz plan",
                 (unsigned long long)w->space.candidates,
                 (unsigned long long)PLAN_SCRIPT_MAX_CANDIDATES);
        return lh_api_error(L, "plan", err);
    }
    lh_host_check(L, h);
    struct plan_progress progress;
    plan_progress_init(&progress);
    struct plan_watch watch = {h, &progress, 0};
    bool ok = plan_run(&w->space, cat, &w->spec, &w->result, &progress, plan_limit_check, &watch,
                       err, sizeof err);
    lh_host_charge_steps(L, h, plan_charge(&watch)); /* the rest since the last report */
    if (!ok)
        return lh_api_error(L, "plan", err);
    if (w->result.cancelled)
        lh_host_check(L, h); /* raises the limit that stopped it */
    lh_host_charge_steps(L, h, (w->result.n_top + w->result.n_front + 1) * PLAN_ROW_COST);
    push_plan_result(L, w);
    return 1;
}
