#!/bin/sh
# Shell completions: generated for bash, zsh and fish; every option a
# command's --help names is offered for that command. Prints PASS/FAIL.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) ;; *) MLVIZ_BIN=$(pwd)/$MLVIZ_BIN ;; esac
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
for sh in bash zsh fish; do
    "$MLVIZ_BIN" completion $sh >"$tmp/$sh" 2>&1 && [ -s "$tmp/$sh" ] && pass "completion $sh" ||
        fail "completion $sh" "$(head -n 2 "$tmp/$sh")"
done
bash -n "$tmp/bash" && pass "bash script parses" || fail "bash script parses" "bash -n"
"$MLVIZ_BIN" completion tcsh >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "unknown shell: exit 2" || fail "unknown shell" "rc=$rc"
# Completing in bash: the commands, an eval option, a --format value.
cat >"$tmp/try.sh" <<'EOS'
. "$1"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _mlviz; echo "${COMPREPLY[*]}"; }
complete_words mlviz pro
complete_words mlviz eval --st
complete_words mlviz eval default --format j
complete_words mlviz --th
complete_words mlviz lesson x.yaml --asc
EOS
out=$(bash "$tmp/try.sh" "$tmp/bash" 2>&1)
[ "$(echo "$out" | sed -n 1p)" = probe ] && [ "$(echo "$out" | sed -n 2p)" = --strict ] &&
    [ "$(echo "$out" | sed -n 3p)" = json ] && [ "$(echo "$out" | sed -n 4p)" = --theme ] && [ "$(echo "$out" | sed -n 5p)" = --ascii ] &&
    pass "bash completes commands, options and values" || fail "bash completes" "$out"
# Every option in each command's --help is in its completions (every
# command of the table).
for cmd in $("$MLVIZ_BIN" options --table | cut -f 1 | uniq | grep -v '^-$'); do
    missing=
    for opt in $("$MLVIZ_BIN" $cmd --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        case $opt in --help|--name|--no-color) continue ;; esac
        sed -n "/^    $cmd)/,/^        ;;\$/p" "$tmp/bash" | grep -q -- " $opt\\b" || missing="$missing $opt"
        grep -q "__fish_seen_subcommand_from $cmd' -l ${opt#--}\\b" "$tmp/fish" || missing="$missing fish:$opt"
    done
    [ -z "$missing" ] && pass "$cmd: every --help option completes" || fail "$cmd: options missing" "$missing"
done
# Every option the table lists is one the command's parser knows.
for cmd in catalog check eval collective sim run play scenarios fields keys options probe; do
    unknown=
    for opt in $("$MLVIZ_BIN" $cmd --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        case $opt in --help|--name|--no-color) continue ;; esac
        # In a scratch directory and home: `probe --write x` writes x there.
        err=$(cd "$tmp" && env MLVIZ_PROC_ROOT="$top/tests/probe/laptop/proc" \
              MLVIZ_SYS_ROOT="$top/tests/probe/laptop/sys" HOME="$tmp" XDG_CONFIG_HOME="$tmp/xdg" \
              MLVIZ_DATA="$top" PATH=/nonexistent "$MLVIZ_BIN" $cmd "$opt" x </dev/null 2>&1 >/dev/null)
        echo "$err" | grep -q "unknown \(option\|argument\) '$opt'" && unknown="$unknown $opt"
    done
    [ -z "$unknown" ] && pass "$cmd: every listed option is parsed" || fail "$cmd: listed but unknown" "$unknown"
done
# Names from their tables as bash completes them (the script asks `mlviz
# completion --list`, so mlviz must be on the PATH): presets, models,
# themes (all of them), scenarios, and the collective operations.
mkdir -p "$tmp/bin" && ln -s "$MLVIZ_BIN" "$tmp/bin/mlviz"
cat >"$tmp/names.sh" <<'EOS'
. "$1"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _mlviz; printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '; echo; }
complete_words mlviz eval moe
complete_words mlviz eval default --model llama3-7
complete_words mlviz --theme ''
complete_words mlviz run cooling-f
complete_words mlviz collective --op all-t
complete_words mlviz -c gpt3
complete_words mlviz eval ''
EOS
out=$(cd "$tmp" && MLVIZ_DATA="$top" PATH="$tmp/bin:$PATH" bash "$tmp/names.sh" "$tmp/bash" 2>&1)
themes=$(MLVIZ_DATA="$top" "$MLVIZ_BIN" completion --list themes | sort | tr '\n' ' ')
presets=$(MLVIZ_DATA="$top" "$MLVIZ_BIN" completion --list presets | sort | tr '\n' ' ')
line() { echo "$out" | sed -n "$1p"; }
check() { [ "$(line "$1")" = "$2" ] && pass "bash completes $3" || fail "bash completes $3" "got '$(line "$1")', want '$2'"; }
check 1 "moe-h100 " "a preset name (moe-h100)"
check 2 "llama3-70b " "a model name after --model"
check 3 "$themes" "every theme after --theme"
echo "$themes" | grep -qw light && [ "$(echo "$themes" | wc -w)" -ge 5 ] && pass "the themes listed are all five, light too" ||
    fail "the themes listed are all five, light too" "$themes"
check 4 "cooling-failure " "a scenario name"
check 5 "all-to-all " "a collective operation (all-to-all)"
check 6 "gpt3-175b-a100 " "a preset after -c"
missing=
for p in $presets; do echo " $(line 7)" | grep -q " $p " || missing="$missing $p"; done
[ -z "$missing" ] && pass "bash offers every preset as a setup" ||
    fail "bash offers every preset as a setup" "missing$missing in '$(line 7)'"
