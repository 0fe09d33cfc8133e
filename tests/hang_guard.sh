# Hang guards for the shell suites (sourced). A check that a command ends
# turns a regression that never ends into a failure; it must not fail a
# slow machine, so it measures CPU time, and wall time only stretched by
# the machine's load (a command that hangs blocked, on a FIFO say, uses no
# CPU). Under valgrind tests/run.sh sets MLVIZ_TEST_TIME_FACTOR and both
# bounds stretch by it too.

HG_CORES=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
# load_factor: sets HG_FACTOR to 2 + the 1-minute load average per core
# (rounded down), in shell built-ins: suites guard hundreds of commands.
load_factor() {
    hg_load=3
    [ -r /proc/loadavg ] && read -r hg_load _ </proc/loadavg
    hg_load=${hg_load%%.*}
    HG_FACTOR=$((2 + ${hg_load:-3} / ${HG_CORES:-1}))
}

# hang_guard SECONDS CMD...: runs CMD with at most SECONDS of CPU time
# (ulimit -t; the kernel sends SIGXCPU) and SECONDS x load_factor of wall
# time (timeout). Exits 124 when a bound stopped CMD, else with CMD's status.
hang_guard() {
    hg_s=$(($1 * ${MLVIZ_TEST_TIME_FACTOR:-1}))
    shift
    load_factor
    hg_wall=$((hg_s * HG_FACTOR))
    (ulimit -H -t $((hg_s + 1)) 2>/dev/null; ulimit -S -t "$hg_s" 2>/dev/null
        exec timeout "$hg_wall" "$@")
    hg_rc=$?
    # 152: killed by SIGXCPU (128 + 24) at the soft limit, or exited so after
    # catching it; 137: SIGKILL at the hard limit a second later.
    case $hg_rc in 152 | 137) hg_rc=124 ;; esac
    return $hg_rc
}
