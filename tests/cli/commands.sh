#!/bin/sh
# Usage and output of the headless commands: --help, --version, catalog,
# check, eval, collective, fields; exit statuses 0 / 2; user catalogs.
#
# Run from the repository root. MLVIZ_BIN defaults to ./mlviz; python3 parses
# the JSON and CSV. Prints "PASS name" or "FAIL name: why" per check.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}

if [ ! -x "$MLVIZ_BIN" ]; then
    echo "FAIL commands: no executable at $MLVIZ_BIN (build first or set MLVIZ_BIN)"
    exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "FAIL commands: python3 is needed to check JSON and CSV output"
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out"
err="$tmp/err"
# Keep the user's own catalog out of the way: an empty config home.
XDG_CONFIG_HOME="$tmp/no-config"
export XDG_CONFIG_HOME

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# run NAME EXPECTED_STATUS ARGS...: runs mlviz; on a wrong status prints FAIL
# and returns 1.
run() {
    name=$1
    want=$2
    shift 2
    "$MLVIZ_BIN" "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne "$want" ]; then
        if [ $rc -gt 128 ]; then
            fail "$name" "crashed with signal $((rc - 128)): $(head -c 300 "$err")"
        else
            fail "$name" "exit status $rc, expected $want (stderr: $(head -c 300 "$err"))"
        fi
        return 1
    fi
    return 0
}

# py NAME SCRIPT: a python check over $out (path in sys.argv[1]); the script
# prints a reason and exits non-zero (or raises) on failure. The checks run
# at the end in one python process (pycheck_all: one interpreter instead of
# sixty), each over its own copy of $out.
mkdir -p "$tmp/py"
echo 0 >"$tmp/py/count"
py() {
    k=$(($(cat "$tmp/py/count") + 1))
    echo $k >"$tmp/py/count"
    printf '%s' "$1" >"$tmp/py/$k.name"
    printf '%s' "$2" >"$tmp/py/$k.py"
    cp "$out" "$tmp/py/$k.out"
}
pycheck_all() {
    python3 - "$tmp/py" <<'PY'
import contextlib, io, os, sys
d = sys.argv[1]
for k in range(1, int(open(os.path.join(d, "count")).read()) + 1):
    base = os.path.join(d, str(k))
    name = open(base + ".name").read()
    sys.argv = ["-c", base + ".out"]
    buf = io.StringIO()
    ok = True
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            exec(compile(open(base + ".py").read(), name, "exec"), {"__name__": "__main__"})
        except SystemExit as e:
            if e.code not in (None, 0):
                ok = False
                if not isinstance(e.code, int):
                    print(e.code, file=sys.stderr)
        except BaseException as e:
            ok = False
            print("%s: %s" % (type(e).__name__, e))
    if ok:
        print("PASS " + name)
    else:
        why = " ".join(buf.getvalue().rstrip("\n").split("\n")[-3:])
        print("FAIL %s: %s" % (name, why))
PY
}

# ---- --help, --version -------------------------------------------------------
if run help 0 --help; then
    missing=""
    for c in catalog check eval collective sim run play scenarios fields; do
        grep -qw "$c" "$out" || missing="$missing $c"
    done
    if [ -n "$missing" ]; then
        fail help "usage does not mention:$missing"
    elif ! grep -q -- "--version" "$out"; then
        fail help "usage does not mention --version"
    else
        pass help
    fi
fi
if run help-short 0 -h; then
    grep -q "usage" "$out" && pass help-short || fail help-short "no usage text"
fi
if run version 0 --version; then
    if grep -Eq '^mlviz [0-9]+\.[0-9]+\.[0-9]+' "$out"; then
        pass version
    else
        fail version "expected 'mlviz X.Y.Z', got '$(head -n 1 "$out")'"
    fi
fi

# ---- unknown commands and options ----------------------------------------------
if run unknown-command 2 frobnicate; then
    if grep -q "unknown command 'frobnicate'" "$err" && [ ! -s "$out" ]; then
        pass unknown-command
    else
        fail unknown-command "unclear message: $(head -c 200 "$err")"
    fi
fi
if run unknown-command-did-you-mean 2 evl default; then
    if grep -q "did you mean 'eval'" "$err"; then
        pass unknown-command-did-you-mean
    else
        fail unknown-command-did-you-mean "no suggestion: $(head -c 200 "$err")"
    fi
fi
if run unknown-option 2 --frobnicate; then
    if grep -q -- "--frobnicate" "$err"; then
        pass unknown-option
    else
        fail unknown-option "the message does not name the option: $(head -c 200 "$err")"
    fi
