#!/bin/sh
# The picture follows the story: every shipped scenario is played in tmux as
# a presenter would. At every pause the title names the setup the narration
# is about and the bottleneck marked on screen is the one the narration
# names. Also: b goes back a pause, PgUp scrolls the narration, the end says
# so, and what the script printed is on stdout after quitting.
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

# Every shipped scenario has a line (a new one must say what it shows).
in_shard 0 && for f in "$MLVIZ_DATA"/scenarios/*.lua; do
    n=$(basename "$f" .lua)
    echo "$EXPECT" | grep -q "^$n|" || fail "scenario $n is listed" "add it to EXPECT in $0"
done

# joined SESSION: the screen as one line, runs of spaces squeezed (narration
# wraps over several rows).
joined() { screen "$1" | tr '\n' ' ' | tr -s ' '; }

# at_pause SESSION TITLE: poll until the prompt is up and the title names
# TITLE; a case's title ("SETUP - CASE") may have its setup part cut on a
# narrow screen, never the case.
NL='
'
at_pause_shows() {
    on_screen "space: continue" || return 1
    case ${SCREEN%%"$NL"*} in *"$case_part"*) ;; *) return 1 ;; esac
    case ${SCREEN%%"$NL"*} in *"$title_start"*) return 0 ;; esac
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
    echo "$s" | grep -i "BOTTLENECK" | head -1 | grep -qi "BOTTLENECK [^ ]* [^-]*$2" &&
        { [ "$3" = decode ] || echo "$j" | grep -qF "the bottleneck is $2"; }
}

# Every scenario at 100x30; the serving stories (in the inference mode) and
# two training stories of several cases also at 80x24 and 200x60.
{
    echo "$EXPECT" | sed 's/^/100x30|/'
    for size in 80x24 200x60; do
        echo "$EXPECT" | grep '|serving \|^parallelism|\|^cooling|' | sed "s/^/$size|/"
    done
} >"$T/expect"
case_k=0
while IFS='|' read -r size scen rest; do
    case_k=$((case_k + 1))
    in_shard $case_k || continue
    sess=$(echo "$scen$size" | tr -c 'a-z0-9\n' '_')
    start "$sess" "${size%x*}" "${size#*x}" -- play "$scen" --speed 86400
    at=""
    [ "$size" = 100x30 ] || at=" at $size"
    ok=1 why="" k=0
    set -f
    IFS='|'
    set -- $rest
    unset IFS
    set +f
    if [ $# -eq 1 ]; then
        wait_for "$sess" "The end." 300 && screen "$sess" | head -1 | grep -qF -- "$1" ||
            { ok=0; why="end: $(screen "$sess" | head -1)"; }
    fi
    while [ $# -ge 2 ]; do
        k=$((k + 1))
        if ! at_pause "$sess" "$1"; then
            ok=0 why="$why pause $k: title '$(screen "$sess" | head -1)' (want '$1')"
            break
        fi
        if ! marked_ok "$sess" "$2"; then
            ok=0 why="$why pause $k: marked '$(screen "$sess" | grep -i -m1 "BOTTLENECK\|CANNOT RUN")' narration '$(joined "$sess" | grep -o "On screen: [^;]*; [a-z ]*" | tail -1)' (want $2)"
            break
        fi
        shift 2
        # On to the next pause: wait until the narration has grown (the
        # titles of two cases can share a prefix).
        SCREEN=$(screen "$sess")
        pause_sig
        sig0=$sig
        keys "$sess" Space
        poll_until 30 moved_on "$sess"
    done
    [ $ok = 1 ] && pass "$scen$at: each pause shows the setup and bottleneck it narrates" ||
        fail "$scen$at: each pause shows the setup and bottleneck it narrates" "$why"
    keys "$sess" q
done <"$T/expect"

# --- b goes back a pause; the end offers restart; stdout after quitting -------------
if in_shard 1; then
start back 100 30 -- play data-starvation --speed 86400
# Space through the cases to the last pause.
k=0
while [ $k -lt 8 ] && at_pause back "ResNet-152 on 8 x H100" &&
    ! screen back | head -1 | grep -qF "8 x H100, fed"; do
    keys back Space
    sleep 0.3
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
start scroll 80 24 -- play data-starvation --speed 86400
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
