#!/bin/sh
# End-to-end tests of terminal hygiene: whatever ends mlviz (a quit or
# crash signal, Ctrl-C, Ctrl-\) leaves the terminal as it found it (the same
# stty modes, the normal screen, a visible cursor, no mouse reporting) and
# exits with the signal's status (128 + its number). Also: no terminal
# capable of cursor addressing (TERM=dumb, TERM unset) gets mlviz's own
# message and status 2. Prints "PASS name" or "FAIL name: why" per check.
TL_RECORD=1 # the terminal modes before and after, the end time (tmux-lib: start)
. "$(dirname "$0")/tmux-lib"

# signum NAME: the number of SIGNAME on this system (asked of Python once).
SIGNUMS=$(python3 -c 'import signal
for n in dir(signal):
    if n.startswith("SIG") and not n.startswith("SIG_"): print(n[3:], int(getattr(signal, n)))')
signum() { echo "$SIGNUMS" | awk -v n="$1" '$1 == n { print $2; exit }'; }

# ignored_here SESSION NAME: mlviz in SESSION started with SIGNAME ignored,
# read from the wrapper shell that runs it (mlviz inherits its dispositions):
# Python ignores SIGXFSZ for the programs it starts unless told otherwise,
# nohup ignores SIGHUP. mlviz keeps what its caller ignored
# (tui/termguard.c), so such a signal must leave it running.
ignored_here() {
    mask=$(awk '/^SigIgn:/ { print $2 }' "/proc/$($TM display -p -t "$1" '#{pane_pid}')/status" 2>/dev/null)
    [ -n "$mask" ] && [ $(((0x$mask >> ($(signum "$2") - 1)) & 1)) = 1 ]
}

# check NAME SIGNAL: the session NAME was ended by SIGNAL.
check() {
    if ignored_here "$1" "$2"; then
        check_ignored "$1" "$2"
        return
    fi
    want=$((128 + $(signum "$2")))
    if ! wait_rc "$1"; then
        fail "SIG$2 ends mlviz" "still running: $(screen "$1" | head -2)"
        return
    fi
    rc=$(cat "$T/$1.rc") m=$(modes "$1")
    if [ "$rc" = "$want" ] && cmp -s "$T/$1.before" "$T/$1.after" && [ "$m" = "0 1 0" ]; then
        pass "SIG$2 exits $want and restores the terminal"
    else
        fail "SIG$2 exits $want and restores the terminal" \
            "rc=$rc modes (alternate cursor mouse)=$m stty $(cmp -s "$T/$1.before" "$T/$1.after" && echo same || echo changed)"
    fi
}

# check_ignored NAME SIGNAL: SIGNAL, ignored by this shell, left the session
# running: it still answers a key (space shows PAUSED), and a SIGTERM after it
# still ends it with 143 and the terminal restored.
check_ignored() {
    keys "$1" Space
    if ! wait_title "$1" "PAUSED"; then
        fail "SIG$2 (ignored by the caller) leaves mlviz running" "$(screen "$1" | head -2)"
        return
    fi
    kill -TERM "$(pid_of "$1")"
    if wait_rc "$1" && [ "$(cat "$T/$1.rc")" = 143 ] && cmp -s "$T/$1.before" "$T/$1.after"; then
        pass "SIG$2 (ignored by the caller) leaves mlviz running; SIGTERM still ends it cleanly"
    else
        fail "SIG$2 (ignored by the caller) leaves mlviz running" "rc=$(cat "$T/$1.rc" 2>/dev/null)"
    fi
}

# Sessions in small batches (each animates at 30 frames per second).
run_batch() {
    for s in "$@"; do start "$s" 100 30 -- -c default; done
    for s in "$@"; do
        wait_for "$s" BOTTLENECK 100 || fail "SIG$s: view starts" "$(screen "$s" | head -2)"
    done
    for s in "$@"; do
        # The view is up: the alternate screen, no cursor, mouse reports on.
        [ "$(modes "$s")" = "1 0 1" ] || fail "SIG$s: view owns the terminal" "$(modes "$s")"
        case $s in
            INT) keys "$s" C-c ;;
            QUIT) keys "$s" 'C-\' ;;
            *) kill -"$(signum "$s")" "$(pid_of "$s")" ;;
        esac
    done
    for s in "$@"; do check "$s" "$s"; done
}
run_batch INT QUIT TERM HUP
run_batch USR1 USR2 ALRM PIPE
run_batch XCPU XFSZ VTALRM PROF
run_batch POLL TRAP SYS RTMIN
# Crash signals: the handler puts the terminal back and dies of the signal.
run_batch SEGV ABRT FPE BUS ILL

# --- terminals that cannot address the cursor ---------------------------------
start dumb 100 30 TERM=dumb -- -c default
if wait_rc dumb && [ "$(cat "$T/dumb.rc")" = 2 ] &&
    screen dumb | tr -d "\n" | grep -qF "needs a terminal with cursor addressing"; then
    pass "TERM=dumb gets a message and status 2"
else
    fail "TERM=dumb gets a message and status 2" "rc=$(cat "$T/dumb.rc" 2>/dev/null) $(screen dumb | head -3)"
fi
start noterm 100 30 -u TERM -- -c default
if wait_rc noterm && [ "$(cat "$T/noterm.rc")" = 2 ] &&
    screen noterm | tr -d "\n" | grep -qF "needs a terminal with cursor addressing"; then
    pass "an unset TERM gets a message and status 2"
else
    fail "an unset TERM gets a message and status 2" "rc=$(cat "$T/noterm.rc" 2>/dev/null) $(screen noterm | head -3)"
fi
start unknown 100 30 TERM=no-such-terminal -- -c default
if wait_rc unknown && [ "$(cat "$T/unknown.rc")" = 2 ] &&
    screen unknown | grep -qF "no-such-terminal"; then
    pass "an unknown TERM gets a message naming it and status 2"
else
    fail "an unknown TERM gets a message naming it and status 2" "rc=$(cat "$T/unknown.rc" 2>/dev/null) $(screen unknown | head -3)"
fi

[ $FAILS = 0 ]
