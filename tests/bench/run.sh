#!/bin/sh
# make bench: runs every benchmark program and script BENCH_RUNS times
# (default 3), each printing "NAME: CPU WALL" lines (tests/bench/bench.h),
# and prints one table: the median of each figure in CPU time and in wall
# time, its goal (tests/bench/goals) and whether the CPU figure meets it.
# Exits 1 when a goal is missed or a benchmark fails: the goals are a
# contract, measured in CPU time so that a shared machine does not move
# them (the wall column shows what the machine gave this time).
BUILD=${BUILD:-build-bench}
MLVIZ_BIN=${MLVIZ_BIN:-$BUILD/mlviz}
RUNS=${BENCH_RUNS:-3}
export MLVIZ_BIN
status=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
k=0
while [ $k -lt "$RUNS" ]; do
    k=$((k + 1))
    for b in "$BUILD"/tests/bench/*; do
        [ -x "$b" ] && [ -f "$b" ] || continue
        case "$b" in *.d|*.o) continue ;; esac
        taskset -c 0 "$b" 2>/dev/null >>"$out" || "$b" >>"$out" ||
            { echo "FAIL $b (exit $?)"; status=1; }
    done
    for s in tests/bench/*.sh; do
        [ "$s" = tests/bench/run.sh ] && continue
        [ -f "$s" ] && { sh "$s" >>"$out" || { echo "FAIL $s (exit $?)"; status=1; }; }
    done
done
sh tests/bench/table.sh tests/bench/goals "$out" "$RUNS" || status=1
exit $status
