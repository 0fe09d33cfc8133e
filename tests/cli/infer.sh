#!/bin/sh
# `mlviz infer`: every shipped preset and model is served or refused with a
# reason, in text, JSON and CSV, with finite non-negative numbers; bad
# inference fields point at their line and column; --strict exits 3 on a
# deployment that cannot serve; the text report prints the JSON's figures.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
[ -x "$MLVIZ_BIN" ] || { echo "FAIL infer: no executable at $MLVIZ_BIN"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS infer $1"; }
fail() { echo "FAIL infer $1: $2"; }

# Every preset, and every shipped model on the default cluster at TP 8.
for p in scenarios/presets/*.yaml; do
    name=$(basename "$p" .yaml)
    echo "preset $name"
done >"$tmp/cases"
for m in assets/models/*.json; do
    echo "model $(basename "$m" .json)"
done >>"$tmp/cases"
while read -r kind name; do
    if [ "$kind" = preset ]; then
        set -- "$name"
    else
        set -- default --model "$name" --set inference.tensor_parallel=8
    fi
    if ! "$MLVIZ_BIN" infer "$@" --format json >"$tmp/$name.json" 2>"$tmp/err"; then
        fail "$kind $name" "exit $? $(head -c 200 "$tmp/err")"
        continue
    fi
    "$MLVIZ_BIN" infer "$@" --format csv >"$tmp/$name.csv" 2>/dev/null
    "$MLVIZ_BIN" infer "$@" >"$tmp/$name.txt" 2>/dev/null
    echo "$kind $name $tmp/$name.json $tmp/$name.csv $tmp/$name.txt"
done <"$tmp/cases" >"$tmp/outputs"
python3 - "$tmp/outputs" <<'PY'
import csv, json, math, re, sys
for line in open(sys.argv[1]):
    kind, name, js, cs, tx = line.split()
    label = "%s %s" % (kind, name)
    data = json.load(open(js))
    bad = []
    def walk(v, path):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, path + "." + k if path else k)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            if not math.isfinite(v) or v < 0 or (v == 0 and math.copysign(1, v) < 0):
                bad.append("%s=%r" % (path, v))
    walk(data, "")
    rows = list(csv.reader(open(cs)))
    text = open(tx).read()
    if bad:
        print("FAIL infer %s: numbers %s" % (label, ", ".join(bad[:4])))
    elif len(rows) != 2 or len(rows[0]) != len(rows[1]):
        print("FAIL infer %s: csv is not one header and one row" % label)
    elif data["runnable"] and not (data["ttft_s"] > 0 and data["output_tokens_per_s"] > 0):
        print("FAIL infer %s: runnable without rates" % label)
    elif not data["runnable"] and (not data["why_not"] or "CANNOT SERVE" not in text):
        print("FAIL infer %s: refused without a reason on screen" % label)
    elif data["runnable"] and str(data["batch"]) not in text:
        print("FAIL infer %s: text does not show the batch" % label)
    else:
        print("PASS infer %s (%s)" % (label, "serves" if data["runnable"] else "refused"))
PY

# A bad inference field: file:line:col and exit 2.
cat >"$tmp/bad.yaml" <<'Y'
name: bad serving
inference:
  batch: 4
  tensor_parallel: 3
Y
out=$("$MLVIZ_BIN" infer "$tmp/bad.yaml" 2>&1); rc=$?
case "$rc:$out" in
2:*bad.yaml:4:*inference.tensor_parallel*) pass "layout refused at its line" ;;
*) fail "layout refused at its line" "exit $rc: $out" ;;
esac
printf 'inference:\n  weight_precision: fp6\n' >"$tmp/bad2.yaml"
out=$("$MLVIZ_BIN" infer "$tmp/bad2.yaml" 2>&1); rc=$?
case "$rc:$out" in
2:*bad2.yaml:2:*) pass "unknown format refused at its line" ;;
*) fail "unknown format refused at its line" "exit $rc: $out" ;;
esac

# --strict: 3 for a deployment that cannot serve (70B in bf16 on one device).
"$MLVIZ_BIN" infer default --model llama3-70b --strict >/dev/null 2>&1; rc=$?
[ "$rc" = 3 ] && pass "strict exits 3" || fail "strict exits 3" "exit $rc"

# The text shows the JSON's TTFT and throughput (same digits, same units).
"$MLVIZ_BIN" infer default --set inference.batch=32 --format json >"$tmp/d.json"
"$MLVIZ_BIN" infer default --set inference.batch=32 >"$tmp/d.txt"
python3 - "$tmp/d.json" "$tmp/d.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); t = open(sys.argv[2]).read()
UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
m = re.search(r"TTFT ([0-9.]+) (us|ms|s)\s+TPOT ([0-9.]+) (us|ms|s)", t)
ok = m and abs(float(m.group(1)) * UNIT[m.group(2)] - d["ttft_s"]) <= 0.01 * d["ttft_s"] \
    and abs(float(m.group(3)) * UNIT[m.group(4)] - d["tpot_s"]) <= 0.01 * d["tpot_s"]
print(("PASS" if ok else "FAIL") + " infer text matches json" + ("" if ok else ": " + t[:300]))
PY

# --serve: JSON with percentiles; the same seed gives the same run; a
# duration outside 1 s..1 d is a usage error.
"$MLVIZ_BIN" infer default --serve 10m --seed 3 --format json >"$tmp/s1.json" 2>"$tmp/err"
"$MLVIZ_BIN" infer default --serve 10m --seed 3 --format json >"$tmp/s2.json" 2>/dev/null
python3 - "$tmp/s1.json" "$tmp/s2.json" <<'PY'
import json, sys
try:
    a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
except ValueError as e:
    a, b = {"error": str(e)}, None
ok = a == b and a["ran"] and 0 < a["ttft_p50_s"] <= a["ttft_p99_s"] \
    and 0 < a["tpot_p50_s"] <= a["tpot_p99_s"] and a["completed"] > 0 \
    and 0 <= a["slo_attainment"] <= 1 and a["duration_s"] == 600
print(("PASS" if ok else "FAIL") + " infer serve json" + ("" if ok else ": %r" % a))
PY
for d in 0 2d junk; do
    "$MLVIZ_BIN" infer default --serve "$d" >/dev/null 2>&1; rc=$?
    [ "$rc" = 2 ] && pass "serve refuses duration $d" || fail "serve refuses duration $d" "exit $rc"
done

# plan --infer: every printed row within the limits, ranked by the
# objective; the first row is the best deployment the space holds (checked
# by evaluating the rank-1 layout again and a sample of others with infer).
"$MLVIZ_BIN" plan default --infer --max ttft_s=0.5 --max tpot_s=0.03 --top 20 --format json \
    >"$tmp/plan.json" 2>"$tmp/err"
python3 - "$tmp/plan.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    print("FAIL infer plan json: %s" % e); sys.exit()
top = d["top"]
ok = len(top) > 1 and all(r["ttft_s"] <= 0.5 and r["tpot_s"] <= 0.03 for r in top)
ok = ok and all(a["usd_per_mtok"] <= b["usd_per_mtok"] for a, b in zip(top, top[1:]))
keys = [(r["tensor_parallel"], r["pipeline_parallel"], r["weight_precision"], r["kv_precision"], r["batch"]) for r in top]
ok = ok and len(set(keys)) == len(keys)
print(("PASS" if ok else "FAIL") + " infer plan rows within limits, ranked, distinct" + ("" if ok else ": %r" % top[:3]))
PY
best=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['top'][0]['changes'])" "$tmp/plan.json" 2>/dev/null)
set --
for c in $best; do set -- "$@" --set "$c"; done
"$MLVIZ_BIN" infer default "$@" --format json >"$tmp/best.json" 2>/dev/null
python3 - "$tmp/plan.json" "$tmp/best.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["top"][0]
b = json.load(open(sys.argv[2]))
ok = abs(b["cost"]["usd_per_mtok"] - p["usd_per_mtok"]) <= 1e-9 * p["usd_per_mtok"] and b["runnable"]
print(("PASS" if ok else "FAIL") + " infer plan rank 1 is what infer says of that layout")
PY
for bad in "--shard 0/2" "--objective days" "--max tokens_per_s=5" "--vary inference.bogus=1"; do
    # shellcheck disable=SC2086
    "$MLVIZ_BIN" plan default --infer $bad >/dev/null 2>&1; rc=$?
    [ "$rc" = 2 ] && pass "plan --infer refuses $bad" || fail "plan --infer refuses $bad" "exit $rc"
done
