#!/bin/sh
# The screen's state (struct ui, tui/ui.h) changes only in tui/state.c,
# through its named operations; views draw from a read-only view_ctx and
# own no thread (docs/STYLE.md, "The view context"). Run from the
# repository root by tests/layers.sh (make check-layers, make test). Prints
# one line per finding and exits 1 when there is any.
#
# In every other .c file of tui/ and tui/views/, for each name a
# `struct ui *NAME` is declared with (the parameter `u` and any other):
#   - NAME->member ... = (or +=, ++, --): a member write
#   - &NAME->member, or a non-const pointer set to NAME->member: a member
#     handed out to be written through (but in tui/state_read.c, whose
#     functions take a const struct ui)
#   - memset/memcpy/memmove/snprintf/strcpy into NAME->member
# and anywhere: a file-scope `struct ui *` (a global screen state, as
# play.c's play_ui was), an include of tui/state_internal.h (the members)
# outside state.c and state_read.c, and pthread in tui/views/. (With the
# members hidden the compiler already refuses a write elsewhere; these
# checks keep it so.)
status=0
files=$(ls tui/*.c tui/views/*.c 2>/dev/null | grep -v '^tui/state\.c$')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in $files; do
    names=$(grep -o 'struct ui \*[A-Za-z_][A-Za-z0-9_]*' "$f" | sed 's/.*\*//' | sort -u)
    for n in $names; do
        member="$n->[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\]|\.[A-Za-z_][A-Za-z0-9_]*|->[A-Za-z_][A-Za-z0-9_]*)*"
        grep -nE "(^|[^A-Za-z0-9_])$member[[:space:]]*(([-+*/%&|^]|<<|>>)?=([^=]|\$)|\+\+|--)" "$f" |
            sed "s|^|$f:|; s|\$|  (a member write)|"
        grep -nE "(\+\+|--)[[:space:]]*$n->" "$f" | sed "s|^|$f:|; s|\$|  (a member write)|"
        [ "$f" = tui/state_read.c ] ||
            grep -nE "(^|[^&])&[[:space:]]*$n->" "$f" | sed "s|^|$f:|; s|\$|  (a member's address)|"
        grep -nE "^[[:space:]]*(struct[[:space:]]+)?[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\*[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*=[[:space:]]*$n->" "$f" |
            grep -v const | sed "s|^|$f:|; s|\$|  (a writable pointer into struct ui)|"
        grep -nE "(memset|memcpy|memmove|v?snprintf|strn?cpy|strn?cat)[[:space:]]*\([[:space:]]*$n->" "$f" |
            sed "s|^|$f:|; s|\$|  (written by a library call)|"
    done
    grep -nE '^(static[[:space:]]+)?struct ui[[:space:]]*\*[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(=[^;]*)?;' "$f" |
        sed "s|^|$f:|; s|\$|  (a global screen state: pass the ui)|"
done >"$out"
# tui/state_read.c hands out addresses of members, as const pointers from a
# const struct ui (the compiler checks those): no other kind of ui there.
grep -nE '(^|[^t][[:space:]]+|[(,])struct ui[[:space:]]*\*' tui/state_read.c |
    sed 's|^|tui/state_read.c:|; s|$|  (a writable struct ui in the read side)|' >>"$out"
# The members themselves (tui/state_internal.h) are the writer's and the
# reader's only; elsewhere struct ui is opaque (white-box unit tests aside).
grep -n '#include "state_internal.h"' tui/*.[ch] tui/views/*.[ch] tui/cli/*.[ch] 2>/dev/null |
    grep -vE '^tui/(state|state_read)\.c:|^tui/state_internal\.h:' |
    sed 's|$|  (the members of struct ui: only state.c and state_read.c)|' >>"$out"
grep -n 'pthread' tui/views/*.c tui/views/*.h 2>/dev/null | sed 's|$|  (a thread in a view: views draw, tui/plan_ctl.c searches)|' >>"$out"
if [ -s "$out" ]; then
    cat "$out"
    echo "check-ui-state: $(wc -l <"$out") change(s) to the screen state outside tui/state.c"
    status=1
else
    echo "check-ui-state: struct ui changes only in tui/state.c; no thread in tui/views"
fi
exit $status
