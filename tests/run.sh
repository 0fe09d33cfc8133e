#!/bin/sh
# Runs every test suite and prints one closing line "N passed, N failed".
#  - $BUILD/tests/unit/LAYER/* and $BUILD/tests/validation/*: cmocka programs
#  - tests/cli/*.sh, tests/e2e/*.sh, tests/lua/*.sh, tests/fuzz/run.sh:
#    shell suites that print "PASS name" or "FAIL name: why" per check
#  - the structure checks tests/layers.sh, tests/sizes.py, tests/format.sh:
#    one check each (docs/STYLE.md: Layers, Sizes, Formatting)
# The suites run side by side, MLVIZ_TEST_JOBS at a time (default 10: the tmux
# suites mostly wait; on two idle cores 6 at a time took 54-56 s, 8 48 s, 10
# to 20 about 46 s, the CPU the same within noise). Each has its own log, temporary directory and tmux
# server, so none sees another's files. Results print in a fixed order as
# they come in; a failing suite's findings (or its log's tail) follow its line.
# MLVIZ_TEST_TIMES=1 prints each suite's wall and CPU time at the end (stderr).
# VALGRIND=1 runs the cmocka programs under valgrind (leaks are failures).
BUILD=${BUILD:-build}
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
export MLVIZ_BIN BUILD

# ---- one suite: sh tests/run.sh --one N KIND PATH (called through xargs) ----
# Writes $RUN_DIR/N.log and then $RUN_DIR/N.rc (the exit status, last).
if [ "$1" = --one ]; then
    n=$2 kind=$3 path=$4
    log=$RUN_DIR/$n.log
    timed=${MLVIZ_TEST_TIMES:-0}
    [ "$timed" = 1 ] && start=$(date +%s.%N)
    # The tmux suites' servers are daemons outside this process tree; with
    # MLVIZ_TEST_TIMES=1 tests/e2e/tmux-lib writes their CPU time here.
    [ "${MLVIZ_TEST_TIMES:-0}" = 1 ] && MLVIZ_TMUX_CPU=$RUN_DIR/$n.tmux && export MLVIZ_TMUX_CPU
    case $kind in
    cmocka)
        if [ "${VALGRIND:-0}" = 1 ]; then
            # Hang guards in the tests allow this many times their normal time.
            MLVIZ_TEST_TIME_FACTOR=60 \
                valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
                --error-exitcode=99 "$path" >"$log" 2>&1
        else
            "$path" >"$log" 2>&1
        fi ;;
    py) python3 "$path" >"$log" 2>&1 ;;
    shard*)
        # One part of a suite that says "# shards: N" (tests/e2e/tmux-lib,
        # in_shard): TEST_SHARD of TEST_SHARDS, from the kind "shardK/N".
        k=${kind#shard}
        TEST_SHARD=${k%/*} TEST_SHARDS=${k#*/} sh "$path" >"$log" 2>&1 ;;
    *) sh "$path" >"$log" 2>&1 ;;
    esac
    rc=$?
    # MLVIZ_TEST_TIMES=1: wall start and end, then the CPU time of the
    # suite's processes (`times`, children: user and system; not the tmux
    # servers' programs), then the tmux servers'
    if [ "$timed" = 1 ]; then
        times >"$RUN_DIR/$n.cpu"
        case $kind in shard*) path="$path[${kind#shard}]" ;; esac
        tmux_s=0
        [ -f "$RUN_DIR/$n.tmux" ] && tmux_s=$(awk '{ t += $1 } END { print t + 0 }' "$RUN_DIR/$n.tmux")
        echo "$start $(date +%s.%N) $path $(tail -n 1 "$RUN_DIR/$n.cpu") $tmux_s" >"$RUN_DIR/$n.time"
    fi
    echo $rc >"$RUN_DIR/$n.rc.tmp" && mv "$RUN_DIR/$n.rc.tmp" "$RUN_DIR/$n.rc"
    # Wakes the results loop below (a line per suite that ended).
    echo "$n" >"$RUN_DIR/ended"
    exit 0
fi

RUN_DIR=$(mktemp -d)
export RUN_DIR
mkfifo "$RUN_DIR/ended"
trap 'rm -rf "$RUN_DIR"' EXIT
# Ctrl-C or a TERM stops every suite still running (they run in the
# background, where a shell ignores Ctrl-C), then this script.
trap 'trap "" INT TERM; kill -TERM 0 2>/dev/null; rm -rf "$RUN_DIR"; exit 130' INT TERM
passed=0
failed=0

