#!/bin/sh
# Every file mlviz writes for a command goes through one writer
# (engine/core/safewrite.h): for each writer, an existing file, a symbolic
# link to a file, a dangling link and (for the directory writers) a link
# inside the directory are left byte for byte as they were unless --force,
# and --force replaces a regular file but never a link. Writers: plan
# --write-best, plan --write-top, probe --write, the user catalog's
# probe.yaml (merged by id, after the setup). The view's `w` key is
# tests/e2e/prepare.sh, the Lua writers tests/lua/hostile.sh. Prints "PASS
# name" or "FAIL name: why".
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) bin=$MLVIZ_BIN ;; *) bin=$(pwd)/$MLVIZ_BIN ;; esac
MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
export MLVIZ_DATA
fx=$(pwd)/tests/probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# A small search: two candidates, two ranks.
plan() { "$bin" plan default --vary cluster.nodes=1,2 --top 2 --quiet "$@"; }
probe() {
    env PATH="$fx/bin-rtx" MLVIZ_PROC_ROOT="$fx/laptop/proc" MLVIZ_SYS_ROOT="$fx/laptop/sys" \
        XDG_CONFIG_HOME="$tmp/xdg" "$bin" probe "$@"
}

# The state of a directory: names, link targets, file checksums.
state() { (cd "$1" && find . | LC_ALL=C sort && find . -type l -exec ls -l {} + | sed 's/.* \.\//.\//' &&
    find . -type f -exec cksum {} + | LC_ALL=C sort); }

# victims DIR NAME: DIR/NAME an existing file, DIR/NAME.link a link to a
# file outside, DIR/NAME.dangling a link to nothing.
victims() {
    mkdir -p "$1" "$tmp/outside"
    echo "the user's own $2" >"$1/$2"
    echo "outside" >"$tmp/outside/target"
    ln -sf "$tmp/outside/target" "$1/$2.link"
    ln -sf "$tmp/outside/absent" "$1/$2.dangling"
}

# refused NAME STATUS PATTERN CMD...: exit STATUS, stderr matching PATTERN,
# and $tmp/w and $tmp/outside as they were.
refused() {
    name=$1 status=$2 pattern=$3
    shift 3
    state "$tmp/w" >"$tmp/before"
    state "$tmp/outside" >>"$tmp/before"
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    state "$tmp/w" >"$tmp/after"
    state "$tmp/outside" >>"$tmp/after"
    if [ $rc -ne "$status" ]; then
        fail "$name" "exit $rc, wanted $status: $(head -c 300 "$tmp/err")"
    elif ! grep -Eq -- "$pattern" "$tmp/err"; then
        fail "$name" "no '$pattern' in: $(head -c 300 "$tmp/err")"
    elif ! cmp -s "$tmp/before" "$tmp/after"; then
        fail "$name" "files changed: $(diff "$tmp/before" "$tmp/after" | head -4 | tr '\n' ' ')"
    else
        pass "$name"
    fi
}

# ---- plan --write-best -------------------------------------------------------------
victims "$tmp/w" best.yaml
for v in best.yaml best.yaml.link best.yaml.dangling; do
    refused "plan --write-best keeps $v" 2 "--write-best: .*$v already exists \(--force replaces it\)" \
        plan --write-best "$tmp/w/$v"
done
for v in best.yaml.link best.yaml.dangling; do
    refused "plan --write-best --force keeps the link $v" 2 "exists and is not a regular file" \
        plan --write-best "$tmp/w/$v" --force
done
plan --write-best "$tmp/w/best.yaml" --force >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "^mlviz: wrote $tmp/w/best.yaml$" "$tmp/err" && "$bin" check "$tmp/w/best.yaml" >/dev/null 2>&1 &&
    [ "$(cat "$tmp/outside/target")" = outside ]; then
    pass "plan --write-best --force replaces the user's file (and says so)"
else
    fail "plan --write-best --force replaces the user's file" "exit $rc: $(head -c 300 "$tmp/err")"
fi
# Its own setup is safe: `plan my.yaml --write-best my.yaml` refuses.
cp scenarios/presets/default.yaml "$tmp/w/my.yaml"
refused "plan my.yaml --write-best my.yaml keeps my.yaml" 2 "already exists" \
    "$bin" plan "$tmp/w/my.yaml" --vary cluster.nodes=1,2 --top 2 --quiet --write-best "$tmp/w/my.yaml"
plan --write-best "$tmp/w/new.yaml" >/dev/null 2>"$tmp/err" && [ -f "$tmp/w/new.yaml" ] &&
    ! ls -A "$tmp/w" | grep -q '^\.' && pass "plan --write-best writes a new file, no temporary left" ||
    fail "plan --write-best writes a new file" "$(head -c 300 "$tmp/err")"

# ---- plan --write-top --------------------------------------------------------------
rm -rf "$tmp/w"
mkdir -p "$tmp/w/top"
echo "rank one of last week" >"$tmp/w/top/rank-01.yaml"
refused "plan --write-top keeps an existing rank file" 2 "--write-top: .*top/rank-01.yaml already exists" \
    plan --write-top "$tmp/w/top"
