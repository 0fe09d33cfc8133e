#!/bin/sh
# The sandbox's one rule for every path a script or a loaded setup names: read
# only below the current or the script's directory, no absolute path, no "..",
# no symbolic link on the way; messages that quote nothing from outside and
# read the same whether a file outside exists or not; nothing outside created,
# changed or deleted. Prints "PASS name" or "FAIL name: why". Run from the
# repository root.
. "$(dirname "$0")/common"

# R/secret holds what a script must never see; R/work is the current
# directory and R/scen the script's. Every escape has a "present" and an
# "absent" spelling (the second names nothing), so a difference in the
# messages would tell a script whether a file outside exists.
R=$out/paths
mkdir -p "$R/secret" "$R/work/sub" "$R/scen/mods"
printf '{"architectures": ["SECRETARCH"], "model_type": "SECRETTYPE", "num_hidden_layers": "SECRETLAYERS",\n "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100}\n' >"$R/secret/present.json"
printf 'name: SECRETNAME\ncluster: {nodes: SECRETNODES}\n' >"$R/secret/present.yaml"
printf 'return SECRETMODULE SECRETMODULE\n' >"$R/secret/present.lua"
cd "$R/work" || exit 1
for w in present absent; do
    printf 'model: {hf_config: %s}\n' "$R/secret/$w.json" >"abs-$w.yaml"
    printf 'model: {hf_config: ../secret/%s.json}\n' "$w" >"dotdot-$w.yaml"
    printf 'model: {hf_config: ../../secret/%s.json}\n' "$w" >"sub/dotdot-$w.yaml"
    printf 'model: {hf_config: ./sub/../../secret/%s.json}\n' "$w" >"mid-$w.yaml"
    ln -s "../secret/$w.json" "link-$w.json"
    printf 'model: {hf_config: link-%s.json}\n' "$w" >"link-$w.yaml"
    ln -s "$R/secret/$w.json" "abslink-$w.json"
    printf 'model: {hf_config: abslink-%s.json}\n' "$w" >"abslink-$w.yaml"
    printf 'model: {hf_config: sdir/%s.json}\n' "$w" >"linkdir-$w.yaml"
    ln -s "../secret/$w.yaml" "setuplink-$w.yaml"
    ln -s "../secret/$w.yaml" "bare-$w"
    ln -s "../secret/$w.yaml" "../scen/scenlink-$w.yaml"
    ln -s "../../secret/$w.lua" "../scen/mods/m$w.lua"
done
ln -s ../secret sdir
ln -s ../secret ../scen/sdir
# Inside files load: a config beside the setup, a setup in the script's directory.
printf '{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4,\n "vocab_size": 1000, "hidden_act": "silu"}\n' >cfg.json
printf 'name: inside\nmodel: {hf_config: cfg.json, seq_len: 128}\ntraining: {global_batch: 8}\n' >inside.yaml
cp cfg.json sub/cfg.json
printf 'name: inside-sub\nmodel: {hf_config: cfg.json, seq_len: 128}\ntraining: {global_batch: 8}\n' >sub/inside.yaml
cp inside.yaml cfg.json ../scen/
printf 'name: scen-only\nmodel: {hf_config: cfg.json, seq_len: 128}\ntraining: {global_batch: 8}\n' >../scen/scen-only.yaml
printf 'return { answer = 42 }\n' >../scen/mods/inside.lua
cp "$MLVIZ_DATA/tests/lua/hostile/read_escapes.lua" ../scen/
cat >../scen/inside.lua <<'EOF'
local a = mlviz.load("inside.yaml")
local b = mlviz.load("sub/inside.yaml")
local c = mlviz.load("scen-only.yaml")
print(a:get("model.layers"), b:get("model.layers"), c:get("model.layers"), require("mods.inside").answer)
EOF

listing() {
    (cd "$R" && find . -path ./work/mlviz-out -prune -o -print | LC_ALL=C sort &&
        find . -path ./work/mlviz-out -prune -o -type f -exec cksum {} + | LC_ALL=C sort &&
        find . -type l -exec ls -l {} + | sed 's/.* \.\//.\//' | LC_ALL=C sort)
}
listing >"$out/before"

