/* lua_setup: the Setup class (mlviz.load, mlviz.setup, setup:get/set/copy/
 * eval/check/yaml/devices), the one conversion of a Lua value into a setup
 * field, and report tables built on report_visit. */
#include "lua_internal.h"
#include "paths.h"

#include <math.h>
#include <string.h>

#include "infile.h"
#include "report.h"

/* ---- setups -------------------------------------------------------------------- */

/* Field paths are strings, never numbers that happen to convert. */
static const char *check_path(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_typeerror(L, idx, "field path string");
    return lua_tostring(L, idx);
}

struct lsetup *lh_check_setup(lua_State *L, int idx)
{
    return luaL_checkudata(L, idx, SETUP_MT);
}

struct lsetup *lh_push_setup(lua_State *L, const struct setup *s)
{
    struct lsetup *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->s = *s;
    memset(&u->memo, 0, sizeof u->memo);
    luaL_setmetatable(L, SETUP_MT);
    lh_follow_setup(L, s);
    return u;
}

/* The one conversion of a Lua value into a setup field: numbers go in as
 * numbers where the field holds one, booleans as "true"/"false", anything
 * else through the field's text parser. Raises "fn: path: message". */
void lh_set_field(lua_State *L, struct setup *s, const struct field *f, int idx, const char *fn)
{
    char err[512];
    bool ok;
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
        lh_raisef(L, "%s: value for '%s' must be a number, string or boolean (got %s)", fn, f->path,
                  luaL_typename(L, idx));
        return;
    }
    if (!ok)
        lh_raisef(L, "%s: %s: %s", fn, f->path, err);
}

/* The field at path, or an error naming the nearest one. */
const struct field *lh_check_field(lua_State *L, const char *path, const char *fn)
{
    const struct field *f = fields_find(setup_fields(), path);
    if (!f) {
        char err[512];
        struct setup tmp;
        setup_defaults(&tmp);
        setup_set(&tmp, path, "", err, sizeof err); /* writes the did-you-mean message */
        lh_api_error(L, fn, err);
    }
    return f;
}

/* Store the Lua value at idx into the field at path. */
static void set_field_value(lua_State *L, struct setup *s, const char *path, int idx,
                            const char *fn)
{
    lh_set_field(L, s, lh_check_field(L, path, fn), idx, fn);
}

/* Apply a nested (YAML-shaped) or dotted-key table onto a setup. */
static void apply_table(lua_State *L, struct setup *s, int idx, const char *prefix, int depth,
                        const char *fn)
{
    if (depth >= LUAHOST_SETUP_MAX_DEPTH)
        lh_raisef(L,
                  "%s: table nested too deeply under '%s' (setup tables have at most %d "
                  "levels)",
                  fn, prefix, LUAHOST_SETUP_MAX_DEPTH);
    luaL_checkstack(L, 4, "setup table"); /* each level holds a key and a value */
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            lh_raisef(L, "%s: keys must be field names (got a %s key under '%s')", fn,
                      luaL_typename(L, -2), prefix[0] ? prefix : "the top");
        }
        const char *k = lua_tostring(L, -2);
        char path[256];
        int n = snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", k);
        if (n < 0 || (size_t)n >= sizeof path)
            lh_raisef(L, "%s: field path too long under '%s'", fn, prefix[0] ? prefix : "the top");
        if (lua_type(L, -1) == LUA_TTABLE)
            apply_table(L, s, -1, path, depth + 1, fn);
        else if (!(depth == 0 && strcmp(k, "preset") == 0))
            set_field_value(L, s, path, -1, fn);
        lua_pop(L, 1);
    }
}

/* The sandbox's test of a path or preset name: what paths_is_path decides,
 * but a name in the current directory is looked at without following a
 * link, so a planted link tells nothing about what it points to. */
static bool names_a_path(const struct luahost *h, const char *arg)
{
    if (h->opt.trusted)
        return paths_is_path(PATHS_PRESET, arg);
    return strchr(arg, '/') || infile_exists_below(".", arg) || paths_is_path(PATHS_PRESET, arg);
}

/* Loads a setup a script names: a preset, or a file. Sandboxed, a file is
 * read below the current or the script's directory only, and so is every
 * file it names (setup_load_below). */
