#!/bin/sh
# Lua sandbox tests: hostile scripts that must stop with the right message,
# hostile writes that change nothing outside the output directory, the C-side
# memory of sims counted against the cap, print_table with wide rows, and
# parameter discovery that runs no side effect twice. (The Lua suites are
# tests/lua/run.sh, hostile.sh and limits.sh; they run side by side.)
# Prints "PASS name" or "FAIL name: why" per check. Run from the repo root.
. "$(dirname "$0")/common"

# ---- hostile scripts ---------------------------------------------------------------
expect "hostile infinite loop" 1 "infinite_loop.lua:2: instruction budget of 15000000 exceeded" -- run $lim $H/infinite_loop.lua
expect "hostile loop inside pcall" 1 "instruction budget .* exceeded" -- run $lim $H/pcall_loop.lua
expect "hostile memory bomb" 1 "memory_bomb.lua:[0-9]+: memory cap of 64 MiB exceeded" -- run $lim $H/memory_bomb.lua
expect "hostile memory bomb inside pcall" 1 "memory cap of 64 MiB exceeded" -- run $lim $H/pcall_memory.lua
expect "hostile os.execute" 1 "os_execute.lua:1: os.execute is not available in the sandbox" -- run $H/os_execute.lua
expect "hostile io.open /etc/passwd" 1 "io_open.lua:1: 'io' is not available in the sandbox" -- run $H/io_open.lua
expect "hostile loadfile" 1 "'loadfile' is not available" -- run $H/loadfile.lua
expect "hostile debug library" 1 "'debug' is not available" -- run $H/debug_lib.lua
expect "hostile binary chunk" 1 "attempt to load a binary chunk" -- run $H/binary_chunk.lua
expect "hostile deep recursion" 1 "deep_recursion.lua:1: stack overflow" -- run $H/deep_recursion.lua
expect "hostile error in event callback" 1 "callback_error.lua:3: boom in callback \(in an event callback" -- run $H/callback_error.lua
expect "hostile nil index in event callback" 1 "callback_nil_index.lua:3: attempt to index a nil value" -- run $H/callback_nil_index.lua
expect "hostile require escape" 1 "bad module name" -- run $H/require_escape.lua
expect "hostile unknown field" 1 "bad_field.lua:2: set: unknown field 'cluster.nodez' \(did you mean 'cluster.nodes'\?\)" -- run $H/bad_field.lua
expect "hostile accidental global" 1 "global_assign.lua:1: assignment to undeclared global 'count'" -- run $H/global_assign.lua
expect "hostile traceback printed" 1 "stack traceback" -- run $H/bad_field.lua
expect "trusted lifts the sandbox" 0 "" -- run --trust tests/lua/trusted_io.lua
expect "readme example: slow storage becomes the bottleneck" 0 "1.0 GB/s +[0-9]+ tokens/s +data +storage delivers 1 GB/s" -- run tests/lua/readme_example.lua
expect "readme example: a cooling loss throttles" 0 "throttled [1-9][0-9]* min, hottest rack" -- run tests/lua/readme_example.lua

