#!/bin/sh
# `make tsan`: the planner's threads under ThreadSanitizer. Runs the
# planner's cmocka tests ($TSAN_TESTS) and the TUI plan suite
# (tests/e2e/plan.sh: the search thread and the screen that shows its
# progress) with the binaries of $BUILD (built with -fsanitize=thread).
# Every report goes to a file under $BUILD/tsan-reports (the view's stderr
# is a tmux pane); any report, or any failed test, fails the run. Prints
# "PASS name" or "FAIL name: why". Run from the repository root.
BUILD=${BUILD:-build-tsan}
reports=$(pwd)/$BUILD/tsan-reports
rm -rf "$reports"
mkdir -p "$reports"
# halt_on_error=0: every race in a run is reported, not only the first.
export TSAN_OPTIONS="log_path=$reports/report second_deadlock_stack=1 halt_on_error=0"
export MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
fails=0
start=$(date +%s)

for t in $TSAN_TESTS; do
    name=$(basename "$t")
    if "$t" >"$reports/$name.log" 2>&1; then
        echo "PASS $name under ThreadSanitizer"
    else
        echo "FAIL $name under ThreadSanitizer: $(grep -m 3 -E 'FAIL|ERROR' "$reports/$name.log")"
        fails=$((fails + 1))
    fi
done
# The search runs some ten times slower under the sanitizer: wait up to 5 min.
if MLVIZ_BIN=$BUILD/mlviz MLVIZ_E2E_SEARCH_TRIES=3000 sh tests/e2e/plan.sh >"$reports/e2e-plan.log" 2>&1; then
    echo "PASS tests/e2e/plan.sh under ThreadSanitizer ($(grep -c '^PASS' "$reports/e2e-plan.log") checks)"
else
    echo "FAIL tests/e2e/plan.sh under ThreadSanitizer: $(grep '^FAIL' "$reports/e2e-plan.log" | head -3)"
    fails=$((fails + 1))
fi

set -- "$reports"/report.*
if [ -f "$1" ]; then
    echo "FAIL ThreadSanitizer reported $(cat "$@" | grep -c '^WARNING: ThreadSanitizer') problems:"
    grep -h -A 12 '^WARNING: ThreadSanitizer' "$@" | head -60
    fails=$((fails + 1))
else
    echo "PASS no ThreadSanitizer report ($(($(date +%s) - start)) s)"
fi
[ $fails -eq 0 ]
