#!/bin/sh
# idle_cpu: CPU used by mlviz in a tmux pane (utime + stime from
# /proc/PID/stat), as a share of one core: animating the overview for 5 s
# (`anim_cpu_pct: P P`), then paused with no input for 5 s (`idle_cpu_pct:
# P P`: the view draws once and blocks in poll()). Both columns are the
# same figure (CPU time over wall time; tests/bench/bench.h). Uses
# $MLVIZ_BIN (default ./mlviz).
BIN=${MLVIZ_BIN:-./mlviz}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
export MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
SECONDS_MEASURED=5
SOCK=mlviz-idle-$$
TM="tmux -L $SOCK -f /dev/null"
if ! command -v tmux >/dev/null 2>&1 || [ ! -r /proc/self/stat ]; then
    echo "idle_cpu_pct: skipped (needs tmux and /proc)" >&2
    exit 0
fi
trap '$TM kill-server 2>/dev/null' EXIT INT TERM
$TM new-session -d -s idle -x 120 -y 40 "env TERM=xterm-256color $BIN -c default"
sleep 1
pid=$($TM list-panes -t idle -F '#{pane_pid}')
# The pane's shell usually execs env, which execs mlviz; if a shell stayed
# in between, measure its child.
if [ "$(cat /proc/$pid/comm 2>/dev/null)" != mlviz ]; then
    child=$(pgrep -P "$pid" 2>/dev/null | head -n 1)
    [ -n "$child" ] && pid=$child
fi
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
hz=$(getconf CLK_TCK)
# measure NAME: the share of a core over SECONDS_MEASURED.
measure() {
    a=$(ticks "$pid")
    sleep $SECONDS_MEASURED
    b=$(ticks "$pid")
    if [ -z "$a" ] || [ -z "$b" ]; then
        echo "$1: failed (mlviz exited)" >&2
        exit 1
    fi
    awk -v n="$1" -v a="$a" -v b="$b" -v hz="$hz" -v s=$SECONDS_MEASURED \
        'BEGIN { p = (b - a) / hz / s * 100; printf "%s: %.2f %.2f\n", n, p, p }'
}
measure anim_cpu_pct
$TM send-keys -t idle Space
sleep 0.5
measure idle_cpu_pct
