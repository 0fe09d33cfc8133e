#!/bin/sh
# make install / uninstall into a DESTDIR, and the installed binary finding
# its data from another directory. Prints PASS/FAIL lines.
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

if make --no-print-directory -s BUILD="$tmp/build" BIN="$tmp/build/mlviz" DESTDIR="$tmp/root" \
        PREFIX=/usr install >"$tmp/log" 2>&1; then
    pass "install runs"
else
    fail "install runs" "$(tail -n 5 "$tmp/log")"
    exit 0
fi
for f in usr/bin/mlviz usr/share/mlviz/assets/catalog/accelerators.yaml \
         usr/share/mlviz/scenarios/presets/default.yaml usr/share/man/man1/mlviz.1; do
    [ -f "$tmp/root/$f" ] && pass "installed $f" || fail "installed $f" "missing"
done
grep -q '^\.SH KEYS' "$tmp/root/usr/share/man/man1/mlviz.1" &&
    ! grep -q '@KEYS@' "$tmp/root/usr/share/man/man1/mlviz.1" &&
    pass "man page has the key list" || fail "man page has the key list" "not substituted"
out=$(cd / && env -u MLVIZ_DATA "$tmp/root/usr/bin/mlviz" eval default --format json 2>&1)
echo "$out" | grep -q '"tokens_per_s"' && pass "installed binary finds its data" ||
    fail "installed binary finds its data" "$(echo "$out" | head -n 3)"
make --no-print-directory -s BUILD="$tmp/build" BIN="$tmp/build/mlviz" DESTDIR="$tmp/root" \
    PREFIX=/usr uninstall >/dev/null 2>&1
if [ ! -e "$tmp/root/usr/bin/mlviz" ] && [ ! -e "$tmp/root/usr/share/mlviz" ]; then
    pass "uninstall removes everything"
else
    fail "uninstall removes everything" "files left"
fi
cd "$top"
