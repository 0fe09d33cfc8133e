#!/bin/sh
# A tour that teaches by doing (issue 22): at each stage stop whose caption
# says "Press Right for ...", pressing Right (in the stop's stage view)
# changes the knob it names and the figure it names moves: the bottleneck
# leaves Data, CPUs and Infrastructure; the Interconnect stop's tensor-
# parallel time per step falls. Doing so holds the stop (no automatic advance mid-experiment); n
# still moves on. The tour's footer lists no key that does nothing there.
# Prints PASS/FAIL lines.
. "$(dirname "$0")/tmux-lib"

# stop SESSION K: press n until the title shows "Tour" and stage K's view.
stop() {
    i=0
    while [ $i -lt 12 ] && ! screen "$1" | head -1 | grep -q "│ $2 "; do
        keys "$1" n
        sleep 0.3
        i=$((i + 1))
    done
}
verdict() { screen "$1" | grep "BOTTLENECK ▶" | head -1; }

start tr 100 30 -- --tour --speed 1
wait_for tr "Tour 1/7" 60 || fail "the tour starts" "$(screen tr | head -2)"
if screen tr | grep -q " o params"; then
    fail "the tour's footer lists only keys that work there" "$(screen tr | tail -1)"
else
    pass "the tour's footer lists only keys that work there"
fi
for k in 1 2 4 5; do
    stop tr $k
    caption=$(screen tr | grep -A3 "Tour [0-9]/7" | tr '\n' ' ')
    case "$caption" in *"Press Right for"*) ;; *)
        fail "stop $k: the caption says what to press" "$caption"; continue ;;
    esac
    before=$(verdict tr)
    step0=$(screen tr | grep -o "TP=8: [0-9.]* [a-z]* per step" | head -1)
    keys tr Right
    case $k in
    4)
        i=0
        while [ $i -lt 30 ] && [ "$(screen tr | grep -o "TP=8: [0-9.]* [a-z]* per step" | head -1)" = "$step0" ]; do
            sleep 0.1
            i=$((i + 1))
        done
        step1=$(screen tr | grep -o "TP=8: [0-9.]* [a-z]* per step" | head -1)
        if [ -n "$step0" ] && [ "$step1" != "$step0" ]; then
            pass "stop $k: Right as the caption says changes the tensor-parallel time ($step0 -> $step1)"
        else
            fail "stop $k: Right as the caption says changes the tensor-parallel time" "'$step0' -> '$step1'"
        fi
        ;;
    *)
        name=$(echo "$before" | sed 's/.*BOTTLENECK ▶ \([A-Za-z]*\).*/\1/')
        i=0
        while [ $i -lt 30 ] && verdict tr | grep -q "BOTTLENECK ▶ $name"; do
            sleep 0.1
            i=$((i + 1))
        done
        if [ -n "$name" ] && ! verdict tr | grep -q "BOTTLENECK ▶ $name"; then
            pass "stop $k: Right as the caption says moves the bottleneck off $name"
        else
            fail "stop $k: Right as the caption says moves the bottleneck off $name" "$before -> $(verdict tr)"
        fi
        ;;
    esac
done
# The stop stays while its knob is being tried (a tour stop lasts 14 s).
at=$(screen tr | grep -o "Tour [0-9]/7" | head -1)
sleep 16
if [ "$(screen tr | grep -o "Tour [0-9]/7" | head -1)" = "$at" ]; then
    pass "after a knob is turned the tour holds its stop"
else
    fail "after a knob is turned the tour holds its stop" "$at -> $(screen tr | grep -o "Tour [0-9]/7" | head -1)"
fi
keys tr n
if wait_for tr "Tour 7/7" 20; then
    pass "n still moves on"
else
    fail "n still moves on" "$(screen tr | grep -o "Tour [0-9]/7")"
fi
keys tr Escape
keys tr q
exit $((FAILS > 0))
