#!/usr/bin/env python3
"""Holds the parts of src/ to their one-way list (docs/architecture.md#parts).

Checks, on the tree at --root (default: this file's ../..):
  deps   the list of parts in docs/architecture.md's `## Parts` block equals
         CMakeLists.txt's volley_part(NAME USES ...) lines; neither has a
         cycle; the block lists every part after the parts it uses; every
         folder of src/ is a listed part; no header name is in two parts; and
         every `#include "..."` in src/*/*.[ch] names a header of its own
         part or of a part its part uses, directly or through the used parts'
         own lists (CMake's PUBLIC links make those visible too).
  seams  the connection state machine (src/conn/*.[ch]) calls no tls_* or
         h2_* function and names no ->tls, ->h2, .tls, .h2 (or tls_*, h2_*)
         field: it reaches transports and framings through their tables.
  size   no file of src/ is above MAX_LINES lines, and no .c with the .h of
         its name (src/P/x.c and src/P/x.h) above MAX_PAIR_LINES together
         (PAIRS_PENDING's are not split yet: not counted, and failed once
         they are under).
  circles  no folder's files call each other in a circle: inside a part,
         the entry calls its pieces and the pieces never call back
         (shared/STYLE.md, "Folders and seams"): a helper both use lives in
         a file below them. A file uses another when it names a function
         the other defines without `static` (a call, or a pointer in a
         table), outside comments, strings and `.`/`->` member names, and
         does not define that name itself; definitions are read as
         functions begin at column 0 (`TYPE NAME(PARAMS) {`). The folders
         in CIRCLES_PENDING still circle and are only reported; one of them
         without a circle fails until it is taken off the list.
A part listed in the block with neither a folder nor a volley_part line is
accepted (planned, not built yet); a folder or a volley_part line with no
listed part is not.

Usage: check_parts.py [--root DIR] [--only deps,seams,size,circles]
(or CHECK_PARTS_ONLY=deps in the environment). Prints one line per problem,
naming the file (and line) and what is wrong, and exits 1; on success prints
what it checked and exits 0. Python 3, standard library only.
"""
import argparse
import glob
import os
import re
import sys

CHECKS = ("deps", "seams", "size", "circles")
MAX_LINES = 750
MAX_PAIR_LINES = 800
# Folders whose files still call each other in a circle (issue 29 undoes
# them a folder at a time): reported, not failed. Take a folder off once
# its circle is gone (the check fails while it stays listed without one).
CIRCLES_PENDING = ()
# The same for the .c files still above MAX_PAIR_LINES with their .h.
PAIRS_PENDING = ()
DOC = "docs/architecture.md"
CMAKE = "CMakeLists.txt"

# One pass over C text, so that a "//" inside a string ("http://...") is
# not taken for a comment, nor a quote inside a comment for a string (as
# tests/integration/run/test_open_model.sh's clock check does).
C_TOKENS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
SEAM_CALL = re.compile(r"\b(?:tls|h2)_\w*\s*\(")
SEAM_FIELD = re.compile(r"(?:->|\.)\s*(?:tls|h2)(?:_\w+)?\b")
# A function definition as the sources write one: at column 0, the type
# (and any __attribute__((...))) then NAME(PARAMS) and the opening brace,
# on the same line or the next; PARAMS may hold one level of parentheses
# (a function pointer).
FUNC_DEF = re.compile(r"^([A-Za-z_](?:__attribute__\s*\(\([^;{}\n]*?\)\)|[\w \t*])*?)\b([A-Za-z_]\w*)[ \t]*"
                      r"\(((?:[^;{}()]|\([^;{}()]*\))*)\)\s*\{", re.M)
# A name as code uses it: not a member after . or ->.
NAME_USE = re.compile(r"(?<!\.)(?<!->)\b[A-Za-z_]\w*\b")


