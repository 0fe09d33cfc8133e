/* lua_patterns: budgeted Lua 5.4 pattern matching (see lua_patterns.h).
 *
 * A backtracking matcher over the pattern text, written from the reference
 * manual's description of patterns (§6.4.1) and of string.find, match,
 * gmatch and gsub (§6.4). Results and error messages follow Lua 5.4 so
 * scripts behave the same with or without the sandbox; the test suite
 * compares both on a table of patterns. */
#include "lua_patterns.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <lauxlib.h>

#include "lua_internal.h"

/* Lua 5.4's limits: 32 captures, 200 nested matcher calls. */
#define PAT_MAX_CAPTURES 32
#define PAT_MAX_DEPTH    200
/* Steps gathered before one call of the charge function. */
#define PAT_CHARGE_BATCH 256

enum { CAP_OPEN = -1, CAP_POSITION = -2 };

struct pat_config {
    lua_patterns_charge_fn charge;
};

struct matcher {
    lua_State *L;
    lua_patterns_charge_fn charge;
    unsigned pending;
    const char *src, *src_end;
    const char *pat_end;
    int depth;
    int level; /* captures opened so far */
    struct {
        const char *start;
        ptrdiff_t len; /* CAP_OPEN, CAP_POSITION or the length */
    } cap[PAT_MAX_CAPTURES];
};

static void step(struct matcher *m, unsigned n)
{
    m->pending += n;
    if (m->pending >= PAT_CHARGE_BATCH) {
        unsigned due = m->pending;
        m->pending = 0;
        m->charge(m->L, due);
    }
}

static void flush_steps(struct matcher *m)
{
    unsigned due = m->pending;
    m->pending = 0;
    if (due)
        m->charge(m->L, due);
}

/* ---- single characters -------------------------------------------------------- */

/* %a %c %d %g %l %p %s %u %w %x (and %z), upper case for the complement; any other
 * character after % stands for itself. */
static bool class_matches(int c, int cls)
{
    bool r;
    switch (tolower(cls)) {
    case 'a':
        r = isalpha(c);
        break;
    case 'c':
        r = iscntrl(c);
        break;
    case 'd':
        r = isdigit(c);
        break;
    case 'g':
        r = isgraph(c);
        break;
    case 'l':
        r = islower(c);
        break;
    case 'p':
        r = ispunct(c);
        break;
    case 's':
        r = isspace(c);
        break;
    case 'u':
        r = isupper(c);
        break;
    case 'w':
        r = isalnum(c);
        break;
    case 'x':
        r = isxdigit(c);
        break;
    case 'z':
        r = c == 0;
        break; /* deprecated but still accepted by Lua 5.4 */
    default:
        return cls == c;
    }
    return isupper(cls) ? !r : r;
}

/* Set [...] from `open` (the '[') to `close` (its ']'). */
static bool set_matches(int c, const char *open, const char *close)
{
    const char *p = open + 1;
    bool negate = *p == '^';
    if (negate)
        p++;
    while (p < close) {
        unsigned char first = (unsigned char)*p;
        if (first == '%' && p + 1 < close) {
            if (class_matches(c, (unsigned char)p[1]))
                return !negate;
            p += 2;
        } else if (p + 2 < close && p[1] == '-') {
            if (first <= c && c <= (unsigned char)p[2])
                return !negate;
            p += 3;
        } else {
            if (first == c)
                return !negate;
            p++;
        }
    }
    return negate;
}

