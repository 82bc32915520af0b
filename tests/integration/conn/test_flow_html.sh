# HTML extraction in a flow (r:html():find, r:extract) against
# py/form_server.py, an aiohttp app that refuses a login or a like without
# its session's CSRF token: the flow takes the token from the hidden input
# of the login form and from <meta name="csrf-token"> (entities decoded:
# the token holds '&' and '<'), logs in and likes, every count exact and
# no refusal; a selector that does not parse is one line naming the
# script's line, the selector and where it goes wrong; a page read after
# its user's next request is an error that says so.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"
PY=$(dirname "$TESTLIB")/py
FPY=/usr/bin/python3   # aiohttp is Debian's
"$FPY" -c 'import aiohttp' 2> /dev/null || { echo "python3-aiohttp is missing" >&2; exit 1; }

"$FPY" "$PY/form_server.py" "$T/form.port" "$T/form.log" 90 &
FPID=$!
TARGET_PIDS+=("$FPID")
wait_port_file "$T/form.port" "$FPID" || { echo "form_server.py did not start" >&2; exit 1; }
FPORT=$(cat "$T/form.port")

# 1. Log in with the form's token, like with the meta tag's: 3 users (one
# session each: the token is per session), 5 iterations each.
cat > "$S/csrf.lua" <<'EOF2'
local s = {}
function s.user(u)
  local page = u:get("/login")
  local doc = page:html()
  local token = doc:find("form#login input[name=authenticity_token]"):attr("value")
  local meta = doc:find('meta[name="csrf-token"]'):attr("content")
  u:check(token ~= nil and token == meta, "one token")
  u:check(doc:find("input[name=authenticity_token]"):size() == 1, "not the commented-out one")
  u:check(page:html() == doc, "parsed once")
  u:check(page:extract('name="csrf-token" content="', '"') == token:gsub("&", "&amp;"):gsub("<", "&lt;"),
    "extract")
  local r = u:post("/login", { form = { authenticity_token = token, user = "ann" } })
  u:check(r.status == 200, "logged in")
  r = u:post("/like", { headers = { ["X-CSRF-Token"] = meta } })
  u:check(r.status == 200, "liked")
end
return s
EOF2
run_volley csrf -s "$S/csrf.lua" -c 3 -t 1 --iterations 15 "http://127.0.0.1:$FPORT/"
check_eq "$RC" 0 "csrf: exit status ($(grep -m1 -E 'failed|error' "$T/csrf.out" || head -c 300 "$T/csrf.err"))"
check_eq "$(jget "$T/csrf.json" iterations.completed)" 15 "csrf: iterations completed"
check_eq "$(grep -c '^GET /login 200' "$T/form.log")" 15 "csrf: login pages"
check_eq "$(grep -c '^POST /login 200' "$T/form.log")" 15 "csrf: logins accepted"
check_eq "$(grep -c '^POST /like 200' "$T/form.log")" 15 "csrf: likes accepted"
check_eq "$(grep -c ' 403 ' "$T/form.log")" 0 "csrf: no refusal"
"$FPY" - "$T/csrf.json" <<'PY' || fail "csrf: a check failed"
import json, sys
names = json.load(open(sys.argv[1]))["checks"]["names"]
assert len(names) == 6, names
for name, c in names.items():
    assert c == {"passed": 15, "failed": 0}, (name, c)
PY
ok

# 2. A selector that does not parse: one line, the script's line.
cat > "$S/bad.lua" <<'EOF2'
local s = {}
function s.user(u)
  local r = u:get("/login")
  return r:html():find("input[name="):attr("value")
end
return s
EOF2
run_volley bad -s "$S/bad.lua" -c 1 --iterations 1 "http://127.0.0.1:$FPORT/"
check_grep "$T/bad.out" "failed: .*bad.lua:4: r:html\(\):find: bad selector \"input\[name=\": a value expected at 12 \(1\)$" \
    "bad selector: one line with the line, the selector and the position"

# 3. A page goes with its response (its C memory freed at the user's next
# request, not whenever the collector runs): read after that, it is an
# error that says so; what was taken from it before stays.
cat > "$S/stale.lua" <<'EOF2'
local s = {}
function s.user(u)
  local doc = u:get("/login"):html()
  local sel = doc:find("input")
  local token = doc:find("input[name=authenticity_token]"):attr("value")
  u:get("/login")
  u:check(sel:size() == 5 and #token > 20, "kept")
  local v = sel:attr("value")
  return v
end
return s
EOF2
run_volley stale -s "$S/stale.lua" -c 1 --iterations 1 "http://127.0.0.1:$FPORT/"
check_grep "$T/stale.out" "failed: .*stale.lua:8: a page \(r:html\(\)\) was read after its user sent the next request" \
    "stale: a released page is one line at the script's line"
check_eq "$(jget "$T/stale.json" checks.names.kept.passed)" 1 "stale: what was taken before stays"
finish
