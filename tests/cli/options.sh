#!/bin/sh
# The interactive view's options come from one table (tui/cli/commands.c): the
# usage text, `mlviz play --help`, `mlviz options [--man]` and the man page
# all list them; `mlviz play` accepts them. Prints "PASS name" or
# "FAIL name: why". Run from the repository root; MLVIZ_BIN defaults to ./mlviz.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# lists NAME FILE WORD...: FILE names every WORD.
lists() {
    name=$1 file=$2
    shift 2
    missing=""
    for w in "$@"; do grep -qF -- "$w" "$file" || missing="$missing $w"; done
    [ -z "$missing" ] && pass "$name" || fail "$name" "missing$missing"
}

"$MLVIZ_BIN" --help >"$tmp/help" 2>&1
lists "mlviz --help lists the view's options" "$tmp/help" --setup --catalog --speed --frames \
    --tour --theme --mono --no-color --ascii --no-mouse
"$MLVIZ_BIN" play --help >"$tmp/play" 2>&1
lists "mlviz play --help lists the view's options" "$tmp/play" --setup --catalog --speed --no-color
"$MLVIZ_BIN" options --man >"$tmp/man" 2>&1
lists "mlviz options --man writes roff" "$tmp/man" '.TP' '\-\-speed' '\-\-catalog' '\-\-no\-color'
if [ -f "$BUILD/mlviz.1" ]; then
    if grep -q '^\.SH OPTIONS' "$BUILD/mlviz.1" && ! grep -q '@OPTIONS@' "$BUILD/mlviz.1"; then
        lists "the man page's OPTIONS come from the table" "$BUILD/mlviz.1" '\-\-speed' '\-\-catalog'
    else
        fail "the man page's OPTIONS come from the table" "no OPTIONS section in $BUILD/mlviz.1"
    fi
fi
"$MLVIZ_BIN" options --bogus >/dev/null 2>&1
[ $? = 2 ] && pass "mlviz options rejects other arguments" ||
    fail "mlviz options rejects other arguments" "exit $?"

# play passes the view's options on (no terminal here: the view then says so
# and exits 2, after the options were accepted).
"$MLVIZ_BIN" play cooling-failure --no-color --setup default --speed 5 </dev/null >"$tmp/out" 2>&1
if grep -qF "needs a terminal" "$tmp/out"; then
    pass "mlviz play accepts --no-color, --setup and --speed"
else
    fail "mlviz play accepts --no-color, --setup and --speed" "$(head -n 2 "$tmp/out")"
fi
# The message keeps its own line breaks (escaping turns only control
# characters from input into \xNN, not the message's newlines).
"$MLVIZ_BIN" </dev/null >/dev/null 2>"$tmp/out"
if [ "$(wc -l <"$tmp/out")" -ge 2 ] && ! grep -qF '\x0a' "$tmp/out"; then
    pass "the no-terminal message keeps its line breaks"
else
    fail "the no-terminal message keeps its line breaks" "$(head -c 200 "$tmp/out")"
fi
"$MLVIZ_BIN" play cooling-failure --tour </dev/null >"$tmp/out" 2>&1
if [ $? = 2 ] && grep -qF -- "--tour does not apply to mlviz play" "$tmp/out"; then
    pass "mlviz play refuses --tour by name"
else
    fail "mlviz play refuses --tour by name" "$(head -n 2 "$tmp/out")"
fi
for bad in "--speed 0" "--speed nan" "--speed 1e9" "--frames 0" "--frames=" "--theme nope" "--mono=1"; do
    "$MLVIZ_BIN" $bad </dev/null >"$tmp/out" 2>&1
    rc=$?
    if [ $rc = 2 ] && grep -q "^mlviz: " "$tmp/out" && ! grep -qF "needs a terminal" "$tmp/out"; then
        pass "mlviz $bad is a usage error"
    else
        fail "mlviz $bad is a usage error" "exit $rc: $(head -n 1 "$tmp/out")"
    fi
done
[ $fails -eq 0 ]
