#!/bin/sh
# A tour that teaches by doing (issue 22): at each stage stop whose caption
# says "Press Right for ...", pressing Right (in the stop's stage view)
# changes the knob it names and the figure it names moves: the bottleneck
# leaves Data, CPUs and Infrastructure; the Interconnect stop's tensor-
# parallel time per step falls (at 80x24, 100x30 and 200x60). Doing so holds the stop (no automatic advance mid-experiment); n
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
# tp_time SESSION: the tensor-parallel time per step the screen shows: the
# Interconnect picture's "TP=8: 6.35 s per step", or where the picture has
# no room for it (80x24) the verdict's "tensor-parallel all-reduces (6.35 s)".
tp_time() {
    t=$(screen "$1" | grep -o "TP=8: [0-9.]* [a-z]* per step" | head -1)
    [ -n "$t" ] || t=$(screen "$1" | tr '\n' ' ' | tr -s ' ' | grep -o "parallel all-reduces ([0-9.]* [a-z]*)" | head -1)
    echo "$t"
}

# try_stops SESSION PREFIX: at each stage stop, press what the caption says
# and check the figure it names moves (PASS/FAIL lines start with PREFIX).
try_stops() {
    for k in 1 2 4 5; do
        stop "$1" $k
        caption=$(screen "$1" | grep -A3 "Tour [0-9]/7" | tr '\n' ' ' | tr -s ' ')
        case "$caption" in *"Press Right for"*) ;; *)
            fail "$2stop $k: the caption says what to press" "$caption"; continue ;;
        esac
        before=$(verdict "$1")
        step0=$(tp_time "$1")
        keys "$1" Right
        case $k in
        4)
            i=0
            while [ $i -lt 30 ] && [ "$(tp_time "$1")" = "$step0" ]; do
                sleep 0.1
                i=$((i + 1))
            done
            step1=$(tp_time "$1")
            if [ -n "$step0" ] && [ "$step1" != "$step0" ]; then
                pass "$2stop $k: Right as the caption says changes the tensor-parallel time ($step0 -> $step1)"
            else
                fail "$2stop $k: Right as the caption says changes the tensor-parallel time" "'$step0' -> '$step1': $(screen "$1" | tail -8)"
            fi
            ;;
        *)
            name=$(echo "$before" | sed 's/.*BOTTLENECK ▶ \([A-Za-z]*\).*/\1/')
            i=0
            while [ $i -lt 30 ] && verdict "$1" | grep -q "BOTTLENECK ▶ $name"; do
                sleep 0.1
                i=$((i + 1))
            done
            if [ -n "$name" ] && ! verdict "$1" | grep -q "BOTTLENECK ▶ $name"; then
                pass "$2stop $k: Right as the caption says moves the bottleneck off $name"
            else
                fail "$2stop $k: Right as the caption says moves the bottleneck off $name" "$before -> $(verdict "$1")"
            fi
            ;;
        esac
    done
}

start tr 100 30 -- --tour --speed 1
wait_for tr "Tour 1/7" 60 || fail "the tour starts" "$(screen tr | head -2)"
if screen tr | grep -q " o params"; then
    fail "the tour's footer lists only keys that work there" "$(screen tr | tail -1)"
else
    pass "the tour's footer lists only keys that work there"
fi
# The same presses at 80x24 and 200x60, side by side.
for size in 80x24 200x60; do
    start "t$size" "${size%x*}" "${size#*x}" -- --tour --speed 1
    (wait_for "t$size" "Tour 1/7" 60 && try_stops "t$size" "$size: "; exit $FAILS) > "$T/$size.log" 2>&1 &
done
try_stops tr ""
wait
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
for size in 80x24 200x60; do
    cat "$T/$size.log"
    FAILS=$((FAILS + $(grep -c '^FAIL ' "$T/$size.log")))
    keys "t$size" Escape q
done
exit $((FAILS > 0))
