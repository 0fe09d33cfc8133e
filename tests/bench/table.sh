#!/bin/sh
# table.sh GOALS RESULTS RUNS: the table make bench prints (tests/bench/run.sh)
# from RESULTS, "NAME: CPU WALL" lines (RUNS of each), and GOALS
# (tests/bench/goals). Exits 1 when a goal is missed or a goal's figure is
# missing.
awk -v runs="$3" '
function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function fmt(x) { return x >= 1000 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
FNR == 1 { file++ }
file == 1 && /^[a-z]/ { op[$1] = $2; goal[$1] = $3; next }
file == 2 && /^[a-z_0-9]+: / {
    n = $1; sub(/:$/, "", n)
    if (!(n in cpu)) order[++count] = n
    cpu[n] = cpu[n] " " $2; wall[n] = wall[n] " " ($3 == "" ? $2 : $3)
}
END {
    printf "%-24s %12s %12s %12s\n", "median of " runs " runs", "cpu", "wall", "goal (cpu)"
    for (i = 1; i <= count; i++) {
        n = order[i]; c = median(cpu[n]); w = median(wall[n])
        verdict = ""; g = "-"
        if (n in goal) {
            g = op[n] " " goal[n]
            ok = op[n] == ">=" ? c + 0 >= goal[n] + 0 : c + 0 <= goal[n] + 0
            verdict = ok ? "ok" : "MISSED"
            if (!ok) missed++
        }
        printf "%-24s %12s %12s %12s  %s\n", n, fmt(c), fmt(w), g, verdict
    }
    for (n in goal) if (!(n in cpu)) {
        printf "%-24s %12s %12s %12s  MISSED (not measured)\n", n, "-", "-", op[n] " " goal[n]
        missed++
    }
    if (missed) printf "%d goal(s) missed (tests/bench/goals)\n", missed
    else print "every goal met (tests/bench/goals)"
    exit missed > 0
}' "$1" "$2"