# ---- the output directory: hostile writes change nothing outside it -------------
# Each script runs in a scratch tree holding a Makefile, .git/config, a directory
# outside the output directory and, inside mlviz-out/, symlinks to it and a
# directory named like a CSV file. A listing with checksums of everything
# outside mlviz-out/ must be the same before and after, and no temporary file
# may stay behind.
here=$(pwd)
W=$out/tree
make_tree() {
    rm -rf "$W"
    mkdir -p "$W/.git" "$W/outside" "$W/mlviz-out/dir.csv"
    echo "all:" >"$W/Makefile"
    printf '[core]\n' >"$W/.git/config"
    echo keep >"$W/outside/target.csv"
    ln -s ../outside "$W/mlviz-out/linkdir"
    ln -s ../outside/target.csv "$W/mlviz-out/link.csv"
    ln -s ../outside/nothing.csv "$W/mlviz-out/dangling.csv"
    ln -s ../outside "$W/mlviz-out/ldir.csv"
    echo "an earlier run" >"$W/mlviz-out/earlier.csv"
    echo '{"scripts": {"test": "make"}}' >"$W/package.json"
}
tree_listing() {
    (cd "$W" && find . -path ./mlviz-out -prune -o -print | LC_ALL=C sort &&
        find . -path ./mlviz-out -prune -o -type f -exec cksum {} + | LC_ALL=C sort &&
        ls -ld mlviz-out/linkdir mlviz-out/link.csv mlviz-out/dangling.csv mlviz-out/ldir.csv \
            mlviz-out/dir.csv 2>&1 | sed 's/.* mlviz-out/mlviz-out/' &&
        cksum mlviz-out/earlier.csv 2>&1)
}
# hostile_write NAME STATUS PATTERN SCRIPT [mlviz options...]: run SCRIPT in a
# fresh tree with the default output directory.
hostile_write() {
    name=$1 status=$2 pattern=$3 script=$4
    shift 4
    make_tree
    tree_listing >"$out/before"
    (cd "$W" && "$MLVIZ_BIN" run "$@" "$here/$script" >"$out/stdout" 2>"$out/stderr")
    rc=$?
    tree_listing >"$out/after"
    if [ $rc -ne "$status" ]; then
        fail "$name" "exit $rc, wanted $status: $(head -c 300 "$out/stderr")"
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$out/stderr"; then
        fail "$name" "no line matching '$pattern' in: $(head -c 300 "$out/stderr")"
    elif ! cmp -s "$out/before" "$out/after"; then
        fail "$name" "files outside the output directory changed: $(diff "$out/before" "$out/after" | head -5 | tr '\n' ' ')"
    elif ls -A "$W/mlviz-out" | grep -q '^\.'; then
        fail "$name" "a temporary file stayed: $(ls -A "$W/mlviz-out" | tr '\n' ' ')"
    elif [ -e /tmp/abs.json ]; then
        fail "$name" "/tmp/abs.json was written"
    else
        pass "$name"
    fi
}
plain="is not a plain file name \(letters, digits, '\.', '_', '-'"
hostile_write "hostile write with .." 1 "write_escape.lua:1: write_csv: \"\.\./escape\.csv\" $plain" $H/write_escape.lua
hostile_write "hostile absolute write" 1 "write_absolute.lua:1: write_json: \"/tmp/abs\.json\" $plain" $H/write_absolute.lua
hostile_write "hostile write ../Makefile" 1 "write_makefile.lua:2: write_csv: \"\.\./Makefile\" $plain" $H/write_makefile.lua
hostile_write "hostile write .git/config" 1 "write_git_config.lua:2: write_json: \"\.git/config\" $plain" $H/write_git_config.lua
hostile_write "hostile write a dotfile" 1 "write_dotfile.lua:2: write_csv: \"\.profile\.csv\" starts with a dot" $H/write_dotfile.lua
hostile_write "hostile write through a directory symlink" 1 "write_symlink_dir.lua:2: write_csv: \"linkdir/target\.csv\" $plain" $H/write_symlink_dir.lua
hostile_write "hostile write through a file symlink" 0 "" $H/write_symlink_file.lua
hostile_write "hostile write over a directory" 0 "" $H/write_over_dir.lua
# Names taken by anything this run did not create (a link to a file, a
# dangling link, a link to a directory, a directory, an earlier run's file)
# stay as they were; the file goes to NAME-2.csv, which the run's later
# writes of the same name replace.
hostile_write "taken names: links, a directory, an earlier run's file left as they were" 0 "" $H/write_taken_names.lua
want="mlviz-out/link-2.csv mlviz-out/dangling-2.csv mlviz-out/ldir-2.csv mlviz-out/dir-2.csv mlviz-out/earlier-2.csv"
got=$(tr '\n' ' ' <"$out/stdout")
if [ "$got" = "$want $want " ] && [ "$(cat "$W/mlviz-out/earlier-2.csv")" = "$(printf 'round\n2')" ] &&
    [ "$(cat "$W/mlviz-out/earlier.csv")" = "an earlier run" ]; then
    pass "taken names: written as NAME-2.csv, replaced by the same run"
else
    fail "taken names: written as NAME-2.csv, replaced by the same run" "printed: $got"