/* End of the single-character class that starts at p. */
static const char *item_end(struct matcher *m, const char *p)
{
    char c = *p++;
    if (c == '%') {
        if (p >= m->pat_end)
            lh_raisef(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c != '[')
        return p;
    if (p < m->pat_end && *p == '^')
        p++;
    bool first = true;
    for (;;) {
        if (p >= m->pat_end)
            lh_raisef(m->L, "malformed pattern (missing ']')");
        char x = *p++;
        if (x == '%') {
            if (p >= m->pat_end)
                lh_raisef(m->L, "malformed pattern (missing ']')");
            p++;
        } else if (x == ']' && !first) {
            return p;
        }
        first = false;
    }
}

/* Does the character at s match the class p..end? */
static bool item_matches(const struct matcher *m, const char *s, const char *p, const char *end)
{
    if (s >= m->src_end)
        return false;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.':
        return true;
    case '%':
        return class_matches(c, (unsigned char)p[1]);
    case '[':
        return set_matches(c, p, end - 1);
    default:
        return (unsigned char)*p == c;
    }
}

/* ---- the matcher --------------------------------------------------------------- */

static const char *match_here(struct matcher *m, const char *s, const char *p);

/* Longest run of the item first, giving back one character at a time. */
static const char *match_greedy(struct matcher *m, const char *s, const char *p, const char *ep)
{
    ptrdiff_t n = 0;
    while (item_matches(m, s + n, p, ep)) {
        n++;
        step(m, 1);
    }
    for (; n >= 0; n--) {
        const char *r = match_here(m, s + n, ep + 1);
        if (r)
            return r;
        step(m, 1);
    }
    return NULL;
}

/* Shortest run of the item first, taking one more character at a time. */
static const char *match_lazy(struct matcher *m, const char *s, const char *p, const char *ep)
{
    for (;;) {
        const char *r = match_here(m, s, ep + 1);
        if (r)
            return r;
        if (!item_matches(m, s, p, ep))
            return NULL;
        s++;
        step(m, 1);
    }
}

static const char *open_capture(struct matcher *m, const char *s, const char *p, ptrdiff_t kind)
{
    if (m->level >= PAT_MAX_CAPTURES)
        lh_raisef(m->L, "too many captures");
    m->cap[m->level].start = s;
    m->cap[m->level].len = kind;
    m->level++;
    const char *r = match_here(m, s, p);
    if (!r)
        m->level--;
    return r;
}

static const char *close_capture(struct matcher *m, const char *s, const char *p)
{
    int i = m->level - 1;
    while (i >= 0 && m->cap[i].len != CAP_OPEN)
        i--;
    if (i < 0)
        lh_raisef(m->L, "invalid pattern capture");
    m->cap[i].len = s - m->cap[i].start;
    const char *r = match_here(m, s, p);
    if (!r)
        m->cap[i].len = CAP_OPEN;
    return r;
}

