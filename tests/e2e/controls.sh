#!/bin/sh
# The simulation controls, pressed as a person would and checked by their
# effect on the screen (the bindings: `mlviz keys`, tui/keys.c):
#   + and - (overview), ] and [ (everywhere) change the speed readout;
#   space freezes the simulated clock ("PAUSED") and starts it again;
#   . when paused advances the clock by exactly one training step;
#   c cycles the colour theme: the colours on screen change with each press
#     (the fourth theme, mono, draws none) and come back after four.
# Prints "PASS name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

# speed SESSION: the speed readout on the title line as a number ("x20" -> 20).
speed() { screen "$1" | head -1 | grep -o ' x[0-9.]* ' | head -1 | tr -d ' x'; }
# wait_speed SESSION NOT: poll until the readout is something other than NOT.
wait_speed() {
    i=0
    while [ $i -lt 30 ]; do
        v=$(speed "$1")
        [ -n "$v" ] && [ "$v" != "$2" ] && break
        sleep 0.1
        i=$((i + 1))
    done
    echo "$v"
}
# seconds "sim 01:02:03": the clock in seconds (days as "2d 01:02:03" too).
seconds() {
    echo "$1" | sed 's/^sim //' | awk '{
        d = 0; t = $1
        if (NF == 2) { d = $1 + 0; t = $2 }
        n = split(t, p, ":"); s = 0
        for (i = 1; i <= n; i++) s = s * 60 + p[i]
        print d * 86400 + s }'
}
# palette SESSION: every distinct colour/attribute sequence on the screen;
# title_palette: those of the title bar alone.
palette() { $TM capture-pane -e -p -t "$1" | grep -o '\[[0-9;]*m' | LC_ALL=C sort -u | tr '\n' ' '; }
title_palette() {
    $TM capture-pane -e -p -t "$1" | head -1 | grep -o '\[[0-9;]*m' | LC_ALL=C sort -u | tr '\n' ' '
}
# greater A B: A > B as numbers.
greater() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

step=$("$BIN" eval default | sed -n 's/^step \([0-9.]*\) s .*/\1/p')
start ctl 100 30 -- -c default --speed 10
if ! wait_for ctl "running" 100; then
    fail "controls: the view starts" "$(screen ctl | head -2)"
    exit 1
fi

# --- faster and slower: the readout follows ---------------------------------------
s0=$(speed ctl)
keys ctl +
s1=$(wait_speed ctl "$s0")
keys ctl -
s2=$(wait_speed ctl "$s1")
keys ctl -
s3=$(wait_speed ctl "$s2")
if [ "$s0" = 10 ] && greater "$s1" "$s0" && [ "$s2" = "$s0" ] && greater "$s2" "$s3"; then
    pass "+ and - raise and lower the speed readout (x$s0 x$s1 x$s2 x$s3)"
else
    fail "+ and - raise and lower the speed readout" "x$s0 then + x$s1, - x$s2, - x$s3"
fi
# up_down UP DOWN WHERE: UP raises the readout and DOWN brings it back.
up_down() {
    before=$(speed ctl)
    keys ctl "$1"
    up=$(wait_speed ctl "$before")
    keys ctl "$2"
    down=$(wait_speed ctl "$up")
    if greater "$up" "$before" && [ "$down" = "$before" ]; then
        pass "$1 and $2 raise and lower the speed readout$3 (x$before x$up x$down)"
    else
        fail "$1 and $2 raise and lower the speed readout$3" "x$before then $1 x$up, $2 x$down"
    fi
}
up_down ']' '[' ""
# In a stage view (where + and - move a knob) ] and [ change the speed.
keys ctl 3
if wait_title ctl "3 ACCELERATORS" && wait_for ctl "knobs" 20; then
    up_down ']' '[' " in a stage view"
else
    fail "] and [ raise and lower the speed readout in a stage view" "no stage view: $(screen ctl | head -1)"
fi
keys ctl Escape
wait_title ctl "overview"
# Back to x20 or more so that a clock that should be frozen would visibly move.
i=0
while [ $i -lt 5 ] && ! greater "$(speed ctl)" 19; do
    v=$(speed ctl)
    keys ctl +
    wait_speed ctl "$v" >/dev/null
    i=$((i + 1))