fi
grep -q "^mlviz: mlviz-out/earlier.csv was there already: wrote mlviz-out/earlier-2.csv$" "$out/stderr" &&
    pass "taken names: run says which files went to other names" ||
    fail "taken names: run says which files went to other names" "$(head -c 300 "$out/stderr")"
# --out . : a script cannot replace package.json (its scripts.test would run).
make_tree
before=$(cksum <"$W/package.json")
(cd "$W" && "$MLVIZ_BIN" run --out . "$here/$H/write_package_json.lua" >"$out/stdout" 2>"$out/stderr")
rc=$?
if [ $rc -eq 0 ] && [ "$(cksum <"$W/package.json")" = "$before" ] && [ "$(cat "$out/stdout")" = "./package-2.json" ] &&
    grep -q "curl evil" "$W/package-2.json"; then
    pass "hostile --out . keeps package.json, writes package-2.json beside it"
else
    fail "hostile --out . keeps package.json, writes package-2.json beside it" "exit $rc, printed: $(head -c 200 "$out/stdout" "$out/stderr")"
fi
hostile_write "hostile name with a newline" 1 "write_newline.lua:2: write_csv: \"a\\\\nb\.csv\" $plain" $H/write_newline.lua
hostile_write "hostile name with a NUL" 1 "write_nul.lua:2: write_json: \"x\.json\\\\x00/\.\./\.\./Makefile\" $plain" $H/write_nul.lua
hostile_write "hostile name with backslashes" 1 "write_backslash.lua:2: write_csv: .* $plain" $H/write_backslash.lua
hostile_write "hostile CSV under a .lua name" 1 "write_wrong_ext.lua:2: write_csv: \"evil\.lua\" must end in \.csv" $H/write_wrong_ext.lua
hostile_write "hostile JSON under a .csv name" 1 "write_json_as_csv.lua:2: write_json: \"data\.csv\" must end in \.json" $H/write_json_as_csv.lua
hostile_write "hostile name too long" 1 "write_long_name.lua:2: write_csv: \"a+\.\.\.\" is longer than 128 bytes" $H/write_long_name.lua
hostile_write "hostile empty name" 1 "write_empty_name.lua:2: write_csv: the file name is empty" $H/write_empty_name.lua
hostile_write "hostile os.remove" 1 "os_remove.lua:2: os.remove is not available in the sandbox" $H/os_remove.lua
hostile_write "hostile os.rename" 1 "os_rename.lua:1: os.rename is not available in the sandbox" $H/os_rename.lua
hostile_write "hostile os.tmpname" 1 "os_tmpname.lua:1: os.tmpname is not available in the sandbox" $H/os_tmpname.lua
hostile_write "hostile io.write" 1 "io_write.lua:1: 'io' is not available in the sandbox" $H/io_write.lua
hostile_write "hostile dofile" 1 "dofile.lua:1: 'dofile' is not available in the sandbox" $H/dofile.lua
hostile_write "hostile package.loadlib" 1 "package_loadlib.lua:1: 'package' is not available in the sandbox" $H/package_loadlib.lua
hostile_write "hostile string.dump" 1 "string_dump.lua:1: attempt to call a nil value \(field 'dump'\)" $H/string_dump.lua
hostile_write "hostile load in binary mode" 1 "load_binary_mode.lua:1: load: binary chunks are not allowed" $H/load_binary_mode.lua
hostile_write "hostile collectgarbage option" 1 "collectgarbage_option.lua:1: collectgarbage: only \"count\" and \"collect\"" $H/collectgarbage_option.lua

hostile_write "hostile table.sort replaced before a write" 0 "" $H/table_sort_hijack.lua
if [ "$(tr -d ' \n' <"$W/mlviz-out/sorted.json" 2>/dev/null)" = '{"a":{"c":3,"d":2},"b":1}' ] &&
    [ "$(cat "$W/mlviz-out/sorted.csv" 2>/dev/null)" = "$(printf 'a,b\n2,1')" ]; then
    pass "host sorts keys with the library's sort"
else
    fail "host sorts keys with the library's sort" "$(cat "$W/mlviz-out/sorted.json" 2>&1 | head -c 200)"
