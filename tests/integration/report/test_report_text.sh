#!/usr/bin/env bash
# volley report RESULT.json re-prints a saved run: its text report byte for
# byte as the run printed it (stdout), the same stderr lines and exit
# status, and with --json the same JSON byte for byte, for every kind of
# run whose report has its own lines: -L and -v, thresholds (one fails),
# -R (service, send lag, rate not met), metrics and more failure reasons
# than either report lists, named requests (their table, a threshold on a
# name), https, a server that starves connections, an interrupted run,
# --targets. Then --threshold instead of the saved thresholds, -q,
# --json -, and files edited into nonsense: exit 1 naming the field.
source "${TESTLIB:?}"
source "$(dirname "$TESTLIB")/tls_lib.sh"

# same NAME WHAT: run NAME (run_volley'd) reported again is the same.
same() {
    local n=$1 what=$2 rc=0
    timeout -s KILL 30 "$VOLLEY" report "$T/$n.json" > "$T/$n.r.out" 2> "$T/$n.r.err" || rc=$?
    check_eq "$rc" "$RC" "$what: exit status as the run's"
    if cmp -s "$T/$n.out" "$T/$n.r.out"; then ok; else fail "$what: text report differs: $(diff "$T/$n.out" "$T/$n.r.out" | head -6)"; fi
    if cmp -s "$T/$n.err" "$T/$n.r.err"; then ok; else fail "$what: stderr differs: $(diff "$T/$n.err" "$T/$n.r.err" | head -6)"; fi
    rc=0
    timeout -s KILL 30 "$VOLLEY" report "$T/$n.json" -q --json "$T/$n.r.json" > "$T/$n.q.out" 2> /dev/null || rc=$?
    check_eq "$rc" "$RC" "$what: --json: exit status"
    check_eq "$(wc -c < "$T/$n.q.out")" 0 "$what: -q prints no report"
    if cmp -s "$T/$n.json" "$T/$n.r.json"; then ok; else fail "$what: JSON differs: $(diff "$T/$n.json" "$T/$n.r.json" | head -6)"; fi
}

start_target
U="http://127.0.0.1:$PORT"

# 1. Closed loop with -L -v and two thresholds, one failing: exit 99.
run_volley closed -c 6 -t 2 -n 3000 -L -v --threshold 'p99 < 10s' --threshold 'errors > 0' "$U/"
check_eq "$RC" 99 "closed: the run exits 99"
same closed "closed -L -v"

# 2. -R: latency, service, send lag, In flight; and a rate that cannot be
# met (one connection, a server that takes 20 ms): exit 3.
# (Its own exit status may be 3 on a loaded machine; same() holds the
# report to whichever it was.)
run_volley open -c 4 -R 400 -d 2s -v --threshold 'service.p99 < 5s' "$U/"
same open "-R"
run_volley missed -c 1 -t 1 -R 200 -d 2s "$U/delay/20"
check_eq "$RC" 3 "-R missed: the run exits 3"
same missed "-R missed"

