#!/bin/sh
# The picture follows the story: every scenario in scenarios/ is played in
# tmux as a presenter would, and every pause is checked at 100x30, 80x24 and
# 200x60 (the session is resized at the pause): the title names the setup
# the narration is about, the bottleneck marked on screen is the one the
# narration names, and the screen has no number in scientific notation and
# one memory figure per device (issue 22). A scenario added later without a
# line below is still played: each pause against its own narration. Also: b
# goes back a pause, PgUp scrolls the narration, the end says so, and what
# the script printed is on stdout after quitting.
# Prints "PASS name" or "FAIL name: why" per check.
# shards: 3
. "$(dirname "$0")/tmux-lib"

# What each pause must show, written from the scripts' narration (a story
# that compares cases pauses at each of them, the case named in the title):
#   scenario|title at pause 1|marked at pause 1|title at pause 2|...
# "marked" is a stage name as the narration says it, or "cannot-run";
# "serving STAGE": the view is in the inference mode (the serving figures
# show) and STAGE is decode's bottleneck, as story.serve narrates it.
# A scenario without pauses lists the title its end shows.
EXPECT='allreduce-scaling|Llama-8B, data parallel on 16384 GPUs|accelerators
cooling|4 DGX H100 per rack - air|infrastructure|4 DGX H100 per rack - rear-door|accelerators|4 DGX H100 per rack - direct-liquid|accelerators|4 DGX H100 per rack - immersion|accelerators|4 DGX H100 per rack, air-cooled|infrastructure
cooling-failure|4 DGX H100 in a rear-door rack|infrastructure
cpu-vs-gpu|GPT-2 small on a laptop CPU - laptop CPU (laptop-cpu-8c)|cannot-run|GPT-2 small on one H100|accelerators|GPT-2 small on one H100|accelerators
data-starvation|ResNet-152 on 8 x H100 - 1 worker, no prefetch|cpus|ResNet-152 on 8 x H100 - more workers|data|ResNet-152 on 8 x H100 - + RAM cache|data|ResNet-152 on 8 x H100 - + prefetch|accelerators|ResNet-152 on 8 x H100|cpus|ResNet-152 on 8 x H100, fed|accelerators
failures-16k|Llama-8B on 2048 DGX H100|accelerators
fit-70b|Llama-2-70B on 8 DGX H100|cannot-run
gpt3-energy|GPT-3 175B on 1024 A100|accelerators
fp4|Llama-405B on 256 GB300 - dense FP8|accelerators|Llama-405B on 256 GB300 - dense NVFP4|accelerators|Qwen3-30B-A3B MoE on 8 GB300 - MoE MXFP8|accelerators|Qwen3-30B-A3B MoE on 8 GB300 - MoE NVFP4|accelerators|Llama-405B on 256 GB300|accelerators|Qwen3-30B-A3B MoE on 8 GB300|accelerators
gpu-generations|Llama-8B on 4 x 8 v100-sxm2-32gb|accelerators|Llama-8B on 4 x 8 a100-sxm-80gb|accelerators|Llama-8B on 4 x 8 h100-sxm|accelerators|Llama-8B on 4 x 8 h200-sxm|accelerators|Llama-8B on 4 x 8 h200-sxm|accelerators
host-ram|Llama-8B on one 8 x h200-sxm server - 2048 GB host RAM|accelerators|Llama-8B on one 8 x h200-sxm server - 256 GB host RAM|accelerators|Llama-8B on one 8 x h200-sxm server|accelerators
links|34B-class model on 16 DGX H100 - NVLink 4 (450.0 GB/s)|accelerators|34B-class model on 16 DGX H100 - PCIe 5 x16 (63.0 GB/s)|interconnect|34B-class model on 16 DGX H100|interconnect|34B-class model on 16 DGX H100 - InfiniBand NDR|accelerators|34B-class model on 16 DGX H100 - Ethernet 400G (RoCE)|accelerators|34B-class model on 16 DGX H100 - Ethernet 100G|interconnect|34B-class model on 16 DGX H100|interconnect
long-context|Llama-8B at long context on 1x DGX H100 - CP 1|cannot-run|Llama-8B at long context on 1x DGX H100 - CP 2|cannot-run|Llama-8B at long context on 1x DGX H100 - CP 4|cannot-run|Llama-8B at long context on 1x DGX H100 - CP 8|accelerators|Llama-8B at long context on 1x DGX H100|accelerators
moe-experts|Mixtral-8x7B-style MoE on 64 H100 - EP 8 inside a node|accelerators|Mixtral-8x7B-style MoE on 64 H100 - EP 8 across nodes|accelerators|Mixtral-8x7B-style MoE on 64 H100 - EP 8 across nodes, 2 NICs per node|interconnect|Mixtral-8x7B-style MoE on 64 H100|interconnect
parallelism|30B model on 8 DGX H100 - data parallel (ZeRO-3)|accelerators|30B model on 8 DGX H100 - tensor 8 x data|accelerators|30B model on 8 DGX H100 - pipeline 8 x data|accelerators|30B model on 8 DGX H100 - tensor 4 x pipeline 2|accelerators|30B model on 8 DGX H100|accelerators
power|Llama-8B FP8 on 8 GB300 - gb300 1400 W|accelerators|Llama-8B FP8 on 8 GB200 - gb200 1200 W|accelerators|Llama-8B on 1x DGX H100 at 700 W - h100 700 W|accelerators|Llama-8B on 1x DGX H100 at 500 W - h100 500 W|accelerators|Llama-8B FP8 on 8 GB200|accelerators
plan-a-run|70B on 2,048 H100|accelerators|70B on 2,048 H100|accelerators|70B on 2,048 H100|accelerators
precision|Llama-8B on 1x DGX H100 - fp32|cannot-run|Llama-8B on 1x DGX H100 - tf32|cannot-run|Llama-8B on 1x DGX H100 - bf16|accelerators|Llama-8B on 1x DGX H100 - fp8|accelerators|Llama-8B on 1x DGX H100|cannot-run
rack-scale|72 B200 in 9 HGX servers - 9 x HGX B200 (8 per domain)|interconnect|72 GB200 in one NVL72 rack - GB200 NVL72 (72 per domain)|accelerators|72 B200 in 9 HGX servers|interconnect
spot-checkpoints|Llama-8B on 16 spot DGX H100|accelerators
why-answers-stream|Llama-8B on 1x DGX H100|serving accelerators|Llama-8B on 1x DGX H100|serving accelerators
batch-latency|Llama-8B on 1x DGX H100|serving accelerators|Llama-8B on 1x DGX H100|serving accelerators|Llama-8B on 1x DGX H100|serving accelerators|Llama-8B on 1x DGX H100|serving accelerators
kv-cache-users|Llama 3 70B on 8 H100|serving accelerators|Llama 3 70B on 8 H100|serving accelerators|Llama 3 70B on 8 H100|serving accelerators|Llama 3 70B on 8 H100|serving accelerators'