fi

# The output directory itself a symlink to a directory outside: refused.
make_tree
rm -rf "$W/mlviz-out" && ln -s outside "$W/mlviz-out"
tree_listing >"$out/before"
(cd "$W" && "$MLVIZ_BIN" run "$here/tests/lua/output_roundtrip.lua" >"$out/stdout" 2>"$out/stderr")
rc=$?
tree_listing >"$out/after"
if [ $rc -eq 1 ] && grep -q "write_csv: the output directory: 'mlviz-out' is a symbolic link" "$out/stderr" &&
    cmp -s "$out/before" "$out/after"; then
    pass "hostile output directory is a symlink"
else
    fail "hostile output directory is a symlink" "exit $rc: $(head -c 300 "$out/stderr")"
fi

# A failed write leaves the previous file byte for byte (and no half file).
hostile_write "failed write keeps the old file" 1 "write_fails_midway.lua:8: write_json: cannot write a function as JSON \(nothing was written\)" $H/write_fails_midway.lua --out mlviz-out
if [ "$(cat "$W/mlviz-out/keep.json" 2>/dev/null)" = "$(printf '\n{\n  "a": 1,\n  "b": [\n    1,\n    2,\n    3\n  ]\n}')" ] &&
    [ "$(cat "$W/mlviz-out/keep.csv" 2>/dev/null)" = "$(printf 'a,b\n1,x')" ]; then
    pass "failed writes left keep.json and keep.csv unchanged"
else
    fail "failed writes left keep.json and keep.csv unchanged" "$(head -c 200 "$W/mlviz-out/keep.json" "$W/mlviz-out/keep.csv" 2>&1 | tr '\n' ' ')"
fi

# Written files parse, with the values the script gave.
make_tree
rm -rf "$W/mlviz-out"
(cd "$W" && "$MLVIZ_BIN" run "$here/tests/lua/output_roundtrip.lua" >"$out/stdout" 2>"$out/stderr")
rc=$?
if [ $rc -ne 0 ]; then
    fail "output round trip" "exit $rc: $(head -c 300 "$out/stderr")"
elif [ "$(stat -c %a "$W/mlviz-out")" != 755 ]; then
    fail "output round trip" "mlviz-out created with mode $(stat -c %a "$W/mlviz-out")"
elif ! grep -qx "mlviz-out/rows.csv" "$out/stdout"; then
    fail "output round trip" "write_csv returned: $(head -c 200 "$out/stdout")"
elif ! python3 tests/lua/output_check.py "$W/mlviz-out"; then
    fail "output round trip" "python could not read back the files"
else
    pass "output round trip"
fi

# Engine numbers and awkward values read back with their quoting and digits.
make_tree
rm -rf "$W/mlviz-out"
(cd "$W" && "$MLVIZ_BIN" run "$here/tests/lua/numbers_roundtrip.lua" >"$out/printed" 2>"$out/stderr")
rc=$?
if [ $rc -ne 0 ]; then
    fail "numbers round trip" "exit $rc: $(head -c 300 "$out/stderr")"
elif ! python3 tests/lua/numbers_check.py "$W/mlviz-out" "$out/printed" 2>"$out/why"; then
    fail "numbers round trip" "$(head -c 300 "$out/why")"
else
    pass "numbers round trip"
fi

# --out names the directory; it is created on the first write, not before.
make_tree
(cd "$W" && "$MLVIZ_BIN" run "$here/tests/lua/output_roundtrip.lua" --out results >"$out/stdout" 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ -f "$W/results/rows.csv" ] && [ ! -e "$W/mlviz-out/rows.csv" ]; then
    pass "--out chooses the output directory"
else
    fail "--out chooses the output directory" "exit $rc: $(head -c 200 "$out/stdout")"
fi
(cd "$W" && "$MLVIZ_BIN" run "$here/tests/lua/readme_example.lua" --out unused >/dev/null 2>&1)
[ ! -e "$W/unused" ] && pass "no output directory without a write" ||
    fail "no output directory without a write" "unused/ was created"

