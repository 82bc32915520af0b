# What a script's verdicts do to streams, counted against the server: the
# event() hook ending a stream ("close": completed, counted as closed, the
# connection closed over HTTP/1.1 and the stream cancelled over HTTP/2, the
# run going on), failing it (false, "reason": a validation failure with
# that reason, exactly as many), raising (the run stops with the script's
# file:line, exit 1, no hang), misusing ev (read after its call, a bad
# ev.tokens, an unknown field: errors naming the script's line); a request
# table's stream = true on a body that is not SSE (read line by line); and
# a flow's stream functions, alone and in a batch, over HTTP/1.1 and HTTP/2.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"
source "$(dirname "$TESTLIB")/stream_lib.sh"
cd "$T" # scripts by their names: messages name them so

# wait_stat KEY VALUE: polls the target's /__stats until KEY is VALUE (the
# server sees a client go when its loop reads the EOF), at most 10 s.
wait_stat() {
    local i
    for i in $(seq 1 100); do
        [ "$(target_stat "$1")" = "$2" ] && return 0
        sleep 0.1
    done
}

LONG='"max_tokens":30,"vt_gap_ms":5'

# 1. "close" after 3 events, HTTP/1.1: 20 streams completed with 3 events
#    each (the first three the server wrote), each on a connection of its
#    own (the client closed the last), every one seen going by the server.
start_target --llm-log "$T/close.truth" --stats-file "$T/close.stats"
STREAM_CLOSE_AT=3 run_stream close "$LONG" -n 20 -c 2 -t 1 "http://127.0.0.1:$PORT/"
wait_stat llm_cut 20
stop_wait "$TPID"
check_eq "$RC" 0 "close: exit status ($(tail -n 2 "$T/close.err"))"
check_eq "$(jget "$T/close.json" requests.completed)" 20 "close: streams completed"
check_eq "$(jget "$T/close.json" errors.validation)" 0 "close: none failed"
check_eq "$(counter close events)" 60 "close: 3 events each"
check_eq "$(counter close res_events)" 60 "close: res.events"
check_stream close "$T/close.truth" --prefix --requests 20
check_eq "$CHECKED_EVENTS" 60 "close: events matched to the truth log"
check_eq "$(awk '$1 == "q" { print $3 }' "$T/close.truth" | sort -u | wc -l)" 20 "close: a connection per stream"
check_eq "$(grep -c ' client-gone$' "$T/close.truth")" 20 "close: the server saw the client go, every time"
check_grep "$T/close.stats" '"llm_streams":20,"llm_done":0,.*"llm_cut":20' "close: the server's counters"
check_json_stream close closed 20 "close: JSON stream.closed"
check_json_stream close events 60 "close: JSON stream.events"

# 1b. The same with no gap between the events, so that those after the
#     third come in the same reads: they are neither handed to the hook nor
#     counted (the stream's figures stop at "close").
start_target
STREAM_CLOSE_AT=3 STREAM_KNOBS='"max_tokens":10' run_volley closefast -s "$STREAM_LUA" -n 50 -c 2 -t 1 \
    "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_eq "$RC" 0 "closefast: exit status ($(tail -n 2 "$T/closefast.err"))"
check_eq "$(counter closefast events):$(counter closefast res_events)" 150:150 "closefast: 3 events each"
check_json_stream closefast events 150 "closefast: JSON stream.events"
check_json_stream closefast closed 50 "closefast: JSON stream.closed"

# 2. false, "reason" at the second event: 20 validation failures with that
#    reason, 2 events each; response() not called for them.
start_target --llm-log "$T/fail.truth" --stats-file "$T/fail.stats"
STREAM_FAIL_AT=2 run_stream fail "$LONG" -n 20 -c 2 -t 1 "http://127.0.0.1:$PORT/"
wait_stat llm_cut 20
stop_wait "$TPID"
check_no_response fail "fail" "20 requests failed: validation 20"
check_eq "$(jget "$T/fail.json" errors.validation)" 20 "fail: validation failures"
check_eq "$(jget "$T/fail.json" requests.failed)" 20 "fail: requests failed"
python3 - "$T/fail.json" <<'PY' && ok || fail "fail: the reason, counted 20 times"
import json, sys
r = json.load(open(sys.argv[1]))["failures"]["reasons"]
assert r == [{"reason": "bad event 2", "count": 20}], r
PY
check_eq "$(counter fail events)" 40 "fail: 2 events each"
check_eq "$(counter fail res_events)" 0 "fail: response() not called"
check_eq "$(grep -c ' client-gone$' "$T/fail.truth")" 20 "fail: the server saw the client go"

