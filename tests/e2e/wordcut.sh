#!/bin/sh
# Whole-screen word-cut layout test: nothing on screen is cut mid-word by a
# border or by the screen's right edge (issue 12, "readable at projector
# sizes"). At 80x24, 100x30, 140x40 and 200x60 it visits the overview, the
# five stage views (keys 1-5, every page of each explanation but at 200x60),
# the help overlay, the plan screen, a played story at a pause and
# its parameters, and the tour's stops, the overview of a data-starved setup,
# the verdict of a throttled setup and
# of one that cannot run (overview and Infrastructure view), and at 80x24,
# 100x30 and 200x60
# the inference mode's overview and stage views (issue 25) of three serving
# setups; it captures each screen with tmux and looks for cut words, for
# cut figures (an ellipsis right after a number, "450…", or after a word a
# figure follows in the views' formats, "GPUs starved…") and for numbers in
# scientific notation ("2e-05").
#
# The rule (what counts as a cut word):
#   1. A "run" is a maximal sequence of ASCII letters on one screen row.
#   2. A run sits at an edge when the next character is a box-drawing
#      character (U+2500-U+257F: borders, corners, rules), or a space and
#      then one (the box's padding column: text clipped to a box's inner
#      width stops there), or when it ends in the screen's last two columns.
#      Likewise at its start: a box character, or one, then a space, before
#      it, or the screen's first two columns (a word split by wrapping
#      continues there).
#   3. A run at an edge is a cut when it is not a word of the sources but
#      begins (at the end edge) or ends (at the start edge) a longer word of
#      the sources. The sources are the words the screen can show: the
#      assets (stage texts, tour, catalog, setups, models), the shipped
#      scenarios and the string literals of the C code (labels, help,
#      reasons), compared without regard to case. A one-letter run counts as
#      a word only when a space, a '/' or the line's start comes before it
#      (the article "a", the "s" of a unit such as TB/s), or for an "s" an
#      apostrophe (the possessive "server's"; the "a" of a clipped legend
#      item "■a" is a cut).
#   4. Text behind a window (the help, a story's parameters) is hidden, not
#      cut: on such a screen only the window itself is checked.
#   A run that is a whole word of the sources is accepted even where the
#   sentence goes on (wrapping at a word boundary, or an ellipsis, is fine):
#   this can miss a cut that happens to leave a whole shorter word ("in" of
#   "into"), but never calls a correctly wrapped word a cut.
# Prints "PASS name" once per screen and "FAIL name: why" for each cut word,
# naming the size, the screen, the row and column and the word it came from.
# The three sizes run side by side in sessions of their own; each screen is
# captured once its words stop changing (no fixed sleep).
# WORDCUT_KEEP=DIR keeps the captured screens in DIR.
. "$(dirname "$0")/tmux-lib"
SRC=${MLVIZ_DATA:-$(pwd)}

# capture SESSION NAME: write the screen to $T/NAME.txt once its words have
# stopped changing (the same in two captures 0.1 s apart: the redraw after
# the last key is complete), at most 20 tries. One tmux client reads both
# captures (the second after a wait in the server), and one awk compares
# their words (ASCII letter runs, one space between them: what the check
# reads, without the figures and glyphs that move) and writes the second.
SEP=WORDCUTCAPTURESEPARATOR
capture() {
    i=0
    while :; do
        $TM capture-pane -p -t "$1" \; display -p $SEP \; run-shell -d 0.1 \; \
            capture-pane -p -t "$1" 2>/dev/null | awk -v sep=$SEP -v out="$T/$2.txt" '
            $0 == sep { second = 1; next }
            { w = $0; gsub(/[^A-Za-z]+/, " ", w)
              if (second) { b[++nb] = w; print > out } else a[++na] = w }
            END { if (!nb) printf "" > out; if (na != nb) exit 1; for (k = 1; k <= na; k++) if (a[k] != b[k]) exit 1 }' && break
        i=$((i + 1))
        [ $i -lt 20 ] || break
    done
    [ -n "$WORDCUT_KEEP" ] && mkdir -p "$WORDCUT_KEEP" && cp "$T/$2.txt" "$WORDCUT_KEEP/"
}
# wait_explain SESSION: poll until the explanation fills the screen (its
# box spans the second row, "back" at the right edge); it shows "PgDn 1/N"
# only when it is longer than a page.
explain_full() { case $SCREEN in *"back ╮") return 0 ;; esac; return 1; }
wait_explain() { poll_until 20 explain_full "$1" capture-pane -p -S 1 -E 1; }
# a verdict shows: a bottleneck or a setup that cannot run
verdict_shows() { on_screen "BOTTLENECK" || on_screen "CANNOT RUN"; }

