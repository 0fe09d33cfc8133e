#!/bin/sh
# Themes: no theme draws near-white ink on the terminal's own paper: not
# --theme light, not COLORFGBG with a light background, and not the default
# theme either, which must stay readable where the paper is not known
# (issue 22; tests/e2e/screens.sh measures its contrast); in mono each part of the step-time bar has its own
# pattern with a legend. Prints "PASS name" or "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

SHORT=$MLVIZ_DATA/tests/setups/good/short-steps.yaml
colours() { $TM capture-pane -e -p -t "$1"; }

# near_white SESSION: true when a row draws xterm colour 231 or 255 ink on
# the terminal's own background (rows with a background of their own, the
# title and caption bars, do not count): invisible on white paper.
near_white() { colours "$1" | white_rows; }
white_rows() { grep '38;5;\(231\|255\)m' | grep -vq '48;5;'; }
# The check itself sees white ink on paper, and not on a bar of its own.
printf '\033[38;5;255mX\n' | white_rows && ! printf '\033[38;5;255;48;5;25mX\n' | white_rows ||
    fail "near-white ink is recognised" "the check sees none in a line that has it"

start dark 100 30 -- -c "$SHORT"
start light 100 30 -- -c "$SHORT" --theme light
start auto 100 30 "COLORFGBG='0;15'" -- -c "$SHORT"
up=1
for s in dark light auto; do wait_for $s "BOTTLENECK" 60 || { up=0; echo "no view in $s: $(screen $s | head -3)"; }; done
if [ $up = 1 ] && ! near_white dark && ! near_white light && ! near_white auto; then
    pass "the default theme, --theme light and COLORFGBG light backgrounds draw no near-white ink"
else
    fail "the default theme, --theme light and COLORFGBG light backgrounds draw no near-white ink" \
        "dark $(near_white dark && echo has || echo lacks) it; light $(near_white light && echo has || echo lacks); auto $(near_white auto && echo has || echo lacks)"
fi

# Figures by paper (theme_figure_style): on an unknown paper (no
# COLORFGBG, tmux does not answer OSC 11) and on a known dark one the dim
# grey 243 lacks the 5:1 margin, so no figure is drawn in it (its labels
# are); on a light paper the light theme's grey 242 has it (5.3:1) and
# its figures keep it.
grey_figure() { colours "$1" | grep -q "38;5;$2m[^$(printf '\033')]*[0-9]"; }
start dark2 100 30 "COLORFGBG='15;0'" -- -c "$SHORT"
start unknown 100 30 -u COLORFGBG -- -c "$SHORT"
if wait_for dark2 "BOTTLENECK" 60 && wait_for unknown "BOTTLENECK" 60 && ! grey_figure unknown 243 &&
    ! grey_figure dark2 243 && colours unknown | grep -q "38;5;243m" && grey_figure auto 242; then
    pass "figures leave the dim grey on an unknown or dark paper and keep the light theme's grey on light paper"
else
    fail "figures leave the dim grey on an unknown or dark paper and keep the light theme's grey on light paper" \
        "grey figures: unknown paper $(grey_figure unknown 243 && echo has || echo lacks) them, dark $(grey_figure dark2 243 && echo has || echo lacks), light $(grey_figure auto 242 && echo has || echo lacks)"
fi
keys dark2 q
keys unknown q

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
