/* lua_sweep: mlviz.sweep, every combination of some setup fields
 * evaluated in C, one table row each. */
#include "lua_internal.h"

#include <math.h>
#include <string.h>

#include "report.h"

static const char *const default_sweep_fields[] = {
    "runnable",   "step_time_s", "tokens_per_s",         "mfu",
    "bottleneck", "memory.fits", "memory.per_device_gb", NULL,
};

/* ---- sweeps -------------------------------------------------------------------- */

enum { SWEEP_MAX_AXES = 8, SWEEP_MAX_PICKS = 48, SWEEP_MAX_ORDINAL = 512 };

struct sweep_pick {
    char section[32];
    char leaf[64];
    char name[100]; /* dotted key of the row */
};

struct sweep_ctx {
    lua_State *L;
    struct sweep_pick picks[SWEEP_MAX_PICKS];
    int n_picks;
    /* The walk has one fixed order outside lists: learn each pick's ordinal
     * on the first walk, then match by counting. */
    signed char by_ordinal[SWEEP_MAX_ORDINAL];
    bool learned;
    int ordinal;
    int list_depth;
    const char *section;
    int nest;
    int found;
    bool words; /* a pick is a verdict sentence: the full evaluation */
};

static int sweep_match(struct sweep_ctx *x, const char *key)
{
    if (x->list_depth)
        return -1;
    int ord = x->ordinal++;
    if (x->learned)
        return ord < SWEEP_MAX_ORDINAL ? x->by_ordinal[ord] : -1;
    const char *sec = x->nest ? x->section : "";
    for (int i = 0; i < x->n_picks; i++)
        if (strcmp(x->picks[i].leaf, key) == 0 && strcmp(x->picks[i].section, sec) == 0) {
            if (ord < SWEEP_MAX_ORDINAL)
                x->by_ordinal[ord] = (signed char)i;
            x->found++;
            return i;
        }
    return -1;
}

static void sw_begin(void *ctx, const char *key)
{
    struct sweep_ctx *x = ctx;
    if (x->list_depth) {
        x->list_depth++;
        return;
    }
    x->nest++;
    x->section = key;
}
static void sw_end(void *ctx)
{
    struct sweep_ctx *x = ctx;
    if (x->list_depth) {
        x->list_depth--;
        return;
    }
    x->nest--;
}
static void sw_begin_list(void *ctx, const char *key)
{
    (void)key;
    struct sweep_ctx *x = ctx;
    x->list_depth++;
}
static void sw_end_list(void *ctx)
{
    struct sweep_ctx *x = ctx;
    x->list_depth--;
}
static void sw_num(void *ctx, const char *key, double v)
{
    struct sweep_ctx *x = ctx;
    int i = sweep_match(x, key);
    if (i < 0)
        return;
    if (v == floor(v) && fabs(v) < 9e15)
        lua_pushinteger(x->L, (lua_Integer)v);
    else
        lua_pushnumber(x->L, v);
    lua_setfield(x->L, -2, x->picks[i].name);
}
static void sw_str(void *ctx, const char *key, const char *v)
{
    struct sweep_ctx *x = ctx;
    int i = sweep_match(x, key);
    if (i < 0)
        return;
    lua_pushstring(x->L, v);
    lua_setfield(x->L, -2, x->picks[i].name);
}
static void sw_bool(void *ctx, const char *key, bool v)
{
    struct sweep_ctx *x = ctx;
    int i = sweep_match(x, key);
    if (i < 0)
        return;
    lua_pushboolean(x->L, v);
    lua_setfield(x->L, -2, x->picks[i].name);
}

static void add_pick(lua_State *L, struct sweep_ctx *x, const char *name)
{
    if (x->n_picks >= SWEEP_MAX_PICKS)
        lh_raisef(L, "sweep: at most %d result fields", SWEEP_MAX_PICKS);
    struct sweep_pick *p = &x->picks[x->n_picks++];
    const char *dot = strchr(name, '.');
    if (strlen(name) >= sizeof p->name || (dot && strchr(dot + 1, '.')) ||
        (dot && (size_t)(dot - name) >= sizeof p->section))
        lh_raisef(L, "sweep: bad result field '%s' (write 'mfu' or 'memory.per_device_gb')", name);
    snprintf(p->name, sizeof p->name, "%s", name);
    if (dot) {
        snprintf(p->section, sizeof p->section, "%.*s", (int)(dot - name), name);
        snprintf(p->leaf, sizeof p->leaf, "%s", dot + 1);
    } else {
        p->section[0] = '\0';
        snprintf(p->leaf, sizeof p->leaf, "%s", name);
    }
}

struct sweep_axis {
    const struct field *f;
    int values_idx; /* stack index of the values array */
    lua_Integer n;
};