def strip_c(text, keep_strings):
    """The C text with comments blanked (newlines kept, so line numbers
    hold) and, unless keep_strings, string and character literals emptied."""
    def blank(m):
        s = m.group(0)
        if s[0] in "\"'":
            return s if keep_strings else s[0] * 2
        return re.sub(r"[^\n]", " ", s)
    return C_TOKENS.sub(blank, text)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def read_doc(root, problems):
    """{part: [used parts]} in the block's order, from the first fenced block
    of the `## Parts` section; None when there is no such block."""
    path = os.path.join(root, DOC)
    with open(path) as f:
        lines = f.read().split("\n")
    try:
        start = lines.index("## Parts")
    except ValueError:
        problems.append("%s: no `## Parts` section" % DOC)
        return None
    parts, inside = {}, False
    for n in range(start + 1, len(lines)):
        line = lines[n]
        if line.startswith("## "):
            break
        if line.startswith("```"):
            if inside:
                return parts
            inside = True
            continue
        if not inside or not line.strip():
            continue
        m = re.fullmatch(r"\s*(\w+)\s*->\s*(.*?)\s*", line)
        if not m:
            problems.append("%s:%d: not `PART -> USED, PARTS` or `PART -> (nothing)`: %s"
                            % (DOC, n + 1, line.strip()))
            continue
        name, rest = m.group(1), m.group(2)
        uses = [] if rest == "(nothing)" else [u.strip() for u in rest.split(",")]
        if name in parts:
            problems.append("%s:%d: part %s listed twice" % (DOC, n + 1, name))
        bad = [u for u in uses if not re.fullmatch(r"\w+", u)]
        if bad:
            problems.append("%s:%d: part %s: not a part name: %s" % (DOC, n + 1, name, ", ".join(bad)))
        parts[name] = [u for u in uses if u not in bad]
    problems.append("%s: the `## Parts` section has no closed ``` block" % DOC)
    return None


def read_cmake(root):
    """{part: [used parts]} from CMakeLists.txt's volley_part(...) calls."""
    with open(os.path.join(root, CMAKE)) as f:
        text = re.sub(r"#[^\n]*", "", f.read())
    parts = {}
    for m in re.finditer(r"^[ \t]*volley_part\(([^)]*)\)", text, re.M):
        words = m.group(1).split()
        uses, mode = [], None
        for w in words[1:]:
            if w in ("USES", "LIBS"):
                mode = w
            elif mode == "USES":
                uses.append(w)
        parts[words[0]] = uses
    return parts


def find_cycle(graph):
    """One cycle of graph ({node: [nodes]}) as a list of nodes, or None."""
    state = {}

    def visit(node, path):
        state[node] = 1
        path.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in graph:
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def closure(graph, part):
    """Every part that part reaches through graph's lists (not itself)."""
    seen, todo = set(), list(graph.get(part, []))
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(graph.get(p, []))
    return seen


def check_lists(doc, cmake, folders, problems):
    """The two lists against each other and against src/'s folders; returns
    the graph the includes are checked with (CMake's, the doc's for a part
    CMake does not build)."""
    for name, uses in doc.items():
        unknown = [u for u in uses if u not in doc]
        if unknown:
            problems.append("%s: part %s uses %s, not a listed part" % (DOC, name, ", ".join(unknown)))
        if name in cmake and sorted(cmake[name]) != sorted(uses):
            problems.append("%s: part %s: %s lists %s, but its volley_part line USES %s"
                            % (CMAKE, name, DOC, ", ".join(uses) or "(nothing)",
                               ", ".join(cmake[name]) or "(nothing)"))
        if name in folders and name not in cmake:
            problems.append("%s: src/%s/ has no volley_part(%s ...) line" % (CMAKE, name, name))
    for name in cmake:
        if name not in doc:
            problems.append("%s: volley_part(%s) is not a listed part in %s" % (CMAKE, name, DOC))
    for name in sorted(folders):
        if name not in doc:
            problems.append("src/%s/: a folder with no listed part in %s" % (name, DOC))
    order = list(doc)
    for i, name in enumerate(order):
        later = [u for u in doc[name] if u in doc and order.index(u) > i]
        if later:
            problems.append("%s: part %s is listed before %s, which it uses (the block goes bottom up)"
                            % (DOC, name, ", ".join(later)))
    for what, graph in ((DOC, doc), (CMAKE, cmake)):
        cycle = find_cycle(graph)
        if cycle:
            problems.append("%s: the parts use each other in a cycle: %s" % (what, " -> ".join(cycle)))
    graph = dict(doc)
    graph.update(cmake)
    return graph


