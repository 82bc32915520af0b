# Does the run add up, and who was the limit? Little's law (busy
# connections), a server that serves only some connections (the warning and
# the per-connection counts), and each worker's CPU share (the warning when
# a thread was nearly always busy agrees with the JSON).
source "$TESTLIB"

jpy() { # jpy NAME EXPR: a Python expression over the run's JSON (as r)
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$T/$1.json"
}

# A server that answers only its first 5 connections (the start-up probe
# is the first): the other connections wait the whole run.
start_target --serve-only 5
run_volley starve -t 2 -c 10 -d 2.5s --timeout 30s "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "starved: exit status"
check_grep "$T/starve.out" '^  Busy connections: [3-4]\.[0-9] of 10 \(requests/s x mean latency\)$' "starved: busy connections"
check_grep "$T/starve.out" '^  Warning: the server served only some connections: .*6 of 10 got no response in the last [0-9.]+s$' \
    "starved: the warning"
check_eq "$(jpy starve 'r["connections"]["warning"], r["connections"]["idle_at_end"], r["connections"]["responses"]["min"]')" \
    "True 6 0" "starved: JSON"
# Most connections starved: the median connection got nothing, so a tenth
# of the median marks none; a tenth of the mean (which the served ones
# reach) marks the 6 (issue 21, item 12).
check_eq "$(jpy starve 'r["connections"]["starved"], r["connections"]["responses"]["median"], r["connections"]["responses"]["sum"] == r["requests"]["completed"]')" \
    "6 0 True" "starved: counted against the mean"
check_grep "$T/starve.out" '^  Warning: the server served only some connections: 6 of 10 got less than a tenth of the mean.s responses \([0-9.]+\); 6 of 10 got no response' \
    "starved: the warning counts them"
stop_target

# Little's law counts every answered request: responses a script fails
# held their connections as long (issue 21, item 11). Every response
# failed: the connections were busy all the same, waiting 20 ms each.
start_target
cat > "$T/reject.lua" <<'LUA'
response = function() return false, "rejected" end
LUA
run_volley reject -t 1 -c 4 -n 200 -s "$T/reject.lua" "http://127.0.0.1:$PORT/delay/20"
check_no_response reject "rejected" "200 requests failed: .*validation 200"
check_eq "$(jpy reject 'r["connections"]["busy"] >= 3, r["connections"]["busy_ns"] == r["connections"]["in_flight_ns"] > 0, r["connections"]["batches"]')" \
    "True True 200" "rejected: busy connections"
check_grep "$T/reject.out" '^  Busy connections: [34]\.[0-9] of 4 \(requests/s x mean latency\)$' "rejected: the line"
# Accepted, the sum of the times on a connection is the latencies' exactly.
run_volley accept -t 1 -c 4 -n 200 "http://127.0.0.1:$PORT/delay/2"
check_eq "$(jpy accept 'r["connections"]["in_flight_ns"] == int(r["latency"]["sum"]) == r["connections"]["busy_ns"], r["connections"]["waiting_ns"], r["connections"]["batch"]')" \
    "True 0 1.0" "accepted: in flight is the latencies' sum"

# wrk's pipeline.lua: three requests in one string, a batch. A connection
# is busy once per batch however many it pipelines: busy connections stay
# within -c, and the requests in flight are more (issue 21, item 11).
cat > "$T/pipeline.lua" <<'LUA'
init = function(args)
  local r = {}
  r[1] = wrk.format(nil, "/delay/5?a")
  r[2] = wrk.format(nil, "/delay/5?b")
  r[3] = wrk.format(nil, "/delay/5?c")
  req = table.concat(r)
end
request = function() return req end
LUA
run_volley pipeline -t 1 -c 4 -n 300 -s "$T/pipeline.lua" "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "pipelined: exit status"
check_eq "$(jpy pipeline 'r["connections"]["batches"], r["connections"]["batch"], r["connections"]["busy"] <= 4, r["connections"]["in_flight"] > r["connections"]["busy"]')" \
    "100 3.0 True True" "pipelined: busy connections within -c"
check_grep "$T/pipeline.out" '^  Busy connections: [0-4]\.[0-9] of 4 \(batches/s x mean batch time\), each batch 3\.0 pipelined requests: [0-9.]+ requests in flight on average$' \
    "pipelined: the line"

# -R beyond what 2 connections serve (20/s each at 50 ms): the arrivals
# queue for a connection. In flight (on a connection) and waiting for one
# are apart, together the latencies' sum (issue 21, item 14).
run_volley queue -t 1 -c 2 -R 200 -d 2s "http://127.0.0.1:$PORT/delay/50"
check_rate_rc "queued: exit status"
check_eq "$(jpy queue 'r["connections"]["in_flight"] <= 2, r["connections"]["waiting"] > 2, r["connections"]["in_flight_ns"] + r["connections"]["waiting_ns"] == int(r["latency"]["sum"])')" \
    "True True True" "queued: in flight and waiting apart"
