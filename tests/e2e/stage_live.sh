#!/bin/sh
# A stage view's live strip follows the live state as the overview does:
# while the racks throttle, the Infrastructure view's strip says the
# infrastructure is busy at its limit, the bottleneck line names it, and
# tokens/s is the figure the overview shows (one function for both). The
# bottleneck line always shows in a stage view, at 80x24 and 100x30, also
# while the narration pane of `mlviz play` takes rows and a status message
# (a scenario's mark) is up, and under the explanation shown full screen.
# Prints "PASS name" or "FAIL name: why".
. "$(dirname "$0")/tmux-lib"

# tps SESSION: the tokens/s figure on screen, in tokens/s (a "~" before it,
# still settling after the change of pace, is left out).
tps() {
    screen "$1" | grep -o 'tokens/s ~\{0,1\}[0-9.]* [kMG]\{0,1\}' | head -1 | tr -d '~' |
        awk '{ v = $2; if ($3 == "k") v *= 1e3; else if ($3 == "M") v *= 1e6; else if ($3 == "G") v *= 1e9; print v }'
}

# sim_s SESSION: the simulated clock on the title line, in seconds.
sim_s() {
    clock "$1" | awk -F'[ :]' '{ print ($2 * 3600 + $3 * 60 + $4) + 0 }'
}

# --- throttled: the strip's figures and verdict -------------------------------------
# The cooling fails at 1 min and stays off: the rack passes 85 C a few
# minutes later and the clocks drop to 5% (cooling-failure.lua's setup).
start hot 100 30 -- play cooling-failure --fail_at=1m --restore_at=600m --duration=601m --speed 120
wait_for hot "THROTTLED to 5%" 400
# A throttled step is 20 times the steady one (134 s against 6.7 s): the
# rate must follow within about a throttled step of simulated time, not
# after a window of several throttled steps still holding the old pace.
# 180 simulated seconds after the throttle shows: under a third of eval's
# 313 k (a window of the old pace reads about 200 k then).
t0=$(sim_s hot)
i=0
while [ $i -lt 200 ] && [ "$(sim_s hot)" -lt $((t0 + 180)) ]; do
    sleep 0.05
    i=$((i + 1))
done
t=$(tps hot)
if [ -n "$t" ] && awk -v t="$t" 'BEGIN { exit !(t < 100e3) }'; then
    pass "throttled: the stage view's tokens/s follows the clocks within a step ($t)"
else
    fail "throttled: the stage view's tokens/s follows the clocks within a step" \
        "at sim $(sim_s hot) s (throttled at $t0 s): $(screen hot | grep -m1 'tokens/s')"
fi
i=0
while [ $i -lt 20 ] && ! screen hot | grep -q "Infrastructure busy ~\{0,1\}100\.0%"; do
    sleep 0.1
    i=$((i + 1))
done
if screen hot | grep -q "Infrastructure busy ~\{0,1\}100\.0%"; then
    pass "throttled: the Infrastructure view's strip says the infrastructure is at its limit"
else
    fail "throttled: the Infrastructure view's strip says the infrastructure is at its limit" \
        "$(screen hot | grep -m1 'busy')"
fi
if screen hot | grep -q "BOTTLENECK ▶ Supporting infrastructure - now: clocks 5%"; then
    pass "throttled: the Infrastructure view's bottleneck line names the infrastructure"
else
    fail "throttled: the Infrastructure view's bottleneck line names the infrastructure" \
        "$(screen hot | grep -i -m1 'bottleneck\|•')"
fi
# Paused, the stage view and the overview show the same figure.
keys hot Space
wait_title hot "PAUSED"
stage_tps=$(tps hot)
keys hot Escape
wait_title hot "overview"
over_tps=$(tps hot)
if [ -n "$stage_tps" ] && [ "$stage_tps" = "$over_tps" ]; then
    pass "paused: the stage view and the overview show the same tokens/s ($stage_tps)"
else
    fail "paused: the stage view and the overview show the same tokens/s" \
        "stage '$stage_tps' overview '$over_tps'"
fi
keys hot q

# --- the bottleneck line never gives way to the narration or a status ---------------
# At the cooling-failure scenario's pause its mark ("cooling fails") is
# still up and the narration pane takes rows under the Infrastructure view.
for size in "100 30" "80 24"; do
    set -- $size
    s=mark$1
    start "$s" "$1" "$2" -- play cooling-failure --speed 86400
    if wait_for "$s" "space: continue" 300 && screen "$s" | grep -q "cooling fails" &&
        screen "$s" | grep -q "^ ◆ BOTTLENECK ▶ "; then
        pass "$1x$2 playing: the stage view shows the bottleneck line beside the narration"
    else
        fail "$1x$2 playing: the stage view shows the bottleneck line beside the narration" \
            "$(screen "$s" | tail -9)"
    fi
    # A mark shows with one bullet (the view's), not two.
    if screen "$s" | grep -q "cooling fails" && ! screen "$s" | grep -q "• • cooling fails"; then
        pass "$1x$2 playing: a mark shows with one bullet"
    else
        fail "$1x$2 playing: a mark shows with one bullet" "$(screen "$s" | grep "cooling fails")"
    fi
    # The explanation full screen (e) keeps the bottleneck line under it.
    keys "$s" e
    if wait_for "$s" "PgDn 1/" 20 && ! screen "$s" | grep -q "knobs" &&
        screen "$s" | grep -q "^ ◆ BOTTLENECK ▶ "; then
        pass "$1x$2 playing: the full-screen explanation keeps the bottleneck line"
    else
        fail "$1x$2 playing: the full-screen explanation keeps the bottleneck line" \
            "$(screen "$s" | tail -7)"
    fi
    keys "$s" q
done

[ "$FAILS" -eq 0 ]