# visit SIZE [light]: every screen at COLSxROWS ("light": the stage views
# without their full-screen explanation).
visit() {
    cols=${1%x*} rows=${1#*x} light=$2
    s=wc$cols
    start "$s" "$cols" "$rows" -- -c default
    if ! wait_for "$s" "BOTTLENECK" 60; then
        fail "wordcut $1 start" "no overview: $(screen "$s" | head -2)"
        return
    fi
    keys "$s" Space # pause the animation: the screens stay still while captured
    capture "$s" "$1-overview"
    for d in 1 2 3 4 5; do
        keys "$s" "$d"
        wait_title "$s" "│ $d " || { fail "wordcut $1 stage $d" "not opened: $(screen "$s" | head -1)"; continue; }
        capture "$s" "$1-stage$d"
        [ -n "$light" ] && continue
        # The explanation full screen (e), every page: its position reads
        # "PgDn k/n" (one page when it all fits and no position shows).
        keys "$s" e
        keys "$s" Home
        wait_explain "$s" || fail "wordcut $1 stage $d explanation" "not full screen: $(screen "$s" | sed -n 2p)"
        capture "$s" "$1-stage$d-explain1"
        n=$(screen "$s" | grep -o "PgDn [0-9]*/[0-9]*" | head -1 | cut -d/ -f2)
        k=1
        while [ -n "$n" ] && [ "$k" -lt "$n" ] && [ "$k" -lt 12 ]; do
            k=$((k + 1))
            keys "$s" NPage
            wait_for "$s" "PgDn $k/$n" 20 ||
                { fail "wordcut $1 stage $d page $k" "PgDn did not turn to page $k/$n"; break; }
            capture "$s" "$1-stage$d-explain$k"
        done
        keys "$s" e
    done
    keys "$s" Escape
    keys "$s" "?"
    if wait_for "$s" "help - keys" 20; then
        capture "$s" "$1-help"
    else
        fail "wordcut $1 help" "no help overlay"
    fi
    keys "$s" Escape
    # The plan screen.
    keys "$s" p
    wait_for "$s" "  rank  " 100 && capture "$s" "$1-plan"
    keys "$s" Escape
    keys "$s" q
    # A played story at its first pause, and its parameters (o).
    p=wp$cols
    start "$p" "$cols" "$rows" -- play data-starvation
    if wait_for "$p" "space: continue" 100; then
        capture "$p" "$1-story"
        keys "$p" o
        wait_for "$p" "prefetch" 20 && capture "$p" "$1-story-params"
    else
        fail "wordcut $1 story" "no pause: $(screen "$p" | head -2)"
    fi
    keys "$p" Escape
    keys "$p" q
    # The tour: its introduction and each stop.
    t=wt$cols
    start "$t" "$cols" "$rows" -- -c default --tour
    if wait_for "$t" "Tour" 60; then
        capture "$t" "$1-tour0"
        for k in 1 2 3 4 5; do
            keys "$t" n
            wait_title "$t" "│ Tour:" && capture "$t" "$1-tour$k"
        done
    else
        fail "wordcut $1 tour" "no tour: $(screen "$t" | head -2)"
    fi
    keys "$t" Escape
    keys "$t" q
    # A data-starved setup (issue 22): its figures are the longest in the
    # Data box ("GPUs starved 54.6%"), each whole or in a shorter wording.
    d=wd$cols
    start "$d" "$cols" "$rows" -- -c default --set cluster.storage=hdd --set data.sample_bytes=64e6
    if wait_for "$d" "BOTTLENECK" 60; then
        keys "$d" Space
        capture "$d" "$1-starved"
    else
        fail "wordcut $1 starved" "no overview: $(screen "$d" | head -2)"
    fi
    keys "$d" q
    $TM kill-session -t "$d" 2>/dev/null
    # The verdict where it is longest: a throttled rack (its consequence
    # and the heat at full clocks), on the overview and in a stage view;
    # and a setup that cannot run (why, and what would make it run).
    for setup in tests/setups/good/air-throttled.yaml "default --set training.micro_batch=16"; do
        h=wv$cols
        start "$h" "$cols" "$rows" -- -c $setup
        if poll_until 60 verdict_shows "$h"; then
            keys "$h" Space
            name=$(echo "$setup" | sed 's/[^a-z0-9]//g' | cut -c1-24)
            capture "$h" "$1-verdict-$name"
            keys "$h" 5
            wait_title "$h" "│ 5 " && capture "$h" "$1-verdict-$name-stage5"
            keys "$h" e
            wait_explain "$h" || fail "wordcut $1 verdict $name explanation" "not full screen"
            capture "$h" "$1-verdict-$name-explain"
            # At 100 columns and more the whole reason shows (a second row
            # where it needs one), not only whole words up to an ellipsis.
            want=$("$BIN" eval $setup 2>/dev/null | sed -n 's/^bottleneck: [^-]* - //p;s/^  CANNOT RUN: //p' | head -1)
            for f in "$T/$1-verdict-$name.txt" "$T/$1-verdict-$name-stage5.txt" \
                "$T/$1-verdict-$name-explain.txt"; do
                [ "$cols" -ge 100 ] || continue
                got=$(grep -A1 "BOTTLENECK ▶\|CANNOT RUN:" "$f" | tail -2 | sed 's/^ *//' | tr '\n' ' ' | tr -s ' ')
                case "$got" in
                *"$want"*) pass "wordcut $1 the whole verdict shows: $(basename "$f" .txt)" ;;
                *) fail "wordcut $1 the whole verdict shows: $(basename "$f" .txt)" "'$want' not in '$got'" ;;
                esac
            done
        else
            fail "wordcut $1 verdict" "no overview of $setup: $(screen "$h" | head -2)"
        fi
        keys "$h" q
        $TM kill-session -t "$h" 2>/dev/null
    done
}

