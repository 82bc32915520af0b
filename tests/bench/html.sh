#!/bin/bash
# tests/bench/html.sh: the cost of one HTML extraction on a 50 KB page, a
# flow's r:html():find(selector):attr(name) (libgumbo's parse, then the
# selector's walk) beside Locust's usual BeautifulSoup(text, parser)
# .select_one(selector)[name] on the same page, same selector. A report,
# not a test (docs/performance.md, HTML extraction).
#
# The page (made here, ~50 KB: a shop's head, navigation, a table of 180
# products, and the login form with its token at the end) is served by
# Python's http.server on loopback; the flow fetches it once and parses
# its body CALLS times, timing CPU with os.clock. Python times the same
# with time.process_time. Printed: CPU per call of each, in ms, the median
# of ROUNDS rounds.
#
# Env: CALLS (300), ROUNDS (3), VOLLEY (<repo>/build/volley).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VOLLEY=${VOLLEY:-$ROOT/build/volley}
CALLS=${CALLS:-300}
ROUNDS=${ROUNDS:-3}
PY=/usr/bin/python3 # Debian's, with python3-bs4
die() { echo "html bench: $*" >&2; exit 1; }
[[ -x $VOLLEY ]] || die "no volley at $VOLLEY (build it first)"
"$PY" -c 'import bs4' 2> /dev/null || die "no BeautifulSoup (apt-get install python3-bs4; make bench installs it)"

W=$(mktemp -d "${TMPDIR:-/tmp}/volley-html.XXXXXX")
SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2> /dev/null; rm -rf "$W"' EXIT

"$PY" - "$W/page.html" <<'PY'
import sys
rows = "".join(
    '<tr class="item" data-id="%d"><td class="name"><a href="/items/%d">Item %d &amp; more</a></td>'
    '<td class="price">%d.99</td><td><form action="/cart" method="post"><input type="hidden" name="id" '
    'value="%d"><button class="btn add">Add</button></form></td></tr>\n' % (i, i, i, i % 97, i)
    for i in range(1, 181))
nav = "".join('<li><a href="/c/%d">Category %d</a></li>' % (i, i) for i in range(40))
page = ("<!DOCTYPE html><html><head><meta charset=utf-8><title>Shop</title>"
        '<meta name="csrf-param" content="authenticity_token">'
        '<meta name="csrf-token" content="k3Jd8vQ2xZpL0mN4rT6yW1aB5cE7gH9j">'
        '<link rel="stylesheet" href="/s.css"></head><body><header><nav><ul class="menu">%s</ul></nav></header>'
        '<main><table class="items">%s</table>'
        '<form id="login" action="/login" method="post">'
        '<input type="hidden" name="authenticity_token" value="k3Jd8vQ2xZpL0mN4rT6yW1aB5cE7gH9j">'
        '<input type="text" name="user"><input type="password" name="password">'
        '<button type="submit">Log in</button></form></main><footer><p>&copy; shop</p></footer></body></html>'
        % (nav, rows))
open(sys.argv[1], "w").write(page)
PY
SIZE=$(stat -c %s "$W/page.html")

"$PY" -m http.server 0 --bind 127.0.0.1 --directory "$W" > "$W/server.out" 2>&1 &
SPID=$!
PORT=""
for _ in $(seq 1 100); do
    PORT=$(sed -n 's|.*port \([0-9][0-9]*\).*|\1|p' "$W/server.out" | head -n 1)
    [ -n "$PORT" ] && break
    sleep 0.05
done
[ -n "$PORT" ] || die "http.server did not start"

cat > "$W/html.lua" <<EOF2
local html = require("volley.html")
local s = {}
function s.user(u)
  local r = u:get("/page.html")
  assert(r.status == 200 and #r.body == $SIZE, "the page was not fetched")
  local body = r.body
  local want = "k3Jd8vQ2xZpL0mN4rT6yW1aB5cE7gH9j"
  local function time(name, fn)
    assert(fn() == want, name .. " found no token")
    local t0 = os.clock()
    for _ = 1, $CALLS do fn() end
    io.stderr:write(("%s %.4f\n"):format(name, (os.clock() - t0) * 1e3 / $CALLS))
  end
  time("volley_find", function()
    return html.parse(body):find("input[name=authenticity_token]"):attr("value")
  end)
  time("volley_meta", function() return html.parse(body):find('meta[name="csrf-token"]'):attr("content") end)
  time("volley_extract", function() return r:extract('name="authenticity_token" value="', '"') end)
end
return s
EOF2

cat > "$W/soup_bench.py" <<'PY'
import sys, time
from bs4 import BeautifulSoup
page = open(sys.argv[1]).read()
calls = int(sys.argv[2])
want = "k3Jd8vQ2xZpL0mN4rT6yW1aB5cE7gH9j"
def timed(name, fn):
    assert fn() == want, name
    t0 = time.process_time()
    for _ in range(calls):
        fn()
    print("%s %.4f" % (name, (time.process_time() - t0) * 1e3 / calls))
timed("bs4_html.parser", lambda: BeautifulSoup(page, "html.parser").select_one("input[name=authenticity_token]")["value"])
try:
    import lxml  # noqa: F401
    timed("bs4_lxml", lambda: BeautifulSoup(page, "lxml").select_one("input[name=authenticity_token]")["value"])
except ImportError:
    print("bs4_lxml -")
PY

for round in $(seq 1 "$ROUNDS"); do
    "$VOLLEY" -q -c 1 -t 1 --iterations 1 --yield-timeout 0 -s "$W/html.lua" "http://127.0.0.1:$PORT/" 2>> "$W/volley.txt" > /dev/null \
        || die "volley's run failed: $(tail -n 3 "$W/volley.txt")"
    "$PY" "$W/soup_bench.py" "$W/page.html" $((CALLS / 10 > 10 ? CALLS / 10 : 10)) >> "$W/bs4.txt"
done

echo "HTML extraction on a $SIZE-byte page: CPU per call (ms), median of $ROUNDS rounds"
cat "$W/volley.txt" "$W/bs4.txt" | "$PY" -c '
import statistics, sys
rows = {}
for line in sys.stdin:
    name, v = line.split()
    rows.setdefault(name, []).append(v)
labels = {"volley_find": "volley  r:html():find(\"input[name=authenticity_token]\"):attr(\"value\")",
          "volley_meta": "volley  r:html():find(\x27meta[name=\"csrf-token\"]\x27):attr(\"content\")",
          "volley_extract": "volley  r:extract(\x27name=\"authenticity_token\" value=\"\x27, \x27\"\x27)",
          "bs4_html.parser": "Locust  BeautifulSoup(text, \"html.parser\").select_one(...)[\"value\"]",
          "bs4_lxml": "Locust  BeautifulSoup(text, \"lxml\").select_one(...)[\"value\"]"}
for name, vs in rows.items():
    if "-" in vs:
        print("  %-78s  (lxml not installed)" % labels[name])
        continue
    print("  %-78s %9.3f" % (labels[name], statistics.median(float(v) for v in vs)))
'
