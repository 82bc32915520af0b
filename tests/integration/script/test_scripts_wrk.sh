# Lua scripts, wrk compatibility: all nine of wrk's example scripts run
# unchanged and do what each shows; pipelined request strings; the bundled
# example scenarios (-s examples.NAME).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"

S=$T/scripts
mkdir -p "$S"

# log_target NAME: a fresh server whose request log is $T/NAME.log (read it
# after stop_target); sets url.
log_target() {
    start_target --log "$T/$1.log"
    url="http://127.0.0.1:$PORT"
}

wrk_examples=/usr/share/doc/wrk/examples/scripts
if [ -d "$wrk_examples" ]; then
    # addr.lua: setup() picks each thread's address with wrk.lookup and
    # wrk.connect; init() prints it through wrk.thread.addr.
    start_target
    url="http://127.0.0.1:$PORT"
    runv addr -n 20 -c 2 -t 2 -s "$wrk_examples/addr.lua" "$url/"
    check_eq "$RC" 0 "addr.lua: exit status"
    check_eq "$(jv addr status.200)" 20 "addr.lua: completed"
    check_eq "$(grep -c "^thread addr: 127\.0\.0\.1:$PORT$" "$T/addr.out")" 2 "addr.lua: one address line per thread"
    # What init() prints comes before the Running banner, as in wrk.
    check_eq "$(head -3 "$T/addr.out" | cut -c1-12 | tr '\n' '|')" "thread addr:|thread addr:|Running 20 r|" \
        "addr.lua: init()'s lines before the banner"
    adds_up addr

    # report.lua: done(summary, latency, requests) prints percentiles as CSV.
    runv report -n 50 -c 2 -t 2 -s "$wrk_examples/report.lua" "$url/"
    check_eq "$RC" 0 "report.lua: exit status"
    check_eq "$(jv report status.200)" 50 "report.lua: completed"
    check_grep "$T/report.out" "^-{30}$" "report.lua: separator line"
    check_eq "$(grep -cE '^(50|90|99|99\.999)%,[0-9]+$' "$T/report.out")" 4 "report.lua: four percentile lines"
    # The percentiles are in microseconds: the median is no more than the max.
    p50=$(sed -n 's/^50%,//p' "$T/report.out")
    p99999=$(sed -n 's/^99\.999%,//p' "$T/report.out")
    check_ge "$p99999" "$p50" "report.lua: p99.999 >= p50"

    # setup.lua: thread:set in setup(), globals counted by request() and
    # response(), thread:get in done().
    runv setup -n 30 -c 2 -t 2 -s "$wrk_examples/setup.lua" "$url/"
    check_eq "$RC" 0 "setup.lua: exit status"
    check_eq "$(jv setup status.200)" 30 "setup.lua: completed"
    check_grep "$T/setup.out" "^thread 1 created$" "setup.lua: thread 1 created"
    check_grep "$T/setup.out" "^thread 2 created$" "setup.lua: thread 2 created"
    check_grep "$T/setup.out" "^thread 1 made 15 requests and got 15 responses$" "setup.lua: thread 1 in done()"
    check_grep "$T/setup.out" "^thread 2 made 15 requests and got 15 responses$" "setup.lua: thread 2 in done()"

    # stop.lua: wrk.thread:stop() after each thread's 100th response ends a
    # 10 s run at once.
    runv stop -d 10s -c 2 -t 2 -s "$wrk_examples/stop.lua" "$url/"
    check_eq "$RC" 0 "stop.lua: exit status"
    adds_up stop
    check_num "$(jv stop duration)" "<" 5 "stop.lua: the run ends early"
    check_num "$(jv stop requests.completed)" ">=" 200 "stop.lua: 100 responses per thread"
    check_num "$(jv stop requests.completed)" "<=" 210 "stop.lua: then the threads stop"
    check_eq "$(jv stop requests.failed)" 0 "stop.lua: nothing failed"

    # delay.lua: 10-50 ms before each request, so 10 requests on one
    # connection take at least 0.1 s.
    runv delay -n 20 -c 2 -t 2 -s "$wrk_examples/delay.lua" "$url/"
    check_eq "$RC" 0 "delay.lua: exit status"
    check_eq "$(jv delay status.200)" 20 "delay.lua: completed"
    check_num "$(jv delay duration)" ">=" 0.1 "delay.lua: requests wait"
    stop_target

    # auth.lua: the first response's X-Token goes on every later request
    # (/authenticate once per thread, then /resource).
    log_target auth
    runv auth -n 30 -c 2 -t 2 -s "$wrk_examples/auth.lua" "$url/"
    check_eq "$RC" 0 "auth.lua: exit status"
    check_eq "$(jv auth status.200)" 30 "auth.lua: completed"
    check_eq "$(tstat authorized)" 28 "auth.lua: all but each thread's first request carry X-Token"
    stop_target
    check_eq "$(grep -c ' GET /authenticate$' "$T/auth.log")" 2 "auth.lua: /authenticate once per thread"
    # Each connection sends the token its own /authenticate got.
    check_eq "$(awk '$3 == "/resource" && $4 == "X-Token=token-" $1' "$T/auth.log" | wc -l)" 28 "auth.lua: /resource with the connection's token"

    # counter.lua: path /N and header X-Counter: N, N counting from 0.
    log_target counter
    runv counter -n 30 -c 1 -t 1 -s "$wrk_examples/counter.lua" "$url/"
    check_eq "$RC" 0 "counter.lua: exit status"
    check_eq "$(jv counter status.200)" 30 "counter.lua: completed"
    stop_target
    check_eq "$(awk '{ printf "%s %s;", $3, $4 }' "$T/counter.log")" \
        "$(for i in $(seq 0 29); do printf '/%d X-Counter=%d;' "$i" "$i"; done)" "counter.lua: paths and X-Counter"

    # pipeline.lua: three requests in one string, answered in order.
    log_target pipeline
    runv pipeline -n 30 -c 2 -t 2 -s "$wrk_examples/pipeline.lua" "$url/"
    check_eq "$RC" 0 "pipeline.lua: exit status"
    adds_up pipeline
    check_eq "$(jv pipeline requests.started)" 30 "pipeline.lua: started"
    check_eq "$(jv pipeline status.200)" 30 "pipeline.lua: every response counted"
    check_eq "$(jv pipeline connections_opened)" 2 "pipeline.lua: batches reuse the connection"
    check_eq "$(tstat received)" 30 "pipeline.lua: server received"
    stop_target
    # Per connection: /?foo /?bar /?baz, five times over.
    check_eq "$(awk '{ seq[$1] = seq[$1] " " $3 } END { for (s in seq) print seq[s] }' "$T/pipeline.log" | sort -u)" \
        "$(for i in 1 2 3 4 5; do printf ' /?foo /?bar /?baz'; done)" "pipeline.lua: order in each batch"

    # post.lua: POST with its body and Content-Type, and volley's default
    # User-Agent (wrk.headers has it; wrk sends none). The request's size
    # is known exactly (the header order does not change it).
    log_target post
    runv post -n 20 -c 2 -t 2 -s "$wrk_examples/post.lua" "$url/"
    check_eq "$RC" 0 "post.lua: exit status"
    check_eq "$(jv post status.200)" 20 "post.lua: completed"
    ua="volley/$("$VOLLEY" --version | awk 'NR == 1 { print $2 }')"
    req="POST / HTTP/1.1\r\nHost: 127.0.0.1:$PORT\r\nUser-Agent: $ua\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 16\r\n\r\nfoo=bar&baz=quux"
    check_eq "$(jv post bytes.written)" $((20 * $(printf "$req" | wc -c))) "post.lua: method, headers and body"
    stop_target
    check_eq "$(grep -c ' POST /$' "$T/post.log")" 20 "post.lua: the server saw POSTs"
