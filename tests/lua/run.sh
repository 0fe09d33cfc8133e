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
# PATTERN (grep -E) in stdout+stderr.
expect() {
    name=$1 status=$2 pattern=$3
    shift 4
    "$MLVIZ_BIN" "$@" >"$out/stdout" 2>"$out/stderr"
    rc=$?
    cat "$out/stdout" "$out/stderr" >"$out/all"
    if [ $rc -ne "$status" ]; then
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
conclusion moe-experts "all-to-alls take [0-9.]+ s per step inside one NVLink node, [0-9.]+ s when the expert group crosses the network \\([0-9.]+x\\)"
conclusion long-context "first context-parallel size that fits is CP [248]"
conclusion rack-scale "across 8-GPU servers and [0-9.]+ s inside the NVL72 domain; the rack trains [0-9.]+x faster"
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
[ -f "$out/escape.csv" ] || [ -f escape.csv ] && fail "no escape file" "../escape.csv was written" || pass "no escape file"
exit 0