static bool load_named_setup(struct luahost *h, const char *arg, const struct catalog *cat,
                             struct setup *s, char *err, size_t err_len)
{
    char path[LUAHOST_PATH_LEN * 2];
    if (!names_a_path(h, arg)) {
        if (paths_shipped(PATHS_PRESET, arg, path, sizeof path))
            return setup_load_file(s, path, cat, err, err_len);
        char dir[LUAHOST_PATH_LEN];
        paths_shipped_dir(PATHS_PRESET, dir, sizeof dir);
        snprintf(err, err_len, "no preset '%s' (presets live in %s)", arg, dir);
        return false;
    }
    if (h->opt.trusted) {
        int w = snprintf(path, sizeof path, "%s/%s", h->dir, arg);
        bool in_dir = arg[0] != '/' && !lh_file_exists(arg) && w > 0 && (size_t)w < sizeof path &&
                      lh_file_exists(path);
        return setup_load_file(s, in_dir ? path : arg, cat, err, err_len);
    }
    char why[96];
    if (!infile_check_below(arg, why, sizeof why)) {
        snprintf(err, err_len,
                 "'%s' is %s: the sandbox only reads setup files below the current or "
                 "the script's directory (use --trust to lift it)",
                 arg, why);
        return false;
    }
    bool in_script_dir = !infile_exists_below(".", arg) && infile_exists_below(h->dir, arg);
    if (!in_script_dir)
        return setup_load_below(s, ".", arg, arg, cat, err, err_len);
    snprintf(path, sizeof path, "%s/%s", h->dir, arg);
    return setup_load_below(s, h->dir, arg, path, cat, err, err_len);
}

const struct catalog *lh_need_catalog(lua_State *L, struct luahost *h, const char *fn)
{
    if (!h->opt.cat)
        lh_raisef(L, "%s: no catalog loaded", fn);
    return h->opt.cat;
}

int lh_load(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    const char *arg = luaL_checkstring(L, 1);
    const struct catalog *cat = lh_need_catalog(L, h, "load");
    char err[LUAHOST_MSG_LEN];
    struct setup s;
    if (!load_named_setup(h, arg, cat, &s, err, sizeof err))
        return lh_api_error(L, "load", err);
    lh_push_setup(L, &s);
    return 1;
}

int lh_setup(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    struct setup s;
    luaL_checktype(L, 1, LUA_TTABLE);
    setup_defaults(&s);
    if (lua_getfield(L, 1, "preset") != LUA_TNIL) {
        const char *name = luaL_checkstring(L, -1);
        char err[LUAHOST_MSG_LEN];
        if (!load_named_setup(h, name, lh_need_catalog(L, h, "setup"), &s, err, sizeof err))
            return lh_api_error(L, "setup", err);
    }
    lua_pop(L, 1);
    apply_table(L, &s, 1, "", 0, "setup");
    lh_push_setup(L, &s);
    return 1;
}