else
    echo "skip: $wrk_examples not installed (Debian wrk)"
fi

# Pipelining from a script: one request string of three requests. Every
# response is counted; -n counts requests, not strings.
start_target
url="http://127.0.0.1:$PORT"
cat > "$S/pipe3.lua" <<'LUA'
local req
function init(args)
  req = wrk.format(nil, args[1]) .. wrk.format(nil, "/status/201") .. wrk.format(nil, "/status/202")
end
function request() return req end
LUA
runv pipe3 -n 30 -c 2 -t 2 -s "$S/pipe3.lua" "$url/" -- /status/200
check_eq "$RC" 0 "pipelined: exit status"
adds_up pipe3
check_eq "$(jv pipe3 requests.started)" 30 "pipelined: -n 30 starts 30"
check_eq "$(jv pipe3 requests.completed)" 30 "pipelined: each response completes one request"
check_eq "$(jv pipe3 status.200)/$(jv pipe3 status.201)/$(jv pipe3 status.202)" \
    10/10/10 "pipelined: statuses"
check_eq "$(tstat received)/$(tstat answered)" 30/30 "pipelined: server answered 3 per batch"

# The server closes after the batch's first response: the other two are
# read errors, and the connection is opened again for the next batch.
runv pipeclose -n 30 -c 2 -t 2 -s "$S/pipe3.lua" "$url/" -- /close
check_eq "$RC" 0 "pipelined, server closes: exit status"
adds_up pipeclose
check_eq "$(jv pipeclose requests.started)" 30 "pipelined, server closes: started"
check_eq "$(jv pipeclose status.200)" 10 "pipelined, server closes: first responses completed"
check_eq "$(jv pipeclose errors.read)" 20 "pipelined, server closes: the rest are read errors"
check_eq "$(jv pipeclose connections_opened)" 10 "pipelined, server closes: a connection per batch"