# 3. A hook that raises (HTTP/1.1, then with 8 streams open on each
#    connection over HTTP/2): the run stops with the script's line, exit 1.
cat > "$T/raise.lua" <<'LUA'
local s = {}
function s.request() return { method = "POST", path = "/v1/chat/completions", body = '{"stream":true,"max_tokens":50,"vt_gap_ms":5}' } end
function s.event(conn, ev)
  if ev.data:find("tok3 ", 1, true) then error("boom at tok3") end
end
return s
LUA
start_target --stats-file "$T/raise.stats"
run_volley raise -n 100 -c 4 -t 2 -s raise.lua "http://127.0.0.1:$PORT/"
check_eq "$RC" 1 "raise: exit status"
check_eq "$(grep -c . "$T/raise.err")" 1 "raise: one line on stderr ($(head -c 300 "$T/raise.err"))"
check_grep "$T/raise.err" '^volley: raise\.lua:4: in event\(\): boom at tok3$' "raise: the script's line"

# 4. ev misused: kept past its call, a bad ev.tokens, an unknown field.
#    Each names the script's own line (ev.tokens once named bridge.lua's).
printf '%s\n' 'local s = {}' \
    'function s.request() return { method = "POST", path = "/v1/chat/completions", body = [[{"stream":true,"max_tokens":3}]] } end' \
    'function s.event(conn, ev) conn.ev = ev end' \
    'function s.response(conn, res) local x = conn.ev.data end' 'return s' > "$T/stale.lua"
