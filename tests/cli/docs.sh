#!/bin/sh
# Generated documentation against the binary. Every block of README.md and
# docs/*.md written between
#     <!-- begin generated: ARGS -->  ...  <!-- end generated -->
# must be exactly what `mlviz ARGS` prints (a "sample" block,
# <!-- begin generated sample: ARGS -->, holds it in a code fence under a
# "$ mlviz ARGS" line). `sh tests/cli/docs.sh --write` rewrites the blocks.
# Then the option list of the interactive view must agree everywhere: the
# option table (mlviz options --md), mlviz --help, the man page's OPTIONS
# (mlviz options --man, and docs/mlviz.1.in's @OPTIONS@ slot), README's
# `mlviz [...]` synopsis and docs/TUI.md. Every command of the command table
# (tui/cli/commands.c, as `mlviz options --synopsis` lists it) is dispatched
# and named in mlviz --help, the man page's SYNOPSIS and README's
# command-line section, and its `model: {hf_config: ...}` line loads. Every
# engine/, tui/ and tests/ path the docs name exists.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) ;; *) MLVIZ_BIN=$(pwd)/$MLVIZ_BIN ;; esac
export MLVIZ_BIN
[ -x "$MLVIZ_BIN" ] || { echo "FAIL docs: no executable at $MLVIZ_BIN (build first or set MLVIZ_BIN)"; exit 0; }
MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)} python3 - "$@" README.md docs/*.md <<'PY'
import os, re, subprocess, sys
args = sys.argv[1:]
write = "--write" in args
files = [a for a in args if a != "--write"]
binary = os.environ["MLVIZ_BIN"]
BEGIN = re.compile(r"^<!-- begin generated( sample)?: (.*?) -->$")
END = "<!-- end generated -->"

def run(words):
    r = subprocess.run([binary] + words.split(), capture_output=True, text=True)
    if r.returncode != 0:
        return None, "mlviz %s exited %d: %s" % (words, r.returncode, r.stderr.strip())
    return r.stdout, None

def passed(name, why=None):
    print("PASS " + name)

def failed(name, why):
    print("FAIL %s: %s" % (name, why))

blocks = 0
for path in files:
    lines = open(path).read().split("\n")
    out, i, changed = [], 0, False
    while i < len(lines):
        m = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        blocks += 1
        sample, words = m.group(1) is not None, m.group(2)
        j = i
        while j < len(lines) and lines[j] != END:
            j += 1
        name = "%s: mlviz %s" % (path, words)
        if j == len(lines):
            failed(name, "no end marker")
            out.extend(lines[i:])
            break
        text, err = run(words)
        if err:
            failed(name, err)
            out.extend(lines[i:j])
        else:
            want = text.rstrip("\n").split("\n")
            if sample:
                want = ["```", "$ mlviz " + words] + want + ["```"]
            have = lines[i:j]
            if have == want:
                passed(name)
            elif write:
                changed = True
                print("WROTE " + name)
            else:
                k = next(n for n in range(max(len(have), len(want)))
                         if n >= len(have) or n >= len(want) or have[n] != want[n])
                failed(name, "line %d differs: committed %r, binary %r (tests/cli/docs.sh --write)"
                       % (k + 1, have[k] if k < len(have) else "", want[k] if k < len(want) else ""))
            out.extend(want if write else have)
        i = j
    if write and changed:
        open(path, "w").write("\n".join(out))
if blocks < 3:
    failed("generated blocks", "found %d, expected at least 3" % blocks)

# ---- one option list --------------------------------------------------------------
table, err = run("options --md")
if err:
    failed("option table", err)
    sys.exit(0)
names, aliases = [], {}
for row in table.split("\n")[2:]:
    cells = re.findall(r"`(-[^`]+)`", row.split("|")[1]) if row.startswith("|") else []
    if cells:
        names.append(cells[0])
        for a in cells[1:]:
            aliases[a] = cells[0]
want = set(names)

def canon(found):
    return {aliases.get(o, o) for o in found}

OPT = r"(?<![\w-])(--?[a-z][a-z-]*)"
helptext, err = run("--help")
section = helptext.split("Options of the interactive view")[-1] if helptext else ""
have = canon(re.findall(r"^\s+" + OPT, section, re.M) + re.findall(r", " + OPT, section))
(passed if have == want else failed)("mlviz --help lists the option table", "differs: %s" % sorted(have ^ want))
man, err = run("options --man")
have = canon(t.replace("\\-", "-") for t in re.findall(r"\\fB((?:\\-|[a-z])+)\\fR", man or "")
             if t.startswith("\\-"))
(passed if have == want else failed)("man page OPTIONS list the option table", "differs: %s" % sorted(have ^ want))
page = open("docs/mlviz.1.in").read()
(passed if "@OPTIONS@" in page else failed)("docs/mlviz.1.in takes its OPTIONS from the table", "no @OPTIONS@ slot")
readme = open("README.md").read()
m = re.search(r"^mlviz (\[.*)$", readme, re.M)
have = canon(re.findall(OPT, m.group(1))) if m else set()
(passed if have == want else failed)("README's mlviz synopsis lists the option table", "differs: %s" % sorted(have ^ want))
tui = open("docs/TUI.md").read()
(passed if "<!-- begin generated: options --md -->" in tui else failed)("docs/TUI.md shows the option table", "no generated block")

# ---- one command table ---------------------------------------------------------
synopsis, err = run("options --synopsis")
commands = re.findall(r"^\.B mlviz ([a-z]+)$", synopsis or "", re.M)
(passed if len(commands) >= 10 else failed)("the command table lists the commands", err or "found %s" % commands)
(passed if "@SYNOPSIS@" in page else failed)("docs/mlviz.1.in takes its SYNOPSIS from the command table", "no @SYNOPSIS@ slot")
listed = re.findall(r"^  ([a-z]+) ", helptext.split("Commands")[-1].split("\n\n")[0], re.M) if helptext else []
section = readme.split("\n## Command line")[-1].split("\n## ")[0]
for c in commands:
    r = subprocess.run([binary, c, "--help"], capture_output=True, text=True)
    ok = r.returncode == 0 and r.stdout.startswith("usage: mlviz %s" % c)
    (passed if ok else failed)("mlviz %s is dispatched" % c, "mlviz %s --help exited %d: %r" % (c, r.returncode, (r.stdout + r.stderr)[:200]))
    (passed if c in listed else failed)("mlviz --help lists %s" % c, "not in the command list %s" % listed)
    (passed if re.search(r"^mlviz %s\b" % c, section, re.M) else failed)("README's command line shows mlviz %s" % c, "no line 'mlviz %s ...' in README.md's Command line section" % c)
(passed if listed == commands else failed)("mlviz --help lists exactly the command table", "--help %s, table %s" % (listed, commands))

# ---- README's model line: a setup whose model is written that way loads -----------
import shutil, tempfile
m = re.search(r"^(model: \{hf_config: ([^,}]+)[^}]*\})\s+# or: (model: \{name: [^}]+\})$", section, re.M)
if not m:
    failed("README's hf_config line", "no 'model: {hf_config: ...}   # or: model: {name: ...}' line in the Command line section")
else:
    preset = open("scenarios/presets/default.yaml").read()
    old_model = re.search(r"^model: \{[^}]*\}\n", preset, re.M).group(0)
    scratch = tempfile.mkdtemp()
    try:
        shutil.copy("assets/models/llama3-8b.json", os.path.join(scratch, m.group(2)))
        for i, line in enumerate((m.group(1), m.group(3))):
            setup = os.path.join(scratch, "setup%d.yaml" % i)
            open(setup, "w").write(preset.replace(old_model, line + "\n"))
            r = subprocess.run([binary, "check", setup], capture_output=True, text=True)
            (passed if r.returncode == 0 else failed)("README's '%s' loads" % line, "mlviz check exited %d: %s" % (r.returncode, r.stderr.strip()[:300]))
    finally:
        shutil.rmtree(scratch)

# ---- paths named in the docs exist ------------------------------------------------
missing = []
for path in ["README.md"] + sorted(f for f in files if f != "README.md"):
    for m in re.finditer(r"(?<![\w./-])((?:engine|tui|tests)/[\w./*{},-]*[\w*}])", open(path).read()):
        name = m.group(1)
        # tests/unit/{engine,lua}/test_*.c, engine/model/model_*.c: a brace or glob must match something
        # An upper-case word is a placeholder: tui/cli/cmd_NAME.c, tests/unit/LAYER/
        name = re.sub(r"[A-Z][A-Z_]+", "*", name)
        alts = [name]
        b = re.search(r"\{([^}]*)\}", name)
        if b:
            alts = [name[:b.start()] + a + name[b.end():] for a in b.group(1).split(",")]
        import glob
        if not all(glob.glob(a) for a in alts):
            missing.append("%s: %s" % (path, name))
(passed if not missing else failed)("every engine/, tui/ and tests/ path in the docs exists", "; ".join(sorted(set(missing))))
PY
