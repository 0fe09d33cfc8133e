#!/bin/sh
# The default theme follows the terminal's paper (issue 22): without
# COLORFGBG, mlviz asks the terminal for its background colour (OSC 11).
# A terminal (a pty here) that answers white gets the light theme's
# colours, the same as --theme light; one that answers black, or answers
# only the attribute query (DA1), gets the default theme. Prints PASS/FAIL.
BIN=${MLVIZ_BIN:-./mlviz}
export MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
command -v python3 >/dev/null || { echo "SKIP background: no python3"; exit 0; }
python3 - "$BIN" <<'PY'
import os, pty, re, select, sys, time
binary = sys.argv[1]

def run(reply, *args):
    """The colour escapes mlviz draws its first frame with, answering the
    background query with `reply` (None: only the DA1 answer)."""
    pid, fd = pty.fork()
    if pid == 0:
        env = dict(os.environ, TERM="xterm-256color", LINES="30", COLUMNS="100")
        env.pop("COLORFGBG", None)
        env.pop("NO_COLOR", None)
        os.execve(binary, [binary, "--frames", "2", "--no-mouse", *args], env)
    out, answered, t0 = b"", False, time.time()
    while time.time() - t0 < 10:
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if not answered and b"\x1b]11;?" in out:
            answered = True
            os.write(fd, (reply or b"") + b"\x1b[?1;2c")
    os.waitpid(pid, 0)
    return sorted(set(re.findall(rb"\x1b\[[0-9;]*m", out))), answered

light, asked = run(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\")
forced, _ = run(None, "--theme", "light")
dark, _ = run(b"\x1b]11;rgb:0000/0000/0000\x1b\\")
silent, _ = run(None)
fails = 0
def check(name, ok, why=""):
    global fails
    print(("PASS %s" % name) if ok else ("FAIL %s: %s" % (name, why)))
    fails += not ok
check("without COLORFGBG mlviz asks the terminal for its background (OSC 11)", asked)
check("a white background answer gives the light theme's colours", light == forced and light != dark,
      "light %d escapes, --theme light %d, dark %d" % (len(light), len(forced), len(dark)))
check("no answer keeps the default theme", silent == dark, "%d vs %d escapes" % (len(silent), len(dark)))
sys.exit(1 if fails else 0)
PY
