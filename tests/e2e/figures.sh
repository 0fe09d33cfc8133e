#!/bin/sh
# Figures an expert would challenge: light loader work reads as a small
# number of busy cores, not "0.0" nor "0.00077"; a slow speed has no exponent; with ZeRO-3 (FSDP) the data-parallel
# traffic is labelled weights+grads, not gradient sync; with ZeRO-2 it is
# the gradient sync. Prints "PASS name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

# --- busy cores: two significant digits, none finer than 0.01 ------------------------
# (view_fmt_cores: "0.84", "14"; below a hundredth of a core "<0.01", never
# "0.00077" nor "7.7e-04"; the box words it as its width allows: "cores
# used X of 112", "cores used X/112" (100 columns), "cores X/112" (80).
busy=$("$BIN" eval default --format json | sed -n 's/.*"cpu_cores_busy": *\([0-9.e+-]*\).*/\1/p' | head -1)
want=$(awk -v b="$busy" 'BEGIN { if (b == 0) print "0"; else if (b < 0.01) print "<0.01";
                                 else if (b < 1) printf "%.2f", b; else printf "%.2g", b }')
start cores 120 30 --
start narrow 80 24 --
if wait_for cores "cores used $want of 112" 60; then
    pass "the CPUs box shows $want of 112 cores busy (eval: $busy)"
else
    fail "the CPUs box shows $want of 112 cores busy (eval: $busy)" "$(screen cores | grep cores)"
fi
if wait_for narrow "cores $want/112 " 60; then
    pass "at 80x24 the CPUs box shows the count whole ('cores $want/112')"
else
    fail "at 80x24 the CPUs box shows the count whole ('cores $want/112')" "$(screen narrow | sed -n 3,6p)"
fi
keys narrow q
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

# --- no exponent in the title: a very slow speed reads in plain digits -------------
start slow 100 30 -- --speed 0.00001
if wait_for slow "x0.00001 " 60 && ! screen slow | head -1 | grep -q "e-0"; then
    pass "the title shows --speed 0.00001 as x0.00001, not x1e-05"
else
    fail "the title shows --speed 0.00001 as x0.00001, not x1e-05" "$(screen slow | head -1)"
fi
keys slow q

[ "$FAILS" -eq 0 ]
