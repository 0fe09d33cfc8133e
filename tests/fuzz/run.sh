#!/bin/sh
# The fuzz targets tests/fuzz/fuzz_NAME.c (libFuzzer, built by `make
# fuzz-build` into $FUZZ_BUILD, default build-fuzz).
#
#   sh tests/fuzz/run.sh          regression: each target replays its committed
#                                 corpus tests/fuzz/corpus/fuzz_NAME/ once and
#                                 prints "PASS name" or "FAIL name: why"; says
#                                 SKIP when clang with libFuzzer is missing
#   sh tests/fuzz/run.sh fuzz     fuzz each target for $FUZZ_SECONDS (default
#                                 30) over a scratch corpus seeded from the
#                                 committed one (+ fuzz_NAME.dict or yaml.dict)
#                                 and print its number of executions
# Run from the repository root.
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
mode=${1:-regress}
export MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
fails=0

# Does clang link a libFuzzer target here? (The build would fail otherwise.)
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
    > "$probe/p.c"
if ! command -v clang >/dev/null 2>&1 ||
    ! clang -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" >/dev/null 2>&1; then
    echo "SKIP fuzz: clang with libFuzzer is not available"
    exit 0
fi
if [ "$mode" = regress ]; then
    if ! make --no-print-directory -s fuzz-build >"$probe/build.log" 2>&1; then
        echo "FAIL fuzz build: $(tail -n 5 "$probe/build.log")"
        exit 1
    fi
fi

for src in tests/fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    bin=$FUZZ_BUILD/$name
    corpus=tests/fuzz/corpus/$name
    if [ ! -x "$bin" ]; then
        echo "FAIL $name: not built ($bin)"
        fails=$((fails + 1))
        continue
    fi
    if [ "$mode" = regress ]; then
        # Every committed input once, no fuzzing.
        set -- "$corpus"/*
        if [ ! -f "$1" ]; then
            echo "FAIL $name: no committed corpus in $corpus/"
            fails=$((fails + 1))
            continue
        fi
        if "$bin" -runs=1 "$@" >"$probe/log" 2>&1; then
            echo "PASS $name replays its corpus ($# inputs)"
        else
            echo "FAIL $name: $(grep -m 3 -E 'ERROR|SUMMARY|error' "$probe/log")"
            fails=$((fails + 1))
        fi
        continue
    fi
    scratch=$FUZZ_BUILD/corpus/$name
    mkdir -p "$scratch" "$FUZZ_BUILD/artifacts"
    [ -d "$corpus" ] && cp -R "$corpus"/. "$scratch"/
    dict=""
    if [ -f tests/fuzz/$name.dict ]; then
        dict=-dict=tests/fuzz/$name.dict
    elif [ -f tests/fuzz/yaml.dict ]; then
        dict=-dict=tests/fuzz/yaml.dict
    fi
    "$bin" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
        -artifact_prefix="$FUZZ_BUILD/artifacts/$name-" $dict "$scratch" >"$probe/log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$probe/log" | tail -n 1)
    if [ $rc -eq 0 ]; then
        echo "PASS $name: ${execs:-?} executions in ${FUZZ_SECONDS} s, corpus $(ls "$scratch" | wc -l) inputs"
    else
        echo "FAIL $name: exit $rc after ${execs:-?} executions; $(grep -m 3 -E 'ERROR|SUMMARY|artifact' "$probe/log")"
        fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ]
