/* lua_tables: mlviz.print_table, mlviz.write_csv and mlviz.write_json,
 * through the engine's writers (csv_write_field, json_*, output_format_number)
 * and lua_output's atomic files. */
#include "lua_internal.h"

#include <math.h>
#include <string.h>

#include "csv.h"
#include "report.h"

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
        else if (lua_isinteger(L, idx))
            snprintf(buf, len, "%lld", (long long)lua_tointeger(L, idx));
        else if (v == floor(v) && fabs(v) < 1e15)
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
    lh_push_sorted_string_keys(L, lua_gettop(L), &others);
    lua_remove(L, -2); /* the first row */
    return lua_gettop(L);
}

static void check_rows(lua_State *L, int idx, const char *fn)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        lh_raisef(L, "%s: rows must be an array of tables (got %s)", fn, luaL_typename(L, idx));
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, idx, i) != LUA_TTABLE)
            lh_raisef(L, "%s: row %d is a %s, not a table", fn, (int)i, luaL_typename(L, -1));
        lh_report_complete(L, -1); /* rows are read raw */
        lua_pop(L, 1);
    }
}

enum { CELL_LEN = 64, TABLE_MAX_COLS = 64 };

/* mlviz.print_table(rows [, {columns = {...}, title = "..."}]) */
int lh_print_table(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
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
        lh_host_print(h, lua_tostring(L, -1));
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
        if (r == 0)
            lh_host_print_header(h, lua_tostring(L, -1));
        else
            lh_host_print(h, lua_tostring(L, -1));
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
    struct luahost *h = lh_host_of(L);
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
    lua_pushlightuserdata(L, file.w.f);
    if (lua_pcall(L, 3, 0, 0) != LUA_OK) {
        lua_output_abort(&file);
        if (h->over_memory || h->over_budget || lua_type(L, -1) != LUA_TSTRING)
            return lua_error(L);
        return luaL_error(L, "%s: %s (nothing was written)", fn, lua_tostring(L, -1));
    }
    if (!lua_output_commit(&file, err, sizeof err))
        return luaL_error(L, "%s: %s", fn, err);
    lua_pushstring(L, file.w.path);
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
                output_format_number(cell, sizeof cell, v, 10); /* as in JSON */
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
int lh_write_csv(lua_State *L)
{
    luaL_checkstring(L, 1);
    check_rows(L, 2, "write_csv");
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    int cols = push_columns(L, 2, lua_isnoneornil(L, 3) ? 0 : 3);
    return write_output(L, "write_csv", ".csv", csv_body, 2, cols);
}

static bool json_value(lua_State *L, int idx, struct json_writer *w, const char *key, int depth,
                       char *err, size_t err_len);

/* The table at idx (keys 1..n) as a JSON array. */
static bool json_array(lua_State *L, int idx, lua_Integer n, struct json_writer *w, const char *key,
                       int depth, char *err, size_t err_len)
{
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

/* Pushes the keys of the table at idx as sorted strings (numbers in their
 * string form) and returns how many; false with a message for other keys. */
static bool json_push_keys(lua_State *L, int idx, lua_Integer count, lua_Integer *n, char *err,
                           size_t err_len)
{
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
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_table_sort);
    lua_pushvalue(L, keys);
    lua_call(L, 1, 0); /* string keys: no metamethod, no error but memory */
    *n = k;
    return true;
}

/* The table at idx as a JSON object with sorted keys (numbers are written
 * as strings). */
static bool json_object(lua_State *L, int idx, lua_Integer count, struct json_writer *w,
                        const char *key, int depth, char *err, size_t err_len)
{
    lua_Integer k = 0;
    if (!json_push_keys(L, idx, count, &k, err, err_len))
        return false;
    int keys = lua_gettop(L);
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
        if (lua_isinteger(L, idx)) { /* all 64 bits, not a double's 53 */
            json_key_int(w, key, (long long)lua_tointeger(L, idx));
            return true;
        }
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
    lh_report_complete(L, idx); /* walked raw */
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    lua_Integer count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        count++;
        lua_pop(L, 1);
    }
    if (count == n && n > 0) /* {} is written as an object */
        return json_array(L, idx, n, w, key, depth, err, err_len);
    return json_object(L, idx, count, w, key, depth, err, err_len);
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
int lh_write_json(lua_State *L)
{
    luaL_checkstring(L, 1);
    luaL_checkany(L, 2);
    return write_output(L, "write_json", ".json", json_body, 2, 0);
}