# A scenario's response(conn, res) sees each response of a batch, in order,
# with its own body (a chunked one longer than a read in the middle).
cat > "$S/pipebody.lua" <<'LUA'
local s = {}
local req
function s.init()
  req = volley.format(nil, "/status/201") .. volley.format(nil, "/chunked/70000") .. volley.format(nil, "/status/202")
end
function s.request(conn)
  conn.i = 0
  return req
end
function s.response(conn, res)
  conn.i = conn.i + 1
  local want = ({ 201, 200, 202 })[conn.i]
  if res.status ~= want then return false, "order" end
  if want == 200 then
    if #res.body ~= 70000 then return false, "chunked body" end
  elseif res.body ~= "status " .. want .. "\n" then
    return false, "body"
  end
  volley.counter("seen")
end
return s
LUA
runv pipebody -n 30 -c 2 -t 2 -s "$S/pipebody.lua" "$url/"
check_eq "$RC" 0 "pipelined response(): exit status"
adds_up pipebody
check_eq "$(jv pipebody requests.completed)" 30 "pipelined response(): no failures"
check_eq "$(jv pipebody metrics.counters.seen)" 30 "pipelined response(): called per response"
stop_target

# The bundled example scenarios run against the test server without failures.
start_target
url="http://127.0.0.1:$PORT"
for ex in paths json_check metric wrk_migration; do
    runv "ex_$ex" -n 100 -c 4 -t 2 -s "examples.$ex" "$url/"
    check_eq "$RC" 0 "examples.$ex: exit status"
    adds_up "ex_$ex"
    check_eq "$(jv ex_$ex status.200)" 100 "examples.$ex: every request a 200"
    check_eq "$(jv ex_$ex requests.failed)" 0 "examples.$ex: no failures"
done
check_eq "$(jv ex_metric metrics.counters.items)" 1000 "examples.metric: items counted (10 per reply)"
check_eq "$(jv ex_metric metrics.records.bytes_per_item.count)" 100 "examples.metric: one record per reply"
runv ex_metric3 -n 20 -c 2 -t 2 -s examples.metric "$url/" -- 3
check_eq "$(jv ex_metric3 metrics.counters.items)" 60 "examples.metric -- 3: items counted"
runv ex_bad -n 50 -c 2 -t 2 -s examples.json_check "$url/" -- bad
check_no_response ex_bad "examples.json_check -- bad" "50 requests failed: validation 50"
adds_up ex_bad
check_eq "$(jv ex_bad requests.failed)/$(jv ex_bad errors.validation)" 50/50 \
    "examples.json_check -- bad: every request fails validation"
check_eq "$(jv ex_bad failures.reasons.0.reason)/$(jv ex_bad failures.reasons.0.count)/$(jv ex_bad failures.reasons.1.count)" "invalid JSON/50/0" \
    "examples.json_check -- bad: the reason"
check_grep "$T/ex_bad.out" "^    validation: invalid JSON \(50\)$" "examples.json_check -- bad: text report"
runv ex_badarg -n 5 -s examples.json_check "$url/" -- x
check_eq "$RC" 1 "examples.json_check -- x: exit status"
check_grep "$T/ex_badarg.err" '^volley: examples\.json_check: in init\(\): json_check: N must be a whole number from 0 to 10000, not "x"$' \
    "examples.json_check -- x: message"
stop_target

