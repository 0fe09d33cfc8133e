#!/bin/sh
# Preparing a lesson: knobs that change the cluster update the title, u
# undoes the last change, w writes the setup as YAML into a new file in the
# current directory (never over an existing one) that mlviz check accepts,
# h opens the help and F10 quits. Prints "PASS name" or "FAIL name: why".
. "$(dirname "$0")/tmux-lib"

W=$T/work
mkdir -p "$W"
echo "keep me" > "$W/mlviz-setup-2.yaml"
# Names held by links (to a file outside, dangling, to a directory): left
# as they are, the second w goes past them.
echo "outside" > "$T/outside.yaml"
ln -s ../outside.yaml "$W/mlviz-setup-3.yaml"
ln -s ../nothing.yaml "$W/mlviz-setup-4.yaml"
ln -s .. "$W/mlviz-setup-5.yaml"
$TM new-session -d -s wr -x 100 -y 30 -c "$W" \
    "env TERM=xterm-256color MLVIZ_DATA='$MLVIZ_DATA' '$BIN' -c default; echo \$? > '$T/wr.rc'; sleep 30" \; set -s exit-empty off # (tmux-lib's start)
wait_for wr "BOTTLENECK" 60
keys wr 3
wait_title wr "3 ACCELERATORS"
keys wr Right
if wait_title wr "Llama-8B on 1x DGX H100, now 2 x 8 h100-sxm"; then
    pass "the title says what runs after a knob changes the cluster"
else
    fail "the title says what runs after a knob changes the cluster" "$(screen wr | head -1)"
fi
keys wr w
if wait_for wr "wrote mlviz-setup.yaml" 30 && [ -s "$W/mlviz-setup.yaml" ] &&
    "$BIN" check "$W/mlviz-setup.yaml" >/dev/null 2>&1 &&
    "$BIN" eval "$W/mlviz-setup.yaml" | grep -q "16 x NVIDIA H100"; then
    pass "w writes the setup with its knob changes as YAML that mlviz check accepts"
else
    fail "w writes the setup with its knob changes as YAML that mlviz check accepts" \
        "$(screen wr | grep -i "wrote\|cannot"; "$BIN" check "$W/mlviz-setup.yaml" 2>&1 | head -3)"
fi
keys wr w
if wait_for wr "wrote mlviz-setup-6.yaml" 30 && [ "$(cat "$W/mlviz-setup-2.yaml")" = "keep me" ] &&
    [ -s "$W/mlviz-setup-6.yaml" ] && [ "$(cat "$T/outside.yaml")" = "outside" ] &&
    [ "$(readlink "$W/mlviz-setup-3.yaml")" = ../outside.yaml ] && [ ! -e "$T/nothing.yaml" ] &&
    [ "$(readlink "$W/mlviz-setup-4.yaml")" = ../nothing.yaml ] &&
    [ "$(readlink "$W/mlviz-setup-5.yaml")" = .. ] && [ -z "$(ls -A "$W" | grep '^\.')" ]; then
    pass "w never overwrites an existing file or follows a link"
else
    fail "w never overwrites an existing file or follows a link" "$(ls -lA "$W")"
fi
keys wr u
i=0
while [ $i -lt 40 ] && screen wr | head -1 | grep -qF ", now"; do sleep 0.1; i=$((i + 1)); done
if ! screen wr | head -1 | grep -qF ", now" && screen wr | grep -q "nodes  *◂ *1 *▸"; then
    pass "u undoes the last knob change"
else
    fail "u undoes the last knob change" "$(screen wr | head -1)"
fi
keys wr h
wait_for wr "Everywhere:" 20 && pass "h opens the help" || fail "h opens the help" "$(screen wr | head -3)"
press_until wr NPage "BOTTLENECK: the stage that sets the pace"
if screen wr | grep -qF "Symbols:" && screen wr | grep -qF "q 1/2: a queue gauge"; then
    pass "the help explains the symbols on screen"
else
    fail "the help explains the symbols on screen" "$(screen wr | sed -n 20,28p)"
fi
keys wr Escape
keys wr F10
if wait_rc wr && [ "$(cat "$T/wr.rc")" = 0 ]; then
    pass "F10 quits"
else
    fail "F10 quits" "rc=$(cat "$T/wr.rc" 2>/dev/null)"
fi

# --- mlviz lesson: setups with captions, no Lua --------------------------------------
mkdir -p "$T/lesson"
cp "$MLVIZ_DATA/assets/tour/data.yaml" "$T/lesson/starved.yaml"
cat > "$T/lesson/lesson.yaml" <<'YAML'
title: Where the bottleneck moves
steps:
  - setup: default
    caption: "One DGX H100 training Llama-8B: the accelerators set the pace."
  - setup: starved.yaml
    focus: data
    caption: "Images from a slow object store: now Data is the bottleneck ]]"
YAML
start les 100 30 -- lesson "$T/lesson/lesson.yaml"
ok=1 why=""
wait_for les "space: continue" 60 && screen les | head -1 | grep -qF "Llama-8B on 1x DGX H100" &&
    screen les | grep -q "BOTTLENECK ▶ ACCELERATORS" && screen les | grep -qF "set the pace." ||
    { ok=0; why="step 1: $(screen les | head -1)"; }
keys les Space
wait_title les "1 DATA │ Tour: images read" && screen les | grep -q "BOTTLENECK ▶ Data" &&
    wait_for les "now Data is the bottleneck ]]" 20 || { ok=0; why="$why step 2: $(screen les | head -1)"; }
keys les b
wait_title les "overview │ Llama-8B on 1x DGX H100" || { ok=0; why="$why back: $(screen les | head -1)"; }
[ $ok = 1 ] && pass "mlviz lesson shows each step's setup and caption; b goes back" ||
    fail "mlviz lesson shows each step's setup and caption; b goes back" "$why"
keys les q
printf 'steps:\n  - setup: default\n    captoin: x\n' > "$T/lesson/bad.yaml"
"$BIN" lesson "$T/lesson/bad.yaml" 2>"$T/lesson/err" >/dev/null
rc=$?
if [ $rc = 2 ] && grep -q "bad.yaml:3:5: unknown key" "$T/lesson/err"; then
    pass "a faulty lesson is refused with file:line:col"
else
    fail "a faulty lesson is refused with file:line:col" "rc=$rc $(cat "$T/lesson/err")"
fi

# A misspelt preset name gets the nearest one.
"$BIN" eval defualt >/dev/null 2>"$T/dym.err"
rc=$?
if [ $rc = 2 ] && grep -qF "did you mean 'default'?" "$T/dym.err"; then
    pass "a misspelt preset name gets did-you-mean"
else
    fail "a misspelt preset name gets did-you-mean" "rc=$rc $(cat "$T/dym.err")"
fi

[ "$FAILS" -eq 0 ]
