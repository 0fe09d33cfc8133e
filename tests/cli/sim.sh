#!/bin/sh
# mlviz sim: every preset runs, event files (good and bad), --series CSV,
# JSON that parses, exit codes. One line per check: "PASS name" or
# "FAIL name: why". Run from the repository root; $MLVIZ_BIN is the binary.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
export MLVIZ_DATA
EV=tests/setups/events
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# run NAME EXPECTED_RC ARGS...: runs mlviz, keeps stdout/stderr in $tmp.
run() {
    name=$1 want=$2
    shift 2
    "$MLVIZ_BIN" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit $rc, expected $want: $(head -c 300 "$tmp/err")"
        return 1
    fi
    return 0
}

for p in default gpt3-175b-a100 tpu-v4-pod workstation laptop-cpu; do
    if run "preset-$p" 0 sim "$p" --duration 2h; then
        if grep -Eq "(tokens|samples)/s achieved vs" "$tmp/out" && grep -q "checkpoints" "$tmp/out" &&
            grep -q "energy" "$tmp/out"; then
            pass "preset-$p"
        else
            fail "preset-$p" "summary lines missing: $(head -c 300 "$tmp/out")"
        fi
    fi
done

# Without jitter and failures the sim matches the model (within 2%).
if run steady-matches-model 0 sim default --duration 6h --no-jitter --no-failures --format json; then
    r=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["ratio"])' <"$tmp/out" 2>/dev/null)
    if python3 -c "import sys; r=float('$r'); sys.exit(0 if abs(r-1) < 0.02 else 1)" 2>/dev/null; then
        pass steady-matches-model
    else
        fail steady-matches-model "ratio '$r'"
    fi
fi

# JSON parses and has the summary keys.
if run json-parses 0 sim tpu-v4-pod --duration 1h --format json; then
    if python3 -m json.tool <"$tmp/out" >/dev/null 2>&1 &&
        python3 -c 'import json,sys; d=json.load(sys.stdin); [d[k] for k in ("tokens_per_s","analytic_tokens_per_s","failures","restarts","checkpoints","throttled_s","energy_kwh","starved_s")]' <"$tmp/out" 2>/dev/null; then
        pass json-parses
    else
        fail json-parses "not JSON or keys missing: $(head -c 200 "$tmp/out")"
    fi
fi

if run json-series 0 sim workstation --duration 10m --format json --series; then
    if python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["series"]; assert len(s["time_s"]) == 600 and len(s["rack_temp_c"]) == 600' <"$tmp/out" 2>/dev/null; then
        pass json-series
    else
        fail json-series "series missing or wrong length"
    fi
fi

# --series: CSV with the header from sim_series_names and one row per sample.
if run series-csv 0 sim default --duration 10m --series; then
    head -n 1 "$tmp/out" >"$tmp/header"
    rows=$(($(wc -l <"$tmp/out") - 1))
    cols=$(head -n 2 "$tmp/out" | tail -n 1 | awk -F, '{print NF}')
    if grep -q '^time_s,tokens_per_s,util_data,util_cpus,util_accel,util_net,util_infra,queue_loader,queue_prefetch,queue_device,device_power_w,it_kw,facility_kw,rack_temp_c,throttle,tokens_total,lost_s,failures$' "$tmp/header" &&
        [ "$rows" -eq 600 ] && [ "$cols" -eq 18 ]; then
        pass series-csv
    else
        fail series-csv "header '$(cat "$tmp/header")', $rows rows, $cols columns"
    fi
fi

if run series-sample 0 sim default --duration 1h --series --sample 5m; then
    rows=$(($(wc -l <"$tmp/out") - 1))
    if [ "$rows" -eq 12 ] && sed -n 2p "$tmp/out" | grep -q '^300,'; then
        pass series-sample
    else
        fail series-sample "$rows rows, second line '$(sed -n 2p "$tmp/out")'"
    fi
fi

if run csv-summary 0 sim laptop-cpu --duration 1h --format csv; then
    if [ "$(wc -l <"$tmp/out")" -eq 2 ] && head -n 1 "$tmp/out" | grep -q '^setup,duration_s,seed,tick_s,tick_auto,tokens_per_s'; then
        pass csv-summary
    else
        fail csv-summary "$(head -c 300 "$tmp/out")"
    fi
fi

# Same seed, same bytes; another seed, other numbers.
"$MLVIZ_BIN" sim tpu-v4-pod --duration 30m --series --seed 5 >"$tmp/a" 2>/dev/null
"$MLVIZ_BIN" sim tpu-v4-pod --duration 30m --series --seed 5 >"$tmp/b" 2>/dev/null
"$MLVIZ_BIN" sim tpu-v4-pod --duration 30m --series --seed 6 >"$tmp/c" 2>/dev/null
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ! cmp -s "$tmp/a" "$tmp/c"; then
    pass same-seed-same-bytes
