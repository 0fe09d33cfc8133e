"""Read back what mlviz wrote, with python's own csv and json readers.

output_check.py DIR                    rows.csv and value.json of output_roundtrip.lua
output_check.py --scenarios-json FILE  `mlviz scenarios --format json` of the test tree
output_check.py --scenarios-csv FILE   `mlviz scenarios --format csv` of the test tree
Exits 1 with the difference when a file does not read back as expected."""
import csv
import json
import re
import sys


def check(got, want):
    if got != want:
        print("got:  %r\nwant: %r" % (got, want), file=sys.stderr)
        sys.exit(1)


def main():
    if sys.argv[1] == "--scenarios-json":
        with open(sys.argv[2]) as f:
            check(json.load(f),
                  [{"name": "noisy", "description": 'Says "hi", loudly', "parameters": "x"},
                   {"name": "quiet", "description": "Quiet one", "parameters": "a b"}])
        return
    if sys.argv[1] == "--scenarios-csv":
        with open(sys.argv[2], newline="") as f:
            check(list(csv.reader(f)),
                  [["name", "description", "parameters"], ["noisy", 'Says "hi", loudly', "x"],
                   ["quiet", "Quiet one", "a b"]])
        return
    d = sys.argv[1]
    with open(d + "/rows.csv", newline="") as f:
        check(list(csv.reader(f)),
              [["name", "value", "ratio", "ok"], ["plain", "1", "0.25", "true"],
               ['comma, "quote"', "-2", "1e-07", "false"], ["line\nbreak", "3", "0", "true"],
               [" padded ", "4", "12345.678", "true"], ["long" * 100, "5", "2", "false"]])
    with open(d + "/value.json", encoding="utf-8") as f:
        text = f.read()
    check(re.findall(r"-0(?![.0-9])", text), [])  # no negative zero
    with open(d + "/value.json", encoding="utf-8") as f:
        check(json.load(f),
              {"text": 'tab\there "q" back\\slash \x01 \u00fcn\u00ef',
               "list": [1, 2.5, -3, True, False, 0], "nested": {"a": {"b": {"c": "deep"}}},
               "empty": {}, "7": "seven",
               "big": [9223372036854775807, -9223372036854775808, 9007199254740993,
                       9223372036854775808]})


main()
