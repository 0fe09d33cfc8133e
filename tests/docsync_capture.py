"""Screen captures for the generated blocks of kind "capture" (tests/docsync.py).

A block `<!-- begin generated capture: COLSxROWS [KEY ...] [-- ARGS ...] -->`
holds what the screen shows when `mlviz ARGS` runs in a tmux pane of that size
and the KEYs (tmux key names) are pressed.

Determinism: a capture is a paused, stepped state, never a running one. mlviz
starts with --speed 0.001 (a second of start-up moves the sim by a millisecond,
below anything the screen shows); space pauses it as soon as the view is up;
then the KEYs are pressed, each waited for until the screen changed and
settled. "." advances exactly one training step while paused, so ". . ." shows
the state after three whole steps: clock, sparklines, energy and counters are
the same on every run. Paused, the batches on the arrows stand still. The title
therefore reads "x0.001 || PAUSED". The environment is fixed too:
TERM=xterm-256color, LC_ALL=C.UTF-8, no NO_COLOR, COLORFGBG or MLVIZ_THEME from
the caller.
"""
import os
import re
import subprocess
import time

SPEC = re.compile(r"^(\d+)x(\d+)((?: \S+)*)$")
SOCKET = ["mlviz-captures-%d-0" % os.getpid()]  # a fresh server per capture
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


def capture_screen(binary, cols, rows, keys, mlviz_args):
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


def capture(binary, spec):
    """The block's lines (a code fence around the screen), or (None, why)."""
    m = SPEC.match(spec)
    if not m:
        return None, "a capture is 'COLSxROWS [KEY ...] [-- ARGS ...]', not %r" % spec
    keys, mlviz_args = parse(m.group(3))
    os.environ.setdefault("MLVIZ_DATA", os.getcwd())
    lines, err = capture_screen(binary, int(m.group(1)), int(m.group(2)), keys, mlviz_args)
    return (None, err) if err else (["```"] + lines + ["```"], None)
