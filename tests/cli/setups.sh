#!/bin/sh
# Strict setup loading through `mlviz check`.
#
#  - every tests/setups/bad/*.yaml names its expected message on line 1
#    ("# expect: SUBSTRING") and position on line 2 ("# at: LINE:COL");
#    `mlviz check FILE` must exit with exactly 2 (no crash), print nothing
#    on stdout, and print "FILE:LINE:COL: ..." containing SUBSTRING on stderr;
#  - every tests/setups/good/*.yaml and every preset passes (exit 0) and
#    prints the sanity checks; the workstation preset warns about host RAM.
#
# Run from the repository root. MLVIZ_BIN defaults to ./mlviz.
# Prints "PASS name" or "FAIL name: why" per check.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
LC_ALL=C
export LC_ALL

if [ ! -x "$MLVIZ_BIN" ]; then
    echo "FAIL setups: no executable at $MLVIZ_BIN (build first or set MLVIZ_BIN)"
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out"
err="$tmp/err"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

nbad=0
for f in tests/setups/bad/*.yaml; do
    [ -f "$f" ] || continue
    nbad=$((nbad + 1))
    name="bad/$(basename "$f" .yaml)"
    expect=$(sed -n '1s/^# expect: //p' "$f")
    at=$(sed -n '2s/^# at: //p' "$f")
    if [ -z "$expect" ] || [ -z "$at" ]; then
        fail "$name" "line 1 must be '# expect: MESSAGE' and line 2 '# at: LINE:COL'"
        continue
    fi
    "$MLVIZ_BIN" check "$f" >"$out" 2>"$err"
    rc=$?
    first=$(head -n 1 "$err")
    if [ $rc -ne 2 ]; then
        if [ $rc -gt 128 ]; then
            fail "$name" "crashed with signal $((rc - 128)): $(head -c 300 "$err")"
        else
            fail "$name" "exit status $rc, expected 2 (stderr: $(head -c 200 "$err"))"
        fi
        continue
    fi
    if [ -s "$out" ]; then
        fail "$name" "printed on stdout: $(head -c 120 "$out")"
        continue
    fi
    case "$first" in
    "$f:$at: "*) ;;
    *)
        fail "$name" "expected '$f:$at: ...', got '$first'"
        continue
        ;;
    esac
    if ! printf '%s\n' "$first" | grep -qF -- "$expect"; then
        fail "$name" "message lacks '$expect': '$first'"
        continue
    fi
    if [ "$(wc -l <"$err")" -ne 1 ]; then
        fail "$name" "expected one line on stderr, got $(wc -l <"$err"): $(head -c 300 "$err")"
        continue
    fi
    pass "$name"
done
if [ $nbad -ge 40 ]; then
    pass "bad-setup-count ($nbad files)"
else
    fail "bad-setup-count" "only $nbad files in tests/setups/bad (want at least 40)"
fi

# Valid setups: exit 0, the resolved cluster and the three sanity checks.
check_good() {
    name=$1
    f=$2
    "$MLVIZ_BIN" check "$f" >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$name" "exit status $rc, expected 0: $(head -c 300 "$err")"
        return
    fi
    for what in "valid" "host RAM" "PCIe lanes" "rack power"; do
        if ! grep -qF "$what" "$out"; then
            fail "$name" "output lacks '$what'"
            return
        fi
    done
    if [ -s "$err" ]; then
        fail "$name" "printed on stderr: $(head -c 200 "$err")"
        return
    fi
    pass "$name"
}

ngood=0
for f in tests/setups/good/*.yaml; do
    [ -f "$f" ] || continue
    ngood=$((ngood + 1))
    check_good "good/$(basename "$f" .yaml)" "$f"
done
[ $ngood -gt 0 ] && pass "good-setup-count ($ngood files)" ||
    fail "good-setup-count" "no files in tests/setups/good"

npre=0
for f in scenarios/presets/*.yaml; do
    [ -f "$f" ] || continue
    npre=$((npre + 1))
    check_good "preset/$(basename "$f" .yaml)" "$f"
done
[ $npre -ge 5 ] && pass "preset-count ($npre presets)" ||
    fail "preset-count" "only $npre presets in scenarios/presets (want at least 5)"

# A preset may be named without its path.
if "$MLVIZ_BIN" check default >"$out" 2>"$err" && grep -qF "host RAM" "$out"; then
    pass "preset-by-name"
else
    fail "preset-by-name" "'mlviz check default' failed: $(head -c 200 "$err")"
fi

# The workstation (64 GB host RAM, one 80 GB device) breaks the host-RAM rule.
"$MLVIZ_BIN" check scenarios/presets/workstation.yaml >"$out" 2>"$err"
if grep 'host RAM' "$out" | grep -q 'WARN'; then
    pass "workstation-host-ram-warning"
else
    fail "workstation-host-ram-warning" "no WARN line for host RAM: $(grep 'host RAM' "$out")"
fi
# ...and the default preset (2 TB for 8 x 80 GB) does not.
"$MLVIZ_BIN" check scenarios/presets/default.yaml >"$out" 2>"$err"
if grep 'host RAM' "$out" | grep -q 'WARN'; then
    fail "default-host-ram-ok" "unexpected host RAM warning: $(grep 'host RAM' "$out")"
else
    pass "default-host-ram-ok"
fi

# A missing file: exit 2 and the file is named.
"$MLVIZ_BIN" check tests/setups/no-such-file.yaml >"$out" 2>"$err"
rc=$?
if [ $rc -eq 2 ] && grep -qF "tests/setups/no-such-file.yaml" "$err" && [ ! -s "$out" ]; then
    pass "check-missing-file"
else
    fail "check-missing-file" "exit $rc, stderr: $(head -c 200 "$err")"
fi
exit 0
