#!/bin/sh
# End-to-end tests of `mlviz play`: scenarios played in the interactive view
# through tmux, as a presenter would (narration on screen, space to go on,
# q to quit). Prints "PASS name" or "FAIL name: why" per check.
TL_RECORD=1 # the terminal modes before and after, the end time (tmux-lib: start)
. "$(dirname "$0")/tmux-lib"

# play_through SESSION: answer every pause() with n until the scenario says
# it has finished.
play_through() {
    n=0
    while [ $n -lt 300 ]; do
        s=$(screen "$1")
        echo "$s" | grep -qF "the scenario has finished" && return 0
        echo "$s" | grep -qF "space: continue" && keys "$1" n
        sleep 0.2
        n=$((n + 1))
    done
    return 1
}

# --- a narrated simulation: cooling fails and comes back ----------------------
start cool 100 30 -- play cooling-failure --speed 3600
if wait_for cool "share a rack with a rear-door heat exchanger" 60; then
    pass "play shows the first narration"
else
    fail "play shows the first narration" "$(screen cool | tail -5)"
fi
if wait_for cool "loses" 100 || play_through cool; then
    pass "play advances the simulation to the cooling failure"
else
    fail "play advances the simulation to the cooling failure" "$(screen cool | tail -5)"
fi
if play_through cool; then
    pass "cooling-failure plays to the end"
else
    fail "cooling-failure plays to the end" "$(screen cool | tail -5)"
fi
keys cool q
if wait_rc cool && [ "$(cat "$T/cool.rc")" = 0 ] && cmp -s "$T/cool.before" "$T/cool.after"; then
    pass "play exits 0 and restores the terminal"
else
    fail "play exits 0 and restores the terminal" "rc=$(cat "$T/cool.rc" 2>/dev/null)"
fi

# --- focus() opens the stage the story talks about; pause() waits -------------
start starve 100 30 -- play data-starvation --speed 3600
if wait_title starve "1 DATA"; then
    pass "focus opens the stage view the narration is about"
else
    fail "focus opens the stage view the narration is about" "$(screen starve | head -1)"
fi
if wait_for starve "space: continue" 60; then
    sleep 1
    # pause() holds the story until the presenter presses a key.
    if screen starve | grep -qF "Case 1 of 4" && screen starve | grep -qF "space: continue"; then
        pass "pause waits for the presenter"
    else
        fail "pause waits for the presenter" "moved on by itself"
    fi
else
    fail "pause waits for the presenter" "no pause shown: $(screen starve | tail -3)"
fi
if play_through starve; then
    keys starve q
    if wait_rc starve && [ "$(cat "$T/starve.rc")" = 0 ]; then
        pass "data-starvation plays to the end"
    else
        fail "data-starvation plays to the end" "rc=$(cat "$T/starve.rc" 2>/dev/null)"
    fi
else
    fail "data-starvation plays to the end" "$(screen starve | tail -4)"
fi

# --- the scenario's parameters are knobs: change one and restart ---------------
start knobs 100 30 -- play data-starvation --speed 3600 --workers=12
wait_for knobs "space: continue" 60
keys knobs o
if wait_for knobs "scenario parameters" 20 && screen knobs | grep -q "workers .* 12 "; then
    pass "o shows the scenario's parameters as knobs"
else
    fail "o shows the scenario's parameters as knobs" "$(screen knobs | grep -i -m2 'param\|workers')"
fi
keys knobs Right
if wait_for knobs " 24 " 20; then
    pass "Right raises a parameter"
else
    fail "Right raises a parameter" "$(screen knobs | grep -m1 workers)"
fi
keys knobs Enter
if wait_for knobs "the scenario starts again" 40; then
    pass "Enter restarts the scenario with the new values"
else
    fail "Enter restarts the scenario with the new values" "$(screen knobs | tail -3)"
fi
keys knobs o
if wait_for knobs "scenario parameters" 20 && screen knobs | grep -q "workers .* 24 "; then
    pass "the restarted scenario runs with the new value"
else
    fail "the restarted scenario runs with the new value" "$(screen knobs | grep -m1 workers)"
fi
keys knobs Escape q
wait_rc knobs && [ "$(cat "$T/knobs.rc")" = 0 ] && pass "quit after a restart exits 0" ||
    fail "quit after a restart exits 0" "rc=$(cat "$T/knobs.rc" 2>/dev/null)"