def check_includes(root, files, graph, problems):
    """Every quoted include against its file's part; returns (includes,
    across parts, outside src/)."""
    owner = {}
    for path in files:
        part, name = path.split("/")[1:3]
        if name.endswith(".h"):
            owner.setdefault(name, []).append(part)
    for name, parts in sorted(owner.items()):
        if len(parts) > 1:
            problems.append("src/{%s}/%s: one header name in %d parts (an include of it is ambiguous)"
                            % (",".join(parts), name, len(parts)))
    count = across = outside = 0
    for path in files:
        part = path.split("/")[1]
        with open(os.path.join(root, path)) as f:
            text = strip_c(f.read(), keep_strings=True)
        allowed = closure(graph, part)
        for m in INCLUDE.finditer(text):
            count += 1
            header = m.group(1)
            if "/" in header:
                # A path reaches past the include dirs: its part is the folder it lands in.
                where = os.path.normpath(os.path.join(os.path.dirname(path), header)).split(os.sep)
                parts = [where[1]] if len(where) == 3 and where[0] == "src" else None
            else:
                parts = owner.get(header)
            if parts is None:
                outside += 1
                continue
            if part in parts:
                continue
            across += 1
            if parts[0] not in allowed:
                problems.append('%s:%d: includes "%s" of part %s, which part %s does not use (it uses %s)'
                                % (path, line_of(text, m.start()), header, parts[0], part,
                                   ", ".join(sorted(allowed)) or "nothing"))
    return count, across, outside


def check_seams(root, problems):
    """src/conn/ names no transport or framing; returns the files read."""
    files = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "src/conn/*.[ch]")))
    for path in files:
        with open(os.path.join(root, path)) as f:
            text = strip_c(f.read(), keep_strings=False)
        found = [(m.start(), "calls %s) (the connection reaches transports and framings through their tables)"
                  % re.sub(r"\s+", "", m.group(0))) for m in SEAM_CALL.finditer(text)]
        found += [(m.start(), "names the field %s (the connection keeps c->tp/c->tps and c->fr/c->fs)"
                   % re.sub(r"\s+", "", m.group(0))) for m in SEAM_FIELD.finditer(text)]
        for pos, what in sorted(found):
            problems.append("%s:%d: %s" % (path, line_of(text, pos), what))
    return len(files)


def check_size(root, files, problems):
    """No file above MAX_LINES, no .c with its .h above MAX_PAIR_LINES;
    returns ((largest file, its lines), (largest pair's .c, their lines))."""
    largest, pair = ("", 0), ("", 0)
    lines = {}
    for path in files:
        with open(os.path.join(root, path)) as f:
            n = lines[path] = sum(1 for _ in f)
        if n > MAX_LINES:
            problems.append("%s: %d lines, above %d (split it along a seam)" % (path, n, MAX_LINES))
        largest = max(largest, (path, n), key=lambda x: x[1])
    for path in files:
        header = path[:-2] + ".h"
        if not path.endswith(".c") or header not in lines:
            continue
        n = lines[path] + lines[header]
        if path in PAIRS_PENDING:
            if n <= MAX_PAIR_LINES:
                problems.append("%s with %s: %d lines together, no more above %d: take it off PAIRS_PENDING "
                                "in tests/tools/check_parts.py"
                                % (path, os.path.basename(header), n, MAX_PAIR_LINES))
            continue
        if n > MAX_PAIR_LINES:
            problems.append("%s with %s: %d lines together, above %d (split them along a seam)"
                            % (path, os.path.basename(header), n, MAX_PAIR_LINES))
        pair = max(pair, (path, n), key=lambda x: x[1])
    return largest, pair


