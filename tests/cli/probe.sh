#!/bin/sh
# mlviz probe on fixture machines: /proc and /sys trees under tests/probe/
# (MLVIZ_PROC_ROOT, MLVIZ_SYS_ROOT) and stub GPU tools on PATH, never the
# test machine's hardware. Prints PASS/FAIL lines.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) bin=$MLVIZ_BIN ;; *) bin=$(pwd)/$MLVIZ_BIN ;; esac
top=$(pwd)
fx=$top/tests/probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# probe MACHINE TOOLS ARGS...: runs with a fixture machine and only the
# stub tools of tests/probe/bin-TOOLS on PATH.
probe() {
    m=$1 t=$2
    shift 2
    env PATH="$fx/bin-$t" MLVIZ_PROC_ROOT="$fx/$m/proc" MLVIZ_SYS_ROOT="$fx/$m/sys" \
        XDG_CONFIG_HOME="$tmp/xdg" MLVIZ_DATA="$top" "$bin" probe "$@"
}
check() { env XDG_CONFIG_HOME="$tmp/xdg" MLVIZ_DATA="$top" "$bin" check "$@"; }

# A DGX-H100-like server: 2 x Xeon 8480+, 8 x H100 80GB HBM3, NVMe gen 4, 400G.
probe server h100 >"$tmp/server.yaml" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && pass "probe server exits 0" || fail "probe server exits 0" "rc=$rc $(cat "$tmp/err")"
for want in 'accelerator: "h100-sxm"' 'accelerators_per_node: 8' 'cpu: "xeon-8480"' \
            'cpu_sockets: 2' 'host_ram_gb: 2163.71' 'host_link: "pcie5-x16"' 'nic: "eth-400g"' \
            'local_storage: "nvme-gen4"' 'precision: bf16'; do
    grep -qF "$want" "$tmp/server.yaml" && pass "server setup has $want" ||
        fail "server setup has $want" "$(grep -F "$(echo "$want" | cut -d: -f1):" "$tmp/server.yaml" | head -n 1)"
done
grep -q '^#   cpu .*4 cores, 2164 GB RAM -> xeon-8480$' "$tmp/server.yaml" &&
    pass "server comment: exact cpu match" || fail "server comment: exact cpu match" "$(grep '#   cpu' "$tmp/server.yaml")"
out=$(check "$tmp/server.yaml" 2>&1) && echo "$out" | grep -q 'valid' &&
    echo "$out" | grep -q '8 x h100-sxm' && pass "probed server loads with mlviz check" ||
    fail "probed server loads with mlviz check" "$(echo "$out" | head -n 3)"

# A laptop with an RTX 4090 the catalog may lack: without --write the
# closest entry; with --write a catalog entry of its own.
probe laptop rtx >"$tmp/laptop.yaml" 2>"$tmp/err"
if grep -q 'RTX 4090.* -> [a-z0-9-]* (not in the catalog: closest entry' "$tmp/laptop.yaml" ||
   grep -q 'RTX 4090.* -> rtx-4090$' "$tmp/laptop.yaml"; then
    pass "rtx 4090: closest entry (or the exact one)"
else
    fail "rtx 4090: closest entry (or the exact one)" "$(grep RTX "$tmp/laptop.yaml")"
fi
check "$tmp/laptop.yaml" >/dev/null 2>&1 && pass "closest-entry setup loads" ||
    fail "closest-entry setup loads" "$(check "$tmp/laptop.yaml" 2>&1 | head -n 2)"
probe laptop rtx --write "$tmp/me.yaml" 2>"$tmp/err" >"$tmp/out"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/out" ] && grep -q "wrote $tmp/me.yaml" "$tmp/err" &&
    pass "--write writes the file, nothing on stdout" || fail "--write writes the file" "rc=$rc $(cat "$tmp/err")"
entries=$tmp/xdg/mlviz/catalog/probe.yaml
grep -q 'id: "probe-13th-core-i7-13700h"' "$entries" 2>/dev/null &&
    grep -q 'cores: 8' "$entries" && pass "catalog entry for the unknown CPU" ||
    fail "catalog entry for the unknown CPU" "$(head -n 5 "$entries" 2>&1)"
if grep -q 'accelerator: "rtx-4090"' "$tmp/me.yaml"; then
    pass "catalog entry for the unknown GPU (the catalog has it)"
elif grep -q 'name: "NVIDIA GeForce RTX 4090"' "$entries" && grep -q 'mem_gb: 25.757' "$entries" &&
     grep -q 'tdp_w: 450$' "$entries"; then
    pass "catalog entry for the unknown GPU"
