# A run in which nothing that was asked for succeeded exits 1 (issue 29,
# item 13). For a flow: every iteration failed (here on a check, then
# u:fail; or an error in user()), though every response came back, exits 1
# with one stderr line naming the most common reason; one success among
# the failures exits 0; `volley report` of the result says and exits the
# same; a threshold on it does not turn the 1 into 99. For a run that is no
# flow the rule was already there and stays: every request failed (a
# script's validation) exits 1, "no response completed"; responses with
# any status complete (as ab and wrk count them): exit 0, and `volley ab`
# keeps ab's exit 0.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT"

# ONE=1: the first iteration of user 1 asks for / (200), every other for a 500.
cat > "$T/flow.lua" <<'EOF'
local s = {}
local one
function s.init(args) one = args[1] == "one" end
function s.user(u)
  local path = (one and u.id == 1 and u.iteration == 1) and "/" or "/status/500"
  local r = u:get(path)
  if not u:check(r.status == 200, "status 200") then u:fail("status " .. r.status) end
end
return s
EOF

# 1. Every iteration fails on its check: exit 1, one line.
run_volley all -s "$T/flow.lua" -c 1 -t 1 --iterations 10 "$url/"
check_eq "$RC" 1 "every iteration failed: exit 1"
check_eq "$(cat "$T/all.err")" "volley: every iteration failed (10 of 10); the most common reason: status 500 (10)" \
    "every iteration failed: the one line"
check_eq "$(jget "$T/all.json" requests.completed)" 10 "every iteration failed: yet every response came back"
check_grep "$T/all.out" '^  Iterations: 0 completed, 10 failed, 0 cut off' "every iteration failed: the report"

# 2. One success among the failures: exit 0, nothing on stderr.
run_volley one -s "$T/flow.lua" -c 1 -t 1 --iterations 10 "$url/" -- one
check_eq "$RC" 0 "one success among failures: exit 0"
check_eq "$(wc -c < "$T/one.err")" 0 "one success among failures: stderr empty"
check_eq "$(jget "$T/one.json" iterations.completed)" 1 "one success among failures: one completed"

# 3. volley report of each: the same line and status.
RC=0
timeout 30 "$VOLLEY" report "$T/all.json" > "$T/rep.out" 2> "$T/rep.err" || RC=$?
check_eq "$RC" 1 "volley report of it: exit 1"
check_eq "$(cat "$T/rep.err")" "volley: every iteration failed (10 of 10); the most common reason: status 500 (10)" \
    "volley report of it: the line"
RC=0
timeout 30 "$VOLLEY" report "$T/one.json" > /dev/null 2>&1 || RC=$?
check_eq "$RC" 0 "volley report of one success: exit 0"

# 4. An error in user(), and a threshold that fails too: 1 wins over 99.
cat > "$T/boom.lua" <<'EOF'
local s = {}
function s.user(u)
  u:get("/")
  error("boom")
end
return s
EOF
run_volley boom -s "$T/boom.lua" -c 2 -t 1 --iterations 6 --threshold 'iterations > 5' "$url/"
check_eq "$RC" 1 "every iteration raised: exit 1 (not 99)"
check_grep "$T/boom.err" "^volley: every iteration failed \\(6 of 6\\); the most common reason: .*boom.lua:4: boom \\(6\\)$" \
    "every iteration raised: the line names the error"

# 5. Not a flow: every request failed by the script's validation (exit 1,
# as before); every response a 500 completes (exit 0, as ab and wrk).
cat > "$T/val.lua" <<'EOF'
local s = {}
function s.response(r) return false, "nope" end
return s
EOF
run_volley val -s "$T/val.lua" -n 10 -c 1 -t 1 "$url/"
check_no_response val "every request failed validation" "10 requests failed: validation 10"
run_volley s500 -n 10 -c 1 -t 1 "$url/status/500"
check_eq "$RC" 0 "every response a 500: exit 0"
RC=0
timeout 30 "$VOLLEY" ab -n 10 -c 1 "$url/status/500" > "$T/ab.out" 2> "$T/ab.err" || RC=$?
check_eq "$RC" 0 "volley ab, every response a 500: exit 0, as ab"

stop_target
finish
