#!/bin/sh
# End-to-end tests of the interactive view: drive the real binary in a tmux
# pane as a person would and read the screen back with capture-pane.
# Prints "PASS name" or "FAIL name: why" per check; exits 1 if any failed.
# Run from the repository root; MLVIZ_BIN defaults to ./mlviz.
TL_RECORD=1 # the terminal modes before and after, the end time (tmux-lib: start)
. "$(dirname "$0")/tmux-lib"

# --- overview: five stages, numbers that move ---------------------------------
start ov 100 30 -- -c default
if wait_for ov "BOTTLENECK"; then
    s=$(screen ov)
    missing=""
    for w in "1 DATA" "2 CPUs" "3 ACCELERATORS" "4 INTERCONNECT" "5 SUPPORTING INFRASTRUCTURE" \
             "batch" "loading" "gradient sync" "system support" "tokens/s" "MFU" "PUE"; do
        echo "$s" | grep -qF -- "$w" || missing="$missing '$w'"
    done
    [ -z "$missing" ] && pass "overview shows the five stages and arrows" ||
        fail "overview shows the five stages and arrows" "missing$missing"
    a=$(clock ov)
    b=$(wait_clock_moves ov "$a" 30)
    [ -n "$a" ] && [ "$a" != "$b" ] && pass "overview numbers change over time" ||
        fail "overview numbers change over time" "clock '$a' then '$b'"
else
    fail "overview shows the five stages and arrows" "no overview: $(screen ov | head -3)"
fi

# --- digits open each stage with its knobs; Esc returns ---------------------------
ok=1 why=""
for d in 1 2 3 4 5; do
    keys ov "$d"
    case $d in
        1) want="1 DATA" knob="storage" ;;
        2) want="2 CPUs" knob="loader workers" ;;
        3) want="3 ACCELERATORS" knob="micro batch" ;;
        4) want="4 INTERCONNECT" knob="tensor parallel" ;;
        5) want="5 INFRASTRUCTURE" knob="cooling" ;;
    esac
    if ! wait_title ov "$want" || ! wait_for ov "knobs" 20 || ! screen ov | grep -qF "$knob"; then
        ok=0 why="$why stage $d"
    fi
    keys ov Escape
    wait_title ov "overview" || { ok=0; why="$why esc-from-$d"; }
done
[ $ok = 1 ] && pass "digits open each stage view with its knobs" ||
    fail "digits open each stage view with its knobs" "$why"

# --- arrows + Enter ----------------------------------------------------------
keys ov 1
wait_title ov "1 DATA"
keys ov Escape
wait_title ov "overview"
keys ov Right Enter
if wait_title ov "2 CPUs" && wait_for ov "knobs" 20; then
    pass "arrows and Enter open the selected stage"
else
    fail "arrows and Enter open the selected stage" "$(screen ov | head -1)"
fi
keys ov Escape
wait_title ov "overview"

# --- help ----------------------------------------------------------------------
keys ov "?"
if wait_for ov "help - keys" 20 && screen ov | grep -q "quit mlviz"; then
    pass "? shows the help with every key"
else
    fail "? shows the help with every key" "no help overlay"
fi
keys ov "?"

# --- resize --------------------------------------------------------------------
$TM resize-window -t ov -x 140 -y 44 2>/dev/null || $TM resize-pane -t ov -x 140 -y 44
i=0
while [ $i -lt 30 ] && ! screen ov | sed -n '44p' | grep -q "quit"; do sleep 0.1; i=$((i + 1)); done
last=$(screen ov | sed -n '44p')
w=$(screen ov | awk '{ if (length($0) > m) m = length($0) } END { print m }')
if echo "$last" | grep -q "quit" && screen ov | grep -q "4 INTERCONNECT"; then
    pass "resizing the pane lays the screen out again"
else
    fail "resizing the pane lays the screen out again" "row 44: '$last' (widest $w)"
fi

# --- q quits with status 0 and the terminal as it was ---------------------------------
keys ov q
if wait_rc ov; then
    rc=$(cat "$T/ov.rc")
    [ "$rc" = 0 ] && pass "q exits 0" || fail "q exits 0" "exit status $rc"
    cmp -s "$T/ov.before" "$T/ov.after" && pass "terminal modes restored after q" ||
        fail "terminal modes restored after q" "stty before $(cat "$T/ov.before") after $(cat "$T/ov.after")"
else
    fail "q exits 0" "still running"
fi

# --- mouse: a click on the Data box opens it ------------------------------------------
start ms 100 30 -- -c default
if wait_for ms "BOTTLENECK"; then
    # Data box: top-left of the screen, row 3 column 5 (1-based SGR coordinates).
    $TM send-keys -t ms -l "$(printf '\033[<0;5;4M\033[<0;5;4m')"
    if wait_title ms "1 DATA" && wait_for ms "knobs" 20; then
        pass "a mouse click on a stage box opens it"
    else
        fail "a mouse click on a stage box opens it" "$(screen ms | head -1)"
    fi
else
    fail "a mouse click on a stage box opens it" "no overview"
fi
$TM kill-session -t ms

# --- a knob changes the figures: slower storage makes Data the bottleneck --------------
sed -e 's/^cluster:/cluster:\n  storage_bw_gbs: 2/' \
    -e 's/sample_bytes: [0-9e.]*/sample_bytes: 6e7/' \
    "$MLVIZ_DATA/scenarios/presets/default.yaml" > "$T/slow.yaml"