run_volley stale -n 10 -c 2 -t 1 -s stale.lua "http://127.0.0.1:$PORT/"
check_eq "$RC:$(cat "$T/stale.err")" "1:volley: stale.lua:4: in response(): ev.data used after its event() call returned: ev is valid only during that call" "ev read after its call"
for v in -1 '"x"' 1.5 2147483648; do
    sed -e 's/conn.ev = ev/ev.tokens = '"$v"'/' -e '/s.response/d' "$T/stale.lua" > "$T/tok.lua"
    run_volley tok -n 10 -c 2 -t 1 -s tok.lua "http://127.0.0.1:$PORT/"
    shown=${v//\"/}
    check_eq "$RC:$(cat "$T/tok.err")" "1:volley: tok.lua:3: in event(): ev.tokens must be a whole number from 0 to 2^31 - 1, not $shown" "ev.tokens = $v"
done
sed -e 's/conn.ev = ev/ev.foo = 1/' -e '/s.response/d' "$T/stale.lua" > "$T/set.lua"
run_volley set -n 10 -c 2 -t 1 -s set.lua "http://127.0.0.1:$PORT/"
check_eq "$RC:$(cat "$T/set.err")" "1:volley: set.lua:3: in event(): ev.foo cannot be set (ev.tokens, ev.total_tokens and ev.prompt_tokens can)" "ev.foo = 1"

# 5. stream = true on a body that is not SSE: /chunked/6400 is 100 lines of
#    64 bytes in chunks of 1000 (lines cut across chunks), read as 100 line
#    events; the same request without it streams nothing.
cat > "$T/lines.lua" <<'LUA'
local s = {}
local n = 0
function s.request()
  n = n + 1
  return { path = "/chunked/6400", stream = n % 2 == 1 }
end
function s.response(conn, res)
  volley.counter(res.events > 0 and "streamed" or "plain")
  volley.counter("events", res.events)
  if res.body ~= "" then volley.counter("bodies") end
end
return s
LUA
run_volley lines -n 20 -c 1 -t 1 -s "$T/lines.lua" "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "stream = true: exit status ($(tail -n 2 "$T/lines.err"))"
check_eq "$(counter lines streamed):$(counter lines plain)" 10:10 "stream = true: streamed and plain responses"
check_eq "$(counter lines events)" 1000 "stream = true: 100 line events each"
check_eq "$(counter lines bodies)" 10 "stream = true: a streamed body is not kept"
check_json_stream lines events 1000 "stream = true: JSON stream.events"
stop_wait "$TPID"

# 6. A flow's stream functions: read whole, closed after 3, failed at the
#    second, raising (a bad ev.tokens), and a batch of four (whole, closed
#    after 2, failed at the first, a chunked body not streamed), over
#    HTTP/1.1 and through nginx over HTTP/2.
cat > "$T/flow.lua" <<'LUA'
local s = {}
local function body(id, n) return { stream = true, max_tokens = n, vt_gap_ms = 2, user = id } end
local P = "/v1/chat/completions"
function s.user(u)
  local id = "u" .. u.id .. "-" .. u.iteration
  local seen = 0
  local r = u:post(P, { json = body(id .. "-a", 5), stream = function(ev) seen = seen + 1 end })
  volley.counter("a_events", r.events)
  volley.counter("a_seen", seen)
  if r.failed then volley.counter("bad") end
  local k = 0
  r = u:post(P, { json = body(id .. "-b", 30), stream = function(ev) k = k + 1; if k == 3 then return "close" end end })
  volley.counter("b_events", r.events)
  if r.failed then volley.counter("bad") end
  k = 0
  r = u:post(P, { json = body(id .. "-c", 30), stream = function(ev) k = k + 1; if k == 2 then return false, "second event" end end })
  volley.counter("c_events", r.events)
  if r.failed and r.reason == "second event" then volley.counter("c_failed") end
  r = u:post(P, { json = body(id .. "-d", 3), stream = function(ev) ev.tokens = -1 end })
  if r.failed then volley.counter("d: " .. r.reason) end
  local b = 0
  local rs = u:batch{
    { method = "POST", path = P, json = body(id .. "-e1", 4), stream = true },
    { method = "POST", path = P, json = body(id .. "-e2", 30), stream = function(ev) b = b + 1; if b == 2 then return "close" end end },
    { method = "POST", path = P, json = body(id .. "-e3", 30), stream = function(ev) return false, "no" end },
    "/chunked/640",
  }
  for i = 1, 4 do volley.counter("e" .. i .. "_events", rs[i].events) end
  if rs[3].failed and rs[3].reason == "no" then volley.counter("e3_failed") end
  if rs[1].failed or rs[2].failed or rs[4].failed then volley.counter("bad") end
end
return s
LUA
# check_flow NAME: 10 iterations of flow.lua
check_flow() {
    check_eq "$RC" 0 "$1: exit status ($(tail -n 2 "$T/$1.err"))"
    python3 - "$T/$1.json" <<'PY' && ok || fail "$1: the flow's counts"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["metrics"]["counters"]
want = {"a_events": 80, "a_seen": 80, "b_events": 30, "c_events": 20, "c_failed": 10,
        "d: flow.lua:19: ev.tokens must be a whole number from 0 to 2^31 - 1, not -1": 10,
        "e1_events": 70, "e2_events": 20, "e3_events": 10, "e3_failed": 10, "e4_events": 0}
assert c == want, c
assert r["requests"]["completed"] == 50 and r["requests"]["failed"] == 30, r["requests"]
assert r["errors"]["validation"] == 30, r["errors"]
PY
}
start_target --llm-log "$T/flow.truth" --stats-file "$T/flow.stats"
run_volley flow --iterations 10 -c 2 -t 1 -s flow.lua "http://127.0.0.1:$PORT/"
check_flow flow
if start_nginx_h2 "location /v1/ { proxy_pass http://127.0.0.1:$PORT; proxy_http_version 1.1; proxy_buffering off; proxy_set_header Connection \"\"; }" \
    "location /chunked/ { proxy_pass http://127.0.0.1:$PORT; proxy_http_version 1.1; proxy_set_header Connection \"\"; }"; then
    run_volley flowh2 --http2=strict --iterations 10 -c 2 -t 1 -s flow.lua "$h2url/"
    check_flow flowh2
    # "close" at the third event with no gap: the stream's later DATA, in
    # the same reads, is not counted
    STREAM_CLOSE_AT=3 STREAM_KNOBS='"max_tokens":200' run_volley closefasth2 -s "$STREAM_LUA" \
        --http2=strict --streams 8 -n 100 -c 2 -t 2 "$h2url/"
    check_eq "$RC" 0 "closefasth2: exit status ($(tail -n 2 "$T/closefasth2.err"))"
    check_eq "$(counter closefasth2 events):$(counter closefasth2 res_events)" 300:300 "closefasth2: 3 events each"
    check_json_stream closefasth2 events 300 "closefasth2: JSON stream.events"
    check_json_stream closefasth2 closed 100 "closefasth2: JSON stream.closed"
    # the hook that raises, with 8 streams open on each connection
    run_volley raiseh2 --http2=strict --streams 8 -n 100 -c 2 -t 2 -s raise.lua "$h2url/"
    check_eq "$RC" 1 "raise (HTTP/2): exit status"
    check_eq "$(grep -c . "$T/raiseh2.err")" 1 "raise (HTTP/2): one line on stderr ($(head -c 300 "$T/raiseh2.err"))"
    check_grep "$T/raiseh2.err" '^volley: raise\.lua:4: in event\(\): boom at tok3$' "raise (HTTP/2): the script's line"

    stop_wait "$H2_PID"
else
    fail "nginx (HTTP/2 + TLS) did not start"
fi
stop_wait "$TPID"

# 7. "close" over HTTP/2 at the third event of streams of 30 tokens 100 ms
#    apart, 4 at once on one connection: each stream is cancelled, the
#    connection stays (all 20 on one connection of nginx's, each having
#    sent a few of its events, not 30), and the server sees each client go.
start_target --llm-log "$T/closeh2.truth"
rm -f "$T/nginx_h2.access" # the flows' nginx wrote there
if start_nginx_h2 "location /v1/ { proxy_pass http://127.0.0.1:$PORT; proxy_http_version 1.1; proxy_buffering off; proxy_set_header Connection \"\"; }"; then
    STREAM_CLOSE_AT=3 STREAM_KNOBS='"max_tokens":30,"vt_gap_ms":100' run_volley closeh2 -s "$STREAM_LUA" \
        --http2=strict --streams 4 -n 20 -c 1 -t 1 "$h2url/"
    wait_stat llm_cut 20
    check_eq "$(target_stat llm_cut)" 20 "closeh2: the server saw each client go while nginx was up"
    stop_wait "$H2_PID"
    check_eq "$RC" 0 "closeh2: exit status ($(tail -n 2 "$T/closeh2.err"))"
    check_eq "$(jget "$T/closeh2.json" requests.completed)" 20 "closeh2: streams completed"
    check_eq "$(counter closeh2 events)" 60 "closeh2: 3 events each"
    check_eq "$(counter closeh2 res_events)" 60 "closeh2: res.events"
    check_json_stream closeh2 closed 20 "closeh2: JSON stream.closed"
    grep '^HTTP/2.0 POST /v1/chat/completions ' "$T/nginx_h2.access" > "$T/closeh2.access" || true
    check_eq "$(wc -l < "$T/closeh2.access")" 20 "closeh2: nginx's streams"
    check_eq "$(awk '{ print $6 }' "$T/closeh2.access" | sort -u | wc -l)" 1 "closeh2: one HTTP/2 connection for the 20 streams"
    check_eq "$(awk '$5 < 2000' "$T/closeh2.access" | wc -l)" 20 "closeh2: each stream stopped after a few events (of about 5800 bytes)"
else
    fail "nginx (HTTP/2 + TLS) did not start"
fi
stop_wait "$TPID"
check_eq "$(grep -c ' client-gone$' "$T/closeh2.truth")" 20 "closeh2: the truth log's client-gone"

finish
