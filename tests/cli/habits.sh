#!/bin/sh
# Command-line habits: --set, the setup from stdin, eval --strict and
# --model, hf_config and model names in setups. Prints PASS/FAIL lines.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) ;; *) MLVIZ_BIN=$(pwd)/$MLVIZ_BIN ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
m() { "$MLVIZ_BIN" "$@"; }
json_num() { sed -n "s/.*\"$1\": *\([-0-9.e+]*\).*/\1/p" | head -n 1; }

# --set goes through the field table; later wins; errors name the argument.
a=$(m eval default --format json --set cluster.nodes=4 --set training.global_batch=512 | json_num devices)
[ "$a" = 32 ] && pass "--set changes the setup (32 devices)" || fail "--set changes the setup" "devices=$a"
a=$(m eval default --format json --set cluster.nodes=4 --set cluster.nodes=2 | json_num devices)
[ "$a" = 16 ] && pass "--set applied in order" || fail "--set applied in order" "devices=$a"
m eval default --set training.micro_batch=x >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^mlviz: --set training.micro_batch=x: training.micro_batch must be a whole number" "$tmp/err" &&
    pass "--set bad value: exit 2 naming the argument" || fail "--set bad value" "rc=$rc $(cat "$tmp/err")"
m check default --set training.micro_btch=2 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "did you mean 'training.micro_batch'" "$tmp/err" &&
    pass "--set unknown field: did you mean" || fail "--set unknown field" "rc=$rc $(cat "$tmp/err")"
m eval default --set cluster.nodes=0 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "cluster.nodes=0" "$tmp/err" && pass "--set out of range: exit 2" ||
    fail "--set out of range" "rc=$rc $(cat "$tmp/err")"
m eval default --set cluster.nodes=3 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "with the command line's changes: training.global_batch" "$tmp/err" &&
    pass "--set cross-checked like a file" || fail "--set cross-checked" "rc=$rc $(cat "$tmp/err")"
m eval default --set nodes >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "PATH=VALUE" "$tmp/err" && pass "--set without '=': exit 2" ||
    fail "--set without '='" "rc=$rc $(cat "$tmp/err")"
m eval default --set >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "--set without a value: exit 2" || fail "--set without a value" "rc=$rc"
a=$(m sim default --duration 1m --format json --set cluster.nodes=2 --set training.global_batch=256 | grep -c '"')
[ "${a:-0}" -gt 0 ] && pass "sim takes --set" || fail "sim takes --set" "no output"
m fields --set cluster.nodes=2 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "fields (no setup) refuses --set" || fail "fields refuses --set" "rc=$rc"

# '-' reads the setup from standard input, through the same reader.
a=$(m eval - --format json <scenarios/presets/default.yaml | json_num devices)
[ "$a" = 8 ] && pass "eval - reads stdin" || fail "eval - reads stdin" "devices=$a"
printf 'cluster: {nodes: x}\n' | m check - >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q '^<stdin>:1:' "$tmp/err" && pass "stdin errors say <stdin>:line:col" ||
    fail "stdin errors" "rc=$rc $(cat "$tmp/err")"
printf 'name: a\0b\n' | m check - >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && pass "stdin with a NUL byte refused" || fail "stdin NUL" "rc=$rc $(cat "$tmp/err")"
head -c 70000000 /dev/zero | tr '\0' '#' | m check - >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'larger than 64 MiB' "$tmp/err" && pass "stdin over 64 MiB refused" ||
    fail "stdin over 64 MiB" "rc=$rc $(head -c 200 "$tmp/err")"
m check - </dev/null >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'empty' "$tmp/err" && pass "empty stdin: exit 2" || fail "empty stdin" "rc=$rc $(cat "$tmp/err")"

# --strict: a setup that cannot run exits 3; a report still comes out.
m eval default --set model.layers=400 >"$tmp/out" 2>/dev/null; rc=$?
[ $rc -eq 0 ] && head -n 1 "$tmp/out" | grep -q 'CANNOT RUN' && pass "eval without --strict: 0 and CANNOT RUN" ||
    fail "eval without --strict" "rc=$rc $(head -n 1 "$tmp/out")"
