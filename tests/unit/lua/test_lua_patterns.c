/* test_lua_patterns: the budgeted matcher against Lua 5.4's own string
 * library (results and error messages must be identical), and the
 * catastrophic patterns that must end with the budget's error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the headers above first */
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "../../test_time.h"
#include "lua_patterns.h"

static unsigned long long steps_charged;
static unsigned long long step_limit;

static void test_charge(lua_State *L, unsigned steps)
{
    steps_charged += steps;
    if (steps_charged > step_limit)
        luaL_error(L, "test budget exceeded");
}

/* A state with the real string library as `string` and ours as `pat`. */
static lua_State *new_state(void)
{
    lua_State *L = luaL_newstate();
    assert_non_null(L);
    luaL_openlibs(L);
    lua_newtable(L);
    lua_patterns_install(L, -1, test_charge);
    lua_setglobal(L, "pat");
    steps_charged = 0;
    step_limit = UINT64_MAX;
    return L;
}

static void run_lua(lua_State *L, const char *code)
{
    if (luaL_dostring(L, code) != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
}

/* Compares every call in both libraries; prints the first difference. */
static const char compare_lib[] =
    "local function pack(...) return {n = select('#', ...), ...} end\n"
    "local function show(r)\n"
    "  local t = {}\n"
    "  for i = 1, r.n do t[#t + 1] = type(r[i]) .. ':' .. tostring(r[i]) end\n"
    "  -- the function's name in argument errors depends on where it is registered\n"
    "  return (string.gsub(table.concat(t, ' '), \"to '[%w.?]+'\", 'to F'))\n"
    "end\n"
    "checked = 0\n"
    "function same(fn, ...)\n"
    "  local a = pack(pcall(string[fn], ...))\n"
    "  local b = pack(pcall(pat[fn], ...))\n"
    "  checked = checked + 1\n"
    "  if show(a) ~= show(b) then\n"
    "    local args = pack(...)\n"
    "    error(string.format('%s(%q, %q): lua %s, ours %s', fn, tostring(args[1]),\n"
    "      tostring(args[2]), show(a), show(b)), 0)\n"
    "  end\n"
    "end\n"
    "function same_gmatch(s, p, init)\n"
    "  local function all(lib)\n"
    "    local out = {}\n"
    "    local ok, err = pcall(function()\n"
    "      for a, b in lib.gmatch(s, p, init) do\n"
    "        out[#out + 1] = tostring(a) .. '|' .. tostring(b)\n"
    "        if #out > 100 then break end\n"
    "      end\n"
    "    end)\n"
    "    return tostring(ok) .. ' ' .. tostring(err) .. ' ' .. table.concat(out, ',')\n"
    "  end\n"
    "  local a, b = all(string), all(pat)\n"
    "  checked = checked + 1\n"
    "  if a ~= b then error(string.format('gmatch(%q, %q): lua %s, ours %s', s, p, a, b), 0) end\n"
    "end\n";

static void test_table_of_patterns(void **state)
{
    (void)state;
    lua_State *L = new_state();
    run_lua(L, compare_lib);
    run_lua(
        L,
        "local subjects = {'', 'a', 'hello world', '  key = value  ', 'THE (quick) fox',\n"
        "  'f(a(b)c)d', 'x = 1, y = 22, z = 333', 'aaa', 'abcabc', 'a.b-c+d*e?f',\n"
        "  'tab\\tnew\\nline', 'caf\\195\\169 \\0 nul', '[brackets]', '%percent%', 'THE END'}\n"
        "local patterns = {'', 'a', '^a', 'a$', '^$', '.', '..', 'o', 'l+', 'l*', 'l-', 'l?',\n"
        "  '%a+', '%A+', '%c', '%C+', '%d+', '%D+', '%g+', '%G', '%l+', '%L+', '%p', '%P+',\n"
        "  '%s+', '%S+', '%u+', '%U+', '%w+', '%W+', '%x+', '%X+', '%%', '%.', '[%a_]+',\n"
        "  '[^%s]+', '[a-c]+', '[^a-c]+', '[%]]', '[]]', '[^]]+', '[a-]', '[-a]+', '[%-]',\n"
        "  '(%w+)', '(%w+) = (%w+)', '%s*(.-)%s*$', '^%s*(.-)%s*$', '()', '()a()', "
        "'(a*(.)%w(%s*))',\n"
        "  '%b()', '%b[]', 'f%b()', '%bxx', '%f[%w]%w+', '%f[%W]', '%f[%a]%a+%f[%A]',\n"
        "  '(a)%1', '(b)(c)%2', '(%a)%1', '(.)%1', '(%w+)%s*=%s*(%w+)', '[%d,]+', 'a.-c',\n"
        "  'a.*c', '.-', '.*', '.+', '[%z]', '%z', '\\0', '[\\0-\\31]', '[\\128-\\255]+',\n"
        "  '%', 'a%', '[a', '[a%', '[%', '(', '(()', ')', '%1', '(a)%2', '%0', '%b', '%ba',\n"
        "  '%f', '%fa', '%f[', 'a**', 'a+-', '^^a', '$a', 'a$b', '(a)(b)(c)(d)(e)(f)(g)',\n"
        "  '((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))',\n"
        "  '(((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))',\n"
        "  string.rep('a?', 250), string.rep('(a)', 40), '[%w%s]+', '[%W%S]', '%w-%s',\n"
        "  'x = (%d+)', '(%d+)', '%u%l+', '[%^]', '[^%^]+', 'E?N?D$', '.-(%d)$'}\n"
        "for _, s in ipairs(subjects) do\n"
        "  for _, p in ipairs(patterns) do\n"
        "    same('find', s, p)\n"
        "    same('match', s, p)\n"
        "    same('find', s, p, 3)\n"
        "    same('match', s, p, -4)\n"
        "    same('find', s, p, 1, true)\n"
        "    same('gsub', s, p, '<%0>')\n"
        "    same('gsub', s, p, '%1', 2)\n"
        "    same_gmatch(s, p)\n"
        "    same_gmatch(s, p, 2)\n"
        "  end\n"
        "  for _, init in ipairs({0, 1, -1, -100, 100, #s, #s + 1, #s + 2, math.mininteger}) do\n"
        "    same('find', s, 'a', init)\n"
        "    same('find', s, '', init)\n"
        "    same('match', s, '()', init)\n"
        "    same('find', s, 'l', init, true)\n"
        "  end\n"
        "end\n"
        "-- replacements: strings with captures, tables, functions, bad values\n"
        "local repls = {'[%1]', '%2%1', '%%', '%', '%x', '%0%0', 'plain', 7, 2.5,\n"
        "  {hello = 'HI', world = false}, {}, function(a, b) return b end,\n"
        "  function() return nil end, function() return {} end, function(a) return a .. '!' end,\n"
        "  true, nil}\n"
        "for _, r in pairs(repls) do\n"
        "  for _, p in ipairs({'(%w+)', '(%w+) (%w+)', '%w+', '()', '(o)()', '^%w', 'l*', ''}) do\n"
        "    same('gsub', 'hello world from lua', p, r)\n"
        "    same('gsub', 'hello world from lua', p, r, 1)\n"
        "    same('gsub', 'hello world from lua', p, r, 0)\n"
        "    same('gsub', 'hello world from lua', p, r, -1)\n"
        "  end\n"
        "end\n"
        "same('gsub', 'abc', '%w', true)\n"
        "same('find', 'abc', {})\n"
        "same('match', nil, 'a')\n"
        "same('gsub', 'abc', 'b')\n"
        "same('find', 12345, 3)\n"
        "same('gsub', 12345, '%d', '%0%0')\n"
        "assert(checked > 10000, 'only ' .. checked .. ' comparisons')\n");
    lua_close(L);
}

/* Random short patterns over the special characters: identical results and
 * errors (a differential fuzz of a few thousand cases, seeded). */
static void test_random_patterns(void **state)
{
    (void)state;
    lua_State *L = new_state();
    run_lua(L, compare_lib);
    run_lua(L,
            "math.randomseed(7)\n"
            "local alphabet = {'a', 'b', '(', ')', '%', '[', ']', '^', '$', '*', '+', '-', '?',\n"
            "  '.', '1', '2', 'f', 'b', 'd', 'w', ' ', 'A'}\n"
            "local subj = {'ab ba', 'aab(b)a', '', 'a b(a)b', ' a', 'ba^$b', 'a1b2', '-+*?'}\n"
            "for i = 1, 6000 do\n"
            "  local n = math.random(1, 7)\n"
            "  local t = {}\n"
            "  for k = 1, n do t[k] = alphabet[math.random(#alphabet)] end\n"
            "  local p = table.concat(t)\n"
            "  local s = subj[math.random(#subj)]\n"
            "  same('find', s, p)\n"
            "  same('match', s, p, math.random(-3, 4))\n"
            "  same('gsub', s, p, '<%0>')\n"
            "  same_gmatch(s, p)\n"
            "end\n");
    lua_close(L);
}

/* Patterns whose backtracking is exponential or quadratic end with the
 * charge function's error, quickly. */
static void test_catastrophic_patterns_stop(void **state)
{
    (void)state;
    const char *cases[] = {
        "pat.find(string.rep('a', 40), string.rep('a*', 40) .. 'b')",
        "pat.match(string.rep('a', 30), string.rep('a?', 30) .. string.rep('a', 30))",
        "pat.find(string.rep('a', 200000), '.-b')",
        "pat.gsub(string.rep('a', 200000), '.-b', '')",
        "for x in pat.gmatch(string.rep('a', 200000), '.-.-b') do end",
        "pat.find(string.rep('a', 100000), string.rep('a', 50000) .. 'b', 1, true)",
        "pat.find(string.rep('(', 100000), '%b()')",
        "pat.find(string.rep('ab', 50000), '(.-)%1%1b$')",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lua_State *L = new_state();
        step_limit = 20000000;
        clock_t t0 = clock();
        int st = luaL_dostring(L, cases[i]);
        double cpu_s = (double)(clock() - t0) / CLOCKS_PER_SEC;
        if (st == LUA_OK)
            fail_msg("case %zu finished without hitting the budget", i);
        const char *msg = lua_tostring(L, -1);
        if (!msg || !strstr(msg, "test budget exceeded"))
            fail_msg("case %zu: %s", i, msg ? msg : "(no message)");
        if (cpu_s > 2.0 * test_time_factor())
            fail_msg("case %zu took %.2f s of CPU", i, cpu_s);
        lua_close(L);
    }
}

/* Every step is charged: a match that costs more charges more. */
static void test_charge_grows_with_work(void **state)
{
    (void)state;
    lua_State *L = new_state();
    run_lua(L, "pat.find(string.rep('a', 100), '.-b')");
    unsigned long long small = steps_charged;
    steps_charged = 0;
    run_lua(L, "pat.find(string.rep('a', 1000), '.-b')");
    assert_true(small > 100);
    assert_true(steps_charged > 50 * small); /* quadratic: 100x the work */
    lua_close(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_of_patterns),
        cmocka_unit_test(test_random_patterns),
        cmocka_unit_test(test_catastrophic_patterns_stop),
        cmocka_unit_test(test_charge_grows_with_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
