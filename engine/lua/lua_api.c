/* lua_api: the `mlviz` table and the narration globals (print, say,
 * pause, focus, show, mark), small utilities exposed to scripts, and the
 * argument helpers the other files share (durations, stages, option tables). */
#include "lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

/* ---- small helpers ------------------------------------------------------------- */

bool lh_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

void lh_dir_of(const char *path, char *buf, size_t len)
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
double lh_check_duration(lua_State *L, int idx, const char *fn)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        double v = lua_tonumber(L, idx);
        if (!isfinite(v) || v < 0)
            lh_raisef(L, "%s: duration must be a finite number of seconds >= 0", fn);
        return v;
    }
    if (lua_type(L, idx) == LUA_TSTRING) {
        double v;
        const char *t = lua_tostring(L, idx);
        if (!fields_parse_duration(t, &v))
            lh_raisef(L, "%s: bad duration '%s' (write 90s, 15m, 6h, 2d or seconds)", fn, t);
        if (!isfinite(v)) /* "1e308d" parses, but to infinity */
            lh_raisef(L, "%s: duration '%s' is too long", fn, t);
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
            lh_raisef(L, "%s: stage number must be 1-%d", fn, STAGE_COUNT);
        return (int)n - 1;
    }
    const char *name = luaL_checkstring(L, idx);
    int found = stage_find(name);
    if (found >= 0)
        return found;
    const char *names[STAGE_COUNT + 1];
    stage_name_list(names);
    const char *near = fields_suggest_word(name, names, STAGE_COUNT);
    lh_raisef(L,
              "%s: unknown stage '%s'%s%s%s (stages: data, cpus, accelerators, interconnect, "
              "infrastructure or 1-5)",
              fn, name, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    return 0;
}

/* ---- output -------------------------------------------------------------------- */

void lh_host_print(struct luahost *h, const char *text)
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

void lh_host_print_header(struct luahost *h, const char *text)
{
    if (!h->describing && h->opt.hooks.table_header) {
        h->opt.hooks.table_header(h->opt.hooks.ctx, text);
        return;
    }
    lh_host_print(h, text);
}

/* print(...): tab-separated tostring of the arguments, one line. */
int lh_print(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
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
    lh_host_print(h, lua_tostring(L, -1));
    return 0;
}

int lh_say(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    const char *text = luaL_checkstring(L, 1);
    if (h->opt.hooks.say) {
        h->opt.hooks.say(h->opt.hooks.ctx, text);
        return 0;
    }
    lua_pushfstring(L, "  > %s", text);
    lh_host_print(h, lua_tostring(L, -1));
    return 0;
}

bool lh_can_yield_to_host(struct luahost *h, lua_State *L)
{
    return h->opt.played && h->co && L == h->co && lua_isyieldable(L);
}

/* Played: the view follows the setups a script makes and evaluates until
 * it shows something itself; at each pause the latest one goes on screen. */
void lh_follow_setup(lua_State *L, const struct setup *s)
{
    struct luahost *h = lh_host_of(L);
    if (!h || !h->opt.played || !h->opt.hooks.show)
        return;
    h->follow = *s;
    h->follow_pending = true;
}

int lh_pause(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    if (!lh_can_yield_to_host(h, L))
        return 0; /* headless, or inside a callback: nothing to wait for */
    if (h->follow_pending) {
        h->follow_pending = false;
        h->opt.hooks.show(h->opt.hooks.ctx, &h->follow);
    }
    h->yield_kind = LUAHOST_PAUSE;
    return lua_yield(L, 0);
}

int lh_focus(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    int stage = stage_from_value(L, 1, "focus");
    if (h->opt.hooks.focus)
        h->opt.hooks.focus(h->opt.hooks.ctx, stage);
    return 0;
}

/* The front end keeps drawing the sim at idx after it is handed over: hold
 * its Lua object (until another is handed over, or the host goes). */