# examples.login: each connection logs in, then sends its token.
log_target login
runv ex_login -n 100 -c 4 -t 2 -s examples.login "$url/"
check_eq "$RC" 0 "examples.login: exit status"
adds_up ex_login
check_eq "$(jv ex_login status.200)" 100 "examples.login: every request a 200"
check_eq "$(jv ex_login status.401)" 0 "examples.login: no 401"
check_eq "$(jv ex_login requests.failed)" 0 "examples.login: no failures"
check_eq "$(tstat authorized)" 96 "examples.login: /private requests carry the token"
stop_target
check_eq "$(grep -c ' POST /login$' "$T/login.log")" 4 "examples.login: one login per connection"
check_eq "$(awk '$3 == "/private" && $4 == "Authorization=Bearer" && $5 == "tok-" $1' "$T/login.log" | wc -l)" 96 \
    "examples.login: the connection's own token"

# examples.wrk_migration: counter.lua and auth.lua as a scenario.
log_target migration
runv ex_migration -n 40 -c 2 -t 2 -s examples.wrk_migration "$url/"
check_eq "$RC" 0 "examples.wrk_migration: exit status"
check_eq "$(tstat authorized)" 38 "examples.wrk_migration: X-Token after /authenticate"
stop_target
check_grep "$T/migration.log" "^([0-9]+) GET /resource\?counter=0 X-(Token=token-\1 X-Counter=0|Counter=0 X-Token=token-\1)$" \
    "examples.wrk_migration: first /resource"
check_grep "$T/migration.log" "^([0-9]+) GET /resource\?counter=18 X-(Token=token-\1 X-Counter=18|Counter=18 X-Token=token-\1)$" \
    "examples.wrk_migration: counter per connection"

# examples.paths: X-Request: <conn.id>-<n> on each request.
log_target paths
runv ex_paths2 -n 12 -c 2 -t 1 -s examples.paths "$url/"
check_eq "$RC" 0 "examples.paths: exit status"
stop_target
# Each connection's tags count from 1 without a gap.
check_eq "$(sed -nE 's/.* X-Request=([0-9]+)-([0-9]+).*/\1 \2/p' "$T/paths.log" |
    awk '{ n[$1]++; if ($2 > max[$1]) max[$1] = $2 } END { for (c in n) print (n[c] == max[c] ? "ok" : "gap " c) }' |
    sort -u | tr '\n' ' ')" "ok " "examples.paths: X-Request tags"
check_eq "$(grep -c ' X-Request=' "$T/paths.log")" 12 "examples.paths: every request tagged"

# CR/LF from data never reaches the wire: a header value holding
# "\r\nX-Injected: 1" (a token copied from a response, say) stops the run
# with a message naming the header, and the server sees neither the
# injected header nor the smuggled request. The requests before it went out.
log_target inject
cat > "$S/inject.lua" <<'EOF'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  if conn.n <= 2 then return { path = "/before" } end
  return { path = "/private",
           headers = { Authorization = "Bearer tok-1\r\nX-Injected: 1\r\n\r\nDELETE /all HTTP/1.1" } }
end
return s
EOF
runv inject -n 10 -c 1 -t 1 -s "$S/inject.lua" "$url/"
check_eq "$RC" 1 "CR/LF in a header value: exit status"
check_eq "$(cat "$T/inject.err")" \
    "volley: $S/inject.lua: in request(): wrk.format: header \"Authorization\" value contains CR/LF/NUL" \
    "CR/LF in a header value: message"
# (not a tail call: "return wrk.format(...)" leaves no line to name)
printf 'request = function()\n  local r = wrk.format(nil, "/x", { ["X-A"] = "1\\r\\nX-Injected: 1" })\n  return r\nend\n' \
    > "$S/inject_wrk.lua"
runv inject_wrk -n 10 -c 1 -t 1 -s "$S/inject_wrk.lua" "$url/"
check_eq "$RC" 1 "CR/LF in wrk.format: exit status"
check_eq "$(cat "$T/inject_wrk.err")" \
    "volley: $S/inject_wrk.lua:2: in request(): wrk.format: header \"X-A\" value contains CR/LF/NUL" \
    "CR/LF in wrk.format: message with the calling line"
stop_target
check_eq "$(grep -c ' GET /before$' "$T/inject.log")" 2 "CR/LF: the requests before it were sent"
check_eq "$(grep -ciE 'injected|DELETE|/private|/x' "$T/inject.log")" 0 "CR/LF: nothing injected reached the server"

