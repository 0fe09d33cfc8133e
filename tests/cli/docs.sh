#!/bin/sh
# The documentation against the binary, in one check. Every generated block of
# README.md and docs/*.md (one marker style: <!-- begin generated[ KIND]: ARGS -->
# ... <!-- end generated -->; tests/docsync.py lists the kinds: command output,
# samples, code, the validation tables of docs/MODEL.md, screen captures) must
# be what its source prints now; `sh tests/cli/docs.sh --write` (or `make
# docs`) rewrites every block. Then the lists that must agree with their
# tables: the view's options in mlviz --help, the man page and docs/TUI.md; the
# commands in mlviz --help, the man page's SYNOPSIS and README; the presets
# and collective operations in --help, README and docs/lua-api.md; the keys.
# Every command's `model: {hf_config: ...}` line loads, and every engine/, tui/
# and tests/ path the docs name exists.
MLVIZ_BIN=${MLVIZ_BIN:-./mlviz}
case $MLVIZ_BIN in /*) ;; *) MLVIZ_BIN=$(pwd)/$MLVIZ_BIN ;; esac
BUILD=${BUILD:-build-test}
export MLVIZ_BIN BUILD
[ -x "$MLVIZ_BIN" ] || { echo "FAIL docs: no executable at $MLVIZ_BIN (build first or set MLVIZ_BIN)"; exit 0; }
export MLVIZ_DATA=${MLVIZ_DATA:-$(pwd)}
python3 tests/docsync.py "$@" README.md docs/*.md
python3 - README.md docs/*.md <<'PY'
import os, re, subprocess, sys
files = sys.argv[1:]
binary = os.environ["MLVIZ_BIN"]

def run(words):
    r = subprocess.run([binary] + words.split(), capture_output=True, text=True)
    if r.returncode != 0:
        return None, "mlviz %s exited %d: %s" % (words, r.returncode, r.stderr.strip())
    return r.stdout, None

def passed(name, why=None):
    print("PASS " + name)

def failed(name, why):
    print("FAIL %s: %s" % (name, why))

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
(passed if "<!-- begin generated code: options --usage -->" in readme else failed)(
    "README's command-line block is the option table's usage lines", "no generated block 'code: options --usage'")
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

# ---- lists drawn from tables: presets, collective operations, keys ------------
presets = (run("completion --list presets")[0] or "").split()
ops = re.findall(r"(?:^|\|)([a-z-]+)", (run("collective --help")[0] or "").split("--op ")[-1].split(" ")[0])
(passed if len(presets) >= 6 and len(ops) >= 5 else failed)("the preset and operation tables", "presets %s, ops %s" % (presets, ops))
lua_api = open("docs/lua-api.md").read()
for where, text in (("mlviz --help", helptext or ""), ("README.md", readme), ("docs/lua-api.md", lua_api)):
    missing = [p for p in presets if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(p), text)]
    (passed if not missing else failed)("%s names every preset" % where, "missing %s" % missing)
for where, text in (("README.md", readme), ("docs/lua-api.md", lua_api)):
    missing = [o for o in ops if o not in text]
    (passed if not missing else failed)("%s names every collective operation" % where, "missing %s" % missing)
keys_text = run("keys")[0] or ""
keys_md = run("keys --md")[0] or ""
missing = [h for h in re.findall(r"^  \S+ +(.*)$", keys_text, re.M) if h.strip() not in keys_md]
(passed if keys_md and not missing else failed)("keys --md lists every help line of mlviz keys", "missing %s" % missing[:3])

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
