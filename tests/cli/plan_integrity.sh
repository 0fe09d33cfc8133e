#!/bin/sh
# Issue 20 acceptance: for GPT-3 175B on 1,024 A100 (megatron and
# megatron-core), Llama 3 405B on 16,384 H100, Llama-2-70B on 64 H100
# (NeMo and DeepSpeed) and the NeMo rows, every top-20 row of `mlviz plan`
# loads again strictly through `mlviz eval` (the stack rules refuse at
# file:line:col, exit 2) and passes the rate invariants: executed
# FLOP/s never above the peak, hfu never above the executed rate, mfu never
# above hfu in its own convention. One line per check: "PASS name" or
# "FAIL name: why".
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
export MLVIZ_DATA
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

if ! command -v python3 >/dev/null 2>&1; then
    echo "FAIL plan_integrity: python3 is needed to read JSON output"
    exit 1
fi

# The Llama-2-70B / 64 H100 / DeepSpeed case of the issue.
cat >"$tmp/llama2-70b-ds.yaml" <<'EOF'
name: Llama-2-70B on 64 H100, DeepSpeed
cluster: {nodes: 8, node: {nic: ib-ndr, nics_per_node: 8}}
model: {layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn_hidden: 28672, mlp: swiglu,
        seq_len: 4096, vocab: 32000}
training: {global_batch: 512, micro_batch: 1, tensor_parallel: 2, zero_stage: 1,
           recompute: full, flash_attention: true, software: deepspeed}
EOF

# check NAME SETUP [--set ...]: plan the top 20, then every rank file.
check() {
    name=$1
    shift
    dir="$tmp/$name"
    if ! "$MLVIZ_BIN" plan "$@" --top 20 --quiet --write-top "$dir" --format json \
        >"$tmp/$name.json" 2>"$tmp/err"; then
        fail "$name" "plan failed: $(head -c 300 "$tmp/err")"
        return
    fi
    # eval loads each rank file strictly (the stack rules refuse it with
    # exit 2), then the rates are checked, all in one python3 process.
    why=$(python3 - "$MLVIZ_BIN" "$dir" <<'EOF'
import glob, json, subprocess, sys
mlviz, folder = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(folder + "/rank-*.yaml"))
eps = 1e-9
for f in files:
    name = f.split("/")[-1]
    run = subprocess.run([mlviz, "eval", f, "--format", "json"], capture_output=True, text=True)
    if run.returncode != 0:
        print("%s refused: %s" % (name, run.stderr[:200]))
        sys.exit()
    d = json.loads(run.stdout)
    if d["tflops_per_device"] > d["peak_tflops"] * (1 + eps):
        print("%s: executed rate %g above peak %g" % (name, d["tflops_per_device"], d["peak_tflops"]))
    elif d["hfu"] > d["achieved_fraction"] * (1 + eps) + 1e-12:
        print("%s: hfu %g above the executed rate %g" % (name, d["hfu"], d["achieved_fraction"]))
    elif d["mfu"] > d["hfu_model_convention"] * (1 + eps) + 1e-12:
        print("%s: mfu %g above hfu_model_convention %g" % (name, d["mfu"], d["hfu_model_convention"]))
    else:
        continue
    sys.exit()
if len(files) < 10:
    print("only %d ranked rows" % len(files))
EOF
    )
    if [ -n "$why" ]; then
        fail "$name" "$why"
    else
        pass "$name"
    fi
}

check gpt3-175b-a100-megatron gpt3-175b-a100
check gpt3-175b-a100-megatron-core gpt3-175b-a100 --set training.software=megatron-core
check llama3-405b-h100 tests/validation/setups/llama3-405b.yaml
check llama2-70b-h100-deepspeed "$tmp/llama2-70b-ds.yaml"
for row in nemo-gpt3-175b nemo-llama2-70b nemo-llama2-7b nemo-llama3-8b; do
    check "$row" "tests/validation/setups/$row.yaml"
done
