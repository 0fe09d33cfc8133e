#!/bin/sh
# make check-layers: every #include in the tree must point down the layer
# stack (docs/STYLE.md, "Layers"). A header is known by its directory:
#
#   engine/core    <- engine/model <- engine/sim, engine/plan <- engine/io
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

# allowed DIR: the header directories a file in DIR may include.
E0="engine/core"
allowed() {
    case $1 in
    engine/core) echo "$E0" ;;
    engine/model) echo "$E0 engine/model" ;;
    engine/sim) echo "$E0 engine/model engine/sim" ;;
    engine/plan) echo "$E0 engine/model engine/plan" ;;
    engine/io) echo "$E0 engine/model engine/sim engine/plan engine/io" ;;
    engine/lua) echo "$E0 engine/model engine/sim engine/plan engine/io engine/lua" ;;
    tui/cli) echo "$E0 engine/model engine/sim engine/plan engine/io engine/lua tui/cli tui.h" ;;
    tui) echo "$E0 engine/model engine/sim engine/plan engine/io engine/lua tui tui/views" ;;
    tui/views) echo "$E0 engine/model engine/sim engine/plan engine/io engine/lua tui tui/views -app.h" ;;
    tests/unit/engine | tests/validation | tests/fuzz) echo "$E0 engine/model engine/sim engine/plan engine/io engine/lua" ;;
    tests/unit/lua) echo "$E0 engine/model engine/sim engine/plan engine/io engine/lua" ;;
    tests/unit/cli) echo "$E0 engine/model engine/sim engine/plan engine/io engine/lua tui/cli tui.h" ;;
    *) echo "*" ;;
    esac
}
# system headers a directory may not include
forbidden_sys() {
    case $1 in
    engine/lua | tui/cli | tests/unit/lua | tests/unit/cli) echo "curses.h ncurses.h term.h ncursesw/curses.h" ;;
    engine/* | tests/unit/engine | tests/validation) echo "curses.h ncurses.h term.h ncursesw/curses.h lua.h lauxlib.h lualib.h" ;;
    *) echo "" ;;
    esac
}
# fuzz_lua.c is the Lua host's fuzz target; the others stay in the engine
lua_ok() { case $1 in tests/fuzz/fuzz_lua.c) return 0 ;; esac; return 1; }

files=$(git ls-files 'engine/*.[ch]' 'tui/*.[ch]' 'tests/unit/*.c' 'tests/validation/*.c' \
    'tests/fuzz/*.[ch]' 2>/dev/null)
[ -n "$files" ] || files=$(find engine tui tests/unit tests/validation tests/fuzz -name '*.[ch]')
for f in $files; do
    [ -f "$f" ] || continue
    dir=${f%/*}
    ok=$(allowed "$dir")
    bad_sys=$(forbidden_sys "$dir")
    grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | while IFS= read -r line; do
        n=${line%%:*}
        inc=$(printf '%s' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p')
        case $line in
        *'<'*)
            for s in $bad_sys; do
                [ "$inc" = "$s" ] && echo "$f:$n: <$inc> is not for $dir"
            done
            continue ;;
        esac
        case $inc in ../*) continue ;; esac # test fixtures beside the tests
        [ "$ok" = "*" ] && continue
        base=${inc##*/}
        hdir=$(awk -v b="$base" '$1 == b { print $2; exit }' "$tab")
        if [ -z "$hdir" ]; then
            [ "${f##*/}" = "$inc" ] || [ -f "$dir/$inc" ] && continue
            echo "$f:$n: \"$inc\" is no header of the tree"
            continue
        fi
        [ "$hdir" = "$dir" ] && continue
        pass=0
        for a in $ok; do
            case $a in
            -"$base") pass=0; break ;;
            "$hdir" | "$base") pass=1 ;;
            esac
        done
        case " $ok " in *" -$base "*) pass=0 ;; esac
        [ $pass = 1 ] || echo "$f:$n: \"$inc\" ($hdir) is above $dir"
    done
done >"$tab.out"
if [ -s "$tab.out" ]; then
    cat "$tab.out"
    echo "check-layers: $(wc -l <"$tab.out") forbidden include(s); see docs/STYLE.md, Layers"
    status=1
else
    echo "check-layers: every include points down the layers"
fi
rm -f "$tab.out"
exit $status