rm "$tmp/w/top/rank-01.yaml"
for kind in link dangling dir; do
    rm -f "$tmp/w/top/rank-02.yaml"
    case $kind in
    link) victims "$tmp/w" x && ln -s "$tmp/outside/target" "$tmp/w/top/rank-02.yaml" ;;
    dangling) ln -s "$tmp/outside/absent" "$tmp/w/top/rank-02.yaml" ;;
    dir) ln -s "$tmp/outside" "$tmp/w/top/rank-02.yaml" ;;
    esac
    refused "plan --write-top keeps a $kind link in the directory" 2 "rank-02.yaml already exists" \
        plan --write-top "$tmp/w/top"
    refused "plan --write-top --force keeps a $kind link in the directory" 2 "rank-02.yaml exists and is not a regular file" \
        plan --write-top "$tmp/w/top" --force
done
ln -s "$tmp/outside" "$tmp/w/toplink"
refused "plan --write-top refuses a directory that is a link" 2 "toplink' is a symbolic link" \
    plan --write-top "$tmp/w/toplink"
rm -f "$tmp/w/top/rank-02.yaml"
echo "old" >"$tmp/w/top/rank-02.yaml"
plan --write-top "$tmp/w/top" --force >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^mlviz: wrote .*/top/rank-0[12].yaml$' "$tmp/err")" -eq 2 ] &&
    "$bin" check "$tmp/w/top/rank-02.yaml" >/dev/null 2>&1; then
    pass "plan --write-top --force replaces rank files (and names each)"
else
    fail "plan --write-top --force replaces rank files" "exit $rc: $(head -c 300 "$tmp/err")"
fi

# ---- probe --write -----------------------------------------------------------------
rm -rf "$tmp/w" "$tmp/xdg"
victims "$tmp/w" me.yaml
for v in me.yaml me.yaml.link me.yaml.dangling; do
    refused "probe --write keeps $v" 2 "--write: .*$v already exists \(--force replaces it\)" probe --write "$tmp/w/$v"
done
for v in me.yaml.link me.yaml.dangling; do
    refused "probe --write --force keeps the link $v" 2 "exists and is not a regular file" probe --write "$tmp/w/$v" --force
done
[ ! -e "$tmp/xdg/mlviz/catalog/probe.yaml" ] && pass "a refused probe --write writes no catalog entries" ||
    fail "a refused probe --write writes no catalog entries" "probe.yaml was written"
probe --write "$tmp/w/me.yaml" --force >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q "^mlviz: wrote $tmp/w/me.yaml " "$tmp/err" && grep -q "^# Written by mlviz probe" "$tmp/w/me.yaml" &&
    pass "probe --write --force replaces the file" || fail "probe --write --force replaces the file" "exit $rc: $(head -c 300 "$tmp/err")"

# ---- the user catalog's probe.yaml -----------------------------------------------
cat=$tmp/xdg/mlviz/catalog
# Another machine's entry, written by an earlier probe: kept by id.
cat >"$cat/probe.yaml" <<'EOF'
# Written by mlviz probe (machine A)
cpus:
  - id: probe-machine-a-cpu
    name: "Machine A CPU"
    vendor: ""
    year: 2020
    source: "mlviz probe"
    cores: 4
    mem_channels: 2
    mem_bw_gbs: 50
    pcie_lanes: 16
    pcie_gen: 4
    tdp_w: 65
    idle_w: 10
  - id: probe-13th-core-i7-13700h
    name: "stale entry of this machine"
    vendor: ""
    year: 2020
    source: "mlviz probe"
    cores: 2
    mem_channels: 2
    mem_bw_gbs: 50
    pcie_lanes: 16
    pcie_gen: 4
    tdp_w: 65
    idle_w: 10
EOF
probe --write "$tmp/w/b.yaml" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'id: probe-machine-a-cpu' "$cat/probe.yaml" &&
    [ "$(grep -c 'probe-13th-core-i7-13700h' "$cat/probe.yaml")" -eq 1 ] && ! grep -q 'stale entry' "$cat/probe.yaml" &&
    XDG_CONFIG_HOME="$tmp/xdg" "$bin" check "$tmp/w/b.yaml" >/dev/null 2>&1; then
    pass "probe.yaml merged by id: machine A kept, this machine's entry replaced"
else
    fail "probe.yaml merged by id" "exit $rc: $(head -c 300 "$tmp/err") $(grep 'id:' "$cat/probe.yaml" | tr '\n' ' ')"
fi
# probe.yaml a link: neither it, its target nor the setup is written.
mv "$cat/probe.yaml" "$tmp/outside/probe.yaml"
ln -s "$tmp/outside/probe.yaml" "$cat/probe.yaml"
refused "probe.yaml a link: nothing written" 1 "probe.yaml: a symbolic link" probe --write "$tmp/w/c.yaml"
[ ! -e "$tmp/w/c.yaml" ] && pass "probe.yaml a link: no setup naming missing entries" ||
    fail "probe.yaml a link: no setup naming missing entries" "c.yaml was written"
rm "$cat/probe.yaml"
ln -s "$tmp/outside/absent.yaml" "$cat/probe.yaml"
# (The catalog loader itself refuses a dangling one, before any probing.)
refused "probe.yaml a dangling link: nothing written" 2 "probe.yaml" probe --write "$tmp/w/c.yaml"
exit 0