/* The combinations to walk and where their column names go. */
struct sweep_space {
    struct sweep_axis axes[SWEEP_MAX_AXES];
    int n_axes;
    lua_Integer total; /* combinations: the product of the axes' lengths */
    int cols;          /* stack index of the columns array */
    lua_Integer ncols;
};

static const char *const sweep_option_names[] = {"fields", NULL};

/* Pushes an array of the string keys of the table at `tbl`, sorted, and
 * returns how many; *others counts the keys that are not strings. */
lua_Integer lh_push_sorted_string_keys(lua_State *L, int tbl, lua_Integer *others)
{
    tbl = lua_absindex(L, tbl);
    lua_newtable(L);
    int keys = lua_gettop(L);
    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, tbl)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) {
            lua_pushvalue(L, -1);
            lua_rawseti(L, keys, ++n);
        } else {
            (*others)++;
        }
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lh_key_table_sort);
    lua_pushvalue(L, keys);
    lua_call(L, 1, 0);
    return n;
}

/* How many axes argument 2 gives (counting stops past the limit). */
static lua_Integer sweep_count_axes(lua_State *L)
{
    lua_Integer n_given = (lua_Integer)lua_rawlen(L, 2);
    if (n_given == 0) {
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            lua_pop(L, 1);
            if (++n_given > SWEEP_MAX_AXES) {
                lua_pop(L, 1);
                break;
            }
        }
    }
    return n_given;
}

/* Pushes a (path, values) pair per axis: an array of {path, values} in
 * order, or a map path -> values sorted by path so the order is
 * reproducible. */
static void sweep_push_axes(lua_State *L)
{
    if (sweep_count_axes(L) > SWEEP_MAX_AXES)
        lh_raisef(L, "sweep: at most %d axes", SWEEP_MAX_AXES);
    luaL_checkstack(L, 2 * SWEEP_MAX_AXES + 16, "sweep");
    if (lua_rawlen(L, 2) > 0) {
        for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 2); i++) {
            if (lua_rawgeti(L, 2, i) != LUA_TTABLE)
                lh_raisef(L, "sweep: axis %d must be {path, {values...}}", (int)i);
            lua_rawgeti(L, -1, 1);
            lua_rawgeti(L, -2, 2);
            if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TTABLE)
                lh_raisef(L, "sweep: axis %d must be {path, {values...}}", (int)i);
            lua_remove(L, -3);
        }
        return;
    }
    lua_Integer others = 0;
    lua_Integer nk = lh_push_sorted_string_keys(L, 2, &others);
    int keys = lua_gettop(L);
    if (others > 0)
        lh_raisef(L, "sweep: axes map field paths to arrays of values");
    for (lua_Integer i = 1; i <= nk && i <= SWEEP_MAX_AXES; i++) {
        lua_rawgeti(L, keys, i);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, 2) != LUA_TTABLE)
            lh_raisef(L, "sweep: axes map field paths to arrays of values");
    }
    lua_remove(L, keys);
}

/* Reads the axes into sp (the pairs stay on the stack above sp->cols) and
 * names a column for each. */
static void sweep_read_axes(lua_State *L, struct sweep_space *sp)
{
    sweep_push_axes(L);
    int first = sp->cols + 1;
    sp->n_axes = (lua_gettop(L) - sp->cols) / 2;
    if (sp->n_axes > SWEEP_MAX_AXES)
        lh_raisef(L, "sweep: at most %d axes", SWEEP_MAX_AXES);
    sp->total = 1;
    for (int a = 0; a < sp->n_axes; a++) {
        struct sweep_axis *ax = &sp->axes[a];
        const char *path = lua_tostring(L, first + 2 * a);
        ax->f = lh_check_field(L, path, "sweep");
        ax->values_idx = first + 2 * a + 1;
        ax->n = (lua_Integer)lua_rawlen(L, ax->values_idx);
        if (ax->n == 0)
            lh_raisef(L, "sweep: no values for '%s'", path);
        if (ax->n > LUAHOST_MAX_SWEEP_ROWS / sp->total)
            lh_raisef(L,
                      "sweep: too many combinations (more than %d; sweep fewer values or "
                      "split the sweep)",
                      LUAHOST_MAX_SWEEP_ROWS);
        sp->total *= ax->n;
        lua_pushvalue(L, first + 2 * a);
        lua_rawseti(L, sp->cols, ++sp->ncols);
    }
}

