#!/bin/sh
# The Interconnect view (key 4) draws the parallelism the setup really uses
# (issue 11): for a mixture of experts the expert dispatch/combine
# all-to-all with its time per step (`mlviz eval --format json`,
# breakdown_s.ep_comm) and the part left exposed; for context parallelism
# the ring of K/V blocks with breakdown_s.cp_comm; for a dense
# data-parallel setup neither; and which parallel groups stay inside the
# scale-up domain (an NVL72 rack) and which cross the NICs.
# Prints "PASS name" or "FAIL name: why".
. "$(dirname "$0")/tmux-lib"

# ep_s / cp_s ARGS...: breakdown_s.ep_comm / breakdown_s.cp_comm of
# `mlviz eval ARGS --format json` (each name occurs once in the report).
json_s() {
    key=$1
    shift
    "$BIN" eval "$@" --format json | sed -n "s/.*\"$key\": *\([0-9.eE+-]*\).*/\1/p" | head -1
}
# dur SECONDS: a duration as the screen writes it (docs/TUI.md: whole
# microseconds below 1 ms, tenths of a millisecond below 1 s, hundredths of
# a second below 2 minutes).
dur() {
    awk -v t="$1" 'BEGIN { if (t < 0.001) printf "%.0f us", t * 1e6;
        else if (t < 1) printf "%.1f ms", t * 1e3; else printf "%.2f s", t }'
}
# open NAME COLS ROWS ARGS...: start mlviz, open the Interconnect view and
# pause (the text stays still while it is read).
open_net() {
    name=$1 cols=$2 rows=$3
    shift 3
    start "$name" "$cols" "$rows" -- "$@"
    wait_for "$name" "BOTTLENECK" 150
    press_until "$name" 4 "collectives and pipeline"
    wait_for "$name" "collectives and pipeline" 100
    keys "$name" Space
    sleep 0.3
}
# picture NAME: the rows of the picture box (the one titled "collectives
# and pipeline"), borders removed, into $T/NAME.rows; its text with wrapped
# lines joined and spaces squeezed into $T/NAME.text.
picture() {
    box_rows "$1" "collectives and pipeline" > "$T/$1.rows"
    tr '\n' ' ' < "$T/$1.rows" | tr -s ' ' > "$T/$1.text"
}
has() { grep -qF -- "$2" "$T/$1.text"; }
# count NAME ROWPATTERN GLYPH: how many GLYPHs the first row matching ROWPATTERN holds.
count() { grep -m1 -- "$2" "$T/$1.rows" | grep -o -- "$3" | wc -l | tr -d ' '; }

# 1. Mixture of experts (moe-h100: 8 experts, EP 8, TP 2, no overlap of the
# all-to-alls): the whole all-to-all time is exposed.
a2a=$(json_s ep_comm moe-h100)
open_net moe 140 40 -c moe-h100
picture moe
want="expert dispatch/combine all-to-all, EP=8: $(dur "$a2a") per step, all exposed"
if has moe "$want" && [ "$(count moe '^ *ranks' '■')" = 8 ] &&
    [ "$(count moe '^ *experts' '■')" = 8 ]; then
    pass "140x40 MoE: '$want' over 8 ranks and their experts (breakdown_s.ep_comm = $a2a s)"
else
    fail "140x40 MoE: the expert all-to-all with breakdown_s.ep_comm = $a2a s" \
        "want '$want' and 8 ranks over 8 experts: $(cat "$T/moe.text")"
fi
# The all-to-all is not the gradient sync: that has its own line.
if has moe "ring gradient all-reduce over DP=32" && ! grep -i "all-to-all" "$T/moe.rows" |
    grep -qi "gradient"; then
    pass "140x40 MoE: the all-to-all is labelled apart from the gradient all-reduce"
else
    fail "140x40 MoE: the all-to-all is labelled apart from the gradient all-reduce" \
        "$(cat "$T/moe.text")"
fi
# EP 8 ranks are TP 2 apart: they span 16 devices, two 8-GPU domains.
want="scale-up domain of 8 on nvlink4: TP 2 inside; EP 8 (4 per domain), DP 32 (4 per domain) across the NICs"
if has moe "$want"; then
    pass "140x40 MoE: the expert group crosses the NICs ('$want')"
else
    fail "140x40 MoE: the expert group crosses the NICs" "want '$want': $(cat "$T/moe.text")"
fi
keys moe q
wait_rc moe

