#!/bin/sh
# Lua scripting tests: API tests, the API surface against the docs, and every
# scenario headless with its conclusion checked (the hostile scripts and the
# sandbox limits are tests/lua/hostile.sh; the two run side by side).
# Prints "PASS name" or "FAIL name: why" per check. Run from the repo root.
. "$(dirname "$0")/common"

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

# ---- the writers see every field of a report that was never read ---------------
cat >"$out/lazy.lua" <<'EOS'
local s = mlviz.load("default")
mlviz.write_json("unread.json", s:eval())
local r = s:eval()
for _ in pairs(r) do end
mlviz.write_json("whole.json", r)
mlviz.write_csv("unread.csv", { s:eval() }, { "tokens_per_s", "mfu", "bottleneck" })
local w = s:eval()
for _ in pairs(w) do end
mlviz.write_csv("whole.csv", { w }, { "tokens_per_s", "mfu", "bottleneck" })
EOS
if (cd "$out" && "$MLVIZ_BIN" run lazy.lua --out "$out" >"$out/lazy.log" 2>&1) &&
    grep -q '"tokens_per_s"' "$out/unread.json" && cmp -s "$out/unread.json" "$out/whole.json" &&
    grep -q '[0-9]' "$out/unread.csv" && cmp -s "$out/unread.csv" "$out/whole.csv"; then
    pass "write_json and write_csv of an unread report write every field"
else
    fail "write_json and write_csv of an unread report write every field" "$(tail -n 3 "$out/lazy.log")"
fi

# ---- the API surface: what the host registers is what the docs describe ---------
if "$MLVIZ_BIN" run --trust tests/lua/api_surface.lua >"$out/surface" 2>"$out/stderr"; then
    python3 tests/lua/api_surface.py "$out/surface" || fails=$((fails + 1))
else
    fail "api surface" "listing failed: $(head -c 300 "$out/stderr")"
fi

# ---- every scenario runs headless and concludes what the engine says -----------
conclusion() { # scenario, pattern
    expect "scenario $1" 0 "^Conclusion: .*$2" -- run "$1"
}
conclusion data-starvation "bottleneck moves from (cpus|data) to accelerators"
conclusion host-ram "is too little for .*host_ram_ok = false"
conclusion gpu-generations "h200-sxm trains [0-9.]+x faster than v100"
conclusion power "GB300 trains [0-9]+% faster than the GB200.*H100 capped at 500 W keeps 88% of its clock"
# The FP4 story's claim: a large gain on the dense 405B, a few percent on the MoE.
conclusion fp4 "NVFP4 trains the dense 405B 1\.[3-9]x as fast as FP8 but the MoE only [0-9]% faster than MXFP8"
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
conclusion plan-a-run "2048 H100s need [0-9.]+ days at best \(TP [0-9]+, PP [0-9]+.*cheapest choice is [0-9]+ H100s"
conclusion why-answers-stream "each answer token takes [0-9.]+ ms, [0-9]+x longer, because decode reads every weight"
conclusion batch-latency "batch 64 serves [0-9]+x the tokens of batch 1 for 1\.[0-9]x the time per token"
conclusion kv-cache-users "at 131072 tokens a conversation only [0-9]+ users fit on the eight GPUs, against [0-9]+ at 2048"
# The conclusion follows the parameters: no cure, no change of bottleneck.
expect "scenario params change the story" 0 "^Conclusion: the bottleneck moves from cpus to cpus" -- \
    run data-starvation --workers=1 --cache_hit=0 --prefetch=0
expect "scenario unknown param is a usage error" 2 "unknown option '--nodez'" -- run cooling --nodez=3
expect "scenario param of the wrong type" 2 "expects a number" -- run cooling --nodes_per_rack=many
expect "scenario --help lists params" 0 "--nodes_per_rack=number" -- run cooling --help
expect "scenarios lists descriptions" 0 "^data-starvation +Data starvation" -- scenarios
expect "params past the cap name the line" 1 "params_too_many.lua:5: params: 33 parameters declared, a script may declare at most 32" -- \
    run tests/lua/hostile/params_too_many.lua
expect "run without a script" 2 "which script" -- run
expect "run of a missing script" 2 "no script" -- run no-such-scenario

exit 0