start kb 100 30 -- -c "$T/slow.yaml"
if wait_for kb "BOTTLENECK"; then
    before=$(screen kb | grep "BOTTLENECK" | head -1)
    keys kb 1
    wait_title kb "1 DATA"
    # Second knob: the shared tier's bandwidth; halve it three times.
    keys kb Tab
    keys kb Left
    keys kb Left
    keys kb Left
    sleep 0.5
    keys kb Escape
    wait_title kb "overview"
    after=$(screen kb | grep "BOTTLENECK" | head -1)
    if echo "$after" | grep -q "BOTTLENECK . DATA" && [ "$before" != "$after" ]; then
        pass "a knob change moves the bottleneck (slower storage: Data)"
    else
        fail "a knob change moves the bottleneck (slower storage: Data)" "before '$before' after '$after'"
    fi
else
    fail "a knob change moves the bottleneck (slower storage: Data)" "no overview: $(screen kb | head -2)"
fi
$TM kill-session -t kb

# --- NO_COLOR: no colour escapes in the captured screen ---------------------------------
start nc 100 30 NO_COLOR=1 -- -c default
if wait_for nc "BOTTLENECK"; then
    $TM capture-pane -e -p -t nc > "$T/nc.ansi"
    # SGR colour parameters: 30-37, 40-47, 90-97, 100-107, 38;x and 48;x.
    if python3 - "$T/nc.ansi" <<'PY'
import re, sys
data = open(sys.argv[1], encoding="utf-8", errors="replace").read()
for m in re.finditer(r"\x1b\[([0-9;]*)m", data):
    ps = [int(p) for p in m.group(1).split(";") if p]
    for p in ps:
        if 30 <= p <= 38 or 40 <= p <= 48 or 90 <= p <= 97 or 100 <= p <= 107:
            sys.exit(1)
sys.exit(0)
PY
    then
        pass "NO_COLOR: the screen carries no colour"
    else
        fail "NO_COLOR: the screen carries no colour" "colour escapes found"
    fi
    # And with colours the same screen does carry them (the check above can fail).
else
    fail "NO_COLOR: the screen carries no colour" "no overview"
fi
$TM kill-session -t nc

# --- too small ---------------------------------------------------------------------
start sm 60 20 -- -c default
if wait_for sm "at least 80x24"; then
    pass "below the minimum it names the size it needs"
else
    fail "below the minimum it names the size it needs" "$(screen sm | tr -s ' \n' ' ' | cut -c1-120)"
fi
$TM kill-session -t sm

# --- --frames N quits by itself -------------------------------------------------------
start fr 80 24 -- --frames 5 --ascii
if wait_rc fr && [ "$(cat "$T/fr.rc")" = 0 ]; then
    pass "--frames N quits after N frames with status 0"
else
    fail "--frames N quits after N frames with status 0" "rc '$(cat "$T/fr.rc" 2>/dev/null)'"
fi
$TM kill-session -t fr 2>/dev/null

# --- 80x24, ASCII, tour ------------------------------------------------------------------
start tr 80 24 -- --tour --ascii
if wait_for tr "Tour 1/7" && screen tr | grep -q "3 ACCELERATORS"; then
    keys tr n
    if wait_for tr "Tour 2/7" 20 && wait_title tr "1 DATA"; then
        pass "tour mode walks the stages with captions (80x24, ASCII)"
    else
        fail "tour mode walks the stages with captions (80x24, ASCII)" "no second stop"
    fi
    if screen tr | grep -q "[─│╭]"; then
        fail "--ascii draws no line-drawing glyphs" "UTF-8 glyphs on screen"
    else
        pass "--ascii draws no line-drawing glyphs"
    fi
else
    fail "tour mode walks the stages with captions (80x24, ASCII)" "$(screen tr | tail -4 | tr -s ' ')"
fi
$TM kill-session -t tr

# --- SIGTERM restores the terminal ------------------------------------------------------
start sg 100 30 -- -c default
if wait_for sg "BOTTLENECK"; then
    # The pane runs our wrapper shell; its child is mlviz (env execs it).
    shpid=$($TM list-panes -t sg -F '#{pane_pid}')
    pid=$(pgrep -P "$shpid" 2>/dev/null | head -n 1)
    if [ -n "$pid" ]; then
        kill -TERM "$pid"
        if wait_rc sg && cmp -s "$T/sg.before" "$T/sg.after"; then
            pass "SIGTERM ends it with the terminal restored"
        else
            fail "SIGTERM ends it with the terminal restored" "rc '$(cat "$T/sg.rc" 2>/dev/null)'"
        fi
    else
        fail "SIGTERM ends it with the terminal restored" "no pid"
    fi
else
    fail "SIGTERM ends it with the terminal restored" "no overview: $(screen sg | head -2)"
fi
$TM kill-session -t sg 2>/dev/null

# --- no TTY ----------------------------------------------------------------------------
"$BIN" < /dev/null > "$T/notty.out" 2> "$T/notty.err"
rc=$?
if [ $rc = 2 ] && grep -q "mlviz eval" "$T/notty.err"; then
    pass "without a TTY: a clear message and exit 2"
else
    fail "without a TTY: a clear message and exit 2" "rc $rc: $(cat "$T/notty.err")"
fi

[ $FAILS = 0 ]
