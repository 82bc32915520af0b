# Lua scripts, the hooks around a request: response(status, headers, body)
# and response(conn, res) with validation failures by reason, connect(conn)
# and the conn table, --max-body, done() with its stats objects.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"

scripts_setup

# wrk style: status, the headers table and the body reach response(); false
# and a reason fail the request under that reason.
cat > "$S/wrkres.lua" <<'LUA'
function response(status, headers, body)
  if status ~= 200 then return false, "status " .. status end
  if headers["Content-Type"] ~= "text/plain" then return false, "Content-Type " .. tostring(headers["Content-Type"]) end
  if headers["Content-Length"] ~= tostring(#body) then return false, "Content-Length" end
  if not body:match("^GET /echo HTTP/1%.1\r\n") then return false, "request line" end
  if not body:match("\r\nX%-Mark: m1\r\n") then return false, "header" end
  return false, "echo seen"
end
LUA
runv wrkres -n 20 -c 2 -t 2 -H "X-Mark: m1" -s "$S/wrkres.lua" "$url/echo"
check_no_response wrkres "wrk response()" "20 requests failed: validation 20"
adds_up wrkres
check_eq "$(jv wrkres requests.completed)/$(jv wrkres requests.failed)/$(jv wrkres errors.validation)" 0/20/20 \
    "wrk response(): false fails the request"
check_eq "$(jv wrkres failures.reasons.0.reason)/$(jv wrkres failures.reasons.0.count)" "echo seen/20" \
    "wrk response(): the reason (status, headers and body as expected)"
check_grep "$T/wrkres.out" "^  Failed requests: 20 \(.*validation 20\)$" "wrk response(): Failed line"
check_grep "$T/wrkres.out" "^    validation: echo seen \(20\)$" "wrk response(): reason line"
check_eq "$(jv wrkres status.200)" 20 "wrk response(): failed responses keep their status (JSON)"
check_grep "$T/wrkres.out" "^  Status 200: 20$" "wrk response(): failed responses keep their status (text)"

# Only false fails: wrk ignores what else response() returns; false without
# a reason gets a reason of its own.
cat > "$S/wrkret.lua" <<'LUA'
local n = 0
function response(status)
  n = n + 1
  if n % 2 == 0 then return false end
  return 42
end
LUA
runv wrkret -n 20 -c 1 -t 1 -s "$S/wrkret.lua" "$url/"
check_eq "$RC" 0 "wrk response() return values: exit status"
adds_up wrkret
check_eq "$(jv wrkret requests.completed)/$(jv wrkret errors.validation)" 10/10 "wrk response(): only false fails"
check_eq "$(jv wrkret failures.reasons.0.reason)" "response() returned false" "wrk response(): false without a reason"

# A response a script fails still counts under the status the server
# answered (Status line, JSON status, Non-2xx line); the failure is counted
# apart, as validation. Every other request asks for a 404, which fails.
cat > "$S/fail404.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  return { path = conn.n % 2 == 0 and "/status/404" or "/" }
end
function s.response(conn, res)
  if res.status == 404 then return false, "not found" end
end
return s
LUA
runv fail404 -n 20 -c 1 -t 1 -s "$S/fail404.lua" "$url/"
check_eq "$RC" 0 "failed 404s: exit status"
adds_up fail404
check_eq "$(jv fail404 requests.completed)/$(jv fail404 errors.validation)" 10/10 "failed 404s: completed and failed"
check_eq "$(jv fail404 status.200)/$(jv fail404 status.404)" 10/10 "failed 404s: JSON status counts every response"
check_grep "$T/fail404.out" "^  10 requests in " "failed 404s: completed requests line"
check_grep "$T/fail404.out" "^  Status 200: 10  404: 10$" "failed 404s: Status line counts every response"
check_grep "$T/fail404.out" "^  Failed requests: 10 \(.*validation 10\)$" "failed 404s: Failed requests line"
check_grep "$T/fail404.out" "^  Non-2xx or 3xx responses: 10$" "failed 404s: Non-2xx line counts the failed 404s"

# Scenario: connect(conn) once per new connection, with keep-alive (/close/3
# makes the server close every third response) and without; conn.id is
# 1..-c over all threads, conn.thread the thread (1..-t); conn.requests counts
# the connection's responses; what the script keeps in conn stays for the
# connection's life, and a new connection gets a new table.
cat > "$S/conns.lua" <<'LUA'
local s = {}
function s.connect(conn)
  volley.counter("connects")
  volley.counter(("conn %d thread %d"):format(conn.id, conn.thread))
  if conn.thread ~= volley.thread then error("conn.thread is not volley.thread") end
  if conn.requests ~= 0 then error("new conn: requests " .. tostring(conn.requests)) end
  if conn.mine ~= nil then error("new conn: an old table") end
  conn.mine = 0
end
function s.request(conn)
  if conn.mine ~= conn.requests then
    error(("conn.mine %s, conn.requests %s"):format(tostring(conn.mine), tostring(conn.requests)))
  end
  conn.mine = conn.mine + 1
end
function s.response(conn, res)
  -- This response is not counted in conn.requests yet.
  if conn.requests ~= conn.mine - 1 then return false, "conn.requests in response()" end
  volley.counter("responses")
  volley.record("per conn", conn.requests + 1)
  -- res.connect: the connect time on a connection's first response only.
  if res.connect > 0 then volley.counter("with connect time") end
  if res.waiting < 0 or res.latency < res.waiting then return false, "res.waiting" end
end
return s
LUA
runv conns_ka -n 60 -c 5 -t 2 -s "$S/conns.lua" "$url/close/3"
check_eq "$RC" 0 "connect(): exit status"
adds_up conns_ka
check_eq "$(jv conns_ka requests.completed)" 60 "connect(): completed"
check_ge "$(jv conns_ka connections_opened)" 20 "connect(): /close/3 reopens connections"
check_eq "$(jv conns_ka metrics.counters.connects)" "$(jv conns_ka connections_opened)" "connect(): once per connection (keep-alive)"
check_eq "$(jv conns_ka metrics.counters.responses)" 60 "connect(): response() per response"
check_eq "$(jv conns_ka metrics.counters.with\ connect\ time)" "$(jv conns_ka connections_opened)" "res.connect: once per connection"
# No connection outlives 3 responses.
check_eq "$(jv conns_ka metrics.records.per\ conn.max)" 3 "conn.requests: at most 3 per connection"
check_eq "$(jv conns_ka metrics.records.per\ conn.min)" 1 "conn.requests: from 1 in a new connection"
# -c 5 -t 2: thread 1 has conns 1-3, thread 2 conns 4-5, each opened at least once.
check_eq "$(grep -oE '^metrics\.counters\.conn [0-9]+ thread [0-9]+' "$T/conns_ka.flat" | sed 's/^metrics.counters.//' | sort | tr '\n' ',')" \
    "conn 1 thread 1,conn 2 thread 1,conn 3 thread 1,conn 4 thread 2,conn 5 thread 2," "conn.id and conn.thread"
runv conns_nka -n 40 -c 4 -t 2 --no-keepalive -s "$S/conns.lua" "$url/"
check_eq "$RC" 0 "connect() --no-keepalive: exit status"
adds_up conns_nka
check_eq "$(jv conns_nka connections_opened)" 40 "--no-keepalive: a connection per request"
check_eq "$(jv conns_nka metrics.counters.connects)" 40 "connect() --no-keepalive: once per connection"
check_eq "$(jv conns_nka metrics.records.per\ conn.max)" 1 "conn.requests --no-keepalive: one per connection"
runv conns_keep -n 40 -c 4 -t 2 -s "$S/conns.lua" "$url/"
check_eq "$(jv conns_keep metrics.counters.connects)/$(jv conns_keep connections_opened)" 4/4 "connect() keep-alive: once per connection"
check_eq "$(jv conns_keep metrics.records.per\ conn.count)" 40 "conn table kept across requests"

# response(conn, res): status, headers (any case), the body of each kind of
# response framing, bytes and latency.
cat > "$S/res.lua" <<'LUA'
local PAT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n"
local function pattern(n) return PAT:rep(math.ceil(n / 64)):sub(1, n) end
local s = {}
local kind, n
function s.init(args) kind, n = args[1], tonumber(args[2]) end
function s.response(conn, res)
  if res.status ~= 200 then return false, "status " .. tostring(res.status) end
  if type(res.bytes) ~= "number" or res.bytes <= #res.body then return false, "res.bytes" end
  if type(res.latency) ~= "number" or res.latency < 0 then return false, "res.latency" end
  local h = res.headers
  if kind == "chunked" then
    if h["Transfer-Encoding"] ~= "chunked" or h["transfer-encoding"] ~= "chunked" or h["TRANSFER-ENCODING"] ~= "chunked" then
      return false, "Transfer-Encoding"
    end
    if #res.body ~= n then return false, "chunked body length " .. #res.body end
    if res.body ~= pattern(n) then return false, "chunked body" end
  elseif kind == "bytes" then
    if h["content-length"] ~= tostring(n) then return false, "Content-Length" end
    if res.body ~= pattern(n) then return false, "body" end
  elseif kind == "hello" then
    if res.body ~= "hello world" then return false, "body " .. res.body end
    if h["Content-Type"] ~= "text/plain" then return false, "Content-Type" end
  end
  volley.counter("checked")
  volley.record("bytes", res.bytes)
end
return s
LUA
for run in "chunked chunked/2500 2500" "chunked chunked/150000 150000" "bytes bytes/3000 3000" \
    "bytes bytes/100000 100000" "hello http10" "hello continue"; do
    set -- $run
    name="res_${2//\//_}"
    runv "$name" -n 10 -c 2 -t 2 -s "$S/res.lua" "$url/$2" -- "$1" "${3:-0}"
    check_eq "$RC" 0 "res /$2: exit status"
    adds_up "$name"
    check_eq "$(jv "$name" metrics.counters.checked)/$(jv "$name" requests.failed)" 10/0 "res /$2: $(jv "$name" failures.reasons.0.reason)"
done
# res.bytes: all the response's bytes, the 100 Continue's included.
check_eq "$(jv res_continue metrics.records.bytes.min)" 101 "res /continue: res.bytes"
check_eq "$(jv res_http10 connections_opened)" 10 "res /http10: read until close"

# Validation failures by reason, from 2 threads, merged: 120 responses on
# one connection per thread, 12 reasons with unequal counts.
cat > "$S/reasons.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  local i = conn.requests -- 0..59 on each connection
  if i < 20 then return false, "top" end
  if i < 30 then return false, "second" end
  if i < 33 then return false, "thread " .. conn.thread end
  return false, "r" .. (i % 9)
end
return s
LUA
runv reasons -n 120 -c 2 -t 2 -s "$S/reasons.lua" "$url/"
check_no_response reasons "reasons" "120 requests failed: validation 120"
adds_up reasons
check_eq "$(jv reasons errors.validation)" 120 "reasons: every response failed"
check_eq "$(jv reasons failures.reasons.0.reason)/$(jv reasons failures.reasons.0.count)" "top/40" "reasons: first, merged"
check_eq "$(jv reasons failures.reasons.1.reason)/$(jv reasons failures.reasons.1.count)" "second/20" "reasons: second, merged"
check_eq "$(grep -cE '^failures\.reasons\.[0-9]+\.reason' "$T/reasons.flat")" 13 "reasons: JSON lists all 13"
check_eq "$(awk -F'\t' '$1 ~ /^failures\.reasons\.[0-9]+\.count$/ { n += $2 } END { print n }' "$T/reasons.flat")" 120 \
    "reasons: counts add up"
check_eq "$(grep -cE '^failures\.reasons\.[0-9]+\.reason	thread [12]$' "$T/reasons.flat")" 2 "reasons: one thread's own reasons"
check_eq "$(jv reasons failures.other_reasons)/$(jv reasons failures.other)" 0/0 "reasons: none left out of the JSON"
check_grep "$T/reasons.out" "^    validation: top \(40\)$" "reasons text: first"
check_grep "$T/reasons.out" "^    validation: second \(20\)$" "reasons text: second"
check_eq "$(grep -c '^    validation: ' "$T/reasons.out")" 6 "reasons text: top 5, then the rest"
check_eq "$(grep -cE '^    validation: r[0-8] \(6\)$' "$T/reasons.out")" 3 "reasons text: then the largest"
check_grep "$T/reasons.out" "^    validation: 8 other reasons \(42\)$" "reasons text: the rest summed"
# More than 20 reasons: the JSON lists 20 and sums the others.
cat > "$S/reasons24.lua" <<'LUA'
local s = {}
function s.response(conn, res) return false, ("reason %02d"):format(conn.requests % 24) end
return s
LUA
runv reasons24 -n 240 -c 2 -t 2 -s "$S/reasons24.lua" "$url/"
adds_up reasons24
check_eq "$(grep -cE '^failures\.reasons\.[0-9]+\.reason' "$T/reasons24.flat")" 20 "24 reasons: JSON lists 20"
check_eq "$(jv reasons24 failures.other_reasons)/$(jv reasons24 failures.other)" 4/40 "24 reasons: the other 4"
check_grep "$T/reasons24.out" "^    validation: 19 other reasons \(190\)$" "24 reasons: text"

# --max-body: a response hook that reads the body keeps at most that much.
cat > "$S/body.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  if #res.body ~= 100000 then return false, "body length " .. #res.body end
end
return s
LUA
runv maxbody -n 10 -c 2 -t 2 --max-body 50000 -s "$S/body.lua" "$url/bytes/100000"
check_no_response maxbody "--max-body" "10 requests failed: validation 10"
adds_up maxbody
check_eq "$(jv maxbody requests.failed)/$(jv maxbody errors.validation)" 10/10 "--max-body: larger responses fail"
check_eq "$(jv maxbody failures.reasons.0.reason)/$(jv maxbody failures.reasons.0.count)" \
    "response larger than --max-body/10" "--max-body: reason"
check_grep "$T/maxbody.out" "^    validation: response larger than --max-body \(10\)$" "--max-body: text"
check_eq "$(jv maxbody status.200)" 10 "--max-body: responses too large still counted by status"
runv maxbody2 -n 10 -c 2 -t 2 --max-body 200000 -s "$S/body.lua" "$url/bytes/100000"
check_eq "$RC" 0 "--max-body larger: exit status"
check_eq "$(jv maxbody2 requests.completed)/$(jv maxbody2 requests.failed)" 10/0 "--max-body larger: whole bodies"
# The limit holds for a response that arrives in one read too.
runv maxbody_small -n 5 -c 1 -t 1 --max-body 100 -s "$S/res.lua" "$url/bytes/1000" -- bytes 1000
check_eq "$(jv maxbody_small requests.failed)/$(jv maxbody_small failures.reasons.0.reason)" \
    "5/response larger than --max-body" "--max-body: a response in one read"
check_eq "$(jv maxbody_small status.200)" 5 "--max-body, one read: counted by status"
adds_up maxbody_small
# A wrk-style response(status) keeps nothing, so the limit does not apply.
printf 'function response(status)\n  if status ~= 200 then return false, "status" end\nend\n' > "$S/status_only.lua"
runv maxbody_status -n 5 -c 1 -t 1 --max-body 50000 -s "$S/status_only.lua" "$url/bytes/100000"
check_eq "$(jv maxbody_status requests.completed)/$(jv maxbody_status requests.failed)" 5/0 "--max-body: response(status) keeps nothing"
# The default (8 MB) keeps 100 kB too.
runv maxbody3 -n 4 -c 1 -t 1 -s "$S/body.lua" "$url/bytes/100000"
check_eq "$(jv maxbody3 requests.completed)" 4 "--max-body default"

# Requests a script builds follow --http1.0 and --no-keepalive (and the
# same from options()); a request table's headers replace the defaults
# whatever their case.
cat > "$S/head.lua" <<'LUA'
function response(status, headers, body)
  local line = body:match("^[^\r]*")
  local conn = body:match("\r\n[Cc]onnection: ([^\r]*)\r\n") or "-"
  local hosts = select(2, body:gsub("\r\n[Hh][Oo][Ss][Tt]: ", ""))
  return false, ("%s | connection %s | %d host"):format(line, conn, hosts)
end
LUA
runv http10 -n 2 -c 1 -t 1 --http1.0 -s "$S/head.lua" "$url/echo"
check_eq "$(jv http10 failures.reasons.0.reason)" "GET /echo HTTP/1.0 | connection - | 1 host" "--http1.0 with a script"
runv nokeep -n 2 -c 1 -t 1 --no-keepalive -s "$S/head.lua" "$url/echo"
check_eq "$(jv nokeep failures.reasons.0.reason)" "GET /echo HTTP/1.1 | connection close | 1 host" "--no-keepalive with a script"
cat > "$S/head_options.lua" <<'LUA'
local s = {}
function s.options(args) return { url = args[1], requests = 2, connections = 1, threads = 1, http_version = "1.0" } end
function s.request(conn) return { headers = { host = "example.test", ["user-agent"] = "mine" } } end
function s.response(conn, res)
  local b = res.body
  local hosts = select(2, b:gsub("\r\n[Hh][Oo][Ss][Tt]: ", ""))
  local agents = select(2, b:gsub("\r\n[Uu]ser%-[Aa]gent: ", ""))
  return false, ("%s | %d host %s | %d agent %s"):format(b:match("^[^\r]*"), hosts, tostring(b:match("\r\nhost: ([^\r]*)")),
    agents, tostring(b:match("\r\nuser%-agent: ([^\r]*)")))
end
return s
LUA
runv head_options -H "User-Agent: theirs" -s "$S/head_options.lua" -- "$url/echo"
check_eq "$(jv head_options failures.reasons.0.reason)" "GET /echo HTTP/1.0 | 1 host example.test | 1 agent mine" \
    "options() http_version, request table headers in any case"

# done(result) of a scenario: the run's numbers, stats objects, metrics.
cat > "$S/done.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.k = (conn.k or 0) + 1
  if conn.k % 4 == 0 then return { path = "/status/503" } end
end
function s.response(conn, res)
  volley.counter("calls")
  volley.record("five", 5)
  if res.status == 503 then return false, "got 503" end
end
function s.done(r)
  local l = r.latency
  local v, c = l(1)
  print(("DONE started=%d completed=%d failed=%d cut_off=%d s200=%s s503=%s validation=%d reason=%s"):format(
    r.requests.started, r.requests.completed, r.requests.failed, r.requests.cut_off,
    tostring(r.status[200]), tostring(r.status[503]), r.errors.validation, tostring(r.failures["got 503"])))
  print(("DONE p99>0=%s distinct=%s first=%s order=%s count=%d"):format(tostring(l:percentile(99) > 0),
    tostring(#l >= 1 and #l <= r.requests.completed), tostring(v > 0 and c >= 1),
    tostring(l.min <= l.mean and l.mean <= l.max and l.min > 0), l.count))
  print(("DONE calls=%s five=%d/%g/%g connections=%d"):format(tostring(r.metrics.counters.calls),
    r.metrics.records.five.count, r.metrics.records.five.min, r.metrics.records.five.max, r.connections))
end
return s
LUA
runv done -n 40 -c 2 -t 2 -s "$S/done.lua" "$url/"
check_eq "$RC" 0 "done(result): exit status"
check_grep "$T/done.out" "^DONE started=40 completed=30 failed=10 cut_off=0 s200=30 s503=10 validation=10 reason=10$" \
    "done(result): requests, status, errors, failures"
check_grep "$T/done.out" "^DONE p99>0=true distinct=true first=true order=true count=30$" "done(result): result.latency"
check_grep "$T/done.out" "^DONE calls=40 five=40/5/5 connections=2$" "done(result): metrics"

# done() when nothing completed: it runs, with empty stats objects (count
# 0), and then volley exits 1 with its line on stderr; the same in wrk style.
cat > "$S/done_none.lua" <<'LUA'
local s = {}
function s.done(r)
  print(("NONE completed=%d failed=%d count=%d p99=%s"):format(r.requests.completed, r.requests.failed,
    r.latency.count, tostring(r.latency:percentile(99))))
end
return s
LUA
runv done_none -n 4 -c 2 -t 1 --timeout 200ms -s "$S/done_none.lua" "$url/never"
check_grep "$T/done_none.out" "^NONE completed=0 failed=4 count=0 p99=0$" "done(result), nothing completed: done() ran"
check_no_response done_none "done(result), nothing completed" "4 requests failed: timeout 4"
printf 'function done(summary, latency)\n  print(("WRKNONE requests=%%d timeout=%%d count=%%d"):format(summary.requests, summary.errors.timeout, latency.count))\nend\n' \
    > "$S/wrkdone_none.lua"
runv wrkdone_none -n 4 -c 2 -t 1 --timeout 200ms -s "$S/wrkdone_none.lua" "$url/never"
check_grep "$T/wrkdone_none.out" "^WRKNONE requests=0 timeout=4 count=0$" "wrk done(), nothing completed: done() ran"
check_no_response wrkdone_none "wrk done(), nothing completed" "4 requests failed: timeout 4"

# done(summary, latency, requests) in wrk style.
cat > "$S/wrkdone.lua" <<'LUA'
local n = 0
function request()
  n = n + 1
  return wrk.format(nil, n % 4 == 0 and "/status/503" or "/")
end
function done(summary, latency, requests)
  local v, c = latency(1)
  print(("WRK requests=%d status=%d read=%d connect=%d timeout=%d duration>0=%s bytes>0=%s"):format(summary.requests,
    summary.errors.status, summary.errors.read, summary.errors.connect, summary.errors.timeout,
    tostring(summary.duration > 0), tostring(summary.bytes > 0)))
  print(("WRK order=%s count=%d value=%s p50=%s"):format(tostring(latency.min <= latency.mean and latency.mean <= latency.max),
    latency.count, tostring(v > 0 and c >= 1), tostring(latency:percentile(50) >= latency.min)))
end
LUA
runv wrkdone -n 40 -c 2 -t 2 -s "$S/wrkdone.lua" "$url/"
check_eq "$RC" 0 "wrk done(): exit status"
check_eq "$(jv wrkdone status.503)" 10 "wrk done(): 503s"
check_grep "$T/wrkdone.out" "^WRK requests=40 status=10 read=0 connect=0 timeout=0 duration>0=true bytes>0=true$" "wrk done(): summary"
check_grep "$T/wrkdone.out" "^WRK order=true count=40 value=true p50=true$" "wrk done(): latency"
finish
