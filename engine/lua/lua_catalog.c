/* lua_catalog: mlviz.catalog, a read-only view of the hardware catalog.
 * Each kind's entries become Lua tables at the script's first look at that
 * kind, not when the host starts: most scripts never read the catalog, and
 * building all of it was most of the cost of a new host. */
#include "lua_internal.h"

static void ensure_built(lua_State *L);

/* ---- the catalog, read-only ------------------------------------------------------ */

/* Read-only proxy: upvalues (1) the real table, (2) a noun for messages,
 * (3) an array of keys in display order, (4) the catalog kind of an entry
 * or -1, (5) the catalog kind whose entries fill (1) and (3) at the first
 * look, or -1. */
static int ro_index(lua_State *L)
{
    ensure_built(L);
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
    ensure_built(L);
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
    ensure_built(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, lua_upvalueindex(3));
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, ro_next, 3);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* Turn [real table, order array] on the stack top into a proxy. */
static void make_proxy(lua_State *L, const char *what, int kind, int lazy_kind)
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
        lua_pushinteger(L, lazy_kind);
        lua_pushcclosure(L, fns[i], 5);
        lua_setfield(L, -2, names[i]);
    }
    lua_pushliteral(L, "read-only");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_replace(L, real);
    lua_pop(L, 1);
}

/* The entries of catalog kind k into the tables at `real` (id -> entry)
 * and `order` (ids in catalog order). */
static void fill_kind(lua_State *L, const struct catalog *cat, int k, int real, int order)
{
    const struct field_table *t = catalog_fields((enum catalog_kind)k);
    size_t n = cat ? catalog_count(cat, (enum catalog_kind)k) : 0;
    for (size_t i = 0; i < n; i++) {
        const void *e = catalog_entry(cat, (enum catalog_kind)k, i);
        lua_createtable(L, 0, (int)t->count);
        lua_createtable(L, (int)t->count, 0);
        lua_Integer nf = 0;
        for (size_t j = 0; j < t->count; j++) {
            const struct field *f = &t->fields[j];
            lh_push_field_value(L, f, e);
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
        make_proxy(L, what, k, -1);
        lua_setfield(L, real, hd->id);
        lua_pushstring(L, hd->id);
        lua_rawseti(L, order, (lua_Integer)i + 1);
    }
}

/* The key that marks a kind's real table as filled. */
static const char built_key = 'b';

/* In a proxy's metamethod: fill a lazy kind's tables at the first look (a
 * memory error halfway leaves them unmarked, to be filled again). */
static void ensure_built(lua_State *L)
{
    int kind = (int)lua_tointeger(L, lua_upvalueindex(5));
    if (kind < 0 || kind >= CATALOG_KIND_COUNT)
        return;
    int found = lua_rawgetp(L, lua_upvalueindex(1), &built_key);
    lua_pop(L, 1);
    if (found != LUA_TNIL)
        return;
    fill_kind(L, lh_host_of(L)->opt.cat, kind, lua_upvalueindex(1), lua_upvalueindex(3));
    lua_pushboolean(L, 1);
    lua_rawsetp(L, lua_upvalueindex(1), &built_key);
}

void lh_push_catalog(lua_State *L, const struct catalog *cat)
{
    (void)cat;       /* read from the host when a kind is first looked at */
    lua_newtable(L); /* kinds */
    lua_newtable(L); /* kind order */
    for (int k = 0; k < CATALOG_KIND_COUNT; k++) {
        lua_newtable(L); /* id -> entry, filled at the first look */
        lua_newtable(L); /* ids in catalog order, likewise */
        char what[64];
        snprintf(what, sizeof what, "mlviz.catalog.%s", catalog_kind_names[k]);
        make_proxy(L, what, -1, k);
        lua_setfield(L, -3, catalog_kind_names[k]);
        lua_pushstring(L, catalog_kind_names[k]);
        lua_rawseti(L, -2, k + 1);
    }
    make_proxy(L, "mlviz.catalog", -1, -1);
}
