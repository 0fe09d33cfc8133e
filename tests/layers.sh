#!/bin/sh
# make check-layers: every #include in the tree must point down the layer
# stack (docs/STYLE.md, "Layers"). A header is known by its directory:
#
#   engine/core    <- engine/model <- engine/sched <- engine/sim, engine/plan <- engine/io
#                  <- engine/lua <- tui/cli (and tui/tui.h only from the screen)
#   tui/ and tui/views/ (the screen) may use the whole engine; views may not
#   include app.h (they return actions instead of calling back), and the
#   screen never includes a tui/cli/ header.
#
# Library headers are checked too: only engine/lua/ (and above) may include
# Lua's, only the screen may include curses. Prints one line per forbidden
# include and exits 1 when there is any. Run from the repository root.
status=0
tab=$(mktemp)
trap 'rm -f "$tab"' EXIT
# basename -> directory of every header in the tree
git ls-files '*.h' 2>/dev/null | grep -v '^tests/' | while read -r h; do
    printf '%s %s\n' "${h##*/}" "${h%/*}"
done >"$tab"
[ -s "$tab" ] || find engine tui -name '*.h' | while read -r h; do
    printf '%s %s\n' "${h##*/}" "${h%/*}"
done >"$tab"

files=$(git ls-files 'engine/*.[ch]' 'tui/*.[ch]' 'tests/unit/*.c' 'tests/validation/*.c' \
    'tests/fuzz/*.[ch]' 2>/dev/null)
[ -n "$files" ] || files=$(find engine tui tests/unit tests/validation tests/fuzz -name '*.[ch]')

# One awk over every include line ("FILE:LINE:TEXT" from grep -n).
# allowed[DIR]: the header directories a file in DIR may include ("*": any;
# "-NAME": never that header). bad_sys[DIR]: system headers DIR may not use.
for f in $files; do [ -f "$f" ] && echo "$f"; done |
    xargs grep -Hn '^[[:space:]]*#[[:space:]]*include' 2>/dev/null |
    awk -v tabfile="$tab" '
function allowed_of(d,   e) {
    e = "engine/core engine/model engine/sched engine/sim engine/plan engine/io engine/lua"
    if (d == "engine/core") return "engine/core"
    if (d == "engine/model") return "engine/core engine/model"
    if (d == "engine/sched") return "engine/core engine/model engine/sched"
    if (d == "engine/sim") return "engine/core engine/model engine/sim"
    if (d == "engine/plan") return "engine/core engine/model engine/sched engine/plan"
    if (d == "engine/io") return "engine/core engine/model engine/sched engine/sim engine/plan engine/io"
    if (d == "engine/lua") return e
    if (d == "tui/cli") return e " tui/cli tui.h"
    if (d == "tui") return e " tui tui/views"
    if (d == "tui/views") return e " tui tui/views -app.h"
    if (d == "tests/unit/engine" || d == "tests/validation" || d == "tests/fuzz") return e
    if (d == "tests/unit/lua") return e
    if (d == "tests/unit/cli") return e " tui/cli tui.h"
    return "*"
}
function bad_sys_of(d, f) {
    if (d == "engine/lua" || d == "tui/cli" || d == "tests/unit/lua" || d == "tests/unit/cli")
        return "curses.h ncurses.h term.h ncursesw/curses.h"
    if (d ~ /^engine\// || d == "tests/unit/engine" || d == "tests/validation")
        return "curses.h ncurses.h term.h ncursesw/curses.h lua.h lauxlib.h lualib.h"
    return ""
}
function exists(path,   line, r) {
    r = (getline line < path)
    close(path)
    return r >= 0
}
BEGIN { while ((getline l < tabfile) > 0) { split(l, p, " "); if (!(p[1] in hdir)) hdir[p[1]] = p[2] } }
{
    f = $0; sub(/:.*/, "", f)
    rest = substr($0, length(f) + 2)
    n = rest; sub(/:.*/, "", n)
    text = substr(rest, length(n) + 2)
    dir = f; sub(/\/[^\/]*$/, "", dir)
    if (!match(text, /#[[:space:]]*include[[:space:]]*["<][^">]*[">]/)) next
    inc = substr(text, RSTART, RLENGTH)
    sys = inc ~ /</
    sub(/^#[[:space:]]*include[[:space:]]*["<]/, "", inc); sub(/[">]$/, "", inc)
    if (index(text, "<")) {
        ns = split(bad_sys_of(dir), bs, " ")
        for (i = 1; i <= ns; i++) if (inc == bs[i]) print f ":" n ": <" inc "> is not for " dir
        next
    }
    if (inc ~ /^\.\.\//) next # test fixtures beside the tests
    # fuzz_lesson drives mlviz lesson (tui/cli) and links the CLI library.
    ok = allowed_of(f == "tests/fuzz/fuzz_lesson.c" ? "tests/unit/cli" : dir)
    if (ok == "*") next
    base = inc; sub(/.*\//, "", base)
    fname = f; sub(/.*\//, "", fname)
    if (!(base in hdir)) {
        if (fname == inc || exists(dir "/" inc)) next
        print f ":" n ": \"" inc "\" is no header of the tree"
        next
    }
    h = hdir[base]
    if (h == dir) next
    pass = 0
    na = split(ok, a, " ")
    for (i = 1; i <= na; i++) {
        if (a[i] == "-" base) { pass = 0; break }
        if (a[i] == h || a[i] == base) pass = 1
    }
    if ((" " ok " ") ~ (" -" base " ")) pass = 0
    if (!pass) print f ":" n ": \"" inc "\" (" h ") is above " dir
}' >"$tab.out"
if [ -s "$tab.out" ]; then
    cat "$tab.out"
    echo "check-layers: $(wc -l <"$tab.out") forbidden include(s); see docs/STYLE.md, Layers"
    status=1
else
    echo "check-layers: every include points down the layers"
fi
rm -f "$tab.out"
# The rules no include path can express: who changes the screen state.
sh tests/ui_state.sh || status=1
exit $status
