#!/bin/sh
# Lua scripting tests: API tests, every scenario headless with its conclusion
# checked, and hostile scripts that must stop with the right message.
# Prints "PASS name" or "FAIL name: why" per check. Run from the repo root.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case "$MLVIZ_BIN" in /*) ;; *) MLVIZ_BIN=$(pwd)/$MLVIZ_BIN ;; esac
MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
export MLVIZ_DATA
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# expect NAME STATUS PATTERN -- mlviz args...: exit status and a line matching
# PATTERN (grep -E) in stdout+stderr. A run that hangs is killed after 60 s.
expect() {
    name=$1 status=$2 pattern=$3
    shift 4
    timeout 60 "$MLVIZ_BIN" "$@" >"$out/stdout" 2>"$out/stderr"
    rc=$?
    cat "$out/stdout" "$out/stderr" >"$out/all"
    if [ $rc -eq 124 ]; then
        fail "$name" "still running after 60 s"
    elif [ $rc -ne "$status" ]; then
        fail "$name" "exit $rc, wanted $status: $(head -c 300 "$out/stderr")"
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$out/all"; then
        fail "$name" "no line matching '$pattern' in: $(tail -c 300 "$out/all")"
    else
        pass "$name"
    fi
}

# ---- API tests written in Lua: they print their own PASS/FAIL lines ----------
for t in tests/lua/test_*.lua; do
    n=$(basename "$t" .lua)
    trust=""
    case "$n" in *trusted*) trust=--trust ;; esac
    (cd "$out" && "$MLVIZ_BIN" run $trust "$OLDPWD/$t" --out "$out" >"$out/$n.log" 2>&1)
    rc=$?
    cat "$out/$n.log" | grep -E '^(PASS|FAIL) '
    if [ $rc -ne 0 ]; then fail "$n" "exit $rc: $(tail -n 5 "$out/$n.log" | tr '\n' ' ')"; fi
done

# ---- every scenario runs headless and concludes what the engine says -----------
conclusion() { # scenario, pattern
    expect "scenario $1" 0 "^Conclusion: .*$2" -- run "$1"
}
conclusion data-starvation "bottleneck moves from (cpus|data) to accelerators"
conclusion host-ram "is too little for .*host_ram_ok = false"
conclusion gpu-generations "h200-sxm trains [0-9.]+x faster than v100"
conclusion precision "bf16 is [0-9.]+x faster than fp32.*fp32 does not fit"
conclusion fit-70b "first setting that fits is ZeRO 3"
conclusion parallelism "fastest layout that fits is"
conclusion allreduce-scaling "at 8 GPUs the ring .* at 16384 GPUs it is tree"
conclusion links "PCIe instead of NVLink makes tensor-parallel traffic [0-9.]+x slower"
conclusion cooling "air cooling removes .*throttle.*first option without throttling is rear-door"
conclusion cooling-failure "GPUs ran throttled for [0-9.]+ min"
conclusion spot-checkpoints "best interval in the sweep is 5 min"
conclusion failures-16k "16384 GPUs see [0-9.]+ interruptions a day"
conclusion gpt3-energy "days on 1024 GPUs"
conclusion cpu-vs-gpu "one H100 runs the step [0-9.]+x faster than the laptop CPU"
# The conclusion follows the parameters: no cure, no change of bottleneck.
expect "scenario params change the story" 0 "^Conclusion: the bottleneck moves from cpus to cpus" -- \
    run data-starvation --workers=1 --cache_hit=0 --prefetch=0
expect "scenario unknown param is a usage error" 2 "unknown option '--nodez'" -- run cooling --nodez=3
expect "scenario param of the wrong type" 2 "expects a number" -- run cooling --nodes_per_rack=many
expect "scenario --help lists params" 0 "--nodes_per_rack=number" -- run cooling --help
expect "scenarios lists descriptions" 0 "^data-starvation +Data starvation" -- scenarios
expect "run without a script" 2 "which script" -- run
expect "run of a missing script" 2 "no script" -- run no-such-scenario

# ---- hostile scripts ---------------------------------------------------------------
H=tests/lua/hostile
lim="--budget 30000000 --memory 64MiB"
expect "hostile infinite loop" 1 "infinite_loop.lua:2: instruction budget of 30000000 exceeded" -- run $lim $H/infinite_loop.lua
expect "hostile loop inside pcall" 1 "instruction budget .* exceeded" -- run $lim $H/pcall_loop.lua
expect "hostile memory bomb" 1 "memory_bomb.lua:[0-9]+: memory cap of 64 MiB exceeded" -- run $lim $H/memory_bomb.lua
expect "hostile memory bomb inside pcall" 1 "memory cap of 64 MiB exceeded" -- run $lim $H/pcall_memory.lua
expect "hostile os.execute" 1 "os_execute.lua:1: os.execute is not available in the sandbox" -- run $H/os_execute.lua
expect "hostile io.open /etc/passwd" 1 "io_open.lua:1: 'io' is not available in the sandbox" -- run $H/io_open.lua
expect "hostile loadfile" 1 "'loadfile' is not available" -- run $H/loadfile.lua
expect "hostile debug library" 1 "'debug' is not available" -- run $H/debug_lib.lua
expect "hostile binary chunk" 1 "attempt to load a binary chunk" -- run $H/binary_chunk.lua
expect "hostile deep recursion" 1 "deep_recursion.lua:1: stack overflow" -- run $H/deep_recursion.lua
expect "hostile error in event callback" 1 "callback_error.lua:3: boom in callback \(in an event callback" -- run $H/callback_error.lua
expect "hostile nil index in event callback" 1 "callback_nil_index.lua:3: attempt to index a nil value" -- run $H/callback_nil_index.lua
expect "hostile write with .." 1 "'../escape.csv' is outside the output directory" -- run $H/write_escape.lua
expect "hostile absolute write" 1 "'/tmp/abs.json' is outside the output directory" -- run $H/write_absolute.lua
expect "hostile require escape" 1 "bad module name" -- run $H/require_escape.lua
expect "hostile unknown field" 1 "bad_field.lua:2: set: unknown field 'cluster.nodez' \(did you mean 'cluster.nodes'\?\)" -- run $H/bad_field.lua
expect "hostile accidental global" 1 "global_assign.lua:1: assignment to undeclared global 'count'" -- run $H/global_assign.lua
expect "hostile traceback printed" 1 "stack traceback" -- run $H/bad_field.lua
expect "trusted lifts the sandbox" 0 "" -- run --trust tests/lua/trusted_io.lua
expect "readme example: slow storage becomes the bottleneck" 0 "1.0 GB/s +[0-9]+ tokens/s +data +storage delivers 1 GB/s" -- run tests/lua/readme_example.lua
expect "readme example: a cooling loss throttles" 0 "throttled [1-9][0-9]* min, hottest rack" -- run tests/lua/readme_example.lua

