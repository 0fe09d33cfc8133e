#!/bin/sh
# Shell conventions and what a report names: '--' ends the options of every
# command; --set takes model.name and model.hf_config as a setup file does;
# the completions offer preset, model, theme and scenario names from their
# tables; the title, params and params_active follow the model evaluated;
# Hugging Face configs are read whole or refused (exit 2 with the reason),
# with a warning for keys read but not modelled; one of a thing is singular
# ("1 device", "1 node per rack"). Prints PASS/FAIL lines.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) ;; *) MLVIZ_BIN=$(pwd)/$MLVIZ_BIN ;; esac
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
m() { "$MLVIZ_BIN" "$@"; }

# ---- '--' ends the options ----
cp "$top/scenarios/presets/laptop-cpu.yaml" "$tmp/-weird-name.yaml"
cd "$tmp" || exit 1
for cmd in check eval sim; do
    m $cmd -- -weird-name.yaml >out 2>err; rc=$?
    [ $rc -eq 0 ] && pass "$cmd -- -weird-name.yaml" || fail "$cmd -- -weird-name.yaml" "rc=$rc $(head -c 300 err)"
done
m eval -weird-name.yaml >/dev/null 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '-weird-name.yaml'" err && pass "without '--' it is an option" ||
    fail "without '--'" "rc=$rc $(cat err)"
m plan -- -missing.yaml >/dev/null 2>err; rc=$?
[ $rc -eq 2 ] && ! grep -q "unknown option" err && grep -q -- "-missing.yaml" err &&
    pass "plan -- takes the word as a file" || fail "plan --" "rc=$rc $(cat err)"
