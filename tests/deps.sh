#!/bin/sh
# Checks that the libraries (pkg-config names in MISSING_PKGS), tools
# (TOOLS) and, on Debian, the packages in DEB_CHECK (those with neither a
# pkg-config name nor a command: python3-pil, fonts-dejavu-core) are present.
# When something is missing and we are root on Debian, installs the Debian
# packages in DEB; otherwise prints the command to run.
missing=""
for p in $MISSING_PKGS; do
    pkg-config --exists "$p" 2>/dev/null || missing="$missing $p"
done
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v cc >/dev/null 2>&1 || missing="$missing cc"
for t in $TOOLS; do
    command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
if command -v dpkg-query >/dev/null 2>&1; then
    for d in $DEB_CHECK; do
        dpkg-query -W -f '${Status}' "$d" 2>/dev/null | grep -q 'ok installed' || missing="$missing $d"
    done
fi
[ -z "$missing" ] && exit 0
echo "mlviz: missing:$missing" >&2
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "mlviz: installing Debian packages: $DEB" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq $DEB >&2 </dev/null || {
        echo "mlviz: apt-get failed; run: apt-get update && apt-get install -y $DEB" >&2
        exit 1
    }
    exit 0
fi
echo "mlviz: install them with: sudo apt-get update && sudo apt-get install -y $DEB" >&2
exit 1