# joined SESSION: the screen as one line, runs of spaces squeezed (narration
# wraps over several rows).
joined() { screen "$1" | tr '\n' ' ' | tr -s ' '; }

# at_pause SESSION TITLE: poll until the prompt is up and the title names
# TITLE; a case's title ("SETUP - CASE") may have its setup part cut on a
# narrow screen (to its first words or to "…"), never the case.
NL='
'
at_pause_shows() {
    on_screen "space: continue" || return 1
    case ${SCREEN%%"$NL"*} in *"$case_part"*) ;; *) return 1 ;; esac
    case ${SCREEN%%"$NL"*} in *"$title_start"* | *"… $case_part"*) return 0 ;; esac
    return 1
}
at_pause() {
    case_part="- ${2##* - }"
    [ "$case_part" = "- $2" ] && case_part=$2
    title_start=$(printf '%.5s' "$2")
    poll_until 300 at_pause_shows "$1"
}
# pause_sig: in $sig, the narration as $SCREEN shows it at a pause: the
# prompt row (its narration count) and the caption rows above it, up to the
# bottleneck line or a box (not the figures, which move); moved_on:
# the prompt is gone or $sig differs from $sig0 (the story went on).
pause_sig() {
    sig=$(printf '%s\n' "$SCREEN" | awk '
        /space: continue/ { s = $0; for (i = NR - 1; i > 0 && i > NR - 15; i--) {
                                if (row[i] ~ /│|╰|╯|BOTTLENECK|CANNOT RUN/) break
                                s = row[i] "|" s }
                            print s; exit }
        { row[NR] = $0 }')
}
moved_on() {
    on_screen "space: continue" || return 0
    pause_sig
    [ "$sig" != "$sig0" ]
}

# marked_ok SESSION STAGE: the screen marks STAGE (or cannot run) and the
# narration says the same; "serving": the narration states a serving figure.
marked_ok() {
    s=$(screen "$1")
    j=$(joined "$1")
    case $2 in
    serving\ *)
        echo "$s" | grep -qF "TTFT" && echo "$s" | grep -qF "serving" || return 1
        echo "$j" | grep -qF "the decode bottleneck is ${2#serving }" || return 1
        set -- "$1" "${2#serving }" decode
        ;;
    esac
    if [ "$2" = cannot-run ]; then
        echo "$s" | grep -qF "CANNOT RUN" && echo "$j" | grep -qF "it cannot run"
        return
    fi
    echo "$s" | grep -F "BOTTLENECK ▶" | head -1 | grep -qi "BOTTLENECK [^ ]* [^-]*$2" &&
        { [ "$3" = decode ] || echo "$j" | grep -qF "the bottleneck is $2"; }
}