fi
if run unknown-option-check 2 check --frobnicate default; then
    if grep -q "unknown option '--frobnicate'" "$err" && [ ! -s "$out" ]; then
        pass unknown-option-check
    else
        fail unknown-option-check "unclear message: $(head -c 200 "$err")"
    fi
fi
if run bad-format 2 eval default --format xml; then
    grep -q "format" "$err" && pass bad-format || fail bad-format "$(head -c 200 "$err")"
fi
if run check-no-file 2 check; then
    grep -q "missing setup file" "$err" && pass check-no-file ||
        fail check-no-file "$(head -c 200 "$err")"
fi
if run check-two-files 2 check default default; then
    grep -q "unexpected argument" "$err" && pass check-two-files ||
        fail check-two-files "$(head -c 200 "$err")"
fi

# ---- catalog -----------------------------------------------------------------
if run catalog-accelerators 0 catalog accelerators; then
    py catalog-accelerators '
import sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
head = lines[0]
assert head.startswith("accelerators ("), "first line: " + head
cols = lines[1].split()
assert cols[0] == "id" and cols[-1] == "source", "columns: %s" % cols
rows = lines[2:]
assert len(rows) >= 15, "only %d accelerators" % len(rows)
assert int(head.split("(")[1].rstrip(")")) == len(rows), "count in the title differs"
for r in rows:
    f = r.split()
    assert len(f) >= len(cols), "row without a source: " + r
'
fi
if run catalog-accelerators-sources 0 catalog accelerators --format json; then
    py catalog-accelerators-sources '
import sys, json
d = json.load(open(sys.argv[1]))
acc = d["accelerators"]
assert len(acc) >= 15, "only %d accelerators" % len(acc)
need = ["v100-sxm2-32gb", "a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-80gb", "h100-sxm",
        "h100-pcie", "h200-sxm", "b200", "mi250x", "mi300x", "tpu-v4", "tpu-v5e", "tpu-v5p",
        "gaudi2", "gaudi3", "trainium1", "trainium2"]
ids = [a["id"] for a in acc]
missing = [i for i in need if i not in ids]
assert not missing, "missing ids: %s" % missing
for a in acc:
    assert a["source"].strip(), a["id"] + " has no source"
    assert a["name"].strip(), a["id"] + " has no name"
'
fi
for kind in accelerators cpus storage links cooling software; do
    if run "catalog-$kind-text" 0 catalog $kind; then
        if grep -q "^$kind (" "$out" && [ "$(wc -l <"$out")" -ge 3 ]; then
            pass "catalog-$kind-text"
        else
            fail "catalog-$kind-text" "no '$kind (N)' table"
        fi
    fi
    if run "catalog-$kind-csv" 0 catalog $kind --format csv; then
        py "catalog-$kind-csv" '
import sys, csv
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) >= 2, "no rows"
head = rows[0]
assert head[0] == "kind" and "id" in head and "source" in head, "header: %s" % head
for r in rows[1:]:
    assert len(r) == len(head), "%d columns instead of %d: %s" % (len(r), len(head), r[:3])
    assert r[head.index("id")], "empty id"
    assert r[head.index("source")], r[head.index("id")] + " has no source"
'
    fi
    if run "catalog-$kind-json" 0 catalog $kind --format json; then
        # (json.load in the check fails on anything but JSON)
        py "catalog-$kind-json" '
import sys, json
d = json.load(open(sys.argv[1]))
k = sys.argv[2] if len(sys.argv) > 2 else None
assert len(d) == 1, "expected one kind, got %s" % list(d)
entries = list(d.values())[0]
assert isinstance(entries, list) and entries, "no entries"
ids = [e["id"] for e in entries]
assert len(ids) == len(set(ids)), "duplicate ids"
'
    fi
done
# FP4 and binary memory in all three formats: B200 has dense FP4 9000 and
# 183359 MiB (179.06 GiB = 192.27 GB); H100 SXM has no FP4 path.
if run catalog-fp4-text 0 catalog accelerators; then
    py catalog-fp4-text '
import sys
lines = open(sys.argv[1]).read().splitlines()
cols = lines[1].split()
row = {l.split()[0]: l.split() for l in lines[2:] if l.strip()}
i = cols.index("fp4_tflops")
assert row["b200"][i] == "9000" and row["h100-sxm"][i] == "0", (row["b200"][i], row["h100-sxm"][i])
g = cols.index("mem_gib")
assert abs(float(row["b200"][g]) - 183359 / 1024) < 0.01, row["b200"][g]
'
fi
if run catalog-fp4-csv 0 catalog accelerators --format csv; then
    py catalog-fp4-csv '
