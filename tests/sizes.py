#!/usr/bin/env python3
"""make check-sizes: no .c file over 800 lines, no function over 80 lines.

A function is measured from the line of its opening brace at column 0 to
the closing brace at column 0 (the house style, .clang-format). Functions
that are tables written as code may be longer when a table would be less
clear; they are listed in ALLOWED with the reason (docs/STYLE.md). Prints
one line per breach and exits 1 when there is any. Run from the repository
root; `--report` prints the largest files and functions instead."""
import re
import subprocess
import sys

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80
# path:function -> why it may be longer (keep this list short)
ALLOWED = {}


def sources():
    out = subprocess.run(["git", "ls-files", "*.c"], capture_output=True, text=True).stdout
    return [p for p in out.split() if p.startswith(("engine/", "tui/", "tests/"))
            and "/corpus/" not in p]


def functions(lines):
    """(name, first line, length) of every function defined in lines."""
    found = []
    name = None
    for i, line in enumerate(lines):
        if line.startswith("{") and i > 0:
            # the signature starts on the nearest line above at column 0
            j = i - 1
            while j > 0 and (not lines[j] or lines[j][0] in " \t"):
                j -= 1
            head = " ".join(lines[j:i])
            m = re.search(r"([A-Za-z_]\w*)\s*\(", head)
            name = (m.group(1), i) if m and "=" not in head.split("(")[0] else None
        elif line.startswith("}") and name:
            found.append((name[0], name[1] + 1, i - name[1] + 1))
            name = None
    return found


def main():
    report = "--report" in sys.argv
    bad = []
    sizes = []
    for path in sources():
        try:
            lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
        except OSError:
            continue
        n = len(lines) - (1 if lines and lines[-1] == "" else 0)
        sizes.append((n, path))
        if n > MAX_FILE_LINES:
            bad.append(f"{path}: {n} lines (at most {MAX_FILE_LINES})")
        for fname, first, length in functions(lines):
            sizes.append((length, f"{path}:{first}: {fname}()"))
            if length > MAX_FUNCTION_LINES and f"{path}:{fname}" not in ALLOWED:
                bad.append(f"{path}:{first}: {fname}() is {length} lines "
                           f"(at most {MAX_FUNCTION_LINES})")
    if report:
        for n, what in sorted(sizes, reverse=True)[:30]:
            print(f"{n:6d}  {what}")
        return 0
    for b in bad:
        print(b)
    if bad:
        print(f"check-sizes: {len(bad)} over the limits; see docs/STYLE.md, Sizes")
        return 1
    print("check-sizes: files and functions within the limits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