else
    fail "catalog entry for the unknown GPU" "$(grep -A3 'RTX' "$entries" | head -n 4)"
fi
out=$(check "$tmp/me.yaml" 2>&1) && echo "$out" | grep -q 'valid' &&
    pass "written setup loads with mlviz check (new entries found)" ||
    fail "written setup loads with mlviz check" "$(echo "$out" | head -n 3)"
grep -q 'local_storage: "nvme' "$tmp/me.yaml" && grep -q 'SSD, 512 GB' "$tmp/me.yaml" &&
    pass "SATA SSD: closest local tier, removable drive skipped" ||
    fail "SATA SSD: closest local tier" "$(grep -i 'disk' "$tmp/me.yaml")"

# No GPU tool on PATH: a CPU-only setup; a failing tool is reported.
probe laptop none >"$tmp/cpu.yaml" 2>"$tmp/err"
grep -q '^#   accelerator  no GPU: 1 CPU socket' "$tmp/cpu.yaml" && grep -q 'precision: fp32' "$tmp/cpu.yaml" &&
    check "$tmp/cpu.yaml" >/dev/null 2>&1 && pass "CPU-only setup without GPUs" ||
    fail "CPU-only setup without GPUs" "$(grep accelerator "$tmp/cpu.yaml" | head -n 2)"
probe laptop broken >"$tmp/broken.yaml" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q 'nvidia-smi is on PATH but did not answer' "$tmp/err" &&
    grep -q 'no GPU' "$tmp/broken.yaml" && pass "failing nvidia-smi: said, CPU-only" ||
    fail "failing nvidia-smi" "rc=$rc $(cat "$tmp/err")"

# rocm-smi when nvidia-smi is absent.
probe server rocm >"$tmp/rocm.yaml" 2>"$tmp/err"
grep -q 'accelerator: "mi300x"' "$tmp/rocm.yaml" && grep -q 'accelerators_per_node: 2' "$tmp/rocm.yaml" &&
    pass "rocm-smi: 2 x mi300x" || fail "rocm-smi: 2 x mi300x" "$(grep accelerator "$tmp/rocm.yaml" | head -n 3)"

# Hostile tool output: still a setup that loads, no control characters.
rm -rf "$tmp/xdg"
probe server hostile --write "$tmp/evil.yaml" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && check "$tmp/evil.yaml" >/dev/null 2>&1 &&
   ! grep -q "$(printf '\033')" "$tmp/evil.yaml" "$tmp/xdg/mlviz/catalog/probe.yaml"; then
    pass "hostile nvidia-smi output: loads, no control characters"
else
    fail "hostile nvidia-smi output" "rc=$rc $(cat "$tmp/err") $(check "$tmp/evil.yaml" 2>&1 | head -n 2)"
fi

# The read test: bounded, into a scratch file that is removed.
mkdir "$tmp/disk"
probe laptop none --measure "$tmp/disk" >"$tmp/m.yaml" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^  storage_bw_gbs: [0-9]' "$tmp/m.yaml" && [ -z "$(ls -A "$tmp/disk")" ] &&
    pass "--measure sets storage_bw_gbs and leaves nothing" ||
    fail "--measure" "rc=$rc $(cat "$tmp/err") $(ls -A "$tmp/disk")"

# Errors: exit status and the place named.
probe laptop none --measure "$tmp/nonexistent" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "$tmp/nonexistent" "$tmp/err" && pass "--measure into a missing directory: exit 1" ||
    fail "--measure into a missing directory" "rc=$rc $(cat "$tmp/err")"
env MLVIZ_PROC_ROOT="$tmp/noproc" MLVIZ_SYS_ROOT="$tmp/nosys" PATH="$fx/bin-none" "$bin" probe >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "$tmp/noproc/cpuinfo" "$tmp/err" && pass "unreadable cpuinfo: exit 1 naming it" ||
    fail "unreadable cpuinfo" "rc=$rc $(cat "$tmp/err")"
probe laptop none --bogus >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown argument '--bogus'" "$tmp/err" && pass "unknown option: exit 2" ||
    fail "unknown option: exit 2" "rc=$rc $(cat "$tmp/err")"

# A card power-capped to 40 W: its own entry keeps idle below that.
rm -rf "$tmp/xdg"
probe laptop laptopgpu --write "$tmp/lg.yaml" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && check "$tmp/lg.yaml" >/dev/null 2>&1 && grep -q 'tdp_w: 40$' "$tmp/xdg/mlviz/catalog/probe.yaml" &&
    pass "power-capped GPU: entry loads (idle below its 40 W limit)" ||
    fail "power-capped GPU" "rc=$rc $(cat "$tmp/err")"