void lh_hold_for_view(lua_State *L, struct luahost *h, int idx)
{
    lua_pushvalue(L, idx);
    luaL_unref(L, LUA_REGISTRYINDEX, h->held_sim_ref);
    h->held_sim_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

/* show(setup_or_sim [, {focus = stage}]): what the play view draws from now
 * on. A sim is handed to the front end like sim:run of no time (outside a
 * callback); headless, show only checks its arguments. */
int lh_show(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
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
    if (!lh_can_yield_to_host(h, L) || sim->running)
        return 0; /* inside a callback: the sim is on screen already or soon */
    h->yield_kind = LUAHOST_RUN;
    h->req.sim = sim->sim;
    h->req.duration_s = 0;
    lh_hold_for_view(L, h, 1);
    return lua_yield(L, 0);
}

int lh_mark(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    const char *label = luaL_checkstring(L, 1);
    if (h->opt.hooks.mark)
        h->opt.hooks.mark(h->opt.hooks.ctx, label);
    return 0;
}

/* mode("infer" | "train"): the view reads the five stages for serving the
 * setup on screen or for training it; headless it only checks the name. */
int lh_mode(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    static const char *const modes[] = {"train", "infer", NULL};
    int m = luaL_checkoption(L, 1, NULL, modes);
    if (h->opt.played && h->opt.hooks.mode)
        h->opt.hooks.mode(h->opt.hooks.ctx, m == 1);
    return 0;
}

bool lh_opt_bool(lua_State *L, int t, const char *k, bool dflt)
{
    bool v = dflt;
    int ty = lua_getfield(L, t, k);
    if (ty == LUA_TBOOLEAN)
        v = lua_toboolean(L, -1);
    else if (ty != LUA_TNIL)
        lh_raisef(L, "sim: option '%s' must be a boolean (got %s)", k, luaL_typename(L, -1));
    lua_pop(L, 1);
    return v;
}

double lh_opt_num(lua_State *L, int t, const char *k, double dflt, double lo, double hi)
{
    double v = dflt;
    int ty = lua_getfield(L, t, k);
    if (ty == LUA_TNUMBER)
        v = lua_tonumber(L, -1);
    else if (ty == LUA_TSTRING && (strstr(k, "_s") || strcmp(k, "duration") == 0))
        v = lh_check_duration(L, -1, "sim");
    else if (ty != LUA_TNIL)
        lh_raisef(L, "sim: option '%s' must be a number (got %s)", k, luaL_typename(L, -1));
    if (ty != LUA_TNIL && (!(v >= lo) || !(v <= hi))) {
        /* lua_pushfstring has no %g: the numbers are written here */
        char range[96];
        snprintf(range, sizeof range, "%g..%g (got %g)", lo, hi, v);
        lh_raisef(L, "sim: option '%s' must be within %s", k, range);
    }
    lua_pop(L, 1);
    return v;
}

void lh_check_known_keys(lua_State *L, int t, const char *const *names, const char *fn)
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
            lh_raisef(L, "%s: unknown option '%s'%s%s%s", fn, k ? k : luaL_typename(L, -2),
                      near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        }
        lua_pop(L, 1);
    }
}

/* ---- small utilities exposed to scripts -------------------------------------------- */

static int l_parse_duration(lua_State *L)
{
    lua_pushnumber(L, lh_check_duration(L, 1, "parse_duration"));
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
        lh_push_field_value(L, f, &d);
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
        return luaL_error(L,
                          "collective: unknown operation '%s' (all-reduce, all-gather, "
                          "reduce-scatter, broadcast)",
                          op);
    if (algi < 0)
        return luaL_error(L,
                          "collective: unknown algorithm '%s' (auto, ring, tree, "
                          "hierarchical)",
                          algo);
    if (!(bytes >= 0) || !isfinite(bytes))
        return luaL_error(L, "collective: bytes must be a finite number >= 0");
    lh_check_known_keys(L, 4, collective_keys, "collective");
    struct collective_net net = {0};
    net.devices = (int)lh_opt_num(L, 4, "devices", 8, 1, 1e8);
    net.per_node = (int)lh_opt_num(L, 4, "per_node", net.devices < 8 ? net.devices : 8, 1, 1e8);
    if (net.per_node > net.devices)
        net.per_node = net.devices;
    /* Defaults: NVLink-4 class inside a node, one 400G port per device outside. */
    net.intra_bw_gbs = lh_opt_num(L, 4, "intra_bw_gbs", 360, 1e-9, 1e9);
    net.intra_lat_s = lh_opt_num(L, 4, "intra_lat_s", 2e-6, 0, 10);
    net.inter_bw_gbs = lh_opt_num(L, 4, "inter_bw_gbs", 45, 1e-9, 1e9);
    net.inter_lat_s = lh_opt_num(L, 4, "inter_lat_s", 5e-6, 0, 10);
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
    {"load", lh_load},
    {"setup", lh_setup},
    {"sim", lh_sim},
    {"sweep", lh_sweep},
    {"plan", lh_plan},
    {"print_table", lh_print_table},
    {"write_csv", lh_write_csv},
    {"write_json", lh_write_json},
    {"params", lh_params},
    {"fields", l_fields},
    {"collective", l_collective},
    {"parse_duration", l_parse_duration},
    {"format_duration", l_format_duration},
    {"format_si", l_format_si},
    {NULL, NULL},
};

void lh_push_mlviz(lua_State *L, struct luahost *h)
{
    luaL_newlib(L, mlviz_funcs);
    lh_push_catalog(L, h->opt.cat);
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
