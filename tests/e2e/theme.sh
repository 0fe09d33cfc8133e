#!/bin/sh
# Themes: --theme light (and COLORFGBG with a light background) draws no
# near-white ink; in mono each part of the step-time bar has its own
# pattern with a legend. Prints "PASS name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

SHORT=$MLVIZ_DATA/tests/setups/good/short-steps.yaml
colours() { $TM capture-pane -e -p -t "$1"; }

# near_white SESSION: true when a row draws xterm colour 231 or 255 ink on
# the terminal's own background (rows with a background of their own, the
# title and caption bars, do not count): invisible on white paper.
near_white() { colours "$1" | grep '38;5;\(231\|255\)m' | grep -vq '48;5;'; }

start dark 100 30 -- -c "$SHORT"
start light 100 30 -- -c "$SHORT" --theme light
start auto 100 30 "COLORFGBG='0;15'" -- -c "$SHORT"
up=1
for s in dark light auto; do wait_for $s "BOTTLENECK" 60 || { up=0; echo "no view in $s: $(screen $s | head -3)"; }; done
if [ $up = 1 ] && near_white dark && ! near_white light && ! near_white auto; then
    pass "--theme light and COLORFGBG light backgrounds draw no near-white ink"
else
    fail "--theme light and COLORFGBG light backgrounds draw no near-white ink" \
        "dark $(near_white dark && echo has || echo lacks) it; light $(near_white light && echo has || echo lacks); auto $(near_white auto && echo has || echo lacks)"
fi

start mono 100 30 -- -c "$SHORT" --mono
if wait_for mono "compute" 60; then
    row=$(screen mono | grep "^ step ")
    legend=$(screen mono | grep "compute .*comm .*other")
    if echo "$row" | grep -qF "█" && echo "$row" | grep -qF "▪" &&
        echo "$legend" | grep -qF "█ compute" && echo "$legend" | grep -qF "▪ other"; then
        pass "mono: the step-time bar parts have their own patterns and a legend"
    else
        fail "mono: the step-time bar parts have their own patterns and a legend" "$row / $legend"
    fi
else
    fail "mono: the step-time bar parts have their own patterns and a legend" "no view"
fi
for s in dark light auto mono; do keys $s q; done

[ "$FAILS" -eq 0 ]
