#!/usr/bin/env bash
# tests/tools/check_parts.py (the test unit.parts) can fail: on a copy of the
# tree's src/, CMakeLists.txt and docs/architecture.md, each kind of break it
# is there to catch (an upward include, a doc list that disagrees with CMake,
# a cycle, a folder no part lists, a header name in two parts, a transport or
# framing call in src/conn/, a file too long, a .c with its .h too long, a
# circle of calls inside a folder) is made once and named.
source "$TESTLIB"
ROOT=$(cd "$(dirname "$TESTLIB")/../.." && pwd)
CHECK="$ROOT/tests/tools/check_parts.py"

# fresh: a clean copy of the tree in $T/tree.
fresh() {
    rm -rf "$T/tree"
    mkdir -p "$T/tree/docs"
    cp -r "$ROOT/src" "$ROOT/CMakeLists.txt" "$T/tree/"
    cp "$ROOT/docs/architecture.md" "$T/tree/docs/"
}
# parts WHAT ONLY: runs the check ($TOOL, else the tree's) on the copy
# (--only ONLY), its output in $T/out and its exit status in RC.
parts() {
    RC=0
    python3 "${TOOL:-$CHECK}" --root "$T/tree" --only "$2" > "$T/out" 2>&1 || RC=$?
}
# broken WHAT ONLY PATTERN: the check fails and names the break.
broken() {
    parts "$1" "$2"
    check_eq "$RC" 1 "$1: exit status"
    check_grep "$T/out" "$3" "$1"
}
# line FILE TEXT: the line number of TEXT in FILE.
line() { grep -nF -- "$2" "$1" | head -1 | cut -d: -f1; }

# The tree as it is passes the dependency checks: each failure below is the
# one break made.
fresh
parts "the tree" deps
check_eq "$RC" 0 "the tree: exit status"
check_grep "$T/out" "^check_parts: deps: [0-9]+ parts \([0-9]+ built" "the tree: what was checked"

# An upward include: statistics including the connection's header, by name
# and by a path past the include dirs.
fresh
printf '#include "conn.h"\n' >> "$T/tree/src/stats/hist.c"
n=$(line "$T/tree/src/stats/hist.c" '#include "conn.h"')
broken "upward include" deps "^src/stats/hist\.c:$n: includes \"conn\.h\" of part conn, which part stats does not use \(it uses base\)$"
fresh
printf '#include "../conn/conn.h"\n' >> "$T/tree/src/stats/hist.c"
broken "upward include by path" deps "^src/stats/hist\.c:[0-9]+: includes \"\.\./conn/conn\.h\" of part conn, which part stats does not use"
# In a comment it is no include.
fresh
printf '/* #include "conn.h" */\n' >> "$T/tree/src/stats/hist.c"
parts "an include in a comment" deps
check_eq "$RC" 0 "an include in a comment: exit status"

# The doc's list and CMake's disagree.
fresh
sed -i 's/^load -> base, text$/load -> base/' "$T/tree/docs/architecture.md"
broken "doc against CMake" deps "^CMakeLists\.txt: part load: docs/architecture\.md lists base, but its volley_part line USES base, text$"
# A part built by CMake that the doc does not list, and a folder no part lists.
fresh
sed -i '/^results -> /d' "$T/tree/docs/architecture.md"
broken "part not in the doc" deps "^CMakeLists\.txt: volley_part\(results\) is not a listed part in docs/architecture\.md$"
check_grep "$T/out" "^src/results/: a folder with no listed part" "folder not in the doc"
fresh
mkdir "$T/tree/src/quic"
printf '/* quic */\n' > "$T/tree/src/quic/quic.c"
broken "folder with no part" deps "^src/quic/: a folder with no listed part in docs/architecture\.md$"
fresh
sed -i '/^volley_part(results /d' "$T/tree/CMakeLists.txt"
broken "folder with no volley_part" deps "^CMakeLists\.txt: src/results/ has no volley_part\(results \.\.\.\) line$"

# A cycle, the same in both lists (the base using the command line).
fresh
sed -i 's/^base -> (nothing)$/base -> cli/' "$T/tree/docs/architecture.md"
sed -i 's/^volley_part(base LIBS/volley_part(base USES cli LIBS/' "$T/tree/CMakeLists.txt"
broken "cycle" deps "^CMakeLists\.txt: the parts use each other in a cycle: base -> cli -> .*base$"
check_grep "$T/out" "^docs/architecture\.md: part base is listed before cli, which it uses" "cycle: bottom-up order"

