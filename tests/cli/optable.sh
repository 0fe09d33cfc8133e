#!/bin/sh
# Every command parses with the one option table (tui/cli/commands.c, dumped
# by `mlviz options --table`: command, option, alias, type, a value it takes,
# a value it refuses). For each row: the command takes the option with the
# good value (and by its alias), the handler knows it (no "internal" error),
# and the bad value is a usage error; each command refuses an option outside
# the table, and the options of the other commands it lacks. No handler in
# tui/cli/ names an option the table lacks. Prints "PASS name" or
# "FAIL name: why". Run from the repository root; MLVIZ_BIN defaults to ./mlviz.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

if ! "$MLVIZ_BIN" options --table >"$tmp/table" 2>"$tmp/err" || [ "$(wc -l <"$tmp/table")" -lt 80 ]; then
    fail "mlviz options --table dumps the option table" "$(head -n 2 "$tmp/err")"
    exit 1
fi
pass "mlviz options --table dumps the option table ($(wc -l <"$tmp/table") rows)"

# run CMD WORD...: the command (CMD "-": the view) with the words, </dev/null.
run() {
    c=$1
    shift
    if [ "$c" = - ]; then
        "$MLVIZ_BIN" "$@" </dev/null >"$tmp/out" 2>&1
    else
        "$MLVIZ_BIN" "$c" "$@" </dev/null >"$tmp/out" 2>&1
    fi
}

bad_rows="" refused="" aliases=""
tab=$(printf '\t')
while IFS="$tab" read -r cmd opt alias type good bad; do
    if [ "$type" = switch ]; then
        run "$cmd" "$opt" --help
    else
        run "$cmd" "$opt" "$good" --help
    fi
    if [ $? != 0 ] || grep -q internal "$tmp/out"; then
        bad_rows="$bad_rows; $cmd $opt $good: $(head -c 200 "$tmp/out")"
    fi
    if [ "$alias" != - ]; then
        if [ "$type" = switch ]; then run "$cmd" "$alias" --help; else run "$cmd" "$alias" "$good" --help; fi
        [ $? = 0 ] || aliases="$aliases $cmd:$alias"
    fi
    if [ "$bad" != - ]; then
        run "$cmd" "$opt" "$bad" --help
        rc=$?
        if [ $rc != 2 ] || ! grep -q "^mlviz: $opt" "$tmp/out"; then
            refused="$refused; $cmd $opt $bad: exit $rc $(head -c 120 "$tmp/out")"
        fi
    fi
done <"$tmp/table"
[ -z "$bad_rows" ] && pass "every command takes every option of its table row" ||
    fail "every command takes every option of its table row" "$bad_rows"
[ -z "$aliases" ] && pass "every alias is taken" || fail "every alias is taken" "$aliases"
[ -z "$refused" ] && pass "a value outside an option's type, range or choices is a usage error" ||
    fail "a value outside an option's type, range or choices is a usage error" "$refused"

# Options outside a command's row: a made-up one, and the other commands'.
cut -f 1 "$tmp/table" | uniq >"$tmp/commands"
cut -f 2 "$tmp/table" | sort -u >"$tmp/names"
taken=""
while read -r cmd; do
    case $cmd in run | play) continue ;; esac # --name=value goes to the script
    awk -F "$tab" -v c="$cmd" '$1 == c { print $2 }' "$tmp/table" | sort -u >"$tmp/own"
    for opt in --no-such-option $(comm -23 "$tmp/names" "$tmp/own" | head -n 4); do
        run "$cmd" "$opt" x
        rc=$?
        grep -q "unknown option\|does not apply" "$tmp/out" && [ $rc = 2 ] || taken="$taken $cmd:$opt(exit $rc)"
    done
done <"$tmp/commands"
[ -z "$taken" ] && pass "no command takes an option outside its row" ||
    fail "no command takes an option outside its row" "$taken"

# No handler compares a word with an option name the table lacks.
grep -ho 'strcmp([a-z_>-]*, "--[a-z-]*")' tui/cli/*.c | sed 's/.*"\(--[a-z-]*\)")/\1/' | sort -u |
    grep -vx -e -- -e --help | comm -23 - "$tmp/names" >"$tmp/extra"
[ ! -s "$tmp/extra" ] && pass "handlers name only options of the table" ||
    fail "handlers name only options of the table" "$(tr '\n' ' ' <"$tmp/extra")"
# The man page (built from the table): every command has its section
# (plan's is PLAN OPTIONS), and every option of the table is in it.
BUILD=${BUILD:-build}
if [ -f "$BUILD/mlviz.1" ]; then
    missing=
    while read -r cmd; do
        [ "$cmd" = - ] || [ "$cmd" = plan ] && continue
        grep -q "^\.SS \"mlviz $cmd\"" "$BUILD/mlviz.1" || missing="$missing $cmd"
    done <"$tmp/commands"
    for opt in $(cat "$tmp/names"); do
        grep -qF -- "$(echo "$opt" | sed 's/-/\\-/g')" "$BUILD/mlviz.1" || missing="$missing $opt"
    done
    [ -z "$missing" ] && pass "the man page has every command and option of the table" ||
        fail "the man page has every command and option of the table" "missing$missing"
fi
[ $fails -eq 0 ]
