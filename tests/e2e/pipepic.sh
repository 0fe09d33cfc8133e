#!/bin/sh
# The Interconnect view's pipeline picture (issue 20) draws the simulated
# schedule: one row per stage (all of them when the rows exist), the
# interleaved order of a Megatron-Core setup (forwards and backwards of odd
# chunks in lower case), idle cells where the bubble is, and the bubble in
# its heading is the one `mlviz eval` reports (breakdown_s.pp_bubble,
# sched_bubble_s). Prints "PASS name" or "FAIL name: why".
. "$(dirname "$0")/tmux-lib"

setup=tests/validation/setups/nemo-gpt3-175b.yaml
bubble=$("$BIN" eval "$setup" --format json | sed -n 's/.*"pp_bubble": *\([0-9.eE+-]*\).*/\1/p' | head -1)
want=$(awk -v t="$bubble" 'BEGIN { if (t < 0.001) printf "%.0f us", t * 1e6;
    else if (t < 1) printf "%.1f ms", t * 1e3; else printf "%.2f s", t }')
start pipe 160 60 -- -c "$setup"
wait_for pipe "BOTTLENECK" 150
press_until pipe 4 "collectives and pipeline"
keys pipe Space
sleep 0.3
screen pipe > "$T/pipe.screen"
heading=$(grep -o 'pipeline PP=8 x 6 chunks, 64 micro-batches: bubble [^)]*)' "$T/pipe.screen" | head -1)
rows=$(grep -cE 's[1-8] .*[FfBb]{3}' "$T/pipe.screen")
if [ -n "$heading" ] && echo "$heading" | grep -qF "bubble $want" && [ "$rows" -eq 8 ]; then
    pass "pipeline picture: '$heading' over 8 stage rows (eval: pp_bubble $bubble s)"
else
    fail "pipeline picture" "want 'bubble $want' and 8 stage rows, got '$heading' and $rows rows"
fi
if grep -E 's[1-8] ' "$T/pipe.screen" | grep -q '[fb]' && grep -E 's1 ' "$T/pipe.screen" | grep -q '[FB]'; then
    pass "pipeline picture: even and odd chunks of the interleaved order"
else
    fail "pipeline picture" "no odd-chunk (f/b) passes in the rows"
fi
[ "$FAILS" -eq 0 ]