# One header name in two parts.
fresh
cp "$T/tree/src/base/clock.h" "$T/tree/src/text/clock.h"
broken "header in two parts" deps "^src/\{base,text\}/clock\.h: one header name in 2 parts"

# The seams: a transport call and a framing field in the connection's files
# are named; the same words in a comment or a string are not.
fresh
cat >> "$T/tree/src/conn/conn_read.c" <<'EOF'
/* tls_in_comment(c->h2_in_comment) */
static const char *seam_probe_text = "tls_in_string() c->h2_in_string";
static int seam_probe(struct conn *c) { return tls_seam_probe(c) + c->h2_seam_probe; }
EOF
n=$(line "$T/tree/src/conn/conn_read.c" 'static int seam_probe')
broken "tls_ call in conn" seams "^src/conn/conn_read\.c:$n: calls tls_seam_probe\(\)"
check_grep "$T/out" "^src/conn/conn_read\.c:$n: names the field ->h2_seam_probe " "h2 field in conn"
if grep -qE "in_comment|in_string" "$T/out"; then fail "seams: a comment or string taken for code"; else ok; fi

# A file too long.
fresh
seq 1 751 | sed 's|.*|/* line */|' > "$T/tree/src/base/long.c"
broken "long file" size "^src/base/long\.c: 751 lines, above 750"
# A .c and its .h, each under 750 but too long together; another .h is
# not its own.
fresh
seq 1 700 | sed 's|.*|/* line */|' > "$T/tree/src/base/long.c"
seq 1 101 | sed 's|.*|/* line */|' > "$T/tree/src/base/long.h"
broken "long pair" size "^src/base/long\.c with long\.h: 801 lines together, above 800 "
fresh
seq 1 700 | sed 's|.*|/* line */|' > "$T/tree/src/base/long.c"
seq 1 101 | sed 's|.*|/* line */|' > "$T/tree/src/base/long_internal.h"
parts "a .c with another .h" size
check_eq "$RC" 0 "a .c with another .h: exit status"

# The tree as it is has no circle of calls inside a folder (but the pending
# ones).
fresh
parts "the tree" circles
check_eq "$RC" 0 "the tree: circles: exit status"
check_grep "$T/out" "^check_parts: circles: [0-9]+ folders, no circle of calls" "the tree: circles checked"
# A piece calling back into its entry, which calls it: the circle is named
# with the functions that tie it.
fresh
cat >> "$T/tree/src/report/html_names.c" <<'EOF'
void html_names_probe(FILE *out) { html_page_start(out, "", 0); }
EOF
broken "circle" circles "^src/report/: its files call each other in a circle: .*html_names\.c -> html\.c \(html_page_start\)"
check_grep "$T/out" "html\.c -> html_names\.c \(html_names\)" "circle: the entry's call"
# The same name in a comment, a string or as a member is no call, and a
# piece's own static function of that name is its own.
fresh
cat >> "$T/tree/src/report/html_names.c" <<'EOF'
/* html_page_start(out, "", 0) */
static const char *circle_probe_text = "html_page_start(out)";
static void circle_probe(struct circle_probe_ops *s) { s->html_page_start(); s[0].html_page_start(); }
EOF
parts "a name that is no call" circles
check_eq "$RC" 0 "a name that is no call: exit status"
fresh
cat >> "$T/tree/src/report/html_names.c" <<'EOF'
static void html_page_start(FILE *out) { (void)out; }
EOF
parts "a static of the same name" circles
check_eq "$RC" 0 "a static of the same name: exit status"
# A folder on the pending list is not failed for its circle; one on it
# without a circle is, until it is taken off.
fresh
cat >> "$T/tree/src/report/html_names.c" <<'EOF'
void html_names_probe(FILE *out) { html_page_start(out, "", 0); }
EOF
sed 's/^CIRCLES_PENDING = (/CIRCLES_PENDING = ("report", /' "$CHECK" > "$T/check_parts.py"
TOOL="$T/check_parts.py" parts "a pending circle" circles
check_eq "$RC" 0 "a pending circle: exit status"
check_grep "$T/out" "but the pending .*report" "a pending circle: named"
fresh
sed 's/^CIRCLES_PENDING = (/CIRCLES_PENDING = ("base", /' "$CHECK" > "$T/check_parts.py"
TOOL="$T/check_parts.py" broken "pending without a circle" circles \
    "^src/base/: no circle of calls left: take base off CIRCLES_PENDING in tests/tools/check_parts\.py$"

finish
