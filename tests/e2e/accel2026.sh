#!/bin/sh
# The 2026 mechanisms on screen (issue 21), figures from the model (`mlviz
# eval --format json`):
#  - the Accelerators view (key 3) of an FP8 GB200 setup at its 1,200 W
#    limit with two offloaded layers: the power-limited clock ("clocks 1,660
#    of 1,965 MHz: power-limited at 1,200 W"; on a short picture its one-row
#    form), which GEMMs run in FP8 and which stay BF16, and the offloaded
#    activations as host memory, with the memory verdict still on screen;
#  - the Interconnect view (key 4) of an MoE with DeepEP's dispatcher: the
#    expert group inside one NVL72 domain at NVLink's rate, then spanning
#    two domains with the RDMA rate across (DeepEP's README: ~95% of NVLink,
#    ~90% of the NIC line rate; model_deepep.c).
# At 80x24, 100x30 and 200x60 (the Interconnect at two sizes); every sentence
# checked is whole once wrapped rows are joined (no cut word) and no figure
# on screen is in e+/e- notation.
# Prints "PASS name" or "FAIL name: why".
. "$(dirname "$0")/tmux-lib"
ACC=tests/setups/good/gb200-fp8-offload.yaml
MOE=tests/setups/good/gb200-moe-deepep.yaml
ACROSS="--set training.expert_parallel=144 --set model.experts=144 --set model.top_k=8
 --set model.ffn_hidden=1536"

# json KEY ARGS...: the first number KEY has in `mlviz eval ARGS --format json`.
json() {
    key=$1
    shift
    "$BIN" eval "$@" --format json | sed -n "s/.*\"$key\": *\([0-9.eE+-]*\).*/\1/p" | head -1
}
# commas X: X rounded with thousands separators (as the screen writes counts).
commas() { awk -v x="$1" 'BEGIN { n = int(x + 0.5); if (n >= 1000) printf "%d,%03d", n / 1000, n % 1000; else printf "%d", n }'; }
# sig3 X: three significant figures, as format_significant writes them.
sig3() { awk -v x="$1" 'BEGIN { if (x >= 100) printf "%.0f", x; else if (x >= 10) printf "%.1f", x; else printf "%.2f", x }'; }

# box SESSION TITLE: the text inside the box titled TITLE, wrapped rows
# joined and spaces squeezed, into $T/SESSION.text.
box() {
    box_rows "$1" "$2" | sed 's/^ *//; s/ *$//' | paste -sd ' ' | tr -s ' ' >"$T/$1.text"
}
has() { grep -qF -- "$2" "$T/$1.text"; }
# no_exp SESSION: no number on the screen in e+/e- notation.
no_exp() { ! screen "$1" | grep -qE '[0-9]\.?[0-9]*e[+-][0-9]'; }
# open SESSION COLS ROWS KEY TITLE ARGS...: start mlviz, open stage KEY's
# view (its picture box titled TITLE) and pause.
open_view() {
    name=$1 cols=$2 rows=$3 key=$4 title=$5
    shift 5
    start "$name" "$cols" "$rows" -- "$@"
    wait_for "$name" "BOTTLENECK" 150
    press_until "$name" "$key" "$title"
    keys "$name" Space
    wait_for "$name" "PAUSED" 40
}

