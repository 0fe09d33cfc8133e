#!/bin/sh
# The Makefile: flags a user gives (command line or environment) add to the
# flags mlviz needs instead of replacing them. Prints "PASS name" or
# "FAIL name: why". Run from the repository root.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# has LINE WORD...: every WORD is a word of LINE.
has() {
    line=" $1 "
    shift
    for w in "$@"; do
        case $line in *" $w "*) ;; *) return 1 ;; esac
    done
}

make -n --no-print-directory BUILD="$tmp/b" BIN="$tmp/b/mlviz" CFLAGS+=-DMLVIZ_USER_FLAG \
    LDFLAGS=-L"$tmp/userlib" "$tmp/b/mlviz" >"$tmp/plan" 2>&1
compile=$(grep -m 1 -- '-c -o .*tui/app.o' "$tmp/plan")
link=$(grep -m 1 -- "-o $tmp/b/mlviz " "$tmp/plan")
if has "$compile" -std=c11 -Iengine/core -Wall -DMLVIZ_USER_FLAG; then
    pass "make CFLAGS+=... keeps the required compile flags"
else
    fail "make CFLAGS+=... keeps the required compile flags" "$compile"
fi
if has "$link" "-L$tmp/userlib" -lm; then
    pass "make LDFLAGS=... keeps the required libraries"
else
    fail "make LDFLAGS=... keeps the required libraries" "$link"
fi
CFLAGS=-O0 make -n --no-print-directory BUILD="$tmp/b" BIN="$tmp/b/mlviz" "$tmp/b/mlviz" \
    >"$tmp/plan" 2>&1
compile=$(grep -m 1 -- '-c -o .*tui/app.o' "$tmp/plan")
case $compile in
    *-O2*-O0*) has "$compile" -std=c11 -Iengine/core &&
        pass "CFLAGS from the environment come after the defaults" ||
        fail "CFLAGS from the environment come after the defaults" "$compile" ;;
    *) fail "CFLAGS from the environment come after the defaults" "$compile" ;;
esac
# A real compile of a file that needs the library flags (Lua's headers).
if make -s --no-print-directory BUILD="$tmp/b" CFLAGS=-DMLVIZ_USER_FLAG \
    "$tmp/b/engine/lua/luahost.o" >"$tmp/log" 2>&1 && [ -s "$tmp/b/engine/lua/luahost.o" ]; then
    pass "make CFLAGS=... compiles"
else
    fail "make CFLAGS=... compiles" "$(tail -n 3 "$tmp/log")"
fi
# The CLI library references no symbol of the screen library: it reaches the
# screen only through the entry table main() registers (tui/tui.h).
B=${BUILD:-build}
if [ -f "$B/libmlviz-cli.a" ] && [ -f "$B/libmlviz-screen.a" ] && command -v nm >/dev/null; then
    nm -u "$B/libmlviz-cli.a" | awk '{ print $2 }' | sort -u >"$tmp/cli_u"
    nm --defined-only "$B/libmlviz-screen.a" | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/scr_d"
    both=$(comm -12 "$tmp/cli_u" "$tmp/scr_d" | tr '\n' ' ')
    if [ -z "$both" ]; then
        pass "the CLI library uses no screen symbol"
    else
        fail "the CLI library uses no screen symbol" "$both"
    fi
fi
[ $fails -eq 0 ]
