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
[ $rc -eq 0 ] && grep -q 'nvidia-smi is on PATH but failed (exit status 9)' "$tmp/err" &&
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
[ $rc -eq 2 ] && grep -q "unknown option '--bogus'" "$tmp/err" && pass "unknown option: exit 2" ||
    fail "unknown option: exit 2" "rc=$rc $(cat "$tmp/err")"

# A card power-capped to 40 W: its own entry keeps idle below that.
rm -rf "$tmp/xdg"
probe laptop laptopgpu --write "$tmp/lg.yaml" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && check "$tmp/lg.yaml" >/dev/null 2>&1 && grep -q 'tdp_w: 40$' "$tmp/xdg/mlviz/catalog/probe.yaml" &&
    pass "power-capped GPU: entry loads (idle below its 40 W limit)" ||
    fail "power-capped GPU" "rc=$rc $(cat "$tmp/err")"

# ---- GPU tools that hang, linger or answer nonsense --------------------------------

# gone PIDS...: true when none of the processes is alive (a zombie is dead).
gone() {
    for p in "$@"; do
        st=$(ps -o stat= -p "$p" 2>/dev/null)
        case $st in "" | Z*) ;; *) return 1 ;; esac
    done
    return 0
}

# A wedged nvidia-smi (output closed, never exits, a child beside it): the
# deadline ends it and its child, the machine is described without GPUs.
: >"$tmp/pids"
MLVIZ_PROBE_TIMEOUT_MS=500 MLVIZ_STUB_PIDS="$tmp/pids" probe laptop hang >"$tmp/hang.yaml" 2>"$tmp/err"; rc=$?
pids=$(cat "$tmp/pids")
if [ $rc -eq 0 ] && grep -q 'nvidia-smi is on PATH but did not finish within 500 ms' "$tmp/err" &&
   grep -q 'no GPU' "$tmp/hang.yaml" && [ -n "$pids" ] && gone $pids; then
    pass "hung nvidia-smi: killed at the deadline with its child, said, CPU-only"
else
    fail "hung nvidia-smi" "rc=$rc pids='$pids' $(ps -o pid=,stat=,args= -p "$(echo $pids | tr ' ' ,)" 2>/dev/null) $(cat "$tmp/err")"
fi
# A tool that answers and exits but leaves a child holding its output: the
# answer is used, the child killed, the user told.
: >"$tmp/pids"
MLVIZ_STUB_PIDS="$tmp/pids" probe laptop orphan >"$tmp/orphan.yaml" 2>"$tmp/err"; rc=$?
pids=$(cat "$tmp/pids")
if [ $rc -eq 0 ] && grep -q 'nvidia-smi exited but left processes running' "$tmp/err" &&
   grep -q 'accelerator: "h100-sxm"' "$tmp/orphan.yaml" && [ -n "$pids" ] && gone $pids; then
    pass "lingering child of nvidia-smi: killed, answer used"
else
    fail "lingering child of nvidia-smi" "rc=$rc pids='$pids' $(cat "$tmp/err")"
fi
# SIGTERM while the tool hangs: mlviz ends by the signal and takes the
# tool's process group with it.
: >"$tmp/pids"
# probe_bg MACHINE TOOLS ARGS...: probe in the background, $! its pid (env
# and python exec it). A shell without a terminal starts background jobs
# with SIGINT ignored; python puts the default action back, as a terminal's
# Ctrl-C would find it.
py=$(python3 -c 'import sys; print(sys.executable)')
probe_bg() {
    m=$1 t=$2
    shift 2
    env PATH="$fx/bin-$t" MLVIZ_PROC_ROOT="$fx/$m/proc" MLVIZ_SYS_ROOT="$fx/$m/sys" \
        MLVIZ_STUB_PIDS="$tmp/pids" XDG_CONFIG_HOME="$tmp/xdg" MLVIZ_DATA="$top" \
        "$py" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
        "$bin" probe "$@" >/dev/null 2>&1 &
}
probe_bg laptop hang
mpid=$!
i=0
while [ $i -lt 500 ] && [ "$(wc -w <"$tmp/pids")" -lt 2 ]; do sleep 0.02; i=$((i + 1)); done
kill -TERM $mpid 2>/dev/null
{ wait $mpid; } 2>/dev/null; rc=$?
pids=$(cat "$tmp/pids")
[ $rc -eq 143 ] && [ -n "$pids" ] && gone $pids && pass "SIGTERM during a hung tool: the tool's group is gone" ||
    fail "SIGTERM during a hung tool" "rc=$rc pids='$pids'"

