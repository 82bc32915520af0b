# Lua scripts: custom metrics (volley.counter, volley.record) merged across
# threads, and options(args) standing in for the command line.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"

scripts_setup

# Each thread counts and records; the report has the merged totals.
cat > "$S/metrics.lua" <<'LUA'
local s = {}
function s.init()
  volley.counter("inits")
end
function s.response(conn, res)
  volley.counter("hits")
  volley.counter("weighted", 2.5)
  volley.record("thread value", 10 * volley.thread)
  volley.record("bytes", res.bytes)
end
return s
LUA
runv metrics -n 300 -c 4 -t 2 -s "$S/metrics.lua" "$url/"
check_eq "$RC" 0 "metrics: exit status"
adds_up metrics
check_eq "$(jv metrics metrics.counters.hits)" 300 "volley.counter: merged total"
check_eq "$(jv metrics metrics.counters.weighted)" 750 "volley.counter(name, n): sums n"
check_eq "$(jv metrics metrics.counters.inits)" 2 "volley.counter in init(): once per thread"
check_eq "$(jv metrics metrics.records.thread\ value.count)" 300 "volley.record: merged count"
check_eq "$(jv metrics metrics.records.thread\ value.min)/$(jv metrics metrics.records.thread\ value.max)" 10/20 \
    "volley.record: min and max from both threads"
check_eq "$(jv metrics metrics.records.bytes.min)/$(jv metrics metrics.records.bytes.max)" 76/76 "volley.record: res.bytes"
check_num "$(jv metrics metrics.records.thread\ value.mean)" ">" 10 "volley.record: mean above min"
check_num "$(jv metrics metrics.records.thread\ value.mean)" "<" 20 "volley.record: mean below max"
check_grep "$T/metrics.out" "^  Metrics$" "metrics text: section"
check_grep "$T/metrics.out" "^    hits +300$" "metrics text: counter"
check_grep "$T/metrics.out" "^    weighted +750$" "metrics text: counter with amounts"
check_grep "$T/metrics.out" "^    thread value +count 300  min 10  .*max 20  mean " "metrics text: record"
# Without metrics there is no section.
runv nometrics -n 10 -c 1 -t 1 "$url/"
if grep -q "Metrics" "$T/nometrics.out"; then fail "no metrics: no Metrics section"; else ok; fi

# One name is either a counter or a record: the second use is a script
# error (exit 1) naming the function, the name and what it already is.
cat > "$S/both.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  volley.counter("x")
  volley.record("x", 1)
end
return s
LUA
runv both -n 20 -c 1 -t 1 -s "$S/both.lua" "$url/"
check_eq "$RC" 1 "counter and record of one name: exit status"
check_grep "$T/both.err" "^volley: $S/both\.lua:4: in response\(\): volley\.record: \"x\" is already a counter$" \
    "counter and record of one name: message"
adds_up both
check_eq "$(jv both requests.completed)" 1 "counter and record of one name: the run stops"
cat > "$S/both2.lua" <<'LUA'
local s = {}
function s.init() volley.record("y", 1) end
function s.request() volley.counter("y") end
return s
LUA
runv both2 -n 20 -c 1 -t 1 -s "$S/both2.lua" "$url/"
check_eq "$RC" 1 "record then counter: exit status"
check_grep "$T/both2.err" "^volley: $S/both2\.lua:3: in request\(\): volley\.counter: \"y\" is already a record$" \
    "record then counter: message"

# The same misuse spread over two threads (each thread alone is fine): the
# merge keeps the first kind, and the report says that values were dropped.
cat > "$S/both_threads.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  if volley.thread == 1 then volley.counter("z") else volley.record("z", 1) end
end
return s
LUA
runv both_threads -n 20 -c 2 -t 2 -s "$S/both_threads.lua" "$url/"
check_eq "$RC" 0 "counter in one thread, record in another: exit status"
check_grep "$T/both_threads.out" "^    \(1 thread's values dropped: a name was a counter in one thread and a record in another\)$" \
    "counter in one thread, record in another: the report says so"
