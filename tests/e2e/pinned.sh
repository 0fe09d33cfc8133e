#!/bin/sh
# Tables keep their header in sight (issue 22): a played story's table
# (story.table, through mlviz.print_table) keeps its header row at the top of
# the narration pane while its rows show there, at the pause after it and
# scrolled back with PgUp, and its cells are formatted by what they hold
# (no "3.23e+03", shares as %); the plan screen's table keeps its header
# while the rows scroll under it. Prints PASS/FAIL lines.
. "$(dirname "$0")/tmux-lib"

# pane SESSION: the narration pane (the rows between the bottleneck line and
# the footer).
pane() { screen "$1" | sed -n '/BOTTLENECK/,$p' | sed '1d;$d'; }
HEAD="case  *samples/s  *starvation"

start st 100 30 -- play scenarios/data-starvation.lua
i=0
while [ $i -lt 12 ] && ! screen st | grep -q "On screen: all three cures"; do
    keys st Space
    wait_for st "space: continue" 20
    sleep 0.3
    i=$((i + 1))
done
pane st > "$T/at-pause"
top=$(grep -v "^ *$" "$T/at-pause" | head -1)
if echo "$top" | grep -q "$HEAD" && grep -q "+ prefetch  *14.5 k" "$T/at-pause"; then
    pass "at the pause after a story's table its header row heads the pane above its rows"
else
    fail "at the pause after a story's table its header row heads the pane above its rows" "$(cat "$T/at-pause")"
fi
before=$(screen st | grep -o "narration [0-9]*/")
keys st PPage
i=0
while [ $i -lt 20 ] && [ "$(screen st | grep -o "narration [0-9]*/")" = "$before" ]; do
    sleep 0.1
    i=$((i + 1))
done
pane st > "$T/back"
top=$(head -1 "$T/back")
rows=$(grep -c "^ [+1] .*  [0-9.]* k\? .*%" "$T/back")
if echo "$top" | grep -q "$HEAD\|Feeding the GPUs" && [ "$rows" -ge 1 ]; then
    pass "scrolled back, the table's header stays above the rows in sight"
else
    fail "scrolled back, the table's header stays above the rows in sight" "$(cat "$T/back")"
fi
if cat "$T/at-pause" "$T/back" | grep -q "[0-9]e[+-][0-9]" ||
    ! cat "$T/at-pause" "$T/back" | grep -q "gpu busy" ||
    ! cat "$T/at-pause" "$T/back" | grep -q "  83.4%"; then
    fail "story table cells: no scientific notation, shares as percentages" "$(cat "$T/at-pause" "$T/back")"
else
    pass "story table cells: no scientific notation, shares as percentages"
fi
keys st q

# The plan screen: rows scroll under a fixed header.
start pl 80 24 --
wait_for pl "BOTTLENECK" 60
keys pl p
wait_for pl "  rank  " 100
for k in 1 2 3 4 5 6 7 8 9; do keys pl Down; done
i=0
while [ $i -lt 30 ] && ! screen pl | grep -q "^ *10  "; do sleep 0.1; i=$((i + 1)); done
if screen pl | grep -q "^  rank  tokens/s" && screen pl | grep -q "^ *10  " &&
    ! screen pl | grep -q "^ *1  "; then
    pass "the plan screen's header stays while its rows scroll"
else
    fail "the plan screen's header stays while its rows scroll" "$(screen pl | sed -n 3,12p)"
fi
keys pl q
wait_rc st
wait_rc pl
exit $((FAILS > 0))