import sys, csv
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
b = [r for r in rows if r["id"] == "b200"][0]
assert float(b["fp4_tflops"]) == 9000 and abs(float(b["mem_gb"]) - 183359 * 2**20 / 1e9) < 0.01, b
'
fi
if run catalog-fp4-json 0 catalog accelerators --format json; then
    py catalog-fp4-json '
import sys, json
acc = {a["id"]: a for a in json.load(open(sys.argv[1]))["accelerators"]}
assert acc["rtx-5090"]["fp4_tflops"] == 1676 and acc["h100-sxm"]["fp4_tflops"] == 0, acc["rtx-5090"]
assert abs(acc["h100-sxm"]["mem_gb"] - 81559 * 2**20 / 1e9) < 0.01, acc["h100-sxm"]["mem_gb"]
assert acc["apple-m4-max-gpu"]["unified_memory"] is True and acc["h100-sxm"]["unified_memory"] is False
'
fi
# Singular names work too ("accelerator").
run catalog-singular 0 catalog accelerator && pass catalog-singular
if run catalog-all-json 0 catalog --format json; then
    py catalog-all-json '
import sys, json
d = json.load(open(sys.argv[1]))
for k in ["accelerators", "cpus", "storage", "links", "cooling"]:
    assert k in d and d[k], "no " + k
'
fi
if run catalog-all-csv 0 catalog --format csv; then
    py catalog-all-csv '
import sys, csv
blocks = open(sys.argv[1]).read().strip().split("\n\n")
assert len(blocks) >= 5, "%d tables" % len(blocks)
for b in blocks:
    rows = list(csv.reader(b.splitlines()))
    n = len(rows[0])
    bad = [r for r in rows if len(r) != n]
    assert not bad, "inconsistent columns in %s table" % rows[1][0]
'
fi
if run catalog-unknown-kind 2 catalog acceleratorz; then
    if grep -q "unknown catalog kind 'acceleratorz'" "$err" && grep -q "did you mean 'accelerators'" "$err"; then
        pass catalog-unknown-kind
    else
        fail catalog-unknown-kind "$(head -c 200 "$err")"
    fi
fi
run catalog-bad-format 2 catalog --format yaml && pass catalog-bad-format

# ---- eval ----------------------------------------------------------------------
contract='
import sys, json, math
d = json.load(open(sys.argv[1]))
top = ["step_time_s", "tokens_per_s", "samples_per_s", "tflops_per_device", "mfu", "hfu",
       "bottleneck", "bottleneck_reason"]
groups = {
    "breakdown_s": ["data_read", "preprocess", "host_to_device", "compute", "recompute",
                    "tp_comm", "pp_bubble", "dp_comm_exposed", "optimizer"],
    "memory": ["per_device_gb", "params_gb", "grads_gb", "optimizer_gb", "activations_gb", "fits"],
    "power": ["it_kw", "facility_kw", "per_rack_kw", "rack_cooling_limit_kw", "throttled"],
    "cost": ["usd_per_hour", "days_to_train", "energy_mwh", "usd_total"],
    "reliability": ["interruptions_per_day", "checkpoint_interval_min", "goodput"],
}
missing = [k for k in top if k not in d]
for g, keys in groups.items():
    if not isinstance(d.get(g), dict):
        missing.append(g)
        continue
    missing += [g + "." + k for k in keys if k not in d[g]]
assert not missing, "missing keys: %s" % missing
assert d["bottleneck"] in ("data", "cpus", "accelerators", "interconnect", "infrastructure"), \
    "bottleneck is %r" % d["bottleneck"]
assert isinstance(d["bottleneck_reason"], str) and d["bottleneck_reason"], "empty reason"
assert isinstance(d["memory"]["fits"], bool) and isinstance(d["power"]["throttled"], bool)
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, path + "." + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (path, i))
    elif isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool)):
        assert math.isfinite(v), path + " is not finite"
    elif v is None:
        raise AssertionError(path + " is null")
walk(d, "")
for k in ["step_time_s", "tokens_per_s", "samples_per_s"]:
    assert d[k] > 0, k + " is not positive"
