#!/bin/sh
# training.tensor_parallel: auto from the command line and from a setup file
# (issue 24): settled before the checks to the smallest power of two up to the
# scale-up domain whose memory per device fits; refused with the reason when
# none does. Prints "PASS name" or "FAIL name: why".
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

tp_of() { sed -n 's/.*"tensor_parallel": *\([0-9]*\).*/\1/p' "$1" | head -n 1; }

"$MLVIZ_BIN" eval gpt3-175b-a100 --set training.tensor_parallel=auto --format json >"$tmp/set.json" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(tp_of "$tmp/set.json")" = 8 ] && pass "--set training.tensor_parallel=auto settles GPT-3 on A100s at 8" ||
    fail "--set training.tensor_parallel=auto settles GPT-3 on A100s at 8" "exit $rc, tp '$(tp_of "$tmp/set.json")': $(head -c 300 "$tmp/err")"

sed 's/tensor_parallel: 8,/tensor_parallel: auto,/' scenarios/presets/gpt3-175b-a100.yaml >"$tmp/auto.yaml"
grep -q "tensor_parallel: auto" "$tmp/auto.yaml" || fail "the YAML fixture" "no tensor_parallel: 8 in the preset"
"$MLVIZ_BIN" eval "$tmp/auto.yaml" --format json >"$tmp/yaml.json" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(tp_of "$tmp/yaml.json")" = 8 ] && pass "tensor_parallel: auto in a setup file settles at 8" ||
    fail "tensor_parallel: auto in a setup file settles at 8" "exit $rc, tp '$(tp_of "$tmp/yaml.json")': $(head -c 300 "$tmp/err")"
# Settled with the command line's other changes: the default's 8B model fits one device.
"$MLVIZ_BIN" eval default --set training.tensor_parallel=auto --format json >"$tmp/small.json" 2>"$tmp/err"
[ "$(tp_of "$tmp/small.json")" = 1 ] && pass "an 8B model on H100s settles at 1" ||
    fail "an 8B model on H100s settles at 1" "tp '$(tp_of "$tmp/small.json")': $(head -c 300 "$tmp/err")"

"$MLVIZ_BIN" eval "$tmp/auto.yaml" --set training.pipeline_parallel=1 --set training.global_batch=1024 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "tensor_parallel: auto finds no power of two up to the scale-up domain of 8 devices" "$tmp/err" &&
    grep -q "GB per device" "$tmp/err" && pass "nothing fits: exit 2 with the reason" ||
    fail "nothing fits: exit 2 with the reason" "exit $rc: $(head -c 300 "$tmp/err")"
"$MLVIZ_BIN" fields | grep "^training.tensor_parallel " | grep -q "auto: the smallest power of two" &&
    pass "the field's description states the rule" || fail "the field's description states the rule" "mlviz fields"
[ $fails -eq 0 ]