check_eq "$(jv both_threads metrics.counters.z)" 10 "counter in one thread, record in another: thread 1's counter"
# Bad values: a message naming the function.
for bad in 'volley.record("neg", -1)|volley.record: "neg": the value must be a finite number >= 0, not -1' \
    'volley.record("inf", math.huge)|volley.record: "inf": the value must be a finite number >= 0, not inf' \
    'volley.record("s", "3")|volley.record: "s": the value must be a finite number >= 0, not a string' \
    'volley.counter("c", "x")|volley.counter: "c": the amount must be a number, not string' \
    'volley.counter("")|volley.counter: the name must be a non-empty string, not an empty one' \
    'volley.counter(5)|volley.counter: the name must be a non-empty string, not a number'; do
    code=${bad%%|*}
    msg=${bad#*|}
    printf 'local s = {}\nfunction s.response(conn, res)\n  %s\nend\nreturn s\n' "$code" > "$S/badmetric.lua"
    runv badmetric -n 10 -c 1 -t 1 -s "$S/badmetric.lua" "$url/"
    check_eq "$RC" 1 "$code: exit status"
    check_eq "$(cat "$T/badmetric.err")" "volley: $S/badmetric.lua:3: in response(): $msg" "$code: message"
    adds_up badmetric
done

# Values above a record's top (2^50 thousandths, about 1.1259e12) are kept
# as the top and counted: 1e16 (past int64 once scaled) and 5e12. The JSON
# has "clamped" on the record, the text report a note, done() s.clamped.
cat > "$S/clamp.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  volley.record("big", 1e16)
  volley.record("big", 5e12)
  volley.record("big", 1)
end
function s.done(r)
  local big = r.metrics.records.big
  print(("done: big count=%d clamped=%d latency clamped=%d"):format(big.count, big.clamped, r.latency.clamped))
end
return s
LUA
runv clamp -n 1 -c 1 -t 1 -s "$S/clamp.lua" "$url/"
check_eq "$RC" 0 "clamped record: exit status"
check_eq "$(jv clamp metrics.records.big.count)" 3 "clamped record: count"
check_eq "$(jv clamp metrics.records.big.clamped)" 2 "clamped record: clamped count in the JSON"
check_eq "$(jv clamp metrics.records.big.min)" 1 "clamped record: min"
check_eq "$(jv clamp metrics.records.big.max)" 1125899906842.62 "clamped record: max is the top (2^50 / 1000)"
# (jv gives 0 for a missing path: the fields are looked up in the file.)
check_eq "$(grep -cE '^(latency|connect|waiting|metrics\.records\.big)\.clamped'$'\t' "$T/clamp.flat")" 4 \
    "clamped: every histogram and record has the field"
check_eq "$(grep -E '^metrics\.records\.bytes\.clamped'$'\t' "$T/metrics.flat" | cut -f2)" 0 \
    "record without clamped values: 0"
check_grep "$T/clamp.out" "^    big +count 3  min 1  .*max 1\.1259e\+12  " "clamped record: text line"
check_grep "$T/clamp.out" "^    \(2 values above 1\.1259e\+12 recorded as 1\.1259e\+12\)$" "clamped record: text note"
check_eq "$(grep -c 'recorded as' "$T/metrics.out")" 0 "no clamped values: no note"
check_grep "$T/clamp.out" "^done: big count=3 clamped=2 latency clamped=0$" "clamped record: done()'s stats objects"

# options(args): the script gives the URL and the options; the words after
# -- reach it. No URL on the command line.
cat > "$S/options.lua" <<'LUA'
local s = {}
function s.options(args)
  return {
    url = args[1] .. "/echo", requests = tonumber(args[2]), connections = 3, threads = 1,
    headers = { ["X-Opt"] = "yes", "X-Line: two" }, method = "POST", body = "hello-body",
  }
end
function s.init(args)
  if args[0] ~= volley.target.scheme .. "://" .. volley.target.host .. ":" .. volley.target.port .. "/echo" then
    error("args[0] " .. tostring(args[0]))
  end
  if wrk.path ~= "/echo" or wrk.method ~= "POST" or wrk.body ~= "hello-body" then error("wrk table") end
end
function s.connect(conn) volley.counter("connects") end
function s.response(conn, res)
  local b = res.body
  if not b:find("^POST /echo HTTP/1%.1\r\n") then return false, "request line" end
  if not b:find("\r\nX%-Opt: yes\r\n") then return false, "X-Opt" end
  if not b:find("\r\nX%-Line: two\r\n") then return false, "X-Line" end
  if not b:find("\r\nContent%-Length: 10\r\n") then return false, "body" end
  volley.counter("ok")
end
return s
LUA
runv options -s "$S/options.lua" -- "$url" 30
check_eq "$RC" 0 "options(): exit status"
adds_up options
check_eq "$(jv options requests.started)" 30 "options(): requests"
check_eq "$(jv options metrics.counters.ok)" 30 "options(): method, headers and body ($(jv options failures.reasons.0.reason))"
check_eq "$(jv options options.connections)/$(jv options options.threads)/$(jv options options.method)" 3/1/POST \
    "options(): in the report"
check_eq "$(jv options metrics.counters.connects)" 3 "options(): connections"
check_eq "$(jv options target.url)" "$url/echo" "options(): url"
check_grep "$T/options.out" "^Running 30 requests @ $url/echo$" "options(): header line"
check_grep "$T/options.out" "^  1 thread and 3 connections, keep-alive, closed loop$" "options(): threads and connections"
# Its values win over the command line's, URL included.
runv options2 -n 500 -c 7 -t 2 -m PUT -s "$S/options.lua" "http://127.0.0.1:1/elsewhere" -- "$url" 12
check_eq "$RC" 0 "options() over flags: exit status"
check_eq "$(jv options2 requests.started)/$(jv options2 options.connections)/$(jv options2 options.threads)" 12/3/1 \
    "options() over flags: -n -c -t"
check_eq "$(jv options2 metrics.counters.ok)" 12 "options() over flags: method and URL"
# A flag options() does not give stays.
runv options3 --timeout 3s -s "$S/options.lua" -- "$url" 6
check_num "$(jv options3 options.timeout)" == 3 "options(): other flags stay"
check_eq "$(tstat received)" $((300 + 10 + 1 + 20 + 1 + 6 + 30 + 12 + 6)) "server: every request counted once"
# keepalive = false and duration.
cat > "$S/options_nka.lua" <<'LUA'
local s = {}
function s.options(args) return { url = args[1] .. "/", duration = "300ms", connections = 2, threads = 1, keepalive = false } end
function s.connect(conn) volley.counter("connects") end
return s
LUA
runv options_nka -s "$S/options_nka.lua" -- "$url"
check_eq "$RC" 0 "options() keepalive=false: exit status"
adds_up options_nka
check_eq "$(jv options_nka options.keepalive)" false "options() keepalive = false"
check_num "$(jv options_nka options.duration)" == 0.3 "options() duration"
check_ge "$(jv options_nka requests.completed)" 1 "options() duration: requests"
check_eq "$(jv options_nka metrics.counters.connects)" "$(jv options_nka connections_opened)" "options() keepalive=false: connects"
check_eq "$(jv options_nka connections_opened)" "$(jv options_nka requests.started)" "options() keepalive=false: one per request"

# rate from options() (-R), and done(result)'s open-model fields.
cat > "$S/options_rate.lua" <<'LUA'
local s = {}
function s.options(args) return { url = args[1] .. "/", rate = 200, requests = 40, connections = 4, threads = 2 } end
function s.done(r)
  print(string.format("done: model=%s service=%d sendlag=%d latency=%d unsent=%d", r.model, r.service.count,
    r.sendlag.count, r.latency.count, r.requests.unsent))
end
return s
LUA
runv options_rate -s "$S/options_rate.lua" -- "$url"
check_rate_rc "options() rate: exit status"
adds_up options_rate
check_eq "$(jv options_rate options.rate)/$(jv options_rate model)" 200/open "options() rate: -R"
check_grep "$T/options_rate.out" "^done: model=open service=40 sendlag=40 latency=40 unsent=0$" "options() rate: done(result)"
check_grep "$T/options_rate.out" "open model at 200 requests/s$" "options() rate: header line"

# options() mistakes: one line naming the option (with the nearest known
# one for a misspelt key); an unknown key, a value of the wrong type or one
# the command line would refuse is a bad command line (exit 2), before
# anything is sent. A hook that fails or returns no table is a script error
# (exit 1).
check_options_error() { # BODY STATUS MESSAGE
    printf 'local s = {}\nfunction s.options(args)\n  %s\nend\nreturn s\n' "$1" > "$S/opterr.lua"
    runv opterr -n 5 -s "$S/opterr.lua"
    check_eq "$RC" "$2" "options() $1: exit status"
    check_eq "$(cat "$T/opterr.err")" "volley: $S/opterr.lua$3" "options() $1: message"
    check_eq "$(wc -c < "$T/opterr.out")" 0 "options() $1: nothing printed"
}
check_options_error "return { url = \"$url/\", bogus = 1 }" 2 ': options(): unknown option "bogus"'
check_options_error "return { url = \"$url/\", conections = 5 }" 2 \
    ': options(): unknown option "conections" (did you mean "connections"?)'
check_options_error "return { url = \"$url/\", treads = 5 }" 2 ': options(): unknown option "treads" (did you mean "threads"?)'
check_options_error "return { url = \"$url/\", connections = \"x\" }" 2 ': options(): -c: "x" is not a number'
check_options_error "return { url = \"$url/\", threads = 0 }" 2 ': options(): -t: must be at least 1'
check_options_error "return { url = \"$url/\", keepalive = \"no\" }" 2 ': options(): keepalive: a boolean expected'
check_options_error "return { url = 5 }" 2 ': options(): url: a string expected'
check_options_error "return { url = \"$url/\", headers = \"X: y\" }" 2 ': options(): headers: a table expected'
check_options_error "return { url = \"$url/\", headers = { true } }" 2 \
    ': options(): headers: name = value pairs or "Name: value" lines expected'
check_options_error "return { url = \"$url/\", http_version = \"2\" }" 2 ': options(): http_version: "1.0" or "1.1" expected'
check_options_error "return { url = \"$url/\", connections = 2, threads = 5 }" 2 \
    ': options(): -t: 5 threads need at least as many connections (-c is 2)'
check_options_error 'return "fast"' 1 ': in options(): returned a string (a table of options or nil expected)'
check_options_error 'error("no options")' 1 ':3: in options(): no options'
# A body from options() and -b from the user.
printf 'local s = {}\nfunction s.options() return { url = "%s/", body = "x" } end\nreturn s\n' "$url" > "$S/body2.lua"
runv body2 -n 5 -b y -s "$S/body2.lua"
check_eq "$RC" 2 "options() body and -b: exit status"
check_eq "$(cat "$T/body2.err")" "volley: $S/body2.lua: options(): -b: given twice" "options() body and -b: message"
# No URL from anywhere.
printf 'local s = {}\nfunction s.options() return { requests = 5 } end\nreturn s\n' > "$S/nourl.lua"
runv nourl -s "$S/nourl.lua"
check_eq "$RC" 2 "options() without url: exit status"
check_grep "$T/nourl.err" "^volley: missing URL" "options() without url: message"
finish
