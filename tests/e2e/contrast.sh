#!/bin/sh
# Figures readable on any paper (issue 22): the default theme, started
# without COLORFGBG in tmux (which does not answer the OSC 11 background
# question, so the paper is unknown), draws every digit on screen with a
# WCAG contrast ratio of at least 4.5:1 both on white paper (the terminal's
# own ink taken as black) and on black paper (its ink white). At 80x24,
# 100x30 and 200x60 it reads the overview, the five stage views, the plan
# screen, the tour and the inference overview of a data-starved setup, from
# tmux's capture with colours; the ratio is computed from the xterm-256
# palette (the colours a PNG rendering of the capture shows: a rendering
# through aha and chromium measured the same, see docs/TUI.md). Prints
# PASS/FAIL lines.
. "$(dirname "$0")/tmux-lib"
command -v python3 >/dev/null || { echo "SKIP contrast: no python3"; exit 0; }

# grab SESSION NAME: the screen with its colours into $T/NAME.ansi.
grab() { $TM capture-pane -e -p -t "$1" > "$T/$2.ansi"; }

visit() {
    size=$1 cols=${1%x*} rows=${1#*x}
    s=c$cols
    start "$s" "$cols" "$rows" -u COLORFGBG -- --set cluster.storage=hdd --speed 10
    wait_for "$s" "BOTTLENECK" 60 || { echo "FAIL $size: no overview"; return; }
    keys "$s" Space
    wait_title "$s" "PAUSED"
    grab "$s" "$size-overview"
    for d in 1 2 3 4 5; do
        keys "$s" "$d"
        wait_title "$s" "│ $d " && grab "$s" "$size-stage$d"
    done
    keys "$s" Escape p
    wait_for "$s" "  rank  " 100 && grab "$s" "$size-plan"
    keys "$s" Escape t
    wait_for "$s" "end tour" && grab "$s" "$size-tour"
    keys "$s" Escape i
    wait_title "$s" "serving" && grab "$s" "$size-infer"
    keys "$s" q
    wait_rc "$s"
}

for size in 80x24 100x30 200x60; do
    (visit "$size") > "$T/visit-$size.log" 2>&1 &
done
wait
cat "$T"/visit-*.log
FAILS=$((FAILS + $(cat "$T"/visit-*.log | grep -c '^FAIL ')))
python3 - "$T"/*.ansi <<'EOF'
import re, sys
lv = [0, 95, 135, 175, 215, 255]
basic = [(0,0,0),(205,0,0),(0,205,0),(205,205,0),(0,0,238),(205,0,205),(0,205,205),(229,229,229),
         (127,127,127),(255,0,0),(0,255,0),(255,255,0),(92,92,255),(255,0,255),(0,255,255),(255,255,255)]
def rgb(n):
    if n < 16: return basic[n]
    if n < 232:
        n -= 16; return (lv[n // 36], lv[n // 6 % 6], lv[n % 6])
    v = 8 + 10 * (n - 232); return (v, v, v)
def lum(c):
    def f(x):
        x /= 255; return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])
def ratio(a, b):
    la, lb = lum(a), lum(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
PAPER, INK = (255, 255, 255), (0, 0, 0)
def cells(text):
    """(row, col, char, fg, bg, reverse) per cell of a tmux capture-pane -e dump."""
    for row, line in enumerate(text.split("\n")):
        fg = bg = None; rev = False; col = 0
        for m in re.finditer(r"\x1b\[([0-9;]*)m|\x1b\][^\x07]*\x07|([^\x1b])", line):
            if m.group(2) is not None:
                yield row, col, m.group(2), fg, bg, rev
                col += 1
                continue
            if m.group(1) is None:
                continue
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0: fg = bg = None; rev = False
                elif c == 7: rev = True
                elif c == 27: rev = False
                elif c == 39: fg = None
                elif c == 49: bg = None
                elif 30 <= c <= 37: fg = basic[c - 30]
                elif 90 <= c <= 97: fg = basic[c - 82]
                elif 40 <= c <= 47: bg = basic[c - 40]
                elif 100 <= c <= 107: bg = basic[c - 92]
                elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    if c == 38: fg = rgb(codes[i + 2])
                    else: bg = rgb(codes[i + 2])
                    i += 2
                elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
                    col3 = tuple(codes[i + 2:i + 5])
                    if c == 38: fg = col3
                    else: bg = col3
                    i += 4
                i += 1
fails = 0
for paper, ink, name in (((255, 255, 255), (0, 0, 0), "white"), ((0, 0, 0), (255, 255, 255), "black")):
    for path in sys.argv[1:]:
        screen = path.split("/")[-1][:-5]
        text = open(path, encoding="utf-8").read()
        low, n = [], 0
        for row, col, ch, fg, bg, rev in cells(text):
            if not ch.isdigit():
                continue
            f, b = fg or ink, bg or paper
            if rev:
                f, b = b, f
            n += 1
            r = ratio(f, b)
            if r < 4.5:
                low.append("row %d col %d %.2f:1 (ink %s on %s)" % (row + 1, col + 1, r, f, b))
        if n == 0:
            print("FAIL %s on %s paper: no figure on screen" % (screen, name))
            fails += 1
        elif low:
            print("FAIL %s on %s paper: %d of %d figure cells below 4.5:1, e.g. %s"
                  % (screen, name, len(low), n, low[0]))
            fails += 1
        else:
            print("PASS %s on %s paper: all %d figure cells at least 4.5:1" % (screen, name, n))
sys.exit(1 if fails else 0)
EOF
[ $? -eq 0 ] && [ "$FAILS" -eq 0 ]