# visit_infer SIZE: the inference mode (--infer) at COLSxROWS: the overview
# and the five stage views of a setup served by one device a replica, of one
# with tensor and pipeline parallelism, and of one that cannot serve.
visit_infer() {
    cols=${1%x*} rows=${1#*x}
    n=0
    for args in "" "--set inference.tensor_parallel=4 --set inference.pipeline_parallel=2" \
        "--set inference.batch=100000"; do
        n=$((n + 1))
        s=wi$cols$n
        start "$s" "$cols" "$rows" -- -c default $args --infer
        if ! wait_title "$s" "│ serving │"; then
            fail "wordcut $1 infer$n start" "no serving overview: $(screen "$s" | head -2)"
            continue
        fi
        keys "$s" Space
        capture "$s" "$1-infer$n-overview"
        for d in 1 2 3 4 5; do
            keys "$s" "$d"
            wait_title "$s" "│ $d " || { fail "wordcut $1 infer$n stage $d" "not opened"; continue; }
            capture "$s" "$1-infer$n-stage$d"
        done
        # From 100 columns the serving verdict is never cut (issue 22): it
        # wraps, or says less in whole words, but never ends in an ellipsis.
        for f in "$T/$1-infer$n-overview.txt" "$T/$1-infer$n-stage1.txt"; do
            [ "$cols" -ge 100 ] || continue
            got=$(grep -A2 "BOTTLENECK ▶\|CANNOT SERVE:" "$f" | grep -v "^ [0-9]-[0-9] stage")
            case "$got" in
            *…*) fail "wordcut $1 the serving verdict is whole: $(basename "$f" .txt)" "cut: $got" ;;
            "") fail "wordcut $1 the serving verdict is whole: $(basename "$f" .txt)" "no verdict" ;;
            *) pass "wordcut $1 the serving verdict is whole: $(basename "$f" .txt)" ;;
            esac
        done
        keys "$s" q
    done
}