# ---- reads: every escape refused, the same message present or absent -----------
cases="load:abs-present.yaml|abs-absent.yaml load:dotdot-present.yaml|dotdot-absent.yaml
load:sub/dotdot-present.yaml|sub/dotdot-absent.yaml load:mid-present.yaml|mid-absent.yaml
load:link-present.yaml|link-absent.yaml load:abslink-present.yaml|abslink-absent.yaml
load:linkdir-present.yaml|linkdir-absent.yaml load:setuplink-present.yaml|setuplink-absent.yaml
load:bare-present|bare-absent load:scenlink-present.yaml|scenlink-absent.yaml
load:$R/secret/present.yaml|$R/secret/absent.yaml load:../secret/present.yaml|../secret/absent.yaml
load:sdir/present.yaml|sdir/absent.yaml setup:setuplink-present.yaml|setuplink-absent.yaml
setup:../secret/present.yaml|../secret/absent.yaml setup:sdir/present.yaml|sdir/absent.yaml
require:mods.mpresent|mods.mabsent require:sdir.present|sdir.absent"
n_cases=$(echo $cases | wc -w)
timeout 60 "$MLVIZ_BIN" run ../scen/read_escapes.lua $cases >"$out/stdout" 2>"$out/stderr"
rc=$?
cat "$out/stdout" "$out/stderr" >"$out/all"
if [ $rc -ne 0 ]; then
    fail "hostile reads: the script ran" "exit $rc: $(head -c 300 "$out/stderr")"
else
    pass "hostile reads: the script ran"
fi
[ "$(grep -c '^[a-z]* .*: ' "$out/stdout")" -eq "$n_cases" ] && pass "hostile reads: $n_cases escapes tried" ||
    fail "hostile reads: every escape tried" "$(grep -c . "$out/stdout") lines: $(head -c 300 "$out/all")"
grep -q SECRET "$out/all" && fail "hostile reads: no byte of a file outside in any message" "$(grep SECRET "$out/all" | head -3)" ||
    pass "hostile reads: no byte of a file outside in any message"
grep -q LOADED "$out/all" && fail "hostile reads: nothing outside loads" "$(grep LOADED "$out/all" | head -3)" ||
    pass "hostile reads: nothing outside loads"
grep -q DIFFERS "$out/all" && fail "hostile reads: the same message whether a file outside exists" "$(grep -A1 DIFFERS "$out/all" | head -4)" ||
    pass "hostile reads: the same message whether a file outside exists"
# Each kind of escape is refused for its own reason, named.
check_msg() {
    grep -q -- "$2" "$out/stdout" && pass "hostile reads: $1" || fail "hostile reads: $1" "no '$2' in: $(head -c 400 "$out/stdout")"
}
check_msg "absolute hf_config refused" "^load abs-present.yaml: .*model.hf_config: '.*' is an absolute path; a setup loaded by a sandboxed script names only files below the current directory"
check_msg "hf_config with .. refused" "^load dotdot-present.yaml: .*model.hf_config: '\.\./secret/X.json' is a path with a '\.\.' part"
check_msg "hf_config through a link refused" "^load link-present.yaml: .*link-X.json: a symbolic link is on the way"
check_msg "hf_config through a linked directory refused" "^load linkdir-present.yaml: .*sdir/X.json: a symbolic link is on the way"
check_msg "a linked setup refused" "^load setuplink-present.yaml: .*a symbolic link is on the way"
check_msg "an absolute setup path refused" "^load $R/secret/present.yaml: .*is an absolute path: the sandbox only reads setup files below"
check_msg "a module through a link refused" "^require mods.mpresent: .*a symbolic link is on the way"

# ---- inside files still load ----------------------------------------------------
(timeout 60 "$MLVIZ_BIN" run ../scen/inside.lua >"$out/stdout" 2>"$out/stderr")
rc=$?
if [ $rc -eq 0 ] && grep -q "^2	2	2	42$" "$out/stdout"; then
    pass "inside: setups with hf_config beside them and modules load"
else
    fail "inside: setups with hf_config beside them and modules load" "exit $rc: $(head -c 300 "$out/stdout" "$out/stderr")"
fi
# --trust lifts the rule: the same setup with its config outside loads.
mkdir -p "$out/cfgout" "$out/t" "$out/w" && cp cfg.json "$out/cfgout/c.json"
printf 'name: t\nmodel: {hf_config: ../cfgout/c.json, seq_len: 128}\ntraining: {global_batch: 8}\n' >"$out/t/trusted.yaml"
printf 'print(mlviz.load(arg[1]):get("model.layers"))\n' >"$out/trusted.lua"
(cd "$out/w" && timeout 60 "$MLVIZ_BIN" run --trust ../trusted.lua ../t/trusted.yaml >"$out/stdout" 2>"$out/stderr")
grep -qx 2 "$out/stdout" && pass "--trust reads a setup's config outside" ||
    fail "--trust reads a setup's config outside" "$(head -c 300 "$out/stderr")"

# ---- nothing outside the output directory changed --------------------------------
listing >"$out/after"
cmp -s "$out/before" "$out/after" && pass "hostile reads changed no file" ||
    fail "hostile reads changed no file" "$(diff "$out/before" "$out/after" | head -5 | tr '\n' ' ')"
exit 0