# SIZES: every pause (or a story's end) is checked at each of these sizes: the
# session is resized in place (tmux resize-window), so one play of a story
# serves all three.
SIZES="100x30 80x24 200x60"
# resize SESSION COLSxROWS: resize the session and read it until mlviz has
# drawn the screen anew at that size (the pane has as many rows, the title
# ends "help" and the last row is the footer: a stale screen that tmux cut or
# padded has its old title cut or no footer at the bottom); the screen is
# then in $SCREEN. tmux applies a resize at once, but one that follows
# another within 250 ms only when those 250 ms are over (its pane resize
# timer): the first read is 50 ms after the resize, the second 250 ms after
# that, then every 0.1 s; each waits in the server (run-shell -d, as
# poll_until; the resize is in the first read's client). Each read prints the pane's height, the screen and "END" (the rows at the
# bottom of the screen kept, empty or not: a command substitution would drop
# empty ones).
resize_read() {
    rs_s=$1
    shift
    rs_out=$($TM "$@" \; display -p -t "$rs_s" '#{pane_height}' \; \
        capture-pane -p -t "$rs_s" \; display -p END 2>/dev/null)
}
resize_done() {
    [ "${rs_out%%"$NL"*}" = "$1" ] || return 1
    SCREEN=${rs_out#*"$NL"}
    SCREEN=${SCREEN%"$NL"END}
    case ${SCREEN%%"$NL"*} in *help) ;; *) return 1 ;; esac
    case ${SCREEN##*"$NL"} in *"q quit"*) return 0 ;; esac
    return 1
}
resize() {
    tries 30
    resize_read "$1" resize-window -t "$1" -x "${2%x*}" -y "${2#*x}" \; run-shell -d 0.05
    i=0
    until resize_done "${2#*x}"; do
        [ $i -lt "$tl_n" ] || return 1
        [ $i = 0 ] && resize_read "$1" run-shell -d 0.25 || resize_read "$1" run-shell -d 0.1
        i=$((i + 1))
    done
}