printf 'print("args", arg[0], arg[1], arg[2])\n' >-script.lua
out=$(m run -- -script.lua a b 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "args	-script.lua	a	b" && pass "run -- -script.lua: script and its arguments" ||
    fail "run --" "rc=$rc $out"
m probe -- >/dev/null 2>err </dev/null; grep -q "unknown argument '--'" err &&
    fail "probe --" "$(cat err)" || pass "probe accepts --"
m completion -- bash >/dev/null 2>&1 && pass "completion -- bash" || fail "completion -- bash" "rc=$?"
cd "$top" || exit 1

# ---- --set takes every field a setup file takes ----
out=$(m eval default --set model.name=llama3-70b 2>/dev/null | head -n 4)
echo "$out" | head -n 1 | grep -q "Llama 3 70B on 1x DGX H100" && echo "$out" | grep -q "^  params 70.6 B$" &&
    pass "--set model.name=llama3-70b: titled and counted" || fail "--set model.name" "$out"
out=$(m eval default --model llama3-70b 2>/dev/null | head -n 1)
echo "$out" | grep -q "Llama 3 70B on 1x DGX H100" && pass "eval --model llama3-70b is titled Llama 3 70B" ||
    fail "eval --model title" "$out"
out=$(m eval default --set model.hf_config=tests/hfconfigs/mixtral-8x7b-v0.1.json --set cluster.nodes=2 \
      --set training.global_batch=256 2>/dev/null | head -n 4)
echo "$out" | head -n 1 | grep -q "MixtralForCausalLM on 2 nodes x 8 NVIDIA H100" &&
    echo "$out" | grep -q "params 46.7 B, 12.9 B active per token (2 of 8 experts)" &&
    pass "--set model.hf_config and a cluster change: title and active params" || fail "--set model.hf_config" "$out"
m eval default --set model.name=llama3-7b >/dev/null 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "did you mean" err && pass "--set model.name unknown: exit 2" || fail "--set model.name unknown" "rc=$rc"
m check default --set model.v_head_dim=64 >/dev/null 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "model.v_head_dim is a multi-head latent attention field: it needs model.kv_lora_rank" err &&
    pass "latent-attention fields need model.kv_lora_rank" || fail "latent fields alone" "rc=$rc $(cat err)"
m eval default --set facility.pue=auto >/dev/null 2>&1 && pass "--set FIELD=auto" || fail "--set FIELD=auto" "rc=$?"
j=$(m eval default --model mixtral-8x7b --format json 2>/dev/null)
echo "$j" | grep -q '"params": 46703050752,' && echo "$j" | grep -q '"params_active": 12880183296,' &&
    pass "JSON carries params and params_active" || fail "JSON params" "$(echo "$j" | grep params)"
hdr=$(m eval default --model mixtral-8x7b --format csv 2>/dev/null | head -n 1)
echo "$hdr" | tr , '\n' | grep -qx params_active && pass "CSV carries params_active" || fail "CSV params_active" "$hdr"

# ---- Hugging Face configs: refused with the reason, warnings named ----
printf '{"architectures": ["JambaForCausalLM"], "model_type": "jamba", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "vocab_size": 100, "mamba_d_state": 16}' >"$tmp/jamba.json"
printf '{"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "d_model": 64, "num_layers": 2, "num_heads": 2, "vocab_size": 100, "is_encoder_decoder": true}' >"$tmp/t5.json"
printf '{"architectures": ["FooForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 100}' >"$tmp/foo.json"
for c in "jamba:state-space" "t5:encoder-decoder" "foo:not one mlviz reads whole"; do
    f=${c%%:*} why=${c#*:}
    m eval default --model "$tmp/$f.json" >/dev/null 2>err; rc=$?
    [ $rc -eq 2 ] && grep -q "$why" err && pass "$f-like config: exit 2, $why" || fail "$f-like config" "rc=$rc $(cat err)"
done
m eval default --model "$tmp/foo.json" --force-architecture >/dev/null 2>err; rc=$?
[ $rc -eq 0 ] && grep -q "warning: .*foo.json: read as a decoder-only transformer" err &&
    pass "--force-architecture reads it, with a warning" || fail "--force-architecture" "rc=$rc $(cat err)"
m eval default --model tests/hfconfigs/mistral-7b-v0.1.json >/dev/null 2>err; rc=$?
[ $rc -eq 0 ] && grep -q "^mlviz: warning: tests/hfconfigs/mistral-7b-v0.1.json: sliding_window 4096 not modelled" err &&
    pass "an unmodelled key prints the warning" || fail "unmodelled key warning" "rc=$rc $(cat err)"
m eval default --model llama3-8b >/dev/null 2>err
[ ! -s err ] && pass "a config read whole says nothing" || fail "quiet config" "$(cat err)"

# ---- completions from the tables ----
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$MLVIZ_BIN" >"$tmp/bin/mlviz"
chmod +x "$tmp/bin/mlviz"
m completion bash >"$tmp/bash"
cat >"$tmp/try.sh" <<'EOS'
. "$1"
cd "$2"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _mlviz; echo "${COMPREPLY[*]}"; }
complete_words mlviz eval gpt
complete_words mlviz eval default --model llama3-7
complete_words mlviz --theme l
complete_words mlviz run gpu-
complete_words mlviz plan tpu
complete_words mlviz -c lap
EOS
out=$(PATH="$tmp/bin:$PATH" bash "$tmp/try.sh" "$tmp/bash" "$tmp" 2>&1)
[ "$(echo "$out" | sed -n 1p)" = gpt3-175b-a100 ] && [ "$(echo "$out" | sed -n 2p)" = llama3-70b ] &&
    [ "$(echo "$out" | sed -n 3p)" = light ] && [ "$(echo "$out" | sed -n 4p)" = gpu-generations ] &&
    [ "$(echo "$out" | sed -n 5p)" = tpu-v4-pod ] && [ "$(echo "$out" | sed -n 6p)" = laptop-cpu ] &&
    pass "bash offers preset, model, theme and scenario names" || fail "bash names" "$out"
themes=$(m completion --list themes | tr '\n' ' ')
for t in default light basic contrast mono; do
    case " $themes" in *" $t "*) ;; *) fail "themes listed" "$t missing from: $themes"; continue ;; esac
done
[ "$(m completion --list themes | wc -l)" -eq 5 ] && pass "all five themes listed" || fail "themes" "$themes"
m completion zsh | grep -q "'--theme:name:_mlviz_list themes'" && m completion zsh | grep -q "'1:name:_mlviz_list presets'" &&
    pass "zsh offers the lists" || fail "zsh lists" "$(m completion zsh | grep _mlviz_list | head -3)"
m completion fish | grep -q "__fish_seen_subcommand_from eval' -l model -r -a '(mlviz completion --list models" &&
    m completion fish | grep -q "__fish_use_subcommand' -l theme -x -a '(mlviz completion --list themes" &&
    pass "fish offers the lists" || fail "fish lists" "$(m completion fish | grep -- '--list' | head -3)"

# ---- one of a thing is singular (issue 22: "1 racks", "1 samples") ----
out=$(m check default --set facility.nodes_per_rack=1 --set cluster.node.accelerators_per_node=1 2>&1)
one=$(m check default --set facility.nodes_per_rack=2 --set cluster.node.accelerators_per_node=2 2>&1)
case "$out" in
*"(1 device, "*"(1 node per rack"*)
    case "$one" in
    *"(2 devices, "*"(2 nodes per rack"*) pass "check: 1 device, 1 node per rack; 2 devices, 2 nodes" ;;
    *) fail "check plural" "$(echo "$one" | grep -E '^  (nodes|racks)')" ;;
    esac ;;
*) fail "check singular" "$(echo "$out" | grep -E '^  (nodes|racks)')" ;;
esac
