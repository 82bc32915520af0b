# A script that does not give control back (issue 29, item 5). A flow's
# user() that runs --yield-timeout (default 100ms) without yielding fails
# its iteration with a reason that names the script's line, and the run
# goes on; a hook stuck in a loop the JIT compiled (nothing can interrupt
# it) is left behind 1 s after -d or the first Ctrl-C, and the run ends with
# its report, its figures adding up, and exit 1 with one line that says
# why. Before, each of these held its worker and the run forever.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"
start_target

# wait_for FILE: up to 10 s for FILE to exist.
wait_for() { for _ in $(seq 1 500); do [ -e "$1" ] && return; sleep 0.02; done; }

# 1. Every 3rd iteration of the user spins for ever: each is stopped and
# counted under the line of its loop; the others complete. (One user: with
# more, which user takes which iteration is the scheduler's. The bound is
# the worker's CPU time, so a loaded machine that holds the thread back
# does not fail an iteration that did not run.)
cat > "$S/spin.lua" <<'LUA'
local s = {}
function s.user(u)
  u:get("/")
  if u.iteration % 3 == 0 then
    local x = 0
    while true do x = x + 1 end
  end
end
return s
LUA
run_volley spin -s "$S/spin.lua" -c 1 -t 1 --iterations 12 "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "spinning user: exit status"
check_eq "$(jget "$T/spin.json" iterations.started)" 12 "spinning user: iterations started"
check_eq "$(jget "$T/spin.json" iterations.completed)" 8 "spinning user: the others complete"
python3 - "$T/spin.json" <<'PY' || fail "spinning user: the reason"
import json, sys
i = json.load(open(sys.argv[1]))["iterations"]
reasons = {x["reason"]: x["count"] for x in i["failures"]["reasons"]}
assert len(reasons) == 1, reasons
(reason, n), = reasons.items()
assert reason.endswith("/spin.lua:6: user() ran 100ms without yielding (--yield-timeout)") and n == 4, reasons
PY
ok

# 2. The bound is --yield-timeout's; a long computation (no loop forever,
# just long) is stopped as well; 0 turns it off (not run: it would spin).
cat > "$S/long.lua" <<'LUA'
local s = {}
function s.user(u)
  u:get("/")
  local x = 0
  for i = 1, 1e12 do x = x + i % 7 end
  u:get("/never")
end
return s
LUA
run_volley long -s "$S/long.lua" -c 1 -t 1 --iterations 2 --yield-timeout 300ms "http://127.0.0.1:$PORT/"
check_eq "$RC" 1 "long computation: exit status (no iteration completed)"
check_grep "$T/long.out" "long.lua:5: user\(\) ran 300ms without yielding \(--yield-timeout\) \(2\)" "long computation: the reason"
check_eq "$(jget "$T/long.json" requests.completed)" 2 "long computation: the request after it was never sent"
run_volley badbound -s "$S/long.lua" --yield-timeout fast "http://127.0.0.1:$PORT/"
check_eq "$RC" 2 "--yield-timeout fast: exit status"
check_grep "$T/badbound.err" '^volley: --yield-timeout: "fast" is not a duration' "--yield-timeout fast: the line"

# 3. A request() hook that never returns, in a loop the JIT compiled: -d
# ends the run 1 s later with the report; what the stuck thread had in
# flight is cut off; exit 1 and the line that says why.
cat > "$S/stuckhook.lua" <<'LUA'
local n = 0
function request()
  n = n + 1
  if n == 30 then while true do end end
  return wrk.format()
end
LUA
run_volley stuckhook -s "$S/stuckhook.lua" -c 2 -t 2 -d 1s "http://127.0.0.1:$PORT/"
check_eq "$RC" 1 "stuck hook, -d: exit status"
check_grep "$T/stuckhook.out" "^Requests/sec:" "stuck hook, -d: the report"
check_grep "$T/stuckhook.err" "stuckhook.lua: thread [12]: a call into the script did not return within 1s of the run's end" "stuck hook, -d: the line"
check_adds_up stuckhook

# 4. The same stopped by the first Ctrl-C (SIGINT) of a long run: the
# report comes, not a hang. (timeout --foreground passes the one SIGINT
# on; without it timeout also signals its process group, and on a loaded
# machine that copy can come later than volley's echo window, 250 ms, and
# count as a second Ctrl-C during the second this run takes to end.)
cat > "$S/stucksig.lua" <<'LUA'
local n = 0
local marker = ...
function init(args) marker = args[1] end
function request()
  n = n + 1
  if n == 30 then
    io.open(marker, "w"):close()
    while true do end
  end
  return wrk.format()
end
LUA
timeout --foreground -s KILL 60 "$VOLLEY" -s "$S/stucksig.lua" -c 1 -t 1 -d 50s --json "$T/stucksig.json" \
    "http://127.0.0.1:$PORT/" -- "$T/stucksig.started" > "$T/stucksig.out" 2> "$T/stucksig.err" &
vpid=$!
wait_for "$T/stucksig.started"
signal_wait INT "$vpid"
check_eq "$RC" 1 "stuck hook, SIGINT: exit status"
check_grep "$T/stucksig.out" "^Requests/sec:" "stuck hook, SIGINT: the report"
check_adds_up stucksig

# 5. Flow users that never yield, stopped by the first SIGINT: they are
# interrupted, so the worker stops as any other and exits as interrupted.
cat > "$S/spinall.lua" <<'LUA'
local s = {}
local marker
function s.init(args) marker = args[1] end
function s.user(u)
  u:get("/")
  if marker then io.open(marker, "w"):close() marker = nil end
  while true do end
end
return s
LUA
timeout --foreground -s KILL 60 "$VOLLEY" -s "$S/spinall.lua" -c 2 -t 1 -d 50s --yield-timeout 0 --json "$T/spinall.json" \
    "http://127.0.0.1:$PORT/" -- "$T/spinall.started" > "$T/spinall.out" 2> "$T/spinall.err" &
vpid=$!
wait_for "$T/spinall.started"
signal_wait INT "$vpid"
check_eq "$RC" 1 "flow that never yields (--yield-timeout 0), SIGINT: exit status"
check_grep "$T/spinall.out" "Iterations:" "flow that never yields, SIGINT: the report"
finish
