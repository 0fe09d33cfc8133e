#!/bin/sh
# Screen captures in the documentation against the binary. Every block of
# README.md and docs/*.md written between
#     <!-- begin capture: SIZE [KEY ...] [-- ARGS ...] -->
#     ```
#     ...
#     ```
#     <!-- end capture -->
# must be exactly what the screen shows when `mlviz ARGS` runs in a tmux
# pane of SIZE (COLSxROWS) and KEYs (tmux key names) are pressed as below.
# `sh tests/captures.sh --write` rewrites the blocks from the binary; without
# it each block is checked (PASS/FAIL per block; tests/e2e/captures.sh runs
# this check in the suite).
#
# Determinism: a capture is a paused, stepped state, never a running one.
# mlviz starts with --speed 0.001 (a second of start-up moves the sim by a
# millisecond, below anything the screen shows); space pauses it as soon
# as the view is up; then the KEYs are pressed, each waited for until the
# screen changed and settled. "." advances exactly one training step while
# paused, so ". . ." shows the state after three whole steps: clock,
# sparklines, energy and counters are the same on every run. Paused, the
# batches on the arrows stand still. The title therefore reads "x0.001 ||
# PAUSED". The environment is fixed too: TERM=xterm-256color,
# LC_ALL=C.UTF-8, no NO_COLOR, COLORFGBG or MLVIZ_THEME from the caller.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) ;; *) MLVIZ_BIN=$(pwd)/$MLVIZ_BIN ;; esac
export MLVIZ_BIN
export MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
[ -x "$MLVIZ_BIN" ] || { echo "FAIL captures: no executable at $MLVIZ_BIN (build first or set MLVIZ_BIN)"; exit 0; }
command -v tmux >/dev/null 2>&1 || { echo "SKIP captures: tmux not installed"; exit 0; }
python3 - "$@" README.md docs/*.md <<'PY'
import functools, os, re, subprocess, sys, time

print = functools.partial(print, flush=True)

args = sys.argv[1:]
write = "--write" in args
files = [a for a in args if a != "--write"]
binary = os.environ["MLVIZ_BIN"]
SOCKET = ["mlviz-captures-%d-0" % os.getpid()]  # a fresh server per capture
BEGIN = re.compile(r"^<!-- begin capture: (\d+)x(\d+)((?: \S+)*) -->$")
END = "<!-- end capture -->"
SPEED = "0.001"
TRIES = 100  # 0.05 s polls: 5 s for a key's effect to show


def tmux(*words, check=True):
    r = subprocess.run(["tmux", "-L", SOCKET[0], "-f", "/dev/null"] + list(words),
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("tmux %s: %s" % (words[0], r.stderr.strip()))
    return r.stdout


def screen():
    return tmux("capture-pane", "-p", "-t", "cap")


def settle(before):
    """Wait until the screen differs from `before`, then until it holds still."""
    last = screen()
    for _ in range(TRIES):
        if last != before:
            break
        time.sleep(0.05)
        last = screen()
    for _ in range(TRIES):
        time.sleep(0.1)
        now = screen()
        if now == last:
            return now
        last = now
    return last


def capture(cols, rows, keys, mlviz_args):
    n = int(SOCKET[0].rsplit("-", 1)[1]) + 1
    SOCKET[0] = "%s-%d" % (SOCKET[0].rsplit("-", 1)[0], n)
    env = " ".join(["env", "-u", "NO_COLOR", "-u", "COLORFGBG", "-u", "MLVIZ_THEME",
                    "TERM=xterm-256color", "LC_ALL=C.UTF-8",
                    "MLVIZ_DATA='%s'" % os.environ["MLVIZ_DATA"]])
    cmd = "%s '%s' %s --speed %s; sleep 30" % (env, binary, " ".join(mlviz_args), SPEED)
    tmux("new-session", "-d", "-s", "cap", "-x", str(cols), "-y", str(rows), cmd)
    try:
        shown = ""
        for _ in range(TRIES):
            shown = screen()
            if shown.startswith(" mlviz "):
                break
            time.sleep(0.05)
        else:
            return None, "the view did not come up: %r" % shown[:200]
        tmux("send-keys", "-t", "cap", "Space")
        shown = settle(shown)
        if "PAUSED" not in shown.split("\n")[0]:
            return None, "space did not pause: %s" % shown.split("\n")[0]
        for k in keys:
            tmux("send-keys", "-t", "cap", k)
            shown = settle(shown)
        lines = [l.rstrip() for l in shown.split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        return lines, None
    finally:
        tmux("kill-server", check=False)


def parse(spec):
    words = spec.split()
    if "--" in words:
        i = words.index("--")
        return words[:i], words[i + 1:]
    return words, []


blocks = failures = 0
for path in files:
    lines = open(path).read().split("\n")
    out, i, changed = [], 0, False
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != END:
            j += 1
        name = "%s:%d capture %sx%s%s" % (path, i + 1, m.group(1), m.group(2), m.group(3))
        if j == len(lines):
            print("FAIL %s: no '%s'" % (name, END))
            failures += 1
            out.extend(lines[i:])
            break
        blocks += 1
        keys, mlviz_args = parse(m.group(3))
        got, err = capture(int(m.group(1)), int(m.group(2)), keys, mlviz_args)
        old = lines[i + 1:j]
        if err:
            print("FAIL %s: %s" % (name, err))
            failures += 1
            new = old
        else:
            new = ["```"] + got + ["```"]
            if new == old:
                print("PASS %s" % name)
            elif write:
                print("WROTE %s" % name)
                changed = True
            else:
                diff = [(k, a, b) for k, (a, b) in enumerate(zip(old, new)) if a != b]
                where = diff[0] if diff else (min(len(old), len(new)), "", "")
                print("FAIL %s: differs from the binary at line %d of the block:\n  doc:    %s\n  binary: %s\n"
                      "  (sh tests/captures.sh --write regenerates it)" % (name, where[0] + 1, where[1], where[2]))
                failures += 1
        out.append(lines[i])
        out.extend(new)
        out.append(END)
        i = j + 1
    if write and changed:
        open(path, "w").write("\n".join(out))
if blocks == 0:
    print("FAIL captures: no capture blocks found in %s" % " ".join(files))
PY
