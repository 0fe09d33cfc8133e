#!/bin/sh
# `mlviz eval --schedule`: the simulated step schedule as text and JSON. The
# JSON lists every pass (2 p v m of them, 3 p m with ZB-H1), the stages'
# parts add up to the pipeline, the first stage holds Megatron-Core's
# interleaved warm-up plus one chunk (min(2(p-1) + (v-1)p + 1, m v) / v
# micro-batches), and the simulated step agrees with the closed form.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
[ -x "$MLVIZ_BIN" ] || { echo "FAIL schedule: no executable at $MLVIZ_BIN (build first or set MLVIZ_BIN)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
setup=tests/validation/setups/nemo-gpt3-175b.yaml
if "$MLVIZ_BIN" eval "$setup" --schedule >"$tmp/text" 2>"$tmp/err" &&
    grep -q '^schedule: interleaved 1F1B' "$tmp/text" && [ "$(grep -c '^s[0-9]' "$tmp/text")" -eq 16 ]; then
    echo "PASS schedule text: a row per stage in the table and in the timeline"
else
    echo "FAIL schedule text: $(head -c 300 "$tmp/text" "$tmp/err")"
fi
for kind in auto gpipe 1f1b zb-h1; do
    if ! "$MLVIZ_BIN" eval "$setup" --schedule --schedule-kind "$kind" --format json >"$tmp/$kind.json" 2>"$tmp/err"; then
        echo "FAIL schedule json $kind: $(head -c 300 "$tmp/err")"
        continue
    fi
    python3 - "$tmp/$kind.json" "$kind" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
kind = sys.argv[2]
p, v, m = d["pipeline_parallel"], d["virtual_stages"], d["micro_batches"]
why = []
passes = (3 if kind == "zb-h1" else 2) * p * v * m
if len(d["ops"]) != passes:
    why.append("%d passes, want %d" % (len(d["ops"]), passes))
if len(d["stages"]) != p:
    why.append("%d stages, want %d" % (len(d["stages"]), p))
for st in d["stages"]:
    total = st["busy_s"] + st["send_s"] + st["idle_s"]
    if abs(total - d["pipeline_s"]) > 1e-9 * d["pipeline_s"] and st["idle_s"] > 0:
        why.append("stage %d: busy + sends + idle %.9g != pipeline %.9g" % (st["stage"], total, d["pipeline_s"]))
parts = sum(d["exposed"].values())
if abs(parts - d["step_s"]) > 1e-6 * d["step_s"]:
    why.append("exposed parts %.9g != step %.9g" % (parts, d["step_s"]))
if kind == "auto":
    first = d["stages"][0]["peak_in_flight_micro_batches"]
    want = min(2 * (p - 1) + (v - 1) * p + 1, m * v) / v
    if abs(first - want) > 1e-6 * want:
        why.append("first stage holds %.4f micro-batches, want %.4f" % (first, want))
    if abs(d["step_s"] - d["closed_form_step_s"]) > 0.02 * d["step_s"]:
        why.append("simulated %.4f s vs closed form %.4f s" % (d["step_s"], d["closed_form_step_s"]))
if kind == "gpipe" and d["stages"][0]["peak_in_flight_micro_batches"] != m:
    why.append("GPipe holds every micro-batch")
print(("FAIL schedule json %s: " % kind + "; ".join(why)) if why else
      "PASS schedule json %s: %d passes, parts add up" % (kind, passes))
PY
done
if "$MLVIZ_BIN" eval "$setup" --schedule --format csv >/dev/null 2>&1; then
    echo "FAIL schedule csv: accepted"
else
    echo "PASS schedule csv: refused (text or json only)"
fi