/* The result fields: opts.fields, or the defaults; one column each. */
static void sweep_read_fields(lua_State *L, struct sweep_ctx *x, struct sweep_space *sp)
{
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        lh_check_known_keys(L, 3, sweep_option_names, "sweep");
        if (lua_getfield(L, 3, "fields") == LUA_TTABLE) {
            for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, -1); i++) {
                lua_rawgeti(L, -1, i);
                const char *nm = lua_tostring(L, -1);
                if (lua_type(L, -1) != LUA_TSTRING)
                    lh_raisef(L, "sweep: fields must be strings");
                add_pick(L, x, nm);
                lua_pop(L, 1);
            }
        } else if (!lua_isnil(L, -1)) {
            lh_raisef(L, "sweep: fields must be an array of result keys");
        }
        lua_pop(L, 1);
    }
    if (x->n_picks == 0)
        for (int i = 0; default_sweep_fields[i]; i++)
            add_pick(L, x, default_sweep_fields[i]);
    for (int i = 0; i < x->n_picks; i++) {
        lua_pushstring(L, x->picks[i].name);
        lua_rawseti(L, sp->cols, ++sp->ncols);
        /* A name that is no field is raised after the first row. */
        const struct report_field *f = report_field_find(x->picks[i].name);
        x->words = x->words || !f || report_field_is_words(f);
    }
}

/* After the first row: every pick must have matched a report field. */
static void sweep_check_picks(lua_State *L, const struct sweep_ctx *x)
{
    for (int i = 0; i < x->n_picks; i++) {
        bool seen = false;
        for (int k = 0; k < SWEEP_MAX_ORDINAL; k++)
            seen = seen || x->by_ordinal[k] == i;
        if (!seen)
            lh_raisef(L, "sweep: no result field '%s' (see setup:eval() for the keys)",
                      x->picks[i].name);
    }
}

/* Pushes the row of one combination (index[] says which value per axis). */
static void sweep_push_row(lua_State *L, struct sweep_ctx *x, const struct sweep_space *sp,
                           const lua_Integer *index, const struct setup *base,
                           const struct catalog *cat, bool first_row)
{
    struct report_visitor v = {x,           sw_begin, sw_end, sw_begin_list,
                               sw_end_list, sw_num,   sw_str, sw_bool};
    char err[LUAHOST_MSG_LEN];
    struct setup s = *base;
    struct resolved r;
    struct model_report o;
    lua_createtable(L, 0, sp->n_axes + x->n_picks);
    for (int a = 0; a < sp->n_axes; a++) {
        lua_rawgeti(L, sp->axes[a].values_idx, index[a] + 1);
        lh_set_field(L, &s, sp->axes[a].f, -1, "sweep");
        lua_setfield(L, -2, sp->axes[a].f->path);
    }
    if (!model_settle_auto(&s, cat, err, sizeof err) ||
        !setup_resolve(&s, cat, &r, err, sizeof err)) {
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "runnable");
        lua_pushstring(L, err);
        lua_setfield(L, -2, "error");
        return;
    }
    /* Rows read figures: without a verdict sentence among the picks, the
     * numbers-only evaluation gives the same values. */
    if (x->words)
        model_eval(&s, &r, &o);
    else
        model_eval_numbers(&s, &r, &o);
    x->ordinal = 0;
    x->nest = 0;
    x->list_depth = 0;
    report_visit(&s, &r, &o, &v);
    x->learned = x->learned || x->found == x->n_picks;
    if (!x->learned && first_row && x->found < x->n_picks)
        sweep_check_picks(L, x);
}

/* mlviz.sweep(setup, axes [, opts]) -> rows. The loop runs in C: one copy,
 * one set per axis, one resolve and one evaluation per combination. */
int lh_sweep(lua_State *L)
{
    struct luahost *h = lh_host_of(L);
    lua_settop(L, 3); /* the work area below starts at a fixed index */
    struct lsetup *base = lh_check_setup(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const struct catalog *cat = lh_need_catalog(L, h, "sweep");
    struct sweep_ctx *x = lua_newuserdatauv(L, sizeof *x, 0); /* freed by the GC */
    memset(x, 0, sizeof *x);
    memset(x->by_ordinal, -1, sizeof x->by_ordinal);
    x->L = L;
    struct sweep_space sp = {.n_axes = 0};
    lua_newtable(L); /* columns */
    sp.cols = lua_gettop(L);
    sweep_read_axes(L, &sp); /* stack now: ... cols, (path, values) pairs */
    sweep_read_fields(L, x, &sp);
    lua_createtable(L, (int)(sp.total < INT32_MAX ? sp.total : 0), 1);
    int rows = lua_gettop(L);
    lua_Integer index[SWEEP_MAX_AXES] = {0};
    for (lua_Integer row = 1; row <= sp.total; row++) {
        lh_host_charge_steps(L, h, LUAHOST_SWEEP_ROW_COST);
        sweep_push_row(L, x, &sp, index, &base->s, cat, row == 1);
        lua_rawseti(L, rows, row);
        /* Odometer: the last axis turns fastest. */
        for (int a = sp.n_axes - 1; a >= 0; a--) {
            if (++index[a] < sp.axes[a].n)
                break;
            index[a] = 0;
        }
    }
    lua_pushvalue(L, sp.cols);
    lua_setfield(L, rows, "columns");
    return 1;
}