/* %bxy: from an x to its balancing y. */
static const char *match_balanced(struct matcher *m, const char *s, const char *p)
{
    if (p + 1 >= m->pat_end)
        lh_raisef(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->src_end || *s != p[0])
        return NULL;
    char open = p[0], close = p[1];
    int depth = 1;
    while (++s < m->src_end) {
        step(m, 1);
        if (*s == close) {
            if (--depth == 0)
                return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

/* %1..%9: the text of an earlier, closed capture again. */
static const char *match_backref(struct matcher *m, const char *s, int digit)
{
    int i = digit - '1';
    if (i < 0 || i >= m->level || m->cap[i].len == CAP_OPEN)
        lh_raisef(m->L, "invalid capture index %%%d", i + 1);
    ptrdiff_t len = m->cap[i].len;
    if (len < 0) /* a position capture is no text */
        return NULL;
    step(m, 1 + (unsigned)(len / 64));
    if (m->src_end - s >= len && memcmp(m->cap[i].start, s, (size_t)len) == 0)
        return s + len;
    return NULL;
}

/* %f[set] at s (p points at the '['): the pattern after the set when the
 * character before s is not in the set and the one at s is, else NULL. */
static const char *match_frontier(struct matcher *m, const char *s, const char *p)
{
    if (p >= m->pat_end || *p != '[')
        lh_raisef(m->L, "missing '[' after '%%f' in pattern");
    const char *ep = item_end(m, p);
    int before = s == m->src ? 0 : (unsigned char)s[-1];
    int at = s < m->src_end ? (unsigned char)*s : 0;
    if (set_matches(before, p, ep - 1) || !set_matches(at, p, ep - 1))
        return NULL;
    return ep;
}

/* Match pattern p against the subject from s; the end of the match or NULL. */
static const char *match_here(struct matcher *m, const char *s, const char *p)
{
    if (m->depth++ >= PAT_MAX_DEPTH)
        lh_raisef(m->L, "pattern too complex");
    const char *r = NULL;
    for (;;) {
        step(m, 1); /* one pattern item tried at one place */
        if (p >= m->pat_end) {
            r = s;
            break;
        }
        if (*p == '(') {
            if (p + 1 < m->pat_end && p[1] == ')')
                r = open_capture(m, s, p + 2, CAP_POSITION);
            else
                r = open_capture(m, s, p + 1, CAP_OPEN);
            break;
        }
        if (*p == ')') {
            r = close_capture(m, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == m->pat_end) {
            r = s == m->src_end ? s : NULL;
            break;
        }
        if (*p == '%' && p + 1 < m->pat_end && p[1] == 'b') {
            s = match_balanced(m, s, p + 2);
            if (!s)
                break;
            p += 4;
            continue;
        }
        if (*p == '%' && p + 1 < m->pat_end && p[1] == 'f') {
            p = match_frontier(m, s, p + 2);
            if (!p)
                break;
            continue;
        }
        if (*p == '%' && p + 1 < m->pat_end && isdigit((unsigned char)p[1])) {
            s = match_backref(m, s, (unsigned char)p[1]);
            if (!s)
                break;
            p += 2;
            continue;
        }
        /* A single-character class, maybe followed by a quantifier. */
        const char *ep = item_end(m, p);
        char q = ep < m->pat_end ? *ep : '\0';
        if (!item_matches(m, s, p, ep)) {
            if (q == '*' || q == '?' || q == '-') { /* zero repetitions will do */
                p = ep + 1;
                continue;
            }
            break;
        }
        if (q == '?') {
            r = match_here(m, s + 1, ep + 1);
            if (r)
                break;
            p = ep + 1;
            continue;
        }
        if (q == '+') {
            r = match_greedy(m, s + 1, p, ep);
            break;
        }
        if (q == '*') {
            r = match_greedy(m, s, p, ep);
            break;
        }
        if (q == '-') {
            r = match_lazy(m, s, p, ep);
            break;
        }
        s++;
        p = ep;
    }
    m->depth--;
    return r;
}

/* ---- captures to Lua values ---------------------------------------------------- */

static void matcher_init(struct matcher *m, lua_State *L, const char *s, size_t ls, const char *p,
                         size_t lp)
{
    struct pat_config *cfg = lua_touserdata(L, lua_upvalueindex(1));
    m->L = L;
    m->charge = cfg->charge;
    m->pending = 0;
    m->src = s;
    m->src_end = s + ls;
    m->pat_end = p + lp;
    m->depth = 0;
    m->level = 0;
}

/* Capture i of the match s..e (the whole match when there are none);
 * pushes a position capture and returns CAP_POSITION, else returns the
 * length and sets *text. */
static ptrdiff_t capture_text(struct matcher *m, int i, const char *s, const char *e,
                              const char **text)
{
    if (i >= m->level) {
        if (i != 0)
            lh_raisef(m->L, "invalid capture index %%%d", i + 1);
        *text = s;
        return e - s;
    }
    ptrdiff_t len = m->cap[i].len;
    *text = m->cap[i].start;
    if (len == CAP_OPEN)
        lh_raisef(m->L, "unfinished capture");
    if (len == CAP_POSITION)
        lua_pushinteger(m->L, (lua_Integer)(m->cap[i].start - m->src) + 1);
    return len;
}

static void push_capture(struct matcher *m, int i, const char *s, const char *e)
{
    const char *text;
    ptrdiff_t len = capture_text(m, i, s, e, &text);
    if (len != CAP_POSITION)
        lua_pushlstring(m->L, text, (size_t)len);
}

/* All captures (or the whole match when s is given and there are none). */
static int push_captures(struct matcher *m, const char *s, const char *e)
{
    int n = m->level == 0 && s ? 1 : m->level;
    luaL_checkstack(m->L, n, "too many captures");
    for (int i = 0; i < n; i++)
        push_capture(m, i, s, e);
    return n;
}

/* ---- the library functions ----------------------------------------------------- */

/* A 1-based, possibly negative, start position -> 0-based offset. */
static size_t start_offset(lua_Integer pos, size_t len)
{
    if (pos > 0)
        return (size_t)pos - 1;
    if (pos == 0 || pos < -(lua_Integer)len)
        return 0;
    return len - (size_t)(-pos);
}

static bool has_specials(const char *p, size_t lp)
{
    for (size_t i = 0; i < lp; i++)
        if (p[i] && strchr("^$*+?.([%-", p[i]))
            return true;
    return false;
}

/* Plain substring search, charged per candidate position. */
static const char *find_plain(struct matcher *m, const char *s, size_t ls, const char *p, size_t lp)
{
    if (lp == 0)
        return s;
    if (lp > ls)
        return NULL;
    const char *last = s + (ls - lp);
    while (s <= last) {
        const char *hit = memchr(s, *p, (size_t)(last - s) + 1);
        if (!hit)
            return NULL;
        step(m, 1 + (unsigned)(lp / 64));
        if (memcmp(hit, p, lp) == 0)
            return hit;
        s = hit + 1;
    }
    return NULL;
}

static int find_or_match(lua_State *L, bool find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), ls);
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    struct matcher m;
    matcher_init(&m, L, s, ls, p, lp);
    if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
        const char *hit = find_plain(&m, s + init, ls - init, p, lp);
        flush_steps(&m);
        if (!hit) {
            luaL_pushfail(L);
            return 1;
        }
        lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
        lua_pushinteger(L, (lua_Integer)(hit - s + (ptrdiff_t)lp));
        return 2;
    }
    bool anchored = lp > 0 && *p == '^';
    if (anchored)
        p++;
    const char *from = s + init;
    for (;;) {
        m.level = 0;
        m.depth = 0;
        const char *e = match_here(&m, from, p);
        if (e) {
            flush_steps(&m);
            if (!find)
                return push_captures(&m, from, e);
            lua_pushinteger(L, (lua_Integer)(from - s) + 1);
            lua_pushinteger(L, (lua_Integer)(e - s));
            return 2 + push_captures(&m, NULL, NULL);
        }
        if (anchored || from >= m.src_end)
            break;
        from++;
    }
    flush_steps(&m);
    luaL_pushfail(L);
    return 1;
}

static int pat_find(lua_State *L)
{
    return find_or_match(L, true);
}

static int pat_match(lua_State *L)
{
    return find_or_match(L, false);
}

/* gmatch's state: offsets into the subject (upvalue 2), pattern upvalue 3. */
struct gmatch_state {
    size_t next;    /* where the next attempt starts */
    ptrdiff_t last; /* end of the last match, or -1 */
};

static int gmatch_step(lua_State *L)
{
    size_t ls, lp;
    const char *s = lua_tolstring(L, lua_upvalueindex(2), &ls);
    const char *p = lua_tolstring(L, lua_upvalueindex(3), &lp);
    struct gmatch_state *g = lua_touserdata(L, lua_upvalueindex(4));
    struct matcher m;
    matcher_init(&m, L, s, ls, p, lp);
    for (size_t at = g->next; at <= ls; at++) {
        m.level = 0;
        m.depth = 0;
        const char *e = match_here(&m, s + at, p);
        if (e && e - s != g->last) {
            g->next = (size_t)(e - s);
            g->last = e - s;
            flush_steps(&m);
            return push_captures(&m, s + at, e);
        }
    }
    g->next = ls + 1;
    flush_steps(&m);
    return 0;
}

static int pat_gmatch(lua_State *L)
{
    size_t ls;
    luaL_checklstring(L, 1, &ls);
    luaL_checkstring(L, 2);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), ls);
    lua_settop(L, 2);
    struct gmatch_state *g = lua_newuserdatauv(L, sizeof *g, 0);
    g->next = init > ls ? ls + 1 : init;
    g->last = -1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1); /* config, subject, pattern, state */
    lua_pushcclosure(L, gmatch_step, 4);
    return 1;
}

