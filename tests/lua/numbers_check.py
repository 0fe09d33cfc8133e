"""Check numbers.csv and numbers.json (tests/lua/numbers_roundtrip.lua)
against the values the script printed with Lua's own %.17g and %d.

numbers_check.py DIR PRINTED   Exits 1 naming the first cell that differs.
Strings must read back byte for byte (commas, quotes, CR LF); numbers as
numbers: integers below 2^53 exactly, others within the 10 significant
digits the writers promise (docs/lua-api.md); never a negative zero."""
import csv
import json
import math
import sys

EXACT = 2 ** 53


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def number(text):
    if any(c in text for c in ".eEn"):
        v = float(text)
        return int(v) if v.is_integer() and abs(v) < EXACT else v
    return int(text)


def printed_cells(path):
    """{(row, column): value} from "row TAB column TAB type TAB value" lines;
    a line that starts no cell continues the string before it."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    cells, last = {}, None
    for line in text[:-1].split("\n"):  # the last print's newline ends no cell
        parts = line.split("\t", 3)
        if len(parts) == 4 and parts[0].isdigit() and parts[2] in ("number", "string"):
            last = (int(parts[0]), parts[1])
            cells[last] = number(parts[3]) if parts[2] == "number" else parts[3]
        elif last is not None and isinstance(cells[last], str):
            cells[last] += "\n" + line
    return cells


def same(got, want, where):
    if isinstance(want, str):
        if got != want:
            fail("%s: got %r, wrote %r" % (where, got, want))
        return
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        fail("%s: %r is not a number" % (where, got))
    if isinstance(want, int) and abs(want) < EXACT:
        if got != want:
            fail("%s: got %r, wrote %r" % (where, got, want))
    elif not math.isclose(got, want, rel_tol=5e-10, abs_tol=0):
        fail("%s: got %r, wrote %r (more than 10 significant digits apart)" % (where, got, want))
    if got == 0 and math.copysign(1, got) < 0:
        fail("%s: negative zero" % where)


def main():
    d, want = sys.argv[1], printed_cells(sys.argv[2])
    n_rows = max(r for r, _ in want)
    with open(d + "/numbers.csv", newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    cols = table[0]
    if len(table) != n_rows + 1:
        fail("numbers.csv: %d rows, wrote %d" % (len(table) - 1, n_rows))
    for r in range(1, n_rows + 1):
        for c, col in enumerate(cols):
            w = want[(r, col)]
            cell = table[r][c] if isinstance(w, str) else number(table[r][c])
            same(cell, w, "numbers.csv row %d %s" % (r, col))
    with open(d + "/numbers.json", encoding="utf-8") as f:
        doc = json.load(f)
    if doc["columns"] != cols or len(doc["rows"]) != n_rows:
        fail("numbers.json: columns %r and %d rows" % (doc["columns"], len(doc["rows"])))
    for r, row in enumerate(doc["rows"], 1):
        for col in cols:
            same(row[col], want[(r, col)], "numbers.json row %d %s" % (r, col))


main()
