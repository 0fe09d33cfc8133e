#!/bin/sh
# Live figures agree with the live verdict. While a rack overheats in a
# played cooling failure the figures beside the "now:" verdict are the
# live ones: tokens/s follows the clocks (not the steady state's), the
# facility power and rack heat follow the live IT power, the throughput
# sparkline keeps the run's scale (the drop stays low). A setup that
# cannot run shows no load and labels the model's figures as what it would
# do. Prints "PASS name" or "FAIL name: why" per check. (tests/e2e/live.sh
# checks the throttled setup's bottleneck in eval and on screen.)
. "$(dirname "$0")/tmux-lib"

# value_of "83.2 k": the number in units.
value_of() {
    echo "$1" | awk '{ v = $1; if ($2 == "k") v *= 1e3; else if ($2 == "M") v *= 1e6; print v }'
}

# The scenario's setup, as eval sees it: its steady tokens/s.
steady=$(value_of "$("$BIN" eval default --set cluster.nodes=4 --set training.global_batch=256 \
    --set facility.cooling=rear-door --set facility.nodes_per_rack=4 |
    sed -n 's/^step .* s *\([0-9.]* [kM]*\) tokens\/s.*/\1/p')")
start cool 100 30 -- play cooling-failure --fail_at=1m --restore_at=60m --speed 120
wait_for cool "now: clocks" 300
sleep 3
keys cool Escape
wait_title cool overview
s=$(screen cool)
clocks=$(printf '%s\n' "$s" | sed -n 's/.*now: clocks \([0-9]*\)%.*/\1/p' | head -1)
tps=$(value_of "$(printf '%s\n' "$s" | sed -n 's/^ tokens\/s ~\{0,1\}\([0-9.]* [kM]*\).*/\1/p' | head -1)")
top=$(value_of "$(printf '%s\n' "$s" | sed -n 's/^ top \([0-9.]* [kM]*\).*/\1/p' | head -1)")
if [ -n "$clocks" ] && [ -n "$tps" ] && awk -v t="$tps" -v s="$steady" -v c="$clocks" \
    'BEGIN { w = s * c / 100; exit !(t > 0.5 * w && t < 2 * w + 0.02 * s) }'; then
    pass "while throttled to $clocks% tokens/s follows the clocks ($tps of $steady steady)"
else
    fail "while throttled tokens/s follows the clocks" \
        "clocks '$clocks' tokens/s '$tps' steady '$steady': $(printf '%s\n' "$s" | grep tokens/s)"
fi
if [ -n "$top" ] && awk -v t="$top" -v s="$steady" 'BEGIN { exit !(t >= 1.2 * s) }'; then
    pass "the throughput sparkline keeps the run's scale (top $top, steady $steady)"
else
    fail "the throughput sparkline keeps the run's scale" "top '$top' steady '$steady'"
fi
# IT power, facility power and the rack heat: the live ones agree.
line=$(printf '%s\n' "$s" | grep "^ IT .* facility .* rack heat" | head -1)
it=$(echo "$line" | sed -n 's/^ IT \([0-9.]*\) kW  facility \([0-9.]*\) kW  PUE \([0-9.]*\)  rack heat \([0-9.]*\) of.*/\1 \2 \3 \4/p')
if [ -n "$it" ] && echo "$it" | awk '{ it = $1; fac = $2; pue = $3; rack = $4;
        exit !(fac > it && fac < it * pue * 1.15 && rack <= it * 1.02 && rack >= it * 0.9) }'; then
    pass "facility power and rack heat follow the live IT power ($it)"
else
    fail "facility power and rack heat follow the live IT power" "'$line'"
fi
keys cool q

# --- a setup that cannot run -------------------------------------------------------
start no 100 30 -- -c default --set training.zero_stage=0 --set training.recompute=none
wait_for no "CANNOT RUN" 60
sleep 1
# The stage boxes' load bars end in "N% │" (the rack heat is the model's).
loads=$(screen no | grep -v "heat" | grep -o '[0-9.]*% [│┃]' | tr -d '│┃ ' | tr '\n' ' ')
if [ -n "$loads" ] && [ -z "$(echo "$loads" | tr ' ' '\n' | grep -v '^0\(\.0\)*%$' | grep .)" ] &&
    screen no | grep -q "if it could run" && screen no | grep -q "tokens/s -"; then
    pass "a setup that cannot run shows no load, no tokens and its figures as 'if it could run'"
else
    fail "a setup that cannot run shows no load, no tokens and its figures as 'if it could run'" \
        "loads '$loads': $(screen no | grep -E 'CANNOT|could|tokens/s')"
fi
keys no q

[ "$FAILS" -eq 0 ]
