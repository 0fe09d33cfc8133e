#!/bin/sh
# The legend of symbols and abbreviations, reached from the help (? and
# scrolled): the bottleneck diamond, queue gauges (q 1/2), HFU and MFU, the
# reading order of the stages, the sparkline scale, the roofline point and
# the ZeRO-3 label, each in the glyphs on screen. Prints "PASS name" or
# "FAIL name: why" per check.
. "$(dirname "$0")/tmux-lib"

start lg 100 30 --
wait_title lg overview
keys lg "?"
wait_for lg "help - keys and symbols" 20 || fail "? opens the help of keys and symbols" "$(screen lg | head -3)"
press_until lg NPage "ZeRO-3 w+g: weights gathered"
s=$(screen lg)
for want in "◆ BOTTLENECK: the stage that sets the pace" "q 1/2: a queue gauge" \
    "HFU: all executed FLOPs" "MFU: useful model FLOPs" "Reading order: 1 ▶ 2 ▶ 3, ▼ 4" \
    "◀ 5 (heat to cooling)" "top 114 k: a sparkline's scale" "• on the roofline" \
    "TP PP DP: tensor, pipeline, data parallel" "ZeRO-3 w+g: weights gathered"; do
    if printf '%s\n' "$s" | grep -qF -- "$want"; then
        pass "the legend explains '$want'"
    else
        fail "the legend explains '$want'" "$(printf '%s\n' "$s" | sed -n 10,29p)"
    fi
done
# The words of the live figures and the step bar (issue 22).
for want in "warming up: live figures wait" "stragglers" "exposed: communication time" \
    "ahead 2: batches the loaders" "scale-up domain: devices joined"; do
    press_until lg Down "$want"
    if screen lg | grep -qF -- "$want"; then
        pass "the legend explains '$want'"
    else
        fail "the legend explains '$want'" "$(screen lg | sed -n 10,29p)"
    fi
done
keys lg Escape
keys lg q

# In ASCII the legend names the ASCII glyphs.
start la 100 30 -- --ascii
wait_title la overview
keys la "?"
press_until la NPage "ZeRO-3 w+g"
if screen la | grep -qF "! BOTTLENECK: the stage" && screen la | grep -qF "Reading order: 1 >"; then
    pass "with --ascii the legend shows the ASCII symbols"
else
    fail "with --ascii the legend shows the ASCII symbols" "$(screen la | grep -E 'BOTTLENECK|Reading')"
fi
keys la Escape
keys la q

[ "$FAILS" -eq 0 ]