# The three sizes side by side, each in sessions of its own; each writes its
# findings to $T/visit-SIZE.log and exits with their count; beside them the
# inference mode's screens at the sizes issue 25 names, the same way.
for size in 80x24 100x30 140x40 200x60; do
    light=""
    [ "$size" = 200x60 ] && light=1 # (the smaller sizes page the explanations)
    (visit "$size" $light; exit $FAILS) > "$T/visit-$size.log" 2>&1 &
done
for size in 80x24 100x30 200x60; do
    (visit_infer "$size"; exit $FAILS) > "$T/infer-$size.log" 2>&1 &
done
wait
for log in "$T"/visit-*.log "$T"/infer-*.log; do
    cat "$log"
    FAILS=$((FAILS + $(grep -c '^FAIL ' "$log")))
done

python3 - "$SRC" "$T" <<'EOF'
import glob, os, re, sys

src, caps = sys.argv[1], sys.argv[2]
words = set()
def add_text(text):
    words.update(w.lower() for w in re.findall(r"[A-Za-z]+", text))
for pat in ("assets/*.yaml", "assets/*/*.yaml", "assets/models/*.json",
            "scenarios/*.lua", "scenarios/*/*.yaml", "scenarios/*/*.lua"):
    for f in glob.glob(os.path.join(src, pat)):
        add_text(open(f, encoding="utf-8", errors="replace").read())
literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
labels = set()  # words a figure follows on screen: "starved" of "GPUs starved %s"
for pat in ("tui/*.c", "tui/views/*.c", "tui/cli/*.c", "engine/*/*.c"):
    for f in glob.glob(os.path.join(src, pat)):
        text = open(f, encoding="utf-8", errors="replace").read()
        # String literals only (labels, help, reasons), with escapes dropped.
        add_text(" ".join(re.sub(r"\\[nt]", " ", m) for m in literal.findall(text)))
        if os.path.basename(f) in ("overview.c", "infer_overview.c"):  # the boxes' lines
            for m in literal.findall(text):
                # A word before a conversion labels it ("starved %s"), unless
                # a conversion comes just before (it is that figure's noun:
                # "%d loader %s").
                for w in re.finditer(r"([A-Za-z]+):? %[-0-9.*]*[a-z]", m):
                    if not re.search(r"%[-0-9.*]*[a-z] $", m[:w.start()]):
                        labels.add(w.group(1).lower())
# Words of prose a cut sentence may end on, whatever figure follows them elsewhere.
labels -= {"a", "an", "the", "of", "at", "in", "on", "to", "and", "or", "for", "by", "s",
           "one", "all", "is", "per", "with", "vs", "from", "as", "x"}
ordered = sorted(words)

def is_box(ch):
    return 0x2500 <= ord(ch) <= 0x257F

def longer_with_prefix(run):
    import bisect
    i = bisect.bisect_right(ordered, run)
    if i < len(ordered) and ordered[i].startswith(run):
        return ordered[i]
    return None

