#!/bin/sh
# The animation in the healthy state (the default preset: the devices set
# the pace, the data queues stay full, ZeRO-3 traffic overlaps the compute):
# batches keep moving along the lanes at the averaged flow instead of
# standing at the arrow head; the gradient-sync arrow and the ring in the
# Interconnect view move although the sync is overlapped. Prints "PASS
# name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

if ! "$BIN" eval default | grep -q "ZeRO 3"; then
    fail "the default preset overlaps ZeRO-3 traffic" "$("$BIN" eval default | sed -n 3p)"
fi

start mo 100 30 --
wait_for mo "sim 00:00:0" 60
# row_of TEXT: the first screen row (1-based) holding TEXT.
row_of() { screen mo | grep -nF -- "$1" | head -1 | cut -d: -f1; }
track_row=$(row_of "cache 0.0%")
sync_row=$(row_of "gradient sync")
tracks="" syncs="" i=0
while [ $i -lt 16 ]; do
    s=$(screen mo)
    # The batch-loading lane: the characters between the Data and CPUs boxes.
    tracks="$tracks
$(printf '%s\n' "$s" | sed -n "${track_row}p" | awk -F'│' '{ print $3 }')"
    syncs="$syncs
$(printf '%s\n' "$s" | sed -n "${sync_row}p")"
    sleep 0.25
    i=$((i + 1))
done
states=$(printf '%s\n' "$tracks" | grep -c . )
distinct=$(printf '%s\n' "$tracks" | grep . | sort -u | wc -l)
piled=$(printf '%s\n' "$tracks" | grep -c "■■■▶")
if [ "$distinct" -ge 3 ] && [ "$piled" -lt "$states" ]; then
    pass "batches move along the loading lane ($distinct positions in $states frames)"
else
    fail "batches move along the loading lane" "$distinct positions, piled $piled of $states:$tracks"
fi
if printf '%s\n' "$syncs" | grep -q "▼■ *gradient sync" &&
    printf '%s\n' "$syncs" | grep -q "gradient sync *■▲"; then
    pass "the gradient-sync arrow moves while the ZeRO-3 traffic overlaps the compute"
else
    fail "the gradient-sync arrow moves while the ZeRO-3 traffic overlaps the compute" "$syncs"
fi

# The ring in the Interconnect view: the member carrying the chunk (drawn in
# the flow colour) changes from frame to frame.
keys mo 4
wait_for mo "ZeRO-3 over DP=" 40
ring_row=$(( $(row_of "ZeRO-3 over DP=") + 1 ))
rings="" i=0
while [ $i -lt 12 ]; do
    rings="$rings
$($TM capture-pane -e -p -t mo | sed -n "${ring_row}p")"
    sleep 0.2
    i=$((i + 1))
done
n=$(printf '%s\n' "$rings" | grep . | sort -u | wc -l)
if [ "$n" -ge 2 ]; then
    pass "the all-gather/reduce-scatter ring moves while the sync overlaps ($n states)"
else
    fail "the all-gather/reduce-scatter ring moves while the sync overlaps" "$n state(s)"
fi
keys mo q

[ "$FAILS" -eq 0 ]