# 2. The same with the all-to-alls overlapped and two NICs per node: the
# time per step is the exposed time without the overlap; part stays exposed.
set -- moe-h100 --set cluster.node.nics_per_node=2
full=$(json_s ep_comm "$@")
exposed=$(json_s ep_comm "$@" --set training.ep_comm_overlap=true)
open_net ovl 100 30 -c "$@" --set training.ep_comm_overlap=true
picture ovl
want="EP=8: $(dur "$full") per step, $(dur "$exposed") exposed"
if [ "$(dur "$full")" != "$(dur "$exposed")" ] && has ovl "$want"; then
    pass "100x30 MoE with EP overlap: '$want'"
else
    fail "100x30 MoE with EP overlap" "want '$want': $(cat "$T/ovl.text")"
fi
keys ovl q
wait_rc ovl

# 3. Context parallelism across nodes: 4 nodes, TP 8 fills each node, so
# the CP 4 ring crosses the NICs and part of it stays exposed.
set -- default --set cluster.nodes=4 --set model.seq_len=8192 --set training.tensor_parallel=8 \
    --set training.context_parallel=4
ring=$(json_s cp_comm "$@")
open_net cp 100 30 -c "$@"
picture cp
want="context parallel CP=4: K/V blocks passed around the ring, $(dur "$ring") exposed per step"
ringrow=$(grep -m1 '╭' "$T/cp.rows" | sed 's/^ *//; s/ *$//')
if has cp "$want" && [ "$(count cp '╭' '■')" = 4 ] && [ "$(count cp '╭' '▶')" = 3 ] &&
    grep -q '╰─*╯' "$T/cp.rows"; then
    pass "100x30 CP 4: '$want' on a ring of 4 ranks ($ringrow)"
else
    fail "100x30 CP 4: the K/V ring with breakdown_s.cp_comm = $ring s" \
        "want '$want' and a ring of 4: $(cat "$T/cp.text")"
fi
if has cp "scale-up domain of 8 on nvlink4: TP 8 inside; CP 4 across the NICs" &&
    has cp "over DP x CP = 1 x 4:"; then
    pass "100x30 CP 4: the ring crosses the NICs; the weights and gradients sync over DP x CP"
else
    fail "100x30 CP 4: the ring crosses the NICs" "$(cat "$T/cp.text")"
fi
keys cp q
wait_rc cp

# 4. A dense data-parallel setup (the default preset: 8 GPUs, no experts, no
# context parallelism): the gradient sync, and neither picture.
open_net dense 100 30 -c default
picture dense
if has dense "over DP=8" && ! has dense "all-to-all" && ! has dense "K/V" &&
    ! grep -q '^ *\(ranks\|experts\)' "$T/dense.rows" && ! grep -q '╭' "$T/dense.rows"; then
    pass "100x30 dense DP 8: the gradient sync, no all-to-all and no K/V ring"
else
    fail "100x30 dense DP 8: no all-to-all and no K/V ring" "$(cat "$T/dense.text")"
fi
keys dense q
wait_rc dense

# 5. Rack scale: 36 GB200 trays of 4 (144 GPUs) in NVL72 domains of 72. TP 4
# spans 4 devices (inside); DP 36 spans all 144 (across the NICs), 72 / 4 =
# 18 of its members in each domain. One rack (18 trays) is one domain.
rack="-c default --set cluster.node.accelerator=gb200 --set cluster.node.accelerators_per_node=4
    --set cluster.node.cpu=grace --set cluster.scaleup_domain=72 --set training.tensor_parallel=4
    --set training.global_batch=144"
# rack_says NAME NODES WHAT WANT: the picture of NODES trays shows WANT.
rack_says() {
    # shellcheck disable=SC2086
    open_net "$1" 140 40 $rack --set cluster.nodes="$2"
    picture "$1"
    if has "$1" "$4"; then
        pass "140x40 $3: '$4'"
    else
        fail "140x40 $3: the scale-up grouping" "want '$4': $(cat "$T/$1.text")"
    fi
    keys "$1" q
    wait_rc "$1"
}
rack_says rack 36 "two NVL72 racks" \
    "scale-up domain of 72 on nvlink5: TP 4 inside; DP 36 (18 per domain) across the NICs"
rack_says one 18 "one NVL72 rack" \
    "scale-up: all 72 devices share one nvlink5 domain, no group crosses a NIC"

[ "$FAILS" -eq 0 ]