# --- Accelerators ------------------------------------------------------------
mhz=$(json clock_mhz "$ACC")
share=$(json clock_share "$ACC")
limit=$(json limit_w "$ACC")
host=$(json host_offload_gb "$ACC")
now=$(commas "$mhz")
top=$(commas "$(awk -v m="$mhz" -v s="$share" 'BEGIN { print m / s }')")
cap=$(commas "$limit")
for size in 80x24 100x30 200x60; do
    s=acc$size
    open_view "$s" "${size%x*}" "${size#*x}" 3 "devices and memory" -c "$ACC"
    box "$s" "devices and memory"
    if [ "$size" = 80x24 ]; then
        clock="clocks $now/$top MHz, $cap W cap"
        prec="FP8 linear GEMMs, BF16 attention"
        hostline="host $(sig3 "$host") GB: 2 layers offloaded"
    else
        clock="clocks $now of $top MHz: power-limited at $cap W"
        prec="FP8: linear fprop/dgrad/wgrad; BF16: attention, output layer"
        [ "$size" = 200x60 ] &&
            prec="FP8: fprop, dgrad, wgrad of every linear layer; BF16: attention, output layer"
        hostline="host memory $(sig3 "$host") GB: 2 offloaded layers"
    fi
    if has "$s" "$clock" && has "$s" "$prec" && has "$s" "$hostline" &&
        has "$s" "fits in device memory" && no_exp "$s"; then
        pass "$size Accelerators: '$clock', '$prec', '$hostline', the memory verdict"
    else
        fail "$size Accelerators: the clock, the precision split, the host memory" \
            "want '$clock' / '$prec' / '$hostline' / fits: $(cat "$T/$s.text")"
    fi
    keys "$s" q
done
[ "$now" != "$top" ] || fail "the GB200 at 1,200 W runs below its boost clock" "$now of $top MHz"

# --- Interconnect: DeepEP inside one NVL72 domain, then across two -----------
# nvlink5: 900 GB/s per direction x 0.95; ib-ndr: 50 GB/s x 0.9, one NIC per GPU.
inside="DeepEP: all 16 ranks inside one 72-device nvlink5 domain, 855 GB/s each"
across="DeepEP: 2 domains of 72 ranks; inside a domain nvlink5 855 GB/s, across RDMA 45.0 GB/s per device"
a_in=$(json ep_comm "$MOE")
# shellcheck disable=SC2086
a_out=$(json ep_comm "$MOE" $ACROSS)
open_view netin 100 30 4 "collectives and pipeline" -c "$MOE"
box netin "collectives and pipeline"
if has netin "$inside" && no_exp netin; then
    pass "100x30 Interconnect: '$inside'"
else
    fail "100x30 Interconnect: DeepEP inside the NVL72 domain" "$(cat "$T/netin.text")"
fi
keys netin q
for size in 80x24 200x60; do
    s=netout$size
    # shellcheck disable=SC2086
    open_view "$s" "${size%x*}" "${size#*x}" 4 "collectives and pipeline" -c "$MOE" $ACROSS
    box "$s" "collectives and pipeline"
    if has "$s" "$across" && has "$s" "EP=144" && no_exp "$s"; then
        pass "$size Interconnect: '$across'"
    else
        fail "$size Interconnect: DeepEP across two NVL72 domains" "$(cat "$T/$s.text")"
    fi
    keys "$s" q
done
# NCCL's all-to-all (moe-h100: EP 8 at TP 2, two 4-rank halves on two DGX
# H100 nodes): the links at their NCCL efficiency, from the catalog.
eff() {
    sig3 "$("$BIN" catalog links --format csv | python3 -c '
import csv, sys
for row in csv.DictReader(sys.stdin):
    if row["id"] == sys.argv[1]:
        print(float(row["bw_gbs"]) * float(row["nccl_efficiency"]))
' "$1")"
}
nccl="NCCL all-to-all: 2 domains of 4 ranks; inside a domain nvlink4 $(eff nvlink4) GB/s, across the NICs $(eff ib-ndr) GB/s per device"
open_view nccl 100 30 4 "collectives and pipeline" -c moe-h100
box nccl "collectives and pipeline"
if has nccl "$nccl" && no_exp nccl; then
    pass "100x30 Interconnect: '$nccl'"
else
    fail "100x30 Interconnect: NCCL all-to-all across two nodes" "want '$nccl': $(cat "$T/nccl.text")"
fi
keys nccl q
# The model's reason for the picture: crossing the domains costs more.
if awk -v a="$a_in" -v b="$a_out" 'BEGIN { exit !(b > 2 * a) }'; then
    pass "the all-to-all across two domains takes longer ($a_out s against $a_in s)"
else
    fail "the all-to-all across two domains takes longer" "$a_out s against $a_in s"
fi
[ "$FAILS" -eq 0 ]
