#!/bin/sh
# make check-format: every tracked .c and .h file is formatted as .clang-format
# says (docs/STYLE.md, "Formatting"). Prints the files that differ and exits 1
# when there is any; says SKIP and exits 0 when clang-format is not installed
# (`make deps-test` installs it). The tree is formatted with clang-format 14
# (Debian 12's); other major versions lay some constructs out differently, so
# with another version the check says SKIP rather than fail on its taste.
# Run from the repository root.
FORMAT_MAJOR=14
if ! command -v clang-format >/dev/null 2>&1; then
    echo "SKIP check-format: clang-format is not installed (make deps-test)"
    exit 0
fi
major=$(clang-format --version | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p' | head -n 1)
if [ "$major" != "$FORMAT_MAJOR" ]; then
    echo "SKIP check-format: clang-format ${major:-?} here; the tree follows clang-format $FORMAT_MAJOR"
    exit 0
fi
files=$(git ls-files '*.c' '*.h' 2>/dev/null)
[ -n "$files" ] || files=$(find engine tui tests -name '*.[ch]' ! -path '*/corpus/*')
out=$(mktemp)
trap 'rm -f "$out" "$out.todo" "$out.sums"' EXIT
# Files checked clean before by this clang-format with this .clang-format,
# by content (one checksum a file, in $BUILD/format-clean, kept only after a
# clean run): a warm `make test` checks only what changed since. The key
# holds the version, the style file and each file's content, so any change
# to one of them checks that file again.
cache=${BUILD:+$BUILD/format-clean}
key=$( (clang-format --version; cat .clang-format 2>/dev/null) | cksum | cut -d' ' -f1)
todo=$files
if [ -n "$cache" ] && [ -f "$cache" ]; then
    # shellcheck disable=SC2086
    cksum $files | awk -v key="$key" '{ print key "-" $1 "-" $2, $3 }' >"$out.sums"
    todo=$(awk 'NR == FNR { clean[$1] = 1; next } !($1 in clean) { print $2 }' "$cache" "$out.sums")
fi
# One run over the files; each finding starts "FILE:LINE:COL: error:".
rc=0
[ -z "$todo" ] || clang-format --dry-run -Werror $todo >"$out" 2>&1 || rc=$?
sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: \(error\|warning\):.*/\1/p' "$out" | uniq -c |
    while read -r n f; do
        echo "$f: $n place(s) differ from .clang-format (clang-format -i $f)"
    done
bad=$(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: \(error\|warning\):.*/\1/p' "$out" | sort -u | wc -l)
if [ $rc -ne 0 ] && [ "$bad" -eq 0 ]; then
    echo "check-format: clang-format failed (exit $rc): $(head -n 3 "$out")"
    exit 1
fi
if [ "$bad" -gt 0 ]; then
    echo "check-format: $bad file(s) not formatted; see docs/STYLE.md, Formatting"
    exit 1
fi
if [ -n "$cache" ] && [ -d "$(dirname "$cache")" ]; then
    # shellcheck disable=SC2086
    cksum $files | awk -v key="$key" '{ print key "-" $1 "-" $2 }' >"$cache.tmp" && mv "$cache.tmp" "$cache"
fi
echo "check-format: every file is formatted as .clang-format says ($(echo $todo | wc -w) checked, the rest unchanged since a clean check)"