check_grep "$T/queue.out" '^  In flight: [0-2]\.[0-9] on average on 2 connections, [0-9.]+ more waiting for a free one ' "queued: the line"

# -n below -c: one connection a request, and the report counts those
# (issue 21, item 16).
run_volley few -t 1 -c 10 -n 5 -v "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "-n 5 -c 10: exit status"
check_grep "$T/few.out" '^  1 thread and 5 connections, keep-alive' "-n 5 -c 10: the header"
check_eq "$(jpy few 'r["options"]["connections"], r["connections"]["count"], r["connections"]["responses"]["min"], r["connections"]["starved"]')" \
    "5 5 1 0" "-n 5 -c 10: per connection"
stop_target

# A fair server: every connection busy, no warning.
start_target
run_volley fair -t 2 -c 10 -d 2.5s -v "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "fair: exit status"
check_eq "$(jpy fair 'r["connections"]["warning"], r["connections"]["idle_at_end"], r["connections"]["starved"]')" \
    "False 0 0" "fair: JSON"
check_eq "$(jpy fair 'r["connections"]["busy"] >= 8')" True "fair: busy connections near -c"
if grep -q "Warning: the server served only some" "$T/fair.out"; then fail "fair: a starvation warning"; else ok; fi
check_grep "$T/fair.out" '^  Responses per connection: min [1-9][0-9]*, median [0-9]+, mean [0-9]+\.[0-9], max [0-9]+$' "fair: -v per connection"
# The per-connection responses add up to the completed requests.
check_eq "$(jpy fair 'r["connections"]["responses"]["min"] * 10 <= r["requests"]["completed"] <= r["connections"]["responses"]["max"] * 10')" \
    True "fair: per-connection counts bound the total"

# An idle worker is not volley's limit; a worker busy nearly all the run is
# said to be, exactly when the JSON says so.
run_volley idle -t 2 -c 4 -R 50 -d 4s "http://127.0.0.1:$PORT/"
check_eq "$(jpy idle 'len(r["workers"]), all(0 <= w["busy"] < 0.5 and w["cpu"] >= 0 for w in r["workers"])')" \
    "2 True" "idle: two workers, little CPU"
if grep -q "volley's thread" "$T/idle.out"; then fail "idle: a bottleneck warning"; else ok; fi
cat > "$T/burn.lua" <<'LUA'
request = function()
  local x = 0
  for i = 1, 200000 do x = x + i % 7 end
  return wrk.format(nil, "/" .. (x % 2))
end
LUA
run_volley burn -t 1 -c 2 -d 2.2s -s "$T/burn.lua" "http://127.0.0.1:$PORT/"
busy=$(jpy burn 'r["workers"][0]["busy"] >= 0.9')
if [ "$busy" = True ]; then
    check_grep "$T/burn.out" "^  Warning: volley's thread 0 was busy [0-9]+% of the run: these figures may show volley's limit" \
        "burn: the bottleneck warning"
else
    if grep -q "volley's thread" "$T/burn.out"; then fail "burn: a warning below 90% busy"; else ok; fi
fi
check_eq "$(jpy burn 'r["workers"][0]["busy"] > 0.2')" True "burn: a busy worker's CPU is counted"
# -R: a request() that becomes slow (20 ms of CPU each after 2 s, at 100
# requests/s) makes volley fall behind its schedule: the send lag grows,
# and the report says so; a steady run does not.
cat > "$T/slow_later.lua" <<'LUA'
local start
request = function()
  start = start or os.time()
  if os.time() - start >= 2 then
    local t = os.clock()
    while os.clock() - t < 0.02 do end
  end
  return wrk.format()
end
LUA
run_volley lag -t 1 -c 4 -R 100 -d 5s -s "$T/slow_later.lua" "http://127.0.0.1:$PORT/"
check_eq "$(jpy lag 'r["sendlag_trend"]["grew"], r["sendlag_trend"]["late_p50"] > 4 * r["sendlag_trend"]["early_p50"]')" \
    "True True" "send lag: grew (JSON)"
check_grep "$T/lag.out" '^  Warning: the send lag grew during the run \(p50 [0-9.]+(us|ms|s) in its first quarter, [0-9.]+(ms|s) in its last\)' \
    "send lag: the warning"
check_eq "$(jpy idle 'r["sendlag_trend"]["grew"]')" False "send lag: a steady run did not grow"
stop_target
finish
