#!/bin/sh
# Stage strips agree with their stage (issue 22): the live strip of a stage
# view ("Network busy 65%") reads the same whole-step figure as the
# overview's gauge and eval's utilization. On the data-starved setup the
# Data strip reads busy all the time and the Accelerators strip's idle share
# is eval's starvation; on a MoE setup whose expert all-to-alls make the
# network the bottleneck, the Network strip counts the all-to-alls (eval's
# interconnect utilization, not a third of it); the CPU cores busy in the
# CPUs box follow the CPUs gauge. At 100x30. Prints PASS/FAIL lines.
. "$(dirname "$0")/tmux-lib"

STARVED="--set cluster.storage=hdd --set data.sample_bytes=64e6 --set name=starved"
MOE="moe-h100 --set training.global_batch=256 --set training.expert_parallel=8 --set cluster.node.nics_per_node=2 --set name=moe"
# util SETUP... -- STAGE: eval's utilization of a stage (0..1).
util() {
    stage=$1
    shift
    "$BIN" eval "$@" --format json | awk -F'[:,]' -v k="\"$stage\"" '$1 ~ k { print $2; exit }'
}
# strip SESSION: the stage view's live strip share ("Data busy 92%" -> 0.92).
strip() {
    screen "$1" | grep -o "[A-Za-z]* busy ~\?[0-9.]*%" | head -1 | sed 's/.* ~\?//; s/%//' |
        awk '{ print $1 / 100 }'
}
# steady SESSION: poll until no live figure on screen carries a "~" or says
# warming up.
steady() {
    i=0
    while [ $i -lt 200 ] && screen "$1" | grep -q "~[0-9]\|warming"; do
        sleep 0.1
        i=$((i + 1))
    done
}
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }

accel=$(util accelerators default $STARVED)
net=$(util interconnect $MOE)
start st 100 30 -- $STARVED --speed 1000
start moe 100 30 -- -c $MOE --speed 100
wait_for st "BOTTLENECK" 60
wait_for moe "BOTTLENECK" 60
steady st
steady moe
keys st 1
wait_title st "│ 1 "
steady st
data_strip=$(strip st)
keys st 3
wait_title st "│ 3 "
steady st
accel_strip=$(strip st)
if near "$data_strip" 1 0.01 && near "$accel_strip" "$accel" 0.05; then
    pass "starved: the Data strip reads busy all the time, the Accelerators strip eval's $accel (idle = starvation)"
else
    fail "starved: the Data strip reads busy all the time, the Accelerators strip eval's busy share" \
        "Data $data_strip, Accelerators $accel_strip vs eval $accel"
fi
keys moe 4
wait_title moe "│ 4 "
steady moe
net_strip=$(strip moe)
if near "$net_strip" "$net" 0.03; then
    pass "MoE: the Network strip counts the expert all-to-alls ($net_strip, eval $net)"
else
    fail "MoE: the Network strip counts the expert all-to-alls" "strip $net_strip vs eval $net"
fi

# The CPUs box: cores busy follow the live CPUs gauge (both from the window).
keys st Escape
wait_title st "overview"
steady st
cores=$(screen st | grep -o "cores used <\?[0-9.]*/" | head -1 | sed 's/cores used //; s|/||')
want=$("$BIN" eval default $STARVED --format json | awk -F'[:,]' '/"cpu_cores_busy"/ { print $2; exit }')
# Below a hundredth of a core the box says "<0.01" (view_fmt_cores).
if [ "$cores" = "<0.01" ] && awk -v w="$want" 'BEGIN { exit !(w > 0 && w < 0.01) }' ||
    { [ -n "$cores" ] && near "$cores" "$want" "$(awk -v w="$want" 'BEGIN { print 0.05 * w + 0.005 }')"; }; then
    pass "the CPUs box's busy cores match eval's ($cores of $want)"
else
    fail "the CPUs box's busy cores match eval's" "'$cores' vs $want"
fi
if screen st | grep -q "cores used <\?[0-9.]*/112 " && screen st | grep -q "feed [█▏▎▍▌▋▊▉░]* ~\?[0-9.]*%"; then
    pass "the CPUs box names its two counts: cores used and the feed's busy share"
else
    fail "the CPUs box names its two counts: cores used and the feed's busy share" "$(screen st | sed -n 3,7p)"
fi
# Loader-bound (8 workers, no prefetch): the cores used are the workers times
# the CPUs' busy share, the two figures of the box agree.
CPUBOUND="--set model.kind=generic --set model.params=60.2e6 --set model.flops_per_sample=69e9
    --set training.global_batch=2048 --set training.micro_batch=256 --set data.sample_bytes=110e3
    --set data.preprocess_us_per_sample=1000 --set data.loader_workers_per_device=1
    --set data.prefetch_batches=0 --set cluster.storage=object-store --set cluster.storage_bw_gbs=1"
j=$("$BIN" eval default $CPUBOUND --format json)
c=$(echo "$j" | awk -F'[:,]' '/"cpu_cores_busy"/ { print $2; exit }')
u=$(util cpus default $CPUBOUND)
if echo "$j" | grep -q '"bottleneck": "cpus"' && near "$c" "$(awk -v u="$u" 'BEGIN { print 8 * u }')" 0.01; then
    pass "loader-bound: cores used = 8 workers x the CPUs' busy share ($c, $u)"
else
    fail "loader-bound: cores used = 8 workers x the CPUs' busy share" "cores $c, share $u"
fi
keys st q
keys moe q
wait_rc st
wait_rc moe
exit $((FAILS > 0))