else
    fail same-seed-same-bytes "series differ for one seed or agree across seeds"
fi

# A good events file runs, and its stop event ends the run at 7 h.
if run events-good 0 sim default --duration 8h --events "$EV/good.yaml" --format json; then
    if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["stopped"] and abs(d["duration_s"]-25200) < 1 and d["failures"] >= 2 and d["events"] == 9' <"$tmp/out" 2>/dev/null; then
        pass events-good
    else
        fail events-good "$(head -c 400 "$tmp/out")"
    fi
fi

if run events-empty 0 sim default --duration 1h --events "$EV/empty.yaml"; then
    pass events-empty
fi

# Bad events files: exit 2 and "file:line:col: message".
for f in "$EV"/bad-*.yaml; do
    n=$(basename "$f" .yaml)
    if run "events-$n" 2 sim default --duration 1h --events "$f"; then
        if grep -q "^$f:[0-9][0-9]*:[0-9][0-9]*: " "$tmp/err" && [ ! -s "$tmp/out" ]; then
            pass "events-$n"
        else
            fail "events-$n" "message without file:line:col: $(head -c 300 "$tmp/err")"
        fi
    fi
done

if run events-suggest 2 sim default --events "$EV/bad-unknown-event.yaml"; then
    if grep -q "did you mean 'fail_device'" "$tmp/err"; then
        pass events-suggest
    else
        fail events-suggest "$(cat "$tmp/err")"
    fi
fi

if run events-missing-file 2 sim default --events "$tmp/nope.yaml"; then
    pass events-missing-file
fi

# Usage errors exit 2.
run bad-duration 2 sim default --duration 3x && pass bad-duration
run bad-seed 2 sim default --seed -4 && pass bad-seed
run bad-option 2 sim default --frobnicate && pass bad-option
run no-setup 2 sim && pass no-setup
run bad-format 2 sim default --format yaml && pass bad-format
run unknown-preset 2 sim no-such-preset && pass unknown-preset

# Switches: with everything off there are no failures and no jitter.
if run switches-off 0 sim gpt3-175b-a100 --duration 1d --no-jitter --no-failures --no-thermal --format json; then
    if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["failures"] == 0 and abs(d["ratio"]-1) < 0.02' <"$tmp/out" 2>/dev/null; then
        pass switches-off
    else
        fail switches-off "$(head -c 300 "$tmp/out")"
    fi
fi

if run help 0 sim --help && grep -q "usage: mlviz sim" "$tmp/out"; then
    pass help
fi

# ---- hardening: option values, exact seeds, escapes ------------------------------

# optcheck NAME OPTION ARGS...: exit 2 and a message naming the option.
optcheck() {
    n=$1 opt=$2
    shift 2
    if run "$n" 2 "$@"; then
        grep -q -- "$opt" "$tmp/err" && pass "$n" ||
            fail "$n" "message does not name $opt: $(head -c 200 "$tmp/err")"
    fi
}
for bad in "" "-1" "+1" " 1" "1x" "1e3" "nan" "18446744073709551616" "99999999999999999999999"; do
    optcheck "seed-'$bad'" --seed sim default --duration 1m --seed "$bad"
done
for opt in --duration --sample --tick; do
    for bad in "" "nan" "inf" "-1s" "1e400" "5s x"; do
        optcheck "$opt-'$bad'" "$opt" sim default --duration 1m "$opt" "$bad"
    done
done
optcheck "tick-61" --tick sim default --duration 1m --tick 61
optcheck "tick-too-fine" --tick sim default --duration 1m --tick 0.0000001
optcheck "duration-huge" --duration sim default --duration 1e10
# A run is bounded: too many ticks at an explicit --tick, or too many steps,
# is refused before it starts; the automatic tick keeps a long run's
# duration exactly (1e8 s: a whole number of ticks).
optcheck "ticks-too-many" --tick sim default --duration 1e9 --tick 1ms
optcheck "steps-too-many" --duration sim default --duration 1e9 --set model.layers=1
optcheck "tick-auto-misspelt" --tick sim default --duration 1m --tick autox
if run auto-tick 0 sim default --duration 1e8 --set training.global_batch=65536 --format json; then
    if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["tick_auto"] is True and d["duration_s"] == 10**8 and d["ticks"] * d["tick_s"] == 10**8, (d["ticks"], d["tick_s"], d["duration_s"])' <"$tmp/out" 2>/dev/null; then
        pass auto-tick
    else
        fail auto-tick "$(grep -E '"(ticks|tick_s|duration_s)"' "$tmp/out" | tr -d '\n')"
    fi
