"""Every name the Lua host registers is documented, and every documented name
exists.

api_surface.py SURFACE   SURFACE: the output of `mlviz run --trust
tests/lua/api_surface.lua` (mlviz.NAME KIND, setup:NAME, sim:NAME lines).
The globals the host adds (print, say, pause, ...) come from the C table
`narration_funcs` in engine/lua/lua_sandbox.c. Checks docs/lua-api.md and
scripts/mlviz.d.lua both ways; prints one PASS/FAIL line per check."""
import re
import sys

DOC = "docs/lua-api.md"
DECL = "scripts/mlviz.d.lua"
failed = False


def report(name, missing):
    global failed
    if missing:
        failed = True
        print("FAIL %s: %s" % (name, ", ".join(sorted(missing))))
    else:
        print("PASS %s" % name)


def registered(surface_path):
    names = set()
    with open(surface_path) as f:
        for line in f:
            word = line.split()[0] if line.strip() else ""
            if re.fullmatch(r"(mlviz\.|setup:|sim:)[a-z_]+", word):
                names.add(word)
    with open("engine/lua/lua_sandbox.c") as f:
        c = f.read()
    table = re.search(r"narration_funcs\[\] = \{(.*?)\};", c, re.S)
    if not table:
        print("FAIL api surface: no narration_funcs table in engine/lua/lua_sandbox.c")
        sys.exit(1)
    names |= set(re.findall(r'\{"([a-z_]+)",', table.group(1)))
    return names


def documented_in_markdown(text):
    """mlviz.NAME, setup:NAME and sim:NAME in code spans, and the playback
    hooks written as `name(...)`."""
    spans = " ".join(re.findall(r"`([^`]*)`", text)) + " " + " ".join(
        re.findall(r"```lua\n(.*?)```", text, re.S))
    names = set(re.findall(r"\b(mlviz\.[a-z_]+|setup:[a-z_]+|sim:[a-z_]+)(?!\.lua\b)", spans))
    names |= set(re.findall(r"`([a-z_]+)\(", text))
    return names


def declared_in_lua(text):
    """function mlviz.NAME / Setup:NAME / Sim:NAME / NAME, and the @field
    lines of the mlviz class."""
    names = set()
    for owner, sep, name in re.findall(r"^function (?:(\w+)([.:]))?(\w+)\(", text, re.M):
        prefix = {"mlviz": "mlviz.", "Setup": "setup:", "Sim": "sim:", "": ""}.get(owner)
        names.add((prefix if prefix is not None else owner + sep) + name)
    block = re.search(r"^---@class mlviz\n((?:---@field .*\n)*)", text, re.M)
    if block:
        names |= {"mlviz." + n for n in re.findall(r"^---@field (\w+)", block.group(1), re.M)}
    return names


def listed(surface_path, prefix):
    with open(surface_path) as f:
        return {l.split()[0][len(prefix):] for l in f if l.startswith(prefix)}


def check_tables(surface_path, doc_text, decl_text):
    """The keys of setup:eval() against the mlviz.Report class, and those of
    sim:counters() against its section in the docs and its line in the
    declarations; both ways."""
    report_keys = listed(surface_path, "report.")
    block = re.search(r"^---@class mlviz.Report\n((?:---@field .*\n)*)", decl_text, re.M)
    fields = set(re.findall(r"^---@field (\w+)", block.group(1), re.M)) if block else set()
    report("api surface: setup:eval() keys are mlviz.Report fields in " + DECL,
           report_keys - fields)
    report("api surface: mlviz.Report fields in " + DECL + " are setup:eval() keys",
           fields - report_keys)
    counters = listed(surface_path, "counters.")
    section = re.search(r"^### `sim:counters\(\).*?\n(.*?)^#", doc_text, re.M | re.S)
    doc_words = set(re.findall(r"\b[a-z][a-z_]*\b", " ".join(
        re.findall(r"`([^`]*)`", section.group(1))))) if section else set()
    line = re.search(r"^---Counters: (.*)$", decl_text, re.M)
    decl_words = set(re.findall(r"\b[a-z][a-z_]*\b", line.group(1))) if line else set()
    decl_words -= {"by", "stage"}
    report("api surface: sim:counters() keys are in " + DOC, counters - doc_words)
    report("api surface: sim:counters() keys in " + DOC + " exist", doc_words - counters)
    report("api surface: sim:counters() keys are in " + DECL, counters - decl_words)
    report("api surface: sim:counters() keys in " + DECL + " exist", decl_words - counters)


def main():
    have = registered(sys.argv[1])
    globals_ = {n for n in have if "." not in n and ":" not in n}
    with open(DOC) as f:
        doc_text = f.read()
    with open(DECL) as f:
        decl_text = f.read()
    doc, decl = documented_in_markdown(doc_text), declared_in_lua(decl_text)
    check_tables(sys.argv[1], doc_text, decl_text)
    report("api surface: every registered name is in " + DOC, have - doc)
    report("api surface: every registered name is in " + DECL, have - decl)
    # The other way: a documented mlviz./setup:/sim: name or hook must exist.
    # Hooks in the markdown are matched only against the registered globals'
    # shape (`name(`), so plain Lua functions there (`pcall(`) are not names of ours.
    doc_api = {n for n in doc if "." in n or ":" in n}
    report("api surface: every name in " + DOC + " exists", doc_api - have)
    report("api surface: every name in " + DECL + " exists", decl - have)
    if not globals_:
        report("api surface: narration globals found", {"none"})
    sys.exit(1 if failed else 0)


main()
