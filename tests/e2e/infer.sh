#!/bin/sh
# The inference mode of the view (key i, --infer): at 80x24, 100x30 and
# 200x60 the overview and the Accelerators view show the figures `mlviz
# infer --format json` gives for the same setup (TTFT, TPOT, output tokens/s,
# $ per million tokens; latency where it fits), within the rounding shown;
# a setup that cannot serve says why and shows none of those figures on any
# of its screens; i switches the mode on and off. Prints "PASS name" or
# "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

SET="--set inference.tensor_parallel=2 --set inference.output_tokens=300"
"$BIN" infer default $SET --format json >"$T/infer.json" 2>"$T/infer.err" ||
    fail "mlviz infer gives the figures" "$(head -2 "$T/infer.err")"

# figures_match NAME SCREEN_FILE: the headline figures against the JSON.
figures_match() {
    python3 - "$T/infer.json" "$2" <<'EOF'
import json, re, sys
want = json.load(open(sys.argv[1]))
text = open(sys.argv[2], encoding="utf-8").read()
prefix = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3, "u": 1e-6, "n": 1e-9}
dur = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60, "h": 3600}
def rounding(num):
    d = len(num.split(".")[1]) if "." in num else 0
    return 0.5 * 10 ** -d
checks = [("TTFT", r"TTFT ([0-9.]+) (ms|us|s|ns|min)\b", "ttft_s", dur),
          ("TPOT", r"TPOT ([0-9.]+) (ms|us|s|ns|min)\b", "tpot_s", dur),
          ("latency", r"latency ([0-9.]+) (ms|us|s|ns|min)\b", "latency_s", dur),
          ("tokens/s", r"tokens/s ([0-9.]+) ?([kMGT]?)\b", "output_tokens_per_s", prefix),
          ("$/Mtok", r"\$([0-9.]+) ?([kMGm]?)/Mtok", "usd_per_mtok", prefix)]
bad, seen = [], []
for name, pat, key, units in checks:
    found = list(re.finditer(pat, text))
    if not found and name != "latency":  # latency gives way first on narrow screens
        bad.append("%s not on screen" % name)
    # Every place the figure shows (boxes, headline, live strip).
    for m in found:
        scale = units[m.group(2)]
        shown = float(m.group(1)) * scale
        exact = want[key] if key in want else want["cost"][key]
        tol = rounding(m.group(1)) * scale * 1.001 + 1e-12
        seen.append(m.group(0))
        if abs(shown - exact) > tol:
            bad.append("%s shows %s, infer says %g" % (name, m.group(0), exact))
print("; ".join(bad) if bad else ", ".join(seen))
sys.exit(1 if bad else 0)
EOF
}

for size in 80x24 100x30 200x60; do
    cols=${size%x*} rows=${size#*x}
    s=inf$cols
    start "$s" "$cols" "$rows" -- -c default $SET --infer
    if ! wait_for "$s" "TTFT" 60; then
        fail "$size: the inference overview shows the serving figures" "$(screen "$s" | head -3)"
        continue
    fi
    keys "$s" Space
    wait_for "$s" "PAUSED" 20
    screen "$s" >"$T/$s-overview.txt"
    why=$(figures_match "$size overview" "$T/$s-overview.txt") &&
        pass "$size: the inference overview shows mlviz infer's figures ($why)" ||
        fail "$size: the inference overview shows mlviz infer's figures" "$why"
    head -1 "$T/$s-overview.txt" | grep -qF "serving" &&
        grep -q "BOTTLENECK.*ACCELERATORS.*decode memory-bound" "$T/$s-overview.txt" &&
        pass "$size: the verdict names decode's bottleneck and why" ||
        fail "$size: the verdict names decode's bottleneck and why" \
            "$(grep -m1 BOTTLENECK "$T/$s-overview.txt")"
    keys "$s" 3
    if wait_title "$s" "│ 3 " && wait_for "$s" "serving: memory" 20; then
        screen "$s" >"$T/$s-stage3.txt"
        why=$(figures_match "$size stage 3" "$T/$s-stage3.txt") &&
            grep -q "decode.*memory-bound" "$T/$s-stage3.txt" &&
            pass "$size: the Accelerators view shows the figures and decode's operating point ($why)" ||
            fail "$size: the Accelerators view shows the figures and decode's operating point" \
                "$why $(grep -m1 'decode' "$T/$s-stage3.txt")"
    else
        fail "$size: the Accelerators view in the inference mode" "$(screen "$s" | head -2)"
    fi
    keys "$s" q
done

# --- a setup that cannot serve: why, and no figures ----------------------------------
start nos 100 30 -- -c default --set inference.batch=100000 --infer
if wait_for nos "CANNOT SERVE" 60; then
    keys nos Space
    wait_for nos "PAUSED" 20
    screen nos >"$T/nos-0.txt"
    for d in 1 2 3 4 5; do
        keys nos "$d"
        wait_title nos "│ $d " && wait_for nos "CANNOT SERVE" 20
        screen nos >"$T/nos-$d.txt"
    done
    figs=$(grep -nE 'TTFT [0-9]|TPOT [0-9]|latency [0-9]|tokens/s [0-9]|[0-9] tokens/s|/Mtok|requests/s|\$[0-9]|J a token' \
        "$T"/nos-*.txt | head -3)
    if [ -z "$figs" ] && grep -q "KV cache per device" "$T/nos-0.txt" &&
        [ "$(grep -l "CANNOT SERVE" "$T"/nos-*.txt | wc -l)" = 6 ]; then
        pass "a setup that cannot serve says why on every screen and shows no figures"
    else
        fail "a setup that cannot serve says why on every screen and shows no figures" \
            "${figs:-no reason} $(grep -c "CANNOT SERVE" "$T"/nos-*.txt | tr '\n' ' ')"
    fi
else
    fail "a setup that cannot serve says why on every screen and shows no figures" \
        "$(screen nos | grep -m1 -E 'BOTTLENECK|CANNOT')"
fi
keys nos q

# --- the inference mode's knobs: serving fields, and they change the figures ---------
"$BIN" infer default --set inference.tensor_parallel=2 --format json >"$T/infer.json"
start knob 100 30 -- -c default --infer
if wait_for knob "TTFT" 60 && keys knob 4 && wait_title knob "│ 4 " &&
    ! screen knob | grep -q "virtual stages"; then
    press_until knob Tab "▸ tensor parallel"
    keys knob Right
    if wait_for knob "TP 2 x PP 1" 20; then
        screen knob >"$T/knob.txt"
        why=$(figures_match "tensor parallel knob" "$T/knob.txt") &&
            pass "the tensor parallel knob of the inference mode serves on 2 devices a replica ($why)" ||
            fail "the tensor parallel knob of the inference mode serves on 2 devices a replica" "$why"
    else
        fail "the tensor parallel knob of the inference mode serves on 2 devices a replica" \
            "$(screen knob | grep -m1 -E 'tensor|TP')"
    fi
else
    fail "the inference mode's interconnect view has serving knobs" "$(screen knob | grep -m3 '◂')"
fi
keys knob q

# --- i switches the mode on and off --------------------------------------------------
start tog 100 30 -- -c default
if wait_title tog "│ overview │" && keys tog i && wait_title tog "│ serving │" &&
    wait_for tog "TTFT" 20 && keys tog i && wait_title tog "│ overview │" &&
    ! screen tog | grep -q "TTFT"; then
    pass "i switches the overview to serving and back"
else
    fail "i switches the overview to serving and back" "$(screen tog | head -1)"
fi
keys tog q

[ "$FAILS" -eq 0 ]
