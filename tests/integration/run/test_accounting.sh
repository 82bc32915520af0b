# Exact accounting with -n: every request started ends in one bucket, and the
# client's counts agree with what the server received and answered.
source "$TESTLIB"

start_target
run_volley plain -n 5000 -c 20 -t 2 "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "plain: exit status"
check_adds_up plain
check_eq "$(jget "$T/plain.json" requests.started)" 5000 "plain: started"
check_eq "$(jget "$T/plain.json" requests.completed)" 5000 "plain: completed"
check_eq "$(jget "$T/plain.json" status.200)" 5000 "plain: status 200"
check_eq "$(jget "$T/plain.json" connections_opened)" 20 "plain: keep-alive reuses the 20 connections"
check_eq "$(target_stat received)" 5000 "plain: server received"
check_eq "$(target_stat answered)" 5000 "plain: server answered"
check_grep "$T/plain.out" "^  5000 requests in [0-9.]+s, " "plain: wrk's requests line"
check_grep "$T/plain.out" "^Requests/sec: +[0-9.]+$" "plain: Requests/sec line"
check_grep "$T/plain.out" "^Transfer/sec: +[0-9.]+[KMG]?B$" "plain: Transfer/sec line"
stop_target

# -n smaller than -c: only n requests, never more.
start_target
run_volley few -n 7 -c 20 -t 2 "http://127.0.0.1:$PORT/"
check_adds_up few
check_eq "$(jget "$T/few.json" requests.completed)" 7 "few: completed"
check_eq "$(target_stat received)" 7 "few: server received"
stop_target

# The server closes every 3rd response: reconnects, not errors.
start_target
run_volley close3 -n 3000 -c 10 -t 2 "http://127.0.0.1:$PORT/close/3"
check_adds_up close3
check_eq "$(jget "$T/close3.json" requests.completed)" 3000 "close3: completed"
check_eq "$(jget "$T/close3.json" requests.failed)" 0 "close3: failed"
# Each connection is closed after its 3rd, 6th, ... response; a connection's
# last group may be short, so 1000 plus at most one per connection.
conns=$(jget "$T/close3.json" connections_opened)
[ "$conns" -ge 1000 ] && [ "$conns" -le 1010 ] && ok || fail "close3: $conns connections for 3000 requests"
check_eq "$(target_stat received)" 3000 "close3: server received"
stop_target

# A mix of outcomes: timeouts on a server that never answers.
start_target
run_volley never -n 20 -c 5 --timeout 200ms "http://127.0.0.1:$PORT/never"
check_adds_up never
check_eq "$(jget "$T/never.json" errors.timeout)" 20 "never: timeouts"
check_eq "$(jget "$T/never.json" requests.completed)" 0 "never: completed"
check_eq "$(target_stat received)" 20 "never: server received"
check_grep "$T/never.out" "^  Failed requests: 20 \(connect 0, read 0, write 0, timeout 20, parse 0, validation 0\)$" "never: Failed line"
# Nothing completed: no latency figures at all (zeros would read as a fast
# server), one line that says so, null figures in the JSON, and status 1
# with the reason on stderr.
check_no_response never "never" "20 requests failed: timeout 20"
check_grep "$T/never.out" "^  No response completed: there are no latency figures$" "never: said in the report"
check_eq "$(grep -cE 'Latency|p50|mean|stdev' "$T/never.out")" 0 "never: no latency figures in the report"
check_eq "$(jget "$T/never.json" latency.count)/$(jget "$T/never.json" latency.p50)/$(jget "$T/never.json" latency.min)/$(jget "$T/never.json" latency.max)/$(jget "$T/never.json" waiting.mean)" \
    0/null/null/null/null "never: JSON figures null"
check_eq "$(jget "$T/never.json" requests_per_sec)" 0.0 "never: JSON request rate"
# -R: the latency histogram would hold the timeouts alone; the rate line
# keeps its words but no send lag figures. 1 wins over -R's 3.
run_volley never_rate -n 20 -c 2 -t 1 -R 100 --timeout 200ms "http://127.0.0.1:$PORT/never"
check_no_response never_rate "never, -R" "20 requests failed: timeout 20"
check_eq "$(grep -cE 'Latency|Service|Send lag|p50' "$T/never_rate.out")" 0 "never, -R: no timing lines"
check_grep "$T/never_rate.out" "^  Target rate NOT met: [0-9.]+/s of 100/s \(more connections \(-c\) or a faster server are needed\)$" \
    "never, -R: the rate line without send lag figures"
check_eq "$(jget "$T/never_rate.json" latency.count)" 20 "never, -R: the JSON keeps the timeouts in latency"
stop_target

# Each request is timed from its own start: 200 ms requests in a row on one
# connection never hit a 500 ms timeout, although the run is much longer.
start_target
run_volley deadline_each -n 12 -c 1 -t 1 --timeout 500ms "http://127.0.0.1:$PORT/delay/200"
check_adds_up deadline_each
check_eq "$(jget "$T/deadline_each.json" requests.completed)" 12 "per-request timeout: completed"
check_eq "$(jget "$T/deadline_each.json" errors.timeout)" 0 "per-request timeout: no false timeouts"
stop_target

# A server that closes without answering: read errors, each request once.
start_target
run_volley drop -n 50 -c 5 "http://127.0.0.1:$PORT/drop"
check_adds_up drop
check_eq "$(jget "$T/drop.json" errors.read)" 50 "drop: read errors"
check_eq "$(target_stat received)" 50 "drop: server received"
stop_target

# A slow server: each request waits 50 ms; the number completed is exact.
start_target
run_volley slow -n 40 -c 10 "http://127.0.0.1:$PORT/delay/50"
check_adds_up slow
check_eq "$(jget "$T/slow.json" requests.completed)" 40 "slow: completed"
python3 -c "import json,sys; r=json.load(open('$T/slow.json')); sys.exit(0 if r['latency']['min'] >= 50000 else 1)" \
    && ok || fail "slow: latency min below the server's 50 ms delay"
stop_target

finish