assert 0 < d["mfu"] <= 1 and 0 < d["hfu"] <= 1, "mfu/hfu out of (0, 1]"
# hfu counts executed FLOPs (causal blocks skipped); mfu is bounded by hfu
# in its own convention (issue 20).
assert d["mfu"] <= d["hfu_model_convention"] + 1e-12, "mfu above hfu_model_convention"
assert d["hfu"] <= d["achieved_fraction"] + 1e-12, "hfu above the executed rate"
assert 0 <= d["reliability"]["goodput"] <= 1, "goodput out of [0, 1]"
'
for p in scenarios/presets/*.yaml; do
    n=$(basename "$p" .yaml)
    if run "eval-text/$n" 0 eval "$p"; then
        if grep -q "bottleneck:" "$out"; then
            pass "eval-text/$n"
        else
            fail "eval-text/$n" "no 'bottleneck:' line"
        fi
    fi
    if run "eval-json/$n" 0 eval "$p" --format json; then
        # (json.load in the check fails on anything but JSON)
        py "eval-json/$n" "$contract"
    fi
    if run "eval-csv/$n" 0 eval "$p" --format csv; then
        py "eval-csv/$n" '
import sys, csv
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) == 2, "%d lines instead of header + 1 row" % len(rows)
assert len(rows[0]) == len(rows[1]), "header has %d columns, row %d" % (len(rows[0]), len(rows[1]))
h = rows[0]
for k in ["step_time_s", "tokens_per_s", "bottleneck", "memory.fits"]:
    assert k in h, "no column " + k
assert float(rows[1][h.index("step_time_s")]) > 0
'
    fi
done
# Presets by name and with the = form of options.
if run eval-preset-name 0 eval gpt3-175b-a100 --format=json; then
    py eval-preset-name "$contract"
fi
if run eval-missing-file 2 eval tests/no-such-setup.yaml; then
    if grep -q "tests/no-such-setup.yaml" "$err" && [ ! -s "$out" ]; then
        pass eval-missing-file
    else
        fail eval-missing-file "the message does not name the file: $(head -c 200 "$err")"
    fi
fi
if run eval-missing-preset 2 eval no-such-preset; then
    grep -q "no-such-preset" "$err" && pass eval-missing-preset ||
        fail eval-missing-preset "$(head -c 200 "$err")"
fi
if run eval-bad-setup 2 eval tests/setups/bad/ref-unknown-accelerator.yaml; then
    if grep -q "^tests/setups/bad/ref-unknown-accelerator.yaml:[0-9]*:[0-9]*: " "$err" && [ ! -s "$out" ]; then
        pass eval-bad-setup
    else
        fail eval-bad-setup "$(head -c 200 "$err")"
    fi
fi

# ---- collective ----------------------------------------------------------------
if run collective-json 0 collective --op all-reduce --size 1GiB --devices 8 --link nvlink4 --format json; then
    py collective-json '
import sys, json
rows = json.load(open(sys.argv[1]))
assert isinstance(rows, list) and rows, "not a list of rows"
n = 8
keys = {"algorithm", "size_bytes", "time_s", "algbw_gbs", "busbw_gbs"}
by_algo = {}
for r in rows:
    assert set(r) >= keys, "row keys: %s" % sorted(r)
    by_algo.setdefault(r["algorithm"], []).append(r)
    assert r["time_s"] > 0, "time_s not positive"
    want = r["algbw_gbs"] * 2 * (n - 1) / n
    assert abs(r["busbw_gbs"] - want) <= 1e-6 * max(1.0, want), \
        "busbw %g != algbw*2(n-1)/n = %g" % (r["busbw_gbs"], want)
    assert abs(r["algbw_gbs"] - r["size_bytes"] / r["time_s"] / 1e9) <= 1e-6 * r["algbw_gbs"], \
        "algbw is not size/time"
assert len(by_algo) >= 2, "algorithms: %s" % list(by_algo)
for a, rs in by_algo.items():
    sizes = [r["size_bytes"] for r in rs]
    assert sizes[0] == 8, a + " starts at %g" % sizes[0]
    assert all(b == 2 * s for s, b in zip(sizes, sizes[1:])), a + " sizes do not double"
    assert sizes[-1] == 2 ** 30, a + " ends at %g, not 1 GiB" % sizes[-1]
    t = [r["time_s"] for r in rs]
    assert all(y >= x for x, y in zip(t, t[1:])), a + " time falls as size grows"
'
fi
if run collective-csv 0 collective --op all-gather --size 1MiB --devices 16 --link ib-ndr --format csv; then
    py collective-csv '
import sys, csv
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["algorithm", "size_bytes", "time_s", "algbw_gbs", "busbw_gbs"], rows[0]
assert len(rows) > 2 and all(len(r) == 5 for r in rows)
'
fi
if run collective-text 0 collective --op broadcast --size 64MB --devices 4 --link pcie5-x16; then
    grep -q "broadcast" "$out" && pass collective-text || fail collective-text "no title"
fi
if run collective-setup 0 collective --op reduce-scatter --size 1GiB --devices 64 --setup default; then
    pass collective-setup
fi
for bad in "--size lots" "--size -5" "--size 0" "--size 1XB" "--devices 1" "--devices eight" \
    "--devices 8.5" "--op all-to-one" "--op" "--link nvlnk4"; do
    n="collective-bad$(echo "$bad" | tr ' ' '_')"
    # shellcheck disable=SC2086
    if run "$n" 2 collective --devices 8 --size 1MiB --link nvlink4 $bad; then
        if [ -s "$err" ] && [ ! -s "$out" ]; then
            pass "$n"
        else
            fail "$n" "expected a message on stderr only"
        fi
    fi
done
if run collective-did-you-mean 2 collective --link nvlnk4; then
    grep -q "did you mean 'nvlink4'" "$err" && pass collective-did-you-mean ||
        fail collective-did-you-mean "$(head -c 200 "$err")"
fi
run collective-setup-and-link 2 collective --setup default --link nvlink4 &&
    pass collective-setup-and-link

# ---- fields ----------------------------------------------------------------------
if run fields 0 fields; then
    missing=""
    for p in name cluster.nodes cluster.node.accelerator cluster.node.accelerators_per_node \
        cluster.node.cpu cluster.node.cpu_sockets cluster.node.host_ram_gb \
        cluster.node.intra_link cluster.node.host_link cluster.node.nic \
        cluster.node.nics_per_node cluster.node.local_storage cluster.storage \
        cluster.storage_bw_gbs facility.cooling facility.pue facility.nodes_per_rack \
        facility.electricity_usd_per_kwh facility.device_usd_per_hour model.kind \
        model.layers model.hidden model.heads model.seq_len model.vocab model.ffn_hidden \
        model.kv_heads model.mlp model.params model.flops_per_sample training.global_batch \
        training.micro_batch training.precision training.optimizer training.tensor_parallel \
        training.pipeline_parallel training.zero_stage training.recompute \
        training.sequence_parallel training.overlap_grad_sync training.tokens \
        data.sample_bytes data.preprocess_us_per_sample data.loader_workers_per_device \
        data.prefetch_batches data.cache_hit reliability.device_mtbf_h \
        reliability.node_mtbf_h reliability.checkpoint_interval_min reliability.restart_min; do
        grep -q "^$p " "$out" || missing="$missing $p"
    done
    [ -z "$missing" ] && pass fields-public-format || fail fields-public-format "missing:$missing"
    cp "$out" "$tmp/fields.txt"
    if run fields-json 0 fields --format json; then
        python3 -c '
import sys, json
d = json.load(open(sys.argv[1]))
for f in d["fields"]:
    print(f["path"])
' "$out" >"$tmp/paths" 2>"$tmp/jerr"
        if [ $? -ne 0 ]; then
            fail fields-json "not the expected JSON: $(head -c 200 "$tmp/jerr")"
        else
            missing=""
            while read -r p; do
                grep -q "^$p " "$tmp/fields.txt" || missing="$missing $p"
            done <"$tmp/paths"
            if [ -z "$missing" ] && [ "$(wc -l <"$tmp/paths")" -ge 50 ]; then
                pass fields-json
            else
                fail fields-json "text listing lacks:$missing ($(wc -l <"$tmp/paths") paths)"
            fi
        fi
    fi
fi
if run fields-csv 0 fields --format csv; then
    py fields-csv '
import sys, csv
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
assert h[0] == "path", h
assert all(len(r) == len(h) for r in rows), "inconsistent column count"
assert len(rows) > 50
'
fi

# ---- user catalogs -----------------------------------------------------------------
# A broken catalog file in --catalog DIR: file:line:col and exit 2.
mkdir -p "$tmp/broken"
printf 'accelerators:\n  - id: broken-gpu\n    mem_gb: [80\n' >"$tmp/broken/zz.yaml"
if run catalog-broken-yaml 2 catalog --catalog "$tmp/broken"; then
    if grep -q "^$tmp/broken/zz.yaml:[0-9]*:[0-9]*: " "$err"; then
        pass catalog-broken-yaml
    else
        fail catalog-broken-yaml "no file:line:col: $(head -c 200 "$err")"
    fi
fi
mkdir -p "$tmp/badkey"
printf 'accelerators:\n  - id: odd-gpu\n    name: Odd\n    source: none\n    memory_gb: 80\n' \
    >"$tmp/badkey/a.yaml"
if run catalog-unknown-key 2 eval default --catalog "$tmp/badkey"; then
    if grep -q "^$tmp/badkey/a.yaml:5:5: unknown key 'memory_gb'" "$err"; then
        pass catalog-unknown-key
    else
        fail catalog-unknown-key "expected $tmp/badkey/a.yaml:5:5: unknown key 'memory_gb': $(head -c 200 "$err")"
    fi
fi
printf 'acelerators: []\n' >"$tmp/badkey/a.yaml"
if run catalog-unknown-section 2 catalog --catalog "$tmp/badkey"; then
    if grep -q "^$tmp/badkey/a.yaml:1:1: .*did you mean 'accelerators'" "$err"; then
        pass catalog-unknown-section
    else
        fail catalog-unknown-section "$(head -c 200 "$err")"
    fi
fi
run catalog-missing-dir 2 catalog --catalog "$tmp/no-such-dir" && pass catalog-missing-dir

# An override of h100-sxm with half the memory changes eval (the default preset
# needs ~64 GB per device).
h100_40='accelerators:
  - id: h100-sxm
    name: H100 with 40 GB (test override)
    source: tests/cli/commands.sh
    kind: gpu
    mem_gb: 40
    mem_bw_gbs: 3350
    fp32_tflops: 67
    tf32_tflops: 494.5
    bf16_tflops: 989.5
    fp16_tflops: 989.5
    fp8_tflops: 1979
    int8_tops: 1979
    tdp_w: 700
    idle_w: 75
    link: nvlink4
    compute_units: 132
'
mkdir -p "$tmp/override" "$tmp/xdg/mlviz/catalog"
printf '%s' "$h100_40" >"$tmp/override/h100.yaml"
printf '%s' "$h100_40" >"$tmp/xdg/mlviz/catalog/h100.yaml"
mem_of() { # prints memory.capacity-relevant facts of an eval JSON
    python3 -c '
import sys, json
d = json.load(open(sys.argv[1]))
print(d["memory"]["fits"], d["step_time_s"])
' "$out"
}
if run eval-base 0 eval default --format json; then
    base=$(mem_of)
    if run catalog-override 0 eval default --format json --catalog "$tmp/override"; then
        over=$(mem_of)
        case "$base/$over" in
        True*/False*) pass catalog-override ;;
        *) fail catalog-override "eval did not change with a 40 GB h100-sxm: '$base' vs '$over'" ;;
        esac
    fi
    XDG_CONFIG_HOME="$tmp/xdg"
    if run catalog-xdg 0 eval default --format json; then
        xdg=$(mem_of)
        case "$base/$xdg" in
        True*/False*) pass catalog-xdg ;;
        *) fail catalog-xdg "XDG_CONFIG_HOME/mlviz/catalog was not read: '$base' vs '$xdg'" ;;
        esac
    fi
    XDG_CONFIG_HOME="$tmp/no-config"
