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
# Regression replay: inputs per process (the slices run side by side), and
# fuzz_lua's wall-clock limit per script (0.01 s when fuzzing; most of the
# committed inputs were found under 0.5 s): a quarter second still lets every
# committed input that ended within 0.5 s end (the slowest take 0.14 s on a
# quiet machine) and stops the endless ones (eight of them) at the same
# check, twice as early.
SLICE=${FUZZ_SLICE:-40}
mode=${1:-regress}
[ "$mode" = regress ] && export FUZZ_LUA_TIME_LIMIT_S=${FUZZ_LUA_TIME_LIMIT_S:-0.25}
export MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# Fuzzing (not the replay): allocation stacks two frames deep and a 16 MB
# quarantine. Lua allocates on every step, and ASan's default 30-frame
# stack per allocation and 256 MB quarantine took most of fuzz_lua's time
# (291 executions a second against 430); a use after free is still caught
# while the block is among the last 16 MB freed, and reports name the
# allocating function and its caller.
[ "$mode" = fuzz ] &&
    ASAN_OPTIONS=$ASAN_OPTIONS:malloc_context_size=2:quarantine_size_mb=16
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
        # Every committed input once, no fuzzing: in slices of $SLICE inputs
        # run side by side (fuzz_lua's inputs take up to seconds each under
        # the sanitizers); the results are read below, in target order.
        set -- "$corpus"/*
        if [ ! -f "$1" ]; then
            echo "FAIL $name: no committed corpus in $corpus/"
            fails=$((fails + 1))
            continue
        fi
        echo "$#" >"$probe/$name.count"
        k=0
        while [ $# -gt 0 ]; do
            k=$((k + 1))
            : >"$probe/$name.$k.slice"
            j=0
            while [ $# -gt 0 ] && [ $j -lt "$SLICE" ]; do
                echo "$1" >>"$probe/$name.$k.slice"
                shift
                j=$((j + 1))
            done
            (
                xargs "$bin" -runs=1 <"$probe/$name.$k.slice" >"$probe/$name.$k.log" 2>&1
                echo $? >"$probe/$name.$k.rc"
            ) &
        done
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
# Regression: each target's slices, once all have ended.
wait
for count in "$probe"/*.count; do
    [ -f "$count" ] || continue
    name=$(basename "$count" .count)
    bad=""
    for rc in "$probe/$name".*.rc; do
        [ "$(cat "$rc")" = 0 ] && continue
        bad="$bad $(grep -m 3 -E 'ERROR|SUMMARY|error' "${rc%.rc}.log")"
    done
    if [ -z "$bad" ]; then
        echo "PASS $name replays its corpus ($(cat "$count") inputs)"
    else
        echo "FAIL $name:$bad"
        fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ]
