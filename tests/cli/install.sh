#!/bin/sh
# make install / uninstall into a DESTDIR, and the installed binary finding
# its data from another directory. Prints PASS/FAIL lines.
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# Start from the objects of the test build ($BUILD, already compiled) when
# there is one, so make install links and installs without compiling the
# tree again; catalog.o is recompiled because PREFIX sets its data path.
# A sanitized build's objects (make asan) need the sanitizer's link flags,
# which a plain make install does not give: then everything is rebuilt.
sanitized() { nm "$1" 2>/dev/null | grep -q '__asan_\|__ubsan_\|__msan_\|__tsan_'; }
if [ -n "${BUILD:-}" ] && [ -f "$BUILD/libmlviz-engine.a" ] &&
    ! sanitized "$BUILD/libmlviz-engine.a"; then
    mkdir -p "$tmp/build"
    cp -Rp "$BUILD/engine" "$BUILD/tui" "$BUILD"/libmlviz-*.a "$tmp/build/" 2>/dev/null
    rm -f "$tmp/build/engine/core/catalog.o"
fi

# Someone else's completion beside ours must survive uninstall.
mkdir -p "$tmp/root/usr/share/bash-completion/completions"
echo "complete -F _other other" >"$tmp/root/usr/share/bash-completion/completions/other"
if make --no-print-directory -s BUILD="$tmp/build" BIN="$tmp/build/mlviz" DESTDIR="$tmp/root" \
        PREFIX=/usr install >"$tmp/log" 2>&1; then
    pass "install runs"
else
    fail "install runs" "$(tail -n 5 "$tmp/log")"
    exit 0
fi
for f in usr/bin/mlviz usr/share/mlviz/assets/catalog/accelerators.yaml \
         usr/share/mlviz/scenarios/presets/default.yaml usr/share/man/man1/mlviz.1 \
         usr/share/mlviz/assets/models/llama3-70b.json \
         usr/share/bash-completion/completions/mlviz usr/share/zsh/site-functions/_mlviz \
         usr/share/fish/vendor_completions.d/mlviz.fish; do
    [ -f "$tmp/root/$f" ] && pass "installed $f" || fail "installed $f" "missing"
done
grep -q '^\.SH KEYS' "$tmp/root/usr/share/man/man1/mlviz.1" &&
    ! grep -q '@KEYS@' "$tmp/root/usr/share/man/man1/mlviz.1" &&
    pass "man page has the key list" || fail "man page has the key list" "not substituted"
out=$(cd / && env -u MLVIZ_DATA "$tmp/root/usr/bin/mlviz" eval default --format json 2>&1)
echo "$out" | grep -q '"tokens_per_s"' && pass "installed binary finds its data" ||
    fail "installed binary finds its data" "$(echo "$out" | head -n 3)"
bash -n "$tmp/root/usr/share/bash-completion/completions/mlviz" 2>/dev/null &&
    grep -q 'complete -F _mlviz mlviz' "$tmp/root/usr/share/bash-completion/completions/mlviz" &&
    pass "installed bash completion parses" || fail "installed bash completion parses" "bash -n"
out=$(cd / && printf 'model: {name: llama3-8b}\n' |
      env -u MLVIZ_DATA "$tmp/root/usr/bin/mlviz" check - --format json 2>&1)
echo "$out" | grep -q '"valid": true' && pass "installed binary finds its model configs" ||
    fail "installed binary finds its model configs" "$(echo "$out" | tail -n 2)"
make --no-print-directory -s BUILD="$tmp/build" BIN="$tmp/build/mlviz" DESTDIR="$tmp/root" \
    PREFIX=/usr uninstall >/dev/null 2>&1
left=$(cd "$tmp/root" && find . -type f ! -path ./usr/share/bash-completion/completions/other | head -n 5)
[ -z "$left" ] && [ -f "$tmp/root/usr/share/bash-completion/completions/other" ] &&
    pass "uninstall removes every installed file and nothing else" ||
    fail "uninstall removes every installed file" "$left"
if [ ! -e "$tmp/root/usr/bin/mlviz" ] && [ ! -e "$tmp/root/usr/share/mlviz" ]; then
    pass "uninstall removes everything"
else
    fail "uninstall removes everything" "files left"
