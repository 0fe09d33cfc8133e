#!/bin/sh
# The interactive view with --set and a probed or Hugging Face setup: the
# changed fields reach the screen; a bad --set is a usage error before the
# screen opens; a generic model shows samples/s. Prints PASS/FAIL lines.
. "$(dirname "$0")/tmux-lib"

start st 100 30 -- -c default --set cluster.nodes=2 --set training.global_batch=256
if wait_for st "BOTTLENECK" 150 && wait_for st "DP16" 20; then
    pass "view: --set cluster.nodes=2 shows 16-way data parallelism"
else
    fail "view: --set cluster.nodes=2" "$(screen st | grep -m1 -o 'TP[0-9]* PP[0-9]* DP[0-9]*')"
fi
keys st q
$TM kill-session -t st 2>/dev/null

start gen 100 30 -- -c laptop-cpu
if wait_for gen "BOTTLENECK" 150 && wait_for gen "samples/s" 20 && ! screen gen | grep -q "tokens/s"; then
    pass "view: a generic model shows samples/s"
else
    fail "view: a generic model shows samples/s" "$(screen gen | grep -m1 '/s ')"
fi
keys gen q
$TM kill-session -t gen 2>/dev/null

# Llama 3 8B unties its output layer (8.03 B parameters): with selective
# recomputation it needs 88 GB on an 80 GB H100, so the view would show
# CANNOT RUN instead of the bottleneck; full recomputation fits.
printf 'name: hf\nmodel: {name: llama3-8b}\ncluster: {nodes: 1}\ntraining: {recompute: full}\n' \
    >"$T/hf.yaml"
start hf 100 30 -- -c "$T/hf.yaml"
wait_for hf "BOTTLENECK" 150 && pass "view: model: {name: llama3-8b} opens" ||
    fail "view: model: {name: ...} opens" "$(screen hf | head -n 3)"
keys hf q
$TM kill-session -t hf 2>/dev/null

start bad 100 30 -- -c default --set training.micro_batch=x
if wait_rc bad && [ "$(cat "$T/bad.rc")" = 2 ] && screen bad | grep -q -- "--set training.micro_batch=x"; then
    pass "view: a bad --set exits 2 naming it"
else
    fail "view: a bad --set exits 2" "rc $(cat "$T/bad.rc" 2>/dev/null): $(screen bad | head -n 3)"
fi
$TM kill-session -t bad 2>/dev/null
# A probed machine opens in the view (fixture laptop, stub RTX 4090).
fx=$(pwd)/tests/probe
env PATH="$fx/bin-rtx" MLVIZ_PROC_ROOT="$fx/laptop/proc" MLVIZ_SYS_ROOT="$fx/laptop/sys" \
    XDG_CONFIG_HOME="$T/xdg" "$BIN" probe --write "$T/me.yaml" 2>/dev/null
start me 100 30 XDG_CONFIG_HOME="$T/xdg" -- -c "$T/me.yaml"
if wait_for me "BOTTLENECK" 150 && wait_for me "RTX 4090" 20; then
    pass "view: mlviz -c PROBED.yaml shows this machine"
else
    fail "view: mlviz -c PROBED.yaml" "$(screen me | head -n 3)"
fi
keys me q
$TM kill-session -t me 2>/dev/null

"$BIN" -c - </dev/null >/dev/null 2>"$T/dash.err"; rc=$?
[ $rc = 2 ] && grep -q "reads keys from standard input" "$T/dash.err" &&
    pass "view: -c - is refused (stdin holds the keys)" || fail "view: -c -" "rc $rc: $(cat "$T/dash.err")"
[ $FAILS = 0 ]