fi
XDG_CONFIG_HOME="$tmp/xdg"
if run catalog-xdg-listing 0 catalog accelerators --format csv; then
    grep -q "test override" "$out" && pass catalog-xdg-listing ||
        fail catalog-xdg-listing "the override is not listed"
fi
XDG_CONFIG_HOME="$tmp/no-config"
# The catalog listing shows one h100-sxm, not two.
if run catalog-override-replaces 0 catalog accelerators --format csv --catalog "$tmp/override"; then
    n=$(grep -c "^accelerator,h100-sxm," "$out")
    [ "$n" -eq 1 ] && pass catalog-override-replaces ||
        fail catalog-override-replaces "$n rows for h100-sxm"
fi
# A broken file in the XDG catalog is reported too.
mkdir -p "$tmp/xdg-broken/mlviz/catalog"
printf 'links:\n  - {id: x, name: X, source: s, kind: warp, bw_gbs: 1, latency_us: 1}\n' \
    >"$tmp/xdg-broken/mlviz/catalog/l.yaml"
XDG_CONFIG_HOME="$tmp/xdg-broken"
if run catalog-xdg-broken 2 catalog links; then
    if grep -q "^$tmp/xdg-broken/mlviz/catalog/l.yaml:2:[0-9]*: .*got 'warp'" "$err"; then
        pass catalog-xdg-broken
    else
        fail catalog-xdg-broken "$(head -c 200 "$err")"
    fi