# done() of a wrk-style script as wrk has it (checked against wrk 4.1): an
# unknown field of latency or requests is the key as a string, one of
# summary is nil; min, max and percentiles are whole microseconds.
start_target
url="http://127.0.0.1:$PORT"
cat > "$S/done_fields.lua" <<'EOF'
done = function(summary, latency, requests)
  print("requests.total " .. requests.total)
  print("latency.foo " .. latency.foo)
  print("summary.foo " .. tostring(summary.foo))
  print("latency[1] " .. type(latency[1]) .. " " .. latency[1])
  for _, v in ipairs({ latency.min, latency.max, latency:percentile(50), latency:percentile(99.9),
                       requests.min, requests.max, requests:percentile(90) }) do
    io.write(v == math.floor(v) and "whole " or "fraction ")
  end
  print()
end
EOF
runv done_fields -n 50 -c 2 -t 1 -s "$S/done_fields.lua" "$url/"
check_eq "$RC" 0 "done() fields: exit status"
check_eq "$(grep -c '' "$T/done_fields.err")" 0 "done() fields: no error"
check_eq "$(sed -n '/^requests.total/,$p' "$T/done_fields.out")" "requests.total total
latency.foo foo
summary.foo nil
latency[1] string 1
whole whole whole whole whole whole whole " "done() fields: as wrk prints them"

# Script arguments right after the URL, as wrk takes them; options among
# them still count; "--" adds more. With options() (which makes volley
# parse the command line again) they come once.
cat > "$S/args.lua" <<'EOF'
init = function(args)
  local t = {}
  for i = 0, #args do t[#t + 1] = i .. "=" .. args[i] end
  print("args " .. table.concat(t, " "))
end
EOF
runv args_url -n 4 -t 1 -s "$S/args.lua" "$url/" a -c 2 b -- c
check_eq "$RC" 0 "args after the URL: exit status"
check_eq "$(jv args_url options.connections)" 2 "args after the URL: -c among them is an option"
check_eq "$(grep '^args' "$T/args_url.out" | sort -u)" "args 0=$url/ 1=a 2=b 3=c" "args after the URL: init(args)"
cat > "$S/args_opts.lua" <<'EOF'
local s = {}
function s.options(args) return { connections = 3 } end
function s.init(args)
  local t = {}
  for i = 0, #args do t[#t + 1] = i .. "=" .. args[i] end
  print("args " .. table.concat(t, " "))
end
return s
EOF
runv args_opts -n 6 -t 1 -s "$S/args_opts.lua" "$url/" a b -- c
check_eq "$RC" 0 "args after the URL with options(): exit status"
check_eq "$(jv args_opts options.connections)" 3 "args after the URL with options(): its connections"
check_eq "$(grep '^args' "$T/args_opts.out" | sort -u)" "args 0=$url/ 1=a 2=b 3=c" \
    "args after the URL with options(): each once"

# thread.addr set by the thread itself, as wrk 4.1 allows (wrk2's
# multiple-endpoints.lua does it in init() and in response()): setup()
# gives each thread a server's port, init() points the thread there with
# wrk.lookup, and thread 2's response() moves it to the other server after
# its 3rd response, so its connections from then on (one per request,
# --no-keepalive, -c 1 per thread) go there. The servers count exactly.
start_target
PORT_A=$PORT TPID_A=$TPID
start_target
PORT_B=$PORT TPID_B=$TPID
cat > "$S/thread_addr.lua" <<EOF
local ports, n = { "$PORT_A", "$PORT_B" }, 0
function setup(thread)
  n = n + 1
  thread:set("port", ports[n])
end
function init(args)
  wrk.thread.addr = wrk.lookup("127.0.0.1", port)[1]
  print("thread " .. wrk.thread.id .. " at " .. tostring(wrk.thread.addr))
end
local done = 0
function response(status)
  done = done + 1
  if wrk.thread.id == 2 and done == 3 then wrk.thread.addr = wrk.lookup("127.0.0.1", "$PORT_A")[1] end
end
EOF
runv thread_addr -n 20 -c 2 -t 2 --no-keepalive -s "$S/thread_addr.lua" "http://127.0.0.1:$PORT_B/"
check_eq "$RC" 0 "thread.addr in init(): exit status"
check_eq "$(jv thread_addr status.200)" 20 "thread.addr in init(): completed"
check_eq "$(grep '^thread ' "$T/thread_addr.out" | sort | tr '\n' '|')" \
    "thread 1 at 127.0.0.1:$PORT_A|thread 2 at 127.0.0.1:$PORT_B|" "thread.addr in init(): each thread's address"