/* The replacement string of gsub: %0-%9 and %%. */
static void add_template(struct matcher *m, luaL_Buffer *b, const char *s, const char *e)
{
    lua_State *L = m->L;
    size_t len;
    const char *t = lua_tolstring(L, 3, &len);
    const char *end = t + len;
    while (t < end) {
        const char *pct = memchr(t, '%', (size_t)(end - t));
        if (!pct) {
            luaL_addlstring(b, t, (size_t)(end - t));
            return;
        }
        luaL_addlstring(b, t, (size_t)(pct - t));
        int c = pct + 1 < end ? (unsigned char)pct[1] : 0;
        if (c == '%') {
            luaL_addchar(b, '%');
        } else if (c == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit(c)) {
            const char *text;
            ptrdiff_t n = capture_text(m, c - '1', s, e, &text);
            if (n == CAP_POSITION)
                luaL_addvalue(b);
            else
                luaL_addlstring(b, text, (size_t)n);
        } else {
            lh_raisef(L, "invalid use of '%c' in replacement string", '%');
        }
        t = pct + 2;
    }
}

/* Append the replacement of the match s..e; false when it kept the text. */
static bool add_replacement(struct matcher *m, luaL_Buffer *b, const char *s, const char *e,
                            int type)
{
    lua_State *L = m->L;
    if (type == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = push_captures(m, s, e);
        lua_call(L, n, 1);
    } else if (type == LUA_TTABLE) {
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_template(m, b, s, e);
        return true;
    }
    if (!lua_toboolean(L, -1)) { /* nil or false: keep the original text */
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return false;
    }
    if (!lua_isstring(L, -1))
        lh_raisef(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return true;
}

static int pat_gsub(lua_State *L)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int type = lua_type(L, 3);
    lua_Integer max_n = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L,
                     type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION ||
                         type == LUA_TTABLE,
                     3, "string/function/table");
    bool anchored = lp > 0 && *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    struct matcher m;
    matcher_init(&m, L, s, ls, p, lp);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *at = s, *last = NULL;
    lua_Integer n = 0;
    bool changed = false;
    while (n < max_n) {
        m.level = 0;
        m.depth = 0;
        const char *e = match_here(&m, at, p);
        if (e && e != last) {
            n++;
            flush_steps(&m); /* a replacement function runs Lua: settle first */
            changed = add_replacement(&m, &b, at, e, type) || changed;
            at = last = e;
        } else if (at < m.src_end) {
            luaL_addchar(&b, *at++);
        } else {
            break;
        }
        if (anchored)
            break;
    }
    flush_steps(&m);
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, at, (size_t)(m.src_end - at));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

void lua_patterns_install(lua_State *L, int lib, lua_patterns_charge_fn charge)
{
    lib = lua_absindex(L, lib);
    struct pat_config *cfg = lua_newuserdatauv(L, sizeof *cfg, 0);
    cfg->charge = charge;
    const luaL_Reg fns[] = {
        {"find", pat_find}, {"match", pat_match}, {"gmatch", pat_gmatch},
        {"gsub", pat_gsub}, {NULL, NULL},
    };
    for (int i = 0; fns[i].name; i++) {
        lua_pushvalue(L, -1);
        lua_pushcclosure(L, fns[i].func, 1);
        lua_setfield(L, lib, fns[i].name);
    }
    lua_pop(L, 1);
}