fi
# --tick auto is the default: GPT-3's 30 s steps take a tick far coarser
# than 1 ms (the engine's tests check the results stay within 0.01%), said
# in JSON, CSV and text; an explicit --tick is kept and said so.
if run tick-auto-default 0 sim gpt3-175b-a100 --duration 1d --format json &&
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["tick_auto"] is True and d["tick_s"] >= 0.1 and abs(d["ticks"] * d["tick_s"] - 86400) < 1e-6, d["tick_s"]' <"$tmp/out" 2>/dev/null &&
    cp "$tmp/out" "$tmp/default.json" &&
    run tick-auto-word 0 sim gpt3-175b-a100 --duration 1d --tick auto --format json &&
    cmp -s "$tmp/out" "$tmp/default.json"; then
    pass tick-auto-default
else
    fail tick-auto-default "$(grep -E '"tick' "$tmp/out" | tr -d '\n')"
fi
if run tick-auto-text 0 sim gpt3-175b-a100 --duration 1d &&
    grep -Eq "^  tick +[0-9.]+ m?s, automatic: the coarsest within 0.01% of a [0-9.]+ m?s tick" "$tmp/out" &&
    run tick-given-text 0 sim gpt3-175b-a100 --duration 1h --tick 1ms &&
    grep -Eq "^  tick +1(.0)? ms \(--tick\)" "$tmp/out" &&
    run tick-given-csv 0 sim gpt3-175b-a100 --duration 1h --tick 10ms --format csv &&
    python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin))[0]; assert float(r["tick_s"]) == 0.01 and r["tick_auto"] == "false", r' <"$tmp/out" 2>/dev/null; then
    pass tick-said
else
    fail tick-said "$(head -c 300 "$tmp/out")"
fi
optcheck "events-empty" --events sim default --duration 1m --events ""
optcheck "seed-missing" --seed sim default --duration 1m --seed

# The largest seed is exact in JSON, CSV and text (no 1.844674407e+19).
if run seed-max-json 0 sim default --duration 1m --seed 18446744073709551615 --format json; then
    if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["seed"] == 18446744073709551615, d["seed"]' <"$tmp/out" 2>/dev/null; then
        pass seed-max-json
    else
        fail seed-max-json "seed not exact: $(grep seed "$tmp/out")"
    fi
fi
if run seed-max-csv 0 sim default --duration 1m --seed 18446744073709551615 --format csv; then
    if python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); assert r[0]["seed"] == "18446744073709551615"' <"$tmp/out" 2>/dev/null; then
        pass seed-max-csv
    else
        fail seed-max-csv "$(head -c 300 "$tmp/out")"
    fi
fi

# An escape sequence in the setup name never reaches the terminal raw: the
# loader refuses it at its position, and the message itself is printable.
printf 'name: "evil \\e[2J\\x9b31m"\n' >"$tmp/evil.yaml"
if run escape-text 2 sim "$tmp/evil.yaml" --duration 1m; then
    if grep -q 'evil.yaml:1:' "$tmp/err" &&
        python3 -c 'import sys; t=sys.stdin.buffer.read(); assert b"\x1b" not in t and b"\xc2\x9b" not in t' <"$tmp/err" 2>/dev/null; then
        pass escape-text
    else
        fail escape-text "raw escape or no position in: $(head -c 100 "$tmp/err" | od -c | head -3)"
    fi
fi
# A storage tier that delivers nothing: refused like any setup that cannot
# run (the model's figure would be "forever"), not simulated from the
# batches already in flight.
printf 'name: denormal\ncluster:\n  storage_bw_gbs: 4.9e-324\n' >"$tmp/denormal.yaml"
"$MLVIZ_BIN" sim "$tmp/denormal.yaml" --duration 10m >"$tmp/out" 2>"$tmp/err"
case $? in
1) grep -q "cannot run: .*storage reads" "$tmp/err" && pass denormal-refused ||
       fail denormal-refused "message does not name storage: $(head -c 200 "$tmp/err")" ;;
2) grep -q storage_bw_gbs "$tmp/err" && pass denormal-refused || # the loader's floor
       fail denormal-refused "refused without naming the field: $(head -c 200 "$tmp/err")" ;;
*) fail denormal-refused "exit $?, expected a refusal: $(head -c 200 "$tmp/out")" ;;
esac
# No nan, inf or -0 in any format of a run with a tier at the loader's floor.
printf 'name: slow\ncluster:\n  storage_bw_gbs: 1e-6\n' >"$tmp/slow.yaml"
for f in text json csv; do
    if run "slow-storage-$f" 0 sim "$tmp/slow.yaml" --duration 10m --format $f; then
        if python3 -c '
import re, sys
t = sys.stdin.read()
assert not re.search(r"(?<![A-Za-z])(nan|inf)(?![A-Za-z])", t, re.I), t
assert not re.search(r"(?<![\w.])-0(\.0*)?(?![\d.])", t), t
' <"$tmp/out" 2>/dev/null; then
            pass "slow-storage-$f"
        else
            fail "slow-storage-$f" "$(head -c 300 "$tmp/out")"
        fi
    fi
done