check_eq "$(PORT=$PORT_A tstat received)" 17 "thread.addr: server A: thread 1's 10 and thread 2's last 7"
check_eq "$(PORT=$PORT_B tstat received)" 3 "thread.addr: server B: thread 2's first 3"
kill "$TPID_A" "$TPID_B" 2>/dev/null || true
wait "$TPID_A" "$TPID_B" 2>/dev/null || true

# The default request's Host, as wrk makes it after the chunk has run:
# wrk.host, in brackets when it holds a ':', and ':' .. wrk.port when
# wrk.port is set (klen/py-frameworks-bench's report script sets both);
# -H or wrk.headers give their own; init() is too late for wrk.host. The
# server's /echo returns the request head; response() prints its Host.
start_target
host_case() { # NAME LUA [VOLLEY ARGS...]: prints the Host the server received
    local name=$1 lua=$2
    shift 2
    printf '%s\nwrk.path = "/echo"\nfunction response(s, h, body) print("host " .. (body:match("\\r\\n[Hh][Oo][Ss][Tt]: ([^\\r]*)\\r\\n") or "none")) end\n' \
        "$lua" > "$S/$name.lua"
    runv "$name" -n 1 -c 1 -t 1 "$@" -s "$S/$name.lua" "http://127.0.0.1:$PORT/"
    check_eq "$RC" 0 "Host $name: exit status"
    sed -n 's/^host //p' "$T/$name.out"
}
check_eq "$(host_case host_klen 'wrk.scheme = "http" wrk.host = "localhost" wrk.port = 4001')" "localhost:4001" \
    "Host from wrk.host and wrk.port (a number) set by the chunk"
check_eq "$(host_case host_name 'wrk.host = "example.test"')" "example.test:$PORT" "Host from wrk.host, the URL's port"
check_eq "$(host_case host_noport 'wrk.port = nil')" "127.0.0.1" "Host without wrk.port: no port"
check_eq "$(host_case host_v6 'wrk.host = "::1" wrk.port = "8080"')" "[::1]:8080" "Host of an IPv6 wrk.host: brackets"
check_eq "$(host_case host_default '')" "127.0.0.1:$PORT" "Host of the URL when the chunk changes nothing"
check_eq "$(host_case host_given 'wrk.host = "example.test"' -H 'host: given.test')" "given.test" "-H host: wins over wrk.host"
check_eq "$(host_case host_table 'wrk.host = "example.test" wrk.headers["HOST"] = "table.test"')" "table.test" \
    "wrk.headers' Host (any case) wins over wrk.host"
check_eq "$(host_case host_init 'function init() wrk.host = "late.test" end')" "127.0.0.1:$PORT" \
    "wrk.host set in init(): too late for Host, as in wrk"
check_eq "$(host_case host_init_header 'function init() wrk.headers.Host = "init.test" end')" "init.test" \
    "wrk.headers.Host set in init()"
stop_target

# thread:stop() in every thread ends the run then; wrk would sleep out -d
# (docs/scripting.md, Differences from wrk). done()'s summary.duration is
# the run's own duration, as in the JSON (µs against s), not -d's 30 s.
start_target
cat > "$S/stop_all.lua" <<'EOF'
local n = 0
function response() n = n + 1 if n == 5 then wrk.thread:stop() end end
function done(summary) print("duration_us " .. summary.duration) end
EOF
runv stop_all -d 30s -c 2 -t 2 -s "$S/stop_all.lua" "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "thread:stop() in every thread: exit status"
# (a response that came in the same loop turn as the stop may complete too)
check_num "$(jv stop_all requests.completed)" ">=" 10 "thread:stop() in every thread: 5 responses each"
check_num "$(jv stop_all requests.completed)" "<=" 12 "thread:stop() in every thread: then the threads stop"
us=$(sed -n 's/^duration_us //p' "$T/stop_all.out")
check_num "$us" "<" 10000000 "thread:stop() in every thread: summary.duration is not -d's"
check_eq "$(awk -v us="$us" -v s="$(jv stop_all duration)" 'BEGIN { d = us - s * 1e6; print (d < 2 && d > -2) ? "same" : us " vs " s }')" \
    same "thread:stop() in every thread: summary.duration is the run's duration"
stop_target
finish