# Ctrl-C during --measure (once mlviz holds a file in the directory): the
# scratch file has no name while it is open, so the directory stays empty.
mkdir "$tmp/disk2"
caught=no
for try in 1 2 3; do
    probe_bg laptop none --measure "$tmp/disk2"
    mpid=$!
    i=0
    while [ $i -lt 2000 ] && kill -0 $mpid 2>/dev/null; do
        if ls -l /proc/$mpid/fd 2>/dev/null | grep -q "$tmp/disk2/"; then
            kill -INT $mpid && caught=yes
            break
        fi
        i=$((i + 1))
    done
    { wait $mpid; } 2>/dev/null; rc=$?
    [ $caught = yes ] && break
done
if [ $caught = no ]; then
    echo "SKIP SIGINT during --measure: every read test ended before the signal"
elif [ $rc -eq 130 ] && [ -z "$(ls -A "$tmp/disk2")" ]; then
    pass "SIGINT during --measure leaves the directory empty"
else
    fail "SIGINT during --measure" "rc=$rc left: $(ls -A "$tmp/disk2")"
fi

# What the messages say: a tool found but rejected is not "no GPU tool";
# nonsense numbers are named; an unparseable line is never a 0 GB GPU.
probe laptop none >"$tmp/none.yaml" 2>/dev/null
grep -q '^# No GPU tool found' "$tmp/none.yaml" && pass "no tool: 'No GPU tool found'" ||
    fail "no tool" "$(sed -n 2p "$tmp/none.yaml")"
probe laptop nonsense >"$tmp/ns.yaml" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && grep -q "rejected: line 1: memory.total 1e+300 MiB is not a GPU's memory" "$tmp/err" &&
   ! grep -q 'GPU-class' "$tmp/err" && grep -q '^# nvidia-smi was found, but its answer was not used' "$tmp/ns.yaml" &&
   ! grep -q 'No GPU tool found' "$tmp/ns.yaml" && grep -q 'no GPU:' "$tmp/ns.yaml"; then
    pass "nonsense numbers: named, tool said found, CPU-only"
else
    fail "nonsense numbers" "rc=$rc $(cat "$tmp/err") $(sed -n 2p "$tmp/ns.yaml")"
fi
probe laptop garbled >"$tmp/gb.yaml" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q 'nvidia-smi answered, but its output was rejected: line 1: not "name, memory.total' "$tmp/err" &&
    ! grep -q ' 0 GB, 0 W' "$tmp/gb.yaml" && grep -q 'no GPU:' "$tmp/gb.yaml" &&
    pass "unparseable lines: rejected, never a 0 GB GPU" ||
    fail "unparseable lines" "rc=$rc $(cat "$tmp/err") $(grep accelerator "$tmp/gb.yaml" | head -n 1)"
probe server hostile >"$tmp/hs.yaml" 2>"$tmp/err"
grep -q 'warning: nvidia-smi: 3 lines left out, the first: line 2' "$tmp/err" &&
    grep -q 'accelerators_per_node: 1$' "$tmp/hs.yaml" && ! grep -q ' 0 GB, 0 W' "$tmp/hs.yaml" &&
    pass "hostile output: the one real GPU line kept, the rest said" ||
    fail "hostile output lines" "$(cat "$tmp/err") $(grep '#   accel' "$tmp/hs.yaml")"

# ---- a cloud VM without GPUs ----------------------------------------------------------

# virtio disk (which the kernel calls rotational), no link speed, 2 vCPUs.
probe vm none >"$tmp/vm.yaml" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^#   disk  *vda, virtual disk (virtio), 275 GB -> cloud-block' "$tmp/vm.yaml" &&
    ! grep -q 'HDD' "$tmp/vm.yaml" && grep -q 'local_storage: "cloud-block"' "$tmp/vm.yaml" &&
    pass "virtio disk named as a virtual disk, not an HDD" ||
    fail "virtio disk" "rc=$rc $(grep '#   disk' "$tmp/vm.yaml") $(cat "$tmp/err")"
probe cloud none >"$tmp/cloud.yaml" 2>/dev/null
grep -q '^#   disk  *nvme0n1, virtual disk (NVMe over tcp)' "$tmp/cloud.yaml" &&
    pass "NVMe over a fabric named as a virtual disk" || fail "NVMe over tcp" "$(grep '#   disk' "$tmp/cloud.yaml")"