# 3. A script's counters and records (interleaved names) and 25 reasons of
# validation failures: the text lists 5, the JSON 20, the rest summed.
cat > "$T/m.lua" <<'LUA'
local n = 0
function response(status, headers, body)
    n = n + 1
    volley.counter("hits", 1)
    volley.record("size", #body + n % 7)
    volley.counter("half", 0.5)
    if n % 3 == 0 then return false, "wrong " .. (n % 25) end
end
LUA
run_volley script -c 4 -n 1500 -s "$T/m.lua" "$U/"
check_grep "$T/script.out" "validation: .* other reasons" "script: reasons past the listed ones"
same script "metrics and reasons"

# 3b. Named requests under -R (a login per connection, items, a name's own
# validation failures by reason), with a threshold on a name.
cat > "$T/n.lua" <<'LUA'
local s = {}
function s.request(conn)
  if not conn.token then return { method = "POST", path = "/login", name = "login" } end
  conn.n = (conn.n or 0) + 1
  return { path = conn.n % 5 == 0 and "/status/404" or "/items/" .. conn.n, name = "item" }
end
function s.response(conn, res)
  if not conn.token then
    conn.token = res.body:match('"token":"([^"]+)"')
  elseif res.status == 404 and conn.n % 10 == 0 then
    return false, "gone " .. conn.n % 3
  end
end
return s
LUA
run_volley named -c 4 -R 500 -d 2s -s "$T/n.lua" --threshold 'latency{name="item"}.p99 < 10s' \
    --threshold 'failures{reason="gone 1",name="item"} < 1' "$U/"
check_grep "$T/named.out" "^  Names +requests" "named: the names table"
same named "named requests"

# 4. A server that answers only 2 of 4 connections: the starvation warning.
start_target --serve-only 2
run_volley starved -c 4 -t 1 -d 3s --timeout 1s "http://127.0.0.1:$PORT/"
check_grep "$T/starved.out" "Warning: the server served only some connections" "starved: the warning"
same starved "starvation"

# 5. An interrupted run (SIGINT after a second): cut off requests.
RC=0
timeout -s KILL 30 "$VOLLEY" --json "$T/int.json" -c 4 -d 20s "$U/delay/5" > "$T/int.out" 2> "$T/int.err" &
vpid=$!
sleep 1.5
kill -INT "$vpid"
wait "$vpid" || RC=$?
check_grep "$T/int.out" "when the run was interrupted" "interrupted: the cut off line"
same int "interrupted"

# 6. https, with -v (the handshake line).
start_tls_target
run_volley tls -c 2 -n 200 -v "https://127.0.0.1:$PORT/"
check_eq "$RC" 0 "https: the run exits 0"
same tls "https"

# 7. --targets: the header line names the file, the count and the order;
# the JSON's options.targets is read back.
start_target
U="http://127.0.0.1:$PORT"
printf 'GET %s/a\n\nPOST %s/b\nX-A: 1\n' "$U" "$U" > "$T/t.txt"
run_volley targets -c 2 -n 100 --targets "$T/t.txt" --targets-order random
check_grep "$T/targets.out" "^Running 100 requests @ $U \(2 targets from $T/t.txt, random order\)$" "--targets: the header"
same targets "--targets"

# 8. --threshold judges other thresholds: the report's block shows them.
rc=0
"$VOLLEY" report "$T/closed.json" --threshold 'p50 < 10s' > "$T/other.out" 2> "$T/other.err" || rc=$?
check_eq "$rc" 0 "--threshold instead: exit 0"
check_grep "$T/other.out" '^  --threshold  p50 < 10s +[0-9.]+[mu]?s +pass$' "--threshold instead: its line"
if grep -q 'errors > 0' "$T/other.out"; then fail "--threshold instead: a saved threshold is still shown"; else ok; fi
rc=0
"$VOLLEY" report "$T/closed.json" --json - > "$T/dash.json" 2> /dev/null || rc=$?
check_eq "$rc" 99 "--json -: exit status"
if cmp -s "$T/closed.json" "$T/dash.json"; then ok; else fail "--json -: not the JSON alone on stdout"; fi

# 9. Files edited into nonsense: one line naming the field, exit 1.
edit() { # NAME PYTHON: $T/NAME.json from closed.json changed by PYTHON (on r)
    python3 - "$T/closed.json" "$T/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
}
bad() { # NAME PATTERN
    local rc=0
    "$VOLLEY" report "$T/$1.json" > /dev/null 2> "$T/$1.err" || rc=$?
    check_eq "$rc" 1 "$1: exit status"
    check_grep "$T/$1.err" "^volley report: $T/$1.json: $2" "$1: the message"
}
edit sum 'r["latency"]["sum"] = "12a"'
bad sum 'latency.sum: expected a string of at most 38 decimal digits$'
edit bigsum 'r["latency"]["sum"] = "9" * 39'
bad bigsum 'latency.sum: expected a string of at most 38 decimal digits$'
edit minmax 'r["latency"]["min"] = 5e12'
bad minmax 'latency.min: '
edit addr 'r["target"]["address"] = "nowhere"'
bad addr 'target.address: expected ADDRESS:PORT'
edit url 'r["target"]["url"] = "ftp://x/"'
bad url 'target.url: '
edit conns 'r["options"]["connections"] = 0'
bad conns 'options.connections: expected a whole number from 1'
edit torder 'r["options"]["targets"] = {"file": "t.txt", "count": 2, "order": "sideways"}'
bad torder 'options.targets.order: expected "round-robin" or "random"$'
edit tcount 'r["options"]["targets"] = {"file": "t.txt", "count": 0, "order": "random"}'
bad tcount 'options.targets.count: expected a whole number from 1'
edit order 'r["metrics"]["order"] = ["nope"]'
bad order 'metrics.order: item 0: not the name of a counter or a record$'
edit thexpr 'r["thresholds"][0]["expr"] = "p99 <"'
bad thexpr 'thresholds: --threshold "p99 <"'
edit point 'r["series"]["points"][0]["latency"]["p50"] = -1'
bad point 'series.points\[0\].latency.p50: expected microseconds'
edit worker 'r["workers"][0] = 3'
bad worker 'workers\[0\]: expected an object$'
cp "$T/named.json" "$T/closed.json" # the edits below change a named run
edit namesum 'r["names"]["item"]["latency"]["sum"] = "x"'
bad namesum 'names.item.latency.sum: expected a string of at most 38 decimal digits$'
edit namestatus 'r["names"]["login"]["status"]["2000"] = 1'
bad namestatus 'names.login.status.2000: not a status code$'

finish
