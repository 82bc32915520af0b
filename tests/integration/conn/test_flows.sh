# User flows (a scenario with user(u)) end to end against volley-target:
# every request a flow makes is one the server received (its log), the
# requests' and the iterations' counts add up (started = completed + failed
# + cut off), --iterations is exact over threads, a Lua error or u:fail in
# some iterations is counted by its reason and the run goes on, checks and
# groups against hand-computed counts, a transport failure and a timeout
# come back to the flow as r.failed with a reason, a stale response raises,
# think time keeps the user's connection, redirects are followed and
# counted, and the open model of iterations (-R) shows a server's stall in
# the iterations' durations where the closed model does not. Then the
# mistakes: user() beside request(), -n with a flow, --iterations without.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"

# path_count LOG PREFIX: requests in the server's log whose target starts with PREFIX.
path_count() { awk -v p="$2" 'index($3, p) == 1 { n++ } END { print n + 0 }' "$1"; }

# flow_adds_up NAME: the requests' and the iterations' accounting.
flow_adds_up() {
    check_adds_up "$1"
    python3 - "$T/$1.json" <<'PY' || fail "$1: the iterations do not add up"
import json, sys
r = json.load(open(sys.argv[1]))
i = r["iterations"]
assert i["started"] == i["completed"] + i["failed"] + i["cut_off"], i
assert i["failed"] == sum(x["count"] for x in i["failures"]["reasons"]) + i["failures"]["other"], i
assert i["duration"]["count"] == i["completed"], i
PY
    ok
}

