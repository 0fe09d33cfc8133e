#!/bin/sh
# Layers the compiler enforces (Makefile: LAYER_INC, tests/layers/): with
# the flags make compiles each layer's objects with, an include of a layer
# above does not compile. For every engine directory and tui/cli/: its own
# public header compiles, and each header above it ("views.h", "tui.h",
# the next layer up, <curses.h>, <lua.h> below engine/lua/) is an error
# that names it. Then a copy of engine/model/model.c with "views.h" or
# <curses.h> added fails, while the copy as it is compiles. Prints
# "PASS name" or "FAIL name: why". Run from the repository root.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
CC=${CC:-cc}
export CC

# flags_of DIR: the compile command make runs for DIR's objects, without
# its output and input (make -n on a scratch build directory).
flags_of() {
    src=$(ls "$1"/*.c | head -n 1)
    obj=$tmp/b/${src%.c}.o
    make --no-print-directory -n -B BUILD="$tmp/b" "$obj" 2>/dev/null |
        grep -F -- " -c -o $obj " | head -n 1 | sed "s| -MMD -MP -c -o $obj $src\$||"
}

# compiles FLAGS FILE: 0 when FILE compiles (syntax only), its errors in $tmp/err.
compiles() { eval "$1 -fsyntax-only \"\$2\"" >"$tmp/err" 2>&1; }

# probe DIR OWN FORBIDDEN...: OWN compiles with DIR's flags, each FORBIDDEN
# header ("x.h" or <x.h>) is an error that names it.
probe() {
    dir=$1 own=$2
    shift 2
    flags=$(flags_of "$dir")
    if [ -z "$flags" ]; then
        fail "layer $dir: make shows its compile command" "make -n gave none"
        return
    fi
    printf '#include "%s"\n' "$own" >"$tmp/own.c"
    if ! compiles "$flags" "$tmp/own.c"; then
        fail "layer $dir: its own header $own compiles" "$(head -n 3 "$tmp/err")"
        return
    fi
    bad=""
    for h in "$@"; do
        case $h in "<"*) line="#include $h" ;; *) line="#include \"$h\"" ;; esac
        name=${h#<}
        name=${name%>}
        printf '%s\n' "$line" >"$tmp/up.c"
        if compiles "$flags" "$tmp/up.c"; then
            bad="$bad $h compiles;"
        elif ! grep -qF "$name" "$tmp/err"; then
            bad="$bad $h fails for another reason: $(head -n 1 "$tmp/err");"
        fi
    done
    if [ -z "$bad" ]; then
        pass "layer $dir: $own compiles, an upward include does not ($*)"
    else
        fail "layer $dir: an upward include does not compile" "$bad"
    fi
}

probe engine/core units.h model.h views.h tui.h luahost.h "<curses.h>" "<lua.h>"
probe engine/model model.h schedule.h sim.h plan.h views.h tui.h "<curses.h>" "<lua.h>"
probe engine/sched schedule.h sim.h plan.h report.h views.h "<ncurses.h>" "<lauxlib.h>"
probe engine/sim sim.h schedule.h plan.h report.h tui.h "<curses.h>" "<lua.h>"
probe engine/plan plan.h sim.h report.h luahost.h views.h "<curses.h>" "<lualib.h>"
probe engine/io report.h luahost.h cli.h views.h "<curses.h>" "<lua.h>"
probe engine/lua luahost.h cli.h views.h "<curses.h>" "<ncursesw/curses.h>"
probe tui/cli cli.h views.h "<curses.h>" "<term.h>"

# The example of issue 23: an engine file that draws does not compile.
flags=$(flags_of engine/model)
cp engine/model/model.c "$tmp/model.c"
if compiles "$flags" "$tmp/model.c"; then
    for h in '"views.h"' '<curses.h>'; do
        { echo "#include $h"; cat engine/model/model.c; } >"$tmp/model.c"
        if compiles "$flags" "$tmp/model.c"; then
            fail "engine/model/model.c with #include $h does not compile" "it compiles"
        else
            pass "engine/model/model.c with #include $h does not compile"
        fi
    done
else
    fail "a copy of engine/model/model.c compiles with its layer's flags" "$(head -n 3 "$tmp/err")"
fi
