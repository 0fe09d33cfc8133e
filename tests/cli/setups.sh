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
. "$(dirname "$0")/../hang_guard.sh"
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out"
err="$tmp/err"

pass() { printf 'PASS %s\n' "$1"; }
fail() { printf 'FAIL %s: %s\n' "$1" "$2"; }

# check_bad NAME FILE SHOWN CMD...: FILE holds "# expect:" and "# at:" on
# lines 1-2; CMD must exit with exactly 2 within seconds (hang_guard turns a
# hang into a failure), print nothing on stdout and one line on stderr
# starting "SHOWN:LINE:COL: " and containing the expected message.
check_bad() {
    name=$1
    f=$2
    shown=$3
    shift 3
    # Shell built-ins only (read, case): this runs for about 150 files.
    { IFS= read -r expect; IFS= read -r at; } <"$f"
    case $expect in "# expect: "?*) expect=${expect#"# expect: "} ;; *) expect="" ;; esac
    case $at in "# at: "?*) at=${at#"# at: "} ;; *) at="" ;; esac
    if [ -z "$expect" ] || [ -z "$at" ]; then
        fail "$name" "line 1 must be '# expect: MESSAGE' and line 2 '# at: LINE:COL'"
        return
    fi
    hang_guard 20 "$@" >"$out" 2>"$err"
    rc=$?
    first="" lines=0
    while IFS= read -r line; do
        [ $lines -eq 0 ] && first=$line
        lines=$((lines + 1))
    done <"$err"
    if [ $rc -ne 2 ]; then
        if [ $rc -eq 124 ]; then
            fail "$name" "still running after 20 s of CPU (or of wall time x load)"
        elif [ $rc -gt 128 ]; then
            fail "$name" "crashed with signal $((rc - 128)): $(head -c 300 "$err")"
        else
            fail "$name" "exit status $rc, expected 2 (stderr: $(head -c 200 "$err"))"
        fi
        return
    fi
    if [ -s "$out" ]; then
        fail "$name" "printed on stdout: $(head -c 120 "$out")"
        return
    fi
    case "$first" in
    "$shown:$at: "*) ;;
    *)
        fail "$name" "expected '$shown:$at: ...', got '$first'"
        return
        ;;
    esac
    case "$first" in
    *"$expect"*) ;;
    *)
        fail "$name" "message lacks '$expect': '$first'"
        return
        ;;
    esac
    if [ $lines -ne 1 ]; then
        fail "$name" "expected one line on stderr, got $lines: $(head -c 300 "$err")"
        return
    fi
    pass "$name"
}

