#!/bin/sh
# Every footer key does something (issue 22), at 80x24, 100x30 and 200x60:
# on the overview, a stage view, the tour and the plan screen, each key the
# footer names is pressed (paused, so only the key changes the screen) and
# the screen must change; a known key then puts the screen back before the
# next. The overview's footer keeps "t tour" at every size. Prints PASS/FAIL.
. "$(dirname "$0")/tmux-lib"

# footer SESSION: the footer (the last row).
footer() { screen "$1" | tail -1; }
# labels_of FOOTER: the footer's key labels, one a line ("1-5", "Esc", "?").
labels_of() { printf '%s\n' "$1" | awk '{ sub(/^ */, ""); n = split($0, f, /   */)
    for (i = 1; i <= n; i++) { split(f[i], w, " "); if (w[1] != "") print w[1] } }'; }
# inked SESSION: the screen with its colours (a selection may be only that).
inked() { $TM capture-pane -e -p -t "$1"; }
NL='
'
# changed SESSION BEFORE: poll until the screen (inked) differs from BEFORE.
differs() { [ "$SCREEN" != "$before" ]; }
changed() {
    before=$2
    poll_until 30 differs "$1" capture-pane -e -p
}
no_restart_note() { ! on_screen "restarted from"; }
# back SESSION FOOTER: poll until the footer reads FOOTER again.
footer_is() { [ "${SCREEN##*"$NL"}" = "$want_footer" ]; }
back() {
    want_footer=$2
    poll_until 30 footer_is "$1"
}
# tmux_key CONTEXT LABEL: the key to send for a footer label.
tmux_key() {
    case $2 in
    1-5) [ "$1" = stage ] && echo 2 || echo 1 ;;
    Esc) echo Escape ;;
    space) echo Space ;;
    *) echo "$2" ;;
    esac
}
# undo CONTEXT LABEL: the keys that bring the context back after LABEL.
undo() {
    case $1:$2 in
    stage:1-5) echo 1 ;;
    stage:Esc | stage:t) echo "Escape 1" ;;
    stage:p) echo "Escape overview 1" ;;
    plan:Enter | plan:Esc) echo "overview p" ;;
    tour:t) echo t ;;
    tour:n) echo b ;;
    tour:b) echo n ;;
    *:1-5 | *:Enter | *:p | *:\? | overview:t) echo Escape ;;
    *:space) echo Space ;;
    *:+) echo - ;;
    *:i) echo i ;;
    *:Tab) echo BTab ;;
    *:Right) echo Left ;;
    *:e) echo e ;;
    *:Down) echo Up ;;
    esac
}

# press_all SESSION SIZE CONTEXT: press every footer key but q (the tour's
# Esc, which ends it, last) and check that each changes the screen.
press_all() {
    s=$1 size=$2 ctx=$3
    home=$(footer "$s")
    all=$(labels_of "$home")
    shown=$(echo $all)
    # every label but q and Esc, then Esc
    order="" esc=""
    for label in $all; do
        case $label in q) ;; Esc) esc=Esc ;; *) order="$order $label" ;; esac
    done
    bad=""
    for label in $order $esc; do
        [ "$ctx:$label" = tour:b ] && { keys "$s" n; back "$s" "$home"; sleep 0.2; }
        # r resets the run: step it once first, so there is something to reset.
        [ "$label" = r ] && { keys "$s" .; sleep 0.3; }
        was=$(inked "$s")
        keys "$s" "$(tmux_key "$ctx" "$label")"
        changed "$s" "$was" || bad="$bad '$label'"
        [ "$ctx:$label" = tour:Esc ] && break
        for k in $(undo "$ctx" "$label"); do
            # "overview": wait for the overview (a loaded plan row) first.
            if [ "$k" = overview ]; then
                wait_for "$s" "Enter open" 100
            else
                # (the wait in the server: one tmux client, no sleep)
                keys "$s" "$k" \; run-shell -d 0.1
            fi
        done
        [ "$ctx:$label" = plan:Enter ] || [ "$ctx:$label" = plan:Esc ] &&
            wait_for "$s" "  rank  " 100
        back "$s" "$home" || { bad="$bad (not back after '$label': $(screen "$s" | sed -n '1p;$p'))"; break; }
        # r's message ("restarted ...") goes away by itself 6 s later: wait
        # for that, so its going is not taken for the next key's change.
        [ "$label" = r ] && { poll_until 100 no_restart_note "$s" || bad="$bad (r's message stays)"; }
    done
    if [ -z "$bad" ]; then
        pass "$size $ctx: every footer key changes the screen ($shown)"
    else
        fail "$size $ctx: every footer key changes the screen" "no change for$bad"
    fi
}

run_size() {
    size=$1 cols=${1%x*} rows=${1#*x}
    s=f$cols
    start "$s" "$cols" "$rows" -- --speed 10
    wait_for "$s" "BOTTLENECK" 60 || { fail "$size start" "$(screen "$s" | head -2)"; return; }
    keys "$s" Space
    wait_title "$s" "PAUSED"
    if footer "$s" | grep -q "t tour"; then
        pass "$size: the overview's footer keeps t tour"
    else
        fail "$size: the overview's footer keeps t tour" "$(footer "$s")"
    fi
    press_all "$s" "$size" overview
    keys "$s" 1
    wait_title "$s" "│ 1 " && press_all "$s" "$size" stage
    keys "$s" Escape p
    wait_for "$s" "  rank  " 100 && press_all "$s" "$size" plan
    keys "$s" Escape t
    i=0
    while [ $i -lt 30 ] && ! footer "$s" | grep -q "end tour"; do sleep 0.1; i=$((i + 1)); done
    press_all "$s" "$size" tour
    keys "$s" q
    if wait_rc "$s"; then
        pass "$size: q quits"
    else
        fail "$size: q quits" "$(screen "$s" | tail -1)"
    fi
}

for size in 80x24 100x30 200x60; do
    (run_size "$size"; exit $FAILS) > "$T/$size.log" 2>&1 &
done
wait
for size in 80x24 100x30 200x60; do
    cat "$T/$size.log"
    FAILS=$((FAILS + $(grep -c '^FAIL ' "$T/$size.log")))
done
exit $((FAILS > 0))
