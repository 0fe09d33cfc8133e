#!/bin/sh
# A setup that cannot run (issue 22): eval's text shows no throughput, MFU,
# TFLOP/s or cost, says why it cannot run and what would make it run; no
# power in text or JSON is negative (an air-cooled TPU v5e pod whose idle
# devices already overheat); a throttled rack's verdict leads with the
# consequence and states the heat the racks would make at full clocks.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
[ -x "$MLVIZ_BIN" ] || { echo "FAIL cannot run: no executable at $MLVIZ_BIN"; exit 0; }
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
HOT="tpu-v4-pod --set cluster.node.accelerator=tpu-v5e --set facility.cooling=air"
text=$("$MLVIZ_BIN" eval $HOT 2>/dev/null)
json=$("$MLVIZ_BIN" eval $HOT --format json 2>/dev/null)
if echo "$text" | grep -q "^CANNOT RUN" && echo "$text" | grep -q "better cooling" &&
    ! echo "$text" | grep -v "^  (no throughput" | grep -qE "tokens/s|samples/s|MFU|TFLOP/s|cost:|in all"; then
    pass "eval of a setup that cannot run shows why and what would make it run, and no throughput, MFU or cost"
else
    fail "eval of a setup that cannot run shows why and what would make it run, and no throughput, MFU or cost" \
        "$(echo "$text" | grep -E "CANNOT|tokens/s|MFU|cost" | head -3)"
fi
neg=$( { echo "$text" | grep -E "power|rack"; echo "$json" | grep -E '"(device_w|node_w|it_kw|facility_kw|per_rack_kw|full_rack_kw|energy_[a-z_]*)"'; } | grep -E -- "-[0-9]")
if [ -z "$neg" ]; then
    pass "no power or energy figure of a rack that cannot be cooled is negative"
else
    fail "no power or energy figure of a rack that cannot be cooled is negative" "$neg"
fi
v=$("$MLVIZ_BIN" eval tests/setups/good/air-throttled.yaml 2>/dev/null | grep '^bottleneck:')
if echo "$v" | grep -q "clocks cut to [0-9.]*%: racks would make 29.[0-9] kW, cooling removes 20 kW"; then
    pass "a throttled rack's verdict leads with the clocks and states the heat at full clocks"
else
    fail "a throttled rack's verdict leads with the clocks and states the heat at full clocks" "$v"
fi
# JSON and CSV: the run-only figures are no numbers (null, an empty cell).
fit="default --set training.micro_batch=16"
j=$("$MLVIZ_BIN" eval $fit --format json 2>/dev/null)
c=$("$MLVIZ_BIN" eval $fit --format csv 2>/dev/null)
bad=$(echo "$j" | grep -E '"(tokens_per_s|mfu|tflops_per_device|usd_total|usd_per_hour|energy_mwh)": [0-9]')
cells=$(printf '%s\n' "$c" | python3 -c "
import csv, sys
rows = list(csv.reader(sys.stdin)); d = dict(zip(rows[0], rows[1]))
print(' '.join(k + '=' + d[k] for k in ('tokens_per_s', 'mfu', 'cost.usd_total') if d.get(k, 'x') != ''))")
if echo "$j" | grep -q '"tokens_per_s": null' && [ -z "$bad" ] && [ -z "$cells" ]; then
    pass "JSON and CSV of a setup that cannot run hold no throughput, MFU, energy or cost"
else
    fail "JSON and CSV of a setup that cannot run hold no throughput, MFU, energy or cost" "$bad $cells"
fi

# Anywhere: eval's text, JSON and CSV of every preset and test setup, also
# air-cooled, and the series of a rack that cannot be cooled, hold no
# negative power or energy (a field or column in W, kW, MW, Wh or energy, a
# text figure with a power unit). One python reads them all.
out=$(mktemp -d)
k=0
for f in scenarios/presets/*.yaml tests/setups/good/*.yaml "$HOT"; do
    for cool in "" "--set facility.cooling=air"; do
        k=$((k + 1))
        echo "$f $cool" >"$out/$k.name"
        for fmt in text json csv; do
            # shellcheck disable=SC2086
            "$MLVIZ_BIN" eval $f $cool --format $fmt >"$out/$k.$fmt" 2>/dev/null
        done
    done
done
"$MLVIZ_BIN" sim $HOT --duration 10m --series --format csv >"$out/series.csv" 2>/dev/null
echo "sim --series of the hot rack" >"$out/series.name"
neg=$(python3 - "$out" <<'PY'
import csv, glob, json, os, re, sys
d = sys.argv[1]
name = re.compile(r"(_w|_kw|_mw|_wh|_kwh|_mwh)$|energy", re.I)
bad = []
def walk(o, path, out):
    if isinstance(o, dict):
        for k, v in o.items():
            walk(v, k, out)
    elif isinstance(o, list):
        for v in o:
            walk(v, path, out)
    elif isinstance(o, (int, float)) and not isinstance(o, bool) and o < 0 and name.search(path):
        out.append("%s=%s" % (path, o))
for n in sorted(glob.glob(d + "/*.name")):
    base, what, found = n[:-5], open(n).read().strip(), []
    if os.path.exists(base + ".text"):
        found += [l.strip() for l in open(base + ".text").read().split("\n")
                  if re.search(r"-[0-9.]+ ?[kMG]?(W|Wh)\b", l)]
    if os.path.exists(base + ".json"):
        try:
            walk(json.load(open(base + ".json")), "", found)
        except ValueError:
            pass
    rows = list(csv.reader(open(base + ".csv"))) if os.path.exists(base + ".csv") else []
    for row in rows[1:]:
        for k, v in zip(rows[0], row):
            try:
                if name.search(k) and float(v) < 0:
                    found.append("%s=%s" % (k, v))
            except ValueError:
                pass
    if found:
        bad.append("[%s: %s]" % (what, "; ".join(found[:3])))
print(" ".join(bad))
PY
)
rm -rf "$out"
if [ "$k" -ge 30 ] && [ -z "$neg" ]; then
    pass "no negative power or energy in eval's text, JSON or CSV of any preset or test setup (also air-cooled), nor in a series"
else
    fail "no negative power or energy in eval's text, JSON or CSV of any preset or test setup (also air-cooled), nor in a series" "$neg"
fi
