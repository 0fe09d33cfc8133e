#!/bin/sh
# make bench: runs every benchmark program and script; each prints fixed
# "name: value" lines (eval_per_s, sim_ticks_per_s, sim_scale_ratio,
# sim_hour_1024_ms, frame_ms, idle_cpu_pct, lua_sweep_per_s, cpuinfo_35mb_ms).
BUILD=${BUILD:-build-bench}
MLVIZ_BIN=${MLVIZ_BIN:-$BUILD/mlviz}
export MLVIZ_BIN
status=0
for b in "$BUILD"/tests/bench/*; do
    [ -x "$b" ] && [ -f "$b" ] || continue
    case "$b" in *.d|*.o) continue ;; esac
    taskset -c 0 "$b" 2>/dev/null || "$b" || status=1
done
for s in tests/bench/*.sh; do
    [ "$s" = tests/bench/run.sh ] && continue
    [ -f "$s" ] && { sh "$s" || status=1; }
done
exit $status