m eval default --strict --set model.layers=400 >"$tmp/out" 2>/dev/null; rc=$?
[ $rc -eq 3 ] && [ -s "$tmp/out" ] && pass "eval --strict: exit 3 for a setup that cannot run" ||
    fail "eval --strict" "rc=$rc"
m eval default --strict >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && pass "eval --strict: 0 for a runnable setup" || fail "eval --strict runnable" "rc=$rc"

# --model and model: {name|hf_config} from Hugging Face configs.
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'; }
a=$(m eval default --model llama3-70b --set training.tensor_parallel=8 --format json | json_num params)
between "$a" 68e9 72e9 && pass "--model llama3-70b: ~70B parameters ($a)" || fail "--model llama3-70b" "params=$a"
a=$(m eval default --model assets/models/llama3-8b.json --format json | json_num params)
between "$a" 7e9 8.1e9 && pass "--model PATH: ~8B parameters ($a)" || fail "--model PATH" "params=$a"
m eval default --model llama-70b >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^mlviz: --model llama-70b: unknown model 'llama-70b'; did you mean 'llama3-70b'" "$tmp/err" &&
    pass "--model unknown name: exit 2, did you mean" || fail "--model unknown name" "rc=$rc $(cat "$tmp/err")"
mkdir -p "$tmp/d"
printf '{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4,\n "vocab_size": 1000, "hidden_act": "silu"}\n' >"$tmp/d/config.json"
printf 'name: tiny\nmodel: {hf_config: config.json, seq_len: 128}\ntraining: {global_batch: 8}\n' >"$tmp/d/s.yaml"
out=$(cd / && "$MLVIZ_BIN" check "$tmp/d/s.yaml" --format json 2>&1)
echo "$out" | grep -q '"valid": true' && pass "hf_config relative to the setup file, from another directory" ||
    fail "hf_config relative path" "$(echo "$out" | head -n 2)"
printf 'model: {hf_config: config.json}\ntraining: {global_batch: 8}\n' | (cd "$tmp/d" && "$MLVIZ_BIN" check - >/dev/null 2>&1) &&
    pass "hf_config from stdin: relative to the working directory" || fail "hf_config from stdin" "did not load"

# Generic models (parameters and FLOPs per sample) count samples.
m eval laptop-cpu | grep -q '^step .* samples/s ' && ! m eval laptop-cpu | grep -q 'tokens' &&
    pass "eval: generic model in samples/s" || fail "eval: generic model in samples/s" "$(m eval laptop-cpu | sed -n 4p)"
m sim laptop-cpu --duration 1m | grep -q 'throughput .* samples/s achieved' &&
    pass "sim: generic model in samples/s" || fail "sim: generic model in samples/s" "$(m sim laptop-cpu --duration 1m | sed -n 2p)"
m eval default | grep -q '^step .* tokens/s ' && pass "eval: transformer still in tokens/s" ||
    fail "eval: transformer in tokens/s" "$(m eval default | sed -n 4p)"

# Mixture-of-experts configs: total parameters as published (Mixtral 46.7B,
# Jiang et al. 2024; Qwen3-30B-A3B 30.5B, Qwen3 report; DeepSeek-V3 671B,
# technical report) once the setup has expert fields; refused by name before.
for spec in "mixtral-8x7b 45.5e9 48e9" "qwen3-30b-a3b 29e9 31.5e9" "deepseek-v3 660e9 685e9"; do
    set -- $spec
    out=$(printf 'model: {name: %s}\n' "$1" | m check - --format json 2>&1)
    if m fields | grep -q '^model.experts '; then
        a=$(echo "$out" | json_num params)
        between "$a" "$2" "$3" && pass "$1: $a parameters as published" || fail "$1 parameters" "$a"
    else
        echo "$out" | grep -q 'mixture-of-experts fields need model.experts' &&
            pass "$1: refused until the expert fields exist" || fail "$1 refused" "$out"
    fi
done
