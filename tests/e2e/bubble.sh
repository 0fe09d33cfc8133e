#!/bin/sh
# One bubble (issue 22): GPT-3 175B on 1,024 A100 shows the same pipeline
# bubble share in eval, in the overview's step bar and in the Interconnect
# picture; a PP = 1 setup shows no bubble in its step bar (waiting for the
# slowest device is its own part, "stragglers"). Prints PASS/FAIL lines.
. "$(dirname "$0")/tmux-lib"

want=$("$BIN" eval gpt3-175b-a100 | sed -n 's/^  B pp_bubble .* \([0-9.]*%\)$/\1/p')
start g 140 40 -- -c gpt3-175b-a100
wait_for g "steady state" 60
bar=$(screen g | grep "steady state" | sed -n 's/.*■ bubble \([0-9.]*%\).*/\1/p')
keys g 4
wait_for g "micro-batches: bubble" 40
# the picture's heading: "... micro-batches: bubble 1.88 s (6.2%)"
pic=$(screen g | sed -n 's/.*micro-batches: bubble [^(]*(\([0-9.]*%\)).*/\1/p' | head -1)
if [ -n "$want" ] && [ "$want" = "$bar" ] && [ "$want" = "$pic" ]; then
    pass "GPT-3 on 1,024 A100: the bubble is $want in eval, the step bar and the picture"
else
    fail "GPT-3 on 1,024 A100: the same bubble in eval, the step bar and the picture" \
        "eval '$want', step bar '$bar', picture '$pic'"
fi
keys g q
start d 100 30 -- -c default
wait_for d "steady state" 60
legend=$(screen d | grep "steady state")
if echo "$legend" | grep -q "stragglers" && ! echo "$legend" | grep -q "bubble"; then
    pass "a PP = 1 setup shows no bubble; straggler wait is its own part"
else
    fail "a PP = 1 setup shows no bubble; straggler wait is its own part" "$legend"
fi
keys d q
exit $((FAILS > 0))
