#!/bin/sh
# Lua sandbox limits: the instruction budget, the time limit, interrupts by
# signal and memory safety at the API boundary (split from tests/lua/run.sh so
# the Lua suites run side by side).
# Prints "PASS name" or "FAIL name: why" per check. Run from the repo root.
. "$(dirname "$0")/common"

# ---- budget, time limit, interrupt, memory safety at the API boundary ------------
B="instruction budget of 15000000 exceeded"
expect "hostile pattern backtracking" 1 "pattern_backtrack.lua:3: $B" -- run $lim $H/pattern_backtrack.lua
expect "hostile slow pattern inside pcall" 1 "pattern_pcall_loop.lua:4: $B" -- run $lim $H/pattern_pcall_loop.lua
expect "hostile quadratic gsub" 1 "gsub_quadratic.lua:3: $B" -- run $lim $H/gsub_quadratic.lua
expect "hostile quadratic gmatch" 1 "gmatch_quadratic.lua:2: $B" -- run $lim $H/gmatch_quadratic.lua
expect "hostile string.rep of nothing" 0 "^empty	0	0$" -- run $lim $H/string_rep_empty.lua
expect "hostile string.rep too large" 1 "string_rep_huge.lua:2: ($B|memory cap)" -- run $lim $H/string_rep_huge.lua
expect "hostile table.move over 1e15 slots" 1 "table_move_huge.lua:2: $B" -- run $lim $H/table_move_huge.lua
expect "hostile table.remove from the front" 1 "table_remove_quadratic.lua:5: $B" -- run $lim $H/table_remove_quadratic.lua
expect "hostile sim:series in a loop" 1 "series_loop.lua:4: $B" -- run $lim $H/series_loop.lua
expect "hostile sim:run(1e9) hits --timeout" 1 "sim_run_forever.lua:3: script exceeded its time limit of 0.3 s" -- run --timeout 0.3 $H/sim_run_forever.lua
expect "hostile sim:run(1e300)" 1 "sim_run_absurd.lua:3: run: .*more than one run may take" -- run $H/sim_run_absurd.lua
expect "hostile Lua loop hits --timeout" 1 "timeout_loop.lua:3: script exceeded its time limit of 0.3 s" -- run --timeout 0.3 --budget 1e15 $H/timeout_loop.lua
# The top of a script runs once to find its parameters: a slow top meets
# the limits given, or says where the parameters were looked for.
expect "a slow top before mlviz.params meets --timeout" 1 "slow_top.lua:3: script exceeded its time limit of 0.2 s" -- run --timeout 0.2 --budget 1e15 $H/slow_top.lua
expect "parameters after a slow top: the message says how far they were looked for" 2 "declares no parameters before its first 20000000 instructions" -- run $H/slow_top.lua --n=2
expect "hostile mlviz.plan stops at --timeout" 1 "plan_long.lua:5: script exceeded its time limit of 0.3 s" -- run --timeout 0.3 $H/plan_long.lua
expect "hostile mlviz.plan stops at the instruction budget" 1 "plan_long.lua:5: $B" -- run $lim $H/plan_long.lua
expect "hostile flood of sim:at" 1 "sim_at_flood.lua:4: at: too many scheduled events \(at most 100000" -- run $lim $H/sim_at_flood.lua
load_factor
expect "hostile 90000 events in reverse order" 0 "^callbacks	90000$" -- run --timeout $((5 * ${MLVIZ_TEST_TIME_FACTOR:-1} * HG_FACTOR)) $H/sim_at_many.lua
expect "hostile sweep with 12 axes" 1 "sweep_nine_axes.lua:5: sweep: at most 8 axes" -- run $H/sweep_nine_axes.lua
expect "hostile sweep with 9 axes (map)" 1 "sweep_nine_axes_map.lua:3: sweep: at most 8 axes" -- run $H/sweep_nine_axes_map.lua
expect "hostile sweep of 300^8 combinations" 1 "sweep_overflow.lua:7: sweep: too many combinations" -- run $H/sweep_overflow.lua
expect "hostile setup table 40 deep" 1 "setup_deep_table.lua:6: setup: table nested too deeply" -- run $H/setup_deep_table.lua
expect "hostile set table 30 deep" 1 "set_deep_table.lua:5: set: table nested too deeply" -- run $H/set_deep_table.lua
expect "hostile duration of 1e308 days" 1 "duration_overflow.lua:2: parse_duration: bad duration '1e308d'" -- run $H/duration_overflow.lua
expect "hostile sim:close in its own callback" 1 "sim_close_in_callback.lua:3: close: this simulation is running" -- run $H/sim_close_in_callback.lua
expect "hostile sim:run in its own callback" 1 "sim_run_in_callback.lua:3: run: this simulation is already running" -- run $H/sim_run_in_callback.lua
for v in 0 -1 nan inf abc ""; do
    expect "run --timeout '$v' is a usage error" 2 "mlviz: --timeout " -- run --timeout "$v" $H/infinite_loop.lua
done
expect "play --timeout 0 is a usage error" 2 "mlviz: --timeout " -- play --timeout 0 $H/infinite_loop.lua
# A signal stops a headless run promptly: "script interrupted", 128 + signal.
signal_stops() { # name, signal, status, script
    "$MLVIZ_BIN" run --budget 1e15 "$4" >"$out/stdout" 2>"$out/stderr" &
    pid=$!
    tf=${MLVIZ_TEST_TIME_FACTOR:-1}
    sleep "$(awk -v f="$tf" 'BEGIN { print 0.25 * f }')"
    kill -"$2" $pid
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt $((30 * tf)) ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $pid 2>/dev/null; then
        kill -9 $pid
        wait $pid
        fail "$1" "still running $((3 * tf)) s after SIG$2"
        return
    fi
    wait $pid
    rc=$?
    if [ $rc -ne "$3" ]; then
        fail "$1" "exit $rc, wanted $3: $(head -c 300 "$out/stderr")"
    elif ! grep -q "script interrupted" "$out/stderr"; then
        fail "$1" "no 'script interrupted' in: $(head -c 300 "$out/stderr")"
    else
        pass "$1"
    fi
}
signal_stops "SIGINT stops sim:run(1e9)" INT 130 $H/interrupt_target.lua
signal_stops "SIGTERM stops sim:run(1e9)" TERM 143 $H/interrupt_target.lua
signal_stops "SIGINT stops a Lua loop" INT 130 $H/timeout_loop.lua
signal_stops "SIGTERM stops a slow pattern" TERM 143 $H/pattern_pcall_loop.lua
[ -f "$out/escape.csv" ] || [ -f escape.csv ] && fail "no escape file" "../escape.csv was written" || pass "no escape file"
exit 0
