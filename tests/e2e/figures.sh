#!/bin/sh
# Figures an expert would challenge: light loader work reads as a small
# number of busy cores, not "0.0"; with ZeRO-3 (FSDP) the data-parallel
# traffic is labelled weights+grads, not gradient sync; with ZeRO-2 it is
# the gradient sync. Prints "PASS name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

# --- busy cores with two significant digits -----------------------------------------
busy=$("$BIN" eval default --format json | sed -n 's/.*"cpu_cores_busy": *\([0-9.e+-]*\).*/\1/p' | head -1)
want=$(awk -v b="$busy" 'BEGIN { printf "%.2g", b }')
start cores 100 30 --
if wait_for cores "cores used $want/112" 60 && ! screen cores | grep -q "cores used 0\.0/"; then
    pass "the CPUs box shows $want of 112 cores busy (eval: $busy)"
else
    fail "the CPUs box shows $want of 112 cores busy (eval: $busy)" "$(screen cores | grep cores)"
fi
keys cores 2
if wait_for cores "loaders use $want of 112 cores" 40; then
    pass "the CPUs picture says $want of 112 cores busy"
else
    fail "the CPUs picture says $want of 112 cores busy" "$(screen cores | grep "loaders use")"
fi
keys cores q

# --- ZeRO-3: weights and gradients, by name ---------------------------------------
if "$BIN" eval default | grep -q "ZeRO 3"; then
    start z3 100 30 --
    if wait_for z3 "ZeRO-3 w+g" 60 && ! screen z3 | grep -q "grad sync"; then
        pass "with ZeRO-3 the interconnect box names the weights+grads traffic"
    else
        fail "with ZeRO-3 the interconnect box names the weights+grads traffic" \
            "$(screen z3 | grep -E 'sync|ZeRO')"
    fi
    keys z3 4
    if wait_for z3 "ZeRO-3 over DP=8" 40 && wait_for z3 "ZeRO-3 weights+grads" 10; then
        pass "the interconnect view says what ZeRO-3 moves (all-gather weights, reduce-scatter grads)"
    else
        fail "the interconnect view says what ZeRO-3 moves" "$(screen z3 | grep -E 'ZeRO|sync')"
    fi
    keys z3 q
else
    fail "the default preset uses ZeRO 3" "$("$BIN" eval default | sed -n 3p)"
fi
start z2 100 30 -- -c default --set training.zero_stage=2
if wait_for z2 "grad sync" 60 && ! screen z2 | grep -q "ZeRO-3"; then
    pass "with ZeRO-2 the interconnect box shows the gradient sync"
else
    fail "with ZeRO-2 the interconnect box shows the gradient sync" "$(screen z2 | grep -E 'sync|ZeRO')"
fi
keys z2 q

[ "$FAILS" -eq 0 ]