fi
XDG_CONFIG_HOME="$tmp/no-config"

# ---- check --format json|csv ---------------------------------------------------
if run check-json 0 check workstation --format json; then
    py check-json '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["valid"] is True, d
# One RTX 4090: "24GB" on the box, 24564 MiB in nvidia-smi = 25.76e9 bytes.
assert d["devices"] == 1 and abs(d["device_memory_gb"] - 24564 * 2**20 / 1e9) < 1e-3, d
assert d["host_ram_per_node_gb"] == 16, d
assert d["checks"]["host_ram_ok"] is False, "16 GB of RAM under a 24 GB GPU must fail the rule"
assert d["checks"]["memory_fits"] is True
'
fi
if run check-csv 0 check gpt3-175b-a100 --format csv; then
    py check-csv '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) == 2, rows
head, row = rows
assert len(head) == len(row), (len(head), len(row))
d = dict(zip(head, row))
assert d["devices"] == "1024" and d["nodes"] == "128", d
assert d["checks.host_ram_ok"] == "true", d
'
fi
run check-bad-format 2 check default --format yaml && pass check-bad-format

# ---- hardening: numbers and output ----------------------------------------------

# clean NAME: no nan, inf, -0 or raw escape byte in $out (every format).
clean() {
    py "$1" '
import re, sys
text = open(sys.argv[1], "rb").read()
assert b"\x1b" not in text and b"\x9b" not in text, "raw escape byte in output"
t = text.decode("utf-8", "replace")
bad = re.search(r"(?<![A-Za-z])(nan|inf)(?![A-Za-z])", t, re.I)
assert not bad, "non-finite number: ..." + t[max(0, bad.start() - 60):bad.end() + 20]
negzero = re.search(r"(?<![\w.])-0(\.0*)?(?![\d.])", t)
assert not negzero, "negative zero: ..." + t[max(0, negzero.start() - 60):negzero.end() + 20]
'
}