fi
# The directories install made go too, those that were there stay.
left=$(cd "$tmp/root" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$left" = "./usr ./usr/share ./usr/share/bash-completion ./usr/share/bash-completion/completions ./usr/share/bash-completion/completions/other " ] &&
    pass "uninstall removes the directories install created, no other" || fail "uninstall directories" "$left"
# Into an empty DESTDIR: install then uninstall leaves it empty.
mkdir "$tmp/empty"
make --no-print-directory -s BUILD="$tmp/build" BIN="$tmp/build/mlviz" DESTDIR="$tmp/empty" \
    install >/dev/null 2>&1 &&
    make --no-print-directory -s BUILD="$tmp/build" BIN="$tmp/build/mlviz" DESTDIR="$tmp/empty" \
        uninstall >/dev/null 2>&1
left=$(cd "$tmp/empty" && find . -mindepth 1 | head -n 5 | tr '\n' ' ')
[ -z "$left" ] && pass "install then uninstall into an empty DESTDIR leaves it empty" ||
    fail "install then uninstall leaves an empty tree" "$left"

# The Debian package: contents and declared library dependencies.
if command -v dpkg-deb >/dev/null 2>&1; then
    if make --no-print-directory -s BUILD="$tmp/build" BIN="$tmp/build/mlviz" deb >"$tmp/log" 2>&1; then
        deb=$(ls "$tmp"/build/mlviz_*.deb 2>/dev/null | head -n 1)
        pass "make deb builds a package"
        files=$(dpkg-deb -c "$deb")
        for f in ./usr/bin/mlviz ./usr/share/mlviz/assets/catalog/accelerators.yaml \
                 ./usr/share/bash-completion/completions/mlviz \
                 ./usr/share/fish/vendor_completions.d/mlviz.fish; do
            echo "$files" | grep -q " $f\$" && pass "deb holds $f" || fail "deb holds $f" "missing"
        done
        for f in ./usr/share/doc/mlviz/copyright ./usr/share/doc/mlviz/changelog.gz \
                 ./usr/share/man/man1/mlviz.1.gz; do
            echo "$files" | grep -q " $f\$" && pass "deb holds $f" || fail "deb holds $f" "missing"
        done
        echo "$files" | grep -q " ./usr/share/man/man1/mlviz.1\$" && fail "man page gzipped" "mlviz.1 plain"
        mkdir "$tmp/x" && dpkg-deb -x "$deb" "$tmp/x"
        if command -v readelf >/dev/null 2>&1; then
            readelf -S "$tmp/x/usr/bin/mlviz" | grep -q '\.symtab\|\.debug_' &&
                fail "deb binary stripped" "symbols or debug data left" || pass "deb binary stripped"
        fi
        zcat "$tmp/x/usr/share/man/man1/mlviz.1.gz" | grep -q '^\.SH KEYS' &&
            pass "deb man page is the generated one, gzipped" || fail "deb man page" "not gzipped roff"
        info=$(dpkg-deb -I "$deb")
        echo "$info" | grep -q "Depends:.*libc6 (>= " && pass "deb Depends versioned (dpkg-shlibdeps)" ||
            fail "deb Depends versioned" "$(echo "$info" | grep Depends)"
        # lintian is large: checked when installed (make check-deb runs it too).
        # It takes 2 s of CPU, most of this suite's, on a package that is the
        # same from run to run while the code is: a package that passed is
        # remembered in $BUILD/lintian-passed/ under a hash of all lintian
        # reads but the files' times (the control file, the md5sums of every
        # file's content, each entry's mode, owner, size, path and link
        # target) and of lintian's and dpkg's versions. Any change to the
        # package or the tools is a new hash, and lintian runs; a package
        # that failed is never remembered.
        if command -v lintian >/dev/null 2>&1; then
            key=""
            if [ -n "${BUILD:-}" ] && [ -d "$BUILD" ]; then
                key=$( { dpkg-query -W -f='${Package} ${Version}\n' lintian dpkg dpkg-dev
                         dpkg-deb -I "$deb" control md5sums
                         dpkg-deb --fsys-tarfile "$deb" | tar -tvf - | awk '{ $4 = $5 = ""; print }'
                       } 2>&1 | sha256sum | cut -c1-32)
            fi
            if [ -n "$key" ] && [ -f "$BUILD/lintian-passed/$key" ]; then
                pass "lintian: no error"
                echo "(lintian: this package, hash $key, passed before)"
            elif lintian --fail-on error "$deb" >"$tmp/lintian" 2>&1 && ! grep -q '^E:' "$tmp/lintian"; then
                pass "lintian: no error"
                [ -n "$key" ] && mkdir -p "$BUILD/lintian-passed" && : >"$BUILD/lintian-passed/$key"
            else
                fail "lintian" "$(grep '^E:' "$tmp/lintian" | head -n 3)"
            fi
        else
            echo "skip lintian: not installed (apt-get install lintian; make check-deb)"
        fi
        for so in $(ldd "$tmp/build/mlviz" 2>/dev/null | sed -n 's/^[[:space:]]*\(lib[a-z]*\).*/\1/p' | sort -u); do
            case $so in libc|libm|libdl|libpthread) continue ;; esac
            echo "$info" | grep -q "Depends:.*$so" && pass "deb declares $so" ||
                fail "deb declares $so" "$(echo "$info" | grep Depends)"
        done
    else
        fail "make deb builds a package" "$(tail -n 5 "$tmp/log")"
    fi
else
    echo "skip make deb: dpkg-deb is not installed"
fi
cd "$top"
