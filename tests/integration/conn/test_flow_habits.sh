# Flows against the habits of k6 and Locust users, and a check on a final
# redirect (issue 29): a request's check runs on its final response
# whatever its status (a 302 to another origin, one with redirects = 0),
# and not on a redirect that is followed; u:sleep and opts.timeout are
# seconds or duration strings, and a non-finite timeout is refused; a
# misspelt response field or method of u, u:check given a function, a path
# without its "/", and u's methods inside a coroutine of the script's own
# each end the iteration with a reason that names the fix.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"
PY=$(dirname "$TESTLIB")/py

# 1. Checks on redirects, against py/redirector.py.
python3 "$PY/redirector.py" "$T/r.port" 60 &
TARGET_PIDS+=($!)
wait_port_file "$T/r.port" "$!" || { echo "redirector.py did not start" >&2; exit 1; }
R=http://127.0.0.1:$(cat "$T/r.port")
cat > "$S/redirects.lua" <<'EOF2'
local s = {}
local function ok200(r) return r.status == 200, "status " .. r.status end
function s.user(u)
  local away = u:get("/away", { name = "away", check = ok200 })
  u:check(away.status == 302 and away.failed and away.reason == "status 302", "away checked")
  local zero = u:get("/here", { name = "zero", redirects = 0, check = ok200 })
  u:check(zero.status == 302 and zero.failed, "redirects = 0 checked")
  local here = u:get("/here", { name = "here", check = ok200 })
  u:check(here.status == 200 and not here.failed and here.url == "/ok", "followed, the final one checked")
end
return s
EOF2
run_volley redirects -s "$S/redirects.lua" -c 1 --iterations 3 "$R/"
check_eq "$RC" 0 "redirects: exit status"
check_eq "$(jget "$T/redirects.json" checks.failed)" 0 "redirects: every check of the flow passed"
check_eq "$(jget "$T/redirects.json" errors.validation)" 6 "redirects: two unfollowed 302s failed their check, 3 times"
check_eq "$(jget "$T/redirects.json" names.away.errors.validation)" 3 "redirects: away's check failed"
check_eq "$(jget "$T/redirects.json" names.zero.errors.validation)" 3 "redirects: zero's check failed"
check_eq "$(jget "$T/redirects.json" names.here.errors.validation)" 0 "redirects: here's followed hop not checked"
check_eq "$(jget "$T/redirects.json" names.here.requests.completed)" 6 "redirects: here's two hops counted"

start_target --log "$T/t.log"
U=http://127.0.0.1:$PORT

# 2. Times in seconds: a 5 s sleep outlasts a 1 s run (5 ms before), so
# no iteration completes; duration strings reach the request's timeout.
cat > "$S/times.lua" <<'EOF2'
local s = {}
function s.user(u)
  u:get("/")
  local a = u:get("/delay/3000", { name = "str", timeout = "50ms" }).reason
  local b = u:get("/delay/3000", { name = "num", timeout = 0.05 }).reason
  u:check(a == "timeout" and b == "timeout", "timeouts")
  u:sleep(5)
end
return s
EOF2
run_volley times -s "$S/times.lua" -c 1 -d 1s "$U/"
check_eq "$RC" 0 "times: exit status"
check_eq "$(jget "$T/times.json" iterations.completed)" 0 "times: u:sleep(5) is 5 seconds"
check_eq "$(jget "$T/times.json" iterations.cut_off)" 1 "times: the sleeping iteration cut off"
check_eq "$(jget "$T/times.json" errors.timeout)" 2 "times: opts.timeout \"50ms\" and 0.05"
check_eq "$(jget "$T/times.json" checks.passed)" 1 "times: both timed out"

# mistake NAME LUA ERE: a flow whose user(u) gets / then runs LUA ends
# each of its 2 iterations with a reason matching ERE (the script's
# file:line first); nothing succeeded, so the run exits 1 with its line.
mistake() {
    printf 'local s = {}\nfunction s.user(u)\n  u:get("/") %s\nend\nreturn s\n' "$2" > "$S/$1.lua"
    run_volley "$1" -s "$S/$1.lua" -c 1 --iterations 2 "$U/"
    check_eq "$RC" 1 "$1: exit status"
    check_grep "$T/$1.err" "^volley: every iteration failed \(2 of 2\)" "$1: the line"
    check_eq "$(jget "$T/$1.json" iterations.failed)" 2 "$1: both iterations failed"
    python3 - "$T/$1.json" "$3" <<'PY' || fail "$1: the reason"
import json, re, sys
r = json.load(open(sys.argv[1]))["iterations"]["failures"]["reasons"]
assert len(r) == 1 and re.search(sys.argv[2], r[0]["reason"]) and r[0]["count"] == 2, r
PY
    ok
}
mistake huge 'u:get("/", { timeout = math.huge })' \
    '^.*huge\.lua:3: u:get: opts\.timeout inf is not a time \(seconds > 0'
mistake nan 'u:get("/", { timeout = 0/0 })' 'u:get: opts\.timeout (-?nan) is not a time'
mistake field 'local code = u:get("/").status_code' \
    '^.*field\.lua:3: r\.status_code: a response has no field "status_code" \(did you mean r\.status\?\)$'
mistake method 'if not u.token then u:gett("/") end' \
    '^.*method\.lua:3: u:gett is not a method of u \(did you mean u:get\?\)$'
mistake checkfn 'u:check(function(r) return false end, "never")' \
    '^.*checkfn\.lua:3: u:check: a function is not called by u:check\(cond, name\), so it would always pass'
mistake slash 'u:get("items/1")' \
    '^.*slash\.lua:3: u:get: the path "items/1" lacks its leading "/" \(did you mean "/items/1"\?\)$'
mistake coroutine 'local got = coroutine.wrap(function() return u:get("/") end)() u:fail("got " .. tostring(got))' \
    "^.*coroutine\\.lua:3: u:get: called outside its user's coroutine"
mistake sleep 'u:sleep(math.huge)' 'u:sleep: inf is not a time \(seconds >= 0'

# 3. u:check(r, { name = fn }): k6's form, each function called with r.
cat > "$S/table.lua" <<'EOF2'
local s = {}
function s.user(u)
  local r = u:get("/status/404")
  local all = u:check(r, {
    ["status is 200"] = function(r) return r.status == 200 end,
    ["answered"] = function(r) return r.status > 0 end,
  })
  if all then u:fail("all passed") end
  -- u:check works where volley calls opts.check (outside the user's coroutine)
  u:get("/", { check = function(r) u:check(r.status == 200, "inside the check option") end })
end
return s
EOF2
run_volley table -s "$S/table.lua" -c 1 --iterations 3 "$U/"
check_eq "$RC" 0 "check table: exit status"
check_eq "$(jget "$T/table.json" iterations.failed)" 0 "check table: not all passed"
check_eq "$(jget "$T/table.json" checks.names.status\ is\ 200.failed)" 3 "check table: status is 200 failed"
check_eq "$(jget "$T/table.json" checks.names.answered.passed)" 3 "check table: answered passed"
check_eq "$(jget "$T/table.json" checks.names.inside\ the\ check\ option.passed)" 3 "u:check inside opts.check"
stop_target
# The server never saw "items/1", nor a request from inside the script's coroutine.
if grep -q 'items/1' "$T/t.log"; then fail "slash: items/1 was sent"; else ok; fi

finish
