#!/bin/sh
# At a pause of `mlviz play`, the setup the story showed keeps running on
# screen: its simulated clock moves while the presenter talks, so the live
# gauges are never frozen at zero next to a busy verdict. Prints "PASS name"
# or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

# sim_clock SESSION: the "sim HH:MM:SS" reading of the screen, as seconds.
sim_clock() {
    screen "$1" | sed -n 's/.*sim \([0-9][0-9]*\):\([0-9][0-9]\):\([0-9][0-9]\).*/\1 \2 \3/p' |
        head -n 1 | awk '{ print $1 * 3600 + $2 * 60 + $3 }'
}

# 120 columns: the title keeps its clock beside a case's long name.
start pl 120 30 -- play data-starvation --speed 60
if wait_for pl "space: continue" 60; then
    a=$(sim_clock pl)
    b=$a
    n=0
    while [ $n -lt 40 ] && [ "${b:-0}" = "${a:-0}" ]; do
        sleep 0.25
        b=$(sim_clock pl)
        n=$((n + 1))
    done
    if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ]; then
        pass "the shown setup runs on while the story waits at a pause"
    else
        fail "the shown setup runs on while the story waits at a pause" \
            "sim clock '$a' then '$b': $(screen pl | grep -m 1 'sim ')"
    fi
    # The story itself has not moved on.
    if screen pl | grep -qF "space: continue"; then
        pass "the story still waits for the presenter"
    else
        fail "the story still waits for the presenter" "$(screen pl | tail -3)"
    fi
else
    fail "the shown setup runs on while the story waits at a pause" "no pause: $(screen pl | tail -3)"
fi
keys pl q
wait_rc pl
[ $FAILS -eq 0 ]