# --- print() lands in the view's output pane, not over the screen -------------
start gens 140 45 -- play gpu-generations --speed 3600
n=0
while [ $n -lt 100 ] && ! screen gens | grep -Eq "h200-sxm +[0-9.]+ k +[0-9.]+%"; do
    screen gens | grep -qF "space: continue" && keys gens n
    sleep 0.2
    n=$((n + 1))
done
if screen gens | grep -Eq "h200-sxm +[0-9.]+ k +[0-9.]+%"; then
    pass "printed tables appear in the output pane"
else
    fail "printed tables appear in the output pane" "$(screen gens | tail -8)"
fi
keys gens q

# --- failures at scale and a script error ------------------------------------
start fail16k 100 30 -- play failures-16k --speed 86400
if play_through fail16k; then
    keys fail16k q
    wait_rc fail16k && [ "$(cat "$T/fail16k.rc")" = 0 ] && pass "failures-16k plays to the end" ||
        fail "failures-16k plays to the end" "rc=$(cat "$T/fail16k.rc" 2>/dev/null)"
else
    fail "failures-16k plays to the end" "$(screen fail16k | tail -4)"
fi

start broken 100 30 -- play tests/lua/hostile/callback_error.lua --speed 3600
if wait_rc broken && [ "$(cat "$T/broken.rc")" = 1 ] && cmp -s "$T/broken.before" "$T/broken.after"; then
    pass "a failing script ends play with status 1 and a restored terminal"
else
    fail "a failing script ends play with status 1 and a restored terminal" \
        "rc=$(cat "$T/broken.rc" 2>/dev/null)"
fi

# --- the view's options: --speed holds for the script's runs ---------------------
# Slow on purpose: the first sim:run (10 simulated minutes) takes minutes at x7.
start slow 100 30 -- play cooling-failure --speed 7 --no-color --setup default
if wait_for slow "share a rack" 60 && wait_title slow "x7 " &&
    screen slow | head -1 | grep -qF "x7 "; then
    pass "play keeps --speed once the script runs its simulation"
else
    fail "play keeps --speed once the script runs its simulation" "$(screen slow | head -2)"
fi
keys slow q
if wait_rc slow && [ "$(cat "$T/slow.rc")" = 0 ] && cmp -s "$T/slow.before" "$T/slow.after"; then
    pass "q ends a running script at once"
else
    fail "q ends a running script at once" "rc=$(cat "$T/slow.rc" 2>/dev/null) $(screen slow | tail -3)"
fi

# --- signals while a script runs ------------------------------------------------
# Output the script wrote to stdout (trusted io.write) shows after the view
# ends, whatever ended it.
cat > "$T/writer.lua" <<'EOL'
io.write("written while the view was up\n")
say("running")
local sim = mlviz.sim(mlviz.load("default"), { seed = 1 })
sim:run("30d")
EOL
cat > "$T/spin.lua" <<'EOL'
local n = 0
while true do n = n + 1 end
EOL
start wint 100 30 -- play "$T/writer.lua" --trust --speed 1
start wusr 100 30 -- play "$T/writer.lua" --trust --speed 1
start spin 100 30 -- play "$T/spin.lua" --budget 1e15
wait_for wint running 60 && keys wint C-c
wait_for wusr running 60 && kill -USR1 "$(pid_of wusr)"
# The view is up (it shows nothing new while the script spins).
wait_modes spin "1 0 1" && kill -TERM "$(pid_of spin)"
for c in "wint 130 Ctrl-C" "wusr 138 SIGUSR1"; do
    set -- $c
    if wait_rc "$1" && [ "$(cat "$T/$1.rc")" = "$2" ] && cmp -s "$T/$1.before" "$T/$1.after" &&
        [ "$(modes "$1")" = "0 1 0" ] && wait_for "$1" "written while the view was up" 10; then
        pass "$3 ends a played script ($2), restores the terminal, prints its output"
    else
        fail "$3 ends a played script ($2), restores the terminal, prints its output" \
            "rc=$(cat "$T/$1.rc" 2>/dev/null) modes=$(modes "$1") $(screen "$1" | tail -2)"
    fi
done
# A script busy in Lua: SIGTERM still ends play within the quit deadline.
if wait_rc spin && [ "$(cat "$T/spin.rc")" = 143 ] && cmp -s "$T/spin.before" "$T/spin.after" &&
    [ "$(modes spin)" = "0 1 0" ]; then
    pass "SIGTERM ends a script busy in Lua (143) and restores the terminal"
else
    fail "SIGTERM ends a script busy in Lua (143) and restores the terminal" \
        "rc=$(cat "$T/spin.rc" 2>/dev/null) modes=$(modes spin)"
fi

[ $FAILS = 0 ]
