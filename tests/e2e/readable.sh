#!/bin/sh
# Readable at projector sizes: the stage explanation scrolls at 80x24 with
# PgDn/PgUp/Home/End and says where it is; e shows it full screen.
# Prints "PASS name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

# where SESSION: the explanation's position ("2/11"), empty when it all fits.
where() { screen "$1" | grep -o "PgDn [0-9]*/[0-9]*" | head -1 | cut -d' ' -f2; }
# wait_where SESSION POS: poll until the position reads POS.
wait_where() {
    i=0
    while [ $i -lt 40 ]; do
        [ "$(where "$1")" = "$2" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

start ex 80 24 -- -c default
keys ex 3
if wait_title ex "3 ACCELERATORS" && wait_where ex "1/$(where ex | cut -d/ -f2)"; then
    n=$(where ex | cut -d/ -f2)
    first=$(screen ex | sed -n 6p | cut -c1-38)
    keys ex NPage
    if [ "${n:-0}" -gt 1 ] && wait_where ex "2/$n" && [ "$(screen ex | sed -n 6p | cut -c1-38)" != "$first" ]; then
        pass "PgDn scrolls the explanation at 80x24 and shows where it is"
    else
        fail "PgDn scrolls the explanation at 80x24 and shows where it is" "at $(where ex) of $n"
    fi
    keys ex End
    wait_where ex "$n/$n" && pass "End goes to the end of the explanation" ||
        fail "End goes to the end of the explanation" "at $(where ex)"
    keys ex Home
    wait_where ex "1/$n" && pass "Home goes back to its start" ||
        fail "Home goes back to its start" "at $(where ex)"
else
    fail "PgDn scrolls the explanation at 80x24 and shows where it is" \
        "no position shown: $(screen ex | sed -n 9p)"
fi

# e: the explanation over the whole body; e again returns.
keys ex e
i=0
while [ $i -lt 40 ] && screen ex | grep -qF "knobs"; do sleep 0.1; i=$((i + 1)); done
if ! screen ex | grep -qF "knobs" && screen ex | sed -n 2p | grep -q "Accelerators.*back ╮$" &&
    screen ex | grep -qF "MFU says how much"; then
    pass "e shows the explanation full screen at 80x24"
else
    fail "e shows the explanation full screen at 80x24" "$(screen ex | sed -n 2p)"
fi
keys ex e
wait_for ex "knobs" 20 && pass "e again returns to the stage view" ||
    fail "e again returns to the stage view" "$(screen ex | sed -n 2p)"
keys ex q

# --- the tour shows what it explains; its captions fit at 80x24 ---------------------
start tour 80 24 -- -c default --tour
ok=1 why=""
for stop in "1 DATA|Data|watch the bottleneck move." "2 CPUs|CPUs|watch the bottleneck move." \
            "3 ACCELERATORS|Accelerators|the share of peak used." \
            "4 INTERCONNECT|Interconnects|time per step halves." \
            "5 INFRASTRUCTURE|Supporting infrastructure|return to full speed."; do
    title=${stop%%|*} rest=${stop#*|}
    stage=${rest%%|*} ending=${rest#*|}
    keys tour n
    if ! wait_title tour "$title │ Tour:"; then
        ok=0 why="$why [$title: title $(screen tour | head -1)]"
        continue
    fi
    screen tour | grep -q "BOTTLENECK ▶ $stage" || ok=0 why="$why [$title: $(screen tour | grep BOTTLENECK)]"
    screen tour | grep -qF "$ending" || ok=0 why="$why [$title: caption cut]"
done
[ $ok = 1 ] && pass "each tour stop loads a setup whose bottleneck is its stage, caption whole at 80x24" ||
    fail "each tour stop loads a setup whose bottleneck is its stage, caption whole at 80x24" "$why"
keys tour Escape
if wait_title tour "Llama-8B on 1x DGX H100"; then
    pass "ending the tour brings back the setup it started from"
else
    fail "ending the tour brings back the setup it started from" "$(screen tour | head -1)"
fi
keys tour q

[ "$FAILS" -eq 0 ]