# CHECK: an awk program that reads one capture and prints what is wrong with
# it (nothing when all holds), with -v title=TITLE (empty: no title check),
# -v endtitle=TITLE (the end of a story: its title begins so),
# -v stage=STAGE (empty: none; "cannot-run"; "serving STAGE"; a stage
# as the narration names it). The title: the prompt is up and the title
# names TITLE (a case's title "SETUP - CASE" may have its setup part cut on
# a narrow screen, to its first words or to "...", never the case). The
# stage: marked on screen (BOTTLENECK, or CANNOT RUN) and said in the
# narration. The formats (issue 22): no number in scientific notation
# ("2e-05"), no GiB, one device memory figure ("used/capacity GB" with one
# capacity per screen, and not that capacity rounded, "86 GB" beside 85.5,
# nor in GiB, "80 GB").
CHECK='
{ text = text $0 "\n"; if (NR == 1) t1 = $0 }
/BOTTLENECK ▶/ && marked == "" { marked = $0 }
END {
    j = text; gsub(/\n/, " ", j); gsub(/  +/, " ", j)
    if (title != "") {
        cp = title; if (index(title, " - ")) { cp = title; while (i = index(cp, " - ")) cp = substr(cp, i + 3); cp = "- " cp }
        if (!index(text, "space: continue") || !index(t1, cp) ||
            (!index(t1, substr(title, 1, 5)) && !index(t1, "… " cp)))
            printf "title \"%s\" (want \"%s\") ", t1, title
    }
    if (endtitle != "" && !index(t1, substr(endtitle, 1, 5)))
        printf "end title \"%s\" (want \"%s\") ", t1, endtitle
    st = stage
    if (st ~ /^serving /) {
        st = substr(st, 9)
        if (!index(text, "TTFT") || !index(text, "serving") || !index(j, "the decode bottleneck is " st))
            printf "not serving with decode bottleneck %s ", st
        said = 1
    }
    if (st == "cannot-run") {
        if (!index(text, "CANNOT RUN") || !index(j, "it cannot run")) printf "not marked or said: cannot run "
    } else if (st != "") {
        m = tolower(marked); sub(/.*bottleneck [^ ]* /, "", m); sub(/ -.*/, "", m)
        if (!index(m, st)) printf "marked \"%s\" (want %s) ", marked, st
        if (!said && !index(j, "the bottleneck is " st)) printf "narration does not say \"the bottleneck is %s\" ", st
    }
    t = text
    while (match(t, /[0-9](\.[0-9]+)?e[+-][0-9]+/)) {
        printf "sci \"%s\" ", substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH) }
    if (text ~ /GiB/) printf "GiB "
    t = text; n = 0
    while (match(t, /[0-9.]+\/[0-9.]+ GB/)) {
        c = substr(t, RSTART, RLENGTH - 3); sub(/.*\//, "", c)
        if (!(c in cap)) { cap[c] = 1; n++; last = c }
        t = substr(t, RSTART + RLENGTH)
    }
    if (n > 1) printf "several capacities "
    if (n == 1) {
        b1 = sprintf("%.0f", last); b2 = sprintf("%.0f", last / 1.073741824)
        t = text
        while (match(t, /[0-9.]+ GB/)) {
            v = substr(t, RSTART, RLENGTH - 3); pre = RSTART > 1 ? substr(t, RSTART - 1, 1) : " "
            if (pre !~ /[0-9.\/]/ && v + 0 != last + 0 && (v + 0 == b1 + 0 || v + 0 == b2 + 0))
                printf "\"%s GB\" beside %s GB ", v, last
            t = substr(t, RSTART + RLENGTH)
        }
    }
}'
# The check itself: it sees each kind of fault, and none on a clean screen.
faults_selftest() {
    fake="space: continue
 ◆ BOTTLENECK ▶ Data - storage
 mem 75.0/85.5 GB  needs 1401 GB (it has 85.5 GB); the bottleneck is data"
    w=$(printf '%s\n' " mlviz │ 1 DATA │ ResNet on 8 … - + prefetch  ? help" "$fake" |
        awk -v title="ResNet on 8 x H100 - + prefetch" -v stage=data "$CHECK")
    [ -z "$w" ] || echo "clean screen: $w"
    for f in "it has 86 GB" "80 GB HBM" "cores 2e-05/112" "mem 2/141 GB" "80 GiB" "the bottleneck is cpus"; do
        w=$(printf '%s\n' " mlviz │ 1 DATA │ ResNet on 8 … - + prefetch  ? help" "$fake" "$f" |
            sed 's/the bottleneck is data//' | awk -v title="ResNet on 8 x H100 - + prefetch" -v stage=data "$CHECK")
        [ -n "$w" ] || echo "not seen: $f"
    done
    printf '%s\n' " mlviz │ 1 DATA │ ResNet on 8 … - + cache  ? help" "$fake" |
        awk -v title="ResNet on 8 x H100 - + prefetch" -v stage=data "$CHECK" | grep -q title ||
        echo "not seen: another case in the title"
}
in_shard 0 && {
    st=$(faults_selftest)
    [ -z "$st" ] && pass "the pause check sees a wrong title or stage, scientific notation, GiB and a second memory figure" ||
        fail "the pause check sees a wrong title or stage, scientific notation, GiB and a second memory figure" "$st"
}

