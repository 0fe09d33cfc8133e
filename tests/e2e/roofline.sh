#!/bin/sh
# The roofline in the Accelerators view: the device's ridge point (peak
# FLOP/s / memory bandwidth, from the catalog) and the operating point of
# the layer's MLP GEMM, compute-bound for the default preset and
# memory-bound with short sequences. Prints "PASS name" or "FAIL name: why".
. "$(dirname "$0")/tmux-lib"

CAT=$MLVIZ_DATA/assets/catalog/accelerators.yaml
PRESET=$MLVIZ_DATA/scenarios/presets/default.yaml
# h100-sxm from the catalog: dense BF16 TFLOP/s and memory GB/s.
entry=$(awk '/^ *- *id: *"?h100-sxm"?$/ { on = 1; next } on && /^ *- *id:/ { exit } on' "$CAT")
peak=$(echo "$entry" | sed -n 's/^ *bf16_tflops: *\([0-9.]*\).*/\1/p')
bw=$(echo "$entry" | sed -n 's/^ *mem_bw_gbs: *\([0-9.]*\).*/\1/p')
ridge=$(awk -v p="$peak" -v b="$bw" 'BEGIN { printf "%.0f", p * 1e3 / b }')
# The preset's MLP GEMM: M = micro_batch x seq_len tokens, K = hidden,
# N = ffn_hidden; 2MNK FLOPs over 2-byte A, B and C.
dim() { sed -n "s/.*[{ ]$1: *\([0-9]*\).*/\1/p" "$PRESET" | head -1; }
hidden=$(dim hidden) ffn=$(dim ffn_hidden) seq=$(dim seq_len) mb=$(dim micro_batch)
intensity() {
    awk -v m="$1" -v k="$hidden" -v n="$ffn" 'BEGIN { i = m * n * k / (m * k + k * n + m * n);
        if (i >= 1000) printf "%.1fk", i / 1000; else printf "%.0f", i }'
}
big=$(intensity $((mb * seq)))
small=$(intensity $((mb * 256)))

start roof 140 40 --
wait_title roof overview
keys roof 3
if wait_for roof "roofline:" 40 &&
    wait_for roof "ridge = $(printf '%.0f' "$peak") TFLOP/s / 3.35 TB/s" 10; then
    pass "140x40: the Accelerators view draws the roofline with its ridge ($peak TFLOP/s / $bw GB/s)"
else
    fail "140x40: the Accelerators view draws the roofline with its ridge" "$(screen roof | grep -i roof)"
fi
if wait_for roof "compute-bound: GEMM $big > ridge $ridge FLOP/B" 10 &&
    screen roof | grep -q "memory-bound | compute-bound"; then
    pass "140x40: the operating point ($big FLOP/B) sits right of the ridge ($ridge): compute-bound"
else
    fail "140x40: the operating point sits right of the ridge" "want $big vs $ridge: $(screen roof | grep -E 'GEMM|bound')"
fi
keys roof q

start short 80 24 -- -c default --set model.seq_len=256
wait_title short overview
keys short 3
if wait_for short "memory-bound: GEMM $small < ridge $ridge" 40; then
    pass "80x24: with 256-token sequences the GEMM ($small FLOP/B) is memory-bound"
else
    fail "80x24: with 256-token sequences the GEMM is memory-bound" \
        "want $small: $(screen short | grep -E 'GEMM|bound')"
fi
keys short q

[ "$FAILS" -eq 0 ]