# ---- budget, time limit, interrupt, memory safety at the API boundary ------------
B="instruction budget of 30000000 exceeded"
expect "hostile pattern backtracking" 1 "pattern_backtrack.lua:3: $B" -- run $lim $H/pattern_backtrack.lua
expect "hostile slow pattern inside pcall" 1 "pattern_pcall_loop.lua:4: $B" -- run $lim $H/pattern_pcall_loop.lua
expect "hostile quadratic gsub" 1 "gsub_quadratic.lua:3: $B" -- run $lim $H/gsub_quadratic.lua
expect "hostile quadratic gmatch" 1 "gmatch_quadratic.lua:2: $B" -- run $lim $H/gmatch_quadratic.lua
expect "hostile string.rep of nothing" 0 "^empty	0	0$" -- run $lim $H/string_rep_empty.lua
expect "hostile string.rep too large" 1 "string_rep_huge.lua:2: ($B|memory cap)" -- run $lim $H/string_rep_huge.lua
expect "hostile table.move over 1e15 slots" 1 "table_move_huge.lua:2: $B" -- run $lim $H/table_move_huge.lua
expect "hostile table.remove from the front" 1 "table_remove_quadratic.lua:5: $B" -- run $lim $H/table_remove_quadratic.lua
expect "hostile sim:series in a loop" 1 "series_loop.lua:4: $B" -- run $lim $H/series_loop.lua
expect "hostile sim:run(1e9) hits --timeout" 1 "sim_run_forever.lua:3: script exceeded its time limit of 1 s" -- run --timeout 1 $H/sim_run_forever.lua
expect "hostile sim:run(1e300)" 1 "sim_run_absurd.lua:3: run: .*more than one run may take" -- run $H/sim_run_absurd.lua
expect "hostile Lua loop hits --timeout" 1 "timeout_loop.lua:3: script exceeded its time limit of 0.5 s" -- run --timeout 0.5 --budget 1e15 $H/timeout_loop.lua
expect "hostile flood of sim:at" 1 "sim_at_flood.lua:4: at: too many scheduled events \(at most 100000" -- run $lim $H/sim_at_flood.lua
expect "hostile 90000 events in reverse order" 0 "^callbacks	90000$" -- run --timeout 5 $H/sim_at_many.lua
expect "hostile sweep with 12 axes" 1 "sweep_nine_axes.lua:5: sweep: at most 8 axes" -- run $H/sweep_nine_axes.lua
expect "hostile sweep with 9 axes (map)" 1 "sweep_nine_axes_map.lua:3: sweep: at most 8 axes" -- run $H/sweep_nine_axes_map.lua
expect "hostile sweep of 300^8 combinations" 1 "sweep_overflow.lua:7: sweep: too many combinations" -- run $H/sweep_overflow.lua
expect "hostile setup table 40 deep" 1 "setup_deep_table.lua:6: setup: table nested too deeply" -- run $H/setup_deep_table.lua
expect "hostile set table 30 deep" 1 "set_deep_table.lua:5: set: table nested too deeply" -- run $H/set_deep_table.lua
expect "hostile duration of 1e308 days" 1 "duration_overflow.lua:2: parse_duration: duration '1e308d' is too long" -- run $H/duration_overflow.lua
expect "hostile sim:close in its own callback" 1 "sim_close_in_callback.lua:3: close: this simulation is running" -- run $H/sim_close_in_callback.lua
expect "hostile sim:run in its own callback" 1 "sim_run_in_callback.lua:3: run: this simulation is already running" -- run $H/sim_run_in_callback.lua
for v in 0 -1 nan inf abc ""; do
    expect "run --timeout '$v' is a usage error" 2 "--timeout needs a positive number of seconds" -- run --timeout "$v" $H/infinite_loop.lua
done
expect "play --timeout 0 is a usage error" 2 "--timeout needs a positive number of seconds" -- play --timeout 0 $H/infinite_loop.lua
# A signal stops a headless run promptly: "script interrupted", 128 + signal.
signal_stops() { # name, signal, status, script
    "$MLVIZ_BIN" run --budget 1e15 "$4" >"$out/stdout" 2>"$out/stderr" &
    pid=$!
    sleep 0.5
    kill -"$2" $pid
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $pid 2>/dev/null; then
        kill -9 $pid
        wait $pid
        fail "$1" "still running 3 s after SIG$2"
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