# check_sizes SESSION TITLE STAGE [ENDTITLE]: at each size (the current one
# first) the CHECK of one capture (TITLE empty: no title check; STAGE empty:
# none; ENDTITLE: the title at a story's end begins as it does);
# appends to why_SIZE, sets ok_SIZE=0 on a failure.
# The screen last checked stays in $SCREEN (the story waits at the pause).
check_sizes() {
    order=$cur
    for sz in $SIZES; do [ "$sz" = "$cur" ] || order="$order $sz"; done
    for sz in $order; do
        if [ "$sz" != "$cur" ]; then
            resize "$1" "$sz" || { eval "ok_$sz=0; why_$sz=\"\$why_$sz no redraw at $sz\""; continue; }
            cur=$sz
        else
            SCREEN=$(screen "$1")
        fi
        w=$(printf '%s\n' "$SCREEN" | awk -v title="$2" -v stage="$3" -v endtitle="$4" "$CHECK")
        [ -n "$w" ] && eval "ok_$sz=0; why_$sz=\"\$why_$sz pause $k: \$w\""
    done
}

# next_pause SESSION: press Space and wait until the story moved on (the
# prompt went, or the caption rows above it changed); the screen at the
# pause is the one check_sizes read last, in $SCREEN.
next_pause() {
    pause_sig
    sig0=$sig
    keys "$1" Space
    poll_until 30 moved_on "$1"
}

# play_unlisted SESSION: a scenario without an EXPECT line (one added since):
# each pause until its end, the stage marked as the narration's last case
# names it ("the bottleneck is X", "it cannot run"), at each size.
play_unlisted() {
    k=0
    while [ $k -lt 40 ]; do
        i=0
        while [ $i -lt 300 ] && ! screen "$1" | grep -qF "space: continue" &&
            ! screen "$1" | grep -qF "The end."; do
            sleep 0.1
            i=$((i + 1))
        done
        screen "$1" | grep -qF "space: continue" || break
        k=$((k + 1))
        said=$(joined "$1" | grep -o "the decode bottleneck is [a-z]*\|the bottleneck is [a-z]*\|it cannot run" | tail -1)
        case $said in
        "it cannot run") want=cannot-run ;;
        *decode*) want="serving ${said##* }" ;;
        "") want="" ;;
        *) want=${said##* } ;;
        esac
        check_sizes "$1" "" "$want"
        next_pause "$1"
    done
    wait_for "$1" "The end." 300 && check_sizes "$1" "" ""
}