out=$(check "$tmp/vm.yaml" 2>&1); rc=$?
[ $rc -eq 0 ] && ! echo "$out" | grep -q 'WARN' && echo "$out" | grep -q 'skip  host RAM against device memory' &&
    echo "$out" | grep -q 'ok    PCIe lanes 20 available, 16 needed' &&
    pass "CPU-only VM: check has no GPU warning" || fail "CPU-only VM check" "$(echo "$out" | grep -E 'WARN|skip|PCIe')"
env XDG_CONFIG_HOME="$tmp/xdg" MLVIZ_DATA="$top" "$bin" eval "$tmp/vm.yaml" >"$tmp/vm.txt" 2>&1
env XDG_CONFIG_HOME="$tmp/xdg" MLVIZ_DATA="$top" "$bin" eval "$tmp/vm.yaml" --format json >"$tmp/vm.json" 2>&1
# Throughput, TFLOP/s and MFU agree: TFLOP/s over the peak is the HFU,
# model FLOPs per token times tokens/s over the peak is the MFU, and the
# text shows the TFLOP/s that JSON has (not a rounded 0).
if python3 - "$tmp/vm.json" "$tmp/vm.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
peak, tf, mfu, hfu = d["peak_tflops"], d["tflops_per_device"], d["mfu"], d["hfu"]
assert tf > 0 and 0 < mfu <= hfu <= 1, (tf, mfu, hfu)
assert abs(tf / peak - hfu) < 1e-6 * hfu, (tf, peak, hfu)
shown = float(re.search(r"([0-9.]+) TFLOP/s per device", text).group(1))
assert shown > 0 and abs(shown - tf) <= 0.01, (shown, tf)
PY
then
    pass "CPU-only VM: eval's TFLOP/s, HFU and MFU agree (no 0 TFLOP/s)"
else
    fail "CPU-only VM eval figures" "$(grep TFLOP "$tmp/vm.txt")"
fi
# With --measure the measured rate is the one the model reads.
mkdir "$tmp/disk3"
probe vm none --measure "$tmp/disk3" >"$tmp/vmm.yaml" 2>"$tmp/err"
bw=$(sed -n 's/^  storage_bw_gbs: //p' "$tmp/vmm.yaml")
sbw=$(env XDG_CONFIG_HOME="$tmp/xdg" MLVIZ_DATA="$top" "$bin" eval "$tmp/vmm.yaml" --format json |
      sed -n 's/^ *"storage_bw_gbs": \([0-9.e+-]*\),*$/\1/p' | head -n 1)
grep -q 'vda, virtual disk (virtio), 275 GB -> cloud-block (its rate measured' "$tmp/vmm.yaml" &&
    [ -n "$bw" ] && [ -n "$sbw" ] && python3 -c "import sys; assert abs($bw - $sbw) <= 1e-3 * $bw" &&
    pass "virtual disk: --measure rate is the storage bandwidth eval uses" ||
    fail "virtual disk --measure" "bw=$bw eval=$sbw $(grep -E 'disk|read' "$tmp/vmm.yaml")"

# ---- a huge cpuinfo is read in linear time ------------------------------------------

# 120,000 processors (9 MB): 2 sockets of 30,000 cores with two threads
# each. The old pairwise search took seconds here and stopped counting at
# 4,096 cores; the check is on the counts (no timing).
mkdir -p "$tmp/big/proc"
awk 'BEGIN { for (i = 0; i < 120000; i++) printf "processor\t: %d\nmodel name\t: Big Test CPU\nphysical id\t: %d\ncore id\t\t: %d\n\n", i, int(i / 60000), i % 30000 }' \
    >"$tmp/big/proc/cpuinfo"
cp "$fx/vm/proc/meminfo" "$tmp/big/proc/"
env PATH="$fx/bin-none" MLVIZ_PROC_ROOT="$tmp/big/proc" MLVIZ_SYS_ROOT="$fx/vm/sys" \
    XDG_CONFIG_HOME="$tmp/xdg" MLVIZ_DATA="$top" "$bin" probe >"$tmp/big.yaml" 2>"$tmp/err"
grep -q '^#   cpu  *Big Test CPU, 2 sockets x 30000 cores' "$tmp/big.yaml" && grep -q 'cpu_sockets: 2' "$tmp/big.yaml" &&
    pass "120,000-processor cpuinfo: 2 sockets x 30,000 cores" ||
    fail "huge cpuinfo" "$(grep '#   cpu' "$tmp/big.yaml") $(cat "$tmp/err")"
