/* lua_report: report tables. setup:eval() and sim:report() return a table
 * that fills itself as it is read: it keeps the evaluation (a copy of the
 * setup, what it resolved to and the model's report, in a userdata its
 * metatable holds), and reading a figure such as r.tokens_per_s computes
 * that one field and stores it in the table. The first read of anything
 * else (a group such as r.memory, a key that is no field), pairs(r), and
 * the writers that walk tables (mlviz.write_json, print_table, write_csv)
 * build every field at once (lh_report_complete) and drop the metatable:
 * from then on it is an ordinary table. A loop that reads one figure of
 * each report pays for that figure instead of the hundred others. */
#include "lua_internal.h"

#include <math.h>
#include <string.h>

#include "report.h"

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

static void tb_begin(void *ctx, const char *key)
{
    tb_open(ctx, key, 0);
}
static void tb_begin_list(void *ctx, const char *key)
{
    tb_open(ctx, key, SUGGESTION_MAX);
}

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

/* Every field of the report, built at once. */
static void push_full_report(lua_State *L, const struct setup *s, const struct resolved *r,
                             const struct model_report *o)
{
    struct table_builder b = {.L = L};
    struct report_visitor v = {&b,       tb_begin, tb_close, tb_begin_list,
                               tb_close, tb_num,   tb_str,   tb_bool};
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

/* Pushes the value of one report field; false (nothing pushed) when it
 * is not a single value (a group or a list). */
static bool push_field(lua_State *L, const struct report_field *f, const struct setup *s,
                       const struct resolved *r, const struct model_report *o)
{
    struct picked v = {LUA_TNONE, 0, NULL};
    struct report_visitor vis = {&v, pk_nest, pk_none, pk_nest, pk_none, pk_num, pk_str, pk_bool};
    report_visit_field(f, s, r, o, &vis);
    if (v.type == LUA_TSTRING)
        lua_pushstring(L, v.str);
    else if (v.type == LUA_TBOOLEAN)
        lua_pushboolean(L, v.num != 0);
    else if (v.type == LUA_TNUMBER && v.num == floor(v.num) && fabs(v.num) < 9e15)
        lua_pushinteger(L, (lua_Integer)v.num);
    else if (v.type == LUA_TNUMBER)
        lua_pushnumber(L, v.num);
    return v.type != LUA_TNONE;
}

/* Whether the names at arguments 2.. (setup:eval's names form) ask for a
 * sentence of the verdict (report_field_is_words): if not, the numbers-only
 * evaluation gives every value they read. A name that is no string or no
 * field counts as words, so that lh_push_picked raises its error after the
 * full evaluation, as before. */
bool lh_picks_need_words(lua_State *L)
{
    int top = lua_gettop(L);
    bool array = top == 2 && lua_type(L, 2) == LUA_TTABLE;
    lua_Integer n = array ? (lua_Integer)lua_rawlen(L, 2) : top - 1;
    bool words = false;
    for (lua_Integer i = 1; i <= n && !words; i++) {
        int t = array ? lua_rawgeti(L, 2, i) : lua_type(L, (int)i + 1);
        const char *name = t == LUA_TSTRING ? lua_tostring(L, array ? -1 : (int)i + 1) : NULL;
        const struct report_field *f = name ? report_field_find(name) : NULL;
        words = !f || report_field_is_words(f);
        if (array)
            lua_pop(L, 1);
    }
    return words;
}

/* The fields named by arguments 2.. (strings, or one array of them), read
 * straight from the report through report_fields: no table, no walk. */
int lh_push_picked(lua_State *L, const struct setup *s, const struct resolved *r,
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
        if (!f || !push_field(L, f, s, r, o))
            return luaL_error(L, "eval: no result field '%s' (see setup:eval() for the keys)",
                              name);
        if (array)
            lua_remove(L, -2); /* the key */
    }
    return (int)n;
}

/* The kept evaluation of a report table not yet complete. */
struct lazy_report {
    struct setup s;
    struct resolved r;
    struct model_report o;
};

static int lazy_index(lua_State *L);

/* The kept evaluation of the table at idx, or NULL when it is complete
 * (or no report); leaves the stack as it found it. */
static struct lazy_report *lazy_of(lua_State *L, int idx)
{
    if (!lua_getmetatable(L, idx))
        return NULL;
    lua_pushliteral(L, "__index");
    bool lazy = lua_rawget(L, -2) == LUA_TFUNCTION && lua_tocfunction(L, -1) == lazy_index;
    lua_pop(L, 1);
    struct lazy_report *z = NULL;
    if (lazy && lua_rawgeti(L, -1, 1) == LUA_TUSERDATA)
        z = lua_touserdata(L, -1);
    if (lazy)
        lua_pop(L, 1);
    lua_pop(L, 1);
    return z;
}

void lh_report_complete(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        return;
    struct lazy_report *z = lazy_of(L, idx);
    if (!z)
        return;
    push_full_report(L, &z->s, &z->r, &z->o);
    int full = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, full)) {
        lua_pushvalue(L, -2);
        if (lua_rawget(L, idx) == LUA_TNIL) { /* a value read (or set) before stays */
            lua_pop(L, 1);
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, idx);
        } else {
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_setmetatable(L, idx);
}

/* __index(t, key): a top-level figure is computed alone and kept in t;
 * anything else completes t first. */
static int lazy_index(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TSTRING && !strchr(lua_tostring(L, 2), '.')) {
        const struct report_field *f = report_field_find(lua_tostring(L, 2));
        struct lazy_report *z = f ? lazy_of(L, 1) : NULL;
        if (z && push_field(L, f, &z->s, &z->r, &z->o)) {
            lua_pushvalue(L, 2);
            lua_pushvalue(L, -2);
            lua_rawset(L, 1);
            return 1;
        }
    }
    lh_report_complete(L, 1);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

static int report_next(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_next(L, 1))
        return 2;
    lua_pushnil(L);
    return 1;
}

/* __pairs(t): every field, then the plain next. */
static int lazy_pairs(lua_State *L)
{
    lh_report_complete(L, 1);
    lua_pushcfunction(L, report_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

void lh_push_report(lua_State *L, const struct setup *s, const struct resolved *r,
                    const struct model_report *o)
{
    luaL_checkstack(L, 4, "report");
    lua_createtable(L, 0, 4);
    lua_createtable(L, 1, 2); /* its metatable */
    struct lazy_report *z = lua_newuserdatauv(L, sizeof *z, 0);
    z->s = *s;
    z->r = *r;
    z->o = *o;
    lua_rawseti(L, -2, 1);
    lua_pushcfunction(L, lazy_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, lazy_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_setmetatable(L, -2);
}

void lh_push_report_table(lua_State *L, const struct report_field *rows, size_t n, const void *base,
                          const struct setup *s, const struct resolved *r)
{
    struct table_builder b = {.L = L};
    struct report_visitor v = {&b,       tb_begin, tb_close, tb_begin_list,
                               tb_close, tb_num,   tb_str,   tb_bool};
    luaL_checkstack(L, TABLE_MAX_NEST + 4, "report");
    lua_createtable(L, 0, 32);
    report_visit_table(rows, n, base, s, r, &v);
}