# Every scenario, each pause at each size (the scenarios are listed from the
# directory: one added later is played too).
# The shards share the work by its size: each scenario (its pauses, 5 for
# one not listed) goes to the shard with the least so far, counting the
# checks below (b goes back: shard 2 of 3, the narration scrolls: shard 3).
# One awk reads the list: each scenario's name, its weight (the '|' in its
# EXPECT line), its session name (tmux: letters, digits, '_'), and whether
# it runs a simulation (sim:run: then it plays at full speed; the others at
# the speed mlviz picks, where the view's own simulation at a pause costs
# next to no CPU, at x86400 it takes its whole budget); then its shard.
printf '%s\n' "$MLVIZ_DATA"/scenarios/*.lua | EXPECT_LINES=$EXPECT awk '
    BEGIN { n = split(ENVIRON["EXPECT_LINES"], l, "\n")
            for (i = 1; i <= n; i++) { s = l[i]; sub(/\|.*/, "", s); w[s] = gsub(/\|/, "|", l[i]) } }
    { s = $0; sub(/.*\//, "", s); sub(/\.lua$/, "", s)
            sess = s; gsub(/[^a-z0-9]/, "_", sess)
            fast = 0; while ((getline line < $0) > 0) if (index(line, "sim:run")) fast = 1
            close($0); print s, (s in w) ? w[s] : 0, sess, fast }' |
    sort -k2,2nr -k1,1 | awk -v n="${TEST_SHARDS:-1}" '
    BEGIN { for (i = 0; i < n; i++) load[i] = 0; if (n > 1) load[1] = 12; if (n > 2) load[2] = 3 }
    { w = $2 > 0 ? $2 : 10; best = 0
      for (i = 1; i < n; i++) if (load[i] < load[best]) best = i
      load[best] += w; print $1, $3, $4, best }' | sort -k1,1 >"$T/shards"
while read -r scen sess fast shard <&4; do
    in_shard "$shard" || continue
    rest=""
    case "$NL$EXPECT" in *"$NL$scen|"*) rest=$NL$EXPECT rest=${rest#*"$NL$scen|"} rest=${rest%%"$NL"*} ;; esac
    cur=100x30
    [ "$fast" = 1 ] && fast="--speed 86400" || fast=""
    start "$sess" 100 30 -- play "$scen" $fast
    for sz in $SIZES; do eval "ok_$sz=1; why_$sz=''"; done
    k=0
    set -f
    IFS='|'
    set -- $rest
    unset IFS
    set +f
    [ -z "$rest" ] && play_unlisted "$sess"
    if [ $# -eq 1 ]; then
        if wait_for "$sess" "The end." 300; then
            check_sizes "$sess" "" "" "$1"
        else
            for sz in $SIZES; do eval "ok_$sz=0; why_$sz='no end: $(screen "$sess" | head -1)'"; done
        fi
    fi
    while [ $# -ge 2 ]; do
        k=$((k + 1))
        if ! at_pause "$sess" "$1"; then
            for sz in $SIZES; do
                eval "ok_$sz=0; why_$sz=\"\$why_$sz pause $k: title '$(screen "$sess" | head -1)' (want '$1')\""
            done
            break
        fi
        check_sizes "$sess" "$1" "$2"
        shift 2
        next_pause "$sess"
        # After the last pause, its end (the conclusion): the formats.
        if [ $# -eq 0 ]; then
            k=end
            wait_for "$sess" "The end." 300 && check_sizes "$sess" "" ""
        fi
    done
    for sz in $SIZES; do
        name="$scen at $sz: each pause shows the setup and bottleneck it narrates, no e+/e- number, one memory figure"
        eval "ok=\$ok_$sz why=\$why_$sz"
        [ "$ok" = 1 ] && pass "$name" || fail "$name" "$why"
    done
    keys "$sess" q
done 4<"$T/shards"

# --- b goes back a pause; the end offers restart; stdout after quitting -------------
if in_shard 1; then
start back 100 30 -- play data-starvation
# Space through the cases to the last pause.
k=0
# (Space and then a wait until the story moved on, not a fixed sleep: on a
# loaded machine a pause could still show after 0.3 s and take a second Space.)
while [ $k -lt 8 ] && at_pause back "ResNet-152 on 8 x H100"; do
    case ${SCREEN%%"$NL"*} in *"8 x H100, fed"*) break ;; esac
    next_pause back
    k=$((k + 1))
done
if at_pause back "8 x H100, fed"; then
    keys back b
    if at_pause back "ResNet-152 on 8 x H100 " && marked_ok back cpus; then
        pass "b goes back to the previous pause (same picture and narration)"
    else
        fail "b goes back to the previous pause (same picture and narration)" "$(screen back | head -1)"
    fi
else
    fail "b goes back to the previous pause (same picture and narration)" "no second pause"
fi
keys back Space
at_pause back "8 x H100, fed" && keys back Space
if wait_for back "The end." 100 && wait_for back "r: restart" 10; then
    pass "the end of a scenario says so and offers restart or quit"
else
    fail "the end of a scenario says so and offers restart or quit" "$(screen back | tail -3)"
fi
keys back q
if wait_rc back && wait_for back "Feeding the GPUs, one cure at a time" 20 &&
    screen back | grep -q "samples/s"; then
    pass "printed tables are on stdout after quitting, header included"
else
    fail "printed tables are on stdout after quitting, header included" "$(screen back | tail -4)"
fi
fi


# --- the narration scrolls at 80x24 -----------------------------------------------
if in_shard 2; then
start scroll 80 24 -- play data-starvation
if at_pause scroll "ResNet"; then
    a=$(screen scroll | grep -o "narration [0-9]*/[0-9]*")
    # A page at a time back to the first narration.
    press_until scroll PPage "An image classifier"
    b=$(screen scroll | grep -o "narration [0-9]*/[0-9]*")
    if [ -n "$a" ] && [ "$a" != "$b" ] && screen scroll | grep -qF "An image classifier"; then
        pass "PgUp scrolls the narration back at 80x24"
    else
        fail "PgUp scrolls the narration back at 80x24" "'$a' then '$b'"
    fi
    if screen scroll | grep "space: continue" | awk '{ exit length($0) > 80 }'; then
        pass "the pause prompt fits on one line at 80 columns"
    else
        fail "the pause prompt fits on one line at 80 columns" "$(screen scroll | grep "continue")"
    fi
else
    fail "PgUp scrolls the narration back at 80x24" "no pause: $(screen scroll | head -1)"
fi
keys scroll q
fi

[ "$FAILS" -eq 0 ]
