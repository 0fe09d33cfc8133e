#!/bin/sh
# The fields issue 21 added (the 2026 runs) reach Lua and the planner through
# the field table: each is listed by `mlviz fields`, a Lua setup sets it and
# reads the same value back, and `plan --vary` searches it (the value
# appears among the ranked configurations' changes). A small two-GPU MoE keeps
# each search to a fraction of a second.
# One line per check: "PASS name" or "FAIL name: why".
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
export MLVIZ_DATA
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS $1"; }
fail() {
    echo "FAIL $1: $2"
    fails=$((fails + 1))
}

# field|value the default leaves|value the checks set|extra --set the value needs
FIELDS='training.grad_reduce_precision|auto|bf16|
training.activation_offload_layers|0|1|
cluster.node.power_limit_w|auto|500|
training.expert_tensor_parallel|0|1|
model.kv_lora_rank|0|256|
model.q_lora_rank|0|256|model.kv_lora_rank=256
model.qk_rope_head_dim|0|64|model.kv_lora_rank=256
model.v_head_dim|0|64|model.kv_lora_rank=256
model.mtp_layers|0|1|
training.moe_dispatcher|alltoall|deepep|
training.lora_rank|0|16|
training.account_for_embedding_in_pipeline_split|false|true|
training.account_for_loss_in_pipeline_split|false|true|'

# Every field of the list is documented by `mlviz fields` (a renamed field
# fails here, not silently below).
"$MLVIZ_BIN" fields >"$tmp/fields" 2>&1
missing=""
for f in $(echo "$FIELDS" | cut -d'|' -f1); do
    grep -q "^$f " "$tmp/fields" || missing="$missing $f"
done
[ -z "$missing" ] && pass "mlviz fields lists every issue-21 field" ||
    fail "mlviz fields lists every issue-21 field" "missing:$missing"

# Lua: set, then get the same value back (numbers compared as numbers).
{
    echo 'local cases = {'
    echo "$FIELDS" | while IFS='|' read -r f base val extra; do
        case $val in
        true | false | [0-9]*) lit=$val ;;
        *) lit="\"$val\"" ;;
        esac
        echo "  { \"$f\", $lit, \"$extra\" },"
    done
    cat <<'EOF'
}
local base = mlviz.load("moe-h100")
for _, c in ipairs(cases) do
  local s = base:copy()
  if c[3] ~= "" then
    local p, v = c[3]:match("([^=]+)=(.*)")
    s:set(p, tonumber(v) or v)
  end
  local ok, err = pcall(function() s:set(c[1], c[2]) end)
  local got = ok and s:get(c[1])
  if ok and (got == c[2] or tostring(got) == tostring(c[2])) then
    print("PASS Lua sets and gets " .. c[1])
  else
    print("FAIL Lua sets and gets " .. c[1] .. ": " .. tostring(err or got))
  end
end
EOF
} >"$tmp/fields.lua"
"$MLVIZ_BIN" run "$tmp/fields.lua" >"$tmp/lua.out" 2>&1
cat "$tmp/lua.out" | grep '^PASS \|^FAIL '
n=$(grep -c '^PASS ' "$tmp/lua.out")
fails=$((fails + $(grep -c '^FAIL ' "$tmp/lua.out")))
[ "$n" -eq "$(echo "$FIELDS" | wc -l)" ] ||
    fail "the Lua script checked every field" "$n passed: $(tail -3 "$tmp/lua.out")"

# plan --vary: the searched value shows among the ranked changes.
SMALL="--set cluster.nodes=1 --set cluster.node.accelerators_per_node=2
 --set training.tensor_parallel=1 --set training.expert_parallel=2
 --set training.global_batch=8 --set model.layers=4 --set model.hidden=1024
 --set model.heads=8 --set model.kv_heads=8 --set model.ffn_hidden=2048
 --set model.seq_len=1024"
echo "$FIELDS" | while IFS='|' read -r f base val extra; do
    more=""
    [ -n "$extra" ] && more="--set $extra"
    # shellcheck disable=SC2086
    "$MLVIZ_BIN" plan moe-h100 $SMALL $more --vary "$f=$base,$val" --top 1000 -q \
        --format csv >"$tmp/plan.csv" 2>"$tmp/plan.err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "^top,.*$f=$val\( \|$\)" "$tmp/plan.csv"; then
        pass "plan --vary $f=$base,$val ranks configurations with $val"
    else
        fail "plan --vary $f=$base,$val ranks configurations with $val" \
            "exit $rc: $(head -c 300 "$tmp/plan.err") $(sed -n 2,3p "$tmp/plan.csv")"
    fi
done | tee "$tmp/plan.out"
fails=$((fails + $(grep -c '^FAIL ' "$tmp/plan.out")))
[ "$fails" -eq 0 ]
