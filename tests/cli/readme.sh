#!/bin/sh
# README.md's command-line section against the binary: every command it
# names exists, every option it shows is in that command's --help, and
# every example in the "Habits" block runs with the exit status it claims.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) ;; *) MLVIZ_BIN=$(pwd)/$MLVIZ_BIN ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
sed -n '/^## Command line/,/^## The screen/p' README.md >"$tmp/section"
grep '^mlviz [a-z]' "$tmp/section" | while read -r _ cmd rest; do
    help=$("$MLVIZ_BIN" "$cmd" --help 2>&1)
    [ $? -eq 0 ] || { fail "README: mlviz $cmd" "--help failed: $help"; continue; }
    missing=
    for opt in $(echo "$rest" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        echo "$help" | grep -q -- "$opt" || missing="$missing $opt"
    done
    [ -z "$missing" ] && pass "README: mlviz $cmd options exist" || fail "README: mlviz $cmd" "not in --help:$missing"
done
grep '^mlviz \[' "$tmp/section" | grep -o -- '--[a-z][a-z-]*' | sort -u | while read -r opt; do
    "$MLVIZ_BIN" --help | grep -q -- "$opt" && pass "README: view option $opt" || fail "README: view option $opt" "not in mlviz --help"
done
# The examples, run in a scratch directory (probe on a fixture machine).
top=$(pwd)
mkdir "$tmp/run" && cp scenarios/presets/default.yaml "$tmp/run/my-setup.yaml"
cp scenarios/presets/default.yaml "$tmp/run/-odd-name.yaml"
mkdir -p "$tmp/run/path/to" && cp assets/models/llama3-8b.json "$tmp/run/path/to/config.json"
sed -n '/^Habits that save retyping/,/^```$/{/^```sh/,/^```$/p}' README.md | grep '^[a-z]' |
    sed 's/ *#.*//' >"$tmp/examples"
[ "$(wc -l <"$tmp/examples")" -ge 6 ] && pass "README: examples found" || fail "README: examples found" "$(cat "$tmp/examples")"
while read -r line; do
    out=$(cd "$tmp/run" && PATH="$(dirname "$MLVIZ_BIN"):$PATH" MLVIZ_PROC_ROOT="$top/tests/probe/laptop/proc" \
          MLVIZ_SYS_ROOT="$top/tests/probe/laptop/sys" XDG_CONFIG_HOME="$tmp/xdg" MLVIZ_DATA="$top" \
          bash -c "mlviz() { \"$MLVIZ_BIN\" \"\$@\"; }; $line" 2>&1 </dev/null)
    rc=$?
    [ $rc -eq 0 ] && pass "README example: $line" || fail "README example: $line" "rc=$rc $(echo "$out" | tail -n 2)"
done <"$tmp/examples"
grep -q 'model: {hf_config: config.json' README.md && pass "README shows hf_config" || fail "README shows hf_config" "missing"
