/* lua_params: mlviz.params (a script's declared parameters, at most
 * LUAHOST_MAX_PARAMS) and the --name=value words of the command line. */
#include "lua_internal.h"

#include <string.h>

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
    struct luahost_param *p = &h->params[h->n_params++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->type, sizeof p->type, "%s", type);
    snprintf(p->default_text, sizeof p->default_text, "%s", luaL_tolstring(L, def_idx, NULL));
    lua_pop(L, 1);
    snprintf(p->help, sizeof p->help, "%s", help);
}

/* mlviz.params{ {"nodes", 64, "help"}, {name=, default=, help=} ... } -> values */
int lh_params(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_newtable(L);
    int values = lua_gettop(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_overrides);
    int over = lua_gettop(L);
    h->n_params = 0;
    lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
    if (n > LUAHOST_MAX_PARAMS) {
        h->params_over_cap = true; /* describing: the load fails with this message */
        return luaL_error(L, "params: %d parameters declared, a script may declare at most %d",
                          (int)(n < INT32_MAX ? n : INT32_MAX), LUAHOST_MAX_PARAMS);
    }
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
            return luaL_error(L, "params: '%s' needs a default (number, string or boolean)", name);
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
        lua_pushlightuserdata(L, (void *)&lh_key_describe_stop);
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

void lh_split_args(struct luahost *h, int argc, char **argv)
{
    lua_State *L = h->L;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_overrides);
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
bool lh_check_overrides(struct luahost *h, char *err, size_t err_len)
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
            if (!h->n_params && h->describe_cut)
                snprintf(list, sizeof list,
                         " before its first %llu instructions or %g s, where they are looked for",
                         (unsigned long long)LUAHOST_DESCRIBE_BUDGET, LUAHOST_DESCRIBE_TIME_S);
            snprintf(err, err_len, "%s: unknown option '--%s' (%s%s)", h->path, name,
                     h->n_params ? "the script's parameters: "
                                 : "the script declares no "
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