# 1. The counts: 3 requests an iteration (two named), a check, a group,
# an error in every 5th iteration of user 1 and u:fail in every 7th of
# user 2. 4 threads of one user each, --iterations 40: exactly 40
# iterations, 10 a thread, so 10 for each user whatever the scheduling (the
# users of one thread share its iterations as they come free).
cat > "$S/counts.lua" <<'EOF'
local s = {}
function s.user(u)
  local r = u:get("/json/items/2", { name = "items" })
  u:check(r.status == 200 and #r:json().items == 2, "two items")
  u:check(u.iteration % 4 ~= 0, "quarter")
  u:group("pair", function()
    u:get("/status/201", { name = "created" })
    u:get("/")
  end)
  if u.id == 1 and u.iteration % 5 == 0 then error("boom") end
  if u.id == 2 and u.iteration % 7 == 0 then u:fail("sevens") end
end
return s
EOF
start_target --log "$T/counts.log"
run_volley counts -s "$S/counts.lua" -t 4 -c 4 --iterations 40 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "counts: exit status"
flow_adds_up counts
check_eq "$(jget "$T/counts.json" iterations.started)" 40 "counts: --iterations 40 started 40"
check_eq "$(jget "$T/counts.json" requests.completed)" 120 "counts: 3 requests an iteration"
check_eq "$(wc -l < "$T/counts.log")" 120 "counts: the server received every request"
check_eq "$(path_count "$T/counts.log" /json/items/2)" 40 "counts: the server's /json/items/2"
check_eq "$(jget "$T/counts.json" names.items.requests.completed)" 40 "counts: name items"
check_eq "$(jget "$T/counts.json" names.created.status.201)" 40 "counts: name created, status 201"
check_eq "$(jget "$T/counts.json" checks.names.two\ items.passed)" 40 "counts: check two items"
python3 - "$T/counts.json" <<'PY' || fail "counts: checks, groups and failures against hand-computed figures"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["checks"]["names"]
# Each user's iterations 1..n: "quarter" fails on every 4th of each user.
# 40 over 4 users: 10 each -> 2 fails each (4, 8) -> 8 fails, 32 passes.
assert c["quarter"] == {"passed": 32, "failed": 8}, c
assert r["checks"]["passed"] == 72 and r["checks"]["failed"] == 8, r["checks"]
assert abs(r["checks"]["rate"] - 72 / 80) < 1e-6, r["checks"]
g = r["groups"]["pair"]
assert g["count"] == 40 and g["failed"] == 0 and g["duration"]["count"] == 40, g
f = {x["reason"]: x["count"] for x in r["iterations"]["failures"]["reasons"]}
# user 1: iterations 5, 10 fail (boom); user 2: iteration 7 (sevens)
boom = [k for k in f if k.endswith("counts.lua:10: boom")]
assert len(boom) == 1 and f[boom[0]] == 2 and f.get("sevens") == 1 and len(f) == 2, f
assert r["iterations"]["failed"] == 3 and r["iterations"]["completed"] == 37, r["iterations"]
PY
ok
check_grep "$T/counts.out" "Iterations: 37 completed, 3 failed, 0 cut off" "counts: the text report's iterations"
check_grep "$T/counts.out" "failed: .*counts.lua:10: boom \(2\)" "counts: the error's reason in the text"
check_grep "$T/counts.out" "quarter +32 +8 +80.00%" "counts: the checks table"

# 2. Failures come back to the flow: a server that drops the connection,
# a request past its opts.timeout, a stale response read after the next
# request; and think time (u:sleep) on the same connection.
cat > "$S/failures.lua" <<'EOF'
local s = {}
function s.user(u)
  local r = u:get("/drop", { name = "drop" })
  u:check(r.failed and r.status == 0 and r.reason == "read", "drop is a read failure")
  local t = u:get("/delay/2000", { name = "slow", timeout = "50ms" })
  u:check(t.failed and t.reason == "timeout", "slow is a timeout")
  local a = u:get("/")
  local body = a.body
  u:sleep("20ms")
  local b = u:get("/")
  u:check(body == "hello world", "a field read before the next request stays")
  local ok, err = pcall(function() return a.status end)
  u:check(not ok and err:find("read after its user sent the next request", 1, true) ~= nil, "stale")
  u:check(b.status == 200, "after the sleep")
  local t = u:get("/trailers")
  u:check(t.body == "hello" and t.trailers["x-trailer"] == "yes" and t.headers["TRANSFER-ENCODING"] == "chunked",
          "trailers, a chunked body, headers in any case")
  u.cookies.sid = "abc" .. u.id
  local e = u:get("/echo", { headers = { ["X-Mine"] = "1" } })
  u:check(e.body:find("\r\nCookie: sid=abc" .. u.id .. "\r\n", 1, true) ~= nil and u.cookies.sid == "abc" .. u.id
          and e.body:find("\r\nX-Mine: 1\r\n", 1, true) ~= nil, "a cookie set by the script, and a header, sent")
  u.cookies:clear()
end
return s
EOF
start_target --log "$T/failures.log"
run_volley failures -s "$S/failures.lua" -t 1 -c 2 --iterations 4 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "failures: exit status"
flow_adds_up failures
python3 - "$T/failures.json" <<'PY' || fail "failures: the flow did not see each failure"
import json, sys
r = json.load(open(sys.argv[1]))
for name, c in r["checks"]["names"].items():
    assert c == {"passed": 4, "failed": 0}, (name, c)
assert len(r["checks"]["names"]) == 7, r["checks"]
assert r["errors"]["read"] == 4 and r["errors"]["timeout"] == 4, r["errors"]
assert r["iterations"]["completed"] == 4, r["iterations"]
PY
ok

# 3. The open model of iterations: the server stalls 1 s after its 150th
# request (and its 300th, the last); at 100 iterations a second over 3 s
# the 100 iterations due in the first stall wait for its end, each timed
# from its scheduled start: their durations spread over (0, 1 s], a third
# of the 300, so p90 is the stall's 0.7 quantile, 0.7 s analytically
# (kept within 0.3..1.5 s for a loaded machine). The closed model's 300
# iterations (timed from their own start) see the stall only in the 20
# in flight: p90 below a third of the stall.
cat > "$S/one.lua" <<'EOF'
local s = {}
function s.user(u) u:get("/") end
return s
EOF
start_target --stall-every 150 --stall-ms 1000
run_volley open -s "$S/one.lua" -R 100 -d 3s -c 20 -t 1 "http://127.0.0.1:$PORT/"
stop_target
check_rate_rc "open: exit status"
flow_adds_up open
start_target --stall-every 150 --stall-ms 1000
run_volley closed -s "$S/one.lua" --iterations 300 -c 20 -t 1 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "closed: exit status"
python3 - "$T/open.json" "$T/closed.json" <<'PY' || fail "open model: the stall is not in the iterations' durations"
import json, sys
o, c = (json.load(open(p)) for p in sys.argv[1:3])
op90 = o["iterations"]["duration"]["p90"] / 1e6   # us -> s
cp90 = c["iterations"]["duration"]["p90"] / 1e6
assert 0.3 <= op90 <= 1.5, ("open p90", op90)
assert cp90 < 1 / 3, ("closed p90", cp90)
assert o["rate"]["sent"] + o["rate"]["unsent"] == 300, o["rate"]
assert o["iterations"]["started"] == o["rate"]["sent"], (o["iterations"], o["rate"])
PY
ok

# 5. Data files in a flow: per_iteration rows used exactly once over 2
# threads x 3 shards (each shard its own process, --iterations 600 split
# 200 a shard), from the server's log; per_user rows stable per user.
python3 -c 'print("id"); [print("row%d" % i) for i in range(600)]' > "$T/ids.csv"
cat > "$S/rows.lua" <<EOF
local s = {}
s.data = volley.data.csv("$T/ids.csv", { mode = "per_iteration" })
function s.user(u) u:get("/rows/" .. u.data.id) end
return s
EOF
start_target --log "$T/rows.log"
pids=()
for i in 0 1 2; do
    timeout -s KILL 60 "$VOLLEY" -s "$S/rows.lua" -t 2 -c 6 --iterations 600 --shard "$i/3" --json "$T/rows$i.json" \
        "http://127.0.0.1:$PORT/" > /dev/null 2> "$T/rows$i.err" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "rows: a shard failed: $(cat "$T"/rows*.err)"; done
stop_target
check_eq "$(awk '{ print $3 }' "$T/rows.log" | sort -u | wc -l)" 600 "per_iteration: 600 distinct rows"
check_eq "$(wc -l < "$T/rows.log")" 600 "per_iteration: each row once"
cat > "$S/peruser.lua" <<EOF
local s = {}
s.data = volley.data.csv("$T/ids.csv")
function s.user(u) u:get("/u/" .. u.id .. "/" .. u.data.id) end
return s
EOF
start_target --log "$T/peruser.log"
run_volley peruser -s "$S/peruser.lua" -t 2 -c 4 --iterations 40 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "per_user: exit status"
# user k (1-based) gets data row k, named row(k - 1), every iteration
check_eq "$(awk '{ split($3, a, "/"); if ("row" (a[3] - 1) != a[4]) bad++ } END { print bad + 0 }' "$T/peruser.log")" 0 \
    "per_user: each user's row is its own"
check_eq "$(awk '{ print $3 }' "$T/peruser.log" | sort -u | wc -l)" 4 "per_user: 4 users, 4 rows"

# 6. u:batch over HTTP/1.1: a batch goes out on the user's connection and
# up to 5 more of its own (6, as browsers), kept open between batches: 2
# users x 2 iterations of 8 requests make 32 requests on exactly 12
# connections (the server's log numbers them); responses in order; a
# failure, a timeout and a failed check inside a batch come back in their
# places; a response of a batch goes stale at the user's next request.
cat > "$S/batch.lua" <<'EOF'
local s = {}
function s.user(u)
  local rs = u:batch{ "/delay/20", "/delay/20", { path = "/status/404", name = "nf" }, "/delay/20",
                      "/delay/20", "/delay/20", "/json/items/1", { path = "/delay/20", name = "last" } }
  u:check(#rs == 8 and rs[3].status == 404 and rs[7]:json().items[1].id == 1, "in order")
  u:check(rs[1].body == "hello world" and rs[8].body == "hello world", "bodies")
  local one = u:get("/")
  u:check(not pcall(function() return rs[1].status end), "stale after the next request")
end
return s
EOF
start_target --log "$T/batch.log"
run_volley batch -s "$S/batch.lua" -t 1 -c 2 --iterations 4 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "batch: exit status"
flow_adds_up batch
check_eq "$(jget "$T/batch.json" requests.completed)" 36 "batch: 8 + 1 requests an iteration"
check_eq "$(jget "$T/batch.json" checks.failed)" 0 "batch: every check passed"
check_eq "$(jget "$T/batch.json" names.nf.status.404)" 4 "batch: a named request of a batch"
check_eq "$(awk '{ print $1 }' "$T/batch.log" | sort -u | wc -l)" 12 "batch: 6 connections a user, kept between batches"
cat > "$S/batch_fail.lua" <<'EOF'
local s = {}
function s.user(u)
  local rs = u:batch{ "/", "/drop", { path = "/delay/2000", timeout = 0.05 },
                      { path = "/", check = function(r) return false, "nope" end }, "/" }
  u:check(rs[1].status == 200 and rs[5].status == 200, "the others")
  u:check(rs[2].failed and rs[2].reason == "read", "drop")
  u:check(rs[3].failed and rs[3].reason == "timeout", "timeout")
  u:check(rs[4].failed and rs[4].reason == "nope" and rs[4].status == 200, "check")
end
return s
EOF
start_target
run_volley batch_fail -s "$S/batch_fail.lua" -t 1 -c 2 --iterations 4 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "batch failures: exit status"
flow_adds_up batch_fail
check_eq "$(jget "$T/batch_fail.json" checks.failed)" 0 "batch failures: each in its place"
check_eq "$(jget "$T/batch_fail.json" errors.timeout)" 4 "batch failures: the timeouts counted"

# 7. --stages without -R moves the number of users: up to 4, held, back to
# 0; every user of the peak came, each request its own user's, and the
# iterations add up (users leave between iterations).
cat > "$S/stages.lua" <<'EOF'
local s = {}
function s.user(u)
  u:get("/u/" .. u.id)
  u:sleep("20ms")
end
return s
EOF
start_target --log "$T/stages.log"
run_volley stages -s "$S/stages.lua" -t 1 --stages 300ms:1,300ms:4,300ms:4,300ms:0 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "stages: exit status"
flow_adds_up stages
check_eq "$(awk '{ print $3 }' "$T/stages.log" | sort -u | tr '\n' ' ')" "/u/1 /u/2 /u/3 /u/4 " "stages: users 1..4 came"
check_eq "$(jget "$T/stages.json" requests.failed)" 0 "stages: nothing failed"

# 8. -R with --stages moves the rate of iterations: every iteration the
# curve asked for was started on the schedule or counted as never started.
start_target
run_volley rstages -s "$S/one.lua" -R 0 --stages 500ms:100,500ms:100 -c 10 -t 1 "http://127.0.0.1:$PORT/"
stop_target
check_rate_rc "-R --stages: exit status"
flow_adds_up rstages
python3 - "$T/rstages.json" <<'PY' || fail "-R --stages: the iterations against the curve"
import json, sys
r = json.load(open(sys.argv[1]))
# the curve: 0 -> 100/s over 0.5 s (25 arrivals), then 100/s for 0.5 s (50)
assert r["rate"]["sent"] + r["rate"]["unsent"] == 75, r["rate"]
assert r["iterations"]["started"] == r["rate"]["sent"], (r["iterations"], r["rate"])
PY
ok

# 4. Mistakes: one line each, exit 2, nothing sent.
cat > "$S/both.lua" <<'EOF'
return { user = function(u) end, request = function() return wrk.format() end }
EOF
start_target
RC=0
"$VOLLEY" -s "$S/both.lua" -n 1 "http://127.0.0.1:$PORT/" > "$T/both.out" 2> "$T/both.err" || RC=$?
check_eq "$RC" 2 "both: exit status"
check_grep "$T/both.err" "defines both user\(\) and request\(\): choose one" "both: the message"
RC=0
"$VOLLEY" -s "$S/one.lua" -n 5 "http://127.0.0.1:$PORT/" > /dev/null 2> "$T/n.err" || RC=$?
check_eq "$RC" 2 "-n with a flow: exit status"
check_grep "$T/n.err" "^volley: -n: counts requests; a flow \(user\(u\)\) is bounded by --iterations or -d$" "-n with a flow: the message"
cat > "$S/plain.lua" <<'EOF'
return { request = function() return wrk.format() end }
EOF
RC=0
"$VOLLEY" -s "$S/plain.lua" --iterations 5 "http://127.0.0.1:$PORT/" > /dev/null 2> "$T/it.err" || RC=$?
check_eq "$RC" 2 "--iterations without a flow: exit status"
check_grep "$T/it.err" "^volley: --iterations: the script defines no user\(u\)" "--iterations without a flow: the message"
cat > "$S/badopt.lua" <<'EOF'
return { user = function(u) u:get("/", { nmae = "x" }) end }
EOF
run_volley badopt -s "$S/badopt.lua" --iterations 2 -c 1 "http://127.0.0.1:$PORT/"
check_eq "$RC" 1 "a bad option in every iteration: no response, exit 1"
check_grep "$T/badopt.out" "failed: .*badopt.lua:1: u:get: unknown option \"nmae\" \(did you mean \"name\"\?\) \(2\)" "bad option: the reason names the option"
check_eq "$(target_stat received)" 0 "mistakes: nothing was sent"
stop_target

finish