void lh_push_field_value(lua_State *L, const struct field *f, const void *obj)
{
    double v;
    switch (f->type) {
    case FIELD_INT:
        if ((f->flags & FIELD_INT_AUTO) && fields_get_number(f, obj) == 0)
            lua_pushliteral(L, "auto");
        else
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
    struct lsetup *u = lh_check_setup(L, 1);
    const char *path = check_path(L, 2);
    const struct field *f = fields_find(setup_fields(), path);
    if (!f) {
        char buf[8], err[512];
        setup_get(&u->s, path, buf, sizeof buf, err, sizeof err);
        return lh_api_error(L, "get", err);
    }
    lh_push_field_value(L, f, &u->s);
    return 1;
}

static int setup_set_m(lua_State *L)
{
    struct lsetup *u = lh_check_setup(L, 1);
    if (lua_type(L, 2) == LUA_TTABLE) {
        apply_table(L, &u->s, 2, "", 0, "set");
    } else {
        const char *path = check_path(L, 2);
        luaL_checkany(L, 3);
        set_field_value(L, &u->s, path, 3, "set");
    }
    lh_follow_setup(L, &u->s);
    lua_settop(L, 1);
    return 1; /* the setup, for chaining */
}

static int setup_copy_m(lua_State *L)
{
    struct lsetup *u = lh_check_setup(L, 1);
    lh_push_setup(L, &u->s);
    if (lua_type(L, 2) == LUA_TTABLE) {
        struct lsetup *c = lua_touserdata(L, -1);
        apply_table(L, &c->s, 2, "", 0, "copy");
        lh_follow_setup(L, &c->s);
    }
    return 1;
}

/* setup:eval() -> the whole report table (filled as it is read:
 * lua_report.c). setup:eval("tokens_per_s", "memory.fits") or
 * setup:eval{"tokens_per_s", "memory.fits"} -> just those values, in that
 * order: no table is built, and without a verdict sentence among them the
 * evaluation is the numbers-only one, so a loop that reads two figures
 * pays for the numbers alone. */
static int setup_eval_m(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    struct lsetup *u = lh_check_setup(L, 1);
    struct resolved r;
    struct model_report o;
    char err[LUAHOST_MSG_LEN];
    const struct catalog *cat = lh_need_catalog(L, h, "eval");
    /* "auto" values the checks need as numbers are settled first, in place. */
    if (!model_settle_auto(&u->s, cat, err, sizeof err) ||
        !setup_resolve_memo(&u->s, cat, &u->memo, &r, err, sizeof err))
        return lh_api_error(L, "eval", err);
    /* The names form skips the verdict's sentences unless it reads one. */
    if (lua_gettop(L) > 1) {
        if (lh_picks_need_words(L))
            model_eval(&u->s, &r, &o);
        else
            model_eval_numbers(&u->s, &r, &o);
        return lh_push_picked(L, &u->s, &r, &o);
    }
    model_eval(&u->s, &r, &o);
    lh_push_report(L, &u->s, &r, &o);
    lh_follow_setup(L, &u->s);
    return 1;
}

/* setup:infer() -> the serving report (the fields of `mlviz infer
 * --format json`); setup:infer{batch = 64, ...} evaluates a copy with
 * those inference.* fields set first. */
static int setup_infer_m(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    struct lsetup *u = lh_check_setup(L, 1);
    struct setup *s = &u->s;
    struct lsetup *copy = NULL;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        copy = lh_push_setup(L, &u->s); /* at index 3 */
        s = &copy->s;
        lua_pushnil(L);
        while (lua_next(L, 2) != 0) {
            char path[FIELD_STR_LEN + 16];
            if (lua_type(L, -2) != LUA_TSTRING)
                return luaL_error(L, "infer: settings are named (inference field names)");
            snprintf(path, sizeof path, "inference.%s", lua_tostring(L, -2));
            lh_set_field(L, s, lh_check_field(L, path, "infer"), -1, "infer");
            lua_pop(L, 1);
        }
    }
    struct resolved r;
    char err[LUAHOST_MSG_LEN];
    const struct catalog *cat = lh_need_catalog(L, h, "infer");
    if (!model_settle_auto(s, cat, err, sizeof err) || !setup_resolve(s, cat, &r, err, sizeof err))
        return lh_api_error(L, "infer", err);
    struct infer_report o;
    infer_eval(s, &r, &o);
    lh_push_report_table(L, infer_report_fields, infer_report_field_count, &o, s, &r);
    return 1;
}

static int setup_check_m(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    struct lsetup *u = lh_check_setup(L, 1);
    struct resolved r;
    char err[LUAHOST_MSG_LEN];
    const struct catalog *cat = lh_need_catalog(L, h, "check");
    if (model_settle_auto(&u->s, cat, err, sizeof err) &&
        setup_resolve(&u->s, cat, &r, err, sizeof err)) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
}

static int setup_yaml_m(lua_State *L)
{
    struct lsetup *u = lh_check_setup(L, 1);
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
    struct lsetup *u = lh_check_setup(L, 1);
    lua_pushinteger(L, setup_devices(&u->s));
    return 1;
}

static int setup_tostring(lua_State *L)
{
    struct lsetup *u = lh_check_setup(L, 1);
    lua_pushfstring(L, "setup '%s' (%I x %s)", u->s.name, (lua_Integer)setup_devices(&u->s),
                    u->s.cluster.node.accelerator);
    return 1;
}

static const luaL_Reg setup_methods[] = {
    {"get", setup_get_m},         {"set", setup_set_m},     {"copy", setup_copy_m},
    {"eval", setup_eval_m},       {"check", setup_check_m}, {"yaml", setup_yaml_m},
    {"devices", setup_devices_m}, {"infer", setup_infer_m}, {NULL, NULL},
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

void lh_new_class(lua_State *L, const char *mt, const luaL_Reg *methods, const char *what,
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

void lh_setup_register(lua_State *L)
{
    lh_new_class(L, SETUP_MT, setup_methods, "setup", NULL, setup_tostring);
}