nbad=0
for f in tests/setups/bad/*.yaml; do
    [ -f "$f" ] || continue
    nbad=$((nbad + 1))
    check_bad "bad/$(basename "$f" .yaml)" "$f" "$f" "$MLVIZ_BIN" check "$f"
done
if [ $nbad -ge 40 ]; then
    pass "bad-setup-count ($nbad files)"
else
    fail "bad-setup-count" "only $nbad files in tests/setups/bad (want at least 40)"
fi

# Malformed catalog files: each is the only file of a --catalog DIR (loaded
# after the shipped catalog) and must stop `mlviz check` with exit 2.
ncat=0
for f in tests/setups/bad-catalog/*.yaml; do
    [ -f "$f" ] || continue
    ncat=$((ncat + 1))
    n=$(basename "$f" .yaml)
    mkdir -p "$tmp/cat-$n"
    cp "$f" "$tmp/cat-$n/"
    check_bad "bad-catalog/$n" "$f" "$tmp/cat-$n/$n.yaml" \
        "$MLVIZ_BIN" check default --catalog "$tmp/cat-$n"
done

# Malformed events files (the older tests/setups/events/bad-*.yaml are
# checked by tests/cli/sim.sh and tests/unit/engine/test_sim.c).
nev=0
for f in tests/setups/bad-events/*.yaml; do
    [ -f "$f" ] || continue
    nev=$((nev + 1))
    check_bad "bad-events/$(basename "$f" .yaml)" "$f" "$f" \
        "$MLVIZ_BIN" sim default --duration 1h --events "$f"
done
nold=$(ls tests/setups/events/bad-*.yaml 2>/dev/null | wc -l)
total=$((nbad + ncat + nev + nold))
if [ $total -ge 120 ] && [ $ncat -ge 10 ] && [ $nev -ge 10 ]; then
    pass "malformed-input-count ($nbad setups, $ncat catalog files, $((nev + nold)) events files)"
else
    fail "malformed-input-count" "$total malformed files ($ncat catalog, $((nev + nold)) events); want 120, with 10 catalog and 10 events"
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
# expect_exit NAME STATUS TEXT CMD...: CMD exits with STATUS within 20 s
# (timeout turns a hang or a quadratic loader into a failure, not a stuck
# suite) and its stderr holds TEXT (stdout when STATUS is 0).
expect_exit() {
    name=$1
    want=$2
    text=$3
    shift 3
    hang_guard 20 "$@" >"$out" 2>"$err"
    rc=$?
    where=$err
    [ "$want" -eq 0 ] && where=$out
    if [ $rc -eq "$want" ] && grep -qF -- "$text" "$where"; then
        pass "$name"
    elif [ $rc -eq 124 ]; then
        fail "$name" "still running after 20 s of CPU (or of wall time x load)"
    else
        fail "$name" "exit $rc (want $want), stderr: $(head -c 200 "$err")"
    fi
}

# Special files: a FIFO nobody writes to, devices and a directory are refused
# at once (exit 2, "PATH: is a FIFO ..., not a regular file"), never read.
mkfifo "$tmp/fifo.yaml"
mkdir -p "$tmp/dir.yaml" "$tmp/fifocat" "$tmp/dircat/sub.yaml"
mkfifo "$tmp/fifocat/x.yaml"
regular=", not a regular file"
expect_exit special-setup-fifo 2 "$tmp/fifo.yaml: is a FIFO (named pipe)$regular" \
    "$MLVIZ_BIN" check "$tmp/fifo.yaml"
expect_exit special-setup-dev-zero 2 "/dev/zero: is a character device$regular" \
    "$MLVIZ_BIN" check /dev/zero
expect_exit special-setup-dev-null 2 "/dev/null: is a character device$regular" \
    "$MLVIZ_BIN" check /dev/null
expect_exit special-setup-directory 2 "$tmp/dir.yaml: is a directory$regular" \
    "$MLVIZ_BIN" check "$tmp/dir.yaml"
expect_exit special-events-fifo 2 "$tmp/fifo.yaml: is a FIFO (named pipe)$regular" \
    "$MLVIZ_BIN" sim default --duration 1h --events "$tmp/fifo.yaml"
expect_exit special-events-dev-zero 2 "/dev/zero: is a character device$regular" \
    "$MLVIZ_BIN" sim default --duration 1h --events /dev/zero
expect_exit special-catalog-fifo 2 "$tmp/fifocat/x.yaml: is a FIFO (named pipe)$regular" \
    "$MLVIZ_BIN" check default --catalog "$tmp/fifocat"
expect_exit special-catalog-directory 2 "$tmp/dircat/sub.yaml: is a directory$regular" \
    "$MLVIZ_BIN" check default --catalog "$tmp/dircat"

# Size cap: a (sparse) file over 64 MiB is refused before it is read.
if truncate -s 65M "$tmp/huge.yaml" 2>/dev/null; then
    expect_exit size-cap-64mib 2 "$tmp/huge.yaml: larger than 64 MiB" \
        "$MLVIZ_BIN" check "$tmp/huge.yaml"
fi
rm -f "$tmp/huge.yaml"

# Linear loading: a setup with 120,000 keys (1.7 MB) and 100,000 set events
# (6 MB) load in well under a second; the quadratic loaders took about a
# minute and 40 s. Not a timing test: the 20 s limit only catches the
# quadratic behaviour.
many_keys='BEGIN { print "name: many keys"; for (i = 0; i < 120000; i++) printf "k%06d: %d\n", i, i }'
awk "$many_keys" >"$tmp/keys.yaml"
expect_exit load-120k-keys 2 "$tmp/keys.yaml:2:1: unknown key 'k000000'" \
    "$MLVIZ_BIN" check "$tmp/keys.yaml"
echo "k060000: again" >>"$tmp/keys.yaml"
expect_exit duplicate-among-120k-keys 2 \
    "$tmp/keys.yaml:120002:1: key 'k060000' appears twice (first on line 60002)" \
    "$MLVIZ_BIN" check "$tmp/keys.yaml"
awk 'BEGIN { for (i = 1; i <= 100000; i++)
             printf "- {at: %ds, event: set, path: training.micro_batch, value: 1}\n", i }' \
    >"$tmp/events.yaml"
expect_exit load-100k-events 0 "100000 events" \
    "$MLVIZ_BIN" sim default --duration 1h --events "$tmp/events.yaml"
rm -f "$tmp/keys.yaml" "$tmp/events.yaml"

# `mlviz fields` shows each count's ceiling exactly (the model's products
# stay exact below them) and each capacity's floor.
expect_exit fields-exact-ranges 0 "1..1048576" "$MLVIZ_BIN" fields
for want in "training.global_batch .* 1\.\.16777216 " "cluster.node.host_ram_gb .* 0\.001\.\.1000000 "; do
    if grep -q -- "^$want" "$out"; then
        pass "fields-range ${want%% *}"
    else
        fail "fields-range ${want%% *}" "no line matching '$want'"
    fi
done
exit 0