# ---- memory cap: the C-side memory of sims counts ---------------------------------
hostile_write "hostile sim series past the memory cap" 1 "sim_series_memory.lua:5: sim: memory cap of 64 MiB exceeded" $H/sim_series_memory.lua --memory 64MiB
if [ -x /usr/bin/time ]; then
    (cd "$W" && /usr/bin/time -f "%M" -o "$out/rss" "$MLVIZ_BIN" run --memory 64MiB "$here/$H/sim_series_memory.lua" >/dev/null 2>&1)
    rss_kb=$(tail -n 1 "$out/rss")
    # The cap plus the program itself (catalog, libraries, sanitizer shadow):
    # far below the 550 MiB the twenty sims would hold.
    if [ "$rss_kb" -lt 200000 ]; then
        pass "sim memory: peak RSS ${rss_kb} KiB under a 64 MiB cap"
    else
        fail "sim memory: peak RSS" "${rss_kb} KiB under a 64 MiB cap"
    fi
fi

# ---- print_table with rows wider than the Lua buffer block --------------------------
expect "print_table with 4 KiB rows" 0 "^c01 +c02" -- run $H/print_table_wide.lua
if LC_ALL=C grep -q '[^ xc0-9]' "$out/stdout" || [ "$(wc -l <"$out/stdout")" -ne 3 ]; then
    fail "print_table wide rows are clean" "$(LC_ALL=C grep '[^ xc0-9]' "$out/stdout" | head -c 200)"
else
    pass "print_table wide rows are clean"
fi

expect "print_table of -0, inf and nan" 0 "^a +b +c +d" -- run $H/print_table_nonfinite.lua
if grep -Eqi -- '-0|inf|nan' "$out/stdout"; then
    fail "print_table shows no -0, inf or nan" "$(tr '\n' ' ' <"$out/stdout")"
else
    pass "print_table shows no -0, inf or nan"
fi

# ---- parameter discovery runs no side effect twice ----------------------------------
make_tree
mkdir -p "$out/top-out"
(cd "$W" && "$MLVIZ_BIN" run "$here/tests/lua/top_effects.lua" --n=3 --out "$out/top-out" >"$out/stdout" 2>"$out/stderr")
rc=$?
n_top=$(grep -c "printed at the top" "$out/stdout")
if [ $rc -ne 0 ] || [ "$n_top" -ne 1 ] || ! grep -q "n is	3" "$out/stdout"; then
    fail "top-level print runs once" "exit $rc, printed $n_top times: $(head -c 200 "$out/stderr")"
else
    pass "top-level print runs once"
fi
# Discovery used to write a second copy, into the current directory.
if [ -f "$out/top-out/top.csv" ] && [ ! -e "$W/top.csv" ] && [ ! -e "$W/mlviz-out/top.csv" ]; then
    pass "top-level write runs once"
else
    fail "top-level write runs once" "$(ls "$W" "$W/mlviz-out" | tr '\n' ' ')"
fi

# `mlviz scenarios` over a scenario tree whose scripts print at the top.
S=$out/data
mkdir -p "$S/scenarios"
printf -- '-- Says "hi", loudly\nprint("{not json,")\nlocal p = mlviz.params { { "x", 1, "x" } }\n' >"$S/scenarios/noisy.lua"
printf -- '-- Quiet one\nlocal p = mlviz.params { { "a", 1, "a" }, { "b", "s", "b" } }\n' >"$S/scenarios/quiet.lua"
MLVIZ_DATA=$S "$MLVIZ_BIN" scenarios --format json >"$out/stdout" 2>"$out/stderr"
if python3 tests/lua/output_check.py --scenarios-json "$out/stdout"; then
    pass "scenarios --format json parses although a scenario prints"
else
    fail "scenarios --format json parses although a scenario prints" "$(head -c 200 "$out/stdout")"
fi
MLVIZ_DATA=$S "$MLVIZ_BIN" scenarios --format csv >"$out/stdout" 2>"$out/stderr"
if python3 tests/lua/output_check.py --scenarios-csv "$out/stdout"; then
    pass "scenarios --format csv quotes descriptions"
else
    fail "scenarios --format csv quotes descriptions" "$(head -c 200 "$out/stdout")"
fi
exit 0