done

# --- space pauses: the clock stops ---------------------------------------------------
keys ctl Space
if wait_title ctl "PAUSED"; then
    c0=$(clock ctl)
    sleep 1 # at x20 a running clock moves 20 simulated seconds in this time
    c1=$(clock ctl)
    if [ -n "$c0" ] && [ "$c0" = "$c1" ] && screen ctl | head -1 | grep -qF "PAUSED"; then
        pass "space pauses: the clock stays at $c0"
    else
        fail "space pauses: the clock stays still" "'$c0' then '$c1' at x$(speed ctl)"
    fi
else
    fail "space pauses: the clock stays still" "no PAUSED: $(screen ctl | head -1)"
fi

# --- . steps once: the clock moves by one training step and stops again -------------
# The first press ends the step under way; the next ones each take one whole
# step ($step s by eval, shown to the second; the sim's jitter is small).
keys ctl .
t1=$(wait_clock_moves ctl "$c1" 50)
keys ctl .
t2=$(wait_clock_moves ctl "$t1" 50)
keys ctl .
t3=$(wait_clock_moves ctl "$t2" 50)
sleep 0.5
t4=$(clock ctl)
d12=$(($(seconds "$t2") - $(seconds "$t1")))
d23=$(($(seconds "$t3") - $(seconds "$t2")))
one_step() { awk -v d="$1" -v s="$step" 'BEGIN { exit !(d >= s - 1.5 && d <= s + 1.5) }'; }
if [ -n "$step" ] && one_step "$d12" && one_step "$d23" && [ "$t4" = "$t3" ] &&
    screen ctl | head -1 | grep -qF "PAUSED"; then
    pass ". advances a paused simulation by exactly one step ($c1, $t1, $t2, $t3; step $step s)"
else
    fail ". advances a paused simulation by exactly one step" \
        "clock $c1 -> $t1 -> $t2 -> $t3 -> $t4 (steps of ${d12} s and ${d23} s; one step is $step s)"
fi

# --- c cycles the theme: the colours change, mono has none, four presses come back ---
# (still paused, so no colour comes or goes with the simulation's state)
p0=$(palette ctl)
title0=$(title_palette ctl)
# next_theme PALETTE: press c, wait for the colours to differ from PALETTE
# and print the new palette.
next_theme() {
    keys ctl c
    i=0
    while [ $i -lt 20 ] && [ "$(palette ctl)" = "$1" ]; do sleep 0.1; i=$((i + 1)); done
    palette ctl
}
p1=$(next_theme "$p0")
p2=$(next_theme "$p1")
p3=$(next_theme "$p2")
p4=$(next_theme "$p3")
title4=$(title_palette ctl)
distinct=$(printf '%s\n' "$p0" "$p1" "$p2" "$p3" | sort -u | wc -l)
if [ "$distinct" -eq 4 ]; then
    pass "c changes the colours on screen with each press (four themes)"
else
    fail "c changes the colours on screen with each press" "$distinct different palettes in four themes"
fi
if [ -n "$p3" ] && ! echo "$p3" | grep -q '\[3[0-7]m\|\[4[0-7]m\|38;5;\|48;5;'; then
    pass "the fourth theme (mono) draws no colours"
else
    fail "the fourth theme (mono) draws no colours" "$p3"
fi
if [ -n "$title0" ] && [ "$title4" = "$title0" ]; then
    pass "four presses of c come back to the first theme"
else
    fail "four presses of c come back to the first theme" "title bar '$title0' then '$title4'"
fi
# --- space again: the clock runs ------------------------------------------------------
keys ctl Space
if wait_title ctl "running" && [ "$(wait_clock_moves ctl "$t4" 30)" != "$t4" ]; then
    pass "space again resumes: the clock runs"
else
    fail "space again resumes: the clock runs" "$(screen ctl | head -1)"
fi

keys ctl q
if wait_rc ctl && [ "$(cat "$T/ctl.rc")" = 0 ]; then
    pass "quit after the controls exits 0"
else
    fail "quit after the controls exits 0" "rc=$(cat "$T/ctl.rc" 2>/dev/null)"
fi

[ "$FAILS" -eq 0 ]
