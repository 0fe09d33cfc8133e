#!/bin/sh
# Runs every test suite and prints one closing line "N passed, N failed".
#  - $BUILD/tests/unit/LAYER/* and $BUILD/tests/validation/*: cmocka programs
#  - tests/cli/*.sh, tests/e2e/*.sh, tests/lua/run.sh, tests/fuzz/run.sh:
#    shell suites that print "PASS name" or "FAIL name: why" per check
# VALGRIND=1 runs the cmocka programs under valgrind (leaks are failures).
BUILD=${BUILD:-build}
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
export MLVIZ_BIN BUILD
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count_cmocka() {
    p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
}

for t in "$BUILD"/tests/unit/*/* "$BUILD"/tests/validation/*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    case "$t" in *.d|*.o) continue ;; esac
    name=$(basename "$t")
    if [ "${VALGRIND:-0}" = 1 ]; then
        # Hang guards in the tests allow this many times their normal time.
        MLVIZ_TEST_TIME_FACTOR=60 \
        valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
            --error-exitcode=99 "$t" >"$log" 2>&1
    else
        "$t" >"$log" 2>&1
    fi
    rc=$?
    before=$failed
    count_cmocka
    if [ $rc -ne 0 ] && [ $failed -eq $before ]; then
        failed=$((failed + 1)) # crashed, leaked or exited badly without a cmocka failure
        echo "FAIL $name (exit $rc)"
        tail -n 20 "$log"
    elif [ $failed -ne $before ]; then
        echo "FAIL $name"
        grep -E '^\[  (FAILED|ERROR)|error|Error|failure' "$log" | head -n 30
    else
        echo "ok   $name ($(sed -n 's/^\[  PASSED  \] \([0-9]*\).*/\1/p' "$log" | tail -n 1) tests)"
    fi
done

# Under VALGRIND=1 the shell suites run the binary under valgrind through a
# wrapper (a finding exits 99, which fails the check); the tmux suites and
# the fuzz replay are skipped.
if [ "${VALGRIND:-0}" = 1 ]; then
    real=$MLVIZ_BIN
    case $real in /*) ;; *) real=$(pwd)/$real ;; esac
    wrapdir=$(mktemp -d)
    trap 'rm -f "$log"; rm -rf "$wrapdir"' EXIT
    printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect "%s" "$@"\n' \
        "$real" > "$wrapdir/mlviz"
    chmod +x "$wrapdir/mlviz"
    MLVIZ_BIN=$wrapdir/mlviz
    # Hang guards in the shell suites stretch too (valgrind is tens of
    # times slower); checks that a script ends within its own --timeout
    # still hold, since that limit is the script's, not the test's.
    MLVIZ_TEST_TIME_FACTOR=60
    export MLVIZ_TEST_TIME_FACTOR
fi

for s in tests/cli/*.sh tests/lua/run.sh tests/e2e/*.sh tests/fuzz/run.sh; do
    [ -f "$s" ] || continue
    [ "${VALGRIND:-0}" = 1 ] && case "$s" in tests/e2e/*|tests/fuzz/*) continue ;; esac
    sh "$s" >"$log" 2>&1
    rc=$?
    p=$(grep -c '^PASS ' "$log")
    f=$(grep -c '^FAIL ' "$log")
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" -gt 0 ] || [ $rc -ne 0 ]; then
        [ "$f" -eq 0 ] && failed=$((failed + 1))
        echo "FAIL $s (exit $rc)"
        grep '^FAIL ' "$log" | head -n 30
        [ "$f" -eq 0 ] && tail -n 20 "$log"
    else
        echo "ok   $s ($p checks)"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
