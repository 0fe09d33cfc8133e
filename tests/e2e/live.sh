#!/bin/sh
# Live figures agree with the verdict: a throttled setup names the
# infrastructure in eval and on screen; while a rack overheats in a played
# run the live bottleneck is the infrastructure (the steady state named
# beside it); live tokens/s on a setup with 0.2 s steps stays within 10% of
# eval's. Prints "PASS name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

HOT=$MLVIZ_DATA/tests/setups/good/air-throttled.yaml
SHORT=$MLVIZ_DATA/tests/setups/good/short-steps.yaml

# The four checks run side by side, each in its own tmux session (they mostly
# wait on the simulated clock); each writes its lines to $T/part-NAME.log.

# --- a throttled setup: eval and the screen both name the infrastructure -----------
hot_check() {
    if "$BIN" eval "$HOT" | grep -q "^bottleneck: Supporting infrastructure"; then
        pass "eval names the infrastructure as the bottleneck of a throttled setup"
    else
        fail "eval names the infrastructure as the bottleneck of a throttled setup" \
            "$("$BIN" eval "$HOT" | grep bottleneck)"
    fi
    start hot 100 30 -- -c "$HOT"
    if wait_for hot "BOTTLENECK ▶ SUPPORTING INFRASTRUCTURE" 60; then
        pass "the screen marks the infrastructure of a throttled setup"
    else
        fail "the screen marks the infrastructure of a throttled setup" "$(screen hot | grep BOTTLENECK)"
    fi
    keys hot q
}

# --- cooling fails mid-run: the live bottleneck follows the rack -------------------
cool_check() {
    start cool 100 30 -- play cooling-failure --fail_at=1m --restore_at=60m --speed 120
    if wait_for cool "now: clocks" 300 &&
        screen cool | grep -q "BOTTLENECK ▶ Supporting infrastructure - now: clocks [0-9]*%, rack [0-9]* C (steady: Accelerators)"; then
        pass "a throttled run shows the infrastructure as the live bottleneck, the steady state beside it"
    else
        fail "a throttled run shows the infrastructure as the live bottleneck, the steady state beside it" \
            "$(screen cool | grep BOTTLENECK)"
    fi
    # The metrics say the same: MFU follows the clocks (about 64% at full speed).
    keys cool Escape
    wait_title cool "overview"
    mfu=$(screen cool | sed -n 's/^ MFU \([0-9.]*\)%.*/\1/p' | head -1)
    if [ -n "$mfu" ] && awk -v m="$mfu" 'BEGIN { exit !(m < 20) }'; then
        pass "while throttled the MFU shown follows the clocks ($mfu%)"
    else
        fail "while throttled the MFU shown follows the clocks" "MFU '$mfu': $(screen cool | grep MFU)"
    fi
    keys cool q
}

# --- live tokens/s over whole steps -------------------------------------------------
# value_of "83.2 k": the number in units.
value_of() {
    echo "$1" | awk '{ v = $1; if ($2 == "k") v *= 1e3; else if ($2 == "M") v *= 1e6; print v }'
}
# tput_check NAME LO_MS HI_MS [--set ...]: live tokens/s of the short-steps
# setup (with the --set changes) within 10% of eval's, steps LO..HI ms.
tput_check() {
    name=$1 lo=$2 hi=$3
    shift 3
    want=$(value_of "$("$BIN" eval "$SHORT" "$@" | sed -n 's/.*ms *\([0-9.]* [kM]*\) tokens\/s.*/\1/p')")
    step=$("$BIN" eval "$SHORT" "$@" | sed -n 's/^step \([0-9.]*\) ms.*/\1/p')
    start "$name" 100 30 -- -c "$SHORT" "$@" --speed 1
    # Wait for ten simulated seconds, then read it ten times.
    wait_for "$name" "sim 00:00:10" 300
    # At least 8 of the 10 readings: on a loaded machine a late frame can
    # catch the window one step short (noted as an open item in issue 12).
    readings="" bad="" off=0
    i=0
    while [ $i -lt 10 ]; do
        got=$(value_of "$(screen "$name" | sed -n 's/.*tokens\/s ~\{0,1\}\([0-9.]* [kM]*\).*/\1/p' | head -1)")
        readings="$readings $got"
        awk -v g="$got" -v w="$want" 'BEGIN { exit !(g > 0.9 * w && g < 1.1 * w) }' || off=$((off + 1))
        sleep 0.3
        i=$((i + 1))
    done
    [ $off -gt 2 ] && bad=1
    if [ -n "$want" ] && [ -z "$bad" ] && awk -v s="$step" -v lo="$lo" -v hi="$hi" \
        'BEGIN { exit !(s > lo && s < hi) }'; then
        pass "live tokens/s within 10% of eval with $step ms steps"
    else
        fail "live tokens/s within 10% of eval with $step ms steps" "eval $want, live$readings"
    fi
    keys "$name" q
}

hot_check >"$T/part-hot.log" 2>&1 &
cool_check >"$T/part-cool.log" 2>&1 &
tput_check tput 150 250 >"$T/part-tput.log" 2>&1 &
# Steps of about half a second: one or two complete in each 1 s sample, so
# a rate over one sample reads 0.55x or 1.1x; over whole steps it is right.
tput_check tput2 450 650 --set training.global_batch=24 >"$T/part-tput2.log" 2>&1 &
wait
for part in hot cool tput tput2; do
    cat "$T/part-$part.log"
    FAILS=$((FAILS + $(grep -c '^FAIL ' "$T/part-$part.log")))
done
[ "$FAILS" -eq 0 ]