# python3 by its real path: a version manager's shim (pyenv: a bash script
# that runs a dozen programs to pick the version) costs more CPU than most
# of the scripts the suites give it, and the suites start python3 over a
# hundred times. The same interpreter, found once, first on the suites'
# PATH, and with -S: no site module. The scripts use the standard library
# only, and site's start-up hooks (.pth files: one here imports certifi)
# took 24 of the 42 ms each start costs, more than most scripts' own work.
if py=$(python3 -S -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
    mkdir -p "$RUN_DIR/bin"
    printf '#!/bin/sh\nexec "%s" -S "$@"\n' "$py" >"$RUN_DIR/bin/python3"
    chmod +x "$RUN_DIR/bin/python3"
    PATH=$RUN_DIR/bin:$PATH
    export PATH
fi

# Under VALGRIND=1 the shell suites run the binary under valgrind through a
# wrapper (a finding exits 99, which fails the check); the tmux suites and
# the fuzz replay are skipped.
if [ "${VALGRIND:-0}" = 1 ]; then
    real=$MLVIZ_BIN
    case $real in /*) ;; *) real=$(pwd)/$real ;; esac
    # valgrind by its full path: suites that set their own PATH (the probe's
    # fake nvidia-smi) still find it.
    printf '#!/bin/sh\nexec "%s" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect "%s" "$@"\n' \
        "$(command -v valgrind)" "$real" >"$RUN_DIR/mlviz"
    chmod +x "$RUN_DIR/mlviz"
    SHELL_BIN=$RUN_DIR/mlviz
    # Hang guards in the shell suites stretch too (valgrind is tens of
    # times slower); checks that a script ends within its own --timeout
    # still hold, since that limit is the script's, not the test's.
    SHELL_FACTOR=60
fi

# ---- the list: "N KIND PATH" per line, in the order results are printed ----
n=0
list=$RUN_DIR/list
: >"$list"
add() {
    n=$((n + 1))
    echo "$n $1 $2" >>"$list"
}
for t in "$BUILD"/tests/unit/*/* "$BUILD"/tests/validation/*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    case "$t" in *.d|*.o) continue ;; esac
    add cmocka "$t"
done
# A suite whose header says "# shards: N" runs as N parts side by side
# (each runs every Nth of its independent cases; tests/e2e/tmux-lib).
# MLVIZ_TEST_HEADLESS=1 leaves out the tmux suites (tests/e2e/) and the fuzz
# replay (make asan in CI: .ci/run); MLVIZ_TEST_SKIP lists suites to leave out.
# (the headers of all, read by one awk: "PATH N" for each that says so)
sharded=$(awk 'FNR == 1 { done = 0 } !done && FNR <= 20 && /^# shards: [1-9][0-9]*$/ { print FILENAME, $3; done = 1 }' \
    tests/cli/*.sh tests/lua/*.sh tests/e2e/*.sh 2>/dev/null)
NL='
'
for s in tests/cli/*.sh tests/lua/*.sh tests/e2e/*.sh tests/fuzz/run.sh; do
    [ -f "$s" ] || continue
    [ "${VALGRIND:-0}" = 1 ] || [ "${MLVIZ_TEST_HEADLESS:-0}" = 1 ] &&
        case "$s" in tests/e2e/*|tests/fuzz/*) continue ;; esac
    case " ${MLVIZ_TEST_SKIP:-} " in *" $s "*) continue ;; esac
    shards=1
    case "$NL$sharded$NL" in *"$NL$s "*) shards=$NL$sharded$NL shards=${shards#*"$NL$s "} shards=${shards%%"$NL"*} ;; esac
    if [ "${shards:-1}" -gt 1 ]; then
        k=1
        while [ $k -le "$shards" ]; do
            add "shard$k/$shards" "$s"
            k=$((k + 1))
        done
    else
        add shell "$s"
    fi
done
add structure tests/layers.sh
add shell tests/layers_compile.sh
add py tests/sizes.py
add structure tests/format.sh

# The longest suites start first (measured with MLVIZ_TEST_TIMES=1): the
# tmux suites whose waits are long (tour_try holds a tour stop for 16 s,
# steady takes ten readings a second apart, footer waits out r's message),
# mixed with the CPU-bound ones,
# then the rest in list order; each argument line of xargs is "N KIND PATH".
# (Ordered by last run's wall times, every tmux suite started at once and
# their sessions, animating side by side, took 10% more CPU.)
SLOW="tests/e2e/tour_try.sh tests/e2e/steady.sh tests/e2e/footer.sh tests/cli/plan.sh tests/e2e/live.sh
      tests/e2e/screens.sh tests/cli/install.sh tests/e2e/wordcut.sh tests/e2e/story.sh
      $BUILD/tests/unit/engine/test_plan tests/e2e/play.sh tests/cli/plan_integrity.sh
      $BUILD/tests/unit/engine/test_sim tests/e2e/verdict.sh tests/lua/hostile.sh
      tests/e2e/motion.sh tests/cli/setups.sh tests/cli/docs.sh
      $BUILD/tests/validation/test_plan_table tests/e2e/stage_live.sh tests/e2e/legend.sh
      tests/cli/sim.sh tests/lua/limits.sh tests/fuzz/run.sh tests/e2e/netpic.sh
      tests/e2e/infer.sh tests/e2e/strips.sh tests/lua/run.sh tests/cli/commands.sh"
{
    # (one awk: the slow ones in SLOW's order, then the rest in list order)
    awk -v slow=" $(echo $SLOW) " '
        { line[NR] = $0; p = " " $3 " "; i = index(slow, p)
          if (i) at[i] = at[i] (at[i] == "" ? "" : "\n") $0; else rest[++nr] = $0 }
        END { n = split(slow, name, " "); pos = 1
              for (k = 1; k <= n; k++) { i = index(slow, " " name[k] " ")
                                         if (i in at) { print at[i]; delete at[i] } }
              for (k = 1; k <= nr; k++) print rest[k] }' "$list"
} | (
    if [ -n "${SHELL_BIN:-}" ]; then
        MLVIZ_BIN=$SHELL_BIN MLVIZ_TEST_TIME_FACTOR=$SHELL_FACTOR
        export MLVIZ_BIN MLVIZ_TEST_TIME_FACTOR
    fi
    xargs -L 1 -P "${MLVIZ_TEST_JOBS:-10}" sh "$0" --one
    echo end >"$RUN_DIR/ended"
) &
runner=$!
# Each suite that ends writes a line to this FIFO (and the runner "end" when
# all have): the loop below blocks on it instead of polling the files (a
# sleep every quarter second was some 250 processes a run). Held open for
# reading and writing here, so a writer never blocks and a read never ends.
exec 3<>"$RUN_DIR/ended"

# ---- results, in list order as each suite ends ------------------------------
count_cmocka() {
    p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$1" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$1" | tail -n 1)
    p=${p:-0} f=${f:-0}
}
all_ended=0
while read -r i kind path; do
    while [ ! -f "$RUN_DIR/$i.rc" ] && [ $all_ended = 0 ]; do
        read -r ended <&3 || break
        [ "$ended" = end ] && all_ended=1
    done
    log=$RUN_DIR/$i.log
    rc=$(cat "$RUN_DIR/$i.rc" 2>/dev/null || echo "none")
    case $kind in
    cmocka)
        name=$(basename "$path")
        count_cmocka "$log"
        passed=$((passed + p))
        failed=$((failed + f))
        if [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
            failed=$((failed + 1)) # crashed, leaked or exited badly without a cmocka failure
            echo "FAIL $name (exit $rc)"
            tail -n 20 "$log"
        elif [ "$f" -ne 0 ]; then
            echo "FAIL $name"
            grep -E '^\[  (FAILED|ERROR)|error|Error|failure' "$log" | head -n 30
        else
            echo "ok   $name ($p tests)"
        fi ;;
    shell|shard*)
        [ "$kind" = shell ] || path="$path [${kind#shard}]"
        pf=$(awk '/^PASS / { p++ } /^FAIL / { f++ } END { print p + 0, f + 0 }' "$log")
        p=${pf% *} f=${pf#* }
        passed=$((passed + p))
        failed=$((failed + f))
        if [ "$f" -gt 0 ] || [ "$rc" != 0 ]; then
            [ "$f" -eq 0 ] && failed=$((failed + 1))
            echo "FAIL $path (exit $rc)"
            grep '^FAIL ' "$log" | head -n 30
            [ "$f" -eq 0 ] && tail -n 20 "$log"
        else
            echo "ok   $path ($p checks)"
        fi ;;
    structure|py)
        # One check: the script's last line says what it found.
        if [ "$rc" = 0 ] && grep -q '^SKIP' "$log"; then
            echo "skip $path: $(grep -m 1 '^SKIP' "$log")"
        elif [ "$rc" = 0 ]; then
            passed=$((passed + 1))
            echo "ok   $path (1 check)"
        else
            failed=$((failed + 1))
            echo "FAIL $path (exit $rc)"
            head -n 30 "$log"
            [ "$(wc -l <"$log")" -gt 30 ] && tail -n 1 "$log"
        fi ;;
    esac
done <"$list"
wait $runner
# MLVIZ_TEST_TIMES=1: each suite's CPU time (its processes and its tmux
# server's, in brackets) and wall time, most CPU first, then the sums (stderr).
if [ "${MLVIZ_TEST_TIMES:-0}" = 1 ]; then
    first=$(cat "$RUN_DIR"/*.time | sort -n | head -n 1 | cut -d' ' -f1)
    cat "$RUN_DIR"/*.time | awk -v first="$first" '
        function sec(t, m) { m = t; sub(/m.*/, "", m); sub(/^[0-9]*m/, "", t); return m * 60 + t }
        { c = sec($4) + sec($5)
          printf "cpu %6.2f s (tmux %5.2f)  wall %6.2f s (%5.1f to %5.1f)  %s\n", c + $6, $6, $2 - $1,
                 $1 - first, $2 - first, $3 }' |
        sort -k2,2 -rn >&2
    cat "$RUN_DIR"/*.time | awk '
        function sec(t, m) { m = t; sub(/m.*/, "", m); sub(/^[0-9]*m/, "", t); return m * 60 + t }
        { c += sec($4) + sec($5); x += $6; if (!s || $1 < s) s = $1; if ($2 > e) e = $2 }
        END { printf "suites: cpu %.1f s (tmux servers %.1f s), wall %.1f s\n", c + x, x, e - s }' >&2
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