backward = sorted(w[::-1] for w in words)
def longer_with_suffix(run):
    import bisect
    r = run[::-1]
    i = bisect.bisect_right(backward, r)
    if i < len(backward) and backward[i].startswith(r):
        return backward[i][::-1]
    return None

def overlay(lines):
    """The rectangle (top, bottom, left, right) of a window over the screen
    (the help, a played story's parameters), or None."""
    for top, line in enumerate(lines):
        i = max(line.find("help - keys"), line.find("scenario parameters"))
        if i < 0:
            continue
        left, right = line.rfind("\u250f", 0, i), line.find("\u2513", i)
        for bottom in range(top + 1, len(lines)):
            if lines[bottom][left:left + 1] == "\u2517":
                return top, bottom, left, right
    return None

fails = 0
for path in sorted(glob.glob(os.path.join(caps, "*-*.txt"))):
    name = os.path.basename(path)[:-4]
    size, screen = name.split("-", 1)
    cols = int(size.split("x")[0])
    lines = open(path, encoding="utf-8").read().split("\n")
    box = overlay(lines)
    cuts = []
    for row, line in enumerate(lines):
        if box:
            if not box[0] <= row <= box[1]:
                continue
            line = " " * box[2] + line[box[2]:box[3] + 1]
        at = lambda i: line[i] if 0 <= i < len(line) else ""
        for m in re.finditer(r"[A-Za-z]+", line):
            run = m.group(0).lower()
            s, e = m.start(), m.end()
            # A whole word of the sources; one letter only when it stands alone.
            if run in words and (len(run) > 1 or at(s - 1) in ("", " ", "/")
                                 or (run == "s" and at(s - 1) in ("'", "\u2019"))):
                continue
            end_edge = (at(e) and is_box(at(e))) or (at(e) == " " and at(e + 1) and is_box(at(e + 1))) \
                or (not box and e >= cols - 1)
            start_edge = (at(s - 1) and is_box(at(s - 1))) or \
                (at(s - 1) == " " and at(s - 2) and is_box(at(s - 2))) or (not box and s <= 1)
            w = longer_with_prefix(run) if end_edge else None
            if w:
                cuts.append((row + 1, s + 1, m.group(0), w, "end"))
                continue
            w = longer_with_suffix(run) if start_edge else None
            if w:
                cuts.append((row + 1, s + 1, m.group(0), w, "start"))
    # No figure cut (issue 22): an ellipsis right after a number ("450…":
    # its unit or digits lost) or after a word a figure follows in the
    # views' formats ("GPUs starved…": the figure itself lost).
    # The title line is exempt: there the setup's name gives way, by design.
    for row, line in enumerate(lines):
        if row == 0:
            continue
        for m in re.finditer(r"(?<![^\s(])(?:(\d[\d.,]*)|([A-Za-z]+))\u2026", line):
            if m.group(1) or m.group(2).lower() in labels:
                print("FAIL wordcut %s %s: row %d col %d '%s' cuts a figure (its number "
                      "or its unit is lost)" % (size, screen, row + 1, m.start() + 1, m.group(0)))
                fails += 1
    # No number in scientific notation on any screen (issue 22).
    for row, line in enumerate(lines):
        for m in re.finditer(r"\d(?:\.\d+)?e[+-]\d+", line):
            print("FAIL wordcut %s %s: row %d col %d '%s' is in scientific notation"
                  % (size, screen, row + 1, m.start() + 1, m.group(0)))
            fails += 1
    if cuts:
        for row, col, run, w, where in cuts:
            print("FAIL wordcut %s %s: row %d col %d '%s' is cut at its %s (not a word; "
                  "a longer word %ss with it, e.g. '%s')"
                  % (size, screen, row, col, run, where, "begin" if where == "end" else "end", w))
            fails += 1
    else:
        print("PASS wordcut %s %s" % (size, screen))
sys.exit(1 if fails else 0)
EOF
rc=$?
[ "$FAILS" -eq 0 ] && [ $rc -eq 0 ]
