#!/bin/sh
# The text report of `mlviz eval` against its JSON: every quantity the text
# prints (times, rates, percentages, GB, W, kW, dollars) is read back with
# its unit and compared with the JSON value of the same field, within the
# rounding of the printed digits. A wrong unit or scale in the text (a 10x
# error in milliseconds, MB printed as GB) fails here. The units below are
# written out by hand, not taken from mlviz.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
[ -x "$MLVIZ_BIN" ] || { echo "FAIL report units: no executable at $MLVIZ_BIN (build first or set MLVIZ_BIN)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # name, eval arguments...
    name=$1
    shift
    if ! "$MLVIZ_BIN" eval "$@" >"$tmp/text" 2>/dev/null ||
        ! "$MLVIZ_BIN" eval "$@" --format json >"$tmp/json" 2>/dev/null; then
        echo "FAIL report units $name: eval $* failed"
        return
    fi
    python3 - "$tmp/text" "$tmp/json" "$name" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
data = json.load(open(sys.argv[2]))
name = sys.argv[3]
DURATION = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0,
            "y": 365.25 * 86400.0}
SI = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
NUM = r"(-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)"

def get(key):
    v = data
    for part in key.split("."):
        v = v[part]
    return float(v)

def half_step(s):
    """Half of the last printed digit of the number string s."""
    mant, _, exp = s.partition("e")
    dec = len(mant.split(".")[1]) if "." in mant else 0
    return 0.5 * 10.0 ** (-dec) * (10.0 ** int(exp) if exp else 1.0)

failures, checked = [], 0

def same(what, printed, scale, key, factor=1.0):
    global checked
    want = get(key) * factor
    got = float(printed) * scale
    tol = half_step(printed) * scale * 1.0001 + 1e-9 * abs(want)
    checked += 1
    if abs(got - want) > tol:
        failures.append("%s: text %s x %g = %g, JSON %s = %g" % (what, printed, scale, got, key, want))

def find(pattern, what):
    m = re.search(pattern, text, re.M)
    if not m:
        failures.append("%s: no line matches %r" % (what, pattern))
    return m

m = find(r"^step " + NUM + r" (us|ms|s|min|h|d|y)   " + NUM + r" ([kMGTPE]?) ?(tokens|samples)/s   "
         + NUM + r" TFLOP/s per device   MFU " + NUM + r"%   HFU " + NUM + r"%", "step line")
if m:
    same("step", m.group(1), DURATION[m.group(2)], "step_time_s")
    same("throughput", m.group(3), SI[m.group(4)], m.group(5) + "_per_s")
    same("TFLOP/s", m.group(6), 1.0, "tflops_per_device")
    same("MFU", m.group(7), 0.01, "mfu")
    same("HFU", m.group(8), 0.01, "hfu")
step = get("step_time_s")
rows = re.findall(r"^  [A-Za-z] ([a-z_]+) +" + NUM + r" (us|ms|s|min|h|d|y) +" + NUM + r"%$", text, re.M)
if not rows:
    failures.append("breakdown: no rows")
for part, v, unit, pct in rows:
    same("breakdown " + part, v, DURATION[unit], "breakdown_s." + part)
    same("breakdown share " + part, pct, 0.01 * step, "breakdown_s." + part)
m = find(r"^memory per device: " + NUM + r" GB of " + NUM + r" GB", "memory line")
if m:
    same("memory per device", m.group(1), 1.0, "memory.per_device_gb")
    same("memory capacity", m.group(2), 1.0, "memory.capacity_gb")
parts = {"weights": "params_gb", "grads": "grads_gb", "optimizer": "optimizer_gb",
         "activations": "activations_gb", "logits": "logits_gb", "reserved": "reserved_gb"}
for word, key in parts.items():
    m = find(r"\b" + word + r" " + NUM + r"\b", "memory " + word)
    if m:
        same("memory " + word, m.group(1), 1.0, "memory." + key)
m = find(r"^power: device " + NUM + r" W  IT " + NUM + r" kW  facility " + NUM + r" kW \(PUE " + NUM + r"\)", "power line")
if m:
    same("device W", m.group(1), 1.0, "power.device_w")
    same("IT kW", m.group(2), 1.0, "power.it_kw")
    same("facility kW", m.group(3), 1.0, "power.facility_kw")
    same("PUE", m.group(4), 1.0, "power.pue")
m = find(r"^  rack " + NUM + r" kW of " + NUM + r" kW \([^)]*\)  " + NUM + r" C", "rack line")
if m:
    same("rack kW", m.group(1), 1.0, "power.per_rack_kw")
    same("rack limit kW", m.group(2), 1.0, "power.rack_cooling_limit_kw")
    same("rack C", m.group(3), 1.0, "power.rack_temp_c")
m = find(r"^cost: \$" + NUM + r" ?([kMGTPE]?)/h  " + NUM + r" days for .*  " + NUM + r" MWh  \$" + NUM + r" ?([kMGTPE]?) in all", "cost line")
if m:
    same("USD/h", m.group(1), SI[m.group(2)], "cost.usd_per_hour")
    same("days", m.group(3), 1.0, "cost.days_to_train")
    same("MWh", m.group(4), 1.0, "cost.energy_mwh")
    same("USD total", m.group(5), SI[m.group(6)], "cost.usd_total")
m = find(r"^reliability: " + NUM + r" interruptions/day  checkpoint " + NUM + r" GB \(" + NUM
         + r" (us|ms|s|min|h|d|y)\) every " + NUM + r" min  goodput " + NUM + r"%", "reliability line")
if m:
    same("interruptions/day", m.group(1), 1.0, "reliability.interruptions_per_day")
    same("checkpoint GB", m.group(2), 1.0, "reliability.checkpoint_gb")
    same("checkpoint write", m.group(3), DURATION[m.group(4)], "reliability.checkpoint_write_s")
    same("checkpoint interval", m.group(5), 1.0, "reliability.checkpoint_interval_min")
    same("goodput", m.group(6), 0.01, "reliability.goodput")
if failures:
    print("FAIL report units %s: %s" % (name, "; ".join(failures)))
else:
    print("PASS report units %s (%d quantities)" % (name, checked))
PY
}
for preset in default gpt3-175b-a100 tpu-v4-pod workstation laptop-cpu moe-h100; do
    check "$preset" "$preset"
done
# Short steps (milliseconds), and long ones starved by slow storage.
check "tiny batch" laptop-cpu --set training.global_batch=1 --set training.micro_batch=1
check "slow storage" default --set cluster.storage_bw_gbs=0.001
