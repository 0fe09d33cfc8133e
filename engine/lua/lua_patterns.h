/* lua_patterns: string.find, string.match, string.gmatch and string.gsub
 * for Lua 5.4 pattern syntax (reference manual §6.4.1), with every step of
 * the matcher charged to a budget.
 *
 * The standard library matches in C, where a count hook never fires: a
 * pattern with nested backtracking runs for hours. These versions give the
 * same results and errors, but call `charge` every few hundred steps; the
 * host's charge function raises a Lua error when its budget, time limit or
 * interrupt says stop. Internal to the engine (used by luahost.c). */
#ifndef MLVIZ_LUA_PATTERNS_H
#define MLVIZ_LUA_PATTERNS_H

#include <lua.h>

/* Called with the number of steps done since the last call; may raise. */
typedef void (*lua_patterns_charge_fn)(lua_State *L, unsigned steps);

/* Replace find, match, gmatch and gsub in the table at index `lib` (the
 * string library table; strings' methods come from it). */
void lua_patterns_install(lua_State *L, int lib, lua_patterns_charge_fn charge);

#endif
