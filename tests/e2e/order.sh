#!/bin/sh
# Stage order on the overview at 80x24, 100x30 and 140x40: the top row reads
# 1 2 3 left to right, 4 sits under 3, and the arrows carry the reading on
# where the bottom row cannot (5 is the wide box on the left): the gradient
# sync points down (3 -> 4) and the heat arrow points left, from 4 into 5.
# Prints "PASS name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

# at SCREEN TEXT: "row col" of the first TEXT (0-based; col in characters).
at() {
    n=$(printf '%s\n' "$1" | grep -nF -- "$2" | head -1 | cut -d: -f1)
    [ -n "$n" ] || return 0
    line=$(printf '%s\n' "$1" | sed -n "${n}p")
    before=${line%%"$2"*}
    echo "$((n - 1)) $(printf '%s' "$before" | LC_ALL=C.UTF-8 wc -m)"
}
# col LINE TEXT: the column of TEXT in LINE, in characters.
col() {
    before=${1%%"$2"*}
    printf '%s' "$before" | LC_ALL=C.UTF-8 wc -m
}

for size in "80 24" "100 30" "140 40"; do
    set -- $size
    name="o$1"
    start "$name" "$1" "$2" --
    wait_for "$name" "5 SUPPORTING" 60
    sleep 0.5
    scr=$(screen "$name")
    keys "$name" q
    # The box titles carry the numbers (a selector or bottleneck marker may
    # sit before or after them).
    p1=$(at "$scr" "1 DATA") p2=$(at "$scr" "2 CPUs")
    p3=$(at "$scr" "3 ACCELERATORS") p4=$(at "$scr" "4 INTERCONNECT")
    p5=$(at "$scr" "5 SUPPORTING")
    lane=$(at "$scr" "gradient sync")
    heat=$(printf '%s\n' "$scr" | grep -n "cooling" | head -1)
    why="1@$p1 2@$p2 3@$p3 4@$p4 5@$p5 sync@$lane"
    if [ -z "$p1" ] || [ -z "$p2" ] || [ -z "$p3" ] || [ -z "$p4" ] || [ -z "$p5" ]; then
        fail "$1x$2: all five stage numbers show" "$why"
        continue
    fi
    set -- $p1 $p2 $p3 $p4 $p5
    r1=$1 c1=$2 r2=$3 c2=$4 r3=$5 c3=$6 r4=$7 c4=$8 r5=$9 c5=${10}
    if [ "$r1" = "$r2" ] && [ "$r2" = "$r3" ] && [ "$c1" -lt "$c2" ] && [ "$c2" -lt "$c3" ]; then
        pass "$size: 1 2 3 read left to right on the top row"
    else
        fail "$size: 1 2 3 read left to right on the top row" "$why"
    fi
    if [ "$r4" -gt "$r3" ] && [ "$r4" = "$r5" ] && [ "$c4" -ge "$((c3 - 2))" ]; then
        pass "$size: 4 under 3, 5 on the bottom row"
    else
        fail "$size: 4 under 3, 5 on the bottom row" "$why"
    fi
    # The sync lane between the rows, under 3, starts with a down arrow.
    set -- $lane
    lrow=$(printf '%s\n' "$scr" | sed -n "$(($1 + 1))p")
    if [ "$1" -gt "$r3" ] && [ "$1" -lt "$r4" ] && [ "$2" -ge "$c3" ] &&
        printf '%s\n' "$lrow" | grep -q "▼[ ■]*gradient sync"; then
        pass "$size: the gradient sync arrow points down from 3 into 4"
    else
        fail "$size: the gradient sync arrow points down from 3 into 4" "$why: $lrow"
    fi
    # Between 5 and 4 on the bottom row: an arrow head pointing left (4 -> 5).
    track=$(printf '%s\n' "$scr" | sed -n "$((r4 + 2)),$((r4 + 6))p" | grep "◀" | head -1)
    if [ -n "$heat" ] && [ -n "$track" ] && [ "$(col "$track" "◀")" -gt "$c5" ] &&
        [ "$(col "$track" "◀")" -lt "$c4" ]; then
        pass "$size: the heat arrow points left from 4 into 5"
    else
        fail "$size: the heat arrow points left from 4 into 5" "$why: '$track'"
    fi
done

[ "$FAILS" -eq 0 ]