def folder_uses(root, paths):
    """{file: {file it uses: [names]}} among the .c files paths (one
    folder): a file uses another when it names a function the other
    defines without static and it does not define itself."""
    defined, local, names = {}, {}, {}
    for path in paths:
        with open(os.path.join(root, path)) as f:
            text = strip_c(f.read(), keep_strings=False)
        defs = [(m.group(2), "static" in m.group(1).split()) for m in FUNC_DEF.finditer(text)]
        local[path] = {name for name, _ in defs}
        for name, static in defs:
            if not static:
                defined[name] = path
        names[path] = set(NAME_USE.findall(text))
    uses = {}
    for path in paths:
        for name in names[path] - local[path]:
            other = defined.get(name)
            if other and other != path:
                uses.setdefault(path, {}).setdefault(other, []).append(name)
    return uses


def check_circles(root, files, problems):
    """No folder of src/ whose files call each other in a circle (but
    CIRCLES_PENDING's); returns (folders read, pending folders that still
    circle)."""
    folders = sorted({path.split("/")[1] for path in files})
    still = []
    for part in folders:
        paths = [p for p in files if p.split("/")[1] == part and p.endswith(".c")]
        uses = folder_uses(root, paths)
        cycle = find_cycle({p: sorted(u) for p, u in uses.items()})
        if part in CIRCLES_PENDING:
            if cycle:
                still.append(part)
            else:
                problems.append("src/%s/: no circle of calls left: take %s off CIRCLES_PENDING in "
                                "tests/tools/check_parts.py" % (part, part))
            continue
        if not cycle:
            continue
        steps = []
        for a, b in zip(cycle, cycle[1:]):
            used = sorted(uses[a][b])
            more = " and %d more" % (len(used) - 3) if len(used) > 3 else ""
            steps.append("%s -> %s (%s%s)" % (os.path.basename(a), os.path.basename(b), ", ".join(used[:3]), more))
        problems.append("src/%s/: its files call each other in a circle: %s; the entry calls its pieces and "
                        "the pieces never call back (move what both use to a file below them)"
                        % (part, ", ".join(steps)))
    return len(folders), still


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--only", default=os.environ.get("CHECK_PARTS_ONLY", ",".join(CHECKS)),
                    help="comma-separated: " + ", ".join(CHECKS))
    args = ap.parse_args()
    only = [c for c in args.only.split(",") if c]
    for c in only:
        if c not in CHECKS:
            ap.error("--only: %r is not one of %s" % (c, ", ".join(CHECKS)))
    root = os.path.normpath(args.root)
    files = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "src/*/*.[ch]")))
    folders = {d for d in os.listdir(os.path.join(root, "src")) if os.path.isdir(os.path.join(root, "src", d))}

    problems, said = [], []
    if "deps" in only:
        doc = read_doc(root, problems)
        cmake = read_cmake(root)
        if doc is not None:
            graph = check_lists(doc, cmake, folders, problems)
            n, across, outside = check_includes(root, files, graph, problems)
            planned = [p for p in doc if p not in cmake and p not in folders]
            said.append("deps: %d parts (%d built%s), %d files, %d includes (%d across parts, %d outside src/)"
                        % (len(doc), len(cmake), ", listed only: " + ", ".join(planned) if planned else "",
                           len(files), n, across, outside))
    if "seams" in only:
        said.append("seams: %d files of src/conn/ call no tls_/h2_ function and name no tls/h2 field"
                    % check_seams(root, problems))
    if "size" in only:
        (path, n), (pair, m) = check_size(root, files, problems)
        said.append("size: %d files at most %d lines (the largest: %s, %d), a .c with its .h at most %d "
                    "(the largest: %s, %d)" % (len(files), MAX_LINES, path, n, MAX_PAIR_LINES, pair, m))
    if "circles" in only:
        n, still = check_circles(root, files, problems)
        said.append("circles: %d folders, no circle of calls in any%s"
                    % (n, " but the pending " + ", ".join(still) if still else ""))
    skipped = [c for c in CHECKS if c not in only]
    if problems:
        print("\n".join(problems))
        print("check_parts: %d problems (checked: %s)" % (len(problems), ", ".join(only)), file=sys.stderr)
        return 1
    for line in said:
        print("check_parts: " + line)
    if skipped:
        print("check_parts: not checked: " + ", ".join(skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