# 524,288 nodes x 1,024 devices x micro-batch 8: devices x micro-batch
# overflows an int (it divided by zero: SIGFPE, exit 136). Now a plain
# input error naming the batch.
cat >"$tmp/huge.yaml" <<'YAML'
name: huge
cluster:
  nodes: 524288
  node:
    accelerators_per_node: 1024
training:
  micro_batch: 8
  global_batch: 1000000000
YAML
# (A loader with tighter ranges may refuse another field first: any exit 2
# with a message will do; a signal never.)
for cmd in check eval sim; do
    if run "overflow-$cmd" 2 $cmd "$tmp/huge.yaml"; then
        [ -s "$err" ] && pass "overflow-$cmd" || fail "overflow-$cmd" "no message"
    fi
done
# From a Lua sweep the same overflow is an error pcall catches, not a crash.
cat >"$tmp/overflow.lua" <<'LUA'
local s = mlviz.load("default")
local ok, err = pcall(function()
  s:set("cluster.nodes", 524288)
  s:set("cluster.node.accelerators_per_node", 1024)
  s:set("training.micro_batch", 8)
  s:set("training.global_batch", 1000000000)
  return s:eval()
end)
print(ok, err)
LUA
if run overflow-lua 0 run "$tmp/overflow.lua"; then
    grep -q "^false" "$out" && pass overflow-lua ||
        fail overflow-lua "pcall did not report the error: $(head -c 200 "$out")"
fi
# The same cluster with a batch that divides: counts in 64 bits, finite report.
sed -e 's/  micro_batch: 8/  micro_batch: 8\n  tensor_parallel: 8\n  pipeline_parallel: 32/' \
    -e 's/global_batch: 1000000000/global_batch: 536870912/' "$tmp/huge.yaml" >"$tmp/huge-ok.yaml"
"$MLVIZ_BIN" eval "$tmp/huge-ok.yaml" --format json >"$out" 2>"$err"
case $? in
0) py overflow-valid-eval '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["layout"]["devices"] == 536870912, d["layout"]
assert d["layout"]["data_parallel"] == 2097152 and d["layout"]["micro_batches"] == 32, d["layout"]
' ;;
2) [ -s "$err" ] && pass overflow-valid-eval || fail overflow-valid-eval "exit 2 without a message" ;;
*) fail overflow-valid-eval "exit $?: $(head -c 200 "$err")" ;;
esac

# A denormal storage bandwidth: no inf%, no "step 0 us"; not runnable (or
# refused by the loader, naming the field).
printf 'name: denormal\ncluster:\n  storage_bw_gbs: 4.9e-324\n' >"$tmp/denormal.yaml"
for f in text json csv; do
    "$MLVIZ_BIN" eval "$tmp/denormal.yaml" --format $f >"$out" 2>"$err"
    rc=$?
    if [ $rc -eq 2 ]; then
        grep -q storage_bw_gbs "$err" && pass "denormal-$f" ||
            fail "denormal-$f" "refused without naming the field: $(head -c 200 "$err")"
    elif [ $rc -ne 0 ]; then
        fail "denormal-$f" "exit $rc: $(head -c 200 "$err")"
    elif [ $f = json ]; then
        py "denormal-$f" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["runnable"] is False, "a storage tier that delivers nothing cannot run"
assert d["step_time_s"] > 1e6, d["step_time_s"]
assert d["tokens_per_s"] < 1e-3, d["tokens_per_s"]
'
    else
        clean "denormal-$f"
    fi
done

# Escape sequences in a setup name never reach the terminal raw: the loader
# refuses control characters at their position (exit 2), and a message that
# echoes the bad input escapes it.
printf 'name: "evil \\e[2J\\e]0;pwned\\a \\x9b31m"\n' >"$tmp/evil.yaml"
for cmd in eval check sim; do
    if run "escape-$cmd" 2 $cmd "$tmp/evil.yaml"; then
        cp "$err" "$out"
        grep -q 'evil.yaml:1:' "$out" && clean "escape-$cmd" ||
            fail "escape-$cmd" "no position: $(head -c 200 "$out")"
    fi
