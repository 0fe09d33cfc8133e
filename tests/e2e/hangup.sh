#!/bin/sh
# End-to-end tests: the terminal disappears without a hang-up signal (its
# pty is closed while mlviz runs in a session of its own, as when a pane is
# closed under setsid). mlviz must notice the end of its input and quit
# rather than spin. Prints "PASS name" or "FAIL name: why" per check.
BIN=${MLVIZ_BIN:-./mlviz}
export MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP hangup: python3 not installed"
    exit 0
fi
python3 - "$BIN" <<'EOF_PY'
import fcntl, os, select, signal, struct, subprocess, sys, termios, time

binary = sys.argv[1]
fails = 0
# The waits below are hang guards: stretched by the load as in
# tests/hang_guard.sh (2 + the 1-minute load average per core).
LOAD = 2 + int(os.getloadavg()[0]) // (os.cpu_count() or 1)


def check(name, args):
    global fails
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    # A new session without a controlling terminal: closing the pty sends
    # no SIGHUP, so only the failing reads tell mlviz the terminal is gone.
    proc = subprocess.Popen([binary] + args, stdin=slave, stdout=slave, stderr=slave,
                            env=env, start_new_session=True)
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 10 * LOAD
    while b"\x1b[?1049h" not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
    if b"\x1b[?1049h" not in seen:
        proc.kill()
        proc.wait()
        print("FAIL %s: the view did not start: %r" % (name, seen[-200:]))
        fails += 1
        return
    os.close(master)
    try:
        proc.wait(timeout=5 * LOAD)
        print("PASS %s" % name)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        print("FAIL %s: still running %d s after its terminal was closed" % (name, 5 * LOAD))
        fails += 1


check("the view quits when its terminal is closed", ["-c", "default"])
check("play quits when its terminal is closed", ["play", "cooling-failure"])
sys.exit(1 if fails else 0)
EOF_PY