done
# A setup argument that holds escapes is echoed escaped in the message.
if run escape-arg 2 eval "$(printf 'no\033[2J\033]0;pwned\007such')"; then
    cp "$err" "$out"
    grep -q 'no' "$out" && clean escape-arg || fail escape-arg "empty message"
fi
# Bytes that are not UTF-8 (Latin-1 in a setup name): U+FFFD in JSON.
printf 'name: "caf\\xe9"\n' >"$tmp/latin1.yaml"
if "$MLVIZ_BIN" eval "$tmp/latin1.yaml" --format json >"$out" 2>"$err"; then
    py json-invalid-utf8 '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
assert d["name"] in ("caf\ufffd", "caf\u00e9"), repr(d["name"])
'
else
    pass json-invalid-utf8 # the loader refused the bytes: also fine
fi

# A user catalog whose strings hold quotes, a comma and edge spaces (the
# loader refuses control characters): the CSV parses back to the same values.
mkdir -p "$tmp/oddcat"
cat >"$tmp/oddcat/links.yaml" <<'YAML'
links:
  - id: odd-link
    name: "Odd, \"quoted\" link"
    source: " padded "
    kind: pcie
    bw_gbs: 0.001
    latency_us: 1
    nccl_efficiency: 0.8
    power_w: 0
YAML
if run catalog-odd-csv 0 catalog links --format csv --catalog "$tmp/oddcat"; then
    py catalog-odd-csv '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
odd = [dict(zip(head, r)) for r in rows[1:] if len(r) == len(head) and r[1] == "odd-link"]
assert odd, "odd-link row missing or split: %r" % rows[-3:]
assert odd[0]["name"] == "Odd, \"quoted\" link", repr(odd[0]["name"])
assert odd[0]["source"] == " padded ", repr(odd[0]["source"])
assert all(len(r) == len(head) for r in rows if r), "ragged rows"
'
fi
if run catalog-odd-text 0 catalog links --catalog "$tmp/oddcat"; then
    clean catalog-odd-text
fi
# A link at the catalog's floor (0.001 GB/s; below it the loader refuses the
# file): timed, or refused, without inf or 300-digit numbers.
"$MLVIZ_BIN" collective --devices 8 --size 1MiB --link odd-link --catalog "$tmp/oddcat" >"$out" 2>"$err"
rc=$?
if [ $rc -eq 2 ] && [ -s "$err" ] && [ ! -s "$out" ]; then
    cat "$err" >"$out"
    clean collective-tiny-link
elif [ $rc -eq 0 ]; then
    clean collective-tiny-link
else
    fail collective-tiny-link "exit $rc: $(head -c 200 "$err")"
fi

# Integer-valued numbers print exactly (no 1e+06) in fields CSV; every row
# has the header's width.
if run fields-csv-exact 0 fields --format csv; then
    py fields-csv-exact '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
assert all(len(r) == len(head) for r in rows), "ragged rows"
d = {r[0]: dict(zip(head, r)) for r in rows[1:]}
assert d["cluster.nodes"]["max"] == "100000", d["cluster.nodes"]
assert "e+" not in d["training.global_batch"]["max"], d["training.global_batch"]
'
fi

# Every option value error is exit 2 with a message that names the option.
optcheck() { # NAME OPTION ARGS...
    n=$1 opt=$2
    shift 2
    if run "$n" 2 "$@"; then
        grep -q -- "$opt" "$err" && pass "$n" || fail "$n" "message does not name $opt: $(head -c 200 "$err")"
    fi
}
for bad in "" "-8" "+8" " 8" "8x" "nan" "1e3" "99999999999999999999" "1"; do
    optcheck "collective-devices-'$bad'" --devices collective --devices "$bad" --size 1MiB --link nvlink4
done
for bad in "" "nan" "-1" "1e400" "12 parsecs"; do
    optcheck "collective-size-'$bad'" --size collective --devices 8 --size "$bad" --link nvlink4
done
optcheck collective-op-empty --op collective --op "" --devices 8
optcheck collective-link-empty --link collective --link "" --devices 8
optcheck collective-setup-empty --setup collective --setup "" --devices 8
for cmd in "eval default" "check default" "catalog" "fields"; do
    first=${cmd%% *}
    optcheck "$first-format-empty" --format $cmd --format ""
    optcheck "$first-catalog-empty" --catalog $cmd --catalog ""
done
optcheck eval-format-missing --format eval default --format

pycheck_all
exit 0
